/*
 * kvplan/fit.h — the questions users ask of a plan, answered exactly:
 * the longest context that serves N requests at once, the most requests at a
 * given context, the smallest tensor parallelism that fits, the KV dtype
 * needed; a grid of plans (sweep) and every engine side by side (compare).
 *
 * Everything is built on one evaluation: a point (engine, tp, pp, KV dtype,
 * max sequence length) planned by the deployment pipeline (deploy.h,
 * kvp_deploy_plan) with the same memory facts, giving tokens, blocks, the
 * concurrent sequences the cache holds and what binds them.
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

#include "kvplan/deploy.h"
#include "kvplan/error.h"
#include "kvplan/memory.h"
#include "kvplan/model.h"
#include "kvplan/plan.h"
#include "kvplan/policy.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KVP_FIT_REASON_MAX KVP_DEPLOY_REASON_MAX

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

/* What every point shares: the model, the GPU and the base settings: a
 * deployment (deploy.h) whose `point` the search sets (kvp_fit_evaluate takes
 * the point apart, so env.point is not read). */
typedef kvp_deployment kvp_fit_env;

/* One point of the space. Zero fields keep the base settings. */
typedef kvp_deploy_point kvp_fit_point;

/* The figures of one evaluated point: the deployment's result. */
typedef kvp_deploy_result kvp_fit_eval;

/* Plan one point: kvp_deploy_plan of `env` with `point` as its point. Returns
 * KVP_OK whenever the point was evaluated, also when the planner found it
 * infeasible (out->status says so); returns an error only for bad arguments
 * (KVP_INVALID_ARG: no model, or no memory and no KV budget) or KVP_NOMEM. */
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
    uint64_t reserved_[KVP_RESERVED_WORDS]; /* room for growth: zero, do not use (ABI) */
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
    uint64_t reserved_[KVP_RESERVED_WORDS]; /* room for growth: zero, do not use (ABI) */
} kvp_fit_answer;

/* Solve a fit request. TensorRT-LLM reserves recurrent state for
 * max_batch_size sequences up front (the seed's intercept), so for models with
 * recurrent layers and no --max-batch-size the probes size max_batch_size to
 * the concurrency asked for (the deployment that serves exactly that). KVP_OK with out->found false when the target cannot
 * be met (out->limited_by and out->best say why and what can be done). */
KVP_API KVP_NODISCARD kvp_status kvp_fit_solve(const kvp_fit_env *env, const kvp_fit_request *req,
                                       kvp_fit_answer *out, kvp_error *err);

/* The memory picture of an evaluated point and of a plan (SVG, HTML) is the
 * report room's: kvplan/render.h and kvp_json_call, above this header. */

#ifdef __cplusplus
}
#endif
#endif
