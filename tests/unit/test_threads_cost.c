/*
 * test_threads_cost.c — the library keeps no global mutable state (DESIGN.md),
 * so independent handles can be used from several threads at once (issue 8,
 * item 5). Eight threads start together on a barrier, before anything has
 * touched the lazily built catalogue, and each reads models (catalogue names,
 * JSON text, files), costs them under several deployments and collects
 * model-local caches, comparing every figure with a single-threaded reference
 * computed afterwards. One model handle is also shared read-only by all
 * threads. scripts/test.sh runs this test in a ThreadSanitizer build.
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
#define ROUNDS 6

static const char *const k_models[] = {"llama-3.1-8b", "gemma-3-27b-it", "deepseek-v3",
                                       "qwen3-next-80b-a3b-thinking", "gpt-oss-20b",
                                       "nemotron-h-56b-base-8k", "whisper-large-v3"};
#define NMODELS (sizeof k_models / sizeof k_models[0])
static const uint32_t k_tps[] = {1, 2, 4};
#define NTPS (sizeof k_tps / sizeof k_tps[0])

/* Bytes per token, bytes per sequence and a 32k-token sequence, per model and tp. */
typedef struct figures {
    uint64_t per_token, per_sequence, seq32k;
    uint32_t pools;
} figures;

typedef struct worker {
    int id;
    pthread_barrier_t *start;
    const kvp_model *shared;
    const char *llama_text;
    size_t llama_len;
    figures got[NMODELS][NTPS];
    figures shared_got;
    uint64_t local_bytes;
    char error[512];
} worker;

static int cost_figures(const kvp_model *m, uint32_t tp, figures *out, kvp_error *err) {
    memset(out, 0, sizeof *out); /* padding too: figures are compared with memcmp */
    kvp_cost_settings s = kvp_cost_settings_default();
    s.tp = tp;
    kvp_cost c;
    if (kvp_cost_compute(m, &s, &c, err) != KVP_OK) return -1;
    out->per_token = c.bytes_per_token;
    out->per_sequence = c.bytes_per_sequence;
    out->pools = c.pool_count;
    return kvp_cost_sequence_bytes(&c, 32768, &out->seq32k, err) == KVP_OK ? 0 : -1;
}

static uint64_t local_total(kvp_error *err) {
    kvp_local_deployment dep;
    memset(&dep, 0, sizeof dep);
    dep.max_num_seqs = 16;
    dep.async_chunk = true;
    kvp_local_report *rep = NULL;
    if (kvp_local_report_for("qwen3-tts", &dep, NULL, &rep, err) != KVP_OK) return UINT64_MAX;
    uint64_t total = kvp_local_report_totals(rep)->total_bytes;
    kvp_local_report_free(rep);
    return total;
}

static void *run(void *arg) {
    worker *w = arg;
    kvp_error err;
    pthread_barrier_wait(w->start);
    for (int round = 0; round < ROUNDS; round++) {
        /* Start at a different model in each thread so that reads overlap. */
        for (size_t k = 0; k < NMODELS; k++) {
            size_t i = (k + (size_t)w->id + (size_t)round) % NMODELS;
            kvp_model *m = NULL;
            if (kvp_model_open(k_models[i], NULL, &m, &err) != KVP_OK) {
                snprintf(w->error, sizeof w->error, "%s: %s", k_models[i], err.message);
                return NULL;
            }
            for (size_t t = 0; t < NTPS; t++) {
                figures f;
                if (cost_figures(m, k_tps[t], &f, &err) != 0) {
                    snprintf(w->error, sizeof w->error, "%s tp %u: %s", k_models[i], k_tps[t],
                             err.message);
                    kvp_model_free(m);
                    return NULL;
                }
                if (round > 0 && memcmp(&f, &w->got[i][t], sizeof f) != 0) {
                    snprintf(w->error, sizeof w->error, "%s tp %u changed between rounds",
                             k_models[i], k_tps[t]);
                    kvp_model_free(m);
                    return NULL;
                }
                w->got[i][t] = f;
            }
            kvp_model_free(m);
        }
        /* The same text parsed in every thread, and a shared read-only handle. */
        kvp_model *m = NULL;
        if (kvp_model_from_hf_json(w->llama_text, w->llama_len, "llama.json", NULL, &m, &err) !=
            KVP_OK) {
            snprintf(w->error, sizeof w->error, "llama text: %s", err.message);
            return NULL;
        }
        kvp_model_free(m);
        if (cost_figures(w->shared, 4, &w->shared_got, &err) != 0) {
            snprintf(w->error, sizeof w->error, "shared: %s", err.message);
            return NULL;
        }
        w->local_bytes = local_total(&err);
        /* Errors are per call too: a bad name in one thread must not leak into another. */
        kvp_model *bad = NULL;
        if (kvp_model_open("no-such-model-for-threads", NULL, &bad, &err) != KVP_NOT_FOUND ||
            bad != NULL || strstr(err.message, "no-such-model-for-threads") == NULL) {
            snprintf(w->error, sizeof w->error, "bad name: %s", err.message);
            return NULL;
        }
    }
    return NULL;
}

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    buf[n] = '\0';
    *len = (size_t)n;
    return buf;
}

static void test_independent_handles_in_threads(void **state) {
    (void)state;
    size_t len;
    char *text = slurp(KVP_SOURCE_DIR "/data/models/meta-llama__Llama-3.1-8B.json", &len);
    kvp_error err;
    kvp_model *shared = NULL;
    /* Built from text, not the catalogue: the catalogue's first use stays in the threads. */
    assert_int_equal(kvp_model_from_hf_json(text, len, "shared.json", NULL, &shared, &err), KVP_OK);

    static worker w[THREADS];
    pthread_t th[THREADS];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, THREADS);
    for (int i = 0; i < THREADS; i++) {
        memset(&w[i], 0, sizeof w[i]);
        w[i].id = i;
        w[i].start = &start;
        w[i].shared = shared;
        w[i].llama_text = text;
        w[i].llama_len = len;
        assert_int_equal(pthread_create(&th[i], NULL, run, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) assert_int_equal(pthread_join(th[i], NULL), 0);
    pthread_barrier_destroy(&start);

    /* Reference, single-threaded, after the fact. */
    figures ref[NMODELS][NTPS];
    for (size_t i = 0; i < NMODELS; i++) {
        kvp_model *m = NULL;
        assert_int_equal(kvp_model_open(k_models[i], NULL, &m, &err), KVP_OK);
        for (size_t t = 0; t < NTPS; t++) assert_int_equal(cost_figures(m, k_tps[t], &ref[i][t], &err), 0);
        kvp_model_free(m);
    }
    figures shared_ref;
    assert_int_equal(cost_figures(shared, 4, &shared_ref, &err), 0);
    uint64_t local_ref = local_total(&err);
    /* Llama-3.1-8B at tp 1: 32 layers x 8 KV heads x 128 x 2 (K,V) x 2 bytes = 131,072
     * bytes per token; at tp 4 each rank keeps 2 heads: 32,768. */
    assert_int_equal(ref[0][0].per_token, 131072);
    assert_int_equal(shared_ref.per_token, 32768);
    assert_true(local_ref > 0 && local_ref != UINT64_MAX);
    for (int k = 0; k < THREADS; k++) {
        if (w[k].error[0]) fail_msg("thread %d: %s", k, w[k].error);
        for (size_t i = 0; i < NMODELS; i++)
            for (size_t t = 0; t < NTPS; t++)
                if (memcmp(&w[k].got[i][t], &ref[i][t], sizeof ref[i][t]) != 0)
                    fail_msg("thread %d: %s tp %u differs from the single-threaded figures", k,
                             k_models[i], k_tps[t]);
        assert_memory_equal(&w[k].shared_got, &shared_ref, sizeof shared_ref);
        assert_int_equal(w[k].local_bytes, local_ref);
    }
    kvp_model_free(shared);
    free(text);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_independent_handles_in_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
