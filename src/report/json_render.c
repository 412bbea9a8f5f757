/* json_render.c — the envelope, the integer rule and the evaluated-point
 * sections shared by every JSON document (kvplan/render.h). */
#include <jansson.h>
#include <stdlib.h>

#include "kvplan/render.h"
#include "kvplan/version.h"
#include "json_error.h"
#include "render_internal.h"
#include "util.h"

json_t *kvp__json_document(void) {
    json_t *o = json_object();
    if (!o) return NULL;
    json_object_set_new(o, "schema_version", json_integer(KVP_JSON_SCHEMA_VERSION));
    json_object_set_new(o, "kvplan_version", json_string(kvp_version()));
    return o;
}

void kvp__document_write(kvp__jw *w) {
    kvp__jw_set(w, "schema_version", kvp__jv_u64(KVP_JSON_SCHEMA_VERSION));
    kvp__jw_set(w, "kvplan_version", kvp__jv_str(kvp_version()));
}

void kvp_render_free(char *text) { kvp__free(NULL, text); }

json_t *kvp__json_u64(uint64_t v) {
    return v > (uint64_t)INT64_MAX ? json_null() : json_integer((json_int_t)v);
}

kvp_status kvp__json_finish(json_t *doc, size_t flags, char **out, kvp_error *err) {
    *out = kvp__json_dump(doc, flags, NULL); /* libc: kvp_render_free */
    json_decref(doc);
    if (!*out) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory rendering JSON");
    return KVP_OK;
}

#define ju kvp__json_u64

/* The fields of pools[] that mean the same under every engine (schema_version
 * 2): tokens_per_block (null for a state pool, one slot per sequence),
 * page_bytes (one block across every layer it serves on this rank; a state
 * pool: one slot) and blocks (held; a state pool: slots), so that a pool's
 * bytes are blocks x page_bytes. */
void kvp__pool_unit_write(kvp__jw *w, kvp_cache_kind kind, uint32_t tokens_per_block,
                          uint64_t page_bytes, uint64_t blocks) {
    bool state = kind == KVP_CACHE_RECURRENT || tokens_per_block == 0;
    kvp__jw_set(w, "tokens_per_block", state ? kvp__jv_null() : kvp__jv_u64(tokens_per_block));
    kvp__jw_set(w, "page_bytes", kvp__jv_u64(page_bytes));
    kvp__jw_set(w, "blocks", kvp__jv_u64(blocks));
}

/* The same into a tree's object `o` (fit and compare points). */
static void pool_unit_json(json_t *o, kvp_cache_kind kind, uint32_t tokens_per_block,
                           uint64_t page_bytes, uint64_t blocks) {
    kvp__jw w;
    kvp__jw_tree_on(&w, o);
    kvp__pool_unit_write(&w, kind, tokens_per_block, page_bytes, blocks);
}

/* UINT64_MAX means "no limit" in a result: null. */
static json_t *ju_or_null(uint64_t v) { return v == UINT64_MAX ? json_null() : ju(v); }

json_t *kvp__check_json(const kvp_check_row *c) {
    json_t *r = json_object();
    json_object_set_new(r, "rule", json_string(c->rule));
    json_object_set_new(r, "status", json_string(kvp_check_status_name(c->status)));
    json_object_set_new(r, "setting", json_string(c->setting));
    json_object_set_new(r, "message", json_string(c->message));
    json_object_set_new(r, "fix", c->fix[0] ? json_string(c->fix) : json_null());
    return r;
}

void kvp__startup_write(kvp__jw *w, const kvp_deploy_startup *st) {
    kvp__jw_set(w, "starts", kvp__jv_bool(st->starts));
    kvp__jw_set(w, "first_refusal", st->first_refusal >= 0
                                        ? kvp__jv_str(st->checks[st->first_refusal].rule)
                                        : kvp__jv_null());
    kvp__jw_array(w, "checks");
    for (uint32_t i = 0; i < st->count; i++) {
        const kvp_check_row *c = &st->checks[i];
        kvp__jw_object(w, NULL);
        kvp__jw_set(w, "rule", kvp__jv_str(c->rule));
        kvp__jw_set(w, "status", kvp__jv_str(kvp_check_status_name(c->status)));
        kvp__jw_set(w, "setting", kvp__jv_str(c->setting));
        kvp__jw_set(w, "message", kvp__jv_str(c->message));
        kvp__jw_set(w, "fix", c->fix[0] ? kvp__jv_str(c->fix) : kvp__jv_null());
        kvp__jw_end(w);
    }
    kvp__jw_end(w);
    if (st->dropped) kvp__jw_set(w, "checks_not_listed", kvp__jv_u64(st->dropped));
}

json_t *kvp__startup_json(const kvp_deploy_startup *st) {
    kvp__jw w;
    kvp__jw_tree(&w);
    kvp__startup_write(&w, st);
    return kvp__jw_take_tree(&w);
}

void kvp__point_write(kvp__jw *w, const kvp_deploy_result *e, bool sequences) {
    kvp__jw_set(w, "policy", kvp__jv_str(kvp_engine_name(e->point.engine)));
    kvp__jw_set(w, "tp", kvp__jv_u64(e->point.tp));
    kvp__jw_set(w, "pp", kvp__jv_u64(e->point.pp));
    kvp__jw_set(w, "kv_dtype", kvp__jv_str(e->point.kv_dtype));
    kvp__jw_set(w, "max_seq_len", kvp__jv_u64(e->point.max_seq_len));
    if (sequences && kvp__report_fixed_slots(e->point.engine))
        kvp__jw_set(w, "sequences", kvp__jv_u64(e->point.sequences));
    kvp__jw_set(w, "ok", kvp__jv_bool(e->status == KVP_OK));
    if (e->status != KVP_OK) {
        kvp__jw_set(w, "error", kvp__jv_str(kvp_status_name(e->status)));
        kvp__jw_set(w, "message", kvp__jv_str(e->message));
    }
    kvp__jw_object(w, "startup");
    kvp__startup_write(w, &e->startup);
    kvp__jw_end(w);
}

json_t *kvp__point_json(const kvp_deploy_result *e, bool sequences) {
    kvp__jw w;
    kvp__jw_tree(&w);
    kvp__point_write(&w, e, sequences);
    return kvp__jw_take_tree(&w);
}

json_t *kvp__eval_json(const kvp_deploy_result *e) {
    json_t *o = kvp__point_json(e, true);
    if (e->status != KVP_OK) return o;
    json_object_set_new(o, "budget_bytes", ju(e->budget_bytes));
    json_object_set_new(o, "budget_formula", json_string(e->budget_formula));
    json_object_set_new(o, "kv_bytes", ju(e->kv_bytes));
    json_object_set_new(o, "tokens", ju(e->tokens));
    json_object_set_new(o, "blocks", ju(e->blocks));
    json_object_set_new(o, "tokens_per_block", ju(e->block_tokens));
    json_object_set_new(o, "max_sequences", ju_or_null(e->max_sequences));
    json_object_set_new(o, "admitted", kvp__admitted_json(&e->admission));
    json_object_set_new(o, "batch_limit", e->batch_limit ? ju(e->batch_limit) : json_null());
    json_object_set_new(o, "longest_sequence_tokens", ju_or_null(e->longest_tokens));
    json_object_set_new(o, "bound_by", json_string(e->binding));
    json_t *m = json_object();
    json_object_set_new(m, "total_bytes", e->total_bytes ? ju(e->total_bytes) : json_null());
    json_object_set_new(m, "weights_bytes", ju(e->weights_bytes));
    json_object_set_new(m, "activation_bytes", ju(e->activation_bytes));
    json_object_set_new(m, "runtime_bytes", ju(e->runtime_bytes));
    json_object_set_new(m, "reserve_bytes", ju(e->reserve_bytes));
    json_object_set_new(m, "estimated", json_boolean(e->memory_estimated));
    json_object_set_new(o, "memory", m);
    json_t *pools = json_array();
    if (kvp__report_creator_plans(e->point.engine)) {
        for (int r = 0; r < KVP_ROLE_COUNT; r++) {
            const kvp_manager_plan *mp = &e->plan.managers[r];
            for (uint32_t i = 0; mp->present && i < mp->pool_count; i++) {
                const kvp_plan_pool *p = &mp->pools[i];
                json_t *j = json_object();
                json_object_set_new(j, "manager", json_string(kvp_manager_role_name(mp->role)));
                json_object_set_new(j, "kind", json_string(kvp_cache_kind_name(p->kind)));
                json_object_set_new(j, "layers", ju(p->layers));
                json_object_set_new(j, "window_tokens",
                                    p->window_tokens ? ju(p->window_tokens) : json_null());
                pool_unit_json(j, p->kind, p->tokens_per_block, p->page_bytes, p->blocks);
                json_object_set_new(j, "bytes", ju(p->bytes));
                json_object_set_new(j, "tokens", ju(p->tokens));
                json_array_append_new(pools, j);
            }
        }
    } else {
        for (uint32_t i = 0; i < e->policy.pool_count; i++) {
            const kvp_policy_pool *p = &e->policy.pools[i];
            json_t *j = json_object();
            json_object_set_new(j, "name", json_string(p->name));
            json_object_set_new(j, "kind", json_string(kvp_cache_kind_name(p->kind)));
            json_object_set_new(j, "layers", ju(p->layers));
            pool_unit_json(j, p->kind, p->block_size_tokens, p->block_bytes, p->blocks);
            json_object_set_new(j, "bytes", ju(p->bytes));
            json_object_set_new(j, "tokens", ju(p->tokens));
            json_array_append_new(pools, j);
        }
    }
    json_object_set_new(o, "pools", pools);
    return o;
}

void kvp__capacity_write(kvp__jw *w, const kvp_deploy_result *e) {
    kvp__jv none = kvp__jv_null();
#define set(k, v) kvp__jw_set(w, k, v)
#define U kvp__jv_u64
#define U_OR_NULL(v) ((v) == UINT64_MAX ? none : U(v))
    set("ok", kvp__jv_bool(e->status == KVP_OK));
    set("budget_bytes", U(e->budget_bytes));
    set("kv_bytes", U(e->kv_bytes));
    set("tokens", U(e->tokens));
    set("blocks", U(e->blocks));
    set("tokens_per_block", U(e->block_tokens));
    set("max_seq_len", U(e->point.max_seq_len));
    set("max_sequences", U_OR_NULL(e->max_sequences));
    set("admitted", kvp__admitted_jv(&e->admission));
    set("batch_limit", e->batch_limit ? U(e->batch_limit) : none);
    set("longest_sequence_tokens", U_OR_NULL(e->longest_tokens));
    set("bound_by", kvp__jv_str(e->binding));
    set("engine_max_seq_len", U(e->engine_max_seq_len));
    set("starts", kvp__jv_bool(e->starts));
    set("refusal", e->starts ? none : kvp__jv_str(e->refusal));
    set("largest_max_seq_len", e->largest_max_seq_len ? U(e->largest_max_seq_len) : none);
#undef set
#undef U
#undef U_OR_NULL
}
