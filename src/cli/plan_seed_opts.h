/* plan_seed_opts.h — the rules around the creator in `kvplan plan` (compression,
 * LoRA, multimodal encoder): help, checks and report; see plan_seed_opts.c. The
 * option values come through the option table (kvplan/options.h). */
#ifndef KVP_CLI_PLAN_SEED_OPTS_H
#define KVP_CLI_PLAN_SEED_OPTS_H

#include <stdio.h>

#include "cli.h"
#include "options_struct.h" /* kvp_options' fields (opaque to library users) */
#include "kvplan/plan.h"

/* The rules around the creator: their settings are the table's (`rules`, read
 * in place), the rest what the checks computed from them. */
typedef struct kvp_cli_seed_opts {
    const kvp_option_rules *rules; /* the table's --kv-cache-compression, --lora-*, --mm-* */
    const char *engine_version;   /* as given; NULL = default */
    kvp_compression_effect compression_effect;
    bool enable_block_reuse;      /* the KV config's, before the checks */
    kvp_lora_cache lora_cache;
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
