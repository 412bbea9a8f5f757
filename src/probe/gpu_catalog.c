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
 * A user's catalogue file (kvp_gpu_lookup_in, `kvplan --gpu-catalog FILE`)
 * has the same layout; its entries come first in a search, so an entry with
 * an embedded entry's name replaces it. Both are checked key by key before
 * use. The JSON is parsed on every call (30 entries, a few microseconds)
 * rather than cached, so there is no global mutable state to guard.
 */
#include <ctype.h>
#include <jansson.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "embedded.h"
#include "json_error.h"
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

static const char *str_or(json_t *obj, const char *key, const char *fallback) {
    const char *s = json_string_value(json_object_get(obj, key));
    return s ? s : fallback;
}

/* --------------------------------------------------------------- reading */

#define CATALOG_MAX_ENTRIES 1024
#define CATALOG_MAX_ALIASES 64
#define CATALOG_MAX_TOTAL (UINT64_C(1) << 50) /* 1 PiB: no device comes close */

/* Validation of one catalogue (embedded or a user's file), key by key, so a
 * typo such as "nvml_total_mb" is refused by name rather than ignored. */
typedef struct checker {
    const char *file;
    kvp_error *err;
} checker;

static kvp_status bad(const checker *c, const char *ptr, kvp_status code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static kvp_status bad(const checker *c, const char *ptr, kvp_status code, const char *fmt, ...) {
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return kvp__fail(c->err, code, c->file, ptr, "%s", msg);
}

static kvp_status check_string(const checker *c, json_t *e, const char *ptr, const char *key,
                               size_t max_len, bool required, bool nonempty) {
    char p[96];
    snprintf(p, sizeof p, "%s/%s", ptr, key);
    json_t *v = json_object_get(e, key);
    if (!v) return required ? bad(c, p, KVP_CONFIG, "missing, expected a string") : KVP_OK;
    if (!json_is_string(v))
        return bad(c, p, KVP_CONFIG, "expected a string, found %s", kvp__json_type_name(v));
    size_t n = json_string_length(v);
    if (nonempty && n == 0) return bad(c, p, KVP_CONFIG, "expected a non-empty string");
    if (n >= max_len)
        return bad(c, p, KVP_CONFIG, "%zu bytes, expected fewer than %zu", n, max_len);
    if (strlen(json_string_value(v)) != n) return bad(c, p, KVP_CONFIG, "contains a NUL byte");
    return KVP_OK;
}

static kvp_status check_size(const checker *c, json_t *e, const char *ptr, const char *key,
                             bool *found) {
    char p[96];
    snprintf(p, sizeof p, "%s/%s", ptr, key);
    json_t *v = json_object_get(e, key);
    *found = v != NULL;
    if (!v) return KVP_OK;
    if (!json_is_string(v))
        return bad(c, p, KVP_CONFIG, "expected a size such as \"79.33GiB\", found %s",
                   kvp__json_type_name(v));
    uint64_t bytes;
    kvp_error perr;
    if (kvp_parse_bytes(json_string_value(v), &bytes, &perr) != KVP_OK)
        return bad(c, p, KVP_CONFIG, "%s", perr.message);
    if (bytes == 0 || bytes > CATALOG_MAX_TOTAL)
        return bad(c, p, KVP_CONFIG, "%llu bytes, expected more than 0 and at most 1 PiB",
                   (unsigned long long)bytes);
    return KVP_OK;
}

static kvp_status check_int(const checker *c, json_t *e, const char *ptr, const char *key,
                            json_int_t max, bool *found) {
    char p[96];
    snprintf(p, sizeof p, "%s/%s", ptr, key);
    json_t *v = json_object_get(e, key);
    *found = v != NULL;
    if (!v) return KVP_OK;
    if (!json_is_integer(v) || json_integer_value(v) <= 0 || json_integer_value(v) > max)
        return bad(c, p, KVP_CONFIG, "expected a whole number from 1 to %lld",
                   (long long)max);
    return KVP_OK;
}

static kvp_status check_entry(const checker *c, json_t *e, size_t idx) {
    char ptr[48];
    snprintf(ptr, sizeof ptr, "/gpus/%zu", idx);
    if (!json_is_object(e))
        return bad(c, ptr, KVP_CONFIG, "expected an object, found %s", kvp__json_type_name(e));
    static const char *const k_keys[] = {
        "name",        "vendor",         "memory",      "aliases",
        "cuda_total",  "cuda_source",    "nvml_total_mib", "nvml_source",
        "derived_total", "derived_source", "bandwidth_gb_s", "bandwidth_source",
        "compute_capability", "gfx_target", "arch", "arch_source", NULL};
    const char *key;
    json_t *v;
    json_object_foreach(e, key, v) {
        bool known = false;
        for (size_t i = 0; k_keys[i] && !known; i++) known = strcmp(key, k_keys[i]) == 0;
        if (!known) {
            char p[160];
            snprintf(p, sizeof p, "%s/%.100s", ptr, key);
            return bad(c, p, KVP_CONFIG,
                       "unknown key (expected name, vendor, memory, aliases, cuda_total, "
                       "nvml_total_mib, derived_total, bandwidth_gb_s, compute_capability, "
                       "gfx_target, arch and their *_source)");
        }
    }
    kvp_status st;
    if ((st = check_string(c, e, ptr, "name", 96, true, true)) ||
        (st = check_string(c, e, ptr, "vendor", 16, false, true)) ||
        (st = check_string(c, e, ptr, "memory", 160, false, false)) ||
        (st = check_string(c, e, ptr, "cuda_source", 160, false, false)) ||
        (st = check_string(c, e, ptr, "nvml_source", 160, false, false)) ||
        (st = check_string(c, e, ptr, "derived_source", 160, false, false)) ||
        (st = check_string(c, e, ptr, "bandwidth_source", 160, false, false)) ||
        (st = check_string(c, e, ptr, "compute_capability", 8, false, true)) ||
        (st = check_string(c, e, ptr, "gfx_target", 16, false, true)) ||
        (st = check_string(c, e, ptr, "arch", 24, false, true)) ||
        (st = check_string(c, e, ptr, "arch_source", 160, false, false)))
        return st;
    const char *cc = json_string_value(json_object_get(e, "compute_capability"));
    const char *gfx = json_string_value(json_object_get(e, "gfx_target"));
    uint32_t ccv;
    if (cc && !kvp__gpu_parse_cc(cc, &ccv)) {
        char p[96];
        snprintf(p, sizeof p, "%s/compute_capability", ptr);
        return bad(c, p, KVP_CONFIG, "\"%s\": expected MAJOR.MINOR such as \"8.9\"", cc);
    }
    if (gfx && !kvp_gpu_gfx_capability(gfx)) {
        char p[96];
        snprintf(p, sizeof p, "%s/gfx_target", ptr);
        return bad(c, p, KVP_CONFIG, "\"%s\": expected an LLVM target such as \"gfx942\"", gfx);
    }
    if (cc && gfx)
        return bad(c, ptr, KVP_CONFIG, "entry has both compute_capability and gfx_target");
    char norm[NORM_MAX];
    kvp__gpu_normalize(json_string_value(json_object_get(e, "name")), norm, sizeof norm);
    if (!norm[0])
        return bad(c, ptr, KVP_CONFIG, "name \"%s\" has no letter or digit to match on",
                   json_string_value(json_object_get(e, "name")));
    json_t *aliases = json_object_get(e, "aliases");
    if (aliases) {
        char p[64];
        snprintf(p, sizeof p, "%s/aliases", ptr);
        if (!json_is_array(aliases))
            return bad(c, p, KVP_CONFIG, "expected an array of names, found %s",
                       kvp__json_type_name(aliases));
        if (json_array_size(aliases) > CATALOG_MAX_ALIASES)
            return bad(c, p, KVP_CONFIG, "%zu aliases, expected at most %d",
                       json_array_size(aliases), CATALOG_MAX_ALIASES);
        size_t i;
        json_t *a;
        json_array_foreach(aliases, i, a) {
            char pi[80];
            snprintf(pi, sizeof pi, "%s/%zu", p, i);
            if (!json_is_string(a) || json_string_length(a) == 0 || json_string_length(a) >= 96 ||
                strlen(json_string_value(a)) != json_string_length(a))
                return bad(c, pi, KVP_CONFIG, "expected a name of 1 to 95 bytes");
        }
    }
    bool cuda, nvml, derived, bw;
    if ((st = check_size(c, e, ptr, "cuda_total", &cuda)) ||
        (st = check_size(c, e, ptr, "derived_total", &derived)) ||
        (st = check_int(c, e, ptr, "nvml_total_mib", (json_int_t)(CATALOG_MAX_TOTAL >> 20), &nvml)) ||
        (st = check_int(c, e, ptr, "bandwidth_gb_s", 1000000, &bw)))
        return st;
    if (!cuda && !nvml && !derived)
        return bad(c, ptr, KVP_CONFIG,
                   "entry has none of cuda_total, nvml_total_mib, derived_total");
    return KVP_OK;
}

/* Name k of entry e: 0 is "name", k >= 1 is aliases[k - 1]; NULL past the end. */
static const char *entry_name(json_t *e, size_t k) {
    return k == 0 ? json_string_value(json_object_get(e, "name"))
                  : json_string_value(json_array_get(json_object_get(e, "aliases"), k - 1));
}

static void entry_name_ptr(size_t idx, size_t k, char *p, size_t n) {
    if (k == 0)
        snprintf(p, n, "/gpus/%zu/name", idx);
    else
        snprintf(p, n, "/gpus/%zu/aliases/%zu", idx, k - 1);
}

/* Record every name and alias of entry idx in `seen` (normalised -> entry);
 * one already naming another entry is refused: a lookup would silently take
 * whichever comes first. */
static kvp_status claim_names(const checker *c, json_t *seen, json_t *e, size_t idx) {
    const char *name;
    for (size_t k = 0; (name = entry_name(e, k)) != NULL; k++) {
        char norm[NORM_MAX], p[64];
        kvp__gpu_normalize(name, norm, sizeof norm);
        if (!norm[0]) continue; /* matches nothing */
        json_t *prev = json_object_get(seen, norm);
        if (prev && (size_t)json_integer_value(prev) != idx) {
            entry_name_ptr(idx, k, p, sizeof p);
            return bad(c, p, KVP_CONFIG,
                       "\"%s\" already names entry %lld (by its name or an alias: a lookup "
                       "would take the first)",
                       name, (long long)json_integer_value(prev));
        }
        if (!prev && json_object_set_new(seen, norm, json_integer((json_int_t)idx)) != 0)
            return kvp__fail(c->err, KVP_NOMEM, c->file, NULL, "out of memory");
    }
    return KVP_OK;
}

/* The whole catalogue: top-level keys, schema, every entry, no name or alias twice. */
static kvp_status check_catalog(const checker *c, json_t *root) {
    if (!json_is_object(root))
        return bad(c, "", KVP_CONFIG, "expected a JSON object with a \"gpus\" array, found %s",
                   kvp__json_type_name(root));
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v) {
        if (strcmp(key, "about") && strcmp(key, "schema") && strcmp(key, "gpus")) {
            char p[112];
            snprintf(p, sizeof p, "/%.100s", key);
            return bad(c, p, KVP_CONFIG, "unknown key (expected about, schema, gpus)");
        }
    }
    json_t *schema = json_object_get(root, "schema");
    if (schema && !(json_is_integer(schema) && json_integer_value(schema) == 1))
        return bad(c, "/schema", KVP_UNSUPPORTED, "schema not understood (kvplan reads schema 1)");
    json_t *gpus = json_object_get(root, "gpus");
    if (!json_is_array(gpus))
        return bad(c, "/gpus", KVP_CONFIG, "expected an array of GPU entries, found %s",
                   gpus ? kvp__json_type_name(gpus) : "nothing");
    if (json_array_size(gpus) > CATALOG_MAX_ENTRIES)
        return bad(c, "/gpus", KVP_CONFIG, "%zu entries, expected at most %d",
                   json_array_size(gpus), CATALOG_MAX_ENTRIES);
    size_t n = json_array_size(gpus);
    json_t *seen = json_object();
    if (!seen) return kvp__fail(c->err, KVP_NOMEM, c->file, NULL, "out of memory");
    kvp_status st = KVP_OK;
    for (size_t i = 0; i < n && st == KVP_OK; i++) {
        json_t *e = json_array_get(gpus, i);
        if ((st = check_entry(c, e, i))) break;
        st = claim_names(c, seen, e, i);
    }
    json_decref(seen);
    return st;
}

/* Parse and check a catalogue held in memory. NULL on error (err filled). */
static json_t *parse_catalog(const char *text, size_t len, const char *file, kvp_error *err) {
    size_t off;
    if (len > KVP_MAX_CONFIG_BYTES) {
        kvp__fail(err, KVP_CONFIG, file, NULL, "%zu bytes is larger than the %zu-byte limit", len,
                  KVP_MAX_CONFIG_BYTES);
        return NULL;
    }
    if (!kvp__utf8_valid(text, len, &off)) {
        kvp__fail(err, KVP_SYNTAX, file, NULL, "invalid UTF-8 at byte offset %zu", off);
        return NULL;
    }
    const char *nul = memchr(text, '\0', len);
    if (nul) {
        kvp__fail(err, KVP_SYNTAX, file, NULL, "NUL byte at offset %zu", (size_t)(nul - text));
        return NULL;
    }
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        kvp__json_load_fail(err, file, &jerr);
        return NULL;
    }
    checker c = {file, err};
    if (check_catalog(&c, root) != KVP_OK) {
        json_decref(root);
        return NULL;
    }
    return root;
}

static json_t *load_embedded(kvp_error *err) {
    const kvp__embedded_file *f = kvp__embedded_find(GPU_CATALOG_PATH);
    if (!f) {
        kvp__fail(err, KVP_NOT_FOUND, GPU_CATALOG_PATH, NULL, "GPU catalogue not embedded");
        return NULL;
    }
    return parse_catalog((const char *)f->data, f->size, GPU_CATALOG_PATH, err);
}

/* The embedded catalogue is compiled in and never changes: it is parsed and
 * checked once per process, and every lookup shares that read-only root
 * (jansson's reference counts are atomic where JSON_HAVE_ATOMIC_BUILTINS or
 * JSON_HAVE_SYNC_BUILTINS says so; elsewhere each call parses its own). Its
 * parse was half the time of a plan through kvp_json_call (issue 27 item 8). */
#if JSON_HAVE_ATOMIC_BUILTINS || JSON_HAVE_SYNC_BUILTINS
static pthread_once_t g_embedded_once = PTHREAD_ONCE_INIT;
static json_t *g_embedded;
static kvp_error g_embedded_err;
/* Every normalized name and alias of the embedded entries -> the index of the
 * first entry it names (the entry a search in order finds), built with the
 * root: a lookup by name in the embedded catalogue is one hash probe instead of
 * building the search list and normalizing every name again (a third of the
 * rest of a plan through kvp_json_call, issue 27 item 8). NULL if it could not
 * be built: lookups then search as with a user's file. */
static json_t *g_embedded_names;

static void embedded_index(void) {
    json_t *names = json_object();
    size_t i;
    json_t *e;
    bool ok = names != NULL;
    json_array_foreach(json_object_get(g_embedded, "gpus"), i, e) {
        const char *name;
        for (size_t k = 0; ok && (name = entry_name(e, k)) != NULL; k++) {
            char norm[NORM_MAX];
            kvp__gpu_normalize(name, norm, sizeof norm);
            if (norm[0] && !json_object_get(names, norm))
                ok = json_object_set_new(names, norm, json_integer((json_int_t)i)) == 0;
        }
    }
    if (ok) g_embedded_names = names;
    else json_decref(names);
}

/* Every value of the shared tree made immortal: jansson's json_incref and
 * json_decref leave a value whose refcount is (size_t)-1 alone (jansson.h; its
 * own json_null() and json_true() are such values). Lookups in several threads
 * append the shared entries to their own search lists, and the reference
 * counts' atomic updates still race with json_incref's plain read of the count
 * (ThreadSanitizer, tests/unit/test_threads_json_call.c); a count nobody writes
 * cannot race. The tree lives as long as the process, as before. */
static void immortal(json_t *v) {
    const char *key;
    json_t *child;
    size_t i;
    if (json_is_object(v)) json_object_foreach(v, key, child) immortal(child);
    else if (json_is_array(v)) json_array_foreach(v, i, child) immortal(child);
    v->refcount = (size_t)-1;
}

static void embedded_parse(void) {
    kvp_error_clear(&g_embedded_err);
    g_embedded = load_embedded(&g_embedded_err);
    if (g_embedded) {
        immortal(g_embedded);
        embedded_index();
        if (g_embedded_names) immortal(g_embedded_names);
    }
}

static json_t *embedded_root(kvp_error *err) {
    pthread_once(&g_embedded_once, embedded_parse);
    if (!g_embedded) {
        if (err) *err = g_embedded_err;
        return NULL;
    }
    return json_incref(g_embedded);
}
#else
static json_t *embedded_root(kvp_error *err) { return load_embedded(err); }
#endif

/* The catalogue a lookup searches: a user's entries first (they win over an
 * embedded entry with the same name), then the embedded entries they do not
 * replace. Entries are borrowed from the two roots, which the struct owns. */
typedef struct catalog {
    json_t *user, *embedded; /* owned roots (user may be NULL) */
    json_t *list;            /* owned array of the entries, in search order */
    size_t user_count;
    const char *user_file;
} catalog;

static void catalog_free(catalog *cat) {
    json_decref(cat->list);
    json_decref(cat->user);
    json_decref(cat->embedded);
    memset(cat, 0, sizeof *cat);
}

/* A user's name or alias that names a built-in entry it does not replace
 * (same name) would shadow it for a lookup by that name: refused, with the
 * way to replace it. */
static kvp_status user_names_free(const catalog *cat, kvp_error *err) {
    if (!cat->user_count) return KVP_OK;
    json_t *seen = json_object();
    if (!seen) return kvp__fail(err, KVP_NOMEM, cat->user_file, NULL, "out of memory");
    checker c = {cat->user_file, err};
    kvp_status st = KVP_OK;
    for (size_t i = cat->user_count; i < json_array_size(cat->list) && !st; i++) {
        json_t *e = json_array_get(cat->list, i);
        const char *name;
        for (size_t k = 0; (name = entry_name(e, k)) != NULL; k++) {
            char norm[NORM_MAX];
            kvp__gpu_normalize(name, norm, sizeof norm);
            if (norm[0] && json_object_set_new(seen, norm, json_integer((json_int_t)i)) != 0) {
                st = kvp__fail(err, KVP_NOMEM, cat->user_file, NULL, "out of memory");
                break;
            }
        }
    }
    for (size_t i = 0; i < cat->user_count && !st; i++) {
        json_t *e = json_array_get(cat->list, i);
        const char *name;
        for (size_t k = 0; (name = entry_name(e, k)) != NULL; k++) {
            char norm[NORM_MAX], p[64];
            kvp__gpu_normalize(name, norm, sizeof norm);
            json_t *prev = norm[0] ? json_object_get(seen, norm) : NULL;
            if (!prev) continue;
            const char *builtin =
                str_or(json_array_get(cat->list, (size_t)json_integer_value(prev)), "name", "");
            entry_name_ptr(i, k, p, sizeof p);
            st = bad(&c, p, KVP_CONFIG,
                     "\"%s\" also names the built-in GPU \"%s\" (a lookup would take the "
                     "first); name the entry \"%s\" to replace it",
                     name, builtin, builtin);
            break;
        }
    }
    json_decref(seen);
    return st;
}

static kvp_status catalog_build(catalog *cat, const char *user_text, size_t user_len,
                                const char *user_file, kvp_error *err) {
    memset(cat, 0, sizeof *cat);
    cat->user_file = user_file;
    cat->embedded = embedded_root(err);
    if (!cat->embedded) return err ? err->code : KVP_NOT_FOUND;
    if (user_text) {
        cat->user = parse_catalog(user_text, user_len, user_file, err);
        if (!cat->user) {
            catalog_free(cat);
            return err ? err->code : KVP_CONFIG;
        }
    }
    cat->list = json_array();
    if (!cat->list) {
        catalog_free(cat);
        return kvp__fail(err, KVP_NOMEM, user_file, NULL, "out of memory");
    }
    json_t *ug = cat->user ? json_object_get(cat->user, "gpus") : NULL;
    size_t i, j;
    json_t *e, *u;
    bool ok = true;
    json_array_foreach(ug, i, e) ok = ok && json_array_append(cat->list, e) == 0;
    cat->user_count = json_array_size(ug);
    json_array_foreach(json_object_get(cat->embedded, "gpus"), i, e) {
        char ne[NORM_MAX], nu[NORM_MAX];
        kvp__gpu_normalize(str_or(e, "name", ""), ne, sizeof ne);
        bool replaced = false;
        json_array_foreach(ug, j, u) {
            kvp__gpu_normalize(str_or(u, "name", ""), nu, sizeof nu);
            replaced = replaced || strcmp(ne, nu) == 0;
        }
        if (!replaced) ok = ok && json_array_append(cat->list, e) == 0;
    }
    if (!ok) {
        catalog_free(cat);
        return kvp__fail(err, KVP_NOMEM, user_file, NULL, "out of memory");
    }
    kvp_status st = user_names_free(cat, err);
    if (st) catalog_free(cat);
    return st;
}

/* The catalogue is built and freed inside each call, and no call of the GPU
 * API takes an allocator: its text goes through libc (kvp__read_file, NULL). */
static kvp_status catalog_open(catalog *cat, const char *path, kvp_error *err) {
    if (!path) return catalog_build(cat, NULL, 0, NULL, err);
    char *text = NULL;
    size_t len = 0;
    kvp_status st = kvp__read_file(path, KVP_MAX_CONFIG_BYTES, NULL, &text, &len, err);
    if (st) return st;
    st = catalog_build(cat, text, len, path, err);
    kvp__free(NULL, text);
    return st;
}

/* Fill one kvp_gpu_info from a checked catalogue entry. */
static kvp_status entry_info(json_t *e, const char *file, size_t idx, kvp_gpu_info *out,
                             kvp_error *err) {
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
            return kvp__fail(err, KVP_OVERFLOW, file, key, "MiB count overflows");
        }
    }
    if (cuda) {
        snprintf(key, sizeof key, "/gpus/%zu/cuda_total", idx);
        if (kvp_parse_bytes(cuda, &out->total_bytes, err) != KVP_OK)
            return kvp__fail(err, KVP_CONFIG, file, key, "bad size '%s'", cuda);
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
            return kvp__fail(err, KVP_CONFIG, file, key, "bad size '%s'", derived);
        kvp__strlcpy(out->total_basis, "derived", sizeof out->total_basis);
        total_src = str_or(e, "derived_source", "");
    } else {
        snprintf(key, sizeof key, "/gpus/%zu", idx);
        return kvp__fail(err, KVP_CONFIG, file, key,
                         "entry has none of cuda_total, nvml_total_mib, derived_total");
    }
    json_t *bw = json_object_get(e, "bandwidth_gb_s");
    if (json_is_integer(bw) && json_integer_value(bw) > 0 &&
        !kvp__mul_u64((uint64_t)json_integer_value(bw), 1000000000ull, &out->bandwidth_bytes_per_s)) {
        snprintf(key, sizeof key, "/gpus/%zu/bandwidth_gb_s", idx);
        return kvp__fail(err, KVP_OVERFLOW, file, key, "bandwidth overflows");
    }
    const char *cc = json_string_value(json_object_get(e, "compute_capability"));
    const char *gfx = json_string_value(json_object_get(e, "gfx_target"));
    if (cc) (void)kvp__gpu_parse_cc(cc, &out->compute_capability);
    if (gfx) {
        kvp__strlcpy(out->gfx_target, gfx, sizeof out->gfx_target);
        out->compute_capability = kvp_gpu_gfx_capability(gfx);
    }
    kvp__strlcpy(out->arch, str_or(e, "arch", cc ? kvp__gpu_arch_of_cc(out->compute_capability) : ""),
                 sizeof out->arch);
    kvp__strlcpy(out->arch_source, str_or(e, "arch_source", ""), sizeof out->arch_source);
    if (strcmp(file, GPU_CATALOG_PATH) != 0)
        snprintf(out->source, sizeof out->source, "%s: total: %s; bandwidth: %s", file,
                 total_src[0] ? total_src : "unstated", str_or(e, "bandwidth_source", "unknown"));
    else
        snprintf(out->source, sizeof out->source, "total: %s; bandwidth: %s", total_src,
                 str_or(e, "bandwidth_source", "unknown"));
    return KVP_OK;
}

/* Entry k of the search list as a kvp_gpu_info. */
static kvp_status catalog_info(const catalog *cat, size_t k, kvp_gpu_info *out, kvp_error *err) {
    json_t *e = json_array_get(cat->list, k);
    if (k < cat->user_count) return entry_info(e, cat->user_file, k, out, err);
    json_t *gpus = json_object_get(cat->embedded, "gpus");
    size_t i;
    json_t *x;
    json_array_foreach(gpus, i, x) if (x == e) return entry_info(e, GPU_CATALOG_PATH, i, out, err);
    return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "catalogue entry %zu not found", k);
}

size_t kvp_gpu_catalog_count(void) {
    size_t n = 0;
    return kvp_gpu_catalog_count_in(NULL, &n, NULL) == KVP_OK ? n : 0;
}

kvp_status kvp_gpu_catalog_entry(size_t index, kvp_gpu_info *out) {
    return kvp_gpu_catalog_entry_in(NULL, index, out, NULL);
}

kvp_status kvp_gpu_catalog_count_in(const char *catalog_path, size_t *out_count, kvp_error *err) {
    if (!out_count) return kvp__fail(err, KVP_INVALID_ARG, catalog_path, NULL, "NULL output");
    *out_count = 0;
    catalog cat;
    kvp_status st = catalog_open(&cat, catalog_path, err);
    if (st) return st;
    *out_count = json_array_size(cat.list);
    catalog_free(&cat);
    return KVP_OK;
}

kvp_status kvp_gpu_catalog_entry_in(const char *catalog_path, size_t index, kvp_gpu_info *out,
                                    kvp_error *err) {
    if (!out) return kvp__fail(err, KVP_INVALID_ARG, catalog_path, NULL, "NULL output");
    catalog cat;
    kvp_status st = catalog_open(&cat, catalog_path, err);
    if (st) return st;
    if (index < json_array_size(cat.list))
        st = catalog_info(&cat, index, out, err);
    else
        st = kvp__fail(err, KVP_INVALID_ARG, catalog_path, NULL,
                       "entry %zu of a catalogue of %zu", index, json_array_size(cat.list));
    catalog_free(&cat);
    return st;
}

kvp_status kvp_gpu_catalog_list_in(const char *catalog_path, kvp_gpu_info *out, size_t cap,
                                   size_t *out_count, kvp_error *err) {
    if (!out_count || (cap && !out))
        return kvp__fail(err, KVP_INVALID_ARG, catalog_path, NULL, "NULL output");
    *out_count = 0;
    catalog cat;
    kvp_status st = catalog_open(&cat, catalog_path, err);
    if (st) return st;
    size_t n = json_array_size(cat.list);
    for (size_t i = 0; i < n && i < cap && st == KVP_OK; i++) st = catalog_info(&cat, i, &out[i], err);
    if (st == KVP_OK) *out_count = n;
    catalog_free(&cat);
    return st;
}

kvp_status kvp_gpu_catalog_check_json(const char *text, size_t len, const char *name,
                                      size_t *out_count, kvp_error *err) {
    if (out_count) *out_count = 0;
    if (!text) return kvp__fail(err, KVP_INVALID_ARG, name, NULL, "NULL text");
    catalog cat;
    kvp_status st = catalog_build(&cat, text, len, name ? name : "(GPU catalogue)", err);
    if (st) return st;
    if (out_count) *out_count = cat.user_count;
    catalog_free(&cat);
    return KVP_OK;
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

/* A normalized name in the embedded catalogue's index: KVP_OK with *out
 * filled, KVP_NOT_FOUND (err untouched) when the index lacks it or was not
 * built. */
static kvp_status embedded_lookup(const char *q, kvp_gpu_info *out, kvp_error *err) {
#if JSON_HAVE_ATOMIC_BUILTINS || JSON_HAVE_SYNC_BUILTINS
    json_t *root = embedded_root(err);
    if (!root) return err ? err->code : KVP_NOT_FOUND;
    json_t *at = g_embedded_names ? json_object_get(g_embedded_names, q) : NULL;
    kvp_status st = KVP_NOT_FOUND;
    if (at) {
        size_t i = (size_t)json_integer_value(at);
        st = entry_info(json_array_get(json_object_get(root, "gpus"), i), GPU_CATALOG_PATH, i, out, err);
    }
    json_decref(root);
    return st;
#else
    (void)q, (void)out, (void)err;
    return KVP_NOT_FOUND;
#endif
}

kvp_status kvp_gpu_lookup(const char *name, kvp_gpu_info *out, kvp_error *err) {
    return kvp_gpu_lookup_in(NULL, name, out, err);
}

kvp_status kvp_gpu_lookup_in(const char *catalog_path, const char *name, kvp_gpu_info *out,
                             kvp_error *err) {
    if (!name || !*name) return kvp__fail(err, KVP_INVALID_ARG, NULL, "gpu", "empty GPU name");
    if (!out) return kvp__fail(err, KVP_INVALID_ARG, NULL, "gpu", "NULL output");
    char q[NORM_MAX];
    kvp__gpu_normalize(name, q, sizeof q);
    catalog cat;
    if (!catalog_path) {
        kvp_status st = embedded_lookup(q, out, err);
        if (st != KVP_NOT_FOUND) return st; /* not found: the search below names the closest */
    }
    kvp_status st = catalog_open(&cat, catalog_path, err);
    if (st) return st;
    size_t i;
    json_t *e;
    json_array_foreach(cat.list, i, e) {
        if (entry_matches(e, q)) {
            st = catalog_info(&cat, i, out, err);
            catalog_free(&cat);
            return st;
        }
    }
    /* Not found: the three closest distinct entries. */
    kvp__nearest near;
    kvp__nearest_init(&near);
    json_array_foreach(cat.list, i, e) kvp__nearest_offer(&near, i, entry_distance(e, q));
    char hint[256] = "";
    for (int k = 0; k < KVP_NEAREST_MAX; k++) {
        if (near.index[k] == SIZE_MAX) continue;
        size_t n = strlen(hint);
        snprintf(hint + n, sizeof hint - n, "%s%s", k ? ", " : "",
                 str_or(json_array_get(cat.list, near.index[k]), "name", "?"));
    }
    catalog_free(&cat);
    return kvp__fail(err, KVP_NOT_FOUND, NULL, name,
                     "unknown GPU '%s' (closest: %s; 'kvplan gpus --catalog' lists all)", name, hint);
}
