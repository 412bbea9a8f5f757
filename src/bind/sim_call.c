/* sim_call.c — `kvplan sim`'s steps in the library (sim_call.h): the settings
 * from the option table, the pool a plan gives, the replay, the document. The
 * command and kvp_json_call("sim") both run these, so Python's kvplan.sim()
 * answers what `kvplan sim --json` prints, byte for byte. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind_internal.h"
#include "engine_ops.h"
#include "sim_call.h"
#include "kvplan/gpu.h"
#include "util.h"

/* A message kept word for word (no "KEY: " in front) that still names the
 * option in err->key, for --json's error object and the bindings. */
static kvp_status fail_named(kvp_error *err, const char *key, const char *fmt, ...)
    KVP_PRINTF(3, 4);
static kvp_status fail_named(kvp_error *err, const char *key, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    kvp_status st = kvp__vfail(err, KVP_INVALID_ARG, NULL, NULL, fmt, ap);
    va_end(ap);
    if (err && key) kvp__strlcpy(err->key, key, sizeof err->key);
    return st;
}

kvp__sim_job kvp__sim_job_default(void) {
    kvp__sim_job j;
    memset(&j, 0, sizeof j);
    j.cost = kvp_cost_settings_default();
    j.wl.step_seconds = 0.02;
    j.policy = KVP_SIM_VLLM;
    return j;
}

/* --policy ENGINE and TensorRT-LLM's --capacity-scheduler-policy: the scheduler
 * replayed (vLLM's unless --policy says otherwise; an engine's spelling chooses
 * none here, since every spelling sim takes is one of its own flags). */
static kvp_status sim_policy(kvp__sim_job *job, const kvp_options *t, kvp_error *err) {
    kvp_engine e = t->engine_given ? t->deployment.point.engine : KVP_ENGINE_VLLM;
    /* The scheduler replaying the engine: its record's (NULL: none). */
    const kvp__engine_ops *ops = kvp__engine_ops_of(e);
    if (!ops || !ops->sim_policy)
        return fail_named(err, "--policy",
                          "%s: '%s' has no continuous-batching scheduler to replay; "
                          "expected vllm, sglang or trtllm",
                          kvp_options_typed(t, "--policy"), kvp_engine_name(e));
    kvp_capacity_policy cap = t->deployment.admission.policy;
    /* The capacity scheduler is the creator's engine's (admission.c). */
    if (kvp_options_given(t, "--capacity-scheduler-policy") && !ops->creator_plans)
        return fail_named(err, "--capacity-scheduler-policy",
                          "%s is TensorRT-LLM's; give --policy trtllm (the replayed scheduler "
                          "is %s's)",
                          kvp_options_typed(t, "--capacity-scheduler-policy"), kvp_engine_name(e));
    kvp_status st = kvp_sim_policy_parse(ops->sim_policy, &job->policy, err);
    if (st != KVP_OK) return st;
    if (job->policy == KVP_SIM_TRTLLM && cap == KVP_CAPACITY_MAX_UTILIZATION)
        job->policy = KVP_SIM_TRTLLM_MAX_UTILIZATION;
    return KVP_OK;
}

/* The simulator's own bounds, tighter than the table's (its token counts are
 * 32-bit, KVP_WORKLOAD_MAX_TOKENS per prompt or output): the table's message. */
static kvp_status too_big(const kvp_options *t, const char *name, uint64_t v, uint64_t max,
                          kvp_error *err) {
    char text[24];
    if (v == UINT64_MAX) snprintf(text, sizeof text, "-1"); /* vLLM's "the longest that fits" */
    else snprintf(text, sizeof text, "%llu", (unsigned long long)v);
    return kvp__fail(err, KVP_INVALID_ARG, NULL, kvp_options_typed(t, name),
                     "%s is out of range, expected 1 to %llu", text, (unsigned long long)max);
}

kvp_status kvp__sim_settings(const kvp_options *t, kvp__sim_job *job, kvp_error *err) {
    const kvp_deployment *d = &t->deployment;
    const uint64_t max_len = 2ull * KVP_WORKLOAD_MAX_TOKENS;
    if (d->policy.auto_fit_max_model_len) return too_big(t, "--max-seq-len", UINT64_MAX, max_len, err);
    if (d->point.max_seq_len > max_len)
        return too_big(t, "--max-seq-len", d->point.max_seq_len, max_len, err);
    if (d->trtllm.max_batch_size > (1u << 20))
        return too_big(t, "--max-batch-size", d->trtllm.max_batch_size, 1u << 20, err);
    if (d->trtllm.max_num_tokens > (1u << 30))
        return too_big(t, "--max-num-tokens", d->trtllm.max_num_tokens, 1u << 30, err);
    if (d->admission.max_new_tokens > max_len)
        return too_big(t, "--max-new-tokens", d->admission.max_new_tokens, max_len, err);
    job->gpu = t->gpu;
    job->have_gpu_mem = kvp_options_given(t, "--gpu-mem");
    job->gpu_mem = d->memory.total_bytes;
    job->have_budget = kvp_options_given(t, "--kv-budget");
    job->budget_bytes = d->memory.kv_budget_bytes;
    job->have_blocks = t->sim.blocks > 0;
    job->blocks = t->sim.blocks;
    job->have_slots = t->sim.recurrent_slots > 0;
    job->recurrent_slots = t->sim.recurrent_slots;
    if (d->point.tp) job->cost.tp = d->point.tp;
    if (d->point.pp) job->cost.pp = d->point.pp;
    if (d->point.kv_dtype[0] && kvp_dtype_parse(d->point.kv_dtype, &job->cost.kv_dtype) != KVP_OK)
        return fail_named(err, "--kv-dtype",
                          "%s: unknown dtype '%s' (expected auto, fp32, fp16, bf16, fp8, int8, "
                          "nvfp4)",
                          kvp_options_typed(t, "--kv-dtype"), d->point.kv_dtype);
    if (d->kv.tokens_per_block) job->cost.tokens_per_block = d->kv.tokens_per_block;
    job->max_model_len = d->point.max_seq_len;
    job->max_batch = d->trtllm.max_batch_size ? (uint32_t)d->trtllm.max_batch_size : 256;
    job->max_tokens = d->trtllm.max_num_tokens ? (uint32_t)d->trtllm.max_num_tokens : 8192;
    job->max_new_tokens = d->admission.max_new_tokens;
    job->have_fraction = kvp_options_given(t, "--free-gpu-memory-fraction");
    job->fraction = d->kv.free_gpu_memory_fraction;
    job->have_cross_fraction = d->kv.has_cross_kv_cache_fraction;
    job->cross_fraction = d->kv.cross_kv_cache_fraction;
    /* Reuse and chunked prefill are on unless turned off (--no-prefix-reuse,
     * --no-chunked-prefill, or the positive flags with false). */
    job->no_reuse = kvp_options_given(t, "--enable-block-reuse") && !d->kv.enable_block_reuse;
    job->no_chunked = t->startup.enable_chunked_prefill == 0;
    return KVP_OK;
}

kvp_status kvp__sim_check(const kvp_options *t, kvp__sim_job *job, kvp_error *err) {
    int sources = job->have_budget + job->have_blocks + (job->gpu != NULL) + job->have_gpu_mem;
    if (sources != 1)
        return fail_named(err, "--gpu",
                          "sim needs exactly one of --gpu NAME, --gpu-mem BYTES, --kv-budget "
                          "BYTES and --blocks N");
    if (job->have_slots && !job->have_blocks)
        return fail_named(err, "--recurrent-slots",
                          "--recurrent-slots goes with --blocks; a plan sizes its own slots");
    if (job->have_fraction && (job->have_blocks || job->have_budget))
        return fail_named(err, "--free-gpu-memory-fraction",
                          "--free-gpu-memory-fraction goes with --gpu or --gpu-mem");
    return sim_policy(job, t, err);
}

void kvp__sim_outcome_free(kvp__sim_outcome *o) {
    if (!o) return;
    kvp_deploy_result_free(o->plan);
    free(o->report);
    kvp_workload_free(o->workload);
    o->plan = NULL;
    o->report = NULL;
    o->workload = NULL;
}

/* --blocks: the same block count in every block pool, `slots` state slots
 * in every recurrent pool (the uniform layout of vLLM's hybrid allocator). */
static kvp_status pool_uniform(const kvp__sim_job *job, const kvp_cost *c, kvp_pool_config *pc,
                               kvp_error *err) {
    uint32_t slots = job->have_slots ? (uint32_t)job->recurrent_slots
                                     : (job->no_reuse ? job->max_batch : 2 * job->max_batch);
    return kvp_pool_config_from_cost(c, job->blocks, slots, job->max_batch, job->max_model_len,
                                     !job->no_reuse, pc, err);
}

/* The deployment `kvplan plan` would size for these settings (the TensorRT-LLM
 * creator: include/kvplan/plan.h), for this batch size, token budget and
 * max_model_len. Memory terms not measured are estimated from the config. */
static kvp_status sim_deployment(const kvp__sim_job *job, const kvp_model *m, kvp_deployment *dep,
                                 kvp_error *err) {
    *dep = kvp_deployment_default();
    dep->model = m;
    kvp_deploy_settings *d = &dep->trtllm;
    d->tp = job->cost.tp;
    d->pp = job->cost.pp;
    d->pp_rank = -1;
    d->kv_dtype = job->cost.kv_dtype;
    d->max_batch_size = job->max_batch;
    d->max_num_tokens = job->max_tokens;
    d->max_seq_len = job->max_model_len;
    d->enable_chunked_prefill = !job->no_chunked;
    d->max_cuda_graph_batch_size = 128; /* `kvplan plan`'s default, so both size the same pool */
    kvp_kv_config *kv = &dep->kv;
    kv->tokens_per_block = job->cost.tokens_per_block;
    kv->enable_block_reuse = !job->no_reuse;
    if (job->have_fraction) kv->free_gpu_memory_fraction = job->fraction;
    kv->has_cross_kv_cache_fraction = job->have_cross_fraction;
    kv->cross_kv_cache_fraction = job->cross_fraction;
    if (job->have_budget) {
        dep->memory.kv_budget_bytes = job->budget_bytes;
        return KVP_OK;
    }
    dep->memory.total_bytes = job->gpu_mem;
    if (job->gpu) {
        kvp_gpu_info g;
        kvp_status st = kvp_gpu_lookup_in(job->gpu_catalog, job->gpu, &g, err);
        if (st != KVP_OK) return st;
        /* Its memory, and its compute capability for the start-up rules the
         * pipeline runs: the one step every command takes (deploy.h). */
        kvp_deployment_settle(dep, NULL, &g, false);
    }
    /* Exact weights from safetensors headers when MODEL is a checkpoint folder. */
    dep->memory.model_dir = job->model_dir;
    return KVP_OK;
}

/* The plan's target pools, then the cross pools of an encoder-decoder model
 * (the draft's pools belong to speculative decoding, which sim does not
 * model), as the simulator's pool specs. */
static kvp_status plan_pools(const kvp_plan *plan, kvp_pool_config *pc, kvp_error *err) {
    memset(pc, 0, sizeof *pc);
    static const kvp_manager_role roles[] = {KVP_ROLE_TARGET, KVP_ROLE_CROSS};
    for (size_t r = 0; r < sizeof roles / sizeof roles[0]; r++) {
        const kvp_manager_plan *mp = &plan->managers[roles[r]];
        if (!mp->present) continue;
        for (uint32_t k = 0; k < mp->pool_count && pc->pool_count < KVP_MAX_POOLS; k++) {
            const kvp_plan_pool *pp = &mp->pools[k];
            if (pp->blocks == 0 || pp->blocks > KVP_POOL_MAX_BLOCKS) {
                char b1[32];
                return kvp__fail(err, KVP_INFEASIBLE, NULL, "budget",
                                 "the plan gives pool %u (%s) %llu blocks of %s: %s", k,
                                 kvp_cache_kind_name(pp->kind), (unsigned long long)pp->blocks,
                                 kvp__fmt_bytes(pp->page_bytes, b1, sizeof b1),
                                 pp->blocks ? "more than a pool indexes"
                                            : "the budget does not buy one block");
            }
            kvp_pool_spec *sp = &pc->pools[pc->pool_count++];
            sp->kind = roles[r] == KVP_ROLE_CROSS ? KVP_CACHE_CROSS : pp->kind;
            sp->window_tokens = roles[r] == KVP_ROLE_CROSS ? mp->max_seq_len : pp->window_tokens;
            sp->tokens_per_block = pp->tokens_per_block;
            sp->page_bytes = pp->page_bytes;
            sp->blocks = (uint32_t)pp->blocks;
        }
    }
    if (pc->pool_count == 0)
        return kvp__fail(err, KVP_INFEASIBLE, NULL, "budget", "the plan has no pools to simulate");
    return KVP_OK;
}

kvp_status kvp__sim_pool(kvp__sim_job *job, const kvp_model *m, kvp__sim_outcome *out,
                         kvp_error *err) {
    memset(out, 0, sizeof *out);
    kvp_status st = kvp_cost_require_affine(m, "the simulator", err);
    if (st != KVP_OK) return st;
    if (!job->max_model_len) {
        uint64_t mp = kvp_model_get_info(m)->max_position_embeddings;
        job->max_model_len = mp && mp <= 2ull * KVP_WORKLOAD_MAX_TOKENS ? mp : 8192;
    }
    if (job->have_blocks) return KVP_OK; /* kvp__sim_replay builds the uniform pool */
    if ((st = sim_deployment(job, m, &out->dep, err)) != KVP_OK) return st;
    out->plan = kvp_deploy_result_new();
    out->report = malloc(sizeof *out->report);
    if (!out->plan || !out->report) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
    /* The pipeline's start-up rules refuse a deployment the engine would not
     * start, the rule named (the CLI prints the whole report and exits 1). */
    if ((st = kvp_deploy_plan_report(&out->dep, out->plan, out->report, err)) != KVP_OK) return st;
    if (out->plan->status != KVP_OK) return kvp__not_planned(out->plan, err);
    if ((st = plan_pools(&out->plan->plan, &out->pool, err)) != KVP_OK) return st;
    kvp_pool_config *pc = &out->pool;
    pc->max_sequences = job->max_batch;
    /* The length the engine runs with: the plan's, after its caps (TensorRT-LLM
     * caps max_seq_len at the model's length, T-LEN-1), not the one asked; the
     * replay and the servers' default max_new_tokens run at it. */
    uint64_t planned = out->plan->point.max_seq_len;
    pc->max_seq_tokens = planned && planned < job->max_model_len ? planned : job->max_model_len;
    pc->prefix_reuse = !job->no_reuse;
    job->max_model_len = pc->max_seq_tokens;
    out->promised = out->plan->max_sequences;
    if (out->promised == UINT64_MAX) out->promised = job->max_batch; /* no pool limits: the cap */
    return KVP_OK;
}

kvp_status kvp__sim_replay(const kvp__sim_job *job, const kvp_model *m, kvp__sim_outcome *out,
                           kvp_sim_progress_fn progress, void *progress_ctx, kvp_error *err) {
    if (job->max_new_tokens > job->max_model_len)
        return fail_named(err, "--max-new-tokens", "--max-new-tokens %llu is above max_model_len %llu",
                          (unsigned long long)job->max_new_tokens,
                          (unsigned long long)job->max_model_len);
    kvp_status st = KVP_OK;
    if (job->have_blocks) { /* the plan costed its own pools (kvp__sim_pool) */
        kvp_cost c;
        if ((st = kvp_cost_compute(m, &job->cost, &c, err)) != KVP_OK ||
            (st = pool_uniform(job, &c, &out->pool, err)) != KVP_OK)
            return st;
    }
    if (job->workload_path) {
        st = kvp_workload_read(job->workload_path, &job->wl, NULL, &out->workload, err);
    } else if (job->workload_text) {
        st = kvp_workload_parse(job->workload_text, job->workload_len, "workload_text", &job->wl,
                                NULL, &out->workload, err);
    } else if (job->synthetic) {
        kvp_synthetic_spec spec;
        st = kvp_synthetic_parse(job->synthetic, &spec, err);
        if (st == KVP_OK) st = kvp_workload_synthetic(&spec, NULL, &out->workload, err);
    } else {
        st = fail_named(err, "--workload", "sim needs exactly one of --workload FILE and --synthetic SPEC");
    }
    if (st != KVP_OK) return st;
    kvp_sim_config sc;
    memset(&sc, 0, sizeof sc);
    sc.pool = out->pool;
    sc.max_batch_size = job->max_batch;
    sc.max_num_tokens = job->max_tokens;
    sc.max_model_len = job->max_model_len;
    sc.no_chunked_prefill = job->no_chunked;
    sc.policy = job->policy;
    sc.max_new_tokens = job->max_new_tokens;
    sc.progress_fn = progress;
    sc.progress_ctx = progress_ctx;
    if ((st = kvp_sim_run(&sc, out->workload, NULL, &out->result, err)) != KVP_OK) return st;
    if (!job->have_blocks) out->result.promised_max_sequences = out->promised;
    out->ran = true;
    return KVP_OK;
}

kvp_status kvp__sim_json_document(const kvp__sim_job *job, const kvp_model *m,
                                  const kvp__sim_outcome *o, char **out, kvp_error *err) {
    kvp__sim_doc d = {kvp_model_name(m),
                      job->workload_path   ? job->workload_path
                      : job->workload_text ? "workload_text"
                      : job->synthetic     ? job->synthetic
                                           : "",
                      &o->pool, job->max_model_len, job->max_new_tokens, job->max_batch,
                      job->max_tokens, !job->no_chunked, !job->no_reuse, job->no_timing,
                      job->policy, &o->result, o->workload};
    return kvp__sim_json_text(&d, out, err);
}

kvp_status kvp__sim_arrival_unit(kvp__sim_job *job, const char *v, kvp_error *err) {
    if (strcmp(v, "steps") == 0) job->wl.arrival_unit = KVP_ARRIVAL_STEPS;
    else if (strcmp(v, "seconds") == 0) job->wl.arrival_unit = KVP_ARRIVAL_SECONDS;
    else return kvp__refuse(err, NULL, "--arrival-unit: expected steps or seconds, found '%s'", v);
    return KVP_OK;
}

kvp_status kvp__sim_step_time(kvp__sim_job *job, const char *v, kvp_error *err) {
    char *end;
    double st = strtod(v, &end);
    if (*end || !(st > 0 && st < 3600))
        return kvp__refuse(err, NULL, "--step-time: expected seconds in (0, 3600), found '%s'", v);
    job->wl.step_seconds = st;
    return KVP_OK;
}
