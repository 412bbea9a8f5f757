/*
 * safetensors.c — read safetensors headers for exact weight bytes.
 *
 *   u64 LE  N                       header length
 *   N bytes JSON                    {"NAME": {"dtype", "shape", "data_offsets"}, "__metadata__"}
 *   ...     tensor data             offsets relative to byte 8 + N
 *
 * Nothing past the header is read. See include/kvplan/safetensors.h.
 */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "kvplan/safetensors.h"
#include "util.h"
#include "json_error.h"
#include "model_internal.h"

#define ST_MAX_TENSORS 10000000u /* more tensors than any checkpoint has */
#define ST_MAX_DIMS 64u
#define ST_MAX_SHARDS 100000u
#define ST_PATH_MAX 4096

typedef struct st_dtype {
    const char *name;
    uint32_t bits;
} st_dtype;

static const st_dtype k_dtypes[] = {
    {"BOOL", 8},     {"U8", 8},       {"I8", 8},        {"F8_E4M3", 8}, {"F8_E5M2", 8},
    {"F8_E8M0", 8},  {"I16", 16},     {"U16", 16},      {"F16", 16},    {"BF16", 16},
    {"I32", 32},     {"U32", 32},     {"F32", 32},      {"I64", 64},    {"U64", 64},
    {"F64", 64},     {"C64", 64},     {"F4", 4},        {"F6_E2M3", 6}, {"F6_E3M2", 6},
};

static const st_dtype *find_dtype(const char *s) {
    for (size_t i = 0; i < sizeof k_dtypes / sizeof k_dtypes[0]; i++)
        if (strcmp(k_dtypes[i].name, s) == 0) return &k_dtypes[i];
    return NULL;
}

/* Record the byte offset an error is about, after kvp__fail filled the rest. */
static kvp_status at(kvp_error *err, uint64_t offset, kvp_status st) {
    if (err) err->offset = offset;
    return st;
}

/* A whole number in [0, 2^53] (exact in a double), integer or real. */
static bool json_u64(json_t *v, uint64_t *out) {
    if (json_is_integer(v)) {
        if (json_integer_value(v) < 0) return false;
        *out = (uint64_t)json_integer_value(v);
        return true;
    }
    if (!json_is_real(v)) return false;
    double d = json_real_value(v);
    if (!(d >= 0.0) || d > 9007199254740992.0 || d != (double)(uint64_t)d) return false;
    *out = (uint64_t)d;
    return true;
}

typedef struct st_span {
    uint64_t begin, end;
    const char *name; /* borrowed from the parsed header */
} st_span;

static int cmp_span(const void *a, const void *b) {
    const st_span *x = a, *y = b;
    if (x->begin != y->begin) return x->begin < y->begin ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

/* The data section as safetensors' own loader checks it (safetensors
 * Metadata::validate): the tensors, sorted by offset, tile it exactly: each
 * begins where the previous ends (no tensor shares bytes with another, which
 * would count them twice) and the last ends at the section's end. */
static kvp_status check_tiling(st_span *spans, size_t n, uint64_t data_size, uint64_t n_hdr,
                               const char *name, kvp_error *err) {
    qsort(spans, n, sizeof *spans, cmp_span);
    uint64_t at_byte = 0;
    for (size_t i = 0; i < n; i++) {
        if (spans[i].begin != at_byte) {
            char ptr[KVP_ERROR_KEY_MAX];
            snprintf(ptr, sizeof ptr, "/%s", spans[i].name);
            return at(err, 8 + n_hdr + spans[i].begin,
                      kvp__fail(err, KVP_CONFIG, name, ptr,
                                "data_offsets begin at %llu, but the tensors before it end at "
                                "%llu (%s): each tensor must start where the previous ends",
                                (unsigned long long)spans[i].begin, (unsigned long long)at_byte,
                                spans[i].begin < at_byte ? "overlapping bytes" : "a gap"));
        }
        at_byte = spans[i].end;
    }
    if (at_byte != data_size)
        return at(err, 8 + n_hdr + at_byte,
                  kvp__fail(err, KVP_CONFIG, name, "data_offsets",
                            "the tensors end at byte %llu of the %llu-byte data section (the "
                            "rest belongs to no tensor)",
                            (unsigned long long)at_byte, (unsigned long long)data_size));
    return KVP_OK;
}

/* The header parse with its span table through `alc` (NULL = libc). */
static kvp_status parse_with(const uint8_t *buf, size_t len, uint64_t file_size, const char *name,
                             const kvp_allocator *alc, kvp_safetensors_summary *out,
                             kvp_error *err) {
    if (!name) name = "<memory>";
    if (!out) return kvp__fail(err, KVP_INVALID_ARG, name, NULL, "NULL output");
    memset(out, 0, sizeof *out);
    if (!buf || len == 0)
        return at(err, 0,
                  kvp__fail(err, KVP_SYNTAX, name, "header length",
                            "empty file: no 8-byte header length at offset 0"));
    if (len < 8)
        return at(err, 0,
                  kvp__fail(err, KVP_SYNTAX, name, "header length",
                            "truncated: %zu bytes, need 8 for the header length at offset 0",
                            len));
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--) n = (n << 8) | buf[i];
    if (file_size < 8 || n > file_size - 8)
        return at(err, 0,
                  kvp__fail(err, KVP_SYNTAX, name, "header length",
                            "header length %llu (at offset 0) is larger than the %llu bytes "
                            "after it (truncated file?)",
                            (unsigned long long)n,
                            (unsigned long long)(file_size >= 8 ? file_size - 8 : 0)));
    if (n > KVP_SAFETENSORS_MAX_HEADER)
        return at(err, 0,
                  kvp__fail(err, KVP_SYNTAX, name, "header length",
                            "header length %llu (at offset 0) exceeds the limit of %llu bytes",
                            (unsigned long long)n,
                            (unsigned long long)KVP_SAFETENSORS_MAX_HEADER));
    if (n > len - 8)
        return at(err, 8,
                  kvp__fail(err, KVP_SYNTAX, name, "header",
                            "truncated header: %llu of %llu header bytes present at offset 8",
                            (unsigned long long)(len - 8), (unsigned long long)n));
    if (n < 2)
        return at(err, 8,
                  kvp__fail(err, KVP_SYNTAX, name, "header",
                            "header of %llu bytes at offset 8 is too short for a JSON object",
                            (unsigned long long)n));
    out->header_bytes = n;
    uint64_t data_size = file_size - 8 - n;
    out->data_bytes = data_size;
    json_error_t jerr;
    /* Integers decode as doubles so that an offset past 2^63 is a value
     * error about its tensor, not a parse failure of the whole header;
     * json_u64 accepts only exact whole numbers below 2^53. */
    json_t *root = json_loadb((const char *)buf + 8, (size_t)n,
                              JSON_REJECT_DUPLICATES | JSON_DECODE_INT_AS_REAL, &jerr);
    if (!root) {
        uint64_t pos = 8 + (uint64_t)(jerr.position > 0 ? jerr.position : 0);
        kvp_status st = kvp__fail(err, KVP_SYNTAX, name, "header",
                                  "header is not JSON at offset %llu: %s",
                                  (unsigned long long)pos, jerr.text);
        if (err) {
            err->line = jerr.line;
            err->column = jerr.column;
            err->offset = pos;
        }
        return st;
    }
    kvp_status st = KVP_OK;
    st_span *spans = NULL;
    if (!json_is_object(root)) {
        st = at(err, 8,
                kvp__fail(err, KVP_SYNTAX, name, "header",
                          "header at offset 8 must be a JSON object, found %s",
                          json_is_array(root) ? "an array" : "a scalar"));
        goto done;
    }
    if (json_object_size(root) > ST_MAX_TENSORS) {
        st = at(err, 8,
                kvp__fail(err, KVP_CONFIG, name, "header", "too many tensors: %zu (limit %u)",
                          json_object_size(root), ST_MAX_TENSORS));
        goto done;
    }
    size_t n_spans = 0;
    spans = kvp__calloc(alc, json_object_size(root) ? json_object_size(root) : 1, sizeof *spans);
    if (!spans) {
        st = kvp__fail(err, KVP_NOMEM, name, NULL, "out of memory for %zu tensors",
                       json_object_size(root));
        goto done;
    }
    const char *key;
    json_t *t;
    json_object_foreach(root, key, t) {
        if (strcmp(key, "__metadata__") == 0) {
            /* the format: an object of string values */
            const char *mk;
            json_t *mv;
            bool ok = json_is_object(t);
            json_object_foreach(t, mk, mv) if (!json_is_string(mv)) ok = false;
            if (!ok) {
                st = at(err, 8,
                        kvp__fail(err, KVP_SYNTAX, name, "/__metadata__",
                                  "expected an object of strings, found %s",
                                  json_is_object(t) ? "a non-string value" : "something else"));
                goto done;
            }
            continue;
        }
        char ptr[KVP_ERROR_KEY_MAX];
        snprintf(ptr, sizeof ptr, "/%s", key);
        if (!json_is_object(t)) {
            st = at(err, 8, kvp__fail(err, KVP_SYNTAX, name, ptr, "tensor entry must be an object"));
            goto done;
        }
        const char *dt = json_string_value(json_object_get(t, "dtype"));
        const st_dtype *d = dt ? find_dtype(dt) : NULL;
        if (!d) {
            st = at(err, 8,
                    kvp__fail(err, dt ? KVP_UNSUPPORTED : KVP_SYNTAX, name, ptr,
                              "dtype %s is not a safetensors dtype", dt ? dt : "(missing)"));
            goto done;
        }
        json_t *shape = json_object_get(t, "shape");
        json_t *offs = json_object_get(t, "data_offsets");
        if (!json_is_array(shape) || json_array_size(shape) > ST_MAX_DIMS) {
            st = at(err, 8,
                    kvp__fail(err, KVP_SYNTAX, name, ptr,
                              "shape must be an array of at most %u whole numbers", ST_MAX_DIMS));
            goto done;
        }
        uint64_t elems = 1;
        size_t i;
        json_t *dim;
        json_array_foreach(shape, i, dim) {
            uint64_t v;
            if (!json_u64(dim, &v)) {
                st = at(err, 8,
                        kvp__fail(err, KVP_SYNTAX, name, ptr,
                                  "shape must be an array of whole numbers (dim %zu)", i));
                goto done;
            }
            if (!kvp__mul_u64(elems, v, &elems)) {
                st = at(err, 8,
                        kvp__fail(err, KVP_OVERFLOW, name, ptr, "shape product overflows 64 bits"));
                goto done;
            }
        }
        uint64_t begin, end;
        if (!json_is_array(offs) || json_array_size(offs) != 2 ||
            !json_u64(json_array_get(offs, 0), &begin) ||
            !json_u64(json_array_get(offs, 1), &end)) {
            st = at(err, 8,
                    kvp__fail(err, KVP_SYNTAX, name, ptr,
                              "data_offsets must be [begin, end] whole numbers below 2^53"));
            goto done;
        }
        if (begin > end || end > data_size) {
            st = at(err, 8 + n,
                    kvp__fail(err, KVP_CONFIG, name, ptr,
                              "data_offsets [%llu, %llu] outside the data section of %llu bytes",
                              (unsigned long long)begin, (unsigned long long)end,
                              (unsigned long long)data_size));
            goto done;
        }
        uint64_t bits;
        if (!kvp__mul_u64(elems, d->bits, &bits)) {
            st = at(err, 8, kvp__fail(err, KVP_OVERFLOW, name, ptr, "tensor size overflows 64 bits"));
            goto done;
        }
        uint64_t bytes = kvp__ceil_div_u64(bits, 8);
        if (bytes != end - begin) {
            st = at(err, 8 + n + begin,
                    kvp__fail(err, KVP_CONFIG, name, ptr,
                              "tensor size mismatch: shape and dtype give %llu bytes, "
                              "data_offsets span %llu",
                              (unsigned long long)bytes, (unsigned long long)(end - begin)));
            goto done;
        }
        if (!kvp__add_u64(out->tensor_bytes, bytes, &out->tensor_bytes)) {
            st = at(err, 8,
                    kvp__fail(err, KVP_OVERFLOW, name, ptr, "total tensor bytes overflow 64 bits"));
            goto done;
        }
        out->tensor_count++;
        spans[n_spans++] = (st_span){begin, end, key};
    }
    st = check_tiling(spans, n_spans, data_size, n, name, err);
done:
    kvp__free(alc, spans);
    json_decref(root);
    if (st != KVP_OK) {
        uint64_t hb = out->header_bytes, db = out->data_bytes;
        memset(out, 0, sizeof *out);
        out->header_bytes = hb;
        out->data_bytes = db;
    }
    return st;
}

kvp_status kvp_safetensors_parse(const uint8_t *buf, size_t len, uint64_t file_size,
                                 const char *name, kvp_safetensors_summary *out, kvp_error *err) {
    return parse_with(buf, len, file_size, name, NULL, out, err);
}

/* kvp_safetensors_read through `alc` (NULL = libc). */
static kvp_status read_with(const char *path, const kvp_allocator *alc,
                            kvp_safetensors_summary *out, kvp_error *err) {
    if (!path || !out) return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "NULL argument");
    memset(out, 0, sizeof *out);
    /* Only the header is read; N is bounded below before anything is allocated. */
    FILE *f = NULL;
    uint64_t size = 0;
    kvp_status ost = kvp__open_regular(path, UINT64_MAX, &f, &size, err);
    if (ost != KVP_OK) return ost;
    uint8_t head[8];
    size_t got = fread(head, 1, sizeof head, f);
    uint64_t n = 0;
    for (int i = 7; i >= 0 && got == 8; i--) n = (n << 8) | head[i];
    /* Bound N against the file and the limit before allocating. */
    if (got < 8 || n > size - 8 || n > KVP_SAFETENSORS_MAX_HEADER) {
        fclose(f);
        return parse_with(head, got, size, path, alc, out, err);
    }
    uint8_t *buf = kvp__malloc(alc, (size_t)n + 8);
    if (!buf) {
        fclose(f);
        return kvp__fail(err, KVP_NOMEM, path, NULL, "out of memory for a %llu-byte header",
                         (unsigned long long)n);
    }
    memcpy(buf, head, 8);
    size_t body = fread(buf + 8, 1, (size_t)n, f);
    fclose(f);
    kvp_status st = parse_with(buf, 8 + body, size, path, alc, out, err);
    kvp__free(alc, buf);
    return st;
}

kvp_status kvp_safetensors_read(const char *path, kvp_safetensors_summary *out, kvp_error *err) {
    return read_with(path, NULL, out, err);
}

static bool ends_with(const char *s, const char *suffix) {
    size_t ls = strlen(s), lx = strlen(suffix);
    return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

/* Shard names must be plain file names inside the folder. */
static bool safe_shard_name(const char *s) {
    return *s && !strchr(s, '/') && strcmp(s, ".") != 0 && strcmp(s, "..") != 0 &&
           strlen(s) < 512;
}

static kvp_status from_index(const char *dir, const char *index_path, const kvp_allocator *alc,
                             uint64_t *out_bytes, char *source, size_t source_size,
                             kvp_error *err) {
    char *text = NULL;
    size_t len = 0;
    kvp_status st = kvp__read_file(index_path, KVP_MAX_CONFIG_BYTES * 4, alc, &text, &len, err);
    if (st != KVP_OK) return st;
    json_error_t jerr;
    /* A tensor named twice would be counted against two shards. */
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    kvp__free(alc, text);
    if (!root) return kvp__json_load_fail(err, index_path, &jerr);
    json_t *map = json_object_get(root, "weight_map");
    if (!json_is_object(map)) {
        json_decref(root);
        return kvp__fail(err, KVP_SYNTAX, index_path, "/weight_map", "expected an object");
    }
    json_t *meta = json_object_get(root, "metadata");
    json_t *total = json_object_get(meta, "total_size");
    bool total_ok = json_is_integer(total) && json_integer_value(total) > 0;
    if ((meta && !json_is_object(meta) && !json_is_null(meta)) ||
        (total && !json_is_null(total) && !total_ok)) {
        json_decref(root);
        return kvp__fail(err, KVP_SYNTAX, index_path, "/metadata/total_size",
                         "expected a positive whole number of bytes");
    }
    /* Distinct shard names (the map repeats each shard once per tensor). */
    json_t *shards = json_object();
    if (!shards) {
        json_decref(root);
        return kvp__fail(err, KVP_NOMEM, index_path, NULL, "out of memory");
    }
    const char *key;
    json_t *v;
    json_object_foreach(map, key, v) {
        const char *shard = json_string_value(v);
        if (!shard || !safe_shard_name(shard)) {
            st = kvp__fail(err, KVP_CONFIG, index_path, "/weight_map",
                           "tensor '%s' maps to %s, expected a shard file name in the folder",
                           key, shard ? "a path" : "a non-string");
            goto done;
        }
        if (json_object_size(shards) >= ST_MAX_SHARDS) {
            st = kvp__fail(err, KVP_CONFIG, index_path, "/weight_map", "more than %u shards",
                           ST_MAX_SHARDS);
            goto done;
        }
        if (json_object_set_new(shards, shard, json_true()) != 0) {
            st = kvp__fail(err, KVP_NOMEM, index_path, NULL, "out of memory");
            goto done;
        }
    }
    uint64_t sum = 0;
    json_object_foreach(shards, key, v) {
        char path[ST_PATH_MAX];
        if (snprintf(path, sizeof path, "%s/%s", dir, key) >= (int)sizeof path) {
            st = kvp__fail(err, KVP_IO, index_path, "/weight_map", "shard path too long");
            goto done;
        }
        struct stat sb;
        if (stat(path, &sb) != 0) {
            st = kvp__fail(err, KVP_IO, index_path, "/weight_map",
                           "index names shard '%s', which is missing from %s", key, dir);
            goto done;
        }
        (void)sb;
    }
    /* The shards' headers are what an engine loads: the index must agree with
     * them (an index copied next to other files would "measure" them). */
    uint64_t count = 0;
    json_object_foreach(shards, key, v) {
        char path[ST_PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, key);
        kvp_safetensors_summary s;
        st = read_with(path, alc, &s, err);
        if (st != KVP_OK) goto done;
        if (!kvp__add_u64(sum, s.tensor_bytes, &sum)) {
            st = kvp__fail(err, KVP_OVERFLOW, index_path, NULL, "total bytes overflow");
            goto done;
        }
        count += s.tensor_count;
    }
    if (count != json_object_size(map)) {
        st = kvp__fail(err, KVP_CONFIG, index_path, "/weight_map",
                       "names %zu tensors, but the headers of its %zu shards hold %llu",
                       json_object_size(map), json_object_size(shards), (unsigned long long)count);
        goto done;
    }
    if (total_ok && (uint64_t)json_integer_value(total) != sum) {
        st = kvp__fail(err, KVP_CONFIG, index_path, "/metadata/total_size",
                       "states %lld bytes, but the headers of its %zu shards hold %llu bytes of "
                       "tensors",
                       (long long)json_integer_value(total), json_object_size(shards),
                       (unsigned long long)sum);
        goto done;
    }
    *out_bytes = sum;
    if (source && total_ok)
        snprintf(source, source_size, "safetensors index total_size");
    else if (source)
        snprintf(source, source_size, "safetensors headers (%zu shards of the index)",
                 json_object_size(shards));
done:
    json_decref(shards);
    json_decref(root);
    return st;
}

kvp_status kvp_safetensors_dir_bytes(const char *dir_in, uint64_t *out_bytes, char *source,
                                     size_t source_size, kvp_error *err) {
    return kvp__safetensors_dir_bytes_with(dir_in, NULL, out_bytes, source, source_size, err);
}

kvp_status kvp__safetensors_dir_bytes_with(const char *dir_in, const kvp_allocator *alc,
                                          uint64_t *out_bytes, char *source, size_t source_size,
                                          kvp_error *err) {
    if (!dir_in || !out_bytes) return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "NULL argument");
    *out_bytes = 0;
    if (source && source_size) source[0] = '\0';
    char dir[ST_PATH_MAX];
    kvp__strlcpy(dir, dir_in, sizeof dir);
    struct stat sb;
    if (stat(dir, &sb) != 0) return kvp__fail(err, KVP_IO, dir_in, NULL, "%s", strerror(errno));
    if (S_ISREG(sb.st_mode)) { /* a file inside the folder, e.g. config.json */
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = '\0';
        else
            kvp__strlcpy(dir, ".", sizeof dir);
    }
    char index_path[ST_PATH_MAX];
    if (snprintf(index_path, sizeof index_path, "%s/model.safetensors.index.json", dir) >=
        (int)sizeof index_path)
        return kvp__fail(err, KVP_IO, dir_in, NULL, "path too long");
    if (stat(index_path, &sb) == 0)
        return from_index(dir, index_path, alc, out_bytes, source, source_size, err);
    DIR *d = opendir(dir);
    if (!d) return kvp__fail(err, KVP_IO, dir, NULL, "cannot list: %s", strerror(errno));
    uint64_t sum = 0, files = 0;
    kvp_status st = KVP_OK;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!ends_with(e->d_name, ".safetensors")) continue;
        if (files >= ST_MAX_SHARDS) {
            st = kvp__fail(err, KVP_CONFIG, dir, NULL, "more than %u safetensors files",
                           ST_MAX_SHARDS);
            break;
        }
        char path[ST_PATH_MAX];
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path) {
            st = kvp__fail(err, KVP_IO, dir, NULL, "path too long");
            break;
        }
        kvp_safetensors_summary s;
        st = read_with(path, alc, &s, err);
        if (st != KVP_OK) break;
        if (!kvp__add_u64(sum, s.tensor_bytes, &sum)) {
            st = kvp__fail(err, KVP_OVERFLOW, dir, NULL, "total bytes overflow");
            break;
        }
        files++;
    }
    closedir(d);
    if (st != KVP_OK) return st;
    if (files == 0)
        return kvp__fail(err, KVP_NOT_FOUND, dir, NULL,
                         "no model.safetensors.index.json and no *.safetensors files");
    *out_bytes = sum;
    if (source)
        snprintf(source, source_size, "safetensors headers (%llu file%s)",
                 (unsigned long long)files, files == 1 ? "" : "s");
    return KVP_OK;
}
