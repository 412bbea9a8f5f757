/* test_sim_run.c — the simulator on workloads small enough to follow step
 * by step; each expected figure is derived in the comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "kvplan/sim.h"

static kvp_sim_config config(uint32_t blocks, bool reuse, uint32_t batch) {
    kvp_sim_config c;
    memset(&c, 0, sizeof c);
    c.pool.pool_count = 1;
    c.pool.pools[0] = (kvp_pool_spec){.kind = KVP_CACHE_FULL, .tokens_per_block = 16,
                                      .page_bytes = 1, .blocks = blocks};
    c.pool.prefix_reuse = reuse;
    c.max_batch_size = batch;
    c.max_num_tokens = 256;
    c.max_model_len = 1024;
    return c;
}

static kvp_workload *synthetic(const char *spec) {
    kvp_synthetic_spec s;
    kvp_error err;
    if (kvp_synthetic_parse(spec, &s, &err) != KVP_OK) fail_msg("%s", err.message);
    kvp_workload *w = NULL;
    assert_int_equal(kvp_workload_synthetic(&s, NULL, &w, &err), KVP_OK);
    return w;
}

/* The golden case (tests/golden/sim_shared_prefix): 8 requests of 48
 * prompt tokens (the first 32 shared by all) and 16 output tokens; 64
 * blocks of 16 tokens, batch 4, 256 tokens per step, max_model_len 1024.
 *   step 0: admit r0..r3 (batch cap). r0 matches nothing and computes 48
 *     tokens = 3 blocks, naming blocks 0, 1 (the prefix); r1..r3 each match
 *     those 2 blocks (32 tokens: (48-1)/16 = 2 blocks looked up) and compute
 *     16 tokens = 1 block. 6 blocks used. Each samples its first token.
 *   steps 1..15: one token each; position 48 (step 1) opens a 4th block:
 *     2 shared + 4 x 2 own = 10 blocks. Output 16 is reached at step 15.
 *   step 16: r4..r7 admitted, each hits the 32 cached prefix tokens; they
 *     finish at step 31. Steps = 32, 4 running in every step.
 *   hit rate = 7 x 32 / (8 x 48) = 224 / 384 = 58.3 %.
 *   computed = prompts 8 x 48 - 224 hit = 160, plus 8 x 15 decode
 *     tokens (the 16th sampled token is never written) = 280.
 *   promised = 64 blocks / ceil(1024 / 16) = 1 sequence of max_model_len. */
static void test_shared_prefix_by_hand(void **state) {
    (void)state;
    kvp_workload *w = synthetic("requests=8,prompt=fixed:48,output=fixed:16,shared_prefix=32:1,seed=1");
    kvp_sim_config c = config(64, true, 4);
    kvp_sim_result r;
    kvp_error err;
    assert_int_equal(kvp_sim_run(&c, w, NULL, &r, &err), KVP_OK);
    assert_int_equal(r.requests, 8);
    assert_int_equal(r.finished, 8);
    assert_int_equal(r.steps, 32);
    assert_int_equal(r.peak_running, 4);
    assert_true(r.mean_running == 4.0);
    assert_int_equal(r.prefix_hit_tokens, 224);
    assert_int_equal(r.prefix_query_tokens, 384);
    assert_int_equal(r.peak_blocks_used, 10);
    assert_int_equal(r.total_blocks, 64);
    assert_int_equal(r.computed_tokens, 280);
    assert_int_equal(r.preemptions, 0);
    assert_int_equal(r.promised_max_sequences, 1);
    assert_int_equal(r.output_tokens, 128);
    /* Samples every step: 6/64 at steps 0 and 16, 10/64 otherwise. */
    assert_int_equal(r.samples, 32);
    assert_true(r.utilization[0] == 6.0 / 64);
    assert_true(r.utilization[1] == 10.0 / 64);
    assert_true(r.utilization[16] == 6.0 / 64);
    /* Without reuse every request computes its whole prompt: 8 x 48 +
     * 8 x 15 = 504 tokens, no hits. */
    c.pool.prefix_reuse = false;
    assert_int_equal(kvp_sim_run(&c, w, NULL, &r, &err), KVP_OK);
    assert_int_equal(r.prefix_hit_tokens, 0);
    assert_int_equal(r.computed_tokens, 504);
    assert_int_equal(r.steps, 32);
    kvp_workload_free(w);
}

/* Preemption: 2 requests of 16 prompt + 40 output tokens (55 tokens, 4
 * blocks each) in 7 blocks, no reuse.
 *   step 0: both compute 16 tokens (1 block each).
 *   steps 1, 17: both open a block (positions 16, 32): 6 used.
 *   step 33: r0 takes block 7 (position 48); r1 finds none: r1 is the
 *     newest, it preempts itself (3 blocks back, 33 tokens generated).
 *   steps 34..39: r1 (49 tokens = 4 blocks) cannot be admitted beside r0's
 *     4 blocks; r0 finishes at step 39 (40 tokens after 40 steps).
 *   step 40: r1 recomputes 49 tokens in one chunk and samples token 34;
 *     steps 41..46 bring it to 40. Steps = 47.
 *   running: 2 in steps 0..32 (33 steps), 1 in steps 33..46 (14 steps):
 *     mean = (66 + 14) / 47.
 *   computed: r0 55; r1 48 before preemption + 49 + 6 = 103; total 158. */
static void test_preemption_by_hand(void **state) {
    (void)state;
    kvp_workload *w = synthetic("requests=2,prompt=fixed:16,output=fixed:40");
    kvp_sim_config c = config(7, false, 2);
    kvp_sim_result r;
    kvp_error err;
    assert_int_equal(kvp_sim_run(&c, w, NULL, &r, &err), KVP_OK);
    assert_int_equal(r.finished, 2);
    assert_int_equal(r.preemptions, 1);
    assert_int_equal(r.steps, 47);
    assert_int_equal(r.peak_running, 2);
    assert_true(r.mean_running > 80.0 / 47 - 1e-12 && r.mean_running < 80.0 / 47 + 1e-12);
    assert_int_equal(r.computed_tokens, 158);
    assert_int_equal(r.peak_blocks_used, 7);
    assert_int_equal(r.output_tokens, 80);
    /* With reuse, r1 finds its own 3 full blocks cached on re-admission:
     * (49-1)/16 = 3 blocks looked up, all hit: 48 of its 49 tokens. */
    c.pool.prefix_reuse = true;
    assert_int_equal(kvp_sim_run(&c, w, NULL, &r, &err), KVP_OK);
    assert_int_equal(r.preemptions, 1);
    assert_int_equal(r.prefix_hit_tokens, 48);
    assert_int_equal(r.prefix_query_tokens, 16 + 16 + 49);
    kvp_workload_free(w);
}

/* Rejections: max_model_len 1024 refuses a 2000-token prompt; a request of
 * 900 + 200 tokens (output cut to 1024 - 900 + 1 = 125, 1023 tokens = 64
 * blocks) cannot fit 32 blocks: counted, not looped on. */
static void test_rejections(void **state) {
    (void)state;
    const char *text = "{\"prompt_len\": 2000, \"output_len\": 5}\n"
                       "{\"prompt_len\": 900, \"output_len\": 200}\n"
                       "{\"prompt_len\": 10, \"output_len\": 3}\n";
    kvp_workload *w = NULL;
    assert_int_equal(kvp_workload_parse(text, strlen(text), "t.jsonl", NULL, NULL, &w, NULL),
                     KVP_OK);
    kvp_sim_config c = config(32, true, 8);
    kvp_sim_result r;
    assert_int_equal(kvp_sim_run(&c, w, NULL, &r, NULL), KVP_OK);
    assert_int_equal(r.rejected_too_long, 1);
    assert_int_equal(r.rejected_never_fit, 1);
    assert_int_equal(r.finished, 1);
    assert_int_equal(r.steps, 3); /* prefill + 2 decode steps */
    kvp_workload_free(w);
}

/* Arrivals: two requests 100 steps apart; the idle gap is skipped. Each
 * runs 1 prefill + 4 decode steps: 10 steps in all, never 2 at once. */
static void test_arrivals_skip_idle(void **state) {
    (void)state;
    const char *text = "{\"arrival\": 0, \"prompt_len\": 8, \"output_len\": 5}\n"
                       "{\"arrival\": 100, \"prompt_len\": 8, \"output_len\": 5}\n";
    kvp_workload *w = NULL;
    assert_int_equal(kvp_workload_parse(text, strlen(text), "t.jsonl", NULL, NULL, &w, NULL),
                     KVP_OK);
    kvp_sim_config c = config(32, true, 8);
    kvp_sim_result r;
    assert_int_equal(kvp_sim_run(&c, w, NULL, &r, NULL), KVP_OK);
    assert_int_equal(r.steps, 10);
    assert_int_equal(r.peak_running, 1);
    kvp_workload_free(w);
}

/* Chunked prefill: a 600-token prompt with 256 tokens per step takes 3
 * steps (256 + 256 + 88); a second 200-token prompt uses what is left. */
static void test_chunked_prefill(void **state) {
    (void)state;
    const char *text = "{\"prompt_len\": 600, \"output_len\": 1}\n"
                       "{\"prompt_len\": 200, \"output_len\": 1}\n";
    kvp_workload *w = NULL;
    assert_int_equal(kvp_workload_parse(text, strlen(text), "t.jsonl", NULL, NULL, &w, NULL),
                     KVP_OK);
    kvp_sim_config c = config(128, false, 8);
    kvp_sim_result r;
    /* Chunked: step 0: r0 256; step 1: r0 256; step 2: r0 88 (done, samples
     * its only token) + r1 168; step 3: r1 32. 4 steps. */
    assert_int_equal(kvp_sim_run(&c, w, NULL, &r, NULL), KVP_OK);
    assert_int_equal(r.steps, 4);
    assert_int_equal(r.finished, 2);
    /* Unchunked: r0 (600 > 256 per step) can never be scheduled whole:
     * rejected on arrival; r1 runs whole in step 0 and is done. */
    c.no_chunked_prefill = true;
    assert_int_equal(kvp_sim_run(&c, w, NULL, &r, NULL), KVP_OK);
    assert_int_equal(r.rejected_never_fit, 1);
    assert_int_equal(r.steps, 1);
    kvp_workload_free(w);
}

/* Prompts given as ids: two requests with the same 40 ids, the second
 * arriving after the first finished: (40-1)/16 = 2 blocks looked up, both
 * cached: 32 of its 40 tokens hit. A third request differs in its first id
 * and hits nothing. */
static void test_prompt_tokens_share(void **state) {
    (void)state;
    char text[4096];
    size_t n = 0;
    for (int r = 0; r < 3; r++) {
        n += (size_t)snprintf(text + n, sizeof text - n, "{\"arrival\": %d, \"prompt_tokens\": [",
                              r * 10);
        for (int i = 0; i < 40; i++)
            n += (size_t)snprintf(text + n, sizeof text - n, "%s%d", i ? "," : "",
                                  (r == 2 && i == 0) ? 999 : 100 + i);
        n += (size_t)snprintf(text + n, sizeof text - n, "], \"output_len\": 2}\n");
    }
    kvp_workload *w = NULL;
    assert_int_equal(kvp_workload_parse(text, n, "t.jsonl", NULL, NULL, &w, NULL), KVP_OK);
    kvp_sim_config c = config(64, true, 4);
    kvp_sim_result r;
    assert_int_equal(kvp_sim_run(&c, w, NULL, &r, NULL), KVP_OK);
    assert_int_equal(r.prefix_hit_tokens, 32);
    assert_int_equal(r.prefix_query_tokens, 120);
    assert_int_equal(r.finished, 3);
    kvp_workload_free(w);
}

/* A hybrid model: full attention beside a recurrent state. A prefix hit
 * needs a snapshot of the state at the prefix; the simulator takes one when
 * a sharing request's prefill reaches the prefix's last block boundary.
 * 4 requests of 48 tokens sharing 32, output 2, batch 1 (one at a time):
 * r0 computes 32 (stopping at the boundary: snapshot), then 16; r1..r3 each
 * find 2 full blocks and the snapshot at 32 tokens: 3 x 32 = 96 hit of
 * 4 x 48 = 192. Without the recurrent pool's snapshot slots (1 slot: the
 * running request's own) no snapshot fits and nothing hits. */
static void test_hybrid_snapshots(void **state) {
    (void)state;
    kvp_workload *w = synthetic("requests=4,prompt=fixed:48,output=fixed:2,shared_prefix=32:1");
    kvp_sim_config c = config(64, true, 1);
    c.pool.pool_count = 2;
    c.pool.pools[1] = (kvp_pool_spec){.kind = KVP_CACHE_RECURRENT, .page_bytes = 1, .blocks = 2};
    kvp_sim_result r;
    assert_int_equal(kvp_sim_run(&c, w, NULL, &r, NULL), KVP_OK);
    assert_int_equal(r.prefix_hit_tokens, 96);
    assert_int_equal(r.prefix_query_tokens, 192);
    assert_int_equal(r.finished, 4);
    c.pool.pools[1].blocks = 1;
    assert_int_equal(kvp_sim_run(&c, w, NULL, &r, NULL), KVP_OK);
    assert_int_equal(r.prefix_hit_tokens, 0);
    assert_int_equal(r.finished, 4);
    kvp_workload_free(w);
}

/* A sliding-window pool (window 32) beside a full one: a 200-token decode
 * holds at most ceil(31/16) + 1 = 3 sliding blocks, while the full pool
 * grows to ceil(215/16) = 14. The busiest pool (full, 14 of 64) is the one
 * reported. */
static void test_sliding_pool_sim(void **state) {
    (void)state;
    kvp_workload *w = synthetic("requests=1,prompt=fixed:16,output=fixed:200");
    kvp_sim_config c = config(64, true, 4);
    c.pool.pool_count = 2;
    c.pool.pools[1] = (kvp_pool_spec){.kind = KVP_CACHE_SLIDING, .window_tokens = 32,
                                      .tokens_per_block = 16, .page_bytes = 1, .blocks = 64};
    kvp_sim_result r;
    assert_int_equal(kvp_sim_run(&c, w, NULL, &r, NULL), KVP_OK);
    assert_int_equal(r.finished, 1);
    assert_int_equal(r.peak_blocks_used, 14);
    assert_int_equal(r.steps, 200);
    /* Give the sliding pool only 3 blocks: still enough. */
    c.pool.pools[1].blocks = 3;
    assert_int_equal(kvp_sim_run(&c, w, NULL, &r, NULL), KVP_OK);
    assert_int_equal(r.finished, 1);
    assert_int_equal(r.preemptions, 0);
    kvp_workload_free(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_prefix_by_hand),
        cmocka_unit_test(test_preemption_by_hand),
        cmocka_unit_test(test_rejections),
        cmocka_unit_test(test_arrivals_skip_idle),
        cmocka_unit_test(test_chunked_prefill),
        cmocka_unit_test(test_prompt_tokens_share),
        cmocka_unit_test(test_hybrid_snapshots),
        cmocka_unit_test(test_sliding_pool_sim),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
