/* json_sweep_row.c — one streamed sweep row written straight into its text
 * (kvp_render_sweep_json_row's fast path, issue 12 item 9).
 *
 * A 10,000-row `kvplan sweep --json` spent a quarter of its time building each
 * row as a jansson tree and dumping it. This writes the same bytes directly:
 * jansson's indented layout (json_fit.c: a row at depth 2, members on their
 * own lines, ": " after a key, "," between members, "[]" / "{}" when empty),
 * integers as jansson prints them (%lld; a figure above INT64_MAX is null,
 * kvp__json_u64), and strings that need no escape but '"' and '\\'. A row with
 * any other string (a control character, bytes that are not UTF-8) returns
 * false and is rendered by the tree instead, so every byte is jansson's. test_sweep_stream's test_stream_is_tree compares the
 * streamed document with the tree's. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "text_buf.h"
#include "render_internal.h"
#include "util.h"

typedef kvp__text_buf row_writer;

static void put(row_writer *w, const char *s, size_t n) { kvp__text_put(w, s, n); }
static void puts_(row_writer *w, const char *s) { kvp__text_puts(w, s); }

/* A new member (or element) at `depth`: the separator, the line break, the
 * indent, and the key when there is one. `first` is the container's first. */
static void member(row_writer *w, int depth, bool first, const char *key) {
    static const char spaces[] = "                "; /* 16: depth 8 */
    put(w, first ? "\n" : ",\n", first ? 1 : 2);
    put(w, spaces, (size_t)depth * 2);
    if (key) {
        put(w, "\"", 1);
        puts_(w, key);
        put(w, "\": ", 3);
    }
}

static void close_(row_writer *w, int depth, const char *bracket) {
    static const char spaces[] = "                ";
    put(w, "\n", 1);
    put(w, spaces, (size_t)depth * 2);
    puts_(w, bracket);
}

/* True when jansson dumps `s` as the bytes themselves, with only '"' and '\\'
 * escaped: no control character below 0x20 (jansson writes \n, \u001b, ...),
 * and valid UTF-8 (json_string refuses anything else, and the member is left
 * out: kvp__utf8_valid has jansson's rules, overlong forms and surrogates
 * refused). DEL and non-ASCII text are copied as they are. */
static bool simple(const char *s) {
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++, n++)
        if (*p < 0x20) return false;
    return kvp__utf8_valid(s, n, NULL);
}

static void str(row_writer *w, const char *s) {
    put(w, "\"", 1);
    for (const char *p = s; *p;) {
        size_t run = strcspn(p, "\"\\");
        put(w, p, run);
        p += run;
        if (*p) {
            put(w, *p == '"' ? "\\\"" : "\\\\", 2);
            p++;
        }
    }
    put(w, "\"", 1);
}

static void u64(row_writer *w, uint64_t v) {
    if (v > (uint64_t)INT64_MAX) {
        put(w, "null", 4);
        return;
    }
    char num[24];
    int n = snprintf(num, sizeof num, "%" PRIu64, v);
    put(w, num, (size_t)n);
}

static void boolean(row_writer *w, bool b) { put(w, b ? "true" : "false", b ? 4 : 5); }

/* Every string the row writes can be written as itself. */
static bool row_is_simple(const kvp_fit_eval *e) {
    const kvp_deploy_startup *st = &e->startup;
    if (!simple(kvp_engine_name(e->point.engine)) || !simple(e->point.kv_dtype)) return false;
    if (e->status != KVP_OK && (!simple(kvp_status_name(e->status)) || !simple(e->message)))
        return false;
    if (e->status == KVP_OK && !simple(e->binding)) return false;
    if (st->first_refusal >= 0 && (uint32_t)st->first_refusal >= st->count) return false;
    for (uint32_t i = 0; i < st->count; i++) {
        const kvp_check_row *c = &st->checks[i];
        if (!simple(c->rule) || !simple(kvp_check_status_name(c->status)) ||
            !simple(c->setting) || !simple(c->message) || !simple(c->fix))
            return false;
    }
    return true;
}

/* The row object at depth 2 (kvp__point_json(e, false), then the capacity
 * members of json_fit.c's sweep_row_json), in the same member order. */
static void write_row(row_writer *w, const kvp_fit_eval *e) {
    const kvp_deploy_startup *st = &e->startup;
    put(w, "{", 1);
    member(w, 3, true, "policy");
    str(w, kvp_engine_name(e->point.engine));
    member(w, 3, false, "tp");
    u64(w, e->point.tp);
    member(w, 3, false, "pp");
    u64(w, e->point.pp);
    member(w, 3, false, "kv_dtype");
    str(w, e->point.kv_dtype);
    member(w, 3, false, "max_seq_len");
    u64(w, e->point.max_seq_len);
    member(w, 3, false, "ok");
    boolean(w, e->status == KVP_OK);
    if (e->status != KVP_OK) {
        member(w, 3, false, "error");
        str(w, kvp_status_name(e->status));
        member(w, 3, false, "message");
        str(w, e->message);
    }
    member(w, 3, false, "startup");
    put(w, "{", 1);
    member(w, 4, true, "starts");
    boolean(w, st->starts);
    member(w, 4, false, "first_refusal");
    if (st->first_refusal >= 0)
        str(w, st->checks[st->first_refusal].rule);
    else
        put(w, "null", 4);
    member(w, 4, false, "checks");
    if (!st->count) put(w, "[]", 2);
    for (uint32_t i = 0; i < st->count; i++) {
        const kvp_check_row *c = &st->checks[i];
        if (i == 0) put(w, "[", 1);
        member(w, 5, i == 0, NULL);
        put(w, "{", 1);
        member(w, 6, true, "rule");
        str(w, c->rule);
        member(w, 6, false, "status");
        str(w, kvp_check_status_name(c->status));
        member(w, 6, false, "setting");
        str(w, c->setting);
        member(w, 6, false, "message");
        str(w, c->message);
        member(w, 6, false, "fix");
        if (c->fix[0])
            str(w, c->fix);
        else
            put(w, "null", 4);
        close_(w, 5, "}");
        if (i + 1 == st->count) close_(w, 4, "]");
    }
    if (st->dropped) {
        member(w, 4, false, "checks_not_listed");
        u64(w, st->dropped);
    }
    close_(w, 3, "}");
    if (e->status == KVP_OK) {
        member(w, 3, false, "budget_bytes");
        u64(w, e->budget_bytes);
        member(w, 3, false, "kv_bytes");
        u64(w, e->kv_bytes);
        member(w, 3, false, "tokens");
        u64(w, e->tokens);
        member(w, 3, false, "blocks");
        u64(w, e->blocks);
        member(w, 3, false, "max_sequences");
        if (e->max_sequences == UINT64_MAX)
            put(w, "null", 4);
        else
            u64(w, e->max_sequences);
        member(w, 3, false, "longest_sequence_tokens");
        if (e->longest_tokens == UINT64_MAX)
            put(w, "null", 4);
        else
            u64(w, e->longest_tokens);
        member(w, 3, false, "bound_by");
        str(w, e->binding);
    }
    close_(w, 2, "}");
}

bool kvp__sweep_row_text(const kvp_fit_eval *e, uint64_t index, char **out, kvp_error *err,
                         kvp_status *st) {
    if (!row_is_simple(e)) return false;
    row_writer w = {NULL, 0, 0, NULL, false};
    /* The row's place in the "rows" array: after the head's "[" or the last row. */
    if (index) put(&w, ",", 1);
    put(&w, "\n    ", 5);
    write_row(&w, e);
    if (w.failed) {
        kvp__free(NULL, w.data);
        *st = kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory rendering JSON");
        return true;
    }
    *out = w.data;
    *st = KVP_OK;
    return true;
}
