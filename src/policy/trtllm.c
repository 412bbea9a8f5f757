/*
 * trtllm.c — TensorRT-LLM's printed figures for uniform attention models
 * (ENGINES.md §4): "Allocated X GiB for max tokens in paged KV cache (N)".
 *
 * The V1 creator sizes max_tokens with the static estimator
 * (get_cache_size_per_token: floor(hd * kvh / tp) per layer, a per-layer head
 * list by its mean, 2 bytes for everything but fp8/nvfp4), while the manager
 * allocates with ceil(kvh / tp) heads per layer and the real element size.
 * Both are reported; when they differ the manager's memory bound decides.
 * The full seed port (VSWA, Mamba, cross, draft splits) is the plan room's.
 */
#include <string.h>

#include "kvplan/cost.h"
#include "policy_internal.h"

kvp_status kvp__policy_trtllm(const kvp_model *model, const kvp_policy_settings *s,
                              kvp_policy_result *out, kvp_error *err) {
    const kvp_model_info *info = kvp_model_get_info(model);
    /* auto: the checkpoint's KV quantisation, else its own dtype (fp32 included: the
     * manager allocates 4 bytes while the estimator assumes 2, §4.2). */
    kvp_dtype dt = info->kv_dtype_declared != KVP_DTYPE_AUTO ? info->kv_dtype_declared
                   : info->dtype == KVP_DTYPE_AUTO     ? KVP_DTYPE_BF16
                                                       : info->dtype;
    if (s->kv_dtype[0] && kvp__strcasecmp(s->kv_dtype, "auto") != 0 &&
        (kvp_dtype_parse(s->kv_dtype, &dt) != KVP_OK || dt == KVP_DTYPE_INT8))
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "--kv-dtype",
                         "TensorRT-LLM has no KV cache dtype '%s' (fp8, fp16, bf16, fp32, nvfp4)",
                         s->kv_dtype);
    out->kv_dtype = dt;
    kvp__strlcpy(out->kv_dtype_name, kvp_dtype_name(dt), sizeof out->kv_dtype_name);
    kvp__strlcpy(out->era, "pytorch-v1", sizeof out->era);
    uint32_t tpb = s->block_size ? s->block_size : 32;
    out->block_size = tpb;
    if (!s->kv_budget_bytes)
        return kvp__fail(err, KVP_INFEASIBLE, NULL, "--kv-budget",
                         "this TensorRT-LLM report needs --kv-budget (KV memory after the fraction)");

    uint32_t b, e;
    uint32_t nl = info->num_layers;
    uint32_t best_b = 0, best_e = nl;
    uint32_t most = 0;
    for (uint32_t stage = 0; stage < s->pp; stage++) {
        kvp_pp_stage_layers(nl, s->pp, stage, &b, &e);
        if (e - b > most) {
            most = e - b;
            best_b = b;
            best_e = e;
        }
    }
    uint64_t est_elems = 0, mgr = 0, heads_sum = 0, n_attn = 0, mla_elems = 0;
    uint32_t hd = info->head_dim;
    bool windowed = false;
    size_t n = kvp_model_cache_count(model);
    for (size_t i = 0; i < n; i++) {
        const kvp_layer_cache *c = kvp_model_cache(model, i);
        if (c->layer < best_b || c->layer >= best_e) continue;
        if (c->kind == KVP_CACHE_SLIDING || c->kind == KVP_CACHE_CHUNKED) {
            /* The V1 manager without max_attention_window keeps full context for them. */
            if (!windowed)
                kvp__policy_note(out, "sliding / chunked layers keep full context in the V1 "
                                      "manager without max_attention_window");
            windowed = true;
        }
        if (c->kind == KVP_CACHE_FULL || c->kind == KVP_CACHE_SLIDING ||
            c->kind == KVP_CACHE_CHUNKED) {
            uint64_t h = ((uint64_t)c->kv_heads + s->tp - 1) / s->tp, elems, bytes;
            if (__builtin_mul_overflow(h, (uint64_t)c->k_head_dim + c->v_head_dim, &elems) ||
                kvp_dtype_bytes(dt, elems, &bytes) || __builtin_add_overflow(mgr, bytes, &mgr))
                return kvp__fail(err, KVP_OVERFLOW, kvp_model_name(model), NULL,
                                 "bytes per token overflow at layer %u", c->layer);
            heads_sum += c->kv_heads;
            n_attn++;
            if (!hd) hd = c->k_head_dim;
        } else if (c->kind == KVP_CACHE_MLA) {
            uint64_t bytes;
            if (kvp_dtype_bytes(dt, c->k_head_dim, &bytes) ||
                __builtin_add_overflow(mgr, bytes, &mgr))
                return kvp__fail(err, KVP_OVERFLOW, kvp_model_name(model), NULL,
                                 "bytes per token overflow at layer %u", c->layer);
            mla_elems += c->k_head_dim;
        } else {
            return kvp__fail(err, KVP_UNSUPPORTED, kvp_model_name(model), NULL,
                             "layer %u: %s caches are planned by --policy trtllm in `kvplan plan`",
                             c->layer, kvp_cache_kind_name(c->kind));
        }
    }
    if (n_attn) {
        /* 2 * L * floor(hd * mean(kvh) / tp) elements. */
        double mean = (double)heads_sum / (double)n_attn;
        uint64_t per_layer = kvp__double_to_u64((double)hd * mean / (double)s->tp);
        if (!kvp__mul_many_u64(&est_elems, 3, (uint64_t)2, n_attn, per_layer))
            return kvp__fail(err, KVP_OVERFLOW, kvp_model_name(model), NULL,
                             "estimator bytes per token overflow");
    }
    uint64_t est;
    if (__builtin_add_overflow(est_elems, mla_elems, &est_elems) ||
        (dt != KVP_DTYPE_FP8 && dt != KVP_DTYPE_NVFP4 &&
         __builtin_mul_overflow(est_elems, (uint64_t)2, &est_elems)))
        return kvp__fail(err, KVP_OVERFLOW, kvp_model_name(model), NULL,
                         "estimator bytes per token overflow");
    if (dt == KVP_DTYPE_NVFP4)
        est = kvp__ceil_div_u64(est_elems, 2) + kvp__ceil_div_u64(est_elems, 16);
    else
        est = est_elems;
    if (est == 0 || mgr == 0)
        return kvp__fail(err, KVP_UNSUPPORTED, kvp_model_name(model), NULL,
                         "the model keeps no attention cache on this stage");
    uint64_t page_bytes;
    if (__builtin_mul_overflow(mgr, (uint64_t)tpb, &page_bytes))
        return kvp__fail(err, KVP_OVERFLOW, kvp_model_name(model), NULL,
                         "%llu bytes per token x %u tokens per block overflows",
                         (unsigned long long)mgr, (unsigned)tpb);
    out->trt_estimator_bytes_per_token = est;
    out->trt_manager_bytes_per_token = mgr;
    uint64_t budget = s->kv_budget_bytes;
    out->budget_bytes = budget;
    uint64_t t_est = budget / est, t_mgr = budget / mgr;
    uint64_t t = t_est < t_mgr ? t_est : t_mgr;
    uint64_t blocks = t / tpb;
    out->report.max_tokens = blocks * tpb;
    out->report.kv_cache_bytes = blocks * tpb * mgr;
    out->report.present = KVP_REPORT_MAX_TOKENS | KVP_REPORT_KV_CACHE_BYTES;
    if (est != mgr)
        kvp__policy_note(out,
                         "V1 estimator rounds KV heads down (%llu B/token) but the manager "
                         "allocates ceil(kvh/tp) heads (%llu B/token): estimator max_tokens %llu, "
                         "manager %llu",
                         (unsigned long long)est, (unsigned long long)mgr,
                         (unsigned long long)(t_est / tpb * tpb), (unsigned long long)(t_mgr / tpb * tpb));
    kvp_policy_pool *p = &out->pools[out->pool_count++];
    kvp__strlcpy(p->name, "kv", sizeof p->name);
    p->kind = mla_elems ? KVP_CACHE_MLA : KVP_CACHE_FULL;
    p->layers = (uint32_t)(best_e - best_b);
    p->block_size_tokens = tpb;
    p->page_bytes = page_bytes;
    p->tokens = out->report.max_tokens;
    p->bytes = out->report.kv_cache_bytes;
    return KVP_OK;
}
