/* test_catalog_aliases.c — catalogue aliases (Instruct / chat / base variants
 * that share an entry's geometry): each resolves to its target under the name
 * "ALIAS (alias of TARGET)" with the target's exact cost, short names match in
 * any case, a real config in the Hugging Face cache wins over an alias, and
 * the not-found message says how to point kvplan at a model of your own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "kvplan/kvplan.h"

static uint64_t bytes_per_token(const kvp_model *m) {
    kvp_cost_settings s = kvp_cost_settings_default();
    kvp_cost c;
    kvp_error err;
    assert_int_equal(kvp_cost_compute(m, &s, &c, &err), KVP_OK);
    return c.bytes_per_token;
}

static void test_every_alias_reads_its_target(void **state) {
    (void)state;
    size_t n = kvp_catalog_alias_count();
    assert_true(n >= 10);
    assert_null(kvp_catalog_alias_hf_id(n));
    for (size_t i = 0; i < n; i++) {
        const char *id = kvp_catalog_alias_hf_id(i), *target = kvp_catalog_alias_of(i);
        kvp_model *a = NULL, *t = NULL;
        kvp_error err;
        assert_int_equal(kvp_model_open(id, NULL, &a, &err), KVP_OK);
        assert_int_equal(kvp_model_open(target, NULL, &t, &err), KVP_OK);
        char want[300];
        snprintf(want, sizeof want, "%s (alias of %s)", id, target);
        assert_string_equal(kvp_model_name(a), want);
        /* The target is a real entry, not another alias. */
        assert_string_equal(kvp_model_name(t), target);
        assert_int_equal(bytes_per_token(a), bytes_per_token(t));
        /* The alias is not also a catalogue entry (it would never be reached). */
        for (size_t k = 0; k < kvp_catalog_count(); k++)
            assert_true(strcmp(kvp_catalog_hf_id(k), id) != 0);
        kvp_model_free(a);
        kvp_model_free(t);
    }
}

static void test_short_name_any_case(void **state) {
    (void)state;
    kvp_model *m = NULL;
    kvp_error err;
    assert_int_equal(kvp_model_open("LLAMA-3.1-8B-Instruct", NULL, &m, &err), KVP_OK);
    assert_string_equal(kvp_model_name(m),
                        "meta-llama/Llama-3.1-8B-Instruct (alias of meta-llama/Llama-3.1-8B)");
    /* 32 layers x 8 KV heads x (128 + 128) x 2 bytes = 131,072 bytes per token. */
    assert_int_equal(bytes_per_token(m), 131072);
    kvp_model_free(m);
}

static void test_not_found_says_how(void **state) {
    (void)state;
    kvp_model *m = (kvp_model *)1;
    kvp_error err;
    memset(&err, 0x5a, sizeof err);
    unsetenv("HF_HUB_CACHE");
    setenv("HF_HOME", "/nonexistent-kvplan-test", 1);
    assert_int_equal(kvp_model_open("llama-3.1-8b-instrukt", NULL, &m, &err), KVP_NOT_FOUND);
    assert_null(m);
    assert_string_equal(err.key, "llama-3.1-8b-instrukt");
    assert_non_null(strstr(err.message, "closest: llama-3.1-8b-instruct"));
    assert_non_null(strstr(err.message, "folder holding its config.json"));
    assert_non_null(strstr(err.message, "Hugging Face cache"));
}

/* A config of the variant in the local Hugging Face cache wins over the alias. */
static void test_hf_cache_wins(void **state) {
    (void)state;
    char home[256], path[512];
    snprintf(home, sizeof home, "%s/kvp_alias_XXXXXX", P_tmpdir);
    assert_non_null(mkdtemp(home));
    const char *repo = "models--meta-llama--Llama-3.1-8B-Instruct";
    const char *dirs[] = {"", "/refs", "/snapshots", "/snapshots/r1"};
    snprintf(path, sizeof path, "%s/hub", home);
    assert_int_equal(mkdir(path, 0700), 0);
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(path, sizeof path, "%s/hub/%s%s", home, repo, dirs[i]);
        assert_int_equal(mkdir(path, 0700), 0);
    }
    snprintf(path, sizeof path, "%s/hub/%s/refs/main", home, repo);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("r1", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/hub/%s/snapshots/r1/config.json", home, repo);
    f = fopen(path, "w");
    assert_non_null(f);
    /* 3 layers x 2 KV heads x (64 + 64) x 2 bytes = 1,536 bytes per token. */
    fputs("{\"model_type\": \"llama\", \"hidden_size\": 256, \"num_hidden_layers\": 3,"
          " \"num_attention_heads\": 4, \"num_key_value_heads\": 2, \"intermediate_size\": 512,"
          " \"vocab_size\": 1000, \"max_position_embeddings\": 2048, \"torch_dtype\": \"bfloat16\"}",
          f);
    fclose(f);
    unsetenv("HF_HUB_CACHE");
    setenv("HF_HOME", home, 1);
    kvp_model *m = NULL;
    kvp_error err;
    assert_int_equal(kvp_model_open("meta-llama/Llama-3.1-8B-Instruct", NULL, &m, &err), KVP_OK);
    assert_null(strstr(kvp_model_name(m), "alias of"));
    assert_int_equal(bytes_per_token(m), 1536);
    kvp_model_free(m);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", home);
    assert_int_equal(system(cmd), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_alias_reads_its_target),
        cmocka_unit_test(test_short_name_any_case),
        cmocka_unit_test(test_not_found_says_how),
        cmocka_unit_test(test_hf_cache_wins),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
