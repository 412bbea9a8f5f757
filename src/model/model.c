/* model.c — the kvp_model handle: construction by readers, read-only accessors. */
#include <string.h>

#include "model_internal.h"

kvp_model *kvp__model_new(const kvp_allocator *alc, const char *name) {
    kvp_model *m = kvp__calloc(alc, 1, sizeof *m);
    if (!m) return NULL;
    if (alc) {
        m->alc = *alc;
        m->has_alc = true;
    }
    m->name = kvp__strdup(alc, name ? name : "");
    if (!m->name) {
        kvp__free(alc, m);
        return NULL;
    }
    m->info.dtype = KVP_DTYPE_BF16;
    return m;
}

const kvp_allocator *kvp__model_alc(const kvp_model *model) {
    return model->has_alc ? &model->alc : NULL;
}

const kvp_allocator *kvp_model_allocator(const kvp_model *model) {
    return model ? kvp__model_alc(model) : NULL;
}

kvp_layer_cache kvp__indexer_cache(uint32_t layer, uint32_t index_head_dim) {
    kvp_layer_cache ix;
    memset(&ix, 0, sizeof ix);
    ix.layer = layer;
    ix.kind = KVP_CACHE_INDEXER;
    ix.kv_heads = 1;
    ix.k_head_dim = index_head_dim;
    ix.replicated = true;
    ix.dtype = KVP_DTYPE_FP8;
    ix.scale_bytes_per_token = 4u * (uint32_t)kvp__ceil_div_u64(index_head_dim, 128);
    return ix;
}

bool kvp__recurrent_geometry_equal(const kvp_recurrent_geometry *a,
                                  const kvp_recurrent_geometry *b) {
    return a->heads == b->heads && a->head_dim == b->head_dim && a->state_dim == b->state_dim &&
           a->groups == b->groups && a->group_dim == b->group_dim &&
           a->conv_kernel == b->conv_kernel && a->conv_dtype == b->conv_dtype &&
           a->ssm_dtype == b->ssm_dtype &&
           a->ssm_dtype_is_checkpoint_hint == b->ssm_dtype_is_checkpoint_hint;
}

/* Every field of kvp_layer_cache but `layer` (a field added there is added here). */
bool kvp__layer_cache_same_shape(const kvp_layer_cache *a, const kvp_layer_cache *b) {
    return a->kind == b->kind && a->kv_heads == b->kv_heads && a->k_head_dim == b->k_head_dim &&
           a->v_head_dim == b->v_head_dim && a->window_tokens == b->window_tokens &&
           a->replicated == b->replicated && a->dtype == b->dtype &&
           a->scale_bytes_per_token == b->scale_bytes_per_token &&
           a->tokens_per_entry == b->tokens_per_entry &&
           kvp__recurrent_geometry_equal(&a->recurrent, &b->recurrent);
}

kvp_status kvp__model_add_cache(kvp_model *model, const kvp_layer_cache *cache, kvp_error *err) {
    if (model->cache_count == model->cache_cap) {
        size_t ncap = model->cache_cap ? model->cache_cap * 2 : 16;
        kvp_layer_cache *n = kvp__realloc(kvp__model_alc(model), model->caches,
                                          ncap * sizeof *model->caches);
        if (!n) return kvp__fail(err, KVP_NOMEM, model->name, NULL, "out of memory");
        model->caches = n;
        model->cache_cap = ncap;
    }
    model->caches[model->cache_count++] = *cache;
    return KVP_OK;
}

kvp_model_info *kvp__model_info(kvp_model *model) { return &model->info; }

void kvp_model_free(kvp_model *model) {
    if (!model) return;
    const kvp_allocator *alc = kvp__model_alc(model);
    kvp_allocator copy;
    if (alc) {
        copy = *alc;
        alc = &copy;
    }
    kvp__free(alc, model->caches);
    kvp__free(alc, model->layer_types);
    kvp__free(alc, model->ffn_layers);
    kvp__free(alc, model->subconfigs);
    kvp__free(alc, model->name);
    kvp__free(alc, model);
}

const char *kvp_model_name(const kvp_model *model) { return model->name; }
const kvp_model_info *kvp_model_get_info(const kvp_model *model) { return &model->info; }
size_t kvp_model_cache_count(const kvp_model *model) { return model->cache_count; }
const kvp_layer_cache *kvp_model_cache(const kvp_model *model, size_t index) {
    return index < model->cache_count ? &model->caches[index] : NULL;
}
