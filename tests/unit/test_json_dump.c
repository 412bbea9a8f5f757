/* test_json_dump.c — kvp__json_dump (src/util/json_dump.c) writes a jansson
 * tree itself, for speed; it must write exactly what jansson's own dumper
 * writes under every flag kvplan passes. Each case compares the two byte for
 * byte, and a few pin the text by hand so that a wrong reference would show. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "json_error.h"

/* Every flag combination kvplan uses (src/report, src/bind, src/serve), and a
 * few it may: indents 0..3, compact, ASCII, slash, precisions 0, 10, 17. */
static const size_t k_flags[] = {
    0,
    JSON_COMPACT,
    JSON_INDENT(2) | JSON_PRESERVE_ORDER,
    JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10),
    JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17),
    JSON_COMPACT | JSON_ENSURE_ASCII,
    JSON_INDENT(3) | JSON_ESCAPE_SLASH,
    JSON_INDENT(1) | JSON_COMPACT | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(4),
    JSON_ENCODE_ANY | JSON_INDENT(2),
};

/* Our text and jansson's, equal under every flag set; returns ours at `flags_pin`. */
static char *same_as_jansson(const json_t *doc, size_t flags_pin) {
    char *pinned = NULL;
    for (size_t i = 0; i < sizeof k_flags / sizeof *k_flags; i++) {
        char *ours = kvp__json_dump(doc, k_flags[i], NULL);
        char *theirs = json_dumps(doc, k_flags[i]);
        if (!theirs) {
            assert_null(ours);
            continue;
        }
        assert_non_null(ours);
        assert_string_equal(ours, theirs);
        free(theirs);
        if (k_flags[i] == flags_pin && !pinned)
            pinned = ours;
        else
            free(ours);
    }
    return pinned;
}

static void test_plan_like_document(void **state) {
    (void)state;
    json_t *d = json_pack("{s:i, s:s, s:{s:I, s:n, s:b}, s:[i, f, f], s:[], s:{}, s:f}",
                          "schema_version", 2, "model", "meta-llama/Llama-3.1-8B", "budget",
                          "budget_bytes", (json_int_t)60395902229, "note", "ok", 1, "pools", 7,
                          0.9, 1e-5, "empty", "none", "ratio", 2.5);
    assert_non_null(d);
    char *t = same_as_jansson(d, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    /* Worked by hand from jansson's format: two-space indent, ": " after keys,
     * empty containers closed at once, 0.9 at 17 digits is 0.90000000000000002,
     * 1e-05 loses its exponent's zero. */
    assert_string_equal(t, "{\n"
                           "  \"schema_version\": 2,\n"
                           "  \"model\": \"meta-llama/Llama-3.1-8B\",\n"
                           "  \"budget\": {\n"
                           "    \"budget_bytes\": 60395902229,\n"
                           "    \"note\": null,\n"
                           "    \"ok\": true\n"
                           "  },\n"
                           "  \"pools\": [\n"
                           "    7,\n"
                           "    0.90000000000000002,\n"
                           "    1.0000000000000001e-5\n"
                           "  ],\n"
                           "  \"empty\": [],\n"
                           "  \"none\": {},\n"
                           "  \"ratio\": 2.5\n"
                           "}");
    free(t);
    json_decref(d);
}

static void test_numbers(void **state) {
    (void)state;
    const double reals[] = {0.0, -0.0, 1.0, -2.5, 1e20, 1e-300, 123456789012345678.0, 3.0e300,
                            0.1, 1.0 / 3.0, 76.7, 1e21, 5e-324};
    const json_int_t ints[] = {0, -1, 1, INT64_MAX, INT64_MIN, 1000000007, -9999999999};
    json_t *a = json_array();
    for (size_t i = 0; i < sizeof reals / sizeof *reals; i++) json_array_append_new(a, json_real(reals[i]));
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++) json_array_append_new(a, json_integer(ints[i]));
    char *t = same_as_jansson(a, JSON_COMPACT);
    /* 1.0 keeps ".0" (a real stays a real), 1e20 drops the '+', INT64_MIN whole. */
    assert_non_null(strstr(t, "[0.0,-0.0,1.0,-2.5,1e20,1e-300,"));
    assert_non_null(strstr(t, ",9223372036854775807,-9223372036854775808,"));
    free(t);
    json_decref(a);
}

static void test_strings(void **state) {
    (void)state;
    json_t *o = json_object();
    /* Quotes, backslash, every named escape, other controls as \u00XX in
     * capitals, DEL kept, a slash, UTF-8 of 2, 3 and 4 bytes, a NUL inside. */
    json_object_set_new(o, "q\"k\\", json_string("a\"b\\c\b\f\n\r\t\x01\x1f\x7f/d"));
    json_object_set_new(o, "utf8", json_string("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
    json_object_set_new(o, "nul", json_stringn("a\0b", 3));
    json_object_setn_new(o, "k\0ey", 4, json_true());
    char *t = same_as_jansson(o, JSON_COMPACT | JSON_ENSURE_ASCII);
    assert_non_null(strstr(t, "\"a\\\"b\\\\c\\b\\f\\n\\r\\t\\u0001\\u001F\x7f/d\""));
    /* U+1F600 as the surrogate pair D83D DE00. */
    assert_non_null(strstr(t, "\"caf\\u00E9 \\u20AC \\uD83D\\uDE00\""));
    assert_non_null(strstr(t, "\"a\\u0000b\""));
    assert_non_null(strstr(t, "\"k\\u0000ey\":true"));
    free(t);
    json_decref(o);
}

static void test_scalars_and_nesting(void **state) {
    (void)state;
    /* A bare scalar: only under JSON_ENCODE_ANY (NULL otherwise, as jansson). */
    json_t *s = json_string("x");
    assert_null(kvp__json_dump(s, JSON_INDENT(2), NULL));
    char *t = same_as_jansson(s, JSON_ENCODE_ANY | JSON_INDENT(2));
    assert_string_equal(t, "\"x\"");
    free(t);
    json_decref(s);
    assert_null(kvp__json_dump(NULL, 0, NULL));
    /* Deep nesting: 200 arrays in one another, indent grows with depth. */
    json_t *root = json_array(), *cur = root;
    for (int i = 0; i < 200; i++) {
        json_t *next = json_array();
        json_array_append_new(cur, next);
        json_array_append_new(cur, json_integer(i));
        cur = next;
    }
    t = same_as_jansson(root, 0);
    assert_non_null(t); /* flags 0: ", " between items, no newlines */
    assert_int_equal(strncmp(t, "[[[", 3), 0);
    free(t);
    json_decref(root);
}

/* Sort keys is jansson's own (the writer hands it over): still equal. */
static void test_other_flags_go_to_jansson(void **state) {
    (void)state;
    json_t *o = json_pack("{s:i, s:i}", "b", 1, "a", 2);
    char *ours = kvp__json_dump(o, JSON_COMPACT | JSON_SORT_KEYS, NULL);
    assert_string_equal(ours, "{\"a\":2,\"b\":1}");
    free(ours);
    json_decref(o);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_like_document),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_scalars_and_nesting),
        cmocka_unit_test(test_other_flags_go_to_jansson),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
