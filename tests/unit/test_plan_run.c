/* test_plan_run.c — the one plan sequence after the settings (plan_run.h,
 * issue 27 item 2) that `kvplan plan` and kvp_json_call's "plan" both run:
 * under every engine the same steps, the creator chosen by the engine's
 * record, and the verdicts the callers say (planned, figures but would not
 * start, a request refused by name, a plan not made). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "options/plan_run.h"

static kvp_options *opts(const char *const *kv) {
    kvp_options *o = kvp_options_new(KVP_COMMAND_PLAN);
    assert_non_null(o);
    kvp_error e;
    for (size_t i = 0; kv[i]; i += 2) assert_int_equal(kvp_options_set(o, kv[i], kv[i + 1], &e), KVP_OK);
    assert_int_equal(kvp_options_finish(o, &e), KVP_OK);
    return o;
}

/* The job of `kv` on llama-3.1-8b, opened; the status of its run. */
static kvp_status run(kvp__plan_job *j, kvp_options **o, const char *const *kv, kvp_error *e) {
    *o = opts(kv);
    assert_int_equal(kvp__plan_job_begin(j, *o, e), KVP_OK);
    assert_int_equal(kvp__plan_job_open(j, "llama-3.1-8b", false, NULL, NULL, e), KVP_OK);
    return kvp__plan_job_run(j, true, e);
}

/* Llama-3.1-8B: 32 layers x 8 KV heads x head dim 128 x (K + V) x 2 bytes (bf16)
 * = 131072 B per token. A 1 GiB budget = 1073741824 / 131072 = 8192 tokens under
 * both: vLLM's blocks of 16 tokens, 16 x 131072 = 2 MiB each, 512 of them;
 * TensorRT-LLM's blocks of 32 tokens, 4 MiB each, 256 of them. 8192 tokens hold
 * 8192 // 4096 = 2 sequences of 4096. */
static void every_engine_one_sequence(void **state) {
    (void)state;
    kvp_error e;
    kvp__plan_job j;
    kvp_options *o;
    const char *vllm[] = {"--policy", "vllm", "--kv-budget", "1GiB", "--max-model-len", "4096", NULL};
    assert_int_equal(run(&j, &o, vllm, &e), KVP_OK);
    assert_false(j.creator); /* vLLM's record: the engine policy plans */
    assert_false(j.figures);
    assert_int_equal(j.r->tokens, 8192);
    assert_int_equal(j.r->blocks, 512);
    assert_int_equal(j.r->block_tokens, 16);
    assert_int_equal(j.r->max_sequences, 2);
    assert_true(j.r->starts);
    assert_non_null(j.rep);
    kvp__plan_job_free(&j);
    kvp_options_free(o);

    const char *trt[] = {"--policy", "trtllm", "--kv-budget", "1GiB", "--max-seq-len", "4096", NULL};
    assert_int_equal(run(&j, &o, trt, &e), KVP_OK);
    assert_true(j.creator); /* TensorRT-LLM's record: creator_plans */
    assert_int_equal(j.r->tokens, 8192);
    assert_int_equal(j.r->blocks, 256);
    assert_int_equal(j.r->block_tokens, 32);
    assert_int_equal(j.r->max_sequences, 2);
    /* The creator's seed rules read the table's settings in place. */
    assert_ptr_equal(j.seed.rules, &o->rules);
    kvp__plan_job_free(&j);
    kvp_options_free(o);
}

/* A prompt of 1000000 tokens past a length of 4096: refused by name (exit 2),
 * under the engine policies before their start-up verdict is said (early),
 * under the creator after it, as `kvplan plan` has always said them. */
static void request_refused_by_name(void **state) {
    (void)state;
    kvp_error e;
    kvp__plan_job j;
    kvp_options *o;
    const char *vllm[] = {"--policy", "vllm", "--kv-budget", "1GiB", "--max-model-len", "4096",
                          "--isl", "1000000", NULL};
    assert_int_equal(run(&j, &o, vllm, &e), KVP_INVALID_ARG);
    assert_true(j.early);
    assert_false(j.not_planned);
    assert_non_null(strstr(e.message, "a prompt of 1000000 tokens is longer than max_seq_len 4096"));
    kvp__plan_job_free(&j);
    kvp_options_free(o);
    const char *trt[] = {"--policy", "trtllm", "--kv-budget", "1GiB", "--max-seq-len", "4096",
                         "--isl", "1000000", NULL};
    assert_int_equal(run(&j, &o, trt, &e), KVP_INVALID_ARG);
    assert_false(j.early);
    kvp__plan_job_free(&j);
    kvp_options_free(o);
}

/* kvp_json_call's entry: the deployment the request settled, planned by the
 * same run; without the start-up report (kvp_deploy_plan alone). */
static void given_deployment(void **state) {
    (void)state;
    kvp_error e;
    kvp__plan_job j;
    kvp_options *o = opts((const char *const[]){"--policy", "sglang", "--kv-budget", "1GiB",
                                                "--context-length", "4096", NULL});
    kvp_model *m = NULL;
    assert_int_equal(kvp_model_open("llama-3.1-8b", NULL, &m, &e), KVP_OK);
    kvp_deployment d = o->deployment;
    d.model = m;
    assert_int_equal(kvp__plan_job_given(&j, o, &d, &e), KVP_OK);
    assert_false(j.creator);
    assert_int_equal(kvp__plan_job_run(&j, false, &e), KVP_OK);
    assert_null(j.rep);
    /* SGLang's pages of 1 token: 8192 tokens of the 1 GiB budget. */
    assert_int_equal(j.r->tokens, 8192);
    kvp__plan_job_free(&j);
    kvp_model_free(m); /* the caller's: the job does not free it */
    kvp_options_free(o);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_engine_one_sequence),
        cmocka_unit_test(request_refused_by_name),
        cmocka_unit_test(given_deployment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
