/* test_argv_read.c — the one argv reader (src/options/argv_read.c): own words
 * applied in order, the first error stops it, table words and unknown options
 * handed back at their index, one positional and the refusal of a second. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "argv_read.h"

typedef struct {
    bool json, layers;
    uint32_t rank;
    const char *model, *svg;
    kvp__argv_own own[6];
    kvp__argv_spec spec;
} cmd;

static void cmd_init(cmd *c) {
    memset(c, 0, sizeof *c);
    c->rank = 7;
    const kvp__argv_own own[6] = {{"--json", KVP__OWN_FLAG, &c->json, 0, 0, NULL},
                                  {"--layers", KVP__OWN_FLAG, &c->layers, 0, 0, NULL},
                                  {"--pp-rank", KVP__OWN_U32, &c->rank, 0, 65535, NULL},
                                  {"--svg", KVP__OWN_TEXT, &c->svg, 0, 0, NULL},
                                  {"--help", KVP__OWN_HELP, NULL, 0, 0, NULL},
                                  {NULL, 0, NULL, 0, 0, NULL}};
    memcpy(c->own, own, sizeof own);
    c->spec.own = c->own;
    c->spec.positional = &c->model;
    c->spec.second = "cost takes one MODEL, got a second: ";
}

static void own_words_and_positional(void **state) {
    (void)state;
    cmd c;
    cmd_init(&c);
    char *argv[] = {"cost", "--pp-rank=3", "m", "--layers", "--svg", "f.svg", "--json"};
    int i = 1;
    kvp_error err;
    assert_int_equal(kvp__argv_read(&c.spec, 7, argv, &i, &err), KVP__ARGV_DONE);
    assert_int_equal(i, 7); /* every word read: the value "f.svg" with its flag */
    assert_int_equal(c.rank, 3);
    assert_true(c.layers && c.json);
    assert_string_equal(c.model, "m");
    assert_string_equal(c.svg, "f.svg");
}

static void stops_at_table_word_then_goes_on(void **state) {
    (void)state;
    cmd c;
    cmd_init(&c);
    char *argv[] = {"cost", "m", "--tp", "2", "--layers", "-"};
    int i = 1;
    kvp_error err;
    assert_int_equal(kvp__argv_read(&c.spec, 6, argv, &i, &err), KVP__ARGV_OPTION);
    assert_int_equal(i, 2); /* "--tp": the caller's (a table row) */
    i = 4;                  /* the caller took "--tp 2" */
    /* "-" is a word, not an option: a second positional, refused with both. */
    assert_int_equal(kvp__argv_read(&c.spec, 6, argv, &i, &err), KVP__ARGV_SECOND);
    assert_int_equal(i, 5);
    assert_true(c.layers);
    assert_string_equal(err.message, "cost takes one MODEL, got a second: '-'");
    assert_string_equal(err.key, "");
}

static void first_error_wins(void **state) {
    (void)state;
    cmd c;
    cmd_init(&c);
    kvp_error err;
    /* 70000 > 65535: out of range, before the unknown --bogus is seen. */
    char *a1[] = {"cost", "--pp-rank", "70000", "--bogus"};
    int i = 1;
    assert_int_equal(kvp__argv_read(&c.spec, 4, a1, &i, &err), KVP__ARGV_FAIL);
    assert_string_equal(err.message, "--pp-rank: 70000 is out of range, expected 0 to 65535");
    assert_int_equal(c.rank, 7); /* untouched */
    /* A value missing at the end of the line. */
    char *a2[] = {"cost", "m", "--svg"};
    i = 1;
    assert_int_equal(kvp__argv_read(&c.spec, 3, a2, &i, &err), KVP__ARGV_FAIL);
    assert_string_equal(err.message, "--svg needs a value");
    /* --help (or -h) wins over what follows, not over what came before. */
    char *a3[] = {"cost", "-h", "--pp-rank", "x"};
    i = 1;
    assert_int_equal(kvp__argv_read(&c.spec, 4, a3, &i, &err), KVP__ARGV_HELP);
    char *a4[] = {"cost", "--pp-rank", "x", "--help"};
    i = 1;
    assert_int_equal(kvp__argv_read(&c.spec, 4, a4, &i, &err), KVP__ARGV_FAIL);
    /* A flag given a value is no own word: handed back (the CLI says "takes no value"). */
    char *a5[] = {"cost", "--json=true"};
    i = 1;
    assert_int_equal(kvp__argv_read(&c.spec, 2, a5, &i, &err), KVP__ARGV_OPTION);
    assert_false(c.json);
}

static void count_given_or_not(void **state) {
    (void)state;
    kvp__argv_count tc = {0, false};
    const kvp__argv_own own[] = {{"--target-concurrency", KVP__OWN_COUNT, &tc, 0, 0, NULL},
                                 {NULL, 0, NULL, 0, 0, NULL}};
    kvp__argv_spec spec = {.own = own};
    kvp_error err;
    char *a1[] = {"why", "--target-concurrency=2k"};
    int i = 1;
    assert_int_equal(kvp__argv_read(&spec, 2, a1, &i, &err), KVP__ARGV_DONE);
    assert_true(tc.given);
    assert_int_equal(tc.value, 2048); /* 2k = 2 * 1024 (kvp_parse_count: k is 1024) */
    /* The value missing: two lines, as the count read of nothing says it too. */
    char *a2[] = {"why", "--target-concurrency"};
    i = 1;
    assert_int_equal(kvp__argv_read(&spec, 2, a2, &i, &err), KVP__ARGV_FAIL);
    assert_string_equal(err.message, "--target-concurrency needs a value\n"
                                     "--target-concurrency: missing count");
}

static void second_positional_after_first(void **state) {
    (void)state;
    cmd c;
    cmd_init(&c);
    c.spec.second = "local: one MODEL expected, found ";
    c.spec.second_after = true;
    c.spec.second_key = "MODEL";
    char *argv[] = {"local", "a", "b"};
    int i = 1;
    kvp_error err;
    assert_int_equal(kvp__argv_read(&c.spec, 3, argv, &i, &err), KVP__ARGV_SECOND);
    assert_string_equal(err.message, "local: one MODEL expected, found 'b' after 'a'");
    assert_string_equal(err.key, "MODEL");
    assert_int_equal(err.code, KVP_INVALID_ARG);
    /* second_key "": an error naming no key (the CLI prints it as JSON under
     * --json, `fit a b --json`), told from a value's refusal by its stop. */
    c.spec.second = "fit takes one MODEL, got a second: ";
    c.spec.second_after = false;
    c.spec.second_key = "";
    c.model = NULL;
    i = 1;
    assert_int_equal(kvp__argv_read(&c.spec, 3, argv, &i, &err), KVP__ARGV_SECOND);
    assert_int_equal(i, 2);
    assert_string_equal(err.message, "fit takes one MODEL, got a second: 'b'");
    assert_string_equal(err.key, "");
    /* Without a positional slot every word is handed back as an option. */
    c.spec.positional = NULL;
    i = 1;
    assert_int_equal(kvp__argv_read(&c.spec, 3, argv, &i, &err), KVP__ARGV_OPTION);
    assert_int_equal(i, 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(own_words_and_positional),
        cmocka_unit_test(stops_at_table_word_then_goes_on),
        cmocka_unit_test(first_error_wins),
        cmocka_unit_test(count_given_or_not),
        cmocka_unit_test(second_positional_after_first),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
