/*
 * json_dump.c — kvp__json_dump: a jansson tree as text, byte for byte what
 * json_dump_callback writes, in one pass into one growing buffer.
 *
 * Why not json_dump_callback: a plan document is built and dumped on every
 * kvp_json_call (Python, `serve`), and jansson 2.14's dumper costs about
 * 60 instructions a byte there: it keys every object and array by its
 * address through snprintf("%p") into a hash table of parents (loop
 * detection), formats every integer through snprintf and hands each piece to
 * the callback. Our trees are built by kvplan, without cycles; writing them
 * directly made the dump most of the binding path's gap to the C API
 * (issue 27 item 8, bench/bench_json_call.c).
 *
 * The format is jansson's (dump.c, strconv.c of 2.14) for the flags kvplan
 * uses: JSON_INDENT(n), JSON_COMPACT, JSON_ENSURE_ASCII, JSON_ESCAPE_SLASH,
 * JSON_REAL_PRECISION(p), JSON_ENCODE_ANY, JSON_PRESERVE_ORDER (objects keep
 * insertion order in 2.14 either way). Any other flag (JSON_SORT_KEYS,
 * JSON_EMBED) goes to jansson itself. tests/unit/test_json_dump.c compares
 * the two byte for byte, and tests/fuzz/fuzz_json_dump.c on any parsed text.
 */
#include <stdio.h>
#include <string.h>

#include "json_error.h"
#include "json_writer.h"

/* Flags this writer reproduces; anything else is jansson's. */
#define DUMP_OWN_FLAGS                                                                        \
    (JSON_MAX_INDENT | JSON_COMPACT | JSON_ENSURE_ASCII | JSON_ESCAPE_SLASH |                 \
     JSON_REAL_PRECISION(31) | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER)

/* Deeper than jansson's parser goes (2,048): only a tree built by hand gets
 * here, and a cycle would recurse for ever; jansson refuses a cycle too. */
#define DUMP_MAX_DEPTH 4096

typedef kvp__strbuf out_buf;

static void put(out_buf *o, const char *s, size_t n) { kvp__strbuf_put(o, s, n); }
static void put_char(out_buf *o, char c) { kvp__strbuf_putc(o, c); }

/* jansson's dump_indent: a newline and depth x indent spaces, or with no
 * indent the space after ',' (unless compact). */
void kvp__json_put_indent(out_buf *o, size_t flags, int depth, bool space) {
    size_t n = JSON_MAX_INDENT & flags;
    if (n > 0) {
        static const char spaces[] = "                                ";
        size_t total = (size_t)depth * n;
        put_char(o, '\n');
        while (total > 0) {
            size_t k = total < sizeof spaces - 1 ? total : sizeof spaces - 1;
            put(o, spaces, k);
            total -= k;
        }
    } else if (space && !(flags & JSON_COMPACT)) {
        put_char(o, ' ');
    }
}

/* One UTF-8 sequence at s (n bytes left): its code point and length, or 0
 * when it is not valid UTF-8 (jansson's utf8_iterate fails the dump). */
static size_t utf8_next(const unsigned char *s, size_t n, int32_t *cp) {
    unsigned char c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t len;
    int32_t v, min;
    if (c >= 0xC2 && c <= 0xDF) len = 2, v = c & 0x1F, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF) len = 3, v = c & 0x0F, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4) len = 4, v = c & 0x07, min = 0x10000;
    else return 0;
    if (len > n) return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
    *cp = v;
    return len;
}

/* jansson's dump_string: '"', '\\' and control characters escaped (\b \f \n
 * \r \t, else \u00XX in capitals), '/' under JSON_ESCAPE_SLASH, non-ASCII as
 * \uXXXX (a surrogate pair above the BMP) under JSON_ENSURE_ASCII. */
void kvp__json_put_string(out_buf *o, const char *str, size_t len, size_t flags) {
    const unsigned char *s = (const unsigned char *)str;
    put_char(o, '"');
    size_t run = 0, i = 0;
    while (i < len) {
        /* The common case first: printable ASCII other than '"', '\\' and '/'. */
        while (i < len && s[i] >= 0x20 && s[i] < 0x80 && s[i] != '"' && s[i] != '\\' && s[i] != '/') i++;
        if (i == len) break;
        unsigned char c = s[i];
        int32_t cp = c;
        size_t step = 1;
        if (c >= 0x80) {
            step = utf8_next(s + i, len - i, &cp);
            if (!step) {
                o->failed = true;
                return;
            }
            if (!(flags & JSON_ENSURE_ASCII)) {
                i += step;
                continue;
            }
        } else if (c != '\\' && c != '"' && c >= 0x20 && !(c == '/' && (flags & JSON_ESCAPE_SLASH))) {
            i++;
            continue;
        }
        put(o, str + run, i - run);
        char seq[16];
        const char *text = seq;
        size_t n = 2;
        switch (cp) {
        case '\\': text = "\\\\"; break;
        case '"': text = "\\\""; break;
        case '\b': text = "\\b"; break;
        case '\f': text = "\\f"; break;
        case '\n': text = "\\n"; break;
        case '\r': text = "\\r"; break;
        case '\t': text = "\\t"; break;
        case '/': text = "\\/"; break;
        default:
            if (cp < 0x10000) {
                snprintf(seq, sizeof seq, "\\u%04X", (unsigned)cp);
                n = 6;
            } else {
                int32_t v = cp - 0x10000;
                snprintf(seq, sizeof seq, "\\u%04X\\u%04X", (unsigned)(0xD800 | ((v & 0xFFC00) >> 10)),
                         (unsigned)(0xDC00 | (v & 0x3FF)));
                n = 12;
            }
        }
        put(o, text, n);
        i += step;
        run = i;
    }
    put(o, str + run, len - run);
    put_char(o, '"');
}

void kvp__json_put_integer(out_buf *o, json_int_t v) {
    char buf[24], *p = buf + sizeof buf;
    /* The magnitude in unsigned arithmetic: -INT64_MIN does not fit a json_int_t. */
    unsigned long long m = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do {
        *--p = (char)('0' + m % 10);
        m /= 10;
    } while (m);
    if (v < 0) *--p = '-';
    put(o, p, (size_t)(buf + sizeof buf - p));
}

/* jansson's jsonp_dtostr: "%.*g" (precision 17 unless the flags give one),
 * ".0" appended when the text has neither '.' nor 'e', and the exponent's '+'
 * and leading zeros dropped ("1e+20" -> "1e20", "1e-05" -> "1e-5"). The C
 * locale's decimal point, as kvplan never calls setlocale for numbers. */
void kvp__json_put_real(out_buf *o, double v, size_t flags) {
    int precision = (int)((flags >> 11) & 0x1F);
    if (precision == 0) precision = 17;
    char buf[64];
    int ret = snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (ret < 0 || (size_t)ret + 3 >= sizeof buf) {
        o->failed = true;
        return;
    }
    size_t len = (size_t)ret;
    for (char *p = buf; *p; p++)
        if (*p == ',') *p = '.'; /* jansson's from_locale, for a host that set one */
    if (!strchr(buf, '.') && !strchr(buf, 'e')) {
        memcpy(buf + len, ".0", 3);
        len += 2;
    }
    char *start = strchr(buf, 'e');
    if (start) {
        start++;
        char *end = start + 1;
        if (*start == '-') start++;
        while (*end == '0') end++;
        if (end != start) {
            memmove(start, end, len - (size_t)(end - buf));
            len -= (size_t)(end - start);
        }
    }
    put(o, buf, len);
}

static void put_value(out_buf *o, const json_t *v, size_t flags, int depth) {
    if (o->failed) return;
    if (depth > DUMP_MAX_DEPTH) {
        o->failed = true;
        return;
    }
    switch (json_typeof(v)) {
    case JSON_NULL: put(o, "null", 4); return;
    case JSON_TRUE: put(o, "true", 4); return;
    case JSON_FALSE: put(o, "false", 5); return;
    case JSON_INTEGER: kvp__json_put_integer(o, json_integer_value(v)); return;
    case JSON_REAL: kvp__json_put_real(o, json_real_value(v), flags); return;
    case JSON_STRING: kvp__json_put_string(o, json_string_value(v), json_string_length(v), flags); return;
    case JSON_ARRAY: {
        size_t n = json_array_size(v);
        put_char(o, '[');
        if (n == 0) {
            put_char(o, ']');
            return;
        }
        kvp__json_put_indent(o, flags, depth + 1, false);
        for (size_t i = 0; i < n; i++) {
            put_value(o, json_array_get(v, i), flags, depth + 1);
            if (i + 1 < n) {
                put_char(o, ',');
                kvp__json_put_indent(o, flags, depth + 1, true);
            } else {
                kvp__json_put_indent(o, flags, depth, false);
            }
        }
        put_char(o, ']');
        return;
    }
    case JSON_OBJECT: {
        const char *sep = flags & JSON_COMPACT ? ":" : ": ";
        size_t sep_len = flags & JSON_COMPACT ? 1 : 2;
        void *it = json_object_iter((json_t *)v);
        put_char(o, '{');
        if (!it) {
            put_char(o, '}');
            return;
        }
        kvp__json_put_indent(o, flags, depth + 1, false);
        while (it) {
            void *next = json_object_iter_next((json_t *)v, it);
            kvp__json_put_string(o, json_object_iter_key(it), json_object_iter_key_len(it), flags);
            put(o, sep, sep_len);
            put_value(o, json_object_iter_value(it), flags, depth + 1);
            if (next) {
                put_char(o, ',');
                kvp__json_put_indent(o, flags, depth + 1, true);
            } else {
                kvp__json_put_indent(o, flags, depth, false);
            }
            it = next;
        }
        put_char(o, '}');
        return;
    }
    }
    o->failed = true;
}

/* jansson's own dumper, for the flags this writer does not reproduce: its
 * pieces appended to the same growing text. */
static int dump_append(const char *buf, size_t size, void *ctx) {
    kvp__strbuf_put(ctx, buf, size);
    return ((kvp__strbuf *)ctx)->failed ? -1 : 0;
}

char *kvp__json_dump_jansson(const json_t *doc, size_t flags, const kvp_allocator *alc) {
    if (!doc) return NULL;
    kvp__strbuf d = {NULL, 0, 0, alc, false};
    if (json_dump_callback(doc, dump_append, &d, flags) != 0 || !d.data) {
        kvp__free(alc, d.data);
        return NULL;
    }
    return d.data;
}

char *kvp__json_dump(const json_t *doc, size_t flags, const kvp_allocator *alc) {
    if (!doc) return NULL;
    if (flags & ~(size_t)DUMP_OWN_FLAGS) return kvp__json_dump_jansson(doc, flags, alc);
    /* jansson dumps a bare scalar only under JSON_ENCODE_ANY. */
    if (!(flags & JSON_ENCODE_ANY) && !json_is_object(doc) && !json_is_array(doc)) return NULL;
    out_buf o = {NULL, 0, 0, alc, false};
    put_value(&o, doc, flags, 0);
    if (o.failed || !o.data) {
        kvp__free(alc, o.data);
        return NULL;
    }
    return o.data;
}
