/* test_local_collect.c — the collector over a module tree held as data (seed
 * "Finding the declarers"): unwrap before walking so a root-level declarer is
 * counted once, one explicit hop to owners that are not submodules, failing
 * declarers reported and skipped; inert declarations ("Declaring nothing is a
 * valid declaration"); report, never subtract; allocation failures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "kvplan/local.h"
#include "local/local_internal.h"

/* A static cache of 1 layer, 1 head, head_dim 1, 1024 positions, 2 B, FIXED 1:
 * 2 * 1 * 1 * 1 * 1024 * 2 = 4,096 B per row and in total. */
#define ENTRY(NAME)                                                                    \
    "{\"name\":\"" NAME "\",\"kind\":\"static_cache\","                               \
    "\"bound\":{\"mechanism\":\"constant\",\"max_cache_len\":1024},"                  \
    "\"geometry\":{\"layers\":1,\"kv_heads\":1,\"head_dim\":1,\"dtype\":\"bf16\"},"   \
    "\"scope\":\"invocation\",\"row_driver\":\"FIXED\",\"rows_fixed\":1,"             \
    "\"rows_reason\":\"one call at a time\"}"

static kvp_local_decls *load(const char *text) {
    kvp_local_decls *d = NULL;
    kvp_error err;
    kvp_status st = kvp_local_decls_from_json(text, strlen(text), "test.json", NULL, &d, &err);
    if (st) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(st, KVP_OK);
    return d;
}

static kvp_local_report *collect(const kvp_local_decls *d, bool unwrap, kvp_local_deployment dep) {
    kvp_local_report *r = NULL;
    kvp_error err;
    kvp_status st = kvp__local_collect_ex(d, &dep, unwrap, NULL, &r, &err);
    if (st) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(st, KVP_OK);
    return r;
}

static size_t count_named(const kvp_local_report *r, const char *name) {
    size_t n = 0;
    for (size_t i = 0; i < kvp_local_report_entry_count(r); i++)
        if (strcmp(kvp_local_report_entry(r, i)->name, name) == 0) n++;
    return n;
}

static const kvp_local_deployment k_dep = {8, false, false, false};

static const char k_wrapped[] =
    "{\"model\":\"t\",\"module_tree\":{\"class\":\"CUDAGraphWrapper\",\"runnable\":{"
    "\"class\":\"Root\",\"declares\":[" ENTRY("root_cache") "],"
    "\"children\":[{\"name\":\"sub\",\"declares\":[" ENTRY("sub_cache") "]}]}}}";

static void test_wrapper_unwrapped_first(void **state) {
    (void)state;
    kvp_local_decls *d = load(k_wrapped);
    /* The collector unwraps: the root-level declarer counts once. */
    kvp_local_report *r = collect(d, true, k_dep);
    /* The report keeps the deployment it was collected for: 8 sequences. */
    assert_int_equal(kvp_local_report_deployment(r)->max_num_seqs, 8);
    assert_int_equal(kvp_local_report_entry_count(r), 2);
    assert_int_equal(count_named(r, "root_cache"), 1);
    assert_int_equal(count_named(r, "sub_cache"), 1);
    /* 2 entries * 4,096 B */
    assert_int_equal(kvp_local_report_totals(r)->total_bytes, 2 * 4096);
    assert_string_equal(kvp_local_report_entry(r, 0)->owner, "");
    assert_string_equal(kvp_local_report_entry(r, 1)->owner, "sub");
    kvp_local_report_free(r);
    /* Entering through both the wrapper (which forwards attribute access) and
     * its runnable counts the root declarer twice: what unwrapping prevents. */
    r = collect(d, false, k_dep);
    assert_int_equal(count_named(r, "root_cache"), 2);
    assert_int_equal(count_named(r, "sub_cache"), 1);
    assert_int_equal(kvp_local_report_totals(r)->total_bytes, 3 * 4096);
    kvp_local_report_free(r);
    /* The public entry point is the unwrapping one. */
    kvp_error err;
    assert_int_equal(kvp_local_collect(d, &k_dep, NULL, &r, &err), KVP_OK);
    assert_int_equal(count_named(r, "root_cache"), 1);
    kvp_local_report_free(r);
    kvp_local_decls_free(d);
}

static void test_explicit_hop(void **state) {
    (void)state;
    /* talker is a plain submodule; generator is held by it, not a submodule. */
    kvp_local_decls *d = load(
        "{\"model\":\"t\",\"module_tree\":{\"children\":[{\"name\":\"talker\",\"holds\":["
        "{\"name\":\"generator\",\"class\":\"MingAudioGenerator\",\"declares\":[" ENTRY("gen") "]}"
        "],\"children\":[{\"name\":\"inner\",\"declares\":[" ENTRY("inner_cache") "]}]}]}}");
    kvp_local_report *r = collect(d, true, k_dep);
    assert_int_equal(kvp_local_report_entry_count(r), 2);
    const kvp_local_entry *e = kvp_local_report_entry(r, 0);
    assert_string_equal(e->name, "gen");
    assert_string_equal(e->owner, "talker.generator");
    assert_true(e->via_hop);
    e = kvp_local_report_entry(r, 1);
    assert_string_equal(e->owner, "talker.inner");
    assert_false(e->via_hop);
    kvp_local_report_free(r);
    kvp_local_decls_free(d);

    /* One hop only: a held owner is not walked, so it may not hold or have children. */
    const char *deep =
        "{\"model\":\"t\",\"module_tree\":{\"holds\":[{\"name\":\"g\",\"children\":["
        "{\"name\":\"x\",\"declares\":[" ENTRY("x") "]}]}]}}";
    kvp_error err;
    d = NULL;
    assert_int_equal(kvp_local_decls_from_json(deep, strlen(deep), "deep.json", NULL, &d, &err),
                     KVP_CONFIG);
    assert_null(d);
    assert_string_equal(err.key, "/module_tree/holds/0");
    assert_non_null(strstr(err.message, "hop"));
}

static void test_failing_declarer_skipped(void **state) {
    (void)state;
    /* root declares a; "bad" raises; "half" resolves its first entry but its
     * second reads a sub-config that does not exist, so the whole declarer
     * (both entries) is dropped; "ok" still counts. */
    kvp_local_decls *d = load(
        "{\"model\":\"t\",\"module_tree\":{\"declares\":[" ENTRY("a") "],\"children\":["
        "{\"name\":\"bad\",\"fails\":\"AttributeError: no _llm_config before load\"},"
        "{\"name\":\"half\",\"declares\":[" ENTRY("half_1") ","
        "{\"name\":\"half_2\",\"kind\":\"static_cache\","
        "\"bound\":{\"mechanism\":\"constant\",\"max_cache_len\":2048},"
        "\"geometry\":{\"hf_config\":\"qwen2-0.5b\",\"config_pointer\":\"/talker_config\"},"
        "\"scope\":\"invocation\",\"row_driver\":\"FIXED\",\"rows_fixed\":1,\"rows_reason\":\"r\"}"
        "]},"
        "{\"name\":\"ok\",\"declares\":[" ENTRY("b") "]}]}}");
    kvp_local_report *r = collect(d, true, k_dep);
    assert_int_equal(kvp_local_report_entry_count(r), 2);
    assert_string_equal(kvp_local_report_entry(r, 0)->name, "a");
    assert_string_equal(kvp_local_report_entry(r, 1)->name, "b");
    assert_int_equal(count_named(r, "half_1"), 0);
    assert_int_equal(kvp_local_report_failure_count(r), 2);
    const kvp_local_failure *f = kvp_local_report_failure(r, 0);
    assert_string_equal(f->owner, "bad");
    assert_non_null(strstr(f->message, "AttributeError"));
    f = kvp_local_report_failure(r, 1);
    assert_string_equal(f->owner, "half");
    assert_string_equal(f->name, "half_2");
    assert_int_equal(f->code, KVP_CONFIG);
    assert_non_null(strstr(f->message, "half_2"));
    assert_non_null(strstr(f->message, "/talker_config"));
    /* Totals count only what was collected: 2 * 4,096 */
    assert_int_equal(kvp_local_report_totals(r)->total_bytes, 8192);
    kvp_local_report_free(r);
    kvp_local_decls_free(d);
}

/* A config from a file that lacks num_key_value_heads: the declarer fails and
 * names the attribute, it does not fall back to num_attention_heads. */
static void test_config_missing_attribute(void **state) {
    (void)state;
    const char *cfg =
        "{\"architectures\":[\"Qwen2ForCausalLM\"],\"model_type\":\"qwen2\","
        "\"num_hidden_layers\":24,\"num_attention_heads\":14,\"hidden_size\":896,"
        "\"torch_dtype\":\"bfloat16\"}";
    kvp_local_decls *d = load(
        "{\"model\":\"t\",\"module_tree\":{\"declares\":["
        "{\"name\":\"talker\",\"kind\":\"static_cache\","
        "\"bound\":{\"mechanism\":\"constant\",\"max_cache_len\":2048},"
        "\"geometry\":{\"hf_config\":\"unused\"},"
        "\"scope\":\"invocation\",\"row_driver\":\"FIXED\",\"rows_fixed\":1,\"rows_reason\":\"r\"}"
        "]}}");
    kvp__local_geometry g;
    kvp_error err;
    memset(&err, 0x5A, sizeof err);
    assert_int_equal(kvp__local_geometry_from_config(cfg, strlen(cfg), "cfg.json", &d->decls[0],
                                                     "test.json", &g, &err),
                     KVP_CONFIG);
    assert_string_equal(err.file, "cfg.json");
    assert_string_equal(err.key, "/num_key_value_heads");
    assert_non_null(strstr(err.message, "declaration 'talker'"));
    assert_non_null(strstr(err.message, "kv_heads"));

    /* With the override declared, the rest comes from the config:
     * head_dim = 896 / 14 = 64; 24 layers; bf16 = 2 B. */
    d->decls[0].geometry.kv_heads = 2;
    assert_int_equal(kvp__local_geometry_from_config(cfg, strlen(cfg), "cfg.json", &d->decls[0],
                                                     "test.json", &g, &err),
                     KVP_OK);
    assert_int_equal(g.layers, 24);
    assert_int_equal(g.kv_heads, 2);
    assert_int_equal(g.head_dim, 64);
    assert_int_equal(g.element_bytes, 2);

    /* No head_dim and no num_attention_heads: names what is missing. */
    const char *cfg2 = "{\"num_hidden_layers\":2,\"num_key_value_heads\":2,\"hidden_size\":64,"
                       "\"torch_dtype\":\"float16\"}";
    d->decls[0].geometry.kv_heads = 0;
    assert_int_equal(kvp__local_geometry_from_config(cfg2, strlen(cfg2), "cfg2.json",
                                                     &d->decls[0], "test.json", &g, &err),
                     KVP_CONFIG);
    assert_string_equal(err.key, "/num_attention_heads");
    /* No dtype at all. */
    const char *cfg3 = "{\"num_hidden_layers\":2,\"num_key_value_heads\":2,\"head_dim\":64}";
    assert_int_equal(kvp__local_geometry_from_config(cfg3, strlen(cfg3), "cfg3.json",
                                                     &d->decls[0], "test.json", &g, &err),
                     KVP_CONFIG);
    assert_string_equal(err.key, "/torch_dtype");
    kvp_local_decls_free(d);

    /* Through the collector with a real file: reported and skipped, not fatal. */
    char path[] = "/tmp/kvp_local_cfg_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, cfg, strlen(cfg)), (ssize_t)strlen(cfg));
    close(fd);
    char text[1024];
    snprintf(text, sizeof text,
             "{\"model\":\"t\",\"module_tree\":{\"declares\":["
             "{\"name\":\"talker\",\"kind\":\"static_cache\","
             "\"bound\":{\"mechanism\":\"constant\",\"max_cache_len\":2048},"
             "\"geometry\":{\"hf_config\":\"%s\"},"
             "\"scope\":\"invocation\",\"row_driver\":\"FIXED\",\"rows_fixed\":1,"
             "\"rows_reason\":\"r\"}]}}",
             path);
    d = load(text);
    kvp_local_report *r = collect(d, true, k_dep);
    unlink(path);
    assert_int_equal(kvp_local_report_entry_count(r), 0);
    assert_int_equal(kvp_local_report_failure_count(r), 1);
    const kvp_local_failure *f = kvp_local_report_failure(r, 0);
    assert_string_equal(f->name, "talker");
    assert_non_null(strstr(f->message, "num_key_value_heads"));
    kvp_local_report_free(r);
    kvp_local_decls_free(d);
}

static kvp_local_report *named(const char *model, kvp_local_deployment dep) {
    kvp_local_report *r = NULL;
    kvp_error err;
    kvp_status st = kvp_local_report_for(model, &dep, NULL, &r, &err);
    if (st) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(st, KVP_OK);
    return r;
}

static void test_inert_declarations(void **state) {
    (void)state;
    /* Stateless Qwen3-TTS (_forward_exact, no use_cache) declares nothing. */
    kvp_local_deployment dep = {256, false, false, false};
    kvp_local_report *r = named("qwen3-tts", dep);
    assert_int_equal(kvp_local_report_entry_count(r), 0);
    assert_int_equal(kvp_local_report_totals(r)->total_bytes, 0);
    assert_int_equal(kvp_local_report_inert_count(r), 3);
    assert_non_null(strstr(kvp_local_report_inert(r, 0)->reason, "async_chunk on"));
    kvp_local_report_free(r);
    /* Stateless and eager: still nothing. */
    dep.enforce_eager = true;
    r = named("qwen3-tts", dep);
    assert_int_equal(kvp_local_report_entry_count(r), 0);
    kvp_local_report_free(r);

    /* Eager async-chunk still allocates the codec decoder caches: 2 * 256 rows
     * of 4,653,056 B = 2,382,364,672 B; only the graph pool (no capture) is inert. */
    dep.async_chunk = true;
    r = named("qwen3-tts", dep);
    assert_int_equal(kvp_local_report_entry_count(r), 2);
    assert_int_equal(count_named(r, "codec_decoder"), 1);
    assert_int_equal(count_named(r, "codec_decoder_working_copy"), 1);
    assert_int_equal(count_named(r, "codec_decoder_graph_pool"), 0);
    assert_int_equal(kvp_local_report_totals(r)->not_charged_bytes, 2382364672ull);
    assert_int_equal(kvp_local_report_inert_count(r), 1);
    assert_string_equal(kvp_local_report_inert(r, 0)->name, "codec_decoder_graph_pool");
    assert_non_null(strstr(kvp_local_report_inert(r, 0)->reason, "enforce_eager off"));
    kvp_local_report_free(r);

    /* MiMo captures every bucket regardless of enforce_eager: still resident,
     * 261 * 720,896 = 188,153,856 B charged. */
    kvp_local_deployment eager = {256, false, false, true};
    r = named("mimo-audio", eager);
    assert_int_equal(count_named(r, "local_transformer_graph_pool"), 1);
    assert_int_equal(kvp_local_report_totals(r)->charged_bytes, 188153856ull);
    kvp_local_report_free(r);

    /* MiniCPM-o's encoder cache exists only on the streaming path. */
    kvp_local_deployment plain = {256, false, false, false};
    r = named("minicpm-o", plain);
    assert_int_equal(kvp_local_report_entry_count(r), 0);
    assert_int_equal(kvp_local_report_inert_count(r), 1);
    kvp_local_report_free(r);
    plain.streaming = true;
    r = named("minicpm-o", plain);
    assert_int_equal(kvp_local_report_entry_count(r), 1);
    kvp_local_report_free(r);

    /* An empty declares list is a valid declaration of nothing. */
    kvp_local_decls *d = load("{\"model\":\"t\",\"module_tree\":{\"declares\":[]}}");
    r = collect(d, true, k_dep);
    assert_int_equal(kvp_local_report_entry_count(r), 0);
    assert_int_equal(kvp_local_report_failure_count(r), 0);
    kvp_local_report_free(r);
    kvp_local_decls_free(d);
}

static void test_report_never_subtract(void **state) {
    (void)state;
    kvp_local_deployment dep = {256, true, false, false};
    kvp_local_report *r = named("qwen3-tts", dep);
    uint64_t add = 1, risk = 1;
    /* Measured: graph-resident (1 * 4,653,056) is already in the measured peak: add nothing;
     * per-request 2 * 256 * 4,653,056 = 2,382,364,672 is the risk. */
    kvp_local_budget_effect(r, true, &add, &risk);
    assert_int_equal(add, 0);
    assert_int_equal(risk, 2382364672ull);
    /* Estimated: the graph-resident part goes into the predicted peak. */
    kvp_local_budget_effect(r, false, &add, &risk);
    assert_int_equal(add, kvp_local_report_totals(r)->charged_bytes);
    assert_int_equal(add, 4653056ull);
    assert_int_equal(risk, 2382364672ull);
    kvp_local_report_free(r);
    kvp_local_budget_effect(NULL, false, &add, &risk);
    assert_int_equal(add, 0);
    assert_int_equal(risk, 0);
}

static void test_max_num_seqs_errors(void **state) {
    (void)state;
    kvp_local_decls *d = NULL;
    kvp_error err;
    assert_int_equal(kvp_local_decls_load_named("qwen3-tts", NULL, &d, &err), KVP_OK);
    kvp_local_report *r = NULL;
    kvp_local_deployment zero = {0, true, false, false};
    assert_int_equal(kvp_local_collect(d, &zero, NULL, &r, &err), KVP_INVALID_ARG);
    assert_string_equal(err.key, "max_num_seqs");
    assert_null(r);
    /* 4,653,056 B per row * 2^62 rows overflows 64 bits: an error, never a wrapped total. */
    kvp_local_deployment huge = {1ull << 62, true, false, false};
    assert_int_equal(kvp_local_collect(d, &huge, NULL, &r, &err), KVP_OVERFLOW);
    assert_string_equal(err.key, "max_num_seqs");
    assert_non_null(strstr(err.message, "codec_decoder"));
    assert_null(r);
    kvp_local_decls_free(d);
}

/* ------------------------------------------------------------ allocation failures */

typedef struct failing {
    long budget; /* allocations left before failing; < 0 = never fail */
    long live;
} failing;

static void *f_malloc(void *ctx, size_t n) {
    failing *f = ctx;
    if (f->budget == 0) return NULL;
    if (f->budget > 0) f->budget--;
    void *p = malloc(n);
    if (p) f->live++;
    return p;
}
static void *f_realloc(void *ctx, void *ptr, size_t n) {
    failing *f = ctx;
    if (f->budget == 0) return NULL;
    if (f->budget > 0) f->budget--;
    void *p = realloc(ptr, n);
    if (p && !ptr) f->live++;
    return p;
}
static void f_free(void *ctx, void *ptr) {
    failing *f = ctx;
    if (ptr) f->live--;
    free(ptr);
}

static void test_allocation_failures(void **state) {
    (void)state;
    const char *models[] = {"qwen3-tts", "mimo-audio", "minicpm-o", "ming-flash-omni"};
    for (size_t m = 0; m < 4; m++) {
        bool done = false;
        for (long n = 0; n < 100000 && !done; n++) {
            failing f = {n, 0};
            kvp_allocator alc = {f_malloc, f_realloc, f_free, &f};
            kvp_local_deployment dep = {256, true, true, false};
            kvp_local_report *r = NULL;
            kvp_error err;
            kvp_status st = kvp_local_report_for(models[m], &dep, &alc, &r, &err);
            if (st == KVP_OK) {
                /* A failure swallowed as a "failed declarer" would show here. */
                if (kvp_local_report_failure_count(r) == 0) done = true;
                kvp_local_report_free(r);
            } else {
                assert_int_equal(st, KVP_NOMEM);
                assert_null(r);
            }
            assert_int_equal(f.live, 0); /* nothing leaked on any path */
        }
        assert_true(done);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wrapper_unwrapped_first),
        cmocka_unit_test(test_explicit_hop),
        cmocka_unit_test(test_failing_declarer_skipped),
        cmocka_unit_test(test_config_missing_attribute),
        cmocka_unit_test(test_inert_declarations),
        cmocka_unit_test(test_report_never_subtract),
        cmocka_unit_test(test_max_num_seqs_errors),
        cmocka_unit_test(test_allocation_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
