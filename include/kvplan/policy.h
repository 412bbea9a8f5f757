/*
 * kvplan/policy.h — engine policies: the KV-cache figures vLLM, SGLang and
 * llama.cpp print at start-up, predicted from a model and the deployment
 * settings (DESIGN.md "policy"; rules in shared/reference/ENGINES.md).
 *
 * Each engine defines its budget, pages and rounding differently. A policy
 * reproduces one engine's arithmetic exactly:
 *
 *   vLLM      "Available KV cache memory", "GPU KV cache size: N tokens",
 *             "Maximum concurrency for L tokens per request: X", "# GPU blocks"
 *   SGLang    "KV Cache is allocated. #tokens: N, K size: X GB, V size: Y GB",
 *             max_total_num_tokens, max_running_requests
 *   llama.cpp "llama_kv_cache: size = X MiB (N cells, L layers, s/t seqs),
 *             K (type): X MiB, V (type): Y MiB" (main, SWA, recurrent lines)
 *
 * TensorRT-LLM is not a policy: its sizing is the seed's creator (plan.h),
 * and kvp_deploy_plan (deploy.h) fills its engine report ("Allocated X GiB
 * for max tokens in paged KV cache (N)": max_tokens, kv_cache_bytes).
 *
 * The result is a plain value (no heap memory): the figures under the names of
 * the engine's log line (`engine_report`), the pools behind them, and notes
 * that say which [uncertain] default of ENGINES.md was taken.
 *
 * Thread safety: pure functions of their inputs; no global state.
 */
#ifndef KVPLAN_POLICY_H
#define KVPLAN_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "kvplan/error.h"
#include "kvplan/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One value per row of kvplan/engines.def, in its order: KVP_ENGINE_TRTLLM = 0,
 * KVP_ENGINE_VLLM = 1, KVP_ENGINE_SGLANG = 2, KVP_ENGINE_LLAMACPP = 3 (unchanged
 * values: an ABI contract). */
typedef enum kvp_engine {
#define KVP_ENGINE_X(id, name, title) KVP_ENGINE_##id,
#include "kvplan/engines.def"
    KVP_ENGINE_COUNT
} kvp_engine;

/* "trtllm", "vllm", "sglang", "llamacpp"; never NULL. */
KVP_API const char *kvp_engine_name(kvp_engine engine);
/* Parse an engine name (also "llama.cpp", "tensorrt-llm", "trt-llm").
 * KVP_INVALID_ARG when unknown. */
KVP_API KVP_NODISCARD kvp_status kvp_engine_parse(const char *name, kvp_engine *out);

/* What an --engine-version names (kvp_engine_release_resolve): its form, the
 * numbers read from it, and the release line (rule set) that governs it. */
typedef struct kvp_engine_release {
    kvp_engine engine;
    char form[16];          /* "release", "build", "year", "word", "latest" */
    char line[24];          /* the line: TRT-LLM "2025"/"2026", vLLM "v1-mid", SGLang
                               "post-11309", llama.cpp "pad256" ... */
    uint32_t version;       /* a release: MAJOR*10000 + MINOR*100 + PATCH; else 0 */
    uint32_t build;         /* a llama.cpp build number; else 0 */
    uint32_t year;          /* a year or a date's year; else 0 */
    bool newer_than_known;  /* past the newest release kvplan read: planned with `line` */
} kvp_engine_release;

/* Read `version` (NULL or "" = latest) as `engine`'s users type it and its
 * binaries print it: vLLM "0.12.0rc1.dev5+g1a2b3c4", "v0.11.0"; SGLang
 * "v0.4.9.post2"; TensorRT-LLM "1.2.0rc4", "0.20.0", "1.1"; llama.cpp "b6000",
 * "version: 6000 (abc)"; a year or date; an era word; "latest".
 * KVP_INVALID_ARG (key engine_version) listing the forms when it is none. */
KVP_API KVP_NODISCARD kvp_status kvp_engine_release_resolve(kvp_engine engine, const char *version,
                                                            kvp_engine_release *out,
                                                            kvp_error *err);
/* The forms kvp_engine_release_resolve accepts for `engine`, in words. */
KVP_API const char *kvp_engine_version_forms(kvp_engine engine);

/* Deployment settings as the engines name them. Start from
 * kvp_policy_settings_default() and set what the deployment states; every
 * field left at its default means "the engine's default for this version". */
typedef struct kvp_policy_settings {
    kvp_engine engine;
    char engine_version[128];       /* "" = latest rules; "0.9.1", "v1-mid", "b7217", ... */

    /* Budget. kv_budget_bytes > 0: the engine's own "available" figure
     * (vLLM available KV memory, SGLang rest memory, TRT-LLM memory after
     * the fraction) and the memory facts below are ignored. */
    uint64_t kv_budget_bytes;
    uint64_t total_memory_bytes;    /* device total (vLLM) / free before load (SGLang) */
    uint64_t free_memory_bytes;     /* free at start-up (vLLM suggestions), 0 = unknown */
    uint64_t weights_bytes;
    uint64_t peak_activation_bytes;
    uint64_t non_torch_bytes;
    uint64_t cudagraph_bytes;
    double gpu_memory_utilization;  /* vLLM; 0 = default 0.9 */
    double mem_fraction_static;     /* SGLang; 0 = GPU-size heuristic */

    /* Parallelism. */
    uint32_t tp, pp, dp;            /* 0 = 1 */
    bool enable_dp_attention;       /* SGLang: attention TP = tp / dp */

    /* KV cache. */
    char kv_dtype[32];              /* engine spelling; "" / "auto" = model dtype */
    uint32_t block_size;            /* vLLM block / SGLang page / TRT tokens_per_block; 0 = default */
    uint64_t max_model_len;         /* 0 = config max_position_embeddings */
    bool auto_fit_max_model_len;    /* vLLM --max-model-len -1: shrink to what fits */

    /* vLLM scheduler settings. */
    uint64_t max_num_batched_tokens; /* 0 = 8192 */
    uint32_t max_num_seqs;           /* 0 = 256 (only checked against Mamba blocks) */
    char mamba_cache_mode[8];        /* "", "none", "align", "all" */
    /* Recurrent-state dtypes (ENGINES.md 1.3 "Dtypes", 2.6). AUTO = the engine's rule. */
    kvp_dtype mamba_cache_dtype;     /* vLLM --mamba-cache-dtype: the conv state, lightning
                                        state, and the SSM state when the next is AUTO;
                                        AUTO = the model dtype */
    kvp_dtype mamba_ssm_cache_dtype; /* vLLM --mamba-ssm-cache-dtype, SGLang --mamba-ssm-dtype:
                                        the SSM state. AUTO: vLLM the config's mamba_ssm_dtype,
                                        else mamba_cache_dtype; SGLang float32 */
    uint32_t num_draft_layers;       /* EAGLE/MTP drafter attention layers in the pool */
    char speculative_algorithm[32];  /* SGLang --speculative-algorithm (vLLM's method): sizes
                                        the automatic mem_fraction_static's draft reserve
                                        (STANDALONE 6 GiB, NGRAM none, others 2 GiB); "" = none */
    /* SGLang scheduler settings (server_args.py ServerArgs). */
    uint32_t max_running_requests;  /* --max-running-requests: the request pool and the batch
                                       cap (admission); 0 = from the token pool */
    int64_t chunked_prefill_size;   /* --chunked-prefill-size: 0 = the GPU tier's, -1 = off */
    char attention_backend[32];     /* --attention-backend: "" = the engine's choice; MLA
                                       backends force the page size */
    uint32_t num_speculative_tokens; /* vLLM: draft tokens per step (speculative_config); widens
                                        the KDA conv state and adds Mamba spec blocks; 0 = none */

    /* llama.cpp context. */
    uint64_t n_ctx;                 /* --ctx-size; 0 = train length */
    uint32_t n_seq_max;             /* --parallel; 0 = 1 */
    int kv_unified;                 /* -1 = default (false), 0, 1 */
    char type_k[16], type_v[16];    /* "" = f16 */
    int swa_full;                   /* -1 = default (CLI: false), 0, 1 */
    uint32_t n_ubatch, n_batch;     /* 0 = 512 / 2048 */
    int flash_attn;                 /* -1 = auto, 0 off, 1 on */

    /* kvp_policy_plan's scratch memory (freed before it returns) comes from it:
     * borrowed; NULL = the model's allocator (kvp_model_allocator), libc when
     * the model has none. kvp_deploy_plan sets it to the deployment's. */
    const kvp_allocator *alc;
    uint64_t reserved_[KVP_RESERVED_WORDS]; /* room for growth: zero, do not use (ABI) */
} kvp_policy_settings;

KVP_API kvp_policy_settings kvp_policy_settings_default(void);

/* Presence bits of kvp_engine_report fields. */
enum {
    KVP_REPORT_NUM_GPU_BLOCKS = 1u << 0,
    KVP_REPORT_GPU_KV_CACHE_TOKENS = 1u << 1,
    KVP_REPORT_MAX_CONCURRENCY = 1u << 2,
    KVP_REPORT_AVAILABLE_KV_CACHE_BYTES = 1u << 3,
    KVP_REPORT_MAX_TOTAL_NUM_TOKENS = 1u << 4,
    KVP_REPORT_K_SIZE_BYTES = 1u << 5,
    KVP_REPORT_V_SIZE_BYTES = 1u << 6,
    KVP_REPORT_MAX_RUNNING_REQUESTS = 1u << 7,
    KVP_REPORT_KV_SIZE_BYTES = 1u << 8,
    KVP_REPORT_CELLS = 1u << 9,
    KVP_REPORT_SWA_KV_SIZE_BYTES = 1u << 10,
    KVP_REPORT_RECURRENT_SIZE_BYTES = 1u << 11,
    KVP_REPORT_MAX_TOKENS = 1u << 12,
    KVP_REPORT_KV_CACHE_BYTES = 1u << 13,
};

/* The figures an engine prints, named after its log line (JSON `engine_report`). */
typedef struct kvp_engine_report {
    uint32_t present;                  /* KVP_REPORT_* bits */
    /* vLLM */
    uint64_t num_gpu_blocks;
    uint64_t gpu_kv_cache_tokens;
    double max_concurrency;            /* unrounded; the log prints %.2f */
    uint64_t available_kv_cache_bytes;
    /* SGLang */
    uint64_t max_total_num_tokens;
    uint64_t max_running_requests;
    /* SGLang and llama.cpp (main cache) */
    uint64_t k_size_bytes, v_size_bytes;
    /* llama.cpp */
    uint64_t kv_size_bytes;
    uint64_t cells;
    uint64_t swa_kv_size_bytes;
    uint64_t recurrent_size_bytes;
    /* TensorRT-LLM */
    uint64_t max_tokens;
    uint64_t kv_cache_bytes;
} kvp_engine_report;

/* One pool (vLLM KV cache group, SGLang pool, llama.cpp cache). */
typedef struct kvp_policy_pool {
    char name[24];                /* "full", "sliding", "mamba", "swa", "main", "recurrent", ... */
    kvp_cache_kind kind;
    uint32_t layers;              /* layers in the pool (vLLM: in the group, after padding) */
    uint32_t block_size_tokens;   /* vLLM block / SGLang page; llama.cpp 1 */
    uint64_t page_bytes;          /* one block of one layer (vLLM), cell bytes (SGLang) */
    uint64_t tokens;              /* capacity in tokens / cells (0 for state pools) */
    uint64_t k_bytes, v_bytes;    /* bytes of K and V (llama.cpp, SGLang); recurrent R and S */
    uint64_t bytes;               /* bytes the pool holds (vLLM: its share of the one block
                                     pool its KV cache groups draw on, see pool_bytes) */
    uint64_t per_request_blocks;  /* vLLM: blocks one max_model_len request takes */
    /* The same meaning under every engine (JSON pools[], schema_version 2):
     * bytes = blocks x block_bytes. */
    uint64_t blocks;              /* blocks (pages) held: vLLM block ids of its share,
                                     SGLang pages (its padding page included), llama.cpp
                                     cells; state pools: slots */
    uint64_t block_bytes;         /* one block across every layer it serves on this rank:
                                     block_size_tokens tokens of each layer (vLLM: one KV
                                     cache group's group_size layers, padding included);
                                     state pools: one slot's state */
    uint32_t kv_cache_groups;     /* vLLM: KV cache groups of this spec (0 elsewhere) */
} kvp_policy_pool;

#define KVP_POLICY_MAX_POOLS 16
#define KVP_POLICY_MAX_NOTES 8
#define KVP_POLICY_NOTE_MAX 240

/* A policy's plan: a plain value, copy freely. */
typedef struct kvp_policy_result {
    kvp_engine engine;
    char engine_version[128];     /* as given */
    char era[24];                 /* the rule set chosen ("v1-mid", "b7000+", "post-11309") */
    kvp_dtype kv_dtype;           /* resolved element type (llama.cpp: f16 for block types) */
    char kv_dtype_name[24];       /* engine spelling ("bf16", "fp8_ds_mla", "q4_0") */
    char type_v_name[24];         /* llama.cpp V type */
    uint64_t budget_bytes;        /* 0 for llama.cpp */
    char budget_formula[160];     /* how budget_bytes was obtained */
    uint32_t tp, pp;
    uint64_t max_model_len;       /* context the figures were computed for */
    kvp_engine_report report;
    uint32_t pool_count;
    kvp_policy_pool pools[KVP_POLICY_MAX_POOLS];

    /* Engine-specific figures with no contract field (printed by the CLI). */
    uint32_t block_size;          /* vLLM final attention block / SGLang page / TRT tpb */
    uint32_t num_groups;          /* vLLM KV cache groups */
    uint32_t group_size;          /* vLLM layers per group */
    uint64_t page_bytes;          /* vLLM unified page (one layer, one block) */
    uint64_t per_request_blocks;  /* vLLM blocks per max_model_len request */
    uint64_t needed_bytes;        /* vLLM: KV one max_model_len request needs */
    uint64_t estimated_max_model_len; /* vLLM: largest length that fits (when < max_model_len) */
    uint64_t cell_bytes;          /* SGLang cell_size (full layers) */
    uint64_t swa_tokens;          /* SGLang SWA pool tokens / llama.cpp SWA cells */
    uint64_t mamba_cache_size;    /* SGLang max_mamba_cache_size */
    double mem_fraction_static;   /* SGLang: the fraction the pool was sized with (given or
                                     kvp_sglang_default_mfs) */
    uint64_t n_ctx, n_ctx_seq;    /* llama.cpp */
    uint32_t n_seq_max, n_stream; /* llama.cpp */
    uint32_t main_layers, swa_layers, recurrent_layers, total_layers; /* llama.cpp line layers */
    uint64_t swa_k_bytes, swa_v_bytes, recurrent_r_bytes, recurrent_s_bytes, recurrent_cells;
    uint64_t indexer_bytes;       /* llama.cpp DSA indexer cache */
    uint32_t indexer_layers;

    uint32_t note_count;
    char notes[KVP_POLICY_MAX_NOTES][KVP_POLICY_NOTE_MAX];

    /* vLLM's one block pool (ENGINES.md 1.6), which every KV cache group draws
     * block ids from: pool_blocks (num_gpu_blocks) of pool_block_bytes (page x
     * group_size, or the page sum of one group) = pool_bytes. pools[] hold
     * shares of it. 0 for the engines whose pools are separate buffers. */
    uint64_t pool_blocks, pool_block_bytes, pool_bytes;
    uint64_t reserved_[KVP_RESERVED_WORDS]; /* room for growth: zero, do not use (ABI) */
} kvp_policy_result;

/* Plan `model` under `settings` with the engine's rules.
 * Errors: KVP_INVALID_ARG for engine trtllm (planned by the creator through
 * kvp_deploy_plan), for a setting the engine does not have (llama.cpp
 * with TP 2, SGLang with a q4_0 cache, an unknown dtype or version),
 * KVP_INFEASIBLE when no budget is given and memory facts are missing or the
 * budget is not positive, KVP_UNSUPPORTED for layer kinds ENGINES.md has no
 * rule for, KVP_OVERFLOW for absurd inputs. `out` is filled on success. */
KVP_API KVP_NODISCARD kvp_status kvp_policy_plan(const kvp_model *model, const kvp_policy_settings *settings,
                                         kvp_policy_result *out, kvp_error *err);

/* llama.cpp cache types: bytes of a row of `n` elements of `type_name`
 * ("f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "q5_0", "q5_1", "iq4_nl").
 * KVP_INVALID_ARG for an unknown type or n not a multiple of its block. */
KVP_API KVP_NODISCARD kvp_status kvp_llamacpp_row_bytes(const char *type_name, uint64_t n,
                                                uint64_t *out_bytes, kvp_error *err);

/* The vLLM release an engine version names, as the start-up memory terms follow
 * it (docs/memory.md, one section per line): *version in the policy's encoding
 * (X.Y.Z -> X*10000 + Y*100 + Z; 0 = latest: no version, or "v1-new"; the era
 * tags without a number: "v1-jan25" 0.8.0, "v1-mid" 0.20.0, their last
 * release), *v0 for the V0 engine ("v0", "VLLM_USE_V1=0", a release before
 * 0.8). NULL or "" is the latest. */
KVP_API void kvp_vllm_release(const char *engine_version, uint32_t *version, bool *v0);

/* vLLM's batch defaults (vllm/engine/arg_utils.py EngineArgs.get_batch_defaults,
 * MEMORY.md 1.8 and 7.6) for a GPU of `gpu_bytes` named `gpu_name` (NULL: by
 * size alone) at `version` (kvp_vllm_release; 0 = latest), for the OpenAI
 * server (`llm_class` false: `vllm serve`) or the LLM class: 0.9+ on >= 70 GiB
 * not A100 16384 / 8192 tokens and 1,024 sequences, else 8192 / 2048 and 256;
 * 0.7-0.8 8192 / 2048 and 256; max_num_seqs = min(seqs, tokens). V0
 * (SchedulerConfig, 7.3): 256 sequences; tokens max(max_model_len, 2048)
 * without chunked prefill, 2048 with it (on by default only past 32,768). */
KVP_API void kvp_vllm_batch_defaults(uint64_t gpu_bytes, const char *gpu_name, uint32_t version,
                                     bool v0, bool llm_class, uint64_t max_model_len,
                                     int chunked_prefill, uint64_t *max_num_batched_tokens,
                                     uint32_t *max_num_seqs);

/* SGLang's automatic mem_fraction_static (server_args.py, MEMORY.md 7.8) for a
 * GPU of `gpu_bytes` under `s` (tp, pp, dp attention, draft layers, the
 * chunked_prefill_size given as max_num_batched_tokens, engine_version): 0.5.4
 * on round((gpu - reserve) / gpu, 3) with reserve = 512 + 1.5 max(chunk, 2048)
 * + 2 cuda_graph_max_bs + 1024 tp pp / 8 MB (>= 10,240 MB above 60 GiB; a draft
 * adds 6,144 for a STANDALONE speculative_algorithm, none for NGRAM, 2,048 for
 * any other or for draft layers alone); earlier releases a fixed value by TP size. */
KVP_API double kvp_sglang_default_mfs(uint64_t gpu_bytes, const kvp_policy_settings *s);

#ifdef __cplusplus
}
#endif
#endif
