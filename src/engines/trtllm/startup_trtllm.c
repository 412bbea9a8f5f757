/*
 * startup_trtllm.c — TensorRT-LLM's start-up rules for trtllm-serve's PyTorch
 * backend (STARTUP.md §3): model registry, max_seq_len inference, attention
 * module assertions, FP8 kernels per SM, executor creation and the KV clamp.
 */
#include <stdio.h>
#include <string.h>

#include "startup_internal.h"
#include "engine_ops.h"
#include "policy_internal.h"

static void len_1(kvp__startup_ctx *c, kvp_check_row *r) {
    uint64_t d = kvp__startup_default_len(c->model, c->s);
    if (c->user_len && d && c->user_len > d) {
        kvp__check_set(r, KVP_CHECK_ADJUST, "",
                       "Specified max_seq_len=%llu is larger than what the model can support "
                       "(%llu). Setting max_seq_len to %llu.",
                       (unsigned long long)c->user_len, (unsigned long long)d, (unsigned long long)d);
        c->rep->max_model_len = d;
        c->rep->max_model_len_adjusted = true;
    } else {
        kvp__check_set(r, KVP_CHECK_PASS, "", "max_seq_len %llu (inferred maximum %llu)",
                       (unsigned long long)(c->user_len ? c->user_len : d), (unsigned long long)d);
    }
}

static void par_1(kvp__startup_ctx *c, kvp_check_row *r) {
    /* Under attention DP the attention TP is 1. */
    uint32_t tp = c->s->policy.enable_dp_attention ? 1 : c->tp;
    if (!c->heads) {
        kvp__check_set(r, KVP_CHECK_UNKNOWN, "", "the config states no num_attention_heads");
        return;
    }
    if (c->heads % tp) {
        uint64_t h = c->heads;
        char list[160], fix[240];
        kvp__startup_tp_list(&h, 1, 0, 64, list, sizeof list);
        snprintf(fix, sizeof fix, "--tp_size one of %s, or enable_attention_dp", list);
        kvp__check_set(r, KVP_CHECK_REFUSE, fix,
                       "AssertionError (attention module: num_heads %u %% tp_size %u != 0)",
                       c->heads, tp);
    } else {
        kvp__check_set(r, KVP_CHECK_PASS, "", "%u heads split over attention TP %u (KV heads "
                       "ceil(%u / %u) per rank)", c->heads, tp, c->kv_heads, tp);
    }
}

static void dt_1(kvp__startup_ctx *c, kvp_check_row *r) {
    bool fp8 = strcmp(c->quant, "fp8") == 0 || strstr(c->info->weight_quant, "fp8") != NULL;
    if (!fp8) {
        kvp__check_set(r, KVP_CHECK_PASS, "", "no FP8 weights");
    } else if (c->amd) {
        kvp__check_set(r, KVP_CHECK_REFUSE, "an NVIDIA GPU", "TensorRT-LLM runs on NVIDIA GPUs only");
    } else if (!c->cc) {
        kvp__startup_cc_unknown(r, "name the GPU (--gpu)",
                                "FP8 GEMMs need sm89 (sm90 for block scaling)");
    } else if (c->block_fp8 && c->cc < 90) {
        kvp__check_set(r, KVP_CHECK_REFUSE, "a Hopper or Blackwell GPU (H100, H200, B200 ...)",
                       "Unsupported SM version for FP8 block scaling GEMM (sm%u)", c->cc);
    } else if (c->cc < 89) {
        kvp__check_set(r, KVP_CHECK_REFUSE, "an sm89+ GPU (L4, L40S, H100 ...)",
                       "FP8 needs compute capability 8.9 or newer (sm%u has no FP8 GEMM)", c->cc);
    } else {
        kvp__check_set(r, KVP_CHECK_PASS, "", "FP8 on sm%u", c->cc);
    }
}

static void mem_2(kvp__startup_ctx *c, kvp_check_row *r) {
    const kvp_policy_result *p;
    if (kvp__startup_need_plan(c, r, &p)) {
        kvp__check_set(r, KVP_CHECK_PASS, "", "KV cache %.2f GiB", kvp__startup_gib(p->budget_bytes));
    } else if (c->plan && c->plan->status == KVP_INFEASIBLE) {
        kvp__check_set(r, KVP_CHECK_REFUSE,
                       "more TP ranks, a larger GPU, or a smaller max_num_tokens / CUDA-graph batch list",
                       "Executor creation failed due to insufficient GPU memory. (%s)",
                       c->plan->message ? c->plan->message : "");
    } else if (c->plan) {
        kvp__check_set(r, KVP_CHECK_UNKNOWN, "", "no memory plan: %s", c->plan->message ? c->plan->message : "");
    }
}

static void mem_1(kvp__startup_ctx *c, kvp_check_row *r) {
    const kvp_policy_result *p;
    if (!kvp__startup_need_plan(c, r, &p)) {
        if (c->plan) kvp__check_set(r, KVP_CHECK_UNKNOWN, "", "no memory plan (see T-MEM-2)");
        return;
    }
    uint64_t tokens = p->report.max_tokens, len = c->rep->max_model_len;
    if (tokens && tokens < len) {
        kvp__check_set(r, KVP_CHECK_ADJUST, "",
                       "maxAttentionWindow and maxSequenceLen are too large for at least one "
                       "sequence to fit in kvCache. They are reduced to %llu",
                       (unsigned long long)tokens);
        c->rep->max_model_len = tokens;
        c->rep->max_model_len_adjusted = true;
    } else {
        kvp__check_set(r, KVP_CHECK_PASS, "", "the KV pool (%llu tokens) holds one sequence of %llu",
                       (unsigned long long)tokens, (unsigned long long)len);
    }
}

const kvp__startup_rule kvp__startup_trtllm[] = {
    {"T-MOD-1", "per version", "read @01bffee", "model", "architectures[0] not registered", "",
     false, NULL, "needs the per-version model registry"},
    {"T-LEN-1", "PyTorch backend 2025-2026", "read, unpinned", "max_seq_len",
     "max_seq_len above the inferred maximum: clamped", "", false, len_1, NULL},
    {"T-PAR-1", "all", "read, unpinned", "tp", "attention heads % TP != 0 (bare assertion)",
     "a TP that divides the heads, or attention DP", false, par_1, NULL},
    {"T-DT-1", "0.21 and later (no sm89 block-FP8 kernel)", "thread", "quantization",
     "block-FP8 on sm < 90; per-tensor FP8 on sm < 89", "Hopper or Blackwell", false, dt_1, NULL},
    {"T-DT-2", "trtllm-build", "thread", "quantization", "FP8 network on hardware without FP8", "",
     false, NULL, "applies to TensorRT engine builds (trtllm-build); kvplan plans trtllm-serve's PyTorch backend"},
    {"T-MEM-2", "1.0-era builds", "thread", "free_gpu_memory_fraction",
     "a component (model, KV cache, ...) cannot be created", "more memory", false, mem_2, NULL},
    {"T-MEM-1", "PyTorch backend (fail-fast flag off by default)", "read, unpinned", "max_seq_len",
     "the KV pool holds less than one sequence: window and max_seq_len reduced", "", false, mem_1,
     NULL},
    {"T-MEM-4", "PyTorch backend", "MEMORY.md 2.6", "free_gpu_memory_fraction",
     "second graph capture and decode sampling exceed what the fraction leaves",
     "lower --free-gpu-memory-fraction or --max-batch-size", false, kvp__startup_headroom, NULL},
    {"T-MEM-3", "2023 C++ runtime", "thread", "max_tokens",
     "maxTokensInPagedKvCache below one sequence (refused)", "", false, NULL,
     "2023 C++ runtimes only; current builds clamp (T-MEM-1)"},
    {"T-FEAT-1", "2026", "read, seed", "features",
     "FP4 MLA, hybrid + disaggregation, Helix + speculative, TriAttention combinations", "", false,
     NULL, "kvplan takes none of the settings these combinations involve"},
};
const size_t kvp__startup_trtllm_count = sizeof kvp__startup_trtllm / sizeof kvp__startup_trtllm[0];

/* TensorRT-LLM's sizing is the creator's (plan.h): one model of it, reached
 * through kvp_deploy_plan (deploy.h), not a policy. */
static kvp_status trtllm_plan(const kvp_model *model, const kvp_policy_settings *s,
                              kvp_policy_result *out, kvp_error *err) {
    (void)model, (void)s, (void)out;
    return kvp__fail(err, KVP_INVALID_ARG, NULL, "engine",
                     "TensorRT-LLM is planned by the creator: use kvp_deploy_plan "
                     "(kvplan/deploy.h)");
}

/* The engine's record (engine_ops.h; its row of kvplan/engines.def). */
static const char *const k_aliases[] = {"trt-llm", "tensorrt-llm", "tensorrt_llm", NULL};
static const char *const k_fit_kv_dtypes[] = {"auto", "fp8", "nvfp4", NULL};
const kvp__engine_ops kvp__engine_trtllm = {
    .aliases = k_aliases,
    .len_flag = "--max-seq-len",
    .help = "TensorRT-LLM's KV cache creator (the default): a fraction of the "
            "memory left\n            after the profiling pass "
            "(--free-gpu-memory-fraction 0.9); pools, blocks, max tokens",
    .version_forms = "a release (1.2.0rc4, 0.20.0, 1.1, v1.3.0), a rule set or year (2025, "
                     "2026), or latest",
    .newest_release = KVP__REL(1, 3, 0),
    .plan = trtllm_plan,
    .startup_rules = kvp__startup_trtllm,
    .startup_rule_count = &kvp__startup_trtllm_count,
    .report_fields = KVP_REPORT_MAX_TOKENS | KVP_REPORT_KV_CACHE_BYTES,
    .fit_kv_dtypes = k_fit_kv_dtypes,
    .sim_policy = "trtllm",
    /* neutral */
    .creator_plans = true,
    .adopts_reduced_length = true,
    .state_sized_for_batch = true,
    .fit_solves_tp = true,
    .profile = kvp__trtllm_profile,
    .admission_rule = NULL, /* the capacity scheduler's (creator_plans: admission.c) */
    .batch_cap_name = "max_batch_size",
};
