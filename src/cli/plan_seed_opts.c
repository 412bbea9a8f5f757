/*
 * plan_seed_opts.c — `kvplan plan` options for the creator's settings that
 * had none (context parallelism and helix, sparse attention, disaggregated
 * routes, the Mamba manager preference, the attention workspace rate, the SM
 * version, chunked prefill, the KV connector, rule sets) and for the rules
 * around the creator (KV-cache compression, LoRA, the multimodal encoder's
 * profiling batch), plus what those rules print.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "plan_seed_opts.h"

void kvp_cli_plan_seed_usage(FILE *out) {
    fputs("engine settings (TensorRT-LLM):\n"
          "  --cp N  --helix              context parallelism; cp_type HELIX (needs cp > 1)\n"
          "  --sparse-attention ALGO      sparse attention algorithm (qsa, skip_softmax, dsa, ...)\n"
          "  --disaggregated  --transceiver-backend NIXL|UCX|...  --transceiver-runtime PYTHON|CPP|auto\n"
          "  --mamba-manager-preference CPP|MIXED   (TLLM_MAMBA_MANAGER_PREFERENCE)\n"
          "  --use-py-mamba               force the mixed hybrid manager (TRTLLM_USE_PY_MAMBA=1)\n"
          "  --attn-backend NAME          TRTLLM (default), FLASHINFER, VANILLA, ...\n"
          "  --mla-workspace-rate BYTES   attention workspace bytes per token (fp8 context MLA)\n"
          "  --workspace-not-chunk-bounded  --fp8-context-mla-kv-len-cap N\n"
          "  --sm-version N (90)  --enable-chunked-prefill  --chunk-size N\n"
          "  --chunked-prefill-buffer-batch-size N  --disable-overlap-scheduler\n"
          "  --kv-connector  --max-input-len N  --skip-estimation  --avg-seq-len N\n"
          "  --engine-version 2026|2025   TensorRT-LLM rule set (2025: V2 window pools without\n"
          "                               the generation block, DFLASH drafts as costed)\n"
          "  --max-util-for-resume F      V2 resume threshold (1.0)\n"
          "  --kv-cache-compression quantization_for_cold_page|triattention\n"
          "  --compression-quant nvfp4  --triattention-union-eviction\n"
          "  --lora-rank N  --max-loras N  --max-cpu-loras N  --lora-target-modules M[,M...]\n"
          "  --lora-shared-expert-size N  shared-expert size the adapter states (global)\n"
          "  --mm-encoder-max-tokens N  --mm-encoder-batch-size N\n"
          "  --mm-tokens-per-item MOD=N[,MOD=N...]  --mm-embedding-dim N (hidden_size)\n"
          "  --mm-output-budget BYTES  --mm-encoder-cache BYTES\n",
          out);
}

static bool p_u64(const char *opt, const char *v, uint64_t *out) {
    return kvp_cli_u64_count(opt, v, out);
}

static bool split_list(const char *opt, char *buf, const char **items, size_t cap, size_t *n) {
    *n = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (!*tok || *n == cap) {
            kvp_cli_fail("%s: expected 1 to %zu comma-separated names", opt, cap);
            return false;
        }
        items[(*n)++] = tok;
    }
    if (*n == 0) {
        kvp_cli_fail("%s: expected at least one name", opt);
        return false;
    }
    return true;
}

static bool mm_items(kvp_cli_seed_opts *x, const char *v) {
    snprintf(x->mm_buf, sizeof x->mm_buf, "%s", v);
    x->mm_count = 0;
    for (char *tok = strtok(x->mm_buf, ","); tok; tok = strtok(NULL, ",")) {
        char *eq = strchr(tok, '=');
        if (!eq || x->mm_count == KVP_CLI_MM_MAX) {
            kvp_cli_fail("--mm-tokens-per-item: expected MODALITY=TOKENS[,MODALITY=TOKENS...] "
                         "(at most %d), got '%s'",
                         KVP_CLI_MM_MAX, tok);
            return false;
        }
        *eq = '\0';
        uint64_t n;
        /* A zero count is the seed's own error, reported by the rule. */
        if (strcmp(eq + 1, "0") == 0)
            n = 0;
        else if (!kvp_cli_u64_count("--mm-tokens-per-item", eq + 1, &n))
            return false;
        x->mm[x->mm_count].modality = tok;
        x->mm[x->mm_count].tokens_per_item = n;
        x->mm_count++;
    }
    return true;
}

int kvp_cli_plan_seed_option(int argc, char **argv, int *i, kvp_deploy_settings *d,
                             kvp_kv_config *kv, kvp_cli_seed_opts *x) {
    const char *a = argv[*i], *v = NULL;
    bool bad = false;
    uint64_t n;
#define VALUE(name) (kvp_cli_opt(argc, argv, i, name, &v, &bad))
#define BAD KVP_EXIT_BAD_INPUT
    if (kvp_cli_flag(a, "--helix")) {
        d->helix_cp = true;
    } else if (kvp_cli_flag(a, "--disaggregated")) {
        d->is_disagg = true;
    } else if (kvp_cli_flag(a, "--use-py-mamba")) {
        d->force_mixed_hybrid = true;
    } else if (kvp_cli_flag(a, "--workspace-not-chunk-bounded")) {
        d->workspace_not_chunked_prefill_bounded = true;
    } else if (kvp_cli_flag(a, "--enable-chunked-prefill")) {
        d->enable_chunked_prefill = true;
    } else if (kvp_cli_flag(a, "--disable-overlap-scheduler")) {
        d->disable_overlap_scheduler = true;
    } else if (kvp_cli_flag(a, "--kv-connector")) {
        d->has_kv_connector = true;
    } else if (kvp_cli_flag(a, "--skip-estimation")) {
        d->skip_estimation = true;
    } else if (kvp_cli_flag(a, "--triattention-union-eviction")) {
        x->compression.triattention_union_eviction = true;
    } else if (VALUE("--cp")) {
        if (bad || !kvp_cli_u32("--cp", v, 1, 65536, &d->cp)) return BAD;
    } else if (VALUE("--sparse-attention")) {
        if (bad) return BAD;
        d->sparse_algorithm = v;
    } else if (VALUE("--transceiver-backend")) {
        if (bad) return BAD;
        d->transceiver_backend = v;
    } else if (VALUE("--transceiver-runtime")) {
        if (bad) return BAD;
        d->transceiver_runtime = v;
    } else if (VALUE("--mamba-manager-preference")) {
        if (bad) return BAD;
        /* The seed upper-cases the value; anything else warns and keeps the default. */
        d->mamba_preference = !strcasecmp(v, "cpp")     ? KVP_MAMBA_PREF_CPP
                              : !strcasecmp(v, "mixed") ? KVP_MAMBA_PREF_MIXED
                                                        : KVP_MAMBA_PREF_OTHER;
    } else if (VALUE("--attn-backend")) {
        if (bad) return BAD;
        d->attn_backend = v;
    } else if (VALUE("--mla-workspace-rate")) {
        if (bad || !kvp_cli_bytes("--mla-workspace-rate", v, &d->attention_workspace_bytes_per_token))
            return BAD;
    } else if (VALUE("--fp8-context-mla-kv-len-cap")) {
        if (bad || !p_u64("--fp8-context-mla-kv-len-cap", v, &kv->fp8_context_mla_kv_len_cap))
            return BAD;
        kv->has_fp8_context_mla_kv_len_cap = true;
    } else if (VALUE("--sm-version")) {
        if (bad || !kvp_cli_u32("--sm-version", v, 70, 200, &d->sm_version)) return BAD;
    } else if (VALUE("--chunk-size")) {
        if (bad || !p_u64("--chunk-size", v, &d->chunk_size)) return BAD;
    } else if (VALUE("--chunked-prefill-buffer-batch-size")) {
        if (bad || !p_u64("--chunked-prefill-buffer-batch-size", v,
                          &d->chunked_prefill_buffer_batch_size))
            return BAD;
    } else if (VALUE("--max-input-len")) {
        if (bad || !p_u64("--max-input-len", v, &d->max_input_len)) return BAD;
    } else if (VALUE("--avg-seq-len")) {
        if (bad || !p_u64("--avg-seq-len", v, &kv->avg_seq_len)) return BAD;
    } else if (VALUE("--engine-version")) {
        if (bad) return BAD;
        if (kvp_trtllm_rules_parse(v, &d->trtllm_rules) != KVP_OK) {
            kvp_cli_fail("--engine-version: '%s' is not a TensorRT-LLM rule set (2026, 2025)", v);
            return BAD;
        }
        x->engine_version = v;
    } else if (VALUE("--max-util-for-resume")) {
        if (bad || !kvp_cli_fraction("--max-util-for-resume", v, &d->max_util_for_resume))
            return BAD;
    } else if (VALUE("--kv-cache-compression")) {
        if (bad) return BAD;
        if (kvp_compression_parse(v, &x->compression.algorithm) != KVP_OK ||
            x->compression.algorithm == KVP_COMPRESSION_NONE) {
            kvp_cli_fail("--kv-cache-compression: '%s' is not quantization_for_cold_page or "
                         "triattention",
                         v);
            return BAD;
        }
        if (!x->compression.quant) x->compression.quant_nvfp4 = true; /* the seed's default */
    } else if (VALUE("--compression-quant")) {
        if (bad) return BAD;
        x->compression.quant = v;
        x->compression.quant_nvfp4 = strcmp(v, "nvfp4") == 0;
    } else if (VALUE("--lora-rank")) {
        /* 0 is parsed here and refused by the rule, in the rule's words. */
        if (bad || !kvp_cli_u32("--lora-rank", v, 0, 1u << 16, &x->lora.max_lora_rank))
            return BAD;
        x->has_lora = true;
    } else if (VALUE("--max-loras")) {
        if (bad || !kvp_cli_u32("--max-loras", v, 1, 1u << 16, &x->lora.max_loras)) return BAD;
        x->lora.has_max_loras = true;
        x->has_lora = true;
    } else if (VALUE("--max-cpu-loras")) {
        if (bad || !kvp_cli_u32("--max-cpu-loras", v, 1, 1u << 16, &x->lora.max_cpu_loras))
            return BAD;
        x->lora.has_max_cpu_loras = true;
        x->has_lora = true;
    } else if (VALUE("--lora-target-modules")) {
        if (bad) return BAD;
        snprintf(x->lora_buf, sizeof x->lora_buf, "%s", v);
        if (!split_list("--lora-target-modules", x->lora_buf, x->lora_modules,
                        KVP_LORA_MAX_MODULES, &x->lora.module_count))
            return BAD;
        x->lora.target_modules = x->lora_modules;
        x->has_lora = true;
    } else if (VALUE("--lora-shared-expert-size")) {
        if (bad || !p_u64("--lora-shared-expert-size", v, &x->lora.shared_expert_global_size))
            return BAD;
        x->has_lora = true;
    } else if (VALUE("--mm-encoder-max-tokens")) {
        if (bad || !p_u64("--mm-encoder-max-tokens", v, &x->mm_max_tokens)) return BAD;
        x->has_mm = true;
    } else if (VALUE("--mm-encoder-batch-size")) {
        if (bad || !p_u64("--mm-encoder-batch-size", v, &x->mm_batch)) return BAD;
        x->has_mm = true;
    } else if (VALUE("--mm-tokens-per-item")) {
        if (bad || !mm_items(x, v)) return BAD;
        x->has_mm = true;
    } else if (VALUE("--mm-embedding-dim")) {
        if (bad || !p_u64("--mm-embedding-dim", v, &x->mm_embedding_dim)) return BAD;
    } else if (VALUE("--mm-output-budget")) {
        if (bad || !kvp_cli_bytes("--mm-output-budget", v, &d->mm_output_budget_bytes)) return BAD;
        x->has_mm = true;
    } else if (VALUE("--mm-encoder-cache")) {
        if (bad || !kvp_cli_bytes("--mm-encoder-cache", v, &n)) return BAD;
        d->mm_encoder_cache_max_bytes = n;
        d->mm_encoder_cache_active = n > 0;
        x->has_mm = true;
    } else {
        return 0;
    }
#undef VALUE
#undef BAD
    return -1;
}

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
