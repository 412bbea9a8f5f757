/*
 * deploy_vllm.c — what the pipeline reads of vLLM through its record (issue 27
 * item 1; src/engines/engine_ops.h "neutral"): the memory profile, the batch
 * cap by the GPU, the headroom after the pool, the capacity of a plan, the
 * admission pool and the plan JSON's engine_details.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_ops.h"
#include "policy_internal.h"
#include "startup_internal.h"

/* vLLM's batch defaults for this deployment (kvp_vllm_batch_defaults): the GPU's
 * memory and name, the release, the OpenAI server's usage context, the length
 * and the chunked-prefill setting. A GPU named only by --gpu-mem is taken by its
 * size. */
static void batch_defaults(const kvp__engine_profile_in *in, uint64_t max_model_len,
                           uint64_t *tokens, uint32_t *seqs) {
    uint64_t total = in->memory_total_bytes ? in->memory_total_bytes
                                            : in->startup->gpu.total_bytes;
    uint32_t version;
    bool v0;
    kvp_vllm_release(in->engine_version, &version, &v0);
    const kvp_model_info *mi = kvp_model_get_info(in->model);
    if (!max_model_len) max_model_len = mi->max_position_embeddings;
    /* V0 turns chunked prefill on by itself past 32,768 tokens only on CUDA
     * without a sliding window, spec decode, LoRA, a multimodal model or MLA
     * (EngineArgs._set_default_args_v0, MEMORY.md 7.3): for those the profile
     * step holds the whole max_model_len. */
    int chunked = in->startup->enable_chunked_prefill;
    bool multimodal = mi->is_multimodal && !in->startup->language_model_only;
    if (v0 && chunked < 0 &&
        (mi->sliding_window || mi->is_mla || multimodal || in->startup->speculative_method[0]))
        chunked = 0;
    kvp_vllm_batch_defaults(total, in->startup->gpu.name, version, v0, false, max_model_len,
                            chunked, tokens, seqs);
    /* V0's SchedulerConfig floors for a multimodal (5,120) and a pooling model
     * (32,768), chunked or not (7.3). */
    if (v0 && !in->policy->max_num_batched_tokens) {
        if (multimodal && *tokens < 5120) *tokens = 5120;
        if (!strcmp(in->startup->runner, "pooling") && *tokens < 32768) *tokens = 32768;
    }
}

/* vLLM picks max_num_seqs by the GPU (get_batch_defaults): the sampler rows,
 * the graph list and the batch cap all follow from it. */
uint32_t kvp__vllm_default_batch_cap(const kvp__engine_profile_in *in, uint64_t max_model_len) {
    uint64_t tokens;
    uint32_t seqs;
    batch_defaults(in, max_model_len, &tokens, &seqs);
    return seqs;
}

/* VLLM_USE_FLASHINFER_SAMPLER as --env sets it (envs.py reads bool(int(value))):
 * 1 a non-zero integer, -1 zero, 0 unset or no integer (the line's path). */
static int flashinfer_sampler_env(const kvp_startup_settings *s) {
    const char *v = kvp__startup_settings_env(s, "VLLM_USE_FLASHINFER_SAMPLER");
    if (!v) return 0;
    char *end = NULL;
    long n = strtol(v, &end, 10);
    if (end == v || *end) return 0;
    return n ? 1 : -1;
}

void kvp__vllm_profile(const kvp__engine_profile_in *in, kvp__engine_profile *k) {
    const kvp_policy_settings *s = in->policy;
    memset(k, 0, sizeof *k);
    /* vLLM profiles a dummy sampler over min(max_num_seqs, max_num_batched_tokens)
     * rows and estimates graphs up to min(2 x max_num_seqs, 512) (>= 0.21). Its
     * request is a fraction of the total taken after distributed init, and the
     * non-torch term is the increase over that snapshot (MEMORY.md 1.1): the
     * CUDA context and NCCL init are not charged. CUDA graphs are their own term
     * (era c), never inside non-torch. */
    uint64_t dtokens;
    uint32_t dseqs;
    batch_defaults(in, s->max_model_len, &dtokens, &dseqs);
    uint32_t seqs = s->max_num_seqs ? s->max_num_seqs : dseqs;
    kvp_vllm_release(in->engine_version, &k->engine_version, &k->engine_v0);
    k->max_num_tokens = s->max_num_batched_tokens ? s->max_num_batched_tokens : dtokens;
    k->max_batch_size = seqs;
    k->cuda_graphs = !in->startup->enforce_eager;
    k->cuda_graph_max_batch = in->cuda_graph_max_bs;
    k->cuda_graph_apart = true;
    /* MoE layers span TP x DP, split by TP or held whole by EP
     * (FusedMoEParallelConfig); mxfp4 experts padded by the kernel the GPU's
     * compute capability picks (Mxfp4MoEMethod: kvp__mxfp4_vllm_padding). */
    uint32_t tp = s->tp ? s->tp : 1, dp = s->dp ? s->dp : 1;
    k->expert_ranks = tp * dp;
    bool ep = in->memory_expert_parallel || in->startup->enable_expert_parallel;
    k->ep = ep ? tp * dp : 1;
    /* --runner pooling: the profile runs the pooler (_dummy_pooler_run, MEMORY.md 1.4). */
    k->pooling_runner = !strcmp(in->startup->runner, "pooling");
    k->flashinfer_sampler = flashinfer_sampler_env(in->startup);
}

/* The request is gpu_memory_utilization x total (0.9 by default): the rest is
 * left to what the profile did not see (MEMORY.md 1.1). */
bool kvp__vllm_headroom(const kvp_policy_settings *s, const kvp_policy_result *r,
                        uint64_t total, uint64_t non_torch, uint64_t *left) {
    (void)r;
    (void)non_torch;
    double u = s->gpu_memory_utilization > 0 ? s->gpu_memory_utilization : 0.9;
    uint64_t req = (uint64_t)ceil((double)total * u);
    *left = total > req ? total - req : 0;
    return true;
}

kvp_status kvp__vllm_capacity(const kvp_policy_result *r, kvp__engine_capacity *c,
                              kvp_error *err) {
    (void)err;
    const kvp_engine_report *rep = &r->report;
    uint64_t L = c->seq_len;
    c->tokens = rep->gpu_kv_cache_tokens;
    c->blocks = rep->num_gpu_blocks;
    /* Integral requests only: the log's 2.97x serves two. With one KV
     * cache group the ratio is blocks / blocks per request, done in
     * integers so the boundary is exact; otherwise the engine's ratio. */
    if (r->num_groups <= 1 && r->per_request_blocks)
        c->max_sequences = rep->num_gpu_blocks / r->per_request_blocks;
    else
        c->max_sequences = kvp__double_to_u64(floor(rep->max_concurrency));
    c->batch_limit = c->max_num_seqs ? c->max_num_seqs : 256;
    c->longest_tokens = r->estimated_max_model_len && r->estimated_max_model_len < L
                            ? r->estimated_max_model_len
                            : (c->max_sequences >= 1 ? L : 0);
    if (c->max_sequences >= c->batch_limit)
        snprintf(c->binding, sizeof c->binding, "max-num-seqs (%llu)",
                 (unsigned long long)c->batch_limit);
    else if (r->num_groups > 1 && r->group_size == 0)
        /* DeepSeek-V4 (vllm_v4.c): one pool of blocks at a packed stride that
         * every group draws on, plus each request's compressor state. */
        snprintf(c->binding, sizeof c->binding,
                 "KV budget of pool 'packed' (%llu blocks of %llu B, %u groups, plus "
                 "compressor state per request)",
                 (unsigned long long)rep->num_gpu_blocks, (unsigned long long)r->page_bytes,
                 r->num_groups);
    else if (r->num_groups > 1)
        /* Every KV cache group draws on the one block pool (ENGINES.md 1.6):
         * the pool binds, not one group's share of it. */
        snprintf(c->binding, sizeof c->binding,
                 "KV budget of the block pool the %u KV cache groups share (%llu blocks "
                 "of %u tokens)",
                 r->num_groups, (unsigned long long)rep->num_gpu_blocks, r->block_size);
    else
        snprintf(c->binding, sizeof c->binding, "KV budget of pool '%s' (%llu blocks of %u tokens)",
                 r->pool_count ? r->pools[0].name : "kv", (unsigned long long)rep->num_gpu_blocks,
                 r->block_size);
    /* Not one request of L tokens: the longest is below L (vLLM refuses to start). */
    if (c->max_sequences == 0 && c->longest_tokens >= L) c->longest_tokens = L - 1;
    return KVP_OK;
}

/* One KV cache group of full attention: its blocks are the pool. */
bool kvp__vllm_steady_pool(const kvp_policy_result *r, uint64_t *blocks, uint32_t *tpb) {
    *blocks = r->report.num_gpu_blocks;
    *tpb = r->block_size;
    return r->num_groups <= 1 && r->pool_count == 1 &&
           (r->pools[0].kind == KVP_CACHE_FULL || r->pools[0].kind == KVP_CACHE_MLA);
}

const kvp__engine_detail kvp__vllm_details[] = {
    KVP__DETAIL("block_size", block_size),
    KVP__DETAIL("num_groups", num_groups),
    KVP__DETAIL("group_size", group_size),
    KVP__DETAIL("page_bytes", page_bytes),
    KVP__DETAIL("per_request_blocks", per_request_blocks),
    KVP__DETAIL("max_model_len", max_model_len),
    KVP__DETAIL("needed_bytes", needed_bytes),
    KVP__DETAIL_IF("estimated_max_model_len", estimated_max_model_len, estimated_max_model_len),
    {NULL, 0, KVP__DETAIL_NONE, 0, KVP__DETAIL_NONE},
};
