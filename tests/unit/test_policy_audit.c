/* test_policy_audit.c — an independent check of the engine policies against every
 * worked example of shared/reference/ENGINES.md that test_policy_engines.c does not
 * already cover, on the shipped configs where the example names one. Each figure is
 * worked by hand in the comment next to its assert. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "kvplan/model.h"
#include "kvplan/deploy.h"
#include "kvplan/policy.h"
#include "model/model_internal.h"

#define MODELS KVP_SOURCE_DIR "/data/models/"

static kvp_model *open_model(const char *file) {
    kvp_model *m = NULL;
    kvp_error err;
    char path[512];
    snprintf(path, sizeof path, "%s%s", MODELS, file);
    kvp_status st = kvp_model_open(path, NULL, &m, &err);
    if (st != KVP_OK) fail_msg("%s: %s", path, err.message);
    return m;
}

static void add(kvp_model *m, uint32_t layer, kvp_cache_kind kind, uint32_t heads, uint32_t k,
                uint32_t v) {
    kvp_layer_cache c;
    memset(&c, 0, sizeof c);
    c.layer = layer;
    c.kind = kind;
    c.kv_heads = heads;
    c.k_head_dim = k;
    c.v_head_dim = v;
    assert_int_equal(kvp__model_add_cache(m, &c, NULL), KVP_OK);
}

static kvp_policy_settings engine(kvp_engine e, const char *version, uint64_t budget) {
    kvp_policy_settings s = kvp_policy_settings_default();
    s.engine = e;
    snprintf(s.engine_version, sizeof s.engine_version, "%s", version);
    s.kv_budget_bytes = budget;
    return s;
}

static kvp_policy_result plan_ok(const kvp_model *m, const kvp_policy_settings *s) {
    kvp_policy_result r;
    kvp_error err;
    kvp_status st = kvp_policy_plan(m, s, &r, &err);
    if (st != KVP_OK) fail_msg("plan: %s", err.message);
    return r;
}

/* "%.2f" of a ratio or of bytes in a unit, as the engines print (and the README compares). */
static void assert_printed(double x, const char *want) {
    char buf[64];
    snprintf(buf, sizeof buf, "%.2f", x);
    assert_string_equal(buf, want);
}

/* ------------------------------------------------------------------ vLLM */

/* §1.9 A (Qwen3-14B, v1-mid): 40 layers of 8 KV heads x 128, bf16 -> 2*8*128*2 = 4 KiB per
 * layer and token, 64 KiB per 16-token page. 6.51 GiB = floor(6.51 * 2^30) = 6,990,059,274 B;
 * B = floor(6990059274 / (65536 * 40)) = floor(2666.49) = 2666; tokens 2666 * 16 = 42,656;
 * concurrency 2666 / cdiv(32768, 16) = 2666 / 2048 = 1.3017 -> "1.30". */
static void test_vllm_dense_example_a(void **state) {
    (void)state;
    kvp_model *m = kvp__model_new(NULL, "qwen3-14b");
    kvp_model_info *i = kvp__model_info(m);
    i->num_layers = 40;
    i->max_position_embeddings = 40960;
    i->dtype = KVP_DTYPE_BF16;
    for (uint32_t l = 0; l < 40; l++) add(m, l, KVP_CACHE_FULL, 8, 128, 128);
    kvp_policy_settings s = engine(KVP_ENGINE_VLLM, "0.9.2", 6990059274ull);
    s.max_model_len = 32768;
    kvp_policy_result r = plan_ok(m, &s);
    assert_string_equal(r.era, "v1-mid");
    assert_int_equal(r.report.num_gpu_blocks, 2666);
    assert_int_equal(r.report.gpu_kv_cache_tokens, 42656);
    assert_printed(r.report.max_concurrency, "1.30");
    /* v1-new: tokens = int(2666 / 2048 * 32768) = 42,656 as well (len a multiple of 16). */
    strcpy(s.engine_version, "0.24.0");
    r = plan_ok(m, &s);
    assert_string_equal(r.era, "v1-new");
    assert_int_equal(r.report.gpu_kv_cache_tokens, 42656);
    /* v0: "# GPU blocks: 2666", tokens B*bs, concurrency B*bs/len. */
    strcpy(s.engine_version, "0.6.3");
    r = plan_ok(m, &s);
    assert_string_equal(r.era, "v0");
    assert_int_equal(r.report.num_gpu_blocks, 2666);
    assert_printed(r.report.max_concurrency, "1.30");
    kvp_model_free(m);
}

/* §1.1 era tags: a tag wins wherever it stands in the string; versions map by release. */
static void test_vllm_era_strings(void **state) {
    (void)state;
    kvp_model *m = kvp__model_new(NULL, "tiny");
    kvp__model_info(m)->num_layers = 2;
    kvp__model_info(m)->max_position_embeddings = 4096;
    add(m, 0, KVP_CACHE_FULL, 8, 128, 128);
    add(m, 1, KVP_CACHE_FULL, 8, 128, 128);
    static const struct {
        const char *version, *era;
    } k_cases[] = {
        {"0.9.1.dev705+g01220ce89", "v1-mid"},
        {">=0.21 (CUDA-graph memory profiling on; exact version not stated)", "v1-new"},
        {"0.19.0", "v1-mid"},
        {"v0.24.0", "v1-new"},
        {"0.7.3", "v0"},
        {"0.8.5 v0", "v0"},             /* era appended after the version */
        {"v0 0.8.5", "v0"},
        {"0.9.1 v1-mid", "v1-mid"},
        {"v1-jan25", "v1-jan25"},
        {"0.8.5 (VLLM_USE_V1=0)", "v0"},
        {"", "v1-new"},
    };
    for (size_t k = 0; k < sizeof k_cases / sizeof k_cases[0]; k++) {
        kvp_policy_settings s = engine(KVP_ENGINE_VLLM, k_cases[k].version, 1ull << 30);
        kvp_policy_result r = plan_ok(m, &s);
        if (strcmp(r.era, k_cases[k].era) != 0)
            fail_msg("'%s': era %s, expected %s", k_cases[k].version, r.era, k_cases[k].era);
    }
    kvp_model_free(m);
}

/* §1.9 C on the shipped Qwen3.5-27B config (v0.19.0, bf16, TP1, len 32768): bs 784,
 * page 784 * 4096 = 3,211,264 B, 4 groups of 16. Budget 1487 * 16 * 3211264 =
 * 76,402,393,088 -> 1487 blocks; tokens (1487 // 4) * 784 = 290,864; per request
 * cdiv(32768, 784) + 3 = 45 -> 33.04x; align: 42 + 6 = 48 -> 1487 / 48 = 30.979 -> "30.98".
 * fp8 KV: attention 4 * 512 * 1 = 2048 B/token -> bs 16 * cdiv(3207168, 32768) = 16 * 98
 * = 1568, page 1568 * 2048 = 3,211,264 again -> 1487 blocks, tokens 371 * 1568 = 581,728.
 * TP2 fp8: attention 2 * 512 = 1024 B/token; state halves to 30,720 + 1,572,864 =
 * 1,603,584 -> 16 * cdiv(1603584, 16384) = 16 * 98 = 1568 (the logged TP2 block size). */
static void test_vllm_gdn_shipped_config(void **state) {
    (void)state;
    kvp_model *m = open_model("Qwen__Qwen3.5-27B.json");
    kvp_policy_settings s = engine(KVP_ENGINE_VLLM, "0.19.0", 76402393088ull);
    s.max_model_len = 32768;
    kvp_policy_result r = plan_ok(m, &s);
    assert_int_equal(r.block_size, 784);
    assert_int_equal(r.page_bytes, 3211264);
    assert_int_equal(r.num_groups, 4);
    assert_int_equal(r.group_size, 16);
    assert_int_equal(r.report.num_gpu_blocks, 1487);
    assert_int_equal(r.report.gpu_kv_cache_tokens, 290864);
    assert_printed(r.report.max_concurrency, "33.04");
    strcpy(s.mamba_cache_mode, "align");
    r = plan_ok(m, &s);
    assert_printed(r.report.max_concurrency, "30.98");
    s.mamba_cache_mode[0] = '\0';
    strcpy(s.kv_dtype, "fp8");
    r = plan_ok(m, &s);
    assert_int_equal(r.block_size, 1568);
    assert_int_equal(r.report.gpu_kv_cache_tokens, 581728);
    s.tp = 2;
    r = plan_ok(m, &s);
    assert_int_equal(r.block_size, 1568);
    kvp_model_free(m);
}

/* §1.9 C, last line: Qwen3.5-35B-A3B bf16: attention 2 heads x 256 -> 2 * 512 * 2 = 2048
 * B/token; GDN conv 3 * (2*16*128 + 32*128) * 2 = 49,152, SSM 32*128*128*4 = 2,097,152;
 * bs = 16 * cdiv(2146304, 32768) = 16 * 66 = 1056. --mamba-ssm-cache-dtype replaces the
 * config's float32: bfloat16 (or float16) SSM 1,048,576 -> 1,097,728 B ->
 * 16 * cdiv(1097728, 32768) = 16 * 34 = 544. */
static void test_vllm_gdn_35b_block(void **state) {
    (void)state;
    kvp_model *m = open_model("Qwen__Qwen3.5-35B-A3B.json");
    kvp_policy_settings s = engine(KVP_ENGINE_VLLM, "0.19.0", 40ull << 30);
    s.max_model_len = 32768;
    kvp_policy_result r = plan_ok(m, &s);
    assert_int_equal(r.block_size, 1056);
    s.mamba_ssm_cache_dtype = KVP_DTYPE_BF16;
    assert_int_equal(plan_ok(m, &s).block_size, 544);
    s.mamba_ssm_cache_dtype = KVP_DTYPE_FP16;
    assert_int_equal(plan_ok(m, &s).block_size, 544);
    kvp_model_free(m);
}

/* §1.5 group_size: gpt-oss-120b (18 sliding + 18 full, 8 x 64 bf16 -> 2048 B/token,
 * page 32,768) with one EAGLE layer: full 19, sliding 18; 19 < 1.5 * 18 so group_size is
 * the largest count, 19; 2 groups. 40 GiB: B = floor(42949672960 / (32768 * 19)) = 68,985;
 * v1-mid tokens (68985 // 2) * 16 = 551,872. Per request at 32768 with 8192 batched tokens:
 * full 2048 + sliding cdiv(min(127 + 8192, 32768), 16) + 1 = 520 + 1 = 521 -> 2569. */
static void test_vllm_gptoss_eagle_group_size(void **state) {
    (void)state;
    kvp_model *m = open_model("openai__gpt-oss-120b.json");
    kvp_policy_settings s = engine(KVP_ENGINE_VLLM, "0.10.1", 40ull << 30);
    s.max_model_len = 32768;
    s.num_draft_layers = 1;
    kvp_policy_result r = plan_ok(m, &s);
    assert_int_equal(r.group_size, 19);
    assert_int_equal(r.num_groups, 2);
    assert_int_equal(r.report.num_gpu_blocks, 68985);
    assert_int_equal(r.report.gpu_kv_cache_tokens, 551872);
    assert_int_equal(r.per_request_blocks, 2569);
    /* 2048 batched tokens: sliding cdiv(2175, 16) + 1 = 137 -> 2185. */
    s.max_num_batched_tokens = 2048;
    r = plan_ok(m, &s);
    assert_int_equal(r.per_request_blocks, 2185);
    kvp_model_free(m);
}

/* §1.5 group_size = smallest count: Gemma-3-27B (52 sliding + 10 full, 16 x 128 bf16 ->
 * 8192 B/token, page 131,072): group_size 10, sliding cdiv(52, 10) = 6 groups + 1 full = 7,
 * 8 padding layers. 40 GiB: B = 42949672960 / (131072 * 10) = 32,768; v1-mid tokens
 * (32768 // 7) * 16 = 74,896. Per request: full 2048 + 6 * (cdiv(1023 + 8192, 16) + 1 = 577)
 * = 5510. Before the hybrid allocator (0.9.x) every layer is full attention: one group of 62,
 * B = 42949672960 / (131072 * 62) = 5285, tokens 84,560. */
static void test_vllm_gemma3_grouping(void **state) {
    (void)state;
    kvp_model *m = open_model("google__gemma-3-27b-it.json");
    kvp_policy_settings s = engine(KVP_ENGINE_VLLM, "0.11.0", 40ull << 30);
    s.max_model_len = 32768;
    kvp_policy_result r = plan_ok(m, &s);
    assert_int_equal(r.group_size, 10);
    assert_int_equal(r.num_groups, 7);
    assert_int_equal(r.report.num_gpu_blocks, 32768);
    assert_int_equal(r.report.gpu_kv_cache_tokens, 74896);
    assert_int_equal(r.per_request_blocks, 5510);
    strcpy(s.engine_version, "0.9.1");
    r = plan_ok(m, &s);
    assert_int_equal(r.num_groups, 1);
    assert_int_equal(r.report.num_gpu_blocks, 5285);
    assert_int_equal(r.report.gpu_kv_cache_tokens, 84560);
    kvp_model_free(m);
}

/* §1.3 fp8_ds_mla on the shipped DeepSeek-V3.2 config: MLA page 64 * 656 = 41,984 and the
 * indexer 64 * (128 + 4) = 8,448 merge into one uniform group: one block id costs
 * 61 * (41984 + 8448) = 3,076,352 B. Budget 3076352 * 1000 + 7 -> 1000 blocks,
 * 64,000 tokens. */
static void test_vllm_ds_mla_page(void **state) {
    (void)state;
    kvp_model *m = open_model("deepseek-ai__DeepSeek-V3.2.json");
    kvp_policy_settings s = engine(KVP_ENGINE_VLLM, "0.11.0", 3076352ull * 1000 + 7);
    strcpy(s.kv_dtype, "fp8_ds_mla");
    s.block_size = 64;
    s.max_model_len = 32768;
    kvp_policy_result r = plan_ok(m, &s);
    assert_int_equal(r.report.num_gpu_blocks, 1000);
    assert_int_equal(r.report.gpu_kv_cache_tokens, 64000);
    kvp_model_free(m);
}

/* §0.2 "auto" with a float32 checkpoint: vLLM runs it in 16 bits (bf16 for Gemma 2).
 * gemma-2-9b: 42 layers (21 sliding + 21 full) of 8 x 256 -> 2 * 8 * 256 * 2 = 8192
 * B/token, page 131,072; 10 GiB / (131072 * 21) = 3900 blocks; v1-mid tokens
 * (3900 // 2) * 16 = 31,200. With 4-byte elements it would be 1950 blocks. */
static void test_vllm_fp32_checkpoint(void **state) {
    (void)state;
    kvp_model *m = open_model("google__gemma-2-9b.json");
    kvp_policy_settings s = engine(KVP_ENGINE_VLLM, "0.10.1", 10ull << 30);
    s.max_model_len = 32768;
    kvp_policy_result r = plan_ok(m, &s);
    assert_string_equal(r.kv_dtype_name, "bf16");
    assert_int_equal(r.report.num_gpu_blocks, 3900);
    assert_int_equal(r.report.gpu_kv_cache_tokens, 31200);
    kvp_model_free(m);
}

/* §1.3 mamba_cache_mode by era when only the tag is known: v1-mid -> none
 * (Qwen3.5-27B at 32768: 42 + 3 = 45 blocks per request), v1-new -> align (42 + 6). */
static void test_vllm_mamba_mode_by_era_tag(void **state) {
    (void)state;
    kvp_model *m = open_model("Qwen__Qwen3.5-27B.json");
    kvp_policy_settings s = engine(KVP_ENGINE_VLLM, "v1-mid", 76402393088ull);
    s.max_model_len = 32768;
    kvp_policy_result r = plan_ok(m, &s);
    assert_int_equal(r.per_request_blocks, 45);
    strcpy(s.engine_version, "v1-new");
    r = plan_ok(m, &s);
    assert_int_equal(r.per_request_blocks, 48);
    kvp_model_free(m);
}

/* §1.2 / §1.4 PP: 32 dense layers (8 x 128 bf16, page 65,536) over 3 stages split
 * get_pp_indices-style 11 / 11 / 10; every worker takes the minimum, set by an 11-layer
 * stage: budget 65536 * 11 * 100 + 5 -> 100 blocks (a 10-layer stage alone: 110). */
static void test_vllm_pp_minimum(void **state) {
    (void)state;
    kvp_model *m = kvp__model_new(NULL, "dense32");
    kvp__model_info(m)->num_layers = 32;
    kvp__model_info(m)->max_position_embeddings = 8192;
    for (uint32_t l = 0; l < 32; l++) add(m, l, KVP_CACHE_FULL, 8, 128, 128);
    kvp_policy_settings s = engine(KVP_ENGINE_VLLM, "0.11.0", 65536ull * 11 * 100 + 5);
    s.pp = 3;
    kvp_policy_result r = plan_ok(m, &s);
    assert_int_equal(r.report.num_gpu_blocks, 100);
    kvp_model_free(m);
}

/* Memory figures above 64 PiB are refused by name for every engine: at 2^64 - 1 the
 * SGLang pool (N + page) x cell would wrap and the budget's double rounds to 2^64. */
static void test_absurd_memory_refused(void **state) {
    (void)state;
    kvp_model *m = kvp__model_new(NULL, "dense32");
    kvp__model_info(m)->num_layers = 32;
    kvp__model_info(m)->max_position_embeddings = 8192;
    for (uint32_t l = 0; l < 32; l++) add(m, l, KVP_CACHE_FULL, 8, 128, 128);
    const kvp_engine engines[] = {KVP_ENGINE_VLLM, KVP_ENGINE_SGLANG, KVP_ENGINE_LLAMACPP};
    for (size_t i = 0; i < 3; i++) {
        kvp_policy_settings s = kvp_policy_settings_default();
        s.engine = engines[i];
        s.kv_budget_bytes = UINT64_MAX;
        kvp_policy_result r;
        kvp_error err;
        assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_INVALID_ARG);
        assert_string_equal(err.key, "kv_budget_bytes");
        s.kv_budget_bytes = (1ull << 56) + 1;
        assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_INVALID_ARG);
        /* 64 PiB itself plans. */
        s.kv_budget_bytes = 1ull << 56;
        s.weights_bytes = UINT64_MAX;
        assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_INVALID_ARG);
        assert_string_equal(err.key, "weights_bytes");
        s.weights_bytes = 0;
        assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_OK);
    }
    kvp_model_free(m);
}

/* ------------------------------------------------------------------ SGLang */

/* §2.6 [verified] MiMo-V2-Flash (#18039), TP4, page 64: full layers 9 x 1 head x (192 + 128)
 * x 2 B = 5,760 B/token, SWA 39 x 2 heads x 320 x 2 = 49,920. full * (5760 + 0.8 * 49920)
 * = rest; rest = 375360 * 45696 + 1000 -> 375,360 full tokens, 0.8 * 375360 = 300,288 SWA.
 * SWA pool (the printed line): K (300288 + 64) * 39 * 2 * 192 * 2 = 8,996,143,104 B
 * = 8.378 GiB -> "8.38"; V (300352) * 39 * 2 * 128 * 2 = 5,997,428,736 = 5.585 -> "5.59".
 * Full pool K (375360 + 64) * 9 * 192 * 2 = 1,297,465,344. */
static void test_sglang_mimo_swa(void **state) {
    (void)state;
    kvp_model *m = open_model("XiaomiMiMo__MiMo-V2-Flash.json");
    kvp_policy_settings s = engine(KVP_ENGINE_SGLANG, "", 375360ull * 45696 + 1000);
    s.tp = 4;
    s.block_size = 64;
    kvp_policy_result r = plan_ok(m, &s);
    assert_int_equal(r.cell_bytes, 5760);
    assert_int_equal(r.report.max_total_num_tokens, 375360);
    assert_int_equal(r.swa_tokens, 300288);
    assert_int_equal(r.report.k_size_bytes, 1297465344ull);
    assert_int_equal(r.pool_count, 2);
    assert_string_equal(r.pools[1].name, "swa");
    assert_int_equal(r.pools[1].k_bytes, 8996143104ull);
    assert_int_equal(r.pools[1].v_bytes, 5997428736ull);
    assert_printed((double)r.pools[1].k_bytes / 1073741824.0, "8.38");
    assert_printed((double)r.pools[1].v_bytes / 1073741824.0, "5.59");
    kvp_model_free(m);
}

/* §2.3 FP4 MLA (DeepSeek-V3, 61 layers): cell/2 + ((512 + 64) // 16) * L * 1 =
 * 61 * 288 + 61 * 36 = 19,764 B/token. rest = 19764 * 1000 + 5 -> 1000 tokens (page 1),
 * KV size (1000 + 1) * 19764 = 19,783,764 (reported as k_size_bytes, V 0). bf16: 61 * 1152
 * = 70,272. */
static void test_sglang_fp4_mla(void **state) {
    (void)state;
    kvp_model *m = open_model("deepseek-ai__DeepSeek-V3.json");
    kvp_policy_settings s = engine(KVP_ENGINE_SGLANG, "", 19764ull * 1000 + 5);
    strcpy(s.kv_dtype, "fp4_e2m1");
    kvp_policy_result r = plan_ok(m, &s);
    assert_int_equal(r.cell_bytes, 19764);
    assert_int_equal(r.report.max_total_num_tokens, 1000);
    assert_int_equal(r.report.k_size_bytes, 19783764ull);
    assert_int_equal(r.report.v_size_bytes, 0);
    strcpy(s.kv_dtype, "bf16");
    r = plan_ok(m, &s);
    assert_int_equal(r.cell_bytes, 70272);
    kvp_model_free(m);
}

/* §2.6 Mamba pool: 2 full layers (8 x 128 bf16: cell 2 * 8 * 256 * 2 = 8192) and 6 GDN
 * layers (4 value heads x 64, 2 key heads x 64, conv 4): conv (4*64 + 2*2*64) * 3 = 1536
 * elements x 2 B = 3072, SSM 4 * 64 * 64 * 4 B (float32 default) = 65,536 -> 68,608 per
 * layer, 411,648 per request. rest 100,000,000: state memory 1e8 * 0.9 / 1.9 = 47,368,421
 * -> 115 requests (115 * 411648 = 47,339,520); rest 52,660,480 -> N = 6428 tokens.
 * max_running_requests: min(max(int(6428 / 4096 * 512) = 803, 2048), 4096) + 1 = 2049,
 * capped by N / 2 = 3214 and by 115 // 3 = 38 -> 38. */
static void test_sglang_mamba_pool(void **state) {
    (void)state;
    kvp_model *m = kvp__model_new(NULL, "gdn");
    kvp_model_info *i = kvp__model_info(m);
    i->num_layers = 8;
    i->max_position_embeddings = 4096;
    i->dtype = KVP_DTYPE_BF16;
    for (uint32_t l = 0; l < 8; l++) {
        if (l % 4 == 3) {
            add(m, l, KVP_CACHE_FULL, 8, 128, 128);
            continue;
        }
        kvp_layer_cache c;
        memset(&c, 0, sizeof c);
        c.layer = l;
        c.kind = KVP_CACHE_RECURRENT;
        c.kv_heads = 4;
        c.recurrent = (kvp_recurrent_geometry){4, 64, 64, 2, 64, 4, KVP_DTYPE_AUTO, KVP_DTYPE_AUTO, false};
        assert_int_equal(kvp__model_add_cache(m, &c, NULL), KVP_OK);
    }
    kvp_policy_settings s = engine(KVP_ENGINE_SGLANG, "", 100000000ull);
    kvp_policy_result r = plan_ok(m, &s);
    assert_int_equal(r.cell_bytes, 8192);
    assert_int_equal(r.mamba_cache_size, 115);
    assert_int_equal(r.report.max_total_num_tokens, 6428);
    assert_int_equal(r.report.max_running_requests, 38);
    kvp_model_free(m);
}

/* A model whose every layer slides (Mistral-7B-v0.1, window 4096) has no SWA pool pair
 * in SGLang: one pool of 32 x 8 x 256 x 2 B = 131,072 B/token; 10 GiB -> 81,920 tokens,
 * K (81920 + 1) * 65536 = 5,368,774,656. */
static void test_sglang_all_sliding(void **state) {
    (void)state;
    kvp_model *m = open_model("mistralai__Mistral-7B-v0.1.json");
    kvp_policy_settings s = engine(KVP_ENGINE_SGLANG, "", 10ull << 30);
    kvp_policy_result r = plan_ok(m, &s);
    assert_int_equal(r.cell_bytes, 131072);
    assert_int_equal(r.report.max_total_num_tokens, 81920);
    assert_int_equal(r.report.k_size_bytes, 5368774656ull);
    assert_int_equal(r.pool_count, 1);
    kvp_model_free(m);
}

/* ------------------------------------------------------------------ llama.cpp */

static kvp_model *dense_32x8(void) {
    kvp_model *m = kvp__model_new(NULL, "llama8b");
    kvp_model_info *i = kvp__model_info(m);
    i->num_layers = 32;
    i->max_position_embeddings = 131072;
    strcpy(i->model_type, "llama");
    for (uint32_t l = 0; l < 32; l++) add(m, l, KVP_CACHE_FULL, 8, 128, 128);
    return m;
}

/* §3.1 new padding, 3 sequences on per-sequence streams: pad(10000, 256) = 10240;
 * n_ctx_seq = pad(10240 / 3 = 3413, 256) = 3584, n_ctx = 3 * 3584 = 10752;
 * K = 1024 * 2 B * 3584 * 3 * 32 = 704,643,072. Unified: 10240 cells, K 671,088,640. */
static void test_llamacpp_per_seq_padding(void **state) {
    (void)state;
    kvp_model *m = dense_32x8();
    kvp_policy_settings s = engine(KVP_ENGINE_LLAMACPP, "b7445", 0);
    s.n_ctx = 10000;
    s.n_seq_max = 3;
    kvp_policy_result r = plan_ok(m, &s);
    assert_int_equal(r.report.cells, 3584);
    assert_int_equal(r.n_ctx, 10752);
    assert_int_equal(r.report.k_size_bytes, 704643072ull);
    s.kv_unified = 1;
    r = plan_ok(m, &s);
    assert_int_equal(r.report.cells, 10240);
    assert_int_equal(r.report.k_size_bytes, 671088640ull);
    kvp_model_free(m);
}

/* §3.6 SWA sizes by era (gemma2 geometry, window 4096, n_ctx 8000, 1 sequence,
 * n_ubatch 520): old (b6182), FA off: n_ctx pad(8000, 32) = 8000; SWA
 * min(8000, pad(4096 + 520, 32) = 4640) = 4640. Old, FA on: n_ctx pad(8000, 256) = 8192,
 * SWA pad(4616, 256) = 4864. New (b7445): n_ctx 8192, SWA pad(min(8192, 4616), 256) = 4864.
 * --swa-full: SWA = n_ctx_seq. */
static void test_llamacpp_swa_eras(void **state) {
    (void)state;
    const char *j = "{\"arch\": \"gemma2\", \"block_count\": 26, \"head_count_kv\": 4, "
                    "\"key_length\": 256, \"value_length\": 256, \"sliding_window\": 4096}";
    kvp_model *m = NULL;
    kvp_error err;
    assert_int_equal(kvp_model_from_geometry_json(j, strlen(j), "g", NULL, &m, &err), KVP_OK);
    kvp_policy_settings s = engine(KVP_ENGINE_LLAMACPP, "b6182", 0);
    s.n_ctx = 8000;
    s.n_ubatch = 520;
    s.flash_attn = 0;
    kvp_policy_result r = plan_ok(m, &s);
    assert_int_equal(r.report.cells, 8000);
    assert_int_equal(r.swa_tokens, 4640);
    s.flash_attn = 1;
    r = plan_ok(m, &s);
    assert_int_equal(r.report.cells, 8192);
    assert_int_equal(r.swa_tokens, 4864);
    strcpy(s.engine_version, "b7445");
    s.flash_attn = -1;
    r = plan_ok(m, &s);
    assert_int_equal(r.report.cells, 8192);
    assert_int_equal(r.swa_tokens, 4864);
    s.swa_full = 1;
    r = plan_ok(m, &s);
    assert_int_equal(r.swa_tokens, 8192);
    /* 13 SWA layers x 1024 x 2 B x 8192 cells x 2 (K and V) = 436,207,616. */
    assert_int_equal(r.report.swa_kv_size_bytes, 436207616ull);
    kvp_model_free(m);
}

/* §3.1 / §3.12 the padding era from the version strings logs carry: a build number
 * ("b6182", "build: 6182", "version: 6182 (hash)", "Vulkan build 11228") or a date. */
static void test_llamacpp_version_strings(void **state) {
    (void)state;
    kvp_model *m = dense_32x8();
    static const struct {
        const char *version, *era;
    } k_cases[] = {
        {"b6182", "pad-old+mla-v"}, /* llama_kv_cache_unified builds also kept MLA V */
        {"build: 6182 (b1afcab8)", "pad-old+mla-v"},
        {"version: 6182 (b1afcab8)", "pad-old+mla-v"},
        {"b6800", "pad-old"},
        {"version: 7445 (4b2a4778f)", "pad256"},
        {"Vulkan build 11228 (4364bf723)", "pad256"},
        {"b5935 (2adf8d83)", "pad-old+mla-v"},
        {"LM Studio llama.cpp-mac-arm64 runtime 1.44.0 (2025-08)", "pad-old+mla-v"},
        {"ollama version 0.12.3", "pad256"},
        {"", "pad256"},
    };
    for (size_t k = 0; k < sizeof k_cases / sizeof k_cases[0]; k++) {
        kvp_policy_settings s = engine(KVP_ENGINE_LLAMACPP, k_cases[k].version, 0);
        s.n_ctx = 4096;
        kvp_policy_result r = plan_ok(m, &s);
        if (strcmp(r.era, k_cases[k].era) != 0)
            fail_msg("'%s': era %s, expected %s", k_cases[k].version, r.era, k_cases[k].era);
    }
    kvp_model_free(m);
}

/* §3.7 MLA on the shipped DeepSeek-V3 config (61 layers, 4096 cells, f16):
 * current builds K only: 61 * 576 * 2 * 4096 = 287,834,112, V 0;
 * mid-2025 (b5935): V 512 wide as well: 61 * 512 * 2 * 4096 = 255,852,544;
 * before MLA support (b4500): MHA rows K 128 * (128 + 64) = 24,576 -> 12,280,922,112,
 * V 128 * 128 = 16,384 -> 8,187,281,408. */
static void test_llamacpp_mla_eras(void **state) {
    (void)state;
    kvp_model *m = open_model("deepseek-ai__DeepSeek-V3.json");
    kvp_policy_settings s = engine(KVP_ENGINE_LLAMACPP, "b7445", 0);
    s.n_ctx = 4096;
    kvp_policy_result r = plan_ok(m, &s);
    assert_int_equal(r.report.k_size_bytes, 287834112ull);
    assert_int_equal(r.report.v_size_bytes, 0);
    assert_true(r.report.present & KVP_REPORT_V_SIZE_BYTES); /* "V (f16): 0.00 MiB" is printed */
    strcpy(s.engine_version, "b5935");
    r = plan_ok(m, &s);
    assert_int_equal(r.report.k_size_bytes, 287834112ull);
    assert_int_equal(r.report.v_size_bytes, 255852544ull);
    strcpy(s.engine_version, "b4500");
    r = plan_ok(m, &s);
    assert_int_equal(r.report.k_size_bytes, 12280922112ull);
    assert_int_equal(r.report.v_size_bytes, 8187281408ull);
    kvp_model_free(m);
}

/* §3.8 recurrent state of the shipped Qwen3-Next-80B config, 2 sequences: 36 GDN layers;
 * n_embd_r = (4 - 1) * (32 * 128 + 2 * 16 * 128) = 24,576 -> R = 4 * 24576 * 2 * 36 =
 * 7,077,888 (6.75 MiB); n_embd_s = 128 * 4096 = 524,288 -> S = 4 * 524288 * 2 * 36 =
 * 150,994,944 (144 MiB); total 158,072,832. Attention: 12 layers x 2 x 256. */
static void test_llamacpp_recurrent_qwen3_next(void **state) {
    (void)state;
    kvp_model *m = open_model("Qwen__Qwen3-Next-80B-A3B-Thinking.json");
    kvp_policy_settings s = engine(KVP_ENGINE_LLAMACPP, "b7445", 0);
    s.n_ctx = 4096;
    s.n_seq_max = 2;
    kvp_policy_result r = plan_ok(m, &s);
    assert_int_equal(r.recurrent_r_bytes, 7077888ull);
    assert_int_equal(r.recurrent_s_bytes, 150994944ull);
    assert_int_equal(r.report.recurrent_size_bytes, 158072832ull);
    assert_int_equal(r.recurrent_cells, 2);
    assert_int_equal(r.main_layers, 12);
    kvp_model_free(m);
}

/* ------------------------------------------------------------------ TensorRT-LLM */

/* §4.6: Llama-3.1-8B bf16 = 131,072 B/token. 40 GiB, 32-token blocks:
 * floor(42949672960 / 131072 / 32) = 10,240 blocks = 327,680 tokens, 40.00 GiB allocated;
 * 0.9 * 40 GiB = 38,654,705,664 -> 9,216 blocks = 294,912 tokens. Dynamo log, 64-token
 * blocks: budget 220480 * 131072 + 100 -> 3445 blocks = 220,480 tokens, 28,898,754,560 B
 * = 26.914 GiB -> "26.91". */
static kvp_deploy_result *trtllm_at(const kvp_model *m, uint64_t budget, uint32_t tpb,
                                    kvp_deploy_result *r) {
    kvp_deployment d = kvp_deployment_default();
    d.model = m;
    d.memory.kv_budget_bytes = budget;
    d.kv.tokens_per_block = tpb;
    kvp_error err;
    assert_int_equal(kvp_deploy_plan(&d, r, &err), KVP_OK);
    assert_int_equal(r->status, KVP_OK);
    return r;
}

static void test_trtllm_examples(void **state) {
    (void)state;
    kvp_model *m = open_model("meta-llama__Llama-3.1-8B.json");
    kvp_deploy_result *r = kvp_deploy_result_new();
    assert_non_null(r);
    trtllm_at(m, 40ull << 30, 0, r);
    assert_int_equal(r->report.max_tokens, 327680);
    assert_int_equal(r->report.kv_cache_bytes, 42949672960ull);
    trtllm_at(m, 38654705664ull, 0, r);
    assert_int_equal(r->report.max_tokens / 32, 9216);
    trtllm_at(m, 220480ull * 131072 + 100, 64, r);
    assert_int_equal(r->report.max_tokens, 220480);
    assert_printed((double)r->report.kv_cache_bytes / 1073741824.0, "26.91");
    kvp_deploy_result_free(r);
    kvp_model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vllm_dense_example_a),
        cmocka_unit_test(test_vllm_era_strings),
        cmocka_unit_test(test_vllm_gdn_shipped_config),
        cmocka_unit_test(test_vllm_gdn_35b_block),
        cmocka_unit_test(test_vllm_gptoss_eagle_group_size),
        cmocka_unit_test(test_vllm_gemma3_grouping),
        cmocka_unit_test(test_vllm_ds_mla_page),
        cmocka_unit_test(test_vllm_fp32_checkpoint),
        cmocka_unit_test(test_vllm_pp_minimum),
        cmocka_unit_test(test_vllm_mamba_mode_by_era_tag),
        cmocka_unit_test(test_sglang_mimo_swa),
        cmocka_unit_test(test_sglang_fp4_mla),
        cmocka_unit_test(test_sglang_mamba_pool),
        cmocka_unit_test(test_sglang_all_sliding),
        cmocka_unit_test(test_llamacpp_per_seq_padding),
        cmocka_unit_test(test_llamacpp_swa_eras),
        cmocka_unit_test(test_llamacpp_version_strings),
        cmocka_unit_test(test_llamacpp_mla_eras),
        cmocka_unit_test(test_llamacpp_recurrent_qwen3_next),
        cmocka_unit_test(test_trtllm_examples),
        cmocka_unit_test(test_absurd_memory_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
