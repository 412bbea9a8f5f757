/*
 * test_threads_json_call.c — the binding path (what Python and `kvplan serve`
 * call) from several threads at once. Eight threads, started together on a
 * barrier, each ask kvp_json_call for the same plans in a different order:
 * every answer must be byte for byte the single-threaded one. What they
 * share is what this exercises: the parsed-model cache (bind/request_model.c),
 * the embedded GPU catalogue and its name index (probe/gpu_catalog.c, built
 * once), the start-up gate each thread keeps (pipeline/deploy_startup.c) and
 * the JSON writer. scripts/test.sh runs it under TSan.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kvplan/kvplan.h"

#define THREADS 8
#define ROUNDS 3

/* Four engines, a hybrid model, a GPU by alias and by full name. */
static const char *const k_requests[] = {
    "{\"model\": \"llama-3.1-8b\", \"gpu\": \"h100\", \"policy\": \"vllm\", \"max_seq_len\": 8192}",
    "{\"model\": \"llama-3.1-8b\", \"gpu\": \"H100 SXM 80GB\", \"policy\": \"sglang\", \"max_seq_len\": 8192}",
    "{\"model\": \"llama-3.1-8b\", \"gpu\": \"h100\", \"policy\": \"trtllm\", \"max_seq_len\": 8192}",
    "{\"model\": \"llama-3.1-8b\", \"gpu\": \"rtx 4090\", \"policy\": \"llamacpp\", \"max_seq_len\": 8192}",
    "{\"model\": \"gemma-3-27b-it\", \"gpu\": \"h200\", \"policy\": \"vllm\", \"max_seq_len\": 8192}",
    "{\"model\": \"qwen3-next-80b-a3b-thinking\", \"gpu\": \"h200\", \"policy\": \"vllm\", \"tp\": 2}",
};
#define NREQ (sizeof k_requests / sizeof k_requests[0])

static char *g_reference[NREQ];

typedef struct worker {
    int id;
    pthread_barrier_t *start;
    int mismatches, failures;
} worker;

static void *run(void *arg) {
    worker *w = arg;
    pthread_barrier_wait(w->start);
    for (int round = 0; round < ROUNDS; round++) {
        for (size_t k = 0; k < NREQ; k++) {
            size_t i = (k + (size_t)w->id + (size_t)round) % NREQ; /* each thread its own order */
            char *out = NULL;
            kvp_error err;
            if (kvp_json_call("plan", k_requests[i], &out, &err) != KVP_OK) {
                w->failures++;
                continue;
            }
            if (strcmp(out, g_reference[i]) != 0) w->mismatches++;
            kvp_json_free(out);
        }
    }
    return NULL;
}

static void test_json_call_from_threads(void **state) {
    (void)state;
    for (size_t i = 0; i < NREQ; i++) {
        kvp_error err;
        assert_int_equal(kvp_json_call("plan", k_requests[i], &g_reference[i], &err), KVP_OK);
        /* A real plan document, not an error object. */
        assert_non_null(strstr(g_reference[i], "\"schema_version\": 2"));
    }
    pthread_t th[THREADS];
    worker w[THREADS];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, THREADS);
    for (int i = 0; i < THREADS; i++) {
        w[i] = (worker){i, &start, 0, 0};
        assert_int_equal(pthread_create(&th[i], NULL, run, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) assert_int_equal(pthread_join(th[i], NULL), 0);
    pthread_barrier_destroy(&start);
    for (int i = 0; i < THREADS; i++) {
        assert_int_equal(w[i].failures, 0);
        assert_int_equal(w[i].mismatches, 0);
    }
    for (size_t i = 0; i < NREQ; i++) kvp_json_free(g_reference[i]);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_json_call_from_threads)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
