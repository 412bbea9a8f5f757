/*
 * kvplan/render.h — the JSON documents of kvplan's commands, rendered by the
 * library (the "report" room), so that `kvplan COMMAND --json`, kvp_json_call
 * (kvplan/json.h, the Python package) and `kvplan serve` print the same bytes
 * for the same question: the CLI prints what these return, plus a newline.
 *
 * Every document is one JSON object that starts with the envelope
 *
 *   "schema_version": KVP_JSON_SCHEMA_VERSION,   the layout below (docs/schema/)
 *   "kvplan_version": "MAJOR.MINOR.PATCH",       kvp_version()
 *
 * and, for a planned deployment (`plan` under every policy), the same
 * sections whatever the engine: "deployment" (what was planned: model, GPU,
 * TP/PP/DP, dtypes, lengths), "memory" (the terms of one rank, with the ones
 * estimated from the config listed in "estimated"), "pools", "capacity",
 * "engine_report" and "warnings". The JSON Schema of each command's document
 * is docs/schema/COMMAND.schema.json; field names only ever get added to.
 *
 * Thread safety: pure functions of their inputs; no global state.
 */
#ifndef KVPLAN_RENDER_H
#define KVPLAN_RENDER_H

#include <stddef.h>
#include <stdint.h>

#include "kvplan/deploy.h"
#include "kvplan/error.h"
#include "kvplan/fit.h"
#include "kvplan/local.h"
#include "kvplan/model.h"
#include "kvplan/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The layout version of every document (docs/schema/). Raised when a field
 * changes meaning or goes away; adding a field keeps it. */
#define KVP_JSON_SCHEMA_VERSION 2

/* TensorRT-LLM rules around the creator that `plan` reports as
 * "engine_rules" (plan.h types; each pointer may be NULL = not used). */
typedef struct kvp_render_rules {
    const char *engine_version;                  /* as given; NULL = default */
    const kvp_kv_compression *compression;       /* with `compression_effect` */
    const kvp_compression_effect *compression_effect;
    const kvp_lora_settings *lora;               /* with `lora_cache` */
    const kvp_lora_cache *lora_cache;
    const kvp_mm_profile *mm_profile;            /* multimodal profiling batch */
    const kvp_notes *notes;                      /* the rules' notes */
} kvp_render_rules;

/* What the question was, beyond the result. All borrowed; NULL = none. */
typedef struct kvp_render_input {
    const kvp_model *model;          /* required */
    const char *gpu;                 /* catalogue GPU name */
    const char *total_source;        /* where the GPU total came from: "catalogue",
                                        "--gpu-mem", "probe" */
    const char *const *notes;        /* said before the result's own warnings */
    size_t note_count;
    const kvp_local_report *local;   /* model-local caches (`plan --local`) */
    const kvp_render_rules *rules;   /* TensorRT-LLM only */
} kvp_render_input;

/* Free a document returned below. NULL is a no-op. */
KVP_API void kvp_render_free(char *text);

/* `kvplan plan --json` of deployment result `r` (any policy). On KVP_OK *out
 * is NUL-terminated JSON text without a final newline; the caller frees it
 * with kvp_render_free(). KVP_NOMEM; KVP_INVALID_ARG for a NULL argument. */
KVP_API KVP_NODISCARD kvp_status kvp_render_plan_json(const kvp_render_input *in,
                                                      const kvp_deploy_result *r, char **out,
                                                      kvp_error *err);

/* `kvplan fit --json` of answer `ans` to request `req`. *out as above. */
KVP_API KVP_NODISCARD kvp_status kvp_render_fit_json(const kvp_render_input *in,
                                                     const kvp_fit_request *req,
                                                     const kvp_fit_answer *ans, char **out,
                                                     kvp_error *err);

/* `kvplan compare --json` of `count` evaluated engines. *out as above. */
KVP_API KVP_NODISCARD kvp_status kvp_render_compare_json(const kvp_render_input *in,
                                                         const kvp_fit_eval *evals, size_t count,
                                                         char **out, kvp_error *err);

/* `kvplan sweep --json`: the axes swept (names as `--over` takes them) and
 * `count` rows. *out as above. */
KVP_API KVP_NODISCARD kvp_status kvp_render_sweep_json(const kvp_render_input *in,
                                                       const char *const *axes, size_t axis_count,
                                                       const kvp_fit_eval *const *rows,
                                                       size_t count, char **out, kvp_error *err);

/* The same document written as the grid is planned (kvplan sweep streams its
 * rows: memory does not grow with the grid): the head (envelope, model, gpu,
 * axes, "plans": `count`, the opening of "rows"), then row `index` = 0, 1, ...
 * count - 1 (its separator included), then the tail. head + rows + tail are
 * byte for byte kvp_render_sweep_json's text. *out as above; the tail is a
 * static string (not freed). */
KVP_API KVP_NODISCARD kvp_status kvp_render_sweep_json_head(const kvp_render_input *in,
                                                            const char *const *axes,
                                                            size_t axis_count, uint64_t count,
                                                            char **out, kvp_error *err);
KVP_API KVP_NODISCARD kvp_status kvp_render_sweep_json_row(const kvp_fit_eval *row, uint64_t index,
                                                           char **out, kvp_error *err);
KVP_API const char *kvp_render_sweep_json_tail(uint64_t count);

#ifdef __cplusplus
}
#endif
#endif
