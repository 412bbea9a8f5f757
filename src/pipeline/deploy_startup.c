/*
 * deploy_startup.c — will the engine start? The start-up gate of the one
 * pipeline (deploy_internal.h): every command that plans through
 * kvp_deploy_plan (plan, fit, sweep, compare, sim, check) gets the engine's
 * start-up rules (kvplan/startup.h, shared/reference/STARTUP.md) on the same
 * settings, so a deployment the engine refuses is never a plan that starts,
 * and what the engine adjusts (docs/startup.md "Where the plan differs") is
 * what the plan is computed with.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deploy_internal.h"
#include "spare.h"
#include "util.h"

void kvp__deploy_gate_reset(kvp__deploy_gate *g) {
    /* Not cleared: every use fills what it reads (kvp_startup_check clears its report). */
    g->ready = false;
    g->full_check = false;
}

/* One gate (about 100 KiB) kept per thread for its next plan when its memory
 * is libc's (alc NULL): spare.h says why. */
kvp__deploy_gate *kvp__deploy_gate_new(const kvp_allocator *alc) {
    kvp__deploy_gate *g = alc ? NULL : kvp__spare_take(KVP__SPARE_DEPLOY_GATE);
    if (!g) g = kvp__malloc(alc, sizeof(kvp__deploy_gate));
    if (g) kvp__deploy_gate_reset(g);
    return g;
}

void kvp__deploy_gate_free(const kvp_allocator *alc, kvp__deploy_gate *g) {
    if (!alc && kvp__spare_keep(KVP__SPARE_DEPLOY_GATE, g, NULL)) return;
    kvp__free(alc, g);
}

kvp_policy_settings kvp__deploy_gate_creator_settings(kvp_engine engine,
                                                      const kvp_deploy_settings *d,
                                                      const char *engine_version) {
    kvp_policy_settings p = kvp_policy_settings_default();
    p.engine = engine;
    p.tp = d->tp;
    p.pp = d->pp;
    p.enable_dp_attention = d->attention_dp;
    p.max_model_len = d->max_seq_len;
    if (engine_version) kvp__strlcpy(p.engine_version, engine_version, sizeof p.engine_version);
    return p;
}

kvp_status kvp__deploy_gate_before(kvp__deploy_gate *g, const kvp_deployment *dep,
                                   kvp_policy_settings *s, kvp_dtype *weights_dtype,
                                   kvp_error *err) {
    g->ss = dep->startup;
    g->ss.policy = *s;
    kvp_status st = kvp__startup_check_traced(dep->model, &g->ss, NULL, &g->pre, &g->trace, err);
    if (st != KVP_OK) return st;
    g->ready = true;
    kvp_startup_apply(dep->model, &g->pre, s);
    /* The weights follow the dtype the engine runs in when the user named one
     * (--dtype float32 doubles them) or the engine changed it (V-DT-1, S-DT-1:
     * float16 for bfloat16, float32 for the models float16 breaks). A quantized
     * checkpoint keeps its quantized linears whatever --dtype says, and the
     * 16-bit rest is the same size either way: left to the checkpoint. */
    const kvp_model_info *info = kvp_model_get_info(dep->model);
    if (weights_dtype && *weights_dtype == KVP_DTYPE_AUTO && !info->quant_method[0] &&
        (g->ss.dtype != KVP_RUN_DTYPE_AUTO || g->pre.run_dtype_adjusted))
        *weights_dtype = g->pre.run_dtype;
    return KVP_OK;
}

/* "V-PAR-1: <message>" into out->refusal (and the message when `verdict`). */
static void refuse_with(kvp_deploy_result *out, const kvp_check_row *row, bool verdict) {
    out->starts = false;
    out->largest_max_seq_len = 0;
    snprintf(out->refusal, sizeof out->refusal, "%s: %s", row->rule, row->message);
    if (!verdict) return;
    out->status = KVP_INFEASIBLE;
    snprintf(out->message, sizeof out->message, "%s: %s", row->rule, row->message);
    kvp__strlcpy(out->key, row->setting, sizeof out->key);
}

/* The report's summary in the result: counts, and the rows that did not pass
 * in the engine's order; past KVP_DEPLOY_MAX_CHECKS the refusals are kept
 * before the other statuses. */
static void summarize(const kvp_startup_report *rep, kvp_deploy_startup *out) {
    memset(out, 0, sizeof *out);
    out->evaluated = true;
    out->starts = rep->starts;
    out->first_refusal = -1;
    memcpy(out->counts, rep->counts, sizeof out->counts);
    out->undecided_count = rep->undecided_count;
    out->disabled_count = rep->disabled_count;
    out->run_dtype = rep->run_dtype;
    out->run_dtype_adjusted = rep->run_dtype_adjusted;
    out->max_model_len = rep->max_model_len;
    out->max_model_len_adjusted = rep->max_model_len_adjusted;
    uint32_t failing = rep->count - rep->counts[KVP_CHECK_PASS];
    uint32_t refusals = rep->counts[KVP_CHECK_REFUSE];
    uint32_t others_room = KVP_DEPLOY_MAX_CHECKS > refusals ? KVP_DEPLOY_MAX_CHECKS - refusals : 0;
    for (uint32_t i = 0; i < rep->count; i++) {
        const kvp_check_row *c = &rep->checks[i];
        if (c->status == KVP_CHECK_PASS) continue;
        bool keep = c->status == KVP_CHECK_REFUSE ? out->count < KVP_DEPLOY_MAX_CHECKS
                                                  : others_room > 0;
        if (!keep) continue;
        if (c->status != KVP_CHECK_REFUSE) others_room--;
        if (c->status == KVP_CHECK_REFUSE && out->first_refusal < 0)
            out->first_refusal = (int)out->count;
        out->checks[out->count++] = *c;
    }
    out->dropped = failing - out->count;
}

kvp_status kvp__deploy_gate_after(kvp__deploy_gate *g, const kvp_deployment *dep,
                                  kvp_deploy_result *out, kvp_error *err) {
    if (!g->ready) return KVP_OK;
    /* The memory rules read the device's total and what is free on it. */
    if (!g->ss.policy.total_memory_bytes) g->ss.policy.total_memory_bytes = dep->memory.total_bytes;
    if (!g->ss.policy.free_memory_bytes) g->ss.policy.free_memory_bytes = dep->memory.free_bytes;
    kvp_startup_plan_input in;
    memset(&in, 0, sizeof in);
    in.status = out->status;
    in.result = out->status == KVP_OK ? &out->policy : NULL;
    in.message = out->message;
    in.weights_bytes = out->weights_bytes;
    in.weights_estimated = (out->memory.estimated & KVP_MEM_EST_WEIGHTS) != 0;
    in.headroom_compared = out->have_memory && out->headroom_need_bytes > 0;
    in.headroom_short = out->headroom_short;
    in.headroom_refused = out->headroom_refused;
    in.headroom_bytes = out->headroom_bytes;
    in.headroom_need_bytes = out->headroom_need_bytes;
    in.headroom_sure_bytes = out->headroom_sure_bytes;
    in.headroom_startup_bytes = out->headroom_startup_bytes;
    in.headroom_terms = out->headroom_terms;
    /* With a KV budget given directly there are no memory terms to check. */
    bool planned_memory = out->have_memory || dep->memory.kv_budget_bytes > 0;
    /* The same settings as before the plan (the device memory filled in): the rules
     * that need no plan give the rows they gave then (startup_resume.h). */
    const kvp_startup_plan_input *plan = planned_memory ? &in : NULL;
    kvp_status st = g->full_check
                        ? kvp_startup_check(dep->model, &g->ss, plan, &g->post, err)
                        : kvp__startup_check_resumed(dep->model, &g->ss, plan, &g->pre, &g->trace,
                                                     &g->post, err);
    if (st != KVP_OK) return st;
    summarize(&g->post, &out->startup);
    if (g->pre.first_refusal >= 0) {
        /* The engine exits before it loads the weights: this rule is the answer,
         * whatever the plan found. */
        refuse_with(out, &g->pre.checks[g->pre.first_refusal], true);
    } else if (g->post.first_refusal >= 0) {
        /* A memory rule: when the plan itself failed, its message stays the reason. */
        refuse_with(out, &g->post.checks[g->post.first_refusal], out->status == KVP_OK);
    }
    return KVP_OK;
}

kvp_status kvp_deploy_plan_report(const kvp_deployment *dep, kvp_deploy_result *out,
                                  kvp_startup_report *rep, kvp_error *err) {
    if (!rep) return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "NULL report");
    const kvp_allocator *alc = kvp_deployment_allocator(dep);
    kvp__deploy_gate *g = kvp__deploy_gate_new(alc);
    if (!g) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory (start-up checks)");
    kvp_status st = kvp__deploy_plan_gated(dep, out, g, err);
    /* summarize() marks the result evaluated exactly when g->post was filled. */
    if (st == KVP_OK && out->startup.evaluated) *rep = g->post;
    kvp__deploy_gate_free(alc, g);
    return st;
}

kvp_status kvp_deploy_startup_check(const kvp_deployment *dep, kvp_startup_report *rep,
                                    kvp_error *err) {
    if (!dep || !rep)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "NULL deployment or report");
    kvp_deploy_result *res = kvp_deploy_result_new_with(kvp_deployment_allocator(dep));
    if (!res) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory (start-up checks)");
    kvp_status st = kvp_deploy_plan_report(dep, res, rep, err);
    if (st == KVP_OK && !res->startup.evaluated)
        st = kvp__fail(err, KVP_INVALID_ARG, NULL, res->key, "%s", res->message);
    kvp_deploy_result_free(res);
    return st;
}
