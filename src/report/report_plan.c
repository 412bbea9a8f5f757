/* report_plan.c — a plan as a picture: the segments of the stacked GPU
 * memory bar, and the SVG / HTML files `kvplan plan --svg/--html` and
 * `kvplan fit/compare --svg` write (include/kvplan/fit.h). */
#include <stdio.h>
#include <string.h>

#include "kvplan/fit.h"
#include "kvplan/report.h"
#include "render_internal.h"
#include "util.h"

static void add(kvp_memory_segment *out, size_t cap, size_t *n, kvp_mem_part part,
                const char *label, uint64_t bytes) {
    if (bytes == 0 || *n >= cap) return;
    memset(&out[*n], 0, sizeof out[*n]);
    out[*n].part = part;
    kvp__strlcpy(out[*n].label, label, sizeof out[*n].label);
    out[*n].bytes = bytes;
    (*n)++;
}

/* Free margin: what the device has beyond every segment (the 1 - fraction
 * the engine leaves, and rounding to whole blocks). */
static void add_free(kvp_memory_segment *out, size_t cap, size_t *n, uint64_t total) {
    uint64_t sum = 0;
    for (size_t i = 0; i < *n; i++)
        if (!kvp__add_u64(sum, out[i].bytes, &sum)) return;
    if (total > sum) add(out, cap, n, KVP_MEM_PART_FREE, "free margin", total - sum);
}

static void add_plan_pools(const kvp_plan *plan, kvp_memory_segment *out, size_t cap, size_t *n) {
    for (int r = 0; r < KVP_ROLE_COUNT; r++) {
        const kvp_manager_plan *mp = &plan->managers[r];
        if (!mp->present) continue;
        for (uint32_t i = 0; i < mp->pool_count; i++) {
            const kvp_plan_pool *p = &mp->pools[i];
            char label[KVP_REPORT_LABEL_MAX];
            const char *role = r == KVP_ROLE_TARGET ? "" : kvp_manager_role_name(mp->role);
            if (p->window_tokens && p->kind != KVP_CACHE_CROSS)
                snprintf(label, sizeof label, "KV %s%spool '%s' w%llu (%u layers)", role,
                         *role ? " " : "", kvp_cache_kind_name(p->kind),
                         (unsigned long long)p->window_tokens, p->layers);
            else
                snprintf(label, sizeof label, "KV %s%spool '%s' (%u layers)", role,
                         *role ? " " : "", kvp_cache_kind_name(p->kind), p->layers);
            add(out, cap, n, KVP_MEM_PART_KV, label, p->bytes);
        }
    }
}

size_t kvp_report_plan_segments(const kvp_memory_facts *mem, const kvp_capacity *cap,
                                const kvp_plan *plan, uint64_t local_bytes,
                                kvp_memory_segment *out, size_t out_cap) {
    size_t n = 0;
    if (!out || out_cap == 0) return 0;
    if (mem) {
        add(out, out_cap, &n, KVP_MEM_PART_WEIGHTS, "weights", mem->weights_bytes);
        add(out, out_cap, &n, KVP_MEM_PART_ACTIVATION, "activation peak", mem->activation_bytes);
        uint64_t rt = 0;
        if (kvp__add_u64(mem->non_torch_bytes, mem->cuda_graph_bytes, &rt))
            add(out, out_cap, &n, KVP_MEM_PART_RUNTIME, "runtime (context, NCCL, CUDA graphs)", rt);
    }
    if (cap) {
        add(out, out_cap, &n, KVP_MEM_PART_RESERVE, "MLA context workspace",
            cap->mla_workspace_reserve_bytes);
        add(out, out_cap, &n, KVP_MEM_PART_RESERVE, "multimodal encoder reserve",
            cap->mm_reserve_bytes);
    }
    if (plan) add_plan_pools(plan, out, out_cap, &n);
    add(out, out_cap, &n, KVP_MEM_PART_LOCAL, "model-local caches", local_bytes);
    if (mem) add_free(out, out_cap, &n, mem->total_bytes);
    return n;
}

size_t kvp__fit_memory_segments(const kvp_fit_eval *e, uint64_t local_bytes,
                               kvp_memory_segment *out, size_t out_cap) {
    size_t n = 0;
    if (!e || !out || out_cap == 0) return 0;
    add(out, out_cap, &n, KVP_MEM_PART_WEIGHTS, "weights", e->weights_bytes);
    add(out, out_cap, &n, KVP_MEM_PART_ACTIVATION, "activation peak", e->activation_bytes);
    add(out, out_cap, &n, KVP_MEM_PART_RUNTIME, "runtime (context, NCCL, CUDA graphs)",
        e->runtime_bytes);
    if (kvp__report_creator_plans(e->point.engine)) {
        add(out, out_cap, &n, KVP_MEM_PART_RESERVE, "MLA context workspace",
            e->cap.mla_workspace_reserve_bytes);
        add(out, out_cap, &n, KVP_MEM_PART_RESERVE, "multimodal encoder reserve",
            e->cap.mm_reserve_bytes);
        add_plan_pools(&e->plan, out, out_cap, &n);
    } else {
        for (uint32_t i = 0; i < e->policy.pool_count; i++) {
            char label[KVP_REPORT_LABEL_MAX];
            snprintf(label, sizeof label, "KV pool '%s' (%u layers)", e->policy.pools[i].name,
                     e->policy.pools[i].layers);
            add(out, out_cap, &n, KVP_MEM_PART_KV, label, e->policy.pools[i].bytes);
        }
    }
    add(out, out_cap, &n, KVP_MEM_PART_LOCAL, "model-local caches", local_bytes);
    add_free(out, out_cap, &n, e->total_bytes);
    return n;
}

static kvp_status plan_bar(const char *subtitle, const kvp_memory_facts *mem,
                           const kvp_capacity *cap, const kvp_plan *plan, uint64_t local_bytes,
                           kvp_report_text *svg, kvp_error *err) {
    kvp_memory_segment segs[KVP_REPORT_MAX_SEGMENTS];
    size_t n = kvp_report_plan_segments(mem, cap, plan, local_bytes, segs, KVP_REPORT_MAX_SEGMENTS);
    kvp_memory_bar bar;
    memset(&bar, 0, sizeof bar);
    bar.title = mem ? "GPU memory of one rank" : "KV budget of one rank";
    bar.subtitle = subtitle;
    bar.total_bytes = mem ? mem->total_bytes : plan->budget_bytes;
    bar.segment_count = n;
    bar.segments = segs;
    return kvp_svg_memory_bar(&bar, svg, err);
}

kvp_status kvp_report_write_plan_svg(const char *path, const char *subtitle,
                                     const kvp_memory_facts *mem, const kvp_capacity *cap,
                                     const kvp_plan *plan, uint64_t local_bytes, kvp_error *err) {
    if (!plan) return kvp__fail(err, KVP_INVALID_ARG, path, NULL, "no plan to draw");
    kvp_report_text svg;
    kvp_report_text_init(&svg, NULL);
    kvp_status st = plan_bar(subtitle, mem, cap, plan, local_bytes, &svg, err);
    if (st == KVP_OK) st = kvp_report_write_file(path, svg.data, svg.len, err);
    kvp_report_text_free(&svg);
    return st;
}

kvp_status kvp_report_write_plan_html(const char *path, const char *title,
                                      const char *text_report, const kvp_memory_facts *mem,
                                      const kvp_capacity *cap, const kvp_plan *plan,
                                      uint64_t local_bytes, kvp_error *err) {
    if (!plan) return kvp__fail(err, KVP_INVALID_ARG, path, NULL, "no plan to write");
    kvp_report_text svg;
    kvp_report_text_init(&svg, NULL);
    kvp_status st = plan_bar(title, mem, cap, plan, local_bytes, &svg, err);
    if (st != KVP_OK) {
        kvp_report_text_free(&svg);
        return st;
    }
    /* Pools table. */
    enum { COLS = 7 };
    static const char *const header[COLS] = {"manager", "pool", "layers", "window",
                                             "tokens",  "blocks", "GiB"};
    const char *cells[KVP_ROLE_COUNT * KVP_PLAN_MAX_POOLS * COLS];
    char text[KVP_ROLE_COUNT * KVP_PLAN_MAX_POOLS][5][32];
    size_t rows = 0;
    for (int r = 0; r < KVP_ROLE_COUNT; r++) {
        const kvp_manager_plan *mp = &plan->managers[r];
        for (uint32_t i = 0; mp->present && i < mp->pool_count; i++) {
            const kvp_plan_pool *p = &mp->pools[i];
            snprintf(text[rows][0], 32, "%u", p->layers);
            if (p->window_tokens)
                snprintf(text[rows][1], 32, "%llu", (unsigned long long)p->window_tokens);
            else
                snprintf(text[rows][1], 32, "-");
            snprintf(text[rows][2], 32, "%llu", (unsigned long long)p->tokens);
            snprintf(text[rows][3], 32, "%llu", (unsigned long long)p->blocks);
            snprintf(text[rows][4], 32, "%.2f", (double)p->bytes / 1073741824.0);
            const char **row = &cells[rows * COLS];
            row[0] = kvp_manager_role_name(mp->role);
            row[1] = kvp_cache_kind_name(p->kind);
            for (int k = 0; k < 5; k++) row[2 + k] = text[rows][k];
            rows++;
        }
    }
    st = kvp__html_plan_page(path, title, &svg, COLS, header, rows, cells, text_report, err);
    kvp_report_text_free(&svg);
    return st;
}
