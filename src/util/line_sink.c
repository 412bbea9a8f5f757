/* line_sink.c — one formatted line into a kvp__line_sink (line_sink.h). */
#include "line_sink.h"

#include <stdarg.h>
#include <stdio.h>

void kvp__sink_line(const kvp__line_sink *sink, const char *fmt, ...) {
    if (!sink || !sink->line) return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    sink->line(sink->ctx, buf);
}
