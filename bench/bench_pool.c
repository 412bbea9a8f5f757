/* bench_pool.c — block allocate+free and prefix match+insert throughput of
 * kvp_pool, single thread.
 *
 *   cmake -S . -B build-rel -DCMAKE_BUILD_TYPE=Release && cmake --build build-rel --target bench_pool
 *   ./build-rel/bench/bench_pool
 *
 * Targets (issue 7): >= 100 M block allocate+free per second; >= 10 M
 * prefix-matched blocks per second with 16 and 64 tokens per block.
 * Times are process CPU time (the honest figure on a shared machine). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kvplan/pool.h"

static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static kvp_pool *make(uint32_t blocks, uint32_t tpb, uint32_t seqs, uint64_t max_tokens, bool reuse) {
    kvp_pool_config c;
    memset(&c, 0, sizeof c);
    c.pool_count = 1;
    c.pools[0] = (kvp_pool_spec){.kind = KVP_CACHE_FULL, .tokens_per_block = tpb,
                                 .page_bytes = 1, .blocks = blocks};
    c.max_sequences = seqs;
    c.max_seq_tokens = max_tokens;
    c.prefix_reuse = reuse;
    kvp_pool *p = NULL;
    kvp_error err;
    if (kvp_pool_new(&c, NULL, &p, &err) != KVP_OK) {
        fprintf(stderr, "bench_pool: %s\n", err.message);
        exit(1);
    }
    return p;
}

static void check(kvp_status st) {
    if (st != KVP_OK) {
        fprintf(stderr, "bench_pool: unexpected status %s\n", kvp_status_name(st));
        exit(1);
    }
}

/* Sequences of `per_seq` blocks appended in one call and closed: each block
 * is taken from the free list and given back. */
static void bench_alloc_free(uint32_t per_seq, uint32_t tokens_per_append) {
    const uint32_t tpb = 16, rounds = 200000;
    kvp_pool *p = make(per_seq * 4, tpb, 4, (uint64_t)per_seq * tpb, false);
    uint64_t blocks = 0;
    double t0 = cpu_now();
    for (uint32_t r = 0; r < rounds; r++) {
        uint32_t s;
        check(kvp_pool_seq_open(p, r, &s, NULL));
        for (uint64_t done = 0; done < (uint64_t)per_seq * tpb; done += tokens_per_append)
            check(kvp_pool_seq_append(p, s, NULL, 0, tokens_per_append, NULL));
        kvp_pool_seq_close(p, s);
        blocks += per_seq;
    }
    double dt = cpu_now() - t0;
    printf("allocate+free, %u blocks per sequence, %u tokens per append: %.1f M blocks/s "
           "(%.2f ns per allocate+free)\n",
           per_seq, tokens_per_append, (double)blocks / dt / 1e6, dt * 1e9 / (double)blocks);
    kvp_pool_free(p);
}

/* Prompts of 64 blocks: a 48-block prefix shared by all (matched), 16
 * blocks unique to the prompt (hashed and inserted, evicting old ones once
 * the pool is full). */
static void bench_match_insert(uint32_t tpb) {
    const uint32_t shared = 48, unique = 16, total = shared + unique, rounds = 100000;
    uint64_t ntok = (uint64_t)total * tpb;
    kvp_pool *p = make(1u << 16, tpb, 4, ntok + 1, true);
    uint32_t *tok = malloc((size_t)(ntok + 1) * sizeof *tok);
    if (!tok) return;
    for (uint64_t i = 0; i < ntok + 1; i++) tok[i] = (uint32_t)(i * 2654435761u);
    uint64_t matched = 0, inserted = 0;
    double t0 = cpu_now();
    for (uint32_t r = 0; r < rounds; r++) {
        /* A fresh tail for this prompt: the unique blocks differ each round. */
        for (uint64_t i = (uint64_t)shared * tpb; i < ntok + 1; i += 7) tok[i] = r * 31u + (uint32_t)i;
        uint32_t s;
        uint64_t hit;
        check(kvp_pool_seq_open(p, r, &s, NULL));
        check(kvp_pool_seq_match(p, s, tok, ntok + 1, ntok + 1, &hit, NULL));
        uint64_t rest = ntok + 1 - hit;
        check(kvp_pool_seq_append(p, s, tok + hit, rest, rest, NULL));
        kvp_pool_seq_close(p, s);
        matched += hit / tpb;
        inserted += rest / tpb;
    }
    double dt = cpu_now() - t0;
    printf("prefix match+insert, %u tokens per block: %.1f M blocks/s (%.1f M matched + %.1f M "
           "hashed and inserted per s; %.1f%% of looked-up blocks hit)\n",
           tpb, (double)(matched + inserted) / dt / 1e6, (double)matched / dt / 1e6,
           (double)inserted / dt / 1e6, 100.0 * (double)matched / (double)(matched + inserted));
    free(tok);
    kvp_pool_free(p);
}

int main(void) {
    bench_alloc_free(1024, 1024 * 16); /* whole sequence in one append */
    bench_alloc_free(64, 16);          /* one block per append call */
    bench_alloc_free(64, 1);           /* decode: one token per call */
    bench_match_insert(16);
    bench_match_insert(64);
    return 0;
}
