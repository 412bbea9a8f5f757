/*
 * plan_internal.h — helpers shared by the files of src/plan/ (kvp__ tier):
 * notes and model traits (config attributes come from kvp_model_get_facts).
 */
#ifndef KVP_PLAN_INTERNAL_H
#define KVP_PLAN_INTERNAL_H

#include "kvplan/plan.h"
#include "util.h"

/* Append a note (printf-style); NULL notes is a no-op. */
void kvp__note(kvp_notes *notes, const char *fmt, ...) KVP_PRINTF(2, 3);

/* Model traits the seed tests with is_* helpers. */
bool kvp__is_kimi_linear(const kvp_model *model);
bool kvp__is_gemma4_hybrid(const kvp_model *model);
bool kvp__has_layer_types(const kvp_model *model);
/* kvp_estimation_pool_groups with its scratch through `alc` (NULL = libc):
 * KVP_NOMEM when that fails, where the public form falls back to 1 group. */
kvp_status kvp__estimation_pool_groups(const kvp_model *model, uint64_t max_seq_len,
                                       const uint64_t *user_windows, size_t user_window_count,
                                       const kvp_allocator *alc, uint32_t *out, kvp_error *err);
uint32_t kvp__count_kind(const kvp_model *model, kvp_cache_kind kind);
/* Distinct decoder layers that keep an attention cache (not recurrent, not cross, not indexer). */
uint32_t kvp__attention_layers(const kvp_model *model);

/* kvp_memory_resolve with the estimate's inputs compared to the last call's
 * (estimate_memo.h): the same facts, estimated once for a run of many points.
 * `memo` NULL: kvp_memory_resolve. */
struct kvp__estimate_memo;
kvp_status kvp__memory_resolve_memo(const kvp_model *model, const kvp_memory_measured *in,
                                    const kvp_estimate_settings *estimate,
                                    struct kvp__estimate_memo *memo, kvp_memory_facts *m,
                                    kvp_error *err);

/* Plans of many points (a sweep's rows, a fit's steps) share one pools memo
 * (pools_memo.h): the creator keeps its pools there instead of in its own. The
 * memo outlives the creator; the caller owns it. */
struct kvp__pools_memo;
void kvp__creator_use_pools_memo(kvp_creator *c, struct kvp__pools_memo *memo);

#endif
