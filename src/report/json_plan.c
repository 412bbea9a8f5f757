/* json_plan.c — `kvplan plan --json` (kvplan/render.h): one document for
 * every policy. The sections every engine shares (deployment, memory, pools,
 * capacity, engine_report, warnings) are built here once; each engine adds
 * the figures only it prints (TensorRT-LLM's managers and budget terms, the
 * policies' engine_details). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvplan/render.h"
#include "engine_ops.h"
#include "render_internal.h"
#include "util.h"

#define ju kvp__json_u64

static const char *const k_est_names[] = {"total", "free", "weights", "activation", "non_torch",
                                          "cuda_graph"};

/* What was planned: the same object under every policy. */
static json_t *deployment_json(const kvp_render_input *in, const kvp_deploy_result *r,
                               const char *kv_dtype) {
    json_t *o = json_object();
    json_object_set_new(o, "model", json_string(kvp_model_name(in->model)));
    json_object_set_new(o, "policy", json_string(kvp_engine_name(r->point.engine)));
    json_object_set_new(o, "gpu", in->gpu ? json_string(in->gpu) : json_null());
    json_object_set_new(o, "tp", ju(r->point.tp ? r->point.tp : 1));
    json_object_set_new(o, "pp", ju(r->point.pp ? r->point.pp : 1));
    json_object_set_new(o, "kv_dtype", json_string(kv_dtype));
    json_object_set_new(o, "max_seq_len", ju(r->point.max_seq_len));
    json_object_set_new(o, "seq_len", ju(r->point.seq_len));
    json_object_set_new(o, "engine_max_seq_len", ju(r->engine_max_seq_len));
    return o;
}

/* The memory terms of one rank; "estimated" lists the terms that came from
 * the config, not a measurement. Nulls when planned from a KV budget. */
static json_t *memory_json(const kvp_render_input *in, const kvp_deploy_result *r) {
    json_t *mem = json_object();
    const kvp_memory_facts *m = &r->memory;
    bool have = r->have_memory;
    json_object_set_new(mem, "total_bytes", have ? ju(m->total_bytes) : json_null());
    json_object_set_new(mem, "weights_bytes", have ? ju(m->weights_bytes) : json_null());
    json_object_set_new(mem, "activation_bytes", have ? ju(m->activation_bytes) : json_null());
    json_object_set_new(mem, "non_torch_bytes", have ? ju(m->non_torch_bytes) : json_null());
    json_object_set_new(mem, "cuda_graph_bytes", have ? ju(m->cuda_graph_bytes) : json_null());
    json_t *est = json_array();
    for (unsigned b = 0; b < 6; b++)
        if (have && (m->estimated & (1u << b)))
            json_array_append_new(est, json_string(k_est_names[b]));
    json_object_set_new(mem, "estimated", est);
    json_object_set_new(mem, "weights_source",
                        have && m->weights_source[0] ? json_string(m->weights_source) : json_null());
    json_object_set_new(mem, "total_source",
                        have && in->total_source ? json_string(in->total_source) : json_null());
    /* The start-up terms (docs/memory.md): each with how it is known and where
     * the engine charges it. */
    static const char *const marks[] = {"exact", "bounded", "estimated", "given"};
    static const char *const charges[] = {"peak", "headroom", "not_charged", "phase"};
    json_t *terms = json_array();
    for (uint32_t i = 0; have && i < m->term_count; i++) {
        const kvp_memory_term *t = &m->terms[i];
        json_t *j = json_object();
        json_object_set_new(j, "name", json_string(t->name));
        json_object_set_new(j, "bytes", ju(t->bytes));
        const char *part = NULL;
        for (unsigned b = 0; b < 6; b++)
            if (t->part == (1u << b)) part = k_est_names[b];
        json_object_set_new(j, "part", part ? json_string(part) : json_null());
        json_object_set_new(j, "mark", json_string(marks[t->mark < 4 ? t->mark : 2]));
        json_object_set_new(j, "charged", json_string(charges[t->charge < 4 ? t->charge : 0]));
        if (t->under_load) json_object_set_new(j, "under_load", json_true());
        json_object_set_new(j, "source", json_string(t->source));
        json_array_append_new(terms, j);
    }
    json_object_set_new(mem, "terms", terms);
    if (have && m->release_line[0])
        json_object_set_new(mem, "release_line", json_string(m->release_line));
    json_t *hr = json_object();
    json_object_set_new(hr, "available_bytes", have && r->headroom_bytes ? ju(r->headroom_bytes)
                                                                           : json_null());
    json_object_set_new(hr, "need_bytes", ju(have ? r->headroom_need_bytes : 0));
    json_object_set_new(hr, "fits", json_boolean(!r->headroom_short));
    if (have && r->headroom_need_bytes) {
        /* The verdict's figures (docs/memory.md "One headroom verdict"). */
        json_object_set_new(hr, "startup_sure_bytes", ju(r->headroom_sure_bytes));
        json_object_set_new(hr, "startup_available_bytes", ju(r->headroom_startup_bytes));
        json_object_set_new(hr, "refused", json_boolean(r->headroom_refused));
    }
    json_object_set_new(mem, "headroom", hr);
    return mem;
}

static json_t *local_json(const kvp_local_report *local) {
    json_t *lc = json_array();
    for (size_t i = 0; local && i < kvp_local_report_entry_count(local); i++) {
        const kvp_local_entry *e = kvp_local_report_entry(local, i);
        json_t *j = json_object();
        json_object_set_new(j, "name", json_string(e->name));
        json_object_set_new(j, "rows", ju(e->rows));
        json_object_set_new(j, "row_driver", json_string(kvp_local_row_driver_name(e->row_driver)));
        json_object_set_new(j, "bytes_per_row", ju(e->bytes_per_row));
        json_object_set_new(j, "total_bytes", ju(e->total_bytes));
        json_object_set_new(j, "charged", json_boolean(e->charged));
        json_array_append_new(lc, j);
    }
    return lc;
}

/* TensorRT-LLM's rules around the creator; NULL when none was used. */
static json_t *rules_json(const kvp_render_rules *x, const kvp_deploy_settings *d) {
    bool active = x && x->compression_effect && x->compression_effect->active;
    bool any = active || (x && (x->lora || x->mm_profile || x->engine_version)) ||
               d->trtllm_rules != KVP_TRTLLM_RULES_2026;
    if (!any) return NULL;
    json_t *o = json_object();
    json_object_set_new(o, "trtllm_rules", json_string(kvp_trtllm_rules_name(d->trtllm_rules)));
    if (x && x->compression && x->compression->algorithm != KVP_COMPRESSION_NONE &&
        x->compression_effect) {
        const kvp_compression_effect *ce = x->compression_effect;
        json_t *c = json_object();
        json_object_set_new(c, "algorithm", json_string(kvp_compression_name(x->compression->algorithm)));
        json_object_set_new(c, "active", json_boolean(ce->active));
        json_object_set_new(c, "cold_page_dtype", ce->cold_page_dtype == KVP_DTYPE_AUTO
                                                      ? json_null()
                                                      : json_string(kvp_dtype_name(ce->cold_page_dtype)));
        json_object_set_new(o, "compression", c);
    }
    if (x && x->lora && x->lora_cache) {
        const kvp_lora_cache *l = x->lora_cache;
        json_t *j = json_object(), *mods = json_array();
        for (size_t i = 0; i < l->module_count; i++) json_array_append_new(mods, json_string(l->modules[i]));
        json_object_set_new(j, "max_lora_rank", ju(x->lora->max_lora_rank));
        json_object_set_new(j, "target_modules", mods);
        json_object_set_new(j, "num_lora_modules", ju(l->num_lora_modules));
        json_object_set_new(j, "num_device_module_layer", l->has_device ? ju(l->device_module_layers) : json_null());
        json_object_set_new(j, "num_host_module_layer", l->has_host ? ju(l->host_module_layers) : json_null());
        json_object_set_new(j, "num_kv_heads", ju(l->num_kv_heads));
        json_object_set_new(j, "shared_expert_hidden_size", ju(l->shared_expert_hidden_size));
        json_object_set_new(j, "moe_hidden_size", ju(l->moe_hidden_size));
        json_object_set_new(j, "mamba_in_proj_size", ju(l->mamba_in_proj_size));
        json_object_set_new(j, "mamba_inner_size", ju(l->mamba_inner_size));
        json_object_set_new(j, "moe_latent_size", ju(l->moe_latent_size));
        json_object_set_new(j, "num_experts", ju(l->num_experts));
        json_object_set_new(o, "lora", j);
    }
    if (x && x->mm_profile) {
        const kvp_mm_profile *p = x->mm_profile;
        json_t *j = json_object();
        json_object_set_new(j, "modality", p->has_batch ? json_string(p->modality) : json_null());
        json_object_set_new(j, "num_items", ju(p->num_items));
        json_object_set_new(j, "tokens", ju(p->tokens));
        json_object_set_new(j, "retained_output_bytes", ju(d->mm_profiled_output_bytes));
        json_object_set_new(o, "multimodal_profile", j);
    }
    json_t *notes = json_array();
    for (uint32_t i = 0; x && x->notes && i < x->notes->count; i++)
        json_array_append_new(notes, json_string(x->notes->text[i]));
    json_object_set_new(o, "notes", notes);
    return o;
}

bool kvp__estimated_note(const kvp_deploy_result *r, char *buf, size_t n) {
    if (!r->memory_estimated) return false;
    snprintf(buf, n,
             "memory terms not given were estimated from the config (weights %.2f GiB, %s); pass "
             "--weights, --peak, --non-torch, --cuda-graph from the engine's log to replace them",
             (double)r->memory.weights_bytes / (double)(1ull << 30), r->memory.weights_source);
    return true;
}

bool kvp__report_creator_plans(kvp_engine engine) {
    const kvp__engine_ops *ops = kvp__engine_ops_of(engine);
    return ops && ops->creator_plans;
}

bool kvp__report_fixed_slots(kvp_engine engine) {
    const kvp__engine_ops *ops = kvp__engine_ops_of(engine);
    return ops && ops->fixed_slots;
}

bool kvp__report_allocates_as_asked(kvp_engine engine) {
    const kvp__engine_ops *ops = kvp__engine_ops_of(engine);
    return ops && ops->allocates_as_asked;
}

/* The seed's creator planned it (the engine's record): the creator's document. */
static bool creator_plans(const kvp_deploy_result *r) {
    return kvp__report_creator_plans(r->point.engine);
}

/* A number member of the policy result at `offset` (engine_ops.h's details). */
static uint64_t detail_number(const kvp_policy_result *r, size_t offset, kvp__detail_kind kind) {
    const char *base = (const char *)r + offset;
    if (kind == KVP__DETAIL_U32) {
        uint32_t v;
        memcpy(&v, base, sizeof v);
        return v;
    }
    uint64_t v;
    memcpy(&v, base, sizeof v);
    return v;
}

/* The engine's `engine_details` (its record's table): a field whose condition
 * member is 0 is left out. */
static json_t *details_json(const kvp_policy_result *r) {
    json_t *d = json_object();
    const kvp__engine_ops *ops = kvp__engine_ops_of(r->engine);
    for (const kvp__engine_detail *f = ops ? ops->details : NULL; f && f->name; f++) {
        if (f->when_kind != KVP__DETAIL_NONE && !detail_number(r, f->when, f->when_kind)) continue;
        json_object_set_new(d, f->name,
                            f->kind == KVP__DETAIL_TEXT
                                ? json_string((const char *)r + f->offset)
                                : ju(detail_number(r, f->offset, f->kind)));
    }
    return d;
}

/* The caller's notes, then the engine's own (the policies: the note on
 * estimated terms first, as the text report prints it). */
static json_t *warnings_json(const kvp_render_input *in, const kvp_deploy_result *r) {
    json_t *w = json_array();
    for (size_t i = 0; i < in->note_count; i++) json_array_append_new(w, json_string(in->notes[i]));
    char note[KVP_NOTE_TEXT_MAX];
    bool creator = creator_plans(r);
    if (!creator && kvp__estimated_note(r, note, sizeof note))
        json_array_append_new(w, json_string(note));
    if (creator)
        for (uint32_t i = 0; i < r->warnings.count; i++)
            json_array_append_new(w, json_string(r->warnings.text[i]));
    else
        for (uint32_t i = 0; i < r->policy.note_count; i++)
            json_array_append_new(w, json_string(r->policy.notes[i]));
    return w;
}

static json_t *trtllm_json(const kvp_render_input *in, const kvp_deploy_result *r) {
    const kvp_deploy_settings *d = &r->trtllm;
    const kvp_manager_plan *t = &r->plan.managers[KVP_ROLE_TARGET];
    json_t *o = kvp__json_document();
    if (!o) return NULL;
    json_object_set_new(o, "model", json_string(kvp_model_name(in->model)));
    json_object_set_new(o, "policy", json_string("trtllm"));
    if (kvp_model_get_info(in->model)->family_unverified)
        json_object_set_new(o, "verified", json_false());
    json_object_set_new(o, "deployment", deployment_json(in, r, kvp_dtype_name(t->kv_dtype)));
    json_object_set_new(o, "manager", json_string(kvp_manager_kind_name(t->kind)));
    json_object_set_new(o, "kv_dtype", json_string(kvp_dtype_name(t->kv_dtype)));
    json_object_set_new(o, "tp", ju(d->tp));
    json_object_set_new(o, "pp", ju(d->pp));
    json_object_set_new(o, "max_seq_len", ju(d->max_seq_len));
    json_object_set_new(o, "max_batch_size", ju(d->max_batch_size));
    json_object_set_new(o, "budget_bytes", ju(r->cap.kv_max_memory_bytes));
    json_t *bud = json_object();
    json_object_set_new(bud, "peak_bytes", ju(r->cap.peak_bytes));
    json_object_set_new(bud, "fraction_budget_bytes", ju(r->cap.budget_bytes));
    json_object_set_new(bud, "after_max_tokens_bytes", ju(r->cap.after_max_tokens_bytes));
    json_object_set_new(bud, "kv_max_memory_bytes", ju(r->cap.kv_max_memory_bytes));
    json_object_set_new(o, "budget", bud);
    json_t *pools = json_array();
    for (int role = 0; role < KVP_ROLE_COUNT; role++) {
        const kvp_manager_plan *mp = &r->plan.managers[role];
        if (!mp->present) continue;
        for (uint32_t i = 0; i < mp->pool_count; i++) {
            const kvp_plan_pool *q = &mp->pools[i];
            json_t *j = json_object();
            json_object_set_new(j, "manager", json_string(kvp_manager_role_name(mp->role)));
            json_object_set_new(j, "manager_kind", json_string(kvp_manager_kind_name(mp->kind)));
            json_object_set_new(j, "kind", json_string(kvp_cache_kind_name(q->kind)));
            json_object_set_new(j, "layers", ju(q->layers));
            json_object_set_new(j, "window_tokens", q->window_tokens ? ju(q->window_tokens) : json_null());
            json_object_set_new(j, "bytes_per_token",
                                ju(q->kind == KVP_CACHE_RECURRENT ? 0 : q->bytes_per_token));
            json_object_set_new(j, "bytes_per_sequence", ju(q->bytes_per_sequence));
            json_object_set_new(j, "page_bytes", ju(q->page_bytes));
            json_object_set_new(j, "tokens_per_block",
                                q->tokens_per_block ? ju(q->tokens_per_block) : json_null());
            json_object_set_new(j, "block_size_tokens", ju(q->tokens_per_block));
            json_object_set_new(j, "bytes", ju(q->bytes));
            json_object_set_new(j, "blocks", ju(q->blocks));
            json_object_set_new(j, "tokens", ju(q->tokens));
            json_object_set_new(j, "in_intercept", json_boolean(q->in_intercept));
            json_array_append_new(pools, j);
        }
    }
    json_object_set_new(o, "pools", pools);
    json_object_set_new(o, "block_pool", json_null()); /* each pool its own buffer */
    json_t *mgrs = json_array();
    for (int role = 0; role < KVP_ROLE_COUNT; role++) {
        const kvp_manager_plan *mp = &r->plan.managers[role];
        if (!mp->present) continue;
        json_t *j = json_object();
        json_object_set_new(j, "role", json_string(kvp_manager_role_name(mp->role)));
        json_object_set_new(j, "kind", json_string(kvp_manager_kind_name(mp->kind)));
        json_object_set_new(j, "kv_dtype", json_string(kvp_dtype_name(mp->kv_dtype)));
        json_object_set_new(j, "slope_bytes_per_token", ju(mp->cost.slope_bytes_per_token));
        json_object_set_new(j, "intercept_bytes", ju(mp->cost.intercept_bytes));
        json_object_set_new(j, "max_gpu_total_bytes", ju(mp->max_gpu_total_bytes));
        json_object_set_new(j, "host_cache_size", ju(mp->host_cache_size));
        json_object_set_new(j, "free_gpu_memory_fraction", json_real(mp->free_gpu_memory_fraction));
        json_object_set_new(j, "max_tokens", mp->max_tokens ? ju(mp->max_tokens) : json_null());
        json_object_set_new(j, "bytes", ju(mp->bytes));
        json_array_append_new(mgrs, j);
    }
    json_object_set_new(o, "managers", mgrs);
    json_object_set_new(o, "allocated_bytes", ju(r->plan.allocated_bytes));
    json_object_set_new(o, "max_tokens", ju(t->max_tokens_out));
    json_t *er = json_object();
    json_object_set_new(er, "max_tokens", ju(t->max_tokens_out));
    json_object_set_new(er, "kv_cache_bytes", ju(t->bytes));
    json_object_set_new(o, "engine_report", er);
    /* The slot pool caps the count: max_batch_size x pp (compute_max_num_sequences). */
    uint64_t count = r->max_sequences < r->batch_limit ? r->max_sequences : r->batch_limit;
    json_t *ms = json_object();
    json_object_set_new(ms, "seq_len", ju(r->point.seq_len));
    json_object_set_new(ms, "count", ju(count));
    json_object_set_new(ms, "kv_limit", r->max_sequences == UINT64_MAX ? json_null() : ju(r->max_sequences));
    json_object_set_new(ms, "engine_max_seq_len", ju(r->engine_max_seq_len));
    json_object_set_new(ms, "longest_sequence_tokens",
                        r->longest_tokens == UINT64_MAX ? json_null() : ju(r->longest_tokens));
    json_object_set_new(ms, "admitted", kvp__admitted_json(&r->admission));
    json_object_set_new(ms, "admission", kvp__admission_json(&r->admission));
    json_object_set_new(o, "max_sequences", ms);
    json_object_set_new(o, "capacity", kvp__capacity_json(r));
    json_t *res = json_array();
    if (r->cap.mm_reserve_bytes) {
        json_t *j = json_object();
        json_object_set_new(j, "name", json_string("multimodal_encoder"));
        json_object_set_new(j, "bytes", ju(r->cap.mm_reserve_bytes));
        json_array_append_new(res, j);
    }
    if (r->cap.mla_workspace_reserve_bytes) {
        json_t *j = json_object();
        json_object_set_new(j, "name", json_string("mla_context_workspace"));
        json_object_set_new(j, "bytes", ju(r->cap.mla_workspace_reserve_bytes));
        json_object_set_new(j, "admission_cap_tokens", ju(r->cap.mla_kv_len_cap_tokens));
        json_array_append_new(res, j);
    }
    json_object_set_new(o, "reserves", res);
    json_object_set_new(o, "warnings", warnings_json(in, r));
    json_t *rules = rules_json(in->rules, d);
    if (rules) json_object_set_new(o, "engine_rules", rules);
    json_object_set_new(o, "memory", memory_json(in, r));
    json_object_set_new(o, "local_caches", local_json(in->local));
    if (r->estimation.estimating) {
        json_t *e = json_object();
        json_object_set_new(e, "max_tokens", ju(r->estimation.max_tokens));
        json_object_set_new(e, "dummy_requests", ju(r->estimation.tokens.dummy_requests));
        json_object_set_new(e, "blocks", ju(r->estimation.tokens.pool_blocks));
        json_object_set_new(o, "estimation", e);
    }
    return o;
}

static json_t *policy_json(const kvp_render_input *in, const kvp_deploy_result *res) {
    const kvp_policy_result *r = &res->policy;
    const kvp_engine_report *e = &r->report;
    const kvp__engine_ops *ops = kvp__engine_ops_of(r->engine);
    json_t *root = kvp__json_document();
    if (!root) return NULL;
    json_object_set_new(root, "model", json_string(kvp_model_name(in->model)));
    json_object_set_new(root, "policy", json_string(kvp_engine_name(r->engine)));
    if (kvp_model_get_info(in->model)->family_unverified)
        json_object_set_new(root, "verified", json_false());
    json_object_set_new(root, "deployment", deployment_json(in, res, r->kv_dtype_name));
    json_object_set_new(root, "engine_version", json_string(r->engine_version));
    json_object_set_new(root, "era", json_string(r->era));
    json_object_set_new(root, "kv_dtype", json_string(r->kv_dtype_name));
    json_object_set_new(root, "budget_bytes", ju(r->budget_bytes));
    if (r->budget_formula[0]) json_object_set_new(root, "budget_formula", json_string(r->budget_formula));
    json_t *pools = json_array();
    for (uint32_t i = 0; i < r->pool_count; i++) {
        const kvp_policy_pool *p = &r->pools[i];
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(p->name));
        json_object_set_new(o, "kind", json_string(kvp_cache_kind_name(p->kind)));
        json_object_set_new(o, "layers", ju(p->layers));
        kvp__pool_unit_json(o, p->kind, p->block_size_tokens, p->block_bytes, p->blocks);
        json_object_set_new(o, "block_size_tokens", ju(p->block_size_tokens));
        json_object_set_new(o, "tokens", ju(p->tokens));
        json_object_set_new(o, "k_bytes", ju(p->k_bytes));
        json_object_set_new(o, "v_bytes", ju(p->v_bytes));
        json_object_set_new(o, "bytes", ju(p->bytes));
        if (ops && ops->pools_share_block_pool) {
            json_object_set_new(o, "per_request_blocks", ju(p->per_request_blocks));
            json_object_set_new(o, "kv_cache_groups", ju(p->kv_cache_groups));
            json_object_set_new(o, "layer_page_bytes", ju(p->page_bytes));
        }
        json_array_append_new(pools, o);
    }
    json_object_set_new(root, "pools", pools);
    /* vLLM's one block pool (ENGINES.md 1.6), reported once; pools[] are its shares. */
    json_t *bp = json_null();
    if (r->pool_bytes) {
        bp = json_object();
        json_object_set_new(bp, "blocks", ju(r->pool_blocks));
        json_object_set_new(bp, "block_bytes", ju(r->pool_block_bytes));
        json_object_set_new(bp, "bytes", ju(r->pool_bytes));
        json_object_set_new(bp, "kv_cache_groups", ju(r->num_groups));
    }
    json_object_set_new(root, "block_pool", bp);
    json_t *rep = json_object();
    /* Every contract field of the engine (issue 6), null where the engine prints
     * no such line (no SWA cache, no recurrent state). */
    uint32_t want = e->present | (ops ? ops->report_fields : 0u);
#define F(bit, name, val) \
    if (want & (bit)) json_object_set_new(rep, name, (e->present & (bit)) ? (val) : json_null())
    F(KVP_REPORT_NUM_GPU_BLOCKS, "num_gpu_blocks", ju(e->num_gpu_blocks));
    F(KVP_REPORT_GPU_KV_CACHE_TOKENS, "gpu_kv_cache_tokens", ju(e->gpu_kv_cache_tokens));
    F(KVP_REPORT_MAX_CONCURRENCY, "max_concurrency", json_real(e->max_concurrency));
    F(KVP_REPORT_AVAILABLE_KV_CACHE_BYTES, "available_kv_cache_bytes", ju(e->available_kv_cache_bytes));
    F(KVP_REPORT_MAX_TOTAL_NUM_TOKENS, "max_total_num_tokens", ju(e->max_total_num_tokens));
    F(KVP_REPORT_KV_SIZE_BYTES, "kv_size_bytes", ju(e->kv_size_bytes));
    F(KVP_REPORT_K_SIZE_BYTES, "k_size_bytes", ju(e->k_size_bytes));
    F(KVP_REPORT_V_SIZE_BYTES, "v_size_bytes", ju(e->v_size_bytes));
    F(KVP_REPORT_MAX_RUNNING_REQUESTS, "max_running_requests", ju(e->max_running_requests));
    F(KVP_REPORT_CELLS, "cells", ju(e->cells));
    F(KVP_REPORT_SWA_KV_SIZE_BYTES, "swa_kv_size_bytes", ju(e->swa_kv_size_bytes));
    F(KVP_REPORT_RECURRENT_SIZE_BYTES, "recurrent_size_bytes", ju(e->recurrent_size_bytes));
    F(KVP_REPORT_MAX_TOKENS, "max_tokens", ju(e->max_tokens));
    F(KVP_REPORT_KV_CACHE_BYTES, "kv_cache_bytes", ju(e->kv_cache_bytes));
#undef F
    json_object_set_new(root, "engine_report", rep);
    json_t *d = details_json(r);
    json_object_set_new(root, "engine_details", d);
    json_object_set_new(root, "capacity", kvp__capacity_json(res));
    json_object_set_new(root, "admission", kvp__admission_json(&res->admission));
    json_object_set_new(root, "memory", memory_json(in, res));
    /* "notes" is the name this document had before the envelope; "warnings" the
     * one every plan document shares. The same list. */
    json_t *w = warnings_json(in, res);
    json_object_set_new(root, "notes", json_deep_copy(w));
    json_object_set_new(root, "warnings", w);
    return root;
}

json_t *kvp__plan_json(const kvp_render_input *in, const kvp_deploy_result *r) {
    if (!in || !in->model || !r) return NULL;
    return creator_plans(r) ? trtllm_json(in, r) : policy_json(in, r);
}

kvp_status kvp_render_plan_json(const kvp_render_input *in, const kvp_deploy_result *r, char **out,
                                kvp_error *err) {
    if (!out) return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "out is NULL");
    *out = NULL;
    if (!in || !in->model || !r)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "render input, model or result is NULL");
    if (creator_plans(r))
        return kvp__json_finish(trtllm_json(in, r), KVP__JSON_FLAGS | JSON_REAL_PRECISION(10), out, err);
    return kvp__json_finish(policy_json(in, r), KVP__JSON_FLAGS | JSON_REAL_PRECISION(17), out, err);
}
