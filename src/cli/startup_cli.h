/* startup_cli.h — the start-up flags (--dtype, --quantization, --env K=V, ...)
 * for every command, and the gate that runs the engine's start-up rules
 * (kvplan/startup.h) before and after a plan: one call per command. */
#ifndef KVP_CLI_STARTUP_CLI_H
#define KVP_CLI_STARTUP_CLI_H

#include <stdbool.h>

#include "kvplan/kvplan.h"
#include "kvplan/startup.h"

/* One start-up option at argv[*i] into `ss` (advancing *i past its value):
 * --dtype, --quantization/-q, --trust-remote-code, --enforce-eager,
 * --[no-]enable-prefix-caching, --[no-]enable-chunked-prefill,
 * --enable-expert-parallel, --speculative-method / --speculative-algorithm,
 * --num-speculative-tokens / --speculative-num-draft-tokens, --speculative-config,
 * --gpus N, --env K=V, --disable-rule ID. false when argv[*i] is none of them; a bad
 * value prints one line and sets *bad. */
bool kvp_cli_startup_opt(int argc, char **argv, int *i, kvp_startup_settings *ss, bool *bad);
/* The option names above, NULL-terminated (for "did you mean"). */
extern const char *const kvp_cli_startup_names[];

/* Before a plan: evaluate the rules that need no memory plan on ss (ss->policy
 * is the deployment as planned), apply what the engine adjusts to ss->policy
 * (the context length it derives or clamps, the KV dtype after a dtype
 * fallback) and report: a refusal is printed with its rule ("kvplan: the
 * engine would not start: V-PAR-1 ...") and returns 1; adjustments are printed
 * as notes on stderr. *out_weights_dtype gets the dtype the engine runs the
 * weights in. Returns 0 when the engine starts. */
int kvp_cli_startup_gate(const kvp_model *model, kvp_startup_settings *ss,
                         kvp_dtype *out_weights_dtype, bool json);
/* After the plan: the memory rules on the engine policy's result (or its
 * failure `st` / `err`). Returns 1 after printing a refusal, else 0. */
int kvp_cli_startup_gate_plan(const kvp_model *model, const kvp_startup_settings *ss,
                              kvp_status st, const kvp_policy_result *r, const kvp_error *err,
                              bool json);

/* Print a report as text or JSON on stdout (kvplan check). */
void kvp_cli_startup_print(const kvp_startup_report *rep, const kvp_startup_settings *ss,
                           const char *model_name, bool json);

#endif
