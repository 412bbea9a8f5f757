/* embedded.h — files of data/ compiled into the library (see cmake/embed.cmake). */
#ifndef KVP_EMBEDDED_H
#define KVP_EMBEDDED_H
#include <stddef.h>

typedef struct kvp__embedded_file {
    const char *path; /* relative to data/, e.g. "models/meta-llama__Llama-3.1-8B.json" */
    const char *data; /* NUL-terminated */
    size_t size;      /* bytes, without the terminating NUL */
} kvp__embedded_file;

extern const kvp__embedded_file kvp__embedded_files[]; /* NULL-path terminated */
extern const size_t kvp__embedded_count;

/* The file at `path` of a NULL-path terminated table, or NULL. */
const kvp__embedded_file *kvp__embedded_find_in(const kvp__embedded_file *table,
                                                const char *path);
/* The embedded file at `path` (data/), or NULL. */
const kvp__embedded_file *kvp__embedded_find(const char *path);
#endif
