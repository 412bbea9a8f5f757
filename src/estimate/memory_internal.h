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

/* ggml tensor types the weights estimate costs (memory_quant.c). */
typedef enum kvp__ggml {
    KVP__GGML_F32 = 0, KVP__GGML_F16, KVP__GGML_BF16, KVP__GGML_Q8_0, KVP__GGML_Q4_0,
    KVP__GGML_Q4_1, KVP__GGML_Q5_0, KVP__GGML_Q5_1, KVP__GGML_Q2_K, KVP__GGML_Q3_K,
    KVP__GGML_Q4_K, KVP__GGML_Q5_K, KVP__GGML_Q6_K, KVP__GGML_IQ4_NL, KVP__GGML_IQ4_XS,
    KVP__GGML_IQ3_S, KVP__GGML_IQ3_XXS, KVP__GGML_IQ2_XXS, KVP__GGML_IQ2_XS, KVP__GGML_IQ2_S,
    KVP__GGML_IQ1_S, KVP__GGML_IQ1_M, KVP__GGML_COUNT
} kvp__ggml;

typedef struct kvp__ggml_type {
    const char *name;
    uint32_t block;     /* weights per block */
    uint32_t type_size; /* bytes per block */
} kvp__ggml_type;
extern const kvp__ggml_type kvp__ggml_types[KVP__GGML_COUNT];

/* Which of llama_tensor_get_type's rules a file type follows (memory_gguf.c). */
typedef enum kvp__gguf_mix {
    KVP__MIX_PLAIN = 0, /* F32 / F16 / BF16: nothing quantized, no rules */
    KVP__MIX_QUANT,     /* output.weight to Q6_K (Q8_0 stays), the rest the default type */
    KVP__MIX_K_M,       /* + attn_v and ffn_down to Q6_K on use_more_bits layers */
    KVP__MIX_Q4_K_S,    /* + attn_v of the first 4 layers, ffn_down of the first 1/8 to Q5_K */
    KVP__MIX_IQ4,       /* + attn_v to Q5_K when n_gqa >= 4, ffn_down of the first 1/8 to Q5_K */
} kvp__gguf_mix;

typedef struct kvp__gguf_ftype {
    const char *name;
    kvp__ggml base;
    kvp__gguf_mix mix;
} kvp__gguf_ftype;
extern const kvp__gguf_ftype kvp__gguf_ftypes[];
extern const size_t kvp__gguf_ftype_count;

/* Is `f` (asked by option) the family of the checkpoint's own quantization
 * (fp8 and a block-fp8 checkpoint)? Then the checkpoint's figures win. */
bool kvp__weight_format_same_family(const kvp_weight_format *f, const kvp_weight_quant *ckpt);

/* How the weights are read: dtype override, format asked, expert sharding. */
typedef struct kvp__arch_opts {
    kvp_dtype weights_dtype;          /* AUTO = checkpoint; 16/32-bit: the unquantized dtype */
    const kvp_weight_format *format;  /* --quantization; NULL = the checkpoint's */
    uint32_t expert_ranks, ep;        /* kvp_estimate_settings; 0 = tp / 1 */
    uint32_t expert_inter_align;      /* mxfp4 expert padding; 0 = the engine's kernel's */
    uint32_t engine;                  /* kvp_estimate_engine: whose loader pads mxfp4 experts */
    uint32_t compute_capability;      /* the GPU's (80 = 8.0); 0 = unknown (Hopper figures) */
    uint32_t attention_ranks;         /* kvp_estimate_settings: attn_tp; 0 = tp */
    bool embedding_whole;             /* kvp_estimate_settings: embedding not split */
    uint64_t deepstack_tokens;        /* vLLM: max_num_batched_tokens of the deepstack
                                         buffers built with the model; 0 = none */
    const kvp_allocator *alc;         /* the layer array's allocator; NULL = libc */
} kvp__arch_opts;

typedef struct kvp__arch {
    char model_type[64];
    const char *source; /* kvp_model_name(): the file errors name; owned by the model */
    uint64_t hidden, vocab;
    uint32_t layers;
    kvp__layer_arch *layer; /* [layers], owned (kvp__free with alc) */
    const kvp_allocator *alc; /* kvp__arch_opts.alc, borrowed */
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
    /* vLLM's encoder profile (MEMORY.md 7.4): the tower's width and MLP, the
     * tokens one item becomes and the patches the tower runs on per item (0:
     * the processor's, unknown), and the width D of what it hands the LM. */
    uint64_t vision_hidden, vision_inter, vision_tokens, vision_patches, vision_out_width;
    uint64_t extra_embedding_params; /* Gemma 3n per-layer embeddings, learned positions */
    uint64_t position_params;        /* learned absolute positions (max positions x hidden) */
    uint64_t rope_cache_elems; /* cos/sin cache every stage builds: max positions x rotary dim */
    /* weights format */
    uint64_t rate[KVP__W_COUNT]; /* 1/65536 bytes per parameter */
    char format[128];
    /* A quantization the estimate does not model (quant_method "hqq", ...):
     * its name; the weights are then costed at `format`'s dtype and the
     * plan says so (weights_source). "" when modelled or none. */
    char unmodelled_quant[40];
    kvp_dtype unmodelled_as; /* ... and the dtype it is costed at */
    bool experts_mxfp4;          /* routed experts stored as mxfp4 */
    int gguf_ftype;              /* >= 0: costed as this llama.cpp file type (memory_gguf.c) */
    uint32_t expert_ranks, ep, expert_inter_align; /* kvp__arch_opts, resolved (0 = per tp) */
    uint32_t attention_ranks;     /* kvp__arch_opts: attention split over these (0 = per tp) */
    bool embedding_whole;         /* kvp__arch_opts */
    uint32_t expert_hidden_align; /* mxfp4: the kernel pads the experts' hidden size too */
    bool expert_bias;             /* vLLM Mxfp4MoEMethod: bf16 w13/w2 biases per expert */
    uint64_t deepstack_buffer_elems; /* Qwen3-VL deepstack_input_embeds (vLLM), per stage 0 */
} kvp__arch;

/* The MoE kernel vLLM's mxfp4 method picks on a GPU of compute capability `cc`
 * (0 = unknown: Hopper), and how it pads one rank's expert intermediate size
 * and the hidden size (MEMORY.md 7.7). Returns the kernel's name. */
const char *kvp__mxfp4_vllm_padding(uint32_t cc, uint32_t *inter_align, uint32_t *hidden_align);

/* The architecture of `model` from its facts (kvp_model_get_facts: read from
 * the config, or from the kvp_model_info of a GGUF) and cache records, and the
 * weight format (`weights_dtype` AUTO = the checkpoint's quantization). */
kvp_status kvp__arch_read(const kvp_model *model, const kvp__arch_opts *opts, kvp__arch *out,
                          kvp_error *err);
void kvp__arch_free(kvp__arch *arch);
/* Whether two layers have the same weights and activations: every field of
 * kvp__layer_arch equal (a field added there is compared there). Runs of
 * identical layers are counted once per plan (memory_weights.c, activation). */
bool kvp__layer_arch_same(const kvp__layer_arch *x, const kvp__layer_arch *y);

/* Parameters of one rank of `tp`, for decoder layers [begin, end) plus the
 * embedding (with_first) and the LM head and final norm (with_last).
 * params[] by category; replicated[] (NULL: not wanted): of those, by category,
 * the ones every TP rank holds whole (costed at their category's rate, so that
 * an fp8 checkpoint's replicated MLA projections are fp8 as they are loaded). */
kvp_status kvp__arch_params(const kvp__arch *arch, uint32_t tp, uint32_t begin, uint32_t end,
                            bool with_first, bool with_last, uint64_t params[KVP__W_COUNT],
                            uint64_t replicated[KVP__W_COUNT], kvp_error *err);
/* Bytes of one rank of `tp` for layers [begin, end) (+ first / last stage
 * parts) when the arch is costed as a llama.cpp file type: tensor by tensor
 * (memory_gguf.c). KVP_UNSUPPORTED for layer kinds the rules are not carried
 * for (MLA, recurrent mixers, cross attention, towers). */
kvp_status kvp__gguf_bytes(const kvp__arch *a, uint32_t tp, uint32_t begin, uint32_t end,
                           bool with_first, bool with_last, uint64_t *out_bytes, kvp_error *err);
/* Bytes of params[] at the arch's rates (rounded up per category). */
kvp_status kvp__arch_bytes(const kvp__arch *arch, const uint64_t params[KVP__W_COUNT],
                           uint64_t *out_bytes, kvp_error *err);

/* One forward of `tokens` tokens on one rank of `tp` over layers [begin, end):
 * the largest live set inside one decoder layer (projections, MLP / fused-MoE
 * scratch, recurrent scans; no attention scores) plus the residual stream and
 * the normed input (memory_estimate.c). *phase names the part that set it;
 * *overflow is set (never cleared) when the arithmetic leaves 64 bits. */
uint64_t kvp__forward_peak(const kvp__arch *a, uint64_t tokens, uint32_t tp, uint32_t begin,
                           uint32_t end, bool *overflow, const char **phase);

/* The profiling forward's tokens: max_num_tokens, 0 -> 8192 (memory_estimate.c). */
uint64_t kvp__estimate_tokens(const kvp_estimate_settings *s);
/* The length of TensorRT-LLM's dummy context requests for a forward of T
 * tokens, min(T, max_seq_len - 1) (T when max_seq_len is 0 or 1): the only
 * way the estimate reads max_seq_len (memory_runtime.c), so two settings
 * with the same value here and the same other fields estimate the same. */
uint64_t kvp__dummy_request_tokens(const kvp_estimate_settings *s, uint64_t T);

/* The engine's start-up terms beside the weights (memory_runtime.c): fills
 * out->terms[], the parts they sum to (activation_bytes, non_torch_bytes,
 * cuda_graph_bytes), out->headroom_need_bytes and the KVP_MEM_EST_* bits of
 * the parts it estimated; the detail's activation and graph figures. `T` is
 * the profiling forward's tokens, `batch` the engine's batch cap, layers
 * [begin, end) the busiest pipeline stage. KVP_OVERFLOW (key: the settings
 * field that made the figure absurd) when a term leaves 64 bits. */
kvp_status kvp__runtime_terms(const kvp__arch *a, const kvp_estimate_settings *s, uint32_t tp,
                              uint32_t pp, uint64_t T, uint64_t batch, uint32_t begin,
                              uint32_t end, kvp_memory_facts *out, kvp_estimate_detail *d,
                              kvp_error *err);

#endif
