/* pools_memo.c — the creator's pools kept for the same inputs (pools_memo.h). */
#include <stddef.h>
#include <string.h>

#include "pools_memo.h"

void kvp__pools_memo_clear(kvp__pools_memo *memo) {
    if (!memo) return;
    for (unsigned i = 0; i < KVP__POOLS_MEMO_ENTRIES; i++) memo->valid[i] = false;
    memo->next = 0;
}

bool kvp__pools_key_make(kvp__pools_key *key, const kvp_model *model,
                         const kvp_cost_settings *cs, bool whole_model, bool last_layer_first,
                         uint32_t only_layers, const uint64_t *windows, size_t wn,
                         uint64_t max_seq_len) {
    if (wn > KVP__POOLS_MEMO_WINDOWS) return false;
    /* Compared bytewise up to the windows in use: equal bytes are equal inputs
     * (padding the settings bring that differs would only cost a miss), and a
     * field added to kvp_cost_settings is part of the key without a change here. */
    memset(key, 0, offsetof(kvp__pools_key, windows));
    key->model = model;
    key->cost = *cs;
    key->whole_model = whole_model;
    key->last_layer_first = last_layer_first;
    key->only_layers = only_layers;
    key->window_count = (uint32_t)wn;
    for (size_t i = 0; i < wn; i++) key->windows[i] = windows[i] >= max_seq_len ? 0 : windows[i];
    return true;
}

static size_t key_bytes(const kvp__pools_key *key) {
    return offsetof(kvp__pools_key, windows) + key->window_count * sizeof key->windows[0];
}

const kvp__pools_value *kvp__pools_memo_find(const kvp__pools_memo *memo,
                                             const kvp__pools_key *key) {
    if (!memo) return NULL;
    size_t n = key_bytes(key);
    for (unsigned i = 0; i < KVP__POOLS_MEMO_ENTRIES; i++)
        if (memo->valid[i] && memo->key[i].window_count == key->window_count &&
            memcmp(&memo->key[i], key, n) == 0)
            return &memo->value[i];
    return NULL;
}

void kvp__pools_memo_put(kvp__pools_memo *memo, const kvp__pools_key *key,
                         const kvp__pools_value *value) {
    if (!memo) return;
    unsigned i = memo->next;
    memo->next = (i + 1) % KVP__POOLS_MEMO_ENTRIES;
    memcpy(&memo->key[i], key, key_bytes(key));
    memo->value[i] = *value;
    memo->valid[i] = true;
}
