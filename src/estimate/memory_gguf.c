/*
 * memory_gguf.c — weights of a model costed as a llama.cpp file type
 * (`--quantization Q4_K_M`): every tensor at the type `llama-quantize` gives
 * it, at ggml's block size.
 *
 * The type rules are llama.cpp's src/llama-quant.cpp : llama_tensor_get_type
 * for the file types kvplan accepts (memory_quant.c); docs/memory.md lists
 * them. In short:
 *   - output.weight (token_embd.weight when the head is tied): Q6_K, or Q8_0
 *     for a Q8_0 file;
 *   - attn_v.weight: Q6_K on use_more_bits layers for Q4_K_M / Q5_K_M, Q5_K on
 *     the first 4 for Q4_K_S, Q5_K for IQ4_* when n_head / n_head_kv >= 4;
 *     Q3_K / Q4_K raised to Q5_K on a 70B llama / qwen2 (80 layers); Q8_0
 *     on 8-expert models (attn_k.weight too);
 *   - attn_output.weight: Q5_K on 8-expert models for Q4_K_* and IQ4_*;
 *   - ffn_down (dense, experts, shared): Q6_K on use_more_bits layers for
 *     Q4_K_M / Q5_K_M, Q5_K on the first n_layer / 8 for Q4_K_S and IQ4_*
 *     (no importance matrix);
 *   - a row length (ne[0]) not divisible by 256 falls back from the K and
 *     IQ4_XS types: Q4_K -> Q5_0, Q5_K -> Q5_1, Q6_K -> Q8_0, IQ4_XS /
 *     Q2_K / Q3_K -> IQ4_NL; one not divisible by the block of that -> F16;
 *   - 1-D tensors (norms) and the MoE router (ffn_gate_inp) stay F32, as the
 *     converter writes them; llama.cpp keeps no rotary cache.
 * use_more_bits(i, n) = i < n/8 || i >= 7n/8 || (i - n/8) % 3 == 2.
 * With TP (vLLM loading a GGUF) a sharded tensor's bytes are split evenly
 * (rounded up); norms and the router are replicated.
 */
#include <string.h>

#include "memory_internal.h"

typedef enum tkind { T_EMBD, T_OUTPUT, T_Q, T_K, T_V, T_O, T_GATE, T_UP, T_DOWN } tkind;

typedef struct gctx {
    const kvp__arch *a;
    const kvp__gguf_ftype *ft;
    uint64_t tp;
    uint32_t layer, n_layer;
    uint64_t bytes;
    bool overflow;
    uint32_t over_layer; /* the layer being costed when the bytes first overflowed */
} gctx;

static bool use_more_bits(uint32_t i, uint32_t n) {
    return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
}

static kvp__ggml fallback(kvp__ggml t, uint64_t cols) {
    if (kvp__ggml_types[t].block == 256 && cols % 256) {
        switch (t) {
        case KVP__GGML_Q4_K: t = KVP__GGML_Q5_0; break;
        case KVP__GGML_Q5_K: t = KVP__GGML_Q5_1; break;
        case KVP__GGML_Q6_K: t = KVP__GGML_Q8_0; break;
        default: t = KVP__GGML_IQ4_NL; break;
        }
    }
    if (cols % kvp__ggml_types[t].block) t = KVP__GGML_F16;
    return t;
}

static kvp__ggml tensor_type(const gctx *g, tkind kind) {
    const kvp__gguf_ftype *ft = g->ft;
    kvp__ggml t = ft->base;
    if (ft->mix == KVP__MIX_PLAIN) return t;
    const kvp__arch *a = g->a;
    uint32_t i = g->layer, n = g->n_layer;
    bool eight_experts = a->experts == 8;
    bool q4_family = ft->mix == KVP__MIX_Q4_K_S || ft->mix == KVP__MIX_IQ4 ||
                     (ft->mix == KVP__MIX_K_M && ft->base == KVP__GGML_Q4_K);
    switch (kind) {
    case T_OUTPUT: return t == KVP__GGML_Q8_0 ? KVP__GGML_Q8_0 : KVP__GGML_Q6_K;
    case T_V: {
        const kvp__layer_arch *L = &a->layer[i];
        if (ft->mix == KVP__MIX_K_M && use_more_bits(i, n)) t = KVP__GGML_Q6_K;
        else if (ft->mix == KVP__MIX_Q4_K_S && i < 4) t = KVP__GGML_Q5_K;
        else if (ft->mix == KVP__MIX_IQ4 && L->kv_heads && L->q_heads / L->kv_heads >= 4)
            t = KVP__GGML_Q5_K;
        /* LLM_TYPE_70B: llama and qwen2 with 80 layers */
        bool is70b = n == 80 && (!strcmp(a->model_type, "llama") || !strcmp(a->model_type, "qwen2"));
        if (is70b && (t == KVP__GGML_Q3_K || t == KVP__GGML_Q4_K)) t = KVP__GGML_Q5_K;
        if (eight_experts) t = KVP__GGML_Q8_0;
        return t;
    }
    case T_K: return eight_experts ? KVP__GGML_Q8_0 : t;
    case T_O: return eight_experts && q4_family ? KVP__GGML_Q5_K : t;
    case T_DOWN:
        if (ft->mix == KVP__MIX_K_M && use_more_bits(i, n)) return KVP__GGML_Q6_K;
        if ((ft->mix == KVP__MIX_Q4_K_S || ft->mix == KVP__MIX_IQ4) && i < n / 8)
            return KVP__GGML_Q5_K;
        return t;
    default: return t;
    }
}

/* count matrices of rows x cols (cols = ne[0], the quantized row) at `type`. */
static void tensor_at(gctx *g, kvp__ggml type, uint64_t count, uint64_t rows, uint64_t cols,
                      bool sharded) {
    if (type != KVP__GGML_F32 && type != KVP__GGML_F16 && type != KVP__GGML_BF16)
        type = fallback(type, cols);
    const kvp__ggml_type *ty = &kvp__ggml_types[type];
    uint64_t v;
    if (!kvp__mul_many_u64(&v, 4, count, rows, cols / ty->block, (uint64_t)ty->type_size) ||
        !kvp__add_u64(g->bytes, sharded && g->tp > 1 ? kvp__ceil_div_u64(v, g->tp) : v,
                      &g->bytes)) {
        if (!g->overflow) g->over_layer = g->layer;
        g->overflow = true;
        return;
    }
}

static void tensor(gctx *g, tkind kind, uint64_t count, uint64_t rows, uint64_t cols) {
    tensor_at(g, tensor_type(g, kind), count, rows, cols, true);
}

static void f32(gctx *g, uint64_t count, uint64_t elems) {
    tensor_at(g, KVP__GGML_F32, count, 1, elems, false);
}

static void layer(gctx *g, const kvp__layer_arch *L) {
    const kvp__arch *a = g->a;
    uint64_t h = a->hidden;
    if (L->attention) {
        uint64_t q = (uint64_t)L->q_heads * L->k_head_dim * (a->attn_output_gate ? 2 : 1);
        tensor(g, T_Q, 1, q, h);
        tensor(g, T_K, 1, (uint64_t)L->kv_heads * L->k_head_dim, h);
        tensor(g, T_V, 1, (uint64_t)L->kv_heads * L->v_head_dim, h);
        tensor(g, T_O, 1, h, (uint64_t)L->q_heads * L->v_head_dim);
    }
    if (L->ffn & KVP__FFN_DENSE) {
        if (a->gated_mlp) tensor(g, T_GATE, 1, L->dense_inter, h);
        tensor(g, T_UP, 1, L->dense_inter, h);
        tensor(g, T_DOWN, 1, h, L->dense_inter);
    }
    if (L->ffn & KVP__FFN_MOE) {
        if (a->gated_experts) tensor(g, T_GATE, a->experts, a->expert_inter, h);
        tensor(g, T_UP, a->experts, a->expert_inter, h);
        tensor(g, T_DOWN, a->experts, h, a->expert_inter);
        if (a->shared_inter) {
            if (a->gated_mlp) tensor(g, T_GATE, 1, a->shared_inter, h);
            tensor(g, T_UP, 1, a->shared_inter, h);
            tensor(g, T_DOWN, 1, h, a->shared_inter);
        }
        f32(g, a->experts, h); /* ffn_gate_inp */
    }
    f32(g, 2, h); /* attn_norm, ffn_norm */
}

static const char *unmodelled(const kvp__arch *a, uint32_t begin, uint32_t end) {
    if (a->vision_params) return "a vision tower (llama.cpp keeps it in an mmproj file)";
    if (a->encoder_layers) return "an encoder stack";
    if (a->extra_embedding_params) return "per-layer or learned position embeddings";
    for (uint32_t l = begin; l < end; l++) {
        const kvp__layer_arch *L = &a->layer[l];
        if (L->mla) return "MLA attention";
        if (L->mixer != KVP__MIX_NONE) return "recurrent (Mamba / GDN) layers";
        if (L->cross) return "cross attention";
        if (L->linear_replacement) return "linear-replacement FFN layers";
    }
    return NULL;
}

kvp_status kvp__gguf_bytes(const kvp__arch *a, uint32_t tp, uint32_t begin, uint32_t end,
                           bool with_first, bool with_last, uint64_t *out_bytes, kvp_error *err) {
    if (a->gguf_ftype < 0 || (size_t)a->gguf_ftype >= kvp__gguf_ftype_count)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "quantization", "not a llama.cpp type");
    if (end > a->layers) end = a->layers;
    gctx g;
    memset(&g, 0, sizeof g);
    g.a = a;
    g.ft = &kvp__gguf_ftypes[a->gguf_ftype];
    g.tp = tp ? tp : 1;
    g.n_layer = a->layers;
    const char *why = unmodelled(a, 0, a->layers);
    if (why)
        return kvp__fail(err, KVP_UNSUPPORTED, NULL, "quantization",
                         "%s: kvplan carries llama.cpp's type rules for attention + MLP / MoE "
                         "decoders only, not for %s",
                         g.ft->name, why);
    for (uint32_t l = begin; l < end; l++) {
        g.layer = l;
        layer(&g, &a->layer[l]);
    }
    if (with_first) tensor(&g, a->tied ? T_OUTPUT : T_EMBD, 1, a->vocab, a->hidden);
    if (with_last) {
        if (!a->tied || !with_first) tensor(&g, T_OUTPUT, 1, a->vocab, a->hidden);
        f32(&g, 1, a->hidden); /* output_norm */
    }
    if (g.overflow)
        return kvp__fail(err, KVP_OVERFLOW, a->source, "/hidden_size",
                         "weights estimate (%s): the tensor bytes overflow 64 bits at layer %u",
                         g.ft->name, g.over_layer);
    *out_bytes = g.bytes;
    return KVP_OK;
}
