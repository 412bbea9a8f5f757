/*
 * windows.c — attention-window schedules: normalization, the VSWA test,
 * per-layer windows from layer_types, the V2 derived schedule and when it is
 * not used, pool groups of the estimation pass, and the draft's windows in
 * global layer order.
 */
#include <string.h>

#include "plan_internal.h"
#include "plan_rules.h"

size_t kvp_windows_normalize(const uint64_t *in, size_t n, uint64_t max_seq_len, uint64_t *out) {
    if (n == 0) return 0;
    bool all_max = true, all_same = true;
    uint64_t first = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t w = in[i] == 0 ? max_seq_len : (in[i] < max_seq_len ? in[i] : max_seq_len);
        out[i] = w;
        if (w != max_seq_len) all_max = false;
        if (i == 0)
            first = w;
        else if (w != first)
            all_same = false;
    }
    if (all_max) return 0;
    if (all_same) return 1;
    return n;
}

size_t kvp_windows_distinct(const uint64_t *windows, size_t n) {
    size_t d = 0;
    for (size_t i = 0; i < n; i++) {
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++) seen = windows[j] == windows[i];
        if (!seen) d++;
    }
    return d;
}

bool kvp_windows_use_vswa(const uint64_t *windows, size_t n) {
    return windows && kvp_windows_distinct(windows, n) >= 2;
}

/* The window record of each of the first `layers` decoder layers into out:
 * a sliding layer its first sliding record's window; full attention (and any
 * type not recognised as sliding) 0, None. One pass over the records, last to
 * first, so the first record of a layer is the one that stays (once a search
 * of every record per layer: quadratic in the layers, a quarter of a Gemma-4
 * sweep row). */
static void layer_windows(const kvp_model *model, uint32_t layers, uint64_t *out) {
    memset(out, 0, layers * sizeof *out);
    for (size_t i = kvp_model_cache_count(model); i-- > 0;) {
        const kvp_layer_cache *c = kvp_model_cache(model, i);
        if (c->layer < layers && c->kind == KVP_CACHE_SLIDING) out[c->layer] = c->window_tokens;
    }
}

size_t kvp_windows_from_layer_types(const kvp_model *model, uint64_t max_seq_len, uint64_t *out,
                                    size_t out_cap) {
    uint32_t layers = kvp_model_get_info(model)->num_layers;
    if (layers == 0 || layers > out_cap) return 0;
    if (kvp__count_kind(model, KVP_CACHE_SLIDING) == 0) return 0; /* no schedule to derive */
    layer_windows(model, layers, out);
    for (uint32_t l = 0; l < layers; l++)
        if (out[l] == 0) out[l] = max_seq_len;
    size_t k = kvp_windows_normalize(out, layers, max_seq_len, out);
    /* Fewer than two distinct windows cannot select the multi-pool layout. */
    if (k == 0 || !kvp_windows_use_vswa(out, k)) return 0;
    return k;
}

size_t kvp_windows_expand_to_global(const uint64_t *pattern, size_t pattern_count,
                                    const bool *layer_mask, size_t mask_count, uint64_t *out) {
    if (pattern_count == 0) return 0;
    size_t enabled = 0;
    for (size_t l = 0; l < mask_count; l++) {
        out[l] = pattern[0];
        if (layer_mask[l]) out[l] = pattern[enabled++ % pattern_count];
    }
    return mask_count;
}

uint32_t kvp_estimation_pool_groups(const kvp_model *model, uint64_t max_seq_len,
                                    const uint64_t *user_windows, size_t user_window_count) {
    uint32_t groups = 1; /* out of memory: one group, as the public contract always said */
    (void)kvp__estimation_pool_groups(model, max_seq_len, user_windows, user_window_count,
                                      kvp_model_allocator(model), &groups, NULL);
    return groups;
}

kvp_status kvp__estimation_pool_groups(const kvp_model *model, uint64_t max_seq_len,
                                       const uint64_t *user_windows, size_t user_window_count,
                                       const kvp_allocator *alc, uint32_t *out, kvp_error *err) {
    const kvp_model_info *info = kvp_model_get_info(model);
    bool hybrid = info->is_hybrid_recurrent || kvp__count_kind(model, KVP_CACHE_RECURRENT) > 0;
    size_t layers = info->num_layers;
    uint64_t tmp_small[64];
    uint64_t *tmp = tmp_small;
    size_t cap = user_window_count > layers ? user_window_count : layers;
    if (cap > 64) {
        tmp = kvp__calloc(alc, cap, sizeof *tmp);
        if (!tmp)
            return kvp__fail(err, KVP_NOMEM, kvp_model_name(model), NULL,
                             "out of memory (window list of %zu layers)", cap);
    }
    uint32_t groups = 1;
    if (user_window_count > 0 && !hybrid) {
        size_t k = kvp_windows_normalize(user_windows, user_window_count, max_seq_len, tmp);
        groups = k == 0 ? 1u : (uint32_t)kvp_windows_distinct(tmp, k);
        goto done;
    }
    {
        bool gemma4 = kvp__is_gemma4_hybrid(model);
        size_t derived = 0;
        if (user_window_count == 0 && gemma4)
            derived = kvp_windows_from_layer_types(model, max_seq_len, tmp, cap);
        bool uses_windows = user_window_count > 0 || derived > 0;
        if (derived > 0) {
            groups = (uint32_t)kvp_windows_distinct(tmp, derived);
            goto done;
        }
        if (kvp__has_layer_types(model)) {
            /* Pool types from layer_types: without windowed storage sliding and full
             * attention share a pool type (unless page sizes differ: Gemma4). */
            bool t_full = false, t_sliding = false, t_linear = false, t_other = false;
            /* The kinds each layer holds, in one pass over the records (tmp: a
             * bit set per layer; once a loop over the records per layer, which
             * made this the creator's slowest step for 64-layer hybrids). */
            enum { K_SLIDING = 1, K_LINEAR = 2, K_FULL = 4, K_OTHER = 8 };
            memset(tmp, 0, layers * sizeof *tmp);
            size_t n = kvp_model_cache_count(model);
            for (size_t i = 0; i < n; i++) {
                const kvp_layer_cache *c = kvp_model_cache(model, i);
                if (c->layer >= layers) continue;
                if (c->kind == KVP_CACHE_SLIDING || c->kind == KVP_CACHE_CHUNKED)
                    tmp[c->layer] |= K_SLIDING;
                else if (c->kind == KVP_CACHE_RECURRENT)
                    tmp[c->layer] |= K_LINEAR;
                else if (c->kind == KVP_CACHE_FULL || c->kind == KVP_CACHE_MLA)
                    tmp[c->layer] |= K_FULL;
                else if (c->kind != KVP_CACHE_INDEXER && c->kind != KVP_CACHE_CROSS)
                    tmp[c->layer] |= K_OTHER;
            }
            for (uint32_t l = 0; l < info->num_layers; l++) {
                bool sliding = tmp[l] & K_SLIDING, linear = tmp[l] & K_LINEAR,
                     full = tmp[l] & K_FULL, other = tmp[l] & K_OTHER;
                if (sliding && !uses_windows && !gemma4) {
                    sliding = false;
                    full = true;
                }
                if (linear) t_linear = true;
                else if (sliding) t_sliding = true;
                else if (full) t_full = true;
                else if (other) t_other = true;
            }
            uint32_t types = (uint32_t)t_full + t_sliding + t_linear + t_other;
            if (types > 1) {
                groups = types;
                goto done;
            }
        }
        if (user_window_count > 0) {
            size_t k = kvp_windows_normalize(user_windows, user_window_count, max_seq_len, tmp);
            if (k > 0) groups = (uint32_t)kvp_windows_distinct(tmp, k);
        }
    }
done:
    if (tmp != tmp_small) kvp__free(alc, tmp);
    *out = groups;
    return KVP_OK;
}
