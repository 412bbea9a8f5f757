/* text_fit.c — the text of `kvplan fit` (the question, the answer, what
 * limits it, the plan at the answer) and of `kvplan compare` (the engines side
 * by side, how each defines its budget and rounds it to pages), their
 * pictures, and how a row names its limit. The CLI writes what these render. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_internal.h"
#include "text_internal.h"
#include "util.h"

static const char *gib_text(uint64_t bytes, char *buf, size_t n) {
    snprintf(buf, n, "%.2f GiB", (double)bytes / 1073741824.0);
    return buf;
}

const char *kvp__fit_eval_reason(const kvp_fit_eval *e, char *buf, size_t n) {
    if (e->status == KVP_OK) return e->binding;
    if (e->startup.first_refusal < 0) return e->message;
    snprintf(buf, n, "refused at start-up: %s", e->message);
    return buf;
}

uint64_t kvp__fit_eval_admitted(const kvp_fit_eval *e, const char **why) {
    if (e->admission.present) {
        *why = e->admission.binding[0] ? e->admission.binding : e->binding;
        return e->admission.admitted;
    }
    *why = e->binding;
    return e->batch_limit && e->batch_limit < e->max_sequences ? e->batch_limit : e->max_sequences;
}

/* Bytes a policy leaves for everything that is not weights or KV cache:
 * activations, runtime, fragmentation margin. */
static uint64_t left_over(const kvp_fit_eval *e) {
    uint64_t used = e->weights_bytes + e->kv_bytes;
    return e->total_bytes > used ? e->total_bytes - used : 0;
}

static uint64_t rounding(const kvp_fit_eval *e) {
    if (kvp__report_allocates_as_asked(e->point.engine)) return 0; /* allocates what it asks */
    return e->budget_bytes > e->kv_bytes ? e->budget_bytes - e->kv_bytes : 0;
}

void kvp__compare_text(const kvp_model *model, const kvp_gpu_info *gpu, const kvp_fit_eval *ev,
                       size_t n_engines, kvp_report_text *t) {
    const kvp_fit_eval *ref = NULL;
    for (size_t k = 0; k < n_engines && !ref; k++)
        if (ev[k].status == KVP_OK) ref = &ev[k];
    char b1[32], b2[32], b3[32], n1[32], n2[32];
    kvp_report_appendf(t, "model: %s", kvp_model_name(model));
    if (gpu)
        kvp_report_appendf(t, "   gpu: %s (%s)", gpu->name,
               gib_text(gpu->total_bytes, b1, sizeof b1));
    kvp_report_appendf(t, "\n");
    if (ref && ref->total_bytes)
        kvp_report_appendf(t, "memory terms, the same for every engine%s: weights %s, activation peak %s, "
               "runtime %s\n",
               ref->memory_estimated ? " (estimated from the config)" : "",
               gib_text(ref->weights_bytes, b1, sizeof b1),
               gib_text(ref->activation_bytes, b2, sizeof b2),
               gib_text(ref->runtime_bytes, b3, sizeof b3));
    kvp_report_appendf(t, "\n%-9s %-9s %11s %10s %9s %8s %12s %9s %13s  %s\n", "engine", "kv dtype",
           "max_seq_len", "budget GiB", "KV GiB", "page", "KV tokens", "max seqs",
           "left GiB", "limited by");
    for (size_t k = 0; k < n_engines; k++) {
        const kvp_fit_eval *e = &ev[k];
        if (e->status != KVP_OK) {
            char buf[KVP_ERROR_MESSAGE_MAX + 32];
            kvp_report_appendf(t, "%-9s %s\n", kvp_engine_name(e->point.engine),
                   kvp__fit_eval_reason(e, buf, sizeof buf));
            continue;
        }
        char page[24], why[96];
        snprintf(page, sizeof page, "%u tok", e->block_tokens);
        const char *bound = NULL;
        uint64_t admitted = kvp__fit_eval_admitted(e, &bound);
        kvp__strlcpy(why, bound, sizeof why);
        char *paren = strstr(why, " (");
        if (paren) *paren = '\0';
        char left[24];
        if (e->total_bytes)
            snprintf(left, sizeof left, "%.2f", (double)left_over(e) / 1073741824.0);
        else
            snprintf(left, sizeof left, "-");
        kvp_report_appendf(t, "%-9s %-9s %11s %10.2f %9.2f %8s %12s %9s %13s  %s\n",
               kvp_engine_name(e->point.engine), e->point.kv_dtype,
               kvp__fmt_count(e->point.max_seq_len, n1, sizeof n1),
               (double)e->budget_bytes / 1073741824.0, (double)e->kv_bytes / 1073741824.0,
               page, kvp__fmt_count(e->tokens, n2, sizeof n2),
               kvp__fmt_count(admitted, b1, sizeof b1), left, why);
    }
    kvp_report_appendf(t, "\nhow each engine defines its KV budget:\n");
    for (size_t k = 0; k < n_engines; k++)
        if (ev[k].status == KVP_OK)
            kvp_report_appendf(t, "  %-9s %s\n", kvp_engine_name(ev[k].point.engine), ev[k].budget_formula);
    kvp_report_appendf(t, "page rounding (budget not turned into whole pages):\n");
    for (size_t k = 0; k < n_engines; k++)
        if (ev[k].status == KVP_OK)
            kvp_report_appendf(t, "  %-9s %s in pages of %u tokens\n", kvp_engine_name(ev[k].point.engine),
                   kvp__fmt_bytes(rounding(&ev[k]), b1, sizeof b1), ev[k].block_tokens);
    if (ref && ref->total_bytes)
        kvp_report_appendf(t, "left GiB = GPU total - weights - KV: what each leaves for activations, "
               "runtime and margin\n");
    for (size_t k = 0; k < n_engines; k++)
        for (uint32_t i = 0; ev[k].status == KVP_OK && !kvp__report_creator_plans(ev[k].point.engine) &&
                             i < ev[k].policy.note_count;
             i++)
            kvp_report_appendf(t, "note (%s): %s\n", kvp_engine_name(ev[k].point.engine), ev[k].policy.notes[i]);
}

kvp_status kvp__compare_html(const char *html, const kvp_model *model, const kvp_gpu_info *gpu,
                             const kvp_fit_eval *ev, size_t n_engines, kvp_error *err) {
    kvp_report_text page;
    kvp_report_text_init(&page, NULL);
    char title[256];
    snprintf(title, sizeof title, "kvplan compare: %s%s%s", kvp_model_name(model),
             gpu ? " on " : "", gpu ? gpu->name : "");
    kvp_html_begin(&page, title);
    enum { COLS = 7 };
    static const char *const header[COLS] = {"engine", "kv dtype", "budget GiB", "KV tokens",
                                             "max seqs", "limited by", "budget formula"};
    const char *cells[KVP_ENGINE_COUNT * COLS];
    char text[KVP_ENGINE_COUNT][3][32];
    char reason[KVP_ENGINE_COUNT][KVP_ERROR_MESSAGE_MAX + 32];
    for (size_t k = 0; k < n_engines; k++) {
        const kvp_fit_eval *e = &ev[k];
        const char **r = &cells[k * COLS];
        r[0] = kvp_engine_name(e->point.engine);
        r[1] = e->point.kv_dtype;
        snprintf(text[k][0], 32, "%.2f", (double)e->budget_bytes / 1073741824.0);
        kvp__fmt_count(e->tokens, text[k][1], 32);
        const char *bound = NULL;
        kvp__fmt_count(kvp__fit_eval_admitted(e, &bound), text[k][2], 32);
        r[2] = text[k][0];
        r[3] = text[k][1];
        r[4] = text[k][2];
        r[5] = e->status == KVP_OK ? bound : kvp__fit_eval_reason(e, reason[k], sizeof reason[k]);
        r[6] = e->budget_formula;
    }
    kvp_html_table(&page, "every engine, same model, GPU and memory terms", COLS, header,
                   n_engines, cells);
    kvp_status st = KVP_OK;
    for (size_t k = 0; k < n_engines && st == KVP_OK; k++) {
        if (ev[k].status != KVP_OK) continue;
        kvp_memory_segment segs[KVP_REPORT_MAX_SEGMENTS];
        size_t n = kvp__fit_memory_segments(&ev[k], 0, segs, KVP_REPORT_MAX_SEGMENTS);
        char bar_title[64];
        snprintf(bar_title, sizeof bar_title, "%s", kvp_engine_name(ev[k].point.engine));
        kvp_memory_bar bar = {bar_title, ev[k].budget_formula, ev[k].total_bytes, n, segs};
        kvp_report_text svg;
        kvp_report_text_init(&svg, NULL);
        st = kvp_svg_memory_bar(&bar, &svg, err);
        kvp_html_svg(&page, &svg);
        kvp_report_text_free(&svg);
    }
    if (st == KVP_OK) st = kvp_html_end(&page, err);
    if (st == KVP_OK) st = kvp_report_write_file(html, page.data, page.len, err);
    kvp_report_text_free(&page);
    return st;
}

/* One plan as `fit` prints it ("plan: vllm, tp 1, ..."). */
static void eval_line(kvp_report_text *t, const char *label, const kvp_fit_eval *e) {
    char b1[32], n1[32], n2[32], n3[32];
    if (e->status != KVP_OK) {
        kvp_report_appendf(t, "%s %s\n", label, e->message);
        return;
    }
    char n4[32];
    kvp_report_appendf(t, "%s %s, tp %u, pp %u, kv %s, max_seq_len %s: KV budget %s, %s tokens, KV cache holds "
           "%s sequences, scheduler cap %s%s\n",
           label, kvp_engine_name(e->point.engine), e->point.tp, e->point.pp, e->point.kv_dtype,
           kvp__fmt_count(e->point.max_seq_len, n1, sizeof n1),
           gib_text(e->budget_bytes ? e->budget_bytes : e->kv_bytes, b1, sizeof b1),
           kvp__fmt_count(e->tokens, n2, sizeof n2),
           kvp__fmt_count(e->max_sequences, n3, sizeof n3),
           e->batch_limit ? kvp__fmt_count(e->batch_limit, n4, sizeof n4) : "none",
           e->memory_estimated ? " (memory terms estimated)" : "");
}

void kvp__fit_text(const kvp_model *model, const kvp_gpu_info *gpu, const kvp_fit_request *req,
                   const kvp_fit_answer *ans, kvp_report_text *t) {
    uint64_t conc = req->concurrency ? req->concurrency : 1;
    const char *what = kvp_fit_target_name(req->solve_for);
    char n1[32];
    kvp_report_appendf(t, "model:      %s\n", kvp_model_name(model));
    if (gpu)
        kvp_report_appendf(t, "gpu:        %s (%.2f GiB)\n", gpu->name,
               (double)gpu->total_bytes / 1073741824.0);
    kvp_report_appendf(t, "policy:     %s\n", kvp_engine_name(req->base.engine));
    switch (req->solve_for) {
    case KVP_FIT_MAX_SEQ_LEN:
        kvp_report_appendf(t, "question:   the longest max_seq_len serving %llu sequence%s at once\n",
               (unsigned long long)conc, conc == 1 ? "" : "s");
        break;
    case KVP_FIT_CONCURRENCY:
        kvp_report_appendf(t, "question:   the most sequences of max_seq_len %s at once\n",
               kvp__fmt_count(ans->at.point.max_seq_len, n1, sizeof n1));
        break;
    case KVP_FIT_PARALLEL:
        kvp_report_appendf(t, "question:   the smallest parallelism on %u GPUs serving %llu sequence%s\n",
               req->gpus ? req->gpus : 8, (unsigned long long)conc, conc == 1 ? "" : "s");
        break;
    default:
        kvp_report_appendf(t, "question:   the widest KV dtype serving %llu sequence%s\n",
               (unsigned long long)conc, conc == 1 ? "" : "s");
        break;
    }
    if (ans->found) {
        bool counted = req->solve_for == KVP_FIT_MAX_SEQ_LEN ||
                       req->solve_for == KVP_FIT_CONCURRENCY;
        if (counted)
            kvp_report_appendf(t, "answer:     %s = %s\n", what, kvp__fmt_count(ans->value, n1, sizeof n1));
        else if (req->solve_for == KVP_FIT_PARALLEL)
            kvp_report_appendf(t, "answer:     tp %u, pp %u\n", ans->at.point.tp, ans->at.point.pp);
        else
            kvp_report_appendf(t, "answer:     %s = %s\n", what, ans->value_text);
        if (counted && !ans->at_search_bound)
            kvp_report_appendf(t, "limited by: %s (at %s)\n", ans->limited_by,
                   kvp__fmt_count(ans->value + 1, n1, sizeof n1));
        else
            kvp_report_appendf(t, "limited by: %s\n", ans->limited_by);
    } else {
        kvp_report_appendf(t, "answer:     none: the target cannot be met\n");
        kvp_report_appendf(t, "limited by: %s\n", ans->limited_by);
        kvp_report_appendf(t, "best:       %s\n", ans->best);
    }
    eval_line(t, "plan:      ", &ans->at);
    kvp_report_appendf(t, "(%u plans evaluated)\n", ans->evaluations);
}

kvp_status kvp__fit_svg(const char *svg, const kvp_model *model, const kvp_gpu_info *gpu,
                        const kvp_fit_request *req, const kvp_fit_answer *ans, kvp_error *err) {
    const char *what = kvp_fit_target_name(req->solve_for);
    kvp_memory_segment segs[KVP_REPORT_MAX_SEGMENTS];
    size_t n = kvp__fit_memory_segments(&ans->at, 0, segs, KVP_REPORT_MAX_SEGMENTS);
    char sub[256];
    snprintf(sub, sizeof sub, "%s on %s: %s = %s (%s, tp %u)", kvp_model_name(model),
             gpu ? gpu->name : "the GPU", what,
             ans->found ? ans->value_text : "none", kvp_engine_name(ans->at.point.engine),
             ans->at.point.tp);
    kvp_memory_bar bar = {"GPU memory at the answer", sub,
                          ans->at.total_bytes ? ans->at.total_bytes : 0, n, segs};
    kvp_report_text t;
    kvp_report_text_init(&t, NULL);
    kvp_status st = kvp_svg_memory_bar(&bar, &t, err);
    if (st == KVP_OK) st = kvp_report_write_file(svg, t.data, t.len, err);
    kvp_report_text_free(&t);
    return st;
}
