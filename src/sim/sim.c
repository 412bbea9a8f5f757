/* sim.c — continuous batching over a kvp_pool (include/kvplan/sim.h).
 *
 * One loop iteration is one scheduler step, shaped after vLLM v1's
 * Scheduler.schedule(): serve running requests in admission order within
 * the token budget, preempting the newest when a block is short; then, if
 * nothing was preempted, admit waiting requests. A request's state is two
 * counters: tokens computed (written to the pool) and tokens generated;
 * it "knows" prompt + generated tokens, and a step that brings computed up
 * to known samples one more token. Preemption resets computed to 0. */
#include <string.h>
#include <time.h>

#include "sim_internal.h"

#define PROGRESS_EVERY_STEPS 4096u

/* A request that arrived and is not running: waiting for its first admission or
 * preempted. It carries everything the simulation needs of it, so requests are
 * read from the workload once, as they arrive, and nothing is kept per request
 * (memory follows the running and preempted requests, not the workload). */
typedef struct waiting {
    uint64_t id;              /* arrival order: the pool sequence's salt is id + 1 */
    uint64_t token_offset;    /* prompt_tokens: where the ids start in the workload */
    uint32_t prompt;
    uint32_t output;          /* output tokens to sample (cut at max_model_len) */
    uint32_t generated;       /* output tokens sampled so far */
    uint32_t explicit_tokens; /* ids known for the first positions */
    uint32_t prefix_index;    /* their ids are the prefix's (0: the workload's prompt_tokens) */
} waiting;

/* A running request: everything a step touches, in one contiguous array so
 * the per-token loop stays in L1. */
typedef struct run_slot {
    waiting q;
    uint32_t seq;        /* pool sequence */
    uint32_t computed;   /* tokens in the pool */
    uint32_t snap_at;    /* recurrent snapshot boundary, 0 = none */
    uint32_t sched;      /* got tokens this step */
} run_slot;

typedef struct sim {
    const kvp_sim_config *cfg;
    const kvp_workload *w;
    kvp_pool *pool;
    kvp_sim_result *res;
    const kvp_allocator *alc;
    run_slot *running;    /* admission order */
    uint32_t nrunning;
    /* The waiting queue: preempted requests (a ring buffer, newest preempted first),
     * then those that arrived and were never admitted, first come first served. The
     * second part is the workload itself up to the current step: `pending` is its
     * head (read and accepted), the rest is read from `cur` when reached. */
    waiting *queue;
    size_t qcap, qhead, qlen;
    waiting pending;
    bool has_pending;
    kvp__cursor cur;
    kvp_request next;     /* the next request not yet arrived (has_next) */
    bool has_next;
    uint64_t step;
    /* Generated prefix ids: the prefix `ids_prefix` holds (0 = none). */
    uint32_t *ids;
    uint32_t ids_prefix;
    uint32_t max_batch, max_tokens;
    uint64_t max_model_len;
    uint32_t tpb;
    bool reuse, has_recurrent;
    double running_sum;
    uint64_t done;
    /* TensorRT-LLM GUARANTEED_NO_EVICT: blocks the running requests reserved, per pool. */
    uint64_t reserved[KVP_MAX_POOLS];
    /* SGLang: the decoding reserve's ratio (new_token_ratio). */
    double ratio;
} sim;

/* SGLang's scheduler (managers/scheduler.py, schedule_policy.py): new_token_ratio starts
 * at SGLANG_INIT_NEW_TOKEN_RATIO 0.7, decays each step by (init - min) /
 * SGLANG_NEW_TOKEN_RATIO_DECAY_STEPS 600 to min = init x SGLANG_MIN_NEW_TOKEN_RATIO_FACTOR
 * 0.14; a request's max_new_tokens counts at most CLIP_MAX_NEW_TOKENS 4096; after a
 * retraction the ratio is re-estimated with RETRACT_DECODE_STEPS 20 per request. */
#define SGL_INIT_RATIO 0.7
#define SGL_MIN_RATIO (0.7 * 0.14)
#define SGL_DECAY ((SGL_INIT_RATIO - SGL_MIN_RATIO) / 600.0)
#define SGL_CLIP_NEW_TOKENS 4096u
#define SGL_RETRACT_STEPS 20u

const char *kvp_sim_policy_name(kvp_sim_policy policy) {
    switch (policy) {
    case KVP_SIM_TRTLLM: return "trtllm";
    case KVP_SIM_TRTLLM_MAX_UTILIZATION: return "trtllm-max-utilization";
    case KVP_SIM_SGLANG: return "sglang";
    default: return "vllm";
    }
}

kvp_status kvp_sim_policy_parse(const char *name, kvp_sim_policy *out, kvp_error *err) {
    for (int p = KVP_SIM_VLLM; p <= KVP_SIM_SGLANG; p++)
        if (name && kvp__strcasecmp(name, kvp_sim_policy_name((kvp_sim_policy)p)) == 0) {
            *out = (kvp_sim_policy)p;
            return KVP_OK;
        }
    return kvp__fail(err, KVP_INVALID_ARG, NULL, "policy",
                     "policy: '%s' is not a scheduler the simulator replays; expected vllm, "
                     "sglang, trtllm or trtllm-max-utilization",
                     name ? name : "");
}

/* max_new_tokens of a request of `prompt` tokens: the configured one, else
 * max_model_len - prompt. */
static uint64_t max_new_of(const sim *s, uint32_t prompt) {
    uint64_t room = s->max_model_len - prompt;
    uint64_t n = s->cfg->max_new_tokens;
    return n && n < room ? n : room;
}

static inline uint64_t known_tokens(const run_slot *r) {
    return (uint64_t)r->q.prompt + r->q.generated;
}

/* A preempted request goes to the front. The ring grows (doubling) when full: it
 * holds preempted requests only, at most the running ones of some step. */
static kvp_status queue_push_front(sim *s, const waiting *q, kvp_error *err) {
    if (s->qlen == s->qcap) {
        size_t cap = s->qcap ? s->qcap * 2 : 64;
        waiting *n = kvp__calloc(s->alc, cap, sizeof *n);
        if (!n) return kvp__fail(err, KVP_NOMEM, NULL, "sim", "out of memory for the queue");
        for (size_t i = 0; i < s->qlen; i++) n[i] = s->queue[(s->qhead + i) % s->qcap];
        kvp__free(s->alc, s->queue);
        s->queue = n;
        s->qcap = cap;
        s->qhead = 0;
    }
    s->qhead = (s->qhead + s->qcap - 1) % s->qcap;
    s->queue[s->qhead] = *q;
    s->qlen++;
    return KVP_OK;
}

/* Blocks pool part `p` needs at least for a request of `len` tokens, however
 * it is scheduled: a request that needs more than a pool has is rejected on
 * arrival (the step loop catches what only a real schedule reveals). A
 * window pool needs at least the blocks of one window. */
static uint64_t need_blocks(const sim *s, const kvp_pool_spec *p, uint64_t len) {
    uint64_t tpb = s->tpb;
    switch (p->kind) {
    case KVP_CACHE_RECURRENT:
        return 1;
    case KVP_CACHE_CROSS:
        return kvp__ceil_div_u64(p->window_tokens, tpb);
    case KVP_CACHE_SLIDING:
    case KVP_CACHE_CHUNKED:
        if (p->window_tokens && p->window_tokens < len) return kvp__ceil_div_u64(p->window_tokens, tpb);
        return kvp__ceil_div_u64(len, tpb);
    default:
        return kvp__ceil_div_u64(len, tpb);
    }
}

/* Blocks a request of `prompt` tokens reserves in pool k under GUARANTEED_NO_EVICT:
 * every block of prompt + max_new_tokens (a window pool: of one window), as
 * getRemainingBlocksToCompletion counts them for a request holding nothing. */
static uint64_t reservation(const sim *s, uint32_t prompt, uint32_t k) {
    return need_blocks(s, &s->cfg->pool.pools[k], (uint64_t)prompt + max_new_of(s, prompt));
}

static bool reserve(sim *s, uint32_t prompt) {
    uint32_t n = s->cfg->pool.pool_count;
    for (uint32_t k = 0; k < n; k++)
        if (s->reserved[k] + reservation(s, prompt, k) > s->cfg->pool.pools[k].blocks)
            return false;
    for (uint32_t k = 0; k < n; k++) s->reserved[k] += reservation(s, prompt, k);
    return true;
}

static void unreserve(sim *s, uint32_t prompt) {
    if (s->cfg->policy != KVP_SIM_TRTLLM) return;
    for (uint32_t k = 0; k < s->cfg->pool.pool_count; k++)
        s->reserved[k] -= reservation(s, prompt, k);
}

/* Arrival of request `id`: reject what the engine would refuse or what can never
 * fit; else it is the waiting queue's newest entry (*out). */
static bool arrive(sim *s, const kvp_request *r, uint64_t id, waiting *out) {
    kvp_sim_result *res = s->res;
    if (r->prompt_tokens > s->max_model_len) {
        res->rejected_too_long++;
        s->done++;
        return false;
    }
    /* The output stops at max_model_len; the last sampled token is never written. */
    uint64_t room = s->max_model_len - r->prompt_tokens + 1;
    /* A request's max_new_tokens cuts its output too. */
    if (s->cfg->max_new_tokens && s->cfg->max_new_tokens < room) room = s->cfg->max_new_tokens;
    waiting t = {.id = id,
                 .token_offset = r->token_offset,
                 .prompt = r->prompt_tokens,
                 .output = r->output_tokens < room ? r->output_tokens : (uint32_t)room,
                 .explicit_tokens = r->explicit_tokens,
                 .prefix_index = r->prefix_index};
    uint64_t peak_len = (uint64_t)r->prompt_tokens + t.output - 1;
    /* TensorRT-LLM holds the whole reservation before the first token. */
    if (s->cfg->policy == KVP_SIM_TRTLLM)
        peak_len = (uint64_t)r->prompt_tokens + max_new_of(s, r->prompt_tokens);
    bool fits = !(s->cfg->no_chunked_prefill && r->prompt_tokens > s->max_tokens);
    for (uint32_t k = 0; k < s->cfg->pool.pool_count && fits; k++)
        fits = need_blocks(s, &s->cfg->pool.pools[k], peak_len) <= s->cfg->pool.pools[k].blocks;
    if (!fits) {
        res->rejected_never_fit++;
        s->done++;
        return false;
    }
    *out = t;
    return true;
}

/* Read the workload up to the current step until the queue's tail has a head
 * (`pending`) or nothing more has arrived. */
static void refill(sim *s) {
    while (!s->has_pending && s->has_next && s->next.arrival_step <= s->step) {
        uint64_t id = s->cur.next - 1;
        s->has_pending = arrive(s, &s->next, id, &s->pending);
        s->has_next = kvp__cursor_next(&s->cur, &s->next);
    }
}

/* Whether a request waits (preempted, or arrived and not yet admitted). */
static bool has_waiting(sim *s) {
    refill(s);
    return s->qlen > 0 || s->has_pending;
}

/* The queue's front: the newest preempted request, else the oldest arrival. */
static waiting *queue_front(sim *s) {
    return s->qlen > 0 ? &s->queue[s->qhead] : &s->pending;
}

static void queue_pop(sim *s) {
    if (s->qlen > 0) {
        s->qhead = (s->qhead + 1) % s->qcap;
        s->qlen--;
        return;
    }
    s->has_pending = false;
    refill(s);
}

/* Ids of a running request's explicit positions: its prompt_tokens in the
 * workload, or its prefix's, made into s->ids when another prefix is there. */
static const uint32_t *ids_of(sim *s, const waiting *q) {
    if (!q->explicit_tokens) return NULL;
    if (!q->prefix_index) return s->w->tokens + q->token_offset;
    if (s->ids_prefix != q->prefix_index) {
        for (uint32_t i = 0; i < q->explicit_tokens; i++)
            s->ids[i] = kvp__prefix_token(q->prefix_index, i);
        s->ids_prefix = q->prefix_index;
    }
    return s->ids;
}

/* Tokens to schedule for r: at most `budget`; without chunked prefill a
 * prompt that fits the budget goes whole or waits; with recurrent prefix
 * reuse a chunk stops at the shared prefix's last block boundary so the
 * state can be snapshotted there. 0 = nothing this step. */
static inline uint64_t chunk_for(const sim *s, const run_slot *r, uint64_t budget) {
    uint64_t need = known_tokens(r) - r->computed;
    uint64_t n = need < budget ? need : budget;
    if (n < need && s->cfg->no_chunked_prefill && need <= s->max_tokens) return 0;
    if (r->snap_at && r->computed < r->snap_at && r->computed + n > r->snap_at)
        n = r->snap_at - r->computed;
    return n;
}

/* KVP_INFEASIBLE (no block free: preempt or wait) fills err too; only another
 * status ends the run (the pool could not grow its block records). */
static inline kvp_status append(sim *s, run_slot *r, uint64_t n, kvp_error *err) {
    uint64_t c = r->computed;
    uint64_t ex = 0;
    const uint32_t *tok = NULL;
    if (c < r->q.explicit_tokens) {
        ex = r->q.explicit_tokens - c;
        if (ex > n) ex = n;
        tok = ids_of(s, &r->q) + c;
    }
    kvp_status st = kvp_pool_seq_append(s->pool, r->seq, tok, ex, n, err);
    if (st != KVP_OK) return st;
    r->computed += (uint32_t)n;
    s->res->computed_tokens += n;
    if (r->snap_at && r->computed == r->snap_at) {
        /* Best effort: without a free slot the prefix is simply not reusable. */
        kvp_status snap = kvp_pool_seq_snapshot(s->pool, r->seq, err);
        if (snap != KVP_OK && snap != KVP_INFEASIBLE) return snap; /* records could not grow */
    }
    return KVP_OK;
}

/* Remove running[i], keeping admission order. */
static void running_remove(sim *s, uint32_t i) {
    memmove(s->running + i, s->running + i + 1, (s->nrunning - i - 1) * sizeof *s->running);
    s->nrunning--;
}

static void reject_never_fit(sim *s, uint32_t seq, uint32_t prompt) {
    kvp_pool_seq_close(s->pool, seq);
    unreserve(s, prompt);
    s->res->rejected_never_fit++;
    s->done++;
}

/* SGLang's retraction victim: fewest output tokens, then the longest prompt. */
static uint32_t retract_victim(const sim *s) {
    uint32_t best = 0;
    for (uint32_t i = 1; i < s->nrunning; i++) {
        const run_slot *a = &s->running[i], *b = &s->running[best];
        if (a->q.generated < b->q.generated ||
            (a->q.generated == b->q.generated && a->q.prompt > b->q.prompt))
            best = i;
    }
    return best;
}

/* After a retraction: new_token_ratio = (decoded + 20 x requests) / their max_new_tokens,
 * at most 1 (retract_decode). */
static void sglang_reestimate(sim *s) {
    double decoded = 0, max_new = 0;
    for (uint32_t i = 0; i < s->nrunning; i++) {
        const run_slot *r = &s->running[i];
        decoded += r->q.generated;
        max_new += (double)max_new_of(s, r->q.prompt);
    }
    double est = max_new > 0 ? (decoded + (double)SGL_RETRACT_STEPS * s->nrunning) / max_new : 1.0;
    s->ratio = est < 1.0 ? est : 1.0;
}

/* SGLang's PrefillAdder: the tokens left for new prompts once the running requests'
 * decoding reserve is set aside. */
static double sglang_room(const sim *s) {
    double room = 0;
    for (uint32_t k = 0; k < kvp_pool_count(s->pool); k++) {
        if (kvp_pool_get_spec(s->pool, k)->kind == KVP_CACHE_RECURRENT) continue;
        kvp_pool_stats ps;
        kvp_pool_get_stats(s->pool, k, &ps);
        room = (double)(ps.free_blocks + ps.cached_blocks) * s->tpb;
        break; /* the token pool */
    }
    for (uint32_t i = 0; i < s->nrunning; i++) {
        const run_slot *r = &s->running[i];
        uint64_t left = max_new_of(s, r->q.prompt) - r->q.generated;
        room -= s->ratio * (double)(left < SGL_CLIP_NEW_TOKENS ? left : SGL_CLIP_NEW_TOKENS);
    }
    return room;
}

/* Serve running requests; *preempted tells whether one was preempted. */
static kvp_status serve_running(sim *s, uint64_t *budget, bool *preempted, kvp_error *err) {
    uint32_t i = 0;
    while (i < s->nrunning && *budget > 0) {
        run_slot *r = &s->running[i];
        uint64_t n = chunk_for(s, r, *budget);
        if (n == 0) {
            i++;
            continue;
        }
        kvp_status st = append(s, r, n, err);
        if (st == KVP_INFEASIBLE) {
            if (s->nrunning == 1) { /* alone in the pool and still short */
                reject_never_fit(s, r->seq, r->q.prompt);
                running_remove(s, 0);
                break;
            }
            /* vLLM and TensorRT-LLM: the newest running request goes (recomputed later);
             * SGLang retracts the one with the fewest output tokens, the longest prompt
             * among those (retract_decode). */
            uint32_t vi = s->cfg->policy == KVP_SIM_SGLANG ? retract_victim(s) : s->nrunning - 1;
            run_slot *v = &s->running[vi];
            kvp_pool_seq_close(s->pool, v->seq);
            unreserve(s, v->q.prompt);
            kvp_status qs = queue_push_front(s, &v->q, err);
            if (qs != KVP_OK) return qs;
            running_remove(s, vi);
            s->res->preemptions++;
            *preempted = true;
            if (s->cfg->policy == KVP_SIM_SGLANG) sglang_reestimate(s);
            if (vi < i) i--;
            continue; /* retry running[i] (r itself, unless it was the victim) */
        }
        if (st != KVP_OK) return st;
        r->sched = 1;
        *budget -= n;
        i++;
    }
    return KVP_OK;
}

static kvp_status admit(sim *s, uint64_t *budget, kvp_error *err) {
    double sgl_room = s->cfg->policy == KVP_SIM_SGLANG ? sglang_room(s) : 0;
    while (s->nrunning < s->max_batch && *budget > 0 && has_waiting(s)) {
        const waiting *req = queue_front(s);
        run_slot *r = &s->running[s->nrunning];
        if (s->cfg->policy == KVP_SIM_SGLANG) {
            /* The prompt plus its clipped max_new_tokens must fit what is left. */
            uint64_t mn = max_new_of(s, req->prompt);
            double need = (double)req->prompt +
                          (double)(mn < SGL_CLIP_NEW_TOKENS ? mn : SGL_CLIP_NEW_TOKENS);
            if (need > sgl_room) {
                if (s->nrunning > 0) break;
                /* An empty server cannot fit it either: it would wait forever. */
                queue_pop(s);
                s->res->rejected_never_fit++;
                s->done++;
                continue;
            }
            sgl_room -= need;
        }
        /* GUARANTEED_NO_EVICT: first come first served, stop at the first misfit. */
        if (s->cfg->policy == KVP_SIM_TRTLLM && !reserve(s, req->prompt)) break;
        kvp_status st = kvp_pool_seq_open(s->pool, req->id + 1, &r->seq, err);
        if (st == KVP_INFEASIBLE) {
            unreserve(s, req->prompt);
            if (s->nrunning > 0) break;
            queue_pop(s);
            s->res->rejected_never_fit++;
            s->done++;
            continue;
        }
        if (st != KVP_OK) return st;
        r->q = *req;
        r->snap_at = s->reuse && s->has_recurrent && req->prefix_index
                         ? req->explicit_tokens / s->tpb * s->tpb
                         : 0;
        r->sched = 0;
        uint64_t known = known_tokens(r), hit = 0;
        if (s->reuse) {
            uint64_t ex = r->q.explicit_tokens < known ? r->q.explicit_tokens : known;
            st = kvp_pool_seq_match(s->pool, r->seq, ids_of(s, &r->q), ex, known, &hit, err);
            if (st != KVP_OK) return st;
        }
        r->computed = (uint32_t)hit;
        uint64_t n = chunk_for(s, r, *budget);
        st = n ? append(s, r, n, err) : KVP_INFEASIBLE;
        if (st == KVP_INFEASIBLE) {
            if (s->nrunning > 0 || n == 0) {
                kvp_pool_seq_close(s->pool, r->seq);
                unreserve(s, r->q.prompt);
                break;
            }
            queue_pop(s);
            reject_never_fit(s, r->seq, r->q.prompt);
            continue;
        }
        if (st != KVP_OK) return st;
        queue_pop(s);
        s->res->prefix_hit_tokens += hit;
        s->res->prefix_query_tokens += known;
        r->sched = 1;
        s->nrunning++;
        *budget -= n;
    }
    return KVP_OK;
}

/* Sample a token for every request whose known tokens are all computed;
 * finish those that reached their output. */
static void sample_and_finish(sim *s) {
    uint32_t o = 0;
    for (uint32_t i = 0; i < s->nrunning; i++) {
        run_slot *r = &s->running[i];
        if (r->sched && r->computed == known_tokens(r)) {
            r->q.generated++;
            if (r->q.generated >= r->q.output) {
                kvp_pool_seq_close(s->pool, r->seq);
                unreserve(s, r->q.prompt);
                s->res->finished++;
                s->res->prompt_tokens += r->q.prompt;
                s->res->output_tokens += r->q.generated;
                s->done++;
                continue;
            }
        }
        r->sched = 0;
        if (o != i) s->running[o] = *r;
        o++;
    }
    s->nrunning = o;
}

/* Busiest block pool's used fraction, and which pool that is. */
static double utilization(const sim *s) {
    double best = 0;
    for (uint32_t k = 0; k < kvp_pool_count(s->pool); k++) {
        kvp_pool_stats ps;
        kvp_pool_get_stats(s->pool, k, &ps);
        if (kvp_pool_get_spec(s->pool, k)->kind == KVP_CACHE_RECURRENT) continue;
        double u = (double)ps.used_blocks / (double)ps.total_blocks;
        if (u > best) best = u;
    }
    return best;
}

static void take_sample(sim *s) {
    kvp_sim_result *res = s->res;
    if (res->steps % res->sample_stride_steps != 0) return;
    if (res->samples == KVP_SIM_MAX_SAMPLES) {
        /* Full: keep every other sample and sample half as often. */
        for (uint32_t i = 0; i < KVP_SIM_MAX_SAMPLES / 2; i++)
        {
            res->utilization[i] = res->utilization[2 * i];
            res->running[i] = res->running[2 * i];
        }
        res->samples = KVP_SIM_MAX_SAMPLES / 2;
        res->sample_stride_steps *= 2;
        if (res->steps % res->sample_stride_steps != 0) return;
    }
    res->running[res->samples] = s->nrunning;
    res->utilization[res->samples++] = utilization(s);
}

/* Sequences of max_model_len tokens the pool holds at once: the smallest,
 * over pools, of blocks / blocks one such sequence needs (recurrent: slots). */
static uint64_t promised_sequences(const kvp_pool_config *pool, uint64_t max_model_len) {
    if (!pool) return 0;
    uint64_t best = UINT64_MAX, tpb = 0;
    for (uint32_t k = 0; k < pool->pool_count; k++)
        if (pool->pools[k].kind != KVP_CACHE_RECURRENT) tpb = pool->pools[k].tokens_per_block;
    for (uint32_t k = 0; k < pool->pool_count; k++) {
        const kvp_pool_spec *p = &pool->pools[k];
        uint64_t per;
        if (p->kind == KVP_CACHE_RECURRENT) {
            per = 1;
        } else {
            uint64_t tokens = max_model_len;
            if (p->kind == KVP_CACHE_CROSS) tokens = p->window_tokens;
            else if ((p->kind == KVP_CACHE_SLIDING || p->kind == KVP_CACHE_CHUNKED) &&
                     p->window_tokens && p->window_tokens < tokens)
                tokens = p->window_tokens;
            per = kvp__ceil_div_u64(tokens, tpb ? tpb : 1);
        }
        if (per == 0) continue;
        uint64_t n = p->blocks / per;
        if (n < best) best = n;
    }
    return best == UINT64_MAX ? 0 : best;
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sim_free(sim *s, const kvp_allocator *alc) {
    kvp_pool_free(s->pool);
    kvp__free(alc, s->running);
    kvp__free(alc, s->queue);
    kvp__free(alc, s->ids);
}

kvp_status kvp_sim_run(const kvp_sim_config *config, const kvp_workload *workload,
                       const kvp_allocator *alc, kvp_sim_result *out, kvp_error *err) {
    if (!config || !workload || !out)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "sim", "NULL argument");
    memset(out, 0, sizeof *out);
    sim s;
    memset(&s, 0, sizeof s);
    kvp_sim_config cfg = *config;
    s.cfg = &cfg;
    s.w = workload;
    s.res = out;
    s.max_batch = cfg.max_batch_size ? cfg.max_batch_size : 256;
    s.max_tokens = cfg.max_num_tokens ? cfg.max_num_tokens : 8192;
    s.max_model_len = cfg.max_model_len ? cfg.max_model_len : cfg.pool.max_seq_tokens;
    if (s.max_model_len == 0 || s.max_model_len > KVP_WORKLOAD_MAX_TOKENS * 2ull)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "max_model_len",
                         "expected 1 to %u tokens, found %llu", KVP_WORKLOAD_MAX_TOKENS * 2u,
                         (unsigned long long)s.max_model_len);
    if (s.max_batch > KVP_POOL_MAX_SEQUENCES)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "max_batch_size",
                         "expected 1 to %u sequences, found %u", KVP_POOL_MAX_SEQUENCES,
                         s.max_batch);
    cfg.pool.max_sequences = s.max_batch;
    cfg.pool.max_seq_tokens = s.max_model_len;
    kvp_status st = kvp_pool_new(&cfg.pool, alc, &s.pool, err);
    if (st) return st;
    s.tpb = kvp_pool_tokens_per_block(s.pool);
    s.reuse = cfg.pool.prefix_reuse;
    for (uint32_t k = 0; k < cfg.pool.pool_count; k++)
        s.has_recurrent = s.has_recurrent || cfg.pool.pools[k].kind == KVP_CACHE_RECURRENT;
    s.alc = alc;
    size_t n = kvp_workload_count(workload);
    uint32_t max_prefix = kvp__workload_max_prefix(workload);
    s.running = kvp__calloc(alc, s.max_batch, sizeof *s.running);
    s.ids = max_prefix ? kvp__calloc(alc, max_prefix, sizeof *s.ids) : NULL;
    if (!s.running || (max_prefix && !s.ids)) {
        sim_free(&s, alc);
        return kvp__fail(err, KVP_NOMEM, NULL, "sim",
                         "out of memory for %u running requests and a prefix of %u tokens",
                         s.max_batch, max_prefix);
    }
    if ((unsigned)cfg.policy > KVP_SIM_SGLANG) {
        sim_free(&s, alc);
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "policy", "unknown simulation policy %d",
                         (int)cfg.policy);
    }
    s.ratio = SGL_INIT_RATIO;
    out->requests = n;
    out->promised_max_sequences = promised_sequences(&cfg.pool, s.max_model_len);
    out->sample_stride_steps = 1;
    double t0 = now_seconds();
    kvp__cursor_init(&s.cur, workload);
    s.has_next = kvp__cursor_next(&s.cur, &s.next);
    for (;;) {
        if (s.nrunning == 0 && !has_waiting(&s)) {
            if (!s.has_next) break;
            s.step = s.next.arrival_step; /* skip the idle gap */
            continue;
        }
        uint64_t budget = s.max_tokens;
        bool preempted = false;
        st = serve_running(&s, &budget, &preempted, err);
        if (st == KVP_OK && !preempted) st = admit(&s, &budget, err);
        if (st != KVP_OK) {
            sim_free(&s, alc);
            return st;
        }
        if (has_waiting(&s)) {
            /* Requests left waiting: say what kept them out. */
            out->waiting_steps++;
            if (s.nrunning >= s.max_batch) out->cap_bound_steps++;
            else if (budget == 0) out->budget_bound_steps++;
            else out->kv_bound_steps++;
        }
        if (cfg.policy == KVP_SIM_SGLANG && !preempted)
            s.ratio = s.ratio - SGL_DECAY > SGL_MIN_RATIO ? s.ratio - SGL_DECAY : SGL_MIN_RATIO;
        if (s.nrunning > out->peak_running) out->peak_running = s.nrunning;
        s.running_sum += s.nrunning;
        out->steps++;
        take_sample(&s);
        sample_and_finish(&s);
        s.step++;
        if (cfg.progress_fn && out->steps % PROGRESS_EVERY_STEPS == 0)
            cfg.progress_fn(cfg.progress_ctx, s.done, n);
    }
    if (cfg.progress_fn) cfg.progress_fn(cfg.progress_ctx, s.done, n);
    out->elapsed_seconds = now_seconds() - t0;
    out->steps_per_second =
        out->elapsed_seconds > 0 ? (double)out->steps / out->elapsed_seconds : 0;
    out->mean_running = out->steps ? s.running_sum / (double)out->steps : 0;
    out->prefix_hit_rate = out->prefix_query_tokens
                               ? (double)out->prefix_hit_tokens / (double)out->prefix_query_tokens
                               : 0;
    for (uint32_t k = 0; k < kvp_pool_count(s.pool); k++) {
        if (kvp_pool_get_spec(s.pool, k)->kind == KVP_CACHE_RECURRENT) continue;
        kvp_pool_stats ps;
        kvp_pool_get_stats(s.pool, k, &ps);
        if (out->total_blocks == 0 ||
            (double)ps.peak_used_blocks / ps.total_blocks >
                (double)out->peak_blocks_used / (double)out->total_blocks) {
            out->peak_blocks_used = ps.peak_used_blocks;
            out->total_blocks = ps.total_blocks;
        }
    }
    sim_free(&s, alc);
    return KVP_OK;
}
