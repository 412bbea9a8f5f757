/*
 * startup_resume.h — the start-up rules evaluated once per plan (issue 12
 * item 9): the pipeline checks a deployment before it is planned (no memory
 * plan) and again after (the memory rules on the plan). A rule that reads
 * neither the plan nor the device memory the pipeline fills in after it
 * gives the same row both times when it starts from the same state (the
 * length and dtype the engine runs with, which earlier rules may adjust), so
 * the second pass copies that row from the first instead of evaluating it.
 * tests/unit/test_startup_once.c compares the result with a full second
 * evaluation over many deployments.
 */
#ifndef KVP_STARTUP_RESUME_H
#define KVP_STARTUP_RESUME_H

#include "kvplan/startup.h"

#define KVP__STARTUP_TRACE_MAX 64 /* table rows traced; a longer table is evaluated in full */

/* The report's state a rule reads and may adjust. */
typedef struct kvp__startup_state {
    uint64_t max_model_len;
    kvp_dtype run_dtype;
    bool max_model_len_adjusted, run_dtype_adjusted;
} kvp__startup_state;

/* Per table row of the first pass: the row it wrote (-1: none) and the state
 * before and after it. */
typedef struct kvp__startup_trace {
    bool valid;
    struct {
        int row;
        kvp__startup_state before, after;
    } at[KVP__STARTUP_TRACE_MAX];
} kvp__startup_trace;

/* kvp_startup_check that also records `trace` (the first pass). */
kvp_status kvp__startup_check_traced(const kvp_model *model, const kvp_startup_settings *s,
                                     const kvp_startup_plan_input *plan, kvp_startup_report *rep,
                                     kvp__startup_trace *trace, kvp_error *err);

/* kvp_startup_check of the same model and settings (the device memory
 * filled in aside) after the first pass `pre` / `trace`: the same report,
 * with the rows that need no plan copied from `pre` where their state is
 * the same. `rep` must not be `pre`. */
kvp_status kvp__startup_check_resumed(const kvp_model *model, const kvp_startup_settings *s,
                                      const kvp_startup_plan_input *plan,
                                      const kvp_startup_report *pre,
                                      const kvp__startup_trace *trace, kvp_startup_report *rep,
                                      kvp_error *err);

#endif
