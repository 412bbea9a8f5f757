/* test_json_writer.c — kvp__jw (src/util/json_writer.h): one document written
 * as text is byte for byte what the tree the same calls build dumps to
 * (kvp__json_dump, itself held to jansson by test_json_dump), and both are
 * the text worked out by hand below; and `plan --json` written as text (what
 * kvp_render_plan_json and kvp_json_call hand out) is the tree `check`
 * embeds, for every catalogue model under every engine. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kvplan/deploy.h"
#include "kvplan/gpu.h"
#include "kvplan/model.h"
#include "kvplan/render.h"
#include "json_error.h"
#include "json_writer.h"
#include "render_internal.h"

/* One document of every kind of value, through writer `w`. */
static void write_sample(kvp__jw *w) {
    kvp__jw_set(w, "n", kvp__jv_u64(42));
    kvp__jw_set(w, "max", kvp__jv_u64((uint64_t)INT64_MAX));
    kvp__jw_set(w, "too_big", kvp__jv_u64((uint64_t)INT64_MAX + 1)); /* null, never wrapped */
    kvp__jw_set(w, "bad_utf8", kvp__jv_str("\xc3\x28"));              /* left out */
    kvp__jw_set(w, "no_text", kvp__jv_str(NULL));                     /* left out */
    kvp__jw_set(w, "nan", kvp__jv_real(NAN));                         /* left out */
    kvp__jw_set(w, "frac", kvp__jv_real(0.9));
    kvp__jw_set(w, "s", kvp__jv_str("a\"b\\c\n\x01 é"));
    kvp__jw_object(w, "empty_object");
    kvp__jw_end(w);
    kvp__jw_array(w, "list");
    kvp__jw_set(w, NULL, kvp__jv_bool(true));
    kvp__jw_set(w, NULL, kvp__jv_str("\xff")); /* left out: no element, no comma */
    kvp__jw_set(w, NULL, kvp__jv_null());
    kvp__jw_array(w, NULL);
    kvp__jw_end(w);
    kvp__jw_object(w, NULL);
    kvp__jw_set(w, "k", kvp__jv_bool(false));
    kvp__jw_end(w);
    kvp__jw_end(w);
}

/* The sample as jansson lays it out with JSON_INDENT(2): "too_big" above
 * INT64_MAX (9,223,372,036,854,775,807) is null; 0.9 at 17 digits is
 * 0.90000000000000002 and at 10 digits 0.9; '"', '\\', '\n' and U+0001
 * escaped, 'é' (C3 A9) kept; the three members jansson makes no value of are
 * missing, and so is the bad element of "list". */
static const char *const k_sample_17 =
    "{\n"
    "  \"n\": 42,\n"
    "  \"max\": 9223372036854775807,\n"
    "  \"too_big\": null,\n"
    "  \"frac\": 0.90000000000000002,\n"
    "  \"s\": \"a\\\"b\\\\c\\n\\u0001 \xc3\xa9\",\n"
    "  \"empty_object\": {},\n"
    "  \"list\": [\n"
    "    true,\n"
    "    null,\n"
    "    [],\n"
    "    {\n"
    "      \"k\": false\n"
    "    }\n"
    "  ]\n"
    "}";

static void check_flags(size_t flags, const char *expected) {
    kvp__jw t;
    kvp__jw_text(&t, flags);
    write_sample(&t);
    char *text = kvp__jw_take_text(&t);
    assert_non_null(text);

    kvp__jw tr;
    kvp__jw_tree(&tr);
    write_sample(&tr);
    json_t *tree = kvp__jw_take_tree(&tr);
    assert_non_null(tree);
    char *dumped = kvp__json_dump(tree, flags, NULL);
    char *jansson = kvp__json_dump_jansson(tree, flags, NULL);
    json_decref(tree);
    assert_non_null(dumped);
    assert_string_equal(text, dumped);
    assert_string_equal(text, jansson);
    if (expected) assert_string_equal(text, expected);
    free(text);
    free(dumped);
    free(jansson);
}

static void test_sample_by_hand(void **state) {
    (void)state;
    check_flags(JSON_INDENT(2) | JSON_PRESERVE_ORDER, k_sample_17);
    /* Compact: no spaces, no line breaks; 0.9 at 10 digits is 0.9. */
    check_flags(JSON_COMPACT | JSON_REAL_PRECISION(10),
                "{\"n\":42,\"max\":9223372036854775807,\"too_big\":null,\"frac\":0.9,"
                "\"s\":\"a\\\"b\\\\c\\n\\u0001 \xc3\xa9\",\"empty_object\":{},"
                "\"list\":[true,null,[],{\"k\":false}]}");
    /* No indent, not compact: ", " between members; ASCII only: é as \u00E9. */
    check_flags(JSON_ENSURE_ASCII,
                "{\"n\": 42, \"max\": 9223372036854775807, \"too_big\": null, "
                "\"frac\": 0.90000000000000002, \"s\": \"a\\\"b\\\\c\\n\\u0001 \\u00E9\", "
                "\"empty_object\": {}, \"list\": [true, null, [], {\"k\": false}]}");
}

/* Calls out of order fail the document, never write a broken one. */
static void test_misuse_fails(void **state) {
    (void)state;
    kvp__jw w;
    kvp__jw_text(&w, JSON_INDENT(2));
    kvp__jw_array(&w, "a");
    kvp__jw_set(&w, "key_in_array", kvp__jv_u64(1));
    assert_null(kvp__jw_take_text(&w));

    kvp__jw_tree(&w);
    kvp__jw_set(&w, NULL, kvp__jv_u64(1)); /* an element in an object */
    assert_null(kvp__jw_take_tree(&w));

    kvp__jw_text(&w, JSON_INDENT(2));
    kvp__jw_object(&w, "open"); /* never closed */
    assert_null(kvp__jw_take_text(&w));

    kvp__jw_text(&w, JSON_INDENT(2));
    for (int i = 0; i < KVP__JW_DEPTH + 1; i++) kvp__jw_object(&w, "deeper");
    assert_true(w.failed);
    assert_null(kvp__jw_take_text(&w));
}

/* Writing into an object that exists: what fit's points use. */
static void test_tree_on(void **state) {
    (void)state;
    json_t *o = json_object();
    json_object_set_new(o, "first", json_integer(1));
    kvp__jw w;
    kvp__jw_tree_on(&w, o);
    kvp__jw_set(&w, "second", kvp__jv_u64(2));
    json_t *same = kvp__jw_take_tree(&w);
    assert_ptr_equal(same, o);
    json_decref(same);
    char *text = kvp__json_dump(o, JSON_COMPACT, NULL);
    assert_string_equal(text, "{\"first\":1,\"second\":2}");
    free(text);
    json_decref(o);
}

/* `plan --json` as text equals the tree of the same plan, dumped with the
 * document's flags (reals at 10 digits under the creator, 17 otherwise), for
 * every catalogue model under every engine on an H200 at 8,192 tokens,
 * refused plans included (their document carries the figures computed before
 * the refusal). */
static void test_plan_text_is_tree(void **state) {
    (void)state;
    kvp_gpu_info gpu;
    kvp_error err;
    assert_int_equal(kvp_gpu_lookup_in(NULL, "h200", &gpu, &err), KVP_OK);
    kvp_deploy_result *r = kvp_deploy_result_new();
    assert_non_null(r);
    size_t compared = 0, ok = 0, opened = 0;
    for (size_t i = 0; i < kvp_catalog_count(); i++) {
        kvp_model *m = NULL;
        assert_int_equal(kvp_model_open(kvp_catalog_name(i), NULL, &m, &err), KVP_OK);
        opened++;
        for (int e = 0; e < KVP_ENGINE_COUNT; e++) {
            kvp_deployment d = kvp_deployment_default();
            d.model = m;
            d.point.engine = (kvp_engine)e;
            d.point.max_seq_len = 8192;
            kvp_startup_settings ss = kvp_startup_settings_default();
            kvp_deployment_settle(&d, &ss, &gpu, false);
            assert_int_equal(kvp_deploy_plan(&d, r, &err), KVP_OK); /* refusals: r->status */
            ok += r->status == KVP_OK;
            const char *notes[] = {"a caller's note"};
            kvp_render_input in = {.model = m, .gpu = gpu.name, .total_source = "catalogue",
                                   .notes = notes, .note_count = 1};
            char *text = NULL;
            assert_int_equal(kvp_render_plan_json(&in, r, &text, &err), KVP_OK);
            json_t *tree = kvp__plan_json(&in, r);
            assert_non_null(tree);
            size_t precision = kvp__report_creator_plans(r->point.engine) ? JSON_REAL_PRECISION(10)
                                                                            : JSON_REAL_PRECISION(17);
            char *dumped = kvp__json_dump(tree, KVP__JSON_FLAGS | precision, NULL);
            json_decref(tree);
            assert_non_null(dumped);
            if (strcmp(text, dumped) != 0)
                fail_msg("%s under %s: the text and the tree differ", kvp_catalog_name(i),
                         kvp_engine_name((kvp_engine)e));
            free(text);
            free(dumped);
            compared++;
        }
        kvp_model_free(m);
    }
    kvp_deploy_result_free(r);
    /* Every catalogue model (62 today) under each engine; on one H200 about
     * half are planned, the rest refused (weights above 141 GB, heads, ...). */
    assert_true(opened >= 60);
    assert_int_equal(compared, opened * KVP_ENGINE_COUNT);
    assert_true(ok >= compared / 3 && ok < compared);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sample_by_hand),
        cmocka_unit_test(test_misuse_fails),
        cmocka_unit_test(test_tree_on),
        cmocka_unit_test(test_plan_text_is_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
