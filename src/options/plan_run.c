/* plan_run.c — the one sequence of a plan after its settings (plan_run.h). */
#include <stdlib.h>
#include <string.h>

#include "check_run.h" /* kvp__startup_inputs */
#include "engine_ops.h"
#include "model_arg.h"
#include "plan_run.h"
#include "result_spare.h"
#include "util.h"

/* The job of the settings `t`: its engine's planner, the rules around the
 * creator (read in place). */
static void job_init(kvp__plan_job *j, const kvp_options *t) {
    memset(j, 0, sizeof *j);
    j->t = t;
    j->creator = kvp__engine_ops_of(t->deployment.point.engine)->creator_plans;
    j->startup = t->startup;
    /* The rules around the creator read the table's settings in place. */
    j->seed.rules = &t->rules;
    j->seed.engine_version =
        kvp_options_given(t, "--engine-version") ? t->deployment.policy.engine_version : NULL;
}

kvp_status kvp__plan_job_begin(kvp__plan_job *j, const kvp_options *t, kvp_error *err) {
    job_init(j, t);
    return j->creator ? kvp__seed_settings(t, &j->d, err) : KVP_OK;
}

/* The GPU the memory source looked up, into the start-up settings. */
static void startup_gpu(kvp__plan_job *j) {
    if (!j->set.gpu_known) return;
    j->startup.gpu = j->set.gpu;
    j->startup.gpu_known = true;
}

kvp_status kvp__plan_job_open(kvp__plan_job *j, const char *arg, bool geometry,
                              const char *catalog, const char *model_dir, kvp_error *err) {
    const kvp_options *t = j->t;
    kvp_status st;
    j->owns_models = true;
    if (!j->creator) {
        /* The engine policies: the GPU looked up before the model is read (the
         * order their errors have always come in), then the deployment the
         * table's point, policy, memory and admission make (settle.c). */
        if ((st = kvp__options_settle(t, catalog, &j->set, err)) != KVP_OK) return st;
        startup_gpu(j);
        if ((st = kvp__model_load_arg(arg, geometry, &j->model, err)) != KVP_OK) return st;
        if ((st = kvp__startup_inputs(j->model, &j->startup, err)) != KVP_OK) return st;
        kvp__policy_deployment(t, &j->set, &j->startup, j->model, geometry ? NULL : model_dir,
                               &j->dep);
        return KVP_OK;
    }
    if ((st = kvp_model_open(arg, NULL, &j->model, err)) != KVP_OK) return st;
    if (t->draft && (st = kvp_model_open(t->draft, NULL, &j->draft, err)) != KVP_OK) return st;
    /* The multimodal profiling batch (fills j->d before the deployment copies it). */
    if ((st = kvp__seed_rules_prepare(j->model, &j->d, &j->seed, err)) != KVP_OK) return st;
    /* The creator's deployment and its memory source (seed_rules.c). */
    if ((st = kvp__seed_deployment(t, &j->d, catalog, model_dir, &j->set, &j->dep, err)) != KVP_OK)
        return st;
    j->dep.model = j->model;
    j->dep.draft = j->draft;
    startup_gpu(j);
    /* The one step every command takes (deploy.h): the start-up settings and
     * the GPU's identity; the memory was decided above. */
    kvp_deployment_settle(&j->dep, &j->startup, j->startup.gpu_known ? &j->startup.gpu : NULL, true);
    j->dep.startup.enforce_eager = j->startup.enforce_eager;
    return kvp__startup_inputs(j->model, &j->startup, err);
}

kvp_status kvp__plan_job_given(kvp__plan_job *j, const kvp_options *t, const kvp_deployment *dep,
                               kvp_error *err) {
    job_init(j, t);
    j->dep = *dep;
    j->model = (kvp_model *)dep->model;
    return j->creator ? kvp__seed_rules_prepare(j->model, &j->dep.trtllm, &j->seed, err) : KVP_OK;
}

/* The error of `st`, with `key` and the message. */
static kvp_status refused(kvp_error *err, kvp_status st, const char *key, const char *message) {
    kvp_error_clear(err);
    err->code = st;
    kvp__strlcpy(err->key, key, sizeof err->key);
    kvp__strlcpy(err->message, message, sizeof err->message);
    return st;
}

kvp_status kvp__plan_job_run(kvp__plan_job *j, bool report, kvp_error *err) {
    /* The result this thread kept from its last plan (spare.h): the pipeline
     * clears it before it plans, so it is not zeroed twice (32 KiB). */
    j->r = kvp__deploy_result_take();
    if (!j->r || (report && !(j->rep = malloc(sizeof *j->rep))))
        return kvp__fail(err, KVP_NOMEM, NULL, NULL, "plan: out of memory");
    kvp_deploy_result *r = j->r;
    kvp_status st = report ? kvp_deploy_plan_report(&j->dep, r, j->rep, err)
                           : kvp_deploy_plan(&j->dep, r, err);
    if (st != KVP_OK) return st;
    /* An engine that allocates what it is asked for (llama.cpp) and does not
     * fit the device: its figures are planned, the engine would not start. */
    j->figures = kvp__engine_ops_of(r->point.engine)->allocates_as_asked &&
                 r->policy.pool_count > 0 && r->status == KVP_INFEASIBLE;
    if (r->status != KVP_OK && !j->figures) {
        j->not_planned = true;
        return refused(err, r->status, r->key, r->message);
    }
    /* The requests asked for (--isl, --max-new-tokens): refused by name (2), or
     * never admitted (1, with the largest length that fits). */
    if (r->status == KVP_OK && r->admission.status != KVP_OK) {
        j->early = !j->creator && r->admission.status == KVP_INVALID_ARG;
        return refused(err, r->admission.status, r->admission.key, r->admission.refused);
    }
    if (!j->creator || r->status != KVP_OK) return KVP_OK;
    /* After the build: compression and LoRA on the creator's settings as resolved. */
    j->seed.enable_block_reuse = j->t->deployment.kv.enable_block_reuse;
    return kvp__seed_rules_after_build(j->model, &r->trtllm, &r->plan, &j->seed, err);
}

void kvp__plan_job_free(kvp__plan_job *j) {
    kvp__deploy_result_give(j->r);
    free(j->rep);
    if (j->owns_models) {
        kvp_model_free(j->draft);
        kvp_model_free(j->model);
    }
    /* What it owned, forgotten (not the whole job: 22 KiB zeroed again on
     * every kvp_json_call, bench/bench_json_call.c). */
    j->r = NULL;
    j->rep = NULL;
    j->model = j->draft = NULL;
    j->owns_models = false;
}
