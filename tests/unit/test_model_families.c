/*
 * test_model_families.c — families outside data/models/ (tests/data/families/,
 * see its README): each read and costed against bytes worked by hand from its
 * config, or refused by name with the key that holds what kvplan does not model.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "kvplan/kvplan.h"

static kvp_status open_family(const char *name, kvp_model **m, kvp_error *err) {
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/families/%s.json", KVP_SOURCE_DIR, name);
    return kvp_model_from_hf_file(path, NULL, m, err);
}

/* Cost at the given TP, KV in the model's dtype (the settings' default). */
static kvp_cost cost_of(const char *name, uint32_t tp) {
    kvp_model *m = NULL;
    kvp_error err;
    if (open_family(name, &m, &err) != KVP_OK) fail_msg("%s: %s", name, err.message);
    kvp_cost_settings s = kvp_cost_settings_default();
    s.tp = tp;
    kvp_cost c;
    if (kvp_cost_compute(m, &s, &c, &err) != KVP_OK) fail_msg("%s: %s", name, err.message);
    kvp_model_free(m);
    return c;
}

static const kvp_pool_cost *pool_of(const kvp_cost *c, kvp_cache_kind kind) {
    for (size_t i = 0; i < c->pool_count; i++)
        if (c->pools[i].kind == kind) return &c->pools[i];
    fail_msg("no %s pool", kvp_cache_kind_name(kind));
    return NULL;
}

static void test_attention_families(void **state) {
    (void)state;
    /* ChatGLM3: multi_query_group_num 2 KV heads x kv_channels 128, 28 num_layers,
     * fp16: 28 x 2 x (128 + 128) x 2 B = 28,672 (not 32 heads: 458,752). */
    kvp_cost c = cost_of("chatglm3", 1);
    assert_int_equal(c.bytes_per_token, 28672);
    assert_int_equal(pool_of(&c, KVP_CACHE_FULL)->kv_heads_per_rank, 2);
    /* TP 2: one group each: 28 x 1 x 256 x 2 = 14,336. */
    assert_int_equal(cost_of("chatglm3", 2).bytes_per_token, 14336);
    /* DBRX: attn_config.kv_n_heads 8, head dim d_model 6144 / n_heads 48 = 128, 40
     * n_layers: 40 x 8 x 256 x 2 = 163,840. */
    assert_int_equal(cost_of("dbrx", 1).bytes_per_token, 163840);
    /* MPT-7B: multihead attention, 32 heads of 4096 / 32 = 128, 32 layers:
     * 32 x 32 x 256 x 2 = 524,288. */
    assert_int_equal(cost_of("mpt7b", 1).bytes_per_token, 524288);
    /* LLaVA 1.5: text_config holds no geometry; LlamaConfig's 32 layers x 32 heads
     * x 128 fill it: 524,288 at fp16. */
    assert_int_equal(cost_of("llava", 1).bytes_per_token, 524288);
    /* Falcon-7B multi_query: 32 x 1 x (64 + 64) x 2 = 8,192. Falcon-40B
     * num_kv_heads 8: 60 x 8 x 128 x 2 = 122,880. */
    assert_int_equal(cost_of("falcon7b", 1).bytes_per_token, 8192);
    assert_int_equal(cost_of("falcon40b", 1).bytes_per_token, 122880);
    /* StarCoder (gpt_bigcode, fp32): 40 x 1 x (128 + 128) x 4 B = 40,960. */
    assert_int_equal(cost_of("starcoder", 1).bytes_per_token, 40960);
    /* BLOOM-176B: 70 x 112 x 256 x 2 = 4,014,080. */
    assert_int_equal(cost_of("bloom", 1).bytes_per_token, 4014080);
    /* GPT-NeoX-20B: head dim 6144 / 64 = 96: 44 x 64 x 192 x 2 = 1,081,344. */
    assert_int_equal(cost_of("gptneox", 1).bytes_per_token, 1081344);
    /* GPT-2: 12 x 12 x 128 x 2 = 36,864. */
    assert_int_equal(cost_of("gpt2", 1).bytes_per_token, 36864);
    /* Qwen-7B (v1): kv_channels 128, 32 heads, 32 layers: 524,288. */
    assert_int_equal(cost_of("qwen1", 1).bytes_per_token, 524288);
    /* MiniCPM3: MLA, kv_lora_rank 256 + qk_rope 32 = 288 per layer, 62 layers:
     * 62 x 288 x 2 = 35,712. */
    c = cost_of("minicpm3", 1);
    assert_int_equal(c.bytes_per_token, 35712);
    assert_int_equal(pool_of(&c, KVP_CACHE_MLA)->layers, 62);
    /* InternVL (llm_config, Qwen2): 28 x 4 x 256 x 2 = 57,344. */
    assert_int_equal(cost_of("internvl", 1).bytes_per_token, 57344);
    /* DeepSeek-VL2 (language_config, MLA 512 + 64): 30 x 576 x 2 = 34,560. */
    c = cost_of("dsvl2", 1);
    assert_int_equal(c.bytes_per_token, 34560);
    assert_int_equal(pool_of(&c, KVP_CACHE_MLA)->layers, 30);
    /* Mistral Small 3.1: head_dim 128 stated: 40 x 8 x 256 x 2 = 163,840 (160 from
     * hidden / heads would give 204,800); sliding_window null: all full. */
    c = cost_of("mistral3", 1);
    assert_int_equal(c.bytes_per_token, 163840);
    assert_int_equal(pool_of(&c, KVP_CACHE_FULL)->layers, 40);
    /* Qwen2-57B-A14B: use_sliding_window false: 28 full x 4 x 256 x 2 = 57,344. */
    c = cost_of("qwen2moe", 1);
    assert_int_equal(c.bytes_per_token, 57344);
    assert_int_equal(pool_of(&c, KVP_CACHE_FULL)->layers, 28);
}

static kvp_cost cost_json(const char *json) {
    kvp_model *m = NULL;
    kvp_error err;
    if (kvp_model_from_hf_json(json, strlen(json), "x.json", NULL, &m, &err) != KVP_OK)
        fail_msg("%s", err.message);
    kvp_cost c;
    if (kvp_cost_compute(m, NULL, &c, &err) != KVP_OK) fail_msg("%s", err.message);
    kvp_model_free(m);
    return c;
}

/* Sparse nested text configs take their config class's defaults. */
static void test_class_defaults(void **state) {
    (void)state;
    /* MistralConfig (LLaVA-NeXT): 32 layers, 8 KV heads of 4096 / 32 = 128, and the
     * class's sliding_window 4096 on every layer: 32 x 8 x 256 x 2 = 131,072 B/token. */
    kvp_cost c = cost_json("{\"model_type\": \"llava_next\", \"torch_dtype\": \"bfloat16\","
                           " \"text_config\": {\"model_type\": \"mistral\"}}");
    assert_int_equal(c.bytes_per_token, 131072);
    assert_int_equal(pool_of(&c, KVP_CACHE_SLIDING)->window_tokens, 4096);
    /* ... unless the file says null: then full attention. */
    c = cost_json("{\"model_type\": \"llava_next\", \"torch_dtype\": \"bfloat16\","
                  " \"text_config\": {\"model_type\": \"mistral\", \"sliding_window\": null}}");
    assert_int_equal(pool_of(&c, KVP_CACHE_FULL)->layers, 32);
    /* Qwen2Config (LLaVA-OneVision): 32 layers x 32 KV heads x 128: 32 x 32 x 256 x 2
     * = 524,288; no window (use_sliding_window defaults to false). */
    c = cost_json("{\"model_type\": \"llava_onevision\", \"torch_dtype\": \"bfloat16\","
                  " \"text_config\": {\"model_type\": \"qwen2\"}}");
    assert_int_equal(c.bytes_per_token, 524288);
    assert_int_equal(pool_of(&c, KVP_CACHE_FULL)->layers, 32);
    /* GemmaConfig (PaliGemma 1): 28 layers x 16 KV heads x head_dim 256:
     * 28 x 16 x 512 x 2 = 458,752. */
    c = cost_json("{\"model_type\": \"paligemma\", \"torch_dtype\": \"bfloat16\","
                  " \"text_config\": {\"model_type\": \"gemma\"}}");
    assert_int_equal(c.bytes_per_token, 458752);
}

static void test_window_and_sharing_schedules(void **state) {
    (void)state;
    /* Command R7B: sliding_window_pattern 4: layers 3, 7, ... are global: 8 full,
     * 24 sliding of 4096; every layer 8 x 256 x 2 = 4,096 B/token. */
    kvp_cost c = cost_of("cohere2", 1);
    assert_int_equal(pool_of(&c, KVP_CACHE_FULL)->layers, 8);
    assert_int_equal(pool_of(&c, KVP_CACHE_SLIDING)->layers, 24);
    assert_int_equal(pool_of(&c, KVP_CACHE_SLIDING)->window_tokens, 4096);
    assert_int_equal(c.bytes_per_token, 32 * 4096);
    /* EXAONE 4 "LLLG" over 8 layers: 6 sliding + 2 full. */
    c = cost_of("exaone4", 1);
    assert_int_equal(pool_of(&c, KVP_CACHE_FULL)->layers, 2);
    assert_int_equal(pool_of(&c, KVP_CACHE_SLIDING)->layers, 6);
    /* Gemma 3n: 35 layers, the last 15 share earlier KV: 20 keep a cache, 4 of them
     * full (every 5th); 20 x 2 x 512 x 2 = 40,960. */
    c = cost_of("gemma3n", 1);
    assert_int_equal(pool_of(&c, KVP_CACHE_FULL)->layers, 4);
    assert_int_equal(pool_of(&c, KVP_CACHE_SLIDING)->layers, 16);
    assert_int_equal(pool_of(&c, KVP_CACHE_SLIDING)->window_tokens, 512);
    assert_int_equal(c.bytes_per_token, 40960);
    /* PaliGemma 2: the gemma2 text_config states no head_dim or window: Gemma2Config's
     * 256 and 4096; Gemma 2 alternates: 13 sliding + 13 full, 26 x 4 x 512 x 2 = 106,496. */
    c = cost_of("paligemma2", 1);
    assert_int_equal(pool_of(&c, KVP_CACHE_SLIDING)->layers, 13);
    assert_int_equal(pool_of(&c, KVP_CACHE_SLIDING)->window_tokens, 4096);
    assert_int_equal(pool_of(&c, KVP_CACHE_FULL)->kv_heads_per_rank, 4);
    assert_int_equal(c.bytes_per_token, 106496);
    /* StarCoder2-15B: sliding_window and no schedule key: every layer slides over
     * 4096; 32 x 4 x 256 x 2 = 65,536. */
    c = cost_of("starcoder2", 1);
    assert_int_equal(pool_of(&c, KVP_CACHE_SLIDING)->layers, 32);
    assert_int_equal(c.bytes_per_token, 65536);
}

static void test_hybrid_recurrent(void **state) {
    (void)state;
    /* Bamba-9B: attention in layers 9, 18, 27 only: 3 x 8 x 256 x 2 = 12,288 B/token.
     * 29 Mamba2 layers: d_inner 2 x 4096 = 8192 = 128 heads x 64; conv 3 x (8192 +
     * 2 x 1 x 128) = 25,344; SSM 128 x 64 x 128 = 1,048,576; (25,344 + 1,048,576) x 2 B
     * = 2,147,840 x 29 = 62,287,360 per sequence. */
    kvp_cost c = cost_of("bamba", 1);
    assert_int_equal(c.bytes_per_token, 12288);
    assert_int_equal(c.bytes_per_sequence, 62287360);
    assert_int_equal(pool_of(&c, KVP_CACHE_RECURRENT)->layers, 29);
    /* Granite 4.0 tiny: 4 attention layers 4 x 4 x 256 x 2 = 8,192; 36 Mamba2 layers
     * of 48 heads x 64 (d_inner 3072): conv 3 x (3072 + 256) = 9,984, SSM 48 x 64 x
     * 128 = 393,216; 403,200 x 2 = 806,400 x 36 = 29,030,400. */
    c = cost_of("granite4", 1);
    assert_int_equal(c.bytes_per_token, 8192);
    assert_int_equal(c.bytes_per_sequence, 29030400);
}

static void expect_refusal(const char *name, const char *key) {
    kvp_model *m = NULL;
    kvp_error err;
    kvp_status s = open_family(name, &m, &err);
    if (s != KVP_UNSUPPORTED)
        fail_msg("%s: expected a refusal, got %s", name, kvp_status_name(s));
    assert_null(m);
    if (strcmp(err.key, key) != 0) fail_msg("%s: refused at '%s', expected '%s'", name, err.key, key);
    assert_non_null(strstr(err.message, "kvplan"));
}

static void test_refused_by_name(void **state) {
    (void)state;
    expect_refusal("hunyuan", "/use_cla");
    expect_refusal("zamba2", "/model_type");
    expect_refusal("lfm2", "/layer_types/0");
    expect_refusal("rwkv", "/model_type");
    expect_refusal("decilm", "/num_key_value_heads_per_layer");
    expect_refusal("openelm", "/model_type");
    expect_refusal("plamo2", "/mamba_d_state");
    expect_refusal("hymba", "/kv_reuse_group");
    /* LongCat-Flash: two MLA blocks in each of num_layers layers; read as one per
     * layer it would be half the cache. */
    const char *lc = "{\"model_type\": \"longcat_flash\", \"num_layers\": 28,"
                     " \"num_attention_heads\": 64, \"hidden_size\": 6144,"
                     " \"kv_lora_rank\": 512, \"qk_rope_head_dim\": 64}";
    kvp_model *lm = NULL;
    kvp_error lerr;
    assert_int_equal(kvp_model_from_hf_json(lc, strlen(lc), "lc.json", NULL, &lm, &lerr),
                     KVP_UNSUPPORTED);
    assert_string_equal(lerr.key, "/model_type");
    /* Encoder-only models keep no KV cache: nothing to plan, said so. */
    expect_refusal("bert", "/model_type");
    expect_refusal("xlmr", "/model_type");
    /* Bamba without attn_layer_indices: Mamba keys but no schedule. */
    const char *json = "{\"model_type\": \"bamba\", \"num_hidden_layers\": 4,"
                       " \"num_attention_heads\": 4, \"hidden_size\": 256,"
                       " \"mamba_d_state\": 16, \"mamba_n_heads\": 8}";
    kvp_model *m = NULL;
    kvp_error err;
    assert_int_equal(kvp_model_from_hf_json(json, strlen(json), "b.json", NULL, &m, &err),
                     KVP_UNSUPPORTED);
    assert_string_equal(err.key, "/mamba_d_state");
    /* ChatGLM with multi_query_attention on but no group count. */
    json = "{\"model_type\": \"chatglm\", \"num_layers\": 2, \"num_attention_heads\": 4,"
           " \"hidden_size\": 256, \"multi_query_attention\": true}";
    assert_int_equal(kvp_model_from_hf_json(json, strlen(json), "g.json", NULL, &m, &err),
                     KVP_CONFIG);
    assert_string_equal(err.key, "/multi_query_group_num");
    /* MPT with an attention type kvplan does not know. */
    json = "{\"model_type\": \"mpt\", \"n_layers\": 2, \"n_heads\": 4, \"d_model\": 256,"
           " \"attn_config\": {\"attn_type\": \"grouped_query_attention\"}}";
    assert_int_equal(kvp_model_from_hf_json(json, strlen(json), "m.json", NULL, &m, &err),
                     KVP_UNSUPPORTED);
    assert_string_equal(err.key, "/attn_config/attn_type");
    /* A top-level Llama config missing its layers is broken, not sparse. */
    json = "{\"model_type\": \"llama\", \"num_attention_heads\": 4, \"hidden_size\": 256}";
    assert_int_equal(kvp_model_from_hf_json(json, strlen(json), "l.json", NULL, &m, &err),
                     KVP_CONFIG);
}

/* Issue 29: keys that cannot change what a layer caches are not refused. */
static void test_keys_that_say_nothing_about_the_cache(void **state) {
    (void)state;
    /* mlp_kinds.json: Qwen3-30B-A3B plus a per-layer mlp_layer_types ("dense" /
     * "sparse") and norm_types list, MLP and norm kinds (docs/families.md "Per-layer
     * lists"): read as Qwen3-30B-A3B, 48 layers x 2 x 4 KV heads x 128 x 2 B = 98,304. */
    assert_int_equal(cost_of("mlp_kinds", 1).bytes_per_token, 98304);
    /* no_mla.json: deepseek_v2 with use_mla false and its MLA dims 0 / null: plain
     * MHA, 4 layers x 2 x 16 heads x 128 x 2 B = 32,768 (not refused as "kv_lora_rank
     * out of range"). */
    kvp_cost c = cost_of("no_mla", 1);
    assert_int_equal(c.bytes_per_token, 32768);
    assert_int_equal(pool_of(&c, KVP_CACHE_FULL)->kv_heads_per_rank, 16);
    /* The same switch with a non-zero MLA dim contradicts it: refused at that key. */
    const char *json = "{\"model_type\": \"deepseek_v2\", \"use_mla\": false,"
                       " \"kv_lora_rank\": 512, \"num_hidden_layers\": 2,"
                       " \"num_attention_heads\": 4, \"hidden_size\": 256}";
    kvp_model *m = NULL;
    kvp_error err;
    assert_int_equal(kvp_model_from_hf_json(json, strlen(json), "u.json", NULL, &m, &err),
                     KVP_CONFIG);
    assert_string_equal(err.key, "/kv_lora_rank");
    /* A per-layer list whose name is a cache word stays refused, even with "norm"
     * in it; one with no class word too. */
    json = "{\"model_type\": \"llama\", \"num_hidden_layers\": 2, \"num_attention_heads\": 4,"
           " \"hidden_size\": 256, \"attn_norm_types\": [\"a\", \"b\"]}";
    assert_int_equal(kvp_model_from_hf_json(json, strlen(json), "n.json", NULL, &m, &err),
                     KVP_UNSUPPORTED);
    assert_string_equal(err.key, "/attn_norm_types");
    json = "{\"model_type\": \"llama\", \"num_hidden_layers\": 2, \"num_attention_heads\": 4,"
           " \"hidden_size\": 256, \"block_kinds\": [\"a\", \"b\"]}";
    assert_int_equal(kvp_model_from_hf_json(json, strlen(json), "k.json", NULL, &m, &err),
                     KVP_UNSUPPORTED);
    assert_string_equal(err.key, "/block_kinds");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_attention_families),
        cmocka_unit_test(test_class_defaults),
        cmocka_unit_test(test_window_and_sharing_schedules),
        cmocka_unit_test(test_hybrid_recurrent),
        cmocka_unit_test(test_refused_by_name),
        cmocka_unit_test(test_keys_that_say_nothing_about_the_cache),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
