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
    t->under_load = false;
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

/* The term just added is allocated only when requests run, not at start-up. */
static void under_load(tctx *c) {
    if (c->f->term_count) c->f->terms[c->f->term_count - 1].under_load = true;
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
        if (s->engine_version && s->engine_version < 504) {
            /* Mid-2025 cuda_graph_runner.get_batch_sizes_to_capture (7.8): [1, 2, 4, 8]
             * + 16..160 step 8, + 168..256 step 8 above 96 GiB, + 272..512 step 16
             * above 180 GB. */
            SIZE(1);
            SIZE(2);
            SIZE(4);
            SIZE(8);
            for (uint32_t b = 16; b <= 160; b += 8) SIZE(b);
            if (s->total_bytes > (96ull << 30))
                for (uint32_t b = 168; b <= 256; b += 8) SIZE(b);
            if (s->total_bytes > 180000000000ull)
                for (uint32_t b = 272; b <= 512; b += 16) SIZE(b);
            break;
        }
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
    under_load(c); /* decode-time sampling of a full batch (2.6) */
}

/* ------------------------------------------------------------ vLLM release lines */

/* Which top-k/top-p kernel the dummy sampler runs (MEMORY.md 1.4, 7.1). */
typedef enum vsamp { VS_FLASHINFER = 0, VS_SORT, VS_TRITON } vsamp;
/* What vLLM's non-torch figure holds (MEMORY.md 7.2): everything on the device
 * (V0 <= 0.7.1, V1 0.8), the growth over a snapshot taken before the
 * distributed init (V0 0.7.2-0.10, V1 0.9-0.10), or the growth after it. */
typedef enum vnt { NT_ALL = 0, NT_BEFORE_DIST, NT_AFTER } vnt;

/* Release boundaries, kvp__policy_version's encoding (X*10000 + Y*100 + Z). */
#define V_V1_DEFAULT 800u     /* V1 the default engine (0.8.0) */
#define V_V0_SNAPSHOT 702u    /* V0 determine_num_available_blocks with a baseline (0.7.2) */
#define V_V1_SNAPSHOT 900u    /* V1 MemorySnapshot before the distributed init (~0.9) */
#define V_AFTER_DIST 1100u    /* "Initialize the distributed environment BEFORE taking memory
                                 snapshot" [uncertain: ~0.11] */
#define V_NEW_GRAPHS 1100u    /* _set_cudagraph_sizes list, FULL_AND_PIECEWISE (~0.11) */
#define V_SORT_FROM 1101u     /* PR #26859: FlashInfer sampler off by default (0.11.1) */
#define V_FI_DEP 1002u        /* flashinfer-python a pip dependency of vLLM on CUDA
                                 (requirements/cuda.txt) [inferred: 0.10.2; the references
                                 leave pip-install presence uncertain, MEMORY.md 7.1] */
#define V_SYMM_MEM 1000u      /* VLLM_ALLREDUCE_USE_SYMM_MEM=1 in every 2025-26 envs.py
                                 [uncertain: first release] */
#define V_2026 1400u          /* the 2026 releases: custom all-reduce buffers deferred to
                                 finalize_p2p [uncertain: 0.14.0, January 2026] */
#define V_TRITON_FROM 1800u   /* PR #33538: Triton top-k/top-p (page in the v0.18.0 docs) */
#define V_FI_FUSION 1800u     /* FlashInfer AR+RMSNorm fusion on at -O2 (v0.18.2 fusion doc;
                                 False in v0.12.0 / v0.14.1 OPTIMIZATION_LEVEL_02) */
#define V_GRAPHS 2100u        /* profile_cudagraph_memory "default since v0.21.0" */
#define V_FI_AGAIN 2100u      /* PR #40376: VLLM_USE_FLASHINFER_SAMPLER on (opt-in in v0.18.2
                                 docs, on in v0.22.1) [uncertain: taken with 0.21] */

typedef struct vline {
    const char *range;     /* the line, as docs/memory.md titles it */
    bool v0;
    vsamp sampler;
    bool sampler_sure;     /* the kernel path is pinned for this line */
    vnt nontorch;
    bool graphs_charged;   /* >= 0.21: subtracted before sizing */
    bool old_graph_list;   /* V0 / V1 <= 0.10: [1, 2, 4] + multiples of 8 */
    bool custom_ar_after;  /* 2026: custom all-reduce IPC buffers after the snapshot */
    bool symm_mem;
    bool fi_fusion;
} vline;

static vline vllm_line_default(const kvp_estimate_settings *s) {
    vline L;
    memset(&L, 0, sizeof L);
    uint32_t v = s->engine_version;
    L.v0 = s->engine_v0 || (v && v < V_V1_DEFAULT);
    if (L.v0) {
        /* V0 samples with the PyTorch sort path (FlashInfer only with
         * VLLM_USE_FLASHINFER_SAMPLER=1), graphs after the KV cache (7.3, 7.5). */
        uint32_t e = v ? v : 1000u; /* V0 without a release: its last line (0.10) */
        L.range = e < V_V0_SNAPSHOT ? "V0 <= 0.7.1" : "V0 0.7.2-0.10";
        L.sampler = VS_SORT;
        L.sampler_sure = true;
        L.nontorch = e < V_V0_SNAPSHOT ? NT_ALL : NT_BEFORE_DIST;
        L.old_graph_list = true;
        L.symm_mem = e >= V_SYMM_MEM;
        return L;
    }
    uint32_t e = v ? v : UINT32_MAX;
    /* Up to 0.11.0 TopKTopPSampler takes FlashInfer when it imports, else falls
     * back to the PyTorch sort ("FlashInfer is not available. Falling back to
     * the PyTorch-native implementation"). Before FlashInfer was a pip
     * dependency a pip install has none: the sort runs (a Docker image has
     * FlashInfer: its peak is lower, so the sort bounds it from above). */
    L.sampler = e < V_FI_DEP ? VS_SORT : e < V_SORT_FROM ? VS_FLASHINFER
                : e < V_TRITON_FROM ? VS_SORT : e < V_FI_AGAIN ? VS_TRITON : VS_FLASHINFER;
    L.sampler_sure = e >= V_SORT_FROM;
    L.nontorch = e < V_V1_SNAPSHOT ? NT_ALL : e < V_AFTER_DIST ? NT_BEFORE_DIST : NT_AFTER;
    L.graphs_charged = e >= V_GRAPHS;
    L.old_graph_list = e < V_NEW_GRAPHS;
    L.custom_ar_after = e >= V_2026;
    L.symm_mem = e >= V_SYMM_MEM;
    L.fi_fusion = e >= V_FI_FUSION;
    L.range = e < V_V1_SNAPSHOT      ? "V1 0.8"
              : e < V_AFTER_DIST     ? "V1 0.9-0.10"
              : e < V_SORT_FROM      ? "V1 0.11.0"
              : e < V_2026           ? "V1 0.11.1-0.13 (sort sampler)"
              : e < V_TRITON_FROM    ? "2026: 0.14-0.17 (sort sampler)"
              : e < V_GRAPHS         ? "2026: 0.18-0.20 (Triton sampler)"
                                     : ">= 0.21 (graphs profiled, FlashInfer sampler)";
    return L;
}

/* The line, with VLLM_USE_FLASHINFER_SAMPLER where the user's environment sets
 * it (envs.py: bool(int(...)), None when unset = the line's default; MEMORY.md
 * 7.1): 1 takes FlashInfer on every line (it must be installed: a line that
 * only uses it when it imports stays unpinned), 0 the path without it. */
static vline vllm_line(const kvp_estimate_settings *s) {
    vline L = vllm_line_default(s);
    uint32_t e = s->engine_version ? s->engine_version : UINT32_MAX;
    if (s->flashinfer_sampler > 0) {
        L.sampler = VS_FLASHINFER;
        L.sampler_sure = !L.v0 && e >= V_SORT_FROM;
    } else if (s->flashinfer_sampler < 0 && L.sampler == VS_FLASHINFER) {
        L.sampler = !L.v0 && e >= V_TRITON_FROM ? VS_TRITON : VS_SORT;
        L.sampler_sure = true;
    }
    return L;
}

/* Bytes per [R, V] element the sampler path keeps beside the logits (b_act)
 * and their fp32 copy (4) at its peak (MEMORY.md 7.1). */
static uint64_t sampler_extra(vsamp p, uint64_t R) {
    if (p == VS_TRITON && R < 8) p = VS_SORT; /* Triton only for R >= 8 */
    if (p != VS_SORT) return 8;               /* probs 4 + noise 4 (FlashInfer: renorm + probs) */
    /* logits.sort: fp32 values 4 + int64 indices 8; R >= 128 segmented sort: int64
     * reverse indices 8 + CUB keys 4 + values 8; 2 <= R < 128 full sort: 2 int2
     * arrays 16 + keys-out 4 + CUB 12 [inferred: CUB not read]. */
    return R >= 2 && R < 128 ? 44 : 32;
}

static const char *sampler_name(vsamp p, uint64_t R) {
    if (p == VS_TRITON && R < 8) return "sort (Triton needs R >= 8)";
    return p == VS_SORT ? "PyTorch sort" : p == VS_TRITON ? "Triton" : "FlashInfer";
}

/* CUSTOM_ALL_REDUCE_MAX_SIZES / SYMM_MEM_ALL_REDUCE_MAX_SIZES (all_reduce_utils.py,
 * MEMORY.md 1.6): per compute capability and TP size; 0 = none. */
static uint64_t ar_table(uint32_t cc, uint32_t tp, bool symm) {
    static const struct {
        uint32_t cc;
        uint64_t custom[4], symm[4]; /* tp 2, 4, 6, 8 */
    } k[] = {
        {90, {64 * MIB, 32 * MIB, 512 * 1024, 256 * 1024}, {64 * MIB, 32 * MIB, 64 * MIB, 64 * MIB}},
        {100, {2 * MIB, 2 * MIB, 1 * MIB, 1 * MIB}, {8 * MIB, 32 * MIB, 128 * MIB, 128 * MIB}},
        {103, {4 * MIB, 4 * MIB, 8 * MIB, 4 * MIB}, {4 * MIB, 32 * MIB, 32 * MIB, 64 * MIB}},
    };
    if (tp != 2 && tp != 4 && tp != 6 && tp != 8) return 0;
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        if (k[i].cc == cc) return symm ? k[i].symm[tp / 2 - 1] : k[i].custom[tp / 2 - 1];
    return 0;
}

static uint64_t round2m(tctx *c, uint64_t x) { return mul(c, cdiv(x, 2 * MIB), 2 * MIB); }

/* FlashInfer all-reduce + RMSNorm fusion IPC workspace per rank
 * (trtllm_create_ipc_workspace_for_all_reduce_fusion, MEMORY.md 7.2):
 * r2(tp M) + r2(tp 1 KiB) + r2(3 tp M), M = 2h min(MB[cc][tp] MiB / 2h, T). */
static uint64_t fi_fusion_bytes(tctx *c, const kvp__arch *a, uint32_t cc, uint32_t tp, uint64_t T) {
    uint64_t mb = 0;
    if (cc == 90) mb = tp == 2 ? 64 : tp == 4 ? 2 : tp == 8 ? 1 : 0;
    else if (cc >= 100 && cc < 110) mb = tp == 2 ? 64 : tp == 4 ? 32 : tp == 8 ? 1 : 0;
    if (!mb || !a->hidden) return 0;
    uint64_t row = mul(c, a->hidden, ACT);
    uint64_t rows = mul(c, mb, MIB) / row;
    if (rows > T) rows = T;
    uint64_t M = mul(c, rows, row);
    return add(c, add(c, round2m(c, mul(c, tp, M)), round2m(c, mul(c, tp, 1024))),
               round2m(c, mul3(c, 3, tp, M)));
}

/* vLLM's old capture list: [1, 2, 4] + multiples of 8 up to max (V1 <= 0.10:
 * range(8, N + 1, 8); V0: up to the first size >= max_num_seqs). */
static uint32_t old_graph_sizes(const kvp_estimate_settings *s, uint64_t max, bool v0,
                                uint32_t *out_max) {
    if (s->cuda_graph_size_count) return graph_sizes(s, max, out_max);
    uint32_t n = 0, mx = 0;
    static const uint32_t head[] = {1, 2, 4};
    for (size_t i = 0; i < 3; i++)
        if (head[i] <= max || (v0 && mx < max)) {
            n++;
            mx = head[i];
        }
    for (uint64_t b = 8; b <= 8192 && (b <= max || (v0 && mx < max)); b += 8) {
        n++;
        mx = (uint32_t)b;
    }
    *out_max = mx;
    return n;
}

/* The line's name for the plan: "vLLM V1 0.11.1-0.13 (sort sampler), --engine-version 0.12.0". */
static void line_name(kvp_memory_facts *f, const char *engine, const char *range,
                      const kvp_estimate_settings *s) {
    if (s->engine_version || s->engine_v0) {
        unsigned v = s->engine_version;
        if (v)
            snprintf(f->release_line, sizeof f->release_line, "%s %s (release %u.%u.%u)", engine,
                     range, v / 10000, v / 100 % 100, v % 100);
        else
            snprintf(f->release_line, sizeof f->release_line, "%s %s", engine, range);
    } else {
        snprintf(f->release_line, sizeof f->release_line, "%s %s: latest, no --engine-version",
                 engine, range);
    }
}

/* A term kept only as one phase of the peak listed before it. */
static void phase(tctx *c, const char *name, uint64_t bytes, kvp_mem_mark mark, const char *src) {
    term(c, name, bytes, 0, mark, KVP_MEM_CHARGE_PHASE, src);
}

/* vLLM V1's multimodal encoder profile (MEMORY.md 7.4, gpu_model_runner
 * profile_run): before the LM pass the encoder runs once on `items` dummies of
 * the modality with the most tokens per item, and its outputs stay in the
 * encoder cache through _dummy_run(T) and the sampler. */
typedef struct mm_profile {
    uint64_t items;   /* 0: not profiled here, or tokens per item unknown */
    uint64_t outputs; /* items x tok x D x 2 B, alive at the LM peak */
    uint64_t tower;   /* the tower's own transient forward on the items */
} mm_profile;

/* vLLM's default limit_mm_per_prompt for a modality not given (MultiModalConfig
 * get_limit_per_prompt: "set to 999 by default"). */
#define MM_LIMIT_PER_PROMPT 999ull

static void vllm_v1_items(tctx *c, const rin *r, uint64_t seqs, uint64_t tok, mm_profile *m);

static mm_profile vllm_mm_profile(tctx *c, const rin *r, uint64_t seqs, bool v0) {
    const kvp__arch *a = r->a;
    mm_profile m = {0, 0, 0};
    uint64_t tok = a->vision_tokens;
    if (!a->vision_params || r->s->skip_mm_profiling || !tok) return m;
    if (v0) {
        /* V0 profile_run (7.3): min(max_num_seqs, T // max_mm_tokens) sequences,
         * at least 1, each with one dummy item (V0's limit per prompt); the
         * encoder runs inside the model's forward and its outputs become the
         * sequences' input embeddings: no cache kept beside the LM pass. */
        uint64_t n = r->T / tok;
        m.items = n < seqs ? n : seqs;
        if (!m.items) m.items = 1;
    } else {
        vllm_v1_items(c, r, seqs, tok, &m);
    }
    /* The tower's forward on items x patches [inferred from its blocks, as the
     * LM's layer peak (1.2)]: the residual stream and the normed input [P, H],
     * then the larger of the MLP (fc1 [P, I/tp] and its activation, or the
     * activation and fc2's [P, H]) and attention (qkv [P, 3H/tp], its output
     * [P, H/tp] and o_proj's [P, H]). */
    uint64_t P = mul(c, m.items, a->vision_patches);
    if (!P) return m;
    uint64_t H = a->vision_hidden, Ir = cdiv(a->vision_inter, r->tp), Hr = cdiv(H, r->tp);
    uint64_t resid = mul3(c, 2 * P, H, ACT);
    uint64_t mlp = mul3(c, P, max2(2 * Ir, Ir + H), ACT);
    uint64_t attn = mul3(c, P, add(c, 4 * Hr, H), ACT);
    m.tower = add(c, resid, max2(mlp, attn));
    return m;
}

/* V1's items and the outputs they leave in the encoder cache (7.4). */
static void vllm_v1_items(tctx *c, const rin *r, uint64_t seqs, uint64_t tok, mm_profile *m) {
    const kvp__arch *a = r->a;
    /* compute_mm_encoder_budget: max(encoder input tokens, tok) and max(encoder
     * cache, tok), both max_num_batched_tokens by default; the smaller is the
     * budget. _get_max_items: min(budget // tok, max_num_seqs x max(1,
     * min(limit, max_model_len // tok))), at least 1. max_model_len // tok is
     * not read: vLLM's own check max_num_batched_tokens <= max_num_seqs x
     * max_model_len keeps that side at or above budget // tok but for rounding. */
    uint64_t budget = max2(r->T, tok);
    uint64_t per_prompt = mul(c, seqs ? seqs : 1, MM_LIMIT_PER_PROMPT);
    uint64_t items = budget / tok < per_prompt ? budget / tok : per_prompt;
    m->items = items ? items : 1;
    m->outputs = mul(c, mul3(c, m->items, tok, a->vision_out_width), ACT);
}

/* The encoder profile's lines under the profile peak. */
static void vllm_mm_phases(tctx *c, const rin *r, const mm_profile *m, bool v0) {
    const kvp__arch *a = r->a;
    char src[KVP_MEM_TERM_SOURCE_MAX];
    if (!a->vision_params) return;
    if (v0) {
        if (!m->tower) return;
        snprintf(src, sizeof src,
                 "[inferred] V0: %llu sequences x 1 item x %llu patches: the tower's block peak (7.3)",
                 (unsigned long long)m->items, (unsigned long long)a->vision_patches);
        phase(c, "mm_encoder_forward", m->tower, KVP_MEM_MARK_ESTIMATED, src);
        return;
    }
    if (r->s->skip_mm_profiling) {
        phase(c, "mm_encoder_outputs", 0, KVP_MEM_MARK_EXACT,
              "--skip-mm-profiling: the encoder is not profiled (7.4)");
        return;
    }
    if (!m->items) {
        phase(c, "mm_encoder_outputs", 0, KVP_MEM_MARK_ESTIMATED,
              "not counted: tokens per item are the processor's, not in config.json (7.4)");
        return;
    }
    snprintf(src, sizeof src,
             "%llu items x %llu tok (mm_tokens_per_image) x D %llu x 2 B, alive in the LM "
             "pass (7.4)",
             (unsigned long long)m->items, (unsigned long long)a->vision_tokens,
             (unsigned long long)a->vision_out_width);
    phase(c, "mm_encoder_outputs", m->outputs, KVP_MEM_MARK_EXACT, src);
    if (!m->tower) return;
    snprintf(src, sizeof src,
             "[inferred] %llu items x %llu patches: the tower's block peak, before the LM "
             "pass (7.4)",
             (unsigned long long)m->items, (unsigned long long)a->vision_patches);
    phase(c, "mm_encoder_forward", m->tower, KVP_MEM_MARK_ESTIMATED, src);
}

/* vLLM: the profile run and what the line charges beside it (MEMORY.md 1, 7). */
static void vllm_terms(tctx *c, const rin *r) {
    const kvp__arch *a = r->a;
    const kvp_estimate_settings *s = r->s;
    const vline L = vllm_line(s);
    line_name(c->f, "vLLM", L.range, s);
    char src[KVP_MEM_TERM_SOURCE_MAX];
    uint64_t seqs = r->batch;
    uint32_t cc = cc_of(s);
    /* profile_run: the layer stack at T tokens (no attention kernel), the logits
     * of R rows and the dummy sampler over them, hidden states [T, h] alive
     * (1.2-1.4). V1 all-gathers the logits (every rank holds [R, V]); V0 gathers
     * them to rank 0, whose block count is the minimum (7.1). V0 runs
     * max_num_seqs prompts of T / R tokens (7.3). */
    const char *ph = "none";
    uint64_t fwd = kvp__forward_peak(a, r->T, r->tp, r->b, r->e, &c->overflow, &ph);
    mm_profile mm = vllm_mm_profile(c, r, seqs, L.v0);
    uint64_t R = s->sampler_rows ? s->sampler_rows : seqs;
    if (R > r->T && !L.v0) R = r->T;
    if (L.v0 && mm.items && !s->sampler_rows) R = mm.items; /* V0: the MM sequences (7.3) */
    uint64_t hidden = mul3(c, r->T, a->hidden, ACT);
    uint64_t extra = sampler_extra(L.sampler, R);
    uint64_t per = s->sampler_bytes_per_logit ? s->sampler_bytes_per_logit : ACT + 4 + extra;
    uint64_t samp = add(c, mul3(c, R, a->vocab, per), hidden);
    /* LogitsProcessor: lm_head output [R, V_pad / tp] (V_pad: 64 per rank), and
     * under TP the all-gather buffer [tp, R, V_pad / tp] and its reshaped copy;
     * the logits processors are no-ops for the dummy's parameters (1.3, 1.4). */
    uint64_t vpad = mul(c, cdiv(a->vocab, 64ull * r->tp), 64ull * r->tp);
    uint64_t logits = mul3(c, R, vpad / r->tp, ACT);
    if (r->tp > 1) logits = add(c, logits, mul3(c, 2 * R, vpad, ACT));
    logits = add(c, logits, hidden);
    /* A pooling runner runs _dummy_pooler_run instead of compute_logits and the
     * dummy sampler (gpu_model_runner.profile_run; MEMORY.md 1.4): every task's
     * pooled output, the largest kept, is at most the hidden states [T, h]. */
    if (s->pooling_runner) samp = logits = hidden;
    uint64_t lm_peak = max2(max2(fwd, samp), logits);
    uint64_t peak = max2(add(c, lm_peak, mm.outputs), mm.tower);
    bool encoder_peak = mm.tower && peak == mm.tower;
    r->d->activation_layer_bytes = fwd;
    r->d->activation_logits_bytes = samp;
    kvp__strlcpy(r->d->activation_phase,
                 encoder_peak          ? "vision encoder"
                 : lm_peak == fwd      ? ph
                 : s->pooling_runner   ? "pooler"
                                       : "logits",
                 sizeof r->d->activation_phase);
    bool samp_sure = L.sampler_sure && (L.sampler != VS_SORT) && !s->sampler_bytes_per_logit;
    snprintf(src, sizeof src, "profile_run at max_num_batched_tokens %llu: %s (1.2%s)",
             (unsigned long long)r->T,
             encoder_peak ? "the encoder's forward"
             : mm.outputs ? "largest LM phase + mm_encoder_outputs"
                          : "largest phase below",
             mm.outputs ? ", 7.4" : "");
    term(c, "profile_peak", peak, KVP_MEM_EST_ACTIVATION,
         encoder_peak ? KVP_MEM_MARK_ESTIMATED : KVP_MEM_MARK_BOUNDED,
         KVP_MEM_CHARGE_PEAK, src);
    snprintf(src, sizeof src, "%s%llu tokens: %s (_dummy_run, no attention kernel, 1.2)",
             L.v0 ? "V0: " : "", (unsigned long long)r->T, ph);
    phase(c, "profile_forward", fwd, KVP_MEM_MARK_BOUNDED, src);
    if (s->pooling_runner) {
        phase(c, "dummy_pooler", samp, KVP_MEM_MARK_BOUNDED,
              "--runner pooling: _dummy_pooler_run instead of the logits and the sampler; "
              "outputs at most hidden [T, h] (1.4)");
    } else {
        snprintf(src, sizeof src,
                 "lm_head %llu rows%s + hidden [T, h]; logits processors no-ops (1.3)",
                 (unsigned long long)R, r->tp > 1 ? " + all-gather [tp, R, V/tp] + copy" : "");
        phase(c, "logits_processor", logits, KVP_MEM_MARK_EXACT, src);
        if (s->sampler_bytes_per_logit)
            snprintf(src, sizeof src, "R %llu x V x %llu B (given) + hidden [T, h] (1.4)",
                     (unsigned long long)R, (unsigned long long)per);
        else
            snprintf(src, sizeof src, "%s: R %llu x V x (2 + 4 + %llu) B + hidden [T, h] (7.1)",
                     sampler_name(L.sampler, R), (unsigned long long)R,
                     (unsigned long long)extra);
        phase(c, "dummy_sampler", samp, samp_sure ? KVP_MEM_MARK_EXACT : KVP_MEM_MARK_BOUNDED,
              src);
    }
    vllm_mm_phases(c, r, &mm, L.v0);
    bool shared = has_shared_stream(a, r->b, r->e) && r->T > 256;
    snprintf(src, sizeof src, "PyTorch CublasHandlePool: %s x %d stream%s (0.3)%s",
             cc == 90 ? "32 MiB" : "8.125 MiB", shared ? 2 : 1,
             shared ? "s (shared experts)" : "", c->hopper_assumed ? "; GPU unknown: Hopper" : "");
    term(c, "cublas_workspace", mul(c, cublas_bytes(s), shared ? 2 : 1), KVP_MEM_EST_ACTIVATION,
         KVP_MEM_MARK_EXACT, KVP_MEM_CHARGE_PEAK, src);

    /* Non-torch (7.2): what the line's snapshot leaves out lives in 1 - u. */
    bool all = L.nontorch == NT_ALL, before = L.nontorch != NT_AFTER;
    term(c, "cuda_context", CONTEXT_BYTES, KVP_MEM_EST_NON_TORCH, KVP_MEM_MARK_ESTIMATED,
         all ? KVP_MEM_CHARGE_PEAK : KVP_MEM_CHARGE_UNCHARGED,
         all ? "CUDA context: in used - allocated (V0 <= 0.7.1, V1 0.8; 7.2, 0.2)"
             : "CUDA context, before the init snapshot: not charged (1.1, 0.2)");
    uint32_t ranks = r->tp * r->pp;
    if (ranks > 1)
        term(c, "nccl_rings", nccl_ring_bytes(c, s, ranks), KVP_MEM_EST_NON_TORCH,
             KVP_MEM_MARK_BOUNDED, before ? KVP_MEM_CHARGE_PEAK : KVP_MEM_CHARGE_UNCHARGED,
             before ? "NCCL init after the snapshot (snapshot before dist init, 7.2, 0.4)"
                    : "connected by the init warm-up, before the snapshot (1.6)");
    uint64_t ar = ar_table(cc, r->tp, false);
    if (r->tp == 2 || r->tp == 4 || r->tp == 6 || r->tp == 8) {
        /* custom_all_reduce.py: max_size 8 MiB, lowered to the table with symmetric
         * memory on; meta (meta_size + max_size) + data (max_size) IPC buffers. */
        uint64_t max_size = L.symm_mem && ar && ar < CUSTOM_AR_MAX_SIZE ? ar : CUSTOM_AR_MAX_SIZE;
        bool charged = before || L.custom_ar_after;
        snprintf(src, sizeof src, "meta + data IPC buffers of max_size %llu KiB, %s (1.6, 7.2)",
                 (unsigned long long)(max_size / 1024),
                 L.custom_ar_after ? "finalize_p2p (2026)"
                 : before          ? "after the snapshot"
                                   : "in the constructor, before the snapshot");
        term(c, "custom_allreduce", mul(c, 2, max_size), KVP_MEM_EST_NON_TORCH, KVP_MEM_MARK_EXACT,
             charged ? KVP_MEM_CHARGE_PEAK : KVP_MEM_CHARGE_UNCHARGED, src);
        term(c, "custom_ar_rank_data", CUSTOM_AR_MAX_SIZE, 0, KVP_MEM_MARK_EXACT,
             KVP_MEM_CHARGE_UNCHARGED, "rank_data 8 MiB (torch), before the profile baseline (7.2)");
    }
    uint64_t symm = L.symm_mem ? ar_table(cc, r->tp, true) : 0;
    if (symm)
        term(c, "symm_mem_allreduce", symm, KVP_MEM_EST_NON_TORCH, KVP_MEM_MARK_EXACT,
             before ? KVP_MEM_CHARGE_PEAK : KVP_MEM_CHARGE_UNCHARGED,
             "SYMM_MEM_ALL_REDUCE_MAX_SIZES[cc][tp], with the TP group (1.6, 7.2)");
    uint64_t nv = nvls_bytes(c, s, r->tp);
    if (nv)
        term(c, "nccl_nvls", nv, KVP_MEM_EST_NON_TORCH, KVP_MEM_MARK_BOUNDED, KVP_MEM_CHARGE_PEAK,
             "NVLS connected by the profile's large all-reduce (1.6, 0.4)");
    uint64_t fi = L.fi_fusion && r->tp > 1 && !L.v0 ? fi_fusion_bytes(c, a, cc, r->tp, r->T) : 0;
    if (fi)
        term(c, "flashinfer_ar_fusion", fi, KVP_MEM_EST_NON_TORCH, KVP_MEM_MARK_BOUNDED,
             KVP_MEM_CHARGE_PEAK, "r2(tp M) + r2(tp KiB) + r2(3 tp M) at first compile, -O2 (7.2)");
    if (!s->cuda_graphs) return;
    /* Capture sizes (1.7, 7.5): max = min(2 x max_num_seqs, 512) capped at T;
     * >= 0.11 FULL_AND_PIECEWISE (full graphs for sizes <= max_num_seqs), older
     * V1 PIECEWISE only, V0 one full graph per size up to max_num_seqs. */
    uint64_t gmax = s->cuda_graph_max_batch ? s->cuda_graph_max_batch
                    : L.v0                  ? seqs
                                            : (2 * seqs < 512 ? 2 * seqs : 512);
    if (gmax > r->T && !L.v0) gmax = r->T;
    uint32_t top = 0, n, top_full = 0, n_full = 0;
    if (L.old_graph_list) {
        n = old_graph_sizes(s, gmax, L.v0, &top);
    } else {
        n = graph_sizes(s, gmax, &top);
        n_full = graph_sizes(s, seqs < gmax ? seqs : gmax, &top_full);
    }
    r->d->cuda_graph_count = n;
    r->d->cuda_graph_max_batch = top;
    if (!n) return;
    const char *gph = "none";
    uint64_t first = kvp__forward_peak(a, top, r->tp, r->b, r->e, &c->overflow, &gph);
    if (L.graphs_charged) {
        snprintf(src, sizeof src, "first capture: live set of a %u-token forward (1.7)", top);
        term(c, "cuda_graph_first", first, KVP_MEM_EST_CUDA_GRAPH, KVP_MEM_MARK_BOUNDED,
             KVP_MEM_CHARGE_PEAK, src);
        uint64_t rest = mul(c, (uint64_t)(n - 1) + (n_full ? n_full - 1 : 0), GRAPH_FLOOR);
        snprintf(src, sizeof src, "(%u piecewise - 1 + %u full - 1) x max(g, 1 MiB) (1.7)", n,
                 n_full);
        term(c, "cuda_graph_rest", rest, KVP_MEM_EST_CUDA_GRAPH, KVP_MEM_MARK_BOUNDED,
             KVP_MEM_CHARGE_PEAK, src);
        return;
    }
    /* Before 0.21 (and V0) the graphs are captured after the KV cache: not
     * charged, they must fit in what sizing leaves (7.5). */
    uint64_t ng = (uint64_t)n + n_full;
    snprintf(src, sizeof src, "%llu graphs up to %u captured after the KV cache: pool + 1 MiB each (7.5)",
             (unsigned long long)ng, top);
    term(c, "cuda_graphs_after_kv", add(c, first, mul(c, ng, GRAPH_FLOOR)), 0, KVP_MEM_MARK_BOUNDED,
         KVP_MEM_CHARGE_HEADROOM, src);
}

/* SGLang (§3): no profile. What exists before the pre-load free-memory
 * reading shrinks X; the rest must fit in X x (1 - mem_fraction_static). */
static void sglang_terms(tctx *c, const rin *r) {
    const kvp__arch *a = r->a;
    const kvp_estimate_settings *s = r->s;
    char src[KVP_MEM_TERM_SOURCE_MAX];
    line_name(c->f, "SGLang",
              s->engine_version && s->engine_version < 504
                  ? "<= 0.5.3 (mem_fraction_static by TP, 25,000 MB tier)"
                  : ">= 0.5.4 (PR #10975 reserve formula, GPU tiers)",
              s);
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
    under_load(c);
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
    under_load(c);
}

/* llama.cpp (§4): the compute buffer of the worst-case graph of n_ubatch
 * tokens, every token an output; the context sits in --fit-target's margin.
 * Without flash attention the graph holds the KQ scores of one layer,
 * n_kv x n_ubatch x n_head x fp32 (soft_max in place); with it the fused kernel
 * keeps none. Auto (-1) is on: the CUDA backend supports it [inferred]. */
static void llamacpp_terms(tctx *c, const rin *r) {
    const kvp__arch *a = r->a;
    const kvp_estimate_settings *s = r->s;
    char src[KVP_MEM_TERM_SOURCE_MAX];
    const char *ph = "none";
    uint64_t fwd = kvp__forward_peak(a, r->T, r->tp, r->b, r->e, &c->overflow, &ph);
    bool fa = s->flash_attn != 0;
    uint64_t kq = 0;
    if (!fa) {
        uint64_t n_kv = s->n_ctx ? s->n_ctx : r->T, heads = 0;
        for (uint32_t l = r->b; l < r->e && l < a->layers; l++)
            if (a->layer[l].attention && a->layer[l].q_heads > heads) heads = a->layer[l].q_heads;
        kq = mul(c, mul3(c, n_kv, r->T, heads), 4);
    }
    uint64_t layer = add(c, fwd, kq);
    uint64_t logits = mul3(c, r->T, a->vocab, 4);
    r->d->activation_layer_bytes = layer;
    r->d->activation_logits_bytes = logits;
    kvp__strlcpy(r->d->activation_phase, logits > layer ? "logits" : kq > fwd ? "kq scores" : ph,
                 sizeof r->d->activation_phase);
    snprintf(src, sizeof src, "worst-case graph of n_ubatch %llu, flash-attn %s: largest phase (4)",
             (unsigned long long)r->T, fa ? "on" : "off");
    term(c, "compute_buffer", max2(layer, logits), KVP_MEM_EST_ACTIVATION, KVP_MEM_MARK_BOUNDED,
         KVP_MEM_CHARGE_PEAK, src);
    snprintf(src, sizeof src, "one layer at n_ubatch %llu: %s + residual (4)",
             (unsigned long long)r->T, ph);
    phase(c, "ubatch_layer", fwd, KVP_MEM_MARK_BOUNDED, src);
    if (!fa) {
        snprintf(src, sizeof src, "n_kv %llu x n_ubatch x n_head x 4 B, no flash attention (4)",
                 (unsigned long long)(s->n_ctx ? s->n_ctx : r->T));
        phase(c, "kq_scores", kq, KVP_MEM_MARK_EXACT, src);
    }
    snprintf(src, sizeof src, "n_ubatch %llu x vocab x fp32, every token an output (4)",
             (unsigned long long)r->T);
    phase(c, "output_logits", logits, KVP_MEM_MARK_EXACT, src);
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
