/*
 * test_policy_v4_mamba.c — issue 13: DeepSeek-V4 under the vLLM policy (the
 * packed fp8 layout, the packed block stride, exact per-request bytes), the
 * engines that refuse it by name, vLLM's mamba_cache_mode none / align / all
 * (with all's block rounded to the scan chunk) and the KDA conv state widened
 * by the speculative tokens. Every figure is worked by hand in the comment
 * above it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "kvplan/kvplan.h"

#define GIB40 (UINT64_C(40) << 30) /* 42,949,672,960 */

static kvp_model *catalog(const char *name) {
    kvp_model *m = NULL;
    kvp_error err;
    if (kvp_model_from_catalog(name, NULL, &m, &err) != KVP_OK) fail_msg("%s: %s", name, err.message);
    return m;
}

typedef struct req {
    kvp_engine engine;
    uint32_t tp;
    const char *kv_dtype;
    const char *mamba_mode;
    uint32_t spec_tokens;
    uint64_t budget, len;
} req;

static kvp_status plan(const kvp_model *m, const req *q, kvp_policy_result *r, kvp_error *err) {
    kvp_policy_settings s = kvp_policy_settings_default();
    s.engine = q->engine;
    s.tp = q->tp ? q->tp : 1;
    s.kv_budget_bytes = q->budget ? q->budget : GIB40;
    s.max_model_len = q->len;
    s.num_speculative_tokens = q->spec_tokens;
    if (q->kv_dtype) snprintf(s.kv_dtype, sizeof s.kv_dtype, "%s", q->kv_dtype);
    if (q->mamba_mode) snprintf(s.mamba_cache_mode, sizeof s.mamba_cache_mode, "%s", q->mamba_mode);
    return kvp_policy_plan(m, &s, r, err);
}

static kvp_policy_result plan_ok(const kvp_model *m, req q) {
    kvp_policy_result r;
    kvp_error err;
    if (plan(m, &q, &r, &err) != KVP_OK) fail_msg("policy: %s: %s", err.key, err.message);
    return r;
}

static const kvp_policy_pool *pool_named(const kvp_policy_result *r, const char *name) {
    for (uint32_t i = 0; i < r->pool_count; i++)
        if (!strcmp(r->pools[i].name, name)) return &r->pools[i];
    fail_msg("no pool %s", name);
    return NULL;
}

static bool has_note(const kvp_policy_result *r, const char *needle) {
    for (uint32_t i = 0; i < r->note_count; i++)
        if (strstr(r->notes[i], needle)) return true;
    return false;
}

/* ------------------------------------------------------- DeepSeek-V4 vLLM */

/* DeepSeek-V4-Flash: 43 layers, compress_ratios 0, 0, then 4 / 128 alternating
 * from layer 2 to 42 (21 layers of ratio 4 at 2, 4, ..., 42; 20 of ratio 128),
 * head_dim 512, rope 64, sliding_window 128, index_head_dim 128.
 *
 * Entry: 448 fp8 + 64 x 2 rope + 448 / 64 = 7 scales + 1 pad = 584 B.
 * 64-token blocks (FlashMLA): 64 x 584 = 37,376 -> rounded up to 576 B multiples:
 * 65 x 576 = 37,440 per layer; indexer 64 x (128 + 4) = 8,448 (not rounded).
 * Group page sums: sliding 43 x 37,440 = 1,609,920; ratio 4: 21 x 37,440 =
 * 786,240; ratio 128: 20 x 37,440 = 748,800; indexer 21 x 8,448 = 177,408.
 * Stride (the widest): 1,609,920.
 * Compressor state (fp32): ratio 4: 2 x 2 x 512 floats x 8 slots = 16,384 +
 * indexer 2 x 2 x 128 x 8 = 4,096 -> 20,480 floats = 81,920 B; ratio 128:
 * 2 x 1 x 512 x 128 = 131,072 floats = 524,288 B. 21 x 81,920 + 20 x 524,288 =
 * 1,720,320 + 10,485,760 = 12,206,080 B per sequence.
 * 40 GiB: 42,949,672,960 / 1,609,920 = 26,678 blocks. */
static void test_v4_vllm_exact(void **state) {
    (void)state;
    kvp_model *m = catalog("deepseek-v4-flash");
    static const uint32_t tps[] = {1, 8};
    static const char *const dtypes[] = {NULL, "bfloat16", "fp8"};
    for (size_t t = 0; t < 2; t++)
        for (size_t d = 0; d < 3; d++) {
            /* Every cache replicated over TP, and the layout forced: the same figures
             * at TP 1 and 8, under auto, bf16 and fp8 (a note says the dtype is unused). */
            kvp_policy_result r =
                plan_ok(m, (req){KVP_ENGINE_VLLM, tps[t], dtypes[d], NULL, 0, 0, 131072});
            assert_string_equal(r.kv_dtype_name, "fp8_ds_mla");
            assert_int_equal(r.block_size, 64);
            assert_int_equal(r.num_groups, 4);
            assert_int_equal(r.page_bytes, 1609920);
            assert_int_equal(r.report.num_gpu_blocks, 26678);
            /* 131,072 tokens: sliding min(127 + 8,192, 131,072) = 8,319 -> 130 blocks + 1
             * = 131; ratio 4: 32,768 entries / 64 = 512; ratio 128: 1,024 / 64 = 16;
             * indexer 512. 1,171 blocks x 1,609,920 = 1,885,216,320 + 12,206,080 =
             * 1,897,422,400 B. 42,949,672,960 / 1,897,422,400 = 22.64 -> 22 requests. */
            assert_int_equal(r.per_request_blocks, 1171);
            assert_int_equal(r.needed_bytes, 1897422400);
            assert_true(r.report.max_concurrency > 22.63 && r.report.max_concurrency < 22.64);
            assert_int_equal(pool_named(&r, "sliding")->per_request_blocks, 131);
            assert_int_equal(pool_named(&r, "sliding")->page_bytes, 37440);
            assert_int_equal(pool_named(&r, "compressed-4")->per_request_blocks, 512);
            assert_int_equal(pool_named(&r, "compressed-4")->block_size_tokens, 256);
            assert_int_equal(pool_named(&r, "compressed-128")->per_request_blocks, 16);
            assert_int_equal(pool_named(&r, "compressed-128")->layers, 20);
            assert_int_equal(pool_named(&r, "indexer")->page_bytes, 8448);
            assert_int_equal(pool_named(&r, "compressor")->page_bytes, 12206080);
            assert_int_equal(r.note_count > 0 && has_note(&r, "not used"), d == 1 || d == 2);
        }
    /* 4,096 tokens: sliding 4,096 -> 64 + 1 = 65; ratio 4: 1,024 / 64 = 16; ratio 128:
     * 32 entries -> 1 block; indexer 16: 98 blocks x 1,609,920 = 157,772,160 +
     * 12,206,080 = 169,978,240 B (not 1 / 32 of the 131,072-token figure: the window
     * and the state do not grow). 42,949,672,960 / 169,978,240 = 252.677. */
    for (size_t t = 0; t < 2; t++)
        for (size_t d = 0; d < 3; d++) {
            kvp_policy_result r =
                plan_ok(m, (req){KVP_ENGINE_VLLM, tps[t], dtypes[d], NULL, 0, 0, 4096});
            assert_int_equal(r.report.num_gpu_blocks, 26678);
            assert_int_equal(r.per_request_blocks, 98);
            assert_int_equal(pool_named(&r, "sliding")->per_request_blocks, 65);
            assert_int_equal(pool_named(&r, "compressed-128")->per_request_blocks, 1);
            assert_int_equal(r.needed_bytes, 169978240);
            assert_true(r.report.max_concurrency > 252.67 && r.report.max_concurrency < 252.68);
        }
    kvp_model_free(m);
}

/* Tokens for a budget, by the exact function: with exactly one 131,072-token
 * request's bytes (1,897,422,400) and max_model_len 262,144, the longest request
 * is 131,072 (one token more opens a 513th ratio-4 block). One byte less: the
 * ratio-4 and indexer caches each drop a block, at 130,816 tokens (32,704
 * entries = 511 blocks); no length in between fits. 169,978,240 B holds 4,096
 * tokens and no more (4,097 opens a 66th sliding block): the round trip holds. */
static void test_v4_vllm_tokens_for_budget(void **state) {
    (void)state;
    kvp_model *m = catalog("deepseek-v4-flash");
    kvp_policy_result r =
        plan_ok(m, (req){KVP_ENGINE_VLLM, 1, NULL, NULL, 0, UINT64_C(1897422400), 262144});
    assert_int_equal(r.estimated_max_model_len, 131072);
    r = plan_ok(m, (req){KVP_ENGINE_VLLM, 1, NULL, NULL, 0, UINT64_C(1897422399), 262144});
    assert_int_equal(r.estimated_max_model_len, 130816);
    r = plan_ok(m, (req){KVP_ENGINE_VLLM, 1, NULL, NULL, 0, UINT64_C(169978240), 262144});
    assert_int_equal(r.estimated_max_model_len, 4096);
    /* Exactly one request fits: concurrency 1.0, so the deployment serves one. */
    r = plan_ok(m, (req){KVP_ENGINE_VLLM, 1, NULL, NULL, 0, UINT64_C(1897422400), 131072});
    assert_int_equal(r.estimated_max_model_len, 0);
    assert_true(r.report.max_concurrency == 1.0);
    kvp_model_free(m);
}

/* The deployment pipeline: max_sequences = floor(budget / exact request bytes). */
static void test_v4_deploy(void **state) {
    (void)state;
    kvp_model *m = catalog("deepseek-v4-flash");
    kvp_deployment d = kvp_deployment_default();
    d.model = m;
    d.point.engine = KVP_ENGINE_VLLM;
    d.point.tp = 8;
    d.point.max_seq_len = 131072;
    d.memory.kv_budget_bytes = GIB40;
    kvp_deploy_result *res = kvp_deploy_result_new();
    assert_non_null(res);
    kvp_error err;
    assert_int_equal(kvp_deploy_plan(&d, res, &err), KVP_OK);
    assert_int_equal(res->status, KVP_OK);
    assert_int_equal(res->max_sequences, 22); /* 42,949,672,960 // 1,897,422,400 */
    /* TensorRT-LLM (the creator) and SGLang refuse by name: the reference does not
     * say how they split memory across the V4 pools (ENGINES.md §5, §2.6 [unknown]). */
    d.point.engine = KVP_ENGINE_TRTLLM;
    assert_int_equal(kvp_deploy_plan(&d, res, &err), KVP_OK);
    assert_int_equal(res->status, KVP_UNSUPPORTED);
    assert_string_equal(res->key, "compress_ratios");
    d.point.engine = KVP_ENGINE_SGLANG;
    assert_int_equal(kvp_deploy_plan(&d, res, &err), KVP_OK);
    assert_int_equal(res->status, KVP_UNSUPPORTED);
    assert_string_equal(res->key, "compress_ratios");
    kvp_deploy_result_free(res);
    kvp_model_free(m);
}

/* A DeepSeek-V4 geometry the 584-byte entry is not stated for is refused by name. */
static void test_v4_vllm_refusals(void **state) {
    (void)state;
    static const char json[] =
        "{\"model_type\": \"deepseek_v4\", \"num_hidden_layers\": 2, \"num_attention_heads\": 8,"
        " \"head_dim\": 256, \"qk_rope_head_dim\": 64, \"sliding_window\": 128,"
        " \"index_head_dim\": 128, \"max_position_embeddings\": 8192,"
        " \"compress_ratios\": [4, 128]}";
    kvp_model *m = NULL;
    kvp_error err;
    assert_int_equal(kvp_model_from_hf_json(json, strlen(json), "t.json", NULL, &m, &err), KVP_OK);
    kvp_policy_result r;
    memset(&err, 0x5a, sizeof err);
    assert_int_equal(plan(m, &(req){KVP_ENGINE_VLLM, 1, NULL, NULL, 0, 0, 4096}, &r, &err),
                     KVP_UNSUPPORTED);
    assert_string_equal(err.key, "head_dim");
    kvp_model_free(m);
    /* qk_rope_head_dim must leave a no-rope part. */
    static const char bad[] =
        "{\"model_type\": \"deepseek_v4\", \"num_hidden_layers\": 1, \"num_attention_heads\": 8,"
        " \"head_dim\": 512, \"qk_rope_head_dim\": 512, \"sliding_window\": 128,"
        " \"compress_ratios\": [0]}";
    m = NULL;
    memset(&err, 0x5a, sizeof err);
    assert_int_equal(kvp_model_from_hf_json(bad, strlen(bad), "t.json", NULL, &m, &err),
                     KVP_CONFIG);
    assert_null(m);
    assert_string_equal(err.key, "/qk_rope_head_dim");
}

/* ---------------------------------------------------- mamba_cache_mode */

/* Nemotron-H-56B: 10 attention layers (8 KV heads x (128 + 128) x 2 B = 4,096 B
 * per token), 54 Mamba2 layers: conv (256 x 64 + 2 x 8 x 256) x 3 x 2 B =
 * 122,880, SSM 256 x 64 x 256 x 2 B = 8,388,608 -> 8,511,488 B = 2,078 attention
 * tokens. none / align: block 16 x ceil(2,078 / 16) = 2,080; all (newer vLLM):
 * 128 x ceil(2,078 / 128) = 2,176 (chunk_size 128). Groups of 10 layers: 1
 * attention + ceil(54 / 10) = 6 Mamba = 7.
 * 32,768 tokens: none 16 + 6 x 1 = 22; align 16 + 6 x 2 = 28; all
 * ceil(32,768 / 2,176) = 16 + 6 x 16 = 112. all's blocks: 42,949,672,960 /
 * (2,176 x 4,096 x 10 = 89,128,960) = 481. */
static void test_mamba_cache_modes(void **state) {
    (void)state;
    kvp_model *m = catalog("nemotron-h-56b-base-8k");
    kvp_policy_result r = plan_ok(m, (req){KVP_ENGINE_VLLM, 1, NULL, "none", 0, 0, 32768});
    assert_int_equal(r.block_size, 2080);
    assert_int_equal(r.num_groups, 7);
    assert_int_equal(r.per_request_blocks, 22);
    r = plan_ok(m, (req){KVP_ENGINE_VLLM, 1, NULL, "align", 0, 0, 32768});
    assert_int_equal(r.block_size, 2080);
    assert_int_equal(r.per_request_blocks, 28);
    r = plan_ok(m, (req){KVP_ENGINE_VLLM, 1, NULL, "all", 0, 0, 32768});
    assert_int_equal(r.block_size, 2176);
    assert_int_equal(r.page_bytes, 8912896);
    assert_int_equal(r.report.num_gpu_blocks, 481);
    assert_int_equal(r.per_request_blocks, 112);
    /* Speculative blocks: align with 2 speculative tokens keeps 2 + 2 state blocks
     * per Mamba group: 16 + 6 x 4 = 40. */
    r = plan_ok(m, (req){KVP_ENGINE_VLLM, 1, NULL, "align", 2, 0, 32768});
    assert_int_equal(r.per_request_blocks, 40);
    /* Older vLLM (0.19) has no chunk rounding: all stays at 2,080. */
    kvp_policy_settings s = kvp_policy_settings_default();
    s.engine = KVP_ENGINE_VLLM;
    s.kv_budget_bytes = GIB40;
    s.max_model_len = 32768;
    snprintf(s.engine_version, sizeof s.engine_version, "0.19.0");
    snprintf(s.mamba_cache_mode, sizeof s.mamba_cache_mode, "all");
    kvp_error err;
    assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_OK);
    assert_int_equal(r.block_size, 2080);
    kvp_model_free(m);
}

/* Kimi-Linear KDA under speculative decoding: the conv state keeps
 * kernel - 1 + 3 = 6 positions: 3 x 32 x 128 x 6 x 2 B = 147,456 (73,728 without),
 * recurrent 32 x 128 x 128 x 4 B = 2,097,152 -> 2,244,608 B = 1,948.4 MLA tokens
 * (576 x 2 = 1,152 B): block 64 x ceil(2,244,608 / 73,728 = 30.44) = 64 x 31 =
 * 1,984, page 1,984 x 1,152 = 2,285,568; 7 MLA + 3 KDA groups of 7 = 4 groups;
 * blocks 42,949,672,960 / (2,285,568 x 7 = 15,998,976) = 2,684. Per 32,768-token
 * request under none: ceil(32,768 / 1,984) = 17 MLA + 3 x (1 + 3) = 29. */
static void test_kda_spec_conv(void **state) {
    (void)state;
    kvp_model *m = catalog("kimi-linear-48b-a3b-instruct");
    kvp_policy_result r = plan_ok(m, (req){KVP_ENGINE_VLLM, 1, NULL, "none", 3, 0, 32768});
    assert_int_equal(r.block_size, 1984);
    assert_int_equal(r.page_bytes, 2285568);
    assert_int_equal(r.num_groups, 4);
    assert_int_equal(r.report.num_gpu_blocks, 2684);
    assert_int_equal(r.per_request_blocks, 29);
    /* Without speculation: 1,920-token blocks (test_families_current). */
    r = plan_ok(m, (req){KVP_ENGINE_VLLM, 1, NULL, "none", 0, 0, 32768});
    assert_int_equal(r.block_size, 1920);
    kvp_model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_v4_vllm_exact),
        cmocka_unit_test(test_v4_vllm_tokens_for_budget),
        cmocka_unit_test(test_v4_deploy),
        cmocka_unit_test(test_v4_vllm_refusals),
        cmocka_unit_test(test_mamba_cache_modes),
        cmocka_unit_test(test_kda_spec_conv),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
