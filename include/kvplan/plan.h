/*
 * kvplan/plan.h — the KV cache creator: how a serving engine turns a model,
 * its deployment settings and measured GPU memory into KV cache managers
 * with byte or token quotas. A port of the seed's KvCacheCreator
 * (shared/seeds/kv-cache-creator.py.txt, TensorRT-LLM PyTorch backend).
 *
 * Two layers of API:
 *
 *  1. Rules: one pure function per decision of the seed (affine cost, the
 *     budget formula, reserves, attention windows, manager choice, the token
 *     count of the estimation pass, target/draft and self/cross splits, ...).
 *     Each is documented with the seed function it ports. They never touch a
 *     GPU and never print; warnings go into a caller-owned kvp_notes.
 *
 *  2. The engine-facing lifecycle, as the seed's creator is used:
 *
 *       kvp_creator_new(target, draft, &deploy, &kv, alc, &c, &err);
 *       kvp_creator_prepare_estimation(c, free_bytes, &prep, &err);
 *         -> whether the profiling pass runs and the temporary max_tokens /
 *            max_gpu_total_bytes it needs (engine: build throw-away managers
 *            with kvp_creator_build(c, true, ...), run dummy requests, measure)
 *       kvp_creator_configure(c, &measured, &cap, &err);
 *         -> the KV budget from measured memory (or kvp_creator_configure_budget
 *            to plan from a known budget)
 *       kvp_creator_build(c, false, &plan, &err);
 *         -> final per-manager configs (target, draft, cross) with quotas and
 *            the pools they buy.
 *       kvp_creator_free(c);
 *
 * Units: every size is uint64_t bytes, every length uint64_t tokens; all
 * products are overflow-checked (KVP_OVERFLOW). Fractions are doubles in
 * (0, 1]; the seed's float products are computed in double and truncated,
 * like Python's int().
 *
 * Thread safety: rule functions are pure. A kvp_creator is not safe to use
 * from two threads at once; different creators are independent.
 */
#ifndef KVPLAN_PLAN_H
#define KVPLAN_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kvplan/cost.h"
#include "kvplan/error.h"
#include "kvplan/estimate.h"
#include "kvplan/memory.h"
#include "kvplan/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ notes */

#define KVP_NOTES_MAX 24
#define KVP_NOTE_TEXT_MAX 320

/* Warnings and decisions worth telling a person, in order. Caller-owned, no
 * heap; when full, further notes are counted in `dropped`. */
typedef struct kvp_notes {
    uint32_t count;
    uint32_t dropped;
    char text[KVP_NOTES_MAX][KVP_NOTE_TEXT_MAX];
} kvp_notes;

KVP_API void kvp_notes_clear(kvp_notes *notes);

/* ------------------------------------------------------------ affine cost */

/* Seed CacheCost: bytes = slope * tokens + intercept. The intercept is fixed
 * GPU-resident state (recurrent state per slot, sliding-window blocks held for
 * max_batch_size sequences); the legacy proportional cost has intercept 0. */
typedef struct kvp_affine_cost {
    uint64_t slope_bytes_per_token;
    uint64_t intercept_bytes;
} kvp_affine_cost;

/* CacheCost.tokens_for_budget: max((budget - intercept) // slope, 0); 0 when
 * the slope is 0 (seed: "if self.slope <= 0: return 0"). */
KVP_API uint64_t kvp_affine_tokens_for_budget(kvp_affine_cost cost, uint64_t budget_bytes);
/* CacheCost.bytes_for_tokens: slope * tokens + intercept (KVP_OVERFLOW). */
KVP_API KVP_NODISCARD kvp_status kvp_affine_bytes_for_tokens(kvp_affine_cost cost, uint64_t tokens,
                                                     uint64_t *out_bytes, kvp_error *err);
/* CacheCost.__add__ (KVP_OVERFLOW). */
KVP_API KVP_NODISCARD kvp_status kvp_affine_add(kvp_affine_cost a, kvp_affine_cost b,
                                        kvp_affine_cost *out, kvp_error *err);

/* ----------------------------------------------------------------- budget */

/* configure_kv_cache_capacity: peak = allocator peak + max(total_used -
 * allocator_used, 0). Writes the non-allocator term to *out_extra (may be NULL). */
KVP_API KVP_NODISCARD kvp_status kvp_profiled_peak_bytes(uint64_t allocator_peak_bytes,
                                                 uint64_t total_used_bytes,
                                                 uint64_t allocator_used_bytes,
                                                 uint64_t *out_peak_bytes,
                                                 uint64_t *out_extra_bytes, kvp_error *err);

/* _cal_max_memory: int((total - peak + allocated_during_estimation) * fraction).
 * KVP_INVALID_ARG for a fraction outside (0, 1]; KVP_INFEASIBLE when the peak
 * exceeds total + allocated (nothing is left for the KV cache: the seed would
 * carry a negative budget and end with zero tokens). */
KVP_API KVP_NODISCARD kvp_status kvp_budget_bytes(uint64_t total_bytes, uint64_t peak_bytes,
                                          uint64_t allocated_during_estimation_bytes,
                                          double fraction, uint64_t *out_bytes, kvp_error *err);

/* _get_multimodal_encoder_memory_reserve: max(0, output_budget - profiled
 * output) + (encoder cache active ? encoder_cache_max_bytes : 0). */
KVP_API KVP_NODISCARD kvp_status kvp_mm_encoder_reserve_bytes(uint64_t output_budget_bytes,
                                                      uint64_t profiled_output_bytes,
                                                      bool encoder_cache_active,
                                                      uint64_t encoder_cache_max_bytes,
                                                      uint64_t *out_bytes, kvp_error *err);

/* _adjust_torch_mem_fraction: (free + reserved - 32 MiB) / total, the
 * allocator's per-process fraction. KVP_INVALID_ARG when total is 0 or
 * free + reserved is below the 32 MiB safety margin. */
KVP_API KVP_NODISCARD kvp_status kvp_allocator_fraction(uint64_t free_bytes, uint64_t reserved_bytes,
                                                uint64_t total_bytes, double *out_fraction,
                                                kvp_error *err);

/* ----------------------------------------------- MLA context workspace */

typedef struct kvp_mla_workspace_policy {
    bool enable_block_reuse;
    bool enable_chunked_prefill;
    bool workspace_is_chunked_prefill_bounded;  /* backend declaration; seed default true */
    bool chunked_workspace_profiled;            /* a chunk-aware profiling run happened */
    bool require_chunked_workspace_profile;     /* SM100+ with w > 0 and chunked prefill */
    uint64_t max_batch_size, max_num_tokens, max_seq_len;
    bool has_kv_len_cap_override;               /* fp8_context_mla_kv_len_cap set */
    uint64_t kv_len_cap_override;
} kvp_mla_workspace_policy;

/* get_mla_context_workspace_kv_len_cap. Returns false (seed None) when the
 * workspace cannot exceed the profiled floor; else *out_cap = worst case
 * min(max_batch_size, max_num_tokens) * max_seq_len, or the override floored
 * at max_seq_len and capped at the worst case. KVP_OVERFLOW is reported
 * through *status (may be NULL) and returns false. */
KVP_API bool kvp_mla_workspace_kv_len_cap(const kvp_mla_workspace_policy *policy, uint64_t *out_cap,
                                  kvp_status *status);

/* get_mla_context_workspace_reserve: reserve = min(w * cap, budget * w / (k + w))
 * and the admission cap reserve / w. Returns 0 with *has_cap = false when any
 * input is zero (seed: (0, None)). */
KVP_API uint64_t kvp_mla_workspace_reserve(uint64_t budget_bytes, uint64_t k_bytes_per_token,
                                   uint64_t w_bytes_per_token, uint64_t kv_len_cap,
                                   uint64_t *out_cap_tokens, bool *out_has_cap);

/* ------------------------------------------------------ attention windows */

/* Per-layer window lists hold tokens; 0 stands for the seed's None
 * (= max_seq_len). */

/* _normalize_attention_windows: each window min(max_seq_len, w); returns 0
 * (seed None) when all equal max_seq_len, 1 with out[0] when all equal, else
 * n with the list. `out` holds n entries; it may alias `in`. */
KVP_API size_t kvp_windows_normalize(const uint64_t *in, size_t n, uint64_t max_seq_len, uint64_t *out);

/* uses_vswa_kv_cache_layout: a window list selects the multi-pool (variable
 * sliding window) layout when it carries at least two distinct windows. */
KVP_API bool kvp_windows_use_vswa(const uint64_t *windows, size_t n);

/* Number of distinct values (layer groups) of a window list. */
KVP_API size_t kvp_windows_distinct(const uint64_t *windows, size_t n);

/* _derive_layer_type_attention_windows: one window per decoder layer in global
 * layer order (sliding layers their window, others max_seq_len), from the
 * model's layer records (the HF reader builds them from layer_types). Returns
 * 0 when the model has no sliding layers or the normalized schedule does not
 * select a VSWA layout. `out` holds info->num_layers entries. */
KVP_API size_t kvp_windows_from_layer_types(const kvp_model *model, uint64_t max_seq_len, uint64_t *out,
                                    size_t out_cap);

/* ------------------------------------------------------------ managers */

/* Manager kinds, engine-neutrally named after the seed's classes. */
typedef enum kvp_manager_kind {
    KVP_MANAGER_PAGED_V1 = 0,     /* KVCacheManager */
    KVP_MANAGER_PAGED_V2,         /* KVCacheManagerV2 */
    KVP_MANAGER_HYBRID_UNIFIED,   /* CppMambaHybridCacheManager: one C++ pool, block reuse */
    KVP_MANAGER_HYBRID_MIXED,     /* MixedMambaHybridCacheManager: separate KV / state pools */
    KVP_MANAGER_HYBRID_V2,        /* MambaHybridCacheManagerV2 */
    KVP_MANAGER_SPARSE_V1,        /* sparse-attention manager on V1 */
    KVP_MANAGER_SPARSE_V2,        /* sparse-attention manager on V2 */
    KVP_MANAGER_SPARSE_HYBRID_V2, /* QSA manager over the hybrid V2 manager */
    KVP_MANAGER_FP4_MLA_V2,       /* Fp4MlaKVCacheManagerV2 */
    KVP_MANAGER_KIND_COUNT
} kvp_manager_kind;

/* "paged-v1", "paged-v2", "hybrid-unified", "hybrid-mixed", "hybrid-v2",
 * "sparse-v1", "sparse-v2", "sparse-hybrid-v2", "fp4-mla-v2". */
KVP_API const char *kvp_manager_kind_name(kvp_manager_kind kind);
/* issubclass(cls, KVCacheManagerV2). */
KVP_API bool kvp_manager_is_v2(kvp_manager_kind kind);
/* Managers that keep recurrent state next to the paged KV. */
KVP_API bool kvp_manager_is_hybrid(kvp_manager_kind kind);

/* The seed's TLLM_MAMBA_MANAGER_PREFERENCE, as an explicit setting. */
typedef enum kvp_mamba_preference {
    KVP_MAMBA_PREF_NONE = 0, /* unset */
    KVP_MAMBA_PREF_MIXED,
    KVP_MAMBA_PREF_CPP,
    KVP_MAMBA_PREF_OTHER /* unrecognised value: a warning, then the default */
} kvp_mamba_preference;

/* Everything get_kv_cache_manager_cls reads. Model traits first. */
typedef struct kvp_manager_inputs {
    bool is_mla, is_hybrid_linear, is_kimi_linear, is_gemma4_hybrid;
    uint32_t num_recurrent_layers;  /* mamba / linear-attention layers */
    bool fp4_kv;                    /* quant mode has an fp4 KV cache */
    bool use_v2;                    /* use_kv_cache_manager_v2 is True (after "auto") */
    bool v2_explicit_false;         /* use_kv_cache_manager_v2 is False (not just unset) */
    const char *attn_backend;       /* NULL = "TRTLLM" */
    const char *sparse_algorithm;   /* NULL = no sparse attention; "qsa", "skip_softmax", ... */
    bool mamba_additional_snapshots;/* additional_snapshot_offsets_from_start/_end set */
    bool helix_cp, has_spec;
    bool enable_block_reuse, enable_kv_pool_rebalance;
    bool is_disagg;
    const char *transceiver_backend;/* "NIXL", "UCX", ...; NULL = unset */
    const char *transceiver_runtime;/* "PYTHON", "CPP"; NULL or "auto" = C++ fallback */
    bool force_mixed_hybrid;        /* the seed's TRTLLM_USE_PY_MAMBA=1 */
    kvp_mamba_preference mamba_preference;
    uint32_t max_beam_width;        /* for the V2 fallback; 0 -> 1 */
} kvp_manager_inputs;

/* get_kv_cache_manager_cls (before the V2 fallback). Errors are the seed's,
 * as KVP_CONFIG (ValueError) or KVP_UNSUPPORTED (NotImplementedError), key
 * naming the setting. Notes get the seed's warnings and info lines. */
KVP_API KVP_NODISCARD kvp_status kvp_manager_choose(const kvp_manager_inputs *in, kvp_manager_kind *out,
                                            kvp_notes *notes, kvp_error *err);

/* kv_cache_manager_v2_incompatible_features: "max_beam_width > 1" or NULL. */
KVP_API const char *kvp_v2_incompatible_feature(uint32_t max_beam_width);

/* _validate_or_fallback_kv_cache_manager_v2: a V2 manager with an
 * incompatible feature falls back to paged v1 (warning), except sparse, Gemma4
 * hybrid, fp4 MLA and hybrid linear models, which fail (KVP_UNSUPPORTED). */
KVP_API KVP_NODISCARD kvp_status kvp_manager_validate_v2(const kvp_manager_inputs *in,
                                                 kvp_manager_kind chosen, kvp_manager_kind *out,
                                                 kvp_notes *notes, kvp_error *err);

/* Both steps; plus the seed's warning when block reuse meets speculative
 * decoding on a non-V2 hybrid manager. */
KVP_API KVP_NODISCARD kvp_status kvp_manager_select(const kvp_manager_inputs *in, kvp_manager_kind *out,
                                            kvp_notes *notes, kvp_error *err);

/* _create_kv_cache_manager's hybrid branches: a manager keeping recurrent state
 * with max_beam_width > 1 fails (KVP_CONFIG, "MambaHybridCacheManager + beam
 * search is not supported yet"). */
KVP_API KVP_NODISCARD kvp_status kvp_manager_check_beam(kvp_manager_kind kind, uint32_t max_beam_width,
                                                kvp_error *err);
/* The same branches with a KV connector on the final (not estimation) build:
 * KVP_UNSUPPORTED ("Connector manager is not supported for
 * MambaHybridCacheManager"). */
KVP_API KVP_NODISCARD kvp_status kvp_manager_check_connector(kvp_manager_kind kind, bool has_kv_connector,
                                                     kvp_error *err);
/* The manager class's _supports_reuse_match_backoff (paged-v2 and fp4-mla-v2). */
KVP_API bool kvp_manager_supports_reuse_backoff(kvp_manager_kind kind);
/* _joint_reuse_supported: a V2 manager, a known draft prompt lookahead
 * (negative = None), and for a positive lookahead a manager that can back a
 * prefix match off. build_managers ANDs it with a separate one-model draft
 * and block reuse. */
KVP_API bool kvp_joint_reuse_supported(kvp_manager_kind kind, int32_t draft_prompt_lookahead);

/* Model traits for kvp_manager_inputs from a model (is_mla, hybrid, Kimi
 * linear, Gemma4 hybrid, recurrent layer count). `fp4_kv` from kv_dtype. */
KVP_API void kvp_manager_inputs_from_model(const kvp_model *model, kvp_dtype kv_dtype,
                                   kvp_manager_inputs *in);

/* ------------------------------------------------ speculative decoding */

typedef enum kvp_spec_mode {
    KVP_SPEC_NONE = 0,
    KVP_SPEC_EAGLE3,       /* one-model EAGLE3: draft layers after the target's */
    KVP_SPEC_MTP,          /* one-model MTP: target-shaped draft layers */
    KVP_SPEC_TWO_MODEL,    /* a separate draft engine (draft/target two-model) */
    KVP_SPEC_DRAFT_TARGET_ONE_MODEL, /* external drafter, one model */
    KVP_SPEC_DFLASH,       /* standalone external drafter (keeps its own dtype) */
    KVP_SPEC_DSPARK,       /* DSpark: the other standalone external drafter */
    KVP_SPEC_MODE_COUNT
} kvp_spec_mode;

/* "none", "eagle3", "mtp", "two-model", "draft-target", "dflash", "dspark". */
KVP_API const char *kvp_spec_mode_name(kvp_spec_mode mode);
KVP_API KVP_NODISCARD kvp_status kvp_spec_mode_parse(const char *name, kvp_spec_mode *out);
/* is_external_drafter(): draft layers start from 0 with their own PP split. */
KVP_API bool kvp_spec_is_external_drafter(kvp_spec_mode mode);
/* spec_dec_mode.is_dflash() or is_dspark(): a drafter with nothing to append to
 * the target pool. It keeps a separate draft cache under attention DP and its
 * own weights dtype instead of an inherited fp8 KV algo. */
KVP_API bool kvp_spec_is_standalone_drafter(kvp_spec_mode mode);
/* tokens_per_gen_step of a linear draft: max_draft_len + 1 (0 without spec). */
KVP_API uint32_t kvp_spec_tokens_per_gen_step(kvp_spec_mode mode, uint32_t max_draft_len);
/* get_num_extra_kv_tokens: one-model EAGLE3 / MTP keep max_draft_len - 1
 * extra KV tokens per sequence (not in the seed; from the engine's helper). */
KVP_API uint32_t kvp_spec_extra_kv_tokens(kvp_spec_mode mode, uint32_t max_draft_len);
/* draft_prompt_lookahead: how many tokens the draft's prompt KV runs behind the
 * target's (the span a joint prefix match backs off by); -1 = None (no
 * speculation, or a two-model draft with its own engine). kvplan's reading of
 * the speculative module, which the seed imports but does not carry: one-model
 * EAGLE3 and MTP layers take the embedding of token i+1 at position i (1); an
 * external drafter drafts over the same prompt (0). */
KVP_API int32_t kvp_spec_draft_prompt_lookahead(kvp_spec_mode mode);

/* _get_draft_kv_model_config: the draft pool's dtype. A standalone drafter
 * (DFlash) drops an fp8 KV algo inherited from the target and stores its pool
 * in its weights dtype; every other mode keeps the requested KV dtype. */
KVP_API kvp_dtype kvp_draft_kv_dtype(kvp_spec_mode mode, kvp_dtype target_kv_dtype,
                             kvp_dtype draft_weights_dtype);

/* draft_config_defines_attention_layout: the draft config states
 * use_sliding_window, sliding_window or a non-empty layer_types. Reads the
 * model's config text; false for models without one. */
KVP_API bool kvp_draft_defines_attention_layout(const kvp_model *draft);

/* _expand_attention_window_pattern_to_global_layers: a pattern over enabled
 * layers, expanded to global layer order (disabled layers get pattern[0]).
 * `out` holds mask_count entries. Returns mask_count, or 0 when pattern_count
 * is 0 (seed None). */
KVP_API size_t kvp_windows_expand_to_global(const uint64_t *pattern, size_t pattern_count,
                                    const bool *layer_mask, size_t mask_count, uint64_t *out);

/* _build_per_layer_num_kv_heads: a scalar (returns 1, out[0]) when target and
 * draft heads agree or there is no draft, else target heads x target layers
 * followed by draft heads x spec layers (returns their count; out holds
 * target_layers + spec_layers entries). draft_kv_heads 0 = unknown. */
KVP_API size_t kvp_per_layer_kv_heads(uint32_t target_kv_heads, uint32_t target_layers,
                              uint32_t draft_kv_heads, uint32_t spec_layers, uint32_t *out);

/* ------------------------------------------------------ budget splits */

/* _compute_draft_budget_shares: intercepts first, then the rest in
 * proportion to the slopes (draft share floored). Returns false (seed None)
 * when the budget is below the summed intercepts, or equal to it while a
 * slope is positive. */
KVP_API bool kvp_draft_budget_shares(uint64_t total_budget_bytes, kvp_affine_cost target,
                             kvp_affine_cost draft, uint64_t *out_target_bytes,
                             uint64_t *out_draft_bytes);

typedef enum kvp_budget_attr {
    KVP_BUDGET_MAX_GPU_TOTAL_BYTES = 0,
    KVP_BUDGET_HOST_CACHE_SIZE,
    KVP_BUDGET_DISK_CACHE_SIZE
} kvp_budget_attr;

/* "max_gpu_total_bytes", "host_cache_size", "disk_cache_size". */
KVP_API const char *kvp_budget_attr_name(kvp_budget_attr attr);

/* _split_kv_cache_budget_for_draft for one attribute. When the split does not
 * apply (a zero total, `have_costs` false, or a cost with neither slope nor
 * intercept) both outputs are the unsplit total and *out_split is false.
 * Non-GPU budgets drop the intercepts (fixed state is GPU-resident). An
 * infeasible GPU budget fails (KVP_INFEASIBLE) with the seed's guidance; an
 * infeasible non-GPU budget gives the draft 0 (the seed's defensive path,
 * unreachable while intercepts are dropped). */
KVP_API KVP_NODISCARD kvp_status kvp_split_budget_for_draft(kvp_budget_attr attr, uint64_t total_bytes,
                                                    bool have_costs, kvp_affine_cost target,
                                                    kvp_affine_cost draft,
                                                    uint64_t *out_target_bytes,
                                                    uint64_t *out_draft_bytes, bool *out_split,
                                                    kvp_notes *notes, kvp_error *err);

/* ------------------------------------------------- encoder-decoder cross */

typedef struct kvp_cross_geometry {
    uint32_t num_layers;       /* decoder layers */
    uint32_t num_kv_heads;     /* encoder-side KV heads */
    uint32_t num_heads;        /* encoder attention heads */
    uint32_t head_dim;
    uint64_t hidden_size;
    uint64_t max_seq_len;      /* encoder tokens the cross pool holds per sequence */
} kvp_cross_geometry;

/* _get_cross_kv_cache_layout from the model's config text, with the seed's
 * attribute fallbacks (num_decoder_layers, decoder_layers, num_hidden_layers,
 * num_layers; encoder_num_heads, encoder_attention_heads, ...). max_seq_len
 * is fallback_max_seq_len, replaced by max_input_len when > 0, capped by the
 * first encoder limit key present. KVP_CONFIG names the missing attribute. */
KVP_API KVP_NODISCARD kvp_status kvp_cross_geometry_from_model(const kvp_model *model,
                                                       uint64_t fallback_max_seq_len,
                                                       uint64_t max_input_len,
                                                       kvp_cross_geometry *out, kvp_error *err);

/* _get_cross_kv_size_per_token via the static estimator:
 * 2 * layers * floor(head_dim * kv_heads / tp) * element bytes (fp8: 1,
 * nvfp4: half + 1/16 scales, everything else 2). */
KVP_API KVP_NODISCARD kvp_status kvp_cross_bytes_per_token(const kvp_cross_geometry *g, uint32_t tp,
                                                   kvp_dtype kv_dtype, uint64_t *out_bytes,
                                                   kvp_error *err);

typedef struct kvp_cross_split {
    double self_fraction, cross_fraction;
    uint64_t self_gpu_bytes, cross_gpu_bytes;   /* 0 when max_gpu_total_bytes unset */
    uint64_t self_host_bytes, cross_host_bytes; /* 0 when host_cache_size unset */
} kvp_cross_split;

/* _split_kv_cache_budget_for_cross: cross = int(total * fraction), self =
 * total - cross, for the free fraction (float), max_gpu_total_bytes and
 * host_cache_size. has_cross_fraction false -> KVP_CONFIG ("Encoder-decoder
 * models require cross_kv_cache_fraction ..."); free_fraction <= 0 and no
 * byte budget -> KVP_CONFIG (nothing can be split). */
KVP_API KVP_NODISCARD kvp_status kvp_split_budget_for_cross(bool has_cross_fraction,
                                                    double cross_fraction, double free_fraction,
                                                    uint64_t max_gpu_total_bytes,
                                                    uint64_t host_cache_size,
                                                    kvp_cross_split *out, kvp_error *err);

/* ------------------------------------------------------ model facts */

/* _try_infer_num_experts: the first of num_experts, num_local_experts,
 * moe_num_experts, experts_per_router present in the config; 1 when none. */
KVP_API uint64_t kvp_num_experts(const kvp_model *model);

/* _compute_num_lora_modules: num_hidden_layers * modules, or with per-layer
 * block_configs (Nemotron-NAS) attention modules only on layers whose
 * attention is neither no_op nor replace_with_linear, MLP modules likewise
 * on FFNs, and other modules on every layer. */
KVP_API KVP_NODISCARD kvp_status kvp_lora_module_slots(const kvp_model *model,
                                               const char *const *target_modules,
                                               size_t module_count, uint64_t *out_slots,
                                               kvp_error *err);

/* Gemma-4 hybrid per-layer lists (_create_kv_cache_manager): sliding layers
 * keep head_dim and num_key_value_heads; full layers global_head_dim and, with
 * attention_k_eq_v, num_global_key_value_heads. Returns the layer count (0
 * when the model is not a Gemma-4 hybrid); arrays hold out_cap entries. */
KVP_API size_t kvp_gemma4_layer_geometry(const kvp_model *model, uint32_t *out_head_dims,
                                 uint32_t *out_kv_heads, size_t out_cap);

/* ------------------------------------------ rules around the creator */

/* create_py_executor_instance: an encoder-decoder model's executor caps each
 * request's max_seq_len at the decoder position table (max_target_positions),
 * since max_seq_len covers the longer encoder sequence. Returns true when the
 * model is encoder-decoder and states max_target_positions; *out is
 * min(max_seq_len, max_target_positions), else max_seq_len. */
KVP_API bool kvp_decoder_max_seq_len(const kvp_model *model, uint64_t max_seq_len, uint64_t *out);

/* avg_seq_len of one manager: try_prepare_estimation sets it to max_seq_len
 * (configure restores the user's value, 0 = None); during estimation a V2
 * manager without pool_ratio gets min(that, its own max_seq_len)
 * (_create_kv_cache_manager). The V2 manager reads it as its workload hint
 * for splitting the quota between pool groups; kvplan's V2 model (window pools
 * in the intercept) does not depend on it. */
KVP_API uint64_t kvp_manager_avg_seq_len(bool estimating, bool is_v2, bool pool_ratio_set,
                                         uint64_t user_avg_seq_len,
                                         uint64_t creator_max_seq_len,
                                         uint64_t manager_max_seq_len);

typedef enum kvp_compression_algorithm {
    KVP_COMPRESSION_NONE = 0,
    KVP_COMPRESSION_COLD_PAGE_QUANT, /* "quantization_for_cold_page" */
    KVP_COMPRESSION_TRIATTENTION,    /* "triattention" */
    KVP_COMPRESSION_COUNT
} kvp_compression_algorithm;

/* KvCacheCompressionConfig. */
typedef struct kvp_kv_compression {
    kvp_compression_algorithm algorithm;
    const char *quant;                 /* cold-page format as given ("nvfp4") */
    bool quant_nvfp4;                  /* quant is "nvfp4" */
    bool triattention_union_eviction;  /* eviction_mode = "union" */
} kvp_kv_compression;

/* "none", "quantization_for_cold_page", "triattention". */
KVP_API const char *kvp_compression_name(kvp_compression_algorithm algorithm);
KVP_API KVP_NODISCARD kvp_status kvp_compression_parse(const char *name,
                                                       kvp_compression_algorithm *out);
/* is_sm_100f: SM100, SM103 or SM107. */
KVP_API bool kvp_sm_is_100_family(uint32_t sm_version);

/* validate_kv_cache_compression_compatibility, errors worded as the seed:
 * NVFP4 cold-page quantization and TriAttention need an SM100-family device
 * (KVP_UNSUPPORTED, key "sm_version"); an algorithm without block-reuse
 * support refuses enable_block_reuse (TriAttention: its evicted pages cannot
 * match a prefix); with speculation, TriAttention needs union eviction and
 * only one-model MTP / EAGLE3 are accepted (KVP_CONFIG). */
KVP_API KVP_NODISCARD kvp_status kvp_kv_compression_validate(const kvp_kv_compression *config,
                                                             uint32_t sm_version,
                                                             bool enable_block_reuse,
                                                             kvp_spec_mode spec, kvp_error *err);

/* What a compression manager changes. */
typedef struct kvp_compression_effect {
    bool active;                 /* a compression manager is built */
    kvp_dtype cold_page_dtype;   /* cold (offloaded) pages stored in this dtype; AUTO = KV dtype */
    bool iteration_lifecycle;    /* runs as a resource manager after the KV managers */
} kvp_compression_effect;

/* create_kv_cache_compression_manager: helix CP refuses compression; cold-page
 * quantization needs format nvfp4 (KVP_UNSUPPORTED otherwise) and a V2
 * manager, is not built for the estimation pass, and is skipped (a note) when
 * the KV cache already is nvfp4; then validation as above. The GPU pools are
 * unchanged: cold-page quantization re-encodes pages as they migrate to the
 * host tier (nvfp4: 4.5 bits a value instead of the KV dtype's). */
KVP_API KVP_NODISCARD kvp_status kvp_kv_compression_manager(
    const kvp_kv_compression *config, bool helix_cp, kvp_manager_kind manager, kvp_dtype kv_dtype,
    uint32_t sm_version, bool enable_block_reuse, kvp_spec_mode spec, bool estimating,
    kvp_compression_effect *out, kvp_notes *notes, kvp_error *err);

#define KVP_LORA_MAX_MODULES 32

/* LoraConfig / PeftCacheConfig fields the executor reads. */
typedef struct kvp_lora_settings {
    uint32_t max_lora_rank;
    bool has_max_loras, has_max_cpu_loras;
    uint32_t max_loras, max_cpu_loras;
    const char *const *target_modules;   /* lora_target_modules (TensorRT-LLM names) */
    size_t module_count;
    const char *const *missing_qkv_modules;
    size_t missing_qkv_count;
    uint64_t shared_expert_global_size;  /* _infer_shared_expert_size_from_adapter; 0 = none */
} kvp_lora_settings;

typedef struct kvp_lora_cache {
    uint64_t num_experts;                /* _try_infer_num_experts */
    uint32_t num_kv_heads;               /* max over layers */
    uint64_t shared_expert_hidden_size;  /* adapter size // tp */
    uint64_t moe_hidden_size;            /* moe_intermediate_size // tp */
    uint64_t mamba_in_proj_size;         /* (2 d_inner + 2 n_groups d_state + heads) // tp */
    uint64_t mamba_inner_size;           /* d_inner // tp */
    uint64_t moe_latent_size;            /* replicated */
    const char *modules[2 * KVP_LORA_MAX_MODULES]; /* after the shared-expert rewrite */
    size_t module_count;
    uint64_t num_lora_modules;           /* module-layer slots (_compute_num_lora_modules) */
    bool has_device, has_host;
    uint64_t device_module_layers;       /* num_device_module_layer */
    uint64_t host_module_layers;         /* num_host_module_layer */
} kvp_lora_cache;

/* The PEFT cache sizing of create_py_executor_instance: module dimensions
 * handed to LoraModule.create_lora_modules (KV heads, shared-expert, MoE and
 * Mamba sizes per TP rank), the mlp_* -> shared_expert_* rewrite (mlp_* kept
 * only with dense MLP layers), the module-layer slots and
 * num_device_module_layer = max_lora_rank x slots x max_loras (host:
 * max_cpu_loras). Errors: rank 0, no or unknown target modules
 * (KVP_INVALID_ARG), an adapter shared-expert size that does not divide over
 * TP (KVP_CONFIG). `notes` may be NULL. */
KVP_API KVP_NODISCARD kvp_status kvp_lora_cache_size(const kvp_model *model,
                                                     const kvp_lora_settings *settings,
                                                     uint32_t tp, kvp_lora_cache *out,
                                                     kvp_notes *notes, kvp_error *err);

/* One modality of the input processor's get_mm_max_tokens_per_item. */
typedef struct kvp_mm_item {
    const char *modality;
    uint64_t tokens_per_item;
} kvp_mm_item;

typedef struct kvp_mm_profile {
    bool has_batch;              /* false: no profiling batch (seed: []) */
    const char *modality;        /* borrowed from the items */
    uint64_t tokens_per_item, num_items, tokens;
} kvp_mm_profile;

/* _create_dummy_encoder_inputs: the modality with the most tokens per item
 * within encoder_max_num_tokens, min(encoder_batch_size, budget // tokens)
 * items of it. No batch when the budget is 0 or no modality fits. Errors as
 * the seed's: an empty modality name, a zero token count (KVP_INVALID_ARG). */
KVP_API KVP_NODISCARD kvp_status kvp_mm_encoder_profile_batch(const kvp_mm_item *items, size_t n,
                                                              uint64_t encoder_max_num_tokens,
                                                              uint64_t encoder_batch_size,
                                                              kvp_mm_profile *out,
                                                              kvp_error *err);
/* The profiling run's retained encoder output (numel x element size): tokens x
 * embedding_dim in dtype (AUTO = bf16). The creator subtracts it from the
 * encoder's output budget (kvp_mm_encoder_reserve_bytes). */
KVP_API KVP_NODISCARD kvp_status kvp_mm_encoder_output_bytes(const kvp_mm_profile *profile,
                                                             uint64_t embedding_dim,
                                                             kvp_dtype dtype,
                                                             uint64_t *out_bytes, kvp_error *err);

/* ---------------------------------------------------- estimation pass */

/* _get_mla_chunked_profile_length: the prompt length that profiles two full
 * cached-KV chunks plus a full query: ceil(2 * chunk * buffer_batch /
 * max_num_tokens) * max_num_tokens + max_num_tokens, or 0 (seed None) when
 * not MLA, not the TRTLLM backend, a sparse algorithm other than skip_softmax,
 * no chunked prefill, SM < 100, or the length exceeds input_seq_len. */
KVP_API uint64_t kvp_mla_chunked_profile_length(bool is_mla, const char *attn_backend,
                                        const char *sparse_algorithm, bool chunked_prefill,
                                        uint64_t chunk_size, uint64_t buffer_batch_size,
                                        uint32_t sm_version, uint64_t max_num_tokens,
                                        uint64_t input_seq_len);

typedef struct kvp_estimation_inputs {
    uint64_t net_max_seq_len;        /* the dummy prompt is max(1, net_max_seq_len - 1) */
    uint64_t max_num_tokens;
    uint64_t tokens_per_block;
    uint32_t max_beam_width;
    bool has_spec;
    uint32_t tokens_per_gen_step;
    uint32_t extra_kv_tokens;
    bool disable_overlap_scheduler;
    bool attention_dp;
    uint32_t tp;
    uint64_t engine_batch_size;      /* model_engine.batch_size */
    uint64_t max_cuda_graph_batch_size; /* 0 = no CUDA graphs */
    uint64_t engine_max_seq_len;     /* model_engine.max_seq_len */
    uint64_t mla_chunked_profile_length; /* 0 = none */
    bool is_v2;
    uint32_t num_pool_groups;        /* V2 only; 0 -> 1 */
    /* V1 only: the free-memory cap. */
    uint64_t free_bytes;
    double free_gpu_memory_fraction;
    kvp_affine_cost kv_cost;
} kvp_estimation_inputs;

typedef struct kvp_estimation_tokens {
    uint64_t dummy_requests;          /* after the attention-DP copies */
    uint64_t dummy_prompt_tokens;     /* length of a full dummy request */
    uint64_t extra_tokens_per_seq;    /* generated + speculative extra tokens */
    uint64_t request_blocks;          /* sum of ceil((prompt + extra) / tpb) */
    uint64_t adp_blocks;              /* after the attention-DP division */
    uint64_t cuda_graph_warmup_blocks;
    uint64_t floor_blocks;            /* after max(warm-up, requests) and the batch floor */
    uint64_t pool_blocks;             /* x pool groups x beam */
    uint64_t tokens_for_estimation;   /* pool_blocks * tpb */
    uint64_t tokens_in_memory;        /* V1: free-memory cap rounded to blocks */
    uint64_t max_tokens;              /* the answer */
} kvp_estimation_tokens;

/* _get_token_num_for_estimation. KVP_CONFIG for a zero tokens_per_block or
 * max_num_tokens; KVP_OVERFLOW. */
KVP_API KVP_NODISCARD kvp_status kvp_estimation_token_count(const kvp_estimation_inputs *in,
                                                    kvp_estimation_tokens *out, kvp_error *err);

/* _get_num_pool_groups_for_estimation. `user_windows` (count 0 = None) is
 * kv_cache_config.max_attention_window. Scratch through the model's allocator;
 * when that fails the answer is 1 group (the creator itself reports KVP_NOMEM). */
KVP_API uint32_t kvp_estimation_pool_groups(const kvp_model *model, uint64_t max_seq_len,
                                    const uint64_t *user_windows, size_t user_window_count);

/* ------------------------------------------------- the creator lifecycle */

/* Deployment settings (the seed's constructor arguments and llm_args).
 * Zero-initialise, then set; 0 means the documented default. */
/* TensorRT-LLM rule sets (kvplan plan --engine-version). */
typedef enum kvp_trtllm_rules {
    KVP_TRTLLM_RULES_2026 = 0, /* newest: a V2 window pool keeps one block more per slot
                                  (the generation token); a DFLASH draft on V2 is charged
                                  its context and generation slots / max_util_for_resume */
    KVP_TRTLLM_RULES_2025      /* older snapshots: the window alone, the draft as costed */
} kvp_trtllm_rules;

/* "2026", "2025". */
KVP_API const char *kvp_trtllm_rules_name(kvp_trtllm_rules rules);
/* "2026", "latest" or "" -> 2026; "2025", "pre-2026" -> 2025; else KVP_INVALID_ARG. */
KVP_API KVP_NODISCARD kvp_status kvp_trtllm_rules_parse(const char *version,
                                                        kvp_trtllm_rules *out);

typedef struct kvp_deploy_settings {
    uint32_t tp, pp, cp;               /* 0 -> 1 */
    int32_t pp_rank;                   /* stage to plan; negative -> busiest (last with draft layers) */
    bool attention_dp;
    bool helix_cp;                     /* cp_type HELIX (requires cp > 1) */
    uint64_t max_batch_size;           /* 0 -> 2048 */
    uint64_t max_num_tokens;           /* 0 -> 8192 */
    uint64_t max_seq_len;              /* 0 -> model's max_position_embeddings */
    uint64_t max_input_len;            /* encoder-decoder; 0 = unset */
    uint32_t max_beam_width;           /* 0 -> 1 */
    uint64_t max_cuda_graph_batch_size;/* 0 = no CUDA graphs */
    kvp_dtype kv_dtype;                /* AUTO -> checkpoint's KV quant, else model dtype */
    bool disable_overlap_scheduler;
    bool enable_chunked_prefill;
    uint64_t chunk_size, chunked_prefill_buffer_batch_size;
    const char *attn_backend;          /* NULL -> "TRTLLM" */
    uint32_t sm_version;               /* 0 -> 90 */
    kvp_spec_mode spec_mode;
    uint32_t max_draft_len;
    uint32_t num_draft_layers;         /* 0 -> derived (MTP modules, draft layers) */
    int32_t separate_draft_kv_cache;   /* -1 no, 1 yes, 0 auto (standalone drafters) */
    const char *sparse_algorithm;      /* NULL = none */
    bool is_disagg;
    const char *transceiver_backend, *transceiver_runtime;
    bool force_mixed_hybrid;           /* TRTLLM_USE_PY_MAMBA=1 */
    kvp_mamba_preference mamba_preference;
    bool skip_estimation;              /* TRTLLM_SKIP_KV_CACHE_ESTIMATION=1 */
    bool has_kv_connector;
    uint64_t attention_workspace_bytes_per_token; /* backend-declared w; 0 = none */
    bool workspace_not_chunked_prefill_bounded;
    uint32_t hybrid_dummy_slots;       /* extra recurrent slots; seed-derived default 1 */
    kvp_trtllm_rules trtllm_rules;     /* 0 = the newest (2026) rules */
    double max_util_for_resume;        /* V2 resume threshold in (0, 1]; 0 -> 1.0 */
    /* Multimodal encoder memory the profile does not hold (used by configure when the
     * measured memory states none): the encoder's output budget, the output the
     * profiling batch retains (kvp_mm_encoder_output_bytes), the encoder cache. */
    uint64_t mm_output_budget_bytes, mm_profiled_output_bytes, mm_encoder_cache_max_bytes;
    bool mm_encoder_cache_active;
} kvp_deploy_settings;

/* KvCacheConfig fields the creator reads. 0 / false = unset. */
typedef struct kvp_kv_config {
    double free_gpu_memory_fraction;   /* 0 -> 0.9 */
    bool has_max_tokens;
    uint64_t max_tokens;
    uint64_t max_gpu_total_bytes, host_cache_size, disk_cache_size;
    uint32_t tokens_per_block;         /* 0 -> 32 */
    bool enable_block_reuse, enable_kv_pool_rebalance;
    int32_t use_v2;                    /* -1 False, 1 True, 0 auto (hybrid/Gemma4 -> V2) */
    const uint64_t *max_attention_window; /* borrowed until kvp_creator_new returns */
    size_t max_attention_window_count;    /* 0 = None */
    const double *pool_ratio;
    size_t pool_ratio_count;              /* 0 = None */
    bool has_cross_kv_cache_fraction;
    double cross_kv_cache_fraction;
    bool has_fp8_context_mla_kv_len_cap;
    uint64_t fp8_context_mla_kv_len_cap;
    bool mamba_additional_snapshots;
    uint64_t avg_seq_len;                 /* 0 = None (kvp_manager_avg_seq_len) */
    kvp_dtype mamba_ssm_cache_dtype;      /* KvCacheConfig.mamba_ssm_cache_dtype; AUTO = the
                                             config's mamba_ssm_cache_dtype, else the model
                                             dtype (ENGINES.md 4.4) */
} kvp_kv_config;

typedef struct kvp_creator kvp_creator;

/* Create a creator. `target` required; `draft` optional (EAGLE3 draft config,
 * two-model draft, external drafter); both borrowed and must outlive the
 * creator. Selects the managers (errors as kvp_manager_select) and checks the
 * speculative settings against the draft (KVP_CONFIG). */
KVP_API KVP_NODISCARD kvp_status kvp_creator_new(const kvp_model *target, const kvp_model *draft,
                                         const kvp_deploy_settings *deploy,
                                         const kvp_kv_config *kv, const kvp_allocator *alc,
                                         kvp_creator **out, kvp_error *err);
KVP_API void kvp_creator_free(kvp_creator *creator);

/* Notes gathered so far (manager choice, windows, splits). */
KVP_API const kvp_notes *kvp_creator_notes(const kvp_creator *creator);
KVP_API kvp_manager_kind kvp_creator_manager(const kvp_creator *creator);
/* The settings with defaults applied. */
KVP_API const kvp_deploy_settings *kvp_creator_deploy(const kvp_creator *creator);

typedef struct kvp_estimation_plan {
    bool estimating;                   /* the profiling pass runs */
    bool skip_estimation;              /* configure from current memory, no pass */
    uint64_t max_tokens;               /* temporary max_tokens */
    uint64_t max_gpu_total_bytes;      /* temporary V2 byte cap (0 = V1) */
    kvp_estimation_tokens tokens;      /* the token count's derivation */
} kvp_estimation_plan;

/* try_prepare_estimation. free_bytes = device free memory after loading the
 * weights (torch.cuda.mem_get_info). */
KVP_API KVP_NODISCARD kvp_status kvp_creator_prepare_estimation(kvp_creator *creator, uint64_t free_bytes,
                                                        kvp_estimation_plan *out, kvp_error *err);

/* What the engine measured in configure_kv_cache_capacity. */
typedef struct kvp_measured_memory {
    uint64_t total_bytes;
    bool profiled;                     /* the dummy requests ran */
    /* profiled: */
    uint64_t allocator_peak_bytes;     /* allocated_bytes.all.peak (weights + activations) */
    uint64_t non_allocator_bytes;      /* max(total_used - allocator_used, 0): NCCL, graphs */
    uint64_t allocated_during_estimation_bytes; /* temporary KV of the pass (target + draft) */
    uint64_t weights_bytes;            /* allocator current before the pass (report only) */
    /* not profiled: */
    uint64_t used_bytes;               /* total - free after loading */
    /* multimodal encoder */
    uint64_t mm_output_budget_bytes, mm_profiled_output_bytes, mm_encoder_cache_max_bytes;
    bool mm_encoder_cache_active;
} kvp_measured_memory;

typedef struct kvp_capacity {
    uint64_t peak_bytes;               /* incl. the multimodal reserve */
    uint64_t mm_reserve_bytes;
    uint64_t budget_bytes;             /* _cal_max_memory */
    uint64_t mla_workspace_reserve_bytes;
    bool has_mla_kv_len_cap;
    uint64_t mla_kv_len_cap_tokens;    /* the scheduler's admission cap */
    uint64_t after_max_tokens_bytes;   /* after a user max_tokens (V1) */
    uint64_t kv_max_memory_bytes;      /* final max_gpu_total_bytes */
    uint64_t max_tokens;               /* V1: tokens_for_budget; V2: user value (0 = none) */
    bool helix;                        /* sized by the helix path */
} kvp_capacity;

/* configure_kv_cache_capacity. */
KVP_API KVP_NODISCARD kvp_status kvp_creator_configure(kvp_creator *creator,
                                               const kvp_measured_memory *measured,
                                               kvp_capacity *out, kvp_error *err);
/* The same tail from a budget already after the fraction (`--kv-budget`). */
KVP_API KVP_NODISCARD kvp_status kvp_creator_configure_budget(kvp_creator *creator, uint64_t budget_bytes,
                                                      kvp_capacity *out, kvp_error *err);
/* What a caller measured of one rank's memory; terms not measured are estimated. */
typedef struct kvp_memory_measured {
    uint64_t total_bytes;           /* device memory (catalogue, --gpu-mem or probe); required */
    uint64_t free_bytes;            /* free now (probe); 0 = unknown. Memory already held on
                                       the device counts as memory outside the allocator. */
    bool has_weights, has_peak, has_non_torch;
    uint64_t weights_bytes;         /* weights on this rank */
    uint64_t peak_bytes;            /* allocator peak of the profiling pass, weights included */
    uint64_t non_torch_bytes;       /* memory outside the allocator (graphs included unless
                                       non_torch_has_graphs is false) */
    bool has_activation_peak;       /* the peak without the weights (vLLM V1 "peak
                                       activation"); exclusive with has_peak */
    uint64_t activation_peak_bytes;
    bool has_cuda_graph;            /* captured CUDA graphs, measured */
    uint64_t cuda_graph_bytes;
    bool cuda_graph_apart;          /* graphs are their own term (vLLM): a measured non-torch
                                       term does not hold them, so they are estimated when not
                                       given; false: a measured non-torch term includes them
                                       (TRT-LLM measures after capture) */
    bool non_torch_after_init;      /* unused: the estimate charges each engine's terms where
                                       that engine does (kvp_estimate_settings.engine) */
} kvp_memory_measured;

/* Memory facts of one rank: the measured terms as given, every other term from
 * kvp_memory_estimate(model, estimate) with its KVP_MEM_EST_* bit set. The one
 * sequence every front end (plan, sim, fit, sweep) follows, so they never differ.
 * Errors: KVP_INVALID_ARG when the peak is below the weights; estimate errors. */
KVP_API KVP_NODISCARD kvp_status kvp_memory_resolve(const kvp_model *model,
                                            const kvp_memory_measured *measured,
                                            const kvp_estimate_settings *estimate,
                                            kvp_memory_facts *out, kvp_error *err);

/* The seed's capacity step from memory facts: size the estimation pass from what
 * is free after weights and runtime, then configure with the profiled peak
 * (weights + activation), the memory outside the allocator (non-torch + graphs)
 * and `estimation_kv_bytes` the profiling cache held. *est and *cap are filled. */
KVP_API KVP_NODISCARD kvp_status kvp_creator_configure_from_facts(kvp_creator *creator,
                                                          const kvp_memory_facts *facts,
                                                          uint64_t estimation_kv_bytes,
                                                          kvp_estimation_plan *est,
                                                          kvp_capacity *cap, kvp_error *err);

/* The helix path (_configure_helix_kv_cache_capacity): explicit quotas pass,
 * else int(free * fraction). */
KVP_API KVP_NODISCARD kvp_status kvp_creator_configure_helix(kvp_creator *creator, uint64_t free_bytes,
                                                     kvp_capacity *out, kvp_error *err);

typedef enum kvp_manager_role {
    KVP_ROLE_TARGET = 0,
    KVP_ROLE_DRAFT,
    KVP_ROLE_CROSS,
    KVP_ROLE_COUNT
} kvp_manager_role;

/* "target", "draft", "cross". */
KVP_API const char *kvp_manager_role_name(kvp_manager_role role);

/* One pool of a manager and what its quota buys. */
typedef struct kvp_plan_pool {
    kvp_cache_kind kind;
    uint32_t layers;
    uint64_t window_tokens;            /* effective window the manager keeps; 0 = full context */
    uint64_t bytes_per_token;          /* slope of this pool */
    uint64_t bytes_per_sequence;       /* intercept per sequence slot */
    uint64_t page_bytes;
    uint32_t tokens_per_block;         /* 0 for recurrent pools */
    uint64_t bytes, blocks, tokens;    /* allocated; recurrent: blocks = slots */
    bool in_intercept;                 /* sized per slot (recurrent, V2 window pools) */
} kvp_plan_pool;

#define KVP_PLAN_MAX_POOLS 16

typedef struct kvp_manager_plan {
    bool present;
    kvp_manager_role role;
    kvp_manager_kind kind;
    kvp_dtype kv_dtype;
    uint32_t layers;                   /* cache layers on this rank */
    kvp_affine_cost cost;              /* the seed's per-manager cost */
    double free_gpu_memory_fraction;
    uint64_t max_tokens;               /* 0 = none */
    uint64_t max_gpu_total_bytes;      /* its GPU quota */
    uint64_t host_cache_size, disk_cache_size;
    uint64_t max_seq_len;
    uint64_t avg_seq_len;              /* kvp_manager_avg_seq_len; 0 = None */
    bool vswa;
    uint32_t pool_count;
    kvp_plan_pool pools[KVP_PLAN_MAX_POOLS];
    uint64_t bytes;                    /* allocated, all pools */
    uint64_t max_tokens_out;           /* tokens of the largest full-context pool */
} kvp_manager_plan;

typedef struct kvp_plan {
    kvp_manager_plan managers[KVP_ROLE_COUNT];
    uint64_t budget_bytes;             /* the GPU budget handed to the managers */
    uint64_t allocated_bytes;          /* sum over managers */
    bool joint_kv_cache_reuse;
    bool estimating;
} kvp_plan;

/* build_managers: self/cross split, draft split, offload tiers; then each
 * manager's pools sized from its quota. estimating = true builds the
 * throw-away estimation managers (offload budgets dropped, no GPU split). */
KVP_API KVP_NODISCARD kvp_status kvp_creator_build(kvp_creator *creator, bool estimating, kvp_plan *out,
                                           kvp_error *err);

/* Largest number of sequences of seq_len tokens (beam_width beams each) the
 * plan's block pools hold at once: the minimum over pools of blocks //
 * (ceil(min(seq_len, window) / tokens_per_block) * beam); cross pools need
 * their encoder length, once per request (the cross manager has beam width 1);
 * pools sized per slot (recurrent state, V2 window pools) hold max_batch_size
 * by construction and do not limit. UINT64_MAX when no pool limits; the
 * caller applies the slot cap (kvp_max_num_sequences). */
KVP_API KVP_NODISCARD kvp_status kvp_plan_max_sequences(const kvp_plan *plan, uint64_t seq_len,
                                                uint32_t beam_width, uint64_t *out_count,
                                                kvp_error *err);
/* The same, also naming the pool that binds: *out_role and *out_pool index
 * plan->managers[role].pools (both may be NULL; *out_pool is UINT32_MAX when no
 * pool limits the count). */
KVP_API KVP_NODISCARD kvp_status kvp_plan_binding_pool(const kvp_plan *plan, uint64_t seq_len,
                                               uint32_t beam_width, uint64_t *out_count,
                                               kvp_manager_role *out_role, uint32_t *out_pool,
                                               kvp_error *err);
/* Longest single sequence (tokens) the plan holds: the smallest full-context
 * pool's blocks / beam * tokens_per_block; UINT64_MAX when no pool limits it. */
KVP_API uint64_t kvp_plan_longest_sequence(const kvp_plan *plan, uint32_t beam_width);

/* Whether the plan holds at least one sequence: a longest sequence above 0, a
 * block in every per-token target pool when the target has a slope, and the
 * target's fixed costs within its quota. A V2 plan whose every layer is
 * windowed (slope 0) is feasible when its fixed costs fit. */
KVP_API bool kvp_plan_holds_a_sequence(const kvp_plan *plan, uint32_t beam_width);

/* The max_seq_len the engine starts with: the requested one, reduced to the
 * longest sequence the pools hold (the KV cache manager lowers max_seq_len to
 * what fits and the creator adopts it, _create_kv_cache_manager). */
KVP_API uint64_t kvp_plan_adopted_max_seq_len(const kvp_plan *plan, uint32_t beam_width,
                                      uint64_t max_seq_len);

/* compute_max_num_sequences: the sequence-slot pool, max_batch_size x pp_size
 * with pipeline parallelism, else x 2 with overlap headroom and the overlap
 * scheduler on, else max_batch_size. The scheduler's capacity is
 * max_batch_size x pp_size too. UINT64_MAX on overflow. */
KVP_API uint64_t kvp_max_num_sequences(uint64_t max_batch_size, uint32_t pp,
                               bool disable_overlap_scheduler, bool enable_overlap_headroom);

#ifdef __cplusplus
}
#endif
#endif
