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



#endif
