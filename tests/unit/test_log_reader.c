/* test_log_reader.c — the log reader of `kvplan why` (src/logs/log_reader.h,
 * log_redact.h): the bytes a printed figure stands for, worked by hand from the
 * printed digits; ANSI, \r and process tags stripped; a long line cut and
 * counted while the next one is read; two engines and a contradiction named;
 * the redaction of keys, addresses, hosts and private paths. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "logs/log_reader.h"
#include "logs/log_redact.h"

static kvp_log *read_text(const char *text) {
    kvp_log *log = malloc(sizeof *log);
    assert_non_null(log);
    kvp__log_init(log);
    /* fed 7 bytes at a time: lines cross the chunks */
    size_t n = strlen(text);
    for (size_t at = 0; at < n; at += 7) kvp__log_feed(log, text + at, n - at < 7 ? n - at : 7);
    kvp__log_finish(log);
    return log;
}

static void test_figure_bytes(void **state) {
    (void)state;
    kvp_log_figure f;
    memset(&f, 0, sizeof f);
    uint64_t lo, hi;
    /* "51.63 GiB" (%.2f): [51.625, 51.635) x 2^30 = [55,431,921,664, 55,442,659,082.24)
     * -> the whole bytes 55,431,921,664 .. 55,442,659,082 (vllm-17's budget bracket). */
    strcpy(f.printed, "51.63");
    f.value = 51.63;
    f.decimals = 2;
    strcpy(f.unit, "GiB");
    assert_true(kvp__log_figure_bytes(&f, &lo, &hi));
    assert_int_equal(lo, 55431921664ull);
    assert_int_equal(hi, 55442659082ull);
    /* vLLM's format_gib "43.4" is round(x, 2) with the zero dropped: 43.40,
     * [43.395, 43.405) x 2^30 = [46,595,026,452.48, 46,605,763,870.72). */
    strcpy(f.printed, "43.4");
    f.value = 43.4;
    f.decimals = 1;
    f.trimmed = true;
    assert_true(kvp__log_figure_bytes(&f, &lo, &hi));
    assert_int_equal(lo, 46595026453ull);
    assert_int_equal(hi, 46605763870ull);
    /* "2016.00 MiB": [2015.995, 2016.005) x 2^20 = [2,113,923,973.12, 2,113,934,458.88):
     * llamacpp-00's lo_bytes and hi_bytes. */
    strcpy(f.printed, "2016.00");
    f.value = 2016.0;
    f.decimals = 2;
    f.trimmed = false;
    strcpy(f.unit, "MiB");
    assert_true(kvp__log_figure_bytes(&f, &lo, &hi));
    assert_int_equal(lo, 2113923974ull);
    assert_int_equal(hi, 2113934458ull);
    /* tokens are not bytes */
    strcpy(f.unit, "tokens");
    assert_false(kvp__log_figure_bytes(&f, &lo, &hi));
}

static void test_ansi_cr_and_tags(void **state) {
    (void)state;
    kvp_log *log = read_text(
        "\x1b[1;36m(EngineCore_0 pid=4200)\x1b[0;0m INFO 08-20 10:11:31 [gpu_worker.py:276] "
        "Available KV cache memory: 60.56 GiB\r\n"
        "(EngineCore_0 pid=4200) INFO 08-20 10:11:31 [kv_cache_utils.py:849] GPU KV cache size: "
        "496,096 tokens\r\n");
    assert_int_equal(log->engines, 1u << KVP_LOG_VLLM);
    assert_int_equal(log->lines, 2);
    const kvp_log_figure *a = kvp__log_figure(log, "available_kv_cache_bytes", 0);
    assert_non_null(a);
    assert_string_equal(a->printed, "60.56");
    assert_string_equal(a->rank, "EngineCore_0");
    assert_string_equal(a->line, "Available KV cache memory: 60.56 GiB");
    const kvp_log_figure *t = kvp__log_figure(log, "gpu_kv_cache_tokens", 0);
    assert_non_null(t);
    assert_string_equal(t->printed, "496096"); /* the thousands separators dropped */
    assert_int_equal(t->decimals, -1);
    assert_string_equal(log->engine_version, "v1-mid");
    free(log);
}

static void test_long_line_cut(void **state) {
    (void)state;
    size_t n = 3 * KVP_LOG_LINE_MAX;
    char *text = malloc(n + 200);
    assert_non_null(text);
    memset(text, 'x', n);
    strcpy(text + n, "\nllama_kv_cache: size =  512.00 MiB (  4096 cells,  32 layers,  1/1 seqs), "
                     "K (f16):  256.00 MiB, V (f16):  256.00 MiB\n");
    kvp_log *log = read_text(text);
    assert_int_equal(log->lines, 2);
    assert_int_equal(log->cut_lines, 1);
    assert_non_null(kvp__log_figure(log, "kv_size_bytes", 0));
    assert_string_equal(kvp__log_figure(log, "k_size_bytes", 0)->printed, "256.00");
    assert_string_equal(kvp__log_figure(log, "cells", 0)->printed, "4096");
    /* no n_ctx line: one sequence's main cache says the context (4,096 cells) */
    assert_string_equal(kvp__log_setting(log, "-c"), "4096");
    assert_string_equal(kvp__log_setting(log, "-ctk"), "f16");
    free(log);
    free(text);
}

static void test_two_engines_and_contradiction(void **state) {
    (void)state;
    kvp_log *log = read_text("INFO 06-23 14:21:48 [gpu_worker.py:232] Available KV cache memory: 51.63 GiB\n"
                             "llama_context: n_ctx = 4096\n");
    assert_int_equal(log->engines, (1u << KVP_LOG_VLLM) | (1u << KVP_LOG_LLAMACPP));
    assert_int_equal(log->engine_line[KVP_LOG_VLLM], 1);
    assert_int_equal(log->engine_line[KVP_LOG_LLAMACPP], 2);
    free(log);
    log = read_text("INFO 06-23 14:21:48 [kv_cache_utils.py:716] GPU KV cache size: 410,128 tokens\n"
                    "INFO 06-23 14:21:48 [kv_cache_utils.py:716] GPU KV cache size: 410,128 tokens\n"
                    "INFO 06-23 14:22:48 [kv_cache_utils.py:716] GPU KV cache size: 400,000 tokens\n");
    assert_non_null(strstr(log->conflict, "gpu_kv_cache_tokens is printed twice with two values: "
                                          "410128 tokens (line 1) and 400000 tokens (line 3)"));
    free(log);
}

static void test_memory_breakdown(void **state) {
    (void)state;
    kvp_log *log = read_text("llama_memory_breakdown_print: | memory breakdown [MiB] | total   free    self   "
                             "model   context   compute    unaccounted |\n"
                             "llama_memory_breakdown_print: |   - CUDA0 (RTX 4090)   | 24080 = 14223 + ( 9261 = "
                             " 4455 +    4608 +     198) +         596 |\n");
    assert_int_equal(log->engines, 1u << KVP_LOG_LLAMACPP);
    assert_string_equal(log->gpu, "RTX 4090");
    assert_string_equal(kvp__log_figure(log, "device_total_mib", 0)->printed, "24080");
    assert_int_equal(log->unread_count, 0);
    free(log);
}

static void test_redaction(void **state) {
    (void)state;
    char out[512];
    kvp__log_redact("non-default args: {'model': '/home/alice/models/meta-llama/Llama-3.1-8B', "
                    "'api_key': 'sk-abc123def456'}",
                    out, sizeof out);
    assert_string_equal(out, "non-default args: {'model': '<path>/meta-llama/Llama-3.1-8B', "
                             "'api_key': '<redacted>'}");
    kvp__log_redact("(RayWorkerWrapper pid=7, ip=10.1.2.3) RPC[172.31.110.11:50052] "
                    "http://gpu-node7.cluster.local:8000/v1 token=hf_AbCdEfGhIjKl Bearer eyJ.x",
                    out, sizeof out);
    assert_string_equal(out, "(RayWorkerWrapper pid=7, ip=<host>) RPC[<ip>:50052] "
                             "http://<host>:8000/v1 token=<redacted> Bearer <redacted>");
    kvp__log_redact("HF_TOKEN=hf_0123456789abcdef on node7.internal [fe80::1:2]", out, sizeof out);
    assert_string_equal(out, "HF_TOKEN=<redacted> on <host> [<ip>]");
    /* what is not a secret stays: a short path, a file name, a version */
    kvp__log_redact("[gpu_worker.py:232] /models/x.gguf vLLM 0.9.1", out, sizeof out);
    assert_string_equal(out, "[gpu_worker.py:232] /models/x.gguf vLLM 0.9.1");
    /* the output is cut to its size, always terminated */
    char small[8];
    kvp__log_redact("0123456789abcdef", small, sizeof small);
    assert_string_equal(small, "0123456");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_figure_bytes),
        cmocka_unit_test(test_ansi_cr_and_tags),
        cmocka_unit_test(test_long_line_cut),
        cmocka_unit_test(test_two_engines_and_contradiction),
        cmocka_unit_test(test_memory_breakdown),
        cmocka_unit_test(test_redaction),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
