/*
 * geometry.c — bytes per row of a model-local cache, from the config the
 * cache is built from (seed "Adding a model": spec_from_hf_config, which
 * raises rather than guessing when an attribute is missing).
 *
 *   bytes_per_row = 2 (K and V) * layers * kv_heads * head_dim * positions * element_bytes
 *
 * Attributes read from a Hugging Face config object (at config_pointer):
 *   layers    num_hidden_layers
 *   kv_heads  num_key_value_heads     (no fallback to num_attention_heads: that
 *                                      would be a guess about the architecture)
 *   head_dim  head_dim, else hidden_size / num_attention_heads (how
 *             transformers' attention modules define it; must divide)
 *   dtype     torch_dtype, else dtype
 * Each may be overridden by the declaration; a missing one is an error that
 * names the attribute and the declaration.
 */
#include <stdio.h>
#include <string.h>

#include "local_internal.h"
#include "model_internal.h"

uint64_t kvp__local_dtype_bytes(kvp_dtype dtype) {
    switch (dtype) {
    case KVP_DTYPE_FP32: return 4;
    case KVP_DTYPE_FP16:
    case KVP_DTYPE_BF16: return 2;
    case KVP_DTYPE_FP8:
    case KVP_DTYPE_INT8: return 1;
    default: return 0; /* AUTO needs resolving; nvfp4 is not a transformers cache dtype */
    }
}

kvp_status kvp_local_bytes_per_row(uint64_t layers, uint64_t kv_heads, uint64_t head_dim,
                                   uint64_t positions, uint64_t element_bytes,
                                   uint64_t *out_bytes, kvp_error *err) {
    if (!out_bytes) return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "NULL out_bytes");
    *out_bytes = 0;
    const char *zero = layers == 0 ? "layers"
                       : kv_heads == 0 ? "kv_heads"
                       : head_dim == 0 ? "head_dim"
                       : positions == 0 ? "positions"
                       : element_bytes == 0 ? "element_bytes"
                                            : NULL;
    if (zero)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, zero, "%s must be at least 1, found 0", zero);
    uint64_t v;
    if (!kvp__mul_many_u64(&v, 6, (uint64_t)2, layers, kv_heads, head_dim, positions,
                           element_bytes))
        return kvp__fail(err, KVP_OVERFLOW, NULL, "bytes_per_row",
                         "2 * %llu layers * %llu kv_heads * %llu head_dim * %llu positions * %llu "
                         "B does not fit in 64 bits",
                         (unsigned long long)layers, (unsigned long long)kv_heads,
                         (unsigned long long)head_dim, (unsigned long long)positions,
                         (unsigned long long)element_bytes);
    *out_bytes = v;
    return KVP_OK;
}

kvp_status kvp__local_positions(const kvp__local_decl *d, const char *file, uint64_t *out,
                                char *formula, size_t formula_size, kvp_error *err) {
    uint64_t a = d->bound_a, b = d->bound_b, v = 0;
    switch (d->bound) {
    case KVP_LOCAL_BOUND_SLIDING_WINDOW_MINUS_ONE:
        /* A sliding DynamicCache keeps window - 1 past positions (seed: 72 - 1 = 71). */
        if (a < 2) break;
        v = a - 1;
        snprintf(formula, formula_size, "sliding_window - 1 = %llu - 1 = %llu",
                 (unsigned long long)a, (unsigned long long)v);
        break;
    case KVP_LOCAL_BOUND_DECODE_LOOP_TRIP_COUNT:
        if (!kvp__add_u64(a, b, &v)) v = 0;
        snprintf(formula, formula_size, "group_size + max(delay_pattern) = %llu + %llu = %llu",
                 (unsigned long long)a, (unsigned long long)b, (unsigned long long)v);
        break;
    case KVP_LOCAL_BOUND_ENCODER_FRAME_LIMIT:
        v = a;
        snprintf(formula, formula_size, "embed_positions rows = %llu", (unsigned long long)a);
        break;
    case KVP_LOCAL_BOUND_CONSTANT:
        v = a;
        snprintf(formula, formula_size, "max_cache_len = %llu", (unsigned long long)a);
        break;
    case KVP_LOCAL_BOUND_COUNT:
        break;
    }
    if (v == 0)
        return kvp__fail(err, KVP_CONFIG, file, d->pointer,
                         "declaration '%s': bound %s resolves to zero positions", d->name,
                         kvp_local_bound_name(d->bound));
    *out = v;
    return KVP_OK;
}

/* ------------------------------------------------------------ config reading */

typedef struct cfg_ctx {
    const char *config_name;
    const char *decl_file;
    const kvp__local_decl *d;
    const char *base; /* config_pointer */
    kvp_error *err;
} cfg_ctx;

static kvp_status cfg_missing(const cfg_ctx *c, const char *attr, const char *field) {
    char kp[KVP_ERROR_KEY_MAX];
    snprintf(kp, sizeof kp, "%s/%s", c->base, attr);
    return kvp__fail(c->err, KVP_CONFIG, c->config_name, kp,
                     "declaration '%s' (%s) needs %s, but the config has no %s; set "
                     "geometry.%s in the declaration rather than guess",
                     c->d->name, c->decl_file, field, attr, field);
}

/* A positive integer attribute; *found=false when absent or null. */
static kvp_status cfg_uint(const cfg_ctx *c, const kvp_config_value *v, const char *attr,
                           uint64_t max, uint64_t *out, bool *found) {
    *found = false;
    if (v->kind == KVP_CONFIG_VALUE_ABSENT) return KVP_OK;
    char kp[KVP_ERROR_KEY_MAX];
    snprintf(kp, sizeof kp, "%s/%s", c->base, attr);
    double x;
    if (v->kind == KVP_CONFIG_VALUE_INTEGER) {
        int64_t n = v->integer;
        if (n < 1 || (unsigned long long)n > max)
            return kvp__fail(c->err, KVP_CONFIG, c->config_name, kp,
                             "declaration '%s' (%s): expected an integer in [1, %llu], found %lld",
                             c->d->name, c->decl_file, (unsigned long long)max, (long long)n);
        *out = (uint64_t)n;
    } else if (v->kind == KVP_CONFIG_VALUE_REAL && (x = v->real) >= 1.0 && x <= (double)max &&
               x == (double)(uint64_t)x) {
        *out = (uint64_t)x;
    } else {
        return kvp__fail(c->err, KVP_CONFIG, c->config_name, kp,
                         "declaration '%s' (%s): expected a positive integer at most %llu%s",
                         c->d->name, c->decl_file, (unsigned long long)max,
                         v->kind == KVP_CONFIG_VALUE_NONFINITE ? " (found a NaN / Infinity)" : "");
    }
    *found = true;
    return KVP_OK;
}

static void appendf(char *buf, size_t size, const char *fmt, ...) KVP_PRINTF(3, 4);
static void appendf(char *buf, size_t size, const char *fmt, ...) {
    size_t used = strlen(buf);
    if (used + 1 >= size) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, size - used, fmt, ap);
    va_end(ap);
}

kvp_status kvp__local_geometry_from_subconfig(const kvp_subconfig_facts *obj,
                                              const char *config_name, const kvp__local_decl *d,
                                              const char *decl_file, kvp__local_geometry *out,
                                              kvp_error *err) {
    const kvp__local_geometry_decl *g = &d->geometry;
    const char *base = g->config_pointer ? g->config_pointer : "";
    cfg_ctx c = {config_name, decl_file, d, base, err};
    memset(out, 0, sizeof *out);
    kvp_status st = KVP_OK;
    if (!obj) {
        st = kvp__fail(err, KVP_CONFIG, config_name, base,
                       "declaration '%s' (%s): config has no object at config_pointer '%s'",
                       d->name, decl_file, base);
        goto done;
    }
    snprintf(out->source, sizeof out->source, "config %s%s%s:", config_name, base[0] ? " " : "",
             base);
    bool found;
    /* layers */
    if (g->layers) {
        out->layers = g->layers;
        appendf(out->source, sizeof out->source, " layers = %llu (declared),",
                (unsigned long long)g->layers);
    } else {
        if ((st = cfg_uint(&c, &obj->num_hidden_layers, "num_hidden_layers", KVP__LOCAL_MAX_LAYERS, &out->layers,
                           &found)))
            goto done;
        if (!found) {
            st = cfg_missing(&c, "num_hidden_layers", "layers");
            goto done;
        }
        appendf(out->source, sizeof out->source, " layers = num_hidden_layers = %llu,",
                (unsigned long long)out->layers);
    }
    /* kv heads */
    if (g->kv_heads) {
        out->kv_heads = g->kv_heads;
        appendf(out->source, sizeof out->source, " kv_heads = %llu (declared),",
                (unsigned long long)g->kv_heads);
    } else {
        if ((st = cfg_uint(&c, &obj->num_key_value_heads, "num_key_value_heads", KVP__LOCAL_MAX_HEADS, &out->kv_heads,
                           &found)))
            goto done;
        if (!found) {
            st = cfg_missing(&c, "num_key_value_heads", "kv_heads");
            goto done;
        }
        appendf(out->source, sizeof out->source, " kv_heads = num_key_value_heads = %llu,",
                (unsigned long long)out->kv_heads);
    }
    /* head dim */
    if (g->head_dim) {
        out->head_dim = g->head_dim;
        appendf(out->source, sizeof out->source, " head_dim = %llu (declared),",
                (unsigned long long)g->head_dim);
    } else {
        if ((st = cfg_uint(&c, &obj->head_dim, "head_dim", KVP__LOCAL_MAX_HEAD_DIM, &out->head_dim, &found)))
            goto done;
        if (found) {
            appendf(out->source, sizeof out->source, " head_dim = %llu,",
                    (unsigned long long)out->head_dim);
        } else {
            uint64_t hidden, heads;
            bool has_hidden, has_heads;
            if ((st = cfg_uint(&c, &obj->hidden_size, "hidden_size", UINT32_MAX, &hidden, &has_hidden))) goto done;
            if ((st = cfg_uint(&c, &obj->num_attention_heads, "num_attention_heads", KVP__LOCAL_MAX_HEADS, &heads,
                               &has_heads)))
                goto done;
            if (!has_hidden || !has_heads) {
                st = cfg_missing(&c, !has_hidden ? "hidden_size" : "num_attention_heads",
                                 "head_dim");
                goto done;
            }
            if (hidden % heads != 0 || hidden / heads > KVP__LOCAL_MAX_HEAD_DIM) {
                char kp[KVP_ERROR_KEY_MAX];
                snprintf(kp, sizeof kp, "%s/hidden_size", base);
                st = kvp__fail(err, KVP_CONFIG, config_name, kp,
                               "declaration '%s' (%s): head_dim = hidden_size / "
                               "num_attention_heads = %llu / %llu is not a whole head; set "
                               "geometry.head_dim",
                               d->name, decl_file, (unsigned long long)hidden,
                               (unsigned long long)heads);
                goto done;
            }
            out->head_dim = hidden / heads;
            appendf(out->source, sizeof out->source,
                    " head_dim = hidden_size / num_attention_heads = %llu / %llu = %llu,",
                    (unsigned long long)hidden, (unsigned long long)heads,
                    (unsigned long long)out->head_dim);
        }
    }
    /* element bytes */
    if (g->element_bytes) {
        out->element_bytes = g->element_bytes;
        out->dtype = KVP_DTYPE_AUTO;
        appendf(out->source, sizeof out->source, " element_bytes = %llu (declared)",
                (unsigned long long)g->element_bytes);
    } else if (g->dtype != KVP_DTYPE_AUTO) {
        out->dtype = g->dtype;
        out->element_bytes = kvp__local_dtype_bytes(g->dtype);
        appendf(out->source, sizeof out->source, " dtype = %s (declared)", kvp_dtype_name(g->dtype));
    } else {
        const char *attr = "torch_dtype";
        const kvp_config_value *v = &obj->torch_dtype;
        if (v->kind == KVP_CONFIG_VALUE_ABSENT) {
            attr = "dtype";
            v = &obj->dtype;
        }
        if (v->kind == KVP_CONFIG_VALUE_ABSENT) {
            st = cfg_missing(&c, "torch_dtype", "dtype");
            goto done;
        }
        kvp_dtype t = KVP_DTYPE_AUTO;
        if (v->kind != KVP_CONFIG_VALUE_STRING || kvp_dtype_parse(v->string, &t) != KVP_OK ||
            kvp__local_dtype_bytes(t) == 0) {
            char kp[KVP_ERROR_KEY_MAX];
            snprintf(kp, sizeof kp, "%s/%s", base, attr);
            st = kvp__fail(err, KVP_CONFIG, config_name, kp,
                           "declaration '%s' (%s): %s is not a cache dtype (expected float32, "
                           "float16, bfloat16, fp8, int8); set geometry.dtype",
                           d->name, decl_file, attr);
            goto done;
        }
        out->dtype = t;
        out->element_bytes = kvp__local_dtype_bytes(t);
        appendf(out->source, sizeof out->source, " dtype = %s = %s", attr, kvp_dtype_name(t));
    }
done:
    return st;
}

kvp_status kvp__local_geometry_from_config(const char *text, size_t len, const char *config_name,
                                           const kvp__local_decl *d, const char *decl_file,
                                           kvp__local_geometry *out, kvp_error *err) {
    const char *base = d->geometry.config_pointer ? d->geometry.config_pointer : "";
    kvp_subconfig_facts obj;
    bool found = false;
    kvp_error perr;
    memset(out, 0, sizeof *out);
    kvp_status st = kvp__subconfig_from_json(text, len, NULL, base, &obj, &found, &perr);
    if (st == KVP_SYNTAX) {
        st = kvp__fail(err, KVP_SYNTAX, config_name, NULL,
                       "declaration '%s' (%s): config is not JSON: %s", d->name, decl_file,
                       perr.message);
        if (err) {
            err->line = perr.line;
            err->column = perr.column;
        }
        return st;
    }
    if (st) {
        if (err) *err = perr;
        return st;
    }
    return kvp__local_geometry_from_subconfig(found ? &obj : NULL, config_name, d, decl_file, out,
                                              err);
}

void kvp__local_configs_free(kvp__local_configs *cache) {
    if (!cache) return;
    for (size_t i = 0; i < cache->count; i++) {
        kvp__free(cache->alc, cache->items[i].name);
        kvp_model_free(cache->items[i].model);
    }
    kvp__free(cache->alc, cache->items);
    memset(cache, 0, sizeof *cache);
}

/* The config `name`, opened once per collection. Borrowed: the cache owns it. */
static kvp_status open_config(kvp__local_configs *cache, const kvp_allocator *alc,
                              const char *name, const kvp_model **out, kvp_error *err) {
    for (size_t i = 0; i < cache->count; i++) {
        const kvp__local_config *c = &cache->items[i];
        if (strcmp(c->name, name) != 0) continue;
        if (c->status && err) *err = c->error;
        *out = c->model;
        return c->status;
    }
    if (cache->count == cache->cap) {
        size_t cap = cache->cap ? 2 * cache->cap : 8;
        kvp__local_config *grown =
            kvp__realloc(cache->alc, cache->items, cap * sizeof *grown);
        if (!grown) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
        cache->items = grown;
        cache->cap = cap;
    }
    kvp__local_config *c = &cache->items[cache->count];
    memset(c, 0, sizeof *c);
    if (!(c->name = kvp__strdup(cache->alc, name)))
        return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
    kvp_error_clear(&c->error);
    c->status = kvp_model_open(name, alc, &c->model, &c->error);
    cache->count++;
    if (c->status && err) *err = c->error;
    *out = c->model;
    return c->status;
}

kvp_status kvp__local_resolve_geometry(const kvp_local_decls *decls, const kvp__local_decl *d,
                                       kvp__local_configs *cache, kvp__local_geometry *out,
                                       kvp_error *err) {
    const kvp__local_geometry_decl *g = &d->geometry;
    memset(out, 0, sizeof *out);
    if (!g->hf_config) {
        /* Explicit geometry; completeness was checked when the file was read. */
        out->layers = g->layers;
        out->kv_heads = g->kv_heads;
        out->head_dim = g->head_dim;
        out->dtype = g->element_bytes ? KVP_DTYPE_AUTO : g->dtype;
        out->element_bytes = g->element_bytes ? g->element_bytes : kvp__local_dtype_bytes(g->dtype);
        snprintf(out->source, sizeof out->source, "declared%s%s", g->note && g->note[0] ? ": " : "",
                 g->note ? g->note : "");
        if (!out->layers || !out->kv_heads || !out->head_dim || !out->element_bytes)
            return kvp__fail(err, KVP_CONFIG, decls->source, d->pointer,
                             "declaration '%s': incomplete explicit geometry", d->name);
        return KVP_OK;
    }
    const kvp_model *model = NULL;
    kvp_status st = open_config(cache, kvp__local_decls_alc(decls), g->hf_config, &model, err);
    if (st) {
        if (err) {
            char msg[KVP_ERROR_MESSAGE_MAX];
            kvp__strlcpy(msg, err->message, sizeof msg);
            kvp__fail(err, st, decls->source, d->pointer,
                      "declaration '%s': geometry.hf_config '%s' could not be read: %s", d->name,
                      g->hf_config, msg);
        }
        return st;
    }
    if (!kvp_model_get_facts(model)->from_config) {
        st = kvp__fail(err, KVP_UNSUPPORTED, decls->source, d->pointer,
                       "declaration '%s': geometry.hf_config '%s' is not a JSON config", d->name,
                       g->hf_config);
    } else {
        st = kvp__local_geometry_from_subconfig(
            kvp_model_subconfig(model, g->config_pointer ? g->config_pointer : ""), g->hf_config,
            d, decls->source, out, err);
        if (!st && g->note && g->note[0])
            appendf(out->source, sizeof out->source, " (%s)", g->note);
    }
    return st;
}
