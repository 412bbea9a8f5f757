/* test_weights_as_loaded.c — weights as the engines load them (issue 28 item 3):
 * vLLM's mxfp4 expert padding by kernel and GPU, ModelOpt MIXED_PRECISION read per
 * module (config.json and hf_quant_config.json written by the test), AWQ / GPTQ
 * group scales and zero points, and Qwen3-VL's vision tower with its deepstack
 * mergers. Every figure is worked by hand in the comment above its assertion. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "kvplan/kvplan.h"
#include "estimate/memory_internal.h"
#include "plan_fixtures.h"

static kvp_estimate_settings settings(uint32_t engine, uint32_t cc) {
    kvp_estimate_settings s;
    memset(&s, 0, sizeof s);
    s.tp = 1;
    s.pp = 1;
    s.total_bytes = 80ull << 30;
    s.engine = engine;
    s.compute_capability = cc;
    return s;
}

static uint64_t rank_weights(const kvp_model *m, const kvp_estimate_settings *s,
                             kvp_estimate_detail *d) {
    kvp_memory_facts f;
    kvp_estimate_detail local;
    kvp_error err;
    kvp_status st = kvp_memory_estimate_detail(m, s, &f, d ? d : &local, &err);
    if (st != KVP_OK) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(st, KVP_OK);
    return f.weights_bytes;
}

/* gpt-oss-120b: 36 layers, 128 experts, h 2880, I 2880, gated (3 matrices), mxfp4
 * experts at 17/32 B. TP 1. Against the unpadded figure (TensorRT-LLM's estimate):
 * - H100 (cc 9.0), Triton: I' 2880 is a multiple of 64, h unpadded: the experts are
 *   the same; vLLM adds the bf16 biases 36 x 128 x (2 x 2880 + 2880) x 2 B = 79,626,240.
 * - B200 (cc 10.0), FlashInfer: I' and h to 256 -> 3072 x 3072: 36 x 128 x 3 x
 *   (3072^2 - 2880^2) = 15,797,846,016 parameters x 17/32 = 8,392,605,696 B, biases
 *   36 x 128 x (2 x 3072 + 3072) x 2 = 84,934,656: 8,477,540,352 B more.
 * - A100 (cc 8.0), Marlin: I' to 128 (2944), h to 256 (3072): 36 x 128 x 3 x
 *   (3072 x 2944 - 2880^2) = 10,362,028,032 x 17/32 = 5,504,827,392, biases
 *   36 x 128 x (2 x 2944 + 3072) x 2 = 82,575,360: 5,587,402,752 B more.
 * - Unknown GPU: Hopper's kernel. */
static void test_gpt_oss_padding_by_arch(void **state) {
    (void)state;
    kvp_model *m = catalog("openai/gpt-oss-120b");
    kvp_estimate_settings s = settings(KVP_ESTIMATE_TRTLLM, 90);
    uint64_t plain = rank_weights(m, &s, NULL);
    s = settings(KVP_ESTIMATE_VLLM, 90);
    uint64_t h100 = rank_weights(m, &s, NULL);
    assert_int_equal(h100 - plain, 79626240ull);
    s = settings(KVP_ESTIMATE_VLLM, 100);
    uint64_t b200 = rank_weights(m, &s, NULL);
    assert_int_equal(b200 - plain, 8477540352ull);
    s = settings(KVP_ESTIMATE_VLLM, 80);
    assert_int_equal(rank_weights(m, &s, NULL) - plain, 5587402752ull);
    s = settings(KVP_ESTIMATE_VLLM, 0);
    assert_int_equal(rank_weights(m, &s, NULL), h100);
    /* An explicit expert_inter_align is that padding alone (no hidden padding, no
     * biases): at TP 1, 2880 is a multiple of 64. */
    s = settings(KVP_ESTIMATE_VLLM, 100);
    s.expert_inter_align = 64;
    assert_int_equal(rank_weights(m, &s, NULL), plain);
    uint32_t i1, h1;
    assert_string_equal(kvp__mxfp4_vllm_padding(89, &i1, &h1), "Marlin");
    assert_int_equal(i1, 128);
    assert_int_equal(h1, 256);
    assert_string_equal(kvp__mxfp4_vllm_padding(103, &i1, &h1), "FlashInfer (SM100)");
    assert_string_equal(kvp__mxfp4_vllm_padding(120, &i1, &h1), "Triton");
    assert_int_equal(i1, 64);
    assert_int_equal(h1, 0);
    kvp_model_free(m);
}

/* A small Qwen3-MoE: 2 layers, h 1024, 8 query heads and 2 KV heads of 128, 8 experts
 * of 512, bf16. Per layer: attention q 1024 x 8 x 128 + k, v 1024 x 2 x 256 + o
 * 8 x 128 x 1024 = 2,621,440; experts 8 x 3 x 1024 x 512 = 12,582,912. */
#define MOE_CONFIG_HEAD                                                                      \
    "{\"architectures\": [\"Qwen3MoeForCausalLM\"], \"model_type\": \"qwen3_moe\", "         \
    "\"hidden_size\": 1024, \"intermediate_size\": 2048, \"moe_intermediate_size\": 512, "   \
    "\"num_experts\": 8, \"num_experts_per_tok\": 2, \"num_hidden_layers\": 2, "             \
    "\"num_attention_heads\": 8, \"num_key_value_heads\": 2, \"head_dim\": 128, "            \
    "\"vocab_size\": 1000, \"max_position_embeddings\": 4096, \"torch_dtype\": \"bfloat16\", " \
    "\"tie_word_embeddings\": false"

/* The quantized_layers map: FP8 attention and NVFP4 (group 16) experts, every layer. */
static void layers_map(char *buf, size_t n) {
    size_t o = (size_t)snprintf(buf, n, "{");
    static const char *const attn[] = {"q_proj", "k_proj", "v_proj", "o_proj"};
    static const char *const mats[] = {"gate_proj", "up_proj", "down_proj"};
    for (int l = 0; l < 2; l++) {
        for (int a = 0; a < 4; a++)
            o += (size_t)snprintf(buf + o, n - o,
                                  "%s\"model.layers.%d.self_attn.%s\": {\"quant_algo\": \"FP8\"}",
                                  o > 1 ? ", " : "", l, attn[a]);
        for (int e = 0; e < 8; e++)
            for (int k = 0; k < 3; k++)
                o += (size_t)snprintf(buf + o, n - o,
                                      ", \"model.layers.%d.mlp.experts.%d.%s\": {\"quant_algo\": "
                                      "\"NVFP4\", \"group_size\": 16}",
                                      l, e, mats[k]);
    }
    assert_true(o + 2 < n);
    snprintf(buf + o, n - o, "}");
}

static void write_file(const char *dir, const char *name, const char *text) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_true(fputs(text, f) >= 0);
    assert_int_equal(fclose(f), 0);
}

static void remove_file(const char *dir, const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unlink(path);
}

/* ModelOpt MIXED_PRECISION: experts NVFP4 (0.5 + 1/16 = 0.5625 B), attention FP8
 * (1 B), the rest bf16. Against bf16: 2 x 12,582,912 x (2 - 0.5625) = 36,175,872 and
 * 2 x 2,621,440 x (2 - 1) = 5,242,880: 41,418,752 B less. FP8 throughout (the
 * checkpoint read as quant_algo FP8, as before this change) charges the experts
 * 2 x 12,582,912 x (1 - 0.5625) = 11,010,048 B more than they load. */
static void test_modelopt_mixed_precision(void **state) {
    (void)state;
    static char map[16384], text[20000];
    layers_map(map, sizeof map);
    char dir[] = "/tmp/kvp_mixedXXXXXX";
    assert_non_null(mkdtemp(dir));
    write_file(dir, "config.json", MOE_CONFIG_HEAD "}");
    snprintf(text, sizeof text,
             "{\"producer\": {\"name\": \"modelopt\", \"version\": \"0.29.0\"}, \"quantization\": "
             "{\"quant_algo\": \"MIXED_PRECISION\", \"kv_cache_quant_algo\": \"FP8\", "
             "\"quantized_layers\": %s, \"exclude_modules\": [\"lm_head\"]}}",
             map);
    write_file(dir, "hf_quant_config.json", text);
    kvp_model *mixed = NULL, *plain = NULL, *fp8 = NULL, *inline_cfg = NULL;
    kvp_error err;
    assert_int_equal(kvp_model_from_hf_file(dir, NULL, &mixed, &err), KVP_OK);
    remove_file(dir, "hf_quant_config.json");
    assert_int_equal(kvp_model_from_hf_file(dir, NULL, &plain, &err), KVP_OK);
    remove_file(dir, "config.json");
    rmdir(dir);
    const kvp_weight_quant *q = &kvp_model_get_facts(mixed)->weights.quant;
    assert_string_equal(q->method, "modelopt");
    assert_string_equal(q->label, "mixed: attention FP8, experts NVFP4");
    assert_int_equal(q->cat_rate_x65536[KVP_QUANT_CAT_EXPERTS], 36864); /* 0.5625 x 65536 */
    assert_int_equal(q->cat_rate_x65536[KVP_QUANT_CAT_ATTENTION], 65536);
    assert_true(q->excluded[KVP_QUANT_CAT_MLP]);
    kvp_estimate_settings s = settings(KVP_ESTIMATE_VLLM, 90);
    uint64_t wm = rank_weights(mixed, &s, NULL), wp = rank_weights(plain, &s, NULL);
    assert_int_equal(wp - wm, 41418752ull);
    /* The same map as config.json's quantization_config (top level). */
    snprintf(text, sizeof text,
             MOE_CONFIG_HEAD ", \"quantization_config\": {\"quant_method\": \"modelopt\", "
                             "\"quant_algo\": \"MIXED_PRECISION\", \"quantized_layers\": %s}}",
             map);
    assert_int_equal(kvp_model_from_hf_json(text, strlen(text), "config.json", NULL, &inline_cfg,
                                            &err),
                     KVP_OK);
    assert_int_equal(rank_weights(inline_cfg, &s, NULL), wm);
    const char *f8 = MOE_CONFIG_HEAD ", \"quantization_config\": {\"quant_method\": "
                                     "\"modelopt\", \"quant_algo\": \"FP8\"}}";
    assert_int_equal(kvp_model_from_hf_json(f8, strlen(f8), "config.json", NULL, &fp8, &err),
                     KVP_OK);
    assert_int_equal(rank_weights(fp8, &s, NULL) - wm, 11010048ull);
    /* An algorithm the 2026 copy does not know is refused by name. */
    kvp_model *bad = NULL;
    const char *unk = MOE_CONFIG_HEAD
        ", \"quantization_config\": {\"quant_method\": \"modelopt\", \"quant_algo\": "
        "\"MIXED_PRECISION\", \"quantized_layers\": {\"model.layers.0.self_attn.q_proj\": "
        "{\"quant_algo\": \"W4A8_AWQ\"}}}}";
    assert_int_equal(kvp_model_from_hf_json(unk, strlen(unk), "config.json", NULL, &bad, &err),
                     KVP_CONFIG);
    assert_non_null(strstr(err.message, "W4A8_AWQ"));
    kvp_model_free(mixed);
    kvp_model_free(plain);
    kvp_model_free(inline_cfg);
    kvp_model_free(fp8);
}

/* A small Llama: 2 layers, h 1024, 8 heads and 2 KV heads of 128, MLP 4096, bf16.
 * Quantized linear parameters: 2 x (2,621,440 attention + 3 x 1024 x 4096 MLP) =
 * 30,408,704 (bf16: 60,817,408 B). */
#define DENSE_CONFIG(q)                                                                     \
    "{\"architectures\": [\"LlamaForCausalLM\"], \"model_type\": \"llama\", "               \
    "\"hidden_size\": 1024, \"intermediate_size\": 4096, \"num_hidden_layers\": 2, "        \
    "\"num_attention_heads\": 8, \"num_key_value_heads\": 2, \"head_dim\": 128, "           \
    "\"vocab_size\": 1000, \"max_position_embeddings\": 4096, \"torch_dtype\": \"float16\", " \
    "\"quantization_config\": " q "}"

static uint64_t dense_weights(const char *text, uint32_t engine) {
    kvp_model *m = load(text);
    kvp_estimate_settings s = settings(engine, 90);
    uint64_t w = rank_weights(m, &s, NULL);
    kvp_model_free(m);
    return w;
}

/* AWQ 4-bit, group 128, zero points: 4 bits + an fp16 scale and a 4-bit zero per 128
 * = 0.5 + 2/128 + 0.5/128 = 0.51953125 B: 30,408,704 x 0.51953125 = 15,798,272 B,
 * 45,019,136 less than fp16. zero_point false: 0.515625 B -> 15,679,488 B (118,784
 * less). GPTQ 4-bit g128 symmetric writes qzeros too (0.51953125 B as stored, the
 * figure under TensorRT-LLM's estimate); vLLM's GPTQ-Marlin drops them (0.515625 B:
 * 118,784 B less). Asymmetric 8-bit GPTQ, group 64, keeps them under vLLM (no Marlin
 * type): 1 + 2/64 + 1/64 = 1.046875 B -> 31,834,112 B. */
static void test_awq_gptq_groups(void **state) {
    (void)state;
    const char *f16 = "{\"architectures\": [\"LlamaForCausalLM\"], \"model_type\": \"llama\", "
                      "\"hidden_size\": 1024, \"intermediate_size\": 4096, "
                      "\"num_hidden_layers\": 2, \"num_attention_heads\": 8, "
                      "\"num_key_value_heads\": 2, \"head_dim\": 128, \"vocab_size\": 1000, "
                      "\"max_position_embeddings\": 4096, \"torch_dtype\": \"float16\"}";
    uint64_t base = dense_weights(f16, KVP_ESTIMATE_VLLM);
    uint64_t awq = dense_weights(
        DENSE_CONFIG("{\"quant_method\": \"awq\", \"bits\": 4, \"group_size\": 128, "
                     "\"zero_point\": true, \"version\": \"gemm\"}"),
        KVP_ESTIMATE_VLLM);
    assert_int_equal(base - awq, 60817408ull - 15798272ull);
    uint64_t awq_nz = dense_weights(
        DENSE_CONFIG("{\"quant_method\": \"awq\", \"bits\": 4, \"group_size\": 128, "
                     "\"zero_point\": false}"),
        KVP_ESTIMATE_VLLM);
    assert_int_equal(awq - awq_nz, 118784ull);
    const char *gptq = DENSE_CONFIG("{\"quant_method\": \"gptq\", \"bits\": 4, \"group_size\": "
                                    "128, \"sym\": true, \"desc_act\": false}");
    assert_int_equal(dense_weights(gptq, KVP_ESTIMATE_TRTLLM), awq);
    assert_int_equal(dense_weights(gptq, KVP_ESTIMATE_VLLM), awq_nz);
    uint64_t g8 = dense_weights(
        DENSE_CONFIG("{\"quant_method\": \"gptq\", \"bits\": 8, \"group_size\": 64, "
                     "\"sym\": false}"),
        KVP_ESTIMATE_VLLM);
    assert_int_equal(g8 - awq, 31834112ull - 15798272ull);
}

/* A quantization the estimate does not model (HQQ here) is costed at the model's
 * dtype and the plan says so, rather than passing for a modelled estimate: the
 * same bytes as the config without quantization_config (65,972,224 B: 30,408,704
 * linear parameters x 2 B = 60,817,408, embeddings and lm_head 2 x 1000 x 1024 x
 * 2 B = 4,096,000, norms (2 x 2 + 1) x 1024 x 2 B = 10,240, the rope cache 4096 x
 * 128 x 2 B = 1,048,576), and weights_source names the method and the dtype. */
static void test_unmodelled_quant_said(void **state) {
    (void)state;
    kvp_model *m = load(DENSE_CONFIG("{\"quant_method\": \"hqq\", \"nbits\": 4}"));
    kvp_estimate_settings s = settings(KVP_ESTIMATE_VLLM, 90);
    kvp_memory_facts f;
    kvp_estimate_detail d;
    kvp_error err;
    assert_int_equal(kvp_memory_estimate_detail(m, &s, &f, &d, &err), KVP_OK);
    assert_int_equal(f.weights_bytes, 65972224ull);
    assert_string_equal(f.weights_source,
                        "estimated from config as fp16: quant_method 'hqq' not modelled");
    kvp_model_free(m);
    /* A modelled one keeps the plain source. */
    m = load(DENSE_CONFIG("{\"quant_method\": \"awq\", \"bits\": 4, \"group_size\": 128}"));
    assert_int_equal(kvp_memory_estimate_detail(m, &s, &f, &d, &err), KVP_OK);
    assert_string_equal(f.weights_source, "estimated from config");
    kvp_model_free(m);
}

/* Qwen3-VL-8B's vision tower (vision_config: depth 27, hidden 1152, MLP 4304, out 4096,
 * spatial_merge_size 2, deepstack_visual_indexes [8, 16, 24], patch 16, temporal 2,
 * 3 channels, 2304 positions). C m^2 = 4608.
 * - blocks: 27 x (4 x 1152^2 + 2 x 1152 x 4304 + 4 x 1152) = 411,194,880;
 * - merger: 4608^2 + 4608 x 4096 + 4608 + 4096 + 2 x 1152 = 40,119,040;
 * - deepstack: 3 x (4608^2 + 4608 x 4096 + 4608 + 4096 + 2 x 4608) = 120,377,856;
 * - patch embedding 3 x 2 x 16 x 16 x 1152 + 1152 = 1,770,624; positions 2304 x 1152 =
 *   2,654,208. Total 576,116,608 parameters.
 * vLLM also builds 3 deepstack_input_embeds of [8192, 4096] bf16 with the model:
 * 3 x 8192 x 4096 x 2 = 201,326,592 B more than TensorRT-LLM's figure. */
static void test_qwen3_vl_vision(void **state) {
    (void)state;
    kvp_model *m = catalog("Qwen/Qwen3-VL-8B-Instruct");
    kvp_estimate_settings s = settings(KVP_ESTIMATE_TRTLLM, 90);
    kvp_estimate_detail d;
    uint64_t trt = rank_weights(m, &s, &d);
    assert_int_equal(d.params_vision, 576116608ull);
    s = settings(KVP_ESTIMATE_VLLM, 90);
    assert_int_equal(rank_weights(m, &s, NULL) - trt, 201326592ull);
    kvp_model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpt_oss_padding_by_arch),
        cmocka_unit_test(test_modelopt_mixed_precision),
        cmocka_unit_test(test_awq_gptq_groups),
        cmocka_unit_test(test_unmodelled_quant_said),
        cmocka_unit_test(test_qwen3_vl_vision),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
