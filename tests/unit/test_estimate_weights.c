/* test_estimate_weights.c — weights from the config, worked by hand for a
 * dense GQA model (Llama-3.1-8B), an MoE (Mixtral-8x7B), an MLA MoE
 * (DeepSeek-V2-Lite), quantized checkpoints, TP and PP sharding. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "kvplan/kvplan.h"
#include "model/model_internal.h"

static kvp_model *open_model(const char *name) {
    kvp_model *m = NULL;
    kvp_error err;
    kvp_status st = kvp_model_open(name, NULL, &m, &err);
    if (st != KVP_OK) fprintf(stderr, "%s: %s\n", name, err.message);
    assert_int_equal(st, KVP_OK);
    return m;
}

static kvp_model *from_json(const char *text) {
    kvp_model *m = NULL;
    kvp_error err;
    kvp_status st = kvp_model_from_hf_json(text, strlen(text), "test.json", NULL, &m, &err);
    if (st != KVP_OK) fprintf(stderr, "test.json: %s\n", err.message);
    assert_int_equal(st, KVP_OK);
    return m;
}

static kvp_estimate_settings settings(uint32_t tp, uint32_t pp) {
    kvp_estimate_settings s;
    memset(&s, 0, sizeof s);
    s.tp = tp;
    s.pp = pp;
    s.total_bytes = 80ull << 30;
    return s;
}

/* Llama-3.1-8B: h 4096, vocab 128256, 32 layers, 32 q / 8 kv heads of 128,
 * intermediate 14336, untied.
 *   embedding = lm_head = 128256 * 4096           =   525,336,576
 *   per layer: q 4096*32*128 = 16,777,216; k+v 4096*8*256 = 8,388,608;
 *              o 16,777,216; mlp 3*4096*14336 = 176,160,768; norms 8,192
 *              = 218,112,000; x32 = 6,979,584,000
 *   final norm 4,096
 *   total = 6,979,584,000 + 2*525,336,576 + 4,096 = 8,030,261,248 (the
 *   published count). bf16: 16,060,522,496 B, plus the rotary cache
 *   131072 * 128 * 2 B = 33,554,432 -> 16,094,076,928 B = 14.9888 GiB, the
 *   figure vLLM logs as "Loading model weights took 14.9888 GB". */
static void test_llama_8b_dense(void **state) {
    (void)state;
    kvp_model *m = open_model("meta-llama/Llama-3.1-8B");
    kvp_estimate_settings s = settings(1, 1);
    kvp_memory_facts f;
    kvp_estimate_detail d;
    kvp_error err;
    assert_int_equal(kvp_memory_estimate_detail(m, &s, &f, &d, &err), KVP_OK);
    assert_int_equal(d.params_total, 8030261248ull);
    assert_int_equal(d.params_embedding, 525336576ull);
    assert_int_equal(d.params_lm_head, 525336576ull);
    assert_int_equal(d.params_attention, 32ull * 41943040);
    assert_int_equal(d.params_mlp, 32ull * 176160768);
    assert_int_equal(d.buffer_elems, 131072ull * 128);
    assert_int_equal(f.weights_bytes, 16094076928ull);
    assert_int_equal(d.weights_total_bytes, 16094076928ull);
    assert_string_equal(f.weights_source, "estimated from config");
    assert_true(f.estimated & KVP_MEM_EST_WEIGHTS);
    uint64_t whole = 0;
    assert_int_equal(kvp_weights_estimate(m, KVP_DTYPE_AUTO, &whole, &err), KVP_OK);
    assert_int_equal(whole, 16094076928ull);
    /* fp8 requested: the linear layers (attention + mlp) at 1 B,
     * embeddings/head/norms/rope at 2 B:
     *   linear 32 * (41,943,040 + 176,160,768) = 6,979,321,856 B
     *   + 2 * (1,050,673,152 + 32*8,192 + 4,096 + 131072*128) = 2,135,433,216 B
     *   = 9,114,755,072 B */
    assert_int_equal(kvp_weights_estimate(m, KVP_DTYPE_FP8, &whole, &err), KVP_OK);
    assert_int_equal(whole, 9114755072ull);
    kvp_model_free(m);
}

/* TP 2: heads 16 q / 4 kv per rank; vocab split.
 *   per layer: q 8,388,608 + kv 4,194,304 + o 8,388,608 + mlp 88,080,384
 *              + norms 8,192 = 109,060,096; x32 = 3,489,923,072
 *   embedding + head 2 * 262,668,288 = 525,336,576; final norm 4,096;
 *   rope cache 16,777,216 (replicated)
 *   = 4,032,040,960 elements x 2 B = 8,064,081,920 B */
static void test_llama_8b_tp2(void **state) {
    (void)state;
    kvp_model *m = open_model("meta-llama/Llama-3.1-8B");
    kvp_estimate_settings s = settings(2, 1);
    kvp_memory_facts f;
    kvp_estimate_detail d;
    assert_int_equal(kvp_memory_estimate_detail(m, &s, &f, &d, NULL), KVP_OK);
    assert_int_equal(f.weights_bytes, 8064081920ull);
    /* replicated: norms 32*8,192 + 4,096 + rope 16,777,216 = 17,043,456 elements x 2 B */
    assert_int_equal(d.weights_replicated_bytes, 34086912ull);
    kvp_model_free(m);
}

/* TP 16 > 8 KV heads: each rank keeps one whole KV head (replicated), so
 * k+v per layer per rank = 4096 * 1 * 256 = 1,048,576, not 524,288. */
static void test_kv_heads_replicated_beyond_tp(void **state) {
    (void)state;
    kvp_model *m = open_model("meta-llama/Llama-3.1-8B");
    kvp_estimate_settings s8 = settings(8, 1), s16 = settings(16, 1);
    kvp_memory_facts f8, f16;
    assert_int_equal(kvp_memory_estimate(m, &s8, &f8, NULL), KVP_OK);
    assert_int_equal(kvp_memory_estimate(m, &s16, &f16, NULL), KVP_OK);
    /* TP 8 per layer: q 2,097,152 + kv 1,048,576 + o 2,097,152 + mlp 22,020,096
     *   + norms 8,192 = 27,271,168; x32 = 872,677,376; + 2*65,667,072 + 4,096
     *   + rope 16,777,216 = 1,020,792,832 elements -> 2,041,585,664 B
     * TP 16 per layer: q 1,048,576 + kv 1,048,576 + o 1,048,576 + mlp 11,010,048
     *   + 8,192 = 14,163,968; x32 = 453,246,976; + 2*32,833,536 + 4,096
     *   + 16,777,216 = 535,695,360 elements -> 1,071,390,720 B */
    assert_int_equal(f8.weights_bytes, 2041585664ull);
    assert_int_equal(f16.weights_bytes, 1071390720ull);
    kvp_model_free(m);
}

/* PP 2 on 32 layers: 16 + 16. Stage 0: 16 layers + embedding; stage 1:
 * 16 layers + head + final norm (+ 4,096): stage 1 is the busier one.
 *   16 * 218,112,000 = 3,489,792,000; + 525,336,576 + 4,096 + rope 16,777,216
 *   = 4,031,909,888 elements -> 8,063,819,776 B */
static void test_llama_8b_pp2(void **state) {
    (void)state;
    kvp_model *m = open_model("meta-llama/Llama-3.1-8B");
    kvp_estimate_settings s = settings(1, 2);
    kvp_memory_facts f;
    assert_int_equal(kvp_memory_estimate(m, &s, &f, NULL), KVP_OK);
    assert_int_equal(f.weights_bytes, 8063819776ull);
    kvp_model_free(m);
}

/* Mixtral-8x7B: h 4096, 32 layers, 8 experts of 14336, vocab 32000.
 *   per layer: attention 41,943,040; experts 8*3*4096*14336 = 1,409,286,144;
 *   router 4096*8 = 32,768; norms 8,192 = 1,451,270,144; x32 = 46,440,644,608
 *   + embedding and head 2*32000*4096 = 262,144,000 + final norm 4,096
 *   = 46,702,792,704 (the published count). */
static void test_mixtral_moe(void **state) {
    (void)state;
    kvp_model *m = open_model("mistralai/Mixtral-8x7B-v0.1");
    kvp_estimate_settings s = settings(1, 1);
    kvp_memory_facts f;
    kvp_estimate_detail d;
    assert_int_equal(kvp_memory_estimate_detail(m, &s, &f, &d, NULL), KVP_OK);
    assert_int_equal(d.params_total, 46702792704ull);
    assert_int_equal(d.params_experts, 32ull * 1409286144);
    assert_int_equal(d.params_router, 32ull * 32768);
    kvp_model_free(m);
}

/* DeepSeek-V2-Lite: h 2048, 27 layers, 16 heads, no q_lora, kv_lora 512,
 * nope 128, rope 64, v 128; layer 0 dense (10944), 26 MoE layers of 64
 * experts x 1408 plus 2 shared (2816); vocab 102400, untied.
 *   MLA per layer: q 2048*16*192 = 6,291,456; kv_a 2048*576 = 1,179,648;
 *     kv norm 512; kv_b 512*16*256 = 2,097,152; o 16*128*2048 = 4,194,304
 *     -> 13,762,560 + 512 norm; layer norms 4,096
 *   27 * 13,767,168 = 371,713,536
 *   dense FFN 3*2048*10944 = 67,239,936
 *   26 MoE: experts 64*3*2048*1408 = 553,648,128 + shared 3*2048*2816 =
 *     17,301,504 + router 131,072 = 571,080,704; x26 = 14,848,098,304
 *   embedding + head 2*102400*2048 = 419,430,400; final norm 2,048
 *   = 15,706,484,224 (the published count). */
static void test_deepseek_v2_lite_mla(void **state) {
    (void)state;
    kvp_model *m = open_model("deepseek-ai/DeepSeek-V2-Lite-Chat");
    kvp_estimate_settings s = settings(1, 1);
    kvp_memory_facts f;
    kvp_estimate_detail d;
    assert_int_equal(kvp_memory_estimate_detail(m, &s, &f, &d, NULL), KVP_OK);
    assert_int_equal(d.params_total, 15706484224ull);
    assert_int_equal(d.params_shared_experts, 26ull * 17301504);
    /* TP 2: the MLA down-projections kv_a (1,179,648) and the kv norm stay
     * whole on every rank; q, kv_b and o halve. */
    kvp_estimate_settings s2 = settings(2, 1);
    kvp_estimate_detail d2;
    assert_int_equal(kvp_memory_estimate_detail(m, &s2, &f, &d2, NULL), KVP_OK);
    /* replicated per rank: 27*(1,179,648 + 512 + 4,096) + 26*131,072 (routers)
     *   + 2,048 + rope 163840*64 = 10,485,760
     *   = 31,974,912 + 3,407,872 + 2,048 + 10,485,760 = 45,870,592 elements */
    assert_int_equal(d2.weights_replicated_bytes, 2ull * 45870592);
    /* Loaded as fp8 (--quantization fp8: 1 B per quantized parameter), kv_a
     * is fp8 like the rest of the attention; norms, routers and the rotary
     * cache stay at 2 B. Replicated bytes at each term's rate:
     *   attention 27 * 1,179,648 = 31,850,496 x 1 B      = 31,850,496
     *   norms 27 * (512 + 4,096) + 2,048 = 126,464; routers 3,407,872;
     *   rope 10,485,760 -> 14,020,096 x 2 B               = 28,040,192
     *                                                     = 59,890,688
     * (at a flat 2 B they were 91,741,184, and on a checkpoint with little
     * else the replicated part outgrew the rank: fuzz_weights). */
    kvp_estimate_settings s3 = settings(2, 1);
    s3.quantization = "fp8";
    kvp_estimate_detail d3;
    assert_int_equal(kvp_memory_estimate_detail(m, &s3, &f, &d3, NULL), KVP_OK);
    assert_int_equal(d3.weights_replicated_bytes, 59890688ull);
    assert_true(d3.weights_replicated_bytes <= d3.weights_rank_bytes);
    kvp_model_free(m);
}

/* A small fp8 checkpoint with one excluded module family, worked in full:
 * h 256, 2 layers, 4 q / 2 kv heads of 64, intermediate 512, vocab 1000,
 * max positions 128, untied; fp8 block 128x128; self_attn not converted.
 *   attention per layer: q 256*4*64 = 65,536; k+v 256*2*128 = 65,536;
 *     o 65,536 -> 196,608 (bf16: 393,216 B)
 *   mlp per layer 3*256*512 = 393,216 at 1 + 16/65536 B = 393,216 + 96 B
 *   norms 512 per layer; embedding, head 256,000 each; final norm 256;
 *   rope 128*64 = 8,192
 *   bytes = 2*393,216 + 2*393,312 + 2*(2*512 + 2*256,000 + 256 + 8,192)
 *         = 786,432 + 786,624 + 1,042,944 = 2,616,000 */
static const char *k_tiny_fp8 =
    "{\"architectures\": [\"LlamaForCausalLM\"], \"model_type\": \"llama\","
    " \"hidden_size\": 256, \"num_hidden_layers\": 2, \"num_attention_heads\": 4,"
    " \"num_key_value_heads\": 2, \"head_dim\": 64, \"intermediate_size\": 512,"
    " \"vocab_size\": 1000, \"max_position_embeddings\": 128, \"tie_word_embeddings\": false,"
    " \"torch_dtype\": \"bfloat16\","
    " \"quantization_config\": {\"quant_method\": \"fp8\", \"weight_block_size\": [128, 128],"
    "   \"modules_to_not_convert\": [\"self_attn\", \"lm_head\"]}}";

static void test_fp8_with_exclusions(void **state) {
    (void)state;
    kvp_model *m = from_json(k_tiny_fp8);
    kvp_estimate_settings s = settings(1, 1);
    kvp_memory_facts f;
    kvp_estimate_detail d;
    kvp_error err;
    assert_int_equal(kvp_memory_estimate_detail(m, &s, &f, &d, &err), KVP_OK);
    assert_int_equal(d.params_attention, 2ull * 196608);
    assert_int_equal(f.weights_bytes, 2616000ull);
    assert_non_null(strstr(d.weights_format, "fp8 block-128x128"));
    assert_non_null(strstr(d.weights_format, "attention"));
    kvp_model_free(m);
}

/* gpt-oss style mxfp4: experts at 4 bits + one scale byte per 32 = 17/32 B. */
static void test_mxfp4_experts_only(void **state) {
    (void)state;
    kvp_model *m = open_model("openai/gpt-oss-20b");
    kvp_estimate_settings s = settings(1, 1);
    kvp_memory_facts f;
    kvp_estimate_detail d;
    assert_int_equal(kvp_memory_estimate_detail(m, &s, &f, &d, NULL), KVP_OK);
    /* 24 layers x 32 experts x 3 x 2880 x 2880 = 19,110,297,600 expert params */
    assert_int_equal(d.params_experts, 19110297600ull);
    uint64_t other = d.params_total - d.params_experts;
    /* experts: 19,110,297,600 * 17/32 = 10,152,345,600 B; everything else at 2 B
     * (plus the rotary cache) */
    assert_int_equal(f.weights_bytes,
                     10152345600ull + 2 * (other + d.buffer_elems));
    kvp_model_free(m);
}

/* TensorRT-LLM's start-up terms for Llama-3.1-8B (docs/memory.md), a GPU of
 * unknown compute capability (Hopper figures), max_num_tokens 8192, bf16
 * activations (2 B):
 *   forward_activations: residual + normed input 2*8192*4096*2 = 134,217,728;
 *     mlp gate_up 8192*2*14336*2 = 469,762,048 + act 8192*14336*2 =
 *     234,881,024 (the largest layer part)              -> 838,860,800
 *   attention_workspace: post-RoPE Q 8192*32*128*2         =  67,108,864
 *   profile_logits: one dummy request (no max_seq_len) x 128256 x 4 = 513,024
 *   cublas_workspace: 4096 KiB x 8 on SM90, one stream    =  33,554,432
 *   activation = 940,037,120
 *   non-torch TP1: cuda_context 768 MiB                   = 805,306,368
 *   TP2 adds nccl_rings 32 x 9,633,792 = 308,281,344, nccl_nvls 32 MiB x 2 =
 *     67,108,864, allreduce_fusion_workspace 4*64 MiB*2 + 256*2 = 536,871,424
 *                                                         -> 1,717,568,000
 *   CUDA graphs: max batch 128 -> 1..32, 64, 128 = 34 graphs;
 *     pool: a 128-token forward, residual 2*128*4096*2 = 2,097,152 + mlp
 *     128*2*14336*2 + 128*14336*2 = 11,010,048       = 13,107,200
 *     outputs: (528 + 64 + 128) = 720 rows x 128256 x 2 = 184,688,640
 *     exec: 34 x 1 MiB = 35,651,584                  -> 233,447,424
 *   headroom: the second capture 233,447,424 + decode sampler
 *     2048 x 128256 x 8 = 2,101,346,304              -> 2,334,793,728 */
static void test_activation_llama_8b(void **state) {
    (void)state;
    kvp_model *m = open_model("meta-llama/Llama-3.1-8B");
    kvp_estimate_settings s = settings(1, 1);
    s.cuda_graphs = true;
    kvp_memory_facts f;
    kvp_estimate_detail d;
    assert_int_equal(kvp_memory_estimate_detail(m, &s, &f, &d, NULL), KVP_OK);
    assert_int_equal(d.activation_tokens, 8192);
    assert_int_equal(d.activation_layer_bytes, 838860800ull);
    assert_int_equal(d.activation_logits_bytes, 513024ull);
    assert_string_equal(d.activation_phase, "mlp");
    assert_int_equal(f.activation_bytes, 940037120ull);
    assert_int_equal(f.non_torch_bytes, 805306368ull);
    assert_int_equal(d.cuda_graph_count, 34);
    assert_int_equal(d.cuda_graph_max_batch, 128);
    assert_int_equal(f.cuda_graph_bytes, 233447424ull);
    assert_int_equal(f.headroom_need_bytes, 2334793728ull);
    assert_int_equal(f.total_bytes, 80ull << 30);
    assert_int_equal(f.estimated, KVP_MEM_EST_WEIGHTS | KVP_MEM_EST_ACTIVATION |
                                      KVP_MEM_EST_NON_TORCH | KVP_MEM_EST_CUDA_GRAPH);
    /* every term is named, marked and placed */
    assert_int_equal(f.term_count, 10); /* no NCCL at TP 1 */
    assert_string_equal(f.terms[0].name, "forward_activations");
    assert_int_equal(f.terms[3].bytes, 33554432ull);
    assert_int_equal(f.terms[3].mark, KVP_MEM_MARK_EXACT);
    assert_int_equal(f.terms[4].mark, KVP_MEM_MARK_ESTIMATED);
    assert_int_equal(f.terms[9].charge, KVP_MEM_CHARGE_HEADROOM);
    s = settings(2, 1);
    assert_int_equal(kvp_memory_estimate_detail(m, &s, &f, &d, NULL), KVP_OK);
    assert_int_equal(f.non_torch_bytes, 1717568000ull);
    assert_int_equal(f.cuda_graph_bytes, 0); /* graphs off */
    assert_false(f.estimated & KVP_MEM_EST_CUDA_GRAPH);
    /* an explicit capture list: 1, 2, 4, 8 -> 15 rows x 128256 x 2 = 3,847,680 outputs +
     * 4 MiB exec + an 8-token forward: residual 2*8*4096*2 = 131,072 + mlp
     * 8*2*14336*2 + 8*14336*2 = 688,128 -> 819,200; total 8,861,184 */
    s = settings(1, 1);
    s.cuda_graphs = true;
    s.cuda_graph_size_count = 4;
    s.cuda_graph_sizes[0] = 1;
    s.cuda_graph_sizes[1] = 2;
    s.cuda_graph_sizes[2] = 4;
    s.cuda_graph_sizes[3] = 8;
    assert_int_equal(kvp_memory_estimate_detail(m, &s, &f, &d, NULL), KVP_OK);
    assert_int_equal(d.cuda_graph_count, 4);
    assert_int_equal(f.cuda_graph_bytes, 8861184ull);
    kvp_model_free(m);
}

/* A model built without config text (the internal builder): the estimate
 * falls back to kvp_model_info. h 64, 2 layers, 4 q / 2 kv heads of 16,
 * intermediate 128, vocab 100, untied, no positions (no rotary cache):
 *   per layer: q 64*4*16 = 4,096; k+v 64*2*32 = 4,096; o 4,096;
 *              mlp 3*64*128 = 24,576; norms 128 -> 36,992; x2 = 73,984
 *   embedding + head 2*100*64 = 12,800; final norm 64 -> 86,848 params
 *   bf16: 173,696 B */
static void test_builder_model_without_config_text(void **state) {
    (void)state;
    kvp_model *m = kvp__model_new(NULL, "built");
    assert_non_null(m);
    kvp_model_info *info = kvp__model_info(m);
    info->hidden_size = 64;
    info->num_layers = 2;
    info->num_attention_heads = 4;
    info->num_kv_heads = 2;
    info->head_dim = 16;
    info->intermediate_size = 128;
    info->vocab_size = 100;
    /* A reader reads the facts once the info is filled (none from a config). */
    assert_int_equal(kvp__model_read_facts(m, NULL, NULL, NULL, NULL), KVP_OK);
    uint64_t bytes = 0;
    kvp_error err;
    assert_int_equal(kvp_weights_estimate(m, KVP_DTYPE_AUTO, &bytes, &err), KVP_OK);
    assert_int_equal(bytes, 173696);
    /* no layers: the estimate refuses rather than inventing a model */
    info->num_layers = 0;
    assert_int_equal(kvp_weights_estimate(m, KVP_DTYPE_AUTO, &bytes, &err), KVP_CONFIG);
    kvp_model_free(m);
}

/* vLLM's start-up terms on Qwen3.5-35B-A3B at TP 4, an H100 (compute
 * capability 9.0), max_num_seqs 1024: the model of shared/reference case
 * vllm-33 (its drafter is not modelled).
 *   profile_peak: the dummy sampler, R = min(1024, 8192) rows x vocab 248,320 x
 *     (bf16 2 + fp32 4 + FlashInfer probs/renorm 8 = 14) = 3,559,915,520 +
 *     hidden states [8192, 2048] x 2 = 33,554,432      -> 3,593,469,952
 *   cublas_workspace: 32 MiB x 2 streams (shared experts, T > 256) = 67,108,864
 *   activation = 3,660,578,816 (3.41 GiB; the log's 5.66 GiB also holds the
 *     DFlash drafter's forward and rejection sampler)
 *   non-torch increase: custom_allreduce 2 x 8 MiB = 16,777,216 + nccl_nvls
 *     32 MiB x 4 = 134,217,728 -> 150,994,944 (0.14 GiB; log: 0.13 GiB)
 *   the CUDA context (768 MiB) and NCCL rings are before the snapshot: in the
 *     terms, not charged. */
static void test_vllm_terms(void **state) {
    (void)state;
    kvp_model *m = open_model("Qwen/Qwen3.5-35B-A3B");
    kvp_estimate_settings s = settings(4, 1);
    s.engine = KVP_ESTIMATE_VLLM;
    s.compute_capability = 90;
    s.max_batch_size = 1024;
    kvp_memory_facts f;
    kvp_estimate_detail d;
    assert_int_equal(kvp_memory_estimate_detail(m, &s, &f, &d, NULL), KVP_OK);
    assert_int_equal(d.activation_logits_bytes, 3593469952ull);
    assert_string_equal(d.activation_phase, "logits");
    assert_int_equal(f.activation_bytes, 3660578816ull);
    /* Latest line, TP 4 on SM90: custom AR 2 x min(8 MiB, 32 MiB) = 16,777,216
     * (finalize_p2p, 2026) + NVLS 32 MiB x 4 = 134,217,728 + the FlashInfer fusion
     * workspace, M = 2h x min(2 MiB / 2h, T) = 4096 x 512 = 2 MiB:
     * r2(4 x 2 MiB) 8 MiB + r2(4 KiB) 2 MiB + r2(24 MiB) 24 MiB = 35,651,584
     * -> 186,646,528. */
    assert_int_equal(f.non_torch_bytes, 186646528ull);
    uint64_t uncharged = 0;
    for (uint32_t i = 0; i < f.term_count; i++)
        if (f.terms[i].charge == KVP_MEM_CHARGE_UNCHARGED) uncharged += f.terms[i].bytes;
    /* 768 MiB + 32 x 9,633,792 + rank data 8 MiB + symm-mem SM90 tp 4 32 MiB
     * = 805,306,368 + 308,281,344 + 8,388,608 + 33,554,432 */
    assert_int_equal(uncharged, 1155530752ull);
    kvp_model_free(m);
}

static uint64_t family_weights(const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/families/%s.json", KVP_SOURCE_DIR, name);
    kvp_model *m = NULL;
    kvp_error err;
    if (kvp_model_from_hf_file(path, NULL, &m, &err) != KVP_OK) fail_msg("%s: %s", name, err.message);
    uint64_t bytes = 0;
    if (kvp_weights_estimate(m, KVP_DTYPE_AUTO, &bytes, &err) != KVP_OK)
        fail_msg("%s: %s", name, err.message);
    kvp_model_free(m);
    return bytes;
}

/* Families outside the catalogue whose configs spell the FFN differently. */
static void test_families_outside_catalogue(void **state) {
    (void)state;
    /* Falcon-7B: h 4544, 71 q heads + 1 KV head of 64, two-matrix MLP of the
     * default 4h = 18176, tied, no max_position_embeddings (no rotary cache):
     *   per layer q 4544*4544 = 20,647,936; k+v 4544*128 = 581,632; o 20,647,936;
     *   mlp 2*4544*18176 = 165,183,488; norms 9,088 -> 207,070,080; x32 = 6,626,242,560
     *   + embedding 65024*4544 = 295,469,056 + final norm 4,544 = 6,921,716,160
     *   (published: 6.92B) -> bf16 13,843,432,320 B. */
    assert_int_equal(family_weights("falcon7b"), 13843432320ull);
    /* MPT-7B: expansion_ratio 4 -> 16384, two matrices, tied, ALiBi (no rotary):
     *   per layer 4*4096^2 = 67,108,864 + 2*4096*16384 = 134,217,728 + 8,192
     *   = 201,334,784; x32 = 6,442,713,088 + 50432*4096 = 206,569,472 + 4,096
     *   = 6,649,286,656 -> 13,298,573,312 B. */
    assert_int_equal(family_weights("mpt7b"), 13298573312ull);
    /* DBRX: ffn_config holds 16 gated experts of 10752 (and the router):
     *   per layer q 6144*48*128 = 37,748,736; k+v 6144*8*256 = 12,582,912;
     *   o 37,748,736; experts 16*3*6144*10752 = 3,170,893,824; router 98,304;
     *   norms 12,288 -> 3,259,084,800; x40 = 130,363,392,000
     *   + embedding and head 2*100352*6144 = 1,233,125,376 + 6,144
     *   = 131,596,523,520 (published: 132B) + rotary 32768*128 = 4,194,304
     *   -> 2 x 131,600,717,824 = 263,201,435,648 B. */
    assert_int_equal(family_weights("dbrx"), 263201435648ull);
    /* Qwen-7B (1): intermediate_size 22016 is gate and up together: 11008 each.
     *   per layer 4*4096^2 = 67,108,864 + 3*4096*11008 = 135,266,304 + 8,192
     *   = 202,383,360; x32 = 6,476,267,520 + 2*151936*4096 = 1,244,659,712 + 4,096
     *   = 7,720,931,328 (published: 7.72B) + rotary 8192*128 = 1,048,576
     *   -> 2 x 7,721,979,904 = 15,443,959,808 B. */
    assert_int_equal(family_weights("qwen1"), 15443959808ull);
    /* GPT-2: n_inner null -> 4h = 3072, two matrices, tied, learned positions:
     *   per layer 4*768^2 = 2,359,296 + 2*768*3072 = 4,718,592 + 1,536 = 7,079,424;
     *   x12 = 84,953,088 + 50257*768 = 38,597,376 + positions 1024*768 = 786,432
     *   + 768 = 124,337,664 (published 124.4M with biases) -> 248,675,328 B. */
    assert_int_equal(family_weights("gpt2"), 248675328ull);
}

static uint64_t json_weights(const char *json) {
    kvp_model *m = from_json(json);
    uint64_t bytes = 0;
    kvp_error err;
    if (kvp_weights_estimate(m, KVP_DTYPE_AUTO, &bytes, &err) != KVP_OK) fail_msg("%s", err.message);
    kvp_model_free(m);
    return bytes;
}

/* A tiny model with one FFN width per layer (Gemma 3n's intermediate_size list):
 * h 32, 2 q heads + 1 KV head of 16, vocab 100, tied, 16 positions, bf16.
 *   attention per layer: q 32*2*16 = 1,024; k+v 32*1*32 = 1,024; o 2*16*32 = 1,024
 *   layer 0: 3,072 + gated MLP 3*32*64 = 6,144 + norms 64 = 9,280
 *   layer 1: 3,072 + 3*32*128 = 12,288 + 64 = 15,424
 *   embedding 100*32 = 3,200 (tied: no head), final norm 32, rotary 16*16 = 256
 *   = 28,192 elements -> 56,384 B.
 * Per-layer embeddings of 8 x 50 for each of the 2 layers add 800 -> 57,984 B. */
static void test_per_layer_widths_and_embeddings(void **state) {
    (void)state;
    const char *base = "{\"model_type\": \"tiny\", \"torch_dtype\": \"bfloat16\","
                       " \"num_hidden_layers\": 2, \"hidden_size\": 32,"
                       " \"num_attention_heads\": 2, \"num_key_value_heads\": 1,"
                       " \"head_dim\": 16, \"vocab_size\": 100, \"tie_word_embeddings\": true,"
                       " \"max_position_embeddings\": 16, \"intermediate_size\": [64, 128]}";
    assert_int_equal(json_weights(base), 56384);
    const char *ple = "{\"model_type\": \"tiny\", \"torch_dtype\": \"bfloat16\","
                      " \"num_hidden_layers\": 2, \"hidden_size\": 32,"
                      " \"num_attention_heads\": 2, \"num_key_value_heads\": 1,"
                      " \"head_dim\": 16, \"vocab_size\": 100, \"tie_word_embeddings\": true,"
                      " \"max_position_embeddings\": 16, \"intermediate_size\": [64, 128],"
                      " \"hidden_size_per_layer_input\": 8, \"vocab_size_per_layer_input\": 50}";
    assert_int_equal(json_weights(ple), 57984);
    /* A list of the wrong length is refused by name, when the model is read (the
     * model is the only reader: every command refuses it alike). */
    const char *bad = "{\"model_type\": \"tiny\", \"num_hidden_layers\": 2, \"hidden_size\": 32,"
                      " \"num_attention_heads\": 2, \"intermediate_size\": [64]}";
    kvp_model *m = NULL;
    kvp_error err;
    memset(&err, 0x5A, sizeof err);
    assert_int_equal(kvp_model_from_hf_json(bad, strlen(bad), "test.json", NULL, &m, &err),
                     KVP_CONFIG);
    assert_null(m);
    assert_string_equal(err.key, "/intermediate_size");
    assert_non_null(strstr(err.message, "expected one per layer (2)"));
}

static void test_errors(void **state) {
    (void)state;
    kvp_model *m = open_model("meta-llama/Llama-3.1-8B");
    kvp_estimate_settings s = settings(1, 1);
    kvp_memory_facts f;
    kvp_error err;
    s.total_bytes = 0;
    assert_int_equal(kvp_memory_estimate(m, &s, &f, &err), KVP_INVALID_ARG);
    assert_non_null(strstr(err.message, "total memory"));
    s = settings(1, 33);
    assert_int_equal(kvp_memory_estimate(m, &s, &f, &err), KVP_CONFIG);
    assert_string_equal(err.key, "pp");
    assert_int_equal(kvp_memory_estimate(NULL, &s, &f, &err), KVP_INVALID_ARG);
    kvp_model_free(m);
}

/* An overflow names the file and the term's key (issue 17: it named neither).
 * Every width at its reader's bound: 65536 experts x 3 matrices x hidden 2^20 x
 * moe_intermediate 2^24 = 3 x 2^60 parameters a layer (fits), x 100000 layers
 * = 3.5 x 2^76: past 2^64 at the routed experts. */
static void test_overflow_named(void **state) {
    (void)state;
    const char *cfg = "{\"model_type\": \"qwen3_moe\", \"architectures\": [\"Qwen3MoeForCausalLM\"],"
                      " \"hidden_size\": 1048576, \"num_hidden_layers\": 100000,"
                      " \"num_attention_heads\": 8192, \"num_key_value_heads\": 8, \"head_dim\": 128,"
                      " \"intermediate_size\": 6144, \"moe_intermediate_size\": 16777216,"
                      " \"num_experts\": 65536, \"num_experts_per_tok\": 8,"
                      " \"vocab_size\": 151936, \"max_position_embeddings\": 40960,"
                      " \"torch_dtype\": \"bfloat16\"}";
    kvp_model *m = from_json(cfg);
    kvp_estimate_settings s = settings(1, 1);
    kvp_memory_facts f;
    kvp_error err;
    assert_int_equal(kvp_memory_estimate(m, &s, &f, &err), KVP_OVERFLOW);
    assert_string_equal(err.file, "test.json");
    assert_string_equal(err.key, "/moe_intermediate_size");
    assert_non_null(strstr(err.message, "routed experts (layers 0..99999) overflow 64 bits"));
    kvp_model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_llama_8b_dense),
        cmocka_unit_test(test_llama_8b_tp2),
        cmocka_unit_test(test_kv_heads_replicated_beyond_tp),
        cmocka_unit_test(test_llama_8b_pp2),
        cmocka_unit_test(test_mixtral_moe),
        cmocka_unit_test(test_deepseek_v2_lite_mla),
        cmocka_unit_test(test_fp8_with_exclusions),
        cmocka_unit_test(test_mxfp4_experts_only),
        cmocka_unit_test(test_activation_llama_8b),
        cmocka_unit_test(test_builder_model_without_config_text),
        cmocka_unit_test(test_vllm_terms),
        cmocka_unit_test(test_families_outside_catalogue),
        cmocka_unit_test(test_per_layer_widths_and_embeddings),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_overflow_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
