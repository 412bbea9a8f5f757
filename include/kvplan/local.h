/*
 * kvplan/local.h — model-local KV caches: declared, collected, summed, reported.
 *
 * Some models (audio and omni models above all) keep attention KV in their own
 * Hugging Face `transformers` cache objects instead of the engine's paged KV
 * manager (seed: model-local-kv-caches.md). Each such model *declares* what it
 * holds, one entry per distinct allocation:
 *
 *   bytes_per_row = 2 * layers * kv_heads * head_dim * positions * element_bytes
 *   total_bytes   = bytes_per_row * rows
 *
 * where `positions` comes from the cache's own bound (a sliding window - 1, a
 * decode-loop trip count, an encoder frame limit, a constant; never
 * max_model_len) and `rows` from the row driver: FIXED (a count the model
 * controls, with a required reason) or MAX_NUM_SEQS (one row per in-flight
 * sequence; only the engine knows the value).
 *
 * What profiling already charged decides what a planner does with the sum.
 * Graph-resident caches are allocated during load_model, before the engine
 * samples memory, so a *measured* peak already holds them; per-request caches
 * are allocated after profiling and no per-stage number predicts them. Hence:
 * REPORT, NEVER SUBTRACT when memory was measured (kvp_local_budget_effect).
 *
 * Declarations are data (data/local/<model>.json, embedded; or any file with
 * the same schema, see docs/local.md). A file describes the model's module
 * tree: modules that implement the declarer, submodules (walked like
 * named_modules()), owners that are not submodules (reached by one explicit
 * hop), and an optional CUDA-graph wrapper around the root (unwrapped first so
 * a root-level declarer is not counted twice).
 *
 * Ownership: every handle is created by a _new/_load function and freed with
 * its _free (NULL is a no-op). Strings returned by accessors are owned by the
 * handle they came from and live as long as it does.
 * Thread safety: loaded declarations and reports are read-only; any number of
 * threads may read one at once. No global mutable state.
 */
#ifndef KVPLAN_LOCAL_H
#define KVPLAN_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kvplan/error.h"
#include "kvplan/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bounds on what a declaration file may hold (far above any real model). */
#define KVP_LOCAL_MAX_MODULES 4096u  /* module nodes in one tree, hops included */
#define KVP_LOCAL_MAX_DEPTH 64u      /* nesting of the module tree */
#define KVP_LOCAL_MAX_ENTRIES 1024u  /* declarations in one file */
#define KVP_LOCAL_MAX_TEXT 4096u     /* bytes of one free-text field */

/* How wide an allocation is (seed "Lifetime is not multiplicity"). */
typedef enum kvp_local_row_driver {
    KVP_LOCAL_ROWS_FIXED = 0,    /* rows_fixed, a count the model controls; rows_reason required */
    KVP_LOCAL_ROWS_MAX_NUM_SEQS, /* one row per in-flight sequence */
    KVP_LOCAL_ROW_DRIVER_COUNT
} kvp_local_row_driver;

/* When memory appears and goes. Diagnostic only: it never decides the width.
 * It does decide whether profiling saw the memory: only GRAPH_RESIDENT caches
 * exist when the engine samples its peak. */
typedef enum kvp_local_scope {
    KVP_LOCAL_SCOPE_INVOCATION = 0, /* lives for one forward call */
    KVP_LOCAL_SCOPE_REQUEST,        /* lives for one request */
    KVP_LOCAL_SCOPE_SESSION,        /* lives for one streaming session */
    KVP_LOCAL_SCOPE_GRAPH_RESIDENT, /* allocated at load / graph capture, lives with the model */
    KVP_LOCAL_SCOPE_COUNT
} kvp_local_scope;

/* The transformers cache object (or captured pool) that holds the KV. */
typedef enum kvp_local_cache_kind {
    KVP_LOCAL_KIND_SLIDING_DYNAMIC_CACHE = 0, /* DynamicCache with a sliding window */
    KVP_LOCAL_KIND_DYNAMIC_CACHE,
    KVP_LOCAL_KIND_ENCODER_DECODER_CACHE,
    KVP_LOCAL_KIND_STATIC_CACHE,
    KVP_LOCAL_KIND_CAPTURED_GRAPH_POOL,       /* KV retained by CUDA-graph captures */
    KVP_LOCAL_KIND_COUNT
} kvp_local_cache_kind;

/* The mechanism that bounds a cache's positions. max_model_len is not one. */
typedef enum kvp_local_bound {
    KVP_LOCAL_BOUND_SLIDING_WINDOW_MINUS_ONE = 0, /* positions = sliding_window - 1 */
    KVP_LOCAL_BOUND_DECODE_LOOP_TRIP_COUNT,       /* positions = group_size + max_delay */
    KVP_LOCAL_BOUND_ENCODER_FRAME_LIMIT,          /* positions = embed_positions rows */
    KVP_LOCAL_BOUND_CONSTANT,                     /* positions = max_cache_len */
    KVP_LOCAL_BOUND_COUNT
} kvp_local_bound;

/* Spellings used in the JSON schema and in reports ("FIXED", "request",
 * "static_cache", "constant"); never NULL ("?" out of range). */
KVP_API const char *kvp_local_row_driver_name(kvp_local_row_driver driver);
KVP_API const char *kvp_local_scope_name(kvp_local_scope scope);
KVP_API const char *kvp_local_cache_kind_name(kvp_local_cache_kind kind);
KVP_API const char *kvp_local_bound_name(kvp_local_bound bound);

/* The deployment settings a declaration may depend on. Zero-initialise and
 * set what you need. */
typedef struct kvp_local_deployment {
    uint64_t max_num_seqs; /* in-flight sequences; must be >= 1 */
    bool async_chunk;      /* Qwen3-TTS async-chunk decoding (stateless otherwise) */
    bool streaming;        /* streaming sessions (MiniCPM-o's encoder cache) */
    bool enforce_eager;    /* no CUDA-graph capture where the model honours it */
} kvp_local_deployment;

/* bytes_per_row = 2 * layers * kv_heads * head_dim * positions * element_bytes.
 * Every factor must be >= 1. KVP_OVERFLOW when the product does not fit in
 * 64 bits, KVP_INVALID_ARG for a zero factor. Pure function. */
KVP_API KVP_NODISCARD kvp_status kvp_local_bytes_per_row(uint64_t layers, uint64_t kv_heads,
                                                 uint64_t head_dim, uint64_t positions,
                                                 uint64_t element_bytes, uint64_t *out_bytes,
                                                 kvp_error *err);

/* ------------------------------------------------------------ declarations */

/* The declarations of one model: its module tree and every entry in it,
 * validated. Geometry read from a Hugging Face config is resolved when the
 * declarer runs (kvp_local_collect), as at runtime. */
typedef struct kvp_local_decls kvp_local_decls;

/* Parse a declaration file from memory; `source_name` names it in errors.
 * Errors (the message names the declaration and the field; key is the JSON
 * pointer): KVP_SYNTAX (bad JSON, with line/column), KVP_CONFIG (FIXED
 * without rows_reason, zero/negative bound, unknown driver, scope, kind,
 * mechanism or key, wrong types, limits above), KVP_NOMEM. `alc` may be NULL.
 * On failure *out is NULL. */
KVP_API KVP_NODISCARD kvp_status kvp_local_decls_from_json(const char *text, size_t len,
                                                   const char *source_name,
                                                   const kvp_allocator *alc,
                                                   kvp_local_decls **out, kvp_error *err);
/* Same from a file (KVP_IO when unreadable). */
KVP_API KVP_NODISCARD kvp_status kvp_local_decls_load_file(const char *path, const kvp_allocator *alc,
                                                   kvp_local_decls **out, kvp_error *err);
/* The embedded declarations of a model by name or alias ("qwen3-tts",
 * "Qwen3-TTS"), case-insensitively. KVP_NOT_FOUND (listing the declared
 * models) when the model declares no local caches. */
KVP_API KVP_NODISCARD kvp_status kvp_local_decls_load_named(const char *model_name,
                                                    const kvp_allocator *alc,
                                                    kvp_local_decls **out, kvp_error *err);
KVP_API void kvp_local_decls_free(kvp_local_decls *decls);
/* The "model" name of the file; owned by decls. */
KVP_API const char *kvp_local_decls_model(const kvp_local_decls *decls);

/* Embedded declaration files: how many, and the model name of file i (the
 * file stem, "qwen3-tts") written into buf; returns buf, or NULL when index is
 * out of range or buf too small. */
KVP_API size_t kvp_local_model_count(void);
KVP_API const char *kvp_local_model_name(size_t index, char *buf, size_t size);

/* ------------------------------------------------------------ the report */

/* One active declaration, resolved for a deployment. */
typedef struct kvp_local_entry {
    const char *name;            /* declaration name, unique in the model */
    const char *owner;           /* module path ("" = root); a hop is "holder.attr" */
    bool via_hop;                /* owner reached by one explicit hop, not named_modules() */
    kvp_local_cache_kind kind;
    kvp_local_bound bound;
    uint64_t positions;          /* resolved bound */
    const char *bound_formula;   /* "sliding_window - 1 = 72 - 1 = 71" */
    uint64_t layers, kv_heads, head_dim, element_bytes;
    kvp_dtype dtype;             /* AUTO when element_bytes was given directly */
    const char *geometry_source; /* "declared: ..." or the config it was read from */
    uint64_t bytes_per_row;
    kvp_local_row_driver row_driver;
    uint64_t rows;               /* rows_fixed, or max_num_seqs */
    const char *rows_reason;     /* "" when none (only MAX_NUM_SEQS may omit it) */
    uint64_t total_bytes;        /* bytes_per_row * rows */
    kvp_local_scope scope;
    bool charged;                /* already in a profiled peak (scope GRAPH_RESIDENT) */
    const char *exclusive_group; /* "" or a group of entries a single call uses one of */
    const char *condition;       /* "" or the deployment condition it met ("async_chunk") */
    const char *allocation_note; /* "" or layout prose; never arithmetic */
    const char *capacity_source; /* "" or diagnostic prose; never branched on */
} kvp_local_entry;

/* A declaration whose path is off for this deployment: it declares nothing. */
typedef struct kvp_local_inert {
    const char *name;
    const char *owner;
    const char *reason;          /* "needs async_chunk on" */
} kvp_local_inert;

/* A declarer that failed (the seed's collector logs and skips it). */
typedef struct kvp_local_failure {
    const char *owner;           /* module path of the declarer */
    const char *name;            /* declaration that failed, "" when the whole declarer did */
    kvp_status code;
    const char *message;
} kvp_local_failure;

typedef struct kvp_local_totals {
    uint64_t total_bytes;          /* sum of every active entry: the process ceiling */
    uint64_t charged_bytes;        /* graph-resident: already in a measured peak */
    uint64_t not_charged_bytes;    /* allocated after profiling: nobody predicted it */
    uint64_t max_num_seqs;
    size_t exclusive_groups;       /* groups with >= 2 active entries (sum != per-call figure) */
} kvp_local_totals;

typedef struct kvp_local_report kvp_local_report;

/* Run every declarer of `decls` for `dep`: unwrap a graph wrapper, walk the
 * tree, take one explicit hop per held owner, skip inert entries, record (and
 * skip) failing declarers, then size every entry. Errors (fatal): KVP_INVALID_ARG
 * (max_num_seqs 0), KVP_OVERFLOW (a total past 64 bits; names the entry and
 * max_num_seqs), KVP_NOMEM. A failing declarer is not an error. */
KVP_API KVP_NODISCARD kvp_status kvp_local_collect(const kvp_local_decls *decls,
                                           const kvp_local_deployment *dep,
                                           const kvp_allocator *alc, kvp_local_report **out,
                                           kvp_error *err);
/* Load the embedded declarations of `model_name` and collect them: the call a
 * plan makes. KVP_NOT_FOUND when the model declares no local caches (a plan
 * then has no local_caches section). */
KVP_API KVP_NODISCARD kvp_status kvp_local_report_for(const char *model_name,
                                              const kvp_local_deployment *dep,
                                              const kvp_allocator *alc, kvp_local_report **out,
                                              kvp_error *err);
KVP_API void kvp_local_report_free(kvp_local_report *report);

KVP_API const char *kvp_local_report_model(const kvp_local_report *report);
KVP_API const kvp_local_deployment *kvp_local_report_deployment(const kvp_local_report *report);
KVP_API const kvp_local_totals *kvp_local_report_totals(const kvp_local_report *report);
KVP_API size_t kvp_local_report_entry_count(const kvp_local_report *report);
KVP_API const kvp_local_entry *kvp_local_report_entry(const kvp_local_report *report, size_t index);
KVP_API size_t kvp_local_report_inert_count(const kvp_local_report *report);
KVP_API const kvp_local_inert *kvp_local_report_inert(const kvp_local_report *report, size_t index);
KVP_API size_t kvp_local_report_failure_count(const kvp_local_report *report);
KVP_API const kvp_local_failure *kvp_local_report_failure(const kvp_local_report *report, size_t index);

/* What a plan does with the report (seed "What is and is not already
 * accounted for"). With measured memory nothing is added (the graph-resident
 * part is already in the measured peak; subtracting it again double-counts).
 * With estimated memory the graph-resident part belongs in the predicted
 * peak. Either way the not-charged part is a risk line, never subtracted. */
KVP_API void kvp_local_budget_effect(const kvp_local_report *report, bool memory_measured,
                             uint64_t *out_add_to_predicted_peak_bytes,
                             uint64_t *out_risk_bytes);

#ifdef __cplusplus
}
#endif
#endif
