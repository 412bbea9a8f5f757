/* test_admission.c — the engines' admission rules (src/pipeline/admission.c,
 * docs/admission.md), every figure worked by hand below.
 *
 * Llama-3.1-8B, bf16 KV: 32 layers x 8 KV heads x 128 dims x 2 (K, V) x 2 bytes
 * = 131,072 B per token. TensorRT-LLM, 32 tokens per block: 4 MiB per block, so a
 * 1 GiB KV budget is 256 blocks (8,192 tokens). vLLM, 16 tokens per block: 2 MiB
 * per block, 1 GiB = 512 blocks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kvplan/deploy.h"
#include "pipeline/admission.h"

#define GiB (1024ull * 1024 * 1024)

static kvp_model *g_llama;

static int setup(void **state) {
    (void)state;
    return kvp_model_from_catalog("llama-3.1-8b", NULL, &g_llama, NULL) == KVP_OK ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    kvp_model_free(g_llama);
    g_llama = NULL;
    return 0;
}

/* A TensorRT-LLM deployment of Llama-3.1-8B on a 1 GiB KV budget. */
static kvp_deployment trt(uint64_t max_seq_len) {
    kvp_deployment d = kvp_deployment_default();
    d.model = g_llama;
    d.point.max_seq_len = max_seq_len;
    d.memory.kv_budget_bytes = GiB;
    return d;
}

static kvp_deploy_result *plan(const kvp_deployment *d) {
    kvp_deploy_result *r = kvp_deploy_result_new();
    assert_non_null(r);
    kvp_error err;
    kvp_error_clear(&err);
    assert_int_equal(kvp_deploy_plan(d, r, &err), KVP_OK);
    return r;
}

/* The deployment is planned and starts, but its requests are refused with `status`,
 * naming `key`; `text` in the message. */
static void refused(const kvp_deployment *d, kvp_status status, const char *key, const char *text) {
    kvp_deploy_result *r = plan(d);
    assert_int_equal(r->status, KVP_OK);
    assert_true(r->starts);
    assert_int_equal(r->admission.status, status);
    assert_false(r->admission.present);
    assert_string_equal(r->admission.key, key);
    if (text) assert_non_null(strstr(r->admission.refused, text));
    kvp_deploy_result_free(r);
}

/* ------------------------------------------------------------ arithmetic */

static void test_reserve_blocks(void **state) {
    (void)state;
    uint64_t n = 0;
    /* P 1000 + N 500 = 1500 tokens: ceil(1500 / 32) = 47 blocks. */
    assert_true(kvp__reserve_blocks(1000, 1500, 0, 32, 1, &n));
    assert_int_equal(n, 47);
    /* Beam 2: floor(1000 / 32) = 31 context blocks once, (47 - 31) = 16 x 2 = 32. */
    assert_true(kvp__reserve_blocks(1000, 1500, 0, 32, 2, &n));
    assert_int_equal(n, 63);
    /* A 4096 window caps the reservation: ceil(min(6000, 4096) / 32) = 128. */
    assert_true(kvp__reserve_blocks(1000, 6000, 4096, 32, 1, &n));
    assert_int_equal(n, 128);
    /* Window below the prompt, beam 3: context floor(min(5000, 4096) / 32) = 128,
     * total ceil(4096 / 32) = 128: nothing per beam, 128. */
    assert_true(kvp__reserve_blocks(5000, 6000, 4096, 32, 3, &n));
    assert_int_equal(n, 128);
    /* Nonsense: fewer total tokens than prompt, zero block size. */
    assert_false(kvp__reserve_blocks(10, 5, 0, 32, 1, &n));
    assert_false(kvp__reserve_blocks(10, 20, 0, 0, 1, &n));
    /* Overflow is an error, never a wrapped count. */
    assert_false(kvp__reserve_blocks(0, UINT64_MAX, 0, 1, 2, &n));
}

static void test_held_block_steps(void **state) {
    (void)state;
    uint64_t s = 0;
    /* x = 1..5, tpb 2: ceil = 1,1,2,2,3 -> 9. */
    assert_true(kvp__held_block_steps(1, 5, 0, 2, &s));
    assert_int_equal(s, 9);
    /* x = 3..5: 2 + 2 + 3 = 7. */
    assert_true(kvp__held_block_steps(3, 5, 0, 2, &s));
    assert_int_equal(s, 7);
    /* Window 3, x = 1..6, tpb 2: ceil(min(x,3)/2) = 1,1,2,2,2,2 -> 10. */
    assert_true(kvp__held_block_steps(1, 6, 3, 2, &s));
    assert_int_equal(s, 10);
    /* x = 1000..1199, tpb 32: 1000..1024 -> 32 (25 values), 1025..1184 -> 33..37
     * (32 values each), 1185..1199 -> 38 (15 values):
     * 25 x 32 + 32 x (33+34+35+36+37) + 15 x 38 = 800 + 5600 + 570 = 6970. */
    assert_true(kvp__held_block_steps(1000, 1199, 0, 32, &s));
    assert_int_equal(s, 6970);
    assert_false(kvp__held_block_steps(5, 4, 0, 2, &s));
    assert_false(kvp__held_block_steps(0, 4, 0, 2, &s));
}

static void test_steady_state(void **state) {
    (void)state;
    uint64_t n = 0;
    /* 256 blocks, P 1000, O 200, tpb 32: floor(256 x 200 / 6970) = floor(51200 / 6970) = 7
     * (6970 x 7 = 48790 <= 51200 < 55760). */
    assert_true(kvp__steady_state(256, 1000, 200, 0, 32, &n));
    assert_int_equal(n, 7);
    /* vLLM, 512 blocks of 16: x = 1000..1199 -> 1000..1008 are 63 (9 values), 1009..1184 are
     * 64..74 (16 each), 1185..1199 are 75 (15): 567 + 16 x 759 + 1125 = 13836;
     * floor(512 x 200 / 13836) = floor(102400 / 13836) = 7. */
    assert_true(kvp__steady_state(512, 1000, 200, 0, 16, &n));
    assert_int_equal(n, 7);
    assert_false(kvp__steady_state(512, 0, 200, 0, 16, &n));
    assert_false(kvp__steady_state(UINT64_MAX, 1, 2, 0, 16, &n));
}

static void test_policy_names(void **state) {
    (void)state;
    kvp_capacity_policy p = KVP_CAPACITY_DEFAULT;
    kvp_error err;
    assert_int_equal(kvp_capacity_policy_parse("guaranteed_no_evict", &p, &err), KVP_OK);
    assert_int_equal(p, KVP_CAPACITY_GUARANTEED_NO_EVICT);
    assert_int_equal(kvp_capacity_policy_parse("MAX_UTILIZATION", &p, &err), KVP_OK);
    assert_int_equal(p, KVP_CAPACITY_MAX_UTILIZATION);
    assert_int_equal(kvp_capacity_policy_parse("STATIC_BATCH", &p, &err), KVP_INVALID_ARG);
    assert_string_equal(err.key, "capacity_scheduler_policy");
    assert_string_equal(kvp_capacity_policy_name(KVP_CAPACITY_MAX_UTILIZATION), "MAX_UTILIZATION");
}

/* ---------------------------------------------------------- TensorRT-LLM */

static void test_trtllm_default_reservation(void **state) {
    (void)state;
    /* No max_new_tokens: the server fills max_seq_len - prompt, so each request reserves
     * max_seq_len = 4096 tokens = 128 blocks; 256 // 128 = 2. */
    kvp_deployment d = trt(4096);
    kvp_deploy_result *r = plan(&d);
    assert_int_equal(r->status, KVP_OK);
    const kvp_admission *a = &r->admission;
    assert_true(a->present);
    assert_true(a->reserves);
    assert_int_equal(a->policy, KVP_CAPACITY_GUARANTEED_NO_EVICT);
    assert_true(a->max_new_tokens_default);
    assert_int_equal(a->reservation_tokens, 4096);
    assert_int_equal(a->reservation_blocks, 128);
    assert_int_equal(a->kv_admitted, 2);
    assert_int_equal(a->admitted, 2);
    assert_false(a->cap_binds);
    /* The scheduler holds max_batch_size (default 2048) requests. */
    assert_int_equal(a->scheduler_capacity, 2048);
    /* The plain fit count at --seq-len 1500 says 5 (256 // ceil(1500/32) = 256 // 47);
     * the reservation is still max_seq_len: admitted stays 2. */
    kvp_deploy_result_free(r);
    d.point.seq_len = 1500;
    r = plan(&d);
    assert_int_equal(r->max_sequences, 5);
    assert_int_equal(r->admission.admitted, 2);
    kvp_deploy_result_free(r);
}

static void test_trtllm_max_new_tokens(void **state) {
    (void)state;
    /* P 1000 + N 500 = 1500 tokens -> 47 blocks; 256 // 47 = 5 (235 blocks). */
    kvp_deployment d = trt(4096);
    d.admission.isl = 1000;
    d.admission.max_new_tokens = 500;
    kvp_deploy_result *r = plan(&d);
    assert_int_equal(r->status, KVP_OK);
    assert_int_equal(r->admission.reservation_tokens, 1500);
    assert_int_equal(r->admission.reservation_blocks, 47);
    assert_int_equal(r->admission.admitted, 5);
    assert_false(r->admission.max_new_tokens_default);
    kvp_deploy_result_free(r);
    /* Beam 2: 31 context blocks + 16 x 2 = 63; 256 // 63 = 4. */
    d.trtllm.max_beam_width = 2;
    r = plan(&d);
    assert_int_equal(r->admission.reservation_blocks, 63);
    assert_int_equal(r->admission.admitted, 4);
    kvp_deploy_result_free(r);
    /* Beam 2 without a prompt length: the reservation is unknown, refused by name. */
    d.admission.isl = 0;
    d.admission.max_new_tokens = 0;
    r = plan(&d);
    assert_int_equal(r->status, KVP_OK);
    assert_false(r->admission.present);
    assert_non_null(strstr(r->admission.refused, "--isl"));
    kvp_deploy_result_free(r);
}

static void test_trtllm_slot_cap(void **state) {
    (void)state;
    /* 5 reservations fit, max_batch_size 3: the scheduler binds at 3. */
    kvp_deployment d = trt(4096);
    d.admission.isl = 1000;
    d.admission.max_new_tokens = 500;
    d.point.max_batch_size = 3;
    kvp_deploy_result *r = plan(&d);
    assert_int_equal(r->admission.kv_admitted, 5);
    assert_int_equal(r->admission.admitted, 3);
    assert_true(r->admission.cap_binds);
    kvp_deploy_result_free(r);
    /* PP 2: 16 layers per rank, 65,536 B per token, 2 MiB per block, 512 blocks;
     * 512 // 47 = 10 reservations; scheduler capacity 3 x 2 = 6. */
    d.point.pp = 2;
    r = plan(&d);
    assert_int_equal(r->admission.kv_admitted, 10);
    assert_int_equal(r->admission.scheduler_capacity, 6);
    assert_int_equal(r->admission.seq_slots, 6);
    assert_int_equal(r->admission.admitted, 6);
    kvp_deploy_result_free(r);
}

static void test_trtllm_max_utilization(void **state) {
    (void)state;
    /* Nothing reserved: P 1000, O 200 staggered hold 6970 / 200 blocks on average;
     * floor(256 x 200 / 6970) = 7 run at once. */
    kvp_deployment d = trt(4096);
    d.admission.isl = 1000;
    d.admission.osl = 200;
    d.admission.policy = KVP_CAPACITY_MAX_UTILIZATION;
    kvp_deploy_result *r = plan(&d);
    assert_int_equal(r->status, KVP_OK);
    assert_false(r->admission.reserves);
    assert_true(r->admission.has_steady_state);
    assert_int_equal(r->admission.steady_state, 7);
    assert_int_equal(r->admission.admitted, 7);
    kvp_deploy_result_free(r);
    /* GUARANTEED_NO_EVICT with the same workload and the server's default max_new_tokens
     * reserves 4096 tokens each: 2, while the steady state without reservation is 7. */
    d.admission.policy = KVP_CAPACITY_DEFAULT;
    r = plan(&d);
    assert_int_equal(r->admission.admitted, 2);
    assert_int_equal(r->admission.steady_state, 7);
    kvp_deploy_result_free(r);
}

static void test_trtllm_bad_shapes(void **state) {
    (void)state;
    kvp_deployment d = trt(4096);
    /* A prompt longer than max_seq_len. */
    d.admission.isl = 5000;
    refused(&d, KVP_INVALID_ARG, "isl", "5000");
    /* max_new_tokens above max_seq_len. */
    d.admission.isl = 100;
    d.admission.max_new_tokens = 5000;
    refused(&d, KVP_INVALID_ARG, "max_new_tokens", "above max_seq_len 4096");
    /* 1000 + 3500 = 4500 > 4096. */
    d.admission.isl = 1000;
    d.admission.max_new_tokens = 3500;
    refused(&d, KVP_INVALID_ARG, "max_new_tokens", "4500");
    /* max_new_tokens without the prompt under a reservation. */
    d.admission.isl = 0;
    d.admission.max_new_tokens = 100;
    refused(&d, KVP_INVALID_ARG, "isl", "--isl");
    /* An output longer than max_new_tokens lets a request generate. */
    d.admission.isl = 1000;
    d.admission.osl = 200;
    refused(&d, KVP_INVALID_ARG, "osl", "max_new_tokens 100");
}

static void test_trtllm_never_admitted(void **state) {
    (void)state;
    /* max_seq_len 16384 on 256 blocks: the engine adopts 8192. A request of 1000 + 9000
     * = 10000 tokens reserves ceil(10000 / 32) = 313 blocks > 256: never admitted;
     * the largest reservation that fits is 256 x 32 = 8192 tokens. */
    kvp_deployment d = trt(16384);
    d.admission.isl = 1000;
    d.admission.max_new_tokens = 9000;
    refused(&d, KVP_INFEASIBLE, "max_new_tokens",
            "largest prompt + max_new_tokens that fits is 8192");
    /* 1000 + 7192 = 8192 tokens: 256 blocks, exactly one request. */
    d.admission.max_new_tokens = 7192;
    kvp_deploy_result *r = plan(&d);
    assert_int_equal(r->status, KVP_OK);
    assert_int_equal(r->admission.admitted, 1);
    kvp_deploy_result_free(r);
    /* A prompt past the adopted 8192 but within the asked 16384. */
    d.admission.isl = 9000;
    d.admission.max_new_tokens = 0;
    refused(&d, KVP_INFEASIBLE, "isl", "at most 8192 tokens");
}

/* -------------------------------------------------------------- policies */

static void test_vllm_steady_state(void **state) {
    (void)state;
    kvp_deployment d = kvp_deployment_default();
    d.model = g_llama;
    d.point.engine = KVP_ENGINE_VLLM;
    d.point.max_seq_len = 4096;
    d.memory.kv_budget_bytes = GiB;
    kvp_deploy_result *r = plan(&d);
    assert_int_equal(r->status, KVP_OK);
    /* No workload: the log's figure, 512 blocks // (4096 / 16 = 256) = 2. */
    assert_int_equal(r->report.num_gpu_blocks, 512);
    assert_false(r->admission.reserves);
    assert_false(r->admission.has_steady_state);
    assert_int_equal(r->admission.admitted, 2);
    assert_int_equal(r->admission.scheduler_capacity, 256);
    kvp_deploy_result_free(r);
    /* P 1000, O 200: floor(512 x 200 / 13836) = 7. */
    d.admission.isl = 1000;
    d.admission.osl = 200;
    r = plan(&d);
    assert_true(r->admission.has_steady_state);
    assert_int_equal(r->admission.steady_state, 7);
    assert_int_equal(r->admission.admitted, 7);
    kvp_deploy_result_free(r);
    /* A capacity_scheduler_policy is TensorRT-LLM's: refused by name. */
    d.admission.policy = KVP_CAPACITY_MAX_UTILIZATION;
    refused(&d, KVP_INVALID_ARG, "capacity_scheduler_policy", "vllm");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reserve_blocks),
        cmocka_unit_test(test_held_block_steps),
        cmocka_unit_test(test_steady_state),
        cmocka_unit_test(test_policy_names),
        cmocka_unit_test(test_trtllm_default_reservation),
        cmocka_unit_test(test_trtllm_max_new_tokens),
        cmocka_unit_test(test_trtllm_slot_cap),
        cmocka_unit_test(test_trtllm_max_utilization),
        cmocka_unit_test(test_trtllm_bad_shapes),
        cmocka_unit_test(test_trtllm_never_admitted),
        cmocka_unit_test(test_vllm_steady_state),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
