/*
 * startup_llamacpp.c — llama-server's start-up rules (STARTUP.md §4): no TP
 * and no context refusal; the context constructor's checks and allocation.
 */
#include <stdio.h>
#include <string.h>

#include "startup_internal.h"

/* LLAMA_MAX_SEQ of current builds [knowledge]. */
#define LLAMA_MAX_SEQ 256u

static void len_1(kvp__startup_ctx *c, kvp_check_row *r) {
    uint64_t train = c->info->max_position_embeddings;
    uint64_t n_ctx = c->s->policy.n_ctx;
    uint32_t np = c->s->policy.n_seq_max ? c->s->policy.n_seq_max : 1;
    if (!n_ctx) {
        kvp__check_set(r, KVP_CHECK_PASS, "", "n_ctx = 0: the training context %llu",
                       (unsigned long long)train);
        return;
    }
    uint64_t per_seq = c->s->policy.kv_unified == 1 ? n_ctx : n_ctx / np;
    if (train && per_seq > train)
        kvp__check_set(r, KVP_CHECK_WARN, "",
                       "n_ctx_seq (%llu) > n_ctx_train (%llu) -- possible training context overflow",
                       (unsigned long long)per_seq, (unsigned long long)train);
    else
        kvp__check_set(r, KVP_CHECK_PASS, "", "n_ctx_seq %llu <= n_ctx_train %llu",
                       (unsigned long long)per_seq, (unsigned long long)train);
}

static void len_2(kvp__startup_ctx *c, kvp_check_row *r) {
    uint32_t np = c->s->policy.n_seq_max ? c->s->policy.n_seq_max : 1;
    if (np > LLAMA_MAX_SEQ) {
        char fix[64];
        snprintf(fix, sizeof fix, "--parallel %u or fewer", LLAMA_MAX_SEQ);
        kvp__check_set(r, KVP_CHECK_REFUSE, fix, "n_seq_max must be <= %u", LLAMA_MAX_SEQ);
    } else {
        kvp__check_set(r, KVP_CHECK_PASS, "", "%u sequence%s", np, np == 1 ? "" : "s");
    }
}

static bool quantized(const char *t) {
    return t[0] && strcmp(t, "f16") && strcmp(t, "bf16") && strcmp(t, "f32");
}

static void dt_1(kvp__startup_ctx *c, kvp_check_row *r) {
    const char *k = c->s->policy.type_k[0] ? c->s->policy.type_k : "f16";
    const char *v = c->s->policy.type_v[0] ? c->s->policy.type_v : "f16";
    int fa = c->s->policy.flash_attn;
    if (c->info && c->info->is_mla && strcmp(k, v) != 0) {
        /* llama_init_from_model checks this before the V cache (engine test). */
        kvp__check_set(r, KVP_CHECK_REFUSE, "the same --cache-type-k and --cache-type-v",
                       "model does not support different K (%s) and V (%s) cache types", k, v);
    } else if (!quantized(v)) {
        kvp__check_set(r, KVP_CHECK_PASS, "", "V cache %s needs no Flash Attention", v);
    } else if (fa == 0) {
        kvp__check_set(r, KVP_CHECK_REFUSE, "-fa on (or auto) with a matching --cache-type-k",
                       "quantized V cache requires flash_attn to be enabled");
    } else if (strcmp(k, v) != 0 && fa == -1) {
        char fix[96];
        snprintf(fix, sizeof fix, "--cache-type-k %s --cache-type-v %s (a symmetric pair)", v, v);
        kvp__check_set(r, KVP_CHECK_REFUSE, fix,
                       "Flash Attention was auto, set to disabled (no %s/%s kernel); quantized V "
                       "cache was requested, but this requires Flash Attention", k, v);
    } else if (strcmp(k, v) != 0) {
        kvp__check_set(r, KVP_CHECK_WARN, "a symmetric K/V pair",
                       "no CUDA Flash Attention kernel for K %s / V %s: the FA op runs on the CPU", k, v);
    } else {
        kvp__check_set(r, KVP_CHECK_PASS, "", "K/V %s/%s with Flash Attention %s", k, v,
                       fa == 1 ? "on" : "auto");
    }
}

static void mem(kvp__startup_ctx *c, kvp_check_row *r, bool fit_rule) {
    const kvp_policy_result *p;
    if (!kvp__startup_need_plan(c, r, &p)) {
        if (c->plan) kvp__check_set(r, KVP_CHECK_UNKNOWN, "", "no memory plan: %s",
                                    c->plan->message ? c->plan->message : "");
        return;
    }
    uint64_t total = c->s->policy.total_memory_bytes, w = c->plan->weights_bytes;
    uint64_t kv = p->report.kv_size_bytes + p->report.swa_kv_size_bytes + p->report.recurrent_size_bytes;
    bool user_ctx = c->s->policy.n_ctx != 0;
    if (!total) {
        kvp__check_set(r, KVP_CHECK_UNKNOWN, "name the GPU (--gpu)", "the GPU memory is not known");
        return;
    }
    bool fits = w + kv <= total;
    uint64_t cells = p->report.cells ? p->report.cells : p->n_ctx;
    uint64_t per_cell = cells ? kv / cells : 0;
    uint64_t margin = UINT64_C(1) << 30; /* --fit keeps 1024 MiB free per device */
    uint64_t room = total > w + margin ? total - w - margin : 0;
    uint64_t fit_ctx = per_cell ? room / per_cell / 256 * 256 : 0;
    if (fit_rule) {
        /* L-MEM-2: --fit (default since late 2025) shrinks a context the user did not set. */
        if (fits || user_ctx)
            kvp__check_set(r, KVP_CHECK_PASS, "", "%s", user_ctx ? "context size set by user -> no change"
                                                                 : "the training context fits");
        else
            kvp__check_set(r, KVP_CHECK_ADJUST, "", "fit: context reduced to %llu cells to keep "
                           "1024 MiB free", (unsigned long long)fit_ctx);
        if (!fits && !user_ctx) {
            c->rep->max_model_len = fit_ctx;
            c->rep->max_model_len_adjusted = true;
        }
        return;
    }
    if (fits || !user_ctx) {
        kvp__check_set(r, KVP_CHECK_PASS, "", "weights %.2f GiB + KV %.2f GiB of %.2f GiB",
                       kvp__startup_gib(w), kvp__startup_gib(kv), kvp__startup_gib(total));
    } else {
        char fix[160];
        snprintf(fix, sizeof fix, "--ctx-size %llu or less, a quantized --cache-type-k/-v, or fewer -ngl layers",
                 (unsigned long long)fit_ctx);
        kvp__check_set(r, KVP_CHECK_REFUSE, fix,
                       "cudaMalloc failed: out of memory; failed to allocate buffer for kv cache "
                       "(weights %.2f GiB + KV %.2f GiB > %.2f GiB)", kvp__startup_gib(w),
                       kvp__startup_gib(kv), kvp__startup_gib(total));
    }
}

static void mem_1(kvp__startup_ctx *c, kvp_check_row *r) { mem(c, r, false); }
static void mem_2(kvp__startup_ctx *c, kvp_check_row *r) { mem(c, r, true); }

const kvp__startup_rule kvp__startup_llamacpp[] = {
    {"L-MOD-1", "per build", "thread", "model", "general.architecture unknown to the build", "",
     false, NULL, "build-dependent: needs the build's architecture list"},
    {"L-LEN-1", "all", "read @4c7103b", "n_ctx", "per-sequence context above n_ctx_train (warns)",
     "", false, len_1, NULL},
    {"L-LEN-2", "all", "read @4c7103b", "n_seq_max", "--parallel above LLAMA_MAX_SEQ",
     "--parallel <= 256", false, len_2, NULL},
    {"L-DT-1", "FA auto since late 2025; refusal since 2024", "read @4c7103b + thread",
     "cache_type_v", "quantized V cache without Flash Attention (asymmetric pairs have no CUDA FA kernel)",
     "-fa on with a symmetric pair", false, dt_1, NULL},
    {"L-MEM-2", "--fit default since late 2025", "thread", "n_ctx",
     "context not set by the user: shrunk to fit", "", false, mem_2, NULL},
    {"L-MEM-1", "all", "read @4c7103b + thread", "n_ctx", "weights + KV + buffers above the device",
     "a smaller --ctx-size", false, mem_1, NULL},
};
const size_t kvp__startup_llamacpp_count = sizeof kvp__startup_llamacpp / sizeof kvp__startup_llamacpp[0];
