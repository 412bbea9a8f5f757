/* test_engine_table.c — issue 27 item 1: the one list of engines
 * (kvplan/engines.def) and each engine's record (src/engines/engine_ops.h).
 * The public values are a contract: the list only grows at its end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "engine_ops.h"
#include "startup_internal.h"
#include "kvplan/estimate.h"
#include "kvplan/policy.h"
#include "kvplan/startup.h"

/* The values callers compiled against before the list existed (policy.h,
 * estimate.h on ccc6051): TRTLLM 0, VLLM 1, SGLANG 2, LLAMACPP 3, COUNT 4. */
static void test_public_values(void **state) {
    (void)state;
    assert_int_equal(KVP_ENGINE_TRTLLM, 0);
    assert_int_equal(KVP_ENGINE_VLLM, 1);
    assert_int_equal(KVP_ENGINE_SGLANG, 2);
    assert_int_equal(KVP_ENGINE_LLAMACPP, 3);
    assert_int_equal(KVP_ENGINE_COUNT, 4);
    assert_int_equal(KVP_ESTIMATE_TRTLLM, 0);
    assert_int_equal(KVP_ESTIMATE_VLLM, 1);
    assert_int_equal(KVP_ESTIMATE_SGLANG, 2);
    assert_int_equal(KVP_ESTIMATE_LLAMACPP, 3);
}

/* Names and titles come from the list; every spelling kvp_engine_parse took
 * before (policy.c's alias table on ccc6051) still parses to its engine. */
static void test_names_and_spellings(void **state) {
    (void)state;
    static const char *const names[] = {"trtllm", "vllm", "sglang", "llamacpp"};
    static const char *const titles[] = {"TensorRT-LLM", "vLLM", "SGLang", "llama.cpp"};
    for (int e = 0; e < KVP_ENGINE_COUNT; e++) {
        assert_string_equal(kvp_engine_name((kvp_engine)e), names[e]);
        assert_string_equal(kvp__engine_title((kvp_engine)e), titles[e]);
    }
    assert_string_equal(kvp_engine_name(KVP_ENGINE_COUNT), "unknown");
    assert_string_equal(kvp__engine_title(KVP_ENGINE_COUNT), "?");
    static const struct {
        const char *text;
        kvp_engine e;
    } k[] = {
        {"trtllm", KVP_ENGINE_TRTLLM},       {"trt-llm", KVP_ENGINE_TRTLLM},
        {"tensorrt-llm", KVP_ENGINE_TRTLLM}, {"TensorRT_LLM", KVP_ENGINE_TRTLLM},
        {"vllm", KVP_ENGINE_VLLM},           {"vLLM", KVP_ENGINE_VLLM},
        {"sglang", KVP_ENGINE_SGLANG},       {"llamacpp", KVP_ENGINE_LLAMACPP},
        {"llama.cpp", KVP_ENGINE_LLAMACPP},  {"llama-cpp", KVP_ENGINE_LLAMACPP},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        kvp_engine got = KVP_ENGINE_COUNT;
        assert_int_equal(kvp_engine_parse(k[i].text, &got), KVP_OK);
        assert_int_equal(got, k[i].e);
    }
    kvp_engine got;
    assert_int_equal(kvp_engine_parse("tgi", &got), KVP_INVALID_ARG);
    assert_int_equal(kvp_engine_parse("llama", &got), KVP_INVALID_ARG);
    assert_int_equal(kvp_engine_parse(NULL, &got), KVP_INVALID_ARG);
}

/* Each record is its engine's: the length flag its refusals name, the start-up
 * rule table kvp_startup_rule reads (ids V-, S-, T-, L-), the engine_report
 * fields, fit's dtypes, the sim scheduler; nothing outside the list. */
static void test_records(void **state) {
    (void)state;
    static const char *const flag[] = {"--max-seq-len", "--max-model-len", "--context-length",
                                       "--ctx-size"};
    static const char prefix[] = {'T', 'V', 'S', 'L'};
    static const char *const first_dtype[] = {"auto", "auto", "auto", "f16"};
    static const char *const sim[] = {"trtllm", "vllm", "sglang", NULL};
    for (int e = 0; e < KVP_ENGINE_COUNT; e++) {
        const kvp__engine_ops *ops = kvp__engine_ops_of((kvp_engine)e);
        assert_non_null(ops);
        assert_string_equal(ops->len_flag, flag[e]);
        assert_non_null(ops->plan);
        assert_true(*ops->startup_rule_count > 0);
        assert_int_equal(kvp_startup_rule_count((kvp_engine)e), *ops->startup_rule_count);
        kvp_startup_rule_info info;
        assert_int_equal(kvp_startup_rule((kvp_engine)e, 0, &info), KVP_OK);
        assert_int_equal(info.id[0], prefix[e]);
        assert_string_equal(info.id, ops->startup_rules[0].id);
        assert_string_equal(ops->fit_kv_dtypes[0], first_dtype[e]);
        assert_string_equal(kvp_engine_version_forms((kvp_engine)e), ops->version_forms);
        if (sim[e]) assert_string_equal(ops->sim_policy, sim[e]);
        else assert_null(ops->sim_policy);
    }
    /* vLLM prints its four figures; TensorRT-LLM its two (max_tokens, bytes). */
    assert_int_equal(kvp__engine_ops_of(KVP_ENGINE_VLLM)->report_fields,
                     KVP_REPORT_NUM_GPU_BLOCKS | KVP_REPORT_GPU_KV_CACHE_TOKENS |
                         KVP_REPORT_MAX_CONCURRENCY | KVP_REPORT_AVAILABLE_KV_CACHE_BYTES);
    assert_int_equal(kvp__engine_ops_of(KVP_ENGINE_TRTLLM)->report_fields,
                     KVP_REPORT_MAX_TOKENS | KVP_REPORT_KV_CACHE_BYTES);
    /* Newest releases read: vLLM 0.29.0 = 2,900; TensorRT-LLM 1.3.0 = 10,300. */
    assert_int_equal(kvp__engine_ops_of(KVP_ENGINE_VLLM)->newest_release, 2900);
    assert_int_equal(kvp__engine_ops_of(KVP_ENGINE_TRTLLM)->newest_release, 10300);
    assert_null(kvp__engine_ops_of(KVP_ENGINE_COUNT));
    assert_null(kvp__engine_ops_of((kvp_engine)-1));
    /* vLLM 0.30.0 (3,000 > 2,900) is past the newest: planned with its last line. */
    kvp_engine_release rel;
    kvp_error err;
    assert_int_equal(kvp_engine_release_resolve(KVP_ENGINE_VLLM, "0.30.0", &rel, &err), KVP_OK);
    assert_true(rel.newer_than_known);
    assert_int_equal(kvp_engine_release_resolve(KVP_ENGINE_VLLM, "0.29.3", &rel, &err), KVP_OK);
    assert_false(rel.newer_than_known);
}

/* neutral (issue 27 item 1): every record carries what the pipeline, fit and
 * the reports read in place of a switch on the engine. A record lacking one
 * fails here, not in a command that reaches the missing hook. */
static void test_neutral_required(void **state) {
    (void)state;
    int creators = 0;
    for (int e = 0; e < KVP_ENGINE_COUNT; e++) {
        const kvp__engine_ops *ops = kvp__engine_ops_of((kvp_engine)e);
        assert_non_null(ops->profile);
        assert_non_null(ops->batch_cap_name);
        assert_true(ops->batch_cap_name[0] != '\0');
        if (ops->creator_plans) {
            creators++;
            continue;
        }
        /* A policy's result needs its capacity, admission rule and JSON details. */
        assert_non_null(ops->capacity);
        assert_non_null(ops->admission_rule);
        assert_non_null(ops->details);
        if (ops->fixed_slots) assert_true(ops->max_slots > 0);
        size_t n = 0;
        for (const kvp__engine_detail *d = ops->details; d->name; d++, n++) {
            size_t size = d->kind == KVP__DETAIL_U32 ? sizeof(uint32_t)
                          : d->kind == KVP__DETAIL_U64 ? sizeof(uint64_t)
                                                       : 1;
            assert_true(d->kind != KVP__DETAIL_NONE);
            assert_true(d->offset + size <= sizeof(kvp_policy_result));
            if (d->when_kind != KVP__DETAIL_NONE) assert_true(d->when_kind != KVP__DETAIL_TEXT);
            for (const kvp__engine_detail *o = ops->details; o != d; o++)
                assert_true(strcmp(o->name, d->name) != 0);
        }
        assert_true(n > 0);
    }
    /* The seed's creator plans exactly one engine: TensorRT-LLM. */
    assert_int_equal(creators, 1);
    assert_true(kvp__engine_ops_of(KVP_ENGINE_TRTLLM)->creator_plans);
    assert_true(kvp__engine_ops_of(KVP_ENGINE_TRTLLM)->adopts_reduced_length);
    assert_true(kvp__engine_ops_of(KVP_ENGINE_TRTLLM)->state_sized_for_batch);
    /* Fixed slots, K/V dtypes and no budget: llama.cpp alone (LLAMA_MAX_SEQ 256). */
    for (int e = 0; e < KVP_ENGINE_COUNT; e++) {
        const kvp__engine_ops *ops = kvp__engine_ops_of((kvp_engine)e);
        bool llama = e == KVP_ENGINE_LLAMACPP;
        assert_int_equal(ops->fixed_slots, llama);
        assert_int_equal(ops->kv_dtype_per_k_and_v, llama);
        assert_int_equal(ops->allocates_as_asked, llama);
        assert_int_equal(ops->fit_solves_tp, !llama);
        assert_int_equal(ops->pools_share_block_pool, e == KVP_ENGINE_VLLM);
        assert_int_equal(ops->default_batch_cap != NULL, e == KVP_ENGINE_VLLM);
    }
    assert_int_equal(kvp__engine_ops_of(KVP_ENGINE_LLAMACPP)->max_slots, 256);
}

/* The JSON `engine_details` names are a contract (docs/schema/plan.schema.json):
 * each policy's table lists them in the order the documents print them. */
static void expect_details(kvp_engine e, const char *const *names, size_t n) {
    const kvp__engine_detail *d = kvp__engine_ops_of(e)->details;
    size_t i = 0;
    for (; d[i].name; i++) {
        assert_true(i < n);
        assert_string_equal(d[i].name, names[i]);
    }
    assert_int_equal(i, n);
}

static void test_neutral_details(void **state) {
    (void)state;
    static const char *const vllm[] = {"block_size",         "num_groups",    "group_size",
                                       "page_bytes",         "per_request_blocks",
                                       "max_model_len",      "needed_bytes",
                                       "estimated_max_model_len"};
    static const char *const sglang[] = {"cell_size", "page_size", "context_len",
                                         "swa_max_total_num_tokens", "max_mamba_cache_size"};
    static const char *const llama[] = {
        "n_ctx",          "n_ctx_seq",          "n_seq_max",          "n_stream",
        "type_k",         "type_v",             "kv_layers",          "swa_cells",
        "swa_layers",     "swa_k_size_bytes",   "swa_v_size_bytes",   "recurrent_cells",
        "recurrent_r_size_bytes", "recurrent_s_size_bytes", "indexer_kv_size_bytes",
        "indexer_layers"};
    expect_details(KVP_ENGINE_VLLM, vllm, sizeof vllm / sizeof vllm[0]);
    expect_details(KVP_ENGINE_SGLANG, sglang, sizeof sglang / sizeof sglang[0]);
    expect_details(KVP_ENGINE_LLAMACPP, llama, sizeof llama / sizeof llama[0]);
    /* A member and its kind: SGLang's page_size is the result's block_size (u32),
     * llama.cpp's type_k its kv_dtype_name (text), swa_cells shown with swa layers. */
    const kvp__engine_detail *d = kvp__engine_ops_of(KVP_ENGINE_SGLANG)->details;
    assert_int_equal(d[1].offset, offsetof(kvp_policy_result, block_size));
    assert_int_equal(d[1].kind, KVP__DETAIL_U32);
    assert_int_equal(d[0].kind, KVP__DETAIL_U64);
    d = kvp__engine_ops_of(KVP_ENGINE_LLAMACPP)->details;
    assert_int_equal(d[4].offset, offsetof(kvp_policy_result, kv_dtype_name));
    assert_int_equal(d[4].kind, KVP__DETAIL_TEXT);
    assert_int_equal(d[7].when, offsetof(kvp_policy_result, swa_layers));
    assert_int_equal(d[7].when_kind, KVP__DETAIL_U32);
}

/* The hooks, on results worked by hand. */
static kvp_policy_result g_r;

static void test_neutral_hooks(void **state) {
    (void)state;
    kvp_policy_settings s;
    memset(&s, 0, sizeof s);
    memset(&g_r, 0, sizeof g_r);
    kvp_error err;
    uint64_t left = 0;
    /* vLLM headroom: utilization 0.5 of 1,000 B requests 500 B, 500 B left. */
    s.gpu_memory_utilization = 0.5;
    assert_true(kvp__engine_ops_of(KVP_ENGINE_VLLM)->headroom(&s, &g_r, 1000, 200, &left));
    assert_int_equal(left, 500);
    /* SGLang: X = 1,000 - 200 (pre-load non-torch) = 800; x (1 - 0.75) = 200 B.
     * No fraction: no figure. */
    g_r.mem_fraction_static = 0.75;
    assert_true(kvp__engine_ops_of(KVP_ENGINE_SGLANG)->headroom(&s, &g_r, 1000, 200, &left));
    assert_int_equal(left, 200);
    g_r.mem_fraction_static = 0;
    assert_false(kvp__engine_ops_of(KVP_ENGINE_SGLANG)->headroom(&s, &g_r, 1000, 200, &left));
    assert_null(kvp__engine_ops_of(KVP_ENGINE_LLAMACPP)->headroom);

    /* vLLM: one group, 1,000 blocks of 16 tokens, 16 blocks per request:
     * 1000 / 16 = 62 requests of 256 tokens, under the default cap of 256. */
    memset(&g_r, 0, sizeof g_r);
    g_r.num_groups = 1;
    g_r.per_request_blocks = 16;
    g_r.block_size = 16;
    g_r.pool_count = 1;
    g_r.pools[0].kind = KVP_CACHE_FULL;
    strcpy(g_r.pools[0].name, "full");
    g_r.report.num_gpu_blocks = 1000;
    g_r.report.gpu_kv_cache_tokens = 16000;
    kvp__engine_capacity c;
    memset(&c, 0, sizeof c);
    c.seq_len = 256;
    const kvp__engine_ops *v = kvp__engine_ops_of(KVP_ENGINE_VLLM);
    assert_int_equal(v->capacity(&g_r, &c, &err), KVP_OK);
    assert_int_equal(c.max_sequences, 62);
    assert_int_equal(c.batch_limit, 256);
    assert_int_equal(c.tokens, 16000);
    assert_int_equal(c.blocks, 1000);
    assert_int_equal(c.longest_tokens, 256);
    assert_string_equal(c.binding, "KV budget of pool 'full' (1000 blocks of 16 tokens)");
    /* --max-num-seqs 50 binds first (62 >= 50). */
    c.max_num_seqs = 50;
    assert_int_equal(v->capacity(&g_r, &c, &err), KVP_OK);
    assert_string_equal(c.binding, "max-num-seqs (50)");
    uint64_t blocks = 0;
    uint32_t tpb = 0;
    assert_true(v->steady_pool(&g_r, &blocks, &tpb));
    assert_int_equal(blocks, 1000);
    assert_int_equal(tpb, 16);
    g_r.num_groups = 2; /* several groups: no steady state */
    assert_false(v->steady_pool(&g_r, &blocks, &tpb));

    /* SGLang: 10,000 tokens / 1,000 per request = 10, capped by 4 running requests;
     * pages of 1 token: 10,000 blocks. */
    memset(&g_r, 0, sizeof g_r);
    g_r.block_size = 1;
    g_r.pool_count = 1;
    g_r.report.max_total_num_tokens = 10000;
    g_r.report.max_running_requests = 4;
    memset(&c, 0, sizeof c);
    c.seq_len = 1000;
    assert_int_equal(kvp__engine_ops_of(KVP_ENGINE_SGLANG)->capacity(&g_r, &c, &err), KVP_OK);
    assert_int_equal(c.max_sequences, 10);
    assert_int_equal(c.batch_limit, 4);
    assert_int_equal(c.blocks, 10000);
    assert_string_equal(c.binding, "max running requests (4)");

    /* llama.cpp: 2 slots of 4,096 cells. Weights 600 + compute 100 + runtime 50
     * = 750 B fixed, 250 B left of 1,000; KV 300 B needs 1,050 B: refused; KV
     * 200 B (950 B) fits. */
    memset(&g_r, 0, sizeof g_r);
    g_r.report.cells = 8192;
    g_r.n_seq_max = 2;
    g_r.n_ctx_seq = 4096;
    memset(&c, 0, sizeof c);
    c.seq_len = 4096;
    c.have_mem = true;
    c.total_bytes = 1000;
    c.weights_bytes = 600;
    c.activation_bytes = 100;
    c.runtime_bytes = 50;
    c.kv_bytes = 300;
    const kvp__engine_ops *l = kvp__engine_ops_of(KVP_ENGINE_LLAMACPP);
    assert_int_equal(l->capacity(&g_r, &c, &err), KVP_INFEASIBLE);
    assert_string_equal(err.key, "total_bytes");
    assert_int_equal(c.budget_bytes, 250);
    assert_int_equal(c.block_tokens, 1);
    assert_int_equal(c.max_sequences, 2);
    assert_int_equal(c.longest_tokens, 4096);
    c.kv_bytes = 200;
    assert_int_equal(l->capacity(&g_r, &c, &err), KVP_OK);
    assert_string_equal(c.binding, "--parallel slots (2)");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_public_values),
        cmocka_unit_test(test_names_and_spellings),
        cmocka_unit_test(test_records),
        cmocka_unit_test(test_neutral_required),
        cmocka_unit_test(test_neutral_details),
        cmocka_unit_test(test_neutral_hooks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
