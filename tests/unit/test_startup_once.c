/* test_startup_once.c — the start-up rules evaluated once per plan (issue 12
 * item 9, src/engines/startup_resume.h): after the plan, the pipeline copies
 * from the first pass every row of a rule that reads neither the plan nor the
 * device memory, where the state it starts from (length and dtype the engine
 * runs with) is the same. Over thousands of random deployments (every engine,
 * GPUs of every capability, lengths past the model's, dtypes, free memory,
 * KV budgets, auto-fit, environment, rules switched off) the result and the
 * full report are byte for byte those of a second pass that evaluates every
 * rule again (the gate's full_check). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "deploy_internal.h"
#include "kvplan/kvplan.h"
#include "util.h"

#include "test_rng.h"

static uint64_t g_rng = 0x2545f4914f6cdd1dull;
static uint64_t rnd(void) { return test_rng_next(&g_rng); }
static uint64_t pick(uint64_t n) { return rnd() % n; }

/* Dense, GQA, sliding window, MLA, MoE, block-FP8, hybrid recurrent, Gemma-2
 * (the fp16 rules), long-rope, remote code. */
static const char *const k_models[] = {"llama-3.1-8b",  "qwen3-0.6b",           "gemma-2-9b",
                                       "qwen3-30b-a3b", "deepseek-v2-lite-chat", "deepseek-v3",
                                       "phi-3-mini-4k-instruct", "qwen3-next-80b-a3b-thinking",
                                       "mistral-7b-v0.1", "llama-3.1-70b"};
#define N_MODELS (sizeof k_models / sizeof k_models[0])
static const char *const k_gpus[] = {"V100", "T4", "A100", "L40S", "H100", "H200", "B200", "MI300X"};
#define N_GPUS (sizeof k_gpus / sizeof k_gpus[0])
static kvp_model *g_models[N_MODELS];
static kvp_gpu_info g_gpu[N_GPUS];

static int setup(void **state) {
    (void)state;
    kvp_error err;
    for (size_t i = 0; i < N_MODELS; i++)
        if (kvp_model_open(k_models[i], NULL, &g_models[i], &err) != KVP_OK) return -1;
    for (size_t i = 0; i < N_GPUS; i++)
        if (kvp_gpu_lookup(k_gpus[i], &g_gpu[i], &err) != KVP_OK) return -1;
    return 0;
}

static int teardown(void **state) {
    (void)state;
    for (size_t i = 0; i < N_MODELS; i++) kvp_model_free(g_models[i]);
    return 0;
}

static kvp_deployment random_deployment(void) {
    kvp_deployment d = kvp_deployment_default();
    d.model = g_models[pick(N_MODELS)];
    d.point.engine = (kvp_engine)pick(KVP_ENGINE_COUNT);
    static const uint32_t k_tp[] = {1, 1, 2, 3, 4, 8, 16};
    d.point.tp = d.point.engine == KVP_ENGINE_LLAMACPP ? 1 : k_tp[pick(7)];
    const kvp_gpu_info *gpu = &g_gpu[pick(N_GPUS)];
    if (pick(6)) { /* a GPU named: the capability rules decide */
        d.startup.gpu = *gpu;
        d.startup.gpu_known = true;
    }
    if (pick(5) == 0)
        d.memory.kv_budget_bytes = (1 + pick(64)) << 28;
    else
        d.memory.total_bytes = gpu->total_bytes;
    if (pick(4) == 0) d.memory.free_bytes = d.memory.total_bytes / 100 * (50 + pick(50));
    /* Lengths from tiny to past every model's maximum (clamps and refusals). */
    static const uint64_t k_len[] = {0, 512, 4096, 32768, 131072, 1u << 20};
    d.point.max_seq_len = pick(3) ? k_len[pick(6)] : 1 + pick(200000);
    static const char *const k_dt[KVP_ENGINE_COUNT][3] = {
        {"", "fp8", "bf16"}, {"", "fp8", "auto"}, {"", "fp8_e4m3", "auto"}, {"", "q8_0", "f16"}};
    kvp__strlcpy(d.point.kv_dtype, k_dt[d.point.engine][pick(3)], sizeof d.point.kv_dtype);
    if (d.point.engine == KVP_ENGINE_LLAMACPP && pick(2)) d.point.sequences = 1 + (uint32_t)pick(8);
    d.startup.dtype = (kvp_run_dtype)pick(4);
    if (d.point.engine == KVP_ENGINE_VLLM && pick(6) == 0) {
        d.policy.auto_fit_max_model_len = true;
        d.point.max_seq_len = 0;
    }
    kvp_error err;
    if (pick(6) == 0) assert_int_equal(kvp_startup_set_env(&d.startup, "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1", &err), KVP_OK);
    if (pick(6) == 0)
        assert_int_equal(kvp_startup_set_env(&d.startup, "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1", &err),
                         KVP_OK);
    if (pick(8) == 0) assert_int_equal(kvp_startup_disable(&d.startup, "defaults", &err), KVP_OK);
    if (pick(8) == 0) assert_int_equal(kvp_startup_disable(&d.startup, "V-PAR-1", &err), KVP_OK);
    if (pick(8) == 0) d.startup.trust_remote_code = true;
    if (pick(10) == 0) d.startup.gpu_count = 1 + (uint32_t)pick(8);
    return d;
}

static void assert_same_report(const kvp_startup_report *a, const kvp_startup_report *b) {
    assert_int_equal(a->engine, b->engine);
    assert_string_equal(a->engine_version, b->engine_version);
    assert_int_equal(a->starts, b->starts);
    assert_int_equal(a->count, b->count);
    assert_memory_equal(a->counts, b->counts, sizeof a->counts);
    assert_int_equal(a->first_refusal, b->first_refusal);
    assert_int_equal(a->undecided_count, b->undecided_count);
    assert_int_equal(a->disabled_count, b->disabled_count);
    assert_int_equal(a->run_dtype, b->run_dtype);
    assert_int_equal(a->run_dtype_adjusted, b->run_dtype_adjusted);
    assert_int_equal(a->max_model_len, b->max_model_len);
    assert_int_equal(a->max_model_len_adjusted, b->max_model_len_adjusted);
    for (uint32_t i = 0; i < a->count; i++) {
        if (memcmp(&a->checks[i], &b->checks[i], sizeof a->checks[i]) != 0)
            fail_msg("row %u (%s): '%s' / '%s'", i, a->checks[i].rule, a->checks[i].message,
                     b->checks[i].message);
    }
}

static void test_copied_rows_are_evaluated_rows(void **state) {
    (void)state;
    kvp__deploy_gate *once = kvp__deploy_gate_new(NULL), *full = kvp__deploy_gate_new(NULL);
    kvp_deploy_result *r1 = kvp_deploy_result_new(), *r2 = kvp_deploy_result_new();
    assert_non_null(once);
    assert_non_null(full);
    assert_non_null(r1);
    assert_non_null(r2);
    full->full_check = true;
    const unsigned n = 3000;
    unsigned evaluated = 0, refused = 0, adjusted = 0, per_engine[KVP_ENGINE_COUNT] = {0};
    for (unsigned k = 0; k < n; k++) {
        kvp_deployment d = random_deployment();
        kvp_error e1, e2;
        kvp_status s1 = kvp__deploy_plan_gated(&d, r1, once, &e1);
        kvp_status s2 = kvp__deploy_plan_gated(&d, r2, full, &e2);
        assert_int_equal(s1, s2);
        if (s1 != KVP_OK) continue;
        /* The whole result: every figure, the summary rows, messages. */
        if (memcmp(r1, r2, sizeof *r1) != 0)
            fail_msg("deployment %u (%s, %s): results differ (%s / %s)", k, kvp_model_name(d.model),
                     kvp_engine_name(d.point.engine), r1->message, r2->message);
        if (!r1->startup.evaluated) continue;
        assert_same_report(&once->post, &full->post);
        evaluated++;
        per_engine[d.point.engine]++;
        if (!r1->startup.starts) refused++;
        if (once->post.max_model_len_adjusted || once->post.run_dtype_adjusted) adjusted++;
    }
    fprintf(stderr, "%u evaluated, %u refused, %u adjusted\n", evaluated, refused, adjusted);
    /* The draw reaches every engine, refusals and adjustments. */
    for (int e = 0; e < KVP_ENGINE_COUNT; e++) assert_true(per_engine[e] > n / 10);
    assert_true(refused > n / 20);
    assert_true(adjusted > n / 20);
    kvp__free(NULL, once);
    kvp__free(NULL, full);
    kvp_deploy_result_free(r1);
    kvp_deploy_result_free(r2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copied_rows_are_evaluated_rows),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
