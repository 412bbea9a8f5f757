/* gguf_writer.h — a tiny GGUF writer for the tests (header, metadata, tensor records). */
#ifndef KVP_TEST_GGUF_WRITER_H
#define KVP_TEST_GGUF_WRITER_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct gbuf {
    uint8_t *b;
    size_t n, cap;
} gbuf;

static void g_put(gbuf *g, const void *p, size_t n) {
    if (g->n + n > g->cap) {
        g->cap = (g->n + n) * 2 + 64;
        g->b = realloc(g->b, g->cap);
    }
    memcpy(g->b + g->n, p, n);
    g->n += n;
}
static void g_u32(gbuf *g, uint32_t v) {
    uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    g_put(g, x, 4);
}
static void g_u64(gbuf *g, uint64_t v) {
    uint8_t x[8];
    for (int i = 0; i < 8; i++) x[i] = (uint8_t)(v >> (8 * i));
    g_put(g, x, 8);
}
static void g_str(gbuf *g, const char *s) {
    g_u64(g, strlen(s));
    g_put(g, s, strlen(s));
}
/* Header: magic, version, tensor count, kv count. */
static void g_header(gbuf *g, uint32_t version, uint64_t n_tensors, uint64_t n_kv) {
    g_put(g, "GGUF", 4);
    g_u32(g, version);
    g_u64(g, n_tensors);
    g_u64(g, n_kv);
}
static void g_kv_u32(gbuf *g, const char *key, uint32_t v) {
    g_str(g, key);
    g_u32(g, 4);
    g_u32(g, v);
}
static void g_kv_str(gbuf *g, const char *key, const char *v) {
    g_str(g, key);
    g_u32(g, 8);
    g_str(g, v);
}
static void g_kv_arr_i32(gbuf *g, const char *key, const int32_t *v, uint64_t n) {
    g_str(g, key);
    g_u32(g, 9);
    g_u32(g, 5);
    g_u64(g, n);
    for (uint64_t i = 0; i < n; i++) g_u32(g, (uint32_t)v[i]);
}
static void g_kv_arr_str(gbuf *g, const char *key, const char *const *v, uint64_t n) {
    g_str(g, key);
    g_u32(g, 9);
    g_u32(g, 8);
    g_u64(g, n);
    for (uint64_t i = 0; i < n; i++) g_str(g, v[i]);
}
/* Tensor record: 2-D f32 tensor (type 0) of ne0 x ne1 at `offset`. */
static void g_tensor_f32(gbuf *g, const char *name, uint64_t ne0, uint64_t ne1, uint64_t offset) {
    g_str(g, name);
    g_u32(g, 2);
    g_u64(g, ne0);
    g_u64(g, ne1);
    g_u32(g, 0);
    g_u64(g, offset);
}
/* Pad to 32 bytes and append `n` zero bytes of tensor data. */
static void g_data(gbuf *g, size_t n) {
    static const uint8_t z[64] = {0};
    while (g->n % 32) g_put(g, z, 1);
    while (n) {
        size_t k = n < sizeof z ? n : sizeof z;
        g_put(g, z, k);
        n -= k;
    }
}
#endif
