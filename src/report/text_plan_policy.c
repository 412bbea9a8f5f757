/* text_plan_policy.c — the text of `kvplan plan` under the engine policies
 * (vLLM, SGLang, llama.cpp): the engine's own start-up lines (each engine's
 * `startup_lines`, engine_ops.h), the admission rule, the notes; --explain's
 * memory terms (docs/memory.md), budget formula and pool arithmetic; and the
 * pictures of the plan (kvplan/render.h). The CLI writes what these render. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accuracy.h"
#include "engine_ops.h"
#include "line_sink.h"
#include "render_internal.h"
#include "text_internal.h"
#include "util.h"

#define GIB 1073741824.0

/* An engine's start-up line into the text (kvp__line_sink). */
static void sink_into_text(void *ctx, const char *text) {
    kvp_report_append(ctx, text);
    kvp_report_append(ctx, "\n");
}

void kvp__policy_plan_text(const kvp_model *model, const kvp_deploy_result *res,
                           const char *const *notes, size_t note_count, kvp_report_text *t) {
    const kvp_policy_result *r = &res->policy;
    kvp_report_appendf(t, "model: %s\npolicy: %s (%s%s%s)\n", kvp_model_name(model),
                       kvp_engine_name(r->engine), r->era, r->engine_version[0] ? ", " : "",
                       r->engine_version);
    /* Which release line the start-up terms were derived for (docs/memory.md). */
    if (res->have_memory && res->memory.term_count && res->memory.release_line[0])
        kvp_report_appendf(t, "start-up memory: %s\n", res->memory.release_line);
    const kvp__engine_ops *ops = kvp__engine_ops_of(r->engine);
    kvp__line_sink sink = {sink_into_text, t};
    if (ops && ops->startup_lines) ops->startup_lines(r, &sink);
    kvp__admission_text(t, &res->admission, "");
    for (size_t i = 0; i < note_count; i++) kvp_report_appendf(t, "note: %s\n", notes[i]);
    for (uint32_t i = 0; i < r->note_count; i++) kvp_report_appendf(t, "note: %s\n", r->notes[i]);
    kvp_report_appendf(t, "accuracy: %s (docs/accuracy.md)\n", kvp__engine_accuracy_line(r->engine));
}


static void term(kvp_report_text *t, const char *name, uint64_t bytes, bool estimated, const char *source) {
    kvp_report_appendf(t, "      %-22s %10.2f GiB  %s\n", name, (double)bytes / GIB,
            source && source[0] ? source : estimated ? "estimated from the config" : "as given");
}

void kvp__policy_explain_text(const kvp_deploy_result *res, const char *total_source,
                              kvp_report_text *t) {
    const kvp_policy_result *r = &res->policy;
    const kvp_memory_facts *m = &res->memory;
    kvp_report_append(t, "\nexplain\n");
    if (res->have_memory) {
        kvp_report_appendf(t, "  memory of one rank (%s):\n", total_source ? total_source : "given");
        kvp_report_appendf(t, "      %-22s %10.2f GiB\n", "total", (double)m->total_bytes / GIB);
        term(t, "weights", m->weights_bytes, m->estimated & KVP_MEM_EST_WEIGHTS, m->weights_source);
        term(t, "activation peak", m->activation_bytes, m->estimated & KVP_MEM_EST_ACTIVATION, NULL);
        term(t, "non-torch", m->non_torch_bytes, m->estimated & KVP_MEM_EST_NON_TORCH, NULL);
        const char *graphs = NULL;
        for (uint32_t i = 0; i < m->term_count; i++)
            if (!strcmp(m->terms[i].name, "cuda_graphs") && m->terms[i].mark == KVP_MEM_MARK_EXACT)
                graphs = "none captured (--enforce-eager)";
        term(t, "CUDA graphs", m->cuda_graph_bytes, m->estimated & KVP_MEM_EST_CUDA_GRAPH, graphs);
        kvp__memory_terms_text(res, t);
    } else if (!kvp__report_allocates_as_asked(r->engine)) {
        kvp_report_append(t, "  memory: a KV budget given directly\n");
    }
    if (r->budget_bytes)
        kvp_report_appendf(t, "  budget = %s\n         = %llu bytes (%.2f GiB)\n",
                r->budget_formula[0] ? r->budget_formula : "as given",
                (unsigned long long)r->budget_bytes, (double)r->budget_bytes / GIB);
    for (uint32_t i = 0; i < r->pool_count; i++) {
        const kvp_policy_pool *p = &r->pools[i];
        kvp_report_appendf(t, "  pool '%s' (%s, %u layers): %llu tokens", p->name, kvp_cache_kind_name(p->kind),
                p->layers, (unsigned long long)p->tokens);
        /* The page is one block of every layer (SGLang's cell) or of one layer
         * (vLLM's page per layer): say whichever product the bytes are. */
        uint64_t blocks = p->block_size_tokens ? p->tokens / p->block_size_tokens : 0, x = 0, y = 0;
        if (p->block_size_tokens > 1)
            kvp_report_appendf(t, " = %llu blocks x %u tokens", (unsigned long long)blocks, p->block_size_tokens);
        if (p->page_bytes && kvp__mul_u64(blocks, p->page_bytes, &x) && x == p->bytes)
            kvp_report_appendf(t, "; %llu x %llu-byte page", (unsigned long long)blocks,
                    (unsigned long long)p->page_bytes);
        else if (p->page_bytes && kvp__mul_u64(x, p->layers, &y) && y == p->bytes)
            kvp_report_appendf(t, "; %llu x %llu-byte page x %u layers", (unsigned long long)blocks,
                    (unsigned long long)p->page_bytes, p->layers);
        kvp_report_appendf(t, " = %llu bytes", (unsigned long long)p->bytes);
        if (p->k_bytes || p->v_bytes)
            kvp_report_appendf(t, " (K %llu + V %llu)", (unsigned long long)p->k_bytes,
                    (unsigned long long)p->v_bytes);
        kvp_report_append(t, "\n");
    }
    if (res->status == KVP_OK) {
        kvp_report_appendf(t, "  sequences of %llu tokens at once: ", (unsigned long long)res->point.seq_len);
        if (res->max_sequences == UINT64_MAX)
            kvp_report_append(t, "no pool limits them");
        else
            kvp_report_appendf(t, "%llu", (unsigned long long)res->max_sequences);
        if (res->binding[0]) kvp_report_appendf(t, " (bound by %s)", res->binding);
        kvp_report_append(t, "\n");
    }
}

kvp_status kvp__policy_pictures(const kvp_model *model, const kvp_deploy_result *res,
                                const char *total_source, const char *svg, const char *html,
                                kvp_error *err) {
    char title[256];
    snprintf(title, sizeof title, "%s, policy %s, TP %u x PP %u", kvp_model_name(model),
             kvp_engine_name(res->policy.engine), res->point.tp ? res->point.tp : 1,
             res->point.pp ? res->point.pp : 1);
    kvp_status st = KVP_OK;
    if (svg) st = kvp__render_deploy_svg(svg, title, res, 0, err);
    if (st == KVP_OK && html) {
        kvp_report_text text;
        kvp_report_text_init(&text, NULL);
        kvp__policy_explain_text(res, total_source, &text);
        st = kvp__render_deploy_html(html, title, text.data, res, 0, err);
        kvp_report_text_free(&text);
    }
    return st;
}

static const char *mark_name(uint8_t mark) {
    switch (mark) {
    case KVP_MEM_MARK_EXACT: return "exact";
    case KVP_MEM_MARK_BOUNDED: return "bounded";
    case KVP_MEM_MARK_GIVEN: return "given";
    default: return "estimated";
    }
}

static const char *where(const kvp_memory_term *mt) {
    if (mt->charge == KVP_MEM_CHARGE_HEADROOM) return "after sizing";
    if (mt->charge == KVP_MEM_CHARGE_UNCHARGED) return "not charged";
    if (mt->charge == KVP_MEM_CHARGE_PHASE) return "  phase";
    switch (mt->part) {
    case KVP_MEM_EST_ACTIVATION: return "activation";
    case KVP_MEM_EST_NON_TORCH: return "non-torch";
    case KVP_MEM_EST_CUDA_GRAPH: return "CUDA graphs";
    default: return "peak";
    }
}

void kvp__memory_terms_text(const kvp_deploy_result *res, kvp_report_text *t) {
    const kvp_memory_facts *m = &res->memory;
    if (!res->have_memory || !m->term_count) return;
    if (m->release_line[0])
        kvp_report_appendf(t, "  start-up terms (docs/memory.md, %s):\n", m->release_line);
    else
        kvp_report_append(t, "  start-up terms (docs/memory.md):\n");
    for (uint32_t i = 0; i < m->term_count; i++) {
        const kvp_memory_term *mt = &m->terms[i];
        kvp_report_appendf(t, "      %-26s %8.2f GiB  %-9s %-12s %s%s\n", mt->name,
                (double)mt->bytes / 1073741824.0, mark_name(mt->mark), where(mt), mt->source,
                mt->under_load ? " [under load]" : "");
    }
    if (res->headroom_need_bytes) {
        kvp_report_appendf(t, "  after sizing: %.2f GiB needed of %.2f GiB left%s\n",
                (double)res->headroom_need_bytes / 1073741824.0,
                (double)res->headroom_bytes / 1073741824.0,
                res->headroom_short ? " (does not fit)" : "");
        kvp_report_appendf(t, "  at start-up: %.2f GiB exact or bounded of %.2f GiB (left + freed "
                   "activations)%s\n",
                (double)res->headroom_sure_bytes / 1073741824.0,
                (double)res->headroom_startup_bytes / 1073741824.0,
                res->headroom_refused ? " (out of memory: refused)" : "");
    }
}
void kvp__admission_text(kvp_report_text *t, const kvp_admission *a, const char *indent) {
    char c1[32], c2[32], c3[32];
    if (a->present)
        kvp_report_appendf(t, "%sadmitted at once        %s (%s)\n", indent,
                kvp__fmt_count(a->admitted, c1, sizeof c1), a->binding);
    else
        kvp_report_appendf(t, "%sadmitted at once        unknown: %s\n", indent, a->refused);
    if (a->rule[0]) kvp_report_appendf(t, "%sadmission rule          %s\n", indent, a->rule);
    if (a->reservation[0]) kvp_report_appendf(t, "%sreservation             %s\n", indent, a->reservation);
    if (a->reserves && a->present && a->reservation_blocks)
        kvp_report_appendf(t, "%s                        %s blocks per request in the binding pool\n",
                indent, kvp__fmt_count(a->reservation_blocks, c1, sizeof c1));
    if (a->has_steady_state)
        kvp_report_appendf(t, "%ssteady state            %s without reservation (%s prompt + %s output "
                   "tokens per request)\n",
                indent, kvp__fmt_count(a->steady_state, c1, sizeof c1),
                kvp__fmt_count(a->prompt_tokens, c2, sizeof c2),
                kvp__fmt_count(a->output_tokens, c3, sizeof c3));
    if (a->present && a->refused[0]) kvp_report_appendf(t, "%snote                    %s\n", indent, a->refused);
}
