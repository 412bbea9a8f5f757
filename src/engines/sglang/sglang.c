/*
 * sglang.c — the SGLang policy (ENGINES.md §2): rest memory, cell_size for
 * MHA/GQA, MLA (fp8 NSA rows, fp4 scales) and the DSA indexer, hybrid SWA and
 * Mamba pools, max_total_num_tokens with page alignment, the allocated K/V
 * buffers (including the page of padding rows) and max_running_requests.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy_internal.h"
#include "engine_ops.h"
#include "line_sink.h"
#include "startup_internal.h"

typedef struct sdtype {
    kvp_dtype dtype;
    bool fp4, mxfp8;
    char name[24];
} sdtype;

static kvp_status parse_dtype(const kvp_model *model, const char *text, sdtype *d, kvp_error *err) {
    memset(d, 0, sizeof *d);
    if (kvp__policy_kv_dtype_auto(model, text, &d->dtype, d->name, sizeof d->name)) return KVP_OK;
    if (kvp__strcasecmp(text, "fp4_e2m1") == 0 || kvp__strcasecmp(text, "fp4") == 0 ||
        kvp__strcasecmp(text, "nvfp4") == 0) {
        d->dtype = KVP_DTYPE_NVFP4;
        d->fp4 = true;
        return KVP_OK;
    }
    if (kvp__strcasecmp(text, "mxfp8") == 0) {
        d->dtype = KVP_DTYPE_FP8;
        d->mxfp8 = true;
        return KVP_OK;
    }
    if (kvp_dtype_parse(text, &d->dtype) != KVP_OK || d->dtype == KVP_DTYPE_AUTO ||
        kvp__strcasecmp(text, "fp8_ds_mla") == 0 || d->dtype == KVP_DTYPE_NVFP4)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "kv_dtype",
                         "SGLang has no KV cache dtype '%s' (expected auto, bf16, fp16, fp8_e4m3, "
                         "fp8_e5m2, fp4_e2m1, mxfp8)",
                         text);
    return KVP_OK;
}

static uint64_t elem_size(const sdtype *d) {
    switch (d->dtype) {
    case KVP_DTYPE_FP32: return 4;
    case KVP_DTYPE_FP16:
    case KVP_DTYPE_BF16: return 2;
    default: return 1; /* fp8, int8, fp4 stored as uint8 */
    }
}

/* SGLang release lines of the memory defaults (MEMORY.md 7.8; the dating of the
 * copies is [inferred]): the 2024 copies (before 0.4.2), the 2025 H1 copies
 * (0.4.2-0.5.3) and PR #10975's reserve formula (0.5.4 on, and the latest). */
#define SG_2025 402u
#define SG_RESERVE 504u

uint32_t kvp__sglang_release(const char *engine_version) {
    uint32_t v = 0;
    return engine_version && kvp__policy_version(engine_version, &v) ? v : 0;
}

void kvp__sglang_memory_tier(uint64_t gpu_bytes, uint32_t tp, uint32_t version,
                             uint32_t *chunked_prefill_size, uint32_t *cuda_graph_max_bs) {
    double mb = (double)gpu_bytes / 1048576.0;
    uint32_t chunk, graph_bs;
    if (version && version < SG_RESERVE) {
        /* 2025 H1 server_args.py: one threshold at 25,000 MB (7.8). */
        chunk = mb < 25000 ? 2048 : 8192;
        graph_bs = mb < 25000 ? 8 : 160;
    } else if (mb < 20 * 1024) { chunk = 2048; graph_bs = 8; }
    else if (mb < 35 * 1024) { chunk = 2048; graph_bs = tp < 4 ? 24 : 80; }
    else if (mb < 60 * 1024) { chunk = 4096; graph_bs = tp < 4 ? 32 : 160; }
    else if (mb < 90 * 1024) { chunk = 8192; graph_bs = tp < 4 ? 256 : 512; }
    else if (mb < 160 * 1024) { chunk = 8192; graph_bs = tp < 4 ? 256 : 512; }
    else { chunk = 16384; graph_bs = 512; }
    *chunked_prefill_size = chunk;
    *cuda_graph_max_bs = graph_bs;
}

/* The reserve a speculative draft adds, in MB (server_args.py
 * _handle_gpu_memory_settings, PR #10975 on; MEMORY.md §7, ENGINES.md §2.1):
 * a STANDALONE draft model and its graphs 6 GB, NGRAM none (no draft model),
 * any other algorithm (EAGLE, EAGLE3, NEXTN / MTP) 2 GB. SGLang upper-cases the
 * name (SpeculativeAlgorithm.from_string); vLLM's "draft_model" is SGLang's
 * STANDALONE. Draft layers without an algorithm are an EAGLE/MTP drafter. */
static double draft_reserve_mb(const kvp_policy_settings *s) {
    const char *a = s->speculative_algorithm;
    if (!a[0]) return s->num_draft_layers ? 2 * 1024 : 0;
    if (!kvp__strcasecmp(a, "standalone") || !kvp__strcasecmp(a, "draft_model") ||
        !kvp__strcasecmp(a, "draft"))
        return 6 * 1024;
    if (!kvp__strcasecmp(a, "ngram")) return 0;
    return 2 * 1024;
}

double kvp_sglang_default_mfs(uint64_t gpu_bytes, const kvp_policy_settings *s) {
    uint32_t version = kvp__sglang_release(s->engine_version);
    uint32_t tp = s->tp ? s->tp : 1, pp = s->pp ? s->pp : 1;
    if (version && version < SG_RESERVE) {
        /* Fixed values by TP size: TP >= 16 / 8 / 4 / 2 / 1 -> 0.79 / 0.83 (2025 H1:
         * 0.81) / 0.85 / 0.87 / 0.88 (7.8). */
        if (tp >= 16) return 0.79;
        if (tp >= 8) return version < SG_2025 ? 0.83 : 0.81;
        if (tp >= 4) return 0.85;
        if (tp >= 2) return 0.87;
        return 0.88;
    }
    /* PR #10975: round((gpu - reserve) / gpu, 3), reserve in MB. */
    double mb = (double)gpu_bytes / 1048576.0;
    uint32_t chunk_u, graph_u;
    kvp__sglang_memory_tier(gpu_bytes, tp, version, &chunk_u, &graph_u);
    /* --chunked-prefill-size (or --max-num-batched-tokens, the same setting under
     * SGLang) replaces the tier's (-1, no chunking: max(-1, 2048) below). */
    double chunk = s->chunked_prefill_size     ? (double)s->chunked_prefill_size
                   : s->max_num_batched_tokens ? (double)s->max_num_batched_tokens
                                               : chunk_u;
    double graph_bs = graph_u;
    double reserve = 512 + (chunk > 2048 ? chunk : 2048) * 1.5 + graph_bs * 2 +
                     (double)tp * (double)pp / 8.0 * 1024;
    if (s->enable_dp_attention) {
        reserve += graph_bs * s->dp * 3;
        if (graph_bs > 300) reserve += graph_bs * s->dp * 1.5;
    }
    if (mb > 60 * 1024 && reserve < 10 * 1024) reserve = 10 * 1024;
    reserve += draft_reserve_mb(s);
    return round((mb - reserve) / mb * 1000.0) / 1000.0;
}

kvp_status kvp__policy_sglang(const kvp_model *model, const kvp_policy_settings *s,
                              kvp_policy_result *out, kvp_error *err) {
    const kvp_model_info *info = kvp_model_get_info(model);
    sdtype d;
    kvp_status st = parse_dtype(model, s->kv_dtype, &d, err);
    if (st) return st;
    out->kv_dtype = d.dtype;
    kvp__strlcpy(out->kv_dtype_name, d.name, sizeof out->kv_dtype_name);
    /* PR #11309 (2025-10-07) added the DSA indexer to cell_size; releases up to 0.5.3
     * and earlier dates allocate it without counting it. */
    const char *ver = s->engine_version;
    uint32_t version = 0;
    bool pre_11309 = kvp__policy_contains(ver, "pre-11309") ||
                     kvp__policy_contains(ver, "pre 11309") || kvp__policy_contains(ver, "pre-pr");
    if (!pre_11309 && !kvp__policy_contains(ver, "11309")) {
        if (kvp__policy_version(ver, &version) && version < 504) pre_11309 = true;
        for (const char *p = ver; *p && !pre_11309; p++)
            if (p[0] == '2' && p[1] == '0' && strlen(p) >= 10 && p[4] == '-' && p[7] == '-') {
                int y = atoi(p), mo = atoi(p + 5), day = atoi(p + 8);
                if (y > 1999 && (y * 10000 + mo * 100 + day) < 20251007) pre_11309 = true;
                break;
            }
    }
    /* A year alone: the line in force at its end (versions.c's table). */
    kvp_engine_release rel;
    if (!pre_11309 && kvp_engine_release_resolve(KVP_ENGINE_SGLANG, ver, &rel, NULL) == KVP_OK &&
        rel.year && !strcmp(rel.line, "pre-11309"))
        pre_11309 = true;
    bool pre_18039 = kvp__policy_contains(s->engine_version, "pre-18039");
    kvp__strlcpy(out->era, pre_11309 ? "pre-11309" : "post-11309", sizeof out->era);

    uint32_t attn_tp = s->tp;
    if (s->enable_dp_attention) {
        if (s->dp == 0 || s->tp % s->dp != 0)
            return kvp__fail(err, KVP_INVALID_ARG, NULL, "dp",
                             "--enable-dp-attention needs dp (%u) to divide tp (%u)", s->dp, s->tp);
        attn_tp = s->tp / s->dp;
    }
    uint64_t ctx = s->max_model_len ? s->max_model_len : info->max_position_embeddings;
    out->max_model_len = ctx;

    kvp__policy_layers L;
    st = kvp__policy_layers_load(model, s->num_draft_layers, s->alc, &L, err);
    if (st) return st;
    uint32_t total_layers = L.num_layers + s->num_draft_layers;
    if (s->pp > total_layers) {
        kvp__policy_layers_free(&L);
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "pp",
                         "pipeline parallelism %u is larger than the %u layers", s->pp, total_layers);
    }
    /* The busiest PP stage decides (each stage prints its own pool). */
    uint32_t lb = 0, le = total_layers;
    if (s->pp > 1) {
        uint32_t best = 0;
        for (uint32_t stage = 0; stage < s->pp; stage++) {
            uint32_t b, e;
            kvp__policy_pp_range(total_layers, s->pp, stage, &b, &e);
            if (e - b > best) {
                best = e - b;
                lb = b;
                le = e;
            }
        }
    }

    bool nsa = false;
    for (size_t i = 0; i < L.count; i++)
        if (L.items[i].kind == KVP_CACHE_INDEXER && L.items[i].dtype == KVP_DTYPE_FP8) nsa = true;
    /* page_size: the user's, else 1; the NSA backend of DeepSeek V3.2 runs 64-token
     * pages ([inferred] §2.5: the PR #11309 token counts are multiples of 64). */
    uint32_t page = s->block_size ? s->block_size : nsa ? 64u : 1u;
    /* --attention-backend: the MLA kernels that run fixed pages set page_size
     * themselves, whatever --page-size says (server_args.py,
     * ServerArgs._handle_attention_backend_compatibility, 2025-2026 [knowledge]):
     * flashmla 64, cutlass_mla 128, trtllm_mla 32 or 64 (else 64), trtllm_mha 16, 32
     * or 64 (else 64). */
    const char *ab = s->attention_backend;
    uint32_t forced = 0;
    if (!kvp__strcasecmp(ab, "flashmla")) forced = 64;
    else if (!kvp__strcasecmp(ab, "cutlass_mla")) forced = 128;
    else if (!kvp__strcasecmp(ab, "trtllm_mla")) forced = page == 32 || page == 64 ? page : 64;
    else if (!kvp__strcasecmp(ab, "trtllm_mha"))
        forced = page == 16 || page == 32 || page == 64 ? page : 64;
    if (forced && forced != page) {
        kvp__policy_note(out, "--attention-backend %s runs page_size %u (the engine sets it)", ab,
                         forced);
        page = forced;
    }
    out->block_size = page;
    if (!s->block_size && nsa && !forced)
        kvp__policy_note(out, "[inferred] NSA model: page_size 64 assumed; pass --page-size to override");

    /* Per-token bytes: full-type layers (F, with K and V split), SWA layers (S), Mamba state. */
    uint64_t full_k = 0, full_v = 0, swa_k = 0, swa_v = 0, mla_row = 0, state = 0;
    /* Drafter layers (appended after the model's layers) fold into cell_size but
     * their buffers belong to the draft pool, which prints its own line (§2.3). */
    uint64_t draft_k = 0, draft_v = 0, draft_row = 0;
    uint32_t n_full = 0, n_swa = 0, n_mamba = 0;
    uint64_t es = elem_size(&d);
    /* The SWA pool pair exists for models mixing sliding and full layers (Gemma 2/3,
     * gpt-oss, MiMo); a model whose every layer slides (Mistral v0.1, Phi-3 configs)
     * runs one ordinary pool in SGLang. */
    bool any_full = false, any_swa = false;
    for (size_t i = 0; i < L.count; i++) {
        if (L.items[i].layer < lb || L.items[i].layer >= le) continue;
        if (L.items[i].kind == KVP_CACHE_SLIDING) any_swa = true;
        else if (L.items[i].kind == KVP_CACHE_FULL || L.items[i].kind == KVP_CACHE_CHUNKED ||
                 L.items[i].kind == KVP_CACHE_MLA)
            any_full = true;
    }
    bool hybrid_swa = any_full && any_swa && !pre_18039;
    for (size_t i = 0; i < L.count && !st; i++) {
        const kvp_layer_cache *c = &L.items[i];
        if (c->layer < lb || c->layer >= le) continue;
        switch (c->kind) {
        case KVP_CACHE_FULL:
        case KVP_CACHE_SLIDING:
        case KVP_CACHE_CHUNKED: {
            uint64_t h = c->kv_heads / attn_tp ? c->kv_heads / attn_tp : 1;
            uint64_t k = h * c->k_head_dim * es, v = h * c->v_head_dim * es;
            if (d.fp4) { /* half a byte per value plus one scale byte per 16 */
                k = h * c->k_head_dim / 2 + h * c->k_head_dim / 16;
                v = h * c->v_head_dim / 2 + h * c->v_head_dim / 16;
            } else if (d.mxfp8) {
                k += k / 32;
                v += v / 32;
            }
            if (c->kind == KVP_CACHE_SLIDING && hybrid_swa) {
                swa_k += k;
                swa_v += v;
                n_swa++;
            } else {
                full_k += k;
                full_v += v;
                if (c->layer >= L.num_layers) {
                    draft_k += k;
                    draft_v += v;
                }
                n_full++;
            }
            break;
        }
        case KVP_CACHE_MLA: {
            uint64_t row;
            uint64_t lora = info->kv_lora_rank ? info->kv_lora_rank : c->k_head_dim - 64;
            uint64_t rope = c->k_head_dim > lora ? c->k_head_dim - lora : 64;
            if (nsa && d.dtype == KVP_DTYPE_FP8 && !d.mxfp8)
                row = lora + lora / 128 * 4 + rope * 2; /* 656: fp8 latent, scales, bf16 rope */
            else if (d.fp4)
                row = c->k_head_dim / 2 + c->k_head_dim / 16 * 1;
            else
                row = (uint64_t)c->k_head_dim * es;
            mla_row += row;
            if (c->layer >= L.num_layers) draft_row += row;
            n_full++;
            break;
        }
        case KVP_CACHE_INDEXER:
            if (c->dtype != KVP_DTYPE_FP8 && c->dtype != KVP_DTYPE_AUTO) {
                /* MiniMax-M3 index keys: bf16, one head; they live beside the full
                 * KV (K side) rather than in an NSA pool. */
                uint64_t ib = 0;
                if (kvp_dtype_bytes(c->dtype, c->k_head_dim, &ib) != KVP_OK ||
                    !kvp__add_u64(full_k, ib, &full_k))
                    st = kvp__fail(err, KVP_OVERFLOW, kvp_model_name(model), NULL,
                                   "layer %u: index key bytes overflow", c->layer);
                break;
            }
            if (!pre_11309) mla_row += (uint64_t)c->k_head_dim + (uint64_t)c->k_head_dim / 128 * 4;
            break;
        case KVP_CACHE_RECURRENT: {
            const kvp_recurrent_geometry *r = &c->recurrent;
            if (r->heads % s->tp) {
                st = kvp__fail(err, KVP_CONFIG, kvp_model_name(model), "recurrent heads",
                               "layer %u: %u heads do not divide over TP %u", c->layer, r->heads,
                               s->tp);
                break;
            }
            uint64_t h = r->heads / s->tp;
            uint64_t g = r->groups ? (r->groups % s->tp == 0 ? r->groups / s->tp : 1) : 0;
            uint64_t inner, grp, width, conv, ssm, cb = 0;
            kvp_dtype mdt = kvp__policy_runtime_dtype(model);
            /* --mamba-ssm-dtype, default float32 (ENGINES.md 2.6); the conv state is
             * the model dtype (SGLang has no option for it). */
            kvp_dtype sd = s->mamba_ssm_cache_dtype != KVP_DTYPE_AUTO ? s->mamba_ssm_cache_dtype
                                                                      : KVP_DTYPE_FP32;
            if (!kvp__mul_u64(h, r->head_dim, &inner) ||
                !kvp__mul_many_u64(&grp, 3, (uint64_t)2, g, (uint64_t)r->group_dim) ||
                !kvp__add_u64(inner, grp, &width) ||
                !kvp__mul_u64(width, r->conv_kernel ? r->conv_kernel - 1u : 0u, &conv) ||
                kvp_dtype_bytes(mdt, conv, &cb) != KVP_OK ||
                !kvp__mul_u64(inner, (uint64_t)r->state_dim, &ssm) ||
                kvp_dtype_bytes(sd, ssm, &ssm) != KVP_OK ||
                !kvp__add_u64(state, cb, &state) || !kvp__add_u64(state, ssm, &state)) {
                st = kvp__fail(err, KVP_OVERFLOW, kvp_model_name(model), NULL,
                               "layer %u: state bytes overflow", c->layer);
                break;
            }
            n_mamba++;
            break;
        }
        default:
            st = kvp__fail(err, KVP_UNSUPPORTED, kvp_model_name(model), NULL,
                           "layer %u: no SGLang rule for %s caches", c->layer,
                           kvp_cache_kind_name(c->kind));
        }
    }
    kvp__policy_layers_free(&L);
    if (st) return st;

    /* Budget: rest memory after the weights (§2.2). */
    double rest_d;
    if (s->kv_budget_bytes) {
        rest_d = (double)s->kv_budget_bytes;
        kvp__strlcpy(out->budget_formula, "--kv-budget (rest memory)", sizeof out->budget_formula);
    } else if (s->total_memory_bytes) {
        double mfs = s->mem_fraction_static > 0 ? s->mem_fraction_static
                                                : kvp_sglang_default_mfs(s->total_memory_bytes, s);
        out->mem_fraction_static = mfs;
        /* X is free memory before the weights load: after the CUDA context, NCCL init
         * and custom all-reduce exist (MEMORY.md 3.2), the non-torch term here. */
        uint64_t pre = s->non_torch_bytes < s->total_memory_bytes ? s->non_torch_bytes : 0;
        double X = (double)(s->total_memory_bytes - pre) / 1073741824.0;
        double Y = X - (double)s->weights_bytes / 1073741824.0;
        rest_d = (Y - X * (1.0 - mfs)) * 1073741824.0;
        snprintf(out->budget_formula, sizeof out->budget_formula,
                 "avail_after_load - avail_before_load * (1 - %.3f)", mfs);
        /* The engine's own words are S-MEM-1's (startup_sglang.c); this says why. */
        if (rest_d <= 0)
            return kvp__fail(err, KVP_INFEASIBLE, NULL, "mem_fraction_static",
                             "rest memory %.2f GiB <= 0: the weights (%.2f GiB) exceed "
                             "mem_fraction_static %.3f x %.2f GiB free before they load (%.2f GiB)",
                             rest_d / 1073741824.0, (double)s->weights_bytes / 1073741824.0, mfs,
                             X, mfs * X);
    } else {
        return kvp__fail(err, KVP_INFEASIBLE, NULL, "kv_budget_bytes",
                         "SGLang's pool needs --kv-budget (rest memory), or --gpu/--gpu-mem with "
                         "--weights");
    }
    uint64_t rest = kvp__double_to_u64(rest_d);

    /* Mamba / GDN: the state pool takes ratio/(1+ratio) of rest (§2.6). */
    uint64_t max_mamba = 0;
    if (n_mamba && state) {
        double ratio = 0.9;
        max_mamba = kvp__double_to_u64((double)rest * ratio / (1.0 + ratio)) / state;
        rest -= max_mamba * state;
        out->mamba_cache_size = max_mamba;
    }

    uint64_t cell = full_k + full_v + mla_row;
    out->cell_bytes = cell;
    uint64_t N = 0, swa_n = 0;
    if (n_swa && hybrid_swa) {
        /* full_tokens * F + r * full_tokens * S = rest, r = 0.8 (PR #18039). */
        double r = 0.8;
        double denom = (double)cell + r * (double)(swa_k + swa_v);
        N = denom > 0 ? kvp__double_to_u64((double)rest / denom) : 0;
        N = N / page * page;
        swa_n = kvp__double_to_u64((double)N * r) / page * page;
        out->swa_tokens = swa_n;
    } else if (cell) {
        N = rest / cell / page * page;
    }

    uint64_t rows = N + page, swa_rows = swa_n + page;
    kvp_engine_report *rep = &out->report;
    rep->max_total_num_tokens = N;
    if (mla_row) {
        rep->k_size_bytes = rows * (cell - draft_row);
        rep->v_size_bytes = 0;
    } else {
        rep->k_size_bytes = rows * (full_k - draft_k);
        rep->v_size_bytes = rows * (full_v - draft_v);
    }
    /* Default max_running_requests: the request pool is sized from the token pool
     * (min(max(N / context * 512, 2048), 4096), plus a padding slot) and capped by
     * half the tokens and the Mamba pool. [uncertain] ENGINES.md §2.7 / S1. */
    uint64_t reqs = 0;
    if (s->max_running_requests) {
        /* --max-running-requests: the request pool's size and the cap, divided over the
         * attention-DP ranks (tp_worker.py: max_running_requests // dp_size). */
        reqs = s->max_running_requests;
        if (s->enable_dp_attention && s->dp > 1) reqs /= s->dp;
    } else {
        if (ctx) {
            uint64_t x = kvp__double_to_u64((double)N / (double)ctx * 512.0);
            if (x < 2048) x = 2048;
            if (x > 4096) x = 4096;
            reqs = x + 1;
        }
        if (N / 2 < reqs) reqs = N / 2;
    }
    if (max_mamba && max_mamba / 3 < reqs) reqs = max_mamba / 3;
    rep->max_running_requests = reqs;
    rep->present = KVP_REPORT_MAX_TOTAL_NUM_TOKENS | KVP_REPORT_K_SIZE_BYTES |
                   KVP_REPORT_V_SIZE_BYTES | KVP_REPORT_MAX_RUNNING_REQUESTS;
    out->budget_bytes = s->kv_budget_bytes ? s->kv_budget_bytes : kvp__double_to_u64(rest_d);

    kvp_policy_pool *pl = &out->pools[out->pool_count++];
    kvp__strlcpy(pl->name, mla_row ? "mla" : "full", sizeof pl->name);
    pl->kind = mla_row ? KVP_CACHE_MLA : KVP_CACHE_FULL;
    pl->layers = n_full;
    pl->block_size_tokens = page;
    pl->page_bytes = cell;
    pl->tokens = N;
    pl->k_bytes = rep->k_size_bytes;
    pl->v_bytes = rep->v_size_bytes;
    pl->bytes = rep->k_size_bytes + rep->v_size_bytes;
    /* Pages of page_size rows, the padding page included (§2.5). */
    pl->blocks = rows / page;
    pl->block_bytes = pl->blocks ? pl->bytes / pl->blocks : 0;
    if (n_swa) {
        pl = &out->pools[out->pool_count++];
        kvp__strlcpy(pl->name, "swa", sizeof pl->name);
        pl->kind = KVP_CACHE_SLIDING;
        pl->layers = n_swa;
        pl->block_size_tokens = page;
        pl->page_bytes = swa_k + swa_v;
        pl->tokens = swa_n;
        pl->k_bytes = swa_rows * swa_k;
        pl->v_bytes = swa_rows * swa_v;
        pl->bytes = pl->k_bytes + pl->v_bytes;
        pl->blocks = swa_rows / page;
        pl->block_bytes = pl->blocks ? pl->bytes / pl->blocks : 0;
        kvp__policy_note(out, "Use sliding window memory pool. full_layer_tokens=%llu, "
                              "swa_layer_tokens=%llu",
                         (unsigned long long)N, (unsigned long long)swa_n);
    }
    if (n_mamba) {
        pl = &out->pools[out->pool_count++];
        kvp__strlcpy(pl->name, "mamba", sizeof pl->name);
        pl->kind = KVP_CACHE_RECURRENT;
        pl->layers = n_mamba;
        pl->page_bytes = state;
        pl->tokens = 0;
        pl->bytes = max_mamba * state;
        pl->blocks = max_mamba;
        pl->block_bytes = state;
        kvp__policy_note(out, "Mamba Cache is allocated. max_mamba_cache_size: %llu",
                         (unsigned long long)max_mamba);
    }
    if (nsa && d.dtype != KVP_DTYPE_FP8)
        kvp__policy_note(out, "[uncertain] DeepSeek V3.2 on Blackwell may default to the fp8 NSA "
                              "layout (656 B rows); pass --kv-cache-dtype fp8_e4m3 for it");
    return KVP_OK;
}

/* The lines SGLang prints at start-up for plan `r` (engine_ops.h
 * `startup_lines`): memory_pool.py's "KV Cache is allocated. #tokens: ..." (MLA:
 * one "KV size"), model_runner.py's "max_total_num_tokens=..., max_running_requests=...,
 * context_len=...", and the cell arithmetic behind them. */
static void sglang_startup_lines(const kvp_policy_result *r, const kvp__line_sink *out) {
    const kvp_engine_report *e = &r->report;
    const double gib = 1073741824.0;
    if (e->v_size_bytes == 0 && r->pools[0].kind == KVP_CACHE_MLA)
        kvp__sink_line(out, "KV Cache is allocated. #tokens: %llu, KV size: %.2f GB",
                       (unsigned long long)e->max_total_num_tokens, (double)e->k_size_bytes / gib);
    else
        kvp__sink_line(out, "KV Cache is allocated. #tokens: %llu, K size: %.2f GB, V size: %.2f GB",
                       (unsigned long long)e->max_total_num_tokens, (double)e->k_size_bytes / gib,
                       (double)e->v_size_bytes / gib);
    kvp__sink_line(out, "max_total_num_tokens=%llu, max_running_requests=%llu, context_len=%llu",
                   (unsigned long long)e->max_total_num_tokens,
                   (unsigned long long)e->max_running_requests, (unsigned long long)r->max_model_len);
    kvp__sink_line(out, "(cell_size %llu B, page_size %u, rest memory %.2f GiB)",
                   (unsigned long long)r->cell_bytes, r->block_size, (double)r->budget_bytes / gib);
}

/* The engine's record (engine_ops.h; its row of kvplan/engines.def). */
static const char *const k_aliases[] = {NULL};
static const char *const k_fit_kv_dtypes[] = {"auto", "fp8_e4m3", NULL};
const kvp__engine_ops kvp__engine_sglang = {
    .aliases = k_aliases,
    .len_flag = "--context-length",
    .help = "SGLang: --mem-fraction-static of the total; max_total_num_tokens, "
            "max_running_requests",
    .version_forms = "a release (0.5.3, v0.4.9.post2), a year or date (2025, 2025-10-07), "
                     "or pre-11309, post-11309, pre-18039, latest",
    .newest_release = KVP__REL(0, 5, 0),
    .plan = kvp__policy_sglang,
    .startup_rules = kvp__startup_sglang,
    .startup_rule_count = &kvp__startup_sglang_count,
    .report_fields = KVP_REPORT_MAX_TOTAL_NUM_TOKENS | KVP_REPORT_K_SIZE_BYTES |
                     KVP_REPORT_V_SIZE_BYTES | KVP_REPORT_MAX_RUNNING_REQUESTS,
    .fit_kv_dtypes = k_fit_kv_dtypes,
    .sim_policy = "sglang",
    /* neutral */
    .fit_solves_tp = true,
    .profile = kvp__sglang_profile,
    .headroom = kvp__sglang_headroom,
    .capacity = kvp__sglang_capacity,
    .admission_rule = "SGLang: no reservation; requests are admitted while free tokens cover their "
                      "prompt and a decoding reserve (new_token_ratio), running requests retracted "
                      "when the pool runs out (schedule_policy.py)",
    .batch_cap_name = "max_running_requests",
    .steady_pool = kvp__sglang_steady_pool,
    .details = kvp__sglang_details,
    .startup_lines = sglang_startup_lines,
};
