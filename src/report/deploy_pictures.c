/* deploy_pictures.c — the memory bar (SVG) and the page (HTML) of a planned
 * deployment under any policy (kvplan/render.h): the segments come from
 * kvp__fit_memory_segments, the same picture `fit --svg` draws, so `plan
 * --svg` under vLLM, SGLang and llama.cpp shows what TensorRT-LLM's does. */
#include <stdio.h>
#include <string.h>

#include "kvplan/render.h"
#include "kvplan/report.h"
#include "render_internal.h"
#include "util.h"

static kvp_status deploy_bar(const char *subtitle, const kvp_deploy_result *r, uint64_t local_bytes,
                             kvp_report_text *svg, kvp_error *err) {
    kvp_memory_segment segs[KVP_REPORT_MAX_SEGMENTS];
    size_t n = kvp__fit_memory_segments(r, local_bytes, segs, KVP_REPORT_MAX_SEGMENTS);
    kvp_memory_bar bar;
    memset(&bar, 0, sizeof bar);
    bar.title = r->total_bytes ? "GPU memory of one rank" : "KV budget of one rank";
    bar.subtitle = subtitle;
    bar.total_bytes = r->total_bytes; /* 0: the sum of the segments (a KV budget) */
    bar.segment_count = n;
    bar.segments = segs;
    return kvp_svg_memory_bar(&bar, svg, err);
}

static kvp_status check(const char *path, const kvp_deploy_result *r, kvp_error *err) {
    if (!path) return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "no file to write");
    if (!r) return kvp__fail(err, KVP_INVALID_ARG, path, NULL, "no plan to draw");
    if (r->status != KVP_OK)
        return kvp__fail(err, KVP_INVALID_ARG, path, NULL, "the deployment was not planned: %s",
                         r->message);
    return KVP_OK;
}

kvp_status kvp__render_deploy_svg(const char *path, const char *subtitle, const kvp_deploy_result *r,
                                 uint64_t local_bytes, kvp_error *err) {
    kvp_status st = check(path, r, err);
    if (st) return st;
    if (kvp__report_creator_plans(r->point.engine)) /* the creator's picture: managers and reserves */
        return kvp_report_write_plan_svg(path, subtitle, r->have_memory ? &r->memory : NULL, &r->cap,
                                         &r->plan, local_bytes, err);
    kvp_report_text svg;
    kvp_report_text_init(&svg, NULL);
    st = deploy_bar(subtitle, r, local_bytes, &svg, err);
    if (st == KVP_OK) st = kvp_report_write_file(path, svg.data, svg.len, err);
    kvp_report_text_free(&svg);
    return st;
}

kvp_status kvp__render_deploy_html(const char *path, const char *title, const char *text_report,
                                  const kvp_deploy_result *r, uint64_t local_bytes, kvp_error *err) {
    kvp_status st = check(path, r, err);
    if (st) return st;
    if (kvp__report_creator_plans(r->point.engine))
        return kvp_report_write_plan_html(path, title, text_report, r->have_memory ? &r->memory : NULL,
                                          &r->cap, &r->plan, local_bytes, err);
    kvp_report_text svg;
    kvp_report_text_init(&svg, NULL);
    st = deploy_bar(title, r, local_bytes, &svg, err);
    if (st != KVP_OK) {
        kvp_report_text_free(&svg);
        return st;
    }
    enum { COLS = 6 };
    static const char *const header[COLS] = {"pool", "kind", "layers", "tokens", "block tokens", "GiB"};
    const char *cells[KVP_POLICY_MAX_POOLS * COLS];
    char text[KVP_POLICY_MAX_POOLS][4][32];
    size_t rows = 0;
    for (uint32_t i = 0; i < r->policy.pool_count && i < KVP_POLICY_MAX_POOLS; i++) {
        const kvp_policy_pool *p = &r->policy.pools[i];
        snprintf(text[rows][0], 32, "%u", p->layers);
        snprintf(text[rows][1], 32, "%llu", (unsigned long long)p->tokens);
        snprintf(text[rows][2], 32, "%u", p->block_size_tokens);
        snprintf(text[rows][3], 32, "%.2f", (double)p->bytes / 1073741824.0);
        const char **row = &cells[rows * COLS];
        row[0] = p->name;
        row[1] = kvp_cache_kind_name(p->kind);
        for (int k = 0; k < 4; k++) row[2 + k] = text[rows][k];
        rows++;
    }
    st = kvp__html_plan_page(path, title, &svg, COLS, header, rows, cells, text_report, err);
    kvp_report_text_free(&svg);
    return st;
}

kvp_status kvp__html_plan_page(const char *path, const char *title, const kvp_report_text *svg,
                               size_t cols, const char *const *header, size_t rows,
                               const char *const *cells, const char *text_report, kvp_error *err) {
    kvp_report_text page;
    kvp_report_text_init(&page, NULL);
    kvp_html_begin(&page, title ? title : "kvplan plan");
    kvp_html_heading(&page, 2, "Memory");
    kvp_html_svg(&page, svg);
    kvp_html_heading(&page, 2, "KV pools");
    kvp_html_table(&page, NULL, cols, header, rows, cells);
    if (text_report) {
        kvp_html_heading(&page, 2, "Plan");
        kvp_html_pre(&page, text_report);
    }
    kvp_status st = kvp_html_end(&page, err);
    if (st == KVP_OK) st = kvp_report_write_file(path, page.data, page.len, err);
    kvp_report_text_free(&page);
    return st;
}
