/*
 * memory_estimate.c — memory facts from first principles when nothing was
 * measured (issue 3, kvplan plan without --peak/--weights/--non-torch).
 *
 * An engine sizes the KV cache from what a profiling run leaves:
 *   weights (read from the checkpoint) + the peak of a dummy forward of
 *   max_num_tokens tokens + memory outside the allocator (CUDA context, NCCL)
 *   (+ CUDA graphs, captured before or after depending on the engine).
 * The weights and one forward's live set are modelled here; the engines'
 * start-up terms (context, workspaces, NCCL, graphs, samplers) are in
 * memory_runtime.c. docs/memory.md states every term and its source.
 */
#include <stdio.h>
#include <string.h>

#include "kvplan/cost.h"
#include "kvplan/safetensors.h"
#include "memory_internal.h"
#include "model_internal.h"

#define EST_DEFAULT_TOKENS 8192u
#define EST_DEFAULT_BATCH 2048u
/* Activations are bf16/fp16 even for fp8/fp4 weights. */
#define ACT_BYTES 2u
/* Chunk lengths of the chunked linear-attention scans (fla GDN, Mamba2 SSD). */
#define GDN_CHUNK 64u
#define MAMBA2_CHUNK 256u

typedef struct mulc {
    bool overflow;
} mulc;

/* The product of n factors, each converted to uint64_t by the array literal
 * (a variadic uint64_t read of an int literal was undefined: fuzz_weights). */
static uint64_t mul_factors(mulc *c, const uint64_t *f, size_t n) {
    uint64_t acc = 0;
    if (!kvp__mul_array_u64(&acc, f, n)) c->overflow = true;
    return acc;
}
#define m(c, n, ...)                                                                        \
    (KVP__CHECK_FACTOR_COUNT(n, __VA_ARGS__),                                               \
     mul_factors((c), (const uint64_t[]){__VA_ARGS__}, KVP__FACTOR_COUNT(__VA_ARGS__)))
static uint64_t add(mulc *c, uint64_t a, uint64_t b) {
    uint64_t r;
    if (!kvp__add_u64(a, b, &r)) c->overflow = true;
    return r;
}
static uint64_t cdiv(uint64_t a, uint64_t b) { return kvp__ceil_div_u64(a, b ? b : 1); }
static uint64_t max2(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* Largest live set inside one decoder layer for a forward of T tokens on one
 * rank, beyond the residual stream; *phase names the part that set it. */
static uint64_t layer_peak(const kvp__arch *a, const kvp__layer_arch *L, uint64_t T, uint64_t t,
                           mulc *c, const char **phase) {
    const uint64_t e = ACT_BYTES, h = a->hidden;
    uint64_t best = 0;
    const char *name = "none";
#define CONSIDER(v, nm)                                                                        \
    do {                                                                                       \
        uint64_t v_ = (v);                                                                     \
        if (v_ > best) {                                                                       \
            best = v_;                                                                         \
            name = (nm);                                                                       \
        }                                                                                      \
    } while (0)
    uint64_t out = m(c, 3, T, h, e); /* a projection back to the hidden size */
    /* Attention over attention_ranks where the engine splits it apart (DP
     * attention: each rank runs every head on its own tokens). */
    uint64_t ta = a->attention_ranks ? a->attention_ranks : t;
    if (L->attention) {
        uint64_t hq = cdiv(L->q_heads, ta), hkv = cdiv(L->kv_heads, ta);
        uint64_t qkv = m(c, 3, T, add(c, m(c, 3, hq, (uint64_t)L->k_head_dim,
                                            a->attn_output_gate ? 2ull : 1ull),
                                       m(c, 2, hkv, (uint64_t)L->k_head_dim + L->v_head_dim)),
                         e);
        uint64_t o = m(c, 4, T, hq, (uint64_t)L->v_head_dim, e);
        CONSIDER(add(c, add(c, qkv, o), out), "attention");
    }
    if (L->mla) {
        uint64_t hq = cdiv(L->q_heads, ta), qk = (uint64_t)a->qk_nope + a->qk_rope;
        uint64_t per_tok = (uint64_t)a->q_lora + hq * qk + a->kv_lora + a->qk_rope +
                           hq * ((uint64_t)a->qk_nope + a->v_head) + hq * qk + hq * a->v_head;
        CONSIDER(add(c, m(c, 3, T, per_tok, e), out), "mla attention");
    }
    const kvp_recurrent_geometry *r = &L->rec;
    if (L->mixer == KVP__MIX_GDN) {
        uint64_t kd = (uint64_t)r->groups * r->group_dim, vd = (uint64_t)r->heads * r->head_dim;
        uint64_t proj = m(c, 3, T, cdiv(2 * kd + 2 * vd + 2ull * r->heads, t), e);
        uint64_t conv = m(c, 3, T, cdiv(2 * kd + vd, t), e);
        uint64_t core = m(c, 4, T, cdiv(vd, t), e, 2);
        uint64_t states = m(c, 5, cdiv(T, GDN_CHUNK), cdiv(r->heads, t), (uint64_t)r->state_dim,
                            (uint64_t)r->head_dim, 4);
        CONSIDER(add(c, add(c, proj, conv), add(c, core, states)), "gated delta net");
    } else if (L->mixer == KVP__MIX_MAMBA2) {
        uint64_t din = (uint64_t)r->heads * r->head_dim, gn = (uint64_t)r->groups * r->group_dim;
        uint64_t proj = m(c, 3, T, cdiv(2 * din + 2 * gn + r->heads, t), e);
        uint64_t conv = m(c, 3, T, cdiv(din + 2 * gn, t), e);
        uint64_t y = m(c, 4, T, cdiv(din, t), e, 2);
        uint64_t states = m(c, 5, cdiv(T, MAMBA2_CHUNK), cdiv(r->heads, t), (uint64_t)r->head_dim,
                            (uint64_t)r->state_dim, 4);
        CONSIDER(add(c, add(c, proj, conv), add(c, y, states)), "mamba2");
    } else if (L->mixer == KVP__MIX_MAMBA1) {
        uint64_t din = r->heads;
        uint64_t v = m(c, 3, T, add(c, cdiv(5 * din, t), (uint64_t)a->dt_rank + 2ull * r->state_dim),
                       e);
        CONSIDER(v, "mamba");
    }
    if (L->ffn & KVP__FFN_DENSE) {
        uint64_t ir = cdiv(L->dense_inter, t);
        uint64_t up = m(c, 4, T, ir, a->gated_mlp ? 2ull : 1ull, e), act = m(c, 3, T, ir, e);
        CONSIDER(max2(add(c, up, act), add(c, act, out)), "mlp");
    }
    if (L->ffn & KVP__FFN_MOE) {
        /* fused-MoE scratch: gate/up output and the final per-expert output
         * share one buffer (T * k * max(2 I, h)), the activation another
         * (T * k * I); routing logits in fp32. */
        uint64_t ir = cdiv(a->expert_inter, t), k = a->topk ? a->topk : 1;
        uint64_t c13 = m(c, 4, T, k, max2((a->gated_experts ? 2 : 1) * ir, h), e);
        uint64_t c2 = m(c, 4, T, k, ir, e);
        uint64_t route = add(c, m(c, 3, T, (uint64_t)a->experts, 4), m(c, 3, T, k, 8));
        uint64_t v = add(c, add(c, c13, c2), add(c, route, out));
        if (a->shared_inter) {
            uint64_t sr = cdiv(a->shared_inter, t);
            v = max2(v, add(c, m(c, 4, T, sr, a->gated_mlp ? 3ull : 2ull, e), out));
        }
        CONSIDER(v, "moe");
    }
#undef CONSIDER
    *phase = name;
    return best;
}

uint64_t kvp__forward_peak(const kvp__arch *a, uint64_t T, uint32_t tp, uint32_t begin,
                           uint32_t end, bool *overflow, const char **phase) {
    mulc c = {false};
    uint64_t best = 0;
    *phase = "none";
    uint64_t resid = m(&c, 4, T, a->hidden, (uint64_t)ACT_BYTES, 2ull); /* residual + normed input */
    for (uint32_t l = begin; l < end && l < a->layers; l++) {
        /* The peak is a maximum: a layer like the one before adds nothing. */
        if (l > begin && kvp__layer_arch_same(&a->layer[l - 1], &a->layer[l])) continue;
        const char *ph = "none";
        uint64_t v = layer_peak(a, &a->layer[l], T, tp, &c, &ph);
        if (v > best) {
            best = v;
            *phase = ph;
        }
    }
    best = add(&c, best, resid);
    if (c.overflow) *overflow = true;
    return best;
}

/* Parameters and bytes of one stage on one rank: at the category rates, or
 * tensor by tensor for a llama.cpp file type. */
static kvp_status stage_bytes(const kvp__arch *a, uint32_t tp, uint32_t b, uint32_t e, bool first,
                              bool last, uint64_t p[KVP__W_COUNT], uint64_t repl[KVP__W_COUNT],
                              uint64_t *bytes, kvp_error *err) {
    kvp_status st = kvp__arch_params(a, tp, b, e, first, last, p, repl, err);
    if (st != KVP_OK) return st;
    if (a->gguf_ftype >= 0) return kvp__gguf_bytes(a, tp, b, e, first, last, bytes, err);
    return kvp__arch_bytes(a, p, bytes, err);
}

/* Weights of the busiest stage at tp; also the whole-model figures. */
static kvp_status weights(const kvp__arch *a, uint32_t tp, uint32_t pp, uint64_t *rank_bytes,
                          uint64_t *repl_bytes, uint32_t *busy_begin, uint32_t *busy_end,
                          kvp_error *err) {
    *rank_bytes = 0;
    *repl_bytes = 0;
    for (uint32_t s = 0; s < pp; s++) {
        uint32_t b, e;
        kvp_pp_stage_layers(a->layers, pp, s, &b, &e);
        uint64_t p[KVP__W_COUNT], repl[KVP__W_COUNT], bytes = 0;
        kvp_status st = stage_bytes(a, tp, b, e, s == 0, s == pp - 1, p, repl, &bytes, err);
        if (st != KVP_OK) return st;
        if (bytes > *rank_bytes) {
            *rank_bytes = bytes;
            /* The replicated parts (norms, routers, MLA down-projections) at
             * their own term's rate: an fp8 checkpoint's kv_a is fp8, not 16
             * bits (at 16 bits they outgrew the rank: fuzz_weights). */
            st = kvp__arch_bytes(a, repl, repl_bytes, err);
            if (st != KVP_OK) return st;
            *busy_begin = b;
            *busy_end = e;
        }
    }
    return KVP_OK;
}

static kvp_status fill_detail_params(const kvp__arch *a, kvp_estimate_detail *d,
                                     const uint64_t p[KVP__W_COUNT], kvp_error *err) {
    d->params_embedding = p[KVP__W_EMBEDDING];
    d->params_lm_head = p[KVP__W_LM_HEAD];
    d->params_attention = p[KVP__W_ATTENTION];
    d->params_mlp = p[KVP__W_MLP];
    d->params_experts = p[KVP__W_EXPERTS];
    d->params_shared_experts = p[KVP__W_SHARED];
    d->params_router = p[KVP__W_ROUTER];
    d->params_mixer = p[KVP__W_MIXER];
    d->params_norm = p[KVP__W_NORM];
    d->params_vision = p[KVP__W_VISION];
    d->params_encoder = p[KVP__W_ENCODER];
    d->buffer_elems = p[KVP__W_BUFFER];
    uint64_t sum = 0;
    for (int k = 0; k < KVP__W_COUNT; k++)
        if (k != KVP__W_BUFFER && !kvp__add_u64(sum, p[k], &sum))
            return kvp__fail(err, KVP_OVERFLOW, a->source, "/hidden_size",
                             "parameter count overflows 64 bits");
    d->params_total = sum;
    return KVP_OK;
}

/* Parameters of the MTP layers a checkpoint ships next to the decoder (not
 * loaded unless MTP decoding is on): each one decoder layer like the last,
 * plus its h x 2h projection and two norms. */
static kvp_status mtp_bytes(const kvp__arch *a, uint64_t *params, uint64_t *bytes,
                            kvp_error *err) {
    *params = 0;
    *bytes = 0;
    if (!a->mtp_layers || !a->layers) return KVP_OK;
    uint64_t p[KVP__W_COUNT];
    kvp_status st = kvp__arch_params(a, 1, a->layers - 1, a->layers, false, false, p, NULL, err);
    if (st != KVP_OK) return st;
    p[KVP__W_BUFFER] = 0;
    uint64_t proj = 0, emb = 0;
    bool ok = kvp__mul3_u64(2, a->hidden, a->hidden, &proj) &&
              kvp__add_u64(p[KVP__W_ATTENTION], proj, &p[KVP__W_ATTENTION]) &&
              kvp__add_u64(p[KVP__W_NORM], 2 * (uint64_t)a->hidden, &p[KVP__W_NORM]);
    /* DeepSeek-style checkpoints store a copy of the embedding and the head
     * with every MTP layer. */
    if (ok && (!strncmp(a->model_type, "deepseek", 8) || !strncmp(a->model_type, "kimi", 4) ||
               !strncmp(a->model_type, "glm", 3)))
        ok = kvp__mul_u64(a->vocab, a->hidden, &emb) &&
             kvp__add_u64(p[KVP__W_EMBEDDING], emb, &p[KVP__W_EMBEDDING]) &&
             kvp__add_u64(p[KVP__W_LM_HEAD], emb, &p[KVP__W_LM_HEAD]);
    for (int k = 0; ok && k < KVP__W_COUNT; k++)
        ok = kvp__mul_u64(p[k], a->mtp_layers, &p[k]) && kvp__add_u64(*params, p[k], params);
    if (!ok)
        return kvp__fail(err, KVP_OVERFLOW, a->source, "/num_nextn_predict_layers",
                         "MTP parameter count overflows 64 bits");
    return kvp__arch_bytes(a, p, bytes, err);
}

kvp_status kvp_weights_estimate(const kvp_model *model, kvp_dtype weights_dtype,
                                uint64_t *out_bytes, kvp_error *err) {
    if (!model || !out_bytes)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "model and out_bytes are required");
    kvp__arch a;
    kvp__arch_opts o;
    memset(&o, 0, sizeof o);
    o.weights_dtype = weights_dtype;
    o.alc = kvp_model_allocator(model);
    kvp_status st = kvp__arch_read(model, &o, &a, err);
    if (st != KVP_OK) return st;
    uint64_t p[KVP__W_COUNT];
    st = stage_bytes(&a, 1, 0, a.layers, true, true, p, NULL, out_bytes, err);
    kvp__arch_free(&a);
    return st;
}

uint64_t kvp__estimate_tokens(const kvp_estimate_settings *s) {
    return s->max_num_tokens ? s->max_num_tokens : EST_DEFAULT_TOKENS;
}

kvp_status kvp_memory_estimate_detail(const kvp_model *model, const kvp_estimate_settings *s,
                                      kvp_memory_facts *out, kvp_estimate_detail *detail,
                                      kvp_error *err) {
    if (!model || !s || !out)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "model, settings and out are required");
    if (s->total_bytes == 0)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "total_bytes",
                         "the estimate needs the GPU's total memory (--gpu NAME, --gpu-mem BYTES "
                         "or --probe)");
    uint32_t tp = s->tp ? s->tp : 1, pp = s->pp ? s->pp : 1;
    const kvp_model_info *info = kvp_model_get_info(model);
    if (tp > 4096) return kvp__fail(err, KVP_INVALID_ARG, NULL, "tp", "tp %u is absurd", tp);
    if (pp > info->num_layers && info->num_layers)
        return kvp__fail(err, KVP_CONFIG, NULL, "pp", "pp %u exceeds the %u layers", pp,
                         info->num_layers);
    uint64_t T = kvp__estimate_tokens(s);
    uint64_t batch = s->max_batch_size ? s->max_batch_size : EST_DEFAULT_BATCH;
    if (T > (1ull << 32))
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "max_num_tokens",
                         "%llu tokens is absurd for one forward pass", (unsigned long long)T);
    kvp_estimate_detail local;
    kvp_estimate_detail *d = detail ? detail : &local;
    memset(d, 0, sizeof *d);
    memset(out, 0, sizeof *out);

    kvp_weight_format fmt;
    kvp__arch_opts o;
    memset(&o, 0, sizeof o);
    o.weights_dtype = s->weights_dtype;
    o.expert_ranks = s->expert_ranks;
    o.ep = s->ep;
    o.expert_inter_align = s->expert_inter_align;
    o.engine = s->engine;
    o.compute_capability = s->compute_capability;
    o.deepstack_tokens = s->engine == KVP_ESTIMATE_VLLM ? T : 0;
    o.attention_ranks = s->attention_ranks;
    o.embedding_whole = s->embedding_whole;
    o.alc = s->alc ? s->alc : kvp_model_allocator(model);
    if (s->quantization && *s->quantization) {
        kvp_status qs = kvp_weight_format_for_model(model, s->quantization, &fmt, err);
        if (qs != KVP_OK) return qs;
        if (fmt.name[0]) o.format = &fmt;
    }
    kvp__arch a;
    kvp_status st = kvp__arch_read(model, &o, &a, err);
    if (st != KVP_OK) return st;
    /* vLLM --language-model-only: the multimodal encoder is never built
     * (MultiModalConfig.language_model_only skips the tower's init). */
    if (s->language_model_only) a.vision_params = 0;
    kvp__strlcpy(d->weights_format, a.format, sizeof d->weights_format);
    uint64_t p[KVP__W_COUNT];
    /* The whole model on one GPU: experts unsharded. */
    uint32_t xranks = a.expert_ranks, xep = a.ep;
    a.expert_ranks = 0;
    a.ep = 1;
    st = stage_bytes(&a, 1, 0, a.layers, true, true, p, NULL, &d->weights_total_bytes, err);
    a.expert_ranks = xranks;
    a.ep = xep;
    if (st != KVP_OK) goto done;
    st = fill_detail_params(&a, d, p, err);
    if (st != KVP_OK) goto done;
    uint64_t mtp_b = 0;
    st = mtp_bytes(&a, &d->params_mtp_excluded, &mtp_b, err);
    if (st != KVP_OK) goto done;
    uint32_t busy_b = 0, busy_e = a.layers;
    st = weights(&a, tp, pp, &d->weights_rank_bytes, &d->weights_replicated_bytes, &busy_b,
                 &busy_e, err);
    if (st != KVP_OK) goto done;

    out->total_bytes = s->total_bytes;
    out->weights_bytes = d->weights_rank_bytes;
    out->estimated = KVP_MEM_EST_WEIGHTS | KVP_MEM_EST_ACTIVATION | KVP_MEM_EST_NON_TORCH;
    kvp__strlcpy(out->weights_source, "estimated from config", sizeof out->weights_source);
    /* Honest about a checkpoint format it cannot cost: every figure that follows
     * from the weights rests on the model's dtype instead. */
    if (a.unmodelled_quant[0])
        snprintf(out->weights_source, sizeof out->weights_source,
                 "estimated from config as %s: quant_method '%.32s' not modelled",
                 kvp_dtype_name(a.unmodelled_as),
                 a.unmodelled_quant);
    if (s->model_dir && *s->model_dir) {
        uint64_t exact = 0;
        char src[96];
        st = kvp__safetensors_dir_bytes_with(s->model_dir, o.alc, &exact, src, sizeof src, err);
        if (st != KVP_OK && st != KVP_NOT_FOUND) goto done;
        if (st == KVP_NOT_FOUND && err) kvp_error_clear(err); /* no checkpoint: estimate */
        if (st == KVP_OK && exact > 0) {
            d->weights_exact_total_bytes = exact;
            /* Checkpoints ship MTP layers that plain decoding never loads. */
            uint64_t effective = exact > mtp_b ? exact - mtp_b : exact;
            /* The exact total, split per rank in the config's proportions;
             * the buffers no checkpoint stores (rotary cache) added back. */
            uint64_t bp[KVP__W_COUNT] = {0}, buf_b = 0, share;
            bp[KVP__W_BUFFER] = d->buffer_elems;
            st = kvp__arch_bytes(&a, bp, &buf_b, err);
            if (st != KVP_OK) goto done;
            uint64_t est_total = d->weights_total_bytes - buf_b;
            uint64_t est_rank = d->weights_rank_bytes - buf_b;
            /* Headers that hold under 1/8 or over 8x what the config's own
             * layers need (no weight format is 8x another one the config
             * could state) describe other weights: an adapter, a partial
             * download, another model's files. Refused, not split. */
            uint64_t e8 = 0, x8 = 0;
            if (est_total && (!kvp__mul_u64(effective, 8, &e8) || !kvp__mul_u64(est_total, 8, &x8) ||
                              e8 < est_total || effective > x8)) {
                st = kvp__fail(err, KVP_CONFIG, s->model_dir, src,
                               "the checkpoint's tensors hold %llu bytes (%.2f GiB), but the "
                               "config's layers need about %llu (%.2f GiB): more than 8x apart, "
                               "so they are not this model's weights (an adapter? a partial "
                               "download?); pass --weights with the engine's figure",
                               (unsigned long long)effective, (double)effective / 1073741824.0,
                               (unsigned long long)est_total, (double)est_total / 1073741824.0);
                goto done;
            }
            if (est_total && kvp__mul_u64(effective, est_rank, &share))
                out->weights_bytes = kvp__ceil_div_u64(share, est_total) + buf_b;
            else
                out->weights_bytes = kvp__ceil_div_u64(effective, (uint64_t)tp * pp) + buf_b;
            out->estimated &= ~(uint32_t)KVP_MEM_EST_WEIGHTS;
            kvp__strlcpy(out->weights_source, src, sizeof out->weights_source);
        }
        st = KVP_OK;
    }

    st = kvp__runtime_terms(&a, s, tp, pp, T, batch, busy_b, busy_e, out, d, err);
done:
    kvp__arch_free(&a);
    if (st != KVP_OK) memset(out, 0, sizeof *out);
    return st;
}

kvp_status kvp_memory_estimate(const kvp_model *model, const kvp_estimate_settings *settings,
                               kvp_memory_facts *out, kvp_error *err) {
    return kvp_memory_estimate_detail(model, settings, out, NULL, err);
}
