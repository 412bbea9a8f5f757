/*
 * facts_startup.c — the config.json facts the engines' start-up checks read
 * (kvplan/model.h kvp_model_startup, shared/reference/STARTUP.md): read with
 * the model's other facts (kvp__model_read_facts), one function per concept
 * below (the lengths each engine derives, rope scaling, custom code, block FP8,
 * shared experts).
 *
 * Lengths, as each engine derives its maximum context:
 *   vLLM  _get_and_verify_max_len: the smallest present of the keys below,
 *         then rope scaling (not for Gemma-3, whose config is already
 *         scaled): types other than su / longrope / llama3 multiply by
 *         `factor`; yarn starts from original_max_position_embeddings.
 *         (No key: 2048 in vLLM; kvplan leaves the length unknown, below.) A
 *         top-level model_max_length is kept apart (it lifts the refusal, V-LEN-1).
 *   SGLang get_context_length: the first present of its keys, times `factor`
 *         unless rope_scaling names original_max_position_embeddings or type
 *         llama3. No key: 2048.
 *   TRT-LLM _infer_max_seq_len_from_config: max_position_embeddings (2048
 *         when absent) times `factor` unless the type is su / longrope /
 *         llama3 / yarn.
 * Keys are read from the language model's config (text_config of a wrapper),
 * as the engines read hf_text_config. A length key of the wrong type is an
 * error here exactly as in the main reader (the typed getters of hf_json.h).
 */
#include <math.h>
#include <string.h>

#include "facts_internal.h"
#include "hf_json.h"

#define DEFAULT_LEN 2048u
#define MAX_LEN (UINT64_C(1) << 40)

static kvp_status len_key(hf_reader *r, const hf_obj *o, const char *key, uint64_t *out,
                          bool *found) {
    *found = false;
    /* Some configs carry a float ("max_position_embeddings": 4096.0): accepted
     * by kvp__hf_uint when integral. */
    return kvp__hf_uint(r, o, key, 1, MAX_LEN, out, found);
}

static kvp_status read_rope(hf_reader *r, kvp_model_startup *st) {
    hf_obj rope;
    kvp_status s = kvp__hf_child(r, &r->lm, "rope_scaling", &rope);
    if (s) return s;
    if (!rope.json && (s = kvp__hf_child(r, &r->lm, "rope_parameters", &rope))) return s;
    if (!rope.json) return KVP_OK;
    const char *type = NULL;
    if ((s = kvp__hf_str(r, &rope, "rope_type", &type))) return s;
    if (!type && (s = kvp__hf_str(r, &rope, "type", &type))) return s;
    /* An empty type names no RoPE scaling Transformers knows (rope_config_validation). */
    if (type && !*type)
        return kvp__hf_fail(r, &rope, json_object_get(rope.json, "rope_type") ? "rope_type" : "type",
                            KVP_CONFIG, "an empty rope type: expected default, linear, dynamic, "
                            "yarn, longrope, llama3, ...");
    kvp__strlcpy(st->rope_type, type ? type : "", sizeof st->rope_type);
    json_t *f = json_object_get(rope.json, "factor");
    if (f && !json_is_null(f)) {
        if (!json_is_number(f) || !(json_number_value(f) > 0) || json_number_value(f) > 1e6 ||
            !isfinite(json_number_value(f)))
            return kvp__hf_fail(r, &rope, "factor", KVP_CONFIG,
                                "expected a positive rope scaling factor");
        st->rope_factor = json_number_value(f);
    }
    bool found = false;
    if ((s = kvp__hf_uint(r, &rope, "original_max_position_embeddings", 1, MAX_LEN,
                          &st->rope_original_max, &found)))
        return s;
    return KVP_OK;
}

static uint64_t scale(uint64_t len, double factor) {
    double v = floor((double)len * factor);
    return v >= (double)MAX_LEN ? MAX_LEN : v < 1 ? 1 : (uint64_t)v;
}

static bool type_is(const char *t, const char *const *list) {
    for (; *list; list++)
        if (strcmp(t, *list) == 0) return true;
    return false;
}

/* vLLM _get_and_verify_max_len: the smallest present of its keys, rope-scaled
 * (not for Gemma-3, whose config is already scaled); the top-level
 * model_max_length apart. False in *any when no length key is present. */
static kvp_status vllm_length(hf_reader *r, const char *model_type, kvp_model_startup *st,
                              bool *any) {
    static const char *const k_vllm[] = {
        "max_position_embeddings", "n_positions",  "max_seq_len",      "seq_length",
        "model_max_length",        "max_target_positions", "max_sequence_length",
        "max_seq_length",          "seq_len"};
    kvp_status s;
    uint64_t best = UINT64_MAX;
    for (size_t i = 0; i < sizeof k_vllm / sizeof k_vllm[0]; i++) {
        uint64_t v = 0;
        bool found;
        if ((s = len_key(r, &r->lm, k_vllm[i], &v, &found))) return s;
        if (found && v < best) {
            best = v;
            kvp__strlcpy(st->vllm_len_key, k_vllm[i], sizeof st->vllm_len_key);
        }
    }
    bool found = false;
    if ((s = len_key(r, &r->root, "model_max_length", &st->model_max_length, &found))) return s;
    if ((s = read_rope(r, st))) return s;
    *any = best != UINT64_MAX;
    if (!*any) return KVP_OK;
    uint64_t vl = best;
    st->vllm_len_key_value = vl;
    static const char *const k_vllm_noscale[] = {"su", "longrope", "llama3", NULL};
    if (st->rope_type[0] && !strstr(model_type, "gemma3") &&
        !type_is(st->rope_type, k_vllm_noscale)) {
        double factor = st->rope_factor > 0 ? st->rope_factor : 1.0;
        if (strcmp(st->rope_type, "yarn") == 0 && st->rope_original_max) vl = st->rope_original_max;
        vl = scale(vl, factor);
    }
    st->vllm_max_len = vl;
    return KVP_OK;
}

/* SGLang get_context_length: the first present of its keys (2048 when none),
 * times the rope factor unless rope_scaling names
 * original_max_position_embeddings or type llama3. */
static kvp_status sglang_length(hf_reader *r, kvp_model_startup *st) {
    static const char *const k_sgl[] = {"max_sequence_length", "seq_length", "max_seq_len",
                                        "model_max_length", "max_position_embeddings"};
    uint64_t sl = 0;
    for (size_t i = 0; i < sizeof k_sgl / sizeof k_sgl[0] && !sl; i++) {
        uint64_t v = 0;
        bool found = false;
        kvp_status s = len_key(r, &r->lm, k_sgl[i], &v, &found);
        if (s) return s;
        if (found) {
            sl = v;
            kvp__strlcpy(st->sglang_len_key, k_sgl[i], sizeof st->sglang_len_key);
        }
    }
    if (!sl) sl = DEFAULT_LEN;
    if (st->rope_type[0] && st->rope_factor > 0 && !st->rope_original_max &&
        strcmp(st->rope_type, "llama3") != 0)
        sl = scale(sl, st->rope_factor);
    st->sglang_context_len = sl;
    return KVP_OK;
}

/* TRT-LLM _infer_max_seq_len_from_config: max_position_embeddings (2048 when
 * absent) times the factor unless the type is su / longrope / llama3 / yarn. */
static kvp_status trtllm_length(hf_reader *r, kvp_model_startup *st) {
    uint64_t tl = 0;
    bool found = false;
    kvp_status s = len_key(r, &r->lm, "max_position_embeddings", &tl, &found);
    if (s) return s;
    if (!found) tl = DEFAULT_LEN;
    static const char *const k_trt_noscale[] = {"su", "longrope", "llama3", "yarn", NULL};
    if (st->rope_type[0] && st->rope_factor > 0 && !type_is(st->rope_type, k_trt_noscale))
        tl = scale(tl, st->rope_factor);
    st->trtllm_max_seq_len = tl;
    return KVP_OK;
}

/* Custom code: auto_map in the outer config (or the language model's). */
static void custom_code(hf_reader *r, kvp_model_startup *st) {
    st->has_auto_map = json_is_object(json_object_get(r->root.json, "auto_map")) ||
                       json_is_object(json_object_get(r->lm.json, "auto_map"));
}

/* Block-FP8: quantization_config.weight_block_size [n, k] and the activation
 * scheme (the language model's quantization_config, else the outer one). */
static kvp_status block_fp8(hf_reader *r, kvp_model_startup *st) {
    kvp_status s;
    hf_obj q = {0};
    if ((s = kvp__hf_child(r, &r->lm, "quantization_config", &q))) return s;
    if (!q.json && (s = kvp__hf_child(r, &r->root, "quantization_config", &q))) return s;
    if (!q.json) return KVP_OK;
    json_t *wbs = NULL;
    if ((s = kvp__hf_array(r, &q, "weight_block_size", &wbs))) return s;
    if (wbs) {
        json_t *n = json_array_get(wbs, 0), *k = json_array_get(wbs, 1);
        if (json_array_size(wbs) != 2 || !json_is_integer(n) || !json_is_integer(k) ||
            json_integer_value(n) <= 0 || json_integer_value(k) <= 0 ||
            json_integer_value(n) > 65536 || json_integer_value(k) > 65536)
            return kvp__hf_fail(r, &q, "weight_block_size", KVP_CONFIG,
                                "expected two positive block sizes [n, k]");
        st->weight_block_n = (uint32_t)json_integer_value(n);
        st->weight_block_k = (uint32_t)json_integer_value(k);
    }
    const char *act = NULL;
    if ((s = kvp__hf_str(r, &q, "activation_scheme", &act))) return s;
    kvp__strlcpy(st->activation_scheme, act ? act : "", sizeof st->activation_scheme);
    return KVP_OK;
}

/* The shared experts' intermediate size, under either of its names. */
static kvp_status shared_experts(hf_reader *r, kvp_model_startup *st) {
    static const char *const k_shared[] = {"shared_expert_intermediate_size",
                                           "moe_shared_expert_intermediate_size"};
    bool found = false;
    for (size_t i = 0; i < 2 && !st->shared_expert_intermediate_size; i++) {
        kvp_status s = kvp__hf_uint(r, &r->lm, k_shared[i], 0, MAX_LEN,
                                    &st->shared_expert_intermediate_size, &found);
        if (s) return s;
    }
    return KVP_OK;
}

kvp_status kvp__facts_read_startup(kvp__fx *c, kvp_model_startup *st) {
    if (!c->root) return KVP_OK; /* GGUF, geometry: not from a config (left as built) */
    memset(st, 0, sizeof *st);
    st->from_config = true;
    /* The typed, bounded getters of the main reader (hf_json.h) over the same
     * objects, so a key of the wrong type fails as it does there. */
    hf_reader r;
    memset(&r, 0, sizeof r);
    r.file = c->file;
    r.err = c->err;
    r.root.json = c->root;
    r.lm.json = c->lm;
    kvp__strlcpy(r.lm.pointer, c->lm_ptr, sizeof r.lm.pointer);
    bool any = false;
    kvp_status s = vllm_length(&r, c->info->model_type, st, &any);
    /* No length key at all (a geometry description, a stripped config): the
     * engines would take 2048, but kvplan cannot tell a real config from a partial
     * one, so the lengths stay unknown (0) rather than refuse on a guess. */
    if (!s && any) s = sglang_length(&r, st);
    if (!s && any) s = trtllm_length(&r, st);
    custom_code(&r, st);
    if (!s) s = block_fp8(&r, st);
    if (!s) s = shared_experts(&r, st);
    return s;
}

const kvp_model_startup *kvp_model_get_startup(const kvp_model *model) {
    static const kvp_model_startup k_none;
    return model ? &model->startup : &k_none;
}
