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

/* ----------------------------------------------------------------- budget */

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

/* ------------------------------------------------------ attention windows */

/* Per-layer window lists hold tokens; 0 stands for the seed's None
 * (= max_seq_len). */

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

/* ------------------------------------------------------ budget splits */

typedef enum kvp_budget_attr {
    KVP_BUDGET_MAX_GPU_TOTAL_BYTES = 0,
    KVP_BUDGET_HOST_CACHE_SIZE,
    KVP_BUDGET_DISK_CACHE_SIZE
} kvp_budget_attr;

/* ------------------------------------------------- encoder-decoder cross */

typedef struct kvp_cross_geometry {
    uint32_t num_layers;       /* decoder layers */
    uint32_t num_kv_heads;     /* encoder-side KV heads */
    uint32_t num_heads;        /* encoder attention heads */
    uint32_t head_dim;
    uint64_t hidden_size;
    uint64_t max_seq_len;      /* encoder tokens the cross pool holds per sequence */
} kvp_cross_geometry;

typedef struct kvp_cross_split {
    double self_fraction, cross_fraction;
    uint64_t self_gpu_bytes, cross_gpu_bytes;   /* 0 when max_gpu_total_bytes unset */
    uint64_t self_host_bytes, cross_host_bytes; /* 0 when host_cache_size unset */
} kvp_cross_split;

/* ------------------------------------------------------ model facts */

/* ------------------------------------------ rules around the creator */

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
    uint64_t reserved_[KVP_RESERVED_WORDS]; /* room for growth: zero, do not use (ABI) */
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

#ifdef __cplusplus
}
#endif
#endif
