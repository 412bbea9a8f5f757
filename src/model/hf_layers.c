/*
 * hf_layers.c — which cache each decoder layer keeps, family by family.
 *
 * The schedule of a decoder-only model is decided in this order, the first
 * rule that applies wins:
 *   1. an explicit `layer_types` list (gpt-oss, Gemma 3/4, Qwen3.5, Step);
 *   2. MiMo's `hybrid_layer_pattern` (1 = sliding, 0 = full);
 *   3. Qwen3-Next's `full_attention_interval` (every Nth layer full, the rest
 *      gated-delta-net);
 *   4. Llama 4's chunked local attention (`attention_chunk_size`, with
 *      `no_rope_layers`: NoPE layers are global);
 *   5. `sliding_window_pattern` (Gemma 3, Cohere2: every Nth layer full);
 *   6. Gemma 2's alternation (even layers sliding);
 *   7. Qwen2's `use_sliding_window` + `max_window_layers`;
 *   8. a `sliding_window` on every layer (Mistral, Phi-3) unless
 *      `use_sliding_window` is false;
 *   9. full attention everywhere.
 * Hybrid recurrent families (Nemotron-H, Jamba, Falcon-H1, mamba_ssm) and
 * encoder-decoder models have their own readers below.
 */
#include <stdio.h>
#include <string.h>

#include "hf_layers.h"
#include "json_error.h"
#include "model_internal.h"

typedef enum layer_type {
    LT_NONE = 0, /* keeps nothing (MLP-only layer, no-op attention) */
    LT_FULL,
    LT_SLIDING,
    LT_CHUNKED,
    LT_LINEAR, /* gated-delta-net linear attention: recurrent state */
    LT_MAMBA,
    LT_LIGHTNING, /* MiniMax lightning (linear) attention: one state matrix per sequence */
} layer_type;

typedef struct attn_geometry {
    uint32_t kv_heads;
    uint32_t k_head_dim;
    uint32_t v_head_dim;
} attn_geometry;

typedef struct layers_ctx {
    hf_reader *r;
    kvp_model *model;
    kvp_model_info *info;
    const hf_obj *lm;
    uint32_t layers;
    uint8_t *types; /* layer_type per layer */
} layers_ctx;

static const uint32_t k_max_window = 1u << 30; /* 1 Gi tokens: far above any real context */

/* ------------------------------------------------------------------ helpers */

static kvp_status add_cache(layers_ctx *c, const kvp_layer_cache *lc) {
    return kvp__model_add_cache(c->model, lc, c->r->err);
}

static kvp_status add_attention(layers_ctx *c, uint32_t layer, kvp_cache_kind kind,
                                const attn_geometry *g, uint64_t window) {
    kvp_layer_cache lc;
    memset(&lc, 0, sizeof lc);
    lc.layer = layer;
    lc.kind = kind;
    lc.kv_heads = g->kv_heads;
    lc.k_head_dim = g->k_head_dim;
    lc.v_head_dim = g->v_head_dim;
    lc.window_tokens = window;
    return add_cache(c, &lc);
}

static kvp_status add_recurrent(layers_ctx *c, uint32_t layer, const kvp_recurrent_geometry *g) {
    kvp_layer_cache lc;
    memset(&lc, 0, sizeof lc);
    lc.layer = layer;
    lc.kind = KVP_CACHE_RECURRENT;
    lc.recurrent = *g;
    lc.kv_heads = g->heads;
    return add_cache(c, &lc);
}

static kvp_status read_layers(hf_reader *r, const hf_obj *o, const char *const *keys, size_t n,
                              uint32_t *out) {
    for (size_t i = 0; i < n; i++) {
        bool found = false;
        kvp_status s = kvp__hf_u32(r, o, keys[i], 1, KVP_MAX_LAYERS, out, &found);
        if (s) return s;
        if (found) return KVP_OK;
    }
    return kvp__hf_fail(r, o, keys[0], KVP_CONFIG, "missing, expected the number of layers");
}

/* SSM state dtype: configs that keep it in float32 say so. */
/* *from_checkpoint says whether it came from the checkpoint's mamba_ssm_dtype (a hint
 * some engines ignore) rather than a cache dtype key. */
static kvp_status read_ssm_dtype_key(hf_reader *r, const hf_obj *o, kvp_dtype *out,
                                     bool *from_checkpoint) {
    static const char *const keys[] = {"mamba_ssm_cache_dtype", "mamba_ssm_dtype", "ssm_state_dtype"};
    *out = KVP_DTYPE_AUTO;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const char *s;
        kvp_status st = kvp__hf_str(r, o, keys[i], &s);
        if (st) return st;
        if (!s || strcmp(s, "auto") == 0) continue;
        if (kvp_dtype_parse(s, out) != KVP_OK || *out == KVP_DTYPE_NVFP4)
            return kvp__hf_fail(r, o, keys[i], KVP_UNSUPPORTED,
                                "unknown SSM state dtype \"%s\" (expected float32, float16, "
                                "bfloat16)", s);
        if (from_checkpoint) *from_checkpoint = strcmp(keys[i], "mamba_ssm_dtype") == 0;
        return KVP_OK;
    }
    return KVP_OK;
}

/* Attention heads, KV heads and head dims of a standard (non-MLA) attention
 * layer. head_dim: explicit wins; absent or null: hidden_size / heads. */
static kvp_status read_attention(hf_reader *r, const hf_obj *o, uint32_t *out_heads,
                                 attn_geometry *g) {
    uint32_t heads = 0;
    bool found = false;
    static const char *const head_keys[] = {"num_attention_heads", "n_head", "num_heads",
                                            "n_heads", "decoder_attention_heads"};
    const char *head_key = head_keys[0];
    for (size_t i = 0; i < sizeof head_keys / sizeof head_keys[0] && !found; i++) {
        kvp_status s = kvp__hf_u32(r, o, head_keys[i], 1, KVP_MAX_HEADS, &heads, &found);
        if (s) return s;
        if (found) head_key = head_keys[i];
    }
    if (!found)
        return kvp__hf_fail(r, o, "num_attention_heads", KVP_CONFIG,
                            "missing, expected the number of attention heads");
    uint32_t kv = heads;
    const char *kv_key = "num_key_value_heads";
    kvp_status s = kvp__hf_u32(r, o, kv_key, 1, KVP_MAX_HEADS, &kv, &found);
    if (s) return s;
    if (!found) {
        kv_key = "num_kv_heads";
        if ((s = kvp__hf_u32(r, o, kv_key, 1, KVP_MAX_HEADS, &kv, &found))) return s;
    }
    if (!found) {
        kv_key = "n_head_kv";
        if ((s = kvp__hf_u32(r, o, kv_key, 1, KVP_MAX_HEADS, &kv, &found))) return s;
    }
    if (!found) {
        /* ChatGLM / GLM-4 (chatglm format): multi_query_group_num KV groups,
         * read only when multi_query_attention says they are used. */
        bool mqa = false, mqa_found = false;
        if ((s = kvp__hf_bool(r, o, "multi_query_attention", &mqa, &mqa_found))) return s;
        if (mqa) {
            kv_key = "multi_query_group_num";
            if ((s = kvp__hf_u32(r, o, kv_key, 1, KVP_MAX_HEADS, &kv, &found))) return s;
            if (!found)
                return kvp__hf_fail(r, o, kv_key, KVP_CONFIG,
                                    "missing while multi_query_attention is true, expected the "
                                    "number of KV groups");
        }
    }
    if (!found) {
        /* DBRX and MPT keep the KV heads in attn_config (MPT's only with grouped-query
         * attention; otherwise every head keeps its own KV). */
        hf_obj ac;
        if ((s = kvp__hf_child(r, o, "attn_config", &ac))) return s;
        if (ac.json) {
            kv_key = "attn_config/kv_n_heads";
            if ((s = kvp__hf_u32(r, &ac, "kv_n_heads", 1, KVP_MAX_HEADS, &kv, &found))) return s;
            if (!found) {
                const char *type = NULL;
                if ((s = kvp__hf_str(r, &ac, "attn_type", &type))) return s;
                if (type && strcmp(type, "multihead_attention") != 0)
                    return kvp__hf_fail(r, &ac, "attn_type", KVP_UNSUPPORTED,
                                        "\"%s\" without kv_n_heads: the KV heads are unknown "
                                        "(expected multihead_attention, or kv_n_heads)",
                                        type);
                kv = heads;
                found = true;
            }
        }
    }
    if (!found) {
        bool mq = false, mq_found = false;
        if ((s = kvp__hf_bool(r, o, "multi_query", &mq, &mq_found))) return s;
        kv = mq ? 1 : heads;
        kv_key = "num_key_value_heads";
    }
    if (kv > heads || heads % kv != 0)
        return kvp__hf_fail(r, o, kv_key, KVP_CONFIG,
                            "%u KV heads do not divide the %u attention heads (%s)", kv, heads,
                            head_key);
    uint32_t hd = 0;
    if ((s = kvp__hf_u32(r, o, "head_dim", 1, KVP_MAX_HEAD_DIM, &hd, &found))) return s;
    if (!found && (s = kvp__hf_u32(r, o, "attention_head_dim", 1, KVP_MAX_HEAD_DIM, &hd, &found)))
        return s;
    if (!found && (s = kvp__hf_u32(r, o, "d_kv", 1, KVP_MAX_HEAD_DIM, &hd, &found))) return s;
    /* ChatGLM and Qwen (1): kv_channels is the per-head dimension. */
    if (!found && (s = kvp__hf_u32(r, o, "kv_channels", 1, KVP_MAX_HEAD_DIM, &hd, &found))) return s;
    if (!found) {
        uint64_t hidden = 0;
        bool hf = false;
        if ((s = kvp__hf_uint(r, o, "hidden_size", 1, UINT32_MAX, &hidden, &hf))) return s;
        if (!hf && (s = kvp__hf_uint(r, o, "d_model", 1, UINT32_MAX, &hidden, &hf))) return s;
        if (!hf && (s = kvp__hf_uint(r, o, "n_embd", 1, UINT32_MAX, &hidden, &hf))) return s;
        if (!hf)
            return kvp__hf_fail(r, o, "head_dim", KVP_CONFIG,
                                "missing, and no hidden_size to derive it from");
        if (hidden % heads != 0)
            return kvp__hf_fail(r, o, "hidden_size", KVP_CONFIG,
                                "%llu is not divisible by %u attention heads, so head_dim cannot "
                                "be derived",
                                (unsigned long long)hidden, heads);
        hd = (uint32_t)(hidden / heads);
        if (hd > KVP_MAX_HEAD_DIM)
            return kvp__hf_fail(r, o, "hidden_size", KVP_CONFIG, "head dim %u is absurd", hd);
    }
    uint32_t vd = hd;
    if ((s = kvp__hf_u32(r, o, "v_head_dim", 1, KVP_MAX_HEAD_DIM, &vd, &found))) return s;
    if (!found) vd = hd;
    *out_heads = heads;
    g->kv_heads = kv;
    g->k_head_dim = hd;
    g->v_head_dim = vd;
    return KVP_OK;
}

static kvp_status read_window(hf_reader *r, const hf_obj *o, const char *key, uint64_t *out,
                              bool *found) {
    return kvp__hf_uint(r, o, key, 1, k_max_window, out, found);
}

/* --------------------------------------------------------- decoder schedules */

/* Rule 1: layer_types strings. */
static kvp_status schedule_from_layer_types(layers_ctx *c, json_t *arr, const char *array_key) {
    hf_obj lt = {arr, ""};
    snprintf(lt.pointer, sizeof lt.pointer, "%s/%s", c->lm->pointer, array_key);
    bool block_types = strcmp(array_key, "layers_block_type") == 0;
    if (json_array_size(arr) != c->layers)
        return kvp__hf_fail(c->r, c->lm, array_key, KVP_CONFIG,
                            "has %zu entries, expected one per layer (%u)", json_array_size(arr),
                            c->layers);
    for (uint32_t i = 0; i < c->layers; i++) {
        json_t *v = json_array_get(arr, i);
        char key[16];
        snprintf(key, sizeof key, "%u", i);
        if (!json_is_string(v))
            return kvp__hf_fail(c->r, &lt, key, KVP_CONFIG, "expected a string, found %s",
                                kvp__json_type_name(v));
        const char *s = json_string_value(v);
        if (strcmp(s, "full_attention") == 0 || strcmp(s, "attention") == 0 ||
            strcmp(s, "global_attention") == 0)
            c->types[i] = LT_FULL;
        else if (strcmp(s, "sliding_attention") == 0 || strcmp(s, "sliding_window") == 0 ||
                 strcmp(s, "local_attention") == 0)
            c->types[i] = LT_SLIDING;
        else if (strcmp(s, "chunked_attention") == 0)
            c->types[i] = LT_CHUNKED;
        else if (strcmp(s, "linear_attention") == 0)
            c->types[i] = LT_LINEAR;
        else if (strcmp(s, "mamba") == 0 || strcmp(s, "mamba2") == 0)
            c->types[i] = LT_MAMBA;
        else if (block_types && (strcmp(s, "moe") == 0 || strcmp(s, "mlp") == 0))
            c->types[i] = LT_NONE; /* Nemotron-H blocks without a mixer keep nothing */
        else
            return kvp__hf_fail(c->r, &lt, key, KVP_UNSUPPORTED,
                                "unknown layer type \"%s\" (kvplan knows full_attention, "
                                "sliding_attention, chunked_attention, linear_attention, mamba%s)",
                                s, block_types ? ", attention, moe, mlp" : "");
    }
    return KVP_OK;
}

/* A per-layer list of 0 / 1: layer i takes `one` or `zero`; any other entry
 * is refused with `bad` and the message naming both meanings. */
static kvp_status schedule_from_binary_list(layers_ctx *c, json_t *arr, const char *key_name,
                                            layer_type one, layer_type zero, kvp_status bad,
                                            const char *expected) {
    hf_obj p = {arr, ""};
    snprintf(p.pointer, sizeof p.pointer, "%s/%s", c->lm->pointer, key_name);
    if (json_array_size(arr) != c->layers)
        return kvp__hf_fail(c->r, c->lm, key_name, KVP_CONFIG,
                            "has %zu entries, expected one per layer (%u)", json_array_size(arr),
                            c->layers);
    for (uint32_t i = 0; i < c->layers; i++) {
        json_t *v = json_array_get(arr, i);
        char key[16];
        snprintf(key, sizeof key, "%u", i);
        if (!json_is_integer(v) || (json_integer_value(v) != 0 && json_integer_value(v) != 1))
            return kvp__hf_fail(c->r, &p, key, bad, "expected %s", expected);
        c->types[i] = (uint8_t)(json_integer_value(v) ? one : zero);
    }
    return KVP_OK;
}

/* Rule 2: MiMo-V2's hybrid_layer_pattern: 1 = sliding-window layer, 0 = full. */
static kvp_status schedule_from_hybrid_pattern(layers_ctx *c, json_t *arr) {
    return schedule_from_binary_list(c, arr, "hybrid_layer_pattern", LT_SLIDING, LT_FULL,
                                     KVP_CONFIG, "0 (full) or 1 (sliding)");
}

/* Bamba-style hybrids: attention in the listed layers, Mamba everywhere else. */
static kvp_status schedule_from_attention_indices(layers_ctx *c, json_t *arr) {
    hf_obj p = {arr, ""};
    snprintf(p.pointer, sizeof p.pointer, "%s/attn_layer_indices", c->lm->pointer);
    for (uint32_t i = 0; i < c->layers; i++) c->types[i] = LT_MAMBA;
    for (size_t k = 0; k < json_array_size(arr); k++) {
        json_t *v = json_array_get(arr, k);
        char key[24];
        snprintf(key, sizeof key, "%zu", k);
        if (!json_is_integer(v) || json_integer_value(v) < 0 ||
            json_integer_value(v) >= (json_int_t)c->layers)
            return kvp__hf_fail(c->r, &p, key, KVP_CONFIG, "expected a layer index below %u",
                                c->layers);
        c->types[json_integer_value(v)] = LT_FULL;
    }
    return KVP_OK;
}

/* MiniMax attn_type_list: 1 = softmax attention (ordinary KV), 0 = lightning
 * (linear) attention (FAMILIES.md "MiniMax attn_type_list"). MiniMax-M2.x
 * lists all 1s; Text-01 / M1 mix them. */
static kvp_status schedule_from_attn_type_list(layers_ctx *c, json_t *arr) {
    return schedule_from_binary_list(c, arr, "attn_type_list", LT_FULL, LT_LIGHTNING,
                                     KVP_UNSUPPORTED,
                                     "1 (softmax attention) or 0 (lightning attention); kvplan "
                                     "knows no other MiniMax attention type");
}

/* Exaone 4: sliding_window_pattern as a string, one letter per layer repeated
 * over the stack: L = local (sliding), G = global. */
static kvp_status schedule_from_letter_pattern(layers_ctx *c, const char *pattern) {
    size_t n = strlen(pattern);
    if (n == 0)
        return kvp__hf_fail(c->r, c->lm, "sliding_window_pattern", KVP_CONFIG,
                            "expected a non-empty pattern of L and G");
    for (size_t i = 0; i < n; i++)
        if (pattern[i] != 'L' && pattern[i] != 'G')
            return kvp__hf_fail(c->r, c->lm, "sliding_window_pattern", KVP_UNSUPPORTED,
                                "unknown letter '%c' at %zu (expected L for local, G for global)",
                                pattern[i], i);
    for (uint32_t i = 0; i < c->layers; i++)
        c->types[i] = pattern[i % n] == 'L' ? LT_SLIDING : LT_FULL;
    return KVP_OK;
}

/* Rule 4: Llama 4 — RoPE layers use chunked local attention, NoPE layers
 * (no_rope_layers[i] == 0; by default every 4th) attend globally. */
static kvp_status schedule_llama4(layers_ctx *c) {
    json_t *arr;
    kvp_status s = kvp__hf_array(c->r, c->lm, "no_rope_layers", &arr);
    if (s) return s;
    if (arr && json_array_size(arr) > 0) {
        hf_obj p = {arr, ""};
        snprintf(p.pointer, sizeof p.pointer, "%s/no_rope_layers", c->lm->pointer);
        if (json_array_size(arr) != c->layers)
            return kvp__hf_fail(c->r, c->lm, "no_rope_layers", KVP_CONFIG,
                                "has %zu entries, expected one per layer (%u)",
                                json_array_size(arr), c->layers);
        for (uint32_t i = 0; i < c->layers; i++) {
            json_t *v = json_array_get(arr, i);
            char key[16];
            snprintf(key, sizeof key, "%u", i);
            if (!json_is_integer(v) && !json_is_boolean(v))
                return kvp__hf_fail(c->r, &p, key, KVP_CONFIG, "expected 0 or 1, found %s",
                                    kvp__json_type_name(v));
            bool rope = json_is_integer(v) ? json_integer_value(v) != 0 : json_is_true(v);
            c->types[i] = rope ? LT_CHUNKED : LT_FULL;
        }
        return KVP_OK;
    }
    uint32_t interval = 4;
    bool found;
    if ((s = kvp__hf_u32(c->r, c->lm, "no_rope_layer_interval", 1, KVP_MAX_LAYERS, &interval,
                         &found)))
        return s;
    for (uint32_t i = 0; i < c->layers; i++)
        c->types[i] = ((i + 1) % interval) != 0 ? LT_CHUNKED : LT_FULL;
    return KVP_OK;
}

static bool model_type_is(const kvp_model_info *info, const char *const *names, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(info->model_type, names[i]) == 0) return true;
    return false;
}

/* Model types whose config class defaults use_sliding_window to false and
 * drops sliding_window when it is off (transformers Qwen2Config, Qwen3Config
 * and their MoE / VL text variants). */
static const char *const k_qwen_swa_types[] = {
    "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "qwen2_vl_text", "qwen2_5_vl_text",
    "qwen3_vl_text", "qwen3_vl_moe_text"};

/* MiniMax model types whose linear_attention layers are lightning attention. */
static const char *const k_minimax_types[] = {"minimax", "minimax_text_01", "minimax_m1"};

/* Decide each layer's type for a decoder-only config. */
static kvp_status decoder_schedule(layers_ctx *c, bool *uses_window, bool *uses_chunk) {
    hf_reader *r = c->r;
    const hf_obj *lm = c->lm;
    kvp_status s;
    json_t *arr;
    *uses_window = false;
    *uses_chunk = false;
    for (uint32_t i = 0; i < c->layers; i++) c->types[i] = LT_FULL;

    /* Qwen2/Qwen3 config classes: sliding_window = sliding_window if
     * use_sliding_window else None, and use_sliding_window defaults to false.
     * Without it no layer slides, whatever layer_types or sliding_window say. */
    bool qwen_swa_off = false;
    if (model_type_is(c->info, k_qwen_swa_types, sizeof k_qwen_swa_types / sizeof *k_qwen_swa_types)) {
        bool use = false;
        if ((s = kvp__hf_bool(r, lm, "use_sliding_window", &use, NULL))) return s;
        qwen_swa_off = !use;
    }
    if ((s = kvp__hf_array(r, lm, "attn_type_list", &arr))) return s;
    if (arr) {
        if ((s = schedule_from_attn_type_list(c, arr))) return s;
        /* transformers' MiniMaxConfig also writes layer_types: it must agree. */
        json_t *lt;
        if ((s = kvp__hf_array(r, lm, "layer_types", &lt))) return s;
        if (lt) {
            hf_obj p = {lt, ""};
            snprintf(p.pointer, sizeof p.pointer, "%s/layer_types", lm->pointer);
            if (json_array_size(lt) != c->layers)
                return kvp__hf_fail(r, lm, "layer_types", KVP_CONFIG,
                                    "has %zu entries, expected one per layer (%u)",
                                    json_array_size(lt), c->layers);
            for (uint32_t i = 0; i < c->layers; i++) {
                json_t *v = json_array_get(lt, i);
                const char *want = c->types[i] == LT_FULL ? "full_attention" : "linear_attention";
                char key[16];
                snprintf(key, sizeof key, "%u", i);
                if (!json_is_string(v) || strcmp(json_string_value(v), want) != 0)
                    return kvp__hf_fail(r, &p, key, KVP_CONFIG,
                                        "contradicts attn_type_list[%u] = %d (expected \"%s\")",
                                        i, c->types[i] == LT_FULL ? 1 : 0, want);
            }
        }
        return KVP_OK;
    }
    if ((s = kvp__hf_array(r, lm, "layer_types", &arr))) return s;
    if (arr) {
        if ((s = schedule_from_layer_types(c, arr, "layer_types"))) return s;
        /* MiniMax (transformers MiniMaxConfig): linear_attention is lightning. */
        if (model_type_is(c->info, k_minimax_types,
                          sizeof k_minimax_types / sizeof *k_minimax_types))
            for (uint32_t i = 0; i < c->layers; i++)
                if (c->types[i] == LT_LINEAR) c->types[i] = LT_LIGHTNING;
        if (qwen_swa_off)
            for (uint32_t i = 0; i < c->layers; i++)
                if (c->types[i] == LT_SLIDING) c->types[i] = LT_FULL;
        return KVP_OK;
    }
    if ((s = kvp__hf_array(r, lm, "hybrid_layer_pattern", &arr))) return s;
    if (arr) return schedule_from_hybrid_pattern(c, arr);
    if ((s = kvp__hf_array(r, lm, "layers_block_type", &arr))) return s;
    if (arr) return schedule_from_layer_types(c, arr, "layers_block_type");
    if ((s = kvp__hf_array(r, lm, "attn_layer_indices", &arr))) return s;
    if (arr) return schedule_from_attention_indices(c, arr);

    bool found;
    uint32_t interval;
    if ((s = kvp__hf_u32(r, lm, "full_attention_interval", 1, KVP_MAX_LAYERS, &interval, &found)))
        return s;
    if (found) {
        /* Qwen3-Next: layer i is full attention when (i + 1) % interval == 0. */
        for (uint32_t i = 0; i < c->layers; i++)
            c->types[i] = ((i + 1) % interval == 0) ? LT_FULL : LT_LINEAR;
        return KVP_OK;
    }
    static const char *const llama4[] = {"llama4", "llama4_text"};
    if (kvp__hf_has(lm, "attention_chunk_size")) {
        if (!model_type_is(c->info, llama4, 2))
            return kvp__hf_fail(r, lm, "attention_chunk_size", KVP_UNSUPPORTED,
                                "chunked attention is understood for Llama 4 (model_type "
                                "llama4_text) only, found model_type \"%s\"; refusing to guess "
                                "which layers are chunked",
                                c->info->model_type);
        *uses_chunk = true;
        return schedule_llama4(c);
    }

    /* Sliding-window rules need a window. */
    bool use_swa = true, use_found = false;
    if ((s = kvp__hf_bool(r, lm, "use_sliding_window", &use_swa, &use_found))) return s;
    bool has_window = kvp__hf_has(lm, "sliding_window");
    static const char *const gemma3[] = {"gemma3", "gemma3_text"};
    static const char *const gemma2[] = {"gemma2"};
    uint32_t pattern = 0;
    if (json_is_string(json_object_get(lm->json, "sliding_window_pattern"))) {
        *uses_window = true;
        return schedule_from_letter_pattern(
            c, json_string_value(json_object_get(lm->json, "sliding_window_pattern")));
    }
    if ((s = kvp__hf_u32(r, lm, "sliding_window_pattern", 1, KVP_MAX_LAYERS, &pattern, &found)))
        return s;
    if (!found && model_type_is(c->info, gemma3, 2)) pattern = 6; /* Gemma3TextConfig default */
    if (pattern) {
        /* Gemma 3: every pattern-th layer is global, the others slide. */
        *uses_window = true;
        for (uint32_t i = 0; i < c->layers; i++)
            c->types[i] = ((i + 1) % pattern) != 0 ? LT_SLIDING : LT_FULL;
        return KVP_OK;
    }
    if (model_type_is(c->info, gemma2, 1)) {
        /* Gemma 2 alternates: even layers slide, odd layers are global. */
        *uses_window = true;
        for (uint32_t i = 0; i < c->layers; i++) c->types[i] = (i % 2 == 0) ? LT_SLIDING : LT_FULL;
        return KVP_OK;
    }
    if (!has_window || (use_found && !use_swa) || qwen_swa_off) return KVP_OK; /* full everywhere */
    *uses_window = true;
    uint32_t max_window_layers = 0;
    if (use_found && (s = kvp__hf_u32(r, lm, "max_window_layers", 0, KVP_MAX_LAYERS,
                                      &max_window_layers, &found)))
        return s;
    if (use_found && found) {
        /* Qwen2 with use_sliding_window: layers from max_window_layers on slide. */
        for (uint32_t i = 0; i < c->layers; i++)
            c->types[i] = i >= max_window_layers ? LT_SLIDING : LT_FULL;
        return KVP_OK;
    }
    for (uint32_t i = 0; i < c->layers; i++) c->types[i] = LT_SLIDING;
    return KVP_OK;
}

/* Gated-delta-net state geometry from the linear_* keys (Qwen3-Next, Qwen3.5). */
static kvp_status read_gdn(layers_ctx *c, kvp_recurrent_geometry *g) {
    hf_reader *r = c->r;
    const hf_obj *lm = c->lm;
    kvp_status s;
    memset(g, 0, sizeof *g);
    if ((s = kvp__hf_u32(r, lm, "linear_num_value_heads", 1, KVP_MAX_HEADS, &g->heads, NULL)) ||
        (s = kvp__hf_u32(r, lm, "linear_value_head_dim", 1, KVP_MAX_HEAD_DIM, &g->head_dim, NULL)) ||
        (s = kvp__hf_u32(r, lm, "linear_num_key_heads", 1, KVP_MAX_HEADS, &g->groups, NULL)) ||
        (s = kvp__hf_u32(r, lm, "linear_key_head_dim", 1, KVP_MAX_HEAD_DIM, &g->state_dim, NULL)) ||
        (s = kvp__hf_u32(r, lm, "linear_conv_kernel_dim", 1, 1024, &g->conv_kernel, NULL)))
        return s;
    if (g->heads % g->groups != 0)
        return kvp__hf_fail(r, lm, "linear_num_value_heads", KVP_CONFIG,
                            "%u value heads are not a multiple of the %u key heads", g->heads,
                            g->groups);
    g->group_dim = g->state_dim;
    return read_ssm_dtype_key(r, lm, &g->ssm_dtype, &g->ssm_dtype_is_checkpoint_hint);
}

/* Mamba2 state geometry; key names differ by family, listed in order tried. */
typedef struct mamba_keys {
    const char *heads, *head_dim, *d_state, *n_groups, *conv, *d_inner;
} mamba_keys;

static kvp_status read_mamba2(layers_ctx *c, const hf_obj *o, const mamba_keys *const *variants,
                              size_t nvar, kvp_recurrent_geometry *g) {
    hf_reader *r = c->r;
    kvp_status s;
    memset(g, 0, sizeof *g);
    const mamba_keys *k = variants[0];
    for (size_t i = 0; i < nvar; i++)
        if (kvp__hf_has(o, variants[i]->heads)) {
            k = variants[i];
            break;
        }
    if ((s = kvp__hf_u32(r, o, k->heads, 1, KVP_MAX_HEADS * 4u, &g->heads, NULL)) ||
        (s = kvp__hf_u32(r, o, k->head_dim, 1, KVP_MAX_HEAD_DIM, &g->head_dim, NULL)) ||
        (s = kvp__hf_u32(r, o, k->d_state, 1, KVP_MAX_HEAD_DIM, &g->state_dim, NULL)) ||
        (s = kvp__hf_u32(r, o, k->n_groups, 1, KVP_MAX_HEADS, &g->groups, NULL)) ||
        (s = kvp__hf_u32(r, o, k->conv, 1, 1024, &g->conv_kernel, NULL)))
        return s;
    g->group_dim = g->state_dim;
    if (g->heads % g->groups != 0)
        return kvp__hf_fail(r, o, k->n_groups, KVP_CONFIG,
                            "%u groups do not divide the %u Mamba heads", g->groups, g->heads);
    if (k->d_inner) {
        uint64_t d_inner;
        bool found;
        if ((s = kvp__hf_uint(r, o, k->d_inner, 1, UINT32_MAX, &d_inner, &found))) return s;
        if (found && d_inner != (uint64_t)g->heads * g->head_dim)
            return kvp__hf_fail(r, o, k->d_inner, KVP_CONFIG,
                                "%llu does not equal %s x %s = %u x %u", (unsigned long long)d_inner,
                                k->heads, k->head_dim, g->heads, g->head_dim);
    }
    return read_ssm_dtype_key(r, o, &g->ssm_dtype, &g->ssm_dtype_is_checkpoint_hint);
}

static const mamba_keys k_nemotron_h_keys = {"mamba_num_heads", "mamba_head_dim", "ssm_state_size",
                                             "n_groups", "conv_kernel", NULL};
static const mamba_keys k_falcon_keys = {"mamba_n_heads", "mamba_d_head", "mamba_d_state",
                                         "mamba_n_groups", "mamba_d_conv", "mamba_d_ssm"};

/* Mamba-1 (Jamba): d_inner = expand * hidden channels, each its own "head"
 * of width 1 with d_state states; no groups. */
static kvp_status read_mamba1(layers_ctx *c, kvp_recurrent_geometry *g) {
    hf_reader *r = c->r;
    const hf_obj *lm = c->lm;
    memset(g, 0, sizeof *g);
    uint32_t expand = 2, d_state = 16, d_conv = 4;
    uint64_t hidden;
    bool found;
    kvp_status s;
    if ((s = kvp__hf_u32(r, lm, "mamba_expand", 1, 64, &expand, &found)) ||
        (s = kvp__hf_u32(r, lm, "mamba_d_state", 1, KVP_MAX_HEAD_DIM, &d_state, NULL)) ||
        (s = kvp__hf_u32(r, lm, "mamba_d_conv", 1, 1024, &d_conv, NULL)) ||
        (s = kvp__hf_uint(r, lm, "hidden_size", 1, UINT32_MAX, &hidden, NULL)))
        return s;
    uint64_t d_inner = hidden * expand;
    if (d_inner > KVP_MAX_HEADS * 64ull)
        return kvp__hf_fail(r, lm, "mamba_expand", KVP_CONFIG, "d_inner %llu is absurd",
                            (unsigned long long)d_inner);
    g->heads = (uint32_t)d_inner;
    g->head_dim = 1;
    g->state_dim = d_state;
    g->conv_kernel = d_conv;
    return read_ssm_dtype_key(r, lm, &g->ssm_dtype, &g->ssm_dtype_is_checkpoint_hint);
}

/* ----------------------------------------------------------- decoder-only */

/* Per-layer attention geometry where families vary it: Gemma 4 (global layers
 * use global_head_dim and, with attention_k_eq_v, num_global_key_value_heads),
 * MiMo-V2 (swa_* keys for sliding layers). */
typedef struct layer_geometries {
    attn_geometry full, sliding;
} layer_geometries;

static kvp_status read_layer_geometries(layers_ctx *c, const attn_geometry *base,
                                        layer_geometries *lg) {
    hf_reader *r = c->r;
    const hf_obj *lm = c->lm;
    kvp_status s;
    bool found;
    lg->full = *base;
    lg->sliding = *base;
    uint32_t v;
    if ((s = kvp__hf_u32(r, lm, "global_head_dim", 1, KVP_MAX_HEAD_DIM, &v, &found))) return s;
    if (found) {
        /* Gemma 4: the seed's per-layer head_dim / kv-heads lists. */
        lg->full.k_head_dim = lg->full.v_head_dim = v;
        bool k_eq_v = false;
        if ((s = kvp__hf_bool(r, lm, "attention_k_eq_v", &k_eq_v, NULL))) return s;
        if (k_eq_v) {
            uint32_t gkv;
            if ((s = kvp__hf_u32(r, lm, "num_global_key_value_heads", 1, KVP_MAX_HEADS, &gkv,
                                 &found)))
                return s;
            if (found) lg->full.kv_heads = gkv;
        }
    }
    if ((s = kvp__hf_u32(r, lm, "swa_num_key_value_heads", 1, KVP_MAX_HEADS, &v, &found))) return s;
    if (found) lg->sliding.kv_heads = v;
    if ((s = kvp__hf_u32(r, lm, "swa_head_dim", 1, KVP_MAX_HEAD_DIM, &v, &found))) return s;
    if (found) lg->sliding.k_head_dim = lg->sliding.v_head_dim = v;
    if ((s = kvp__hf_u32(r, lm, "swa_v_head_dim", 1, KVP_MAX_HEAD_DIM, &v, &found))) return s;
    if (found) lg->sliding.v_head_dim = v;
    return KVP_OK;
}

/* Which MLA layers compute their own DSA top-k and so keep indexer keys
 * (FAMILIES.md "GLM-5.x DSA"; vLLM's rule): layer i reuses another layer's
 * top-k when max(i - index_skip_topk_offset + 1, 0) % index_topk_freq != 0 or
 * index_topk_pattern[i] is 'S'; indexer_types ("full" / "shared") states the
 * same split and must agree when both are given. c->types[i] is LT_FULL for
 * a layer with its own indexer, LT_NONE for one that reuses. */
static kvp_status indexer_schedule(layers_ctx *c) {
    hf_reader *r = c->r;
    const hf_obj *lm = c->lm;
    kvp_status s;
    uint32_t freq = 1, offset = 0;
    bool freq_found = false, off_found = false;
    if ((s = kvp__hf_u32(r, lm, "index_topk_freq", 1, KVP_MAX_LAYERS, &freq, &freq_found)) ||
        (s = kvp__hf_u32(r, lm, "index_skip_topk_offset", 0, KVP_MAX_LAYERS, &offset, &off_found)))
        return s;
    for (uint32_t i = 0; i < c->layers; i++) {
        uint64_t k = (uint64_t)i + 1u >= offset ? (uint64_t)i + 1u - offset : 0u;
        c->types[i] = k % freq == 0 ? LT_FULL : LT_NONE;
    }
    json_t *pat = json_object_get(lm->json, "index_topk_pattern");
    bool have_pattern = pat && !json_is_null(pat);
    if (have_pattern) {
        /* A string of F / S letters, or a list of one-letter strings. */
        size_t n = json_is_string(pat) ? strlen(json_string_value(pat))
                   : json_is_array(pat) ? json_array_size(pat) : SIZE_MAX;
        if (n != c->layers)
            return kvp__hf_fail(r, lm, "index_topk_pattern", KVP_CONFIG,
                                "expected one F (own top-k) or S (shared) per layer (%u)%s",
                                c->layers, n == SIZE_MAX ? ", as a string or a list" : "");
        for (uint32_t i = 0; i < c->layers; i++) {
            const char *e = json_is_string(pat) ? json_string_value(pat) + i
                            : json_is_string(json_array_get(pat, i))
                                ? json_string_value(json_array_get(pat, i)) : NULL;
            char ch = e ? e[0] : '\0';
            if (json_is_array(pat) && e && e[0] && e[1]) ch = '?';
            if (ch != 'F' && ch != 'S') {
                hf_obj p = {pat, ""};
                char key[24];
                snprintf(p.pointer, sizeof p.pointer, "%s/index_topk_pattern", lm->pointer);
                snprintf(key, sizeof key, "%u", i);
                return kvp__hf_fail(r, json_is_array(pat) ? &p : lm,
                                    json_is_array(pat) ? key : "index_topk_pattern", KVP_CONFIG,
                                    "layer %u: expected F (own top-k) or S (shared)", i);
            }
            if (ch == 'S') c->types[i] = LT_NONE;
        }
    }
    json_t *types;
    if ((s = kvp__hf_array(r, lm, "indexer_types", &types))) return s;
    if (!types) return KVP_OK;
    hf_obj p = {types, ""};
    snprintf(p.pointer, sizeof p.pointer, "%s/indexer_types", lm->pointer);
    if (json_array_size(types) != c->layers)
        return kvp__hf_fail(r, lm, "indexer_types", KVP_CONFIG,
                            "has %zu entries, expected one per layer (%u)", json_array_size(types),
                            c->layers);
    bool stated = freq_found || off_found || have_pattern;
    for (uint32_t i = 0; i < c->layers; i++) {
        json_t *v = json_array_get(types, i);
        char key[16];
        snprintf(key, sizeof key, "%u", i);
        const char *t = json_is_string(v) ? json_string_value(v) : "";
        bool own = strcmp(t, "full") == 0;
        if (!own && strcmp(t, "shared") != 0)
            return kvp__hf_fail(r, &p, key, KVP_UNSUPPORTED,
                                "expected \"full\" (own indexer) or \"shared\" (reuses another "
                                "layer's top-k); kvplan knows no other indexer type");
        if (stated && own != (c->types[i] == LT_FULL))
            return kvp__hf_fail(r, &p, key, KVP_CONFIG,
                                "\"%s\" contradicts index_topk_freq / index_skip_topk_offset / "
                                "index_topk_pattern, which give layer %u %s indexer",
                                t, i, c->types[i] == LT_FULL ? "its own" : "no");
        c->types[i] = own ? LT_FULL : LT_NONE;
    }
    return KVP_OK;
}

/* MLA: one K-only latent row of kv_lora_rank + qk_rope_head_dim per layer,
 * replicated on every TP rank; plus the sparse-attention indexer's fp8 keys
 * (index_head_dim bytes and a 4-byte scale per 128 values) when declared. */
/* kda: NULL for an all-MLA model, else the Kimi KDA state of the layers that
 * are not MLA (kda_mark[i] != 0). */
static kvp_status read_mla(layers_ctx *c, const uint8_t *kda_mark,
                           const kvp_recurrent_geometry *kda) {
    hf_reader *r = c->r;
    const hf_obj *lm = c->lm;
    kvp_model_info *info = c->info;
    kvp_status s;
    bool found;
    if ((s = kvp__hf_u32(r, lm, "kv_lora_rank", 1, KVP_MAX_HEAD_DIM, &info->kv_lora_rank, NULL)) ||
        (s = kvp__hf_u32(r, lm, "qk_rope_head_dim", 0, KVP_MAX_HEAD_DIM, &info->qk_rope_head_dim,
                         NULL)))
        return s;
    if ((s = kvp__hf_u32(r, lm, "qk_nope_head_dim", 0, KVP_MAX_HEAD_DIM, &info->qk_nope_head_dim,
                         &found)))
        return s;
    if ((s = kvp__hf_u32(r, lm, "v_head_dim", 1, KVP_MAX_HEAD_DIM, &info->v_head_dim, &found)))
        return s;
    if ((s = kvp__hf_u32(r, lm, "q_lora_rank", 1, KVP_MAX_HEAD_DIM, &info->q_lora_rank, &found)))
        return s;
    uint32_t heads = 0;
    if ((s = kvp__hf_u32(r, lm, "num_attention_heads", 1, KVP_MAX_HEADS, &heads, NULL))) return s;
    info->num_attention_heads = heads;
    info->num_kv_heads = 1;
    info->head_dim = info->kv_lora_rank + info->qk_rope_head_dim;
    info->is_mla = true;
    uint32_t index_dim = 0;
    if ((s = kvp__hf_u32(r, lm, "index_head_dim", 1, KVP_MAX_HEAD_DIM, &index_dim, &found)))
        return s;
    if (index_dim && kda)
        return kvp__hf_fail(r, lm, "index_head_dim", KVP_UNSUPPORTED,
                            "a DSA indexer beside KDA layers: not understood by kvplan, refusing "
                            "to guess their cache");
    if (index_dim && (s = indexer_schedule(c))) return s;
    for (uint32_t i = 0; i < c->layers; i++) {
        if (kda && kda_mark[i]) {
            if ((s = add_recurrent(c, i, kda))) return s;
            continue;
        }
        kvp_layer_cache lc;
        memset(&lc, 0, sizeof lc);
        lc.layer = i;
        lc.kind = KVP_CACHE_MLA;
        lc.kv_heads = 1;
        lc.k_head_dim = info->kv_lora_rank + info->qk_rope_head_dim;
        lc.replicated = true;
        if ((s = add_cache(c, &lc))) return s;
        if (index_dim && c->types[i] == LT_FULL) {
            lc = kvp__indexer_cache(i, index_dim);
            if ((s = add_cache(c, &lc))) return s;
        }
    }
    return KVP_OK;
}

/* One 1-indexed layer list of linear_attn_config into mark[] (value `tag`). */
static kvp_status kimi_layer_list(layers_ctx *c, const hf_obj *la, const char *key, uint8_t tag,
                                  uint8_t *mark) {
    json_t *arr;
    kvp_status s = kvp__hf_array(c->r, la, key, &arr);
    if (s) return s;
    if (!arr)
        return kvp__hf_fail(c->r, la, key, KVP_CONFIG,
                            "missing, expected the 1-indexed list of %s layers",
                            tag == 1 ? "KDA" : "full-attention (MLA)");
    hf_obj p = {arr, ""};
    snprintf(p.pointer, sizeof p.pointer, "%s/%s", la->pointer, key);
    for (size_t k = 0; k < json_array_size(arr); k++) {
        json_t *v = json_array_get(arr, k);
        char ks[24];
        snprintf(ks, sizeof ks, "%zu", k);
        if (!json_is_integer(v) || json_integer_value(v) < 1 ||
            json_integer_value(v) > (json_int_t)c->layers)
            return kvp__hf_fail(c->r, &p, ks, KVP_CONFIG,
                                "expected a 1-indexed layer number from 1 to %u", c->layers);
        uint32_t i = (uint32_t)json_integer_value(v) - 1u;
        if (mark[i])
            return kvp__hf_fail(c->r, &p, ks, KVP_CONFIG,
                                "layer %u (1-indexed) is listed twice (in kda_layers and "
                                "full_attn_layers, or twice in one)",
                                i + 1u);
        mark[i] = tag;
    }
    return KVP_OK;
}

/* Kimi linear attention (Kimi-Linear, Kimi-K3; FAMILIES.md "Kimi linear
 * attention"): linear_attn_config.kda_layers and .full_attn_layers list the
 * layers 1-indexed and together cover every layer once. A KDA layer keeps per
 * sequence a conv state of 3 x num_heads x head_dim channels over
 * short_conv_kernel_size - 1 positions (in the model dtype) and a recurrent
 * state of num_heads x head_dim x head_dim in fp32 (forced by vLLM; SGLang's
 * default); the full-attention layers are MLA. As a recurrent geometry: heads
 * and groups = num_heads, head_dim = state_dim = group_dim = head_dim, so
 * conv = (k - 1)(H D + 2 H D) and SSM = H D D, both sharded by TP. */
static kvp_status read_kimi_kda(layers_ctx *c) {
    hf_reader *r = c->r;
    kvp_status s;
    static const char *const kimi[] = {"kimi_linear", "kimi_k3"};
    if (!model_type_is(c->info, kimi, 2))
        return kvp__hf_fail(r, c->lm, "linear_attn_config", KVP_UNSUPPORTED,
                            "Kimi linear attention (KDA) is understood for model_type kimi_linear "
                            "and kimi_k3, found \"%s\"; refusing to guess their cache",
                            c->info->model_type);
    hf_obj la;
    if ((s = kvp__hf_child(r, c->lm, "linear_attn_config", &la))) return s;
    kvp_recurrent_geometry g;
    memset(&g, 0, sizeof g);
    if ((s = kvp__hf_u32(r, &la, "num_heads", 1, KVP_MAX_HEADS, &g.heads, NULL)) ||
        (s = kvp__hf_u32(r, &la, "head_dim", 1, KVP_MAX_HEAD_DIM, &g.head_dim, NULL)) ||
        (s = kvp__hf_u32(r, &la, "short_conv_kernel_size", 1, 1024, &g.conv_kernel, NULL)))
        return s;
    g.state_dim = g.head_dim;
    g.groups = g.heads;
    g.group_dim = g.head_dim;
    g.ssm_dtype = KVP_DTYPE_FP32;
    uint8_t *mark = kvp__calloc(kvp__model_alc(c->model), c->layers, 1);
    if (!mark) return kvp__fail(r->err, KVP_NOMEM, r->file, NULL, "out of memory");
    s = kimi_layer_list(c, &la, "kda_layers", 1, mark);
    if (!s) s = kimi_layer_list(c, &la, "full_attn_layers", 2, mark);
    for (uint32_t i = 0; i < c->layers && !s; i++)
        if (!mark[i])
            s = kvp__hf_fail(r, &la, "full_attn_layers", KVP_CONFIG,
                             "layer %u (1-indexed) is in neither kda_layers nor full_attn_layers",
                             i + 1u);
    bool any_kda = false, any_mla = false;
    for (uint32_t i = 0; i < c->layers; i++) {
        any_kda |= mark[i] == 1;
        any_mla |= mark[i] == 2;
    }
    for (uint32_t i = 0; i < c->layers; i++) mark[i] = mark[i] == 1;
    if (!s) s = read_mla(c, mark, &g);
    kvp__free(kvp__model_alc(c->model), mark);
    c->info->is_hybrid_recurrent = any_kda && any_mla;
    return s;
}

/* MiniMax-M3 sparse attention (FAMILIES.md "MiniMax-M3"): every layer keeps
 * its GQA K and V; a layer with sparse_attention_config.sparse_attention_freq[i]
 * != 0 also keeps index keys: one head of sparse_index_dim per token,
 * replicated over TP, in bf16 whatever the KV dtype (vLLM's and TensorRT-LLM's
 * indexer dtype). sparse_disable_index_value must be 1: an index-value cache
 * is not modelled. */
static kvp_status read_minimax_sparse(layers_ctx *c) {
    hf_reader *r = c->r;
    kvp_status s;
    hf_obj sc;
    if ((s = kvp__hf_child(r, c->lm, "sparse_attention_config", &sc))) return s;
    if (!sc.json) return KVP_OK;
    bool use = true, found = false;
    if ((s = kvp__hf_bool(r, c->lm, "use_sparse_attention", &use, &found))) return s;
    if (found && !use) return KVP_OK;
    uint32_t dim = 0, no_value = 0;
    if ((s = kvp__hf_u32(r, &sc, "sparse_index_dim", 1, KVP_MAX_HEAD_DIM, &dim, NULL)) ||
        (s = kvp__hf_u32(r, &sc, "sparse_disable_index_value", 0, 1, &no_value, NULL)))
        return s;
    if (!no_value)
        return kvp__hf_fail(r, &sc, "sparse_disable_index_value", KVP_UNSUPPORTED,
                            "0 means an index-value cache, which kvplan does not model; refusing "
                            "to guess its size (expected 1)");
    json_t *freq;
    if ((s = kvp__hf_array(r, &sc, "sparse_attention_freq", &freq))) return s;
    if (!freq)
        return kvp__hf_fail(r, &sc, "sparse_attention_freq", KVP_CONFIG,
                            "missing, expected one entry per layer (0 = dense layer)");
    if (json_array_size(freq) != c->layers)
        return kvp__hf_fail(r, &sc, "sparse_attention_freq", KVP_CONFIG,
                            "has %zu entries, expected one per layer (%u)", json_array_size(freq),
                            c->layers);
    hf_obj p = {freq, ""};
    snprintf(p.pointer, sizeof p.pointer, "%s/sparse_attention_freq", sc.pointer);
    for (uint32_t i = 0; i < c->layers; i++) {
        json_t *v = json_array_get(freq, i);
        char key[16];
        snprintf(key, sizeof key, "%u", i);
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return kvp__hf_fail(r, &p, key, KVP_CONFIG,
                                "expected a non-negative integer (0 = no index keys)");
        if (json_integer_value(v) == 0) continue;
        kvp_layer_cache lc;
        memset(&lc, 0, sizeof lc);
        lc.layer = i;
        lc.kind = KVP_CACHE_INDEXER;
        lc.kv_heads = 1;
        lc.k_head_dim = dim;
        lc.replicated = true;
        lc.dtype = KVP_DTYPE_BF16;
        if ((s = add_cache(c, &lc))) return s;
    }
    return KVP_OK;
}

/* DeepSeek-V4 (FAMILIES.md "DeepSeek-V4"): one KV vector per token shared by
 * every head, all caches replicated over TP. Every layer keeps a sliding window
 * of sliding_window tokens of head_dim values; a layer with compress_ratios[i]
 * = r > 1 also keeps one compressed head_dim entry per r tokens and an fp32
 * compressor state per sequence of 2 x coff x head_dim floats over coff x r
 * slots (coff 2 at r = 4, 1 at r = 128); r = 4 layers (CSA) add indexer keys
 * per compressed entry (fp8 index_head_dim + fp32 scale) and an indexer
 * compressor state of 2 x 2 x index_head_dim floats over 8 slots.
 * compress_ratios has one entry per layer, optionally followed by the MTP
 * layers' entries (num_nextn_predict_layers), which are not decoder layers. */
static kvp_status read_deepseek_v4(layers_ctx *c) {
    hf_reader *r = c->r;
    const hf_obj *lm = c->lm;
    kvp_status s;
    json_t *ratios;
    if ((s = kvp__hf_array(r, lm, "compress_ratios", &ratios))) return s;
    uint32_t mtp = 0, head_dim = 0, heads = 0, index_dim = 0, rope = 0;
    uint64_t window = 0;
    bool found, have_rope;
    if ((s = kvp__hf_u32(r, lm, "num_nextn_predict_layers", 0, KVP_MAX_LAYERS, &mtp, &found)) ||
        (s = kvp__hf_u32(r, lm, "head_dim", 1, KVP_MAX_HEAD_DIM, &head_dim, NULL)) ||
        (s = kvp__hf_u32(r, lm, "qk_rope_head_dim", 0, KVP_MAX_HEAD_DIM, &rope, &have_rope)) ||
        (s = kvp__hf_u32(r, lm, "num_attention_heads", 1, KVP_MAX_HEADS, &heads, NULL)) ||
        (s = read_window(r, lm, "sliding_window", &window, NULL)))
        return s;
    /* The rope part is inside head_dim (the engines' packed entry splits it off). */
    if (have_rope && rope >= head_dim)
        return kvp__hf_fail(r, lm, "qk_rope_head_dim", KVP_CONFIG,
                            "%u rope dims, expected fewer than head_dim (%u)", rope, head_dim);
    if (!ratios)
        return kvp__hf_fail(r, lm, "compress_ratios", KVP_CONFIG,
                            "expected a list with one compression ratio per layer");
    size_t n = json_array_size(ratios);
    if (n != c->layers && n != (size_t)c->layers + mtp)
        return kvp__hf_fail(r, lm, "compress_ratios", KVP_CONFIG,
                            "has %zu entries, expected one per layer (%u) or per layer and MTP "
                            "layer (%u + %u)",
                            n, c->layers, c->layers, mtp);
    hf_obj p = {ratios, ""};
    snprintf(p.pointer, sizeof p.pointer, "%s/compress_ratios", lm->pointer);
    bool any_csa = false;
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_array_get(ratios, i);
        char key[24];
        snprintf(key, sizeof key, "%zu", i);
        json_int_t x = json_is_integer(v) ? json_integer_value(v) : -1;
        if (x < 0)
            return kvp__hf_fail(r, &p, key, KVP_CONFIG,
                                "expected a compression ratio: a positive integer (0 means 1)");
        if (x > 1 && x != 4 && x != 128)
            return kvp__hf_fail(r, &p, key, KVP_UNSUPPORTED,
                                "ratio %lld: kvplan knows the DeepSeek-V4 compressors of ratio 4 "
                                "and 128 only (their state windows differ); refusing to guess",
                                (long long)x);
        any_csa |= x == 4 && i < c->layers;
    }
    if (any_csa &&
        (s = kvp__hf_u32(r, lm, "index_head_dim", 1, KVP_MAX_HEAD_DIM, &index_dim, NULL)))
        return s;
    c->info->num_attention_heads = heads;
    c->info->num_kv_heads = 1;
    c->info->head_dim = head_dim;
    c->info->qk_rope_head_dim = rope;
    c->info->sliding_window = (uint32_t)window;
    for (uint32_t i = 0; i < c->layers; i++) {
        uint32_t ratio = (uint32_t)json_integer_value(json_array_get(ratios, i));
        kvp_layer_cache lc;
        memset(&lc, 0, sizeof lc);
        lc.layer = i;
        lc.kind = KVP_CACHE_SLIDING;
        lc.kv_heads = 1;
        lc.k_head_dim = head_dim;
        lc.replicated = true;
        lc.window_tokens = window;
        if ((s = add_cache(c, &lc))) return s;
        if (ratio <= 1) continue;
        lc.kind = KVP_CACHE_COMPRESSED;
        lc.window_tokens = 0;
        lc.tokens_per_entry = ratio;
        if ((s = add_cache(c, &lc))) return s;
        uint64_t coff = ratio == 4 ? 2 : 1;
        uint64_t floats = 2 * coff * head_dim * coff * ratio; /* < 2^36: head_dim < 2^17 */
        if (ratio == 4) {
            kvp_layer_cache ix = kvp__indexer_cache(i, index_dim);
            ix.tokens_per_entry = 4;
            if ((s = add_cache(c, &ix))) return s;
            floats += 2u * 2u * (uint64_t)index_dim * 8u;
        }
        kvp_layer_cache st;
        memset(&st, 0, sizeof st);
        st.layer = i;
        st.kind = KVP_CACHE_RECURRENT;
        st.replicated = true;
        st.kv_heads = 1;
        st.recurrent.heads = 1;
        st.recurrent.head_dim = 1;
        st.recurrent.state_dim = (uint32_t)floats;
        st.recurrent.ssm_dtype = KVP_DTYPE_FP32; /* forced fp32 in every engine */
        if ((s = add_cache(c, &st))) return s;
    }
    return KVP_OK;
}

/* Whether the config uses multi-head latent attention: kv_lora_rank stated
 * (not null), unless `use_mla: false` says the model is plain multi-head
 * attention. Under `use_mla: false` the MLA dims are those of an attention
 * kind the config does not use: zero or null they are ignored (docs/families.md,
 * "Dims of an unused attention kind"); a non-zero one contradicts the switch. */
static kvp_status mla_declared(hf_reader *r, const hf_obj *lm, bool *mla) {
    *mla = kvp__hf_has(lm, "kv_lora_rank");
    if (!json_is_false(json_object_get(lm->json, "use_mla"))) return KVP_OK;
    static const char *const dims[] = {"kv_lora_rank", "q_lora_rank", "qk_rope_head_dim",
                                       "qk_nope_head_dim"};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        json_t *v = json_object_get(lm->json, dims[i]);
        if (!v || json_is_null(v) || (json_is_integer(v) && json_integer_value(v) == 0)) continue;
        return kvp__hf_fail(r, lm, dims[i], KVP_CONFIG,
                            "a multi-head latent attention dimension, but use_mla is false: "
                            "expected 0 or null");
    }
    *mla = false;
    return KVP_OK;
}

static kvp_status read_decoder(layers_ctx *c) {
    hf_reader *r = c->r;
    const hf_obj *lm = c->lm;
    kvp_model_info *info = c->info;
    kvp_status s;
    if (!strcmp(info->model_type, "deepseek_v4")) return read_deepseek_v4(c);
    if (kvp__hf_has(lm, "linear_attn_config")) return read_kimi_kda(c);
    bool mla;
    if ((s = mla_declared(r, lm, &mla))) return s;
    if (mla) return read_mla(c, NULL, NULL);

    bool uses_window, uses_chunk;
    if ((s = decoder_schedule(c, &uses_window, &uses_chunk))) return s;
    bool any_attn = false, any_sliding = false, any_linear = false, any_lightning = false;
    for (uint32_t i = 0; i < c->layers; i++) {
        any_attn |= c->types[i] == LT_FULL || c->types[i] == LT_SLIDING || c->types[i] == LT_CHUNKED;
        any_sliding |= c->types[i] == LT_SLIDING;
        any_linear |= c->types[i] == LT_LINEAR || c->types[i] == LT_MAMBA ||
                      c->types[i] == LT_LIGHTNING;
        any_lightning |= c->types[i] == LT_LIGHTNING;
    }
    attn_geometry base = {0, 0, 0};
    uint32_t heads = 0;
    if (any_attn || any_lightning) {
        if ((s = read_attention(r, lm, &heads, &base))) return s;
        info->num_attention_heads = heads;
        info->num_kv_heads = base.kv_heads;
        info->head_dim = base.k_head_dim;
        info->v_head_dim = base.v_head_dim;
    }
    layer_geometries lg;
    if ((s = read_layer_geometries(c, &base, &lg))) return s;
    uint64_t window = 0;
    if (any_sliding) {
        bool found;
        if ((s = read_window(r, lm, "sliding_window", &window, &found))) return s;
        if (!found && (s = read_window(r, lm, "sliding_window_size", &window, &found))) return s;
        if (!found) {
            static const char *const gemma3[] = {"gemma3", "gemma3_text"};
            if (model_type_is(info, gemma3, 2))
                window = 4096; /* Gemma3TextConfig default */
            else
                return kvp__hf_fail(r, lm, "sliding_window", KVP_CONFIG,
                                    "missing, but layers are declared sliding");
        }
        info->sliding_window = (uint32_t)window;
    }
    uint64_t chunk = 0;
    if (uses_chunk || kvp__hf_has(lm, "attention_chunk_size")) {
        bool any_chunk = false;
        for (uint32_t i = 0; i < c->layers; i++) any_chunk |= c->types[i] == LT_CHUNKED;
        if (any_chunk) {
            if ((s = read_window(r, lm, "attention_chunk_size", &chunk, NULL))) return s;
            info->attention_chunk_size = (uint32_t)chunk;
        }
    }
    kvp_recurrent_geometry rec;
    memset(&rec, 0, sizeof rec);
    bool any_gdn = false, any_mamba = false;
    for (uint32_t i = 0; i < c->layers; i++) {
        any_gdn |= c->types[i] == LT_LINEAR;
        any_mamba |= c->types[i] == LT_MAMBA;
    }
    if (any_gdn && (s = read_gdn(c, &rec))) return s;
    if (!any_mamba) {
        /* Mamba parameters with no layer said to be Mamba: a hybrid whose layer
         * schedule kvplan does not know. Charging every layer as attention
         * would be wrong, so refuse by name. */
        static const char *const mamba_keys_seen[] = {"mamba_d_state", "mamba_n_heads",
                                                      "mamba_num_heads", "mamba_d_head",
                                                      "mamba_expand", "ssm_state_size"};
        for (size_t i = 0; i < sizeof mamba_keys_seen / sizeof mamba_keys_seen[0]; i++)
            if (kvp__hf_has(lm, mamba_keys_seen[i]))
                return kvp__hf_fail(r, lm, mamba_keys_seen[i], KVP_UNSUPPORTED,
                                    "Mamba parameters, but no key kvplan reads (layer_types, "
                                    "layers_block_type, attn_layer_indices, "
                                    "hybrid_override_pattern, attn_layer_period) says which "
                                    "layers are Mamba (model_type \"%s\"); refusing to guess",
                                    info->model_type);
    }
    if (any_mamba) {
        static const mamba_keys *const variants[] = {&k_falcon_keys, &k_nemotron_h_keys};
        if (kvp__hf_has(lm, "mamba_n_heads") || kvp__hf_has(lm, "mamba_num_heads")) {
            if ((s = read_mamba2(c, lm, variants, 2, &rec))) return s;
        } else if ((s = read_mamba1(c, &rec))) {
            return s;
        }
    }
    /* Lightning attention (vLLM MiniMaxText01LinearAttention): one state of
     * (heads / TP, head_dim, head_dim) per sequence in the mamba cache dtype
     * (the model's by default), no conv state and nothing per token. */
    kvp_recurrent_geometry lightning;
    memset(&lightning, 0, sizeof lightning);
    lightning.heads = heads;
    lightning.head_dim = base.k_head_dim;
    lightning.state_dim = base.k_head_dim;
    /* Gemma 3n / 4: the last num_kv_shared_layers reuse earlier layers' KV. */
    uint32_t shared = 0;
    bool found;
    if ((s = kvp__hf_u32(r, lm, "num_kv_shared_layers", 0, c->layers, &shared, &found))) return s;
    for (uint32_t i = 0; i < c->layers; i++) {
        if (i >= c->layers - shared) continue;
        switch ((layer_type)c->types[i]) {
        case LT_FULL:
            s = add_attention(c, i, KVP_CACHE_FULL, &lg.full, 0);
            break;
        case LT_SLIDING:
            s = add_attention(c, i, KVP_CACHE_SLIDING, &lg.sliding, window);
            break;
        case LT_CHUNKED:
            s = add_attention(c, i, KVP_CACHE_CHUNKED, &lg.full, chunk);
            break;
        case LT_LINEAR:
        case LT_MAMBA:
            s = add_recurrent(c, i, &rec);
            break;
        case LT_LIGHTNING:
            s = add_recurrent(c, i, &lightning);
            break;
        case LT_NONE:
            break;
        }
        if (s) return s;
    }
    info->is_hybrid_recurrent = any_linear && any_attn;
    if (!strcmp(info->model_type, "minimax_m3")) return read_minimax_sparse(c);
    return KVP_OK;
}

/* ------------------------------------------------------- hybrid recurrent */

/* Nemotron-H: one character per layer: M = Mamba2, * = attention,
 * - = MLP, E = MoE (the last two keep no cache). */
static kvp_status read_nemotron_h(layers_ctx *c, const char *pattern) {
    hf_reader *r = c->r;
    const hf_obj *lm = c->lm;
    kvp_status s;
    size_t n = strlen(pattern);
    if (n != c->layers)
        return kvp__hf_fail(r, lm, "hybrid_override_pattern", KVP_CONFIG,
                            "has %zu characters, expected one per layer (num_hidden_layers = %u)",
                            n, c->layers);
    bool any_attn = false, any_mamba = false;
    for (size_t i = 0; i < n; i++) {
        char ch = pattern[i];
        if (ch == '*') any_attn = true;
        else if (ch == 'M') any_mamba = true;
        else if (ch != '-' && ch != 'E')
            return kvp__hf_fail(r, lm, "hybrid_override_pattern", KVP_UNSUPPORTED,
                                "unknown layer character '%c' at position %zu (expected M, *, - "
                                "or E)",
                                ch, i);
    }
    attn_geometry g = {0, 0, 0};
    uint32_t heads = 0;
    if (any_attn) {
        if ((s = read_attention(r, lm, &heads, &g))) return s;
        c->info->num_attention_heads = heads;
        c->info->num_kv_heads = g.kv_heads;
        c->info->head_dim = g.k_head_dim;
    }
    kvp_recurrent_geometry rec;
    static const mamba_keys *const variants[] = {&k_nemotron_h_keys};
    if (any_mamba && (s = read_mamba2(c, lm, variants, 1, &rec))) return s;
    for (uint32_t i = 0; i < c->layers; i++) {
        if (pattern[i] == '*')
            s = add_attention(c, i, KVP_CACHE_FULL, &g, 0);
        else if (pattern[i] == 'M')
            s = add_recurrent(c, i, &rec);
        if (s) return s;
    }
    c->info->is_hybrid_recurrent = any_attn && any_mamba;
    return KVP_OK;
}

/* Jamba: attention on layers with i % attn_layer_period == attn_layer_offset,
 * Mamba-1 elsewhere. */
static kvp_status read_jamba(layers_ctx *c) {
    hf_reader *r = c->r;
    const hf_obj *lm = c->lm;
    kvp_status s;
    uint32_t period, offset;
    if ((s = kvp__hf_u32(r, lm, "attn_layer_period", 1, KVP_MAX_LAYERS, &period, NULL)) ||
        (s = kvp__hf_u32(r, lm, "attn_layer_offset", 0, KVP_MAX_LAYERS, &offset, NULL)))
        return s;
    if (offset >= period)
        return kvp__hf_fail(r, lm, "attn_layer_offset", KVP_CONFIG,
                            "%u is not smaller than attn_layer_period %u", offset, period);
    for (uint32_t i = 0; i < c->layers; i++)
        c->types[i] = (i % period == offset) ? LT_FULL : LT_MAMBA;
    attn_geometry g;
    uint32_t heads;
    if ((s = read_attention(r, lm, &heads, &g))) return s;
    c->info->num_attention_heads = heads;
    c->info->num_kv_heads = g.kv_heads;
    c->info->head_dim = g.k_head_dim;
    kvp_recurrent_geometry rec;
    if ((s = read_mamba1(c, &rec))) return s;
    for (uint32_t i = 0; i < c->layers; i++) {
        s = c->types[i] == LT_FULL ? add_attention(c, i, KVP_CACHE_FULL, &g, 0)
                                   : add_recurrent(c, i, &rec);
        if (s) return s;
    }
    c->info->is_hybrid_recurrent = true;
    return KVP_OK;
}

/* Falcon-H1: attention and a Mamba2 mixer side by side in every layer. */
static kvp_status read_falcon_h1(layers_ctx *c) {
    hf_reader *r = c->r;
    const hf_obj *lm = c->lm;
    kvp_status s;
    if (kvp__hf_has(lm, "attn_layer_indices"))
        return kvp__hf_fail(r, lm, "attn_layer_indices", KVP_UNSUPPORTED,
                            "a partial attention schedule in Falcon-H1 is not understood; "
                            "expected null (attention in every layer)");
    attn_geometry g;
    uint32_t heads;
    if ((s = read_attention(r, lm, &heads, &g))) return s;
    c->info->num_attention_heads = heads;
    c->info->num_kv_heads = g.kv_heads;
    c->info->head_dim = g.k_head_dim;
    kvp_recurrent_geometry rec;
    static const mamba_keys *const variants[] = {&k_falcon_keys};
    if ((s = read_mamba2(c, lm, variants, 1, &rec))) return s;
    for (uint32_t i = 0; i < c->layers; i++) {
        if ((s = add_attention(c, i, KVP_CACHE_FULL, &g, 0))) return s;
        if ((s = add_recurrent(c, i, &rec))) return s;
    }
    c->info->is_hybrid_recurrent = true;
    return KVP_OK;
}

/* transformers' MambaConfig / FalconMambaConfig (Mamba-1: intermediate_size
 * channels, state_size states) and Mamba2Config (num_heads x head_dim). */
static kvp_status read_hf_mamba(layers_ctx *c) {
    hf_reader *r = c->r;
    const hf_obj *lm = c->lm;
    kvp_status s;
    kvp_recurrent_geometry g;
    memset(&g, 0, sizeof g);
    if (strcmp(c->info->model_type, "mamba2") == 0) {
        static const mamba_keys keys = {"num_heads", "head_dim", "state_size", "n_groups",
                                        "conv_kernel", NULL};
        static const mamba_keys *const variants[] = {&keys};
        if ((s = read_mamba2(c, lm, variants, 1, &g))) return s;
    } else {
        uint64_t inner = 0, hidden = 0;
        uint32_t expand = 2;
        bool found;
        if ((s = kvp__hf_uint(r, lm, "intermediate_size", 1, KVP_MAX_HEADS * 64ull, &inner,
                              &found)))
            return s;
        if (!found) {
            if ((s = kvp__hf_uint(r, lm, "hidden_size", 1, UINT32_MAX, &hidden, NULL)) ||
                (s = kvp__hf_u32(r, lm, "expand", 1, 64, &expand, &found)))
                return s;
            inner = hidden * expand;
            if (inner > KVP_MAX_HEADS * 64ull)
                return kvp__hf_fail(r, lm, "expand", KVP_CONFIG, "d_inner is absurd");
        }
        g.heads = (uint32_t)inner;
        g.head_dim = 1;
        if ((s = kvp__hf_u32(r, lm, "state_size", 1, KVP_MAX_HEAD_DIM, &g.state_dim, NULL)) ||
            (s = kvp__hf_u32(r, lm, "conv_kernel", 1, 1024, &g.conv_kernel, NULL)) ||
            (s = read_ssm_dtype_key(r, lm, &g.ssm_dtype, &g.ssm_dtype_is_checkpoint_hint)))
            return s;
    }
    for (uint32_t i = 0; i < c->layers; i++)
        if ((s = add_recurrent(c, i, &g))) return s;
    return KVP_OK;
}

/* state-spaces/mamba_ssm schema: d_model, n_layer, ssm_cfg; SSM sizes absent
 * from the file take mamba_ssm's Mamba2 (or Mamba-1) defaults. */
static kvp_status read_mamba_ssm(layers_ctx *c) {
    hf_reader *r = c->r;
    const hf_obj *root = &r->root;
    kvp_status s;
    uint64_t d_model;
    if ((s = kvp__hf_uint(r, root, "d_model", 1, UINT32_MAX, &d_model, NULL))) return s;
    hf_obj ssm;
    if ((s = kvp__hf_child(r, root, "ssm_cfg", &ssm))) return s;
    const char *layer = "Mamba1";
    if (ssm.json && (s = kvp__hf_str(r, &ssm, "layer", &layer))) return s;
    if (!layer) layer = "Mamba1";
    bool mamba2 = strcmp(layer, "Mamba2") == 0;
    if (!mamba2 && strcmp(layer, "Mamba1") != 0)
        return kvp__hf_fail(r, &ssm, "layer", KVP_UNSUPPORTED,
                            "unknown SSM layer \"%s\" (expected Mamba1 or Mamba2)", layer);
    uint32_t d_state = mamba2 ? 128 : 16, d_conv = 4, expand = 2, headdim = 64, ngroups = 1;
    bool found;
    if ((s = kvp__hf_u32(r, &ssm, "d_state", 1, KVP_MAX_HEAD_DIM, &d_state, &found)) ||
        (s = kvp__hf_u32(r, &ssm, "d_conv", 1, 1024, &d_conv, &found)) ||
        (s = kvp__hf_u32(r, &ssm, "expand", 1, 64, &expand, &found)) ||
        (s = kvp__hf_u32(r, &ssm, "headdim", 1, KVP_MAX_HEAD_DIM, &headdim, &found)) ||
        (s = kvp__hf_u32(r, &ssm, "ngroups", 1, KVP_MAX_HEADS, &ngroups, &found)))
        return s;
    uint64_t d_inner = d_model * expand; /* < 2^38: d_model <= 2^32-1, expand <= 64 */
    if (d_inner > KVP_MAX_HEADS * 64ull) /* the bound read_mamba1 uses; heads are uint32 */
        return kvp__hf_fail(r, root, "d_model", KVP_CONFIG,
                            "d_inner = d_model %llu x expand %u is absurd",
                            (unsigned long long)d_model, expand);
    kvp_recurrent_geometry g;
    memset(&g, 0, sizeof g);
    g.conv_kernel = d_conv;
    g.state_dim = d_state;
    if (mamba2) {
        if (d_inner % headdim != 0)
            return kvp__hf_fail(r, &ssm, "headdim", KVP_CONFIG,
                                "d_inner %llu is not a multiple of headdim %u",
                                (unsigned long long)d_inner, headdim);
        g.heads = (uint32_t)(d_inner / headdim);
        g.head_dim = headdim;
        g.groups = ngroups;
        g.group_dim = d_state;
    } else {
        g.heads = (uint32_t)d_inner;
        g.head_dim = 1;
    }
    /* Attention layers listed in attn_layer_idx use attn_cfg. */
    json_t *idx;
    if ((s = kvp__hf_array(r, root, "attn_layer_idx", &idx))) return s;
    for (uint32_t i = 0; i < c->layers; i++) c->types[i] = LT_MAMBA;
    attn_geometry ag = {0, 0, 0};
    if (idx && json_array_size(idx) > 0) {
        hf_obj acfg;
        if ((s = kvp__hf_child(r, root, "attn_cfg", &acfg))) return s;
        uint32_t heads, kv;
        if ((s = kvp__hf_u32(r, &acfg, "num_heads", 1, KVP_MAX_HEADS, &heads, NULL))) return s;
        kv = heads;
        if ((s = kvp__hf_u32(r, &acfg, "num_heads_kv", 1, KVP_MAX_HEADS, &kv, &found))) return s;
        uint32_t hd = 0;
        if ((s = kvp__hf_u32(r, &acfg, "head_dim", 1, KVP_MAX_HEAD_DIM, &hd, &found))) return s;
        if (!found) {
            /* Derived like every other reader: a head dim of 0 would cost nothing. */
            if (d_model % heads != 0 || d_model / heads > KVP_MAX_HEAD_DIM)
                return kvp__hf_fail(r, &acfg, "num_heads", KVP_CONFIG,
                                    "d_model %llu is not divisible into %u heads of at most %u",
                                    (unsigned long long)d_model, heads, KVP_MAX_HEAD_DIM);
            hd = (uint32_t)(d_model / heads);
        }
        ag.kv_heads = kv;
        ag.k_head_dim = ag.v_head_dim = hd;
        for (size_t k = 0; k < json_array_size(idx); k++) {
            json_t *v = json_array_get(idx, k);
            if (!json_is_integer(v) || json_integer_value(v) < 0 ||
                json_integer_value(v) >= (json_int_t)c->layers)
                return kvp__hf_fail(r, root, "attn_layer_idx", KVP_CONFIG,
                                    "entry %zu is not a layer index below %u", k, c->layers);
            c->types[json_integer_value(v)] = LT_FULL;
        }
    }
    c->info->hidden_size = d_model;
    for (uint32_t i = 0; i < c->layers; i++) {
        s = c->types[i] == LT_FULL ? add_attention(c, i, KVP_CACHE_FULL, &ag, 0)
                                   : add_recurrent(c, i, &g);
        if (s) return s;
    }
    return KVP_OK;
}

/* Llama-Nemotron NAS (DeciLM): block_configs gives each layer its attention:
 * no_op / replace_with_linear keep no cache, n_heads_in_group sets the GQA
 * ratio, window_length a sliding window. */
static kvp_status read_block_configs(layers_ctx *c, json_t *blocks) {
    hf_reader *r = c->r;
    const hf_obj *lm = c->lm;
    kvp_status s;
    if (json_array_size(blocks) != c->layers)
        return kvp__hf_fail(r, lm, "block_configs", KVP_CONFIG,
                            "has %zu entries, expected one per layer (%u)",
                            json_array_size(blocks), c->layers);
    uint32_t heads;
    if ((s = kvp__hf_u32(r, lm, "num_attention_heads", 1, KVP_MAX_HEADS, &heads, NULL))) return s;
    uint64_t hidden;
    if ((s = kvp__hf_uint(r, lm, "hidden_size", 1, UINT32_MAX, &hidden, NULL))) return s;
    uint32_t hd = 0;
    bool found;
    if ((s = kvp__hf_u32(r, lm, "head_dim", 1, KVP_MAX_HEAD_DIM, &hd, &found))) return s;
    if (!found) {
        if (hidden % heads)
            return kvp__hf_fail(r, lm, "hidden_size", KVP_CONFIG,
                                "%llu is not divisible by %u heads", (unsigned long long)hidden,
                                heads);
        hd = (uint32_t)(hidden / heads);
    }
    c->info->num_attention_heads = heads;
    c->info->head_dim = hd;
    for (uint32_t i = 0; i < c->layers; i++) {
        hf_obj blk = {json_array_get(blocks, i), ""};
        snprintf(blk.pointer, sizeof blk.pointer, "%s/block_configs/%u", lm->pointer, i);
        if (!json_is_object(blk.json))
            return kvp__fail(r->err, KVP_CONFIG, r->file, blk.pointer, "expected an object");
        hf_obj attn;
        if ((s = kvp__hf_child(r, &blk, "attention", &attn))) return s;
        if (!attn.json)
            return kvp__fail(r->err, KVP_CONFIG, r->file, attn.pointer, "missing attention block");
        bool no_op = false, linear = false, flag;
        if ((s = kvp__hf_bool(r, &attn, "no_op", &no_op, NULL)) ||
            (s = kvp__hf_bool(r, &attn, "replace_with_linear", &linear, NULL)))
            return s;
        if (no_op || linear) continue;
        static const char *const refused[] = {"num_sink_tokens", "sparsify"};
        for (size_t k = 0; k < 2; k++)
            if (kvp__hf_has(&attn, refused[k]))
                return kvp__hf_fail(r, &attn, refused[k], KVP_UNSUPPORTED,
                                    "attention variant not understood by kvplan; expected null");
        static const char *const refused_flags[] = {"unshifted_sink",
                                                    "use_prefill_window_in_sink_attention"};
        for (size_t k = 0; k < 2; k++) {
            flag = false;
            if ((s = kvp__hf_bool(r, &attn, refused_flags[k], &flag, NULL))) return s;
            if (flag)
                return kvp__hf_fail(r, &attn, refused_flags[k], KVP_UNSUPPORTED,
                                    "sink attention is not understood by kvplan; expected false");
        }
        uint32_t group;
        if ((s = kvp__hf_u32(r, &attn, "n_heads_in_group", 1, KVP_MAX_HEADS, &group, NULL))) return s;
        if (heads % group)
            return kvp__hf_fail(r, &attn, "n_heads_in_group", KVP_CONFIG,
                                "%u does not divide the %u attention heads", group, heads);
        attn_geometry g = {heads / group, hd, hd};
        uint64_t window = 0;
        if ((s = read_window(r, &attn, "window_length", &window, &found))) return s;
        if (!c->info->num_kv_heads) c->info->num_kv_heads = g.kv_heads;
        s = add_attention(c, i, found ? KVP_CACHE_SLIDING : KVP_CACHE_FULL, &g, found ? window : 0);
        if (s) return s;
    }
    return KVP_OK;
}

/* ---------------------------------------------------------- encoder-decoder */

static kvp_status first_u32(hf_reader *r, const hf_obj *o, const char *const *keys, size_t n,
                            uint32_t min, uint32_t max, uint32_t *out, bool *found) {
    *found = false;
    for (size_t i = 0; i < n && !*found; i++) {
        kvp_status s = kvp__hf_u32(r, o, keys[i], min, max, out, found);
        if (s) return s;
    }
    return KVP_OK;
}

/* Whisper, T5, BART: decoder self-attention plus a cross-attention cache over
 * the encoder length, with the seed's attribute fallbacks for the cross geometry. */
static kvp_status read_encoder_decoder(layers_ctx *c) {
    hf_reader *r = c->r;
    const hf_obj *lm = c->lm;
    kvp_status s;
    bool found;
    uint32_t dec_heads, enc_heads, enc_kv, hd;
    static const char *const dec_head_keys[] = {"decoder_attention_heads", "num_heads",
                                                "num_attention_heads"};
    if ((s = first_u32(r, lm, dec_head_keys, 3, 1, KVP_MAX_HEADS, &dec_heads, &found))) return s;
    if (!found)
        return kvp__hf_fail(r, lm, "decoder_attention_heads", KVP_CONFIG,
                            "missing, expected the decoder's attention heads");
    static const char *const enc_head_keys[] = {"encoder_num_heads", "encoder_attention_heads",
                                                "num_heads", "num_attention_heads"};
    if ((s = first_u32(r, lm, enc_head_keys, 4, 1, KVP_MAX_HEADS, &enc_heads, &found))) return s;
    if (!found)
        return kvp__hf_fail(r, lm, "encoder_attention_heads", KVP_CONFIG,
                            "missing, expected the encoder's attention heads");
    static const char *const enc_kv_keys[] = {"encoder_num_kv_heads", "encoder_num_key_value_heads",
                                              "encoder_attention_heads", "encoder_num_heads",
                                              "num_key_value_heads", "num_heads",
                                              "num_attention_heads"};
    if ((s = first_u32(r, lm, enc_kv_keys, 7, 1, KVP_MAX_HEADS, &enc_kv, &found))) return s;
    if (!found) enc_kv = enc_heads;
    uint64_t hidden = 0;
    static const char *const hidden_keys[] = {"d_model", "hidden_size"};
    for (size_t i = 0; i < 2 && !hidden; i++) {
        bool f;
        if ((s = kvp__hf_uint(r, lm, hidden_keys[i], 1, UINT32_MAX, &hidden, &f))) return s;
    }
    static const char *const hd_keys[] = {"d_kv", "encoder_head_size", "encoder_head_dim",
                                          "head_dim"};
    if ((s = first_u32(r, lm, hd_keys, 4, 1, KVP_MAX_HEAD_DIM, &hd, &found))) return s;
    if (!found) {
        if (!hidden)
            return kvp__hf_fail(r, lm, "d_model", KVP_CONFIG,
                                "missing, and no d_kv to give the head dim");
        if (hidden % dec_heads)
            return kvp__hf_fail(r, lm, "d_model", KVP_CONFIG,
                                "%llu is not divisible by %u decoder heads",
                                (unsigned long long)hidden, dec_heads);
        hd = (uint32_t)(hidden / dec_heads);
    }
    /* Encoder length bounds the cross cache: Whisper's max_source_positions,
     * then the seed's fallbacks. T5 has no hard maximum: n_positions is used. */
    uint32_t enc_len = 0;
    static const char *const enc_len_keys[] = {
        "max_source_positions",  "max_encoder_input_len", "encoder_max_input_length",
        "max_encoder_position_embeddings", "encoder_max_position_embeddings",
        "max_position_embeddings", "n_positions"};
    if ((s = first_u32(r, lm, enc_len_keys, 7, 1, k_max_window, &enc_len, &found))) return s;
    if (!found)
        return kvp__hf_fail(r, lm, "max_source_positions", KVP_CONFIG,
                            "missing: no key gives the encoder length for the cross-attention "
                            "cache");
    uint32_t enc_layers = 0;
    static const char *const enc_layer_keys[] = {"encoder_layers", "num_layers"};
    if ((s = first_u32(r, lm, enc_layer_keys, 2, 1, KVP_MAX_LAYERS, &enc_layers, &found))) return s;
    c->info->num_encoder_layers = enc_layers;
    c->info->is_encoder_decoder = true;
    c->info->encoder_max_positions = enc_len;
    c->info->num_attention_heads = dec_heads;
    c->info->num_kv_heads = dec_heads;
    c->info->head_dim = hd;
    uint32_t target = 0;
    static const char *const tgt_keys[] = {"max_target_positions", "max_position_embeddings",
                                           "n_positions"};
    if ((s = first_u32(r, lm, tgt_keys, 3, 1, k_max_window, &target, &found))) return s;
    if (found) c->info->max_position_embeddings = target;
    attn_geometry self = {dec_heads, hd, hd}, cross = {enc_kv, hd, hd};
    for (uint32_t i = 0; i < c->layers; i++) {
        if ((s = add_attention(c, i, KVP_CACHE_FULL, &self, 0))) return s;
        if ((s = add_attention(c, i, KVP_CACHE_CROSS, &cross, enc_len))) return s;
    }
    return KVP_OK;
}

static bool is_encoder_decoder(hf_reader *r, const kvp_model_info *info) {
    static const char *const types[] = {"whisper", "t5", "mt5", "umt5", "bart", "mbart",
                                        "pegasus", "marian", "longt5", "m2m_100", "nllb_moe"};
    if (json_is_true(json_object_get(r->lm.json, "is_encoder_decoder"))) return true;
    return model_type_is(info, types, sizeof types / sizeof types[0]);
}

/* --------------------------------------------------------------- dispatch */

/* A use_mla switch with no latent geometry: refused rather than read as MHA.
 * Every other key that changes what a layer caches is on the watch list
 * (hf_watch.c). */
static kvp_status refuse_unknown_mechanisms(hf_reader *r, const hf_obj *lm,
                                            const kvp_model_info *info) {
    kvp_status s = kvp__hf_watch_keys(r, lm, info);
    if (s) return s;
    if (json_is_true(json_object_get(lm->json, "use_mla")) && !kvp__hf_has(lm, "kv_lora_rank"))
        return kvp__hf_fail(r, lm, "use_mla", KVP_UNSUPPORTED,
                            "a multi-head latent attention switch without kv_lora_rank: not "
                            "understood by kvplan, refusing to guess their cache");
    return KVP_OK;
}

/* Defaults of a model type's config class, for nested configs that keep only
 * the keys differing from them (Gemma 3's text_config). Written into our own
 * parsed tree so the readers see one complete config. */
/* Families whose per-sequence state is neither attention KV nor a Mamba/GDN
 * state kvplan models: refused by model_type, not read as attention. */
static kvp_status refuse_unknown_types(hf_reader *r, const kvp_model_info *info) {
    static const struct {
        const char *type, *what;
    } refused[] = {
        {"rwkv", "RWKV recurrent state"},      {"rwkv5", "RWKV-5 recurrent state"},
        {"rwkv6", "RWKV-6 recurrent state"},   {"rwkv7", "RWKV-7 recurrent state"},
        {"recurrent_gemma", "Griffin recurrent blocks"}, {"xlstm", "xLSTM cell state"},
        {"retnet", "retention state"},
        {"openelm", "per-layer head counts (num_kv_heads / num_query_heads lists)"},
        {"longcat_flash", "two attention blocks per decoder layer (LongCat-Flash)"},
        {"zamba", "shared attention blocks interleaved with Mamba layers (Zamba)"},
        {"zamba2", "shared attention blocks interleaved with Mamba layers (Zamba2)"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        if (!strcmp(info->model_type, refused[i].type))
            return kvp__hf_fail(r, &r->lm, "model_type", KVP_UNSUPPORTED,
                                "\"%s\": kvplan does not model its %s; refusing to guess its "
                                "cache",
                                info->model_type, refused[i].what);
    /* Encoder-only models attend over the whole input at once and keep no KV
     * cache between steps: there is nothing to plan, and charging their
     * layers as a decoder's would be a wrong answer. */
    static const char *const encoder_only[] = {
        "bert",        "roberta",   "xlm-roberta", "xlm-roberta-xl", "deberta", "deberta-v2",
        "distilbert",  "electra",   "albert",      "camembert",      "mpnet",   "modernbert",
        "nomic_bert",  "new",       "clip",        "clip_text_model",
        "siglip",      "siglip_text_model", "vit", "dinov2"};
    for (size_t i = 0; i < sizeof encoder_only / sizeof encoder_only[0]; i++)
        if (!strcmp(info->model_type, encoder_only[i]))
            return kvp__hf_fail(r, &r->lm, "model_type", KVP_UNSUPPORTED,
                                "\"%s\" is an encoder-only model: it keeps no KV cache while "
                                "serving, so kvplan has no KV cache to plan",
                                info->model_type);
    return KVP_OK;
}

typedef struct type_default {
    const char *key;
    json_int_t value;
} type_default;

/* Gemma 3 (transformers Gemma3TextConfig): its text_config is sparse in the
 * released multimodal checkpoints. */
static const type_default k_gemma3_defaults[] = {
    {"num_hidden_layers", 26}, {"num_attention_heads", 8}, {"num_key_value_heads", 4},
    {"head_dim", 256},         {"hidden_size", 2304},      {"intermediate_size", 9216},
    {"vocab_size", 262208},    {"sliding_window", 4096},   {"sliding_window_pattern", 6},
    {"max_position_embeddings", 131072}, {NULL, 0},
};
/* GemmaConfig and Gemma2Config (PaliGemma's sparse text_config): head_dim 256
 * is not hidden / heads for Gemma 2 (2304 / 8 = 288), and Gemma 2 slides over
 * 4096 tokens unless told otherwise. */
static const type_default k_gemma_defaults[] = {
    {"num_hidden_layers", 28}, {"num_attention_heads", 16}, {"num_key_value_heads", 16},
    {"head_dim", 256},         {"hidden_size", 3072},       {"intermediate_size", 24576},
    {"max_position_embeddings", 8192}, {NULL, 0},
};
static const type_default k_gemma2_defaults[] = {
    {"num_hidden_layers", 26}, {"num_attention_heads", 8}, {"num_key_value_heads", 4},
    {"head_dim", 256},         {"hidden_size", 2304},      {"intermediate_size", 9216},
    {"sliding_window", 4096},  {"max_position_embeddings", 8192}, {NULL, 0},
};
/* LlamaConfig (LLaVA 1.5's vicuna text_config keeps only what differs). No
 * num_key_value_heads: the class defaults it to num_attention_heads. */
static const type_default k_llama_defaults[] = {
    {"num_hidden_layers", 32}, {"num_attention_heads", 32}, {"hidden_size", 4096},
    {"intermediate_size", 11008}, {"max_position_embeddings", 2048}, {NULL, 0},
};
/* MistralConfig (LLaVA-NeXT's Mistral text_config); sliding_window 4096
 * unless the file says otherwise (null included). */
static const type_default k_mistral_defaults[] = {
    {"num_hidden_layers", 32}, {"num_attention_heads", 32}, {"num_key_value_heads", 8},
    {"hidden_size", 4096},     {"intermediate_size", 14336}, {"sliding_window", 4096},
    {"max_position_embeddings", 131072}, {NULL, 0},
};
/* Qwen2Config (LLaVA-OneVision's text_config); use_sliding_window defaults to
 * false, so its sliding_window default does not apply. */
static const type_default k_qwen2_defaults[] = {
    {"num_hidden_layers", 32}, {"num_attention_heads", 32}, {"num_key_value_heads", 32},
    {"hidden_size", 4096},     {"intermediate_size", 22016}, {"max_position_embeddings", 32768},
    {NULL, 0},
};

/* Defaults of a model type's config class, for nested configs that keep only
 * the keys differing from them (Gemma 3's, PaliGemma's and LLaVA's
 * text_config), as transformers fills them. Written into our own parsed tree so
 * the readers see one complete config. Gemma's apply everywhere (their head_dim
 * default differs from hidden / heads); Llama, Mistral and Qwen2 defaults apply
 * to nested configs only: a top-level config missing its layer count is broken,
 * not sparse. */
static kvp_status apply_type_defaults(hf_reader *r, const kvp_model_info *info) {
    static const char *const gemma3[] = {"gemma3", "gemma3_text"};
    const char *type = info->model_type;
    bool nested = r->lm.json != r->root.json;
    const type_default *d = NULL;
    if (model_type_is(info, gemma3, 2)) d = k_gemma3_defaults;
    else if (!strcmp(type, "gemma")) d = k_gemma_defaults;
    else if (!strcmp(type, "gemma2")) d = k_gemma2_defaults;
    else if (nested && !strcmp(type, "llama")) d = k_llama_defaults;
    else if (nested && !strcmp(type, "mistral")) d = k_mistral_defaults;
    else if (nested && !strcmp(type, "qwen2")) d = k_qwen2_defaults;
    if (!d) return KVP_OK;
    for (; d->key; d++)
        if (!json_object_get(r->lm.json, d->key) &&
            json_object_set_new(r->lm.json, d->key, json_integer(d->value)))
            return kvp__fail(r->err, KVP_NOMEM, r->file, NULL, "out of memory");
    return KVP_OK;
}

/* Newer Nemotron-H configs (Nemotron-3) give layers_block_type and may omit
 * num_hidden_layers and hybrid_override_pattern: the layer count is the
 * list's length (FAMILIES.md "Nemotron-H, new schema"). *out stays 0 when
 * num_hidden_layers is stated (the list must then match it) or there is no
 * list. */
static kvp_status layers_from_block_list(hf_reader *r, const hf_obj *lm, uint32_t *out) {
    *out = 0;
    if (kvp__hf_has(lm, "num_hidden_layers")) return KVP_OK;
    json_t *arr;
    kvp_status s = kvp__hf_array(r, lm, "layers_block_type", &arr);
    if (s || !arr) return s;
    if (json_array_size(arr) == 0 || json_array_size(arr) > KVP_MAX_LAYERS)
        return kvp__hf_fail(r, lm, "layers_block_type", KVP_CONFIG,
                            "has %zu entries, expected 1 to %u (one per layer)",
                            json_array_size(arr), KVP_MAX_LAYERS);
    *out = (uint32_t)json_array_size(arr);
    return KVP_OK;
}

/* MTP layers of the new Nemotron-H schema: mtp_layers_block_type lists the
 * blocks of the multi-token-prediction module; each "attention" block keeps a
 * KV cache as a drafter layer (num_nextn_predict_layers when not stated). */
static kvp_status read_mtp_block_types(hf_reader *r, const hf_obj *lm, kvp_model_info *info) {
    json_t *arr;
    kvp_status s = kvp__hf_array(r, lm, "mtp_layers_block_type", &arr);
    if (s || !arr) return s;
    hf_obj p = {arr, ""};
    snprintf(p.pointer, sizeof p.pointer, "%s/mtp_layers_block_type", lm->pointer);
    uint32_t attn = 0;
    for (size_t i = 0; i < json_array_size(arr) && i < KVP_MAX_LAYERS; i++) {
        json_t *v = json_array_get(arr, i);
        char key[24];
        snprintf(key, sizeof key, "%zu", i);
        const char *t = json_is_string(v) ? json_string_value(v) : NULL;
        if (!t || (strcmp(t, "attention") && strcmp(t, "moe") && strcmp(t, "mlp") &&
                   strcmp(t, "mamba")))
            return kvp__hf_fail(r, &p, key, KVP_UNSUPPORTED,
                                "expected \"attention\", \"moe\", \"mlp\" or \"mamba\"; kvplan "
                                "does not know what this MTP block caches");
        if (!strcmp(t, "mamba"))
            return kvp__hf_fail(r, &p, key, KVP_UNSUPPORTED,
                                "a Mamba block in the MTP module: kvplan does not model a "
                                "drafter's recurrent state");
        attn += strcmp(t, "attention") == 0;
    }
    if (!kvp__hf_has(lm, "num_nextn_predict_layers")) info->num_nextn_predict_layers = attn;
    return KVP_OK;
}

kvp_status kvp__hf_layers(hf_reader *r, kvp_model *model) {
    layers_ctx c;
    memset(&c, 0, sizeof c);
    c.r = r;
    c.model = model;
    c.info = kvp__model_info(model);
    c.lm = &r->lm;
    kvp_status s;
    const kvp_allocator *alc = kvp__model_alc(model);
    if ((s = refuse_unknown_mechanisms(r, c.lm, c.info))) return s;
    if ((s = refuse_unknown_types(r, c.info))) return s;
    if ((s = apply_type_defaults(r, c.info))) return s;

    bool mamba_ssm = !kvp__hf_has(&r->root, "model_type") && kvp__hf_has(&r->root, "n_layer") &&
                     kvp__hf_has(&r->root, "d_model");
    if (mamba_ssm) {
        static const char *const k[] = {"n_layer"};
        if ((s = read_layers(r, &r->root, k, 1, &c.layers))) return s;
        kvp__strlcpy(c.info->model_type, "mamba_ssm", sizeof c.info->model_type);
    } else if (is_encoder_decoder(r, c.info)) {
        static const char *const k[] = {"decoder_layers", "num_decoder_layers", "num_layers",
                                        "num_hidden_layers"};
        if ((s = read_layers(r, c.lm, k, 4, &c.layers))) return s;
    } else if ((s = layers_from_block_list(r, c.lm, &c.layers)) != KVP_OK) {
        return s;
    } else if (c.layers == 0) {
        static const char *const k[] = {"num_hidden_layers", "n_layer", "num_layers", "n_layers"};
        if ((s = read_layers(r, c.lm, k, 4, &c.layers))) return s;
    }
    if ((s = read_mtp_block_types(r, c.lm, c.info))) return s;
    if (!mamba_ssm && (s = kvp__hf_watch_lists(r, c.lm, c.layers))) return s;
    c.info->num_layers = c.layers;
    c.types = kvp__calloc(alc, c.layers, 1);
    if (!c.types) return kvp__fail(r->err, KVP_NOMEM, r->file, NULL, "out of memory");

    const char *pattern = NULL;
    json_t *blocks = NULL;
    if (mamba_ssm) {
        s = read_mamba_ssm(&c);
    } else if (is_encoder_decoder(r, c.info)) {
        s = read_encoder_decoder(&c);
    } else if ((s = kvp__hf_str(r, c.lm, "hybrid_override_pattern", &pattern)) == KVP_OK &&
               pattern) {
        s = read_nemotron_h(&c, pattern);
    } else if (s == KVP_OK && (s = kvp__hf_array(r, c.lm, "block_configs", &blocks)) == KVP_OK &&
               blocks) {
        s = read_block_configs(&c, blocks);
    } else if (s == KVP_OK && kvp__hf_has(c.lm, "attn_layer_period")) {
        s = read_jamba(&c);
    } else if (s == KVP_OK && strcmp(c.info->model_type, "falcon_h1") == 0) {
        s = read_falcon_h1(&c);
    } else if (s == KVP_OK && (strcmp(c.info->model_type, "mamba") == 0 ||
                               strcmp(c.info->model_type, "falcon_mamba") == 0 ||
                               strcmp(c.info->model_type, "mamba2") == 0)) {
        s = read_hf_mamba(&c);
    } else if (s == KVP_OK) {
        s = read_decoder(&c);
    }
    kvp__free(alc, c.types);
    if (s) return s;
    if (kvp_model_cache_count(model) == 0 && c.layers > 0 && !mamba_ssm)
        return kvp__fail(r->err, KVP_CONFIG, r->file, NULL,
                         "no layer keeps a KV cache or recurrent state");
    return KVP_OK;
}
