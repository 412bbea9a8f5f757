/*
 * test_families_current.c — issue 13: the newest families read exactly or
 * refused by name, and TP sizes the engines refuse refused everywhere. Every
 * figure is worked by hand in the comment above it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "kvplan/kvplan.h"
#include "test_family_helpers.h"

static kvp_model *read_json(const char *json) {
    kvp_model *m = NULL;
    kvp_error err;
    if (kvp_model_from_hf_json(json, strlen(json), "t.json", NULL, &m, &err) != KVP_OK)
        fail_msg("t.json: %s: %s", err.key, err.message);
    return m;
}

static kvp_cost cost_json(const char *json, uint32_t tp) {
    kvp_model *m = read_json(json);
    kvp_cost c = family_cost(m, tp, KVP_DTYPE_AUTO);
    kvp_model_free(m);
    return c;
}

static kvp_error refused(const char *json, kvp_status code) {
    kvp_model *m = NULL;
    kvp_error err;
    memset(&err, 0x5a, sizeof err);
    kvp_status s = kvp_model_from_hf_json(json, strlen(json), "t.json", NULL, &m, &err);
    if (s != code)
        fail_msg("expected %s, got %s: %s", kvp_status_name(code), kvp_status_name(s),
                 s == KVP_OK ? "" : err.message);
    assert_null(m);
    return err;
}

static const kvp_pool_cost *pool_of(const kvp_cost *c, kvp_cache_kind kind) {
    for (size_t i = 0; i < c->pool_count; i++)
        if (c->pools[i].kind == kind) return &c->pools[i];
    fail_msg("no %s pool", kvp_cache_kind_name(kind));
    return NULL;
}

/* ------------------------------------------------------------ TP refusal */

static kvp_status policy_at(const kvp_model *m, kvp_engine e, uint32_t tp, kvp_error *err) {
    if (e == KVP_ENGINE_TRTLLM) {
        /* TensorRT-LLM is the creator, through the deployment pipeline. */
        kvp_deployment d = kvp_deployment_default();
        d.model = m;
        d.point.tp = tp;
        d.point.max_seq_len = 4096;
        d.memory.kv_budget_bytes = UINT64_C(10) << 30;
        kvp_deploy_result *r = kvp_deploy_result_new();
        assert_non_null(r);
        assert_int_equal(kvp_deploy_plan(&d, r, err), KVP_OK);
        kvp_status st = r->status;
        kvp_error_clear(err);
        err->code = st;
        snprintf(err->key, sizeof err->key, "%s", r->key);
        snprintf(err->message, sizeof err->message, "%s", r->message);
        kvp_deploy_result_free(r);
        return st;
    }
    kvp_policy_settings s = kvp_policy_settings_default();
    s.engine = e;
    s.tp = tp;
    s.kv_budget_bytes = UINT64_C(10) << 30;
    s.max_model_len = 4096;
    kvp_policy_result r;
    return kvp_policy_plan(m, &s, &r, err);
}

static void test_query_heads_divide_tp(void **state) {
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/data/models/Qwen__Qwen2.5-7B.json", KVP_SOURCE_DIR);
    kvp_model *m = NULL;
    kvp_error err;
    assert_int_equal(kvp_model_from_hf_file(path, NULL, &m, &err), KVP_OK);
    /* 28 query heads: TP 8 leaves 3.5 per rank. Refused by the cost model ... */
    kvp_cost_settings s = kvp_cost_settings_default();
    s.tp = 8;
    kvp_cost c;
    memset(&err, 0x5a, sizeof err);
    assert_int_equal(kvp_cost_compute(m, &s, &c, &err), KVP_CONFIG);
    assert_string_equal(err.key, "num_attention_heads");
    assert_non_null(strstr(err.message, "28 query heads"));
    /* ... and by every engine policy that has TP. */
    static const kvp_engine engines[] = {KVP_ENGINE_VLLM, KVP_ENGINE_SGLANG, KVP_ENGINE_TRTLLM};
    for (size_t i = 0; i < 3; i++) {
        memset(&err, 0x5a, sizeof err);
        if (engines[i] == KVP_ENGINE_TRTLLM) {
            /* Through the pipeline, the engine's start-up rule refuses first: 28 % 8 = 4. */
            assert_int_equal(policy_at(m, engines[i], 8, &err), KVP_INFEASIBLE);
            assert_string_equal(err.key, "tp");
            assert_non_null(strstr(err.message, "T-PAR-1: "));
            assert_non_null(strstr(err.message, "num_heads 28 % tp_size 8"));
        } else {
            assert_int_equal(policy_at(m, engines[i], 8, &err), KVP_CONFIG);
            assert_string_equal(err.key, "num_attention_heads");
        }
        /* TP 4: 7 query heads and 1 KV head per rank, accepted. */
        assert_int_equal(policy_at(m, engines[i], 4, &err), KVP_OK);
    }
    /* TP 4 in the cost model: 28 layers x 1 head x 256 x 2 B = 14,336. */
    s.tp = 4;
    assert_int_equal(kvp_cost_compute(m, &s, &c, &err), KVP_OK);
    assert_int_equal(c.bytes_per_token, 14336);
    kvp_model_free(m);

    /* KV heads that neither divide nor replicate: 6 KV heads (of 24 query heads)
     * at TP 4 give 1.5 per rank, and 4 % 6 != 0. */
    m = read_json("{\"model_type\": \"llama\", \"num_hidden_layers\": 2, \"num_attention_heads\": 24,"
                  " \"num_key_value_heads\": 6, \"hidden_size\": 3072}");
    memset(&err, 0x5a, sizeof err);
    assert_int_equal(kvp_cost_check_tp(m, 4, &err), KVP_CONFIG);
    assert_string_equal(err.key, "num_key_value_heads");
    assert_int_equal(policy_at(m, KVP_ENGINE_VLLM, 4, &err), KVP_CONFIG);
    assert_string_equal(err.key, "num_key_value_heads");
    /* TP 3: 8 query and 2 KV heads per rank. */
    assert_int_equal(kvp_cost_check_tp(m, 3, &err), KVP_OK);
    kvp_model_free(m);
}

/* ---------------------------------------------------- Qwen sliding windows */

static void test_qwen_use_sliding_window(void **state) {
    (void)state;
    /* Qwen3 with layer_types marking sliding layers but use_sliding_window false:
     * Qwen3Config drops the window, so all 4 layers are full:
     * 4 x 2 heads x (64 + 64) x 2 B = 2,048 per token, one full pool. */
    kvp_cost c = cost_json(
        "{\"model_type\": \"qwen3\", \"num_hidden_layers\": 4, \"num_attention_heads\": 4,"
        " \"num_key_value_heads\": 2, \"head_dim\": 64, \"hidden_size\": 256,"
        " \"sliding_window\": 128, \"use_sliding_window\": false, \"max_window_layers\": 2,"
        " \"layer_types\": [\"full_attention\", \"full_attention\", \"sliding_attention\","
        " \"sliding_attention\"]}", 1);
    assert_int_equal(c.pool_count, 1);
    assert_int_equal(c.pools[0].kind, KVP_CACHE_FULL);
    assert_int_equal(c.bytes_per_token, 2048);
    /* use_sliding_window absent: the class default (false) applies too. */
    c = cost_json("{\"model_type\": \"qwen2\", \"num_hidden_layers\": 4, \"num_attention_heads\": 4,"
                  " \"num_key_value_heads\": 2, \"hidden_size\": 256, \"sliding_window\": 128}",
                  1);
    assert_int_equal(c.pool_count, 1);
    assert_int_equal(c.pools[0].kind, KVP_CACHE_FULL);
    /* use_sliding_window true: layers from max_window_layers 2 on slide (2 + 2). */
    c = cost_json("{\"model_type\": \"qwen2\", \"num_hidden_layers\": 4, \"num_attention_heads\": 4,"
                  " \"num_key_value_heads\": 2, \"hidden_size\": 256, \"sliding_window\": 128,"
                  " \"use_sliding_window\": true, \"max_window_layers\": 2}",
                  1);
    assert_int_equal(pool_of(&c, KVP_CACHE_SLIDING)->layers, 2);
    assert_int_equal(pool_of(&c, KVP_CACHE_SLIDING)->window_tokens, 128);
    assert_int_equal(pool_of(&c, KVP_CACHE_FULL)->layers, 2);
    /* Mistral keeps its window with no use_sliding_window key. */
    c = cost_json("{\"model_type\": \"mistral\", \"num_hidden_layers\": 4, \"num_attention_heads\": 4,"
                  " \"num_key_value_heads\": 2, \"hidden_size\": 256, \"sliding_window\": 128}",
                  1);
    assert_int_equal(pool_of(&c, KVP_CACHE_SLIDING)->layers, 4);
}

/* ----------------------------------------------------------------- MiniMax */

static void test_minimax_attn_type_list(void **state) {
    (void)state;
    /* MiniMax-M2.5 with its attn_type_list of 62 ones (the released config has
     * it; the catalogue copy omits it): an ordinary GQA model,
     * 62 x 8 x (128 + 128) x 2 B = 253,952 per token. */
    char json[4096];
    int n = snprintf(json, sizeof json,
                     "{\"model_type\": \"minimax_m2\", \"num_hidden_layers\": 62,"
                     " \"num_attention_heads\": 48, \"num_key_value_heads\": 8, \"head_dim\": 128,"
                     " \"hidden_size\": 3072, \"attn_type_list\": [");
    for (int i = 0; i < 62; i++) n += snprintf(json + n, sizeof json - (size_t)n, "%s1", i ? "," : "");
    snprintf(json + n, sizeof json - (size_t)n, "]}");
    kvp_cost c = cost_json(json, 1);
    assert_int_equal(c.bytes_per_token, 253952);
    assert_int_equal(c.bytes_per_sequence, 0);
    /* TP 8: 1 KV head per rank: 62 x 256 x 2 = 31,744. */
    assert_int_equal(cost_json(json, 8).bytes_per_token, 31744);

    /* Text-01 style mix, 4 layers [0, 0, 0, 1], 8 heads x 64, 2 KV heads, bf16:
     * 1 softmax layer: 2 x (64 + 64) x 2 B = 512 per token;
     * 3 lightning layers: 8 x 64 x 64 x 2 B = 65,536 each -> 196,608 per sequence.
     * TP 2: 1 KV head (256 per token), 4 heads of state (32,768 each -> 98,304). */
    const char *mix = "{\"model_type\": \"minimax\", \"num_hidden_layers\": 4,"
                      " \"num_attention_heads\": 8, \"num_key_value_heads\": 2, \"head_dim\": 64,"
                      " \"hidden_size\": 512, \"torch_dtype\": \"bfloat16\","
                      " \"attn_type_list\": [0, 0, 0, 1]}";
    c = cost_json(mix, 1);
    assert_int_equal(c.bytes_per_token, 512);
    assert_int_equal(c.bytes_per_sequence, 196608);
    assert_int_equal(pool_of(&c, KVP_CACHE_RECURRENT)->layers, 3);
    c = cost_json(mix, 2);
    assert_int_equal(c.bytes_per_token, 256);
    assert_int_equal(c.bytes_per_sequence, 98304);

    /* Bad lists: wrong length, unknown value, a layer_types that contradicts it. */
    kvp_error e = refused("{\"model_type\": \"minimax\", \"num_hidden_layers\": 4,"
                          " \"num_attention_heads\": 8, \"hidden_size\": 512,"
                          " \"attn_type_list\": [0, 1]}", KVP_CONFIG);
    assert_string_equal(e.key, "/attn_type_list");
    e = refused("{\"model_type\": \"minimax\", \"num_hidden_layers\": 2,"
                " \"num_attention_heads\": 8, \"hidden_size\": 512,"
                " \"attn_type_list\": [1, true]}", KVP_UNSUPPORTED);
    assert_string_equal(e.key, "/attn_type_list/1");
    e = refused("{\"model_type\": \"minimax\", \"num_hidden_layers\": 2,"
                " \"num_attention_heads\": 8, \"hidden_size\": 512,"
                " \"attn_type_list\": [0, 1],"
                " \"layer_types\": [\"linear_attention\", \"linear_attention\"]}", KVP_CONFIG);
    assert_string_equal(e.key, "/layer_types/1");
}

/* -------------------------------------------------------------- Nemotron-3 */

static void test_nemotron3_block_types(void **state) {
    (void)state;
    /* No num_hidden_layers: 6 layers from layers_block_type; 2 Mamba2 layers,
     * 1 attention, 3 MoE/MLP (nothing cached).
     * attention: 2 KV heads x (128 + 128) x 2 B = 1,024 per token;
     * Mamba2: conv 3 x (8 x 64 + 2 x 2 x 128) x 2 B = 3 x 1024 x 2 = 6,144,
     * SSM 8 x 64 x 128 x 4 B (fp32) = 262,144; 2 layers -> 536,576 per sequence.
     * mtp_layers_block_type [attention, moe]: one MTP attention layer. */
    const char *cfg =
        "{\"model_type\": \"nemotron_h\", \"num_attention_heads\": 8, \"num_key_value_heads\": 2,"
        " \"head_dim\": 128, \"hidden_size\": 1024, \"mamba_num_heads\": 8,"
        " \"mamba_head_dim\": 64, \"ssm_state_size\": 128, \"n_groups\": 2, \"conv_kernel\": 4,"
        " \"mamba_ssm_cache_dtype\": \"float32\", \"torch_dtype\": \"bfloat16\","
        " \"layers_block_type\": [\"mamba\", \"moe\", \"attention\", \"mlp\", \"mamba\", \"moe\"],"
        " \"mtp_layers_block_type\": [\"attention\", \"moe\"]}";
    kvp_model *m = read_json(cfg);
    const kvp_model_info *info = kvp_model_get_info(m);
    assert_int_equal(info->num_layers, 6);
    assert_int_equal(info->num_nextn_predict_layers, 1);
    assert_true(info->is_hybrid_recurrent);
    kvp_cost c = family_cost(m, 1, KVP_DTYPE_AUTO);
    assert_int_equal(c.bytes_per_token, 1024);
    assert_int_equal(c.bytes_per_sequence, 536576);
    /* TP 2: 1 KV head (512); Mamba 4 heads, 1 group: conv 3 x (256 + 256) x 2 = 3,072,
     * SSM 4 x 64 x 128 x 4 = 131,072 -> 2 x 134,144 = 268,288. */
    c = family_cost(m, 2, KVP_DTYPE_AUTO);
    assert_int_equal(c.bytes_per_token, 512);
    assert_int_equal(c.bytes_per_sequence, 268288);
    kvp_model_free(m);
    /* Unknown block and MTP block types are refused by name. */
    kvp_error e = refused("{\"model_type\": \"nemotron_h\", \"num_attention_heads\": 8,"
                          " \"hidden_size\": 1024, \"layers_block_type\": [\"attention\", \"ssd\"]}",
                          KVP_UNSUPPORTED);
    assert_string_equal(e.key, "/layers_block_type/1");
    e = refused("{\"model_type\": \"nemotron_h\", \"num_attention_heads\": 8, \"hidden_size\": 1024,"
                " \"layers_block_type\": [\"attention\"], \"mtp_layers_block_type\": [\"x\"]}",
                KVP_UNSUPPORTED);
    assert_string_equal(e.key, "/mtp_layers_block_type/0");
    /* A stated num_hidden_layers must match the list. */
    e = refused("{\"model_type\": \"nemotron_h\", \"num_hidden_layers\": 3,"
                " \"num_attention_heads\": 8, \"hidden_size\": 1024,"
                " \"layers_block_type\": [\"attention\", \"moe\"]}", KVP_CONFIG);
    assert_string_equal(e.key, "/layers_block_type");
    e = refused("{\"model_type\": \"nemotron_h\", \"num_attention_heads\": 8, \"hidden_size\": 1024,"
                " \"layers_block_type\": []}", KVP_CONFIG);
    assert_string_equal(e.key, "/layers_block_type");
}

/* ------------------------------------------------------------ GLM-5 DSA */

#define GLM_BASE                                                                              \
    "\"model_type\": \"glm_moe_dsa\", \"num_hidden_layers\": 6, \"num_attention_heads\": 8,"   \
    " \"hidden_size\": 1024, \"kv_lora_rank\": 512, \"qk_rope_head_dim\": 64,"                 \
    " \"index_head_dim\": 128, \"torch_dtype\": \"bfloat16\""

static void test_glm5_indexer_skip(void **state) {
    (void)state;
    /* index_topk_freq 2, offset 1: layer i keeps its indexer when
     * max(i - 1 + 1, 0) % 2 == 0: layers 0, 2, 4 (3 of 6).
     * MLA 6 x 576 x 2 B = 6,912 + indexer 3 x (128 + 4) = 396 -> 7,308 per token. */
    kvp_cost c = cost_json("{" GLM_BASE ", \"index_topk_freq\": 2, \"index_skip_topk_offset\": 1}", 1);
    assert_int_equal(pool_of(&c, KVP_CACHE_INDEXER)->layers, 3);
    assert_int_equal(c.bytes_per_token, 7308);
    /* offset 3, freq 4: k = max(i - 2, 0): layers 0, 1, 2 (k 0), and 6 would be next:
     * 3 indexers again -> 7,308; replicated at TP 8 too. */
    c = cost_json("{" GLM_BASE ", \"index_topk_freq\": 4, \"index_skip_topk_offset\": 3}", 8);
    assert_int_equal(pool_of(&c, KVP_CACHE_INDEXER)->layers, 3);
    assert_int_equal(c.bytes_per_token, 7308);
    /* index_topk_pattern "FSSFSS": 2 indexers: 6,912 + 264 = 7,176. */
    c = cost_json("{" GLM_BASE ", \"index_topk_pattern\": \"FSSFSS\"}", 1);
    assert_int_equal(c.bytes_per_token, 7176);
    /* indexer_types alone decides: 1 full -> 6,912 + 132 = 7,044. */
    c = cost_json("{" GLM_BASE ", \"indexer_types\": [\"full\", \"shared\", \"shared\","
                  " \"shared\", \"shared\", \"shared\"]}", 1);
    assert_int_equal(c.bytes_per_token, 7044);
    /* No keys: every layer keeps one (GLM-5): 6,912 + 792 = 7,704. */
    assert_int_equal(cost_json("{" GLM_BASE "}", 1).bytes_per_token, 7704);
    /* Contradictions and bad values name the key. */
    /* freq 2, offset 0: k = i + 1, so layers 1, 3, 5 keep one; layer 0 "full" contradicts. */
    kvp_error e = refused("{" GLM_BASE ", \"index_topk_freq\": 2, \"indexer_types\": [\"full\","
                          " \"full\", \"full\", \"shared\", \"full\", \"shared\"]}", KVP_CONFIG);
    assert_string_equal(e.key, "/indexer_types/0");
    e = refused("{" GLM_BASE ", \"index_topk_pattern\": \"FSX\"}", KVP_CONFIG);
    assert_string_equal(e.key, "/index_topk_pattern");
    e = refused("{" GLM_BASE ", \"index_topk_pattern\": \"FSSFSX\"}", KVP_CONFIG);
    assert_string_equal(e.key, "/index_topk_pattern");
    e = refused("{" GLM_BASE ", \"index_topk_freq\": 0}", KVP_CONFIG);
    assert_string_equal(e.key, "/index_topk_freq");
    e = refused("{" GLM_BASE ", \"indexer_types\": [\"full\"]}", KVP_CONFIG);
    assert_string_equal(e.key, "/indexer_types");
}

/* ------------------------------------------------ watch list, unverified */

#define LLAMA_BASE                                                                            \
    "\"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"num_key_value_heads\": 2,"      \
    " \"hidden_size\": 256"

static void test_watch_list(void **state) {
    (void)state;
    static const struct {
        const char *json, *key;
    } cases[] = {
        {"{\"model_type\": \"llama\", " LLAMA_BASE ", \"compress_ratios\": [4, 128, 0]}",
         "/compress_ratios"},
        {"{\"model_type\": \"llama\", " LLAMA_BASE ", \"compress_ratio\": 4}", "/compress_ratio"},
        {"{\"model_type\": \"llama\", " LLAMA_BASE ", \"sparse_attention_config\": {}}",
         "/sparse_attention_config"},
        {"{\"model_type\": \"llama\", " LLAMA_BASE ", \"use_sparse_attention\": true}",
         "/use_sparse_attention"},
        {"{\"model_type\": \"llama\", " LLAMA_BASE ", \"index_head_dim\": 128}", "/index_head_dim"},
        {"{\"model_type\": \"llama\", " LLAMA_BASE ", \"nsa_config\": {}}", "/nsa_config"},
        {"{\"model_type\": \"llama\", " LLAMA_BASE ", \"linear_attention_config\": {}}",
         "/linear_attention_config"},
        {"{\"model_type\": \"llama\", " LLAMA_BASE ", \"shared_kv_layers\": [0]}",
         "/shared_kv_layers"},
        /* Gemma 3n reads num_kv_shared_layers; a Llama does not. */
        {"{\"model_type\": \"llama\", " LLAMA_BASE ", \"num_kv_shared_layers\": 1}",
         "/num_kv_shared_layers"},
        /* A per-layer list of kinds kvplan does not read. */
        {"{\"model_type\": \"llama\", " LLAMA_BASE ", \"attention_kinds\": [\"a\", \"b\"]}",
         "/attention_kinds"},
        {"{\"text_config\": {\"model_type\": \"llama\", " LLAMA_BASE ", \"compress_ratios\": [1, 1]}}",
         "/text_config/compress_ratios"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kvp_error e = refused(cases[i].json, KVP_UNSUPPORTED);
        if (strcmp(e.key, cases[i].key) != 0)
            fail_msg("case %zu: refused at '%s', expected '%s'", i, e.key, cases[i].key);
        assert_non_null(strstr(e.message, "kvplan"));
    }
    /* A switch that is off is harmless; a switch that is not a boolean is an error. */
    kvp_cost c = cost_json("{\"model_type\": \"llama\", " LLAMA_BASE ", \"use_sparse_attention\": false}", 1);
    /* 2 layers x 2 heads x (64 + 64) x 2 B = 1,024. */
    assert_int_equal(c.bytes_per_token, 1024);
    kvp_error e = refused("{\"model_type\": \"llama\", " LLAMA_BASE ", \"use_cla\": 1}", KVP_CONFIG);
    assert_string_equal(e.key, "/use_cla");
    /* A per-layer list of numbers (or of a different length) is no layer kind. */
    c = cost_json("{\"model_type\": \"llama\", " LLAMA_BASE ", \"rope_layers\": [1, 0],"
                  " \"tags\": [\"x\"]}", 1);
    assert_int_equal(c.bytes_per_token, 1024);
}

static void test_unverified_family(void **state) {
    (void)state;
    /* A model_type kvplan never checked is read generically, and says so. */
    kvp_model *m = read_json("{\"model_type\": \"brand_new_lm\", " LLAMA_BASE "}");
    assert_true(kvp_model_get_info(m)->family_unverified);
    assert_int_equal(family_cost(m, 1, KVP_DTYPE_AUTO).bytes_per_token, 1024);
    kvp_policy_settings s = kvp_policy_settings_default();
    s.engine = KVP_ENGINE_VLLM;
    s.kv_budget_bytes = UINT64_C(1) << 30;
    s.max_model_len = 4096;
    kvp_policy_result r;
    kvp_error err;
    assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_OK);
    bool noted = false;
    for (uint32_t i = 0; i < r.note_count; i++) noted |= strstr(r.notes[i], "unverified family") != NULL;
    assert_true(noted);
    kvp_model_free(m);
    /* No model_type at all: unverified too. */
    m = read_json("{" LLAMA_BASE "}");
    assert_true(kvp_model_get_info(m)->family_unverified);
    kvp_model_free(m);
    m = read_json("{\"model_type\": \"llama\", " LLAMA_BASE "}");
    assert_false(kvp_model_get_info(m)->family_unverified);
    kvp_model_free(m);
    /* Every catalogue model is a verified family. */
    for (size_t i = 0; i < kvp_catalog_count(); i++) {
        if (kvp_model_from_catalog(kvp_catalog_name(i), NULL, &m, &err) != KVP_OK)
            fail_msg("%s: %s", kvp_catalog_name(i), err.message);
        if (kvp_model_get_info(m)->family_unverified)
            fail_msg("%s (%s) is not a verified family", kvp_catalog_name(i),
                     kvp_model_get_info(m)->model_type);
        kvp_model_free(m);
    }
}

/* ---------------------------------------------------- Kimi KDA, MiniMax-M3 input */

#define KIMI_HEAD                                                                             \
    "{\"model_type\": \"kimi_linear\", \"num_hidden_layers\": 4, \"num_attention_heads\": 8," \
    " \"hidden_size\": 512, \"kv_lora_rank\": 512, \"qk_rope_head_dim\": 64,"                  \
    " \"torch_dtype\": \"bfloat16\", \"linear_attn_config\": {\"num_heads\": 8,"               \
    " \"head_dim\": 64, \"short_conv_kernel_size\": 4, "

static void test_kimi_and_m3_input(void **state) {
    (void)state;
    /* 4 layers, KDA 1-3, MLA 4 (1-indexed). MLA 576 x 2 = 1,152 per token; KDA conv
     * 3 x (8 x 64 x 3) = 4,608 x 2 B = 9,216 + state 8 x 64 x 64 x 4 B = 131,072 ->
     * 140,288 x 3 = 420,864 per sequence. */
    kvp_cost c = cost_json(KIMI_HEAD "\"kda_layers\": [1, 2, 3], \"full_attn_layers\": [4]}}", 1);
    assert_int_equal(c.bytes_per_token, 1152);
    assert_int_equal(c.bytes_per_sequence, 420864);
    assert_int_equal(pool_of(&c, KVP_CACHE_RECURRENT)->dtype, KVP_DTYPE_FP32);
    static const struct {
        const char *lists, *key;
        kvp_status code;
    } bad[] = {
        {"\"kda_layers\": [0, 1, 2], \"full_attn_layers\": [4]", "/linear_attn_config/kda_layers/0",
         KVP_CONFIG},
        {"\"kda_layers\": [1, 2, 3], \"full_attn_layers\": [5]",
         "/linear_attn_config/full_attn_layers/0", KVP_CONFIG},
        {"\"kda_layers\": [1, 2, 3], \"full_attn_layers\": [3, 4]",
         "/linear_attn_config/full_attn_layers/0", KVP_CONFIG},
        {"\"kda_layers\": [1, 2], \"full_attn_layers\": [4]", "/linear_attn_config/full_attn_layers",
         KVP_CONFIG},
        {"\"full_attn_layers\": [4]", "/linear_attn_config/kda_layers", KVP_CONFIG},
        {"\"kda_layers\": [1, 2, \"3\"], \"full_attn_layers\": [4]",
         "/linear_attn_config/kda_layers/2", KVP_CONFIG},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char json[1024];
        snprintf(json, sizeof json, KIMI_HEAD "%s}}", bad[i].lists);
        kvp_error e = refused(json, bad[i].code);
        if (strcmp(e.key, bad[i].key) != 0)
            fail_msg("kimi case %zu: refused at '%s', expected '%s'", i, e.key, bad[i].key);
    }
    /* linear_attn_config on a model type that is not Kimi stays refused. */
    kvp_error e = refused("{\"model_type\": \"deepseek_v3\", \"num_hidden_layers\": 2,"
                          " \"num_attention_heads\": 8, \"hidden_size\": 512, \"kv_lora_rank\": 512,"
                          " \"qk_rope_head_dim\": 64, \"linear_attn_config\": {}}", KVP_UNSUPPORTED);
    assert_string_equal(e.key, "/linear_attn_config");

#define M3_HEAD                                                                               \
    "{\"model_type\": \"minimax_m3\", \"num_hidden_layers\": 2, \"num_attention_heads\": 8,"  \
    " \"num_key_value_heads\": 2, \"head_dim\": 64, \"hidden_size\": 512,"                     \
    " \"sparse_attention_config\": {"
    /* 2 layers x 2 x 128 x 2 = 1,024 + one index-key layer x 96 x 2 B = 192 -> 1,216. */
    c = cost_json(M3_HEAD "\"sparse_attention_freq\": [0, 1], \"sparse_index_dim\": 96,"
                  " \"sparse_disable_index_value\": 1}}", 1);
    assert_int_equal(c.bytes_per_token, 1216);
    /* use_sparse_attention false: no index keys (1,024). */
    c = cost_json("{\"model_type\": \"minimax_m3\", \"num_hidden_layers\": 2,"
                  " \"num_attention_heads\": 8, \"num_key_value_heads\": 2, \"head_dim\": 64,"
                  " \"hidden_size\": 512, \"use_sparse_attention\": false,"
                  " \"sparse_attention_config\": {\"sparse_attention_freq\": [0, 1]}}", 1);
    assert_int_equal(c.bytes_per_token, 1024);
    static const struct {
        const char *body, *key;
        kvp_status code;
    } m3bad[] = {
        {"\"sparse_attention_freq\": [1], \"sparse_index_dim\": 96, \"sparse_disable_index_value\": 1",
         "/sparse_attention_config/sparse_attention_freq", KVP_CONFIG},
        {"\"sparse_attention_freq\": [1, -1], \"sparse_index_dim\": 96, \"sparse_disable_index_value\": 1",
         "/sparse_attention_config/sparse_attention_freq/1", KVP_CONFIG},
        {"\"sparse_attention_freq\": [1, 1], \"sparse_index_dim\": 0, \"sparse_disable_index_value\": 1",
         "/sparse_attention_config/sparse_index_dim", KVP_CONFIG},
        {"\"sparse_attention_freq\": [1, 1], \"sparse_disable_index_value\": 1",
         "/sparse_attention_config/sparse_index_dim", KVP_CONFIG},
        {"\"sparse_attention_freq\": [1, 1], \"sparse_index_dim\": 96, \"sparse_disable_index_value\": 0",
         "/sparse_attention_config/sparse_disable_index_value", KVP_UNSUPPORTED},
        {"\"sparse_index_dim\": 96, \"sparse_disable_index_value\": 1",
         "/sparse_attention_config/sparse_attention_freq", KVP_CONFIG},
    };
    for (size_t i = 0; i < sizeof m3bad / sizeof m3bad[0]; i++) {
        char json[1024];
        snprintf(json, sizeof json, M3_HEAD "%s}}", m3bad[i].body);
        e = refused(json, m3bad[i].code);
        if (strcmp(e.key, m3bad[i].key) != 0)
            fail_msg("m3 case %zu: refused at '%s', expected '%s'", i, e.key, m3bad[i].key);
    }
}

/* ---------------------------------------------- new families under the policies */

static kvp_policy_result plan_policy(const kvp_model *m, kvp_engine e, const char *kv_dtype,
                                     const char *mamba_mode) {
    kvp_policy_settings s = kvp_policy_settings_default();
    s.engine = e;
    s.kv_budget_bytes = UINT64_C(40) << 30; /* 42,949,672,960 */
    s.max_model_len = 32768;
    if (kv_dtype) snprintf(s.kv_dtype, sizeof s.kv_dtype, "%s", kv_dtype);
    if (mamba_mode) snprintf(s.mamba_cache_mode, sizeof s.mamba_cache_mode, "%s", mamba_mode);
    kvp_policy_result r;
    kvp_error err;
    if (kvp_policy_plan(m, &s, &r, &err) != KVP_OK) fail_msg("policy: %s", err.message);
    return r;
}

static void test_new_families_vllm(void **state) {
    (void)state;
    /* Kimi-Linear (MLA + KDA): MLA 576 x 2 B = 1,152 per token per layer; KDA state
     * 2,170,880 per layer. Hybrid padding with the MLA alignment (64):
     * 64 x ceil(2,170,880 / (64 x 1,152)) = 64 x 30 = 1,920-token blocks, page
     * 1,920 x 1,152 = 2,211,840. Groups: 7 MLA, 20 KDA; 20 >= 1.5 x 7, so groups of
     * 7: 1 MLA + ceil(20 / 7) = 3 KDA = 4. Blocks: 42,949,672,960 / (2,211,840 x 7
     * = 15,482,880) = 2,774. Per 32,768-token request: ceil(32,768 / 1,920) = 18 MLA
     * blocks + KDA blocks by mamba_cache_mode: none 3 x 1, align 3 x 2, all 3 x 18. */
    kvp_model *m = family_catalog("kimi-linear-48b-a3b-instruct");
    kvp_policy_result r = plan_policy(m, KVP_ENGINE_VLLM, NULL, "align");
    assert_int_equal(r.block_size, 1920);
    assert_int_equal(r.page_bytes, 2211840);
    assert_int_equal(r.num_groups, 4);
    assert_int_equal(r.report.num_gpu_blocks, 2774);
    assert_int_equal(r.per_request_blocks, 24);
    assert_int_equal(plan_policy(m, KVP_ENGINE_VLLM, NULL, "none").per_request_blocks, 21);
    assert_int_equal(plan_policy(m, KVP_ENGINE_VLLM, NULL, "all").per_request_blocks, 72);
    /* SGLang: cell 7 x 1,152 = 8,064; one unpadded state slot per request of
     * 20 x 2,170,880 = 43,417,600 bytes. */
    r = plan_policy(m, KVP_ENGINE_SGLANG, NULL, NULL);
    assert_int_equal(r.cell_bytes, 8064);
    bool state_pool = false;
    for (uint32_t i = 0; i < r.pool_count; i++)
        if (r.pools[i].kind == KVP_CACHE_RECURRENT) {
            assert_int_equal(r.pools[i].page_bytes, 43417600);
            assert_int_equal(r.pools[i].bytes, 43417600ull * r.mamba_cache_size);
            state_pool = true;
        }
    assert_true(state_pool);
    kvp_model_free(m);

    /* MiniMax-Text-01: softmax unit 8 x 256 x 2 = 4,096 B; lightning state 64 x 128 x
     * 128 x 2 = 2,097,152. Block 16 x ceil(2,097,152 / 65,536) = 512, page 2,097,152.
     * Groups of 10: 1 softmax + 7 lightning = 8. Blocks 42,949,672,960 / 20,971,520 =
     * 2,048. Per request (align): 64 + 7 x 2 = 78. */
    m = family_catalog("minimax-text-01");
    r = plan_policy(m, KVP_ENGINE_VLLM, NULL, "align");
    assert_int_equal(r.block_size, 512);
    assert_int_equal(r.num_groups, 8);
    assert_int_equal(r.report.num_gpu_blocks, 2048);
    assert_int_equal(r.per_request_blocks, 78);
    kvp_model_free(m);

    /* MiniMax-M3 at fp8: one uniform group, 16-token blocks: 62 x 16 x 2,048 B =
     * 2,031,616 of KV + 60 index-key layers x 16 x 256 B (bf16 stays) = 245,760 ->
     * 2,277,376 per block; 42,949,672,960 / 2,277,376 = 18,859 blocks. */
    m = family_catalog("minimax-m3");
    r = plan_policy(m, KVP_ENGINE_VLLM, "fp8", NULL);
    assert_int_equal(r.page_bytes, 2277376);
    assert_int_equal(r.report.num_gpu_blocks, 18859);
    kvp_model_free(m);
}

/* ------------------------------------------------------------- DeepSeek-V4 */

static void test_deepseek_v4_exact(void **state) {
    (void)state;
    kvp_model *m = family_catalog("deepseek-v4-flash");
    kvp_cost c = family_cost(m, 8, KVP_DTYPE_BF16);
    assert_true(c.non_affine);
    assert_int_equal(c.pool_count, 6);
    /* One sequence of 131,072 tokens, 32-token blocks, bf16 (the same at TP 1 and 8):
     *   sliding 43 x 1,024 B/token, window 128: 4 blocks x 32 x 44,032 = 5,636,096
     *   ratio 4: 32,768 entries = 1,024 blocks x 32 x 21 x 1,024 = 704,643,072
     *   indexer: 32,768 entries x 21 x 132 = 90,832,896
     *   ratio 128: 1,024 entries = 32 blocks x 32 x 20 x 1,024 = 20,971,520
     *   compressor state 12,206,080
     *   total 834,289,664. */
    uint64_t b = 0;
    kvp_error err;
    assert_int_equal(kvp_cost_sequence_bytes(&c, 131072, &b, &err), KVP_OK);
    assert_int_equal(b, 834289664);
    /* 4,096 tokens: 5,636,096 + 32 blocks x 688,128 = 22,020,096 + 1,024 x 2,772 =
     * 2,838,528 + 1 block x 655,360 + 12,206,080 = 43,356,160. */
    assert_int_equal(kvp_cost_sequence_bytes(&c, 4096, &b, &err), KVP_OK);
    assert_int_equal(b, 43356160);
    /* Tokens for a budget, by the exact function: exactly 834,289,664 bytes hold
     * 131,072 tokens; one byte less drops the last ratio-4 block (128 tokens), and
     * no other pool needs a block more below 130,944: 130,944. A rounded slope
     * (say 1,024 + 21,504 / 4 + ... per token) would give neither. */
    uint64_t t = 0;
    assert_int_equal(kvp_cost_tokens_for_budget(&c, 834289664, &t, &err), KVP_OK);
    assert_int_equal(t, 131072);
    assert_int_equal(kvp_cost_tokens_for_budget(&c, 834289663, &t, &err), KVP_OK);
    assert_int_equal(t, 130944);
    /* Less than the fixed state: nothing fits. */
    assert_int_equal(kvp_cost_tokens_for_budget(&c, 12206080, &t, &err), KVP_OK);
    assert_int_equal(t, 0);
    /* fp8 KV: compressed entries 512 B, the indexer stays 132, the state fp32:
     * 4 x 32 x 22,016 = 2,818,048 + 1,024 x 32 x 10,752 = 352,321,536 + 90,832,896
     * + 32 x 32 x 10,240 = 10,485,760 + 12,206,080 = 468,664,320. */
    c = family_cost(m, 1, KVP_DTYPE_FP8);
    assert_int_equal(kvp_cost_sequence_bytes(&c, 131072, &b, &err), KVP_OK);
    assert_int_equal(b, 468664320);
    /* vLLM plans it exactly (test_policy_v4_mamba.c); SGLang and the creator, whose
     * split across the V4 pools the reference does not state, refuse it by name
     * rather than round it to a slope. */
    assert_int_equal(policy_at(m, KVP_ENGINE_VLLM, 8, &err), KVP_OK);
    memset(&err, 0x5a, sizeof err);
    assert_int_equal(policy_at(m, KVP_ENGINE_SGLANG, 8, &err), KVP_UNSUPPORTED);
    assert_string_equal(err.key, "compress_ratios");
    kvp_creator *cr = NULL;
    kvp_deploy_settings d;
    memset(&d, 0, sizeof d);
    assert_int_equal(kvp_creator_new(m, NULL, &d, NULL, NULL, &cr, &err), KVP_UNSUPPORTED);
    assert_null(cr);
    kvp_model_free(m);

    /* Bad input names the key. */
#define V4_HEAD                                                                               \
    "{\"model_type\": \"deepseek_v4\", \"num_hidden_layers\": 2, \"num_attention_heads\": 8,"  \
    " \"head_dim\": 512, \"sliding_window\": 128, \"index_head_dim\": 128,"                    \
    " \"num_nextn_predict_layers\": 1, "
    static const struct {
        const char *body, *key;
        kvp_status code;
    } bad[] = {
        {"\"compress_ratios\": [4]}", "/compress_ratios", KVP_CONFIG},
        {"\"compress_ratios\": [4, 4, 4, 4]}", "/compress_ratios", KVP_CONFIG},
        {"\"compress_ratios\": [4, -4]}", "/compress_ratios/1", KVP_CONFIG},
        {"\"compress_ratios\": [4, 2.5]}", "/compress_ratios/1", KVP_CONFIG},
        {"\"compress_ratios\": [4, \"4\"]}", "/compress_ratios/1", KVP_CONFIG},
        {"\"compress_ratios\": [4, 16]}", "/compress_ratios/1", KVP_UNSUPPORTED},
        {"\"compress_ratios\": \"4\"}", "/compress_ratios", KVP_CONFIG},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char json[1024];
        snprintf(json, sizeof json, V4_HEAD "%s", bad[i].body);
        kvp_error e = refused(json, bad[i].code);
        if (strcmp(e.key, bad[i].key) != 0)
            fail_msg("v4 case %zu: refused at '%s', expected '%s'", i, e.key, bad[i].key);
    }
    /* index_head_dim 0 with a ratio-4 layer. */
    kvp_error e = refused("{\"model_type\": \"deepseek_v4\", \"num_hidden_layers\": 1,"
                          " \"num_attention_heads\": 8, \"head_dim\": 512, \"sliding_window\": 128,"
                          " \"index_head_dim\": 0, \"compress_ratios\": [4]}", KVP_CONFIG);
    assert_string_equal(e.key, "/index_head_dim");
    /* Two layers [4, 1] plus the MTP entry: 2 sliding + 1 compressed + 1 indexer + state. */
    c = cost_json(V4_HEAD "\"compress_ratios\": [4, 1, 0]}", 1);
    assert_int_equal(c.bytes_per_token, 2048);
    assert_int_equal(c.bytes_per_sequence, 81920);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_query_heads_divide_tp),
        cmocka_unit_test(test_qwen_use_sliding_window),
        cmocka_unit_test(test_minimax_attn_type_list),
        cmocka_unit_test(test_nemotron3_block_types),
        cmocka_unit_test(test_glm5_indexer_skip),
        cmocka_unit_test(test_watch_list),
        cmocka_unit_test(test_unverified_family),
        cmocka_unit_test(test_kimi_and_m3_input),
        cmocka_unit_test(test_new_families_vllm),
        cmocka_unit_test(test_deepseek_v4_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
