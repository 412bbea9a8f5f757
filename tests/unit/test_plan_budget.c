/* test_plan_budget.c — CacheCost, the budget formula, the multimodal reserve,
 * the allocator fraction and the context-MLA workspace (src/plan/budget.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "kvplan/plan.h"
#include "plan_rules.h"

#define GiB (1024ull * 1024 * 1024)
#define MiB (1024ull * 1024)

static void affine_tokens_for_budget(void **state) {
    (void)state;
    kvp_affine_cost c = {131072, 0};
    /* Llama-3.1-8B bf16: 40 GiB / 131072 B = 42949672960 / 131072 = 327680 tokens. */
    assert_int_equal(kvp_affine_tokens_for_budget(c, 40 * GiB), 327680);
    /* Affine: (1000 - 100) // 7 = 128 (128 * 7 = 896, 129 * 7 = 903 > 900). */
    kvp_affine_cost a = {7, 100};
    assert_int_equal(kvp_affine_tokens_for_budget(a, 1000), 128);
    /* Intercept larger than the budget clamps to 0 (seed: max(..., 0)). */
    assert_int_equal(kvp_affine_tokens_for_budget(a, 99), 0);
    /* Budget exactly the intercept: (100 - 100) // 7 = 0. */
    assert_int_equal(kvp_affine_tokens_for_budget(a, 100), 0);
    /* Zero slope: the seed returns 0, not infinity. */
    kvp_affine_cost z = {0, 5};
    assert_int_equal(kvp_affine_tokens_for_budget(z, 1000), 0);
}

static void affine_bytes_for_tokens(void **state) {
    (void)state;
    kvp_affine_cost a = {7, 100};
    uint64_t b = 0;
    /* 7 * 128 + 100 = 996. */
    assert_int_equal(kvp_affine_bytes_for_tokens(a, 128, &b, NULL), KVP_OK);
    assert_int_equal(b, 996);
    /* 0 tokens still pay the intercept. */
    assert_int_equal(kvp_affine_bytes_for_tokens(a, 0, &b, NULL), KVP_OK);
    assert_int_equal(b, 100);
    kvp_affine_cost big = {UINT64_MAX / 2, 0};
    kvp_error err;
    assert_int_equal(kvp_affine_bytes_for_tokens(big, 3, &b, &err), KVP_OVERFLOW);
    assert_string_equal(err.key, "max_tokens");
    /* (7,100) + (5,1) = (12,101). */
    kvp_affine_cost s;
    assert_int_equal(kvp_affine_add(a, (kvp_affine_cost){5, 1}, &s, NULL), KVP_OK);
    assert_int_equal(s.slope_bytes_per_token, 12);
    assert_int_equal(s.intercept_bytes, 101);
    assert_int_equal(kvp_affine_add(big, big, &s, NULL), KVP_OK); /* 2*(2^63-1) fits */
    assert_int_equal(kvp_affine_add(s, big, &s, NULL), KVP_OVERFLOW);
}

static void budget_formula(void **state) {
    (void)state;
    uint64_t b = 0;
    /* (80 GiB - 69.5 GiB + 0) * 0.9 = 10.5 GiB * 0.9 = 11274289152 * 0.9 = 10146860236.8
     * -> int() = 10146860236. */
    uint64_t peak = 69 * GiB + GiB / 2;
    assert_int_equal(kvp_budget_bytes(80 * GiB, peak, 0, 0.9, &b, NULL), KVP_OK);
    assert_int_equal(b, 10146860236ull);
    /* Bytes the estimation pass allocated are added back: (100 - 60 + 10) * 0.5 = 25. */
    assert_int_equal(kvp_budget_bytes(100, 60, 10, 0.5, &b, NULL), KVP_OK);
    assert_int_equal(b, 25);
    /* Peak above total + allocated: nothing left, an error instead of a negative budget. */
    kvp_error err;
    assert_int_equal(kvp_budget_bytes(100, 120, 10, 0.9, &b, &err), KVP_INFEASIBLE);
    assert_string_equal(err.key, "peak");
    /* Peak equal to total + allocated: a zero budget is allowed. */
    assert_int_equal(kvp_budget_bytes(100, 110, 10, 0.9, &b, NULL), KVP_OK);
    assert_int_equal(b, 0);
    /* Fractions outside (0, 1]. */
    assert_int_equal(kvp_budget_bytes(100, 10, 0, 0.0, &b, &err), KVP_INVALID_ARG);
    assert_string_equal(err.key, "free_gpu_memory_fraction");
    assert_int_equal(kvp_budget_bytes(100, 10, 0, 1.5, &b, NULL), KVP_INVALID_ARG);
    assert_int_equal(kvp_budget_bytes(100, 10, 0, 1.0, &b, NULL), KVP_OK);
    assert_int_equal(b, 90);
}

static void profiled_peak(void **state) {
    (void)state;
    uint64_t peak, extra;
    /* allocator peak 50, total used 70, allocator used 40: extra 30, peak 80. */
    assert_int_equal(kvp_profiled_peak_bytes(50, 70, 40, &peak, &extra, NULL), KVP_OK);
    assert_int_equal(extra, 30);
    assert_int_equal(peak, 80);
    /* Allocator reports more than the device: extra clamps to 0. */
    assert_int_equal(kvp_profiled_peak_bytes(50, 30, 40, &peak, &extra, NULL), KVP_OK);
    assert_int_equal(extra, 0);
    assert_int_equal(peak, 50);
    assert_int_equal(kvp_profiled_peak_bytes(UINT64_MAX, 2, 1, &peak, NULL, NULL), KVP_OVERFLOW);
}

static void multimodal_reserve(void **state) {
    (void)state;
    uint64_t r;
    /* Output budget 1000, 300 profiled -> 700 unprofiled; cache 500 when active = 1200. */
    assert_int_equal(kvp_mm_encoder_reserve_bytes(1000, 300, true, 500, &r, NULL), KVP_OK);
    assert_int_equal(r, 1200);
    /* Inactive cache adds nothing; a profile above the budget clamps to 0. */
    assert_int_equal(kvp_mm_encoder_reserve_bytes(1000, 3000, false, 500, &r, NULL), KVP_OK);
    assert_int_equal(r, 0);
    assert_int_equal(kvp_mm_encoder_reserve_bytes(UINT64_MAX, 0, true, 1, &r, NULL),
                     KVP_OVERFLOW);
}

static void allocator_fraction(void **state) {
    (void)state;
    double f = 0;
    /* (free 40 GiB + reserved 8 GiB - 32 MiB) / 80 GiB = (49152 - 32) MiB / 81920 MiB
     * = 49120 / 81920 = 0.599609375 exactly. */
    assert_int_equal(kvp_allocator_fraction(40 * GiB, 8 * GiB, 80 * GiB, &f, NULL), KVP_OK);
    assert_true(f == 0.599609375);
    kvp_error err;
    assert_int_equal(kvp_allocator_fraction(16 * MiB, 8 * MiB, 80 * GiB, &f, &err),
                     KVP_INVALID_ARG);
    assert_int_equal(kvp_allocator_fraction(1, 1, 0, &f, NULL), KVP_INVALID_ARG);
}

static kvp_mla_workspace_policy policy(void) {
    kvp_mla_workspace_policy p;
    memset(&p, 0, sizeof p);
    p.workspace_is_chunked_prefill_bounded = true;
    p.max_batch_size = 64;
    p.max_num_tokens = 8192;
    p.max_seq_len = 4096;
    return p;
}

static void mla_kv_len_cap(void **state) {
    (void)state;
    uint64_t cap = 0;
    kvp_mla_workspace_policy p = policy();
    /* No reuse, no chunking: the profile covers the workspace (seed None). */
    assert_false(kvp_mla_workspace_kv_len_cap(&p, &cap, NULL));
    /* Reuse without chunked prefill: worst case min(64, 8192) * 4096 = 262144. */
    p.enable_block_reuse = true;
    assert_true(kvp_mla_workspace_kv_len_cap(&p, &cap, NULL));
    assert_int_equal(cap, 262144);
    /* Override below max_seq_len is floored at 4096. */
    p.has_kv_len_cap_override = true;
    p.kv_len_cap_override = 100;
    assert_true(kvp_mla_workspace_kv_len_cap(&p, &cap, NULL));
    assert_int_equal(cap, 4096);
    /* Override above the worst case is capped at 262144. */
    p.kv_len_cap_override = 10000000;
    assert_true(kvp_mla_workspace_kv_len_cap(&p, &cap, NULL));
    assert_int_equal(cap, 262144);
    /* An override in range passes through. */
    p.kv_len_cap_override = 50000;
    assert_true(kvp_mla_workspace_kv_len_cap(&p, &cap, NULL));
    assert_int_equal(cap, 50000);
    /* Chunked prefill with a bounded, profiled (or not required) chunk: None. */
    p = policy();
    p.enable_block_reuse = true;
    p.enable_chunked_prefill = true;
    assert_false(kvp_mla_workspace_kv_len_cap(&p, &cap, NULL));
    /* ... SM100 requires the chunk profile; not profiled -> reserve. Batch floor:
     * min(64, 8192) = 64 -> 64 * 4096. With max_num_tokens 16: min = 16 -> 65536. */
    p.require_chunked_workspace_profile = true;
    p.max_num_tokens = 16;
    assert_true(kvp_mla_workspace_kv_len_cap(&p, &cap, NULL));
    assert_int_equal(cap, 65536);
    p.chunked_workspace_profiled = true;
    assert_false(kvp_mla_workspace_kv_len_cap(&p, &cap, NULL));
    /* An unbounded implementation (NVFP4 DSA gather) always reserves under chunking. */
    p.workspace_is_chunked_prefill_bounded = false;
    assert_true(kvp_mla_workspace_kv_len_cap(&p, &cap, NULL));
    /* Overflow is reported, not wrapped. */
    p.max_seq_len = UINT64_MAX / 2;
    kvp_status st;
    assert_false(kvp_mla_workspace_kv_len_cap(&p, &cap, &st));
    assert_int_equal(st, KVP_OVERFLOW);
}

static void mla_reserve(void **state) {
    (void)state;
    uint64_t cap;
    bool has;
    /* budget 1,000,000, k 70, w 30, cap 1000: w * cap = 30,000 < share
     * 1e6 * 30 / 100 = 300,000 -> reserve 30,000, admission cap 30000 / 30 = 1000. */
    assert_int_equal(kvp_mla_workspace_reserve(1000000, 70, 30, 1000, &cap, &has), 30000);
    assert_true(has);
    assert_int_equal(cap, 1000);
    /* cap 100,000: w * cap = 3,000,000 > share 300,000 -> clamped to 300,000; cap tokens
     * 300000 / 30 = 10000 = budget / (k + w). */
    assert_int_equal(kvp_mla_workspace_reserve(1000000, 70, 30, 100000, &cap, &has), 300000);
    assert_int_equal(cap, 10000);
    /* A fractional share rounds the reserve up so budget - reserve = int(budget - share):
     * 1000 * 1 / 3 = 333.33 -> reserve 334, pool 666 = int(666.67); cap int(333.33/1) = 333. */
    assert_int_equal(kvp_mla_workspace_reserve(1000, 2, 1, 100000, &cap, &has), 334);
    assert_int_equal(cap, 333);
    /* Any zero input: (0, None). */
    assert_int_equal(kvp_mla_workspace_reserve(0, 70, 30, 10, &cap, &has), 0);
    assert_false(has);
    assert_int_equal(kvp_mla_workspace_reserve(100, 70, 0, 10, &cap, &has), 0);
    assert_false(has);
    assert_int_equal(kvp_mla_workspace_reserve(100, 0, 30, 10, &cap, &has), 0);
    assert_int_equal(kvp_mla_workspace_reserve(100, 70, 30, 0, &cap, &has), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(affine_tokens_for_budget), cmocka_unit_test(affine_bytes_for_tokens),
        cmocka_unit_test(budget_formula),           cmocka_unit_test(profiled_peak),
        cmocka_unit_test(multimodal_reserve),       cmocka_unit_test(allocator_fraction),
        cmocka_unit_test(mla_kv_len_cap),           cmocka_unit_test(mla_reserve),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
