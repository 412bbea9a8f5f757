/*
 * test_faults_plan.c — allocation-failure injection over planning (issue 8,
 * item 4): the creator lifecycle of include/kvplan/plan.h (new, prepare the
 * estimation pass, configure from a budget, build the managers, free) with
 * the Nth allocation of the creator failing for N = 0, 1, 2, ... until it
 * succeeds. Each failure must return KVP_NOMEM with a message and leave no
 * allocation live (fault_alloc.h); ASan in CI catches bad frees on the way.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fault_alloc.h"
#include "kvplan/plan.h"

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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_under_faults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
