/* spare.c — one block kept per thread and per use (spare.h). */
#include <pthread.h>
#include <stdlib.h>

#include "spare.h"
#include "util.h"

typedef struct {
    void *block[KVP__SPARE_COUNT];
    void (*release[KVP__SPARE_COUNT])(void *);
} spares;

static pthread_key_t g_key;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static bool g_key_ok;

/* At the thread's end: every block it kept, then the set. */
static void spares_free(void *p) {
    spares *s = p;
    for (size_t i = 0; i < KVP__SPARE_COUNT; i++)
        if (s->block[i]) (s->release[i] ? s->release[i] : free)(s->block[i]);
    free(s);
}

static void key_make(void) { g_key_ok = pthread_key_create(&g_key, spares_free) == 0; }

/* This thread's set; created when `make` (NULL when out of memory or no key). */
static spares *mine(bool make) {
    pthread_once(&g_once, key_make);
    if (!g_key_ok) return NULL;
    spares *s = pthread_getspecific(g_key);
    if (s || !make) return s;
    if (!(s = calloc(1, sizeof *s))) return NULL;
    if (pthread_setspecific(g_key, s) != 0) {
        free(s);
        return NULL;
    }
    return s;
}

void *kvp__spare_take(kvp__spare_use use) {
    spares *s = (unsigned)use < KVP__SPARE_COUNT ? mine(false) : NULL;
    if (!s) return NULL;
    void *b = s->block[use];
    s->block[use] = NULL;
    return b;
}

bool kvp__spare_keep(kvp__spare_use use, void *block, void (*release)(void *)) {
    if (!block || (unsigned)use >= KVP__SPARE_COUNT) return false;
    spares *s = mine(true);
    if (!s || s->block[use]) return false;
    s->block[use] = block;
    s->release[use] = release;
    return true;
}
