/*
 * config_attrs.c — config attributes the seed reads with getattr fallbacks
 * and the cost model does not keep (expert counts, LoRA block configs,
 * Gemma-4 per-layer geometry, the draft's attention layout), from the facts
 * the model read with its config (kvp_model_get_facts); and the model traits
 * behind the seed's is_* helpers.
 */
#include <string.h>

#include "plan_internal.h"
#include "plan_rules.h"

/* ------------------------------------------------------------- traits */

bool kvp__is_kimi_linear(const kvp_model *model) {
    const char *t = kvp_model_get_info(model)->model_type;
    return strcmp(t, "kimi_linear") == 0 || strcmp(t, "kimi_k3") == 0;
}

bool kvp__has_layer_types(const kvp_model *model) {
    return kvp_model_get_facts(model)->layer_types_count > 0;
}

bool kvp__is_gemma4_hybrid(const kvp_model *model) {
    const char *t = kvp_model_get_info(model)->model_type;
    if (strncmp(t, "gemma4", 6) != 0) return false;
    /* Hybrid: sliding and full layers side by side (per-layer head dims). */
    return kvp__count_kind(model, KVP_CACHE_SLIDING) > 0 &&
           kvp__count_kind(model, KVP_CACHE_FULL) > 0;
}

uint32_t kvp__count_kind(const kvp_model *model, kvp_cache_kind kind) {
    uint32_t n = 0;
    size_t count = kvp_model_cache_count(model);
    for (size_t i = 0; i < count; i++)
        if (kvp_model_cache(model, i)->kind == kind) n++;
    return n;
}

static bool is_attention_kind(kvp_cache_kind k) {
    return k == KVP_CACHE_FULL || k == KVP_CACHE_SLIDING || k == KVP_CACHE_CHUNKED ||
           k == KVP_CACHE_MLA;
}

uint32_t kvp__attention_layers(const kvp_model *model) {
    uint32_t n = 0;
    size_t count = kvp_model_cache_count(model);
    for (size_t i = 0; i < count; i++)
        if (is_attention_kind(kvp_model_cache(model, i)->kind)) n++;
    return n;
}

void kvp_manager_inputs_from_model(const kvp_model *model, kvp_dtype kv_dtype,
                                   kvp_manager_inputs *in) {
    const kvp_model_info *info = kvp_model_get_info(model);
    in->is_mla = info->is_mla;
    in->num_recurrent_layers = kvp__count_kind(model, KVP_CACHE_RECURRENT);
    /* is_hybrid_linear: a config flagged hybrid even with no recurrent layer left. */
    in->is_hybrid_linear = info->is_hybrid_recurrent || in->num_recurrent_layers > 0;
    in->is_kimi_linear = kvp__is_kimi_linear(model);
    in->is_gemma4_hybrid = kvp__is_gemma4_hybrid(model);
    kvp_dtype kd = kv_dtype != KVP_DTYPE_AUTO ? kv_dtype : info->kv_dtype_declared;
    in->fp4_kv = kd == KVP_DTYPE_NVFP4;
}

/* --------------------------------------------------------- model facts */

uint64_t kvp_num_experts(const kvp_model *model) {
    return kvp_model_get_facts(model)->seed_num_experts;
}

static bool in_list(const char *m, const char *const *list) {
    for (; *list; list++)
        if (strcmp(m, *list) == 0) return true;
    return false;
}

static const char *const k_attn_modules[] = {"attn_q",        "attn_k",       "attn_v",
                                             "attn_qkv",      "attn_dense",   "cross_attn_q",
                                             "cross_attn_k",  "cross_attn_v", NULL};
static const char *const k_mlp_modules[] = {"mlp_h_to_4h", "mlp_4h_to_h", "mlp_gate",
                                            "mlp_gate_up", NULL};

kvp_status kvp_lora_module_slots(const kvp_model *model, const char *const *target_modules,
                                 size_t module_count, uint64_t *out_slots, kvp_error *err) {
    uint64_t layers = kvp_model_get_info(model)->num_layers;
    const kvp_model_facts *f = kvp_model_get_facts(model);
    if (f->block_configs.state != KVP_FACT_STATED) {
        if (!kvp__mul_u64(layers, module_count, out_slots))
            return kvp__fail(err, KVP_OVERFLOW, kvp_model_name(model), "num_hidden_layers",
                             "LoRA module slots overflow 64 bits");
        return KVP_OK;
    }
    uint64_t n_attn = 0, n_mlp = 0, n_other = 0;
    for (size_t i = 0; i < module_count; i++) {
        if (in_list(target_modules[i], k_attn_modules))
            n_attn++;
        else if (in_list(target_modules[i], k_mlp_modules))
            n_mlp++;
        else
            n_other++;
    }
    /* Counts are bounded by the config size, far from 2^64. */
    *out_slots = (uint64_t)f->lora_attention_blocks * n_attn +
                 (uint64_t)f->lora_ffn_blocks * n_mlp + layers * n_other;
    return KVP_OK;
}

/* A fact the seed reads with _get_config_int_attr, else `fallback`. */
static uint64_t stated_or(kvp_fact_u64 f, uint64_t fallback) {
    return f.state == KVP_FACT_STATED ? f.value : fallback;
}

size_t kvp_gemma4_layer_geometry(const kvp_model *model, uint32_t *out_head_dims,
                                 uint32_t *out_kv_heads, size_t out_cap) {
    if (!kvp__is_gemma4_hybrid(model)) return 0;
    const kvp_model_facts *f = kvp_model_get_facts(model);
    const kvp_model_info *info = kvp_model_get_info(model);
    uint64_t hd = stated_or(f->head_dim, info->head_dim);
    uint64_t ghd = stated_or(f->global_head_dim, hd);
    uint64_t kvh = stated_or(f->num_key_value_heads, info->num_kv_heads);
    /* num_global_key_value_heads or num_key_value_heads (a 0/None falls back). */
    uint64_t gkvh = stated_or(f->num_global_key_value_heads, 0);
    if (gkvh == 0) gkvh = kvh;
    size_t n = 0;
    for (uint32_t i = 0; i < f->layer_types_count && n < out_cap; i++) {
        bool sliding = f->layer_types[i] == KVP_LAYER_TYPE_SLIDING;
        out_head_dims[n] = (uint32_t)(sliding ? hd : ghd);
        out_kv_heads[n] = (uint32_t)(sliding ? kvh : (f->attention_k_eq_v ? gkvh : kvh));
        n++;
    }
    return n;
}

bool kvp_draft_defines_attention_layout(const kvp_model *draft) {
    return kvp_model_get_facts(draft)->states_attention_layout;
}
