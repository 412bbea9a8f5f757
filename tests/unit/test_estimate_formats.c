/* test_estimate_formats.c — weights by format asked (--quantization), llama.cpp
 * file types tensor by tensor, expert and data parallelism (issue 14 item 4).
 * Every figure is worked by hand in the comment above its assertion. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "kvplan/kvplan.h"
#include "plan_fixtures.h"

static kvp_estimate_settings settings(uint32_t tp, const char *quant) {
    kvp_estimate_settings s;
    memset(&s, 0, sizeof s);
    s.tp = tp;
    s.pp = 1;
    s.total_bytes = 80ull << 30;
    s.quantization = quant;
    return s;
}

static uint64_t rank_weights(const kvp_model *m, const kvp_estimate_settings *s, kvp_status want) {
    kvp_memory_facts f;
    kvp_estimate_detail d;
    kvp_error err;
    kvp_status st = kvp_memory_estimate_detail(m, s, &f, &d, &err);
    if (st != want) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(st, want);
    return f.weights_bytes;
}

/* ggml block sizes (ggml.c type_traits): bytes per block x 8 / weights. */
static void test_ggml_bits(void **state) {
    (void)state;
    double b = 0;
    kvp_error err;
    assert_int_equal(kvp_ggml_type_bits("Q4_K", &b, &err), KVP_OK);
    assert_true(b == 4.5); /* 144 B per 256 */
    assert_int_equal(kvp_ggml_type_bits("q6_k", &b, &err), KVP_OK);
    assert_true(b == 6.5625); /* 210 B per 256 */
    assert_int_equal(kvp_ggml_type_bits("Q8_0", &b, &err), KVP_OK);
    assert_true(b == 8.5); /* 34 B per 32 */
    assert_int_equal(kvp_ggml_type_bits("IQ4_XS", &b, &err), KVP_OK);
    assert_true(b == 4.25); /* 136 B per 256 */
    assert_int_equal(kvp_ggml_type_bits("Q4_0", &b, &err), KVP_OK);
    assert_true(b == 4.5); /* 18 B per 32 */
    assert_int_equal(kvp_ggml_type_bits("Q4_K_M", &b, &err), KVP_INVALID_ARG); /* a file type */
}

static void test_format_names(void **state) {
    (void)state;
    kvp_weight_format f;
    kvp_error err;
    assert_int_equal(kvp_weight_format_parse("FP8", &f, &err), KVP_OK);
    assert_string_equal(f.name, "fp8");
    assert_int_equal(f.quant.rate_x65536, 65536);
    /* awq: 4 bits + fp16 scale + 4-bit zero per 128 = 0.5 + 2/128 + 0.5/128 B
     *   = (32768 + 1024 + 256) / 65536 */
    assert_int_equal(kvp_weight_format_parse("awq", &f, &err), KVP_OK);
    assert_int_equal(f.quant.rate_x65536, 34048);
    /* bitsandbytes names bnb-4bit: nf4 + fp32 absmax per 64 = 0.5 + 1/16 B */
    assert_int_equal(kvp_weight_format_parse("bitsandbytes", &f, &err), KVP_OK);
    assert_string_equal(f.name, "bnb-4bit");
    assert_int_equal(f.quant.rate_x65536, 32768 + 4096);
    /* mxfp4 covers the routed experts only: 0.5 + 1/32 B */
    assert_int_equal(kvp_weight_format_parse("mxfp4", &f, &err), KVP_OK);
    assert_int_equal(f.quant.rate_x65536, 32768 + 2048);
    assert_true(f.quant.excluded[KVP_QUANT_CAT_ATTENTION] && !f.quant.excluded[KVP_QUANT_CAT_EXPERTS]);
    assert_int_equal(kvp_weight_format_parse("q4_k_m", &f, &err), KVP_OK);
    assert_true(f.gguf);
    assert_string_equal(f.name, "Q4_K_M");
    assert_int_equal(kvp_weight_format_parse("int3", &f, &err), KVP_INVALID_ARG);
    assert_string_equal(err.key, "quantization");
    assert_non_null(strstr(err.message, "unknown quantization 'int3'"));
}

/* Llama-3.1-8B (test_estimate_weights.c: attention 32 x 41,943,040, mlp
 * 32 x 176,160,768 parameters; embeddings, head, norms and the rope cache
 * 1,067,767,808 elements = 2,135,433,216 B at bf16).
 *   fp8: linear 6,979,321,856 x 1 B + 2,135,433,216 = 9,114,755,072 B
 *   awq: attention 1,342,177,280 / 65536 = 20,480 x 34,048 = 697,303,040
 *        mlp 5,637,144,576 / 65536 = 86,016 x 34,048 = 2,928,672,768
 *        + 2,135,433,216 = 5,761,409,024 B */
static void test_llama_by_option(void **state) {
    (void)state;
    kvp_model *m = catalog("meta-llama/Llama-3.1-8B");
    kvp_estimate_settings s = settings(1, "fp8");
    assert_int_equal(rank_weights(m, &s, KVP_OK), 9114755072ull);
    s.quantization = "awq";
    assert_int_equal(rank_weights(m, &s, KVP_OK), 5761409024ull);
    /* mxfp4 on a dense model: no experts, nothing quantized (bf16 16,094,076,928 B) */
    s.quantization = "mxfp4";
    assert_int_equal(rank_weights(m, &s, KVP_OK), 16094076928ull);
    s.quantization = "nope";
    rank_weights(m, &s, KVP_INVALID_ARG);
    kvp_model_free(m);
}

/* --dtype float16 on an fp8 checkpoint keeps the fp8 layers (vLLM loads
 * Fp8LinearMethod whatever --dtype): only the unquantized parts follow the
 * dtype, so the bytes equal the AUTO estimate. */
static void test_run_dtype_keeps_quantization(void **state) {
    (void)state;
    kvp_model *m = catalog("Qwen/Qwen3-32B-FP8");
    kvp_estimate_settings s = settings(1, NULL);
    uint64_t auto_b = rank_weights(m, &s, KVP_OK);
    s.weights_dtype = KVP_DTYPE_BF16;
    assert_int_equal(rank_weights(m, &s, KVP_OK), auto_b);
    /* --quantization fp8 on the fp8 checkpoint: the checkpoint's block scales win */
    s.quantization = "fp8";
    assert_int_equal(rank_weights(m, &s, KVP_OK), auto_b);
    /* and the checkpoint's own method name as written is accepted */
    kvp_weight_format f;
    kvp_error err;
    assert_int_equal(kvp_weight_format_for_model(m, "FP8", &f, &err), KVP_OK);
    kvp_model_free(m);
}

/* Llama-3.1-8B as Q4_K_M (h 4096, 32 layers, kv 8 x 128, I 14336, vocab
 * 128256, untied). Q4_K 144 B / 256, Q6_K 210 B / 256; 16 blocks per
 * 4096-wide row, 56 per 14336-wide row.
 *   token_embd 128256 x 16 x 144 = 295,501,824 (Q4_K)
 *   output     128256 x 16 x 210 = 430,940,160 (Q6_K); output_norm 16,384 (F32)
 *   per layer: q 4096x16x144 = 9,437,184; k 1024x16x144 = 2,359,296;
 *     v 2,359,296 (Q4_K) or 1024x16x210 = 3,440,640 (Q6_K); o 9,437,184;
 *     gate + up 2 x 14336x16x144 = 66,060,288; down 4096x56x144 =
 *     33,030,144 (Q4_K) or 4096x56x210 = 48,168,960 (Q6_K); norms 32,768
 *     = 122,716,160 at Q4_K, + 1,081,344 + 15,138,816 = 16,220,160 on a
 *     use_more_bits layer
 *   use_more_bits(i, 32): i < 4, i >= 28, or (i - 4) % 3 == 2 (6, 9, ..., 27):
 *     4 + 4 + 8 = 16 layers
 *   = 32 x 122,716,160 + 16 x 16,220,160 + 295,501,824 + 430,940,160 + 16,384
 *   = 3,926,917,120 + 259,522,560 + 726,458,368 = 4,912,898,048 B.
 * The published Q4_K_M file (bartowski, 4.92 GB) adds the GGUF metadata. */
static void test_llama_q4_k_m(void **state) {
    (void)state;
    kvp_model *m = catalog("meta-llama/Llama-3.1-8B");
    kvp_estimate_settings s = settings(1, "Q4_K_M");
    assert_int_equal(rank_weights(m, &s, KVP_OK), 4912898048ull);
    /* Q8_0: every matrix (output too) at 34 B / 32; norms F32.
     *   matrices 8,030,261,248 - norms 266,240 = 8,029,995,008 x 34 / 32
     *   = 8,531,869,696; norms 266,240 x 4 = 1,064,960 -> 8,532,934,656 B */
    s.quantization = "Q8_0";
    assert_int_equal(rank_weights(m, &s, KVP_OK), 8532934656ull);
    kvp_model_free(m);
}

/* Rows whose length is not a multiple of 256 fall back from K types
 * (llama-quant.cpp): Q4_K -> Q5_0 (22 B / 32), Q6_K -> Q8_0 (34 B / 32).
 * h 384 (12 blocks of 32), 2 layers, q 6 x 64, kv 2 x 64, I 1024 (4 blocks
 * of 256), vocab 1000, untied. use_more_bits(i, 2): only layer 1.
 *   token_embd 1000 x 12 x 22 = 264,000 (Q5_0); output 1000 x 12 x 34 =
 *   408,000 (Q8_0); output_norm 1,536
 *   layer 0: q 384x12x22 = 101,376; k 128x12x22 = 33,792; v 33,792;
 *     o 101,376; gate + up 2 x 1024x12x22 = 540,672; down 384x4x144 =
 *     221,184 (Q4_K); norms 3,072 -> 1,035,264
 *   layer 1: v 128x12x34 = 52,224 (Q8_0); down 384x4x210 = 322,560 (Q6_K)
 *     -> 1,155,072
 *   = 264,000 + 408,000 + 1,536 + 1,035,264 + 1,155,072 = 2,863,872 B */
static void test_gguf_row_fallback(void **state) {
    (void)state;
    kvp_model *m = load("{\"model_type\": \"llama\", \"architectures\": [\"LlamaForCausalLM\"],"
                             " \"hidden_size\": 384, \"num_attention_heads\": 6,"
                             " \"num_key_value_heads\": 2, \"head_dim\": 64,"
                             " \"intermediate_size\": 1024, \"num_hidden_layers\": 2,"
                             " \"vocab_size\": 1000, \"max_position_embeddings\": 2048,"
                             " \"tie_word_embeddings\": false}");
    kvp_estimate_settings s = settings(1, "Q4_K_M");
    assert_int_equal(rank_weights(m, &s, KVP_OK), 2863872ull);
    kvp_model_free(m);
}

/* A GGUF type on a layer kind whose llama.cpp rules are not carried: refused. */
static void test_gguf_refuses_mla(void **state) {
    (void)state;
    kvp_model *m = catalog("deepseek-ai/DeepSeek-V3");
    kvp_estimate_settings s = settings(1, "Q4_K_M");
    kvp_memory_facts f;
    kvp_error err;
    assert_int_equal(kvp_memory_estimate(m, &s, &f, &err), KVP_UNSUPPORTED);
    assert_string_equal(err.key, "quantization");
    assert_non_null(strstr(err.message, "MLA"));
    kvp_model_free(m);
}

/* Mixtral-8x7B: 8 experts of 3 x 4096 x 14336 = 176,160,768 parameters per
 * layer-expert, 32 layers.
 *   TP 4: 8 x 176,160,768 / 4 per layer; EP 4 (TRT-LLM --ep 4, moe_tp 1):
 *   2 whole experts = the same 352,321,536 per layer: equal rank bytes.
 *   vLLM TP 1 x DP 2: the MoE layers span 2 GPUs (expert_ranks 2): experts
 *   halve, 32 x 4 x 176,160,768 = 22,548,578,304 parameters x 2 B =
 *   45,097,156,608 B fewer than TP 1 alone. */
static void test_expert_parallel(void **state) {
    (void)state;
    kvp_model *m = catalog("mistralai/Mixtral-8x7B-v0.1");
    kvp_estimate_settings s = settings(4, NULL);
    uint64_t tp4 = rank_weights(m, &s, KVP_OK);
    s.ep = 4;
    assert_int_equal(rank_weights(m, &s, KVP_OK), tp4);
    s.ep = 3; /* 8 experts do not split 3 ways */
    kvp_memory_facts f;
    kvp_error err;
    assert_int_equal(kvp_memory_estimate(m, &s, &f, &err), KVP_INVALID_ARG);
    assert_string_equal(err.key, "ep");
    assert_non_null(strstr(err.message, "does not divide the 8 routed experts"));
    kvp_estimate_settings one = settings(1, NULL), dp2 = settings(1, NULL);
    dp2.expert_ranks = 2;
    uint64_t b1 = rank_weights(m, &one, KVP_OK), b2 = rank_weights(m, &dp2, KVP_OK);
    assert_int_equal(b1 - b2, 45097156608ull);
    dp2.ep = 2; /* --enable-expert-parallel: 4 whole experts per GPU, same bytes */
    assert_int_equal(rank_weights(m, &dp2, KVP_OK), b2);
    kvp_model_free(m);
    /* EP on a dense model: SGLang refuses it (no routed experts to place). */
    m = catalog("meta-llama/Llama-3.1-8B");
    s = settings(2, NULL);
    s.engine = KVP_ESTIMATE_SGLANG;
    s.ep = 2;
    assert_int_equal(kvp_memory_estimate(m, &s, &f, &err), KVP_INVALID_ARG);
    assert_string_equal(err.key, "ep");
    /* TensorRT-LLM builds a valid Mapping (moe_tp 1 x moe_ep 2 = tp 2) and the
     * dense model has no MoE layer: the same bytes as without EP (issue 29). */
    s.engine = KVP_ESTIMATE_TRTLLM;
    s.expert_ranks = 2;
    uint64_t dense_ep = rank_weights(m, &s, KVP_OK);
    s.ep = 0;
    assert_int_equal(rank_weights(m, &s, KVP_OK), dense_ep);
    kvp_model_free(m);
    /* TensorRT-LLM: EP must divide TP (Mapping: moe_tp_size = tp // moe_ep and
     * moe_tp x moe_ep == tp, else ValueError), dense or MoE: EP 4 at TP 2 gives
     * moe_tp 0. Under SGLang EP 4 at TP 2 is moe_tp_size 2 // 4 = 0 too. */
    m = catalog("mistralai/Mixtral-8x7B-v0.1");
    s = settings(2, NULL);
    s.expert_ranks = 2;
    s.ep = 4;
    assert_int_equal(kvp_memory_estimate(m, &s, &f, &err), KVP_INVALID_ARG);
    assert_string_equal(err.key, "ep");
    assert_non_null(strstr(err.message, "EP 4 does not divide TP 2: TensorRT-LLM's Mapping"));
    s.engine = KVP_ESTIMATE_SGLANG;
    assert_int_equal(kvp_memory_estimate(m, &s, &f, &err), KVP_INVALID_ARG);
    assert_non_null(strstr(err.message, "EP 4 does not divide the 2 GPUs the experts are spread over"));
    kvp_model_free(m);
}

/* vLLM pads one rank's mxfp4 expert intermediate to 64 (Mxfp4MoEMethod).
 * gpt-oss-120b: 36 layers, 128 experts, h 2880, I 2880, gated (3 matrices).
 * TP 2: 1440 per rank -> 1472. Extra: 36 x 128 x 3 x 2880 x 32 =
 * 1,274,019,840 parameters x 17/32 B = 676,823,040 B. */
static void test_mxfp4_padding(void **state) {
    (void)state;
    kvp_model *m = catalog("openai/gpt-oss-120b");
    kvp_estimate_settings s = settings(2, NULL);
    uint64_t plain = rank_weights(m, &s, KVP_OK);
    s.expert_inter_align = 64;
    assert_int_equal(rank_weights(m, &s, KVP_OK) - plain, 676823040ull);
    /* TP 1: 2880 is already a multiple of 64 */
    kvp_estimate_settings t1 = settings(1, NULL);
    uint64_t p1 = rank_weights(m, &t1, KVP_OK);
    t1.expert_inter_align = 64;
    assert_int_equal(rank_weights(m, &t1, KVP_OK), p1);
    kvp_model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ggml_bits),
        cmocka_unit_test(test_format_names),
        cmocka_unit_test(test_llama_by_option),
        cmocka_unit_test(test_run_dtype_keeps_quantization),
        cmocka_unit_test(test_llama_q4_k_m),
        cmocka_unit_test(test_gguf_row_fallback),
        cmocka_unit_test(test_gguf_refuses_mla),
        cmocka_unit_test(test_expert_parallel),
        cmocka_unit_test(test_mxfp4_padding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
