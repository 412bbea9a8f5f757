/* text_sweep.c — the rows of `kvplan sweep` as text and CSV, written as the
 * grid is planned (kvp_sweep_run), and its pictures: max sequences against
 * max_seq_len, a line per remaining combination of the other axes (SVG), and
 * one page with the chart and every row (HTML). The CLI writes what these
 * render. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvplan/sweep.h"
#include "text_internal.h"
#include "util.h"

/* The axes in the grid's order: a chart line is the points that differ only
 * in the last (max-seq-len). */
enum { AX_POLICY = 0, AX_KV_DTYPE, AX_TP, AX_PP, AX_SEQ_LEN };
static const char *const k_axis_names[] = {"policy", "kv-dtype", "tp", "pp", "max-seq-len"};
static size_t axis_n(const kvp_sweep_grid *g, int k) {
    return kvp_sweep_grid_axis_size(g, k_axis_names[k]);
}

static void csv_field(kvp_report_text *t, const char *s) {
    if (!strpbrk(s, ",\"\n")) {
        kvp_report_append(t, s);
        return;
    }
    kvp_report_append(t, "\"");
    for (; *s; s++) {
        if (*s == '"') kvp_report_append(t, "\"");
        char ch[2] = {*s, '\0'};
        kvp_report_append(t, ch);
    }
    kvp_report_append(t, "\"");
}

/* "KV budget of pool 'full' (14281 blocks ...)" -> "KV budget of pool 'full'" */
static void short_reason(const char *s, char *buf, size_t n) {
    kvp__strlcpy(buf, s, n);
    char *p = strstr(buf, " (");
    if (p) *p = '\0';
    if (strlen(buf) > 60) {
        buf[57] = '.';
        buf[58] = '.';
        buf[59] = '.';
        buf[60] = '\0';
    }
}

/* Name of a series: the values of the varying axes other than length. */
static void series_name(const kvp_sweep_grid *grid, const kvp__sweep_keep *e, char *buf, size_t n) {
    buf[0] = '\0';
    char part[48];
    for (int k = 0; k < AX_SEQ_LEN; k++) {
        if (axis_n(grid, k) < 2) continue;
        switch (k) {
        case AX_POLICY: snprintf(part, sizeof part, "%s", kvp_engine_name(e->point.engine)); break;
        case AX_KV_DTYPE: snprintf(part, sizeof part, "%s", e->point.kv_dtype); break;
        case AX_TP: snprintf(part, sizeof part, "tp %u", e->point.tp); break;
        default: snprintf(part, sizeof part, "pp %u", e->point.pp); break;
        }
        size_t len = strlen(buf);
        snprintf(buf + len, n - len, "%s%s", len ? ", " : "", part);
    }
    if (!buf[0]) snprintf(buf, n, "%s", kvp_engine_name(e->point.engine));
}

static kvp_status build_chart(const char *sub, const kvp_sweep_grid *grid, const kvp__sweep_keep *evals,
                              size_t count, kvp_report_text *svg, kvp_error *err) {
    size_t per = axis_n(grid, AX_SEQ_LEN), nseries = count / per;
    if (nseries > KVP_REPORT_MAX_SERIES)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "svg",
                         "--svg: %zu lines are too many for one chart (at most %d); narrow the "
                         "grid",
                         nseries, KVP_REPORT_MAX_SERIES);
    double *xs = calloc(count, sizeof *xs), *ys = calloc(count, sizeof *ys);
    kvp_chart_series series[KVP_REPORT_MAX_SERIES];
    char names[KVP_REPORT_MAX_SERIES][96];
    if (!xs || !ys) {
        free(xs);
        free(ys);
        return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
    }
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < count; i++) {
        const kvp__sweep_keep *e = &evals[i];
        uint64_t L = e->point.max_seq_len;
        xs[i] = (double)L;
        ys[i] = e->ok ? (double)e->max_sequences : NAN;
        if (L < lo) lo = L;
        if (L > hi) hi = L;
    }
    for (size_t s = 0; s < nseries; s++) {
        series_name(grid, &evals[s * per], names[s], sizeof names[s]);
        series[s].name = names[s];
        series[s].count = per;
        series[s].x = xs + s * per;
        series[s].y = ys + s * per;
    }
    kvp_line_chart chart;
    memset(&chart, 0, sizeof chart);
    chart.title = "Max concurrent sequences vs context length";
    chart.subtitle = sub;
    chart.x_label = "max_seq_len (tokens per sequence)";
    chart.y_label = "max concurrent sequences (KV cache)";
    chart.x_log2 = hi >= 4 * lo;
    chart.y_from_zero = true;
    chart.series_count = nseries;
    chart.series = series;
    kvp_status st = kvp_svg_line_chart(&chart, svg, err);
    free(xs);
    free(ys);
    return st;
}


kvp_status kvp__sweep_pictures(const char *model_name, const char *gpu_name,
                               const kvp_sweep_grid *grid, const kvp__sweep_keep *rows,
                               size_t count, const char *svg_path, const char *html_path,
                               kvp_error *err) {
    char sub[256];
    snprintf(sub, sizeof sub, "%s%s%s", model_name, gpu_name ? " on " : "", gpu_name ? gpu_name : "");
    kvp_report_text svg;
    kvp_report_text_init(&svg, NULL);
    kvp_status st = build_chart(sub, grid, rows, count, &svg, err);
    if (st == KVP_OK && svg_path) st = kvp_report_write_file(svg_path, svg.data, svg.len, err);
    if (st == KVP_OK && html_path) {
        kvp_report_text page;
        kvp_report_text_init(&page, NULL);
        char title[300];
        snprintf(title, sizeof title, "kvplan sweep: %s", sub);
        kvp_html_begin(&page, title);
        kvp_html_svg(&page, &svg);
        enum { COLS = 10 };
        static const char *const header[COLS] = {"policy", "tp", "pp", "kv dtype", "max_seq_len",
                                                 "budget GiB", "tokens", "blocks", "max seqs",
                                                 "limited by"};
        const char **cells = calloc(count * COLS, sizeof *cells);
        char (*text)[8][64] = calloc(count, sizeof *text);
        if (!cells || !text) st = kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
        for (size_t i = 0; st == KVP_OK && i < count; i++) {
            const kvp__sweep_keep *e = &rows[i];
            const char **r = &cells[i * COLS];
            r[0] = kvp_engine_name(e->point.engine);
            snprintf(text[i][0], 64, "%u", e->point.tp);
            snprintf(text[i][1], 64, "%u", e->point.pp);
            r[1] = text[i][0];
            r[2] = text[i][1];
            r[3] = e->point.kv_dtype;
            kvp__fmt_count(e->point.max_seq_len, text[i][2], 64);
            r[4] = text[i][2];
            if (e->ok) {
                snprintf(text[i][3], 64, "%.2f", (double)e->budget_bytes / 1073741824.0);
                kvp__fmt_count(e->tokens, text[i][4], 64);
                kvp__fmt_count(e->blocks, text[i][5], 64);
                kvp__fmt_count(e->max_sequences, text[i][6], 64);
            } else {
                for (int k = 3; k < 7; k++) snprintf(text[i][k], 64, "-");
            }
            r[9] = e->why;
            for (int k = 0; k < 4; k++) r[5 + k] = text[i][3 + k];
        }
        if (st == KVP_OK) {
            kvp_html_table(&page, "every plan of the grid", COLS, header, count, cells);
            st = kvp_html_end(&page, err);
        }
        if (st == KVP_OK) st = kvp_report_write_file(html_path, page.data, page.len, err);
        free(cells);
        free(text);
        kvp_report_text_free(&page);
    }
    kvp_report_text_free(&svg);
    return st;
}

void kvp__sweep_text_head(const char *model_name, const char *gpu_name, uint64_t count,
                          kvp_report_text *t) {
    kvp_report_appendf(t, "model: %s", model_name);
    if (gpu_name) kvp_report_appendf(t, "   gpu: %s", gpu_name);
    kvp_report_appendf(t, "   plans: %llu\n\n", (unsigned long long)count);
    kvp_report_appendf(t, "%-8s %4s %3s %-9s %11s %10s %12s %9s %9s  %s\n", "policy", "tp", "pp",
                       "kv dtype", "max_seq_len", "budget GiB", "KV tokens", "blocks", "max seqs",
                       "limited by");
}

void kvp__sweep_csv_row(const kvp_fit_eval *e, kvp_report_text *t) {
    kvp_report_appendf(t, "%s,%u,%u,", kvp_engine_name(e->point.engine), e->point.tp, e->point.pp);
    csv_field(t, e->point.kv_dtype);
    kvp_report_appendf(t, ",%llu,%s,", (unsigned long long)e->point.max_seq_len,
           e->status == KVP_OK ? "true" : "false");
    if (e->status == KVP_OK) {
        kvp_report_appendf(t, "%llu,%llu,%llu,%llu,%llu,", (unsigned long long)e->budget_bytes,
               (unsigned long long)e->kv_bytes, (unsigned long long)e->tokens,
               (unsigned long long)e->blocks, (unsigned long long)e->max_sequences);
        if (e->longest_tokens != UINT64_MAX) kvp_report_appendf(t, "%llu", (unsigned long long)e->longest_tokens);
        kvp_report_append(t, ",");
        csv_field(t, e->binding);
    } else {
        kvp_report_append(t, ",,,,,,");
        csv_field(t, e->message);
    }
    kvp_report_append(t, "\n");
}

void kvp__sweep_text_row(const kvp_fit_eval *e, kvp_report_text *t) {
    char n1[32], n2[32], n3[32], n4[32], why[96];
    kvp_report_appendf(t, "%-8s %4u %3u %-9s %11s ", kvp_engine_name(e->point.engine), e->point.tp, e->point.pp,
           e->point.kv_dtype, kvp__fmt_count(e->point.max_seq_len, n1, sizeof n1));
    if (e->status == KVP_OK) {
        const char *bound = NULL;
        uint64_t admitted = kvp__fit_eval_admitted(e, &bound);
        short_reason(bound, why, sizeof why);
        kvp_report_appendf(t, "%10.2f %12s %9s %9s  %s\n", (double)e->budget_bytes / 1073741824.0,
               kvp__fmt_count(e->tokens, n2, sizeof n2), kvp__fmt_count(e->blocks, n3, sizeof n3),
               kvp__fmt_count(admitted, n4, sizeof n4), why);
    } else {
        char buf[KVP_ERROR_MESSAGE_MAX + 32];
        short_reason(kvp__fit_eval_reason(e, buf, sizeof buf), why, sizeof why);
        kvp_report_appendf(t, "%10s %12s %9s %9s  %s\n", "-", "-", "-", "-", why);
    }
}


kvp_status kvp__sweep_keep_row(const kvp_fit_eval *e, kvp__sweep_keep *k, kvp_error *err) {
    const char *bound = NULL;
    uint64_t admitted = kvp__fit_eval_admitted(e, &bound);
    const char *why = e->status == KVP_OK ? bound : e->message;
    k->point = e->point;
    k->ok = e->status == KVP_OK;
    k->budget_bytes = e->budget_bytes;
    k->tokens = e->tokens;
    k->blocks = e->blocks;
    k->max_sequences = admitted; /* as the table prints it */
    k->why = strdup(why);
    return k->why ? KVP_OK : kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
}
