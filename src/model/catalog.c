/*
 * catalog.c — the embedded model catalogue: every data/models/ORG__NAME.json
 * compiled in, addressable by HF id ("meta-llama/Llama-3.1-8B"), by its bare
 * name ("Llama-3.1-8B") or a lower-case alias ("llama-3.1-8b"), case-insensitively.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "embedded.h"
#include "model_internal.h"

#define CATALOG_PREFIX "models/"
#define CATALOG_MAX 256

typedef struct catalog_entry {
    char hf_id[128]; /* "meta-llama/Llama-3.1-8B" */
    char name[128];  /* "llama-3.1-8b" */
    const kvp__embedded_file *file;
} catalog_entry;

/* Built on first use from the immutable embedded table; identical every time, so a
 * benign race between threads writes the same bytes. Guarded by pthread_once. */
#include <pthread.h>
static catalog_entry g_entries[CATALOG_MAX];
static size_t g_count;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void build_catalog(void) {
    size_t plen = strlen(CATALOG_PREFIX);
    for (size_t i = 0; i < kvp__embedded_count && g_count < CATALOG_MAX; i++) {
        const kvp__embedded_file *f = &kvp__embedded_files[i];
        if (strncmp(f->path, CATALOG_PREFIX, plen) != 0) continue;
        const char *base = f->path + plen;
        catalog_entry *e = &g_entries[g_count];
        char stem[128];
        kvp__strlcpy(stem, base, sizeof stem);
        char *dot = strstr(stem, ".partial.json");
        if (!dot) dot = strstr(stem, ".json");
        if (!dot) continue;
        *dot = '\0';
        char *sep = strstr(stem, "__");
        if (sep) {
            *sep = '\0';
            snprintf(e->hf_id, sizeof e->hf_id, "%s/%s", stem, sep + 2);
            kvp__strlcpy(e->name, sep + 2, sizeof e->name);
        } else {
            kvp__strlcpy(e->hf_id, stem, sizeof e->hf_id);
            kvp__strlcpy(e->name, stem, sizeof e->name);
        }
        for (char *p = e->name; *p; p++)
            if (*p >= 'A' && *p <= 'Z') *p = (char)(*p + 32);
        e->file = f;
        g_count++;
    }
}

static void ensure_catalog(void) { pthread_once(&g_once, build_catalog); }

size_t kvp_catalog_count(void) {
    ensure_catalog();
    return g_count;
}
const char *kvp_catalog_name(size_t index) {
    ensure_catalog();
    return index < g_count ? g_entries[index].name : NULL;
}
const char *kvp_catalog_hf_id(size_t index) {
    ensure_catalog();
    return index < g_count ? g_entries[index].hf_id : NULL;
}

/* Strip a "Meta-" prefix so "meta-llama-3.1-8b" finds "llama-3.1-8b". */
static bool name_matches(const catalog_entry *e, const char *q) {
    if (kvp__strcasecmp(e->hf_id, q) == 0 || kvp__strcasecmp(e->name, q) == 0) return true;
    if (strncmp(q, "meta-", 5) == 0 || strncmp(q, "Meta-", 5) == 0)
        return kvp__strcasecmp(e->name, q + 5) == 0;
    const char *slash = strchr(q, '/');
    if (slash) {
        /* org/Meta-Llama-3.1-8B style ids */
        const char *n = slash + 1;
        if (strncmp(n, "Meta-", 5) == 0) n += 5;
        return kvp__strcasecmp(e->name, n) == 0 && strncmp(e->hf_id, q, (size_t)(slash - q)) == 0;
    }
    return false;
}


/* The catalogue entry a name or alias denotes, or NULL. */
static const catalog_entry *find_entry(const char *name) {
    ensure_catalog();
    for (size_t i = 0; i < g_count; i++)
        if (name_matches(&g_entries[i], name)) return &g_entries[i];
    return NULL;
}

static kvp_status open_entry(const catalog_entry *e, const kvp_allocator *alc, kvp_model **out,
                             kvp_error *err) {
    return kvp_model_from_hf_json(e->file->data, e->file->size, e->hf_id, alc, out, err);
}

kvp_status kvp_model_from_catalog(const char *name, const kvp_allocator *alc, kvp_model **out,
                                  kvp_error *err) {
    *out = NULL;
    const catalog_entry *e = find_entry(name);
    if (e) return open_entry(e, alc, out, err);
    /* Closest three names by edit distance, for the message. */
    kvp__nearest near;
    kvp__nearest_init(&near);
    for (size_t i = 0; i < g_count; i++) {
        size_t d = kvp__edit_distance(name, g_entries[i].name);
        size_t d2 = kvp__edit_distance(name, g_entries[i].hf_id);
        kvp__nearest_offer(&near, i, d2 < d ? d2 : d);
    }
    char hint[384] = "";
    for (int k = 0; k < KVP_NEAREST_MAX; k++) {
        if (near.index[k] == SIZE_MAX) continue;
        size_t n = strlen(hint);
        snprintf(hint + n, sizeof hint - n, "%s%s", k ? ", " : "", g_entries[near.index[k]].name);
    }
    return kvp__fail(err, KVP_NOT_FOUND, NULL, name,
                     "no such file or catalogue model (closest: %s; 'kvplan models' lists all)",
                     hint);
}

/* Resolver hook for names that are neither paths nor catalogue entries (the
 * local Hugging Face cache), implemented in hf_cache.c. */
kvp_status kvp__model_resolve_extra(const char *name, char *path_out, size_t path_size,
                                    kvp_error *err);

kvp_status kvp_model_open(const char *name_or_path, const kvp_allocator *alc, kvp_model **out,
                          kvp_error *err) {
    *out = NULL;
    if (!name_or_path || !*name_or_path)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "MODEL", "empty model name");
    struct stat st;
    size_t n_len = strlen(name_or_path);
    if (n_len > 5 && kvp__strcasecmp(name_or_path + n_len - 5, ".gguf") == 0)
        return kvp_model_from_gguf_file(name_or_path, alc, out, err);
    if (stat(name_or_path, &st) == 0) return kvp_model_from_hf_file(name_or_path, alc, out, err);
    if (lstat(name_or_path, &st) == 0)
        /* The name exists but cannot be followed (a symlink loop, a dangling link):
         * say so instead of looking it up in the catalogue. */
        return kvp__fail(err, KVP_IO, name_or_path, NULL, "cannot open: %s", strerror(errno));
    const catalog_entry *e = find_entry(name_or_path);
    if (e) return open_entry(e, alc, out, err);
    {
        char path[4096];
        kvp_status s = kvp__model_resolve_extra(name_or_path, path, sizeof path, err);
        if (s == KVP_OK) return kvp_model_from_hf_file(path, alc, out, err);
        if (s != KVP_NOT_FOUND) return s;
    }
    return kvp_model_from_catalog(name_or_path, alc, out, err);
}
