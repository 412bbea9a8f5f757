/* test_deploy_property.c — one question, one number: random deployments
 * (seeded) across every engine and several catalogue models, each asked of
 * `plan`, `fit`, `sweep` and `compare` (run in-process, their --json parsed),
 * must give identical capacity figures; and at the library level a fit step
 * (kvp_fit_solve's plan at its answer) is the deployment pipeline's plan at
 * that value, the boundary exact (v serves, v + 1 does not).
 *
 * The commands share kvp_deploy_plan (deploy.h); what this test catches is a
 * command that builds different settings for the same flags (a default, a
 * memory term, a length) — the way plan and fit once disagreed for vLLM
 * (117 vs 113 sequences for Llama-3.1-70B on 4 x H100). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <fcntl.h>
#include <jansson.h>

#include "cli/commands.h"
#include "kvplan/deploy.h"
#include "kvplan/fit.h"

#include "test_rng.h"

static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) { return test_rng_next(&g_rng); }
static uint64_t pick(uint64_t n) { return rnd() % n; }

/* Dense, GQA, sliding-window, MLA and MoE models of the catalogue. */
static const char *const k_models[] = {"llama-3.1-8b", "qwen3-0.6b",       "qwen3-32b",
                                       "mistral-7b-v0.1", "gemma-2-9b",    "qwen3-30b-a3b",
                                       "deepseek-v2-lite-chat", "phi-3-mini-4k-instruct",
                                       "llama-3.1-70b"};
static const char *const k_gpus[] = {"H100", "A100", "H200", "L40S", "B200"};
static const char *const k_engines[] = {"trtllm", "vllm", "sglang", "llamacpp"};

/* ------------------------------------------------------ running a command */

#include "cli_run.h" /* run(): one subcommand in-process, its stdout */

static json_t *run_json(cmd_fn fn, char **argv, int argc, int *rc) {
    char *out = run(fn, argv, argc, rc);
    json_error_t je;
    json_t *j = json_loads(out, 0, &je);
    if (!j) fprintf(stderr, "not JSON (%s): %.400s\n", je.text, out);
    assert_non_null(j);
    free(out);
    return j;
}

/* ------------------------------------------------------ one deployment */

typedef struct deployment {
    const char *model, *gpu, *engine, *dtype; /* dtype NULL = auto */
    char budget[32];                          /* --kv-budget, "" = --gpu */
    unsigned tp;
    unsigned long long len;
    unsigned parallel;                        /* llama.cpp --parallel; 0 = not given */
} deployment;

typedef struct argvec {
    char *v[40];
    char buf[40][64];
    int n;
} argvec;

static void add(argvec *a, const char *s) {
    assert_true(a->n < 39);
    snprintf(a->buf[a->n], sizeof a->buf[0], "%s", s);
    a->v[a->n] = a->buf[a->n];
    a->n++;
    a->v[a->n] = NULL;
}

static void add_u(argvec *a, unsigned long long x) {
    char s[64];
    snprintf(s, sizeof s, "%llu", x);
    add(a, s);
}

static void common_tp(argvec *a, const deployment *d, bool tp) {
    if (d->budget[0]) {
        add(a, "--kv-budget");
        add(a, d->budget);
    } else {
        add(a, "--gpu");
        add(a, d->gpu);
    }
    /* llama.cpp has no tensor parallelism: --tp has no meaning there (exit 2,
     * engine_reads.c); its deployments are one device. */
    if (tp && strcmp(d->engine, "llamacpp") != 0) {
        add(a, "--tp");
        add_u(a, d->tp);
    }
    if (d->dtype) {
        add(a, "--kv-dtype");
        add(a, d->dtype);
    }
    add(a, "--json");
}

static void common(argvec *a, const deployment *d) { common_tp(a, d, true); }

static json_t *plan_of(const deployment *d, int *rc) {
    argvec a = {.n = 0};
    add(&a, "plan");
    add(&a, d->model);
    add(&a, "--policy");
    add(&a, d->engine);
    /* Each engine's own name for the length. */
    add(&a, !strcmp(d->engine, "trtllm")   ? "--max-seq-len"
            : !strcmp(d->engine, "llamacpp") ? "--ctx-size"
            : !strcmp(d->engine, "sglang")   ? "--context-length"
                                             : "--max-model-len");
    /* llama.cpp's --ctx-size is the whole context: n_ctx_seq x --parallel slots. */
    if (d->len) add_u(&a, d->parallel ? d->len * d->parallel : d->len);
    else a.n--; /* the model's own length */
    if (d->parallel) {
        add(&a, "--parallel");
        add_u(&a, d->parallel);
    }
    common(&a, d);
    return run_json(kvp_cmd_plan, a.v, a.n, rc);
}

static json_t *fit_of(const deployment *d, int *rc) {
    argvec a = {.n = 0};
    add(&a, "fit");
    add(&a, d->model);
    add(&a, "--policy");
    add(&a, d->engine);
    add(&a, "--solve");
    add(&a, "concurrency");
    add(&a, "--max-seq-len");
    add_u(&a, d->len);
    common(&a, d);
    return run_json(kvp_cmd_fit, a.v, a.n, rc);
}

static json_t *sweep_of(const deployment *d, int *rc) {
    argvec a = {.n = 0};
    add(&a, "sweep");
    add(&a, d->model);
    add(&a, "--policy");
    add(&a, d->engine);
    char over[64];
    if (d->len)
        snprintf(over, sizeof over, "--over=max-seq-len=%llu", d->len);
    else
        snprintf(over, sizeof over, "--over=tp=%u", d->tp); /* the model's own length */
    add(&a, over);
    /* --over tp with --tp is a contradiction (exit 2): the axis gives the tp. */
    common_tp(&a, d, d->len != 0);
    return run_json(kvp_cmd_sweep, a.v, a.n, rc);
}

static json_t *compare_of(const deployment *d, int *rc) {
    argvec a = {.n = 0};
    add(&a, "compare");
    add(&a, d->model);
    add(&a, "--policies");
    add(&a, d->engine);
    if (d->len) {
        add(&a, "--max-seq-len");
        add_u(&a, d->len);
    }
    common(&a, d);
    return run_json(kvp_cmd_compare, a.v, a.n, rc);
}

static void describe(const deployment *d, char *buf, size_t n) {
    snprintf(buf, n, "%s on %s%s%s, %s, tp %u, kv %s, length %llu", d->model,
             d->budget[0] ? "a KV budget of " : "", d->budget[0] ? d->budget : d->gpu,
             "", d->engine, d->tp, d->dtype ? d->dtype : "auto", d->len);
}

/* The figures a fit / sweep / compare row shares with plan's "capacity". */
static const char *const k_fields[] = {"budget_bytes", "kv_bytes", "tokens", "blocks",
                                       "max_sequences", "longest_sequence_tokens",
                                       "max_seq_len", "tokens_per_block", "batch_limit"};

/* Same numbers as `plan` (cap NULL: plan did not plan it, so neither may `row`). */
static void check_row(const char *what, const deployment *d, const json_t *cap, const json_t *row) {
    char desc[256];
    describe(d, desc, sizeof desc);
    if (!row) fail_msg("%s: no row for %s", what, desc);
    bool ok = json_is_true(json_object_get(row, "ok"));
    if (cap && !json_is_true(json_object_get(cap, "ok"))) cap = NULL; /* figures, not planned */
    if (!cap) {
        if (ok) fail_msg("%s planned what plan refused: %s", what, desc);
        return;
    }
    if (!ok)
        fail_msg("%s refused what plan planned (%s): %s", what,
                 json_string_value(json_object_get(row, "message")), desc);
    for (size_t i = 0; i < sizeof k_fields / sizeof k_fields[0]; i++) {
        json_t *r = json_object_get(row, k_fields[i]);
        if (!r) continue; /* a sweep row carries fewer columns */
        json_t *c = json_object_get(cap, k_fields[i]);
        if (!json_equal(r, c))
            fail_msg("%s: %s %lld, plan %lld: %s", what, k_fields[i],
                     (long long)json_integer_value(r), (long long)json_integer_value(c), desc);
    }
}

static void random_deployment(deployment *d) {
    memset(d, 0, sizeof *d);
    d->model = k_models[pick(sizeof k_models / sizeof k_models[0])];
    d->gpu = k_gpus[pick(sizeof k_gpus / sizeof k_gpus[0])];
    d->engine = k_engines[pick(4)];
    static const unsigned k_tp[] = {1, 2, 4, 8};
    d->tp = !strcmp(d->engine, "llamacpp") ? 1 : k_tp[pick(4)];
    if (pick(4) == 0) snprintf(d->budget, sizeof d->budget, "%lluMiB", (unsigned long long)(256 + pick(60000)));
    static const char *const k_dt[4][3] = {{NULL, "fp8", "bf16"},
                                           {NULL, "fp8", "auto"},
                                           {NULL, "fp8_e4m3", "auto"},
                                           {NULL, "q8_0", "f16"}};
    unsigned e = !strcmp(d->engine, "trtllm") ? 0 : !strcmp(d->engine, "vllm") ? 1
                 : !strcmp(d->engine, "sglang") ? 2 : 3;
    d->dtype = k_dt[e][pick(3)];
    static const unsigned long long k_len[] = {512, 2048, 4096, 8192, 32768};
    d->len = pick(3) ? k_len[pick(5)] : 1 + pick(32768);
    if (pick(8) == 0) d->len = 0; /* not given: the model's max_position_embeddings */
}

/* plan, fit, sweep and compare over random deployments: identical figures. */
static void test_commands_agree(void **state) {
    (void)state;
    unsigned planned = 0, refused = 0, gated = 0, per_engine[4] = {0};
    const unsigned n = 1000;
    for (unsigned k = 0; k < n; k++) {
        deployment d;
        random_deployment(&d);
        int rc_plan, rc_fit, rc_sweep, rc_cmp;
        json_t *plan = plan_of(&d, &rc_plan);
        json_t *fit = d.len ? fit_of(&d, &rc_fit) : NULL;
        json_t *sweep = sweep_of(&d, &rc_sweep);
        json_t *cmp = compare_of(&d, &rc_cmp);
        const json_t *cap = json_object_get(plan, "capacity");
        char desc[256];
        describe(&d, desc, sizeof desc);
        /* A start-up rule's refusal (docs/startup.md: V-PAR-1, S-LEN-1, T-MEM-2, ...)
         * comes from the pipeline, so fit, sweep and compare refuse the same
         * deployment (check_row with cap NULL); plan prints the check report. */
        if (!cap && !json_object_get(plan, "error") && !json_object_get(plan, "first_refusal"))
            fail_msg("plan printed neither a plan nor an error: %s", desc);
        if (!cap && json_object_get(plan, "first_refusal")) gated++;
        /* A plan the engine refuses to start is still a plan of the same numbers. */
        /* fit --solve concurrency on llama.cpp answers with --parallel slots: the same
         * deployment with that many slots is what plan must match. */
        const json_t *fit_row = d.len ? json_object_get(fit, "plan") : NULL;
        json_int_t slots = json_integer_value(json_object_get(fit_row, "sequences"));
        if (!d.len) {
            /* fit needs a length to solve for concurrency */
        } else if (!strcmp(d.engine, "llamacpp") && slots > 1) {
            deployment dp = d;
            dp.parallel = (unsigned)slots;
            int rc_p;
            json_t *plan_p = plan_of(&dp, &rc_p);
            check_row("fit", &dp, json_object_get(plan_p, "capacity"), fit_row);
            json_decref(plan_p);
        } else {
            check_row("fit", &d, cap, fit_row);
        }
        check_row("sweep", &d, cap, json_array_get(json_object_get(sweep, "rows"), 0));
        check_row("compare", &d, cap, json_array_get(json_object_get(cmp, "engines"), 0));
        if (cap) {
            planned++;
            for (unsigned e = 0; e < 4; e++)
                if (!strcmp(d.engine, k_engines[e])) per_engine[e]++;
        } else {
            refused++;
        }
        json_decref(plan);
        json_decref(fit);
        json_decref(sweep);
        json_decref(cmp);
    }
    /* The draw must exercise every engine and both outcomes. */
    for (unsigned e = 0; e < 4; e++) assert_true(per_engine[e] > n / 16);
    assert_true(planned > n / 2);
    fprintf(stderr, "%u planned, %u refused (%u by a start-up rule)\n", planned, refused, gated);
    assert_true(gated > 0 && gated < n / 4);
    assert_true(refused >= gated);
}

/* ------------------------------------------------------ library level */

static kvp_model *g_models[sizeof k_models / sizeof k_models[0]];

static int setup(void **state) {
    (void)state;
    kvp_error err;
    for (size_t i = 0; i < sizeof k_models / sizeof k_models[0]; i++)
        if (kvp_model_open(k_models[i], NULL, &g_models[i], &err) != KVP_OK) return -1;
    return 0;
}

static int teardown(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof k_models / sizeof k_models[0]; i++) kvp_model_free(g_models[i]);
    return 0;
}

/* Two results of the same deployment: every figure a command prints. */
static void assert_same_result(const kvp_deploy_result *a, const kvp_deploy_result *b) {
    assert_int_equal(a->status, b->status);
    assert_string_equal(a->message, b->message);
    assert_int_equal(a->point.max_seq_len, b->point.max_seq_len);
    assert_int_equal(a->point.tp, b->point.tp);
    assert_string_equal(a->point.kv_dtype, b->point.kv_dtype);
    assert_int_equal(a->budget_bytes, b->budget_bytes);
    assert_int_equal(a->kv_bytes, b->kv_bytes);
    assert_int_equal(a->tokens, b->tokens);
    assert_int_equal(a->blocks, b->blocks);
    assert_int_equal(a->max_sequences, b->max_sequences);
    assert_int_equal(a->longest_tokens, b->longest_tokens);
    assert_int_equal(a->weights_bytes, b->weights_bytes);
    assert_int_equal(a->activation_bytes, b->activation_bytes);
    assert_int_equal(a->runtime_bytes, b->runtime_bytes);
    assert_int_equal(a->starts, b->starts);
    assert_string_equal(a->binding, b->binding);
    assert_memory_equal(&a->report, &b->report, sizeof a->report);
}

/* A fit step is the pipeline's plan at the answer, and the boundary is exact:
 * the answer serves the concurrency, one token more does not. */
static void test_fit_step_is_a_plan(void **state) {
    (void)state;
    kvp_deploy_result *r = kvp_deploy_result_new(), *r1 = kvp_deploy_result_new();
    kvp_fit_answer *ans = calloc(1, sizeof *ans);
    assert_non_null(r);
    assert_non_null(r1);
    assert_non_null(ans);
    unsigned found = 0;
    const unsigned n = 2400;
    for (unsigned k = 0; k < n; k++) {
        size_t mi = pick(sizeof k_models / sizeof k_models[0]);
        kvp_deployment d = kvp_deployment_default();
        d.model = g_models[mi];
        d.point.engine = (kvp_engine)pick(KVP_ENGINE_COUNT);
        d.point.tp = d.point.engine == KVP_ENGINE_LLAMACPP ? 1 : 1u << pick(4);
        if (pick(3) == 0)
            d.memory.kv_budget_bytes = (1 + pick(64)) << 28;
        else
            d.memory.total_bytes = (16 + pick(176)) << 30;
        uint64_t conc = 1 + pick(16);
        kvp_fit_request req;
        memset(&req, 0, sizeof req);
        req.solve_for = KVP_FIT_MAX_SEQ_LEN;
        req.base = d.point;
        req.concurrency = conc;
        req.seq_len_hi = 1 + pick(65536);
        kvp_error err;
        assert_int_equal(kvp_fit_solve(&d, &req, ans, &err), KVP_OK);
        if (!ans->found) continue;
        found++;
        /* The same deployment at the answer, planned directly. */
        kvp_deployment at = d;
        at.point.max_seq_len = ans->value;
        /* fit deploys what serves the concurrency: llama.cpp slots, TRT-LLM recurrent
         * slots (kvp_fit_solve). */
        at.point.sequences = ans->at.point.sequences;
        if (d.point.engine == KVP_ENGINE_TRTLLM) at.point.max_batch_size = ans->at.point.max_batch_size;
        assert_int_equal(kvp_deploy_plan(&at, r, &err), KVP_OK);
        assert_same_result(&ans->at, r);
        char why[KVP_DEPLOY_REASON_MAX];
        assert_true(kvp_fit_serves(r, conc, why, sizeof why));
        if (!ans->at_search_bound) {
            at.point.max_seq_len = ans->value + 1;
            assert_int_equal(kvp_deploy_plan(&at, r1, &err), KVP_OK);
            assert_false(kvp_fit_serves(r1, conc, why, sizeof why));
        }
        /* kvp_fit_evaluate is the same call. */
        assert_int_equal(kvp_fit_evaluate(&d, &ans->at.point, r1, &err), KVP_OK);
        assert_same_result(&ans->at, r1);
    }
    assert_true(found > n / 4);
    kvp_deploy_result_free(r);
    kvp_deploy_result_free(r1);
    free(ans);
}

/* Item 6: a term given is used as given, never also estimated. */
static void test_given_terms_not_estimated(void **state) {
    (void)state;
    kvp_deploy_result *r = kvp_deploy_result_new();
    assert_non_null(r);
    kvp_deployment d = kvp_deployment_default();
    d.model = g_models[0]; /* llama-3.1-8b */
    d.point.engine = KVP_ENGINE_VLLM;
    d.point.max_seq_len = 8192;
    d.memory.total_bytes = 80ull << 30;
    d.memory.has_weights = true;
    d.memory.weights_bytes = 15ull << 30;
    d.memory.has_activation_peak = true;
    d.memory.activation_peak_bytes = 2ull << 30;
    d.memory.has_non_torch = true;
    d.memory.non_torch_bytes = 1ull << 30;
    d.memory.has_cuda_graph = true;
    d.memory.cuda_graph_bytes = 1ull << 29;
    kvp_error err;
    assert_int_equal(kvp_deploy_plan(&d, r, &err), KVP_OK);
    assert_int_equal(r->status, KVP_OK);
    assert_int_equal(r->memory.estimated & (KVP_MEM_EST_WEIGHTS | KVP_MEM_EST_ACTIVATION |
                                            KVP_MEM_EST_NON_TORCH | KVP_MEM_EST_CUDA_GRAPH),
                     0);
    /* vLLM (>= 0.21): ceil(80 GiB * 0.9) - 15 - 2 - 1 - 0.5 GiB = 72 - 18.5 = 53.5 GiB. */
    assert_int_equal(r->budget_bytes, 72ull * (1ull << 30) - (37ull << 29));
    /* The allocator peak with weights means the same activation: 17 GiB - 15 GiB. */
    d.memory.has_activation_peak = false;
    d.memory.has_peak = true;
    d.memory.peak_bytes = 17ull << 30;
    assert_int_equal(kvp_deploy_plan(&d, r, &err), KVP_OK);
    assert_int_equal(r->budget_bytes, 72ull * (1ull << 30) - (37ull << 29));
    /* Both given is ambiguous: refused, naming the field. */
    d.memory.has_activation_peak = true;
    assert_int_equal(kvp_deploy_plan(&d, r, &err), KVP_OK);
    assert_int_equal(r->status, KVP_INVALID_ARG);
    assert_string_equal(r->key, "activation_peak_bytes");
    kvp_deploy_result_free(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_given_terms_not_estimated),
        cmocka_unit_test(test_fit_step_is_a_plan),
        cmocka_unit_test(test_commands_agree),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
