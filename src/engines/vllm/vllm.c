/*
 * vllm.c — the vLLM policy (ENGINES.md §1): "Available KV cache memory", the
 * per-layer KV specs and page sizes, grouping of layers into KV cache groups
 * with page-size unification, the block count, and the "GPU KV cache size" and
 * "Maximum concurrency" lines as each era computes them.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "policy_internal.h"
#include "engine_ops.h"
#include "line_sink.h"
#include "startup_internal.h"

typedef enum vllm_era { ERA_V0 = 0, ERA_V1_JAN25, ERA_V1_MID, ERA_V1_NEW } vllm_era;

typedef enum vtype { VT_FULL = 0, VT_SLIDING, VT_CHUNKED, VT_MLA, VT_INDEXER, VT_MAMBA, VT_CROSS } vtype;

static const char *const k_vtype_names[] = {"full", "sliding", "chunked", "mla",
                                            "indexer", "mamba", "cross"};

/* One distinct KV spec (vLLM KVCacheSpec) and the layers that carry it. */
typedef struct vspec {
    vtype type;
    uint64_t window;   /* sliding window / chunk / encoder length */
    uint64_t unit;     /* attention: bytes per token of one layer; mamba: state bytes */
    uint64_t page;     /* bytes of one block of one layer (after padding / unification) */
    uint32_t bs;       /* tokens per block of this spec */
    uint32_t count;    /* layers, all stages */
    uint32_t *layers;  /* layer ids in order */
    uint32_t groups;   /* KV cache groups this spec is split into */
    uint32_t spec_blocks; /* mamba: num_speculative_blocks (= num_speculative_tokens) */
} vspec;

#define MAX_SPECS 32

typedef struct vplan {
    vspec specs[MAX_SPECS];
    uint32_t nspec;
    bool uniform_type; /* one group of UniformTypeKVCacheSpecs */
    uint32_t group_size;
    uint32_t num_groups;
    uint64_t page;     /* unified page (mixed / single spec) */
    const kvp_allocator *alc; /* the specs' layer lists (the settings' allocator) */
} vplan;

static void vplan_free(vplan *p) {
    for (uint32_t i = 0; i < p->nspec; i++) kvp__free(p->alc, p->specs[i].layers);
}

/* Case-insensitive: does `p` start with the n characters of `word`? */
static bool starts_with_ci(const char *p, const char *word, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!p[i] || tolower((unsigned char)p[i]) != tolower((unsigned char)word[i])) return false;
    return true;
}

/* `word` in `v` with no letter, digit, '.' or '-' on either side ("v0" in
 * "0.8.5 v0" but not in "v0.8.5"). Case-insensitive. */
static bool has_word(const char *v, const char *word) {
    size_t n = strlen(word);
    for (const char *p = v; *p; p++) {
        if (starts_with_ci(p, word, n)) {
            char before = p > v ? p[-1] : ' ', after = p[n];
            bool wb = !(isalnum((unsigned char)before) || before == '.' || before == '-');
            bool wa = !(isalnum((unsigned char)after) || after == '.' || after == '-');
            if (wb && wa) return true;
        }
    }
    return false;
}

static vllm_era parse_era(const char *v, uint32_t *version, bool *have_version,
                          kvp_policy_result *out) {
    *have_version = false;
    *version = 0;
    if (!v || !*v) return ERA_V1_NEW;
    /* A stated era tag wins wherever it stands ("v1-mid 0.9.1", "0.9.1 v1-mid"); a
     * version next to it still decides the hybrid allocator and the budget formula. */
    *have_version = kvp__policy_version(v, version);
    if (kvp__policy_contains(v, "v1-jan25")) return ERA_V1_JAN25;
    if (kvp__policy_contains(v, "v1-mid")) return ERA_V1_MID;
    if (kvp__policy_contains(v, "v1-new")) return ERA_V1_NEW;
    bool says_v0 = has_word(v, "v0") || kvp__policy_contains(v, "v0 engine") ||
                   kvp__policy_contains(v, "VLLM_USE_V1=0");
    if (*have_version) {
        if (says_v0 || *version < 800) return ERA_V0; /* V1 became the default in 0.8.0 */
        /* [uncertain] PR #40694 (tokens = int(concurrency * len)) shipped after 0.19.0
         * and before 0.24; 0.20 is taken as the first release with it. */
        if (*version >= 2000) return ERA_V1_NEW;
        return ERA_V1_MID;
    }
    if (says_v0) return ERA_V0;
    /* A year or date: the line in force at its end (versions.c's table). */
    kvp_engine_release rel;
    if (kvp_engine_release_resolve(KVP_ENGINE_VLLM, v, &rel, NULL) == KVP_OK && rel.year)
        return !strcmp(rel.line, "v0") ? ERA_V0 : !strcmp(rel.line, "v1-mid") ? ERA_V1_MID
                                                                                : ERA_V1_NEW;
    kvp__policy_note(out, "engine version '%s' not understood; using the latest vLLM rules", v);
    return ERA_V1_NEW;
}

void kvp_vllm_release(const char *engine_version, uint32_t *version, bool *v0) {
    uint32_t v = 0;
    bool have = engine_version && kvp__policy_version(engine_version, &v);
    const char *t = engine_version ? engine_version : "";
    bool says_v0 = has_word(t, "v0") || kvp__policy_contains(t, "v0 engine") ||
                   kvp__policy_contains(t, "VLLM_USE_V1=0");
    if (!have) {
        /* An era tag alone: its last release (the budget's own reading, parse_era). */
        if (kvp__policy_contains(t, "v1-jan25")) v = 800;
        else if (kvp__policy_contains(t, "v1-mid")) v = 2000;
    }
    *version = v;
    *v0 = says_v0 || (have && v < 800); /* V1 became the default in 0.8.0 */
}

void kvp_vllm_batch_defaults(uint64_t gpu_bytes, const char *gpu_name, uint32_t version, bool v0,
                             bool llm_class, uint64_t max_model_len, int chunked_prefill,
                             uint64_t *max_num_batched_tokens, uint32_t *max_num_seqs) {
    uint64_t tokens;
    uint32_t seqs;
    if (v0) {
        /* _set_default_args_v0 and SchedulerConfig (MEMORY.md 7.3): chunked
         * prefill on by default only past 32,768 tokens (CUDA, no sliding
         * window, spec decode, LoRA, MM or MLA: the model is not known here, so
         * the pipeline passes chunked_prefill 0 for those, deploy_vllm.c). */
        bool chunked = chunked_prefill > 0 || (chunked_prefill < 0 && max_model_len > 32768);
        seqs = 256;
        tokens = chunked ? 2048 : (max_model_len > 2048 ? max_model_len : 2048);
    } else {
        bool a100 = false;
        for (const char *p = gpu_name ? gpu_name : ""; *p && !a100; p++)
            a100 = (p[0] == 'a' || p[0] == 'A') && p[1] == '1' && p[2] == '0' && p[3] == '0';
        /* get_batch_defaults from ~0.9: the large tier on >= 70 GiB not named A100;
         * the 0.7-0.8 copy has one tier (7.6). */
        bool big = (version == 0 || version >= 900) && gpu_bytes >= (70ull << 30) && !a100;
        tokens = big ? (llm_class ? 16384 : 8192) : (llm_class ? 8192 : 2048);
        seqs = big ? 1024 : 256;
        /* Without chunked prefill a step holds one whole prompt. */
        if (chunked_prefill == 0 && max_model_len > tokens) tokens = max_model_len;
    }
    if (seqs > tokens) seqs = (uint32_t)tokens;
    *max_num_batched_tokens = tokens;
    *max_num_seqs = seqs;
}

static const char *era_name(vllm_era e) {
    switch (e) {
    case ERA_V0: return "v0";
    case ERA_V1_JAN25: return "v1-jan25";
    case ERA_V1_MID: return "v1-mid";
    default: return "v1-new";
    }
}

/* The 2026 sizing rules (ADMISSION.md "vLLM (V1)", ENGINES.md 1.3), each from the
 * release that first carried it, so planned for "latest" (no version) and for a
 * release at or after it. The null block is PR #47272 (merged 2026-07-01); the
 * others have no release of their own in the references. [uncertain] 0.25 is taken
 * as the first release of all four: the first one after 2026-07-01 by the release
 * cadence (0.19 in April, 0.21 with graph profiling, 0.24 by mid-2026). */
#define VLLM_NULL_BLOCK_RELEASE 2500u   /* one block kept back in capacity checks, auto-fit */
#define VLLM_STAGE_CHECK_RELEASE 2500u  /* each PP worker checks only its own layers */
#define VLLM_PAGE_PADDING_RELEASE 2500u /* unequal pages padded instead of NotImplementedError */
#define VLLM_GDN_SPEC_CONV_RELEASE 2500u /* GDN conv state + num_speculative_tokens columns */

static bool vllm_rule(bool have_version, uint32_t version, vllm_era era, uint32_t first) {
    return have_version ? version >= first : era == ERA_V1_NEW;
}

/* KV dtype spellings of --kv-cache-dtype. */
typedef struct vdtype {
    kvp_dtype dtype;
    bool ds_mla;         /* fp8_ds_mla: 656-byte MLA rows */
    bool per_token_head; /* int8/fp8_per_token_head: fp32 scale per token and head, K and V */
    char name[24];
} vdtype;

static kvp_status parse_dtype(const kvp_model *model, const char *text, vdtype *d, kvp_error *err) {
    memset(d, 0, sizeof *d);
    if (kvp__policy_kv_dtype_auto(model, text, &d->dtype, d->name, sizeof d->name)) return KVP_OK;
    if (kvp__strcasecmp(text, "fp8_ds_mla") == 0) {
        d->dtype = KVP_DTYPE_FP8;
        d->ds_mla = true;
        return KVP_OK;
    }
    if (kvp__strcasecmp(text, "int8_per_token_head") == 0 ||
        kvp__strcasecmp(text, "fp8_per_token_head") == 0) {
        d->dtype = text[0] == 'i' ? KVP_DTYPE_INT8 : KVP_DTYPE_FP8;
        d->per_token_head = true;
        return KVP_OK;
    }
    if (kvp__strcasecmp(text, "fp8_inc") == 0) {
        d->dtype = KVP_DTYPE_FP8;
        return KVP_OK;
    }
    if (kvp_dtype_parse(text, &d->dtype) != KVP_OK || d->dtype == KVP_DTYPE_AUTO)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "kv_dtype",
                         "vLLM has no KV cache dtype '%s' (expected auto, bfloat16, float16, fp8, "
                         "fp8_e4m3, fp8_e5m2, fp8_ds_mla, nvfp4, int8_per_token_head, "
                         "fp8_per_token_head)",
                         text);
    return KVP_OK;
}

/* Bytes per token of one attention layer on one rank (page = bs * this). */
static kvp_status attn_unit(const kvp_model *model, const kvp_layer_cache *c, const vdtype *d,
                            uint32_t tp, uint64_t *out, kvp_error *err) {
    const kvp_model_info *info = kvp_model_get_info(model);
    uint64_t h = c->kv_heads ? c->kv_heads : 1;
    if (c->kind == KVP_CACHE_MLA) {
        /* One latent row every rank stores in full (§1.3). */
        if (d->ds_mla) {
            uint64_t lora = info->kv_lora_rank ? info->kv_lora_rank : 512;
            uint64_t rope = info->qk_rope_head_dim ? info->qk_rope_head_dim : 64;
            *out = lora + lora / 128 * 4 + rope * 2;
            return KVP_OK;
        }
        if (kvp_dtype_bytes(d->dtype, c->k_head_dim, out) != KVP_OK) goto ovf;
        return KVP_OK;
    }
    if (c->kind == KVP_CACHE_INDEXER) {
        if (c->dtype != KVP_DTYPE_FP8 && c->dtype != KVP_DTYPE_AUTO) {
            /* MiniMax-M3 index keys: one head in the indexer dtype (bf16), whatever
             * --kv-cache-dtype says (FAMILIES.md). */
            if (kvp_dtype_bytes(c->dtype, c->k_head_dim, out) != KVP_OK) goto ovf;
            return KVP_OK;
        }
        /* fp8 keys plus one fp32 scale per 128 elements, stored as uint8. */
        *out = (uint64_t)c->k_head_dim + (uint64_t)c->k_head_dim / 128 * 4;
        return KVP_OK;
    }
    if (d->ds_mla)
        return kvp__fail(err, KVP_INVALID_ARG, kvp_model_name(model), "kv_dtype",
                         "fp8_ds_mla is for MLA models only; layer %u is %s attention", c->layer,
                         kvp_cache_kind_name(c->kind));
    if (!c->replicated) h = h / tp ? h / tp : 1; /* max(1, H // tp) */
    uint64_t elems, bytes;
    if (!kvp__mul_u64(h, (uint64_t)c->k_head_dim + c->v_head_dim, &elems)) goto ovf;
    kvp_dtype dt = c->dtype != KVP_DTYPE_AUTO ? c->dtype : d->dtype;
    if (kvp_dtype_bytes(dt, elems, &bytes) != KVP_OK) goto ovf;
    if (d->per_token_head) bytes += 2 * h * 4;
    *out = bytes;
    return KVP_OK;
ovf:
    return kvp__fail(err, KVP_OVERFLOW, kvp_model_name(model), NULL,
                     "layer %u: bytes per token overflow", c->layer);
}

/* Kimi linear attention (kimi_linear, kimi_k3): the KDA layers' state. */
static bool is_kda_model(const kvp_model *model) {
    const char *t = kvp_model_get_info(model)->model_type;
    return !strcmp(t, "kimi_linear") || !strcmp(t, "kimi_k3");
}

/* The dtypes of one layer's state (ENGINES.md 1.3 "Dtypes"; vLLM
 * MambaStateDtypeCalculator). Conv: --mamba-cache-dtype, AUTO the model dtype (a
 * dtype the config states for it wins over the model's). SSM: --mamba-ssm-cache-dtype;
 * AUTO takes the config's mamba_ssm_dtype when present (Qwen3.5: float32), else a
 * cache dtype key of the config, else the conv dtype (vLLM's help: "auto: determined
 * by mamba_cache_dtype"). Two families have no SSM option (FAMILIES.md): KDA's
 * recurrent state is fp32 whatever is asked, and a lightning state (no conv part)
 * is the mamba cache dtype. A replicated state (DeepSeek-V4's compressor) is fp32 in
 * every engine and takes neither option. */
static void state_dtypes(const kvp_model *model, const kvp_layer_cache *c,
                         const kvp_policy_settings *s, kvp_dtype *conv, kvp_dtype *ssm) {
    const kvp_recurrent_geometry *r = &c->recurrent;
    kvp_dtype mdt = kvp__policy_runtime_dtype(model);
    kvp_dtype cd = r->conv_dtype != KVP_DTYPE_AUTO ? r->conv_dtype : mdt;
    if (s->mamba_cache_dtype != KVP_DTYPE_AUTO && !c->replicated) cd = s->mamba_cache_dtype;
    kvp_dtype sd = cd;
    const char *cfg = kvp_model_get_facts(model)->mamba_ssm_dtype;
    kvp_dtype x;
    if (cfg[0] && kvp_dtype_parse(cfg, &x) == KVP_OK && x != KVP_DTYPE_AUTO)
        sd = x;
    else if (r->ssm_dtype != KVP_DTYPE_AUTO)
        sd = r->ssm_dtype;
    if (c->replicated || is_kda_model(model)) {
        sd = r->ssm_dtype != KVP_DTYPE_AUTO ? r->ssm_dtype : KVP_DTYPE_FP32;
    } else if (r->conv_kernel == 0) {
        sd = cd; /* lightning: MambaStateDtypeCalculator.linear_attention_state_dtype */
    } else if (s->mamba_ssm_cache_dtype != KVP_DTYPE_AUTO) {
        sd = s->mamba_ssm_cache_dtype;
    }
    *conv = cd;
    *ssm = sd;
}

/* Mamba / GDN state of one layer on one rank, in the dtypes above. A KDA
 * layer's conv state keeps kernel - 1 + num_speculative_tokens positions
 * (FAMILIES.md "Kimi linear attention": vLLM widens the conv state by the
 * speculative tokens; MambaStateShapeCalculator.kda_state_shape(num_spec)), and from
 * the 2026 rules a GDN layer's too (gdn_spec_conv). */
static kvp_status mamba_state(const kvp_model *model, const kvp_layer_cache *c,
                              const kvp_policy_settings *s, bool gdn_spec_conv, uint64_t *out,
                              kvp_error *err) {
    const kvp_recurrent_geometry *r = &c->recurrent;
    uint32_t tp = s->tp, num_spec = s->num_speculative_tokens;
    kvp_dtype cd, sd;
    state_dtypes(model, c, s, &cd, &sd);
    uint64_t heads = r->heads, groups = r->groups;
    if (heads % tp != 0)
        return kvp__fail(err, KVP_CONFIG, kvp_model_name(model), "recurrent heads",
                         "layer %u: %u recurrent heads do not divide over TP %u", c->layer,
                         r->heads, tp);
    heads /= tp;
    if (groups) groups = groups % tp == 0 ? groups / tp : 1; /* replicated groups */
    uint64_t inner, grp, width, conv_e, ssm_e, cb, sb;
    uint64_t positions = r->conv_kernel ? r->conv_kernel - 1u : 0u;
    /* GDN (Qwen3-Next, Qwen3.5/3.6) under the 2026 rules likewise: one conv column per
     * speculative token (MambaStateShapeCalculator.gated_delta_net_state_shape(...,
     * num_spec): conv (conv_dim / tp, conv_kernel - 1 + num_spec); ENGINES.md 1.3). */
    bool gdn = kvp_model_get_facts(model)->weights.gated_delta_net && r->conv_kernel > 0 &&
               !c->replicated;
    if (is_kda_model(model) || (gdn && gdn_spec_conv)) positions += num_spec;
    if (!kvp__mul_u64(heads, r->head_dim, &inner) ||
        !kvp__mul_many_u64(&grp, 3, (uint64_t)2, groups, (uint64_t)r->group_dim) ||
        !kvp__add_u64(inner, grp, &width) ||
        !kvp__mul_u64(width, positions, &conv_e) ||
        !kvp__mul_u64(inner, r->state_dim, &ssm_e) ||
        kvp_dtype_bytes(cd, conv_e, &cb) || kvp_dtype_bytes(sd, ssm_e, &sb) ||
        !kvp__add_u64(cb, sb, out))
        return kvp__fail(err, KVP_OVERFLOW, kvp_model_name(model), NULL,
                         "layer %u: state bytes overflow", c->layer);
    return KVP_OK;
}

/* Blocks one request of `len` tokens takes in a group of this spec (max_memory_usage_bytes / page). */
static uint64_t spec_blocks(const vspec *v, uint64_t len, uint64_t mnbt, const char *mamba_mode) {
    uint64_t bs = v->bs;
    switch (v->type) {
    case VT_SLIDING: {
        uint64_t n = v->window ? v->window - 1 + mnbt : len;
        if (n > len) n = len;
        return kvp__ceil_div_u64(n, bs) + 1;
    }
    case VT_CHUNKED: {
        uint64_t n = v->window + mnbt;
        if (n > len) n = len;
        return kvp__ceil_div_u64(n, bs);
    }
    case VT_CROSS:
        return kvp__ceil_div_u64(v->window, bs);
    case VT_MAMBA:
        /* MambaSpec.max_memory_usage_bytes (§1.3): all keeps a state per block of
         * the sequence; none 1 and align 2 blocks, each plus one block per
         * speculative token (num_speculative_blocks). */
        if (strcmp(mamba_mode, "all") == 0) return kvp__ceil_div_u64(len, bs);
        return (strcmp(mamba_mode, "align") == 0 ? 2u : 1u) + (uint64_t)v->spec_blocks;
    default:
        return kvp__ceil_div_u64(len, bs);
    }
}

static uint64_t sat_add(uint64_t a, uint64_t b) {
    uint64_t s;
    return kvp__add_u64(a, b, &s) ? s : UINT64_MAX;
}

/* a * b saturating at UINT64_MAX (reported pool sizes only). */
static uint64_t mul_sat(uint64_t a, uint64_t b) {
    uint64_t p;
    return kvp__mul_u64(a, b, &p) ? p : UINT64_MAX;
}

/* Blocks one request of `len` tokens takes across the groups (per_req of §1.7). */
static uint64_t req_blocks(const struct vplan *P, uint64_t len, uint64_t mnbt, const char *mode);

static bool is_attention(vtype t) { return t != VT_MAMBA; }

/* Specs that need the same token slots (full attention, MLA, the DSA indexer
 * keys) merge into one UniformTypeKVCacheSpecs group when their sizes differ;
 * this is how DeepSeek-V3.2's 656/1152-byte MLA rows and 132-byte indexer rows
 * share one block table (their pages are not integer multiples). */
static int slot_class(vtype t) {
    return (t == VT_FULL || t == VT_MLA || t == VT_INDEXER) ? (int)VT_FULL : (int)t;
}

static uint64_t req_blocks(const vplan *P, uint64_t len, uint64_t mnbt, const char *mode) {
    uint64_t r = 0;
    for (uint32_t k = 0; k < P->nspec; k++) {
        uint64_t b = spec_blocks(&P->specs[k], len, mnbt, mode);
        if (P->uniform_type)
            r = b > r ? b : r;
        else
            r = sat_add(r, mul_sat(b, P->specs[k].groups));
    }
    return r;
}

/* Layers of spec `v`'s group `g` (layers [g::groups]) on stage [b, e). */
static uint32_t group_layers_on_stage(const vspec *v, uint32_t g, uint32_t b, uint32_t e) {
    uint32_t n = 0;
    for (uint32_t i = g; i < v->count; i += v->groups)
        if (v->layers[i] >= b && v->layers[i] < e) n++;
    return n;
}

/* The engine's "Available KV cache memory" (§1.2): --kv-budget, or
 * ceil(total x utilization) minus what the profile measured. */
static kvp_status vllm_budget(const kvp_policy_settings *s, bool have_version, uint32_t version,
                              vllm_era era, kvp_policy_result *out, uint64_t *out_avail,
                              kvp_error *err) {
    uint64_t avail = s->kv_budget_bytes;
    if (avail) {
        kvp__strlcpy(out->budget_formula, "--kv-budget (Available KV cache memory)",
                     sizeof out->budget_formula);
    } else {
        if (!s->total_memory_bytes) {
            return kvp__fail(err, KVP_INFEASIBLE, NULL, "kv_budget_bytes",
                             "vLLM's available KV memory needs --kv-budget, or --gpu/--gpu-mem "
                             "with --weights, --peak, --non-torch (and --cuda-graph)");
        }
        double u = s->gpu_memory_utilization > 0 ? s->gpu_memory_utilization : 0.9;
        double req_d = ceil((double)s->total_memory_bytes * u);
        uint64_t requested = (uint64_t)req_d;
        bool with_graphs = have_version ? version >= 2100 : era == ERA_V1_NEW;
        uint64_t used = s->weights_bytes + s->peak_activation_bytes + s->non_torch_bytes +
                        (with_graphs ? s->cudagraph_bytes : 0);
        if (used >= requested) {
            return kvp__fail(err, KVP_INFEASIBLE, NULL, "gpu_memory_utilization",
                             "No available memory for the cache blocks: %.2f GiB requested, "
                             "%.2f GiB used by weights, activations, non-torch%s",
                             (double)requested / 1073741824.0, (double)used / 1073741824.0,
                             with_graphs ? " and CUDA graphs" : "");
        }
        avail = requested - used;
        snprintf(out->budget_formula, sizeof out->budget_formula,
                 "ceil(total * %.4g) - weights - peak activation - non-torch%s", u,
                 with_graphs ? " - CUDA graphs (>= 0.21)" : "");
    }
    out->budget_bytes = avail;
    *out_avail = avail;
    return KVP_OK;
}

/* One request of max_model_len does not fit (§1.8): the engine's message with the
 * longest length that does (`longest`), and under --max-model-len -1 (auto-fit)
 * that length is adopted. Returns the length planned from here on. */
uint64_t kvp__policy_vllm_too_long(const kvp_policy_settings *s, uint64_t len, uint64_t needed,
                                   uint64_t avail, uint64_t longest, kvp_policy_result *out) {
    out->estimated_max_model_len = longest;
    kvp__policy_note(out,
                     "To serve at least one request with the models's max seq len (%llu), "
                     "(%.2f GiB KV cache is needed, which is larger than the available KV "
                     "cache memory (%.2f GiB). Based on the available memory, the "
                     "estimated maximum model length is %llu.",
                     (unsigned long long)len, (double)needed / 1073741824.0,
                     (double)avail / 1073741824.0, (unsigned long long)longest);
    if (!s->auto_fit_max_model_len || longest == 0) return len;
    kvp__policy_note(out, "Auto-fit max_model_len: reduced from %llu to %llu",
                     (unsigned long long)len, (unsigned long long)longest);
    out->max_model_len = longest;
    return longest;
}

kvp_status kvp__policy_vllm(const kvp_model *model, const kvp_policy_settings *s,
                            kvp_policy_result *out, kvp_error *err) {
    const kvp_model_info *info = kvp_model_get_info(model);
    uint32_t version = 0;
    bool have_version = false;
    vllm_era era = parse_era(s->engine_version, &version, &have_version, out);
    kvp__strlcpy(out->era, era_name(era), sizeof out->era);
    /* The hybrid allocator (separate SWA / Mamba groups) exists from ≈0.10 (§1.5 item 1). */
    bool hybrid = era >= ERA_V1_MID && (!have_version || version >= 1000);
    /* [inferred] ENGINES.md §1.5 item 1, vLLM #43308: Gemma 4 ran without the hybrid
     * manager until v0.21 (its SWA layers cost full context: ~55k -> ~525k tokens). */
    if (hybrid && have_version && version < 2100 &&
        (!strncmp(info->model_type, "gemma4", 6) || kvp__policy_contains(info->architecture, "Gemma4"))) {
        hybrid = false;
        kvp__policy_note(out, "[inferred] Gemma 4 before vLLM 0.21 (#43308): no hybrid KV cache "
                              "manager, sliding layers cost full context");
    }

    vdtype d;
    kvp_status st = parse_dtype(model, s->kv_dtype, &d, err);
    if (st) return st;
    out->kv_dtype = d.dtype;
    kvp__strlcpy(out->kv_dtype_name, d.name, sizeof out->kv_dtype_name);

    const char *mamba_mode = s->mamba_cache_mode[0] ? s->mamba_cache_mode : NULL;
    if (mamba_mode && strcmp(mamba_mode, "none") && strcmp(mamba_mode, "align") &&
        strcmp(mamba_mode, "all"))
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "mamba_cache_mode",
                         "'%s', expected none, align or all", mamba_mode);
    uint64_t mnbt = s->max_num_batched_tokens ? s->max_num_batched_tokens : 8192;
    uint64_t len = s->max_model_len ? s->max_model_len : info->max_position_embeddings;
    if (len == 0)
        return kvp__fail(err, KVP_INVALID_ARG, kvp_model_name(model), "max_model_len",
                         "the config states no max_position_embeddings; give --max-model-len");
    out->max_model_len = len;

    if (kvp__policy_non_affine(model)) {
        /* DeepSeek-V4: compressed caches of one entry per r tokens (vllm_v4.c). */
        uint64_t avail = 0;
        st = vllm_budget(s, have_version, version, era, out, &avail, err);
        if (st) return st;
        return kvp__policy_vllm_v4(model, s, avail, len, mnbt, out, err);
    }

    kvp__policy_layers L;
    st = kvp__policy_layers_load(model, s->num_draft_layers, s->alc, &L, err);
    if (st) return st;
    uint32_t total_layers = L.num_layers + s->num_draft_layers;
    if (s->pp > total_layers) {
        kvp__policy_layers_free(&L);
        return kvp__fail(err, KVP_INVALID_ARG, kvp_model_name(model), "pp",
                         "pipeline parallelism %u is larger than the %u layers", s->pp,
                         total_layers);
    }

    vplan P;
    memset(&P, 0, sizeof P);
    P.alc = s->alc;
    bool has_mamba = false, has_mla = false;
    uint64_t attn_ppt = 0; /* one full-attention layer, one token (model-level heads) */
    for (size_t i = 0; i < L.count && !st; i++) {
        const kvp_layer_cache *c = &L.items[i];
        vspec key;
        memset(&key, 0, sizeof key);
        switch (c->kind) {
        case KVP_CACHE_FULL: key.type = VT_FULL; break;
        case KVP_CACHE_SLIDING: key.type = hybrid ? VT_SLIDING : VT_FULL; break;
        case KVP_CACHE_CHUNKED: key.type = hybrid ? VT_CHUNKED : VT_FULL; break;
        case KVP_CACHE_MLA: key.type = VT_MLA; has_mla = true; break;
        case KVP_CACHE_INDEXER: key.type = VT_INDEXER; break;
        case KVP_CACHE_RECURRENT: key.type = VT_MAMBA; has_mamba = true; break;
        case KVP_CACHE_CROSS: key.type = VT_CROSS; break;
        default:
            st = kvp__fail(err, KVP_UNSUPPORTED, kvp_model_name(model), NULL,
                           "layer %u: no vLLM rule for %s caches", c->layer,
                           kvp_cache_kind_name(c->kind));
            continue;
        }
        if (key.type == VT_SLIDING || key.type == VT_CHUNKED || key.type == VT_CROSS)
            key.window = c->window_tokens;
        if (key.type == VT_MAMBA) {
            st = mamba_state(model, c, s,
                             vllm_rule(have_version, version, era, VLLM_GDN_SPEC_CONV_RELEASE),
                             &key.unit, err);
            key.spec_blocks = s->num_speculative_tokens;
        }
        else
            st = attn_unit(model, c, &d, s->tp, &key.unit, err);
        if (st) break;
        if (attn_ppt == 0 && (key.type == VT_FULL || key.type == VT_SLIDING || key.type == VT_MLA))
            attn_ppt = key.unit;
        vspec *v = NULL;
        for (uint32_t k = 0; k < P.nspec; k++)
            if (P.specs[k].type == key.type && P.specs[k].window == key.window &&
                P.specs[k].unit == key.unit)
                v = &P.specs[k];
        if (!v) {
            if (P.nspec == MAX_SPECS) {
                st = kvp__fail(err, KVP_UNSUPPORTED, kvp_model_name(model), NULL,
                               "more than %d distinct vLLM KV specs", MAX_SPECS);
                break;
            }
            v = &P.specs[P.nspec++];
            *v = key;
            v->layers = kvp__calloc(P.alc, L.count, sizeof *v->layers);
            if (!v->layers) {
                st = kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
                break;
            }
        }
        v->layers[v->count++] = c->layer;
    }
    kvp__policy_layers_free(&L);
    if (st) {
        vplan_free(&P);
        return st;
    }

    /* Attention block size: user, else 16 ([verified] on dense logs); MLA models run
     * FlashMLA with 64-token blocks; hybrids align to the Mamba page (§1.5). */
    uint32_t bs = s->block_size;
    if (bs == 0) {
        bs = 16;
        if (has_mla) {
            bs = 64;
            kvp__policy_note(out, "[uncertain] MLA model: block size 64 (FlashMLA) assumed; "
                                  "pass --block-size to override");
        }
    }
    bool mode_by_version = !mamba_mode;
    if (!mamba_mode) /* [uncertain] none fits v0.19.0, align fits v0.24.0 (ENGINES.md §6 V2). */
        mamba_mode = (have_version ? version >= 2400 : era == ERA_V1_NEW) ? "align" : "none";
    uint64_t mamba_page = 0;
    for (uint32_t k = 0; k < P.nspec; k++)
        if (P.specs[k].type == VT_MAMBA && P.specs[k].unit > mamba_page) mamba_page = P.specs[k].unit;
    if (has_mamba && attn_ppt > 0 && era >= ERA_V1_MID) {
        /* HybridAttentionMambaModelConfig: the attention block grows to a multiple of
         * the kernel's block alignment (16 for FlashAttention; 64 for the MLA
         * backends, FlashMLA, as with Kimi-Linear's MLA + KDA) until one attention
         * page holds a state page. */
        uint64_t align = has_mla ? 64 : 16;
        /* mamba_cache_mode all (newer vLLM): a state is checkpointed every block,
         * so the block is a multiple of the scan's chunk (FAMILIES.md "vLLM hybrid
         * page padding": the block size is rounded up to mamba_chunk_size). */
        kvp_fact_u64 chunk = kvp_model_get_facts(model)->mamba_chunk_size;
        bool chunked = !strcmp(mamba_mode, "all") && era == ERA_V1_NEW &&
                       chunk.state == KVP_FACT_STATED && chunk.value > 0 && chunk.value <= 1u << 16;
        if (chunked) align = chunk.value;
        uint64_t need = align * kvp__ceil_div_u64(mamba_page, align * attn_ppt);
        if (s->block_size == 0 || (uint64_t)s->block_size * attn_ppt < mamba_page) {
            if (need > 1u << 24) {
                vplan_free(&P);
                return kvp__fail(err, KVP_OVERFLOW, kvp_model_name(model), NULL,
                                 "attention block size for the Mamba page is absurd");
            }
            bs = (uint32_t)need;
            kvp__policy_note(out, "Setting attention block size to %u tokens to ensure that "
                                  "attention page size is >= mamba page size.", bs);
        }
        if (chunked) {
            /* A user's block already big enough for the state still rounds up. */
            bs = (uint32_t)(align * kvp__ceil_div_u64(bs, align));
            kvp__policy_note(out, "mamba_cache_mode all: the block size is a multiple of the "
                                  "model's %s (%llu): %u tokens",
                             chunk.key, (unsigned long long)chunk.value, bs);
        }
        mamba_page = (uint64_t)bs * attn_ppt;
    }
    if (mode_by_version && has_mamba)
        kvp__policy_note(out, "[uncertain] mamba_cache_mode %s by version", mamba_mode);
    out->block_size = bs;

    for (uint32_t k = 0; k < P.nspec; k++) {
        vspec *v = &P.specs[k];
        v->bs = bs;
        if (v->type == VT_MAMBA)
            v->page = mamba_page ? mamba_page : v->unit;
        else if (!kvp__mul_u64(v->unit, bs, &v->page)) {
            vplan_free(&P);
            return kvp__fail(err, KVP_OVERFLOW, kvp_model_name(model), "block_size",
                             "page bytes overflow");
        }
        /* A layer group that caches nothing per page (a recurrent layer whose state
         * widths are both 0) has no page: vLLM's spec would be 0 bytes, and the page
         * unification below divides by it (fuzz_geometry). */
        if (v->page == 0) {
            vplan_free(&P);
            return kvp__fail(err, KVP_CONFIG, kvp_model_name(model),
                             v->type == VT_MAMBA ? "n_embd_s" : "head_count_kv",
                             "a layer group of %s holds 0 bytes per page (its %s is 0): "
                             "vLLM has no page size for it",
                             v->type == VT_MAMBA ? "recurrent layers" : "attention layers",
                             v->type == VT_MAMBA ? "recurrent state" : "KV width");
        }
    }

    /* Budget: the engine's "Available KV cache memory" (§1.2). */
    uint64_t avail = 0;
    st = vllm_budget(s, have_version, version, era, out, &avail, err);
    if (st) {
        vplan_free(&P);
        return st;
    }

    /* Grouping (§1.5). */
    uint64_t B = 0, per_req = 0, page_sum = 0;
    uint32_t nattn_types = 0;
    bool same_type = P.nspec > 0;
    for (uint32_t k = 0; k < P.nspec; k++) {
        if (slot_class(P.specs[k].type) != slot_class(P.specs[0].type) ||
            P.specs[k].window != P.specs[0].window)
            same_type = false;
        if (is_attention(P.specs[k].type)) nattn_types++;
    }
    if (P.nspec == 0) {
        B = 1;
        P.num_groups = 0;
    } else if (P.nspec == 1 || era < ERA_V1_MID) {
        /* One group (or V0 / early V1: one block spans every layer). */
        P.num_groups = 1;
        for (uint32_t k = 0; k < P.nspec; k++) {
            P.specs[k].groups = 1;
            page_sum = sat_add(page_sum, mul_sat(P.specs[k].page, P.specs[k].count));
        }
        P.page = P.specs[0].page;
        P.group_size = 0;
        for (uint32_t k = 0; k < P.nspec; k++) P.group_size += P.specs[k].count;
        if (P.nspec > 1) P.uniform_type = true;
    } else if (same_type) {
        P.uniform_type = true;
        P.num_groups = 1;
        for (uint32_t k = 0; k < P.nspec; k++) {
            P.specs[k].groups = 1;
            page_sum = sat_add(page_sum, mul_sat(P.specs[k].page, P.specs[k].count));
        }
        P.group_size = 0;
        for (uint32_t k = 0; k < P.nspec; k++) P.group_size += P.specs[k].count;
        P.page = P.specs[0].page;
    } else {
        uint64_t maxp = 0;
        uint32_t minc = UINT32_MAX, maxc = 0;
        for (uint32_t k = 0; k < P.nspec; k++) {
            if (P.specs[k].page > maxp) maxp = P.specs[k].page;
            if (P.specs[k].count < minc) minc = P.specs[k].count;
            if (P.specs[k].count > maxc) maxc = P.specs[k].count;
        }
        for (uint32_t k = 0; k < P.nspec; k++) {
            vspec *v = &P.specs[k];
            if (maxp % v->page != 0 &&
                vllm_rule(have_version, version, era, VLLM_PAGE_PADDING_RELEASE)) {
                /* 2026 (ADMISSION.md): the smaller page is padded to the larger
                 * (page_size_padded) instead of failing; its block size stays. */
                kvp__policy_note(out, "page of %llu bytes padded to %llu to unify the KV cache "
                                      "groups' page sizes (2026 rule)",
                                 (unsigned long long)v->page, (unsigned long long)maxp);
                v->page = maxp;
                continue;
            }
            if (maxp % v->page != 0) {
                vplan_free(&P);
                return kvp__fail(err, KVP_UNSUPPORTED, kvp_model_name(model), NULL,
                                 "vLLM cannot unify page sizes %llu and %llu bytes "
                                 "(NotImplementedError in unify_kv_cache_spec_page_size)",
                                 (unsigned long long)v->page, (unsigned long long)maxp);
            }
            uint64_t ratio = maxp / v->page;
            if (ratio > 1) {
                if ((uint64_t)v->bs * ratio > 1u << 24) {
                    vplan_free(&P);
                    return kvp__fail(err, KVP_OVERFLOW, NULL, "block_size", "block size overflow");
                }
                v->bs = (uint32_t)(v->bs * ratio);
                v->page = maxp;
            }
        }
        P.page = maxp;
        /* group_size: the smallest layer count, unless the largest is below 1.5x it. */
        P.group_size = (double)maxc < 1.5 * (double)minc ? maxc : minc;
        uint32_t padded = 0;
        for (uint32_t k = 0; k < P.nspec; k++) {
            vspec *v = &P.specs[k];
            v->groups = (uint32_t)kvp__ceil_div_u64(v->count, P.group_size);
            P.num_groups += v->groups;
            padded += v->groups * P.group_size - v->count;
        }
        if (padded)
            kvp__policy_note(out, "Add %u padding layers, may waste at most %.2f%% KV cache memory",
                             padded, 100.0 * padded / (double)(P.num_groups * P.group_size));
    }
    (void)nattn_types;

    /* Blocks per worker, then the minimum over workers (§1.2, §1.6). block_bytes: one
     * block id on the binding worker; stage_unit: the largest bytes one block id costs
     * on one worker. */
    uint64_t block_bytes = 0;
    uint32_t bind_b = 0, bind_e = total_layers;
    uint64_t stage_unit = 0;
    if (P.nspec > 0) {
        B = UINT64_MAX;
        for (uint32_t stage = 0; stage < s->pp; stage++) {
            uint32_t b, e;
            kvp__policy_pp_range(total_layers, s->pp, stage, &b, &e);
            uint64_t denom = 0;
            if (P.num_groups == 1) {
                for (uint32_t k = 0; k < P.nspec; k++)
                    for (uint32_t i = 0; i < P.specs[k].count; i++)
                        if (P.specs[k].layers[i] >= b && P.specs[k].layers[i] < e)
                            denom = sat_add(denom, P.specs[k].page);
            } else {
                uint32_t gs = 0;
                for (uint32_t k = 0; k < P.nspec; k++)
                    for (uint32_t g = 0; g < P.specs[k].groups; g++) {
                        uint32_t n = group_layers_on_stage(&P.specs[k], g, b, e);
                        if (n > gs) gs = n;
                    }
                denom = mul_sat(P.page, gs);
            }
            if (denom == 0) continue;
            if (denom > stage_unit) stage_unit = denom;
            uint64_t bs_stage = avail / denom;
            if (bs_stage < B || block_bytes == 0) {
                if (bs_stage < B) B = bs_stage;
                block_bytes = denom;
                bind_b = b;
                bind_e = e;
            }
        }
        if (B == UINT64_MAX) B = 0;
    }

    /* Admission check and the estimated maximum length (§1.8). Under the 2026 rules
     * (ADMISSION.md "vLLM (V1)") each pipeline worker checks only its own layers
     * (the worker costing the most per block decides), and one block is kept back as
     * the null block (PR #47272) in the check and in auto-fit. Before them the check
     * charged every layer ([inferred] 0.15.2, ENGINES.md 1.4) and the whole budget. */
    {
        uint64_t unit = P.uniform_type ? page_sum : mul_sat(P.page, P.group_size);
        if (s->pp > 1 && stage_unit &&
            vllm_rule(have_version, version, era, VLLM_STAGE_CHECK_RELEASE))
            unit = stage_unit;
        uint64_t room = avail;
        if (P.nspec > 0 && vllm_rule(have_version, version, era, VLLM_NULL_BLOCK_RELEASE))
            room = avail > unit ? avail - unit : 0;
        uint64_t needed = 0, req0 = req_blocks(&P, len, mnbt, mamba_mode);
        if (req0 && kvp__mul_u64(unit, req0, &needed) && needed > room) {
            out->needed_bytes = needed;
            uint64_t lo = 0, hi = len;
            while (lo < hi) {
                uint64_t mid = lo + (hi - lo + 1) / 2, r = req_blocks(&P, mid, mnbt, mamba_mode);
                uint64_t nb = 0;
                if (kvp__mul_u64(unit, r, &nb) && nb <= room) lo = mid;
                else hi = mid - 1;
            }
            len = kvp__policy_vllm_too_long(s, len, needed, avail, lo, out);
        } else {
            out->needed_bytes = needed;
        }
    }

    /* Blocks per request and the printed lines (§1.7). */
    uint32_t bs_min = UINT32_MAX;
    per_req = req_blocks(&P, len, mnbt, mamba_mode);
    for (uint32_t k = 0; k < P.nspec; k++)
        if (P.specs[k].bs < bs_min) bs_min = P.specs[k].bs;
    if (bs_min == UINT32_MAX) bs_min = bs;
    out->num_groups = P.num_groups;
    out->group_size = P.uniform_type ? P.group_size : P.group_size;
    out->page_bytes = P.uniform_type ? page_sum : P.page;
    out->per_request_blocks = per_req;

    double conc = 0;
    uint64_t tokens = 0;
    if (era <= ERA_V1_JAN25) {
        conc = (double)B * (double)bs / (double)len;
        tokens = mul_sat(B, bs);
    } else if (era == ERA_V1_MID) {
        conc = per_req ? (double)B / (double)per_req : 0;
        tokens = mul_sat(P.num_groups ? B / P.num_groups : B, bs_min);
    } else {
        conc = per_req ? (double)B / (double)per_req : 0;
        tokens = kvp__double_to_u64(conc * (double)len);
    }
    out->report.num_gpu_blocks = B;
    out->report.gpu_kv_cache_tokens = tokens;
    out->report.max_concurrency = conc;
    out->report.available_kv_cache_bytes = avail;
    out->report.present = KVP_REPORT_NUM_GPU_BLOCKS | KVP_REPORT_GPU_KV_CACHE_TOKENS |
                          KVP_REPORT_MAX_CONCURRENCY | KVP_REPORT_AVAILABLE_KV_CACHE_BYTES;

    /* The pool, once (§1.6): B block ids of block_bytes each on the binding worker
     * (group_size tensors of page x B bytes; with one group, every layer's page).
     * Every KV cache group draws its block ids from it, so a group owns no
     * blocks of its own: what pools[] report is each spec's share, the block ids
     * its groups hold when the pool is full of max_model_len requests (B /
     * per_req of them, each taking the spec's blocks per request): floor(B x
     * rb_k / per_req), computed as q x rb_k + r x rb_k / per_req so it cannot
     * overflow; the shares add up to at most B. With one group a block id spans
     * every spec, and a spec owns its layers' slice of each block. */
    out->pool_blocks = B;
    out->pool_block_bytes = block_bytes;
    out->pool_bytes = mul_sat(B, block_bytes);
    for (uint32_t k = 0; k < P.nspec && out->pool_count < KVP_POLICY_MAX_POOLS; k++) {
        vspec *v = &P.specs[k];
        kvp_policy_pool *pl = &out->pools[out->pool_count++];
        kvp__strlcpy(pl->name, k_vtype_names[v->type], sizeof pl->name);
        pl->kind = v->type == VT_MAMBA ? KVP_CACHE_RECURRENT
                   : v->type == VT_SLIDING ? KVP_CACHE_SLIDING
                   : v->type == VT_CHUNKED ? KVP_CACHE_CHUNKED
                   : v->type == VT_MLA ? KVP_CACHE_MLA
                   : v->type == VT_INDEXER ? KVP_CACHE_INDEXER
                   : v->type == VT_CROSS ? KVP_CACHE_CROSS : KVP_CACHE_FULL;
        pl->layers = v->count;
        pl->block_size_tokens = v->bs;
        pl->page_bytes = v->page;
        pl->per_request_blocks = spec_blocks(v, len, mnbt, mamba_mode) * v->groups;
        pl->kv_cache_groups = v->groups;
        if (P.num_groups <= 1) {
            uint32_t on_stage = 0;
            for (uint32_t i = 0; i < v->count; i++)
                if (v->layers[i] >= bind_b && v->layers[i] < bind_e) on_stage++;
            pl->blocks = B;
            pl->block_bytes = mul_sat(v->page, on_stage);
            pl->tokens = v->type == VT_MAMBA ? 0 : mul_sat(B, v->bs);
        } else {
            uint64_t rb = pl->per_request_blocks;
            pl->blocks = per_req ? sat_add(mul_sat(B / per_req, rb), mul_sat(B % per_req, rb) / per_req) : 0;
            if (pl->blocks > B) pl->blocks = B;
            pl->block_bytes = block_bytes;
            /* Each of its groups holds blocks / groups block ids of bs tokens. */
            pl->tokens = v->type == VT_MAMBA || !v->groups ? 0 : mul_sat(pl->blocks / v->groups, v->bs);
        }
        pl->bytes = mul_sat(pl->blocks, pl->block_bytes);
    }

    if (has_mamba && s->max_num_seqs && B > 0) {
        uint64_t state_blocks = B; /* each request takes per-group mamba blocks from the shared pool */
        if (s->max_num_seqs > state_blocks)
            kvp__policy_note(out, "max_num_seqs (%u) exceeds available Mamba cache blocks (%llu)",
                             s->max_num_seqs, (unsigned long long)state_blocks);
    }
    if (!hybrid && era >= ERA_V1_MID && have_version && version < 1000 &&
        (info->sliding_window || info->attention_chunk_size))
        kvp__policy_note(out, "no hybrid KV cache manager before 0.10: sliding layers cost full context");
    vplan_free(&P);
    return KVP_OK;
}

/* The lines vLLM prints at start-up for plan `r` (engine_ops.h `startup_lines`):
 * gpu_worker.py determine_available_memory's "Available KV cache memory",
 * kv_cache_utils.py's "GPU KV cache size" / "Maximum concurrency" (v1; v0 and
 * v1-jan25 print "# GPU blocks", worker.py), and the block arithmetic behind them. */
static void vllm_startup_lines(const kvp_policy_result *r, const kvp__line_sink *out) {
    const kvp_engine_report *e = &r->report;
    char buf[64];
    kvp__sink_line(out, "Available KV cache memory: %.2f GiB",
                   (double)e->available_kv_cache_bytes / 1073741824.0);
    if (!strcmp(r->era, "v0") || !strcmp(r->era, "v1-jan25"))
        kvp__sink_line(out, "# GPU blocks: %llu", (unsigned long long)e->num_gpu_blocks);
    else
        kvp__sink_line(out, "GPU KV cache size: %s tokens",
                       kvp__fmt_count(e->gpu_kv_cache_tokens, buf, sizeof buf));
    kvp__sink_line(out, "Maximum concurrency for %s tokens per request: %.2fx",
                   kvp__fmt_count(r->max_model_len, buf, sizeof buf), e->max_concurrency);
    if (r->group_size)
        kvp__sink_line(out,
                       "(num_gpu_blocks %llu, block size %u, %u group(s) of %u layers, page %llu B, "
                       "%llu blocks per request)",
                       (unsigned long long)e->num_gpu_blocks, r->block_size, r->num_groups,
                       r->group_size, (unsigned long long)r->page_bytes,
                       (unsigned long long)r->per_request_blocks);
    else /* DeepSeek-V4: groups of different sizes, one packed stride per block */
        kvp__sink_line(out,
                       "(num_gpu_blocks %llu, block size %u, %u packed group(s), stride %llu B, "
                       "%llu blocks per request)",
                       (unsigned long long)e->num_gpu_blocks, r->block_size, r->num_groups,
                       (unsigned long long)r->page_bytes, (unsigned long long)r->per_request_blocks);
}

/* The engine's record (engine_ops.h; its row of kvplan/engines.def). */
static const char *const k_aliases[] = {NULL};
static const char *const k_fit_kv_dtypes[] = {"auto", "fp8", NULL};
const kvp__engine_ops kvp__engine_vllm = {
    .aliases = k_aliases,
    .len_flag = "--max-model-len",
    .help = "vLLM: --gpu-memory-utilization x total minus the profiled peak; "
            "num_gpu_blocks,\n            maximum concurrency "
            "(--engine-version 0.9.1|v0|v1-mid|v1-new)",
    .version_forms = "a release (0.9.1, v0.11.0, 0.12.0rc1.dev5+g1a2b3c4), a year or date "
                     "(2025, 2025-10-07), or v0, v1-jan25, v1-mid, v1-new, latest",
    .newest_release = KVP__REL(0, 29, 0),
    .plan = kvp__policy_vllm,
    .startup_rules = kvp__startup_vllm,
    .startup_rule_count = &kvp__startup_vllm_count,
    .report_fields = KVP_REPORT_NUM_GPU_BLOCKS | KVP_REPORT_GPU_KV_CACHE_TOKENS |
                     KVP_REPORT_MAX_CONCURRENCY | KVP_REPORT_AVAILABLE_KV_CACHE_BYTES,
    .fit_kv_dtypes = k_fit_kv_dtypes,
    .sim_policy = "vllm",
    /* neutral */
    .fit_solves_tp = true,
    .pools_share_block_pool = true,
    .profile = kvp__vllm_profile,
    .default_batch_cap = kvp__vllm_default_batch_cap,
    .headroom = kvp__vllm_headroom,
    .capacity = kvp__vllm_capacity,
    .admission_rule = "vLLM: no reservation; blocks are allocated as tokens arrive and the newest "
                      "running request is preempted (recomputed) when the pool runs dry "
                      "(v1/core/sched/scheduler.py)",
    .batch_cap_name = "max_num_seqs",
    .steady_pool = kvp__vllm_steady_pool,
    .details = kvp__vllm_details,
    .startup_lines = vllm_startup_lines,
};
