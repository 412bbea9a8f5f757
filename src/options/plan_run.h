/* plan_run.h — the one sequence of a plan after its settings (issue 27 item 2),
 * for every engine: the GPU and the memory source settled once, the model and
 * the draft opened, TensorRT-LLM's seed rules around its creator (the engine
 * whose record says creator_plans, engine_ops.h), kvp_deploy_plan_report, the
 * figures of an engine that allocates what it is asked for but would not start,
 * the admission refusal and the plan the pipeline did not make. `kvplan plan`
 * (src/cli/cmd_plan.c) and kvp_json_call's "plan" (src/bind/deploy_call.c) run
 * it; neither keeps a copy of the sequence. No printing: each step's refusal is
 * a kvp_error, and the caller says it. */
#ifndef KVP_OPTIONS_PLAN_RUN_H
#define KVP_OPTIONS_PLAN_RUN_H

#include <stdbool.h>

#include "kvplan/deploy.h"
#include "kvplan/startup.h"
#include "options_struct.h"
#include "seed_rules.h"
#include "settle.h"

typedef struct kvp__plan_job {
    const kvp_options *t;      /* the finished settings, read in place */
    bool creator;              /* the engine's record says creator_plans */
    kvp_model *model, *draft;  /* opened by kvp__plan_job_open (the job frees them), or the caller's */
    bool owns_models;
    kvp__settled set;          /* the GPU looked up once, the memory source */
    kvp_startup_settings startup; /* the table's, with the GPU resolved */
    kvp_deploy_settings d;     /* the creator's settings (kvp__seed_settings) */
    kvp__seed_rules seed;      /* the rules around the creator */
    kvp_deployment dep;        /* what the pipeline plans */
    kvp_deploy_result *r;      /* the pipeline's result */
    kvp_startup_report *rep;   /* the start-up rules of that plan (NULL: kvp_deploy_plan alone) */
    /* kvp__plan_job_run's verdict, beside its status: */
    bool figures;     /* planned, but the engine would not start (llama.cpp past the device) */
    bool not_planned; /* *err is the pipeline's own refusal (r->status) */
    bool early;       /* *err comes before the start-up verdict is said (a request refused by name) */
} kvp__plan_job;

/* The job of the finished settings `t`; the creator's settings when the
 * engine's record says creator_plans (an unknown KV dtype named as typed). */
kvp_status kvp__plan_job_begin(kvp__plan_job *j, const kvp_options *t, kvp_error *err);

/* `kvplan plan`: the model `arg` (a name, a config.json, a folder, a .gguf; a
 * geometry JSON with `geometry`) and the draft opened, the GPU and the memory
 * source settled (in `catalog` first, NULL: the built-in one), and the
 * deployment built from the table (`model_dir`: the checkpoint folder for
 * exact weights, may be NULL), with the start-up flags kvplan must understand
 * (kvp__startup_inputs). */
kvp_status kvp__plan_job_open(kvp__plan_job *j, const char *arg, bool geometry,
                              const char *catalog, const char *model_dir, kvp_error *err);

/* kvp_json_call's "plan": the job of the finished settings `t` and the
 * deployment the request settled from them (`dep`, its model the caller's),
 * with the creator's seed rules before it. */
kvp_status kvp__plan_job_given(kvp__plan_job *j, const kvp_options *t, const kvp_deployment *dep,
                               kvp_error *err);

/* Plan j->dep (with the start-up report when `report`): the pipeline's result
 * in j->r; an error for a plan not made (j->not_planned, the result's message
 * and key), for the requests the deployment refuses (j->early when refused by
 * name), or from the creator's rules after the build. j->figures: planned, the
 * engine would not start, not an error. */
kvp_status kvp__plan_job_run(kvp__plan_job *j, bool report, kvp_error *err);

void kvp__plan_job_free(kvp__plan_job *j);

#endif
