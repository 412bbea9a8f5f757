/* test_plan_rules.c — the seed's rules around the creator (src/plan/seed_rules.c)
 * and the 2026 TensorRT-LLM cost rules: the decoder length of encoder-decoder
 * models, avg_seq_len, KV-cache compression, the LoRA cache, the multimodal
 * profiling batch, V2 window pools with the generation block, DFLASH drafts on
 * V2. Every expected number is worked by hand in a comment. */
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

static const char k_swa[] =
    "{\"model_type\":\"llama\",\"hidden_size\":256,\"num_attention_heads\":4,"
    "\"num_key_value_heads\":2,\"num_hidden_layers\":4,\"head_dim\":64,"
    "\"max_position_embeddings\":4096,\"vocab_size\":1000,\"torch_dtype\":\"bfloat16\","
    "\"sliding_window\":512,\"layer_types\":[\"sliding_attention\",\"full_attention\","
    "\"sliding_attention\",\"full_attention\"]}";

static void rule_sets(void **state) {
    (void)state;
    kvp_trtllm_rules r = KVP_TRTLLM_RULES_2025;
    assert_int_equal(kvp_trtllm_rules_parse("", &r), KVP_OK);
    assert_int_equal(r, KVP_TRTLLM_RULES_2026);
    assert_int_equal(kvp_trtllm_rules_parse("2025", &r), KVP_OK);
    assert_int_equal(r, KVP_TRTLLM_RULES_2025);
    assert_int_equal(kvp_trtllm_rules_parse("latest", &r), KVP_OK);
    assert_int_equal(r, KVP_TRTLLM_RULES_2026);
    assert_int_equal(kvp_trtllm_rules_parse("v1-mid", &r), KVP_INVALID_ARG);
    assert_string_equal(kvp_trtllm_rules_name(KVP_TRTLLM_RULES_2025), "2025");
}

/* 2026: a V2 window pool keeps one block more per slot (the generation token). */
static void v2_window_generation_block(void **state) {
    (void)state;
    kvp_model *m = load(k_swa);
    kvp_deploy_settings d = deploy(1, 4096);
    d.max_batch_size = 8;
    kvp_kv_config kv;
    memset(&kv, 0, sizeof kv);
    kv.use_v2 = 1;
    kvp_creator *c = NULL;
    kvp_capacity cap;
    kvp_plan p;
    c = plan_at_budget(m, NULL, &d, &kv, 8 * MiB, &cap, &p);
    const kvp_manager_plan *t = &p.managers[KVP_ROLE_TARGET];
    /* Sliding pool: 2 layers x 2 heads x 64 x 2 x 2 B = 1024 B/token; (ceil(512/32) + 1) x
     * 32 = 544 tokens x 1024 B x 8 slots = 4,456,448 B (2025 rules: 512 tokens, 4 MiB). */
    assert_int_equal(t->cost.slope_bytes_per_token, 1024);
    assert_int_equal(t->cost.intercept_bytes, 4456448);
    /* (8,388,608 - 4,456,448) // 1024 = 3840 tokens = 120 blocks in the full pool;
     * the sliding pool keeps 17 blocks x 8 slots = 136. */
    for (uint32_t i = 0; i < t->pool_count; i++)
        assert_int_equal(t->pools[i].blocks, t->pools[i].window_tokens ? 136 : 120);
    kvp_creator_free(c);
    kvp_model_free(m);
}

/* 2026: a DFLASH draft on V2 pays its generation slots, both terms / max_util_for_resume. */
static void dflash_v2_cost(void **state) {
    (void)state;
    kvp_model *m = catalog("llama-3.1-8b");
    kvp_model *dm = catalog("llama-3.2-1b");
    kvp_deploy_settings d = deploy(1, 8192);
    d.spec_mode = KVP_SPEC_DFLASH;
    d.max_draft_len = 3;
    d.max_batch_size = 4;
    d.max_util_for_resume = 0.5;
    kvp_kv_config kv;
    memset(&kv, 0, sizeof kv);
    kv.use_v2 = 1;
    kvp_creator *c = NULL;
    kvp_capacity cap;
    kvp_plan p;
    c = plan_at_budget(m, dm, &d, &kv, 20 * GiB, &cap, &p);
    const kvp_manager_plan *dp = &p.managers[KVP_ROLE_DRAFT];
    /* Llama-3.2-1B: 16 x 8 x 64 x 2 x 2 = 32768 B/token. Generation slots: (3 + 1) tokens
     * x 4 slots x 32768 = 524,288 B. / 0.5: slope 65,536, intercept 1,048,576. */
    assert_int_equal(dp->cost.slope_bytes_per_token, 65536);
    assert_int_equal(dp->cost.intercept_bytes, 1048576);
    kvp_creator_free(c);
    /* 2025 rules: the draft as costed. */
    d.trtllm_rules = KVP_TRTLLM_RULES_2025;
    c = plan_at_budget(m, dm, &d, &kv, 20 * GiB, &cap, &p);
    assert_int_equal(p.managers[KVP_ROLE_DRAFT].cost.slope_bytes_per_token, 32768);
    assert_int_equal(p.managers[KVP_ROLE_DRAFT].cost.intercept_bytes, 0);
    kvp_creator_free(c);
    /* max_util_for_resume outside (0, 1]. */
    d.max_util_for_resume = 1.5;
    kvp_error err;
    assert_int_equal(kvp_creator_new(m, dm, &d, &kv, NULL, &c, &err), KVP_INVALID_ARG);
    assert_string_equal(err.key, "max_util_for_resume");
    kvp_model_free(dm);
    kvp_model_free(m);
}

static void decoder_length(void **state) {
    (void)state;
    kvp_model *m = catalog("whisper-large-v3");
    uint64_t n;
    /* max_target_positions 448 caps the 1500-token max_seq_len of the encoder. */
    assert_true(kvp_decoder_max_seq_len(m, 1500, &n));
    assert_int_equal(n, 448);
    assert_true(kvp_decoder_max_seq_len(m, 256, &n));
    assert_int_equal(n, 256);
    kvp_model_free(m);
    m = catalog("llama-3.1-8b"); /* decoder-only: no cap */
    assert_false(kvp_decoder_max_seq_len(m, 8192, &n));
    assert_int_equal(n, 8192);
    kvp_model_free(m);
}

static void avg_seq_len(void **state) {
    (void)state;
    /* Estimation: max_seq_len 8192, clamped to a V2 manager's 4096 without pool_ratio. */
    assert_int_equal(kvp_manager_avg_seq_len(true, true, false, 0, 8192, 4096), 4096);
    assert_int_equal(kvp_manager_avg_seq_len(true, true, true, 0, 8192, 4096), 8192);
    assert_int_equal(kvp_manager_avg_seq_len(true, false, false, 0, 8192, 4096), 8192);
    /* Final managers: the user's value (0 = None), unclamped. */
    assert_int_equal(kvp_manager_avg_seq_len(false, true, false, 2048, 8192, 1024), 2048);
    assert_int_equal(kvp_manager_avg_seq_len(false, true, false, 0, 8192, 1024), 0);
}

static void compression(void **state) {
    (void)state;
    kvp_kv_compression cold = {KVP_COMPRESSION_COLD_PAGE_QUANT, "nvfp4", true, false};
    kvp_kv_compression tri = {KVP_COMPRESSION_TRIATTENTION, NULL, false, false};
    kvp_error err;
    assert_true(kvp_sm_is_100_family(103));
    assert_false(kvp_sm_is_100_family(90));
    assert_int_equal(kvp_kv_compression_validate(&cold, 90, false, KVP_SPEC_NONE, &err),
                     KVP_UNSUPPORTED);
    assert_string_equal(err.key, "sm_version");
    assert_non_null(strstr(err.message, "requires an SM100-family device"));
    assert_int_equal(kvp_kv_compression_validate(&cold, 100, true, KVP_SPEC_EAGLE3, NULL), KVP_OK);
    assert_int_equal(kvp_kv_compression_validate(&cold, 100, false,
                                                 KVP_SPEC_DRAFT_TARGET_ONE_MODEL, &err),
                     KVP_CONFIG);
    assert_non_null(strstr(err.message, "mode DRAFT_TARGET_ONE_MODEL; use one-model MTP-EAGLE"));
    assert_int_equal(kvp_kv_compression_validate(&tri, 120, false, KVP_SPEC_NONE, &err),
                     KVP_UNSUPPORTED);
    assert_int_equal(kvp_kv_compression_validate(&tri, 100, true, KVP_SPEC_NONE, &err),
                     KVP_CONFIG);
    assert_string_equal(err.key, "enable_block_reuse");
    assert_int_equal(kvp_kv_compression_validate(&tri, 100, false, KVP_SPEC_MTP, &err),
                     KVP_CONFIG);
    assert_non_null(strstr(err.message, "eviction_mode='union'"));
    tri.triattention_union_eviction = true;
    assert_int_equal(kvp_kv_compression_validate(&tri, 100, false, KVP_SPEC_MTP, NULL), KVP_OK);

    kvp_compression_effect e;
    kvp_notes notes;
    kvp_notes_clear(&notes);
    assert_int_equal(kvp_kv_compression_manager(&cold, true, KVP_MANAGER_PAGED_V2,
                                                KVP_DTYPE_BF16, 100, false, KVP_SPEC_NONE,
                                                false, &e, &notes, &err),
                     KVP_CONFIG); /* helix */
    assert_int_equal(kvp_kv_compression_manager(&cold, false, KVP_MANAGER_PAGED_V1,
                                                KVP_DTYPE_BF16, 100, false, KVP_SPEC_NONE,
                                                false, &e, &notes, &err),
                     KVP_CONFIG);
    assert_string_equal(err.key, "use_kv_cache_manager_v2");
    assert_int_equal(kvp_kv_compression_manager(&cold, false, KVP_MANAGER_PAGED_V2,
                                                KVP_DTYPE_BF16, 100, false, KVP_SPEC_NONE,
                                                false, &e, &notes, NULL),
                     KVP_OK);
    assert_true(e.active);
    assert_int_equal(e.cold_page_dtype, KVP_DTYPE_NVFP4);
    /* An nvfp4 KV cache already: skipped with a note. */
    assert_int_equal(kvp_kv_compression_manager(&cold, false, KVP_MANAGER_PAGED_V2,
                                                KVP_DTYPE_NVFP4, 100, false, KVP_SPEC_NONE,
                                                false, &e, &notes, NULL),
                     KVP_OK);
    assert_false(e.active);
    assert_int_equal(notes.count, 1);
    /* The estimation build has none. */
    assert_int_equal(kvp_kv_compression_manager(&cold, false, KVP_MANAGER_PAGED_V2,
                                                KVP_DTYPE_BF16, 90, false, KVP_SPEC_NONE, true,
                                                &e, &notes, NULL),
                     KVP_OK);
    assert_false(e.active);
    kvp_kv_compression int4 = {KVP_COMPRESSION_COLD_PAGE_QUANT, "int4", false, false};
    assert_int_equal(kvp_kv_compression_manager(&int4, false, KVP_MANAGER_PAGED_V2,
                                                KVP_DTYPE_BF16, 100, false, KVP_SPEC_NONE,
                                                false, &e, &notes, &err),
                     KVP_UNSUPPORTED);
    assert_non_null(strstr(err.message, "Unsupported cold-page quantization format 'int4'"));
}

static void lora(void **state) {
    (void)state;
    kvp_model *m = catalog("llama-3.1-8b");
    const char *mods[] = {"attn_q", "attn_v", "mlp_h_to_4h"};
    kvp_lora_settings s;
    memset(&s, 0, sizeof s);
    s.max_lora_rank = 8;
    s.has_max_loras = true;
    s.max_loras = 4;
    s.has_max_cpu_loras = true;
    s.max_cpu_loras = 16;
    s.target_modules = mods;
    s.module_count = 3;
    kvp_lora_cache l;
    assert_int_equal(kvp_lora_cache_size(m, &s, 2, &l, NULL, NULL), KVP_OK);
    /* 32 layers x 3 modules = 96 slots; device 8 x 96 x 4 = 3072; host 8 x 96 x 16 = 12288. */
    assert_int_equal(l.num_lora_modules, 96);
    assert_int_equal(l.device_module_layers, 3072);
    assert_int_equal(l.host_module_layers, 12288);
    assert_int_equal(l.num_kv_heads, 8);
    assert_int_equal(l.num_experts, 1);
    kvp_error err;
    s.max_lora_rank = 0;
    assert_int_equal(kvp_lora_cache_size(m, &s, 2, &l, NULL, &err), KVP_INVALID_ARG);
    assert_string_equal(err.key, "max_lora_rank");
    s.max_lora_rank = 8;
    const char *bad[] = {"attn_qq"};
    s.target_modules = bad;
    s.module_count = 1;
    assert_int_equal(kvp_lora_cache_size(m, &s, 2, &l, NULL, &err), KVP_INVALID_ARG);
    assert_non_null(strstr(err.message, "'attn_qq'"));
    kvp_model_free(m);

    /* Qwen3-Next: shared experts, no dense MLP layers (mlp_only_layers []). */
    m = catalog("qwen3-next-80b-a3b-thinking");
    const char *mods2[] = {"attn_q", "mlp_h_to_4h"};
    s.target_modules = mods2;
    s.module_count = 2;
    s.shared_expert_global_size = 512;
    assert_int_equal(kvp_lora_cache_size(m, &s, 4, &l, NULL, NULL), KVP_OK);
    /* mlp_h_to_4h -> shared_expert_h_to_4h; 512 // 4 = 128; moe 512 // 4 = 128;
     * 48 layers x 2 modules = 96 slots; device 8 x 96 x 4 = 3072. */
    assert_int_equal(l.module_count, 2);
    assert_string_equal(l.modules[0], "attn_q");
    assert_string_equal(l.modules[1], "shared_expert_h_to_4h");
    assert_int_equal(l.shared_expert_hidden_size, 128);
    assert_int_equal(l.moe_hidden_size, 128);
    assert_int_equal(l.num_lora_modules, 96);
    assert_int_equal(l.device_module_layers, 3072);
    /* An adapter size that does not divide over TP contradicts the deployment. */
    s.shared_expert_global_size = 514;
    assert_int_equal(kvp_lora_cache_size(m, &s, 4, &l, NULL, &err), KVP_CONFIG);
    kvp_model_free(m);

    /* Nemotron-H-56B Mamba sizes: d_inner 64 x 256 = 16384; in_proj 2 x 16384 + 2 x 8 x 256 +
     * 256 = 37120; per rank at TP 4: 4096 and 9280. */
    m = catalog("nemotron-h-56b-base-8k");
    s.shared_expert_global_size = 0;
    assert_int_equal(kvp_lora_cache_size(m, &s, 4, &l, NULL, NULL), KVP_OK);
    assert_int_equal(l.mamba_inner_size, 4096);
    assert_int_equal(l.mamba_in_proj_size, 9280);
    kvp_model_free(m);
}

static void mm_profile(void **state) {
    (void)state;
    kvp_mm_item items[] = {{"image", 1024}, {"video", 4096}};
    kvp_mm_profile p;
    /* Video has the most tokens per item: min(3, 16384 // 4096 = 4) = 3 items, 12288 tokens. */
    assert_int_equal(kvp_mm_encoder_profile_batch(items, 2, 16384, 3, &p, NULL), KVP_OK);
    assert_true(p.has_batch);
    assert_string_equal(p.modality, "video");
    assert_int_equal(p.num_items, 3);
    assert_int_equal(p.tokens, 12288);
    uint64_t b;
    /* 12288 x 4096 x 2 B (bf16) = 100,663,296 B. */
    assert_int_equal(kvp_mm_encoder_output_bytes(&p, 4096, KVP_DTYPE_BF16, &b, NULL), KVP_OK);
    assert_int_equal(b, 100663296);
    /* A 2048-token budget: only the image fits, min(3, 2) = 2 items. */
    assert_int_equal(kvp_mm_encoder_profile_batch(items, 2, 2048, 3, &p, NULL), KVP_OK);
    assert_string_equal(p.modality, "image");
    assert_int_equal(p.num_items, 2);
    /* Ties go to the larger name, as max() over (tokens, name). */
    kvp_mm_item tie[] = {{"audio", 1024}, {"image", 1024}};
    assert_int_equal(kvp_mm_encoder_profile_batch(tie, 2, 8192, 1, &p, NULL), KVP_OK);
    assert_string_equal(p.modality, "image");
    /* No budget, nothing that fits: no batch. */
    assert_int_equal(kvp_mm_encoder_profile_batch(items, 2, 0, 3, &p, NULL), KVP_OK);
    assert_false(p.has_batch);
    assert_int_equal(kvp_mm_encoder_profile_batch(items, 2, 512, 3, &p, NULL), KVP_OK);
    assert_false(p.has_batch);
    assert_int_equal(kvp_mm_encoder_output_bytes(&p, 4096, KVP_DTYPE_BF16, &b, NULL), KVP_OK);
    assert_int_equal(b, 0);
    kvp_error err;
    kvp_mm_item zero[] = {{"image", 0}};
    assert_int_equal(kvp_mm_encoder_profile_batch(zero, 1, 8192, 1, &p, &err), KVP_INVALID_ARG);
    assert_string_equal(err.message,
                        "image: Multimodal encoder token counts must be positive; got 0 for image");
    kvp_mm_item empty[] = {{"", 16}};
    assert_int_equal(kvp_mm_encoder_profile_batch(empty, 1, 8192, 1, &p, &err), KVP_INVALID_ARG);
    assert_string_equal(err.message, "modality: Multimodal modality name cannot be empty");
}

/* The predicted profiled output joins the encoder reserve when memory is measured. */
static void mm_reserve_from_prediction(void **state) {
    (void)state;
    kvp_model *m = catalog("llama-3.1-8b");
    kvp_deploy_settings d = deploy(1, 8192);
    d.mm_output_budget_bytes = 1 * GiB;
    d.mm_profiled_output_bytes = 100663296;
    kvp_kv_config kv;
    memset(&kv, 0, sizeof kv);
    kvp_creator *c = NULL;
    assert_int_equal(kvp_creator_new(m, NULL, &d, &kv, NULL, &c, NULL), KVP_OK);
    kvp_estimation_plan ep;
    assert_int_equal(kvp_creator_prepare_estimation(c, 40 * GiB, &ep, NULL), KVP_OK);
    kvp_measured_memory mm;
    memset(&mm, 0, sizeof mm);
    mm.total_bytes = 80 * GiB;
    mm.profiled = true;
    mm.allocator_peak_bytes = 20 * GiB;
    kvp_capacity cap;
    assert_int_equal(kvp_creator_configure(c, &mm, &cap, NULL), KVP_OK);
    /* 1 GiB - 96 MiB of retained output = 973,078,528 B reserved. */
    assert_int_equal(cap.mm_reserve_bytes, 973078528);
    kvp_creator_free(c);
    kvp_model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rule_sets),        cmocka_unit_test(v2_window_generation_block),
        cmocka_unit_test(dflash_v2_cost),   cmocka_unit_test(decoder_length),
        cmocka_unit_test(avg_seq_len),      cmocka_unit_test(compression),
        cmocka_unit_test(lora),             cmocka_unit_test(mm_profile),
        cmocka_unit_test(mm_reserve_from_prediction),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
