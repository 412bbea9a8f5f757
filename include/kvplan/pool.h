/*
 * kvplan/pool.h — the paged KV block pool a plan sizes, with prefix reuse.
 *
 * A kvp_pool is the runtime data structure an engine builds from a plan: for
 * each pool of a kvp_cost (layers whose pages are interchangeable) a fixed
 * number of blocks of `tokens_per_block` tokens, and per sequence a block
 * table that maps its token positions to blocks. It never touches the memory
 * the blocks stand for (host or device memory behind the probe's seam): it
 * only hands out block indices, and tells the owner of that memory, through
 * an optional copy callback, when a block's contents must be copied
 * (copy-on-write after a fork, recurrent state snapshots).
 *
 * What each pool kind keeps for one sequence of `len` computed tokens:
 *   full / mla / indexer  every block of positions [0, len)
 *   sliding (window W)    blocks of positions [len - W + 1, len): the blocks
 *                         that fell out of the window go back to the pool
 *   chunked (chunk C)     blocks of the current chunk [floor(len/C)*C, len)
 *   cross (encoder E)     ceil(E / tokens_per_block) blocks, taken once when
 *                         the sequence opens and never grown
 *   recurrent             one state slot per sequence (blocks = slots), plus,
 *                         with prefix reuse, snapshots of the state at block
 *                         boundaries that later sequences may start from
 * Window release happens at the start of each append, from the length the
 * sequence had before it (what vLLM's remove_skipped_blocks does): while a
 * chunk of n tokens is computed the window and the chunk are both resident.
 *
 * Prefix reuse. A full block is named by a chained hash: hash(parent block's
 * hash, the block's token ids). When a block fills it is entered in its
 * pool's hash index; when the last sequence holding it lets go it is kept as
 * *cached-free* (still findable) on an LRU list, and it is evicted (forgotten)
 * only when a fresh block is needed and the free list is empty. A sequence
 * admitted with a prompt first matches the longest run of cached blocks (in
 * every pool: a sliding pool needs the blocks of the window that ends at the
 * match, a recurrent pool a snapshot taken exactly there), takes them with a
 * reference count, and computes only the rest. A hit never covers the whole
 * prompt: the last token is always computed, as engines do. Names are 64-bit
 * hashes (wyhash-style multiply-mix); a collision, about 2^-64 per pair, would
 * be served as a hit, as in engines that key their cache the same way.
 *
 * Token content. Appends and matches pass token ids for a leading part and
 * "salt tokens" for the rest: tokens unique to this sequence, identified by
 * the sequence's 64-bit salt and their position (no ids materialised). Two
 * sequences with the same salt and salt tokens are taken to hold the same
 * text, which is how a preempted request finds its own blocks again when it
 * is recomputed. Hashes do not depend on how the text was split into appends.
 *
 * Memory: kvp_pool_new() allocates the block tables and per-sequence state;
 * the per-block records are made as blocks are first taken (doubling, through
 * the pool's allocator), so memory follows the blocks held at once, not the
 * pool's size. An operation that takes blocks reserves their records before it
 * takes any, so KVP_NOMEM (or KVP_INVALID_ARG "blocks" past
 * KVP_POOL_MAX_RECORD_BYTES) fails it as cleanly as KVP_INFEASIBLE does. Bookkeeping per block
 * is a hash, a reference count, two list links and a share of the hash index:
 * under 32 bytes (kvp_pool_bookkeeping_bytes()). Block tables hold one block index
 * per ceil(tokens / tokens_per_block) of each sequence, like an engine's block-table
 * rows; each is grown (doubling) as its sequence takes blocks, so a max_seq_tokens of
 * millions costs nothing until a sequence is that long.
 *
 * Thread safety: none inside one pool (an engine's scheduler owns its pool);
 * different pools are independent. No global state.
 */
#ifndef KVPLAN_POOL_H
#define KVPLAN_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kvplan/cost.h"
#include "kvplan/error.h"
#include "kvplan/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Block index meaning "no block" (released out of a window, or none yet). */
#define KVP_POOL_NO_BLOCK UINT32_MAX
/* Largest block or slot count of one pool (indices are uint32, one value reserved). */
#define KVP_POOL_MAX_BLOCKS (UINT32_MAX - 1u)
/* Most bytes of block records (per block: refs, hash, list links, and with prefix
 * reuse 1.4 index slots: 31.2 bytes) one pool part may hold: 1 GiB, about 34 million
 * reusable blocks handed out at once. Records are made as blocks are first taken,
 * so a pool of 10^9 blocks costs what its busiest moment holds; an operation that
 * would pass the limit fails by name (KVP_INVALID_ARG, key "blocks"). */
#define KVP_POOL_MAX_RECORD_BYTES (UINT64_C(1) << 30)
/* Largest number of open sequences. */
#define KVP_POOL_MAX_SEQUENCES (1u << 24)

/* One pool: what kind of layers it serves and how many blocks it has. */
typedef struct kvp_pool_spec {
    kvp_cache_kind kind;
    uint64_t window_tokens;    /* sliding window / chunk / encoder length; 0 = unbounded */
    uint32_t tokens_per_block; /* ignored for recurrent pools */
    uint64_t page_bytes;       /* bytes one block (slot) stands for; reported only */
    uint32_t blocks;           /* blocks, or state slots for a recurrent pool; >= 1 */
} kvp_pool_spec;

/* Called when the contents of block `src` must be copied to block `dst` of
 * pool `pool_index` (copy-on-write, recurrent fork, snapshot, snapshot hit). */
typedef void (*kvp_pool_copy_fn)(void *ctx, uint32_t pool_index, uint32_t src_block,
                                 uint32_t dst_block);

typedef struct kvp_pool_config {
    uint32_t pool_count;               /* 1..KVP_MAX_POOLS */
    kvp_pool_spec pools[KVP_MAX_POOLS];
    uint32_t max_sequences;            /* sequences open at once (1..KVP_POOL_MAX_SEQUENCES) */
    uint64_t max_seq_tokens;           /* longest sequence (max_model_len); sizes block tables */
    bool prefix_reuse;                 /* hash full blocks, keep them cached, match prompts */
    kvp_pool_copy_fn copy_fn;          /* NULL: copies are only counted */
    void *copy_ctx;
    uint64_t reserved_[KVP_RESERVED_WORDS]; /* room for growth: zero, do not use (ABI) */
} kvp_pool_config;

/* Fill a config from a cost: every block pool gets `blocks` blocks, every
 * recurrent pool `recurrent_slots` slots (the uniform split vLLM's hybrid
 * allocator makes; a plan may set pools[i].blocks one by one afterwards).
 * All block pools of a cost share one tokens_per_block. Errors: KVP_CONFIG
 * for an empty cost, KVP_INVALID_ARG for 0 or too many blocks. */
KVP_API KVP_NODISCARD kvp_status kvp_pool_config_from_cost(const kvp_cost *cost, uint64_t blocks,
                                                   uint32_t recurrent_slots,
                                                   uint32_t max_sequences,
                                                   uint64_t max_seq_tokens, bool prefix_reuse,
                                                   kvp_pool_config *out, kvp_error *err);

typedef struct kvp_pool kvp_pool;

/* Build a pool; all memory is allocated here through `alc` (NULL = libc).
 * Errors: KVP_INVALID_ARG (bad counts, block pools with different
 * tokens_per_block), KVP_NOMEM
 * (nothing is leaked). On failure
 * *out is NULL. The caller frees the pool with kvp_pool_free(). */
KVP_API KVP_NODISCARD kvp_status kvp_pool_new(const kvp_pool_config *config, const kvp_allocator *alc,
                                      kvp_pool **out, kvp_error *err);
/* Free a pool and everything it holds; NULL is a no-op. */
KVP_API void kvp_pool_free(kvp_pool *pool);

/* Open a sequence: takes a free sequence id, one state slot in each
 * recurrent pool and the encoder blocks of each cross pool. `salt` names the
 * sequence's NULL-token content (see above). Errors: KVP_INFEASIBLE when
 * no sequence id, slot or cross block is available (nothing is taken). */
KVP_API KVP_NODISCARD kvp_status kvp_pool_seq_open(kvp_pool *pool, uint64_t salt, uint32_t *out_seq,
                                           kvp_error *err);

/* Prefix match for a freshly opened sequence (no tokens yet): the prompt is
 * `explicit_tokens` ids from `tokens` (may be NULL when 0) followed by
 * `total_tokens - explicit_tokens` salt tokens. Takes the longest run of
 * cached blocks valid in every pool (never the whole prompt) and sets the
 * sequence length to the tokens matched (*out_hit_tokens, may be NULL).
 * Without prefix reuse it matches nothing. Never allocates a block; a
 * recurrent snapshot hit copies the snapshot into the sequence's slot.
 * Errors: KVP_INVALID_ARG (unknown sequence, sequence not empty,
 * total_tokens > max_seq_tokens). */
KVP_API KVP_NODISCARD kvp_status kvp_pool_seq_match(kvp_pool *pool, uint32_t seq, const uint32_t *tokens,
                                            uint64_t explicit_tokens, uint64_t total_tokens,
                                            uint64_t *out_hit_tokens, kvp_error *err);

/* Append `count` tokens: the first `explicit_tokens` are the ids in
 * `tokens` (may be NULL when 0), the rest salt tokens. The append:
 * releases blocks that fell out of windows, copies a shared partial last
 * block (copy-on-write), takes new blocks (free list first, then evicting
 * the least recently used cached block) and enters blocks that became full
 * in the hash index. All or nothing: KVP_INFEASIBLE when some pool lacks
 * blocks, with no block taken (window releases stay done). KVP_INVALID_ARG
 * when the sequence would pass max_seq_tokens. */
KVP_API KVP_NODISCARD kvp_status kvp_pool_seq_append(kvp_pool *pool, uint32_t seq, const uint32_t *tokens,
                                             uint64_t explicit_tokens, uint64_t count,
                                             kvp_error *err);

/* Fork `parent` (beam search, parallel sampling): the child shares every
 * block copy-on-write and gets its own recurrent slot (a copy). The child's
 * later salt tokens use `child_salt`. KVP_INFEASIBLE when no sequence id
 * or recurrent slot is free. */
KVP_API KVP_NODISCARD kvp_status kvp_pool_seq_fork(kvp_pool *pool, uint32_t parent, uint64_t child_salt,
                                           uint32_t *out_child, kvp_error *err);

/* Keep a snapshot of the sequence's recurrent state(s) at its current
 * length, which must be a positive multiple of tokens_per_block, so that a
 * later prompt with the same prefix can start there. No-op without prefix
 * reuse or recurrent pools, or when a snapshot at that prefix exists.
 * KVP_INFEASIBLE when no slot is free or evictable. */
KVP_API KVP_NODISCARD kvp_status kvp_pool_seq_snapshot(kvp_pool *pool, uint32_t seq, kvp_error *err);

/* Close a sequence: releases its blocks, last block first (so the tail of a
 * prompt is evicted before its shared head), and its slots. Unknown ids are
 * ignored. */
KVP_API void kvp_pool_seq_close(kvp_pool *pool, uint32_t seq);

/* Tokens the sequence holds (0 for an unknown id). */
KVP_API uint64_t kvp_pool_seq_tokens(const kvp_pool *pool, uint32_t seq);

/* The block table of a sequence in pool `pool_index`: entries [0, *out_count)
 * of *out_table (owned by the pool, valid until the next call that changes
 * the sequence); entries below *out_first are KVP_POOL_NO_BLOCK (released
 * out of the window). A recurrent pool reports its one slot. */
KVP_API KVP_NODISCARD kvp_status kvp_pool_seq_blocks(const kvp_pool *pool, uint32_t seq,
                                             uint32_t pool_index, const uint32_t **out_table,
                                             uint32_t *out_first, uint32_t *out_count,
                                             kvp_error *err);

/* Reference count of a block (0 for free or cached blocks and bad indices). */
KVP_API uint32_t kvp_pool_block_refs(const kvp_pool *pool, uint32_t pool_index, uint32_t block);
/* True when a block is cached-free (in the hash index, no holder). */
KVP_API bool kvp_pool_block_is_cached(const kvp_pool *pool, uint32_t pool_index, uint32_t block);

typedef struct kvp_pool_stats {
    uint32_t total_blocks;   /* blocks (slots) of the pool */
    uint32_t used_blocks;    /* held by at least one sequence */
    uint32_t free_blocks;    /* on the free list */
    uint32_t cached_blocks;  /* cached-free: findable, evictable */
    uint32_t peak_used_blocks;
    uint64_t hit_blocks;     /* blocks (snapshots) matched on admission */
    uint64_t miss_blocks;    /* full prompt blocks looked up and not matched */
    uint64_t evictions;      /* cached blocks forgotten to serve a fresh block */
    uint64_t copies;         /* copy-on-write and snapshot copies */
} kvp_pool_stats;

/* Statistics of pool `pool_index` (zeroed for a bad index). */
KVP_API void kvp_pool_get_stats(const kvp_pool *pool, uint32_t pool_index, kvp_pool_stats *out);
/* Prompt tokens matched and looked up by kvp_pool_seq_match(), all calls. */
KVP_API void kvp_pool_hit_tokens(const kvp_pool *pool, uint64_t *out_hit_tokens,
                         uint64_t *out_query_tokens);
/* Number of pools, and the spec of one (NULL for a bad index). */
KVP_API uint32_t kvp_pool_count(const kvp_pool *pool);
KVP_API const kvp_pool_spec *kvp_pool_get_spec(const kvp_pool *pool, uint32_t pool_index);
/* Tokens per block shared by the block pools: the granularity of prefix
 * names and snapshots (16 for a pool of recurrent pools only). */
KVP_API uint32_t kvp_pool_tokens_per_block(const kvp_pool *pool);
/* Bytes of per-block bookkeeping of pool `pool_index` with every block held
 * (block records and hash index; block tables, which scale with sequences,
 * not included). Divided by the blocks: 31.2 bytes with prefix reuse, 20
 * without. */
KVP_API uint64_t kvp_pool_bookkeeping_bytes(const kvp_pool *pool, uint32_t pool_index);

/* Check every invariant: each block in exactly one of free list, cached
 * list, used; counts add up to the total; reference counts equal the number
 * of block-table entries (and recurrent slots) that point at each block; the
 * hash index holds exactly the registered blocks, each reachable from its
 * home slot; window pools hold nothing before their first kept block.
 * O(blocks + table entries); allocates a scratch array through the pool's
 * allocator. KVP_CONFIG with the first broken invariant in err. Always
 * compiled (tests call it in every build). The library checks itself after
 * each operation only in debug builds, tiered like mimalloc's MI_DEBUG:
 * KVP_DEBUG=1 (Debug, ASan) the O(1) count invariants, KVP_DEBUG>=2 this
 * full validator; release builds check nothing. */
KVP_API KVP_NODISCARD kvp_status kvp_pool_validate(const kvp_pool *pool, kvp_error *err);

#ifdef __cplusplus
}
#endif
#endif
