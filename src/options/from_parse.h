/* from_parse.h — an engine command a user already runs (vllm serve, python -m
 * sglang.launch_server, llama-server, trtllm-serve with an extra-options YAML),
 * read as the settings of kvplan's option table: `kvplan COMMAND --from CMD`
 * (src/cli/from_cmd.c) and kvp_json_call's "from_command" (src/bind).
 *
 * The command is split like a POSIX shell would (single and double quotes,
 * backslash escapes, backslash-newline continuations, leading VAR=value
 * assignments). Options kvplan models are kept under the engine's own spelling
 * (a spelling of the option table); every other option is listed as ignored,
 * with its value, so the user sees what the plan does not take into account. */
#ifndef KVP_OPTIONS_FROM_PARSE_H
#define KVP_OPTIONS_FROM_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "kvplan/options.h"

#define KVP_FROM_MAX_INPUT 16384  /* bytes of a pasted command */
#define KVP_FROM_MAX_ARGS 160     /* settings of one command */
#define KVP_FROM_MAX_YAML (1u << 20)

/* One setting the command gives: a spelling of the option table
 * (kvplan/options.h; the engine's own flag, "-tp", "--max-model-len") and its
 * value (NULL for a bare flag). Both point into the command's storage. */
typedef struct kvp_from_setting {
    const char *name;
    const char *value;
} kvp_from_setting;

/* A parsed engine command. Plain value; the strings point into `storage`. */
typedef struct kvp_from_cmd {
    char engine[16];              /* "vllm", "sglang", "llamacpp", "trtllm" */
    const char *model;            /* as written in the command; NULL when none */
    int count;                    /* settings, in the command's order (the YAML's last) */
    kvp_from_setting set[KVP_FROM_MAX_ARGS];
    int ignored_count;            /* options kvplan does not model */
    char ignored[4096];           /* "--port 8000, --host 0.0.0.0" */
    int unknown_count;            /* options the engine table does not know (warned) */
    char unknown[1024];           /* "--foo, --bar 3" */
    char variables[256];          /* "$HF_HOME, ${MODEL}": left as text, said so */
    char missing[512];            /* files the command names that are not on this machine
                                     (warned by name, planned from the rest) */
    size_t used;
    char storage[3 * KVP_FROM_MAX_INPUT];
} kvp_from_cmd;

/* Parse `cmdline`. Returns 0, or 2 with a one-line reason in msg (the
 * caller prints it). YAML files named by trtllm-serve's
 * --extra_llm_api_options / --config are read relative to the current
 * directory when `read_files`, else refused (kvplan serve opens no file a
 * request names). */
int kvp_from_parse(const char *cmdline, bool read_files, kvp_from_cmd *out, char *msg,
                   size_t msg_size);

/* List `name` (and `value`, NULL for none) among the command's ignored options. */
void kvp_from_ignore(kvp_from_cmd *c, const char *name, const char *value);
/* Is `v` a word a flag reads as false ("false", "0", "no", "off", any case)? */
bool kvp_from_is_false(const char *v);


/* Note that the command names `path` (`what`: "the model folder"), which is
 * not on this machine: warned by name, the plan made from the rest. */
void kvp_from_note_missing(kvp_from_cmd *c, const char *path, const char *what);

/* clitext: how a --from command was read, as the CLI says it on stderr
 * (from_note.c): "kvplan: --from: planning as: kvplan ..." and the notes on the
 * model, the options missing, unknown, ignored or left as text. */
typedef struct kvp__from_note_in {
    const kvp_from_cmd *cmd;
    int argc;
    char *const *argv;          /* the running command's argv; argv[0] its name */
    int at;                     /* argv index of --from */
    const char *user_model;     /* the user's MODEL word, NULL when none */
    const char *same_policy;    /* the user's --policy word naming the same engine */
    const char *const *same;    /* the user's words that said what the command said */
    int same_count;
    const bool *applied;        /* per setting of cmd: set into the options */
    bool model_elsewhere;       /* user_model is the catalogue's name of a missing folder */
} kvp__from_note_in;
/* The note, malloc'd (free()); NULL when out of memory. */
char *kvp__from_note_text(const kvp__from_note_in *in);

/* ------------------------------------------------------------------ applying
 * A parsed command applied to a kvp_options (from_apply.c): `kvplan COMMAND
 * --from CMD` and kvp_json_call's "from_command" fill the settings through
 * these, then the user's own flags or keys go on top. */

/* Where `--from CMD` (or --from=CMD) sits in argv (argv[0] the command): *at
 * its index (-1 when absent) and *cmdline its value. KVP_INVALID_ARG, naming
 * --from, for a missing value or a second --from. */
kvp_status kvp__from_find(int argc, char *const *argv, int *at, const char **cmdline,
                          kvp_error *err);

#define KVP__FROM_ROW_POLICY 255 /* row[] mark of --policy (KVP_FROM_MAX_ARGS < 255) */
/* What a command filled: row[r->id] is 1 + the index of the setting that filled
 * row r (KVP__FROM_ROW_POLICY for the engine's --policy), applied[k] whether
 * setting k was set (a setting of a row this command does not take is not). */
typedef struct kvp__from_applied {
    unsigned char row[KVP_OPTIONS_MAX];
    bool applied[KVP_FROM_MAX_ARGS];
} kvp__from_applied;
/* kvp__from_apply's flags: list a setting this command does not take among the
 * command's ignored ones ("--x 1 (COMMAND does not read it)", the CLI's note),
 * and mark each setting pasted (an engine's own flag, kvp_options_finish). */
#define KVP__FROM_NOTE_OTHER 1u
#define KVP__FROM_MARK_PASTED 2u
/* The engine and the settings of `c` into `o` (policy first). `command` names
 * the running command for the note. On a refused value: kvp_options_set's
 * error as it is (the caller says the value came from the pasted command). */
kvp_status kvp__from_apply(kvp_from_cmd *c, kvp_options *o, const char *command, unsigned flags,
                           kvp__from_applied *out, kvp_error *err);
/* Is `value` (a --policy word) the engine `c` is a command of? */
bool kvp__from_same_engine(const kvp_from_cmd *c, const char *value);
/* Whether two statements of row r (names as typed, values, NULL for a bare
 * flag) say the same: flags of one truth; values equal as text (case aside) or
 * as numbers (2 and 2.0); a byte size written two ways compared by its bytes. */
bool kvp__from_same_statement(const kvp_option *r, const char *name_a, const char *a,
                              const char *name_b, const char *b);
/* The user gives row `r` again (spelled `typed`, `value`) after the command
 * `c` filled rows `filled`: */
typedef enum kvp__from_again {
    KVP__FROM_NOT_FILLED = 0, /* the command did not fill it (or it repeats): go on */
    KVP__FROM_SAME_ENGINE,    /* --policy naming the command's engine: one statement */
    KVP__FROM_SAME_VALUE,     /* the same value said twice (kvp__from_same_statement) */
    KVP__FROM_CONTRADICTS     /* `side` gets the command's side ("--from's -tp 2"), `why` why */
} kvp__from_again;
kvp__from_again kvp__from_given(const kvp_from_cmd *c, const kvp__from_applied *filled,
                                const kvp_option *r, const char *typed, const char *value,
                                char *side, size_t side_size, char *why, size_t why_size);
/* A model path of another machine ("/models/meta-llama/Llama-3.1-8B"): the
 * catalogue entry its last one or two parts name; NULL when none does (or the
 * path is here, or is no path). */
const char *kvp__from_model_elsewhere(const char *path);

#endif
