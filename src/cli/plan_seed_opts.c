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
    if (x->has_mm) {
        if (kvp_mm_encoder_profile_batch(x->mm, x->mm_count, x->mm_max_tokens,
                                         x->mm_batch ? x->mm_batch : 1, &x->mm_profile,
                                         &err) != KVP_OK)
            return kvp_cli_report_error(&err, json);
        uint64_t dim = x->mm_embedding_dim ? x->mm_embedding_dim
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
    if (x->compression.algorithm != KVP_COMPRESSION_NONE &&
        kvp_kv_compression_manager(&x->compression, d->helix_cp, t->kind, t->kv_dtype,
                                   d->sm_version, x->enable_block_reuse, d->spec_mode, false,
                                   &x->compression_effect, &x->notes, &err) != KVP_OK)
        return kvp_cli_report_error(&err, json);
    if (x->has_lora) {
        if (kvp_lora_cache_size(model, &x->lora, d->attention_dp ? 1 : d->tp, &x->lora_cache,
                                &x->notes, &err) != KVP_OK)
            return kvp_cli_report_error(&err, json);
    }
    return -1;
}

void kvp_cli_plan_seed_print(const kvp_cli_seed_opts *x, const kvp_deploy_settings *d,
                             const kvp_plan *plan, FILE *f) {
    const kvp_manager_plan *t = &plan->managers[KVP_ROLE_TARGET];
    bool any = x->compression_effect.active || x->has_lora || x->has_mm ||
               d->trtllm_rules != KVP_TRTLLM_RULES_2026 || x->engine_version;
    if (!any) return;
    fputs("\nengine rules\n", f);
    fprintf(f, "  TensorRT-LLM rule set %s\n", kvp_trtllm_rules_name(d->trtllm_rules));
    if (x->compression_effect.active) {
        if (x->compression_effect.cold_page_dtype == KVP_DTYPE_NVFP4) {
            uint64_t bpt = t->cost.slope_bytes_per_token, kv = 0, fp4 = 0;
            for (uint32_t i = 0; i < t->pool_count; i++) kv += t->pools[i].bytes_per_token;
            (void)bpt;
            /* An nvfp4 page: half a byte a value plus one fp8 scale per 16 values. */
            uint64_t elems = kv;
            if (kvp_dtype_bytes(t->kv_dtype, 1, &bpt) == KVP_OK && bpt) elems = kv / bpt;
            fp4 = (elems + 1) / 2 + (elems + 15) / 16;
            fprintf(f, "  KV-cache compression quantization_for_cold_page: GPU pools unchanged; "
                       "cold pages move to the host tier as nvfp4 (%llu B/token instead of "
                       "%llu)\n",
                    (unsigned long long)fp4, (unsigned long long)kv);
        } else {
            fprintf(f, "  KV-cache compression %s: GPU pools unchanged (token eviction runs "
                       "as a resource manager after the KV managers)\n",
                    kvp_compression_name(x->compression.algorithm));
        }
    }
    if (x->has_lora) {
        const kvp_lora_cache *l = &x->lora_cache;
        fprintf(f, "  LoRA: %llu module-layer slots (", (unsigned long long)l->num_lora_modules);
        for (size_t i = 0; i < l->module_count; i++)
            fprintf(f, "%s%s", i ? "," : "", l->modules[i]);
        fprintf(f, "), rank %u\n", x->lora.max_lora_rank);
        if (l->has_device)
            fprintf(f, "  LoRA device cache: num_device_module_layer = %u x %llu x %u = %llu\n",
                    x->lora.max_lora_rank, (unsigned long long)l->num_lora_modules,
                    x->lora.max_loras, (unsigned long long)l->device_module_layers);
        if (l->has_host)
            fprintf(f, "  LoRA host cache: num_host_module_layer = %u x %llu x %u = %llu\n",
                    x->lora.max_lora_rank, (unsigned long long)l->num_lora_modules,
                    x->lora.max_cpu_loras, (unsigned long long)l->host_module_layers);
        fprintf(f, "  LoRA module inputs: kv heads %u (max over layers), per rank: shared expert %llu, MoE %llu, "
                   "Mamba in_proj %llu / inner %llu, MoE latent %llu, experts %llu\n",
                l->num_kv_heads, (unsigned long long)l->shared_expert_hidden_size,
                (unsigned long long)l->moe_hidden_size, (unsigned long long)l->mamba_in_proj_size,
                (unsigned long long)l->mamba_inner_size, (unsigned long long)l->moe_latent_size,
                (unsigned long long)l->num_experts);
    }
    if (x->has_mm) {
        const kvp_mm_profile *p = &x->mm_profile;
        if (p->has_batch)
            fprintf(f, "  multimodal profiling batch: %llu %s item(s) x %llu tokens = %llu "
                       "tokens; retained output %llu B\n",
                    (unsigned long long)p->num_items, p->modality,
                    (unsigned long long)p->tokens_per_item, (unsigned long long)p->tokens,
                    (unsigned long long)d->mm_profiled_output_bytes);
        else
            fputs("  multimodal profiling batch: none (no modality fits the encoder budget)\n", f);
    }
    for (uint32_t i = 0; i < x->notes.count; i++) fprintf(f, "  note: %s\n", x->notes.text[i]);
}
