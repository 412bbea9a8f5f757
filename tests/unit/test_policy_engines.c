/* test_policy_engines.c — the engine policies on models built by hand, with
 * the figures worked out in ENGINES.md (§1.9, §2.8, §3.5, §3.11, §4.2). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kvplan/model.h"
#include "kvplan/deploy.h"
#include "kvplan/policy.h"
#include "model/model_internal.h"
#include "policy_fixtures.h"

/* §1.9 B (dev vllm-17): 33 layers x 64 KiB per block = 2,162,688 B; 25,633 blocks
 * need 25633 * 2162688 = 55,436,181,504 B; tokens 25633 * 16 = 410,128; concurrency
 * 25633 / cdiv(131072, 16) = 25633 / 8192. One byte less gives 25,632 blocks. */
static void test_vllm_dense_with_draft(void **state) {
    (void)state;
    kvp_model *m = llama8b();
    kvp_policy_settings s = vllm("0.9.1.dev705+g01220ce89", 55436181504ull);
    s.num_draft_layers = 1;
    kvp_policy_result r;
    kvp_error err;
    assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_OK);
    assert_string_equal(r.era, "v1-mid");
    assert_int_equal(r.report.num_gpu_blocks, 25633);
    assert_int_equal(r.report.gpu_kv_cache_tokens, 410128);
    assert_true(r.report.max_concurrency == 25633.0 / 8192.0);
    s.kv_budget_bytes -= 1;
    assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_OK);
    assert_int_equal(r.report.num_gpu_blocks, 25632);
    /* Without the drafter: floor(55436181504 / (32 * 65536)) = 26434 blocks. */
    s = vllm("v1-mid", 55436181504ull);
    assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_OK);
    assert_int_equal(r.report.num_gpu_blocks, 26434);
    /* v1-new: tokens = int(26434 / 8192 * 131072) = 26434 * 16 = 422,944. */
    s = vllm("0.24.0", 55436181504ull);
    assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_OK);
    assert_string_equal(r.era, "v1-new");
    assert_int_equal(r.report.gpu_kv_cache_tokens, 422944);
    /* v0: "# GPU blocks" and concurrency B * bs / len. */
    s = vllm("0.6.3", 55436181504ull);
    assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_OK);
    assert_string_equal(r.era, "v0");
    assert_int_equal(r.report.num_gpu_blocks, 26434);
    kvp_model_free(m);
}

/* §1.8: 8 GiB hold 8 GiB / (32 * 64 KiB) = 4096 blocks = 65,536 tokens; one 131,072-token
 * request needs 16 GiB, so the estimated maximum length is 65,536; --max-model-len -1
 * shrinks to it (concurrency 4096 / 4096 = 1). That is 0.24 (v1-new, before the null
 * block); the latest release keeps one block back (65,520: test_vllm_2026_rules.c). */
static void test_vllm_auto_fit(void **state) {
    (void)state;
    kvp_model *m = llama8b();
    kvp_policy_settings s = vllm("0.24.0", 8ull << 30);
    kvp_policy_result r;
    kvp_error err;
    assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_OK);
    assert_int_equal(r.needed_bytes, 16ull << 30);
    assert_int_equal(r.estimated_max_model_len, 65536);
    assert_int_equal(r.max_model_len, 131072);
    s.auto_fit_max_model_len = true;
    assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_OK);
    assert_int_equal(r.max_model_len, 65536);
    assert_true(r.report.max_concurrency == 1.0);
    assert_int_equal(r.report.gpu_kv_cache_tokens, 65536);
    kvp_model_free(m);
}

/* §1.9 C: Qwen3.5-27B, 16 full layers (4 x 256) every 4th, 48 GDN layers; fp32 SSM.
 * Mamba page 61,440 + 3,145,728 = 3,207,168 B; attention 4096 B/token ->
 * bs = 16 * cdiv(3207168, 65536) = 784; page 3,211,264; 4 groups of 16;
 * 1487 blocks need 1487 * 16 * 3211264 = 76,402,393,088 B; tokens (1487 // 4) * 784 =
 * 290,864; concurrency 1487 / (cdiv(32768, 784) + 3) = 1487 / 45. */
static void test_vllm_gdn_hybrid(void **state) {
    (void)state;
    kvp_model *m = kvp__model_new(NULL, "qwen35");
    kvp_model_info *i = kvp__model_info(m);
    i->num_layers = 64;
    i->max_position_embeddings = 262144;
    i->dtype = KVP_DTYPE_BF16;
    for (uint32_t l = 0; l < 64; l++) {
        if ((l + 1) % 4 == 0) {
            add(m, l, KVP_CACHE_FULL, 4, 256, 256);
            continue;
        }
        kvp_layer_cache c;
        memset(&c, 0, sizeof c);
        c.layer = l;
        c.kind = KVP_CACHE_RECURRENT;
        c.recurrent = (kvp_recurrent_geometry){48, 128, 128, 16, 128, 4, KVP_DTYPE_AUTO,
                                               KVP_DTYPE_FP32, false};
        c.kv_heads = 48;
        assert_int_equal(kvp__model_add_cache(m, &c, NULL), KVP_OK);
    }
    kvp_policy_settings s = vllm("0.19.0", 76402393088ull);
    s.max_model_len = 32768;
    kvp_policy_result r;
    kvp_error err;
    assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_OK);
    assert_int_equal(r.block_size, 784);
    assert_int_equal(r.num_groups, 4);
    assert_int_equal(r.report.num_gpu_blocks, 1487);
    assert_int_equal(r.report.gpu_kv_cache_tokens, 290864);
    assert_int_equal(r.per_request_blocks, 45);
    assert_true(r.report.max_concurrency == 1487.0 / 45.0);
    /* align mode: two state blocks per group -> 42 + 6 = 48. */
    strcpy(s.mamba_cache_mode, "align");
    assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_OK);
    assert_int_equal(r.per_request_blocks, 48);
    kvp_model_free(m);
}

/* §1.2 (c) (dev vllm-33): ceil(85179938898 * 0.85) = 72402948064; minus weights,
 * activation, non-torch and CUDA graphs (25,823,490,867) = 46,579,457,197. */
static void test_vllm_budget_formula(void **state) {
    (void)state;
    kvp_model *m = llama8b();
    kvp_policy_settings s = vllm(">=0.21", 0);
    s.total_memory_bytes = 85179938898ull;
    s.gpu_memory_utilization = 0.85;
    s.weights_bytes = 18167711662ull;
    s.peak_activation_bytes = 6077378724ull;
    s.non_torch_bytes = 139586437ull;
    s.cudagraph_bytes = 1438814044ull;
    kvp_policy_result r;
    kvp_error err;
    assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_OK);
    assert_int_equal(r.report.available_kv_cache_bytes, 46579457197ull);
    /* 0.20 does not subtract CUDA graphs. */
    strcpy(s.engine_version, "0.20.0");
    assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_OK);
    assert_int_equal(r.report.available_kv_cache_bytes, 46579457197ull + 1438814044ull);
    /* No budget and no memory facts: an error naming --kv-budget. */
    s = vllm("", 0);
    assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_INFEASIBLE);
    assert_string_equal(err.key, "kv_budget_bytes");
    kvp_model_free(m);
}

/* §2.8 (dev sglang-01): 61 MLA layers + indexer; fp8 NSA row 656 + indexer 132 = 788;
 * cell 48,068 B. With rest = (975424 + 10) * 48068 the pool floors to 975,424 tokens
 * (page 64), KV size (975424 + 64) * 48068 = 46,889,757,184 B. */
static void test_sglang_nsa(void **state) {
    (void)state;
    kvp_model *m = kvp__model_new(NULL, "dsv32");
    kvp_model_info *i = kvp__model_info(m);
    i->num_layers = 61;
    i->max_position_embeddings = 163840;
    i->kv_lora_rank = 512;
    i->qk_rope_head_dim = 64;
    i->is_mla = true;
    for (uint32_t l = 0; l < 61; l++) {
        add(m, l, KVP_CACHE_MLA, 1, 576, 0);
        kvp_layer_cache ix;
        memset(&ix, 0, sizeof ix);
        ix.layer = l;
        ix.kind = KVP_CACHE_INDEXER;
        ix.kv_heads = 1;
        ix.k_head_dim = 128;
        ix.replicated = true;
        ix.dtype = KVP_DTYPE_FP8;
        ix.scale_bytes_per_token = 4;
        assert_int_equal(kvp__model_add_cache(m, &ix, NULL), KVP_OK);
    }
    kvp_policy_settings s = kvp_policy_settings_default();
    s.engine = KVP_ENGINE_SGLANG;
    s.tp = 8;
    s.dp = 8;
    s.enable_dp_attention = true;
    strcpy(s.kv_dtype, "fp8_e4m3");
    s.block_size = 64;
    s.kv_budget_bytes = (975424ull + 10) * 48068ull;
    kvp_policy_result r;
    kvp_error err;
    assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_OK);
    assert_int_equal(r.cell_bytes, 48068);
    assert_int_equal(r.report.max_total_num_tokens, 975424);
    assert_int_equal(r.report.k_size_bytes, 46889757184ull);
    assert_int_equal(r.report.v_size_bytes, 0);
    /* Before PR #11309 the indexer was not counted: cell 61 * 656 = 40,016. */
    strcpy(s.engine_version, "pre-11309");
    assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_OK);
    assert_int_equal(r.cell_bytes, 40016);
    /* SGLang has no q4_0 cache. */
    strcpy(s.kv_dtype, "q4_0");
    assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_INVALID_ARG);
    assert_string_equal(err.key, "kv_dtype");
    kvp_model_free(m);
}

/* §3.5: ggml row sizes; §3.1 padding and streams. */
static void test_llamacpp_rows_and_context(void **state) {
    (void)state;
    uint64_t b;
    kvp_error err;
    assert_int_equal(kvp_llamacpp_row_bytes("q4_0", 1024, &b, &err), KVP_OK);
    assert_int_equal(b, 576); /* 1024 / 32 * 18 */
    assert_int_equal(kvp_llamacpp_row_bytes("q8_0", 1024, &b, &err), KVP_OK);
    assert_int_equal(b, 1088); /* 32 * 34 */
    assert_int_equal(kvp_llamacpp_row_bytes("q5_1", 64, &b, &err), KVP_OK);
    assert_int_equal(b, 48);
    assert_int_equal(kvp_llamacpp_row_bytes("q8_0", 1000, &b, &err), KVP_INVALID_ARG);
    assert_int_equal(kvp_llamacpp_row_bytes("q3_k", 1024, &b, &err), KVP_INVALID_ARG);

    kvp_model *m = llama8b();
    kvp_policy_settings s = kvp_policy_settings_default();
    s.engine = KVP_ENGINE_LLAMACPP;
    s.n_ctx = 10000;
    s.n_seq_max = 4;
    kvp_policy_result r;
    /* new padding: pad(10000, 256) = 10240; per stream pad(2560, 256) = 2560 cells x 4
     * streams; K = 1024 * 2 B * 10240 * 32 = 671,088,640. */
    assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_OK);
    assert_int_equal(r.report.cells, 2560);
    assert_int_equal(r.n_stream, 4);
    assert_int_equal(r.report.k_size_bytes, 671088640ull);
    /* old padding (b6182, no flash attention): pad(10000, 32) = 10016, 2504 per stream. */
    strcpy(s.engine_version, "b6182");
    assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_OK);
    assert_int_equal(r.report.cells, 2504);
    /* Quantized V needs flash attention; TP is not a llama.cpp setting. */
    strcpy(s.type_v, "q8_0");
    s.flash_attn = 0;
    assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_INVALID_ARG);
    s = kvp_policy_settings_default();
    s.engine = KVP_ENGINE_LLAMACPP;
    s.tp = 2;
    assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_INVALID_ARG);
    assert_string_equal(err.key, "tp");
    kvp_model_free(m);
}

/* Geometry JSON of dev llamacpp-05 (gemma2, 26 layers, 4 x 256, window 4096):
 * 13 + 13 layers; SWA pad(min(8192, 4096 * 4 + 512), 256) = 8192 cells; each cache
 * 1024 * 2 B * 8192 * 13 * 2 = 436,207,616 B (416 MiB). */
static void test_geometry_gemma2(void **state) {
    (void)state;
    const char *j = "{\"arch\": \"gemma2\", \"block_count\": 26, \"head_count_kv\": 4, "
                    "\"key_length\": 256, \"value_length\": 256, \"sliding_window\": 4096, "
                    "\"swa_pattern\": \"gemma2 rule\"}";
    kvp_model *m = NULL;
    kvp_error err;
    assert_int_equal(kvp_model_from_geometry_json(j, strlen(j), "g", NULL, &m, &err), KVP_OK);
    kvp_policy_settings s = kvp_policy_settings_default();
    s.engine = KVP_ENGINE_LLAMACPP;
    strcpy(s.engine_version, "b7445");
    s.n_ctx = 8192;
    s.n_seq_max = 4;
    s.kv_unified = 1;
    kvp_policy_result r;
    assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_OK);
    assert_int_equal(r.main_layers, 13);
    assert_int_equal(r.swa_layers, 13);
    assert_int_equal(r.swa_tokens, 8192);
    assert_int_equal(r.report.kv_size_bytes, 436207616ull);
    assert_int_equal(r.report.swa_kv_size_bytes, 436207616ull);
    /* --swa-full off with 1 sequence: pad(4096 + 512, 256) = 4608 cells. */
    s.n_seq_max = 1;
    assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_OK);
    assert_int_equal(r.swa_tokens, 4608);
    kvp_model_free(m);
    const char *bad = "{\"block_count\": 26}";
    assert_int_equal(kvp_model_from_geometry_json(bad, strlen(bad), "g", NULL, &m, &err),
                     KVP_CONFIG);
}

/* §4.2: Llama-3.1-8B at TP 16: the estimator floors 128 * 8 / 16 = 64 elements per
 * layer half -> 2 * 32 * 64 * 2 B = 8,192 B/token; the manager keeps one head of
 * 256 elements -> 32 * 256 * 2 = 16,384 B/token. 1 GiB budget: manager bound
 * 65536 tokens = 2048 blocks of 32. TensorRT-LLM is the creator, reached through
 * the deployment pipeline (there is no TensorRT-LLM policy). */
static void test_trtllm_head_rounding(void **state) {
    (void)state;
    kvp_model *m = llama8b();
    kvp_deployment d = kvp_deployment_default();
    d.model = m;
    d.point.tp = 16;
    d.memory.kv_budget_bytes = 1ull << 30;
    kvp_deploy_result *r = kvp_deploy_result_new();
    assert_non_null(r);
    kvp_error err;
    assert_int_equal(kvp_deploy_plan(&d, r, &err), KVP_OK);
    assert_int_equal(r->status, KVP_OK);
    assert_int_equal(r->plan.managers[KVP_ROLE_TARGET].cost.slope_bytes_per_token, 16384);
    assert_int_equal(r->report.max_tokens, 65536);
    assert_int_equal(r->report.kv_cache_bytes, 1ull << 30);
    /* The policy entry point refuses trtllm, naming the settings field. */
    kvp_policy_settings s = kvp_policy_settings_default();
    s.engine = KVP_ENGINE_TRTLLM;
    s.kv_budget_bytes = 1ull << 30;
    kvp_policy_result pr;
    assert_int_equal(kvp_policy_plan(m, &s, &pr, &err), KVP_INVALID_ARG);
    assert_string_equal(err.key, "engine");
    kvp_deploy_result_free(r);
    kvp_model_free(m);
}

static void test_engine_names(void **state) {
    (void)state;
    kvp_engine e;
    assert_int_equal(kvp_engine_parse("llama.cpp", &e), KVP_OK);
    assert_int_equal(e, KVP_ENGINE_LLAMACPP);
    assert_int_equal(kvp_engine_parse("tgi", &e), KVP_INVALID_ARG);
    assert_string_equal(kvp_engine_name(KVP_ENGINE_SGLANG), "sglang");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vllm_dense_with_draft),
        cmocka_unit_test(test_vllm_gdn_hybrid),
        cmocka_unit_test(test_vllm_auto_fit),
        cmocka_unit_test(test_vllm_budget_formula),
        cmocka_unit_test(test_sglang_nsa),
        cmocka_unit_test(test_llamacpp_rows_and_context),
        cmocka_unit_test(test_geometry_gemma2),
        cmocka_unit_test(test_trtllm_head_rounding),
        cmocka_unit_test(test_engine_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
