/* argv_words.c — argv words onto the one option table (argv_words.h). */
#include <stdio.h>
#include <string.h>

#include "options_struct.h" /* kvp_options' fields */
#include "argv_words.h"
#include "util.h"

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

/* The table row of a typed option ("--name=value": the name before '='; a
 * single-dash word whole), its name in `name`; NULL when it is no row. */
static const kvp_option *typed_row(const char *a, char name[KVP_OPTIONS_TYPED_MAX], size_t *sp) {
    if (a[0] != '-' || a[1] == '\0') return NULL;
    size_t n = a[1] == '-' ? strcspn(a, "=") : strlen(a);
    if (n >= KVP_OPTIONS_TYPED_MAX) return NULL;
    memcpy(name, a, n);
    name[n] = '\0';
    return kvp_option_lookup(name, sp);
}

const kvp_option *kvp__argv_row(unsigned command, int argc, char **argv, int *i,
                                char name[KVP_OPTIONS_TYPED_MAX], const char **value) {
    const char *a = argv[*i];
    const kvp_option *r = typed_row(a, name, NULL);
    if (!r || !(r->commands & command)) return NULL;
    const char *eq = a[1] == '-' ? strchr(a, '=') : NULL;
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
    *value = v;
    return r;
}

const char *const *kvp__option_names(unsigned command) {
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

bool kvp__option_elsewhere(const char *arg, unsigned command, char name[KVP_OPTIONS_TYPED_MAX],
                           char *where, size_t where_size) {
    const kvp_option *r = typed_row(arg, name, NULL);
    if (!r || (r->commands & command)) return false;
    static const struct {
        unsigned bit;
        const char *name;
    } k_cmds[] = {{KVP_COMMAND_PLAN, "plan"},       {KVP_COMMAND_FIT, "fit"},
                  {KVP_COMMAND_SWEEP, "sweep"},     {KVP_COMMAND_COMPARE, "compare"},
                  {KVP_COMMAND_SIM, "sim"},         {KVP_COMMAND_CHECK, "check"},
                  {KVP_COMMAND_COST, "cost"}};
    size_t w = 0;
    where[0] = '\0';
    for (size_t k = 0; k < sizeof k_cmds / sizeof k_cmds[0] && w < where_size; k++)
        if (r->commands & k_cmds[k].bit)
            w += (size_t)snprintf(where + w, where_size - w, "%s%s", w ? ", " : "", k_cmds[k].name);
    return true;
}

kvp_status kvp__contradiction(const char *a, const char *b, const char *why, kvp_error *err) {
    return kvp__refuse(err, b, "%s contradicts %s: %s", b, a, why);
}

kvp_status kvp__argv_implied_engine(int argc, char **argv, unsigned command, int *engine, char *by,
                                    size_t by_size, kvp_error *err) {
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
            return kvp__contradiction(by, name, why, err);
        }
    }
    return KVP_OK;
}

bool kvp__argv_repeated(int argc, char **argv, char *name, size_t name_size) {
    static const char *const repeatable[] = {"--over", "--decl", "--engine-version", NULL};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--", 2) != 0 || a[2] == '\0') continue;
        if (strcmp(a, "--from") == 0) {
            i++; /* the engine command is one argument, whatever it holds */
            continue;
        }
        size_t n = strcspn(a, "=");
        bool ok = false;
        for (size_t r = 0; repeatable[r]; r++)
            if (strlen(repeatable[r]) == n && strncmp(a, repeatable[r], n) == 0) ok = true;
        if (ok) continue;
        for (int j = i + 1; j < argc; j++) {
            if (strcmp(argv[j - 1], "--from") == 0) continue;
            if (strncmp(argv[j], a, n) == 0 && (argv[j][n] == '\0' || argv[j][n] == '=')) {
                snprintf(name, name_size, "%.*s", (int)n, a);
                return true;
            }
        }
    }
    return false;
}

const char *kvp__typed_flag(const kvp_options *typed, const char *field) {
    const kvp_option *r = kvp_option_for_field(field);
    if (!r) return NULL;
    if (typed && typed->given[r->id]) return typed->typed[r->id];
    return r->name;
}

const char *kvp__typed_spelling(const kvp_options *typed, const char *flag) {
    const kvp_option *r = kvp_option_lookup(flag, NULL);
    if (!r || !typed || !typed->given[r->id]) return NULL;
    return typed->typed[r->id];
}

const char *kvp__field_flag(const kvp_options *typed, const char *field) {
    /* Library errors name the settings field (deploy.h, policy.h, the option
     * table's `field`); the user typed a flag: the spelling typed, else the table's
     * name. Fields no row sets map to the row that feeds them (the policy's
     * max_model_len is the table's max_seq_len, its n_seq_max the slots of
     * --parallel), or to the option of a command (--local, --decl). */
    static const struct {
        const char *field, *row, *flag;
    } k_map[] = {
        {"total_bytes", "gpu", NULL},
        {"max_model_len", "max_seq_len", NULL},
        {"n_seq_max", "sequences", NULL},
        {"ep", "enable_expert_parallel", NULL},
        {"local_graph_bytes", NULL, "--local"},
        {"synthetic", NULL, "--synthetic"},
        {"device", NULL, "--device"},
        {"svg", NULL, "--svg"},
        {"decl", NULL, "--decl"},
    };
    if (!field) return NULL;
    /* "ep" is fed by --ep-size (TensorRT-LLM, SGLang) or --enable-expert-parallel
     * (vLLM): the one typed (issue 29: an error naming an option not given). */
    if (!strcmp(field, "ep") && kvp__typed_spelling(typed, "--ep-size"))
        return kvp__typed_spelling(typed, "--ep-size");
    const kvp_option *r = kvp_option_for_field(field);
    if (r && kvp__typed_flag(typed, field) != r->name) return kvp__typed_flag(typed, field);
    for (size_t i = 0; i < sizeof k_map / sizeof k_map[0]; i++)
        if (!strcmp(field, k_map[i].field)) {
            const char *t = k_map[i].row ? kvp__typed_flag(typed, k_map[i].row) : NULL;
            return t ? t : k_map[i].flag;
        }
    return r ? r->name : field;
}

kvp_status kvp__engine_list_add(const char *name, const char *what, const char *key,
                                kvp_engine *engines, size_t *n, kvp_error *err) {
    kvp_engine en;
    if (kvp_engine_parse(name, &en) != KVP_OK)
        return kvp__refuse(err, key, "%s: unknown engine '%s' (expected trtllm, vllm, sglang, llamacpp)",
                      what, name);
    for (size_t k = 0; k < *n; k++)
        if (engines[k] == en) return KVP_OK;
    if (*n < KVP_ENGINE_COUNT) engines[(*n)++] = en;
    return KVP_OK;
}

kvp_status kvp__engine_list(const char *text, const char *what, const char *key,
                            kvp_engine *engines, size_t *n, kvp_error *err) {
    /* An empty list or item (",", "vllm,", "a,,b") names no engine: refused, not
     * read as the default four (issue 29). */
    size_t vn = strlen(text);
    if (vn == 0 || text[0] == ',' || text[vn - 1] == ',' || strstr(text, ",,"))
        return kvp__refuse(err, key, "%s: '%s' %s (expected a list such as vllm,sglang)", what, text,
                      vn == 0 ? "names no engine" : "holds an empty item");
    char list[256];
    if (vn >= sizeof list)
        return kvp__refuse(err, key, "%s: the list is longer than %zu bytes", what, sizeof list - 1);
    kvp__strlcpy(list, text, sizeof list);
    *n = 0;
    char *save = NULL;
    kvp_status st = KVP_OK;
    for (char *it = strtok_r(list, ",", &save); it && st == KVP_OK; it = strtok_r(NULL, ",", &save))
        st = kvp__engine_list_add(it, what, key, engines, n, err);
    return st;
}

void kvp__error_as_typed(const kvp_options *typed, const kvp_error *in, kvp_error *out) {
    kvp_error e = *in;
    const char *flag = kvp__field_flag(typed, in->key);
    if (flag && strcmp(flag, in->key) != 0) {
        size_t k = strlen(in->key);
        if (!strncmp(in->message, in->key, k) && in->message[k] == ':') {
            snprintf(e.message, sizeof e.message, "%s%s", flag, in->message + k);
        } else {
            /* "MODEL: field: ...": the field after the file's name too, when the
             * user typed the option (a missing one keeps the field's name). */
            char pat[KVP_ERROR_KEY_MAX + 4];
            snprintf(pat, sizeof pat, ": %s: ", in->key);
            const char *at = kvp__typed_spelling(typed, flag) ? strstr(in->message, pat) : NULL;
            if (at)
                snprintf(e.message, sizeof e.message, "%.*s: %s%s", (int)(at - in->message),
                         in->message, flag, at + 2 + k);
        }
        kvp__strlcpy(e.key, flag, sizeof e.key);
    }
    *out = e;
}

kvp_status kvp__plan_uses_creator(int argc, char **argv, const char *from_engine, bool *creator,
                                  kvp_error *err) {
    const char *policy = from_engine;
    for (int i = 1; !policy && i < argc; i++) {
        if (strcmp(argv[i], "--policy") == 0 && i + 1 < argc) policy = argv[i + 1];
        else if (strncmp(argv[i], "--policy=", 9) == 0) policy = argv[i] + 9;
    }
    *creator = true;
    if (policy) {
        /* Every spelling of TensorRT-LLM is the creator (there is no second model
         * of it); any other word is the policies' to read (or refuse). */
        kvp_engine engine;
        *creator = kvp_engine_parse(policy, &engine) == KVP_OK ? engine == KVP_ENGINE_TRTLLM
                                                               : !strcmp(policy, "trtllm");
        return KVP_OK;
    }
    /* No --policy: an engine's own flags (--max-model-len, -c, --context-length)
     * choose that engine; not TensorRT-LLM, the default, is the policies'. */
    int implied = -1;
    char by[KVP_OPTIONS_TYPED_MAX];
    kvp_status st = kvp__argv_implied_engine(argc, argv, KVP_COMMAND_PLAN, &implied, by, sizeof by, err);
    *creator = implied <= 0;
    return st;
}

kvp_status kvp__take_gpu_catalog(int *argc, char **argv, const char **path, kvp_error *err) {
    *path = NULL;
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (!strcmp(a, "--")) {
            while (i < *argc) argv[out++] = argv[i++];
            break;
        }
        if (!strcmp(a, "--gpu-catalog")) {
            if (i + 1 >= *argc) return kvp__refuse(err, NULL, "--gpu-catalog needs a value");
            v = argv[++i];
        } else if (!strncmp(a, "--gpu-catalog=", 14)) {
            v = a + 14;
        } else {
            argv[out++] = argv[i];
            continue;
        }
        if (*path) return kvp__refuse(err, NULL, "--gpu-catalog is given twice");
        if (!*v) return kvp__refuse(err, NULL, "--gpu-catalog: expected a file name");
        *path = v;
    }
    *argc = out;
    argv[out] = NULL;
    return KVP_OK;
}
