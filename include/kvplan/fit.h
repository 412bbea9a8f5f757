/*
 * kvplan/fit.h — the questions users ask of a plan, answered exactly:
 * the longest context that serves N requests at once, the most requests at a
 * given context, the smallest tensor parallelism that fits, the KV dtype
 * needed; a grid of plans (sweep) and every engine side by side (compare).
 *
 * Everything is built on one evaluation: a point (engine, tp, pp, KV dtype,
 * max sequence length) planned with the same memory facts, giving tokens,
 * blocks, the concurrent sequences the cache holds and what binds them.
 * TensorRT-LLM points go through the creator (plan.h, the seed's logic);
 * vLLM, SGLang and llama.cpp points through their policies (policy.h).
 *
 * Searches are exact integer searches over the planner, never a formula
 * inverted in floating point: an answer v is reported only after plan(v)
 * fits and plan(v + 1) does not (or v is the search bound, said so).
 *
 * Thread safety: pure functions of their inputs (each evaluation builds and
 * frees its own creator); no global state.
 */
#ifndef KVPLAN_FIT_H
#define KVPLAN_FIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kvplan/error.h"
#include "kvplan/memory.h"
#include "kvplan/model.h"
#include "kvplan/plan.h"
#include "kvplan/policy.h"
#include "kvplan/report.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KVP_FIT_REASON_MAX 320

/* ------------------------------------------------------- generic search */

/* A monotone predicate: if fits(v) then fits(v - 1). Sets *out_fits; when it
 * does not fit, writes the binding constraint to `limited_by`. A non-OK
 * return aborts the search with that error. */
typedef kvp_status (*kvp_fit_fn)(uint64_t value, void *ctx, bool *out_fits, char *limited_by,
                                 size_t limited_by_size, kvp_error *err);

typedef struct kvp_fit_search {
    bool found;                 /* fits(lo) */
    uint64_t value;             /* the largest v in [lo, hi] with fits(v) */
    bool at_upper_bound;        /* value == hi: the search bound, not the planner, stopped it */
    char limited_by[KVP_FIT_REASON_MAX]; /* why value + 1 (or lo, when !found) does not fit */
    uint32_t evaluations;
} kvp_fit_search;

/* Largest value in [lo, hi] that fits, by bisection (about log2(hi - lo)
 * evaluations). KVP_INVALID_ARG for lo > hi or no predicate. */
KVP_API KVP_NODISCARD kvp_status kvp_fit_search_max(uint64_t lo, uint64_t hi, kvp_fit_fn fits, void *ctx,
                                            kvp_fit_search *out, kvp_error *err);

/* ---------------------------------------------------------- evaluation */

/* What every point shares: the model, the GPU and the base settings. */
typedef struct kvp_fit_env {
    const kvp_model *model;          /* borrowed */
    uint64_t gpu_total_bytes;        /* device total (catalogue / --gpu-mem) */
    uint64_t kv_budget_bytes;        /* > 0: plan from this KV budget, memory terms unused */
    /* Measured terms; those not given are estimated from the config per
     * point (they change with tp / pp). */
    bool has_weights, has_peak, has_non_torch;
    uint64_t weights_bytes;          /* this rank */
    uint64_t peak_bytes;             /* allocator peak: weights + activations */
    uint64_t non_torch_bytes;        /* outside the allocator, incl. CUDA graphs */
    const char *model_dir;           /* checkpoint folder: exact weights from safetensors
                                        headers (as `kvplan plan`); NULL = from the config */
    /* TensorRT-LLM base settings (tp, pp, kv_dtype, max_seq_len overridden per point). */
    kvp_deploy_settings deploy;
    kvp_kv_config kv;
    /* Base settings of the other engines (engine, tp, pp, dtype, length per point). */
    kvp_policy_settings policy;
} kvp_fit_env;

/* One point of the space. Zero fields keep the base settings. */
typedef struct kvp_fit_point {
    kvp_engine engine;
    uint32_t tp, pp;
    char kv_dtype[24];               /* kvplan name for trtllm ("fp8"), engine spelling otherwise */
    uint64_t max_seq_len;            /* vLLM max_model_len, SGLang context_length, llama.cpp n_ctx_seq */
    uint32_t sequences;              /* llama.cpp: --parallel slots (n_ctx = max_seq_len * this) */
    uint64_t max_batch_size;         /* trtllm: 0 = base; fit sets it to the concurrency for
                                        models with recurrent state (slots are reserved for
                                        max_batch_size sequences up front) */
} kvp_fit_point;

/* The figures of one evaluated point. */
typedef struct kvp_fit_eval {
    kvp_status status;               /* KVP_OK: planned; else why not (INFEASIBLE, CONFIG, ...) */
    char message[KVP_ERROR_MESSAGE_MAX];
    kvp_fit_point point;             /* as resolved (tp, pp, dtype, max_seq_len filled in) */
    uint64_t total_bytes;            /* GPU total (0 with a KV budget) */
    uint64_t weights_bytes, activation_bytes, runtime_bytes; /* runtime: non-torch + graphs */
    bool memory_estimated;           /* some term came from the config, not a measurement */
    uint64_t reserve_bytes;          /* MLA workspace + multimodal reserve (trtllm) */
    uint64_t budget_bytes;           /* the engine's KV budget */
    uint64_t kv_bytes;               /* allocated for the KV cache */
    uint64_t tokens;                 /* KV tokens (engine's figure / largest full pool) */
    uint64_t blocks;                 /* blocks (all pools; vLLM num_gpu_blocks) */
    uint32_t block_tokens;           /* tokens per block / page */
    uint64_t max_sequences;          /* max_seq_len sequences the KV cache holds at once */
    uint64_t batch_limit;            /* scheduler cap (max_batch_size, max_num_seqs, ...); 0 none */
    uint64_t longest_tokens;         /* longest single sequence; UINT64_MAX = unbounded */
    char binding[KVP_FIT_REASON_MAX];/* what bounds max_sequences */
    char budget_formula[160];        /* how budget_bytes was obtained */
    /* The plan itself: TensorRT-LLM's creator output, or the policy result. */
    kvp_capacity cap;
    kvp_plan plan;
    kvp_policy_result policy;
} kvp_fit_eval;

/* Plan one point. Returns KVP_OK whenever the point was evaluated, also
 * when the planner found it infeasible (out->status says so); returns an
 * error only for bad arguments (KVP_INVALID_ARG) or KVP_NOMEM. */
KVP_API KVP_NODISCARD kvp_status kvp_fit_evaluate(const kvp_fit_env *env, const kvp_fit_point *point,
                                          kvp_fit_eval *out, kvp_error *err);

/* Does `e` serve `concurrency` sequences of its max_seq_len at once?
 * False with the binding constraint in `why`: "one sequence does not fit:
 * ...", "KV budget of pool 'full'", "recurrent slots", "max batch size",
 * or the planner's error. */
KVP_API bool kvp_fit_serves(const kvp_fit_eval *e, uint64_t concurrency, char *why, size_t why_size);

/* ---------------------------------------------------------------- fit */

typedef enum kvp_fit_target {
    KVP_FIT_MAX_SEQ_LEN = 0,         /* largest max_seq_len serving `concurrency` sequences */
    KVP_FIT_CONCURRENCY,             /* most sequences at the point's max_seq_len */
    KVP_FIT_PARALLEL,                /* smallest tp (then pp) on `gpus` GPUs meeting the target */
    KVP_FIT_KV_DTYPE,                /* widest KV dtype meeting the target */
    KVP_FIT_TARGET_COUNT
} kvp_fit_target;

/* "max_seq_len", "concurrency", "tp", "kv_dtype". */
KVP_API const char *kvp_fit_target_name(kvp_fit_target target);

typedef struct kvp_fit_request {
    kvp_fit_target solve_for;
    kvp_fit_point base;              /* the fixed settings */
    uint64_t concurrency;            /* sequences at once; 0 -> 1 */
    uint64_t seq_len_lo, seq_len_hi; /* MAX_SEQ_LEN bounds; 0 -> 1 and the model's
                                        max_position_embeddings (or 1M when unknown) */
    uint32_t gpus;                   /* PARALLEL: GPUs available; tp * pp <= gpus; 0 -> 8 */
    bool allow_pp;                   /* PARALLEL: also try pipeline parallelism */
    const char *const *dtypes;       /* KV_DTYPE candidates, widest first; NULL = engine default */
    size_t dtype_count;
} kvp_fit_request;

typedef struct kvp_fit_answer {
    kvp_fit_target solved_for;
    bool found;                      /* some value meets the target */
    uint64_t value;                  /* max_seq_len / concurrency / tp */
    char value_text[32];             /* the value as text ("32768", "fp8", "tp 2 pp 1") */
    bool at_search_bound;            /* the search bound, not the plan, stopped it */
    char limited_by[KVP_FIT_REASON_MAX]; /* why one more does not fit */
    char best[KVP_FIT_REASON_MAX];   /* when !found: the best that can be done */
    uint32_t evaluations;
    kvp_fit_eval at;                 /* the plan at the answer (at the base when !found) */
} kvp_fit_answer;

/* Solve a fit request. TensorRT-LLM reserves recurrent state for
 * max_batch_size sequences up front (the seed's intercept), so for models with
 * recurrent layers and no --max-batch-size the probes size max_batch_size to
 * the concurrency asked for (the deployment that serves exactly that). KVP_OK with out->found false when the target cannot
 * be met (out->limited_by and out->best say why and what can be done). */
KVP_API KVP_NODISCARD kvp_status kvp_fit_solve(const kvp_fit_env *env, const kvp_fit_request *req,
                                       kvp_fit_answer *out, kvp_error *err);

/* ------------------------------------------------------- memory picture */

/* The segments of the stacked memory bar of an evaluated point: weights,
 * activation peak, runtime (non-torch + CUDA graphs), reserves, each KV pool,
 * model-local caches (`local_bytes`, 0 = none) and the free margin. Returns
 * the count written (at most out_cap). */
KVP_API size_t kvp_fit_memory_segments(const kvp_fit_eval *e, uint64_t local_bytes,
                               kvp_memory_segment *out, size_t out_cap);

/* The same from the pieces `kvplan plan` holds (any may be NULL except
 * plan): memory facts, capacity (reserves), the creator's plan. */
KVP_API size_t kvp_report_plan_segments(const kvp_memory_facts *mem, const kvp_capacity *cap,
                                const kvp_plan *plan, uint64_t local_bytes,
                                kvp_memory_segment *out, size_t out_cap);

/* Write the memory bar of a plan as an SVG file (atomically). `subtitle`
 * may be NULL. */
KVP_API KVP_NODISCARD kvp_status kvp_report_write_plan_svg(const char *path, const char *subtitle,
                                                   const kvp_memory_facts *mem,
                                                   const kvp_capacity *cap, const kvp_plan *plan,
                                                   uint64_t local_bytes, kvp_error *err);

/* Write one self-contained HTML page: `text_report` (the plan as printed,
 * may be NULL) in a <pre>, a pool table and the memory bar. */
KVP_API KVP_NODISCARD kvp_status kvp_report_write_plan_html(const char *path, const char *title,
                                                    const char *text_report,
                                                    const kvp_memory_facts *mem,
                                                    const kvp_capacity *cap, const kvp_plan *plan,
                                                    uint64_t local_bytes, kvp_error *err);

#ifdef __cplusplus
}
#endif
#endif
