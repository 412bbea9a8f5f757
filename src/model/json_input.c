/*
 * json_input.c — a model from a JSON text whose kind is not known beforehand
 * (the CLI's MODEL or --geometry argument: a path to a .json or an inline
 * object): a GGUF-style geometry ({"arch": ...}), a geometry in HF or engine
 * words ({"num_layers": 40, "num_kv_heads": 8, ...}, or any {"geometry": {...}}
 * wrapper), or a Hugging Face config.json. The text is parsed once
 * (kvp__config_parse) and the model built from that parse.
 */
#include <jansson.h>

#include "kvplan/model.h"
#include "model_internal.h"

/* First integer among `keys` of object g. */
static json_t *first_of(json_t *g, const char *const *keys) {
    for (; *keys; keys++) {
        json_t *v = json_object_get(g, *keys);
        if (v && !json_is_null(v)) return v;
    }
    return NULL;
}

/* A geometry stated in HF or engine words ({"num_layers": 40, "num_kv_heads": 8,
 * "head_dim": 128, ...}, no GGUF "arch") becomes a minimal config.json, so the
 * vLLM / SGLang / TRT-LLM policies plan it like the checkpoint's own config.
 * Keys already in HF spelling pass through; the rest are filled from aliases. */
static json_t *geometry_to_hf(json_t *g) {
    static const char *const k_layers[] = {"num_hidden_layers", "num_layers", "n_layer",
                                           "block_count", "layers", NULL};
    static const char *const k_kvh[] = {"num_key_value_heads", "num_kv_heads", "kv_heads",
                                        "head_count_kv", "n_head_kv", NULL};
    static const char *const k_heads[] = {"num_attention_heads", "n_head", "head_count",
                                          "num_heads", NULL};
    static const char *const k_hd[] = {"head_dim", "key_length", "head_size", NULL};
    static const char *const k_hidden[] = {"hidden_size", "n_embd", "embedding_length", NULL};
    static const char *const k_dtype[] = {"torch_dtype", "dtype", "model_dtype", NULL};
    static const char *const k_ctx[] = {"max_position_embeddings", "context_length",
                                        "n_ctx_train", "max_model_len", NULL};
    json_t *c = json_deep_copy(g);
    if (!c) return NULL;
    json_object_del(c, "source");
    json_t *v;
    if ((v = first_of(g, k_layers)) != NULL) json_object_set(c, "num_hidden_layers", v);
    json_t *kvh = first_of(g, k_kvh), *heads = first_of(g, k_heads), *hd = first_of(g, k_hd);
    if (kvh) json_object_set(c, "num_key_value_heads", kvh);
    if (heads) json_object_set(c, "num_attention_heads", heads);
    else if (kvh) json_object_set(c, "num_attention_heads", kvh);
    if (!hd && json_is_integer(json_object_get(g, "n_embd_k_gqa")) && json_is_integer(kvh) &&
        json_integer_value(kvh) > 0)
        json_object_set_new(c, "head_dim",
                            json_integer(json_integer_value(json_object_get(g, "n_embd_k_gqa")) /
                                         json_integer_value(kvh)));
    else if (hd)
        json_object_set(c, "head_dim", hd);
    json_t *h = json_object_get(c, "num_attention_heads"), *d = json_object_get(c, "head_dim");
    if ((v = first_of(g, k_hidden)) != NULL)
        json_object_set(c, "hidden_size", v);
    else if (json_is_integer(h) && json_is_integer(d))
        json_object_set_new(c, "hidden_size",
                            json_integer(json_integer_value(h) * json_integer_value(d)));
    if ((v = first_of(g, k_dtype)) != NULL && json_is_string(v))
        json_object_set(c, "torch_dtype", v);
    if ((v = first_of(g, k_ctx)) != NULL) json_object_set(c, "max_position_embeddings", v);
    if (!json_object_get(c, "model_type") && !json_object_get(c, "architectures")) {
        bool mla = json_object_get(g, "kv_lora_rank") != NULL;
        json_object_set_new(c, "model_type", json_string(mla ? "deepseek_v3" : "llama"));
        json_t *a = json_array();
        json_array_append_new(a, json_string(mla ? "DeepseekV3ForCausalLM" : "LlamaForCausalLM"));
        json_object_set_new(c, "architectures", a);
    }
    return c;
}

kvp_status kvp__model_from_json_input(const char *text, size_t len, const char *name,
                                      bool forced_geometry, kvp_model **out, bool *handled,
                                      kvp_error *err) {
    *handled = false;
    *out = NULL;
    json_t *root = NULL;
    kvp_error scratch;
    if (kvp__config_parse(text, len, name, NULL, &root, &scratch) != KVP_OK) {
        if (scratch.code == KVP_NOMEM) {
            *handled = true;
            if (err) *err = scratch;
            return KVP_NOMEM;
        }
        return KVP_OK; /* let the ordinary readers report it */
    }
    if (!json_is_object(root)) {
        json_decref(root);
        return KVP_OK;
    }
    json_t *g = json_object_get(root, "geometry");
    bool wrapped = json_is_object(g);
    if (!wrapped) g = root;
    bool gguf = json_is_string(json_object_get(g, "arch")) ||
                json_is_string(json_object_get(g, "general.architecture"));
    bool hf_shape = json_object_get(g, "architectures") || json_object_get(g, "model_type");
    kvp_status st = KVP_OK;
    *handled = true;
    if (gguf) {
        st = kvp__model_from_geometry_root(root, name, NULL, out, err);
    } else if (forced_geometry || wrapped || (json_object_get(g, "source") && !hf_shape)) {
        json_t *cfg = geometry_to_hf(g);
        if (!cfg)
            st = kvp__fail(err, KVP_NOMEM, name, NULL, "out of memory");
        else
            st = kvp__model_from_hf_root(cfg, name, NULL, out, err);
        json_decref(cfg);
    } else {
        st = kvp__model_from_hf_root(root, name, NULL, out, err);
    }
    json_decref(root);
    return st;
}
