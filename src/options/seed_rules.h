/* seed_rules.h — the rules around TensorRT-LLM's creator that `kvplan plan`
 * runs (compression, LoRA, the multimodal encoder's profiling batch), on the
 * option table's settings (kvp_option_rules, read in place); see seed_rules.c. */
#ifndef KVP_OPTIONS_SEED_RULES_H
#define KVP_OPTIONS_SEED_RULES_H

#include "kvplan/plan.h"
#include "options_struct.h" /* kvp_option_rules */
#include "settle.h"

/* The rules around the creator: their settings are the table's (`rules`, read
 * in place), the rest what the checks computed from them. */
typedef struct kvp__seed_rules {
    const kvp_option_rules *rules; /* the table's --kv-cache-compression, --lora-*, --mm-* */
    const char *engine_version;   /* as given; NULL = default */
    kvp_compression_effect compression_effect;
    bool enable_block_reuse;      /* the KV config's, before the checks */
    kvp_lora_cache lora_cache;
    kvp_mm_profile mm_profile;
    kvp_notes notes;
} kvp__seed_rules;

/* Before the creator: the multimodal profiling batch and the output it retains
 * (fills d->mm_profiled_output_bytes). The rule's own error otherwise. */
kvp_status kvp__seed_rules_prepare(const kvp_model *model, kvp_deploy_settings *d,
                                   kvp__seed_rules *x, kvp_error *err);
/* After the build: compression and LoRA rules, with the creator's settings as
 * resolved (kvp_deploy_result.trtllm). The rule's own error otherwise. */
kvp_status kvp__seed_rules_after_build(const kvp_model *model, const kvp_deploy_settings *d,
                                       const kvp_plan *plan, kvp__seed_rules *x, kvp_error *err);

/* The creator's settings: the table's (TensorRT-LLM's kvp_deploy_settings),
 * with the shared point (tp, pp, the length, the KV dtype). An unknown KV
 * dtype is named as typed. */
kvp_status kvp__seed_settings(const kvp_options *t, kvp_deploy_settings *d, kvp_error *err);

/* The creator's deployment (deploy.h) of the table's settings `t` and the
 * creator's `d`: the memory from --kv-budget alone, or from exactly one of
 * --probe (the live device), --gpu (looked up once, in `catalog` first) and
 * --gpu-mem, with the measured terms; TP x PP within --gpus. *set gets the
 * GPU and the source ("probe", "catalogue", "--gpu-mem"; zeroed with a
 * budget); `model_dir` (may be NULL) the checkpoint folder for exact weights. */
kvp_status kvp__seed_deployment(const kvp_options *t, const kvp_deploy_settings *d,
                                const char *catalog, const char *model_dir, kvp__settled *set,
                                kvp_deployment *dep, kvp_error *err);

#endif
