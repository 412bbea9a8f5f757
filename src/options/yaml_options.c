/* yaml_options.c — an engine's YAML options file into dotted (key, value)
 * pairs (yaml_options.h), with libyaml's event parser (Debian libyaml-dev).
 * Aliases are never expanded (no "billion laughs"): an alias value is OTHER. */
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>
#include <yaml.h>

#include "util.h"
#include "yaml_options.h"

typedef struct reader {
    yaml_parser_t parser;
    const char *name;
    kvp__yaml_visit visit;
    void *ctx;
    kvp_error *err;
} reader;

static kvp_status syntax(reader *r, const yaml_mark_t *mark, const char *fmt, ...) KVP_PRINTF(3, 4);
static kvp_status syntax(reader *r, const yaml_mark_t *mark, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    kvp__vfail(r->err, KVP_SYNTAX, r->name, NULL, fmt, ap);
    va_end(ap);
    if (r->err && mark) {
        r->err->line = (int)mark->line + 1;
        r->err->column = (int)mark->column + 1;
    }
    return KVP_SYNTAX;
}

/* The next event; a parser error becomes KVP_SYNTAX with libyaml's words and place. */
static kvp_status next(reader *r, yaml_event_t *ev) {
    if (yaml_parser_parse(&r->parser, ev)) return KVP_OK;
    kvp__fail(r->err, KVP_SYNTAX, r->name, NULL, "not YAML: %s%s%s (line %zu, column %zu)",
              r->parser.problem ? r->parser.problem : "syntax error",
              r->parser.context ? " " : "", r->parser.context ? r->parser.context : "",
              (size_t)r->parser.problem_mark.line + 1, (size_t)r->parser.problem_mark.column + 1);
    if (r->err) {
        r->err->line = (int)r->parser.problem_mark.line + 1;
        r->err->column = (int)r->parser.problem_mark.column + 1;
    }
    return KVP_SYNTAX;
}

/* A plain null / ~ / empty scalar (quoted "null" is the string). */
static bool is_null(const yaml_event_t *ev) {
    if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) return false;
    const char *v = (const char *)ev->data.scalar.value;
    return !*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") ||
           !strcmp(v, "NULL");
}

/* Skip a mapping or sequence whose start event was just read. */
static kvp_status skip(reader *r) {
    int depth = 1;
    while (depth > 0) {
        yaml_event_t ev;
        kvp_status st = next(r, &ev);
        if (st) return st;
        if (ev.type == YAML_MAPPING_START_EVENT || ev.type == YAML_SEQUENCE_START_EVENT) depth++;
        if (ev.type == YAML_MAPPING_END_EVENT || ev.type == YAML_SEQUENCE_END_EVENT) depth--;
        bool end = ev.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&ev);
        if (end) return syntax(r, NULL, "not YAML: the file ends inside a collection");
    }
    return KVP_OK;
}

/* A sequence whose start was read: scalars joined by ',' (LIST), else OTHER. */
static kvp_status sequence(reader *r, const char *key) {
    char list[1024];
    size_t n = 0;
    bool scalars = true, fits = true;
    list[0] = '\0';
    for (;;) {
        yaml_event_t ev;
        kvp_status st = next(r, &ev);
        if (st) return st;
        if (ev.type == YAML_SEQUENCE_END_EVENT) {
            yaml_event_delete(&ev);
            break;
        }
        if (ev.type == YAML_SCALAR_EVENT) {
            size_t l = ev.data.scalar.length;
            if (n + l + 2 < sizeof list) {
                if (n) list[n++] = ',';
                memcpy(list + n, ev.data.scalar.value, l);
                n += l;
                list[n] = '\0';
            } else {
                fits = false;
            }
        } else if (ev.type == YAML_MAPPING_START_EVENT || ev.type == YAML_SEQUENCE_START_EVENT) {
            scalars = false;
            yaml_event_delete(&ev);
            st = skip(r);
            if (st) return st;
            continue;
        } else {
            scalars = false; /* an alias */
        }
        yaml_event_delete(&ev);
    }
    if (!fits)
        return kvp__fail(r->err, KVP_CONFIG, r->name, key, "the list is longer than %zu bytes",
                         sizeof list - 1);
    return r->visit(r->ctx, key, scalars ? KVP_YAML_LIST : KVP_YAML_OTHER, scalars ? list : NULL,
                    r->err);
}

/* A mapping whose start was read, its keys under `prefix`. */
static kvp_status mapping(reader *r, const char *prefix, int depth) {
    for (;;) {
        yaml_event_t ev;
        kvp_status st = next(r, &ev);
        if (st) return st;
        if (ev.type == YAML_MAPPING_END_EVENT) {
            yaml_event_delete(&ev);
            return KVP_OK;
        }
        if (ev.type != YAML_SCALAR_EVENT) {
            yaml_mark_t at = ev.start_mark;
            yaml_event_delete(&ev);
            return syntax(r, &at, "a key under '%s' is not a plain word", *prefix ? prefix : "(top)");
        }
        if (ev.data.scalar.length == 0) {
            /* `: v` or an anchored empty scalar: no option is named "", and
             * "section." would name none either. */
            yaml_mark_t at = ev.start_mark;
            yaml_event_delete(&ev);
            return syntax(r, &at, "an empty key under '%s'", *prefix ? prefix : "(top)");
        }
        char key[256];
        int kl = snprintf(key, sizeof key, "%s%s%s", prefix, *prefix ? "." : "",
                          (const char *)ev.data.scalar.value);
        yaml_mark_t key_at = ev.start_mark;
        yaml_event_delete(&ev);
        if (kl < 0 || (size_t)kl >= sizeof key)
            return syntax(r, &key_at, "the key '%.60s...' is too long", key);
        st = next(r, &ev);
        if (st) return st;
        switch (ev.type) {
        case YAML_SCALAR_EVENT: {
            bool null = is_null(&ev);
            st = r->visit(r->ctx, key, null ? KVP_YAML_NULL : KVP_YAML_SCALAR,
                          null ? NULL : (const char *)ev.data.scalar.value, r->err);
            yaml_event_delete(&ev);
            break;
        }
        case YAML_MAPPING_START_EVENT:
            yaml_event_delete(&ev);
            if (depth + 1 >= KVP_YAML_MAX_DEPTH)
                return syntax(r, &key_at, "mappings nest deeper than 8 levels (at '%.120s')", key);
            st = r->visit(r->ctx, key, KVP_YAML_MAPPING, NULL, r->err);
            if (!st) st = mapping(r, key, depth + 1);
            break;
        case YAML_SEQUENCE_START_EVENT:
            yaml_event_delete(&ev);
            st = sequence(r, key);
            break;
        default: /* an alias */
            yaml_event_delete(&ev);
            st = r->visit(r->ctx, key, KVP_YAML_OTHER, NULL, r->err);
            break;
        }
        if (st) return st;
    }
}

/* The stream: one document whose top level is a mapping (or an empty document). */
static kvp_status stream(reader *r) {
    yaml_event_t ev;
    kvp_status st;
    int documents = 0;
    for (;;) {
        if ((st = next(r, &ev))) return st;
        yaml_event_type_t t = ev.type;
        yaml_mark_t at = ev.start_mark;
        bool null_top = t == YAML_SCALAR_EVENT && is_null(&ev);
        yaml_event_delete(&ev);
        switch (t) {
        case YAML_STREAM_START_EVENT:
        case YAML_DOCUMENT_END_EVENT: continue;
        case YAML_STREAM_END_EVENT: return KVP_OK;
        case YAML_DOCUMENT_START_EVENT:
            if (++documents > 1)
                return syntax(r, &at, "more than one YAML document (one options mapping expected)");
            continue;
        case YAML_MAPPING_START_EVENT:
            if ((st = mapping(r, "", 0))) return st;
            continue;
        case YAML_SCALAR_EVENT:
            if (null_top) continue; /* an empty document */
            /* fallthrough */
        default:
            return syntax(r, &at, "the top level is not a mapping of options");
        }
    }
}

kvp_status kvp__yaml_options_parse(const char *text, size_t len, const char *name,
                                   kvp__yaml_visit visit, void *ctx, kvp_error *err) {
    /* An options file is text: a binary file is a wrong path, not options. */
    size_t bad_at = 0;
    bool ok = kvp__utf8_valid(text, len, &bad_at);
    for (size_t i = 0; ok && i < len; i++) {
        unsigned char ch = (unsigned char)text[i];
        if ((ch < 0x20 && ch != '\n' && ch != '\r' && ch != '\t') || ch == 0x7f) {
            ok = false;
            bad_at = i;
        }
    }
    if (!ok)
        return kvp__fail(err, KVP_SYNTAX, name, NULL,
                         "not a YAML text file (binary byte at offset %zu)", bad_at);
    reader r = {.name = name, .visit = visit, .ctx = ctx, .err = err};
    if (!yaml_parser_initialize(&r.parser))
        return kvp__fail(err, KVP_NOMEM, name, NULL, "out of memory for the YAML parser");
    yaml_parser_set_input_string(&r.parser, (const unsigned char *)text, len);
    kvp_status st = stream(&r);
    yaml_parser_delete(&r.parser);
    return st;
}

kvp_status kvp__yaml_options_read(const char *path, kvp__yaml_visit visit, void *ctx,
                                  kvp_error *err) {
    char *buf = NULL;
    size_t len = 0;
    kvp_status st = kvp__read_file(path, KVP_YAML_MAX_BYTES, NULL, &buf, &len, err);
    if (st) return st;
    st = kvp__yaml_options_parse(buf, len, path, visit, ctx, err);
    kvp__free(NULL, buf);
    return st;
}
