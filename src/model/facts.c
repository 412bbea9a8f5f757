/*
 * facts.c — the model's facts beyond its cache records (kvp_model_facts),
 * read once from the parsed config when the model is built, or from the
 * model info of a GGUF / geometry model (whose sources cannot state the
 * config-only keys: those facts are KVP_FACT_UNKNOWN).
 *
 * Look-ups follow the config reader: the language model's object (through the
 * multimodal wrappers, KVP__LM_WRAPPER_KEYS) first, then the outer config.
 * One function per concept below; the weights facts are in facts_weights.c,
 * the start-up facts (lengths, rope scaling, custom code) in facts_startup.c.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "facts_internal.h"
#include "json_error.h"
#include "model_internal.h"

/* ------------------------------------------------------------ reading keys */

kvp_status kvp__fx_fail(kvp__fx *c, const char *ptr, const char *key, const char *fmt, ...) {
    if (c->st) return c->st;
    char p[KVP_ERROR_KEY_MAX];
    snprintf(p, sizeof p, "%s/%s", ptr ? ptr : "", key);
    va_list ap;
    va_start(ap, fmt);
    c->st = kvp__vfail(c->err, KVP_CONFIG, c->file, p, fmt, ap);
    va_end(ap);
    return c->st;
}

json_t *kvp__fx_get(kvp__fx *c, json_t *obj, const char *ptr, const char *key) {
    if (c->st || !json_is_object(obj)) return NULL;
    json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v)) return NULL;
    if (kvp__json_is_python_literal(v)) {
        char p[KVP_ERROR_KEY_MAX];
        snprintf(p, sizeof p, "%s/%s", ptr ? ptr : "", key);
        c->st = kvp__config_literal_fail(c->err, c->file, p, v);
        return NULL;
    }
    return v;
}

json_t *kvp__fx_lm(kvp__fx *c, const char *key) {
    json_t *v = kvp__fx_get(c, c->lm, c->lm_ptr, key);
    if (!v && c->lm != c->root) v = kvp__fx_get(c, c->root, "", key);
    return v;
}

json_int_t kvp__fx_int(json_t *v) { return json_is_integer(v) ? json_integer_value(v) : 0; }

/* Seed _get_config_int_attr: the first name (lm, then root) whose value is a
 * Python int: a JSON integer, 0 included, or a boolean (true = 1, false = 0).
 * Negative integers fall through (kvplan: a negative count is no count), as do
 * other values. */
static kvp_fact_u64 seed_int(kvp__fx *c, const char *const *names) {
    kvp_fact_u64 f = {.state = c->root ? KVP_FACT_ABSENT : KVP_FACT_UNKNOWN, .value = 0,
                      .key = NULL};
    for (size_t i = 0; names[i]; i++) {
        json_t *v = kvp__fx_lm(c, names[i]);
        if (json_is_boolean(v) || (json_is_integer(v) && json_integer_value(v) >= 0)) {
            f.state = KVP_FACT_STATED;
            f.value = json_is_boolean(v) ? (json_is_true(v) ? 1u : 0u)
                                         : (uint64_t)json_integer_value(v);
            f.key = names[i];
            return f;
        }
    }
    return f;
}
#define NAMES(...) ((const char *const[]){__VA_ARGS__, NULL})

/* ------------------------------------------------------------ one per concept */

/* Encoder geometry of an encoder-decoder model (creator: cross KV cache). */
static void encoder_geometry(kvp__fx *c, kvp_encoder_facts *e) {
    e->decoder_layers =
        seed_int(c, NAMES("num_decoder_layers", "decoder_layers", "num_hidden_layers",
                          "num_layers"));
    e->heads = seed_int(c, NAMES("encoder_num_heads", "encoder_attention_heads", "num_heads",
                                 "num_attention_heads"));
    e->kv_heads = seed_int(c, NAMES("encoder_num_kv_heads", "encoder_num_key_value_heads",
                                    "encoder_attention_heads", "encoder_num_heads",
                                    "num_key_value_heads", "num_heads", "num_attention_heads"));
    e->hidden_size = seed_int(c, NAMES("encoder_hidden_size", "d_model", "hidden_size"));
    e->head_dim = seed_int(c, NAMES("encoder_head_size", "encoder_head_dim", "d_kv"));
    e->max_input_len = seed_int(
        c, NAMES("max_encoder_input_len", "encoder_max_input_length",
                 "max_encoder_position_embeddings", "encoder_max_position_embeddings",
                 "max_position_embeddings", "n_positions"));
    e->max_target_positions = seed_int(c, NAMES("max_target_positions"));
}

/* The LoRA (PEFT) cache's model keys: Mamba projections, MoE latent, dense MLP layers. */
static void lora_modules(kvp__fx *c, kvp_lora_facts *l) {
    l->mamba_head_dim = seed_int(c, NAMES("mamba_head_dim"));
    l->mamba_num_heads = seed_int(c, NAMES("mamba_num_heads"));
    l->n_groups = seed_int(c, NAMES("n_groups"));
    l->ssm_state_size = seed_int(c, NAMES("ssm_state_size"));
    l->moe_latent_size = seed_int(c, NAMES("moe_latent_size"));
    json_t *mlp_only = kvp__fx_lm(c, "mlp_only_layers");
    l->has_dense_mlp_layers = json_is_array(mlp_only)
                                  ? json_array_size(mlp_only) > 0
                                  : (mlp_only && !json_is_false(mlp_only) &&
                                     !(json_is_integer(mlp_only) && json_integer_value(mlp_only) == 0));
}

static kvp_layer_type layer_type_of(const char *s) {
    if (!s) return KVP_LAYER_TYPE_OTHER;
    if (!strcmp(s, "full_attention")) return KVP_LAYER_TYPE_FULL;
    if (!strcmp(s, "sliding_attention")) return KVP_LAYER_TYPE_SLIDING;
    if (!strcmp(s, "chunked_attention")) return KVP_LAYER_TYPE_CHUNKED;
    if (!strcmp(s, "linear_attention") || !strcmp(s, "mamba") || !strcmp(s, "recurrent"))
        return KVP_LAYER_TYPE_LINEAR;
    return KVP_LAYER_TYPE_OTHER;
}

/* layer_types as the config object holds it: the list, else the schedule
 * Qwen3NextConfig / Qwen3_5TextConfig derive from full_attention_interval
 * (layer i is full attention when (i + 1) % interval == 0). */
static kvp_status layer_types(kvp__fx *c, kvp_model *model, kvp_model_facts *f) {
    json_t *lt = kvp__fx_lm(c, "layer_types");
    uint32_t n = 0, interval = 0;
    if (json_is_array(lt)) {
        n = json_array_size(lt) > KVP_MAX_LAYERS ? KVP_MAX_LAYERS : (uint32_t)json_array_size(lt);
    } else {
        json_t *fi = kvp__fx_get(c, c->lm, c->lm_ptr, "full_attention_interval");
        if (json_is_integer(fi) && json_integer_value(fi) > 0 &&
            json_integer_value(fi) <= KVP_MAX_LAYERS && c->info->num_layers > 0) {
            interval = (uint32_t)json_integer_value(fi);
            n = c->info->num_layers;
            f->layer_types_derived = true;
        }
    }
    if (c->st || n == 0) return c->st;
    uint8_t *t = kvp__calloc(kvp__model_alc(model), n, 1);
    if (!t) return kvp__fail(c->err, KVP_NOMEM, c->file, NULL, "out of memory");
    for (uint32_t i = 0; i < n; i++)
        t[i] = (uint8_t)(interval ? ((i + 1) % interval == 0 ? KVP_LAYER_TYPE_FULL
                                                             : KVP_LAYER_TYPE_LINEAR)
                                  : layer_type_of(json_string_value(json_array_get(lt, i))));
    model->layer_types = t;
    f->layer_types = t;
    f->layer_types_count = n;
    return KVP_OK;
}

/* Seed _draft_defines_attention_layout. */
static bool states_attention_layout(kvp__fx *c, const kvp_model_facts *f) {
    return kvp__fx_lm(c, "use_sliding_window") != NULL || kvp__fx_lm(c, "sliding_window") != NULL ||
           f->layer_types_count > 0;
}

/* Seed _get_num_experts: hasattr() stops at the first name present on the
 * language config, even a null one (-> 1); an integer is kept as it is. */
static uint64_t seed_num_experts(kvp__fx *c) {
    static const char *const names[] = {"num_experts", "num_local_experts", "moe_num_experts",
                                        "experts_per_router"};
    if (!c->root) return c->info->num_experts ? c->info->num_experts : 1;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!json_object_get(c->lm, names[i])) continue;
        json_t *v = kvp__fx_get(c, c->lm, c->lm_ptr, names[i]);
        /* the value as it is, 0 included */
        return json_is_integer(v) && json_integer_value(v) >= 0 ? (uint64_t)json_integer_value(v)
                                                                 : 1;
    }
    return 1;
}

/* A block_configs entry's sub-config is LoRA-capable unless no_op or replace_with_linear. */
static bool lora_capable(kvp__fx *c, json_t *bc, size_t i, const char *part) {
    json_t *sub = json_object_get(bc, part);
    if (!json_is_object(sub)) return true;
    char p[96];
    snprintf(p, sizeof p, "%s/block_configs/%zu/%s", c->lm_ptr, i, part);
    return !json_is_true(kvp__fx_get(c, sub, p, "no_op")) &&
           !json_is_true(kvp__fx_get(c, sub, p, "replace_with_linear"));
}

/* Nemotron-NAS block configs, for LoRA module slots. */
static void block_configs(kvp__fx *c, kvp_model_facts *f) {
    json_t *bcs = kvp__fx_lm(c, "block_configs");
    f->block_configs.state = c->root ? KVP_FACT_ABSENT : KVP_FACT_UNKNOWN;
    if (!json_is_array(bcs)) return;
    f->block_configs.state = KVP_FACT_STATED;
    f->block_configs.value = json_array_size(bcs);
    size_t i;
    json_t *bc;
    json_array_foreach(bcs, i, bc) {
        if (lora_capable(c, bc, i, "attention")) f->lora_attention_blocks++;
        if (lora_capable(c, bc, i, "ffn")) f->lora_ffn_blocks++;
    }
}

/* Gemma 4's per-layer attention keys. */
static void gemma4_attention(kvp__fx *c, kvp_model_facts *f) {
    f->head_dim = seed_int(c, NAMES("head_dim"));
    f->global_head_dim = seed_int(c, NAMES("global_head_dim"));
    f->num_key_value_heads = seed_int(c, NAMES("num_key_value_heads"));
    f->num_global_key_value_heads = seed_int(c, NAMES("num_global_key_value_heads"));
    f->attention_k_eq_v = json_is_true(kvp__fx_lm(c, "attention_k_eq_v"));
}

/* The DSA indexer's key width (engine policies add the indexer cache). */
static void indexer_width(kvp__fx *c, kvp_model_facts *f) {
    f->index_head_dim = seed_int(c, NAMES("index_head_dim"));
}

/* mamba_ssm_dtype as written (vLLM keeps the SSM state in it). */
static void mamba_ssm_dtype(kvp__fx *c, kvp_model_facts *f) {
    const char *s = json_string_value(kvp__fx_lm(c, "mamba_ssm_dtype"));
    if (s) kvp__strlcpy(f->mamba_ssm_dtype, s, sizeof f->mamba_ssm_dtype);
    /* vLLM ModelConfig.get_mamba_chunk_size: mamba_chunk_size, else chunk_size. */
    f->mamba_chunk_size = seed_int(c, NAMES("mamba_chunk_size", "chunk_size"));
}

/* ------------------------------------------------------------ sub-configs */

static void raw_value(json_t *obj, const char *key, kvp_config_value *out) {
    json_t *v = json_object_get(obj, key);
    memset(out, 0, sizeof *out);
    if (!v || json_is_null(v)) return;
    if (kvp__json_is_python_literal(v)) {
        out->kind = KVP_CONFIG_VALUE_NONFINITE;
    } else if (json_is_integer(v)) {
        out->kind = KVP_CONFIG_VALUE_INTEGER;
        out->integer = json_integer_value(v);
    } else if (json_is_real(v)) {
        out->kind = KVP_CONFIG_VALUE_REAL;
        out->real = json_real_value(v);
    } else if (json_is_string(v) && strlen(json_string_value(v)) < sizeof out->string) {
        out->kind = KVP_CONFIG_VALUE_STRING;
        kvp__strlcpy(out->string, json_string_value(v), sizeof out->string);
    } else {
        out->kind = KVP_CONFIG_VALUE_OTHER;
    }
}

#define MAX_SUBCONFIGS 64u
#define MAX_SUBCONFIG_DEPTH 4

static bool is_subconfig_name(const char *k) {
    size_t n = strlen(k);
    return n >= 7 && strcmp(k + n - 7, "_config") == 0;
}

/* Record obj (at pointer ptr) and, depth first, its *_config members. */
static void collect_subconfigs(json_t *obj, const char *ptr, int depth, kvp_subconfig_facts *out,
                               size_t *n) {
    if (*n >= MAX_SUBCONFIGS || strlen(ptr) >= sizeof out->pointer) return;
    kvp_subconfig_facts *s = &out[(*n)++];
    kvp__strlcpy(s->pointer, ptr, sizeof s->pointer);
    raw_value(obj, "num_hidden_layers", &s->num_hidden_layers);
    raw_value(obj, "num_key_value_heads", &s->num_key_value_heads);
    raw_value(obj, "head_dim", &s->head_dim);
    raw_value(obj, "hidden_size", &s->hidden_size);
    raw_value(obj, "num_attention_heads", &s->num_attention_heads);
    raw_value(obj, "torch_dtype", &s->torch_dtype);
    raw_value(obj, "dtype", &s->dtype);
    if (depth >= MAX_SUBCONFIG_DEPTH) return;
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v) {
        if (!json_is_object(v) || !is_subconfig_name(k) || strchr(k, '/') || strchr(k, '~'))
            continue;
        char child[160];
        snprintf(child, sizeof child, "%s/%s", ptr, k);
        collect_subconfigs(v, child, depth + 1, out, n);
    }
}

static kvp_status subconfigs(kvp__fx *c, kvp_model *model) {
    if (!c->root) return KVP_OK;
    kvp_subconfig_facts *s =
        kvp__calloc(kvp__model_alc(model), MAX_SUBCONFIGS, sizeof *s);
    if (!s) return kvp__fail(c->err, KVP_NOMEM, c->file, NULL, "out of memory");
    size_t n = 0;
    collect_subconfigs(c->root, "", 0, s, &n);
    model->subconfigs = s;
    model->facts.subconfigs = s;
    model->facts.subconfig_count = n;
    return KVP_OK;
}

const kvp_subconfig_facts *kvp_model_subconfig(const kvp_model *model, const char *pointer) {
    if (!model || !pointer) return NULL;
    for (size_t i = 0; i < model->facts.subconfig_count; i++)
        if (!strcmp(model->facts.subconfigs[i].pointer, pointer)) return &model->facts.subconfigs[i];
    return NULL;
}

kvp_status kvp__subconfig_from_json(const char *text, size_t len, const char *name,
                                   const char *pointer, kvp_subconfig_facts *out, bool *found,
                                   kvp_error *err) {
    *found = false;
    memset(out, 0, sizeof *out);
    json_t *root = NULL;
    /* No handle and no allocator argument: the scratch below is libc's. */
    kvp_status st = kvp__config_parse(text, len, name, NULL, &root, err);
    if (st) return st;
    kvp_subconfig_facts *all = json_is_object(root) ? kvp__calloc(NULL, MAX_SUBCONFIGS, sizeof *all)
                                                    : NULL;
    if (json_is_object(root) && !all) {
        json_decref(root);
        return kvp__fail(err, KVP_NOMEM, name, NULL, "out of memory");
    }
    size_t n = 0;
    if (all) collect_subconfigs(root, "", 0, all, &n);
    for (size_t i = 0; i < n && pointer; i++)
        if (!strcmp(all[i].pointer, pointer)) {
            *out = all[i];
            *found = true;
            break;
        }
    kvp__free(NULL, all);
    json_decref(root);
    return KVP_OK;
}

const kvp_model_facts *kvp_model_get_facts(const kvp_model *model) { return &model->facts; }

/* ------------------------------------------------------------ all facts */

kvp_status kvp__model_read_facts(kvp_model *model, json_t *root, json_t *lm,
                                 const char *lm_pointer, kvp_error *err) {
    kvp__fx c;
    memset(&c, 0, sizeof c);
    c.file = kvp_model_name(model);
    c.root = json_is_object(root) ? root : NULL;
    c.lm = c.root ? (json_is_object(lm) ? lm : c.root) : NULL;
    kvp__strlcpy(c.lm_ptr, c.root && lm_pointer ? lm_pointer : "", sizeof c.lm_ptr);
    c.info = kvp_model_get_info(model);
    c.err = err;
    kvp_model_facts *f = &model->facts;
    f->from_config = c.root != NULL;
    kvp_status st = kvp__facts_read_startup(&c, &model->startup);
    if (st) return st;
    encoder_geometry(&c, &f->encoder);
    st = layer_types(&c, model, f);
    if (st) return st;
    f->states_attention_layout = states_attention_layout(&c, f);
    f->seed_num_experts = seed_num_experts(&c);
    block_configs(&c, f);
    lora_modules(&c, &f->lora);
    gemma4_attention(&c, f);
    indexer_width(&c, f);
    mamba_ssm_dtype(&c, f);
    if (c.st) return c.st;
    kvp_layer_ffn *layers = NULL;
    if ((st = kvp__facts_read_weights(&c, model, &f->weights, &layers))) return st;
    model->ffn_layers = layers;
    if ((st = subconfigs(&c, model))) return st;
    kvp__model_count_load();
    return KVP_OK;
}
