/* plan_explain.c — `plan --explain`, `--svg` and `--html` under the engine
 * policies (vLLM, SGLang, llama.cpp), as `plan --policy trtllm` has them: the
 * memory terms with where each came from, the budget's formula, and each
 * pool's arithmetic, from the one deployment result (deploy.h); the pictures
 * are the library's (kvplan/render.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kvplan/memory.h"
#include "kvplan/render.h"
#include "plan_policy.h"
#include "util.h"

#define GIB 1073741824.0

static void term(FILE *f, const char *name, uint64_t bytes, bool estimated, const char *source) {
    fprintf(f, "      %-22s %10.2f GiB  %s\n", name, (double)bytes / GIB,
            source && source[0] ? source : estimated ? "estimated from the config" : "as given");
}

void kvp_cli_policy_explain(const kvp_deploy_result *res, const char *total_source, FILE *f) {
    const kvp_policy_result *r = &res->policy;
    const kvp_memory_facts *m = &res->memory;
    fputs("\nexplain\n", f);
    if (res->have_memory) {
        fprintf(f, "  memory of one rank (%s):\n", total_source ? total_source : "given");
        fprintf(f, "      %-22s %10.2f GiB\n", "total", (double)m->total_bytes / GIB);
        term(f, "weights", m->weights_bytes, m->estimated & KVP_MEM_EST_WEIGHTS, m->weights_source);
        term(f, "activation peak", m->activation_bytes, m->estimated & KVP_MEM_EST_ACTIVATION, NULL);
        term(f, "non-torch", m->non_torch_bytes, m->estimated & KVP_MEM_EST_NON_TORCH, NULL);
        const char *graphs = NULL;
        for (uint32_t i = 0; i < m->term_count; i++)
            if (!strcmp(m->terms[i].name, "cuda_graphs") && m->terms[i].mark == KVP_MEM_MARK_EXACT)
                graphs = "none captured (--enforce-eager)";
        term(f, "CUDA graphs", m->cuda_graph_bytes, m->estimated & KVP_MEM_EST_CUDA_GRAPH, graphs);
        kvp_cli_memory_terms(res, f);
    } else if (r->engine != KVP_ENGINE_LLAMACPP) {
        fputs("  memory: a KV budget given directly\n", f);
    }
    if (r->budget_bytes)
        fprintf(f, "  budget = %s\n         = %llu bytes (%.2f GiB)\n",
                r->budget_formula[0] ? r->budget_formula : "as given",
                (unsigned long long)r->budget_bytes, (double)r->budget_bytes / GIB);
    for (uint32_t i = 0; i < r->pool_count; i++) {
        const kvp_policy_pool *p = &r->pools[i];
        fprintf(f, "  pool '%s' (%s, %u layers): %llu tokens", p->name, kvp_cache_kind_name(p->kind),
                p->layers, (unsigned long long)p->tokens);
        /* The page is one block of every layer (SGLang's cell) or of one layer
         * (vLLM's page per layer): say whichever product the bytes are. */
        uint64_t blocks = p->block_size_tokens ? p->tokens / p->block_size_tokens : 0, x = 0, y = 0;
        if (p->block_size_tokens > 1)
            fprintf(f, " = %llu blocks x %u tokens", (unsigned long long)blocks, p->block_size_tokens);
        if (p->page_bytes && kvp__mul_u64(blocks, p->page_bytes, &x) && x == p->bytes)
            fprintf(f, "; %llu x %llu-byte page", (unsigned long long)blocks,
                    (unsigned long long)p->page_bytes);
        else if (p->page_bytes && kvp__mul_u64(x, p->layers, &y) && y == p->bytes)
            fprintf(f, "; %llu x %llu-byte page x %u layers", (unsigned long long)blocks,
                    (unsigned long long)p->page_bytes, p->layers);
        fprintf(f, " = %llu bytes", (unsigned long long)p->bytes);
        if (p->k_bytes || p->v_bytes)
            fprintf(f, " (K %llu + V %llu)", (unsigned long long)p->k_bytes,
                    (unsigned long long)p->v_bytes);
        fputc('\n', f);
    }
    if (res->status == KVP_OK) {
        fprintf(f, "  sequences of %llu tokens at once: ", (unsigned long long)res->point.seq_len);
        if (res->max_sequences == UINT64_MAX)
            fputs("no pool limits them", f);
        else
            fprintf(f, "%llu", (unsigned long long)res->max_sequences);
        if (res->binding[0]) fprintf(f, " (bound by %s)", res->binding);
        fputc('\n', f);
    }
}

int kvp_cli_policy_pictures(const kvp_model *model, const kvp_deploy_result *res,
                            const char *total_source, const char *svg, const char *html) {
    kvp_error err;
    kvp_error_clear(&err);
    char title[256];
    snprintf(title, sizeof title, "%s, policy %s, TP %u x PP %u", kvp_model_name(model),
             kvp_engine_name(res->policy.engine), res->point.tp ? res->point.tp : 1,
             res->point.pp ? res->point.pp : 1);
    if (svg && kvp_render_deploy_svg(svg, title, res, 0, &err) != KVP_OK)
        return kvp_cli_report_error(&err, false);
    if (html) {
        char *text = NULL;
        size_t len = 0;
        FILE *mf = open_memstream(&text, &len);
        if (mf) {
            kvp_cli_policy_explain(res, total_source, mf);
            fclose(mf);
        }
        kvp_status st = kvp_render_deploy_html(html, title, text, res, 0, &err);
        free(text);
        if (st != KVP_OK) return kvp_cli_report_error(&err, false);
    }
    return -1;
}
