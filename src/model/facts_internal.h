/*
 * facts_internal.h — how src/model/facts*.c read a parsed config into
 * kvp_model_facts (kvp__ tier, src/model/ only).
 *
 * Every key a fact reads goes through fx_get(), the one place the Python
 * literal rule lives: a NaN / Infinity in a key kvplan reads is refused,
 * naming the key; keys kvplan never reads may hold them.
 */
#ifndef KVP_FACTS_INTERNAL_H
#define KVP_FACTS_INTERNAL_H

#include <jansson.h>

#include "model_internal.h"

typedef struct kvp__fx {
    const char *file;     /* name used in messages */
    json_t *root;         /* outer config; NULL for models without one (GGUF) */
    json_t *lm;           /* language model object (root or nested); NULL with root */
    char lm_ptr[128];     /* JSON pointer of lm ("" for the root) */
    const kvp_model_info *info;
    kvp_error *err;
    kvp_status st;        /* first error; later reads are no-ops once set */
} kvp__fx;

/* The value of `key` in `obj` (pointer `ptr` for messages), NULL when absent or
 * null. A Python NaN / Infinity literal there fails the read (c->st). */
json_t *kvp__fx_get(kvp__fx *c, json_t *obj, const char *ptr, const char *key);
/* kvp__fx_get on lm, then on the root when lm is nested. */
json_t *kvp__fx_lm(kvp__fx *c, const char *key);
/* Record the first error (printf-style); returns c->st. */
kvp_status kvp__fx_fail(kvp__fx *c, const char *ptr, const char *key, const char *fmt, ...)
    KVP_PRINTF(4, 5);
/* Integer value of v when it is a JSON integer, else 0 (lenient reads that
 * mirror Python's truthiness of a missing attribute). */
json_int_t kvp__fx_int(json_t *v);

/* The start-up facts (facts_startup.c): zeros for a model without a config. */
kvp_status kvp__facts_read_startup(kvp__fx *c, kvp_model_startup *st);

/* The weights facts (facts_weights.c). */
kvp_status kvp__facts_read_weights(kvp__fx *c, kvp_model *model, kvp_weight_facts *w,
                                   kvp_layer_ffn **out_layers);

#endif
