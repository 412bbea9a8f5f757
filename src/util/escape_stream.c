/* escape_stream.c — text through the one control-character escaping
 * (kvp__escape_controls) as it is written, piece by piece, for a writer that
 * gets text in arbitrary cuts (a stdio buffer): a UTF-8 sequence cut at the end
 * of one piece is completed with the next (escape_stream.h). The CLI's stdout
 * is one (src/cli/out_escape.c). */
#include <string.h>

#include "escape_stream.h"

/* Bytes of the UTF-8 sequence kvp__escape_controls copies as it is at p (valid,
 * whole within len, not a C1 control U+0080..U+009F, which is C2 80..C2 9F);
 * 0 for anything else. */
static size_t plain_utf8(const unsigned char *p, size_t len) {
    size_t n = p[0] >= 0xF0 ? 4 : p[0] >= 0xE0 ? 3 : p[0] >= 0xC0 ? 2 : 0;
    if (n == 0 || n > len || !kvp__utf8_valid((const char *)p, n, NULL)) return 0;
    return p[0] == 0xC2 && p[1] < 0xA0 ? 0 : n;
}

/* Bytes at the start of IN that kvp__escape_controls with KVP__ESC_KEEP_NEWLINES
 * copies as they are: printable ASCII, newline, tab and whole UTF-8 text (every
 * byte of nearly every --json document and text row). They are written
 * without the copy; the escaping starts at the first byte it would change (or
 * a sequence cut by the end, which it keeps for the next write). */
static size_t plain_prefix(const char *in, size_t len) {
    const unsigned char *p = (const unsigned char *)in;
    size_t i = 0;
    while (i < len) {
        if ((p[i] >= 0x20 && p[i] < 0x7f) || p[i] == '\n' || p[i] == '\t') {
            i++;
        } else if (p[i] >= 0x80) {
            size_t n = plain_utf8(p + i, len - i);
            if (!n) break;
            i += n;
        } else {
            break;
        }
    }
    return i;
}

/* Escape IN (LEN bytes) and write it; FINAL flushes a cut sequence as escaped bytes. */
static int emit(kvp__escape_stream *s, const char *in, size_t len, bool final) {
    char out[4096 * 6 + 8];
    size_t i = 0;
    while (i < len) {
        size_t run = plain_prefix(in + i, len - i);
        if (run) {
            if (s->write(s->ctx, in + i, run) != 0) return -1;
            i += run;
            continue;
        }
        size_t used = 0;
        size_t piece = len - i > 4096 ? 4096 : len - i;
        bool last_piece = i + piece == len;
        unsigned flags = KVP__ESC_KEEP_NEWLINES | (last_piece && final ? 0u : KVP__ESC_PARTIAL);
        size_t o = kvp__escape_controls(in + i, piece, out, sizeof out, flags, &used);
        if (s->write(s->ctx, out, o) != 0) return -1;
        if (used < piece && last_piece) {
            /* The cut sequence: kept for the next call (at most 3 bytes). */
            s->tail_len = piece - used;
            if (s->tail_len > sizeof s->tail) s->tail_len = sizeof s->tail;
            memcpy(s->tail, in + i + used, s->tail_len);
            return 0;
        }
        i += used;
    }
    return 0;
}

int kvp__escape_stream_write(kvp__escape_stream *s, const char *buf, size_t size) {
    size_t pos = 0;
    if (s->tail_len) {
        /* Complete the sequence cut at the previous call's end. */
        char joined[8], out[64];
        size_t n = s->tail_len, add = size < 4 ? size : 4, used = 0;
        memcpy(joined, s->tail, n);
        memcpy(joined + n, buf, add);
        size_t o = kvp__escape_controls(joined, n + add, out, sizeof out,
                                        KVP__ESC_KEEP_NEWLINES | KVP__ESC_PARTIAL, &used);
        if (used < n) {
            /* Still cut (nothing taken): n + add is shorter than the sequence, <= 3. */
            memcpy(s->tail, joined, n + add);
            s->tail_len = n + add;
            return 0;
        }
        s->tail_len = 0;
        if (s->write(s->ctx, out, o) != 0) return -1;
        pos = used - n;
    }
    return emit(s, buf + pos, size - pos, false);
}

int kvp__escape_stream_close(kvp__escape_stream *s) {
    int rc = 0;
    if (s->tail_len) {
        rc = emit(s, s->tail, s->tail_len, true);
        s->tail_len = 0;
    }
    return rc;
}

