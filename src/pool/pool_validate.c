/* pool_validate.c — every invariant of a kvp_pool, checked from scratch
 * (mimalloc's mi_page_is_valid idea: the structure proves itself after each
 * step of a seeded random-operation test). O(blocks + table entries). */
#include <string.h>

#include "pool_internal.h"

#define BAD(...) kvp__fail(err, KVP_CONFIG, NULL, "pool", __VA_ARGS__)

enum { SEEN_FREE = 1, SEEN_LRU = 2 };

static bool is_block(const kvp__part *p) {
    return p->role == KVP__ROLE_FULL || p->role == KVP__ROLE_SLIDING ||
           p->role == KVP__ROLE_CHUNKED;
}

static kvp_status check_part(const kvp_pool *pool, uint32_t k, uint32_t *refs, uint8_t *seen,
                             kvp_error *err) {
    const kvp__part *p = &pool->parts[k];
    /* Records exist for [0, fresh); the blocks past it are untouched and free. */
    uint32_t n = p->fresh, untouched = p->blocks - p->fresh;
    if (p->fresh > p->blocks || p->fresh > p->blk_cap)
        return BAD("pool %u: %u blocks handed out of %u, %u records", k, p->fresh, p->blocks,
                   p->blk_cap);
    if (p->free_count < untouched)
        return BAD("pool %u: free counter %u below the %u untouched blocks", k, p->free_count,
                   untouched);
    if (p->reusable && p->index_cap <= p->blk_cap)
        return BAD("pool %u: index of %u slots for %u records", k, p->index_cap, p->blk_cap);
    memset(refs, 0, (size_t)n * sizeof *refs);
    memset(seen, 0, n);
    /* Free list: singly linked through next[], ends in NIL, no cycle. */
    uint32_t free_n = 0;
    for (uint32_t b = p->free_head; b != KVP__NIL; b = p->blk[b].next) {
        if (b >= n) return BAD("pool %u: free list reaches block %u of %u", k, b, n);
        if (seen[b]) return BAD("pool %u: block %u twice on the free list", k, b);
        seen[b] = SEEN_FREE;
        if (p->blk[b].refs != 0 || kvp__hash(p, b) != 0)
            return BAD("pool %u: free block %u has refs %u, hash %llx", k, b, p->blk[b].refs,
                       (unsigned long long)kvp__hash(p, b));
        if (++free_n > n) return BAD("pool %u: free list longer than the pool", k);
    }
    if (free_n + untouched != p->free_count)
        return BAD("pool %u: free list holds %u blocks and %u are untouched, counter says %u", k,
                   free_n, untouched, p->free_count);
    /* LRU list: doubly linked, head has no prev, tail no next. */
    uint32_t cached_n = 0, prev = KVP__NIL;
    for (uint32_t b = p->lru_head; b != KVP__NIL; b = p->blk[b].next) {
        if (b >= n) return BAD("pool %u: cached list reaches block %u of %u", k, b, n);
        if (seen[b]) return BAD("pool %u: block %u on two lists (or twice)", k, b);
        seen[b] = SEEN_LRU;
        if (p->blk[b].prev != prev)
            return BAD("pool %u: cached block %u has prev %u, expected %u", k, b, p->blk[b].prev, prev);
        if (p->blk[b].refs != 0 || kvp__hash(p, b) == 0)
            return BAD("pool %u: cached block %u has refs %u, hash %llx", k, b, p->blk[b].refs,
                       (unsigned long long)kvp__hash(p, b));
        if (++cached_n > n) return BAD("pool %u: cached list longer than the pool", k);
        prev = b;
    }
    if (prev != p->lru_tail)
        return BAD("pool %u: cached list ends at %u, tail says %u", k, prev, p->lru_tail);
    if (cached_n != p->cached)
        return BAD("pool %u: cached list holds %u blocks, counter says %u", k, cached_n,
                   p->cached);
    /* Reference counts: count every table entry (and slot) that points here. */
    for (uint32_t s = 0; s < pool->max_sequences; s++) {
        const uint32_t *t = p->tables[s];
        if (!pool->seq_open[s]) {
            if (p->first[s] || p->count[s])
                return BAD("pool %u: closed sequence %u still has %u entries", k, s, p->count[s]);
            continue;
        }
        uint32_t first = p->first[s], count = p->count[s];
        if (first > count || count > p->table_cap || count > p->table_len[s])
            return BAD("pool %u: sequence %u has entries [%u, %u) of %u (%u made)", k, s, first,
                       count, p->table_cap, p->table_len[s]);
        uint64_t len = pool->seq_len[s];
        uint32_t tpb = pool->tokens_per_block;
        if (p->role == KVP__ROLE_RECURRENT || p->role == KVP__ROLE_CROSS) {
            if (count != p->table_cap || first != 0)
                return BAD("pool %u: sequence %u holds %u of %u fixed blocks", k, s, count,
                           p->table_cap);
        } else {
            if (count != kvp__ceil_div_u64(len, tpb))
                return BAD("pool %u: sequence %u of %llu tokens has %u blocks, expected %llu", k,
                           s, (unsigned long long)len, count,
                           (unsigned long long)kvp__ceil_div_u64(len, tpb));
            if (p->role == KVP__ROLE_FULL && first != 0)
                return BAD("pool %u: full-attention sequence %u starts at block %u", k, s, first);
            /* A sliding window always keeps the block of the last token; a
             * chunked pool at a chunk boundary may keep nothing at all. */
            if (p->role == KVP__ROLE_SLIDING && count && first >= count)
                return BAD("pool %u: sequence %u released its last block", k, s);
        }
        /* A shared partial last block must be flagged for copy-on-write. */
        if (is_block(p) && len % tpb && count && t[count - 1] != KVP__NIL &&
            p->blk[t[count - 1]].refs > 1 && !pool->seq_cow[s])
            return BAD("pool %u: sequence %u shares its partial block %u unflagged", k, s,
                       t[count - 1]);
        for (uint32_t i = 0; i < count; i++) {
            uint32_t b = t[i];
            if (i < first) {
                if (b != KVP__NIL)
                    return BAD("pool %u: sequence %u keeps block %u before its window", k, s, b);
                continue;
            }
            if (b >= n) return BAD("pool %u: sequence %u entry %u is block %u of %u", k, s, i, b, n);
            if (seen[b]) return BAD("pool %u: sequence %u holds listed block %u", k, s, b);
            refs[b]++;
        }
    }
    uint32_t used_n = 0;
    for (uint32_t b = 0; b < n; b++) {
        if (refs[b] != p->blk[b].refs)
            return BAD("pool %u: block %u has refcount %u, %u holders point at it", k, b,
                       p->blk[b].refs, refs[b]);
        if (p->blk[b].refs) used_n++;
        else if (!seen[b]) return BAD("pool %u: block %u is on no list and held by nobody", k, b);
        if (p->role == KVP__ROLE_RECURRENT && p->blk[b].refs > 1)
            return BAD("pool %u: state slot %u shared by %u sequences", k, b, p->blk[b].refs);
    }
    if (used_n != p->used)
        return BAD("pool %u: %u blocks held, counter says %u", k, used_n, p->used);
    if ((uint64_t)used_n + free_n + cached_n != n)
        return BAD("pool %u: used %u + free %u + cached %u != %u handed out", k, used_n, free_n,
                   cached_n, n);
    if (p->stats.peak_used_blocks < used_n)
        return BAD("pool %u: peak %u below current use %u", k, p->stats.peak_used_blocks, used_n);
    /* Hash index: exactly the registered blocks, each found from its home. */
    uint32_t registered = 0;
    for (uint32_t b = 0; b < n; b++) registered += kvp__hash(p, b) != 0;
    if (!p->index) {
        if (registered) return BAD("pool %u: %u blocks named without an index", k, registered);
        return KVP_OK;
    }
    uint32_t in_index = 0;
    for (uint32_t i = 0; i < p->index_cap; i++) {
        kvp__slot e = p->index[i];
        uint32_t b = e.block;
        if (b == KVP__NIL) continue;
        if (b >= n) return BAD("pool %u: index slot %u holds block %u of %u", k, i, b, n);
        if (kvp__hash(p, b) == 0) return BAD("pool %u: index holds unnamed block %u", k, b);
        if (e.tag != p->blk[b].hash_hi)
            return BAD("pool %u: index slot %u tags block %u with %08x, its hash says %08x", k, i,
                       b, e.tag, p->blk[b].hash_hi);
        /* Reachable: no empty slot between its home and here. */
        for (uint32_t j = kvp__pool_home(p, e.tag); j != i; j = kvp__pool_next_slot(p, j))
            if (p->index[j].block == KVP__NIL)
                return BAD("pool %u: block %u in index slot %u is cut off from its home %u", k,
                           b, i, kvp__pool_home(p, e.tag));
        in_index++;
    }
    if (in_index != registered || in_index != p->index_count)
        return BAD("pool %u: index holds %u blocks, %u are named, counter says %u", k, in_index,
                   registered, p->index_count);
    if (p->index_count >= p->index_cap)
        return BAD("pool %u: index full (%u of %u slots): a probe would not end", k,
                   p->index_count, p->index_cap);
    /* Names are unique: equal hashes would shadow one another. */
    for (uint32_t b = 0; b < n; b++) {
        if (kvp__hash(p, b) == 0) continue;
        uint32_t i = kvp__pool_home(p, p->blk[b].hash_hi);
        while (p->index[i].block != b) {
            uint32_t o = p->index[i].block;
            if (o == KVP__NIL) return BAD("pool %u: named block %u not in the index", k, b);
            if (kvp__hash(p, o) == kvp__hash(p, b))
                return BAD("pool %u: blocks %u and %u share one name", k, b, o);
            i = kvp__pool_next_slot(p, i);
        }
    }
    return KVP_OK;
}

kvp_status kvp_pool_validate(const kvp_pool *pool, kvp_error *err) {
    if (!pool) return kvp__fail(err, KVP_INVALID_ARG, NULL, "pool", "NULL argument");
    uint32_t open = 0;
    for (uint32_t s = 0; s < pool->max_sequences; s++) open += pool->seq_open[s] != 0;
    if (open != pool->open_count || open + pool->seq_free_count != pool->max_sequences)
        return BAD("%u sequences open, counter says %u, %u ids free of %u", open,
                   pool->open_count, pool->seq_free_count, pool->max_sequences);
    for (uint32_t i = 0; i < pool->seq_free_count; i++) {
        uint32_t s = pool->seq_free[i];
        if (s >= pool->max_sequences || pool->seq_open[s])
            return BAD("free sequence id %u is open or out of range", s);
    }
    uint32_t max_blocks = 1;
    for (uint32_t k = 0; k < pool->part_count; k++)
        if (pool->parts[k].fresh > max_blocks) max_blocks = pool->parts[k].fresh;
    const kvp_allocator *alc = kvp__pool_alc(pool);
    uint32_t *refs = kvp__calloc(alc, max_blocks, sizeof *refs);
    uint8_t *seen = kvp__calloc(alc, max_blocks, 1);
    kvp_status st = KVP_OK;
    if (!refs || !seen) st = kvp__fail(err, KVP_NOMEM, NULL, "pool", "out of memory");
    for (uint32_t k = 0; k < pool->part_count && st == KVP_OK; k++)
        st = check_part(pool, k, refs, seen, err);
    kvp__free(alc, refs);
    kvp__free(alc, seen);
    return st;
}
