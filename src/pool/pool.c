/* pool.c — the paged KV block pool with prefix reuse (include/kvplan/pool.h).
 *
 * The structure follows what vLLM's BlockPool / KVCacheManager do in Python,
 * in a form a C engine would link: index-linked lists instead of objects,
 * one flat block-table array, an open-addressing index keyed by the chained
 * block hash. Block records grow lazily with the blocks held (pool_internal.h);
 * an operation that needs more blocks reserves their records first, so a
 * failed growth is an error of that operation, never a half-made change. */
#include <string.h>

#include "pool_internal.h"

/* ------------------------------------------------------------------ hashing
 * wyhash-style: a 64x64->128 multiply folded to 64 bits mixes two words at a
 * time. Constants are odd 64-bit values with balanced bits. */
__extension__ typedef unsigned __int128 kvp__u128;

#define K0 0xa0761d6478bd642fULL
#define K1 0xe7037ed1a0b428dbULL
#define K2 0x8ebc6af09c88c6e3ULL
#define K3 0x589965cc75374cc3ULL
#define K4 0x1d8e4e27c47d124fULL

static inline uint64_t mum(uint64_t a, uint64_t b) {
    kvp__u128 r = (kvp__u128)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
}

/* Content of one block of explicit token ids. */
static uint64_t hash_tokens(const uint32_t *t, uint32_t n) {
    uint64_t h = K0 ^ n;
    uint32_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint64_t a = (uint64_t)t[i] | (uint64_t)t[i + 1] << 32;
        uint64_t b = (uint64_t)t[i + 2] | (uint64_t)t[i + 3] << 32;
        h = mum(a ^ K1, b ^ h ^ K2);
    }
    for (; i < n; i++) h = mum(h ^ t[i] ^ K3, K4);
    return mum(h ^ K1, K4);
}

/* Id of salt token `pos` (a NULL-token position): stands in for the text
 * when a block mixes explicit and salt tokens. */
static inline uint32_t salt_token(uint64_t salt, uint64_t pos) {
    return (uint32_t)mum(salt ^ K2, pos ^ K3);
}

/* Content of a block made only of salt tokens: a function of (salt, block)
 * computed in O(1), with no ids materialised. */
static inline uint64_t hash_salt_block(uint64_t salt, uint64_t block) {
    return mum(salt ^ K4, (block + 1) ^ K0) ^ K1;
}

/* Chained name of a block; 0 is reserved for "not registered". */
static inline uint64_t chain(uint64_t parent, uint64_t content) {
    uint64_t h = mum(parent ^ K3, content ^ K2);
    return h ? h : 1;
}

/* ------------------------------------------------------------------ lists */
static inline void lru_unlink(kvp__part *p, uint32_t b) {
    uint32_t pv = p->blk[b].prev, nx = p->blk[b].next;
    if (pv != KVP__NIL) p->blk[pv].next = nx;
    else p->lru_head = nx;
    if (nx != KVP__NIL) p->blk[nx].prev = pv;
    else p->lru_tail = pv;
    p->blk[b].prev = p->blk[b].next = KVP__NIL;
}

static inline void lru_push_tail(kvp__part *p, uint32_t b) {
    p->blk[b].prev = p->lru_tail;
    p->blk[b].next = KVP__NIL;
    if (p->lru_tail != KVP__NIL) p->blk[p->lru_tail].next = b;
    else p->lru_head = b;
    p->lru_tail = b;
}

/* ------------------------------------------------------------------ index
 * Linear probing with backward-shift deletion (no tombstones), so a lookup
 * stops at the first empty slot and the table never degrades. */
static inline uint32_t idx_find(const kvp__part *p, uint64_t h) {
    uint32_t tag = (uint32_t)(h >> 32);
    uint32_t i = kvp__pool_home(p, tag);
    for (;;) {
        kvp__slot e = p->index[i];
        if (e.block == KVP__NIL) return KVP__NIL;
        if (e.tag == tag && kvp__hash(p, e.block) == h) return e.block;
        i = kvp__pool_next_slot(p, i);
    }
}

static inline void idx_insert(kvp__part *p, uint32_t blk) {
    uint32_t tag = p->blk[blk].hash_hi;
    uint32_t i = kvp__pool_home(p, tag);
    while (p->index[i].block != KVP__NIL) i = kvp__pool_next_slot(p, i);
    p->index[i] = (kvp__slot){tag, blk};
    p->index_count++;
}

/* Find `h`, or enter block `blk` under it: one probe sequence for both
 * (registration is a miss followed by an insert at the same place).
 * Returns the block already named h, or KVP__NIL after inserting blk. */
static inline uint32_t idx_find_or_insert(kvp__part *p, uint64_t h, uint32_t blk) {
    uint32_t tag = (uint32_t)(h >> 32);
    uint32_t i = kvp__pool_home(p, tag);
    for (;;) {
        kvp__slot e = p->index[i];
        if (e.block == KVP__NIL) break;
        if (e.tag == tag && kvp__hash(p, e.block) == h) return e.block;
        i = kvp__pool_next_slot(p, i);
    }
    kvp__set_hash(p, blk, h);
    p->index[i] = (kvp__slot){tag, blk};
    p->index_count++;
    return KVP__NIL;
}

static void idx_remove(kvp__part *p, uint32_t blk) {
    uint32_t i = kvp__pool_home(p, p->blk[blk].hash_hi);
    while (p->index[i].block != blk) i = kvp__pool_next_slot(p, i);
    uint32_t j = i;
    for (;;) {
        j = kvp__pool_next_slot(p, j);
        kvp__slot e = p->index[j];
        if (e.block == KVP__NIL) break;
        uint32_t k = kvp__pool_home(p, e.tag);
        /* e stays when its home lies cyclically in (i, j]. */
        bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
        if (stays) continue;
        p->index[i] = e;
        i = j;
    }
    p->index[i].block = KVP__NIL;
    p->index_count--;
}

/* ------------------------------------------------------------------ blocks */
static inline uint32_t available(const kvp__part *p) { return p->free_count + p->cached; }

/* Take a fresh block: the free list first, then an untouched block, else
 * evict the LRU cached block. The caller has checked available() and
 * reserved the records (reserve()). */
static inline uint32_t block_alloc(kvp__part *p) {
    uint32_t b = p->free_head;
    if (b != KVP__NIL) {
        p->free_head = p->blk[b].next;
        p->blk[b].next = KVP__NIL;
        p->free_count--;
    } else if (p->fresh < p->blocks) {
        b = p->fresh++;
        p->blk[b] = (kvp__block){0, 0, 0, KVP__NIL, KVP__NIL};
        p->free_count--;
    } else {
        b = p->lru_head;
        lru_unlink(p, b);
        p->cached--;
        idx_remove(p, b);
        kvp__set_hash(p, b, 0);
        p->stats.evictions++;
    }
    p->blk[b].refs = 1;
    if (++p->used > p->stats.peak_used_blocks) p->stats.peak_used_blocks = p->used;
    return b;
}

static inline void block_release(kvp__part *p, uint32_t b) {
    if (--p->blk[b].refs != 0) return;
    p->used--;
    if (kvp__hash(p, b) != 0) {
        lru_push_tail(p, b);
        p->cached++;
    } else {
        p->blk[b].next = p->free_head;
        p->free_head = b;
        p->free_count++;
    }
}

/* Index slots for `records` block records: 1.4 per record (load at most 0.71). */
static uint64_t index_slots(uint64_t records) {
    uint64_t cap = records + 2 * records / 5 + 1;
    return cap > UINT32_MAX ? UINT32_MAX : cap;
}

/* Rebuild the index at `cap` slots (the home of a tag depends on the size). */
static bool index_resize(kvp_pool *pool, kvp__part *p, uint32_t cap) {
    kvp__slot *old = p->index;
    uint32_t old_cap = p->index_cap;
    kvp__slot *n = kvp__malloc(kvp__pool_alc(pool), (size_t)cap * sizeof *n);
    if (!n) return false;
    memset(n, 0xff, (size_t)cap * sizeof *n);
    p->index = n;
    p->index_cap = cap;
    p->index_count = 0;
    for (uint32_t i = 0; old && i < old_cap; i++)
        if (old[i].block != KVP__NIL) idx_insert(p, old[i].block);
    kvp__free(kvp__pool_alc(pool), old);
    return true;
}

/* Make records for the untouched blocks that taking `need` blocks may use
 * (those the free list cannot give): the array doubles, up to the pool's
 * size, bounded by KVP_POOL_MAX_RECORD_BYTES of records held at once. */
static kvp_status reserve(kvp_pool *pool, uint32_t k, uint32_t need, kvp_error *err) {
    kvp__part *p = &pool->parts[k];
    uint32_t listed = p->free_count - (p->blocks - p->fresh);
    if (need <= listed) return KVP_OK;
    uint64_t want = (uint64_t)p->fresh + (need - listed);
    if (want > p->blocks) want = p->blocks;
    if (want <= p->blk_cap) return KVP_OK;
    uint64_t cap = p->blk_cap ? (uint64_t)p->blk_cap * 2 : 1024;
    if (cap < want) cap = want;
    if (cap > p->blocks) cap = p->blocks;
    uint64_t bytes = cap * sizeof *p->blk + (p->reusable ? index_slots(cap) * sizeof *p->index : 0);
    if (bytes > KVP_POOL_MAX_RECORD_BYTES && want < cap) { /* the last doubling: only what is needed */
        cap = want;
        bytes = cap * sizeof *p->blk + (p->reusable ? index_slots(cap) * sizeof *p->index : 0);
    }
    if (bytes > KVP_POOL_MAX_RECORD_BYTES)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "blocks",
                         "pool %u (%s): holding %llu blocks at once needs %llu bytes of block "
                         "records, more than the %llu-byte limit",
                         k, kvp_cache_kind_name(p->spec.kind), (unsigned long long)want,
                         (unsigned long long)bytes,
                         (unsigned long long)KVP_POOL_MAX_RECORD_BYTES);
    kvp__block *nb = kvp__realloc(kvp__pool_alc(pool), p->blk, (size_t)cap * sizeof *nb);
    if (!nb) return kvp__fail(err, KVP_NOMEM, NULL, "blocks", "out of memory for %llu block records",
                              (unsigned long long)cap);
    p->blk = nb;
    p->blk_cap = (uint32_t)cap;
    if (p->reusable && !index_resize(pool, p, (uint32_t)index_slots(cap)))
        return kvp__fail(err, KVP_NOMEM, NULL, "blocks", "out of memory for the block index");
    return KVP_OK;
}

/* Room for `n` entries (n <= table_cap) in sequence `seq`'s block table of part
 * `k`: the array doubles (from 16 entries), capped at table_cap; new entries are
 * NIL. Called before an operation changes anything, so KVP_NOMEM leaves the pool
 * as it was. */
static kvp_status table_room(kvp_pool *pool, uint32_t k, uint32_t seq, uint32_t n, kvp_error *err) {
    kvp__part *p = &pool->parts[k];
    uint32_t have = p->table_len[seq];
    if (n <= have) return KVP_OK;
    uint64_t cap = have ? (uint64_t)have * 2 : 16;
    if (cap < n) cap = n;
    if (cap > p->table_cap) cap = p->table_cap;
    uint32_t *t = kvp__realloc(kvp__pool_alc(pool), p->tables[seq], (size_t)cap * sizeof *t);
    if (!t)
        return kvp__fail(err, KVP_NOMEM, NULL, "blocks",
                         "out of memory for the block table of sequence %u (%llu entries)", seq,
                         (unsigned long long)cap);
    memset(t + have, 0xff, (size_t)(cap - have) * sizeof *t);
    p->tables[seq] = t;
    p->table_len[seq] = (uint32_t)cap;
    return KVP_OK;
}

/* Take one more reference on a block found in the index (a hit). */
static inline void block_take(kvp__part *p, uint32_t b) {
    if (p->blk[b].refs == 0) {
        lru_unlink(p, b);
        p->cached--;
        if (++p->used > p->stats.peak_used_blocks) p->stats.peak_used_blocks = p->used;
    }
    p->blk[b].refs++;
}

static inline void copy_block(kvp_pool *pool, uint32_t part, uint32_t src, uint32_t dst) {
    pool->parts[part].stats.copies++;
    if (pool->config.copy_fn) pool->config.copy_fn(pool->config.copy_ctx, part, src, dst);
}

/* Tokens of a sequence of `len` tokens that a window part no longer needs. */
static inline uint64_t skipped_tokens(const kvp__part *p, uint64_t len) {
    uint64_t w = p->spec.window_tokens;
    if (p->role == KVP__ROLE_SLIDING) return len >= w ? len - w + 1 : 0;
    if (p->role == KVP__ROLE_CHUNKED) return len / w * w;
    return 0;
}

static inline bool is_block_role(kvp__part_role r) {
    return r == KVP__ROLE_FULL || r == KVP__ROLE_SLIDING || r == KVP__ROLE_CHUNKED;
}

static inline uint32_t *seq_table(const kvp__part *p, uint32_t seq) {
    return p->tables[seq];
}

#ifdef KVP_DEBUG
/* O(1) per part: the counts add up; at KVP_DEBUG >= 2 everything. */
static kvp_status debug_check(const kvp_pool *pool, kvp_error *err) {
#if KVP_DEBUG >= 2
    kvp_status full = kvp_pool_validate(pool, err);
    if (full != KVP_OK) return full;
#endif
    for (uint32_t k = 0; k < pool->part_count; k++) {
        const kvp__part *p = &pool->parts[k];
        if ((uint64_t)p->used + p->free_count + p->cached != p->blocks)
            return kvp__fail(err, KVP_CONFIG, NULL, "pool",
                             "pool %u invariant broken: used %u + free %u + cached %u != %u", k,
                             p->used, p->free_count, p->cached, p->blocks);
    }
    return KVP_OK;
}
#define DEBUG_CHECK(pool, err) debug_check(pool, err)
#else
#define DEBUG_CHECK(pool, err) KVP_OK
#endif

/* ------------------------------------------------------------------ config */
static kvp__part_role role_of(const kvp_pool_spec *s) {
    switch (s->kind) {
    case KVP_CACHE_RECURRENT:
        return KVP__ROLE_RECURRENT;
    case KVP_CACHE_CROSS:
        return KVP__ROLE_CROSS;
    case KVP_CACHE_SLIDING:
        return s->window_tokens ? KVP__ROLE_SLIDING : KVP__ROLE_FULL;
    case KVP_CACHE_CHUNKED:
        return s->window_tokens ? KVP__ROLE_CHUNKED : KVP__ROLE_FULL;
    default:
        return KVP__ROLE_FULL;
    }
}

kvp_status kvp_pool_config_from_cost(const kvp_cost *cost, uint64_t blocks,
                                     uint32_t recurrent_slots, uint32_t max_sequences,
                                     uint64_t max_seq_tokens, bool prefix_reuse,
                                     kvp_pool_config *out, kvp_error *err) {
    if (!cost || !out) return kvp__fail(err, KVP_INVALID_ARG, NULL, "cost", "NULL argument");
    if (cost->pool_count == 0 || cost->pool_count > KVP_MAX_POOLS)
        return kvp__fail(err, KVP_CONFIG, NULL, "cost",
                         "a pool needs 1 to %d cost pools, the cost has %u", KVP_MAX_POOLS,
                         cost->pool_count);
    if (blocks == 0 || blocks > KVP_POOL_MAX_BLOCKS)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "blocks",
                         "expected 1 to %u blocks per pool, found %llu", KVP_POOL_MAX_BLOCKS,
                         (unsigned long long)blocks);
    memset(out, 0, sizeof *out);
    out->pool_count = cost->pool_count;
    for (uint32_t k = 0; k < cost->pool_count; k++) {
        const kvp_pool_cost *c = &cost->pools[k];
        kvp_pool_spec *s = &out->pools[k];
        s->kind = c->kind;
        s->window_tokens = c->window_tokens;
        s->tokens_per_block = c->kind == KVP_CACHE_RECURRENT ? 0 : c->tokens_per_block;
        s->page_bytes = c->page_bytes;
        s->blocks = c->kind == KVP_CACHE_RECURRENT ? recurrent_slots : (uint32_t)blocks;
    }
    out->max_sequences = max_sequences;
    out->max_seq_tokens = max_seq_tokens;
    out->prefix_reuse = prefix_reuse;
    return KVP_OK;
}

/* ------------------------------------------------------------------ new/free */
void kvp_pool_free(kvp_pool *pool) {
    if (!pool) return;
    const kvp_allocator *alc = kvp__pool_alc(pool);
    for (uint32_t k = 0; k < pool->part_count; k++) {
        kvp__part *p = &pool->parts[k];
        kvp__free(alc, p->blk);
        kvp__free(alc, p->index);
        for (uint32_t s = 0; p->tables && s < pool->max_sequences; s++) kvp__free(alc, p->tables[s]);
        kvp__free(alc, p->tables);
        kvp__free(alc, p->table_len);
        kvp__free(alc, p->first);
        kvp__free(alc, p->count);
    }
    kvp__free(alc, pool->seq_open);
    kvp__free(alc, pool->seq_explicit);
    kvp__free(alc, pool->seq_cow);
    kvp__free(alc, pool->seq_len);
    kvp__free(alc, pool->seq_salt);
    kvp__free(alc, pool->seq_last_hash);
    kvp__free(alc, pool->seq_partial);
    kvp__free(alc, pool->seq_free);
    kvp__free(alc, pool->scratch_hash);
    kvp__free(alc, pool->scratch_tokens);
    kvp__free(alc, pool);
}

/* calloc of n elements of size sz with the overflow checked, or NULL. */
static void *alloc_array(const kvp_allocator *alc, uint64_t n, size_t sz) {
    uint64_t bytes;
    if (!kvp__mul_u64(n, sz, &bytes) || bytes > (uint64_t)SIZE_MAX / 2) return NULL;
    return kvp__calloc(alc, (size_t)n, sz);
}

static kvp_status part_init(kvp_pool *pool, uint32_t k, uint32_t max_table, kvp_error *err) {
    kvp__part *p = &pool->parts[k];
    const kvp_allocator *alc = kvp__pool_alc(pool);
    uint32_t n = p->blocks;
    if (p->role == KVP__ROLE_RECURRENT) p->table_cap = 1;
    else if (p->role == KVP__ROLE_CROSS)
        p->table_cap = (uint32_t)kvp__ceil_div_u64(p->spec.window_tokens, pool->tokens_per_block);
    else p->table_cap = max_table;
    /* Block tables: made per sequence as it takes blocks (table_room), so
     * memory follows the tokens held, not max_sequences x max_seq_tokens. */
    p->tables = alloc_array(alc, pool->max_sequences, sizeof *p->tables);
    p->table_len = alloc_array(alc, pool->max_sequences, sizeof *p->table_len);
    p->first = alloc_array(alc, pool->max_sequences, sizeof *p->first);
    p->count = alloc_array(alc, pool->max_sequences, sizeof *p->count);
    if (!p->tables || !p->table_len || !p->first || !p->count)
        return kvp__fail(err, KVP_NOMEM, NULL, "blocks", "out of memory for %u blocks", n);
    /* No block record yet (reserve() makes them); an index of one slot, so
     * that a probe of the empty index ends. */
    if (p->reusable && !index_resize(pool, p, 1))
        return kvp__fail(err, KVP_NOMEM, NULL, "blocks", "out of memory for the block index");
    p->free_head = KVP__NIL;
    p->lru_head = p->lru_tail = KVP__NIL;
    p->free_count = n;
    p->stats.total_blocks = n;
    return KVP_OK;
}

kvp_status kvp_pool_new(const kvp_pool_config *config, const kvp_allocator *alc, kvp_pool **out,
                        kvp_error *err) {
    if (!out) return kvp__fail(err, KVP_INVALID_ARG, NULL, "out", "NULL argument");
    *out = NULL;
    if (!config) return kvp__fail(err, KVP_INVALID_ARG, NULL, "config", "NULL argument");
    if (config->pool_count == 0 || config->pool_count > KVP_MAX_POOLS)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "pool_count",
                         "expected 1 to %d pools, found %u", KVP_MAX_POOLS, config->pool_count);
    if (config->max_sequences == 0 || config->max_sequences > KVP_POOL_MAX_SEQUENCES)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "max_sequences",
                         "expected 1 to %u sequences, found %u", KVP_POOL_MAX_SEQUENCES,
                         config->max_sequences);
    if (config->max_seq_tokens == 0 || config->max_seq_tokens > (uint64_t)UINT32_MAX)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "max_seq_tokens",
                         "expected 1 to %u tokens per sequence, found %llu", UINT32_MAX,
                         (unsigned long long)config->max_seq_tokens);
    uint32_t tpb = 0;
    for (uint32_t k = 0; k < config->pool_count; k++) {
        const kvp_pool_spec *s = &config->pools[k];
        if (s->kind >= KVP_CACHE_KIND_COUNT)
            return kvp__fail(err, KVP_INVALID_ARG, NULL, "kind", "pool %u: unknown kind %d", k,
                             (int)s->kind);
        if (s->blocks == 0 || s->blocks > KVP_POOL_MAX_BLOCKS)
            return kvp__fail(err, KVP_INVALID_ARG, NULL, "blocks",
                             "pool %u (%s): expected 1 to %u blocks, found %u", k,
                             kvp_cache_kind_name(s->kind), KVP_POOL_MAX_BLOCKS, s->blocks);
        if (s->kind == KVP_CACHE_RECURRENT) continue;
        if (s->tokens_per_block == 0 || s->tokens_per_block > 65536)
            return kvp__fail(err, KVP_INVALID_ARG, NULL, "tokens_per_block",
                             "pool %u (%s): expected 1 to 65536 tokens per block, found %u", k,
                             kvp_cache_kind_name(s->kind), s->tokens_per_block);
        /* One block size: the chained hash names the same token span in every pool. */
        if (tpb && s->tokens_per_block != tpb)
            return kvp__fail(err, KVP_INVALID_ARG, NULL, "tokens_per_block",
                             "pool %u has %u tokens per block, pool 0.. has %u: all block pools "
                             "must share one block size",
                             k, s->tokens_per_block, tpb);
        tpb = s->tokens_per_block;
    }
    if (tpb == 0) tpb = 16; /* recurrent-only model: snapshot granularity */
    kvp_pool *pool = kvp__calloc(alc, 1, sizeof *pool);
    if (!pool) return kvp__fail(err, KVP_NOMEM, NULL, "pool", "out of memory");
    if (alc) {
        pool->alc = *alc;
        pool->has_alc = true;
    }
    pool->config = *config;
    pool->tokens_per_block = tpb;
    pool->tpb_shift = -1;
    for (int sh = 0; sh < 17; sh++)
        if (tpb == (1u << sh)) pool->tpb_shift = sh;
    pool->part_count = config->pool_count;
    pool->max_sequences = config->max_sequences;
    uint32_t max_table = (uint32_t)kvp__ceil_div_u64(config->max_seq_tokens, tpb);
    kvp_status st = KVP_OK;
    for (uint32_t k = 0; k < pool->part_count && st == KVP_OK; k++) {
        kvp__part *p = &pool->parts[k];
        p->spec = config->pools[k];
        p->role = role_of(&p->spec);
        p->blocks = p->spec.blocks;
        p->reusable = config->prefix_reuse && p->role != KVP__ROLE_CROSS;
        pool->has_window = pool->has_window || p->role == KVP__ROLE_SLIDING ||
                           p->role == KVP__ROLE_CHUNKED;
        st = part_init(pool, k, max_table, err);
    }
    pool->single_full = pool->part_count == 1 && pool->parts[0].role == KVP__ROLE_FULL;
    const kvp_allocator *a = kvp__pool_alc(pool);
    uint32_t ns = pool->max_sequences;
    if (st == KVP_OK) {
        pool->seq_open = alloc_array(a, ns, 1);
        pool->seq_explicit = alloc_array(a, ns, 1);
        pool->seq_cow = alloc_array(a, ns, 1);
        pool->seq_len = alloc_array(a, ns, sizeof(uint64_t));
        pool->seq_salt = alloc_array(a, ns, sizeof(uint64_t));
        pool->seq_last_hash = alloc_array(a, ns, sizeof(uint64_t));
        pool->seq_partial = alloc_array(a, (uint64_t)ns * tpb, sizeof(uint32_t));
        pool->seq_free = alloc_array(a, ns, sizeof(uint32_t));
        pool->scratch_tokens = alloc_array(a, tpb, sizeof(uint32_t));
        if (!pool->seq_open || !pool->seq_explicit || !pool->seq_cow || !pool->seq_len || !pool->seq_salt ||
            !pool->seq_last_hash || !pool->seq_partial || !pool->seq_free ||
            !pool->scratch_tokens)
            st = kvp__fail(err, KVP_NOMEM, NULL, "max_sequences",
                           "out of memory for %u sequences", ns);
    }
    if (st != KVP_OK) {
        kvp_pool_free(pool);
        return st;
    }
    /* Stack of free ids, lowest on top. */
    for (uint32_t s = 0; s < ns; s++) pool->seq_free[s] = ns - 1 - s;
    pool->seq_free_count = ns;
    *out = pool;
    return KVP_OK;
}

/* ------------------------------------------------------------------ sequences */
static kvp_status bad_seq(kvp_error *err, uint32_t seq) {
    return kvp__fail(err, KVP_INVALID_ARG, NULL, "seq", "sequence %u is not open", seq);
}

static inline bool seq_ok(const kvp_pool *pool, uint32_t seq) {
    return seq < pool->max_sequences && pool->seq_open[seq];
}

kvp_status kvp_pool_seq_open(kvp_pool *pool, uint64_t salt, uint32_t *out_seq, kvp_error *err) {
    if (!pool || !out_seq) return kvp__fail(err, KVP_INVALID_ARG, NULL, "pool", "NULL argument");
    if (pool->seq_free_count == 0)
        return kvp__fail(err, KVP_INFEASIBLE, NULL, "max_sequences",
                         "all %u sequence slots are open", pool->max_sequences);
    for (uint32_t k = 0; k < pool->part_count; k++) {
        const kvp__part *p = &pool->parts[k];
        uint32_t need = p->role == KVP__ROLE_RECURRENT ? 1
                        : p->role == KVP__ROLE_CROSS   ? p->table_cap
                                                       : 0;
        if (need > available(p))
            return kvp__fail(err, KVP_INFEASIBLE, NULL, "blocks",
                             "pool %u (%s) has %u blocks available, a new sequence needs %u", k,
                             kvp_cache_kind_name(p->spec.kind), available(p), need);
        kvp_status rs = reserve(pool, k, need, err);
        if (!rs) rs = table_room(pool, k, pool->seq_free[pool->seq_free_count - 1], need, err);
        if (rs) return rs;
    }
    uint32_t s = pool->seq_free[--pool->seq_free_count];
    pool->seq_open[s] = 1;
    pool->open_count++;
    pool->seq_len[s] = 0;
    pool->seq_salt[s] = salt;
    pool->seq_last_hash[s] = 0;
    pool->seq_explicit[s] = 0;
    pool->seq_cow[s] = 0;
    for (uint32_t k = 0; k < pool->part_count; k++) {
        kvp__part *p = &pool->parts[k];
        uint32_t *t = seq_table(p, s);
        p->first[s] = 0;
        p->count[s] = 0;
        if (p->role == KVP__ROLE_RECURRENT || p->role == KVP__ROLE_CROSS) {
            for (uint32_t i = 0; i < p->table_cap; i++) t[i] = block_alloc(p);
            p->count[s] = p->table_cap;
        }
    }
    *out_seq = s;
    return DEBUG_CHECK(pool, err);
}

void kvp_pool_seq_close(kvp_pool *pool, uint32_t seq) {
    if (!pool || !seq_ok(pool, seq)) return;
    for (uint32_t k = 0; k < pool->part_count; k++) {
        kvp__part *p = &pool->parts[k];
        uint32_t *t = seq_table(p, seq);
        /* Last block first: the LRU list then evicts a prompt's tail before
         * the head that other prompts share. */
        for (uint32_t i = p->count[seq]; i-- > p->first[seq];) {
            if (t[i] != KVP__NIL) block_release(p, t[i]);
            t[i] = KVP__NIL;
        }
        p->first[seq] = p->count[seq] = 0;
    }
    pool->seq_open[seq] = 0;
    pool->seq_len[seq] = 0;
    pool->open_count--;
    pool->seq_free[pool->seq_free_count++] = seq;
}

uint64_t kvp_pool_seq_tokens(const kvp_pool *pool, uint32_t seq) {
    return pool && seq_ok(pool, seq) ? pool->seq_len[seq] : 0;
}

/* Release the blocks a window part no longer needs at length `len`. */
static void release_window(const kvp_pool *pool, kvp__part *p, uint32_t seq, uint64_t len) {
    uint32_t keep = (uint32_t)kvp__pool_div(pool, skipped_tokens(p, len));
    uint32_t *t = seq_table(p, seq);
    for (uint32_t i = p->first[seq]; i < keep; i++) {
        if (t[i] != KVP__NIL) block_release(p, t[i]);
        t[i] = KVP__NIL;
    }
    if (keep > p->first[seq]) p->first[seq] = keep;
}

/* Enter block `b` of the sequence, now full with name `h`, in every
 * reusable block part (unless an equal block is there already: the first
 * copy stays the cached one, as in vLLM). */
static inline void register_block(kvp_pool *pool, uint32_t seq, uint32_t b, uint64_t h) {
    for (uint32_t k = 0; k < pool->part_count; k++) {
        kvp__part *p = &pool->parts[k];
        if (!p->reusable || !is_block_role(p->role)) continue;
        uint32_t blk = seq_table(p, seq)[b];
        if (blk == KVP__NIL || kvp__hash(p, blk) != 0) continue;
        (void)idx_find_or_insert(p, h, blk);
    }
}

/* Fold `count` tokens at position `pos` into the sequence's hash state and
 * register every block they complete. */
static void hash_append(kvp_pool *pool, uint32_t seq, const uint32_t *tokens, uint64_t pos,
                        uint64_t count) {
    uint32_t tpb = pool->tokens_per_block;
    uint32_t *partial = pool->seq_partial + (size_t)seq * tpb;
    uint64_t salt = pool->seq_salt[seq];
    uint32_t fill = (uint32_t)kvp__pool_mod(pool, pos);
    bool expl = pool->seq_explicit[seq] != 0;
    while (count > 0) {
        uint32_t take = tpb - fill;
        if (take > count) take = (uint32_t)count;
        if (tokens) {
            if (!expl) {
                /* First explicit id in this block: name the salt tokens before it. */
                for (uint32_t i = 0; i < fill; i++) partial[i] = salt_token(salt, pos - fill + i);
                expl = true;
            }
            memcpy(partial + fill, tokens, (size_t)take * sizeof *tokens);
            tokens += take;
        } else if (expl) {
            for (uint32_t i = 0; i < take; i++) partial[fill + i] = salt_token(salt, pos + i);
        }
        fill += take;
        pos += take;
        count -= take;
        if (fill == tpb) {
            uint64_t b = kvp__pool_div(pool, pos) - 1;
            uint64_t content = expl ? hash_tokens(partial, tpb) : hash_salt_block(salt, b);
            uint64_t h = chain(pool->seq_last_hash[seq], content);
            pool->seq_last_hash[seq] = h;
            register_block(pool, seq, (uint32_t)b, h);
            fill = 0;
            expl = false;
        }
    }
    pool->seq_explicit[seq] = expl;
}

kvp_status kvp_pool_seq_append(kvp_pool *pool, uint32_t seq, const uint32_t *tokens,
                               uint64_t explicit_tokens, uint64_t count, kvp_error *err) {
    if (!pool) return kvp__fail(err, KVP_INVALID_ARG, NULL, "pool", "NULL argument");
    if (!seq_ok(pool, seq)) return bad_seq(err, seq);
    if (explicit_tokens > count || (explicit_tokens && !tokens))
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "explicit_tokens",
                         "%llu explicit ids of %llu tokens%s", (unsigned long long)explicit_tokens,
                         (unsigned long long)count, tokens ? "" : " without an id array");
    uint64_t len = pool->seq_len[seq];
    if (count > pool->config.max_seq_tokens - len)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "max_seq_tokens",
                         "sequence %u would hold %llu + %llu tokens, the limit is %llu", seq,
                         (unsigned long long)len, (unsigned long long)count,
                         (unsigned long long)pool->config.max_seq_tokens);
    if (count == 0) return KVP_OK;
    /* Decode fast path: one token that neither opens nor fills a block, no
     * window to slide, no shared partial block: only the length (and, for a
     * block holding explicit ids, this token's id) changes. */
    uint64_t fill = kvp__pool_mod(pool, len);
    if (count == 1 && fill != 0 && fill + 1 < pool->tokens_per_block && !pool->has_window &&
        !pool->seq_cow[seq]) {
        if (pool->config.prefix_reuse && (pool->seq_explicit[seq] || explicit_tokens)) {
            uint32_t *partial = pool->seq_partial + (size_t)seq * pool->tokens_per_block;
            if (!pool->seq_explicit[seq])
                for (uint64_t i = 0; i < fill; i++)
                    partial[i] = salt_token(pool->seq_salt[seq], len - fill + i);
            partial[fill] = explicit_tokens ? tokens[0] : salt_token(pool->seq_salt[seq], len);
            pool->seq_explicit[seq] = 1;
        }
        pool->seq_len[seq] = len + 1;
        return KVP_OK;
    }
    uint32_t new_count = (uint32_t)kvp__pool_blocks(pool, len + count);
    /* Only a fork shares a partial block (matches take full blocks only),
     * so the copy-on-write check is needed only after one. */
    bool partial = fill != 0 && pool->seq_cow[seq];
    bool grows = new_count != (uint32_t)kvp__pool_blocks(pool, len);
    if (!grows && !partial && !pool->has_window) goto hash; /* decode inside a block */
    if (pool->single_full && !partial) {
        /* One full-attention pool (the common dense model): no window to
         * release, nothing shared to copy, one availability check. */
        kvp__part *p = &pool->parts[0];
        uint32_t c = p->count[seq], need = new_count - c;
        if (need > available(p))
            return kvp__fail(err, KVP_INFEASIBLE, NULL, "blocks",
                             "pool 0 (%s) has %u blocks available, sequence %u needs %u",
                             kvp_cache_kind_name(p->spec.kind), available(p), seq, need);
        kvp_status rs = reserve(pool, 0, need, err);
        if (!rs) rs = table_room(pool, 0, seq, new_count, err);
        if (rs) return rs;
        uint32_t *t = seq_table(p, seq);
        for (uint32_t i = c; i < new_count; i++) t[i] = block_alloc(p);
        p->count[seq] = new_count;
        pool->seq_cow[seq] = 0;
        goto hash;
    }
    /* 1: windows let go of what the previous length no longer needs. */
    for (uint32_t k = 0; k < pool->part_count; k++) {
        kvp__part *p = &pool->parts[k];
        if (p->role == KVP__ROLE_SLIDING || p->role == KVP__ROLE_CHUNKED)
            release_window(pool, p, seq, len);
    }
    /* 2: all or nothing: every part must have the blocks first. */
    for (uint32_t k = 0; k < pool->part_count; k++) {
        kvp__part *p = &pool->parts[k];
        if (!is_block_role(p->role)) continue;
        uint32_t c = p->count[seq];
        uint32_t need = new_count - c;
        if (partial && seq_table(p, seq)[c - 1] != KVP__NIL && p->blk[seq_table(p, seq)[c - 1]].refs > 1)
            need++;
        if (need > available(p))
            return kvp__fail(err, KVP_INFEASIBLE, NULL, "blocks",
                             "pool %u (%s) has %u blocks available, sequence %u needs %u", k,
                             kvp_cache_kind_name(p->spec.kind), available(p), seq, need);
        kvp_status rs = reserve(pool, k, need, err);
        if (!rs) rs = table_room(pool, k, seq, new_count, err);
        if (rs) return rs;
    }
    /* 3: copy a shared partial block, take the new ones. */
    for (uint32_t k = 0; k < pool->part_count; k++) {
        kvp__part *p = &pool->parts[k];
        if (!is_block_role(p->role)) continue;
        uint32_t *t = seq_table(p, seq);
        uint32_t c = p->count[seq];
        if (partial && t[c - 1] != KVP__NIL && p->blk[t[c - 1]].refs > 1) {
            uint32_t fresh = block_alloc(p);
            copy_block(pool, k, t[c - 1], fresh);
            block_release(p, t[c - 1]);
            t[c - 1] = fresh;
        }
        for (uint32_t i = c; i < new_count; i++) t[i] = block_alloc(p);
        p->count[seq] = new_count;
    }
    pool->seq_cow[seq] = 0;
hash:
    /* 4: name the blocks that became full. */
    if (pool->config.prefix_reuse) {
        if (explicit_tokens) hash_append(pool, seq, tokens, len, explicit_tokens);
        if (count > explicit_tokens)
            hash_append(pool, seq, NULL, len + explicit_tokens, count - explicit_tokens);
    }
    pool->seq_len[seq] = len + count;
    return DEBUG_CHECK(pool, err);
}

/* Chained hashes of the full blocks of a prompt (explicit ids, then salt
 * tokens), the same names hash_append() gives them. */
static void hash_prompt(kvp_pool *pool, uint64_t salt, const uint32_t *tokens, uint64_t expl,
                        uint32_t nblocks, uint64_t *out) {
    uint32_t tpb = pool->tokens_per_block;
    uint64_t parent = 0;
    for (uint32_t b = 0; b < nblocks; b++) {
        uint64_t start = (uint64_t)b * tpb, content;
        if (start + tpb <= expl) {
            content = hash_tokens(tokens + start, tpb);
        } else if (start >= expl) {
            content = hash_salt_block(salt, b);
        } else {
            uint32_t *buf = pool->scratch_tokens;
            uint32_t n = (uint32_t)(expl - start);
            memcpy(buf, tokens + start, (size_t)n * sizeof *buf);
            for (uint32_t i = n; i < tpb; i++) buf[i] = salt_token(salt, start + i);
            content = hash_tokens(buf, tpb);
        }
        parent = chain(parent, content);
        out[b] = parent;
    }
}

kvp_status kvp_pool_seq_match(kvp_pool *pool, uint32_t seq, const uint32_t *tokens,
                              uint64_t explicit_tokens, uint64_t total_tokens,
                              uint64_t *out_hit_tokens, kvp_error *err) {
    if (out_hit_tokens) *out_hit_tokens = 0;
    if (!pool) return kvp__fail(err, KVP_INVALID_ARG, NULL, "pool", "NULL argument");
    if (!seq_ok(pool, seq)) return bad_seq(err, seq);
    if (pool->seq_len[seq] != 0)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "seq",
                         "sequence %u already holds %llu tokens; match a fresh sequence", seq,
                         (unsigned long long)pool->seq_len[seq]);
    if (total_tokens > pool->config.max_seq_tokens || explicit_tokens > total_tokens ||
        (explicit_tokens && !tokens))
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "total_tokens",
                         "prompt of %llu tokens (%llu explicit) does not fit the limit of %llu "
                         "or lacks its ids",
                         (unsigned long long)total_tokens, (unsigned long long)explicit_tokens,
                         (unsigned long long)pool->config.max_seq_tokens);
    uint32_t tpb = pool->tokens_per_block;
    /* Never the whole prompt: the last token is computed to sample from it. */
    uint32_t nb = total_tokens ? (uint32_t)((total_tokens - 1) / tpb) : 0;
    if (pool->config.prefix_reuse && nb > 0) {
        /* Room first (nothing changes on KVP_NOMEM): the prompt's hashes, and the
         * tables of the parts that take matched blocks (at most nb entries). */
        if (nb > pool->scratch_hash_cap) {
            uint64_t cap = (uint64_t)pool->scratch_hash_cap * 2;
            if (cap < nb || cap > UINT32_MAX) cap = nb;
            uint64_t *nh = kvp__realloc(kvp__pool_alc(pool), pool->scratch_hash,
                                        (size_t)cap * sizeof *nh);
            if (!nh)
                return kvp__fail(err, KVP_NOMEM, NULL, "blocks",
                                 "out of memory for the hashes of a %llu-token prompt",
                                 (unsigned long long)total_tokens);
            pool->scratch_hash = nh;
            pool->scratch_hash_cap = (uint32_t)cap;
        }
        for (uint32_t k = 0; k < pool->part_count; k++) {
            if (!pool->parts[k].reusable || !is_block_role(pool->parts[k].role)) continue;
            kvp_status rs = table_room(pool, k, seq, nb, err);
            if (rs) return rs;
        }
    }
    pool->query_tokens += total_tokens;
    if (!pool->config.prefix_reuse || total_tokens == 0) return KVP_OK;
    uint64_t *h = pool->scratch_hash;
    hash_prompt(pool, pool->seq_salt[seq], tokens, explicit_tokens, nb, h);
    /* Full-attention parts: the run of leading hits (a chain breaks once). */
    uint32_t best = nb;
    for (uint32_t k = 0; k < pool->part_count; k++) {
        const kvp__part *p = &pool->parts[k];
        if (p->role != KVP__ROLE_FULL || !p->reusable) continue;
        uint32_t i = 0;
        while (i < best && idx_find(p, h[i]) != KVP__NIL) i++;
        best = i;
    }
    /* Window parts need the window that ends at the match, recurrent parts a
     * snapshot exactly there: walk down until every part agrees. */
    uint32_t b = best;
    while (b > 0) {
        uint32_t next_b = b;
        for (uint32_t k = 0; k < pool->part_count && next_b == b; k++) {
            const kvp__part *p = &pool->parts[k];
            if (p->role == KVP__ROLE_SLIDING || p->role == KVP__ROLE_CHUNKED) {
                uint32_t sb = (uint32_t)(skipped_tokens(p, (uint64_t)b * tpb) / tpb);
                for (uint32_t i = b; i-- > sb;)
                    if (idx_find(p, h[i]) == KVP__NIL) {
                        next_b = i; /* any match past i needs block i */
                        break;
                    }
            } else if (p->role == KVP__ROLE_RECURRENT && p->reusable) {
                if (idx_find(p, h[b - 1]) == KVP__NIL) next_b = b - 1;
            }
        }
        if (next_b == b) break;
        b = next_b;
    }
    /* Take the matched blocks. */
    for (uint32_t k = 0; k < pool->part_count; k++) {
        kvp__part *p = &pool->parts[k];
        if (!p->reusable) continue;
        uint32_t *t = seq_table(p, seq);
        if (is_block_role(p->role)) {
            uint32_t sb = (uint32_t)(skipped_tokens(p, (uint64_t)b * tpb) / tpb);
            for (uint32_t i = sb; i < b; i++) {
                uint32_t blk = idx_find(p, h[i]);
                block_take(p, blk);
                t[i] = blk;
            }
            p->first[seq] = sb;
            p->count[seq] = b;
            p->stats.hit_blocks += b;
            p->stats.miss_blocks += nb - b;
        } else if (p->role == KVP__ROLE_RECURRENT) {
            if (b == 0) {
                p->stats.miss_blocks++;
                continue;
            }
            uint32_t snap = idx_find(p, h[b - 1]);
            if (p->blk[snap].refs == 0) { /* most recently used now */
                lru_unlink(p, snap);
                lru_push_tail(p, snap);
            }
            copy_block(pool, k, snap, t[0]);
            p->stats.hit_blocks++;
        }
    }
    pool->seq_len[seq] = (uint64_t)b * tpb;
    pool->seq_last_hash[seq] = b ? h[b - 1] : 0;
    pool->seq_explicit[seq] = 0;
    pool->hit_tokens += (uint64_t)b * tpb;
    if (out_hit_tokens) *out_hit_tokens = (uint64_t)b * tpb;
    return DEBUG_CHECK(pool, err);
}

kvp_status kvp_pool_seq_fork(kvp_pool *pool, uint32_t parent, uint64_t child_salt,
                             uint32_t *out_child, kvp_error *err) {
    if (!pool || !out_child) return kvp__fail(err, KVP_INVALID_ARG, NULL, "pool", "NULL argument");
    if (!seq_ok(pool, parent)) return bad_seq(err, parent);
    if (pool->seq_free_count == 0)
        return kvp__fail(err, KVP_INFEASIBLE, NULL, "max_sequences",
                         "all %u sequence slots are open", pool->max_sequences);
    for (uint32_t k = 0; k < pool->part_count; k++) {
        const kvp__part *p = &pool->parts[k];
        if (p->role == KVP__ROLE_RECURRENT && available(p) == 0)
            return kvp__fail(err, KVP_INFEASIBLE, NULL, "blocks",
                             "pool %u (recurrent) has no free state slot for the fork", k);
        kvp_status rs = p->role == KVP__ROLE_RECURRENT ? reserve(pool, k, 1, err) : KVP_OK;
        if (!rs)
            rs = table_room(pool, k, pool->seq_free[pool->seq_free_count - 1],
                            p->role == KVP__ROLE_RECURRENT ? 1 : p->count[parent], err);
        if (rs) return rs;
    }
    uint32_t c = pool->seq_free[--pool->seq_free_count];
    uint32_t tpb = pool->tokens_per_block;
    pool->seq_open[c] = 1;
    pool->open_count++;
    uint64_t len = pool->seq_len[parent];
    pool->seq_len[c] = len;
    pool->seq_salt[c] = child_salt;
    pool->seq_last_hash[c] = pool->seq_last_hash[parent];
    uint32_t fill = (uint32_t)(len % tpb);
    uint32_t *src = pool->seq_partial + (size_t)parent * tpb;
    uint32_t *dst = pool->seq_partial + (size_t)c * tpb;
    if (pool->seq_explicit[parent]) {
        memcpy(dst, src, (size_t)fill * sizeof *dst);
    } else {
        /* The shared partial block was written with the parent's salt. */
        for (uint32_t i = 0; i < fill; i++)
            dst[i] = salt_token(pool->seq_salt[parent], len - fill + i);
    }
    pool->seq_explicit[c] = fill > 0;
    pool->seq_cow[c] = pool->seq_cow[parent] = fill > 0;
    for (uint32_t k = 0; k < pool->part_count; k++) {
        kvp__part *p = &pool->parts[k];
        const uint32_t *pt = seq_table(p, parent);
        uint32_t *ct = seq_table(p, c);
        p->first[c] = p->first[parent];
        p->count[c] = p->count[parent];
        if (p->role == KVP__ROLE_RECURRENT) {
            ct[0] = block_alloc(p);
            copy_block(pool, k, pt[0], ct[0]);
            continue;
        }
        for (uint32_t i = 0; i < p->count[c]; i++) {
            ct[i] = pt[i];
            if (pt[i] != KVP__NIL) p->blk[pt[i]].refs++;
        }
    }
    *out_child = c;
    return DEBUG_CHECK(pool, err);
}

kvp_status kvp_pool_seq_snapshot(kvp_pool *pool, uint32_t seq, kvp_error *err) {
    if (!pool) return kvp__fail(err, KVP_INVALID_ARG, NULL, "pool", "NULL argument");
    if (!seq_ok(pool, seq)) return bad_seq(err, seq);
    uint64_t len = pool->seq_len[seq];
    if (len == 0 || len % pool->tokens_per_block != 0)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "seq",
                         "sequence %u holds %llu tokens, a snapshot needs a positive multiple of "
                         "%u",
                         seq, (unsigned long long)len, pool->tokens_per_block);
    if (!pool->config.prefix_reuse) return KVP_OK;
    uint64_t h = pool->seq_last_hash[seq];
    for (uint32_t k = 0; k < pool->part_count; k++) {
        const kvp__part *p = &pool->parts[k];
        if (p->role != KVP__ROLE_RECURRENT || idx_find(p, h) != KVP__NIL) continue;
        if (available(p) == 0)
            return kvp__fail(err, KVP_INFEASIBLE, NULL, "blocks",
                             "pool %u (recurrent) has no slot for a snapshot", k);
        kvp_status rs = reserve(pool, k, 1, err);
        if (rs) return rs;
    }
    for (uint32_t k = 0; k < pool->part_count; k++) {
        kvp__part *p = &pool->parts[k];
        if (p->role != KVP__ROLE_RECURRENT || idx_find(p, h) != KVP__NIL) continue;
        uint32_t snap = block_alloc(p);
        copy_block(pool, k, seq_table(p, seq)[0], snap);
        kvp__set_hash(p, snap, h);
        idx_insert(p, snap);
        block_release(p, snap); /* held by nobody: cached-free, most recent */
    }
    return DEBUG_CHECK(pool, err);
}

kvp_status kvp_pool_seq_blocks(const kvp_pool *pool, uint32_t seq, uint32_t pool_index,
                               const uint32_t **out_table, uint32_t *out_first,
                               uint32_t *out_count, kvp_error *err) {
    if (!pool || !out_table || !out_first || !out_count)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "pool", "NULL argument");
    if (!seq_ok(pool, seq)) return bad_seq(err, seq);
    if (pool_index >= pool->part_count)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "pool_index", "pool %u does not exist",
                         pool_index);
    const kvp__part *p = &pool->parts[pool_index];
    *out_table = seq_table(p, seq);
    *out_first = p->first[seq];
    *out_count = p->count[seq];
    return KVP_OK;
}

/* ------------------------------------------------------------------ queries */
uint32_t kvp_pool_block_refs(const kvp_pool *pool, uint32_t pool_index, uint32_t block) {
    if (!pool || pool_index >= pool->part_count || block >= pool->parts[pool_index].fresh)
        return 0; /* untouched: no record, no holder */
    return pool->parts[pool_index].blk[block].refs;
}

bool kvp_pool_block_is_cached(const kvp_pool *pool, uint32_t pool_index, uint32_t block) {
    if (!pool || pool_index >= pool->part_count || block >= pool->parts[pool_index].fresh)
        return false;
    const kvp__part *p = &pool->parts[pool_index];
    return p->blk[block].refs == 0 && kvp__hash(p, block) != 0;
}

void kvp_pool_get_stats(const kvp_pool *pool, uint32_t pool_index, kvp_pool_stats *out) {
    if (!out) return;
    memset(out, 0, sizeof *out);
    if (!pool || pool_index >= pool->part_count) return;
    const kvp__part *p = &pool->parts[pool_index];
    *out = p->stats;
    out->total_blocks = p->blocks;
    out->used_blocks = p->used;
    out->free_blocks = p->free_count;
    out->cached_blocks = p->cached;
}

void kvp_pool_hit_tokens(const kvp_pool *pool, uint64_t *out_hit_tokens,
                         uint64_t *out_query_tokens) {
    if (out_hit_tokens) *out_hit_tokens = pool ? pool->hit_tokens : 0;
    if (out_query_tokens) *out_query_tokens = pool ? pool->query_tokens : 0;
}

uint32_t kvp_pool_count(const kvp_pool *pool) { return pool ? pool->part_count : 0; }

const kvp_pool_spec *kvp_pool_get_spec(const kvp_pool *pool, uint32_t pool_index) {
    return pool && pool_index < pool->part_count ? &pool->parts[pool_index].spec : NULL;
}

uint32_t kvp_pool_tokens_per_block(const kvp_pool *pool) {
    return pool ? pool->tokens_per_block : 0;
}

uint64_t kvp_pool_bookkeeping_bytes(const kvp_pool *pool, uint32_t pool_index) {
    if (!pool || pool_index >= pool->part_count) return 0;
    const kvp__part *p = &pool->parts[pool_index];
    /* With every block held: the records and the index at 1.4 slots per record. */
    uint64_t bytes = (uint64_t)sizeof *p->blk * p->blocks;
    if (p->reusable) bytes += index_slots(p->blocks) * sizeof *p->index;
    return bytes;
}
