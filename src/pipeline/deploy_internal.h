/*
 * deploy_internal.h — the start-up gate of the one pipeline (deploy.c calls
 * it; deploy_startup.c holds it): the engine's start-up rules (kvplan/startup.h)
 * evaluated on the settings a point plans, before the plan (what the engine
 * refuses or adjusts without memory) and after it (the memory rules).
 */
#ifndef KVP_DEPLOY_INTERNAL_H
#define KVP_DEPLOY_INTERNAL_H

#include "kvplan/deploy.h"
#include "startup_resume.h"

typedef struct kvp__deploy_gate {
    kvp_startup_settings ss;  /* dep->startup with the policy settings the point plans */
    kvp_startup_report pre;   /* the rules evaluated without a memory plan */
    kvp_startup_report post;  /* every rule, the memory rules on the plan */
    bool ready;               /* kvp__deploy_gate_before ran (the point's settings resolved) */
    kvp__startup_trace trace; /* the first pass, so the second copies what needs no plan */
    bool full_check;          /* evaluate every rule again after the plan (the reference
                                 test_startup_once.c compares the copied rows with) */
} kvp__deploy_gate;

/* The gate's state on the heap (large) through `alc` (NULL = libc: the
 * calling thread's kept gate when it has one); NULL when out of memory. Give
 * it back with kvp__deploy_gate_free(alc, ...). */
kvp__deploy_gate *kvp__deploy_gate_new(const kvp_allocator *alc);
/* Free a gate of kvp__deploy_gate_new (libc's: kept for the thread's next
 * plan when it holds none). NULL is a no-op. */
void kvp__deploy_gate_free(const kvp_allocator *alc, kvp__deploy_gate *g);
/* A gate as kvp__deploy_gate_new leaves it (no point resolved, resumed checks). */
void kvp__deploy_gate_reset(kvp__deploy_gate *g);

/* The creator's settings (TensorRT-LLM's, kvp_deploy_settings) as the start-up
 * rules of `engine` (the one the creator plans) read them. */
kvp_policy_settings kvp__deploy_gate_creator_settings(kvp_engine engine,
                                                      const kvp_deploy_settings *d,
                                                      const char *engine_version);

/* Before the plan: the rules that need no memory plan on *s (engine set), then
 * what the engine adjusts applied to *s (kvp_startup_apply) and, when the
 * deployment leaves the weights dtype to the engine, the dtype it runs the
 * weights in (*weights_dtype: the fp16 fallback, an explicit --dtype). */
kvp_status kvp__deploy_gate_before(kvp__deploy_gate *g, const kvp_deployment *dep,
                                   kvp_policy_settings *s, kvp_dtype *weights_dtype,
                                   kvp_error *err);

/* After the plan (out filled, its status whatever it is): every rule again on
 * the settings as given (the adjusted length is not a length the user asked
 * for) with the plan for the memory rules, into g->post and its summary
 * out->startup. Nothing when
 * kvp__deploy_gate_before did not run (a setting invalid for the engine). A refusal sets out->starts false and the
 * refusal; the first refusal of a rule that needs no plan (the engine exits
 * before it loads weights), or of any rule when the plan itself succeeded,
 * makes out->status KVP_INFEASIBLE with the rule in the message. Returns
 * KVP_OK, or the check's error (bad engine). */
kvp_status kvp__deploy_gate_after(kvp__deploy_gate *g, const kvp_deployment *dep,
                                  kvp_deploy_result *out, kvp_error *err);

/* kvp_deploy_plan with the gate's state kept: g->post holds every rule. */
kvp_status kvp__deploy_plan_gated(const kvp_deployment *dep, kvp_deploy_result *out,
                                  kvp__deploy_gate *g, kvp_error *err);

/* What a caller planning many points (a sweep's rows, a fit's steps) keeps
 * from one to the next: the gate's scratch, allocated once, and the last memory
 * estimate (estimate_memo.h), so a row re-derives only what its point changes.
 * Every number is the one kvp_deploy_plan gives for the point alone. */
typedef struct kvp__deploy_run kvp__deploy_run; /* deploy.c */

/* A new run (large: on the heap) through `alc` (NULL = libc); NULL when out of
 * memory. Owned by the caller:
 * free it with kvp__deploy_run_free. */
kvp__deploy_run *kvp__deploy_run_new(const kvp_allocator *alc);
void kvp__deploy_run_free(kvp__deploy_run *run);

/* kvp_deploy_plan of one point inside a run. */
kvp_status kvp__deploy_plan_in(kvp__deploy_run *run, const kvp_deployment *dep,
                               kvp_deploy_result *out, kvp_error *err);

#endif
