/* fit_internal.h — the search's points planned inside one pipeline run
 * (kvp__ tier, src/fit/ only): a sweep or a bisection plans many points of one
 * deployment, so it keeps a kvp__deploy_run (deploy_internal.h) across them. */
#ifndef KVP_FIT_INTERNAL_H
#define KVP_FIT_INTERNAL_H

#include "deploy_internal.h"
#include "kvplan/fit.h"

/* kvp_fit_evaluate inside `run` (NULL: a run of its own). */
kvp_status kvp__fit_evaluate_in(kvp__deploy_run *run, const kvp_fit_env *env,
                                const kvp_fit_point *point, kvp_fit_eval *out, kvp_error *err);

#endif
