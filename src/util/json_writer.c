/* json_writer.c — kvp__jw: one document written either as jansson's text or
 * as a jansson tree (json_writer.h says why). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json_writer.h"

json_t *kvp__jv_json(kvp__jv v) {
    switch (v.type) {
    case KVP__JV_NULL: return json_null();
    case KVP__JV_BOOL: return json_boolean(v.b);
    case KVP__JV_U64: return v.u > (uint64_t)INT64_MAX ? json_null() : json_integer((json_int_t)v.u);
    case KVP__JV_REAL: return json_real(v.d);  /* NULL when not finite */
    case KVP__JV_STR: return v.s ? json_string(v.s) : NULL; /* NULL when not UTF-8 */
    }
    return NULL;
}

static void start(kvp__jw *w) {
    memset(w->count, 0, sizeof w->count);
    w->depth = 1;
    w->is_array[0] = false;
    w->failed = false;
}

void kvp__jw_text(kvp__jw *w, size_t flags) { kvp__jw_text_at(w, flags, 0, ""); }

void kvp__jw_text_at(kvp__jw *w, size_t flags, int depth, const char *lead) {
    w->text = true;
    w->base = depth;
    w->flags = flags;
    w->out = (kvp__strbuf){NULL, 0, 0, NULL, false};
    w->stack[0] = NULL;
    w->owns_root = false;
    start(w);
    kvp__strbuf_put(&w->out, lead, strlen(lead));
    kvp__strbuf_putc(&w->out, '{');
}

void kvp__jw_tree(kvp__jw *w) {
    w->text = false;
    w->out = (kvp__strbuf){NULL, 0, 0, NULL, false};
    start(w);
    w->base = 0;
    w->stack[0] = json_object();
    w->owns_root = true;
    if (!w->stack[0]) w->failed = true;
}

void kvp__jw_tree_on(kvp__jw *w, json_t *o) {
    w->text = false;
    w->out = (kvp__strbuf){NULL, 0, 0, NULL, false};
    start(w);
    w->base = 0;
    w->stack[0] = o;
    w->owns_root = false;
    if (!json_is_object(o)) w->failed = true;
}

/* Can the value be written? jansson makes no value of a NULL or non-UTF-8
 * string, nor of a real that is not finite. */
static bool writable(kvp__jv v) {
    if (v.type == KVP__JV_STR) return v.s && kvp__utf8_valid(v.s, strlen(v.s), NULL);
    if (v.type == KVP__JV_REAL) return isfinite(v.d);
    return true;
}

/* Text: the separator, the line break and indent, and the key, before a value
 * of the open container. False (and failed) when the key does not fit it. */
static bool text_lead(kvp__jw *w, const char *key) {
    int i = w->depth - 1;
    if (i < 0 || (key == NULL) != w->is_array[i]) {
        w->failed = true;
        return false;
    }
    if (w->count[i]++) kvp__strbuf_putc(&w->out, ',');
    kvp__json_put_indent(&w->out, w->flags, w->base + i + 1, w->count[i] > 1);
    if (key) {
        kvp__json_put_string(&w->out, key, strlen(key), w->flags);
        if (w->flags & JSON_COMPACT) kvp__strbuf_putc(&w->out, ':');
        else kvp__strbuf_put(&w->out, ": ", 2);
    }
    return true;
}

/* Tree: hang `v` (taken) on the open container. */
static void tree_put(kvp__jw *w, const char *key, json_t *v) {
    json_t *top = w->stack[w->depth - 1];
    bool array = json_is_array(top);
    if (array != (key == NULL)) {
        json_decref(v);
        w->failed = true;
    } else if (array) {
        json_array_append_new(top, v);
    } else {
        json_object_set_new(top, key, v);
    }
}

void kvp__jw_set(kvp__jw *w, const char *key, kvp__jv v) {
    if (w->failed || w->depth < 1) return;
    if (!w->text) {
        tree_put(w, key, kvp__jv_json(v)); /* NULL: jansson leaves the member out */
        return;
    }
    if (!writable(v) || !text_lead(w, key)) return;
    kvp__strbuf *o = &w->out;
    switch (v.type) {
    case KVP__JV_NULL: kvp__strbuf_put(o, "null", 4); break;
    case KVP__JV_BOOL: v.b ? kvp__strbuf_put(o, "true", 4) : kvp__strbuf_put(o, "false", 5); break;
    case KVP__JV_U64:
        if (v.u > (uint64_t)INT64_MAX) kvp__strbuf_put(o, "null", 4);
        else kvp__json_put_integer(o, (json_int_t)v.u);
        break;
    case KVP__JV_REAL: kvp__json_put_real(o, v.d, w->flags); break;
    case KVP__JV_STR: kvp__json_put_string(o, v.s, strlen(v.s), w->flags); break;
    }
}

static void open_container(kvp__jw *w, const char *key, bool array) {
    if (w->failed || w->depth < 1) return;
    if (w->depth >= KVP__JW_DEPTH) {
        w->failed = true;
        return;
    }
    if (w->text) {
        if (!text_lead(w, key)) return;
        kvp__strbuf_putc(&w->out, array ? '[' : '{');
        w->stack[w->depth] = NULL;
    } else {
        json_t *c = array ? json_array() : json_object();
        if (!c) {
            w->failed = true;
            return;
        }
        tree_put(w, key, json_incref(c)); /* the parent's reference; ours is borrowed */
        json_decref(c);
        w->stack[w->depth] = c;
    }
    w->count[w->depth] = 0;
    w->is_array[w->depth] = array;
    w->depth++;
}

void kvp__jw_object(kvp__jw *w, const char *key) { open_container(w, key, false); }
void kvp__jw_array(kvp__jw *w, const char *key) { open_container(w, key, true); }

void kvp__jw_end(kvp__jw *w) {
    if (w->failed) return;
    if (w->depth < 1) {
        w->failed = true;
        return;
    }
    int i = --w->depth;
    if (!w->text) return;
    if (w->count[i]) kvp__json_put_indent(&w->out, w->flags, w->base + i, false);
    kvp__strbuf_putc(&w->out, w->is_array[i] ? ']' : '}');
}

char *kvp__jw_take_text(kvp__jw *w) {
    if (w->text && !w->failed && w->depth == 1) kvp__jw_end(w);
    if (!w->text || w->failed || w->depth != 0 || w->out.failed || !w->out.data) {
        free(w->out.data);
        w->out.data = NULL;
        return NULL;
    }
    char *s = w->out.data;
    w->out.data = NULL;
    return s;
}

json_t *kvp__jw_take_tree(kvp__jw *w) {
    if (w->text) return NULL;
    json_t *root = w->stack[0];
    if (w->failed || w->depth != 1) {
        if (w->owns_root) json_decref(root);
        return NULL;
    }
    return w->owns_root ? root : json_incref(root);
}
