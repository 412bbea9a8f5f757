/* test_gguf_reader.c — GGUF files written by the test itself: the model read
 * from them (llama.cpp architecture rules) and every error the reader names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "gguf_writer.h"
#include "kvplan/model.h"
#include "kvplan/policy.h"

/* gpt-oss-20b as its GGUF states it: 24 blocks, 8 KV heads x 64, window 128,
 * pattern 2 (even layers SWA), context 131072; two small tensors. */
static gbuf gptoss(uint32_t version) {
    gbuf g = {0};
    g_header(&g, version, 2, 10);
    g_kv_str(&g, "general.architecture", "gpt-oss");
    g_kv_u32(&g, "gpt-oss.block_count", 24);
    g_kv_u32(&g, "gpt-oss.context_length", 131072);
    g_kv_u32(&g, "gpt-oss.embedding_length", 2880);
    g_kv_u32(&g, "gpt-oss.attention.head_count", 64);
    g_kv_u32(&g, "gpt-oss.attention.head_count_kv", 8);
    g_kv_u32(&g, "gpt-oss.attention.key_length", 64);
    g_kv_u32(&g, "gpt-oss.attention.value_length", 64);
    g_kv_u32(&g, "gpt-oss.attention.sliding_window", 128);
    const char *toks[] = {"<s>", "a", "b"};
    g_kv_arr_str(&g, "tokenizer.ggml.tokens", toks, 3);
    g_tensor_f32(&g, "token_embd.weight", 32, 2, 0);
    g_tensor_f32(&g, "output.weight", 32, 1, 256);
    g_data(&g, 256 + 128);
    return g;
}

static const char *write_tmp(const gbuf *g, char *path, size_t size) {
    snprintf(path, size, "%s/test_gguf_%d.gguf", KVP_BINARY_DIR, (int)getpid());
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(g->b, 1, g->n, f), g->n);
    fclose(f);
    return path;
}

static void test_gptoss_file(void **state) {
    (void)state;
    gbuf g = gptoss(3);
    char path[512];
    write_tmp(&g, path, sizeof path);
    kvp_model *m = NULL;
    kvp_error err;
    assert_int_equal(kvp_model_from_gguf_file(path, NULL, &m, &err), KVP_OK);
    const kvp_model_info *info = kvp_model_get_info(m);
    assert_string_equal(info->model_type, "gpt-oss");
    assert_int_equal(info->num_layers, 24);
    assert_int_equal(info->max_position_embeddings, 131072);
    /* 24 attention layers: even ones sliding (128), odd ones full. */
    assert_int_equal(kvp_model_cache_count(m), 24);
    assert_int_equal(kvp_model_cache(m, 0)->kind, KVP_CACHE_SLIDING);
    assert_int_equal(kvp_model_cache(m, 0)->window_tokens, 128);
    assert_int_equal(kvp_model_cache(m, 1)->kind, KVP_CACHE_FULL);
    assert_int_equal(kvp_model_cache(m, 1)->kv_heads, 8);
    assert_int_equal(kvp_model_cache(m, 1)->k_head_dim, 64);
    assert_int_equal(kvp_model_cache(m, 1)->v_head_dim, 64);

    /* Dev case llamacpp-10 from the GGUF: --ctx-size 0 -ub 2048, b7217.
     * main: 512 * 2 B * 131072 cells * 12 layers = 1536 MiB each of K and V;
     * SWA: pad(min(131072, 128 + 2048), 256) = 2304 cells -> 27 MiB each. */
    kvp_policy_settings s = kvp_policy_settings_default();
    s.engine = KVP_ENGINE_LLAMACPP;
    strcpy(s.engine_version, "b7217");
    s.n_ubatch = 2048;
    kvp_policy_result r;
    assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_OK);
    assert_int_equal(r.report.cells, 131072);
    assert_int_equal(r.report.k_size_bytes, 1536ull << 20);
    assert_int_equal(r.report.kv_size_bytes, 3072ull << 20);
    assert_int_equal(r.swa_tokens, 2304);
    assert_int_equal(r.report.swa_kv_size_bytes, 54ull << 20);
    kvp_model_free(m);

    /* kvp_model_open routes .gguf paths to the reader. */
    assert_int_equal(kvp_model_open(path, NULL, &m, &err), KVP_OK);
    assert_int_equal(kvp_model_cache_count(m), 24);
    kvp_model_free(m);
    unlink(path);
    free(g.b);
}

static void test_version2_and_memory(void **state) {
    (void)state;
    gbuf g = gptoss(2);
    kvp_model *m = NULL;
    kvp_error err;
    assert_int_equal(kvp_model_from_gguf_memory(g.b, g.n, "mem", NULL, &m, &err), KVP_OK);
    assert_int_equal(kvp_model_cache_count(m), 24);
    kvp_model_free(m);
    free(g.b);
}

/* Per-layer head_count_kv arrays (Jamba-style hybrids): 0 marks a recurrent layer. */
static void test_per_layer_arrays_and_recurrent(void **state) {
    (void)state;
    gbuf g = {0};
    int32_t kv[4] = {0, 0, 0, 8};
    g_header(&g, 3, 0, 10);
    g_kv_str(&g, "general.architecture", "jamba");
    g_kv_u32(&g, "jamba.block_count", 4);
    g_kv_u32(&g, "jamba.embedding_length", 4096);
    g_kv_u32(&g, "jamba.attention.head_count", 32);
    g_kv_arr_i32(&g, "jamba.attention.head_count_kv", kv, 4);
    g_kv_u32(&g, "jamba.ssm.conv_kernel", 4);
    g_kv_u32(&g, "jamba.ssm.inner_size", 8192);
    g_kv_u32(&g, "jamba.ssm.state_size", 16);
    g_kv_u32(&g, "jamba.ssm.time_step_rank", 256);
    g_kv_u32(&g, "jamba.context_length", 4096);
    kvp_model *m = NULL;
    kvp_error err;
    assert_int_equal(kvp_model_from_gguf_memory(g.b, g.n, "jamba", NULL, &m, &err), KVP_OK);
    assert_int_equal(kvp_model_cache_count(m), 4);
    assert_int_equal(kvp_model_cache(m, 0)->kind, KVP_CACHE_RECURRENT);
    assert_int_equal(kvp_model_cache(m, 3)->kind, KVP_CACHE_FULL);
    assert_int_equal(kvp_model_cache(m, 3)->k_head_dim, 128); /* 4096 / 32 */
    /* llama.cpp recurrent line: R = 4 * (4-1) * 8192 = 98304 B per layer, S = 4 * 16 * 8192
     * = 524288 B per layer, 3 layers, one sequence: 3 * 622592 = 1867776 B. */
    kvp_policy_settings s = kvp_policy_settings_default();
    s.engine = KVP_ENGINE_LLAMACPP;
    kvp_policy_result r;
    assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_OK);
    assert_int_equal(r.report.recurrent_size_bytes, 1867776);
    /* main cache: K row 8 * 128 = 1024 f16 = 2048 B * 4096 cells, one layer, K and V. */
    assert_int_equal(r.report.kv_size_bytes, 2ull * 2048 * 4096);
    kvp_model_free(m);
    free(g.b);
}

static void expect_error(const gbuf *g, kvp_status code, const char *key_part,
                         const char *msg_part) {
    kvp_model *m = (kvp_model *)1;
    kvp_error err;
    memset(&err, 0x5a, sizeof err);
    assert_int_equal(kvp_model_from_gguf_memory(g->b, g->n, "bad.gguf", NULL, &m, &err), code);
    assert_null(m);
    assert_int_equal(err.code, code);
    if (key_part) assert_non_null(strstr(err.key, key_part));
    if (msg_part) {
        if (!strstr(err.message, msg_part)) fail_msg("message '%s' lacks '%s'", err.message, msg_part);
    }
}

static void test_errors(void **state) {
    (void)state;
    gbuf ok = gptoss(3);
    /* Truncated anywhere: every prefix fails cleanly. */
    for (size_t n = 0; n < ok.n - 1; n += 7) {
        gbuf t = {ok.b, n, n};
        kvp_model *m = NULL;
        kvp_error err;
        assert_int_not_equal(kvp_model_from_gguf_memory(t.b, t.n, "t", NULL, &m, &err), KVP_OK);
        assert_null(m);
    }
    gbuf t = {ok.b, 20, 20};
    expect_error(&t, KVP_SYNTAX, NULL, "truncated");

    /* Version 1 and 4. */
    gbuf g = {0};
    g_header(&g, 1, 0, 0);
    expect_error(&g, KVP_UNSUPPORTED, "version", "expected 2 or 3");
    free(g.b);
    g = (gbuf){0};
    g_header(&g, 4, 0, 0);
    expect_error(&g, KVP_UNSUPPORTED, "version", "version 4");
    free(g.b);

    /* Bad magic. */
    g = (gbuf){0};
    g_put(&g, "GGML", 4);
    g_u32(&g, 3);
    g_u64(&g, 0);
    g_u64(&g, 0);
    expect_error(&g, KVP_SYNTAX, "magic", "not a GGUF file");
    free(g.b);

    /* String length past the end. */
    g = (gbuf){0};
    g_header(&g, 3, 0, 1);
    g_u64(&g, 1000000);
    g_put(&g, "general.architecture", 20);
    expect_error(&g, KVP_SYNTAX, "metadata key #0", "past the end");
    free(g.b);

    /* Unknown value type. */
    g = (gbuf){0};
    g_header(&g, 3, 0, 1);
    g_str(&g, "x.y");
    g_u32(&g, 13);
    g_u32(&g, 0);
    expect_error(&g, KVP_SYNTAX, "x.y", "unknown value type 13");
    free(g.b);

    /* Array count that cannot fit in memory (or the file). */
    g = (gbuf){0};
    g_header(&g, 3, 0, 1);
    g_str(&g, "tokens");
    g_u32(&g, 9);
    g_u32(&g, 10);
    g_u64(&g, UINT64_MAX / 4);
    g_u64(&g, 0);
    expect_error(&g, KVP_SYNTAX, "tokens", "cannot fit");
    free(g.b);

    /* Huge kv_count. */
    g = (gbuf){0};
    g_header(&g, 3, 0, UINT64_MAX);
    expect_error(&g, KVP_SYNTAX, "kv_count", "cannot fit");
    free(g.b);

    /* Missing architecture. */
    g = (gbuf){0};
    g_header(&g, 3, 0, 1);
    g_kv_u32(&g, "llama.block_count", 2);
    expect_error(&g, KVP_CONFIG, "general.architecture", "missing");
    free(g.b);

    /* Tensor data past the end of the file. */
    g = (gbuf){0};
    g_header(&g, 3, 1, 2);
    g_kv_str(&g, "general.architecture", "llama");
    g_kv_u32(&g, "llama.block_count", 1);
    g_tensor_f32(&g, "w", 32, 32, 0);
    g_data(&g, 16);
    expect_error(&g, KVP_SYNTAX, "tensor data", "truncated");
    free(g.b);

    /* Per-layer array shorter than block_count. */
    g = (gbuf){0};
    int32_t kv[2] = {8, 8};
    g_header(&g, 3, 0, 5);
    g_kv_str(&g, "general.architecture", "llama");
    g_kv_u32(&g, "llama.block_count", 4);
    g_kv_u32(&g, "llama.attention.head_count", 32);
    g_kv_arr_i32(&g, "llama.attention.head_count_kv", kv, 2);
    g_kv_u32(&g, "llama.embedding_length", 4096);
    expect_error(&g, KVP_CONFIG, "head_count_kv", "expected 4");
    free(g.b);
    free(ok.b);

    kvp_model *m = NULL;
    kvp_error err;
    assert_int_equal(kvp_model_from_gguf_file("/nonexistent/x.gguf", NULL, &m, &err), KVP_IO);
}

/* MLA GGUF (DeepSeek converter keys): K-only 576 rows; mid-2025 builds also keep V 512. */
static void test_mla(void **state) {
    (void)state;
    gbuf g = {0};
    g_header(&g, 3, 0, 10);
    g_kv_str(&g, "general.architecture", "deepseek2");
    g_kv_u32(&g, "deepseek2.block_count", 2);
    g_kv_u32(&g, "deepseek2.context_length", 163840);
    g_kv_u32(&g, "deepseek2.attention.head_count", 128);
    g_kv_u32(&g, "deepseek2.attention.head_count_kv", 1);
    g_kv_u32(&g, "deepseek2.attention.key_length", 576);
    g_kv_u32(&g, "deepseek2.attention.value_length", 512);
    g_kv_u32(&g, "deepseek2.attention.key_length_mla", 192);
    g_kv_u32(&g, "deepseek2.attention.value_length_mla", 128);
    g_kv_u32(&g, "deepseek2.attention.kv_lora_rank", 512);
    kvp_model *m = NULL;
    kvp_error err;
    assert_int_equal(kvp_model_from_gguf_memory(g.b, g.n, "ds", NULL, &m, &err), KVP_OK);
    assert_int_equal(kvp_model_cache(m, 0)->kind, KVP_CACHE_MLA);
    assert_int_equal(kvp_model_cache(m, 0)->k_head_dim, 576);
    kvp_policy_settings s = kvp_policy_settings_default();
    s.engine = KVP_ENGINE_LLAMACPP;
    s.n_ctx = 4096;
    kvp_policy_result r;
    /* current: K = 576 * 2 B * 4096 * 2 layers = 9437184, V 0 */
    assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_OK);
    assert_int_equal(r.report.k_size_bytes, 9437184);
    assert_int_equal(r.report.v_size_bytes, 0);
    /* b5935 (llama_kv_cache_unified era): V 512 * 2 * 4096 * 2 = 8388608 */
    strcpy(s.engine_version, "b5935");
    assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_OK);
    assert_int_equal(r.report.v_size_bytes, 8388608);
    kvp_model_free(m);
    free(g.b);
}

/* Seeded corruption matrix: every byte of a valid file set to 0x00, 0xff and +1
 * must give a model or a clean error (run under ASan/UBSan in CI). */
static void test_corruption_matrix(void **state) {
    (void)state;
    gbuf ok = gptoss(3);
    static const int k_vals[] = {0x00, 0xff, -1};
    size_t errors = 0;
    for (size_t i = 0; i < ok.n; i++) {
        uint8_t saved = ok.b[i];
        for (size_t v = 0; v < 3; v++) {
            ok.b[i] = k_vals[v] < 0 ? (uint8_t)(saved + 1) : (uint8_t)k_vals[v];
            kvp_model *m = NULL;
            kvp_error err;
            kvp_status st = kvp_model_from_gguf_memory(ok.b, ok.n, "c", NULL, &m, &err);
            if (st == KVP_OK) {
                assert_non_null(m);
                kvp_model_free(m);
            } else {
                assert_null(m);
                assert_true(err.message[0] != '\0');
                errors++;
            }
        }
        ok.b[i] = saved;
    }
    /* Corrupting the magic alone gives 4 * 3 errors at least. */
    assert_true(errors >= 12);
    free(ok.b);
}

/* Geometry with per-layer arrays as a Gemma-4 llama.cpp log prints them: 6 layers,
 * SWA 8 heads x 256 (n_embd_k_gqa 2048), every 6th layer full 2 heads x 512 (1024);
 * and a recurrent geometry stated by its row widths. */
static void test_geometry_arrays(void **state) {
    (void)state;
    const char *j = "{\"geometry\": {\"arch\": \"gemma4\", \"block_count\": 6, "
                    "\"head_count_kv\": [8,8,8,8,8,2], "
                    "\"n_embd_k_gqa\": [2048,2048,2048,2048,2048,1024], "
                    "\"sliding_window\": 1024, "
                    "\"sliding_window_pattern\": [true,true,true,true,true,false]}}";
    kvp_model *m = NULL;
    kvp_error err;
    assert_int_equal(kvp_model_from_geometry_json(j, strlen(j), "g4", NULL, &m, &err), KVP_OK);
    assert_int_equal(kvp_model_cache_count(m), 6);
    assert_int_equal(kvp_model_cache(m, 0)->kind, KVP_CACHE_SLIDING);
    assert_int_equal(kvp_model_cache(m, 0)->k_head_dim, 256);  /* 2048 / 8 */
    assert_int_equal(kvp_model_cache(m, 5)->kind, KVP_CACHE_FULL);
    assert_int_equal(kvp_model_cache(m, 5)->kv_heads, 2);
    assert_int_equal(kvp_model_cache(m, 5)->k_head_dim, 512);  /* 1024 / 2 */
    kvp_model_free(m);

    /* qwen35: attention every 4th layer; R/S widths as stated: R = 4 * 24576 B and
     * S = 4 * 2097152 B per recurrent layer and sequence; 6 recurrent layers of 8. */
    const char *q = "{\"arch\": \"qwen35\", \"block_count\": 8, \"head_count_kv\": 4, "
                    "\"head_dim\": 256, \"n_embd_r\": 24576, \"n_embd_s\": 2097152, "
                    "\"attention_layers\": 2}";
    assert_int_equal(kvp_model_from_geometry_json(q, strlen(q), "q", NULL, &m, &err), KVP_OK);
    kvp_policy_settings s = kvp_policy_settings_default();
    s.engine = KVP_ENGINE_LLAMACPP;
    s.n_ctx = 4096;
    kvp_policy_result r;
    assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_OK);
    assert_int_equal(r.report.recurrent_size_bytes, 6ull * 4 * (24576 + 2097152));
    assert_int_equal(r.main_layers, 2);
    kvp_model_free(m);
    /* A stated attention-layer count that the rules contradict is an error. */
    const char *bad = "{\"arch\": \"qwen35\", \"block_count\": 8, \"head_count_kv\": 4, "
                      "\"head_dim\": 256, \"attention_layers\": 3}";
    assert_int_equal(kvp_model_from_geometry_json(bad, strlen(bad), "b", NULL, &m, &err),
                     KVP_CONFIG);
    assert_null(m);
    /* fuzz_geometry find: qwen35 without head_count_kv builds (its recurrent layers
     * cache state), but its 2 attention layers hold 0 bytes a page; vLLM's page
     * unification divided by that page (SIGFPE). Now refused by name. */
    const char *z = "{\"arch\": \"qwen35\", \"block_count\": 8, \"head_dim\": 256, "
                    "\"n_embd_r\": 24576, \"attention_layers\": 2}";
    assert_int_equal(kvp_model_from_geometry_json(z, strlen(z), "z", NULL, &m, &err), KVP_OK);
    kvp_policy_settings v = kvp_policy_settings_default();
    v.engine = KVP_ENGINE_VLLM;
    v.kv_budget_bytes = UINT64_C(8) << 30;
    v.max_model_len = 4096;
    assert_int_equal(kvp_policy_plan(m, &v, &r, &err), KVP_CONFIG);
    assert_string_equal(err.key, "head_count_kv");
    kvp_model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gptoss_file),
        cmocka_unit_test(test_version2_and_memory),
        cmocka_unit_test(test_per_layer_arrays_and_recurrent),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_mla),
        cmocka_unit_test(test_corruption_matrix),
        cmocka_unit_test(test_geometry_arrays),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
