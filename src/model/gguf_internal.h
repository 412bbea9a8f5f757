/*
 * gguf_internal.h — GGUF metadata as the readers in src/model/gguf*.c share it
 * (kvp__ tier). gguf.c fills a kvp__gguf_meta from a file or buffer;
 * gguf_geometry.c fills one from a small JSON of GGUF-style names; and
 * gguf_arch.c turns either into a kvp_model with llama.cpp's architecture rules.
 */
#ifndef KVP_GGUF_INTERNAL_H
#define KVP_GGUF_INTERNAL_H

#include "model_internal.h"

/* GGUF value types (gguf.h enum gguf_type). */
enum {
    KVP__GGUF_UINT8 = 0, KVP__GGUF_INT8 = 1, KVP__GGUF_UINT16 = 2, KVP__GGUF_INT16 = 3,
    KVP__GGUF_UINT32 = 4, KVP__GGUF_INT32 = 5, KVP__GGUF_FLOAT32 = 6, KVP__GGUF_BOOL = 7,
    KVP__GGUF_STRING = 8, KVP__GGUF_ARRAY = 9, KVP__GGUF_UINT64 = 10, KVP__GGUF_INT64 = 11,
    KVP__GGUF_FLOAT64 = 12, KVP__GGUF_TYPE_COUNT = 13
};

/* Per-layer arrays longer than this are counted but not kept (vocabularies). */
#define KVP__GGUF_MAX_KEPT_ARRAY 65536u

typedef struct kvp__gguf_kv {
    char *key;
    uint32_t type;       /* KVP__GGUF_*; ARRAY for arrays */
    uint32_t elem_type;  /* arrays: element type */
    bool is_int;         /* integer or bool scalar/elements */
    int64_t ival;        /* integer / bool scalar */
    double fval;         /* float scalar (also set for integers) */
    char *str;           /* string scalar (NULL when not kept) */
    uint64_t count;      /* arrays: element count */
    double *values;      /* arrays of numbers/bools: kept elements (NULL if not kept) */
} kvp__gguf_kv;

typedef struct kvp__gguf_meta {
    const kvp_allocator *alc;
    const char *name;    /* file name for messages */
    uint32_t version;
    uint64_t tensor_count;
    uint64_t weight_bytes; /* sum of tensor data sizes */
    kvp__gguf_kv *kvs;
    size_t count, cap;
} kvp__gguf_meta;

void kvp__gguf_meta_init(kvp__gguf_meta *m, const kvp_allocator *alc, const char *name);
void kvp__gguf_meta_free(kvp__gguf_meta *m);
/* Append an entry (takes ownership of key/str/values allocated with m->alc). */
kvp_status kvp__gguf_meta_add(kvp__gguf_meta *m, kvp__gguf_kv *kv, kvp_error *err);
const kvp__gguf_kv *kvp__gguf_find(const kvp__gguf_meta *m, const char *key);

/* Parse GGUF bytes (header, metadata, tensor infos) from memory. */
kvp_status kvp__gguf_parse_memory(const uint8_t *data, size_t size, kvp__gguf_meta *m,
                                  kvp_error *err);

/* Build a model from metadata with llama.cpp's rules (src/llama-model.cpp load_hparams). */
kvp_status kvp__gguf_build_model(const kvp__gguf_meta *m, const kvp_allocator *alc,
                                 kvp_model **out, kvp_error *err);

#endif
