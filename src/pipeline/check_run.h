/* check_run.h — `kvplan check`'s evaluation, one function for the CLI
 * (src/cli/cmd_check.c) and kvp_json_call's "check" (src/bind): every
 * start-up rule of the engine (kvplan/startup.h), the memory rules on the
 * one pipeline's plan when there is memory to plan from. */
#ifndef KVP_PLAN_CHECK_RUN_H
#define KVP_PLAN_CHECK_RUN_H

#include "kvplan/deploy.h"
#include "kvplan/startup.h"

/* Evaluate the rules of `ss` (its engine named; gpu / gpu_known, and
 * policy.total_memory_bytes from --gpu-mem or the GPU, set by the caller) for
 * `model` into `rep`. `given`: the deployment the option table built (its
 * point, KV and TensorRT-LLM settings, memory terms: --peak, --non-torch, ...;
 * the table must outlive the call: the window list points into it). Without memory (no total, no --kv-budget) the
 * memory rules are `unknown`. A refusal is a report (rep->starts false), not
 * an error; an error is bad input or out of memory. */
kvp_status kvp__check_run(const kvp_model *model, const kvp_startup_settings *ss,
                          const kvp_deployment *given, kvp_startup_report *rep, kvp_error *err);

/* Before a plan: the start-up flags kvplan must understand to plan at all
 * (--quantization names a weight format it costs, estimate.h); the format's
 * own error otherwise. */
kvp_status kvp__startup_inputs(const kvp_model *model, const kvp_startup_settings *ss,
                               kvp_error *err);

#endif
