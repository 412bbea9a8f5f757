/*
 * model_internal.h — how readers build a kvp_model (kvp__ tier: shared by the
 * readers in src/model/ and any other reader, e.g. GGUF, never public).
 */
#ifndef KVP_MODEL_INTERNAL_H
#define KVP_MODEL_INTERNAL_H

#include "kvplan/model.h"
#include "util.h"

/* Hard bounds on what a config may declare; far above any real model. */
#define KVP_MAX_LAYERS 100000u
#define KVP_MAX_HEADS 65536u
#define KVP_MAX_HEAD_DIM 65536u

struct kvp_model {
    kvp_allocator alc; /* copy of the allocator the model was built with */
    bool has_alc;
    char *name;
    kvp_model_info info;
    kvp_layer_cache *caches;
    size_t cache_count, cache_cap;
    kvp_model_startup startup; /* start-up facts (facts_startup.c); zeros when not from a config */
    kvp_model_facts facts;
    uint8_t *layer_types;             /* facts.layer_types, owned */
    kvp_layer_ffn *ffn_layers;        /* facts.weights.layers, owned */
    kvp_subconfig_facts *subconfigs;  /* facts.subconfigs, owned */
};

struct json_t;
/* Read model->facts from the parsed config `root` (NULL for a model without
 * one: GGUF, geometry JSON), once the info and cache records are filled.
 * `lm` / `lm_pointer`: the language model's object and its JSON pointer. */
kvp_status kvp__model_read_facts(kvp_model *model, struct json_t *root, struct json_t *lm,
                                 const char *lm_pointer, kvp_error *err);

/* Parse a config text the one way every model input is parsed: bounded size,
 * UTF-8, no NUL, Python NaN / Infinity literals rewritten (json_error.h),
 * duplicate keys refused. Counts one config parse. On success *out is a new
 * reference the caller json_decref()s. */
kvp_status kvp__config_parse(const char *text, size_t len, const char *name,
                             const kvp_allocator *alc, struct json_t **out, kvp_error *err);
/* The one refusal of a Python NaN / Infinity literal in a key kvplan reads
 * (`ptr`: the key's JSON pointer). Returns KVP_CONFIG. */
kvp_status kvp__config_literal_fail(kvp_error *err, const char *file, const char *ptr,
                                    const struct json_t *v);
/* A model from a parsed HF config (the body of kvp_model_from_hf_json). */
kvp_status kvp__model_from_hf_root(struct json_t *root, const char *name,
                                   const kvp_allocator *alc, kvp_model **out, kvp_error *err);
/* A model from a parsed geometry JSON (the body of kvp_model_from_geometry_json). */
kvp_status kvp__model_from_geometry_root(struct json_t *root, const char *name,
                                         const kvp_allocator *alc, kvp_model **out,
                                         kvp_error *err);

/* A model from a JSON text of unknown kind (json_input.c): a GGUF-style
 * geometry, a geometry in HF or engine words (always when forced_geometry), or
 * a config.json. *handled is false (and KVP_OK returned) when the text is not a
 * JSON object, so the caller's ordinary readers report it. */
kvp_status kvp__model_from_json_input(const char *text, size_t len, const char *name,
                                      bool forced_geometry, kvp_model **out, bool *handled,
                                      kvp_error *err);

/* Process-wide counts (tests: one config parse per model load). Thread-safe. */
uint64_t kvp__model_config_parse_count(void);
uint64_t kvp__model_load_count(void);
void kvp__model_count_load(void);

/* Resolver for names that are neither paths nor catalogue entries (the local
 * Hugging Face cache, hf_cache.c): the config path into path_out, KVP_NOT_FOUND
 * when the name is not there. Scratch through `alc` (NULL = libc). */
kvp_status kvp__model_resolve_extra(const char *name, const kvp_allocator *alc, char *path_out,
                                    size_t path_size, kvp_error *err);

/* New empty model named `name`; NULL on allocation failure. */
kvp_model *kvp__model_new(const kvp_allocator *alc, const char *name);
/* Append one layer cache record; KVP_NOMEM on failure. */
kvp_status kvp__model_add_cache(kvp_model *model, const kvp_layer_cache *cache, kvp_error *err);
/* Mutable info for readers. */
kvp_model_info *kvp__model_info(kvp_model *model);
/* The model's allocator (NULL = libc). */
const kvp_allocator *kvp__model_alc(const kvp_model *model);

/* Internal since 1.0.0 (issue 27 item 7: nobody outside the library called them;
 * they left the public headers). */
/* The cache record of a DeepSeek sparse-attention (DSA) lightning indexer at
 * `layer`: fp8 keys of index_head_dim bytes plus a 4-byte fp32 scale per 128
 * values (ENGINES.md §2.3), one per token, replicated on every TP rank. The
 * one rule the config, GGUF and engine-policy readers share. */
kvp_layer_cache kvp__indexer_cache(uint32_t layer, uint32_t index_head_dim);
/* Whether two cache records keep the same bytes per token and per sequence
 * under any settings: every field equal except `layer`. Lets a planner cost a
 * run of identical layers once. */
bool kvp__layer_cache_same_shape(const kvp_layer_cache *a, const kvp_layer_cache *b);
/* Whether two recurrent geometries are equal, field by field. */
bool kvp__recurrent_geometry_equal(const kvp_recurrent_geometry *a,
                                          const kvp_recurrent_geometry *b);
/* The sub-config facts at `pointer` of a config text that is not a model's
 * (parsed by the same rules as a model's config). *found is false when the
 * text has no such object. `name` (may be NULL) is used in messages. Errors:
 * KVP_SYNTAX (err line/column set), KVP_IO for an empty or oversized text. */
KVP_NODISCARD kvp_status kvp__subconfig_from_json(const char *text, size_t len,
                                                         const char *name, const char *pointer,
                                                         kvp_subconfig_facts *out, bool *found,
                                                         kvp_error *err);
/* kvp_safetensors_dir_bytes (kvplan/safetensors.h) with its buffers through
 * `alc` (borrowed; NULL = libc). The public functions allocate through libc; jansson's parse tree of a header is
 * built and freed inside the call (README.md "Allocators"). */
KVP_NODISCARD kvp_status kvp__safetensors_dir_bytes_with(const char *dir,
                                                        const kvp_allocator *alc,
                                                        uint64_t *out_bytes, char *source,
                                                        size_t source_size, kvp_error *err);

#endif
