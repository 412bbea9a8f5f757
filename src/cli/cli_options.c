/* cli_options.c — argv onto the one option table (cli_options.h). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_options.h"
#include "command_help.h"
#include "from_cmd.h"
#include "argv_words.h"
#include "respell.h"
#include "util.h"

/* Whose spellings error messages use (kvp__error_as_typed): a copy, so it never points
 * at a command's options after that command returned (tests run many commands
 * in one process). */
static kvp_options g_copy;
static const kvp_options *g_active;

void kvp_cli_table_use(const kvp_options *o) {
    if (!o) {
        g_active = NULL;
        return;
    }
    if (o != &g_copy) memcpy(&g_copy, o, sizeof g_copy);
    g_active = &g_copy;
}

const kvp_options *kvp_cli_table_active(void) { return g_active; }

const char *kvp_cli_typed_spelling(const char *flag) { return kvp__typed_spelling(g_active, flag); }


_Static_assert(KVP__FLAG_TEXT_MAX == KVP_OPTIONS_TYPED_MAX,
               "respell.h rewrites flags as long as the option table keeps");

const char *kvp_cli_flag_spelling(const void *ctx, const char *flag, char *buf, size_t size) {
    (void)ctx, (void)buf, (void)size;
    return kvp_cli_typed_spelling(flag);
}


int kvp_cli_table_option(kvp_options *o, int argc, char **argv, int *i, bool json) {
    const char *a = argv[*i];
    if (a[0] != '-' || a[1] == '\0') return 0;
    /* --from CMD filled `o` before argv (kvp_cli_from_apply): its words are read. */
    if (kvp_cli_from_word(o, argc, argv, i)) return -1;
    /* The row and its value: the options room's reading (argv_words.c). */
    char name[KVP_OPTIONS_TYPED_MAX];
    const char *v = NULL;
    const kvp_option *r = kvp__argv_row(o->command, argc, argv, i, name, &v);
    if (!r) return 0;
    /* A row the --from command filled: the same --policy, or a contradiction. */
    int frc = kvp_cli_from_given(o, r, name, v, a, json);
    if (frc) return frc;
    kvp_error err;
    kvp_error_clear(&err);
    if (kvp_options_set(o, name, v, &err) != KVP_OK) return kvp_cli_report_error(&err, json);
    kvp_cli_table_use(o);
    /* Messages the planner writes with kvplan's name show the spelling typed too
     * ("-tp (read as --tp): ..."). */
    kvp_cli_note_spelling(r->name, name, strlen(name));
    return -1;
}

int kvp_cli_table_finish(kvp_options *o, bool json) {
    kvp_error err;
    kvp_error_clear(&err);
    kvp_cli_table_use(o);
    if (kvp_options_finish(o, &err) != KVP_OK) return kvp_cli_report_error(&err, json);
    kvp_cli_table_use(o);
    for (uint32_t k = 0; k < o->notes.count; k++) fprintf(stderr, "kvplan: note: %s\n", o->notes.text[k]);
    for (uint32_t k = 0; k < o->warnings.count; k++) kvp_cli_warn("%s", o->warnings.text[k]);
    return -1;
}

/* The names "did you mean" searches for `command`: the table's, then `own`, then
 * `more` (NULL-terminated, either may be NULL). Static. */
static const char *const *known_names(unsigned command, const char *const *own,
                                      const char *const *more) {
    static const char *known[KVP_OPTIONS_MAX * (KVP_OPTION_SPELLINGS_MAX + 1) + 64];
    const size_t cap = sizeof known / sizeof known[0] - 1;
    size_t n = 0;
    const char *const *table = kvp__option_names(command);
    for (size_t k = 0; table[k] && n < cap; k++) known[n++] = table[k];
    for (size_t k = 0; own && own[k] && n < cap; k++) known[n++] = own[k];
    for (size_t k = 0; more && more[k] && n < cap; k++) known[n++] = more[k];
    known[n] = NULL;
    return known;
}

int kvp_cli_table_unknown_in(const char *arg, unsigned command, const char *const *known) {
    /* A table option of other commands: say where it belongs, rather than
     * suggest the nearest spelling of an unrelated one. */
    char name[KVP_OPTIONS_TYPED_MAX], where[96];
    if (kvp__option_elsewhere(arg, command, name, where, sizeof where))
        return kvp_cli_fail("%s is not an option of this command (only %s take it)", name,
                            where);
    return kvp_cli_unknown_option(arg, known);
}

int kvp_cli_table_unknown(const char *arg, unsigned command, const char *const *own,
                          const char *const *more) {
    return kvp_cli_table_unknown_in(arg, command, known_names(command, own, more));
}

int kvp_cli_unknown_json(const char *arg) {
    kvp_error err;
    kvp_error_clear(&err);
    err.code = KVP_INVALID_ARG;
    char bare[128]; /* the name as far as messages have always shown it */
    snprintf(bare, sizeof bare, "%.*s", (int)strcspn(arg, "="), arg);
    snprintf(err.key, sizeof err.key, "%s", bare);
    snprintf(err.message, sizeof err.message, "unknown option '%s' (see --help)", bare);
    return kvp_cli_report_error(&err, true);
}

void kvp_cli_table_usage(FILE *out, unsigned command, unsigned engines) {
    char *rows = kvp__option_rows_help(command, engines);
    if (rows) fputs(rows, out);
    free(rows);
}

int kvp_cli_contradiction(const char *a, const char *b, const char *why, bool json) {
    kvp_error err;
    kvp__contradiction(a, b, why, &err);
    return kvp_cli_report_error(&err, json);
}


int kvp_cli_read_argv(const kvp_cli_argv *c, kvp_options *o, int argc, char **argv) {
    for (int k = 1; c->json && k < argc; k++)
        if (!strcmp(argv[k], "--json")) *c->json = true; /* the first error already as JSON */
    bool json = c->json && *c->json;
    kvp_error err;
    for (int i = 1;; i++) {
        kvp__argv_stop st = kvp__argv_read(&c->argv, argc, argv, &i, &err);
        switch (st) {
        case KVP__ARGV_DONE:
            return -1;
        case KVP__ARGV_HELP:
            fputs(kvp__command_help(c->help), stdout);
            if (c->help_puts) putchar('\n');
            if (c->help_rows) kvp_cli_table_usage(stdout, o->command, KVP_OPTION_ENGINES_ALL);
            fputs(kvp__command_help_tail(c->help), stdout);
            return KVP_EXIT_OK;
        case KVP__ARGV_SECOND:
        case KVP__ARGV_FAIL:
            if (err.key[0] || (st == KVP__ARGV_SECOND && c->argv.second_key))
                return kvp_cli_report_error(&err, json);
            for (char *nl; (nl = strchr(err.message, '\n')) != NULL;) {
                *nl = '\0';
                kvp_cli_fail("%s", err.message);
                memmove(err.message, nl + 1, strlen(nl + 1) + 1);
            }
            return kvp_cli_fail("%s", err.message);
        case KVP__ARGV_REFUSED:
            return kvp_cli_report_error(&err, json && c->refusals_json && err.key[0]);
        case KVP__ARGV_OPTION:
        case KVP__ARGV_LAST:
            break;
        }
        int rc = c->row ? c->row(c->row_ctx, argc, argv, &i)
                 : o    ? kvp_cli_table_option(o, argc, argv, &i, json)
                        : 0;
        if (rc > 0) return rc;
        if (rc < 0) continue;
        const char *names[32];
        size_t n = 0;
        for (const kvp__argv_own *w = c->argv.own; w && w->name && n < 31; w++) names[n++] = w->name;
        names[n] = NULL;
        if (o && c->unknown)
            return c->unknown(argv[i], known_names(o->command, names, c->more), json);
        if (o) return kvp_cli_table_unknown(argv[i], o->command, names, c->more);
        return kvp_cli_unknown_option(argv[i], names);
    }
}
