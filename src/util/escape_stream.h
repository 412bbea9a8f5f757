/* escape_stream.h — a stream that escapes what a terminal would act on
 * (kvp__escape_controls with KVP__ESC_KEEP_NEWLINES: the layout's newlines and
 * tabs kept) and hands the result to `write`. Printable ASCII and whole UTF-8
 * text go through uncopied; a sequence cut by the end of a piece waits for the
 * next. The library writes nothing itself: `write` is the caller's. */
#ifndef KVP_ESCAPE_STREAM_H
#define KVP_ESCAPE_STREAM_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

typedef struct kvp__escape_stream {
    int (*write)(void *ctx, const char *p, size_t n); /* 0, or -1 on a write error */
    void *ctx;
    char tail[4];    /* a UTF-8 sequence cut by the previous piece */
    size_t tail_len;
} kvp__escape_stream;

/* Escape and write `size` bytes of `buf`. 0, or -1 when `write` failed. */
int kvp__escape_stream_write(kvp__escape_stream *s, const char *buf, size_t size);
/* Flush a sequence still cut (as escaped bytes). 0, or -1 when `write` failed. */
int kvp__escape_stream_close(kvp__escape_stream *s);

#endif
