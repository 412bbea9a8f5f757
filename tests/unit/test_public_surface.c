/* test_public_surface.c — issue 27 item 7: every function libkvplan.so exports
 * has a caller outside the library. These are the public functions kept
 * although only the library itself called them (CHANGELOG.md 1.0.0, the
 * decisions table): the names of the enums that public results carry, the
 * dtype's bytes, the pool's spec accessors, the text builder of
 * kvplan/report.h, the panel chart (docs/answers.md), the affine guard
 * (docs/families.md) and a simulator pool from a cost (docs/sim.md). Each is
 * called here as a library user would, against values worked by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kvplan/kvplan.h"
#include "kvplan/local.h"
#include "kvplan/pool.h"
#include "kvplan/report.h"

/* The names of enums a public result carries: each value's name, and the
 * fallback for a value out of range (the tables of startup.c, seed_rules.c,
 * fit_solve.c, decl_parse.c, creator.c, report_svg.c, split.c). */
static void test_enum_names(void **state) {
    (void)state;
    const struct { const char *got, *want; } k_names[] = {
        {kvp_check_status_name(KVP_CHECK_PASS), "pass"},
        {kvp_check_status_name(KVP_CHECK_UNKNOWN), "unknown"},
        {kvp_compression_name(KVP_COMPRESSION_COLD_PAGE_QUANT), "quantization_for_cold_page"},
        {kvp_compression_name(KVP_COMPRESSION_COUNT), "unknown"},
        {kvp_fit_target_name(KVP_FIT_PARALLEL), "tp"},
        {kvp_fit_target_name(KVP_FIT_KV_DTYPE), "kv_dtype"},
        {kvp_local_bound_name(KVP_LOCAL_BOUND_DECODE_LOOP_TRIP_COUNT), "decode_loop_trip_count"},
        {kvp_local_bound_name(KVP_LOCAL_BOUND_COUNT), "?"},
        {kvp_local_cache_kind_name(KVP_LOCAL_KIND_CAPTURED_GRAPH_POOL), "captured_graph_pool"},
        {kvp_local_row_driver_name(KVP_LOCAL_ROWS_MAX_NUM_SEQS), "MAX_NUM_SEQS"},
        {kvp_local_scope_name(KVP_LOCAL_SCOPE_GRAPH_RESIDENT), "graph_resident"},
        {kvp_manager_role_name(KVP_ROLE_DRAFT), "draft"},
        {kvp_mem_part_name(KVP_MEM_PART_KV), "kv"},
        {kvp_mem_part_name(KVP_MEM_PART_FREE), "free"},
        {kvp_run_dtype_name(KVP_RUN_DTYPE_BFLOAT16), "bfloat16"},
        {kvp_spec_mode_name(KVP_SPEC_TWO_MODEL), "two-model"},
        {kvp_spec_mode_name(KVP_SPEC_MODE_COUNT), "unknown"},
    };
    for (size_t i = 0; i < sizeof k_names / sizeof k_names[0]; i++)
        assert_string_equal(k_names[i].got, k_names[i].want);
    /* The catalogue's first alias: meta-llama/Llama-3.1-8B-Instruct, its name
     * after the '/' in lower case; none past the end. */
    assert_true(kvp_catalog_alias_count() > 0);
    assert_string_equal(kvp_catalog_alias_name(0), "llama-3.1-8b-instruct");
    assert_null(kvp_catalog_alias_name(kvp_catalog_alias_count()));
}

static void test_dtype_bytes(void **state) {
    (void)state;
    uint64_t b = 0;
    /* 1000 bf16 values: 1000 x 2 = 2000 bytes. */
    assert_int_equal(kvp_dtype_bytes(KVP_DTYPE_BF16, 1000, &b), KVP_OK);
    assert_int_equal(b, 2000);
    /* 33 nvfp4 values: ceil(33 / 2) = 17 bytes + ceil(33 / 16) = 3 scale bytes = 20. */
    assert_int_equal(kvp_dtype_bytes(KVP_DTYPE_NVFP4, 33, &b), KVP_OK);
    assert_int_equal(b, 20);
    /* AUTO has no size. */
    assert_int_equal(kvp_dtype_bytes(KVP_DTYPE_AUTO, 1, &b), KVP_INVALID_ARG);
}

/* A two-layer Llama: 2 KV heads of 64, bf16. One token costs 2 layers x 2 heads
 * x (64 + 64) x 2 B = 1,024 B; a block of 32 tokens (the default) 32,768 B. */
static const char k_llama[] =
    "{\"model_type\": \"llama\", \"num_hidden_layers\": 2, \"hidden_size\": 512,"
    " \"num_attention_heads\": 8, \"num_key_value_heads\": 2, \"head_dim\": 64,"
    " \"intermediate_size\": 1024, \"vocab_size\": 1000, \"torch_dtype\": \"bfloat16\","
    " \"max_position_embeddings\": 4096}";

static void test_pool_from_cost(void **state) {
    (void)state;
    kvp_error err;
    kvp_model *m = NULL;
    assert_int_equal(kvp_model_from_hf_json(k_llama, strlen(k_llama), "t.json", NULL, &m, &err),
                     KVP_OK);
    /* Every cache is one entry per token: the affine planners accept it. */
    assert_int_equal(kvp_cost_require_affine(m, "the test", &err), KVP_OK);
    kvp_cost_settings s = kvp_cost_settings_default();
    kvp_cost cost;
    assert_int_equal(kvp_cost_compute(m, &s, &cost, &err), KVP_OK);
    assert_int_equal(cost.bytes_per_token, 1024);
    kvp_pool_config cfg;
    assert_int_equal(kvp_pool_config_from_cost(&cost, 100, 0, 4, 4096, false, &cfg, &err), KVP_OK);
    assert_int_equal(cfg.pool_count, 1);
    assert_int_equal(cfg.pools[0].blocks, 100);
    assert_int_equal(cfg.pools[0].tokens_per_block, 32);
    assert_int_equal(cfg.pools[0].page_bytes, 32768); /* 32 x 1,024 */
    /* No blocks is refused. */
    kvp_pool_config bad;
    assert_int_equal(kvp_pool_config_from_cost(&cost, 0, 0, 4, 4096, false, &bad, &err),
                     KVP_INVALID_ARG);
    kvp_pool *pool = NULL;
    assert_int_equal(kvp_pool_new(&cfg, NULL, &pool, &err), KVP_OK);
    assert_int_equal(kvp_pool_count(pool), 1);
    const kvp_pool_spec *spec = kvp_pool_get_spec(pool, 0);
    assert_non_null(spec);
    assert_int_equal(spec->blocks, 100);
    assert_int_equal(spec->kind, KVP_CACHE_FULL);
    assert_null(kvp_pool_get_spec(pool, 1));
    kvp_pool_free(pool);
    kvp_model_free(m);

    /* One entry per 4 tokens (DeepSeek-V4's compress_ratios) is refused, naming
     * the planner and the key. */
    static const char v4[] =
        "{\"model_type\": \"deepseek_v4\", \"num_hidden_layers\": 2, \"num_attention_heads\": 8,"
        " \"head_dim\": 256, \"qk_rope_head_dim\": 64, \"sliding_window\": 128,"
        " \"index_head_dim\": 128, \"max_position_embeddings\": 8192,"
        " \"compress_ratios\": [4, 128]}";
    assert_int_equal(kvp_model_from_hf_json(v4, strlen(v4), "v4.json", NULL, &m, &err), KVP_OK);
    assert_int_equal(kvp_cost_require_affine(m, "the test", &err), KVP_UNSUPPORTED);
    assert_string_equal(err.key, "compress_ratios");
    assert_non_null(strstr(err.message, "the test"));
    kvp_model_free(m);
}

/* The text builder: raw, formatted and escaped text, an escaped paragraph. */
static void test_text_builder(void **state) {
    (void)state;
    kvp_report_text t;
    kvp_report_text_init(&t, NULL);
    kvp_report_append(&t, "<b>");
    kvp_report_appendf(&t, "%u GiB", 80u);
    kvp_report_append_escaped(&t, " <a & 'b'>");
    kvp_html_paragraph(&t, "x < y");
    assert_string_equal(t.data, "<b>80 GiB &lt;a &amp; &#39;b&#39;&gt;<p>x &lt; y</p>\n");
    kvp_report_text_free(&t);
}

/* Panels: one <g> per chart; 0 or more than 8 charts are refused. */
static void test_line_panels(void **state) {
    (void)state;
    static const double x[3] = {1, 2, 3}, y[3] = {4, 5, 6};
    kvp_chart_series s = {"s", 3, x, y};
    kvp_line_chart c = {"A", "x", "y", true, false, 1, &s, NULL};
    kvp_line_chart two[2] = {c, c};
    two[1].title = "B";
    kvp_report_text t;
    kvp_report_text_init(&t, NULL);
    kvp_error err;
    assert_int_equal(kvp_svg_line_panels("both", two, 2, &t, &err), KVP_OK);
    assert_non_null(strstr(t.data, "<g class=\"panel\" id=\"panel1\">"));
    assert_null(strstr(t.data, "id=\"panel2\""));
    assert_non_null(strstr(t.data, ">both<"));
    kvp_report_text_free(&t);
    kvp_report_text_init(&t, NULL);
    assert_int_equal(kvp_svg_line_panels("none", two, 0, &t, &err), KVP_INVALID_ARG);
    assert_string_equal(err.key, "charts");
    kvp_report_text_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_enum_names),    cmocka_unit_test(test_dtype_bytes),
        cmocka_unit_test(test_pool_from_cost), cmocka_unit_test(test_text_builder),
        cmocka_unit_test(test_line_panels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
