/* test_plan_seed.c — regression tests for the divergences between kvplan and
 * the seed's KvCacheCreator that issue 15 lists (numbered as there). Each test
 * failed before its fix; the comment says what the old value was. Every
 * expected number is worked by hand in a comment. */
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
#include "plan_rules.h"


static kvp_kv_config kvcfg(int32_t use_v2) {
    kvp_kv_config kv;
    memset(&kv, 0, sizeof kv);
    kv.use_v2 = use_v2;
    return kv;
}

static bool has_note(const kvp_notes *n, const char *needle) {
    for (uint32_t i = 0; i < n->count; i++)
        if (strstr(n->text[i], needle)) return true;
    return false;
}

/* 4 layers, sliding 512 on layers 0 and 2, full on 1 and 3; 2 KV heads x 64 x
 * (K + V) x 2 B = 512 B per token per layer. */
#define SWA_BODY                                                                                  \
    "\"model_type\":\"llama\",\"hidden_size\":256,\"num_attention_heads\":4,"                   \
    "\"num_key_value_heads\":2,\"num_hidden_layers\":4,\"head_dim\":64,"                          \
    "\"max_position_embeddings\":4096,\"vocab_size\":1000,\"torch_dtype\":\"bfloat16\","         \
    "\"sliding_window\":512,\"layer_types\":[\"sliding_attention\",\"full_attention\","          \
    "\"sliding_attention\",\"full_attention\"]"
static const char k_swa[] = "{" SWA_BODY "}";
static const char k_swa_mtp[] = "{" SWA_BODY ",\"num_nextn_predict_layers\":1}";
static const char k_swa_no_experts[] = "{" SWA_BODY ",\"num_experts\":0}";

/* An EAGLE3 head whose config states a sliding layout (one sliding layer, 512). */
static const char k_eagle_swa[] =
    "{\"architectures\":[\"LlamaForCausalLMEagle3\"],\"model_type\":\"llama\","
    "\"hidden_size\":4096,\"num_attention_heads\":32,\"num_key_value_heads\":8,"
    "\"num_hidden_layers\":1,\"intermediate_size\":14336,\"max_position_embeddings\":8192,"
    "\"vocab_size\":128256,\"torch_dtype\":\"bfloat16\",\"sliding_window\":512,"
    "\"layer_types\":[\"sliding_attention\"]}";

/* 1: every hybrid branch of _create_kv_cache_manager raises under beam search,
 * and with a KV connector on the final build. */
static void hybrid_beam_and_connector(void **state) {
    (void)state;
    kvp_model *m = catalog("qwen3-next-80b-a3b-thinking");
    kvp_deploy_settings d = deploy(4, 32768);
    d.max_batch_size = 256;
    d.max_beam_width = 2;
    kvp_kv_config kv = kvcfg(-1); /* --kv-manager v1: the hybrid-unified route */
    kvp_creator *c = NULL;
    kvp_error err;
    memset(&err, 0x5a, sizeof err);
    /* Before the fix: KVP_OK, a hybrid-unified plan at beam 2. */
    assert_int_equal(kvp_creator_new(m, NULL, &d, &kv, NULL, &c, &err), KVP_CONFIG);
    assert_null(c);
    assert_string_equal(err.key, "max_beam_width");
    assert_non_null(strstr(err.message, "MambaHybridCacheManager + beam search is not supported"));
    assert_int_equal(kvp_manager_check_beam(KVP_MANAGER_HYBRID_MIXED, 2, NULL), KVP_CONFIG);
    assert_int_equal(kvp_manager_check_beam(KVP_MANAGER_HYBRID_MIXED, 1, NULL), KVP_OK);
    assert_int_equal(kvp_manager_check_beam(KVP_MANAGER_PAGED_V1, 4, NULL), KVP_OK);

    /* Connector: the estimation build is allowed, the final one fails (before: KVP_OK). */
    d.max_beam_width = 1;
    d.has_kv_connector = true;
    assert_int_equal(kvp_creator_new(m, NULL, &d, &kv, NULL, &c, &err), KVP_OK);
    assert_int_equal(kvp_creator_manager(c), KVP_MANAGER_HYBRID_UNIFIED);
    kvp_estimation_plan ep;
    kvp_plan p;
    assert_int_equal(kvp_creator_prepare_estimation(c, 40 * GiB, &ep, NULL), KVP_OK);
    assert_int_equal(kvp_creator_build(c, true, &p, NULL), KVP_OK);
    kvp_capacity cap;
    assert_int_equal(kvp_creator_configure_budget(c, 40 * GiB, &cap, NULL), KVP_OK);
    assert_int_equal(kvp_creator_build(c, false, &p, &err), KVP_UNSUPPORTED);
    assert_string_equal(err.key, "kv_connector");
    kvp_creator_free(c);
    kvp_model_free(m);
}

/* 2: helix with only max_tokens passes the explicit quota through. */
static void helix_max_tokens_only(void **state) {
    (void)state;
    kvp_model *m = catalog("llama-3.1-8b");
    kvp_deploy_settings d = deploy(1, 8192);
    d.cp = 2;
    d.helix_cp = true;
    kvp_kv_config kv = kvcfg(1);
    kv.has_max_tokens = true;
    kv.max_tokens = 65536;
    kvp_creator *c = NULL;
    assert_int_equal(kvp_creator_new(m, NULL, &d, &kv, NULL, &c, NULL), KVP_OK);
    kvp_capacity cap;
    assert_int_equal(kvp_creator_configure_helix(c, 10 * GiB, &cap, NULL), KVP_OK);
    assert_int_equal(cap.kv_max_memory_bytes, 0); /* no byte cap: the token quota decides */
    assert_int_equal(cap.max_tokens, 65536);
    kvp_plan p;
    assert_int_equal(kvp_creator_build(c, false, &p, NULL), KVP_OK);
    const kvp_manager_plan *t = &p.managers[KVP_ROLE_TARGET];
    /* 65536 tokens = 2048 blocks of 32; x 32 x 131072 B = 8 GiB. Before: 0 blocks. */
    assert_int_equal(t->pools[0].blocks, 2048);
    assert_int_equal(t->pools[0].tokens, 65536);
    assert_int_equal(t->bytes, 8 * GiB);
    kvp_creator_free(c);
    kvp_model_free(m);
}

/* 3: the slot pool (and the scheduler's capacity) is max_batch_size x pp. */
static void pp_slot_cap(void **state) {
    (void)state;
    /* Before the fix every front end capped at max_batch_size (256). */
    assert_int_equal(kvp_max_num_sequences(256, 4, false, false), 1024);
    assert_int_equal(kvp_max_num_sequences(256, 4, false, true), 1024); /* pp wins */
    assert_int_equal(kvp_max_num_sequences(256, 1, false, false), 256);
    assert_int_equal(kvp_max_num_sequences(256, 1, false, true), 512);  /* overlap headroom */
    assert_int_equal(kvp_max_num_sequences(256, 1, true, true), 256);   /* overlap off */
    assert_int_equal(kvp_max_num_sequences(UINT64_MAX / 2, 4, false, false), UINT64_MAX);
}

/* 4: the cross manager has beam width 1. */
static void cross_beam_one(void **state) {
    (void)state;
    kvp_model *m = catalog("whisper-large-v3");
    kvp_deploy_settings d = deploy(1, 1500);
    d.max_batch_size = 64;
    kvp_kv_config kv = kvcfg(0);
    kv.has_cross_kv_cache_fraction = true;
    kv.cross_kv_cache_fraction = 0.5;
    kvp_creator *c = NULL;
    assert_int_equal(kvp_creator_new(m, NULL, &d, &kv, NULL, &c, NULL), KVP_OK);
    kvp_capacity cap;
    kvp_plan p;
    /* The golden plan_whisper_large_v3_cross budget: 73,443,940,761 B. max_tokens =
     * budget // (163840 self + 163840 cross) = 224,133. Cross quota int(budget * 0.5) =
     * 36,721,970,380 -> 224,133 tokens -> 7,004 blocks; self 36,721,970,381 -> min(224,133,
     * 224,133) -> 7,004 blocks. */
    assert_int_equal(kvp_creator_configure_budget(c, 73443940761ull, &cap, NULL), KVP_OK);
    assert_int_equal(kvp_creator_build(c, false, &p, NULL), KVP_OK);
    assert_int_equal(p.managers[KVP_ROLE_TARGET].pools[0].blocks, 7004);
    assert_int_equal(p.managers[KVP_ROLE_CROSS].pools[0].blocks, 7004);
    uint64_t n;
    /* Beam 2 at 448 decoder tokens: self ceil(448/32) x 2 = 28 blocks -> 7004 // 28 = 250;
     * cross 1500 encoder tokens = 47 blocks once per request -> 7004 // 47 = 149.
     * Before: cross 47 x 2 = 94 -> 74. */
    assert_int_equal(kvp_plan_max_sequences(&p, 448, 2, &n, NULL), KVP_OK);
    assert_int_equal(n, 149);
    assert_int_equal(kvp_plan_max_sequences(&p, 448, 1, &n, NULL), KVP_OK);
    assert_int_equal(n, 149); /* self 7004 // 14 = 500; cross 149 */
    kvp_creator_free(c);
    kvp_model_free(m);
}

/* 5: the one-model draft's estimation cache is built without windows. */
static void draft_estimation_without_windows(void **state) {
    (void)state;
    kvp_model *m = catalog("llama-3.1-8b");
    kvp_model *dm = load(k_eagle_swa);
    kvp_deploy_settings d = deploy(1, 8192);
    d.spec_mode = KVP_SPEC_EAGLE3;
    d.max_draft_len = 3;
    d.separate_draft_kv_cache = 1;
    kvp_kv_config kv = kvcfg(-1);
    kvp_creator *c = NULL;
    assert_int_equal(kvp_creator_new(m, dm, &d, &kv, NULL, &c, NULL), KVP_OK);
    kvp_estimation_plan ep;
    kvp_plan p;
    assert_int_equal(kvp_creator_prepare_estimation(c, 20 * GiB, &ep, NULL), KVP_OK);
    assert_int_equal(kvp_creator_build(c, true, &p, NULL), KVP_OK);
    const kvp_manager_plan *dp = &p.managers[KVP_ROLE_DRAFT];
    assert_true(dp->present);
    /* Estimation: full context (before the fix: window 512). */
    assert_int_equal(dp->pools[0].window_tokens, 0);
    kvp_capacity cap;
    assert_int_equal(kvp_creator_configure_budget(c, 20 * GiB, &cap, NULL), KVP_OK);
    assert_int_equal(kvp_creator_build(c, false, &p, NULL), KVP_OK);
    /* The final draft manager keeps the draft config's window. */
    assert_int_equal(p.managers[KVP_ROLE_DRAFT].pools[0].window_tokens, 512);
    kvp_creator_free(c);
    kvp_model_free(dm);
    kvp_model_free(m);
}

/* 6: a draft-target drafter under attention DP logs and continues. */
static void draft_target_attention_dp(void **state) {
    (void)state;
    kvp_model *m = catalog("llama-3.1-8b");
    kvp_model *dm = catalog("llama-3.2-1b");
    kvp_deploy_settings d = deploy(2, 8192);
    d.attention_dp = true;
    d.spec_mode = KVP_SPEC_DRAFT_TARGET_ONE_MODEL;
    d.max_draft_len = 3;
    kvp_kv_config kv = kvcfg(0);
    kvp_creator *c = NULL;
    /* Before the fix: KVP_CONFIG ("an external drafter cannot share ..."). */
    assert_int_equal(kvp_creator_new(m, dm, &d, &kv, NULL, &c, NULL), KVP_OK);
    assert_true(has_note(kvp_creator_notes(c), "separate draft KV cache is not supported"));
    kvp_capacity cap;
    kvp_plan p;
    assert_int_equal(kvp_creator_configure_budget(c, 20 * GiB, &cap, NULL), KVP_OK);
    assert_int_equal(kvp_creator_build(c, false, &p, NULL), KVP_OK);
    assert_false(p.managers[KVP_ROLE_DRAFT].present);
    /* Heads are not sharded under attention DP: target 32 x 8 x 128 x 2 x 2 = 131072,
     * the drafter's 16 layers x 8 x 64 x 2 x 2 = 32768 join the target manager. */
    assert_int_equal(p.managers[KVP_ROLE_TARGET].cost.slope_bytes_per_token, 131072 + 32768);
    kvp_creator_free(c);
    kvp_model_free(dm);
    kvp_model_free(m);
}

/* 7: a max_seq_len the budget cannot hold is reduced, as the engine does. */
static void adopted_max_seq_len(void **state) {
    (void)state;
    kvp_model *m = catalog("llama-3.1-8b");
    kvp_deploy_settings d = deploy(1, 131072);
    kvp_kv_config kv = kvcfg(0);
    kvp_creator *c = NULL;
    assert_int_equal(kvp_creator_new(m, NULL, &d, &kv, NULL, &c, NULL), KVP_OK);
    kvp_capacity cap;
    kvp_plan p;
    /* 1 GiB // 131072 = 8192 tokens = 256 blocks. */
    assert_int_equal(kvp_creator_configure_budget(c, GiB, &cap, NULL), KVP_OK);
    assert_int_equal(kvp_creator_build(c, false, &p, NULL), KVP_OK);
    assert_int_equal(kvp_plan_adopted_max_seq_len(&p, 1, 131072), 8192);
    assert_int_equal(kvp_plan_adopted_max_seq_len(&p, 2, 131072), 4096); /* 128 blocks a beam */
    assert_int_equal(kvp_plan_adopted_max_seq_len(&p, 1, 4096), 4096);
    kvp_creator_free(c);
    kvp_model_free(m);
}

/* 9a: joint draft/target reuse needs a known lookahead and, for a positive one, a
 * manager that backs a prefix match off. */
static void joint_reuse_lookahead(void **state) {
    (void)state;
    assert_int_equal(kvp_spec_draft_prompt_lookahead(KVP_SPEC_MTP), 1);
    assert_int_equal(kvp_spec_draft_prompt_lookahead(KVP_SPEC_DFLASH), 0);
    assert_int_equal(kvp_spec_draft_prompt_lookahead(KVP_SPEC_NONE), -1);
    assert_true(kvp_joint_reuse_supported(KVP_MANAGER_PAGED_V2, 1));
    /* Before the fix every V2 manager paired: hybrid-v2 with MTP (lookahead 1) was true. */
    assert_false(kvp_joint_reuse_supported(KVP_MANAGER_HYBRID_V2, 1));
    assert_false(kvp_joint_reuse_supported(KVP_MANAGER_SPARSE_V2, 1));
    assert_true(kvp_joint_reuse_supported(KVP_MANAGER_HYBRID_V2, 0)); /* no backoff asked */
    assert_false(kvp_joint_reuse_supported(KVP_MANAGER_PAGED_V2, -1));
    assert_false(kvp_joint_reuse_supported(KVP_MANAGER_PAGED_V1, 0));
}

/* 9b: MTP without a draft config runs the layout check on the target's config. */
static void mtp_layout_from_target(void **state) {
    (void)state;
    kvp_model *m = load(k_swa_mtp);
    kvp_deploy_settings d = deploy(1, 4096);
    d.spec_mode = KVP_SPEC_MTP;
    d.max_draft_len = 1;
    d.separate_draft_kv_cache = 1;
    kvp_kv_config kv = kvcfg(-1);
    kvp_creator *c = NULL;
    assert_int_equal(kvp_creator_new(m, NULL, &d, &kv, NULL, &c, NULL), KVP_OK);
    kvp_capacity cap;
    kvp_plan p;
    assert_int_equal(kvp_creator_configure_budget(c, GiB, &cap, NULL), KVP_OK);
    assert_int_equal(kvp_creator_build(c, false, &p, NULL), KVP_OK);
    const kvp_manager_plan *dp = &p.managers[KVP_ROLE_DRAFT];
    assert_true(dp->present);
    /* The one draft layer takes the target's layer-0 window (sliding 512); before the
     * fix the check ran only on a draft config and the draft kept full context. */
    assert_int_equal(dp->pool_count, 1);
    assert_int_equal(dp->pools[0].window_tokens, 512);
    assert_int_equal(dp->pools[0].kind, KVP_CACHE_SLIDING);
    kvp_creator_free(c);
    kvp_model_free(m);
}

/* 9c: a two-model draft on V2 is costed with its derived layer-type windows. */
static void two_model_v2_draft_windows(void **state) {
    (void)state;
    kvp_model *m = catalog("llama-3.1-8b");
    kvp_model *dm = load(k_swa);
    kvp_deploy_settings d = deploy(1, 4096);
    d.spec_mode = KVP_SPEC_TWO_MODEL;
    d.max_draft_len = 3;
    d.max_batch_size = 8;
    d.trtllm_rules = KVP_TRTLLM_RULES_2025; /* the window alone */
    kvp_kv_config kv = kvcfg(1);
    kvp_creator *c = NULL;
    assert_int_equal(kvp_creator_new(m, dm, &d, &kv, NULL, &c, NULL), KVP_OK);
    kvp_capacity cap;
    kvp_plan p;
    assert_int_equal(kvp_creator_configure_budget(c, 4 * GiB, &cap, NULL), KVP_OK);
    assert_int_equal(kvp_creator_build(c, false, &p, NULL), KVP_OK);
    const kvp_manager_plan *dp = &p.managers[KVP_ROLE_DRAFT];
    /* Two full layers x 512 B = 1024 B/token; two sliding layers in the intercept:
     * ceil(512/32) x 32 = 512 tokens x 512 B x 8 slots x 2 layers = 4 MiB.
     * Before the fix: 2048 B/token, 0 B fixed (no windows). */
    assert_int_equal(dp->cost.slope_bytes_per_token, 1024);
    assert_int_equal(dp->cost.intercept_bytes, 4 * MiB);
    kvp_creator_free(c);
    kvp_model_free(dm);
    kvp_model_free(m);
}

/* 9d: the reuse x MTP warning also fires when a hybrid-flagged model routes to a
 * non-hybrid manager. */
static void reuse_mtp_warning_non_hybrid(void **state) {
    (void)state;
    kvp_manager_inputs in;
    memset(&in, 0, sizeof in);
    in.is_hybrid_linear = true;
    in.num_recurrent_layers = 0;
    in.enable_block_reuse = true;
    in.has_spec = true;
    kvp_notes notes;
    kvp_notes_clear(&notes);
    kvp_manager_kind k;
    assert_int_equal(kvp_manager_select(&in, &k, &notes, NULL), KVP_OK);
    assert_int_equal(k, KVP_MANAGER_PAGED_V1);
    /* The 0-recurrent-layer info line and the warning (before: the info line only). */
    assert_int_equal(notes.count, 2);
    assert_true(has_note(&notes, "block reuse does not work with MTP"));
    /* The hybrid V2 manager supports it: no warning. */
    in.num_recurrent_layers = 4;
    in.use_v2 = true;
    kvp_notes_clear(&notes);
    assert_int_equal(kvp_manager_select(&in, &k, &notes, NULL), KVP_OK);
    assert_int_equal(k, KVP_MANAGER_HYBRID_V2);
    assert_false(has_note(&notes, "block reuse does not work with MTP"));
}

/* 9e / 9f: _try_infer_num_experts keeps 0; _get_config_int_attr takes 0 and booleans. */
static const char k_bart[] =
    "{\"model_type\":\"bart\",\"architectures\":[\"BartForConditionalGeneration\"],"
    "\"is_encoder_decoder\":true,\"d_model\":1024,\"encoder_attention_heads\":16,"
    "\"decoder_attention_heads\":16,\"encoder_layers\":12,\"decoder_layers\":12,"
    "\"num_hidden_layers\":12,\"max_position_embeddings\":1024,\"vocab_size\":50265,"
    "\"torch_dtype\":\"float32\",\"encoder_ffn_dim\":4096,\"decoder_ffn_dim\":4096,"
    "\"num_decoder_layers\":true}";

static void config_int_attrs(void **state) {
    (void)state;
    kvp_model *m = load(k_swa_no_experts);
    /* Before: 1 (0 was read as missing). */
    assert_int_equal(kvp_num_experts(m), 0);
    kvp_model_free(m);
    m = load(k_swa);
    assert_int_equal(kvp_num_experts(m), 1); /* none of the names: 1 */
    kvp_model_free(m);

    m = load(k_bart);
    kvp_cross_geometry g;
    assert_int_equal(kvp_cross_geometry_from_model(m, 1024, 0, &g, NULL), KVP_OK);
    /* num_decoder_layers = true is the int 1 (before: skipped, decoder_layers 12). */
    assert_int_equal(g.num_layers, 1);
    /* (A 0 in encoder_num_kv_heads or encoder_head_dim is refused by the config reader
     * before the creator sees it: "expected an integer in [1, 65536]".) */
    assert_int_equal(g.num_kv_heads, 16);
    assert_int_equal(g.num_heads, 16);
    assert_int_equal(g.head_dim, 64); /* 1024 // 16 */
    assert_int_equal(g.max_seq_len, 1024);
    kvp_model_free(m);
}

/* 10: a V2 plan whose every layer is windowed is feasible when its fixed cost fits. */
static void v2_all_windowed(void **state) {
    (void)state;
    kvp_model *m = catalog("mistral-7b-v0.1");
    kvp_deploy_settings d = deploy(1, 32768);
    d.max_batch_size = 8;
    d.trtllm_rules = KVP_TRTLLM_RULES_2025; /* the window alone */
    uint64_t win = 4096;
    kvp_kv_config kv = kvcfg(1);
    kv.max_attention_window = &win;
    kv.max_attention_window_count = 1;
    kvp_creator *c = NULL;
    assert_int_equal(kvp_creator_new(m, NULL, &d, &kv, NULL, &c, NULL), KVP_OK);
    kvp_capacity cap;
    kvp_plan p;
    assert_int_equal(kvp_creator_configure_budget(c, 20 * GiB, &cap, NULL), KVP_OK);
    assert_int_equal(kvp_creator_build(c, false, &p, NULL), KVP_OK);
    const kvp_manager_plan *t = &p.managers[KVP_ROLE_TARGET];
    /* 32 layers x 8 x 128 x 2 x 2 = 131072 B/token, all in a 4096-token window:
     * slope 0, intercept 4096 x 131072 x 8 slots = 4 GiB. */
    assert_int_equal(t->cost.slope_bytes_per_token, 0);
    assert_int_equal(t->cost.intercept_bytes, 4 * GiB);
    assert_int_equal(t->max_tokens_out, 0);
    /* Before the fix the front ends refused it (max_tokens_out == 0). */
    assert_true(kvp_plan_holds_a_sequence(&p, 1));
    uint64_t n;
    assert_int_equal(kvp_plan_max_sequences(&p, 32768, 1, &n, NULL), KVP_OK);
    assert_int_equal(n, UINT64_MAX); /* no pool limits: the slot cap (8) applies */
    kvp_creator_free(c);
    /* Below the fixed cost it is infeasible. */
    c = plan_at_budget(m, NULL, &d, &kv, 2 * GiB, &cap, &p);
    assert_false(kvp_plan_holds_a_sequence(&p, 1));
    kvp_creator_free(c);
    kvp_model_free(m);
}

/* The DSpark standalone drafter: like DFlash it keeps a separate draft cache under
 * attention DP and its own dtype instead of the target's fp8 KV algo. */
static void dspark_standalone(void **state) {
    (void)state;
    assert_int_equal(kvp_spec_mode_parse("dspark", &(kvp_spec_mode){0}), KVP_OK);
    assert_true(kvp_spec_is_standalone_drafter(KVP_SPEC_DSPARK));
    assert_true(kvp_spec_is_external_drafter(KVP_SPEC_DSPARK));
    assert_false(kvp_spec_is_standalone_drafter(KVP_SPEC_DRAFT_TARGET_ONE_MODEL));
    assert_int_equal(kvp_draft_kv_dtype(KVP_SPEC_DSPARK, KVP_DTYPE_FP8, KVP_DTYPE_BF16),
                     KVP_DTYPE_BF16);
    kvp_model *m = catalog("llama-3.1-8b");
    kvp_model *dm = catalog("llama-3.2-1b");
    kvp_deploy_settings d = deploy(2, 8192);
    d.attention_dp = true;
    d.spec_mode = KVP_SPEC_DSPARK;
    d.max_draft_len = 3;
    d.kv_dtype = KVP_DTYPE_FP8;
    kvp_kv_config kv = kvcfg(0);
    kvp_creator *c = NULL;
    assert_int_equal(kvp_creator_new(m, dm, &d, &kv, NULL, &c, NULL), KVP_OK);
    kvp_capacity cap;
    kvp_plan p;
    assert_int_equal(kvp_creator_configure_budget(c, 20 * GiB, &cap, NULL), KVP_OK);
    assert_int_equal(kvp_creator_build(c, false, &p, NULL), KVP_OK);
    const kvp_manager_plan *dp = &p.managers[KVP_ROLE_DRAFT];
    assert_true(dp->present);
    /* Llama-3.2-1B is bf16: 16 layers x 8 heads (attention DP: unsharded) x 64 x 2 x 2 B. */
    assert_int_equal(dp->kv_dtype, KVP_DTYPE_BF16);
    assert_int_equal(dp->cost.slope_bytes_per_token, 32768);
    /* The target keeps fp8: 32 x 8 x 128 x 2 x 1 B. */
    assert_int_equal(p.managers[KVP_ROLE_TARGET].cost.slope_bytes_per_token, 65536);
    kvp_creator_free(c);
    kvp_model_free(dm);
    kvp_model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hybrid_beam_and_connector),
        cmocka_unit_test(helix_max_tokens_only),
        cmocka_unit_test(pp_slot_cap),
        cmocka_unit_test(cross_beam_one),
        cmocka_unit_test(draft_estimation_without_windows),
        cmocka_unit_test(draft_target_attention_dp),
        cmocka_unit_test(adopted_max_seq_len),
        cmocka_unit_test(joint_reuse_lookahead),
        cmocka_unit_test(mtp_layout_from_target),
        cmocka_unit_test(two_model_v2_draft_windows),
        cmocka_unit_test(reuse_mtp_warning_non_hybrid),
        cmocka_unit_test(config_int_attrs),
        cmocka_unit_test(v2_all_windowed),
        cmocka_unit_test(dspark_standalone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
