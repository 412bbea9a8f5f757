/* commands.h — the subcommand table. Add a command: one X() line here and a
 * file src/cli/cmd_NAME.c defining `int kvp_cmd_NAME(int argc, char **argv)`
 * (argv[0] is the subcommand name). Return 0, 1 (ran, answer is "no") or 2 (bad input). */
#ifndef KVP_CLI_COMMANDS_H
#define KVP_CLI_COMMANDS_H

/* X(name, one-line help) */
#define KVP_COMMANDS(X)                                                        \
    X(check, "will the engine start? every start-up rule: pass, refuse, adjust, warn") \
    X(cost, "bytes per token and per sequence of a model, pool by pool")       \
    X(compare, "one model and GPU under every engine policy, side by side")    \
    X(fit, "solve for the longest context, most sequences, smallest TP, KV dtype") \
    X(gpus, "GPUs on this machine (NVML / CUDA / sysfs), or --catalog")        \
    X(local, "model-local KV caches a model declares, summed and reported")    \
    X(models, "list the embedded model catalogue")                             \
    X(sim, "replay a workload through the planned block pool: real concurrency") \
    X(plan, "the KV cache plan of one GPU: budget, pools, tokens, sequences") \
    X(serve, "the web page and JSON API on this machine (127.0.0.1 by default)") \
    X(sweep, "plan a grid (max-seq-len x kv-dtype x tp x policy): table, CSV, JSON, SVG") \
    X(why, "read an engine's start-up log: every figure it printed, reproduced")

#define KVP__DECLARE_CMD(name, help) int kvp_cmd_##name(int argc, char **argv);
KVP_COMMANDS(KVP__DECLARE_CMD)
#undef KVP__DECLARE_CMD

#endif
