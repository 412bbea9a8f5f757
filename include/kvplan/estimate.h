/*
 * kvplan/estimate.h — memory facts estimated from first principles when
 * nothing was measured: weights from the config (or exact from safetensors
 * headers), the activation peak of a profiling forward pass, and the
 * runtime's own memory (CUDA context, communication buffers, CUDA graphs).
 * Every estimated term sets its KVP_MEM_EST_* bit in kvp_memory_facts.estimated.
 */
#ifndef KVPLAN_ESTIMATE_H
#define KVPLAN_ESTIMATE_H

#include <stdbool.h>
#include <stdint.h>

#include "kvplan/error.h"
#include "kvplan/memory.h"
#include "kvplan/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A weight format asked by option (`--quantization`), as the weights estimate
 * charges it (docs/memory.md "Weights by format"):
 *   fp8       1 B per linear weight (vLLM Fp8LinearMethod, one fp32 scale per
 *             tensor: under 4 B a matrix, not counted)
 *   awq, gptq 4-bit values + fp16 scale and packed 4-bit zero point per 128
 *             weights: 0.5 + 2/128 + 0.5/128 B (GPTQ's g_idx, 4 B per input row,
 *             is not counted: under 4 / out_features B per weight)
 *   mxfp4     4-bit values + one e8m0 scale per 32: 0.5 + 1/32 B, routed experts
 *             only (vLLM Mxfp4Config quantizes FusedMoE layers, not linear ones)
 *   nvfp4     4-bit values + one fp8 scale per 16: 0.5 + 1/16 B
 *   bnb-4bit  nf4 + one fp32 absmax per 64: 0.5 + 4/64 B
 * and llama.cpp types by name (Q8_0, Q6_K, Q5_K_M, Q4_K_M, Q4_0, IQ4_XS, ...),
 * costed tensor by tensor from ggml's block sizes and llama.cpp's type rules. */
typedef struct kvp_weight_format {
    char name[32];          /* canonical name: "fp8", "awq", "Q4_K_M", ... */
    bool gguf;              /* a llama.cpp file type (tensor-by-tensor rules) */
    uint32_t gguf_ftype;    /* when gguf: kvplan's index of the file type */
    kvp_weight_quant quant; /* when not gguf: the rate and the categories it covers */
} kvp_weight_format;

/* Parse `text` (case-insensitive) into `out`. KVP_INVALID_ARG (key
 * "--quantization") for an unknown name, with the accepted ones listed. */
KVP_API KVP_NODISCARD kvp_status kvp_weight_format_parse(const char *text, kvp_weight_format *out,
                                                 kvp_error *err);

/* kvp_weight_format_parse for `model`: also accepts the checkpoint's own
 * quant_method as written (vLLM's `--quantization compressed-tensors` on such
 * a checkpoint), which leaves `out` zeroed (name "": the checkpoint's). */
KVP_API KVP_NODISCARD kvp_status kvp_weight_format_for_model(const kvp_model *model,
                                                     const char *text,
                                                     kvp_weight_format *out, kvp_error *err);

/* Bits per weight of a ggml tensor type by name ("Q4_K": 4.5), from its block
 * (ggml type_traits: bytes per block x 8 / weights per block). KVP_INVALID_ARG
 * for a name that is not a ggml type. */
KVP_API KVP_NODISCARD kvp_status kvp_ggml_type_bits(const char *name, double *out_bits,
                                            kvp_error *err);

/* Whose start-up the estimate models (docs/memory.md, one section each): the
 * terms differ, and so does where each is charged. One value per row of
 * kvplan/engines.def, equal to that engine's kvp_engine (the public spellings
 * and values kept: KVP_ESTIMATE_TRTLLM = 0, VLLM = 1, SGLANG = 2, LLAMACPP = 3):
 *   TRTLLM    PyTorch backend: peak = torch peak + (used - allocated)
 *   VLLM      V1: increase over the init snapshot; graphs estimated (>= 0.21)
 *   SGLANG    no profile: pre-load terms shrink X, the rest lives in 1 - mfs
 *   LLAMACPP  compute buffer of one ubatch; nothing sized from a fraction */
typedef enum kvp_estimate_engine {
#define KVP_ENGINE_X(id, name, title) KVP_ESTIMATE_##id,
#include "kvplan/engines.def"
} kvp_estimate_engine;

#define KVP_ESTIMATE_GRAPH_SIZES_MAX 64

typedef struct kvp_estimate_settings {
    uint32_t tp;              /* 0 -> 1 */
    uint32_t pp;              /* 0 -> 1 */
    uint64_t total_bytes;     /* GPU total (from --gpu / --gpu-mem / probe); required */
    uint64_t max_num_tokens;  /* tokens of the profiling forward pass; 0 -> 8192 */
    uint32_t max_batch_size;  /* 0 -> 2048 */
    bool cuda_graphs;         /* count CUDA-graph memory */
    const char *model_dir;    /* folder with *.safetensors for exact weights; NULL = none */
    kvp_dtype weights_dtype;  /* AUTO = from the config's dtype / quantization_config */
    uint32_t cuda_graph_max_batch; /* largest captured batch (TRT-LLM --cuda-graph-batch-size,
                                      vLLM max_num_seqs); 0 -> min(max_batch_size, 512) */
    uint32_t sampler_rows;    /* logits rows of the profiling sampler step (vLLM:
                                 max_num_seqs); 0 -> min(max_batch_size, 256) */
    uint32_t sampler_bytes_per_logit; /* live bytes per vocabulary entry per row at the
                                 sampler's peak; 0 -> 10 (16-bit lm_head output, fp32
                                 logits, fp32 probabilities). vLLM's dummy sampler also
                                 sorts for top-k/top-p (fp32 values + int64 indices): 22 */
    const char *quantization; /* --quantization (kvp_weight_format_parse); NULL or "" = the
                                 checkpoint's quantization_config. Same family as the
                                 checkpoint's method: the checkpoint's figures win */
    uint32_t expert_ranks;    /* GPUs the routed experts are spread over; 0 -> tp. vLLM
                                 flattens TP x DP for MoE layers, EP or not */
    uint32_t ep;              /* expert-parallel size: each rank holds experts / ep of them,
                                 each split by expert_ranks / ep; 0 -> 1. Must divide the
                                 experts and expert_ranks (else KVP_INVALID_ARG, "--ep") */
    uint32_t expert_inter_align; /* kernel padding of one rank's expert intermediate size
                                 for mxfp4 experts, that padding alone; 0 = the engine's:
                                 under vLLM the kernel compute_capability picks (Marlin
                                 128 and hidden 256 below 9.0, FlashInfer 256 / 256 on
                                 SM100, Triton 64 otherwise) with bf16 expert biases */
    uint32_t engine;          /* kvp_estimate_engine; 0 = TensorRT-LLM */
    uint32_t compute_capability; /* 90 = Hopper (cuBLAS 32 MiB workspace, NVLS 16 channels);
                                 0 = unknown: Hopper figures, said in the terms' sources */
    uint64_t max_seq_len;     /* TRT-LLM dummy requests of min(max_num_tokens, max_seq_len - 1)
                                 tokens; 0 = one request */
    uint32_t cuda_graph_sizes[KVP_ESTIMATE_GRAPH_SIZES_MAX]; /* explicit capture list
                                 (--cuda-graph-batch-sizes), ascending */
    uint32_t cuda_graph_size_count; /* 0 = the engine's default list up to cuda_graph_max_batch */
    bool language_model_only; /* vLLM --language-model-only: the vision / audio tower is not
                                 loaded (its weights are not counted) */
    bool pooling_runner;      /* vLLM --runner pooling: the profile runs the pooler
                                 (_dummy_pooler_run) instead of the logits and the dummy
                                 sampler (MEMORY.md 1.4) */
    const kvp_allocator *alc; /* the estimate's scratch memory (freed before it returns);
                                 borrowed; NULL = the model's allocator (kvp_model_allocator) */
    /* The engine's release line (docs/memory.md, one section per line). */
    uint32_t engine_version;  /* the release as the policy reads --engine-version (X.Y.Z ->
                                 X*10000 + Y*100 + Z: 0.21.0 = 2100); 0 = latest */
    bool engine_v0;           /* vLLM's V0 engine (VLLM_USE_V1=0, or a release before 0.8) */
    uint32_t sm_count;        /* streaming multiprocessors (vLLM's Triton sampler buffer);
                                 0 = unknown: that buffer is not counted */
    int flash_attn;           /* llama.cpp: 1 on (no KQ scores in the compute buffer), 0 off,
                                 -1 auto (on where the backend supports it) */
    uint64_t n_ctx;           /* llama.cpp: KV cells the worst-case graph attends (n_kv);
                                 0 = the ubatch */
    /* Added in 1.0 from the reserved room (two words: sizes and offsets kept). */
    int flashinfer_sampler;   /* vLLM VLLM_USE_FLASHINFER_SAMPLER in the environment: 1 set
                                 on, -1 set to 0, 0 unset (the release line's path,
                                 docs/memory.md) */
    uint32_t attention_ranks; /* ranks the attention weights are split over: SGLang with
                                 --enable-dp-attention tp / dp (attn_tp), TensorRT-LLM's
                                 attention DP 1; 0 = tp */
    bool embedding_whole;     /* the embedding table held whole by every rank (SGLang's
                                 VocabParallelEmbedding enable_tp=False under DP attention) */
    bool skip_mm_profiling;   /* vLLM --skip-mm-profiling: the multimodal encoder is not
                                 run by the profile (MEMORY.md 7.4) */
    uint64_t reserved_[KVP_RESERVED_WORDS - 2]; /* room for growth: zero, do not use (ABI) */
} kvp_estimate_settings;

/* What the estimate found, term by term, for reports and --explain.
 * Parameter counts are of the whole model (all ranks); bytes_* of one rank
 * (the busiest pipeline stage) unless named _total. */
typedef struct kvp_estimate_detail {
    /* parameters by part, whole model; MTP layers are counted apart and
     * excluded from the weights (engines load them only for MTP decoding) */
    uint64_t params_total;
    uint64_t params_embedding, params_lm_head, params_attention, params_mlp;
    uint64_t params_experts, params_shared_experts, params_router, params_mixer;
    uint64_t params_norm, params_vision, params_encoder, params_mtp_excluded;
    uint64_t buffer_elems;             /* non-parameters loaded with the weights: the rotary
                                          cos/sin cache (max positions x rotary dim), per stage */
    uint64_t weights_total_bytes;      /* whole model, all ranks, from the config */
    uint64_t weights_rank_bytes;       /* busiest rank, from the config */
    uint64_t weights_replicated_bytes; /* of weights_rank_bytes: held by every TP rank */
    uint64_t weights_exact_total_bytes;/* from safetensors (0 when not read) */
    char weights_format[128];          /* "bf16", "fp8 block-128; bf16: embeddings, lm_head, ..." */
    /* activation peak of the profiling forward, one rank */
    uint64_t activation_tokens;        /* max_num_tokens used */
    uint64_t activation_layer_bytes;   /* largest live set inside one decoder layer + residual */
    uint64_t activation_logits_bytes;  /* sampler / logits of the profile (vLLM's dummy sampler) */
    char activation_phase[32];         /* which phase set the peak: "mlp", "moe", "logits", ... */
    uint32_t cuda_graph_count;         /* captured batch sizes (0: no graphs) */
    uint32_t cuda_graph_max_batch;     /* the largest captured batch */
} kvp_estimate_detail;

/* Estimate the memory facts of one rank (the busiest pipeline stage of
 * `settings->tp` x `settings->pp`) of `model`:
 *   total_bytes       = settings->total_bytes (not estimated here);
 *   weights_bytes     from the config (parameter count per family, MoE, MLA,
 *                     Mamba/GDN, tied embeddings, quantization_config), or the
 *                     exact total from safetensors headers in settings->model_dir
 *                     split per rank in the config's proportions (weights_source
 *                     says which; KVP_MEM_EST_WEIGHTS is cleared then);
 *   activation_bytes, non_torch_bytes, cuda_graph_bytes: the sums of the
 *                     engine's start-up terms charged before the KV cache is
 *                     sized (settings->engine), one term each in out->terms[]
 *                     with its mark (exact / bounded / estimated), where it is
 *                     charged and its source; out->headroom_need_bytes sums
 *                     the terms that must fit after sizing;
 *   cuda_graph_bytes  0 (bit not set) unless settings->cuda_graphs.
 * docs/memory.md gives every term per engine; docs/gpus.md the weights.
 * `out` is fully overwritten (zeroed on failure). `detail` (may be NULL)
 * receives every intermediate figure. Errors: KVP_INVALID_ARG (NULL model /
 * settings / out, total_bytes 0, absurd tp or max_num_tokens), KVP_CONFIG
 * (pp above the layer count, a config without hidden size or layers, a
 * malformed key), KVP_OVERFLOW, KVP_IO / KVP_SYNTAX from the safetensors
 * files (a missing shard is an error, not a silent fallback; a folder with no
 * safetensors at all is not). Thread-safe: no shared state. */
KVP_API KVP_NODISCARD kvp_status kvp_memory_estimate_detail(const kvp_model *model,
                                                    const kvp_estimate_settings *settings,
                                                    kvp_memory_facts *out,
                                                    kvp_estimate_detail *detail, kvp_error *err);

/* kvp_memory_estimate_detail without the detail. */
KVP_API KVP_NODISCARD kvp_status kvp_memory_estimate(const kvp_model *model,
                                             const kvp_estimate_settings *settings,
                                             kvp_memory_facts *out, kvp_error *err);

/* Weight bytes of the whole model (all ranks, MTP layers excluded, the
 * rotary cache counted once) from the config alone; `weights_dtype` AUTO
 * follows the checkpoint's quantization_config, any other value puts the
 * linear layers at that dtype. */
KVP_API KVP_NODISCARD kvp_status kvp_weights_estimate(const kvp_model *model, kvp_dtype weights_dtype,
                                              uint64_t *out_bytes, kvp_error *err);

#ifdef __cplusplus
}
#endif
#endif
