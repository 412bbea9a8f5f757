/* test_hfcache_resolve.c — Hugging Face ids from a local cache tree the test
 * builds: refs/main, newest snapshot, blobs behind symlinks, and the bad
 * cases (no snapshot, refs/main to a missing snapshot, symlink loop,
 * dangling link, not cached). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>

#include "kvplan/kvplan.h"

/* src/model/model_internal.h (not on the tests' include path): keep in step. */
kvp_status kvp__model_resolve_extra(const char *name, const kvp_allocator *alc, char *path_out,
                                    size_t path_size, kvp_error *err);

static char g_home[256];

static const char *k_config =
    "{\"architectures\": [\"LlamaForCausalLM\"], \"model_type\": \"llama\","
    " \"hidden_size\": 256, \"num_hidden_layers\": 3, \"num_attention_heads\": 4,"
    " \"num_key_value_heads\": 2, \"intermediate_size\": 512, \"vocab_size\": 1000,"
    " \"max_position_embeddings\": 2048, \"torch_dtype\": \"bfloat16\"}";

static void mkdirs(const char *path) {
    char buf[512];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        mkdir(buf, 0700);
        *p = '/';
    }
    mkdir(buf, 0700);
}

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* <HF_HOME>/hub/models--ORG--NAME/{blobs/b1, snapshots/REV/config.json -> ../../blobs/b1} */
static void make_snapshot(const char *repo, const char *rev) {
    char path[512], target[512];
    snprintf(path, sizeof path, "%s/hub/%s/blobs", g_home, repo);
    mkdirs(path);
    snprintf(path, sizeof path, "%s/hub/%s/blobs/blob-%s", g_home, repo, rev);
    write_file(path, k_config);
    snprintf(path, sizeof path, "%s/hub/%s/snapshots/%s", g_home, repo, rev);
    mkdirs(path);
    snprintf(path, sizeof path, "%s/hub/%s/snapshots/%s/config.json", g_home, repo, rev);
    snprintf(target, sizeof target, "../../blobs/blob-%s", rev);
    assert_int_equal(symlink(target, path), 0);
}

static void write_ref(const char *repo, const char *rev) {
    char path[512];
    snprintf(path, sizeof path, "%s/hub/%s/refs", g_home, repo);
    mkdirs(path);
    snprintf(path, sizeof path, "%s/hub/%s/refs/main", g_home, repo);
    write_file(path, rev);
}

static int setup(void **state) {
    (void)state;
    snprintf(g_home, sizeof g_home, "%s/kvp_hf_XXXXXX", P_tmpdir);
    assert_non_null(mkdtemp(g_home));
    unsetenv("HF_HUB_CACHE");
    setenv("HF_HOME", g_home, 1);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_home);
    assert_int_equal(system(cmd), 0);
    return 0;
}

static void test_refs_main(void **state) {
    (void)state;
    make_snapshot("models--kvtest--tiny", "aaa111");
    make_snapshot("models--kvtest--tiny", "bbb222");
    write_ref("models--kvtest--tiny", "aaa111\n");
    char path[4096], want[512];
    kvp_error err;
    assert_int_equal(kvp__model_resolve_extra("kvtest/tiny", NULL, path, sizeof path, &err), KVP_OK);
    snprintf(want, sizeof want, "%s/hub/models--kvtest--tiny/snapshots/aaa111/config.json",
             g_home);
    assert_string_equal(path, want);
    /* the public entry point loads it through the symlinked blob */
    kvp_model *m = NULL;
    assert_int_equal(kvp_model_open("kvtest/tiny", NULL, &m, &err), KVP_OK);
    assert_int_equal(kvp_model_get_info(m)->num_layers, 3);
    kvp_model_free(m);
}

static void test_newest_snapshot_without_ref(void **state) {
    (void)state;
    make_snapshot("models--kvtest--tiny", "old");
    make_snapshot("models--kvtest--tiny", "new");
    char dir[512];
    snprintf(dir, sizeof dir, "%s/hub/models--kvtest--tiny/snapshots/old", g_home);
    struct timespec times[2] = {{1000, 0}, {1000, 0}};
    assert_int_equal(utimensat(AT_FDCWD, dir, times, 0), 0);
    char path[4096];
    assert_int_equal(kvp__model_resolve_extra("kvtest/tiny", NULL, path, sizeof path, NULL), KVP_OK);
    assert_non_null(strstr(path, "/snapshots/new/config.json"));
}

static void test_hub_cache_variable(void **state) {
    (void)state;
    make_snapshot("models--kvtest--tiny", "r1");
    char hub[512];
    snprintf(hub, sizeof hub, "%s/hub", g_home);
    setenv("HF_HOME", "/nonexistent-kvplan", 1);
    setenv("HF_HUB_CACHE", hub, 1);
    char path[4096];
    assert_int_equal(kvp__model_resolve_extra("kvtest/tiny", NULL, path, sizeof path, NULL), KVP_OK);
    unsetenv("HF_HUB_CACHE");
    assert_int_equal(kvp__model_resolve_extra("kvtest/tiny", NULL, path, sizeof path, NULL),
                     KVP_NOT_FOUND);
}

static void test_no_snapshot(void **state) {
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/hub/models--kvtest--empty/snapshots", g_home);
    mkdirs(path);
    char out[4096];
    kvp_error err;
    memset(&err, 0x5A, sizeof err);
    assert_int_equal(kvp__model_resolve_extra("kvtest/empty", NULL, out, sizeof out, &err), KVP_IO);
    assert_non_null(strstr(err.message, "no snapshot with a config.json"));
    assert_non_null(strstr(err.message, "huggingface-cli download kvtest--empty"));
    /* kvp_model_open reports the same error rather than "no such model" */
    kvp_model *m = NULL;
    assert_int_equal(kvp_model_open("kvtest/empty", NULL, &m, &err), KVP_IO);
    assert_null(m);
    /* a repo folder without snapshots/ at all */
    snprintf(path, sizeof path, "%s/hub/models--kvtest--bare", g_home);
    mkdirs(path);
    assert_int_equal(kvp__model_resolve_extra("kvtest/bare", NULL, out, sizeof out, &err), KVP_IO);
    assert_non_null(strstr(err.message, "no snapshots/"));
}

static void test_ref_to_missing_snapshot(void **state) {
    (void)state;
    make_snapshot("models--kvtest--tiny", "present");
    write_ref("models--kvtest--tiny", "gone");
    char out[4096];
    kvp_error err;
    assert_int_equal(kvp__model_resolve_extra("kvtest/tiny", NULL, out, sizeof out, &err), KVP_IO);
    assert_non_null(strstr(err.message, "refs/main names snapshot gone"));
    assert_non_null(strstr(err.file, "refs/main"));
}

static void test_symlink_loop(void **state) {
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/hub/models--kvtest--loop/snapshots/r1", g_home);
    mkdirs(path);
    snprintf(path, sizeof path, "%s/hub/models--kvtest--loop/snapshots/r1/config.json", g_home);
    assert_int_equal(symlink("config.json", path), 0); /* points at itself */
    write_ref("models--kvtest--loop", "r1");
    char out[4096];
    kvp_error err;
    assert_int_equal(kvp__model_resolve_extra("kvtest/loop", NULL, out, sizeof out, &err), KVP_IO);
    assert_non_null(strstr(err.message, "symlink loop"));
    /* without refs/main the broken snapshot is still named */
    snprintf(path, sizeof path, "%s/hub/models--kvtest--loop/refs/main", g_home);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(kvp__model_resolve_extra("kvtest/loop", NULL, out, sizeof out, &err), KVP_IO);
    assert_non_null(strstr(err.message, "symlink loop"));
}

static void test_dangling_link(void **state) {
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/hub/models--kvtest--dangling/snapshots/r1", g_home);
    mkdirs(path);
    snprintf(path, sizeof path, "%s/hub/models--kvtest--dangling/snapshots/r1/config.json",
             g_home);
    assert_int_equal(symlink("../../blobs/missing", path), 0);
    char out[4096];
    kvp_error err;
    assert_int_equal(kvp__model_resolve_extra("kvtest/dangling", NULL, out, sizeof out, &err), KVP_IO);
    assert_non_null(strstr(err.message, "dangling symlink"));
}

static void test_not_an_id_or_not_cached(void **state) {
    (void)state;
    char out[4096];
    assert_int_equal(kvp__model_resolve_extra("kvtest/absent", NULL, out, sizeof out, NULL),
                     KVP_NOT_FOUND);
    assert_int_equal(kvp__model_resolve_extra("no-slash", NULL, out, sizeof out, NULL), KVP_NOT_FOUND);
    assert_int_equal(kvp__model_resolve_extra("../etc/passwd", NULL, out, sizeof out, NULL),
                     KVP_NOT_FOUND);
    assert_int_equal(kvp__model_resolve_extra("a/b/c", NULL, out, sizeof out, NULL), KVP_NOT_FOUND);
    assert_int_equal(kvp__model_resolve_extra("org/..", NULL, out, sizeof out, NULL), KVP_NOT_FOUND);
    /* not cached: kvp_model_open falls through to the catalogue's message */
    kvp_model *m = NULL;
    kvp_error err;
    assert_int_equal(kvp_model_open("kvtest/absent", NULL, &m, &err), KVP_NOT_FOUND);
    assert_non_null(strstr(err.message, "closest"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_refs_main, setup, teardown),
        cmocka_unit_test_setup_teardown(test_newest_snapshot_without_ref, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hub_cache_variable, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_snapshot, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ref_to_missing_snapshot, setup, teardown),
        cmocka_unit_test_setup_teardown(test_symlink_loop, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dangling_link, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_an_id_or_not_cached, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
