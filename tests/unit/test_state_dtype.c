/* test_state_dtype.c — the engines' recurrent-state dtype options (issues 13/14):
 * vLLM --mamba-cache-dtype / --mamba-ssm-cache-dtype, SGLang --mamba-ssm-dtype and
 * TensorRT-LLM kv_cache_config.mamba_ssm_cache_dtype, each applied by its engine's
 * rule (ENGINES.md 1.3 "Dtypes", 1.5, 2.6, 4.4; FAMILIES.md KDA and lightning), on
 * the shipped configs. Every figure is worked by hand next to its assert. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "kvplan/kvplan.h"
#include "kvplan/options.h"
#include "options_struct.h" /* the fields the tests check (opaque to library users) */

#include "test_family_helpers.h"

/* vLLM 0.19.0 (mamba_cache_mode none), bf16 KV, TP 1, max_model_len 32768. */
static kvp_policy_settings vllm(uint64_t budget) {
    kvp_policy_settings s = kvp_policy_settings_default();
    s.engine = KVP_ENGINE_VLLM;
    snprintf(s.engine_version, sizeof s.engine_version, "0.19.0");
    s.kv_budget_bytes = budget;
    s.max_model_len = 32768;
    return s;
}

static kvp_policy_result plan_ok(const kvp_model *m, const kvp_policy_settings *s) {
    kvp_policy_result r;
    kvp_error err;
    if (kvp_policy_plan(m, s, &r, &err) != KVP_OK) fail_msg("plan: %s", err.message);
    return r;
}

/* Qwen3-Next-80B-A3B (no mamba_ssm_dtype in its config), vLLM, 40 GiB:
 * attention 2 KV heads x (256 + 256) x 2 B = 2048 B/token per layer; GDN conv
 * (2*16*128 + 32*128) = 8192 channels x 3 positions; SSM 32*128*128 = 524,288 values.
 * auto: SSM in the conv dtype (bf16): 49,152 + 1,048,576 = 1,097,728 B;
 *   bs = 16 * cdiv(1097728, 16 * 2048) = 16 * 34 = 544; page 544 * 2048 = 1,114,112.
 * --mamba-ssm-cache-dtype float32: 49,152 + 2,097,152 = 2,146,304 B;
 *   bs = 16 * cdiv(2146304, 32768) = 16 * 66 = 1056 (ENGINES.md 1.9); page 2,162,688;
 *   48 layers = 12 attention + 36 GDN: group_size 12, 4 groups;
 *   blocks floor(42949672960 / (2162688 * 12)) = floor(1654.9) = 1654;
 *   per request (none) cdiv(32768, 1056) + 3 = 32 + 3 = 35.
 *   (the other dtype pairs: test_vllm_block_sizes) */
static void test_vllm_qwen3_next(void **state) {
    (void)state;
    kvp_model *m = family_catalog("Qwen/Qwen3-Next-80B-A3B-Thinking");
    kvp_policy_settings s = vllm(40ull << 30);
    kvp_policy_result r = plan_ok(m, &s);
    assert_int_equal(r.block_size, 544);
    assert_int_equal(r.page_bytes, 1114112);
    s.mamba_ssm_cache_dtype = KVP_DTYPE_FP32;
    r = plan_ok(m, &s);
    assert_int_equal(r.block_size, 1056);
    assert_int_equal(r.page_bytes, 2162688);
    assert_int_equal(r.num_groups, 4);
    assert_int_equal(r.group_size, 12);
    assert_int_equal(r.report.num_gpu_blocks, 1654);
    assert_int_equal(r.per_request_blocks, 35);
    kvp_model_free(m);
}

/* Block sizes the dtype options give, one line each; kv = attention bytes per token of
 * one layer, state = conv + SSM (or lightning) bytes of one layer, bs = A * cdiv(state,
 * A * kv) with A = 16 (64 for MLA).
 * Qwen3-Next (kv 2048): --mamba-cache-dtype float32, SSM bfloat16: conv 8192*3*4 = 98,304
 *   + 1,048,576 = 1,146,880 -> 16 * 35 = 560; float32 alone (the SSM follows it):
 *   98,304 + 2,097,152 = 2,195,456 -> 16 * cdiv(2195456, 32768) = 16 * 67 = 1072.
 * Kimi-Linear KDA, no SSM option (FAMILIES.md): MLA kv 576 * 2 = 1152; conv 3*32*128 =
 *   12,288 channels x 3 x 2 B = 73,728; recurrent 32*128*128 fp32, forced: 2,097,152;
 *   2,170,880 -> 64 * cdiv(2170880, 73728) = 64 * 30 = 1920 whatever the SSM option says;
 *   --mamba-cache-dtype float32: conv 147,456 -> 2,244,608 -> 64 * 31 = 1984.
 * MiniMax-Text-01 lightning: kv 8 x 256 x 2 = 4096; state 64*128*128 = 1,048,576 values in
 *   the mamba cache dtype: bf16 16 * cdiv(2097152, 65536) = 512 whatever the SSM option
 *   says; --mamba-cache-dtype float32: 16 * cdiv(4194304, 65536) = 1024. */
static void test_vllm_block_sizes(void **state) {
    (void)state;
    static const struct {
        const char *file;
        kvp_dtype conv, ssm;
        uint32_t block_size;
    } k_cases[] = {
        {"Qwen/Qwen3-Next-80B-A3B-Thinking", KVP_DTYPE_FP32, KVP_DTYPE_BF16, 560},
        {"Qwen/Qwen3-Next-80B-A3B-Thinking", KVP_DTYPE_FP32, KVP_DTYPE_AUTO, 1072},
        {"moonshotai/Kimi-Linear-48B-A3B-Instruct", KVP_DTYPE_AUTO, KVP_DTYPE_BF16, 1920},
        {"moonshotai/Kimi-Linear-48B-A3B-Instruct", KVP_DTYPE_FP32, KVP_DTYPE_BF16, 1984},
        {"MiniMaxAI/MiniMax-Text-01", KVP_DTYPE_AUTO, KVP_DTYPE_FP32, 512},
        {"MiniMaxAI/MiniMax-Text-01", KVP_DTYPE_FP32, KVP_DTYPE_FP32, 1024},
    };
    for (size_t k = 0; k < sizeof k_cases / sizeof k_cases[0]; k++) {
        kvp_model *m = family_catalog(k_cases[k].file);
        kvp_policy_settings s = vllm(40ull << 30);
        s.mamba_cache_dtype = k_cases[k].conv;
        s.mamba_ssm_cache_dtype = k_cases[k].ssm;
        uint32_t bs = plan_ok(m, &s).block_size;
        if (bs != k_cases[k].block_size)
            fail_msg("case %zu (%s): block %u, expected %u", k, k_cases[k].file, bs,
                     k_cases[k].block_size);
        kvp_model_free(m);
    }
}

/* Nemotron-H-56B under SGLang, rest 40 GiB = 42,949,672,960 B, TP 1, 54 Mamba2 layers:
 * conv (256*64 + 2*8*256) = 20,480 x 3 x 2 B = 122,880; SSM 256*64*256 = 4,194,304 values.
 * default float32: (122,880 + 16,777,216) * 54 = 912,605,184 B per request;
 *   mamba memory floor(rest * 0.9 / 1.9) = 20,344,055,612 -> 22 states; running 22 // 3 = 7;
 *   tokens (rest - 22 * 912605184) / 40960 = 22,872,358,912 / 40960 -> 558,407.
 * --mamba-ssm-dtype bfloat16: (122,880 + 8,388,608) * 54 = 459,620,352 -> 44 states,
 *   running 14; tokens (rest - 20,223,295,488) / 40960 = 22,726,377,472 / 40960 -> 554,843. */
static void test_sglang_nemotron_h(void **state) {
    (void)state;
    kvp_model *m = family_catalog("nvidia/Nemotron-H-56B-Base-8K");
    kvp_policy_settings s = kvp_policy_settings_default();
    s.engine = KVP_ENGINE_SGLANG;
    s.kv_budget_bytes = 40ull << 30;
    s.max_model_len = 8192;
    kvp_policy_result r = plan_ok(m, &s);
    assert_int_equal(r.mamba_cache_size, 22);
    assert_int_equal(r.report.max_running_requests, 7);
    assert_int_equal(r.report.max_total_num_tokens, 558407);
    s.mamba_ssm_cache_dtype = KVP_DTYPE_BF16;
    r = plan_ok(m, &s);
    assert_int_equal(r.mamba_cache_size, 44);
    assert_int_equal(r.report.max_running_requests, 14);
    assert_int_equal(r.report.max_total_num_tokens, 554843);
    kvp_model_free(m);
}

/* The recurrent pool of the creator's plan (TensorRT-LLM). */
static const kvp_plan_pool *recurrent_pool(const kvp_deploy_result *r) {
    for (int k = 0; k < KVP_ROLE_COUNT; k++)
        for (uint32_t i = 0; i < r->plan.managers[k].pool_count; i++)
            if (r->plan.managers[k].pools[i].kind == KVP_CACHE_RECURRENT)
                return &r->plan.managers[k].pools[i];
    fail_msg("no recurrent pool");
    return NULL;
}

/* The option through the table: names, the engines' spellings, the fields each
 * engine reads, refusals by name, and the warnings of engines without it.
 * TensorRT-LLM, Qwen3-Next, max_batch_size 256 (ENGINES.md 4.6): S = 36 x (8,192 x 3 x 2
 * + 32 x 128 x 128 x 2) = 39,518,208 B per slot with the config's (bf16) state; with
 * mamba_ssm_cache_dtype float32: 36 x (49,152 + 2,097,152) = 77,266,944 B. */
static void test_options_and_trtllm(void **state) {
    (void)state;
    kvp_error err;
    kvp_options *o = kvp_options_new(KVP_COMMAND_PLAN);
    assert_non_null(o);
    assert_int_equal(kvp_options_set(o, "--mamba-ssm-dtype", "bfloat16", &err), KVP_OK);
    assert_int_equal(kvp_options_finish(o, &err), KVP_OK);
    assert_int_equal(o->deployment.point.engine, KVP_ENGINE_SGLANG); /* SGLang's spelling */
    assert_int_equal(o->deployment.policy.mamba_ssm_cache_dtype, KVP_DTYPE_BF16);
    assert_int_equal(o->deployment.kv.mamba_ssm_cache_dtype, KVP_DTYPE_BF16);
    kvp_options_free(o);

    o = kvp_options_new(KVP_COMMAND_PLAN);
    assert_int_equal(kvp_options_set(o, "--mamba-ssm-cache-dtype", "fp32", &err),
                     KVP_INVALID_ARG);
    assert_string_equal(err.key, "--mamba-ssm-cache-dtype");
    assert_non_null(strstr(err.message, "auto, float32, bfloat16, float16"));
    assert_int_equal(kvp_options_set(o, "--mamba-cache-dtype", "fp8", &err), KVP_INVALID_ARG);
    /* llama.cpp keeps its states in f32: the option has no meaning there (exit 2). */
    assert_int_equal(kvp_options_set(o, "--policy", "llamacpp", &err), KVP_OK);
    assert_int_equal(kvp_options_set(o, "--mamba-ssm-cache-dtype", "float32", &err), KVP_OK);
    assert_int_equal(kvp_options_finish(o, &err), KVP_INVALID_ARG);
    assert_non_null(strstr(err.message, "--mamba-ssm-cache-dtype has no meaning under llama.cpp"));
    kvp_options_free(o);

    kvp_model *m = family_catalog("Qwen/Qwen3-Next-80B-A3B-Thinking");
    o = kvp_options_new(KVP_COMMAND_PLAN);
    assert_int_equal(kvp_options_set(o, "--policy", "trtllm", &err), KVP_OK);
    assert_int_equal(kvp_options_set(o, "--kv-budget", "40GiB", &err), KVP_OK);
    assert_int_equal(kvp_options_set(o, "--max-seq-len", "32768", &err), KVP_OK);
    assert_int_equal(kvp_options_set(o, "--max-batch-size", "256", &err), KVP_OK);
    assert_int_equal(kvp_options_finish(o, &err), KVP_OK);
    o->deployment.model = m;
    kvp_deploy_result *r = kvp_deploy_result_new();
    assert_non_null(r);
    assert_int_equal(kvp_deploy_plan(&o->deployment, r, &err), KVP_OK);
    assert_int_equal(r->status, KVP_OK);
    assert_int_equal(recurrent_pool(r)->bytes_per_sequence, 39518208);
    assert_int_equal(kvp_options_set(o, "--mamba-ssm-cache-dtype", "float32", &err), KVP_OK);
    assert_int_equal(kvp_deploy_plan(&o->deployment, r, &err), KVP_OK);
    assert_int_equal(r->status, KVP_OK);
    assert_int_equal(recurrent_pool(r)->bytes_per_sequence, 77266944);
    kvp_deploy_result_free(r);
    kvp_options_free(o);
    kvp_model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vllm_qwen3_next),
        cmocka_unit_test(test_vllm_block_sizes),
        cmocka_unit_test(test_sglang_nemotron_h),
        cmocka_unit_test(test_options_and_trtllm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
