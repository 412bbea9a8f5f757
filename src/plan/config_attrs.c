/*
 * config_attrs.c — config attributes the seed reads with getattr fallbacks
 * and the cost model does not keep: encoder geometry, expert counts, LoRA
 * block configs, Gemma-4 per-layer geometry, the draft's attention layout;
 * and the model traits behind the seed's is_* helpers.
 */
#include <string.h>

#include "json_error.h"
#include "plan_internal.h"

void kvp__cfg_open(const kvp_model *model, kvp__cfg *cfg) {
    memset(cfg, 0, sizeof *cfg);
    size_t len = 0;
    const char *text = model ? kvp_model_source_text(model, &len) : NULL;
    if (!text) return;
    json_error_t jerr;
    /* The reader accepted the text with Python's bare Infinity / NaN rewritten
     * (Nemotron-H's time_step_limit); parse it the same way. */
    char *work = kvp__malloc(NULL, len + 1);
    if (!work) return;
    memcpy(work, text, len);
    work[len] = '\0';
    kvp__json_python_literals(work, len, "0.0");
    cfg->doc = json_loadb(work, len, 0, &jerr);
    kvp__free(NULL, work);
    if (!cfg->doc || !json_is_object(cfg->doc)) {
        json_decref(cfg->doc);
        cfg->doc = NULL;
        return;
    }
    cfg->root = cfg->doc;
    json_t *t = json_object_get(cfg->root, "text_config");
    cfg->lm = json_is_object(t) ? t : cfg->root;
}

void kvp__cfg_close(kvp__cfg *cfg) {
    json_decref(cfg->doc);
    memset(cfg, 0, sizeof *cfg);
}

json_t *kvp__cfg_get(const kvp__cfg *cfg, const char *name) {
    if (!cfg->doc) return NULL;
    json_t *v = json_object_get(cfg->lm, name);
    if ((!v || json_is_null(v)) && cfg->lm != cfg->root) v = json_object_get(cfg->root, name);
    return v && !json_is_null(v) ? v : NULL;
}

bool kvp__cfg_int(const kvp__cfg *cfg, const char *const *names, size_t n, uint64_t *out,
                  const char **which) {
    for (size_t i = 0; i < n; i++) {
        json_t *v = kvp__cfg_get(cfg, names[i]);
        /* isinstance(value, int): JSON integers, 0 included, and booleans (a Python bool
         * is an int: true = 1, false = 0). Negative integers fall through (kvplan: a
         * negative count is no count). */
        if (v && json_is_boolean(v)) {
            *out = json_is_true(v) ? 1u : 0u;
            if (which) *which = names[i];
            return true;
        }
        if (v && json_is_integer(v) && json_integer_value(v) >= 0) {
            *out = (uint64_t)json_integer_value(v);
            if (which) *which = names[i];
            return true;
        }
    }
    return false;
}

/* ------------------------------------------------------------- traits */

bool kvp__is_kimi_linear(const kvp_model *model) {
    const char *t = kvp_model_get_info(model)->model_type;
    return strcmp(t, "kimi_linear") == 0 || strcmp(t, "kimi_k3") == 0;
}

bool kvp__has_layer_types(const kvp_model *model) {
    kvp__cfg cfg;
    kvp__cfg_open(model, &cfg);
    json_t *lt = kvp__cfg_get(&cfg, "layer_types");
    bool has = json_is_array(lt) && json_array_size(lt) > 0;
    kvp__cfg_close(&cfg);
    return has;
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
    static const char *const names[] = {"num_experts", "num_local_experts", "moe_num_experts",
                                        "experts_per_router"};
    kvp__cfg cfg;
    kvp__cfg_open(model, &cfg);
    uint64_t n = 1;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        json_t *v = cfg.doc ? json_object_get(cfg.lm, names[i]) : NULL;
        if (!v) continue;
        /* hasattr() stops at the first attribute present, even a null one (-> 1); the
         * value is returned as it is, 0 included. */
        if (json_is_integer(v) && json_integer_value(v) >= 0) n = (uint64_t)json_integer_value(v);
        break;
    }
    bool had_config = cfg.doc != NULL;
    kvp__cfg_close(&cfg);
    /* A model read without config text (GGUF) keeps its expert count in info. */
    if (!had_config && kvp_model_get_info(model)->num_experts)
        n = kvp_model_get_info(model)->num_experts;
    return n;
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

/* A block_configs entry's sub-config is LoRA-capable unless no_op or replace_with_linear. */
static bool lora_capable(json_t *bc, const char *part) {
    json_t *sub = json_object_get(bc, part);
    if (!json_is_object(sub)) return true;
    return !json_is_true(json_object_get(sub, "no_op")) &&
           !json_is_true(json_object_get(sub, "replace_with_linear"));
}

kvp_status kvp_lora_module_slots(const kvp_model *model, const char *const *target_modules,
                                 size_t module_count, uint64_t *out_slots, kvp_error *err) {
    uint64_t layers = kvp_model_get_info(model)->num_layers;
    kvp__cfg cfg;
    kvp__cfg_open(model, &cfg);
    json_t *bcs = kvp__cfg_get(&cfg, "block_configs");
    uint64_t total;
    if (!json_is_array(bcs)) {
        kvp__cfg_close(&cfg);
        if (!kvp__mul_u64(layers, module_count, out_slots))
            return kvp__fail(err, KVP_OVERFLOW, kvp_model_name(model), "num_hidden_layers",
                             "LoRA module slots overflow 64 bits");
        return KVP_OK;
    }
    uint64_t n_attn = 0, n_mlp = 0, n_other = 0, with_attn = 0, with_mlp = 0;
    for (size_t i = 0; i < module_count; i++) {
        if (in_list(target_modules[i], k_attn_modules))
            n_attn++;
        else if (in_list(target_modules[i], k_mlp_modules))
            n_mlp++;
        else
            n_other++;
    }
    size_t i;
    json_t *bc;
    json_array_foreach(bcs, i, bc) {
        if (lora_capable(bc, "attention")) with_attn++;
        if (lora_capable(bc, "ffn")) with_mlp++;
    }
    kvp__cfg_close(&cfg);
    /* Counts are bounded by the config size, far from 2^64. */
    total = with_attn * n_attn + with_mlp * n_mlp + layers * n_other;
    *out_slots = total;
    return KVP_OK;
}

size_t kvp_gemma4_layer_geometry(const kvp_model *model, uint32_t *out_head_dims,
                                 uint32_t *out_kv_heads, size_t out_cap) {
    if (!kvp__is_gemma4_hybrid(model)) return 0;
    kvp__cfg cfg;
    kvp__cfg_open(model, &cfg);
    json_t *lt = kvp__cfg_get(&cfg, "layer_types");
    static const char *const hd_names[] = {"head_dim"};
    static const char *const ghd_names[] = {"global_head_dim"};
    static const char *const kvh_names[] = {"num_key_value_heads"};
    static const char *const gkvh_names[] = {"num_global_key_value_heads"};
    uint64_t hd = 0, ghd = 0, kvh = 0, gkvh = 0;
    const kvp_model_info *info = kvp_model_get_info(model);
    if (!kvp__cfg_int(&cfg, hd_names, 1, &hd, NULL)) hd = info->head_dim;
    if (!kvp__cfg_int(&cfg, ghd_names, 1, &ghd, NULL)) ghd = hd;
    if (!kvp__cfg_int(&cfg, kvh_names, 1, &kvh, NULL)) kvh = info->num_kv_heads;
    /* num_global_key_value_heads or num_key_value_heads (a 0/None falls back). */
    if (!kvp__cfg_int(&cfg, gkvh_names, 1, &gkvh, NULL) || gkvh == 0) gkvh = kvh;
    bool k_eq_v = json_is_true(kvp__cfg_get(&cfg, "attention_k_eq_v"));
    size_t n = 0;
    if (json_is_array(lt)) {
        size_t i;
        json_t *v;
        json_array_foreach(lt, i, v) {
            if (n >= out_cap) break;
            const char *s = json_string_value(v);
            bool sliding = s && strcmp(s, "sliding_attention") == 0;
            out_head_dims[n] = (uint32_t)(sliding ? hd : ghd);
            out_kv_heads[n] = (uint32_t)(sliding ? kvh : (k_eq_v ? gkvh : kvh));
            n++;
        }
    }
    kvp__cfg_close(&cfg);
    return n;
}

bool kvp_draft_defines_attention_layout(const kvp_model *draft) {
    kvp__cfg cfg;
    kvp__cfg_open(draft, &cfg);
    if (!cfg.doc) return false;
    /* getattr(..., None) is not None for use_sliding_window / sliding_window; bool(layer_types). */
    json_t *lt = kvp__cfg_get(&cfg, "layer_types");
    bool r = kvp__cfg_get(&cfg, "use_sliding_window") != NULL ||
             kvp__cfg_get(&cfg, "sliding_window") != NULL ||
             (json_is_array(lt) && json_array_size(lt) > 0);
    kvp__cfg_close(&cfg);
    return r;
}
