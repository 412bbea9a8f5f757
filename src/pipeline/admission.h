/* admission.h — the engines' admission rules inside kvp_deploy_plan (kvp__ tier). */
#ifndef KVP_PLAN_ADMISSION_H
#define KVP_PLAN_ADMISSION_H

#include "kvplan/deploy.h"

/* Fill out->admission from a planned deployment (out->status == KVP_OK). A bad
 * request shape (isl, osl or max_new_tokens against max_seq_len) sets
 * admission.status KVP_INVALID_ARG naming the settings field; a reservation no
 * pool can ever hold sets KVP_INFEASIBLE with the largest length that fits. The
 * deployment itself stays planned (a search over max_seq_len meets both). */
void kvp__admission(const kvp_deployment *dep, kvp_deploy_result *out);

/* Blocks one request that holds nothing yet reserves in one pool until it
 * finishes (KVCacheManager::getRemainingBlocksToCompletion): context blocks
 * floor(min(P, W) / tpb) once, the rest of ceil(min(T, W) / tpb) once per beam,
 * for T = P + max_new_tokens tokens. W = 0: no window. False on overflow. */
bool kvp__reserve_blocks(uint64_t prompt, uint64_t total, uint64_t window, uint32_t tpb,
                         uint32_t beam, uint64_t *out);

/* Sum over held lengths x = first .. last of ceil(min(x, W) / tpb): the blocks a
 * request holds summed over the steps of its life. W = 0: no window. False on
 * overflow or first > last. */
bool kvp__held_block_steps(uint64_t first, uint64_t last, uint64_t window, uint32_t tpb,
                           uint64_t *out);

/* Requests of P prompt and O output tokens that run at once in `blocks` blocks
 * when nothing is reserved and the requests are staggered over their lives:
 * floor(blocks x O / sum_{k=0}^{O-1} ceil(min(P + k, W) / tpb)). UINT64_MAX
 * when a request holds no block. False on overflow. */
bool kvp__steady_state(uint64_t blocks, uint64_t prompt, uint64_t output, uint64_t window,
                       uint32_t tpb, uint64_t *out);

#endif
