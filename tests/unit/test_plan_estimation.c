/* test_plan_estimation.c — the profiling pass's temporary KV cache
 * (src/plan/estimation.c): dummy requests, extra tokens, attention-DP
 * division, CUDA-graph warm-up, batch floor, pool groups, beam, the V1
 * free-memory cap, and the chunked-MLA profile length. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "kvplan/plan.h"
#include "plan_rules.h"

#define GiB (1024ull * 1024 * 1024)

static kvp_estimation_inputs base(void) {
    kvp_estimation_inputs in;
    memset(&in, 0, sizeof in);
    in.net_max_seq_len = 8192;
    in.max_num_tokens = 8192;
    in.tokens_per_block = 32;
    in.max_beam_width = 1;
    in.tp = 1;
    in.engine_batch_size = 2048;
    in.max_cuda_graph_batch_size = 128;
    in.engine_max_seq_len = 8192;
    in.free_bytes = 10 * GiB;
    in.free_gpu_memory_fraction = 0.9;
    in.kv_cost.slope_bytes_per_token = 163840; /* Llama-3.1-70B at TP 2, bf16 */
    return in;
}

static void v1_llama(void **state) {
    (void)state;
    kvp_estimation_inputs in = base();
    kvp_estimation_tokens t;
    assert_int_equal(kvp_estimation_token_count(&in, &t, NULL), KVP_OK);
    /* Prompt max(1, 8192 - 1) = 8191, capped at max_num_tokens: requests 8191 and 1. */
    assert_int_equal(t.dummy_prompt_tokens, 8191);
    assert_int_equal(t.dummy_requests, 2);
    assert_int_equal(t.extra_tokens_per_seq, 1);
    /* ceil((8191 + 1) / 32) + ceil((1 + 1) / 32) = 256 + 1 = 257. */
    assert_int_equal(t.request_blocks, 257);
    /* Warm-up: ceil(8193 / 32) + min(2048, 128) - 1 = 257 + 127 = 384. */
    assert_int_equal(t.cuda_graph_warmup_blocks, 384);
    /* max(384, 257) = 384, then the batch floor max(384, 2048) = 2048. */
    assert_int_equal(t.floor_blocks, 2048);
    assert_int_equal(t.tokens_for_estimation, 65536);
    /* Free-memory cap: int(0.9 * 10 GiB) = 9663676416 B / 163840 = 58982 tokens,
     * floored to blocks: 58976. min(65536, 58976) = 58976. */
    assert_int_equal(t.tokens_in_memory, 58976);
    assert_int_equal(t.max_tokens, 58976);
    /* Plenty of memory: the workload count wins. */
    in.free_bytes = 100 * GiB;
    assert_int_equal(kvp_estimation_token_count(&in, &t, NULL), KVP_OK);
    assert_int_equal(t.max_tokens, 65536);
}

static void v2_spec_adp(void **state) {
    (void)state;
    kvp_estimation_inputs in = base();
    in.net_max_seq_len = 1000;
    in.max_num_tokens = 2048;
    in.has_spec = true;
    in.tokens_per_gen_step = 4; /* max_draft_len 3 */
    in.extra_kv_tokens = 2;
    in.attention_dp = true;
    in.tp = 4;
    in.engine_batch_size = 8;
    in.max_cuda_graph_batch_size = 16;
    in.engine_max_seq_len = 1000;
    in.is_v2 = true;
    in.num_pool_groups = 2;
    kvp_estimation_tokens t;
    assert_int_equal(kvp_estimation_token_count(&in, &t, NULL), KVP_OK);
    /* Extra per sequence: 1 generated + 3 (overlap scheduler) + 3 + 2 extra KV = 9. */
    assert_int_equal(t.extra_tokens_per_seq, 9);
    /* Prompt 999; 2048 = 2 x 999 + 50: 3 requests, x tp 4 copies under attention DP = 12. */
    assert_int_equal(t.dummy_requests, 12);
    /* Blocks: 2 x ceil(1008 / 32) + ceil(59 / 32) = 64 + 2 = 66, x 4 copies = 264. */
    assert_int_equal(t.request_blocks, 264);
    /* Each rank needs its share only: ceil(264 / 4) = 66. */
    assert_int_equal(t.adp_blocks, 66);
    /* Warm-up ceil(1001 / 32) + min(8, 16) - 1 = 32 + 7 = 39 < 66; batch floor 8 < 66. */
    assert_int_equal(t.cuda_graph_warmup_blocks, 39);
    assert_int_equal(t.floor_blocks, 66);
    /* x 2 pool groups x beam 1 = 132 blocks = 4224 tokens; V2 returns it as is. */
    assert_int_equal(t.pool_blocks, 132);
    assert_int_equal(t.max_tokens, 4224);
    /* Without the overlap scheduler: 1 + 3 + 2 = 6 extra tokens. */
    in.disable_overlap_scheduler = true;
    assert_int_equal(kvp_estimation_token_count(&in, &t, NULL), KVP_OK);
    assert_int_equal(t.extra_tokens_per_seq, 6);
}

static void mla_profile(void **state) {
    (void)state;
    /* chunk 8192 x buffer 1: ceil(2 * 8192 / 8192) * 8192 + 8192 = 24576. */
    assert_int_equal(kvp_mla_chunked_profile_length(true, NULL, NULL, true, 8192, 1, 100, 8192,
                                                    131071),
                     24576);
    /* chunk 3000 x 2 = 6000: ceil(12000 / 8192) = 2 -> 16384 + 8192 = 24576 as well. */
    assert_int_equal(kvp_mla_chunked_profile_length(true, "TRTLLM", "skip_softmax", true, 3000, 2,
                                                    103, 8192, 131071),
                     24576);
    /* Hopper, another backend, a sparse algorithm, no chunking, or a short prompt: None. */
    assert_int_equal(kvp_mla_chunked_profile_length(true, NULL, NULL, true, 8192, 1, 90, 8192,
                                                    131071),
                     0);
    assert_int_equal(kvp_mla_chunked_profile_length(true, "FLASHINFER", NULL, true, 8192, 1, 100,
                                                    8192, 131071),
                     0);
    assert_int_equal(kvp_mla_chunked_profile_length(true, NULL, "dsa", true, 8192, 1, 100, 8192,
                                                    131071),
                     0);
    assert_int_equal(kvp_mla_chunked_profile_length(true, NULL, NULL, false, 8192, 1, 100, 8192,
                                                    131071),
                     0);
    assert_int_equal(kvp_mla_chunked_profile_length(true, NULL, NULL, true, 8192, 1, 100, 8192,
                                                    20000),
                     0);
    assert_int_equal(kvp_mla_chunked_profile_length(false, NULL, NULL, true, 8192, 1, 100, 8192,
                                                    131071),
                     0);
    /* The profile length drives one request: ceil((24576 + 1) / 32) = 769 blocks, beam 2. */
    kvp_estimation_inputs in = base();
    in.mla_chunked_profile_length = 24576;
    in.engine_batch_size = 1;
    in.max_cuda_graph_batch_size = 0;
    in.engine_max_seq_len = 1000; /* warm-up ceil(1001/32) + 0 - 1 = 31 */
    in.max_beam_width = 2;
    in.is_v2 = true;
    kvp_estimation_tokens t;
    assert_int_equal(kvp_estimation_token_count(&in, &t, NULL), KVP_OK);
    assert_int_equal(t.dummy_requests, 1);
    assert_int_equal(t.request_blocks, 769);
    assert_int_equal(t.cuda_graph_warmup_blocks, 31);
    assert_int_equal(t.pool_blocks, 1538);
    assert_int_equal(t.max_tokens, 49216);
}

static void bad_inputs(void **state) {
    (void)state;
    kvp_estimation_inputs in = base();
    kvp_estimation_tokens t;
    kvp_error err;
    in.tokens_per_block = 0;
    assert_int_equal(kvp_estimation_token_count(&in, &t, &err), KVP_CONFIG);
    assert_string_equal(err.key, "tokens_per_block");
    in = base();
    in.max_num_tokens = 0;
    assert_int_equal(kvp_estimation_token_count(&in, &t, &err), KVP_CONFIG);
    in = base();
    in.engine_batch_size = UINT64_MAX / 2;
    in.max_beam_width = 8;
    assert_int_equal(kvp_estimation_token_count(&in, &t, &err), KVP_OVERFLOW);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(v1_llama),
        cmocka_unit_test(v2_spec_adp),
        cmocka_unit_test(mla_profile),
        cmocka_unit_test(bad_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
