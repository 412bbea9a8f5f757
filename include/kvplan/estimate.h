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

typedef struct kvp_estimate_settings {
    uint32_t tp;              /* 0 -> 1 */
    uint32_t pp;              /* 0 -> 1 */
    uint64_t total_bytes;     /* GPU total (from --gpu / --gpu-mem / probe); required */
    uint64_t max_num_tokens;  /* tokens of the profiling forward pass; 0 -> 8192 */
    uint32_t max_batch_size;  /* 0 -> 2048 */
    bool cuda_graphs;         /* count CUDA-graph memory */
    const char *model_dir;    /* folder with *.safetensors for exact weights; NULL = none */
    kvp_dtype weights_dtype;  /* AUTO = from the config's dtype / quantization_config */
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
    uint64_t weights_total_bytes;      /* whole model, all ranks, from the config */
    uint64_t weights_rank_bytes;       /* busiest rank, from the config */
    uint64_t weights_replicated_bytes; /* of weights_rank_bytes: held by every TP rank */
    uint64_t weights_exact_total_bytes;/* from safetensors (0 when not read) */
    char weights_format[128];          /* "bf16", "fp8 block-128; bf16: embeddings, lm_head, ..." */
    /* activation peak of the profiling forward, one rank */
    uint64_t activation_tokens;        /* max_num_tokens used */
    uint64_t activation_layer_bytes;   /* largest live set inside one decoder layer */
    uint64_t activation_logits_bytes;  /* lm_head output + sampler temporaries */
    uint64_t activation_workspace_bytes; /* fixed library workspaces (cuBLAS, attention) */
    char activation_phase[32];         /* which phase set the peak: "mlp", "moe", "attention", ... */
    /* runtime memory outside the allocator */
    uint64_t non_torch_context_bytes;  /* CUDA context and loaded kernel images */
    uint64_t non_torch_comm_bytes;     /* NCCL channels + all-reduce workspace (tp*pp > 1) */
    uint32_t cuda_graph_count;         /* captured batch sizes */
} kvp_estimate_detail;

/* Like kvp_memory_estimate, and also fills *detail (may be NULL). */
KVP_NODISCARD kvp_status kvp_memory_estimate_detail(const kvp_model *model,
                                                    const kvp_estimate_settings *settings,
                                                    kvp_memory_facts *out,
                                                    kvp_estimate_detail *detail, kvp_error *err);

/* Fill every term of *out that the estimate covers (total from settings,
 * weights, activation, non-torch, CUDA graphs) and set `estimated` bits. */
KVP_NODISCARD kvp_status kvp_memory_estimate(const kvp_model *model,
                                             const kvp_estimate_settings *settings,
                                             kvp_memory_facts *out, kvp_error *err);

/* Weight bytes of the whole model (all ranks) from the config alone. */
KVP_NODISCARD kvp_status kvp_weights_estimate(const kvp_model *model, kvp_dtype weights_dtype,
                                              uint64_t *out_bytes, kvp_error *err);

#ifdef __cplusplus
}
#endif
#endif
