/*
 * policy_internal.h — shared by the engine policies in src/engines/ (kvp__ tier).
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
#include "engine_ops.h"
#include "util.h"

/* The largest memory figure a policy plans with (64 PiB). */
#define KVP__POLICY_MAX_MEMORY_BYTES (UINT64_C(1) << 56)

typedef struct kvp__policy_layers {
    kvp_layer_cache *items; /* heap (alc), freed by kvp__policy_layers_free */
    const kvp_allocator *alc; /* the settings' allocator (borrowed; NULL = libc) */
    size_t count;
    uint32_t num_layers;    /* decoder layers of the model (drafter layers come after) */
} kvp__policy_layers;

/* Collect the model's records, synthesise indexer records when the config
 * states index_head_dim but the reader kept none, and append `draft_layers`
 * copies of the last full-attention (or MLA) record. */
kvp_status kvp__policy_layers_load(const kvp_model *model, uint32_t draft_layers,
                                   const kvp_allocator *alc, kvp__policy_layers *out,
                                   kvp_error *err);
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
/* A --kv-cache-dtype of "auto" (or none): *dtype the auto dtype and name[] its
 * name; true. Else name[] the text as given (cut to n - 1 bytes) and false: the
 * engine's own parser reads it. Shared by vLLM's and SGLang's dtype readers. */
bool kvp__policy_kv_dtype_auto(const kvp_model *model, const char *text, kvp_dtype *dtype,
                               char *name, size_t n);

/* Pipeline split of vLLM/SGLang (get_pp_indices): every stage gets L/P layers and the
 * remainder goes one each to the stages before the last, from the second-to-last back. */
void kvp__policy_pp_range(uint32_t num_layers, uint32_t pp, uint32_t stage, uint32_t *begin,
                          uint32_t *end);

kvp_status kvp__policy_vllm(const kvp_model *model, const kvp_policy_settings *s,
                            kvp_policy_result *out, kvp_error *err);
/* vLLM's "To serve at least one request ..." note (vllm.c): records `longest`
 * and returns the length planned next (`longest` under auto-fit, else `len`). */
uint64_t kvp__policy_vllm_too_long(const kvp_policy_settings *s, uint64_t len, uint64_t needed,
                                   uint64_t avail, uint64_t longest, kvp_policy_result *out);
/* DeepSeek-V4 under vLLM (vllm_v4.c): `avail` is the engine's available KV
 * memory, `len` max_model_len, `mnbt` max_num_batched_tokens. */
kvp_status kvp__policy_vllm_v4(const kvp_model *model, const kvp_policy_settings *s,
                               uint64_t avail, uint64_t len, uint64_t mnbt,
                               kvp_policy_result *out, kvp_error *err);
/* Whether the model keeps a cache of one entry per r > 1 tokens (DeepSeek-V4). */
bool kvp__policy_non_affine(const kvp_model *model);

/* DeepSeek-V4's token caches grouped by kind and ratio (v4_layout.c). */
#define KVP__V4_MAX_GROUPS 8
typedef struct kvp__v4_group {
    kvp_cache_kind kind;  /* SLIDING (every layer), COMPRESSED, INDEXER */
    uint32_t ratio;       /* tokens per entry: 1 for the window, r for compressed / indexer */
    uint64_t window;      /* SLIDING: tokens kept (sliding_window) */
    uint32_t layers;
    uint64_t entry_bytes; /* one entry of one layer: 584 (packed fp8) or 132 (indexer) */
} kvp__v4_group;
typedef struct kvp__v4_layout {
    kvp__v4_group groups[KVP__V4_MAX_GROUPS];
    uint32_t count;
    uint32_t state_layers;
    uint64_t state_bytes; /* fp32 compressor state of one sequence, every layer */
} kvp__v4_layout;
/* Read the layout from the model's records; KVP_UNSUPPORTED naming head_dim or
 * qk_rope_head_dim for a geometry the 584-byte entry is not stated for. */
kvp_status kvp__v4_layout_read(const kvp_model *model, kvp__v4_layout *out, kvp_error *err);
/* Entries one sequence of `len` tokens keeps in a group. */
uint64_t kvp__v4_entries(const kvp__v4_group *g, uint64_t len);
const char *kvp__v4_group_name(const kvp__v4_group *g);

kvp_status kvp__policy_sglang(const kvp_model *model, const kvp_policy_settings *s,
                              kvp_policy_result *out, kvp_error *err);
kvp_status kvp__policy_llamacpp(const kvp_model *model, const kvp_policy_settings *s,
                                kvp_policy_result *out, kvp_error *err);

/* neutral: the hooks and data each engine's record points at (deploy_<name>.c,
 * src/engines/engine_ops.h). Declared here so the records beside the rules can
 * name them. */
/* llama.cpp's most sequences (slots) of one context: LLAMA_MAX_SEQ (src/llama-cparams.h). */
#define KVP__LLAMA_MAX_SEQ 256u
void kvp__trtllm_profile(const kvp__engine_profile_in *in, kvp__engine_profile *k);
void kvp__vllm_profile(const kvp__engine_profile_in *in, kvp__engine_profile *k);
uint32_t kvp__vllm_default_batch_cap(const kvp__engine_profile_in *in,
                                     uint64_t max_model_len);
bool kvp__vllm_headroom(const kvp_policy_settings *s, const kvp_policy_result *r, uint64_t total,
                        uint64_t non_torch, uint64_t *left);
kvp_status kvp__vllm_capacity(const kvp_policy_result *r, kvp__engine_capacity *c,
                              kvp_error *err);
bool kvp__vllm_steady_pool(const kvp_policy_result *r, uint64_t *blocks, uint32_t *tpb);
extern const kvp__engine_detail kvp__vllm_details[];
/* SGLang's release as the memory defaults follow it (docs/memory.md): the
 * policy's encoding of the version in `engine_version`, 0 = latest. */
uint32_t kvp__sglang_release(const char *engine_version);
/* SGLang's GPU-memory tier (server_args.py _handle_gpu_memory_settings,
 * ENGINES.md 2.2): the default chunked_prefill_size and cuda_graph_max_bs for a
 * device of `gpu_bytes` at `tp` and release `version` (0 = latest): before
 * 0.5.4 one threshold at 25,000 MB (2048 / 8 below, 8192 / 160 above; MEMORY.md 7.8). */
void kvp__sglang_memory_tier(uint64_t gpu_bytes, uint32_t tp, uint32_t version,
                             uint32_t *chunked_prefill_size, uint32_t *cuda_graph_max_bs);
void kvp__sglang_profile(const kvp__engine_profile_in *in, kvp__engine_profile *k);
bool kvp__sglang_headroom(const kvp_policy_settings *s, const kvp_policy_result *r, uint64_t total,
                          uint64_t non_torch, uint64_t *left);
kvp_status kvp__sglang_capacity(const kvp_policy_result *r, kvp__engine_capacity *c,
                                kvp_error *err);
bool kvp__sglang_steady_pool(const kvp_policy_result *r, uint64_t *blocks, uint32_t *tpb);
extern const kvp__engine_detail kvp__sglang_details[];
void kvp__llamacpp_profile(const kvp__engine_profile_in *in, kvp__engine_profile *k);
kvp_status kvp__llamacpp_capacity(const kvp_policy_result *r, kvp__engine_capacity *c,
                                  kvp_error *err);
extern const kvp__engine_detail kvp__llamacpp_details[];

#endif
