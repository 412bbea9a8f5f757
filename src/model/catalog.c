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

/* Variants that share an entry's geometry: config.json identical but for
 * token ids, the chat template or the name (checked against the configs the
 * model cards publish: same num_hidden_layers, attention and KV heads, head
 * dims, windows, torch_dtype, vocab_size and max_position_embeddings).
 * Variants whose configs differ in any of these (Qwen2.5-*-Instruct's
 * max_position_embeddings, Mixtral-8x22B-Instruct's vocabulary, Kimi-K2
 * 0905's context) are not aliases: they need their own config. */
typedef struct catalog_alias {
    const char *hf_id;  /* the variant */
    const char *target; /* the catalogue entry's HF id */
} catalog_alias;

static const catalog_alias k_aliases[] = {
    {"meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B"},
    {"meta-llama/Llama-3.1-70B-Instruct", "meta-llama/Llama-3.1-70B"},
    {"meta-llama/Llama-3.1-405B-Instruct", "meta-llama/Llama-3.1-405B"},
    {"meta-llama/Llama-4-Scout-17B-16E-Instruct", "meta-llama/Llama-4-Scout-17B-16E"},
    {"mistralai/Mistral-7B-Instruct-v0.1", "mistralai/Mistral-7B-v0.1"},
    {"mistralai/Mixtral-8x7B-Instruct-v0.1", "mistralai/Mixtral-8x7B-v0.1"},
    {"deepseek-ai/DeepSeek-V3-Base", "deepseek-ai/DeepSeek-V3"},
    {"deepseek-ai/DeepSeek-V3-0324", "deepseek-ai/DeepSeek-V3"},
    {"deepseek-ai/DeepSeek-R1-0528", "deepseek-ai/DeepSeek-R1"},
    {"deepseek-ai/DeepSeek-R1-Zero", "deepseek-ai/DeepSeek-R1"},
    {"deepseek-ai/DeepSeek-V2-Lite", "deepseek-ai/DeepSeek-V2-Lite-Chat"},
    {"moonshotai/Kimi-K2-Base", "moonshotai/Kimi-K2-Instruct"},
    {"google/gemma-2-9b-it", "google/gemma-2-9b"},
    {"google/gemma-3-1b-pt", "google/gemma-3-1b-it"},
    {"google/gemma-3-27b-pt", "google/gemma-3-27b-it"},
};
#define ALIAS_COUNT (sizeof k_aliases / sizeof k_aliases[0])

/* Lower-case short names of the aliases ("llama-3.1-8b-instruct"), built with
 * the catalogue. */
static char g_alias_names[ALIAS_COUNT][128];

static void build_alias_names(void) {
    for (size_t i = 0; i < ALIAS_COUNT; i++) {
        const char *slash = strchr(k_aliases[i].hf_id, '/');
        kvp__strlcpy(g_alias_names[i], slash ? slash + 1 : k_aliases[i].hf_id,
                     sizeof g_alias_names[i]);
        for (char *p = g_alias_names[i]; *p; p++)
            if (*p >= 'A' && *p <= 'Z') *p = (char)(*p + 32);
    }
}

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

static void build_all(void) {
    build_catalog();
    build_alias_names();
}

static void ensure_catalog(void) { pthread_once(&g_once, build_all); }

size_t kvp_catalog_alias_count(void) { return ALIAS_COUNT; }
const char *kvp_catalog_alias_name(size_t index) {
    ensure_catalog();
    return index < ALIAS_COUNT ? g_alias_names[index] : NULL;
}
const char *kvp_catalog_alias_hf_id(size_t index) {
    return index < ALIAS_COUNT ? k_aliases[index].hf_id : NULL;
}
const char *kvp_catalog_alias_of(size_t index) {
    return index < ALIAS_COUNT ? k_aliases[index].target : NULL;
}

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

/* The alias NAME denotes (by HF id or short name, any case), or SIZE_MAX. */
static size_t find_alias(const char *name) {
    ensure_catalog();
    for (size_t i = 0; i < ALIAS_COUNT; i++)
        if (kvp__strcasecmp(k_aliases[i].hf_id, name) == 0 ||
            kvp__strcasecmp(g_alias_names[i], name) == 0)
            return i;
    return SIZE_MAX;
}

/* Open alias i: its target's config under the name "ALIAS (alias of TARGET)". */
static kvp_status open_alias(size_t i, const kvp_allocator *alc, kvp_model **out,
                             kvp_error *err) {
    const catalog_entry *e = find_entry(k_aliases[i].target);
    if (!e) /* a table entry without its target is a build defect, named as such */
        return kvp__fail(err, KVP_NOT_FOUND, NULL, k_aliases[i].hf_id,
                         "catalogue alias of '%s', which is not in the catalogue",
                         k_aliases[i].target);
    char name[300];
    snprintf(name, sizeof name, "%s (alias of %s)", k_aliases[i].hf_id, e->hf_id);
    return kvp_model_from_hf_json(e->file->data, e->file->size, name, alc, out, err);
}

kvp_status kvp_model_from_catalog(const char *name, const kvp_allocator *alc, kvp_model **out,
                                  kvp_error *err) {
    *out = NULL;
    const catalog_entry *e = find_entry(name);
    if (e) return open_entry(e, alc, out, err);
    size_t a = find_alias(name);
    if (a != SIZE_MAX) return open_alias(a, alc, out, err);
    /* Closest three names (entries, then aliases) by edit distance, for the message. */
    kvp__nearest near;
    kvp__nearest_init(&near);
    for (size_t i = 0; i < g_count; i++) {
        size_t d = kvp__edit_distance(name, g_entries[i].name);
        size_t d2 = kvp__edit_distance(name, g_entries[i].hf_id);
        kvp__nearest_offer(&near, i, d2 < d ? d2 : d);
    }
    for (size_t i = 0; i < ALIAS_COUNT; i++) {
        size_t d = kvp__edit_distance(name, g_alias_names[i]);
        size_t d2 = kvp__edit_distance(name, k_aliases[i].hf_id);
        kvp__nearest_offer(&near, g_count + i, d2 < d ? d2 : d);
    }
    char hint[384] = "";
    for (int k = 0; k < KVP_NEAREST_MAX; k++) {
        size_t i = near.index[k];
        if (i == SIZE_MAX) continue;
        size_t n = strlen(hint);
        snprintf(hint + n, sizeof hint - n, "%s%s", k ? ", " : "",
                 i < g_count ? g_entries[i].name : g_alias_names[i - g_count]);
    }
    return kvp__fail(err, KVP_NOT_FOUND, NULL, name,
                     "no such file, catalogue model or Hugging Face cache entry (closest: %s; "
                     "'kvplan models FILTER' searches the catalogue). For a model of your own, "
                     "give the folder holding its config.json, or fetch it into the Hugging Face "
                     "cache ($HF_HOME or ~/.cache/huggingface: 'huggingface-cli download ORG/NAME "
                     "config.json') and give ORG/NAME",
                     hint);
}

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
        kvp_status s = kvp__model_resolve_extra(name_or_path, alc, path, sizeof path, err);
        if (s == KVP_OK) return kvp_model_from_hf_file(path, alc, out, err);
        if (s != KVP_NOT_FOUND) return s;
    }
    /* An alias after the cache: a real config of the variant wins. */
    return kvp_model_from_catalog(name_or_path, alc, out, err);
}
