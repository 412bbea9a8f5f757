/*
 * kvplan/model.h — a model as kvplan sees it: the per-layer KV cache specs.
 *
 * A kvp_model is an immutable, opaque handle built by a reader (Hugging Face
 * config.json, GGUF header, built-in catalogue). It holds one or more
 * kvp_layer_cache records per decoder layer: what that layer keeps per
 * sequence. A decoder layer may keep several caches (Falcon-H1: attention and
 * Mamba2 side by side; encoder-decoder: self and cross attention), and a layer
 * that keeps nothing (an MLP-only layer of Nemotron-H) has no record.
 *
 * Thread safety: a built model is read-only; any number of threads may read
 * it at once. Different handles are independent (no global mutable state).
 */
#ifndef KVPLAN_MODEL_H
#define KVPLAN_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kvplan/error.h"
#include "kvplan/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Recurrent state geometry, uniform over Mamba-1, Mamba2 and gated-delta-net:
 *   conv state  = (conv_kernel - 1) * (heads * head_dim + 2 * groups * group_dim)
 *   ssm state   = heads * head_dim * state_dim
 * Mamba2:  heads = mamba heads, head_dim = mamba head dim, state_dim = d_state,
 *          groups = n_groups, group_dim = d_state.
 * Mamba-1: heads = d_inner, head_dim = 1, state_dim = d_state, groups = 0.
 * GDN:     heads = linear value heads, head_dim = value head dim,
 *          state_dim = key head dim, groups = linear key heads,
 *          group_dim = key head dim.
 * Under tensor parallelism `heads` and `groups` are sharded (groups that do
 * not divide are replicated to one per rank, as engines do for n_groups=1). */
typedef struct kvp_recurrent_geometry {
    uint32_t heads;
    uint32_t head_dim;
    uint32_t state_dim;
    uint32_t groups;
    uint32_t group_dim;
    uint32_t conv_kernel;
    kvp_dtype conv_dtype; /* AUTO: the model's dtype */
    kvp_dtype ssm_dtype;  /* AUTO: the model's dtype */
    bool ssm_dtype_is_checkpoint_hint; /* ssm_dtype came from the checkpoint's
                                          mamba_ssm_dtype (Qwen3.5), not from a cache
                                          dtype key (mamba_ssm_cache_dtype) */
} kvp_recurrent_geometry;

typedef struct kvp_layer_cache {
    uint32_t layer;          /* 0-based decoder layer index */
    kvp_cache_kind kind;
    uint32_t kv_heads;       /* KV heads kept (MLA and indexer: 1) */
    uint32_t k_head_dim;     /* elements per head of K (MLA: kv_lora_rank + qk_rope_head_dim) */
    uint32_t v_head_dim;     /* elements per head of V (0 for K-only caches) */
    uint64_t window_tokens;  /* sliding window / chunk / encoder length; 0 when unbounded */
    bool replicated;         /* same bytes on every TP rank (MLA latent, indexer) */
    kvp_dtype dtype;         /* AUTO: the deployment's KV dtype; else fixed (indexer fp8) */
    uint32_t scale_bytes_per_token; /* extra bytes per token per head (indexer fp8 scales) */
    kvp_recurrent_geometry recurrent; /* only for KVP_CACHE_RECURRENT (replicated: the
                                         state is the same on every TP rank) */
    uint32_t tokens_per_entry; /* 0 or 1: one entry per token; r > 1: one entry per r
                                  tokens (DeepSeek-V4 compressed and indexer caches) */
} kvp_layer_cache;

/* Architecture facts kept for weight estimates and reports. 0 = not stated. */
typedef struct kvp_model_info {
    char model_type[64];         /* HF model_type of the language model ("llama") */
    char architecture[96];       /* architectures[0] of the outer config */
    kvp_dtype dtype;             /* torch_dtype / dtype; BF16 when absent */
    bool dtype_stated;           /* false when dtype was defaulted */
    kvp_dtype kv_dtype_declared; /* checkpoint's KV cache quantization; AUTO when none */
    uint32_t num_layers;         /* decoder layers */
    uint32_t num_encoder_layers; /* encoder layers of encoder-decoder models */
    uint32_t num_attention_heads;
    uint32_t num_kv_heads;       /* of the first attention layer */
    uint32_t head_dim;
    uint64_t hidden_size;
    uint64_t intermediate_size;
    uint64_t vocab_size;
    uint64_t max_position_embeddings;
    bool tie_word_embeddings;
    bool is_mla;
    bool is_encoder_decoder;
    bool is_hybrid_recurrent;    /* has both attention and recurrent layers */
    bool is_multimodal;          /* language model nested in a wrapper config */
    uint32_t kv_lora_rank;
    uint32_t qk_rope_head_dim;
    uint32_t qk_nope_head_dim;
    uint32_t v_head_dim;
    uint32_t q_lora_rank;
    uint32_t num_experts;        /* routed experts (0: dense) */
    uint32_t num_experts_per_tok;
    uint32_t num_shared_experts;
    uint64_t moe_intermediate_size;
    uint32_t first_k_dense_replace; /* leading dense layers of DeepSeek-style MoE */
    uint32_t moe_layer_freq;
    uint32_t num_nextn_predict_layers; /* MTP layers (not in num_layers) */
    uint64_t encoder_max_positions;  /* cross-attention length */
    char quant_method[32];       /* quantization_config.quant_method, "" when none */
    char weight_quant[32];       /* "fp8", "mxfp4", "nvfp4", "int4", ... "" when none */
    uint32_t quant_group_size;
    uint32_t num_quant_excluded; /* modules listed as not quantized */
    uint32_t sliding_window;     /* window of sliding layers, 0 when none */
    uint32_t attention_chunk_size;
    bool family_unverified;      /* model_type has no hand-checked config: read with the
                                    generic rules; reports say so (JSON "verified": false) */
} kvp_model_info;

typedef struct kvp_model kvp_model;

/* Read a Hugging Face config.json (or a directory that holds one).
 * `alc` may be NULL. On success *out is a new model the caller frees with
 * kvp_model_free(). On failure *out is NULL and `err` (if non-NULL) says why. */
KVP_API KVP_NODISCARD kvp_status kvp_model_from_hf_file(const char *path, const kvp_allocator *alc,
                                                kvp_model **out, kvp_error *err);
/* Same from an in-memory JSON text; `name` is used in error messages. */
KVP_API KVP_NODISCARD kvp_status kvp_model_from_hf_json(const char *text, size_t len, const char *name,
                                                const kvp_allocator *alc, kvp_model **out,
                                                kvp_error *err);
/* Read a GGUF v2/v3 file's header, metadata and tensor table (never the
 * tensor data) with llama.cpp's architecture rules. Errors: KVP_SYNTAX for a
 * truncated file, a string or array past the end, an unknown value type;
 * KVP_UNSUPPORTED for a version other than 2 or 3; KVP_CONFIG for missing or
 * absurd architecture keys. The _memory variant reads a buffer (fuzzing). */
KVP_API KVP_NODISCARD kvp_status kvp_model_from_gguf_file(const char *path, const kvp_allocator *alc,
                                                  kvp_model **out, kvp_error *err);
KVP_API KVP_NODISCARD kvp_status kvp_model_from_gguf_memory(const void *data, size_t size,
                                                    const char *name, const kvp_allocator *alc,
                                                    kvp_model **out, kvp_error *err);
/* A model from a small JSON of GGUF-style geometry ({"arch": "gemma2",
 * "block_count": 26, "head_count_kv": 4, "key_length": 256, ...}), read with
 * the same rules as a GGUF file. */
KVP_API KVP_NODISCARD kvp_status kvp_model_from_geometry_json(const char *text, size_t len,
                                                      const char *name, const kvp_allocator *alc,
                                                      kvp_model **out, kvp_error *err);
/* A model from the embedded catalogue by name or alias ("llama-3.1-8b",
 * "meta-llama/Llama-3.1-8B"). KVP_NOT_FOUND lists the closest names in err. */
KVP_API KVP_NODISCARD kvp_status kvp_model_from_catalog(const char *name, const kvp_allocator *alc,
                                                kvp_model **out, kvp_error *err);
/* Resolve MODEL the way the CLI does: a path to a file or folder (a .gguf
 * file, a config.json, a folder holding one), else a catalogue name or HF
 * id, else an HF id in the local Hugging Face cache, else a catalogue alias.
 * KVP_NOT_FOUND names the closest catalogue names and how to point kvplan
 * at a model of your own. */
KVP_API KVP_NODISCARD kvp_status kvp_model_open(const char *name_or_path, const kvp_allocator *alc,
                                        kvp_model **out, kvp_error *err);

/* Free a model; NULL is a no-op. */
KVP_API void kvp_model_free(kvp_model *model);

/* Display name (catalogue name or file path); never NULL, owned by the model. */
KVP_API const char *kvp_model_name(const kvp_model *model);
/* The allocator the model was built with (borrowed; NULL = libc). Planning on
 * the model allocates through it unless the settings name their own
 * (kvp_deployment.alc, kvp_policy_settings.alc). */
KVP_API const kvp_allocator *kvp_model_allocator(const kvp_model *model);
/* Architecture facts; pointer owned by the model. */
KVP_API const kvp_model_info *kvp_model_get_info(const kvp_model *model);
/* Number of layer cache records, and record i (0 <= i < count). */
KVP_API size_t kvp_model_cache_count(const kvp_model *model);
KVP_API const kvp_layer_cache *kvp_model_cache(const kvp_model *model, size_t index);

/* ---------------------------------------------------------------- facts
 *
 * Everything any room needs from the model's source beyond the cache records,
 * read once when the model is built (src/model/ is the only reader of config
 * text, GGUF metadata and geometry JSON). A fact a source cannot state (a GGUF
 * header has no LoRA block configs) is KVP_FACT_UNKNOWN, never a silent 0.
 *
 * Python literals: HF's json module writes bare NaN / Infinity. A config may
 * hold them in keys kvplan does not read; a key kvplan reads that holds one is
 * refused at load, naming the key, for every command alike.
 */
typedef enum kvp_fact_state {
    KVP_FACT_UNKNOWN = 0, /* the source cannot state it (GGUF metadata, geometry JSON) */
    KVP_FACT_ABSENT,      /* the source could state it and does not (key absent or null) */
    KVP_FACT_STATED       /* stated: `value` holds it */
} kvp_fact_state;

typedef struct kvp_fact_u64 {
    kvp_fact_state state;
    uint64_t value;  /* meaningful only when state == KVP_FACT_STATED */
    const char *key; /* the config key it was read from (static string); NULL unless stated */
} kvp_fact_u64;

/* layer_types as transformers' config object holds it (the seed reads that
 * object): the config's list, or the schedule the config class derives when
 * the list is absent (Qwen3-Next / Qwen3.5: full_attention_interval). */
typedef enum kvp_layer_type {
    KVP_LAYER_TYPE_FULL = 0, /* "full_attention" */
    KVP_LAYER_TYPE_SLIDING,  /* "sliding_attention" */
    KVP_LAYER_TYPE_CHUNKED,  /* "chunked_attention" */
    KVP_LAYER_TYPE_LINEAR,   /* "linear_attention", "mamba", "recurrent" */
    KVP_LAYER_TYPE_OTHER     /* any other entry */
} kvp_layer_type;

/* FFN of one decoder layer, as the weights see it (bits: dense and MoE may both
 * be set, Gemma 4). */
enum { KVP_FFN_NONE = 0, KVP_FFN_DENSE = 1, KVP_FFN_MOE = 2 };
typedef struct kvp_layer_ffn {
    uint8_t kind;            /* KVP_FFN_* bits */
    bool linear_replacement; /* Nemotron-NAS "replace_with_linear": one h x h matrix */
    uint64_t dense_inter;    /* dense FFN intermediate size (0: none) */
} kvp_layer_ffn;

/* How positions are encoded (decides the rotary cache and position tables). */
typedef enum kvp_position_kind {
    KVP_POSITIONS_ROTARY = 0, /* RoPE: a cos/sin cache of max positions x rotary_dim */
    KVP_POSITIONS_ALIBI,      /* ALiBi biases (BLOOM, MPT): no table, no cache */
    KVP_POSITIONS_LEARNED     /* learned absolute positions (GPT-2, OPT): max positions x hidden */
} kvp_position_kind;

/* The checkpoint's weight format (quantization_config / compression_config). */
typedef enum kvp_weight_quant_state {
    KVP_WEIGHT_QUANT_NONE = 0,   /* unquantized: weights in the model dtype */
    KVP_WEIGHT_QUANT_MODELLED,   /* quantized; rate below */
    KVP_WEIGHT_QUANT_UNMODELLED  /* a quant_method kvplan does not model (taken as the dtype) */
} kvp_weight_quant_state;

/* Weight categories a checkpoint may keep out of its quantization. */
enum {
    KVP_QUANT_CAT_ATTENTION = 0,
    KVP_QUANT_CAT_MLP,
    KVP_QUANT_CAT_EXPERTS,
    KVP_QUANT_CAT_SHARED,
    KVP_QUANT_CAT_MIXER,
    KVP_QUANT_CAT_COUNT
};

typedef struct kvp_weight_quant {
    kvp_weight_quant_state state;
    char method[32];              /* quant_method as written ("" when none) */
    char label[64];               /* "fp8 block-128x128", "int4 group-128", "nvfp4", ... */
    uint64_t rate_x65536;         /* bytes per quantized weight x 65536 (scales included) */
    bool excluded[KVP_QUANT_CAT_COUNT]; /* category named in the not-converted list */
    uint64_t cat_rate_x65536[KVP_QUANT_CAT_COUNT]; /* a category's own rate (ModelOpt
                                     MIXED_PRECISION per module); 0 = rate_x65536 */
    uint64_t marlin_rate_x65536;  /* symmetric GPTQ: the rate once vLLM's Marlin kernel
                                     drops the stored zero points; 0 = none */
} kvp_weight_quant;

/* What the weights estimate needs (src/estimate turns it into bytes). Values
 * a config does not state are resolved to its config class's default here. */
typedef struct kvp_weight_facts {
    uint64_t hidden_size;        /* 0: unknown */
    uint64_t vocab_size;
    bool tied_embeddings;        /* with the family's default when the key is absent */
    bool gated_mlp;              /* three-matrix (gate, up, down) MLP */
    bool attn_output_gate;       /* Qwen3-Next / Qwen3.5 gated attention output */
    bool gated_delta_net;        /* recurrent layers are GDN (linear_num_value_heads) */
    uint32_t num_experts;        /* routed experts (0: dense) */
    uint32_t experts_per_token;
    uint64_t expert_inter;       /* one routed expert's intermediate size */
    uint64_t shared_inter;       /* all shared experts together */
    uint64_t encoder_ffn;        /* encoder FFN width of encoder-decoder models */
    uint64_t num_mel_bins;       /* audio front end (Whisper); 0: none */
    uint64_t max_target_positions, max_source_positions;
    uint32_t index_head_dim, index_heads; /* DSA indexer projections (0: none) */
    uint32_t dt_rank;            /* Mamba-1 dt rank */
    kvp_position_kind positions;
    uint64_t rotary_dim;         /* rotated dims per head (partial rotary applied) */
    uint64_t ple_hidden, ple_vocab; /* Gemma 3n per-layer embeddings (0: none) */
    uint64_t vision_depth, vision_hidden, vision_inter, vision_out_hidden; /* 0 depth: no tower */
    uint64_t vision_merge;       /* spatial_merge_size m (the merger's input is hidden x m^2) */
    uint64_t vision_deepstack;   /* Qwen3-VL deepstack mergers (deepstack_visual_indexes) */
    uint64_t vision_patch_elems; /* patch embedding inputs: in_channels x temporal x patch^2 */
    uint64_t vision_positions;   /* learned position table rows (num_position_embeddings) */
    uint64_t vision_tokens_per_item; /* encoder outputs per image where config.json states
                                    them and names no other modality (Gemma-3
                                    mm_tokens_per_image); 0: the processor's, unknown */
    uint64_t vision_image_patches; /* patches of one image of a fixed-size tower,
                                    (image_size / patch_size)^2; 0: unknown */
    kvp_weight_quant quant;
    const kvp_layer_ffn *layers; /* [layer_count], owned by the model */
    uint32_t layer_count;        /* = kvp_model_info.num_layers */
} kvp_weight_facts;

/* Encoder geometry of an encoder-decoder config, as the creator resolves it
 * (seed _get_config_int_attr: the first name holding a JSON integer >= 0 or a
 * boolean, true = 1). */
typedef struct kvp_encoder_facts {
    kvp_fact_u64 decoder_layers; /* num_decoder_layers, decoder_layers, num_hidden_layers, num_layers */
    kvp_fact_u64 heads;          /* encoder_num_heads, encoder_attention_heads, num_heads, num_attention_heads */
    kvp_fact_u64 kv_heads;       /* encoder_num_kv_heads, encoder_num_key_value_heads,
                                    encoder_attention_heads, encoder_num_heads,
                                    num_key_value_heads, num_heads, num_attention_heads */
    kvp_fact_u64 hidden_size;    /* encoder_hidden_size, d_model, hidden_size */
    kvp_fact_u64 head_dim;       /* encoder_head_size, encoder_head_dim, d_kv */
    kvp_fact_u64 max_input_len;  /* max_encoder_input_len, encoder_max_input_length,
                                    max_encoder_position_embeddings,
                                    encoder_max_position_embeddings, max_position_embeddings,
                                    n_positions */
    kvp_fact_u64 max_target_positions; /* the decoder's length cap */
} kvp_encoder_facts;

/* What TensorRT-LLM's LoRA (PEFT) cache sizing reads from the config (seed
 * _get_config_int_attr rule for the integers). */
typedef struct kvp_lora_facts {
    kvp_fact_u64 mamba_head_dim, mamba_num_heads, n_groups, ssm_state_size, moe_latent_size;
    bool has_dense_mlp_layers; /* mlp_only_layers is truthy (a non-empty list, true, non-zero) */
} kvp_lora_facts;

/* A raw value of a sub-config, for readers with their own rules (model-local
 * cache declarations: seed spec_from_hf_config). */
typedef enum kvp_config_value_kind {
    KVP_CONFIG_VALUE_ABSENT = 0, /* absent or null */
    KVP_CONFIG_VALUE_INTEGER,
    KVP_CONFIG_VALUE_REAL,
    KVP_CONFIG_VALUE_STRING,
    KVP_CONFIG_VALUE_NONFINITE,  /* a Python NaN / Infinity literal */
    KVP_CONFIG_VALUE_OTHER       /* bool, object, array, or a string too long to keep */
} kvp_config_value_kind;

typedef struct kvp_config_value {
    kvp_config_value_kind kind;
    int64_t integer; /* INTEGER */
    double real;     /* REAL */
    char string[32]; /* STRING */
} kvp_config_value;

/* The attention geometry keys of one config object: the root ("") or a nested
 * sub-config reached through members named *_config ("/talker_config"). */
typedef struct kvp_subconfig_facts {
    char pointer[128];
    kvp_config_value num_hidden_layers, num_key_value_heads, head_dim, hidden_size,
        num_attention_heads, torch_dtype, dtype;
} kvp_subconfig_facts;

typedef struct kvp_model_facts {
    bool from_config;            /* read from a config.json (else GGUF / geometry) */
    kvp_weight_facts weights;
    kvp_encoder_facts encoder;
    /* layer_types (see kvp_layer_type); count 0 when the config has none */
    const uint8_t *layer_types;  /* kvp_layer_type values, owned by the model */
    uint32_t layer_types_count;
    bool layer_types_derived;    /* derived by the config class, not written in the config */
    /* The seed's draft check (_draft_defines_attention_layout): use_sliding_window
     * or sliding_window not None, or a non-empty layer_types. */
    bool states_attention_layout;
    /* Seed _get_num_experts: the first of num_experts, num_local_experts,
     * moe_num_experts, experts_per_router present (a null one counts) holding
     * an integer >= 0 (kept as it is), else 1; GGUF: its expert_count, else 1. */
    uint64_t seed_num_experts;
    /* Nemotron-NAS block_configs: blocks whose attention / FFN a LoRA adapter can
     * reach (neither no_op nor replace_with_linear). */
    kvp_fact_u64 block_configs;  /* number of entries; ABSENT when no list */
    uint32_t lora_attention_blocks, lora_ffn_blocks;
    kvp_lora_facts lora;
    /* Gemma 4 per-layer attention keys (seed _get_config_int_attr rule) */
    kvp_fact_u64 head_dim, global_head_dim, num_key_value_heads, num_global_key_value_heads;
    bool attention_k_eq_v;
    /* DSA indexer key width (index_head_dim) */
    kvp_fact_u64 index_head_dim;
    /* mamba_ssm_dtype as written (Qwen3.5: "float32"); "" when absent */
    char mamba_ssm_dtype[32];
    /* The SSM scan's chunk (mamba_chunk_size, else chunk_size): vLLM's
     * mamba_cache_mode "all" rounds the block size up to it */
    kvp_fact_u64 mamba_chunk_size;
    /* sub-configs (root first) */
    const kvp_subconfig_facts *subconfigs; /* owned by the model */
    size_t subconfig_count;
} kvp_model_facts;

/* The model's facts; pointer owned by the model, never NULL. */
KVP_API const kvp_model_facts *kvp_model_get_facts(const kvp_model *model);

/* ------------------------------------------------------- start-up facts */

/* The facts of a config.json the start-up rules read, as each engine derives
 * them (read once with the model's other facts, src/model/facts_startup.c). */
typedef struct kvp_model_startup {
    bool from_config;             /* false: not read from a config.json (GGUF, geometry) */
    /* vLLM _get_and_verify_max_len: smallest present length key, rope-scaled. */
    uint64_t vllm_max_len;        /* derived max_model_len (2048 when no key) */
    char vllm_len_key[40];        /* the key of the minimum, "" when defaulted */
    uint64_t vllm_len_key_value;  /* its value before rope scaling */
    uint64_t model_max_length;    /* top-level model_max_length (Command-R), 0 when absent */
    /* SGLang get_context_length: first present key, times the rope factor unless
     * rope_scaling names original_max_position_embeddings or type llama3. */
    uint64_t sglang_context_len;
    char sglang_len_key[40];
    /* TRT-LLM _infer_max_seq_len_from_config. */
    uint64_t trtllm_max_seq_len;
    /* rope_scaling / rope_parameters */
    char rope_type[24];           /* "" when none */
    double rope_factor;           /* 0 when absent */
    uint64_t rope_original_max;   /* original_max_position_embeddings, 0 when absent */
    bool has_auto_map;            /* custom code (auto_map): needs --trust-remote-code */
    /* quantization_config.weight_block_size [n, k] (block FP8), 0 when none */
    uint32_t weight_block_n, weight_block_k;
    char activation_scheme[16];   /* quantization_config.activation_scheme */
    uint64_t shared_expert_intermediate_size;
} kvp_model_startup;

/* The model's start-up facts; never NULL (zeros for models not read from a
 * config.json, with vllm/sglang/trtllm lengths taken from the model info). */
KVP_API const kvp_model_startup *kvp_model_get_startup(const kvp_model *model);
/* The sub-config at JSON pointer `pointer` ("" = root); NULL when the config has
 * no such object (or the model was not read from a config). */
KVP_API const kvp_subconfig_facts *kvp_model_subconfig(const kvp_model *model, const char *pointer);

/* Embedded catalogue: number of entries and entry i's canonical name and
 * source file name (both static strings). */
KVP_API size_t kvp_catalog_count(void);
KVP_API const char *kvp_catalog_name(size_t index);
KVP_API const char *kvp_catalog_hf_id(size_t index);

/* Catalogue aliases: released variants (Instruct, chat, base, a dated
 * re-release) whose config.json has the same geometry as a catalogue entry:
 * the same layers, heads, head dims, windows, dtypes, vocabulary and
 * maximum length; they differ only in weights and tokens (eos, chat
 * template). kvp_model_open resolves an alias after the local Hugging Face
 * cache (a real config there wins) and names the model
 * "ALIAS (alias of TARGET)", so every output says what was read.
 * Index i < kvp_catalog_alias_count(): the alias's lower-case short name, its
 * Hugging Face id, and the HF id of the entry it reads. Static strings;
 * NULL past the end. */
KVP_API size_t kvp_catalog_alias_count(void);
KVP_API const char *kvp_catalog_alias_name(size_t index);
KVP_API const char *kvp_catalog_alias_hf_id(size_t index);
KVP_API const char *kvp_catalog_alias_of(size_t index);

#ifdef __cplusplus
}
#endif
#endif
