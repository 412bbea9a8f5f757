/*
 * decl_parse.c — read a model-local declaration file (docs/local.md).
 *
 *   {
 *     "model": "qwen3-tts",                  required, the name a user types
 *     "aliases": ["Qwen3-TTS"],              optional
 *     "description": "...", "note": "...",   optional prose
 *     "module_tree": MODULE | WRAPPER        required
 *   }
 *   WRAPPER = {"class": "CUDAGraphWrapper", "runnable": MODULE}
 *   MODULE  = {"name": attr (not at the root), "class": "...",
 *              "declares": [DECL...]   present = implements the declarer; [] declares nothing
 *              "fails": "why"          the declarer raises (collector reports and skips it)
 *              "children": [MODULE...] submodules, walked like named_modules()
 *              "holds": [MODULE...]}   owners that are not submodules: one explicit hop;
 *                                      a held owner has no children or holds of its own
 *   DECL    = {"name", "kind", "bound": {"mechanism", inputs}, "geometry": {...},
 *              "scope", "row_driver", "rows_fixed", "rows_reason", "when": {...},
 *              "exclusive_group", "allocation_note", "capacity_source"}
 *
 * Every field is checked here, so a file that loads only fails later where
 * the seed's declarer would (geometry read from a config that lacks it).
 * Unknown keys are errors: a misspelt "rows_reason" must not pass as absent.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "local_internal.h"
#include "json_error.h"

typedef struct parser {
    kvp_local_decls *d;
    const char *file;
    kvp_error *err;
    size_t modules_seen;
} parser;

/* ------------------------------------------------------------ names */

static const char *const k_driver_names[] = {"FIXED", "MAX_NUM_SEQS"};
static const char *const k_scope_names[] = {"invocation", "request", "session", "graph_resident"};
static const char *const k_kind_names[] = {"sliding_dynamic_cache", "dynamic_cache",
                                           "encoder_decoder_cache", "static_cache",
                                           "captured_graph_pool"};
static const char *const k_bound_names[] = {"sliding_window_minus_one", "decode_loop_trip_count",
                                            "encoder_frame_limit", "constant"};

const char *kvp_local_row_driver_name(kvp_local_row_driver driver) {
    return (unsigned)driver < KVP_LOCAL_ROW_DRIVER_COUNT ? k_driver_names[driver] : "?";
}
const char *kvp_local_scope_name(kvp_local_scope scope) {
    return (unsigned)scope < KVP_LOCAL_SCOPE_COUNT ? k_scope_names[scope] : "?";
}
const char *kvp_local_cache_kind_name(kvp_local_cache_kind kind) {
    return (unsigned)kind < KVP_LOCAL_KIND_COUNT ? k_kind_names[kind] : "?";
}
const char *kvp_local_bound_name(kvp_local_bound bound) {
    return (unsigned)bound < KVP_LOCAL_BOUND_COUNT ? k_bound_names[bound] : "?";
}

/* "a, b, c" into buf, for messages listing what is accepted. */
static const char *join_names(const char *const *names, size_t n, char *buf, size_t size) {
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        size_t used = strlen(buf);
        snprintf(buf + used, size - used, "%s%s", i ? ", " : "", names[i]);
    }
    return buf;
}

static bool lookup_name(const char *const *names, size_t n, const char *s, unsigned *out) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], s) == 0) {
            *out = (unsigned)i;
            return true;
        }
    return false;
}

/* ------------------------------------------------------------ helpers */

const kvp_allocator *kvp__local_decls_alc(const kvp_local_decls *decls) {
    return decls->has_alc ? &decls->alc : NULL;
}

static const kvp_allocator *palc(const parser *p) { return kvp__local_decls_alc(p->d); }

static void ptr_key(char *buf, size_t size, const char *base, const char *key) {
    snprintf(buf, size, "%s/%s", base, key);
}
static void ptr_index(char *buf, size_t size, const char *base, const char *key, size_t i) {
    snprintf(buf, size, "%s/%s/%zu", base, key, i);
}


/* `who` prefixes every message: "declaration 'x'" or "module 'a.b'". */
static kvp_status pfail(parser *p, kvp_status code, const char *ptr, const char *who,
                        const char *fmt, ...) KVP_PRINTF(5, 6);
static kvp_status pfail(parser *p, kvp_status code, const char *ptr, const char *who,
                        const char *fmt, ...) {
    char body[KVP_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    return kvp__fail(p->err, code, p->file, ptr, "%s: %s", who, body);
}

static kvp_status check_keys(parser *p, json_t *obj, const char *ptr, const char *who,
                             const char *const *allowed, size_t n) {
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        unsigned ignored;
        if (lookup_name(allowed, n, key, &ignored)) continue;
        char list[512], kp[KVP_ERROR_KEY_MAX];
        ptr_key(kp, sizeof kp, ptr, key);
        return pfail(p, KVP_CONFIG, kp, who, "unknown key '%s' (expected one of: %s)", key,
                     join_names(allowed, n, list, sizeof list));
    }
    return KVP_OK;
}

/* Optional (or required) string, copied; "" when absent and optional. */
static kvp_status get_string(parser *p, json_t *obj, const char *key, const char *ptr,
                             const char *who, bool required, char **out) {
    char kp[KVP_ERROR_KEY_MAX];
    ptr_key(kp, sizeof kp, ptr, key);
    json_t *v = json_object_get(obj, key);
    const char *s = "";
    if (!v || json_is_null(v)) {
        if (required) return pfail(p, KVP_CONFIG, kp, who, "missing required string '%s'", key);
    } else if (!json_is_string(v)) {
        return pfail(p, KVP_CONFIG, kp, who, "expected a string, found %s", kvp__json_type_name(v));
    } else {
        s = json_string_value(v);
        size_t len = json_string_length(v);
        if (len > KVP_LOCAL_MAX_TEXT)
            return pfail(p, KVP_CONFIG, kp, who, "string of %zu bytes exceeds the limit of %u", len,
                         KVP_LOCAL_MAX_TEXT);
        if (strlen(s) != len)
            return pfail(p, KVP_CONFIG, kp, who, "string contains a NUL character");
        if (required && len == 0) return pfail(p, KVP_CONFIG, kp, who, "'%s' is empty", key);
    }
    *out = kvp__strdup(palc(p), s);
    if (!*out) return kvp__fail(p->err, KVP_NOMEM, p->file, kp, "out of memory");
    return KVP_OK;
}

/* Positive integer in [1, max]; absent: *found = false (error when !found). */
static kvp_status get_count(parser *p, json_t *obj, const char *key, const char *ptr,
                            const char *who, uint64_t max, uint64_t *out, bool *found) {
    char kp[KVP_ERROR_KEY_MAX];
    ptr_key(kp, sizeof kp, ptr, key);
    json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v)) {
        if (found) {
            *found = false;
            return KVP_OK;
        }
        return pfail(p, KVP_CONFIG, kp, who, "missing required positive integer '%s'", key);
    }
    if (!json_is_integer(v))
        return pfail(p, KVP_CONFIG, kp, who, "'%s' must be a positive integer, found %s", key,
                     kvp__json_type_name(v));
    json_int_t n = json_integer_value(v);
    if (n < 0)
        return pfail(p, KVP_CONFIG, kp, who, "'%s' must be a positive integer, found %lld", key,
                     (long long)n);
    if (n == 0) return pfail(p, KVP_CONFIG, kp, who, "'%s' must be at least 1, found 0", key);
    if ((unsigned long long)n > max)
        return pfail(p, KVP_CONFIG, kp, who, "'%s' = %lld is out of range (at most %llu)", key,
                     (long long)n, (unsigned long long)max);
    *out = (uint64_t)n;
    if (found) *found = true;
    return KVP_OK;
}

static kvp_status get_object(parser *p, json_t *obj, const char *key, const char *ptr,
                             const char *who, bool required, json_t **out) {
    char kp[KVP_ERROR_KEY_MAX];
    ptr_key(kp, sizeof kp, ptr, key);
    json_t *v = json_object_get(obj, key);
    *out = NULL;
    if (!v || json_is_null(v)) {
        if (required) return pfail(p, KVP_CONFIG, kp, who, "missing required object '%s'", key);
        return KVP_OK;
    }
    if (!json_is_object(v))
        return pfail(p, KVP_CONFIG, kp, who, "'%s' must be an object, found %s", key, kvp__json_type_name(v));
    *out = v;
    return KVP_OK;
}

static kvp_status get_array(parser *p, json_t *obj, const char *key, const char *ptr,
                            const char *who, json_t **out) {
    char kp[KVP_ERROR_KEY_MAX];
    ptr_key(kp, sizeof kp, ptr, key);
    json_t *v = json_object_get(obj, key);
    *out = NULL;
    if (!v || json_is_null(v)) return KVP_OK;
    if (!json_is_array(v))
        return pfail(p, KVP_CONFIG, kp, who, "'%s' must be an array, found %s", key, kvp__json_type_name(v));
    *out = v;
    return KVP_OK;
}

/* An enum spelled as one of `names`. */
static kvp_status get_enum(parser *p, json_t *obj, const char *key, const char *ptr,
                           const char *who, const char *const *names, size_t n, unsigned *out) {
    char kp[KVP_ERROR_KEY_MAX], list[512];
    ptr_key(kp, sizeof kp, ptr, key);
    json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v))
        return pfail(p, KVP_CONFIG, kp, who, "missing required '%s' (one of: %s)", key,
                     join_names(names, n, list, sizeof list));
    if (!json_is_string(v))
        return pfail(p, KVP_CONFIG, kp, who, "'%s' must be a string (one of: %s), found %s", key,
                     join_names(names, n, list, sizeof list), kvp__json_type_name(v));
    if (!lookup_name(names, n, json_string_value(v), out))
        return pfail(p, KVP_CONFIG, kp, who, "unknown %s '%.64s' (expected one of: %s)", key,
                     json_string_value(v), join_names(names, n, list, sizeof list));
    return KVP_OK;
}

/* ------------------------------------------------------------ declaration */

static kvp_status parse_bound(parser *p, kvp__local_decl *d, json_t *b, const char *ptr,
                              const char *who) {
    char kp[KVP_ERROR_KEY_MAX];
    ptr_key(kp, sizeof kp, ptr, "mechanism");
    json_t *m = json_object_get(b, "mechanism");
    if (m && json_is_string(m) && strcmp(json_string_value(m), "max_model_len") == 0)
        /* Seed: "No cache is bounded by max_model_len." Say so, not just "unknown". */
        return pfail(p, KVP_CONFIG, kp, who,
                     "no model-local cache is bounded by max_model_len: name the cache's own "
                     "mechanism (%s)",
                     "sliding_window_minus_one, decode_loop_trip_count, encoder_frame_limit, "
                     "constant");
    unsigned mech;
    kvp_status st = get_enum(p, b, "mechanism", ptr, who, k_bound_names, KVP_LOCAL_BOUND_COUNT,
                             &mech);
    if (st) return st;
    d->bound = (kvp_local_bound)mech;
    switch (d->bound) {
    case KVP_LOCAL_BOUND_SLIDING_WINDOW_MINUS_ONE: {
        static const char *const keys[] = {"mechanism", "sliding_window"};
        if ((st = check_keys(p, b, ptr, who, keys, 2))) return st;
        if ((st = get_count(p, b, "sliding_window", ptr, who, KVP__LOCAL_MAX_BOUND, &d->bound_a,
                            NULL)))
            return st;
        if (d->bound_a < 2) {
            ptr_key(kp, sizeof kp, ptr, "sliding_window");
            return pfail(p, KVP_CONFIG, kp, who,
                         "sliding_window must be at least 2 (the cache keeps window - 1 = 0 "
                         "positions otherwise)");
        }
        break;
    }
    case KVP_LOCAL_BOUND_DECODE_LOOP_TRIP_COUNT: {
        static const char *const keys[] = {"mechanism", "group_size", "max_delay"};
        if ((st = check_keys(p, b, ptr, who, keys, 3))) return st;
        if ((st = get_count(p, b, "group_size", ptr, who, KVP__LOCAL_MAX_BOUND, &d->bound_a, NULL)))
            return st;
        /* max(delay_pattern) may legitimately be 0: allow it explicitly. */
        json_t *md = json_object_get(b, "max_delay");
        if (md && json_is_integer(md) && json_integer_value(md) == 0) {
            d->bound_b = 0;
        } else if ((st = get_count(p, b, "max_delay", ptr, who, KVP__LOCAL_MAX_BOUND, &d->bound_b,
                                   NULL))) {
            return st;
        }
        break;
    }
    case KVP_LOCAL_BOUND_ENCODER_FRAME_LIMIT: {
        static const char *const keys[] = {"mechanism", "embed_positions"};
        if ((st = check_keys(p, b, ptr, who, keys, 2))) return st;
        if ((st = get_count(p, b, "embed_positions", ptr, who, KVP__LOCAL_MAX_BOUND, &d->bound_a,
                            NULL)))
            return st;
        break;
    }
    case KVP_LOCAL_BOUND_CONSTANT: {
        static const char *const keys[] = {"mechanism", "max_cache_len"};
        if ((st = check_keys(p, b, ptr, who, keys, 2))) return st;
        if ((st = get_count(p, b, "max_cache_len", ptr, who, KVP__LOCAL_MAX_BOUND, &d->bound_a,
                            NULL)))
            return st;
        break;
    }
    case KVP_LOCAL_BOUND_COUNT:
        break;
    }
    return KVP_OK;
}

static kvp_status parse_geometry(parser *p, kvp__local_decl *d, json_t *g, const char *ptr,
                                 const char *who) {
    static const char *const keys[] = {"hf_config", "config_pointer", "layers", "kv_heads",
                                       "head_dim", "dtype", "element_bytes", "note"};
    kvp_status st = check_keys(p, g, ptr, who, keys, sizeof keys / sizeof keys[0]);
    if (st) return st;
    kvp__local_geometry_decl *gd = &d->geometry;
    json_t *hc = json_object_get(g, "hf_config");
    if (hc && !json_is_null(hc)) {
        if ((st = get_string(p, g, "hf_config", ptr, who, true, &gd->hf_config))) return st;
    }
    if ((st = get_string(p, g, "config_pointer", ptr, who, false, &gd->config_pointer))) return st;
    if (gd->config_pointer[0] && gd->config_pointer[0] != '/') {
        char kp[KVP_ERROR_KEY_MAX];
        ptr_key(kp, sizeof kp, ptr, "config_pointer");
        return pfail(p, KVP_CONFIG, kp, who,
                     "config_pointer must be a JSON pointer starting with '/' (or \"\"), found "
                     "'%.64s'",
                     gd->config_pointer);
    }
    if (gd->config_pointer[0] && !gd->hf_config) {
        char kp[KVP_ERROR_KEY_MAX];
        ptr_key(kp, sizeof kp, ptr, "config_pointer");
        return pfail(p, KVP_CONFIG, kp, who, "config_pointer needs hf_config");
    }
    bool has_layers, has_heads, has_dim, has_eb;
    if ((st = get_count(p, g, "layers", ptr, who, KVP__LOCAL_MAX_LAYERS, &gd->layers, &has_layers)))
        return st;
    if ((st = get_count(p, g, "kv_heads", ptr, who, KVP__LOCAL_MAX_HEADS, &gd->kv_heads,
                        &has_heads)))
        return st;
    if ((st = get_count(p, g, "head_dim", ptr, who, KVP__LOCAL_MAX_HEAD_DIM, &gd->head_dim,
                        &has_dim)))
        return st;
    if ((st = get_count(p, g, "element_bytes", ptr, who, KVP__LOCAL_MAX_ELEMENT_BYTES,
                        &gd->element_bytes, &has_eb)))
        return st;
    json_t *dt = json_object_get(g, "dtype");
    char kp[KVP_ERROR_KEY_MAX];
    ptr_key(kp, sizeof kp, ptr, "dtype");
    if (dt && !json_is_null(dt)) {
        if (has_eb)
            return pfail(p, KVP_CONFIG, kp, who,
                         "give dtype or element_bytes, not both (they could disagree)");
        if (!json_is_string(dt))
            return pfail(p, KVP_CONFIG, kp, who, "dtype must be a string, found %s",
                         kvp__json_type_name(dt));
        kvp_dtype t;
        if (kvp_dtype_parse(json_string_value(dt), &t) != KVP_OK ||
            kvp__local_dtype_bytes(t) == 0)
            return pfail(p, KVP_CONFIG, kp, who,
                         "unknown cache dtype '%.32s' (expected float32, float16, bfloat16, fp8, "
                         "int8)",
                         json_string_value(dt));
        gd->dtype = t;
    }
    if ((st = get_string(p, g, "note", ptr, who, false, &gd->note))) return st;
    if (!gd->hf_config) {
        /* Explicit geometry must be complete: never a guess. */
        const char *missing = !has_layers ? "layers"
                              : !has_heads ? "kv_heads"
                              : !has_dim ? "head_dim"
                              : (!has_eb && gd->dtype == KVP_DTYPE_AUTO) ? "dtype"
                                                                        : NULL;
        if (missing) {
            ptr_key(kp, sizeof kp, ptr, missing);
            return pfail(p, KVP_CONFIG, kp, who,
                         "geometry lacks '%s' and names no hf_config to read it from "
                         "(bytes per row = 2 * layers * kv_heads * head_dim * positions * "
                         "element_bytes needs every factor)",
                         missing);
        }
    }
    return KVP_OK;
}

static kvp_status parse_when(parser *p, kvp__local_decl *d, json_t *w, const char *ptr,
                             const char *who) {
    static const char *const keys[] = {"async_chunk", "streaming", "enforce_eager"};
    kvp_status st = check_keys(p, w, ptr, who, keys, 3);
    if (st) return st;
    int8_t *slots[] = {&d->when.async_chunk, &d->when.streaming, &d->when.enforce_eager};
    for (size_t i = 0; i < 3; i++) {
        json_t *v = json_object_get(w, keys[i]);
        if (!v || json_is_null(v)) continue;
        if (!json_is_boolean(v)) {
            char kp[KVP_ERROR_KEY_MAX];
            ptr_key(kp, sizeof kp, ptr, keys[i]);
            return pfail(p, KVP_CONFIG, kp, who, "'%s' must be true or false, found %s", keys[i],
                         kvp__json_type_name(v));
        }
        *slots[i] = json_is_true(v) ? 1 : 0;
    }
    return KVP_OK;
}

static void decl_free_fields(const kvp_allocator *alc, kvp__local_decl *d) {
    kvp__free(alc, d->name);
    kvp__free(alc, d->pointer);
    kvp__free(alc, d->geometry.hf_config);
    kvp__free(alc, d->geometry.config_pointer);
    kvp__free(alc, d->geometry.note);
    kvp__free(alc, d->rows_reason);
    kvp__free(alc, d->exclusive_group);
    kvp__free(alc, d->allocation_note);
    kvp__free(alc, d->capacity_source);
}

static kvp_status parse_decl(parser *p, json_t *j, const char *ptr) {
    kvp_local_decls *ds = p->d;
    char who[200];
    snprintf(who, sizeof who, "declaration #%zu", ds->decl_count);
    if (!json_is_object(j))
        return pfail(p, KVP_CONFIG, ptr, who, "expected an object, found %s", kvp__json_type_name(j));
    if (ds->decl_count >= KVP_LOCAL_MAX_ENTRIES)
        return pfail(p, KVP_CONFIG, ptr, who, "more than %u declarations in one file",
                     KVP_LOCAL_MAX_ENTRIES);
    if (ds->decl_count == ds->decl_cap) {
        size_t ncap = ds->decl_cap ? ds->decl_cap * 2 : 8;
        kvp__local_decl *n = kvp__realloc(palc(p), ds->decls, ncap * sizeof *n);
        if (!n) return kvp__fail(p->err, KVP_NOMEM, p->file, ptr, "out of memory");
        ds->decls = n;
        ds->decl_cap = ncap;
    }
    kvp__local_decl *d = &ds->decls[ds->decl_count++];
    memset(d, 0, sizeof *d);
    d->when.async_chunk = d->when.streaming = d->when.enforce_eager = -1;
    kvp_status st;
    if ((st = get_string(p, j, "name", ptr, who, true, &d->name))) return st;
    snprintf(who, sizeof who, "declaration '%.160s'", d->name);
    for (size_t i = 0; i + 1 < ds->decl_count; i++)
        if (strcmp(ds->decls[i].name, d->name) == 0) {
            char kp[KVP_ERROR_KEY_MAX];
            ptr_key(kp, sizeof kp, ptr, "name");
            return pfail(p, KVP_CONFIG, kp, who, "name already used by %s", ds->decls[i].pointer);
        }
    d->pointer = kvp__strdup(palc(p), ptr);
    if (!d->pointer) return kvp__fail(p->err, KVP_NOMEM, p->file, ptr, "out of memory");

    static const char *const keys[] = {"name", "kind", "bound", "geometry", "scope",
                                       "row_driver", "rows_fixed", "rows_reason", "when",
                                       "exclusive_group", "allocation_note", "capacity_source"};
    if ((st = check_keys(p, j, ptr, who, keys, sizeof keys / sizeof keys[0]))) return st;

    unsigned e;
    if ((st = get_enum(p, j, "kind", ptr, who, k_kind_names, KVP_LOCAL_KIND_COUNT, &e))) return st;
    d->kind = (kvp_local_cache_kind)e;
    if ((st = get_enum(p, j, "scope", ptr, who, k_scope_names, KVP_LOCAL_SCOPE_COUNT, &e)))
        return st;
    d->scope = (kvp_local_scope)e;
    if ((st = get_enum(p, j, "row_driver", ptr, who, k_driver_names, KVP_LOCAL_ROW_DRIVER_COUNT,
                       &e)))
        return st;
    d->row_driver = (kvp_local_row_driver)e;

    char sub[KVP_ERROR_KEY_MAX];
    json_t *o;
    ptr_key(sub, sizeof sub, ptr, "bound");
    if ((st = get_object(p, j, "bound", ptr, who, true, &o))) return st;
    if ((st = parse_bound(p, d, o, sub, who))) return st;
    ptr_key(sub, sizeof sub, ptr, "geometry");
    if ((st = get_object(p, j, "geometry", ptr, who, true, &o))) return st;
    if ((st = parse_geometry(p, d, o, sub, who))) return st;
    ptr_key(sub, sizeof sub, ptr, "when");
    if ((st = get_object(p, j, "when", ptr, who, false, &o))) return st;
    if (o && (st = parse_when(p, d, o, sub, who))) return st;

    if ((st = get_string(p, j, "rows_reason", ptr, who, false, &d->rows_reason))) return st;
    bool has_rows;
    if ((st = get_count(p, j, "rows_fixed", ptr, who, KVP__LOCAL_MAX_ROWS, &d->rows_fixed,
                        &has_rows)))
        return st;
    if (d->row_driver == KVP_LOCAL_ROWS_FIXED) {
        if (!has_rows) {
            ptr_key(sub, sizeof sub, ptr, "rows_fixed");
            return pfail(p, KVP_CONFIG, sub, who, "row_driver FIXED needs rows_fixed");
        }
        /* Seed: "rows_fixed=1 on a cache that looks per-request is a claim a
         * reviewer must be able to check." */
        if (d->rows_reason[0] == '\0') {
            ptr_key(sub, sizeof sub, ptr, "rows_reason");
            return pfail(p, KVP_CONFIG, sub, who,
                         "row_driver FIXED needs a non-empty rows_reason (why %llu row%s is the "
                         "right width, so a reviewer can check it)",
                         (unsigned long long)d->rows_fixed, d->rows_fixed == 1 ? "" : "s");
        }
    } else if (has_rows) {
        ptr_key(sub, sizeof sub, ptr, "rows_fixed");
        return pfail(p, KVP_CONFIG, sub, who,
                     "rows_fixed is only for row_driver FIXED; MAX_NUM_SEQS takes its width "
                     "from the engine");
    }
    if ((st = get_string(p, j, "exclusive_group", ptr, who, false, &d->exclusive_group))) return st;
    if ((st = get_string(p, j, "allocation_note", ptr, who, false, &d->allocation_note))) return st;
    if ((st = get_string(p, j, "capacity_source", ptr, who, false, &d->capacity_source))) return st;
    return KVP_OK;
}

/* ------------------------------------------------------------ module tree */

static kvp_status add_module(parser *p, const char *ptr, size_t *out) {
    kvp_local_decls *ds = p->d;
    if (++p->modules_seen > KVP_LOCAL_MAX_MODULES)
        return kvp__fail(p->err, KVP_CONFIG, p->file, ptr, "more than %u modules in the tree",
                         KVP_LOCAL_MAX_MODULES);
    if (ds->module_count == ds->module_cap) {
        size_t ncap = ds->module_cap ? ds->module_cap * 2 : 8;
        kvp__local_module *n = kvp__realloc(palc(p), ds->modules, ncap * sizeof *n);
        if (!n) return kvp__fail(p->err, KVP_NOMEM, p->file, ptr, "out of memory");
        ds->modules = n;
        ds->module_cap = ncap;
    }
    *out = ds->module_count++;
    memset(&ds->modules[*out], 0, sizeof ds->modules[*out]);
    return KVP_OK;
}

static kvp_status parse_module(parser *p, json_t *j, const char *ptr, const char *parent_path,
                               bool is_root, bool is_hop, unsigned depth, size_t *out_index);

static kvp_status parse_module_list(parser *p, json_t *arr, const char *ptr, const char *key,
                                    size_t self, bool hop, unsigned depth) {
    size_t n = json_array_size(arr);
    size_t *list = n ? kvp__calloc(palc(p), n, sizeof *list) : NULL;
    if (n && !list) return kvp__fail(p->err, KVP_NOMEM, p->file, ptr, "out of memory");
    kvp__local_module *m = &p->d->modules[self];
    if (hop) {
        m->holds = list;
    } else {
        m->children = list;
    }
    for (size_t i = 0; i < n; i++) {
        char cp[KVP_ERROR_KEY_MAX];
        ptr_index(cp, sizeof cp, ptr, key, i);
        size_t idx;
        /* The module array may move: re-read the path by index each time. */
        char *path = kvp__strdup(palc(p), p->d->modules[self].path);
        if (!path) return kvp__fail(p->err, KVP_NOMEM, p->file, cp, "out of memory");
        kvp_status st = parse_module(p, json_array_get(arr, i), cp, path, false, hop, depth + 1,
                                     &idx);
        kvp__free(palc(p), path);
        if (st) return st;
        m = &p->d->modules[self];
        if (hop) {
            m->holds[m->hold_count++] = idx;
        } else {
            m->children[m->child_count++] = idx;
        }
    }
    return KVP_OK;
}

static kvp_status parse_module(parser *p, json_t *j, const char *ptr, const char *parent_path,
                               bool is_root, bool is_hop, unsigned depth, size_t *out_index) {
    char who[320];
    snprintf(who, sizeof who, "module at %s", ptr);
    if (!json_is_object(j))
        return pfail(p, KVP_CONFIG, ptr, who, "expected an object, found %s", kvp__json_type_name(j));
    if (depth > KVP_LOCAL_MAX_DEPTH)
        return pfail(p, KVP_CONFIG, ptr, who, "module tree deeper than %u", KVP_LOCAL_MAX_DEPTH);
    static const char *const keys[] = {"name", "class", "declares", "fails", "children", "holds"};
    kvp_status st = check_keys(p, j, ptr, who, keys, is_hop ? 4 : 6);
    if (st) {
        if (is_hop && (json_object_get(j, "children") || json_object_get(j, "holds")))
            return pfail(p, KVP_CONFIG, ptr, who,
                         "an owner reached by a hop is not walked: it takes no children or "
                         "holds (declare on it directly)");
        return st;
    }
    size_t self = 0;
    if ((st = add_module(p, ptr, &self))) return st;
    kvp__local_module *m = &p->d->modules[self];
    m->is_hop = is_hop;
    char *name = NULL;
    if (is_root) {
        if (json_object_get(j, "name"))
            return pfail(p, KVP_CONFIG, ptr, who, "the root module has no attribute name");
        name = kvp__strdup(palc(p), "");
        if (!name) return kvp__fail(p->err, KVP_NOMEM, p->file, ptr, "out of memory");
    } else if ((st = get_string(p, j, "name", ptr, who, true, &name))) {
        return st;
    }
    m = &p->d->modules[self];
    m->name = name;
    if (strchr(name, '.')) {
        char kp[KVP_ERROR_KEY_MAX];
        ptr_key(kp, sizeof kp, ptr, "name");
        return pfail(p, KVP_CONFIG, kp, who, "attribute name '%.64s' contains '.'", name);
    }
    size_t plen = strlen(parent_path), nlen = strlen(name);
    m->path = kvp__malloc(palc(p), plen + nlen + 2);
    if (!m->path) return kvp__fail(p->err, KVP_NOMEM, p->file, ptr, "out of memory");
    if (plen)
        snprintf(m->path, plen + nlen + 2, "%s.%s", parent_path, name);
    else
        snprintf(m->path, plen + nlen + 2, "%s", name);
    snprintf(who, sizeof who, "module '%.200s'", m->path[0] ? m->path : "(root)");
    char *cls = NULL;
    if ((st = get_string(p, j, "class", ptr, who, false, &cls))) return st;
    m = &p->d->modules[self];
    m->class_name = cls;

    json_t *fails = json_object_get(j, "fails");
    if (fails && !json_is_null(fails)) {
        char *f = NULL;
        if ((st = get_string(p, j, "fails", ptr, who, true, &f))) return st;
        p->d->modules[self].fails = f;
    }
    json_t *arr;
    if ((st = get_array(p, j, "declares", ptr, who, &arr))) return st;
    m = &p->d->modules[self];
    m->is_declarer = arr != NULL || m->fails != NULL;
    m->decl_first = p->d->decl_count;
    if (arr) {
        for (size_t i = 0; i < json_array_size(arr); i++) {
            char dp[KVP_ERROR_KEY_MAX];
            ptr_index(dp, sizeof dp, ptr, "declares", i);
            if ((st = parse_decl(p, json_array_get(arr, i), dp))) return st;
        }
    }
    p->d->modules[self].decl_count = p->d->decl_count - p->d->modules[self].decl_first;
    if (!is_hop) {
        if ((st = get_array(p, j, "holds", ptr, who, &arr))) return st;
        if (arr && (st = parse_module_list(p, arr, ptr, "holds", self, true, depth))) return st;
        if ((st = get_array(p, j, "children", ptr, who, &arr))) return st;
        if (arr && (st = parse_module_list(p, arr, ptr, "children", self, false, depth))) return st;
    }
    *out_index = self;
    return KVP_OK;
}

/* ------------------------------------------------------------ file */

void kvp_local_decls_free(kvp_local_decls *ds) {
    if (!ds) return;
    kvp_allocator copy;
    const kvp_allocator *alc = NULL;
    if (ds->has_alc) {
        copy = ds->alc;
        alc = &copy;
    }
    for (size_t i = 0; i < ds->decl_count; i++) decl_free_fields(alc, &ds->decls[i]);
    for (size_t i = 0; i < ds->module_count; i++) {
        kvp__local_module *m = &ds->modules[i];
        kvp__free(alc, m->name);
        kvp__free(alc, m->class_name);
        kvp__free(alc, m->path);
        kvp__free(alc, m->fails);
        kvp__free(alc, m->children);
        kvp__free(alc, m->holds);
    }
    kvp__free(alc, ds->decls);
    kvp__free(alc, ds->modules);
    kvp__free(alc, ds->source);
    kvp__free(alc, ds->model);
    kvp__free(alc, ds->description);
    kvp__free(alc, ds->wrapper_class);
    kvp__free(alc, ds);
}

const char *kvp_local_decls_model(const kvp_local_decls *decls) { return decls->model; }

static kvp_status parse_file(parser *p, json_t *root) {
    const char *who = "declaration file";
    if (!json_is_object(root))
        return pfail(p, KVP_CONFIG, "", who, "expected a JSON object, found %s", kvp__json_type_name(root));
    static const char *const keys[] = {"model", "aliases", "description", "note", "module_tree"};
    kvp_status st = check_keys(p, root, "", who, keys, 5);
    if (st) return st;
    if ((st = get_string(p, root, "model", "", who, true, &p->d->model))) return st;
    if (strlen(p->d->model) > 128)
        return pfail(p, KVP_CONFIG, "/model", who, "model name longer than 128 bytes");
    if ((st = get_string(p, root, "description", "", who, false, &p->d->description))) return st;
    json_t *aliases;
    if ((st = get_array(p, root, "aliases", "", who, &aliases))) return st;
    for (size_t i = 0; aliases && i < json_array_size(aliases); i++)
        if (!json_is_string(json_array_get(aliases, i))) {
            char kp[KVP_ERROR_KEY_MAX];
            ptr_index(kp, sizeof kp, "", "aliases", i);
            return pfail(p, KVP_CONFIG, kp, who, "aliases must be strings");
        }
    json_t *note = json_object_get(root, "note");
    if (note && !json_is_string(note))
        return pfail(p, KVP_CONFIG, "/note", who, "expected a string, found %s", kvp__json_type_name(note));
    json_t *tree;
    if ((st = get_object(p, root, "module_tree", "", who, true, &tree))) return st;
    json_t *runnable = json_object_get(tree, "runnable");
    if (runnable) {
        /* A CUDA-graph wrapper: not an nn.Module, forwards attribute access to
         * its runnable (seed "Finding the declarers"). */
        static const char *const wkeys[] = {"class", "runnable"};
        if ((st = check_keys(p, tree, "/module_tree", "graph wrapper", wkeys, 2))) return st;
        if ((st = get_string(p, tree, "class", "/module_tree", "graph wrapper", false,
                             &p->d->wrapper_class)))
            return st;
        p->d->has_wrapper = true;
        return parse_module(p, runnable, "/module_tree/runnable", "", true, false, 0,
                            &p->d->root);
    }
    p->d->wrapper_class = kvp__strdup(palc(p), "");
    if (!p->d->wrapper_class) return kvp__fail(p->err, KVP_NOMEM, p->file, "", "out of memory");
    return parse_module(p, tree, "/module_tree", "", true, false, 0, &p->d->root);
}

kvp_status kvp_local_decls_from_json(const char *text, size_t len, const char *source_name,
                                     const kvp_allocator *alc, kvp_local_decls **out,
                                     kvp_error *err) {
    if (out) *out = NULL;
    if (!text || !out)
        return kvp__fail(err, KVP_INVALID_ARG, source_name, NULL, "NULL text or out pointer");
    const char *file = source_name ? source_name : "(declarations)";
    if (len > KVP_MAX_CONFIG_BYTES)
        return kvp__fail(err, KVP_CONFIG, file, NULL, "declaration file of %zu bytes exceeds %zu",
                         len, KVP_MAX_CONFIG_BYTES);
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        kvp_status st = kvp__fail(err, KVP_SYNTAX, file, NULL, "line %d, column %d: %s",
                                  jerr.line, jerr.column, jerr.text);
        if (err) {
            err->line = jerr.line;
            err->column = jerr.column;
        }
        return st;
    }
    kvp_local_decls *ds = kvp__calloc(alc, 1, sizeof *ds);
    if (!ds) {
        json_decref(root);
        return kvp__fail(err, KVP_NOMEM, file, NULL, "out of memory");
    }
    if (alc) {
        ds->alc = *alc;
        ds->has_alc = true;
    }
    parser p = {ds, file, err, 0};
    kvp_status st = KVP_OK;
    ds->source = kvp__strdup(alc, file);
    if (!ds->source) st = kvp__fail(err, KVP_NOMEM, file, NULL, "out of memory");
    if (!st) st = parse_file(&p, root);
    json_decref(root);
    if (st) {
        kvp_local_decls_free(ds);
        return st;
    }
    *out = ds;
    return KVP_OK;
}

kvp_status kvp_local_decls_load_file(const char *path, const kvp_allocator *alc,
                                     kvp_local_decls **out, kvp_error *err) {
    if (out) *out = NULL;
    if (!path || !out) return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "NULL path");
    char *buf = NULL;
    size_t len = 0;
    kvp_status st = kvp__read_file(path, KVP_MAX_CONFIG_BYTES, alc, &buf, &len, err);
    if (st) return st;
    st = kvp_local_decls_from_json(buf, len, path, alc, out, err);
    kvp__free(alc, buf);
    return st;
}
