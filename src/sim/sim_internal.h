/* sim_internal.h — the workload layout shared by the JSON-lines reader
 * (workload.c), the synthetic generator (synthetic.c) and the simulator
 * (sim.c). kvp__ tier: never public. */
#ifndef KVP_SIM_INTERNAL_H
#define KVP_SIM_INTERNAL_H

#include "kvplan/sim.h"
#include "util.h"

#define KVP__WORKLOAD_MAX_WARNINGS 32

typedef struct kvp__prefix {
    char *name;          /* "s:<string>" or "i:<integer>"; NULL for synthetic prefixes */
    uint32_t tokens;
    uint64_t token_offset;
} kvp__prefix;

struct kvp_workload {
    kvp_allocator alc;
    bool has_alc;
    kvp_request *requests;
    size_t count, cap;
    uint32_t *tokens;          /* ids of explicit positions (prefixes, prompt_tokens) */
    uint64_t token_count, token_cap;
    kvp__prefix *prefixes;     /* prefix_index - 1 */
    uint32_t prefix_count, prefix_cap;
    uint32_t *prefix_map;      /* open addressing over prefixes by name; UINT32_MAX = empty */
    uint32_t prefix_map_mask;
    char *warnings[KVP__WORKLOAD_MAX_WARNINGS];
    size_t warning_count;
};

static inline const kvp_allocator *kvp__workload_alc(const kvp_workload *w) {
    return w->has_alc ? &w->alc : NULL;
}

kvp_workload *kvp__workload_new(const kvp_allocator *alc);
/* Append a request (copied). KVP_NOMEM / KVP_CONFIG past the request limit. */
kvp_status kvp__workload_push(kvp_workload *w, const kvp_request *r, kvp_error *err);
/* Reserve `n` token ids at the end of the store; *out_offset is where they start. */
kvp_status kvp__workload_tokens(kvp_workload *w, uint64_t n, uint64_t *out_offset,
                                kvp_error *err);
/* Add a shared prefix of `tokens` generated ids; *out_index is 1-based. */
kvp_status kvp__workload_add_prefix(kvp_workload *w, char *name, uint32_t tokens,
                                    uint32_t *out_index, kvp_error *err);
/* Ids of a generated prefix: a function of (prefix index, position). */
uint32_t kvp__prefix_token(uint32_t prefix_index, uint32_t position);
/* Sort requests by (arrival, line) — stable for file order. */
void kvp__workload_sort(kvp_workload *w);

#endif
