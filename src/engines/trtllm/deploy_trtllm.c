/*
 * deploy_trtllm.c — what the pipeline reads of TensorRT-LLM through its record
 * (issue 27 item 1; src/engines/engine_ops.h "neutral"): the memory profile of
 * the creator's settings. The rest is the creator's (creator_plans).
 */
#include <stdint.h>
#include <string.h>

#include "engine_ops.h"
#include "policy_internal.h"

void kvp__trtllm_profile(const kvp__engine_profile_in *in, kvp__engine_profile *k) {
    memset(k, 0, sizeof *k);
    /* The seed: free memory after loading feeds the estimation pass; a measured
     * non-torch term (total_used - torch_used) is taken after the graphs exist. */
    k->max_num_tokens = in->creator_max_num_tokens;
    k->max_batch_size = in->creator_max_batch_size;
    k->max_seq_len = in->creator_max_seq_len;
    k->cuda_graphs = in->creator_max_cuda_graph_batch_size > 0 && !in->startup->enforce_eager;
    k->cuda_graph_max_batch = (uint32_t)(in->creator_max_cuda_graph_batch_size < UINT32_MAX
                                             ? in->creator_max_cuda_graph_batch_size
                                             : UINT32_MAX);
    k->free_is_held = true;
    k->ep = in->memory_ep ? in->memory_ep : in->startup->ep_size; /* --ep_size, as SGLang's */
    /* The experts span the TP ranks: Mapping sets moe_tp_size = tp_size //
     * moe_ep_size and raises ValueError unless moe_tp * moe_ep (* cluster) ==
     * tp_size (tensorrt_llm/mapping.py : Mapping.__init__; docs/memory.md R):
     * an EP that does not divide TP is refused by the estimate (issue 29). */
    k->experts_span_tp = true;
    /* Attention DP: the attention and MLA modules run with tp_size 1 (STARTUP.md
     * T-PAR-1, _torch/modules), so every rank holds their whole weights. The
     * embedding and the LM head are left split: their modules' mapping under
     * attention DP is in no reference. */
    if (in->creator_attention_dp) k->attention_ranks = 1;
}
