/* render_internal.h — kvplan's JSON documents that kvplan/render.h does not
 * publish (cost, models, gpus, check, local, sim), for the CLI's `--json` and
 * kvp_json_call alike, and the pieces every document shares: the envelope, the
 * integer rule, and the one text layout. */
#ifndef KVP_RENDER_INTERNAL_H
#define KVP_RENDER_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "kvplan/cost.h"
#include "kvplan/deploy.h"
#include "kvplan/error.h"
#include "kvplan/gpu.h"
#include "kvplan/model.h"
#include "kvplan/pool.h"
#include "kvplan/render.h"
#include "kvplan/report.h"
#include "kvplan/sim.h"
#include "json_writer.h"
#include "respell.h"

/* How every kvplan JSON document is laid out: 2-space indent, keys in the
 * order they were set; reals with 17 significant digits (round-trip exact)
 * unless a document states its own precision. */
#define KVP__JSON_FLAGS (JSON_INDENT(2) | JSON_PRESERVE_ORDER)

/* A new object holding the envelope ("schema_version", "kvplan_version");
 * NULL when out of memory. Every document starts from one. */
json_t *kvp__json_document(void);
/* The same envelope written into the open root of `w`. */
void kvp__document_write(kvp__jw *w);

/* An unsigned count or byte figure; null for one JSON integers cannot hold
 * (above INT64_MAX: never a wrapped or clamped number). */
json_t *kvp__json_u64(uint64_t v);

/* Dump `doc` (consumed) with `flags` into *out (malloc'd, freed with free() /
 * kvp_json_free). KVP_NOMEM when any piece could not be built. */
kvp_status kvp__json_finish(json_t *doc, size_t flags, char **out, kvp_error *err);

/* One start-up check (kvplan/startup.h) with the fields every document shares:
 * rule, status, setting, message, fix (null when none). New reference. */
json_t *kvp__check_json(const kvp_check_row *c);
/* The start-up report `rep` of settings `ss` as `kvplan check --json` prints it
 * (json_check.c; kvp_json_call "check" too): engine, gpu, starts,
 * first_refusal, summary, run, checks, not_decidable; the fixes' flags as
 * `spell` says. *out: malloc'd text, freed with free() / kvp_json_free. */
kvp_status kvp__check_json_text(const kvp_startup_report *rep, const kvp_startup_settings *ss,
                                const char *model_name, kvp__flag_spelling spell,
                                const void *spell_ctx, char **out, kvp_error *err);
/* The same document for a deployment the plan refused (`res`, planned from
 * `in`), with the figures the engine computed before it refused beside the
 * refusal: budget_bytes, budget, pools, block_pool, engine_report,
 * engine_details, capacity, memory, as `plan --json` names them. *out as above. */
kvp_status kvp__check_refusal_json_text(const kvp_startup_report *rep,
                                        const kvp_startup_settings *ss, const char *model_name,
                                        kvp__flag_spelling spell, const void *spell_ctx,
                                        const kvp_render_input *in, const kvp_deploy_result *res,
                                        char **out, kvp_error *err);
/* The same for a plan `res` of deployment `dep` refused at start-up: the
 * settings as the engine ran them (the point's engine, tp and pp, the memory it
 * planned from), the model and GPU of `dep`. */
kvp_status kvp__refusal_json_text(const kvp_deployment *dep, const kvp_deploy_result *res,
                                  const kvp_startup_report *rep, const char *model_name,
                                  kvp__flag_spelling spell, const void *spell_ctx, char **out,
                                  kvp_error *err);
/* `kvplan local --json` of report `r` (json_local.c; kvp_json_call "local"
 * too). *out: malloc'd text, freed with free() / kvp_json_free. */
struct kvp_local_report;
kvp_status kvp__local_json_text(const struct kvp_local_report *r, char **out, kvp_error *err);
/* A deployment's start-up verdict (deploy.h): "starts", "first_refusal" (rule
 * id or null), "checks" (the rules that did not pass) and "checks_not_listed"
 * when some were left out. New reference. */
json_t *kvp__startup_json(const kvp_deploy_startup *st);
/* The same members, written into the open object of `w`. */
void kvp__startup_write(kvp__jw *w, const kvp_deploy_startup *st);

/* The head of a point every row shares: policy, tp, pp, kv_dtype,
 * max_seq_len (llama.cpp: sequences, when `sequences`), ok, the error when it
 * was not planned, and "startup" (kvp__startup_json). New reference. */
json_t *kvp__point_json(const kvp_deploy_result *e, bool sequences);
/* The same members, written into the open object of `w`. */
void kvp__point_write(kvp__jw *w, const kvp_deploy_result *e, bool sequences);


/* The engine's admission rule (json_admission.c): "admitted" (null when
 * unknown; as a value and as a new reference), and the members of the object
 * saying the rule, the reservation and what binds, written into the open
 * object of `w`. */
kvp__jv kvp__admitted_jv(const kvp_admission *a);
json_t *kvp__admitted_json(const kvp_admission *a);
void kvp__admission_write(kvp__jw *w, const kvp_admission *a);

/* One evaluated point (a fit step, a compare column): numbers in bytes and
 * tokens; "pools" per engine. New reference. */
json_t *kvp__eval_json(const kvp_deploy_result *e);
/* The capacity every command reports for a planned deployment (`plan` "capacity";
 * the same field names as a fit / sweep / compare row): its members, written
 * into the open object of `w`. */
void kvp__capacity_write(kvp__jw *w, const kvp_deploy_result *e);
/* The `plan --json` document of `r` as an object (kvp_render_plan_json's),
 * for a caller that takes sections of it. New reference; NULL when out of
 * memory or an argument is NULL. */
json_t *kvp__plan_json(const kvp_render_input *in, const kvp_deploy_result *r);
/* What the reports read of an engine's record (engine_ops.h, json_plan.c) in
 * place of a switch on the engine: the seed's KV cache creator planned it (the
 * creator's managers, reserves, pictures and document; else the policy's) ... */
bool kvp__report_creator_plans(kvp_engine engine);
/* ... its sequences are fixed slots set by the plan (llama.cpp --parallel) ... */
bool kvp__report_fixed_slots(kvp_engine engine);
/* ... it allocates the cache its settings ask for, with no budget to round. */
bool kvp__report_allocates_as_asked(kvp_engine engine);
/* pools[]' tokens_per_block, page_bytes and blocks, one meaning under every
 * engine, written into the open object of `w`. */
void kvp__pool_unit_write(kvp__jw *w, kvp_cache_kind kind, uint32_t tokens_per_block,
                          uint64_t page_bytes, uint64_t blocks);

/* The note a plan under vLLM, SGLang or llama.cpp carries when memory terms
 * were estimated from the config (which, and how to replace them) into buf;
 * false when every term was measured. */
bool kvp__estimated_note(const kvp_deploy_result *r, char *buf, size_t n);

/* Write the page of a plan to `path` (atomically): `title`, the memory bar
 * `svg`, the pool table (`cols` columns, `rows` rows of `cells`) and the plan
 * as printed (`text_report`, may be NULL). */
kvp_status kvp__html_plan_page(const char *path, const char *title, const kvp_report_text *svg,
                               size_t cols, const char *const *header, size_t rows,
                               const char *const *cells, const char *text_report, kvp_error *err);

/* Notes a reader of a cost should know (dtype assumed, replicated heads,
 * replicated MLA latent): static strings into w[0..max), returns the count. */
size_t kvp__cost_warnings(const kvp_model *m, const kvp_cost *c, const char **w, size_t max);

/* `kvplan cost --json` of cost `c` of model `m` under settings `s` (with the
 * per-layer table when `layers`). *out: malloc'd text, freed with free(). */
kvp_status kvp__cost_json_text(const kvp_model *m, const kvp_cost_settings *s, const kvp_cost *c,
                               bool layers, char **out, kvp_error *err);

/* Does catalogue name / HF id match `filter` (NULL or "" matches all;
 * case-insensitive substring of either)? */
bool kvp__models_match(const char *filter, const char *name, const char *hf_id);

/* `kvplan models [FILTER] --json`: entries, then aliases (with "alias_of").
 * *matched = how many matched. *out: malloc'd text, freed with free(). */
kvp_status kvp__models_json_text(const char *filter, char **out, size_t *matched, kvp_error *err);

/* One GPU as `kvplan gpus --json` writes it (free_bytes only when `live`);
 * a new reference. */
json_t *kvp__gpu_json(const kvp_gpu_info *g, bool live);

/* `kvplan gpus --catalog --json`: {"gpus": [...]}, the user's catalogue file
 * `catalog_path` first (NULL: the embedded one only). *out: malloc'd text,
 * freed with free(). */
kvp_status kvp__gpus_catalog_json_text(const char *catalog_path, char **out, kvp_error *err);
/* `kvplan gpus --json`: the GPUs probe `r` found ("devices", "driver_version",
 * "notes"). *out: malloc'd text, freed with free(). */
struct kvp_probe_result;
kvp_status kvp__gpus_live_json_text(const struct kvp_probe_result *r, char **out, kvp_error *err);

/* `kvplan sim --json` (json_sim.c; kvp_json_call "sim" too): what was
 * replayed and what it gave. */
typedef struct kvp__sim_doc {
    const char *model;               /* the model's name */
    const char *workload;            /* the file, "workload_text", or the synthetic spec */
    const kvp_pool_config *pool;     /* the pools replayed over */
    uint64_t max_model_len, max_new_tokens; /* max_new_tokens 0: the servers' default */
    uint32_t max_batch, max_tokens;
    bool chunked_prefill, prefix_reuse;
    bool no_timing;                  /* wall-clock figures written as 0 */
    kvp_sim_policy policy;
    const kvp_sim_result *result;
    const kvp_workload *read;        /* its warnings */
} kvp__sim_doc;
/* What kept waiting requests out in most of the steps they waited:
 * "nothing", "max_batch_size", "kv_cache" or "max_num_tokens". */
const char *kvp__sim_limit_name(const kvp_sim_result *r);
/* *out: malloc'd text, freed with free() / kvp_json_free. */
kvp_status kvp__sim_json_text(const kvp__sim_doc *d, char **out, kvp_error *err);

/* Internal since 1.0.0 (issue 27 item 7: nobody outside the library called them;
 * they left the public headers). */
/* The segments of the stacked memory bar of an evaluated point: weights,
 * activation peak, runtime (non-torch + CUDA graphs), reserves, each KV pool,
 * model-local caches (`local_bytes`, 0 = none) and the free margin. Returns
 * the count written (at most out_cap). */
size_t kvp__fit_memory_segments(const kvp_fit_eval *e, uint64_t local_bytes,
                               kvp_memory_segment *out, size_t out_cap);
/* Pictures of a planned deployment under any policy, written atomically
 * (kvp_report_write_file: only a regular file is written). The memory bar of
 * one rank (weights, activation peak, runtime, reserves, each KV pool,
 * model-local caches `local_bytes`, the free margin) as an SVG file; and one
 * self-contained HTML page with the bar, the pool table and `text_report` (the
 * plan as printed, may be NULL). `subtitle` / `title` may be NULL.
 * KVP_INVALID_ARG when `r` was not planned (r->status != KVP_OK). */
KVP_NODISCARD kvp_status kvp__render_deploy_svg(const char *path, const char *subtitle,
                                                       const kvp_deploy_result *r,
                                                       uint64_t local_bytes, kvp_error *err);
KVP_NODISCARD kvp_status kvp__render_deploy_html(const char *path, const char *title,
                                                        const char *text_report,
                                                        const kvp_deploy_result *r,
                                                        uint64_t local_bytes, kvp_error *err);

#endif
