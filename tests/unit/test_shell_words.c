/* test_shell_words.c — the one splitter of pasted commands (src/options/shell_words.h):
 * quotes, escapes, continuations, comments, $VAR kept as text, and every refusal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "options/shell_words.h"

static kvp__shell_words *g_w;
static kvp_error g_err;

static int setup(void **state) {
    (void)state;
    g_w = malloc(sizeof *g_w);
    return g_w ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    free(g_w);
    return 0;
}

/* Split and join the words with '|' (so spaces inside words show). */
static const char *split(const char *text) {
    static char joined[4096];
    kvp_error_clear(&g_err);
    if (kvp__shell_split(text, g_w, &g_err) != KVP_OK) return NULL;
    size_t n = 0;
    joined[0] = '\0';
    for (size_t i = 0; i < g_w->count; i++)
        n += (size_t)snprintf(joined + n, sizeof joined - n, "%s%s", i ? "|" : "", g_w->word[i]);
    return joined;
}

static void test_plain_words(void **state) {
    (void)state;
    assert_string_equal(split("vllm serve m  --tp\t2\n"), "vllm|serve|m|--tp|2");
    assert_string_equal(split(""), "");
    assert_int_equal(g_w->count, 0);
    assert_string_equal(split("   \n\t "), "");
}

static void test_quotes(void **state) {
    (void)state;
    assert_string_equal(split("a 'b c' \"d e\""), "a|b c|d e");
    /* Quotes join with the text around them into one word. */
    assert_string_equal(split("--x='a b'c"), "--x=a bc");
    /* Inside '...' nothing is special, backslash included. */
    assert_string_equal(split("'a\\\"b'"), "a\\\"b");
    /* Inside "..." only \" \\ \$ \` lose their backslash. */
    assert_string_equal(split("\"a\\\"b\\\\c\\$d\\`e\\nf\""), "a\"b\\c$d`e\\nf");
    assert_string_equal(split("''"), ""); /* one empty word */
    assert_int_equal(g_w->count, 1);
    assert_string_equal(g_w->word[0], "");
    assert_string_equal(split("--speculative-config '{\"method\": \"eagle\"}'"),
                        "--speculative-config|{\"method\": \"eagle\"}");
}

static void test_escapes_and_continuations(void **state) {
    (void)state;
    assert_string_equal(split("a\\ b c"), "a b|c");
    /* A `\` line continuation, LF and CR LF, between and inside words. */
    assert_string_equal(split("vllm serve m \\\n  --tp 2 \\\r\n  --pp 1"), "vllm|serve|m|--tp|2|--pp|1");
    assert_string_equal(split("--max-model\\\n-len 8"), "--max-model-len|8");
    assert_string_equal(split("\"a\\\nb\""), "ab");
}

static void test_comments(void **state) {
    (void)state;
    assert_string_equal(split("vllm serve m # the model\n--tp 2"), "vllm|serve|m|--tp|2");
    assert_string_equal(split("a#b"), "a#b"); /* '#' inside a word is text */
    assert_string_equal(split("'#x'"), "#x");
}

static void test_variables_left_as_text(void **state) {
    (void)state;
    assert_string_equal(split("vllm serve $MODEL --download-dir ${HF_HOME}/x --tp $TP $MODEL"),
                        "vllm|serve|$MODEL|--download-dir|${HF_HOME}/x|--tp|$TP|$MODEL");
    assert_string_equal(g_w->variables, "$MODEL, ${HF_HOME}, $TP"); /* each once */
    assert_string_equal(split("price $5 and $"), "price|$5|and|$");
    assert_string_equal(g_w->variables, ""); /* not names */
}

static void test_refusals(void **state) {
    (void)state;
    assert_null(split("vllm serve 'm"));
    assert_string_equal(g_err.message, "unterminated single quote (the ' at byte 11)");
    assert_null(split("a \"b"));
    assert_string_equal(g_err.message, "unterminated double quote (the \" at byte 2)");
    assert_null(split("a \\"));
    assert_string_equal(g_err.message,
                        "the command ends with a backslash (a continuation with nothing after it)");
    assert_null(split(NULL));
    /* 512 words are fine, 513 are not: "a " x 513. */
    char *many = malloc(2 * 513 + 1);
    assert_non_null(many);
    for (size_t i = 0; i < 513; i++) memcpy(many + 2 * i, "a ", 2);
    many[2 * 512] = '\0';
    assert_non_null(split(many));
    assert_int_equal(g_w->count, 512);
    many[2 * 512] = 'a'; /* the 513th word back */
    many[2 * 513] = '\0';
    assert_null(split(many));
    assert_string_equal(g_err.message, "the command has more than 512 words");
    free(many);
    /* 16384 bytes are fine, 16385 are not. */
    char *big = malloc(KVP_SHELL_MAX_BYTES + 2);
    assert_non_null(big);
    memset(big, 'x', KVP_SHELL_MAX_BYTES + 1);
    big[KVP_SHELL_MAX_BYTES] = '\0';
    assert_non_null(split(big));
    assert_int_equal(strlen(g_w->word[0]), KVP_SHELL_MAX_BYTES);
    big[KVP_SHELL_MAX_BYTES] = 'x';
    big[KVP_SHELL_MAX_BYTES + 1] = '\0';
    assert_null(split(big));
    assert_string_equal(g_err.message, "the command is 16385 bytes, more than 16384");
    free(big);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_plain_words, setup, teardown),
        cmocka_unit_test_setup_teardown(test_quotes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_escapes_and_continuations, setup, teardown),
        cmocka_unit_test_setup_teardown(test_comments, setup, teardown),
        cmocka_unit_test_setup_teardown(test_variables_left_as_text, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
