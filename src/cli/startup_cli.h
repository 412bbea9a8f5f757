/* startup_cli.h — the gate that runs the engine's start-up rules
 * (kvplan/startup.h) before and after a plan, one call per command, and the
 * check report. The start-up flags (--dtype, --env K=V, ...) are rows of the
 * option table (kvplan/options.h). */
#ifndef KVP_CLI_STARTUP_CLI_H
#define KVP_CLI_STARTUP_CLI_H

#include <stdbool.h>

#include "kvplan/deploy.h"
#include "kvplan/kvplan.h"
#include "kvplan/startup.h"

/* Before kvp_deploy_plan: the start-up flags kvplan must understand to plan at
 * all (--quantization names a weight format it costs, estimate.h). -1 when
 * they do, else the exit status after printing the error. */
int kvp_cli_startup_inputs(const kvp_model *model, const kvp_startup_settings *ss, bool json);

/* After kvp_deploy_plan_report (the pipeline with the engine's start-up rules,
 * deploy.h; `report` the rules of that same plan, printed for a refusal with
 * `json`, never planned again):
 * a refusal is printed with its rule ("kvplan: vLLM would not start: V-PAR-1:
 * ...", and the fix) on stderr, or as the check report on stdout with `json`,
 * and returns 1; what the engine adjusts or warns about is said on stderr
 * (the plan was computed with the adjusted values) and returns 0.
 * KVP_CLI_STARTUP_VERDICT: print a refusal only when the rule is the result's
 * verdict (a memory rule echoing a plan that failed leaves the plan's one-line
 * error to the caller), and leave the memory rules' adjustments to the
 * pipeline's warnings (TensorRT-LLM's adopted max_seq_len). */
#define KVP_CLI_STARTUP_VERDICT 1u
int kvp_cli_startup_result(const kvp_deployment *dep, const kvp_deploy_result *res,
                           const kvp_startup_report *report, const char *model_name, bool json,
                           unsigned flags);

/* Print a report as text or JSON on stdout (kvplan check). */
void kvp_cli_startup_print(const kvp_startup_report *rep, const kvp_startup_settings *ss,
                           const char *model_name, bool json);

#endif
