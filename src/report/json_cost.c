/* json_cost.c — the JSON document of a cost (`kvplan cost --json`,
 * kvp_json_call("cost")). Fields: README "JSON (kvplan cost --json)". */
#include <jansson.h>
#include <stdlib.h>

#include "render_internal.h"
#include "json_error.h"
#include "util.h"
#include "cost_internal.h"

static json_t *juint(uint64_t v) { return json_integer((json_int_t)v); }

size_t kvp__cost_warnings(const kvp_model *m, const kvp_cost *c, const char **w, size_t max) {
    const kvp_model_info *info = kvp_model_get_info(m);
    size_t n = 0;
    if (info->family_unverified && n < max)
        w[n++] = "unverified family: kvplan has no hand-checked config of this model_type; "
                 "its cache was read with the generic rules";
    if (!info->dtype_stated && n < max)
        w[n++] = "the config states no torch_dtype/dtype: bf16 assumed for the model";
    /* Replicated only when a layer has fewer KV heads than ranks: 8 heads at
     * TP 8 leave one head per rank, split, not copied. */
    bool fewer = false;
    for (size_t i = 0; c->tp > 1 && i < kvp_model_cache_count(m) && !fewer; i++) {
        const kvp_layer_cache *lc = kvp_model_cache(m, i);
        fewer = lc->kind != KVP_CACHE_RECURRENT && lc->kind != KVP_CACHE_MLA &&
                lc->kind != KVP_CACHE_INDEXER && lc->kv_heads < c->tp;
    }
    for (uint32_t k = 0; fewer && k < c->pool_count && n < max; k++) {
        const kvp_pool_cost *p = &c->pools[k];
        if (p->kind != KVP_CACHE_RECURRENT && p->kind != KVP_CACHE_MLA &&
            p->kind != KVP_CACHE_INDEXER && p->kv_heads_per_rank == 1) {
            w[n++] = "fewer KV heads than TP ranks: each rank keeps one whole (replicated) head; "
                     "some engines' estimators round this down to a fraction";
            break;
        }
    }
    if (info->is_mla && c->tp > 1 && n < max)
        w[n++] = "the MLA latent is replicated on every TP rank: bytes per token do not shrink "
                 "with TP";
    return n;
}

static json_t *pool_json(const kvp_pool_cost *p) {
    json_t *o = json_object();
    json_object_set_new(o, "kind", json_string(kvp_cache_kind_name(p->kind)));
    json_object_set_new(o, "layers", juint(p->layers));
    json_object_set_new(o, "window_tokens", p->window_tokens ? juint(p->window_tokens) : json_null());
    json_object_set_new(o, "kv_heads_per_rank", juint(p->kv_heads_per_rank));
    json_object_set_new(o, "k_head_dim", juint(p->k_head_dim));
    json_object_set_new(o, "v_head_dim", juint(p->v_head_dim));
    json_object_set_new(o, "dtype", json_string(kvp_dtype_name(p->dtype)));
    json_object_set_new(o, "bytes_per_token_per_layer", juint(p->bytes_per_token_per_layer));
    json_object_set_new(o, "bytes_per_token", juint(p->bytes_per_token));
    json_object_set_new(o, "bytes_per_sequence", juint(p->bytes_per_sequence));
    json_object_set_new(o, "page_bytes", juint(p->page_bytes));
    json_object_set_new(o, "tokens_per_block", p->tokens_per_block ? juint(p->tokens_per_block)
                                                                   : json_null());
    /* One entry per r tokens (DeepSeek-V4): the bytes_per_token fields are per entry. */
    if (p->tokens_per_entry > 1) json_object_set_new(o, "tokens_per_entry", juint(p->tokens_per_entry));
    if (p->kind == KVP_CACHE_RECURRENT) {
        json_object_set_new(o, "conv_bytes_per_sequence", juint(p->conv_bytes_per_sequence));
        json_object_set_new(o, "ssm_bytes_per_sequence", juint(p->ssm_bytes_per_sequence));
    }
    return o;
}

static kvp_status layers_json(const kvp_model *m, const kvp_cost_settings *s, json_t *o,
                              kvp_error *err) {
    json_t *la = json_array();
    json_object_set_new(o, "layers", la);
    for (size_t k = 0; k < kvp_model_cache_count(m); k++) {
        kvp_layer_cost lc;
        kvp_status st = kvp__cost_layer(m, s, k, &lc, err);
        if (st) return st;
        json_t *e = json_object();
        json_object_set_new(e, "layer", juint(lc.layer));
        json_object_set_new(e, "kind", json_string(kvp_cache_kind_name(lc.kind)));
        json_object_set_new(e, "window_tokens",
                            lc.window_tokens ? juint(lc.window_tokens) : json_null());
        json_object_set_new(e, "kv_heads_per_rank", juint(lc.kv_heads_per_rank));
        json_object_set_new(e, "k_head_dim", juint(lc.k_head_dim));
        json_object_set_new(e, "v_head_dim", juint(lc.v_head_dim));
        json_object_set_new(e, "dtype", json_string(kvp_dtype_name(lc.dtype)));
        json_object_set_new(e, "bytes_per_token", juint(lc.bytes_per_token));
        json_object_set_new(e, "bytes_per_sequence", juint(lc.bytes_per_sequence));
        json_object_set_new(e, "pp_stage", juint(lc.pp_stage));
        if (lc.tokens_per_entry > 1) json_object_set_new(e, "tokens_per_entry", juint(lc.tokens_per_entry));
        json_array_append_new(la, e);
    }
    return KVP_OK;
}

kvp_status kvp__cost_json_text(const kvp_model *m, const kvp_cost_settings *s, const kvp_cost *c,
                               bool layers, char **out, kvp_error *err) {
    *out = NULL;
    const kvp_model_info *info = kvp_model_get_info(m);
    const char *warnings[8];
    size_t nw = kvp__cost_warnings(m, c, warnings, 8);
    json_t *o = kvp__json_document();
    if (!o) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory writing the cost JSON");
    json_object_set_new(o, "model", json_string(kvp_model_name(m)));
    json_object_set_new(o, "model_type", json_string(info->model_type));
    if (info->family_unverified) json_object_set_new(o, "verified", json_false());
    json_object_set_new(o, "dtype", json_string(kvp_dtype_name(info->dtype)));
    json_object_set_new(o, "kv_dtype", json_string(kvp_dtype_name(c->kv_dtype)));
    json_object_set_new(o, "num_layers", juint(info->num_layers));
    json_object_set_new(o, "tp", juint(c->tp));
    json_object_set_new(o, "pp", juint(c->pp));
    json_object_set_new(o, "pp_rank", juint(c->pp_rank));
    json_object_set_new(o, "layer_begin", juint(c->layer_begin));
    json_object_set_new(o, "layer_end", juint(c->layer_end));
    json_object_set_new(o, "tokens_per_block", juint(c->tokens_per_block));
    json_object_set_new(o, "beam_width", juint(c->beam_width));
    json_t *pools = json_array();
    for (uint32_t k = 0; k < c->pool_count; k++) json_array_append_new(pools, pool_json(&c->pools[k]));
    json_object_set_new(o, "pools", pools);
    json_object_set_new(o, "bytes_per_token", juint(c->bytes_per_token));
    json_object_set_new(o, "bytes_per_sequence", juint(c->bytes_per_sequence));
    if (c->non_affine) json_object_set_new(o, "non_affine", json_true());
    json_t *w = json_array();
    for (size_t k = 0; k < nw; k++) json_array_append_new(w, json_string(warnings[k]));
    json_object_set_new(o, "warnings", w);
    kvp_status st = layers ? layers_json(m, s, o, err) : KVP_OK;
    if (st == KVP_OK) {
        *out = kvp__json_dump(o, KVP__JSON_FLAGS, NULL);
        if (!*out) st = kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory writing the cost JSON");
    }
    json_decref(o);
    return st;
}
