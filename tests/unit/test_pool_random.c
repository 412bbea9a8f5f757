/* test_pool_random.c — seeded random operations on small pools of every
 * kind, with kvp_pool_validate() after each one: 7 configurations x 150,000
 * operations = 1,050,000. Pools are small (<= 24 blocks, 8 sequences of at
 * most 64 tokens) so that exhaustion, eviction, window release and
 * copy-on-write happen all the time and the O(n) validator stays cheap
 * enough for the ASan build. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kvplan/pool.h"

#define OPS_PER_CONFIG 150000
#define MAX_SEQS 8
#define MAX_TOKENS 64
#define TEXTS 4

static uint64_t rng_state;
static uint64_t next_u64(void) { /* splitmix64 */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static uint32_t below(uint32_t n) { return (uint32_t)(next_u64() % n); }

/* Texts share prefixes of 0, 9 and 21 tokens with text 0, so matches of
 * several lengths happen. */
static uint32_t texts[TEXTS][MAX_TOKENS];

static void make_texts(void) {
    for (int t = 0; t < TEXTS; t++)
        for (int i = 0; i < MAX_TOKENS; i++) texts[t][i] = (uint32_t)(1000 * t + i);
    for (int i = 0; i < 9; i++) texts[1][i] = texts[0][i];
    for (int i = 0; i < 21; i++) texts[2][i] = texts[0][i];
}

typedef struct run_totals {
    uint64_t ops, infeasible, hits, forks, snapshots, closes;
} run_totals;

static void check(const kvp_pool *p, uint64_t op) {
    kvp_error err;
    if (kvp_pool_validate(p, &err) != KVP_OK) fail_msg("after op %llu: %s", (unsigned long long)op, err.message);
}

static void run(const kvp_pool_spec *specs, uint32_t n, bool reuse, uint64_t seed,
                run_totals *tot) {
    kvp_pool_config c;
    memset(&c, 0, sizeof c);
    c.pool_count = n;
    for (uint32_t i = 0; i < n; i++) c.pools[i] = specs[i];
    c.max_sequences = MAX_SEQS;
    c.max_seq_tokens = MAX_TOKENS;
    c.prefix_reuse = reuse;
    kvp_pool *p = NULL;
    assert_int_equal(kvp_pool_new(&c, NULL, &p, NULL), KVP_OK);
    rng_state = seed;
    uint32_t tpb = kvp_pool_tokens_per_block(p);
    uint32_t open[MAX_SEQS];
    int text_of[MAX_SEQS];
    uint32_t nopen = 0;
    for (uint64_t op = 0; op < OPS_PER_CONFIG; op++) {
        uint32_t r = below(100);
        if (r < 15 || nopen == 0) { /* open, usually with a prompt match */
            uint32_t s;
            kvp_status st = kvp_pool_seq_open(p, below(3), &s, NULL);
            if (st == KVP_INFEASIBLE) {
                tot->infeasible++;
            } else {
                assert_int_equal(st, KVP_OK);
                open[nopen] = s;
                text_of[s] = (int)below(TEXTS);
                nopen++;
                if (below(10) < 7) {
                    uint64_t total = 1 + below(MAX_TOKENS), expl = below((uint32_t)total + 1), hit;
                    assert_int_equal(kvp_pool_seq_match(p, s, texts[text_of[s]], expl, total,
                                                        &hit, NULL),
                                     KVP_OK);
                    assert_true(hit < total && hit % tpb == 0);
                    assert_int_equal(kvp_pool_seq_tokens(p, s), hit);
                    if (!reuse) assert_int_equal(hit, 0);
                    tot->hits += hit > 0;
                }
            }
        } else if (r < 60) { /* append, explicit ids or salt tokens */
            uint32_t s = open[below(nopen)];
            uint64_t len = kvp_pool_seq_tokens(p, s);
            uint64_t cnt = 1 + below(2 * tpb + 1);
            const uint32_t *tok = below(2) && len + cnt <= MAX_TOKENS ? texts[text_of[s]] + len : NULL;
            uint64_t ex = tok ? below((uint32_t)cnt + 1) : 0; /* ids, then salt tokens */
            kvp_status st = kvp_pool_seq_append(p, s, tok, ex, cnt, NULL);
            if (len + cnt > MAX_TOKENS) {
                assert_int_equal(st, KVP_INVALID_ARG);
            } else if (st == KVP_INFEASIBLE) {
                tot->infeasible++;
                assert_int_equal(kvp_pool_seq_tokens(p, s), len); /* all or nothing */
            } else {
                assert_int_equal(st, KVP_OK);
                assert_int_equal(kvp_pool_seq_tokens(p, s), len + cnt);
            }
        } else if (r < 72) { /* fork */
            uint32_t s = open[below(nopen)], child;
            kvp_status st = kvp_pool_seq_fork(p, s, below(3), &child, NULL);
            if (st == KVP_INFEASIBLE) {
                tot->infeasible++;
            } else {
                assert_int_equal(st, KVP_OK);
                assert_int_equal(kvp_pool_seq_tokens(p, child), kvp_pool_seq_tokens(p, s));
                open[nopen++] = child;
                text_of[child] = text_of[s];
                tot->forks++;
            }
        } else if (r < 78) { /* snapshot */
            uint32_t s = open[below(nopen)];
            uint64_t len = kvp_pool_seq_tokens(p, s);
            kvp_status st = kvp_pool_seq_snapshot(p, s, NULL);
            if (len == 0 || len % tpb) assert_int_equal(st, KVP_INVALID_ARG);
            else if (st == KVP_INFEASIBLE) tot->infeasible++;
            else {
                assert_int_equal(st, KVP_OK);
                tot->snapshots++;
            }
        } else { /* close */
            uint32_t i = below(nopen);
            kvp_pool_seq_close(p, open[i]);
            open[i] = open[--nopen];
            tot->closes++;
        }
        check(p, op);
        tot->ops++;
    }
    kvp_pool_free(p);
}

static kvp_pool_spec spec(kvp_cache_kind kind, uint64_t window, uint32_t blocks) {
    kvp_pool_spec s = {.kind = kind, .window_tokens = window,
                       .tokens_per_block = kind == KVP_CACHE_RECURRENT ? 0 : 4,
                       .page_bytes = 1, .blocks = blocks};
    return s;
}

static void test_random_ops_every_kind(void **state) {
    (void)state;
    make_texts();
    run_totals tot = {0};
    kvp_pool_spec full = spec(KVP_CACHE_FULL, 0, 24);
    run(&full, 1, true, 1, &tot);
    run(&full, 1, false, 2, &tot);
    kvp_pool_spec sliding = spec(KVP_CACHE_SLIDING, 10, 16);
    run(&sliding, 1, true, 3, &tot);
    kvp_pool_spec chunked = spec(KVP_CACHE_CHUNKED, 8, 12);
    run(&chunked, 1, true, 4, &tot);
    kvp_pool_spec hybrid[2] = {spec(KVP_CACHE_FULL, 0, 24), spec(KVP_CACHE_RECURRENT, 0, 6)};
    run(hybrid, 2, true, 5, &tot);
    kvp_pool_spec cross[2] = {spec(KVP_CACHE_CROSS, 6, 12), spec(KVP_CACHE_MLA, 0, 24)};
    run(cross, 2, true, 6, &tot);
    kvp_pool_spec all[7] = {spec(KVP_CACHE_FULL, 0, 20),     spec(KVP_CACHE_SLIDING, 10, 14),
                            spec(KVP_CACHE_CHUNKED, 8, 12),  spec(KVP_CACHE_MLA, 0, 22),
                            spec(KVP_CACHE_RECURRENT, 0, 8), spec(KVP_CACHE_CROSS, 5, 14),
                            spec(KVP_CACHE_INDEXER, 0, 24)};
    run(all, 7, true, 7, &tot);
    print_message("pool random: %llu ops, %llu refused, %llu prompt hits, %llu forks, %llu "
                  "snapshots, %llu closes\n",
                  (unsigned long long)tot.ops, (unsigned long long)tot.infeasible,
                  (unsigned long long)tot.hits, (unsigned long long)tot.forks,
                  (unsigned long long)tot.snapshots, (unsigned long long)tot.closes);
    assert_true(tot.ops >= 1000000);
    /* The mix must actually exercise the interesting paths. */
    assert_true(tot.infeasible > 1000);
    assert_true(tot.hits > 1000);
    assert_true(tot.snapshots > 1000);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_ops_every_kind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
