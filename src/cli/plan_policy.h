/* plan_policy.h — `kvplan plan --policy vllm|sglang|llamacpp|trtllm`: the engine
 * policies' command line (src/engines/). cmd_plan.c hands the whole argv here
 * when --policy names an engine other than trtllm. argv[0] is "plan". */
#ifndef KVP_CLI_PLAN_POLICY_H
#define KVP_CLI_PLAN_POLICY_H

#include <stdio.h>
#include <stdbool.h>
#include <stddef.h>

#include "kvplan/kvplan.h"

int kvp_cli_plan_policy(int argc, char **argv);
/* `kvplan plan --help` (cmd_plan.c): the command's flags and the option table's. */
void kvp_cli_plan_usage(FILE *out);



/* --explain under the policies: the memory terms with where each came from, the
 * budget's formula and each pool's arithmetic (plan_explain.c). */
void kvp_cli_policy_explain(const kvp_deploy_result *res, const char *total_source, FILE *f);
/* The start-up memory terms of `res`, one line each (memory_terms_out.c). */
void kvp_cli_memory_terms(const kvp_deploy_result *res, FILE *f);
/* --svg FILE / --html FILE under the policies (either may be NULL). -1 when
 * written, else the exit status of the error (printed). */
int kvp_cli_policy_pictures(const kvp_model *model, const kvp_deploy_result *res,
                            const char *total_source, const char *svg, const char *html);

#endif
