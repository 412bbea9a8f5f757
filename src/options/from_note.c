/* from_note.c — how a `--from "<engine command>"` was read (from_parse.h):
 * the equivalent kvplan command line (the command's settings under kvplan's
 * names, then the user's own arguments), the MODEL the user gave instead, and
 * the options ignored, unknown or left as text. The CLI writes it on stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "from_parse.h"
#include "kvplan/options.h"
#include "text_buf.h"
#include "util.h"

typedef kvp__text_buf note_buf;
static void putc1(note_buf *b, char c) { kvp__text_put(b, &c, 1); }

/* Print one argument the way a shell would read it back. */
static void print_word(note_buf *f, const char *w) {
    bool plain = *w != '\0';
    for (const char *p = w; *p; p++)
        if (!(strchr("-_./:=,+@%", *p) || (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
              (*p >= 'A' && *p <= 'Z')))
            plain = false;
    if (plain) {
        kvp__text_puts(f, w);
        return;
    }
    kvp__text_puts(f, "\'");
    for (const char *p = w; *p; p++) {
        if (*p == '\'')
            kvp__text_puts(f, "'\\''");
        else
            putc1(f, *p);
    }
    kvp__text_puts(f, "\'");
}

/* One applied setting under kvplan's own name (the row's), as `kvplan` reads it
 * back: a flag as "--name" or "--name=false" (a negated spelling included). */
static void print_setting(note_buf *f, const kvp_from_setting *s) {
    size_t sp = 0;
    const kvp_option *r = kvp_option_lookup(s->name, &sp);
    if (!r) return;
    kvp__text_puts(f, " ");
    kvp__text_puts(f, r->name);
    if (r->type == KVP_OPTION_FLAG) {
        bool on = !s->value || !kvp_from_is_false(s->value);
        if (sp && r->spellings[sp - 1].negate) on = !on;
        if (!on) kvp__text_puts(f, "=false");
        return;
    }
    if (s->value) {
        kvp__text_puts(f, " ");
        print_word(f, s->value);
    }
}

char *kvp__from_note_text(const kvp__from_note_in *in) {
    note_buf nb = {0}, *f = &nb;
    const kvp_from_cmd *c = in->cmd;
    const char *model = in->user_model ? in->user_model : c->model;
    kvp__text_puts(f, "kvplan: --from: planning as: kvplan ");
    print_word(f, in->argv[0]);
    kvp__text_puts(f, " ");
    print_word(f, model);
    kvp__text_printf(f, " --policy %s", c->engine);
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
        kvp__text_puts(f, " ");
        print_word(f, a);
    }
    kvp__text_puts(f, "\n");
    if (in->user_model && strcmp(in->user_model, c->model) != 0 && !in->model_elsewhere)
        kvp__text_printf(f, "kvplan: --from: MODEL '%s' given: it overrides the command's '%s'\n",
                in->user_model, c->model);
    if (c->missing[0])
        kvp__text_printf(f, "kvplan: --from: warning: not on this machine: %s; planned from the rest of "
                   "the command%s%s%s\n",
                c->missing, in->model_elsewhere ? " (the model as the catalogue's '" : "",
                in->model_elsewhere ? in->user_model : "", in->model_elsewhere ? "')" : "");
    if (c->unknown_count)
        kvp__text_printf(f, "kvplan: --from: warning: %d option(s) the %s command table does not "
                   "know (a typo, or newer than kvplan): %s\n",
                c->unknown_count, c->engine, c->unknown);
    if (c->ignored_count)
        kvp__text_printf(f, "kvplan: --from: note: %d option(s) accepted that change neither memory, "
                   "admission nor the KV cache as kvplan plans them: %s\n",
                c->ignored_count, c->ignored);
    if (c->variables[0])
        kvp__text_printf(f, "kvplan: --from: %s left as text (kvplan does not expand shell "
                   "variables)\n", c->variables);
    if (nb.failed) {
        free(nb.data);
        return NULL;
    }
    return nb.data;
}
