/* fit_solve.c — `kvplan fit`: solve for the one setting left free
 * (include/kvplan/fit.h). Lengths and counts by bisection over the planner
 * (kvp_fit_search_max); tp / dtype by walking the candidates in order. Each
 * answer carries the plan at the answer and why one step further fails. */
#include <stdio.h>
#include <string.h>

#include "engine_ops.h"
#include "fit_internal.h"
#include "util.h"

#define SEQ_LEN_FALLBACK_HI (1ull << 20)
#define CONCURRENCY_HI (1ull << 24)

const char *kvp_fit_target_name(kvp_fit_target target) {
    switch (target) {
    case KVP_FIT_MAX_SEQ_LEN: return "max_seq_len";
    case KVP_FIT_CONCURRENCY: return "concurrency";
    case KVP_FIT_PARALLEL: return "tp";
    case KVP_FIT_KV_DTYPE: return "kv_dtype";
    default: return "unknown";
    }
}

/* The engine's record (engine_ops.h); the default engine's outside the list. */
static const kvp__engine_ops *ops_of(kvp_engine engine) {
    const kvp__engine_ops *ops = kvp__engine_ops_of(engine);
    return ops ? ops : kvp__engine_ops_of((kvp_engine)0);
}

/* The sequences are a setting of the plan where the cache is split into fixed
 * slots at start-up (llama.cpp --parallel: n_ctx = length x slots). */
static bool fixed_slots(kvp_engine engine) { return ops_of(engine)->fixed_slots; }

/* An engine that sizes recurrent state for max_batch_size slots up front
 * (TensorRT-LLM): a fit for N sequences deploys max_batch_size = N unless the
 * user set it. */
static bool batch_follows_concurrency(const kvp_fit_env *env, const kvp_fit_point *p) {
    if (!ops_of(p->engine)->state_sized_for_batch || env->trtllm.max_batch_size ||
        p->max_batch_size)
        return false;
    for (size_t i = 0; i < kvp_model_cache_count(env->model); i++)
        if (kvp_model_cache(env->model, i)->kind == KVP_CACHE_RECURRENT) return true;
    return false;
}

/* One point of a solve planned inside the solve's run (fit_internal.h) into
 * `e`, and whether it serves `conc` sequences (why not into why). */
static kvp_status evaluate(const kvp_fit_env *env, kvp__deploy_run *run, const kvp_fit_point *p,
                           uint64_t conc, kvp_fit_eval *e, bool *serves, char *why, size_t n,
                           kvp_error *err) {
    kvp_status st = kvp__fit_evaluate_in(run, env, p, e, err);
    if (st != KVP_OK) return st;
    *serves = kvp_fit_serves(e, conc, why, n);
    return KVP_OK;
}

typedef struct search_ctx {
    const kvp_fit_env *env;
    kvp__deploy_run *run;      /* the solve's (borrowed) */
    kvp_fit_point point;
    uint64_t concurrency;
    kvp_fit_eval scratch;      /* evaluation of the last probe */
    bool cached;               /* CONCURRENCY: one plan answers every probe */
} search_ctx;

/* MAX_SEQ_LEN probe: plan at length L, serve `concurrency` sequences. */
static kvp_status probe_len(uint64_t L, void *vctx, bool *fits, char *why, size_t n,
                            kvp_error *err) {
    search_ctx *c = vctx;
    kvp_fit_point p = c->point;
    p.max_seq_len = L;
    if (fixed_slots(p.engine)) p.sequences = (uint32_t)c->concurrency;
    if (batch_follows_concurrency(c->env, &c->point)) p.max_batch_size = c->concurrency;
    return evaluate(c->env, c->run, &p, c->concurrency, &c->scratch, fits, why, n, err);
}

/* CONCURRENCY probe: N sequences at the point's length. The plan does not
 * depend on N except for llama.cpp (n_ctx = length * N). */
static kvp_status probe_count(uint64_t N, void *vctx, bool *fits, char *why, size_t n,
                              kvp_error *err) {
    search_ctx *c = vctx;
    bool per_n = batch_follows_concurrency(c->env, &c->point);
    if (fixed_slots(c->point.engine) || per_n) {
        kvp_fit_point p = c->point;
        if (per_n)
            p.max_batch_size = N;
        else
            p.sequences = (uint32_t)N;
        return evaluate(c->env, c->run, &p, N, &c->scratch, fits, why, n, err);
    }
    if (!c->cached) {
        kvp_status st = kvp__fit_evaluate_in(c->run, c->env, &c->point, &c->scratch, err);
        if (st != KVP_OK) return st;
        c->cached = true;
    }
    *fits = kvp_fit_serves(&c->scratch, N, why, n);
    return KVP_OK;
}

/* One candidate of a walk (tp / pp, a dtype): the batch follows the
 * concurrency where TensorRT-LLM sizes recurrent slots by it; planned and
 * counted in out->evaluations. */
static kvp_status candidate(const kvp_fit_env *env, kvp__deploy_run *run, kvp_fit_point p,
                            uint64_t conc, kvp_fit_eval *e, kvp_fit_answer *out, bool *serves,
                            char *why, size_t n, kvp_error *err) {
    if (batch_follows_concurrency(env, &p)) p.max_batch_size = conc;
    kvp_status st = evaluate(env, run, &p, conc, e, serves, why, n, err);
    if (st == KVP_OK) out->evaluations++;
    return st;
}

static void describe_eval(const kvp_fit_eval *e, char *buf, size_t n) {
    if (e->status != KVP_OK)
        snprintf(buf, n, "%s", e->message);
    else
        snprintf(buf, n, "tp %u, pp %u, kv %s, max_seq_len %llu: %llu sequences at once, one "
                         "sequence up to %llu tokens",
                 e->point.tp, e->point.pp, e->point.kv_dtype,
                 (unsigned long long)e->point.max_seq_len,
                 (unsigned long long)e->max_sequences,
                 (unsigned long long)(e->longest_tokens == UINT64_MAX ? 0 : e->longest_tokens));
}

/* A search over `req`'s base point inside `run` (NULL when out of memory;
 * free with kvp__free(kvp_deployment_allocator(env), ...)). */
static search_ctx *search_new(const kvp_fit_env *env, kvp__deploy_run *run,
                              const kvp_fit_request *req) {
    search_ctx *c = kvp__calloc(kvp_deployment_allocator(env), 1, sizeof *c);
    if (!c) return NULL;
    c->env = env;
    c->run = run;
    c->point = req->base;
    return c;
}

/* What a bisection found, into the answer (the limit is the caller's to say). */
static void take_search(kvp_fit_answer *out, const kvp_fit_search *s) {
    out->found = s->found;
    out->evaluations = s->evaluations;
    out->at_search_bound = s->at_upper_bound;
    if (!s->found) return;
    out->value = s->value;
    snprintf(out->value_text, sizeof out->value_text, "%llu", (unsigned long long)s->value);
}

/* The plan at the answer `v` (the probe again: the search's last probe may be
 * one step further) into out->at. */
static kvp_status plan_at(kvp_fit_fn probe, search_ctx *c, uint64_t v, kvp_fit_answer *out,
                          kvp_error *err) {
    bool again = false;
    char why_again[KVP_FIT_REASON_MAX];
    kvp_status st = probe(v, c, &again, why_again, sizeof why_again, err);
    if (st == KVP_OK) out->at = c->scratch;
    return st;
}

static kvp_status solve_len(const kvp_fit_env *env, kvp__deploy_run *run,
                            const kvp_fit_request *req, kvp_fit_answer *out, kvp_error *err) {
    const kvp_model_info *info = kvp_model_get_info(env->model);
    uint64_t lo = req->seq_len_lo ? req->seq_len_lo : 1;
    uint64_t hi = req->seq_len_hi ? req->seq_len_hi
                                  : info->max_position_embeddings ? info->max_position_embeddings
                                                                  : SEQ_LEN_FALLBACK_HI;
    if (lo > hi)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "max_seq_len",
                         "the length range is empty: %llu > %llu", (unsigned long long)lo,
                         (unsigned long long)hi);
    search_ctx *c = search_new(env, run, req);
    if (!c) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
    c->concurrency = req->concurrency ? req->concurrency : 1;
    kvp_fit_search s;
    kvp_status st = kvp_fit_search_max(lo, hi, probe_len, c, &s, err);
    if (st == KVP_OK) {
        take_search(out, &s);
        if (s.found) {
            if (s.at_upper_bound)
                snprintf(out->limited_by, sizeof out->limited_by,
                         "the search bound: max_seq_len %llu (the model's "
                         "max_position_embeddings or --max-seq-len-limit)",
                         (unsigned long long)hi);
            else
                kvp__strlcpy(out->limited_by, s.limited_by, sizeof out->limited_by);
            st = plan_at(probe_len, c, s.value, out, err);
        } else {
            kvp__strlcpy(out->limited_by, s.limited_by, sizeof out->limited_by);
            out->at = c->scratch;
            if (c->concurrency > 1) {
                /* The best that can be done: serve fewer at once. */
                c->concurrency = 1;
                kvp_fit_search one;
                st = kvp_fit_search_max(lo, hi, probe_len, c, &one, err);
                out->evaluations += one.evaluations;
                if (st == KVP_OK && one.found)
                    snprintf(out->best, sizeof out->best,
                             "one sequence at a time fits up to max_seq_len %llu",
                             (unsigned long long)one.value);
            }
            if (!out->best[0])
                snprintf(out->best, sizeof out->best,
                         "nothing fits even at max_seq_len %llu%s", (unsigned long long)lo,
                         ops_of(req->base.engine)->fit_solves_tp
                             ? ": more GPUs may (kvplan fit ... --gpus N solves for tp)"
                             : "");
        }
    }
    kvp__free(kvp_deployment_allocator(env), c);
    return st;
}

static kvp_status solve_count(const kvp_fit_env *env, kvp__deploy_run *run,
                              const kvp_fit_request *req, kvp_fit_answer *out, kvp_error *err) {
    search_ctx *c = search_new(env, run, req);
    if (!c) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
    /* Fixed slots: at most the engine's slot count (its record's max_slots). */
    uint64_t hi = fixed_slots(req->base.engine) ? ops_of(req->base.engine)->max_slots
                                                : CONCURRENCY_HI;
    kvp_fit_search s;
    kvp_status st = kvp_fit_search_max(1, hi, probe_count, c, &s, err);
    if (st == KVP_OK) {
        take_search(out, &s);
        if (s.found) {
            kvp__strlcpy(out->limited_by,
                         s.at_upper_bound ? "the search bound" : s.limited_by,
                         sizeof out->limited_by);
            st = plan_at(probe_count, c, s.value, out, err);
        } else {
            kvp__strlcpy(out->limited_by, s.limited_by, sizeof out->limited_by);
            out->at = c->scratch;
            if (c->scratch.status == KVP_OK && c->scratch.longest_tokens &&
                c->scratch.longest_tokens != UINT64_MAX)
                snprintf(out->best, sizeof out->best,
                         "one sequence fits up to %llu tokens: lower --max-seq-len to that or "
                         "below",
                         (unsigned long long)c->scratch.longest_tokens);
            else
                snprintf(out->best, sizeof out->best, "no sequence fits: %s", s.limited_by);
        }
    }
    kvp__free(kvp_deployment_allocator(env), c);
    return st;
}

/* PARALLEL: fewest GPUs first; at equal GPUs, more tensor parallelism. */
static kvp_status solve_parallel(const kvp_fit_env *env, kvp__deploy_run *run,
                                 const kvp_fit_request *req, kvp_fit_answer *out, kvp_error *err) {
    uint32_t gpus = req->gpus ? req->gpus : 8;
    uint64_t conc = req->concurrency ? req->concurrency : 1;
    kvp_fit_eval *e = kvp__calloc(kvp_deployment_allocator(env), 1, sizeof *e);
    if (!e) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
    char prev_why[KVP_FIT_REASON_MAX] = "";
    char prev_name[32] = "";
    bool any = false;
    for (uint32_t total = 1; total <= gpus && !out->found; total *= 2) {
        for (uint32_t tp = total; tp >= 1 && !out->found; tp /= 2) {
            uint32_t pp = total / tp;
            if (pp > 1 && !req->allow_pp) continue;
            kvp_fit_point p = req->base;
            p.tp = tp;
            p.pp = pp;
            char why[KVP_FIT_REASON_MAX];
            bool serves = false;
            kvp_status st = candidate(env, run, p, conc, e, out, &serves, why, sizeof why, err);
            if (st != KVP_OK) {
                kvp__free(kvp_deployment_allocator(env), e);
                return st;
            }
            if (serves) {
                out->found = true;
                out->value = tp;
                snprintf(out->value_text, sizeof out->value_text, "tp %u pp %u", tp, pp);
                out->at = *e;
                if (prev_name[0])
                    snprintf(out->limited_by, sizeof out->limited_by, "%s: %s", prev_name,
                             prev_why);
                else
                    snprintf(out->limited_by, sizeof out->limited_by,
                             "nothing: the smallest setting fits");
            } else {
                snprintf(prev_name, sizeof prev_name, "tp %u pp %u", tp, pp);
                kvp__strlcpy(prev_why, why, sizeof prev_why);
                out->at = *e;
                any = true;
            }
            if (tp == 1) break;
        }
    }
    if (!out->found) {
        snprintf(out->limited_by, sizeof out->limited_by, "%s: %s", prev_name, prev_why);
        char d[KVP_FIT_REASON_MAX];
        describe_eval(&out->at, d, sizeof d);
        snprintf(out->best, sizeof out->best, "the most parallel setting on %u GPUs: %s", gpus,
                 any ? d : "no candidate");
    }
    kvp__free(kvp_deployment_allocator(env), e);
    return KVP_OK;
}

static kvp_status solve_dtype(const kvp_fit_env *env, kvp__deploy_run *run,
                              const kvp_fit_request *req, kvp_fit_answer *out, kvp_error *err) {
    const char *const *list = req->dtypes;
    size_t count = req->dtype_count;
    if (!list || !count) {
        /* The engine's own KV dtypes, in its spellings (its record). */
        list = ops_of(req->base.engine)->fit_kv_dtypes;
        for (count = 0; list[count]; count++) {}
    }
    uint64_t conc = req->concurrency ? req->concurrency : 1;
    kvp_fit_eval *e = kvp__calloc(kvp_deployment_allocator(env), 1, sizeof *e);
    if (!e) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
    char prev_why[KVP_FIT_REASON_MAX] = "", prev[32] = "";
    for (size_t i = 0; i < count && !out->found; i++) {
        kvp_fit_point p = req->base;
        kvp__strlcpy(p.kv_dtype, list[i], sizeof p.kv_dtype);
        if (fixed_slots(p.engine) && conc > 1) p.sequences = (uint32_t)conc;
        char why[KVP_FIT_REASON_MAX];
        bool serves = false;
        kvp_status st = candidate(env, run, p, conc, e, out, &serves, why, sizeof why, err);
        if (st != KVP_OK) {
            kvp__free(kvp_deployment_allocator(env), e);
            return st;
        }
        out->at = *e;
        if (serves) {
            out->found = true;
            out->value = i;
            kvp__strlcpy(out->value_text, list[i], sizeof out->value_text);
            if (prev[0])
                snprintf(out->limited_by, sizeof out->limited_by, "kv dtype %s: %s", prev,
                         prev_why);
            else
                snprintf(out->limited_by, sizeof out->limited_by,
                         "nothing: the widest dtype fits");
        } else {
            kvp__strlcpy(prev, list[i], sizeof prev);
            kvp__strlcpy(prev_why, why, sizeof prev_why);
        }
    }
    if (!out->found) {
        snprintf(out->limited_by, sizeof out->limited_by, "kv dtype %s: %s", prev, prev_why);
        char d[KVP_FIT_REASON_MAX];
        describe_eval(&out->at, d, sizeof d);
        snprintf(out->best, sizeof out->best, "the narrowest dtype gives %s", d);
    }
    kvp__free(kvp_deployment_allocator(env), e);
    return KVP_OK;
}

kvp_status kvp_fit_solve(const kvp_fit_env *env, const kvp_fit_request *req, kvp_fit_answer *out,
                         kvp_error *err) {
    if (!env || !env->model || !req || !out)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "fit needs a model and a request");
    memset(out, 0, sizeof *out);
    out->solved_for = req->solve_for;
    /* Every step of the solve in one pipeline run: a bisection's lengths share
     * the memory estimate (fit_internal.h), every number as planned alone. */
    kvp__deploy_run *run = kvp__deploy_run_new(kvp_deployment_allocator(env));
    if (!run) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
    kvp_status st;
    switch (req->solve_for) {
    case KVP_FIT_MAX_SEQ_LEN: st = solve_len(env, run, req, out, err); break;
    case KVP_FIT_CONCURRENCY: st = solve_count(env, run, req, out, err); break;
    case KVP_FIT_PARALLEL: st = solve_parallel(env, run, req, out, err); break;
    case KVP_FIT_KV_DTYPE: st = solve_dtype(env, run, req, out, err); break;
    default:
        st = kvp__fail(err, KVP_INVALID_ARG, NULL, "solve_for", "unknown fit target %d",
                       (int)req->solve_for);
        break;
    }
    kvp__deploy_run_free(run);
    return st;
}
