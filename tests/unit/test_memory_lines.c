/* test_memory_lines.c — the start-up memory terms per engine release line
 * (issue 28, docs/memory.md), each worked by hand for one model:
 * vLLM's dummy sampler of Llama-3.1-8B at R = 1024 on two release lines, V0's
 * profile batch at a long max_model_len, vLLM's batch defaults, SGLang's
 * automatic mem_fraction_static on two GPU sizes and llama.cpp's compute
 * buffer at two n_ubatch values, and vLLM V1's multimodal encoder profile of
 * Gemma-3-27B. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "kvplan/kvplan.h"

static kvp_model *open_model(const char *name) {
    kvp_model *m = NULL;
    kvp_error err;
    kvp_status st = kvp_model_open(name, NULL, &m, &err);
    if (st != KVP_OK) fprintf(stderr, "%s: %s\n", name, err.message);
    assert_int_equal(st, KVP_OK);
    return m;
}

static const kvp_memory_term *find(const kvp_memory_facts *f, const char *name) {
    for (uint32_t i = 0; i < f->term_count; i++)
        if (!strcmp(f->terms[i].name, name)) return &f->terms[i];
    fail_msg("no term '%s'", name);
    return NULL;
}

static bool has(const kvp_memory_facts *f, const char *name) {
    for (uint32_t i = 0; i < f->term_count; i++)
        if (!strcmp(f->terms[i].name, name)) return true;
    return false;
}

/* Settings of one engine on `tp` GPUs of `gib` GiB (SM90). */
static kvp_estimate_settings engine_on(kvp_estimate_engine engine, uint32_t tp, uint64_t gib) {
    kvp_estimate_settings s;
    memset(&s, 0, sizeof s);
    s.tp = tp;
    s.pp = 1;
    s.total_bytes = gib << 30;
    s.engine = engine;
    s.compute_capability = 90;
    return s;
}

/* Llama-3.1-8B (h 4096, V 128,256, 32 q heads, intermediate 14,336) on one
 * H100, vLLM's latest defaults: T = 8,192 tokens, R = min(1,024, T) = 1,024. */
static kvp_estimate_settings vllm_8b(uint32_t version) {
    kvp_estimate_settings s = engine_on(KVP_ESTIMATE_VLLM, 1, 80);
    s.max_num_tokens = 8192;
    s.max_batch_size = 1024;
    s.cuda_graphs = true;
    s.engine_version = version;
    return s;
}

/* The dummy sampler on two lines. R x V = 1024 x 128256 = 131,334,144
 * elements; hidden states [T, h] = 8192 x 4096 x 2 = 67,108,864 B.
 *   0.12.0 (PyTorch sort, R >= 128): 2 + 4 + 32 = 38 B per element:
 *     131,334,144 x 38 = 4,990,697,472 + 67,108,864 = 5,057,806,336 B (4.71 GiB)
 *   latest (FlashInfer): 2 + 4 + 8 = 14 B per element:
 *     131,334,144 x 14 = 1,838,678,016 + 67,108,864 = 1,905,786,880 B
 * The sampler sets the profile peak on both (the layer stack at 8,192 tokens
 * is 838,860,800 B: MLP gate-up 8192 x 14336 x 2 x 2 = 469,762,048 + act
 * 234,881,024 + residual and normed input 8192 x 4096 x 2 x 2 = 134,217,728). */
static void test_vllm_sampler_two_lines(void **state) {
    (void)state;
    kvp_model *m = open_model("llama-3.1-8b");
    kvp_memory_facts f;
    kvp_estimate_settings s = vllm_8b(1200);
    assert_int_equal(kvp_memory_estimate(m, &s, &f, NULL), KVP_OK);
    assert_int_equal(find(&f, "dummy_sampler")->bytes, 5057806336ull);
    assert_int_equal(find(&f, "dummy_sampler")->mark, KVP_MEM_MARK_BOUNDED); /* sort scratch */
    assert_int_equal(find(&f, "dummy_sampler")->charge, KVP_MEM_CHARGE_PHASE);
    assert_int_equal(find(&f, "profile_forward")->bytes, 838860800ull);
    assert_int_equal(find(&f, "profile_peak")->bytes, 5057806336ull);
    /* + the cuBLAS workspace 32 MiB = 33,554,432 on SM90. */
    assert_int_equal(f.activation_bytes, 5057806336ull + 33554432ull);
    /* 0.12 captures the graphs after the KV cache: not charged, after sizing. */
    assert_int_equal(f.cuda_graph_bytes, 0);
    assert_int_equal(find(&f, "cuda_graphs_after_kv")->charge, KVP_MEM_CHARGE_HEADROOM);
    assert_non_null(strstr(f.release_line, "0.11.1-0.13"));

    s = vllm_8b(0);
    assert_int_equal(kvp_memory_estimate(m, &s, &f, NULL), KVP_OK);
    assert_int_equal(find(&f, "dummy_sampler")->bytes, 1905786880ull);
    assert_int_equal(find(&f, "dummy_sampler")->mark, KVP_MEM_MARK_EXACT);
    assert_int_equal(f.activation_bytes, 1905786880ull + 33554432ull);
    /* >= 0.21 charges the graph estimate before sizing. */
    assert_true(f.cuda_graph_bytes > 0);
    assert_false(has(&f, "cuda_graphs_after_kv"));
    assert_non_null(strstr(f.release_line, "latest, no --engine-version"));

    /* 0.19 (Triton): 14 B per element as FlashInfer, graphs after sizing. */
    s = vllm_8b(1900);
    assert_int_equal(kvp_memory_estimate(m, &s, &f, NULL), KVP_OK);
    assert_int_equal(find(&f, "dummy_sampler")->bytes, 1905786880ull);
    assert_int_equal(f.cuda_graph_bytes, 0);

    /* 0.9.1: FlashInfer only when it imports, and a pip install has none before
     * 0.10.2: the PyTorch sort's 38 B, 5,057,806,336 B, an upper bound (a Docker
     * image's FlashInfer is lower). VLLM_USE_FLASHINFER_SAMPLER=1 says FlashInfer:
     * 1,905,786,880 B. 0.10.2 (FlashInfer a dependency): 1,905,786,880 B, and
     * =0 there is the sort again. */
    s = vllm_8b(901);
    assert_int_equal(kvp_memory_estimate(m, &s, &f, NULL), KVP_OK);
    assert_int_equal(find(&f, "dummy_sampler")->bytes, 5057806336ull);
    assert_int_equal(find(&f, "dummy_sampler")->mark, KVP_MEM_MARK_BOUNDED);
    s.flashinfer_sampler = 1;
    assert_int_equal(kvp_memory_estimate(m, &s, &f, NULL), KVP_OK);
    assert_int_equal(find(&f, "dummy_sampler")->bytes, 1905786880ull);
    s = vllm_8b(1002);
    assert_int_equal(kvp_memory_estimate(m, &s, &f, NULL), KVP_OK);
    assert_int_equal(find(&f, "dummy_sampler")->bytes, 1905786880ull);
    s.flashinfer_sampler = -1;
    assert_int_equal(kvp_memory_estimate(m, &s, &f, NULL), KVP_OK);
    assert_int_equal(find(&f, "dummy_sampler")->bytes, 5057806336ull);
    assert_int_equal(find(&f, "dummy_sampler")->mark, KVP_MEM_MARK_BOUNDED); /* sort scratch */
    /* Latest with =0: Triton (R >= 8), 14 B as FlashInfer. */
    s = vllm_8b(0);
    s.flashinfer_sampler = -1;
    assert_int_equal(kvp_memory_estimate(m, &s, &f, NULL), KVP_OK);
    assert_int_equal(find(&f, "dummy_sampler")->bytes, 1905786880ull);
    assert_non_null(strstr(find(&f, "dummy_sampler")->source, "Triton"));
    kvp_model_free(m);
}

/* V0 at max_model_len 32,768 (chunked prefill off by default up to 32,768):
 * T = max(32768, 2048) = 32,768 tokens, R = 256 sequences.
 *   sampler: 256 x 128256 x (2 + 4 + 32) = 1,247,674,368 + hidden 32768 x 4096 x 2
 *            = 268,435,456 -> 1,516,109,824 B
 *   forward: MLP gate-up 32768 x 14336 x 2 x 2 = 1,879,048,192 + act 939,524,096
 *            = 2,818,572,288 + residual and normed input 32768 x 4096 x 4 =
 *            536,870,912 -> 3,355,443,200 B: the long profile batch sets the peak.
 * Past 32,768 chunked prefill turns on and T falls to 2,048. */
static void test_vllm_v0_profile_batch(void **state) {
    (void)state;
    uint64_t tokens = 0;
    uint32_t seqs = 0;
    kvp_vllm_batch_defaults(80ull << 30, "H100 SXM 80GB", 700, true, false, 32768, -1, &tokens,
                            &seqs);
    assert_int_equal(tokens, 32768);
    assert_int_equal(seqs, 256);
    kvp_vllm_batch_defaults(80ull << 30, "H100 SXM 80GB", 700, true, false, 65536, -1, &tokens,
                            &seqs);
    assert_int_equal(tokens, 2048);
    kvp_vllm_batch_defaults(80ull << 30, "H100 SXM 80GB", 700, true, false, 131072, 0, &tokens,
                            &seqs);
    assert_int_equal(tokens, 131072);

    kvp_model *m = open_model("llama-3.1-8b");
    kvp_estimate_settings s = vllm_8b(700);
    s.engine_v0 = true;
    s.max_num_tokens = 32768;
    s.max_batch_size = 256;
    kvp_memory_facts f;
    assert_int_equal(kvp_memory_estimate(m, &s, &f, NULL), KVP_OK);
    assert_int_equal(find(&f, "dummy_sampler")->bytes, 1516109824ull);
    assert_int_equal(find(&f, "profile_forward")->bytes, 3355443200ull);
    assert_int_equal(find(&f, "profile_peak")->bytes, 3355443200ull);
    /* V0 0.7.0 < 0.7.2: non-torch is everything on the device: the context is charged. */
    assert_int_equal(find(&f, "cuda_context")->charge, KVP_MEM_CHARGE_PEAK);
    assert_non_null(strstr(f.release_line, "V0 <= 0.7.1"));
    kvp_model_free(m);
}

/* vLLM V1's multimodal encoder profile (MEMORY.md 7.4) for Gemma-3-27B (text
 * h 5376, V 262,208; SigLIP tower h 1152, MLP 4304, image 896 / patch 14 =
 * 64^2 = 4,096 patches pooled to mm_tokens_per_image 256) on one H100 at the
 * latest defaults, T = 8,192, R = 1,024:
 *   items = min(max(8192, 256) // 256, 1024 x 999) = 32
 *   outputs alive in the LM pass: 32 x 256 x 5376 x 2 = 88,080,384 B
 *   sampler: 1024 x 262208 x 14 = 3,759,013,888 + hidden 8192 x 5376 x 2
 *            = 88,080,384 -> 3,847,094,272 B
 *   peak = 3,847,094,272 + 88,080,384 = 3,935,174,656 B
 *   tower on P = 32 x 4096 = 131,072 patches: residual + normed 2 x P x 1152
 *     x 2 = 603,979,776, MLP max(2 x 4304, 4304 + 1152) x P x 2 =
 *     2,256,535,552 (attention (4 + 1) x 1152 x P x 2 = 1,509,949,440 is less)
 *     -> 2,860,515,328 B, below the LM peak here.
 * At R = 256 the sampler is 256 x 262208 x 14 + 88,080,384 = 1,027,833,856 and
 * the layer stack (MLP 8192 x 21504 x 2 x 2 + act 8192 x 21504 x 2 + residual
 * and normed 8192 x 5376 x 4 = 1,233,125,376) + outputs = 1,321,205,760: the
 * tower's 2,860,515,328 sets the peak, an estimate. At TP 2 the tower's MLP is
 * 4304 x P x 2 = 1,128,267,776 (attention (4 x 576 + 1152) x P x 2 =
 * 905,969,664) -> 1,732,247,552 B; the outputs are whole on every rank. */
static void test_vllm_mm_encoder_profile(void **state) {
    (void)state;
    kvp_model *m = open_model("gemma-3-27b-it");
    kvp_memory_facts f;
    kvp_estimate_settings s = vllm_8b(0);
    assert_int_equal(kvp_memory_estimate(m, &s, &f, NULL), KVP_OK);
    assert_int_equal(find(&f, "mm_encoder_outputs")->bytes, 88080384ull);
    assert_int_equal(find(&f, "mm_encoder_outputs")->mark, KVP_MEM_MARK_EXACT);
    assert_int_equal(find(&f, "dummy_sampler")->bytes, 3847094272ull);
    assert_int_equal(find(&f, "mm_encoder_forward")->bytes, 2860515328ull);
    assert_int_equal(find(&f, "mm_encoder_forward")->mark, KVP_MEM_MARK_ESTIMATED);
    assert_int_equal(find(&f, "profile_peak")->bytes, 3935174656ull);
    assert_int_equal(find(&f, "profile_peak")->mark, KVP_MEM_MARK_BOUNDED);

    s.max_batch_size = 256;
    assert_int_equal(kvp_memory_estimate(m, &s, &f, NULL), KVP_OK);
    assert_int_equal(find(&f, "dummy_sampler")->bytes, 1027833856ull);
    assert_int_equal(find(&f, "profile_forward")->bytes, 1233125376ull);
    assert_int_equal(find(&f, "profile_peak")->bytes, 2860515328ull);
    assert_int_equal(find(&f, "profile_peak")->mark, KVP_MEM_MARK_ESTIMATED);

    s.tp = 2;
    assert_int_equal(kvp_memory_estimate(m, &s, &f, NULL), KVP_OK);
    assert_int_equal(find(&f, "mm_encoder_forward")->bytes, 1732247552ull);
    assert_int_equal(find(&f, "mm_encoder_outputs")->bytes, 88080384ull);

    /* --skip-mm-profiling: the LM peak alone (R 1,024: the sampler). */
    s = vllm_8b(0);
    s.skip_mm_profiling = true;
    assert_int_equal(kvp_memory_estimate(m, &s, &f, NULL), KVP_OK);
    assert_int_equal(find(&f, "profile_peak")->bytes, 3847094272ull);
    assert_int_equal(find(&f, "mm_encoder_outputs")->bytes, 0);
    assert_false(has(&f, "mm_encoder_forward"));
    /* --language-model-only: no tower, no encoder profile. */
    s.skip_mm_profiling = false;
    s.language_model_only = true;
    assert_int_equal(kvp_memory_estimate(m, &s, &f, NULL), KVP_OK);
    assert_false(has(&f, "mm_encoder_outputs"));
    assert_int_equal(find(&f, "profile_peak")->bytes, 3847094272ull);
    /* V0 profiles its own way (7.3): min(1024, 8192 // 256) = 32 sequences of one
     * image each, the encoder inside the forward (no outputs kept beside it),
     * and the sampler over those 32 rows with the sort (2 <= R < 128: 2 + 4 +
     * 44 B): 32 x 262208 x 50 = 419,532,800 + hidden 88,080,384 = 507,613,184 B.
     * The tower on the same 32 x 4,096 patches, 2,860,515,328 B, sets the peak. */
    s = vllm_8b(700);
    s.engine_v0 = true;
    assert_int_equal(kvp_memory_estimate(m, &s, &f, NULL), KVP_OK);
    assert_false(has(&f, "mm_encoder_outputs"));
    assert_int_equal(find(&f, "dummy_sampler")->bytes, 507613184ull);
    assert_int_equal(find(&f, "mm_encoder_forward")->bytes, 2860515328ull);
    assert_int_equal(find(&f, "profile_peak")->bytes, 2860515328ull);
    kvp_model_free(m);

    /* Qwen3-VL: tokens per image are the processor's (max_pixels), not
     * config.json's: said, 0 B, nothing added. */
    m = open_model("qwen3-vl-8b-instruct");
    s = vllm_8b(0);
    assert_int_equal(kvp_memory_estimate(m, &s, &f, NULL), KVP_OK);
    assert_int_equal(find(&f, "mm_encoder_outputs")->bytes, 0);
    assert_int_equal(find(&f, "mm_encoder_outputs")->mark, KVP_MEM_MARK_ESTIMATED);
    assert_false(has(&f, "mm_encoder_forward"));
    kvp_model_free(m);
}

/* vLLM's batch defaults (get_batch_defaults): H100 80 GB from 0.9 on: 8,192
 * tokens for the server (16,384 for the LLM class), 1,024 sequences; an A100
 * 80 GB and an L4 the small tier: 2,048 / 256; 0.8 one tier. */
static void test_vllm_batch_defaults(void **state) {
    (void)state;
    uint64_t tokens = 0;
    uint32_t seqs = 0;
    kvp_vllm_batch_defaults(80ull << 30, "H100 SXM 80GB", 0, false, false, 8192, -1, &tokens, &seqs);
    assert_int_equal(tokens, 8192);
    assert_int_equal(seqs, 1024);
    kvp_vllm_batch_defaults(80ull << 30, "H100 SXM 80GB", 0, false, true, 8192, -1, &tokens, &seqs);
    assert_int_equal(tokens, 16384);
    kvp_vllm_batch_defaults(80ull << 30, "A100 SXM 80GB", 0, false, false, 8192, -1, &tokens, &seqs);
    assert_int_equal(tokens, 2048);
    assert_int_equal(seqs, 256);
    kvp_vllm_batch_defaults(80ull << 30, "H100 SXM 80GB", 800, false, false, 8192, -1, &tokens, &seqs);
    assert_int_equal(tokens, 2048);
    assert_int_equal(seqs, 256);
    /* Chunked prefill off: a step holds a whole prompt. */
    kvp_vllm_batch_defaults(80ull << 30, "H100 SXM 80GB", 0, false, false, 32768, 0, &tokens, &seqs);
    assert_int_equal(tokens, 32768);
    uint32_t v = 1;
    bool v0 = true;
    kvp_vllm_release("0.21.0", &v, &v0);
    assert_int_equal(v, 2100);
    assert_false(v0);
    kvp_vllm_release("0.6.3", &v, &v0);
    assert_true(v0);
    kvp_vllm_release(NULL, &v, &v0);
    assert_int_equal(v, 0);
    assert_false(v0);
}

/* SGLang under --enable-dp-attention: attention over attn_tp = tp / dp ranks,
 * the embedding whole on every rank. Llama-3.1-8B at TP 2: attention per layer
 * q 4096 x 4096 + k, v 2 x 4096 x 1024 + o 4096 x 4096 = 41,943,040, x 32 =
 * 1,342,177,280 parameters, split 2 ways 671,088,640; embedding 128,256 x
 * 4,096 = 525,336,576, split 262,668,288. attn_tp 1 adds 671,088,640 +
 * 262,668,288 = 933,756,928 parameters x 2 B = 1,867,513,856 B per rank. */
static void test_sglang_dp_attention_weights(void **state) {
    (void)state;
    kvp_model *m = open_model("llama-3.1-8b");
    kvp_estimate_settings s = engine_on(KVP_ESTIMATE_SGLANG, 2, 80);
    kvp_memory_facts f;
    assert_int_equal(kvp_memory_estimate(m, &s, &f, NULL), KVP_OK);
    uint64_t split = f.weights_bytes;
    s.attention_ranks = 1;
    s.embedding_whole = true;
    assert_int_equal(kvp_memory_estimate(m, &s, &f, NULL), KVP_OK);
    assert_int_equal(f.weights_bytes - split, 1867513856ull);
    /* TensorRT-LLM's attention DP: the attention modules at tp_size 1, the
     * embedding split (T-PAR-1): 671,088,640 x 2 = 1,342,177,280 B more. */
    s.engine = KVP_ESTIMATE_TRTLLM;
    s.attention_ranks = 0;
    s.embedding_whole = false;
    assert_int_equal(kvp_memory_estimate(m, &s, &f, NULL), KVP_OK);
    split = f.weights_bytes;
    s.attention_ranks = 1;
    assert_int_equal(kvp_memory_estimate(m, &s, &f, NULL), KVP_OK);
    assert_int_equal(f.weights_bytes - split, 1342177280ull);
    /* attention_ranks equal to tp changes nothing. */
    s.attention_ranks = 2;
    s.embedding_whole = false;
    assert_int_equal(kvp_memory_estimate(m, &s, &f, NULL), KVP_OK);
    assert_int_equal(f.weights_bytes, split);
    kvp_model_free(m);
}

/* SGLang's automatic mem_fraction_static (PR #10975), reserve in MB:
 *   80 GiB (81,920 MB), TP 1: tier < 90 GiB: chunk 8,192, cuda_graph_max_bs 256;
 *     512 + 1.5 x 8192 = 12,288 + 2 x 256 = 512 + 1024 x 1 x 1 / 8 = 128
 *     -> 13,440 (>= 10,240) -> round((81920 - 13440) / 81920, 3) = 0.836
 *   24 GiB (24,576 MB), TP 1: tier < 35 GiB: chunk 2,048, bs 24;
 *     512 + 3,072 + 48 + 128 = 3,760 -> round(20816 / 24576, 3) = 0.847
 *   2025 H1 (0.4.6) at TP 8: 0.81; 2024 (0.4.0) at TP 8: 0.83. */
static void test_sglang_auto_mfs(void **state) {
    (void)state;
    kvp_policy_settings s = kvp_policy_settings_default();
    s.engine = KVP_ENGINE_SGLANG;
    s.tp = 1;
    s.pp = 1;
    assert_float_equal(kvp_sglang_default_mfs(80ull << 30, &s), 0.836, 1e-9);
    assert_float_equal(kvp_sglang_default_mfs(24ull << 30, &s), 0.847, 1e-9);
    s.tp = 8;
    snprintf(s.engine_version, sizeof s.engine_version, "0.4.6");
    assert_float_equal(kvp_sglang_default_mfs(80ull << 30, &s), 0.81, 1e-9);
    snprintf(s.engine_version, sizeof s.engine_version, "0.4.0");
    assert_float_equal(kvp_sglang_default_mfs(80ull << 30, &s), 0.83, 1e-9);
}

/* llama.cpp compute buffer of Llama-3.1-8B, n_ctx 8,192, flash attention off:
 *   n_ubatch 512: KQ 8192 x 512 x 32 heads x 4 = 536,870,912; the layer at 512
 *     tokens: MLP gate-up 512 x 14336 x 4 = 29,360,128 + act 14,680,064 +
 *     residual 512 x 4096 x 4 = 8,388,608 -> 52,428,800; together 589,299,712;
 *     logits 512 x 128256 x 4 = 262,668,288 -> 589,299,712 B
 *   n_ubatch 256: KQ 268,435,456 + layer 26,214,400 = 294,649,856; logits
 *     131,334,144 -> 294,649,856 B
 *   n_ubatch 512, flash attention on: max(52,428,800, 262,668,288) = 262,668,288 B */
static void test_llamacpp_compute_buffer(void **state) {
    (void)state;
    kvp_model *m = open_model("llama-3.1-8b");
    kvp_estimate_settings s = engine_on(KVP_ESTIMATE_LLAMACPP, 1, 24);
    s.n_ctx = 8192;
    s.flash_attn = 0;
    s.max_num_tokens = 512;
    kvp_memory_facts f;
    assert_int_equal(kvp_memory_estimate(m, &s, &f, NULL), KVP_OK);
    assert_int_equal(find(&f, "kq_scores")->bytes, 536870912ull);
    assert_int_equal(find(&f, "compute_buffer")->bytes, 589299712ull);
    s.max_num_tokens = 256;
    assert_int_equal(kvp_memory_estimate(m, &s, &f, NULL), KVP_OK);
    assert_int_equal(find(&f, "compute_buffer")->bytes, 294649856ull);
    s.max_num_tokens = 512;
    s.flash_attn = 1;
    assert_int_equal(kvp_memory_estimate(m, &s, &f, NULL), KVP_OK);
    assert_false(has(&f, "kq_scores"));
    assert_int_equal(find(&f, "compute_buffer")->bytes, 262668288ull);
    kvp_model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vllm_sampler_two_lines),
        cmocka_unit_test(test_vllm_v0_profile_batch),
        cmocka_unit_test(test_vllm_mm_encoder_profile),
        cmocka_unit_test(test_vllm_batch_defaults),
        cmocka_unit_test(test_sglang_auto_mfs),
        cmocka_unit_test(test_sglang_dp_attention_weights),
        cmocka_unit_test(test_llamacpp_compute_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
