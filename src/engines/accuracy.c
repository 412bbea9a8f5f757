/* accuracy.c — each engine's record against real start-up logs: the line
 * scripts/accuracy.py writes into data/accuracy.json (embedded) from the
 * reference cases, "vLLM: 3 of 3 real start-up figures within the log's
 * rounding" (docs/accuracy.md has the figures). Read once, for every thread. */
#include <jansson.h>
#include <pthread.h>
#include <string.h>

#include "accuracy.h"
#include "embedded.h"
#include "util.h"

static char g_lines[KVP_ENGINE_COUNT][256];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void load(void) {
    const kvp__embedded_file *f = kvp__embedded_find("accuracy.json");
    if (!f) return;
    json_t *root = json_loadb(f->data, f->size, JSON_REJECT_DUPLICATES, NULL);
    json_t *engines = json_object_get(root, "engines");
    for (int e = 0; e < KVP_ENGINE_COUNT; e++) {
        json_t *line = json_object_get(json_object_get(engines, kvp_engine_name((kvp_engine)e)),
                                       "line");
        if (json_is_string(line)) kvp__strlcpy(g_lines[e], json_string_value(line), sizeof g_lines[e]);
    }
    json_decref(root);
}

const char *kvp__engine_accuracy_line(kvp_engine engine) {
    pthread_once(&g_once, load);
    if ((int)engine < 0 || engine >= KVP_ENGINE_COUNT) return "";
    return g_lines[engine];
}
