/* settle.c — the GPU looked up once and the memory source decided once
 * (settle.h), for the CLI's commands and kvp_json_call alike. */
#include <stdio.h>
#include <string.h>

#include "options_struct.h" /* kvp_options' fields */
#include "check_run.h"
#include "settle.h"
#include "util.h"

kvp_status kvp__options_settle(const kvp_options *o, const char *catalog, kvp__settled *s,
                               kvp_error *err) {
    memset(s, 0, sizeof *s);
    s->gpu_mem = kvp_options_given(o, "--gpu-mem");
    if (o->gpu) {
        kvp_status st = kvp_gpu_lookup_in(catalog, o->gpu, &s->gpu, err);
        if (st != KVP_OK) return st;
        s->gpu_known = true;
    }
    s->total_bytes = s->gpu_mem ? o->deployment.memory.total_bytes : s->gpu.total_bytes;
    s->total_source = s->gpu_mem ? "--gpu-mem" : o->gpu ? "catalogue" : NULL;
    return KVP_OK;
}

kvp_status kvp__settle_memory_source(const kvp_deploy_memory *m, bool need, kvp__naming naming,
                                     kvp_error *err) {
    bool keys = naming == KVP__NAME_KEYS;
    if (m->kv_budget_bytes && m->total_bytes)
        return keys ? kvp__refuse(err, "/kv_budget",
                             "kv_budget plans from a budget directly; drop gpu / gpu_mem")
                    : kvp__refuse(err, "--kv-budget",
                             "--kv-budget plans from a budget directly; drop --gpu / --gpu-mem");
    if (need && !m->kv_budget_bytes && !m->total_bytes)
        return keys ? kvp__refuse(err, "/gpu",
                             "no memory to plan from: give gpu (a catalogue name), gpu_mem or "
                             "kv_budget")
                    : kvp__refuse(err, "--gpu",
                             "no memory to plan from: give --gpu NAME, --gpu-mem BYTES or "
                             "--kv-budget BYTES");
    return KVP_OK;
}

kvp_status kvp__options_check(const kvp_options *o, const kvp__settled *set,
                              const kvp_model *model, const char *model_dir,
                              kvp_startup_settings *ss, kvp_startup_report *rep, kvp_error *err) {
    *ss = o->startup;
    if (set->gpu_known) {
        ss->gpu = set->gpu;
        ss->gpu_known = true;
    }
    if (o->deployment.memory.has_weights) ss->policy.weights_bytes = o->deployment.memory.weights_bytes;
    ss->policy.total_memory_bytes = set->total_bytes;
    /* The deployment the table built (the length, the KV settings, TensorRT-LLM's
     * creator settings, the window list) is what check plans, as plan does. */
    kvp_deployment given = o->deployment;
    if (model_dir) given.memory.model_dir = model_dir;
    return kvp__check_run(model, ss, &given, rep, err);
}

void kvp__policy_deployment(const kvp_options *o, const kvp__settled *set,
                            const kvp_startup_settings *ss, const kvp_model *model,
                            const char *model_dir, kvp_deployment *d) {
    const kvp_deployment *td = &o->deployment;
    *d = kvp_deployment_default();
    d->model = model;
    d->point = td->point;
    d->point.engine = td->policy.engine;
    d->policy = td->policy;
    d->memory = td->memory;
    d->memory.total_bytes = set->total_bytes;
    /* Exact weights from safetensors headers when MODEL is a checkpoint folder,
     * under every engine, as under TensorRT-LLM (issue 27 item 5). */
    if (model_dir) d->memory.model_dir = model_dir;
    kvp_deployment_settle(d, ss, NULL, false);
    d->admission = td->admission;
}

const kvp_option *kvp__options_axis_fixed(const kvp_options *o, const char *const *axes, size_t n) {
    for (size_t k = 0; k < n; k++) {
        char flag[64];
        snprintf(flag, sizeof flag, "--%s", axes[k]);
        const kvp_option *r = kvp_option_lookup(flag, NULL);
        if (r && kvp_options_given(o, r->name)) return r;
    }
    return NULL;
}
