/*
 * creator.c — the KvCacheCreator lifecycle: manager selection at
 * construction, try_prepare_estimation, configure_kv_cache_capacity (and its
 * helix path), build_managers with the self/cross and target/draft splits,
 * and each manager's pools sized from its quota.
 *
 * Per-manager costs follow the seed's get_cache_size_per_token contract:
 * paged v1 charges every attention layer per token; v2 keeps full-context
 * pools in the slope and window pools (ceil(W/tpb)*tpb tokens for
 * max_batch_size sequences) in the intercept; hybrid managers add the
 * recurrent state of (max_batch_size * pp + dummy slots) sequences to the
 * intercept (ENGINES.md 4.4).
 */
#include <string.h>

#include "plan_internal.h"
#include "pools_memo.h"
#include "plan_rules.h"
#include "cost_internal.h"
#include "model_internal.h"

#define DEFAULT_FRACTION 0.9
#define DEFAULT_MAX_BATCH 2048u
#define DEFAULT_MAX_NUM_TOKENS 8192u
#define DEFAULT_SM 90u
#define DEFAULT_HYBRID_DUMMY_SLOTS 1u

struct kvp_creator {
    kvp_allocator alc;
    bool has_alc;
    const kvp_model *target, *draft;
    kvp_deploy_settings d;
    kvp_kv_config kv;
    uint64_t *user_windows; /* normalized, kv.max_attention_window_count entries */
    size_t user_window_count;
    double *pool_ratio;
    size_t pool_ratio_count;
    kvp_dtype kv_dtype, draft_kv_dtype;
    kvp_manager_inputs in, draft_in;
    kvp_manager_kind manager, draft_manager;
    bool is_v2;
    bool two_model, separate_draft, spec_folded;
    uint32_t num_draft_layers;
    uint32_t stage, last_stage;
    bool skip_est;
    bool pool_ratio_suspended; /* estimation overrides pool_ratio with None */
    bool has_max_tokens;
    uint64_t max_tokens, max_gpu_total_bytes;
    bool configured;
    bool mla_chunks_profiled;
    uint64_t mla_profile_len;
    kvp_notes notes;
    /* The pools kept between model_pools calls (pools_memo.h): a run's, shared
     * by its plans (kvp__creator_use_pools_memo), else the creator's own,
     * allocated on the first call. */
    kvp__pools_memo *pools_memo, *own_pools_memo;
};

static const kvp_allocator *calc(const kvp_creator *c) { return c->has_alc ? &c->alc : NULL; }

const kvp_notes *kvp_creator_notes(const kvp_creator *c) { return &c->notes; }
kvp_manager_kind kvp_creator_manager(const kvp_creator *c) { return c->manager; }
const kvp_deploy_settings *kvp__creator_deploy(const kvp_creator *c) { return &c->d; }

const char *kvp_manager_role_name(kvp_manager_role role) {
    switch (role) {
    case KVP_ROLE_TARGET:
        return "target";
    case KVP_ROLE_DRAFT:
        return "draft";
    case KVP_ROLE_CROSS:
        return "cross";
    case KVP_ROLE_COUNT:
        break;
    }
    return "unknown";
}

void kvp_creator_free(kvp_creator *c) {
    if (!c) return;
    kvp_allocator copy = c->alc;
    const kvp_allocator *alc = c->has_alc ? &copy : NULL;
    kvp__free(alc, c->user_windows);
    kvp__free(alc, c->pool_ratio);
    kvp__free(alc, c->own_pools_memo);
    kvp__free(alc, c);
}

/* ------------------------------------------------------------ settings */

static kvp_dtype resolve_kv_dtype(const kvp_model *m, kvp_dtype requested) {
    const kvp_model_info *info = kvp_model_get_info(m);
    if (requested != KVP_DTYPE_AUTO) return requested;
    if (info->kv_dtype_declared != KVP_DTYPE_AUTO) return info->kv_dtype_declared;
    return info->dtype == KVP_DTYPE_AUTO ? KVP_DTYPE_BF16 : info->dtype;
}

static kvp_status apply_defaults(kvp_creator *c, kvp_error *err) {
    kvp_deploy_settings *d = &c->d;
    const kvp_model_info *info = kvp_model_get_info(c->target);
    if (!d->tp) d->tp = 1;
    if (!d->pp) d->pp = 1;
    if (!d->cp) d->cp = 1;
    if (!d->max_batch_size) d->max_batch_size = DEFAULT_MAX_BATCH;
    if (!d->max_num_tokens) d->max_num_tokens = DEFAULT_MAX_NUM_TOKENS;
    if (!d->max_beam_width) d->max_beam_width = 1;
    if (!d->sm_version) d->sm_version = DEFAULT_SM;
    if (!d->attn_backend) d->attn_backend = "TRTLLM";
    if (!d->hybrid_dummy_slots) d->hybrid_dummy_slots = DEFAULT_HYBRID_DUMMY_SLOTS;
    if (!d->max_seq_len) d->max_seq_len = info->max_position_embeddings;
    if (!d->max_seq_len)
        return kvp__fail(err, KVP_CONFIG, kvp_model_name(c->target), "max_seq_len",
                         "the config states no max_position_embeddings; set max_seq_len");
    if (d->helix_cp && d->cp < 2)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "cp",
                         "helix context parallelism needs cp > 1, got %u", d->cp);
    if (d->max_util_for_resume == 0.0) d->max_util_for_resume = 1.0;
    if (!(d->max_util_for_resume > 0.0 && d->max_util_for_resume <= 1.0))
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "max_util_for_resume",
                         "max_util_for_resume %g is outside (0, 1]", d->max_util_for_resume);
    if (c->kv.free_gpu_memory_fraction == 0.0) c->kv.free_gpu_memory_fraction = DEFAULT_FRACTION;
    if (!(c->kv.free_gpu_memory_fraction > 0.0 && c->kv.free_gpu_memory_fraction <= 1.0))
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "free_gpu_memory_fraction",
                         "free_gpu_memory_fraction %g is outside (0, 1]",
                         c->kv.free_gpu_memory_fraction);
    if (!c->kv.tokens_per_block) c->kv.tokens_per_block = KVP_DEFAULT_TOKENS_PER_BLOCK;
    if (c->kv.has_max_tokens && c->kv.max_tokens == 0)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "max_tokens", "max_tokens must be positive");
    if (d->pp > info->num_layers)
        return kvp__fail(err, KVP_CONFIG, kvp_model_name(c->target), "pp",
                         "pipeline parallelism %u is larger than the %u layers", d->pp,
                         info->num_layers);
    if (d->pp_rank >= 0 && (uint32_t)d->pp_rank >= d->pp)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "pp_rank",
                         "stage %d does not exist with pipeline parallelism %u", d->pp_rank,
                         d->pp);
    return KVP_OK;
}

/* The draft's number of cache layers (_get_num_draft_layers / get_num_spec_layers). */
static kvp_status resolve_spec(kvp_creator *c, kvp_error *err) {
    kvp_deploy_settings *d = &c->d;
    const kvp_model_info *ti = kvp_model_get_info(c->target);
    if (d->spec_mode == KVP_SPEC_NONE) {
        if (c->draft)
            return kvp__fail(err, KVP_CONFIG, kvp_model_name(c->draft), "spec_mode",
                             "a draft model was given without a speculative decoding mode");
        return KVP_OK;
    }
    if (d->max_draft_len == 0)
        return kvp__fail(err, KVP_CONFIG, NULL, "max_draft_len",
                         "speculative decoding (%s) needs max_draft_len >= 1",
                         kvp_spec_mode_name(d->spec_mode));
    bool needs_draft = d->spec_mode == KVP_SPEC_TWO_MODEL ||
                       kvp_spec_is_external_drafter(d->spec_mode);
    if (needs_draft && !c->draft)
        return kvp__fail(err, KVP_CONFIG, NULL, "draft",
                         "speculative mode %s needs a draft model",
                         kvp_spec_mode_name(d->spec_mode));
    if (d->spec_mode == KVP_SPEC_MTP && c->draft)
        return kvp__fail(err, KVP_CONFIG, kvp_model_name(c->draft), "draft",
                         "MTP draft layers are part of the target model; do not pass a draft "
                         "model");
    const kvp_model_info *di = c->draft ? kvp_model_get_info(c->draft) : NULL;
    uint32_t draft_layers = di ? kvp__attention_layers(c->draft) : 0;
    if (d->spec_mode == KVP_SPEC_MTP) {
        uint32_t n = d->num_draft_layers ? d->num_draft_layers : ti->num_nextn_predict_layers;
        if (n == 0)
            return kvp__fail(err, KVP_CONFIG, kvp_model_name(c->target),
                             "/num_nextn_predict_layers",
                             "MTP needs draft layers but the model declares "
                             "num_nextn_predict_layers = 0");
        c->num_draft_layers = n;
    } else if (d->spec_mode == KVP_SPEC_EAGLE3) {
        if (di && di->hidden_size && ti->hidden_size && di->hidden_size != ti->hidden_size)
            return kvp__fail(err, KVP_CONFIG, kvp_model_name(c->draft), "/hidden_size",
                             "EAGLE3 draft hidden_size %llu contradicts the target's %llu (the "
                             "draft layer reads the target's hidden states)",
                             (unsigned long long)di->hidden_size,
                             (unsigned long long)ti->hidden_size);
        c->num_draft_layers = d->num_draft_layers ? d->num_draft_layers
                                                  : (draft_layers ? draft_layers : 1u);
        if (!c->draft)
            kvp__note(&c->notes, "EAGLE3 without a draft config: draft layers costed with the "
                                 "target's attention geometry");
    } else {
        /* Two-model and external drafters run the draft config's own layers. */
        if (draft_layers == 0)
            return kvp__fail(err, KVP_CONFIG, kvp_model_name(c->draft), "/num_hidden_layers",
                             "the draft model keeps no attention cache");
        if (d->num_draft_layers && d->num_draft_layers != draft_layers)
            return kvp__fail(err, KVP_CONFIG, kvp_model_name(c->draft), "/num_hidden_layers",
                             "the draft model has %u attention layers but num_draft_layers "
                             "says %u",
                             draft_layers, d->num_draft_layers);
        c->num_draft_layers = draft_layers;
    }
    c->two_model = d->spec_mode == KVP_SPEC_TWO_MODEL;
    /* _should_create_separate_draft_kv_cache (one-model only). */
    bool standalone = kvp_spec_is_standalone_drafter(d->spec_mode);
    bool sep = d->separate_draft_kv_cache > 0 ||
               (d->separate_draft_kv_cache == 0 && kvp_spec_is_external_drafter(d->spec_mode));
    bool adp_folded = false;
    if (!c->two_model && sep && d->attention_dp && !standalone) {
        kvp__note(&c->notes, "attention DP is enabled: separate draft KV cache is not supported; "
                             "draft layers join the target manager");
        sep = false;
        adp_folded = true;
    }
    if (!c->two_model && sep && c->d.sparse_algorithm &&
        strcmp(c->d.sparse_algorithm, "deepseek_v4") == 0 && d->pp > 1) {
        kvp__note(&c->notes, "DeepSeek-V4 separate draft KV cache needs pp = 1; folding draft "
                             "layers into the target manager");
        sep = false;
    }
    c->separate_draft = !c->two_model && sep;
    c->spec_folded = !c->two_model && !c->separate_draft;
    /* The seed logs the attention-DP bail and goes on with the drafter's layers in
     * the target manager; an external drafter folded for any other reason is refused
     * here (kvplan: its layers have no place in the target's layer numbering). */
    if (c->spec_folded && kvp_spec_is_external_drafter(d->spec_mode) && !adp_folded)
        return kvp__fail(err, KVP_CONFIG, NULL, "separate_draft_kv_cache",
                         "an external drafter (%s) cannot share the target's KV cache manager",
                         kvp_spec_mode_name(d->spec_mode));
    kvp_dtype dw = di ? di->dtype : ti->dtype;
    c->draft_kv_dtype = kvp_draft_kv_dtype(d->spec_mode, c->kv_dtype, dw);
    if (c->draft_kv_dtype != c->kv_dtype)
        kvp__note(&c->notes, "the standalone drafter's KV pool keeps its own dtype %s instead of "
                             "the target's %s",
                  kvp_dtype_name(c->draft_kv_dtype), kvp_dtype_name(c->kv_dtype));
    return KVP_OK;
}

static void fill_inputs(const kvp_creator *c, const kvp_model *m, kvp_dtype kv_dtype,
                        kvp_manager_inputs *in) {
    memset(in, 0, sizeof *in);
    kvp_manager_inputs_from_model(m, kv_dtype, in);
    const kvp_model_info *info = kvp_model_get_info(m);
    /* use_kv_cache_manager_v2 "auto": model loading picks V2 for supported hybrid models. */
    bool hybrid = in->is_hybrid_linear && in->num_recurrent_layers > 0;
    in->use_v2 = c->kv.use_v2 > 0 || (c->kv.use_v2 == 0 && hybrid && !in->is_kimi_linear);
    in->v2_explicit_false = c->kv.use_v2 < 0;
    in->attn_backend = c->d.attn_backend;
    in->sparse_algorithm = c->d.sparse_algorithm;
    in->mamba_additional_snapshots = c->kv.mamba_additional_snapshots;
    in->helix_cp = c->d.helix_cp;
    in->has_spec = c->d.spec_mode != KVP_SPEC_NONE;
    in->enable_block_reuse = c->kv.enable_block_reuse;
    in->enable_kv_pool_rebalance = c->kv.enable_kv_pool_rebalance;
    in->is_disagg = c->d.is_disagg;
    in->transceiver_backend = c->d.transceiver_backend;
    in->transceiver_runtime = c->d.transceiver_runtime;
    in->force_mixed_hybrid = c->d.force_mixed_hybrid;
    in->mamba_preference = c->d.mamba_preference;
    in->max_beam_width = c->d.max_beam_width;
    (void)info;
}

kvp_status kvp_creator_new(const kvp_model *target, const kvp_model *draft,
                           const kvp_deploy_settings *deploy, const kvp_kv_config *kv,
                           const kvp_allocator *alc, kvp_creator **out, kvp_error *err) {
    *out = NULL;
    if (!target)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "target", "a target model is required");
    /* TensorRT-LLM's split of memory across DeepSeek-V4's windowed, compressed and
     * indexer pools is not stated in the reference (ENGINES.md §5: [unknown]): refuse
     * rather than guess it (vLLM plans V4: src/engines/vllm/vllm_v4.c). */
    static const char planner[] = "the TensorRT-LLM creator (how TensorRT-LLM splits memory "
                                  "across its DeepSeek-V4 pools is [unknown] in ENGINES.md §5)";
    kvp_status ast = kvp_cost_require_affine(target, planner, err);
    if (!ast && draft) ast = kvp_cost_require_affine(draft, planner, err);
    if (ast) return ast;
    kvp_creator *c = kvp__calloc(alc, 1, sizeof *c);
    if (!c) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
    if (alc) {
        c->alc = *alc;
        c->has_alc = true;
    }
    c->target = target;
    c->draft = draft;
    if (deploy) c->d = *deploy;
    if (kv) c->kv = *kv;
    c->kv.max_attention_window = NULL;
    c->kv.pool_ratio = NULL;
    kvp_status st = apply_defaults(c, err);
    if (st) goto fail;
    if (kv && kv->max_attention_window_count) {
        c->user_windows = kvp__malloc(calc(c), kv->max_attention_window_count * sizeof(uint64_t));
        if (!c->user_windows) {
            st = kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
            goto fail;
        }
        for (size_t i = 0; i < kv->max_attention_window_count; i++)
            if (kv->max_attention_window[i] == 0) {
                st = kvp__fail(err, KVP_INVALID_ARG, NULL, "max_attention_window",
                               "window %zu is 0; windows must be positive token counts", i);
                goto fail;
            }
        c->user_window_count = kvp_windows_normalize(
            kv->max_attention_window, kv->max_attention_window_count, c->d.max_seq_len,
            c->user_windows);
        if (c->user_window_count == 0)
            kvp__note(&c->notes, "max_attention_window is max_seq_len everywhere: no windows");
    }
    if (kv && kv->pool_ratio_count) {
        c->pool_ratio = kvp__malloc(calc(c), kv->pool_ratio_count * sizeof(double));
        if (!c->pool_ratio) {
            st = kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
            goto fail;
        }
        memcpy(c->pool_ratio, kv->pool_ratio, kv->pool_ratio_count * sizeof(double));
        c->pool_ratio_count = kv->pool_ratio_count;
    }
    c->kv_dtype = resolve_kv_dtype(target, c->d.kv_dtype);
    c->draft_kv_dtype = c->kv_dtype;
    st = resolve_spec(c, err);
    if (st) goto fail;
    c->last_stage = c->d.pp - 1;
    c->stage = c->d.pp_rank >= 0 ? (uint32_t)c->d.pp_rank : UINT32_MAX;

    fill_inputs(c, target, c->kv_dtype, &c->in);
    st = kvp_manager_select(&c->in, &c->manager, &c->notes, err);
    if (st) goto fail;
    c->is_v2 = kvp_manager_is_v2(c->manager);
    if ((st = kvp_manager_check_beam(c->manager, c->d.max_beam_width, err))) goto fail;
    if (c->two_model || c->separate_draft) {
        const kvp_model *dm = c->draft ? c->draft : target;
        fill_inputs(c, dm, c->draft_kv_dtype, &c->draft_in);
        st = kvp_manager_select(&c->draft_in, &c->draft_manager, &c->notes, err);
        if (st) goto fail;
        if ((st = kvp_manager_check_beam(c->draft_manager, c->d.max_beam_width, err))) goto fail;
    }
    if (kvp_model_get_info(target)->is_encoder_decoder && !c->kv.has_cross_kv_cache_fraction) {
        st = kvp__fail(err, KVP_CONFIG, kvp_model_name(target), "cross_kv_cache_fraction",
                       "encoder-decoder models require cross_kv_cache_fraction to size the "
                       "cross KV cache pool");
        goto fail;
    }
    if (!kvp_model_get_info(target)->is_encoder_decoder && c->kv.has_cross_kv_cache_fraction) {
        st = kvp__fail(err, KVP_CONFIG, kvp_model_name(target), "cross_kv_cache_fraction",
                       "cross_kv_cache_fraction is only for encoder-decoder models");
        goto fail;
    }
    c->skip_est = c->d.skip_estimation;
    *out = c;
    return KVP_OK;
fail:
    kvp_creator_free(c);
    return st;
}

/* ------------------------------------------------------------- pools */

static kvp_status add_pool(kvp_manager_plan *mp, kvp_cache_kind kind, uint64_t window,
                           uint64_t bpt_layer, uint64_t bps_layer, uint32_t layers, uint32_t tpb,
                           kvp_error *err) {
    kvp_plan_pool *p = NULL;
    for (uint32_t i = 0; i < mp->pool_count; i++) {
        kvp_plan_pool *q = &mp->pools[i];
        if (q->kind == kind && q->window_tokens == window &&
            q->bytes_per_token / q->layers == bpt_layer &&
            q->bytes_per_sequence / q->layers == bps_layer)
            p = q;
    }
    if (!p) {
        if (mp->pool_count == KVP_PLAN_MAX_POOLS)
            return kvp__fail(err, KVP_UNSUPPORTED, NULL, NULL,
                             "more than %d distinct pools in one manager", KVP_PLAN_MAX_POOLS);
        p = &mp->pools[mp->pool_count++];
        memset(p, 0, sizeof *p);
        p->kind = kind;
        p->window_tokens = window;
        p->tokens_per_block = kind == KVP_CACHE_RECURRENT ? 0 : tpb;
    }
    uint64_t a, b;
    if (!kvp__mul_u64(bpt_layer, layers, &a) || !kvp__mul_u64(bps_layer, layers, &b) ||
        !kvp__add_u64(p->bytes_per_token, a, &p->bytes_per_token) ||
        !kvp__add_u64(p->bytes_per_sequence, b, &p->bytes_per_sequence))
        return kvp__fail(err, KVP_OVERFLOW, NULL, NULL, "pool bytes overflow 64 bits");
    p->layers += layers;
    mp->layers += layers;
    return KVP_OK;
}

/* Window kind shown for a pool: the record's kind unless the manager stores a
 * different window than the layer computes with. */
static kvp_cache_kind shown_kind(kvp_cache_kind k, uint64_t eff_window) {
    if (k == KVP_CACHE_MLA || k == KVP_CACHE_RECURRENT || k == KVP_CACHE_CROSS) return k;
    if (eff_window == 0) return KVP_CACHE_FULL;
    return k == KVP_CACHE_CHUNKED ? KVP_CACHE_CHUNKED : KVP_CACHE_SLIDING;
}

static kvp_cost_settings cost_settings(const kvp_creator *c, const kvp_model *m, kvp_dtype dt,
                                       uint32_t tp, bool whole_model) {
    kvp_cost_settings cs = kvp_cost_settings_default();
    /* Heads are not sharded under attention DP (the estimator's t = 1). */
    cs.tp = c->d.attention_dp ? 1 : tp;
    cs.pp = whole_model ? 1 : c->d.pp;
    cs.pp_rank = whole_model ? 0 : (c->stage == UINT32_MAX ? -1 : (int32_t)c->stage);
    if (!whole_model && c->stage == UINT32_MAX && (c->spec_folded || c->separate_draft) &&
        !kvp_spec_is_external_drafter(c->d.spec_mode))
        cs.pp_rank = (int32_t)c->last_stage; /* draft layers live on the last stage */
    (void)m;
    cs.kv_dtype = dt;
    cs.tokens_per_block = c->kv.tokens_per_block;
    cs.beam_width = 1;
    /* TensorRT-LLM sizes Mamba state from mamba_ssm_cache_dtype only; the checkpoint's
     * mamba_ssm_dtype (Qwen3.5's float32) is not used (ENGINES.md 4.4). */
    cs.ssm_cache_dtype_only = true;
    /* Its KV cache manager keeps ceil(kv_heads / tp) heads per rank (ENGINES.md 0.3). */
    cs.kv_heads_round_up = true;
    cs.ssm_dtype = c->kv.mamba_ssm_cache_dtype; /* KvCacheConfig's, when given */
    return cs;
}

/* _derive_v2_layer_type_attention_windows for a manager over model m (the target,
 * or a two-model draft: _per_manager_cache_cost derives for it too, is_draft False). */
static size_t derived_v2_windows(kvp_creator *c, const kvp_model *m,
                                 const kvp_manager_inputs *in, kvp_manager_kind kind,
                                 bool estimating, uint64_t *out, size_t cap) {
    if (c->user_window_count > 0 || c->kv.max_attention_window_count > 0) return 0;
    if (!kvp_manager_is_v2(kind)) return 0;
    /* Estimation keeps full-context storage unless page layouts differ (Gemma4). */
    if (estimating && !in->is_gemma4_hybrid) return 0;
    size_t n = kvp_windows_from_layer_types(m, c->d.max_seq_len, out, cap);
    if (n == 0) return 0;
    if (in->is_hybrid_linear) return 0;
    size_t groups = kvp_windows_distinct(out, n);
    if (!c->pool_ratio_suspended && c->pool_ratio_count > 0 && c->pool_ratio_count != groups) {
        kvp__note(&c->notes,
                  "pool_ratio has %zu entries, but the per-layer attention windows derived from "
                  "layer_types form %zu layer groups; keeping the single-window default. Give "
                  "one pool_ratio entry per layer group, or set max_attention_window",
                  c->pool_ratio_count, groups);
        return 0;
    }
    return n;
}

/* Per-layer cost of one attention layer of m (draft layers of MTP / EAGLE3). */
static kvp_status first_attention_layer(const kvp_model *m, const kvp_cost_settings *cs,
                                        bool last, kvp_layer_cost *out, kvp_error *err) {
    size_t n = kvp_model_cache_count(m);
    bool found = false;
    for (size_t k = 0; k < n; k++) {
        size_t i = last ? n - 1 - k : k;
        const kvp_layer_cache *rec = kvp_model_cache(m, i);
        if (rec->kind != KVP_CACHE_FULL && rec->kind != KVP_CACHE_SLIDING &&
            rec->kind != KVP_CACHE_CHUNKED && rec->kind != KVP_CACHE_MLA)
            continue;
        kvp_status st = kvp__cost_layer(m, cs, i, out, err);
        if (st) return st;
        found = true;
        break;
    }
    if (!found)
        return kvp__fail(err, KVP_CONFIG, kvp_model_name(m), NULL,
                         "the model has no attention layer to cost draft layers with");
    return KVP_OK;
}

/* Blocks a V2 window pool keeps per sequence slot: ceil(W / tpb), and one more for
 * the generation token under the 2026 rules (ADMISSION.md). */
static uint64_t window_blocks(const kvp_creator *c, uint64_t window_tokens) {
    uint64_t b = kvp__ceil_div_u64(window_tokens, c->kv.tokens_per_block);
    return c->d.trtllm_rules == KVP_TRTLLM_RULES_2025 ? b : b + 1u;
}

/* Sum the cost of the manager's pools into the seed's affine cost. */
static kvp_status manager_affine(const kvp_creator *c, kvp_manager_plan *mp, kvp_error *err) {
    kvp_affine_cost a = {0, 0};
    uint64_t tpb = c->kv.tokens_per_block;
    for (uint32_t i = 0; i < mp->pool_count; i++) {
        kvp_plan_pool *p = &mp->pools[i];
        uint64_t add_s = 0, add_i = 0;
        if (p->kind == KVP_CACHE_RECURRENT) {
            uint64_t slots;
            if (!kvp__mul_u64(c->d.max_batch_size, c->d.pp, &slots) ||
                !kvp__add_u64(slots, c->d.hybrid_dummy_slots, &slots) ||
                !kvp__mul_u64(slots, p->bytes_per_sequence, &add_i))
                return kvp__fail(err, KVP_OVERFLOW, NULL, "max_batch_size",
                                 "recurrent state for max_batch_size sequences overflows");
            p->in_intercept = true;
            p->page_bytes = p->bytes_per_sequence;
        } else if (p->window_tokens && kvp_manager_is_v2(mp->kind) && p->kind != KVP_CACHE_CROSS) {
            /* V2: a window pool holds ceil(W/tpb)*tpb tokens for every sequence slot, plus
             * (2026 rules) one block for the generation token. */
            uint64_t toks = window_blocks(c, p->window_tokens) * tpb;
            if (!kvp__mul_many_u64(&add_i, 3, toks, p->bytes_per_token, c->d.max_batch_size))
                return kvp__fail(err, KVP_OVERFLOW, NULL, "max_batch_size",
                                 "window blocks for max_batch_size sequences overflow");
            p->in_intercept = true;
            p->page_bytes = p->bytes_per_token * tpb;
        } else {
            add_s = p->bytes_per_token;
            p->page_bytes = p->bytes_per_token * tpb;
        }
        if (!kvp__add_u64(a.slope_bytes_per_token, add_s, &a.slope_bytes_per_token) ||
            !kvp__add_u64(a.intercept_bytes, add_i, &a.intercept_bytes))
            return kvp__fail(err, KVP_OVERFLOW, NULL, NULL, "manager cost overflows 64 bits");
    }
    mp->cost = a;
    return KVP_OK;
}

/* The pools model_pools keeps, costed: the stage's layer records (the stage
 * costed in *pp_rank) grouped by window, appended to mp. */
static kvp_status cost_pools(kvp_creator *c, const kvp_model *m, kvp_cost_settings cs,
                             const uint64_t *windows, size_t wn, uint32_t only_layers,
                             kvp_manager_plan *mp, uint32_t *pp_rank, kvp_error *err) {
    kvp_cost cost;
    kvp_status st = kvp_cost_compute(m, &cs, &cost, err);
    if (st) return st;
    cs.pp_rank = (int32_t)cost.pp_rank;
    *pp_rank = cost.pp_rank;
    uint32_t tpb = c->kv.tokens_per_block;
    if (only_layers) {
        /* A fixed count of target-shaped draft layers (MTP, multi-layer EAGLE3). */
        kvp_layer_cost lc;
        st = first_attention_layer(m, &cs, m == c->target, &lc, err);
        if (st) return st;
        /* Draft layer l keeps the draft manager's window l (in draft layer order). */
        for (uint32_t l = 0; l < only_layers; l++) {
            uint64_t eff = 0;
            if (wn > 0) {
                uint64_t w = windows[l % wn];
                eff = w >= c->d.max_seq_len ? 0 : w;
            }
            st = add_pool(mp, shown_kind(lc.kind, eff), eff, lc.bytes_per_token, 0, 1, tpb, err);
            if (st) return st;
        }
        return KVP_OK;
    }
    size_t n = kvp_model_cache_count(m);
    /* A record shaped like the last one costed costs the same (its bytes do
     * not depend on the layer index): the usual 32..126 identical layers are
     * costed once. */
    const kvp_layer_cache *last = NULL;
    kvp_layer_cost lc;
    for (size_t i = 0; i < n; i++) {
        const kvp_layer_cache *rec = kvp_model_cache(m, i);
        if (rec->layer < cost.layer_begin || rec->layer >= cost.layer_end) continue;
        if (rec->kind == KVP_CACHE_CROSS || rec->kind == KVP_CACHE_INDEXER) continue;
        if (!last || !kvp__layer_cache_same_shape(last, rec)) {
            st = kvp__cost_layer(m, &cs, i, &lc, err);
            if (st) return st;
            last = rec;
        }
        uint64_t eff = 0;
        if (rec->kind != KVP_CACHE_RECURRENT && wn > 0) {
            uint64_t w = windows[rec->layer % wn];
            eff = w >= c->d.max_seq_len ? 0 : w;
        }
        st = add_pool(mp, shown_kind(rec->kind, eff), eff, lc.bytes_per_token,
                      lc.bytes_per_sequence, 1, tpb, err);
        if (st) return st;
    }
    return KVP_OK;
}

/* The memo model_pools keeps pools in: the run's, else the creator's own
 * (allocated on first use; NULL when out of memory, which the caller reports). */
static kvp__pools_memo *pools_memo(kvp_creator *c) {
    if (c->pools_memo) return c->pools_memo;
    c->own_pools_memo = kvp__malloc(calc(c), sizeof *c->own_pools_memo);
    kvp__pools_memo_clear(c->own_pools_memo);
    return c->pools_memo = c->own_pools_memo;
}

void kvp__creator_use_pools_memo(kvp_creator *c, kvp__pools_memo *memo) {
    if (c && memo) c->pools_memo = memo;
}

/* Pools of a manager over model m: layer records on the planned stage,
 * grouped by the window the manager stores. windows (count wn) index layers.
 * The same inputs give the same pools: kept in the memo (pools_memo.h). */
static kvp_status model_pools(kvp_creator *c, const kvp_model *m, kvp_dtype dt, uint32_t tp,
                              bool whole_model, const uint64_t *windows, size_t wn,
                              uint32_t only_layers, kvp_manager_plan *mp, kvp_error *err) {
    kvp_cost_settings cs = cost_settings(c, m, dt, tp, whole_model);
    kvp__pools_memo *memo = NULL;
    if (mp->pool_count == 0 && mp->layers == 0 && !(memo = pools_memo(c)))
        return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory (the creator's pools)");
    kvp__pools_key key;
    if (memo && !kvp__pools_key_make(&key, m, &cs, whole_model, m == c->target, only_layers,
                                     windows, wn, c->d.max_seq_len))
        memo = NULL;
    const kvp__pools_value *hit = memo ? kvp__pools_memo_find(memo, &key) : NULL;
    uint32_t pp_rank;
    if (hit) {
        memcpy(mp->pools, hit->pools, hit->pool_count * sizeof mp->pools[0]);
        mp->pool_count = hit->pool_count;
        mp->layers = hit->layers;
        pp_rank = hit->pp_rank;
    } else {
        kvp_status st = cost_pools(c, m, cs, windows, wn, only_layers, mp, &pp_rank, err);
        if (st) return st;
        if (memo) {
            kvp__pools_value v;
            v.pp_rank = pp_rank;
            v.pool_count = mp->pool_count;
            v.layers = mp->layers;
            memcpy(v.pools, mp->pools, mp->pool_count * sizeof v.pools[0]);
            kvp__pools_memo_put(memo, &key, &v);
        }
    }
    if (!whole_model) c->stage = pp_rank;
    return KVP_OK;
}

/* Windows of the separate draft manager (_derive_draft_max_attention_window). */
static size_t draft_windows(kvp_creator *c, const kvp_model *dm, uint64_t *out, size_t cap) {
    uint32_t n = c->num_draft_layers;
    /* _get_effective_draft_config: the draft config, else (MTP) the target's. */
    if (kvp_draft_defines_attention_layout(dm)) {
        if (n > cap) return 0;
        for (uint32_t l = 0; l < n; l++) {
            uint64_t w = 0;
            size_t cnt = kvp_model_cache_count(dm);
            for (size_t i = 0; i < cnt; i++) {
                const kvp_layer_cache *rec = kvp_model_cache(dm, i);
                if (rec->layer == l && rec->kind == KVP_CACHE_SLIDING) w = rec->window_tokens;
            }
            out[l] = w ? w : c->d.max_seq_len;
        }
        return kvp_windows_normalize(out, n, c->d.max_seq_len, out);
    }
    if (!kvp_windows_use_vswa(c->user_windows, c->user_window_count)) {
        if (c->user_window_count == 0 || c->user_window_count > cap) return 0;
        memcpy(out, c->user_windows, c->user_window_count * sizeof *out);
        return c->user_window_count;
    }
    return 0;
}

static kvp_status target_plan(kvp_creator *c, bool estimating, kvp_manager_plan *mp,
                              kvp_error *err) {
    memset(mp, 0, sizeof *mp);
    mp->present = true;
    mp->role = KVP_ROLE_TARGET;
    mp->kind = c->manager;
    mp->kv_dtype = c->kv_dtype;
    mp->max_seq_len = c->d.max_seq_len;
    uint32_t layers = kvp_model_get_info(c->target)->num_layers;
    uint64_t *w = kvp__malloc(calc(c), (layers + 1u) * sizeof *w);
    if (!w) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
    size_t wn = 0;
    const uint64_t *win = NULL;
    if (c->user_window_count > 0) {
        win = c->user_windows;
        wn = c->user_window_count;
    } else {
        wn = derived_v2_windows(c, c->target, &c->in, c->manager, estimating, w, layers + 1u);
        win = w;
    }
    mp->vswa = kvp_windows_use_vswa(win, wn);
    kvp_status st = model_pools(c, c->target, c->kv_dtype, c->d.tp, false, win, wn, 0, mp, err);
    kvp__free(calc(c), w);
    if (st) return st;
    /* One-model draft layers sharing this manager sit after the target's, on the
     * last stage, with full context (_create_kv_cache_manager). */
    if (c->spec_folded && c->stage == c->last_stage) {
        const kvp_model *dm = c->draft ? c->draft : c->target;
        kvp_cost_settings cs = cost_settings(c, dm, c->kv_dtype, c->d.tp, true);
        kvp_layer_cost lc;
        st = first_attention_layer(dm, &cs, dm == c->target, &lc, err);
        if (st) return st;
        st = add_pool(mp, shown_kind(lc.kind, 0), 0, lc.bytes_per_token, 0,
                      c->num_draft_layers, c->kv.tokens_per_block, err);
        if (st) return st;
    }
    return manager_affine(c, mp, err);
}

/* 2026 rules (ADMISSION.md): a DFLASH draft on the V2 manager is charged its context
 * tokens and its generation slots (tokens_per_gen_step per sequence slot), both
 * normalised by max_util_for_resume (the manager admits up to that utilisation). */
static kvp_status dflash_v2_cost(const kvp_creator *c, kvp_affine_cost *cost, kvp_error *err) {
    uint64_t gen = kvp_spec_tokens_per_gen_step(c->d.spec_mode, c->d.max_draft_len), add;
    if (!kvp__mul_many_u64(&add, 3, gen, c->d.max_batch_size, cost->slope_bytes_per_token) ||
        !kvp__add_u64(cost->intercept_bytes, add, &cost->intercept_bytes))
        return kvp__fail(err, KVP_OVERFLOW, NULL, "max_batch_size",
                         "DFLASH generation slots overflow 64 bits");
    double u = c->d.max_util_for_resume;
    if (u < 1.0) {
        double s = (double)cost->slope_bytes_per_token / u;
        double i = (double)cost->intercept_bytes / u;
        if (!(s < 1.8e19 && i < 1.8e19))
            return kvp__fail(err, KVP_OVERFLOW, NULL, "max_util_for_resume",
                             "DFLASH draft cost / max_util_for_resume overflows 64 bits");
        uint64_t si = kvp__double_to_u64(s), ii = kvp__double_to_u64(i);
        cost->slope_bytes_per_token = (double)si < s ? si + 1 : si;
        cost->intercept_bytes = (double)ii < i ? ii + 1 : ii;
    }
    return KVP_OK;
}

static kvp_status draft_plan(kvp_creator *c, bool estimating, kvp_manager_plan *mp,
                             kvp_error *err) {
    memset(mp, 0, sizeof *mp);
    if (!(c->two_model || c->separate_draft)) return KVP_OK;
    bool external = kvp_spec_is_external_drafter(c->d.spec_mode);
    /* EAGLE3/MTP draft layers live on the last pipeline stage only. */
    if (c->separate_draft && !external && c->stage != c->last_stage) return KVP_OK;
    mp->present = true;
    mp->role = KVP_ROLE_DRAFT;
    mp->kind = c->draft_manager;
    mp->kv_dtype = c->draft_kv_dtype;
    mp->max_seq_len = c->d.max_seq_len;
    const kvp_model *dm = c->draft ? c->draft : c->target;
    /* Helix: the drafter is dense over the repurposed CP ranks (tp * cp). */
    uint32_t tp = c->d.helix_cp ? c->d.tp * c->d.cp : c->d.tp;
    uint32_t cap = kvp_model_get_info(dm)->num_layers + c->num_draft_layers + 1u;
    uint64_t *w = kvp__malloc(calc(c), cap * sizeof *w);
    if (!w) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
    size_t wn = 0;
    kvp_status st;
    uint32_t saved_stage = c->stage;
    if (c->two_model) {
        if (c->user_window_count > 0) {
            memcpy(w, c->user_windows, c->user_window_count * sizeof *w);
            wn = c->user_window_count;
        } else {
            wn = derived_v2_windows(c, dm, &c->draft_in, c->draft_manager, estimating, w, cap);
        }
        st = model_pools(c, dm, c->draft_kv_dtype, tp, false, w, wn, 0, mp, err);
    } else {
        /* _get_one_model_draft_kv_cache_config: the estimation cache is built without
         * windows (VSWA there would size every window pool from the unsplit budget). */
        wn = estimating ? 0 : draft_windows(c, dm, w, cap);
        bool whole = !external;
        uint32_t only = 0;
        uint32_t dm_layers = kvp__attention_layers(dm);
        if (!c->draft || dm_layers != c->num_draft_layers) only = c->num_draft_layers;
        st = model_pools(c, dm, c->draft_kv_dtype, tp, whole, w, wn, only, mp, err);
    }
    c->stage = saved_stage;
    kvp__free(calc(c), w);
    if (st) return st;
    mp->vswa = kvp_windows_use_vswa(w, 0) || mp->pool_count > 1;
    st = manager_affine(c, mp, err);
    if (st) return st;
    if (c->d.spec_mode == KVP_SPEC_DFLASH && kvp_manager_is_v2(mp->kind) &&
        c->d.trtllm_rules == KVP_TRTLLM_RULES_2026) {
        st = dflash_v2_cost(c, &mp->cost, err);
        if (st) return st;
    }
    if (c->d.helix_cp) {
        /* Per rank-local target token: the target stores every cp-th page per rank. */
        if (!kvp__mul_u64(mp->cost.slope_bytes_per_token, c->d.cp,
                          &mp->cost.slope_bytes_per_token))
            return kvp__fail(err, KVP_OVERFLOW, NULL, "cp", "draft cost overflows 64 bits");
    }
    return KVP_OK;
}

static kvp_status cross_plan(kvp_creator *c, kvp_manager_plan *mp, kvp_error *err) {
    memset(mp, 0, sizeof *mp);
    if (!kvp_model_get_info(c->target)->is_encoder_decoder) return KVP_OK;
    kvp_cross_geometry g;
    kvp_status st = kvp_cross_geometry_from_model(c->target, c->d.max_seq_len, c->d.max_input_len,
                                                  &g, err);
    if (st) return st;
    uint64_t bpt;
    st = kvp_cross_bytes_per_token(&g, c->d.attention_dp ? 1 : c->d.tp, c->kv_dtype, &bpt, err);
    if (st) return st;
    mp->present = true;
    mp->role = KVP_ROLE_CROSS;
    mp->kind = c->manager; /* the cross manager mirrors the self manager */
    mp->kv_dtype = c->kv_dtype;
    mp->max_seq_len = g.max_seq_len;
    st = add_pool(mp, KVP_CACHE_CROSS, g.max_seq_len, bpt / g.num_layers, 0, g.num_layers,
                  c->kv.tokens_per_block, err);
    if (st) return st;
    return manager_affine(c, mp, err);
}

/* _get_kv_size_per_token: target (+ cross) + draft. */
static kvp_status total_cost(kvp_creator *c, bool estimating, kvp_affine_cost *out,
                             kvp_error *err) {
    kvp_manager_plan mp;
    kvp_status st = target_plan(c, estimating, &mp, err);
    if (st) return st;
    kvp_affine_cost total = mp.cost;
    st = cross_plan(c, &mp, err);
    if (st) return st;
    if (mp.present && (st = kvp_affine_add(total, mp.cost, &total, err))) return st;
    st = draft_plan(c, estimating, &mp, err);
    if (st) return st;
    if (mp.present && (st = kvp_affine_add(total, mp.cost, &total, err))) return st;
    *out = total;
    return KVP_OK;
}

/* ---------------------------------------------------------- estimation */

kvp_status kvp_creator_prepare_estimation(kvp_creator *c, uint64_t free_bytes,
                                          kvp_estimation_plan *out, kvp_error *err) {
    memset(out, 0, sizeof *out);
    if (c->skip_est) {
        out->skip_estimation = true;
        return KVP_OK;
    }
    bool estimating = true;
    const kvp_model_info *info = kvp_model_get_info(c->target);
    if (c->d.cp > 1) {
        estimating = false;
        kvp__note(&c->notes, "KV cache size estimation is not supported with context "
                             "parallelism; no profiling pass");
        if (c->is_v2 && c->d.helix_cp) c->skip_est = true;
    }
    if (strcmp(c->d.attn_backend, "VANILLA") == 0) {
        estimating = false;
        kvp__note(&c->notes, "KV cache size estimation is not supported for the VANILLA "
                             "attention backend; no profiling pass");
    }
    if (info->is_encoder_decoder) {
        /* Dummies are text-only; the cross pool needs an encoder length. */
        c->skip_est = true;
        estimating = false;
        kvp__note(&c->notes, "encoder-decoder model: no profiling pass; the budget comes from "
                             "memory in use after loading (activations are not subtracted)");
    }
    out->skip_estimation = c->skip_est;
    out->estimating = estimating;
    if (!estimating) return KVP_OK;

    kvp_estimation_inputs in;
    memset(&in, 0, sizeof in);
    in.net_max_seq_len = c->d.max_seq_len;
    in.max_num_tokens = c->d.max_num_tokens;
    in.tokens_per_block = c->kv.tokens_per_block;
    in.max_beam_width = c->d.max_beam_width;
    in.has_spec = c->d.spec_mode != KVP_SPEC_NONE;
    in.tokens_per_gen_step = kvp_spec_tokens_per_gen_step(c->d.spec_mode, c->d.max_draft_len);
    in.extra_kv_tokens = kvp_spec_extra_kv_tokens(c->d.spec_mode, c->d.max_draft_len);
    in.disable_overlap_scheduler = c->d.disable_overlap_scheduler;
    in.attention_dp = c->d.attention_dp;
    in.tp = c->d.tp;
    in.engine_batch_size = c->d.max_batch_size;
    in.max_cuda_graph_batch_size = c->d.max_cuda_graph_batch_size;
    in.engine_max_seq_len = c->d.max_seq_len;
    c->mla_profile_len = kvp_mla_chunked_profile_length(
        info->is_mla, c->d.attn_backend, c->d.sparse_algorithm, c->d.enable_chunked_prefill,
        c->d.chunk_size, c->d.chunked_prefill_buffer_batch_size, c->d.sm_version,
        c->d.max_num_tokens, in.net_max_seq_len > 1 ? in.net_max_seq_len - 1 : 1);
    in.mla_chunked_profile_length = c->mla_profile_len;
    in.is_v2 = c->is_v2;
    in.num_pool_groups = 1;
    if (c->is_v2) {
        kvp_status gst = kvp__estimation_pool_groups(c->target, c->d.max_seq_len,
                                                     c->user_windows, c->user_window_count,
                                                     calc(c), &in.num_pool_groups, err);
        if (gst) return gst;
    }
    in.free_bytes = free_bytes;
    in.free_gpu_memory_fraction = c->kv.free_gpu_memory_fraction;
    /* Estimation overrides pool_ratio with None until configure. */
    c->pool_ratio_suspended = true;
    kvp_status st = total_cost(c, true, &in.kv_cost, err);
    if (st) return st;
    st = kvp_estimation_token_count(&in, &out->tokens, err);
    if (st) return st;
    uint64_t mt = out->tokens.max_tokens;
    if (c->kv.has_max_tokens && c->kv.max_tokens < mt) mt = c->kv.max_tokens;
    out->max_tokens = mt;
    c->has_max_tokens = true;
    c->max_tokens = mt;
    if (c->is_v2) {
        uint64_t b = kvp__double_to_u64(c->kv.free_gpu_memory_fraction * (double)free_bytes);
        if (c->kv.max_gpu_total_bytes > 0 && c->kv.max_gpu_total_bytes < b)
            b = c->kv.max_gpu_total_bytes;
        out->max_gpu_total_bytes = b;
        c->max_gpu_total_bytes = b;
    }
    return KVP_OK;
}

/* ------------------------------------------------------------ capacity */

static kvp_status configure_tail(kvp_creator *c, uint64_t budget, bool profiled,
                                 kvp_capacity *out, kvp_error *err) {
    out->budget_bytes = budget;
    c->pool_ratio_suspended = false;
    kvp_affine_cost total;
    kvp_status st = total_cost(c, false, &total, err);
    if (st) return st;

    /* Attention workspace the profile under-measures (fp8 context MLA). */
    bool profiled_mla_chunks = profiled && !c->skip_est && c->mla_profile_len > 0;
    uint64_t w = profiled_mla_chunks ? 0 : c->d.attention_workspace_bytes_per_token;
    if (w > 0) {
        kvp_mla_workspace_policy p;
        memset(&p, 0, sizeof p);
        p.enable_block_reuse = c->kv.enable_block_reuse;
        p.enable_chunked_prefill = c->d.enable_chunked_prefill;
        p.workspace_is_chunked_prefill_bounded = !c->d.workspace_not_chunked_prefill_bounded;
        p.chunked_workspace_profiled = profiled_mla_chunks;
        p.require_chunked_workspace_profile =
            c->d.enable_chunked_prefill && c->d.sm_version >= 100;
        p.max_batch_size = c->d.max_batch_size;
        p.max_num_tokens = c->d.max_num_tokens;
        p.max_seq_len = c->d.max_seq_len;
        p.has_kv_len_cap_override = c->kv.has_fp8_context_mla_kv_len_cap;
        p.kv_len_cap_override = c->kv.fp8_context_mla_kv_len_cap;
        uint64_t cap;
        kvp_status cst;
        if (kvp_mla_workspace_kv_len_cap(&p, &cap, &cst)) {
            uint64_t r = kvp_mla_workspace_reserve(budget, total.slope_bytes_per_token, w, cap,
                                                   &out->mla_kv_len_cap_tokens,
                                                   &out->has_mla_kv_len_cap);
            if (r > 0) {
                out->mla_workspace_reserve_bytes = r > budget ? budget : r;
                budget -= out->mla_workspace_reserve_bytes;
            }
        } else if (cst) {
            return kvp__fail(err, cst, NULL, "max_seq_len",
                             "max_batch_size * max_seq_len overflows 64 bits");
        }
    }
    out->after_max_tokens_bytes = budget;
    if (c->is_v2) {
        c->has_max_tokens = c->kv.has_max_tokens;
        c->max_tokens = c->kv.max_tokens;
    } else {
        if (c->kv.has_max_tokens) {
            if (kvp_windows_use_vswa(c->user_windows, c->user_window_count))
                kvp__note(&c->notes, "max_tokens should not be set with variable sliding "
                                     "windows: it is ambiguous there");
            uint64_t cap_bytes;
            st = kvp_affine_bytes_for_tokens(total, c->kv.max_tokens, &cap_bytes, err);
            if (st) return st;
            if (cap_bytes < budget) budget = cap_bytes;
            out->after_max_tokens_bytes = budget;
        }
        c->has_max_tokens = true;
        c->max_tokens = kvp_affine_tokens_for_budget(total, budget);
    }
    if (c->kv.max_gpu_total_bytes > 0 && c->kv.max_gpu_total_bytes < budget)
        budget = c->kv.max_gpu_total_bytes;
    out->kv_max_memory_bytes = budget;
    out->max_tokens = c->has_max_tokens ? c->max_tokens : 0;
    c->max_gpu_total_bytes = budget;
    c->configured = true;
    return KVP_OK;
}

kvp_status kvp_creator_configure_helix(kvp_creator *c, uint64_t free_bytes, kvp_capacity *out,
                                       kvp_error *err) {
    memset(out, 0, sizeof *out);
    out->helix = true;
    if (!c->is_v2)
        return kvp__fail(err, KVP_UNSUPPORTED, NULL, "use_kv_cache_manager_v2",
                         "helix context parallelism without a profiling pass requires the V2 KV "
                         "cache manager (use_kv_cache_manager_v2=True)");
    c->pool_ratio_suspended = false;
    c->configured = true;
    c->has_max_tokens = c->kv.has_max_tokens;
    c->max_tokens = c->kv.max_tokens;
    if (c->kv.max_gpu_total_bytes > 0 || c->kv.has_max_tokens) {
        kvp__note(&c->notes, "helix CP: no capacity profiling; using the explicitly configured "
                             "quota");
        c->max_gpu_total_bytes = c->kv.max_gpu_total_bytes;
        out->kv_max_memory_bytes = c->max_gpu_total_bytes;
        out->max_tokens = c->max_tokens;
        return KVP_OK;
    }
    uint64_t b = kvp__double_to_u64((double)free_bytes * c->kv.free_gpu_memory_fraction);
    if (b == 0)
        return kvp__fail(err, KVP_INFEASIBLE, NULL, "free_gpu_memory_fraction",
                         "helix CP: fraction-based KV sizing found no usable free memory; set "
                         "max_tokens or max_gpu_total_bytes");
    kvp__note(&c->notes, "helix CP: capacity profiling is unsupported; the KV cache is "
                         "fraction %g of free memory (a rank-local byte cap)",
              c->kv.free_gpu_memory_fraction);
    c->max_gpu_total_bytes = b;
    out->budget_bytes = b;
    out->kv_max_memory_bytes = b;
    return KVP_OK;
}

kvp_status kvp_creator_configure(kvp_creator *c, const kvp_measured_memory *m, kvp_capacity *out,
                                 kvp_error *err) {
    memset(out, 0, sizeof *out);
    if (c->d.helix_cp) {
        uint64_t free_bytes = m->total_bytes > m->used_bytes ? m->total_bytes - m->used_bytes : 0;
        return kvp_creator_configure_helix(c, free_bytes, out, err);
    }
    if (c->d.cp > 1)
        return kvp__fail(err, KVP_UNSUPPORTED, NULL, "cp",
                         "capacity configuration has no sizing path for non-helix context "
                         "parallelism");
    kvp_status st;
    uint64_t peak, allocated = 0;
    bool profiled = m->profiled && !c->skip_est;
    if (profiled) {
        if (!kvp__add_u64(m->allocator_peak_bytes, m->non_allocator_bytes, &peak))
            return kvp__fail(err, KVP_OVERFLOW, NULL, "peak", "peak memory overflows 64 bits");
        allocated = m->allocated_during_estimation_bytes;
    } else {
        peak = m->used_bytes;
    }
    /* The encoder terms from the measurement, else the deployment's prediction. */
    bool mm_measured = m->mm_output_budget_bytes || m->mm_profiled_output_bytes ||
                       m->mm_encoder_cache_active;
    const kvp_deploy_settings *dd = &c->d;
    st = kvp_mm_encoder_reserve_bytes(
        mm_measured ? m->mm_output_budget_bytes : dd->mm_output_budget_bytes,
        profiled ? (mm_measured ? m->mm_profiled_output_bytes : dd->mm_profiled_output_bytes) : 0,
        mm_measured ? m->mm_encoder_cache_active : dd->mm_encoder_cache_active,
        mm_measured ? m->mm_encoder_cache_max_bytes : dd->mm_encoder_cache_max_bytes,
        &out->mm_reserve_bytes, err);
    if (st) return st;
    if (!kvp__add_u64(peak, out->mm_reserve_bytes, &peak))
        return kvp__fail(err, KVP_OVERFLOW, NULL, "peak", "peak memory overflows 64 bits");
    out->peak_bytes = peak;
    uint64_t budget;
    st = kvp_budget_bytes(m->total_bytes, peak, allocated, c->kv.free_gpu_memory_fraction, &budget,
                          err);
    if (st) return st;
    return configure_tail(c, budget, profiled, out, err);
}

kvp_status kvp_creator_configure_budget(kvp_creator *c, uint64_t budget_bytes, kvp_capacity *out,
                                        kvp_error *err) {
    memset(out, 0, sizeof *out);
    return configure_tail(c, budget_bytes, false, out, err);
}

/* --------------------------------------------------------------- build */

typedef struct mgr_cfg {
    double fraction;
    uint64_t gpu, host, disk;
} mgr_cfg;

/* _needs_gpu_kv_cache_budget_split. */
static bool needs_gpu_split(kvp_creator *c) {
    if (c->is_v2) return c->separate_draft;
    if (kvp_windows_use_vswa(c->user_windows, c->user_window_count)) return true;
    if (!c->separate_draft) return false;
    const kvp_model *dm = c->draft ? c->draft : c->target;
    size_t cap = kvp_model_get_info(dm)->num_layers + c->num_draft_layers + 1u;
    uint64_t *w = kvp__malloc(calc(c), cap * sizeof *w);
    if (!w) return false;
    size_t n = draft_windows(c, dm, w, cap);
    bool r = kvp_windows_use_vswa(w, n);
    kvp__free(calc(c), w);
    return r;
}

/* Size one manager's pools from its quota. */
static kvp_status size_manager(kvp_creator *c, kvp_manager_plan *mp, kvp_error *err) {
    uint64_t tpb = c->kv.tokens_per_block;
    uint64_t quota = mp->max_gpu_total_bytes;
    uint64_t slots = c->d.max_batch_size * c->d.pp + c->d.hybrid_dummy_slots;
    mp->bytes = 0;
    mp->max_tokens_out = 0;
    bool v1_vswa = mp->vswa && !kvp_manager_is_v2(mp->kind) && !kvp_manager_is_hybrid(mp->kind);
    if (v1_vswa) {
        /* calculate_max_num_blocks_for_vswa: equal shares per distinct window. */
        uint64_t wins[KVP_PLAN_MAX_POOLS];
        size_t nw = 0;
        for (uint32_t i = 0; i < mp->pool_count; i++) {
            bool seen = false;
            for (size_t j = 0; j < nw; j++) seen = seen || wins[j] == mp->pools[i].window_tokens;
            if (!seen) wins[nw++] = mp->pools[i].window_tokens;
        }
        uint64_t share = quota / (nw ? nw : 1);
        for (size_t j = 0; j < nw; j++) {
            uint64_t bpt = 0;
            for (uint32_t i = 0; i < mp->pool_count; i++)
                if (mp->pools[i].window_tokens == wins[j]) bpt += mp->pools[i].bytes_per_token;
            uint64_t blocks = bpt ? share / bpt / tpb : 0;
            for (uint32_t i = 0; i < mp->pool_count; i++) {
                kvp_plan_pool *p = &mp->pools[i];
                if (p->window_tokens != wins[j]) continue;
                p->blocks = blocks;
                p->tokens = blocks * tpb;
                p->bytes = blocks * p->page_bytes;
                mp->bytes += p->bytes;
                if (p->window_tokens == 0 && p->tokens > mp->max_tokens_out)
                    mp->max_tokens_out = p->tokens;
            }
        }
        return KVP_OK;
    }
    /* A manager handed only a token quota (helix with max_tokens alone: the seed passes
     * the explicit quota through) holds max_tokens; a byte quota buys what it buys, capped
     * by max_tokens. */
    uint64_t tokens = quota ? kvp_affine_tokens_for_budget(mp->cost, quota) : mp->max_tokens;
    if (mp->max_tokens && mp->max_tokens < tokens) tokens = mp->max_tokens;
    uint64_t blocks = tokens / tpb;
    for (uint32_t i = 0; i < mp->pool_count; i++) {
        kvp_plan_pool *p = &mp->pools[i];
        if (p->kind == KVP_CACHE_RECURRENT) {
            p->blocks = slots;
            p->tokens = 0;
            if (!kvp__mul_u64(slots, p->bytes_per_sequence, &p->bytes))
                return kvp__fail(err, KVP_OVERFLOW, NULL, NULL, "pool bytes overflow");
        } else if (p->in_intercept) {
            p->blocks = window_blocks(c, p->window_tokens) * c->d.max_batch_size;
            p->tokens = p->blocks * tpb;
            if (!kvp__mul_u64(p->blocks, p->page_bytes, &p->bytes))
                return kvp__fail(err, KVP_OVERFLOW, NULL, NULL, "pool bytes overflow");
        } else {
            p->blocks = blocks;
            p->tokens = blocks * tpb;
            if (!kvp__mul_u64(blocks, p->page_bytes, &p->bytes))
                return kvp__fail(err, KVP_OVERFLOW, NULL, NULL, "pool bytes overflow");
            if (p->tokens > mp->max_tokens_out) mp->max_tokens_out = p->tokens;
        }
        mp->bytes += p->bytes;
    }
    return KVP_OK;
}

kvp_status kvp_creator_build(kvp_creator *c, bool estimating, kvp_plan *out, kvp_error *err) {
    memset(out, 0, sizeof *out);
    out->estimating = estimating;
    if (!estimating && !c->configured)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL,
                         "configure the capacity (kvp_creator_configure) before building the "
                         "final managers");
    if (estimating && c->skip_est)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL,
                         "this deployment skips the estimation pass; build the final managers");
    kvp_status st;
    kvp_manager_plan *t = &out->managers[KVP_ROLE_TARGET];
    kvp_manager_plan *d = &out->managers[KVP_ROLE_DRAFT];
    kvp_manager_plan *x = &out->managers[KVP_ROLE_CROSS];
    if ((st = target_plan(c, estimating, t, err))) return st;
    if ((st = draft_plan(c, estimating, d, err))) return st;
    if ((st = cross_plan(c, x, err))) return st;

    mgr_cfg self = {c->kv.free_gpu_memory_fraction, c->max_gpu_total_bytes, c->kv.host_cache_size,
                    c->kv.disk_cache_size};
    mgr_cfg cross = self;
    if (estimating && !c->is_v2 && self.gpu == 0) {
        /* V1 estimation managers are sized by the temporary max_tokens. */
        kvp_affine_cost tc;
        if ((st = total_cost(c, true, &tc, err))) return st;
        if ((st = kvp_affine_bytes_for_tokens(tc, c->max_tokens, &self.gpu, err))) return st;
    }
    out->budget_bytes = self.gpu;
    if (x->present) {
        kvp_cross_split sp;
        st = kvp_split_budget_for_cross(c->kv.has_cross_kv_cache_fraction,
                                        c->kv.cross_kv_cache_fraction, self.fraction, self.gpu,
                                        self.host, &sp, err);
        if (st) return st;
        self.fraction = sp.self_fraction;
        cross.fraction = sp.cross_fraction;
        if (self.gpu) {
            self.gpu = sp.self_gpu_bytes;
            cross.gpu = sp.cross_gpu_bytes;
        }
        if (self.host) {
            self.host = sp.self_host_bytes;
            cross.host = sp.cross_host_bytes;
        }
        kvp__note(&c->notes, "encoder-decoder: cross pool gets %g of the free fraction and of "
                             "each byte budget",
                  c->kv.cross_kv_cache_fraction);
    }
    bool has_separate = !c->two_model && c->separate_draft && d->present;
    out->joint_kv_cache_reuse =
        has_separate && c->kv.enable_block_reuse &&
        kvp_joint_reuse_supported(c->manager, kvp_spec_draft_prompt_lookahead(c->d.spec_mode));
    if (estimating) {
        /* Throw-away probes cannot fill an offload tier reserved in full. */
        self.host = self.disk = cross.host = cross.disk = 0;
    }
    mgr_cfg draft = self;
    bool draft_cfg = false;
    if (d->present) {
        if (!estimating && needs_gpu_split(c)) {
            uint64_t a, b;
            bool split;
            st = kvp_split_budget_for_draft(KVP_BUDGET_MAX_GPU_TOTAL_BYTES, self.gpu, true,
                                            t->cost, d->cost, &a, &b, &split, &c->notes, err);
            if (st) return st;
            if (split) {
                self.gpu = a;
                draft.gpu = b;
                draft_cfg = true;
            }
        }
        uint64_t *tiers[2][2] = {{&self.host, &draft.host}, {&self.disk, &draft.disk}};
        for (int k = 0; k < 2; k++) {
            uint64_t a, b;
            bool split;
            st = kvp_split_budget_for_draft(k ? KVP_BUDGET_DISK_CACHE_SIZE
                                              : KVP_BUDGET_HOST_CACHE_SIZE,
                                            *tiers[k][0], true, t->cost, d->cost, &a, &b, &split,
                                            &c->notes, err);
            if (st) return st;
            if (split) {
                *tiers[k][0] = a;
                *tiers[k][1] = b;
                draft_cfg = true;
            }
        }
        if (!estimating && c->d.has_kv_connector && c->two_model)
            return kvp__fail(err, KVP_UNSUPPORTED, NULL, "kv_connector",
                             "a KV connector is not supported with a two-model draft");
        if (c->two_model && c->is_v2 && draft_cfg && draft.gpu != self.gpu)
            return kvp__fail(err, KVP_UNSUPPORTED, NULL, "max_gpu_total_bytes",
                             "the V2 manager does not support two-model speculative decoding "
                             "with separate draft GPU budgets");
        if (c->two_model && c->is_v2 && !estimating && self.gpu)
            kvp__note(&c->notes, "two-model draft on the V2 manager: as in the engine, the target "
                                 "and the draft manager each get the whole max_gpu_total_bytes "
                                 "(%llu B); together they can allocate up to twice that",
                      (unsigned long long)self.gpu);
    }
    if (!estimating) {
        if ((st = kvp_manager_check_connector(c->manager, c->d.has_kv_connector, err))) return st;
    }
    mgr_cfg *cfgs[KVP_ROLE_COUNT] = {&self, &draft, &cross};
    for (int r = 0; r < KVP_ROLE_COUNT; r++) {
        kvp_manager_plan *mp = &out->managers[r];
        if (!mp->present) continue;
        mp->free_gpu_memory_fraction = cfgs[r]->fraction;
        mp->max_gpu_total_bytes = cfgs[r]->gpu;
        mp->host_cache_size = cfgs[r]->host;
        mp->disk_cache_size = cfgs[r]->disk;
        mp->avg_seq_len = kvp_manager_avg_seq_len(
            estimating, kvp_manager_is_v2(mp->kind),
            c->pool_ratio_count > 0 && !c->pool_ratio_suspended, c->kv.avg_seq_len,
            c->d.max_seq_len, mp->max_seq_len);
        /* max_tokens is a logical cap shared by every manager (never split). */
        mp->max_tokens = c->has_max_tokens ? c->max_tokens : 0;
        if ((st = size_manager(c, mp, err))) return st;
        if (!kvp__add_u64(out->allocated_bytes, mp->bytes, &out->allocated_bytes))
            return kvp__fail(err, KVP_OVERFLOW, NULL, NULL, "plan bytes overflow");
    }
    return KVP_OK;
}

/* ------------------------------------------------------------ capacity */

kvp_status kvp__plan_binding_pool(const kvp_plan *plan, uint64_t seq_len, uint32_t beam_width,
                                 uint64_t *out_count, kvp_manager_role *out_role,
                                 uint32_t *out_pool, kvp_error *err) {
    uint64_t best = UINT64_MAX;
    kvp_manager_role best_role = KVP_ROLE_TARGET;
    uint32_t best_pool = UINT32_MAX;
    if (beam_width == 0) beam_width = 1;
    for (int r = 0; r < KVP_ROLE_COUNT; r++) {
        const kvp_manager_plan *mp = &plan->managers[r];
        if (!mp->present) continue;
        /* _create_cross_kv_cache_manager builds the cross pool with max_beam_width=1: the
         * encoder output is shared by every beam of a request. */
        uint64_t beams = r == KVP_ROLE_CROSS ? 1u : beam_width;
        for (uint32_t i = 0; i < mp->pool_count; i++) {
            const kvp_plan_pool *p = &mp->pools[i];
            if (p->in_intercept || p->tokens_per_block == 0) continue;
            uint64_t toks = seq_len;
            if (p->window_tokens && p->window_tokens < toks) toks = p->window_tokens;
            if (p->kind == KVP_CACHE_CROSS) toks = p->window_tokens;
            uint64_t per;
            if (!kvp__mul_u64(kvp__ceil_div_u64(toks, p->tokens_per_block), beams, &per))
                return kvp__fail(err, KVP_OVERFLOW, NULL, "seq_len", "sequence blocks overflow");
            if (per == 0) continue;
            uint64_t n = p->blocks / per;
            if (n < best) {
                best = n;
                best_role = (kvp_manager_role)r;
                best_pool = i;
            }
        }
    }
    *out_count = best; /* UINT64_MAX: no pool limits (the caller applies the slot cap) */
    if (out_role) *out_role = best_role;
    if (out_pool) *out_pool = best_pool;
    return KVP_OK;
}

kvp_status kvp_plan_max_sequences(const kvp_plan *plan, uint64_t seq_len, uint32_t beam_width,
                                  uint64_t *out_count, kvp_error *err) {
    return kvp__plan_binding_pool(plan, seq_len, beam_width, out_count, NULL, NULL, err);
}

uint64_t kvp_plan_longest_sequence(const kvp_plan *plan, uint32_t beam_width) {
    uint64_t best = UINT64_MAX;
    if (beam_width == 0) beam_width = 1;
    for (int r = 0; r < KVP_ROLE_COUNT; r++) {
        const kvp_manager_plan *mp = &plan->managers[r];
        if (!mp->present) continue;
        for (uint32_t i = 0; i < mp->pool_count; i++) {
            const kvp_plan_pool *p = &mp->pools[i];
            if (p->in_intercept || p->tokens_per_block == 0 || p->kind == KVP_CACHE_CROSS)
                continue;
            uint64_t toks = p->blocks / beam_width * p->tokens_per_block;
            /* A window pool that holds one whole window never limits the length. */
            if (p->window_tokens && toks >= p->window_tokens) continue;
            if (toks < best) best = toks;
        }
    }
    return best;
}

bool kvp_plan_holds_a_sequence(const kvp_plan *plan, uint32_t beam_width) {
    if (kvp_plan_longest_sequence(plan, beam_width) == 0) return false;
    const kvp_manager_plan *t = &plan->managers[KVP_ROLE_TARGET];
    if (!t->present) return false;
    /* Pools sized per token must hold a block; a plan of fixed costs only (every layer
     * windowed on V2: slope 0) is feasible when those costs fit the quota. */
    if (t->cost.slope_bytes_per_token > 0 && t->max_tokens_out == 0) return false;
    if (t->max_gpu_total_bytes > 0 && t->cost.intercept_bytes > t->max_gpu_total_bytes)
        return false;
    return true;
}

uint64_t kvp_plan_adopted_max_seq_len(const kvp_plan *plan, uint32_t beam_width,
                                      uint64_t max_seq_len) {
    uint64_t longest = kvp_plan_longest_sequence(plan, beam_width);
    return longest < max_seq_len ? longest : max_seq_len;
}

uint64_t kvp_max_num_sequences(uint64_t max_batch_size, uint32_t pp,
                               bool disable_overlap_scheduler, bool enable_overlap_headroom) {
    uint64_t micro_batches =
        pp > 1 ? pp : (enable_overlap_headroom && !disable_overlap_scheduler ? 2u : 1u);
    uint64_t n;
    return kvp__mul_u64(max_batch_size, micro_batches, &n) ? n : UINT64_MAX;
}
