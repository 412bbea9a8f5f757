/* admission.c — how many requests an engine runs at once, by its own rule
 * (docs/admission.md, /work/shared/reference/ADMISSION.md):
 *
 *   TensorRT-LLM GUARANTEED_NO_EVICT (capacityScheduler.cpp): a request is
 *     admitted only if the blocks it needs to finish fit in what the running
 *     requests have not claimed (KVCacheManager::getRemainingBlocksToCompletion),
 *     first come first served; so N requests of one shape run at once when N
 *     reservations fit every pool.
 *   TensorRT-LLM MAX_UTILIZATION, vLLM, SGLang: nothing is reserved; blocks are
 *     taken as tokens arrive and requests are paused / preempted / retracted when
 *     the pool runs dry, so what runs at once is the steady state of the held
 *     blocks (kvp__steady_state), or, without a workload, the log's figure.
 *   The scheduler caps all of it: TRT-LLM max_batch_size x pp, vLLM max_num_seqs,
 *     SGLang max_running_requests, llama.cpp --parallel.
 *
 * Library code: no printing; problems go to out->status / message / key. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "admission.h"
#include "engine_ops.h"
#include "util.h"
#include "plan_rules.h"

const char *kvp_capacity_policy_name(kvp_capacity_policy policy) {
    switch (policy) {
    case KVP_CAPACITY_GUARANTEED_NO_EVICT: return "GUARANTEED_NO_EVICT";
    case KVP_CAPACITY_MAX_UTILIZATION: return "MAX_UTILIZATION";
    default: return "default";
    }
}

kvp_status kvp_capacity_policy_parse(const char *text, kvp_capacity_policy *out, kvp_error *err) {
    if (text && kvp__strcasecmp(text, "GUARANTEED_NO_EVICT") == 0) {
        *out = KVP_CAPACITY_GUARANTEED_NO_EVICT;
        return KVP_OK;
    }
    if (text && kvp__strcasecmp(text, "MAX_UTILIZATION") == 0) {
        *out = KVP_CAPACITY_MAX_UTILIZATION;
        return KVP_OK;
    }
    return kvp__fail(err, KVP_INVALID_ARG, NULL, "capacity_scheduler_policy",
                     "capacity_scheduler_policy: '%s' is not a TensorRT-LLM policy; expected "
                     "GUARANTEED_NO_EVICT or MAX_UTILIZATION",
                     text ? text : "");
}

/* ------------------------------------------------------------ arithmetic */

bool kvp__reserve_blocks(uint64_t prompt, uint64_t total, uint64_t window, uint32_t tpb,
                         uint32_t beam, uint64_t *out) {
    if (tpb == 0 || total < prompt) return false;
    uint64_t w = window ? window : UINT64_MAX;
    /* Full context blocks are shared by the beams; the partial one and the
     * generated part are per beam. */
    uint64_t ctx = (prompt < w ? prompt : w) / tpb;
    uint64_t all = kvp__ceil_div_u64(total < w ? total : w, tpb);
    uint64_t gen;
    return kvp__mul_u64(all - ctx, beam ? beam : 1u, &gen) && kvp__add_u64(ctx, gen, out);
}

/* sum_{x=1}^{n} ceil(x / t): with n = q t + r, t (1 + ... + q) + r (q + 1). */
static bool ceil_prefix_sum(uint64_t n, uint64_t t, uint64_t *out) {
    uint64_t q = n / t, r = n % t, a, b, c;
    /* q (q + 1) / 2 without overflowing first: halve the even factor. */
    uint64_t q1 = q + 1;
    if (q % 2 == 0) a = q / 2, b = q1;
    else a = q, b = q1 / 2;
    return kvp__mul_u64(a, b, &c) && kvp__mul_u64(c, t, &c) && kvp__mul_u64(r, q1, &a) &&
           kvp__add_u64(c, a, out);
}

/* sum_{x=1}^{n} ceil(min(x, W) / t). */
static bool capped_prefix_sum(uint64_t n, uint64_t w, uint64_t t, uint64_t *out) {
    if (!w || n <= w) return ceil_prefix_sum(n, t, out);
    uint64_t head, tail;
    return ceil_prefix_sum(w, t, &head) && kvp__mul_u64(n - w, kvp__ceil_div_u64(w, t), &tail) &&
           kvp__add_u64(head, tail, out);
}

bool kvp__held_block_steps(uint64_t first, uint64_t last, uint64_t window, uint32_t tpb,
                           uint64_t *out) {
    if (tpb == 0 || first > last || first == 0) return false;
    uint64_t hi, lo;
    if (!capped_prefix_sum(last, window, tpb, &hi) ||
        !capped_prefix_sum(first - 1, window, tpb, &lo))
        return false;
    *out = hi - lo;
    return true;
}

bool kvp__steady_state(uint64_t blocks, uint64_t prompt, uint64_t output, uint64_t window,
                       uint32_t tpb, uint64_t *out) {
    /* A request holds P + k tokens at step k = 0 .. O - 1 (the last sampled token is
     * never written): O steps, sum of ceil(min(P + k, W) / tpb) blocks over them. */
    if (output == 0 || prompt == 0) return false;
    uint64_t last, steps, num;
    if (!kvp__add_u64(prompt, output - 1, &last)) return false;
    if (!kvp__held_block_steps(prompt, last, window, tpb, &steps)) return false;
    if (steps == 0) {
        *out = UINT64_MAX;
        return true;
    }
    if (!kvp__mul_u64(blocks, output, &num)) return false;
    *out = num / steps;
    return true;
}

/* --------------------------------------------------------------- helpers */

static void set_text(char *dst, size_t n, const char *fmt, ...) KVP_PRINTF(3, 4);
static void set_text(char *dst, size_t n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, n, fmt, ap);
    va_end(ap);
}

static void refuse(kvp_deploy_result *out, kvp_status st, const char *key, const char *fmt, ...)
    KVP_PRINTF(4, 5);
static void refuse(kvp_deploy_result *out, kvp_status st, const char *key, const char *fmt, ...) {
    /* The deployment is planned; it is the request that is refused. */
    kvp_admission *ad = &out->admission;
    ad->status = st;
    ad->present = false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ad->refused, sizeof ad->refused, fmt, ap);
    va_end(ap);
    kvp__strlcpy(ad->key, key, sizeof ad->key);
}

#define ULL(x) ((unsigned long long)(x))

/* The request's shape against the engine's max_seq_len: the engines reject a
 * prompt longer than it and a prompt + max_tokens past it (TRT-LLM
 * _check_arguments, vLLM's and SGLang's OpenAI servers). */
static bool check_shape(const kvp_admission_settings *a, uint64_t max_len, kvp_deploy_result *out) {
    if (a->isl > max_len) {
        refuse(out, KVP_INVALID_ARG, "isl",
               "isl: a prompt of %llu tokens is longer than max_seq_len %llu; the engine "
               "rejects it",
               ULL(a->isl), ULL(max_len));
        return false;
    }
    /* The default max_new_tokens is max_seq_len - prompt: a prompt filling the whole
     * length leaves 0, a request that may generate nothing, which the OpenAI servers
     * refuse (vLLM's SamplingParams: max_tokens must be at least 1). It reached the
     * steady-state arithmetic as "overflows 64 bits" (issue 17: unclear errors). */
    if (a->isl && a->isl == max_len && !a->max_new_tokens && !a->osl) {
        refuse(out, KVP_INVALID_ARG, "isl",
               "isl: a prompt of %llu tokens fills max_seq_len %llu, leaving no output token "
               "(the default max_new_tokens, max_seq_len - prompt, is 0); give a shorter "
               "prompt or a longer max_seq_len",
               ULL(a->isl), ULL(max_len));
        return false;
    }
    if (a->max_new_tokens > max_len) {
        refuse(out, KVP_INVALID_ARG, "max_new_tokens",
               "max_new_tokens: %llu is above max_seq_len %llu", ULL(a->max_new_tokens),
               ULL(max_len));
        return false;
    }
    if (a->max_new_tokens && a->isl + a->max_new_tokens > max_len) {
        refuse(out, KVP_INVALID_ARG, "max_new_tokens",
               "max_new_tokens: prompt %llu + max_new_tokens %llu = %llu is above max_seq_len "
               "%llu; the engine rejects the request",
               ULL(a->isl), ULL(a->max_new_tokens), ULL(a->isl + a->max_new_tokens),
               ULL(max_len));
        return false;
    }
    if (a->osl && a->max_new_tokens && a->osl > a->max_new_tokens) {
        refuse(out, KVP_INVALID_ARG, "osl",
               "osl: %llu output tokens are more than max_new_tokens %llu lets a request "
               "generate",
               ULL(a->osl), ULL(a->max_new_tokens));
        return false;
    }
    if (a->osl && a->isl + a->osl > max_len) {
        refuse(out, KVP_INVALID_ARG, "osl",
               "osl: prompt %llu + output %llu = %llu is above max_seq_len %llu", ULL(a->isl),
               ULL(a->osl), ULL(a->isl + a->osl), ULL(max_len));
        return false;
    }
    return true;
}

/* Prompt, max_new_tokens and real output of one request at max_len. */
static void shape(const kvp_admission_settings *a, uint64_t max_len, kvp_admission *ad) {
    ad->prompt_tokens = a->isl;
    ad->max_new_tokens_default = a->max_new_tokens == 0;
    ad->max_new_tokens = a->max_new_tokens ? a->max_new_tokens : max_len - a->isl;
    ad->output_tokens = a->osl ? a->osl : ad->max_new_tokens;
}

static void no_reservation_text(kvp_admission *ad, uint64_t max_len) {
    if (ad->has_steady_state)
        set_text(ad->reservation, sizeof ad->reservation,
                 "none reserved; requests of %llu prompt + %llu output tokens hold %llu to %llu "
                 "tokens, staggered (steady state)",
                 ULL(ad->prompt_tokens), ULL(ad->output_tokens), ULL(ad->prompt_tokens),
                 ULL(ad->prompt_tokens + ad->output_tokens - 1));
    else
        set_text(ad->reservation, sizeof ad->reservation,
                 "none reserved; each request counted at %llu tokens (give --isl for the steady "
                 "state of a workload)",
                 ULL(max_len));
}

/* Apply the scheduler cap and say what binds. */
static void cap(kvp_admission *ad, const char *cap_name) {
    ad->admitted = ad->kv_admitted;
    ad->cap_binds = false;
    if (ad->scheduler_capacity && ad->kv_admitted >= ad->scheduler_capacity) {
        ad->admitted = ad->scheduler_capacity;
        ad->cap_binds = true;
        set_text(ad->binding, sizeof ad->binding, "%s (%llu), not the KV cache", cap_name,
                 ULL(ad->scheduler_capacity));
    }
    ad->present = true;
}

/* ---------------------------------------------------------- TensorRT-LLM */

/* The block pools of a plan that grow with tokens, every manager in turn: *role
 * and *index start at 0; NULL after the last. Pools sized per slot (recurrent
 * state, V2 window pools) hold max_batch_size by construction and are skipped:
 * the slot cap covers them. */
static const kvp_plan_pool *next_pool(const kvp_plan *plan, int *role, uint32_t *index,
                                      const kvp_manager_plan **manager) {
    for (; *role < KVP_ROLE_COUNT; (*role)++, *index = 0) {
        const kvp_manager_plan *mp = &plan->managers[*role];
        while (mp->present && *index < mp->pool_count) {
            const kvp_plan_pool *p = &mp->pools[(*index)++];
            if (p->in_intercept || p->tokens_per_block == 0) continue;
            *manager = mp;
            return p;
        }
    }
    return NULL;
}

/* Requests the plan's pools admit when each reserves `total` tokens of which
 * `prompt` are context; the binding pool's blocks per request. */
static bool trtllm_reserved(const kvp_plan *plan, uint64_t prompt, uint64_t total, uint32_t beam,
                            uint64_t *count, uint64_t *per_request, char *why, size_t why_n) {
    uint64_t best = UINT64_MAX, best_per = 0;
    int role = 0;
    uint32_t index = 0;
    const kvp_manager_plan *mp = NULL;
    for (const kvp_plan_pool *p; (p = next_pool(plan, &role, &index, &mp));) {
        uint64_t need;
        if (p->kind == KVP_CACHE_CROSS) {
            /* The encoder output, once per request (the cross manager has beam 1). */
            need = kvp__ceil_div_u64(p->window_tokens, p->tokens_per_block);
        } else if (!kvp__reserve_blocks(prompt, total, p->window_tokens, p->tokens_per_block,
                                        beam, &need)) {
            return false;
        }
        if (need == 0 || p->blocks / need >= best) continue;
        best = p->blocks / need;
        best_per = need;
        if (why)
            set_text(why, why_n, "%s %s pool: %llu blocks // %llu reserved per request",
                     kvp_manager_role_name(mp->role), kvp_cache_kind_name(p->kind),
                     ULL(p->blocks), ULL(need));
    }
    *count = best;
    *per_request = best_per;
    return true;
}

/* The largest reservation (tokens) one request can hold: a bisection on the
 * exact per-pool rule, between the prompt and `hi`. */
static uint64_t largest_fitting(const kvp_plan *plan, uint64_t prompt, uint64_t hi, uint32_t beam) {
    uint64_t lo = prompt, n, per;
    if (!trtllm_reserved(plan, prompt, lo, beam, &n, &per, NULL, 0) || n == 0) return 0;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2;
        if (trtllm_reserved(plan, prompt, mid, beam, &n, &per, NULL, 0) && n >= 1)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Requests of the workload the pools hold at once without reservation: the
 * smallest steady state over the per-token pools. */
static bool trtllm_steady(const kvp_plan *plan, uint64_t prompt, uint64_t output, uint64_t *count) {
    uint64_t best = UINT64_MAX, n;
    int role = 0;
    uint32_t index = 0;
    const kvp_manager_plan *mp = NULL;
    for (const kvp_plan_pool *p; (p = next_pool(plan, &role, &index, &mp));) {
        if (p->kind == KVP_CACHE_CROSS) continue; /* the encoder's, fixed per request */
        if (!kvp__steady_state(p->blocks, prompt, output, p->window_tokens, p->tokens_per_block,
                               &n))
            return false;
        if (n < best) best = n;
    }
    *count = best;
    return true;
}

static bool has_kind(const kvp_plan *plan, kvp_cache_kind kind) {
    for (int r = 0; r < KVP_ROLE_COUNT; r++)
        for (uint32_t i = 0; plan->managers[r].present && i < plan->managers[r].pool_count; i++)
            if (plan->managers[r].pools[i].kind == kind) return true;
    return false;
}

static void admit_trtllm(const kvp_deployment *dep, kvp_deploy_result *out) {
    kvp_admission *ad = &out->admission;
    const kvp_admission_settings *a = &dep->admission;
    const kvp_deploy_settings *d = &out->trtllm;
    uint64_t asked = d->max_seq_len, run = out->engine_max_seq_len;
    if (!check_shape(a, asked, out)) return;
    uint32_t beam = d->max_beam_width ? d->max_beam_width : 1;
    uint32_t pp = d->pp ? d->pp : 1;
    const kvp_manager_plan *t = &out->plan.managers[KVP_ROLE_TARGET];
    bool v2 = kvp_manager_is_v2(t->kind), hybrid = has_kind(&out->plan, KVP_CACHE_RECURRENT);
    /* create_py_executor_instance: scheduler_capacity = max_batch_size x pp_size, + 1
     * when that is 1 under attention DP. compute_max_num_sequences sizes the slot
     * pool, doubled by the overlap headroom only under attention DP, no PP, overlap
     * on, the V2 manager and no hybrid model (should_enable_overlap_headroom); the
     * slot pool is never below the scheduler's capacity, so it never binds. */
    uint64_t capacity = out->batch_limit;
    if (capacity == 1 && d->attention_dp) capacity = 2;
    ad->scheduler_capacity = capacity;
    ad->seq_slots = kvp_max_num_sequences(d->max_batch_size, pp, d->disable_overlap_scheduler,
                                          d->attention_dp && pp == 1 && v2 && !hybrid);
    ad->policy = dep->admission.policy == KVP_CAPACITY_DEFAULT ? KVP_CAPACITY_GUARANTEED_NO_EVICT
                                                              : dep->admission.policy;
    const char *cap_name = pp > 1 ? "max_batch_size x pp" : "max_batch_size";
    if (ad->policy == KVP_CAPACITY_MAX_UTILIZATION) {
        /* MaxUtilizationScheduler: only the next step must fit; the newest requests
         * are paused when it does not. Nothing is held for the future. */
        set_text(ad->rule, sizeof ad->rule,
                 "TensorRT-LLM MAX_UTILIZATION: admitted while the next step fits, newest "
                 "paused when it does not (capacityScheduler.cpp)");
        shape(a, run, ad);
        if (a->isl) {
            if (!trtllm_steady(&out->plan, ad->prompt_tokens, ad->output_tokens,
                               &ad->steady_state)) {
                refuse(out, KVP_OVERFLOW, "isl", "isl: the steady state overflows 64 bits");
                return;
            }
            ad->has_steady_state = true;
            ad->kv_admitted = ad->steady_state;
            set_text(ad->binding, sizeof ad->binding, "KV cache (steady state)");
        } else {
            ad->kv_admitted = out->max_sequences;
            kvp__strlcpy(ad->binding, out->binding, sizeof ad->binding);
        }
        no_reservation_text(ad, out->point.seq_len);
        cap(ad, cap_name);
        return;
    }
    ad->reserves = true;
    set_text(ad->rule, sizeof ad->rule,
             "TensorRT-LLM GUARANTEED_NO_EVICT: a request is admitted only if every block it "
             "needs to finish fits what the running requests have not claimed; first come, "
             "first served (capacityScheduler.cpp, getRemainingBlocksToCompletion)");
    if (a->max_new_tokens && !a->isl) {
        refuse(out, KVP_INVALID_ARG, "isl",
               "isl: max_new_tokens %llu needs the prompt length (--isl): a request reserves "
               "prompt + max_new_tokens",
               ULL(a->max_new_tokens));
        return;
    }
    if (beam > 1 && !a->isl) {
        /* Context blocks are shared by the beams: the reservation depends on P. */
        set_text(ad->refused, sizeof ad->refused,
                 "beam width %u: a request's reservation depends on its prompt (context blocks "
                 "are shared by the beams); give --isl",
                 beam);
        return;
    }
    /* The server's default (no max_tokens in the request): max_seq_len - prompt, the
     * engine's max_seq_len (the one it adopted when the pools hold less). */
    shape(a, run, ad);
    if (a->isl > run) {
        refuse(out, KVP_INFEASIBLE, "isl",
               "isl: a prompt of %llu tokens can never be admitted: the KV cache holds one "
               "request of at most %llu tokens (the engine starts with max_seq_len %llu)",
               ULL(a->isl), ULL(run), ULL(run));
        return;
    }
    uint64_t spec = 0;
    if (d->spec_mode != KVP_SPEC_NONE) {
        /* The draft tokens and the drafter's extra KV tokens ride on every sequence. */
        uint32_t step = kvp_spec_tokens_per_gen_step(d->spec_mode, d->max_draft_len);
        spec = (uint64_t)(step ? step - 1u : 0u) +
               kvp_spec_extra_kv_tokens(d->spec_mode, d->max_draft_len);
    }
    uint64_t total = ad->prompt_tokens + ad->max_new_tokens + spec;
    ad->reservation_tokens = total;
    if (!trtllm_reserved(&out->plan, ad->prompt_tokens, total, beam, &ad->kv_admitted,
                         &ad->reservation_blocks, ad->binding, sizeof ad->binding)) {
        refuse(out, KVP_OVERFLOW, "max_new_tokens", "max_new_tokens: the reservation overflows");
        return;
    }
    char extra[96] = "";
    if (spec) set_text(extra, sizeof extra, " + %llu speculative tokens", ULL(spec));
    const char *beams = beam > 1 ? "; the generation part once per beam" : "";
    if (!a->isl)
        set_text(ad->reservation, sizeof ad->reservation,
                 "prompt + max_new_tokens = max_seq_len%s = %llu tokens per request, rounded up "
                 "to blocks per pool%s (the OpenAI server fills max_new_tokens = max_seq_len - "
                 "prompt when the client sends none)",
                 extra, ULL(total), beams);
    else
        set_text(ad->reservation, sizeof ad->reservation,
                 "prompt %llu + max_new_tokens %llu (%s)%s = %llu tokens per request, rounded up "
                 "to blocks per pool%s",
                 ULL(ad->prompt_tokens), ULL(ad->max_new_tokens),
                 ad->max_new_tokens_default ? "max_seq_len - prompt, the server's default"
                                            : "given",
                 extra, ULL(total), beams);
    if (ad->kv_admitted == 0 && (a->isl || a->max_new_tokens)) {
        uint64_t fit = largest_fitting(&out->plan, ad->prompt_tokens, total, beam);
        refuse(out, KVP_INFEASIBLE, "max_new_tokens",
               "max_new_tokens: one request reserving %llu tokens can never be admitted (%s); "
               "the largest prompt + max_new_tokens that fits is %llu",
               ULL(total), ad->binding, ULL(fit));
        return;
    }
    if (ad->kv_admitted == 0) {
        /* The server's default reservation plus the speculative tokens: past what one
         * sequence can hold. */
        set_text(ad->refused, sizeof ad->refused,
                 "one request reserving %llu tokens (max_seq_len + speculative tokens) does not "
                 "fit (%s)",
                 ULL(total), ad->binding);
        ad->present = true;
        return;
    }
    if (a->isl && trtllm_steady(&out->plan, ad->prompt_tokens, ad->output_tokens,
                                &ad->steady_state))
        ad->has_steady_state = true;
    cap(ad, cap_name);
}

/* -------------------------------------------------------------- policies */

static void admit_policy(const kvp_deployment *dep, kvp_deploy_result *out) {
    kvp_admission *ad = &out->admission;
    const kvp_admission_settings *a = &dep->admission;
    uint64_t max_len = out->point.max_seq_len;
    if (!check_shape(a, max_len, out)) return;
    if (dep->admission.policy != KVP_CAPACITY_DEFAULT) {
        refuse(out, KVP_INVALID_ARG, "capacity_scheduler_policy",
               "capacity_scheduler_policy: %s is TensorRT-LLM's; %s has no such setting",
               kvp_capacity_policy_name(dep->admission.policy),
               kvp_engine_name(out->point.engine));
        return;
    }
    shape(a, max_len, ad);
    ad->scheduler_capacity = out->batch_limit;
    /* The engine's rule, batch cap and steady-state pool: its record (deploy_<name>.c). */
    const kvp__engine_ops *ops = kvp__engine_ops_of(out->point.engine);
    const char *cap_name = ops->batch_cap_name;
    set_text(ad->rule, sizeof ad->rule, "%s", ops->admission_rule);
    if (ops->fixed_slots) {
        /* Slots allocated at start-up (llama.cpp --parallel: n_ctx_seq cells each). */
        set_text(ad->reservation, sizeof ad->reservation,
                 "a slot of %llu cells per request, whatever its length", ULL(max_len));
        ad->reserves = true;
        ad->reservation_tokens = max_len; /* cells, not blocks: no block line */
        ad->kv_admitted = out->max_sequences;
        kvp__strlcpy(ad->binding, out->binding, sizeof ad->binding);
        cap(ad, cap_name);
        return;
    }
    uint64_t blocks = 0;
    uint32_t tpb = 0;
    bool steady_ok = ops->steady_pool && ops->steady_pool(&out->policy, &blocks, &tpb);
    if (a->isl && steady_ok) {
        if (!kvp__steady_state(blocks, ad->prompt_tokens, ad->output_tokens, 0, tpb,
                               &ad->steady_state)) {
            refuse(out, KVP_OVERFLOW, "isl", "isl: the steady state overflows 64 bits");
            return;
        }
        ad->has_steady_state = true;
        ad->kv_admitted = ad->steady_state;
        set_text(ad->binding, sizeof ad->binding, "KV cache (steady state, %llu blocks of %u tokens)",
                 ULL(blocks), tpb);
    } else if (a->isl) {
        set_text(ad->refused, sizeof ad->refused,
                 "the steady state of several KV cache groups or state pools is not modelled; "
                 "`kvplan sim --policy %s` replays the workload",
                 kvp_engine_name(out->point.engine));
        no_reservation_text(ad, max_len);
        return;
    } else {
        /* The log's figure: every request at max_model_len. */
        ad->kv_admitted = out->max_sequences;
        kvp__strlcpy(ad->binding, out->binding, sizeof ad->binding);
    }
    no_reservation_text(ad, max_len);
    cap(ad, cap_name);
}

void kvp__admission(const kvp_deployment *dep, kvp_deploy_result *out) {
    memset(&out->admission, 0, sizeof out->admission);
    if (out->status != KVP_OK) {
        /* Nothing runs when the deployment does not fit: 0 admitted, and
         * why, rather than an unknown count with an empty reason. */
        out->admission.present = true;
        set_text(out->admission.binding, sizeof out->admission.binding,
                 "the deployment does not fit");
        return;
    }
    if (kvp__engine_ops_of(out->point.engine)->creator_plans)
        admit_trtllm(dep, out);
    else
        admit_policy(dep, out);
}
