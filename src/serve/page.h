/* page.h — the page's files (src/serve/page/), compiled in by
 * cmake/embed.cmake (SYMBOL kvp__page). */
#ifndef KVP_SERVE_PAGE_H
#define KVP_SERVE_PAGE_H
#include "embedded.h"

extern const kvp__embedded_file kvp__page_files[]; /* NULL-path terminated */
extern const size_t kvp__page_count;

/* The page file `name` ("index.html"), or NULL. */
const kvp__embedded_file *kvp__page_find(const char *name);
#endif
