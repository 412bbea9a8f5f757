/* test_options.c — the one option table (kvplan/options.h): lookup by every
 * spelling, one message per error kind, the fields each row sets, the engine a
 * spelling chooses, contradictions named by both sides, --engine-version. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kvplan/options.h"

static kvp_options *g_o;
static kvp_error g_err;

static int setup(void **state) {
    (void)state;
    g_o = kvp_options_new(KVP_COMMAND_PLAN);
    kvp_error_clear(&g_err);
    return g_o ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    kvp_options_free(g_o);
    return 0;
}

static kvp_status set(const char *name, const char *value) {
    kvp_error_clear(&g_err);
    return kvp_options_set(g_o, name, value, &g_err);
}

static void test_lookup_spellings(void **state) {
    (void)state;
    size_t sp = 99;
    const kvp_option *r = kvp_option_lookup("--max-seq-len", &sp);
    assert_non_null(r);
    assert_string_equal(r->field, "max_seq_len");
    assert_int_equal(sp, 0);
    /* Every engine's spelling and the JSON keys land on the same row. */
    const char *const same[] = {"--max-model-len", "--context-length", "--max_seq_len",
                                "max_seq_len", "max-seq-len", "MAX_SEQ_LEN", NULL};
    for (size_t i = 0; same[i]; i++) assert_ptr_equal(kvp_option_lookup(same[i], NULL), r);
    /* "--tp_size" (TRT-LLM) and "--tp-size" (SGLang) differ by '_' only: exact first. */
    const kvp_option *tp = kvp_option_lookup("--tp_size", &sp);
    assert_non_null(tp);
    assert_string_equal(tp->spellings[sp - 1].name, "--tp_size");
    assert_ptr_equal(kvp_option_lookup("--tp-size", &sp), tp);
    assert_string_equal(tp->spellings[sp - 1].name, "--tp-size");
    /* Short spellings match exactly only. */
    assert_non_null(kvp_option_lookup("-c", NULL));
    assert_null(kvp_option_lookup("c", NULL));
    assert_null(kvp_option_lookup("--no-such-option", NULL));
    assert_ptr_equal(kvp_option_for_field("max_seq_len"), r);
    assert_null(kvp_option_for_field("no_field"));
}

static void test_table_consistent(void **state) {
    (void)state;
    /* Row i has id i, a long name and a field; no spelling is two rows'. */
    assert_true(kvp_option_count() <= KVP_OPTIONS_MAX);
    for (size_t i = 0; i < kvp_option_count(); i++) {
        const kvp_option *r = kvp_option_at(i);
        assert_int_equal(r->id, (int)i);
        assert_true(!strncmp(r->name, "--", 2));
        assert_non_null(r->field);
        assert_non_null(r->help);
        assert_ptr_equal(kvp_option_lookup(r->name, NULL), r);
        for (size_t k = 0; k < KVP_OPTION_SPELLINGS_MAX && r->spellings[k].name; k++)
            assert_ptr_equal(kvp_option_lookup(r->spellings[k].name, NULL), r);
    }
    assert_null(kvp_option_at(kvp_option_count()));
}

static void test_values_set_fields(void **state) {
    (void)state;
    assert_int_equal(set("--gpu-mem", "80GiB"), KVP_OK);
    assert_int_equal(g_o->deployment.memory.total_bytes, 80ull << 30); /* 80 * 2^30 */
    assert_int_equal(set("--activation-peak", "1.5GiB"), KVP_OK);
    assert_true(g_o->deployment.memory.has_activation_peak);
    assert_int_equal(g_o->deployment.memory.activation_peak_bytes, 3ull << 29); /* 1.5 * 2^30 */
    assert_int_equal(set("--cuda-graph", "512MiB"), KVP_OK);
    assert_int_equal(g_o->deployment.memory.cuda_graph_bytes, 512ull << 20);
    assert_int_equal(set("tp", "4"), KVP_OK);
    assert_int_equal(g_o->deployment.point.tp, 4);
    assert_int_equal(g_o->deployment.policy.tp, 4);
    assert_int_equal(set("--max-seq-len", "32k"), KVP_OK);
    assert_int_equal(g_o->deployment.point.max_seq_len, 32768); /* 32 * 1024 */
    assert_int_equal(set("--kv-manager", "v1"), KVP_OK);
    assert_int_equal(g_o->deployment.kv.use_v2, -1);
    assert_int_equal(set("--no-enable-chunked-prefill", NULL), KVP_OK);
    assert_int_equal(g_o->startup.enable_chunked_prefill, 0);
    assert_int_equal(set("--trust-remote-code", "true"), KVP_OK);
    assert_true(g_o->startup.trust_remote_code);
    assert_int_equal(set("--dtype", "bfloat16"), KVP_OK);
    assert_int_equal(g_o->startup.dtype, KVP_RUN_DTYPE_BFLOAT16);
    assert_int_equal(set("--env", "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1"), KVP_OK);
    assert_int_equal(set("--env", "A=2"), KVP_OK); /* --env repeats */
    assert_int_equal(g_o->startup.env_count, 2);
    assert_int_equal(set("--flash-attn", NULL), KVP_OK); /* alone: on */
    assert_int_equal(g_o->deployment.policy.flash_attn, 1);
    assert_true(kvp_options_given(g_o, "--tp"));
    assert_false(kvp_options_given(g_o, "--pp"));
    assert_string_equal(kvp_options_typed(g_o, "--tp"), "tp");
}

/* One message per kind, naming the option as spelled. */
static void test_error_kinds(void **state) {
    (void)state;
    assert_int_equal(set("--tp", NULL), KVP_INVALID_ARG);
    assert_string_equal(g_err.message, "--tp needs a value");
    assert_string_equal(g_err.key, "--tp");
    assert_int_equal(set("--tp", "0"), KVP_INVALID_ARG);
    assert_string_equal(g_err.message, "--tp: 0 is out of range, expected 1 to 65536");
    assert_int_equal(set("-tp", "x"), KVP_INVALID_ARG);
    assert_string_equal(g_err.message, "-tp: count 'x' is not a number");
    assert_int_equal(set("--gpu-mem", "0"), KVP_INVALID_ARG);
    assert_string_equal(g_err.message, "--gpu-mem: 0 bytes; expected a positive size");
    assert_int_equal(set("--weights", "-1GiB"), KVP_INVALID_ARG);
    assert_string_equal(g_err.message, "--weights: byte size '-1GiB' is negative");
    assert_int_equal(set("--gpu-memory-utilization", "1.5"), KVP_INVALID_ARG);
    assert_string_equal(g_err.message, "--gpu-memory-utilization: 1.5 is not a fraction in (0, 1]");
    assert_int_equal(set("--kv-manager", "v3"), KVP_INVALID_ARG);
    assert_string_equal(g_err.message, "--kv-manager: 'v3' is not one of auto, v1, v2");
    assert_int_equal(set("--enforce-eager", "maybe"), KVP_INVALID_ARG);
    assert_string_equal(g_err.message, "--enforce-eager: 'maybe' is not true or false");
    assert_int_equal(set("--kv-dtype", "fp8_e4m3_but_much_longer_than_23"), KVP_INVALID_ARG);
    assert_string_equal(g_err.message,
                        "--kv-dtype: 'fp8_e4m3_but_much_longer_than_23' is too long (at most 23 bytes)");
    assert_int_equal(set("--dtype", "fp8"), KVP_INVALID_ARG);
    assert_int_equal(set("--policy", "tgi"), KVP_INVALID_ARG);
    assert_string_equal(g_err.message,
                        "--policy: unknown engine 'tgi' (expected trtllm, vllm, sglang, llamacpp)");
    assert_int_equal(set("--nope", "1"), KVP_NOT_FOUND);
    assert_string_equal(g_err.key, "--nope");
    /* 2^32 tokens is the bound; one above is refused. */
    assert_int_equal(set("--max-seq-len", "4294967297"), KVP_INVALID_ARG);
    assert_int_equal(set("--max-seq-len", "4294967296"), KVP_OK);
    /* Only vLLM's spelling takes -1 (the longest that fits). */
    assert_int_equal(set("--seq-len", "-1"), KVP_INVALID_ARG);
}

static void test_twice_and_contradictions(void **state) {
    (void)state;
    assert_int_equal(set("--tp", "2"), KVP_OK);
    assert_int_equal(set("--tp", "4"), KVP_INVALID_ARG);
    assert_string_equal(g_err.message, "--tp given twice");
    assert_int_equal(set("-tp", "4"), KVP_INVALID_ARG);
    assert_string_equal(g_err.message, "-tp contradicts --tp: both set tp; give one");
    /* --gpu with --gpu-mem, --peak with --activation-peak: at finish, both named. */
    assert_int_equal(set("--gpu", "h100"), KVP_OK);
    assert_int_equal(set("--gpu-mem", "80GiB"), KVP_OK);
    assert_int_equal(kvp_options_finish(g_o, &g_err), KVP_INVALID_ARG);
    assert_string_equal(g_err.message,
                        "--gpu contradicts --gpu-mem: give --gpu or --gpu-mem, not both");
}

static void test_peak_pair(void **state) {
    (void)state;
    assert_int_equal(set("--peak", "20GiB"), KVP_OK);
    assert_int_equal(set("--activation-peak", "4GiB"), KVP_OK);
    assert_int_equal(kvp_options_finish(g_o, &g_err), KVP_INVALID_ARG);
    assert_string_equal(g_err.key, "--activation-peak");
}

static void test_engine_from_spelling(void **state) {
    (void)state;
    /* vLLM's --max-model-len without --policy: vLLM, said in the notes. */
    assert_int_equal(set("--max-model-len", "8192"), KVP_OK);
    assert_int_equal(set("--tp", "2"), KVP_OK); /* kvplan's name: no engine */
    assert_int_equal(kvp_options_finish(g_o, &g_err), KVP_OK);
    assert_int_equal(g_o->deployment.point.engine, KVP_ENGINE_VLLM);
    assert_int_equal(g_o->startup.policy.engine, KVP_ENGINE_VLLM);
    assert_int_equal(g_o->notes.count, 1);
    assert_non_null(strstr(g_o->notes.text[0], "--max-model-len is vLLM's flag"));
}

static void test_engine_spellings_conflict(void **state) {
    (void)state;
    assert_int_equal(set("--context-length", "8192"), KVP_OK); /* SGLang */
    assert_int_equal(set("-c", "8192"), KVP_OK);               /* llama.cpp */
    assert_int_equal(kvp_options_finish(g_o, &g_err), KVP_INVALID_ARG);
    assert_string_equal(g_err.message,
                        "--context-length is SGLang's flag and -c is llama.cpp's: give --policy to "
                        "say which engine");
}

static void test_policy_wins_and_ignored_warned(void **state) {
    (void)state;
    assert_int_equal(set("--policy", "trtllm"), KVP_OK);
    assert_int_equal(set("--max-model-len", "8192"), KVP_OK); /* read as max_seq_len */
    assert_int_equal(set("--gpu-memory-utilization", "0.8"), KVP_OK);
    assert_int_equal(kvp_options_finish(g_o, &g_err), KVP_OK);
    assert_int_equal(g_o->deployment.point.engine, KVP_ENGINE_TRTLLM);
    assert_int_equal(g_o->deployment.point.max_seq_len, 8192);
    assert_int_equal(g_o->notes.count, 0);
    /* The vLLM fraction is not TRT-LLM's: warned, not dropped silently. */
    assert_int_equal(g_o->warnings.count, 1);
    assert_string_equal(g_o->warnings.text[0],
                        "--gpu-memory-utilization is not a TensorRT-LLM setting; policy trtllm "
                        "does not read it");
}

static void test_engine_version(void **state) {
    (void)state;
    kvp_error e;
    assert_int_equal(kvp_engine_version_check(KVP_ENGINE_VLLM, "0.9.1", &e), KVP_OK);
    assert_int_equal(kvp_engine_version_check(KVP_ENGINE_VLLM, "v1-mid", &e), KVP_OK);
    assert_int_equal(kvp_engine_version_check(KVP_ENGINE_LLAMACPP, "b7217 (77334097)", &e), KVP_OK);
    assert_int_equal(kvp_engine_version_check(KVP_ENGINE_SGLANG, "pre-11309", &e), KVP_OK);
    assert_int_equal(kvp_engine_version_check(KVP_ENGINE_TRTLLM, "2025", &e), KVP_OK);
    assert_int_equal(kvp_engine_version_check(KVP_ENGINE_TRTLLM, "1999", &e), KVP_INVALID_ARG);
    assert_int_equal(kvp_engine_version_check(KVP_ENGINE_VLLM, "banana", &e), KVP_INVALID_ARG);
    assert_string_equal(e.message,
                        "engine_version: 'banana' is not a vllm version kvplan knows; expected a "
                        "release (0.9.1), or v0, v1-jan25, v1-mid, v1-new, latest");
    /* Through the options: refused at finish, named by the option. */
    assert_int_equal(set("--policy", "vllm"), KVP_OK);
    assert_int_equal(set("--engine-version", "banana"), KVP_OK);
    assert_int_equal(kvp_options_finish(g_o, &g_err), KVP_INVALID_ARG);
    assert_string_equal(g_err.key, "--engine-version");
    assert_true(!strncmp(g_err.message, "--engine-version: 'banana' is not a vllm version", 48));
}

static void test_command_mask(void **state) {
    (void)state;
    /* Every row is taken by plan; the deployment commands share the settings. */
    for (size_t i = 0; i < kvp_option_count(); i++) {
        const kvp_option *r = kvp_option_at(i);
        assert_true(r->commands & KVP_COMMAND_PLAN);
        assert_true(r->commands & KVP_COMMAND_FIT);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_lookup_spellings, setup, teardown),
        cmocka_unit_test_setup_teardown(test_table_consistent, setup, teardown),
        cmocka_unit_test_setup_teardown(test_values_set_fields, setup, teardown),
        cmocka_unit_test_setup_teardown(test_error_kinds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_twice_and_contradictions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_peak_pair, setup, teardown),
        cmocka_unit_test_setup_teardown(test_engine_from_spelling, setup, teardown),
        cmocka_unit_test_setup_teardown(test_engine_spellings_conflict, setup, teardown),
        cmocka_unit_test_setup_teardown(test_policy_wins_and_ignored_warned, setup, teardown),
        cmocka_unit_test_setup_teardown(test_engine_version, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command_mask, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
