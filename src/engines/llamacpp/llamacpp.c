/*
 * llamacpp.c — the llama.cpp policy (ENGINES.md §3): no budget; the context
 * size, sequences and cache types decide the cache exactly. Reproduces the
 * `llama_kv_cache: size = ... MiB (N cells, L layers, s/t seqs), K (type): ...,
 * V (type): ...` lines of the main and SWA caches and the recurrent-state line.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy_internal.h"
#include "engine_ops.h"
#include "line_sink.h"
#include "startup_internal.h"

typedef struct ggml_kv_type {
    const char *name;
    uint32_t block;       /* elements per block */
    uint32_t block_bytes; /* bytes per block */
} ggml_kv_type;

/* ggml/src/ggml-common.h block layouts (§3.5). */
static const ggml_kv_type k_types[] = {
    {"f32", 1, 4},     {"f16", 1, 2},     {"bf16", 1, 2},    {"q8_0", 32, 34}, {"q4_0", 32, 18},
    {"q4_1", 32, 20},  {"q5_0", 32, 22},  {"q5_1", 32, 24},  {"iq4_nl", 32, 18},
};

static const ggml_kv_type *find_type(const char *name) {
    if (!name || !*name) return &k_types[1];
    for (size_t i = 0; i < sizeof k_types / sizeof k_types[0]; i++)
        if (kvp__strcasecmp(name, k_types[i].name) == 0) return &k_types[i];
    return NULL;
}

kvp_status kvp_llamacpp_row_bytes(const char *type_name, uint64_t n, uint64_t *out_bytes,
                                  kvp_error *err) {
    const ggml_kv_type *t = find_type(type_name);
    if (!t)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "type_k",
                         "llama.cpp has no cache type '%s' (expected f32, f16, bf16, q8_0, q4_0, "
                         "q4_1, q5_0, q5_1, iq4_nl)",
                         type_name);
    if (n % t->block != 0)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "type_k",
                         "a row of %llu elements is not a multiple of the %s block (%u)",
                         (unsigned long long)n, t->name, t->block);
    if (!kvp__mul_u64(n / t->block, t->block_bytes, out_bytes))
        return kvp__fail(err, KVP_OVERFLOW, NULL, NULL, "row bytes overflow");
    return KVP_OK;
}

/* *sum += a * b, false on overflow. */
static bool acc(uint64_t *sum, uint64_t a, uint64_t b) {
    uint64_t p;
    return kvp__mul_u64(a, b, &p) && kvp__add_u64(*sum, p, sum);
}

static uint64_t pad_to(uint64_t x, uint64_t n) { return n ? (x + n - 1) / n * n : x; }

/* One reported cache of the context (K and V bytes already summed without overflow). */
/* `cells`: the cells it holds, every stream's (a cell is one token's row in each
 * layer; a recurrent cell one sequence's state), so block_bytes is one cell. */
static void add_pool(kvp_policy_result *out, const char *name, kvp_cache_kind kind,
                     uint32_t layers, uint32_t block_size_tokens, uint64_t tokens, uint64_t cells,
                     uint64_t k, uint64_t v) {
    kvp_policy_pool *p = &out->pools[out->pool_count++];
    kvp__strlcpy(p->name, name, sizeof p->name);
    p->kind = kind;
    p->layers = layers;
    p->block_size_tokens = block_size_tokens;
    p->tokens = tokens;
    p->k_bytes = k;
    p->v_bytes = v;
    p->bytes = k + v;
    p->blocks = cells;
    p->block_bytes = cells ? p->bytes / cells : 0;
}

/* "2025-08" style dates in a version string: year*100 + month, 0 when none. */
static uint32_t find_date(const char *v) {
    if (!v) return 0;
    for (const char *p = v; p[0]; p++) {
        if (p[0] == '2' && p[1] == '0' && isdigit((unsigned char)p[2]) &&
            isdigit((unsigned char)p[3]) && p[4] == '-' && isdigit((unsigned char)p[5]) &&
            isdigit((unsigned char)p[6]))
            return (uint32_t)(atoi(p) * 100 + atoi(p + 5));
    }
    return 0;
}

/* "0.4.0", "v0.4.0-dev": a llama.cpp release numbered major.minor.patch (major 0). */
static bool semver_release(const char *v) {
    if (!v) return false;
    if (*v == 'v' || *v == 'V') v++;
    if (v[0] != '0' || v[1] != '.' || !isdigit((unsigned char)v[2])) return false;
    v += 2;
    while (isdigit((unsigned char)*v)) v++;
    if (*v++ != '.' || !isdigit((unsigned char)*v)) return false;
    while (isdigit((unsigned char)*v)) v++;
    return *v == 0 || *v == '-';
}

/* Architectures whose GGUF keeps sliding-window layers (§3.6); every other
 * architecture (llama, mistral, qwen2, phi3 ...) caches SWA layers in full. */
static bool arch_has_swa(const char *t) {
    static const char *const k_swa[] = {
        "gemma2", "gemma3", "gemma3_text", "gemma3n", "gemma3n_text", "gemma4", "gemma4_text",
        "cohere2", "llama4", "llama4_text", "gpt_oss", "gpt-oss", "olmo2", "olmo3", "afmoe",
        "exaone4", "exaone_moe", "exaone-moe", "smallthinker", "plamo3", "modernbert",
        "modern-bert", "mimo2", "mimo_v2_flash", "mimo_v2", "step3p5", "step35",
        "muse-glimmer", "granite_swa", "laguna", "mellum", "cohere2moe", "lfm2",
    };
    for (size_t i = 0; i < sizeof k_swa / sizeof k_swa[0]; i++)
        if (kvp__strcasecmp(t, k_swa[i]) == 0) return true;
    return false;
}

typedef struct lc_cache {
    uint32_t layers;
    uint64_t k, v; /* bytes */
} lc_cache;

/* Hugging Face families whose llama.cpp architecture keeps a cache kvplan has
 * not checked against llama.cpp: the GGUF reader refuses these archs by name
 * (k_unmodelled in src/model/gguf_arch.c, docs/families.md), and ENGINES.md §3
 * states no llama.cpp rule for KDA, lightning or MiniMax-M3 index caches, so the
 * same model read from its config.json is refused too rather than sized by the
 * Mamba-shaped recurrent formula below. DeepSeek-V4 (deepseek4) is refused
 * earlier, at compress_ratios (policy.c). */
static const char *unmodelled_arch(const char *model_type) {
    static const struct { const char *hf, *arch; } k_unmodelled[] = {
        {"kimi_linear", "kimi-linear"}, {"kimi_k3", "kimi-k3"},
        {"minimax_m3", "minimax-m3"},   {"minimax", "minimax-01"},
        {"minimax_text_01", "minimax-01"}, {"minimax_m1", "minimax-01"},
    };
    for (size_t i = 0; i < sizeof k_unmodelled / sizeof k_unmodelled[0]; i++)
        if (kvp__strcasecmp(model_type, k_unmodelled[i].hf) == 0) return k_unmodelled[i].arch;
    return NULL;
}

kvp_status kvp__policy_llamacpp(const kvp_model *model, const kvp_policy_settings *s,
                                kvp_policy_result *out, kvp_error *err) {
    const kvp_model_info *info = kvp_model_get_info(model);
    const char *arch = unmodelled_arch(info->model_type);
    if (arch)
        return kvp__fail(err, KVP_UNSUPPORTED, kvp_model_name(model), "model_type",
                         "\"%s\" is llama.cpp's %s architecture, whose cache (linear-attention "
                         "state or index keys) kvplan has not checked against llama.cpp; "
                         "refusing rather than guessing its size (vLLM and SGLang plan it)",
                         info->model_type, arch);
    if (s->tp > 1)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "tp",
                         "llama.cpp has no tensor parallelism (tp %u); its split modes place "
                         "whole layers and the cache size does not change",
                         s->tp);
    if (s->pp > 1)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "pp",
                         "llama.cpp has no pipeline parallelism option (pp %u)", s->pp);
    const ggml_kv_type *tk = find_type(s->type_k), *tv = find_type(s->type_v);
    if (!tk || !tv)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, tk ? "type_v" : "type_k",
                         "llama.cpp has no cache type '%s' (expected f32, f16, bf16, q8_0, q4_0, "
                         "q4_1, q5_0, q5_1, iq4_nl)",
                         tk ? s->type_v : s->type_k);
    if (s->kv_dtype[0] && kvp__strcasecmp(s->kv_dtype, "auto") && !s->type_k[0]) {
        tk = find_type(s->kv_dtype);
        if (!tk) {
            kvp_dtype dt;
            if (kvp_dtype_parse(s->kv_dtype, &dt) == KVP_OK)
                tk = dt == KVP_DTYPE_FP32 ? &k_types[0] : dt == KVP_DTYPE_BF16 ? &k_types[2]
                     : dt == KVP_DTYPE_FP16 ? &k_types[1] : NULL;
            if (!tk)
                return kvp__fail(err, KVP_INVALID_ARG, NULL, "kv_dtype",
                                 "llama.cpp has no cache type '%s'", s->kv_dtype);
        }
        if (!s->type_v[0]) tv = tk;
    }
    kvp__strlcpy(out->kv_dtype_name, tk->name, sizeof out->kv_dtype_name);
    kvp__strlcpy(out->type_v_name, tv->name, sizeof out->type_v_name);
    out->kv_dtype = tk == &k_types[0] ? KVP_DTYPE_FP32 : tk == &k_types[2] ? KVP_DTYPE_BF16
                                                                             : KVP_DTYPE_FP16;

    /* Era from the build number or the date / log naming in the version string. */
    const char *ver = s->engine_version;
    uint32_t build = kvp__policy_build_number(ver);
    uint32_t date = find_date(ver);
    bool new_padding, mla_v;
    if (semver_release(ver)) {
        /* llama.cpp's numbered releases ("0.4.0", "v0.4.0-dev": llama_version() of
         * node-llama-cpp@3.21.1's libllama, 2026-09) postdate every build-number
         * rule below; the engine test (tests/engine/) checks this one. */
        new_padding = true;
        mla_v = false;
    } else if (build) {
        new_padding = build >= 7000; /* [uncertain] PR #17046, ≈b7000; b6182 is old */
        mla_v = build < 6600;        /* llama_kv_cache_unified builds stored V for MLA */
    } else if (date) {
        new_padding = date >= 202511;
        mla_v = date < 202510;
    } else if (kvp__policy_contains(ver, "unified") || kvp__policy_contains(ver, "mid-2025") ||
               kvp__policy_contains(ver, "early 2025") || kvp__policy_contains(ver, "2024")) {
        new_padding = false;
        mla_v = true;
    } else {
        new_padding = true;
        mla_v = false;
    }
    bool swa_f16 = kvp__policy_contains(ver, "swa-f16"); /* [uncertain] PR #21277 */
    /* [uncertain] MLA caches arrived in spring 2025 (≈b5000); older builds read
     * DeepSeek GGUFs without the *_mla keys and cache full MHA rows (§3.7). */
    bool pre_mla = (build && build < 5000) || (date && date < 202504) ||
                   kvp__policy_contains(ver, "pre-mla");
    snprintf(out->era, sizeof out->era, "%s%s", new_padding ? "pad256" : "pad-old",
             mla_v ? "+mla-v" : "");

    /* Checked first, as llama_init_from_model does: "model does not support different
     * K (%s) and V (%s) cache types" for MLA models (one latent, in the K type). */
    if (info->is_mla && tk != tv)
        return kvp__fail(err, KVP_INVALID_ARG, kvp_model_name(model), "type_v",
                         "model does not support different K (%s) and V (%s) cache types",
                         tk->name, tv->name);

    int fa = s->flash_attn;
    /* llama_init_from_model: "flash_attn is not compatible with Grok - forcing off",
     * before the quantized-V check below. */
    bool grok = kvp__strcasecmp(info->architecture, "grok") == 0;
    if (grok && fa != 0) {
        kvp__policy_note(out, "flash_attn is not compatible with Grok - forcing off");
        fa = 0;
    }
    /* Unset: "-fa auto" (≈b6250+) resolves to on for the GPU backends; before it, off. */
    if (fa < 0) fa = (new_padding || build >= 6250) ? 1 : 0;
    bool v_quant = tv->block > 1;
    if (v_quant && (s->flash_attn == 0 || grok))
        /* llama_init_from_model's own reason (the engine test compares it). */
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "type_v",
                         "quantized V cache requires flash_attn to be enabled (type %s with "
                         "-fa off)",
                         tv->name);

    uint32_t n_seq = s->n_seq_max ? s->n_seq_max : 1;
    if (n_seq > KVP__LLAMA_MAX_SEQ)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "n_seq_max",
                         "n_seq_max %u is above llama.cpp's limit of 256", n_seq);
    /* Builds before per-sequence streams (≈b6000, mid-2025) keep one cache for all
     * sequences ("non-unified KV cache requires ggml_set_rows() - forcing unified"). */
    bool unified = s->kv_unified == 1 || (build && build < 6000) || (date && date < 202508);
    /* The context length of one request (--max-seq-len, --max-model-len,
     * --context-length: its meaning under every engine) is llama-server's slot
     * context n_ctx_seq, which llama_context derives from -c as
     * n_ctx_seq = kv_unified ? n_ctx : n_ctx / n_seq_max (ENGINES.md §3.1): the
     * n_ctx it asks for is the length, times the slots unless the cache is unified.
     * -c itself keeps its llama.cpp meaning, the context of all slots. */
    uint64_t n_ctx = s->n_ctx;
    if (!n_ctx && s->max_model_len && !kvp__mul_u64(s->max_model_len, unified ? 1 : n_seq, &n_ctx))
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "max_seq_len", "context %llu x %u slots "
                         "is too large", (unsigned long long)s->max_model_len, n_seq);
    if (!n_ctx) n_ctx = info->max_position_embeddings;
    if (n_ctx == 0)
        return kvp__fail(err, KVP_INVALID_ARG, kvp_model_name(model), "n_ctx",
                         "--ctx-size 0 needs the train context length, which the model lacks");
    if (n_ctx > (1ull << 32))
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "n_ctx", "context %llu is too large",
                         (unsigned long long)n_ctx);
    uint64_t n_batch = s->n_batch ? s->n_batch : 2048, n_ubatch = s->n_ubatch ? s->n_ubatch : 512;
    if (n_batch > n_ctx) n_batch = n_ctx;
    if (n_ubatch > n_batch) n_ubatch = n_batch;
    uint64_t n_ctx_seq, pad_old = fa ? 256 : 32;
    if (new_padding) {
        n_ctx = pad_to(n_ctx, 256);
        if (unified) {
            n_ctx_seq = n_ctx;
        } else {
            n_ctx_seq = pad_to(n_ctx / n_seq, 256);
            n_ctx = n_ctx_seq * n_seq;
        }
    } else {
        n_ctx = pad_to(n_ctx, pad_old);
        n_ctx_seq = unified ? n_ctx : n_ctx / n_seq;
    }
    uint32_t n_stream = unified ? 1 : n_seq;
    out->n_ctx = n_ctx;
    out->n_ctx_seq = n_ctx_seq;
    out->n_seq_max = n_seq;
    out->n_stream = n_stream;
    out->max_model_len = n_ctx_seq;

    bool honor_swa = arch_has_swa(info->model_type) || arch_has_swa(info->architecture);
    size_t n = kvp_model_cache_count(model);
    /* Widest V row: without flash attention V is stored transposed and padded to it. */
    uint64_t v_max = 0, v_min = UINT64_MAX;
    uint64_t swa_window = 0;
    for (size_t i = 0; i < n; i++) {
        const kvp_layer_cache *c = kvp_model_cache(model, i);
        if (c->kind == KVP_CACHE_FULL || c->kind == KVP_CACHE_SLIDING ||
            c->kind == KVP_CACHE_CHUNKED) {
            uint64_t vr = (uint64_t)c->v_head_dim * c->kv_heads;
            if (vr > v_max) v_max = vr;
            if (vr < v_min) v_min = vr;
            if (honor_swa && c->kind != KVP_CACHE_FULL && c->window_tokens > swa_window)
                swa_window = c->window_tokens;
        }
    }
    /* llama_hparams::is_n_embd_v_gqa_variable: over every layer, zero-width ones too. */
    bool pad_v = v_max && v_min != v_max && !fa;
    if (pad_v) kvp__policy_note(out, "padding V cache to %llu (no flash attention)",
                                (unsigned long long)v_max);

    uint64_t size_swa = 0;
    bool swa_full = s->swa_full == 1;
    if (swa_window) {
        if (swa_full) {
            size_swa = n_ctx_seq;
            kvp__policy_note(out, "using full-size SWA cache");
        } else if (new_padding) {
            uint64_t want = swa_window * (unified ? n_seq : 1) + n_ubatch;
            size_swa = pad_to(want < n_ctx_seq ? want : n_ctx_seq, 256);
        } else {
            uint64_t want = pad_to(swa_window * n_seq + n_ubatch, pad_old);
            size_swa = want < n_ctx_seq ? want : n_ctx_seq;
        }
    }
    out->swa_tokens = size_swa;

    lc_cache main_c = {0, 0, 0}, swa_c = {0, 0, 0}, idx_c = {0, 0, 0};
    uint64_t rec_r = 0, rec_s = 0, rec_total_check = 0;
    uint32_t rec_layers = 0;
    uint64_t mem_size = n_seq;
    const ggml_kv_type *swa_tk = swa_f16 ? &k_types[1] : tk, *swa_tv = swa_f16 ? &k_types[1] : tv;
    for (size_t i = 0; i < n; i++) {
        const kvp_layer_cache *c = kvp_model_cache(model, i);
        uint64_t kr = 0, vr = 0, kb = 0, vb = 0;
        kvp_status st;
        switch (c->kind) {
        case KVP_CACHE_FULL:
        case KVP_CACHE_SLIDING:
        case KVP_CACHE_CHUNKED: {
            bool swa = honor_swa && c->kind != KVP_CACHE_FULL && swa_window;
            kr = (uint64_t)c->k_head_dim * c->kv_heads;
            vr = pad_v ? v_max : (uint64_t)c->v_head_dim * c->kv_heads;
            uint64_t cells = (swa ? size_swa : n_ctx_seq) * n_stream;
            if ((st = kvp_llamacpp_row_bytes((swa ? swa_tk : tk)->name, kr, &kb, err)) ||
                (st = kvp_llamacpp_row_bytes((swa ? swa_tv : tv)->name, vr, &vb, err)))
                return st;
            lc_cache *dst = swa ? &swa_c : &main_c;
            dst->layers++;
            if (!acc(&dst->k, kb, cells) || !acc(&dst->v, vb, cells)) goto overflow;
            break;
        }
        case KVP_CACHE_MLA: {
            /* K-only latent of kv_lora_rank + rope; mid-2025 builds also kept V of kv_lora_rank. */
            kr = c->k_head_dim;
            uint64_t lora = info->kv_lora_rank ? info->kv_lora_rank
                                               : (c->k_head_dim > 64 ? c->k_head_dim - 64u : 0u);
            vr = mla_v ? lora : 0;
            if (pre_mla && info->num_attention_heads && info->qk_nope_head_dim &&
                info->v_head_dim) {
                /* GGUFs of builds before MLA support: a full MHA cache of n_head heads. */
                kr = (uint64_t)info->num_attention_heads *
                     ((uint64_t)info->qk_nope_head_dim + info->qk_rope_head_dim);
                vr = (uint64_t)info->num_attention_heads * info->v_head_dim;
            }
            if ((st = kvp_llamacpp_row_bytes(tk->name, kr, &kb, err)) ||
                (vr && (st = kvp_llamacpp_row_bytes(tv->name, vr, &vb, err))))
                return st;
            main_c.layers++;
            if (!acc(&main_c.k, kb, n_ctx_seq * n_stream) ||
                !acc(&main_c.v, vb, n_ctx_seq * n_stream))
                goto overflow;
            break;
        }
        case KVP_CACHE_INDEXER:
            /* Separate indexer cache (llama_kv_cache_dsa): one key head of the
             * indexer head size per indexer layer, in the -ctk type like the main
             * cache (it is a llama_kv_cache built with type_k), no V (MLA). */
            if ((st = kvp_llamacpp_row_bytes(tk->name, c->k_head_dim, &kb, err))) return st;
            idx_c.layers++;
            if (!acc(&idx_c.k, kb, n_ctx_seq * n_stream)) goto overflow;
            break;
        case KVP_CACHE_RECURRENT: {
            const kvp_recurrent_geometry *r = &c->recurrent;
            uint64_t inner, grp, width, n_embd_r, n_embd_s;
            if (!kvp__mul_u64(r->heads, r->head_dim, &inner) ||
                !kvp__mul_many_u64(&grp, 3, (uint64_t)2, (uint64_t)r->groups,
                                   (uint64_t)r->group_dim) ||
                !kvp__add_u64(inner, grp, &width) ||
                !kvp__mul_u64(width, r->conv_kernel ? r->conv_kernel - 1u : 0u, &n_embd_r) ||
                !kvp__mul_u64(inner, r->state_dim, &n_embd_s) ||
                !acc(&rec_r, n_embd_r, 4 * mem_size) || !acc(&rec_s, n_embd_s, 4 * mem_size))
                goto overflow;
            rec_layers++;
            break;
        }
        default:
            return kvp__fail(err, KVP_UNSUPPORTED, kvp_model_name(model), NULL,
                             "layer %u: llama.cpp has no rule for %s caches", c->layer,
                             kvp_cache_kind_name(c->kind));
        }
    }
    if (swa_window && swa_c.layers == 0) out->swa_tokens = 0;
    if (!kvp__add_u64(main_c.k, main_c.v, &rec_total_check) ||
        !kvp__add_u64(swa_c.k, swa_c.v, &rec_total_check) || !kvp__add_u64(rec_r, rec_s, &rec_total_check))
        goto overflow;

    kvp_engine_report *rep = &out->report;
    if (main_c.layers) {
        rep->kv_size_bytes = main_c.k + main_c.v;
        rep->k_size_bytes = main_c.k;
        rep->v_size_bytes = main_c.v;
        rep->cells = n_ctx_seq;
        rep->present |= KVP_REPORT_KV_SIZE_BYTES | KVP_REPORT_K_SIZE_BYTES |
                        KVP_REPORT_V_SIZE_BYTES | KVP_REPORT_CELLS;
    }
    if (swa_c.layers) {
        rep->swa_kv_size_bytes = swa_c.k + swa_c.v;
        rep->present |= KVP_REPORT_SWA_KV_SIZE_BYTES;
    }
    if (rec_layers) {
        rep->recurrent_size_bytes = rec_r + rec_s;
        rep->present |= KVP_REPORT_RECURRENT_SIZE_BYTES;
    }
    out->main_layers = main_c.layers;
    out->swa_layers = swa_c.layers;
    out->swa_k_bytes = swa_c.k;
    out->swa_v_bytes = swa_c.v;
    out->recurrent_layers = rec_layers;
    out->total_layers = info->num_layers;
    out->recurrent_r_bytes = rec_r;
    out->recurrent_s_bytes = rec_s;
    out->recurrent_cells = mem_size;
    out->indexer_bytes = idx_c.k;
    out->indexer_layers = idx_c.layers;

    /* llama_kv_cache_iswa makes its non-SWA cache even when every layer is SWA
     * (LFM2, PLaMo-3 with fewer layers than the period): 0 layers, 0 bytes. */
    if (main_c.layers || swa_c.layers)
        add_pool(out, swa_c.layers ? "non-swa" : "main", KVP_CACHE_FULL, main_c.layers, 1,
                 n_ctx_seq, n_ctx_seq * n_stream, main_c.k, main_c.v);
    if (swa_c.layers)
        add_pool(out, "swa", KVP_CACHE_SLIDING, swa_c.layers, 1, size_swa, size_swa * n_stream,
                 swa_c.k, swa_c.v);
    if (idx_c.layers)
        add_pool(out, "indexer", KVP_CACHE_INDEXER, idx_c.layers, 1, n_ctx_seq,
                 n_ctx_seq * n_stream, idx_c.k, 0);
    /* Recurrent: K holds the r (conv) states, V the s (SSM) states, one cell per sequence. */
    if (rec_layers)
        add_pool(out, "recurrent", KVP_CACHE_RECURRENT, rec_layers, 0, 0, mem_size, rec_r, rec_s);
    if (s->kv_budget_bytes) kvp__policy_note(out, "--kv-budget is ignored: llama.cpp has no KV budget");
    return KVP_OK;
overflow:
    return kvp__fail(err, KVP_OVERFLOW, kvp_model_name(model), "n_ctx",
                     "cache bytes overflow 64 bits (%llu cells)", (unsigned long long)n_ctx);
}

/* The lines llama.cpp prints at start-up for plan `r` (engine_ops.h
 * `startup_lines`): llama-context.cpp's "llama_context: n_seq_max ...", then per
 * cache llama-kv-cache-iswa.cpp / llama-kv-cache-dsa's "creating ... KV cache"
 * and llama-kv-cache.cpp's / llama-memory-recurrent.cpp's "size = ... MiB". */
static void llamacpp_startup_lines(const kvp_policy_result *r, const kvp__line_sink *out) {
    const double mib = 1048576.0;
    kvp__sink_line(out, "llama_context: n_seq_max = %u, n_ctx = %llu, n_ctx_seq = %llu",
                   r->n_seq_max, (unsigned long long)r->n_ctx, (unsigned long long)r->n_ctx_seq);
    for (uint32_t i = 0; i < r->pool_count; i++) {
        const kvp_policy_pool *p = &r->pools[i];
        if (p->kind == KVP_CACHE_RECURRENT) {
            kvp__sink_line(out,
                           "llama_memory_recurrent: size = %7.2f MiB (%6llu cells, %3u layers, %2u "
                           "seqs), R (f32): %7.2f MiB, S (f32): %7.2f MiB",
                           (double)p->bytes / mib, (unsigned long long)r->recurrent_cells,
                           r->total_layers, r->n_seq_max, (double)p->k_bytes / mib,
                           (double)p->v_bytes / mib);
            continue;
        }
        if (!strcmp(p->name, "non-swa"))
            kvp__sink_line(out, "llama_kv_cache_iswa: creating non-SWA KV cache, size = %llu cells",
                           (unsigned long long)p->tokens);
        else if (!strcmp(p->name, "swa"))
            kvp__sink_line(out, "llama_kv_cache_iswa: creating     SWA KV cache, size = %llu cells",
                           (unsigned long long)p->tokens);
        else if (!strcmp(p->name, "indexer"))
            kvp__sink_line(out, "llama_kv_cache_dsa: creating indexer KV cache, size = %llu cells",
                           (unsigned long long)p->tokens);
        else if (!strcmp(p->name, "main") && r->indexer_layers)
            kvp__sink_line(out, "llama_kv_cache_dsa: creating main KV cache, size = %llu cells",
                           (unsigned long long)p->tokens);
        /* The indexer cache is a llama_kv_cache of the -ctk / -ctv types too. */
        kvp__sink_line(out,
                       "llama_kv_cache: size = %7.2f MiB (%6llu cells, %3u layers, %2u/%u seqs), "
                       "K (%s): %7.2f MiB, V (%s): %7.2f MiB",
                       (double)p->bytes / mib, (unsigned long long)p->tokens, p->layers,
                       r->n_seq_max, r->n_stream, r->kv_dtype_name, (double)p->k_bytes / mib,
                       r->type_v_name, (double)p->v_bytes / mib);
    }
}

/* The engine's record (engine_ops.h; its row of kvplan/engines.def). */
static const char *const k_aliases[] = {"llama.cpp", "llama-cpp", NULL};
static const char *const k_fit_kv_dtypes[] = {"f16", "q8_0", "q4_0", NULL};
const kvp__engine_ops kvp__engine_llamacpp = {
    .aliases = k_aliases,
    .len_flag = "--ctx-size",
    .help = "llama.cpp: the cache --ctx-size and --parallel ask for, no "
            "budget (--engine-version b7217)",
    .version_forms = "a build (b7217, 'version: 6000 (abc)'), a release (0.4.0), a year or "
                     "date (2025, 2025-08), or unified, latest",
    .newest_release = KVP__REL(0, 99, 0),
    .plan = kvp__policy_llamacpp,
    .startup_rules = kvp__startup_llamacpp,
    .startup_rule_count = &kvp__startup_llamacpp_count,
    .report_fields = KVP_REPORT_KV_SIZE_BYTES | KVP_REPORT_K_SIZE_BYTES | KVP_REPORT_V_SIZE_BYTES |
                     KVP_REPORT_CELLS | KVP_REPORT_SWA_KV_SIZE_BYTES |
                     KVP_REPORT_RECURRENT_SIZE_BYTES,
    .fit_kv_dtypes = k_fit_kv_dtypes,
    .sim_policy = NULL,
    /* neutral */
    .fixed_slots = true,
    .max_slots = KVP__LLAMA_MAX_SEQ,
    .kv_dtype_per_k_and_v = true,
    .allocates_as_asked = true,
    .profile = kvp__llamacpp_profile,
    .capacity = kvp__llamacpp_capacity,
    .admission_rule = "llama.cpp: --parallel slots, each of n_ctx / n_parallel cells allocated at "
                      "start-up (server.cpp)",
    .batch_cap_name = "--parallel slots",
    .details = kvp__llamacpp_details,
    .startup_lines = llamacpp_startup_lines,
};
