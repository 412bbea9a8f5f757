/* text_sim.c — the text of `kvplan sim` (the pools replayed, the scheduler,
 * what the mix reached against what the plan promises, what limited it) and
 * its chart (block utilization and running requests over steps). The CLI
 * writes what these render. */
#include <stdio.h>
#include <string.h>

#include "render_internal.h" /* kvp__sim_limit_name */
#include "text_internal.h"
#include "util.h"

static const char *policy_text(kvp_sim_policy p) {
    switch (p) {
    case KVP_SIM_TRTLLM:
        return "trtllm GUARANTEED_NO_EVICT: a request waits until prompt + max_new_tokens fit "
               "beside the running requests' reservations; first come, first served";
    case KVP_SIM_TRTLLM_MAX_UTILIZATION:
        return "trtllm MAX_UTILIZATION: no reservation, the newest request paused (recomputed) "
               "when a step does not fit";
    case KVP_SIM_SGLANG:
        return "sglang: admitted while free tokens cover prompt + max_new_tokens and the running "
               "requests' decode reserve (new_token_ratio); retraction when decoding runs out";
    default:
        return "vllm: no reservation, the newest running request preempted by recomputation";
    }
}

static double pct(uint64_t a, uint64_t b) { return b ? 100.0 * (double)a / (double)b : 0.0; }

void kvp__sim_text(const kvp__sim_text_in *j, const kvp_model *m, const kvp_pool_config *pc,
                   const kvp_sim_result *r, kvp_report_text *t) {
    char b1[32], b2[32], b3[32], b4[32];
    kvp_report_appendf(t, "model              %s\n", kvp_model_name(m));
    kvp_report_appendf(t, "workload           %s %s\n", j->workload ? "file" : "synthetic",
           j->workload ? j->workload : j->synthetic);
    for (uint32_t k = 0; k < pc->pool_count; k++) {
        const kvp_pool_spec *p = &pc->pools[k];
        kvp_report_appendf(t, "pool %-14u%s", k, kvp_cache_kind_name(p->kind));
        if (p->window_tokens) kvp_report_appendf(t, " (window %s)", kvp__fmt_count(p->window_tokens, b1, sizeof b1));
        if (p->kind == KVP_CACHE_RECURRENT)
            kvp_report_appendf(t, ", %s state slots of %s\n", kvp__fmt_count(p->blocks, b2, sizeof b2),
                   kvp__fmt_bytes(p->page_bytes, b3, sizeof b3));
        else
            kvp_report_appendf(t, ", %s blocks x %u tokens, %s per block\n",
                   kvp__fmt_count(p->blocks, b2, sizeof b2), p->tokens_per_block,
                   kvp__fmt_bytes(p->page_bytes, b3, sizeof b3));
    }
    kvp_report_appendf(t, "scheduler          max batch %u, %s tokens/step, max_model_len %s, chunked prefill "
           "%s, prefix reuse %s\n",
           j->max_batch, kvp__fmt_count(j->max_tokens, b1, sizeof b1),
           kvp__fmt_count(j->max_model_len, b2, sizeof b2), j->no_chunked ? "off" : "on",
           j->no_reuse ? "off" : "on");
    kvp_report_appendf(t, "policy             %s\n", policy_text(j->policy));
    if (j->max_new_tokens)
        kvp_report_appendf(t, "max_new_tokens     %s per request\n", kvp__fmt_count(j->max_new_tokens, b1, sizeof b1));
    else
        kvp_report_appendf(t, "max_new_tokens     max_model_len - prompt per request (the servers' default)\n");
    kvp_report_appendf(t, "\n");
    kvp_report_appendf(t, "requests           %s: %s finished, %s rejected as longer than max_model_len, %s "
           "that could never fit\n",
           kvp__fmt_count(r->requests, b1, sizeof b1),
           kvp__fmt_count(r->finished, b2, sizeof b2),
           kvp__fmt_count(r->rejected_too_long, b3, sizeof b3),
           kvp__fmt_count(r->rejected_never_fit, b4, sizeof b4));
    kvp_report_appendf(t, "steps              %s\n", kvp__fmt_count(r->steps, b1, sizeof b1));
    kvp_report_appendf(t, "running            peak %u, mean %.2f\n", r->peak_running, r->mean_running);
    kvp_report_appendf(t, "max sequences      %s promised at max_model_len %s, %u reached by this mix\n",
           kvp__fmt_count(r->promised_max_sequences, b1, sizeof b1),
           kvp__fmt_count(j->max_model_len, b2, sizeof b2), r->peak_running);
    kvp_report_appendf(t, "preemptions        %s\n", kvp__fmt_count(r->preemptions, b1, sizeof b1));
    if (r->waiting_steps)
        kvp_report_appendf(t, "limited by         %s: requests waited in %s steps, %s for the batch cap, %s for "
               "the token budget, %s for the KV cache\n",
               kvp__sim_limit_name(r), kvp__fmt_count(r->waiting_steps, b1, sizeof b1),
               kvp__fmt_count(r->cap_bound_steps, b2, sizeof b2),
               kvp__fmt_count(r->budget_bound_steps, b3, sizeof b3),
               kvp__fmt_count(r->kv_bound_steps, b4, sizeof b4));
    else
        kvp_report_appendf(t, "limited by         nothing: no request waited\n");
    kvp_report_appendf(t, "prefix hit rate    %.1f%% (%s of %s prompt tokens)\n", 100.0 * r->prefix_hit_rate,
           kvp__fmt_count(r->prefix_hit_tokens, b1, sizeof b1),
           kvp__fmt_count(r->prefix_query_tokens, b2, sizeof b2));
    kvp_report_appendf(t, "peak blocks used   %s of %s (%.1f%%)\n", kvp__fmt_count(r->peak_blocks_used, b1, sizeof b1),
           kvp__fmt_count(r->total_blocks, b2, sizeof b2), pct(r->peak_blocks_used, r->total_blocks));
    /* At most 16 samples, evenly picked, as whole percents. */
    kvp_report_appendf(t, "utilization        ");
    uint32_t shown = r->samples < 16 ? r->samples : 16;
    for (uint32_t i = 0; i < shown; i++) {
        uint32_t idx = shown < r->samples ? (uint32_t)((uint64_t)i * r->samples / shown) : i;
        kvp_report_appendf(t, "%s%.0f%%", i ? " " : "", 100.0 * r->utilization[idx]);
    }
    uint64_t every = r->sample_stride_steps;
    if (shown < r->samples) every = every * r->samples / shown;
    kvp_report_appendf(t, " (every %s step%s)\n", kvp__fmt_count(every, b1, sizeof b1), every == 1 ? "" : "s");
    if (!j->no_timing)
        kvp_report_appendf(t, "elapsed            %.2f s, %s steps/s\n", r->elapsed_seconds,
               kvp__fmt_count((uint64_t)r->steps_per_second, b1, sizeof b1));
}

kvp_status kvp__sim_svg(const char *path, const kvp_sim_result *r, kvp_error *err) {
    static double x[KVP_SIM_MAX_SAMPLES], util[KVP_SIM_MAX_SAMPLES], run[KVP_SIM_MAX_SAMPLES];
    for (uint32_t i = 0; i < r->samples; i++) {
        x[i] = (double)i * (double)r->sample_stride_steps;
        util[i] = 100.0 * r->utilization[i];
        run[i] = (double)r->running[i];
    }
    kvp_report_text t = {0};
    kvp_status st = kvp_svg_sim_chart("kvplan sim", x, util, run, r->samples, &t, err);
    if (st == KVP_OK) st = kvp_report_write_file(path, t.data, t.len, err);
    kvp_report_text_free(&t);
    return st;
}
