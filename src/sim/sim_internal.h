/* sim_internal.h — the workload layout shared by the JSON-lines reader
 * (workload.c), the synthetic generator (synthetic.c) and the simulator
 * (sim.c). kvp__ tier: never public. */
#ifndef KVP_SIM_INTERNAL_H
#define KVP_SIM_INTERNAL_H

#include "kvplan/sim.h"
#include "util.h"

#define KVP__WORKLOAD_MAX_WARNINGS 32

/* A shared prefix is a range: its ids are a function of (prefix index, position)
 * (kvp__prefix_token), made when a request needs them, never stored. */
typedef struct kvp__prefix {
    char *name;          /* "s:<string>" or "i:<integer>" */
    uint32_t tokens;
} kvp__prefix;

struct kvp_workload {
    kvp_allocator alc;
    bool has_alc;
    /* A synthetic workload holds its spec, not its requests: a cursor draws them in
     * arrival order as the simulation reaches them (memory independent of the count). */
    bool synthetic;
    kvp_synthetic_spec spec;
    kvp_request *requests;     /* a file's requests, sorted by arrival; NULL when synthetic */
    size_t count, cap;
    uint32_t *tokens;          /* ids of prompt_tokens (the only ids a workload states) */
    uint64_t token_count, token_cap;
    uint32_t max_prefix_tokens; /* longest shared prefix: the ids a simulation makes at once */
    kvp__prefix *prefixes;     /* prefix_index - 1 (files; a synthetic prefix is an index) */
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

/* xoshiro256** state (synthetic.c), kept in a cursor's rng[4]. */
typedef struct kvp__rng {
    uint64_t s[4];
} kvp__rng;

typedef kvp_workload_cursor kvp__cursor;
#define kvp__cursor_init kvp_workload_cursor_init
#define kvp__cursor_next kvp_workload_next

/* synthetic.c: seed a cursor's generator; draw its next request. */
void kvp__synthetic_start(kvp__cursor *c);
void kvp__synthetic_draw(kvp__cursor *c, kvp_request *out);
/* The longest run of generated prefix ids a request of `w` needs at once. */
uint32_t kvp__workload_max_prefix(const kvp_workload *w);
/* The next request into *out; false past the last. */
bool kvp__cursor_next(kvp__cursor *c, kvp_request *out);

#endif
