/*
 * engines.c — the engine table (issue 27 item 1): names, titles and each
 * engine's record, generated from the one list (kvplan/engines.def).
 */
#include <string.h>

#include "engine_ops.h"
#include "util.h"

static const char *const k_names[KVP_ENGINE_COUNT] = {
#define KVP_ENGINE_X(id, name, title) [KVP_ENGINE_##id] = #name,
#include "kvplan/engines.def"
};

static const char *const k_titles[KVP_ENGINE_COUNT] = {
#define KVP_ENGINE_X(id, name, title) [KVP_ENGINE_##id] = title,
#include "kvplan/engines.def"
};

static const kvp__engine_ops *const k_ops[KVP_ENGINE_COUNT] = {
#define KVP_ENGINE_X(id, name, title) [KVP_ENGINE_##id] = &kvp__engine_##name,
#include "kvplan/engines.def"
};

const kvp__engine_ops *kvp__engine_ops_of(kvp_engine engine) {
    return (unsigned)engine < KVP_ENGINE_COUNT ? k_ops[engine] : NULL;
}

const char *kvp_engine_name(kvp_engine engine) {
    return (unsigned)engine < KVP_ENGINE_COUNT ? k_names[engine] : "unknown";
}

const char *kvp__engine_title(kvp_engine engine) {
    return (unsigned)engine < KVP_ENGINE_COUNT ? k_titles[engine] : "?";
}

/* The list's name, else one of the record's other spellings, case-insensitive. */
kvp_status kvp_engine_parse(const char *name, kvp_engine *out) {
    if (!name) return KVP_INVALID_ARG;
    for (int e = 0; e < KVP_ENGINE_COUNT; e++) {
        bool hit = kvp__strcasecmp(name, k_names[e]) == 0;
        for (const char *const *a = k_ops[e]->aliases; !hit && a && *a; a++)
            hit = kvp__strcasecmp(name, *a) == 0;
        if (hit) {
            *out = (kvp_engine)e;
            return KVP_OK;
        }
    }
    return KVP_INVALID_ARG;
}
