/*
 * gguf.c — reads the header, metadata and tensor table of a GGUF v2/v3 file
 * (never the tensor data) into kvp__gguf_meta, then into a kvp_model.
 *
 * Byte layout (little-endian):
 *   char     magic[4]        "GGUF"
 *   uint32   version         2 or 3 (1 had 32-bit counts: rejected)
 *   uint64   tensor_count
 *   uint64   kv_count
 *   kv_count x { string key; uint32 type; value }
 *       string = uint64 length + bytes (no NUL)
 *       value  = scalar of the type | string | array { uint32 type; uint64 n; n values }
 *   tensor_count x { string name; uint32 n_dims (<= 4); uint64 ne[n_dims];
 *                    uint32 ggml_type; uint64 offset (from the aligned data start) }
 *   padding to general.alignment (default 32), then tensor data.
 *
 * Every length and count is checked against the bytes left in the file before
 * anything is allocated (STYLE.md "untrusted counts are bounded").
 */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "gguf_internal.h"

#define GGUF_MAX_DIMS 4
#define GGUF_MAX_KV 1000000u
#define GGUF_MAX_KEY 65535u
#define GGUF_MAX_KEPT_STRING 65536u

typedef struct reader {
    const uint8_t *mem; /* memory source, or NULL */
    FILE *f;            /* file source */
    uint64_t size, pos;
    const char *name;
    kvp_error *err;
} reader;

static uint64_t left(const reader *r) { return r->size - r->pos; }

static kvp_status truncated(reader *r, const char *what, uint64_t need) {
    return kvp__fail(r->err, KVP_SYNTAX, r->name, what,
                     "truncated GGUF: %s needs %llu bytes at offset %llu but %llu remain", what,
                     (unsigned long long)need, (unsigned long long)r->pos,
                     (unsigned long long)left(r));
}

static kvp_status rd(reader *r, void *dst, uint64_t n, const char *what) {
    if (n > left(r)) return truncated(r, what, n);
    if (r->mem) {
        memcpy(dst, r->mem + r->pos, (size_t)n);
    } else if (fread(dst, 1, (size_t)n, r->f) != n) {
        return kvp__fail(r->err, KVP_IO, r->name, what, "read error at offset %llu",
                         (unsigned long long)r->pos);
    }
    r->pos += n;
    return KVP_OK;
}

static kvp_status skip(reader *r, uint64_t n, const char *what) {
    if (n > left(r)) return truncated(r, what, n);
    if (!r->mem && fseeko(r->f, (off_t)n, SEEK_CUR) != 0)
        return kvp__fail(r->err, KVP_IO, r->name, what, "seek error at offset %llu",
                         (unsigned long long)r->pos);
    r->pos += n;
    return KVP_OK;
}

static kvp_status rd_u32(reader *r, uint32_t *v, const char *what) {
    uint8_t b[4];
    kvp_status st = rd(r, b, 4, what);
    if (st) return st;
    *v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    return KVP_OK;
}

static kvp_status rd_u64(reader *r, uint64_t *v, const char *what) {
    uint8_t b[8];
    kvp_status st = rd(r, b, 8, what);
    if (st) return st;
    uint64_t x = 0;
    for (int i = 7; i >= 0; i--) x = x << 8 | b[i];
    *v = x;
    return KVP_OK;
}

/* A string; *out is NULL (skipped) when longer than keep_max. */
static kvp_status rd_string(reader *r, const kvp_allocator *alc, uint64_t keep_max, char **out,
                            const char *what) {
    uint64_t len;
    *out = NULL;
    kvp_status st = rd_u64(r, &len, what);
    if (st) return st;
    if (len > left(r))
        return kvp__fail(r->err, KVP_SYNTAX, r->name, what,
                         "string length %llu at offset %llu runs past the end of the file "
                         "(%llu bytes remain)",
                         (unsigned long long)len, (unsigned long long)(r->pos - 8),
                         (unsigned long long)left(r));
    if (len > keep_max) return skip(r, len, what);
    char *s = kvp__malloc(alc, (size_t)len + 1);
    if (!s) return kvp__fail(r->err, KVP_NOMEM, r->name, what, "out of memory");
    st = rd(r, s, len, what);
    if (st) {
        kvp__free(alc, s);
        return st;
    }
    s[len] = '\0';
    /* ggml keeps a string by its length; read as C strings a NUL would end the
     * key or value early and "general.architecture\0x" would pass as the real key. */
    const char *nul = memchr(s, '\0', (size_t)len);
    if (nul) {
        st = kvp__fail(r->err, KVP_SYNTAX, r->name, what,
                       "string \"%s\" at offset %llu holds a NUL byte at index %llu of its %llu",
                       s, (unsigned long long)(r->pos - len - 8), (unsigned long long)(nul - s),
                       (unsigned long long)len);
        kvp__free(alc, s);
        return st;
    }
    *out = s;
    return KVP_OK;
}

static const uint8_t k_scalar_size[KVP__GGUF_TYPE_COUNT] = {
    [KVP__GGUF_UINT8] = 1, [KVP__GGUF_INT8] = 1,    [KVP__GGUF_UINT16] = 2,
    [KVP__GGUF_INT16] = 2, [KVP__GGUF_UINT32] = 4,  [KVP__GGUF_INT32] = 4,
    [KVP__GGUF_FLOAT32] = 4, [KVP__GGUF_BOOL] = 1,  [KVP__GGUF_UINT64] = 8,
    [KVP__GGUF_INT64] = 8, [KVP__GGUF_FLOAT64] = 8,
};

static kvp_status rd_scalar(reader *r, uint32_t type, int64_t *iv, double *fv, bool *is_int,
                            const char *key) {
    uint8_t b[8] = {0};
    kvp_status st = rd(r, b, k_scalar_size[type], key);
    if (st) return st;
    uint64_t u = 0;
    for (int i = k_scalar_size[type] - 1; i >= 0; i--) u = u << 8 | b[i];
    *is_int = true;
    switch (type) {
    case KVP__GGUF_UINT8: case KVP__GGUF_UINT16: case KVP__GGUF_UINT32: case KVP__GGUF_BOOL:
        *iv = (int64_t)u;
        break;
    case KVP__GGUF_INT8: *iv = (int8_t)(uint8_t)u; break;
    case KVP__GGUF_INT16: *iv = (int16_t)(uint16_t)u; break;
    case KVP__GGUF_INT32: *iv = (int32_t)(uint32_t)u; break;
    case KVP__GGUF_UINT64:
        if (u > (uint64_t)INT64_MAX)
            return kvp__fail(r->err, KVP_CONFIG, r->name, key, "uint64 value %llu is too large",
                             (unsigned long long)u);
        *iv = (int64_t)u;
        break;
    case KVP__GGUF_INT64: memcpy(iv, &u, 8); break;
    case KVP__GGUF_FLOAT32: {
        uint32_t w = (uint32_t)u;
        float f;
        memcpy(&f, &w, 4);
        *fv = f;
        *is_int = false;
        return KVP_OK;
    }
    default: { /* FLOAT64 */
        double d;
        memcpy(&d, &u, 8);
        *fv = d;
        *is_int = false;
        return KVP_OK;
    }
    }
    *fv = (double)*iv;
    return KVP_OK;
}

void kvp__gguf_meta_init(kvp__gguf_meta *m, const kvp_allocator *alc, const char *name) {
    memset(m, 0, sizeof *m);
    m->alc = alc;
    m->name = name ? name : "";
}

void kvp__gguf_meta_free(kvp__gguf_meta *m) {
    if (!m) return;
    for (size_t i = 0; i < m->count; i++) {
        kvp__free(m->alc, m->kvs[i].key);
        kvp__free(m->alc, m->kvs[i].str);
        kvp__free(m->alc, m->kvs[i].values);
    }
    kvp__free(m->alc, m->kvs);
    m->kvs = NULL;
    m->count = m->cap = 0;
}

kvp_status kvp__gguf_meta_add(kvp__gguf_meta *m, kvp__gguf_kv *kv, kvp_error *err) {
    if (m->count == m->cap) {
        size_t ncap = m->cap ? m->cap * 2 : 32;
        kvp__gguf_kv *n = kvp__realloc(m->alc, m->kvs, ncap * sizeof *n);
        if (!n) {
            kvp__free(m->alc, kv->key);
            kvp__free(m->alc, kv->str);
            kvp__free(m->alc, kv->values);
            return kvp__fail(err, KVP_NOMEM, m->name, NULL, "out of memory");
        }
        m->kvs = n;
        m->cap = ncap;
    }
    m->kvs[m->count++] = *kv;
    return KVP_OK;
}

static int cmp_key(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* ggml refuses a file whose metadata names a key twice (which value would win is
 * undefined); sorting the keys finds a repeat in n log n, whatever the count. */
static kvp_status check_duplicate_keys(const kvp__gguf_meta *m, kvp_error *err) {
    if (m->count < 2) return KVP_OK;
    const char **keys = kvp__calloc(m->alc, m->count, sizeof *keys);
    if (!keys) return kvp__fail(err, KVP_NOMEM, m->name, NULL, "out of memory");
    for (size_t i = 0; i < m->count; i++) keys[i] = m->kvs[i].key;
    qsort(keys, m->count, sizeof *keys, cmp_key);
    kvp_status st = KVP_OK;
    for (size_t i = 1; i < m->count; i++)
        if (strcmp(keys[i - 1], keys[i]) == 0) {
            st = kvp__fail(err, KVP_SYNTAX, m->name, keys[i], "key appears twice in the metadata");
            break;
        }
    kvp__free(m->alc, keys);
    return st;
}

const kvp__gguf_kv *kvp__gguf_find(const kvp__gguf_meta *m, const char *key) {
    for (size_t i = m->count; i-- > 0;)
        if (strcmp(m->kvs[i].key, key) == 0) return &m->kvs[i];
    return NULL;
}

static kvp_status rd_kv(reader *r, kvp__gguf_meta *m, uint64_t index) {
    kvp__gguf_kv kv;
    memset(&kv, 0, sizeof kv);
    char what[64];
    snprintf(what, sizeof what, "metadata key #%llu", (unsigned long long)index);
    kvp_status st = rd_string(r, m->alc, GGUF_MAX_KEY, &kv.key, what);
    if (st) return st;
    if (!kv.key)
        return kvp__fail(r->err, KVP_SYNTAX, r->name, what, "key longer than %u bytes",
                         GGUF_MAX_KEY);
    if (!kv.key[0]) {
        kvp__free(m->alc, kv.key);
        return kvp__fail(r->err, KVP_SYNTAX, r->name, what, "key of length 0 at offset %llu",
                         (unsigned long long)(r->pos - 8));
    }
    const char *key = kv.key;
    st = rd_u32(r, &kv.type, key);
    if (st) goto fail;
    if (kv.type >= KVP__GGUF_TYPE_COUNT) {
        st = kvp__fail(r->err, KVP_SYNTAX, r->name, key,
                       "unknown value type %u at offset %llu (expected 0..12)", kv.type,
                       (unsigned long long)(r->pos - 4));
        goto fail;
    }
    if (kv.type == KVP__GGUF_STRING) {
        st = rd_string(r, m->alc, GGUF_MAX_KEPT_STRING, &kv.str, key);
    } else if (kv.type == KVP__GGUF_ARRAY) {
        st = rd_u32(r, &kv.elem_type, key);
        if (!st) st = rd_u64(r, &kv.count, key);
        if (st) goto fail;
        if (kv.elem_type >= KVP__GGUF_TYPE_COUNT || kv.elem_type == KVP__GGUF_ARRAY) {
            st = kvp__fail(r->err, KVP_SYNTAX, r->name, key,
                           "unknown array element type %u (expected 0..12, no nested arrays)",
                           kv.elem_type);
            goto fail;
        }
        uint64_t min_elem = kv.elem_type == KVP__GGUF_STRING ? 8 : k_scalar_size[kv.elem_type];
        if (kv.count > left(r) / min_elem) {
            st = kvp__fail(r->err, KVP_SYNTAX, r->name, key,
                           "array of %llu elements cannot fit in the %llu bytes left of the file",
                           (unsigned long long)kv.count, (unsigned long long)left(r));
            goto fail;
        }
        if (kv.elem_type == KVP__GGUF_STRING) {
            for (uint64_t i = 0; i < kv.count && !st; i++) {
                char *s;
                st = rd_string(r, m->alc, 0, &s, key);
                kvp__free(m->alc, s);
            }
        } else if (kv.count > KVP__GGUF_MAX_KEPT_ARRAY) {
            st = skip(r, kv.count * min_elem, key);
        } else {
            kv.values = kvp__calloc(m->alc, kv.count ? (size_t)kv.count : 1, sizeof *kv.values);
            if (!kv.values) {
                st = kvp__fail(r->err, KVP_NOMEM, r->name, key, "out of memory");
                goto fail;
            }
            kv.is_int = true;
            for (uint64_t i = 0; i < kv.count && !st; i++) {
                int64_t iv = 0;
                double fv = 0;
                bool is_int;
                st = rd_scalar(r, kv.elem_type, &iv, &fv, &is_int, key);
                kv.values[i] = fv;
                if (!is_int) kv.is_int = false;
            }
        }
    } else {
        st = rd_scalar(r, kv.type, &kv.ival, &kv.fval, &kv.is_int, key);
    }
    if (st) goto fail;
    return kvp__gguf_meta_add(m, &kv, r->err);
fail:
    kvp__free(m->alc, kv.key);
    kvp__free(m->alc, kv.str);
    kvp__free(m->alc, kv.values);
    return st;
}

/* ggml tensor types: elements per block and bytes per block; 0 = removed / unknown. */
static const struct {
    uint16_t blck, size;
} k_ggml_types[] = {
    [0] = {1, 4},     [1] = {1, 2},     [2] = {32, 18},   [3] = {32, 20},   [6] = {32, 22},
    [7] = {32, 24},   [8] = {32, 34},   [9] = {32, 36},   [10] = {256, 84}, [11] = {256, 110},
    [12] = {256, 144}, [13] = {256, 176}, [14] = {256, 210}, [15] = {256, 292}, [16] = {256, 66},
    [17] = {256, 74}, [18] = {256, 98}, [19] = {256, 50}, [20] = {32, 18},  [21] = {256, 110},
    [22] = {256, 82}, [23] = {256, 136}, [24] = {1, 1},   [25] = {1, 2},    [26] = {1, 4},
    [27] = {1, 8},    [28] = {1, 8},    [29] = {256, 56}, [30] = {1, 2},    [34] = {256, 54},
    [35] = {256, 66}, [39] = {32, 17},
};

static kvp_status rd_tensor(reader *r, kvp__gguf_meta *m, uint64_t index, uint64_t *max_end) {
    char what[64];
    snprintf(what, sizeof what, "tensor #%llu", (unsigned long long)index);
    char *name = NULL;
    kvp_status st = rd_string(r, m->alc, 0, &name, what);
    kvp__free(m->alc, name);
    if (st) return st;
    uint32_t n_dims, type;
    st = rd_u32(r, &n_dims, what);
    if (st) return st;
    if (n_dims == 0 || n_dims > GGUF_MAX_DIMS)
        return kvp__fail(r->err, KVP_SYNTAX, r->name, what, "%u dimensions, expected 1..%d",
                         n_dims, GGUF_MAX_DIMS);
    uint64_t ne[GGUF_MAX_DIMS], elems = 1;
    for (uint32_t d = 0; d < n_dims; d++) {
        st = rd_u64(r, &ne[d], what);
        if (st) return st;
        if (ne[d] > (uint64_t)INT64_MAX || !kvp__mul_u64(elems, ne[d], &elems) ||
            elems > (uint64_t)INT64_MAX)
            return kvp__fail(r->err, KVP_SYNTAX, r->name, what,
                             "dimension %u (%llu) makes the element count overflow", d,
                             (unsigned long long)ne[d]);
    }
    uint64_t offset;
    if ((st = rd_u32(r, &type, what)) || (st = rd_u64(r, &offset, what))) return st;
    if (type >= sizeof k_ggml_types / sizeof k_ggml_types[0] || k_ggml_types[type].blck == 0)
        return kvp__fail(r->err, KVP_SYNTAX, r->name, what, "unknown ggml tensor type %u", type);
    if (ne[0] % k_ggml_types[type].blck != 0)
        return kvp__fail(r->err, KVP_SYNTAX, r->name, what,
                         "row of %llu elements is not a multiple of the type's block of %u",
                         (unsigned long long)ne[0], k_ggml_types[type].blck);
    uint64_t bytes = elems / k_ggml_types[type].blck * k_ggml_types[type].size, end;
    if (!kvp__add_u64(m->weight_bytes, bytes, &m->weight_bytes) ||
        !kvp__add_u64(offset, bytes, &end))
        return kvp__fail(r->err, KVP_SYNTAX, r->name, what, "tensor bytes overflow");
    if (end > *max_end) *max_end = end;
    return KVP_OK;
}

static kvp_status parse(reader *r, kvp__gguf_meta *m) {
    uint8_t magic[4];
    kvp_status st = rd(r, magic, 4, "magic");
    if (st) return st;
    if (memcmp(magic, "GGUF", 4) != 0)
        return kvp__fail(r->err, KVP_SYNTAX, r->name, "magic",
                         "not a GGUF file: magic %02x %02x %02x %02x, expected \"GGUF\"", magic[0],
                         magic[1], magic[2], magic[3]);
    uint32_t version;
    if ((st = rd_u32(r, &version, "version"))) return st;
    if (version != 2 && version != 3) {
        if ((version & 0xffff) == 0 && (version >> 24) >= 2 && (version >> 24) <= 3)
            return kvp__fail(r->err, KVP_UNSUPPORTED, r->name, "version",
                             "big-endian GGUF (version %u byte-swapped) is not supported",
                             version >> 24);
        return kvp__fail(r->err, KVP_UNSUPPORTED, r->name, "version",
                         "GGUF version %u, expected 2 or 3", version);
    }
    m->version = version;
    uint64_t n_tensors, n_kv;
    if ((st = rd_u64(r, &n_tensors, "tensor_count")) || (st = rd_u64(r, &n_kv, "kv_count")))
        return st;
    /* Smallest metadata entry: 8-byte key length + 1 byte + 4-byte type + 1 byte value. */
    if (n_kv > GGUF_MAX_KV || n_kv > left(r) / 14)
        return kvp__fail(r->err, KVP_SYNTAX, r->name, "kv_count",
                         "%llu metadata entries cannot fit in the %llu bytes left",
                         (unsigned long long)n_kv, (unsigned long long)left(r));
    /* Smallest tensor record: name length 8 + n_dims 4 + one dim 8 + type 4 + offset 8. */
    if (n_tensors > left(r) / 32)
        return kvp__fail(r->err, KVP_SYNTAX, r->name, "tensor_count",
                         "%llu tensor records cannot fit in the %llu bytes left",
                         (unsigned long long)n_tensors, (unsigned long long)left(r));
    m->tensor_count = n_tensors;
    for (uint64_t i = 0; i < n_kv; i++)
        if ((st = rd_kv(r, m, i))) return st;
    uint64_t max_end = 0;
    for (uint64_t i = 0; i < n_tensors; i++)
        if ((st = rd_tensor(r, m, i, &max_end))) return st;
    uint64_t align = 32;
    const kvp__gguf_kv *a = kvp__gguf_find(m, "general.alignment");
    if (a) {
        /* gguf.cpp reads it with gguf_get_val_u32, which aborts on another type. */
        if (a->type != KVP__GGUF_UINT32)
            return kvp__fail(r->err, KVP_CONFIG, r->name, "general.alignment",
                             "stored as GGUF type %u, expected uint32 (type 4)", a->type);
        if (a->ival <= 0 || a->ival > (1 << 30) || (a->ival & (a->ival - 1)) != 0)
            return kvp__fail(r->err, KVP_CONFIG, r->name, "general.alignment",
                             "alignment %lld, expected a power of two", (long long)a->ival);
        align = (uint64_t)a->ival;
    }
    uint64_t data_start = (r->pos + align - 1) / align * align;
    if (n_tensors > 0 && (data_start > r->size || max_end > r->size - data_start))
        return kvp__fail(r->err, KVP_SYNTAX, r->name, "tensor data",
                         "truncated GGUF: tensor data ends at %llu but the file has %llu bytes",
                         (unsigned long long)(data_start + max_end), (unsigned long long)r->size);
    return KVP_OK;
}

kvp_status kvp__gguf_parse_memory(const uint8_t *data, size_t size, kvp__gguf_meta *m,
                                  kvp_error *err) {
    reader r = {data, NULL, size, 0, m->name, err};
    return parse(&r, m);
}

kvp_status kvp_model_from_gguf_memory(const void *data, size_t size, const char *name,
                                      const kvp_allocator *alc, kvp_model **out, kvp_error *err) {
    *out = NULL;
    kvp__gguf_meta m;
    kvp__gguf_meta_init(&m, alc, name ? name : "<memory>");
    kvp_status st = kvp__gguf_parse_memory(data, size, &m, err);
    if (!st) st = check_duplicate_keys(&m, err);
    if (!st) st = kvp__gguf_build_model(&m, alc, out, err);
    kvp__gguf_meta_free(&m);
    return st;
}

kvp_status kvp_model_from_gguf_file(const char *path, const kvp_allocator *alc, kvp_model **out,
                                    kvp_error *err) {
    *out = NULL;
    /* The header is read piecewise, each count checked against the file size. */
    FILE *f = NULL;
    uint64_t file_size = 0;
    kvp_status ost = kvp__open_regular(path, UINT64_MAX, &f, &file_size, err);
    if (ost != KVP_OK) return ost;
    kvp__gguf_meta m;
    kvp__gguf_meta_init(&m, alc, path);
    reader r = {NULL, f, file_size, 0, path, err};
    kvp_status st = parse(&r, &m);
    fclose(f);
    if (!st) st = check_duplicate_keys(&m, err);
    if (!st) st = kvp__gguf_build_model(&m, alc, out, err);
    kvp__gguf_meta_free(&m);
    return st;
}
