/* test_plan_split.c — target/draft and self/cross splits, cross geometry,
 * speculative-decoding facts and config attribute fallbacks
 * (src/plan/split.c, src/plan/config_attrs.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "kvplan/plan.h"
#include "plan_rules.h"

#define GiB (1024ull * 1024 * 1024)

static kvp_model *load(const char *json) {
    kvp_model *m = NULL;
    kvp_error err;
    kvp_status st = kvp_model_from_hf_json(json, strlen(json), "test.json", NULL, &m, &err);
    if (st) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(st, KVP_OK);
    return m;
}

static void draft_shares(void **state) {
    (void)state;
    uint64_t t, d;
    kvp_affine_cost tc = {10, 100}, dc = {5, 50};
    /* Intercepts first: 1000 - 150 = 850 left; draft gets 850 * 5 // 15 = 283 of it
     * (4250 / 15 = 283.3) plus its 50 = 333; target the rest, 667. */
    assert_true(kvp_draft_budget_shares(1000, tc, dc, &t, &d));
    assert_int_equal(d, 333);
    assert_int_equal(t, 667);
    /* Budget below the intercepts, or exactly them with a per-token cost: no split. */
    assert_false(kvp_draft_budget_shares(149, tc, dc, &t, &d));
    assert_false(kvp_draft_budget_shares(150, tc, dc, &t, &d));
    /* No per-token cost at all: each keeps its intercept, the target the remainder. */
    kvp_affine_cost t0 = {0, 100}, d0 = {0, 50};
    assert_true(kvp_draft_budget_shares(150, t0, d0, &t, &d));
    assert_int_equal(d, 50);
    assert_int_equal(t, 100);
}

static void split_for_draft(void **state) {
    (void)state;
    uint64_t t, d;
    bool split;
    kvp_error err;
    kvp_notes notes;
    kvp_notes_clear(&notes);
    kvp_affine_cost tc = {10, 100}, dc = {5, 50};
    assert_int_equal(kvp_split_budget_for_draft(KVP_BUDGET_MAX_GPU_TOTAL_BYTES, 1000, true, tc,
                                                dc, &t, &d, &split, &notes, &err),
                     KVP_OK);
    assert_true(split);
    assert_int_equal(t, 667);
    assert_int_equal(d, 333);
    /* Host budgets drop the GPU-resident intercepts: 1000 * 5 // 15 = 333 to the draft. */
    assert_int_equal(kvp_split_budget_for_draft(KVP_BUDGET_HOST_CACHE_SIZE, 1000, true, tc, dc,
                                                &t, &d, &split, &notes, &err),
                     KVP_OK);
    assert_int_equal(d, 333);
    assert_int_equal(t, 667);
    /* ... so a host budget smaller than the intercepts still splits: 90 * 5 // 15 = 30. */
    assert_int_equal(kvp_split_budget_for_draft(KVP_BUDGET_DISK_CACHE_SIZE, 90, true, tc, dc, &t,
                                                &d, &split, &notes, &err),
                     KVP_OK);
    assert_int_equal(d, 30);
    assert_int_equal(t, 60);
    /* A GPU budget below the fixed costs is fatal, with the seed's guidance. */
    memset(&err, 0x5a, sizeof err);
    assert_int_equal(kvp_split_budget_for_draft(KVP_BUDGET_MAX_GPU_TOTAL_BYTES, 120, true, tc, dc,
                                                &t, &d, &split, &notes, &err),
                     KVP_INFEASIBLE);
    assert_string_equal(err.key, "max_gpu_total_bytes");
    assert_non_null(strstr(err.message, "reduce max_batch_size"));
    /* Unusable costs (a manager with neither slope nor intercept) leave budgets alone. */
    kvp_affine_cost zero = {0, 0};
    assert_int_equal(kvp_split_budget_for_draft(KVP_BUDGET_MAX_GPU_TOTAL_BYTES, 1000, true, tc,
                                                zero, &t, &d, &split, &notes, &err),
                     KVP_OK);
    assert_false(split);
    assert_int_equal(t, 1000);
    assert_int_equal(d, 1000);
    /* No budget set: nothing to split. */
    assert_int_equal(kvp_split_budget_for_draft(KVP_BUDGET_HOST_CACHE_SIZE, 0, true, tc, dc, &t,
                                                &d, &split, &notes, &err),
                     KVP_OK);
    assert_false(split);
    assert_string_equal(kvp_budget_attr_name(KVP_BUDGET_HOST_CACHE_SIZE), "host_cache_size");
    /* The defensive zero-draft path needs a non-GPU budget that keeps an intercept it cannot
     * fit; intercepts are dropped for those budgets first, so it is unreachable (as in the
     * seed) and no note was written above. */
    assert_int_equal(notes.count, 0);
}

static void cross_geometry(void **state) {
    (void)state;
    kvp_model *m = NULL;
    kvp_cross_geometry g;
    assert_int_equal(kvp_model_from_catalog("whisper-large-v3", NULL, &m, NULL), KVP_OK);
    /* decoder_layers 32; encoder_attention_heads 20 (also the KV heads); d_model 1280;
     * no head-size key -> 1280 / 20 = 64; no encoder limit key -> the fallback 1500. */
    assert_int_equal(kvp_cross_geometry_from_model(m, 1500, 0, &g, NULL), KVP_OK);
    assert_int_equal(g.num_layers, 32);
    assert_int_equal(g.num_heads, 20);
    assert_int_equal(g.num_kv_heads, 20);
    assert_int_equal(g.head_dim, 64);
    assert_int_equal(g.max_seq_len, 1500);
    /* max_input_len replaces the fallback. */
    assert_int_equal(kvp_cross_geometry_from_model(m, 1500, 3000, &g, NULL), KVP_OK);
    assert_int_equal(g.max_seq_len, 3000);
    uint64_t bpt;
    /* 2 * 32 layers * (64 * 20 / 1) * 2 B = 163840 B per encoder token. */
    assert_int_equal(kvp_cross_bytes_per_token(&g, 1, KVP_DTYPE_FP16, &bpt, NULL), KVP_OK);
    assert_int_equal(bpt, 163840);
    /* TP 2 halves it; fp8 is one byte; fp32 is still costed at 2 bytes by the estimator. */
    assert_int_equal(kvp_cross_bytes_per_token(&g, 2, KVP_DTYPE_FP16, &bpt, NULL), KVP_OK);
    assert_int_equal(bpt, 81920);
    assert_int_equal(kvp_cross_bytes_per_token(&g, 1, KVP_DTYPE_FP8, &bpt, NULL), KVP_OK);
    assert_int_equal(bpt, 81920);
    assert_int_equal(kvp_cross_bytes_per_token(&g, 1, KVP_DTYPE_FP32, &bpt, NULL), KVP_OK);
    assert_int_equal(bpt, 163840);
    /* nvfp4: 81920 elements -> 40960 + 5120 scale bytes. */
    assert_int_equal(kvp_cross_bytes_per_token(&g, 1, KVP_DTYPE_NVFP4, &bpt, NULL), KVP_OK);
    assert_int_equal(bpt, 46080);
    kvp_model_free(m);
    /* T5: num_decoder_layers 12, num_heads 12, d_kv 64, n_positions 512 caps the length. */
    assert_int_equal(kvp_model_from_catalog("t5-base", NULL, &m, NULL), KVP_OK);
    assert_int_equal(kvp_cross_geometry_from_model(m, 4096, 0, &g, NULL), KVP_OK);
    assert_int_equal(g.num_layers, 12);
    assert_int_equal(g.num_kv_heads, 12);
    assert_int_equal(g.head_dim, 64);
    assert_int_equal(g.max_seq_len, 512);
    kvp_model_free(m);
    /* A config without any decoder layer count key names what is missing. */
    m = load("{\"model_type\":\"llama\",\"hidden_size\":256,\"num_attention_heads\":4,"
             "\"num_key_value_heads\":2,\"num_hidden_layers\":2,\"head_dim\":64,"
             "\"max_position_embeddings\":4096,\"vocab_size\":1000}");
    /* num_hidden_layers is a fallback for the layer count, so this one resolves; the
     * encoder heads fall back to num_attention_heads (4), hidden 256, head_dim 256/4. */
    assert_int_equal(kvp_cross_geometry_from_model(m, 100, 0, &g, NULL), KVP_OK);
    assert_int_equal(g.num_layers, 2);
    assert_int_equal(g.num_kv_heads, 2); /* num_key_value_heads comes before num_heads */
    assert_int_equal(g.head_dim, 64);
    assert_int_equal(g.max_seq_len, 100);
    kvp_model_free(m);
}

static void cross_split(void **state) {
    (void)state;
    kvp_cross_split s;
    kvp_error err;
    /* Fraction 0.9 with cross 0.25: cross 0.225, self 0.675; 1000 B -> cross int(250),
     * self 750; host 101 -> cross int(25.25) = 25, self 76. */
    assert_int_equal(kvp_split_budget_for_cross(true, 0.25, 0.9, 1000, 101, &s, &err), KVP_OK);
    assert_true(s.cross_fraction > 0.2249999 && s.cross_fraction < 0.2250001);
    assert_true(s.self_fraction > 0.6749999 && s.self_fraction < 0.6750001);
    assert_int_equal(s.cross_gpu_bytes, 250);
    assert_int_equal(s.self_gpu_bytes, 750);
    assert_int_equal(s.cross_host_bytes, 25);
    assert_int_equal(s.self_host_bytes, 76);
    /* Missing fraction, or nothing to split. */
    assert_int_equal(kvp_split_budget_for_cross(false, 0, 0.9, 0, 0, &s, &err), KVP_CONFIG);
    assert_string_equal(err.key, "cross_kv_cache_fraction");
    assert_non_null(strstr(err.message, "require cross_kv_cache_fraction"));
    assert_int_equal(kvp_split_budget_for_cross(true, 0.5, 0.0, 0, 0, &s, &err), KVP_CONFIG);
    assert_non_null(strstr(err.message, "neither"));
    assert_int_equal(kvp_split_budget_for_cross(true, 1.5, 0.9, 0, 0, &s, &err),
                     KVP_INVALID_ARG);
}

static void spec_facts(void **state) {
    (void)state;
    assert_int_equal(kvp_spec_tokens_per_gen_step(KVP_SPEC_EAGLE3, 3), 4);
    assert_int_equal(kvp_spec_tokens_per_gen_step(KVP_SPEC_NONE, 3), 0);
    assert_int_equal(kvp_spec_extra_kv_tokens(KVP_SPEC_MTP, 3), 2);
    assert_int_equal(kvp_spec_extra_kv_tokens(KVP_SPEC_TWO_MODEL, 3), 0);
    assert_true(kvp_spec_is_external_drafter(KVP_SPEC_DFLASH));
    assert_false(kvp_spec_is_external_drafter(KVP_SPEC_EAGLE3));
    kvp_spec_mode m;
    assert_int_equal(kvp_spec_mode_parse("EAGLE3", &m), KVP_OK);
    assert_int_equal(m, KVP_SPEC_EAGLE3);
    assert_int_equal(kvp_spec_mode_parse("medusa", &m), KVP_INVALID_ARG);
    /* The standalone drafter keeps its weights dtype under a target fp8 KV cache ... */
    assert_int_equal(kvp_draft_kv_dtype(KVP_SPEC_DFLASH, KVP_DTYPE_FP8, KVP_DTYPE_BF16),
                     KVP_DTYPE_BF16);
    /* ... other modes follow the target's KV dtype; a non-fp8 KV dtype is kept too. */
    assert_int_equal(kvp_draft_kv_dtype(KVP_SPEC_EAGLE3, KVP_DTYPE_FP8, KVP_DTYPE_BF16),
                     KVP_DTYPE_FP8);
    assert_int_equal(kvp_draft_kv_dtype(KVP_SPEC_DFLASH, KVP_DTYPE_NVFP4, KVP_DTYPE_BF16),
                     KVP_DTYPE_NVFP4);
}

static void config_facts(void **state) {
    (void)state;
    kvp_model *m = NULL;
    /* Qwen3-Next: num_experts 512. gpt-oss: num_local_experts 128. Llama: none -> 1. */
    assert_int_equal(kvp_model_from_catalog("qwen3-next-80b-a3b-thinking", NULL, &m, NULL),
                     KVP_OK);
    assert_int_equal(kvp_num_experts(m), 512);
    kvp_model_free(m);
    assert_int_equal(kvp_model_from_catalog("gpt-oss-120b", NULL, &m, NULL), KVP_OK);
    assert_int_equal(kvp_num_experts(m), 128);
    const char *mods[] = {"attn_q", "attn_k", "attn_v", "mlp_h_to_4h"};
    uint64_t slots;
    /* No block_configs: 36 layers x 4 modules = 144. */
    assert_int_equal(kvp_lora_module_slots(m, mods, 4, &slots, NULL), KVP_OK);
    assert_int_equal(slots, 144);
    kvp_model_free(m);
    assert_int_equal(kvp_model_from_catalog("llama-3.1-8b", NULL, &m, NULL), KVP_OK);
    assert_int_equal(kvp_num_experts(m), 1);
    kvp_model_free(m);
    /* Nemotron-NAS style block_configs over 3 layers: layer 1's attention is a no_op and
     * layer 2's FFN is replaced by a linear layer. attn modules: 2 layers x 2 = 4;
     * mlp: 2 layers x 1 = 2; other ("moe_router"): 3 layers x 1 = 3; total 9. */
    m = load("{\"model_type\":\"nemotron-nas\",\"hidden_size\":256,\"num_attention_heads\":4,"
             "\"num_key_value_heads\":2,\"num_hidden_layers\":3,\"head_dim\":64,"
             "\"max_position_embeddings\":4096,\"vocab_size\":1000,\"block_configs\":["
             "{\"attention\":{\"no_op\":false,\"n_heads_in_group\":2},\"ffn\":{\"no_op\":false}},"
             "{\"attention\":{\"no_op\":true},\"ffn\":{\"no_op\":false}},"
             "{\"attention\":{\"no_op\":false,\"n_heads_in_group\":2},"
             "\"ffn\":{\"replace_with_linear\":true}}]}");
    const char *nas[] = {"attn_q", "attn_dense", "mlp_gate", "moe_router"};
    assert_int_equal(kvp_lora_module_slots(m, nas, 4, &slots, NULL), KVP_OK);
    assert_int_equal(slots, 9);
    kvp_model_free(m);
}

static void gemma4(void **state) {
    (void)state;
    kvp_model *m = NULL;
    uint32_t hd[64], kvh[64];
    assert_int_equal(kvp_model_from_catalog("gemma-4-26b-a4b", NULL, &m, NULL), KVP_OK);
    /* 30 layers: sliding ones head_dim 256 with 8 KV heads; full ones global_head_dim 512
     * with attention_k_eq_v -> num_global_key_value_heads 2. Layer 5 is the first full one
     * (five sliding, then one full). */
    assert_int_equal(kvp_gemma4_layer_geometry(m, hd, kvh, 64), 30);
    assert_int_equal(hd[0], 256);
    assert_int_equal(kvh[0], 8);
    assert_int_equal(hd[5], 512);
    assert_int_equal(kvh[5], 2);
    kvp_model_free(m);
    assert_int_equal(kvp_model_from_catalog("llama-3.1-8b", NULL, &m, NULL), KVP_OK);
    assert_int_equal(kvp_gemma4_layer_geometry(m, hd, kvh, 64), 0);
    kvp_model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(draft_shares),   cmocka_unit_test(split_for_draft),
        cmocka_unit_test(cross_geometry), cmocka_unit_test(cross_split),
        cmocka_unit_test(spec_facts),     cmocka_unit_test(config_facts),
        cmocka_unit_test(gemma4),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
