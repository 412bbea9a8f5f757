/*
 * pool_internal.h — the kvp_pool layout, shared by pool.c (operations) and
 * pool_validate.c (the invariant checker). kvp__ tier: never public.
 *
 * Per block, one 20-byte record (a block's fields share a cache line; the
 * LRU eviction and index probes touch cold blocks, so one miss beats four):
 *   hash  2 x uint32  chained prefix hash, 0 = not in the hash index (split
 *                     in halves so the record packs to 20 bytes)
 *   refs  uint32      holders (block-table entries and recurrent slots)
 *   prev  uint32      LRU link (cached-free blocks only)
 *   next  uint32      LRU link, or free-list link (free blocks)
 * plus the open-addressing index: 8-byte slots (the upper 32 bits of the
 * hash as a tag, and the block), 1.4 slots per block: 20 + 11.2 = 31.2
 * bytes per block. Probes and deletions read only the index (the tag gives
 * the home slot); a block record is read once the tag matches.
 *
 * A block is exactly one of: used (refs > 0), cached-free (refs == 0, hash
 * != 0, on the LRU list), free (refs == 0, hash == 0, on the free list), or
 * untouched (id >= fresh: never handed out, no record yet).
 *
 * Records are made lazily: blocks [0, fresh) have one, the array (and the
 * index, kept at 1.4 slots per record) grows by doubling as `fresh` rises, so
 * memory follows the blocks a run has held at once, not the pool's size
 * (`kvplan sim --blocks 1e9` allocated 7 GB up front). A fresh block is taken
 * only when the free list is empty, which hands out 0, 1, 2, ... exactly as a
 * list built over every block would.
 *
 * Block tables are made the same way: one array per sequence slot, grown by
 * doubling (entries past the sequence's count are NIL) before an operation takes
 * the blocks they hold, so a max_seq_tokens of 16 million costs what the
 * sequences really hold, not max_sequences x 500,000 entries up front (`kvplan sim
 * --max-model-len 16000000` took 510 MB for four 72-token requests). A slot keeps
 * its array when the sequence closes, for the next sequence opened there.
 */
#ifndef KVP_POOL_INTERNAL_H
#define KVP_POOL_INTERNAL_H

#include "kvplan/pool.h"
#include "util.h"

#define KVP__NIL UINT32_MAX

typedef enum kvp__part_role {
    KVP__ROLE_FULL,      /* every block of the sequence */
    KVP__ROLE_SLIDING,   /* blocks of the last window_tokens - 1 positions */
    KVP__ROLE_CHUNKED,   /* blocks of the current chunk */
    KVP__ROLE_CROSS,     /* fixed encoder blocks, taken at open */
    KVP__ROLE_RECURRENT, /* one state slot */
} kvp__part_role;

typedef struct kvp__slot {
    uint32_t tag;   /* hash >> 32 */
    uint32_t block; /* KVP__NIL = empty */
} kvp__slot;

typedef struct kvp__block {
    uint32_t hash_lo, hash_hi;
    uint32_t refs;
    uint32_t prev;
    uint32_t next;
} kvp__block;

typedef struct kvp__part {
    kvp_pool_spec spec;
    kvp__part_role role;
    bool reusable;       /* registers full blocks (or snapshots) in the index */
    uint32_t blocks;
    kvp__block *blk;     /* blk_cap records, [0, fresh) in use */
    uint32_t blk_cap, fresh;
    uint32_t free_head;  /* released blocks; untouched ones are not listed */
    uint32_t lru_head, lru_tail; /* head = least recently used */
    uint32_t used, free_count, cached; /* free_count: listed + untouched */
    kvp__slot *index;    /* NULL when not reusable */
    uint32_t index_cap;  /* slots: > blocks, so a probe always ends */
    uint32_t index_count;
    uint32_t table_cap;  /* most entries one sequence can have (max_seq_tokens / block) */
    uint32_t **tables;   /* per sequence: its block table, table_len[s] entries made */
    uint32_t *table_len; /* per sequence: entries allocated (grown by doubling) */
    uint32_t *first;     /* per sequence: first kept entry */
    uint32_t *count;     /* per sequence: entries (kept or released) */
    kvp_pool_stats stats;
} kvp__part;

struct kvp_pool {
    kvp_allocator alc;
    bool has_alc;
    kvp_pool_config config;
    uint32_t tokens_per_block; /* hashing granularity (block pools' block size) */
    bool has_window;           /* some part is sliding or chunked */
    bool single_full;          /* one part, full attention: the append fast path */
    int tpb_shift;             /* log2(tokens_per_block) when a power of two, else -1 */
    uint32_t part_count;
    kvp__part parts[KVP_MAX_POOLS];
    uint32_t max_sequences;
    uint32_t open_count;
    uint8_t *seq_open;
    uint8_t *seq_explicit;     /* partial block holds explicit ids (partial[] is live) */
    uint8_t *seq_cow;          /* forked with a partial last block: check copy-on-write */
    uint64_t *seq_len;
    uint64_t *seq_salt;
    uint64_t *seq_last_hash;   /* chained hash of the last full block, 0 = none */
    uint32_t *seq_partial;     /* max_sequences * tokens_per_block ids */
    uint32_t *seq_free;        /* stack of free sequence ids */
    uint32_t seq_free_count;
    uint64_t *scratch_hash;    /* match: chained hashes of a prompt's blocks */
    uint32_t scratch_hash_cap; /* entries of scratch_hash (grown to the longest prompt) */
    uint32_t *scratch_tokens;  /* match: one mixed block */
    uint64_t hit_tokens, query_tokens;
};

static inline const kvp_allocator *kvp__pool_alc(const kvp_pool *pool) {
    return pool->has_alc ? &pool->alc : NULL;
}

static inline uint64_t kvp__hash(const kvp__part *p, uint32_t b) {
    return (uint64_t)p->blk[b].hash_hi << 32 | p->blk[b].hash_lo;
}
static inline void kvp__set_hash(kvp__part *p, uint32_t b, uint64_t h) {
    p->blk[b].hash_lo = (uint32_t)h;
    p->blk[b].hash_hi = (uint32_t)(h >> 32);
}

/* Division by the block size: a shift for powers of two (the usual 16, 32,
 * 64), since a 64-bit divide per decoded token dominated the hot path. */
static inline uint64_t kvp__pool_div(const kvp_pool *pool, uint64_t x) {
    return pool->tpb_shift >= 0 ? x >> pool->tpb_shift : x / pool->tokens_per_block;
}
static inline uint64_t kvp__pool_mod(const kvp_pool *pool, uint64_t x) {
    return pool->tpb_shift >= 0 ? x & (pool->tokens_per_block - 1u) : x % pool->tokens_per_block;
}
static inline uint64_t kvp__pool_blocks(const kvp_pool *pool, uint64_t tokens) {
    return kvp__pool_div(pool, tokens) + (kvp__pool_mod(pool, tokens) != 0);
}

/* Home slot of a tag: the tag scaled to [0, index_cap) (Lemire's
 * multiply-shift range reduction; no power-of-two size needed). */
static inline uint32_t kvp__pool_home(const kvp__part *p, uint32_t tag) {
    return (uint32_t)(((uint64_t)tag * p->index_cap) >> 32);
}
static inline uint32_t kvp__pool_next_slot(const kvp__part *p, uint32_t i) {
    return i + 1 == p->index_cap ? 0 : i + 1;
}

#endif
