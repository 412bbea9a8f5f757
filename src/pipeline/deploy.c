/* deploy.c — one deployment planned end to end (include/kvplan/deploy.h):
 * memory facts (measured or estimated for this tp / pp), then TensorRT-LLM's
 * creator (the seed's path: estimation pass, capacity, managers) or an engine
 * policy; then the capacity every command reads, and whether the engine starts.
 *
 * This is the only place that chains these steps: `plan`, `fit`, `sweep`,
 * `compare` and `sim` all call kvp_deploy_plan. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvplan/cost.h"
#include "kvplan/deploy.h"
#include "kvplan/estimate.h"
#include "admission.h"
#include "deploy_internal.h"
#include "result_spare.h"
#include "spare.h"
#include "engine_ops.h"
#include "estimate_memo.h"
#include "plan_internal.h"
#include "pools_memo.h"
#include "util.h"
#include "plan_rules.h"

#define DEFAULT_CUDA_GRAPH_BS 128u /* `kvplan plan`'s default */

/* Both enums are rows of kvplan/engines.def: each estimate engine is its engine. */
#define KVP_ENGINE_X(id, name, title) \
    _Static_assert((int)KVP_ESTIMATE_##id == (int)KVP_ENGINE_##id, #id " estimate engine");
#include "kvplan/engines.def"
#include "cost_internal.h"

/* What the points of one run share (deploy_internal.h): the gate's scratch,
 * the last memory estimate, the creator's pools, and the last tensor-parallel
 * size the model's heads were checked against. */
struct kvp__deploy_run {
    kvp__deploy_gate gate;
    kvp__estimate_memo estimate;
    kvp__pools_memo pools;
    const kvp_model *tp_model; /* kvp_cost_check_tp(tp_model, tp_checked) passed */
    uint32_t tp_checked;
    kvp_allocator alc; /* the one the run was made with (copied) */
    bool has_alc;
};

kvp_deployment kvp_deployment_default(void) {
    kvp_deployment d;
    memset(&d, 0, sizeof d);
    d.point.engine = KVP_ENGINE_TRTLLM;
    d.trtllm.max_cuda_graph_batch_size = DEFAULT_CUDA_GRAPH_BS;
    d.policy = kvp_policy_settings_default();
    d.startup = kvp_startup_settings_default();
    return d;
}

void kvp_deployment_settle(kvp_deployment *d, const kvp_startup_settings *startup,
                           const kvp_gpu_info *gpu, bool total_given) {
    if (!d) return;
    if (startup) {
        d->startup = *startup;
        /* --quantization is one setting: the pipeline reads it from d->startup
         * (memory_terms); a pointer into the settings copied from could
         * outlive them. */
        d->memory.quantization = NULL;
    }
    if (gpu) {
        d->startup.gpu = *gpu;
        d->startup.gpu_known = true;
        if (!total_given) d->memory.total_bytes = gpu->total_bytes;
    }
}

const kvp_allocator *kvp_deployment_allocator(const kvp_deployment *dep) {
    if (!dep) return NULL;
    return dep->alc ? dep->alc : kvp_model_allocator(dep->model);
}

/* A result and the allocator it came from, so kvp_deploy_result_free needs no
 * argument but the result. */
typedef struct result_block {
    kvp_allocator alc;
    bool has_alc;
    kvp_deploy_result result;
} result_block;

kvp_deploy_result *kvp_deploy_result_new(void) { return kvp_deploy_result_new_with(NULL); }

/* Owned by the caller: kvp_deploy_result_free. */
kvp_deploy_result *kvp_deploy_result_new_with(const kvp_allocator *alc) {
    result_block *b = kvp__calloc(alc, 1, sizeof *b);
    if (!b) return NULL;
    if (alc) {
        b->alc = *alc;
        b->has_alc = true;
    }
    return &b->result;
}

/* The block a result lives in. */
static result_block *block_of(kvp_deploy_result *result) {
    return (result_block *)(void *)((char *)result - offsetof(result_block, result));
}

/* The block is kept whole (libc's memory, held by its start), not the result
 * inside it. */
kvp_deploy_result *kvp__deploy_result_take(void) {
    result_block *b = kvp__spare_take(KVP__SPARE_CALL_RESULT);
    return b ? &b->result : kvp_deploy_result_new();
}

void kvp__deploy_result_give(kvp_deploy_result *r) {
    if (!r) return;
    result_block *b = block_of(r);
    if (b->has_alc || !kvp__spare_keep(KVP__SPARE_CALL_RESULT, b, NULL)) kvp_deploy_result_free(r);
}

void kvp_deploy_result_free(kvp_deploy_result *result) {
    if (!result) return;
    result_block *b = block_of(result);
    kvp_allocator alc = b->alc; /* copied: the block holding it is what is freed */
    kvp__free(b->has_alc ? &alc : NULL, b);
}

static void warn(kvp_deploy_result *out, const char *fmt, ...) KVP_PRINTF(2, 3);
static void warn(kvp_deploy_result *out, const char *fmt, ...) {
    kvp_notes *n = &out->warnings;
    if (n->count >= KVP_NOTES_MAX) {
        n->dropped++;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(n->text[n->count++], KVP_NOTE_TEXT_MAX, fmt, ap);
    va_end(ap);
}

static void warn_text(kvp_deploy_result *out, const char *text) { warn(out, "%s", text); }

/* Not planned: the status, the message and the settings field it is about. */
static kvp_status not_planned(kvp_deploy_result *out, kvp_status st, const kvp_error *e) {
    out->status = st;
    kvp__strlcpy(out->message, e->message[0] ? e->message : kvp_status_describe(st),
                 sizeof out->message);
    kvp__strlcpy(out->key, e->key, sizeof out->key);
    return KVP_OK;
}

static kvp_status not_planned_fmt(kvp_deploy_result *out, kvp_status st, const char *key,
                                  const char *fmt, ...) KVP_PRINTF(4, 5);
static kvp_status not_planned_fmt(kvp_deploy_result *out, kvp_status st, const char *key,
                                  const char *fmt, ...) {
    out->status = st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->message, sizeof out->message, fmt, ap);
    va_end(ap);
    kvp__strlcpy(out->key, key ? key : "", sizeof out->key);
    return KVP_OK;
}

/* An error the caller must see (out of memory) or a verdict on the deployment. */
static kvp_status step_failed(kvp_deploy_result *out, kvp_status st, const kvp_error *e,
                              kvp_error *err) {
    if (st == KVP_NOMEM) return kvp__fail(err, st, NULL, NULL, "%s", e->message);
    return not_planned(out, st, e);
}

/* ------------------------------------------------------------ memory facts */

/* The engine's record (checked by deploy_plan: the engine is one of the list). */
static const kvp__engine_ops *ops_of(const kvp_deployment *d) {
    return kvp__engine_ops_of(d->point.engine);
}

/* What the engine's profile reads of the deployment (kvp__engine_profile_in). */
static kvp__engine_profile_in profile_in(const kvp_deployment *d, const kvp_deploy_settings *t,
                                         const kvp_policy_settings *s) {
    kvp__engine_profile_in in;
    memset(&in, 0, sizeof in);
    in.model = d->model;
    in.policy = s;
    in.startup = &d->startup;
    in.engine_version = d->policy.engine_version;
    in.memory_total_bytes = d->memory.total_bytes;
    in.cuda_graph_max_bs = d->memory.cuda_graph_max_bs;
    in.memory_ep = d->memory.ep;
    in.memory_expert_parallel = d->memory.enable_expert_parallel;
    in.creator_max_num_tokens = t->max_num_tokens;
    in.creator_max_batch_size = t->max_batch_size;
    in.creator_max_seq_len = t->max_seq_len;
    in.creator_max_cuda_graph_batch_size = t->max_cuda_graph_batch_size;
    in.creator_attention_dp = t->attention_dp;
    return in;
}

/* What the profiling pass and the runtime look like to the estimate: the
 * engine's profile (its record, src/engines/<name>/deploy_<name>.c). */
static kvp__engine_profile knobs_for(const kvp_deployment *d, const kvp_deploy_settings *t,
                                     const kvp_policy_settings *s) {
    kvp__engine_profile k;
    memset(&k, 0, sizeof k);
    kvp__engine_profile_in in = profile_in(d, t, s);
    ops_of(d)->profile(&in, &k);
    return k;
}

static kvp_status memory_terms(const kvp_deployment *d, uint32_t tp, uint32_t pp,
                               const kvp__engine_profile *k, kvp_dtype weights_dtype,
                               kvp__estimate_memo *memo, kvp_memory_facts *m, kvp_error *err) {
    const kvp_deploy_memory *in = &d->memory;
    /* Every policy: free memory is measured on the device (only TRT-LLM's budget reads
     * it, kvp__memory_resolve checks the other measured terms). */
    if (in->free_bytes > in->total_bytes)
        return kvp__fail(err, KVP_CONFIG, NULL, "free_bytes",
                         "free memory: %llu B (%.2f GiB), more than the device's %llu B (%.2f "
                         "GiB): a measurement on this device cannot be",
                         (unsigned long long)in->free_bytes, (double)in->free_bytes / 1073741824.0,
                         (unsigned long long)in->total_bytes,
                         (double)in->total_bytes / 1073741824.0);
    kvp_memory_measured meas;
    memset(&meas, 0, sizeof meas);
    meas.total_bytes = in->total_bytes;
    meas.free_bytes = k->free_is_held ? in->free_bytes : 0;
    meas.has_weights = in->has_weights;
    meas.weights_bytes = in->weights_bytes;
    meas.has_peak = in->has_peak;
    meas.peak_bytes = in->peak_bytes;
    meas.has_activation_peak = in->has_activation_peak;
    meas.activation_peak_bytes = in->activation_peak_bytes;
    meas.has_non_torch = in->has_non_torch;
    meas.non_torch_bytes = in->non_torch_bytes;
    meas.has_cuda_graph = in->has_cuda_graph;
    meas.cuda_graph_bytes = in->cuda_graph_bytes;
    meas.cuda_graph_apart = k->cuda_graph_apart;
    kvp_estimate_settings es;
    memset(&es, 0, sizeof es);
    es.alc = kvp_deployment_allocator(d);
    es.tp = tp;
    es.pp = pp;
    es.max_num_tokens = k->max_num_tokens ? k->max_num_tokens : 8192;
    es.max_batch_size =
        (uint32_t)(k->max_batch_size && k->max_batch_size < UINT32_MAX ? k->max_batch_size : 2048);
    es.cuda_graphs = k->cuda_graphs;
    es.cuda_graph_max_batch = k->cuda_graph_max_batch;
    es.model_dir = in->model_dir;
    es.weights_dtype = weights_dtype;
    /* --quantization is one flag: the start-up rules' and the weights' (V-DT-4). */
    es.quantization = in->quantization                ? in->quantization
                      : d->startup.quantization[0] ? d->startup.quantization
                                                   : NULL;
    es.expert_ranks = k->expert_ranks ? k->expert_ranks : k->experts_span_tp ? tp : 0;
    es.ep = k->ep;
    es.engine = (uint32_t)d->point.engine; /* the same row (the asserts above) */
    es.compute_capability = d->startup.gpu_known ? d->startup.gpu.compute_capability : 0;
    es.max_seq_len = k->max_seq_len;
    es.engine_version = k->engine_version;
    es.engine_v0 = k->engine_v0;
    es.flash_attn = k->flash_attn;
    es.n_ctx = k->n_ctx;
    es.cuda_graph_size_count = in->cuda_graph_size_count;
    es.language_model_only = d->startup.language_model_only;
    es.skip_mm_profiling = d->startup.skip_mm_profiling;
    es.pooling_runner = k->pooling_runner;
    es.flashinfer_sampler = k->flashinfer_sampler;
    es.attention_ranks = k->attention_ranks;
    es.embedding_whole = k->embedding_whole;
    memcpy(es.cuda_graph_sizes, in->cuda_graph_sizes, sizeof es.cuda_graph_sizes);
    kvp_status st = kvp__memory_resolve_memo(d->model, &meas, &es, memo, m, err);
    if (st != KVP_OK) return st;
    if (in->local_graph_bytes && (m->estimated & KVP_MEM_EST_ACTIVATION) &&
        !kvp__add_u64(m->cuda_graph_bytes, in->local_graph_bytes, &m->cuda_graph_bytes))
        return kvp__fail(err, KVP_OVERFLOW, NULL, "local_graph_bytes", "memory figures overflow");
    return KVP_OK;
}

/* The memory terms a result reports, whichever engine planned it. */
static void report_memory(kvp_deploy_result *out, const kvp_memory_facts *m, bool have_mem) {
    out->have_memory = have_mem;
    if (have_mem) out->memory = *m;
    out->total_bytes = have_mem ? m->total_bytes : 0;
    out->weights_bytes = m->weights_bytes;
    out->activation_bytes = m->activation_bytes;
    out->runtime_bytes = m->non_torch_bytes + m->cuda_graph_bytes;
    out->memory_estimated = have_mem && (m->estimated & (KVP_MEM_EST_WEIGHTS |
                                                         KVP_MEM_EST_ACTIVATION |
                                                         KVP_MEM_EST_NON_TORCH |
                                                         KVP_MEM_EST_CUDA_GRAPH)) != 0;
}

/* Whether the terms allocated after sizing fit what sizing left (MEMORY.md 1.1,
 * 2.6, 3.3; docs/memory.md "One headroom verdict"): TRT-LLM's second capture
 * and decode sampler in 1 - fraction, vLLM's graphs before 0.21 and what exists
 * before its snapshot in 1 - u, SGLang's graphs and prefill in X (1 - mfs).
 * At start-up the profile's activations are freed again, so the terms allocated
 * then have the headroom plus that peak; under load the activations come back
 * and everything must fit in the headroom. A start-up shortfall that follows
 * from exact or bounded terms is a refusal (the memory rule reads
 * headroom_refused); any other shortfall is a warning with the bound. */
static void headroom_check(kvp_deploy_result *out, const kvp_memory_facts *m, uint64_t headroom) {
    uint64_t need = 0, sure = 0;
    char names[160] = "";
    size_t n = 0;
    for (uint32_t i = 0; i < m->term_count; i++) {
        const kvp_memory_term *t = &m->terms[i];
        if (t->charge != KVP_MEM_CHARGE_HEADROOM && t->charge != KVP_MEM_CHARGE_UNCHARGED)
            continue;
        if (!kvp__add_u64(need, t->bytes, &need)) need = UINT64_MAX;
        if (t->mark != KVP_MEM_MARK_ESTIMATED && !t->under_load &&
            !kvp__add_u64(sure, t->bytes, &sure))
            sure = UINT64_MAX;
        if (n + 1 < sizeof names) {
            int w = snprintf(names + n, sizeof names - n, "%s%s%s", n ? ", " : "", t->name,
                             t->under_load                          ? " (under load)"
                             : t->mark == KVP_MEM_MARK_ESTIMATED ? " (estimated)"
                                                                 : "");
            if (w > 0) n += (size_t)w;
        }
    }
    if (n >= sizeof names) names[sizeof names - 1] = '\0';
    uint64_t startup = headroom;
    if (!kvp__add_u64(startup, m->activation_bytes, &startup)) startup = UINT64_MAX;
    out->headroom_bytes = headroom;
    out->headroom_need_bytes = need;
    out->headroom_sure_bytes = sure;
    out->headroom_startup_bytes = startup;
    out->headroom_short = need > headroom;
    out->headroom_refused = sure > startup;
    kvp__strlcpy(out->headroom_terms, names, sizeof out->headroom_terms);
    /* A refusal is the memory rule's row; the plan's warning gives the bound. */
    if (!out->headroom_short || out->headroom_refused) return;
    warn(out, "headroom: %.2f GiB left after sizing cannot hold the %.2f GiB allocated later "
              "(%s; %.2f GiB of it exact or bounded at start-up, with %.2f GiB there once the "
              "profile's activations are freed): the engine may run out of memory after the KV "
              "cache is allocated, at start-up or under load; lower the fraction or the batch",
         (double)headroom / 1073741824.0, (double)need / 1073741824.0, names,
         (double)sure / 1073741824.0, (double)startup / 1073741824.0);
}

/* ------------------------------------------------------ TensorRT-LLM */

static void pool_name(const kvp_plan_pool *p, const kvp_manager_plan *mp, char *buf, size_t n) {
    const char *kind = kvp_cache_kind_name(p->kind);
    const char *role = mp->role == KVP_ROLE_TARGET ? "" : kvp_manager_role_name(mp->role);
    if (p->window_tokens && p->kind != KVP_CACHE_CROSS)
        snprintf(buf, n, "%s%s%s (window %llu)", role, *role ? " " : "", kind,
                 (unsigned long long)p->window_tokens);
    else
        snprintf(buf, n, "%s%s%s", role, *role ? " " : "", kind);
}

/* "KV budget of pool '...'" for the pool whose blocks run out first (the rule
 * of kvp_plan_max_sequences, which names it). */
static void binding_pool(const kvp_plan *plan, uint64_t seq_len, uint32_t beam, char *buf,
                         size_t n) {
    uint64_t count;
    kvp_manager_role role;
    uint32_t idx;
    buf[0] = '\0';
    if (kvp__plan_binding_pool(plan, seq_len, beam, &count, &role, &idx, NULL) != KVP_OK ||
        idx == UINT32_MAX)
        return;
    const kvp_manager_plan *mp = &plan->managers[role];
    const kvp_plan_pool *p = &mp->pools[idx];
    char name[96];
    pool_name(p, mp, name, sizeof name);
    snprintf(buf, n, "KV budget of pool '%s' (%llu blocks of %u tokens)", name,
             (unsigned long long)p->blocks, p->tokens_per_block);
}

/* Does a pool of the plan hold recurrent state / windowed blocks? */
static bool plan_has(const kvp_plan *plan, bool recurrent) {
    for (int r = 0; r < KVP_ROLE_COUNT; r++)
        for (uint32_t i = 0; plan->managers[r].present && i < plan->managers[r].pool_count; i++) {
            const kvp_plan_pool *p = &plan->managers[r].pools[i];
            if (recurrent ? p->kind == KVP_CACHE_RECURRENT : p->window_tokens != 0) return true;
        }
    return false;
}

/* What the creator's fixed costs (the cost's intercept) are: state or window
 * blocks held for every one of max_batch_size sequences, whatever their length. */
static const char *fixed_cost_kind(const kvp_plan *plan) {
    bool rec = plan_has(plan, true), win = plan_has(plan, false);
    return rec && win ? "recurrent state and sliding-window blocks"
           : rec      ? "recurrent state"
           : win      ? "sliding-window blocks"
                      : NULL;
}

/* What a reader of a TensorRT-LLM plan should know beside the creator's notes. */
static void trtllm_warnings(const kvp_deployment *dep, const kvp_deploy_settings *d,
                            kvp_deploy_result *out) {
    const kvp_model *model = dep->model;
    const kvp_manager_plan *t = &out->plan.managers[KVP_ROLE_TARGET];
    if (out->memory_estimated)
        warn_text(out, "memory terms marked 'estimated' come from the config, not a measurement; "
                       "pass --weights, --peak and --non-torch from the engine's log to replace "
                       "them");
    if (!kvp_manager_is_v2(t->kind) && dep->kv.max_attention_window_count == 0) {
        uint64_t win = 0;
        for (size_t i = 0; i < kvp_model_cache_count(model); i++) {
            const kvp_layer_cache *c = kvp_model_cache(model, i);
            if (c->kind == KVP_CACHE_SLIDING && c->window_tokens < d->max_seq_len)
                win = c->window_tokens;
        }
        if (win)
            warn(out, "the model has sliding-window layers (window %llu) but paged-v1 without "
                      "--max-attention-window keeps full context for them; pass "
                      "--max-attention-window or --kv-manager v2",
                 (unsigned long long)win);
    }
    const kvp_model_info *info = kvp_model_get_info(model);
    if (info->family_unverified)
        warn(out, "unverified family: kvplan has no hand-checked config of model_type \"%s\"; "
                  "its cache was read with the generic rules",
             info->model_type);
    if (info->is_mla && d->tp > 1)
        warn_text(out, "the MLA latent is replicated on every TP rank: bytes per token do not "
                       "shrink with TP");
    if (out->plan.managers[KVP_ROLE_CROSS].present)
        warn(out, "the cross pool holds %llu encoder tokens per sequence",
             (unsigned long long)out->plan.managers[KVP_ROLE_CROSS].max_seq_len);
    for (size_t i = 0; i < kvp_model_cache_count(model); i++)
        if (kvp_model_cache(model, i)->kind == KVP_CACHE_INDEXER) {
            warn_text(out, "the sparse-attention indexer K cache is sized by the engine's C++ "
                           "side and is not in this plan (as in TensorRT-LLM's estimator)");
            break;
        }
}

/* The creator's settings for this point: the deployment's, the point's
 * overrides, and the speculative defaults a draft model implies. */
static kvp_status trtllm_settings(const kvp_deployment *dep, kvp_deploy_settings *d,
                                  kvp_deploy_result *out) {
    const kvp_deploy_point *pt = &dep->point;
    *d = dep->trtllm;
    if (pt->tp) d->tp = pt->tp;
    if (pt->pp) d->pp = pt->pp;
    if (pt->max_seq_len) d->max_seq_len = pt->max_seq_len;
    if (pt->max_batch_size) d->max_batch_size = pt->max_batch_size;
    /* The SM version TensorRT-LLM reads from the device (_utils.get_sm_version:
     * torch.cuda.get_device_capability, major x 10 + minor) when --sm-version is
     * not given: a B200 is SM100, not the creator's Hopper default. */
    const kvp_gpu_info *gpu = &dep->startup.gpu;
    if (!d->sm_version && dep->startup.gpu_known && !strcmp(gpu->vendor, "nvidia"))
        d->sm_version = gpu->compute_capability;
    if (pt->kv_dtype[0]) {
        kvp_dtype dt;
        if (kvp_dtype_parse(pt->kv_dtype, &dt) != KVP_OK)
            return not_planned_fmt(out, KVP_INVALID_ARG, "kv_dtype",
                                   "unknown KV dtype '%s' for trtllm (expected auto, fp16, bf16, "
                                   "fp8, nvfp4)",
                                   pt->kv_dtype);
        d->kv_dtype = dt;
    }
    if (dep->draft && d->spec_mode == KVP_SPEC_NONE) {
        /* An EAGLE-architecture draft is a one-model EAGLE3 head; others run as a
         * second model. */
        const char *arch = kvp_model_get_info(dep->draft)->architecture;
        d->spec_mode = strstr(arch, "Eagle") || strstr(arch, "EAGLE") ? KVP_SPEC_EAGLE3
                                                                       : KVP_SPEC_TWO_MODEL;
    }
    if (d->spec_mode != KVP_SPEC_NONE && d->max_draft_len == 0) d->max_draft_len = 3;
    return KVP_OK;
}

/* kvp_cost_check_tp, once per model and TP in a run (a pure function of both). */
static kvp_status check_tp(kvp__deploy_run *run, const kvp_model *model, uint32_t tp,
                           kvp_error *err) {
    if (run && run->tp_model == model && run->tp_checked == tp) return KVP_OK;
    /* TensorRT-LLM's manager keeps ceil(kv_heads / tp) KV heads per rank:
     * only query, cross and recurrent heads can fail (T-PAR-1). */
    kvp_cost_settings s = kvp_cost_settings_default();
    s.tp = tp;
    s.kv_heads_round_up = true;
    kvp_status st = kvp__cost_check_settings(model, &s, err);
    if (st == KVP_OK && run) {
        run->tp_model = model;
        run->tp_checked = tp;
    }
    return st;
}

static kvp_status plan_trtllm(const kvp_deployment *dep, kvp_deploy_result *out,
                              kvp__deploy_gate *g, kvp__deploy_run *run, kvp_error *err) {
    kvp__estimate_memo *memo = run ? &run->estimate : NULL;
    kvp_deploy_point *pt = &out->point;
    kvp_deploy_settings d;
    kvp_status st = trtllm_settings(dep, &d, out);
    if (st != KVP_OK || out->status != KVP_OK) return st;
    /* Start-up rules first (deploy_startup.c): trtllm-serve clamps a max_seq_len
     * above the one it infers from the config (T-LEN-1) and plans with that. */
    kvp_policy_settings ps = kvp__deploy_gate_creator_settings(pt->engine, &d,
                                                              dep->policy.engine_version);
    st = kvp__deploy_gate_before(g, dep, &ps, NULL, err);
    if (st != KVP_OK) return st;
    if (d.max_seq_len && ps.max_model_len && ps.max_model_len < d.max_seq_len)
        d.max_seq_len = ps.max_model_len;
    kvp_error e;
    kvp_error_clear(&e);
    kvp_memory_facts m;
    memset(&m, 0, sizeof m);
    bool have_mem = dep->memory.kv_budget_bytes == 0;
    if (have_mem && dep->memory.total_bytes == 0)
        return not_planned_fmt(out, KVP_INVALID_ARG, "total_bytes",
                               "no memory to plan from: give the GPU (total_bytes) or a KV "
                               "budget (kv_budget_bytes)");
    if (have_mem) {
        kvp__engine_profile k = knobs_for(dep, &d, &dep->policy);
        st = memory_terms(dep, d.tp ? d.tp : 1, d.pp ? d.pp : 1, &k, dep->memory.weights_dtype,
                          memo, &m, &e);
        if (st != KVP_OK) return step_failed(out, st, &e, err);
    }
    /* Heads that do not divide by the attention TP are refused by every engine
     * (attention DP does not shard heads). */
    st = check_tp(run, dep->model, d.attention_dp ? 1 : (d.tp ? d.tp : 1), &e);
    if (st != KVP_OK) return step_failed(out, st, &e, err);
    kvp_creator *c = NULL;
    st = kvp_creator_new(dep->model, dep->draft, &d, &dep->kv, kvp_deployment_allocator(dep), &c,
                         &e);
    if (st != KVP_OK) {
        report_memory(out, &m, have_mem);
        return step_failed(out, st, &e, err);
    }
    if (run) kvp__creator_use_pools_memo(c, &run->pools);
    /* The settings with defaults applied, kept past the creator (pointers cleared). */
    out->trtllm = *kvp__creator_deploy(c);
    out->trtllm.attn_backend = NULL;
    out->trtllm.sparse_algorithm = NULL;
    out->trtllm.transceiver_backend = NULL;
    out->trtllm.transceiver_runtime = NULL;
    const kvp_deploy_settings *rd = &out->trtllm;
    pt->tp = rd->tp;
    pt->pp = rd->pp;
    pt->max_seq_len = rd->max_seq_len;
    pt->max_batch_size = rd->max_batch_size;
    if (have_mem) {
        st = kvp__creator_configure_from_facts(c, &m, dep->memory.estimation_kv_bytes,
                                              &out->estimation, &out->cap, &e);
        if (st == KVP_INFEASIBLE) {
            /* Nothing is left for the KV cache: say which terms took the memory. */
            uint64_t used = m.weights_bytes + m.activation_bytes + m.non_torch_bytes +
                            m.cuda_graph_bytes;
            snprintf(e.message, sizeof e.message,
                     "the model does not fit: weights %.2f GiB (%s) + activations + runtime "
                     "memory exceed the GPU's %.2f GiB, leaving nothing for the KV cache (peak "
                     "%.2f GiB); raise tp / pp or use a larger GPU",
                     (double)m.weights_bytes / 1073741824.0,
                     (m.estimated & KVP_MEM_EST_WEIGHTS) ? "estimated" : "measured",
                     (double)m.total_bytes / 1073741824.0, (double)used / 1073741824.0);
            kvp__strlcpy(e.key, "peak_bytes", sizeof e.key);
        }
        /* No profiling pass, no activation peak. */
        if (st == KVP_OK && !out->estimation.estimating) m.activation_bytes = 0;
        uint64_t left = 0;
        if (st == KVP_OK && kvp__add_u64(m.total_bytes - (out->cap.peak_bytes < m.total_bytes
                                                              ? out->cap.peak_bytes
                                                              : m.total_bytes),
                                         dep->memory.estimation_kv_bytes, &left))
            headroom_check(out, &m, left > out->cap.budget_bytes ? left - out->cap.budget_bytes : 0);
    } else {
        st = kvp_creator_prepare_estimation(c, 0, &out->estimation, &e);
        out->estimation.estimating = false;
        if (st == KVP_OK)
            st = kvp_creator_configure_budget(c, dep->memory.kv_budget_bytes, &out->cap, &e);
    }
    if (st == KVP_OK) st = kvp_creator_build(c, false, &out->plan, &e);
    uint32_t beam = rd->max_beam_width ? rd->max_beam_width : 1;
    /* The slot pool holds max_batch_size x pp sequences (compute_max_num_sequences). */
    uint64_t batch = kvp_max_num_sequences(rd->max_batch_size, rd->pp ? rd->pp : 1,
                                           rd->disable_overlap_scheduler, false);
    kvp_dtype kv_dtype = out->plan.managers[KVP_ROLE_TARGET].kv_dtype;
    kvp_notes notes = *kvp_creator_notes(c);
    kvp_creator_free(c);
    report_memory(out, &m, have_mem);
    if (st != KVP_OK) return step_failed(out, st, &e, err);
    if (!pt->kv_dtype[0]) kvp__strlcpy(pt->kv_dtype, kvp_dtype_name(kv_dtype), sizeof pt->kv_dtype);
    const kvp_manager_plan *t = &out->plan.managers[KVP_ROLE_TARGET];
    out->reserve_bytes = out->cap.mla_workspace_reserve_bytes + out->cap.mm_reserve_bytes;
    out->budget_bytes = out->cap.kv_max_memory_bytes;
    out->kv_bytes = out->plan.allocated_bytes;
    out->tokens = t->max_tokens_out;
    out->batch_limit = batch;
    /* The policy view of the same plan, for readers of kvp_policy_result. */
    out->policy.engine = pt->engine;
    out->policy.kv_dtype = kv_dtype;
    kvp__strlcpy(out->policy.kv_dtype_name, kvp_dtype_name(kv_dtype),
                 sizeof out->policy.kv_dtype_name);
    out->policy.budget_bytes = out->budget_bytes;
    out->policy.tp = rd->tp;
    out->policy.pp = rd->pp;
    out->policy.max_model_len = rd->max_seq_len;
    out->report.present = KVP_REPORT_MAX_TOKENS | KVP_REPORT_KV_CACHE_BYTES;
    out->report.max_tokens = t->max_tokens_out;
    out->report.kv_cache_bytes = t->bytes; /* the target's pools (ENGINES.md §4.5) */
    out->policy.report = out->report;
    for (int r = 0; r < KVP_ROLE_COUNT; r++)
        for (uint32_t i = 0; out->plan.managers[r].present && i < out->plan.managers[r].pool_count;
             i++) {
            const kvp_plan_pool *p = &out->plan.managers[r].pools[i];
            if (p->tokens_per_block) {
                out->blocks += p->blocks;
                if (!out->block_tokens) out->block_tokens = p->tokens_per_block;
            }
        }
    snprintf(out->budget_formula, sizeof out->budget_formula, "%s",
             have_mem ? "(total - peak - non-torch + estimation KV) * free_gpu_memory_fraction"
                      : "--kv-budget");
    out->longest_tokens = kvp_plan_longest_sequence(&out->plan, beam);
    if (!kvp_plan_holds_a_sequence(&out->plan, beam)) {
        uint64_t block = 0;
        for (uint32_t i = 0; i < t->pool_count; i++)
            if (!t->pools[i].in_intercept) block += t->pools[i].page_bytes;
        const char *kind = t->cost.intercept_bytes ? fixed_cost_kind(&out->plan) : NULL;
        return not_planned_fmt(
            out, KVP_INFEASIBLE, "kv_budget_bytes",
            "one sequence does not fit: the KV budget (%llu B) is below one block of each pool "
            "(%llu B) plus the fixed costs (%llu B%s%s%s)",
            (unsigned long long)out->budget_bytes, (unsigned long long)block,
            (unsigned long long)t->cost.intercept_bytes, kind ? ": " : "", kind ? kind : "",
            kind ? " for max_batch_size sequences; lower --max-batch-size" : "");
    }
    /* A max_seq_len the pools cannot hold: the KV cache manager lowers it to what fits
     * and the creator adopts it (_create_kv_cache_manager), so the engine starts with
     * the reduced one. point.max_seq_len stays the one asked (a search asks whether it
     * is served); the concurrency is counted at the adopted one. */
    out->engine_max_seq_len = kvp_plan_adopted_max_seq_len(&out->plan, beam, rd->max_seq_len);
    if (out->engine_max_seq_len < rd->max_seq_len) {
        if (dep->point.max_seq_len || dep->trtllm.max_seq_len)
            warn(out,
                 "--max-seq-len %llu does not fit: the KV budget holds one sequence of at most "
                 "%llu tokens, so the engine starts with max_seq_len %llu",
                 (unsigned long long)rd->max_seq_len,
                 (unsigned long long)out->engine_max_seq_len,
                 (unsigned long long)out->engine_max_seq_len);
        else
            warn(out,
                 "the model's %llu-token context does not fit: one sequence holds at most %llu "
                 "tokens; pass --max-seq-len %llu or raise the budget",
                 (unsigned long long)rd->max_seq_len,
                 (unsigned long long)out->engine_max_seq_len,
                 (unsigned long long)out->engine_max_seq_len);
    }
    if (pt->seq_len > rd->max_seq_len)
        return not_planned_fmt(out, KVP_INVALID_ARG, "seq_len",
                               "seq_len %llu is longer than max_seq_len %llu",
                               (unsigned long long)pt->seq_len,
                               (unsigned long long)rd->max_seq_len);
    /* Encoder-decoder: max_seq_len covers the encoder; the executor caps each request's
     * decoder tokens at max_target_positions. */
    uint64_t run_len = out->engine_max_seq_len, dec_len;
    if (kvp_decoder_max_seq_len(dep->model, run_len, &dec_len) && dec_len < run_len) {
        warn(out, "encoder-decoder: decoder requests are capped at max_target_positions %llu "
                  "(max_seq_len %llu covers the encoder)",
             (unsigned long long)dec_len, (unsigned long long)run_len);
        run_len = dec_len;
    }
    for (uint32_t i = 0; i < notes.count; i++) warn_text(out, notes.text[i]);
    trtllm_warnings(dep, rd, out);
    uint64_t L = pt->seq_len ? pt->seq_len : run_len;
    pt->seq_len = L;
    st = kvp_plan_max_sequences(&out->plan, L, beam, &out->max_sequences, &e);
    if (st != KVP_OK) return step_failed(out, st, &e, err);
    if (out->max_sequences >= batch && batch) {
        if (plan_has(&out->plan, true))
            snprintf(out->binding, sizeof out->binding,
                     "recurrent slots (state for max_batch_size = %llu sequences)",
                     (unsigned long long)batch);
        else
            snprintf(out->binding, sizeof out->binding, "max batch size (%llu)",
                     (unsigned long long)batch);
    } else {
        binding_pool(&out->plan, L, beam, out->binding, sizeof out->binding);
    }
    out->status = KVP_OK;
    return KVP_OK;
}

/* -------------------------------------------------------------- policies */

static kvp_status plan_policy(const kvp_deployment *dep, kvp_deploy_result *out,
                              kvp__deploy_gate *g, kvp__estimate_memo *memo, kvp_error *err) {
    kvp_policy_settings s = dep->policy;
    kvp_deploy_point *pt = &out->point;
    s.engine = pt->engine;
    /* The one --num-speculative-tokens the start-up rules read is what the engine
     * sizes its state by (vLLM speculative_config.num_speculative_tokens). */
    if (!s.num_speculative_tokens) s.num_speculative_tokens = dep->startup.num_speculative_tokens;
    /* An engine that picks its batch cap by the GPU (vLLM's get_batch_defaults):
     * the sampler rows, the graph list and the batch cap all follow from it. */
    const kvp__engine_ops *ops = ops_of(dep);
    if (ops->default_batch_cap && !s.max_num_seqs) {
        kvp__engine_profile_in in = profile_in(dep, &dep->trtllm, &s);
        s.max_num_seqs =
            ops->default_batch_cap(&in, pt->max_seq_len ? pt->max_seq_len : s.max_model_len);
    }
    if (pt->tp) s.tp = pt->tp;
    if (pt->pp) s.pp = pt->pp;
    uint32_t tp = s.tp ? s.tp : 1, pp = s.pp ? s.pp : 1;
    pt->tp = tp;
    pt->pp = pp;
    if (pt->kv_dtype[0]) {
        if (ops->kv_dtype_per_k_and_v) {
            kvp__strlcpy(s.type_k, pt->kv_dtype, sizeof s.type_k);
            kvp__strlcpy(s.type_v, pt->kv_dtype, sizeof s.type_v);
        } else {
            kvp__strlcpy(s.kv_dtype, pt->kv_dtype, sizeof s.kv_dtype);
        }
    }
    uint64_t len = pt->max_seq_len;
    if (ops->fixed_slots) {
        uint32_t seqs = pt->sequences ? pt->sequences : (s.n_seq_max ? s.n_seq_max : 1);
        s.n_seq_max = seqs;
        pt->sequences = seqs;
        /* The length is per request under every engine; the policy makes n_ctx
         * of it by the slots (llamacpp.c), in place of a --ctx-size. */
        if (len) {
            s.max_model_len = len;
            s.n_ctx = 0;
        }
    } else if (len) {
        s.max_model_len = len;
    }
    /* Start-up rules first (deploy_startup.c): what the engine adjusts (the length
     * it derives or clamps, the dtype after the fp16 fallback) is what is planned. */
    kvp_dtype weights_dtype = dep->memory.weights_dtype;
    kvp_status gst = kvp__deploy_gate_before(g, dep, &s, &weights_dtype, err);
    if (gst != KVP_OK) return gst;
    kvp_error e;
    kvp_error_clear(&e);
    kvp_memory_facts m;
    memset(&m, 0, sizeof m);
    /* llama.cpp plans what it is asked for: without a device there is nothing to check. */
    bool have_mem = dep->memory.kv_budget_bytes == 0 && dep->memory.total_bytes > 0;
    if (have_mem) {
        /* The same memory terms for every engine, so the comparison is fair:
         * what differs is how each engine turns them into a budget. */
        kvp__engine_profile k = knobs_for(dep, &dep->trtllm, &s);
        kvp_status st = memory_terms(dep, tp, pp, &k, weights_dtype, memo, &m, &e);
        if (st != KVP_OK) return step_failed(out, st, &e, err);
        s.total_memory_bytes = m.total_bytes;
        s.weights_bytes = m.weights_bytes;
        s.peak_activation_bytes = m.activation_bytes;
        s.non_torch_bytes = m.non_torch_bytes;
        s.cudagraph_bytes = m.cuda_graph_bytes;
    } else {
        s.kv_budget_bytes = dep->memory.kv_budget_bytes;
    }
    s.free_memory_bytes = dep->memory.free_bytes;
    report_memory(out, &m, have_mem);
    kvp_policy_result *r = &out->policy;
    s.alc = kvp_deployment_allocator(dep);
    kvp_status st = kvp_policy_plan(dep->model, &s, r, &e);
    if (st != KVP_OK) return step_failed(out, st, &e, err);
    /* What the engine leaves free after its pool (its record's headroom). */
    uint64_t left = 0;
    if (have_mem && ops->headroom &&
        ops->headroom(&s, r, m.total_bytes, m.non_torch_bytes, &left))
        headroom_check(out, &m, left);
    out->report = r->report;
    for (uint32_t i = 0; i < r->note_count; i++) warn_text(out, r->notes[i]);
    if (!pt->kv_dtype[0]) kvp__strlcpy(pt->kv_dtype, r->kv_dtype_name, sizeof pt->kv_dtype);
    pt->max_seq_len = ops->fixed_slots ? r->n_ctx_seq : r->max_model_len;
    pt->seq_len = pt->max_seq_len;
    out->engine_max_seq_len = pt->max_seq_len;
    kvp__strlcpy(out->budget_formula, r->budget_formula, sizeof out->budget_formula);
    out->budget_bytes = r->budget_bytes;
    out->block_tokens = r->block_size;
    for (uint32_t i = 0; i < r->pool_count; i++) {
        uint64_t sum;
        if (kvp__add_u64(out->kv_bytes, r->pools[i].bytes, &sum)) out->kv_bytes = sum;
    }
    /* vLLM: one block pool the groups share, allocated once; pools[] are its shares. */
    if (r->pool_bytes) out->kv_bytes = r->pool_bytes;
    /* The capacity of the result, by the engine's record (deploy_<name>.c). */
    kvp__engine_capacity c;
    memset(&c, 0, sizeof c);
    c.seq_len = pt->max_seq_len ? pt->max_seq_len : 1;
    c.max_num_seqs = s.max_num_seqs;
    c.have_mem = have_mem;
    c.total_bytes = m.total_bytes;
    c.weights_bytes = m.weights_bytes;
    c.activation_bytes = m.activation_bytes;
    c.runtime_bytes = out->runtime_bytes;
    c.kv_bytes = out->kv_bytes;
    c.budget_bytes = out->budget_bytes;
    c.block_tokens = out->block_tokens;
    kvp__strlcpy(c.budget_formula, out->budget_formula, sizeof c.budget_formula);
    st = ops->capacity(r, &c, &e);
    out->tokens = c.tokens;
    out->blocks = c.blocks;
    out->block_tokens = c.block_tokens;
    out->max_sequences = c.max_sequences;
    out->batch_limit = c.batch_limit;
    out->longest_tokens = c.longest_tokens;
    out->budget_bytes = c.budget_bytes;
    kvp__strlcpy(out->budget_formula, c.budget_formula, sizeof out->budget_formula);
    kvp__strlcpy(out->binding, c.binding, sizeof out->binding);
    if (st != KVP_OK) return not_planned(out, st, &e);
    out->status = KVP_OK;
    return KVP_OK;
}

/* ------------------------------------------------------------- start-up */

/* Would the engine start? A plan that failed is the answer; else the engine's
 * own start-up rules decide (kvp__deploy_gate_after, one evaluation for every
 * command): vLLM refuses a max_model_len one request cannot hold (V-MEM-3),
 * SGLang starts and caps the input at the pool (S-LEN-2, STARTUP.md A.3),
 * TensorRT-LLM adopts a reduced max_seq_len (plan_trtllm), llama.cpp allocates
 * what it is asked for (L-MEM-1). The longest length that fits is kept for the
 * fixes the commands print. */
static void startup_verdict(kvp_deploy_result *out) {
    out->starts = out->status == KVP_OK;
    out->refusal[0] = '\0';
    out->largest_max_seq_len = 0;
    if (out->status != KVP_OK) {
        kvp__strlcpy(out->refusal, out->message, sizeof out->refusal);
        return;
    }
    if (!kvp__engine_ops_of(out->point.engine)->adopts_reduced_length &&
        out->longest_tokens < out->point.max_seq_len)
        out->largest_max_seq_len = out->longest_tokens;
}

kvp_status kvp_deploy_plan(const kvp_deployment *dep, kvp_deploy_result *out, kvp_error *err) {
    const kvp_allocator *alc = kvp_deployment_allocator(dep);
    kvp__deploy_gate *g = kvp__deploy_gate_new(alc);
    if (!g) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory (start-up checks)");
    kvp_status st = kvp__deploy_plan_gated(dep, out, g, err);
    kvp__deploy_gate_free(alc, g);
    return st;
}

/* The pipeline: the engine's plan, its admission rule, whether it starts. */
static kvp_status deploy_plan(const kvp_deployment *dep, kvp_deploy_result *out,
                              kvp__deploy_gate *g, kvp__deploy_run *run, kvp_error *err) {
    if (!dep || !dep->model || !out)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "model",
                         "a deployment needs a model and a result");
    memset(out, 0, sizeof *out);
    out->point = dep->point;
    out->startup.first_refusal = -1;
    if ((unsigned)dep->point.engine >= KVP_ENGINE_COUNT)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "engine", "unknown engine %d",
                         (int)dep->point.engine);
    g->ready = false;
    kvp_status st = ops_of(dep)->creator_plans
                        ? plan_trtllm(dep, out, g, run, err)
                        : plan_policy(dep, out, g, run ? &run->estimate : NULL, err);
    if (st != KVP_OK) return st;
    kvp__admission(dep, out); /* the engine's admission rule (admission.c) */
    startup_verdict(out);
    /* The engine's start-up rules on the same settings (deploy_startup.c). */
    return kvp__deploy_gate_after(g, dep, out, err);
}

kvp_status kvp__deploy_plan_gated(const kvp_deployment *dep, kvp_deploy_result *out,
                                  kvp__deploy_gate *g, kvp_error *err) {
    return deploy_plan(dep, out, g, NULL, err);
}


kvp__deploy_run *kvp__deploy_run_new(const kvp_allocator *alc) {
    kvp__deploy_run *run = kvp__malloc(alc, sizeof *run);
    if (!run) return NULL;
    kvp__deploy_gate_reset(&run->gate);
    kvp__estimate_memo_clear(&run->estimate);
    run->has_alc = alc != NULL;
    if (alc) run->alc = *alc;
    kvp__pools_memo_clear(&run->pools);
    run->tp_model = NULL;
    run->tp_checked = 0;
    return run;
}

void kvp__deploy_run_free(kvp__deploy_run *run) {
    if (!run) return;
    kvp_allocator alc = run->alc; /* copied: the run holding it is what is freed */
    kvp__free(run->has_alc ? &alc : NULL, run);
}

kvp_status kvp__deploy_plan_in(kvp__deploy_run *run, const kvp_deployment *dep,
                               kvp_deploy_result *out, kvp_error *err) {
    if (!run) return kvp_deploy_plan(dep, out, err);
    return deploy_plan(dep, out, &run->gate, run, err);
}
