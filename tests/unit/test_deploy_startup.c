/* test_deploy_startup.c — the engine's start-up rules inside the one pipeline
 * (kvp_deploy_plan, deploy.h; deploy_startup.c): issue 21's three examples are
 * refused with their rule by the pipeline itself (so plan, fit, sweep, compare
 * and sim all refuse them), an adjustment is what the plan is computed with
 * (the fp16 / fp32 fallback changes the KV and weight bytes), cost and the
 * pipeline agree on TP divisibility, and --disable-rule still switches a rule
 * off. Each boundary is tested on both sides, worked by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kvplan/kvplan.h"

static kvp_model *open_model(const char *name) {
    kvp_model *m = NULL;
    kvp_error err;
    assert_int_equal(kvp_model_open(name, NULL, &m, &err), KVP_OK);
    return m;
}

static kvp_gpu_info gpu(const char *name) {
    kvp_gpu_info g;
    kvp_error err;
    assert_int_equal(kvp_gpu_lookup(name, &g, &err), KVP_OK);
    return g;
}

/* A vLLM deployment of `m` on a catalogue GPU (its capability and memory). */
static kvp_deployment vllm_on(const kvp_model *m, const char *gpu_name, uint32_t tp) {
    kvp_deployment d = kvp_deployment_default();
    d.model = m;
    d.point.engine = KVP_ENGINE_VLLM;
    d.point.tp = tp;
    d.startup.gpu = gpu(gpu_name);
    d.startup.gpu_known = true;
    d.memory.total_bytes = d.startup.gpu.total_bytes;
    return d;
}

/* The row of `rule` in the result's start-up summary (checks that did not pass). */
static const kvp_check_row *row_of(const kvp_deploy_result *r, const char *rule) {
    for (uint32_t i = 0; i < r->startup.count; i++)
        if (!strcmp(r->startup.checks[i].rule, rule)) return &r->startup.checks[i];
    return NULL;
}

static void plan(const kvp_deployment *d, kvp_deploy_result *r) {
    kvp_error err;
    assert_int_equal(kvp_deploy_plan(d, r, &err), KVP_OK);
    assert_true(r->startup.evaluated);
}

/* The refusal the pipeline reports: INFEASIBLE, the rule first in the message and
 * the refusal, the rule's setting as the key, and no start. */
static void assert_refused(const kvp_deploy_result *r, const char *rule, const char *key) {
    char want[32];
    snprintf(want, sizeof want, "%s: ", rule);
    assert_int_equal(r->status, KVP_INFEASIBLE);
    assert_false(r->starts);
    assert_false(r->startup.starts);
    assert_true(r->startup.first_refusal >= 0);
    assert_string_equal(r->startup.checks[r->startup.first_refusal].rule, rule);
    assert_int_equal(strncmp(r->message, want, strlen(want)), 0);
    assert_int_equal(strncmp(r->refusal, want, strlen(want)), 0);
    assert_string_equal(r->key, key);
}

/* qwen3-32b (64 heads, 8 KV heads) under vLLM: 64 % 5 = 4, refused by V-PAR-1
 * (the "plans 1.9 million tokens" at TP 5); 64 % 4 = 0 and 64 % 8 = 0 plan. */
static void test_vllm_tp_heads(void **state) {
    (void)state;
    kvp_model *m = open_model("qwen3-32b");
    kvp_deploy_result *r = kvp_deploy_result_new();
    assert_non_null(r);
    kvp_deployment d = vllm_on(m, "h100", 5);
    plan(&d, r);
    assert_refused(r, "V-PAR-1", "tp");
    assert_non_null(strstr(r->message, "Total number of attention heads (64) must be divisible by "
                                       "tensor parallel size (5)."));
    assert_non_null(strstr(r->startup.checks[r->startup.first_refusal].fix, "1, 2, 4, 8, 16, 32, 64"));
    static const uint32_t ok_tp[] = {4, 8};
    for (size_t i = 0; i < 2; i++) {
        d = vllm_on(m, "h100", ok_tp[i]);
        plan(&d, r);
        assert_int_equal(r->status, KVP_OK);
        assert_true(r->starts);
        assert_null(row_of(r, "V-PAR-1"));
        assert_true(r->max_sequences > 0);
    }
    /* Switched off, the rule no longer refuses (the policy then refuses the heads
     * itself: the cost model's check, KVP_CONFIG). V-PAR-2 tests the 8 KV heads
     * at TP 5 itself (8 % 5 = 3: refused), so it is switched off too. */
    d = vllm_on(m, "h100", 5);
    kvp_error err;
    assert_int_equal(kvp_startup_disable(&d.startup, "V-PAR-1", &err), KVP_OK);
    assert_int_equal(kvp_startup_disable(&d.startup, "V-PAR-2", &err), KVP_OK);
    assert_int_equal(kvp_startup_disable(&d.startup, "V-PAR-3", &err), KVP_OK);
    plan(&d, r);
    assert_null(row_of(r, "V-PAR-1"));
    assert_int_equal(r->startup.disabled_count, 3);
    assert_int_not_equal(r->status, KVP_OK);
    assert_int_equal(strncmp(r->message, "V-PAR-", 6) == 0, 0);
    kvp_deploy_result_free(r);
    kvp_model_free(m);
}

/* cost and the pipeline agree on TP divisibility, for every engine with TP:
 * qwen3-32b plans at TP t exactly when the cost model costs it. */
static void test_cost_and_plan_agree_on_tp(void **state) {
    (void)state;
    kvp_model *m = open_model("qwen3-32b");
    kvp_deploy_result *r = kvp_deploy_result_new();
    assert_non_null(r);
    static const kvp_engine engines[] = {KVP_ENGINE_VLLM, KVP_ENGINE_SGLANG, KVP_ENGINE_TRTLLM};
    for (uint32_t tp = 1; tp <= 16; tp++) {
        kvp_cost_settings cs = kvp_cost_settings_default();
        cs.tp = tp;
        kvp_cost c;
        kvp_error err;
        bool costed = kvp_cost_compute(m, &cs, &c, &err) == KVP_OK;
        for (size_t e = 0; e < 3; e++) {
            kvp_deployment d = kvp_deployment_default();
            d.model = m;
            d.point.engine = engines[e];
            d.point.tp = tp;
            d.point.max_seq_len = 4096;
            d.memory.kv_budget_bytes = UINT64_C(40) << 30;
            plan(&d, r);
            if (costed != (r->status == KVP_OK))
                fail_msg("TP %u, engine %s: cost %s, pipeline %s (%s)", tp,
                         kvp_engine_name(engines[e]), costed ? "costs" : "refuses",
                         r->status == KVP_OK ? "plans" : "refuses", r->message);
            /* A refusal always names a start-up rule: X-PAR-n. */
            if (!costed) assert_non_null(strstr(r->message, "-PAR-"));
        }
    }
    kvp_deploy_result_free(r);
    kvp_model_free(m);
}

/* GPT-NeoX config (max_position_embeddings 2048, no rope scaling, no
 * model_max_length): vLLM's derived max_model_len is 2048. 2048 plans, 2049
 * and 8192 are refused by V-LEN-1 unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1, which
 * turns it into a warning and plans the length asked for. */
static void test_vllm_len_above_derived(void **state) {
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/families/gptneox.json", KVP_SOURCE_DIR);
    kvp_model *m = open_model(path);
    kvp_deploy_result *r = kvp_deploy_result_new();
    assert_non_null(r);
    kvp_deployment d = vllm_on(m, "h100", 1);
    d.point.max_seq_len = 2048;
    plan(&d, r);
    assert_int_equal(r->status, KVP_OK);
    assert_true(r->starts);
    assert_int_equal(r->point.max_seq_len, 2048);
    static const uint64_t over[] = {2049, 8192};
    for (size_t i = 0; i < 2; i++) {
        d.point.max_seq_len = over[i];
        plan(&d, r);
        assert_refused(r, "V-LEN-1", "max_model_len");
        assert_non_null(strstr(r->message, "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1"));
    }
    kvp_error err;
    assert_int_equal(kvp_startup_set_env(&d.startup, "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1", &err),
                     KVP_OK);
    d.point.max_seq_len = 8192;
    plan(&d, r);
    assert_int_equal(r->status, KVP_OK);
    assert_true(r->starts);
    const kvp_check_row *w = row_of(r, "V-LEN-1");
    assert_non_null(w);
    assert_int_equal(w->status, KVP_CHECK_WARN);
    assert_int_equal(r->point.max_seq_len, 8192);
    /* "0" is not a true value: still refused. */
    assert_int_equal(kvp_startup_set_env(&d.startup, "VLLM_ALLOW_LONG_MAX_MODEL_LEN=0", &err),
                     KVP_OK);
    plan(&d, r);
    assert_refused(r, "V-LEN-1", "max_model_len");
    kvp_deploy_result_free(r);
    kvp_model_free(m);
}

/* qwen3-8b (torch_dtype bfloat16) under vLLM: bf16 needs compute capability 8.0.
 * V100 (7.0) with --dtype bfloat16: refused by V-DT-1; with auto: the engine
 * falls back to float16 (adjust) and the KV cache is float16, the same 2 bytes
 * as bf16, so the plan's KV figures equal an A100-identity plan at the same
 * memory. A100 (8.0) with bfloat16: passes. */
static void test_vllm_bf16_capability(void **state) {
    (void)state;
    kvp_model *m = open_model("qwen3-8b");
    kvp_deploy_result *r = kvp_deploy_result_new();
    assert_non_null(r);
    kvp_deployment d = vllm_on(m, "v100-32gb", 1);
    assert_int_equal(d.startup.gpu.compute_capability, 70);
    d.startup.dtype = KVP_RUN_DTYPE_BFLOAT16;
    plan(&d, r);
    assert_refused(r, "V-DT-1", "dtype");
    assert_non_null(strstr(r->message, "compute capability 7.0"));

    d.startup.dtype = KVP_RUN_DTYPE_AUTO;
    plan(&d, r);
    assert_int_equal(r->status, KVP_OK);
    assert_true(r->starts);
    const kvp_check_row *a = row_of(r, "V-DT-1");
    assert_non_null(a);
    assert_int_equal(a->status, KVP_CHECK_ADJUST);
    assert_non_null(strstr(a->message, "Falling back to torch.float16"));
    assert_int_equal(r->startup.run_dtype, KVP_DTYPE_FP16);
    assert_true(r->startup.run_dtype_adjusted);
    assert_int_equal(r->policy.kv_dtype, KVP_DTYPE_FP16);
    uint64_t v100_page = r->policy.page_bytes, v100_tokens = r->tokens;

    /* The same memory with an A100's identity (cc 8.0): bf16 passes, same bytes. */
    kvp_deployment a100 = d;
    a100.startup.gpu = gpu("a100");
    assert_int_equal(a100.startup.gpu.compute_capability, 80);
    a100.startup.dtype = KVP_RUN_DTYPE_BFLOAT16;
    plan(&a100, r);
    assert_int_equal(r->status, KVP_OK);
    assert_null(row_of(r, "V-DT-1"));
    assert_int_equal(r->policy.kv_dtype, KVP_DTYPE_BF16);
    assert_int_equal(r->policy.page_bytes, v100_page);
    assert_int_equal(r->tokens, v100_tokens);
    kvp_deploy_result_free(r);
    kvp_model_free(m);
}

/* gemma-2-9b on a V100 identity under --dtype auto: vLLM excludes float16 for
 * gemma2 and there is no bf16 below 8.0, so it runs in float32 (V-DT-1 adjust):
 * 4-byte weights and KV instead of 2. With 80 GiB of memory, the weights are
 * twice the A100-identity plan's and a KV page is twice as large. */
static void test_vllm_fp32_fallback_doubles_bytes(void **state) {
    (void)state;
    kvp_model *m = open_model("gemma-2-9b");
    kvp_deploy_result *r = kvp_deploy_result_new();
    assert_non_null(r);
    kvp_deployment d = vllm_on(m, "a100", 1);
    d.memory.total_bytes = UINT64_C(80) << 30;
    d.point.max_seq_len = 4096;
    plan(&d, r);
    assert_int_equal(r->status, KVP_OK);
    uint64_t w16 = r->weights_bytes, page16 = r->policy.page_bytes;
    assert_int_equal(r->policy.kv_dtype, KVP_DTYPE_BF16);
    d.startup.gpu = gpu("v100-32gb");
    plan(&d, r);
    assert_int_equal(r->status, KVP_OK);
    assert_true(r->startup.run_dtype_adjusted);
    assert_int_equal(r->startup.run_dtype, KVP_DTYPE_FP32);
    assert_int_equal(r->policy.kv_dtype, KVP_DTYPE_FP32);
    assert_int_equal(r->weights_bytes, 2 * w16);
    assert_int_equal(r->policy.page_bytes, 2 * page16);
    kvp_deploy_result_free(r);
    kvp_model_free(m);
}

/* TensorRT-LLM: T-LEN-1 clamps a max_seq_len above the inferred maximum and the
 * plan uses the clamped one; qwen3-32b at TP 5 is refused by T-PAR-1 (64 % 5). */
static void test_trtllm_rules(void **state) {
    (void)state;
    kvp_model *m = open_model("qwen3-8b");
    const kvp_model_startup *f = kvp_model_get_startup(m);
    kvp_deploy_result *r = kvp_deploy_result_new();
    assert_non_null(r);
    kvp_deployment d = kvp_deployment_default();
    d.model = m;
    d.memory.kv_budget_bytes = UINT64_C(40) << 30;
    d.point.max_seq_len = f->trtllm_max_seq_len + 1;
    plan(&d, r);
    assert_int_equal(r->status, KVP_OK);
    const kvp_check_row *a = row_of(r, "T-LEN-1");
    assert_non_null(a);
    assert_int_equal(a->status, KVP_CHECK_ADJUST);
    assert_int_equal(r->point.max_seq_len, f->trtllm_max_seq_len);
    d.point.max_seq_len = f->trtllm_max_seq_len;
    plan(&d, r);
    assert_null(row_of(r, "T-LEN-1"));
    assert_int_equal(r->point.max_seq_len, f->trtllm_max_seq_len);
    kvp_model_free(m);

    m = open_model("qwen3-32b");
    d.model = m;
    d.point.max_seq_len = 4096;
    d.point.tp = 5;
    plan(&d, r);
    assert_refused(r, "T-PAR-1", "tp");
    d.point.tp = 4;
    plan(&d, r);
    assert_int_equal(r->status, KVP_OK);
    kvp_deploy_result_free(r);
    kvp_model_free(m);
}

/* kvp_deploy_startup_check gives every rule (passes included) on the same
 * evaluation as the result's summary. */
/* kvp_deployment_settle, the step every command and binding takes from its
 * settings: the start-up settings whole (a field set there arrives), a named
 * GPU's identity and memory (the catalogue V100-32GB: 32,510 MiB =
 * 34,089,205,760 B), its memory kept when --gpu-mem gave it, and
 * --quantization read from the start-up settings only; the settled deployment
 * plans as the hand-built one. */
static void test_settle(void **state) {
    (void)state;
    kvp_model *m = open_model("qwen3-8b");
    kvp_startup_settings ss = kvp_startup_settings_default();
    ss.dtype = KVP_RUN_DTYPE_BFLOAT16;
    ss.enforce_eager = true;
    snprintf(ss.quantization, sizeof ss.quantization, "fp8");
    kvp_deployment d = kvp_deployment_default();
    d.model = m;
    d.point.engine = KVP_ENGINE_VLLM;
    d.memory.quantization = ss.quantization; /* as the option table points it */
    kvp_gpu_info v100 = gpu("v100-32gb");
    kvp_deployment_settle(&d, &ss, &v100, false);
    assert_int_equal(d.startup.dtype, KVP_RUN_DTYPE_BFLOAT16);
    assert_true(d.startup.enforce_eager);
    assert_string_equal(d.startup.quantization, "fp8");
    assert_null(d.memory.quantization);
    assert_true(d.startup.gpu_known);
    assert_int_equal(d.startup.gpu.compute_capability, 70);
    assert_int_equal(d.memory.total_bytes, 34089205760ull);
    /* --gpu-mem 20 GiB beside the GPU's identity: the memory given stays. */
    kvp_deployment g = kvp_deployment_default();
    g.memory.total_bytes = 20ull << 30;
    kvp_deployment_settle(&g, NULL, &v100, true);
    assert_int_equal(g.memory.total_bytes, 21474836480ull);
    assert_true(g.startup.gpu_known);
    /* The settled deployment and vllm_on's, with the same start-up flags: one plan. */
    kvp_deploy_result *r1 = kvp_deploy_result_new(), *r2 = kvp_deploy_result_new();
    assert_non_null(r1);
    assert_non_null(r2);
    kvp_deployment h = vllm_on(m, "v100-32gb", 1);
    h.startup.dtype = ss.dtype;
    h.startup.enforce_eager = true;
    snprintf(h.startup.quantization, sizeof h.startup.quantization, "fp8");
    plan(&d, r1);
    plan(&h, r2);
    assert_refused(r1, "V-DT-1", "dtype"); /* bf16 on compute capability 7.0 */
    assert_string_equal(r1->message, r2->message);
    assert_int_equal(r1->weights_bytes, r2->weights_bytes);
    kvp_deploy_result_free(r1);
    kvp_deploy_result_free(r2);
    kvp_model_free(m);
}

static void test_full_report(void **state) {
    (void)state;
    kvp_model *m = open_model("qwen3-32b");
    kvp_deploy_result *r = kvp_deploy_result_new();
    kvp_startup_report *rep = malloc(sizeof *rep);
    assert_non_null(r);
    assert_non_null(rep);
    kvp_deployment d = vllm_on(m, "h100", 5);
    plan(&d, r);
    kvp_error err;
    assert_int_equal(kvp_deploy_startup_check(&d, rep, &err), KVP_OK);
    assert_false(rep->starts);
    assert_string_equal(rep->checks[rep->first_refusal].rule, "V-PAR-1");
    assert_int_equal(rep->count - rep->counts[KVP_CHECK_PASS], r->startup.count + r->startup.dropped);
    for (int k = 0; k < KVP_CHECK_STATUS_COUNT; k++)
        assert_int_equal(rep->counts[k], r->startup.counts[k]);
    assert_true(rep->counts[KVP_CHECK_PASS] > 0);
    /* kvp_deploy_plan_report: the same report and the same result from one plan
     * (as `kvplan check` uses it). */
    kvp_deploy_result *r2 = kvp_deploy_result_new();
    kvp_startup_report *rep2 = malloc(sizeof *rep2);
    assert_non_null(r2);
    assert_non_null(rep2);
    assert_int_equal(kvp_deploy_plan_report(&d, r2, rep2, &err), KVP_OK);
    assert_true(r2->startup.evaluated);
    assert_int_equal(r2->status, r->status);
    assert_string_equal(r2->message, r->message);
    assert_int_equal(rep2->count, rep->count);
    for (int k = 0; k < KVP_CHECK_STATUS_COUNT; k++)
        assert_int_equal(rep2->counts[k], rep->counts[k]);
    assert_string_equal(rep2->checks[rep2->first_refusal].rule, "V-PAR-1");
    assert_int_equal(kvp_deploy_plan_report(&d, r2, NULL, &err), KVP_INVALID_ARG);
    free(rep2);
    kvp_deploy_result_free(r2);
    free(rep);
    kvp_deploy_result_free(r);
    kvp_model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vllm_tp_heads),
        cmocka_unit_test(test_cost_and_plan_agree_on_tp),
        cmocka_unit_test(test_vllm_len_above_derived),
        cmocka_unit_test(test_vllm_bf16_capability),
        cmocka_unit_test(test_vllm_fp32_fallback_doubles_bytes),
        cmocka_unit_test(test_trtllm_rules),
        cmocka_unit_test(test_full_report),
        cmocka_unit_test(test_settle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
