#define _POSIX_C_SOURCE 200809L /* mkdtemp, mkfifo */
/* test_yaml_options.c — engine option files read with libyaml
 * (src/options/yaml_options.h): nested sections as dotted keys, lists, nulls,
 * aliases never expanded, and every refusal with its place. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "options/yaml_options.h"

static char g_seen[2048];

static kvp_status collect(void *ctx, const char *key, kvp__yaml_kind kind, const char *value,
                          kvp_error *err) {
    (void)ctx;
    (void)err;
    static const char *const kinds[] = {"s", "null", "list", "map", "other"};
    size_t n = strlen(g_seen);
    snprintf(g_seen + n, sizeof g_seen - n, "%s%s=%s%s%s", n ? ";" : "", key, kinds[kind],
             value ? ":" : "", value ? value : "");
    return KVP_OK;
}

static kvp_status parse(const char *text, kvp_error *err) {
    g_seen[0] = '\0';
    kvp_error_clear(err);
    return kvp__yaml_options_parse(text, strlen(text), "x.yaml", collect, NULL, err);
}

static void test_nested_sections(void **state) {
    (void)state;
    kvp_error e;
    assert_int_equal(parse("# LlmArgs\n"
                           "kv_cache_config:\n"
                           "  free_gpu_memory_fraction: 0.8   # leave room\n"
                           "  dtype: \"fp8\"\n"
                           "  max_attention_window: [4096, 32768]\n"
                           "cuda_graph_config: {max_batch_size: 32}\n"
                           "speculative_config:\n"
                           "  decoding_type: MTP\n"
                           "backend: null\n"
                           "quoted: 'null'\n",
                           &e),
                     KVP_OK);
    assert_string_equal(g_seen,
                        "kv_cache_config=map;kv_cache_config.free_gpu_memory_fraction=s:0.8;"
                        "kv_cache_config.dtype=s:fp8;kv_cache_config.max_attention_window=list:"
                        "4096,32768;cuda_graph_config=map;cuda_graph_config.max_batch_size=s:32;"
                        "speculative_config=map;speculative_config.decoding_type=s:MTP;"
                        "backend=null;quoted=s:null");
    /* CR LF line ends, an empty file, an explicit empty document. */
    assert_int_equal(parse("a:\r\n  b: 1\r\n", &e), KVP_OK);
    assert_string_equal(g_seen, "a=map;a.b=s:1");
    assert_int_equal(parse("", &e), KVP_OK);
    assert_string_equal(g_seen, "");
    assert_int_equal(parse("---\n", &e), KVP_OK);
}

static void test_aliases_not_expanded(void **state) {
    (void)state;
    kvp_error e;
    assert_int_equal(parse("a: &x {b: 1}\nc: *x\nd:\n  - {e: 1}\n  - f\n", &e), KVP_OK);
    assert_string_equal(g_seen, "a=map;a.b=s:1;c=other;d=other");
}

static void test_refusals(void **state) {
    (void)state;
    kvp_error e;
    assert_int_equal(parse("kv_cache_config:\n  free_gpu_memory_fraction: [0.5\n", &e), KVP_SYNTAX);
    assert_string_equal(e.file, "x.yaml");
    assert_true(e.line >= 2); /* libyaml's place of the unclosed flow sequence */
    assert_non_null(strstr(e.message, "not YAML:"));
    assert_int_equal(parse("a: 1\n---\nb: 2\n", &e), KVP_SYNTAX);
    assert_non_null(strstr(e.message, "more than one YAML document"));
    assert_int_equal(e.line, 2);
    assert_int_equal(parse("- a\n- b\n", &e), KVP_SYNTAX);
    assert_non_null(strstr(e.message, "the top level is not a mapping"));
    assert_int_equal(parse("just text\n", &e), KVP_SYNTAX);
    assert_int_equal(parse("? [a, b]\n: 1\n", &e), KVP_SYNTAX);
    assert_non_null(strstr(e.message, "is not a plain word"));
    /* An empty key names no option: "" at the top, "a." below (the fuzzer's
     * find: an anchored empty scalar as a key). */
    assert_int_equal(parse("'': 1\n", &e), KVP_SYNTAX);
    assert_non_null(strstr(e.message, "an empty key under '(top)'"));
    assert_int_equal(parse("a:\n  '': 1\n", &e), KVP_SYNTAX);
    assert_non_null(strstr(e.message, "an empty key under 'a'"));
    assert_int_equal(parse("&x : 1\n", &e), KVP_SYNTAX);
    assert_string_equal(e.message, "x.yaml: an empty key under '(top)'");
    assert_int_equal(e.line, 1);
    assert_int_equal(parse("kv_cache_config:\n  dtype: fp8\x01\n", &e), KVP_SYNTAX);
    assert_string_equal(e.message, "x.yaml: not a YAML text file (binary byte at offset 29)");
    /* 8 nested mappings under the top level are refused; 7 are read. */
    assert_int_equal(parse("a:\n b:\n  c:\n   d:\n    e:\n     f:\n      g:\n       h: 1\n", &e), KVP_OK);
    assert_int_equal(parse("a:\n b:\n  c:\n   d:\n    e:\n     f:\n      g:\n       h:\n        i: 1\n", &e),
                     KVP_SYNTAX);
    assert_non_null(strstr(e.message, "deeper than 8 levels (at 'a.b.c.d.e.f.g.h')"));
}

static void test_files(void **state) {
    (void)state;
    kvp_error e;
    g_seen[0] = '\0';
    assert_int_equal(kvp__yaml_options_read("/nonexistent/x.yaml", collect, NULL, &e), KVP_IO);
    /* A FIFO is refused by the one file reader, never opened for reading. */
    char dir[] = "/tmp/kvp_yaml_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char fifo[64];
    snprintf(fifo, sizeof fifo, "%s/fifo.yaml", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(kvp__yaml_options_read(fifo, collect, NULL, &e), KVP_IO);
    assert_non_null(strstr(e.message, "FIFO"));
    unlink(fifo);
    rmdir(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nested_sections),
        cmocka_unit_test(test_aliases_not_expanded),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
