/*
 * memory_arch.c — read what the weights estimate needs from a Hugging Face
 * config: per-layer mixer / attention / FFN kinds, MoE and MLA geometry, the
 * vision tower, and the weight format from quantization_config.
 *
 * Attention geometry comes from the model's cache records (kv heads and head
 * dims per layer, already resolved by the config reader for every family);
 * everything the cache model does not keep (FFN sizes, experts, projections)
 * is re-read from the config text (kvp_model_source_text).
 */
#include <fnmatch.h>
#include <jansson.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>

#include "json_error.h"
#include "memory_internal.h"

#define ARCH_MAX_INTER (1ull << 24) /* 16M: far above any real FFN width */
#define ARCH_MAX_VOCAB (1ull << 26)
#define ARCH_MAX_HIDDEN (1ull << 20)
#define ARCH_MAX_EXPERTS 65536u
#define ARCH_MAX_LAYERS 100000u /* as the config reader bounds them */

typedef struct cfg {
    const char *file;
    json_t *root;     /* outer config (owned) */
    json_t *lm;       /* language model object (borrowed from root) */
    char lm_ptr[64];  /* JSON pointer of lm */
    kvp_error *err;
} cfg;

/* Unsigned integer key of `obj` (integral reals accepted). Absent or null ->
 * *found false. Negative, fractional or above `max` -> KVP_CONFIG. */
static kvp_status cfg_uint(cfg *c, json_t *obj, const char *ptr, const char *key, uint64_t max,
                           uint64_t *out, bool *found) {
    *found = false;
    json_t *v = obj ? json_object_get(obj, key) : NULL;
    if (!v || json_is_null(v)) return KVP_OK;
    double d;
    if (json_is_integer(v)) {
        json_int_t i = json_integer_value(v);
        if (i < 0) goto bad;
        d = (double)i;
        if ((uint64_t)i > max) goto bad;
        *out = (uint64_t)i;
        *found = true;
        return KVP_OK;
    }
    if (!json_is_real(v)) goto bad;
    d = json_real_value(v);
    if (!(d >= 0) || d != floor(d) || d > (double)max) goto bad;
    *out = kvp__double_to_u64(d);
    *found = true;
    return KVP_OK;
bad:;
    char p[160];
    snprintf(p, sizeof p, "%s/%s", ptr, key);
    return kvp__fail(c->err, KVP_CONFIG, c->file, p,
                     "expected a whole number in [0, %llu] for the weights estimate",
                     (unsigned long long)max);
}

/* First of several key spellings in the language config, then the root. */
static kvp_status lm_uint(cfg *c, const char *const *keys, uint64_t max, uint64_t *out,
                          bool *found) {
    for (size_t i = 0; keys[i]; i++) {
        kvp_status st = cfg_uint(c, c->lm, c->lm_ptr, keys[i], max, out, found);
        if (st != KVP_OK || *found) return st;
    }
    if (c->lm != c->root) {
        for (size_t i = 0; keys[i]; i++) {
            kvp_status st = cfg_uint(c, c->root, "", keys[i], max, out, found);
            if (st != KVP_OK || *found) return st;
        }
    }
    return KVP_OK;
}

#define KEYS(...) ((const char *const[]){__VA_ARGS__, NULL})

static uint64_t lm_uint_or(cfg *c, const char *const *keys, uint64_t max, uint64_t fallback,
                           kvp_status *st) {
    uint64_t v = 0;
    bool found = false;
    if (*st != KVP_OK) return fallback;
    *st = lm_uint(c, keys, max, &v, &found);
    return found ? v : fallback;
}

static const char *lm_str(cfg *c, const char *key) {
    const char *s = json_string_value(json_object_get(c->lm, key));
    if (!s && c->lm != c->root) s = json_string_value(json_object_get(c->root, key));
    return s;
}

static int lm_bool(cfg *c, const char *key) { /* -1 absent */
    json_t *v = json_object_get(c->lm, key);
    if (!json_is_boolean(v) && c->lm != c->root) v = json_object_get(c->root, key);
    return json_is_boolean(v) ? (json_is_true(v) ? 1 : 0) : -1;
}

/* The language model's object, found the way the config reader finds it:
 * descend through thinker_config / text_config / llm_config / language_config. */
static void find_lm(cfg *c) {
    static const char *const k_nest[] = {KVP__LM_WRAPPER_KEYS};
    c->lm = c->root;
    c->lm_ptr[0] = '\0';
    for (int depth = 0; depth < 4; depth++) {
        bool descended = false;
        for (size_t i = 0; i < sizeof k_nest / sizeof k_nest[0]; i++) {
            json_t *o = json_object_get(c->lm, k_nest[i]);
            if (!json_is_object(o)) continue;
            size_t n = strlen(c->lm_ptr);
            snprintf(c->lm_ptr + n, sizeof c->lm_ptr - n, "/%s", k_nest[i]);
            c->lm = o;
            descended = true;
            break;
        }
        if (!descended) break;
    }
}

/* ------------------------------------------------------------ quantization */

bool kvp__quant_pattern_matches(const char *pattern, const char *name) {
    if (!pattern || !*pattern) return false;
    if (strncmp(pattern, "re:", 3) == 0) {
        char buf[512];
        if (snprintf(buf, sizeof buf, "^(%s)", pattern + 3) >= (int)sizeof buf) return false;
        regex_t re;
        if (regcomp(&re, buf, REG_EXTENDED | REG_NOSUB) != 0) return false;
        bool m = regexec(&re, name, 0, NULL, 0) == 0;
        regfree(&re);
        return m;
    }
    if (strpbrk(pattern, "*?[")) {
        char buf[512];
        if (fnmatch(pattern, name, 0) == 0) return true;
        if (snprintf(buf, sizeof buf, "%s.*", pattern) < (int)sizeof buf &&
            fnmatch(buf, name, 0) == 0)
            return true;
        if (snprintf(buf, sizeof buf, "*.%s", pattern) < (int)sizeof buf &&
            fnmatch(buf, name, 0) == 0)
            return true;
        return snprintf(buf, sizeof buf, "*.%s.*", pattern) < (int)sizeof buf &&
               fnmatch(buf, name, 0) == 0;
    }
    /* A plain name matches whole dotted components: "gate" is the router
     * "mlp.gate", never "mlp.gate_proj"; "self_attn" covers its projections. */
    size_t pl = strlen(pattern), nl = strlen(name);
    for (size_t i = 0; i + pl <= nl; i++) {
        if (strncmp(name + i, pattern, pl) != 0) continue;
        bool start_ok = i == 0 || name[i - 1] == '.';
        bool end_ok = i + pl == nl || name[i + pl] == '.';
        if (start_ok && end_ok) return true;
    }
    return false;
}

/* Module names that stand for each quantizable category, in the spellings of
 * the common families (a category is excluded when any of them matches). */
static const char *const k_proto_attention[] = {
    "model.layers.1.self_attn.q_proj", "model.layers.1.self_attn.o_proj",
    "model.layers.1.self_attn.q_a_proj", "model.layers.1.self_attn.kv_b_proj", NULL};
static const char *const k_proto_mlp[] = {"model.layers.1.mlp.gate_proj",
                                          "model.layers.1.mlp.down_proj", NULL};
static const char *const k_proto_experts[] = {"model.layers.1.mlp.experts.0.gate_proj",
                                              "model.layers.1.mlp.experts.gate_up_proj",
                                              "model.layers.1.block_sparse_moe.experts.0.w1",
                                              NULL};
static const char *const k_proto_shared[] = {"model.layers.1.mlp.shared_experts.gate_proj",
                                             "model.layers.1.mlp.shared_expert.gate_proj", NULL};
static const char *const k_proto_mixer[] = {"model.layers.1.mixer.in_proj",
                                            "model.layers.1.linear_attn.in_proj_qkvz", NULL};

static bool list_excludes(json_t *list, const char *const *protos) {
    size_t i;
    json_t *v;
    json_array_foreach(list, i, v) {
        const char *p = json_string_value(v);
        if (!p) continue;
        for (size_t k = 0; protos[k]; k++)
            if (kvp__quant_pattern_matches(p, protos[k])) return true;
    }
    return false;
}

static uint64_t dtype_rate(kvp_dtype d) {
    switch (d) {
    case KVP_DTYPE_FP32: return 4 * KVP__RATE_ONE;
    case KVP_DTYPE_FP8:
    case KVP_DTYPE_INT8: return KVP__RATE_ONE;
    case KVP_DTYPE_NVFP4: return KVP__RATE_ONE / 2 + KVP__RATE_ONE / 16;
    default: return 2 * KVP__RATE_ONE;
    }
}

/* Rate of an integer or float format of `bits` with one 16-bit scale (and a
 * packed zero point when asymmetric) per `group` weights. */
static uint64_t grouped_rate(uint64_t bits, uint64_t group, bool zero_point) {
    uint64_t r = bits * KVP__RATE_ONE / 8;
    if (group > 0) {
        r += 2 * KVP__RATE_ONE / group;
        if (zero_point) r += bits * KVP__RATE_ONE / 8 / group;
    }
    return r;
}

static kvp_status read_quant(cfg *c, kvp_dtype override, kvp_dtype model_dtype, kvp__arch *a) {
    /* Serving engines load fp32 checkpoints at 16 bits (vLLM and TRT-LLM
     * "auto" dtype), so the unquantized rate is never 4 bytes by default. */
    uint64_t base = dtype_rate(model_dtype == KVP_DTYPE_FP32 ? KVP_DTYPE_BF16 : model_dtype);
    for (int k = 0; k < KVP__W_COUNT; k++) a->rate[k] = base;
    snprintf(a->format, sizeof a->format, "%s", kvp_dtype_name(model_dtype == KVP_DTYPE_FP32
                                                                   ? KVP_DTYPE_BF16
                                                                   : model_dtype));
    static const kvp__wcat k_quantizable[] = {KVP__W_ATTENTION, KVP__W_MLP, KVP__W_EXPERTS,
                                              KVP__W_SHARED, KVP__W_MIXER};
    static const char *const *const k_protos[] = {k_proto_attention, k_proto_mlp,
                                                   k_proto_experts, k_proto_shared,
                                                   k_proto_mixer};
    if (override != KVP_DTYPE_AUTO) {
        for (size_t k = 0; k < 5; k++) a->rate[k_quantizable[k]] = dtype_rate(override);
        if (override == KVP_DTYPE_FP32)
            for (int k = 0; k < KVP__W_COUNT; k++) a->rate[k] = dtype_rate(override);
        snprintf(a->format, sizeof a->format, "%s (requested)", kvp_dtype_name(override));
        return KVP_OK;
    }
    json_t *q = json_object_get(c->root, "quantization_config");
    if (!json_is_object(q)) q = json_object_get(c->lm, "quantization_config");
    if (!json_is_object(q)) q = json_object_get(c->root, "compression_config");
    if (!json_is_object(q)) return KVP_OK;
    const char *method = json_string_value(json_object_get(q, "quant_method"));
    if (!method) method = "";
    uint64_t rate = 0;
    char what[64] = "";
    json_t *exclude = NULL;
    if (!strcmp(method, "fp8") || !strcmp(method, "fbgemm_fp8") || !strcmp(method, "ptpc_fp8")) {
        rate = KVP__RATE_ONE;
        json_t *blk = json_object_get(q, "weight_block_size");
        json_int_t b0 = json_integer_value(json_array_get(blk, 0));
        json_int_t b1 = json_integer_value(json_array_get(blk, 1));
        if (b0 > 0 && b1 > 0 && b0 <= 65536 && b1 <= 65536) {
            rate += 4 * KVP__RATE_ONE / ((uint64_t)b0 * (uint64_t)b1);
            snprintf(what, sizeof what, "fp8 block-%lldx%lld", (long long)b0, (long long)b1);
        } else {
            snprintf(what, sizeof what, "fp8");
        }
        exclude = json_object_get(q, "modules_to_not_convert");
        if (!exclude) exclude = json_object_get(q, "ignored_layers");
    } else if (!strcmp(method, "mxfp4")) {
        rate = KVP__RATE_ONE / 2 + KVP__RATE_ONE / 32; /* 4-bit values + e8m0 scale per 32 */
        snprintf(what, sizeof what, "mxfp4");
        exclude = json_object_get(q, "modules_to_not_convert");
    } else if (!strcmp(method, "modelopt") || !strcmp(method, "modelopt_fp4")) {
        const char *algo = json_string_value(json_object_get(q, "quant_algo"));
        json_t *inner = json_object_get(q, "quantization");
        if (!algo && json_is_object(inner))
            algo = json_string_value(json_object_get(inner, "quant_algo"));
        if (algo && strstr(algo, "FP4")) {
            rate = KVP__RATE_ONE / 2 + KVP__RATE_ONE / 16;
            snprintf(what, sizeof what, "nvfp4");
        } else if (algo && strstr(algo, "W4A")) {
            rate = grouped_rate(4, 128, false);
            snprintf(what, sizeof what, "int4 group-128");
        } else {
            rate = KVP__RATE_ONE;
            snprintf(what, sizeof what, "fp8");
        }
        exclude = json_object_get(q, "exclude_modules");
        if (!exclude && json_is_object(inner)) exclude = json_object_get(inner, "exclude_modules");
    } else if (!strncmp(method, "awq", 3) || !strncmp(method, "gptq", 4)) {
        json_int_t bits = json_integer_value(json_object_get(q, "bits"));
        if (bits <= 0) bits = json_integer_value(json_object_get(q, "w_bit"));
        if (bits <= 0 || bits > 16) bits = 4;
        json_int_t group = json_integer_value(json_object_get(q, "group_size"));
        if (!json_object_get(q, "group_size"))
            group = json_integer_value(json_object_get(q, "q_group_size"));
        if (!json_object_get(q, "group_size") && !json_object_get(q, "q_group_size")) group = 128;
        if (group < 0 || group > 1 << 20) group = 0; /* -1: per channel, scales negligible */
        rate = grouped_rate((uint64_t)bits, (uint64_t)group, true);
        snprintf(what, sizeof what, "int%lld group-%lld", (long long)bits, (long long)group);
        exclude = json_object_get(q, "modules_to_not_convert");
    } else if (!strcmp(method, "compressed-tensors")) {
        json_t *groups = json_object_get(q, "config_groups");
        const char *gk;
        json_t *g, *w = NULL;
        json_object_foreach(groups, gk, g) {
            w = json_object_get(g, "weights");
            if (json_is_object(w)) break;
        }
        json_int_t bits = json_integer_value(json_object_get(w, "num_bits"));
        const char *type = json_string_value(json_object_get(w, "type"));
        json_int_t group = json_integer_value(json_object_get(w, "group_size"));
        bool sym = !json_is_false(json_object_get(w, "symmetric"));
        bool is_float = type && !strcmp(type, "float");
        if (bits <= 0 || bits > 16) bits = 8;
        if (group < 0 || group > 1 << 20) group = 0;
        if (is_float && bits == 4) {
            rate = KVP__RATE_ONE / 2 + KVP__RATE_ONE / 16; /* nvfp4: fp8 scale per 16 */
            snprintf(what, sizeof what, "nvfp4");
        } else if (is_float && bits == 8) {
            rate = KVP__RATE_ONE;
            snprintf(what, sizeof what, "fp8");
        } else {
            rate = grouped_rate((uint64_t)bits, (uint64_t)group, !sym);
            snprintf(what, sizeof what, "int%lld group-%lld", (long long)bits, (long long)group);
        }
        exclude = json_object_get(q, "ignore");
    } else if (!strcmp(method, "bitsandbytes")) {
        if (json_is_true(json_object_get(q, "load_in_4bit"))) {
            rate = KVP__RATE_ONE / 2 + 4 * KVP__RATE_ONE / 64; /* nf4 + fp32 absmax per 64 */
            snprintf(what, sizeof what, "bnb-4bit");
        } else {
            rate = KVP__RATE_ONE;
            snprintf(what, sizeof what, "bnb-8bit");
        }
        exclude = json_object_get(q, "llm_int8_skip_modules");
    } else {
        snprintf(a->format, sizeof a->format, "%s (quant_method '%s' not modelled: taken as %s)",
                 kvp_dtype_name(model_dtype), method, kvp_dtype_name(model_dtype));
        return KVP_OK;
    }
    char kept[96] = "";
    static const char *const k_names[] = {"attention", "mlp", "experts", "shared experts",
                                          "mixer"};
    for (size_t k = 0; k < 5; k++) {
        if (json_is_array(exclude) && list_excludes(exclude, k_protos[k])) {
            size_t n = strlen(kept);
            snprintf(kept + n, sizeof kept - n, ", %s", k_names[k]);
            continue;
        }
        a->rate[k_quantizable[k]] = rate;
    }
    snprintf(a->format, sizeof a->format, "%s; %s: embeddings, lm_head, norms, router%s", what,
             kvp_dtype_name(model_dtype == KVP_DTYPE_FP32 ? KVP_DTYPE_BF16 : model_dtype), kept);
    return KVP_OK;
}

/* ------------------------------------------------------------ layers */

/* Is decoder layer l an MoE layer? One rule per family's key. */
static bool is_moe_layer(cfg *c, uint32_t l, uint32_t first_dense) {
    json_t *only = json_object_get(c->lm, "mlp_only_layers");
    size_t i;
    json_t *v;
    json_array_foreach(only, i, v) if (json_integer_value(v) == (json_int_t)l) return false;
    json_t *freq = json_object_get(c->lm, "moe_layer_freq");
    if (json_is_array(freq)) return json_integer_value(json_array_get(freq, l)) != 0;
    if (l < first_dense) return false;
    json_int_t step = json_integer_value(json_object_get(c->lm, "decoder_sparse_step"));
    if (step > 1) return (l + 1) % (uint64_t)step == 0;
    step = json_integer_value(json_object_get(c->lm, "interleave_moe_layer_step"));
    if (step > 1) return (l + 1) % (uint64_t)step == 0;
    json_int_t period = json_integer_value(json_object_get(c->lm, "expert_layer_period"));
    if (period > 0) {
        json_int_t off = json_integer_value(json_object_get(c->lm, "expert_layer_offset"));
        return (json_int_t)l % period == off;
    }
    if (json_is_integer(freq) && json_integer_value(freq) > 1)
        return l % (uint64_t)json_integer_value(freq) == 0;
    return true;
}

/* Nemotron-NAS: ffn_mult -> intermediate size, rounded up to 256 as its
 * modelling code does (2/3 of mult * hidden). */
static uint64_t nas_intermediate(double mult, uint64_t hidden) {
    uint64_t inter = kvp__double_to_u64(2.0 * mult * (double)hidden / 3.0);
    return inter > UINT64_MAX - 255 ? UINT64_MAX : (inter + 255) / 256 * 256;
}

/* intermediate_size as a list (Gemma 3n): one dense FFN width per layer. */
static kvp_status read_layer_widths(cfg *c, json_t *list, kvp__arch *a) {
    char p[96];
    snprintf(p, sizeof p, "%s/intermediate_size", c->lm_ptr);
    if (json_array_size(list) != a->layers)
        return kvp__fail(c->err, KVP_CONFIG, c->file, p,
                         "has %zu entries, expected one per layer (%u)", json_array_size(list),
                         a->layers);
    for (uint32_t l = 0; l < a->layers; l++) {
        json_t *v = json_array_get(list, l);
        if (!json_is_integer(v) || json_integer_value(v) < 0 ||
            (uint64_t)json_integer_value(v) > ARCH_MAX_INTER)
            return kvp__fail(c->err, KVP_CONFIG, c->file, p,
                             "entry %u: expected a whole number in [0, %llu]", l,
                             (unsigned long long)ARCH_MAX_INTER);
        a->layer[l].dense_inter = (uint64_t)json_integer_value(v);
        if (a->layer[l].dense_inter) a->layer[l].ffn |= KVP__FFN_DENSE;
    }
    return KVP_OK;
}

static kvp_status read_layers(cfg *c, const kvp_model *model, kvp__arch *a, uint64_t dense_inter,
                              uint64_t dense_inter_alt, uint32_t first_dense) {
    const kvp_model_info *info = kvp_model_get_info(model);
    size_t ncache = kvp_model_cache_count(model);
    for (size_t i = 0; i < ncache; i++) {
        const kvp_layer_cache *lc = kvp_model_cache(model, i);
        if (lc->layer >= a->layers) continue;
        kvp__layer_arch *L = &a->layer[lc->layer];
        switch (lc->kind) {
        case KVP_CACHE_FULL:
        case KVP_CACHE_SLIDING:
        case KVP_CACHE_CHUNKED:
            L->attention = true;
            L->kv_heads = lc->kv_heads;
            L->k_head_dim = lc->k_head_dim;
            L->v_head_dim = lc->v_head_dim ? lc->v_head_dim : lc->k_head_dim;
            break;
        case KVP_CACHE_MLA: L->mla = true; break;
        case KVP_CACHE_CROSS:
            L->cross = true;
            L->cross_kv_heads = lc->kv_heads;
            L->cross_head_dim = lc->k_head_dim;
            break;
        case KVP_CACHE_RECURRENT: L->rec = lc->recurrent; break;
        default: break;
        }
    }
    /* A model built without cache records (or a reader that kept none):
     * every layer is plain attention with the model's geometry. */
    if (ncache == 0) {
        for (uint32_t l = 0; l < a->layers; l++) {
            a->layer[l].attention = !info->is_mla;
            a->layer[l].mla = info->is_mla;
            a->layer[l].kv_heads = info->num_kv_heads;
            a->layer[l].k_head_dim = a->layer[l].v_head_dim = info->head_dim;
        }
    }
    bool gdn = json_object_get(c->lm, "linear_num_value_heads") != NULL;
    const char *pattern = lm_str(c, "hybrid_override_pattern");
    json_t *blocks = json_object_get(c->lm, "block_configs");
    bool moe_and_dense = json_is_true(json_object_get(c->lm, "enable_moe_block"));
    for (uint32_t l = 0; l < a->layers; l++) {
        kvp__layer_arch *L = &a->layer[l];
        L->q_heads = info->num_attention_heads;
        if (L->rec.heads) {
            if (gdn)
                L->mixer = KVP__MIX_GDN;
            else if (L->rec.head_dim == 1 && L->rec.groups == 0)
                L->mixer = KVP__MIX_MAMBA1;
            else
                L->mixer = KVP__MIX_MAMBA2;
        }
        if (pattern) { /* Nemotron-H: one character per layer */
            char ch = l < strlen(pattern) ? pattern[l] : 'M';
            if (ch == '-') {
                L->ffn = KVP__FFN_DENSE;
                L->dense_inter = dense_inter;
            } else if (ch == 'E') {
                L->ffn = KVP__FFN_MOE;
            }
            continue;
        }
        if (json_is_array(blocks)) { /* Nemotron-NAS */
            json_t *ffn = json_object_get(json_array_get(blocks, l), "ffn");
            if (json_is_true(json_object_get(ffn, "no_op"))) continue;
            if (json_is_true(json_object_get(ffn, "replace_with_linear"))) {
                L->linear_replacement = true;
                continue;
            }
            json_t *m = json_object_get(ffn, "ffn_mult");
            if (json_is_number(m) && json_number_value(m) > 0 && json_number_value(m) < 1e4) {
                L->ffn = KVP__FFN_DENSE;
                L->dense_inter = nas_intermediate(json_number_value(m), a->hidden);
            }
            continue;
        }
        if (a->experts > 0 && is_moe_layer(c, l, first_dense)) {
            L->ffn = KVP__FFN_MOE;
            if (moe_and_dense && dense_inter) {
                L->ffn |= KVP__FFN_DENSE;
                L->dense_inter = dense_inter;
            }
        } else {
            uint64_t inter = a->experts > 0 && dense_inter_alt ? dense_inter_alt : dense_inter;
            if (inter) {
                L->ffn = KVP__FFN_DENSE;
                L->dense_inter = inter;
            }
        }
    }
    return KVP_OK;
}

/* Vision tower: blocks of attention (4 h^2) and an MLP (2 or 3 h x I), plus
 * a merger projecting into the language model. An estimate of the right
 * order; engines load it on every rank group. */
static uint64_t vision_params(cfg *c) {
    json_t *v = json_object_get(c->root, "vision_config");
    if (!json_is_object(v)) return 0;
    json_int_t depth = json_integer_value(json_object_get(v, "depth"));
    if (depth <= 0) depth = json_integer_value(json_object_get(v, "num_hidden_layers"));
    json_int_t h = json_integer_value(json_object_get(v, "hidden_size"));
    if (h <= 0) h = json_integer_value(json_object_get(v, "embed_dim"));
    json_int_t inter = json_integer_value(json_object_get(v, "intermediate_size"));
    if (depth <= 0 || depth > 1000 || h <= 0 || h > 65536) return 0;
    if (inter <= 0 || inter > 1 << 20) inter = 4 * h;
    uint64_t H = (uint64_t)h, D = (uint64_t)depth, I = (uint64_t)inter;
    uint64_t per_block = 4 * H * H + 2 * H * I + 4 * H;
    json_int_t out = json_integer_value(json_object_get(v, "out_hidden_size"));
    uint64_t merger = out > 0 && out < 1 << 20 ? 4 * H * 4 * H + 4 * H * (uint64_t)out : 0;
    return D * per_block + merger;
}

static bool json_config_has(cfg *c, const char *key) {
    return json_object_get(c->lm, key) != NULL || json_object_get(c->root, key) != NULL;
}

kvp_status kvp__arch_read(const kvp_model *model, kvp_dtype weights_dtype, kvp__arch *a,
                          kvp_error *err) {
    memset(a, 0, sizeof *a);
    const kvp_model_info *info = kvp_model_get_info(model);
    cfg c = {.file = kvp_model_name(model), .root = NULL, .lm = NULL, .lm_ptr = "", .err = err};
    size_t len = 0;
    const char *text = kvp_model_source_text(model, &len);
    json_t *empty = NULL;
    if (text) {
        json_error_t jerr;
        char *copy = kvp__malloc(NULL, len + 1);
        if (!copy) return kvp__fail(err, KVP_NOMEM, c.file, NULL, "out of memory");
        memcpy(copy, text, len);
        copy[len] = '\0';
        kvp__json_python_literals(copy, len, "0.0");
        c.root = json_loadb(copy, len, 0, &jerr);
        kvp__free(NULL, copy);
        if (!c.root || !json_is_object(c.root)) {
            json_decref(c.root);
            return kvp__fail(err, KVP_SYNTAX, c.file, NULL, "config text: %s", jerr.text);
        }
    } else {
        empty = json_object();
        if (!empty) return kvp__fail(err, KVP_NOMEM, c.file, NULL, "out of memory");
        c.root = empty;
    }
    find_lm(&c);
    kvp_status st = KVP_OK;
    kvp__strlcpy(a->model_type, info->model_type, sizeof a->model_type);
    a->hidden = lm_uint_or(&c, KEYS("hidden_size", "d_model", "n_embd"), ARCH_MAX_HIDDEN,
                           info->hidden_size, &st);
    a->vocab = lm_uint_or(&c, KEYS("vocab_size", "padded_vocab_size"), ARCH_MAX_VOCAB,
                          info->vocab_size, &st);
    a->layers = info->num_layers;
    if (st == KVP_OK && (a->hidden == 0 || a->layers == 0))
        st = kvp__fail(err, KVP_CONFIG, c.file, "/hidden_size",
                       "the weights estimate needs hidden_size and the layer count (found %llu "
                       "and %u)",
                       (unsigned long long)a->hidden, a->layers);
    if (st != KVP_OK) goto done;
    if (a->layers > ARCH_MAX_LAYERS) {
        st = kvp__fail(err, KVP_CONFIG, c.file, "/num_hidden_layers", "too many layers (%u)",
                       a->layers);
        goto done;
    }
    /* Tied embeddings: the config's key (outer or inner); absent means
     * untied except for the families whose modelling code ties by default. */
    int tied = lm_bool(&c, "tie_word_embeddings");
    if (tied < 0) tied = lm_bool(&c, "tie_embeddings");
    if (tied < 0) {
        /* The config classes that default to tied embeddings when the key is
         * absent (HF's base default is True, but Llama-4, Phi-3 and Jamba
         * override it to False). */
        static const char *const k_tied_families[] = {"gemma", "bart", "mbart", "t5",
                                                      "whisper", "mamba"};
        tied = 0;
        for (size_t i = 0; i < sizeof k_tied_families / sizeof k_tied_families[0]; i++)
            if (!strncmp(info->model_type, k_tied_families[i], strlen(k_tied_families[i])))
                tied = 1;
        /* Exact types whose classes keep the base default (their checkpoints
         * have no separate lm_head): GPT-2, StarCoder, BLOOM, Falcon, MPT, OPT, Cohere. */
        static const char *const k_tied_exact[] = {"gpt2", "gpt_bigcode", "bloom", "falcon",
                                                   "mpt", "opt", "cohere", "cohere2"};
        for (size_t i = 0; i < sizeof k_tied_exact / sizeof k_tied_exact[0]; i++)
            if (!strcmp(info->model_type, k_tied_exact[i])) tied = 1;
    }
    a->tied = tied == 1;
    const char *act = lm_str(&c, "mlp_hidden_act");
    if (!act) act = lm_str(&c, "hidden_act");
    if (!act) act = lm_str(&c, "activation_function");
    /* Two-matrix MLPs (up, down) whatever the activation: the families whose
     * modelling code has no gate projection. */
    static const char *const k_non_gated[] = {
        "nemotron_h", "whisper", "bart",   "gpt2",     "opt",        "gpt_bigcode", "gpt_neox",
        "gptj",       "gpt_neo", "bloom",  "falcon",   "mpt",        "phi",         "starcoder2",
        "persimmon",  "codegen"};
    bool non_gated_family = false;
    for (size_t i = 0; i < sizeof k_non_gated / sizeof k_non_gated[0]; i++)
        non_gated_family |= !strcmp(a->model_type, k_non_gated[i]);
    const char *ffproj = lm_str(&c, "feed_forward_proj");
    if (!strcmp(a->model_type, "t5")) non_gated_family = !(ffproj && strstr(ffproj, "gated"));
    a->gated_mlp = !non_gated_family && !(act && !strcmp(act, "relu2"));
    a->gated_experts = a->gated_mlp;
    int gate = lm_bool(&c, "attn_output_gate");
    a->attn_output_gate = gate == 1 || (gate < 0 && (!strcmp(a->model_type, "qwen3_next") ||
                                                     !strncmp(a->model_type, "qwen3_5", 7)));
    /* MoE */
    a->experts = (uint32_t)lm_uint_or(
        &c, KEYS("num_experts", "num_local_experts", "n_routed_experts", "moe_num_experts"),
        ARCH_MAX_EXPERTS, info->num_experts, &st);
    a->topk = (uint32_t)lm_uint_or(&c, KEYS("num_experts_per_tok", "top_k_experts",
                                            "experts_per_token", "moe_top_k"),
                                   ARCH_MAX_EXPERTS, info->num_experts_per_tok, &st);
    /* Gemma 3n: one intermediate size per layer (read per layer below). */
    json_t *inter_list = json_object_get(c.lm, "intermediate_size");
    if (!json_is_array(inter_list)) inter_list = NULL;
    uint64_t inter = 0;
    if (!inter_list)
        inter = lm_uint_or(&c, KEYS("intermediate_size", "ffn_hidden_size", "d_intermediate",
                                    "decoder_ffn_dim", "d_ff", "n_inner"),
                           ARCH_MAX_INTER, info->intermediate_size, &st);
    /* DBRX keeps its MoE FFN in ffn_config. */
    json_t *ffn_cfg = json_object_get(c.lm, "ffn_config");
    if (json_is_object(ffn_cfg) && st == KVP_OK) {
        char p[80];
        snprintf(p, sizeof p, "%s/ffn_config", c.lm_ptr);
        bool f;
        uint64_t v;
        if ((st = cfg_uint(&c, ffn_cfg, p, "ffn_hidden_size", ARCH_MAX_INTER, &v, &f)) == KVP_OK &&
            f)
            inter = v;
        if (st == KVP_OK &&
            (st = cfg_uint(&c, ffn_cfg, p, "moe_num_experts", ARCH_MAX_EXPERTS, &v, &f)) == KVP_OK &&
            f)
            a->experts = (uint32_t)v;
        if (st == KVP_OK &&
            (st = cfg_uint(&c, ffn_cfg, p, "moe_top_k", ARCH_MAX_EXPERTS, &v, &f)) == KVP_OK && f)
            a->topk = (uint32_t)v;
    }
    /* Qwen (1) states the width of both gate and up together: each is half. */
    if (!strcmp(a->model_type, "qwen")) inter /= 2;
    /* Two-matrix MLPs that state no width: MPT's expansion_ratio, else the
     * GPT-2 / BLOOM / Falcon default of 4 x hidden. */
    if (!inter && !inter_list && !a->gated_mlp && !a->experts) {
        uint64_t ratio = lm_uint_or(&c, KEYS("expansion_ratio"), 64, 4, &st);
        inter = ratio * a->hidden;
    }
    uint64_t inter_mlp = lm_uint_or(&c, KEYS("intermediate_size_mlp"), ARCH_MAX_INTER, 0, &st);
    a->expert_inter = lm_uint_or(&c, KEYS("moe_intermediate_size", "expert_intermediate_size"),
                                 ARCH_MAX_INTER, info->moe_intermediate_size, &st);
    if (a->expert_inter == 0) a->expert_inter = inter;
    uint64_t n_shared = lm_uint_or(&c, KEYS("n_shared_experts", "num_shared_experts"), 1024,
                                   info->num_shared_experts, &st);
    uint64_t shared_explicit = lm_uint_or(
        &c, KEYS("moe_shared_expert_intermediate_size", "shared_expert_intermediate_size",
                 "shared_intermediate_size"),
        ARCH_MAX_INTER, 0, &st);
    uint64_t share_dim = lm_uint_or(&c, KEYS("share_expert_dim"), ARCH_MAX_INTER, 0, &st);
    if (json_config_has(&c, "moe_shared_expert_intermediate_size") ||
        json_config_has(&c, "shared_expert_intermediate_size") ||
        json_config_has(&c, "shared_intermediate_size"))
        a->shared_inter = shared_explicit;
    else if (share_dim)
        a->shared_inter = share_dim * (n_shared ? n_shared : 1);
    else if (!strcmp(a->model_type, "llama4_text") || !strcmp(a->model_type, "llama4"))
        a->shared_inter = a->experts ? inter : 0; /* one shared expert of intermediate_size */
    else
        a->shared_inter = n_shared * a->expert_inter;
    uint32_t first_dense = (uint32_t)lm_uint_or(&c, KEYS("first_k_dense_replace"), ARCH_MAX_LAYERS,
                                                info->first_k_dense_replace, &st);
    /* MLA */
    if (info->is_mla) {
        a->q_lora = info->q_lora_rank;
        a->kv_lora = info->kv_lora_rank;
        a->qk_nope = info->qk_nope_head_dim;
        a->qk_rope = info->qk_rope_head_dim;
        a->v_head = info->v_head_dim;
        a->index_head_dim = (uint32_t)lm_uint_or(&c, KEYS("index_head_dim"), 65536, 0, &st);
        a->index_heads = a->index_head_dim
                             ? (uint32_t)lm_uint_or(&c, KEYS("index_n_heads"), 65536, 64, &st)
                             : 0;
    }
    a->dt_rank = (uint32_t)lm_uint_or(&c, KEYS("mamba_dt_rank", "time_step_rank"), 1u << 20,
                                      (a->hidden + 15) / 16, &st);
    a->mtp_layers = info->num_nextn_predict_layers;
    {
        uint64_t maxpos = info->max_position_embeddings;
        uint64_t rot = info->is_mla ? info->qk_rope_head_dim : info->head_dim;
        if (!rot && info->num_attention_heads) rot = a->hidden / info->num_attention_heads;
        /* partial rotary (GLM, Phi, Falcon): the rotated part only */
        json_t *prf = json_object_get(c.lm, "partial_rotary_factor");
        if (json_is_number(prf) && json_number_value(prf) > 0 && json_number_value(prf) < 1)
            rot = kvp__double_to_u64((double)rot * json_number_value(prf));
        bool has_attention = info->num_attention_heads > 0 && !info->is_encoder_decoder;
        /* ALiBi models (BLOOM, MPT) position by biases: no rotary cache. */
        json_t *ac = json_object_get(c.lm, "attn_config");
        bool alibi = lm_bool(&c, "alibi") == 1 || json_is_true(json_object_get(ac, "alibi")) ||
                     !strcmp(a->model_type, "bloom");
        /* Learned absolute positions (GPT-2, StarCoder, GPT-Neo, OPT): a table of
         * max positions x hidden stored with the embedding, no rotary cache. */
        static const char *const k_learned_positions[] = {"gpt2", "gpt_bigcode", "gpt_neo", "opt"};
        bool learned = false;
        for (size_t i = 0; i < sizeof k_learned_positions / sizeof k_learned_positions[0]; i++)
            learned |= !strcmp(a->model_type, k_learned_positions[i]);
        if (maxpos > (1ull << 24)) maxpos = 1ull << 24; /* bounded: 16M positions */
        a->rope_cache_elems = has_attention && !alibi && !learned ? maxpos * rot : 0;
        if (learned) a->position_params = maxpos * a->hidden;
    }
    /* encoder-decoder */
    a->encoder_layers = info->num_encoder_layers;
    a->encoder_ffn = lm_uint_or(&c, KEYS("encoder_ffn_dim", "d_ff"), ARCH_MAX_INTER, inter, &st);
    if (a->encoder_layers) {
        uint64_t mel = lm_uint_or(&c, KEYS("num_mel_bins"), 4096, 0, &st);
        uint64_t tgt = lm_uint_or(&c, KEYS("max_target_positions"), 1u << 20, 0, &st);
        uint64_t src = lm_uint_or(&c, KEYS("max_source_positions"), 1u << 20, 0, &st);
        /* Whisper front end: conv1d(mel->h, k=3) and conv1d(h->h, k=3);
         * learned decoder positions and stored encoder positions. */
        a->encoder_extra_params = (mel ? mel * a->hidden * 3 + a->hidden * a->hidden * 3 : 0) +
                                  (tgt + src) * a->hidden;
    }
    if (st != KVP_OK) goto done;
    a->vision_params = vision_params(&c);
    st = read_quant(&c, weights_dtype, info->dtype == KVP_DTYPE_AUTO ? KVP_DTYPE_BF16 : info->dtype,
                    a);
    if (st != KVP_OK) goto done;
    a->layer = kvp__calloc(NULL, a->layers, sizeof *a->layer);
    if (!a->layer) {
        st = kvp__fail(err, KVP_NOMEM, c.file, NULL, "out of memory (%u layers)", a->layers);
        goto done;
    }
    st = read_layers(&c, model, a, inter, inter_mlp, first_dense);
    if (st == KVP_OK && inter_list) st = read_layer_widths(&c, inter_list, a);
    /* Gemma 3n per-layer embeddings: vocab_size_per_layer_input rows of
     * hidden_size_per_layer_input for every layer, stored with the embedding. */
    if (st == KVP_OK) {
        uint64_t ple = lm_uint_or(&c, KEYS("hidden_size_per_layer_input"), ARCH_MAX_HIDDEN, 0, &st);
        uint64_t ple_vocab = lm_uint_or(&c, KEYS("vocab_size_per_layer_input"), ARCH_MAX_VOCAB, 0,
                                        &st);
        if (st == KVP_OK && ple && ple_vocab &&
            !kvp__mul_many_u64(&a->extra_embedding_params, 3, ple, ple_vocab, (uint64_t)a->layers))
            st = kvp__fail(err, KVP_OVERFLOW, c.file, "/hidden_size_per_layer_input",
                           "per-layer embedding size overflows");
        if (st == KVP_OK && !kvp__add_u64(a->extra_embedding_params, a->position_params,
                                          &a->extra_embedding_params))
            st = kvp__fail(err, KVP_OVERFLOW, c.file, "/hidden_size_per_layer_input",
                           "per-layer embedding size overflows");
    }
done:
    json_decref(c.root);
    if (st != KVP_OK) kvp__arch_free(a);
    return st;
}

void kvp__arch_free(kvp__arch *arch) {
    if (!arch) return;
    kvp__free(NULL, arch->layer);
    arch->layer = NULL;
}
