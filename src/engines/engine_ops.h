/*
 * engine_ops.h — one record per engine (issue 27 item 1, kvp__ tier): what the
 * rooms used to find in parallel arrays and `switch (engine)` dispatches.
 * Each engine defines its record, kvp__engine_<name>, beside its rules; the
 * table kvp__engine_ops_of() reads is generated from kvplan/engines.def
 * (engines.c), so a new engine is its folder and one row of that list.
 */
#ifndef KVP_ENGINE_OPS_H
#define KVP_ENGINE_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "kvplan/policy.h"
#include "kvplan/startup.h"

struct kvp__startup_rule;
struct kvp__line_sink;

/* A release as the records and versions.c encode it: MAJOR*10000 + MINOR*100 + PATCH. */
#define KVP__REL(x, y, z) ((x) * 10000u + (y) * 100u + (z))

typedef kvp_status (*kvp__engine_plan_fn)(const kvp_model *model, const kvp_policy_settings *s,
                                          kvp_policy_result *out, kvp_error *err);

/* neutral: the types of the record's engine-neutral members (issue 27 item 1:
 * the pipeline, fit and report reach an engine only through the table). Only
 * public types of the rooms below and plain numbers: the engines room may not
 * include the pipeline's or the report's headers. */

/* What the memory estimate's profiling pass and runtime look like under the
 * engine (kvp_estimate_settings' engine terms), from the deployment. */
typedef struct kvp__engine_profile_in {
    const kvp_model *model;
    const kvp_policy_settings *policy;  /* the settings the engine plans with */
    const kvp_startup_settings *startup; /* the start-up settings (GPU, flags) */
    const char *engine_version;         /* --engine-version as given */
    uint64_t memory_total_bytes;        /* the device memory planned with (0 = none) */
    uint32_t cuda_graph_max_bs;         /* the memory's --cuda-graph-max-bs (0 = the engine's) */
    uint32_t memory_ep;                 /* the memory's EP size (0 = none) */
    bool memory_expert_parallel;        /* --enable-expert-parallel on the memory side */
    /* The creator's settings (kvp_deploy_settings) where the creator plans. */
    uint64_t creator_max_num_tokens, creator_max_batch_size, creator_max_seq_len;
    uint64_t creator_max_cuda_graph_batch_size;
    bool creator_attention_dp;          /* enable_attention_dp */
} kvp__engine_profile_in;

typedef struct kvp__engine_profile {
    uint64_t max_num_tokens, max_batch_size, max_seq_len;
    bool cuda_graphs;
    uint32_t cuda_graph_max_batch;
    uint32_t expert_ranks, ep;   /* kvp_estimate_settings */
    bool experts_span_tp;        /* R = the plan's TP (docs/memory.md) */
    uint32_t engine_version;     /* kvp_estimate_settings: the release line */
    bool engine_v0;
    int flash_attn;              /* llama.cpp */
    uint64_t n_ctx;
    bool free_is_held;           /* memory already held counts as outside the allocator */
    bool cuda_graph_apart;       /* graphs are their own term, not inside a measured non-torch */
    bool pooling_runner;         /* the profile runs the pooler, not the sampler */
    int flashinfer_sampler;      /* kvp_estimate_settings: vLLM's sampler switch as set */
    uint32_t attention_ranks;    /* kvp_estimate_settings: attn_tp (0 = tp) */
    bool embedding_whole;        /* kvp_estimate_settings */
} kvp__engine_profile;

typedef void (*kvp__engine_profile_fn)(const kvp__engine_profile_in *in, kvp__engine_profile *out);
/* The batch cap the engine picks for the GPU when none is given (0: none). */
typedef uint32_t (*kvp__engine_batch_cap_fn)(const kvp__engine_profile_in *in,
                                             uint64_t max_model_len);
/* What the engine leaves free after its pool (the headroom the pipeline checks
 * its unmeasured terms against); false where it states no such figure. */
typedef bool (*kvp__engine_headroom_fn)(const kvp_policy_settings *s, const kvp_policy_result *r,
                                        uint64_t total_bytes, uint64_t non_torch_bytes,
                                        uint64_t *left);

/* The capacity a policy's result gives (kvp_deploy_result's figures). */
typedef struct kvp__engine_capacity {
    /* in */
    uint64_t seq_len;               /* the length each request is planned at (>= 1) */
    uint32_t max_num_seqs;          /* the settings' batch cap (0 = none given) */
    bool have_mem;                  /* the memory terms below are the device's */
    uint64_t total_bytes, weights_bytes, activation_bytes, runtime_bytes, kv_bytes;
    /* in / out: the result's, preset by the caller */
    uint64_t budget_bytes;
    uint32_t block_tokens;
    char budget_formula[160];
    /* out */
    uint64_t tokens, blocks, max_sequences, batch_limit, longest_tokens;
    char binding[320];
} kvp__engine_capacity;

/* KVP_OK, or a verdict on the deployment (err: message and key). */
typedef kvp_status (*kvp__engine_capacity_fn)(const kvp_policy_result *r, kvp__engine_capacity *c,
                                              kvp_error *err);
/* The block pool whose steady state admission models (blocks, tokens per
 * block); false when the result has several groups or state pools. */
typedef bool (*kvp__engine_steady_pool_fn)(const kvp_policy_result *r, uint64_t *blocks,
                                           uint32_t *tokens_per_block);

/* One `engine_details` field of the plan's JSON: kvp_policy_result's member at
 * `offset` under `name`, written when the member at `when` (if any) is not 0. */
typedef enum { KVP__DETAIL_NONE, KVP__DETAIL_U32, KVP__DETAIL_U64, KVP__DETAIL_TEXT } kvp__detail_kind;
typedef struct kvp__engine_detail {
    const char *name;
    size_t offset;
    kvp__detail_kind kind;
    size_t when;
    kvp__detail_kind when_kind; /* KVP__DETAIL_NONE: always */
} kvp__engine_detail;
#define KVP__DETAIL_KIND_OF(member)                                                      \
    _Generic(((kvp_policy_result *)0)->member, uint32_t: KVP__DETAIL_U32,                \
             uint64_t: KVP__DETAIL_U64, char *: KVP__DETAIL_TEXT)
/* A field written always, or when the member `when` is not 0. */
#define KVP__DETAIL(name, member) \
    {name, offsetof(kvp_policy_result, member), KVP__DETAIL_KIND_OF(member), 0, KVP__DETAIL_NONE}
#define KVP__DETAIL_IF(name, member, when)                                        \
    {name, offsetof(kvp_policy_result, member), KVP__DETAIL_KIND_OF(member),       \
     offsetof(kvp_policy_result, when), KVP__DETAIL_KIND_OF(when)}

typedef struct kvp__engine_ops {
    const char *const *aliases;       /* other spellings kvp_engine_parse accepts; NULL-ended */
    const char *len_flag;             /* the engine's own flag for the context length */
    const char *help;                 /* `kvplan --policy help`: what the engine plans */
    /* Versions (versions.c): the forms --engine-version accepts, in words, and the
     * newest release (MAJOR*10000 + MINOR*100) whose code kvplan read. */
    const char *version_forms;
    uint32_t newest_release;
    /* The engine's policy (kvp_policy_run); TensorRT-LLM's refuses: the creator
     * plans it (kvp_deploy_plan). */
    kvp__engine_plan_fn plan;
    /* The start-up rules (startup_<name>.c). */
    const struct kvp__startup_rule *startup_rules;
    const size_t *startup_rule_count;
    /* kvp_policy_engine_report fields the engine prints (null when absent). */
    uint32_t report_fields;
    /* The KV dtypes `fit --solve dtype` tries by default, in the engine's
     * spellings; NULL-ended. */
    const char *const *fit_kv_dtypes;
    /* The sim scheduler replaying the engine (kvp_sim_policy_parse name); NULL when
     * kvplan replays none (llama.cpp's slots are fixed at start-up). */
    const char *sim_policy;
    /* neutral: what the pipeline (src/pipeline), fit and the reports read in
     * place of a switch on the engine (issue 27 item 1). Required of every
     * record (tests/unit/test_engine_table.c): profile, capacity or
     * creator_plans, admission_rule, batch_cap_name, details or creator_plans. */
    /* The seed's KV cache creator plans the engine (kvp_creator_*, src/plan/):
     * the creator's pipeline step, JSON document and capacity-scheduler
     * admission; else the record's policy (`plan`) and the hooks below. */
    bool creator_plans;
    /* The engine starts with the shorter length that fits when the one asked
     * does not (TensorRT-LLM adopts it, _create_kv_cache_manager), so there is
     * no largest-length fix to offer. */
    bool adopts_reduced_length;
    /* The KV cache is split at start-up into fixed slots, one per sequence
     * (llama.cpp --parallel: n_ctx = length x slots): the number of sequences
     * is a setting of the plan, the length read back is per slot, each request
     * reserves its slot. */
    bool fixed_slots;
    /* The most fixed slots the engine allows (llama.cpp LLAMA_MAX_SEQ, 256). */
    uint32_t max_slots;
    /* The engine allocates the cache its settings ask for: no budget, no page
     * rounding of one (llama.cpp, L-MEM-1). */
    bool allocates_as_asked;
    /* The KV dtype is set per K and V (llama.cpp --cache-type-k/-v). */
    bool kv_dtype_per_k_and_v;
    /* State is sized for max_batch_size sequences up front, so a fit for N
     * sequences deploys max_batch_size = N (TensorRT-LLM's recurrent state). */
    bool state_sized_for_batch;
    /* `fit --gpus N` solves the tensor-parallel size under the engine. */
    bool fit_solves_tp;
    /* The policy's pools are shares of one block pool the groups draw on
     * (vLLM, ENGINES.md 1.6): per-request blocks, groups and layer page. */
    bool pools_share_block_pool;
    /* The memory profile (NULL where none is estimated). */
    kvp__engine_profile_fn profile;
    /* The batch cap picked by the GPU when none is given (NULL: none). */
    kvp__engine_batch_cap_fn default_batch_cap;
    /* The headroom after the pool (NULL: none stated). */
    kvp__engine_headroom_fn headroom;
    /* The capacity of a policy's result (NULL where the creator plans). */
    kvp__engine_capacity_fn capacity;
    /* Admission: the rule with its source, the batch cap's name, and the pool
     * whose steady state is modelled (NULL: none). */
    const char *admission_rule;
    const char *batch_cap_name;
    kvp__engine_steady_pool_fn steady_pool;
    /* The plan JSON's `engine_details`, in order, ended by a NULL name (NULL
     * where the creator plans). */
    const kvp__engine_detail *details;
    /* clitext: the lines the engine itself prints at start-up for plan `r` (its
     * "Available KV cache memory: ...", "KV Cache is allocated. #tokens: ...",
     * llama_kv_cache: ...), one call of `out` per line, the figures of
     * r->report and r->pools; NULL when the engine's plan has none to print
     * (TensorRT-LLM: the creator's report, src/report/text_plan.c). The
     * text of `kvplan plan` (src/report/text_plan_policy.c) writes them. */
    void (*startup_lines)(const kvp_policy_result *r, const struct kvp__line_sink *out);
} kvp__engine_ops;

/* The record of `engine`; NULL for a value outside the list. The engine's name
 * is kvp_engine_name's, its title kvp__engine_title's: both from the list. */
const kvp__engine_ops *kvp__engine_ops_of(kvp_engine engine);
/* "TensorRT-LLM", "vLLM", "SGLang", "llama.cpp" (engines.def); "?" outside the list. */
const char *kvp__engine_title(kvp_engine engine);

/* Every engine's record, declared from the list. */
#define KVP_ENGINE_X(id, name, title) extern const kvp__engine_ops kvp__engine_##name;
#include "kvplan/engines.def"

#endif
