/*
 * policy_internal.h — shared by the engine policies in src/policy/ (kvp__ tier).
 *
 * Each policy reads the model through a normalised layer list: the model's own
 * cache records, plus what an engine sees that a reader may not have recorded
 * (the DSA indexer of DeepSeek-V3.2 / GLM-5 read from index_head_dim, drafter
 * layers appended after the last decoder layer).
 */
#ifndef KVP_POLICY_INTERNAL_H
#define KVP_POLICY_INTERNAL_H

#include <stdarg.h>

#include "kvplan/policy.h"
#include "util.h"

/* The largest memory figure a policy plans with (64 PiB). */
#define KVP__POLICY_MAX_MEMORY_BYTES (UINT64_C(1) << 56)

typedef struct kvp__policy_layers {
    kvp_layer_cache *items; /* heap (libc), freed by kvp__policy_layers_free */
    size_t count;
    uint32_t num_layers;    /* decoder layers of the model (drafter layers come after) */
} kvp__policy_layers;

/* Collect the model's records, synthesise indexer records when the config
 * states index_head_dim but the reader kept none, and append `draft_layers`
 * copies of the last full-attention (or MLA) record. */
kvp_status kvp__policy_layers_load(const kvp_model *model, uint32_t draft_layers,
                                   kvp__policy_layers *out, kvp_error *err);
void kvp__policy_layers_free(kvp__policy_layers *layers);

/* Append a note to the result (silently dropped past KVP_POLICY_MAX_NOTES). */
void kvp__policy_note(kvp_policy_result *out, const char *fmt, ...) KVP_PRINTF(2, 3);

/* First "X.Y[.Z]" in a version string ("0.9.1.dev705", ">=0.21 (...)", "v0.10.1").
 * Returns false when none. Encoded as X*10000 + Y*100 + Z. */
bool kvp__policy_version(const char *text, uint32_t *out);
/* llama.cpp build number: "b7217", "build: 7217", "build 6182"; 0 when none. */
uint32_t kvp__policy_build_number(const char *text);
/* Case-insensitive substring test. */
bool kvp__policy_contains(const char *text, const char *needle);

/* The dtype vLLM / SGLang run the model in under --dtype auto: the config's dtype,
 * bfloat16 when absent, and float32 checkpoints downcast to 16 bits. */
kvp_dtype kvp__policy_runtime_dtype(const kvp_model *model);
/* The model's KV dtype under "auto": the checkpoint's KV quantisation, else the runtime dtype. */
kvp_dtype kvp__policy_auto_dtype(const kvp_model *model);

/* Pipeline split of vLLM/SGLang (get_pp_indices): every stage gets L/P layers and the
 * remainder goes one each to the stages before the last, from the second-to-last back. */
void kvp__policy_pp_range(uint32_t num_layers, uint32_t pp, uint32_t stage, uint32_t *begin,
                          uint32_t *end);

kvp_status kvp__policy_vllm(const kvp_model *model, const kvp_policy_settings *s,
                            kvp_policy_result *out, kvp_error *err);
kvp_status kvp__policy_sglang(const kvp_model *model, const kvp_policy_settings *s,
                              kvp_policy_result *out, kvp_error *err);
kvp_status kvp__policy_llamacpp(const kvp_model *model, const kvp_policy_settings *s,
                                kvp_policy_result *out, kvp_error *err);

#endif
