/*
 * kvplan/types.h — the vocabulary every room shares: element types (dtype),
 * cache kinds, allocator hooks and, through kvplan/error.h, the status codes.
 *
 * It depends on nothing but error.h, so the model (which reads dtypes from a
 * config) and the cost model (which sizes them) both build on it without
 * including each other (docs/ARCHITECTURE.md). model.h and cost.h include it:
 * code that included those keeps compiling. Implemented in src/util/types.c.
 */
#ifndef KVPLAN_TYPES_H
#define KVPLAN_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "kvplan/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Element types of caches and weights. AUTO means "follow the model". */
typedef enum kvp_dtype {
    KVP_DTYPE_AUTO = 0,
    KVP_DTYPE_FP32,
    KVP_DTYPE_FP16,
    KVP_DTYPE_BF16,
    KVP_DTYPE_FP8,   /* e4m3 / e5m2: one byte */
    KVP_DTYPE_INT8,
    KVP_DTYPE_NVFP4, /* 4-bit values + one fp8 scale byte per 16 elements */
    KVP_DTYPE_COUNT
} kvp_dtype;

/* Canonical name ("bf16", "fp8", ...); never NULL. */
KVP_API const char *kvp_dtype_name(kvp_dtype dtype);
/* Parse a dtype name: accepts kvplan names and HF/torch spellings
 * ("bfloat16", "float16", "half", "float32", "float", "fp8_e4m3", "e4m3",
 * "int8", "nvfp4", "fp4", "auto"). Returns KVP_INVALID_ARG when unknown. */
KVP_API KVP_NODISCARD kvp_status kvp_dtype_parse(const char *name, kvp_dtype *out);
/* Bytes taken by `elements` values of `dtype` (nvfp4: elements/2 rounded up
 * plus one scale byte per 16 elements rounded up). Fails with KVP_OVERFLOW or
 * KVP_INVALID_ARG for AUTO. */
KVP_API KVP_NODISCARD kvp_status kvp_dtype_bytes(kvp_dtype dtype, uint64_t elements, uint64_t *out_bytes);

/* What one decoder layer keeps per sequence (DESIGN.md "layer cache spec"). */
typedef enum kvp_cache_kind {
    KVP_CACHE_FULL = 0,  /* full attention: K and V for every token */
    KVP_CACHE_SLIDING,   /* sliding window of window_tokens tokens */
    KVP_CACHE_CHUNKED,   /* chunked local attention, chunk of window_tokens */
    KVP_CACHE_MLA,       /* multi-head latent attention: one K-only latent row */
    KVP_CACHE_RECURRENT, /* Mamba / Mamba2 / gated-delta-net: fixed state per sequence */
    KVP_CACHE_CROSS,     /* cross attention over window_tokens encoder positions */
    KVP_CACHE_INDEXER,   /* sparse-attention indexer keys (DeepSeek-V3.2, GLM-5) */
    KVP_CACHE_COMPRESSED, /* one compressed entry per tokens_per_entry tokens (DeepSeek-V4) */
    KVP_CACHE_KIND_COUNT
} kvp_cache_kind;

/* "full", "sliding", "chunked", "mla", "recurrent", "cross", "indexer", "compressed". */
KVP_API const char *kvp_cache_kind_name(kvp_cache_kind kind);

/* Allocator hooks (NULL = libc). Used for every allocation a handle makes. */
typedef struct kvp_allocator {
    void *(*malloc_fn)(void *ctx, size_t size);
    void *(*realloc_fn)(void *ctx, void *ptr, size_t size);
    void (*free_fn)(void *ctx, void *ptr);
    void *ctx;
} kvp_allocator;

#ifdef __cplusplus
}
#endif
#endif
