/* test_gpu_user_catalog.c — a GPU catalogue file of the user's own
 * (kvp_gpu_lookup_in, `kvplan --gpu-catalog FILE`): its entries replace
 * embedded ones by name and add new ones; every key is checked and a bad file
 * is refused naming the file and the key. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "kvplan/gpu.h"

#define GIB (1ull << 30)

static char g_dir[64];

static int setup(void **state) {
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/kvp_gpucat_XXXXXX");
    return mkdtemp(g_dir) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *write_file(const char *name, const char *text) {
    static char path[128];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fwrite(text, 1, strlen(text), f);
    fclose(f);
    return path;
}

static const char *k_user =
    "{\"schema\": 1, \"gpus\": ["
    " {\"name\": \"H100 SXM 80GB\", \"vendor\": \"nvidia\", \"aliases\": [\"h100\"],"
    "  \"cuda_total\": \"79.10GiB\", \"cuda_source\": \"our node\"},"
    " {\"name\": \"Gaudi 3\", \"vendor\": \"intel\", \"aliases\": [\"gaudi3\"],"
    "  \"derived_total\": \"128GB\", \"bandwidth_gb_s\": 3700}]}";

static void test_replace_and_add(void **state) {
    (void)state;
    const char *path = write_file("mine.json", k_user);
    kvp_gpu_info g;
    kvp_error err;
    /* The user's H100 replaces the embedded one (79.33 GiB) under every alias
     * the user gave it: 79.10 x 2^30 = 84,932,978,278.4 -> 84,932,978,278 B. */
    assert_int_equal(kvp_gpu_lookup_in(path, "h100", &g, &err), KVP_OK);
    assert_int_equal(g.total_bytes, 84932978278ull);
    assert_string_equal(g.total_basis, "cuda");
    assert_non_null(strstr(g.source, "mine.json"));
    /* New entry: 128 GB decimal. */
    assert_int_equal(kvp_gpu_lookup_in(path, "Gaudi-3", &g, &err), KVP_OK);
    assert_int_equal(g.total_bytes, 128000000000ull);
    assert_int_equal(g.bandwidth_bytes_per_s, 3700000000000ull);
    assert_string_equal(g.vendor, "intel");
    /* Untouched embedded entries are still there; without the file nothing changed. */
    assert_int_equal(kvp_gpu_lookup_in(path, "a100", &g, &err), KVP_OK);
    assert_int_equal(kvp_gpu_lookup_in(NULL, "gaudi3", &g, &err), KVP_NOT_FOUND);
    assert_int_equal(kvp_gpu_lookup_in(NULL, "h100", &g, &err), KVP_OK);
    assert_int_equal(g.total_bytes, 85179938897ull); /* 79.33 x 2^30, embedded */
    /* Merged enumeration: the user's two first, then the embedded ones minus the
     * replaced H100. */
    size_t n_emb = kvp_gpu_catalog_count(), n = 0;
    assert_int_equal(kvp_gpu_catalog_count_in(path, &n, &err), KVP_OK);
    assert_int_equal(n, n_emb - 1 + 2);
    assert_int_equal(kvp_gpu_catalog_entry_in(path, 1, &g, &err), KVP_OK);
    assert_string_equal(g.name, "Gaudi 3");
    assert_int_equal(kvp_gpu_catalog_entry_in(path, n, &g, &err), KVP_INVALID_ARG);
    /* The whole list in one read agrees with the entries one by one. */
    kvp_gpu_info all[64];
    size_t listed = 0;
    assert_int_equal(kvp_gpu_catalog_list_in(path, all, 64, &listed, &err), KVP_OK);
    assert_int_equal(listed, n);
    assert_string_equal(all[0].name, "H100 SXM 80GB");
    assert_int_equal(all[0].total_bytes, 84932978278ull);
    assert_string_equal(all[1].name, "Gaudi 3");
    assert_int_equal(kvp_gpu_catalog_list_in(path, NULL, 0, &listed, &err), KVP_OK);
    assert_int_equal(listed, n);
    /* The nearest-name hint searches the user's entries too. */
    assert_int_equal(kvp_gpu_lookup_in(path, "gaudi4", &g, &err), KVP_NOT_FOUND);
    assert_non_null(strstr(err.message, "Gaudi 3"));
}

static void test_embedded_passes_the_checker(void **state) {
    (void)state;
    size_t n = 0;
    kvp_error err;
    assert_int_equal(kvp_gpu_catalog_count_in(NULL, &n, &err), KVP_OK);
    assert_int_equal(n, kvp_gpu_catalog_count());
    assert_true(n >= 30);
}

/* Each bad file: refused with `code`, err->file the path, err->key `key`. */
static void expect_bad(const char *text, kvp_status code, const char *key) {
    const char *path = write_file("bad.json", text);
    kvp_gpu_info g;
    kvp_error err;
    memset(&err, 0x5A, sizeof err);
    kvp_status st = kvp_gpu_lookup_in(path, "h100", &g, &err);
    if (st != code) fail_msg("%s: expected %s, got %s: %s", text, kvp_status_name(code),
                             kvp_status_name(st), st ? err.message : "");
    assert_string_equal(err.file, path);
    if (key && strcmp(err.key, key) != 0)
        fail_msg("%s: key '%s', expected '%s' (%s)", text, err.key, key, err.message);
    size_t n = 99;
    assert_int_equal(kvp_gpu_catalog_count_in(path, &n, &err), code);
    assert_int_equal(n, 0);
}

#define E(body) "{\"gpus\": [{\"name\": \"X 1\", " body "}]}"

static void test_bad_files(void **state) {
    (void)state;
    expect_bad("", KVP_IO, NULL); /* "file is empty" */
    expect_bad("[]", KVP_CONFIG, "");
    expect_bad("{\"schema\": 1}", KVP_CONFIG, "/gpus");
    expect_bad("{\"schema\": 2, \"gpus\": []}", KVP_UNSUPPORTED, "/schema");
    expect_bad("{\"gpus\": [], \"gpu\": 1}", KVP_CONFIG, "/gpu");
    expect_bad("{\"gpus\": [], \"gpus\": []}", KVP_SYNTAX, NULL);
    expect_bad("{\"gpus\": [\"H100\"]}", KVP_CONFIG, "/gpus/0");
    expect_bad(E("\"nvml_total_mb\": 81559"), KVP_CONFIG, "/gpus/0/nvml_total_mb");
    expect_bad(E("\"vendor\": \"nvidia\""), KVP_CONFIG, "/gpus/0");           /* no total */
    expect_bad("{\"gpus\": [{\"cuda_total\": \"8GiB\"}]}", KVP_CONFIG, "/gpus/0/name");
    expect_bad("{\"gpus\": [{\"name\": \"--\", \"cuda_total\": \"8GiB\"}]}", KVP_CONFIG, "/gpus/0");
    expect_bad(E("\"cuda_total\": 80"), KVP_CONFIG, "/gpus/0/cuda_total");
    expect_bad(E("\"cuda_total\": \"0GiB\""), KVP_CONFIG, "/gpus/0/cuda_total");
    expect_bad(E("\"cuda_total\": \"80XB\""), KVP_CONFIG, "/gpus/0/cuda_total");
    expect_bad(E("\"cuda_total\": \"2048TiB\""), KVP_CONFIG, "/gpus/0/cuda_total");
    expect_bad(E("\"nvml_total_mib\": 0"), KVP_CONFIG, "/gpus/0/nvml_total_mib");
    expect_bad(E("\"nvml_total_mib\": 81559.5"), KVP_CONFIG, "/gpus/0/nvml_total_mib");
    expect_bad(E("\"cuda_total\": \"8GiB\", \"bandwidth_gb_s\": \"3 TB/s\""), KVP_CONFIG,
               "/gpus/0/bandwidth_gb_s");
    expect_bad(E("\"cuda_total\": \"8GiB\", \"aliases\": [\"a\", 7]"), KVP_CONFIG,
               "/gpus/0/aliases/1");
    expect_bad("{\"gpus\": [{\"name\": \"X 1\", \"cuda_total\": \"8GiB\"},"
               " {\"name\": \"x-1\", \"cuda_total\": \"8GiB\"}]}",
               KVP_CONFIG, "/gpus/1/name");
    expect_bad("{\"gpus\": [{\"name\": \"X\\u00001\", \"cuda_total\": \"8GiB\"}]}", KVP_SYNTAX, NULL);
    expect_bad("{\"gpus\": [{\"name\": \"X \xff\", \"cuda_total\": \"8GiB\"}]}", KVP_SYNTAX, NULL);
    /* Not a file. */
    kvp_gpu_info g;
    kvp_error err;
    assert_int_equal(kvp_gpu_lookup_in(g_dir, "h100", &g, &err), KVP_IO);
    char missing[128];
    snprintf(missing, sizeof missing, "%s/none.json", g_dir);
    assert_int_equal(kvp_gpu_lookup_in(missing, "h100", &g, &err), KVP_IO);
    assert_string_equal(err.file, missing);
}

static void test_check_json(void **state) {
    (void)state;
    size_t n = 0;
    kvp_error err;
    assert_int_equal(kvp_gpu_catalog_check_json(k_user, strlen(k_user), "mem", &n, &err), KVP_OK);
    assert_int_equal(n, 2);
    assert_int_equal(kvp_gpu_catalog_check_json("{}", 2, "mem", &n, &err), KVP_CONFIG);
    assert_string_equal(err.file, "mem");
    assert_int_equal(kvp_gpu_catalog_check_json(NULL, 0, "mem", &n, &err), KVP_INVALID_ARG);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replace_and_add),
        cmocka_unit_test(test_embedded_passes_the_checker),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_check_json),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
