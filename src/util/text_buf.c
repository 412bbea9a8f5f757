/* text_buf.c — a growable text (text_buf.h). */
#include "text_buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void kvp__text_puts(kvp__text_buf *b, const char *s) { kvp__text_put(b, s, strlen(s)); }

void kvp__text_printf(kvp__text_buf *b, const char *fmt, ...) {
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *line = n >= 0 ? kvp__malloc(NULL, (size_t)n + 1) : NULL;
    if (line) {
        vsnprintf(line, (size_t)n + 1, fmt, again);
        kvp__text_put(b, line, (size_t)n);
    } else {
        b->failed = true;
    }
    va_end(again);
    kvp__free(NULL, line);
}
