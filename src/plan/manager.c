/*
 * manager.c — which KV cache manager a deployment gets (the seed's
 * get_kv_cache_manager_cls, _non_hybrid_kv_cache_manager_cls and
 * _validate_or_fallback_kv_cache_manager_v2), with the seed's errors worded
 * for a C caller: environment overrides are explicit settings.
 */
#include <string.h>

#include "plan_internal.h"
#include "plan_rules.h"

static const char *const k_manager_names[KVP_MANAGER_KIND_COUNT] = {
    [KVP_MANAGER_PAGED_V1] = "paged-v1",
    [KVP_MANAGER_PAGED_V2] = "paged-v2",
    [KVP_MANAGER_HYBRID_UNIFIED] = "hybrid-unified",
    [KVP_MANAGER_HYBRID_MIXED] = "hybrid-mixed",
    [KVP_MANAGER_HYBRID_V2] = "hybrid-v2",
    [KVP_MANAGER_SPARSE_V1] = "sparse-v1",
    [KVP_MANAGER_SPARSE_V2] = "sparse-v2",
    [KVP_MANAGER_SPARSE_HYBRID_V2] = "sparse-hybrid-v2",
    [KVP_MANAGER_FP4_MLA_V2] = "fp4-mla-v2",
};

const char *kvp_manager_kind_name(kvp_manager_kind kind) {
    return (unsigned)kind < KVP_MANAGER_KIND_COUNT ? k_manager_names[kind] : "unknown";
}

bool kvp_manager_is_v2(kvp_manager_kind kind) {
    return kind == KVP_MANAGER_PAGED_V2 || kind == KVP_MANAGER_HYBRID_V2 ||
           kind == KVP_MANAGER_SPARSE_V2 || kind == KVP_MANAGER_SPARSE_HYBRID_V2 ||
           kind == KVP_MANAGER_FP4_MLA_V2;
}

bool kvp_manager_is_hybrid(kvp_manager_kind kind) {
    return kind == KVP_MANAGER_HYBRID_UNIFIED || kind == KVP_MANAGER_HYBRID_MIXED ||
           kind == KVP_MANAGER_HYBRID_V2 || kind == KVP_MANAGER_SPARSE_HYBRID_V2;
}

static bool streq(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

/* _non_hybrid_kv_cache_manager_cls: per-layer head dims (Gemma4 hybrid) need V2. */
static kvp_manager_kind non_hybrid(const kvp_manager_inputs *in) {
    return in->use_v2 || in->is_gemma4_hybrid ? KVP_MANAGER_PAGED_V2 : KVP_MANAGER_PAGED_V1;
}

static kvp_manager_kind sparse_manager(bool use_v2) {
    return use_v2 ? KVP_MANAGER_SPARSE_V2 : KVP_MANAGER_SPARSE_V1;
}

kvp_status kvp_manager_choose(const kvp_manager_inputs *in, kvp_manager_kind *out,
                              kvp_notes *notes, kvp_error *err) {
    const char *backend = in->attn_backend ? in->attn_backend : "TRTLLM";
    const char *sparse = in->sparse_algorithm;
    bool use_v2 = in->use_v2;

    if (!sparse && in->is_mla && in->fp4_kv) {
        if (in->v2_explicit_false)
            return kvp__fail(err, KVP_CONFIG, NULL, "use_kv_cache_manager_v2",
                             "FP4 MLA requires use_kv_cache_manager_v2=True (an nvfp4 KV cache "
                             "on an MLA model needs the paged v2 manager)");
        if (strcmp(backend, "TRTLLM") != 0)
            return kvp__fail(err, KVP_CONFIG, NULL, "attn_backend",
                             "FP4 MLA requires the TRTLLM attention backend, got %s", backend);
        if (in->is_disagg)
            return kvp__fail(err, KVP_UNSUPPORTED, NULL, "disaggregated",
                             "FP4 MLA disaggregated serving is not supported yet (it needs the "
                             "Python NIXL integration)");
        if (in->is_hybrid_linear)
            return kvp__fail(err, KVP_UNSUPPORTED, NULL, "kv_dtype",
                             "FP4 MLA requires the fp4-mla-v2 manager, which does not support "
                             "hybrid linear-attention models");
        *out = KVP_MANAGER_FP4_MLA_V2;
        return KVP_OK;
    }

    if (!in->is_hybrid_linear) {
        if (sparse) {
            if (streq(sparse, "qsa"))
                return kvp__fail(err, KVP_CONFIG, NULL, "sparse_attention",
                                 "QSA sparse attention currently requires a hybrid Mamba / "
                                 "linear-attention model");
            *out = sparse_manager(use_v2);
            return KVP_OK;
        }
        *out = non_hybrid(in);
        return KVP_OK;
    }

    /* Flagged hybrid but no recurrent layer: the standard non-hybrid routes. */
    if (in->num_recurrent_layers == 0) {
        kvp__note(notes, "hybrid linear model has 0 recurrent layers; using a KV cache manager "
                         "without recurrent state");
        *out = sparse ? sparse_manager(use_v2) : non_hybrid(in);
        return KVP_OK;
    }
    if (streq(sparse, "qsa") && !use_v2)
        return kvp__fail(err, KVP_CONFIG, NULL, "use_kv_cache_manager_v2",
                         "QSA with hybrid Mamba / linear-attention models requires "
                         "use_kv_cache_manager_v2=True");
    if (sparse && !streq(sparse, "qsa") && !streq(sparse, "skip_softmax"))
        return kvp__fail(err, KVP_CONFIG, NULL, "sparse_attention",
                         "sparse attention algorithm '%s' is not supported with hybrid Mamba / "
                         "linear-attention models",
                         sparse);
    if (in->mamba_additional_snapshots && !use_v2)
        return kvp__fail(err, KVP_CONFIG, NULL, "mamba_state_config",
                         "Mamba additional snapshot offsets require use_kv_cache_manager_v2=True; "
                         "V1 supports only periodic_snapshot_interval");
    if (in->helix_cp && in->has_spec && !use_v2)
        return kvp__fail(err, KVP_CONFIG, NULL, "use_kv_cache_manager_v2",
                         "Helix with speculative decoding requires use_kv_cache_manager_v2=True; "
                         "the V1-family hybrid managers do not implement per-token verify-group "
                         "bookkeeping");
    if (in->is_kimi_linear && !use_v2 && !in->is_disagg) {
        if (in->enable_block_reuse) {
            kvp__note(notes, "Kimi linear hybrid with block reuse: hybrid-unified manager");
            *out = KVP_MANAGER_HYBRID_UNIFIED;
        } else {
            kvp__note(notes, "Kimi linear hybrid: hybrid-mixed manager");
            *out = KVP_MANAGER_HYBRID_MIXED;
        }
        return KVP_OK;
    }
    if (in->is_disagg) {
        const char *be = in->transceiver_backend;
        const char *rt = streq(in->transceiver_runtime, "auto") ? NULL : in->transceiver_runtime;
        bool py_nixl = streq(rt, "PYTHON") && streq(be, "NIXL");
        if (in->is_kimi_linear && !py_nixl)
            return kvp__fail(err, KVP_CONFIG, NULL, "cache_transceiver_config",
                             "Kimi linear disaggregated serving requires the Python transceiver: "
                             "backend NIXL with runtime PYTHON (or auto with NIXL); the C++ "
                             "transceiver cannot transfer KDA recurrent state (got backend=%s, "
                             "runtime=%s)",
                             be ? be : "none", rt ? rt : "none");
        if (use_v2) {
            if (!py_nixl)
                return kvp__fail(err, KVP_CONFIG, NULL, "cache_transceiver_config",
                                 "KV cache manager V2 for hybrid Mamba disaggregated serving "
                                 "requires transceiver runtime PYTHON with backend NIXL");
        } else {
            if (in->enable_block_reuse && streq(rt, "PYTHON"))
                return kvp__fail(err, KVP_CONFIG, NULL, "use_kv_cache_manager_v2",
                                 "hybrid Mamba disaggregated serving with block reuse and "
                                 "transceiver runtime PYTHON requires "
                                 "use_kv_cache_manager_v2=True");
            if (in->enable_block_reuse) {
                *out = KVP_MANAGER_HYBRID_UNIFIED;
                return KVP_OK;
            }
            if (py_nixl) {
                kvp__note(notes, "Python transceiver detected; using the hybrid-mixed manager");
                *out = KVP_MANAGER_HYBRID_MIXED;
                return KVP_OK;
            }
            *out = KVP_MANAGER_HYBRID_UNIFIED;
            return KVP_OK;
        }
    }
    if (in->force_mixed_hybrid && !in->is_disagg) {
        if (use_v2)
            return kvp__fail(err, KVP_CONFIG, NULL, "force_mixed_hybrid",
                             "forcing the hybrid-mixed manager (TRTLLM_USE_PY_MAMBA=1) conflicts "
                             "with use_kv_cache_manager_v2=True");
        if (in->enable_block_reuse)
            return kvp__fail(err, KVP_CONFIG, NULL, "force_mixed_hybrid",
                             "forcing the hybrid-mixed manager (TRTLLM_USE_PY_MAMBA=1) does not "
                             "support block reuse; disable block reuse or drop the override");
        kvp__note(notes, "hybrid-mixed manager forced for the hybrid Mamba model");
        *out = KVP_MANAGER_HYBRID_MIXED;
        return KVP_OK;
    }
    if (in->mamba_preference == KVP_MAMBA_PREF_MIXED) {
        if (use_v2)
            return kvp__fail(err, KVP_CONFIG, NULL, "mamba_manager_preference",
                             "Mamba manager preference MIXED conflicts with "
                             "use_kv_cache_manager_v2=True");
        if (in->enable_block_reuse)
            return kvp__fail(err, KVP_CONFIG, NULL, "mamba_manager_preference",
                             "Mamba manager preference MIXED forces the hybrid-mixed manager, "
                             "which does not support block reuse; disable block reuse, prefer "
                             "CPP, or enable KV cache manager V2");
        kvp__note(notes, "Mamba manager preference MIXED overrides the default hybrid manager");
        *out = KVP_MANAGER_HYBRID_MIXED;
        return KVP_OK;
    }
    if (in->mamba_preference == KVP_MAMBA_PREF_CPP) {
        if (use_v2)
            return kvp__fail(err, KVP_CONFIG, NULL, "mamba_manager_preference",
                             "Mamba manager preference CPP conflicts with "
                             "use_kv_cache_manager_v2=True");
        kvp__note(notes, "Mamba manager preference CPP overrides the default hybrid manager");
        *out = KVP_MANAGER_HYBRID_UNIFIED;
        return KVP_OK;
    }
    if (in->mamba_preference == KVP_MAMBA_PREF_OTHER)
        kvp__note(notes, "unrecognised Mamba manager preference (expected CPP or MIXED); using "
                         "the configured default");
    if (!use_v2) {
        *out = KVP_MANAGER_HYBRID_UNIFIED;
        return KVP_OK;
    }
    if (in->enable_block_reuse && in->enable_kv_pool_rebalance)
        return kvp__fail(err, KVP_CONFIG, NULL, "enable_kv_pool_rebalance",
                         "V2 Mamba block reuse is not compatible with enable_kv_pool_rebalance: "
                         "the rebalancer does not model retained recurrent-state snapshots");
    *out = streq(sparse, "qsa") ? KVP_MANAGER_SPARSE_HYBRID_V2 : KVP_MANAGER_HYBRID_V2;
    return KVP_OK;
}

const char *kvp_v2_incompatible_feature(uint32_t max_beam_width) {
    return max_beam_width > 1 ? "max_beam_width > 1" : NULL;
}

kvp_status kvp_manager_validate_v2(const kvp_manager_inputs *in, kvp_manager_kind chosen,
                                   kvp_manager_kind *out, kvp_notes *notes, kvp_error *err) {
    *out = chosen;
    if (!kvp_manager_is_v2(chosen)) return KVP_OK;
    const char *incompat = kvp_v2_incompatible_feature(in->max_beam_width);
    if (!incompat) return KVP_OK;
    if (in->sparse_algorithm)
        return kvp__fail(err, KVP_UNSUPPORTED, NULL, "max_beam_width",
                         "the V2 manager for sparse-attention models (algorithm '%s') does not "
                         "support %s; disable it to run sparse-attention models",
                         in->sparse_algorithm, incompat);
    if (in->is_gemma4_hybrid)
        return kvp__fail(err, KVP_UNSUPPORTED, NULL, "max_beam_width",
                         "Gemma4 hybrid attention requires the V2 manager, which does not "
                         "support %s yet; disable it to run Gemma4 hybrid models",
                         incompat);
    if (in->is_mla && in->fp4_kv)
        return kvp__fail(err, KVP_UNSUPPORTED, NULL, "max_beam_width",
                         "FP4 MLA requires the fp4-mla-v2 manager, which does not support %s "
                         "yet; disable it to run FP4 MLA",
                         incompat);
    if (in->is_hybrid_linear)
        return kvp__fail(err, KVP_UNSUPPORTED, NULL, "max_beam_width",
                         "hybrid Mamba cache managers do not support %s and the hybrid-unified "
                         "manager is no compatible fallback; use max_beam_width=1 to run hybrid "
                         "linear models",
                         incompat);
    kvp__note(notes, "the V2 manager does not support %s; falling back to paged-v1", incompat);
    *out = KVP_MANAGER_PAGED_V1;
    return KVP_OK;
}

kvp_status kvp_manager_select(const kvp_manager_inputs *in, kvp_manager_kind *out,
                              kvp_notes *notes, kvp_error *err) {
    kvp_manager_kind k;
    kvp_status st = kvp_manager_choose(in, &k, notes, err);
    if (st) return st;
    st = kvp_manager_validate_v2(in, k, out, notes, err);
    if (st) return st;
    /* _get_model_kv_cache_manager_cls warns for every class that is not a
     * MambaHybridCacheManagerV2 (the QSA manager extends it), including the non-hybrid
     * managers a hybrid-flagged config with no recurrent layer routes to. */
    if (in->is_hybrid_linear && in->enable_block_reuse && in->has_spec &&
        *out != KVP_MANAGER_HYBRID_V2 && *out != KVP_MANAGER_SPARSE_HYBRID_V2)
        kvp__note(notes, "block reuse does not work with MTP for hybrid linear models on the "
                         "non-V2 manager %s",
                  kvp_manager_kind_name(*out));
    return KVP_OK;
}

kvp_status kvp_manager_check_beam(kvp_manager_kind kind, uint32_t max_beam_width,
                                  kvp_error *err) {
    /* _create_kv_cache_manager: every hybrid branch (Kimi K3, Nemotron-H, Qwen3-Next /
     * Qwen4-exp) raises before building the manager. */
    if (kvp_manager_is_hybrid(kind) && max_beam_width > 1)
        return kvp__fail(err, KVP_CONFIG, NULL, "max_beam_width",
                         "MambaHybridCacheManager + beam search is not supported yet "
                         "(max_beam_width %u with the %s manager)",
                         max_beam_width, kvp_manager_kind_name(kind));
    return KVP_OK;
}

kvp_status kvp_manager_check_connector(kvp_manager_kind kind, bool has_kv_connector,
                                       kvp_error *err) {
    if (kvp_manager_is_hybrid(kind) && has_kv_connector)
        return kvp__fail(err, KVP_UNSUPPORTED, NULL, "kv_connector",
                         "Connector manager is not supported for MambaHybridCacheManager (the %s "
                         "manager)",
                         kvp_manager_kind_name(kind));
    return KVP_OK;
}

bool kvp_manager_supports_reuse_backoff(kvp_manager_kind kind) {
    /* _supports_reuse_match_backoff: the plain V2 pool can back a prefix match off by the
     * draft's lookahead; managers with their own commit/history protocol (recurrent
     * snapshots, sparse DSA pages) cannot. */
    return kind == KVP_MANAGER_PAGED_V2 || kind == KVP_MANAGER_FP4_MLA_V2;
}

bool kvp_joint_reuse_supported(kvp_manager_kind kind, int32_t draft_prompt_lookahead) {
    if (!kvp_manager_is_v2(kind)) return false;
    if (draft_prompt_lookahead < 0) return false; /* span unknown (None) */
    if (draft_prompt_lookahead > 0 && !kvp_manager_supports_reuse_backoff(kind)) return false;
    return true;
}
