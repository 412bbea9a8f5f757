/*
 * deploy_llamacpp.c — what the pipeline reads of llama.cpp through its record
 * (issue 27 item 1; src/engines/engine_ops.h "neutral"): the memory profile,
 * the capacity of a plan and the plan JSON's engine_details.
 */
#include <stdio.h>
#include <string.h>

#include "engine_ops.h"
#include "policy_internal.h"

/* llama.cpp allocates what it is asked for and must fit beside one ubatch's
 * compute buffer (n_ubatch, 512 by default: common.h). */
void kvp__llamacpp_profile(const kvp__engine_profile_in *in, kvp__engine_profile *k) {
    const kvp_policy_settings *s = in->policy;
    memset(k, 0, sizeof *k);
    k->max_num_tokens = s->n_ubatch ? s->n_ubatch : 512;
    k->max_batch_size = s->max_num_seqs;
    k->flash_attn = s->flash_attn;
    k->n_ctx = s->n_ctx ? s->n_ctx : kvp_model_get_info(in->model)->max_position_embeddings;
}

/* llama.cpp allocates what it is asked for: the question is whether
 * weights + KV + compute fit the device. */
kvp_status kvp__llamacpp_capacity(const kvp_policy_result *r, kvp__engine_capacity *c,
                                  kvp_error *err) {
    const kvp_engine_report *rep = &r->report;
    c->tokens = rep->cells;
    c->blocks = rep->cells;
    c->block_tokens = 1; /* one cell per token */
    c->max_sequences = r->n_seq_max;
    c->batch_limit = r->n_seq_max;
    c->longest_tokens = r->n_ctx_seq;
    kvp__strlcpy(c->budget_formula, "none: llama.cpp allocates what --ctx-size and --parallel ask for",
                 sizeof c->budget_formula);
    snprintf(c->binding, sizeof c->binding, "--parallel slots (%u)", r->n_seq_max);
    if (!c->have_mem) return KVP_OK;
    uint64_t fixed = 0, need = 0;
    bool ok = kvp__add_u64(c->weights_bytes, c->activation_bytes, &fixed) &&
              kvp__add_u64(fixed, c->runtime_bytes, &fixed) &&
              kvp__add_u64(fixed, c->kv_bytes, &need);
    c->budget_bytes = ok && c->total_bytes > fixed ? c->total_bytes - fixed : 0;
    kvp__strlcpy(c->budget_formula, "total - weights - compute - runtime (llama.cpp "
                                    "allocates the KV it is asked for)",
                 sizeof c->budget_formula);
    if (ok && need <= c->total_bytes) return KVP_OK;
    kvp_error_clear(err);
    err->code = KVP_INFEASIBLE;
    kvp__strlcpy(err->key, "total_bytes", sizeof err->key);
    snprintf(err->message, sizeof err->message,
             "GPU memory: weights %.2f GiB + KV %.2f GiB + compute and runtime %.2f GiB "
             "exceed %.2f GiB",
             (double)c->weights_bytes / 1073741824.0, (double)c->kv_bytes / 1073741824.0,
             (double)(c->activation_bytes + c->runtime_bytes) / 1073741824.0,
             (double)c->total_bytes / 1073741824.0);
    return KVP_INFEASIBLE;
}

const kvp__engine_detail kvp__llamacpp_details[] = {
    KVP__DETAIL("n_ctx", n_ctx),
    KVP__DETAIL("n_ctx_seq", n_ctx_seq),
    KVP__DETAIL("n_seq_max", n_seq_max),
    KVP__DETAIL("n_stream", n_stream),
    KVP__DETAIL("type_k", kv_dtype_name),
    KVP__DETAIL("type_v", type_v_name),
    KVP__DETAIL("kv_layers", main_layers),
    KVP__DETAIL_IF("swa_cells", swa_tokens, swa_layers),
    KVP__DETAIL_IF("swa_layers", swa_layers, swa_layers),
    KVP__DETAIL_IF("swa_k_size_bytes", swa_k_bytes, swa_layers),
    KVP__DETAIL_IF("swa_v_size_bytes", swa_v_bytes, swa_layers),
    KVP__DETAIL_IF("recurrent_cells", recurrent_cells, recurrent_layers),
    KVP__DETAIL_IF("recurrent_r_size_bytes", recurrent_r_bytes, recurrent_layers),
    KVP__DETAIL_IF("recurrent_s_size_bytes", recurrent_s_bytes, recurrent_layers),
    KVP__DETAIL_IF("indexer_kv_size_bytes", indexer_bytes, indexer_layers),
    KVP__DETAIL_IF("indexer_layers", indexer_layers, indexer_layers),
    {NULL, 0, KVP__DETAIL_NONE, 0, KVP__DETAIL_NONE},
};
