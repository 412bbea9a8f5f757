/* json_plan.c — `kvplan plan --json` (kvplan/render.h): one document for
 * every policy. The sections every engine shares (deployment, memory, pools,
 * capacity, engine_report, warnings) are written here once; each engine adds
 * the figures only it prints (TensorRT-LLM's managers and budget terms, the
 * policies' engine_details). Written through kvp__jw (json_writer.h): as text
 * for `plan --json` and kvp_json_call, as a tree for `check`, which embeds it. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvplan/render.h"
#include "engine_ops.h"
#include "render_internal.h"
#include "util.h"

/* The writer of every function below is `w`. */
#define set(k, v) kvp__jw_set(w, k, v)
#define add(v) kvp__jw_set(w, NULL, v)
#define object(k) kvp__jw_object(w, k)
#define array(k) kvp__jw_array(w, k)
#define end() kvp__jw_end(w)
#define U kvp__jv_u64
#define STR kvp__jv_str
#define BOOL kvp__jv_bool
#define NUL kvp__jv_null()

static const char *const k_est_names[] = {"total", "free", "weights", "activation", "non_torch",
                                          "cuda_graph"};

/* What was planned: the same object under every policy. */
static void deployment_write(kvp__jw *w, const kvp_render_input *in, const kvp_deploy_result *r,
                             const char *kv_dtype) {
    object("deployment");
    set("model", STR(kvp_model_name(in->model)));
    set("policy", STR(kvp_engine_name(r->point.engine)));
    set("gpu", in->gpu ? STR(in->gpu) : NUL);
    set("tp", U(r->point.tp ? r->point.tp : 1));
    set("pp", U(r->point.pp ? r->point.pp : 1));
    set("kv_dtype", STR(kv_dtype));
    set("max_seq_len", U(r->point.max_seq_len));
    set("seq_len", U(r->point.seq_len));
    set("engine_max_seq_len", U(r->engine_max_seq_len));
    end();
}

/* The memory terms of one rank; "estimated" lists the terms that came from
 * the config, not a measurement. Nulls when planned from a KV budget. */
static void memory_write(kvp__jw *w, const kvp_render_input *in, const kvp_deploy_result *r) {
    const kvp_memory_facts *m = &r->memory;
    bool have = r->have_memory;
    object("memory");
    set("total_bytes", have ? U(m->total_bytes) : NUL);
    set("weights_bytes", have ? U(m->weights_bytes) : NUL);
    set("activation_bytes", have ? U(m->activation_bytes) : NUL);
    set("non_torch_bytes", have ? U(m->non_torch_bytes) : NUL);
    set("cuda_graph_bytes", have ? U(m->cuda_graph_bytes) : NUL);
    array("estimated");
    for (unsigned b = 0; b < 6; b++)
        if (have && (m->estimated & (1u << b))) add(STR(k_est_names[b]));
    end();
    set("weights_source", have && m->weights_source[0] ? STR(m->weights_source) : NUL);
    set("total_source", have && in->total_source ? STR(in->total_source) : NUL);
    /* The start-up terms (docs/memory.md): each with how it is known and where
     * the engine charges it. */
    static const char *const marks[] = {"exact", "bounded", "estimated", "given"};
    static const char *const charges[] = {"peak", "headroom", "not_charged", "phase"};
    array("terms");
    for (uint32_t i = 0; have && i < m->term_count; i++) {
        const kvp_memory_term *t = &m->terms[i];
        object(NULL);
        set("name", STR(t->name));
        set("bytes", U(t->bytes));
        const char *part = NULL;
        for (unsigned b = 0; b < 6; b++)
            if (t->part == (1u << b)) part = k_est_names[b];
        set("part", part ? STR(part) : NUL);
        set("mark", STR(marks[t->mark < 4 ? t->mark : 2]));
        set("charged", STR(charges[t->charge < 4 ? t->charge : 0]));
        if (t->under_load) set("under_load", BOOL(true));
        set("source", STR(t->source));
        end();
    }
    end();
    if (have && m->release_line[0]) set("release_line", STR(m->release_line));
    object("headroom");
    set("available_bytes", have && r->headroom_bytes ? U(r->headroom_bytes) : NUL);
    set("need_bytes", U(have ? r->headroom_need_bytes : 0));
    set("fits", BOOL(!r->headroom_short));
    if (have && r->headroom_need_bytes) {
        /* The verdict's figures (docs/memory.md "One headroom verdict"). */
        set("startup_sure_bytes", U(r->headroom_sure_bytes));
        set("startup_available_bytes", U(r->headroom_startup_bytes));
        set("refused", BOOL(r->headroom_refused));
    }
    end();
    end();
}

static void local_write(kvp__jw *w, const kvp_local_report *local) {
    array("local_caches");
    for (size_t i = 0; local && i < kvp_local_report_entry_count(local); i++) {
        const kvp_local_entry *e = kvp_local_report_entry(local, i);
        object(NULL);
        set("name", STR(e->name));
        set("rows", U(e->rows));
        set("row_driver", STR(kvp_local_row_driver_name(e->row_driver)));
        set("bytes_per_row", U(e->bytes_per_row));
        set("total_bytes", U(e->total_bytes));
        set("charged", BOOL(e->charged));
        end();
    }
    end();
}

/* TensorRT-LLM's rules around the creator, "engine_rules"; left out when none was used. */
static void rules_write(kvp__jw *w, const kvp_render_rules *x, const kvp_deploy_settings *d) {
    bool active = x && x->compression_effect && x->compression_effect->active;
    bool any = active || (x && (x->lora || x->mm_profile || x->engine_version)) ||
               d->trtllm_rules != KVP_TRTLLM_RULES_2026;
    if (!any) return;
    object("engine_rules");
    set("trtllm_rules", STR(kvp_trtllm_rules_name(d->trtllm_rules)));
    if (x && x->compression && x->compression->algorithm != KVP_COMPRESSION_NONE &&
        x->compression_effect) {
        const kvp_compression_effect *ce = x->compression_effect;
        object("compression");
        set("algorithm", STR(kvp_compression_name(x->compression->algorithm)));
        set("active", BOOL(ce->active));
        set("cold_page_dtype", ce->cold_page_dtype == KVP_DTYPE_AUTO
                                   ? NUL
                                   : STR(kvp_dtype_name(ce->cold_page_dtype)));
        end();
    }
    if (x && x->lora && x->lora_cache) {
        const kvp_lora_cache *l = x->lora_cache;
        object("lora");
        set("max_lora_rank", U(x->lora->max_lora_rank));
        array("target_modules");
        for (size_t i = 0; i < l->module_count; i++) add(STR(l->modules[i]));
        end();
        set("num_lora_modules", U(l->num_lora_modules));
        set("num_device_module_layer", l->has_device ? U(l->device_module_layers) : NUL);
        set("num_host_module_layer", l->has_host ? U(l->host_module_layers) : NUL);
        set("num_kv_heads", U(l->num_kv_heads));
        set("shared_expert_hidden_size", U(l->shared_expert_hidden_size));
        set("moe_hidden_size", U(l->moe_hidden_size));
        set("mamba_in_proj_size", U(l->mamba_in_proj_size));
        set("mamba_inner_size", U(l->mamba_inner_size));
        set("moe_latent_size", U(l->moe_latent_size));
        set("num_experts", U(l->num_experts));
        end();
    }
    if (x && x->mm_profile) {
        const kvp_mm_profile *p = x->mm_profile;
        object("multimodal_profile");
        set("modality", p->has_batch ? STR(p->modality) : NUL);
        set("num_items", U(p->num_items));
        set("tokens", U(p->tokens));
        set("retained_output_bytes", U(d->mm_profiled_output_bytes));
        end();
    }
    array("notes");
    for (uint32_t i = 0; x && x->notes && i < x->notes->count; i++) add(STR(x->notes->text[i]));
    end();
    end();
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
static void details_write(kvp__jw *w, const kvp_policy_result *r) {
    const kvp__engine_ops *ops = kvp__engine_ops_of(r->engine);
    object("engine_details");
    for (const kvp__engine_detail *f = ops ? ops->details : NULL; f && f->name; f++) {
        if (f->when_kind != KVP__DETAIL_NONE && !detail_number(r, f->when, f->when_kind)) continue;
        set(f->name, f->kind == KVP__DETAIL_TEXT ? STR((const char *)r + f->offset)
                                                 : U(detail_number(r, f->offset, f->kind)));
    }
    end();
}

/* The caller's notes, then the engine's own (the policies: the note on
 * estimated terms first, as the text report prints it), as the array `key`. */
static void warnings_write(kvp__jw *w, const char *key, const kvp_render_input *in,
                           const kvp_deploy_result *r) {
    array(key);
    for (size_t i = 0; i < in->note_count; i++) add(STR(in->notes[i]));
    char note[KVP_NOTE_TEXT_MAX];
    bool creator = creator_plans(r);
    if (!creator && kvp__estimated_note(r, note, sizeof note)) add(STR(note));
    if (creator)
        for (uint32_t i = 0; i < r->warnings.count; i++) add(STR(r->warnings.text[i]));
    else
        for (uint32_t i = 0; i < r->policy.note_count; i++) add(STR(r->policy.notes[i]));
    end();
}

static void trtllm_write(kvp__jw *w, const kvp_render_input *in, const kvp_deploy_result *r) {
    const kvp_deploy_settings *d = &r->trtllm;
    const kvp_manager_plan *t = &r->plan.managers[KVP_ROLE_TARGET];
    kvp__document_write(w);
    set("model", STR(kvp_model_name(in->model)));
    set("policy", STR("trtllm"));
    if (kvp_model_get_info(in->model)->family_unverified) set("verified", BOOL(false));
    deployment_write(w, in, r, kvp_dtype_name(t->kv_dtype));
    set("manager", STR(kvp_manager_kind_name(t->kind)));
    set("kv_dtype", STR(kvp_dtype_name(t->kv_dtype)));
    set("tp", U(d->tp));
    set("pp", U(d->pp));
    set("max_seq_len", U(d->max_seq_len));
    set("max_batch_size", U(d->max_batch_size));
    set("budget_bytes", U(r->cap.kv_max_memory_bytes));
    object("budget");
    set("peak_bytes", U(r->cap.peak_bytes));
    set("fraction_budget_bytes", U(r->cap.budget_bytes));
    set("after_max_tokens_bytes", U(r->cap.after_max_tokens_bytes));
    set("kv_max_memory_bytes", U(r->cap.kv_max_memory_bytes));
    end();
    array("pools");
    for (int role = 0; role < KVP_ROLE_COUNT; role++) {
        const kvp_manager_plan *mp = &r->plan.managers[role];
        if (!mp->present) continue;
        for (uint32_t i = 0; i < mp->pool_count; i++) {
            const kvp_plan_pool *q = &mp->pools[i];
            object(NULL);
            set("manager", STR(kvp_manager_role_name(mp->role)));
            set("manager_kind", STR(kvp_manager_kind_name(mp->kind)));
            set("kind", STR(kvp_cache_kind_name(q->kind)));
            set("layers", U(q->layers));
            set("window_tokens", q->window_tokens ? U(q->window_tokens) : NUL);
            set("bytes_per_token", U(q->kind == KVP_CACHE_RECURRENT ? 0 : q->bytes_per_token));
            set("bytes_per_sequence", U(q->bytes_per_sequence));
            set("page_bytes", U(q->page_bytes));
            set("tokens_per_block", q->tokens_per_block ? U(q->tokens_per_block) : NUL);
            set("block_size_tokens", U(q->tokens_per_block));
            set("bytes", U(q->bytes));
            set("blocks", U(q->blocks));
            set("tokens", U(q->tokens));
            set("in_intercept", BOOL(q->in_intercept));
            end();
        }
    }
    end();
    set("block_pool", NUL); /* each pool its own buffer */
    array("managers");
    for (int role = 0; role < KVP_ROLE_COUNT; role++) {
        const kvp_manager_plan *mp = &r->plan.managers[role];
        if (!mp->present) continue;
        object(NULL);
        set("role", STR(kvp_manager_role_name(mp->role)));
        set("kind", STR(kvp_manager_kind_name(mp->kind)));
        set("kv_dtype", STR(kvp_dtype_name(mp->kv_dtype)));
        set("slope_bytes_per_token", U(mp->cost.slope_bytes_per_token));
        set("intercept_bytes", U(mp->cost.intercept_bytes));
        set("max_gpu_total_bytes", U(mp->max_gpu_total_bytes));
        set("host_cache_size", U(mp->host_cache_size));
        set("free_gpu_memory_fraction", kvp__jv_real(mp->free_gpu_memory_fraction));
        set("max_tokens", mp->max_tokens ? U(mp->max_tokens) : NUL);
        set("bytes", U(mp->bytes));
        end();
    }
    end();
    set("allocated_bytes", U(r->plan.allocated_bytes));
    set("max_tokens", U(t->max_tokens_out));
    object("engine_report");
    set("max_tokens", U(t->max_tokens_out));
    set("kv_cache_bytes", U(t->bytes));
    end();
    /* The slot pool caps the count: max_batch_size x pp (compute_max_num_sequences). */
    uint64_t count = r->max_sequences < r->batch_limit ? r->max_sequences : r->batch_limit;
    object("max_sequences");
    set("seq_len", U(r->point.seq_len));
    set("count", U(count));
    set("kv_limit", r->max_sequences == UINT64_MAX ? NUL : U(r->max_sequences));
    set("engine_max_seq_len", U(r->engine_max_seq_len));
    set("longest_sequence_tokens", r->longest_tokens == UINT64_MAX ? NUL : U(r->longest_tokens));
    set("admitted", kvp__admitted_jv(&r->admission));
    object("admission");
    kvp__admission_write(w, &r->admission);
    end();
    end();
    object("capacity");
    kvp__capacity_write(w, r);
    end();
    array("reserves");
    if (r->cap.mm_reserve_bytes) {
        object(NULL);
        set("name", STR("multimodal_encoder"));
        set("bytes", U(r->cap.mm_reserve_bytes));
        end();
    }
    if (r->cap.mla_workspace_reserve_bytes) {
        object(NULL);
        set("name", STR("mla_context_workspace"));
        set("bytes", U(r->cap.mla_workspace_reserve_bytes));
        set("admission_cap_tokens", U(r->cap.mla_kv_len_cap_tokens));
        end();
    }
    end();
    warnings_write(w, "warnings", in, r);
    rules_write(w, in->rules, d);
    memory_write(w, in, r);
    local_write(w, in->local);
    if (r->estimation.estimating) {
        object("estimation");
        set("max_tokens", U(r->estimation.max_tokens));
        set("dummy_requests", U(r->estimation.tokens.dummy_requests));
        set("blocks", U(r->estimation.tokens.pool_blocks));
        end();
    }
}

static void policy_write(kvp__jw *w, const kvp_render_input *in, const kvp_deploy_result *res) {
    const kvp_policy_result *r = &res->policy;
    const kvp_engine_report *e = &r->report;
    const kvp__engine_ops *ops = kvp__engine_ops_of(r->engine);
    kvp__document_write(w);
    set("model", STR(kvp_model_name(in->model)));
    set("policy", STR(kvp_engine_name(r->engine)));
    if (kvp_model_get_info(in->model)->family_unverified) set("verified", BOOL(false));
    deployment_write(w, in, res, r->kv_dtype_name);
    set("engine_version", STR(r->engine_version));
    set("era", STR(r->era));
    set("kv_dtype", STR(r->kv_dtype_name));
    set("budget_bytes", U(r->budget_bytes));
    if (r->budget_formula[0]) set("budget_formula", STR(r->budget_formula));
    array("pools");
    for (uint32_t i = 0; i < r->pool_count; i++) {
        const kvp_policy_pool *p = &r->pools[i];
        object(NULL);
        set("name", STR(p->name));
        set("kind", STR(kvp_cache_kind_name(p->kind)));
        set("layers", U(p->layers));
        kvp__pool_unit_write(w, p->kind, p->block_size_tokens, p->block_bytes, p->blocks);
        set("block_size_tokens", U(p->block_size_tokens));
        set("tokens", U(p->tokens));
        set("k_bytes", U(p->k_bytes));
        set("v_bytes", U(p->v_bytes));
        set("bytes", U(p->bytes));
        if (ops && ops->pools_share_block_pool) {
            set("per_request_blocks", U(p->per_request_blocks));
            set("kv_cache_groups", U(p->kv_cache_groups));
            set("layer_page_bytes", U(p->page_bytes));
        }
        end();
    }
    end();
    /* vLLM's one block pool (ENGINES.md 1.6), reported once; pools[] are its shares. */
    if (r->pool_bytes) {
        object("block_pool");
        set("blocks", U(r->pool_blocks));
        set("block_bytes", U(r->pool_block_bytes));
        set("bytes", U(r->pool_bytes));
        set("kv_cache_groups", U(r->num_groups));
        end();
    } else {
        set("block_pool", NUL);
    }
    object("engine_report");
    /* Every contract field of the engine (issue 6), null where the engine prints
     * no such line (no SWA cache, no recurrent state). */
    uint32_t want = e->present | (ops ? ops->report_fields : 0u);
#define F(bit, name, val) \
    if (want & (bit)) set(name, (e->present & (bit)) ? (val) : NUL)
    F(KVP_REPORT_NUM_GPU_BLOCKS, "num_gpu_blocks", U(e->num_gpu_blocks));
    F(KVP_REPORT_GPU_KV_CACHE_TOKENS, "gpu_kv_cache_tokens", U(e->gpu_kv_cache_tokens));
    F(KVP_REPORT_MAX_CONCURRENCY, "max_concurrency", kvp__jv_real(e->max_concurrency));
    F(KVP_REPORT_AVAILABLE_KV_CACHE_BYTES, "available_kv_cache_bytes", U(e->available_kv_cache_bytes));
    F(KVP_REPORT_MAX_TOTAL_NUM_TOKENS, "max_total_num_tokens", U(e->max_total_num_tokens));
    F(KVP_REPORT_KV_SIZE_BYTES, "kv_size_bytes", U(e->kv_size_bytes));
    F(KVP_REPORT_K_SIZE_BYTES, "k_size_bytes", U(e->k_size_bytes));
    F(KVP_REPORT_V_SIZE_BYTES, "v_size_bytes", U(e->v_size_bytes));
    F(KVP_REPORT_MAX_RUNNING_REQUESTS, "max_running_requests", U(e->max_running_requests));
    F(KVP_REPORT_CELLS, "cells", U(e->cells));
    F(KVP_REPORT_SWA_KV_SIZE_BYTES, "swa_kv_size_bytes", U(e->swa_kv_size_bytes));
    F(KVP_REPORT_RECURRENT_SIZE_BYTES, "recurrent_size_bytes", U(e->recurrent_size_bytes));
    F(KVP_REPORT_MAX_TOKENS, "max_tokens", U(e->max_tokens));
    F(KVP_REPORT_KV_CACHE_BYTES, "kv_cache_bytes", U(e->kv_cache_bytes));
#undef F
    end();
    details_write(w, r);
    object("capacity");
    kvp__capacity_write(w, res);
    end();
    object("admission");
    kvp__admission_write(w, &res->admission);
    end();
    memory_write(w, in, res);
    /* "notes" is the name this document had before the envelope; "warnings" the
     * one every plan document shares. The same list. */
    warnings_write(w, "notes", in, res);
    warnings_write(w, "warnings", in, res);
}

/* The document of `r` into `w` (its root open). */
static void plan_write(kvp__jw *w, const kvp_render_input *in, const kvp_deploy_result *r) {
    if (creator_plans(r)) trtllm_write(w, in, r);
    else policy_write(w, in, r);
}

json_t *kvp__plan_json(const kvp_render_input *in, const kvp_deploy_result *r) {
    if (!in || !in->model || !r) return NULL;
    kvp__jw w;
    kvp__jw_tree(&w);
    plan_write(&w, in, r);
    return kvp__jw_take_tree(&w);
}

kvp_status kvp_render_plan_json(const kvp_render_input *in, const kvp_deploy_result *r, char **out,
                                kvp_error *err) {
    if (!out) return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "out is NULL");
    *out = NULL;
    if (!in || !in->model || !r)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "render input, model or result is NULL");
    /* The creator's document prints its fractions with 10 digits, the policies' with 17. */
    size_t precision = creator_plans(r) ? JSON_REAL_PRECISION(10) : JSON_REAL_PRECISION(17);
    kvp__jw w;
    kvp__jw_text(&w, KVP__JSON_FLAGS | precision);
    plan_write(&w, in, r);
    *out = kvp__jw_take_text(&w); /* libc: kvp_render_free */
    if (!*out) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory rendering JSON");
    return KVP_OK;
}
