/* test_pool_ops.c — the paged block pool, scenario by scenario: exhaustion,
 * LRU eviction order, copy-on-write, window release, prefix hits, recurrent
 * snapshots, cross blocks, bookkeeping size, and the validator catching a
 * corrupted pool. Every expected figure is worked in the comment beside it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kvplan/pool.h"
#include "pool/pool_internal.h"

static kvp_pool_spec spec(kvp_cache_kind kind, uint64_t window, uint32_t tpb, uint32_t blocks) {
    kvp_pool_spec s = {.kind = kind, .window_tokens = window, .tokens_per_block = tpb,
                       .page_bytes = 4096, .blocks = blocks};
    return s;
}

static kvp_pool *make(const kvp_pool_spec *specs, uint32_t n, uint32_t seqs, uint64_t max_tokens,
                      bool reuse, kvp_pool_copy_fn fn, void *ctx) {
    kvp_pool_config c;
    memset(&c, 0, sizeof c);
    c.pool_count = n;
    for (uint32_t i = 0; i < n; i++) c.pools[i] = specs[i];
    c.max_sequences = seqs;
    c.max_seq_tokens = max_tokens;
    c.prefix_reuse = reuse;
    c.copy_fn = fn;
    c.copy_ctx = ctx;
    kvp_pool *p = NULL;
    kvp_error err;
    assert_int_equal(kvp_pool_new(&c, NULL, &p, &err), KVP_OK);
    return p;
}

static void valid(const kvp_pool *p) {
    kvp_error err;
    kvp_status st = kvp_pool_validate(p, &err);
    if (st != KVP_OK) fail_msg("%s", err.message);
}

static uint32_t open_seq(kvp_pool *p, uint64_t salt) {
    uint32_t s = 0;
    assert_int_equal(kvp_pool_seq_open(p, salt, &s, NULL), KVP_OK);
    return s;
}

static uint32_t block_at(const kvp_pool *p, uint32_t seq, uint32_t pool, uint32_t i) {
    const uint32_t *t;
    uint32_t first, count;
    assert_int_equal(kvp_pool_seq_blocks(p, seq, pool, &t, &first, &count, NULL), KVP_OK);
    assert_true(i < count);
    return t[i];
}

static void test_exhaustion(void **state) {
    (void)state;
    kvp_pool_spec s = spec(KVP_CACHE_FULL, 0, 4, 4);
    kvp_pool *p = make(&s, 1, 4, 64, false, NULL, NULL);
    uint32_t a = open_seq(p, 1);
    /* 16 tokens / 4 per block = 4 blocks: the whole pool. */
    assert_int_equal(kvp_pool_seq_append(p, a, NULL, 0, 16, NULL), KVP_OK);
    kvp_error err;
    /* Token 17 needs a 5th block: refused, nothing changes. */
    assert_int_equal(kvp_pool_seq_append(p, a, NULL, 0, 1, &err), KVP_INFEASIBLE);
    assert_non_null(strstr(err.message, "0 blocks available"));
    assert_int_equal(kvp_pool_seq_tokens(p, a), 16);
    uint32_t b = open_seq(p, 2);
    assert_int_equal(kvp_pool_seq_append(p, b, NULL, 0, 1, NULL), KVP_INFEASIBLE);
    kvp_pool_stats st;
    kvp_pool_get_stats(p, 0, &st);
    assert_int_equal(st.used_blocks, 4);
    assert_int_equal(st.free_blocks, 0);
    assert_int_equal(st.peak_used_blocks, 4);
    valid(p);
    /* Without prefix reuse closing frees, not caches. */
    kvp_pool_seq_close(p, a);
    kvp_pool_get_stats(p, 0, &st);
    assert_int_equal(st.free_blocks, 4);
    assert_int_equal(st.cached_blocks, 0);
    assert_int_equal(kvp_pool_seq_append(p, b, NULL, 0, 16, NULL), KVP_OK);
    /* Past max_seq_tokens (64) is an argument error, not exhaustion. */
    assert_int_equal(kvp_pool_seq_append(p, b, NULL, 0, 49, NULL), KVP_INVALID_ARG);
    /* Sequence ids run out too: 4 slots, b open, 3 more. */
    open_seq(p, 3);
    open_seq(p, 4);
    open_seq(p, 5);
    uint32_t x;
    assert_int_equal(kvp_pool_seq_open(p, 6, &x, NULL), KVP_INFEASIBLE);
    valid(p);
    kvp_pool_free(p);
}

static void test_eviction_order(void **state) {
    (void)state;
    kvp_pool_spec s = spec(KVP_CACHE_FULL, 0, 2, 4);
    kvp_pool *p = make(&s, 1, 4, 64, true, NULL, NULL);
    /* A (salt 1) fills blocks 0, 1 (free list hands out 0, 1, 2, 3). */
    uint32_t a = open_seq(p, 1);
    assert_int_equal(kvp_pool_seq_append(p, a, NULL, 0, 4, NULL), KVP_OK);
    assert_int_equal(block_at(p, a, 0, 0), 0);
    assert_int_equal(block_at(p, a, 0, 1), 1);
    /* Closing releases the tail first: LRU = [1, 0]. */
    kvp_pool_seq_close(p, a);
    assert_true(kvp_pool_block_is_cached(p, 0, 0));
    assert_true(kvp_pool_block_is_cached(p, 0, 1));
    assert_int_equal(p->parts[0].lru_head, 1);
    assert_int_equal(p->parts[0].lru_tail, 0);
    /* B (salt 2) takes the free blocks 2, 3 before evicting anything. */
    uint32_t b = open_seq(p, 2);
    assert_int_equal(kvp_pool_seq_append(p, b, NULL, 0, 4, NULL), KVP_OK);
    assert_int_equal(block_at(p, b, 0, 0), 2);
    assert_int_equal(block_at(p, b, 0, 1), 3);
    kvp_pool_seq_close(p, b); /* LRU = [1, 0, 3, 2] */
    kvp_pool_stats st;
    kvp_pool_get_stats(p, 0, &st);
    assert_int_equal(st.cached_blocks, 4);
    assert_int_equal(st.free_blocks, 0);
    /* C needs one block: the least recently used, block 1 (A's tail). */
    uint32_t c = open_seq(p, 3);
    assert_int_equal(kvp_pool_seq_append(p, c, NULL, 0, 2, NULL), KVP_OK);
    assert_int_equal(block_at(p, c, 0, 0), 1);
    kvp_pool_get_stats(p, 0, &st);
    assert_int_equal(st.evictions, 1);
    valid(p);
    /* D repeats A's text (salt 1), 5 tokens: (5-1)/2 = 2 blocks looked up;
     * block 0 is still cached, block 1 was evicted: 2 tokens hit. */
    uint32_t d = open_seq(p, 1);
    uint64_t hit = 99;
    assert_int_equal(kvp_pool_seq_match(p, d, NULL, 0, 5, &hit, NULL), KVP_OK);
    assert_int_equal(hit, 2);
    assert_int_equal(block_at(p, d, 0, 0), 0);
    assert_int_equal(kvp_pool_block_refs(p, 0, 0), 1);
    kvp_pool_get_stats(p, 0, &st);
    assert_int_equal(st.hit_blocks, 1);
    assert_int_equal(st.miss_blocks, 1);
    /* The next eviction takes 0's successor in LRU order: [3, 2] remain
     * cached (0 is held by D now), so block 3 goes first. */
    assert_int_equal(kvp_pool_seq_append(p, d, NULL, 0, 3, NULL), KVP_OK);
    assert_int_equal(block_at(p, d, 0, 1), 3);
    valid(p);
    uint64_t hits, queries;
    kvp_pool_hit_tokens(p, &hits, &queries);
    assert_int_equal(hits, 2);
    assert_int_equal(queries, 5);
    kvp_pool_free(p);
}

typedef struct copies {
    int n;
    uint32_t src[8], dst[8];
} copies;

static void on_copy(void *ctx, uint32_t pool, uint32_t src, uint32_t dst) {
    copies *c = ctx;
    (void)pool;
    if (c->n < 8) {
        c->src[c->n] = src;
        c->dst[c->n] = dst;
    }
    c->n++;
}

static void test_copy_on_write(void **state) {
    (void)state;
    copies cp = {0};
    kvp_pool_spec s = spec(KVP_CACHE_FULL, 0, 4, 8);
    kvp_pool *p = make(&s, 1, 4, 64, false, on_copy, &cp);
    uint32_t a = open_seq(p, 1);
    /* 6 tokens: block 0 full, block 1 holds 2. */
    assert_int_equal(kvp_pool_seq_append(p, a, NULL, 0, 6, NULL), KVP_OK);
    uint32_t b;
    assert_int_equal(kvp_pool_seq_fork(p, a, 2, &b, NULL), KVP_OK);
    assert_int_equal(kvp_pool_block_refs(p, 0, 0), 2);
    assert_int_equal(kvp_pool_block_refs(p, 0, 1), 2);
    valid(p);
    /* B writes into the shared partial block 1: it gets a copy, block 2. */
    assert_int_equal(kvp_pool_seq_append(p, b, NULL, 0, 1, NULL), KVP_OK);
    assert_int_equal(cp.n, 1);
    assert_int_equal(cp.src[0], 1);
    assert_int_equal(cp.dst[0], 2);
    assert_int_equal(block_at(p, b, 0, 1), 2);
    assert_int_equal(kvp_pool_block_refs(p, 0, 1), 1);
    assert_int_equal(kvp_pool_block_refs(p, 0, 0), 2); /* full block 0 stays shared */
    /* A now owns block 1 alone: writes in place, no copy. */
    assert_int_equal(kvp_pool_seq_append(p, a, NULL, 0, 1, NULL), KVP_OK);
    assert_int_equal(cp.n, 1);
    kvp_pool_stats st;
    kvp_pool_get_stats(p, 0, &st);
    assert_int_equal(st.copies, 1);
    assert_int_equal(st.used_blocks, 3);
    valid(p);
    /* A fork at a block boundary shares only full blocks: no copy on append. */
    kvp_pool_seq_close(p, b);
    assert_int_equal(kvp_pool_seq_append(p, a, NULL, 0, 1, NULL), KVP_OK); /* 8 tokens */
    uint32_t c;
    assert_int_equal(kvp_pool_seq_fork(p, a, 3, &c, NULL), KVP_OK);
    assert_int_equal(kvp_pool_seq_append(p, c, NULL, 0, 1, NULL), KVP_OK);
    assert_int_equal(cp.n, 1);
    /* COW needs a block: with the pool full the append is refused whole. */
    kvp_pool_seq_close(p, c);
    assert_int_equal(kvp_pool_seq_append(p, a, NULL, 0, 2, NULL), KVP_OK); /* 10 tokens, 3 blocks */
    assert_int_equal(kvp_pool_seq_fork(p, a, 4, &c, NULL), KVP_OK);
    uint32_t d = open_seq(p, 5);
    assert_int_equal(kvp_pool_seq_append(p, d, NULL, 0, 20, NULL), KVP_OK); /* 5 blocks: pool full */
    assert_int_equal(kvp_pool_seq_append(p, c, NULL, 0, 1, NULL), KVP_INFEASIBLE);
    assert_int_equal(kvp_pool_seq_tokens(p, c), 10);
    valid(p);
    kvp_pool_free(p);
}

static void test_window_release(void **state) {
    (void)state;
    kvp_pool_spec s[2] = {spec(KVP_CACHE_SLIDING, 8, 4, 16), spec(KVP_CACHE_CHUNKED, 8, 4, 16)};
    kvp_pool *p = make(s, 2, 2, 256, false, NULL, NULL);
    uint32_t a = open_seq(p, 1);
    assert_int_equal(kvp_pool_seq_append(p, a, NULL, 0, 20, NULL), KVP_OK);
    kvp_pool_stats st;
    kvp_pool_get_stats(p, 0, &st);
    assert_int_equal(st.used_blocks, 5); /* 20 / 4: the chunk is resident whole */
    assert_int_equal(kvp_pool_seq_append(p, a, NULL, 0, 1, NULL), KVP_OK);
    /* Sliding, W = 8, length 20: positions [13, 20) are still needed,
     * 13 / 4 = block 3 is the first kept: blocks 0..2 go back; block 5
     * is new for position 20: blocks 3, 4, 5 held. */
    kvp_pool_get_stats(p, 0, &st);
    assert_int_equal(st.used_blocks, 3);
    assert_int_equal(st.free_blocks, 13);
    const uint32_t *t;
    uint32_t first, count;
    assert_int_equal(kvp_pool_seq_blocks(p, a, 0, &t, &first, &count, NULL), KVP_OK);
    assert_int_equal(first, 3);
    assert_int_equal(count, 6);
    assert_int_equal(t[0], KVP_POOL_NO_BLOCK);
    /* Chunked, C = 8, length 20: the current chunk starts at 16 = block 4:
     * blocks 0..3 go back; 4 and the new 5 are held. */
    kvp_pool_get_stats(p, 1, &st);
    assert_int_equal(st.used_blocks, 2);
    assert_int_equal(kvp_pool_seq_blocks(p, a, 1, &t, &first, &count, NULL), KVP_OK);
    assert_int_equal(first, 4);
    valid(p);
    /* A long decode keeps the sliding pool at ceil(7/4)+1 <= 3 blocks. */
    for (int i = 0; i < 200; i++) assert_int_equal(kvp_pool_seq_append(p, a, NULL, 0, 1, NULL), KVP_OK);
    kvp_pool_get_stats(p, 0, &st);
    assert_true(st.used_blocks <= 3);
    kvp_pool_get_stats(p, 1, &st);
    assert_true(st.used_blocks <= 3); /* a chunk of 8 spans 2 blocks, +1 while crossing */
    valid(p);
    kvp_pool_free(p);
}

static void test_prefix_hits(void **state) {
    (void)state;
    kvp_pool_spec s = spec(KVP_CACHE_FULL, 0, 4, 32);
    kvp_pool *p = make(&s, 1, 4, 64, true, NULL, NULL);
    uint32_t tok[10] = {11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
    /* A: 10 explicit ids then 6 salt tokens, appended in uneven pieces. */
    uint32_t a = open_seq(p, 100);
    assert_int_equal(kvp_pool_seq_append(p, a, tok, 3, 3, NULL), KVP_OK);
    assert_int_equal(kvp_pool_seq_append(p, a, tok + 3, 7, 7, NULL), KVP_OK);
    assert_int_equal(kvp_pool_seq_append(p, a, NULL, 0, 5, NULL), KVP_OK);
    assert_int_equal(kvp_pool_seq_append(p, a, NULL, 0, 1, NULL), KVP_OK);
    kvp_pool_seq_close(p, a);
    /* B, another salt: 16 tokens, (16-1)/4 = 3 blocks looked up. Blocks 0
     * and 1 are explicit ids and hit; block 2 mixes ids 8, 9 with salt
     * tokens 10, 11 of a different salt: miss. 8 tokens hit. */
    uint32_t b = open_seq(p, 200);
    uint64_t hit;
    assert_int_equal(kvp_pool_seq_match(p, b, tok, 10, 16, &hit, NULL), KVP_OK);
    assert_int_equal(hit, 8);
    kvp_pool_seq_close(p, b);
    /* C with A's salt: block 2 matches too (hashing ignores how appends were
     * split): 12 tokens; block 3 is the last one, never matched. */
    uint32_t c = open_seq(p, 100);
    assert_int_equal(kvp_pool_seq_match(p, c, tok, 10, 16, &hit, NULL), KVP_OK);
    assert_int_equal(hit, 12);
    assert_int_equal(kvp_pool_seq_tokens(p, c), 12);
    /* Finishing C's prompt re-registers nothing new and takes one block. */
    assert_int_equal(kvp_pool_seq_append(p, c, NULL, 0, 4, NULL), KVP_OK);
    /* D with a 17-token prompt looks up (17-1)/4 = 4 blocks, all hit.
     * Block 3 is A's cached copy: when C filled its own block 3 the name
     * was taken already, so C's copy stays unnamed (first copy wins). D
     * shares blocks 0..2 with C (refs 2) and holds A's block 3 alone. */
    uint32_t d = open_seq(p, 100);
    assert_int_equal(kvp_pool_seq_match(p, d, tok, 10, 17, &hit, NULL), KVP_OK);
    assert_int_equal(hit, 16);
    assert_int_equal(kvp_pool_block_refs(p, 0, block_at(p, d, 0, 2)), 2);
    assert_int_equal(kvp_pool_block_refs(p, 0, block_at(p, d, 0, 3)), 1);
    assert_int_not_equal(block_at(p, d, 0, 3), block_at(p, c, 0, 3));
    valid(p);
    /* A different first id breaks the chain at block 0. */
    uint32_t other[10];
    memcpy(other, tok, sizeof other);
    other[0] = 999;
    kvp_pool_seq_close(p, d);
    d = open_seq(p, 100);
    assert_int_equal(kvp_pool_seq_match(p, d, other, 10, 16, &hit, NULL), KVP_OK);
    assert_int_equal(hit, 0);
    /* Matching a sequence that holds tokens is a usage error. */
    assert_int_equal(kvp_pool_seq_match(p, c, tok, 10, 16, &hit, NULL), KVP_INVALID_ARG);
    valid(p);
    kvp_pool_free(p);
}

static void test_sliding_match_needs_window(void **state) {
    (void)state;
    kvp_pool_spec s[2] = {spec(KVP_CACHE_FULL, 0, 4, 32), spec(KVP_CACHE_SLIDING, 8, 4, 32)};
    kvp_pool *p = make(s, 2, 4, 64, true, NULL, NULL);
    uint32_t a = open_seq(p, 7);
    /* 24 tokens in one append: all 6 blocks named in both pools. */
    assert_int_equal(kvp_pool_seq_append(p, a, NULL, 0, 24, NULL), KVP_OK);
    kvp_pool_seq_close(p, a);
    uint32_t b = open_seq(p, 7);
    uint64_t hit;
    /* 25-token prompt: 6 blocks; the window ending at 24 is positions
     * [17, 24) = blocks 4, 5, both cached: 24 tokens hit. The sliding pool
     * takes only blocks 4 and 5. */
    assert_int_equal(kvp_pool_seq_match(p, b, NULL, 0, 25, &hit, NULL), KVP_OK);
    assert_int_equal(hit, 24);
    const uint32_t *t;
    uint32_t first, count;
    assert_int_equal(kvp_pool_seq_blocks(p, b, 1, &t, &first, &count, NULL), KVP_OK);
    assert_int_equal(first, 4);
    assert_int_equal(count, 6);
    kvp_pool_stats st;
    kvp_pool_get_stats(p, 1, &st);
    assert_int_equal(st.used_blocks, 2);
    valid(p);
    kvp_pool_seq_close(p, b);
    kvp_pool_free(p);

    /* Same text, but the sliding pool has only 8 blocks, so its cache
     * evicts while the full pool's does not. A appends 24 tokens 4 at a
     * time: at lengths 12, 16, 20 the window lets go of blocks 0, 1, 2
     * (cached in that order); closing adds 5, 4, 3: LRU = [0,1,2,5,4,3]. */
    s[1] = spec(KVP_CACHE_SLIDING, 8, 4, 8);
    p = make(s, 2, 4, 64, true, NULL, NULL);
    a = open_seq(p, 7);
    for (int i = 0; i < 6; i++) assert_int_equal(kvp_pool_seq_append(p, a, NULL, 0, 4, NULL), KVP_OK);
    kvp_pool_get_stats(p, 1, &st);
    assert_int_equal(st.used_blocks, 3);
    assert_int_equal(st.cached_blocks, 3);
    kvp_pool_seq_close(p, a);
    /* Z (another salt) takes 6 sliding blocks at once: 2 free, then evicts
     * A's 0, 1, 2 and 5. */
    uint32_t z = open_seq(p, 9);
    assert_int_equal(kvp_pool_seq_append(p, z, NULL, 0, 24, NULL), KVP_OK);
    kvp_pool_get_stats(p, 1, &st);
    assert_int_equal(st.evictions, 4);
    /* B: the full pool has all 6 blocks, but the window ending at 24 needs
     * block 5, gone: the next candidate, 20 tokens, needs [13, 20) =
     * blocks 3, 4: both cached. 20 tokens hit. */
    b = open_seq(p, 7);
    assert_int_equal(kvp_pool_seq_match(p, b, NULL, 0, 25, &hit, NULL), KVP_OK);
    assert_int_equal(hit, 20);
    assert_int_equal(kvp_pool_seq_blocks(p, b, 1, &t, &first, &count, NULL), KVP_OK);
    assert_int_equal(first, 3);
    assert_int_equal(count, 5);
    valid(p);
    kvp_pool_free(p);
}

static void test_recurrent_snapshot(void **state) {
    (void)state;
    copies cp = {0};
    kvp_pool_spec s[2] = {spec(KVP_CACHE_FULL, 0, 4, 16), spec(KVP_CACHE_RECURRENT, 0, 0, 4)};
    kvp_pool *p = make(s, 2, 4, 64, true, on_copy, &cp);
    uint32_t tok[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    uint32_t a = open_seq(p, 1);
    uint32_t slot_a = block_at(p, a, 1, 0);
    assert_int_equal(kvp_pool_seq_append(p, a, tok, 8, 8, NULL), KVP_OK);
    assert_int_equal(kvp_pool_seq_snapshot(p, a, NULL), KVP_OK);
    kvp_pool_stats st;
    kvp_pool_get_stats(p, 1, &st);
    assert_int_equal(st.used_blocks, 1);   /* A's live state */
    assert_int_equal(st.cached_blocks, 1); /* the snapshot at 8 tokens */
    assert_int_equal(cp.n, 1);
    assert_int_equal(cp.src[0], slot_a);
    /* A snapshot needs a block boundary. */
    assert_int_equal(kvp_pool_seq_append(p, a, tok + 8, 1, 1, NULL), KVP_OK);
    assert_int_equal(kvp_pool_seq_snapshot(p, a, NULL), KVP_INVALID_ARG);
    kvp_pool_seq_close(p, a);
    valid(p);
    /* B: 12 tokens: (12-1)/4 = 2 blocks; full pool hits both; snapshot at
     * 8 tokens exists: 8 tokens hit, state copied into B's slot. */
    uint32_t b = open_seq(p, 2);
    uint64_t hit;
    assert_int_equal(kvp_pool_seq_match(p, b, tok, 12, 12, &hit, NULL), KVP_OK);
    assert_int_equal(hit, 8);
    assert_int_equal(cp.n, 2);
    assert_int_equal(cp.dst[1], block_at(p, b, 1, 0));
    kvp_pool_seq_close(p, b);
    /* C: a 16-token prompt: the full pool holds 2 named blocks of these
     * ids (A's third block had 1 token), no snapshot at 4: still 8. A
     * prompt of 8 looks up (8-1)/4 = 1 block; no snapshot at 4 tokens:
     * recurrent state must be recomputed from 0, so 0 tokens hit. */
    uint32_t c = open_seq(p, 3);
    assert_int_equal(kvp_pool_seq_match(p, c, tok, 8, 8, &hit, NULL), KVP_OK);
    assert_int_equal(hit, 0);
    valid(p);
    /* Slots are exhausted by 4 live sequences (the snapshot is evicted). */
    uint32_t x;
    open_seq(p, 4);
    open_seq(p, 5);
    open_seq(p, 6);
    kvp_pool_get_stats(p, 1, &st);
    assert_int_equal(st.evictions, 1);
    assert_int_equal(kvp_pool_seq_open(p, 7, &x, NULL), KVP_INFEASIBLE);
    valid(p);
    kvp_pool_free(p);
}

static void test_cross_blocks(void **state) {
    (void)state;
    kvp_pool_spec s[2] = {spec(KVP_CACHE_FULL, 0, 4, 16), spec(KVP_CACHE_CROSS, 10, 4, 5)};
    kvp_pool *p = make(s, 2, 4, 64, false, NULL, NULL);
    /* Encoder of 10 tokens: ceil(10/4) = 3 cross blocks at open, whatever
     * the decoder length. */
    uint32_t a = open_seq(p, 1);
    kvp_pool_stats st;
    kvp_pool_get_stats(p, 1, &st);
    assert_int_equal(st.used_blocks, 3);
    assert_int_equal(kvp_pool_seq_append(p, a, NULL, 0, 40, NULL), KVP_OK);
    kvp_pool_get_stats(p, 1, &st);
    assert_int_equal(st.used_blocks, 3);
    /* A second request needs 3 more of the 2 left. */
    uint32_t b;
    assert_int_equal(kvp_pool_seq_open(p, 2, &b, NULL), KVP_INFEASIBLE);
    /* A fork (beam) shares the encoder blocks. */
    assert_int_equal(kvp_pool_seq_fork(p, a, 2, &b, NULL), KVP_OK);
    assert_int_equal(kvp_pool_block_refs(p, 1, block_at(p, a, 1, 0)), 2);
    valid(p);
    kvp_pool_free(p);
}

static void test_bookkeeping_under_32_bytes(void **state) {
    (void)state;
    /* A 20-byte record + 8-byte index slots, n + 2n/5 + 1 of them:
     * 20 + 8 * 1.4 = 31.2, and the +1 slot adds 8/n: under 32 from n = 97. */
    uint32_t counts[] = {1, 7, 97, 1000, 3073, 49153, 100000};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        kvp_pool_spec s = spec(KVP_CACHE_FULL, 0, 16, counts[i]);
        kvp_pool *p = make(&s, 1, 1, 16, true, NULL, NULL);
        double per = (double)kvp_pool_bookkeeping_bytes(p, 0) / counts[i];
        if (counts[i] >= 97) assert_true(per < 32.0);
        assert_true(per >= 31.2);
        kvp_pool_free(p);
        /* Without reuse there is no index: the 20-byte record alone. */
        p = make(&s, 1, 1, 16, false, NULL, NULL);
        assert_int_equal(kvp_pool_bookkeeping_bytes(p, 0), 20ull * counts[i]);
        kvp_pool_free(p);
    }
}

/* Block records are made as blocks are first taken: a pool of 10^9 blocks
 * holds records for what it has handed out (1024 at first, doubling), hands
 * out 0, 1, 2, ... and reuses a released block before an untouched one, as a
 * free list over every block would. */
static void test_lazy_records(void **state) {
    (void)state;
    kvp_pool_spec s = spec(KVP_CACHE_FULL, 0, 4, 1000000000u);
    kvp_pool *p = make(&s, 1, 2, 64, false, NULL, NULL);
    const kvp__part *part = &p->parts[0];
    assert_int_equal(part->blk_cap, 0);
    uint32_t a = open_seq(p, 1);
    /* 9 tokens of 4 per block: blocks 0, 1, 2 */
    assert_int_equal(kvp_pool_seq_append(p, a, NULL, 0, 9, NULL), KVP_OK);
    assert_int_equal(block_at(p, a, 0, 0), 0);
    assert_int_equal(block_at(p, a, 0, 2), 2);
    assert_int_equal(part->fresh, 3);
    assert_int_equal(part->blk_cap, 1024);
    kvp_pool_stats st;
    kvp_pool_get_stats(p, 0, &st);
    assert_int_equal(st.total_blocks, 1000000000u);
    assert_int_equal(st.used_blocks, 3);
    assert_int_equal(kvp_pool_block_refs(p, 0, 999999999u), 0); /* untouched */
    valid(p);
    kvp_pool_seq_close(p, a);
    /* Released 0, 1, 2 go first (last released on top), then 3. */
    uint32_t b = open_seq(p, 2);
    assert_int_equal(kvp_pool_seq_append(p, b, NULL, 0, 16, NULL), KVP_OK);
    assert_int_equal(part->fresh, 4);
    assert_int_equal(block_at(p, b, 0, 3), 3);
    valid(p);
    /* Past max_seq_tokens (64): refused before any record is made. */
    assert_int_equal(kvp_pool_seq_append(p, b, NULL, 0, 4 * 4996, NULL), KVP_INVALID_ARG);
    assert_int_equal(part->blk_cap, 1024);
    kvp_pool_free(p);
    /* One append of 5000 blocks into nothing: more than the first 1024, so
     * exactly the 5000 records it needs; then 1000 more double them. */
    p = make(&s, 1, 2, 4 * 5000, false, NULL, NULL);
    part = &p->parts[0];
    b = open_seq(p, 3);
    assert_int_equal(kvp_pool_seq_append(p, b, NULL, 0, 4 * 5000, NULL), KVP_OK);
    assert_int_equal(part->fresh, 5000);
    assert_int_equal(part->blk_cap, 5000);
    uint32_t c = open_seq(p, 4);
    assert_int_equal(kvp_pool_seq_append(p, c, NULL, 0, 4 * 1000, NULL), KVP_OK);
    assert_int_equal(part->fresh, 6000);
    assert_int_equal(part->blk_cap, 10000);
    valid(p);
    kvp_pool_free(p);
}

/* With prefix reuse the index grows with the records (1.4 slots each, rehashed):
 * 3000 named blocks of one prompt are all found again after the growth. */
static void test_lazy_index_rehash(void **state) {
    (void)state;
    kvp_pool_spec s = spec(KVP_CACHE_FULL, 0, 4, 100000000u);
    kvp_pool *p = make(&s, 1, 2, 4 * 3001, true, NULL, NULL);
    static uint32_t ids[4 * 3000];
    for (uint32_t i = 0; i < 4 * 3000; i++) ids[i] = i * 2654435761u;
    uint32_t a = open_seq(p, 1);
    assert_int_equal(kvp_pool_seq_append(p, a, ids, 4 * 3000, 4 * 3000, NULL), KVP_OK);
    const kvp__part *part = &p->parts[0];
    assert_int_equal(part->blk_cap, 3000);
    assert_int_equal(part->index_cap, 3000 + 1200 + 1); /* 1.4 slots per record, + 1 */
    assert_int_equal(part->index_count, 3000);
    valid(p);
    kvp_pool_seq_close(p, a); /* all 3000 cached-free, still named */
    uint32_t b = open_seq(p, 2);
    uint64_t hit = 0;
    assert_int_equal(kvp_pool_seq_match(p, b, ids, 4 * 3000, 4 * 3000 + 1, &hit, NULL), KVP_OK);
    assert_int_equal(hit, 4 * 3000);
    valid(p);
    kvp_pool_free(p);
}

static void test_validator_catches_corruption(void **state) {
    (void)state;
    kvp_pool_spec s = spec(KVP_CACHE_FULL, 0, 4, 8);
    kvp_pool *p = make(&s, 1, 2, 64, true, NULL, NULL);
    uint32_t a = open_seq(p, 1);
    assert_int_equal(kvp_pool_seq_append(p, a, NULL, 0, 9, NULL), KVP_OK);
    valid(p);
    kvp_error err;
    p->parts[0].blk[0].refs++;
    assert_int_equal(kvp_pool_validate(p, &err), KVP_CONFIG);
    assert_non_null(strstr(err.message, "refcount"));
    p->parts[0].blk[0].refs--;
    p->parts[0].free_count++;
    assert_int_equal(kvp_pool_validate(p, &err), KVP_CONFIG);
    assert_non_null(strstr(err.message, "free list"));
    p->parts[0].free_count--;
    /* A named block dropped from the index. */
    kvp_pool_seq_close(p, a);
    kvp__part *part = &p->parts[0];
    uint32_t blk = part->lru_head;
    uint32_t i = kvp__pool_home(part, part->blk[blk].hash_hi);
    while (part->index[i].block != blk) i = kvp__pool_next_slot(part, i);
    part->index[i].block = KVP_POOL_NO_BLOCK;
    assert_int_equal(kvp_pool_validate(p, &err), KVP_CONFIG);
    part->index[i].block = blk;
    /* A wrong tag sends lookups to the wrong home. */
    part->index[i].tag ^= 1;
    assert_int_equal(kvp_pool_validate(p, &err), KVP_CONFIG);
    assert_non_null(strstr(err.message, "tags block"));
    part->index[i].tag ^= 1;
    valid(p);
    kvp_pool_free(p);
}

static void test_bad_config(void **state) {
    (void)state;
    kvp_pool_config c;
    memset(&c, 0, sizeof c);
    kvp_pool *p = (kvp_pool *)&c;
    kvp_error err;
    assert_int_equal(kvp_pool_new(&c, NULL, &p, &err), KVP_INVALID_ARG);
    assert_null(p);
    c.pool_count = 2;
    c.pools[0] = spec(KVP_CACHE_FULL, 0, 16, 8);
    c.pools[1] = spec(KVP_CACHE_SLIDING, 64, 32, 8);
    c.max_sequences = 1;
    c.max_seq_tokens = 64;
    assert_int_equal(kvp_pool_new(&c, NULL, &p, &err), KVP_INVALID_ARG);
    assert_string_equal(err.key, "tokens_per_block");
    c.pools[1].tokens_per_block = 16;
    c.pools[1].blocks = 0;
    assert_int_equal(kvp_pool_new(&c, NULL, &p, &err), KVP_INVALID_ARG);
    assert_string_equal(err.key, "blocks");
    kvp_pool_free(NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exhaustion),
        cmocka_unit_test(test_eviction_order),
        cmocka_unit_test(test_copy_on_write),
        cmocka_unit_test(test_window_release),
        cmocka_unit_test(test_prefix_hits),
        cmocka_unit_test(test_sliding_match_needs_window),
        cmocka_unit_test(test_recurrent_snapshot),
        cmocka_unit_test(test_cross_blocks),
        cmocka_unit_test(test_bookkeeping_under_32_bytes),
        cmocka_unit_test(test_lazy_records),
        cmocka_unit_test(test_lazy_index_rehash),
        cmocka_unit_test(test_validator_catches_corruption),
        cmocka_unit_test(test_bad_config),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
