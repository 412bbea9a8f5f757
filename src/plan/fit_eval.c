/* fit_eval.c — one point of the deployment space planned end to end
 * (include/kvplan/fit.h): memory facts (measured or estimated per tp/pp),
 * then TensorRT-LLM's creator (the seed's path: estimation pass, capacity,
 * managers) or an engine policy; and the figures fit / sweep / compare read.
 *
 * The TensorRT-LLM path mirrors `kvplan plan`: free memory after loading =
 * total - weights - non-torch - CUDA graphs feeds the estimation pass; the
 * measured allocator peak is weights + activation; the KV budget comes from
 * kvp_creator_configure (or _configure_budget with a given KV budget). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kvplan/estimate.h"
#include "kvplan/fit.h"
#include "util.h"

static void set_message(kvp_fit_eval *out, kvp_status st, const kvp_error *e) {
    out->status = st;
    kvp__strlcpy(out->message, e->message[0] ? e->message : kvp_status_describe(st),
                 sizeof out->message);
}

/* Memory terms of one rank for this tp / pp: measured where given, else the
 * config estimate (weights, activation peak of the profiling pass, runtime). */
typedef struct mem_knobs {
    uint64_t max_num_tokens, max_batch_size;
    bool cuda_graphs;
    uint32_t cuda_graph_max_batch, sampler_rows, sampler_bytes_per_logit;
} mem_knobs;

static kvp_status memory_terms(const kvp_fit_env *env, uint32_t tp, uint32_t pp,
                               const mem_knobs *k, kvp_memory_facts *m, kvp_error *err) {
    kvp_memory_measured meas;
    memset(&meas, 0, sizeof meas);
    meas.total_bytes = env->gpu_total_bytes;
    meas.has_weights = env->has_weights;
    meas.weights_bytes = env->weights_bytes;
    meas.has_peak = env->has_peak;
    meas.peak_bytes = env->peak_bytes;
    meas.has_non_torch = env->has_non_torch;
    meas.non_torch_bytes = env->non_torch_bytes;
    kvp_estimate_settings es;
    memset(&es, 0, sizeof es);
    es.tp = tp;
    es.pp = pp;
    es.max_num_tokens = k->max_num_tokens ? k->max_num_tokens : 8192;
    es.max_batch_size =
        (uint32_t)(k->max_batch_size && k->max_batch_size < UINT32_MAX ? k->max_batch_size : 2048);
    es.cuda_graphs = k->cuda_graphs;
    es.cuda_graph_max_batch = k->cuda_graph_max_batch;
    es.sampler_rows = k->sampler_rows;
    es.sampler_bytes_per_logit = k->sampler_bytes_per_logit;
    es.model_dir = env->model_dir;
    es.weights_dtype = KVP_DTYPE_AUTO;
    return kvp_memory_resolve(env->model, &meas, &es, m, err);
}

/* Name of a pool for "KV budget of pool '...'". */
/* The memory terms an evaluation reports, whichever engine planned it. */
static void report_memory(kvp_fit_eval *out, const kvp_memory_facts *m, bool have_mem) {
    out->total_bytes = have_mem ? m->total_bytes : 0;
    out->weights_bytes = m->weights_bytes;
    out->activation_bytes = m->activation_bytes;
    out->runtime_bytes = m->non_torch_bytes + m->cuda_graph_bytes;
    out->memory_estimated = have_mem && (m->estimated & (KVP_MEM_EST_WEIGHTS |
                                                         KVP_MEM_EST_ACTIVATION |
                                                         KVP_MEM_EST_NON_TORCH |
                                                         KVP_MEM_EST_CUDA_GRAPH)) != 0;
}

static void pool_name(const kvp_plan_pool *p, const kvp_manager_plan *mp, char *buf, size_t n) {
    const char *kind = kvp_cache_kind_name(p->kind);
    const char *role = mp->role == KVP_ROLE_TARGET ? "" : kvp_manager_role_name(mp->role);
    if (p->window_tokens && p->kind != KVP_CACHE_CROSS)
        snprintf(buf, n, "%s%s%s (window %llu)", role, *role ? " " : "", kind,
                 (unsigned long long)p->window_tokens);
    else
        snprintf(buf, n, "%s%s%s", role, *role ? " " : "", kind);
}

/* "KV budget of pool '...'" for the pool whose blocks run out first (the rule
 * of kvp_plan_max_sequences, which names it). */
static void binding_pool(const kvp_plan *plan, uint64_t seq_len, uint32_t beam, char *buf,
                         size_t n) {
    uint64_t count;
    kvp_manager_role role;
    uint32_t idx;
    buf[0] = '\0';
    if (kvp_plan_binding_pool(plan, seq_len, beam, &count, &role, &idx, NULL) != KVP_OK ||
        idx == UINT32_MAX)
        return;
    const kvp_manager_plan *mp = &plan->managers[role];
    const kvp_plan_pool *p = &mp->pools[idx];
    char name[96];
    pool_name(p, mp, name, sizeof name);
    snprintf(buf, n, "KV budget of pool '%s' (%llu blocks of %u tokens)", name,
             (unsigned long long)p->blocks, p->tokens_per_block);
}

static bool has_recurrent_slots(const kvp_plan *plan) {
    for (int r = 0; r < KVP_ROLE_COUNT; r++)
        for (uint32_t i = 0; plan->managers[r].present && i < plan->managers[r].pool_count; i++)
            if (plan->managers[r].pools[i].kind == KVP_CACHE_RECURRENT) return true;
    return false;
}

/* ------------------------------------------------------ TensorRT-LLM */

static kvp_status eval_trtllm(const kvp_fit_env *env, kvp_fit_eval *out, kvp_error *err) {
    kvp_deploy_settings d = env->deploy;
    kvp_fit_point *pt = &out->point;
    if (pt->tp) d.tp = pt->tp;
    if (pt->pp) d.pp = pt->pp;
    if (pt->max_seq_len) d.max_seq_len = pt->max_seq_len;
    if (pt->max_batch_size) d.max_batch_size = pt->max_batch_size;
    if (pt->kv_dtype[0]) {
        kvp_dtype dt;
        if (kvp_dtype_parse(pt->kv_dtype, &dt) != KVP_OK) {
            out->status = KVP_INVALID_ARG;
            snprintf(out->message, sizeof out->message,
                     "unknown KV dtype '%s' for trtllm (expected auto, fp16, bf16, fp8, nvfp4)",
                     pt->kv_dtype);
            return KVP_OK;
        }
        d.kv_dtype = dt;
    }
    kvp_error e;
    kvp_error_clear(&e);
    kvp_memory_facts m;
    memset(&m, 0, sizeof m);
    bool have_mem = env->kv_budget_bytes == 0;
    kvp_status st;
    if (have_mem) {
        /* The same estimate as `kvplan plan`. */
        mem_knobs k = {d.max_num_tokens, d.max_batch_size, d.max_cuda_graph_batch_size > 0,
                       (uint32_t)(d.max_cuda_graph_batch_size < UINT32_MAX
                                      ? d.max_cuda_graph_batch_size
                                      : UINT32_MAX),
                       0, 0};
        st = memory_terms(env, d.tp ? d.tp : 1, d.pp ? d.pp : 1, &k, &m, &e);
        if (st == KVP_NOMEM) return kvp__fail(err, st, NULL, NULL, "%s", e.message);
        if (st != KVP_OK) {
            set_message(out, st, &e);
            return KVP_OK;
        }
    }
    kvp_creator *c = NULL;
    st = kvp_creator_new(env->model, NULL, &d, &env->kv, NULL, &c, &e);
    if (st != KVP_OK) {
        if (st == KVP_NOMEM) return kvp__fail(err, st, NULL, NULL, "%s", e.message);
        set_message(out, st, &e);
        return KVP_OK;
    }
    const kvp_deploy_settings *rd = kvp_creator_deploy(c);
    pt->tp = rd->tp;
    pt->pp = rd->pp;
    pt->max_seq_len = rd->max_seq_len;
    kvp_estimation_plan est;
    memset(&est, 0, sizeof est);
    if (have_mem) {
        st = kvp_creator_configure_from_facts(c, &m, 0, &est, &out->cap, &e);
        if (!est.estimating) m.activation_bytes = 0; /* no profiling pass, no activation peak */
    } else {
        st = kvp_creator_prepare_estimation(c, 0, &est, &e);
        if (st == KVP_OK) st = kvp_creator_configure_budget(c, env->kv_budget_bytes, &out->cap, &e);
    }
    if (st == KVP_OK) st = kvp_creator_build(c, false, &out->plan, &e);
    uint32_t beam = rd->max_beam_width ? rd->max_beam_width : 1;
    /* The slot pool holds max_batch_size x pp sequences (compute_max_num_sequences). */
    uint64_t batch = kvp_max_num_sequences(rd->max_batch_size, rd->pp ? rd->pp : 1,
                                           rd->disable_overlap_scheduler, false);
    kvp_dtype kv_dtype = out->plan.managers[KVP_ROLE_TARGET].kv_dtype;
    kvp_creator_free(c);
    report_memory(out, &m, have_mem);
    if (st != KVP_OK) {
        if (st == KVP_NOMEM) return kvp__fail(err, st, NULL, NULL, "%s", e.message);
        set_message(out, st, &e);
        return KVP_OK;
    }
    if (!pt->kv_dtype[0]) kvp__strlcpy(pt->kv_dtype, kvp_dtype_name(kv_dtype), sizeof pt->kv_dtype);
    const kvp_manager_plan *t = &out->plan.managers[KVP_ROLE_TARGET];
    out->reserve_bytes = out->cap.mla_workspace_reserve_bytes + out->cap.mm_reserve_bytes;
    out->budget_bytes = out->cap.kv_max_memory_bytes;
    out->kv_bytes = out->plan.allocated_bytes;
    out->tokens = t->max_tokens_out;
    out->batch_limit = batch;
    for (int r = 0; r < KVP_ROLE_COUNT; r++)
        for (uint32_t i = 0; out->plan.managers[r].present && i < out->plan.managers[r].pool_count;
             i++) {
            const kvp_plan_pool *p = &out->plan.managers[r].pools[i];
            if (p->tokens_per_block) {
                out->blocks += p->blocks;
                if (!out->block_tokens) out->block_tokens = p->tokens_per_block;
            }
        }
    snprintf(out->budget_formula, sizeof out->budget_formula, "%s",
             have_mem ? "(total - peak - non-torch + estimation KV) * free_gpu_memory_fraction"
                      : "--kv-budget");
    out->longest_tokens = kvp_plan_longest_sequence(&out->plan, beam);
    if (!kvp_plan_holds_a_sequence(&out->plan, beam)) {
        out->status = KVP_INFEASIBLE;
        uint64_t block = 0;
        for (uint32_t i = 0; i < t->pool_count; i++)
            if (!t->pools[i].in_intercept) block += t->pools[i].page_bytes;
        snprintf(out->message, sizeof out->message,
                 "one sequence does not fit: the KV budget (%llu B) is below one block of each "
                 "pool (%llu B) plus the fixed costs (%llu B%s)",
                 (unsigned long long)out->budget_bytes, (unsigned long long)block,
                 (unsigned long long)t->cost.intercept_bytes,
                 has_recurrent_slots(&out->plan)
                     ? ": recurrent state for max_batch_size sequences; lower --max-batch-size"
                     : "");
        return KVP_OK;
    }
    st = kvp_plan_max_sequences(&out->plan, pt->max_seq_len, beam, &out->max_sequences, &e);
    if (st != KVP_OK) {
        set_message(out, st, &e);
        return KVP_OK;
    }
    if (out->max_sequences >= batch && batch) {
        if (has_recurrent_slots(&out->plan))
            snprintf(out->binding, sizeof out->binding,
                     "recurrent slots (state for max_batch_size = %llu sequences)",
                     (unsigned long long)batch);
        else
            snprintf(out->binding, sizeof out->binding, "max batch size (%llu)",
                     (unsigned long long)batch);
    } else {
        binding_pool(&out->plan, pt->max_seq_len, beam, out->binding, sizeof out->binding);
    }
    out->status = KVP_OK;
    return KVP_OK;
}

/* -------------------------------------------------------------- policies */

static kvp_status eval_policy(const kvp_fit_env *env, kvp_fit_eval *out, kvp_error *err) {
    kvp_policy_settings s = env->policy;
    kvp_fit_point *pt = &out->point;
    s.engine = pt->engine;
    if (pt->tp) s.tp = pt->tp;
    if (pt->pp) s.pp = pt->pp;
    uint32_t tp = s.tp ? s.tp : 1, pp = s.pp ? s.pp : 1;
    pt->tp = tp;
    pt->pp = pp;
    if (pt->kv_dtype[0]) {
        if (pt->engine == KVP_ENGINE_LLAMACPP) {
            kvp__strlcpy(s.type_k, pt->kv_dtype, sizeof s.type_k);
            kvp__strlcpy(s.type_v, pt->kv_dtype, sizeof s.type_v);
        } else {
            kvp__strlcpy(s.kv_dtype, pt->kv_dtype, sizeof s.kv_dtype);
        }
    }
    const kvp_model_info *info = kvp_model_get_info(env->model);
    uint64_t len = pt->max_seq_len;
    if (pt->engine == KVP_ENGINE_LLAMACPP) {
        uint32_t seqs = pt->sequences ? pt->sequences : (s.n_seq_max ? s.n_seq_max : 1);
        s.n_seq_max = seqs;
        pt->sequences = seqs;
        if (!len) len = s.n_ctx ? s.n_ctx / seqs : info->max_position_embeddings;
        if (!kvp__mul_u64(len, seqs, &s.n_ctx)) {
            out->status = KVP_OVERFLOW;
            kvp__strlcpy(out->message, "n_ctx overflows", sizeof out->message);
            return KVP_OK;
        }
    } else if (len) {
        s.max_model_len = len;
    }
    kvp_error e;
    kvp_error_clear(&e);
    kvp_memory_facts m;
    memset(&m, 0, sizeof m);
    bool have_mem = env->kv_budget_bytes == 0;
    if (have_mem) {
        /* The same memory terms for every engine, so the comparison is fair:
         * what differs is how each engine turns them into a budget. */
        mem_knobs k = {s.max_num_batched_tokens, s.max_num_seqs, true, 0, 0, 0};
        if (pt->engine == KVP_ENGINE_VLLM) {
            /* vLLM profiles a dummy sampler over max_num_seqs rows that also sorts
             * for top-k/top-p (estimate.h), and captures graphs up to max_num_seqs. */
            uint32_t seqs = s.max_num_seqs ? s.max_num_seqs : 256;
            k.cuda_graph_max_batch = seqs;
            k.sampler_rows = seqs;
            k.sampler_bytes_per_logit = 22;
        }
        kvp_status st = memory_terms(env, tp, pp, &k, &m, &e);
        if (st == KVP_NOMEM) return kvp__fail(err, st, NULL, NULL, "%s", e.message);
        if (st != KVP_OK) {
            set_message(out, st, &e);
            return KVP_OK;
        }
        s.total_memory_bytes = m.total_bytes;
        s.weights_bytes = m.weights_bytes;
        s.peak_activation_bytes = m.activation_bytes;
        s.non_torch_bytes = m.non_torch_bytes;
        s.cudagraph_bytes = m.cuda_graph_bytes;
    } else {
        s.kv_budget_bytes = env->kv_budget_bytes;
    }
    report_memory(out, &m, have_mem);
    kvp_policy_result *r = &out->policy;
    kvp_status st = kvp_policy_plan(env->model, &s, r, &e);
    if (st != KVP_OK) {
        if (st == KVP_NOMEM) return kvp__fail(err, st, NULL, NULL, "%s", e.message);
        set_message(out, st, &e);
        return KVP_OK;
    }
    const kvp_engine_report *rep = &r->report;
    if (!pt->kv_dtype[0]) kvp__strlcpy(pt->kv_dtype, r->kv_dtype_name, sizeof pt->kv_dtype);
    pt->max_seq_len = pt->engine == KVP_ENGINE_LLAMACPP ? r->n_ctx_seq : r->max_model_len;
    kvp__strlcpy(out->budget_formula, r->budget_formula, sizeof out->budget_formula);
    out->budget_bytes = r->budget_bytes;
    out->block_tokens = r->block_size;
    for (uint32_t i = 0; i < r->pool_count; i++) {
        uint64_t sum;
        if (kvp__add_u64(out->kv_bytes, r->pools[i].bytes, &sum)) out->kv_bytes = sum;
    }
    uint64_t L = pt->max_seq_len ? pt->max_seq_len : 1;
    switch (pt->engine) {
    case KVP_ENGINE_VLLM: {
        out->tokens = rep->gpu_kv_cache_tokens;
        out->blocks = rep->num_gpu_blocks;
        /* Integral requests only: the log's 2.97x serves two. With one KV
         * cache group the ratio is blocks / blocks per request, done in
         * integers so the boundary is exact; otherwise the engine's ratio. */
        if (r->num_groups <= 1 && r->per_request_blocks)
            out->max_sequences = rep->num_gpu_blocks / r->per_request_blocks;
        else
            out->max_sequences = kvp__double_to_u64(floor(rep->max_concurrency));
        out->batch_limit = s.max_num_seqs ? s.max_num_seqs : 256;
        out->longest_tokens = r->estimated_max_model_len && r->estimated_max_model_len < L
                                  ? r->estimated_max_model_len
                                  : (out->max_sequences >= 1 ? L : 0);
        if (out->max_sequences >= out->batch_limit)
            snprintf(out->binding, sizeof out->binding, "max-num-seqs (%llu)",
                     (unsigned long long)out->batch_limit);
        else
            snprintf(out->binding, sizeof out->binding,
                     "KV budget of pool '%s' (%llu blocks of %u tokens)",
                     r->pool_count ? r->pools[0].name : "kv",
                     (unsigned long long)rep->num_gpu_blocks, r->block_size);
        /* Not one request of L tokens: the longest is below L (vLLM refuses to start). */
        if (out->max_sequences == 0 && out->longest_tokens >= L) out->longest_tokens = L - 1;
        break;
    }
    case KVP_ENGINE_SGLANG: {
        out->tokens = rep->max_total_num_tokens;
        out->blocks = r->block_size ? rep->max_total_num_tokens / r->block_size : 0;
        out->max_sequences = rep->max_total_num_tokens / L;
        out->batch_limit = rep->max_running_requests;
        out->longest_tokens = rep->max_total_num_tokens;
        if (r->mamba_cache_size && r->mamba_cache_size < out->max_sequences &&
            r->mamba_cache_size <= out->batch_limit) {
            out->max_sequences = r->mamba_cache_size;
            snprintf(out->binding, sizeof out->binding, "recurrent slots (%llu mamba states)",
                     (unsigned long long)r->mamba_cache_size);
        } else if (out->batch_limit && out->max_sequences >= out->batch_limit) {
            snprintf(out->binding, sizeof out->binding, "max running requests (%llu)",
                     (unsigned long long)out->batch_limit);
        } else {
            snprintf(out->binding, sizeof out->binding,
                     "KV budget of pool '%s' (max_total_num_tokens %llu)",
                     r->pool_count ? r->pools[0].name : "kv",
                     (unsigned long long)rep->max_total_num_tokens);
        }
        break;
    }
    case KVP_ENGINE_LLAMACPP: {
        /* llama.cpp allocates what it is asked for: the question is whether
         * weights + KV + compute fit the device. */
        out->tokens = rep->cells;
        out->blocks = rep->cells;
        out->block_tokens = 1; /* one cell per token */
        out->max_sequences = r->n_seq_max;
        out->batch_limit = r->n_seq_max;
        out->longest_tokens = r->n_ctx_seq;
        kvp__strlcpy(out->budget_formula,
                     "none: llama.cpp allocates what --ctx-size and --parallel ask for",
                     sizeof out->budget_formula);
        if (have_mem) {
            uint64_t fixed = 0, need = 0;
            bool ok = kvp__add_u64(m.weights_bytes, m.activation_bytes, &fixed) &&
                      kvp__add_u64(fixed, out->runtime_bytes, &fixed) &&
                      kvp__add_u64(fixed, out->kv_bytes, &need);
            out->budget_bytes = ok && m.total_bytes > fixed ? m.total_bytes - fixed : 0;
            kvp__strlcpy(out->budget_formula, "total - weights - compute - runtime (llama.cpp "
                                              "allocates the KV it is asked for)",
                         sizeof out->budget_formula);
            if (!ok || need > m.total_bytes) {
                out->status = KVP_INFEASIBLE;
                snprintf(out->message, sizeof out->message,
                         "GPU memory: weights %.2f GiB + KV %.2f GiB + compute and runtime %.2f "
                         "GiB exceed %.2f GiB",
                         (double)m.weights_bytes / 1073741824.0,
                         (double)out->kv_bytes / 1073741824.0,
                         (double)(m.activation_bytes + out->runtime_bytes) / 1073741824.0,
                         (double)m.total_bytes / 1073741824.0);
                return KVP_OK;
            }
        }
        snprintf(out->binding, sizeof out->binding, "--parallel slots (%u)", r->n_seq_max);
        break;
    }
    default: break;
    }
    out->status = KVP_OK;
    return KVP_OK;
}

kvp_status kvp_fit_evaluate(const kvp_fit_env *env, const kvp_fit_point *point, kvp_fit_eval *out,
                            kvp_error *err) {
    if (!env || !env->model || !point || !out)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "fit evaluation needs a model and a point");
    memset(out, 0, sizeof *out);
    out->point = *point;
    if (!env->kv_budget_bytes && !env->gpu_total_bytes)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "--gpu",
                         "no memory to plan from: give --gpu NAME, --gpu-mem BYTES or "
                         "--kv-budget BYTES");
    if (point->engine == KVP_ENGINE_TRTLLM) return eval_trtllm(env, out, err);
    if (point->engine >= KVP_ENGINE_COUNT)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "--policy", "unknown engine %d",
                         (int)point->engine);
    return eval_policy(env, out, err);
}

bool kvp_fit_serves(const kvp_fit_eval *e, uint64_t concurrency, char *why, size_t why_size) {
    if (concurrency == 0) concurrency = 1;
    if (e->status != KVP_OK) {
        snprintf(why, why_size, "%s", e->message);
        return false;
    }
    uint64_t L = e->point.max_seq_len;
    if (e->longest_tokens < L) {
        snprintf(why, why_size,
                 "one sequence does not fit: the KV cache holds at most %llu tokens of one "
                 "sequence",
                 (unsigned long long)e->longest_tokens);
        return false;
    }
    if (e->max_sequences < concurrency) {
        snprintf(why, why_size, "%s", e->binding);
        return false;
    }
    if (e->batch_limit && e->batch_limit < concurrency) {
        snprintf(why, why_size, "%s", e->binding[0] ? e->binding : "batch limit");
        return false;
    }
    return true;
}
