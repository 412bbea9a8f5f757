/* plan_rules.h — the rule functions of TensorRT-LLM's KV cache creator that
 * the creator itself runs (budget arithmetic, windows, manager choice,
 * speculative decoding, cross attention, estimation), internal to the
 * library: include/kvplan/plan.h keeps the creator's lifecycle, its results
 * and the names users type (issue 27 item 7: a smaller public surface). The
 * types stay in plan.h. Each function is the seed's rule it names; the unit
 * tests call them directly (tests/unit, with src/plan on the include path). */
#ifndef KVP_PLAN_RULES_H
#define KVP_PLAN_RULES_H

#include "kvplan/plan.h"

/* CacheCost.bytes_for_tokens: slope * tokens + intercept (KVP_OVERFLOW). */
KVP_NODISCARD kvp_status kvp_affine_bytes_for_tokens(kvp_affine_cost cost, uint64_t tokens,
                                                     uint64_t *out_bytes, kvp_error *err);

/* CacheCost.__add__ (KVP_OVERFLOW). */
KVP_NODISCARD kvp_status kvp_affine_add(kvp_affine_cost a, kvp_affine_cost b,
                                        kvp_affine_cost *out, kvp_error *err);

/* configure_kv_cache_capacity: peak = allocator peak + max(total_used -
 * allocator_used, 0). Writes the non-allocator term to *out_extra (may be NULL). */
KVP_NODISCARD kvp_status kvp_profiled_peak_bytes(uint64_t allocator_peak_bytes,
                                                 uint64_t total_used_bytes,
                                                 uint64_t allocator_used_bytes,
                                                 uint64_t *out_peak_bytes,
                                                 uint64_t *out_extra_bytes, kvp_error *err);

/* _cal_max_memory: int((total - peak + allocated_during_estimation) * fraction).
 * KVP_INVALID_ARG for a fraction outside (0, 1]; KVP_INFEASIBLE when the peak
 * exceeds total + allocated (nothing is left for the KV cache: the seed would
 * carry a negative budget and end with zero tokens). */
KVP_NODISCARD kvp_status kvp_budget_bytes(uint64_t total_bytes, uint64_t peak_bytes,
                                          uint64_t allocated_during_estimation_bytes,
                                          double fraction, uint64_t *out_bytes, kvp_error *err);

/* _get_multimodal_encoder_memory_reserve: max(0, output_budget - profiled
 * output) + (encoder cache active ? encoder_cache_max_bytes : 0). */
KVP_NODISCARD kvp_status kvp_mm_encoder_reserve_bytes(uint64_t output_budget_bytes,
                                                      uint64_t profiled_output_bytes,
                                                      bool encoder_cache_active,
                                                      uint64_t encoder_cache_max_bytes,
                                                      uint64_t *out_bytes, kvp_error *err);

/* _adjust_torch_mem_fraction: (free + reserved - 32 MiB) / total, the
 * allocator's per-process fraction. KVP_INVALID_ARG when total is 0 or
 * free + reserved is below the 32 MiB safety margin. */
KVP_NODISCARD kvp_status kvp_allocator_fraction(uint64_t free_bytes, uint64_t reserved_bytes,
                                                uint64_t total_bytes, double *out_fraction,
                                                kvp_error *err);

/* get_mla_context_workspace_kv_len_cap. Returns false (seed None) when the
 * workspace cannot exceed the profiled floor; else *out_cap = worst case
 * min(max_batch_size, max_num_tokens) * max_seq_len, or the override floored
 * at max_seq_len and capped at the worst case. KVP_OVERFLOW is reported
 * through *status (may be NULL) and returns false. */
bool kvp_mla_workspace_kv_len_cap(const kvp_mla_workspace_policy *policy, uint64_t *out_cap,
                                  kvp_status *status);

/* get_mla_context_workspace_reserve: reserve = min(w * cap, budget * w / (k + w))
 * and the admission cap reserve / w. Returns 0 with *has_cap = false when any
 * input is zero (seed: (0, None)). */
uint64_t kvp_mla_workspace_reserve(uint64_t budget_bytes, uint64_t k_bytes_per_token,
                                   uint64_t w_bytes_per_token, uint64_t kv_len_cap,
                                   uint64_t *out_cap_tokens, bool *out_has_cap);

/* _normalize_attention_windows: each window min(max_seq_len, w); returns 0
 * (seed None) when all equal max_seq_len, 1 with out[0] when all equal, else
 * n with the list. `out` holds n entries; it may alias `in`. */
size_t kvp_windows_normalize(const uint64_t *in, size_t n, uint64_t max_seq_len, uint64_t *out);

/* uses_vswa_kv_cache_layout: a window list selects the multi-pool (variable
 * sliding window) layout when it carries at least two distinct windows. */
bool kvp_windows_use_vswa(const uint64_t *windows, size_t n);

/* Number of distinct values (layer groups) of a window list. */
size_t kvp_windows_distinct(const uint64_t *windows, size_t n);

/* _derive_layer_type_attention_windows: one window per decoder layer in global
 * layer order (sliding layers their window, others max_seq_len), from the
 * model's layer records (the HF reader builds them from layer_types). Returns
 * 0 when the model has no sliding layers or the normalized schedule does not
 * select a VSWA layout. `out` holds info->num_layers entries. */
size_t kvp_windows_from_layer_types(const kvp_model *model, uint64_t max_seq_len, uint64_t *out,
                                    size_t out_cap);

/* Managers that keep recurrent state next to the paged KV. */
bool kvp_manager_is_hybrid(kvp_manager_kind kind);

/* get_kv_cache_manager_cls (before the V2 fallback). Errors are the seed's,
 * as KVP_CONFIG (ValueError) or KVP_UNSUPPORTED (NotImplementedError), key
 * naming the setting. Notes get the seed's warnings and info lines. */
KVP_NODISCARD kvp_status kvp_manager_choose(const kvp_manager_inputs *in, kvp_manager_kind *out,
                                            kvp_notes *notes, kvp_error *err);

/* kv_cache_manager_v2_incompatible_features: "max_beam_width > 1" or NULL. */
const char *kvp_v2_incompatible_feature(uint32_t max_beam_width);

/* _validate_or_fallback_kv_cache_manager_v2: a V2 manager with an
 * incompatible feature falls back to paged v1 (warning), except sparse, Gemma4
 * hybrid, fp4 MLA and hybrid linear models, which fail (KVP_UNSUPPORTED). */
KVP_NODISCARD kvp_status kvp_manager_validate_v2(const kvp_manager_inputs *in,
                                                 kvp_manager_kind chosen, kvp_manager_kind *out,
                                                 kvp_notes *notes, kvp_error *err);

/* Both steps; plus the seed's warning when block reuse meets speculative
 * decoding on a non-V2 hybrid manager. */
KVP_NODISCARD kvp_status kvp_manager_select(const kvp_manager_inputs *in, kvp_manager_kind *out,
                                            kvp_notes *notes, kvp_error *err);

/* _create_kv_cache_manager's hybrid branches: a manager keeping recurrent state
 * with max_beam_width > 1 fails (KVP_CONFIG, "MambaHybridCacheManager + beam
 * search is not supported yet"). */
KVP_NODISCARD kvp_status kvp_manager_check_beam(kvp_manager_kind kind, uint32_t max_beam_width,
                                                kvp_error *err);

/* The same branches with a KV connector on the final (not estimation) build:
 * KVP_UNSUPPORTED ("Connector manager is not supported for
 * MambaHybridCacheManager"). */
KVP_NODISCARD kvp_status kvp_manager_check_connector(kvp_manager_kind kind, bool has_kv_connector,
                                                     kvp_error *err);

/* The manager class's _supports_reuse_match_backoff (paged-v2 and fp4-mla-v2). */
bool kvp_manager_supports_reuse_backoff(kvp_manager_kind kind);

/* _joint_reuse_supported: a V2 manager, a known draft prompt lookahead
 * (negative = None), and for a positive lookahead a manager that can back a
 * prefix match off. build_managers ANDs it with a separate one-model draft
 * and block reuse. */
bool kvp_joint_reuse_supported(kvp_manager_kind kind, int32_t draft_prompt_lookahead);

/* Model traits for kvp_manager_inputs from a model (is_mla, hybrid, Kimi
 * linear, Gemma4 hybrid, recurrent layer count). `fp4_kv` from kv_dtype. */
void kvp_manager_inputs_from_model(const kvp_model *model, kvp_dtype kv_dtype,
                                   kvp_manager_inputs *in);

/* is_external_drafter(): draft layers start from 0 with their own PP split. */
bool kvp_spec_is_external_drafter(kvp_spec_mode mode);

/* spec_dec_mode.is_dflash() or is_dspark(): a drafter with nothing to append to
 * the target pool. It keeps a separate draft cache under attention DP and its
 * own weights dtype instead of an inherited fp8 KV algo. */
bool kvp_spec_is_standalone_drafter(kvp_spec_mode mode);

/* tokens_per_gen_step of a linear draft: max_draft_len + 1 (0 without spec). */
uint32_t kvp_spec_tokens_per_gen_step(kvp_spec_mode mode, uint32_t max_draft_len);

/* get_num_extra_kv_tokens: one-model EAGLE3 / MTP keep max_draft_len - 1
 * extra KV tokens per sequence (not in the seed; from the engine's helper). */
uint32_t kvp_spec_extra_kv_tokens(kvp_spec_mode mode, uint32_t max_draft_len);

/* draft_prompt_lookahead: how many tokens the draft's prompt KV runs behind the
 * target's (the span a joint prefix match backs off by); -1 = None (no
 * speculation, or a two-model draft with its own engine). kvplan's reading of
 * the speculative module, which the seed imports but does not carry: one-model
 * EAGLE3 and MTP layers take the embedding of token i+1 at position i (1); an
 * external drafter drafts over the same prompt (0). */
int32_t kvp_spec_draft_prompt_lookahead(kvp_spec_mode mode);

/* _get_draft_kv_model_config: the draft pool's dtype. A standalone drafter
 * (DFlash) drops an fp8 KV algo inherited from the target and stores its pool
 * in its weights dtype; every other mode keeps the requested KV dtype. */
kvp_dtype kvp_draft_kv_dtype(kvp_spec_mode mode, kvp_dtype target_kv_dtype,
                             kvp_dtype draft_weights_dtype);

/* draft_config_defines_attention_layout: the draft config states
 * use_sliding_window, sliding_window or a non-empty layer_types. Reads the
 * model's config text; false for models without one. */
bool kvp_draft_defines_attention_layout(const kvp_model *draft);

/* _expand_attention_window_pattern_to_global_layers: a pattern over enabled
 * layers, expanded to global layer order (disabled layers get pattern[0]).
 * `out` holds mask_count entries. Returns mask_count, or 0 when pattern_count
 * is 0 (seed None). */
size_t kvp_windows_expand_to_global(const uint64_t *pattern, size_t pattern_count,
                                    const bool *layer_mask, size_t mask_count, uint64_t *out);

/* _build_per_layer_num_kv_heads: a scalar (returns 1, out[0]) when target and
 * draft heads agree or there is no draft, else target heads x target layers
 * followed by draft heads x spec layers (returns their count; out holds
 * target_layers + spec_layers entries). draft_kv_heads 0 = unknown. */
size_t kvp_per_layer_kv_heads(uint32_t target_kv_heads, uint32_t target_layers,
                              uint32_t draft_kv_heads, uint32_t spec_layers, uint32_t *out);

/* _compute_draft_budget_shares: intercepts first, then the rest in
 * proportion to the slopes (draft share floored). Returns false (seed None)
 * when the budget is below the summed intercepts, or equal to it while a
 * slope is positive. */
bool kvp_draft_budget_shares(uint64_t total_budget_bytes, kvp_affine_cost target,
                             kvp_affine_cost draft, uint64_t *out_target_bytes,
                             uint64_t *out_draft_bytes);

/* "max_gpu_total_bytes", "host_cache_size", "disk_cache_size". */
const char *kvp_budget_attr_name(kvp_budget_attr attr);

/* _split_kv_cache_budget_for_draft for one attribute. When the split does not
 * apply (a zero total, `have_costs` false, or a cost with neither slope nor
 * intercept) both outputs are the unsplit total and *out_split is false.
 * Non-GPU budgets drop the intercepts (fixed state is GPU-resident). An
 * infeasible GPU budget fails (KVP_INFEASIBLE) with the seed's guidance; an
 * infeasible non-GPU budget gives the draft 0 (the seed's defensive path,
 * unreachable while intercepts are dropped). */
KVP_NODISCARD kvp_status kvp_split_budget_for_draft(kvp_budget_attr attr, uint64_t total_bytes,
                                                    bool have_costs, kvp_affine_cost target,
                                                    kvp_affine_cost draft,
                                                    uint64_t *out_target_bytes,
                                                    uint64_t *out_draft_bytes, bool *out_split,
                                                    kvp_notes *notes, kvp_error *err);

/* _get_cross_kv_cache_layout from the model's config text, with the seed's
 * attribute fallbacks (num_decoder_layers, decoder_layers, num_hidden_layers,
 * num_layers; encoder_num_heads, encoder_attention_heads, ...). max_seq_len
 * is fallback_max_seq_len, replaced by max_input_len when > 0, capped by the
 * first encoder limit key present. KVP_CONFIG names the missing attribute. */
KVP_NODISCARD kvp_status kvp_cross_geometry_from_model(const kvp_model *model,
                                                       uint64_t fallback_max_seq_len,
                                                       uint64_t max_input_len,
                                                       kvp_cross_geometry *out, kvp_error *err);

/* _get_cross_kv_size_per_token via the static estimator:
 * 2 * layers * floor(head_dim * kv_heads / tp) * element bytes (fp8: 1,
 * nvfp4: half + 1/16 scales, everything else 2). */
KVP_NODISCARD kvp_status kvp_cross_bytes_per_token(const kvp_cross_geometry *g, uint32_t tp,
                                                   kvp_dtype kv_dtype, uint64_t *out_bytes,
                                                   kvp_error *err);

/* _split_kv_cache_budget_for_cross: cross = int(total * fraction), self =
 * total - cross, for the free fraction (float), max_gpu_total_bytes and
 * host_cache_size. has_cross_fraction false -> KVP_CONFIG ("Encoder-decoder
 * models require cross_kv_cache_fraction ..."); free_fraction <= 0 and no
 * byte budget -> KVP_CONFIG (nothing can be split). */
KVP_NODISCARD kvp_status kvp_split_budget_for_cross(bool has_cross_fraction,
                                                    double cross_fraction, double free_fraction,
                                                    uint64_t max_gpu_total_bytes,
                                                    uint64_t host_cache_size,
                                                    kvp_cross_split *out, kvp_error *err);

/* _try_infer_num_experts: the first of num_experts, num_local_experts,
 * moe_num_experts, experts_per_router present in the config; 1 when none. */
uint64_t kvp_num_experts(const kvp_model *model);

/* _compute_num_lora_modules: num_hidden_layers * modules, or with per-layer
 * block_configs (Nemotron-NAS) attention modules only on layers whose
 * attention is neither no_op nor replace_with_linear, MLP modules likewise
 * on FFNs, and other modules on every layer. */
KVP_NODISCARD kvp_status kvp_lora_module_slots(const kvp_model *model,
                                               const char *const *target_modules,
                                               size_t module_count, uint64_t *out_slots,
                                               kvp_error *err);

/* Gemma-4 hybrid per-layer lists (_create_kv_cache_manager): sliding layers
 * keep head_dim and num_key_value_heads; full layers global_head_dim and, with
 * attention_k_eq_v, num_global_key_value_heads. Returns the layer count (0
 * when the model is not a Gemma-4 hybrid); arrays hold out_cap entries. */
size_t kvp_gemma4_layer_geometry(const kvp_model *model, uint32_t *out_head_dims,
                                 uint32_t *out_kv_heads, size_t out_cap);

/* create_py_executor_instance: an encoder-decoder model's executor caps each
 * request's max_seq_len at the decoder position table (max_target_positions),
 * since max_seq_len covers the longer encoder sequence. Returns true when the
 * model is encoder-decoder and states max_target_positions; *out is
 * min(max_seq_len, max_target_positions), else max_seq_len. */
bool kvp_decoder_max_seq_len(const kvp_model *model, uint64_t max_seq_len, uint64_t *out);

/* avg_seq_len of one manager: try_prepare_estimation sets it to max_seq_len
 * (configure restores the user's value, 0 = None); during estimation a V2
 * manager without pool_ratio gets min(that, its own max_seq_len)
 * (_create_kv_cache_manager). The V2 manager reads it as its workload hint
 * for splitting the quota between pool groups; kvplan's V2 model (window pools
 * in the intercept) does not depend on it. */
uint64_t kvp_manager_avg_seq_len(bool estimating, bool is_v2, bool pool_ratio_set,
                                         uint64_t user_avg_seq_len,
                                         uint64_t creator_max_seq_len,
                                         uint64_t manager_max_seq_len);

/* is_sm_100f: SM100, SM103 or SM107. */
bool kvp_sm_is_100_family(uint32_t sm_version);

/* validate_kv_cache_compression_compatibility, errors worded as the seed:
 * NVFP4 cold-page quantization and TriAttention need an SM100-family device
 * (KVP_UNSUPPORTED, key "sm_version"); an algorithm without block-reuse
 * support refuses enable_block_reuse (TriAttention: its evicted pages cannot
 * match a prefix); with speculation, TriAttention needs union eviction and
 * only one-model MTP / EAGLE3 are accepted (KVP_CONFIG). */
KVP_NODISCARD kvp_status kvp_kv_compression_validate(const kvp_kv_compression *config,
                                                             uint32_t sm_version,
                                                             bool enable_block_reuse,
                                                             kvp_spec_mode spec, kvp_error *err);

/* _get_mla_chunked_profile_length: the prompt length that profiles two full
 * cached-KV chunks plus a full query: ceil(2 * chunk * buffer_batch /
 * max_num_tokens) * max_num_tokens + max_num_tokens, or 0 (seed None) when
 * not MLA, not the TRTLLM backend, a sparse algorithm other than skip_softmax,
 * no chunked prefill, SM < 100, or the length exceeds input_seq_len. */
uint64_t kvp_mla_chunked_profile_length(bool is_mla, const char *attn_backend,
                                        const char *sparse_algorithm, bool chunked_prefill,
                                        uint64_t chunk_size, uint64_t buffer_batch_size,
                                        uint32_t sm_version, uint64_t max_num_tokens,
                                        uint64_t input_seq_len);

/* _get_token_num_for_estimation. KVP_CONFIG for a zero tokens_per_block or
 * max_num_tokens; KVP_OVERFLOW. */
KVP_NODISCARD kvp_status kvp_estimation_token_count(const kvp_estimation_inputs *in,
                                                    kvp_estimation_tokens *out, kvp_error *err);

/* _get_num_pool_groups_for_estimation. `user_windows` (count 0 = None) is
 * kv_cache_config.max_attention_window. Scratch through the model's allocator;
 * when that fails the answer is 1 group (the creator itself reports KVP_NOMEM). */
uint32_t kvp_estimation_pool_groups(const kvp_model *model, uint64_t max_seq_len,
                                    const uint64_t *user_windows, size_t user_window_count);

/* compute_max_num_sequences: the sequence-slot pool, max_batch_size x pp_size
 * with pipeline parallelism, else x 2 with overlap headroom and the overlap
 * scheduler on, else max_batch_size. The scheduler's capacity is
 * max_batch_size x pp_size too. UINT64_MAX on overflow. */
uint64_t kvp_max_num_sequences(uint64_t max_batch_size, uint32_t pp,
                               bool disable_overlap_scheduler, bool enable_overlap_headroom);

#endif
