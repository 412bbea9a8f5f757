/* cli_options.c — argv onto the one option table (cli_options.h). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_options.h"
#include "command_help.h"
#include "from_cmd.h"
#include "respell.h"
#include "util.h"

/* Whose spellings kvp_cli_field_flag answers with: a copy, so it never points
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

const char *kvp_cli_typed_flag(const char *field) {
    const kvp_option *r = kvp_option_for_field(field);
    if (!r) return NULL;
    if (g_active && g_active->given[r->id]) return g_active->typed[r->id];
    return r->name;
}

const char *kvp_cli_typed_spelling(const char *flag) {
    const kvp_option *r = kvp_option_lookup(flag, NULL);
    if (!r || !g_active || !g_active->given[r->id]) return NULL;
    return g_active->typed[r->id];
}

_Static_assert(KVP__FLAG_TEXT_MAX == KVP_OPTIONS_TYPED_MAX,
               "respell.h rewrites flags as long as the option table keeps");

const char *kvp_cli_flag_spelling(const void *ctx, const char *flag, char *buf, size_t size) {
    (void)ctx, (void)buf, (void)size;
    return kvp_cli_typed_spelling(flag);
}

/* The one flag rewriter (src/report/json_check.c), with the CLI's typed spellings. */
void kvp_cli_user_flags(const char *text, char *out, size_t size) {
    kvp__respell_flags(text, kvp_cli_flag_spelling, NULL, out, size);
}

static bool is_bool_word(const char *v) {
    return !kvp__strcasecmp(v, "true") || !kvp__strcasecmp(v, "false");
}

/* Is `v` one of a CHOICE row's words? */
static bool is_choice(const kvp_option *r, const char *v) {
    size_t vl = strlen(v);
    for (const char *p = r->choices; p && *p;) {
        size_t n = strcspn(p, "|");
        if (n == vl && !strncmp(p, v, n)) return true;
        p += n;
        if (*p == '|') p++;
    }
    return false;
}

int kvp_cli_table_option(kvp_options *o, int argc, char **argv, int *i, bool json) {
    const char *a = argv[*i];
    if (a[0] != '-' || a[1] == '\0') return 0;
    /* --from CMD filled `o` before argv (kvp_cli_from_apply): its words are read. */
    if (kvp_cli_from_word(o, argc, argv, i)) return -1;
    char name[KVP_OPTIONS_TYPED_MAX];
    const char *eq = a[1] == '-' ? strchr(a, '=') : NULL;
    size_t n = eq ? (size_t)(eq - a) : strlen(a);
    if (n >= sizeof name) return 0;
    memcpy(name, a, n);
    name[n] = '\0';
    const kvp_option *r = kvp_option_lookup(name, NULL);
    if (!r || !(r->commands & o->command)) return 0;
    const char *v = eq ? eq + 1 : NULL;
    if (!v) {
        const char *next = *i + 1 < argc ? argv[*i + 1] : NULL;
        if (r->type == KVP_OPTION_FLAG) {
            if (next && is_bool_word(next)) v = argv[++*i];
        } else if (r->value_optional) {
            if (next && (is_choice(r, next) || is_bool_word(next))) v = argv[++*i];
        } else if (next) {
            v = argv[++*i];
        }
    }
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

const char *const *kvp_cli_table_names(unsigned command) {
    static const char *names[KVP_OPTIONS_MAX * (KVP_OPTION_SPELLINGS_MAX + 1) + 1];
    size_t n = 0;
    for (size_t i = 0; i < kvp_option_count(); i++) {
        const kvp_option *r = kvp_option_at(i);
        if (!(r->commands & command)) continue;
        names[n++] = r->name;
        for (size_t k = 0; k < KVP_OPTION_SPELLINGS_MAX && r->spellings[k].name; k++)
            names[n++] = r->spellings[k].name;
    }
    names[n] = NULL;
    return names;
}

/* The table row of a typed option ("--name=value": the name before '='; a
 * single-dash word whole), its name in `name`; NULL when it is no row. */
static const kvp_option *typed_row(const char *a, char name[KVP_OPTIONS_TYPED_MAX], size_t *sp) {
    size_t n = a[1] == '-' ? strcspn(a, "=") : strlen(a);
    if (a[0] != '-' || a[1] == '\0' || n >= KVP_OPTIONS_TYPED_MAX) return NULL;
    memcpy(name, a, n);
    name[n] = '\0';
    return kvp_option_lookup(name, sp);
}

int kvp_cli_table_unknown(const char *arg, unsigned command, const char *const *own,
                          const char *const *more) {
    /* A table option of other commands: say where it belongs, rather than
     * suggest the nearest spelling of an unrelated one. */
    char name[KVP_OPTIONS_TYPED_MAX];
    const kvp_option *r = typed_row(arg, name, NULL);
    if (r && !(r->commands & command)) {
        static const struct {
            unsigned bit;
            const char *name;
        } k_cmds[] = {{KVP_COMMAND_PLAN, "plan"},       {KVP_COMMAND_FIT, "fit"},
                      {KVP_COMMAND_SWEEP, "sweep"},     {KVP_COMMAND_COMPARE, "compare"},
                      {KVP_COMMAND_SIM, "sim"},         {KVP_COMMAND_CHECK, "check"},
                      {KVP_COMMAND_COST, "cost"}};
        char where[96] = "";
        size_t w = 0;
        for (size_t k = 0; k < sizeof k_cmds / sizeof k_cmds[0] && w < sizeof where; k++)
            if (r->commands & k_cmds[k].bit)
                w += (size_t)snprintf(where + w, sizeof where - w, "%s%s", w ? ", " : "",
                                      k_cmds[k].name);
        return kvp_cli_fail("%s is not an option of this command (only %s take it)", name,
                            where);
    }
    static const char *known[KVP_OPTIONS_MAX * (KVP_OPTION_SPELLINGS_MAX + 1) + 64];
    const size_t cap = sizeof known / sizeof known[0] - 1;
    size_t n = 0;
    const char *const *table = kvp_cli_table_names(command);
    for (size_t k = 0; table[k] && n < cap; k++) known[n++] = table[k];
    for (size_t k = 0; own && own[k] && n < cap; k++) known[n++] = own[k];
    for (size_t k = 0; more && more[k] && n < cap; k++) known[n++] = more[k];
    known[n] = NULL;
    return kvp_cli_unknown_option(arg, known);
}

void kvp_cli_table_usage(FILE *out, unsigned command, unsigned engines) {
    char *rows = kvp__option_rows_help(command, engines);
    if (rows) fputs(rows, out);
    free(rows);
}

int kvp_cli_contradiction(const char *a, const char *b, const char *why, bool json) {
    kvp_error err;
    kvp_error_clear(&err);
    err.code = KVP_INVALID_ARG;
    kvp__strlcpy(err.key, b, sizeof err.key);
    snprintf(err.message, sizeof err.message, "%s contradicts %s: %s", b, a, why);
    return kvp_cli_report_error(&err, json);
}

int kvp_cli_implied_engine(int argc, char **argv, unsigned command, int *engine, char *by,
                           size_t by_size, bool json) {
    *engine = -1;
    for (int i = 1; i < argc; i++) {
        char name[KVP_OPTIONS_TYPED_MAX];
        size_t sp = 0;
        const kvp_option *r = typed_row(argv[i], name, &sp);
        if (!r || !(r->commands & command)) continue;
        /* The rule of kvp_options_finish: an engine's own spelling, or a row only
         * one engine reads. */
        unsigned eng = sp ? r->spellings[sp - 1].engines : 0;
        if (!eng && r->engines != KVP_OPTION_ENGINES_ALL) eng = r->engines;
        if (!eng || (eng & (eng - 1)) != 0) continue;
        int e = 0;
        while (e < KVP_ENGINE_COUNT && eng != KVP_OPTION_ENGINE(e)) e++;
        if (*engine < 0) {
            *engine = e;
            snprintf(by, by_size, "%s", name);
        } else if (e != *engine) {
            char why[200];
            snprintf(why, sizeof why, "%s is %s's flag and %s is %s's: give --policy to say which engine",
                     by, kvp_engine_name((kvp_engine)*engine), name, kvp_engine_name((kvp_engine)e));
            return kvp_cli_contradiction(by, name, why, json);
        }
    }
    return -1;
}
