/* test_fit_boundary.c — `kvplan fit` over the real planner, at the exact
 * boundary: the answer fits, one more does not, and the binding constraint is
 * named. KV budgets are given directly so every expected value follows from
 * the model's geometry by hand (no memory estimate in the way). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kvplan/fit.h"

#define GIB (1ull << 30)
#define MIB (1ull << 20)

static kvp_model *g_llama;

static int setup(void **state) {
    (void)state;
    kvp_error err;
    return kvp_model_open("llama-3.1-8b", NULL, &g_llama, &err) == KVP_OK ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    kvp_model_free(g_llama);
    return 0;
}

static kvp_fit_env env_budget(const kvp_model *m, uint64_t budget) {
    kvp_fit_env env;
    memset(&env, 0, sizeof env);
    env.model = m;
    env.memory.kv_budget_bytes = budget;
    env.policy = kvp_policy_settings_default();
    return env;
}

/* Evaluate one point and ask whether it serves `n` sequences. */
static bool serves_at(const kvp_fit_env *env, kvp_engine engine, uint64_t len, uint64_t n,
                      char *why, size_t why_size) {
    kvp_fit_point p;
    memset(&p, 0, sizeof p);
    p.engine = engine;
    p.max_seq_len = len;
    kvp_fit_eval *e = calloc(1, sizeof *e);
    assert_non_null(e);
    assert_int_equal(kvp_fit_evaluate(env, &p, e, NULL), KVP_OK);
    bool ok = kvp_fit_serves(e, n, why, why_size);
    free(e);
    return ok;
}

/* Llama-3.1-8B, bf16 KV: 2 (K,V) * 32 layers * 8 heads * 128 dims * 2 B
 * = 131,072 B per token; a 32-token block = 4 MiB. A 40 GiB budget holds
 * 40 GiB / 4 MiB = 10,240 blocks; 16 sequences get 640 blocks = 20,480
 * tokens each. 20,481 tokens need 641 blocks: 16 * 641 = 10,256 > 10,240. */
static void test_max_seq_len_trtllm(void **state) {
    (void)state;
    kvp_fit_env env = env_budget(g_llama, 40 * GIB);
    kvp_fit_request req;
    memset(&req, 0, sizeof req);
    req.solve_for = KVP_FIT_MAX_SEQ_LEN;
    req.concurrency = 16;
    kvp_fit_answer *a = calloc(1, sizeof *a);
    assert_non_null(a);
    kvp_error err;
    assert_int_equal(kvp_fit_solve(&env, &req, a, &err), KVP_OK);
    assert_true(a->found);
    assert_int_equal(a->value, 20480);
    assert_false(a->at_search_bound);
    assert_non_null(strstr(a->limited_by, "KV budget of pool 'full'"));
    assert_non_null(strstr(a->limited_by, "10240 blocks"));
    assert_int_equal(a->at.point.max_seq_len, 20480);
    assert_int_equal(a->at.blocks, 10240);
    assert_int_equal(a->at.max_sequences, 16);
    /* The boundary, independently: 20,480 serves 16, 20,481 does not. */
    char why[KVP_FIT_REASON_MAX];
    assert_true(serves_at(&env, KVP_ENGINE_TRTLLM, 20480, 16, why, sizeof why));
    assert_false(serves_at(&env, KVP_ENGINE_TRTLLM, 20481, 16, why, sizeof why));
    assert_non_null(strstr(why, "KV budget of pool 'full'"));
    free(a);
}

/* The same at a fixed length: 10,240 blocks / 641 blocks per 20,481-token
 * sequence = 15.97: 15 fit, 16 do not. */
static void test_concurrency_trtllm(void **state) {
    (void)state;
    kvp_fit_env env = env_budget(g_llama, 40 * GIB);
    kvp_fit_request req;
    memset(&req, 0, sizeof req);
    req.solve_for = KVP_FIT_CONCURRENCY;
    req.base.max_seq_len = 20481;
    kvp_fit_answer *a = calloc(1, sizeof *a);
    assert_non_null(a);
    assert_int_equal(kvp_fit_solve(&env, &req, a, NULL), KVP_OK);
    assert_true(a->found);
    assert_int_equal(a->value, 15);
    assert_non_null(strstr(a->limited_by, "KV budget of pool 'full'"));
    free(a);
}

/* vLLM under the same budget: 16-token blocks of 2 MiB, 40 GiB / 2 MiB =
 * 20,480 blocks = 327,680 tokens; at max_model_len 20,480 the log says
 * 327,680 / 20,480 = 16.00x; at 20,481 a request takes ceil(20,481 / 16) =
 * 1,281 blocks and 20,480 / 1,281 = 15.99x: 15 requests. */
static void test_max_seq_len_vllm(void **state) {
    (void)state;
    kvp_fit_env env = env_budget(g_llama, 40 * GIB);
    kvp_fit_request req;
    memset(&req, 0, sizeof req);
    req.solve_for = KVP_FIT_MAX_SEQ_LEN;
    req.base.engine = KVP_ENGINE_VLLM;
    req.concurrency = 16;
    kvp_fit_answer *a = calloc(1, sizeof *a);
    assert_non_null(a);
    assert_int_equal(kvp_fit_solve(&env, &req, a, NULL), KVP_OK);
    assert_true(a->found);
    assert_int_equal(a->value, 20480);
    assert_int_equal(a->at.blocks, 20480);
    char why[KVP_FIT_REASON_MAX];
    assert_true(serves_at(&env, KVP_ENGINE_VLLM, 20480, 16, why, sizeof why));
    assert_false(serves_at(&env, KVP_ENGINE_VLLM, 20481, 16, why, sizeof why));
    free(a);
}

/* 64 MiB = 16 blocks = 512 tokens: one sequence of 512 fits, 513 does not,
 * and the reason says a single sequence is the limit. */
static void test_one_sequence_limit(void **state) {
    (void)state;
    kvp_fit_env env = env_budget(g_llama, 64 * MIB);
    kvp_fit_request req;
    memset(&req, 0, sizeof req);
    req.solve_for = KVP_FIT_MAX_SEQ_LEN;
    kvp_fit_answer *a = calloc(1, sizeof *a);
    assert_non_null(a);
    assert_int_equal(kvp_fit_solve(&env, &req, a, NULL), KVP_OK);
    assert_true(a->found);
    assert_int_equal(a->value, 512);
    assert_non_null(strstr(a->limited_by, "one sequence does not fit"));
    /* 1 MiB holds no 4 MiB block at all: nothing fits, and fit says so. */
    kvp_fit_env tiny = env_budget(g_llama, MIB);
    assert_int_equal(kvp_fit_solve(&tiny, &req, a, NULL), KVP_OK);
    assert_false(a->found);
    assert_non_null(strstr(a->limited_by, "one sequence does not fit"));
    assert_true(a->best[0] != '\0');
    free(a);
}

/* Smallest TP: 8 sequences of 131,072 tokens = 1,048,576 tokens. With a
 * 32 GiB budget per rank a token costs 131,072 / tp B: tp 1 holds 262,144
 * tokens, tp 2 524,288, tp 4 1,048,576 (exactly enough). */
static void test_parallel(void **state) {
    (void)state;
    kvp_fit_env env = env_budget(g_llama, 32 * GIB);
    kvp_fit_request req;
    memset(&req, 0, sizeof req);
    req.solve_for = KVP_FIT_PARALLEL;
    req.base.max_seq_len = 131072;
    req.concurrency = 8;
    req.gpus = 8;
    kvp_fit_answer *a = calloc(1, sizeof *a);
    assert_non_null(a);
    assert_int_equal(kvp_fit_solve(&env, &req, a, NULL), KVP_OK);
    assert_true(a->found);
    assert_int_equal(a->value, 4);
    assert_string_equal(a->value_text, "tp 4 pp 1");
    assert_non_null(strstr(a->limited_by, "tp 2 pp 1: KV budget of pool 'full'"));
    assert_int_equal(a->at.max_sequences, 8);
    /* On 2 GPUs it cannot be done; the best is reported. */
    req.gpus = 2;
    assert_int_equal(kvp_fit_solve(&env, &req, a, NULL), KVP_OK);
    assert_false(a->found);
    assert_non_null(strstr(a->best, "tp 2"));
    free(a);
}

/* KV dtype: 16 sequences of 32,768 = 524,288 tokens. 40 GiB holds 327,680
 * bf16 tokens (10 sequences) and 655,360 fp8 tokens (20): fp8 is needed. */
static void test_kv_dtype(void **state) {
    (void)state;
    kvp_fit_env env = env_budget(g_llama, 40 * GIB);
    kvp_fit_request req;
    memset(&req, 0, sizeof req);
    req.solve_for = KVP_FIT_KV_DTYPE;
    req.base.max_seq_len = 32768;
    req.concurrency = 16;
    kvp_fit_answer *a = calloc(1, sizeof *a);
    assert_non_null(a);
    assert_int_equal(kvp_fit_solve(&env, &req, a, NULL), KVP_OK);
    assert_true(a->found);
    assert_string_equal(a->value_text, "fp8");
    assert_non_null(strstr(a->limited_by, "kv dtype auto"));
    assert_int_equal(a->at.max_sequences, 20);
    free(a);
}

/* A hybrid model with --max-batch-size 8: the recurrent state is reserved
 * for 8 sequences, so 16 at once are bound by the recurrent slots. */
static void test_recurrent_slots(void **state) {
    (void)state;
    kvp_model *m = NULL;
    kvp_error err;
    assert_int_equal(kvp_model_open("nemotron-h-8b-base-8k", NULL, &m, &err), KVP_OK);
    kvp_fit_env env = env_budget(m, 20 * GIB);
    env.trtllm.max_batch_size = 8;
    kvp_fit_request req;
    memset(&req, 0, sizeof req);
    req.solve_for = KVP_FIT_MAX_SEQ_LEN;
    req.concurrency = 16;
    kvp_fit_answer *a = calloc(1, sizeof *a);
    assert_non_null(a);
    assert_int_equal(kvp_fit_solve(&env, &req, a, NULL), KVP_OK);
    assert_false(a->found);
    assert_non_null(strstr(a->limited_by, "recurrent slots"));
    free(a);
    kvp_model_free(m);
}

static void test_bad_arguments(void **state) {
    (void)state;
    kvp_fit_env env = env_budget(g_llama, 0); /* neither budget nor GPU */
    kvp_fit_point p;
    memset(&p, 0, sizeof p);
    kvp_fit_eval *e = calloc(1, sizeof *e);
    assert_non_null(e);
    kvp_error err;
    assert_int_equal(kvp_fit_evaluate(&env, &p, e, &err), KVP_INVALID_ARG);
    /* The library names the settings fields; the CLI maps them to flags. */
    assert_string_equal(err.key, "total_bytes");
    assert_non_null(strstr(err.message, "kv_budget_bytes"));
    /* An unknown dtype is a point that does not plan, not a crash. */
    env.memory.kv_budget_bytes = GIB;
    snprintf(p.kv_dtype, sizeof p.kv_dtype, "fp7");
    assert_int_equal(kvp_fit_evaluate(&env, &p, e, &err), KVP_OK);
    assert_int_equal(e->status, KVP_INVALID_ARG);
    assert_non_null(strstr(e->message, "fp7"));
    free(e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_max_seq_len_trtllm), cmocka_unit_test(test_concurrency_trtllm),
        cmocka_unit_test(test_max_seq_len_vllm),   cmocka_unit_test(test_one_sequence_limit),
        cmocka_unit_test(test_parallel),           cmocka_unit_test(test_kv_dtype),
        cmocka_unit_test(test_recurrent_slots),    cmocka_unit_test(test_bad_arguments),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
