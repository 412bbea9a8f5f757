/* test_plan_manager.c — manager choice (src/plan/manager.c): every route of
 * get_kv_cache_manager_cls and the V2 fallback, with the seed's errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "kvplan/plan.h"
#include "plan_rules.h"

static kvp_manager_inputs plain(void) {
    kvp_manager_inputs in;
    memset(&in, 0, sizeof in);
    in.max_beam_width = 1;
    return in;
}

static kvp_manager_inputs hybrid(void) {
    kvp_manager_inputs in = plain();
    in.is_hybrid_linear = true;
    in.num_recurrent_layers = 36;
    return in;
}

static kvp_manager_kind pick(const kvp_manager_inputs *in) {
    kvp_manager_kind k = KVP_MANAGER_KIND_COUNT;
    kvp_error err;
    assert_int_equal(kvp_manager_select(in, &k, NULL, &err), KVP_OK);
    return k;
}

static void expect_error(const kvp_manager_inputs *in, kvp_status code, const char *key,
                         const char *needle) {
    kvp_manager_kind k;
    kvp_error err;
    memset(&err, 0x5a, sizeof err);
    assert_int_equal(kvp_manager_select(in, &k, NULL, &err), code);
    assert_string_equal(err.key, key);
    assert_non_null(strstr(err.message, needle));
}

static void non_hybrid(void **state) {
    (void)state;
    kvp_manager_inputs in = plain();
    assert_int_equal(pick(&in), KVP_MANAGER_PAGED_V1);
    in.use_v2 = true;
    assert_int_equal(pick(&in), KVP_MANAGER_PAGED_V2);
    in = plain();
    in.is_gemma4_hybrid = true; /* per-layer head dims need V2 */
    assert_int_equal(pick(&in), KVP_MANAGER_PAGED_V2);
    in = plain();
    in.sparse_algorithm = "dsa";
    assert_int_equal(pick(&in), KVP_MANAGER_SPARSE_V1);
    in.use_v2 = true;
    assert_int_equal(pick(&in), KVP_MANAGER_SPARSE_V2);
    in.sparse_algorithm = "qsa";
    expect_error(&in, KVP_CONFIG, "sparse_attention", "requires a hybrid");
    assert_string_equal(kvp_manager_kind_name(KVP_MANAGER_HYBRID_UNIFIED), "hybrid-unified");
    assert_true(kvp_manager_is_v2(KVP_MANAGER_FP4_MLA_V2));
    assert_false(kvp_manager_is_v2(KVP_MANAGER_HYBRID_MIXED));
}

static void fp4_mla(void **state) {
    (void)state;
    kvp_manager_inputs in = plain();
    in.is_mla = true;
    in.fp4_kv = true;
    assert_int_equal(pick(&in), KVP_MANAGER_FP4_MLA_V2);
    in.v2_explicit_false = true;
    expect_error(&in, KVP_CONFIG, "use_kv_cache_manager_v2", "FP4 MLA requires");
    in.v2_explicit_false = false;
    in.attn_backend = "FLASHINFER";
    expect_error(&in, KVP_CONFIG, "attn_backend", "TRTLLM attention backend");
    in.attn_backend = NULL;
    in.is_disagg = true;
    expect_error(&in, KVP_UNSUPPORTED, "disaggregated", "disaggregated");
    in.is_disagg = false;
    in.is_hybrid_linear = true;
    expect_error(&in, KVP_UNSUPPORTED, "kv_dtype", "hybrid linear");
    /* With a sparse config the fp4 route is not taken. */
    in = plain();
    in.is_mla = true;
    in.fp4_kv = true;
    in.sparse_algorithm = "dsa";
    assert_int_equal(pick(&in), KVP_MANAGER_SPARSE_V1);
}

static void hybrid_routes(void **state) {
    (void)state;
    kvp_manager_inputs in = hybrid();
    assert_int_equal(pick(&in), KVP_MANAGER_HYBRID_UNIFIED);
    in.use_v2 = true;
    assert_int_equal(pick(&in), KVP_MANAGER_HYBRID_V2);
    in.sparse_algorithm = "qsa";
    assert_int_equal(pick(&in), KVP_MANAGER_SPARSE_HYBRID_V2);
    in.sparse_algorithm = "skip_softmax"; /* kernels only: still the hybrid manager */
    assert_int_equal(pick(&in), KVP_MANAGER_HYBRID_V2);
    in.enable_block_reuse = true;
    in.enable_kv_pool_rebalance = true;
    expect_error(&in, KVP_CONFIG, "enable_kv_pool_rebalance", "rebalance");

    /* Zero recurrent layers: the non-hybrid routes, with a note. */
    in = hybrid();
    in.num_recurrent_layers = 0;
    kvp_notes notes;
    kvp_notes_clear(&notes);
    kvp_manager_kind k;
    assert_int_equal(kvp_manager_select(&in, &k, &notes, NULL), KVP_OK);
    assert_int_equal(k, KVP_MANAGER_PAGED_V1);
    assert_int_equal(notes.count, 1);
    assert_non_null(strstr(notes.text[0], "0 recurrent layers"));

    in = hybrid();
    in.sparse_algorithm = "qsa";
    expect_error(&in, KVP_CONFIG, "use_kv_cache_manager_v2", "QSA");
    in.sparse_algorithm = "dsa";
    expect_error(&in, KVP_CONFIG, "sparse_attention", "'dsa' is not supported");
    in = hybrid();
    in.mamba_additional_snapshots = true;
    expect_error(&in, KVP_CONFIG, "mamba_state_config", "snapshot");
    in = hybrid();
    in.helix_cp = true;
    in.has_spec = true;
    expect_error(&in, KVP_CONFIG, "use_kv_cache_manager_v2", "Helix");
}

static void kimi_and_disagg(void **state) {
    (void)state;
    kvp_manager_inputs in = hybrid();
    in.is_kimi_linear = true;
    assert_int_equal(pick(&in), KVP_MANAGER_HYBRID_MIXED);
    in.enable_block_reuse = true;
    assert_int_equal(pick(&in), KVP_MANAGER_HYBRID_UNIFIED);
    /* Kimi disaggregated needs the Python NIXL transceiver. */
    in = hybrid();
    in.is_kimi_linear = true;
    in.is_disagg = true;
    in.transceiver_backend = "UCX";
    expect_error(&in, KVP_CONFIG, "cache_transceiver_config", "Python transceiver");
    in.transceiver_backend = "NIXL";
    in.transceiver_runtime = "PYTHON";
    assert_int_equal(pick(&in), KVP_MANAGER_HYBRID_MIXED);

    in = hybrid();
    in.is_disagg = true;
    in.use_v2 = true;
    expect_error(&in, KVP_CONFIG, "cache_transceiver_config", "PYTHON");
    in.transceiver_backend = "NIXL";
    in.transceiver_runtime = "PYTHON";
    assert_int_equal(pick(&in), KVP_MANAGER_HYBRID_V2);
    in.use_v2 = false;
    in.enable_block_reuse = true;
    expect_error(&in, KVP_CONFIG, "use_kv_cache_manager_v2", "block reuse");
    in.transceiver_runtime = "auto"; /* auto = C++ fallback */
    assert_int_equal(pick(&in), KVP_MANAGER_HYBRID_UNIFIED);
    in.enable_block_reuse = false;
    assert_int_equal(pick(&in), KVP_MANAGER_HYBRID_UNIFIED);
    in.transceiver_runtime = "PYTHON";
    assert_int_equal(pick(&in), KVP_MANAGER_HYBRID_MIXED);
}

static void overrides(void **state) {
    (void)state;
    kvp_manager_inputs in = hybrid();
    in.force_mixed_hybrid = true;
    assert_int_equal(pick(&in), KVP_MANAGER_HYBRID_MIXED);
    in.enable_block_reuse = true;
    expect_error(&in, KVP_CONFIG, "force_mixed_hybrid", "block reuse");
    in.enable_block_reuse = false;
    in.use_v2 = true;
    expect_error(&in, KVP_CONFIG, "force_mixed_hybrid", "conflicts");

    in = hybrid();
    in.mamba_preference = KVP_MAMBA_PREF_MIXED;
    assert_int_equal(pick(&in), KVP_MANAGER_HYBRID_MIXED);
    in.enable_block_reuse = true;
    expect_error(&in, KVP_CONFIG, "mamba_manager_preference", "block reuse");
    in.enable_block_reuse = false;
    in.use_v2 = true;
    expect_error(&in, KVP_CONFIG, "mamba_manager_preference", "MIXED conflicts");
    in = hybrid();
    in.mamba_preference = KVP_MAMBA_PREF_CPP;
    in.enable_block_reuse = true;
    assert_int_equal(pick(&in), KVP_MANAGER_HYBRID_UNIFIED);
    in.use_v2 = true;
    expect_error(&in, KVP_CONFIG, "mamba_manager_preference", "CPP conflicts");
    /* An unrecognised preference warns and keeps the default (v2 here). */
    in = hybrid();
    in.use_v2 = true;
    in.mamba_preference = KVP_MAMBA_PREF_OTHER;
    kvp_notes notes;
    kvp_notes_clear(&notes);
    kvp_manager_kind k;
    assert_int_equal(kvp_manager_select(&in, &k, &notes, NULL), KVP_OK);
    assert_int_equal(k, KVP_MANAGER_HYBRID_V2);
    assert_non_null(strstr(notes.text[0], "unrecognised"));
}

static void beam_fallback(void **state) {
    (void)state;
    kvp_manager_inputs in = plain();
    in.use_v2 = true;
    in.max_beam_width = 4;
    kvp_notes notes;
    kvp_notes_clear(&notes);
    kvp_manager_kind k;
    /* Plain V2 under beam search falls back to paged v1 with a warning. */
    assert_int_equal(kvp_manager_select(&in, &k, &notes, NULL), KVP_OK);
    assert_int_equal(k, KVP_MANAGER_PAGED_V1);
    assert_non_null(strstr(notes.text[0], "max_beam_width > 1"));
    assert_string_equal(kvp_v2_incompatible_feature(4), "max_beam_width > 1");
    assert_null(kvp_v2_incompatible_feature(1));
    /* Structural V2 users fail instead. */
    in.sparse_algorithm = "dsa";
    expect_error(&in, KVP_UNSUPPORTED, "max_beam_width", "sparse-attention");
    in = plain();
    in.is_gemma4_hybrid = true;
    in.max_beam_width = 2;
    expect_error(&in, KVP_UNSUPPORTED, "max_beam_width", "Gemma4");
    in = plain();
    in.is_mla = true;
    in.fp4_kv = true;
    in.max_beam_width = 2;
    expect_error(&in, KVP_UNSUPPORTED, "max_beam_width", "FP4 MLA");
    in = hybrid();
    in.use_v2 = true;
    in.max_beam_width = 2;
    expect_error(&in, KVP_UNSUPPORTED, "max_beam_width", "max_beam_width=1");
    /* V1 is untouched by beam search. */
    in = plain();
    in.max_beam_width = 8;
    assert_int_equal(pick(&in), KVP_MANAGER_PAGED_V1);
}

static void reuse_with_spec_note(void **state) {
    (void)state;
    kvp_manager_inputs in = hybrid();
    in.enable_block_reuse = true;
    in.has_spec = true;
    kvp_notes notes;
    kvp_notes_clear(&notes);
    kvp_manager_kind k;
    assert_int_equal(kvp_manager_select(&in, &k, &notes, NULL), KVP_OK);
    assert_int_equal(k, KVP_MANAGER_HYBRID_UNIFIED);
    assert_int_equal(notes.count, 1);
    assert_non_null(strstr(notes.text[0], "block reuse does not work with MTP"));
    /* On hybrid-v2 there is nothing to warn about. */
    in.use_v2 = true;
    kvp_notes_clear(&notes);
    assert_int_equal(kvp_manager_select(&in, &k, &notes, NULL), KVP_OK);
    assert_int_equal(notes.count, 0);
}

static void traits_from_models(void **state) {
    (void)state;
    kvp_model *m = NULL;
    kvp_manager_inputs in;
    memset(&in, 0, sizeof in);
    assert_int_equal(kvp_model_from_catalog("deepseek-v3", NULL, &m, NULL), KVP_OK);
    kvp_manager_inputs_from_model(m, KVP_DTYPE_NVFP4, &in);
    assert_true(in.is_mla);
    assert_true(in.fp4_kv);
    assert_false(in.is_hybrid_linear);
    kvp_model_free(m);
    memset(&in, 0, sizeof in);
    assert_int_equal(kvp_model_from_catalog("qwen3-next-80b-a3b-thinking", NULL, &m, NULL),
                     KVP_OK);
    kvp_manager_inputs_from_model(m, KVP_DTYPE_AUTO, &in);
    assert_true(in.is_hybrid_linear);
    assert_int_equal(in.num_recurrent_layers, 36); /* 48 layers, every 4th full attention */
    kvp_model_free(m);
    memset(&in, 0, sizeof in);
    assert_int_equal(kvp_model_from_catalog("gemma-4-26b-a4b", NULL, &m, NULL), KVP_OK);
    kvp_manager_inputs_from_model(m, KVP_DTYPE_AUTO, &in);
    assert_true(in.is_gemma4_hybrid);
    kvp_model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(non_hybrid),     cmocka_unit_test(fp4_mla),
        cmocka_unit_test(hybrid_routes),  cmocka_unit_test(kimi_and_disagg),
        cmocka_unit_test(overrides),      cmocka_unit_test(beam_fallback),
        cmocka_unit_test(reuse_with_spec_note), cmocka_unit_test(traits_from_models),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
