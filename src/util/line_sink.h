/* line_sink.h — where a room below the report writes lines of text it owns
 * (the engines' own start-up lines, engine_ops.h `startup_lines`) without
 * knowing the report's buffer or a FILE: a callback and its context. No room
 * below the CLI prints; the sink's owner decides where the line goes. */
#ifndef KVP_LINE_SINK_H
#define KVP_LINE_SINK_H

#include "util.h" /* KVP_PRINTF */

typedef struct kvp__line_sink {
    /* One line, without its newline; `text` is only valid during the call. */
    void (*line)(void *ctx, const char *text);
    void *ctx;
} kvp__line_sink;

/* printf-format one line (cut at 1023 bytes) and hand it to `sink`. */
void kvp__sink_line(const kvp__line_sink *sink, const char *fmt, ...) KVP_PRINTF(2, 3);

#endif
