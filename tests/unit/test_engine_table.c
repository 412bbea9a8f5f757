/* test_engine_table.c — issue 27 item 1: the one list of engines
 * (kvplan/engines.def) and each engine's record (src/engines/engine_ops.h).
 * The public values are a contract: the list only grows at its end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "engine_ops.h"
#include "startup_internal.h"
#include "kvplan/estimate.h"
#include "kvplan/policy.h"
#include "kvplan/startup.h"

/* The values callers compiled against before the list existed (policy.h,
 * estimate.h on ccc6051): TRTLLM 0, VLLM 1, SGLANG 2, LLAMACPP 3, COUNT 4. */
static void test_public_values(void **state) {
    (void)state;
    assert_int_equal(KVP_ENGINE_TRTLLM, 0);
    assert_int_equal(KVP_ENGINE_VLLM, 1);
    assert_int_equal(KVP_ENGINE_SGLANG, 2);
    assert_int_equal(KVP_ENGINE_LLAMACPP, 3);
    assert_int_equal(KVP_ENGINE_COUNT, 4);
    assert_int_equal(KVP_ESTIMATE_TRTLLM, 0);
    assert_int_equal(KVP_ESTIMATE_VLLM, 1);
    assert_int_equal(KVP_ESTIMATE_SGLANG, 2);
    assert_int_equal(KVP_ESTIMATE_LLAMACPP, 3);
}

/* Names and titles come from the list; every spelling kvp_engine_parse took
 * before (policy.c's alias table on ccc6051) still parses to its engine. */
static void test_names_and_spellings(void **state) {
    (void)state;
    static const char *const names[] = {"trtllm", "vllm", "sglang", "llamacpp"};
    static const char *const titles[] = {"TensorRT-LLM", "vLLM", "SGLang", "llama.cpp"};
    for (int e = 0; e < KVP_ENGINE_COUNT; e++) {
        assert_string_equal(kvp_engine_name((kvp_engine)e), names[e]);
        assert_string_equal(kvp__engine_title((kvp_engine)e), titles[e]);
    }
    assert_string_equal(kvp_engine_name(KVP_ENGINE_COUNT), "unknown");
    assert_string_equal(kvp__engine_title(KVP_ENGINE_COUNT), "?");
    static const struct {
        const char *text;
        kvp_engine e;
    } k[] = {
        {"trtllm", KVP_ENGINE_TRTLLM},       {"trt-llm", KVP_ENGINE_TRTLLM},
        {"tensorrt-llm", KVP_ENGINE_TRTLLM}, {"TensorRT_LLM", KVP_ENGINE_TRTLLM},
        {"vllm", KVP_ENGINE_VLLM},           {"vLLM", KVP_ENGINE_VLLM},
        {"sglang", KVP_ENGINE_SGLANG},       {"llamacpp", KVP_ENGINE_LLAMACPP},
        {"llama.cpp", KVP_ENGINE_LLAMACPP},  {"llama-cpp", KVP_ENGINE_LLAMACPP},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        kvp_engine got = KVP_ENGINE_COUNT;
        assert_int_equal(kvp_engine_parse(k[i].text, &got), KVP_OK);
        assert_int_equal(got, k[i].e);
    }
    kvp_engine got;
    assert_int_equal(kvp_engine_parse("tgi", &got), KVP_INVALID_ARG);
    assert_int_equal(kvp_engine_parse("llama", &got), KVP_INVALID_ARG);
    assert_int_equal(kvp_engine_parse(NULL, &got), KVP_INVALID_ARG);
}

/* Each record is its engine's: the length flag its refusals name, the start-up
 * rule table kvp_startup_rule reads (ids V-, S-, T-, L-), the engine_report
 * fields, fit's dtypes, the sim scheduler; nothing outside the list. */
static void test_records(void **state) {
    (void)state;
    static const char *const flag[] = {"--max-seq-len", "--max-model-len", "--context-length",
                                       "--ctx-size"};
    static const char prefix[] = {'T', 'V', 'S', 'L'};
    static const char *const first_dtype[] = {"auto", "auto", "auto", "f16"};
    static const char *const sim[] = {"trtllm", "vllm", "sglang", NULL};
    for (int e = 0; e < KVP_ENGINE_COUNT; e++) {
        const kvp__engine_ops *ops = kvp__engine_ops_of((kvp_engine)e);
        assert_non_null(ops);
        assert_string_equal(ops->len_flag, flag[e]);
        assert_non_null(ops->plan);
        assert_true(*ops->startup_rule_count > 0);
        assert_int_equal(kvp_startup_rule_count((kvp_engine)e), *ops->startup_rule_count);
        kvp_startup_rule_info info;
        assert_int_equal(kvp_startup_rule((kvp_engine)e, 0, &info), KVP_OK);
        assert_int_equal(info.id[0], prefix[e]);
        assert_string_equal(info.id, ops->startup_rules[0].id);
        assert_string_equal(ops->fit_kv_dtypes[0], first_dtype[e]);
        assert_string_equal(kvp_engine_version_forms((kvp_engine)e), ops->version_forms);
        if (sim[e]) assert_string_equal(ops->sim_policy, sim[e]);
        else assert_null(ops->sim_policy);
    }
    /* vLLM prints its four figures; TensorRT-LLM its two (max_tokens, bytes). */
    assert_int_equal(kvp__engine_ops_of(KVP_ENGINE_VLLM)->report_fields,
                     KVP_REPORT_NUM_GPU_BLOCKS | KVP_REPORT_GPU_KV_CACHE_TOKENS |
                         KVP_REPORT_MAX_CONCURRENCY | KVP_REPORT_AVAILABLE_KV_CACHE_BYTES);
    assert_int_equal(kvp__engine_ops_of(KVP_ENGINE_TRTLLM)->report_fields,
                     KVP_REPORT_MAX_TOKENS | KVP_REPORT_KV_CACHE_BYTES);
    /* Newest releases read: vLLM 0.29.0 = 2,900; TensorRT-LLM 1.3.0 = 10,300. */
    assert_int_equal(kvp__engine_ops_of(KVP_ENGINE_VLLM)->newest_release, 2900);
    assert_int_equal(kvp__engine_ops_of(KVP_ENGINE_TRTLLM)->newest_release, 10300);
    assert_null(kvp__engine_ops_of(KVP_ENGINE_COUNT));
    assert_null(kvp__engine_ops_of((kvp_engine)-1));
    /* vLLM 0.30.0 (3,000 > 2,900) is past the newest: planned with its last line. */
    kvp_engine_release rel;
    kvp_error err;
    assert_int_equal(kvp_engine_release_resolve(KVP_ENGINE_VLLM, "0.30.0", &rel, &err), KVP_OK);
    assert_true(rel.newer_than_known);
    assert_int_equal(kvp_engine_release_resolve(KVP_ENGINE_VLLM, "0.29.3", &rel, &err), KVP_OK);
    assert_false(rel.newer_than_known);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_public_values),
        cmocka_unit_test(test_names_and_spellings),
        cmocka_unit_test(test_records),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
