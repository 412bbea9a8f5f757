/*
 * memory_weights.c — parameters and bytes of the weights, per category and
 * per rank (issue 3: "weights from the config").
 *
 * Per decoder layer (h = hidden size, TP size t, ceil division throughout):
 *   attention  q: h * Hq * Dk (x2 with an output gate), k: h * Hkv * Dk,
 *              v: h * Hkv * Dv, o: Hq * Dv * h; heads per rank ceil(H / t), so
 *              KV heads are replicated when Hkv < t (as engines do).
 *   MLA        q_a: h * q_lora (replicated), q_b: q_lora * Hq * (nope + rope)
 *              (or q: h * Hq * (nope + rope) without q_lora), kv_a: h * (kv_lora
 *              + rope) (replicated), kv_b: kv_lora * Hq * (nope + v), o: Hq * v * h;
 *              DSA indexer q: q_lora * Hi * Di, k: h * Di, weights: h * Hi.
 *   cross      4 matrices like attention, with the cross cache's heads.
 *   dense FFN  (gated ? 3 : 2) * h * I, I across TP.
 *   MoE        E * (gated ? 3 : 2) * h * I_e experts + shared (3 * h * I_s) +
 *              router h * E (replicated).
 *   GDN        in_proj_qkvz h * (2 Hk Dk + 2 Hv Dv), in_proj_ba h * 2 Hv,
 *              conv (2 Hk Dk + Hv Dv) * K, dt/A 2 Hv, norm Dv, out Hv Dv * h.
 *   Mamba2     in_proj h * (2 d_in + 2 G N + H), conv (d_in + 2 G N) * K,
 *              A/D/dt 3 H, norm d_in, out d_in * h (d_in = H * P).
 *   Mamba-1    in_proj h * 2 d_in, conv d_in * K, x_proj d_in * (R + 2 N),
 *              dt_proj R * d_in + d_in, A d_in * N, D d_in, out d_in * h.
 *   norms      2 h per layer (replicated).
 * Every stage also holds the rotary cos/sin cache (max positions x rotary dim).
 * Plus embeddings v * h (first stage), LM head v * h unless tied (last stage;
 * with pipeline parallelism a tied head is a second copy there) and the
 * final norm h.
 */
#include <string.h>

#include "memory_internal.h"
#include "model_internal.h"

typedef struct acc {
    uint64_t p[KVP__W_COUNT];
    uint64_t repl[KVP__W_COUNT]; /* of p: held whole by every TP rank, by term */
    bool overflow;
    const char *key; /* the config key whose value overflowed first (NULL: the term's own) */
    int over_cat;    /* the first term that overflowed; meaningful once `overflow` is set */
} acc;

/* Each term's name and the config key that scales it most (an overflow names both). */
static const struct {
    const char *key, *name;
} k_term[KVP__W_COUNT] = {
    [KVP__W_EMBEDDING] = {"/vocab_size", "embedding"},
    [KVP__W_LM_HEAD] = {"/vocab_size", "LM head"},
    [KVP__W_ATTENTION] = {"/num_attention_heads", "attention"},
    [KVP__W_MLP] = {"/intermediate_size", "MLP"},
    [KVP__W_EXPERTS] = {"/moe_intermediate_size", "routed experts"},
    [KVP__W_SHARED] = {"/shared_expert_intermediate_size", "shared experts"},
    [KVP__W_ROUTER] = {"/num_experts", "router"},
    [KVP__W_MIXER] = {"/hidden_size", "mixer"},
    [KVP__W_NORM] = {"/hidden_size", "norm"},
    [KVP__W_VISION] = {"/vision_config", "vision tower"},
    [KVP__W_ENCODER] = {"/encoder_layers", "encoder"},
    [KVP__W_BUFFER] = {"/max_position_embeddings", "rotary cache"},
};

/* Term k overflowed (`key`: the config key to name instead of the term's own). */
static void overflowed_at(acc *s, int k, const char *key) {
    if (!s->overflow) {
        s->over_cat = k;
        s->key = key;
    }
    s->overflow = true;
}
static void overflowed(acc *s, int k) { overflowed_at(s, k, NULL); }

/* x*a + y*b + z*c, checked: an absurd geometry is an error naming `key`,
 * never a wrapped width (2 * kd of a 2^63-wide key dimension). */
static uint64_t lin(acc *s, const char *key, uint64_t x, uint64_t a, uint64_t y, uint64_t b,
                    uint64_t z, uint64_t c) {
    uint64_t u, v, w;
    if (!kvp__mul_u64(x, a, &u) || !kvp__mul_u64(y, b, &v) || !kvp__mul_u64(z, c, &w) ||
        !kvp__add_u64(u, v, &u) || !kvp__add_u64(u, w, &u)) {
        overflowed_at(s, KVP__W_MIXER, key);
        return 0;
    }
    return u;
}

/* Add a*b*c (sharded by `div` when > 1, ceil) to category k. */
static void add3(acc *s, kvp__wcat k, uint64_t a, uint64_t b, uint64_t c, uint64_t div,
                 bool replicated) {
    uint64_t v;
    if (!kvp__mul3_u64(a, b, c, &v)) {
        overflowed(s, (int)k);
        return;
    }
    if (div > 1) v = kvp__ceil_div_u64(v, div);
    if (!kvp__add_u64(s->p[k], v, &s->p[k])) overflowed(s, (int)k);
    if (replicated && !kvp__add_u64(s->repl[k], v, &s->repl[k])) overflowed(s, (int)k);
}

static uint64_t ceil_div(uint64_t a, uint64_t b) { return kvp__ceil_div_u64(a, b ? b : 1); }

/* Routed experts of one rank. Spread over R = expert_ranks GPUs (TP, or TP x
 * DP in vLLM) in EP groups: each rank holds E / ep experts, each split
 * R / ep ways along the intermediate size, which mxfp4 kernels pad up
 * (expert_inter_align), and some pad the hidden size too (expert_hidden_align,
 * memory_arch.c). Without EP or padding: E * mats * h * I / t. vLLM's mxfp4
 * method also keeps bf16 biases, w13 E x 2I' and w2 E x h' (Mxfp4MoEMethod.
 * create_weights, MEMORY.md 7.7): 16-bit MoE parameters, counted with the
 * router. */
static void expert_params(const kvp__arch *a, uint64_t t, acc *s) {
    uint64_t ranks = a->expert_ranks ? a->expert_ranks : t, ep = a->ep ? a->ep : 1;
    uint64_t h = a->hidden, ha = a->expert_hidden_align;
    if (ha > 1) h = ceil_div(h, ha) * ha;
    uint64_t mats = (a->gated_experts ? 3 : 2) * h;
    if (ep == 1 && ranks == t && !a->expert_inter_align && ha <= 1 && !a->expert_bias) {
        add3(s, KVP__W_EXPERTS, a->experts, mats, a->expert_inter, t, false);
        return;
    }
    uint64_t inter = ceil_div(a->expert_inter, ranks / ep ? ranks / ep : 1);
    uint64_t al = a->expert_inter_align;
    if (al > 1) inter = ceil_div(inter, al) * al;
    uint64_t local = ceil_div(a->experts, ep);
    add3(s, KVP__W_EXPERTS, local, mats, inter, 1, false);
    if (a->expert_bias)
        add3(s, KVP__W_ROUTER, local, (a->gated_experts ? 2 : 1) * inter + h, 1, 1, false);
}

static void layer_params(const kvp__arch *a, const kvp__layer_arch *L, uint64_t t, acc *s) {
    uint64_t h = a->hidden;
    /* Attention is split over attention_ranks where the engine says (SGLang's
     * attn_tp = tp / dp under DP attention, ENGINES.md 2.4); the rest over tp. */
    uint64_t ta = a->attention_ranks ? a->attention_ranks : t;
    if (L->attention) {
        uint64_t hq = ceil_div(L->q_heads, ta), hkv = ceil_div(L->kv_heads, ta);
        add3(s, KVP__W_ATTENTION, h, hq, (uint64_t)L->k_head_dim * (a->attn_output_gate ? 2 : 1), 1,
             false);
        add3(s, KVP__W_ATTENTION, h, hkv, (uint64_t)L->k_head_dim + L->v_head_dim, 1, false);
        add3(s, KVP__W_ATTENTION, hq, L->v_head_dim, h, 1, false);
    }
    if (L->mla) {
        uint64_t hq = ceil_div(L->q_heads, ta);
        uint64_t qk = (uint64_t)a->qk_nope + a->qk_rope;
        if (a->q_lora) {
            add3(s, KVP__W_ATTENTION, h, a->q_lora, 1, 1, true);
            add3(s, KVP__W_NORM, a->q_lora, 1, 1, 1, true);
            add3(s, KVP__W_ATTENTION, a->q_lora, hq, qk, 1, false);
        } else {
            add3(s, KVP__W_ATTENTION, h, hq, qk, 1, false);
        }
        add3(s, KVP__W_ATTENTION, h, (uint64_t)a->kv_lora + a->qk_rope, 1, 1, true);
        add3(s, KVP__W_NORM, a->kv_lora, 1, 1, 1, true);
        add3(s, KVP__W_ATTENTION, a->kv_lora, hq, (uint64_t)a->qk_nope + a->v_head, 1, false);
        add3(s, KVP__W_ATTENTION, hq, a->v_head, h, 1, false);
        if (a->index_head_dim) {
            uint64_t qin = a->q_lora ? a->q_lora : h;
            add3(s, KVP__W_ATTENTION, qin, a->index_heads, a->index_head_dim, 1, true);
            add3(s, KVP__W_ATTENTION, h, a->index_head_dim, 1, 1, true);
            add3(s, KVP__W_ATTENTION, h, a->index_heads, 1, 1, true);
        }
    }
    if (L->cross) {
        uint64_t hq = ceil_div(L->q_heads, ta), hkv = ceil_div(L->cross_kv_heads, ta);
        add3(s, KVP__W_ATTENTION, h, hq, L->cross_head_dim, 1, false);
        add3(s, KVP__W_ATTENTION, h, hkv, 2ull * L->cross_head_dim, 1, false);
        add3(s, KVP__W_ATTENTION, hq, L->cross_head_dim, h, 1, false);
        add3(s, KVP__W_NORM, h, 1, 1, 1, true);
    }
    const kvp_recurrent_geometry *r = &L->rec;
    switch (L->mixer) {
    case KVP__MIX_GDN: {
        /* Qwen3-Next / Qwen3.5: groups x group_dim = linear_num_key_heads x
         * linear_key_head_dim, heads x head_dim the value side. */
        static const char k_gdn[] = "linear_num_key_heads";
        uint64_t kd = (uint64_t)r->groups * r->group_dim, vd = (uint64_t)r->heads * r->head_dim;
        add3(s, KVP__W_MIXER, h, lin(s, k_gdn, 2, kd, 2, vd, 2, r->heads), 1, t, false);
        add3(s, KVP__W_MIXER, lin(s, k_gdn, 2, kd, 1, vd, 0, 0), r->conv_kernel, 1, t, false);
        add3(s, KVP__W_MIXER, 2ull * r->heads + r->head_dim, 1, 1, t, false);
        add3(s, KVP__W_MIXER, vd, h, 1, t, false);
        break;
    }
    case KVP__MIX_MAMBA2: {
        /* d_in = mamba_num_heads x mamba_head_dim, G N = n_groups x ssm_state_size */
        static const char k_m2[] = "mamba_num_heads";
        uint64_t din = (uint64_t)r->heads * r->head_dim, gn = (uint64_t)r->groups * r->group_dim;
        add3(s, KVP__W_MIXER, h, lin(s, k_m2, 2, din, 2, gn, 1, r->heads), 1, t, false);
        add3(s, KVP__W_MIXER, lin(s, k_m2, 1, din, 2, gn, 0, 0), (uint64_t)r->conv_kernel + 1, 1,
             t, false);
        add3(s, KVP__W_MIXER, lin(s, k_m2, 3, r->heads, 1, din, 0, 0), 1, 1, t, false);
        add3(s, KVP__W_MIXER, din, h, 1, t, false);
        break;
    }
    case KVP__MIX_MAMBA1: {
        /* d_inner (intermediate_size), dt rank (time_step_rank), N (state_size);
         * each fits 32 bits, so only the products can leave 64. */
        uint64_t din = r->heads, n = r->state_dim, rk = a->dt_rank;
        add3(s, KVP__W_MIXER, h, 2 * din, 1, t, false);
        add3(s, KVP__W_MIXER, din, (uint64_t)r->conv_kernel + 1, 1, t, false);
        add3(s, KVP__W_MIXER, din, rk + 2 * n, 1, t, false);
        add3(s, KVP__W_MIXER, din, rk + 1, 1, t, false);
        add3(s, KVP__W_MIXER, din, n + 1, 1, t, false);
        add3(s, KVP__W_MIXER, din, h, 1, t, false);
        break;
    }
    default: break;
    }
    uint64_t mats = a->gated_mlp ? 3 : 2;
    if (L->ffn & KVP__FFN_DENSE) add3(s, KVP__W_MLP, mats * h, L->dense_inter, 1, t, false);
    if (L->linear_replacement) add3(s, KVP__W_MLP, h, h, 1, t, false);
    if (L->ffn & KVP__FFN_MOE) {
        expert_params(a, t, s);
        if (a->shared_inter) add3(s, KVP__W_SHARED, mats * h, a->shared_inter, 1, t, false);
        add3(s, KVP__W_ROUTER, h, a->experts, 1, 1, true);
    }
    add3(s, KVP__W_NORM, 2 * h, 1, 1, 1, true);
}

bool kvp__layer_arch_same(const kvp__layer_arch *x, const kvp__layer_arch *y) {
    return x->ffn == y->ffn && x->mixer == y->mixer && x->attention == y->attention &&
           x->mla == y->mla && x->cross == y->cross && x->q_heads == y->q_heads &&
           x->kv_heads == y->kv_heads && x->k_head_dim == y->k_head_dim &&
           x->v_head_dim == y->v_head_dim && x->cross_kv_heads == y->cross_kv_heads &&
           x->cross_head_dim == y->cross_head_dim && x->dense_inter == y->dense_inter &&
           x->linear_replacement == y->linear_replacement &&
           kvp__recurrent_geometry_equal(&x->rec, &y->rec);
}

/* s += n x one, checked. */
static void acc_add_times(acc *s, const acc *one, uint64_t n) {
    uint64_t v;
    if (one->overflow) overflowed_at(s, one->over_cat, one->key);
    for (int k = 0; k < KVP__W_COUNT; k++) {
        if (!kvp__mul_u64(one->p[k], n, &v) || !kvp__add_u64(s->p[k], v, &s->p[k]))
            overflowed(s, k);
        if (!kvp__mul_u64(one->repl[k], n, &v) || !kvp__add_u64(s->repl[k], v, &s->repl[k]))
            overflowed(s, k);
    }
}

kvp_status kvp__arch_params(const kvp__arch *a, uint32_t tp, uint32_t begin, uint32_t end,
                            bool with_first, bool with_last, uint64_t params[KVP__W_COUNT],
                            uint64_t replicated[KVP__W_COUNT], kvp_error *err) {
    acc s;
    memset(&s, 0, sizeof s);
    uint64_t t = tp ? tp : 1;
    if (end > a->layers) end = a->layers;
    /* A run of identical layers holds run x one layer's parameters exactly
     * (every matrix is rounded per layer), so each run is counted once. */
    for (uint32_t l = begin; l < end;) {
        uint32_t run = 1;
        while (l + run < end && kvp__layer_arch_same(&a->layer[l], &a->layer[l + run])) run++;
        acc one;
        memset(&one, 0, sizeof one);
        layer_params(a, &a->layer[l], t, &one);
        acc_add_times(&s, &one, run);
        l += run;
    }
    /* The rotary cos/sin cache (vLLM: max_position_embeddings x rotary dim in
     * the model dtype) is loaded with the weights on every stage. */
    if (end > begin) add3(&s, KVP__W_BUFFER, a->rope_cache_elems, 1, 1, 1, true);
    if (with_first) {
        /* SGLang under DP attention keeps the table whole on every rank. */
        add3(&s, KVP__W_EMBEDDING, a->vocab, a->hidden, 1, a->embedding_whole ? 1 : t,
             a->embedding_whole);
        if (a->extra_embedding_params)
            add3(&s, KVP__W_EMBEDDING, a->extra_embedding_params, 1, 1, t, false);
        if (a->vision_params) add3(&s, KVP__W_VISION, a->vision_params, 1, 1, t, false);
        if (a->deepstack_buffer_elems)
            add3(&s, KVP__W_BUFFER, a->deepstack_buffer_elems, 1, 1, 1, true);
        if (a->encoder_layers) {
            uint64_t h = a->hidden;
            /* encoder layer: 4 h^2 attention + 2 h I MLP + 2 norms of 2 h */
            add3(&s, KVP__W_ENCODER, a->encoder_layers, 4 * h, h, t, false);
            add3(&s, KVP__W_ENCODER, a->encoder_layers, 2 * h, a->encoder_ffn, t, false);
            add3(&s, KVP__W_NORM, a->encoder_layers, 4 * h, 1, 1, true);
            add3(&s, KVP__W_ENCODER, a->encoder_extra_params, 1, 1, t, false);
        }
    }
    if (with_last) {
        /* A tied head shares the embedding's storage on a one-stage model;
         * on a later stage it is a second copy. */
        if (!a->tied || !with_first)
            add3(&s, KVP__W_LM_HEAD, a->vocab, a->hidden, 1, t, false);
        add3(&s, KVP__W_NORM, a->hidden, 1, 1, 1, true);
    }
    if (s.overflow)
        return kvp__fail(err, KVP_OVERFLOW, a->source,
                         s.key ? s.key : k_term[s.over_cat].key,
                         "weights estimate: the parameters of the %s (layers %u..%u) overflow 64 bits "
                         "(no checkpoint holds 2^64 parameters)%s",
                         k_term[s.over_cat].name, begin, end ? end - 1 : 0,
                         s.key ? "; a recurrent mixer's width: heads x head dimension past 2^63" : "");
    memcpy(params, s.p, sizeof s.p);
    if (replicated) memcpy(replicated, s.repl, sizeof s.repl);
    return KVP_OK;
}

kvp_status kvp__arch_bytes(const kvp__arch *a, const uint64_t params[KVP__W_COUNT],
                           uint64_t *out_bytes, kvp_error *err) {
    uint64_t total = 0;
    for (int k = 0; k < KVP__W_COUNT; k++) {
        uint64_t scaled;
        if (!kvp__mul_u64(params[k], a->rate[k], &scaled) ||
            !kvp__add_u64(total, kvp__ceil_div_u64(scaled, KVP__RATE_ONE), &total))
            return kvp__fail(err, KVP_OVERFLOW, a->source, k_term[k].key,
                             "weights estimate: the %s bytes overflow 64 bits",
                             k_term[k].name);
    }
    *out_bytes = total;
    return KVP_OK;
}
