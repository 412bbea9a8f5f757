/* test_text_render.c — the text the report room renders for the CLI
 * (src/report/text_internal.h) and the pieces below it: each engine's own
 * start-up lines through its record (engine_ops.h `startup_lines`, a
 * kvp__line_sink), the growable text of the rooms below the report
 * (util/text_buf.c), and the --json error line. Every expected line is worked
 * by hand from the figures set here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "engine_ops.h"
#include "line_sink.h"
#include "text_buf.h"
#include "text_internal.h"

/* The lines a record writes, joined with '\n'. */
static void collect(void *ctx, const char *text) {
    kvp__text_puts(ctx, text);
    kvp__text_puts(ctx, "\n");
}

static char *lines_of(kvp_engine engine, const kvp_policy_result *r, kvp__text_buf *b) {
    kvp__line_sink sink = {collect, b};
    const kvp__engine_ops *ops = kvp__engine_ops_of(engine);
    assert_non_null(ops);
    assert_non_null(ops->startup_lines);
    ops->startup_lines(r, &sink);
    assert_false(b->failed);
    return b->data;
}

static void test_sglang_lines(void **state) {
    (void)state;
    static kvp_policy_result r; /* large: not on the stack */
    memset(&r, 0, sizeof r);
    r.engine = KVP_ENGINE_SGLANG;
    r.pools[0].kind = KVP_CACHE_FULL;
    r.report.max_total_num_tokens = 1000;
    r.report.k_size_bytes = 3221225472ull; /* 3 x 2^30: "3.00 GB" (SGLang's GB is 2^30) */
    r.report.v_size_bytes = 1610612736ull; /* 1.5 x 2^30 */
    r.report.max_running_requests = 16;
    r.max_model_len = 4096;
    r.cell_bytes = 131072;
    r.block_size = 1;
    r.budget_bytes = 5368709120ull; /* 5 x 2^30 */
    kvp__text_buf b = {0};
    assert_string_equal(lines_of(KVP_ENGINE_SGLANG, &r, &b),
                        "KV Cache is allocated. #tokens: 1000, K size: 3.00 GB, V size: 1.50 GB\n"
                        "max_total_num_tokens=1000, max_running_requests=16, context_len=4096\n"
                        "(cell_size 131072 B, page_size 1, rest memory 5.00 GiB)\n");
    kvp__free(NULL, b.data);
    /* MLA: one latent row, no V: SGLang prints one "KV size". */
    r.pools[0].kind = KVP_CACHE_MLA;
    r.report.v_size_bytes = 0;
    kvp__text_buf m = {0};
    const char *mla = lines_of(KVP_ENGINE_SGLANG, &r, &m);
    const char *want = "KV Cache is allocated. #tokens: 1000, KV size: 3.00 GB\n";
    assert_int_equal(strncmp(mla, want, strlen(want)), 0);
    kvp__free(NULL, m.data);
}

static void test_vllm_lines(void **state) {
    (void)state;
    static kvp_policy_result r;
    memset(&r, 0, sizeof r);
    r.engine = KVP_ENGINE_VLLM;
    strcpy(r.era, "v1-new");
    /* 131,072 tokens in 8,192 blocks of 16; a request of 32,768 tokens takes
     * 32768 / 16 = 2,048 blocks, so 8192 / 2048 = 4.00 requests at once. */
    r.report.available_kv_cache_bytes = 10737418240ull; /* 10 x 2^30 */
    r.report.gpu_kv_cache_tokens = 131072;
    r.report.num_gpu_blocks = 8192;
    r.report.max_concurrency = 4.0;
    r.max_model_len = 32768;
    r.group_size = 32;
    r.num_groups = 1;
    r.block_size = 16;
    r.page_bytes = 65536;
    r.per_request_blocks = 2048;
    kvp__text_buf b = {0};
    assert_string_equal(lines_of(KVP_ENGINE_VLLM, &r, &b),
                        "Available KV cache memory: 10.00 GiB\n"
                        "GPU KV cache size: 131,072 tokens\n"
                        "Maximum concurrency for 32,768 tokens per request: 4.00x\n"
                        "(num_gpu_blocks 8192, block size 16, 1 group(s) of 32 layers, page 65536 B, "
                        "2048 blocks per request)\n");
    kvp__free(NULL, b.data);
    /* v0 prints the block count instead of the token count. */
    strcpy(r.era, "v0");
    kvp__text_buf v0 = {0};
    assert_non_null(strstr(lines_of(KVP_ENGINE_VLLM, &r, &v0), "\n# GPU blocks: 8192\n"));
    kvp__free(NULL, v0.data);
}

static void test_trtllm_has_no_policy_lines(void **state) {
    (void)state;
    /* TensorRT-LLM's figures are the creator's plan (text_plan.c), not a policy's. */
    assert_null(kvp__engine_ops_of(KVP_ENGINE_TRTLLM)->startup_lines);
}

static void test_text_buf_grows(void **state) {
    (void)state;
    kvp__text_buf b = {0};
    char piece[100];
    memset(piece, 'x', sizeof piece);
    /* 30 x 100 bytes: past the first 1024-byte block twice (1024 -> 2048 -> 4096). */
    for (int i = 0; i < 30; i++) kvp__text_put(&b, piece, sizeof piece);
    kvp__text_printf(&b, "%d-%s", 42, "end");
    assert_false(b.failed);
    assert_int_equal(b.len, 3000 + 6);
    assert_int_equal(b.cap, 4096);
    assert_string_equal(b.data + 3000, "42-end");
    kvp__free(NULL, b.data);
}

static void test_error_json_line(void **state) {
    (void)state;
    kvp_error err;
    kvp_error_clear(&err);
    err.code = KVP_INVALID_ARG;
    strcpy(err.key, "--tp");
    err.line = 3;
    kvp_report_text t = {0};
    /* A quote and a backslash escaped; a control byte as \u00XX. */
    kvp__error_json_line(&err, "say \"a\\b\"\x01", &t);
    assert_int_equal(t.status, KVP_OK);
    assert_string_equal(t.data,
                        "{\"error\": {\"code\": \"KVP_INVALID_ARG\", \"message\": "
                        "\"say \\\"a\\\\b\\\"\\u0001\", \"file\": \"\", \"key\": \"--tp\", "
                        "\"line\": 3, \"column\": 0}}\n");
    kvp_report_text_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sglang_lines),
        cmocka_unit_test(test_vllm_lines),
        cmocka_unit_test(test_trtllm_has_no_policy_lines),
        cmocka_unit_test(test_text_buf_grows),
        cmocka_unit_test(test_error_json_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
