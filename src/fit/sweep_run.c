/* sweep_run.c — plan every point of a grid (kvplan/sweep.h) into one result,
 * reused row after row, and hand each row to the caller as it is planned: a
 * sweep streams, so its memory does not grow with the number of rows
 * (issue 12 item 9: a 10,000-row sweep once held 95 MB of results). */
#include "fit_internal.h"
#include "kvplan/sweep.h"
#include "util.h"

kvp_status kvp_sweep_run(const kvp_sweep_grid *grid, const kvp_fit_env *env, const kvp_fit_point *base,
                         uint64_t max_plans, kvp_sweep_row_fn row, void *ctx, kvp_error *err) {
    if (!grid || !env || !base || !row)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "sweep: NULL grid, deployment, base or row");
    uint64_t count;
    kvp_status st = kvp_sweep_grid_count(grid, max_plans, &count, err);
    if (st) return st;
    /* One result for every row (it is large: kvp_deploy_result_new), and one
     * pipeline run: what the rows share (the memory estimate, the start-up
     * gate's scratch) is derived once, not once a row (issue 12 item 9). Both
     * through the deployment's allocator. */
    const kvp_allocator *alc = kvp_deployment_allocator(env);
    kvp_fit_eval *e = kvp_deploy_result_new_with(alc);
    kvp__deploy_run *run = kvp__deploy_run_new(alc);
    if (!e || !run) st = kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
    for (uint64_t i = 0; st == KVP_OK && i < count; i++) {
        kvp_fit_point p;
        kvp_sweep_grid_point(grid, i, base, &p);
        st = kvp__fit_evaluate_in(run, env, &p, e, err);
        if (st == KVP_OK) st = row(i, count, e, ctx, err);
    }
    kvp__deploy_run_free(run);
    kvp_deploy_result_free(e);
    return st;
}
