/* plan_seed_opts.h — the rules around the creator in `kvplan plan` (compression,
 * LoRA, multimodal encoder): help, checks and report; see plan_seed_opts.c. The
 * option values come through the option table (kvplan/options.h). */
#ifndef KVP_CLI_PLAN_SEED_OPTS_H
#define KVP_CLI_PLAN_SEED_OPTS_H

#include <stdio.h>

#include "cli.h"
#include "kvplan/options.h"
#include "kvplan/plan.h"

#define KVP_CLI_MM_MAX KVP_OPTION_MM_MAX

typedef struct kvp_cli_seed_opts {
    const char *engine_version;   /* as given; NULL = default */
    kvp_kv_compression compression;
    kvp_compression_effect compression_effect;
    bool enable_block_reuse;      /* copied from the KV config before the checks */
    bool has_lora;
    kvp_lora_settings lora;
    kvp_lora_cache lora_cache;
    bool has_mm;
    uint64_t mm_max_tokens, mm_batch, mm_embedding_dim;
    kvp_mm_item mm[KVP_CLI_MM_MAX];
    size_t mm_count;
    kvp_mm_profile mm_profile;
    kvp_notes notes;
} kvp_cli_seed_opts;

/* Before the creator: the multimodal profiling batch and the output it retains
 * (fills d->mm_profiled_output_bytes). -1 to continue, else an exit status. */
int kvp_cli_plan_seed_prepare(const kvp_model *model, kvp_deploy_settings *d,
                              kvp_cli_seed_opts *x, bool json);
/* After the build: compression and LoRA rules, with the creator's settings as
 * resolved (kvp_deploy_result.trtllm). -1 to continue, else an exit status. */
int kvp_cli_plan_seed_after_build(const kvp_model *model, const kvp_deploy_settings *d,
                                  const kvp_plan *plan, kvp_cli_seed_opts *x, bool json);

#endif
