/* test_escape.c — the one control-character escaping (src/util/escape.c) used by
 * kvp_error messages, the CLI's stderr lines and its stdout: what a terminal acts on
 * becomes a visible escape, UTF-8 text is kept, nothing is cut in half, and escaping
 * twice equals escaping once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util.h"

static const char *esc(const char *in, unsigned flags) {
    static char out[256];
    kvp__escape_controls(in, strlen(in), out, sizeof out, flags, NULL);
    return out;
}

static void test_c0_del_c1_escaped(void **state) {
    (void)state;
    /* ESC ] 0 ; BEL: an OSC window-title sequence. */
    assert_string_equal(esc("a\x1b]0;t\x07z", 0), "a\\x1b]0;t\\x07z");
    assert_string_equal(esc("x\x7fy", 0), "x\\u007fy");
    /* U+009B (CSI) is C2 9B in UTF-8; U+0085 (NEL) C2 85. */
    assert_string_equal(esc("\xc2\x9b" "31m\xc2\x85", 0), "\\u009b31m\\u0085");
    /* A lone 0x9B byte is not UTF-8: an 8-bit terminal reads it as CSI. */
    assert_string_equal(esc("\x9b" "31m", 0), "\\x9b31m");
    /* One-line errors: newline, CR and tab named; text output keeps \n and \t. */
    assert_string_equal(esc("a\nb\rc\td", 0), "a\\nb\\rc\\td");
    assert_string_equal(esc("a\nb\rc\td", KVP__ESC_KEEP_NEWLINES), "a\nb\\rc\td");
}

static void test_utf8_text_kept(void **state) {
    (void)state;
    /* é (C3 A9), € (E2 82 AC), 😀 (F0 9F 98 80), U+00A0 (C2 A0, not C1). */
    const char *text = "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xc2\xa0";
    assert_string_equal(esc(text, 0), text);
    /* Overlong NUL (C0 80) and a surrogate (ED A0 80) are not UTF-8: bytes escaped. */
    assert_string_equal(esc("\xc0\x80", 0), "\\xc0\\x80");
    assert_string_equal(esc("\xed\xa0\x80", 0), "\\xed\\xa0\\x80");
}

static void test_idempotent(void **state) {
    (void)state;
    char once[256], twice[256];
    const char *in = "k\x1b[2J\x9b\xc2\x9b\x7f\n\x01";
    kvp__escape_controls(in, strlen(in), once, sizeof once, 0, NULL);
    kvp__escape_controls(once, strlen(once), twice, sizeof twice, 0, NULL);
    assert_string_equal(once, twice);
}

static void test_bounds_and_partial(void **state) {
    (void)state;
    char out[6];
    size_t used = 0;
    /* "ab\x1b": "ab" (2) + "\x1b" (4) needs 7 bytes with the NUL: the escape is not
     * cut, the output stops after "ab". */
    size_t n = kvp__escape_controls("ab\x1b", 3, out, sizeof out, 0, &used);
    assert_int_equal(n, 2);
    assert_int_equal(used, 2);
    assert_string_equal(out, "ab");
    /* A UTF-8 sequence cut by the end of the input: with PARTIAL it is left for
     * the next call (used = 1), without it the lone lead byte is escaped. */
    char big[32];
    n = kvp__escape_controls("a\xe2\x82", 3, big, sizeof big, KVP__ESC_PARTIAL, &used);
    assert_int_equal(used, 1);
    assert_string_equal(big, "a");
    n = kvp__escape_controls("a\xe2\x82", 3, big, sizeof big, 0, &used);
    assert_int_equal(used, 3);
    assert_string_equal(big, "a\\xe2\\x82");
    /* An embedded NUL within the length is escaped, not a terminator. */
    n = kvp__escape_controls("a\0b", 3, big, sizeof big, 0, &used);
    assert_string_equal(big, "a\\x00b");
    assert_int_equal(n, 6);
    char s[8];
    assert_string_equal(kvp__escape_str(NULL, s, sizeof s), "");
}

static void test_error_messages_escaped(void **state) {
    (void)state;
    kvp_error err;
    memset(&err, 0x5a, sizeof err);
    kvp__fail(&err, KVP_CONFIG, "evil\x1b]0;x\x07.json", "/model_type", "unknown type '%s'",
              "a\x1b[31mb");
    assert_string_equal(err.message,
                        "evil\\x1b]0;x\\x07.json: /model_type: unknown type 'a\\x1b[31mb'");
    /* The record keeps the raw file name for callers that open it again. */
    assert_string_equal(err.file, "evil\x1b]0;x\x07.json");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_c0_del_c1_escaped),  cmocka_unit_test(test_utf8_text_kept),
        cmocka_unit_test(test_idempotent),         cmocka_unit_test(test_bounds_and_partial),
        cmocka_unit_test(test_error_messages_escaped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
