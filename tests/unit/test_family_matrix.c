/*
 * test_family_matrix.c — issue 13 item 6: every family of the issue, from its
 * catalogue config, under the cost model and each policy (vLLM, SGLang, the
 * TensorRT-LLM creator, llama.cpp) at TP 1 and 8, bf16 and fp8 KV. Each row is
 * worked by hand in the comment above it from shared/reference/FAMILIES.md and
 * ENGINES.md; a combination an engine cannot run is asserted as a refusal with
 * the key it names.
 *
 * Common settings: vLLM and SGLang from a KV budget of 40 GiB = 42,949,672,960 B
 * and max_model_len 32,768; the creator from the same budget with
 * max_batch_size 64 (its recurrent pools are sized per slot: 64 + 1 dummy);
 * llama.cpp at --ctx-size 32,768 (padded to 256: unchanged), one sequence.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "kvplan/kvplan.h"
#include "test_family_helpers.h"

#define BUDGET (UINT64_C(40) << 30) /* 42,949,672,960 */

static const char *dtype_name(kvp_dtype dt) { return dt == KVP_DTYPE_FP8 ? "fp8" : "bf16"; }

/* ------------------------------------------------------------- one cell */

typedef struct expect {
    uint32_t tp;
    kvp_dtype dt;
    /* kvp_cost: affine bytes per token and per sequence slot. */
    uint64_t cost_token, cost_seq;
    /* vLLM: block size, page_bytes (one layer's block; a uniform group's sum),
     * num_gpu_blocks. 0 block = skip (covered elsewhere). */
    uint32_t v_block;
    uint64_t v_page, v_blocks;
    /* SGLang: cell_size and the bytes of one state slot (0 = no state pool). */
    uint64_t s_cell, s_state;
    /* Creator (TensorRT-LLM): the target manager's slope and intercept (all slots). */
    uint64_t t_slope, t_seq;
} expect;

static kvp_status policy(const kvp_model *m, kvp_engine e, uint32_t tp, kvp_dtype dt,
                         kvp_policy_result *r, kvp_error *err) {
    kvp_policy_settings s = kvp_policy_settings_default();
    s.engine = e;
    s.tp = tp;
    s.kv_budget_bytes = BUDGET;
    s.max_model_len = 32768;
    s.n_ctx = 32768;
    snprintf(s.kv_dtype, sizeof s.kv_dtype, "%s", dtype_name(dt));
    memset(err, 0, sizeof *err);
    return kvp_policy_plan(m, &s, r, err);
}

static const kvp_policy_pool *state_pool(const kvp_policy_result *r) {
    for (uint32_t i = 0; i < r->pool_count; i++)
        if (r->pools[i].kind == KVP_CACHE_RECURRENT) return &r->pools[i];
    return NULL;
}

static kvp_status creator(const kvp_model *m, uint32_t tp, kvp_dtype dt, kvp_affine_cost *cost,
                          kvp_error *err) {
    kvp_deploy_settings d;
    memset(&d, 0, sizeof d);
    d.tp = tp;
    d.kv_dtype = dt;
    d.max_seq_len = 32768;
    d.max_batch_size = 64;
    kvp_kv_config kv;
    memset(&kv, 0, sizeof kv);
    kvp_creator *c = NULL;
    memset(err, 0, sizeof *err);
    kvp_status st = kvp_creator_new(m, NULL, &d, &kv, NULL, &c, err);
    if (st) return st;
    kvp_capacity cap;
    kvp_plan p;
    if ((st = kvp_creator_configure_budget(c, BUDGET, &cap, err)) ||
        (st = kvp_creator_build(c, false, &p, err))) {
        kvp_creator_free(c);
        return st;
    }
    *cost = p.managers[KVP_ROLE_TARGET].cost;
    kvp_creator_free(c);
    return KVP_OK;
}

static void check(const char *name, const expect *x) {
    kvp_model *m = family_catalog(name);
    char where[96];
    snprintf(where, sizeof where, "%s tp %u %s", name, x->tp, dtype_name(x->dt));
    kvp_cost c = family_cost(m, x->tp, x->dt);
    if (c.bytes_per_token != x->cost_token || c.bytes_per_sequence != x->cost_seq)
        fail_msg("%s: cost %llu B/token + %llu B/seq, expected %llu + %llu", where,
                 (unsigned long long)c.bytes_per_token, (unsigned long long)c.bytes_per_sequence,
                 (unsigned long long)x->cost_token, (unsigned long long)x->cost_seq);
    kvp_policy_result r;
    kvp_error err;
    if (x->v_block) {
        if (policy(m, KVP_ENGINE_VLLM, x->tp, x->dt, &r, &err) != KVP_OK)
            fail_msg("%s: vllm: %s", where, err.message);
        if (r.block_size != x->v_block || r.page_bytes != x->v_page ||
            r.report.num_gpu_blocks != x->v_blocks)
            fail_msg("%s: vllm block %u page %llu blocks %llu, expected %u %llu %llu", where,
                     r.block_size, (unsigned long long)r.page_bytes,
                     (unsigned long long)r.report.num_gpu_blocks, x->v_block,
                     (unsigned long long)x->v_page, (unsigned long long)x->v_blocks);
    }
    if (x->s_cell) {
        if (policy(m, KVP_ENGINE_SGLANG, x->tp, x->dt, &r, &err) != KVP_OK)
            fail_msg("%s: sglang: %s", where, err.message);
        const kvp_policy_pool *sp = state_pool(&r);
        uint64_t state = sp ? sp->page_bytes : 0;
        if (r.cell_bytes != x->s_cell || state != x->s_state)
            fail_msg("%s: sglang cell %llu state %llu, expected %llu %llu", where,
                     (unsigned long long)r.cell_bytes, (unsigned long long)state,
                     (unsigned long long)x->s_cell, (unsigned long long)x->s_state);
    }
    if (x->t_slope) {
        kvp_affine_cost ac;
        if (creator(m, x->tp, x->dt, &ac, &err) != KVP_OK)
            fail_msg("%s: creator: %s", where, err.message);
        if (ac.slope_bytes_per_token != x->t_slope || ac.intercept_bytes != x->t_seq)
            fail_msg("%s: creator %llu B/token + %llu B/seq, expected %llu + %llu", where,
                     (unsigned long long)ac.slope_bytes_per_token,
                     (unsigned long long)ac.intercept_bytes,
                     (unsigned long long)x->t_slope, (unsigned long long)x->t_seq);
    }
    kvp_model_free(m);
}

static void check_all(const char *name, const expect *rows, size_t n) {
    for (size_t i = 0; i < n; i++) check(name, &rows[i]);
}

#define ROWS(name, rows) check_all(name, rows, sizeof rows / sizeof rows[0])

/* llama.cpp: no TP (tp 8 refused at "tp"), no fp8 cache type (refused at
 * "kv_dtype"); a family whose llama.cpp arch kvplan has not checked is refused
 * at "model_type" before either. */
static void llamacpp_refuses(const char *name, const char *key_tp8, const char *key_fp8) {
    kvp_model *m = family_catalog(name);
    kvp_policy_result r;
    kvp_error err;
    if (policy(m, KVP_ENGINE_LLAMACPP, 8, KVP_DTYPE_BF16, &r, &err) == KVP_OK ||
        strcmp(err.key, key_tp8) != 0)
        fail_msg("%s: llama.cpp tp 8 refused at '%s', expected '%s'", name, err.key, key_tp8);
    if (policy(m, KVP_ENGINE_LLAMACPP, 1, KVP_DTYPE_FP8, &r, &err) == KVP_OK ||
        strcmp(err.key, key_fp8) != 0)
        fail_msg("%s: llama.cpp fp8 refused at '%s', expected '%s'", name, err.key, key_fp8);
    kvp_model_free(m);
}

/* ---------------------------------------------------------- MiniMax-M2.5 */

static void test_minimax_m25(void **state) {
    (void)state;
    /* attn_type_list absent / all softmax: 62 GQA layers, 8 KV heads x 128, K+V.
     * Per token: 62 x kvh x 256 x b; kvh 8 at TP 1, 1 at TP 8.
     *   TP 1 bf16 253,952; fp8 126,976; TP 8 bf16 31,744; fp8 15,872. No state.
     * vLLM: 16-token blocks, page = 16 x kvh x 256 x b per layer, 62 layers a block:
     *   TP 1 bf16 65,536 -> 42,949,672,960 // 4,063,232 = 10,570
     *   TP 1 fp8  32,768 -> // 2,031,616 = 21,140
     *   TP 8 bf16  8,192 -> // 507,904 = 84,562
     *   TP 8 fp8   4,096 -> // 253,952 = 169,125
     * SGLang cell = the bytes per token; the creator's slope too. */
    static const expect rows[] = {
        {1, KVP_DTYPE_BF16, 253952, 0, 16, 65536, 10570, 253952, 0, 253952, 0},
        {1, KVP_DTYPE_FP8, 126976, 0, 16, 32768, 21140, 126976, 0, 126976, 0},
        {8, KVP_DTYPE_BF16, 31744, 0, 16, 8192, 84562, 31744, 0, 31744, 0},
        {8, KVP_DTYPE_FP8, 15872, 0, 16, 4096, 169125, 15872, 0, 15872, 0},
    };
    ROWS("minimax-m2.5", rows);
    /* llama.cpp (minimax-m2, checked against the engine): 62 x 1,024 x 2 B x 32,768
     * cells = 4,160,749,568 B of K and as much of V. */
    kvp_model *m = family_catalog("minimax-m2.5");
    kvp_policy_result r;
    kvp_error err;
    assert_int_equal(policy(m, KVP_ENGINE_LLAMACPP, 1, KVP_DTYPE_BF16, &r, &err), KVP_OK);
    assert_int_equal(r.report.k_size_bytes, 4160749568ull);
    assert_int_equal(r.report.v_size_bytes, 4160749568ull);
    kvp_model_free(m);
    llamacpp_refuses("minimax-m2.5", "tp", "kv_dtype");
}

/* ------------------------------------------------------------ MiniMax-M3 */

static void test_minimax_m3(void **state) {
    (void)state;
    /* M2.5's K+V plus index keys on the 60 layers with sparse_attention_freq != 0:
     * one head of sparse_index_dim 128, bf16 whatever the KV dtype, replicated:
     * 60 x 128 x 2 = 15,360 B per token.
     *   TP 1 bf16 253,952 + 15,360 = 269,312; fp8 126,976 + 15,360 = 142,336
     *   TP 8 bf16 31,744 + 15,360 = 47,104;   fp8 15,872 + 15,360 = 31,232
     * vLLM: one uniform group of 122 layers, 16-token blocks, page = the block's sum:
     *   TP 1 bf16 16 x 269,312 = 4,308,992 -> 42,949,672,960 // 4,308,992 = 9,967
     *   TP 1 fp8  16 x 142,336 = 2,277,376 -> 18,859
     *   TP 8 bf16 16 x 47,104 = 753,664 -> 56,987
     *   TP 8 fp8  16 x 31,232 = 499,712 -> 85,948
     * SGLang: the cell holds both. The creator leaves the indexer K cache out of
     * its slope (ENGINES.md §4.4: sized on the C++ side; the plan warns), so its
     * slope is M2.5's. */
    static const expect rows[] = {
        {1, KVP_DTYPE_BF16, 269312, 0, 16, 4308992, 9967, 269312, 0, 253952, 0},
        {1, KVP_DTYPE_FP8, 142336, 0, 16, 2277376, 18859, 142336, 0, 126976, 0},
        {8, KVP_DTYPE_BF16, 47104, 0, 16, 753664, 56987, 47104, 0, 31744, 0},
        {8, KVP_DTYPE_FP8, 31232, 0, 16, 499712, 85948, 31232, 0, 15872, 0},
    };
    ROWS("minimax-m3", rows);
    /* llama.cpp's minimax-m3 arch is not checked: refused at model_type. */
    llamacpp_refuses("minimax-m3", "model_type", "model_type");
}

/* ------------------------------------------------------ MiniMax-Text-01 */

static void test_minimax_lightning(void **state) {
    (void)state;
    /* attn_type_list: 10 softmax layers (8 KV heads x 128), 70 lightning layers,
     * each a state of (64 / TP) x 128 x 128 in the model dtype (bf16), whatever
     * the KV dtype:
     *   tokens: 10 x kvh x 256 x b: TP 1 bf16 40,960, fp8 20,480; TP 8 5,120, 2,560
     *   state: 70 x 64 x 16,384 x 2 = 146,800,640 at TP 1; 70 x 8 x 32,768 =
     *          18,350,080 at TP 8
     * vLLM: attention page per token and layer u = kvh x 256 x b; state page
     * 2,097,152 (TP 1) / 262,144 (TP 8); block = 16 x ceil(state / (16 u)):
     *   TP 1 bf16 u 4,096: 16 x 32 = 512, page 2,097,152
     *   TP 1 fp8  u 2,048: 1,024, page 2,097,152
     *   TP 8 bf16 u 512: 16 x ceil(262,144 / 8,192) = 512, page 262,144
     *   TP 8 fp8  u 256: 1,024, page 262,144
     * groups of 10 layers: blocks = budget // (10 x page) = 2,048 (TP 1), 16,384 (TP 8).
     * SGLang: cell = bytes per token; one unpadded state slot, its SSM-like state in
     * SGLang's --mamba-ssm-dtype default float32 (ENGINES.md §2.6): 70 x 64 x 16,384
     * x 4 = 293,601,280 (TP 1), 70 x 8 x 16,384 x 4 = 36,700,160 (TP 8).
     * Creator: slope = bytes per token, intercept = the state (model dtype: no
     * mamba_ssm_cache_dtype, ENGINES.md §4.4) of 65 slots: 65 x 146,800,640 =
     * 9,542,041,600; 65 x 18,350,080 = 1,192,755,200. */
    static const expect rows[] = {
        {1, KVP_DTYPE_BF16, 40960, 146800640, 512, 2097152, 2048, 40960, 293601280, 40960,
         9542041600ull},
        {1, KVP_DTYPE_FP8, 20480, 146800640, 1024, 2097152, 2048, 20480, 293601280, 20480,
         9542041600ull},
        {8, KVP_DTYPE_BF16, 5120, 18350080, 512, 262144, 16384, 5120, 36700160, 5120, 1192755200},
        {8, KVP_DTYPE_FP8, 2560, 18350080, 1024, 262144, 16384, 2560, 36700160, 2560, 1192755200},
    };
    ROWS("minimax-text-01", rows);
    /* llama.cpp refuses minimax-01 (lightning attention, docs/families.md). */
    llamacpp_refuses("minimax-text-01", "model_type", "model_type");
}

/* ------------------------------------------------------------ Kimi-Linear */

static void test_kimi_linear(void **state) {
    (void)state;
    /* 7 MLA layers (kv_lora_rank 512 + rope 64 = 576 per token, replicated) and
     * 20 KDA layers: conv 3 x (32 / TP) x 128 x (4 - 1) x 2 B (bf16) + recurrent
     * (32 / TP) x 128 x 128 x 4 B (fp32), neither in the KV dtype:
     *   tokens 7 x 576 x b: bf16 8,064, fp8 4,032 (any TP)
     *   state TP 1: 20 x (73,728 + 2,097,152) = 43,417,600
     *         TP 8: 20 x (9,216 + 262,144) = 5,427,200
     * vLLM (MLA alignment 64): block = 64 x ceil(state layer / (64 x 576 b)):
     *   TP 1 bf16: 64 x ceil(2,170,880 / 73,728) = 64 x 30 = 1,920, page 2,211,840;
     *              groups of 7: 42,949,672,960 // 15,482,880 = 2,774
     *   TP 1 fp8:  64 x ceil(2,170,880 / 36,864) = 64 x 59 = 3,776, page 2,174,976;
     *              // 15,224,832 = 2,821
     *   TP 8 bf16: 64 x ceil(271,360 / 73,728) = 256, page 294,912; // 2,064,384 = 20,805
     *   TP 8 fp8:  64 x ceil(271,360 / 36,864) = 512, page 294,912; 20,805
     * SGLang cell = bytes per token, one state slot of the state; the creator
     * (the seed's Kimi route) the same slope and the state of 65 slots:
     * 65 x 43,417,600 = 2,822,144,000; 65 x 5,427,200 = 352,768,000. */
    static const expect rows[] = {
        {1, KVP_DTYPE_BF16, 8064, 43417600, 1920, 2211840, 2774, 8064, 43417600, 8064, 2822144000},
        {1, KVP_DTYPE_FP8, 4032, 43417600, 3776, 2174976, 2821, 4032, 43417600, 4032, 2822144000},
        {8, KVP_DTYPE_BF16, 8064, 5427200, 256, 294912, 20805, 8064, 5427200, 8064, 352768000},
        {8, KVP_DTYPE_FP8, 4032, 5427200, 512, 294912, 20805, 4032, 5427200, 4032, 352768000},
    };
    ROWS("kimi-linear-48b-a3b-instruct", rows);
    llamacpp_refuses("kimi-linear-48b-a3b-instruct", "model_type", "model_type");
}

/* Kimi-K3: the same KDA + MLA reader and the seed's Kimi route, from a small
 * config (the catalogue holds no kimi_k3 release, so the family reads as
 * unverified: verified false and a note, docs/families.md). */
static void test_kimi_k3(void **state) {
    (void)state;
    static const char json[] =
        "{\"model_type\": \"kimi_k3\", \"num_hidden_layers\": 3, \"num_attention_heads\": 8,"
        " \"num_key_value_heads\": 8, \"hidden_size\": 512, \"kv_lora_rank\": 128,"
        " \"qk_rope_head_dim\": 64, \"qk_nope_head_dim\": 64, \"v_head_dim\": 64,"
        " \"torch_dtype\": \"bfloat16\", \"linear_attn_config\": {\"kda_layers\": [1, 3],"
        " \"full_attn_layers\": [2], \"num_heads\": 4, \"head_dim\": 128,"
        " \"short_conv_kernel_size\": 3}}";
    kvp_model *m = NULL;
    kvp_error err;
    assert_int_equal(kvp_model_from_hf_json(json, strlen(json), "k3.json", NULL, &m, &err), KVP_OK);
    assert_true(kvp_model_get_info(m)->family_unverified);
    /* 1-indexed: layers 0 and 2 KDA, layer 1 MLA. MLA (128 + 64) x b per token:
     * bf16 384, fp8 192. KDA per layer: conv 3 x (4 / TP) x 128 x (3 - 1) x 2 B +
     * state (4 / TP) x 128 x 128 x 4 B: TP 1 6,144 + 262,144 = 268,288, x 2 layers
     * = 536,576; TP 2 3,072 + 131,072 = 134,144, x 2 = 268,288. */
    static const struct {
        uint32_t tp;
        kvp_dtype dt;
        uint64_t token, seq;
    } rows[] = {
        {1, KVP_DTYPE_BF16, 384, 536576},
        {1, KVP_DTYPE_FP8, 192, 536576},
        {2, KVP_DTYPE_BF16, 384, 268288},
        {2, KVP_DTYPE_FP8, 192, 268288},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        kvp_cost c = family_cost(m, rows[i].tp, rows[i].dt);
        assert_int_equal(c.bytes_per_token, rows[i].token);
        assert_int_equal(c.bytes_per_sequence, rows[i].seq);
    }
    /* TP 8: 4 KDA heads do not divide by 8. */
    kvp_cost_settings cs = kvp_cost_settings_default();
    cs.tp = 8;
    kvp_cost c;
    assert_int_not_equal(kvp_cost_compute(m, &cs, &c, &err), KVP_OK);
    /* vLLM at TP 1 bf16: block 64 x ceil(268,288 / (64 x 384)) = 64 x 11 = 704,
     * page 704 x 384 = 270,336. SGLang: cell 384, one state slot of 536,576. */
    kvp_policy_result r;
    assert_int_equal(policy(m, KVP_ENGINE_VLLM, 1, KVP_DTYPE_BF16, &r, &err), KVP_OK);
    assert_int_equal(r.block_size, 704);
    assert_int_equal(r.page_bytes, 270336);
    assert_int_equal(policy(m, KVP_ENGINE_SGLANG, 1, KVP_DTYPE_BF16, &r, &err), KVP_OK);
    assert_int_equal(r.cell_bytes, 384);
    assert_non_null(state_pool(&r));
    assert_int_equal(state_pool(&r)->page_bytes, 536576);
    /* The creator takes the Kimi route: slope 384, 65 slots x 536,576 = 34,877,440. */
    kvp_affine_cost ac;
    assert_int_equal(creator(m, 1, KVP_DTYPE_BF16, &ac, &err), KVP_OK);
    assert_int_equal(ac.slope_bytes_per_token, 384);
    assert_int_equal(ac.intercept_bytes, 34877440);
    /* llama.cpp's kimi-k3 arch is not checked: refused at model_type. */
    assert_int_equal(policy(m, KVP_ENGINE_LLAMACPP, 1, KVP_DTYPE_BF16, &r, &err),
                     KVP_UNSUPPORTED);
    assert_string_equal(err.key, "model_type");
    kvp_model_free(m);
}

/* ------------------------------------------------------------------ GLM-5 */

static void test_glm5(void **state) {
    (void)state;
    /* 78 MLA layers (576 x b, replicated) and, without index_topk_freq, an indexer
     * on every layer: 78 x 132 = 10,296 B per token (128 fp8 + 4 scale bytes).
     *   bf16 78 x 1,152 + 10,296 = 100,152; fp8 78 x 576 + 10,296 = 55,224 (any TP)
     * vLLM: 64-token blocks, MLA and indexer in one uniform group of 156 layers:
     *   bf16 64 x 100,152 = 6,409,728 -> 42,949,672,960 // 6,409,728 = 6,700
     *   fp8  64 x 55,224 = 3,534,336 -> 12,152
     * SGLang: bf16 cell 100,152; fp8 the NSA row of 656 B (ENGINES.md §2: 512 fp8
     * + 16 scale bytes + 64 x 2 rope) + 132 = 78 x 788 = 61,464.
     * The creator's slope leaves the indexer out: 89,856 / 44,928. */
    static const expect rows[] = {
        {1, KVP_DTYPE_BF16, 100152, 0, 64, 6409728, 6700, 100152, 0, 89856, 0},
        {1, KVP_DTYPE_FP8, 55224, 0, 64, 3534336, 12152, 61464, 0, 44928, 0},
        {8, KVP_DTYPE_BF16, 100152, 0, 64, 6409728, 6700, 100152, 0, 89856, 0},
        {8, KVP_DTYPE_FP8, 55224, 0, 64, 3534336, 12152, 61464, 0, 44928, 0},
    };
    ROWS("glm-5", rows);
    /* llama.cpp (glm-dsa): MLA K of 576 x 2 B and the indexer K of 128 x 2 B (the
     * -ctk type) per cell on the 78 layers: 78 x 1,152 x 32,768 = 2,944,401,408 and
     * 78 x 256 x 32,768 = 654,311,424. */
    kvp_model *m = family_catalog("glm-5");
    kvp_policy_result r;
    kvp_error err;
    assert_int_equal(policy(m, KVP_ENGINE_LLAMACPP, 1, KVP_DTYPE_BF16, &r, &err), KVP_OK);
    assert_int_equal(r.report.k_size_bytes, 2944401408ull);
    assert_int_equal(r.indexer_layers, 78);
    assert_int_equal(r.indexer_bytes, 654311424ull);
    kvp_model_free(m);
    llamacpp_refuses("glm-5", "tp", "kv_dtype");
}

/* ------------------------------------------------------------- Nemotron-3 */

static void test_nemotron3(void **state) {
    (void)state;
    /* layers_block_type, no num_hidden_layers: 52 blocks, 23 "mamba", 6 "attention".
     * Attention: 2 KV heads x 128, K+V: 6 x kvh x 256 x b (kvh 2 at TP 1; 1 at TP 8,
     * replicated): TP 1 bf16 6,144, fp8 3,072; TP 8 bf16 3,072, fp8 1,536.
     * Mamba2 per layer: conv (4 - 1) x (64 x 64 + 2 x 8 x 128) / TP x 2 B + SSM
     * (64 / TP) x 64 x 128 x 4 B (mamba_ssm_cache_dtype float32):
     *   TP 1: 36,864 + 2,097,152 = 2,134,016 x 23 = 49,082,368
     *   TP 8: 4,608 + 262,144 = 266,752 x 23 = 6,135,296
     * vLLM: attention page per token and layer u = kvh x 256 x b; block = 16 x
     * ceil(state layer / (16 u)), page = block x u; 23 mamba >= 1.5 x 6 attention
     * layers, so groups of 6 and blocks = budget // (6 x page):
     *   TP 1 bf16 u 1,024: 16 x ceil(130.25) = 2,096, page 2,146,304, // 12,877,824 = 3,335
     *   TP 1 fp8  u 512: 16 x ceil(260.5) = 4,176, page 2,138,112, // 12,828,672 = 3,347
     *   TP 8 bf16 u 512: 16 x ceil(266,752 / 8,192) = 528, page 270,336,
     *             // 1,622,016 = 26,479
     *   TP 8 fp8  u 256: 16 x ceil(65.125) = 1,056, page 270,336, 26,479
     * SGLang:
     * cell = bytes per token, one state slot; the creator the same slope and 65
     * slots of state: 65 x 49,082,368 = 3,190,353,920; 65 x 6,135,296 = 398,794,240. */
    static const expect rows[] = {
        {1, KVP_DTYPE_BF16, 6144, 49082368, 2096, 2146304, 3335, 6144, 49082368, 6144, 3190353920ull},
        {1, KVP_DTYPE_FP8, 3072, 49082368, 4176, 2138112, 3347, 3072, 49082368, 3072, 3190353920ull},
        {8, KVP_DTYPE_BF16, 3072, 6135296, 528, 270336, 26479, 3072, 6135296, 3072, 398794240},
        {8, KVP_DTYPE_FP8, 1536, 6135296, 1056, 270336, 26479, 1536, 6135296, 1536, 398794240},
    };
    ROWS("nvidia-nemotron-3-nano-30b-a3b", rows);
    /* llama.cpp (nemotron_h): K and V 6 x 256 x 2 B x 32,768 = 100,663,296 each;
     * recurrent in f32: R 23 x 3 x 6,144 x 4 = 1,695,744, S 23 x 64 x 64 x 128 x 4
     * = 48,234,496. */
    kvp_model *m = family_catalog("nvidia-nemotron-3-nano-30b-a3b");
    kvp_policy_result r;
    kvp_error err;
    assert_int_equal(policy(m, KVP_ENGINE_LLAMACPP, 1, KVP_DTYPE_BF16, &r, &err), KVP_OK);
    assert_int_equal(r.report.k_size_bytes, 100663296ull);
    assert_int_equal(r.report.v_size_bytes, 100663296ull);
    assert_int_equal(r.recurrent_r_bytes, 1695744);
    assert_int_equal(r.recurrent_s_bytes, 48234496);
    kvp_model_free(m);
    llamacpp_refuses("nvidia-nemotron-3-nano-30b-a3b", "tp", "kv_dtype");
}

/* ------------------------------------------- Qwen2.5-7B: no window, TP 8 */

static void test_qwen25_7b(void **state) {
    (void)state;
    /* use_sliding_window false: 28 full layers (no window), 4 KV heads x 128:
     * 28 x 4 x 256 x b = 57,344 bf16, 28,672 fp8. vLLM 16-token blocks, page
     * 16 x 4 x 256 x b = 32,768 / 16,384; 42,949,672,960 // (28 x 32,768 = 917,504)
     * = 46,811; fp8 // 458,752 = 93,622. */
    static const expect rows[] = {
        {1, KVP_DTYPE_BF16, 57344, 0, 16, 32768, 46811, 57344, 0, 57344, 0},
        {1, KVP_DTYPE_FP8, 28672, 0, 16, 16384, 93622, 28672, 0, 28672, 0},
    };
    ROWS("qwen2.5-7b", rows);
    /* TP 8: 28 query heads do not divide by 8: the cost model, vLLM, SGLang and the
     * creator refuse at num_attention_heads, in bf16 and fp8 alike. */
    kvp_model *m = family_catalog("qwen2.5-7b");
    static const kvp_dtype dts[] = {KVP_DTYPE_BF16, KVP_DTYPE_FP8};
    for (size_t i = 0; i < 2; i++) {
        kvp_cost_settings cs = kvp_cost_settings_default();
        cs.tp = 8;
        cs.kv_dtype = dts[i];
        kvp_cost c;
        kvp_error err;
        assert_int_equal(kvp_cost_compute(m, &cs, &c, &err), KVP_CONFIG);
        assert_string_equal(err.key, "num_attention_heads");
        kvp_policy_result r;
        assert_int_equal(policy(m, KVP_ENGINE_VLLM, 8, dts[i], &r, &err), KVP_CONFIG);
        assert_string_equal(err.key, "num_attention_heads");
        assert_int_equal(policy(m, KVP_ENGINE_SGLANG, 8, dts[i], &r, &err), KVP_CONFIG);
        assert_string_equal(err.key, "num_attention_heads");
        kvp_affine_cost ac;
        assert_int_not_equal(creator(m, 8, dts[i], &ac, &err), KVP_OK);
        assert_string_equal(err.key, "num_attention_heads");
    }
    kvp_model_free(m);
    llamacpp_refuses("qwen2.5-7b", "tp", "kv_dtype");
}

/* ------------------------------------------------------------ DeepSeek-V4 */

static void test_deepseek_v4(void **state) {
    (void)state;
    /* Every V4 cache is replicated: the same bytes at TP 1 and 8 (sums in
     * test_families_current.c): one 4,096-token sequence, 32-token blocks,
     * bf16 43,356,160 B, fp8 29,200,384 B = 4 x 32 x 22,016 (window) + 32 x 32 x
     * 10,752 (ratio 4) + 1,024 x 2,772 (indexer) + 1 x 32 x 10,240 (ratio 128)
     * + 12,206,080 (fp32 state) = 2,818,048 + 11,010,048 + 2,838,528 + 327,680 +
     * 12,206,080. The affine part alone: 1,024 B per window token per layer x 43 x b. */
    kvp_model *m = family_catalog("deepseek-v4-flash");
    static const struct {
        uint32_t tp;
        kvp_dtype dt;
        uint64_t token, seq4096;
    } rows[] = {
        {1, KVP_DTYPE_BF16, 44032, 43356160},
        {8, KVP_DTYPE_BF16, 44032, 43356160},
        {1, KVP_DTYPE_FP8, 22016, 29200384},
        {8, KVP_DTYPE_FP8, 22016, 29200384},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        kvp_cost c = family_cost(m, rows[i].tp, rows[i].dt);
        assert_true(c.non_affine);
        assert_int_equal(c.bytes_per_token, rows[i].token);
        assert_int_equal(c.bytes_per_sequence, 12206080);
        uint64_t b = 0;
        kvp_error err;
        assert_int_equal(kvp_cost_sequence_bytes(&c, 4096, &b, &err), KVP_OK);
        assert_int_equal(b, rows[i].seq4096);
        /* vLLM: exact (test_policy_v4_mamba.c). SGLang and the creator: refused at
         * compress_ratios (their split across the V4 pools is [unknown]). */
        kvp_policy_result r;
        assert_int_equal(policy(m, KVP_ENGINE_VLLM, rows[i].tp, rows[i].dt, &r, &err), KVP_OK);
        assert_int_equal(policy(m, KVP_ENGINE_SGLANG, rows[i].tp, rows[i].dt, &r, &err),
                         KVP_UNSUPPORTED);
        assert_string_equal(err.key, "compress_ratios");
        kvp_affine_cost ac;
        assert_int_equal(creator(m, rows[i].tp, rows[i].dt, &ac, &err), KVP_UNSUPPORTED);
        assert_string_equal(err.key, "compress_ratios");
    }
    /* llama.cpp: no deepseek4 run; refused at compress_ratios before TP or dtype. */
    llamacpp_refuses("deepseek-v4-flash", "compress_ratios", "compress_ratios");
    kvp_model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_minimax_m25),   cmocka_unit_test(test_minimax_m3),
        cmocka_unit_test(test_minimax_lightning), cmocka_unit_test(test_kimi_linear),
        cmocka_unit_test(test_kimi_k3),
        cmocka_unit_test(test_glm5),          cmocka_unit_test(test_nemotron3),
        cmocka_unit_test(test_qwen25_7b),     cmocka_unit_test(test_deepseek_v4),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
