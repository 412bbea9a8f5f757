/*
 * hf_watch.c — "refuse, never guess" (FAMILIES.md): the config keys that
 * change what a layer caches, each refused by name unless the family that
 * states it is one kvplan reads; and the model types whose cache kvplan has
 * checked by hand (any other type is read generically and marked unverified).
 *
 * A watched key is one of: a compression ratio, a sparse-attention or index
 * config, a linear-attention config, a cross-layer KV sharing switch, or a
 * per-layer list kvplan does not read. Adding a family means adding its
 * model_type to the row of each key its reader understands.
 */
#include <string.h>

#include "hf_layers.h"
#include "json_error.h"

typedef enum watch_rule {
    W_NEVER = 0,  /* refused wherever it appears */
    W_TYPES,      /* understood for the model types listed */
    W_MLA,        /* understood with MLA (kv_lora_rank): the DSA indexer keys */
    W_WHEN_TRUE,  /* a switch: refused only when true */
} watch_rule;

typedef struct watched_key {
    const char *key;
    watch_rule rule;
    const char *types; /* W_TYPES: space-separated model types that read it */
    const char *what;
} watched_key;

static const watched_key k_watched[] = {
    /* Compression of the KV cache along the sequence. */
    {"compress_ratios", W_TYPES, "deepseek_v4", "per-layer KV compression ratios"},
    {"compress_ratio", W_NEVER, NULL, "a KV compression ratio"},
    {"kv_compress_ratio", W_NEVER, NULL, "a KV compression ratio"},
    {"kv_cache_compression", W_NEVER, NULL, "KV cache compression"},
    /* Sparse attention and its index keys. */
    {"sparse_attention_config", W_TYPES, "minimax_m3", "a sparse-attention config (index keys)"},
    {"use_sparse_attention", W_WHEN_TRUE, "minimax_m3", "sparse attention"},
    {"nsa_config", W_NEVER, NULL, "a native sparse attention config"},
    {"dsa_config", W_NEVER, NULL, "a sparse attention config"},
    {"moba_config", W_NEVER, NULL, "mixture-of-block attention"},
    {"index_head_dim", W_MLA, "deepseek_v4", "sparse-attention index keys"},
    {"index_n_heads", W_MLA, "deepseek_v4", "sparse-attention index heads"},
    {"index_topk_freq", W_MLA, NULL, "an indexer schedule"},
    {"index_skip_topk_offset", W_MLA, NULL, "an indexer schedule"},
    {"index_topk_pattern", W_MLA, NULL, "an indexer schedule"},
    {"indexer_types", W_MLA, NULL, "per-layer indexer types"},
    /* Linear attention. */
    {"linear_attn_config", W_TYPES, "kimi_linear kimi_k3", "Kimi linear attention (KDA) layers"},
    {"linear_attention_config", W_NEVER, NULL, "a linear-attention config"},
    /* Layers reusing another layer's KV. */
    {"cross_attention_layers", W_NEVER, NULL,
     "cross-attention layers over image tokens (Llama 3.2 Vision)"},
    {"kv_shared_layer_index", W_NEVER, NULL, "per-layer KV sharing"},
    {"kv_sharing_layers", W_NEVER, NULL, "cross-layer KV sharing"},
    {"shared_kv_layers", W_NEVER, NULL, "cross-layer KV sharing"},
    {"use_cla", W_WHEN_TRUE, NULL, "cross-layer attention (layers reusing another layer's KV, Hunyuan)"},
    {"num_kv_shared_layers", W_TYPES, "gemma3n gemma3n_text gemma4 gemma4_text",
     "KV-shared layers"},
    {"kv_reuse_group", W_NEVER, NULL, "KV reuse across layer groups (Hymba)"},
    {"num_key_value_heads_per_layer", W_NEVER, NULL,
     "per-layer KV head counts (engines differ: vLLM pads every layer to the largest)"},
};

static bool type_listed(const char *types, const char *type) {
    size_t n = strlen(type);
    for (const char *p = types; p && *p;) {
        const char *e = strchr(p, ' ');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && n > 0 && strncmp(p, type, n) == 0) return true;
        p = e ? e + 1 : NULL;
    }
    return false;
}

/* Per-layer string lists, classified by what they describe (docs/families.md,
 * "Per-layer lists"). Attention, cache and window kinds are read by the
 * decoder readers (hf_layers.c) under the names below; a list whose name says
 * it describes each layer's MLP, experts or norms cannot change what a layer
 * caches or how many layers cache, and is recorded here and ignored (a per-layer
 * list of MLP kinds, "dense" / "sparse", is a MoE schedule, not a cache). Any
 * other list of one string per layer may name a per-layer cache kind kvplan
 * does not know: refused by name. */
static const char *const k_read_lists[] = {
    "layer_types", "layers_block_type", "indexer_types", "index_topk_pattern", "no_rope_layers",
    "block_configs", "hybrid_layer_pattern", "attn_type_list", "architectures"};

/* Words of a list's name that say it describes the cache: such a list is never
 * ignored, whatever else its name says ("attn_norm_types" stays refused). */
static const char *const k_cache_words[] = {"attn", "attention", "cache", "kv", "window",
                                            "mixer", "block_type", "sliding", "rope"};
/* Words that say a list describes each layer's MLP, experts or norms. */
static const char *const k_ignored_words[] = {"mlp", "ffn", "feed_forward", "moe", "expert",
                                              "router", "norm"};

static bool name_has(const char *key, const char *const *words, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (strstr(key, words[i])) return true;
    return false;
}

static bool list_ignored(const char *key) {
    return !name_has(key, k_cache_words, sizeof k_cache_words / sizeof k_cache_words[0]) &&
           name_has(key, k_ignored_words, sizeof k_ignored_words / sizeof k_ignored_words[0]);
}

kvp_status kvp__hf_watch_keys(hf_reader *r, const hf_obj *lm, const kvp_model_info *info) {
    bool mla = kvp__hf_has(lm, "kv_lora_rank") &&
               !json_is_false(json_object_get(lm->json, "use_mla"));
    for (size_t i = 0; i < sizeof k_watched / sizeof k_watched[0]; i++) {
        const watched_key *w = &k_watched[i];
        json_t *v = json_object_get(lm->json, w->key);
        if (!v || json_is_null(v)) continue;
        bool understood = false;
        switch (w->rule) {
        case W_NEVER: break;
        case W_TYPES: understood = type_listed(w->types, info->model_type); break;
        case W_MLA: understood = mla || type_listed(w->types, info->model_type); break;
        case W_WHEN_TRUE:
            understood = json_is_false(v) || type_listed(w->types, info->model_type);
            break;
        }
        if (w->rule == W_WHEN_TRUE && !json_is_boolean(v))
            return kvp__hf_fail(r, lm, w->key, KVP_CONFIG, "expected true or false, found %s",
                                kvp__json_type_name(v));
        if (!understood)
            return kvp__hf_fail(r, lm, w->key, KVP_UNSUPPORTED,
                                "%s: not understood by kvplan for model_type \"%s\", refusing to "
                                "guess their cache",
                                w->what, info->model_type);
    }
    return KVP_OK;
}

kvp_status kvp__hf_watch_lists(hf_reader *r, const hf_obj *lm, uint32_t layers) {
    if (layers == 0) return KVP_OK;
    const char *key;
    json_t *v;
    json_object_foreach(lm->json, key, v) {
        if (!json_is_array(v) || json_array_size(v) != layers) continue;
        bool strings = true;
        for (size_t i = 0; i < layers && strings; i++) strings = json_is_string(json_array_get(v, i));
        if (!strings) continue;
        bool read = false;
        for (size_t i = 0; i < sizeof k_read_lists / sizeof k_read_lists[0]; i++)
            read |= strcmp(key, k_read_lists[i]) == 0;
        if (!read && !list_ignored(key))
            return kvp__hf_fail(r, lm, key, KVP_UNSUPPORTED,
                                "a per-layer list of %u strings that kvplan does not read: its "
                                "name says neither an MLP, expert or norm kind (ignored) nor a "
                                "cache kind kvplan reads, so it may say what each layer caches; "
                                "refusing to guess",
                                layers);
    }
    return KVP_OK;
}

/* Model types (of the language model) whose cache geometry has a hand-checked
 * config in data/models/ or tests/data/families/. */
static const char *const k_verified[] = {
    "llama", "qwen", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "qwen3_next", "qwen3_5",
    "qwen3_5_moe", "qwen3_5_text", "qwen3_5_moe_text", "qwen3_vl", "qwen3_vl_moe",
    "qwen3_vl_text", "qwen3_vl_moe_text", "mistral", "mixtral", "phi3", "gemma", "gemma2",
    "gemma3", "gemma3_text", "gemma3n", "gemma3n_text", "gemma4", "gemma4_text", "llama4",
    "llama4_text", "gpt_oss", "deepseek_v2", "deepseek_v3", "deepseek_v32", "deepseek_v4", "kimi_k2",
    "kimi_k25", "kimi_linear", "glm_moe_dsa", "minimax_m2", "minimax", "minimax_m3", "mimo_v2_flash", "step3p7",
    "nemotron_h", "nemotron-nas", "deci", "jamba", "falcon_h1", "falcon", "mamba", "mamba2",
    "mamba_ssm", "whisper", "t5", "bart", "chatglm", "dbrx", "mpt", "gpt2", "gpt_bigcode",
    "gpt_neox", "bloom", "starcoder2", "cohere2", "exaone4", "bamba", "granitemoehybrid",
    "minicpm3"};

bool kvp__hf_family_verified(const char *model_type) {
    if (!model_type || !*model_type) return false;
    for (size_t i = 0; i < sizeof k_verified / sizeof k_verified[0]; i++)
        if (strcmp(model_type, k_verified[i]) == 0) return true;
    return false;
}
