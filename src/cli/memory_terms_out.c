/* memory_terms_out.c — the start-up memory terms of a plan, one line each, for
 * `plan --explain` under every policy: which the engine charges before sizing
 * (and in which part), which must fit after it, and how each is known
 * (docs/memory.md). */
#include <stdio.h>

#include "kvplan/deploy.h"
#include "plan_policy.h"

static const char *mark_name(uint8_t mark) {
    switch (mark) {
    case KVP_MEM_MARK_EXACT: return "exact";
    case KVP_MEM_MARK_BOUNDED: return "bounded";
    case KVP_MEM_MARK_GIVEN: return "given";
    default: return "estimated";
    }
}

static const char *where(const kvp_memory_term *t) {
    if (t->charge == KVP_MEM_CHARGE_HEADROOM) return "after sizing";
    if (t->charge == KVP_MEM_CHARGE_UNCHARGED) return "not charged";
    if (t->charge == KVP_MEM_CHARGE_PHASE) return "  phase";
    switch (t->part) {
    case KVP_MEM_EST_ACTIVATION: return "activation";
    case KVP_MEM_EST_NON_TORCH: return "non-torch";
    case KVP_MEM_EST_CUDA_GRAPH: return "CUDA graphs";
    default: return "peak";
    }
}

void kvp_cli_memory_terms(const kvp_deploy_result *res, FILE *f) {
    const kvp_memory_facts *m = &res->memory;
    if (!res->have_memory || !m->term_count) return;
    if (m->release_line[0])
        fprintf(f, "  start-up terms (docs/memory.md, %s):\n", m->release_line);
    else
        fputs("  start-up terms (docs/memory.md):\n", f);
    for (uint32_t i = 0; i < m->term_count; i++) {
        const kvp_memory_term *t = &m->terms[i];
        fprintf(f, "      %-26s %8.2f GiB  %-9s %-12s %s%s\n", t->name,
                (double)t->bytes / 1073741824.0, mark_name(t->mark), where(t), t->source,
                t->under_load ? " [under load]" : "");
    }
    if (res->headroom_need_bytes) {
        fprintf(f, "  after sizing: %.2f GiB needed of %.2f GiB left%s\n",
                (double)res->headroom_need_bytes / 1073741824.0,
                (double)res->headroom_bytes / 1073741824.0,
                res->headroom_short ? " (does not fit)" : "");
        fprintf(f, "  at start-up: %.2f GiB exact or bounded of %.2f GiB (left + freed "
                   "activations)%s\n",
                (double)res->headroom_sure_bytes / 1073741824.0,
                (double)res->headroom_startup_bytes / 1073741824.0,
                res->headroom_refused ? " (out of memory: refused)" : "");
    }
}
