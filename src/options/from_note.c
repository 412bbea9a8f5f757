/* from_note.c — how a `--from "<engine command>"` was read (from_parse.h):
 * the equivalent kvplan command line (the command's settings under kvplan's
 * names, then the user's own arguments), the MODEL the user gave instead, and
 * the options ignored, unknown or left as text. The CLI writes it on stderr. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "from_parse.h"
#include "kvplan/options.h"
#include "util.h"

/* A growable text; `failed` after the first allocation failure. */
typedef struct note_buf {
    char *data;
    size_t len, cap;
    bool failed;
} note_buf;

static void putn(note_buf *b, const char *s, size_t n) {
    if (b->failed) return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = (b->len + n + 1) * 2;
        char *d = realloc(b->data, cap);
        if (!d) {
            b->failed = true;
            return;
        }
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}
static void put(note_buf *b, const char *s) { putn(b, s, strlen(s)); }
static void putc1(note_buf *b, char c) { putn(b, &c, 1); }
static void putf(note_buf *b, const char *fmt, ...) KVP_PRINTF(2, 3);
static void putf(note_buf *b, const char *fmt, ...) {
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *line = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (line) vsnprintf(line, (size_t)n + 1, fmt, again);
    va_end(again);
    if (line) putn(b, line, (size_t)n);
    else b->failed = true;
    free(line);
}

/* Print one argument the way a shell would read it back. */
static void print_word(note_buf *f, const char *w) {
    bool plain = *w != '\0';
    for (const char *p = w; *p; p++)
        if (!(strchr("-_./:=,+@%", *p) || (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
              (*p >= 'A' && *p <= 'Z')))
            plain = false;
    if (plain) {
        put(f, w);
        return;
    }
    put(f, "\'");
    for (const char *p = w; *p; p++) {
        if (*p == '\'')
            put(f, "'\\''");
        else
            putc1(f, *p);
    }
    put(f, "\'");
}

/* One applied setting under kvplan's own name (the row's), as `kvplan` reads it
 * back: a flag as "--name" or "--name=false" (a negated spelling included). */
static void print_setting(note_buf *f, const kvp_from_setting *s) {
    size_t sp = 0;
    const kvp_option *r = kvp_option_lookup(s->name, &sp);
    if (!r) return;
    put(f, " ");
    put(f, r->name);
    if (r->type == KVP_OPTION_FLAG) {
        bool on = !s->value || !kvp_from_is_false(s->value);
        if (sp && r->spellings[sp - 1].negate) on = !on;
        if (!on) put(f, "=false");
        return;
    }
    if (s->value) {
        put(f, " ");
        print_word(f, s->value);
    }
}

char *kvp__from_note_text(const kvp__from_note_in *in) {
    note_buf nb = {0}, *f = &nb;
    const kvp_from_cmd *c = in->cmd;
    const char *model = in->user_model ? in->user_model : c->model;
    put(f, "kvplan: --from: planning as: kvplan ");
    print_word(f, in->argv[0]);
    put(f, " ");
    print_word(f, model);
    putf(f, " --policy %s", c->engine);
    for (int k = 0; k < c->count; k++)
        if (in->applied[k]) print_setting(f, &c->set[k]);
    for (int j = 1; j < in->argc; j++) {
        const char *a = in->argv[j];
        if (j == in->at || a == in->same_policy) {
            if (!strcmp(a, "--from") || !strcmp(a, "--policy")) j++; /* and its value */
            continue;
        }
        if (a == in->user_model) continue; /* said first */
        bool said = false;
        for (int k = 0; k < in->same_count && !said; k++) said = a == in->same[k];
        if (said) continue; /* the same statement as the command's: printed once */
        put(f, " ");
        print_word(f, a);
    }
    put(f, "\n");
    if (in->user_model && strcmp(in->user_model, c->model) != 0 && !in->model_elsewhere)
        putf(f, "kvplan: --from: MODEL '%s' given: it overrides the command's '%s'\n",
                in->user_model, c->model);
    if (c->missing[0])
        putf(f, "kvplan: --from: warning: not on this machine: %s; planned from the rest of "
                   "the command%s%s%s\n",
                c->missing, in->model_elsewhere ? " (the model as the catalogue's '" : "",
                in->model_elsewhere ? in->user_model : "", in->model_elsewhere ? "')" : "");
    if (c->unknown_count)
        putf(f, "kvplan: --from: warning: %d option(s) the %s command table does not "
                   "know (a typo, or newer than kvplan): %s\n",
                c->unknown_count, c->engine, c->unknown);
    if (c->ignored_count)
        putf(f, "kvplan: --from: note: %d option(s) accepted that change neither memory, "
                   "admission nor the KV cache as kvplan plans them: %s\n",
                c->ignored_count, c->ignored);
    if (c->variables[0])
        putf(f, "kvplan: --from: %s left as text (kvplan does not expand shell "
                   "variables)\n", c->variables);
    if (nb.failed) {
        free(nb.data);
        return NULL;
    }
    return nb.data;
}
