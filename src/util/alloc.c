/* alloc.c — every allocation of a handle goes through its kvp_allocator (yyjson_alc style). */
#include <stdlib.h>
#include <string.h>

#include "util.h"

void *kvp__malloc(const kvp_allocator *alc, size_t size) {
    if (size == 0) size = 1;
    if (alc && alc->malloc_fn) return alc->malloc_fn(alc->ctx, size);
    return malloc(size);
}

void *kvp__calloc(const kvp_allocator *alc, size_t count, size_t size) {
    size_t total;
    if (__builtin_mul_overflow(count, size, &total)) return NULL;
    void *p = kvp__malloc(alc, total);
    if (p) memset(p, 0, total == 0 ? 1 : total);
    return p;
}

void *kvp__realloc(const kvp_allocator *alc, void *ptr, size_t size) {
    if (size == 0) size = 1;
    if (alc && alc->realloc_fn) return alc->realloc_fn(alc->ctx, ptr, size);
    return realloc(ptr, size);
}

void kvp__free(const kvp_allocator *alc, void *ptr) {
    if (!ptr) return;
    if (alc && alc->free_fn) {
        alc->free_fn(alc->ctx, ptr);
        return;
    }
    free(ptr);
}

char *kvp__strdup(const kvp_allocator *alc, const char *s) {
    size_t n = strlen(s) + 1;
    char *d = kvp__malloc(alc, n);
    if (d) memcpy(d, s, n);
    return d;
}
