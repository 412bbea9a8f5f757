/*
 * config_text.c — the one parse of a model's JSON text (config.json, a geometry
 * JSON, an inline model), and the counters that let tests check it happens
 * once per model load.
 *
 * Rules, the same for every command: at most KVP_MAX_CONFIG_BYTES of UTF-8
 * without NUL bytes; duplicate keys refused; Python's bare NaN / Infinity
 * rewritten in place (json_error.h) so that a key kvplan never reads may hold
 * them and a key it reads is refused by name (facts.c, hf_json.c).
 */
#include <stdatomic.h>
#include <string.h>

#include "json_error.h"
#include "model_internal.h"

static atomic_uint_fast64_t g_config_parses;
static atomic_uint_fast64_t g_model_loads;

uint64_t kvp__model_config_parse_count(void) { return (uint64_t)atomic_load(&g_config_parses); }
uint64_t kvp__model_load_count(void) { return (uint64_t)atomic_load(&g_model_loads); }
void kvp__model_count_load(void) { atomic_fetch_add(&g_model_loads, 1); }

kvp_status kvp__config_literal_fail(kvp_error *err, const char *file, const char *ptr,
                                    const json_t *v) {
    return kvp__fail(err, KVP_CONFIG, file, ptr,
                     "holds a Python %s literal; kvplan reads this key and needs a finite value",
                     json_is_string(v) ? "NaN" : "Infinity");
}

kvp_status kvp__config_parse(const char *text, size_t len, const char *name,
                             const kvp_allocator *alc, json_t **out, kvp_error *err) {
    *out = NULL;
    if (!text || len == 0) return kvp__fail(err, KVP_IO, name, NULL, "file is empty");
    if (len > KVP_MAX_CONFIG_BYTES)
        return kvp__fail(err, KVP_IO, name, NULL,
                         "%zu bytes is larger than the %zu-byte limit for a config", len,
                         KVP_MAX_CONFIG_BYTES);
    size_t bad;
    if (!kvp__utf8_valid(text, len, &bad)) {
        kvp_status st = kvp__fail(err, KVP_SYNTAX, name, NULL, "invalid UTF-8 at byte offset %zu",
                                  bad);
        if (err) err->offset = bad;
        return st;
    }
    if (memchr(text, '\0', len)) {
        size_t off = (size_t)((const char *)memchr(text, '\0', len) - text);
        kvp_status st = kvp__fail(err, KVP_SYNTAX, name, NULL, "NUL byte at offset %zu", off);
        if (err) err->offset = off;
        return st;
    }
    char *work = kvp__malloc(alc, len + 1);
    if (!work) return kvp__fail(err, KVP_NOMEM, name, NULL, "out of memory");
    memcpy(work, text, len);
    work[len] = '\0';
    kvp__json_python_literals(work, len);
    atomic_fetch_add(&g_config_parses, 1);
    json_error_t jerr;
    json_t *root = json_loadb(work, len, JSON_REJECT_DUPLICATES, &jerr);
    kvp__free(alc, work);
    if (!root) return kvp__json_load_fail(err, name, &jerr); /* KVP_NOMEM when jansson ran out */
    *out = root;
    return KVP_OK;
}
