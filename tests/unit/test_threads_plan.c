/*
 * test_threads_plan.c — planning with independent creators from several
 * threads at once (issue 8, item 5; plan.h: "different creators are
 * independent"). Eight threads, started together on a barrier, each plan
 * several models (their own model handles, plus one target model shared
 * read-only by all) through the creator lifecycle, and every figure is compared
 * with a single-threaded reference. scripts/test.sh runs it under TSan.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "kvplan/kvplan.h"
#include "kvplan/plan.h"

#define THREADS 8
#define ROUNDS 4
#define GIB (1024ull * 1024ull * 1024ull)

static const char *const k_models[] = {"llama-3.1-8b", "gemma-3-27b-it", "deepseek-v3",
                                       "qwen3-next-80b-a3b-thinking", "gpt-oss-20b"};
#define NMODELS (sizeof k_models / sizeof k_models[0])

typedef struct figures {
    uint64_t budget, allocated, target_bytes, target_tokens, est_tokens;
} figures;

typedef struct worker {
    int id;
    pthread_barrier_t *start;
    const kvp_model *shared;
    figures got[NMODELS];
    figures shared_got;
    char error[512];
} worker;

static int plan_figures(const kvp_model *m, uint32_t tp, figures *out, kvp_error *err) {
    memset(out, 0, sizeof *out);
    kvp_deploy_settings d;
    memset(&d, 0, sizeof d);
    d.tp = tp;
    d.pp_rank = -1;
    d.max_seq_len = 8192;
    kvp_kv_config kv;
    memset(&kv, 0, sizeof kv);
    kvp_creator *c = NULL;
    if (kvp_creator_new(m, NULL, &d, &kv, NULL, &c, err) != KVP_OK) return -1;
    kvp_estimation_plan est;
    kvp_capacity cap;
    kvp_plan plan;
    int rc = -1;
    if (kvp_creator_prepare_estimation(c, 70 * GIB, &est, err) == KVP_OK &&
        kvp_creator_configure_budget(c, 40 * GIB, &cap, err) == KVP_OK &&
        kvp_creator_build(c, false, &plan, err) == KVP_OK) {
        out->budget = plan.budget_bytes;
        out->allocated = plan.allocated_bytes;
        out->target_bytes = plan.managers[KVP_ROLE_TARGET].bytes;
        out->target_tokens = plan.managers[KVP_ROLE_TARGET].max_tokens_out;
        out->est_tokens = est.max_tokens;
        rc = 0;
    }
    kvp_creator_free(c);
    return rc;
}

static void *run(void *arg) {
    worker *w = arg;
    kvp_error err;
    pthread_barrier_wait(w->start);
    for (int round = 0; round < ROUNDS; round++) {
        for (size_t k = 0; k < NMODELS; k++) {
            size_t i = (k + (size_t)w->id + (size_t)round) % NMODELS;
            kvp_model *m = NULL;
            if (kvp_model_open(k_models[i], NULL, &m, &err) != KVP_OK) {
                snprintf(w->error, sizeof w->error, "%s: %s", k_models[i], err.message);
                return NULL;
            }
            figures f;
            int rc = plan_figures(m, 2, &f, &err);
            kvp_model_free(m);
            if (rc != 0) {
                snprintf(w->error, sizeof w->error, "%s: %s", k_models[i], err.message);
                return NULL;
            }
            if (round > 0 && memcmp(&f, &w->got[i], sizeof f) != 0) {
                snprintf(w->error, sizeof w->error, "%s changed between rounds", k_models[i]);
                return NULL;
            }
            w->got[i] = f;
        }
        if (plan_figures(w->shared, 1, &w->shared_got, &err) != 0) {
            snprintf(w->error, sizeof w->error, "shared: %s", err.message);
            return NULL;
        }
    }
    return NULL;
}

static void test_independent_creators_in_threads(void **state) {
    (void)state;
    kvp_error err;
    kvp_model *shared = NULL;
    assert_int_equal(kvp_model_open("llama-3.1-8b", NULL, &shared, &err), KVP_OK);
    static worker w[THREADS];
    pthread_t th[THREADS];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, THREADS);
    for (int i = 0; i < THREADS; i++) {
        memset(&w[i], 0, sizeof w[i]);
        w[i].id = i;
        w[i].start = &start;
        w[i].shared = shared;
        assert_int_equal(pthread_create(&th[i], NULL, run, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) assert_int_equal(pthread_join(th[i], NULL), 0);
    pthread_barrier_destroy(&start);

    figures ref[NMODELS], shared_ref;
    for (size_t i = 0; i < NMODELS; i++) {
        kvp_model *m = NULL;
        assert_int_equal(kvp_model_open(k_models[i], NULL, &m, &err), KVP_OK);
        if (plan_figures(m, 2, &ref[i], &err) != 0) fail_msg("%s: %s", k_models[i], err.message);
        kvp_model_free(m);
        /* A plan that hands out no bytes would make the comparison empty. */
        assert_true(ref[i].allocated > 0);
    }
    assert_int_equal(plan_figures(shared, 1, &shared_ref, &err), 0);
    /* The budget given is the budget planned: 40 GiB = 42,949,672,960 bytes. */
    assert_int_equal(shared_ref.budget, 40 * GIB);
    for (int k = 0; k < THREADS; k++) {
        if (w[k].error[0]) fail_msg("thread %d: %s", k, w[k].error);
        for (size_t i = 0; i < NMODELS; i++)
            if (memcmp(&w[k].got[i], &ref[i], sizeof ref[i]) != 0)
                fail_msg("thread %d: %s differs from the single-threaded plan", k, k_models[i]);
        assert_memory_equal(&w[k].shared_got, &shared_ref, sizeof shared_ref);
    }
    kvp_model_free(shared);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_independent_creators_in_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
