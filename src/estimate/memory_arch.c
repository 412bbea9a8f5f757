/*
 * memory_arch.c — the weights estimate's view of a model: per-layer mixer /
 * attention / FFN kinds, MoE and MLA geometry, the vision and encoder towers,
 * and the byte rate of every weight category.
 *
 * Attention geometry comes from the model's cache records (kv heads and head
 * dims per layer, already resolved by the config reader for every family);
 * everything else from the facts the model read with its config
 * (kvp_model_get_facts: src/model/facts_weights.c). No config text is read here.
 */
#include <stdio.h>
#include <string.h>

#include "memory_internal.h"

#define ARCH_MAX_LAYERS 100000u /* as the config reader bounds them */

_Static_assert((int)KVP__FFN_DENSE == (int)KVP_FFN_DENSE && (int)KVP__FFN_MOE == (int)KVP_FFN_MOE,
               "layer FFN bits are the model's");

static uint64_t dtype_rate(kvp_dtype d) {
    switch (d) {
    case KVP_DTYPE_FP32: return 4 * KVP__RATE_ONE;
    case KVP_DTYPE_FP8:
    case KVP_DTYPE_INT8: return KVP__RATE_ONE;
    case KVP_DTYPE_NVFP4: return KVP__RATE_ONE / 2 + KVP__RATE_ONE / 16;
    default: return 2 * KVP__RATE_ONE;
    }
}

static bool is_quantized_dtype(kvp_dtype d) {
    return d == KVP_DTYPE_FP8 || d == KVP_DTYPE_INT8 || d == KVP_DTYPE_NVFP4;
}

/* The rates of every category. A 16- or 32-bit `weights_dtype` (the dtype the
 * engine runs, --dtype) is the dtype of what is not quantized: a quantized
 * checkpoint stays quantized (vLLM and SGLang load fp8 checkpoints as fp8
 * whatever --dtype says). A quantized `weights_dtype` puts every linear layer
 * at it; `format` (--quantization) replaces the checkpoint's quantization
 * unless it is the same family, whose own figures (block size, group size,
 * exclusions) then win. */
static void weight_rates(const kvp_weight_quant *ckpt, const kvp__arch_opts *o,
                         kvp_dtype model_dtype, kvp__arch *a) {
    kvp_dtype override = o ? o->weights_dtype : KVP_DTYPE_AUTO;
    /* Serving engines load fp32 checkpoints at 16 bits (vLLM and TRT-LLM
     * "auto" dtype), so the unquantized rate is never 4 bytes by default. */
    kvp_dtype base_dtype = model_dtype == KVP_DTYPE_FP32 ? KVP_DTYPE_BF16 : model_dtype;
    if (override != KVP_DTYPE_AUTO && !is_quantized_dtype(override)) base_dtype = override;
    uint64_t base = dtype_rate(base_dtype);
    for (int k = 0; k < KVP__W_COUNT; k++) a->rate[k] = base;
    snprintf(a->format, sizeof a->format, "%s", kvp_dtype_name(base_dtype));
    static const kvp__wcat k_quantizable[KVP_QUANT_CAT_COUNT] = {
        [KVP_QUANT_CAT_ATTENTION] = KVP__W_ATTENTION, [KVP_QUANT_CAT_MLP] = KVP__W_MLP,
        [KVP_QUANT_CAT_EXPERTS] = KVP__W_EXPERTS,     [KVP_QUANT_CAT_SHARED] = KVP__W_SHARED,
        [KVP_QUANT_CAT_MIXER] = KVP__W_MIXER};
    if (is_quantized_dtype(override)) {
        for (size_t k = 0; k < KVP_QUANT_CAT_COUNT; k++)
            a->rate[k_quantizable[k]] = dtype_rate(override);
        snprintf(a->format, sizeof a->format, "%s (requested)", kvp_dtype_name(override));
        return;
    }
    const kvp_weight_quant *q = ckpt;
    const kvp_weight_format *f = o ? o->format : NULL;
    if (f && !f->gguf && !kvp__weight_format_same_family(f, ckpt)) q = &f->quant;
    if (q->state == KVP_WEIGHT_QUANT_NONE) {
        if (override != KVP_DTYPE_AUTO)
            snprintf(a->format, sizeof a->format, "%s (requested)", kvp_dtype_name(override));
        return;
    }
    if (q->state == KVP_WEIGHT_QUANT_UNMODELLED) {
        snprintf(a->format, sizeof a->format, "%s (quant_method '%s' not modelled: taken as %s)",
                 kvp_dtype_name(base_dtype), q->method, kvp_dtype_name(base_dtype));
        kvp__strlcpy(a->unmodelled_quant, q->method[0] ? q->method : "?", sizeof a->unmodelled_quant);
        a->unmodelled_as = base_dtype;
        return;
    }
    char kept[96] = "";
    static const char *const k_names[KVP_QUANT_CAT_COUNT] = {"attention", "mlp", "experts",
                                                             "shared experts", "mixer"};
    for (size_t k = 0; k < KVP_QUANT_CAT_COUNT; k++) {
        if (q->excluded[k]) {
            size_t n = strlen(kept);
            snprintf(kept + n, sizeof kept - n, ", %s", k_names[k]);
            continue;
        }
        uint64_t r = q->cat_rate_x65536[k] ? q->cat_rate_x65536[k] : q->rate_x65536;
        /* vLLM serves symmetric GPTQ with Marlin from cc 8.0 (unknown: Hopper). */
        if (q->marlin_rate_x65536 && o && o->engine == KVP_ESTIMATE_VLLM &&
            (o->compute_capability == 0 || o->compute_capability >= 80))
            r = q->marlin_rate_x65536;
        a->rate[k_quantizable[k]] = r;
    }
    a->experts_mxfp4 = !strncmp(q->label, "mxfp4", 5) && !q->excluded[KVP_QUANT_CAT_EXPERTS];
    snprintf(a->format, sizeof a->format, "%s; %s: embeddings, lm_head, norms, router%s",
             q->label, kvp_dtype_name(base_dtype), kept);
}

/* ------------------------------------------------------------ layers */

static void read_layers(const kvp_model *model, const kvp_weight_facts *w, kvp__arch *a) {
    const kvp_model_info *info = kvp_model_get_info(model);
    size_t ncache = kvp_model_cache_count(model);
    for (size_t i = 0; i < ncache; i++) {
        const kvp_layer_cache *lc = kvp_model_cache(model, i);
        if (lc->layer >= a->layers) continue;
        kvp__layer_arch *L = &a->layer[lc->layer];
        switch (lc->kind) {
        case KVP_CACHE_FULL:
        case KVP_CACHE_SLIDING:
        case KVP_CACHE_CHUNKED:
            L->attention = true;
            L->kv_heads = lc->kv_heads;
            L->k_head_dim = lc->k_head_dim;
            L->v_head_dim = lc->v_head_dim ? lc->v_head_dim : lc->k_head_dim;
            break;
        case KVP_CACHE_MLA: L->mla = true; break;
        case KVP_CACHE_CROSS:
            L->cross = true;
            L->cross_kv_heads = lc->kv_heads;
            L->cross_head_dim = lc->k_head_dim;
            break;
        case KVP_CACHE_RECURRENT: L->rec = lc->recurrent; break;
        default: break;
        }
    }
    /* A model built without cache records (or a reader that kept none):
     * every layer is plain attention with the model's geometry. */
    if (ncache == 0) {
        for (uint32_t l = 0; l < a->layers; l++) {
            a->layer[l].attention = !info->is_mla;
            a->layer[l].mla = info->is_mla;
            a->layer[l].kv_heads = info->num_kv_heads;
            a->layer[l].k_head_dim = a->layer[l].v_head_dim = info->head_dim;
        }
    }
    for (uint32_t l = 0; l < a->layers; l++) {
        kvp__layer_arch *L = &a->layer[l];
        L->q_heads = info->num_attention_heads;
        if (L->rec.heads) {
            if (w->gated_delta_net)
                L->mixer = KVP__MIX_GDN;
            else if (L->rec.head_dim == 1 && L->rec.groups == 0)
                L->mixer = KVP__MIX_MAMBA1;
            else
                L->mixer = KVP__MIX_MAMBA2;
        }
        if (w->layers && l < w->layer_count) {
            L->ffn = w->layers[l].kind;
            L->dense_inter = w->layers[l].dense_inter;
            L->linear_replacement = w->layers[l].linear_replacement;
        }
    }
}

/* vLLM's mxfp4 MoE method (mxfp4.py : get_mxfp4_backend, Mxfp4MoEMethod.create_weights,
 * the ~0.11-0.13 copy; MEMORY.md 7.7) picks a kernel by the GPU and pads one rank's
 * intermediate size I' and the hidden size h to that kernel's tiles:
 *   cc < 9.0 (Ampere, Ada): Marlin, I' to 128, h to 256;
 *   SM100 family (cc 10.x): FlashInfer (BF16 / MXFP8-TRTLLM, the default), 256 / 256;
 *   Hopper and later otherwise: Triton (triton_kernels), I' to 64, h unpadded.
 * Opt-in paths (SM90 FlashInfer BF16, SM100 MXFP8-CUTLASS: 128 / 128), Marlin forced
 * by LoRA or VLLM_MXFP4_USE_MARLIN, and ROCm are not chosen by default. An unknown
 * GPU is planned as Hopper, as every other term here. */
const char *kvp__mxfp4_vllm_padding(uint32_t cc, uint32_t *inter_align, uint32_t *hidden_align) {
    if (cc && cc < 90) {
        *inter_align = 128;
        *hidden_align = 256;
        return "Marlin";
    }
    if (cc / 10 == 10) {
        *inter_align = 256;
        *hidden_align = 256;
        return "FlashInfer (SM100)";
    }
    *inter_align = 64;
    *hidden_align = 0;
    return "Triton";
}

/* Expert parallelism and the llama.cpp file type: validated here, so that an
 * EP that does not divide the experts is refused by name. */
static kvp_status expert_sharding(const kvp_model *model, const kvp__arch_opts *o, kvp__arch *a,
                                  kvp_error *err) {
    if (!o) return KVP_OK;
    const char *file = kvp_model_name(model);
    if (o->format && o->format->gguf) {
        a->gguf_ftype = (int)o->format->gguf_ftype;
        snprintf(a->format, sizeof a->format, "%s (llama.cpp file type, --quantization)",
                 o->format->name);
    }
    a->expert_ranks = o->expert_ranks;
    a->ep = o->ep > 1 ? o->ep : 1;
    a->attention_ranks = o->attention_ranks;
    a->embedding_whole = o->embedding_whole;
    if (a->experts_mxfp4 && o->expert_inter_align) {
        a->expert_inter_align = o->expert_inter_align; /* asked: that padding alone */
    } else if (a->experts_mxfp4 && o->engine == KVP_ESTIMATE_VLLM) {
        (void)kvp__mxfp4_vllm_padding(o->compute_capability, &a->expert_inter_align,
                                      &a->expert_hidden_align);
        a->expert_bias = true;
    }
    /* TensorRT-LLM builds its Mapping for every model: moe_tp_size = tp_size //
     * moe_ep_size, and a product other than tp_size is a ValueError
     * (tensorrt_llm/mapping.py : Mapping.__init__), dense model or not; a dense
     * model then has no MoE layer for the EP to split (it starts, nothing changes). */
    bool trt = o->engine == KVP_ESTIMATE_TRTLLM;
    if (trt && a->ep > 1 && a->expert_ranks && a->expert_ranks % a->ep)
        return kvp__fail(err, KVP_INVALID_ARG, file, "ep",
                         "EP %u does not divide TP %u: TensorRT-LLM's Mapping needs moe_tp_size "
                         "x moe_ep_size = tp_size",
                         a->ep, a->expert_ranks);
    if (trt && a->experts == 0) a->ep = 1;
    if (a->ep > 1 && a->experts == 0)
        return kvp__fail(err, KVP_INVALID_ARG, file, "ep",
                         "expert parallelism (EP %u) on a model without routed experts", a->ep);
    if (a->ep > 1 && a->experts % a->ep)
        return kvp__fail(err, KVP_INVALID_ARG, file, "ep",
                         "EP %u does not divide the %u routed experts (/num_experts)", a->ep,
                         a->experts);
    if (a->ep > 1 && a->expert_ranks && a->expert_ranks % a->ep)
        return kvp__fail(err, KVP_INVALID_ARG, file, "ep",
                         "EP %u does not divide the %u GPUs the experts are spread over (vLLM: "
                         "TP x DP; TensorRT-LLM, SGLang: TP)",
                         a->ep, a->expert_ranks);
    return KVP_OK;
}

kvp_status kvp__arch_read(const kvp_model *model, const kvp__arch_opts *opts, kvp__arch *a,
                          kvp_error *err) {
    memset(a, 0, sizeof *a);
    a->alc = opts->alc;
    a->gguf_ftype = -1;
    const kvp_model_info *info = kvp_model_get_info(model);
    const kvp_weight_facts *w = &kvp_model_get_facts(model)->weights;
    const char *file = kvp_model_name(model);
    a->source = file;
    kvp__strlcpy(a->model_type, info->model_type, sizeof a->model_type);
    a->hidden = w->hidden_size;
    a->vocab = w->vocab_size;
    a->layers = info->num_layers;
    if (a->hidden == 0 || a->layers == 0)
        return kvp__fail(err, KVP_CONFIG, file, "/hidden_size",
                         "the weights estimate needs hidden_size and the layer count (found %llu "
                         "and %u)",
                         (unsigned long long)a->hidden, a->layers);
    if (a->layers > ARCH_MAX_LAYERS)
        return kvp__fail(err, KVP_CONFIG, file, "/num_hidden_layers", "too many layers (%u)",
                         a->layers);
    a->tied = w->tied_embeddings;
    a->gated_mlp = w->gated_mlp;
    a->gated_experts = a->gated_mlp;
    a->attn_output_gate = w->attn_output_gate;
    a->experts = w->num_experts;
    a->topk = w->experts_per_token;
    a->expert_inter = w->expert_inter;
    a->shared_inter = w->shared_inter;
    if (info->is_mla) {
        a->q_lora = info->q_lora_rank;
        a->kv_lora = info->kv_lora_rank;
        a->qk_nope = info->qk_nope_head_dim;
        a->qk_rope = info->qk_rope_head_dim;
        a->v_head = info->v_head_dim;
        a->index_head_dim = w->index_head_dim;
        a->index_heads = w->index_heads;
    }
    a->dt_rank = w->dt_rank;
    a->mtp_layers = info->num_nextn_predict_layers;
    {
        uint64_t maxpos = info->max_position_embeddings;
        bool has_attention = info->num_attention_heads > 0 && !info->is_encoder_decoder;
        if (maxpos > (1ull << 24)) maxpos = 1ull << 24; /* bounded: 16M positions */
        a->rope_cache_elems =
            has_attention && w->positions == KVP_POSITIONS_ROTARY ? maxpos * w->rotary_dim : 0;
        if (w->positions == KVP_POSITIONS_LEARNED) a->position_params = maxpos * a->hidden;
    }
    /* encoder-decoder */
    a->encoder_layers = info->num_encoder_layers;
    a->encoder_ffn = w->encoder_ffn;
    if (a->encoder_layers) {
        uint64_t mel = w->num_mel_bins, tgt = w->max_target_positions,
                 src = w->max_source_positions;
        /* Whisper front end: conv1d(mel->h, k=3) and conv1d(h->h, k=3);
         * learned decoder positions and stored encoder positions. */
        a->encoder_extra_params = (mel ? mel * a->hidden * 3 + a->hidden * a->hidden * 3 : 0) +
                                  (tgt + src) * a->hidden;
    }
    /* Vision tower: blocks of attention (4 h^2) and an MLP (2 or 3 h x I), plus
     * the mergers projecting into the language model, each fc1 C m^2 -> C m^2 and
     * fc2 C m^2 -> out with biases and a LayerNorm of 2 C (the merger) or 2 C m^2
     * (Qwen3-VL's deepstack mergers, one per deepstack index), the patch embedding
     * (Conv3d with bias) and the learned position table (qwen3_vl.py
     * Qwen3_VisionTransformer @002d7b9, MEMORY.md 7.7). Engines load it on every
     * rank group. vLLM also builds one zero deepstack_input_embeds tensor of
     * [max_num_batched_tokens, hidden] per deepstack level with the model, so inside
     * its weights memory [inferred: on the device]. */
    if (w->vision_depth) {
        uint64_t H = w->vision_hidden, D = w->vision_depth, I = w->vision_inter;
        uint64_t per_block = 4 * H * H + 2 * H * I + 4 * H;
        uint64_t out = w->vision_out_hidden, cm = H * w->vision_merge * w->vision_merge;
        uint64_t fc = out ? cm * cm + cm * out + cm + out : 0;
        uint64_t merger = out ? fc + 2 * H : 0;
        uint64_t deepstack = out ? w->vision_deepstack * (fc + 2 * cm) : 0;
        uint64_t patch = w->vision_patch_elems ? w->vision_patch_elems * H + H : 0;
        a->vision_params = D * per_block + merger + deepstack + patch + w->vision_positions * H;
        /* What the encoder hands the LM per token: the projection into the LM's
         * hidden size, or Qwen3-VL's out_hidden_size with one slice per deepstack
         * level (out x (1 + n_deepstack), MEMORY.md 7.4). */
        a->vision_hidden = H;
        a->vision_inter = I;
        a->vision_tokens = w->vision_tokens_per_item;
        a->vision_patches = w->vision_image_patches;
        a->vision_out_width = out ? out * (1 + w->vision_deepstack) : a->hidden;
        if (out && opts->deepstack_tokens &&
            !kvp__mul_many_u64(&a->deepstack_buffer_elems, 3, w->vision_deepstack,
                               opts->deepstack_tokens, a->hidden))
            return kvp__fail(err, KVP_OVERFLOW, file, "/vision_config/deepstack_visual_indexes",
                             "the deepstack buffers overflow 64 bits");
    }
    weight_rates(&w->quant, opts, info->dtype == KVP_DTYPE_AUTO ? KVP_DTYPE_BF16 : info->dtype,
                 a);
    kvp_status st = expert_sharding(model, opts, a, err);
    if (st != KVP_OK) return st;
    a->layer = kvp__calloc(a->alc, a->layers, sizeof *a->layer);
    if (!a->layer)
        return kvp__fail(err, KVP_NOMEM, file, NULL, "out of memory (%u layers)", a->layers);
    read_layers(model, w, a);
    /* Gemma 3n per-layer embeddings: vocab_size_per_layer_input rows of
     * hidden_size_per_layer_input for every layer, stored with the embedding. */
    if (w->ple_hidden && w->ple_vocab &&
        !kvp__mul_many_u64(&a->extra_embedding_params, 3, w->ple_hidden, w->ple_vocab,
                           (uint64_t)a->layers))
        st = kvp__fail(err, KVP_OVERFLOW, file, "/hidden_size_per_layer_input",
                       "per-layer embedding size overflows");
    if (st == KVP_OK &&
        !kvp__add_u64(a->extra_embedding_params, a->position_params, &a->extra_embedding_params))
        st = kvp__fail(err, KVP_OVERFLOW, file, "/hidden_size_per_layer_input",
                       "per-layer embedding size overflows");
    if (st != KVP_OK) kvp__arch_free(a);
    return st;
}

void kvp__arch_free(kvp__arch *arch) {
    if (!arch) return;
    kvp__free(arch->alc, arch->layer);
    arch->layer = NULL;
}
