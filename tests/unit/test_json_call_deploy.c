/* test_json_call_deploy.c — kvp_json_call's plan, fit, compare and sweep
 * (kvplan/json.h) and the sweep grid (kvplan/sweep.h): values worked by hand,
 * the envelope, the same document as the renderer over the same deployment,
 * errors naming the request key, and no answer left behind on an error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "kvplan/kvplan.h"
#include "kvplan/json.h"
#include "kvplan/render.h"
#include "kvplan/sweep.h"
#include "kvplan/version.h"

static json_t *call(const char *command, const char *request) {
    char *out = (char *)0x1;
    kvp_error err;
    kvp_status st = kvp_json_call(command, request, &out, &err);
    if (st != KVP_OK) fail_msg("%s %s: %s", command, request, err.message);
    json_t *j = json_loads(out, 0, NULL);
    assert_non_null(j);
    kvp_json_free(out);
    return j;
}

static void refused(const char *command, const char *request, kvp_status want, const char *key) {
    char *out = (char *)0x1;
    kvp_error err;
    assert_int_equal(kvp_json_call(command, request, &out, &err), want);
    assert_null(out); /* never a partial answer */
    assert_string_equal(err.key, key);
}

/* refused(), and the message too. */
static void refused_saying(const char *command, const char *request, const char *key,
                           const char *message) {
    char *out = (char *)0x1;
    kvp_error err;
    assert_int_equal(kvp_json_call(command, request, &out, &err), KVP_INVALID_ARG);
    assert_null(out);
    assert_string_equal(err.key, key);
    assert_string_equal(err.message, message);
}

static uint64_t u(const json_t *o, const char *path) {
    char buf[128];
    strncpy(buf, path, sizeof buf - 1);
    buf[sizeof buf - 1] = '\0';
    const json_t *v = o;
    for (char *save = NULL, *k = strtok_r(buf, ".", &save); k; k = strtok_r(NULL, ".", &save))
        v = json_object_get(v, k);
    if (!json_is_integer(v)) fail_msg("%s is not an integer", path);
    return (uint64_t)json_integer_value(v);
}

static void test_plan_values_and_envelope(void **state) {
    (void)state;
    /* Llama-3.1-8B: 32 layers x 8 KV heads x (128 + 128) x 2 bytes = 131,072 B a token.
     * 40 GiB = 42,949,672,960 B / 131,072 = 327,680 tokens; / 8,192 = 40 sequences. */
    json_t *p = call("plan", "{\"model\": \"llama-3.1-8b\", \"kv_budget\": \"40GiB\", \"max_seq_len\": 8192}");
    assert_int_equal(u(p, "schema_version"), KVP_JSON_SCHEMA_VERSION);
    assert_string_equal(json_string_value(json_object_get(p, "kvplan_version")), kvp_version());
    assert_int_equal(u(p, "max_tokens"), 327680);
    assert_int_equal(u(p, "max_sequences.count"), 40);
    assert_string_equal(json_string_value(json_object_get(json_object_get(p, "deployment"), "policy")), "trtllm");
    json_decref(p);
    /* vLLM: a block of 16 tokens over 32 layers = 16 x 131,072 = 2 MiB; 40 GiB / 2 MiB = 20,480. */
    p = call("plan", "{\"model\": \"llama-3.1-8b\", \"kv_budget\": \"40GiB\", \"policy\": \"vllm\", "
                     "\"max_model_len\": 8192}");
    assert_int_equal(u(p, "engine_report.num_gpu_blocks"), 20480);
    assert_int_equal(u(p, "engine_report.gpu_kv_cache_tokens"), 327680);
    assert_int_equal(u(p, "capacity.max_sequences"), 40);
    assert_int_equal(u(p, "deployment.max_seq_len"), 8192);
    json_decref(p);
}

/* The answer is the renderer's document over the same deployment. */
static void test_plan_is_the_renderers_document(void **state) {
    (void)state;
    kvp_error err;
    kvp_model *m = NULL;
    assert_int_equal(kvp_model_open("llama-3.1-8b", NULL, &m, &err), KVP_OK);
    kvp_deployment d = kvp_deployment_default();
    d.model = m;
    d.point.engine = KVP_ENGINE_SGLANG;
    d.policy.engine = KVP_ENGINE_SGLANG;
    d.memory.kv_budget_bytes = 40ull << 30;
    kvp_deploy_result *r = kvp_deploy_result_new();
    assert_int_equal(kvp_deploy_plan(&d, r, &err), KVP_OK);
    assert_int_equal(r->status, KVP_OK);
    kvp_render_input in = {m, NULL, NULL, NULL, 0, NULL, NULL};
    char *want = NULL, *got = NULL;
    assert_int_equal(kvp_render_plan_json(&in, r, &want, &err), KVP_OK);
    assert_int_equal(kvp_json_call("plan", "{\"model\": \"llama-3.1-8b\", \"kv_budget\": \"40GiB\", "
                                           "\"policy\": \"sglang\"}", &got, &err), KVP_OK);
    assert_string_equal(got, want);
    kvp_render_free(want);
    kvp_json_free(got);
    kvp_deploy_result_free(r);
    kvp_model_free(m);
}

static void test_fit_compare_sweep(void **state) {
    (void)state;
    /* 327,680 tokens / 16 sequences = 20,480 tokens each. */
    json_t *f = call("fit", "{\"model\": \"llama-3.1-8b\", \"kv_budget\": \"40GiB\", \"concurrency\": 16}");
    assert_string_equal(json_string_value(json_object_get(f, "solved_for")), "max_seq_len");
    assert_int_equal(u(f, "value"), 20480);
    json_decref(f);
    /* 327,680 tokens / 32,768 = 10 sequences under TensorRT-LLM. */
    json_t *c = call("compare", "{\"model\": \"llama-3.1-8b\", \"kv_budget\": \"40GiB\", \"max_seq_len\": 32768, "
                                "\"policies\": [\"trtllm\", \"vllm\"]}");
    json_t *e = json_object_get(c, "engines");
    assert_int_equal(json_array_size(e), 2);
    assert_int_equal(u(json_array_get(e, 0), "max_sequences"), 10);
    assert_int_equal(u(json_array_get(e, 1), "tokens"), 327680);
    json_decref(c);
    /* tp 1, 2 x lengths 4k, 8k, 16k: 6 rows, the length innermost. TP 2 halves the
     * bytes of a token: 655,360 tokens. */
    json_t *s = call("sweep", "{\"model\": \"llama-3.1-8b\", \"kv_budget\": \"40GiB\", "
                              "\"over\": [\"tp=1,2\", \"max-seq-len=4k..16k\"]}");
    json_t *rows = json_object_get(s, "rows");
    assert_int_equal(u(s, "plans"), 6);
    assert_int_equal(json_array_size(rows), 6);
    assert_int_equal(u(json_array_get(rows, 0), "tp"), 1);
    assert_int_equal(u(json_array_get(rows, 0), "max_seq_len"), 4096);
    assert_int_equal(u(json_array_get(rows, 2), "max_seq_len"), 16384);
    assert_int_equal(u(json_array_get(rows, 3), "tp"), 2);
    assert_int_equal(u(json_array_get(rows, 3), "tokens"), 655360);
    /* 327,680 / 16,384 = 20 sequences at tp 1. */
    assert_int_equal(u(json_array_get(rows, 2), "max_sequences"), 20);
    json_decref(s);
}

static void test_errors_name_the_key(void **state) {
    (void)state;
    refused("plan", "{\"model\": \"llama-3.1-8b\", \"gpu\": \"h100\", \"tp\": 0}", KVP_INVALID_ARG, "/tp");
    refused("plan", "{\"model\": \"llama-3.1-8b\", \"gpu\": \"h100\", \"tpp\": 2}", KVP_INVALID_ARG, "/tpp");
    refused("plan", "{\"model\": \"llama-3.1-8b\", \"kv_budget\": \"40XB\"}", KVP_INVALID_ARG, "/kv_budget");
    refused("plan", "{\"model\": \"llama-3.1-8b\", \"gpu\": \"h100\", \"gpu_mem\": \"80G\"}", KVP_INVALID_ARG,
            "/gpu_mem");
    refused("plan", "{\"gpu\": \"h100\"}", KVP_INVALID_ARG, "/model");
    refused("plan", "{\"model\": \"llama-3.1-8b\", \"gpu\": \"h100\", \"tp\": null}", KVP_INVALID_ARG, "/tp");
    /* Qwen3-32B's 64 heads do not divide by TP 5: vLLM refuses to start (V-PAR-1). */
    refused("plan", "{\"model\": \"qwen3-32b\", \"gpu\": \"h100\", \"policy\": \"vllm\", \"tp\": 5}",
            KVP_INFEASIBLE, "/tp");
    refused("fit", "{\"model\": \"llama-3.1-8b\", \"gpu\": \"h100\", \"concurrency\": 0}", KVP_INVALID_ARG,
            "/concurrency");
    refused("compare", "{\"model\": \"llama-3.1-8b\", \"gpu\": \"h100\", \"policies\": \"vllm,x\"}",
            KVP_INVALID_ARG, "/policies");
    refused("sweep", "{\"model\": \"llama-3.1-8b\", \"gpu\": \"h100\", \"over\": \"colour=red\"}",
            KVP_INVALID_ARG, "/over");
    refused("sweep", "{\"model\": \"llama-3.1-8b\", \"gpu\": \"h100\"}", KVP_INVALID_ARG, "/over");
    /* 1..100000 step 1 is 100,000 plans, above the default bound of 10,000. */
    refused("sweep", "{\"model\": \"llama-3.1-8b\", \"gpu\": \"h100\", \"over\": \"max-seq-len=1..100000+1\"}",
            KVP_INVALID_ARG, "/max_plans");
}

/* A fit target beside the setting it varies: the fit room's refusal
 * (kvp__fit_conflict_refuse) in the request's words, keyed as the request. */
static void test_fit_left_free_in_request_words(void **state) {
    (void)state;
    refused_saying("fit", "{\"model\": \"llama-3.1-8b\", \"gpu\": \"h100\", \"solve\": \"tp\", \"tp\": 2}",
                   "/tp", "solve tp leaves tp free: drop tp");
    refused_saying("fit",
                   "{\"model\": \"llama-3.1-8b\", \"gpu\": \"h100\", \"solve\": \"max-seq-len\", "
                   "\"max_seq_len\": 4096}",
                   "/max_seq_len",
                   "solve max-seq-len leaves the length free: drop max_seq_len (max_seq_len_limit "
                   "bounds the search)");
    refused_saying("fit",
                   "{\"model\": \"llama-3.1-8b\", \"gpu\": \"h100\", \"solve\": \"kv-dtype\", "
                   "\"kv_dtype\": \"fp8\"}",
                   "/kv_dtype", "solve kv-dtype leaves kv_dtype free: drop kv_dtype");
    refused_saying("fit",
                   "{\"model\": \"llama-3.1-8b\", \"gpu\": \"h100\", \"solve\": \"concurrency\", "
                   "\"concurrency\": 4}",
                   "/concurrency", "solve concurrency leaves concurrency free: drop it");
}

static void test_sweep_grid(void **state) {
    (void)state;
    kvp_error err;
    kvp_sweep_grid *g = kvp_sweep_grid_new();
    assert_non_null(g);
    uint64_t n = 0;
    assert_int_equal(kvp_sweep_grid_count(g, 100, &n, &err), KVP_INVALID_ARG); /* no axis */
    assert_int_equal(kvp_sweep_grid_over(g, "max-seq-len=1k..8k", &err), KVP_OK);  /* 1k 2k 4k 8k */
    assert_int_equal(kvp_sweep_grid_over(g, "policy=vllm,sglang", &err), KVP_OK);
    assert_int_equal(kvp_sweep_grid_over(g, "tp=1..7+3", &err), KVP_OK);           /* 1 4 7 */
    assert_int_equal(kvp_sweep_grid_over(g, "tp=2", &err), KVP_INVALID_ARG);       /* twice */
    assert_int_equal(kvp_sweep_grid_over(g, "pp=70000", &err), KVP_INVALID_ARG);   /* > 65536 */
    assert_int_equal(kvp_sweep_grid_over(g, "kv-dtype", &err), KVP_INVALID_ARG);   /* no '=' */
    assert_string_equal(err.key, "over");
    assert_int_equal(kvp_sweep_grid_axis_size(g, "max-seq-len"), 4);
    assert_int_equal(kvp_sweep_grid_axis_size(g, "tp"), 3);
    const char *names[8];
    assert_int_equal(kvp_sweep_grid_axes(g, names, 8), 3);
    assert_string_equal(names[0], "policy");
    assert_string_equal(names[1], "tp");
    assert_string_equal(names[2], "max-seq-len");
    /* 2 x 3 x 4 = 24 points; a bound of 23 refuses the grid. */
    assert_int_equal(kvp_sweep_grid_count(g, 23, &n, &err), KVP_INVALID_ARG);
    assert_string_equal(err.key, "max_plans");
    assert_int_equal(kvp_sweep_grid_count(g, 24, &n, &err), KVP_OK);
    assert_int_equal(n, 24);
    kvp_fit_point base, p;
    memset(&base, 0, sizeof base);
    base.pp = 2;
    /* Index 17 = policy 1 (17 / 12), tp index 1 ((17 % 12) / 4), length index 1 (17 % 4). */
    kvp_sweep_grid_point(g, 17, &base, &p);
    assert_int_equal(p.engine, KVP_ENGINE_SGLANG);
    assert_int_equal(p.tp, 4);
    assert_int_equal(p.max_seq_len, 2048);
    assert_int_equal(p.pp, 2); /* not swept: the base's */
    kvp_sweep_grid_point(g, 0, &base, &p);
    assert_int_equal(p.engine, KVP_ENGINE_VLLM);
    assert_int_equal(p.tp, 1);
    assert_int_equal(p.max_seq_len, 1024);
    kvp_sweep_grid_free(g);
    kvp_sweep_grid_free(NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_values_and_envelope),
        cmocka_unit_test(test_plan_is_the_renderers_document),
        cmocka_unit_test(test_fit_compare_sweep),
        cmocka_unit_test(test_errors_name_the_key),
        cmocka_unit_test(test_fit_left_free_in_request_words),
        cmocka_unit_test(test_sweep_grid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
