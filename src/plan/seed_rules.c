/*
 * seed_rules.c — rules of the seed that sit around the creator rather than in
 * it: the executor's decoder length of encoder-decoder models, avg_seq_len
 * during estimation, KV-cache compression (validate_kv_cache_compression_
 * compatibility, create_kv_cache_compression_manager), the LoRA device cache
 * (create_py_executor_instance's PeftCacheConfig sizing) and the multimodal
 * encoder's profiling batch (_create_dummy_encoder_inputs).
 */
#include <string.h>

#include "plan_internal.h"
#include "plan_rules.h"

/* ---------------------------------------------------------- rule sets */

const char *kvp_trtllm_rules_name(kvp_trtllm_rules rules) {
    return rules == KVP_TRTLLM_RULES_2025 ? "2025" : "2026";
}

kvp_status kvp_trtllm_rules_parse(const char *version, kvp_trtllm_rules *out) {
    if (!version || !version[0] || strcmp(version, "2026") == 0 ||
        kvp__strcasecmp(version, "latest") == 0) {
        *out = KVP_TRTLLM_RULES_2026;
        return KVP_OK;
    }
    if (strcmp(version, "2025") == 0 || kvp__strcasecmp(version, "pre-2026") == 0) {
        *out = KVP_TRTLLM_RULES_2025;
        return KVP_OK;
    }
    return KVP_INVALID_ARG;
}

/* ------------------------------------------------------ decoder length */

bool kvp_decoder_max_seq_len(const kvp_model *model, uint64_t max_seq_len, uint64_t *out) {
    *out = max_seq_len;
    if (!kvp_model_get_info(model)->is_encoder_decoder) return false;
    kvp_fact_u64 f = kvp_model_get_facts(model)->encoder.max_target_positions;
    if (f.state != KVP_FACT_STATED) return false;
    if (f.value < max_seq_len) *out = f.value;
    return true;
}

/* --------------------------------------------------------- avg_seq_len */

uint64_t kvp_manager_avg_seq_len(bool estimating, bool is_v2, bool pool_ratio_set,
                                 uint64_t user_avg_seq_len, uint64_t creator_max_seq_len,
                                 uint64_t manager_max_seq_len) {
    /* try_prepare_estimation overrides avg_seq_len with max_seq_len; configure restores it. */
    uint64_t v = estimating ? creator_max_seq_len : user_avg_seq_len;
    /* _create_kv_cache_manager: an estimation V2 manager without pool_ratio gets a
     * per-manager workload length no longer than its own max_seq_len. */
    if (estimating && is_v2 && !pool_ratio_set && v > manager_max_seq_len)
        v = manager_max_seq_len;
    return v;
}

/* --------------------------------------------------------- compression */

static const char *const k_algo_names[KVP_COMPRESSION_COUNT] = {
    [KVP_COMPRESSION_NONE] = "none",
    [KVP_COMPRESSION_COLD_PAGE_QUANT] = "quantization_for_cold_page",
    [KVP_COMPRESSION_TRIATTENTION] = "triattention",
};

const char *kvp_compression_name(kvp_compression_algorithm a) {
    return (unsigned)a < KVP_COMPRESSION_COUNT ? k_algo_names[a] : "unknown";
}

kvp_status kvp__compression_parse(const char *name, kvp_compression_algorithm *out) {
    for (int i = 0; i < KVP_COMPRESSION_COUNT; i++)
        if (strcmp(name, k_algo_names[i]) == 0) {
            *out = (kvp_compression_algorithm)i;
            return KVP_OK;
        }
    return KVP_INVALID_ARG;
}

bool kvp_sm_is_100_family(uint32_t sm_version) {
    return sm_version == 100 || sm_version == 103 || sm_version == 107;
}

/* config.supports_block_reuse(): a cold-page codec only re-encodes pages the reuse
 * tree already keeps; TriAttention evicts tokens, so its pages cannot match a prefix. */
static bool supports_block_reuse(const kvp_kv_compression *c) {
    return c->algorithm != KVP_COMPRESSION_TRIATTENTION;
}

/* config.supports_speculative_decoding(): TriAttention only with eviction_mode union. */
static bool supports_spec(const kvp_kv_compression *c) {
    return c->algorithm != KVP_COMPRESSION_TRIATTENTION || c->triattention_union_eviction;
}

static const char *spec_mode_upper(kvp_spec_mode m) {
    switch (m) {
    case KVP_SPEC_EAGLE3:
        return "EAGLE3_ONE_MODEL";
    case KVP_SPEC_MTP:
        return "MTP_EAGLE_ONE_MODEL";
    case KVP_SPEC_TWO_MODEL:
        return "DRAFT_TARGET";
    case KVP_SPEC_DRAFT_TARGET_ONE_MODEL:
        return "DRAFT_TARGET_ONE_MODEL";
    case KVP_SPEC_DFLASH:
        return "DFLASH";
    case KVP_SPEC_DSPARK:
        return "DSPARK";
    case KVP_SPEC_NONE:
    case KVP_SPEC_MODE_COUNT:
        break;
    }
    return "NONE";
}

kvp_status kvp_kv_compression_validate(const kvp_kv_compression *c, uint32_t sm_version,
                                       bool enable_block_reuse, kvp_spec_mode spec,
                                       kvp_error *err) {
    if (c->algorithm == KVP_COMPRESSION_COLD_PAGE_QUANT) {
        if (c->quant_nvfp4 && !kvp_sm_is_100_family(sm_version))
            return kvp__fail(err, KVP_UNSUPPORTED, NULL, "sm_version",
                             "NVFP4 cold-page quantization requires an SM100-family device "
                             "(SM100, SM103 or SM107); got SM%u",
                             sm_version);
    } else if (c->algorithm == KVP_COMPRESSION_TRIATTENTION && !kvp_sm_is_100_family(sm_version)) {
        return kvp__fail(err, KVP_UNSUPPORTED, NULL, "sm_version",
                         "TriAttention requires an SM100-family device (SM100 or SM103); got "
                         "SM%u",
                         sm_version);
    }
    const char *name = kvp_compression_name(c->algorithm);
    if (enable_block_reuse && !supports_block_reuse(c))
        return kvp__fail(err, KVP_CONFIG, NULL, "enable_block_reuse",
                         "KV-cache compression algorithm '%s' does not support KV-cache block "
                         "reuse. Set KvCacheConfig.enable_block_reuse=False.",
                         name);
    if (spec == KVP_SPEC_NONE) return KVP_OK;
    if (!supports_spec(c))
        return kvp__fail(err, KVP_CONFIG, NULL, "speculative_config",
                         "KV-cache compression algorithm '%s' does not support speculative "
                         "decoding with its current configuration%s",
                         name,
                         c->algorithm == KVP_COMPRESSION_TRIATTENTION
                             ? "; TriAttention requires eviction_mode='union'"
                             : "");
    /* kvplan's one-model MTP is MTPDecodingConfig's default (MTP-EAGLE one-model), which
     * is_mtp_one_model() also accepts. */
    if (spec != KVP_SPEC_MTP && spec != KVP_SPEC_EAGLE3)
        return kvp__fail(err, KVP_CONFIG, NULL, "speculative_config",
                         "KV-cache compression does not support speculative decoding mode %s; "
                         "use %s",
                         spec_mode_upper(spec),
                         c->algorithm == KVP_COMPRESSION_COLD_PAGE_QUANT
                             ? "one-model MTP-EAGLE or EAGLE3"
                             : "one-model MTP or EAGLE3");
    return KVP_OK;
}

kvp_status kvp_kv_compression_manager(const kvp_kv_compression *c, bool helix_cp,
                                      kvp_manager_kind manager, kvp_dtype kv_dtype,
                                      uint32_t sm_version, bool enable_block_reuse,
                                      kvp_spec_mode spec, bool estimating,
                                      kvp_compression_effect *out, kvp_notes *notes,
                                      kvp_error *err) {
    memset(out, 0, sizeof *out);
    if (c->algorithm == KVP_COMPRESSION_NONE) return KVP_OK;
    if (helix_cp)
        return kvp__fail(err, KVP_CONFIG, NULL, "cp",
                         "KV-cache compression does not support HELIX context parallelism.");
    if (c->algorithm == KVP_COMPRESSION_COLD_PAGE_QUANT) {
        if (!c->quant_nvfp4)
            return kvp__fail(err, KVP_UNSUPPORTED, NULL, "kv_cache_compression_config",
                             "Unsupported cold-page quantization format '%s'",
                             c->quant ? c->quant : "none");
        if (!kvp_manager_is_v2(manager))
            return kvp__fail(err, KVP_CONFIG, NULL, "use_kv_cache_manager_v2",
                             "Cold-page quantization requires the resolved KV cache manager to "
                             "be KVCacheManagerV2; selected %s",
                             kvp_manager_kind_name(manager));
        if (estimating) return KVP_OK; /* the estimation build runs without it */
        if (kv_dtype == KVP_DTYPE_NVFP4) {
            kvp__note(notes, "skipping cold-page NVFP4 quantization: the KV cache already uses "
                             "NVFP4 (pages migrate losslessly)");
            return KVP_OK;
        }
        kvp_status st = kvp_kv_compression_validate(c, sm_version, enable_block_reuse, spec, err);
        if (st) return st;
        out->active = true;
        out->cold_page_dtype = KVP_DTYPE_NVFP4;
        out->iteration_lifecycle = false;
        return KVP_OK;
    }
    kvp_status st = kvp_kv_compression_validate(c, sm_version, enable_block_reuse, spec, err);
    if (st) return st;
    out->active = true;
    out->cold_page_dtype = KVP_DTYPE_AUTO; /* pages keep the KV dtype */
    out->iteration_lifecycle = true;       /* runs as a resource manager after the KV one */
    return KVP_OK;
}

/* ---------------------------------------------------------------- LoRA */

/* TensorRT-LLM's LoRA module names (LoraModule::ModuleType), the ones
 * create_lora_modules accepts. */
static const char *const k_lora_modules[] = {
    "attn_qkv",      "attn_q",          "attn_k",          "attn_v",
    "attn_dense",    "mlp_h_to_4h",     "mlp_4h_to_h",     "mlp_gate",
    "cross_attn_qkv", "cross_attn_q",   "cross_attn_k",    "cross_attn_v",
    "cross_attn_dense", "moe_h_to_4h",  "moe_4h_to_h",     "moe_gate",
    "moe_router",    "mlp_router",      "mlp_gate_up",     "shared_expert_h_to_4h",
    "shared_expert_4h_to_h", "shared_expert_gate", "mamba_in_proj", "mamba_out_proj",
    "moe_latent_fc1", "moe_latent_fc2", NULL};

static bool known_module(const char *m) {
    for (const char *const *k = k_lora_modules; *k; k++)
        if (strcmp(*k, m) == 0) return true;
    return false;
}

static uint64_t stated_or(kvp_fact_u64 f, uint64_t dflt) {
    return f.state == KVP_FACT_STATED ? f.value : dflt;
}

kvp_status kvp_lora_cache_size(const kvp_model *model, const kvp_lora_settings *s, uint32_t tp,
                               kvp_lora_cache *out, kvp_notes *notes, kvp_error *err) {
    memset(out, 0, sizeof *out);
    if (tp == 0) tp = 1;
    if (s->max_lora_rank == 0)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "max_lora_rank",
                         "max_lora_rank must be positive (a rank-0 adapter has no weights)");
    if (s->module_count == 0)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "lora_target_modules",
                         "Expecting at least one lora target module");
    if (s->module_count > KVP_LORA_MAX_MODULES)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "lora_target_modules",
                         "%zu LoRA target modules; at most %d", s->module_count,
                         KVP_LORA_MAX_MODULES);
    for (size_t i = 0; i < s->module_count; i++)
        if (!known_module(s->target_modules[i]))
            return kvp__fail(err, KVP_INVALID_ARG, NULL, "lora_target_modules",
                             "unknown LoRA target module '%s' (TensorRT-LLM module names: "
                             "attn_qkv, attn_q, attn_k, attn_v, attn_dense, mlp_h_to_4h, "
                             "mlp_4h_to_h, mlp_gate, ...)",
                             s->target_modules[i]);
    const kvp_model_info *info = kvp_model_get_info(model);
    out->num_experts = kvp_num_experts(model);
    /* num_kv_heads_per_layer: the max when layers differ (with the seed's warning). */
    uint32_t kv_min = UINT32_MAX, kv_max = 0;
    for (size_t i = 0; i < kvp_model_cache_count(model); i++) {
        const kvp_layer_cache *c = kvp_model_cache(model, i);
        if (c->kind != KVP_CACHE_FULL && c->kind != KVP_CACHE_SLIDING &&
            c->kind != KVP_CACHE_CHUNKED && c->kind != KVP_CACHE_MLA)
            continue;
        if (c->kv_heads < kv_min) kv_min = c->kv_heads;
        if (c->kv_heads > kv_max) kv_max = c->kv_heads;
    }
    if (kv_max && kv_min != kv_max)
        kvp__note(notes, "Defining LORA with per-layer KV heads is not supported for LORA, using "
                         "the max number of KV heads per layer (%u)",
                  kv_max);
    out->num_kv_heads = kv_max ? kv_max : info->num_kv_heads;
    /* shared_expert_hidden_size: the adapter's global size // tp. */
    if (s->shared_expert_global_size > 0) {
        if (s->shared_expert_global_size % tp != 0)
            return kvp__fail(err, KVP_CONFIG, NULL, "shared_expert",
                             "the adapter's shared-expert intermediate size %llu does not divide "
                             "over tp %u",
                             (unsigned long long)s->shared_expert_global_size, tp);
        out->shared_expert_hidden_size = s->shared_expert_global_size / tp;
    }
    const kvp_lora_facts *lf = &kvp_model_get_facts(model)->lora;
    out->moe_hidden_size = info->moe_intermediate_size / tp;
    uint64_t mhd = stated_or(lf->mamba_head_dim, 0), mnh = stated_or(lf->mamba_num_heads, 0);
    if (mhd > 0 && mnh > 0) {
        uint64_t d_inner = mhd * mnh;
        uint64_t n_groups = stated_or(lf->n_groups, 1), d_state = stated_or(lf->ssm_state_size, 128);
        out->mamba_inner_size = d_inner / tp;
        out->mamba_in_proj_size = (2 * d_inner + 2 * n_groups * d_state + mnh) / tp;
    }
    out->moe_latent_size = stated_or(lf->moe_latent_size, 0); /* replicated, not sharded */
    bool has_dense_mlp = lf->has_dense_mlp_layers;
    /* With shared experts the mlp_* modules become shared_expert_* ones (kept as well
     * when the model has dense MLP layers). */
    size_t n = 0;
    for (size_t i = 0; i < s->module_count; i++)
        out->modules[n++] = s->target_modules[i];
    if (out->shared_expert_hidden_size > 0) {
        static const char *const map[3][2] = {{"mlp_h_to_4h", "shared_expert_h_to_4h"},
                                              {"mlp_4h_to_h", "shared_expert_4h_to_h"},
                                              {"mlp_gate", "shared_expert_gate"}};
        for (int k = 0; k < 3; k++) {
            size_t at = SIZE_MAX;
            bool has_se = false;
            for (size_t i = 0; i < n; i++) {
                if (strcmp(out->modules[i], map[k][0]) == 0) at = i;
                if (strcmp(out->modules[i], map[k][1]) == 0) has_se = true;
            }
            if (at == SIZE_MAX) continue;
            if (!has_se) out->modules[n++] = map[k][1];
            if (!has_dense_mlp) {
                memmove(&out->modules[at], &out->modules[at + 1],
                        (n - at - 1) * sizeof out->modules[0]);
                n--;
            }
        }
    }
    out->module_count = n;
    /* _compute_num_lora_modules over target_modules + missing_qkv_modules. */
    const char *all[2 * KVP_LORA_MAX_MODULES];
    size_t na = 0;
    for (size_t i = 0; i < n; i++) all[na++] = out->modules[i];
    for (size_t i = 0; i < s->missing_qkv_count && na < 2 * KVP_LORA_MAX_MODULES; i++)
        all[na++] = s->missing_qkv_modules[i];
    kvp_status st = kvp_lora_module_slots(model, all, na, &out->num_lora_modules, err);
    if (st) return st;
    /* num_device_module_layer = max_lora_rank * num_lora_modules * max_loras. */
    if (s->has_max_loras &&
        !kvp__mul_many_u64(&out->device_module_layers, 3, (uint64_t)s->max_lora_rank,
                           out->num_lora_modules, (uint64_t)s->max_loras))
        return kvp__fail(err, KVP_OVERFLOW, NULL, "max_loras", "LoRA device slots overflow");
    if (s->has_max_cpu_loras &&
        !kvp__mul_many_u64(&out->host_module_layers, 3, (uint64_t)s->max_lora_rank,
                           out->num_lora_modules, (uint64_t)s->max_cpu_loras))
        return kvp__fail(err, KVP_OVERFLOW, NULL, "max_cpu_loras", "LoRA host slots overflow");
    out->has_device = s->has_max_loras;
    out->has_host = s->has_max_cpu_loras;
    return KVP_OK;
}

/* ------------------------------------------------- multimodal encoder */

kvp_status kvp_mm_encoder_profile_batch(const kvp_mm_item *items, size_t n,
                                        uint64_t encoder_max_num_tokens,
                                        uint64_t encoder_batch_size, kvp_mm_profile *out,
                                        kvp_error *err) {
    memset(out, 0, sizeof *out);
    if (encoder_max_num_tokens == 0) return KVP_OK; /* no encoder token budget: no batch */
    for (size_t i = 0; i < n; i++) {
        if (!items[i].modality || !items[i].modality[0])
            return kvp__fail(err, KVP_INVALID_ARG, NULL, "modality",
                             "Multimodal modality name cannot be empty");
        if (items[i].tokens_per_item == 0)
            return kvp__fail(err, KVP_INVALID_ARG, NULL, items[i].modality,
                             "Multimodal encoder token counts must be positive; got 0 for %s",
                             items[i].modality);
    }
    /* The modality with the most tokens per item that fits the budget (ties: the
     * larger name, as max() over (tokens, name) tuples). */
    const kvp_mm_item *best = NULL;
    for (size_t i = 0; i < n; i++) {
        if (items[i].tokens_per_item > encoder_max_num_tokens) continue;
        if (!best || items[i].tokens_per_item > best->tokens_per_item ||
            (items[i].tokens_per_item == best->tokens_per_item &&
             strcmp(items[i].modality, best->modality) > 0))
            best = &items[i];
    }
    if (!best) return KVP_OK;
    uint64_t by_tokens = encoder_max_num_tokens / best->tokens_per_item;
    out->has_batch = true;
    out->modality = best->modality;
    out->tokens_per_item = best->tokens_per_item;
    out->num_items = encoder_batch_size < by_tokens ? encoder_batch_size : by_tokens;
    if (!kvp__mul_u64(out->num_items, out->tokens_per_item, &out->tokens))
        return kvp__fail(err, KVP_OVERFLOW, NULL, "encoder_max_num_tokens",
                         "encoder profiling tokens overflow");
    return KVP_OK;
}

kvp_status kvp_mm_encoder_output_bytes(const kvp_mm_profile *p, uint64_t embedding_dim,
                                       kvp_dtype dtype, uint64_t *out_bytes, kvp_error *err) {
    *out_bytes = 0;
    if (!p->has_batch) return KVP_OK;
    uint64_t elems;
    if (!kvp__mul_u64(p->tokens, embedding_dim, &elems) ||
        kvp_dtype_bytes(dtype == KVP_DTYPE_AUTO ? KVP_DTYPE_BF16 : dtype, elems, out_bytes) !=
            KVP_OK)
        return kvp__fail(err, KVP_OVERFLOW, NULL, "encoder_max_num_tokens",
                         "encoder output bytes overflow");
    return KVP_OK;
}
