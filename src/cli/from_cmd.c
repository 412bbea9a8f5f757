/* from_cmd.c — `kvplan plan --from "<engine command>"` (from_cmd.h): the
 * command is read by the options room (src/options/from_parse.c, the same
 * reader kvp_json_call's "from_command" uses); here its settings fill the
 * command's kvp_options before its own argv is read, a setting the command
 * gives and the user gives again is a contradiction (exit 2), and stderr says
 * how the command was read. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_options.h"
#include "from_cmd.h"
#include "util.h"

/* ------------------------------------------------------------ settings */

/* The running command's --from (from_cmd.h: one command runs at a time). The
 * options room applies it and compares the statements (from_apply.c). */
typedef struct from_run {
    bool active;
    int argc;
    char **argv;                    /* the command's own argv (borrowed) */
    int at;                         /* argv index of --from */
    const char *word;               /* argv[at]: a body may read a copy of argv */
    kvp_from_cmd *cmd;              /* owned while the body runs */
    const kvp_options *options;     /* the settings it filled */
    kvp__from_applied filled;       /* the rows it filled, the settings applied */
    const char *user_model;         /* the user's MODEL word, when one was given */
    const char *same_policy;        /* the user's --policy word naming the same engine */
    const char *same[2 * KVP_FROM_MAX_ARGS]; /* the user's words (option, value) that said
                                                what the command said: one statement */
    int same_count;
    bool model_elsewhere;           /* user_model is the catalogue's name of a missing folder */
} from_run;
static from_run g_run;

static bool has_json(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--json") == 0) return true;
    return false;
}

static int from_fail(int argc, char **argv, const char *msg) {
    kvp_error e;
    kvp_error_clear(&e);
    e.code = KVP_INVALID_ARG;
    kvp__strlcpy(e.key, "--from", sizeof e.key);
    kvp__strlcpy(e.message, msg, sizeof e.message);
    return kvp_cli_report_error(&e, has_json(argc, argv));
}

int kvp_cli_from_run(int argc, char **argv, int (*body)(int, char **)) {
    if (g_run.active) return body(argc, argv); /* a body that runs another command */
    int at = -1;
    const char *cmdline = NULL;
    kvp_error e;
    kvp_error_clear(&e);
    if (kvp__from_find(argc, argv, &at, &cmdline, &e) != KVP_OK)
        return kvp_cli_report_error(&e, has_json(argc, argv));
    if (at < 0) return body(argc, argv);
    kvp_from_cmd *c = kvp__malloc(NULL, sizeof *c);
    if (!c) return from_fail(argc, argv, "out of memory");
    char msg[512];
    int rc = kvp_from_parse(cmdline, true, c, msg, sizeof msg);
    if (rc) {
        kvp__free(NULL, c);
        return from_fail(argc, argv, msg);
    }
    g_run = (from_run){.active = true, .argc = argc, .argv = argv, .at = at, .word = argv[at],
                       .cmd = c};
    rc = body(argc, argv);
    /* After the run, so a run refused as bad input keeps its single error line. */
    if (rc != KVP_EXIT_BAD_INPUT) {
        kvp__from_note_in in = {c, g_run.argc, g_run.argv, g_run.at, g_run.user_model,
                                g_run.same_policy, g_run.same, g_run.same_count,
                                g_run.filled.applied, g_run.model_elsewhere};
        char *note = kvp__from_note_text(&in);
        if (note) fputs(note, stderr);
        free(note);
    }
    kvp__free(NULL, c);
    memset(&g_run, 0, sizeof g_run);
    return rc;
}

const char *kvp_cli_from_engine(void) { return g_run.active ? g_run.cmd->engine : NULL; }

int kvp_cli_from_apply(kvp_options *o, bool json) {
    if (!g_run.active) return -1;
    g_run.options = o;
    kvp_error err;
    kvp_error_clear(&err);
    /* No kvp_cli_note_spelling here: "--tp (read as ...)" rewrites the start of
     * a message for the spelling the user typed on kvplan's own command line,
     * and a --tp given there must not read as the command's -tp. */
    if (kvp__from_apply(g_run.cmd, o, g_run.argv[0], KVP__FROM_NOTE_OTHER | KVP__FROM_MARK_PASTED,
                        &g_run.filled, &err) != KVP_OK) {
        /* After "--from: ", so the user knows the value came from the pasted command. */
        kvp_error shown = err;
        snprintf(shown.message, sizeof shown.message, "--from: %s", err.message);
        return kvp_cli_report_error(&shown, json);
    }
    kvp_cli_table_use(o);
    return -1;
}

const char *kvp_cli_from_model(const char *given) {
    if (!g_run.active) return given;
    if (given) g_run.user_model = given;
    if (given) return given;
    const char *m = g_run.cmd->model, *cat = kvp__from_model_elsewhere(m);
    if (cat) {
        kvp_from_note_missing(g_run.cmd, m, "the model folder");
        g_run.user_model = cat; /* planned as if given: said in the note */
        g_run.model_elsewhere = true;
        return cat;
    }
    return m;
}

bool kvp_cli_from_word(const kvp_options *o, int argc, char **argv, int *i) {
    if (!g_run.active || o != g_run.options || argv[*i] != g_run.word) return false;
    if (strcmp(argv[*i], "--from") == 0 && *i + 1 < argc) ++*i;
    return true;
}

int kvp_cli_from_given(const kvp_options *o, const kvp_option *r, const char *typed,
                       const char *value, const char *word, bool json) {
    if (!g_run.active || o != g_run.options) return 0;
    char side[160], why[200];
    switch (kvp__from_given(g_run.cmd, &g_run.filled, r, typed, value, side, sizeof side, why,
                            sizeof why)) {
    case KVP__FROM_NOT_FILLED:
        return 0;
    case KVP__FROM_SAME_ENGINE: /* said once, noted */
        g_run.same_policy = word;
        return -1;
    case KVP__FROM_SAME_VALUE:
        if (g_run.same_count + 2 <= (int)(sizeof g_run.same / sizeof g_run.same[0])) {
            g_run.same[g_run.same_count++] = word;
            g_run.same[g_run.same_count++] = value;
        }
        return -1;
    default:
        return kvp_cli_contradiction(side, typed, why, json);
    }
}
