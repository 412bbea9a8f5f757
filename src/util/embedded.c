/* embedded.c — lookup in the table generated from data/. */
#include <string.h>

#include "embedded.h"
#include "util.h"

const kvp__embedded_file *kvp__embedded_find(const char *path) {
    for (size_t i = 0; i < kvp__embedded_count; i++)
        if (strcmp(kvp__embedded_files[i].path, path) == 0) return &kvp__embedded_files[i];
    return NULL;
}
