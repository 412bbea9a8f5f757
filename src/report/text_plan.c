/* text_plan.c — the text of `kvplan plan` under TensorRT-LLM (the creator's
 * plan): the budget term by term (with --explain, the formula of each,
 * _cal_max_memory / KvCacheCreator in tensorrt_llm/_torch/pyexecutor/_util.py),
 * each pool's blocks, tokens and bytes, the capacity, the engine rules around
 * the creator, model-local caches and warnings. The CLI writes what this
 * renders (text_internal.h); the HTML page embeds the same text. */
#include <stdarg.h>
#include <stdio.h>

#include "accuracy.h"
#include "text_internal.h"
#include "util.h"

#define GIB 1073741824.0

/* The "engine rules" section: the rules around the creator (KV-cache compression,
 * LoRA, the multimodal profiling batch) and the rule set, nothing when none was used. */
static void rules_text(const kvp_render_rules *x, const kvp_deploy_settings *d, const kvp_plan *plan,
                       kvp_report_text *t) {
    static const kvp_render_rules none = {0};
    if (!x) x = &none;
    const kvp_manager_plan *tm = &plan->managers[KVP_ROLE_TARGET];
    bool eff_active = x->compression_effect && x->compression_effect->active;
    bool any = eff_active || x->lora || x->mm_profile || d->trtllm_rules != KVP_TRTLLM_RULES_2026 ||
               x->engine_version;
    if (!any) return;
    kvp_report_append(t, "\nengine rules\n");
    kvp_report_appendf(t, "  TensorRT-LLM rule set %s\n", kvp_trtllm_rules_name(d->trtllm_rules));
    if (eff_active) {
        if (x->compression_effect->cold_page_dtype == KVP_DTYPE_NVFP4) {
            uint64_t bpt = tm->cost.slope_bytes_per_token, kv = 0, fp4 = 0;
            for (uint32_t i = 0; i < tm->pool_count; i++) kv += tm->pools[i].bytes_per_token;
            (void)bpt;
            /* An nvfp4 page: half a byte a value plus one fp8 scale per 16 values. */
            uint64_t elems = kv;
            if (kvp_dtype_bytes(tm->kv_dtype, 1, &bpt) == KVP_OK && bpt) elems = kv / bpt;
            fp4 = (elems + 1) / 2 + (elems + 15) / 16;
            kvp_report_appendf(t, "  KV-cache compression quantization_for_cold_page: GPU pools unchanged; "
                       "cold pages move to the host tier as nvfp4 (%llu B/token instead of "
                       "%llu)\n",
                    (unsigned long long)fp4, (unsigned long long)kv);
        } else {
            kvp_report_appendf(t, "  KV-cache compression %s: GPU pools unchanged (token eviction runs "
                       "as a resource manager after the KV managers)\n",
                    kvp_compression_name(x->compression->algorithm));
        }
    }
    if (x->lora) {
        const kvp_lora_cache *l = x->lora_cache;
        kvp_report_appendf(t, "  LoRA: %llu module-layer slots (", (unsigned long long)l->num_lora_modules);
        for (size_t i = 0; i < l->module_count; i++)
            kvp_report_appendf(t, "%s%s", i ? "," : "", l->modules[i]);
        kvp_report_appendf(t, "), rank %u\n", x->lora->max_lora_rank);
        if (l->has_device)
            kvp_report_appendf(t, "  LoRA device cache: num_device_module_layer = %u x %llu x %u = %llu\n",
                    x->lora->max_lora_rank, (unsigned long long)l->num_lora_modules,
                    x->lora->max_loras, (unsigned long long)l->device_module_layers);
        if (l->has_host)
            kvp_report_appendf(t, "  LoRA host cache: num_host_module_layer = %u x %llu x %u = %llu\n",
                    x->lora->max_lora_rank, (unsigned long long)l->num_lora_modules,
                    x->lora->max_cpu_loras, (unsigned long long)l->host_module_layers);
        kvp_report_appendf(t, "  LoRA module inputs: kv heads %u (max over layers), per rank: shared expert %llu, MoE %llu, "
                   "Mamba in_proj %llu / inner %llu, MoE latent %llu, experts %llu\n",
                l->num_kv_heads, (unsigned long long)l->shared_expert_hidden_size,
                (unsigned long long)l->moe_hidden_size, (unsigned long long)l->mamba_in_proj_size,
                (unsigned long long)l->mamba_inner_size, (unsigned long long)l->moe_latent_size,
                (unsigned long long)l->num_experts);
    }
    if (x->mm_profile) {
        const kvp_mm_profile *p = x->mm_profile;
        if (p->has_batch)
            kvp_report_appendf(t, "  multimodal profiling batch: %llu %s item(s) x %llu tokens = %llu "
                       "tokens; retained output %llu B\n",
                    (unsigned long long)p->num_items, p->modality,
                    (unsigned long long)p->tokens_per_item, (unsigned long long)p->tokens,
                    (unsigned long long)d->mm_profiled_output_bytes);
        else
            kvp_report_append(t, "  multimodal profiling batch: none (no modality fits the encoder budget)\n");
    }
    for (uint32_t i = 0; x->notes && i < x->notes->count; i++)
        kvp_report_appendf(t, "  note: %s\n", x->notes->text[i]);
}


typedef struct outbuf {
    kvp_report_text *t;
    bool explain;
} outbuf;

static const char *gib(uint64_t b, char *buf, size_t n) {
    snprintf(buf, n, "%.2f GiB", (double)b / GIB);
    return buf;
}

static void explain(const outbuf *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void explain(const outbuf *o, const char *fmt, ...) {
    if (!o->explain) return;
    va_list ap;
    va_start(ap, fmt);
    kvp_report_append(o->t, "      = ");
    char line[1024];
    vsnprintf(line, sizeof line, fmt, ap);
    kvp_report_append(o->t, line);
    kvp_report_append(o->t, "\n");
    va_end(ap);
}
void kvp__trtllm_plan_text(const kvp_render_input *in, const kvp_deploy_result *r,
                           const kvp__plan_text_opts *o, kvp_report_text *t) {
    outbuf ob = {t, o->explain};
    /* The slot pool caps the count: max_batch_size x pp (compute_max_num_sequences). */
    uint64_t count = r->max_sequences < r->batch_limit ? r->max_sequences : r->batch_limit;
    char b1[32], b2[32];
    const kvp_deploy_settings *d = &r->trtllm;
    const kvp_manager_plan *tm = &r->plan.managers[KVP_ROLE_TARGET];
    kvp_report_appendf(t, "plan: %s, one rank of TP %u x PP %u, policy trtllm\n", kvp_model_name(in->model),
            d->tp, d->pp);
    char adopted[64] = "";
    if (r->engine_max_seq_len < d->max_seq_len)
        snprintf(adopted, sizeof adopted, " (engine starts with %llu)",
                 (unsigned long long)r->engine_max_seq_len);
    kvp_report_appendf(t, "manager: %s, kv dtype %s, %u tokens per block, max_seq_len %llu%s, "
               "max_batch_size %llu\n",
            kvp_manager_kind_name(tm->kind), kvp_dtype_name(tm->kv_dtype),
            o->tokens_per_block ? o->tokens_per_block : 32u,
            (unsigned long long)d->max_seq_len, adopted, (unsigned long long)d->max_batch_size);
    kvp_report_append(t, "\nbudget\n");
    if (r->have_memory) {
        const kvp_memory_facts *m = &r->memory;
#define EST(bit) ((m->estimated & (bit)) ? "estimated" : "measured")
        kvp_report_appendf(t, "  total memory            %14s  %s\n", gib(m->total_bytes, b1, sizeof b1),
                in->total_source);
        kvp_report_appendf(t, "  - weights               %14s  %s\n", gib(m->weights_bytes, b1, sizeof b1),
                EST(KVP_MEM_EST_WEIGHTS));
        kvp_report_appendf(t, "  - activations           %14s  %s\n", gib(m->activation_bytes, b1, sizeof b1),
                r->estimation.estimating ? EST(KVP_MEM_EST_ACTIVATION)
                                  : "not subtracted (no profiling pass)");
        kvp_report_appendf(t, "  - non-torch             %14s  %s\n", gib(m->non_torch_bytes, b1, sizeof b1),
                EST(KVP_MEM_EST_NON_TORCH));
        kvp_report_appendf(t, "  - CUDA graphs           %14s  %s\n",
                gib(m->cuda_graph_bytes, b1, sizeof b1),
                o->has_non_torch ? "in non-torch"
                : !o->has_cuda_graph && !(m->estimated & KVP_MEM_EST_CUDA_GRAPH)
                    ? "none captured"
                    : EST(KVP_MEM_EST_CUDA_GRAPH));
#undef EST
        if (r->cap.mm_reserve_bytes)
            kvp_report_appendf(t, "  - multimodal reserve    %14s\n",
                    gib(r->cap.mm_reserve_bytes, b1, sizeof b1));
        kvp_report_appendf(t, "  = peak                  %14s\n", gib(r->cap.peak_bytes, b1, sizeof b1));
        explain(&ob, "%llu + %llu + %llu + %llu = %llu B", (unsigned long long)m->weights_bytes,
                (unsigned long long)m->activation_bytes, (unsigned long long)m->non_torch_bytes,
                (unsigned long long)m->cuda_graph_bytes, (unsigned long long)r->cap.peak_bytes);
        if (o->estimation_kv)
            kvp_report_appendf(t, "  + temporary KV          %14s  added back\n",
                    gib(o->estimation_kv, b1, sizeof b1));
        kvp_report_appendf(t, "  x free fraction         %14g\n",
                o->free_fraction > 0.0 ? o->free_fraction : 0.9);
        kvp_report_appendf(t, "  = KV budget             %14s  (%llu B)\n",
                gib(r->cap.budget_bytes, b1, sizeof b1), (unsigned long long)r->cap.budget_bytes);
        explain(&ob, "int((%llu - %llu + %llu) * %g) = %llu B  [_cal_max_memory]",
                (unsigned long long)r->memory.total_bytes, (unsigned long long)r->cap.peak_bytes,
                (unsigned long long)o->estimation_kv,
                o->free_fraction > 0.0 ? o->free_fraction : 0.9,
                (unsigned long long)r->cap.budget_bytes);
        if (o->explain) kvp__memory_terms_text(r, t);
    } else {
        kvp_report_appendf(t, "  KV budget               %14s  (%llu B, --kv-budget)\n",
                gib(r->cap.budget_bytes, b1, sizeof b1), (unsigned long long)r->cap.budget_bytes);
    }
    if (r->cap.mla_workspace_reserve_bytes) {
        kvp_report_appendf(t, "  - MLA workspace reserve %14s  admits %llu tokens of attended KV\n",
                gib(r->cap.mla_workspace_reserve_bytes, b1, sizeof b1),
                (unsigned long long)r->cap.mla_kv_len_cap_tokens);
        explain(&ob, "min(w x kv_len_cap, budget x w / (k + w)) with w = %llu B/token, k = "
                     "%llu B/token",
                (unsigned long long)d->attention_workspace_bytes_per_token,
                (unsigned long long)tm->cost.slope_bytes_per_token);
    }
    if (r->cap.after_max_tokens_bytes != r->cap.kv_max_memory_bytes ||
        r->cap.after_max_tokens_bytes != r->cap.budget_bytes - r->cap.mla_workspace_reserve_bytes)
        kvp_report_appendf(t, "  capped by max_tokens / max_gpu_total_bytes\n");
    kvp_report_appendf(t, "  = managers' GPU budget  %14s  (%llu B)\n",
            gib(r->cap.kv_max_memory_bytes, b1, sizeof b1),
            (unsigned long long)r->cap.kv_max_memory_bytes);
    explain(&ob, "min(budget %llu - reserves %llu, max_tokens x slope, max_gpu_total_bytes)",
            (unsigned long long)r->cap.budget_bytes,
            (unsigned long long)r->cap.mla_workspace_reserve_bytes);

    char c1[32], c2[32];
    kvp_report_append(t, "\npools\n");
    kvp_report_appendf(t, "  %-7s %-10s %6s %8s %12s %12s %10s %12s %12s\n", "manager", "kind", "layers",
            "window", "bytes/token", "page bytes", "blocks", "tokens", "bytes");
    for (int role = 0; role < KVP_ROLE_COUNT; role++) {
        const kvp_manager_plan *mp = &r->plan.managers[role];
        if (!mp->present) continue;
        for (uint32_t i = 0; i < mp->pool_count; i++) {
            const kvp_plan_pool *q = &mp->pools[i];
            char win[24];
            if (q->window_tokens)
                snprintf(win, sizeof win, "%llu", (unsigned long long)q->window_tokens);
            else
                snprintf(win, sizeof win, "-");
            kvp_report_appendf(t, "  %-7s %-10s %6u %8s %12llu %12llu %10llu %12llu %12s\n",
                    kvp_manager_role_name(mp->role), kvp_cache_kind_name(q->kind), q->layers, win,
                    (unsigned long long)(q->kind == KVP_CACHE_RECURRENT ? 0 : q->bytes_per_token),
                    (unsigned long long)q->page_bytes, (unsigned long long)q->blocks,
                    (unsigned long long)q->tokens, gib(q->bytes, b2, sizeof b2));
            if (q->kind == KVP_CACHE_RECURRENT)
                explain(&ob, "%llu slots (max_batch_size x pp + 1 dummy) x %llu B of state",
                        (unsigned long long)q->blocks, (unsigned long long)q->bytes_per_sequence);
            else if (q->in_intercept)
                explain(&ob, "ceil(%llu / %u) blocks x max_batch_size %llu = %llu blocks, "
                             "reserved per sequence slot (the cost's intercept)",
                        (unsigned long long)q->window_tokens, q->tokens_per_block,
                        (unsigned long long)d->max_batch_size, (unsigned long long)q->blocks);
            else
                explain(&ob, "%llu blocks x %llu B per block (%u tokens x %llu B/token)",
                        (unsigned long long)q->blocks, (unsigned long long)q->page_bytes,
                        q->tokens_per_block, (unsigned long long)q->bytes_per_token);
        }
        snprintf(c1, sizeof c1, "%llu", (unsigned long long)mp->max_tokens);
        kvp_report_appendf(t, "  %-7s %s: quota %s, cost %llu B/token + %llu B fixed\n",
                kvp_manager_role_name(mp->role), kvp_manager_kind_name(mp->kind),
                gib(mp->max_gpu_total_bytes, b1, sizeof b1),
                (unsigned long long)mp->cost.slope_bytes_per_token,
                (unsigned long long)mp->cost.intercept_bytes);
        if (mp->vswa && !kvp_manager_is_v2(mp->kind))
            explain(&ob, "variable windows on paged v1: the quota in equal shares per distinct "
                         "window, blocks = share // bytes per token of the window // %u",
                    mp->pools[0].tokens_per_block);
        else
            explain(&ob, "tokens = (%llu - %llu) // %llu = %llu%s%s, floored to whole blocks",
                    (unsigned long long)mp->max_gpu_total_bytes,
                    (unsigned long long)mp->cost.intercept_bytes,
                    (unsigned long long)mp->cost.slope_bytes_per_token,
                    (unsigned long long)kvp_affine_tokens_for_budget(mp->cost,
                                                                     mp->max_gpu_total_bytes),
                    mp->max_tokens ? ", capped by max_tokens " : "",
                    mp->max_tokens ? c1 : "");
    }
    kvp_report_appendf(t, "  allocated %s of %s\n", gib(r->plan.allocated_bytes, b1, sizeof b1),
            gib(r->cap.kv_max_memory_bytes, b2, sizeof b2));

    kvp_report_appendf(t, "  engine log: [MemUsageChange] Allocated %.2f GiB for max tokens in paged KV "
               "cache (%llu).\n",
            (double)tm->bytes / (double)(1ull << 30), (unsigned long long)tm->max_tokens_out);
    kvp_report_append(t, "\ncapacity\n");
    kvp_report_appendf(t, "  max tokens              %s\n",
            kvp__fmt_count(tm->max_tokens_out, c1, sizeof c1));
    explain(&ob, "blocks x tokens per block of the target's largest full-context pool");
    kvp_report_appendf(t, "  max sequences at %s tokens: %s",
            kvp__fmt_count(r->point.seq_len, c1, sizeof c1),
            kvp__fmt_count(count, c2, sizeof c2));
    if (count < r->max_sequences && r->max_sequences == UINT64_MAX)
        kvp_report_appendf(t, " (%s; no KV pool limits the count)\n",
                d->pp > 1 ? "max_batch_size x pp slots" : "max_batch_size");
    else if (count < r->max_sequences)
        kvp_report_appendf(t, " (%s; the KV cache holds %llu)\n",
                d->pp > 1 ? "max_batch_size x pp slots" : "max_batch_size",
                (unsigned long long)r->max_sequences);
    else
        kvp_report_append(t, " (KV cache limit)\n");
    for (int role = 0; role < KVP_ROLE_COUNT && ob.explain; role++) {
        const kvp_manager_plan *mp = &r->plan.managers[role];
        if (!mp->present) continue;
        for (uint32_t i = 0; i < mp->pool_count; i++) {
            const kvp_plan_pool *q = &mp->pools[i];
            if (q->in_intercept || !q->tokens_per_block) continue;
            uint64_t toks = r->point.seq_len;
            if (q->window_tokens && q->window_tokens < toks) toks = q->window_tokens;
            if (q->kind == KVP_CACHE_CROSS) toks = q->window_tokens;
            uint64_t per = (toks + q->tokens_per_block - 1) / q->tokens_per_block * d->max_beam_width;
            explain(&ob, "%s %s pool: %llu blocks // (ceil(%llu / %u) x beam %u = %llu) = %llu",
                    kvp_manager_role_name(mp->role), kvp_cache_kind_name(q->kind),
                    (unsigned long long)q->blocks, (unsigned long long)toks, q->tokens_per_block,
                    d->max_beam_width, (unsigned long long)per,
                    (unsigned long long)(per ? q->blocks / per : 0));
        }
    }
    if (d->pp > 1)
        explain(&ob, "min over pools = %llu, then min with max_batch_size %llu x pp %u = %llu "
                     "slots (compute_max_num_sequences)",
                (unsigned long long)r->max_sequences, (unsigned long long)d->max_batch_size,
                d->pp, (unsigned long long)r->batch_limit);
    else
        explain(&ob, "min over pools = %llu, then min with max_batch_size %llu",
                (unsigned long long)r->max_sequences, (unsigned long long)d->max_batch_size);
    kvp__admission_text(t, &r->admission, "  ");
    if (r->cap.has_mla_kv_len_cap)
        kvp_report_appendf(t, "  attended-KV admission cap %llu tokens\n",
                (unsigned long long)r->cap.mla_kv_len_cap_tokens);
    if (r->estimation.estimating) {
        kvp_report_appendf(t, "  profiling pass: temporary KV cache of %llu tokens, %llu dummy request(s)\n",
                (unsigned long long)r->estimation.max_tokens,
                (unsigned long long)r->estimation.tokens.dummy_requests);
        explain(&ob,
                "blocks = max(sum ceil((prompt %llu + %llu extra) / tpb), CUDA-graph warm-up "
                "%llu, max_batch_size) x pool groups x beam = %llu",
                (unsigned long long)r->estimation.tokens.dummy_prompt_tokens,
                (unsigned long long)r->estimation.tokens.extra_tokens_per_seq,
                (unsigned long long)r->estimation.tokens.cuda_graph_warmup_blocks,
                (unsigned long long)r->estimation.tokens.pool_blocks);
    }
    rules_text(in->rules, &r->trtllm, &r->plan, t);
    if (in->local && kvp_local_report_entry_count(in->local)) {
        kvp_report_appendf(t, "\nmodel-local caches (%s, reported, not subtracted)\n",
                kvp_local_report_model(in->local));
        for (size_t i = 0; i < kvp_local_report_entry_count(in->local); i++) {
            const kvp_local_entry *e = kvp_local_report_entry(in->local, i);
            kvp_report_appendf(t, "  %-34s %s rows (%s) x %s = %s  %s\n", e->name,
                    kvp__fmt_count(e->rows, c1, sizeof c1),
                    kvp_local_row_driver_name(e->row_driver),
                    kvp__fmt_bytes(e->bytes_per_row, b1, sizeof b1),
                    kvp__fmt_bytes(e->total_bytes, b2, sizeof b2),
                    e->charged ? "already charged by profiling" : "not charged");
        }
    }
    /* The caller's warnings, then the pipeline's: 64 at most, as the JSON's. */
    size_t shown = 0;
    for (size_t i = 0; i < in->note_count && shown < 64; i++, shown++)
        kvp_report_appendf(t, "%s  - %s\n", shown ? "" : "\nwarnings\n", in->notes[i]);
    for (uint32_t i = 0; i < r->warnings.count && shown < 64; i++, shown++)
        kvp_report_appendf(t, "%s  - %s\n", shown ? "" : "\nwarnings\n", r->warnings.text[i]);
    kvp_report_appendf(t, "\naccuracy: %s (docs/accuracy.md)\n", kvp__engine_accuracy_line(r->point.engine));
}
