/* fit_env.h — the options `kvplan fit`, `sweep` and `compare` share: MODEL,
 * the GPU and measured memory, the engine policy and its base settings, and
 * the JSON form of one evaluated point. */
#ifndef KVP_CLI_FIT_ENV_H
#define KVP_CLI_FIT_ENV_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "cli_options.h" /* kvp__argv_own */
#include "kvplan/fit.h"
#include "options_struct.h" /* kvp_options' fields (opaque to library users) */

typedef struct fit_cli {
    const char *model_arg;
    kvp_gpu_info gpu_info;      /* the GPU named, looked up once (settle.h) */
    bool has_gpu_info;
    bool json;
    bool has_max_seq_len;
    kvp_model *model;           /* owned after fit_cli_finish */
    char model_dir[4096];       /* checkpoint folder of MODEL, when it is a path */
    kvp_fit_env env;
    kvp_fit_point base;
    kvp_options *opt;           /* the settings as the option table read them (= &opt_store:
                                   no heap, so an early return leaks nothing) */
    kvp_options opt_store;
} fit_cli;

/* Defaults, and --json when argv holds it. */
void fit_cli_init(fit_cli *c, int argc, char **argv);
/* The settings of the running --from (from_cmd.h), before argv: -1 to go on,
 * else an exit status after printing the error. */
int fit_cli_from(fit_cli *c);
/* Read argv through the one reader (kvp_cli_read_argv): --from, --json and
 * --help, then the command's `own` words (NULL-terminated), the table's rows
 * onto c->opt and MODEL. -1 to go on, else the exit status (0 after --help)
 * after printing. */
int fit_cli_read(fit_cli *c, const kvp__argv_own *own, int argc, char **argv);
/* A refusal of `code` naming `key` (NULL: none) for a KVP__OWN_CALL word: its
 * message as written, escaped when printed. Returns `code`. */
kvp_status fit_cli_refuse(kvp_error *err, kvp_status code, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* `text` as a count for own word `flag`: one line naming no key when it is
 * none (as a missing value), the caller's range check after. */
kvp_status fit_cli_count(const char *flag, const char *text, uint64_t *out, kvp_error *err);
/* Load the model and the GPU; check memory was given. -1 or an exit status. */
int fit_cli_finish(fit_cli *c, const char *command);
void fit_cli_free(fit_cli *c);
/* Print an error of kind `code` (one line, and JSON on stdout with --json). */
int fit_cli_bad(const fit_cli *c, kvp_status code, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A point refused for its input (measured memory facts that cannot be true together, a
 * contradictory setting: any status but KVP_OK and KVP_INFEASIBLE, no start-up rule)
 * rather than for not fitting. */
bool fit_eval_bad_input(const kvp_fit_eval *e);
/* Report such a point as `plan` reports it (one stderr line naming the option; with
 * `json`, also the error object on stdout) and return its exit status, 2. */
int fit_eval_report(const kvp_fit_eval *e, bool json);
#endif
