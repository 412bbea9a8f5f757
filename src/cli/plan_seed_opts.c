/*
 * plan_seed_opts.c — `kvplan plan` options for the creator's settings that
 * had none (context parallelism and helix, sparse attention, disaggregated
 * routes, the Mamba manager preference, the attention workspace rate, the SM
 * version, chunked prefill, the KV connector, rule sets) and for the rules
 * around the creator (KV-cache compression, LoRA, the multimodal encoder's
 * profiling batch): their help, the rules run before and after the build, and
 * what they print. The values come through the option table (options_table.c).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "plan_seed_opts.h"

int kvp_cli_plan_seed_prepare(const kvp_model *model, kvp_deploy_settings *d,
                              kvp_cli_seed_opts *x, bool json) {
    kvp_error err;
    kvp_error_clear(&err);
    const kvp_option_rules *r = x->rules;
    if (r->has_mm) {
        if (kvp_mm_encoder_profile_batch(r->mm, r->mm_count, r->mm_max_tokens,
                                         r->mm_batch ? r->mm_batch : 1, &x->mm_profile,
                                         &err) != KVP_OK)
            return kvp_cli_report_error(&err, json);
        uint64_t dim = r->mm_embedding_dim ? r->mm_embedding_dim
                                           : kvp_model_get_info(model)->hidden_size;
        if (kvp_mm_encoder_output_bytes(&x->mm_profile, dim, kvp_model_get_info(model)->dtype,
                                        &d->mm_profiled_output_bytes, &err) != KVP_OK)
            return kvp_cli_report_error(&err, json);
    }
    return -1;
}

int kvp_cli_plan_seed_after_build(const kvp_model *model, const kvp_deploy_settings *d,
                                  const kvp_plan *plan, kvp_cli_seed_opts *x, bool json) {
    kvp_error err;
    kvp_error_clear(&err);
    const kvp_manager_plan *t = &plan->managers[KVP_ROLE_TARGET];
    kvp_notes_clear(&x->notes);
    const kvp_option_rules *r = x->rules;
    if (r->compression.algorithm != KVP_COMPRESSION_NONE &&
        kvp_kv_compression_manager(&r->compression, d->helix_cp, t->kind, t->kv_dtype,
                                   d->sm_version, x->enable_block_reuse, d->spec_mode, false,
                                   &x->compression_effect, &x->notes, &err) != KVP_OK)
        return kvp_cli_report_error(&err, json);
    if (r->has_lora) {
        if (kvp_lora_cache_size(model, &r->lora, d->attention_dp ? 1 : d->tp, &x->lora_cache,
                                &x->notes, &err) != KVP_OK)
            return kvp_cli_report_error(&err, json);
    }
    return -1;
}
