/* test_vllm_2026_rules.c — vLLM's 2026 sizing rules (ADMISSION.md "vLLM (V1)",
 * ENGINES.md 1.3), each on both sides of its release boundary (0.25.0, src/engines/vllm/
 * vllm.c VLLM_*_RELEASE) and for "latest" (no version). Figures worked by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kvplan/model.h"
#include "kvplan/deploy.h"
#include "kvplan/policy.h"
#include "model/model_internal.h"
#include "plan_fixtures.h"
#include "policy_fixtures.h"

/* llama8b(): 2 x 8 x 128 x 2 = 4 KiB per token and layer, a 16-token page 64 KiB. */

static void plan_ok(const kvp_model *m, const kvp_policy_settings *s, kvp_policy_result *r) {
    kvp_error err;
    kvp_status st = kvp_policy_plan(m, s, r, &err);
    if (st != KVP_OK) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(st, KVP_OK);
}

/* The null block (PR #47272): 8 GiB hold 8 GiB / (32 x 64 KiB) = 4,096 blocks. One
 * 131,072-token request needs 8,192 blocks (16 GiB), so the length is estimated.
 * 0.24: all 4,096 blocks -> 4,096 x 16 = 65,536 tokens. 0.25 and latest: one block
 * kept back -> 4,095 x 16 = 65,520. The block count itself is the same. */
static void test_null_block(void **state) {
    (void)state;
    kvp_model *m = llama8b();
    kvp_policy_result r;
    kvp_policy_settings s = vllm("0.24.0", 8ull << 30);
    plan_ok(m, &s, &r);
    assert_int_equal(r.report.num_gpu_blocks, 4096);
    assert_int_equal(r.estimated_max_model_len, 65536);
    s = vllm("0.25.0", 8ull << 30);
    plan_ok(m, &s, &r);
    assert_int_equal(r.report.num_gpu_blocks, 4096);
    assert_int_equal(r.estimated_max_model_len, 65520);
    s = vllm("", 8ull << 30);
    plan_ok(m, &s, &r);
    assert_int_equal(r.estimated_max_model_len, 65520);
    /* Auto-fit adopts it: concurrency 4096 / cdiv(65520, 16) = 4096 / 4095. */
    s.auto_fit_max_model_len = true;
    plan_ok(m, &s, &r);
    assert_int_equal(r.max_model_len, 65520);
    assert_true(r.report.max_concurrency == 4096.0 / 4095.0);
    /* A request of exactly the pool: 2,048 blocks x 2 MiB = 4 GiB at 32,768 tokens
     * fits 0.24's 4 GiB, not latest's (4 GiB - 2 MiB): 2,047 x 16 = 32,752. */
    s = vllm("0.24.0", 4ull << 30);
    s.max_model_len = 32768;
    plan_ok(m, &s, &r);
    assert_int_equal(r.estimated_max_model_len, 0);
    s = vllm("latest", 4ull << 30);
    s.max_model_len = 32768;
    plan_ok(m, &s, &r);
    assert_int_equal(r.estimated_max_model_len, 32752);
    kvp_model_free(m);
}

/* The per-stage check, PP 2 (16 layers per stage), 9 GiB per worker: blocks are
 * 9 GiB / (16 x 64 KiB) = 9,216 either way. 0.24 checks every layer: 8,192 blocks x
 * 32 x 64 KiB = 16 GiB > 9 GiB -> estimated floor(9 GiB / 2 MiB) = 4,608 blocks =
 * 73,728 tokens. 0.25 checks its stage: 8,192 x 1 MiB = 8 GiB <= 9 GiB - 1 MiB (null
 * block) -> fits. At 8 GiB latest still refuses by the null block alone:
 * 8 GiB > 8 GiB - 1 MiB -> 8,191 x 16 = 131,056. */
static void test_per_stage_check(void **state) {
    (void)state;
    kvp_model *m = llama8b();
    kvp_policy_result r;
    kvp_policy_settings s = vllm("0.24.0", 9ull << 30);
    s.pp = 2;
    plan_ok(m, &s, &r);
    assert_int_equal(r.report.num_gpu_blocks, 9216);
    assert_int_equal(r.estimated_max_model_len, 73728);
    s = vllm("0.25.0", 9ull << 30);
    s.pp = 2;
    plan_ok(m, &s, &r);
    assert_int_equal(r.report.num_gpu_blocks, 9216);
    assert_int_equal(r.estimated_max_model_len, 0);
    assert_int_equal(r.needed_bytes, 8ull << 30);
    s = vllm("", 8ull << 30);
    s.pp = 2;
    plan_ok(m, &s, &r);
    assert_int_equal(r.estimated_max_model_len, 131056);
    kvp_model_free(m);
}

/* Page padding: 16 full layers of 8 heads (64 KiB pages) and 16 sliding layers (window
 * 4,096) of 3 heads: 2 x 3 x 128 x 2 x 16 = 24,576 B pages. 65,536 / 24,576 is not a
 * whole number: 0.24 raises NotImplementedError (refused); 0.25 pads the sliding page
 * to 65,536 B, block size 16 kept. Groups of 16 (equal counts): 2 groups; 1 GiB /
 * (65,536 x 16) = 1,024 blocks. */
static void test_page_padding(void **state) {
    (void)state;
    kvp_model *m = kvp__model_new(NULL, "mixed-pages");
    kvp_model_info *i = kvp__model_info(m);
    i->num_layers = 32;
    i->max_position_embeddings = 32768;
    i->head_dim = 128;
    i->dtype = KVP_DTYPE_BF16;
    i->sliding_window = 4096;
    strcpy(i->model_type, "llama");
    for (uint32_t l = 0; l < 32; l++)
        add_window(m, l, l % 2 ? KVP_CACHE_SLIDING : KVP_CACHE_FULL, l % 2 ? 3 : 8, 128, 128,
                   l % 2 ? 4096 : 0);
    kvp_policy_result r;
    kvp_error err;
    kvp_policy_settings s = vllm("0.24.0", 1ull << 30);
    assert_int_equal(kvp_policy_plan(m, &s, &r, &err), KVP_UNSUPPORTED);
    assert_non_null(strstr(err.message, "NotImplementedError"));
    s = vllm("0.25.0", 1ull << 30);
    plan_ok(m, &s, &r);
    assert_int_equal(r.num_groups, 2);
    assert_int_equal(r.page_bytes, 65536);
    assert_int_equal(r.report.num_gpu_blocks, 1024);
    assert_int_equal(r.pools[0].page_bytes, 65536);
    assert_int_equal(r.pools[1].page_bytes, 65536);
    assert_int_equal(r.pools[1].block_size_tokens, 16);
    kvp_model_free(m);
}

/* GDN conv state and speculative tokens, Qwen3.5-27B (shared/models config): conv_dim
 * 2 x 16 x 128 + 48 x 128 = 10,240. Without the rule (0.24) the conv keeps kernel - 1 =
 * 3 columns: 10,240 x 3 x 2 = 61,440 B; SSM 48 x 128 x 128 x 4 = 3,145,728 B; state
 * 3,207,168 -> bs = 16 x cdiv(3,207,168, 16 x 4,096) = 16 x 49 = 784. With 2 speculative
 * tokens (0.25, latest): 5 columns, 102,400 B; state 3,248,128 -> 16 x 50 = 800. */
static void test_gdn_spec_conv(void **state) {
    (void)state;
    kvp_model *m = catalog("Qwen/Qwen3.5-27B");
    kvp_policy_result r;
    kvp_policy_settings s = vllm("0.24.0", 64ull << 30);
    s.max_model_len = 32768;
    s.num_speculative_tokens = 2;
    plan_ok(m, &s, &r);
    assert_int_equal(r.block_size, 784);
    s = vllm("0.25.0", 64ull << 30);
    s.max_model_len = 32768;
    s.num_speculative_tokens = 2;
    plan_ok(m, &s, &r);
    assert_int_equal(r.block_size, 800);
    s = vllm("", 64ull << 30);
    s.max_model_len = 32768;
    s.num_speculative_tokens = 2;
    plan_ok(m, &s, &r);
    assert_int_equal(r.block_size, 800);
    /* No speculative tokens: 784 whatever the release. */
    s.num_speculative_tokens = 0;
    plan_ok(m, &s, &r);
    assert_int_equal(r.block_size, 784);
    kvp_model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_block),
        cmocka_unit_test(test_per_stage_check),
        cmocka_unit_test(test_page_padding),
        cmocka_unit_test(test_gdn_spec_conv),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
