/* test_startup_rules.c — every start-up rule of kvplan/startup.h on both sides
 * of its boundary, with the engine's condition worked by hand in a comment. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kvplan/kvplan.h"
#include "kvplan/startup.h"

static kvp_startup_report g_rep;

/* A small Llama-like config with the given extra keys. */
static kvp_model *model_of(const char *extra) {
    char json[2048];
    snprintf(json, sizeof json,
             "{\"architectures\": [\"LlamaForCausalLM\"], \"model_type\": \"llama\", "
             "\"num_hidden_layers\": 4, \"hidden_size\": 5120, \"num_attention_heads\": 40, "
             "\"num_key_value_heads\": 8, \"head_dim\": 128, \"intermediate_size\": 13824, "
             "\"vocab_size\": 152064, \"torch_dtype\": \"bfloat16\"%s%s}",
             extra && *extra ? ", " : "", extra ? extra : "");
    kvp_model *m = NULL;
    kvp_error err;
    if (kvp_model_from_hf_json(json, strlen(json), "t.json", NULL, &m, &err) != KVP_OK)
        fprintf(stderr, "model: %s\n", err.message);
    assert_non_null(m);
    return m;
}

static kvp_startup_settings settings(kvp_engine e, uint32_t cc) {
    kvp_startup_settings s = kvp_startup_settings_default();
    s.policy.engine = e;
    if (cc) {
        s.gpu.compute_capability = cc;
        snprintf(s.gpu.name, sizeof s.gpu.name, "GPU%u", cc);
        snprintf(s.gpu.vendor, sizeof s.gpu.vendor, "nvidia");
        s.gpu_known = true;
    }
    return s;
}

static const kvp_check_row *row(const char *id) {
    for (uint32_t i = 0; i < g_rep.count; i++)
        if (strcmp(g_rep.checks[i].rule, id) == 0) return &g_rep.checks[i];
    return NULL;
}

static kvp_check_status status_of(kvp_model *m, const kvp_startup_settings *s,
                                  const kvp_startup_plan_input *plan, const char *id) {
    kvp_error err;
    memset(&g_rep, 0x5a, sizeof g_rep); /* poisoned: every field must be written */
    assert_int_equal(kvp_startup_check(m, s, plan, &g_rep, &err), KVP_OK);
    const kvp_check_row *r = row(id);
    if (!r) fprintf(stderr, "no row %s\n", id);
    assert_non_null(r);
    return r->status;
}

static void test_par_heads_and_kv(void **state) {
    (void)state;
    kvp_model *m = model_of(NULL);
    kvp_startup_settings s = settings(KVP_ENGINE_VLLM, 90);
    /* 40 heads at TP 5: 40 % 5 = 0 -> V-PAR-1 passes; 8 KV heads at TP 5: TP < KV
     * and 8 % 5 = 3 -> QKVParallelLinear's divide(8, 5) fails (V-PAR-2). */
    s.policy.tp = 5;
    assert_int_equal(status_of(m, &s, NULL, "V-PAR-1"), KVP_CHECK_PASS);
    assert_int_equal(row("V-PAR-2")->status, KVP_CHECK_REFUSE);
    assert_string_equal(row("V-PAR-2")->message, "8 is not divisible by 5");
    assert_false(g_rep.starts);
    /* TP 8: 40 % 8 = 0 and 8 % 8 = 0 -> both pass; vocab 152064 % 8 = 0, 13824 % 8 = 0. */
    s.policy.tp = 8;
    assert_int_equal(status_of(m, &s, NULL, "V-PAR-1"), KVP_CHECK_PASS);
    assert_int_equal(row("V-PAR-2")->status, KVP_CHECK_PASS);
    assert_int_equal(row("V-PAR-3")->status, KVP_CHECK_PASS);
    /* TP 3: 40 % 3 = 1 -> refused up front with the TP sizes that divide 40. */
    s.policy.tp = 3;
    assert_int_equal(status_of(m, &s, NULL, "V-PAR-1"), KVP_CHECK_REFUSE);
    assert_string_equal(row("V-PAR-1")->message,
                        "Total number of attention heads (40) must be divisible by tensor parallel "
                        "size (3).");
    assert_non_null(strstr(row("V-PAR-1")->fix, "1, 2, 4, 5, 8, 10, 20, 40"));
    /* TP 16 > 8 KV heads: 16 % 8 = 0 -> replicated twice; but 40 % 16 = 8 -> V-PAR-1. */
    s.policy.tp = 16;
    assert_int_equal(status_of(m, &s, NULL, "V-PAR-2"), KVP_CHECK_PASS);
    assert_int_equal(row("V-PAR-1")->status, KVP_CHECK_REFUSE);
    /* V-PAR-2 is a knowledge default: switched off, it is not evaluated. */
    s.policy.tp = 5;
    kvp_error err;
    assert_int_equal(kvp_startup_disable(&s, "defaults", &err), KVP_OK);
    assert_int_equal(status_of(m, &s, NULL, "V-PAR-1"), KVP_CHECK_PASS);
    assert_null(row("V-PAR-2"));
    /* TP 5 still fails V-PAR-3: padded vocab 152064 % 5 = 4. */
    assert_int_equal(row("V-PAR-3")->status, KVP_CHECK_REFUSE);
    assert_int_equal(kvp_startup_disable(&s, "V-NOPE-9", &err), KVP_INVALID_ARG);
    kvp_model_free(m);
}

static void test_sglang_and_trt_heads(void **state) {
    (void)state;
    kvp_model *m = model_of(NULL);
    /* SGLang S-PAR-1: same assertions in model construction; 40 % 3 = 1. */
    kvp_startup_settings s = settings(KVP_ENGINE_SGLANG, 90);
    s.policy.tp = 3;
    assert_int_equal(status_of(m, &s, NULL, "S-PAR-1"), KVP_CHECK_REFUSE);
    s.policy.tp = 8;
    assert_int_equal(status_of(m, &s, NULL, "S-PAR-1"), KVP_CHECK_PASS);
    /* TRT-LLM T-PAR-1: heads % TP; KV heads ceil(8 / 5) -> never refused. */
    s = settings(KVP_ENGINE_TRTLLM, 90);
    s.policy.tp = 5;
    assert_int_equal(status_of(m, &s, NULL, "T-PAR-1"), KVP_CHECK_PASS);
    s.policy.tp = 3;
    assert_int_equal(status_of(m, &s, NULL, "T-PAR-1"), KVP_CHECK_REFUSE);
    /* Attention DP: the attention TP is 1. */
    s.policy.enable_dp_attention = true;
    assert_int_equal(status_of(m, &s, NULL, "T-PAR-1"), KVP_CHECK_PASS);
    kvp_model_free(m);
}

static void test_bf16_capability(void **state) {
    (void)state;
    kvp_model *m = model_of(NULL);
    kvp_startup_settings s = settings(KVP_ENGINE_VLLM, 70);
    /* Explicit bfloat16 on cc 7.0: supported_dtypes(7.0) = fp16, fp32 -> refused. */
    s.dtype = KVP_RUN_DTYPE_BFLOAT16;
    assert_int_equal(status_of(m, &s, NULL, "V-DT-1"), KVP_CHECK_REFUSE);
    assert_non_null(strstr(row("V-DT-1")->message, "compute capability 7.0"));
    /* cc 8.0: bf16 supported -> pass. */
    s.gpu.compute_capability = 80;
    assert_int_equal(status_of(m, &s, NULL, "V-DT-1"), KVP_CHECK_PASS);
    assert_int_equal(g_rep.run_dtype, KVP_DTYPE_BF16);
    /* --dtype auto with a bf16 checkpoint on cc 7.5: falls back to fp16 (adjust). */
    s.dtype = KVP_RUN_DTYPE_AUTO;
    s.gpu.compute_capability = 75;
    assert_int_equal(status_of(m, &s, NULL, "V-DT-1"), KVP_CHECK_ADJUST);
    assert_int_equal(g_rep.run_dtype, KVP_DTYPE_FP16);
    assert_true(g_rep.run_dtype_adjusted);
    assert_true(g_rep.starts);
    /* ... but 0.6.3 refused under auto as well. */
    snprintf(s.policy.engine_version, sizeof s.policy.engine_version, "0.6.3");
    assert_int_equal(status_of(m, &s, NULL, "V-DT-1"), KVP_CHECK_REFUSE);
    /* No capability (--gpu-mem alone): unknown, listed and counted. */
    s = settings(KVP_ENGINE_VLLM, 0);
    assert_int_equal(status_of(m, &s, NULL, "V-DT-1"), KVP_CHECK_UNKNOWN);
    assert_true(g_rep.counts[KVP_CHECK_UNKNOWN] >= 2); /* V-DT-0 too */
    /* SGLang S-DT-1: sm70 < sm75 refused; sm75 forced to fp16; sm80 passes. */
    s = settings(KVP_ENGINE_SGLANG, 70);
    assert_int_equal(status_of(m, &s, NULL, "S-DT-1"), KVP_CHECK_REFUSE);
    s.gpu.compute_capability = 75;
    assert_int_equal(status_of(m, &s, NULL, "S-DT-1"), KVP_CHECK_ADJUST);
    assert_int_equal(g_rep.run_dtype, KVP_DTYPE_FP16);
    s.gpu.compute_capability = 80;
    assert_int_equal(status_of(m, &s, NULL, "S-DT-1"), KVP_CHECK_PASS);
    /* vLLM V-DT-0: cc 6.1 < 7.0 refused, 7.0 passes. */
    s = settings(KVP_ENGINE_VLLM, 61);
    s.dtype = KVP_RUN_DTYPE_FLOAT16;
    assert_int_equal(status_of(m, &s, NULL, "V-DT-0"), KVP_CHECK_REFUSE);
    s.gpu.compute_capability = 70;
    assert_int_equal(status_of(m, &s, NULL, "V-DT-0"), KVP_CHECK_PASS);
    kvp_model_free(m);
}

static void test_fp16_forbidden(void **state) {
    (void)state;
    kvp_model *m = NULL;
    kvp_error err;
    const char *j = "{\"model_type\": \"gemma2\", \"num_hidden_layers\": 2, \"hidden_size\": 256, "
                    "\"num_attention_heads\": 8, \"num_key_value_heads\": 4, \"head_dim\": 32, "
                    "\"sliding_window\": 4096, \"max_position_embeddings\": 8192, "
                    "\"vocab_size\": 1024, \"torch_dtype\": \"bfloat16\"}";
    assert_int_equal(kvp_model_from_hf_json(j, strlen(j), "g.json", NULL, &m, &err), KVP_OK);
    kvp_startup_settings s = settings(KVP_ENGINE_VLLM, 70);
    /* gemma2 with --dtype float16: _check_valid_dtype refuses. */
    s.dtype = KVP_RUN_DTYPE_FLOAT16;
    assert_int_equal(status_of(m, &s, NULL, "V-DT-2"), KVP_CHECK_REFUSE);
    /* auto on cc 7.0: bf16 missing and fp16 excluded -> float32 (adjust). */
    s.dtype = KVP_RUN_DTYPE_AUTO;
    assert_int_equal(status_of(m, &s, NULL, "V-DT-1"), KVP_CHECK_ADJUST);
    assert_int_equal(g_rep.run_dtype, KVP_DTYPE_FP32);
    /* The plan takes it: the KV dtype follows the model -> float32. */
    kvp_policy_settings p = s.policy;
    kvp_startup_apply(m, &g_rep, &p);
    assert_string_equal(p.kv_dtype, "float32");
    kvp_model_free(m);
}

static void test_vllm_lengths(void **state) {
    (void)state;
    kvp_model *m = model_of("\"max_position_embeddings\": 2048");
    kvp_startup_settings s = settings(KVP_ENGINE_VLLM, 90);
    /* Derived = min(max_position_embeddings) = 2048: 2048 passes, 2049 > 2048 refused. */
    s.policy.max_model_len = 2048;
    assert_int_equal(status_of(m, &s, NULL, "V-LEN-1"), KVP_CHECK_PASS);
    s.policy.max_model_len = 2049;
    assert_int_equal(status_of(m, &s, NULL, "V-LEN-1"), KVP_CHECK_REFUSE);
    assert_non_null(strstr(row("V-LEN-1")->message, "(max_position_embeddings=2048 or "
                                                     "model_max_length=None"));
    /* VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 lets it start (warn) ... */
    kvp_error err;
    assert_int_equal(kvp_startup_set_env(&s, "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1", &err), KVP_OK);
    assert_int_equal(status_of(m, &s, NULL, "V-LEN-1"), KVP_CHECK_WARN);
    /* ... from 0.5.4 on (PR #7080); 0.5.3 had no override. */
    snprintf(s.policy.engine_version, sizeof s.policy.engine_version, "0.5.3");
    assert_int_equal(status_of(m, &s, NULL, "V-LEN-1"), KVP_CHECK_REFUSE);
    kvp_model_free(m);

    /* The smallest key wins: seq_length 2048 (Qwen v1) under max_position_embeddings 8192. */
    m = model_of("\"max_position_embeddings\": 8192, \"seq_length\": 2048");
    s = settings(KVP_ENGINE_VLLM, 90);
    s.policy.max_model_len = 4096;
    assert_int_equal(status_of(m, &s, NULL, "V-LEN-1"), KVP_CHECK_REFUSE);
    assert_non_null(strstr(row("V-LEN-1")->message, "seq_length=2048"));
    kvp_model_free(m);

    /* yarn: original_max_position_embeddings 32768 x factor 4 = 131072. */
    m = model_of("\"max_position_embeddings\": 40960, \"rope_scaling\": {\"rope_type\": \"yarn\", "
                 "\"factor\": 4.0, \"original_max_position_embeddings\": 32768}");
    s.policy.max_model_len = 131072;
    assert_int_equal(status_of(m, &s, NULL, "V-LEN-1"), KVP_CHECK_PASS);
    s.policy.max_model_len = 131073;
    assert_int_equal(status_of(m, &s, NULL, "V-LEN-1"), KVP_CHECK_REFUSE);
    /* SGLang takes max_position_embeddings and ignores the factor when rope_scaling
     * names original_max_position_embeddings: derived 40960. */
    s = settings(KVP_ENGINE_SGLANG, 90);
    s.policy.max_model_len = 40960;
    assert_int_equal(status_of(m, &s, NULL, "S-LEN-1"), KVP_CHECK_PASS);
    s.policy.max_model_len = 40961;
    assert_int_equal(status_of(m, &s, NULL, "S-LEN-1"), KVP_CHECK_REFUSE);
    assert_int_equal(kvp_startup_set_env(&s, "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1", &err),
                     KVP_OK);
    assert_int_equal(status_of(m, &s, NULL, "S-LEN-1"), KVP_CHECK_WARN);
    /* TRT-LLM: yarn is not multiplied: inferred 40960; 40961 is clamped (adjust). */
    s = settings(KVP_ENGINE_TRTLLM, 90);
    s.policy.max_model_len = 40961;
    assert_int_equal(status_of(m, &s, NULL, "T-LEN-1"), KVP_CHECK_ADJUST);
    assert_int_equal(g_rep.max_model_len, 40960);
    s.policy.max_model_len = 40960;
    assert_int_equal(status_of(m, &s, NULL, "T-LEN-1"), KVP_CHECK_PASS);
    kvp_model_free(m);

    /* Command-R: model_max_length 131072 lifts the refusal above max_position_embeddings. */
    m = model_of("\"max_position_embeddings\": 8192, \"model_max_length\": 131072");
    s = settings(KVP_ENGINE_VLLM, 90);
    s.policy.max_model_len = 131072;
    assert_int_equal(status_of(m, &s, NULL, "V-LEN-1"), KVP_CHECK_PASS);
    s.policy.max_model_len = 131073;
    assert_int_equal(status_of(m, &s, NULL, "V-LEN-1"), KVP_CHECK_REFUSE);
    kvp_model_free(m);
}

static void test_vllm_scheduler(void **state) {
    (void)state;
    kvp_model *m = model_of("\"max_position_embeddings\": 32768");
    kvp_startup_settings s = settings(KVP_ENGINE_VLLM, 90);
    s.policy.max_model_len = 4096;
    /* V-LEN-2: chunked prefill off and 4095 < 4096 -> refused; 4096 passes. */
    s.enable_chunked_prefill = 0;
    s.policy.max_num_batched_tokens = 4095;
    assert_int_equal(status_of(m, &s, NULL, "V-LEN-2"), KVP_CHECK_REFUSE);
    s.policy.max_num_batched_tokens = 4096;
    assert_int_equal(status_of(m, &s, NULL, "V-LEN-2"), KVP_CHECK_PASS);
    /* Chunked prefill on (the default): no refusal at 4095. */
    s.enable_chunked_prefill = -1;
    s.policy.max_num_batched_tokens = 4095;
    assert_int_equal(status_of(m, &s, NULL, "V-LEN-2"), KVP_CHECK_PASS);
    /* V-LEN-3: 255 < 256 sequences refused; 256 passes. */
    s.policy.max_num_seqs = 256;
    s.policy.max_num_batched_tokens = 255;
    assert_int_equal(status_of(m, &s, NULL, "V-LEN-3"), KVP_CHECK_REFUSE);
    s.policy.max_num_batched_tokens = 256;
    assert_int_equal(status_of(m, &s, NULL, "V-LEN-3"), KVP_CHECK_PASS);
    /* V-LEN-4: block 24 % 16 = 8 refused; 32 passes. */
    s.policy.block_size = 24;
    assert_int_equal(status_of(m, &s, NULL, "V-LEN-4"), KVP_CHECK_REFUSE);
    s.policy.block_size = 32;
    assert_int_equal(status_of(m, &s, NULL, "V-LEN-4"), KVP_CHECK_PASS);
    /* V-PAR-8: TP 4 on 3 visible GPUs refused; 4 passes. */
    s.policy.tp = 4;
    s.gpu_count = 3;
    assert_int_equal(status_of(m, &s, NULL, "V-PAR-8"), KVP_CHECK_REFUSE);
    s.gpu_count = 4;
    assert_int_equal(status_of(m, &s, NULL, "V-PAR-8"), KVP_CHECK_PASS);
    /* V-PAR-6: expert parallelism on a dense model. */
    s.enable_expert_parallel = true;
    assert_int_equal(status_of(m, &s, NULL, "V-PAR-6"), KVP_CHECK_REFUSE);
    kvp_model_free(m);
}

static void test_quantization(void **state) {
    (void)state;
    /* Block-FP8 MoE: moe_intermediate_size 768, block [128, 128]. TP 4: 768 / 4 = 192,
     * 192 % 128 = 64 -> refused (Qwen3-30B-A3B-FP8); TP 2: 384 % 128 = 0 -> passes. */
    kvp_model *m = model_of("\"max_position_embeddings\": 32768, \"num_experts\": 128, "
                            "\"num_experts_per_tok\": 8, \"moe_intermediate_size\": 768, "
                            "\"quantization_config\": {\"quant_method\": \"fp8\", "
                            "\"weight_block_size\": [128, 128], \"activation_scheme\": \"dynamic\"}");
    kvp_startup_settings s = settings(KVP_ENGINE_VLLM, 90);
    s.policy.tp = 4;
    assert_int_equal(status_of(m, &s, NULL, "V-PAR-4"), KVP_CHECK_REFUSE);
    assert_string_equal(row("V-PAR-4")->message,
                        "The output_size of gate's and up's weight = 192 is not divisible by "
                        "weight quantization block_n = 128.");
    s.policy.tp = 2;
    assert_int_equal(status_of(m, &s, NULL, "V-PAR-4"), KVP_CHECK_PASS);
    /* SGLang S-PAR-2 the same; S-DT-2 on sm86 < 89 warns, sm89 passes. */
    s = settings(KVP_ENGINE_SGLANG, 86);
    s.policy.tp = 4;
    assert_int_equal(status_of(m, &s, NULL, "S-PAR-2"), KVP_CHECK_REFUSE);
    assert_int_equal(row("S-DT-2")->status, KVP_CHECK_WARN);
    s.gpu.compute_capability = 89;
    assert_int_equal(status_of(m, &s, NULL, "S-DT-2"), KVP_CHECK_PASS);
    /* TRT-LLM T-DT-1: block scaling needs sm90: 89 refused, 90 passes. */
    s = settings(KVP_ENGINE_TRTLLM, 89);
    assert_int_equal(status_of(m, &s, NULL, "T-DT-1"), KVP_CHECK_REFUSE);
    s.gpu.compute_capability = 90;
    assert_int_equal(status_of(m, &s, NULL, "T-DT-1"), KVP_CHECK_PASS);
    /* vLLM V-DT-3: fp8 minimum 80 (Marlin fallback since 0.5.1): 75 refused, 80 passes. */
    s = settings(KVP_ENGINE_VLLM, 75);
    s.dtype = KVP_RUN_DTYPE_FLOAT16;
    assert_int_equal(status_of(m, &s, NULL, "V-DT-3"), KVP_CHECK_REFUSE);
    assert_string_equal(row("V-DT-3")->message,
                        "The quantization method fp8 is not supported for the current GPU. Minimum "
                        "capability: 80. Current capability: 75.");
    s.gpu.compute_capability = 80;
    assert_int_equal(status_of(m, &s, NULL, "V-DT-3"), KVP_CHECK_PASS);
    /* V-DT-4: --quantization awq against an fp8 checkpoint refused; fp8 passes. */
    snprintf(s.quantization, sizeof s.quantization, "awq");
    assert_int_equal(status_of(m, &s, NULL, "V-DT-4"), KVP_CHECK_REFUSE);
    snprintf(s.quantization, sizeof s.quantization, "fp8");
    assert_int_equal(status_of(m, &s, NULL, "V-DT-4"), KVP_CHECK_PASS);
    snprintf(s.quantization, sizeof s.quantization, "fp9");
    assert_int_equal(status_of(m, &s, NULL, "V-DT-4"), KVP_CHECK_REFUSE);
    kvp_model_free(m);
}

/* A config with auto_map (custom code) and the given model_type and extra keys. */
static kvp_model *custom_code_model(const char *type) {
    char j[1024];
    snprintf(j, sizeof j,
             "{\"model_type\": \"%s\", \"auto_map\": {\"AutoConfig\": \"c.C\"}, "
             "\"num_hidden_layers\": 2, \"hidden_size\": 256, \"num_attention_heads\": 8, "
             "\"num_key_value_heads\": 2, \"max_position_embeddings\": 8192, "
             "\"vocab_size\": 1024, \"torch_dtype\": \"bfloat16\"}",
             type);
    kvp_model *m = NULL;
    kvp_error err;
    if (kvp_model_from_hf_json(j, strlen(j), "c.json", NULL, &m, &err) != KVP_OK)
        fprintf(stderr, "%s\n", err.message);
    assert_non_null(m);
    return m;
}

static kvp_check_status remote_code(const char *type, kvp_engine e, const char *version,
                                    const char *id) {
    kvp_model *m = custom_code_model(type);
    kvp_startup_settings s = settings(e, 90);
    snprintf(s.policy.engine_version, sizeof s.policy.engine_version, "%s", version);
    kvp_check_status st = status_of(m, &s, NULL, id);
    kvp_model_free(m);
    return st;
}

static void test_remote_code(void **state) {
    (void)state;
    kvp_model *m = NULL;
    kvp_error err;
    /* ChatGLM3-6B as released: auto_map, model_type chatglm. vLLM registers chatglm
     * itself (_CONFIG_REGISTRY at ~0.7, ~0.11, 0.15.1 and 0.24, STARTUP.md V-MOD-3):
     * the config loads with vLLM's class and no custom code, so a run without
     * --trust-remote-code is not refused for it (before issue 29: refused). */
    const char *j = "{\"model_type\": \"chatglm\", \"auto_map\": {\"AutoConfig\": \"c.C\"}, "
                    "\"num_layers\": 2, \"hidden_size\": 256, \"num_attention_heads\": 8, "
                    "\"multi_query_group_num\": 2, \"kv_channels\": 32, \"seq_length\": 8192, "
                    "\"padded_vocab_size\": 1024, \"torch_dtype\": \"bfloat16\"}";
    if (kvp_model_from_hf_json(j, strlen(j), "c.json", NULL, &m, &err) != KVP_OK)
        fprintf(stderr, "%s\n", err.message);
    assert_non_null(m);
    kvp_startup_settings s = settings(KVP_ENGINE_VLLM, 90);
    assert_int_equal(status_of(m, &s, NULL, "V-MOD-2"), KVP_CHECK_PASS);
    assert_non_null(strstr(row("V-MOD-2")->message, "_CONFIG_REGISTRY"));
    s.trust_remote_code = true;
    assert_int_equal(status_of(m, &s, NULL, "V-MOD-2"), KVP_CHECK_PASS);
    kvp_model_free(m);
    /* Qwen (v1): in no registry and not Transformers': refused by both engines. */
    assert_int_equal(remote_code("qwen", KVP_ENGINE_VLLM, "", "V-MOD-2"), KVP_CHECK_REFUSE);
    assert_int_equal(remote_code("qwen", KVP_ENGINE_SGLANG, "", "S-MOD-1"), KVP_CHECK_REFUSE);
    /* Nemotron-H: never in vLLM's registry (refused, as users report); SGLang has
     * registered it since the Oct 2025 read (0.5.4): passes there, refused at the
     * 2024 read (0.4.0), and between the two reads (0.5.0) not decided: a warning. */
    assert_int_equal(remote_code("nemotron_h", KVP_ENGINE_VLLM, "0.11.0", "V-MOD-2"),
                     KVP_CHECK_REFUSE);
    assert_int_equal(remote_code("nemotron_h", KVP_ENGINE_SGLANG, "", "S-MOD-1"), KVP_CHECK_PASS);
    assert_int_equal(remote_code("nemotron_h", KVP_ENGINE_SGLANG, "0.5.4", "S-MOD-1"),
                     KVP_CHECK_PASS);
    assert_int_equal(remote_code("nemotron_h", KVP_ENGINE_SGLANG, "0.4.0", "S-MOD-1"),
                     KVP_CHECK_REFUSE);
    assert_int_equal(remote_code("nemotron_h", KVP_ENGINE_SGLANG, "0.5.0", "S-MOD-1"),
                     KVP_CHECK_WARN);
    /* InternVL2 (internvl_chat): in vLLM's registry at the ~0.7 read, gone by ~0.11:
     * 0.7.3 passes, 0.11.0 refuses, 0.9.2 (between the reads) warns. */
    assert_int_equal(remote_code("internvl_chat", KVP_ENGINE_VLLM, "0.7.3", "V-MOD-2"),
                     KVP_CHECK_PASS);
    assert_int_equal(remote_code("internvl_chat", KVP_ENGINE_VLLM, "0.11.0", "V-MOD-2"),
                     KVP_CHECK_REFUSE);
    assert_int_equal(remote_code("internvl_chat", KVP_ENGINE_VLLM, "0.9.2", "V-MOD-2"),
                     KVP_CHECK_WARN);
    /* A type Transformers may know (minimax_m2): never refused, a warning. */
    assert_int_equal(remote_code("minimax_m2", KVP_ENGINE_VLLM, "", "V-MOD-2"), KVP_CHECK_WARN);
}

/* Issue 29: expert parallelism in every width rule. MiniMax-M2.5 as released
 * (data/models/MiniMaxAI__MiniMax-M2.5.json): 256 experts, no
 * moe_intermediate_size, so intermediate_size 1536 is the routed experts' width;
 * block-FP8 [128, 128]. */
static kvp_model *minimax_m2(uint64_t inter) {
    char extra[512];
    snprintf(extra, sizeof extra,
             "\"num_local_experts\": 256, \"num_experts_per_tok\": 8, \"intermediate_size\": %llu, "
             "\"quantization_config\": {\"quant_method\": \"fp8\", \"weight_block_size\": "
             "[128, 128], \"activation_scheme\": \"dynamic\"}",
             (unsigned long long)inter);
    char json[2048];
    snprintf(json, sizeof json,
             "{\"architectures\": [\"MiniMaxM2ForCausalLM\"], \"model_type\": \"minimax_m2\", "
             "\"num_hidden_layers\": 4, \"hidden_size\": 3072, \"num_attention_heads\": 48, "
             "\"num_key_value_heads\": 8, \"head_dim\": 128, \"vocab_size\": 200064, "
             "\"max_position_embeddings\": 196608, \"torch_dtype\": \"bfloat16\", %s}",
             extra);
    kvp_model *m = NULL;
    kvp_error err;
    if (kvp_model_from_hf_json(json, strlen(json), "mm.json", NULL, &m, &err) != KVP_OK)
        fprintf(stderr, "model: %s\n", err.message);
    assert_non_null(m);
    return m;
}

static void test_expert_parallel_widths(void **state) {
    (void)state;
    kvp_model *m = minimax_m2(1536);
    kvp_startup_settings s = settings(KVP_ENGINE_VLLM, 90);
    s.trust_remote_code = true;
    /* vLLM TP 8 without EP: the experts are TP-split, 1536 / 8 = 192, 192 % 128 = 64:
     * refused (STARTUP.md V-PAR-9). */
    s.policy.tp = 8;
    assert_int_equal(status_of(m, &s, NULL, "V-PAR-4"), KVP_CHECK_REFUSE);
    assert_string_equal(row("V-PAR-4")->message,
                        "The output_size of gate's and up's weight = 192 is not divisible by "
                        "weight quantization block_n = 128.");
    /* The real deployment that started (MiniMax's vLLM recipe: vllm serve
     * MiniMaxAI/MiniMax-M2.5 --tensor-parallel-size 8 --enable-expert-parallel
     * --trust-remote-code on 8 H200): under EP each rank holds whole experts, the
     * width checked is 1536, 1536 % 128 = 0 (before issue 29: refused at 192). */
    s.enable_expert_parallel = true;
    assert_int_equal(status_of(m, &s, NULL, "V-PAR-4"), KVP_CHECK_PASS);
    assert_int_equal(row("V-PAR-3")->status, KVP_CHECK_PASS);
    kvp_model_free(m);
    /* V-PAR-3 on both sides: an expert width of 1544 = 8 x 193 at TP 16: 1544 % 16 = 8,
     * refused without EP; with EP the experts are not split: passes. */
    m = minimax_m2(1544);
    s = settings(KVP_ENGINE_VLLM, 90);
    s.trust_remote_code = true;
    s.policy.tp = 16;
    assert_int_equal(status_of(m, &s, NULL, "V-PAR-3"), KVP_CHECK_REFUSE);
    assert_string_equal(row("V-PAR-3")->message, "1544 is not divisible by 16 (intermediate_size)");
    s.enable_expert_parallel = true;
    assert_int_equal(status_of(m, &s, NULL, "V-PAR-3"), KVP_CHECK_PASS);
    /* SGLang S-PAR-1: moe_tp_size = tp / ep_size. TP 16, ep_size 1: 1544 % 16 = 8,
     * refused; ep_size 2: moe_tp 8, 1544 % 8 = 0, passes; --enable-ep-moe (ep = tp)
     * passes. */
    s = settings(KVP_ENGINE_SGLANG, 90);
    s.trust_remote_code = true;
    s.policy.tp = 16;
    assert_int_equal(status_of(m, &s, NULL, "S-PAR-1"), KVP_CHECK_REFUSE);
    assert_string_equal(row("S-PAR-1")->message,
                        "AssertionError: 1544 is not divisible by 16 (intermediate_size)");
    s.ep_size = 2;
    assert_int_equal(status_of(m, &s, NULL, "S-PAR-1"), KVP_CHECK_PASS);
    s.ep_size = 0;
    s.enable_expert_parallel = true;
    assert_int_equal(status_of(m, &s, NULL, "S-PAR-1"), KVP_CHECK_PASS);
    kvp_model_free(m);
    /* SGLang S-PAR-2 on MiniMax-M2.5 at TP 8: ep_size 1 splits 1536 into 192 (refused),
     * ep_size 8 keeps 1536 whole (passes). */
    m = minimax_m2(1536);
    s = settings(KVP_ENGINE_SGLANG, 90);
    s.trust_remote_code = true;
    s.policy.tp = 8;
    assert_int_equal(status_of(m, &s, NULL, "S-PAR-2"), KVP_CHECK_REFUSE);
    s.ep_size = 8;
    assert_int_equal(status_of(m, &s, NULL, "S-PAR-2"), KVP_CHECK_PASS);
    kvp_model_free(m);
}

static void test_llamacpp(void **state) {
    (void)state;
    kvp_model *m = model_of("\"max_position_embeddings\": 4096");
    kvp_startup_settings s = settings(KVP_ENGINE_LLAMACPP, 90);
    /* L-DT-1: quantized V with FA off refused; FA auto with q8_0 K / q4_0 V (no CUDA
     * kernel for the pair) refused; a symmetric q4_0/q4_0 pair passes. */
    snprintf(s.policy.type_v, sizeof s.policy.type_v, "q4_0");
    s.policy.flash_attn = 0;
    assert_int_equal(status_of(m, &s, NULL, "L-DT-1"), KVP_CHECK_REFUSE);
    s.policy.flash_attn = -1;
    assert_int_equal(status_of(m, &s, NULL, "L-DT-1"), KVP_CHECK_REFUSE);
    snprintf(s.policy.type_k, sizeof s.policy.type_k, "q4_0");
    assert_int_equal(status_of(m, &s, NULL, "L-DT-1"), KVP_CHECK_PASS);
    /* L-LEN-2: 257 > LLAMA_MAX_SEQ 256 refused; 256 passes. */
    s.policy.n_seq_max = 257;
    assert_int_equal(status_of(m, &s, NULL, "L-LEN-2"), KVP_CHECK_REFUSE);
    s.policy.n_seq_max = 256;
    assert_int_equal(status_of(m, &s, NULL, "L-LEN-2"), KVP_CHECK_PASS);
    /* L-LEN-1: n_ctx_seq 4097 > n_ctx_train 4096 only warns; 4096 passes. */
    s.policy.n_seq_max = 1;
    s.policy.n_ctx = 4097;
    assert_int_equal(status_of(m, &s, NULL, "L-LEN-1"), KVP_CHECK_WARN);
    assert_true(g_rep.starts);
    s.policy.n_ctx = 4096;
    assert_int_equal(status_of(m, &s, NULL, "L-LEN-1"), KVP_CHECK_PASS);
    kvp_model_free(m);
}

static void test_memory_rules(void **state) {
    (void)state;
    kvp_model *m = model_of("\"max_position_embeddings\": 32768");
    kvp_startup_settings s = settings(KVP_ENGINE_VLLM, 90);
    s.policy.total_memory_bytes = 80ull << 30;
    kvp_policy_result r;
    memset(&r, 0, sizeof r);
    kvp_startup_plan_input in = {.status = KVP_OK, .result = &r, .message = "", .weights_bytes = 10ull << 30, .weights_estimated = true};
    /* V-MEM-3: one request needs 4 GiB; available 4 GiB -> passes, 4 GiB - 1 -> refused
     * with the estimate. */
    r.needed_bytes = 4ull << 30;
    r.budget_bytes = 4ull << 30;
    r.max_model_len = 32768;
    assert_int_equal(status_of(m, &s, &in, "V-MEM-3"), KVP_CHECK_PASS);
    r.budget_bytes = (4ull << 30) - 1;
    r.estimated_max_model_len = 32752;
    assert_int_equal(status_of(m, &s, &in, "V-MEM-3"), KVP_CHECK_REFUSE);
    assert_non_null(strstr(row("V-MEM-3")->message, "estimated maximum model length is 32752"));
    assert_non_null(strstr(row("V-MEM-3")->fix, "--max-model-len 32752"));
    /* V-MEM-2: the policy found no memory for the cache. */
    kvp_startup_plan_input none = {.status = KVP_INFEASIBLE, .message = "budget not positive", .weights_bytes = 10ull << 30, .weights_estimated = true};
    assert_int_equal(status_of(m, &s, &none, "V-MEM-2"), KVP_CHECK_REFUSE);
    /* V-MEM-5: weights 72 GiB + 1 byte > 0.9 x 80 GiB = 72 GiB refused; 72 GiB passes. */
    in.weights_bytes = (72ull << 30) + 1;
    assert_int_equal(status_of(m, &s, &in, "V-MEM-5"), KVP_CHECK_REFUSE);
    in.weights_bytes = 72ull << 30;
    assert_int_equal(status_of(m, &s, &in, "V-MEM-5"), KVP_CHECK_PASS);
    /* V-MEM-1: free 71.99 GiB < 0.9 x 80 = 72 GiB refused; 72 GiB passes. */
    s.policy.free_memory_bytes = (72ull << 30) - (1ull << 20);
    assert_int_equal(status_of(m, &s, &in, "V-MEM-1"), KVP_CHECK_REFUSE);
    s.policy.free_memory_bytes = 72ull << 30;
    assert_int_equal(status_of(m, &s, &in, "V-MEM-1"), KVP_CHECK_PASS);
    /* No plan at all: the memory rules are unknown, never passed. */
    assert_int_equal(status_of(m, &s, NULL, "V-MEM-3"), KVP_CHECK_UNKNOWN);
    /* SGLang S-LEN-2: a pool of 32767 tokens for a 32768 context starts with inputs capped
     * at 32766 (adjust); 32768 tokens pass. */
    s = settings(KVP_ENGINE_SGLANG, 90);
    r.report.max_total_num_tokens = 32767;
    assert_int_equal(status_of(m, &s, &in, "S-LEN-2"), KVP_CHECK_ADJUST);
    assert_non_null(strstr(row("S-LEN-2")->message, "capped at 32766"));
    r.report.max_total_num_tokens = 32768;
    assert_int_equal(status_of(m, &s, &in, "S-LEN-2"), KVP_CHECK_PASS);
    r.report.max_total_num_tokens = 0;
    assert_int_equal(status_of(m, &s, &in, "S-MEM-1"), KVP_CHECK_REFUSE);
    /* TRT-LLM T-MEM-1: 32767 pool tokens < 32768: window reduced (adjust). */
    s = settings(KVP_ENGINE_TRTLLM, 90);
    r.report.max_tokens = 32767;
    assert_int_equal(status_of(m, &s, &in, "T-MEM-1"), KVP_CHECK_ADJUST);
    assert_int_equal(g_rep.max_model_len, 32767);
    r.report.max_tokens = 32768;
    assert_int_equal(status_of(m, &s, &in, "T-MEM-1"), KVP_CHECK_PASS);
    assert_int_equal(status_of(m, &s, &none, "T-MEM-2"), KVP_CHECK_REFUSE);
    kvp_model_free(m);
}

static void test_gpu_facts(void **state) {
    (void)state;
    kvp_gpu_info g;
    kvp_error err;
    static const struct {
        const char *name;
        uint32_t cc;
        const char *arch;
    } k[] = {{"v100", 70, "Volta"},    {"t4", 75, "Turing"},       {"a100", 80, "Ampere"},
             {"a10g", 86, "Ampere"},   {"l4", 89, "Ada Lovelace"}, {"h100", 90, "Hopper"},
             {"h20", 90, "Hopper"},    {"b200", 100, "Blackwell"}, {"gb300", 103, "Blackwell Ultra"},
             {"rtx5090", 120, "Blackwell"}, {"mi300x", 94, "CDNA 3"}, {"mi355x", 95, "CDNA 4"}};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        assert_int_equal(kvp_gpu_lookup(k[i].name, &g, &err), KVP_OK);
        assert_int_equal(g.compute_capability, k[i].cc);
        assert_string_equal(g.arch, k[i].arch);
        assert_true(g.arch_source[0] != '\0');
    }
    /* Every entry carries a capability and an architecture with a source. */
    size_t n = kvp_gpu_catalog_count();
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(kvp_gpu_catalog_entry(i, &g), KVP_OK);
        assert_true(g.compute_capability > 0);
        assert_true(g.arch[0] && g.arch_source[0]);
    }
    /* gfx targets as torch on ROCm reports them: 9.4, 9.0 (gfx90a), 11.0. */
    assert_int_equal(kvp_gpu_gfx_capability("gfx942"), 94);
    assert_int_equal(kvp_gpu_gfx_capability("gfx90a"), 90);
    assert_int_equal(kvp_gpu_gfx_capability("gfx1100"), 110);
    assert_int_equal(kvp_gpu_gfx_capability("gfx9"), 0);
    assert_int_equal(kvp_gpu_gfx_capability("sm_90"), 0);
    char buf[16];
    assert_string_equal(kvp_gpu_cc_string(103, buf, sizeof buf), "10.3");
    assert_string_equal(kvp_gpu_cc_string(0, buf, sizeof buf), "");
    /* A user catalogue entry with a malformed capability is refused by key. */
    const char *bad = "{\"gpus\": [{\"name\": \"X\", \"cuda_total\": \"8GiB\", "
                      "\"compute_capability\": \"8\"}]}";
    assert_int_equal(kvp_gpu_catalog_check_json(bad, strlen(bad), "u.json", NULL, &err), KVP_CONFIG);
    assert_string_equal(err.key, "/gpus/0/compute_capability");
}

static void test_settings_errors(void **state) {
    (void)state;
    kvp_startup_settings s = kvp_startup_settings_default();
    kvp_error err;
    assert_int_equal(kvp_startup_set_env(&s, "NOEQUALS", &err), KVP_INVALID_ARG);
    assert_int_equal(kvp_startup_set_env(&s, "=1", &err), KVP_INVALID_ARG);
    assert_int_equal(kvp_startup_set_env(&s, "1A=1", &err), KVP_INVALID_ARG);
    assert_int_equal(kvp_startup_set_env(&s, "A=1", &err), KVP_OK);
    assert_int_equal(kvp_startup_set_env(&s, "A=2", &err), KVP_OK); /* replaces */
    assert_int_equal(s.env_count, 1);
    assert_string_equal(s.env[0][1], "2");
    kvp_run_dtype d;
    assert_int_equal(kvp_run_dtype_parse("half", &d), KVP_OK);
    assert_int_equal(d, KVP_RUN_DTYPE_FLOAT16);
    assert_int_equal(kvp_run_dtype_parse("int4", &d), KVP_INVALID_ARG);
    /* Every table row has an id, basis and condition; undecidable rows a reason. */
    for (int e = 0; e < KVP_ENGINE_COUNT; e++) {
        assert_true(kvp_startup_rule_count((kvp_engine)e) > 0);
        for (size_t i = 0; i < kvp_startup_rule_count((kvp_engine)e); i++) {
            kvp_startup_rule_info ri;
            assert_int_equal(kvp_startup_rule((kvp_engine)e, i, &ri), KVP_OK);
            assert_true(ri.id[0] && ri.basis[0] && ri.condition[0]);
            if (!ri.decidable) assert_true(ri.undecidable_reason[0] != '\0');
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_par_heads_and_kv), cmocka_unit_test(test_sglang_and_trt_heads),
        cmocka_unit_test(test_bf16_capability),  cmocka_unit_test(test_fp16_forbidden),
        cmocka_unit_test(test_vllm_lengths),     cmocka_unit_test(test_vllm_scheduler),
        cmocka_unit_test(test_quantization),     cmocka_unit_test(test_remote_code),
        cmocka_unit_test(test_expert_parallel_widths),
        cmocka_unit_test(test_llamacpp),         cmocka_unit_test(test_memory_rules),
        cmocka_unit_test(test_gpu_facts),        cmocka_unit_test(test_settings_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
