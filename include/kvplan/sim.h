/*
 * kvplan/sim.h — replay a workload through continuous batching over a
 * kvp_pool, to answer "how many of *my* requests does this plan serve at once".
 *
 * A plan reports concurrency as if every request used max_model_len; the
 * simulator runs the pool an engine would build (kvplan/pool.h) under the
 * scheduling an engine does (vLLM v1's scheduler is the model):
 *   - each step has a token budget (max_num_tokens) and a sequence cap
 *     (max_batch_size); running requests are served first, in admission
 *     order, then waiting ones are admitted first come first served while
 *     the budget, the cap and the pool allow;
 *   - a request's prompt is computed in chunks that fit the budget (chunked
 *     prefill; with it off a prompt is scheduled whole or not at all), then
 *     one token per decode step;
 *   - when a running request cannot get a block, the newest running request
 *     is preempted by recomputation (its blocks are released — kept as
 *     cached-free with prefix reuse — and it goes back to the front of the
 *     queue to recompute its prompt and the output so far); no request is
 *     admitted in a step that preempted;
 *   - with prefix reuse an admitted request first matches cached blocks
 *     (shared system prompts, its own blocks after a preemption).
 * A request of P prompt and O output tokens holds P + O - 1 tokens at most
 * (the last sampled token is never written). Prompts longer than
 * max_model_len are rejected as the engine would and counted; outputs are
 * cut at max_model_len. A request that can never fit (more blocks than the
 * pool has, or a prompt past the token budget without chunked prefill) is
 * counted and dropped, never looped on.
 *
 * Time is counted in steps (one forward pass each). Arrivals in seconds are
 * turned into steps with a fixed step time. Idle gaps are skipped.
 *
 * Thread safety: a workload is read-only once built; a simulation run owns
 * everything it creates. No global state.
 */
#ifndef KVPLAN_SIM_H
#define KVPLAN_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kvplan/error.h"
#include "kvplan/model.h"
#include "kvplan/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ workload */

/* One request. Token positions [0, explicit_tokens) have known ids (a shared
 * prefix, or a prompt given as ids); the rest are unique to the request. A shared
 * prefix is a range: its ids are a function of (prefix_index, position), made when
 * the simulation needs them (kvp_workload_token), never stored. */
typedef struct kvp_request {
    uint64_t arrival_step;
    uint32_t prompt_tokens;
    uint32_t output_tokens;
    uint32_t prefix_index;    /* 1-based index of a shared prefix, 0 = none */
    uint32_t explicit_tokens; /* ids known for the first explicit_tokens positions */
    uint64_t token_offset;    /* prompt_tokens: where its ids start in the workload's store */
    uint32_t line;            /* workload line (0 for synthetic requests) */
} kvp_request;

/* Limits on what a workload may declare (bounded before allocating). */
#define KVP_WORKLOAD_MAX_TOKENS 16777216u    /* per prompt or output */
/* A file's requests are held (kvp_request, 40 bytes each, sorted by arrival):
 * 10 million are 400 MB, under the 1 GiB a simulation may use. Past it: KVP_CONFIG
 * naming "requests". */
#define KVP_WORKLOAD_MAX_REQUESTS 10000000u
/* A synthetic workload holds none: the simulation draws each request when it
 * arrives and keeps only the running and preempted ones, so memory does not grow
 * with the count (requests=1e8 needed 5.2 GB when they were drawn up front). The
 * bound is time: about 1.5 million short requests a second on one core (1e8: about
 * 70 s). Past it:
 * KVP_INVALID_ARG naming "requests". */
#define KVP_SYNTHETIC_MAX_REQUESTS UINT64_C(100000000)
#define KVP_WORKLOAD_MAX_FILE_BYTES ((size_t)1 << 31)
/* Token ids a workload stores (prompt_tokens, 4 bytes each; shared prefixes are
 * ranges and store none): 2^27 ids are 512 MiB, half the 1 GiB a simulation may use. */
#define KVP_WORKLOAD_MAX_TOKEN_IDS (UINT64_C(1) << 27)
/* Longest line of a JSON-lines file: a prompt of KVP_WORKLOAD_MAX_TOKENS ids of up
 * to 10 digits and a comma is 176 MiB; the file is read line by line, so memory
 * follows this, not the file size. */
#define KVP_WORKLOAD_MAX_LINE_BYTES ((size_t)256 * 1024 * 1024)

typedef enum kvp_arrival_unit {
    KVP_ARRIVAL_STEPS = 0, /* "arrival" counts scheduler steps */
    KVP_ARRIVAL_SECONDS,   /* "arrival" is seconds; step_seconds converts */
} kvp_arrival_unit;

typedef struct kvp_workload_options {
    kvp_arrival_unit arrival_unit;
    double step_seconds;   /* seconds per step for KVP_ARRIVAL_SECONDS; 0 -> 0.02 */
} kvp_workload_options;

typedef struct kvp_workload kvp_workload;

/* Read a JSON-lines workload: one object per line, blank lines skipped:
 *   {"arrival": 0, "prompt_len": 1000, "output_len": 200,
 *    "prefix_id": "system-a", "prefix_len": 512}
 * "prompt_tokens": [ids...] may replace "prompt_len" (prefix sharing then
 * follows from the ids). "arrival" (default 0) is in steps or seconds per
 * the options; requests are replayed in arrival order (stable). A prefix_id
 * (string or integer) names a shared prompt head of prefix_len tokens.
 * Errors (KVP_SYNTAX / KVP_CONFIG, err->line set, err->key the JSON key):
 * bad JSON, missing or negative or non-integer lengths, output_len 0,
 * prefix_len longer than the prompt, one prefix_id with two lengths.
 * Unknown keys are not errors: each distinct one is recorded once as a
 * warning (kvp_workload_warning()). */
KVP_API KVP_NODISCARD kvp_status kvp_workload_read(const char *path, const kvp_workload_options *options,
                                           const kvp_allocator *alc, kvp_workload **out,
                                           kvp_error *err);
/* Same from text in memory; `name` is used in messages. */
KVP_API KVP_NODISCARD kvp_status kvp_workload_parse(const char *text, size_t len, const char *name,
                                            const kvp_workload_options *options,
                                            const kvp_allocator *alc, kvp_workload **out,
                                            kvp_error *err);

/* Length distributions of a synthetic workload. */
typedef enum kvp_dist_kind { KVP_DIST_FIXED = 0, KVP_DIST_UNIFORM, KVP_DIST_LOGNORMAL } kvp_dist_kind;
typedef struct kvp_dist {
    kvp_dist_kind kind;
    double a; /* fixed: N; uniform: low; lognormal: mean */
    double b; /* uniform: high (inclusive); lognormal: sigma of the underlying normal */
} kvp_dist;

typedef struct kvp_synthetic_spec {
    uint64_t requests;            /* default 1000 */
    kvp_dist prompt, output;      /* required */
    uint32_t shared_prefix_tokens; /* 0 = no sharing */
    double shared_fraction;       /* of requests that start with a shared prefix */
    uint32_t prefixes;            /* distinct shared prefixes, used round robin; default 1 */
    double rate;                  /* mean arrivals per step (Poisson); 0 = all at step 0 */
    uint64_t seed;                /* default 0 */
} kvp_synthetic_spec;

/* Parse "requests=100000,prompt=lognormal:1000:0.8,output=lognormal:200:0.5,
 * shared_prefix=512:0.3,seed=7" (also prefixes=K, rate=R). Distributions:
 * fixed:N, uniform:A:B, lognormal:MEAN:SIGMA. Errors: KVP_INVALID_ARG with
 * err->key the offending key. */
KVP_API KVP_NODISCARD kvp_status kvp_synthetic_parse(const char *text, kvp_synthetic_spec *out,
                                             kvp_error *err);

/* Generate a workload (deterministic for a seed: xoshiro256** seeded by
 * splitmix64). Lengths are rounded to integers >= 1 and capped at
 * KVP_WORKLOAD_MAX_TOKENS; a sharing request's prompt is raised to
 * prefix + 1 tokens when drawn shorter. */
KVP_API KVP_NODISCARD kvp_status kvp_workload_synthetic(const kvp_synthetic_spec *spec,
                                                const kvp_allocator *alc, kvp_workload **out,
                                                kvp_error *err);

KVP_API void kvp_workload_free(kvp_workload *workload);
KVP_API size_t kvp_workload_count(const kvp_workload *workload);
/* Request i in arrival order into *out; false past the end. A synthetic workload
 * draws its requests in order, so this costs O(i) there (for inspection; the
 * simulator reads each request once, as it arrives). */
KVP_API bool kvp_workload_get(const kvp_workload *workload, size_t index, kvp_request *out);
/* Reads a workload's requests in arrival order, once each: a file's from its
 * array, a synthetic one's drawn as read. The reader's own state (fields private),
 * so a workload stays read-only and two readers may read it at once. */
typedef struct kvp_workload_cursor {
    const kvp_workload *w;
    uint64_t next;     /* requests read so far */
    uint64_t rng[4];   /* synthetic: the generator after `next` draws */
    double t;          /* synthetic: arrival of the last request, in steps */
    uint64_t shared;   /* synthetic: requests given a shared prefix so far */
} kvp_workload_cursor;
KVP_API void kvp_workload_cursor_init(kvp_workload_cursor *cursor, const kvp_workload *workload);
/* The next request into *out; false past the last. */
KVP_API bool kvp_workload_next(kvp_workload_cursor *cursor, kvp_request *out);
/* The id at explicit position `position` (< explicit_tokens) of a request; 0 past it. */
KVP_API uint32_t kvp_workload_token(const kvp_workload *workload, const kvp_request *request,
                                    uint32_t position);
/* Warnings gathered while reading (unknown keys, once each). */
KVP_API size_t kvp_workload_warning_count(const kvp_workload *workload);
KVP_API const char *kvp_workload_warning(const kvp_workload *workload, size_t index);

/* ------------------------------------------------------------------ simulation */

#define KVP_SIM_MAX_SAMPLES 64

/* Called every few thousand steps with requests done (finished or
 * rejected) and the total; for a progress bar. */
typedef void (*kvp_sim_progress_fn)(void *ctx, uint64_t done, uint64_t total);

/* Each engine's admission and preemption (docs/admission.md). */
typedef enum kvp_sim_policy {
    KVP_SIM_VLLM = 0,    /* vLLM v1: nothing reserved; the newest running request is
                            preempted by recomputation when a block is short; no admission
                            in a step that preempted */
    KVP_SIM_TRTLLM,      /* TensorRT-LLM GUARANTEED_NO_EVICT: a request is admitted only if
                            the blocks of prompt + max_new_tokens fit beside what the running
                            requests reserved; first come first served, stops at the first
                            misfit; never preempts */
    KVP_SIM_TRTLLM_MAX_UTILIZATION, /* TensorRT-LLM MAX_UTILIZATION: only the next step
                            must fit; the newest request is paused (its blocks freed, it
                            recomputes) when it does not */
    KVP_SIM_SGLANG,      /* SGLang: admitted while free tokens cover the prompt plus
                            min(max_new_tokens, 4096) and the running requests' decoding
                            reserve (new_token_ratio x remaining output); retraction of the
                            request with the fewest output tokens when decoding runs out */
} kvp_sim_policy;

/* "vllm", "trtllm", "trtllm-max-utilization", "sglang". */
KVP_API const char *kvp_sim_policy_name(kvp_sim_policy policy);
/* The names kvp_sim_policy_name gives, case-insensitive. KVP_INVALID_ARG naming
 * "policy" for anything else (the CLI maps engine spellings and TensorRT-LLM's
 * capacity_scheduler_policy onto these). */
KVP_API KVP_NODISCARD kvp_status kvp_sim_policy_parse(const char *name, kvp_sim_policy *out,
                                                      kvp_error *err);

typedef struct kvp_sim_config {
    kvp_pool_config pool;    /* the planned pool; pool.prefix_reuse switches reuse */
    uint32_t max_batch_size; /* running requests at most; 0 -> 256 */
    uint32_t max_num_tokens; /* tokens per step; 0 -> 8192 */
    uint64_t max_model_len;  /* 0 -> pool.max_seq_tokens */
    bool no_chunked_prefill; /* schedule prompts whole */
    kvp_sim_policy policy;   /* admission and preemption; default vLLM's */
    uint64_t max_new_tokens; /* each request's max_new_tokens (outputs are cut there);
                                0 = max_model_len - prompt (the OpenAI servers' default) */
    kvp_sim_progress_fn progress_fn;
    void *progress_ctx;
    uint64_t reserved_[KVP_RESERVED_WORDS]; /* room for growth: zero, do not use (ABI) */
} kvp_sim_config;

typedef struct kvp_sim_result {
    uint64_t requests;           /* in the workload */
    uint64_t finished;
    uint64_t rejected_too_long;  /* prompt > max_model_len */
    uint64_t rejected_never_fit; /* could not fit an empty pool / batch */
    uint64_t steps;              /* scheduler steps run (idle gaps skipped) */
    uint32_t peak_running;
    double mean_running;         /* running requests averaged over steps */
    uint64_t promised_max_sequences; /* sequences of max_model_len the pool holds */
    uint64_t preemptions;        /* vLLM preemptions, TRT-LLM pauses, SGLang retractions */
    /* Steps with requests waiting, by what kept them out: the batch cap (max_batch_size
     * running), the token budget (max_num_tokens spent), else the KV cache. */
    uint64_t waiting_steps, cap_bound_steps, budget_bound_steps, kv_bound_steps;
    uint64_t prefix_hit_tokens, prefix_query_tokens;
    double prefix_hit_rate;      /* hit / query prompt tokens; 0 without queries */
    uint64_t peak_blocks_used;   /* busiest block pool's peak */
    uint64_t total_blocks;       /* that pool's blocks */
    uint64_t prompt_tokens, output_tokens; /* of finished requests */
    uint64_t computed_tokens;    /* written to the pool, recomputation included */
    double elapsed_seconds;
    double steps_per_second;
    uint32_t samples;            /* block utilization over time, */
    uint64_t sample_stride_steps; /* one sample every stride steps */
    double utilization[KVP_SIM_MAX_SAMPLES]; /* used / total of the busiest pool */
    uint32_t running[KVP_SIM_MAX_SAMPLES];   /* running requests at the same steps */
    uint64_t reserved_[KVP_RESERVED_WORDS]; /* room for growth: zero, do not use (ABI) */
} kvp_sim_result;

/* Run the workload. Builds the pool from config->pool (max_sequences is
 * set to max_batch_size, max_seq_tokens to max_model_len). Errors: those of
 * kvp_pool_new(), KVP_INVALID_ARG for bad settings. */
KVP_API KVP_NODISCARD kvp_status kvp_sim_run(const kvp_sim_config *config, const kvp_workload *workload,
                                     const kvp_allocator *alc, kvp_sim_result *out,
                                     kvp_error *err);

#ifdef __cplusplus
}
#endif
#endif
