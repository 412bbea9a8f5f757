/* request_model.c — the model of a kvp_json_call request: "model" (a string:
 * what `kvplan COMMAND MODEL` takes) or "config" (a config.json object sent
 * inline). Under the server's rule (kvp__json_call_opts.catalog_only) the
 * string names a catalogue entry or alias only, so no request can make
 * kvplan open a path, look in the Hugging Face cache or run anything. */
#include <jansson.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bind_internal.h"
#include "json_error.h"
#include "model_internal.h"
#include "util.h"

/* The name an inline config carries in answers and error messages: what the
 * CLI prints for `kvplan COMMAND config.json` run in the config's folder. */
#define KVP__INLINE_CONFIG_NAME "config.json"

static kvp_status from_config(const json_t *config, kvp_model **out, kvp_error *err) {
    if (!json_is_object(config))
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "/config",
                         "expected a config.json object, found %s",
                         kvp__json_type_name(config));
    /* The object's text goes through the model's one reader, as a file's would. */
    char *text = kvp__json_dump(config, JSON_COMPACT, NULL);
    if (!text) return kvp__fail(err, KVP_NOMEM, NULL, "/config", "out of memory reading config");
    kvp_status st = kvp_model_from_hf_json(text, strlen(text), KVP__INLINE_CONFIG_NAME, NULL, out,
                                           err);
    kvp__free(NULL, text);
    return st;
}

/* A catalogue name or alias, nothing else. */
static kvp_status from_catalog(const char *name, kvp_model **out, kvp_error *err) {
    kvp_status st = kvp_model_from_catalog(name, NULL, out, err);
    if (st != KVP_NOT_FOUND || !err) return st;
    /* The catalogue's message offers files and the HF cache, which a request
     * cannot use: keep its closest names only. */
    char closest[400] = "";
    const char *c = strstr(err->message, "closest: ");
    if (c) {
        c += strlen("closest: ");
        size_t n = strcspn(c, ";)");
        if (n >= sizeof closest) n = sizeof closest - 1;
        memcpy(closest, c, n);
        closest[n] = '\0';
    }
    return kvp__fail(err, KVP_NOT_FOUND, NULL, "/model",
                     "'%.200s' is not a catalogue name or alias (closest: %s); "
                     "GET /api/v1/models?q= searches the catalogue; a model of your own: send its "
                     "config.json as \"config\"",
                     name, closest);
}

/* ------------------------------------------------------------ the cache
 *
 * A repeated request reuses the model it parsed (issue 27 item 8): parsing
 * the config was a fifth of a plan through kvp_json_call. A parsed model is
 * plain data that the pipeline only reads (every room takes const kvp_model *),
 * so one copy serves every request naming it, from any thread. The key says
 * what the model was read from, and nothing else can change it:
 *   "c:NAME"  a catalogue name (the catalogue is compiled in): the exact name
 *             or Hugging Face id of an entry when no file of that name exists
 *             (kvp_model_open looks at the file first), or, under
 *             catalog_only, any name kvp_model_from_catalog takes;
 *   "f:PATH"  a file or folder, with the device, inode, mtime and size of the
 *             file and, for a folder, of its config.json, so an edited config
 *             is read again;
 *   "j:TEXT"  an inline config object, by its compact text (up to 1 MiB).
 * Anything else (a Hugging Face cache id, an alias the cache may shadow) is
 * opened per request. KVP__MODEL_CACHE_SLOTS entries, least recently used out
 * first; an entry a request still holds is never freed under it. */
#define KVP__MODEL_CACHE_SLOTS 8
#define KVP__MODEL_CACHE_TEXT_MAX (1u << 20)

typedef struct cache_slot {
    char *key;                  /* libc; NULL = empty */
    uint64_t stamp[8];          /* "f:": what stat said */
    kvp_model *model;
    unsigned refs;              /* requests holding it now */
    uint64_t used;              /* last use, for eviction */
} cache_slot;

static pthread_mutex_t g_cache_lock = PTHREAD_MUTEX_INITIALIZER;
static cache_slot g_cache[KVP__MODEL_CACHE_SLOTS];
static uint64_t g_cache_clock;

static void stamp_of(const struct stat *st, uint64_t *s) {
    s[0] = (uint64_t)st->st_dev;
    s[1] = (uint64_t)st->st_ino;
    s[2] = (uint64_t)st->st_mtim.tv_sec;
    s[3] = (uint64_t)st->st_mtim.tv_nsec;
    s[4] = (uint64_t)st->st_size;
}

/* The key of a model string, or false when it is not cached. */
static bool path_key(const char *name, bool catalog_only, char **key, uint64_t *stamp) {
    memset(stamp, 0, 8 * sizeof *stamp);
    struct stat st;
    const char *tag = "c:";
    if (!catalog_only && lstat(name, &st) == 0) {
        if (stat(name, &st) != 0) return false;
        stamp_of(&st, stamp);
        if (S_ISDIR(st.st_mode)) {
            char cfg[4096];
            struct stat cs;
            if (snprintf(cfg, sizeof cfg, "%s/config.json", name) >= (int)sizeof cfg ||
                stat(cfg, &cs) != 0)
                return false;
            stamp_of(&cs, stamp + 3); /* the folder's dev, inode, mtime; the config's stamp */
        } else if (!S_ISREG(st.st_mode)) {
            return false;
        }
        tag = "f:";
    } else if (!catalog_only) {
        bool entry = false;
        for (size_t i = 0; i < kvp_catalog_count() && !entry; i++)
            entry = !strcmp(name, kvp_catalog_name(i)) || !strcmp(name, kvp_catalog_hf_id(i));
        if (!entry) return false;
    }
    size_t n = strlen(name);
    if (n > KVP__MODEL_CACHE_TEXT_MAX) return false;
    *key = malloc(n + 3);
    if (!*key) return false;
    memcpy(*key, tag, 2);
    memcpy(*key + 2, name, n + 1);
    return true;
}

/* A cached model for `key` (taken by the caller), or NULL. */
static kvp_model *cache_take(const char *key, const uint64_t *stamp) {
    kvp_model *m = NULL;
    pthread_mutex_lock(&g_cache_lock);
    for (size_t i = 0; i < KVP__MODEL_CACHE_SLOTS; i++) {
        cache_slot *c = &g_cache[i];
        if (c->key && !strcmp(c->key, key) && !memcmp(c->stamp, stamp, sizeof c->stamp)) {
            c->refs++;
            c->used = ++g_cache_clock;
            m = c->model;
            break;
        }
    }
    pthread_mutex_unlock(&g_cache_lock);
    return m;
}

/* Keep `m` under `key` (owned from here) in a free or least recently used
 * slot no request holds; *kept says whether it was (the caller then holds one
 * reference); otherwise the key is freed and the model stays the caller's. */
static void cache_put(char *key, const uint64_t *stamp, kvp_model *m, bool *kept) {
    *kept = false;
    pthread_mutex_lock(&g_cache_lock);
    cache_slot *victim = NULL;
    for (size_t i = 0; i < KVP__MODEL_CACHE_SLOTS; i++) {
        cache_slot *c = &g_cache[i];
        if (c->refs) continue;
        if (!c->key) {
            victim = c;
            break;
        }
        if (!victim || c->used < victim->used) victim = c;
    }
    kvp_model *old = NULL;
    char *old_key = NULL;
    if (victim) {
        old = victim->model;
        old_key = victim->key;
        victim->key = key;
        memcpy(victim->stamp, stamp, sizeof victim->stamp);
        victim->model = m;
        victim->refs = 1;
        victim->used = ++g_cache_clock;
        *kept = true;
    }
    pthread_mutex_unlock(&g_cache_lock);
    kvp_model_free(old);
    free(old_key);
    if (!*kept) free(key);
}

void kvp__request_model_release(kvp_model *m) {
    if (!m) return;
    bool cached = false;
    pthread_mutex_lock(&g_cache_lock);
    for (size_t i = 0; i < KVP__MODEL_CACHE_SLOTS && !cached; i++)
        if (g_cache[i].model == m && g_cache[i].refs) {
            g_cache[i].refs--;
            cached = true;
        }
    pthread_mutex_unlock(&g_cache_lock);
    if (!cached) kvp_model_free(m);
}

/* A path or a name: a .json file may hold a geometry instead of a config (as
 * `kvplan plan MODEL` reads it, docs/plan.md). */
static kvp_status open_named(const char *name, kvp_model **out, kvp_error *err) {
    size_t n = strlen(name);
    if (n > 5 && !strcmp(name + n - 5, ".json") && kvp__is_regular_file(name)) {
        char *buf = NULL;
        size_t len = 0;
        bool handled = false;
        kvp_status st = kvp__read_file(name, KVP_MAX_CONFIG_BYTES, NULL, &buf, &len, err);
        if (st) return st;
        st = kvp__model_from_json_input(buf, len, name, false, out, &handled, err);
        kvp__free(NULL, buf);
        if (st || handled) return st;
    }
    return kvp_model_open(name, NULL, out, err);
}

/* Open through the cache: `open` runs only when no entry holds the key. */
static kvp_status cached_open(char *key, const uint64_t *stamp, const char *name, bool catalog_only,
                              const json_t *config, kvp_model **out, kvp_error *err) {
    if ((*out = cache_take(key, stamp)) != NULL) {
        free(key);
        return KVP_OK;
    }
    kvp_status st = config ? from_config(config, out, err)
                    : catalog_only ? from_catalog(name, out, err)
                                   : open_named(name, out, err);
    if (st != KVP_OK) {
        free(key);
        return st;
    }
    bool kept;
    cache_put(key, stamp, *out, &kept);
    return KVP_OK;
}

kvp_status kvp__request_model(const json_t *model, const json_t *config,
                              const kvp__json_call_opts *o, kvp_model **out, kvp_error *err) {
    *out = NULL;
    if (model && config)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "/config",
                         "give \"model\" or \"config\", not both");
    if (config) {
        if (!json_is_object(config)) return from_config(config, out, err);
        char *text = kvp__json_dump(config, JSON_COMPACT | JSON_SORT_KEYS, NULL);
        size_t n = text ? strlen(text) : 0;
        char *key = text && n <= KVP__MODEL_CACHE_TEXT_MAX ? malloc(n + 3) : NULL;
        if (key) {
            memcpy(key, "j:", 2);
            memcpy(key + 2, text, n + 1);
        }
        kvp__free(NULL, text);
        if (!key) return from_config(config, out, err);
        uint64_t stamp[8] = {0};
        return cached_open(key, stamp, NULL, false, config, out, err);
    }
    if (!model)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "/model", "missing (%s; or \"config\": {...})",
                         o->catalog_only ? "a catalogue name or alias"
                                         : "a config.json, a folder, or a catalogue name");
    if (!json_is_string(model))
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "/model", "expected a string, found %s",
                         kvp__json_type_name(model));
    const char *name = json_string_value(model);
    if (!*name) return kvp__fail(err, KVP_INVALID_ARG, NULL, "/model", "empty name");
    char *key = NULL;
    uint64_t stamp[8];
    if (path_key(name, o->catalog_only, &key, stamp))
        return cached_open(key, stamp, name, o->catalog_only, NULL, out, err);
    return o->catalog_only ? from_catalog(name, out, err) : open_named(name, out, err);
}
