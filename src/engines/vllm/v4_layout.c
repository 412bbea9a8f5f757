/*
 * v4_layout.c — DeepSeek-V4's caches as the vLLM and SGLang policies see them
 * (../shared/reference/FAMILIES.md "DeepSeek-V4"): the model's records (a
 * window on every layer, compressed entries of one per r tokens, ratio-4
 * indexer keys, fp32 compressor state) grouped by kind and ratio, with the
 * bytes of one entry in the engines' packed fp8 layout.
 *
 * The `fp8_ds_mla`-style entry vLLM forces (and SGLang uses) for head_dim 512
 * with 64 rope dims: 448 fp8 no-rope values + 64 x 2 B bf16 rope values + 7
 * scale bytes (one per 64 no-rope values) + 1 pad byte = 584 B.
 */
#include <string.h>

#include "policy_internal.h"

bool kvp__policy_non_affine(const kvp_model *model) {
    size_t n = kvp_model_cache_count(model);
    for (size_t i = 0; i < n; i++)
        if (kvp_model_cache(model, i)->tokens_per_entry > 1) return true;
    return false;
}

/* The packed entry (FAMILIES.md: 448 + 64 x 2 + 7 + 1): stated for one geometry
 * only, so any other is refused by name rather than extrapolated. */
static kvp_status packed_entry_bytes(const kvp_model *model, const kvp_layer_cache *c,
                                     uint64_t *out, kvp_error *err) {
    const kvp_model_info *info = kvp_model_get_info(model);
    if (c->k_head_dim != 512)
        return kvp__fail(err, KVP_UNSUPPORTED, kvp_model_name(model), "head_dim",
                         "%u: the engines' packed DeepSeek-V4 entry (584 B) is stated for "
                         "head_dim 512 only; refusing to extrapolate it",
                         c->k_head_dim);
    if (info->qk_rope_head_dim != 64)
        return kvp__fail(err, KVP_UNSUPPORTED, kvp_model_name(model), "qk_rope_head_dim",
                         "%u: the engines' packed DeepSeek-V4 entry (584 B) is stated for 64 "
                         "rope dims only; refusing to extrapolate it",
                         info->qk_rope_head_dim);
    uint64_t nope = c->k_head_dim - info->qk_rope_head_dim;     /* 448 fp8 values */
    *out = nope + 2u * info->qk_rope_head_dim + nope / 64u + 1u; /* + bf16 rope, scales, pad */
    return KVP_OK;
}

kvp_status kvp__v4_layout_read(const kvp_model *model, kvp__v4_layout *out, kvp_error *err) {
    memset(out, 0, sizeof *out);
    size_t n = kvp_model_cache_count(model);
    for (size_t i = 0; i < n; i++) {
        const kvp_layer_cache *c = kvp_model_cache(model, i);
        if (c->kind == KVP_CACHE_RECURRENT) {
            /* Compressor state: state_dim fp32 values per sequence (the reader's record). */
            uint64_t b;
            if (kvp_dtype_bytes(KVP_DTYPE_FP32, c->recurrent.state_dim, &b) != KVP_OK ||
                !kvp__add_u64(out->state_bytes, b, &out->state_bytes))
                return kvp__fail(err, KVP_OVERFLOW, kvp_model_name(model), NULL,
                                 "layer %u: compressor state bytes overflow", c->layer);
            out->state_layers++;
            continue;
        }
        uint32_t ratio = c->tokens_per_entry > 1 ? c->tokens_per_entry : 1;
        uint64_t entry = 0;
        kvp_status st = KVP_OK;
        if (c->kind == KVP_CACHE_SLIDING || c->kind == KVP_CACHE_COMPRESSED)
            st = packed_entry_bytes(model, c, &entry, err);
        else if (c->kind == KVP_CACHE_INDEXER)
            /* fp8 keys plus one fp32 scale per 128 values: 128 + 4 = 132 B. */
            entry = (uint64_t)c->k_head_dim + (uint64_t)c->scale_bytes_per_token;
        else
            st = kvp__fail(err, KVP_UNSUPPORTED, kvp_model_name(model), "compress_ratios",
                           "layer %u: a %s cache beside compressed ones is not understood",
                           c->layer, kvp_cache_kind_name(c->kind));
        if (st) return st;
        kvp__v4_group *g = NULL;
        for (uint32_t k = 0; k < out->count; k++)
            if (out->groups[k].kind == c->kind && out->groups[k].ratio == ratio &&
                out->groups[k].window == c->window_tokens && out->groups[k].entry_bytes == entry)
                g = &out->groups[k];
        if (!g) {
            if (out->count == KVP__V4_MAX_GROUPS)
                return kvp__fail(err, KVP_UNSUPPORTED, kvp_model_name(model), "compress_ratios",
                                 "more than %d DeepSeek-V4 cache kinds", KVP__V4_MAX_GROUPS);
            g = &out->groups[out->count++];
            g->kind = c->kind;
            g->ratio = ratio;
            g->window = c->window_tokens;
            g->entry_bytes = entry;
        }
        g->layers++;
    }
    return KVP_OK;
}

uint64_t kvp__v4_entries(const kvp__v4_group *g, uint64_t len) {
    /* A partial group of r tokens still takes its entry (one per r tokens). */
    if (g->ratio > 1) return kvp__ceil_div_u64(len, g->ratio);
    if (g->kind == KVP_CACHE_SLIDING && g->window && len > g->window) return g->window;
    return len;
}

const char *kvp__v4_group_name(const kvp__v4_group *g) {
    if (g->kind == KVP_CACHE_INDEXER) return "indexer";
    if (g->kind == KVP_CACHE_SLIDING) return "sliding";
    return g->ratio == 4 ? "compressed-4" : g->ratio == 128 ? "compressed-128" : "compressed";
}
