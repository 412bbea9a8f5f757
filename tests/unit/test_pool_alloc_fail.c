/* test_pool_alloc_fail.c — SQLite-style failure injection: fail the Nth
 * allocation for N = 0, 1, 2, ... until the call succeeds; every failure
 * must be a clean KVP_NOMEM with nothing returned and nothing leaked (the
 * ASan build checks the leaks). Covers kvp_pool_new, the workload reader,
 * the synthetic generator, kvp_sim_run and kvp_pool_validate. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kvplan/sim.h"

typedef struct failing {
    long fail_at; /* allocation index to fail; -1 = never */
    long count;
} failing;

static void *f_malloc(void *ctx, size_t n) {
    failing *f = ctx;
    return f->count++ == f->fail_at ? NULL : malloc(n);
}
static void *f_realloc(void *ctx, void *p, size_t n) {
    failing *f = ctx;
    return f->count++ == f->fail_at ? NULL : realloc(p, n);
}
static void f_free(void *ctx, void *p) {
    (void)ctx;
    free(p);
}

static kvp_pool_config pool_config(void) {
    kvp_pool_config c;
    memset(&c, 0, sizeof c);
    c.pool_count = 3;
    c.pools[0] = (kvp_pool_spec){.kind = KVP_CACHE_FULL, .tokens_per_block = 16, .blocks = 64};
    c.pools[1] = (kvp_pool_spec){.kind = KVP_CACHE_SLIDING, .window_tokens = 64,
                                 .tokens_per_block = 16, .blocks = 32};
    c.pools[2] = (kvp_pool_spec){.kind = KVP_CACHE_RECURRENT, .blocks = 8};
    c.max_sequences = 4;
    c.max_seq_tokens = 512;
    c.prefix_reuse = true;
    return c;
}

static void test_pool_new_fails_cleanly(void **state) {
    (void)state;
    kvp_pool_config c = pool_config();
    long failures = 0;
    for (long n = 0;; n++) {
        failing f = {n, 0};
        kvp_allocator a = {f_malloc, f_realloc, f_free, &f};
        kvp_pool *p = (kvp_pool *)&f; /* poisoned */
        kvp_error err;
        kvp_status st = kvp_pool_new(&c, &a, &p, &err);
        if (st == KVP_OK) {
            /* The validator allocates too: its failure is clean as well. */
            f.fail_at = f.count;
            assert_int_equal(kvp_pool_validate(p, &err), KVP_NOMEM);
            f.fail_at = -1;
            assert_int_equal(kvp_pool_validate(p, &err), KVP_OK);
            kvp_pool_free(p);
            break;
        }
        assert_int_equal(st, KVP_NOMEM);
        assert_int_equal(err.code, KVP_NOMEM);
        assert_null(p);
        failures++;
    }
    assert_true(failures >= 10); /* one per array: the loop really injected */
}

static void test_workload_and_sim_fail_cleanly(void **state) {
    (void)state;
    const char *text =
        "{\"prompt_len\": 40, \"output_len\": 3, \"prefix_id\": \"a\", \"prefix_len\": 32}\n"
        "{\"prompt_tokens\": [1, 2, 3, 4, 5], \"output_len\": 2}\n"
        "{\"prompt_len\": 40, \"output_len\": 3, \"prefix_id\": \"a\"}\n";
    long failures = 0;
    for (long n = 0;; n++) {
        failing f = {n, 0};
        kvp_allocator a = {f_malloc, f_realloc, f_free, &f};
        kvp_workload *w = (kvp_workload *)&f;
        kvp_error err;
        kvp_status st = kvp_workload_parse(text, strlen(text), "w", NULL, &a, &w, &err);
        if (st != KVP_OK) {
            assert_int_equal(st, KVP_NOMEM);
            assert_null(w);
            failures++;
            continue;
        }
        /* The reader succeeded (no unknown keys here: a warning whose copy
         * fails is dropped, not fatal); now fail inside the simulation. */
        kvp_sim_config c;
        memset(&c, 0, sizeof c);
        c.pool = pool_config();
        c.max_batch_size = 4;
        c.max_model_len = 512;
        long sim_failures = 0;
        for (long m = 0;; m++) {
            f.count = 0; /* count this run's allocations only */
            f.fail_at = m;
            kvp_sim_result r;
            st = kvp_sim_run(&c, w, &a, &r, &err);
            if (st == KVP_OK) {
                assert_int_equal(r.finished, 3);
                break;
            }
            assert_int_equal(st, KVP_NOMEM);
            sim_failures++;
        }
        assert_true(sim_failures >= 5);
        f.fail_at = -1;
        kvp_workload_free(w);
        break;
    }
    assert_true(failures >= 3);
    /* The synthetic generator. */
    kvp_synthetic_spec s;
    assert_int_equal(kvp_synthetic_parse("requests=10,prompt=fixed:9,output=fixed:2,"
                                         "shared_prefix=4:0.5,prefixes=3",
                                         &s, NULL),
                     KVP_OK);
    failures = 0;
    for (long n = 0;; n++) {
        failing f = {n, 0};
        kvp_allocator a = {f_malloc, f_realloc, f_free, &f};
        kvp_workload *w = (kvp_workload *)&f;
        kvp_status st = kvp_workload_synthetic(&s, &a, &w, NULL);
        if (st == KVP_OK) {
            assert_int_equal(kvp_workload_count(w), 10);
            kvp_workload_free(w);
            break;
        }
        assert_int_equal(st, KVP_NOMEM);
        assert_null(w);
        failures++;
    }
    /* One allocation, the handle: a synthetic workload stores no requests and no
     * prefix ids (they are drawn and made as a simulation reads them). */
    assert_int_equal(failures, 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pool_new_fails_cleanly),
        cmocka_unit_test(test_workload_and_sim_fail_cleanly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
