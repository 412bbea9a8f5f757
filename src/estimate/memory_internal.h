/*
 * memory_internal.h — the static memory estimate (issue 3, "with none
 * measured"): what the config says about every weight matrix, shared by
 * memory_arch.c (reading the config), memory_weights.c (parameters and bytes)
 * and memory_estimate.c (activation peak, runtime memory, the public API).
 */
#ifndef KVP_MEMORY_INTERNAL_H
#define KVP_MEMORY_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "kvplan/estimate.h"
#include "kvplan/model.h"
#include "util.h"

/* Byte rates are in 1/65536 byte per parameter, so block scales and packed
 * 4-bit formats stay exact integers: bf16 = 131072, fp8 = 65536,
 * fp8 with one fp32 scale per 128x128 block = 65536 + 16. */
#define KVP__RATE_ONE 65536ull

/* Weight categories: each has one byte rate and one TP rule. */
typedef enum kvp__wcat {
    KVP__W_EMBEDDING = 0, /* vocab-parallel across TP */
    KVP__W_LM_HEAD,       /* vocab-parallel across TP */
    KVP__W_ATTENTION,     /* heads across TP; MLA down-projections replicated */
    KVP__W_MLP,           /* dense FFN, intermediate across TP */
    KVP__W_EXPERTS,       /* routed experts, across TP (or EP: same bytes per rank) */
    KVP__W_SHARED,        /* shared experts, across TP */
    KVP__W_ROUTER,        /* replicated */
    KVP__W_MIXER,         /* Mamba / gated-delta-net projections, across TP */
    KVP__W_NORM,          /* replicated */
    KVP__W_VISION,        /* vision tower, across TP */
    KVP__W_ENCODER,       /* encoder stack of encoder-decoder models, across TP */
    KVP__W_BUFFER,        /* non-parameter buffers loaded with the weights (rotary cache), replicated */
    KVP__W_COUNT
} kvp__wcat;

typedef enum kvp__ffn_kind { KVP__FFN_NONE = 0, KVP__FFN_DENSE = 1, KVP__FFN_MOE = 2 } kvp__ffn_kind;
typedef enum kvp__mixer_kind {
    KVP__MIX_NONE = 0,
    KVP__MIX_MAMBA1,
    KVP__MIX_MAMBA2,
    KVP__MIX_GDN
} kvp__mixer_kind;

/* One decoder layer as the weights see it. */
typedef struct kvp__layer_arch {
    uint8_t ffn;              /* kvp__ffn_kind bits: DENSE and MOE may both be set (Gemma 4) */
    uint8_t mixer;            /* kvp__mixer_kind */
    bool attention;           /* GQA/MHA self attention (from the layer's cache records) */
    bool mla;                 /* MLA self attention */
    bool cross;               /* cross attention (encoder-decoder decoder layer) */
    uint32_t q_heads;         /* query heads of this layer */
    uint32_t kv_heads;        /* KV heads of this layer */
    uint32_t k_head_dim, v_head_dim;
    uint32_t cross_kv_heads, cross_head_dim;
    uint64_t dense_inter;     /* dense FFN intermediate size (0: none) */
    bool linear_replacement;  /* Nemotron-NAS "replace_with_linear" FFN: one h x h matrix */
    kvp_recurrent_geometry rec;
} kvp__layer_arch;

typedef struct kvp__arch {
    char model_type[64];
    uint64_t hidden, vocab;
    uint32_t layers;
    kvp__layer_arch *layer; /* [layers], owned (kvp__free with the model's allocator) */
    bool tied, gated_mlp, gated_experts, attn_output_gate;
    /* MoE */
    uint32_t experts, topk;
    uint64_t expert_inter, shared_inter; /* shared_inter: all shared experts together */
    /* MLA */
    uint32_t q_lora, kv_lora, qk_nope, qk_rope, v_head;
    uint32_t index_heads, index_head_dim; /* DSA indexer (0: none) */
    /* Mamba-1 dt rank */
    uint32_t dt_rank;
    /* encoder-decoder */
    uint32_t encoder_layers;
    uint64_t encoder_ffn, encoder_extra_params; /* extra: conv front end, positions */
    uint32_t mtp_layers;
    uint64_t vision_params;
    uint64_t extra_embedding_params; /* Gemma 3n per-layer embeddings, learned positions */
    uint64_t position_params;        /* learned absolute positions (max positions x hidden) */
    uint64_t rope_cache_elems; /* cos/sin cache every stage builds: max positions x rotary dim */
    /* weights format */
    uint64_t rate[KVP__W_COUNT]; /* 1/65536 bytes per parameter */
    char format[128];
} kvp__arch;

/* The architecture of `model` from its facts (kvp_model_get_facts: read from
 * the config, or from the kvp_model_info of a GGUF) and cache records, and the
 * weight format (`weights_dtype` AUTO = the checkpoint's quantization). */
kvp_status kvp__arch_read(const kvp_model *model, kvp_dtype weights_dtype, kvp__arch *out,
                          kvp_error *err);
void kvp__arch_free(kvp__arch *arch);

/* Parameters of one rank of `tp`, for decoder layers [begin, end) plus the
 * embedding (with_first) and the LM head and final norm (with_last).
 * params[] by category; *replicated_params: of those, held by every TP rank. */
kvp_status kvp__arch_params(const kvp__arch *arch, uint32_t tp, uint32_t begin, uint32_t end,
                            bool with_first, bool with_last, uint64_t params[KVP__W_COUNT],
                            uint64_t *replicated_params, kvp_error *err);
/* Bytes of params[] at the arch's rates (rounded up per category). */
kvp_status kvp__arch_bytes(const kvp__arch *arch, const uint64_t params[KVP__W_COUNT],
                           uint64_t *out_bytes, kvp_error *err);

#endif
