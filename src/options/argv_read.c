/* argv_read.c — one reader of a command's argv (argv_read.h). */
#include <stdio.h>
#include <string.h>

#include "argv_read.h"
#include "kvplan/units.h"
#include "util.h"

/* err cleared as a refusal of the command line, keyed by `key` (NULL: none). */
static kvp_error *refusal(kvp_error *err, const char *key) {
    kvp_error_clear(err);
    err->code = KVP_INVALID_ARG;
    if (key) kvp__strlcpy(err->key, key, sizeof err->key);
    return err;
}

/* "--name V" or "--name=V": *v, *i past a separate value. False when argv[*i]
 * is not `name`; *missing when the value is not there. */
static bool value_of(int argc, char **argv, int *i, const char *name, const char **v,
                     bool *missing) {
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0 || (a[n] != '=' && a[n] != '\0')) return false;
    if (a[n] == '=') {
        *v = a + n + 1;
    } else if (*i + 1 >= argc) {
        *missing = true;
    } else {
        *v = argv[++*i];
    }
    return true;
}

/* Whether a separate value reads as an option ("plan M --svg --json", "fit M
 * --svg --explain"): the value was left out, and taking the word as a path
 * would write a file named "--json". Any "--" and a letter: no path, GPU or
 * spec kvplan takes starts so. The joined form "--svg=--json" is written on
 * purpose and stays a value. */
static bool reads_as_option(const char *v) {
    return v[0] == '-' && v[1] == '-' &&
           ((v[2] >= 'a' && v[2] <= 'z') || (v[2] >= 'A' && v[2] <= 'Z'));
}

/* One own word: KVP__ARGV_DONE when applied, KVP__ARGV_OPTION when argv[*i]
 * is none of them, else the stop it makes. */
static kvp__argv_stop own_word(const kvp__argv_own *o, int argc, char **argv, int *i,
                               kvp_error *err) {
    const char *a = argv[*i];
    for (; o && o->name; o++) {
        if (o->kind == KVP__OWN_NAME) continue;
        if (o->kind == KVP__OWN_HELP || o->kind == KVP__OWN_FLAG || o->kind == KVP__OWN_LAST) {
            if (strcmp(a, o->name) != 0) continue;
            if (o->kind == KVP__OWN_HELP) return KVP__ARGV_HELP;
            *(bool *)o->out = true;
            return o->kind == KVP__OWN_LAST ? KVP__ARGV_LAST : KVP__ARGV_DONE;
        }
        const char *v = NULL;
        bool missing = false;
        if (!value_of(argc, argv, i, o->name, &v, &missing)) continue;
        if (missing) {
            snprintf(refusal(err, NULL)->message, sizeof err->message, "%s needs a value", o->name);
            /* A count goes on to read the missing value: kvp_parse_count's words
             * for none follow, as a second line (`why --target-context`). */
            uint64_t none;
            kvp_error pe;
            size_t at = strlen(err->message);
            if (o->kind == KVP__OWN_COUNT && kvp_parse_count(NULL, &none, &pe) != KVP_OK)
                snprintf(err->message + at, sizeof err->message - at, "\n%s: %s", o->name,
                         pe.message);
            return KVP__ARGV_FAIL;
        }
        if (o->kind == KVP__OWN_CALL)
            return o->call(o->out, v, err) == KVP_OK ? KVP__ARGV_DONE : KVP__ARGV_REFUSED;
        if (o->kind == KVP__OWN_TEXT) {
            if (v == argv[*i] && reads_as_option(v)) {
                snprintf(refusal(err, NULL)->message, sizeof err->message,
                         "%s needs a value (found '%.100s', an option; write %s=%.100s for a "
                         "value that starts with --)",
                         o->name, v, o->name, v);
                return KVP__ARGV_FAIL;
            }
            *(const char **)o->out = v;
            return KVP__ARGV_DONE;
        }
        /* kvp_parse_count's words, or the range (the words the CLI has always used). */
        uint64_t n = 0;
        kvp_error pe;
        kvp_status ps = kvp_parse_count(v, &n, &pe);
        if (o->kind == KVP__OWN_COUNT) /* what it read, even when it is no count */
            *(kvp__argv_count *)o->out = (kvp__argv_count){n, ps == KVP_OK};
        if (ps != KVP_OK) {
            snprintf(refusal(err, NULL)->message, sizeof err->message, "%s: %s", o->name,
                     pe.message);
            return KVP__ARGV_FAIL;
        }
        if (o->kind == KVP__OWN_COUNT) return KVP__ARGV_DONE;
        if (n < o->min || n > o->max) {
            snprintf(refusal(err, NULL)->message, sizeof err->message, "%s: %s is out of range, expected %u to %u",
                     o->name, v, o->min, o->max);
            return KVP__ARGV_FAIL;
        }
        *(uint32_t *)o->out = (uint32_t)n;
        return KVP__ARGV_DONE;
    }
    return KVP__ARGV_OPTION;
}

kvp__argv_stop kvp__argv_read(const kvp__argv_spec *s, int argc, char **argv, int *i,
                              kvp_error *err) {
    for (; *i < argc; ++*i) {
        const char *a = argv[*i];
        if (!strcmp(a, "-h")) return KVP__ARGV_HELP;
        kvp__argv_stop st = own_word(s->own, argc, argv, i, err);
        if (st == KVP__ARGV_LAST) return KVP__ARGV_DONE;
        if (st != KVP__ARGV_DONE && st != KVP__ARGV_OPTION) return st;
        if (st == KVP__ARGV_DONE) continue;
        if ((a[0] == '-' && a[1] != '\0') || !s->positional) return KVP__ARGV_OPTION;
        if (!*s->positional) {
            *s->positional = a;
            continue;
        }
        bool after = s->second_after;
        snprintf(refusal(err, s->second_key)->message, sizeof err->message, "%s'%s'%s%s%s%s",
                 s->second, a, after ? " after '" : "", after ? *s->positional : "",
                 after ? "'" : "", s->second_tail ? s->second_tail : "");
        return KVP__ARGV_SECOND;
    }
    return KVP__ARGV_DONE;
}
