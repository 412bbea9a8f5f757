/* test_fit_search.c — the exact integer search of `kvplan fit` over a
 * synthetic monotone predicate: the answer fits, one more does not; bounds,
 * empty answers, errors and the evaluation count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "kvplan/fit.h"

/* fits(v) iff v * cost <= budget; the reason names the budget. */
typedef struct budget_ctx {
    uint64_t budget, cost;
    uint32_t calls;
    kvp_status fail_at_call; /* != KVP_OK: fail the 3rd call with this */
} budget_ctx;

static kvp_status fits_budget(uint64_t v, void *vctx, bool *out, char *why, size_t n,
                              kvp_error *err) {
    budget_ctx *c = vctx;
    c->calls++;
    if (c->fail_at_call != KVP_OK && c->calls == 3) {
        if (err) {
            kvp_error_clear(err);
            err->code = c->fail_at_call;
            snprintf(err->message, sizeof err->message, "planner failed");
        }
        return c->fail_at_call;
    }
    uint64_t need = v * c->cost;
    *out = need <= c->budget;
    if (!*out) snprintf(why, n, "budget %llu < %llu", (unsigned long long)c->budget,
                        (unsigned long long)need);
    return KVP_OK;
}

static void test_boundary(void **state) {
    (void)state;
    /* 1000 / 7 = 142.86: 142 * 7 = 994 fits, 143 * 7 = 1001 does not. */
    budget_ctx c = {1000, 7, 0, KVP_OK};
    kvp_fit_search s;
    kvp_error err;
    assert_int_equal(kvp_fit_search_max(1, 1u << 20, fits_budget, &c, &s, &err), KVP_OK);
    assert_true(s.found);
    assert_int_equal(s.value, 142);
    assert_false(s.at_upper_bound);
    assert_string_equal(s.limited_by, "budget 1000 < 1001"); /* the reason of value + 1 */
    /* lo, hi, then bisection of [1, 2^20]: 2 + 20 probes at most. */
    assert_true(s.evaluations <= 22);
    assert_int_equal(s.evaluations, c.calls);
}

static void test_every_budget_exact(void **state) {
    (void)state;
    /* Exhaustive check against the closed form floor(budget / cost). */
    for (uint64_t budget = 5; budget < 400; budget += 13)
        for (uint64_t cost = 1; cost < 9; cost++) {
            budget_ctx c = {budget, cost, 0, KVP_OK};
            kvp_fit_search s;
            assert_int_equal(kvp_fit_search_max(1, 1000, fits_budget, &c, &s, NULL), KVP_OK);
            if (budget / cost == 0) {
                assert_false(s.found);
                continue;
            }
            assert_true(s.found);
            assert_int_equal(s.value, budget / cost);
        }
}

static void test_bounds(void **state) {
    (void)state;
    kvp_fit_search s;
    kvp_error err;
    /* Everything fits: the upper bound is the answer, and says so. */
    budget_ctx all = {1000000, 1, 0, KVP_OK};
    assert_int_equal(kvp_fit_search_max(1, 4096, fits_budget, &all, &s, &err), KVP_OK);
    assert_true(s.found);
    assert_int_equal(s.value, 4096);
    assert_true(s.at_upper_bound);
    assert_int_equal(s.evaluations, 2);
    /* Nothing fits: not found, the reason of lo. */
    budget_ctx none = {5, 10, 0, KVP_OK};
    assert_int_equal(kvp_fit_search_max(1, 4096, fits_budget, &none, &s, &err), KVP_OK);
    assert_false(s.found);
    assert_string_equal(s.limited_by, "budget 5 < 10");
    assert_int_equal(s.evaluations, 1);
    /* A one-point range. */
    budget_ctx one = {10, 10, 0, KVP_OK};
    assert_int_equal(kvp_fit_search_max(1, 1, fits_budget, &one, &s, &err), KVP_OK);
    assert_true(s.found);
    assert_int_equal(s.value, 1);
    /* Near 2^64: no overflow in the midpoint. */
    budget_ctx big = {UINT64_MAX - 2, 1, 0, KVP_OK};
    assert_int_equal(kvp_fit_search_max(UINT64_MAX - 5, UINT64_MAX, fits_budget, &big, &s, &err),
                     KVP_OK);
    assert_int_equal(s.value, UINT64_MAX - 2);
    assert_false(s.at_upper_bound);
}

static void test_errors(void **state) {
    (void)state;
    kvp_fit_search s;
    kvp_error err;
    budget_ctx c = {1000, 7, 0, KVP_OK};
    assert_int_equal(kvp_fit_search_max(10, 9, fits_budget, &c, &s, &err), KVP_INVALID_ARG);
    assert_int_equal(kvp_fit_search_max(1, 9, NULL, &c, &s, &err), KVP_INVALID_ARG);
    /* A predicate error stops the search with that error. */
    budget_ctx f = {1000, 7, 0, KVP_CONFIG};
    assert_int_equal(kvp_fit_search_max(1, 1000, fits_budget, &f, &s, &err), KVP_CONFIG);
    assert_int_equal(f.calls, 3);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_boundary),
        cmocka_unit_test(test_every_budget_exact),
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
