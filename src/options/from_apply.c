/* from_apply.c — a parsed engine command (from_parse.c) applied to the option
 * table's settings (from_parse.h): where --from sits in argv, the engine and
 * settings set through kvp_options_set under the engine's own spellings, and
 * the comparisons that tell a user's flag saying the same from one that
 * contradicts the command. One place for `kvplan COMMAND --from CMD`
 * (src/cli/from_cmd.c) and kvp_json_call's "from_command" (src/bind). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "options_struct.h" /* kvp_options' fields */
#include "from_parse.h"
#include "kvplan/model.h"
#include "kvplan/units.h"
#include "util.h"

kvp_status kvp__from_find(int argc, char *const *argv, int *at, const char **cmdline,
                          kvp_error *err) {
    *at = -1;
    *cmdline = NULL;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        if (strcmp(argv[i], "--from") == 0) {
            if (i + 1 >= argc)
                return kvp__refuse(err, "--from", "--from needs a value: the engine command, quoted");
            v = argv[i + 1];
        } else if (strncmp(argv[i], "--from=", 7) == 0) {
            v = argv[i] + 7;
        } else {
            continue;
        }
        if (*at >= 0) return kvp__refuse(err, "--from", "--from given twice");
        *at = i;
        *cmdline = v;
        if (strcmp(argv[i], "--from") == 0) i++;
    }
    return KVP_OK;
}

kvp_status kvp__from_apply(kvp_from_cmd *c, kvp_options *o, const char *command, unsigned flags,
                           kvp__from_applied *out, kvp_error *err) {
    memset(out, 0, sizeof *out);
    const kvp_option *policy = kvp_option_lookup("--policy", NULL);
    kvp_status st = kvp_options_set(o, policy->name, c->engine, err);
    if (st != KVP_OK) return st;
    out->row[policy->id] = KVP__FROM_ROW_POLICY;
    for (int k = 0; k < c->count; k++) {
        const kvp_from_setting *s = &c->set[k];
        const kvp_option *r = kvp_option_lookup(s->name, NULL);
        if (!r || !(r->commands & o->command)) {
            /* A setting of the creator (plan) that this command does not take. */
            if (flags & KVP__FROM_NOTE_OTHER) {
                char what[200];
                snprintf(what, sizeof what, "%s%s%.120s (%s does not read it)", s->name,
                         s->value ? " " : "", s->value ? s->value : "", command);
                kvp_from_ignore(c, what, NULL);
            }
            continue;
        }
        if ((st = kvp_options_set(o, s->name, s->value, err)) != KVP_OK) return st;
        out->applied[k] = true;
        if (flags & KVP__FROM_MARK_PASTED) o->pasted[r->id] = 1; /* kvp_options_finish */
        if (!out->row[r->id]) out->row[r->id] = (unsigned char)(k + 1);
    }
    return KVP_OK;
}

bool kvp__from_same_engine(const kvp_from_cmd *c, const char *value) {
    kvp_engine pe, ce;
    return value && kvp_engine_parse(value, &pe) == KVP_OK &&
           kvp_engine_parse(c->engine, &ce) == KVP_OK && pe == ce;
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

bool kvp__from_same_statement(const kvp_option *r, const char *name_a, const char *a,
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

kvp__from_again kvp__from_given(const kvp_from_cmd *c, const kvp__from_applied *filled,
                                const kvp_option *r, const char *typed, const char *value,
                                char *side, size_t side_size, char *why, size_t why_size) {
    unsigned char row = filled->row[r->id];
    if (!row || r->repeats) return KVP__FROM_NOT_FILLED;
    if (row == KVP__FROM_ROW_POLICY) {
        /* --policy naming the command's engine is the same statement: said once. */
        if (kvp__from_same_engine(c, value)) return KVP__FROM_SAME_ENGINE;
        snprintf(side, side_size, "--from");
        snprintf(why, why_size, "the --from command is a %s command; give one", c->engine);
        return KVP__FROM_CONTRADICTS;
    }
    /* The command's side as it was pasted ("--from's -tp 2"). The same value said
     * twice (the flag and the pasted command, or its environment:
     * CUDA_VISIBLE_DEVICES=0,1 and --gpus 2) is one statement. */
    const kvp_from_setting *s = &c->set[row - 1];
    if (kvp__from_same_statement(r, s->name, s->value, typed, value)) return KVP__FROM_SAME_VALUE;
    snprintf(side, side_size, "--from's %s%s%s", s->name, s->value ? " " : "",
             s->value ? s->value : "");
    snprintf(why, why_size, "both set %s; give one", r->field);
    return KVP__FROM_CONTRADICTS;
}

const char *kvp__from_model_elsewhere(const char *path) {
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
        char name[256];
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
