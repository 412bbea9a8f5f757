/*
 * seed_rules.c — the rules around TensorRT-LLM's creator in `kvplan plan`
 * (KV-cache compression, LoRA, the multimodal encoder's profiling batch): run
 * before and after the build on the option table's values (options_table.c).
 * Library rules: a status and an error, never a line printed (the CLI prints).
 */
#include <string.h>

#include "kvplan/probe.h"
#include "seed_rules.h"
#include "util.h"

kvp_status kvp__seed_rules_prepare(const kvp_model *model, kvp_deploy_settings *d,
                                   kvp__seed_rules *x, kvp_error *err) {
    const kvp_option_rules *r = x->rules;
    if (!r->has_mm) return KVP_OK;
    kvp_status st = kvp_mm_encoder_profile_batch(r->mm, r->mm_count, r->mm_max_tokens,
                                                 r->mm_batch ? r->mm_batch : 1, &x->mm_profile, err);
    if (st != KVP_OK) return st;
    uint64_t dim = r->mm_embedding_dim ? r->mm_embedding_dim : kvp_model_get_info(model)->hidden_size;
    return kvp_mm_encoder_output_bytes(&x->mm_profile, dim, kvp_model_get_info(model)->dtype,
                                       &d->mm_profiled_output_bytes, err);
}

kvp_status kvp__seed_rules_after_build(const kvp_model *model, const kvp_deploy_settings *d,
                                       const kvp_plan *plan, kvp__seed_rules *x, kvp_error *err) {
    const kvp_manager_plan *t = &plan->managers[KVP_ROLE_TARGET];
    kvp_notes_clear(&x->notes);
    const kvp_option_rules *r = x->rules;
    kvp_status st = KVP_OK;
    if (r->compression.algorithm != KVP_COMPRESSION_NONE)
        st = kvp_kv_compression_manager(&r->compression, d->helix_cp, t->kind, t->kv_dtype,
                                        d->sm_version, x->enable_block_reuse, d->spec_mode, false,
                                        &x->compression_effect, &x->notes, err);
    if (st == KVP_OK && r->has_lora)
        st = kvp_lora_cache_size(model, &r->lora, d->attention_dp ? 1 : d->tp, &x->lora_cache,
                                 &x->notes, err);
    return st;
}

kvp_status kvp__seed_settings(const kvp_options *t, kvp_deploy_settings *d, kvp_error *err) {
    const kvp_deployment *dep = &t->deployment;
    *d = dep->trtllm;
    d->tp = dep->point.tp;
    d->pp = dep->point.pp;
    d->max_seq_len = dep->point.max_seq_len;
    if (!dep->point.kv_dtype[0] || kvp_dtype_parse(dep->point.kv_dtype, &d->kv_dtype) == KVP_OK)
        return KVP_OK;
    const char *typed = kvp_options_typed(t, "--kv-dtype");
    return kvp__refuse(err, typed, "%s: unknown dtype '%s' (expected auto, fp16, bf16, fp8, nvfp4)",
                       typed, dep->point.kv_dtype);
}

kvp_status kvp__seed_deployment(const kvp_options *t, const kvp_deploy_settings *d,
                                const char *catalog, const char *model_dir, kvp__settled *set,
                                kvp_deployment *dep, kvp_error *err) {
    const kvp_deployment *td = &t->deployment;
    const kvp_deploy_memory *tm = &td->memory;
    memset(set, 0, sizeof *set);
    *dep = kvp_deployment_default();
    dep->point.engine = KVP_ENGINE_TRTLLM;
    dep->point.seq_len = td->point.seq_len;
    dep->admission = td->admission;
    dep->trtllm = *d;
    memcpy(dep->memory.cuda_graph_sizes, tm->cuda_graph_sizes, sizeof tm->cuda_graph_sizes);
    dep->memory.cuda_graph_size_count = tm->cuda_graph_size_count;
    dep->kv = td->kv;
    kvp_deploy_memory *mem = &dep->memory;
    mem->estimation_kv_bytes = tm->estimation_kv_bytes;
    bool gpu_mem = kvp_options_given(t, "--gpu-mem");
    if (kvp_options_given(t, "--kv-budget")) {
        if (t->gpu || gpu_mem || tm->has_peak || tm->has_weights || tm->has_non_torch)
            return kvp__refuse(err, "--kv-budget",
                          "--kv-budget plans from a budget directly; drop --gpu, --gpu-mem, "
                          "--peak, --weights and --non-torch");
        mem->kv_budget_bytes = tm->kv_budget_bytes;
        return KVP_OK;
    }
    uint32_t ranks = (d->tp ? d->tp : 1) * (d->pp ? d->pp : 1);
    if (t->gpus && ranks > t->gpus)
        return kvp__refuse(err, "--gpus", "TP x PP = %u ranks need %u GPUs, but --gpus gives %u per node",
                      ranks, ranks, t->gpus);
    if ((t->gpu != NULL) + gpu_mem + t->probe > 1)
        return kvp__refuse(err, "--gpu", "give one of --gpu, --gpu-mem or --probe");
    kvp_status st;
    if (t->probe) {
        /* Live figures: the planner budgets from what is free now on that device. */
        kvp_gpu_info g;
        if ((st = kvp_probe_device(t->device, &g, err)) != KVP_OK) return st;
        mem->total_bytes = g.total_bytes;
        mem->free_bytes = g.free_bytes;
        set->total_source = "probe";
    } else {
        /* The GPU looked up once, the memory source (settle.c). */
        if ((st = kvp__options_settle(t, catalog, set, err)) != KVP_OK) return st;
        mem->total_bytes = set->total_bytes;
        if ((st = kvp__settle_memory_source(mem, true, KVP__NAME_FLAGS, err)) != KVP_OK) return st;
    }
    if (tm->free_bytes && !t->probe) mem->free_bytes = tm->free_bytes;
    mem->has_weights = tm->has_weights;
    mem->weights_bytes = tm->weights_bytes;
    mem->has_peak = tm->has_peak;
    mem->peak_bytes = tm->peak_bytes;
    mem->has_activation_peak = tm->has_activation_peak;
    mem->activation_peak_bytes = tm->activation_peak_bytes;
    mem->has_non_torch = tm->has_non_torch;
    mem->non_torch_bytes = tm->non_torch_bytes;
    mem->has_cuda_graph = tm->has_cuda_graph;
    mem->cuda_graph_bytes = tm->cuda_graph_bytes;
    /* Exact weights from safetensors headers when MODEL is a checkpoint folder
     * (or a config.json inside one). */
    mem->model_dir = model_dir;
    return KVP_OK;
}
