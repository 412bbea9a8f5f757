/*
 * estimation.c — the profiling pass's temporary KV cache: the dummy context
 * requests (_create_dummy_context_requests), the chunked-MLA profile length
 * (_get_mla_chunked_profile_length) and the token count the temporary cache
 * must hold (_get_token_num_for_estimation).
 */
#include <string.h>

#include "plan_internal.h"
#include "plan_rules.h"

uint64_t kvp_mla_chunked_profile_length(bool is_mla, const char *attn_backend,
                                        const char *sparse_algorithm, bool chunked_prefill,
                                        uint64_t chunk_size, uint64_t buffer_batch_size,
                                        uint32_t sm_version, uint64_t max_num_tokens,
                                        uint64_t input_seq_len) {
    const char *backend = attn_backend ? attn_backend : "TRTLLM";
    if (!is_mla || strcmp(backend, "TRTLLM") != 0) return 0;
    /* Skip-softmax keeps dense MLA; DSA-style hooks may switch to absorption. */
    if (sparse_algorithm && strcmp(sparse_algorithm, "skip_softmax") != 0) return 0;
    if (!chunked_prefill || chunk_size == 0) return 0;
    if (sm_version < 100) return 0; /* Hopper full-gathers even with chunking */
    if (max_num_tokens == 0) return 0;
    uint64_t kv_chunk, twice, cached, len;
    if (!kvp__mul_u64(chunk_size, buffer_batch_size, &kv_chunk) ||
        !kvp__mul_u64(kv_chunk, 2, &twice) ||
        !kvp__mul_u64(kvp__ceil_div_u64(twice, max_num_tokens), max_num_tokens, &cached) ||
        !kvp__add_u64(cached, max_num_tokens, &len))
        return 0;
    return len > input_seq_len ? 0 : len;
}

static kvp_status ovf(kvp_error *err) {
    return kvp__fail(err, KVP_OVERFLOW, NULL, "max_tokens",
                     "the estimation pass's KV cache size overflows 64 bits");
}

kvp_status kvp_estimation_token_count(const kvp_estimation_inputs *in, kvp_estimation_tokens *out,
                                      kvp_error *err) {
    memset(out, 0, sizeof *out);
    uint64_t tpb = in->tokens_per_block;
    if (tpb == 0)
        return kvp__fail(err, KVP_CONFIG, NULL, "tokens_per_block", "tokens_per_block is 0");
    if (in->max_num_tokens == 0)
        return kvp__fail(err, KVP_CONFIG, NULL, "max_num_tokens", "max_num_tokens is 0");

    /* One generated token, plus the speculative tokens (twice with the overlap scheduler). */
    uint64_t extra = 1;
    if (in->has_spec) {
        uint64_t step = in->tokens_per_gen_step ? in->tokens_per_gen_step - 1u : 0;
        if (!in->disable_overlap_scheduler) extra += step;
        extra += step + in->extra_kv_tokens;
    }
    out->extra_tokens_per_seq = extra;

    /* Dummy requests: prompts of min(max_num_tokens, seq) filling max_num_tokens, or one
     * prompt of the chunked-MLA profile length. */
    uint64_t seq = in->net_max_seq_len > 1 ? in->net_max_seq_len - 1 : 1;
    uint64_t input, remaining;
    if (in->mla_chunked_profile_length) {
        input = in->mla_chunked_profile_length;
        remaining = input;
    } else {
        input = in->max_num_tokens < seq ? in->max_num_tokens : seq;
        remaining = in->max_num_tokens;
    }
    out->dummy_prompt_tokens = input;
    uint64_t full = remaining / input, rest = remaining % input;
    uint64_t reqs = full + (rest ? 1u : 0u);
    uint64_t blocks;
    if (!kvp__mul_u64(full, kvp__ceil_div_u64(input + extra, tpb), &blocks)) return ovf(err);
    if (rest) blocks += kvp__ceil_div_u64(rest + extra, tpb);
    uint32_t tp = in->tp ? in->tp : 1;
    if (in->attention_dp) {
        /* tp copies so every rank gets work ... */
        if (!kvp__mul_u64(reqs, tp, &reqs) || !kvp__mul_u64(blocks, tp, &blocks)) return ovf(err);
    }
    out->dummy_requests = reqs;
    out->request_blocks = blocks;
    /* ... but the scheduler gives each rank its own share. */
    if (in->attention_dp && tp > 1) blocks = kvp__ceil_div_u64(blocks, tp);
    out->adp_blocks = blocks;

    uint64_t graph_bs = in->engine_batch_size < in->max_cuda_graph_batch_size
                            ? in->engine_batch_size
                            : in->max_cuda_graph_batch_size;
    uint64_t seq_blocks = kvp__ceil_div_u64(in->engine_max_seq_len + 1, tpb);
    uint64_t warmup = seq_blocks + graph_bs;
    warmup = warmup > 0 ? warmup - 1 : 0;
    out->cuda_graph_warmup_blocks = warmup;
    if (warmup > blocks) blocks = warmup;
    if (in->engine_batch_size > blocks) blocks = in->engine_batch_size;
    out->floor_blocks = blocks;

    uint32_t groups = in->is_v2 ? (in->num_pool_groups ? in->num_pool_groups : 1u) : 1u;
    uint32_t beam = in->max_beam_width ? in->max_beam_width : 1u;
    if (!kvp__mul_many_u64(&blocks, 3, blocks, (uint64_t)groups, (uint64_t)beam)) return ovf(err);
    out->pool_blocks = blocks;
    if (!kvp__mul_u64(blocks, tpb, &out->tokens_for_estimation)) return ovf(err);

    if (in->is_v2) {
        /* V2 capacity is the byte cap; max_tokens only describes the dummy workload. */
        out->max_tokens = out->tokens_for_estimation;
        return KVP_OK;
    }
    double max_memory = in->free_gpu_memory_fraction * (double)in->free_bytes;
    uint64_t budget = kvp__double_to_u64(max_memory);
    /* tokens_for_budget on a float budget: (budget - intercept) // slope, floored. */
    uint64_t t = kvp_affine_tokens_for_budget(in->kv_cost, budget);
    out->tokens_in_memory = t / tpb * tpb;
    out->max_tokens = out->tokens_for_estimation < out->tokens_in_memory
                          ? out->tokens_for_estimation
                          : out->tokens_in_memory;
    return KVP_OK;
}
