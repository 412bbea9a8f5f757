/*
 * policy.c — what the engine policies share: settings defaults, the normalised
 * layer list, version strings, and the dispatch to one engine (ENGINES.md §0).
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "kvplan/cost.h"
#include "engine_ops.h"
#include "policy_internal.h"
#include "model_internal.h"

kvp_policy_settings kvp_policy_settings_default(void) {
    kvp_policy_settings s;
    memset(&s, 0, sizeof s);
    s.engine = KVP_ENGINE_TRTLLM;
    s.tp = 1;
    s.pp = 1;
    s.dp = 1;
    s.kv_unified = -1;
    s.swa_full = -1;
    s.flash_attn = -1;
    return s;
}

void kvp__policy_note(kvp_policy_result *out, const char *fmt, ...) {
    if (out->note_count >= KVP_POLICY_MAX_NOTES) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->notes[out->note_count], KVP_POLICY_NOTE_MAX, fmt, ap);
    va_end(ap);
    out->note_count++;
}

bool kvp__policy_contains(const char *text, const char *needle) {
    if (!text || !needle) return false;
    size_t n = strlen(needle);
    for (const char *p = text; *p; p++) {
        size_t i = 0;
        while (i < n && p[i] && tolower((unsigned char)p[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n) return true;
    }
    return n == 0;
}

bool kvp__policy_version(const char *text, uint32_t *out) {
    if (!text) return false;
    for (const char *p = text; *p; p++) {
        if (!isdigit((unsigned char)*p)) continue;
        if (p > text && p[-1] != 'v' && p[-1] != 'V' &&
            (isalnum((unsigned char)p[-1]) || p[-1] == '.'))
            continue;
        unsigned long v[3] = {0, 0, 0};
        int parts = 0;
        const char *q = p;
        while (parts < 3 && isdigit((unsigned char)*q)) {
            unsigned long x = 0;
            int digits = 0;
            while (isdigit((unsigned char)*q) && digits < 6) {
                x = x * 10 + (unsigned long)(*q - '0');
                q++;
                digits++;
            }
            v[parts++] = x;
            if (*q == '.' && isdigit((unsigned char)q[1]))
                q++;
            else
                break;
        }
        if (parts >= 2 && v[0] < 100 && v[1] < 100 && v[2] < 100) {
            *out = (uint32_t)(v[0] * 10000 + v[1] * 100 + v[2]);
            return true;
        }
    }
    return false;
}

/* Case-insensitive: does `p` start with `word`? */
static bool starts_ci(const char *p, const char *word) {
    for (; *word; p++, word++)
        if (!*p || tolower((unsigned char)*p) != tolower((unsigned char)*word)) return false;
    return true;
}

uint32_t kvp__policy_build_number(const char *text) {
    if (!text) return 0;
    for (const char *p = text; *p; p++) {
        const char *q = NULL;
        if ((*p == 'b' || *p == 'B') && isdigit((unsigned char)p[1]) &&
            (p == text || !isalnum((unsigned char)p[-1])))
            q = p + 1;
        else if (tolower((unsigned char)p[0]) == 'b' && tolower((unsigned char)p[1]) == 'u' &&
                 tolower((unsigned char)p[2]) == 'i' && tolower((unsigned char)p[3]) == 'l' &&
                 tolower((unsigned char)p[4]) == 'd') {
            q = p + 5;
            while (*q == ':' || *q == ' ' || *q == '=') q++;
            if (!isdigit((unsigned char)*q)) q = NULL;
        } else if (starts_ci(p, "version")) {
            /* llama-server --version: "version: 7445 (4b2a4778f)"; a dotted release
             * ("ollama version 0.12.3") is not a build number (rejected below). */
            q = p + 7;
            while (*q == ':' || *q == ' ' || *q == '=') q++;
            if (!isdigit((unsigned char)*q)) q = NULL;
        }
        if (!q) continue;
        unsigned long x = 0;
        int digits = 0;
        while (isdigit((unsigned char)*q) && digits < 7) {
            x = x * 10 + (unsigned long)(*q - '0');
            q++;
            digits++;
        }
        if (x > 0 && x < 10000000ul && *q != '.') return (uint32_t)x;
    }
    return 0;
}

kvp_dtype kvp__policy_runtime_dtype(const kvp_model *model) {
    const kvp_model_info *info = kvp_model_get_info(model);
    if (info->dtype == KVP_DTYPE_AUTO) return KVP_DTYPE_BF16;
    if (info->dtype != KVP_DTYPE_FP32) return info->dtype;
    /* vLLM / SGLang --dtype auto never run a float32 checkpoint in float32: they
     * downcast to float16, or to bfloat16 for the models float16 breaks
     * (vllm config _get_and_verify_dtype: gemma2, gemma3, plamo2, glm4). */
    static const char *const k_bf16[] = {"gemma2", "gemma3", "plamo2", "glm4"};
    for (size_t i = 0; i < sizeof k_bf16 / sizeof k_bf16[0]; i++)
        if (!strncmp(info->model_type, k_bf16[i], strlen(k_bf16[i]))) return KVP_DTYPE_BF16;
    return KVP_DTYPE_FP16;
}

kvp_dtype kvp__policy_auto_dtype(const kvp_model *model) {
    const kvp_model_info *info = kvp_model_get_info(model);
    if (info->kv_dtype_declared != KVP_DTYPE_AUTO) return info->kv_dtype_declared;
    return kvp__policy_runtime_dtype(model);
}

bool kvp__policy_kv_dtype_auto(const kvp_model *model, const char *text, kvp_dtype *dtype,
                               char *name, size_t n) {
    if (!text || !*text || kvp__strcasecmp(text, "auto") == 0) {
        *dtype = kvp__policy_auto_dtype(model);
        kvp__strlcpy(name, kvp_dtype_name(*dtype), n);
        return true;
    }
    kvp__strlcpy(name, text, n);
    return false;
}

void kvp__policy_pp_range(uint32_t num_layers, uint32_t pp, uint32_t stage, uint32_t *begin,
                          uint32_t *end) {
    if (pp == 0) pp = 1;
    uint32_t base = num_layers / pp, rem = num_layers % pp;
    uint32_t b = 0;
    for (uint32_t s = 0; s <= stage && s < pp; s++) {
        /* partitions[-i] += 1 for i in 2 .. rem+1: stages pp-2 down to pp-1-rem. */
        uint32_t n = base + ((rem > 0 && s + 1 < pp && s + 1 + rem >= pp) ? 1u : 0u);
        if (s == stage) {
            *begin = b;
            *end = b + n;
            return;
        }
        b += n;
    }
    *begin = *end = num_layers;
}

/* ---------------------------------------------------------------- layer list */

void kvp__policy_layers_free(kvp__policy_layers *layers) {
    if (!layers) return;
    kvp__free(layers->alc, layers->items);
    layers->items = NULL;
    layers->count = 0;
}

kvp_status kvp__policy_layers_load(const kvp_model *model, uint32_t draft_layers,
                                   const kvp_allocator *alc, kvp__policy_layers *out,
                                   kvp_error *err) {
    const kvp_model_info *info = kvp_model_get_info(model);
    size_t n = kvp_model_cache_count(model);
    memset(out, 0, sizeof *out);
    out->alc = alc;
    out->num_layers = info->num_layers;
    bool has_indexer = false, has_mla = false;
    for (size_t i = 0; i < n; i++) {
        const kvp_layer_cache *c = kvp_model_cache(model, i);
        if (c->kind == KVP_CACHE_INDEXER) has_indexer = true;
        if (c->kind == KVP_CACHE_MLA) has_mla = true;
        if (c->layer + 1 > out->num_layers) out->num_layers = c->layer + 1;
    }
    kvp_fact_u64 ihd = kvp_model_get_facts(model)->index_head_dim;
    uint64_t index_head_dim = ihd.value;
    bool add_indexer = has_mla && !has_indexer && ihd.state == KVP_FACT_STATED &&
                       index_head_dim > 0 && index_head_dim <= 65536u;
    size_t extra = draft_layers + (add_indexer ? n : 0);
    if (draft_layers > 1024)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "num_draft_layers",
                         "%u drafter layers, expected at most 1024", draft_layers);
    size_t cap = n + extra;
    out->items = kvp__calloc(alc, cap ? cap : 1, sizeof *out->items);
    if (!out->items) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
    const kvp_layer_cache *last_attn = NULL;
    for (size_t i = 0; i < n; i++) {
        const kvp_layer_cache *c = kvp_model_cache(model, i);
        out->items[out->count++] = *c;
        if (c->kind == KVP_CACHE_FULL || c->kind == KVP_CACHE_MLA) last_attn = c;
        if (add_indexer && c->kind == KVP_CACHE_MLA) {
            /* DSA lightning indexer: fp8 keys of index_head_dim plus one fp32
             * scale per 128 (ENGINES.md §2.3; SGLang PR #11309). */
            out->items[out->count++] = kvp__indexer_cache(c->layer, (uint32_t)index_head_dim);
        }
    }
    if (draft_layers && !last_attn)
        return kvp__fail(err, KVP_INVALID_ARG, kvp_model_name(model), "num_draft_layers",
                         "the model has no attention layer a drafter could copy");
    for (uint32_t d = 0; d < draft_layers; d++) {
        kvp_layer_cache c = *last_attn;
        c.layer = out->num_layers + d;
        out->items[out->count++] = c;
    }
    return KVP_OK;
}

/* ---------------------------------------------------------------- dispatch */

kvp_status kvp_policy_plan(const kvp_model *model, const kvp_policy_settings *settings,
                           kvp_policy_result *out, kvp_error *err) {
    if (!model || !out)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "model and result are required");
    kvp_policy_settings s = settings ? *settings : kvp_policy_settings_default();
    if (!s.alc) s.alc = kvp_model_allocator(model);
    if (s.tp == 0) s.tp = 1;
    if (s.pp == 0) s.pp = 1;
    if (s.dp == 0) s.dp = 1;
    if (s.tp > 65536 || s.pp > 65536 || s.dp > 65536)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "tp",
                         "parallel sizes above 65536 are not supported");
    /* No device holds 64 PiB: a larger figure is a unit slip or a hostile caller,
     * and refusing it keeps every pool product below 2^64. */
    const struct { uint64_t v; const char *key; } mem[] = {
        {s.kv_budget_bytes, "kv_budget_bytes"}, {s.total_memory_bytes, "total_bytes"},
        {s.free_memory_bytes, "free_bytes"},    {s.weights_bytes, "weights_bytes"},
        {s.peak_activation_bytes, "peak_bytes"}, {s.non_torch_bytes, "non_torch_bytes"},
        {s.cudagraph_bytes, "cuda_graph_bytes"},
    };
    for (size_t i = 0; i < sizeof mem / sizeof mem[0]; i++)
        if (mem[i].v > KVP__POLICY_MAX_MEMORY_BYTES)
            return kvp__fail(err, KVP_INVALID_ARG, NULL, mem[i].key,
                             "%llu bytes is above the 64 PiB a plan accepts",
                             (unsigned long long)mem[i].v);
    /* Heads that do not divide by the attention TP are refused by every engine
     * (llama.cpp has no TP: its policy refuses tp > 1 by itself). */
    /* vLLM plans DeepSeek-V4's caches of one entry per r tokens exactly (vllm_v4.c).
     * SGLang's split of memory across its V4 pools is not stated in the reference
     * (ENGINES.md §2.6: "[unknown]"), and llama.cpp has no such cache (deepseek4 is
     * refused): both refuse rather than guess a split. */
    if (s.engine == KVP_ENGINE_SGLANG || s.engine == KVP_ENGINE_LLAMACPP) {
        kvp_status ast = kvp_cost_require_affine(
            model,
            s.engine == KVP_ENGINE_SGLANG
                ? "the SGLang policy (how SGLang splits memory across its DeepSeek-V4 pools is "
                  "[unknown] in ENGINES.md §2.6)"
                : "the llama.cpp policy",
            err);
        if (ast) return ast;
    }
    if (s.engine != KVP_ENGINE_LLAMACPP) {
        uint32_t attn_tp = s.tp;
        if (s.enable_dp_attention && s.dp > 1 && s.tp % s.dp == 0) attn_tp = s.tp / s.dp;
        kvp_status tst = kvp_cost_check_tp(model, attn_tp, err);
        if (tst) return tst;
    }
    memset(out, 0, sizeof *out);
    out->engine = s.engine;
    kvp__strlcpy(out->engine_version, s.engine_version, sizeof out->engine_version);
    out->tp = s.tp;
    out->pp = s.pp;
    if (kvp_model_get_info(model)->family_unverified)
        kvp__policy_note(out, "unverified family: kvplan has no hand-checked config of model_type "
                              "\"%s\"; its cache was read with the generic rules",
                         kvp_model_get_info(model)->model_type);
    const kvp__engine_ops *ops = kvp__engine_ops_of(s.engine);
    if (!ops)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "engine", "unknown engine %d",
                         (int)s.engine);
    return ops->plan(model, &s, out, err);
}
