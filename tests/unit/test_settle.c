/* test_settle.c — what the options room settles once for every caller (issue 27
 * items 2 and 6): the GPU looked up once and the memory source (settle.h), the
 * --from statements compared (from_parse.h), argv words, engine lists and the
 * planner chosen (argv_words.h), and what a fit question leaves free
 * (fit_request.h). The CLI and kvp_json_call both go through these; each
 * keeps its own wording (flags against request keys). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "fit/fit_request.h"
#include "options/argv_words.h"
#include "options/from_parse.h"
#include "options/settle.h"

static kvp_options *opts(unsigned command, const char *const *kv) {
    kvp_options *o = kvp_options_new(command);
    assert_non_null(o);
    kvp_error e;
    for (size_t i = 0; kv && kv[i]; i += 2) assert_int_equal(kvp_options_set(o, kv[i], kv[i + 1], &e), KVP_OK);
    assert_int_equal(kvp_options_finish(o, &e), KVP_OK);
    return o;
}

/* --gpu h100: the catalogue's H100 SXM 80GB, 85179938897 bytes (79.33 GiB, the
 * figure `kvplan gpus --catalog` lists), the source "catalogue"; --gpu-mem
 * 80GiB = 80 x 2^30 = 85899345920 bytes wins over the GPU's and is the source. */
static void settle_gpu_and_memory(void **state) {
    (void)state;
    kvp_error e;
    kvp__settled s;
    kvp_options *o = opts(KVP_COMMAND_PLAN, (const char *const[]){"--gpu", "h100", NULL});
    assert_int_equal(kvp__options_settle(o, NULL, &s, &e), KVP_OK);
    assert_true(s.gpu_known);
    assert_false(s.gpu_mem);
    assert_string_equal(s.gpu.name, "H100 SXM 80GB");
    assert_int_equal(s.total_bytes, 85179938897ull);
    assert_string_equal(s.total_source, "catalogue");
    kvp_options_free(o);
    o = opts(KVP_COMMAND_PLAN, (const char *const[]){"--gpu-mem", "80GiB", NULL});
    assert_int_equal(kvp__options_settle(o, NULL, &s, &e), KVP_OK);
    assert_false(s.gpu_known);
    assert_int_equal(s.total_bytes, 85899345920ull);
    assert_string_equal(s.total_source, "--gpu-mem");
    kvp_options_free(o);
    o = opts(KVP_COMMAND_PLAN, (const char *const[]){"--gpu", "no-such-gpu-xyz", NULL});
    assert_int_not_equal(kvp__options_settle(o, NULL, &s, &e), KVP_OK);
    kvp_options_free(o);
}

/* One decision, two wordings: a budget beside a GPU's memory, and no memory. */
static void memory_source_wording(void **state) {
    (void)state;
    kvp_error e;
    kvp_deploy_memory m;
    memset(&m, 0, sizeof m);
    m.kv_budget_bytes = 1, m.total_bytes = 2;
    assert_int_equal(kvp__settle_memory_source(&m, true, KVP__NAME_FLAGS, &e), KVP_INVALID_ARG);
    assert_string_equal(e.key, "--kv-budget");
    assert_string_equal(e.message, "--kv-budget plans from a budget directly; drop --gpu / --gpu-mem");
    assert_int_equal(kvp__settle_memory_source(&m, true, KVP__NAME_KEYS, &e), KVP_INVALID_ARG);
    assert_string_equal(e.key, "/kv_budget");
    assert_string_equal(e.message, "kv_budget plans from a budget directly; drop gpu / gpu_mem");
    memset(&m, 0, sizeof m);
    assert_int_equal(kvp__settle_memory_source(&m, true, KVP__NAME_KEYS, &e), KVP_INVALID_ARG);
    assert_string_equal(e.key, "/gpu");
    /* An engine that allocates what it is asked for needs no memory. */
    assert_int_equal(kvp__settle_memory_source(&m, false, KVP__NAME_FLAGS, &e), KVP_OK);
}

/* A flag said twice is one statement when it says the same: 2 and 2.0, 80GiB
 * and its 85899345920 bytes; a negating spelling turns a flag round. */
static void from_same_statement(void **state) {
    (void)state;
    const kvp_option *tp = kvp_option_lookup("--tp", NULL);
    const kvp_option *mem = kvp_option_lookup("--gpu-mem", NULL);
    assert_non_null(tp);
    assert_non_null(mem);
    assert_true(kvp__from_same_statement(tp, "-tp", "2", "--tp", "2.0"));
    assert_false(kvp__from_same_statement(tp, "-tp", "2", "--tp", "4"));
    assert_true(kvp__from_same_statement(mem, "--gpu-mem", "80GiB", "--gpu-mem", "85899345920"));
    assert_false(kvp__from_same_statement(mem, "--gpu-mem", "80GiB", "--gpu-mem", "80GB"));
    const kvp_option *pc = kvp_option_lookup("--enable-prefix-caching", NULL);
    assert_non_null(pc);
    assert_true(kvp__from_same_statement(pc, "--enable-prefix-caching", NULL, "--enable-prefix-caching", "true"));
    assert_false(kvp__from_same_statement(pc, "--enable-prefix-caching", NULL, "--enable-prefix-caching", "false"));
}

/* --from's place in argv: its value, a missing one, a second one. */
static void from_find(void **state) {
    (void)state;
    kvp_error e;
    int at;
    const char *cmd;
    char *a1[] = {"plan", "--gpu", "h100", "--from", "vllm serve M", NULL};
    assert_int_equal(kvp__from_find(5, a1, &at, &cmd, &e), KVP_OK);
    assert_int_equal(at, 3);
    assert_string_equal(cmd, "vllm serve M");
    char *a2[] = {"plan", "--from=x", "--from", "y", NULL};
    assert_int_equal(kvp__from_find(4, a2, &at, &cmd, &e), KVP_INVALID_ARG);
    assert_string_equal(e.message, "--from given twice");
    assert_string_equal(e.key, "--from");
    char *a3[] = {"plan", "--from", NULL};
    assert_int_equal(kvp__from_find(2, a3, &at, &cmd, &e), KVP_INVALID_ARG);
    assert_string_equal(e.message, "--from needs a value: the engine command, quoted");
}

/* An engine list: each engine once, in order; an empty item or an unknown engine refused. */
static void engine_list(void **state) {
    (void)state;
    kvp_error e;
    kvp_engine en[KVP_ENGINE_COUNT];
    size_t n = 0;
    assert_int_equal(kvp__engine_list("vllm,sglang,vllm", "--policies", "--policies", en, &n, &e), KVP_OK);
    assert_int_equal(n, 2);
    assert_int_equal(en[0], KVP_ENGINE_VLLM);
    assert_int_equal(en[1], KVP_ENGINE_SGLANG);
    assert_int_equal(kvp__engine_list("vllm,,sglang", "policies", "/policies", en, &n, &e), KVP_INVALID_ARG);
    assert_string_equal(e.message, "policies: 'vllm,,sglang' holds an empty item (expected a list such as vllm,sglang)");
    assert_string_equal(e.key, "/policies");
    assert_int_equal(kvp__engine_list("vllm,foo", "--policies", "--policies", en, &n, &e), KVP_INVALID_ARG);
    assert_string_equal(e.message, "--policies: unknown engine 'foo' (expected trtllm, vllm, sglang, llamacpp)");
}

/* The planner of `kvplan plan`: the creator by default and for every spelling
 * of TensorRT-LLM; the policies for another engine, named or implied by its
 * own flag; two engines' flags refused naming both. */
static void plan_planner(void **state) {
    (void)state;
    kvp_error e;
    bool creator = false;
    char *a1[] = {"plan", "m", NULL};
    assert_int_equal(kvp__plan_uses_creator(2, a1, NULL, &creator, &e), KVP_OK);
    assert_true(creator);
    char *a2[] = {"plan", "m", "--policy=vllm", NULL};
    assert_int_equal(kvp__plan_uses_creator(3, a2, NULL, &creator, &e), KVP_OK);
    assert_false(creator);
    assert_int_equal(kvp__plan_uses_creator(2, a1, "trtllm", &creator, &e), KVP_OK);
    assert_true(creator);
    char *a3[] = {"plan", "m", "--max-model-len", "4096", NULL};
    assert_int_equal(kvp__plan_uses_creator(4, a3, NULL, &creator, &e), KVP_OK);
    assert_false(creator);
    char *a4[] = {"plan", "m", "--max-model-len", "4096", "-c", "4096", NULL};
    assert_int_equal(kvp__plan_uses_creator(6, a4, NULL, &creator, &e), KVP_INVALID_ARG);
    assert_string_equal(e.key, "-c");
}

/* An option given twice is named; --over repeats, and --from's words are one argument. */
static void repeated(void **state) {
    (void)state;
    char name[64];
    char *a1[] = {"plan", "--tp", "2", "--tp=4", NULL};
    assert_true(kvp__argv_repeated(4, a1, name, sizeof name));
    assert_string_equal(name, "--tp");
    char *a2[] = {"sweep", "--over", "tp=1,2", "--over", "pp=1,2", "--from", "--tp", "--tp", NULL};
    assert_false(kvp__argv_repeated(8, a2, name, sizeof name));
}

/* What a fit question leaves free: tp with GPUs, the concurrency at a given
 * length, else the length; the setting the target varies, given too, named. */
static void fit_left_free(void **state) {
    (void)state;
    kvp_fit_request req;
    kvp_fit_point base;
    memset(&req, 0, sizeof req);
    memset(&base, 0, sizeof base);
    assert_int_equal(kvp__fit_left_free(&req, &(kvp__fit_given){.gpus = true}, &base), KVP__FIT_FREE);
    assert_int_equal(req.solve_for, KVP_FIT_PARALLEL);
    assert_int_equal(kvp__fit_left_free(&req, &(kvp__fit_given){.max_seq_len = true}, &base), KVP__FIT_FREE);
    assert_int_equal(req.solve_for, KVP_FIT_CONCURRENCY);
    assert_int_equal(kvp__fit_left_free(&req, &(kvp__fit_given){0}, &base), KVP__FIT_FREE);
    assert_int_equal(req.solve_for, KVP_FIT_MAX_SEQ_LEN);
    base.tp = 2;
    req.solve_for = KVP_FIT_PARALLEL;
    assert_int_equal(kvp__fit_left_free(&req, &(kvp__fit_given){.solve = true}, &base), KVP__FIT_GIVES_TP);
    req.solve_for = KVP_FIT_MAX_SEQ_LEN;
    assert_int_equal(kvp__fit_left_free(&req, &(kvp__fit_given){.solve = true, .max_seq_len = true}, &base),
                     KVP__FIT_GIVES_LENGTH);
    kvp_fit_target t;
    assert_true(kvp__fit_solve_word("context", &t));
    assert_int_equal(t, KVP_FIT_MAX_SEQ_LEN);
    assert_false(kvp__fit_solve_word("speed", &t));
}

/* A request key as fit_request.h's `name` callback gives it: "--kv-dtype" ->
 * "kv_dtype" (kvp_json_call's words). */
static const char *as_key(const char *flag, char *buf, size_t size) {
    snprintf(buf, size, "%s", flag + 2);
    for (char *p = buf; *p; p++)
        if (*p == '-') *p = '_';
    return buf;
}

/* The conflicts refused once (kvp__fit_conflict_refuse), each caller's words:
 * the flags as they are for the CLI, request keys for kvp_json_call; the key
 * is always the flag of the setting given (the caller's own reading after). */
static void fit_conflict_words(void **state) {
    (void)state;
    kvp_error e;
    const kvp__fit_words cli = {NULL, "use --max-seq-len-limit for the search bound"};
    const kvp__fit_words req = {as_key, "max_seq_len_limit bounds the search"};
    assert_int_equal(kvp__fit_conflict_refuse(KVP__FIT_GIVES_LENGTH, &cli, &e), KVP_INVALID_ARG);
    assert_string_equal(e.key, "--max-seq-len");
    assert_string_equal(e.message, "--solve max-seq-len leaves the length free: drop --max-seq-len "
                                   "(use --max-seq-len-limit for the search bound)");
    kvp__fit_conflict_refuse(KVP__FIT_GIVES_LENGTH, &req, &e);
    assert_string_equal(e.key, "--max-seq-len");
    assert_string_equal(e.message, "solve max-seq-len leaves the length free: drop max_seq_len "
                                   "(max_seq_len_limit bounds the search)");
    kvp__fit_conflict_refuse(KVP__FIT_GIVES_TP, &cli, &e);
    assert_string_equal(e.key, "--tp");
    assert_string_equal(e.message, "--solve tp leaves --tp free: drop --tp");
    kvp__fit_conflict_refuse(KVP__FIT_GIVES_KV_DTYPE, &req, &e);
    assert_string_equal(e.key, "--kv-dtype");
    assert_string_equal(e.message, "solve kv-dtype leaves kv_dtype free: drop kv_dtype");
    kvp__fit_conflict_refuse(KVP__FIT_GIVES_CONCURRENCY, &cli, &e);
    assert_string_equal(e.key, "--concurrency");
    assert_string_equal(e.message, "--solve concurrency leaves --concurrency free: drop it");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(settle_gpu_and_memory), cmocka_unit_test(memory_source_wording),
        cmocka_unit_test(from_same_statement),   cmocka_unit_test(from_find),
        cmocka_unit_test(engine_list),           cmocka_unit_test(plan_planner),
        cmocka_unit_test(repeated),              cmocka_unit_test(fit_left_free),
        cmocka_unit_test(fit_conflict_words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
