/*
 * gguf_geometry.c — a model from a small JSON of GGUF-style geometry, as the
 * reference cases state it when no config.json exists:
 *
 *   {"arch": "gemma2", "block_count": 26, "head_count_kv": 4, "key_length": 256,
 *    "value_length": 256, "sliding_window": 4096}
 *
 * Bare names are taken as "{arch}.<GGUF key>" (head_count_kv ->
 * {arch}.attention.head_count_kv); dotted names are used as written. The
 * metadata then goes through the same llama.cpp architecture rules as a GGUF
 * file (gguf_arch.c), so a geometry and the GGUF it describes plan alike.
 * A {"geometry": {...}} wrapper (a reference case's field) is accepted.
 */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "gguf_internal.h"

typedef struct alias {
    const char *bare;
    const char *key; /* suffix after "{arch}." */
} alias;

static const alias k_alias[] = {
    {"block_count", "block_count"},
    {"n_layer", "block_count"},
    {"context_length", "context_length"},
    {"n_ctx_train", "context_length"},
    {"embedding_length", "embedding_length"},
    {"n_embd", "embedding_length"},
    {"feed_forward_length", "feed_forward_length"},
    {"head_count", "attention.head_count"},
    {"n_head", "attention.head_count"},
    {"head_count_kv", "attention.head_count_kv"},
    {"n_head_kv", "attention.head_count_kv"},
    {"key_length", "attention.key_length"},
    {"value_length", "attention.value_length"},
    {"key_length_swa", "attention.key_length_swa"},
    {"value_length_swa", "attention.value_length_swa"},
    {"key_length_mla", "attention.key_length_mla"},
    {"value_length_mla", "attention.value_length_mla"},
    {"kv_lora_rank", "attention.kv_lora_rank"},
    {"sliding_window", "attention.sliding_window"},
    {"n_swa", "attention.sliding_window"},
    {"sliding_window_pattern", "attention.sliding_window_pattern"},
    {"swa_pattern", "attention.sliding_window_pattern"},
    {"shared_kv_layers", "attention.shared_kv_layers"},
    {"indexer_key_length", "attention.indexer.key_length"},
    {"full_attention_interval", "full_attention_interval"},
    {"nextn_predict_layers", "nextn_predict_layers"},
    {"ssm_conv_kernel", "ssm.conv_kernel"},
    {"ssm_d_conv", "ssm.conv_kernel"},
    {"ssm_inner_size", "ssm.inner_size"},
    {"ssm_d_inner", "ssm.inner_size"},
    {"ssm_state_size", "ssm.state_size"},
    {"ssm_d_state", "ssm.state_size"},
    {"ssm_time_step_rank", "ssm.time_step_rank"},
    {"ssm_dt_rank", "ssm.time_step_rank"},
    {"ssm_group_count", "ssm.group_count"},
    {"ssm_n_group", "ssm.group_count"},
    {"wkv_head_size", "wkv.head_size"},
    {"token_shift_count", "token_shift_count"},
    {"shortconv_l_cache", "shortconv.l_cache"},
    {"vocab_size", "vocab_size"},
    {"n_embd_r", "n_embd_r"},
    {"n_embd_s", "n_embd_s"},
};

static kvp_status add_value(kvp__gguf_meta *m, const char *key, json_t *v, kvp_error *err) {
    kvp__gguf_kv kv;
    memset(&kv, 0, sizeof kv);
    if (json_is_integer(v) || json_is_boolean(v)) {
        kv.type = KVP__GGUF_INT64;
        kv.is_int = true;
        kv.ival = json_is_boolean(v) ? json_is_true(v) : json_integer_value(v);
        kv.fval = (double)kv.ival;
    } else if (json_is_real(v)) {
        kv.type = KVP__GGUF_FLOAT64;
        kv.fval = json_real_value(v);
    } else if (json_is_string(v)) {
        kv.type = KVP__GGUF_STRING;
        kv.str = kvp__strdup(m->alc, json_string_value(v));
        if (!kv.str) return kvp__fail(err, KVP_NOMEM, m->name, key, "out of memory");
    } else if (json_is_array(v)) {
        size_t n = json_array_size(v);
        if (n > KVP__GGUF_MAX_KEPT_ARRAY)
            return kvp__fail(err, KVP_CONFIG, m->name, key, "array of %zu entries is too long", n);
        kv.type = KVP__GGUF_ARRAY;
        kv.elem_type = KVP__GGUF_INT64;
        kv.count = n;
        kv.is_int = true;
        kv.values = kvp__calloc(m->alc, n ? n : 1, sizeof *kv.values);
        if (!kv.values) return kvp__fail(err, KVP_NOMEM, m->name, key, "out of memory");
        for (size_t i = 0; i < n; i++) {
            json_t *e = json_array_get(v, i);
            if (json_is_integer(e))
                kv.values[i] = (double)json_integer_value(e);
            else if (json_is_boolean(e))
                kv.values[i] = json_is_true(e);
            else if (json_is_real(e)) {
                kv.values[i] = json_real_value(e);
                kv.is_int = false;
            } else {
                kvp__free(m->alc, kv.values);
                return kvp__fail(err, KVP_CONFIG, m->name, key,
                                 "array entry %zu is not a number or boolean", i);
            }
        }
    } else {
        return KVP_OK; /* null / objects carry no geometry */
    }
    kv.key = kvp__strdup(m->alc, key);
    if (!kv.key) {
        kvp__free(m->alc, kv.str);
        kvp__free(m->alc, kv.values);
        return kvp__fail(err, KVP_NOMEM, m->name, key, "out of memory");
    }
    return kvp__gguf_meta_add(m, &kv, err);
}

static json_int_t int_at(json_t *v, size_t i) {
    if (json_is_integer(v)) return json_integer_value(v);
    json_t *e = json_array_get(v, i);
    return json_is_integer(e) ? json_integer_value(e) : -1;
}

/* {arch}.attention.<what> from head_dim, or from <gqa> / head_count_kv per layer. */
static kvp_status derive_length(kvp__gguf_meta *m, json_t *g, const char *a, const char *what,
                                const char *gqa, kvp_error *err) {
    char key[160];
    snprintf(key, sizeof key, "%s.attention.%s", a, what);
    if (kvp__gguf_find(m, key)) return KVP_OK;
    json_t *hd = json_object_get(g, "head_dim");
    if (json_is_integer(hd)) return add_value(m, key, hd, err);
    json_t *w = json_object_get(g, gqa);
    json_t *kvh = json_object_get(g, "head_count_kv");
    if (!kvh) kvh = json_object_get(g, "n_head_kv");
    if (!w || !kvh) return KVP_OK;
    size_t n = 1;
    if (json_is_array(w)) n = json_array_size(w);
    if (json_is_array(kvh) && json_array_size(kvh) > n) n = json_array_size(kvh);
    if (n > KVP__GGUF_MAX_KEPT_ARRAY)
        return kvp__fail(err, KVP_CONFIG, m->name, gqa, "array is too long");
    bool array = json_is_array(w) || json_is_array(kvh);
    json_t *out = array ? json_array() : NULL;
    json_int_t scalar = 0;
    for (size_t i = 0; i < n; i++) {
        json_int_t width = int_at(w, i), heads = int_at(kvh, i), len = 0;
        if (width < 0 || heads < 0) {
            json_decref(out);
            return kvp__fail(err, KVP_CONFIG, m->name, gqa,
                             "entry %zu of %s / head_count_kv is not an integer", i, gqa);
        }
        if (heads > 0) len = width / heads;
        if (array)
            json_array_append_new(out, json_integer(len));
        else
            scalar = len;
    }
    if (!array) out = json_integer(scalar);
    kvp_status st = add_value(m, key, out, err);
    json_decref(out);
    return st;
}

kvp_status kvp_model_from_geometry_json(const char *text, size_t len, const char *name,
                                        const kvp_allocator *alc, kvp_model **out,
                                        kvp_error *err) {
    *out = NULL;
    json_t *root = NULL;
    kvp_status st = kvp__config_parse(text, len, name, alc, &root, err);
    if (st) return st;
    st = kvp__model_from_geometry_root(root, name, alc, out, err);
    json_decref(root);
    return st;
}

kvp_status kvp__model_from_geometry_root(json_t *root, const char *name,
                                         const kvp_allocator *alc, kvp_model **out,
                                         kvp_error *err) {
    *out = NULL;
    json_t *g = json_object_get(root, "geometry");
    if (!json_is_object(g)) g = root;
    json_t *arch = json_object_get(g, "arch");
    if (!json_is_string(arch)) arch = json_object_get(g, "general.architecture");
    if (!json_is_object(g) || !json_is_string(arch) || strlen(json_string_value(arch)) > 60) {
        return kvp__fail(err, KVP_CONFIG, name, "/arch",
                         "a geometry needs \"arch\" (the GGUF general.architecture)");
    }
    const char *a = json_string_value(arch);
    kvp__gguf_meta m;
    kvp__gguf_meta_init(&m, alc, name);
    kvp_status st = add_value(&m, "general.architecture", arch, err);
    const char *k;
    json_t *v;
    char full[320];
    json_object_foreach(g, k, v) {
        if (st) break;
        if (strcmp(k, "arch") == 0 || strcmp(k, "source") == 0 ||
            strcmp(k, "general.architecture") == 0)
            continue;
        if (strcmp(k, "swa_pattern") == 0 && json_is_string(v)) continue; /* prose */
        if (strchr(k, '.')) {
            snprintf(full, sizeof full, "%s", k);
        } else {
            const char *suffix = NULL;
            for (size_t i = 0; i < sizeof k_alias / sizeof k_alias[0]; i++)
                if (strcmp(k, k_alias[i].bare) == 0) suffix = k_alias[i].key;
            if (!suffix) continue; /* n_embd_k_gqa, head_dim ...: handled below */
            snprintf(full, sizeof full, "%s.%s", a, suffix);
        }
        st = add_value(&m, full, v, err);
    }
    /* head_dim / n_embd_k_gqa / n_embd_v_gqa stand in for key/value_length when
     * those are absent (scalars, or per-layer arrays as llama.cpp logs print them). */
    if (!st) st = derive_length(&m, g, a, "key_length", "n_embd_k_gqa", err);
    if (!st) st = derive_length(&m, g, a, "value_length",
                                json_object_get(g, "n_embd_v_gqa") ? "n_embd_v_gqa"
                                                                    : "n_embd_k_gqa",
                                err);
    if (!st) st = kvp__gguf_build_model(&m, alc, out, err);
    /* A stated count of attention layers must agree with the rules. */
    json_t *al = json_object_get(g, "attention_layers");
    if (!st && json_is_integer(al)) {
        json_int_t n = 0;
        for (size_t i = 0; i < kvp_model_cache_count(*out); i++) {
            kvp_cache_kind kind = kvp_model_cache(*out, i)->kind;
            if (kind != KVP_CACHE_RECURRENT && kind != KVP_CACHE_INDEXER) n++;
        }
        if (n != json_integer_value(al)) {
            st = kvp__fail(err, KVP_CONFIG, name, "/attention_layers",
                           "geometry states %lld attention layers but the %s rules give %lld",
                           (long long)json_integer_value(al), a, (long long)n);
            kvp_model_free(*out);
            *out = NULL;
        }
    }
    kvp__gguf_meta_free(&m);
    return st;
}
