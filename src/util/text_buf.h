/* text_buf.h — a growable NUL-terminated text for the rooms below the report
 * (which owns kvp_report_text): appends after an allocation failure are no-ops
 * and `failed` stays set, so a writer appends many pieces and checks once.
 * `data` is kvp__realloc(NULL, ...) memory: free it with kvp__free(NULL, ...)
 * or free(). Zero-initialised is empty. */
#ifndef KVP_TEXT_BUF_H
#define KVP_TEXT_BUF_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

/* util.h's kvp__strbuf under the name the text writers use (libc memory). */
typedef kvp__strbuf kvp__text_buf;

static inline void kvp__text_put(kvp__text_buf *b, const char *s, size_t n) { kvp__strbuf_put(b, s, n); }
void kvp__text_puts(kvp__text_buf *b, const char *s);
void kvp__text_printf(kvp__text_buf *b, const char *fmt, ...) KVP_PRINTF(2, 3);

#endif
