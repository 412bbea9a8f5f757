/*
 * pools_memo.h — the creator's pools of one manager kept for the next call
 * with the same inputs (kvp__ tier, src/plan/ only).
 *
 * The creator sizes a manager from its pools (creator.c, model_pools): the
 * cost of every layer record of the planned stage (kvp_cost_compute, then
 * kvp__cost_layer per distinct record shape), grouped by the window the
 * manager keeps. A plan asks for the same target pools three times
 * (estimation, capacity, build) and a sweep or a fit asks again on every
 * row, while what the pools read rarely changes from row to row: the model,
 * the cost settings (TP, stage, KV dtype, tokens per block, beam, the SSM
 * dtype rule), whether the whole model is costed, the draft-layer count, and
 * the windows as the manager keeps them (a window at or above max_seq_len is
 * kept as full context, so max_seq_len is read only through them). Keyed on
 * all of these, a hit returns exactly the pools the cost would give (issue 12
 * item 9); errors are never kept.
 */
#ifndef KVP_POOLS_MEMO_H
#define KVP_POOLS_MEMO_H

#include <stdbool.h>

#include "kvplan/cost.h"
#include "kvplan/plan.h"
#include "cost_internal.h"

#define KVP__POOLS_MEMO_WINDOWS 512 /* windows kept by value; more: no memo */
#define KVP__POOLS_MEMO_ENTRIES 4   /* target (estimation and final windows), draft, spare */

typedef struct kvp__pools_key {
    const kvp_model *model;
    kvp_cost_settings cost;  /* as costed (every field kvp_cost_compute reads) */
    bool whole_model;        /* every layer (pp 1), not the planned stage */
    bool last_layer_first;   /* a fixed draft-layer count costs the model's last attention layer */
    uint32_t only_layers;    /* that count (0: the model's own records) */
    uint32_t window_count;
    uint64_t windows[KVP__POOLS_MEMO_WINDOWS]; /* as kept: 0 where window >= max_seq_len */
} kvp__pools_key;

typedef struct kvp__pools_value {
    uint32_t pp_rank;        /* the stage costed (the busiest when the settings said -1) */
    uint32_t pool_count, layers;
    kvp_plan_pool pools[KVP_PLAN_MAX_POOLS];
} kvp__pools_value;

typedef struct kvp__pools_memo {
    bool valid[KVP__POOLS_MEMO_ENTRIES];
    kvp__pools_key key[KVP__POOLS_MEMO_ENTRIES];
    kvp__pools_value value[KVP__POOLS_MEMO_ENTRIES];
    unsigned next; /* the entry replaced next (round robin) */
} kvp__pools_memo;

/* An empty memo (nothing kept). */
void kvp__pools_memo_clear(kvp__pools_memo *memo);

/* The key of one model_pools call; false (no memo for this call) when there
 * are more windows than a key keeps. `windows` (count wn) are the manager's,
 * indexed by layer modulo wn; each is kept as 0 when >= max_seq_len. */
bool kvp__pools_key_make(kvp__pools_key *key, const kvp_model *model,
                         const kvp_cost_settings *cs, bool whole_model, bool last_layer_first,
                         uint32_t only_layers, const uint64_t *windows, size_t wn,
                         uint64_t max_seq_len);

/* The pools kept for `key`, or NULL. The pointer is valid until the next put. */
const kvp__pools_value *kvp__pools_memo_find(const kvp__pools_memo *memo,
                                             const kvp__pools_key *key);

/* Keep `value` for `key` (replacing the oldest entry). */
void kvp__pools_memo_put(kvp__pools_memo *memo, const kvp__pools_key *key,
                         const kvp__pools_value *value);

#endif
