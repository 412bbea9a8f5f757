/* strbuf.c — kvp__strbuf, the growing text of kvplan's JSON writers (util.h). */
#include <string.h>

#include "util.h"

void kvp__strbuf_grow_put(kvp__strbuf *b, const char *s, size_t n) {
    if (b->failed) return;
    if (n >= SIZE_MAX / 2 - b->len) {
        b->failed = true;
        return;
    }
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        while (cap < b->len + n + 1) cap *= 2; /* doubling: linear in the text */
        char *p = kvp__realloc(b->alc, b->data, cap);
        if (!p) {
            b->failed = true;
            return;
        }
        b->data = p;
        b->cap = cap;
    }
    if (n) memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}
