/*
 * hf_config.c — a Hugging Face config.json to per-layer KV cache specs.
 *
 * Input: the config.json of a checkpoint (UTF-8 JSON, at most
 * KVP_MAX_CONFIG_BYTES), parsed by kvp__config_parse (config_text.c: Python
 * Infinity / NaN literals are refused where a number is read).
 *
 * The language model may be nested in a multimodal wrapper (text_config,
 * llm_config, language_config, thinker_config); the outer dtype and
 * quantization_config are honoured when the inner config omits them.
 *
 * Each family's layer schedule is one function (DESIGN.md "layer cache spec");
 * anything that changes the cache and is not understood is refused by name.
 */
#include <string.h>
#include <sys/stat.h>

#include "hf_json.h"
#include "json_error.h"
#include "hf_layers.h"


/* Descend through multimodal wrappers to the language model's config. */
static kvp_status find_language_model(hf_reader *r) {
    static const char *const wrappers[] = {KVP__LM_WRAPPER_KEYS};
    r->lm = r->root;
    for (int depth = 0; depth < 4; depth++) {
        bool descended = false;
        for (size_t i = 0; i < sizeof wrappers / sizeof wrappers[0]; i++) {
            hf_obj child;
            kvp_status s = kvp__hf_child(r, &r->lm, wrappers[i], &child);
            if (s) return s;
            if (child.json) {
                r->lm = child;
                descended = true;
                break;
            }
        }
        if (!descended) break;
    }
    return KVP_OK;
}

static kvp_status read_dtype_key(hf_reader *r, const hf_obj *o, const char *key, kvp_dtype *out,
                                 bool *found) {
    const char *s;
    kvp_status st = kvp__hf_str(r, o, key, &s);
    if (st) return st;
    if (!s) return KVP_OK;
    kvp_dtype d;
    if (kvp_dtype_parse(s, &d) != KVP_OK || d == KVP_DTYPE_AUTO || d == KVP_DTYPE_NVFP4 ||
        d == KVP_DTYPE_FP8 || d == KVP_DTYPE_INT8)
        return kvp__hf_fail(r, o, key, KVP_UNSUPPORTED,
                            "unknown model dtype \"%s\" (expected float32, float16 or bfloat16)", s);
    *out = d;
    *found = true;
    return KVP_OK;
}

/* torch_dtype / dtype of the language model, else of the outer config.
 * transformers 4.56 renamed torch_dtype to dtype and reads either; one object
 * stating both with different types is ambiguous (which one the weights hold
 * decides the model's bytes), so it is refused, naming dtype. */
static kvp_status read_model_dtype(hf_reader *r, kvp_model_info *info) {
    const hf_obj *objs[2] = {&r->lm, &r->root};
    for (int o = 0; o < 2; o++) {
        kvp_dtype torch_d = KVP_DTYPE_AUTO, d = KVP_DTYPE_AUTO;
        bool torch_found = false, found = false;
        kvp_status s = read_dtype_key(r, objs[o], "torch_dtype", &torch_d, &torch_found);
        if (!s) s = read_dtype_key(r, objs[o], "dtype", &d, &found);
        if (s) return s;
        if (torch_found && found && torch_d != d)
            return kvp__hf_fail(r, objs[o], "dtype", KVP_CONFIG,
                                "states \"%s\" but torch_dtype states \"%s\": the checkpoint's "
                                "weight type is ambiguous (state one of them)",
                                json_string_value(json_object_get(objs[o]->json, "dtype")),
                                json_string_value(json_object_get(objs[o]->json, "torch_dtype")));
        if (torch_found || found) {
            info->dtype = torch_found ? torch_d : d;
            info->dtype_stated = true;
            return KVP_OK;
        }
    }
    info->dtype = KVP_DTYPE_BF16;
    info->dtype_stated = false;
    return KVP_OK;
}

/* The checkpoint's KV cache quantization and weight quantization, from
 * quantization_config (modelopt kv_cache_quant_algo, compressed-tensors
 * kv_cache_scheme) of the language model or the outer config. */
static kvp_status read_quantization(hf_reader *r, kvp_model_info *info) {
    hf_obj q = {0};
    kvp_status s = kvp__hf_child(r, &r->lm, "quantization_config", &q);
    if (s) return s;
    if (r->lm.json != r->root.json) {
        /* The weights estimate reads the outer one, the cache the inner one:
         * two different quantization_configs cannot both describe the checkpoint. */
        hf_obj outer = {0};
        if ((s = kvp__hf_child(r, &r->root, "quantization_config", &outer))) return s;
        if (q.json && outer.json && !json_equal(q.json, outer.json))
            return kvp__hf_fail(r, &r->lm, "quantization_config", KVP_CONFIG,
                                "differs from the outer /quantization_config: the checkpoint's "
                                "quantization is ambiguous (state it once)");
        if (!q.json) q = outer;
    }
    if (!q.json) return KVP_OK;
    const char *method = NULL, *algo = NULL, *kv_algo = NULL;
    if ((s = kvp__hf_str(r, &q, "quant_method", &method))) return s;
    if (method) kvp__strlcpy(info->quant_method, method, sizeof info->quant_method);
    /* modelopt: {"quant_algo": "FP8", "kv_cache_quant_algo": "FP8"} */
    json_t *v = json_object_get(q.json, "quant_algo");
    if (json_is_string(v)) algo = json_string_value(v);
    if ((s = kvp__hf_str(r, &q, "kv_cache_quant_algo", &kv_algo))) return s;
    if (kv_algo) {
        if (kvp__strcasecmp(kv_algo, "FP8") == 0)
            info->kv_dtype_declared = KVP_DTYPE_FP8;
        else if (kvp__strcasecmp(kv_algo, "NVFP4") == 0)
            info->kv_dtype_declared = KVP_DTYPE_NVFP4;
        else if (kvp__strcasecmp(kv_algo, "INT8") == 0)
            info->kv_dtype_declared = KVP_DTYPE_INT8;
        else
            return kvp__hf_fail(r, &q, "kv_cache_quant_algo", KVP_UNSUPPORTED,
                                "unknown KV cache quantization \"%s\" (expected FP8, NVFP4, INT8)",
                                kv_algo);
    }
    /* compressed-tensors: {"kv_cache_scheme": {"num_bits": 8, "type": "float"}} */
    hf_obj kvs;
    if ((s = kvp__hf_child(r, &q, "kv_cache_scheme", &kvs))) return s;
    if (kvs.json) {
        kvp_dtype from_algo = info->kv_dtype_declared;
        uint32_t bits = 0;
        const char *type = NULL;
        if ((s = kvp__hf_u32(r, &kvs, "num_bits", 1, 64, &bits, NULL))) return s;
        if ((s = kvp__hf_str(r, &kvs, "type", &type))) return s;
        if (bits == 8 && type && strcmp(type, "float") == 0)
            info->kv_dtype_declared = KVP_DTYPE_FP8;
        else if (bits == 8 && type && strcmp(type, "int") == 0)
            info->kv_dtype_declared = KVP_DTYPE_INT8;
        else if (bits == 4 && type && strcmp(type, "float") == 0)
            info->kv_dtype_declared = KVP_DTYPE_NVFP4;
        else
            return kvp__hf_fail(r, &kvs, "num_bits", KVP_UNSUPPORTED,
                                "KV cache scheme of %u bits of type \"%s\" is not supported", bits,
                                type ? type : "(none)");
        if (kv_algo && from_algo != info->kv_dtype_declared)
            return kvp__hf_fail(r, &q, "kv_cache_scheme", KVP_CONFIG,
                                "declares the KV cache %s but kv_cache_quant_algo declares %s: the "
                                "cache's type is ambiguous (state it once)",
                                kvp_dtype_name(info->kv_dtype_declared), kvp_dtype_name(from_algo));
    }
    /* Weight quantization, kept for the weights estimate. */
    const char *wq = "";
    if (method) {
        if (strcmp(method, "fp8") == 0 || strcmp(method, "fbgemm_fp8") == 0) wq = "fp8";
        else if (strcmp(method, "mxfp4") == 0) wq = "mxfp4";
        else if (strcmp(method, "awq") == 0 || strcmp(method, "gptq") == 0) wq = "int4";
        else if (strcmp(method, "bitsandbytes") == 0) wq = "int4";
    }
    if (algo) {
        if (kvp__strcasecmp(algo, "FP8") == 0 || kvp__strcasecmp(algo, "FP8_BLOCK_SCALES") == 0) wq = "fp8";
        else if (kvp__strcasecmp(algo, "NVFP4") == 0) wq = "nvfp4";
        else if (kvp__strcasecmp(algo, "W4A16_AWQ") == 0) wq = "int4";
    }
    /* compressed-tensors config_groups: the first group's weight bits decide. */
    json_t *groups = json_object_get(q.json, "config_groups");
    if (json_is_object(groups)) {
        const char *gk;
        json_t *g;
        json_object_foreach(groups, gk, g) {
            json_t *w = json_object_get(g, "weights");
            json_t *bits = json_object_get(w, "num_bits");
            json_t *type = json_object_get(w, "type");
            json_t *gs = json_object_get(w, "group_size");
            if (json_is_integer(bits)) {
                json_int_t b = json_integer_value(bits);
                bool is_float = json_is_string(type) && strcmp(json_string_value(type), "float") == 0;
                if (b == 4) wq = is_float ? "nvfp4" : "int4";
                else if (b == 8) wq = is_float ? "fp8" : "int8";
            }
            if (json_is_integer(gs) && json_integer_value(gs) > 0 &&
                json_integer_value(gs) < 1000000)
                info->quant_group_size = (uint32_t)json_integer_value(gs);
            break;
        }
    }
    json_t *gsz = json_object_get(q.json, "group_size");
    if (json_is_integer(gsz) && json_integer_value(gsz) > 0 && json_integer_value(gsz) < 1000000)
        info->quant_group_size = (uint32_t)json_integer_value(gsz);
    json_t *bits = json_object_get(q.json, "bits");
    if (json_is_integer(bits) && json_integer_value(bits) == 8 && !*wq) wq = "int8";
    kvp__strlcpy(info->weight_quant, wq, sizeof info->weight_quant);
    static const char *const excl_keys[] = {"modules_to_not_convert", "ignore", "exclude_modules",
                                            "ignored_layers"};
    for (size_t i = 0; i < sizeof excl_keys / sizeof excl_keys[0]; i++) {
        json_t *a = json_object_get(q.json, excl_keys[i]);
        if (json_is_array(a)) info->num_quant_excluded += (uint32_t)json_array_size(a);
    }
    return KVP_OK;
}

/* First integer found among `keys` of o (lenient: for facts kept, not for the cache). */
static uint64_t first_uint(const hf_obj *o, const char *const *keys, size_t n) {
    if (!o->json) return 0;
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_object_get(o->json, keys[i]);
        if (json_is_integer(v) && json_integer_value(v) > 0 &&
            json_integer_value(v) <= (json_int_t)UINT32_MAX)
            return (uint64_t)json_integer_value(v);
    }
    return 0;
}
#define FIRST_UINT(o, ...)                                                                  \
    first_uint((o), (const char *const[]){__VA_ARGS__},                                     \
               sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *))

/* MoE and size facts for the weights estimate (issue: read and kept). */
static kvp_status read_facts(hf_reader *r, kvp_model_info *info) {
    const hf_obj *lm = &r->lm;
    /* The MTP layer counts decide how many layers cache (a drafter's layers hold KV):
     * read strictly, a string ("" too) or a negative count refused by name. */
    static const char *const k_mtp[] = {"num_nextn_predict_layers", "mtp_num_hidden_layers",
                                        "num_mtp_modules"};
    for (size_t i = 0; i < sizeof k_mtp / sizeof k_mtp[0]; i++) {
        uint64_t v;
        bool found;
        kvp_status s = kvp__hf_uint(r, lm, k_mtp[i], 0, KVP_MAX_LAYERS, &v, &found);
        if (s) return s;
    }
    /* A tie switch that is no boolean ("", "yes") says nothing the weights can use. */
    static const char *const k_tie[] = {"tie_word_embeddings", "tie_embeddings"};
    for (size_t i = 0; i < 2; i++) {
        const hf_obj *o = lm;
        for (int k = 0; k < 2; k++, o = &r->root) {
            json_t *t = o->json ? json_object_get(o->json, k_tie[i]) : NULL;
            if (t && !json_is_null(t) && !json_is_boolean(t))
                return kvp__hf_fail(r, o, k_tie[i], KVP_CONFIG, "expected true or false, found %s",
                                    kvp__json_type_name(t));
        }
    }
    if (!info->hidden_size) info->hidden_size = FIRST_UINT(lm, "hidden_size", "d_model", "n_embd");
    info->intermediate_size = FIRST_UINT(lm, "intermediate_size", "ffn_hidden_size", "d_ff",
                                         "decoder_ffn_dim", "n_inner");
    info->vocab_size = FIRST_UINT(lm, "vocab_size", "padded_vocab_size");
    if (!info->vocab_size) info->vocab_size = FIRST_UINT(&r->root, "vocab_size");
    info->num_experts = (uint32_t)FIRST_UINT(lm, "num_experts", "num_local_experts",
                                             "n_routed_experts", "moe_num_experts");
    info->num_experts_per_tok = (uint32_t)FIRST_UINT(lm, "num_experts_per_tok", "experts_per_token",
                                                     "top_k_experts", "moe_topk", "moe_k");
    info->num_shared_experts = (uint32_t)FIRST_UINT(lm, "n_shared_experts", "num_shared_experts");
    if (!info->num_shared_experts &&
        FIRST_UINT(lm, "shared_expert_intermediate_size", "moe_shared_expert_intermediate_size",
                   "share_expert_dim"))
        info->num_shared_experts = 1;
    info->moe_intermediate_size = FIRST_UINT(lm, "moe_intermediate_size");
    info->first_k_dense_replace = (uint32_t)FIRST_UINT(lm, "first_k_dense_replace");
    info->moe_layer_freq = (uint32_t)FIRST_UINT(lm, "moe_layer_freq", "decoder_sparse_step",
                                                "interleave_moe_layer_step", "expert_layer_period");
    if (!info->num_nextn_predict_layers) /* else from mtp_layers_block_type */
        info->num_nextn_predict_layers = (uint32_t)FIRST_UINT(lm, "num_nextn_predict_layers",
                                                          "mtp_num_hidden_layers", "num_mtp_modules");
    if (!info->max_position_embeddings)
        info->max_position_embeddings = FIRST_UINT(lm, "max_position_embeddings", "max_target_positions",
                                               "n_positions", "max_sequence_length", "seq_length",
                                                   "max_seq_len", "n_ctx");
    json_t *tie = json_object_get(lm->json, "tie_word_embeddings");
    if (!tie) tie = json_object_get(r->root.json, "tie_word_embeddings");
    if (!tie) tie = json_object_get(r->root.json, "tie_embeddings");
    info->tie_word_embeddings = json_is_true(tie);
    return KVP_OK;
}

static kvp_status read_config(hf_reader *r, kvp_model *model) {
    kvp_model_info *info = kvp__model_info(model);
    if (!json_is_object(r->root.json))
        return kvp__fail(r->err, KVP_CONFIG, r->file, "", "expected a JSON object at the top level, "
                         "found %s", kvp__json_type_name(r->root.json));
    kvp_status s = find_language_model(r);
    if (s) return s;
    info->is_multimodal = r->lm.json != r->root.json;
    const char *mt = NULL;
    if ((s = kvp__hf_str(r, &r->lm, "model_type", &mt))) return s;
    if (!mt && (s = kvp__hf_str(r, &r->root, "model_type", &mt))) return s;
    kvp__strlcpy(info->model_type, mt ? mt : "", sizeof info->model_type);
    json_t *arch = json_object_get(r->root.json, "architectures");
    if (json_is_array(arch) && json_array_size(arch) > 0 &&
        json_is_string(json_array_get(arch, 0)))
        kvp__strlcpy(info->architecture, json_string_value(json_array_get(arch, 0)),
                     sizeof info->architecture);
    if ((s = read_model_dtype(r, info))) return s;
    if ((s = read_quantization(r, info))) return s;
    if ((s = kvp__hf_layers(r, model))) return s;
    info->family_unverified = !kvp__hf_family_verified(info->model_type);
    s = read_facts(r, info); /* after the layers: type defaults are applied by then */
    if (s) return s;
    return KVP_OK;
}

kvp_status kvp__model_from_hf_root(json_t *root, const char *name, const kvp_allocator *alc,
                                   kvp_model **out, kvp_error *err) {
    *out = NULL;
    kvp_model *model = kvp__model_new(alc, name);
    if (!model) return kvp__fail(err, KVP_NOMEM, name, NULL, "out of memory");
    hf_reader r;
    memset(&r, 0, sizeof r);
    r.file = name;
    r.root.json = root;
    r.root.pointer[0] = '\0';
    r.err = err;
    kvp_status st = read_config(&r, model);
    if (!st) st = kvp__model_read_facts(model, r.root.json, r.lm.json, r.lm.pointer, err);
    if (st) {
        kvp_model_free(model);
        return st;
    }
    *out = model;
    return KVP_OK;
}

kvp_status kvp_model_from_hf_json(const char *text, size_t len, const char *name,
                                  const kvp_allocator *alc, kvp_model **out, kvp_error *err) {
    *out = NULL;
    if (!name) name = "config.json";
    json_t *root = NULL;
    kvp_status st = kvp__config_parse(text, len, name, alc, &root, err);
    if (st) return st;
    st = kvp__model_from_hf_root(root, name, alc, out, err);
    json_decref(root);
    return st;
}

/* A JSON file of at most KVP_MAX_CONFIG_BYTES, parsed (the caller json_decrefs it). */
static kvp_status read_json_file(const char *path, const kvp_allocator *alc, json_t **out,
                                 kvp_error *err) {
    char *buf;
    size_t len;
    kvp_status s = kvp__read_file(path, KVP_MAX_CONFIG_BYTES, alc, &buf, &len, err);
    if (s) return s;
    s = kvp__config_parse(buf, len, path, alc, out, err);
    kvp__free(alc, buf);
    return s;
}

/* A ModelOpt checkpoint states its quantization in hf_quant_config.json beside
 * config.json ({"producer": ..., "quantization": {"quant_algo": ...,
 * "quantized_layers": ...}}), which vLLM reads when config.json has no
 * quantization_config (ModelConfig._parse_quant_hf_config; modelopt.py
 * ModelOptFp8Config.from_config reads the "quantization" block). Its block is
 * taken as config.json's quantization_config with quant_method "modelopt". */
static kvp_status hf_quant_config(const char *config_file, json_t *root, const kvp_allocator *alc,
                                  kvp_error *err) {
    if (!json_is_object(root) || json_object_get(root, "quantization_config")) return KVP_OK;
    char path[4096];
    const char *slash = strrchr(config_file, '/');
    int n = slash ? snprintf(path, sizeof path, "%.*s/hf_quant_config.json",
                             (int)(slash - config_file), config_file)
                  : snprintf(path, sizeof path, "hf_quant_config.json");
    struct stat st;
    if (n < 0 || (size_t)n >= sizeof path || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return KVP_OK;
    json_t *hq = NULL;
    kvp_status s = read_json_file(path, alc, &hq, err);
    if (s) return s;
    json_t *block = json_is_object(hq) ? json_object_get(hq, "quantization") : NULL;
    if (!json_is_object(block)) {
        json_decref(hq);
        return kvp__fail(err, KVP_CONFIG, path, "/quantization",
                         "expected the ModelOpt quantization block (an object)");
    }
    json_t *q = json_object();
    if (!q || json_object_set_new(q, "quant_method", json_string("modelopt")) ||
        json_object_update(q, block) || json_object_set_new(root, "quantization_config", q)) {
        json_decref(hq);
        return kvp__fail(err, KVP_NOMEM, path, NULL, "out of memory");
    }
    json_decref(hq);
    return KVP_OK;
}

kvp_status kvp_model_from_hf_file(const char *path, const kvp_allocator *alc, kvp_model **out,
                                  kvp_error *err) {
    *out = NULL;
    char file[4096];
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        int n = snprintf(file, sizeof file, "%s/config.json", path);
        if (n < 0 || (size_t)n >= sizeof file)
            return kvp__fail(err, KVP_IO, path, NULL, "path is too long");
        if (stat(file, &st) != 0)
            return kvp__fail(err, KVP_IO, path, NULL, "folder holds no config.json");
    } else {
        kvp__strlcpy(file, path, sizeof file);
    }
    json_t *root = NULL;
    kvp_status s = read_json_file(file, alc, &root, err);
    if (s) return s;
    s = hf_quant_config(file, root, alc, err);
    if (!s) s = kvp__model_from_hf_root(root, file, alc, out, err);
    json_decref(root);
    return s;
}
