/* json_local.c — the document of `kvplan local --json` and of kvp_json_call's
 * "local" (render_internal.h): the model-local KV caches a model declares, as
 * kvp_local_collect reports them. Moved from src/cli/cmd_local.c so both print
 * the same bytes. */
#include <jansson.h>
#include <stdint.h>

#include "kvplan/local.h"
#include "render_internal.h"
#include "util.h"

static json_t *jbytes(uint64_t v) {
    /* jansson integers are signed 64-bit; sums never reach 2^63 in practice. */
    return v <= (uint64_t)INT64_MAX ? json_integer((json_int_t)v) : json_real((double)v);
}

kvp_status kvp__local_json_text(const kvp_local_report *r, char **out, kvp_error *err) {
    const kvp_local_deployment *dep = kvp_local_report_deployment(r);
    const kvp_local_totals *t = kvp_local_report_totals(r);
    json_t *root = kvp__json_document();
    if (!root) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
    json_object_set_new(root, "model", json_string(kvp_local_report_model(r)));
    json_t *d = json_object();
    json_object_set_new(d, "max_num_seqs", jbytes(dep->max_num_seqs));
    json_object_set_new(d, "async_chunk", json_boolean(dep->async_chunk));
    json_object_set_new(d, "streaming", json_boolean(dep->streaming));
    json_object_set_new(d, "enforce_eager", json_boolean(dep->enforce_eager));
    json_object_set_new(root, "deployment", d);
    json_t *arr = json_array();
    for (size_t i = 0; i < kvp_local_report_entry_count(r); i++) {
        const kvp_local_entry *e = kvp_local_report_entry(r, i);
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(e->name));
        json_object_set_new(o, "owner", json_string(e->owner));
        json_object_set_new(o, "via_hop", json_boolean(e->via_hop));
        json_object_set_new(o, "kind", json_string(kvp_local_cache_kind_name(e->kind)));
        json_object_set_new(o, "bound_mechanism", json_string(kvp_local_bound_name(e->bound)));
        json_object_set_new(o, "positions", jbytes(e->positions));
        json_object_set_new(o, "bound_formula", json_string(e->bound_formula));
        json_object_set_new(o, "layers", jbytes(e->layers));
        json_object_set_new(o, "kv_heads", jbytes(e->kv_heads));
        json_object_set_new(o, "head_dim", jbytes(e->head_dim));
        json_object_set_new(o, "element_bytes", jbytes(e->element_bytes));
        json_object_set_new(o, "dtype", e->dtype == KVP_DTYPE_AUTO
                                            ? json_null()
                                            : json_string(kvp_dtype_name(e->dtype)));
        json_object_set_new(o, "geometry_source", json_string(e->geometry_source));
        json_object_set_new(o, "bytes_per_row", jbytes(e->bytes_per_row));
        json_object_set_new(o, "row_driver", json_string(kvp_local_row_driver_name(e->row_driver)));
        json_object_set_new(o, "rows", jbytes(e->rows));
        json_object_set_new(o, "rows_reason", json_string(e->rows_reason));
        json_object_set_new(o, "total_bytes", jbytes(e->total_bytes));
        json_object_set_new(o, "scope", json_string(kvp_local_scope_name(e->scope)));
        json_object_set_new(o, "charged", json_boolean(e->charged));
        json_object_set_new(o, "exclusive_group",
                            e->exclusive_group[0] ? json_string(e->exclusive_group) : json_null());
        json_object_set_new(o, "condition", json_string(e->condition));
        json_object_set_new(o, "allocation_note", json_string(e->allocation_note));
        json_object_set_new(o, "capacity_source", json_string(e->capacity_source));
        json_array_append_new(arr, o);
    }
    json_object_set_new(root, "local_caches", arr);
    arr = json_array();
    for (size_t i = 0; i < kvp_local_report_inert_count(r); i++) {
        const kvp_local_inert *in = kvp_local_report_inert(r, i);
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(in->name));
        json_object_set_new(o, "owner", json_string(in->owner));
        json_object_set_new(o, "reason", json_string(in->reason));
        json_array_append_new(arr, o);
    }
    json_object_set_new(root, "inert", arr);
    arr = json_array();
    for (size_t i = 0; i < kvp_local_report_failure_count(r); i++) {
        const kvp_local_failure *f = kvp_local_report_failure(r, i);
        json_t *o = json_object();
        json_object_set_new(o, "owner", json_string(f->owner));
        json_object_set_new(o, "name", json_string(f->name));
        json_object_set_new(o, "code", json_string(kvp_status_name(f->code)));
        json_object_set_new(o, "message", json_string(f->message));
        json_array_append_new(arr, o);
    }
    json_object_set_new(root, "failed_declarers", arr);
    uint64_t add_est, risk;
    kvp_local_budget_effect(r, false, &add_est, &risk);
    json_t *tj = json_object();
    json_object_set_new(tj, "total_bytes", jbytes(t->total_bytes));
    json_object_set_new(tj, "charged_bytes", jbytes(t->charged_bytes));
    json_object_set_new(tj, "not_charged_bytes", jbytes(t->not_charged_bytes));
    json_object_set_new(tj, "exclusive_groups", jbytes(t->exclusive_groups));
    json_object_set_new(tj, "subtract_from_kv_budget_bytes", json_integer(0));
    json_object_set_new(tj, "add_to_estimated_peak_bytes", jbytes(add_est));
    json_object_set_new(tj, "risk_bytes", jbytes(risk));
    json_object_set_new(root, "totals", tj);
    return kvp__json_finish(root, KVP__JSON_FLAGS, out, err);
}

