/* check_run.c — kvp__check_run (check_run.h): `kvplan check`'s steps, moved
 * from src/cli/cmd_check.c so that kvp_json_call answers "check" with the
 * same report. */
#include <string.h>

#include "check_run.h"
#include "kvplan/estimate.h"
#include "util.h"

kvp_status kvp__check_run(const kvp_model *model, const kvp_startup_settings *ss,
                          const kvp_deployment *given, kvp_startup_report *rep, kvp_error *err) {
    const kvp_policy_settings *s = &ss->policy;
    /* Without memory, the rules that need none (the memory rules `unknown`). */
    kvp_status st = kvp_startup_check(model, ss, NULL, rep, err);
    if (st != KVP_OK) return st;
    kvp_startup_plan_input in;
    memset(&in, 0, sizeof in);
    bool have_plan = s->total_memory_bytes > 0 || s->kv_budget_bytes > 0;
    if (!have_plan) return KVP_OK;
    /* The deployment pipeline (deploy.h) runs the rules, as for `kvplan plan`:
     * the ones that need no memory first (what the engine adjusts is planned
     * with), then the memory rules on its plan. */
    kvp_deploy_result *res = kvp_deploy_result_new_with(kvp_model_allocator(model));
    if (!res) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
    /* The deployment the option table built, as `plan` plans it: the length, the KV
     * settings and TensorRT-LLM's creator settings (TensorRT-LLM is planned by its
     * creator, as `kvplan plan` does: every engine's memory rules read the same
     * plan), and the memory terms as the table wrote them (--peak, --non-torch,
     * --cuda-graph, the checkpoint folder); the device's total from --gpu-mem or
     * the GPU. */
    kvp_deployment d = *given;
    d.model = model;
    d.point.engine = s->engine;
    d.point.tp = s->tp;
    d.point.pp = s->pp;
    d.policy = *s;
    d.memory.total_bytes = s->kv_budget_bytes ? 0 : s->total_memory_bytes;
    /* The start-up settings and the GPU, the one step every command takes
     * (deploy.h); it also drops mem's --quantization, a pointer into an option
     * table the caller may have freed (the pipeline reads the setting from
     * startup). */
    kvp_deployment_settle(&d, ss, ss->gpu_known ? &ss->gpu : NULL, true);
    /* One plan gives the result and every rule's row. */
    st = kvp_deploy_plan_report(&d, res, rep, err);
    if (st == KVP_OK && !res->startup.evaluated) {
        /* A setting the pipeline refused before the rules ran: every rule on it,
         * the memory rules with that refusal. */
        in.status = res->status;
        in.message = res->message;
        st = kvp_startup_check(model, ss, &in, rep, err);
    }
    kvp_deploy_result_free(res);
    return st;
}

kvp_status kvp__startup_inputs(const kvp_model *model, const kvp_startup_settings *ss,
                               kvp_error *err) {
    /* A format kvplan cannot cost is bad input, before the engine's own rule. */
    kvp_weight_format fmt;
    if (!ss->quantization[0]) return KVP_OK;
    return kvp_weight_format_for_model(model, ss->quantization, &fmt, err);
}
