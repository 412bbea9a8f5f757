/* test_llamacpp_engine_fixes.c — the four disagreements the engine test
 * (tests/engine/) found between kvplan's llama.cpp policy and llama.cpp 0.4.0
 * (node-llama-cpp@3.21.1), each on a geometry worked by hand: Gemma 3n's reused
 * layers, Deci layers without KV heads, the DSA indexer cache type, and MLA with
 * different K and V types. Plus the release-number engine version and the
 * refusal of an arch kvplan does not model. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kvplan/model.h"
#include "kvplan/policy.h"

static kvp_model *geometry(const char *j) {
    kvp_model *m = NULL;
    kvp_error err;
    assert_int_equal(kvp_model_from_geometry_json(j, strlen(j), "g", NULL, &m, &err), KVP_OK);
    return m;
}

static kvp_policy_settings lc(uint64_t n_ctx) {
    kvp_policy_settings s = kvp_policy_settings_default();
    s.engine = KVP_ENGINE_LLAMACPP;
    strcpy(s.engine_version, "0.4.0-dev");
    s.n_ctx = n_ctx;
    s.n_seq_max = 1;
    s.kv_unified = 1;
    return s;
}

/* Gemma 3n, 24 blocks, 1 KV head of 64, window 512, period 5 (4 SWA + 1 full).
 * llama_model_gemma3n: n_layer_kv_from_start = 20, so layers 20..23 reuse layer 18's
 * or 19's cache and own none. Layers 0..19: full ones are 4, 9, 14, 19 (4 layers),
 * SWA 16. n_ctx 4096: main = 4 layers x 4096 cells x 64 x 2 B x 2 (K+V)
 * = 4,194,304 B; SWA cells pad(512 + 512, 256) = 1024: 16 x 1024 x 128 x 2
 * = 4,194,304 B. (Before the fix: 24 layers, 5 main + 19 SWA.) */
static void test_gemma3n_reused_layers(void **state) {
    (void)state;
    kvp_model *m = geometry("{\"arch\": \"gemma3n\", \"block_count\": 24, \"head_count\": 2, "
                            "\"head_count_kv\": 1, \"key_length\": 64, \"value_length\": 64, "
                            "\"sliding_window\": 512}");
    kvp_policy_settings s = lc(4096);
    kvp_policy_result r;
    kvp_error err;
    assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_OK);
    assert_int_equal(r.main_layers, 4);
    assert_int_equal(r.swa_layers, 16);
    assert_int_equal(r.report.kv_size_bytes, 4194304ull);
    assert_int_equal(r.swa_tokens, 1024);
    assert_int_equal(r.report.swa_kv_size_bytes, 4194304ull);
    kvp_model_free(m);
}

/* Deci, 4 blocks with KV heads [1, 0, 2, 0] of 64: every layer keeps a cache
 * (has_kv is true by default). n_ctx 256, f16.
 * -fa on: K = (64 + 0 + 128 + 0) x 2 B x 256 = 98,304; V the same = 98,304.
 * -fa off: V rows padded to the widest (128): 4 x 128 x 2 x 256 = 262,144. */
static void test_deci_layers_without_kv_heads(void **state) {
    (void)state;
    kvp_model *m = geometry("{\"arch\": \"deci\", \"block_count\": 4, "
                            "\"head_count\": [2, 0, 2, 0], \"head_count_kv\": [1, 0, 2, 0], "
                            "\"key_length\": 64, \"value_length\": 64}");
    kvp_policy_settings s = lc(256);
    kvp_policy_result r;
    kvp_error err;
    s.flash_attn = 1;
    assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_OK);
    assert_int_equal(r.main_layers, 4);
    assert_int_equal(r.report.k_size_bytes, 98304ull);
    assert_int_equal(r.report.v_size_bytes, 98304ull);
    s.flash_attn = 0;
    assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_OK);
    assert_int_equal(r.main_layers, 4);
    assert_int_equal(r.report.k_size_bytes, 98304ull);
    assert_int_equal(r.report.v_size_bytes, 262144ull);
    kvp_model_free(m);
}

/* DSA (deepseek32): 2 MLA blocks, latent 64 + rope 32 = 96, indexer key 64.
 * n_ctx 256, -ctk q8_0 -ctv q8_0: main K = 2 x 96/32 x 34 B x 256 = 52,224;
 * indexer K = 2 x 64/32 x 34 x 256 = 34,816 (in q8_0, not f16's 65,536). */
static void test_dsa_indexer_in_ctk_type(void **state) {
    (void)state;
    kvp_model *m = geometry("{\"arch\": \"deepseek32\", \"block_count\": 2, \"head_count\": 2, "
                            "\"head_count_kv\": 1, \"key_length\": 96, \"value_length\": 64, "
                            "\"key_length_mla\": 64, \"value_length_mla\": 32, "
                            "\"kv_lora_rank\": 64, \"indexer_key_length\": 64}");
    kvp_policy_settings s = lc(256);
    strcpy(s.type_k, "q8_0");
    strcpy(s.type_v, "q8_0");
    kvp_policy_result r;
    kvp_error err;
    assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_OK);
    assert_int_equal(r.report.k_size_bytes, 52224ull);
    assert_int_equal(r.indexer_layers, 2);
    assert_int_equal(r.indexer_bytes, 34816ull);
    /* MLA with different K and V types: llama_init_from_model refuses. */
    strcpy(s.type_v, "f16");
    assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_INVALID_ARG);
    assert_non_null(strstr(err.message,
                           "model does not support different K (q8_0) and V (f16) cache types"));
    kvp_model_free(m);
}

/* A dense (non-MLA) model may mix K and V types; quantized V needs flash attention,
 * refused with llama.cpp's reason. */
static void test_mixed_types_dense(void **state) {
    (void)state;
    kvp_model *m = geometry("{\"arch\": \"llama\", \"block_count\": 2, \"head_count\": 2, "
                            "\"head_count_kv\": 1, \"key_length\": 64, \"value_length\": 64}");
    kvp_policy_settings s = lc(256);
    strcpy(s.type_k, "q8_0");
    strcpy(s.type_v, "q4_0");
    kvp_policy_result r;
    kvp_error err;
    /* K = 2 x 68 B x 256 = 34,816; V = 2 x 36 B x 256 = 18,432. */
    assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_OK);
    assert_int_equal(r.report.k_size_bytes, 34816ull);
    assert_int_equal(r.report.v_size_bytes, 18432ull);
    s.flash_attn = 0;
    assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_INVALID_ARG);
    assert_non_null(strstr(err.message, "quantized V cache requires flash_attn to be enabled"));
    kvp_model_free(m);
}

/* An arch llama.cpp keeps no generation cache for is refused by name. */
static void test_unmodelled_arch_refused(void **state) {
    (void)state;
    const char *j = "{\"arch\": \"neo-bert\", \"block_count\": 2, \"head_count_kv\": 1, "
                    "\"key_length\": 64, \"value_length\": 64}";
    kvp_model *m = NULL;
    kvp_error err;
    assert_int_equal(kvp_model_from_geometry_json(j, strlen(j), "g", NULL, &m, &err),
                     KVP_UNSUPPORTED);
    assert_null(m);
    assert_non_null(strstr(err.message, "'neo-bert'"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gemma3n_reused_layers),
        cmocka_unit_test(test_deci_layers_without_kv_heads),
        cmocka_unit_test(test_dsa_indexer_in_ctk_type),
        cmocka_unit_test(test_mixed_types_dense),
        cmocka_unit_test(test_unmodelled_arch_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
