/*
 * test_faults_plan.c — allocation-failure injection over planning (issue 8,
 * item 4; issue 17, item 6): the creator lifecycle of include/kvplan/plan.h
 * (new, prepare the estimation pass, configure from a budget, build the
 * managers, free), then planning end to end through the deployment's
 * allocator (kvp_deployment.alc): kvp_deploy_plan under every engine, the
 * policy planner, a fit and a sweep, with the Nth allocation failing for
 * N = 0, 1, 2, ... until the call succeeds. Each failure must return KVP_NOMEM
 * with a message and leave no allocation live (fault_alloc.h); ASan in CI
 * catches bad frees on the way. A counting allocator then shows that a plan
 * allocates through the model's allocator (allocations > 0, every one freed)
 * and that an allocator that always fails makes every planner say KVP_NOMEM.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fault_alloc.h"
#include "kvplan/deploy.h"
#include "kvplan/fit.h"
#include "kvplan/plan.h"
#include "kvplan/policy.h"
#include "kvplan/sweep.h"

#define GIB (1024ull * 1024ull * 1024ull)

typedef struct plan_arg {
    const kvp_model *model;
    kvp_deploy_settings deploy;
} plan_arg;

static kvp_status op_plan(const kvp_allocator *alc, const void *arg, kvp_error *err) {
    const plan_arg *a = arg;
    kvp_kv_config kv;
    memset(&kv, 0, sizeof kv);
    kvp_creator *c = (kvp_creator *)(uintptr_t)1; /* poisoned: NULL on failure */
    kvp_status s = kvp_creator_new(a->model, NULL, &a->deploy, &kv, alc, &c, err);
    if (s != KVP_OK) return c == NULL ? s : KVP_INVALID_ARG;
    kvp_estimation_plan est;
    kvp_capacity cap;
    kvp_plan plan;
    if ((s = kvp_creator_prepare_estimation(c, 70 * GIB, &est, err)) == KVP_OK &&
        (s = kvp_creator_configure_budget(c, 40 * GIB, &cap, err)) == KVP_OK)
        s = kvp_creator_build(c, false, &plan, err);
    kvp_creator_free(c);
    return s;
}

static void test_plan_under_faults(void **state) {
    (void)state;
    /* Families with different managers: full attention, sliding windows
     * (nested config), MLA, gated-delta-net hybrid, Mamba hybrid, MoE with
     * sliding layers. */
    static const char *const models[] = {"llama-3.1-8b",   "gemma-3-27b-it",
                                         "deepseek-v3",    "qwen3-next-80b-a3b-thinking",
                                         "nemotron-h-56b-base-8k", "gpt-oss-20b"};
    long points = 0, planned = 0;
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        kvp_model *m = NULL;
        kvp_error err;
        if (kvp_model_open(models[i], NULL, &m, &err) != KVP_OK)
            fail_msg("%s: %s", models[i], err.message);
        for (uint32_t tp = 1; tp <= 8; tp *= 8) {
            plan_arg a;
            memset(&a, 0, sizeof a);
            a.model = m;
            a.deploy.tp = tp;
            a.deploy.pp_rank = -1;
            a.deploy.max_seq_len = 8192;
            fault_result r = fault_drive(op_plan, &a, 100000, false);
            if (!r.ok) fail_msg("%s tp=%u: %s", models[i], tp, r.why);
            points += r.points;
            planned++;
        }
        kvp_model_free(m);
    }
    /* A creator allocates at least itself. */
    assert_true(points >= planned);
    print_message("faults: %ld plans, %ld injection points\n", planned, points);
}


/* ------------------------------------------ planning end to end, the deployment's allocator */

typedef struct deploy_arg {
    const kvp_model *model;
    kvp_engine engine;
    const char *what; /* "plan", "policy", "fit", "sweep" */
} deploy_arg;

/* 192 GiB of device memory (qwen3-next's 148 GiB of weights fit on one GPU),
 * the rest estimated (`--gpu-mem 192GiB`), 8k tokens. */
static kvp_deployment deployment_on(const deploy_arg *a, const kvp_allocator *alc) {
    kvp_deployment d = kvp_deployment_default();
    d.model = a->model;
    d.alc = alc;
    d.point.engine = a->engine;
    d.point.max_seq_len = 8192;
    d.point.max_batch_size = 64; /* TRT-LLM: 2048 recurrent slots of qwen3-next do not fit */
    d.memory.total_bytes = 192 * GIB;
    return d;
}

/* A call that succeeded but planned nothing would hide a swallowed failure:
 * every point here plans (status OK) when nothing fails. */
static kvp_status planned_or(kvp_status st, kvp_status plan_status, const char *message,
                             kvp_error *err) {
    if (st != KVP_OK || plan_status == KVP_OK) return st;
    err->code = KVP_INFEASIBLE;
    snprintf(err->message, sizeof err->message, "planned with status %s: %s",
             kvp_status_name(plan_status), message);
    return KVP_INFEASIBLE;
}

/* A handle the caller makes (result, grid) was refused by the allocator. */
static kvp_status out_of_memory(kvp_error *err, const char *what) {
    err->code = KVP_NOMEM;
    snprintf(err->message, sizeof err->message, "out of memory (%s)", what);
    return KVP_NOMEM;
}

static kvp_status op_deploy(const kvp_allocator *alc, const void *arg, kvp_error *err) {
    const deploy_arg *a = arg;
    kvp_deployment d = deployment_on(a, alc);
    kvp_deploy_result *r = kvp_deploy_result_new_with(alc);
    if (!r) return out_of_memory(err, "result");
    kvp_status st = kvp_deploy_plan(&d, r, err);
    st = planned_or(st, r->status, r->message, err);
    kvp_deploy_result_free(r);
    return st;
}

static kvp_status op_policy(const kvp_allocator *alc, const void *arg, kvp_error *err) {
    const deploy_arg *a = arg;
    kvp_policy_settings s = kvp_policy_settings_default();
    s.engine = a->engine;
    s.alc = alc;
    s.kv_budget_bytes = 40 * GIB;
    s.max_model_len = 8192;
    s.n_ctx = 8192;
    kvp_policy_result *r = calloc(1, sizeof *r); /* test scaffolding, not under test */
    if (!r) return KVP_INVALID_ARG;
    kvp_status st = kvp_policy_plan(a->model, &s, r, err);
    free(r);
    return st;
}

static kvp_status op_fit(const kvp_allocator *alc, const void *arg, kvp_error *err) {
    const deploy_arg *a = arg;
    kvp_deployment d = deployment_on(a, alc);
    kvp_fit_request req;
    memset(&req, 0, sizeof req);
    req.solve_for = KVP_FIT_MAX_SEQ_LEN;
    req.base = d.point;
    req.concurrency = 16;
    req.seq_len_hi = 131072;
    kvp_fit_answer *ans = calloc(1, sizeof *ans); /* scaffolding */
    if (!ans) return KVP_INVALID_ARG;
    kvp_status st = kvp_fit_solve(&d, &req, ans, err);
    if (st == KVP_OK && !ans->found) st = planned_or(st, KVP_INFEASIBLE, ans->best, err);
    free(ans);
    return st;
}

static kvp_status on_row(uint64_t index, uint64_t count, const kvp_fit_eval *e, void *ctx,
                         kvp_error *err) {
    (void)index;
    (void)count;
    (*(uint64_t *)ctx)++;
    return planned_or(KVP_OK, e->status, e->message, err);
}

static kvp_status op_sweep(const kvp_allocator *alc, const void *arg, kvp_error *err) {
    const deploy_arg *a = arg;
    kvp_deployment d = deployment_on(a, alc);
    kvp_sweep_grid *g = kvp_sweep_grid_new_with(alc);
    if (!g) return out_of_memory(err, "grid");
    uint64_t rows = 0;
    kvp_status st = kvp_sweep_grid_over(g, "policy=trtllm,vllm,sglang", err);
    if (st == KVP_OK) st = kvp_sweep_grid_over(g, "max-seq-len=4k,8k", err);
    if (st == KVP_OK) st = kvp_sweep_run(g, &d, &d.point, 100, on_row, &rows, err);
    if (st == KVP_OK && rows != 3 * 2) st = planned_or(st, KVP_INFEASIBLE, "rows missing", err);
    kvp_sweep_grid_free(g);
    return st;
}

static const kvp_engine k_engines[] = {KVP_ENGINE_TRTLLM, KVP_ENGINE_VLLM, KVP_ENGINE_SGLANG,
                                       KVP_ENGINE_LLAMACPP};

/* Dense, sliding-window MoE, and a gated-delta-net hybrid. */
static const char *const k_deploy_models[] = {"llama-3.1-8b", "gpt-oss-20b",
                                              "qwen3-next-80b-a3b-thinking"};

/* Engines k_engines[first .. last) (TensorRT-LLM, index 0, is the creator's,
 * not a policy's). */
static void drive_all(const char *what, fault_op op, size_t first, size_t last, long *points,
                      long *calls) {
    for (size_t i = 0; i < sizeof k_deploy_models / sizeof k_deploy_models[0]; i++) {
        kvp_model *m = NULL;
        kvp_error err;
        if (kvp_model_open(k_deploy_models[i], NULL, &m, &err) != KVP_OK)
            fail_msg("%s: %s", k_deploy_models[i], err.message);
        for (size_t k = first; k < last; k++) {
            deploy_arg a = {m, k_engines[k], what};
            /* Each point plans without faults, or is one the engine refuses
             * (llama.cpp's policy on a layout it has no cache for): skipped. */
            kvp_error plain;
            kvp_status ps = op(NULL, &a, &plain);
            if (ps != KVP_OK) {
                if (k_engines[k] != KVP_ENGINE_LLAMACPP)
                    fail_msg("%s %s under %s without faults: %s", what, k_deploy_models[i],
                             kvp_engine_name(k_engines[k]), plain.message);
                print_message("skipped: %s %s under llama.cpp: %s\n", what, k_deploy_models[i],
                              plain.message);
                continue;
            }
            fault_result r = fault_drive(op, &a, 100000, false);
            if (!r.ok)
                fail_msg("%s %s under %s: %s", what, k_deploy_models[i],
                         kvp_engine_name(k_engines[k]), r.why);
            /* Every planner allocates (the gate, the layer list) but llama.cpp's
             * policy, which sizes its cells from the records in place. */
            if (r.points == 0 && !(op == op_policy && k_engines[k] == KVP_ENGINE_LLAMACPP))
                fail_msg("%s %s under %s: no allocation at all", what, k_deploy_models[i],
                         kvp_engine_name(k_engines[k]));
            *points += r.points;
            (*calls)++;
        }
        kvp_model_free(m);
    }
}

static void test_deploy_under_faults(void **state) {
    (void)state;
    long points = 0, calls = 0;
    drive_all("plan", op_deploy, 0, 4, &points, &calls);
    drive_all("policy", op_policy, 1, 4, &points, &calls);
    drive_all("fit", op_fit, 0, 4, &points, &calls);
    drive_all("sweep", op_sweep, 0, 1, &points, &calls);
    print_message("faults: %ld planner calls, %ld injection points\n", calls, points);
}

/* ------------------------------------------------ a counting allocator */

/* libc's allocator as the library calls it (tests/CMakeLists.txt links this
 * test with --wrap): counted while g_watch is set. */
static bool g_watch;
static long g_libc_calls;
#ifdef KVP_TEST_WRAP_MALLOC
void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *ptr, size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *ptr, size_t size);
void *__wrap_malloc(size_t size) {
    if (g_watch) g_libc_calls++;
    return __real_malloc(size);
}
void *__wrap_calloc(size_t n, size_t size) {
    if (g_watch) g_libc_calls++;
    return __real_calloc(n, size);
}
void *__wrap_realloc(void *ptr, size_t size) {
    if (g_watch) g_libc_calls++;
    return __real_realloc(ptr, size);
}
#define REAL_MALLOC __real_malloc
#define REAL_REALLOC __real_realloc
#else
#define REAL_MALLOC malloc
#define REAL_REALLOC realloc
#endif

typedef struct counting {
    long allocs, frees, fails; /* fails: every call fails when set */
    bool fail;
} counting;

static void *count_malloc(void *ctx, size_t size) {
    counting *c = ctx;
    if (c->fail) {
        c->fails++;
        return NULL;
    }
    c->allocs++;
    return REAL_MALLOC(size);
}

static void *count_realloc(void *ctx, void *ptr, size_t size) {
    counting *c = ctx;
    if (c->fail) {
        c->fails++;
        return NULL;
    }
    if (!ptr) c->allocs++;
    return REAL_REALLOC(ptr, size);
}

static void count_free(void *ctx, void *ptr) {
    counting *c = ctx;
    if (ptr) c->frees++;
    free(ptr);
}

/* A model built with a counting allocator and planned with no allocator of the
 * deployment's own: the plan's allocations are the model's, and all of them
 * are given back. An allocator that always fails, named by the deployment, the
 * policy settings, the grid or the result, gives KVP_NOMEM (or NULL), never a
 * plan. */
static void test_counting_allocator(void **state) {
    (void)state;
    counting c = {0, 0, 0, false};
    kvp_allocator alc = {count_malloc, count_realloc, count_free, &c};
    kvp_model *m = NULL;
    kvp_error err;
    assert_int_equal(kvp_model_open("llama-3.1-8b", &alc, &m, &err), KVP_OK);
    /* The model keeps a copy of the allocator (the struct may be the caller's stack). */
    assert_ptr_equal(kvp_model_allocator(m)->ctx, &c);
    long after_load = c.allocs;
    assert_true(after_load > 0);
    deploy_arg a = {m, KVP_ENGINE_TRTLLM, "plan"};
    for (size_t k = 0; k < sizeof k_engines / sizeof k_engines[0]; k++) {
        a.engine = k_engines[k];
        long before = c.allocs, freed = c.frees;
        kvp_deployment d = deployment_on(&a, NULL); /* NULL: the model's allocator */
        assert_ptr_equal(kvp_deployment_allocator(&d), kvp_model_allocator(m));
        g_watch = true; /* from here on libc's allocator must not be called */
        kvp_deploy_result *r = kvp_deploy_result_new_with(kvp_deployment_allocator(&d));
        assert_non_null(r);
        kvp_status st = kvp_deploy_plan(&d, r, &err);
        if (st == KVP_OK && a.engine != KVP_ENGINE_TRTLLM) st = op_policy(NULL, &a, &err);
        if (st == KVP_OK) st = op_fit(NULL, &a, &err);
        /* The grid is the caller's: it gets the model's allocator by name. */
        if (st == KVP_OK && a.engine == KVP_ENGINE_TRTLLM)
            st = op_sweep(kvp_model_allocator(m), &a, &err);
        g_watch = false;
        assert_int_equal(st, KVP_OK);
        assert_int_equal(r->status, KVP_OK);
        kvp_deploy_result_free(r);
        /* The test's own scaffolding (op_policy's and op_fit's calloc) is not the
         * library's: the wrap counts only the static library's and this file's
         * calls, and those two are the only calls here. */
        long scaffold = (a.engine != KVP_ENGINE_TRTLLM) + 1;
#ifdef KVP_TEST_WRAP_MALLOC
        assert_int_equal(g_libc_calls, scaffold);
#endif
        g_libc_calls = 0;
        (void)scaffold;
        /* The result, the start-up gate, and the creator or the policy's lists. */
        assert_true(c.allocs - before >= 3);
        assert_int_equal(c.allocs - before, c.frees - freed); /* all scratch freed */
    }
    /* Always failing: each planner reports KVP_NOMEM with a message. */
    counting failing = {0, 0, 0, true};
    kvp_allocator none = {count_malloc, count_realloc, count_free, &failing};
    assert_null(kvp_deploy_result_new_with(&none));
    assert_null(kvp_sweep_grid_new_with(&none));
    kvp_deploy_result *r = kvp_deploy_result_new();
    assert_non_null(r);
    for (size_t k = 0; k < sizeof k_engines / sizeof k_engines[0]; k++) {
        a.engine = k_engines[k];
        kvp_deployment d = deployment_on(&a, &none);
        assert_int_equal(kvp_deploy_plan(&d, r, &err), KVP_NOMEM);
        assert_int_equal(err.code, KVP_NOMEM);
        assert_true(err.message[0] != '\0');
        /* llama.cpp's policy allocates nothing (test_deploy_under_faults: 0 points). */
        if (a.engine == KVP_ENGINE_VLLM || a.engine == KVP_ENGINE_SGLANG)
            assert_int_equal(op_policy(&none, &a, &err), KVP_NOMEM);
        if (a.engine == KVP_ENGINE_LLAMACPP) assert_int_equal(op_policy(&none, &a, &err), KVP_OK);
        assert_int_equal(op_fit(&none, &a, &err), KVP_NOMEM);
    }
    kvp_deploy_result_free(r);
    assert_int_equal(failing.allocs, 0);
    assert_true(failing.fails >= 4 * 2 + 3);
    assert_int_equal(failing.frees, 0);
    kvp_model_free(m);
    assert_int_equal(c.allocs, c.frees); /* the model's own memory too */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_under_faults),
        cmocka_unit_test(test_deploy_under_faults),
        cmocka_unit_test(test_counting_allocator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
