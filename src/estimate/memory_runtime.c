/*
 * memory_runtime.c — the start-up terms an engine charges beside the weights
 * (issue 14 item 2), one named term each, per engine, from how the engine
 * works: ../shared/reference/MEMORY.md (section numbers below) and
 * docs/memory.md, which lists every term with its formula, its mark and where
 * the engine charges it. No constant here is fitted to a log: each is the
 * engine's or library's own, or a stated assumption marked "estimated".
 */
#include <stdio.h>
#include <string.h>

#include "memory_internal.h"

#define MIB (1ull << 20)
#define ACT 2ull /* activations are bf16/fp16, even for fp8/fp4 weights */

/* CUDA context + the kernel images loaded on first launch (MEMORY.md §0.2: no
 * source states a size; lazy loading makes it grow with the kernels run). */
#define CONTEXT_BYTES (768ull * MIB)
/* cuBLAS workspace per (handle, stream), PyTorch CublasHandlePool.cpp
 * (§0.3): 4096 KiB x 8 on compute capability 9.0, else 4096 KiB x 2 + 16 KiB x 8. */
#define CUBLAS_SM90 (4096ull * 1024 * 8)
#define CUBLAS_OTHER (4096ull * 1024 * 2 + 16ull * 1024 * 8)
/* One NCCL connection: LL 524,288 + LL128 4,915,200 + Simple 4,194,304 B
 * (NCCL computeBuffSizes, §0.4). */
#define NCCL_CONN_BYTES 9633792ull
/* NVLS buffers per rank: nvlsChannels x 2 x (128 KiB x 8 steps) x local ranks:
 * 16 channels on SM90 (32 MiB x tp), 24 on single-node SM100 (48 MiB x tp). */
#define NVLS_SM90_PER_RANK (32ull * MIB)
#define NVLS_SM100_PER_RANK (48ull * MIB)
/* TRT-LLM all-reduce fusion workspace (2026 allreduce_helper.py, §2.5):
 * size 64 MiB; IPC buffer size x tp + Lamport 3 x size x tp + 256 B x tp. */
#define TRT_AR_FUSION_SIZE (64ull * MIB)
/* vLLM / SGLang custom all-reduce (custom_all_reduce.py, §1.6 / §3.2):
 * max_size 8 MiB data + meta (meta_size + max_size) IPC buffers; 8 MiB rank data. */
#define CUSTOM_AR_MAX_SIZE (8ull * MIB)
/* NCCL work FIFO per communicator at init (NCCL_WORK_FIFO_BYTES, §0.4). */
#define NCCL_WORK_FIFO (1ull * MIB)
/* Driver memory of one instantiated graph: vLLM's floor for the per-graph
 * estimate (§1.7, §0.5); the real figure grows with the kernel nodes. */
#define GRAPH_FLOOR (1ull * MIB)
/* vLLM sampler: bytes per (row x vocab) element beside the bf16 logits (2) and
 * the fp32 copy (4): FlashInfer / Triton top-k/top-p keep probs + noise or a
 * renormed copy, 8 (§1.4). The PyTorch sort path (~0.11.1 to ~0.17) is 18 + its
 * sort scratch (~20): give sampler_bytes_per_logit to model it. */
#define VLLM_SAMPLER_PER_LOGIT (2u + 4u + 8u)
/* TRT-LLM decode sampling for max_batch_size rows (§2.6): fp32 logits + fp32
 * softmax probabilities. */
#define TRT_DECODE_SAMPLER_PER_LOGIT 8u

typedef struct tctx {
    kvp_memory_facts *f;
    bool overflow;
    bool hopper_assumed; /* compute capability unknown */
} tctx;

static uint64_t mul(tctx *c, uint64_t a, uint64_t b) {
    uint64_t r;
    if (!kvp__mul_u64(a, b, &r)) {
        c->overflow = true;
        return 0;
    }
    return r;
}
static uint64_t mul3(tctx *c, uint64_t a, uint64_t b, uint64_t d) { return mul(c, mul(c, a, b), d); }
static uint64_t add(tctx *c, uint64_t a, uint64_t b) {
    uint64_t r;
    if (!kvp__add_u64(a, b, &r)) {
        c->overflow = true;
        return 0;
    }
    return r;
}
static uint64_t cdiv(uint64_t a, uint64_t b) { return kvp__ceil_div_u64(a, b ? b : 1); }
static uint64_t max2(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* One term: added to its part (a KVP_MEM_EST_* bit) when charged in the peak,
 * to the headroom need when charged after sizing. */
static void term(tctx *c, const char *name, uint64_t bytes, uint32_t part, kvp_mem_mark mark,
                 kvp_mem_charge charge, const char *source) {
    kvp_memory_facts *f = c->f;
    if (f->term_count >= KVP_MEM_TERMS_MAX) return; /* the table is sized for every engine */
    kvp_memory_term *t = &f->terms[f->term_count++];
    kvp__strlcpy(t->name, name, sizeof t->name);
    t->bytes = bytes;
    t->part = charge == KVP_MEM_CHARGE_PEAK ? part : 0;
    t->mark = (uint8_t)mark;
    t->charge = (uint8_t)charge;
    kvp__strlcpy(t->source, source, sizeof t->source);
    if (charge == KVP_MEM_CHARGE_HEADROOM) {
        f->headroom_need_bytes = add(c, f->headroom_need_bytes, bytes);
        return;
    }
    if (charge != KVP_MEM_CHARGE_PEAK) return;
    uint64_t *sum = part == KVP_MEM_EST_ACTIVATION  ? &f->activation_bytes
                    : part == KVP_MEM_EST_NON_TORCH ? &f->non_torch_bytes
                                                    : &f->cuda_graph_bytes;
    *sum = add(c, *sum, bytes);
    f->estimated |= part;
}

/* ------------------------------------------------------------ shared terms */

static uint32_t cc_of(const kvp_estimate_settings *s) {
    return s->compute_capability ? s->compute_capability : 90;
}

static uint64_t cublas_bytes(const kvp_estimate_settings *s) {
    return cc_of(s) == 90 ? CUBLAS_SM90 : CUBLAS_OTHER;
}

/* NVLS needs NVSwitch multicast (SM90 and later; NCCL_NVLS_ENABLE auto). */
static uint64_t nvls_bytes(tctx *c, const kvp_estimate_settings *s, uint32_t tp) {
    uint32_t cc = cc_of(s);
    if (tp < 2 || cc < 90) return 0;
    return mul(c, cc >= 100 ? NVLS_SM100_PER_RANK : NVLS_SM90_PER_RANK, tp);
}

/* Ring channels NCCL's topology search picks: a bound (§0.4), 16 to 32 on
 * NVSwitch nodes (the ring set doubled: 32 taken on SM90+), 16 elsewhere. */
static uint64_t nccl_ring_bytes(tctx *c, const kvp_estimate_settings *s, uint32_t ranks) {
    if (ranks < 2) return 0;
    return mul(c, cc_of(s) >= 90 ? 32 : 16, NCCL_CONN_BYTES);
}

/* Graph capture sizes. The engines' default lists (their generators), up to
 * `max`; an explicit list replaces them. */
static uint32_t graph_sizes(const kvp_estimate_settings *s, uint64_t max, uint32_t *out_max) {
    if (s->cuda_graph_size_count) {
        uint32_t n = s->cuda_graph_size_count < KVP_ESTIMATE_GRAPH_SIZES_MAX
                         ? s->cuda_graph_size_count
                         : KVP_ESTIMATE_GRAPH_SIZES_MAX;
        uint32_t mx = 0;
        for (uint32_t i = 0; i < n; i++) mx = s->cuda_graph_sizes[i] > mx ? s->cuda_graph_sizes[i] : mx;
        *out_max = mx;
        return n;
    }
    uint32_t n = 0, mx = 0;
#define SIZE(b)                                                                                  \
    do {                                                                                         \
        if ((uint64_t)(b) <= max) {                                                              \
            n++;                                                                                 \
            mx = (uint32_t)(b);                                                                  \
        }                                                                                        \
    } while (0)
    switch (s->engine) {
    case KVP_ESTIMATE_VLLM:
        /* vllm/config/vllm.py _set_cudagraph_sizes: [1, 2, 4], multiples of 8 to 248,
         * multiples of 16 from 256 (§1.7). */
        SIZE(1);
        SIZE(2);
        SIZE(4);
        for (uint32_t b = 8; b <= 248; b += 8) SIZE(b);
        for (uint64_t b = 256; b <= max; b += 16) SIZE(b);
        break;
    case KVP_ESTIMATE_SGLANG:
        /* server_args.py _generate_cuda_graph_batch_sizes (§3.3). */
        SIZE(1);
        SIZE(2);
        SIZE(4);
        SIZE(8);
        SIZE(12);
        for (uint32_t b = 16; b <= 256; b += 8) SIZE(b);
        for (uint32_t b = 272; b <= 496; b += 16) SIZE(b);
        for (uint64_t b = 512; b <= max; b += 32) SIZE(b);
        break;
    default: {
        /* TRT-LLM CudaGraphConfig._generate_cuda_graph_batch_sizes without padding
         * (§2.4): 1-31, 32, 64, 128, powers of two from 256, and the max itself. */
        for (uint32_t b = 1; b <= 32; b++) SIZE(b);
        SIZE(64);
        SIZE(128);
        for (uint64_t b = 256; b <= max; b *= 2) SIZE(b);
        if (mx != max && max <= UINT32_MAX) {
            n++;
            mx = (uint32_t)max;
        }
        break;
    }
    }
#undef SIZE
    *out_max = mx;
    return n;
}

/* Sum of the capture sizes (rows of the outputs every graph keeps). */
static uint64_t graph_rows(const kvp_estimate_settings *s, uint64_t max) {
    uint64_t sum = 0;
    if (s->cuda_graph_size_count) {
        for (uint32_t i = 0; i < s->cuda_graph_size_count && i < KVP_ESTIMATE_GRAPH_SIZES_MAX; i++)
            sum += s->cuda_graph_sizes[i];
        return sum;
    }
    for (uint32_t b = 1; b <= 32 && b <= max; b++) sum += b;
    if (max >= 64) sum += 64;
    if (max >= 128) sum += 128;
    uint64_t last = max >= 128 ? 128 : max >= 64 ? 64 : max >= 32 ? 32 : max;
    for (uint64_t b = 256; b <= max; b *= 2) {
        sum += b;
        last = b;
    }
    if (last != max) sum += max;
    return sum;
}

/* The attention workspace TRT-LLM's AttentionOp grows to for a context pass of
 * T tokens: at least the post-RoPE Q, T x Hq/tp x D (MLA: the up-projected
 * K and V staged for context, T x Hq/tp x (nope + rope + v)) (§2.3). */
static uint64_t attention_workspace(tctx *c, const kvp__arch *a, uint64_t T, uint32_t tp,
                                    uint32_t b, uint32_t e) {
    uint64_t best = 0;
    for (uint32_t l = b; l < e && l < a->layers; l++) {
        const kvp__layer_arch *L = &a->layer[l];
        uint64_t hq = cdiv(L->q_heads, tp), w = 0;
        if (L->attention) w = mul3(c, T, hq, mul(c, L->k_head_dim, ACT));
        if (L->mla)
            w = mul3(c, T, hq,
                     mul(c, (uint64_t)a->qk_nope + a->qk_rope + a->v_head, ACT));
        best = max2(best, w);
    }
    return best;
}

static bool has_shared_stream(const kvp__arch *a, uint32_t b, uint32_t e) {
    if (!a->shared_inter) return false;
    for (uint32_t l = b; l < e && l < a->layers; l++)
        if (a->layer[l].ffn & KVP__FFN_MOE) return true;
    return false;
}

/* -------------------------------------------------------------- engines */

typedef struct rin {
    const kvp__arch *a;
    const kvp_estimate_settings *s;
    uint32_t tp, pp, b, e;
    uint64_t T, batch;
    kvp_estimate_detail *d;
} rin;

uint64_t kvp__dummy_request_tokens(const kvp_estimate_settings *s, uint64_t T) {
    /* _create_dummy_context_requests: requests of min(T, max_seq_len - 1) tokens. */
    return s->max_seq_len > 1 && s->max_seq_len - 1 < T ? s->max_seq_len - 1 : T;
}

/* TensorRT-LLM PyTorch backend (§2): the peak after the first executor's
 * warm-up counts torch's peak and everything else on the device. */
static void trtllm_terms(tctx *c, const rin *r) {
    const kvp__arch *a = r->a;
    const kvp_estimate_settings *s = r->s;
    char src[KVP_MEM_TERM_SOURCE_MAX];
    const char *ph = "none";
    uint64_t fwd = kvp__forward_peak(a, r->T, r->tp, r->b, r->e, &c->overflow, &ph);
    r->d->activation_layer_bytes = fwd;
    kvp__strlcpy(r->d->activation_phase, ph, sizeof r->d->activation_phase);
    snprintf(src, sizeof src, "dummy context requests of max_num_tokens %llu: %s (MEMORY.md 2.2)",
             (unsigned long long)r->T, ph);
    term(c, "forward_activations", fwd, KVP_MEM_EST_ACTIVATION, KVP_MEM_MARK_BOUNDED,
         KVP_MEM_CHARGE_PEAK, src);
    term(c, "attention_workspace", attention_workspace(c, a, r->T, r->tp, r->b, r->e),
         KVP_MEM_EST_ACTIVATION, KVP_MEM_MARK_BOUNDED, KVP_MEM_CHARGE_PEAK,
         "AttentionOp context workspace >= post-RoPE Q of max_num_tokens (2.3)");
    /* The dummy requests' last-token logits, fp32: ceil(T / L) requests of
     * L tokens (kvp__dummy_request_tokens). */
    uint64_t L = kvp__dummy_request_tokens(s, r->T);
    uint64_t nreq = cdiv(r->T, L ? L : 1);
    r->d->activation_logits_bytes = mul3(c, nreq, a->vocab, 4);
    term(c, "profile_logits", r->d->activation_logits_bytes, KVP_MEM_EST_ACTIVATION,
         KVP_MEM_MARK_EXACT, KVP_MEM_CHARGE_PEAK,
         "ceil(max_num_tokens / L) dummy requests x vocab x fp32 (2.2)");
    uint64_t streams = has_shared_stream(a, r->b, r->e) || a->kv_lora ? 2 : 1;
    snprintf(src, sizeof src, "PyTorch CublasHandlePool: %s per GEMM stream x %llu (0.3)%s",
             cc_of(s) == 90 ? "32 MiB" : "8.125 MiB", (unsigned long long)streams,
             c->hopper_assumed ? "; GPU unknown: Hopper" : "");
    term(c, "cublas_workspace", mul(c, cublas_bytes(s), streams), KVP_MEM_EST_ACTIVATION,
         KVP_MEM_MARK_EXACT, KVP_MEM_CHARGE_PEAK, src);

    term(c, "cuda_context", CONTEXT_BYTES, KVP_MEM_EST_NON_TORCH, KVP_MEM_MARK_ESTIMATED,
         KVP_MEM_CHARGE_PEAK, "CUDA context + lazily loaded kernel modules: no source size (0.2)");
    uint32_t ranks = r->tp * r->pp;
    if (ranks > 1) {
        uint64_t comms = (r->tp > 1 ? 1u : 0u) + (r->pp > 1 ? 1u : 0u);
        term(c, "nccl_rings", mul(c, nccl_ring_bytes(c, s, ranks), comms), KVP_MEM_EST_NON_TORCH,
             KVP_MEM_MARK_BOUNDED, KVP_MEM_CHARGE_PEAK,
             "channels x 9,633,792 B per communicator (NCCL computeBuffSizes, 0.4)");
    }
    if (r->tp > 1) {
        uint64_t nv = nvls_bytes(c, s, r->tp);
        if (nv)
            term(c, "nccl_nvls", nv, KVP_MEM_EST_NON_TORCH, KVP_MEM_MARK_BOUNDED,
                 KVP_MEM_CHARGE_PEAK, "nvlsChannels x 2 x 1 MiB x tp (NCCL nvls.cc, 0.4)");
        uint64_t ar = add(c, mul3(c, 4, TRT_AR_FUSION_SIZE, r->tp), mul(c, 256, r->tp));
        term(c, "allreduce_fusion_workspace", ar, KVP_MEM_EST_NON_TORCH, KVP_MEM_MARK_EXACT,
             KVP_MEM_CHARGE_PEAK, "4 x 64 MiB x tp + 256 B x tp (allreduce_helper.py, 2.5)");
    }
    if (!s->cuda_graphs) return;
    uint64_t gmax = s->cuda_graph_max_batch ? s->cuda_graph_max_batch : 128;
    if (gmax > r->batch) gmax = r->batch; /* capped at the executor's max_batch_size */
    uint32_t top = 0, n = graph_sizes(s, gmax, &top);
    r->d->cuda_graph_count = n;
    r->d->cuda_graph_max_batch = top;
    if (!n) return;
    /* The first executor's graphs are alive at the measurement: one pool sized
     * by the largest graph's live set, the logits every graph keeps as its
     * output, and each graph's driver memory (2.4, 0.5). */
    const char *gph = "none";
    uint64_t pool = kvp__forward_peak(a, top, r->tp, r->b, r->e, &c->overflow, &gph);
    snprintf(src, sizeof src, "live set of a %u-token decode forward, shared pool (2.4)", top);
    term(c, "cuda_graph_pool", pool, KVP_MEM_EST_CUDA_GRAPH, KVP_MEM_MARK_BOUNDED,
         KVP_MEM_CHARGE_PEAK, src);
    uint64_t rows = graph_rows(s, gmax);
    snprintf(src, sizeof src, "%llu rows over %u graphs x vocab x bf16 (0.5 b)",
             (unsigned long long)rows, n);
    uint64_t outs = mul3(c, rows, a->vocab, ACT);
    term(c, "cuda_graph_outputs", outs, KVP_MEM_EST_CUDA_GRAPH, KVP_MEM_MARK_BOUNDED,
         KVP_MEM_CHARGE_PEAK, src);
    snprintf(src, sizeof src, "%u graphs x 1 MiB floor (driver part, 0.5 c)", n);
    uint64_t exec = mul(c, n, GRAPH_FLOOR);
    term(c, "cuda_graph_exec", exec, KVP_MEM_EST_CUDA_GRAPH, KVP_MEM_MARK_BOUNDED,
         KVP_MEM_CHARGE_PEAK, src);
    /* After the KV pool exists the second executor captures again (2.6). */
    term(c, "second_graph_capture", add(c, add(c, pool, outs), exec), 0, KVP_MEM_MARK_BOUNDED,
         KVP_MEM_CHARGE_HEADROOM, "graphs re-captured after the KV pool (2.6)");
    snprintf(src, sizeof src, "max_batch_size %llu rows x vocab x (fp32 logits + probs) (2.6)",
             (unsigned long long)r->batch);
    term(c, "decode_sampler", mul3(c, r->batch, a->vocab, TRT_DECODE_SAMPLER_PER_LOGIT), 0,
         KVP_MEM_MARK_BOUNDED, KVP_MEM_CHARGE_HEADROOM, src);
}

/* Shared by vLLM and SGLang: the graph capture sizes for the engine's list. */
static void vllm_terms(tctx *c, const rin *r) {
    const kvp__arch *a = r->a;
    const kvp_estimate_settings *s = r->s;
    char src[KVP_MEM_TERM_SOURCE_MAX];
    uint64_t seqs = r->batch;
    /* profile_run: the layer stack at T tokens (no attention kernel) and the
     * dummy sampler over R = min(max_num_seqs, T) rows, full vocabulary on every
     * rank (logits all-gathered), with hidden states [T, h] alive (1.2-1.4). */
    const char *ph = "none";
    uint64_t fwd = kvp__forward_peak(a, r->T, r->tp, r->b, r->e, &c->overflow, &ph);
    uint64_t R = s->sampler_rows ? s->sampler_rows : seqs;
    if (R > r->T) R = r->T;
    uint64_t per = s->sampler_bytes_per_logit ? s->sampler_bytes_per_logit : VLLM_SAMPLER_PER_LOGIT;
    uint64_t hidden = mul3(c, r->T, a->hidden, ACT);
    uint64_t samp = add(c, mul3(c, R, a->vocab, per), hidden);
    r->d->activation_layer_bytes = fwd;
    r->d->activation_logits_bytes = samp;
    kvp__strlcpy(r->d->activation_phase, samp > fwd ? "logits" : ph,
                 sizeof r->d->activation_phase);
    if (samp > fwd)
        snprintf(src, sizeof src, "dummy sampler: %llu rows x vocab x %llu B + hidden [T, h] (1.4)",
                 (unsigned long long)R, (unsigned long long)per);
    else
        snprintf(src, sizeof src, "layer stack at max_num_batched_tokens %llu: %s (1.2)",
                 (unsigned long long)r->T, ph);
    term(c, "profile_peak", max2(fwd, samp), KVP_MEM_EST_ACTIVATION, KVP_MEM_MARK_BOUNDED,
         KVP_MEM_CHARGE_PEAK, src);
    bool shared = has_shared_stream(a, r->b, r->e) && r->T > 256;
    snprintf(src, sizeof src, "PyTorch CublasHandlePool: %s x %d stream%s (0.3)%s",
             cc_of(s) == 90 ? "32 MiB" : "8.125 MiB", shared ? 2 : 1,
             shared ? "s (shared experts)" : "", c->hopper_assumed ? "; GPU unknown: Hopper" : "");
    term(c, "cublas_workspace", mul(c, cublas_bytes(s), shared ? 2 : 1), KVP_MEM_EST_ACTIVATION,
         KVP_MEM_MARK_EXACT, KVP_MEM_CHARGE_PEAK, src);

    /* Before the init snapshot: in the 1 - u headroom, never subtracted (1.1). */
    term(c, "cuda_context", CONTEXT_BYTES, 0, KVP_MEM_MARK_ESTIMATED, KVP_MEM_CHARGE_UNCHARGED,
         "CUDA context, before vLLM's init snapshot: not charged (1.1, 0.2)");
    if (r->tp * r->pp > 1)
        term(c, "nccl_rings", nccl_ring_bytes(c, s, r->tp * r->pp), 0, KVP_MEM_MARK_BOUNDED,
             KVP_MEM_CHARGE_UNCHARGED, "connected by the init warm-up, before the snapshot (1.6)");
    /* After the snapshot: the non-torch increase (1.6). */
    if (r->tp == 2 || r->tp == 4 || r->tp == 6 || r->tp == 8)
        term(c, "custom_allreduce", 2 * CUSTOM_AR_MAX_SIZE, KVP_MEM_EST_NON_TORCH,
             KVP_MEM_MARK_EXACT, KVP_MEM_CHARGE_PEAK,
             "meta + data IPC buffers of max_size 8 MiB, finalize_p2p (2026, 1.6)");
    uint64_t nv = nvls_bytes(c, s, r->tp);
    if (nv)
        term(c, "nccl_nvls", nv, KVP_MEM_EST_NON_TORCH, KVP_MEM_MARK_BOUNDED, KVP_MEM_CHARGE_PEAK,
             "NVLS connected by the profile's large all-reduce (1.6, 0.4)");
    if (!s->cuda_graphs) return;
    /* >= 0.21: profile_cudagraph_memory. max = min(2 x max_num_seqs, 512),
     * capped at max_num_batched_tokens; FULL_AND_PIECEWISE: piecewise graphs for
     * every size, full graphs for sizes <= max_num_seqs (1.7). */
    uint64_t gmax = s->cuda_graph_max_batch ? s->cuda_graph_max_batch
                                            : (2 * seqs < 512 ? 2 * seqs : 512);
    if (gmax > r->T) gmax = r->T;
    uint32_t top = 0, n = graph_sizes(s, gmax, &top);
    uint32_t top_full = 0, n_full = graph_sizes(s, seqs < gmax ? seqs : gmax, &top_full);
    r->d->cuda_graph_count = n;
    r->d->cuda_graph_max_batch = top;
    if (!n) return;
    const char *gph = "none";
    uint64_t first = kvp__forward_peak(a, top, r->tp, r->b, r->e, &c->overflow, &gph);
    snprintf(src, sizeof src, "first capture: live set of a %u-token forward (1.7)", top);
    term(c, "cuda_graph_first", first, KVP_MEM_EST_CUDA_GRAPH, KVP_MEM_MARK_BOUNDED,
         KVP_MEM_CHARGE_PEAK, src);
    uint64_t rest = mul(c, (uint64_t)(n - 1) + (n_full ? n_full - 1 : 0), GRAPH_FLOOR);
    snprintf(src, sizeof src, "(%u piecewise - 1 + %u full - 1) x max(g, 1 MiB) (1.7)", n, n_full);
    term(c, "cuda_graph_rest", rest, KVP_MEM_EST_CUDA_GRAPH, KVP_MEM_MARK_BOUNDED,
         KVP_MEM_CHARGE_PEAK, src);
}

/* SGLang (§3): no profile. What exists before the pre-load free-memory
 * reading shrinks X; the rest must fit in X x (1 - mem_fraction_static). */
static void sglang_terms(tctx *c, const rin *r) {
    const kvp__arch *a = r->a;
    const kvp_estimate_settings *s = r->s;
    char src[KVP_MEM_TERM_SOURCE_MAX];
    term(c, "cuda_context", CONTEXT_BYTES, KVP_MEM_EST_NON_TORCH, KVP_MEM_MARK_ESTIMATED,
         KVP_MEM_CHARGE_PEAK, "CUDA context, before pre_model_load_memory (3.2, 0.2)");
    if (r->tp * r->pp > 1) {
        uint64_t comms = (r->tp > 1 ? 1u : 0u) + (r->pp > 1 ? 1u : 0u);
        term(c, "nccl_init", mul(c, add(c, nccl_ring_bytes(c, s, r->tp * r->pp), NCCL_WORK_FIFO), comms),
             KVP_MEM_EST_NON_TORCH, KVP_MEM_MARK_BOUNDED, KVP_MEM_CHARGE_PEAK,
             "pynccl init + warm-up ring, before pre_model_load_memory (3.2, 0.4)");
    }
    if (r->tp > 1)
        term(c, "custom_allreduce", 3 * CUSTOM_AR_MAX_SIZE, KVP_MEM_EST_NON_TORCH,
             KVP_MEM_MARK_EXACT, KVP_MEM_CHARGE_PEAK,
             "8 MiB data + 8 MiB meta + 8 MiB rank data, with the TP group (3.2)");
    /* After the pool (ModelRunner.initialize order, 3.3). */
    const char *ph = "none";
    uint64_t fwd = kvp__forward_peak(a, r->T, r->tp, r->b, r->e, &c->overflow, &ph);
    r->d->activation_layer_bytes = fwd;
    kvp__strlcpy(r->d->activation_phase, ph, sizeof r->d->activation_phase);
    snprintf(src, sizeof src, "a chunked_prefill_size %llu forward: %s (3.3)",
             (unsigned long long)r->T, ph);
    term(c, "prefill_activations", fwd, 0, KVP_MEM_MARK_BOUNDED, KVP_MEM_CHARGE_HEADROOM, src);
    if (!s->cuda_graphs) return;
    uint64_t gmax = s->cuda_graph_max_batch ? s->cuda_graph_max_batch : (r->batch ? r->batch : 256);
    uint32_t top = 0, n = graph_sizes(s, gmax, &top);
    r->d->cuda_graph_count = n;
    r->d->cuda_graph_max_batch = top;
    if (!n) return;
    const char *gph = "none";
    uint64_t g = add(c, kvp__forward_peak(a, top, r->tp, r->b, r->e, &c->overflow, &gph),
                     mul(c, n, GRAPH_FLOOR));
    snprintf(src, sizeof src, "%u graphs up to cuda_graph_max_bs %u: pool + 1 MiB each (3.3)", n,
             top);
    term(c, "cuda_graphs", g, 0, KVP_MEM_MARK_BOUNDED, KVP_MEM_CHARGE_HEADROOM, src);
    snprintf(src, sizeof src, "%u rows x vocab x (bf16 + fp32 logits) (3.3)", top);
    term(c, "sampler", mul3(c, top, a->vocab, 6), 0, KVP_MEM_MARK_BOUNDED,
         KVP_MEM_CHARGE_HEADROOM, src);
}

/* llama.cpp (§4): the compute buffer of the worst-case graph of n_ubatch
 * tokens, every token an output; the context sits in --fit-target's margin. */
static void llamacpp_terms(tctx *c, const rin *r) {
    const kvp__arch *a = r->a;
    char src[KVP_MEM_TERM_SOURCE_MAX];
    const char *ph = "none";
    uint64_t fwd = kvp__forward_peak(a, r->T, r->tp, r->b, r->e, &c->overflow, &ph);
    uint64_t logits = mul3(c, r->T, a->vocab, 4);
    r->d->activation_layer_bytes = fwd;
    r->d->activation_logits_bytes = logits;
    kvp__strlcpy(r->d->activation_phase, logits > fwd ? "logits" : ph,
                 sizeof r->d->activation_phase);
    snprintf(src, sizeof src, "worst-case graph of n_ubatch %llu tokens: max(%s, logits) (4)",
             (unsigned long long)r->T, ph);
    term(c, "compute_buffer", max2(fwd, logits), KVP_MEM_EST_ACTIVATION, KVP_MEM_MARK_BOUNDED,
         KVP_MEM_CHARGE_PEAK, src);
    term(c, "cuda_context", CONTEXT_BYTES, KVP_MEM_EST_NON_TORCH, KVP_MEM_MARK_ESTIMATED,
         KVP_MEM_CHARGE_PEAK, "CUDA context and kernel modules (4, 0.2)");
}

kvp_status kvp__runtime_terms(const kvp__arch *a, const kvp_estimate_settings *s, uint32_t tp,
                              uint32_t pp, uint64_t T, uint64_t batch, uint32_t begin,
                              uint32_t end, kvp_memory_facts *out, kvp_estimate_detail *d,
                              kvp_error *err) {
    tctx c = {out, false, s->compute_capability == 0};
    rin r = {a, s, tp, pp, begin, end, T, batch, d};
    d->activation_tokens = T;
    out->activation_bytes = out->non_torch_bytes = out->cuda_graph_bytes = 0;
    out->headroom_need_bytes = 0;
    out->term_count = 0;
    switch (s->engine) {
    case KVP_ESTIMATE_VLLM: vllm_terms(&c, &r); break;
    case KVP_ESTIMATE_SGLANG: sglang_terms(&c, &r); break;
    case KVP_ESTIMATE_LLAMACPP: llamacpp_terms(&c, &r); break;
    default: trtllm_terms(&c, &r); break;
    }
    /* A part with no charged term is still the estimate's (zero), not a measurement. */
    out->estimated |= KVP_MEM_EST_ACTIVATION | KVP_MEM_EST_NON_TORCH;
    if (s->cuda_graphs) out->estimated |= KVP_MEM_EST_CUDA_GRAPH;
    else if (s->engine != KVP_ESTIMATE_LLAMACPP) {
        /* Said, not estimated: the part's bit stays clear (nothing to replace). */
        term(&c, "cuda_graphs", 0, KVP_MEM_EST_CUDA_GRAPH, KVP_MEM_MARK_EXACT, KVP_MEM_CHARGE_PEAK,
             "none captured (--enforce-eager, or a largest graph batch of 0)");
        out->estimated &= ~(uint32_t)KVP_MEM_EST_CUDA_GRAPH;
    }
    if (c.overflow)
        return kvp__fail(err, KVP_OVERFLOW, a->source, "max_num_tokens",
                         "start-up memory estimate at %llu tokens overflows 64 bits",
                         (unsigned long long)T);
    return KVP_OK;
}
