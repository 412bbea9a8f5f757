/*
 * memory_facts.c — measured and estimated memory terms joined into the facts
 * the creator's configure step takes (seed: configure_kv_cache_capacity reads
 * torch's peak, the memory outside torch, and what the estimation cache held).
 */
#include <string.h>

#include "kvplan/estimate.h"
#include "kvplan/plan.h"
#include "estimate_memo.h"
#include "plan_internal.h"
#include "util.h"

/* Drop the estimated terms of `part` and put the user's figure in their place:
 * a term the user gives is never also estimated. */
static void give_part(kvp_memory_facts *m, uint32_t part, const char *name, uint64_t bytes,
                      const char *source) {
    uint32_t w = 0;
    for (uint32_t i = 0; i < m->term_count; i++)
        if (m->terms[i].part != part) m->terms[w++] = m->terms[i];
    m->term_count = w;
    if (w >= KVP_MEM_TERMS_MAX) return;
    kvp_memory_term *t = &m->terms[m->term_count++];
    memset(t, 0, sizeof *t);
    kvp__strlcpy(t->name, name, sizeof t->name);
    t->bytes = bytes;
    t->part = part;
    t->mark = KVP_MEM_MARK_GIVEN;
    t->charge = KVP_MEM_CHARGE_PEAK;
    kvp__strlcpy(t->source, source, sizeof t->source);
}

/* GiB figure for a message. */
static double gib(uint64_t b) { return (double)b / (double)(1ull << 30); }

/* Measured terms that cannot be true together on one device of `total_bytes`: each
 * was held on that device when it was measured, so none exceeds it, and the
 * allocator's peak (weights included) was held beside the memory outside the
 * allocator. A plan from such facts would report a KV budget above the GPU's
 * memory (issue 17); an estimated term is no measurement and is not checked here
 * (an estimate above the device is the model not fitting, reported as such). */
static kvp_status check_measured(const kvp_memory_measured *in, kvp_error *err) {
    uint64_t total = in->total_bytes;
    const struct {
        bool given;
        uint64_t bytes;
        const char *key, *what;
    } one[] = {
        {in->free_bytes > 0, in->free_bytes, "free_bytes", "free memory"},
        {in->has_weights, in->weights_bytes, "weights_bytes", "the measured weights"},
        {in->has_peak, in->peak_bytes, "peak_bytes", "the allocator peak"},
        {in->has_activation_peak, in->activation_peak_bytes, "activation_peak_bytes",
         "the activation peak"},
        {in->has_non_torch, in->non_torch_bytes, "non_torch_bytes",
         "the memory outside the allocator"},
        {in->has_cuda_graph, in->cuda_graph_bytes, "cuda_graph_bytes", "the CUDA graphs"},
    };
    for (size_t i = 0; i < sizeof one / sizeof one[0]; i++)
        if (one[i].given && one[i].bytes > total)
            return kvp__fail(err, KVP_CONFIG, NULL, one[i].key,
                             "%s: %llu B (%.2f GiB), more than the device's %llu B (%.2f "
                             "GiB): a measurement on this device cannot be",
                             one[i].what, (unsigned long long)one[i].bytes, gib(one[i].bytes),
                             (unsigned long long)total, gib(total));
    /* The allocator peak, weights included, when both of its parts are measured. */
    uint64_t peak = 0;
    const char *peak_key = NULL;
    if (in->has_peak) {
        peak = in->peak_bytes;
        peak_key = "peak_bytes";
    } else if (in->has_activation_peak && in->has_weights) {
        if (!kvp__add_u64(in->weights_bytes, in->activation_peak_bytes, &peak) || peak > total)
            return kvp__fail(err, KVP_CONFIG, NULL, "activation_peak_bytes",
                             "the measured weights (%.2f GiB) and activation peak (%.2f GiB) "
                             "together exceed the device's %.2f GiB: the peak held both",
                             gib(in->weights_bytes), gib(in->activation_peak_bytes), gib(total));
        peak_key = "activation_peak_bytes";
    }
    uint64_t both;
    if (peak_key && in->has_non_torch &&
        (!kvp__add_u64(peak, in->non_torch_bytes, &both) || both > total))
        return kvp__fail(err, KVP_CONFIG, NULL, "non_torch_bytes",
                         "the allocator peak (%.2f GiB) and the memory outside the "
                         "allocator (%.2f GiB) together exceed the device's %.2f GiB: both "
                         "were held during the profiling pass",
                         gib(peak), gib(in->non_torch_bytes), gib(total));
    return KVP_OK;
}

kvp_status kvp__memory_resolve(const kvp_model *model, const kvp_memory_measured *in,
                              const kvp_estimate_settings *estimate, kvp_memory_facts *m,
                              kvp_error *err) {
    return kvp__memory_resolve_memo(model, in, estimate, NULL, m, err);
}

kvp_status kvp__memory_resolve_memo(const kvp_model *model, const kvp_memory_measured *in,
                                    const kvp_estimate_settings *estimate,
                                    kvp__estimate_memo *memo, kvp_memory_facts *m,
                                    kvp_error *err) {
    memset(m, 0, sizeof *m);
    kvp_status cst = check_measured(in, err);
    if (cst != KVP_OK) return cst;
    if (in->has_peak && in->has_activation_peak)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "activation_peak_bytes",
                         "give the allocator peak (peak_bytes, weights included) or the "
                         "activation peak (activation_peak_bytes), not both");
    bool has_activation = in->has_peak || in->has_activation_peak;
    /* A term given is never also estimated: the estimate runs only for what is missing. */
    bool graphs_missing = in->cuda_graph_apart && !in->has_cuda_graph && estimate->cuda_graphs;
    if (!(in->has_weights && has_activation && in->has_non_torch) || graphs_missing) {
        kvp_estimate_settings es = *estimate;
        es.total_bytes = in->total_bytes;
        kvp_status st = kvp__memory_estimate_memo(memo, model, &es, m, err);
        if (st != KVP_OK) return st;
    }
    m->total_bytes = in->total_bytes;
    m->free_bytes = in->free_bytes;
    m->estimated &= ~(uint32_t)(KVP_MEM_EST_TOTAL | KVP_MEM_EST_FREE);
    if (in->has_weights) {
        m->weights_bytes = in->weights_bytes;
        m->estimated &= ~(uint32_t)KVP_MEM_EST_WEIGHTS;
        kvp__strlcpy(m->weights_source, "measured (--weights)", sizeof m->weights_source);
    }
    if (in->has_peak) {
        if (in->peak_bytes < m->weights_bytes)
            return kvp__fail(err, KVP_INVALID_ARG, NULL, "peak_bytes",
                             "the allocator peak %llu B is below the weights (%llu B): it "
                             "includes the weights",
                             (unsigned long long)in->peak_bytes,
                             (unsigned long long)m->weights_bytes);
        m->activation_bytes = in->peak_bytes - m->weights_bytes;
        m->estimated &= ~(uint32_t)KVP_MEM_EST_ACTIVATION;
        give_part(m, KVP_MEM_EST_ACTIVATION, "activation_peak", m->activation_bytes,
                  "given: peak_bytes - weights");
    } else if (in->has_activation_peak) {
        m->activation_bytes = in->activation_peak_bytes;
        m->estimated &= ~(uint32_t)KVP_MEM_EST_ACTIVATION;
        give_part(m, KVP_MEM_EST_ACTIVATION, "activation_peak", m->activation_bytes,
                  "given: activation_peak_bytes");
    }
    if (in->has_non_torch) {
        m->non_torch_bytes = in->non_torch_bytes;
        m->estimated &= ~(uint32_t)KVP_MEM_EST_NON_TORCH;
        give_part(m, KVP_MEM_EST_NON_TORCH, "non_torch", m->non_torch_bytes,
                  "given: non_torch_bytes");
        if (!in->cuda_graph_apart) {
            /* A measurement includes the captured graphs (TRT-LLM: used - allocated). */
            m->cuda_graph_bytes = 0;
            m->estimated &= ~(uint32_t)KVP_MEM_EST_CUDA_GRAPH;
            give_part(m, KVP_MEM_EST_CUDA_GRAPH, "cuda_graphs", 0,
                      "given: inside non_torch_bytes");
        }
    } else if (in->free_bytes && in->total_bytes > in->free_bytes) {
        /* Memory already held on the device (other processes, a context) counts like
         * memory outside the allocator: the seed's peak adds total_used - torch_used. */
        uint64_t held = in->total_bytes - in->free_bytes;
        if (!kvp__add_u64(m->non_torch_bytes, held, &m->non_torch_bytes))
            return kvp__fail(err, KVP_OVERFLOW, NULL, "free_bytes", "memory figures overflow");
        if (m->term_count < KVP_MEM_TERMS_MAX) {
            kvp_memory_term *t = &m->terms[m->term_count++];
            memset(t, 0, sizeof *t);
            kvp__strlcpy(t->name, "held_on_device", sizeof t->name);
            t->bytes = held;
            t->part = KVP_MEM_EST_NON_TORCH;
            t->mark = KVP_MEM_MARK_GIVEN;
            kvp__strlcpy(t->source, "given: total_bytes - free_bytes", sizeof t->source);
        }
    }
    if (in->has_cuda_graph) {
        m->cuda_graph_bytes = in->cuda_graph_bytes;
        m->estimated &= ~(uint32_t)KVP_MEM_EST_CUDA_GRAPH;
        give_part(m, KVP_MEM_EST_CUDA_GRAPH, "cuda_graphs", m->cuda_graph_bytes,
                  "given: cuda_graph_bytes");
    }
    return KVP_OK;
}

kvp_status kvp__creator_configure_from_facts(kvp_creator *c, const kvp_memory_facts *m,
                                            uint64_t estimation_kv_bytes,
                                            kvp_estimation_plan *est, kvp_capacity *cap,
                                            kvp_error *err) {
    uint64_t used = 0;
    if (!kvp__add_u64(m->weights_bytes, m->non_torch_bytes, &used) ||
        !kvp__add_u64(used, m->cuda_graph_bytes, &used))
        return kvp__fail(err, KVP_OVERFLOW, NULL, NULL, "memory figures overflow");
    uint64_t free_after = m->total_bytes > used ? m->total_bytes - used : 0;
    kvp_status st = kvp_creator_prepare_estimation(c, free_after, est, err);
    if (st != KVP_OK) return st;
    kvp_measured_memory mm;
    memset(&mm, 0, sizeof mm);
    mm.total_bytes = m->total_bytes;
    mm.profiled = est->estimating;
    if (!kvp__add_u64(m->weights_bytes, m->activation_bytes, &mm.allocator_peak_bytes) ||
        !kvp__add_u64(m->non_torch_bytes, m->cuda_graph_bytes, &mm.non_allocator_bytes))
        return kvp__fail(err, KVP_OVERFLOW, NULL, NULL, "memory figures overflow");
    mm.allocated_during_estimation_bytes = estimation_kv_bytes;
    mm.weights_bytes = m->weights_bytes;
    mm.used_bytes = used;
    /* The temporary KV cache of the profiling pass was on the device beside the
     * weights: with both, it cannot exceed the rest. */
    /* Estimated weights that alone exceed the device are the plain "does not
     * fit" answer (exit 1) below, not a contradiction of the inputs. */
    bool weights_alone_too_big =
        (m->estimated & KVP_MEM_EST_WEIGHTS) && m->weights_bytes >= m->total_bytes;
    if (estimation_kv_bytes > 0 && !weights_alone_too_big &&
        (estimation_kv_bytes > m->total_bytes ||
         m->weights_bytes > m->total_bytes - estimation_kv_bytes))
        return kvp__fail(err, KVP_CONFIG, NULL, "estimation_kv_bytes",
                         "the temporary KV cache of the profiling pass (%.2f GiB) and the "
                         "weights (%.2f GiB, %s) exceed the device's %.2f GiB: the pass held both",
                         gib(estimation_kv_bytes), gib(m->weights_bytes),
                         m->estimated & KVP_MEM_EST_WEIGHTS ? "estimated" : "measured",
                         gib(m->total_bytes));
    st = kvp_creator_configure(c, &mm, cap, err);
    if (st != KVP_OK) return st;
    /* Every policy's budget is a share of the device: a budget above it can only come
     * from a temporary KV cache the peak did not hold (TensorRT-LLM adds it back
     * because torch's peak includes it). */
    if (cap->budget_bytes > m->total_bytes)
        return kvp__fail(err, KVP_CONFIG, NULL,
                         estimation_kv_bytes ? "estimation_kv_bytes" : "total_bytes",
                         "the KV budget (%.2f GiB) would exceed the device's %.2f GiB: the "
                         "temporary KV cache added back (%.2f GiB) is more than the peak "
                         "(%.2f GiB) held; give the measured peak that includes it",
                         gib(cap->budget_bytes), gib(m->total_bytes), gib(estimation_kv_bytes),
                         gib(cap->peak_bytes));
    return KVP_OK;
}
