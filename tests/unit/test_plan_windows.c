/* test_plan_windows.c — attention-window rules (src/plan/windows.c) and the
 * draft's window helpers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "kvplan/plan.h"
#include "plan_rules.h"

/* A 4-layer model alternating sliding (512) and full attention. */
static const char k_swa[] =
    "{\"model_type\":\"llama\",\"hidden_size\":256,\"num_attention_heads\":4,"
    "\"num_key_value_heads\":2,\"num_hidden_layers\":4,\"head_dim\":64,"
    "\"max_position_embeddings\":4096,\"vocab_size\":1000,\"torch_dtype\":\"bfloat16\","
    "\"sliding_window\":512,\"layer_types\":[\"sliding_attention\",\"full_attention\","
    "\"sliding_attention\",\"full_attention\"]}";
/* The same without a sliding layer. */
static const char k_dense[] =
    "{\"model_type\":\"llama\",\"hidden_size\":256,\"num_attention_heads\":4,"
    "\"num_key_value_heads\":2,\"num_hidden_layers\":4,\"head_dim\":64,"
    "\"max_position_embeddings\":4096,\"vocab_size\":1000,\"torch_dtype\":\"bfloat16\"}";

static kvp_model *load(const char *json) {
    kvp_model *m = NULL;
    kvp_error err;
    assert_int_equal(kvp_model_from_hf_json(json, strlen(json), "test.json", NULL, &m, &err),
                     KVP_OK);
    return m;
}

static void normalize(void **state) {
    (void)state;
    uint64_t out[4];
    /* All None or >= max_seq_len: the list normalizes away (seed None). */
    uint64_t a[] = {0, 8192, 100000};
    assert_int_equal(kvp_windows_normalize(a, 3, 8192, out), 0);
    /* One distinct window (after the min with max_seq_len): a single entry. */
    uint64_t b[] = {512, 512, 512};
    assert_int_equal(kvp_windows_normalize(b, 3, 8192, out), 1);
    assert_int_equal(out[0], 512);
    /* Mixed: None -> 8192, 100000 -> 8192; list kept whole. */
    uint64_t c[] = {512, 0, 100000, 128};
    assert_int_equal(kvp_windows_normalize(c, 4, 8192, out), 4);
    assert_int_equal(out[0], 512);
    assert_int_equal(out[1], 8192);
    assert_int_equal(out[2], 8192);
    assert_int_equal(out[3], 128);
    assert_int_equal(kvp_windows_normalize(c, 0, 8192, out), 0);
    /* VSWA needs two distinct windows. */
    assert_true(kvp_windows_use_vswa(out, 4));
    assert_false(kvp_windows_use_vswa(b, 3));
    assert_false(kvp_windows_use_vswa(NULL, 0));
    assert_int_equal(kvp_windows_distinct(out, 4), 3);
}

static void from_layer_types(void **state) {
    (void)state;
    kvp_model *m = load(k_swa);
    uint64_t w[8];
    /* sliding, full, sliding, full -> 512, 4096, 512, 4096 at max_seq_len 4096. */
    assert_int_equal(kvp_windows_from_layer_types(m, 4096, w, 8), 4);
    assert_int_equal(w[0], 512);
    assert_int_equal(w[1], 4096);
    assert_int_equal(w[2], 512);
    assert_int_equal(w[3], 4096);
    /* max_seq_len 512: every window normalizes to 512 -> no schedule. */
    assert_int_equal(kvp_windows_from_layer_types(m, 512, w, 8), 0);
    /* Too small an output array: nothing derived. */
    assert_int_equal(kvp_windows_from_layer_types(m, 4096, w, 2), 0);
    kvp_model_free(m);
    m = load(k_dense);
    assert_int_equal(kvp_windows_from_layer_types(m, 4096, w, 8), 0);
    kvp_model_free(m);
}

static void expand_to_global(void **state) {
    (void)state;
    /* Pattern [100, 200] over mask [F, F, T, T, T]: disabled layers get pattern[0],
     * enabled ones cycle the pattern: 100, 100, 100, 200, 100. */
    uint64_t pat[] = {100, 200};
    bool mask[] = {false, false, true, true, true};
    uint64_t out[5];
    assert_int_equal(kvp_windows_expand_to_global(pat, 2, mask, 5, out), 5);
    assert_int_equal(out[0], 100);
    assert_int_equal(out[1], 100);
    assert_int_equal(out[2], 100);
    assert_int_equal(out[3], 200);
    assert_int_equal(out[4], 100);
    assert_int_equal(kvp_windows_expand_to_global(pat, 0, mask, 5, out), 0);
}

static void pool_groups(void **state) {
    (void)state;
    kvp_model *m = load(k_swa);
    /* User windows [512, 4096]: two distinct after normalization -> 2 groups. */
    uint64_t uw[] = {512, 4096};
    assert_int_equal(kvp_estimation_pool_groups(m, 4096, uw, 2), 2);
    /* User windows that normalize away: 1 group. */
    uint64_t big[] = {9999};
    assert_int_equal(kvp_estimation_pool_groups(m, 4096, big, 1), 1);
    /* No user windows: sliding and full share a pool type without windowed storage
     * (not Gemma4) -> 1 group. */
    assert_int_equal(kvp_estimation_pool_groups(m, 4096, NULL, 0), 1);
    kvp_model_free(m);
    /* Qwen3-Next (hybrid; its config.json has no layer_types, but Qwen3NextConfig
     * derives them from full_attention_interval 4, and the seed reads the config
     * object): the first user-window branch is skipped for hybrids, and layer_types
     * give two pool types, linear and full -> 2 groups with or without user windows. */
    assert_int_equal(kvp_model_from_catalog("qwen3-next-80b-a3b-thinking", NULL, &m, NULL),
                     KVP_OK);
    assert_true(kvp_model_get_facts(m)->layer_types_derived);
    assert_int_equal(kvp_model_get_facts(m)->layer_types_count, 48);
    assert_int_equal(kvp_model_get_facts(m)->layer_types[3], KVP_LAYER_TYPE_FULL);
    assert_int_equal(kvp_model_get_facts(m)->layer_types[4], KVP_LAYER_TYPE_LINEAR);
    assert_int_equal(kvp_estimation_pool_groups(m, 4096, uw, 2), 2);
    assert_int_equal(kvp_estimation_pool_groups(m, 4096, NULL, 0), 2);
    kvp_model_free(m);
    /* Qwen3.5 (layer_types linear_attention / full_attention): 2 pool types. */
    assert_int_equal(kvp_model_from_catalog("qwen3.5-27b", NULL, &m, NULL), KVP_OK);
    assert_int_equal(kvp_estimation_pool_groups(m, 4096, NULL, 0), 2);
    kvp_model_free(m);
    /* Gemma-4 (sliding 1024 / full, per-layer head dims): windows derived -> 2 groups. */
    assert_int_equal(kvp_model_from_catalog("gemma-4-26b-a4b", NULL, &m, NULL), KVP_OK);
    assert_int_equal(kvp_estimation_pool_groups(m, 8192, NULL, 0), 2);
    kvp_model_free(m);
}

static void per_layer_heads(void **state) {
    (void)state;
    uint32_t out[8];
    /* Same heads, or no draft: a scalar. */
    assert_int_equal(kvp_per_layer_kv_heads(8, 4, 8, 1, out), 1);
    assert_int_equal(out[0], 8);
    assert_int_equal(kvp_per_layer_kv_heads(8, 4, 0, 1, out), 1);
    /* Target 8 heads x 3 layers, draft 4 heads x 2 spec layers: [8, 8, 8, 4, 4]. */
    assert_int_equal(kvp_per_layer_kv_heads(8, 3, 4, 2, out), 5);
    assert_int_equal(out[2], 8);
    assert_int_equal(out[3], 4);
    assert_int_equal(out[4], 4);
}

static void draft_layout(void **state) {
    (void)state;
    kvp_model *m = load(k_swa);
    assert_true(kvp_draft_defines_attention_layout(m)); /* sliding_window + layer_types */
    kvp_model_free(m);
    m = load(k_dense);
    assert_false(kvp_draft_defines_attention_layout(m));
    kvp_model_free(m);
    /* use_sliding_window=false alone is an explicit (full-attention) layout. */
    const char *j = "{\"model_type\":\"llama\",\"hidden_size\":256,\"num_attention_heads\":4,"
                    "\"num_key_value_heads\":2,\"num_hidden_layers\":1,\"head_dim\":64,"
                    "\"max_position_embeddings\":4096,\"vocab_size\":1000,"
                    "\"use_sliding_window\":false,\"sliding_window\":4096}";
    m = load(j);
    assert_true(kvp_draft_defines_attention_layout(m));
    kvp_model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(normalize),       cmocka_unit_test(from_layer_types),
        cmocka_unit_test(expand_to_global), cmocka_unit_test(pool_groups),
        cmocka_unit_test(per_layer_heads),  cmocka_unit_test(draft_layout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
