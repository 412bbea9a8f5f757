/* from_cmd.h — `kvplan plan --from "<engine command>"`: read the command a user
 * already runs (vllm serve, python -m sglang.launch_server, llama-server,
 * trtllm-serve with an extra-options YAML) and turn it into the policy and
 * options of `kvplan plan`.
 *
 * The command is split like a POSIX shell would (single and double quotes,
 * backslash escapes, backslash-newline continuations, leading VAR=value
 * assignments). Options kvplan maps are translated to kvplan's names; every
 * other option is listed as ignored, with its value, so the user sees what
 * the plan does not take into account. */
#ifndef KVP_CLI_FROM_CMD_H
#define KVP_CLI_FROM_CMD_H

#include <stdbool.h>
#include <stddef.h>

#define KVP_FROM_MAX_INPUT 16384  /* bytes of a pasted command */
#define KVP_FROM_MAX_ARGS 160     /* translated arguments */
#define KVP_FROM_MAX_YAML (1u << 20)

/* A parsed engine command. Plain value; the strings point into `storage`. */
typedef struct kvp_from_cmd {
    char engine[16];              /* "vllm", "sglang", "llamacpp", "trtllm" */
    const char *model;            /* as written in the command; NULL when none */
    int argc;                     /* translated `kvplan plan` options (no "plan", no MODEL) */
    const char *argv[KVP_FROM_MAX_ARGS];
    int ignored_count;            /* options kvplan does not model */
    char ignored[4096];           /* "--port 8000, --host 0.0.0.0" */
    int unknown_count;            /* options the engine table does not know (warned) */
    char unknown[1024];           /* "--foo, --bar 3" */
    char variables[256];          /* "$HF_HOME, ${MODEL}": left as text, said so */
    size_t used;
    char storage[3 * KVP_FROM_MAX_INPUT];
} kvp_from_cmd;

/* Parse `cmdline`. Returns 0, or 2 with a one-line reason in msg (the
 * caller prints it). YAML files named by trtllm-serve's
 * --extra_llm_api_options / --config are read relative to the current
 * directory. */
int kvp_from_parse(const char *cmdline, kvp_from_cmd *out, char *msg, size_t msg_size);

/* argv of a `kvplan plan` run after --from was expanded. */
typedef struct kvp_from_argv {
    bool rewritten;   /* false: no --from; argc/argv are the caller's */
    int argc;
    char **argv;      /* "plan", MODEL, --policy ENGINE, translated options, the user's others */
    kvp_from_cmd *cmd;/* owned when rewritten */
    char *note;       /* "kvplan: --from: planning as: ..." lines, printed by _finish */
} kvp_from_argv;

/* For `kvplan plan`: when argv holds `--from CMD` (or --from=CMD), parse CMD
 * and build a new argv: "plan", the command's MODEL, --policy ENGINE, the
 * translated options, then the user's own arguments (without --from), so
 * the user's options come last and win. Returns 0 (out set) or 2 after
 * printing a one-line error. Use:
 *
 *     kvp_from_argv from;
 *     if (kvp_cli_from_rewrite(argc, argv, &from) != 0) return KVP_EXIT_BAD_INPUT;
 *     if (from.rewritten) {
 *         int rc = kvp_cmd_plan(from.argc, from.argv);
 *         kvp_cli_from_finish(&from, rc);
 *         return rc;
 *     }
 */
int kvp_cli_from_rewrite(int argc, char **argv, kvp_from_argv *out);
/* The use above in one call, for every command that takes --from: true when
 * argv held --from (then *rc is `cmd`'s exit status on the rewritten argv, or
 * 2 after a bad --from); false when the caller goes on with its own argv. */
bool kvp_cli_run_from(int argc, char **argv, int (*cmd)(int, char **), int *rc);
/* After the rewritten run: unless it ended in bad input (rc 2, whose one
 * error line stands alone), print on stderr how the command was read
 * ("kvplan: --from: planning as: kvplan plan ...") and which options were
 * ignored; then free. */
void kvp_cli_from_finish(kvp_from_argv *fa, int rc);
/* Free without printing. NULL / not rewritten: no-op. */
void kvp_cli_from_free(kvp_from_argv *fa);

#endif
