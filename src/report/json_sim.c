/* json_sim.c — `kvplan sim --json` (kvp_json_call("sim") too): the pools
 * replayed over, the scheduler's settings, and what the replay gave. Fields:
 * docs/sim.md ("Output"), docs/schema/sim.schema.json. */
#include <jansson.h>
#include <stdlib.h>

#include "render_internal.h"
#include "util.h"

const char *kvp__sim_limit_name(const kvp_sim_result *r) {
    if (!r->waiting_steps) return "nothing";
    if (r->cap_bound_steps >= r->kv_bound_steps && r->cap_bound_steps >= r->budget_bound_steps)
        return "max_batch_size";
    return r->kv_bound_steps >= r->budget_bound_steps ? "kv_cache" : "max_num_tokens";
}

static json_t *juint(uint64_t v) { return json_integer((json_int_t)v); }

static json_t *pools_json(const kvp_pool_config *pc) {
    json_t *pools = json_array();
    for (uint32_t k = 0; pools && k < pc->pool_count; k++) {
        const kvp_pool_spec *p = &pc->pools[k];
        json_t *e = json_object();
        json_object_set_new(e, "kind", json_string(kvp_cache_kind_name(p->kind)));
        json_object_set_new(e, "blocks", juint(p->blocks));
        json_object_set_new(e, "tokens_per_block",
                            p->kind == KVP_CACHE_RECURRENT ? json_null() : juint(p->tokens_per_block));
        json_object_set_new(e, "window_tokens", p->window_tokens ? juint(p->window_tokens) : json_null());
        json_object_set_new(e, "page_bytes", juint(p->page_bytes));
        json_array_append_new(pools, e);
    }
    return pools;
}

kvp_status kvp__sim_json_text(const kvp__sim_doc *d, char **out, kvp_error *err) {
    const kvp_sim_result *r = d->result;
    json_t *j = kvp__json_document();
    if (!j) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
    json_object_set_new(j, "model", json_string(d->model));
    json_object_set_new(j, "workload", json_string(d->workload));
    json_object_set_new(j, "pools", pools_json(d->pool));
    json_object_set_new(j, "max_model_len", juint(d->max_model_len));
    json_object_set_new(j, "max_batch_size", juint(d->max_batch));
    json_object_set_new(j, "max_num_tokens", juint(d->max_tokens));
    json_object_set_new(j, "chunked_prefill", json_boolean(d->chunked_prefill));
    json_object_set_new(j, "prefix_reuse", json_boolean(d->prefix_reuse));
    json_object_set_new(j, "policy", json_string(kvp_sim_policy_name(d->policy)));
    json_object_set_new(j, "max_new_tokens",
                        d->max_new_tokens ? juint(d->max_new_tokens) : json_null());
    json_object_set_new(j, "requests", juint(r->requests));
    json_object_set_new(j, "finished", juint(r->finished));
    json_object_set_new(j, "rejected_too_long", juint(r->rejected_too_long));
    json_object_set_new(j, "rejected_never_fit", juint(r->rejected_never_fit));
    json_object_set_new(j, "steps", juint(r->steps));
    json_object_set_new(j, "peak_running", juint(r->peak_running));
    json_object_set_new(j, "mean_running", json_real(r->mean_running));
    json_object_set_new(j, "promised_max_sequences", juint(r->promised_max_sequences));
    json_object_set_new(j, "preemptions", juint(r->preemptions));
    json_object_set_new(j, "waiting_steps", juint(r->waiting_steps));
    json_object_set_new(j, "cap_bound_steps", juint(r->cap_bound_steps));
    json_object_set_new(j, "budget_bound_steps", juint(r->budget_bound_steps));
    json_object_set_new(j, "kv_bound_steps", juint(r->kv_bound_steps));
    json_object_set_new(j, "limited_by", json_string(kvp__sim_limit_name(r)));
    json_object_set_new(j, "prefix_hit_rate", json_real(r->prefix_hit_rate));
    json_object_set_new(j, "prefix_hit_tokens", juint(r->prefix_hit_tokens));
    json_object_set_new(j, "prefix_query_tokens", juint(r->prefix_query_tokens));
    json_object_set_new(j, "peak_blocks_used", juint(r->peak_blocks_used));
    json_object_set_new(j, "total_blocks", juint(r->total_blocks));
    json_object_set_new(j, "prompt_tokens", juint(r->prompt_tokens));
    json_object_set_new(j, "output_tokens", juint(r->output_tokens));
    json_object_set_new(j, "computed_tokens", juint(r->computed_tokens));
    json_t *u = json_array();
    for (uint32_t i = 0; u && i < r->samples; i++) json_array_append_new(u, json_real(r->utilization[i]));
    json_object_set_new(j, "utilization", u);
    json_object_set_new(j, "utilization_stride_steps", juint(r->sample_stride_steps));
    json_object_set_new(j, "elapsed_seconds", json_real(d->no_timing ? 0.0 : r->elapsed_seconds));
    json_object_set_new(j, "steps_per_second", json_real(d->no_timing ? 0.0 : r->steps_per_second));
    json_t *warn = json_array();
    for (size_t i = 0; warn && i < kvp_workload_warning_count(d->read); i++)
        json_array_append_new(warn, json_string(kvp_workload_warning(d->read, i)));
    json_object_set_new(j, "warnings", warn);
    return kvp__json_finish(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10), out,
                            err);
}
