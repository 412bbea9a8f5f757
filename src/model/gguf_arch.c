/*
 * gguf_arch.c — GGUF metadata to kvp_model with llama.cpp's architecture rules
 * (src/llama-model.cpp load_hparams / create_memory, llama-hparams.cpp;
 * ENGINES.md §3.2-3.8): which layers own a KV cache, their row widths (scalar
 * or per-layer head counts, _swa and _mla lengths), the sliding-window layer
 * pattern per architecture, and the recurrent state of SSM / RWKV / LFM2 layers.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguf_internal.h"
#include "model_internal.h"

typedef struct arch_ctx {
    const kvp__gguf_meta *m;
    const char *arch;
    uint32_t n_layer;
    kvp_error *err;
} arch_ctx;

static const kvp__gguf_kv *akey(const arch_ctx *a, const char *suffix, char *full, size_t size) {
    snprintf(full, size, "%s.%s", a->arch, suffix);
    return kvp__gguf_find(a->m, full);
}

/* Scalar integer key; false when absent. Errors on a wrong type or a negative value. */
static kvp_status get_u64(const arch_ctx *a, const char *suffix, uint64_t *out, bool *found) {
    char full[256];
    const kvp__gguf_kv *kv = akey(a, suffix, full, sizeof full);
    *found = false;
    if (!kv) return KVP_OK;
    /* A bool is no count: llama.cpp's get_key refuses a type mismatch. */
    if (kv->type == KVP__GGUF_ARRAY || kv->type == KVP__GGUF_STRING ||
        kv->type == KVP__GGUF_BOOL || !kv->is_int || kv->ival < 0)
        return kvp__fail(a->err, KVP_CONFIG, a->m->name, full,
                         "expected a non-negative integer scalar%s",
                         kv->type == KVP__GGUF_BOOL ? ", found a bool" : "");
    *out = (uint64_t)kv->ival;
    *found = true;
    return KVP_OK;
}

/* A per-layer array: numbers (kept: not strings, not past the kept length),
 * at least one per block (llama.cpp's get_key_or_arr reads the first n_layer). */
static kvp_status check_layer_array(const arch_ctx *a, const kvp__gguf_kv *kv, const char *full) {
    if (kv->elem_type == KVP__GGUF_STRING)
        return kvp__fail(a->err, KVP_CONFIG, a->m->name, full,
                         "per-layer array of %llu strings, expected numbers",
                         (unsigned long long)kv->count);
    if (!kv->values)
        return kvp__fail(a->err, KVP_CONFIG, a->m->name, full,
                         "per-layer array of %llu entries is longer than the %u kvplan reads",
                         (unsigned long long)kv->count, KVP__GGUF_MAX_KEPT_ARRAY);
    if (kv->count < a->n_layer)
        return kvp__fail(a->err, KVP_CONFIG, a->m->name, full,
                         "per-layer array has %llu entries, expected %u (block_count)",
                         (unsigned long long)kv->count, a->n_layer);
    return KVP_OK;
}

/* Per-layer integer: an array indexed by layer, or a scalar for every layer. */
static kvp_status get_layer(const arch_ctx *a, const char *suffix, uint32_t il, uint64_t def,
                            uint64_t *out, bool *found) {
    char full[256];
    const kvp__gguf_kv *kv = akey(a, suffix, full, sizeof full);
    *out = def;
    if (found) *found = kv != NULL;
    if (!kv) return KVP_OK;
    double v;
    if (kv->type == KVP__GGUF_BOOL ||
        (kv->type == KVP__GGUF_ARRAY && kv->elem_type == KVP__GGUF_BOOL))
        return kvp__fail(a->err, KVP_CONFIG, a->m->name, full,
                         "expected integers (one per layer or one for all), found bools");
    if (kv->type == KVP__GGUF_ARRAY) {
        kvp_status st = check_layer_array(a, kv, full);
        if (st) return st;
        v = kv->values[il];
    } else if (kv->type != KVP__GGUF_STRING) {
        v = kv->fval;
    } else {
        return kvp__fail(a->err, KVP_CONFIG, a->m->name, full, "expected a number, found a string");
    }
    if (!(v >= 0) || v > 4294967295.0 || v != floor(v))
        return kvp__fail(a->err, KVP_CONFIG, a->m->name, full,
                         "layer %u: %g is not a non-negative integer", il, v);
    *out = (uint64_t)v;
    return KVP_OK;
}

static bool has(const arch_ctx *a, const char *suffix) {
    char full[256];
    return akey(a, suffix, full, sizeof full) != NULL;
}

static bool is(const char *arch, const char *name) { return strcmp(arch, name) == 0; }

typedef struct swa_rule {
    const char *arch;
    uint32_t pattern;
    bool dense_first;
    uint32_t default_window; /* 0: SWA only when the key states a window > 0 */
    bool chunked;
    bool broadcast; /* a scalar pattern key is every layer's flag, not a period */
} swa_rule;

/* llama_hparams::set_swa_pattern per architecture (ENGINES.md §3.6; the src/models/ loaders
 * of llama.cpp 0.4.0, checked by the engine test). Period p: a layer is SWA when
 * il % p < p - 1 (dense_first: il % p != 0); p = 0 makes every layer SWA. */
static const swa_rule k_swa_rules[] = {
    {"gemma2", 2, false, 4096, false, false},    {"gemma3", 6, false, 0, false, false},
    {"gemma3n", 5, false, 0, false, false},      {"gemma-embedding", 6, false, 0, false, false},
    {"cohere2", 4, false, 0, false, false},      {"llama4", 4, false, 8192, true, false},
    {"gpt-oss", 2, false, 0, false, false},      {"olmo2", 4, false, 0, false, false},
    {"afmoe", 4, false, 0, false, false},        {"exaone4", 4, false, 0, false, false},
    {"exaone-moe", 4, false, 128, false, false}, {"smallthinker", 4, true, 4096, false, false},
    {"cohere2moe", 4, true, 0, false, false},    {"laguna", 4, true, 0, false, false},
    {"mellum", 4, false, 0, false, false},       {"muse-glimmer", 4, false, 0, false, false},
    {"plamo3", 8, false, 0, false, false},
    /* get_key_or_arr into is_swa_impl: an array per layer, a scalar for all layers. */
    {"gemma4", 1, false, 0, false, true},        {"step35", 1, false, 0, false, true},
    {"mimo2", 1, false, 0, false, true},         {"granite_swa", 1, false, 0, false, true},
    /* LFM2: a window makes every attention (non-recurrent) layer SWA (not LFM2-MoE). */
    {"lfm2", 0, false, 0, false, false},
};

static kvp_status swa_layers(const arch_ctx *a, bool *swa, uint64_t *window, bool *chunked) {
    const swa_rule *rule = NULL;
    for (size_t i = 0; i < sizeof k_swa_rules / sizeof k_swa_rules[0]; i++)
        if (is(a->arch, k_swa_rules[i].arch)) rule = &k_swa_rules[i];
    uint64_t n_swa = rule ? rule->default_window : 0;
    bool found;
    kvp_status st = get_u64(a, "attention.sliding_window", &n_swa, &found);
    if (st) return st;
    if (!found && rule) n_swa = rule->default_window;
    *window = n_swa;
    *chunked = rule && rule->chunked;
    if (is(a->arch, "phi3")) n_swa = 0; /* SWA disabled in llama.cpp */
    /* llama_model_exaone4: sliding windows only for the 64-layer (32B) model. */
    if (is(a->arch, "exaone4") && a->n_layer != 64) n_swa = 0;
    /* llama_model_llama4: chunks of 8192 unless the key states 0 (then none). */
    if (is(a->arch, "llama4") && n_swa > 0) *window = n_swa = 8192;
    /* llama_model_smallthinker: any stated window > 0 becomes 4096. */
    if (is(a->arch, "smallthinker") && n_swa > 0) *window = n_swa = 4096;
    char full[256];
    const kvp__gguf_kv *pat = akey(a, "attention.sliding_window_pattern", full, sizeof full);
    if (n_swa == 0) return KVP_OK;
    if (pat && pat->type == KVP__GGUF_ARRAY) {
        if ((st = check_layer_array(a, pat, full))) return st;
        for (uint32_t il = 0; il < a->n_layer; il++) swa[il] = pat->values[il] != 0;
        return KVP_OK;
    }
    uint64_t p = rule ? rule->pattern : 0;
    bool dense_first = rule && rule->dense_first;
    if (pat) {
        if (pat->type == KVP__GGUF_STRING || !pat->is_int || pat->ival < 0)
            return kvp__fail(a->err, KVP_CONFIG, a->m->name, full,
                             "expected a layer period or a per-layer array");
        if (rule && rule->broadcast) {
            for (uint32_t il = 0; il < a->n_layer; il++) swa[il] = pat->ival != 0;
            return KVP_OK;
        }
        p = (uint64_t)pat->ival;
    } else if (!rule) {
        return KVP_OK; /* the architecture has no SWA in llama.cpp */
    }
    for (uint32_t il = 0; il < a->n_layer; il++) {
        if (p == 0)
            swa[il] = true;
        else if (p == 1)
            swa[il] = false;
        else
            swa[il] = dense_first ? (il % p != 0) : (il % p < p - 1);
    }
    return KVP_OK;
}

typedef enum layer_role { ROLE_ATTN = 1, ROLE_REC = 2 } layer_role;

static kvp_status layer_roles(const arch_ctx *a, uint32_t il, unsigned *roles) {
    const char *x = a->arch;
    uint64_t kv = 0, ff = 0;
    kvp_status st;
    if (is(x, "mamba") || is(x, "mamba2") || is(x, "rwkv6") || is(x, "rwkv7") ||
        is(x, "arwkv7") || is(x, "rwkv6qwen2")) {
        *roles = ROLE_REC;
        return KVP_OK;
    }
    if (is(x, "falcon-h1")) {
        *roles = ROLE_ATTN | ROLE_REC;
        return KVP_OK;
    }
    if (is(x, "qwen3next") || is(x, "qwen35") || is(x, "qwen35moe")) {
        uint64_t interval = 4;
        bool found;
        if ((st = get_u64(a, "full_attention_interval", &interval, &found))) return st;
        if (interval == 0) interval = 4;
        *roles = (il + 1) % interval == 0 ? ROLE_ATTN : ROLE_REC;
        return KVP_OK;
    }
    uint64_t heads = 0;
    if ((st = get_layer(a, "attention.head_count", il, 0, &heads, NULL))) return st;
    if ((st = get_layer(a, "attention.head_count_kv", il, heads, &kv, NULL))) return st;
    if (is(x, "jamba") || is(x, "plamo2") || is(x, "granitehybrid") || is(x, "lfm2") ||
        is(x, "lfm2moe")) {
        *roles = kv == 0 ? ROLE_REC : ROLE_ATTN;
        return KVP_OK;
    }
    if (is(x, "nemotron_h") || is(x, "nemotron_h_moe")) {
        if ((st = get_layer(a, "feed_forward_length", il, 0, &ff, NULL))) return st;
        *roles = kv > 0 ? ROLE_ATTN : (ff == 0 ? ROLE_REC : 0);
        return KVP_OK;
    }
    /* Every other arch's cache is one llama_kv_cache over all layers
     * (llama_hparams::has_kv is true by default): a layer with no KV heads (Deci /
     * Nemotron-NAS attention-free blocks) keeps a cache of zero-width K rows and,
     * without flash attention, V rows padded to the widest layer. */
    (void)kv;
    *roles = ROLE_ATTN;
    return KVP_OK;
}

/* llama.cpp archs that keep no KV cache or recurrent state for generation
 * (encoders, embedding models, diffusion LMs, codecs: create_memory makes none). */
static const char *const k_no_cache[] = {
    "clip", "bert", "modern-bert", "nomic-bert", "nomic-bert-moe", "neo-bert", "jina-bert-v2",
    "jina-bert-v3", "eurobert", "t5encoder", "gemma-embedding", "llama-embed", "dream",
    "llada", "llada-moe", "rnd1", "wavtokenizer-dec", "pockettts", "qwen3tts",
};
/* llama.cpp archs whose cache layout kvplan does not model. */
static const char *const k_unmodelled[] = {
    "deepseek4", "qwen4exp", "dots3note", "kimi-linear", "kimi-k3", "minimax-m3",
    "bailingmoe3", "gemma4-assistant", "eagle3", "dflash", "graniteswitch", "minimax-01",
};

/* The llama.cpp archs kvplan plans: each one is compared with llama.cpp 0.4.0 by
 * the engine test (tests/engine/, docs/accuracy.md), which fails when one of these
 * is missing from its run. Sorted (bsearch). */
static const char *const k_checked[] = {
    "afmoe", "apertus", "arcee", "arctic", "arwkv7", "baichuan", "bailingmoe", "bailingmoe2",
    "bitnet", "bloom", "chameleon", "chatglm", "codeshell", "cogvlm", "cohere2", "cohere2moe",
    "command-r", "dbrx", "deci", "deepseek", "deepseek2", "deepseek32", "dots1", "ernie4_5",
    "ernie4_5-moe", "exaone", "exaone-moe", "exaone4", "falcon", "falcon-h1", "gemma", "gemma2",
    "gemma3", "gemma3n", "gemma4", "glm-dsa", "glm4", "glm4moe", "gpt-oss", "gpt2", "gptneox",
    "granite", "granite_swa", "granitehybrid", "granitemoe", "grok", "grovemoe", "hunyuan-dense",
    "hunyuan-moe", "hunyuan_vl", "hy_v3", "internlm2", "jais", "jais2", "jamba", "lfm2", "lfm2moe",
    "llama", "llama4", "maincoder", "mamba", "mamba2", "mellum", "mimo2", "minicpm", "minicpm3",
    "minimax-m2", "mistral3", "mistral4", "mpt", "muse-glimmer", "nanbeige", "nemotron",
    "nemotron_h", "nemotron_h_moe", "olmo", "olmo2", "olmoe", "openelm", "orion", "paddleocr",
    "pangu-embedded", "phi2", "phi3", "phimoe", "plamo", "plamo2", "plamo3", "plm", "qwen",
    "qwen2", "qwen2moe", "qwen2vl", "qwen3", "qwen35", "qwen35moe", "qwen3moe", "qwen3next",
    "qwen3vl", "qwen3vlmoe", "refact", "rwkv6", "rwkv6qwen2", "rwkv7", "seed_oss", "smallthinker",
    "smollm3", "stablelm", "starcoder", "starcoder2", "step35", "t5", "talkie", "xverse",
};

static int cmp_name(const void *key, const void *elem) {
    return strcmp((const char *)key, *(const char *const *)elem);
}

/* Why kvplan refuses `arch`, NULL when it plans it. */
static const char *unmodelled_reason(const char *arch) {
    if (bsearch(arch, k_checked, sizeof k_checked / sizeof k_checked[0], sizeof k_checked[0],
                cmp_name))
        return NULL;
    for (size_t i = 0; i < sizeof k_no_cache / sizeof k_no_cache[0]; i++)
        if (strcmp(arch, k_no_cache[i]) == 0)
            return "keeps no KV cache for generation in llama.cpp (an encoder, embedding, "
                   "diffusion or codec model)";
    for (size_t i = 0; i < sizeof k_unmodelled / sizeof k_unmodelled[0]; i++)
        if (strcmp(arch, k_unmodelled[i]) == 0)
            return "has a cache layout kvplan does not model (compressed, lightning-attention, "
                   "multi-stream or draft-model caches)";
    return "is not one kvplan models: no rule of it is checked against llama.cpp";
}

/* Recurrent state geometry (llama_hparams::n_embd_r / n_embd_s); false when the
 * metadata does not state it. */
static kvp_status recurrent_geometry(const arch_ctx *a, uint64_t n_embd,
                                     kvp_recurrent_geometry *g, bool *ok) {
    memset(g, 0, sizeof *g);
    *ok = false;
    bool f1, f2, f3, f4, f5;
    uint64_t conv = 0, inner = 0, state = 0, rank = 0, groups = 0;
    kvp_status st;
    if (is(a->arch, "rwkv6") || is(a->arch, "rwkv7") || is(a->arch, "arwkv7") ||
        is(a->arch, "rwkv6qwen2")) {
        uint64_t shift = 2, head = 0;
        if ((st = get_u64(a, "token_shift_count", &shift, &f1)) ||
            (st = get_u64(a, "wkv.head_size", &head, &f2)))
            return st;
        if (!f1) shift = 2;
        if (!f2 || !n_embd) return KVP_OK;
        /* n_embd_r = token_shift_count * n_embd; n_embd_s = n_embd * head_size. */
        g->conv_kernel = (uint32_t)shift + 1;
        g->heads = (uint32_t)n_embd;
        g->head_dim = 1;
        g->state_dim = (uint32_t)head;
        *ok = true;
        return KVP_OK;
    }
    if (is(a->arch, "lfm2") || is(a->arch, "lfm2moe")) {
        uint64_t l_cache = 0;
        if ((st = get_u64(a, "shortconv.l_cache", &l_cache, &f1))) return st;
        if (!f1 || !n_embd) return KVP_OK;
        g->conv_kernel = (uint32_t)l_cache; /* n_embd_r = n_embd * (l_cache - 1), no S */
        g->heads = (uint32_t)n_embd;
        g->head_dim = 1;
        *ok = true;
        return KVP_OK;
    }
    if ((st = get_u64(a, "ssm.conv_kernel", &conv, &f1)) ||
        (st = get_u64(a, "ssm.inner_size", &inner, &f2)) ||
        (st = get_u64(a, "ssm.state_size", &state, &f3)) ||
        (st = get_u64(a, "ssm.time_step_rank", &rank, &f4)) ||
        (st = get_u64(a, "ssm.group_count", &groups, &f5)))
        return st;
    if (!f1 || !f2 || !f3) {
        /* A geometry that states llama.cpp's row widths directly (n_embd_r, n_embd_s,
         * as its recurrent log line implies): conv = (k - 1) * 1, ssm = 1 * 1 * s. */
        uint64_t er = 0, es = 0;
        if ((st = get_u64(a, "n_embd_r", &er, &f1)) || (st = get_u64(a, "n_embd_s", &es, &f2)))
            return st;
        if (!f1 && !f2) return KVP_OK;
        if (er >= UINT32_MAX || es > UINT32_MAX)
            return kvp__fail(a->err, KVP_CONFIG, a->m->name, "n_embd_r", "absurd state width");
        g->conv_kernel = (uint32_t)er + 1;
        g->heads = 1;
        g->head_dim = 1;
        g->state_dim = (uint32_t)es;
        *ok = true;
        return KVP_OK;
    }
    if (conv > 4096 || inner > (1u << 24) || state > 65536 || groups > 65536)
        return kvp__fail(a->err, KVP_CONFIG, a->m->name, "ssm", "absurd SSM geometry");
    /* conv = (d_conv - 1) * (d_inner + 2 * n_group * d_state); ssm = d_state * d_inner. */
    if (rank > 0 && inner % rank == 0 && !is(a->arch, "mamba") && !is(a->arch, "jamba")) {
        g->heads = (uint32_t)rank;
        g->head_dim = (uint32_t)(inner / rank);
    } else {
        g->heads = (uint32_t)inner;
        g->head_dim = 1;
    }
    g->state_dim = (uint32_t)state;
    /* Mamba-1 loaders (mamba, jamba) do not read ssm.group_count: n_group stays 0. */
    g->groups = is(a->arch, "mamba") || is(a->arch, "jamba") ? 0u : (uint32_t)groups;
    g->group_dim = (uint32_t)state;
    g->conv_kernel = (uint32_t)conv;
    *ok = true;
    return KVP_OK;
}

kvp_status kvp__gguf_build_model(const kvp__gguf_meta *m, const kvp_allocator *alc,
                                 kvp_model **out, kvp_error *err) {
    *out = NULL;
    const kvp__gguf_kv *ak = kvp__gguf_find(m, "general.architecture");
    if (!ak || ak->type != KVP__GGUF_STRING || !ak->str || !ak->str[0] || strlen(ak->str) > 60)
        return kvp__fail(err, KVP_CONFIG, m->name, "general.architecture",
                         "missing or not a short string");
    const char *why = unmodelled_reason(ak->str);
    if (why)
        return kvp__fail(err, KVP_UNSUPPORTED, m->name, "general.architecture",
                         "llama.cpp arch '%s' %s", ak->str, why);
    arch_ctx a = {m, ak->str, 0, err};
    uint64_t n_layer = 0, n_embd = 0, ctx = 0, v;
    bool found;
    kvp_status st = get_u64(&a, "block_count", &n_layer, &found);
    if (st) return st;
    if (!found || n_layer == 0 || n_layer > KVP_MAX_LAYERS)
        return kvp__fail(err, KVP_CONFIG, m->name, "block_count",
                         "%s.block_count missing or out of range (1..%u)", a.arch, KVP_MAX_LAYERS);
    a.n_layer = (uint32_t)n_layer;
    if ((st = get_u64(&a, "embedding_length", &n_embd, &found))) return st;
    if ((st = get_u64(&a, "context_length", &ctx, &found))) return st;

    bool *swa = kvp__calloc(alc, (size_t)n_layer, sizeof *swa);
    if (!swa) return kvp__fail(err, KVP_NOMEM, m->name, NULL, "out of memory");
    uint64_t window = 0;
    bool chunked = false;
    kvp_model *model = NULL;
    if ((st = swa_layers(&a, swa, &window, &chunked))) goto done;

    model = kvp__model_new(alc, m->name);
    if (!model) {
        st = kvp__fail(err, KVP_NOMEM, m->name, NULL, "out of memory");
        goto done;
    }
    kvp_model_info *info = kvp__model_info(model);
    kvp__strlcpy(info->model_type, a.arch, sizeof info->model_type);
    kvp__strlcpy(info->architecture, a.arch, sizeof info->architecture);
    info->num_layers = (uint32_t)n_layer;
    info->hidden_size = n_embd;
    info->max_position_embeddings = ctx;
    info->dtype = KVP_DTYPE_FP16;
    info->dtype_stated = false;
    if (!(st = get_u64(&a, "vocab_size", &v, &found)) && found) info->vocab_size = v;
    if (!st && !(st = get_u64(&a, "expert_count", &v, &found)) && found)
        info->num_experts = (uint32_t)(v > UINT32_MAX ? UINT32_MAX : v);
    if (!st && !(st = get_u64(&a, "expert_used_count", &v, &found)) && found)
        info->num_experts_per_tok = (uint32_t)(v > UINT32_MAX ? UINT32_MAX : v);
    if (st) goto done;
    if (info->num_experts && info->num_experts_per_tok > info->num_experts) {
        char key[96];
        snprintf(key, sizeof key, "%s.expert_used_count", a.arch);
        st = kvp__fail(err, KVP_CONFIG, m->name, key,
                       "routes each token to %u experts, but %s.expert_count is %u",
                       info->num_experts_per_tok, a.arch, info->num_experts);
        goto done;
    }

    uint64_t nextn = 0, shared = 0, lora = 0, idx_len = 0;
    if ((st = get_u64(&a, "nextn_predict_layers", &nextn, &found)) ||
        (st = get_u64(&a, "attention.shared_kv_layers", &shared, &found)) ||
        (st = get_u64(&a, "attention.kv_lora_rank", &lora, &found)) ||
        (st = get_u64(&a, "attention.indexer.key_length", &idx_len, &found)))
        goto done;
    if (nextn > n_layer || shared > n_layer || idx_len > KVP_MAX_HEAD_DIM) {
        st = kvp__fail(err, KVP_CONFIG, m->name, "nextn_predict_layers",
                       "next-n / shared KV layers exceed the %llu blocks",
                       (unsigned long long)n_layer);
        goto done;
    }
    info->num_nextn_predict_layers = (uint32_t)nextn;
    uint64_t kv_end = n_layer - (nextn > shared ? nextn : shared);
    /* Gemma 3n: llama_model_gemma3n sets n_layer_kv_from_start = 20; the layers
     * after it reuse the cache of layer 18 (SWA) or 19 (full) and own none. */
    if (is(a.arch, "gemma3n") && kv_end > 20) kv_end = 20;
    bool is_mla = has(&a, "attention.key_length_mla") && has(&a, "attention.value_length_mla");
    info->is_mla = is_mla;
    info->sliding_window = (uint32_t)(window > UINT32_MAX ? 0 : window);
    if (chunked) info->attention_chunk_size = info->sliding_window;
    bool any_attn = false, any_rec = false, any_zero_kv = false;
    kvp_recurrent_geometry rec_g; /* the recurrent state shape, once read */
    memset(&rec_g, 0, sizeof rec_g);
    bool rec_read = false, rec_ok = false;

    for (uint32_t il = 0; il < n_layer && !st; il++) {
        unsigned roles;
        if ((st = layer_roles(&a, il, &roles))) break;
        if ((roles & ROLE_ATTN) && il < kv_end) {
            uint64_t heads, kvh, kl, vl;
            if ((st = get_layer(&a, "attention.head_count", il, 0, &heads, NULL)) ||
                (st = get_layer(&a, "attention.head_count_kv", il, heads, &kvh, NULL)))
                break;
            /* Geometry from a log may state KV heads and head sizes without the query
             * heads; when the heads are stated, the KV heads must divide them. */
            if (!is_mla && heads && kvh && (kvh > heads || heads % kvh != 0)) {
                char key[96];
                snprintf(key, sizeof key, "%s.attention.head_count_kv", a.arch);
                st = kvp__fail(err, KVP_CONFIG, m->name, key,
                               "layer %u: %llu KV heads do not divide the %llu attention heads",
                               il, (unsigned long long)kvh, (unsigned long long)heads);
                break;
            }
            uint64_t def_dim = heads ? n_embd / heads : 0;
            if ((st = get_layer(&a, "attention.key_length", il, def_dim, &kl, NULL)) ||
                (st = get_layer(&a, "attention.value_length", il, def_dim, &vl, NULL)))
                break;
            if (swa[il]) {
                bool fk, fv;
                uint64_t kls, vls;
                if ((st = get_layer(&a, "attention.key_length_swa", il, kl, &kls, &fk)) ||
                    (st = get_layer(&a, "attention.value_length_swa", il, vl, &vls, &fv)))
                    break;
                kl = kls;
                vl = vls;
            }
            if (kvh == 0) kvh = is_mla ? 1 : 0;
            if (kvh == 0) {
                /* A layer without KV heads: kept with zero-width rows (see layer_roles). */
                kvp_layer_cache z;
                memset(&z, 0, sizeof z);
                z.layer = il;
                z.kind = swa[il] ? (chunked ? KVP_CACHE_CHUNKED : KVP_CACHE_SLIDING)
                                 : KVP_CACHE_FULL;
                z.window_tokens = swa[il] ? window : 0;
                any_zero_kv = true;
                if ((st = kvp__model_add_cache(model, &z, err))) break;
                continue;
            }
            if (kl == 0 && heads == 0) {
                char key[96];
                snprintf(key, sizeof key, "%s.attention.head_count", a.arch);
                st = kvp__fail(err, KVP_CONFIG, m->name, key,
                               "layer %u: missing, and no attention.key_length either: the head "
                               "size is unknown",
                               il);
                break;
            }
            if (kl == 0 || kl > KVP_MAX_HEAD_DIM || vl > KVP_MAX_HEAD_DIM || kvh > KVP_MAX_HEADS) {
                st = kvp__fail(err, KVP_CONFIG, m->name, "attention.key_length",
                               "layer %u: head size %llu / %llu or %llu KV heads out of range "
                               "(state %s.attention.key_length or embedding_length)",
                               il, (unsigned long long)kl, (unsigned long long)vl,
                               (unsigned long long)kvh, a.arch);
                break;
            }
            kvp_layer_cache c;
            memset(&c, 0, sizeof c);
            c.layer = il;
            if (is_mla) {
                /* K-only latent row of kv_lora_rank + rope (converter: key_length). */
                c.kind = KVP_CACHE_MLA;
                c.kv_heads = 1;
                c.k_head_dim = (uint32_t)kl;
                c.replicated = true;
                if (!info->kv_lora_rank) {
                    info->kv_lora_rank = (uint32_t)(lora ? lora : vl);
                    info->qk_rope_head_dim =
                        (uint32_t)(kl > info->kv_lora_rank ? kl - info->kv_lora_rank : 0);
                }
            } else {
                c.kind = swa[il] ? (chunked ? KVP_CACHE_CHUNKED : KVP_CACHE_SLIDING)
                                 : KVP_CACHE_FULL;
                c.kv_heads = (uint32_t)kvh;
                c.k_head_dim = (uint32_t)kl;
                c.v_head_dim = (uint32_t)vl;
                c.window_tokens = swa[il] ? window : 0;
            }
            if (!any_attn) {
                info->num_attention_heads = (uint32_t)heads;
                info->num_kv_heads = c.kv_heads;
                info->head_dim = (uint32_t)kl;
            }
            any_attn = true;
            if ((st = kvp__model_add_cache(model, &c, err))) break;
            if (idx_len) {
                kvp_layer_cache ix = kvp__indexer_cache(il, (uint32_t)idx_len);
                if ((st = kvp__model_add_cache(model, &ix, err))) break;
            }
        }
        if (roles & ROLE_REC) {
            /* The same for every layer (llama_hparams::n_embd_r/s): read once,
             * on the first recurrent layer (per layer, 80,000 layers cost
             * 400,000 key lookups: a fuzz_geometry timeout). */
            if (!rec_read) {
                if ((st = recurrent_geometry(&a, n_embd, &rec_g, &rec_ok))) break;
                rec_read = true;
            }
            if (!rec_ok) continue;
            kvp_recurrent_geometry g = rec_g;
            kvp_layer_cache c;
            memset(&c, 0, sizeof c);
            c.layer = il;
            c.kind = KVP_CACHE_RECURRENT;
            c.kv_heads = g.heads;
            c.recurrent = g;
            any_rec = true;
            if ((st = kvp__model_add_cache(model, &c, err))) break;
        }
    }
    /* Some attention-free blocks (Deci) are legal; a model whose every layer has
     * 0 KV heads and no recurrent state caches nothing: a broken header, not a
     * budget question. */
    if (!st && any_zero_kv && !any_attn && !any_rec) {
        char key[96];
        snprintf(key, sizeof key, "%s.attention.head_count_kv", a.arch);
        st = kvp__fail(err, KVP_CONFIG, m->name, key,
                       "0 KV heads in every layer: the model would cache nothing (an attention "
                       "model needs at least one KV head)");
    }
    info->is_hybrid_recurrent = any_attn && any_rec;
    /* No config: the facts come from the info, config-only keys unknown. */
    if (!st) st = kvp__model_read_facts(model, NULL, NULL, NULL, err);
done:
    kvp__free(alc, swa);
    if (st) {
        kvp_model_free(model);
        return st;
    }
    *out = model;
    return KVP_OK;
}
