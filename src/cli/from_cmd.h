/* from_cmd.h — `kvplan plan --from "<engine command>"`: the command a user
 * already runs, read by the options room (from_parse.h), fills the policy and
 * settings of `kvplan plan`, `fit`, `sweep`, `compare` or `check`. */
#ifndef KVP_CLI_FROM_CMD_H
#define KVP_CLI_FROM_CMD_H

#include <stdbool.h>
#include <stddef.h>

#include "options_struct.h" /* kvp_options' fields (opaque to library users) */

#include "from_parse.h"

/* --from fills the settings; it never rebuilds argv. A command that takes
 * --from runs its body through kvp_cli_from_run, which reads `--from CMD` (or
 * --from=CMD) from argv and keeps it as the running command's --from. The body
 * creates its kvp_options and calls kvp_cli_from_apply before reading its own
 * argv: the command's policy and settings are set through the table rows its
 * engine spellings name, then the user's argv goes on top (kvp_cli_table_option
 * skips the --from words and refuses a row both give, naming both, exit 2).
 *
 *     static int fit_main(int argc, char **argv) {
 *         kvp_options *o = ...;
 *         if ((rc = kvp_cli_from_apply(o, json)) >= 0) return rc;
 *         ... argv through kvp_cli_table_option, MODEL ...
 *         model = kvp_cli_from_model(model);
 *     }
 *     int kvp_cmd_fit(int argc, char **argv) { return kvp_cli_from_run(argc, argv, fit_main); }
 *
 * After the body, unless it ended in bad input (exit 2, whose one error line
 * stands alone), stderr says how the command was read ("kvplan: --from:
 * planning as: kvplan fit MODEL --policy vllm --tp 2 ..."), which options
 * were ignored and which were unknown. One command runs at a time in a
 * process (the CLI is single-threaded). */
int kvp_cli_from_run(int argc, char **argv, int (*body)(int, char **));
/* The running command's engine ("vllm"), NULL without --from. */
const char *kvp_cli_from_engine(void);
/* Fill `o` from the running --from (nothing without one). -1 to go on, else the
 * exit status after printing the error (JSON on stdout with `json`). */
int kvp_cli_from_apply(kvp_options *o, bool json);
/* The MODEL to plan: the user's (`given`, wins and is noted when it differs),
 * else the command's; `given` without --from. */
const char *kvp_cli_from_model(const char *given);
/* For kvp_cli_table_option. argv[*i] is the running --from's own word
 * ("--from CMD", "--from=CMD"; the same string, argv may be a copy): *i past
 * it, true. */
bool kvp_cli_from_word(const kvp_options *o, int argc, char **argv, int *i);
/* For kvp_cli_table_option: the user gives row `r` (spelled `typed`, `value`;
 * `word` is the option's argv word). 0 when --from did not fill the row (go
 * on); -1 when it is a --policy naming the command's engine (the same
 * statement: consumed); else a contradiction naming both, printed, and its
 * exit status (2). */
int kvp_cli_from_given(const kvp_options *o, const kvp_option *r, const char *typed,
                       const char *value, const char *word, bool json);

#endif
