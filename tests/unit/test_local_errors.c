/* test_local_errors.c — every bad declaration is an error that names the
 * declaration and the field (file, JSON pointer, message), with the error
 * record poisoned first; never a default, never a wrapped number. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "kvplan/local.h"

/* One declaration named "cache" at /module_tree/declares/0, fields spliced in. */
#define PTR "/module_tree/declares/0"
#define KIND "\"kind\":\"static_cache\","
#define BOUND "\"bound\":{\"mechanism\":\"constant\",\"max_cache_len\":2048},"
#define GEOM "\"geometry\":{\"layers\":24,\"kv_heads\":2,\"head_dim\":64,\"dtype\":\"bf16\"},"
#define SCOPE "\"scope\":\"invocation\","
#define FIXED "\"row_driver\":\"FIXED\",\"rows_fixed\":1,\"rows_reason\":\"one call\""

static void expect_error(const char *fields, kvp_status code, const char *key,
                         const char *in_message) {
    char text[2048];
    snprintf(text, sizeof text,
             "{\"model\":\"t\",\"module_tree\":{\"declares\":[{\"name\":\"cache\",%s}]}}", fields);
    kvp_local_decls *d = (kvp_local_decls *)text; /* poisoned: must come back NULL */
    kvp_error err;
    memset(&err, 0x5A, sizeof err);
    kvp_status st = kvp_local_decls_from_json(text, strlen(text), "bad.json", NULL, &d, &err);
    if (st != code || strcmp(err.key, key) != 0 || !strstr(err.message, in_message))
        fprintf(stderr, "fields: %s\n  got %s key '%s': %s\n", fields, kvp_status_name(st),
                err.key, err.message);
    assert_int_equal(st, code);
    assert_null(d);
    assert_string_equal(err.file, "bad.json");
    assert_string_equal(err.key, key);
    /* Names the declaration ... */
    assert_non_null(strstr(err.message, "declaration 'cache'"));
    /* ... and what is wrong with the field. */
    assert_non_null(strstr(err.message, in_message));
}

static void test_valid_baseline(void **state) {
    (void)state;
    /* The spliced fields are valid on their own: each test below breaks one. */
    const char *text = "{\"model\":\"t\",\"module_tree\":{\"declares\":[{\"name\":\"cache\","
                       KIND BOUND GEOM SCOPE FIXED "}]}}";
    kvp_local_decls *d = NULL;
    kvp_error err;
    assert_int_equal(kvp_local_decls_from_json(text, strlen(text), "ok.json", NULL, &d, &err),
                     KVP_OK);
    assert_string_equal(kvp_local_decls_model(d), "t");
    kvp_local_decls_free(d);
}

static void test_fixed_needs_reason(void **state) {
    (void)state;
    expect_error(KIND BOUND GEOM SCOPE "\"row_driver\":\"FIXED\",\"rows_fixed\":1", KVP_CONFIG,
                 PTR "/rows_reason", "FIXED needs a non-empty rows_reason");
    expect_error(KIND BOUND GEOM SCOPE "\"row_driver\":\"FIXED\",\"rows_fixed\":1,\"rows_reason\":\"\"",
                 KVP_CONFIG, PTR "/rows_reason", "rows_reason");
    expect_error(KIND BOUND GEOM SCOPE "\"row_driver\":\"FIXED\",\"rows_reason\":\"r\"", KVP_CONFIG,
                 PTR "/rows_fixed", "FIXED needs rows_fixed");
    expect_error(KIND BOUND GEOM SCOPE "\"row_driver\":\"MAX_NUM_SEQS\",\"rows_fixed\":4", KVP_CONFIG,
                 PTR "/rows_fixed", "only for row_driver FIXED");
    /* A misspelt key is not silently an absent one. */
    expect_error(KIND BOUND GEOM SCOPE "\"row_driver\":\"FIXED\",\"rows_fixed\":1,\"rows_reasons\":\"r\"",
                 KVP_CONFIG, PTR "/rows_reasons", "unknown key 'rows_reasons'");
}

static void test_bad_bounds(void **state) {
    (void)state;
    expect_error(KIND "\"bound\":{\"mechanism\":\"constant\",\"max_cache_len\":0}," GEOM SCOPE FIXED,
                 KVP_CONFIG, PTR "/bound/max_cache_len", "must be at least 1, found 0");
    expect_error(KIND "\"bound\":{\"mechanism\":\"constant\",\"max_cache_len\":-5}," GEOM SCOPE FIXED,
                 KVP_CONFIG, PTR "/bound/max_cache_len", "positive integer, found -5");
    expect_error(KIND "\"bound\":{\"mechanism\":\"encoder_frame_limit\",\"embed_positions\":\"1500\"},"
                 GEOM SCOPE FIXED,
                 KVP_CONFIG, PTR "/bound/embed_positions", "found a string");
    /* window 1 keeps 1 - 1 = 0 positions. */
    expect_error(KIND "\"bound\":{\"mechanism\":\"sliding_window_minus_one\",\"sliding_window\":1},"
                 GEOM SCOPE FIXED,
                 KVP_CONFIG, PTR "/bound/sliding_window", "at least 2");
    expect_error(KIND "\"bound\":{\"mechanism\":\"decode_loop_trip_count\",\"group_size\":0,"
                 "\"max_delay\":7}," GEOM SCOPE FIXED,
                 KVP_CONFIG, PTR "/bound/group_size", "at least 1");
    /* Seed: "No cache is bounded by max_model_len." */
    expect_error(KIND "\"bound\":{\"mechanism\":\"max_model_len\"}," GEOM SCOPE FIXED, KVP_CONFIG,
                 PTR "/bound/mechanism", "max_model_len");
    expect_error(KIND "\"bound\":{\"mechanism\":\"window\",\"sliding_window\":72}," GEOM SCOPE FIXED,
                 KVP_CONFIG, PTR "/bound/mechanism", "unknown mechanism 'window'");
    /* An input of another mechanism is an unknown key. */
    expect_error(KIND "\"bound\":{\"mechanism\":\"constant\",\"sliding_window\":72}," GEOM SCOPE FIXED,
                 KVP_CONFIG, PTR "/bound/sliding_window", "unknown key");
    expect_error(KIND GEOM SCOPE FIXED, KVP_CONFIG, PTR "/bound", "missing required object 'bound'");
}

static void test_unknown_enums(void **state) {
    (void)state;
    expect_error(KIND BOUND GEOM SCOPE "\"row_driver\":\"PER_SESSION\",\"rows_reason\":\"r\"",
                 KVP_CONFIG, PTR "/row_driver", "unknown row_driver 'PER_SESSION'");
    expect_error(KIND BOUND GEOM "\"scope\":\"forever\"," FIXED, KVP_CONFIG, PTR "/scope",
                 "unknown scope 'forever'");
    expect_error(KIND BOUND GEOM FIXED, KVP_CONFIG, PTR "/scope", "missing required 'scope'");
    expect_error("\"kind\":\"paged\"," BOUND GEOM SCOPE FIXED, KVP_CONFIG, PTR "/kind",
                 "unknown kind 'paged'");
    expect_error(KIND BOUND GEOM SCOPE FIXED ",\"when\":{\"async\":true}", KVP_CONFIG,
                 PTR "/when/async", "unknown key 'async'");
    expect_error(KIND BOUND GEOM SCOPE FIXED ",\"when\":{\"streaming\":1}", KVP_CONFIG,
                 PTR "/when/streaming", "true or false");
}

static void test_missing_attribute(void **state) {
    (void)state;
    /* Explicit geometry without a config to read from must be complete. */
    expect_error(KIND BOUND "\"geometry\":{\"layers\":24,\"head_dim\":64,\"dtype\":\"bf16\"},"
                 SCOPE FIXED,
                 KVP_CONFIG, PTR "/geometry/kv_heads", "geometry lacks 'kv_heads'");
    expect_error(KIND BOUND "\"geometry\":{\"layers\":24,\"kv_heads\":2,\"head_dim\":64},"
                 SCOPE FIXED,
                 KVP_CONFIG, PTR "/geometry/dtype", "geometry lacks 'dtype'");
    expect_error(KIND BOUND "\"geometry\":{\"layers\":24,\"kv_heads\":2,\"head_dim\":64,"
                 "\"dtype\":\"nvfp4\"}," SCOPE FIXED,
                 KVP_CONFIG, PTR "/geometry/dtype", "unknown cache dtype 'nvfp4'");
    expect_error(KIND BOUND "\"geometry\":{\"layers\":24,\"kv_heads\":2,\"head_dim\":64,"
                 "\"dtype\":\"bf16\",\"element_bytes\":2}," SCOPE FIXED,
                 KVP_CONFIG, PTR "/geometry/dtype", "not both");
    expect_error(KIND BOUND "\"geometry\":{\"layers\":200000,\"kv_heads\":2,\"head_dim\":64,"
                 "\"dtype\":\"bf16\"}," SCOPE FIXED,
                 KVP_CONFIG, PTR "/geometry/layers", "out of range");
    expect_error(KIND BOUND SCOPE FIXED, KVP_CONFIG, PTR "/geometry",
                 "missing required object 'geometry'");
}

/* Overflow: every number within its own limit, the product past 64 bits. The
 * file loads (each field is plausible alone); the declarer's arithmetic fails
 * and the collector reports it against the declaration and /geometry. */
static void test_overflow(void **state) {
    (void)state;
    /* 2 * 100,000 * 65,536 * 65,536 * 4,294,967,295 * 8 ~ 2^84 > 2^64 */
    const char *text =
        "{\"model\":\"t\",\"module_tree\":{\"declares\":[{\"name\":\"huge\","
        "\"kind\":\"static_cache\","
        "\"bound\":{\"mechanism\":\"constant\",\"max_cache_len\":4294967295},"
        "\"geometry\":{\"layers\":100000,\"kv_heads\":65536,\"head_dim\":65536,"
        "\"element_bytes\":8},"
        "\"scope\":\"invocation\",\"row_driver\":\"FIXED\",\"rows_fixed\":1,\"rows_reason\":\"r\"}"
        "]}}";
    kvp_local_decls *d = NULL;
    kvp_error err;
    assert_int_equal(kvp_local_decls_from_json(text, strlen(text), "big.json", NULL, &d, &err),
                     KVP_OK);
    kvp_local_deployment dep = {1, false, false, false};
    /* An error naming the declaration's geometry, not a skipped declarer: a skipped
     * one would leave the cache out of the totals as 0 B (issue 17). */
    kvp_local_report *r = (kvp_local_report *)&dep;
    memset(&err, 0x5A, sizeof err);
    assert_int_equal(kvp_local_collect(d, &dep, NULL, &r, &err), KVP_OVERFLOW);
    assert_null(r);
    assert_string_equal(err.file, "big.json");
    assert_string_equal(err.key, PTR "/geometry");
    assert_non_null(strstr(err.message, "declaration 'huge'"));
    assert_non_null(strstr(err.message, "does not fit in 64 bits"));
    kvp_local_decls_free(d);

    /* FIXED rows times the row past 64 bits: 2^32-1 rows * (2*1e5*65536*65536*... ) */
    const char *text2 =
        "{\"model\":\"t\",\"module_tree\":{\"declares\":[{\"name\":\"wide\","
        "\"kind\":\"static_cache\","
        "\"bound\":{\"mechanism\":\"constant\",\"max_cache_len\":4294967295},"
        "\"geometry\":{\"layers\":1,\"kv_heads\":65536,\"head_dim\":1,\"element_bytes\":8},"
        "\"scope\":\"invocation\",\"row_driver\":\"FIXED\",\"rows_fixed\":4294967295,"
        "\"rows_reason\":\"r\"}]}}";
    /* per row 2 * 65,536 * 4,294,967,295 * 8 ~ 2^52 fits; * (2^32 - 1) rows ~ 2^84 does not */
    assert_int_equal(kvp_local_decls_from_json(text2, strlen(text2), "wide.json", NULL, &d, &err),
                     KVP_OK);
    memset(&err, 0x5A, sizeof err);
    r = (kvp_local_report *)&dep;
    assert_int_equal(kvp_local_collect(d, &dep, NULL, &r, &err), KVP_OVERFLOW);
    assert_null(r);
    assert_string_equal(err.key, PTR);
    assert_non_null(strstr(err.message, "declaration 'wide'"));
    kvp_local_decls_free(d);
}

static void test_file_level_errors(void **state) {
    (void)state;
    kvp_local_decls *d = NULL;
    kvp_error err;
    const char *bad_json = "{\"model\": \"t\",\n \"module_tree\": {]}";
    assert_int_equal(kvp_local_decls_from_json(bad_json, strlen(bad_json), "s.json", NULL, &d, &err),
                     KVP_SYNTAX);
    assert_int_equal(err.line, 2); /* the ']' on line 2 */
    assert_true(err.column > 0);
    const char *no_model = "{\"module_tree\":{}}";
    assert_int_equal(kvp_local_decls_from_json(no_model, strlen(no_model), "m.json", NULL, &d, &err),
                     KVP_CONFIG);
    assert_string_equal(err.key, "/model");
    const char *dup = "{\"model\":\"t\",\"module_tree\":{\"declares\":["
                      "{\"name\":\"c\"," KIND BOUND GEOM SCOPE FIXED "},"
                      "{\"name\":\"c\"," KIND BOUND GEOM SCOPE FIXED "}]}}";
    assert_int_equal(kvp_local_decls_from_json(dup, strlen(dup), "d.json", NULL, &d, &err),
                     KVP_CONFIG);
    assert_string_equal(err.key, "/module_tree/declares/1/name");
    assert_non_null(strstr(err.message, "declaration 'c'"));
    const char *bad_child = "{\"model\":\"t\",\"module_tree\":{\"children\":[{\"class\":\"X\"}]}}";
    assert_int_equal(kvp_local_decls_from_json(bad_child, strlen(bad_child), "c.json", NULL, &d,
                                               &err),
                     KVP_CONFIG);
    assert_string_equal(err.key, "/module_tree/children/0/name");
    assert_null(d);
    assert_int_equal(kvp_local_decls_load_file("/nonexistent/decl.json", NULL, &d, &err), KVP_IO);
    assert_int_equal(kvp_local_decls_load_named("no-such-model", NULL, &d, &err), KVP_NOT_FOUND);
    /* Every embedded file loads (a broken one would only show as "not found"). */
    for (size_t i = 0; i < kvp_local_model_count(); i++) {
        char name[64];
        assert_non_null(kvp_local_model_name(i, name, sizeof name));
        assert_int_equal(kvp_local_decls_load_named(name, NULL, &d, &err), KVP_OK);
        assert_string_equal(kvp_local_decls_model(d), name);
        kvp_local_decls_free(d);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_baseline),   cmocka_unit_test(test_fixed_needs_reason),
        cmocka_unit_test(test_bad_bounds),       cmocka_unit_test(test_unknown_enums),
        cmocka_unit_test(test_missing_attribute), cmocka_unit_test(test_overflow),
        cmocka_unit_test(test_file_level_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
