/* plan_policy.h — `kvplan plan --policy vllm|sglang|llamacpp|trtllm`: the engine
 * policies' command line (src/policy/). cmd_plan.c hands the whole argv here
 * when --policy names an engine other than trtllm. argv[0] is "plan". */
#ifndef KVP_CLI_PLAN_POLICY_H
#define KVP_CLI_PLAN_POLICY_H

int kvp_cli_plan_policy(int argc, char **argv);

#endif
