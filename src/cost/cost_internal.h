/* cost_internal.h — the cost room's functions for the library's other rooms
 * (pipeline, plan, report), not part of kvplan/cost.h. */
#ifndef KVP_COST_INTERNAL_H
#define KVP_COST_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "kvplan/cost.h"
#include "kvplan/model.h"

/* Internal since 1.0.0 (issue 27 item 7: nobody outside the library called them;
 * they left the public headers). */
/* Per-layer figures for the --layers table (any stage: the record's layer
 * is costed as if on this rank). */
typedef struct kvp_layer_cost {
    uint32_t layer;
    kvp_cache_kind kind;
    uint64_t window_tokens;
    uint32_t kv_heads_per_rank;
    uint32_t k_head_dim, v_head_dim;
    kvp_dtype dtype;
    uint64_t bytes_per_token;
    uint64_t bytes_per_sequence;
    uint64_t conv_bytes_per_sequence; /* recurrent only: conv part of one state (beam 1) */
    uint64_t ssm_bytes_per_sequence;  /* recurrent only: SSM part of one state (beam 1) */
    uint32_t pp_stage;             /* stage that holds this layer */
    uint32_t tokens_per_entry;     /* 1, or r: bytes_per_token is per entry of r tokens */
} kvp_layer_cost;

/* kvp_cost_check_tp's checks (cost.h) under settings `s` (s->tp, and s->kv_heads_round_up: under
 * TensorRT-LLM's rule KV heads never fail, only query, cross and recurrent heads). */
KVP_NODISCARD kvp_status kvp__cost_check_settings(const kvp_model *model,
                                                         const kvp_cost_settings *s,
                                                         kvp_error *err);
KVP_NODISCARD kvp_status kvp__cost_layer(const kvp_model *model, const kvp_cost_settings *settings,
                                        size_t cache_index, kvp_layer_cost *out, kvp_error *err);

#endif
