/*
 * cost.c — per-layer cache specs to per-rank pools with an affine cost
 * (DESIGN.md "pool": slope bytes per token, intercept bytes per sequence slot).
 * The seed's creator multiplies everything by these figures, so each product
 * is overflow-checked here once.
 */
#include <string.h>

#include "kvplan/cost.h"
#include "util.h"
#include "cost_internal.h"
#include "model_internal.h"

kvp_cost_settings kvp_cost_settings_default(void) {
    kvp_cost_settings s;
    memset(&s, 0, sizeof s);
    s.tp = 1;
    s.pp = 1;
    s.pp_rank = -1;
    s.kv_dtype = KVP_DTYPE_AUTO;
    s.tokens_per_block = KVP_DEFAULT_TOKENS_PER_BLOCK;
    s.beam_width = 1;
    return s;
}

static kvp_cost_settings normalize(const kvp_cost_settings *in) {
    kvp_cost_settings s = in ? *in : kvp_cost_settings_default();
    if (s.tp == 0) s.tp = 1;
    if (s.pp == 0) s.pp = 1;
    if (s.tokens_per_block == 0) s.tokens_per_block = KVP_DEFAULT_TOKENS_PER_BLOCK;
    if (s.beam_width == 0) s.beam_width = 1;
    return s;
}

/* torch.tensor_split(range(L), P): the first L mod P stages take one extra layer. */
void kvp_pp_stage_layers(uint32_t num_layers, uint32_t pp, uint32_t stage, uint32_t *begin,
                         uint32_t *end) {
    if (pp == 0) pp = 1;
    uint32_t base = num_layers / pp, extra = num_layers % pp;
    uint32_t b = stage * base + (stage < extra ? stage : extra);
    uint32_t n = base + (stage < extra ? 1u : 0u);
    *begin = b;
    *end = b + n;
}

uint32_t kvp_pp_stage_of_layer(uint32_t num_layers, uint32_t pp, uint32_t layer) {
    if (pp == 0) pp = 1;
    /* The inverse of kvp_pp_stage_layers: the first `extra` stages hold base + 1 layers. */
    uint32_t base = num_layers / pp, extra = num_layers % pp;
    uint64_t front = (uint64_t)extra * (base + 1u);
    uint32_t stage;
    if (layer < front)
        stage = layer / (base + 1u);
    else
        stage = base ? extra + (uint32_t)((layer - front) / base) : pp - 1;
    return stage < pp ? stage : pp - 1;
}

static kvp_dtype resolve_kv_dtype(const kvp_model *model, kvp_dtype requested) {
    const kvp_model_info *info = kvp_model_get_info(model);
    if (requested != KVP_DTYPE_AUTO) return requested;
    if (info->kv_dtype_declared != KVP_DTYPE_AUTO) return info->kv_dtype_declared;
    return info->dtype == KVP_DTYPE_AUTO ? KVP_DTYPE_BF16 : info->dtype;
}

/* KV heads one rank keeps: heads split evenly, or one whole (replicated) head
 * per rank when there are fewer heads than ranks; under TensorRT-LLM's rule
 * (`round_up`) ceil(heads / tp), whatever tp is. */
static kvp_status heads_per_rank(const kvp_model *model, uint32_t heads, uint32_t tp,
                                 uint32_t layer, const char *what, bool round_up, uint32_t *out,
                                 kvp_error *err) {
    if (heads == 0)
        return kvp__fail(err, KVP_CONFIG, kvp_model_name(model), what,
                         "layer %u has 0 heads, expected at least 1", layer);
    if (round_up) {
        *out = (uint32_t)(((uint64_t)heads + tp - 1) / tp);
        return KVP_OK;
    }
    if (heads >= tp) {
        if (heads % tp != 0)
            return kvp__fail(err, KVP_CONFIG, kvp_model_name(model), what,
                             "layer %u: %u heads do not divide across tensor parallelism %u",
                             layer, heads, tp);
        *out = heads / tp;
    } else {
        if (tp % heads != 0)
            return kvp__fail(err, KVP_CONFIG, kvp_model_name(model), what,
                             "layer %u: %u heads cannot be replicated evenly over tensor "
                             "parallelism %u",
                             layer, heads, tp);
        *out = 1;
    }
    return KVP_OK;
}

kvp_status kvp_cost_check_tp(const kvp_model *model, uint32_t tp, kvp_error *err) {
    kvp_cost_settings s = kvp_cost_settings_default();
    s.tp = tp;
    return kvp__cost_check_settings(model, &s, err);
}

kvp_status kvp__cost_check_settings(const kvp_model *model, const kvp_cost_settings *s,
                                   kvp_error *err) {
    uint32_t tp = s->tp;
    if (tp <= 1) return KVP_OK;
    const kvp_model_info *info = kvp_model_get_info(model);
    /* Query heads are sharded, never replicated: every engine asserts
     * total_num_attention_heads % tp == 0 (Qwen2.5-7B's 28 heads at TP 8 fail). */
    if (info->num_attention_heads && info->num_attention_heads % tp != 0)
        return kvp__fail(err, KVP_CONFIG, kvp_model_name(model), "num_attention_heads",
                         "%u query heads do not divide by tensor parallelism %u (the engines "
                         "refuse this at start-up)",
                         info->num_attention_heads, tp);
    size_t n = kvp_model_cache_count(model);
    for (size_t i = 0; i < n; i++) {
        const kvp_layer_cache *c = kvp_model_cache(model, i);
        uint32_t h;
        kvp_status st = KVP_OK;
        if (c->kind == KVP_CACHE_RECURRENT && c->replicated) {
            continue; /* DeepSeek-V4 compressor state: whole on every rank */
        } else if (c->kind == KVP_CACHE_RECURRENT) {
            st = heads_per_rank(model, c->recurrent.heads, tp, c->layer, "recurrent heads", false,
                                &h, err);
            if (!st && c->recurrent.heads < tp)
                st = kvp__fail(err, KVP_CONFIG, kvp_model_name(model), "recurrent heads",
                               "layer %u: %u recurrent heads cannot be sharded over tensor "
                               "parallelism %u",
                               c->layer, c->recurrent.heads, tp);
        } else if (!c->replicated) {
            st = heads_per_rank(model, c->kv_heads, tp, c->layer, "num_key_value_heads",
                                s->kv_heads_round_up && c->kind != KVP_CACHE_CROSS, &h, err);
        }
        if (st) return st;
    }
    return KVP_OK;
}

static kvp_status overflow(const kvp_model *model, uint32_t layer, kvp_error *err) {
    return kvp__fail(err, KVP_OVERFLOW, kvp_model_name(model), NULL,
                     "layer %u: bytes per token overflow 64 bits", layer);
}

/* Bytes of one record on one rank: slope (per token) and intercept (per sequence). */
static kvp_status cost_record(const kvp_model *model, const kvp_layer_cache *c,
                              const kvp_cost_settings *s, kvp_dtype kv_dtype, kvp_layer_cost *out,
                              kvp_error *err) {
    memset(out, 0, sizeof *out);
    out->layer = c->layer;
    out->kind = c->kind;
    out->window_tokens = c->window_tokens;
    out->k_head_dim = c->k_head_dim;
    out->v_head_dim = c->v_head_dim;
    kvp_dtype model_dtype = kvp_model_get_info(model)->dtype;
    if (model_dtype == KVP_DTYPE_AUTO) model_dtype = KVP_DTYPE_BF16;

    if (c->kind == KVP_CACHE_RECURRENT) {
        const kvp_recurrent_geometry *r = &c->recurrent;
        uint32_t h = r->heads;
        kvp_status st = KVP_OK;
        if (!c->replicated)
            st = heads_per_rank(model, r->heads, s->tp, c->layer, "recurrent heads", false, &h,
                                err);
        if (st) return st;
        if (!c->replicated && r->heads < s->tp)
            return kvp__fail(err, KVP_CONFIG, kvp_model_name(model), "recurrent heads",
                             "layer %u: %u recurrent heads cannot be sharded over tensor "
                             "parallelism %u",
                             c->layer, r->heads, s->tp);
        uint32_t g = 0;
        if (r->groups && c->replicated) {
            g = r->groups;
        } else if (r->groups) {
            /* Groups that do not shard evenly are replicated, one per rank. */
            if (r->groups % s->tp == 0)
                g = r->groups / s->tp;
            else if (s->tp % r->groups == 0)
                g = 1;
            else
                return kvp__fail(err, KVP_CONFIG, kvp_model_name(model), "n_groups",
                                 "layer %u: %u groups neither divide nor replicate over tensor "
                                 "parallelism %u",
                                 c->layer, r->groups, s->tp);
        }
        uint64_t inner, grp, conv_elems, ssm_elems, conv_b, ssm_b, kernel_m1;
        kernel_m1 = r->conv_kernel ? r->conv_kernel - 1u : 0u;
        if (!kvp__mul_u64(h, r->head_dim, &inner) ||
            !kvp__mul_many_u64(&grp, 3, (uint64_t)2, (uint64_t)g, (uint64_t)r->group_dim) ||
            !kvp__add_u64(inner, grp, &conv_elems) ||
            !kvp__mul_u64(conv_elems, kernel_m1, &conv_elems) ||
            !kvp__mul_many_u64(&ssm_elems, 3, (uint64_t)h, (uint64_t)r->head_dim,
                               (uint64_t)r->state_dim))
            return overflow(model, c->layer, err);
        kvp_dtype cd = r->conv_dtype == KVP_DTYPE_AUTO ? model_dtype : r->conv_dtype;
        kvp_dtype sd = r->ssm_dtype == KVP_DTYPE_AUTO ? model_dtype : r->ssm_dtype;
        if (s->ssm_cache_dtype_only && r->ssm_dtype_is_checkpoint_hint) sd = model_dtype;
        /* A deployment's SSM dtype (TensorRT-LLM kv_cache_config.mamba_ssm_cache_dtype,
         * ENGINES.md 4.4) replaces the config's; a replicated state (DeepSeek-V4's
         * compressor, fp32 in every engine) keeps its own. */
        if (s->ssm_dtype != KVP_DTYPE_AUTO && !c->replicated) sd = s->ssm_dtype;
        if (kvp_dtype_bytes(cd, conv_elems, &conv_b) || kvp_dtype_bytes(sd, ssm_elems, &ssm_b) ||
            !kvp__add_u64(conv_b, ssm_b, &out->bytes_per_sequence) ||
            !kvp__mul_u64(out->bytes_per_sequence, s->beam_width, &out->bytes_per_sequence))
            return overflow(model, c->layer, err);
        out->kv_heads_per_rank = h;
        out->dtype = sd;
        out->conv_bytes_per_sequence = conv_b;
        out->ssm_bytes_per_sequence = ssm_b;
        return KVP_OK;
    }

    uint32_t h = 1;
    if (!c->replicated) {
        kvp_status st = heads_per_rank(model, c->kv_heads, s->tp, c->layer, "num_key_value_heads",
                                       s->kv_heads_round_up && c->kind != KVP_CACHE_CROSS, &h,
                                       err);
        if (st) return st;
    } else {
        h = c->kv_heads ? c->kv_heads : 1;
    }
    kvp_dtype dt = c->dtype == KVP_DTYPE_AUTO ? kv_dtype : c->dtype;
    uint64_t elems, bytes, scales;
    if (!kvp__mul_u64(h, (uint64_t)c->k_head_dim + c->v_head_dim, &elems))
        return overflow(model, c->layer, err);
    if (kvp_dtype_bytes(dt, elems, &bytes) != KVP_OK) return overflow(model, c->layer, err);
    if (!kvp__mul_u64(h, c->scale_bytes_per_token, &scales) ||
        !kvp__add_u64(bytes, scales, &bytes))
        return overflow(model, c->layer, err);
    out->kv_heads_per_rank = h;
    out->dtype = dt;
    out->bytes_per_token = bytes;
    out->tokens_per_entry = c->tokens_per_entry > 1 ? c->tokens_per_entry : 1;
    return KVP_OK;
}

static bool same_pool(const kvp_pool_cost *p, const kvp_layer_cost *l) {
    return p->kind == l->kind && p->tokens_per_entry == (l->tokens_per_entry ? l->tokens_per_entry : 1) && p->window_tokens == l->window_tokens && p->dtype == l->dtype &&
           p->kv_heads_per_rank == l->kv_heads_per_rank && p->k_head_dim == l->k_head_dim &&
           p->v_head_dim == l->v_head_dim && p->bytes_per_token_per_layer == l->bytes_per_token &&
           (p->layers == 0 || p->bytes_per_sequence / p->layers == l->bytes_per_sequence);
}

kvp_status kvp__cost_layer(const kvp_model *model, const kvp_cost_settings *settings,
                          size_t cache_index, kvp_layer_cost *out, kvp_error *err) {
    kvp_cost_settings s = normalize(settings);
    const kvp_layer_cache *c = kvp_model_cache(model, cache_index);
    if (!c)
        return kvp__fail(err, KVP_INVALID_ARG, kvp_model_name(model), NULL,
                         "cache index %zu out of range", cache_index);
    kvp_status st = cost_record(model, c, &s, resolve_kv_dtype(model, s.kv_dtype), out, err);
    if (st) return st;
    out->pp_stage = kvp_pp_stage_of_layer(kvp_model_get_info(model)->num_layers, s.pp, c->layer);
    return KVP_OK;
}

static kvp_status cost_stage(const kvp_model *model, const kvp_cost_settings *s, uint32_t stage,
                             kvp_cost *out, kvp_error *err) {
    const kvp_model_info *info = kvp_model_get_info(model);
    memset(out, 0, sizeof *out);
    out->tp = s->tp;
    out->pp = s->pp;
    out->pp_rank = stage;
    out->tokens_per_block = s->tokens_per_block;
    out->beam_width = s->beam_width;
    out->kv_dtype = resolve_kv_dtype(model, s->kv_dtype);
    out->model_dtype = info->dtype;
    kvp_pp_stage_layers(info->num_layers, s->pp, stage, &out->layer_begin, &out->layer_end);

    size_t n = kvp_model_cache_count(model);
    /* A record shaped like the last one costed has the same cost and pool (its
     * bytes do not depend on the layer index): a run of identical layers is
     * costed once and added layer by layer. */
    const kvp_layer_cache *last = NULL;
    kvp_pool_cost *pool = NULL;
    kvp_layer_cost lc;
    for (size_t i = 0; i < n; i++) {
        const kvp_layer_cache *c = kvp_model_cache(model, i);
        if (c->layer < out->layer_begin || c->layer >= out->layer_end) continue;
        if (!last || !kvp__layer_cache_same_shape(last, c)) {
            kvp_status st = cost_record(model, c, s, out->kv_dtype, &lc, err);
            if (st) return st;
            last = c;
            pool = NULL;
            for (uint32_t k = 0; k < out->pool_count; k++)
                if (same_pool(&out->pools[k], &lc)) pool = &out->pools[k];
            if (!pool) {
                if (out->pool_count == KVP_MAX_POOLS)
                    return kvp__fail(err, KVP_UNSUPPORTED, kvp_model_name(model), NULL,
                                     "more than %d distinct layer geometries", KVP_MAX_POOLS);
                pool = &out->pools[out->pool_count++];
                pool->kind = lc.kind;
                pool->window_tokens = lc.window_tokens;
                pool->kv_heads_per_rank = lc.kv_heads_per_rank;
                pool->k_head_dim = lc.k_head_dim;
                pool->v_head_dim = lc.v_head_dim;
                pool->dtype = lc.dtype;
                pool->bytes_per_token_per_layer = lc.bytes_per_token;
                pool->tokens_per_block =
                    lc.kind == KVP_CACHE_RECURRENT ? 0 : s->tokens_per_block;
                pool->tokens_per_entry = lc.tokens_per_entry ? lc.tokens_per_entry : 1;
            }
        }
        pool->layers++;
        if (!kvp__add_u64(pool->bytes_per_token, lc.bytes_per_token, &pool->bytes_per_token) ||
            !kvp__add_u64(pool->bytes_per_sequence, lc.bytes_per_sequence,
                          &pool->bytes_per_sequence))
            return overflow(model, c->layer, err);
        /* The state split for reports (conv in its own dtype), summed checked. */
        if (!kvp__add_u64(pool->conv_bytes_per_sequence, lc.conv_bytes_per_sequence,
                          &pool->conv_bytes_per_sequence) ||
            !kvp__add_u64(pool->ssm_bytes_per_sequence, lc.ssm_bytes_per_sequence,
                          &pool->ssm_bytes_per_sequence))
            return overflow(model, c->layer, err);
    }
    for (uint32_t k = 0; k < out->pool_count; k++) {
        kvp_pool_cost *p = &out->pools[k];
        if (p->kind == KVP_CACHE_RECURRENT) {
            p->page_bytes = p->bytes_per_sequence / s->beam_width;
        } else if (!kvp__mul_u64(p->bytes_per_token, s->tokens_per_block, &p->page_bytes)) {
            return overflow(model, 0, err);
        }
        if (p->tokens_per_entry > 1) out->non_affine = true;
        if (!kvp__add_u64(out->bytes_per_token, p->tokens_per_entry > 1 ? 0 : p->bytes_per_token,
                          &out->bytes_per_token) ||
            !kvp__add_u64(out->bytes_per_sequence, p->bytes_per_sequence, &out->bytes_per_sequence))
            return overflow(model, 0, err);
    }
    return KVP_OK;
}

kvp_status kvp_cost_compute(const kvp_model *model, const kvp_cost_settings *settings,
                            kvp_cost *out, kvp_error *err) {
    kvp_cost_settings s = normalize(settings);
    const kvp_model_info *info = kvp_model_get_info(model);
    kvp_status tst = kvp__cost_check_settings(model, &s, err);
    if (tst) return tst;
    if (s.pp > info->num_layers)
        return kvp__fail(err, KVP_CONFIG, kvp_model_name(model), "pp",
                         "pipeline parallelism %u is larger than the %u layers", s.pp,
                         info->num_layers);
    if (s.pp_rank >= 0) {
        if ((uint32_t)s.pp_rank >= s.pp)
            return kvp__fail(err, KVP_INVALID_ARG, kvp_model_name(model), "pp_rank",
                             "stage %d does not exist with pipeline parallelism %u", s.pp_rank,
                             s.pp);
        return cost_stage(model, &s, (uint32_t)s.pp_rank, out, err);
    }
    /* Busiest stage: the one with the most bytes per token, then per sequence. */
    kvp_cost best, cur;
    kvp_status st = cost_stage(model, &s, 0, &best, err);
    if (st) return st;
    for (uint32_t stage = 1; stage < s.pp; stage++) {
        st = cost_stage(model, &s, stage, &cur, err);
        if (st) return st;
        if (cur.bytes_per_token > best.bytes_per_token ||
            (cur.bytes_per_token == best.bytes_per_token &&
             cur.bytes_per_sequence > best.bytes_per_sequence))
            best = cur;
    }
    *out = best;
    return KVP_OK;
}

/* Tokens a pool keeps for one sequence of seq_len tokens: min(seq_len,
 * window) for bounded kinds (a chunked pool keeps at most one chunk), the
 * encoder length for cross pools, seq_len otherwise, 0 for recurrent. */
static uint64_t pool_tokens_for_sequence(const kvp_pool_cost *pool, uint64_t seq_len) {
    /* One entry per r tokens: a partial group of r tokens still takes its entry. */
    if (pool->tokens_per_entry > 1) return kvp__ceil_div_u64(seq_len, pool->tokens_per_entry);
    switch (pool->kind) {
    case KVP_CACHE_RECURRENT:
        return 0;
    case KVP_CACHE_CROSS:
        return pool->window_tokens;
    case KVP_CACHE_SLIDING:
    case KVP_CACHE_CHUNKED:
        return pool->window_tokens && seq_len > pool->window_tokens ? pool->window_tokens
                                                                    : seq_len;
    default:
        return seq_len;
    }
}

kvp_status kvp_cost_sequence_bytes(const kvp_cost *cost, uint64_t seq_len, uint64_t *out_bytes,
                                   kvp_error *err) {
    uint64_t total = 0;
    for (uint32_t k = 0; k < cost->pool_count; k++) {
        const kvp_pool_cost *p = &cost->pools[k];
        uint64_t b = 0;
        if (p->kind != KVP_CACHE_RECURRENT) {
            uint64_t blocks = kvp__ceil_div_u64(pool_tokens_for_sequence(p, seq_len),
                                                p->tokens_per_block);
            if (!kvp__mul_many_u64(&b, 3, blocks, p->page_bytes, (uint64_t)cost->beam_width))
                return kvp__fail(err, KVP_OVERFLOW, NULL, "seq_len",
                                 "%llu tokens per sequence overflow 64-bit bytes",
                                 (unsigned long long)seq_len);
        }
        if (!kvp__add_u64(total, b, &total) ||
            !kvp__add_u64(total, p->bytes_per_sequence, &total))
            return kvp__fail(err, KVP_OVERFLOW, NULL, "seq_len",
                             "%llu tokens per sequence overflow 64-bit bytes",
                             (unsigned long long)seq_len);
    }
    *out_bytes = total;
    return KVP_OK;
}

kvp_status kvp_cost_tokens_for_budget(const kvp_cost *cost, uint64_t budget_bytes,
                                      uint64_t *out_tokens, kvp_error *err) {
    /* kvp_cost_sequence_bytes is non-decreasing in seq_len: bisect on it. */
    uint64_t b;
    kvp_status st = kvp_cost_sequence_bytes(cost, 1, &b, err);
    if (st) return st;
    if (b > budget_bytes) {
        *out_tokens = 0;
        return KVP_OK;
    }
    uint64_t lo = 1, hi = KVP_MAX_PLAN_TOKENS;
    st = kvp_cost_sequence_bytes(cost, hi, &b, err);
    if (st == KVP_OK && b <= budget_bytes) {
        *out_tokens = hi;
        return KVP_OK;
    }
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2;
        kvp_status ms = kvp_cost_sequence_bytes(cost, mid, &b, NULL);
        if (ms == KVP_OK && b <= budget_bytes)
            lo = mid;
        else
            hi = mid - 1;
    }
    *out_tokens = lo;
    return KVP_OK;
}

kvp_status kvp_cost_require_affine(const kvp_model *model, const char *planner, kvp_error *err) {
    size_t n = kvp_model_cache_count(model);
    for (size_t i = 0; i < n; i++) {
        const kvp_layer_cache *c = kvp_model_cache(model, i);
        if (c->tokens_per_entry > 1)
            return kvp__fail(err, KVP_UNSUPPORTED, kvp_model_name(model), "compress_ratios",
                             "layer %u keeps one %s entry per %u tokens: %s sizes pools by one "
                             "slope per token and does not plan this cache yet (kvplan cost "
                             "gives its exact bytes); refusing rather than rounding",
                             c->layer, kvp_cache_kind_name(c->kind), c->tokens_per_entry,
                             planner ? planner : "this planner");
    }
    return KVP_OK;
}
