/*
 * model_internal.h — how readers build a kvp_model (kvp__ tier: shared by the
 * readers in src/model/ and any other reader, e.g. GGUF, never public).
 */
#ifndef KVP_MODEL_INTERNAL_H
#define KVP_MODEL_INTERNAL_H

#include "kvplan/model.h"
#include "kvplan/startup.h"
#include "util.h"

/* Hard bounds on what a config may declare; far above any real model. */
#define KVP_MAX_LAYERS 100000u
#define KVP_MAX_HEADS 65536u
#define KVP_MAX_HEAD_DIM 65536u

struct kvp_model {
    kvp_allocator alc; /* copy of the allocator the model was built with */
    bool has_alc;
    char *name;
    kvp_model_info info;
    kvp_layer_cache *caches;
    size_t cache_count, cache_cap;
    char *source_text; /* config.json text, NUL-terminated; NULL when none */
    size_t source_len;
    kvp_model_startup startup; /* start-up facts (hf_startup.c); zeros when not from a config */
};

/* New empty model named `name`; NULL on allocation failure. */
kvp_model *kvp__model_new(const kvp_allocator *alc, const char *name);
/* Append one layer cache record; KVP_NOMEM on failure. */
kvp_status kvp__model_add_cache(kvp_model *model, const kvp_layer_cache *cache, kvp_error *err);
/* Mutable info for readers. */
kvp_model_info *kvp__model_info(kvp_model *model);
/* The model's allocator (NULL = libc). */
const kvp_allocator *kvp__model_alc(const kvp_model *model);

#endif
