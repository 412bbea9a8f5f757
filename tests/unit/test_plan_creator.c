/* test_plan_creator.c — the KvCacheCreator lifecycle (src/plan/creator.c):
 * capacity from measured memory, user caps, V2 derived windows and the
 * pool_ratio arity rule, beam-search fallback, helix, draft and cross splits,
 * the MLA workspace reserve. Every expected number is worked in a comment. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kvplan/plan.h"
#include "plan_fixtures.h"


static const char k_swa[] =
    "{\"model_type\":\"llama\",\"hidden_size\":256,\"num_attention_heads\":4,"
    "\"num_key_value_heads\":2,\"num_hidden_layers\":4,\"head_dim\":64,"
    "\"max_position_embeddings\":4096,\"vocab_size\":1000,\"torch_dtype\":\"bfloat16\","
    "\"sliding_window\":512,\"layer_types\":[\"sliding_attention\",\"full_attention\","
    "\"sliding_attention\",\"full_attention\"]}";

static const char k_eagle[] =
    "{\"architectures\":[\"LlamaForCausalLMEagle3\"],\"model_type\":\"llama\","
    "\"hidden_size\":4096,\"num_attention_heads\":32,\"num_key_value_heads\":8,"
    "\"num_hidden_layers\":1,\"intermediate_size\":14336,\"max_position_embeddings\":2048,"
    "\"vocab_size\":128256,\"torch_dtype\":\"float16\"}";

static void llama70b_measured(void **state) {
    (void)state;
    kvp_model *m = catalog("llama-3.1-70b");
    kvp_deploy_settings d = deploy(2, 8192);
    d.max_cuda_graph_batch_size = 128;
    kvp_kv_config kv;
    memset(&kv, 0, sizeof kv);
    kvp_creator *c = NULL;
    assert_int_equal(kvp_creator_new(m, NULL, &d, &kv, NULL, &c, NULL), KVP_OK);
    assert_int_equal(kvp_creator_manager(c), KVP_MANAGER_PAGED_V1);
    kvp_estimation_plan ep;
    /* Free after loading: 80 - 65.5 - 1.5 = 13 GiB; the workload (65536 tokens, see
     * test_plan_estimation) is below the memory cap 0.9 * 13 GiB / 163840 = 76677. */
    assert_int_equal(kvp_creator_prepare_estimation(c, 13 * GiB, &ep, NULL), KVP_OK);
    assert_true(ep.estimating);
    assert_int_equal(ep.max_tokens, 65536);
    kvp_plan probe;
    assert_int_equal(kvp_creator_build(c, true, &probe, NULL), KVP_OK);
    /* Estimation probes drop explicit offload tiers (none set here: 0 either way). */
    assert_int_equal(probe.managers[KVP_ROLE_TARGET].host_cache_size, 0);
    /* The estimation manager holds the temporary 65536 tokens: 2048 blocks. */
    assert_int_equal(probe.managers[KVP_ROLE_TARGET].pools[0].blocks, 2048);

    kvp_measured_memory mm;
    memset(&mm, 0, sizeof mm);
    mm.total_bytes = 80 * GiB;
    mm.profiled = true;
    mm.allocator_peak_bytes = 68 * GiB;
    mm.non_allocator_bytes = 3 * GiB / 2;
    kvp_capacity cap;
    assert_int_equal(kvp_creator_configure(c, &mm, &cap, NULL), KVP_OK);
    /* peak 69.5 GiB; int((80 - 69.5) GiB * 0.9) = 10146860236 B. */
    assert_int_equal(cap.peak_bytes, 69 * GiB + GiB / 2);
    assert_int_equal(cap.budget_bytes, 10146860236ull);
    assert_int_equal(cap.kv_max_memory_bytes, 10146860236ull);
    /* 80 layers x 4 KV heads per rank x 128 x 2 (K, V) x 2 B = 163840 B/token;
     * 10146860236 // 163840 = 61931 (remainder 85196). */
    assert_int_equal(cap.max_tokens, 61931);
    kvp_plan p;
    assert_int_equal(kvp_creator_build(c, false, &p, NULL), KVP_OK);
    const kvp_manager_plan *t = &p.managers[KVP_ROLE_TARGET];
    assert_int_equal(t->cost.slope_bytes_per_token, 163840);
    assert_int_equal(t->pool_count, 1);
    /* 61931 // 32 = 1935 blocks = 61920 tokens, x 5242880 B per block = 10144972800 B. */
    assert_int_equal(t->pools[0].blocks, 1935);
    assert_int_equal(t->pools[0].tokens, 61920);
    assert_int_equal(t->pools[0].bytes, 10144972800ull);
    assert_false(p.managers[KVP_ROLE_DRAFT].present);
    uint64_t n;
    /* 8192 tokens = 256 blocks per sequence: 1935 // 256 = 7. */
    assert_int_equal(kvp_plan_max_sequences(&p, 8192, 1, &n, NULL), KVP_OK);
    assert_int_equal(n, 7);
    /* Beam 2 doubles the blocks per sequence: 1935 // 512 = 3. */
    assert_int_equal(kvp_plan_max_sequences(&p, 8192, 2, &n, NULL), KVP_OK);
    assert_int_equal(n, 3);
    assert_int_equal(kvp_plan_longest_sequence(&p, 1), 61920);
    kvp_creator_free(c);
    kvp_model_free(m);
}

static void user_caps(void **state) {
    (void)state;
    kvp_model *m = catalog("llama-3.1-70b");
    kvp_deploy_settings d = deploy(2, 8192);
    kvp_kv_config kv;
    memset(&kv, 0, sizeof kv);
    kv.has_max_tokens = true;
    kv.max_tokens = 10000;
    kvp_creator *c = NULL;
    kvp_capacity cap;
    kvp_plan p;
    assert_int_equal(kvp_creator_new(m, NULL, &d, &kv, NULL, &c, NULL), KVP_OK);
    /* min(10 GiB, 10000 x 163840 = 1638400000) -> max_tokens 10000 -> 312 blocks. */
    assert_int_equal(kvp_creator_configure_budget(c, 10 * GiB, &cap, NULL), KVP_OK);
    assert_int_equal(cap.after_max_tokens_bytes, 1638400000ull);
    assert_int_equal(cap.max_tokens, 10000);
    assert_int_equal(kvp_creator_build(c, false, &p, NULL), KVP_OK);
    assert_int_equal(p.managers[KVP_ROLE_TARGET].pools[0].blocks, 312);
    kvp_creator_free(c);

    memset(&kv, 0, sizeof kv);
    kv.max_gpu_total_bytes = GiB;
    assert_int_equal(kvp_creator_new(m, NULL, &d, &kv, NULL, &c, NULL), KVP_OK);
    /* max_tokens from 10 GiB = 65536 first, then the byte cap 1 GiB: the manager holds
     * min(65536, 1 GiB // 163840 = 6553) tokens -> 204 blocks = 6528 tokens. */
    assert_int_equal(kvp_creator_configure_budget(c, 10 * GiB, &cap, NULL), KVP_OK);
    assert_int_equal(cap.max_tokens, 65536);
    assert_int_equal(cap.kv_max_memory_bytes, GiB);
    assert_int_equal(kvp_creator_build(c, false, &p, NULL), KVP_OK);
    assert_int_equal(p.managers[KVP_ROLE_TARGET].pools[0].tokens, 6528);
    kvp_creator_free(c);
    /* An explicit host tier: kept by the final managers, dropped by the estimation probes. */
    memset(&kv, 0, sizeof kv);
    kv.host_cache_size = 4 * GiB;
    assert_int_equal(kvp_creator_new(m, NULL, &d, &kv, NULL, &c, NULL), KVP_OK);
    kvp_estimation_plan ep;
    assert_int_equal(kvp_creator_prepare_estimation(c, 13 * GiB, &ep, NULL), KVP_OK);
    assert_int_equal(kvp_creator_build(c, true, &p, NULL), KVP_OK);
    assert_int_equal(p.managers[KVP_ROLE_TARGET].host_cache_size, 0);
    assert_int_equal(kvp_creator_configure_budget(c, 10 * GiB, &cap, NULL), KVP_OK);
    assert_int_equal(kvp_creator_build(c, false, &p, NULL), KVP_OK);
    assert_int_equal(p.managers[KVP_ROLE_TARGET].host_cache_size, 4 * GiB);
    /* Building before configuring is refused. */
    kvp_creator_free(c);
    assert_int_equal(kvp_creator_new(m, NULL, &d, &kv, NULL, &c, NULL), KVP_OK);
    kvp_error err;
    assert_int_equal(kvp_creator_build(c, false, &p, &err), KVP_INVALID_ARG);
    kvp_creator_free(c);
    /* Bad settings. */
    kv.free_gpu_memory_fraction = 1.5;
    assert_int_equal(kvp_creator_new(m, NULL, &d, &kv, NULL, &c, &err), KVP_INVALID_ARG);
    assert_null(c);
    kvp_model_free(m);
}

static void v2_windows(void **state) {
    (void)state;
    kvp_model *m = load(k_swa);
    kvp_deploy_settings d = deploy(1, 4096);
    d.max_batch_size = 8;
    d.trtllm_rules = KVP_TRTLLM_RULES_2025; /* the window alone (2026: test_plan_seed) */
    kvp_kv_config kv;
    memset(&kv, 0, sizeof kv);
    kv.use_v2 = 1;
    kvp_creator *c = NULL;
    kvp_capacity cap;
    kvp_plan p;
    assert_int_equal(kvp_creator_new(m, NULL, &d, &kv, NULL, &c, NULL), KVP_OK);
    assert_int_equal(kvp_creator_configure_budget(c, 8 * MiB, &cap, NULL), KVP_OK);
    assert_int_equal(kvp_creator_build(c, false, &p, NULL), KVP_OK);
    const kvp_manager_plan *t = &p.managers[KVP_ROLE_TARGET];
    /* Derived windows [512, 4096, 512, 4096]: a sliding pool (2 layers x 2 heads x 64 x
     * 2 x 2 B = 1024 B/token) and a full pool (1024 B/token). V2 charges the window pool
     * in the intercept: ceil(512/32)*32 = 512 tokens x 1024 B x 8 sequences = 4194304 B. */
    assert_true(t->vswa);
    assert_int_equal(t->pool_count, 2);
    assert_int_equal(t->cost.slope_bytes_per_token, 1024);
    assert_int_equal(t->cost.intercept_bytes, 4194304);
    /* (8 MiB - 4 MiB) / 1024 = 4096 tokens = 128 blocks for the full pool; the sliding
     * pool keeps 16 blocks x 8 sequences = 128 blocks. */
    for (uint32_t i = 0; i < t->pool_count; i++) {
        assert_int_equal(t->pools[i].blocks, 128);
        if (t->pools[i].window_tokens) assert_true(t->pools[i].in_intercept);
    }
    uint64_t n;
    /* Sequences of 1024 tokens: the full pool holds 128 / 32 = 4 (the window pool is
     * sized for max_batch_size and does not limit). */
    assert_int_equal(kvp_plan_max_sequences(&p, 1024, 1, &n, NULL), KVP_OK);
    assert_int_equal(n, 4);
    kvp_creator_free(c);

    /* A pool_ratio with one entry for two derived layer groups: warning, single pool. */
    double ratio[] = {1.0};
    kv.pool_ratio = ratio;
    kv.pool_ratio_count = 1;
    assert_int_equal(kvp_creator_new(m, NULL, &d, &kv, NULL, &c, NULL), KVP_OK);
    assert_int_equal(kvp_creator_configure_budget(c, 8 * MiB, &cap, NULL), KVP_OK);
    assert_int_equal(kvp_creator_build(c, false, &p, NULL), KVP_OK);
    t = &p.managers[KVP_ROLE_TARGET];
    assert_false(t->vswa);
    assert_int_equal(t->pool_count, 1);
    assert_int_equal(t->cost.slope_bytes_per_token, 2048);
    assert_int_equal(t->cost.intercept_bytes, 0);
    /* 8 MiB / 2048 = 4096 tokens = 128 blocks. */
    assert_int_equal(t->pools[0].blocks, 128);
    const kvp_notes *notes = kvp_creator_notes(c);
    bool found = false;
    for (uint32_t i = 0; i < notes->count; i++)
        found |= strstr(notes->text[i], "pool_ratio has 1 entries") != NULL;
    assert_true(found);
    kvp_creator_free(c);

    /* Paged v1 never derives windows: one full pool at 2048 B/token. */
    kv.pool_ratio = NULL;
    kv.pool_ratio_count = 0;
    kv.use_v2 = -1;
    assert_int_equal(kvp_creator_new(m, NULL, &d, &kv, NULL, &c, NULL), KVP_OK);
    assert_int_equal(kvp_creator_configure_budget(c, 8 * MiB, &cap, NULL), KVP_OK);
    assert_int_equal(kvp_creator_build(c, false, &p, NULL), KVP_OK);
    assert_int_equal(p.managers[KVP_ROLE_TARGET].pool_count, 1);
    kvp_creator_free(c);

    /* User windows on v1 select VSWA: equal shares per distinct window. 8 MiB / 2 = 4 MiB
     * each; each window group has 2 layers at 512 B/token = 1024 B/token -> 4096 tokens =
     * 128 blocks per window. */
    uint64_t win[] = {512, 4096};
    kv.max_attention_window = win;
    kv.max_attention_window_count = 2;
    assert_int_equal(kvp_creator_new(m, NULL, &d, &kv, NULL, &c, NULL), KVP_OK);
    assert_int_equal(kvp_creator_configure_budget(c, 8 * MiB, &cap, NULL), KVP_OK);
    assert_int_equal(kvp_creator_build(c, false, &p, NULL), KVP_OK);
    t = &p.managers[KVP_ROLE_TARGET];
    assert_true(t->vswa);
    assert_int_equal(t->pool_count, 2);
    assert_int_equal(t->pools[0].blocks, 128);
    assert_int_equal(t->pools[1].blocks, 128);
    kvp_creator_free(c);
    kvp_model_free(m);
}

static void beam_and_hybrid(void **state) {
    (void)state;
    kvp_model *m = catalog("llama-3.1-8b");
    kvp_deploy_settings d = deploy(1, 4096);
    d.max_beam_width = 4;
    kvp_kv_config kv;
    memset(&kv, 0, sizeof kv);
    kv.use_v2 = 1;
    kvp_creator *c = NULL;
    assert_int_equal(kvp_creator_new(m, NULL, &d, &kv, NULL, &c, NULL), KVP_OK);
    /* V2 with beam search falls back to paged v1. */
    assert_int_equal(kvp_creator_manager(c), KVP_MANAGER_PAGED_V1);
    kvp_creator_free(c);
    kvp_model_free(m);

    m = catalog("qwen3-next-80b-a3b-thinking");
    kvp_error err;
    assert_int_equal(kvp_creator_new(m, NULL, &d, NULL, NULL, &c, &err), KVP_UNSUPPORTED);
    assert_non_null(strstr(err.message, "max_beam_width=1"));
    /* Beam 1 at TP 4: hybrid-v2 (auto), slope 12 attention layers x 1 replicated head x
     * 256 x 2 x 2 B = 12288; intercept (256 + 1) slots x 36 layers x (8192/4*3*2 +
     * 32/4*128*128*2) B = 257 x 9879552 = 2539044864. */
    d = deploy(4, 4096);
    d.max_batch_size = 256;
    kvp_kv_config kv0;
    memset(&kv0, 0, sizeof kv0);
    assert_int_equal(kvp_creator_new(m, NULL, &d, &kv0, NULL, &c, NULL), KVP_OK);
    assert_int_equal(kvp_creator_manager(c), KVP_MANAGER_HYBRID_V2);
    kvp_capacity cap;
    kvp_plan p;
    assert_int_equal(kvp_creator_configure_budget(c, 10 * GiB, &cap, NULL), KVP_OK);
    assert_int_equal(kvp_creator_build(c, false, &p, NULL), KVP_OK);
    const kvp_manager_plan *t = &p.managers[KVP_ROLE_TARGET];
    assert_int_equal(t->cost.slope_bytes_per_token, 12288);
    assert_int_equal(t->cost.intercept_bytes, 2539044864ull);
    /* (10737418240 - 2539044864) // 12288 = 667188 tokens -> 20849 blocks. */
    uint32_t full = t->pools[0].kind == KVP_CACHE_FULL ? 0 : 1;
    assert_int_equal(t->pools[full].blocks, 20849);
    assert_int_equal(t->pools[1 - full].blocks, 257);
    /* A budget below the recurrent state of all slots leaves no tokens. */
    assert_int_equal(kvp_creator_configure_budget(c, GiB, &cap, NULL), KVP_OK);
    assert_int_equal(kvp_creator_build(c, false, &p, NULL), KVP_OK);
    assert_int_equal(kvp_plan_longest_sequence(&p, 1), 0);
    kvp_creator_free(c);
    kvp_model_free(m);
}

/* Device memory near 2^64 (a hostile probe or caller): fraction 1.0 x free
 * rounds to 2^64 as a double, which does not fit uint64_t. The V2 byte cap
 * saturates instead of wrapping (a float-cast overflow UBSan caught in CI). */
static void huge_free_memory(void **state) {
    (void)state;
    kvp_model *m = catalog("llama-3.1-8b");
    kvp_deploy_settings d = deploy(1, 4096);
    kvp_kv_config kv;
    memset(&kv, 0, sizeof kv);
    kv.use_v2 = 1;
    kv.free_gpu_memory_fraction = 1.0;
    kvp_creator *c = NULL;
    assert_int_equal(kvp_creator_new(m, NULL, &d, &kv, NULL, &c, NULL), KVP_OK);
    kvp_estimation_plan ep;
    kvp_error err;
    kvp_status st = kvp_creator_prepare_estimation(c, UINT64_MAX, &ep, &err);
    if (st == KVP_OK) assert_int_equal(ep.max_gpu_total_bytes, UINT64_MAX);
    else assert_int_equal(st, KVP_OVERFLOW);
    kvp_creator_free(c);
    kvp_model_free(m);
}

static void helix(void **state) {
    (void)state;
    kvp_model *m = catalog("llama-3.1-8b");
    kvp_deploy_settings d = deploy(1, 4096);
    d.cp = 2;
    d.helix_cp = true;
    kvp_kv_config kv;
    memset(&kv, 0, sizeof kv);
    kv.use_v2 = 1;
    kvp_creator *c = NULL;
    assert_int_equal(kvp_creator_new(m, NULL, &d, &kv, NULL, &c, NULL), KVP_OK);
    kvp_estimation_plan ep;
    /* CP: no profiling pass; helix on V2 skips estimation. */
    assert_int_equal(kvp_creator_prepare_estimation(c, 10 * GiB, &ep, NULL), KVP_OK);
    assert_false(ep.estimating);
    assert_true(ep.skip_estimation);
    kvp_capacity cap;
    /* int(10 GiB * 0.9) = 9663676416 B, a rank-local byte cap. */
    assert_int_equal(kvp_creator_configure_helix(c, 10 * GiB, &cap, NULL), KVP_OK);
    assert_true(cap.helix);
    assert_int_equal(cap.kv_max_memory_bytes, 9663676416ull);
    kvp_creator_free(c);
    /* An explicit quota passes through. */
    kv.max_gpu_total_bytes = 5 * GiB;
    assert_int_equal(kvp_creator_new(m, NULL, &d, &kv, NULL, &c, NULL), KVP_OK);
    assert_int_equal(kvp_creator_configure_helix(c, 10 * GiB, &cap, NULL), KVP_OK);
    assert_int_equal(cap.kv_max_memory_bytes, 5 * GiB);
    kvp_creator_free(c);
    /* The drafter under helix is dense over tp x cp = 2 ranks (8 heads -> 4 per rank):
     * 1 layer x 4 x 128 x 2 x 2 B = 2048 B per draft token, x cp 2 per rank-local target
     * token = 4096. */
    kvp_model *dm = load(k_eagle);
    kvp_deploy_settings hd = d;
    hd.spec_mode = KVP_SPEC_EAGLE3;
    hd.max_draft_len = 3;
    hd.separate_draft_kv_cache = 1;
    kv.max_gpu_total_bytes = 0;
    assert_int_equal(kvp_creator_new(m, dm, &hd, &kv, NULL, &c, NULL), KVP_OK);
    assert_int_equal(kvp_creator_configure_helix(c, 10 * GiB, &cap, NULL), KVP_OK);
    kvp_plan p;
    assert_int_equal(kvp_creator_build(c, false, &p, NULL), KVP_OK);
    assert_int_equal(p.managers[KVP_ROLE_DRAFT].cost.slope_bytes_per_token, 4096);
    kvp_creator_free(c);
    kvp_model_free(dm);
    /* Helix on v1 is rejected. */
    kv.use_v2 = -1;
    kvp_error err;
    assert_int_equal(kvp_creator_new(m, NULL, &d, &kv, NULL, &c, NULL), KVP_OK);
    assert_int_equal(kvp_creator_configure_helix(c, 10 * GiB, &cap, &err), KVP_UNSUPPORTED);
    kvp_creator_free(c);
    kvp_model_free(m);
}

static void eagle3_draft(void **state) {
    (void)state;
    kvp_model *m = catalog("llama-3.1-8b");
    kvp_model *dm = load(k_eagle);
    kvp_deploy_settings d = deploy(1, 4096);
    d.spec_mode = KVP_SPEC_EAGLE3;
    d.max_draft_len = 3;
    d.separate_draft_kv_cache = 1;
    kvp_kv_config kv;
    memset(&kv, 0, sizeof kv);
    kv.use_v2 = 1;
    kvp_creator *c = NULL;
    kvp_capacity cap;
    kvp_plan p;
    assert_int_equal(kvp_creator_new(m, dm, &d, &kv, NULL, &c, NULL), KVP_OK);
    assert_int_equal(kvp_creator_configure_budget(c, 1000000000, &cap, NULL), KVP_OK);
    assert_int_equal(kvp_creator_build(c, false, &p, NULL), KVP_OK);
    const kvp_manager_plan *t = &p.managers[KVP_ROLE_TARGET], *dr = &p.managers[KVP_ROLE_DRAFT];
    assert_true(dr->present);
    /* Target 131072 B/token, draft 1 layer x 8 x 128 x 2 x 2 = 4096 B/token. V2 with a
     * separate draft splits the GPU budget by slope: draft 1e9 * 4096 // 135168 =
     * 30303030 B, target 969696970 B; both hold 7398 tokens -> 231 blocks. */
    assert_int_equal(dr->cost.slope_bytes_per_token, 4096);
    assert_int_equal(dr->max_gpu_total_bytes, 30303030);
    assert_int_equal(t->max_gpu_total_bytes, 969696970);
    assert_int_equal(t->pools[0].blocks, 231);
    assert_int_equal(dr->pools[0].blocks, 231);
    kvp_creator_free(c);

    /* Folded (no separate draft cache): the draft layer joins the target manager as a 33rd
     * layer of the same geometry: 33 x 4096 = 135168 B/token. */
    d.separate_draft_kv_cache = -1;
    assert_int_equal(kvp_creator_new(m, dm, &d, &kv, NULL, &c, NULL), KVP_OK);
    assert_int_equal(kvp_creator_configure_budget(c, 1000000000, &cap, NULL), KVP_OK);
    assert_int_equal(kvp_creator_build(c, false, &p, NULL), KVP_OK);
    assert_false(p.managers[KVP_ROLE_DRAFT].present);
    assert_int_equal(p.managers[KVP_ROLE_TARGET].cost.slope_bytes_per_token, 135168);
    kvp_creator_free(c);

    /* Contradictions: no max_draft_len; a draft whose hidden size differs. */
    kvp_error err;
    d.max_draft_len = 0;
    assert_int_equal(kvp_creator_new(m, dm, &d, &kv, NULL, &c, &err), KVP_CONFIG);
    assert_string_equal(err.key, "max_draft_len");
    kvp_model_free(m);
    m = catalog("llama-3.1-70b");
    d.max_draft_len = 3;
    assert_int_equal(kvp_creator_new(m, dm, &d, &kv, NULL, &c, &err), KVP_CONFIG);
    assert_string_equal(err.key, "/hidden_size");
    /* MTP on a model without MTP layers. */
    d.spec_mode = KVP_SPEC_MTP;
    assert_int_equal(kvp_creator_new(m, NULL, &d, &kv, NULL, &c, &err), KVP_CONFIG);
    assert_string_equal(err.key, "/num_nextn_predict_layers");
    kvp_model_free(m);
    kvp_model_free(dm);
}

static void mtp_and_mla_reserve(void **state) {
    (void)state;
    kvp_model *m = catalog("deepseek-v3");
    kvp_deploy_settings d = deploy(8, 4096);
    d.attention_workspace_bytes_per_token = 1000;
    kvp_kv_config kv;
    memset(&kv, 0, sizeof kv);
    kv.enable_block_reuse = true;
    kvp_creator *c = NULL;
    kvp_capacity cap;
    kvp_plan p;
    assert_int_equal(kvp_creator_new(m, NULL, &d, &kv, NULL, &c, NULL), KVP_OK);
    assert_int_equal(kvp_creator_configure_budget(c, 10 * GiB, &cap, NULL), KVP_OK);
    /* k = 61 x 576 x 2 = 70272 B/token; cap = min(2048, 8192) x 4096 = 8388608 tokens;
     * w x cap = 8388608000 > 10 GiB x 1000 / 71272 = 150654089.12 -> reserve that,
     * rounded up to 150654090 B; admission cap int(150654.089) = 150654 tokens. */
    assert_int_equal(cap.mla_workspace_reserve_bytes, 150654090);
    assert_true(cap.has_mla_kv_len_cap);
    assert_int_equal(cap.mla_kv_len_cap_tokens, 150654);
    /* Pool: (10737418240 - 150654090) // 70272 = 150654 tokens, the same count. */
    assert_int_equal(cap.max_tokens, 150654);
    kvp_creator_free(c);

    /* MTP: one next-n layer folded into the target on the last stage: 62 x 1152. */
    d = deploy(8, 4096);
    d.spec_mode = KVP_SPEC_MTP;
    d.max_draft_len = 1;
    assert_int_equal(kvp_creator_new(m, NULL, &d, &kv, NULL, &c, NULL), KVP_OK);
    assert_int_equal(kvp_creator_configure_budget(c, 10 * GiB, &cap, NULL), KVP_OK);
    assert_int_equal(kvp_creator_build(c, false, &p, NULL), KVP_OK);
    assert_int_equal(p.managers[KVP_ROLE_TARGET].cost.slope_bytes_per_token, 62 * 1152);
    kvp_creator_free(c);
    kvp_model_free(m);
}

static void encoder_decoder(void **state) {
    (void)state;
    kvp_model *m = catalog("whisper-large-v3");
    kvp_deploy_settings d = deploy(1, 1500);
    kvp_kv_config kv;
    memset(&kv, 0, sizeof kv);
    kvp_creator *c = NULL;
    kvp_error err;
    assert_int_equal(kvp_creator_new(m, NULL, &d, &kv, NULL, &c, &err), KVP_CONFIG);
    assert_string_equal(err.key, "cross_kv_cache_fraction");
    kv.has_cross_kv_cache_fraction = true;
    kv.cross_kv_cache_fraction = 0.5;
    assert_int_equal(kvp_creator_new(m, NULL, &d, &kv, NULL, &c, NULL), KVP_OK);
    kvp_estimation_plan ep;
    assert_int_equal(kvp_creator_prepare_estimation(c, 10 * GiB, &ep, NULL), KVP_OK);
    assert_false(ep.estimating);
    assert_true(ep.skip_estimation);
    kvp_capacity cap;
    kvp_plan p;
    /* Self 32 x 20 x 64 x 2 x 2 = 163840 B/token plus cross 163840: max_tokens
     * 1 GiB // 327680 = 3276. Each pool gets int(1 GiB * 0.5) = 536870912 B, i.e.
     * 3276 tokens -> 102 blocks = 3264 tokens. */
    assert_int_equal(kvp_creator_configure_budget(c, GiB, &cap, NULL), KVP_OK);
    assert_int_equal(cap.max_tokens, 3276);
    assert_int_equal(kvp_creator_build(c, false, &p, NULL), KVP_OK);
    assert_true(p.managers[KVP_ROLE_CROSS].present);
    assert_int_equal(p.managers[KVP_ROLE_CROSS].max_gpu_total_bytes, 536870912);
    assert_int_equal(p.managers[KVP_ROLE_TARGET].max_gpu_total_bytes, 536870912);
    assert_int_equal(p.managers[KVP_ROLE_CROSS].pools[0].blocks, 102);
    assert_int_equal(p.managers[KVP_ROLE_TARGET].pools[0].blocks, 102);
    /* The cross pool holds 1500 encoder tokens (47 blocks) per sequence: 102 // 47 = 2. */
    uint64_t n;
    assert_int_equal(kvp_plan_max_sequences(&p, 448, 1, &n, NULL), KVP_OK);
    assert_int_equal(n, 2);
    kvp_creator_free(c);
    kvp_model_free(m);
    /* A decoder-only model rejects a cross fraction. */
    m = catalog("llama-3.1-8b");
    assert_int_equal(kvp_creator_new(m, NULL, &d, &kv, NULL, &c, &err), KVP_CONFIG);
    kvp_model_free(m);
}


/* Allocator that fails after `left` successful allocations. */
typedef struct failing {
    int left;
    int live;
} failing;
static void *f_malloc(void *ctx, size_t n) {
    failing *f = ctx;
    if (f->left-- <= 0) return NULL;
    f->live++;
    return malloc(n);
}
static void *f_realloc(void *ctx, void *p, size_t n) {
    failing *f = ctx;
    if (f->left-- <= 0) return NULL;
    if (!p) f->live++;
    return realloc(p, n);
}
static void f_free(void *ctx, void *p) {
    failing *f = ctx;
    if (p) f->live--;
    free(p);
}

static void allocation_failures(void **state) {
    (void)state;
    kvp_model *m = load(k_swa);
    kvp_deploy_settings d = deploy(1, 4096);
    uint64_t win[] = {512, 4096};
    double ratio[] = {1.0, 1.0};
    kvp_kv_config kv;
    memset(&kv, 0, sizeof kv);
    kv.max_attention_window = win;
    kv.max_attention_window_count = 2;
    kv.pool_ratio = ratio;
    kv.pool_ratio_count = 2;
    /* Fail the 0th, 1st, 2nd ... allocation until creation succeeds: each failure is a
     * clean KVP_NOMEM with nothing left allocated. */
    int n;
    for (n = 0; n < 16; n++) {
        failing f = {n, 0};
        kvp_allocator alc = {f_malloc, f_realloc, f_free, &f};
        kvp_creator *c = NULL;
        kvp_error err;
        kvp_status st = kvp_creator_new(m, NULL, &d, &kv, &alc, &c, &err);
        if (st == KVP_OK) {
            kvp_creator_free(c);
            assert_int_equal(f.live, 0);
            break;
        }
        assert_int_equal(st, KVP_NOMEM);
        assert_null(c);
        assert_int_equal(f.live, 0);
    }
    assert_int_equal(n, 3); /* the creator, the window list, the pool ratios */
    kvp_model_free(m);
}

static void two_model_v2_and_vanilla(void **state) {
    (void)state;
    kvp_model *m = catalog("llama-3.1-8b");
    kvp_model *dm = catalog("llama-3.2-1b");
    kvp_deploy_settings d = deploy(1, 8192);
    d.spec_mode = KVP_SPEC_TWO_MODEL;
    d.max_draft_len = 3;
    kvp_kv_config kv;
    memset(&kv, 0, sizeof kv);
    kv.use_v2 = 1;
    kvp_creator *c = NULL;
    kvp_capacity cap;
    kvp_plan p;
    assert_int_equal(kvp_creator_new(m, dm, &d, &kv, NULL, &c, NULL), KVP_OK);
    assert_int_equal(kvp_creator_configure_budget(c, 20 * GiB, &cap, NULL), KVP_OK);
    assert_int_equal(kvp_creator_build(c, false, &p, NULL), KVP_OK);
    /* Target 131072 + draft (Llama-3.2-1B: 16 layers x 8 x 64 x 2 x 2 = 32768) B/token.
     * No GPU split on V2 two-model: build_managers hands each V2 manager the whole
     * quota (divergence 8). Target: 20 GiB // 131072 = 163840 tokens = 5120 blocks;
     * draft: 20 GiB // 32768 = 655360 tokens = 20480 blocks; 40 GiB together.
     * (Before the fix both were planned at the common count 20 GiB // 163840 = 131072
     * tokens: 4096 blocks each, 20 GiB allocated.) */
    assert_int_equal(p.managers[KVP_ROLE_DRAFT].cost.slope_bytes_per_token, 32768);
    assert_int_equal(p.managers[KVP_ROLE_TARGET].max_gpu_total_bytes, 20 * GiB);
    assert_int_equal(p.managers[KVP_ROLE_DRAFT].max_gpu_total_bytes, 20 * GiB);
    assert_int_equal(p.managers[KVP_ROLE_TARGET].pools[0].blocks, 5120);
    assert_int_equal(p.managers[KVP_ROLE_DRAFT].pools[0].blocks, 20480);
    assert_int_equal(p.allocated_bytes, 40 * GiB);
    kvp_creator_free(c);
    /* A two-model draft needs a draft model. */
    kvp_error err;
    assert_int_equal(kvp_creator_new(m, NULL, &d, &kv, NULL, &c, &err), KVP_CONFIG);
    assert_string_equal(err.key, "draft");
    /* The VANILLA backend runs no profiling pass. */
    d = deploy(1, 8192);
    d.attn_backend = "VANILLA";
    assert_int_equal(kvp_creator_new(m, NULL, &d, &kv, NULL, &c, NULL), KVP_OK);
    kvp_estimation_plan ep;
    assert_int_equal(kvp_creator_prepare_estimation(c, 10 * GiB, &ep, NULL), KVP_OK);
    assert_false(ep.estimating);
    assert_false(ep.skip_estimation);
    kvp_creator_free(c);
    kvp_model_free(dm);
    kvp_model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(llama70b_measured), cmocka_unit_test(user_caps),
        cmocka_unit_test(v2_windows),        cmocka_unit_test(beam_and_hybrid),
        cmocka_unit_test(helix), cmocka_unit_test(huge_free_memory),             cmocka_unit_test(eagle3_draft),
        cmocka_unit_test(mtp_and_mla_reserve), cmocka_unit_test(encoder_decoder),
        cmocka_unit_test(allocation_failures), cmocka_unit_test(two_model_v2_and_vanilla),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
