/*
 * facts_weights.c — what the weights estimate needs from a Hugging Face config:
 * FFN / MoE widths and the per-layer FFN schedule, vocabulary and tied
 * embeddings, position encoding, the encoder and vision towers, and the
 * checkpoint's weight format from quantization_config.
 *
 * Attention geometry is not read here: the estimate takes it from the cache
 * records. A model without a config (GGUF, geometry JSON) gets the same facts
 * from its kvp_model_info, with every config-only key absent.
 *
 * Each family quirk is one function below (tied_embeddings, gated_mlp,
 * qwen_gate_up_halved, shared_expert_width, position_encoding, ...).
 */
#include <fnmatch.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <ctype.h>
#include <string.h>

#include "facts_internal.h"
#include "json_error.h"

#define W_MAX_INTER (1ull << 24) /* 16M: far above any real FFN width */
#define W_MAX_VOCAB (1ull << 26)
#define W_MAX_HIDDEN (1ull << 20)
#define W_MAX_EXPERTS 65536u
#define W_MAX_LAYERS 100000u /* as the config reader bounds them */
#define RATE_ONE 65536ull    /* kvp_weight_quant.rate_x65536 of one byte */

#define KEYS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* Unsigned integer key of `obj` (integral reals accepted). Absent or null ->
 * *found false. Negative, fractional or above `max` -> KVP_CONFIG. */
static void w_uint(kvp__fx *c, json_t *obj, const char *ptr, const char *key, uint64_t max,
                   uint64_t *out, bool *found) {
    *found = false;
    json_t *v = kvp__fx_get(c, obj, ptr, key);
    if (!v || c->st) return;
    if (json_is_integer(v)) {
        json_int_t i = json_integer_value(v);
        if (i < 0 || (uint64_t)i > max) goto bad;
        *out = (uint64_t)i;
        *found = true;
        return;
    }
    if (!json_is_real(v)) goto bad;
    double d = json_real_value(v);
    if (!(d >= 0) || d != floor(d) || d > (double)max) goto bad;
    *out = kvp__double_to_u64(d);
    *found = true;
    return;
bad:
    kvp__fx_fail(c, ptr, key, "expected a whole number in [0, %llu] for the weights estimate",
                 (unsigned long long)max);
}

/* First of several key spellings in the language config, then the root. */
static uint64_t lm_uint_or(kvp__fx *c, const char *const *keys, uint64_t max, uint64_t fallback) {
    uint64_t v = 0;
    bool found = false;
    for (size_t i = 0; keys[i] && !c->st; i++) {
        w_uint(c, c->lm, c->lm_ptr, keys[i], max, &v, &found);
        if (found) return v;
    }
    if (c->lm != c->root) {
        for (size_t i = 0; keys[i] && !c->st; i++) {
            w_uint(c, c->root, "", keys[i], max, &v, &found);
            if (found) return v;
        }
    }
    return fallback;
}

static const char *lm_str(kvp__fx *c, const char *key) {
    const char *s = json_string_value(kvp__fx_get(c, c->lm, c->lm_ptr, key));
    if (!s && c->lm != c->root) s = json_string_value(kvp__fx_get(c, c->root, "", key));
    return s;
}

static int lm_bool(kvp__fx *c, const char *key) { /* -1 absent */
    json_t *v = kvp__fx_get(c, c->lm, c->lm_ptr, key);
    if (!json_is_boolean(v) && c->lm != c->root) v = kvp__fx_get(c, c->root, "", key);
    return json_is_boolean(v) ? (json_is_true(v) ? 1 : 0) : -1;
}

/* Key written at all (a null value counts), in lm or the root. */
static bool lm_written(kvp__fx *c, const char *key) {
    return (c->lm && json_object_get(c->lm, key)) || (c->root && json_object_get(c->root, key));
}

static bool type_is(const char *t, const char *const *list, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!strcmp(t, list[i])) return true;
    return false;
}

/* ------------------------------------------------------------ family quirks */

/* Tied embeddings: the config's key (outer or inner); absent means untied
 * except for the families whose config classes tie by default. */
static bool tied_embeddings(kvp__fx *c, const char *mt) {
    int tied = lm_bool(c, "tie_word_embeddings");
    if (tied < 0) tied = lm_bool(c, "tie_embeddings");
    if (tied >= 0) return tied == 1;
    /* The config classes that default to tied embeddings when the key is
     * absent (HF's base default is True, but Llama-4, Phi-3 and Jamba
     * override it to False). */
    static const char *const k_tied_families[] = {"gemma", "bart", "mbart", "t5", "whisper",
                                                  "mamba"};
    for (size_t i = 0; i < sizeof k_tied_families / sizeof k_tied_families[0]; i++)
        if (!strncmp(mt, k_tied_families[i], strlen(k_tied_families[i]))) return true;
    /* Exact types whose classes keep the base default (their checkpoints
     * have no separate lm_head): GPT-2, StarCoder, BLOOM, Falcon, MPT, OPT, Cohere. */
    static const char *const k_tied_exact[] = {"gpt2", "gpt_bigcode", "bloom",  "falcon",
                                               "mpt",  "opt",         "cohere", "cohere2"};
    return type_is(mt, k_tied_exact, sizeof k_tied_exact / sizeof k_tied_exact[0]);
}

/* Three-matrix (gated) MLP unless the family's modelling code has no gate
 * projection, or the activation is relu2 (Nemotron-H). */
static bool gated_mlp(kvp__fx *c, const char *mt) {
    const char *act = lm_str(c, "mlp_hidden_act");
    if (!act) act = lm_str(c, "hidden_act");
    if (!act) act = lm_str(c, "activation_function");
    static const char *const k_non_gated[] = {
        "nemotron_h", "whisper", "bart",  "gpt2",   "opt",        "gpt_bigcode", "gpt_neox",
        "gptj",       "gpt_neo", "bloom", "falcon", "mpt",        "phi",         "starcoder2",
        "persimmon",  "codegen"};
    bool non_gated = type_is(mt, k_non_gated, sizeof k_non_gated / sizeof k_non_gated[0]);
    const char *ffproj = lm_str(c, "feed_forward_proj");
    if (!strcmp(mt, "t5")) non_gated = !(ffproj && strstr(ffproj, "gated"));
    return !non_gated && !(act && !strcmp(act, "relu2"));
}

/* Gated attention output: the key, else the Qwen3-Next / Qwen3.5 default. */
static bool attn_output_gate(kvp__fx *c, const char *mt) {
    int gate = lm_bool(c, "attn_output_gate");
    return gate == 1 || (gate < 0 && (!strcmp(mt, "qwen3_next") || !strncmp(mt, "qwen3_5", 7)));
}

/* Shared experts' total width: an explicit key, else share_expert_dim x count,
 * else Llama 4's one shared expert of intermediate_size, else count x expert width. */
static uint64_t shared_expert_width(kvp__fx *c, const char *mt, uint64_t n_shared,
                                    uint64_t expert_inter, uint64_t inter, uint32_t experts) {
    uint64_t explicit_w = lm_uint_or(c,
                                     KEYS("moe_shared_expert_intermediate_size",
                                          "shared_expert_intermediate_size",
                                          "shared_intermediate_size"),
                                     W_MAX_INTER, 0);
    uint64_t share_dim = lm_uint_or(c, KEYS("share_expert_dim"), W_MAX_INTER, 0);
    if (lm_written(c, "moe_shared_expert_intermediate_size") ||
        lm_written(c, "shared_expert_intermediate_size") ||
        lm_written(c, "shared_intermediate_size"))
        return explicit_w;
    if (share_dim) return share_dim * (n_shared ? n_shared : 1);
    if (!strcmp(mt, "llama4_text") || !strcmp(mt, "llama4"))
        return experts ? inter : 0; /* one shared expert of intermediate_size */
    return n_shared * expert_inter;
}

/* Position encoding and the rotary width. */
static void position_encoding(kvp__fx *c, const char *mt, kvp_weight_facts *w) {
    const kvp_model_info *info = c->info;
    uint64_t rot = info->is_mla ? info->qk_rope_head_dim : info->head_dim;
    if (!rot && info->num_attention_heads) rot = w->hidden_size / info->num_attention_heads;
    /* partial rotary (GLM, Phi, Falcon): the rotated part only */
    json_t *prf = kvp__fx_get(c, c->lm, c->lm_ptr, "partial_rotary_factor");
    if (json_is_number(prf) && json_number_value(prf) > 0 && json_number_value(prf) < 1)
        rot = kvp__double_to_u64((double)rot * json_number_value(prf));
    w->rotary_dim = rot;
    /* ALiBi models (BLOOM, MPT) position by biases: no rotary cache. */
    json_t *ac = kvp__fx_get(c, c->lm, c->lm_ptr, "attn_config");
    bool alibi = lm_bool(c, "alibi") == 1 ||
                 json_is_true(json_is_object(ac) ? kvp__fx_get(c, ac, "/attn_config", "alibi")
                                                 : NULL) ||
                 !strcmp(mt, "bloom");
    /* Learned absolute positions (GPT-2, StarCoder, GPT-Neo, OPT). */
    static const char *const k_learned[] = {"gpt2", "gpt_bigcode", "gpt_neo", "opt"};
    bool learned = type_is(mt, k_learned, sizeof k_learned / sizeof k_learned[0]);
    w->positions = learned ? KVP_POSITIONS_LEARNED
                   : alibi ? KVP_POSITIONS_ALIBI
                           : KVP_POSITIONS_ROTARY;
}

/* What vLLM's encoder profile reads of a tower whose input is fixed (MEMORY.md
 * 7.4): the tokens one image becomes and the patches the tower runs on. Only a
 * config that states the tokens (Gemma-3 mm_tokens_per_image: SigLIP's
 * 4,096 patches pooled to 256) and names no second modality, whose tokens per
 * item would be the processor's, not config.json's (a video_token_id, an
 * audio_config). Anything else leaves both 0: not guessed. */
static void vision_tokens(kvp__fx *c, json_t *v, json_int_t patch, kvp_weight_facts *w) {
    static const char *const other[] = {"video_token_id", "video_token_index", "audio_token_id",
                                        "audio_token_index", "audio_config"};
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
        if (kvp__fx_get(c, c->root, "", other[i])) return;
    json_int_t tok = kvp__fx_int(kvp__fx_get(c, c->root, "", "mm_tokens_per_image"));
    json_int_t size = kvp__fx_int(kvp__fx_get(c, v, "/vision_config", "image_size"));
    if (tok <= 0 || tok > 1 << 20 || size <= 0 || size > 1 << 16 || patch <= 0 ||
        size % patch != 0)
        return;
    uint64_t side = (uint64_t)(size / patch);
    if (side * side < (uint64_t)tok) return; /* fewer patches than outputs: not a pooled grid */
    w->vision_tokens_per_item = (uint64_t)tok;
    w->vision_image_patches = side * side;
}

/* Vision tower dims (vision_config); depth 0 when none or unreadable. */
static void vision_tower(kvp__fx *c, kvp_weight_facts *w) {
    json_t *v = kvp__fx_get(c, c->root, "", "vision_config");
    if (!json_is_object(v)) return;
    const char *p = "/vision_config";
    json_int_t depth = kvp__fx_int(kvp__fx_get(c, v, p, "depth"));
    if (depth <= 0) depth = kvp__fx_int(kvp__fx_get(c, v, p, "num_hidden_layers"));
    json_int_t h = kvp__fx_int(kvp__fx_get(c, v, p, "hidden_size"));
    if (h <= 0) h = kvp__fx_int(kvp__fx_get(c, v, p, "embed_dim"));
    json_int_t inter = kvp__fx_int(kvp__fx_get(c, v, p, "intermediate_size"));
    json_int_t out = kvp__fx_int(kvp__fx_get(c, v, p, "out_hidden_size"));
    if (depth <= 0 || depth > 1000 || h <= 0 || h > 65536) return;
    if (inter <= 0 || inter > 1 << 20) inter = 4 * h;
    w->vision_depth = (uint64_t)depth;
    w->vision_hidden = (uint64_t)h;
    w->vision_inter = (uint64_t)inter;
    w->vision_out_hidden = out > 0 && out < 1 << 20 ? (uint64_t)out : 0;
    /* Qwen2-VL family (qwen3_vl.py Qwen3_VisionTransformer @002d7b9, MEMORY.md 7.7):
     * the merger's input is hidden x spatial_merge_size^2 (default 2); Qwen3-VL adds
     * one deepstack merger per deepstack_visual_indexes entry; the patch embedding
     * (Conv3d in_channels x temporal_patch_size x patch^2 -> hidden, with bias) and
     * a learned table of num_position_embeddings rows. */
    json_int_t m = kvp__fx_int(kvp__fx_get(c, v, p, "spatial_merge_size"));
    w->vision_merge = m > 0 && m <= 16 ? (uint64_t)m : 2;
    json_t *ds = kvp__fx_get(c, v, p, "deepstack_visual_indexes");
    w->vision_deepstack = json_is_array(ds) && json_array_size(ds) <= (size_t)depth
                              ? (uint64_t)json_array_size(ds)
                              : 0;
    json_int_t ch = kvp__fx_int(kvp__fx_get(c, v, p, "in_channels"));
    if (ch <= 0) ch = kvp__fx_int(kvp__fx_get(c, v, p, "in_chans"));
    json_int_t ps = kvp__fx_int(kvp__fx_get(c, v, p, "patch_size"));
    json_int_t tps = kvp__fx_int(kvp__fx_get(c, v, p, "temporal_patch_size"));
    if (tps <= 0) tps = 1;
    if (ch > 0 && ch <= 16 && ps > 0 && ps <= 1024 && tps <= 16)
        w->vision_patch_elems = (uint64_t)ch * (uint64_t)tps * (uint64_t)ps * (uint64_t)ps;
    json_int_t np = kvp__fx_int(kvp__fx_get(c, v, p, "num_position_embeddings"));
    w->vision_positions = np > 0 && np <= 1 << 24 ? (uint64_t)np : 0;
    vision_tokens(c, v, ps, w);
}

/* ------------------------------------------------------------ quantization */

/* Does module-name pattern `pattern` (HF modules_to_not_convert, modelopt
 * exclude_modules, compressed-tensors ignore with "re:") match `name`? */
static bool quant_pattern_matches(const char *pattern, const char *name) {
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
static const char *const *const k_protos[KVP_QUANT_CAT_COUNT] = {
    k_proto_attention, k_proto_mlp, k_proto_experts, k_proto_shared, k_proto_mixer};

static bool list_excludes(json_t *list, const char *const *protos) {
    size_t i;
    json_t *v;
    json_array_foreach(list, i, v) {
        const char *p = json_string_value(v);
        if (!p) continue;
        for (size_t k = 0; protos[k]; k++)
            if (quant_pattern_matches(p, protos[k])) return true;
    }
    return false;
}

/* Rate of an integer or float format of `bits` with one 16-bit scale (and a
 * packed zero point when asymmetric) per `group` weights. */
static uint64_t grouped_rate(uint64_t bits, uint64_t group, bool zero_point) {
    uint64_t r = bits * RATE_ONE / 8;
    if (group > 0) {
        r += 2 * RATE_ONE / group;
        if (zero_point) r += bits * RATE_ONE / 8 / group;
    }
    return r;
}

/* A quantization group size: absent -> dflt; -1 -> 0 (one scale per output
 * channel, AutoGPTQ / compressed-tensors "channel"); else a whole number of
 * weights in [1, 2^20]. Anything else is refused by name: a wrong group would
 * misstate every quantized byte. */
static uint64_t quant_group(kvp__fx *c, json_t *obj, const char *ptr, const char *key,
                            uint64_t dflt) {
    json_t *v = json_is_object(obj) ? kvp__fx_get(c, obj, ptr, key) : NULL;
    if (!v || c->st) return dflt;
    if (json_is_integer(v) && json_integer_value(v) == -1) return 0;
    double d = json_is_integer(v) ? (double)json_integer_value(v)
               : json_is_real(v)  ? json_real_value(v)
                                  : 0;
    if (!(d >= 1) || d != floor(d) || d > (double)(1u << 20)) {
        kvp__fx_fail(c, ptr, key, "expected a group size in [1, %u] weights, or -1 (per channel)",
                     1u << 20);
        return 0;
    }
    return kvp__double_to_u64(d);
}

/* q's member `key` (lenient reads of a quantization_config go through here). */
static json_t *qget(kvp__fx *c, json_t *q, const char *qptr, const char *key) {
    return json_is_object(q) ? kvp__fx_get(c, q, qptr, key) : NULL;
}

/* The quantizable category of a ModelOpt module name ("model.layers.3.mlp.experts.
 * 7.down_proj"): what follows its "layers.N." component; -1 for a module outside
 * the decoder layers (lm_head, the vision tower) or of no quantizable kind. */
static int module_category(const char *name) {
    const char *p = strstr(name, "layers.");
    while (p && !(p == name || p[-1] == '.')) p = strstr(p + 1, "layers.");
    if (!p) return -1;
    p += 7;
    if (!isdigit((unsigned char)*p)) return -1;
    while (isdigit((unsigned char)*p)) p++;
    if (*p++ != '.') return -1;
    if (strstr(p, "shared_expert")) return KVP_QUANT_CAT_SHARED;
    if (strstr(p, "experts") || !strncmp(p, "block_sparse_moe.", 17)) return KVP_QUANT_CAT_EXPERTS;
    if (!strncmp(p, "self_attn.", 10) || !strncmp(p, "attn.", 5) || !strncmp(p, "attention.", 10))
        return KVP_QUANT_CAT_ATTENTION;
    if (!strncmp(p, "mixer.", 6) || !strncmp(p, "linear_attn.", 12)) return KVP_QUANT_CAT_MIXER;
    if (!strncmp(p, "mlp.", 4) || !strncmp(p, "feed_forward.", 13)) return KVP_QUANT_CAT_MLP;
    return -1;
}

/* ModelOpt MIXED_PRECISION (vLLM modelopt.py : ModelOptMixedPrecisionConfig, the 2026
 * copy; MEMORY.md 7.7): each module of `quantized_layers` names its own quant_algo:
 * FP8 (1 B), NVFP4 and W4A16_NVFP4 (4 bits + an fp8 scale per group_size, default
 * 16), MXFP8 (1 B + an e8m0 scale per 32). A module the map does not list is not
 * quantized. Each category is charged the mean rate of its listed modules (all of
 * one algorithm in the checkpoints seen); a category no module lists stays at the
 * model dtype. An algorithm outside these is refused by name. */
static void mixed_precision(kvp__fx *c, json_t *layers, const char *lptr, kvp_weight_quant *wq) {
    /* The map's own key is named once: kvp__fx_fail appends it to its parent
     * (lptr ends in it; issue 29: ".../quantized_layers/quantized_layers"). */
    char parent[96];
    kvp__strlcpy(parent, lptr, sizeof parent);
    char *slash = strrchr(parent, '/');
    if (slash) *slash = '\0';
    if (!json_is_object(layers)) {
        kvp__fx_fail(c, parent, "quantized_layers",
                     "MIXED_PRECISION states no quantized_layers map (module -> quant_algo)");
        return;
    }
    /* An empty map quantizes no module: the checkpoint calls itself mixed precision
     * and states nothing of it (a truncated export), so every weight would be read
     * at the model dtype: refused by name (issue 29: an empty list accepted). */
    if (json_object_size(layers) == 0) {
        kvp__fx_fail(c, parent, "quantized_layers",
                     "MIXED_PRECISION with an empty quantized_layers map: no module is "
                     "quantized, so the weights' format is unknown");
        return;
    }
    uint64_t sum[KVP_QUANT_CAT_COUNT] = {0}, n[KVP_QUANT_CAT_COUNT] = {0};
    const char *algo_of[KVP_QUANT_CAT_COUNT] = {0};
    bool mixed[KVP_QUANT_CAT_COUNT] = {0};
    const char *name;
    json_t *e;
    json_object_foreach(layers, name, e) {
        int k = module_category(name);
        const char *algo = json_string_value(json_object_get(e, "quant_algo"));
        char eptr[160];
        snprintf(eptr, sizeof eptr, "%s/%.100s", lptr, name);
        if (!algo) {
            kvp__fx_fail(c, eptr, "quant_algo", "a quantized layer without a quant_algo");
            return;
        }
        uint64_t rate;
        if (!strcmp(algo, "FP8")) {
            rate = RATE_ONE;
        } else if (!strcmp(algo, "NVFP4") || !strcmp(algo, "W4A16_NVFP4")) {
            uint64_t g = quant_group(c, e, eptr, "group_size", 16);
            if (c->st) return;
            rate = RATE_ONE / 2 + (g ? RATE_ONE / g : 0);
        } else if (!strcmp(algo, "MXFP8")) {
            rate = RATE_ONE + RATE_ONE / 32;
        } else {
            kvp__fx_fail(c, eptr, "quant_algo",
                         "'%.40s': ModelOpt mixed precision knows FP8, NVFP4, W4A16_NVFP4 and "
                         "MXFP8",
                         algo);
            return;
        }
        if (k < 0) continue;
        if (algo_of[k] && strcmp(algo_of[k], algo)) mixed[k] = true;
        algo_of[k] = algo;
        sum[k] += rate;
        n[k]++;
    }
    static const char *const k_short[KVP_QUANT_CAT_COUNT] = {"attention", "mlp", "experts",
                                                             "shared", "mixer"};
    kvp__strlcpy(wq->method, "modelopt", sizeof wq->method);
    kvp__strlcpy(wq->label, "mixed", sizeof wq->label);
    wq->state = KVP_WEIGHT_QUANT_MODELLED;
    for (size_t k = 0; k < KVP_QUANT_CAT_COUNT; k++) {
        wq->excluded[k] = n[k] == 0;
        if (!n[k]) continue;
        wq->cat_rate_x65536[k] = kvp__ceil_div_u64(sum[k], n[k]);
        if (!wq->rate_x65536) wq->rate_x65536 = wq->cat_rate_x65536[k];
        size_t len = strlen(wq->label);
        snprintf(wq->label + len, sizeof wq->label - len, "%s %s %s", len == 5 ? ":" : ",",
                 k_short[k], mixed[k] ? "mixed" : algo_of[k]);
    }
}

static void weight_quant(kvp__fx *c, kvp_weight_quant *wq) {
    memset(wq, 0, sizeof *wq);
    const char *qptr = "/quantization_config";
    json_t *q = kvp__fx_get(c, c->root, "", "quantization_config");
    if (!json_is_object(q)) q = kvp__fx_get(c, c->lm, c->lm_ptr, "quantization_config");
    if (!json_is_object(q)) {
        q = kvp__fx_get(c, c->root, "", "compression_config");
        qptr = "/compression_config";
    }
    if (!json_is_object(q)) return;
    const char *method = json_string_value(qget(c, q, qptr, "quant_method"));
    if (!method) method = "";
    kvp__strlcpy(wq->method, method, sizeof wq->method);
    uint64_t rate = 0;
    char *what = wq->label;
    size_t wsz = sizeof wq->label;
    json_t *exclude = NULL;
    if (!strcmp(method, "fp8") || !strcmp(method, "fbgemm_fp8") || !strcmp(method, "ptpc_fp8")) {
        rate = RATE_ONE;
        json_t *blk = qget(c, q, qptr, "weight_block_size");
        json_int_t b0 = json_integer_value(json_array_get(blk, 0));
        json_int_t b1 = json_integer_value(json_array_get(blk, 1));
        if (b0 > 0 && b1 > 0 && b0 <= 65536 && b1 <= 65536) {
            rate += 4 * RATE_ONE / ((uint64_t)b0 * (uint64_t)b1);
            snprintf(what, wsz, "fp8 block-%lldx%lld", (long long)b0, (long long)b1);
        } else {
            snprintf(what, wsz, "fp8");
        }
        exclude = qget(c, q, qptr, "modules_to_not_convert");
        if (!exclude) exclude = qget(c, q, qptr, "ignored_layers");
    } else if (!strcmp(method, "mxfp4")) {
        rate = RATE_ONE / 2 + RATE_ONE / 32; /* 4-bit values + e8m0 scale per 32 */
        snprintf(what, wsz, "mxfp4");
        exclude = qget(c, q, qptr, "modules_to_not_convert");
    } else if (!strcmp(method, "modelopt") || !strcmp(method, "modelopt_fp4")) {
        const char *algo = json_string_value(qget(c, q, qptr, "quant_algo"));
        json_t *inner = qget(c, q, qptr, "quantization");
        char iptr[64];
        snprintf(iptr, sizeof iptr, "%s/quantization", qptr);
        if (!algo && json_is_object(inner))
            algo = json_string_value(qget(c, inner, iptr, "quant_algo"));
        if (algo && !strcmp(algo, "MIXED_PRECISION")) {
            json_t *layers = qget(c, q, qptr, "quantized_layers");
            char lptr[96];
            snprintf(lptr, sizeof lptr, "%s/quantized_layers", qptr);
            if (!layers && json_is_object(inner)) {
                layers = qget(c, inner, iptr, "quantized_layers");
                snprintf(lptr, sizeof lptr, "%s/quantized_layers", iptr);
            }
            mixed_precision(c, layers, lptr, wq);
            return;
        } else if (algo && strstr(algo, "FP4")) {
            rate = RATE_ONE / 2 + RATE_ONE / 16;
            snprintf(what, wsz, "nvfp4");
        } else if (algo && strstr(algo, "W4A")) {
            rate = grouped_rate(4, 128, false);
            snprintf(what, wsz, "int4 group-128");
        } else {
            rate = RATE_ONE;
            snprintf(what, wsz, "fp8");
        }
        exclude = qget(c, q, qptr, "exclude_modules");
        if (!exclude && json_is_object(inner)) exclude = qget(c, inner, iptr, "exclude_modules");
    } else if (!strncmp(method, "awq", 3) || !strncmp(method, "gptq", 4)) {
        /* GPTQConfig.bits / AwqConfig w_bit: the packed widths the kernels
         * implement (auto_gptq QuantLinear: 2, 3, 4, 8); absent, AWQ's default 4. */
        const char *bkey = json_object_get(q, "bits") ? "bits" : "w_bit";
        uint64_t bits = 4, b = 0;
        bool found = false;
        w_uint(c, q, qptr, bkey, 64, &b, &found);
        if (c->st) return;
        if (found && b != 2 && b != 3 && b != 4 && b != 8) {
            kvp__fx_fail(c, qptr, bkey, "%llu bits per weight: GPTQ / AWQ pack 2, 3, 4 or 8",
                         (unsigned long long)b);
            return;
        }
        if (found) bits = b;
        const char *gkey = json_object_get(q, "group_size") || !json_object_get(q, "q_group_size")
                               ? "group_size"
                               : "q_group_size";
        uint64_t group = quant_group(c, q, qptr, gkey, 128);
        if (c->st) return;
        /* Stored per group: a 16-bit scale and a zero point of `bits` (AWQ qzeros,
         * unless its zero_point is false; GPTQ always writes qzeros). vLLM's
         * GPTQ-Marlin serves symmetric 4- and 8-bit GPTQ (gptq_marlin.py TYPE_MAP)
         * and drops those zeros after loading (MarlinLinearKernel.
         * process_weights_after_loading: marlin_make_empty_g_idx). */
        bool awq = !strncmp(method, "awq", 3);
        bool zeros = !(awq && json_is_false(qget(c, q, qptr, "zero_point")));
        rate = grouped_rate(bits, group, zeros);
        if (!awq && !json_is_false(qget(c, q, qptr, "sym")) && (bits == 4 || bits == 8))
            wq->marlin_rate_x65536 = grouped_rate(bits, group, false);
        if (group)
            snprintf(what, wsz, "int%llu group-%llu", (unsigned long long)bits,
                     (unsigned long long)group);
        else
            snprintf(what, wsz, "int%llu per-channel", (unsigned long long)bits);
        exclude = qget(c, q, qptr, "modules_to_not_convert");
    } else if (!strcmp(method, "compressed-tensors")) {
        json_t *groups = qget(c, q, qptr, "config_groups");
        const char *gk;
        json_t *g, *w = NULL;
        char gptr[160] = "";
        json_object_foreach(groups, gk, g) {
            w = json_object_get(g, "weights");
            if (json_is_object(w)) {
                snprintf(gptr, sizeof gptr, "%s/config_groups/%s/weights", qptr, gk);
                break;
            }
        }
        uint64_t bits = 8;
        bool found = false;
        if (json_is_object(w)) w_uint(c, w, gptr, "num_bits", 16, &bits, &found);
        if (c->st) return;
        if (found && bits == 0) {
            kvp__fx_fail(c, gptr, "num_bits", "0 bits per weight");
            return;
        }
        if (!found) bits = 8;
        const char *type = json_string_value(qget(c, w, gptr, "type"));
        uint64_t group = quant_group(c, w, gptr, "group_size", 0); /* null: channel/tensor */
        if (c->st) return;
        bool sym = !json_is_false(qget(c, w, gptr, "symmetric"));
        bool is_float = type && !strcmp(type, "float");
        if (is_float && bits == 4) {
            rate = RATE_ONE / 2 + RATE_ONE / 16; /* nvfp4: fp8 scale per 16 */
            snprintf(what, wsz, "nvfp4");
        } else if (is_float && bits == 8) {
            rate = RATE_ONE;
            snprintf(what, wsz, "fp8");
        } else {
            rate = grouped_rate(bits, group, !sym);
            snprintf(what, wsz, "int%llu group-%llu", (unsigned long long)bits,
                     (unsigned long long)group);
        }
        exclude = qget(c, q, qptr, "ignore");
    } else if (!strcmp(method, "bitsandbytes")) {
        if (json_is_true(qget(c, q, qptr, "load_in_4bit"))) {
            rate = RATE_ONE / 2 + 4 * RATE_ONE / 64; /* nf4 + fp32 absmax per 64 */
            snprintf(what, wsz, "bnb-4bit");
        } else {
            rate = RATE_ONE;
            snprintf(what, wsz, "bnb-8bit");
        }
        exclude = qget(c, q, qptr, "llm_int8_skip_modules");
    } else {
        wq->state = KVP_WEIGHT_QUANT_UNMODELLED;
        return;
    }
    wq->state = KVP_WEIGHT_QUANT_MODELLED;
    wq->rate_x65536 = rate;
    for (size_t k = 0; k < KVP_QUANT_CAT_COUNT; k++)
        wq->excluded[k] = json_is_array(exclude) && list_excludes(exclude, k_protos[k]);
}

/* ------------------------------------------------------------ layers */

/* Is decoder layer l an MoE layer? One rule per family's key. */
static bool is_moe_layer(kvp__fx *c, uint32_t l, uint32_t first_dense) {
    json_t *only = kvp__fx_get(c, c->lm, c->lm_ptr, "mlp_only_layers");
    size_t i;
    json_t *v;
    json_array_foreach(only, i, v) if (json_integer_value(v) == (json_int_t)l) return false;
    json_t *freq = kvp__fx_get(c, c->lm, c->lm_ptr, "moe_layer_freq");
    if (json_is_array(freq)) return json_integer_value(json_array_get(freq, l)) != 0;
    if (l < first_dense) return false;
    json_int_t step = kvp__fx_int(kvp__fx_get(c, c->lm, c->lm_ptr, "decoder_sparse_step"));
    if (step > 1) return (l + 1) % (uint64_t)step == 0;
    step = kvp__fx_int(kvp__fx_get(c, c->lm, c->lm_ptr, "interleave_moe_layer_step"));
    if (step > 1) return (l + 1) % (uint64_t)step == 0;
    json_int_t period = kvp__fx_int(kvp__fx_get(c, c->lm, c->lm_ptr, "expert_layer_period"));
    if (period > 0) {
        json_int_t off = kvp__fx_int(kvp__fx_get(c, c->lm, c->lm_ptr, "expert_layer_offset"));
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
static void layer_widths(kvp__fx *c, json_t *list, kvp_layer_ffn *L, uint32_t layers) {
    if (json_array_size(list) != layers) {
        kvp__fx_fail(c, c->lm_ptr, "intermediate_size",
                     "has %zu entries, expected one per layer (%u)", json_array_size(list),
                     layers);
        return;
    }
    for (uint32_t l = 0; l < layers; l++) {
        json_t *v = json_array_get(list, l);
        if (!json_is_integer(v) || json_integer_value(v) < 0 ||
            (uint64_t)json_integer_value(v) > W_MAX_INTER) {
            kvp__fx_fail(c, c->lm_ptr, "intermediate_size",
                         "entry %u: expected a whole number in [0, %llu]", l,
                         (unsigned long long)W_MAX_INTER);
            return;
        }
        L[l].dense_inter = (uint64_t)json_integer_value(v);
        if (L[l].dense_inter) L[l].kind |= KVP_FFN_DENSE;
    }
}

/* Each layer's FFN: Nemotron-H's pattern, Nemotron-NAS block configs, or the
 * MoE schedule (dense leading layers, step, period, explicit list). */
static void ffn_schedule(kvp__fx *c, kvp_weight_facts *w, kvp_layer_ffn *L, uint64_t dense_inter,
                         uint64_t dense_inter_alt, uint32_t first_dense) {
    const char *pattern = lm_str(c, "hybrid_override_pattern");
    json_t *blocks = kvp__fx_get(c, c->lm, c->lm_ptr, "block_configs");
    bool moe_and_dense = json_is_true(kvp__fx_get(c, c->lm, c->lm_ptr, "enable_moe_block"));
    size_t plen = pattern ? strlen(pattern) : 0;
    for (uint32_t l = 0; l < w->layer_count && !c->st; l++) {
        if (pattern) { /* Nemotron-H: one character per layer */
            char ch = l < plen ? pattern[l] : 'M';
            if (ch == '-') {
                L[l].kind = KVP_FFN_DENSE;
                L[l].dense_inter = dense_inter;
            } else if (ch == 'E') {
                L[l].kind = KVP_FFN_MOE;
            }
            continue;
        }
        if (json_is_array(blocks)) { /* Nemotron-NAS */
            json_t *ffn = json_object_get(json_array_get(blocks, l), "ffn");
            char p[96];
            snprintf(p, sizeof p, "%s/block_configs/%u/ffn", c->lm_ptr, l);
            json_t *ffn_o = json_is_object(ffn) ? ffn : NULL;
            if (json_is_true(qget(c, ffn_o, p, "no_op"))) continue;
            if (json_is_true(qget(c, ffn_o, p, "replace_with_linear"))) {
                L[l].linear_replacement = true;
                continue;
            }
            json_t *m = qget(c, ffn_o, p, "ffn_mult");
            if (json_is_number(m) && json_number_value(m) > 0 && json_number_value(m) < 1e4) {
                L[l].kind = KVP_FFN_DENSE;
                L[l].dense_inter = nas_intermediate(json_number_value(m), w->hidden_size);
            }
            continue;
        }
        if (w->num_experts > 0 && is_moe_layer(c, l, first_dense)) {
            L[l].kind = KVP_FFN_MOE;
            if (moe_and_dense && dense_inter) {
                L[l].kind |= KVP_FFN_DENSE;
                L[l].dense_inter = dense_inter;
            }
        } else {
            uint64_t inter = w->num_experts > 0 && dense_inter_alt ? dense_inter_alt : dense_inter;
            if (inter) {
                L[l].kind = KVP_FFN_DENSE;
                L[l].dense_inter = inter;
            }
        }
    }
}

/* The first of `keys` written in lm, then the root (for naming a key whose
 * value contradicts another); NULL when none is. */
static const char *written_key(kvp__fx *c, const char *const *keys, const char **ptr) {
    for (size_t i = 0; keys[i]; i++)
        if (c->lm && json_object_get(c->lm, keys[i])) {
            *ptr = c->lm_ptr;
            return keys[i];
        }
    for (size_t i = 0; keys[i]; i++)
        if (c->root && c->root != c->lm && json_object_get(c->root, keys[i])) {
            *ptr = "";
            return keys[i];
        }
    return NULL;
}

/* mlp_only_layers (Qwen2/3-MoE): the decoder layers whose FFN is dense, as
 * indices into the layer list. An entry that is no index would silently
 * leave a layer MoE (is_moe_layer never matches it). */
static void check_mlp_only_layers(kvp__fx *c, uint32_t layers) {
    json_t *v = kvp__fx_get(c, c->lm, c->lm_ptr, "mlp_only_layers");
    if (!v || c->st) return;
    if (!json_is_array(v)) {
        kvp__fx_fail(c, c->lm_ptr, "mlp_only_layers", "expected an array of layer indices, found %s",
                     kvp__json_type_name(v));
        return;
    }
    size_t i;
    json_t *e;
    json_array_foreach(v, i, e) {
        if (!json_is_integer(e) || json_integer_value(e) < 0 ||
            json_integer_value(e) >= (json_int_t)layers) {
            char key[48];
            snprintf(key, sizeof key, "mlp_only_layers/%zu", i);
            kvp__fx_fail(c, c->lm_ptr, key, "expected a layer index in [0, %u) (num_hidden_layers)",
                         layers);
            return;
        }
    }
}

/* Qwen (1) states the width of gate and up together: each is half. */
static uint64_t qwen_gate_up_halved(const char *mt, uint64_t inter) {
    return !strcmp(mt, "qwen") ? inter / 2 : inter;
}

kvp_status kvp__facts_read_weights(kvp__fx *c, kvp_model *model, kvp_weight_facts *w,
                                   kvp_layer_ffn **out_layers) {
    const kvp_model_info *info = c->info;
    const char *mt = info->model_type;
    *out_layers = NULL;
    w->hidden_size = lm_uint_or(c, KEYS("hidden_size", "d_model", "n_embd"), W_MAX_HIDDEN,
                                info->hidden_size);
    w->vocab_size = lm_uint_or(c, KEYS("vocab_size", "padded_vocab_size"), W_MAX_VOCAB,
                               info->vocab_size);
    w->layer_count = info->num_layers > W_MAX_LAYERS ? 0 : info->num_layers;
    w->tied_embeddings = tied_embeddings(c, mt);
    w->gated_mlp = gated_mlp(c, mt);
    w->attn_output_gate = attn_output_gate(c, mt);
    w->gated_delta_net = c->lm && json_object_get(c->lm, "linear_num_value_heads") != NULL;
    /* MoE */
    w->num_experts = (uint32_t)lm_uint_or(
        c, KEYS("num_experts", "num_local_experts", "n_routed_experts", "moe_num_experts"),
        W_MAX_EXPERTS, info->num_experts);
    w->experts_per_token = (uint32_t)lm_uint_or(c,
                                                KEYS("num_experts_per_tok", "top_k_experts",
                                                     "experts_per_token", "moe_top_k"),
                                                W_MAX_EXPERTS, info->num_experts_per_tok);
    const char *topk_ptr = c->lm_ptr;
    const char *topk_key = written_key(c,
                                       KEYS("num_experts_per_tok", "top_k_experts",
                                            "experts_per_token", "moe_top_k"),
                                       &topk_ptr);
    /* Gemma 3n: one intermediate size per layer (read per layer below). */
    json_t *inter_list = kvp__fx_get(c, c->lm, c->lm_ptr, "intermediate_size");
    if (!json_is_array(inter_list)) inter_list = NULL;
    uint64_t inter = 0;
    if (!inter_list)
        inter = lm_uint_or(c,
                           KEYS("intermediate_size", "ffn_hidden_size", "d_intermediate",
                                "decoder_ffn_dim", "d_ff", "n_inner"),
                           W_MAX_INTER, info->intermediate_size);
    /* DBRX keeps its MoE FFN in ffn_config. */
    json_t *ffn_cfg = kvp__fx_get(c, c->lm, c->lm_ptr, "ffn_config");
    if (json_is_object(ffn_cfg) && !c->st) {
        char p[160];
        snprintf(p, sizeof p, "%s/ffn_config", c->lm_ptr);
        bool f;
        uint64_t v;
        w_uint(c, ffn_cfg, p, "ffn_hidden_size", W_MAX_INTER, &v, &f);
        if (f) inter = v;
        w_uint(c, ffn_cfg, p, "moe_num_experts", W_MAX_EXPERTS, &v, &f);
        if (f) w->num_experts = (uint32_t)v;
        w_uint(c, ffn_cfg, p, "moe_top_k", W_MAX_EXPERTS, &v, &f);
        if (f) {
            w->experts_per_token = (uint32_t)v;
            topk_ptr = "/ffn_config";
            topk_key = "moe_top_k";
        }
    }
    /* A token routed to more experts than exist: the active-parameter count
     * and every per-token figure built on it would be wrong. */
    if (!c->st && w->num_experts && w->experts_per_token > w->num_experts)
        kvp__fx_fail(c, topk_key ? topk_ptr : c->lm_ptr, topk_key ? topk_key : "num_experts_per_tok",
                     "routes each token to %u experts, but the model has %u", w->experts_per_token,
                     w->num_experts);
    check_mlp_only_layers(c, info->num_layers);
    inter = qwen_gate_up_halved(mt, inter);
    /* Two-matrix MLPs that state no width: MPT's expansion_ratio, else the
     * GPT-2 / BLOOM / Falcon default of 4 x hidden. */
    if (!inter && !inter_list && !w->gated_mlp && !w->num_experts) {
        uint64_t ratio = lm_uint_or(c, KEYS("expansion_ratio"), 64, 4);
        inter = ratio * w->hidden_size;
    }
    uint64_t inter_mlp = lm_uint_or(c, KEYS("intermediate_size_mlp"), W_MAX_INTER, 0);
    w->expert_inter = lm_uint_or(c, KEYS("moe_intermediate_size", "expert_intermediate_size"),
                                 W_MAX_INTER, info->moe_intermediate_size);
    if (w->expert_inter == 0) w->expert_inter = inter;
    uint64_t n_shared = lm_uint_or(c, KEYS("n_shared_experts", "num_shared_experts"), 1024,
                                   info->num_shared_experts);
    w->shared_inter = shared_expert_width(c, mt, n_shared, w->expert_inter, inter, w->num_experts);
    uint32_t first_dense = (uint32_t)lm_uint_or(c, KEYS("first_k_dense_replace"), W_MAX_LAYERS,
                                                info->first_k_dense_replace);
    /* MLA: the DSA indexer projections */
    if (info->is_mla) {
        w->index_head_dim = (uint32_t)lm_uint_or(c, KEYS("index_head_dim"), 65536, 0);
        w->index_heads =
            w->index_head_dim ? (uint32_t)lm_uint_or(c, KEYS("index_n_heads"), 65536, 64) : 0;
    }
    w->dt_rank = (uint32_t)lm_uint_or(c, KEYS("mamba_dt_rank", "time_step_rank"), 1u << 20,
                                      (w->hidden_size + 15) / 16);
    position_encoding(c, mt, w);
    /* encoder-decoder */
    w->encoder_ffn = lm_uint_or(c, KEYS("encoder_ffn_dim", "d_ff"), W_MAX_INTER, inter);
    if (info->num_encoder_layers) {
        w->num_mel_bins = lm_uint_or(c, KEYS("num_mel_bins"), 4096, 0);
        w->max_target_positions = lm_uint_or(c, KEYS("max_target_positions"), 1u << 20, 0);
        w->max_source_positions = lm_uint_or(c, KEYS("max_source_positions"), 1u << 20, 0);
    }
    if (c->st) return c->st;
    vision_tower(c, w);
    weight_quant(c, &w->quant);
    if (c->st) return c->st;
    kvp_layer_ffn *L = NULL;
    if (w->layer_count) {
        L = kvp__calloc(kvp__model_alc(model), w->layer_count, sizeof *L);
        if (!L)
            return kvp__fail(c->err, KVP_NOMEM, c->file, NULL, "out of memory (%u layers)",
                             w->layer_count);
        ffn_schedule(c, w, L, inter, inter_mlp, first_dense);
        if (!c->st && inter_list) layer_widths(c, inter_list, L, w->layer_count);
    }
    /* Gemma 3n per-layer embeddings */
    w->ple_hidden = lm_uint_or(c, KEYS("hidden_size_per_layer_input"), W_MAX_HIDDEN, 0);
    w->ple_vocab = lm_uint_or(c, KEYS("vocab_size_per_layer_input"), W_MAX_VOCAB, 0);
    if (c->st) {
        kvp__free(kvp__model_alc(model), L);
        return c->st;
    }
    *out_layers = L;
    w->layers = L;
    return KVP_OK;
}
