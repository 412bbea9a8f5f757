/*
 * deploy_sglang.c — what the pipeline reads of SGLang through its record
 * (issue 27 item 1; src/engines/engine_ops.h "neutral"): the memory profile,
 * the headroom after the pool, the capacity of a plan, the admission pool and
 * the plan JSON's engine_details.
 */
#include <stdio.h>
#include <string.h>

#include "engine_ops.h"
#include "policy_internal.h"

void kvp__sglang_profile(const kvp__engine_profile_in *in, kvp__engine_profile *k) {
    const kvp_policy_settings *s = in->policy;
    memset(k, 0, sizeof *k);
    /* SGLang reads only the weights and what shrinks its pre-load free memory (the
     * rest lives in 1 - mem_fraction_static). */
    uint32_t chunk = 0, graph_bs = 0;
    k->engine_version = kvp__sglang_release(in->engine_version);
    kvp__sglang_memory_tier(in->memory_total_bytes, s->tp ? s->tp : 1, k->engine_version,
                              &chunk, &graph_bs);
    /* The profiled forward pass: one chunk (--chunked-prefill-size; -1: no chunking,
     * a prefill batch of max_prefill_tokens, 16384 by default, ServerArgs). */
    k->max_num_tokens = s->chunked_prefill_size > 0   ? (uint64_t)s->chunked_prefill_size
                        : s->chunked_prefill_size < 0 ? 16384
                        : s->max_num_batched_tokens   ? s->max_num_batched_tokens
                                                      : chunk;
    k->max_batch_size = s->max_running_requests ? s->max_running_requests : s->max_num_seqs;
    k->cuda_graphs = !in->startup->enforce_eager;
    k->cuda_graph_max_batch = in->cuda_graph_max_bs ? in->cuda_graph_max_bs : graph_bs;
    uint32_t ep_size = in->memory_ep ? in->memory_ep : in->startup->ep_size;
    bool ep = in->startup->enable_expert_parallel && !ep_size;
    k->ep = ep ? (s->tp ? s->tp : 1) : ep_size;
    /* R = TP: moe_tp_size = tp_size // ep_size (parallel_state.py, STARTUP.md
     * S-PAR-3); EP above TP makes it 0 (FusedMoE's intermediate_size %
     * moe_tp_size divides by zero): refused by the estimate (issue 29). */
    k->experts_span_tp = true;
    /* --enable-dp-attention: attention runs over attn_tp = tp / dp ranks
     * (dp_attention.py compute_dp_attention_world_info; ENGINES.md 2.4), so its
     * weights are split that far only, and the models build their embedding with
     * VocabParallelEmbedding(enable_tp=not is_dp_attention_enabled()): whole on
     * every rank [inferred: the models' code, not the references]. */
    uint32_t tp = s->tp ? s->tp : 1, dp = s->dp ? s->dp : 1;
    if (s->enable_dp_attention && dp > 1 && tp % dp == 0) {
        k->attention_ranks = tp / dp;
        k->embedding_whole = true;
    }
}

/* After the pool: X x (1 - mem_fraction_static), X the pre-load free memory
 * (MEMORY.md 3.3). */
bool kvp__sglang_headroom(const kvp_policy_settings *s, const kvp_policy_result *r,
                          uint64_t total, uint64_t non_torch, uint64_t *left) {
    (void)s;
    if (!(r->mem_fraction_static > 0)) return false;
    uint64_t pre = non_torch < total ? non_torch : 0;
    double X = (double)(total - pre);
    *left = kvp__double_to_u64(X * (1.0 - r->mem_fraction_static));
    return true;
}

kvp_status kvp__sglang_capacity(const kvp_policy_result *r, kvp__engine_capacity *c,
                                kvp_error *err) {
    (void)err;
    const kvp_engine_report *rep = &r->report;
    c->tokens = rep->max_total_num_tokens;
    c->blocks = r->block_size ? rep->max_total_num_tokens / r->block_size : 0;
    c->max_sequences = rep->max_total_num_tokens / c->seq_len;
    c->batch_limit = rep->max_running_requests;
    c->longest_tokens = rep->max_total_num_tokens;
    if (r->mamba_cache_size && r->mamba_cache_size < c->max_sequences &&
        r->mamba_cache_size <= c->batch_limit) {
        c->max_sequences = r->mamba_cache_size;
        snprintf(c->binding, sizeof c->binding, "recurrent slots (%llu mamba states)",
                 (unsigned long long)r->mamba_cache_size);
    } else if (c->batch_limit && c->max_sequences >= c->batch_limit) {
        snprintf(c->binding, sizeof c->binding, "max running requests (%llu)",
                 (unsigned long long)c->batch_limit);
    } else {
        snprintf(c->binding, sizeof c->binding, "KV budget of pool '%s' (max_total_num_tokens %llu)",
                 r->pool_count ? r->pools[0].name : "kv",
                 (unsigned long long)rep->max_total_num_tokens);
    }
    return KVP_OK;
}

/* One token pool of attention, no state pool: pages of page_size tokens. */
bool kvp__sglang_steady_pool(const kvp_policy_result *r, uint64_t *blocks, uint32_t *tpb) {
    *tpb = r->block_size ? r->block_size : 1;
    *blocks = r->report.max_total_num_tokens / *tpb;
    return r->pool_count == 1 && r->pools[0].kind != KVP_CACHE_RECURRENT && r->block_size > 0 &&
           !r->mamba_cache_size;
}

const kvp__engine_detail kvp__sglang_details[] = {
    KVP__DETAIL("cell_size", cell_bytes),
    KVP__DETAIL("page_size", block_size),
    KVP__DETAIL("context_len", max_model_len),
    KVP__DETAIL_IF("swa_max_total_num_tokens", swa_tokens, swa_tokens),
    KVP__DETAIL_IF("max_mamba_cache_size", mamba_cache_size, mamba_cache_size),
    {NULL, 0, KVP__DETAIL_NONE, 0, KVP__DETAIL_NONE},
};
