/*
 * gpu_catalog.c — the embedded GPU catalogue (data/gpus/catalog.json).
 *
 * Layout of the data file:
 *   {"schema": 1, "gpus": [ {"name", "vendor", "memory", "aliases": [...],
 *     "cuda_total": "79.33GiB", "cuda_source",      (what cudaMemGetInfo reports)
 *     "nvml_total_mib": 81559, "nvml_source",       (nvidia-smi "Total")
 *     "derived_total": "...", "derived_source",     (from the marketing size)
 *     "bandwidth_gb_s": 3350, "bandwidth_source"} ]}
 * total_bytes takes the first of cuda_total, nvml_total_mib, derived_total:
 * an engine's budget starts from the CUDA-visible total, so that is the
 * figure a plan wants when it is known.
 *
 * The JSON is parsed on every call (23 entries, a few microseconds) rather
 * than cached, so there is no global mutable state to guard.
 */
#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "embedded.h"
#include "kvplan/gpu.h"
#include "kvplan/units.h"
#include "probe_internal.h"
#include "util.h"

#define GPU_CATALOG_PATH "gpus/catalog.json"
#define NORM_MAX 96

/* Lower-case alphanumerics only, with vendor/brand prefixes dropped, so
 * "NVIDIA H100 80GB HBM3", "h100-80gb-hbm3" and "H100 80GB HBM3" agree. */
void kvp__gpu_normalize(const char *in, char *out, size_t out_size) {
    size_t n = 0;
    for (const char *p = in; *p && n + 1 < out_size; p++) {
        unsigned char c = (unsigned char)*p;
        if (isalnum(c)) out[n++] = (char)tolower(c);
    }
    out[n] = '\0';
    static const char *const k_prefixes[] = {"nvidia", "amd", "geforce", "instinct", "tesla"};
    bool again = true;
    while (again) {
        again = false;
        for (size_t i = 0; i < sizeof k_prefixes / sizeof k_prefixes[0]; i++) {
            size_t len = strlen(k_prefixes[i]);
            if (strncmp(out, k_prefixes[i], len) == 0 && out[len] != '\0') {
                memmove(out, out + len, strlen(out + len) + 1);
                again = true;
            }
        }
    }
}

static json_t *load_catalog(kvp_error *err) {
    const kvp__embedded_file *f = kvp__embedded_find(GPU_CATALOG_PATH);
    if (!f) {
        kvp__fail(err, KVP_NOT_FOUND, GPU_CATALOG_PATH, NULL, "GPU catalogue not embedded");
        return NULL;
    }
    json_error_t jerr;
    json_t *root = json_loadb(f->data, f->size, 0, &jerr);
    if (!root) {
        kvp_status st = kvp__fail(err, KVP_SYNTAX, GPU_CATALOG_PATH, NULL, "%s", jerr.text);
        (void)st;
        if (err) {
            err->line = jerr.line;
            err->column = jerr.column;
        }
        return NULL;
    }
    json_t *gpus = json_object_get(root, "gpus");
    if (!json_is_array(gpus)) {
        json_decref(root);
        kvp__fail(err, KVP_CONFIG, GPU_CATALOG_PATH, "/gpus", "expected an array");
        return NULL;
    }
    return root;
}

static const char *str_or(json_t *obj, const char *key, const char *fallback) {
    const char *s = json_string_value(json_object_get(obj, key));
    return s ? s : fallback;
}

/* Fill one kvp_gpu_info from catalogue entry `idx`. */
static kvp_status entry_info(json_t *e, size_t idx, kvp_gpu_info *out, kvp_error *err) {
    char key[64];
    memset(out, 0, sizeof *out);
    kvp__strlcpy(out->name, str_or(e, "name", "?"), sizeof out->name);
    kvp__strlcpy(out->vendor, str_or(e, "vendor", ""), sizeof out->vendor);
    const char *total_src = "";
    const char *cuda = json_string_value(json_object_get(e, "cuda_total"));
    json_t *nvml = json_object_get(e, "nvml_total_mib");
    const char *derived = json_string_value(json_object_get(e, "derived_total"));
    if (json_is_integer(nvml) && json_integer_value(nvml) > 0) {
        uint64_t mib = (uint64_t)json_integer_value(nvml);
        if (!kvp__mul_u64(mib, 1ull << 20, &out->driver_total_bytes)) {
            snprintf(key, sizeof key, "/gpus/%zu/nvml_total_mib", idx);
            return kvp__fail(err, KVP_OVERFLOW, GPU_CATALOG_PATH, key, "MiB count overflows");
        }
    }
    if (cuda) {
        snprintf(key, sizeof key, "/gpus/%zu/cuda_total", idx);
        if (kvp_parse_bytes(cuda, &out->total_bytes, err) != KVP_OK)
            return kvp__fail(err, KVP_CONFIG, GPU_CATALOG_PATH, key, "bad size '%s'", cuda);
        /* ROCm's HIP runtime answers the same question on AMD parts. */
        kvp__strlcpy(out->total_basis, strcmp(out->vendor, "amd") ? "cuda" : "hip",
                     sizeof out->total_basis);
        total_src = str_or(e, "cuda_source", "");
    } else if (out->driver_total_bytes) {
        out->total_bytes = out->driver_total_bytes;
        kvp__strlcpy(out->total_basis, "nvml", sizeof out->total_basis);
        total_src = str_or(e, "nvml_source", "");
    } else if (derived) {
        snprintf(key, sizeof key, "/gpus/%zu/derived_total", idx);
        if (kvp_parse_bytes(derived, &out->total_bytes, err) != KVP_OK)
            return kvp__fail(err, KVP_CONFIG, GPU_CATALOG_PATH, key, "bad size '%s'", derived);
        kvp__strlcpy(out->total_basis, "derived", sizeof out->total_basis);
        total_src = str_or(e, "derived_source", "");
    } else {
        snprintf(key, sizeof key, "/gpus/%zu", idx);
        return kvp__fail(err, KVP_CONFIG, GPU_CATALOG_PATH, key,
                         "entry has none of cuda_total, nvml_total_mib, derived_total");
    }
    json_t *bw = json_object_get(e, "bandwidth_gb_s");
    if (json_is_integer(bw) && json_integer_value(bw) > 0 &&
        !kvp__mul_u64((uint64_t)json_integer_value(bw), 1000000000ull, &out->bandwidth_bytes_per_s)) {
        snprintf(key, sizeof key, "/gpus/%zu/bandwidth_gb_s", idx);
        return kvp__fail(err, KVP_OVERFLOW, GPU_CATALOG_PATH, key, "bandwidth overflows");
    }
    snprintf(out->source, sizeof out->source, "total: %s; bandwidth: %s", total_src,
             str_or(e, "bandwidth_source", "unknown"));
    return KVP_OK;
}

size_t kvp_gpu_catalog_count(void) {
    json_t *root = load_catalog(NULL);
    if (!root) return 0;
    size_t n = json_array_size(json_object_get(root, "gpus"));
    json_decref(root);
    return n;
}

kvp_status kvp_gpu_catalog_entry(size_t index, kvp_gpu_info *out) {
    json_t *root = load_catalog(NULL);
    if (!root) return KVP_NOT_FOUND;
    json_t *gpus = json_object_get(root, "gpus");
    kvp_status st = KVP_INVALID_ARG;
    if (index < json_array_size(gpus)) st = entry_info(json_array_get(gpus, index), index, out, NULL);
    json_decref(root);
    return st;
}


/* Distance of a query to an entry: the smallest over its name and aliases.
 * A query that is a prefix of a name ("h10") counts as close. */
static size_t entry_distance(json_t *e, const char *q) {
    char norm[NORM_MAX];
    kvp__gpu_normalize(str_or(e, "name", ""), norm, sizeof norm);
    size_t best = kvp__edit_distance(q, norm);
    json_t *aliases = json_object_get(e, "aliases");
    size_t i;
    json_t *a;
    json_array_foreach(aliases, i, a) {
        const char *s = json_string_value(a);
        if (!s) continue;
        kvp__gpu_normalize(s, norm, sizeof norm);
        size_t d = kvp__edit_distance(q, norm);
        if (d < best) best = d;
    }
    return best;
}

static bool entry_matches(json_t *e, const char *q) {
    char norm[NORM_MAX];
    kvp__gpu_normalize(str_or(e, "name", ""), norm, sizeof norm);
    if (strcmp(norm, q) == 0) return true;
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(e, "aliases"), i, a) {
        const char *s = json_string_value(a);
        if (!s) continue;
        kvp__gpu_normalize(s, norm, sizeof norm);
        if (strcmp(norm, q) == 0) return true;
    }
    return false;
}

kvp_status kvp_gpu_lookup(const char *name, kvp_gpu_info *out, kvp_error *err) {
    if (!name || !*name) return kvp__fail(err, KVP_INVALID_ARG, NULL, "--gpu", "empty GPU name");
    if (!out) return kvp__fail(err, KVP_INVALID_ARG, NULL, "--gpu", "NULL output");
    char q[NORM_MAX];
    kvp__gpu_normalize(name, q, sizeof q);
    json_t *root = load_catalog(err);
    if (!root) return err ? err->code : KVP_NOT_FOUND;
    json_t *gpus = json_object_get(root, "gpus");
    size_t i;
    json_t *e;
    json_array_foreach(gpus, i, e) {
        if (entry_matches(e, q)) {
            kvp_status st = entry_info(e, i, out, err);
            json_decref(root);
            return st;
        }
    }
    /* Not found: the three closest distinct entries. */
    kvp__nearest near;
    kvp__nearest_init(&near);
    json_array_foreach(gpus, i, e) kvp__nearest_offer(&near, i, entry_distance(e, q));
    char hint[256] = "";
    for (int k = 0; k < KVP_NEAREST_MAX; k++) {
        if (near.index[k] == SIZE_MAX) continue;
        size_t n = strlen(hint);
        snprintf(hint + n, sizeof hint - n, "%s%s", k ? ", " : "",
                 str_or(json_array_get(gpus, near.index[k]), "name", "?"));
    }
    json_decref(root);
    return kvp__fail(err, KVP_NOT_FOUND, NULL, name,
                     "unknown GPU '%s' (closest: %s; 'kvplan gpus --catalog' lists all)", name, hint);
}
