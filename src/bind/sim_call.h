/* sim_call.h — `kvplan sim` as library steps, so that the command and
 * kvp_json_call("sim") (Python's kvplan.sim) read the same settings, size the
 * same pool, replay the same way and print the same JSON document. The CLI
 * keeps what only a terminal has: its own flags, the progress line, the text
 * table and the SVG chart. */
#ifndef KVP_BIND_SIM_CALL_H
#define KVP_BIND_SIM_CALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kvplan/cost.h"
#include "kvplan/deploy.h"
#include "options_struct.h" /* kvp_options' fields (opaque to library users) */
#include "kvplan/pool.h"
#include "kvplan/sim.h"
#include "kvplan/startup.h"

/* What one replay needs: the workload (exactly one source) and the settings
 * the option table gave (kvp__sim_settings fills the second part). */
typedef struct kvp__sim_job {
    const char *workload_path;  /* --workload FILE / "workload" */
    const char *workload_text;  /* "workload_text": JSON lines given as text */
    size_t workload_len;
    const char *synthetic;      /* --synthetic SPEC / "synthetic" */
    kvp_workload_options wl;    /* arrival unit and step time */
    bool no_timing;             /* wall-clock figures left out of the document */
    const char *gpu_catalog;    /* the GPU catalogue file; NULL: the embedded one */
    const char *model_dir;      /* a checkpoint folder: exact weights; may be NULL */

    /* From the option table. */
    const char *gpu;
    uint64_t budget_bytes, blocks, max_model_len, recurrent_slots, gpu_mem, max_new_tokens;
    uint32_t max_batch, max_tokens;
    double fraction, cross_fraction;
    bool have_cross_fraction, have_budget, have_blocks, have_slots, have_gpu_mem, have_fraction;
    bool no_chunked, no_reuse;
    kvp_cost_settings cost;
    kvp_sim_policy policy;
} kvp__sim_job;

/* A job with no workload and the simulator's defaults (vLLM's scheduler, a
 * step of 0.02 s). */
kvp__sim_job kvp__sim_job_default(void);

/* The replay's settings from a finished option table `t` (KVP_COMMAND_SIM),
 * within the simulator's own bounds; then kvp__sim_check: the pool's source
 * (exactly one of --gpu, --gpu-mem, --kv-budget, --blocks), the options that
 * go together, and the scheduler replayed. Bad input: KVP_INVALID_ARG naming
 * the option as the user typed it. */
kvp_status kvp__sim_settings(const kvp_options *t, kvp__sim_job *job, kvp_error *err);
/* `kvplan sim`'s own flags: --arrival-unit steps|seconds and --step-time SECONDS
 * (in (0, 3600)) into job->wl; a value neither names is refused, the message
 * naming the flag. */
kvp_status kvp__sim_arrival_unit(kvp__sim_job *job, const char *text, kvp_error *err);
kvp_status kvp__sim_step_time(kvp__sim_job *job, const char *text, kvp_error *err);
kvp_status kvp__sim_check(const kvp_options *t, kvp__sim_job *job, kvp_error *err);

/* What a replay produced; free with kvp__sim_outcome_free. */
typedef struct kvp__sim_outcome {
    kvp_pool_config pool;
    uint64_t promised;             /* the plan's max_model_len sequences */
    kvp_deployment dep;            /* the deployment planned (with --blocks: unused) */
    kvp_deploy_result *plan;       /* the plan and its start-up verdict, or NULL */
    kvp_startup_report *report;    /* the rules of that plan, or NULL */
    kvp_workload *workload;
    kvp_sim_result result;
    bool ran;
} kvp__sim_outcome;

void kvp__sim_outcome_free(kvp__sim_outcome *o);

/* The pool: with --blocks a uniform one, else the one `kvplan plan` sizes
 * (the TensorRT-LLM creator) with the pipeline's start-up rules. A deployment
 * the engine would not start: KVP_INFEASIBLE naming the rule, with
 * out->plan and out->report kept for a caller that shows the whole report.
 * Sets job->max_model_len to the length the engine runs with. */
kvp_status kvp__sim_pool(kvp__sim_job *job, const kvp_model *m, kvp__sim_outcome *out,
                         kvp_error *err);

/* The workload read and replayed over out->pool; `progress` may be NULL. */
kvp_status kvp__sim_replay(const kvp__sim_job *job, const kvp_model *m, kvp__sim_outcome *out,
                           kvp_sim_progress_fn progress, void *progress_ctx, kvp_error *err);

/* `kvplan sim --json` of this job and its outcome (report room's
 * kvp__sim_json_text). *out: malloc'd, freed with free() / kvp_json_free. */
kvp_status kvp__sim_json_document(const kvp__sim_job *job, const kvp_model *m,
                                  const kvp__sim_outcome *o, char **out, kvp_error *err);

#endif
