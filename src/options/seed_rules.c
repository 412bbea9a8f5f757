/*
 * seed_rules.c — the rules around TensorRT-LLM's creator in `kvplan plan`
 * (KV-cache compression, LoRA, the multimodal encoder's profiling batch): run
 * before and after the build on the option table's values (options_table.c).
 * Library rules: a status and an error, never a line printed (the CLI prints).
 */
#include "seed_rules.h"

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
