/* test_sim_policy.c — `kvplan sim --policy`: each engine's admission and
 * preemption on workloads small enough to follow step by step (sim.h's
 * kvp_sim_policy); each expected figure is derived in the comments.
 *
 * One full pool of 16-token blocks, no prefix reuse, 256 tokens per step,
 * max_model_len 1024. Four requests arrive at step 0 with 32 prompt and 17
 * output tokens: each holds at most 32 + 17 - 1 = 48 tokens = 3 blocks. A
 * request prefills at step 0 (sampling its 1st token) and samples one token a
 * step after, so it finishes at step 16 after 17 steps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kvplan/sim.h"

static kvp_workload *g_four;

static int setup(void **state) {
    (void)state;
    kvp_synthetic_spec s;
    kvp_error err;
    if (kvp_synthetic_parse("requests=4,prompt=fixed:32,output=fixed:17,seed=1", &s, &err))
        return -1;
    return kvp_workload_synthetic(&s, NULL, &g_four, &err) == KVP_OK ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    kvp_workload_free(g_four);
    return 0;
}

static kvp_sim_result run(kvp_sim_policy policy, uint32_t blocks, uint32_t batch,
                          uint64_t max_new_tokens) {
    kvp_sim_config c;
    memset(&c, 0, sizeof c);
    c.pool.pool_count = 1;
    c.pool.pools[0] = (kvp_pool_spec){.kind = KVP_CACHE_FULL, .tokens_per_block = 16,
                                      .page_bytes = 1, .blocks = blocks};
    c.max_batch_size = batch;
    c.max_num_tokens = 256;
    c.max_model_len = 1024;
    c.policy = policy;
    c.max_new_tokens = max_new_tokens;
    kvp_sim_result r;
    kvp_error err;
    assert_int_equal(kvp_sim_run(&c, g_four, NULL, &r, &err), KVP_OK);
    return r;
}

static void test_policy_parse(void **state) {
    (void)state;
    kvp_sim_policy p = KVP_SIM_VLLM;
    kvp_error err;
    assert_int_equal(kvp_sim_policy_parse("trtllm", &p, &err), KVP_OK);
    assert_int_equal(p, KVP_SIM_TRTLLM);
    assert_int_equal(kvp_sim_policy_parse("TRTLLM-MAX-UTILIZATION", &p, &err), KVP_OK);
    assert_int_equal(p, KVP_SIM_TRTLLM_MAX_UTILIZATION);
    assert_int_equal(kvp_sim_policy_parse("sglang", &p, &err), KVP_OK);
    assert_int_equal(p, KVP_SIM_SGLANG);
    assert_string_equal(kvp_sim_policy_name(p), "sglang");
    assert_string_equal(kvp_sim_policy_name(KVP_SIM_VLLM), "vllm");
    assert_int_equal(kvp_sim_policy_parse("llamacpp", &p, &err), KVP_INVALID_ARG);
    assert_string_equal(err.key, "policy");
}

/* GUARANTEED_NO_EVICT, max_new_tokens 32: each reserves ceil((32 + 32) / 16) = 4 blocks;
 * 4 x 4 = 16 <= 20, all four run from step 0 and finish at step 16: 17 steps. */
static void test_trtllm_all_fit(void **state) {
    (void)state;
    kvp_sim_result r = run(KVP_SIM_TRTLLM, 20, 8, 32);
    assert_int_equal(r.finished, 4);
    assert_int_equal(r.steps, 17);
    assert_int_equal(r.peak_running, 4);
    assert_int_equal(r.preemptions, 0);
    assert_int_equal(r.waiting_steps, 0);
}

/* max_new_tokens 128: ceil(160 / 16) = 10 blocks each, 20 // 10 = 2 at once although
 * the four would hold 4 x 3 = 12 blocks. r0, r1 run steps 0..16; r2 waits first in line
 * (FCFS: the misfit stops admission) with r3 behind it; r2, r3 run steps 17..33: 34
 * steps, 2 running in each, 17 steps with requests waiting, all for the KV cache
 * (batch 8 not full, budget left). */
static void test_trtllm_reservation_binds(void **state) {
    (void)state;
    kvp_sim_result r = run(KVP_SIM_TRTLLM, 20, 8, 128);
    assert_int_equal(r.finished, 4);
    assert_int_equal(r.steps, 34);
    assert_int_equal(r.peak_running, 2);
    assert_true(r.mean_running == 2.0);
    assert_int_equal(r.preemptions, 0);
    assert_int_equal(r.waiting_steps, 17);
    assert_int_equal(r.kv_bound_steps, 17);
    assert_int_equal(r.cap_bound_steps, 0);
    /* vLLM reserves nothing: the four hold 12 blocks at most, all run at once: 17 steps. */
    r = run(KVP_SIM_VLLM, 20, 8, 128);
    assert_int_equal(r.steps, 17);
    assert_int_equal(r.peak_running, 4);
}

/* The server's default max_new_tokens = 1024 - 32 = 992: a reservation of 1024 tokens =
 * 64 blocks can never fit 20: all four are rejected, none loops. */
static void test_trtllm_default_never_fits(void **state) {
    (void)state;
    kvp_sim_result r = run(KVP_SIM_TRTLLM, 20, 8, 0);
    assert_int_equal(r.rejected_never_fit, 4);
    assert_int_equal(r.finished, 0);
}

/* Batch cap 1: one request at a time, 4 x 17 = 68 steps; requests wait in steps 0..50
 * (r3 starts at 51): 51 steps, all bound by the cap. */
static void test_trtllm_cap_binds(void **state) {
    (void)state;
    kvp_sim_result r = run(KVP_SIM_TRTLLM, 20, 1, 32);
    assert_int_equal(r.steps, 68);
    assert_int_equal(r.peak_running, 1);
    assert_int_equal(r.waiting_steps, 51);
    assert_int_equal(r.cap_bound_steps, 51);
    assert_int_equal(r.kv_bound_steps, 0);
}

/* vLLM on 10 blocks: step 0 admits all four (2 blocks each = 8). Step 1 each writes token
 * 33 and needs a 3rd block: r0, r1 take the 2 free; r2 is short, so the newest (r3) is
 * preempted (2 blocks back) and r2 gets one; nothing is admitted in that step. r3 has
 * 1 token sampled; it can come back only when r0..r2 (9 blocks) finish at step 16: at
 * step 17 it recomputes 32 + 1 tokens and samples tokens 2..17 in steps 17..32: 33
 * steps. TRT-LLM MAX_UTILIZATION pauses the newest the same way. */
static void test_vllm_preemption(void **state) {
    (void)state;
    kvp_sim_result r = run(KVP_SIM_VLLM, 10, 8, 0);
    assert_int_equal(r.finished, 4);
    assert_int_equal(r.preemptions, 1);
    assert_int_equal(r.steps, 33);
    assert_int_equal(r.peak_running, 4);
    /* Recomputation: 4 x 32 prompt + 33 again + 4 x 16 decode tokens - 1 (r3's first
     * decode token is part of the 33) = 128 + 33 + 63 = 224. */
    assert_int_equal(r.computed_tokens, 224);
    kvp_sim_result m = run(KVP_SIM_TRTLLM_MAX_UTILIZATION, 10, 8, 0);
    assert_int_equal(m.preemptions, 1);
    assert_int_equal(m.steps, 33);
}

/* SGLang on 10 blocks = 160 tokens, max_new_tokens 32: a new request needs 32 + 32 = 64
 * tokens. Step 0: r0 (160 -> 96), r1 (96 -> 32); r2 needs 64 > 32: stop. From step 1 the
 * room is the free tokens minus new_token_ratio x 2 x remaining output; at step 1: 6 free
 * blocks = 96 - 2 x 0.699 x 31 = 52.7 < 64, and the room only shrinks while r0, r1 grow
 * (free blocks fall faster than the reserve). r2, r3 start when r0, r1 finish (step 17):
 * 34 steps, 2 at once, no retraction. */
static void test_sglang_decode_reserve(void **state) {
    (void)state;
    kvp_sim_result r = run(KVP_SIM_SGLANG, 10, 8, 32);
    assert_int_equal(r.finished, 4);
    assert_int_equal(r.steps, 34);
    assert_int_equal(r.peak_running, 2);
    assert_int_equal(r.preemptions, 0);
    /* Default max_new_tokens 992 (clipped at 4096: 992): 32 + 992 = 1024 tokens > 160 on an
     * empty server: never admitted, counted, not looped on. */
    r = run(KVP_SIM_SGLANG, 10, 8, 0);
    assert_int_equal(r.rejected_never_fit, 4);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_policy_parse),
        cmocka_unit_test(test_trtllm_all_fit),
        cmocka_unit_test(test_trtllm_reservation_binds),
        cmocka_unit_test(test_trtllm_default_never_fits),
        cmocka_unit_test(test_trtllm_cap_binds),
        cmocka_unit_test(test_vllm_preemption),
        cmocka_unit_test(test_sglang_decode_reserve),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
