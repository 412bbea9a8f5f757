/*
 * startup_sglang.c — SGLang's start-up rules (STARTUP.md §2): the launcher's
 * ModelConfig (context length), the TP worker (dtype, capability), model
 * construction (TP splits, block-FP8 shards) and the memory pool.
 */
#include <stdio.h>
#include <string.h>

#include "startup_internal.h"

void kvp__startup_block_fp8(kvp__startup_ctx *c, kvp_check_row *r);

static void len_1(kvp__startup_ctx *c, kvp_check_row *r) {
    uint64_t d = kvp__startup_default_len(c->model, c->s);
    if (!d) {
        kvp__check_set(r, KVP_CHECK_UNKNOWN, "", "the model states no context length: the "
                       "derived context_length is not known");
        return;
    }
    if (!c->user_len || c->user_len <= d) {
        kvp__check_set(r, KVP_CHECK_PASS, "", "context length %llu <= derived %llu",
                       (unsigned long long)(c->user_len ? c->user_len : d), (unsigned long long)d);
        return;
    }
    if (kvp__startup_env_true(c, "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN")) {
        kvp__check_set(r, KVP_CHECK_WARN, "",
                       "Warning: User-specified context_length (%llu) is greater than the derived "
                       "context_length (%llu). This may lead to incorrect model outputs or CUDA "
                       "errors. (SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN is set: starting)",
                       (unsigned long long)c->user_len, (unsigned long long)d);
        return;
    }
    char fix[200];
    snprintf(fix, sizeof fix, "--context-length %llu, or SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 (--env)",
             (unsigned long long)d);
    kvp__check_set(r, KVP_CHECK_REFUSE, fix,
                   "User-specified context_length (%llu) is greater than the derived "
                   "context_length (%llu). This may lead to incorrect model outputs or CUDA "
                   "errors. Note that the derived context_length may differ from "
                   "max_position_embeddings in the model's config. To allow overriding this "
                   "maximum, set the env var SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1",
                   (unsigned long long)c->user_len, (unsigned long long)d);
}

static void dt_1(kvp__startup_ctx *c, kvp_check_row *r) {
    char cc[24];
    if (c->amd) {
        kvp__check_set(r, KVP_CHECK_PASS, "", "ROCm GPU %s", c->s->gpu.gfx_target);
    } else if (!c->cc) {
        kvp__startup_cc_unknown(r, "name the GPU (--gpu) so its capability is known",
                                "SGLang needs sm75 and forces float16 below sm80");
    } else if (c->cc < 75) {
        kvp__check_set(r, KVP_CHECK_REFUSE, "a GPU of compute capability 7.5 or newer (T4, A10, L4 ...)",
                       "SGLang only supports sm75 and above. (compute capability %s)",
                       kvp__startup_cc(c, cc, sizeof cc));
    } else if (c->cc < 80) {
        if (c->rep->run_dtype != KVP_DTYPE_FP16) {
            kvp__startup_set_run_dtype(c, KVP_DTYPE_FP16);
            kvp__check_set(r, KVP_CHECK_ADJUST, "",
                           "Compute capability below sm80. Use float16 due to lack of bfloat16 "
                           "support.");
        } else {
            kvp__check_set(r, KVP_CHECK_PASS, "", "float16 on sm%u", c->cc);
        }
    } else {
        kvp__check_set(r, KVP_CHECK_PASS, "", "compute capability %s", kvp__startup_cc(c, cc, sizeof cc));
    }
}

static void dt_2(kvp__startup_ctx *c, kvp_check_row *r) {
    if (!c->block_fp8) {
        kvp__check_set(r, KVP_CHECK_PASS, "", "not a block-FP8 checkpoint");
    } else if (c->amd) {
        kvp__check_set(r, KVP_CHECK_PASS, "", "ROCm FP8 paths");
    } else if (!c->cc) {
        kvp__startup_cc_unknown(r, "name the GPU (--gpu)", "block-FP8 Triton kernels need sm89");
    } else if (c->cc < 89) {
        /* Refused by every build before 2026; a 2026 Marlin path may start [uncertain]. */
        kvp__check_set(r, KVP_CHECK_WARN, "an sm89+ GPU (L4, L40S, H100 ...), or a BF16 checkpoint",
                       "type fp8e4nv not supported in this architecture. The supported fp8 dtypes "
                       "are ('fp8e4b15', 'fp8e5') (builds before 2026 fail while compiling; a 2026 "
                       "Marlin FP8 path may start)");
    } else {
        kvp__check_set(r, KVP_CHECK_PASS, "", "block-FP8 on sm%u", c->cc);
    }
}

static void par_1(kvp__startup_ctx *c, kvp_check_row *r) {
    uint32_t tp = c->tp;
    if (c->s->policy.enable_dp_attention && c->dp > 1 && tp % c->dp == 0) tp /= c->dp;
    uint32_t h = c->heads, kv = c->kv_heads;
    if (!h || !kv) {
        kvp__check_set(r, KVP_CHECK_UNKNOWN, "", "the config states no head counts");
        return;
    }
    uint64_t hd = h;
    char list[160], fix[240];
    kvp__startup_tp_list(&hd, 1, 0, 64, list, sizeof list);
    snprintf(fix, sizeof fix, "--tp one of %s (divides %u heads)", list, h);
    if (h % tp) {
        kvp__check_set(r, KVP_CHECK_REFUSE, fix, "AssertionError: %u is not divisible by %u "
                       "(attention heads by attention TP, while building the model)", h, tp);
    } else if (tp >= kv ? tp % kv : kv % tp) {
        kvp__check_set(r, KVP_CHECK_REFUSE, fix, "AssertionError: %u is not divisible by %u "
                       "(KV heads and attention TP)", tp >= kv ? tp : kv, tp >= kv ? kv : tp);
    } else {
        const char *names[4];
        uint64_t w[4];
        uint32_t split[4];
        size_t n = kvp__startup_split_widths(c, names, w, split, 4);
        for (size_t k = 0; k < n; k++)
            if (w[k] % split[k]) {
                kvp__check_set(r, KVP_CHECK_REFUSE, fix, "AssertionError: %llu is not divisible by %u (%s)",
                               (unsigned long long)w[k], split[k], names[k]);
                return;
            }
        kvp__check_set(r, KVP_CHECK_PASS, "", "%u heads, %u KV heads and the MLP widths split over TP %u",
                       h, kv, tp);
    }
}

static void mem_1(kvp__startup_ctx *c, kvp_check_row *r) {
    const kvp_policy_result *p;
    if (kvp__startup_need_plan(c, r, &p)) {
        if (p->report.max_total_num_tokens == 0)
            kvp__check_set(r, KVP_CHECK_REFUSE, "raise --mem-fraction-static, more TP or a larger GPU",
                           "Not enough memory. Please try to increase --mem-fraction-static.");
        else
            kvp__check_set(r, KVP_CHECK_PASS, "", "%llu KV tokens",
                           (unsigned long long)p->report.max_total_num_tokens);
    } else if (c->plan && c->plan->status == KVP_INFEASIBLE) {
        kvp__check_set(r, KVP_CHECK_REFUSE, "raise --mem-fraction-static, more TP or a larger GPU",
                       "Not enough memory. Please try to increase --mem-fraction-static. (%s)",
                       c->plan->message ? c->plan->message : "");
    } else if (c->plan) {
        kvp__check_set(r, KVP_CHECK_UNKNOWN, "", "no memory plan: %s", c->plan->message ? c->plan->message : "");
    }
}

static void len_2(kvp__startup_ctx *c, kvp_check_row *r) {
    const kvp_policy_result *p;
    if (!kvp__startup_need_plan(c, r, &p)) {
        if (c->plan) kvp__check_set(r, KVP_CHECK_UNKNOWN, "", "no memory plan (see S-MEM-1)");
        return;
    }
    uint64_t pool = p->report.max_total_num_tokens, ctx = c->rep->max_model_len;
    if (pool && pool < ctx) {
        kvp__check_set(r, KVP_CHECK_ADJUST, "",
                       "starts with %llu KV tokens for context %llu: inputs are capped at %llu "
                       "tokens (\"Input length (X tokens) exceeds the maximum allowed length\")",
                       (unsigned long long)pool, (unsigned long long)ctx,
                       (unsigned long long)(pool - 1));
    } else {
        kvp__check_set(r, KVP_CHECK_PASS, "", "the pool (%llu tokens) holds a full context of %llu",
                       (unsigned long long)pool, (unsigned long long)ctx);
    }
}

static void mem_2(kvp__startup_ctx *c, kvp_check_row *r) {
    if (c->tp * c->pp <= 1)
        kvp__check_set(r, KVP_CHECK_PASS, "", "one GPU");
    else
        kvp__check_set(r, KVP_CHECK_PASS, "",
                       "assumes %u identical idle %s GPUs (memory held by other processes would "
                       "unbalance them)", c->tp * c->pp, c->s->gpu.name[0] ? c->s->gpu.name : "");
}

static void mod_1(kvp__startup_ctx *c, kvp_check_row *r) {
    kvp__startup_remote_code(c, r,
                             "The repository contains custom code which must be executed to "
                             "correctly load the model. Please pass the argument "
                             "`trust_remote_code=True` (--trust-remote-code).");
}

const kvp__startup_rule kvp__startup_sglang[] = {
    {"S-LEN-1", "since PR #1778 (Oct 2024)", "read @001adf5", "context_length",
     "context length > derived without SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN",
     "--context-length <= derived, or the env var", false, len_1, NULL},
    {"S-MOD-1", "all (registry per release)", "knowledge; read @2aa2e2d",
     "trust_remote_code",
     "custom code (auto_map) without --trust-remote-code, model_type neither Transformers' nor "
     "registered by SGLang at this release",
     "--trust-remote-code", true, mod_1, NULL},
    {"S-DT-1", "all", "read, unpinned", "dtype", "sm < 75 refused; sm < 80 forced to float16",
     "a newer GPU", false, dt_1, NULL},
    {"S-MEM-2", "all (2025+: switchable)", "read, unpinned", "gpu",
     "TP > 1 and min free memory across ranks < 0.9 x this rank's", "", false, mem_2, NULL},
    {"S-PAR-1", "all", "knowledge", "tp", "heads / KV heads / MLP widths not divisible by TP",
     "a TP size that divides them", true, par_1, NULL},
    {"S-PAR-2", "all", "thread", "tp", "block-FP8 shard not a multiple of the block",
     "a TP size keeping shards multiples of 128", false, kvp__startup_block_fp8, NULL},
    {"S-DT-2", "before 2026 refused; 2026 uncertain", "thread", "quantization",
     "block-FP8 checkpoint on sm < 89", "an sm89+ GPU", false, dt_2, NULL},
    {"S-MEM-1", "all", "read, unpinned", "mem_fraction_static", "KV pool tokens <= 0",
     "raise --mem-fraction-static", false, mem_1, NULL},
    {"S-MEM-3", "all", "MEMORY.md 3.3", "mem_fraction_static",
     "graphs, prefill and sampling after the pool exceed X x (1 - mem_fraction_static)",
     "lower --mem-fraction-static or --cuda-graph-max-bs", false, kvp__startup_headroom, NULL},
    {"S-LEN-2", "all", "read, unpinned", "context_length",
     "pool smaller than the context: starts, inputs capped at pool - 1", "", false, len_2, NULL},
};
const size_t kvp__startup_sglang_count = sizeof kvp__startup_sglang / sizeof kvp__startup_sglang[0];
