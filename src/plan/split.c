/*
 * split.c — speculative-decoding facts, the target/draft budget split
 * (_compute_draft_budget_shares, _split_kv_cache_budget_for_draft), and the
 * encoder-decoder cross cache: geometry, bytes per token and the self/cross
 * split (_get_cross_kv_cache_layout, _split_kv_cache_budget_for_cross).
 */
#include <string.h>

#include "plan_internal.h"
#include "plan_rules.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

__extension__ typedef unsigned __int128 kvp__u128;

static const char *const k_spec_names[KVP_SPEC_MODE_COUNT] = {
    [KVP_SPEC_NONE] = "none",           [KVP_SPEC_EAGLE3] = "eagle3",
    [KVP_SPEC_MTP] = "mtp",             [KVP_SPEC_TWO_MODEL] = "two-model",
    [KVP_SPEC_DRAFT_TARGET_ONE_MODEL] = "draft-target", [KVP_SPEC_DFLASH] = "dflash",
    [KVP_SPEC_DSPARK] = "dspark",
};

const char *kvp_spec_mode_name(kvp_spec_mode mode) {
    return (unsigned)mode < KVP_SPEC_MODE_COUNT ? k_spec_names[mode] : "unknown";
}

kvp_status kvp_spec_mode_parse(const char *name, kvp_spec_mode *out) {
    for (int i = 0; i < KVP_SPEC_MODE_COUNT; i++)
        if (kvp__strcasecmp(name, k_spec_names[i]) == 0) {
            *out = (kvp_spec_mode)i;
            return KVP_OK;
        }
    return KVP_INVALID_ARG;
}

bool kvp_spec_is_external_drafter(kvp_spec_mode mode) {
    return mode == KVP_SPEC_DRAFT_TARGET_ONE_MODEL || kvp_spec_is_standalone_drafter(mode);
}

bool kvp_spec_is_standalone_drafter(kvp_spec_mode mode) {
    return mode == KVP_SPEC_DFLASH || mode == KVP_SPEC_DSPARK;
}

uint32_t kvp_spec_tokens_per_gen_step(kvp_spec_mode mode, uint32_t max_draft_len) {
    return mode == KVP_SPEC_NONE ? 0 : max_draft_len + 1;
}

uint32_t kvp_spec_extra_kv_tokens(kvp_spec_mode mode, uint32_t max_draft_len) {
    if ((mode == KVP_SPEC_EAGLE3 || mode == KVP_SPEC_MTP) && max_draft_len > 0)
        return max_draft_len - 1;
    return 0;
}

int32_t kvp_spec_draft_prompt_lookahead(kvp_spec_mode mode) {
    switch (mode) {
    case KVP_SPEC_EAGLE3:
    case KVP_SPEC_MTP:
        return 1;
    case KVP_SPEC_DRAFT_TARGET_ONE_MODEL:
    case KVP_SPEC_DFLASH:
    case KVP_SPEC_DSPARK:
        return 0;
    case KVP_SPEC_NONE:
    case KVP_SPEC_TWO_MODEL:
    case KVP_SPEC_MODE_COUNT:
        break;
    }
    return -1;
}

kvp_dtype kvp_draft_kv_dtype(kvp_spec_mode mode, kvp_dtype target_kv_dtype,
                             kvp_dtype draft_weights_dtype) {
    /* Only the standalone drafter drops the target's fp8 KV algo. */
    if (kvp_spec_is_standalone_drafter(mode) && target_kv_dtype == KVP_DTYPE_FP8)
        return draft_weights_dtype == KVP_DTYPE_AUTO ? KVP_DTYPE_BF16 : draft_weights_dtype;
    return target_kv_dtype;
}

size_t kvp_per_layer_kv_heads(uint32_t target_kv_heads, uint32_t target_layers,
                              uint32_t draft_kv_heads, uint32_t spec_layers, uint32_t *out) {
    if (draft_kv_heads == 0 || draft_kv_heads == target_kv_heads || spec_layers == 0) {
        out[0] = target_kv_heads;
        return 1;
    }
    size_t n = 0;
    for (uint32_t i = 0; i < target_layers; i++) out[n++] = target_kv_heads;
    for (uint32_t i = 0; i < spec_layers; i++) out[n++] = draft_kv_heads;
    return n;
}

/* ------------------------------------------------------- draft split */

bool kvp_draft_budget_shares(uint64_t total_budget_bytes, kvp_affine_cost target,
                             kvp_affine_cost draft, uint64_t *out_target_bytes,
                             uint64_t *out_draft_bytes) {
    uint64_t intercepts, slopes;
    if (!kvp__add_u64(target.intercept_bytes, draft.intercept_bytes, &intercepts) ||
        !kvp__add_u64(target.slope_bytes_per_token, draft.slope_bytes_per_token, &slopes))
        return false;
    if (total_budget_bytes < intercepts) return false;
    uint64_t slope_budget = total_budget_bytes - intercepts;
    if (slope_budget == 0 && slopes > 0) return false;
    uint64_t draft_slope_share = 0;
    if (slopes > 0) {
        /* slope_budget * draft.slope // slope_total without a 64-bit overflow. */
        kvp__u128 p = (kvp__u128)slope_budget * draft.slope_bytes_per_token;
        draft_slope_share = (uint64_t)(p / slopes);
    }
    uint64_t draft_budget = draft.intercept_bytes + draft_slope_share;
    *out_draft_bytes = draft_budget;
    *out_target_bytes = total_budget_bytes - draft_budget;
    return true;
}

const char *kvp_budget_attr_name(kvp_budget_attr attr) {
    switch (attr) {
    case KVP_BUDGET_MAX_GPU_TOTAL_BYTES:
        return "max_gpu_total_bytes";
    case KVP_BUDGET_HOST_CACHE_SIZE:
        return "host_cache_size";
    case KVP_BUDGET_DISK_CACHE_SIZE:
        return "disk_cache_size";
    }
    return "unknown";
}

kvp_status kvp_split_budget_for_draft(kvp_budget_attr attr, uint64_t total_bytes, bool have_costs,
                                      kvp_affine_cost target, kvp_affine_cost draft,
                                      uint64_t *out_target_bytes, uint64_t *out_draft_bytes,
                                      bool *out_split, kvp_notes *notes, kvp_error *err) {
    *out_target_bytes = total_bytes;
    *out_draft_bytes = total_bytes;
    *out_split = false;
    if (total_bytes == 0) return KVP_OK;
    /* _get_target_and_draft_cache_costs: a cost with nothing in it is unusable. */
    if (!have_costs ||
        (target.slope_bytes_per_token == 0 && target.intercept_bytes == 0) ||
        (draft.slope_bytes_per_token == 0 && draft.intercept_bytes == 0))
        return KVP_OK;
    const char *name = kvp_budget_attr_name(attr);
    if (attr != KVP_BUDGET_MAX_GPU_TOTAL_BYTES) {
        /* Fixed state is GPU-resident: host and disk tiers split by slope only. */
        target.intercept_bytes = 0;
        draft.intercept_bytes = 0;
    }
    uint64_t t, d;
    if (!kvp_draft_budget_shares(total_bytes, target, draft, &t, &d)) {
        if (attr == KVP_BUDGET_MAX_GPU_TOTAL_BYTES) {
            double fixed = ((double)target.intercept_bytes + (double)draft.intercept_bytes) / GIB;
            return kvp__fail(err, KVP_INFEASIBLE, NULL, name,
                             "KV cache GPU budget (%.2f GiB) is insufficient after the combined "
                             "fixed cost (%.2f GiB, e.g. SWA or mamba state) for target+draft. "
                             "Increase free_gpu_memory_fraction or max_gpu_total_bytes, or "
                             "reduce max_batch_size (the fixed cost scales with batch size).",
                             (double)total_bytes / GIB, fixed);
        }
        kvp__note(notes,
                  "cannot split KV cache %s between target and draft; assigning the draft a zero "
                  "%s budget to avoid double-allocating the full budget",
                  name, name);
        *out_draft_bytes = 0;
        *out_split = true;
        return KVP_OK;
    }
    *out_target_bytes = t;
    *out_draft_bytes = d;
    *out_split = true;
    return KVP_OK;
}

/* ------------------------------------------------------------ cross */

/* An encoder fact stated as an integer in [0, UINT32_MAX]? */
static bool stated_u32(kvp_fact_u64 f, uint64_t *out) {
    if (f.state != KVP_FACT_STATED || f.value > UINT32_MAX) return false;
    *out = f.value;
    return true;
}

kvp_status kvp_cross_geometry_from_model(const kvp_model *model, uint64_t fallback_max_seq_len,
                                         uint64_t max_input_len, kvp_cross_geometry *out,
                                         kvp_error *err) {
    /* The names and their order are the seed's (kvp_encoder_facts lists them). */
    const kvp_encoder_facts *e = &kvp_model_get_facts(model)->encoder;
    const char *file = kvp_model_name(model);
    memset(out, 0, sizeof *out);
    uint64_t v;
    /* A stated integer: 0 included (the seed's isinstance test), bounded to 32 bits. */
    if (!stated_u32(e->decoder_layers, &v))
        return kvp__fail(err, KVP_CONFIG, file, "/decoder_layers",
                         "Unable to determine decoder layer count for cross KV cache (none of "
                         "num_decoder_layers, decoder_layers, num_hidden_layers, num_layers is an "
                         "integer)");
    if (v == 0)
        /* The seed accepts 0 and builds a cross manager without layers; kvplan refuses a
         * cross pool that caches nothing. */
        return kvp__fail(err, KVP_CONFIG, file, e->decoder_layers.key,
                         "the decoder layer count for the cross KV cache is 0: a cross pool "
                         "needs at least one decoder layer");
    out->num_layers = (uint32_t)v;
    if (!stated_u32(e->heads, &v))
        return kvp__fail(err, KVP_CONFIG, file, "/encoder_attention_heads",
                         "Unable to determine encoder attention head count for cross KV cache.");
    out->num_heads = (uint32_t)v;
    out->num_kv_heads = stated_u32(e->kv_heads, &v) ? (uint32_t)v : out->num_heads;
    if (e->hidden_size.state != KVP_FACT_STATED)
        return kvp__fail(err, KVP_CONFIG, file, "/d_model",
                         "Unable to determine encoder hidden size for cross KV cache.");
    out->hidden_size = e->hidden_size.value;
    if (stated_u32(e->head_dim, &v))
        out->head_dim = (uint32_t)v;
    else if (out->num_heads == 0)
        /* encoder_hidden_size // 0: the seed's ZeroDivisionError. */
        return kvp__fail(err, KVP_CONFIG, file, e->heads.key,
                         "the encoder attention head count is 0, so the cross head dim "
                         "(encoder_hidden_size // heads) is undefined; set d_kv or "
                         "encoder_head_dim");
    else
        out->head_dim = (uint32_t)(out->hidden_size / out->num_heads);
    out->max_seq_len = fallback_max_seq_len;
    if (max_input_len > 0) out->max_seq_len = max_input_len;
    if (e->max_input_len.state == KVP_FACT_STATED && e->max_input_len.value < out->max_seq_len)
        out->max_seq_len = e->max_input_len.value;
    return KVP_OK;
}

kvp_status kvp_cross_bytes_per_token(const kvp_cross_geometry *g, uint32_t tp, kvp_dtype kv_dtype,
                                     uint64_t *out_bytes, kvp_error *err) {
    if (tp == 0) tp = 1;
    /* Static estimator: 2 (K and V) * layers * floor(head_dim * kv_heads / tp) elements. */
    uint64_t per_layer = (uint64_t)g->head_dim * g->num_kv_heads / tp;
    uint64_t elems;
    if (!kvp__mul_many_u64(&elems, 3, (uint64_t)2, (uint64_t)g->num_layers, per_layer))
        return kvp__fail(err, KVP_OVERFLOW, NULL, "cross", "cross bytes per token overflow");
    uint64_t bytes;
    if (kv_dtype == KVP_DTYPE_FP8 || kv_dtype == KVP_DTYPE_INT8)
        bytes = elems;
    else if (kv_dtype == KVP_DTYPE_NVFP4)
        bytes = kvp__ceil_div_u64(elems, 2) + kvp__ceil_div_u64(elems, 16);
    else if (!kvp__mul_u64(elems, 2, &bytes)) /* everything else is costed at 2 bytes */
        return kvp__fail(err, KVP_OVERFLOW, NULL, "cross", "cross bytes per token overflow");
    *out_bytes = bytes;
    return KVP_OK;
}

kvp_status kvp_split_budget_for_cross(bool has_cross_fraction, double cross_fraction,
                                      double free_fraction, uint64_t max_gpu_total_bytes,
                                      uint64_t host_cache_size, kvp_cross_split *out,
                                      kvp_error *err) {
    memset(out, 0, sizeof *out);
    if (!has_cross_fraction)
        return kvp__fail(err, KVP_CONFIG, NULL, "cross_kv_cache_fraction",
                         "encoder-decoder models require cross_kv_cache_fraction to size the "
                         "cross KV cache pool");
    if (!(cross_fraction >= 0.0 && cross_fraction <= 1.0))
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "cross_kv_cache_fraction",
                         "cross_kv_cache_fraction %g is outside [0, 1]", cross_fraction);
    bool split_any = false;
    if (free_fraction > 0.0) {
        out->cross_fraction = free_fraction * cross_fraction;
        out->self_fraction = free_fraction - out->cross_fraction;
        split_any = true;
    }
    if (max_gpu_total_bytes > 0) {
        out->cross_gpu_bytes = kvp__double_to_u64((double)max_gpu_total_bytes * cross_fraction);
        out->self_gpu_bytes = max_gpu_total_bytes - out->cross_gpu_bytes;
        split_any = true;
    }
    if (host_cache_size > 0) {
        out->cross_host_bytes = kvp__double_to_u64((double)host_cache_size * cross_fraction);
        out->self_host_bytes = host_cache_size - out->cross_host_bytes;
        split_any = true;
    }
    if (!split_any)
        return kvp__fail(err, KVP_CONFIG, NULL, "cross_kv_cache_fraction",
                         "unable to size the encoder-decoder cross KV cache pool: neither "
                         "free_gpu_memory_fraction nor max_gpu_total_bytes nor host_cache_size "
                         "is available");
    return KVP_OK;
}
