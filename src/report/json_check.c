/* json_check.c — the document of `kvplan check --json` and of kvp_json_call's
 * "check" (render_internal.h): one builder, so both are the same bytes. A
 * refusal is data here ("starts": false, "first_refusal"), never an error. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "render_internal.h"
#include "util.h"

void kvp__respell_flags(const char *text, kvp__flag_spelling spell, const void *ctx, char *out,
                        size_t size) {
    size_t n = 0;
    if (!size) return;
    for (const char *p = text; *p && n + 1 < size;) {
        /* A flag: '-' after the start, a space or '(', then name characters. */
        bool starts = spell && *p == '-' && (p == text || p[-1] == ' ' || p[-1] == '(');
        size_t k = starts ? strspn(p, "-abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") : 0;
        if (k > 1 && k < KVP__FLAG_TEXT_MAX) {
            char flag[KVP__FLAG_TEXT_MAX], buf[KVP__FLAG_TEXT_MAX + 2];
            memcpy(flag, p, k);
            flag[k] = '\0';
            const char *typed = spell(ctx, flag, buf, sizeof buf);
            const char *w = typed ? typed : flag;
            for (; *w && n + 1 < size; w++) out[n++] = *w;
            p += k;
            continue;
        }
        out[n++] = *p++;
    }
    out[n] = '\0';
}

static json_t *check_doc(const kvp_startup_report *rep, const kvp_startup_settings *ss,
                         const char *model_name, kvp__flag_spelling spell, const void *spell_ctx) {
    json_t *o = kvp__json_document(); /* schema_version, kvplan_version */
    if (!o) return NULL;
    json_object_set_new(o, "engine", json_string(kvp_engine_name(rep->engine)));
    json_object_set_new(o, "engine_version",
                        rep->engine_version[0] ? json_string(rep->engine_version) : json_null());
    json_object_set_new(o, "model", json_string(model_name ? model_name : ""));
    json_t *g = json_object();
    char cc[16];
    kvp_gpu_cc_string(ss->gpu.compute_capability, cc, sizeof cc);
    json_object_set_new(g, "name", ss->gpu_known ? json_string(ss->gpu.name) : json_null());
    json_object_set_new(g, "compute_capability", cc[0] ? json_string(cc) : json_null());
    json_object_set_new(g, "arch", ss->gpu.arch[0] ? json_string(ss->gpu.arch) : json_null());
    json_object_set_new(g, "total_bytes", json_integer((json_int_t)ss->policy.total_memory_bytes));
    json_object_set_new(g, "count", json_integer(ss->gpu_count));
    json_object_set_new(o, "gpu", g);
    json_object_set_new(o, "starts", json_boolean(rep->starts));
    json_object_set_new(o, "first_refusal",
                        rep->first_refusal >= 0 ? json_string(rep->checks[rep->first_refusal].rule)
                                                : json_null());
    json_t *sum = json_object();
    for (int k = 0; k < KVP_CHECK_STATUS_COUNT; k++)
        json_object_set_new(sum, kvp_check_status_name((kvp_check_status)k),
                            json_integer(rep->counts[k]));
    json_object_set_new(sum, "disabled", json_integer(rep->disabled_count));
    json_object_set_new(o, "summary", sum);
    json_t *run = json_object();
    json_object_set_new(run, "dtype", json_string(kvp_dtype_name(rep->run_dtype)));
    json_object_set_new(run, "dtype_adjusted", json_boolean(rep->run_dtype_adjusted));
    json_object_set_new(run, "max_model_len", json_integer((json_int_t)rep->max_model_len));
    json_object_set_new(run, "max_model_len_adjusted", json_boolean(rep->max_model_len_adjusted));
    json_object_set_new(o, "run", run);
    json_t *arr = json_array();
    for (uint32_t i = 0; i < rep->count; i++) {
        const kvp_check_row *c = &rep->checks[i];
        json_t *r = kvp__check_json(c);
        char fix[sizeof c->fix];
        kvp__respell_flags(c->fix, spell, spell_ctx, fix, sizeof fix);
        if (fix[0]) json_object_set_new(r, "fix", json_string(fix));
        json_object_set_new(r, "basis", json_string(c->basis));
        json_object_set_new(r, "versions", json_string(c->versions));
        json_object_set_new(r, "default", json_boolean(c->is_default));
        json_array_append_new(arr, r);
    }
    json_object_set_new(o, "checks", arr);
    json_t *und = json_array();
    for (uint32_t i = 0; i < rep->undecided_count; i++) {
        json_t *u = json_object();
        json_object_set_new(u, "rule", json_string(rep->undecided[i].rule));
        json_object_set_new(u, "reason", json_string(rep->undecided[i].reason));
        json_array_append_new(und, u);
    }
    json_object_set_new(o, "not_decidable", und);
    return o;
}

kvp_status kvp__check_json_text(const kvp_startup_report *rep, const kvp_startup_settings *ss,
                                const char *model_name, kvp__flag_spelling spell,
                                const void *spell_ctx, char **out, kvp_error *err) {
    json_t *o = check_doc(rep, ss, model_name, spell, spell_ctx);
    if (!o) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
    return kvp__json_finish(o, KVP__JSON_FLAGS, out, err);
}

/* The figures the engine computes before it refuses, beside the refusal (issue
 * 27 item 5): vLLM sizes its KV cache, prints "Available KV cache memory" and
 * the block count, and only then refuses a max_model_len one request cannot
 * hold, naming the estimated maximum model length (ENGINES.md 1.8). When the
 * pipeline planned (the refusal came from a rule run on the plan), the plan
 * document's sections are added to the check report, with the same names and
 * meaning as in `plan --json` (docs/schema/plan.schema.json). */
static void add_plan_figures(json_t *o, const kvp_render_input *in, const kvp_deploy_result *res) {
    /* A refusal on the plan leaves its figures in place (status KVP_INFEASIBLE,
     * the rule's message); a refusal before the plan has none. */
    bool planned = kvp__report_creator_plans(res->point.engine)
                       ? res->plan.managers[KVP_ROLE_TARGET].present
                       : res->policy.report.present != 0;
    if (!planned || !in->model) return;
    json_t *plan = kvp__plan_json(in, res);
    if (!plan) return;
    static const char *const keys[] = {"budget_bytes", "budget", "pools", "block_pool",
                                       "engine_report", "engine_details", "capacity", "memory"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        json_t *v = json_object_get(plan, keys[i]);
        if (v) json_object_set(o, keys[i], v);
    }
    json_decref(plan);
}

kvp_status kvp__check_refusal_json_text(const kvp_startup_report *rep,
                                        const kvp_startup_settings *ss, const char *model_name,
                                        kvp__flag_spelling spell, const void *spell_ctx,
                                        const kvp_render_input *in, const kvp_deploy_result *res,
                                        char **out, kvp_error *err) {
    json_t *o = check_doc(rep, ss, model_name, spell, spell_ctx);
    if (!o) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
    add_plan_figures(o, in, res);
    return kvp__json_finish(o, KVP__JSON_FLAGS, out, err);
}

kvp_status kvp__refusal_json_text(const kvp_deployment *dep, const kvp_deploy_result *res,
                                  const kvp_startup_report *rep, const char *model_name,
                                  kvp__flag_spelling spell, const void *spell_ctx, char **out,
                                  kvp_error *err) {
    kvp_startup_settings *ss = malloc(sizeof *ss);
    if (!ss) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
    *ss = dep->startup;
    ss->policy = dep->policy;
    ss->policy.engine = res->point.engine;
    ss->policy.tp = res->point.tp;
    ss->policy.pp = res->point.pp;
    ss->policy.total_memory_bytes = res->total_bytes;
    kvp_render_input in = {dep->model, dep->startup.gpu_known ? dep->startup.gpu.name : NULL, NULL,
                           NULL, 0, NULL, NULL};
    kvp_status st = kvp__check_refusal_json_text(rep, ss, model_name, spell, spell_ctx, &in, res,
                                                 out, err);
    free(ss);
    return st;
}
