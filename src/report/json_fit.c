/* json_fit.c — `kvplan fit`, `compare` and `sweep --json` (kvplan/render.h):
 * the search's answer, the engines side by side, the rows of a grid, each
 * point rendered by the same kvp__eval_json. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "kvplan/render.h"
#include "render_internal.h"
#include "util.h"

#define ju kvp__json_u64

static kvp_status check_args(const kvp_render_input *in, char **out, kvp_error *err) {
    if (!out) return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "out is NULL");
    *out = NULL;
    if (!in || !in->model) return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "render input or model is NULL");
    return KVP_OK;
}

/* The document head of a command over one model and GPU. */
static json_t *head(const kvp_render_input *in) {
    json_t *o = kvp__json_document();
    if (!o) return NULL;
    json_object_set_new(o, "model", json_string(kvp_model_name(in->model)));
    json_object_set_new(o, "gpu", in->gpu ? json_string(in->gpu) : json_null());
    return o;
}

kvp_status kvp_render_fit_json(const kvp_render_input *in, const kvp_fit_request *req,
                               const kvp_fit_answer *ans, char **out, kvp_error *err) {
    kvp_status st = check_args(in, out, err);
    if (st) return st;
    if (!req || !ans) return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "fit request or answer is NULL");
    json_t *o = head(in);
    if (!o) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory rendering JSON");
    json_object_set_new(o, "solved_for", json_string(kvp_fit_target_name(req->solve_for)));
    json_object_set_new(o, "found", json_boolean(ans->found));
    if (!ans->found)
        json_object_set_new(o, "value", json_null());
    else if (req->solve_for == KVP_FIT_KV_DTYPE)
        json_object_set_new(o, "value", json_string(ans->value_text));
    else
        json_object_set_new(o, "value", ju(ans->value));
    if (req->solve_for == KVP_FIT_PARALLEL && ans->found)
        json_object_set_new(o, "pp", ju(ans->at.point.pp));
    json_object_set_new(o, "concurrency", ju(req->concurrency ? req->concurrency : 1));
    json_object_set_new(o, "limited_by", json_string(ans->limited_by));
    json_object_set_new(o, "at_search_bound", json_boolean(ans->at_search_bound));
    json_object_set_new(o, "best", ans->found ? json_null() : json_string(ans->best));
    json_object_set_new(o, "evaluations", ju(ans->evaluations));
    json_object_set_new(o, "plan", kvp__eval_json(&ans->at));
    return kvp__json_finish(o, KVP__JSON_FLAGS, out, err);
}

/* Bytes a policy leaves for everything that is not weights or KV cache:
 * activations, runtime, fragmentation margin. */
static uint64_t left_over(const kvp_fit_eval *e) {
    uint64_t used = e->weights_bytes + e->kv_bytes;
    return e->total_bytes > used ? e->total_bytes - used : 0;
}

/* What page rounding left of the budget (llama.cpp allocates exactly what it asks). */
static uint64_t rounding(const kvp_fit_eval *e) {
    if (kvp__report_allocates_as_asked(e->point.engine)) return 0;
    return e->budget_bytes > e->kv_bytes ? e->budget_bytes - e->kv_bytes : 0;
}

static json_t *engine_json(const kvp_fit_eval *e) {
    json_t *o = kvp__eval_json(e);
    if (e->status != KVP_OK) return o;
    json_object_set_new(o, "left_for_activations_bytes", e->total_bytes ? ju(left_over(e)) : json_null());
    json_object_set_new(o, "page_rounding_bytes", ju(rounding(e)));
    json_t *notes = json_array();
    if (!kvp__report_creator_plans(e->point.engine)) {
        /* (The creator's notes live in the creator; its plan keeps none.) */
        json_object_set_new(o, "era", json_string(e->policy.era));
        for (uint32_t i = 0; i < e->policy.note_count; i++)
            json_array_append_new(notes, json_string(e->policy.notes[i]));
    }
    json_object_set_new(o, "notes", notes);
    return o;
}

kvp_status kvp_render_compare_json(const kvp_render_input *in, const kvp_fit_eval *evals, size_t count,
                                   char **out, kvp_error *err) {
    kvp_status st = check_args(in, out, err);
    if (st) return st;
    if (count && !evals) return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "evals is NULL");
    json_t *o = head(in);
    if (!o) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory rendering JSON");
    json_t *arr = json_array();
    for (size_t k = 0; k < count; k++) json_array_append_new(arr, engine_json(&evals[k]));
    json_object_set_new(o, "engines", arr);
    return kvp__json_finish(o, KVP__JSON_FLAGS, out, err);
}

/* The sweep document around `rows` (consumed): head, axes, the plan count. */
static json_t *sweep_tree(const kvp_render_input *in, const char *const *axes, size_t axis_count,
                          uint64_t count, json_t *rows) {
    json_t *o = head(in);
    if (!o || !rows) {
        json_decref(o);
        json_decref(rows);
        return NULL;
    }
    json_t *ax = json_array();
    for (size_t k = 0; k < axis_count; k++) json_array_append_new(ax, json_string(axes[k]));
    json_object_set_new(o, "axes", ax);
    json_object_set_new(o, "plans", ju(count));
    json_object_set_new(o, "rows", rows);
    return o;
}

static kvp_status sweep_doc(const kvp_render_input *in, const char *const *axes, size_t axis_count,
                            json_t *rows, char **out, kvp_error *err) {
    json_t *o = sweep_tree(in, axes, axis_count, rows ? json_array_size(rows) : 0, rows);
    if (!o) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory rendering JSON");
    return kvp__json_finish(o, KVP__JSON_FLAGS, out, err);
}

/* A sweep row: the point's head and its capacity (a flat record, as the CSV). */
static void sweep_row_write(kvp__jw *w, const kvp_fit_eval *e) {
    kvp__point_write(w, e, false);
    if (e->status != KVP_OK) return;
    kvp__jw_set(w, "budget_bytes", kvp__jv_u64(e->budget_bytes));
    kvp__jw_set(w, "kv_bytes", kvp__jv_u64(e->kv_bytes));
    kvp__jw_set(w, "tokens", kvp__jv_u64(e->tokens));
    kvp__jw_set(w, "blocks", kvp__jv_u64(e->blocks));
    kvp__jw_set(w, "max_sequences",
                e->max_sequences == UINT64_MAX ? kvp__jv_null() : kvp__jv_u64(e->max_sequences));
    kvp__jw_set(w, "longest_sequence_tokens",
                e->longest_tokens == UINT64_MAX ? kvp__jv_null() : kvp__jv_u64(e->longest_tokens));
    kvp__jw_set(w, "bound_by", kvp__jv_str(e->binding));
}

static json_t *sweep_row_json(const kvp_fit_eval *e) {
    kvp__jw w;
    kvp__jw_tree(&w);
    sweep_row_write(&w, e);
    return kvp__jw_take_tree(&w);
}

kvp_status kvp_render_sweep_json(const kvp_render_input *in, const char *const *axes, size_t axis_count,
                                 const kvp_fit_eval *const *rows, size_t count, char **out,
                                 kvp_error *err) {
    kvp_status st = check_args(in, out, err);
    if (st) return st;
    if ((count && !rows) || (axis_count && !axes))
        return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "rows or axes is NULL");
    json_t *arr = json_array();
    for (size_t i = 0; i < count; i++) json_array_append_new(arr, sweep_row_json(rows[i]));
    return sweep_doc(in, axes, axis_count, arr, out, err);
}

/* ---------------------------------------------------- the streamed sweep
 *
 * The same bytes as kvp_render_sweep_json, one row at a time, so a caller
 * holds one row, never the grid (issue 12 item 9). jansson's indented dump
 * writes a newline and then 2 spaces per depth before every member and
 * element, and never a raw newline inside a string (it escapes them); so:
 * the head is the document dumped with an empty "rows" array, cut before the
 * array's "]"; a row is written straight as text at depth 2 (kvp__jw, the
 * writer the tree is also built through); the tail closes the array and the
 * document. */

/* The document with "rows" an empty array, ending in ROWS_TAIL. */
#define ROWS_TAIL "]\n}"

kvp_status kvp_render_sweep_json_head(const kvp_render_input *in, const char *const *axes,
                                      size_t axis_count, uint64_t count, char **out,
                                      kvp_error *err) {
    kvp_status st = check_args(in, out, err);
    if (st) return st;
    if (axis_count && !axes) return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "axes is NULL");
    json_t *doc = sweep_tree(in, axes, axis_count, count, json_array());
    if (!doc) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory rendering JSON");
    if ((st = kvp__json_finish(doc, KVP__JSON_FLAGS, out, err))) return st;
    size_t n = strlen(*out), k = strlen(ROWS_TAIL);
    if (n < k || strcmp(*out + n - k, ROWS_TAIL) != 0) { /* not jansson's layout: never */
        kvp_render_free(*out);
        *out = NULL;
        return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "unexpected JSON layout of the sweep head");
    }
    (*out)[n - k] = '\0';
    return KVP_OK;
}

kvp_status kvp_render_sweep_json_row(const kvp_fit_eval *row, uint64_t index, char **out,
                                     kvp_error *err) {
    if (!out) return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "out is NULL");
    *out = NULL;
    if (!row) return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "row is NULL");
    /* The row's place in the "rows" array (depth 2): after the head's "[" or
     * the last row, then the row written with depth 2's indent. */
    kvp__jw w;
    kvp__jw_text_at(&w, KVP__JSON_FLAGS, 2, index ? ",\n    " : "\n    ");
    sweep_row_write(&w, row);
    *out = kvp__jw_take_text(&w); /* libc: kvp_render_free */
    if (!*out) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory rendering JSON");
    return KVP_OK;
}

const char *kvp_render_sweep_json_tail(uint64_t count) { return count ? "\n  " ROWS_TAIL : ROWS_TAIL; }
