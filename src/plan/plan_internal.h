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

/* kvp__memory_resolve with the estimate's inputs compared to the last call's
 * (estimate_memo.h): the same facts, estimated once for a run of many points.
 * `memo` NULL: kvp__memory_resolve. */
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

/* Internal since 1.0.0 (issue 27 item 7: nobody outside the library called them;
 * they left the public headers). */
KVP_NODISCARD kvp_status kvp__compression_parse(const char *name,
                                                       kvp_compression_algorithm *out);
/* The seed's capacity step from memory facts: size the estimation pass from what
 * is free after weights and runtime, then configure with the profiled peak
 * (weights + activation), the memory outside the allocator (non-torch + graphs)
 * and `estimation_kv_bytes` the profiling cache held. *est and *cap are filled. */
KVP_NODISCARD kvp_status kvp__creator_configure_from_facts(kvp_creator *creator,
                                                          const kvp_memory_facts *facts,
                                                          uint64_t estimation_kv_bytes,
                                                          kvp_estimation_plan *est,
                                                          kvp_capacity *cap, kvp_error *err);
/* The settings with defaults applied. */
const kvp_deploy_settings *kvp__creator_deploy(const kvp_creator *creator);
/* kvp_plan_max_sequences (plan.h), also naming the pool that binds: *out_role and *out_pool index
 * plan->managers[role].pools (both may be NULL; *out_pool is UINT32_MAX when no
 * pool limits the count). */
KVP_NODISCARD kvp_status kvp__plan_binding_pool(const kvp_plan *plan, uint64_t seq_len,
                                               uint32_t beam_width, uint64_t *out_count,
                                               kvp_manager_role *out_role, uint32_t *out_pool,
                                               kvp_error *err);
/* Memory facts of one rank: the measured terms as given, every other term from
 * kvp_memory_estimate(model, estimate) with its KVP_MEM_EST_* bit set. The one
 * sequence every front end (plan, sim, fit, sweep) follows, so they never differ.
 * Errors: KVP_INVALID_ARG when the peak is below the weights; estimate errors. */
KVP_NODISCARD kvp_status kvp__memory_resolve(const kvp_model *model,
                                            const kvp_memory_measured *measured,
                                            const kvp_estimate_settings *estimate,
                                            kvp_memory_facts *out, kvp_error *err);

#endif
