/* from_cmd.c — `kvplan plan --from "<engine command>"` (from_cmd.h): the
 * command is read by the options room (src/options/from_parse.c, the same
 * reader kvp_json_call's "from_command" uses); here its settings fill the
 * command's kvp_options before its own argv is read, a setting the command
 * gives and the user gives again is a contradiction (exit 2), and stderr says
 * how the command was read. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_options.h"
#include "from_cmd.h"
#include "kvplan/model.h"
#include "kvplan/units.h"
#include "util.h"

/* ------------------------------------------------------------ settings */

/* The running command's --from (from_cmd.h: one command runs at a time). */
#define ROW_POLICY 255 /* row[] mark of --policy: no setting index (KVP_FROM_MAX_ARGS < 255) */
typedef struct from_run {
    bool active;
    int argc;
    char **argv;                    /* the command's own argv (borrowed) */
    int at;                         /* argv index of --from */
    const char *word;               /* argv[at]: a body may read a copy of argv */
    kvp_from_cmd *cmd;              /* owned while the body runs */
    const kvp_options *options;     /* the settings it filled */
    unsigned char row[KVP_OPTIONS_MAX]; /* 1 + the index of the setting that filled a row */
    bool applied[KVP_FROM_MAX_ARGS];/* set into the options (not ignored) */
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
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        if (strcmp(argv[i], "--from") == 0) {
            if (i + 1 >= argc)
                return from_fail(argc, argv, "--from needs a value: the engine command, quoted");
            v = argv[i + 1];
        } else if (strncmp(argv[i], "--from=", 7) == 0) {
            v = argv[i] + 7;
        } else {
            continue;
        }
        if (at >= 0) return from_fail(argc, argv, "--from given twice");
        at = i;
        cmdline = v;
        if (strcmp(argv[i], "--from") == 0) i++;
    }
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
                                g_run.same_policy, g_run.same, g_run.same_count, g_run.applied,
                                g_run.model_elsewhere};
        char *note = kvp__from_note_text(&in);
        if (note) fputs(note, stderr);
        free(note);
    }
    kvp__free(NULL, c);
    memset(&g_run, 0, sizeof g_run);
    return rc;
}

const char *kvp_cli_from_engine(void) { return g_run.active ? g_run.cmd->engine : NULL; }

/* A setting kvp_options_set refused: its message after "--from: ", so the user
 * knows the value came from the pasted command. */
static int apply_fail(const kvp_error *e, bool json) {
    kvp_error err = *e;
    snprintf(err.message, sizeof err.message, "--from: %s", e->message);
    return kvp_cli_report_error(&err, json);
}

int kvp_cli_from_apply(kvp_options *o, bool json) {
    if (!g_run.active) return -1;
    kvp_from_cmd *c = g_run.cmd;
    g_run.options = o;
    memset(g_run.row, 0, sizeof g_run.row);
    memset(g_run.applied, 0, sizeof g_run.applied);
    kvp_error err;
    kvp_error_clear(&err);
    const kvp_option *policy = kvp_option_lookup("--policy", NULL);
    if (kvp_options_set(o, policy->name, c->engine, &err) != KVP_OK) return apply_fail(&err, json);
    g_run.row[policy->id] = ROW_POLICY;
    for (int k = 0; k < c->count; k++) {
        const kvp_from_setting *s = &c->set[k];
        const kvp_option *r = kvp_option_lookup(s->name, NULL);
        if (!r || !(r->commands & o->command)) {
            /* A setting of the creator (plan) that this command does not take. */
            char what[200];
            snprintf(what, sizeof what, "%s%s%.120s (%s does not read it)", s->name,
                     s->value ? " " : "", s->value ? s->value : "", g_run.argv[0]);
            kvp_from_ignore(c, what, NULL);
            continue;
        }
        kvp_error_clear(&err);
        if (kvp_options_set(o, s->name, s->value, &err) != KVP_OK) return apply_fail(&err, json);
        g_run.applied[k] = true;
        o->pasted[r->id] = 1; /* the engine's own flag (kvp_options_finish) */
        /* No kvp_cli_note_spelling here: "--tp (read as ...)" rewrites the start of
         * a message for the spelling the user typed on kvplan's own command line,
         * and a --tp given there must not read as the command's -tp. */
        if (!g_run.row[r->id]) g_run.row[r->id] = (unsigned char)(k + 1);
    }
    kvp_cli_table_use(o);
    return -1;
}

/* A model path of another machine ("/models/meta-llama/Llama-3.1-8B"): the
 * catalogue entry its last one or two parts name, warned; NULL when none does. */
static const char *model_elsewhere(const char *path) {
    static char name[256];
    if (!(path[0] == '/' || path[0] == '~' || !strncmp(path, "./", 2) || !strncmp(path, "../", 3)))
        return NULL;
    if (access(path, F_OK) == 0 || errno != ENOENT) return NULL;
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') n--;
    size_t last = n;
    while (last > 0 && path[last - 1] != '/') last--;
    size_t org = last > 1 ? last - 1 : 0;
    while (org > 0 && path[org - 1] != '/') org--;
    const char *cand[2] = {path + org, path + last};
    size_t len[2] = {n - org, n - last};
    for (int k = 0; k < 2; k++) {
        if (!len[k] || len[k] >= sizeof name) continue;
        memcpy(name, cand[k], len[k]);
        name[len[k]] = '\0';
        for (size_t i = 0; i < kvp_catalog_count(); i++)
            if (!kvp__strcasecmp(name, kvp_catalog_name(i)) ||
                !kvp__strcasecmp(name, kvp_catalog_hf_id(i)))
                return kvp_catalog_name(i);
    }
    return NULL;
}

const char *kvp_cli_from_model(const char *given) {
    if (!g_run.active) return given;
    if (given) g_run.user_model = given;
    if (given) return given;
    const char *m = g_run.cmd->model, *cat = model_elsewhere(m);
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

/* A flag's truth as written: no value or a true word is on; a negating
 * spelling (--no-enable-prefix-caching) turns it round. -1: not a bool word. */
static int flag_truth(const kvp_option *r, const char *name, const char *value) {
    int b = 1;
    if (value) {
        if (!kvp__strcasecmp(value, "true") || !strcmp(value, "1") || !kvp__strcasecmp(value, "on") ||
            !kvp__strcasecmp(value, "yes"))
            b = 1;
        else if (kvp_from_is_false(value))
            b = 0;
        else
            return -1;
    }
    size_t sp = 0;
    if (kvp_option_lookup(name, &sp) == r && sp && r->spellings[sp - 1].negate) b = !b;
    return b;
}

/* Whether two statements of row r say the same: flags of one truth; values
 * equal as text (case aside, for choices and names) or as numbers (2 and 2.0,
 * 0.9 and 0.90). A byte size written two ways ("80GiB", "85899345920") is
 * compared by its bytes. */
static bool same_statement(const kvp_option *r, const char *name_a, const char *a,
                           const char *name_b, const char *b) {
    if (r->type == KVP_OPTION_FLAG) {
        int x = flag_truth(r, name_a, a), y = flag_truth(r, name_b, b);
        return x >= 0 && x == y;
    }
    if (!a || !b) return false;
    if (!kvp__strcasecmp(a, b)) return true;
    if (r->type == KVP_OPTION_BYTES) {
        uint64_t x, y;
        kvp_error e;
        return kvp_parse_bytes(a, &x, &e) == KVP_OK && kvp_parse_bytes(b, &y, &e) == KVP_OK &&
               x == y;
    }
    char *ea = NULL, *eb = NULL;
    double x = strtod(a, &ea), y = strtod(b, &eb);
    return ea != a && eb != b && !*ea && !*eb && x == y;
}

int kvp_cli_from_given(const kvp_options *o, const kvp_option *r, const char *typed,
                       const char *value, const char *word, bool json) {
    if (!g_run.active || o != g_run.options || !g_run.row[r->id] || r->repeats) return 0;
    const kvp_from_cmd *c = g_run.cmd;
    if (g_run.row[r->id] == ROW_POLICY) {
        /* --policy naming the command's engine is the same statement: said once. */
        kvp_engine pe, ce;
        if (value && kvp_engine_parse(value, &pe) == KVP_OK &&
            kvp_engine_parse(c->engine, &ce) == KVP_OK && pe == ce) {
            g_run.same_policy = word;
            return -1;
        }
        char why[160];
        snprintf(why, sizeof why, "the --from command is a %s command; give one", c->engine);
        return kvp_cli_contradiction("--from", typed, why, json);
    }
    /* The command's side as it was pasted ("--from's -tp 2"). */
    const kvp_from_setting *s = &c->set[g_run.row[r->id] - 1];
    /* The same value said twice (the flag and the pasted command, or its
     * environment: CUDA_VISIBLE_DEVICES=0,1 and --gpus 2) is one statement. */
    if (same_statement(r, s->name, s->value, typed, value)) {
        if (g_run.same_count + 2 <= (int)(sizeof g_run.same / sizeof g_run.same[0])) {
            g_run.same[g_run.same_count++] = word;
            g_run.same[g_run.same_count++] = value;
        }
        return -1;
    }
    char side[160], why[200];
    snprintf(side, sizeof side, "--from's %s%s%s", s->name, s->value ? " " : "",
             s->value ? s->value : "");
    snprintf(why, sizeof why, "both set %s; give one", r->field);
    return kvp_cli_contradiction(side, typed, why, json);
}
