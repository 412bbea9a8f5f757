/*
 * test_faults_config.c — allocation-failure injection over reading every kind
 * of model input kvplan has (issue 8, item 4): every catalogue config.json from
 * memory, a config from a file (the bounded reader grows its buffer), a folder,
 * a catalogue name, and model-local declarations with their collection. For
 * N = 0, 1, 2, ... the Nth allocation fails; each failure must come back as
 * KVP_NOMEM with a message and no live allocation (fault_alloc.h), and the run
 * that finally succeeds must produce a model the cost model accepts.
 * Run under ASan in CI, which also catches a double free or a use after free
 * on the failure paths.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fault_alloc.h"

#define MAX_POINTS 200000

typedef struct text_arg {
    const char *name;
    const char *text;
    size_t len;
} text_arg;

/* After a successful read: the model costs cleanly (no allocation there). */
static kvp_status cost_and_free(kvp_model *m, kvp_error *err) {
    kvp_cost c;
    kvp_status s = kvp_cost_compute(m, NULL, &c, err);
    if (s == KVP_OK && c.pool_count == 0) {
        s = err->code = KVP_CONFIG;
        snprintf(err->message, sizeof err->message, "model read with no cache pool");
    }
    kvp_model_free(m);
    return s;
}

static kvp_status op_hf_json(const kvp_allocator *alc, const void *arg, kvp_error *err) {
    const text_arg *t = arg;
    kvp_model *m = (kvp_model *)(uintptr_t)1; /* poisoned: must be NULL on failure */
    kvp_status s = kvp_model_from_hf_json(t->text, t->len, t->name, alc, &m, err);
    if (s != KVP_OK) return m == NULL ? s : KVP_INVALID_ARG;
    return cost_and_free(m, err);
}

static kvp_status op_hf_file(const kvp_allocator *alc, const void *arg, kvp_error *err) {
    kvp_model *m = NULL;
    kvp_status s = kvp_model_from_hf_file(arg, alc, &m, err);
    if (s != KVP_OK) return m == NULL ? s : KVP_INVALID_ARG;
    return cost_and_free(m, err);
}

static kvp_status op_open(const kvp_allocator *alc, const void *arg, kvp_error *err) {
    kvp_model *m = NULL;
    kvp_status s = kvp_model_open(arg, alc, &m, err);
    if (s != KVP_OK) return m == NULL ? s : KVP_INVALID_ARG;
    return cost_and_free(m, err);
}

static void expect_clean(const char *what, fault_op op, const void *arg, long *total) {
    fault_result r = fault_drive(op, arg, MAX_POINTS, false);
    if (!r.ok) fail_msg("%s: %s", what, r.why);
    /* Reading a config allocates at least the model, its name, the source copy,
     * the jansson tree and the layer array: far more than 4 points. */
    assert_true(r.points >= 4);
    *total += r.points;
}

/* Every config of the catalogue, from memory. */
static void test_every_catalogue_config(void **state) {
    (void)state;
    const char *dir = KVP_SOURCE_DIR "/data/models";
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    long files = 0, points = 0;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".json") != 0) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        text_arg t = {e->d_name, NULL, 0};
        char *text = fault_slurp(path, &t.len);
        assert_non_null(text);
        t.text = text;
        expect_clean(e->d_name, op_hf_json, &t, &points);
        free(text);
        files++;
    }
    closedir(d);
    /* data/models holds ~60 configs; fewer than 40 means the walk broke. */
    assert_true(files >= 40);
    print_message("faults: %ld catalogue configs, %ld injection points\n", files, points);
}

/* From a file larger than the reader's first 4 KiB buffer (its growth path),
 * from a folder holding config.json, and from a catalogue name. */
static void test_file_folder_and_name(void **state) {
    (void)state;
    long points = 0;
    const char *big = KVP_SOURCE_DIR "/data/models/nvidia__Llama-3_3-Nemotron-Super-49B-v1.json";
    size_t len = 0;
    char *text = fault_slurp(big, &len);
    assert_non_null(text);
    assert_true(len > 8192); /* two buffer growths at least */
    free(text);
    expect_clean("file", op_hf_file, big, &points);
    char folder[1024];
    snprintf(folder, sizeof folder, "%s/faults_folder", KVP_BINARY_DIR);
    char cfg[1100];
    snprintf(cfg, sizeof cfg, "%s/config.json", folder);
    char cmd[2400];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp '%s' '%s'", folder,
             KVP_SOURCE_DIR "/data/models/google__gemma-3-27b-it.json", cfg);
    assert_int_equal(system(cmd), 0);
    expect_clean("folder", op_hf_file, folder, &points);
    expect_clean("open path", op_open, cfg, &points);
    expect_clean("catalogue name", op_open, "llama-3.1-8b", &points);
    expect_clean("catalogue hf id", op_open, "deepseek-ai/DeepSeek-V3", &points);
    print_message("faults: file/folder/name, %ld injection points\n", points);
}

/* Model-local declarations: parse, collect, free. */
typedef struct local_arg {
    text_arg text;
    kvp_local_deployment dep;
} local_arg;

static kvp_status op_local(const kvp_allocator *alc, const void *arg, kvp_error *err) {
    const local_arg *a = arg;
    kvp_local_decls *decls = NULL;
    kvp_status s = kvp_local_decls_from_json(a->text.text, a->text.len, a->text.name, alc, &decls,
                                             err);
    if (s != KVP_OK) return decls == NULL ? s : KVP_INVALID_ARG;
    kvp_local_report *rep = NULL;
    s = kvp_local_collect(decls, &a->dep, alc, &rep, err);
    if (s == KVP_OK) kvp_local_report_free(rep);
    kvp_local_decls_free(decls);
    return s;
}

static void test_local_declarations(void **state) {
    (void)state;
    const char *dir = KVP_SOURCE_DIR "/data/local";
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    long files = 0, points = 0;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".json") != 0) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        local_arg a;
        memset(&a, 0, sizeof a);
        a.text.name = e->d_name;
        char *text = fault_slurp(path, &a.text.len);
        assert_non_null(text);
        a.text.text = text;
        /* Both deployments: async-chunk / streaming turn more declarations on. */
        a.dep.max_num_seqs = 8;
        expect_clean(e->d_name, op_local, &a, &points);
        a.dep.async_chunk = a.dep.streaming = true;
        expect_clean(e->d_name, op_local, &a, &points);
        free(text);
        files++;
    }
    closedir(d);
    assert_true(files >= 4); /* four models declare local caches today */
    print_message("faults: %ld declaration files, %ld injection points\n", files, points);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_catalogue_config),
        cmocka_unit_test(test_file_folder_and_name),
        cmocka_unit_test(test_local_declarations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
