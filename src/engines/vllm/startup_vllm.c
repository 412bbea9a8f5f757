/*
 * startup_vllm.c — vLLM's start-up rules (STARTUP.md §1) as one table, in the
 * order vLLM checks: argument/config validation, worker start, layer build,
 * KV-cache sizing. Messages are vLLM's own sentences (2025–2026 builds).
 */
#include <stdio.h>
#include <string.h>

#include "startup_internal.h"

#define V(x, y, z) ((x) * 10000u + (y) * 100u + (z))

/* ------------------------------------------------------------ parallelism */

static void par_1(kvp__startup_ctx *c, kvp_check_row *r) {
    if (!c->heads) {
        kvp__check_set(r, KVP_CHECK_UNKNOWN, "", "the config states no num_attention_heads");
        return;
    }
    uint64_t h = c->heads;
    char list[160], fix[320];
    kvp__startup_tp_list(&h, 1, 0, 64, list, sizeof list);
    if (c->heads % c->tp) {
        snprintf(fix, sizeof fix, "--tensor-parallel-size one of %s (divides %u heads)", list,
                 c->heads);
        kvp__check_set(r, KVP_CHECK_REFUSE, fix,
                       "Total number of attention heads (%u) must be divisible by tensor "
                       "parallel size (%u).", c->heads, c->tp);
    } else {
        kvp__check_set(r, KVP_CHECK_PASS, "", "%u attention heads divide by TP %u", c->heads, c->tp);
    }
}

static void par_2(kvp__startup_ctx *c, kvp_check_row *r) {
    if (!c->kv_heads) {
        kvp__check_set(r, KVP_CHECK_UNKNOWN, "", "the config states no KV head count");
        return;
    }
    uint32_t kv = c->kv_heads, tp = c->tp;
    /* QKVParallelLinear: tp >= kv -> replicas = divide(tp, kv); else divide(kv, tp).
     * The arithmetic is the cost room's (kvp_cost_check_tp, which `cost` and every
     * policy apply), so cost and the start-up check agree; the query-head case is
     * V-PAR-1's. */
    kvp_error e;
    bool bad = kvp_cost_check_tp(c->model, tp, &e) != KVP_OK &&
               strcmp(e.key, "num_attention_heads") != 0;
    if (!bad && kvp_cost_check_tp(c->model, tp, &e) != KVP_OK) {
        /* The cost room stops at the query heads (V-PAR-1's refusal): the KV heads
         * are tested here by QKVParallelLinear's own arithmetic, and the line says
         * that this is all that was tested. */
        bool kv_ok = tp >= kv ? tp % kv == 0 : kv % tp == 0;
        if (kv_ok)
            kvp__check_set(r, KVP_CHECK_PASS, "",
                           "%u KV heads at TP %u: %u %% %u = 0 (recurrent heads not tested: "
                           "V-PAR-1 refuses first)", kv, tp, tp >= kv ? tp : kv, tp >= kv ? kv : tp);
        else
            kvp__check_set(r, KVP_CHECK_REFUSE, "a TP size that divides the KV heads or is a "
                           "multiple of them", "%u is not divisible by %u", tp >= kv ? tp : kv,
                           tp >= kv ? kv : tp);
        return;
    }
    if (bad && strcmp(e.key, "num_key_value_heads") != 0) {
        kvp__check_set(r, KVP_CHECK_REFUSE, "a TP size that divides the recurrent heads",
                       "AssertionError while building the layers: %s", e.message);
    } else if (bad) {
        char fix[200];
        snprintf(fix, sizeof fix, "a TP size that divides %u KV heads or is a multiple of it", kv);
        kvp__check_set(r, KVP_CHECK_REFUSE, fix, "%u is not divisible by %u", tp >= kv ? tp : kv,
                       tp >= kv ? kv : tp);
    } else if (tp > kv) {
        kvp__check_set(r, KVP_CHECK_PASS, "",
                       "%u KV head%s at TP %u: each replicated on %u ranks", kv, kv == 1 ? "" : "s",
                       tp, tp / kv);
    } else {
        kvp__check_set(r, KVP_CHECK_PASS, "", "%u KV heads divide by TP %u", kv, tp);
    }
}

static void par_3(kvp__startup_ctx *c, kvp_check_row *r) {
    const kvp_model_info *i = c->info;
    uint64_t vocab_padded = (i->vocab_size + 63) / 64 * 64;
    const char *names[4];
    uint64_t w[4];
    uint32_t split[4];
    size_t n = kvp__startup_split_widths(c, names, w, split, 4);
    uint64_t dims[6];
    size_t nd = 0;
    if (vocab_padded) dims[nd++] = vocab_padded;
    /* A width held whole on each rank (routed experts under EP) splits by nothing. */
    for (size_t k = 0; k < n; k++)
        if (split[k] != 1) dims[nd++] = w[k];
    char list[160], fix[320];
    kvp__startup_tp_list(dims, nd, 0, 64, list, sizeof list);
    snprintf(fix, sizeof fix, "--tensor-parallel-size one of %s", list);
    if (vocab_padded && vocab_padded % c->tp) {
        kvp__check_set(r, KVP_CHECK_REFUSE, fix, "%llu is not divisible by %u",
                       (unsigned long long)vocab_padded, c->tp);
        return;
    }
    for (size_t k = 0; k < n; k++) {
        if (w[k] % split[k]) {
            kvp__check_set(r, KVP_CHECK_REFUSE, fix, "%llu is not divisible by %u (%s)",
                           (unsigned long long)w[k], split[k], names[k]);
            return;
        }
    }
    kvp__check_set(r, KVP_CHECK_PASS, "", "vocabulary (padded to %llu) and MLP widths divide by TP %u",
                   (unsigned long long)vocab_padded, c->tp);
}

/* Shared by V-PAR-4 and S-PAR-2: the first TP-split width whose shard is not a
 * multiple of the FP8 block. */
void kvp__startup_block_fp8(kvp__startup_ctx *c, kvp_check_row *r);
void kvp__startup_block_fp8(kvp__startup_ctx *c, kvp_check_row *r) {
    if (!c->block_fp8) {
        kvp__check_set(r, KVP_CHECK_PASS, "", "not a block-FP8 checkpoint");
        return;
    }
    const char *names[4];
    uint64_t w[4];
    uint32_t split[4];
    size_t n = kvp__startup_split_widths(c, names, w, split, 4);
    uint64_t bn = c->facts->weight_block_n, bk = c->facts->weight_block_k;
    uint64_t block = bn > bk ? bn : bk;
    char list[160], fix[320];
    kvp__startup_tp_list(w, n, block, 64, list, sizeof list);
    snprintf(fix, sizeof fix, "a TP size that keeps every shard a multiple of %llu: %s",
             (unsigned long long)block, list);
    for (size_t k = 0; k < n; k++) {
        if (w[k] % split[k]) continue; /* V-PAR-3 */
        /* Under EP a routed expert's width is checked whole (Fp8MoEMethod). */
        uint64_t per = w[k] / split[k];
        if (per % bn == 0 && per % bk == 0) continue;
        /* The gate/up projection is built first: its output width is checked before the
         * down projection's input width (same value). */
        bool routed = strcmp(names[k], "moe_intermediate_size") == 0 ||
                      (c->info->num_experts && !c->info->moe_intermediate_size);
        if (routed)
            kvp__check_set(r, KVP_CHECK_REFUSE, fix,
                           "The output_size of gate's and up's weight = %llu is not divisible by "
                           "weight quantization block_n = %llu.",
                           (unsigned long long)per, (unsigned long long)bn);
        else if (per % bn)
            kvp__check_set(r, KVP_CHECK_REFUSE, fix,
                           "Weight output_partition_size = %llu is not divisible by weight "
                           "quantization block_n = %llu.",
                           (unsigned long long)per, (unsigned long long)bn);
        else
            kvp__check_set(r, KVP_CHECK_REFUSE, fix,
                           "Weight input_size_per_partition = %llu is not divisible by weight "
                           "quantization block_k = %llu.",
                           (unsigned long long)per, (unsigned long long)bk);
        return;
    }
    kvp__check_set(r, KVP_CHECK_PASS, "", "every TP shard is a multiple of the %llux%llu FP8 block",
                   (unsigned long long)bn, (unsigned long long)bk);
}

static void par_6(kvp__startup_ctx *c, kvp_check_row *r) {
    if (!c->s->enable_expert_parallel) {
        kvp__check_set(r, KVP_CHECK_PASS, "", "expert parallelism not enabled");
    } else if (c->info->num_experts == 0) {
        kvp__check_set(r, KVP_CHECK_REFUSE, "drop --enable-expert-parallel (the model is dense)",
                       "Number of experts in the model must be greater than 0 when expert "
                       "parallelism is enabled.");
    } else {
        kvp__check_set(r, KVP_CHECK_PASS, "", "%u experts", c->info->num_experts);
    }
}

static void par_8(kvp__startup_ctx *c, kvp_check_row *r) {
    uint32_t world = c->tp * c->pp * c->dp;
    if (!c->gpus_stated) {
        kvp__check_set(r, KVP_CHECK_PASS, "",
                       "assumes %u visible GPU%s (TP x PP x DP); give --gpus or "
                       "CUDA_VISIBLE_DEVICES to check", world, world == 1 ? "" : "s");
    } else if (world > c->gpus) {
        char fix[160];
        snprintf(fix, sizeof fix, "%u GPUs (--gpus %u), or a smaller TP x PP x DP", world, world);
        kvp__check_set(r, KVP_CHECK_REFUSE, fix,
                       "local_world_size (%u) must be less than or equal to the number of "
                       "visible devices (%u).", world, c->gpus);
    } else {
        kvp__check_set(r, KVP_CHECK_PASS, "", "TP x PP x DP = %u of %u visible GPUs", world, c->gpus);
    }
}

/* ---------------------------------------------------------------- lengths */

static void len_1(kvp__startup_ctx *c, kvp_check_row *r) {
    const kvp_model_startup *f = c->facts;
    uint64_t derived = kvp__startup_default_len(c->model, c->s);
    const char *key = f->vllm_len_key[0] ? f->vllm_len_key : "max_position_embeddings";
    if (!derived) {
        kvp__check_set(r, KVP_CHECK_UNKNOWN, "", "the model states no context length (not read "
                       "from a config.json): the derived max_model_len is not known");
        return;
    }
    if (!c->user_len) {
        kvp__check_set(r, KVP_CHECK_PASS, "", "max_model_len defaults to the derived %llu (%s)",
                       (unsigned long long)derived, f->vllm_len_key[0] ? key : "default 2048");
        return;
    }
    uint64_t u = c->user_len;
    if (u <= derived || (f->model_max_length && u <= f->model_max_length)) {
        kvp__check_set(r, KVP_CHECK_PASS, "", "max_model_len %llu <= derived %llu%s",
                       (unsigned long long)u, (unsigned long long)derived,
                       u > derived ? " (within model_max_length)" : "");
        return;
    }
    char mml[32];
    if (f->model_max_length)
        snprintf(mml, sizeof mml, "%llu", (unsigned long long)f->model_max_length);
    else
        kvp__strlcpy(mml, "None", sizeof mml);
    bool env_exists = c->version == 0 || c->version >= V(0, 5, 4); /* PR #7080 */
    if (env_exists && kvp__startup_env_true(c, "VLLM_ALLOW_LONG_MAX_MODEL_LEN")) {
        kvp__check_set(r, KVP_CHECK_WARN, "",
                       "User-specified max_model_len (%llu) is greater than the derived "
                       "max_model_len (%s=%llu or model_max_length=%s in model's config.json). "
                       "VLLM_ALLOW_LONG_MAX_MODEL_LEN is set: starting; RoPE models may produce "
                       "NaN past the trained length",
                       (unsigned long long)u, key, (unsigned long long)derived, mml);
        return;
    }
    char fix[240];
    snprintf(fix, sizeof fix, "--max-model-len %llu (the derived maximum)%s",
             (unsigned long long)derived,
             env_exists ? ", or VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 (--env)" : "");
    kvp__check_set(r, KVP_CHECK_REFUSE, fix,
                   "User-specified max_model_len (%llu) is greater than the derived "
                   "max_model_len (%s=%llu or model_max_length=%s in model's config.json).%s",
                   (unsigned long long)u, key, (unsigned long long)derived, mml,
                   env_exists ? " To allow overriding this maximum, set the env var "
                                "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1."
                              : "");
}

static void len_2(kvp__startup_ctx *c, kvp_check_row *r) {
    uint64_t b = c->s->policy.max_num_batched_tokens, l = c->rep->max_model_len;
    if (c->s->enable_chunked_prefill != 0) {
        kvp__check_set(r, KVP_CHECK_PASS, "", "chunked prefill on (the V1 default)");
    } else if (!b) {
        kvp__check_set(r, KVP_CHECK_PASS, "",
                       "chunked prefill off, no --max-num-batched-tokens: the budget is raised "
                       "to max_model_len");
    } else if (b < l) {
        char fix[200];
        snprintf(fix, sizeof fix, "--max-num-batched-tokens %llu or more, or keep chunked prefill on",
                 (unsigned long long)l);
        kvp__check_set(r, KVP_CHECK_REFUSE, fix,
                       "max_num_batched_tokens (%llu) is smaller than max_model_len (%llu). This "
                       "effectively limits the maximum sequence length to max_num_batched_tokens "
                       "and makes vLLM reject longer sequences. Please increase "
                       "max_num_batched_tokens or decrease max_model_len.",
                       (unsigned long long)b, (unsigned long long)l);
    } else {
        kvp__check_set(r, KVP_CHECK_PASS, "", "max_num_batched_tokens %llu >= max_model_len %llu",
                       (unsigned long long)b, (unsigned long long)l);
    }
}

static void len_3(kvp__startup_ctx *c, kvp_check_row *r) {
    uint64_t b = c->s->policy.max_num_batched_tokens;
    uint64_t seqs = c->s->policy.max_num_seqs ? c->s->policy.max_num_seqs : 256;
    if (!b) b = c->s->enable_chunked_prefill == 0 && c->rep->max_model_len > 8192
                    ? c->rep->max_model_len
                    : 8192; /* V1 serve default */
    if (b < seqs) {
        char fix[160];
        snprintf(fix, sizeof fix, "--max-num-batched-tokens %llu or more, or --max-num-seqs %llu",
                 (unsigned long long)seqs, (unsigned long long)b);
        kvp__check_set(r, KVP_CHECK_REFUSE, fix,
                       "max_num_batched_tokens (%llu) must be greater than or equal to "
                       "max_num_seqs (%llu).", (unsigned long long)b, (unsigned long long)seqs);
    } else {
        kvp__check_set(r, KVP_CHECK_PASS, "", "max_num_batched_tokens %llu >= max_num_seqs %llu",
                       (unsigned long long)b, (unsigned long long)seqs);
    }
}

static void len_4(kvp__startup_ctx *c, kvp_check_row *r) {
    uint32_t bs = c->s->policy.block_size;
    if (c->info->is_mla) {
        bool sparse = false;
        for (size_t i = 0; i < kvp_model_cache_count(c->model) && !sparse; i++)
            sparse = kvp_model_cache(c->model, i)->kind == KVP_CACHE_INDEXER;
        /* FlashMLA 64; CUTLASS-MLA (the Blackwell default) 128; sparse MLA 64. */
        uint32_t forced = sparse ? 64 : (c->cc >= 100 && c->cc < 120) ? 128 : 64;
        if (c->cc == 0 && !sparse) {
            kvp__startup_cc_unknown(r, "name the GPU (--gpu)",
                                    "MLA block size is forced per GPU (64 FlashMLA, 128 "
                                    "CUTLASS-MLA on Blackwell)");
        } else if (bs && bs != forced) {
            kvp__check_set(r, KVP_CHECK_ADJUST, "",
                           "Forcing kv cache block size to %u for %s backend.", forced,
                           sparse ? "FlashMLASparse" : forced == 128 ? "CUTLASS_MLA" : "FlashMLA");
        } else {
            kvp__check_set(r, KVP_CHECK_PASS, "", "MLA block size %u", forced);
        }
        return;
    }
    if (bs && bs % 16) {
        char fix[96];
        snprintf(fix, sizeof fix, "--block-size %u", bs < 16 ? 16u : bs / 16 * 16);
        kvp__check_set(r, KVP_CHECK_REFUSE, fix, "Block size must be a multiple of 16.");
    } else {
        kvp__check_set(r, KVP_CHECK_PASS, "", "block size %u", bs ? bs : 16);
    }
}

static void len_5(kvp__startup_ctx *c, kvp_check_row *r) {
    const kvp_policy_result *p;
    if (!c->s->policy.auto_fit_max_model_len) {
        kvp__check_set(r, KVP_CHECK_PASS, "", "max_model_len not -1: no auto-fit");
        return;
    }
    if (!kvp__startup_need_plan(c, r, &p)) {
        if (c->plan) kvp__check_set(r, KVP_CHECK_UNKNOWN, "", "no memory plan: %s", c->plan->message ? c->plan->message : "");
        return;
    }
    if (p->estimated_max_model_len && p->estimated_max_model_len < c->rep->max_model_len) {
        kvp__check_set(r, KVP_CHECK_ADJUST, "", "Auto-fit max_model_len: reduced from %llu to %llu",
                       (unsigned long long)c->rep->max_model_len,
                       (unsigned long long)p->estimated_max_model_len);
        c->rep->max_model_len = p->estimated_max_model_len;
        c->rep->max_model_len_adjusted = true;
    } else {
        kvp__check_set(r, KVP_CHECK_PASS, "", "the derived %llu fits: no reduction",
                       (unsigned long long)c->rep->max_model_len);
    }
}

/* ----------------------------------------------------------------- memory */

static void mem_1(kvp__startup_ctx *c, kvp_check_row *r) {
    double u = c->s->policy.gpu_memory_utilization > 0 ? c->s->policy.gpu_memory_utilization : 0.9;
    uint64_t total = c->s->policy.total_memory_bytes ? c->s->policy.total_memory_bytes : c->s->gpu.total_bytes;
    uint64_t free_b = c->s->policy.free_memory_bytes;
    if (!total) {
        kvp__check_set(r, KVP_CHECK_UNKNOWN, "name the GPU (--gpu) or give --gpu-mem",
                       "the GPU memory is not known");
        return;
    }
    double want = (double)total * u;
    char fix[200];
    if (free_b) {
        snprintf(fix, sizeof fix, "--gpu-memory-utilization %.2f or less (free / total), or free "
                 "the memory other processes hold", (double)free_b / (double)total - 0.005);
        if ((double)free_b < want)
            kvp__check_set(r, KVP_CHECK_REFUSE, fix,
                           "Free memory on device (%.2f/%.2f GiB) on startup is less than desired "
                           "GPU memory utilization (%.2f, %.2f GiB). Decrease GPU memory "
                           "utilization or reduce GPU memory used by other processes.",
                           kvp__startup_gib(free_b), kvp__startup_gib(total), u, want / 1073741824.0);
        else
            kvp__check_set(r, KVP_CHECK_PASS, "", "free %.2f GiB >= %.2f x %.2f GiB",
                           kvp__startup_gib(free_b), u, kvp__startup_gib(total));
        return;
    }
    /* No free figure: an idle GPU has its CUDA context and driver reservations
     * taken (0.5-1.5 GiB in users' logs, more on cards that drive a display). */
    double idle_free = (double)total - 1.5 * 1073741824.0;
    if (want > idle_free) {
        snprintf(fix, sizeof fix, "--gpu-memory-utilization %.2f, or measure with --free-mem",
                 idle_free / (double)total);
        kvp__check_set(r, KVP_CHECK_WARN, fix,
                       "%.2f x %.2f GiB = %.2f GiB leaves under 1.5 GiB for the CUDA context: "
                       "vLLM refuses when free memory at start-up is below it (free memory not "
                       "given; --free-mem decides)",
                       u, kvp__startup_gib(total), want / 1073741824.0);
    } else {
        kvp__check_set(r, KVP_CHECK_PASS, "",
                       "assumes an idle GPU (free memory not given): %.2f x %.2f GiB leaves room "
                       "for the CUDA context", u, kvp__startup_gib(total));
    }
}

static void mem_5(kvp__startup_ctx *c, kvp_check_row *r) {
    if (!c->plan) {
        kvp__check_set(r, KVP_CHECK_UNKNOWN, "name the GPU (--gpu) or give --gpu-mem",
                       "no memory plan: the GPU memory is not known");
        return;
    }
    double u = c->s->policy.gpu_memory_utilization > 0 ? c->s->policy.gpu_memory_utilization : 0.9;
    uint64_t total = c->s->policy.total_memory_bytes;
    uint64_t w = c->plan->weights_bytes;
    if (!w || !total) {
        kvp__check_set(r, KVP_CHECK_UNKNOWN, "give --weights", "the weight bytes per rank are not known");
        return;
    }
    if ((double)w > (double)total * u) {
        char fix[200];
        snprintf(fix, sizeof fix, "more TP ranks, a larger GPU, or a quantized checkpoint (%.2f GiB "
                 "of weights per rank%s)", kvp__startup_gib(w), c->plan->weights_estimated ? ", estimated" : "");
        kvp__check_set(r, KVP_CHECK_REFUSE, fix,
                       "torch.OutOfMemoryError: CUDA out of memory (weights %.2f GiB per rank > "
                       "%.2f x %.2f GiB)", kvp__startup_gib(w), u, kvp__startup_gib(total));
    } else {
        kvp__check_set(r, KVP_CHECK_PASS, "", "weights %.2f GiB per rank%s fit in %.2f x %.2f GiB",
                       kvp__startup_gib(w), c->plan->weights_estimated ? " (estimated)" : "", u,
                       kvp__startup_gib(total));
    }
}

static void mem_2(kvp__startup_ctx *c, kvp_check_row *r) {
    const kvp_policy_result *p;
    if (kvp__startup_need_plan(c, r, &p)) {
        kvp__check_set(r, KVP_CHECK_PASS, "", "available KV cache memory %.2f GiB",
                       kvp__startup_gib(p->budget_bytes));
    } else if (c->plan && c->plan->status == KVP_INFEASIBLE) {
        kvp__check_set(r, KVP_CHECK_REFUSE,
                       "raise --gpu-memory-utilization, add TP ranks, or a larger GPU",
                       "No available memory for the cache blocks. Try increasing "
                       "`gpu_memory_utilization` when initializing the engine. (%s)",
                       c->plan->message ? c->plan->message : "");
    } else if (c->plan) {
        kvp__check_set(r, KVP_CHECK_UNKNOWN, "", "no memory plan: %s",
                       c->plan->message ? c->plan->message : "");
    }
}

static void mem_3(kvp__startup_ctx *c, kvp_check_row *r) {
    const kvp_policy_result *p;
    if (!kvp__startup_need_plan(c, r, &p)) {
        if (c->plan) kvp__check_set(r, KVP_CHECK_UNKNOWN, "", "no memory plan (see V-MEM-2)");
        return;
    }
    if (!strcmp(p->era, "v0")) {
        kvp__check_set(r, KVP_CHECK_PASS, "", "V0 engine: its own check is V-MEM-4");
        return;
    }
    uint64_t len = p->max_model_len ? p->max_model_len : c->rep->max_model_len;
    if (p->needed_bytes > p->budget_bytes && !c->s->policy.auto_fit_max_model_len) {
        char fix[200];
        if (p->estimated_max_model_len)
            snprintf(fix, sizeof fix, "--max-model-len %llu (the largest that fits), or raise "
                     "--gpu-memory-utilization / TP", (unsigned long long)p->estimated_max_model_len);
        else
            snprintf(fix, sizeof fix, "raise --gpu-memory-utilization or TP: not one token fits");
        char est[120] = "";
        if (p->estimated_max_model_len)
            snprintf(est, sizeof est, " Based on the available memory, the estimated maximum "
                     "model length is %llu.", (unsigned long long)p->estimated_max_model_len);
        kvp__check_set(r, KVP_CHECK_REFUSE, fix,
                       "To serve at least one request with the models's max seq len (%llu), "
                       "(%.2f GiB KV cache is needed, which is larger than the available KV cache "
                       "memory (%.2f GiB).%s Try increasing `gpu_memory_utilization` or "
                       "decreasing `max_model_len` when initializing the engine.",
                       (unsigned long long)len, kvp__startup_gib(p->needed_bytes),
                       kvp__startup_gib(p->budget_bytes), est);
    } else {
        kvp__check_set(r, KVP_CHECK_PASS, "",
                       "one request of %llu tokens needs %.2f GiB of %.2f GiB available",
                       (unsigned long long)len, kvp__startup_gib(p->needed_bytes),
                       kvp__startup_gib(p->budget_bytes));
    }
}

/* V0 (LLMEngine._initialize_kv_caches -> _verify_args of the cache): the blocks
 * the V0 profile leaves must hold max_model_len tokens. The budget comes from
 * V0's own profile batch (max_num_seqs prompts up to max_model_len, MEMORY.md
 * 7.3), so the boundary is not monotone in the length; the plan computes it. */
static void mem_4(kvp__startup_ctx *c, kvp_check_row *r) {
    const kvp_policy_result *p;
    if (!kvp__startup_need_plan(c, r, &p)) {
        if (c->plan) kvp__check_set(r, KVP_CHECK_UNKNOWN, "", "no memory plan (see V-MEM-2)");
        return;
    }
    if (strcmp(p->era, "v0") != 0) {
        kvp__check_set(r, KVP_CHECK_PASS, "", "V1 engine: one request is checked by V-MEM-3");
        return;
    }
    uint64_t len = p->max_model_len ? p->max_model_len : c->rep->max_model_len;
    uint64_t tokens = p->report.num_gpu_blocks * (uint64_t)p->block_size;
    if (len > tokens) {
        char fix[160];
        snprintf(fix, sizeof fix, "--max-model-len %llu or less, or raise --gpu-memory-utilization",
                 (unsigned long long)tokens);
        kvp__check_set(r, KVP_CHECK_REFUSE, fix,
                       "The model's max seq len (%llu) is larger than the maximum number of tokens "
                       "that can be stored in KV cache (%llu). Try increasing "
                       "`gpu_memory_utilization` or decreasing `max_model_len` when initializing "
                       "the engine.",
                       (unsigned long long)len, (unsigned long long)tokens);
    } else {
        kvp__check_set(r, KVP_CHECK_PASS, "", "max_model_len %llu <= %llu KV tokens",
                       (unsigned long long)len, (unsigned long long)tokens);
    }
}

/* ----------------------------------------------------------------- dtypes */

static void dt_0(kvp__startup_ctx *c, kvp_check_row *r) {
    char cc[24];
    if (c->amd) {
        kvp__check_set(r, KVP_CHECK_PASS, "", "ROCm GPU %s", c->s->gpu.gfx_target);
    } else if (!c->cc) {
        kvp__check_set(r, KVP_CHECK_UNKNOWN, "name the GPU (--gpu) so its capability is known",
                       "the GPU's compute capability is not known");
    } else if (c->cc < 70) {
        kvp__check_set(r, KVP_CHECK_REFUSE, "a GPU of compute capability 7.0 or newer (V100, T4, A10 ...)",
                       "GPUs with compute capability below 7.0 are not supported. Your GPU has "
                       "compute capability %s.", kvp__startup_cc(c, cc, sizeof cc));
    } else {
        kvp__check_set(r, KVP_CHECK_PASS, "", "compute capability %s", kvp__startup_cc(c, cc, sizeof cc));
    }
}

static bool fp16_forbidden(const char *mt) {
    static const char *const k[] = {"gemma2", "gemma3", "gemma3_text", "plamo2", "glm4"};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        if (strcmp(mt, k[i]) == 0) return true;
    return false;
}

static void dt_2(kvp__startup_ctx *c, kvp_check_row *r) {
    const char *mt = c->info->model_type;
    if (fp16_forbidden(mt) && c->s->dtype == KVP_RUN_DTYPE_FLOAT16) {
        kvp__check_set(r, KVP_CHECK_REFUSE, "--dtype bfloat16 (cc >= 8.0) or --dtype float32",
                       "The model type '%s' does not support float16. Reason: Numerical "
                       "instability. Please use bfloat16 or float32 instead.", mt);
    } else {
        kvp__check_set(r, KVP_CHECK_PASS, "", "%s", fp16_forbidden(mt) ? "float16 not asked for"
                                                                        : "no float16 restriction for this model type");
    }
}

static void dt_1(kvp__startup_ctx *c, kvp_check_row *r) {
    char cc[24];
    kvp_run_dtype d = c->s->dtype;
    bool wants_bf16 = d == KVP_RUN_DTYPE_BFLOAT16 ||
                      (d == KVP_RUN_DTYPE_AUTO && c->rep->run_dtype == KVP_DTYPE_BF16);
    if (!wants_bf16) {
        kvp__check_set(r, KVP_CHECK_PASS, "", "runs in %s", kvp_dtype_name(c->rep->run_dtype));
        return;
    }
    if (c->amd) {
        kvp__check_set(r, KVP_CHECK_PASS, "", "bfloat16 on ROCm %s", c->s->gpu.gfx_target);
        return;
    }
    if (!c->cc) {
        kvp__startup_cc_unknown(r, "name the GPU (--gpu) so its capability is known",
                                "bfloat16 needs compute capability 8.0");
        return;
    }
    if (c->cc >= 80) {
        kvp__check_set(r, KVP_CHECK_PASS, "", "bfloat16 on compute capability %s",
                       kvp__startup_cc(c, cc, sizeof cc));
        return;
    }
    const char *gpu = c->s->gpu.name[0] ? c->s->gpu.name : "this";
    kvp__startup_cc(c, cc, sizeof cc);
    /* --dtype auto fell back to float16 by 0.11.0 (_resolve_auto_dtype); up to at least
     * 0.6.3 it was refused like an explicit bfloat16. */
    bool fallback = d == KVP_RUN_DTYPE_AUTO && (c->version == 0 || c->version > V(0, 6, 3));
    if (fallback) {
        bool fp32 = fp16_forbidden(c->info->model_type);
        kvp__startup_set_run_dtype(c, fp32 ? KVP_DTYPE_FP32 : KVP_DTYPE_FP16);
        if (fp32)
            kvp__check_set(r, KVP_CHECK_ADJUST, "",
                           "Your device '%s' (with compute capability %s) doesn't support "
                           "torch.bfloat16, and model type '%s' excludes float16: running in "
                           "torch.float32 (twice the weight memory).", gpu, cc, c->info->model_type);
        else
            kvp__check_set(r, KVP_CHECK_ADJUST, "",
                           "Your device '%s' (with compute capability %s) doesn't support "
                           "torch.bfloat16. Falling back to torch.float16 for compatibility.",
                           gpu, cc);
        return;
    }
    kvp__check_set(r, KVP_CHECK_REFUSE, "--dtype float16 (--dtype=half), or a GPU of compute capability 8.0+",
                   "Bfloat16 is only supported on GPUs with compute capability of at least 8.0. "
                   "Your %s GPU has compute capability %s. You can use float16 instead by "
                   "explicitly setting the `dtype` flag in CLI, for example: --dtype=half.",
                   gpu, cc);
}

typedef struct quant_min {
    const char *method;
    uint32_t min_cc;
} quant_min;

/* get_min_capability() of the methods (STARTUP.md V-DT-3 table; latest builds). */
static uint32_t quant_minimum(const kvp__startup_ctx *c, const char *m, bool *known) {
    static const quant_min k[] = {
        {"awq", 75},          {"gptq", 60},        {"awq_marlin", 80},  {"gptq_marlin", 80},
        {"marlin", 80},       {"gptq_marlin_24", 80}, {"bitsandbytes", 70}, {"gguf", 60},
        {"compressed-tensors", 70}, {"fbgemm_fp8", 80}, {"modelopt", 89}, {"experts_int8", 80},
    };
    *known = true;
    if (strcmp(m, "fp8") == 0) return c->version && c->version < V(0, 5, 1) ? 89 : 80;
    if (strcmp(m, "mxfp4") == 0) return c->version && c->version < V(0, 10, 1) ? 100 : 80;
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        if (strcmp(k[i].method, m) == 0) return k[i].min_cc;
    *known = false;
    return 0;
}

static void dt_3(kvp__startup_ctx *c, kvp_check_row *r) {
    if (!c->quant[0]) {
        kvp__check_set(r, KVP_CHECK_PASS, "", "no quantization");
        return;
    }
    bool known;
    uint32_t min = quant_minimum(c, c->quant, &known);
    if (!known) {
        kvp__check_set(r, KVP_CHECK_UNKNOWN, "", "no capability minimum recorded for method %s",
                       c->quant);
        return;
    }
    if (c->amd) {
        kvp__check_set(r, KVP_CHECK_PASS, "", "ROCm: %s", c->quant);
        return;
    }
    if (!c->cc) {
        kvp__startup_cc_unknown(r, "name the GPU (--gpu) so its capability is known",
                                "%s needs capability %u", c->quant, min);
        return;
    }
    if (c->cc < min) {
        char fix[160];
        snprintf(fix, sizeof fix, "a GPU of compute capability %u.%u or newer (%s)", min / 10,
                 min % 10, min <= 80 ? "A100, A10, L4, H100 ..." : min <= 89 ? "L4, L40S, H100 ..." : "H100, B200 ...");
        kvp__check_set(r, KVP_CHECK_REFUSE, fix,
                       "The quantization method %s is not supported for the current GPU. Minimum "
                       "capability: %u. Current capability: %u.", c->quant, min, c->cc);
    } else {
        kvp__check_set(r, KVP_CHECK_PASS, "", "%s needs capability %u, the GPU has %u", c->quant,
                       min, c->cc);
    }
}

static bool quant_compatible(const char *ckpt, const char *arg) {
    if (strcmp(ckpt, arg) == 0) return true;
    static const char *const k[][2] = {
        {"gptq", "gptq_marlin"}, {"gptq", "marlin"}, {"gptq", "gptq_marlin_24"}, {"gptq", "gptq_bitblas"},
        {"awq", "awq_marlin"},   {"awq", "marlin"},  {"fp8", "fbgemm_fp8"}, {"modelopt", "modelopt_fp4"},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        if (strcmp(k[i][0], ckpt) == 0 && strcmp(k[i][1], arg) == 0) return true;
    return false;
}

static bool quant_method_known(const char *m) {
    static const char *const k[] = {
        "aqlm", "awq", "deepspeedfp", "tpu_int8", "fp8", "ptpc_fp8", "fbgemm_fp8", "modelopt",
        "modelopt_fp4", "marlin", "bitblas", "gguf", "gptq_marlin_24", "gptq_marlin",
        "gptq_bitblas", "awq_marlin", "gptq", "compressed-tensors", "bitsandbytes", "qqq", "hqq",
        "experts_int8", "ipex", "quark", "moe_wna16", "torchao", "auto-round", "rtn", "inc",
        "mxfp4", "petit_nvfp4", "fp_quant"};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        if (strcmp(k[i], m) == 0) return true;
    return false;
}

static void dt_4(kvp__startup_ctx *c, kvp_check_row *r) {
    char arg[32], ckpt[32];
    size_t i = 0;
    for (; c->s->quantization[i] && i + 1 < sizeof arg; i++)
        arg[i] = (char)(c->s->quantization[i] >= 'A' && c->s->quantization[i] <= 'Z'
                            ? c->s->quantization[i] + 32
                            : c->s->quantization[i]);
    arg[i] = '\0';
    kvp__strlcpy(ckpt, c->info->quant_method, sizeof ckpt);
    for (char *p = ckpt; *p; p++)
        if (*p >= 'A' && *p <= 'Z') *p = (char)(*p + 32);
    if (arg[0] && !quant_method_known(arg)) {
        kvp__check_set(r, KVP_CHECK_REFUSE, "a method vLLM knows (fp8, awq, gptq, compressed-tensors, ...)",
                       "Unknown quantization method: %s.", arg);
    } else if (arg[0] && ckpt[0] && !quant_compatible(ckpt, arg)) {
        char fix[120];
        snprintf(fix, sizeof fix, "--quantization %s, or leave it out", ckpt);
        kvp__check_set(r, KVP_CHECK_REFUSE, fix,
                       "Quantization method specified in the model config (%s) does not match "
                       "the quantization method specified in the `quantization` argument (%s).",
                       ckpt, arg);
    } else if (strcmp(c->quant, "mxfp4") == 0 && c->rep->run_dtype != KVP_DTYPE_BF16) {
        kvp__check_set(r, KVP_CHECK_REFUSE, "a GPU with bfloat16 (compute capability 8.0+)",
                       "%s is not supported for quantization method mxfp4. Supported dtypes: "
                       "[torch.bfloat16]", c->rep->run_dtype == KVP_DTYPE_FP16 ? "torch.float16" : "torch.float32");
    } else {
        kvp__check_set(r, KVP_CHECK_PASS, "", "%s", c->quant[0] ? "quantization arguments consistent"
                                                                : "no quantization");
    }
}

static void dt_5(kvp__startup_ctx *c, kvp_check_row *r) {
    if (c->info->is_mla && c->cc >= 120) {
        kvp__check_set(r, KVP_CHECK_REFUSE, "a datacenter GPU (Hopper or B200/B300) for MLA models",
                       "No valid attention backend found for cuda with MLA. Reasons: "
                       "{FLASHMLA: [compute capability not supported], CUTLASS_MLA: [compute "
                       "capability not supported], FLASHINFER_MLA: [compute capability not supported]}");
    } else if (!c->cc && !c->amd && c->info->is_mla) {
        kvp__check_set(r, KVP_CHECK_UNKNOWN, "name the GPU (--gpu)",
                       "the MLA attention backends depend on the GPU's capability, not known");
    } else {
        kvp__check_set(r, KVP_CHECK_PASS, "", "an attention backend fits head size %u",
                       c->info->is_mla ? c->info->kv_lora_rank + c->info->qk_rope_head_dim
                                       : c->info->head_dim);
    }
}

/* ------------------------------------------------------------------ model */

static void mod_2(kvp__startup_ctx *c, kvp_check_row *r) {
    char msg[400];
    snprintf(msg, sizeof msg,
             "Loading %s requires you to execute the configuration file in that repo on your "
             "local machine. Make sure you have read the code there to avoid malicious use, then "
             "set the option `trust_remote_code=True` to remove this error.",
             kvp_model_name(c->model));
    kvp__startup_remote_code(c, r, msg);
}

/* --------------------------------------------------------------- features */

static void feat_2(kvp__startup_ctx *c, kvp_check_row *r) {
    if (!c->info->is_hybrid_recurrent || c->s->enable_prefix_caching != 1) {
        kvp__check_set(r, KVP_CHECK_PASS, "", "%s", c->info->is_hybrid_recurrent
                                                        ? "prefix caching not asked for"
                                                        : "not a hybrid attention/recurrent model");
    } else if (c->version >= V(0, 10, 0) && c->version < V(0, 12, 0)) {
        kvp__check_set(r, KVP_CHECK_ADJUST, "",
                       "prefix caching is not supported for hybrid models in this version: "
                       "disabled");
    } else {
        kvp__check_set(r, KVP_CHECK_PASS, "", "prefix caching on a hybrid model (mamba_cache_mode %s)",
                       c->s->policy.mamba_cache_mode[0] ? c->s->policy.mamba_cache_mode : "align");
    }
}

static void feat_3(kvp__startup_ctx *c, kvp_check_row *r) {
    if (!c->s->speculative_method[0] && !c->s->num_speculative_tokens) {
        kvp__check_set(r, KVP_CHECK_PASS, "", "no speculative decoding");
    } else {
        kvp__check_set(r, KVP_CHECK_UNKNOWN, "",
                       "speculative decoding (%s) is not checked: vLLM's draft-model validation "
                       "(vllm/config/speculative.py) was not read",
                       c->s->speculative_method[0] ? c->s->speculative_method : "tokens");
    }
}

/* ------------------------------------------------------------------ table */

const kvp__startup_rule kvp__startup_vllm[] = {
    /* argument / config validation */
    {"V-LEN-1", ">=0.5.4 (env override); earlier: always refused", "read @0052a5b", "max_model_len",
     "max_model_len > derived maximum (and > model_max_length) without VLLM_ALLOW_LONG_MAX_MODEL_LEN",
     "--max-model-len <= derived, or VLLM_ALLOW_LONG_MAX_MODEL_LEN=1", false, len_1, NULL},
    {"V-LEN-2", "V1 (chunked prefill on by default since Dec 2024)", "read @01230b4",
     "max_num_batched_tokens", "chunked prefill off and max_num_batched_tokens < max_model_len",
     "raise --max-num-batched-tokens or keep chunked prefill on", false, len_2, NULL},
    {"V-LEN-3", "all", "read @01230b4", "max_num_batched_tokens",
     "max_num_batched_tokens < max_num_seqs", "raise --max-num-batched-tokens", false, len_3, NULL},
    {"V-PAR-1", "all since 2023", "read @0052a5b", "tp", "num_attention_heads % TP != 0",
     "a TP size that divides the heads", false, par_1, NULL},
    {"V-PAR-5", "all", "read @0052a5b", "pp", "PP > 1 and the architecture lacks SupportsPP", "",
     false, NULL, "needs the per-version list of architectures implementing SupportsPP"},
    {"V-PAR-6", "all", "read @0052a5b", "enable_expert_parallel",
     "expert parallelism on a model without experts", "drop --enable-expert-parallel", false, par_6,
     NULL},
    {"V-PAR-7", "all", "read @0052a5b", "decode_context_parallel_size",
     "DCP > 1 on a non-MLA model: TP > KV heads, DCP <= TP / KV heads", "", false, NULL,
     "kvplan takes no --decode-context-parallel-size setting"},
    {"V-DT-2", "all", "read @0052a5b", "dtype", "float16 for gemma2/gemma3/plamo2/glm4",
     "--dtype bfloat16 or float32", false, dt_2, NULL},
    {"V-DT-1", "explicit bf16: all; auto falls back to fp16 by 0.11.0 (refused up to 0.6.3)",
     "read @002db49, @0052a5b", "dtype", "bfloat16 on compute capability < 8.0",
     "--dtype float16", false, dt_1, NULL},
    {"V-DT-3", "minimums vary by version", "read @000fc94, @0071b24", "quantization",
     "capability < the method's get_min_capability()", "a newer GPU", false, dt_3, NULL},
    {"V-DT-4", "all", "read @0052a5b, @000fc94", "quantization",
     "--quantization differs from the checkpoint's; unknown method; dtype not supported by the method",
     "match the checkpoint", false, dt_4, NULL},
    {"V-MOD-1", "per version", "read @0052a5b", "model",
     "architectures[0] not in the model registry", "", false, NULL,
     "needs the per-version model registry; a broken install prints the same message"},
    {"V-MOD-2", "all (registry per release)", "thread; read @0036026", "trust_remote_code",
     "auto_map custom code without --trust-remote-code, model_type neither Transformers' nor in "
     "vLLM's _CONFIG_REGISTRY at this release",
     "--trust-remote-code", false, mod_2, NULL},
    {"V-LEN-4", "FA block multiple of 16 (mid-2025); MLA sizes forced", "read @e379cf3, @002db49",
     "block_size", "block size not a multiple of 16; MLA block forced", "--block-size 16",
     false, len_4, NULL},
    {"V-FEAT-1", "version-dependent", "uncertain", "async_scheduling",
     "async scheduling with speculative decoding or PP", "", true, NULL,
     "uncertain whether each version refuses or silently disables it"},
    {"V-FEAT-2", "0.10-0.11 disable; 2026 align mode", "knowledge", "enable_prefix_caching",
     "prefix caching on a hybrid model", "", true, feat_2, NULL},
    {"V-FEAT-3", "all", "uncertain", "speculative", "draft-model constraints", "", true, feat_3, NULL},
    /* worker start */
    {"V-PAR-8", "V1", "read @35d5cda", "gpu_count", "TP x PP x DP > visible devices",
     "--gpus / CUDA_VISIBLE_DEVICES", false, par_8, NULL},
    {"V-DT-0", "2023 builds; later wheels lack kernels below 7.0", "thread", "gpu",
     "compute capability < 7.0", "a newer GPU", false, dt_0, NULL},
    {"V-MEM-1", "V1 (0.8+)", "read @35d5cda", "gpu_memory_utilization",
     "free memory at start-up < utilization x total", "lower --gpu-memory-utilization", false, mem_1,
     NULL},
    {"V-MEM-5", "all", "knowledge", "weights", "weights per rank > utilization x total (torch OOM)",
     "more TP, larger GPU", true, mem_5, NULL},
    /* layer build */
    {"V-PAR-2", "all", "read @0052a5b + knowledge", "tp",
     "KV heads vs TP: replicated when TP is a multiple, else a bare assertion",
     "TP dividing or a multiple of the KV heads", true, par_2, NULL},
    {"V-PAR-3", "all", "thread + knowledge", "tp",
     "padded vocabulary / MLP / expert widths not divisible by TP", "a TP size that divides them",
     false, par_3, NULL},
    {"V-PAR-4", "block-FP8 since early 2025", "read @0071b24", "tp",
     "per-rank shard of a block-FP8 linear not a multiple of weight_block_size",
     "a TP size keeping shards multiples of 128", false, kvp__startup_block_fp8, NULL},
    {"V-DT-5", "2025-2026 backend selection", "read @e379cf3 + thread", "attention_backend",
     "no attention backend fits (MLA on cc 12.x)", "", false, dt_5, NULL},
    /* KV-cache sizing */
    {"V-MEM-2", "V0 and V1", "read @001cabc", "gpu_memory_utilization",
     "available KV memory <= 0", "raise --gpu-memory-utilization", false, mem_2, NULL},
    {"V-LEN-5", "2026 (max_model_len = -1)", "uncertain", "max_model_len",
     "-1: the largest length that fits", "", true, len_5, NULL},
    {"V-MEM-3", "V1", "read @001cabc", "max_model_len",
     "one request of max_model_len tokens needs more KV than available",
     "--max-model-len <= the estimate", false, mem_3, NULL},
    {"V-MEM-4", "V0 (<= 0.10, VLLM_USE_V1=0)", "thread + MEMORY.md 7.3", "max_model_len",
     "max_model_len > GPU blocks x block size (the budget from V0's own profile batch)",
     "--max-model-len <= blocks x block size, or raise --gpu-memory-utilization", false, mem_4,
     NULL},
    {"V-MEM-6", "all (graphs after the KV cache before 0.21)", "MEMORY.md 1.1, 7.5",
     "gpu_memory_utilization", "terms allocated after the KV cache exceed what sizing leaves",
     "lower --gpu-memory-utilization or the capture sizes", false, kvp__startup_headroom, NULL},
};
const size_t kvp__startup_vllm_count = sizeof kvp__startup_vllm / sizeof kvp__startup_vllm[0];
