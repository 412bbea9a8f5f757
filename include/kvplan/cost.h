/*
 * kvplan/cost.h — the cost model: per-layer specs grouped into pools, each
 * with an affine cost `bytes_per_token * tokens + bytes_per_sequence`.
 *
 * All figures are per rank (one GPU): KV heads divided by tensor parallelism
 * (a rank keeps at least one whole head when kv_heads < tp), MLA latents and
 * indexer keys replicated, recurrent state sharded by heads, and only the
 * layers of one pipeline stage (by default the busiest one).
 *
 * Pipeline split rule: L layers over P stages give the first (L mod P) stages
 * ceil(L/P) layers and the rest floor(L/P), in layer order (TensorRT-LLM's
 * Mapping.pp_layers, i.e. torch.tensor_split).
 *
 * Thread safety: pure functions of their inputs.
 */
#ifndef KVPLAN_COST_H
#define KVPLAN_COST_H

#include <stdbool.h>
#include <stdint.h>

#include "kvplan/error.h"
#include "kvplan/model.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KVP_MAX_POOLS 32
#define KVP_DEFAULT_TOKENS_PER_BLOCK 32

/* Deployment settings that change what a token costs. Zero-initialise and
 * set what you need: 0 / AUTO / -1 mean the documented default. */
typedef struct kvp_cost_settings {
    uint32_t tp;               /* tensor parallel size; 0 -> 1 */
    uint32_t pp;               /* pipeline parallel size; 0 -> 1 */
    int32_t pp_rank;           /* stage to cost; -1 (or any negative) -> busiest; 0 is stage 0 */
    kvp_dtype kv_dtype;        /* AUTO -> checkpoint's KV quantization, else model dtype */
    uint32_t tokens_per_block; /* 0 -> KVP_DEFAULT_TOKENS_PER_BLOCK */
    uint32_t beam_width;       /* 0 -> 1 */
    bool ssm_cache_dtype_only; /* TensorRT-LLM's rule: the SSM state dtype comes from a
                                  cache dtype key only; a checkpoint's mamba_ssm_dtype
                                  (Qwen3.5's float32) is ignored for the model dtype */
    kvp_dtype ssm_dtype;       /* AUTO -> the config's SSM state dtype (rule above); else the
                                  SSM state of every sharded recurrent layer (TensorRT-LLM
                                  kv_cache_config.mamba_ssm_cache_dtype) */
    bool kv_heads_round_up;    /* TensorRT-LLM's rule: KV heads per rank = ceil(heads / tp)
                                  (its KV cache manager, ENGINES.md 0.3; replicated as needed,
                                  never refused), cross attention excepted; else heads split
                                  evenly, or one whole head per rank when tp is a multiple
                                  (vLLM, SGLang) */
    uint64_t reserved_[KVP_RESERVED_WORDS]; /* room for growth: zero, do not use (ABI) */
} kvp_cost_settings;

/* Defaults: tp=1, pp=1, busiest stage, AUTO dtype, 32 tokens/block, beam 1. */
KVP_API kvp_cost_settings kvp_cost_settings_default(void);

/* One pool: layers whose pages are interchangeable (same kind, window, dtype
 * and bytes per token per layer). */
typedef struct kvp_pool_cost {
    kvp_cache_kind kind;
    uint64_t window_tokens;        /* sliding window / chunk / encoder length; 0 = unbounded */
    uint32_t layers;               /* layers of this pool on the costed stage */
    uint32_t kv_heads_per_rank;    /* per layer (1 for MLA/indexer; recurrent: heads per rank) */
    uint32_t k_head_dim, v_head_dim;
    kvp_dtype dtype;               /* resolved element type (recurrent: ssm dtype) */
    uint64_t bytes_per_token_per_layer;
    uint64_t bytes_per_token;      /* slope: all layers of the pool, one rank */
    uint64_t bytes_per_sequence;   /* intercept: fixed per sequence slot (recurrent state x beam) */
    uint32_t tokens_per_block;     /* 0 for recurrent pools (one slot per sequence) */
    uint64_t page_bytes;           /* one block of all layers: tokens_per_block * bytes_per_token;
                                      recurrent: bytes_per_sequence / beam_width */
    uint64_t conv_bytes_per_sequence; /* recurrent only: conv part of the state (all layers) */
    uint64_t ssm_bytes_per_sequence;  /* recurrent only: SSM part */
    uint32_t tokens_per_entry;     /* 1: bytes_per_token is per token; r > 1 (DeepSeek-V4
                                      compressed / indexer pools): bytes_per_token and
                                      bytes_per_token_per_layer are per entry of r tokens,
                                      and the pool is left out of kvp_cost.bytes_per_token */
} kvp_pool_cost;

/* The cost of one rank. A plain value: no heap memory, copy freely. */
typedef struct kvp_cost {
    uint32_t tp, pp, pp_rank, tokens_per_block, beam_width;
    kvp_dtype kv_dtype;            /* resolved KV dtype */
    kvp_dtype model_dtype;
    uint32_t layer_begin, layer_end; /* decoder layers [begin, end) of the costed stage */
    uint32_t pool_count;
    kvp_pool_cost pools[KVP_MAX_POOLS];
    uint64_t bytes_per_token;      /* sum of pool slopes (pools of one entry per token) */
    uint64_t bytes_per_sequence;   /* sum of pool intercepts */
    bool non_affine;               /* a pool keeps one entry per r > 1 tokens: the cost of a
                                      sequence is not slope x tokens + intercept; use
                                      kvp_cost_sequence_bytes / kvp_cost_tokens_for_budget */
    uint64_t reserved_[KVP_RESERVED_WORDS]; /* room for growth: zero, do not use (ABI) */
} kvp_cost;

/* Cost one rank of `model` under `settings` (NULL = defaults).
 * Errors: KVP_CONFIG when heads do not divide across TP or pp > layers,
 * KVP_OVERFLOW when a product does not fit in 64 bits. */
KVP_API KVP_NODISCARD kvp_status kvp_cost_compute(const kvp_model *model, const kvp_cost_settings *settings,
                                          kvp_cost *out, kvp_error *err);

/* Refuse a tensor-parallel size the engines refuse at start-up (vLLM
 * ModelConfig.verify_with_parallel_config, SGLang's attention TP check,
 * TensorRT-LLM's Mapping): query heads (num_attention_heads) that do not
 * divide by `tp`, KV heads that neither divide by nor replicate evenly over
 * `tp`, recurrent heads that do not divide. `tp` is the attention TP size
 * (tp / dp under attention data parallelism); 0 means 1. Every command and
 * policy calls this before costing (kvp_cost_compute does). KVP_CONFIG with
 * the key (num_attention_heads, num_key_value_heads, recurrent heads). */
KVP_API KVP_NODISCARD kvp_status kvp_cost_check_tp(const kvp_model *model, uint32_t tp, kvp_error *err);

/* Bytes one sequence of seq_len tokens takes on this rank, in whole blocks:
 * sum over pools of ceil(tokens/tokens_per_block) * page_bytes * beam_width
 * plus bytes_per_sequence. */
KVP_API KVP_NODISCARD kvp_status kvp_cost_sequence_bytes(const kvp_cost *cost, uint64_t seq_len,
                                                 uint64_t *out_bytes, kvp_error *err);

/* The longest sequence whose bytes (kvp_cost_sequence_bytes, the exact
 * function: whole blocks, windows, one entry per r tokens) fit in
 * `budget_bytes`. *out_tokens is 0 when not even one token fits, and
 * KVP_MAX_PLAN_TOKENS when the bytes stop growing below the budget (every
 * pool bounded). Exact by bisection, never by a rounded slope. */
#define KVP_MAX_PLAN_TOKENS (UINT64_C(1) << 40)
KVP_API KVP_NODISCARD kvp_status kvp_cost_tokens_for_budget(const kvp_cost *cost,
                                                            uint64_t budget_bytes,
                                                            uint64_t *out_tokens, kvp_error *err);

/* Planners that size pools as slope x tokens + intercept (the creator, the
 * engine policies, the simulator) call this first: a model with a cache of one
 * entry per r > 1 tokens (DeepSeek-V4) is refused with KVP_UNSUPPORTED and the
 * key compress_ratios, naming `planner`, instead of being planned with a
 * rounded slope. `kvplan cost` plans it exactly. */
KVP_API KVP_NODISCARD kvp_status kvp_cost_require_affine(const kvp_model *model,
                                                         const char *planner, kvp_error *err);

/* First stage of layer `layer` under the pipeline split rule above. */
KVP_API uint32_t kvp_pp_stage_of_layer(uint32_t num_layers, uint32_t pp, uint32_t layer);
/* Layers [begin, end) of stage `stage`. */
KVP_API void kvp_pp_stage_layers(uint32_t num_layers, uint32_t pp, uint32_t stage, uint32_t *begin,
                         uint32_t *end);

#ifdef __cplusplus
}
#endif
#endif
