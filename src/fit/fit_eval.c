/* fit_eval.c — one point of the deployment space (include/kvplan/fit.h): the
 * deployment pipeline (deploy.c) at that point, and whether it serves a
 * concurrency. */
#include <stdio.h>
#include <string.h>

#include "fit_internal.h"
#include "util.h"

kvp_status kvp_fit_evaluate(const kvp_fit_env *env, const kvp_fit_point *point, kvp_fit_eval *out,
                            kvp_error *err) {
    return kvp__fit_evaluate_in(NULL, env, point, out, err);
}

kvp_status kvp__fit_evaluate_in(kvp__deploy_run *run, const kvp_fit_env *env,
                                const kvp_fit_point *point, kvp_fit_eval *out, kvp_error *err) {
    if (!env || !env->model || !point || !out)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "fit evaluation needs a model and a point");
    if (!env->memory.kv_budget_bytes && !env->memory.total_bytes)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "total_bytes",
                         "no memory to plan from: give the GPU (total_bytes) or a KV budget "
                         "(kv_budget_bytes)");
    kvp_deployment d = *env;
    d.point = *point;
    return kvp__deploy_plan_in(run, &d, out, err);
}

bool kvp_fit_serves(const kvp_fit_eval *e, uint64_t concurrency, char *why, size_t why_size) {
    if (concurrency == 0) concurrency = 1;
    if (e->status != KVP_OK) {
        snprintf(why, why_size, "%s", e->message);
        return false;
    }
    uint64_t L = e->point.max_seq_len;
    if (e->longest_tokens < L) {
        snprintf(why, why_size,
                 "one sequence does not fit: the KV cache holds at most %llu tokens of one "
                 "sequence",
                 (unsigned long long)e->longest_tokens);
        return false;
    }
    if (e->max_sequences < concurrency) {
        snprintf(why, why_size, "%s", e->binding);
        return false;
    }
    if (e->batch_limit && e->batch_limit < concurrency) {
        snprintf(why, why_size, "%s", e->binding[0] ? e->binding : "batch limit");
        return false;
    }
    return true;
}
