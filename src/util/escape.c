/* escape.c — the one escaping of terminal control characters. Names, keys and values
 * read from hostile files reach error messages and text output; a terminal acts on
 * the C0 controls (ESC starts a sequence that can retitle the window, move the
 * cursor or rewrite what was printed), DEL and the C1 controls (U+0080..U+009F, a
 * single CSI byte 0x9B in 8-bit terminals). Those are written as visible escapes;
 * everything else (valid UTF-8 included) is copied. The escape contains no control
 * character, so escaping twice changes nothing: the library escapes its messages
 * and the CLI may escape the same line again without harm. */
#include <stdio.h>
#include <string.h>

#include "util.h"

/* Bytes of the UTF-8 sequence starting at p[0] (2..4), its code point in *cp, or 0 if
 * it is not a valid sequence; -1 if it is a valid prefix cut by the end of input. */
static int utf8_seq(const unsigned char *p, size_t avail, uint32_t *cp) {
    unsigned char c = p[0];
    int n;
    uint32_t v;
    if ((c & 0xE0) == 0xC0) {
        n = 2;
        v = c & 0x1Fu;
    } else if ((c & 0xF0) == 0xE0) {
        n = 3;
        v = c & 0x0Fu;
    } else if ((c & 0xF8) == 0xF0) {
        n = 4;
        v = c & 0x07u;
    } else {
        return 0;
    }
    for (int k = 1; k < n; k++) {
        if ((size_t)k >= avail) return -1;
        if ((p[k] & 0xC0) != 0x80) return 0;
        v = (v << 6) | (p[k] & 0x3Fu);
    }
    if ((n == 2 && v < 0x80) || (n == 3 && v < 0x800) || (n == 4 && v < 0x10000) ||
        v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return n;
}

size_t kvp__escape_controls(const char *in, size_t in_len, char *out, size_t out_size,
                            unsigned flags, size_t *consumed) {
    const unsigned char *p = (const unsigned char *)in;
    size_t i = 0, o = 0;
    while (i < in_len) {
        char esc[8];
        size_t take = 1, elen = 0;
        unsigned char c = p[i];
        if (c == '\n' && (flags & KVP__ESC_KEEP_NEWLINES)) {
            esc[0] = '\n';
            elen = 1;
        } else if (c == '\t' && (flags & KVP__ESC_KEEP_NEWLINES)) {
            esc[0] = '\t';
            elen = 1;
        } else if (c == '\n' || c == '\r' || c == '\t') {
            esc[0] = '\\';
            esc[1] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
            elen = 2;
        } else if (c < 0x20) {
            elen = (size_t)snprintf(esc, sizeof esc, "\\x%02x", c);
        } else if (c == 0x7f) {
            /* DEL and C1 as \u: a valid escape inside JSON strings too (JSON allows
             * both raw, and the stdout filter sees --json output). */
            elen = (size_t)snprintf(esc, sizeof esc, "\\u%04x", c);
        } else if (c < 0x80) {
            esc[0] = (char)c;
            elen = 1;
        } else {
            uint32_t cp = 0;
            int n = utf8_seq(p + i, in_len - i, &cp);
            if (n < 0 && (flags & KVP__ESC_PARTIAL)) break; /* the rest comes next call */
            if (n > 0 && cp >= 0x80 && cp <= 0x9F) {
                take = (size_t)n;
                elen = (size_t)snprintf(esc, sizeof esc, "\\u%04x", (unsigned)cp);
            } else if (n > 0) {
                take = (size_t)n;
                memcpy(esc, p + i, take);
                elen = take;
            } else {
                /* Not UTF-8: a lone byte, which an 8-bit terminal may read as C1. */
                elen = (size_t)snprintf(esc, sizeof esc, "\\x%02x", c);
            }
        }
        if (o + elen + 1 > out_size) break; /* never cut an escape in half */
        memcpy(out + o, esc, elen);
        o += elen;
        i += take;
    }
    if (out_size) out[o] = '\0';
    if (consumed) *consumed = i;
    return o;
}

const char *kvp__escape_str(const char *s, char *out, size_t out_size) {
    if (!out_size) return "";
    kvp__escape_controls(s ? s : "", s ? strlen(s) : 0, out, out_size, 0, NULL);
    return out;
}
