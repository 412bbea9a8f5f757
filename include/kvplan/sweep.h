/*
 * kvplan/sweep.h — the grid `kvplan sweep` plans: axes given as "KEY=VALUES"
 * (the CLI's --over, a JSON request's "over"), every combination one point of
 * the one pipeline (kvp_fit_evaluate). One parser for the CLI, kvp_json_call
 * and `kvplan serve`.
 *
 *   KEY     max-seq-len (also seq-len, max-model-len, context, context-length),
 *           kv-dtype (dtype), tp, pp, policy (engine)
 *   VALUES  a,b,c    4k..128k (doubling)    1k..8k+1k (step 1k)
 *
 * Points are numbered in odometer order: policy outermost, then kv-dtype, tp,
 * pp, and the length innermost (a chart line is contiguous).
 *
 * Errors name the setting "over" (KVP_INVALID_ARG): a malformed spec, an
 * unknown key, a key given twice, a value out of range (tp, pp <= 65536;
 * lengths <= 2^32 tokens), more than KVP_SWEEP_MAX_PLANS values.
 *
 * Thread safety: a grid is one caller's; the functions keep no global state.
 */
#ifndef KVPLAN_SWEEP_H
#define KVPLAN_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "kvplan/error.h"
#include "kvplan/fit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most points a grid may hold (--max-plans cannot go above it). */
#define KVP_SWEEP_MAX_PLANS 1000000u
/* The default bound on a grid's points (--max-plans). */
#define KVP_SWEEP_DEFAULT_MAX_PLANS 10000u

typedef struct kvp_sweep_grid kvp_sweep_grid;

/* An empty grid; NULL when out of memory. Free with kvp_sweep_grid_free
 * (NULL is a no-op). */
KVP_API kvp_sweep_grid *kvp_sweep_grid_new(void);
/* The same with every allocation of the grid through `alc` (copied; its ctx
 * must outlive the grid; NULL = libc). */
KVP_API kvp_sweep_grid *kvp_sweep_grid_new_with(const kvp_allocator *alc);
KVP_API void kvp_sweep_grid_free(kvp_sweep_grid *grid);

/* Add the axis `spec` ("tp=1,2,4"). */
KVP_API KVP_NODISCARD kvp_status kvp_sweep_grid_over(kvp_sweep_grid *grid, const char *spec,
                                                     kvp_error *err);

/* The axes given, in odometer order, by name ("policy", "kv-dtype", "tp",
 * "pp", "max-seq-len"): writes up to `cap` static names, returns the count. */
KVP_API size_t kvp_sweep_grid_axes(const kvp_sweep_grid *grid, const char **names, size_t cap);
/* Values of axis `name` (0 when not swept). */
KVP_API size_t kvp_sweep_grid_axis_size(const kvp_sweep_grid *grid, const char *name);
/* The engines of the policy axis ("policy" or "engine"), one bit (1u << kvp_engine)
 * each; 0 when the axis is not swept. */
KVP_API unsigned kvp_sweep_grid_engines(const kvp_sweep_grid *grid);

/* The number of points: the product of the axes' sizes; KVP_INVALID_ARG when
 * no axis was given or the product is above `max_plans` (at most
 * KVP_SWEEP_MAX_PLANS), naming "max_plans". */
KVP_API KVP_NODISCARD kvp_status kvp_sweep_grid_count(const kvp_sweep_grid *grid, uint64_t max_plans,
                                                      uint64_t *count, kvp_error *err);

/* Point `index` (< the count): `base` with the swept settings set. */
KVP_API void kvp_sweep_grid_point(const kvp_sweep_grid *grid, uint64_t index, const kvp_fit_point *base,
                                  kvp_fit_point *out);

/* Called with each planned point in odometer order: its index, the grid's
 * count, and its result (valid during the call only: the next point is
 * planned into the same result). A non-OK return stops the sweep and is
 * kvp_sweep_run's status (fill `err`). */
typedef kvp_status (*kvp_sweep_row_fn)(uint64_t index, uint64_t count, const kvp_fit_eval *row,
                                       void *ctx, kvp_error *err);

/* Plan every point of `grid` over `env` (kvp_fit_evaluate, `base` with the
 * swept settings set) and call `row` after each, streaming: the memory held
 * does not grow with the number of points. The count is checked first
 * (kvp_sweep_grid_count with `max_plans`), before anything is planned.
 * KVP_INVALID_ARG for a NULL argument; the errors of kvp_fit_evaluate, and
 * whatever `row` returns. */
KVP_API KVP_NODISCARD kvp_status kvp_sweep_run(const kvp_sweep_grid *grid, const kvp_fit_env *env,
                                               const kvp_fit_point *base, uint64_t max_plans,
                                               kvp_sweep_row_fn row, void *ctx, kvp_error *err);

#ifdef __cplusplus
}
#endif
#endif
