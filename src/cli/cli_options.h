/* cli_options.h — argv onto the one option table (kvplan/options.h): every
 * command reads its deployment settings through kvp_cli_table_option, so a
 * flag has one name, one value check and one message everywhere. */
#ifndef KVP_CLI_OPTIONS_H
#define KVP_CLI_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

#include "argv_read.h"      /* the one argv reader */
#include "options_struct.h" /* kvp_options' fields (opaque to library users) */

/* argv[*i] as a row of the table for o->command: "--name V", "--name=V", a flag,
 * or a flag with "=true|false" (or a following "true"/"false"). Returns 0 when
 * argv[*i] is no row of this command (nothing consumed), -1 when it was applied
 * (*i past its value), else the exit status after printing the error (JSON on
 * stdout with `json`). */
int kvp_cli_table_option(kvp_options *o, int argc, char **argv, int *i, bool json);
/* A command's argv as the one reader reads it (argv_read.h), and what the CLI
 * prints for it. */
typedef struct {
    kvp__argv_spec argv;
    const char *help;        /* --help: kvp__command_help(help) on stdout */
    bool help_puts;          /* ... with a newline after it */
    bool help_rows;          /* ... then the table's rows of the command */
    bool *json;              /* set before any word is read when one is "--json" */
    const char *const *more; /* names "did you mean" also searches */
    /* A table word read by the command instead (0: none, -1: read, else the
     * exit status after printing); NULL: kvp_cli_table_option onto `o`. */
    int (*row)(void *ctx, int argc, char **argv, int *i);
    void *row_ctx;
    /* An option no word reads: the exit status after printing. `known`: the
     * names "did you mean" searches (the table's rows, the command's own words,
     * `more`); `json`: --json was given. NULL: kvp_cli_table_unknown. */
    int (*unknown)(const char *arg, const char *const *known, bool json);
    /* Under --json, a KVP__OWN_CALL refusal that names a key goes out as a JSON
     * error (false, or no key: one line). */
    bool refusals_json;
} kvp_cli_argv;
/* Read argv (table rows onto `o`, NULL for a command without them). -1 to go
 * on, else the exit status (0 after --help) after printing. */
int kvp_cli_read_argv(const kvp_cli_argv *c, kvp_options *o, int argc, char **argv);
/* kvp_options_finish, then print its notes and warnings on stderr. -1 to go on,
 * else the exit status after printing the error. */
int kvp_cli_table_finish(kvp_options *o, bool json);
/* The options whose spellings error messages use (kvp__error_as_typed). */
void kvp_cli_table_use(const kvp_options *o);
/* Those options (a copy), NULL when none. */
const kvp_options *kvp_cli_table_active(void);
/* An unknown option `arg`: one line with "did you mean" over the table's names
 * for `command` and the command's own names (`own`, `more`: NULL-terminated,
 * either may be NULL). Returns the exit status. */
int kvp_cli_table_unknown(const char *arg, unsigned command, const char *const *own,
                          const char *const *more);
/* The same over the names "did you mean" searches, `known` (NULL-terminated). */
int kvp_cli_table_unknown_in(const char *arg, unsigned command, const char *const *known);
/* An unknown option as a JSON error on stdout (and its line on stderr): its
 * name, without a "=VALUE", is the error's key. Returns the exit status. */
int kvp_cli_unknown_json(const char *arg);
/* Help lines of the table's rows for `command` (those of `engines` bits). */
void kvp_cli_table_usage(FILE *out, unsigned command, unsigned engines);
/* The spelling the user typed for the row `flag` names (any of its spellings),
 * NULL when that row was not given. */
const char *kvp_cli_typed_spelling(const char *flag);
/* kvp_cli_typed_spelling as the library's flag rewriter takes it
 * (render_internal.h kvp__flag_spelling; ctx, buf unused). */
const char *kvp_cli_flag_spelling(const void *ctx, const char *flag, char *buf, size_t size);
/* Two options that contradict: one line naming both; exit status 2. */
int kvp_cli_contradiction(const char *a, const char *b, const char *why, bool json);

#endif
