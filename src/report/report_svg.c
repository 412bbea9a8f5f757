/* report_svg.c — SVG charts written as text (include/kvplan/report.h):
 * the stacked memory bar of one GPU and line charts (sweep, simulation).
 *
 * Layout is fixed-size (800 px wide, viewBox scaled by the browser); every
 * coordinate is printed with one decimal in the C locale. The output is a
 * single <svg> element with no XML declaration, so the same text is a valid
 * .svg file and can be inlined in HTML. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kvplan/report.h"
#include "util.h"

#define SVG_WIDTH 800.0
#define GIB 1073741824.0

static const char *const k_series_colors[] = {"#4e79a7", "#e15759", "#59a14f", "#f28e2b",
                                              "#b07aa1", "#76b7b2", "#edc948", "#ff9da7",
                                              "#9c755f", "#bab0ac"};
#define SERIES_COLOR_COUNT (sizeof k_series_colors / sizeof k_series_colors[0])

const char *kvp_mem_part_name(kvp_mem_part part) {
    switch (part) {
    case KVP_MEM_PART_WEIGHTS: return "weights";
    case KVP_MEM_PART_ACTIVATION: return "activation";
    case KVP_MEM_PART_RUNTIME: return "runtime";
    case KVP_MEM_PART_RESERVE: return "reserve";
    case KVP_MEM_PART_KV: return "kv";
    case KVP_MEM_PART_LOCAL: return "local";
    case KVP_MEM_PART_FREE: return "free";
    default: return "other";
    }
}

/* Fill colour of the n-th segment of a part, and whether its label needs
 * dark text. KV pools are greens, local caches purples, in shades. */
static const char *part_color(kvp_mem_part part, unsigned shade, bool *dark_text) {
    static const char *const kv[] = {"#2e7d32", "#59a14f", "#8cd17d", "#1b5e20", "#a5d6a7"};
    static const char *const local[] = {"#7b4f9d", "#b07aa1", "#d4a6c8"};
    *dark_text = false;
    switch (part) {
    case KVP_MEM_PART_WEIGHTS: return "#4e79a7";
    case KVP_MEM_PART_ACTIVATION: return "#f28e2b";
    case KVP_MEM_PART_RUNTIME: return "#9c755f";
    case KVP_MEM_PART_RESERVE: return "#e15759";
    case KVP_MEM_PART_KV:
        *dark_text = (shade % 5) == 2 || (shade % 5) == 4;
        return kv[shade % 5];
    case KVP_MEM_PART_LOCAL:
        *dark_text = (shade % 3) == 2;
        return local[shade % 3];
    case KVP_MEM_PART_FREE:
    default: *dark_text = true; return "#e4e4e4";
    }
}

static void svg_open(kvp_report_text *t, double height, const char *title) {
    kvp_report_appendf(t,
                       "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                       "viewBox=\"0 0 %.0f %.0f\" font-family=\"DejaVu Sans, Arial, sans-serif\" "
                       "role=\"img\">\n<title>",
                       SVG_WIDTH, height, SVG_WIDTH, height);
    kvp_report_append_escaped(t, title ? title : "kvplan chart");
    kvp_report_appendf(t, "</title>\n<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" "
                          "fill=\"#ffffff\"/>\n",
                       SVG_WIDTH, height);
}

static void svg_text(kvp_report_text *t, double x, double y, const char *anchor, double size,
                     const char *fill, const char *weight, const char *text) {
    kvp_report_appendf(t, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%.0f\" "
                          "fill=\"%s\"%s%s%s>",
                       x, y, anchor, size, fill, weight ? " font-weight=\"" : "",
                       weight ? weight : "", weight ? "\"" : "");
    kvp_report_append_escaped(t, text);
    kvp_report_append(t, "</text>\n");
}

/* ------------------------------------------------------------ axis ticks */

/* A "nice" step (1, 2 or 5 times a power of ten) giving about `target`
 * intervals over `range`. */
static double nice_step(double range, int target) {
    if (!(range > 0)) return 1.0;
    double raw = range / target;
    double mag = pow(10.0, floor(log10(raw)));
    double norm = raw / mag;
    double m = norm < 1.5 ? 1.0 : norm < 3.0 ? 2.0 : norm < 7.0 ? 5.0 : 10.0;
    return m * mag;
}

/* "131,072" for integral values, else as many decimals as the step needs. */
static void fmt_tick(double v, double step, char *buf, size_t size) {
    if (step >= 1.0 && fabs(v - round(v)) < 1e-9 && fabs(v) < 1e15) {
        char tmp[32];
        long long iv = llround(v);
        unsigned long long a = (unsigned long long)(iv < 0 ? -iv : iv);
        snprintf(tmp, sizeof tmp, "%llu", a);
        size_t len = strlen(tmp), o = 0;
        if (iv < 0 && o + 1 < size) buf[o++] = '-';
        for (size_t i = 0; i < len && o + 2 < size; i++) {
            if (i && (len - i) % 3 == 0) buf[o++] = ',';
            buf[o++] = tmp[i];
        }
        buf[o] = '\0';
        return;
    }
    int decimals = step > 0 ? (int)ceil(-log10(step)) : 2;
    if (decimals < 0) decimals = 0;
    if (decimals > 6) decimals = 6;
    snprintf(buf, size, "%.*f", decimals, v);
}

/* Powers of two read as tokens: 4096 -> "4k", 131072 -> "128k", 2^20 -> "1M". */
static void fmt_pow2(double v, char *buf, size_t size) {
    if (v >= 1048576.0 && fmod(v, 1048576.0) == 0)
        snprintf(buf, size, "%.0fM", v / 1048576.0);
    else if (v >= 1024.0 && fmod(v, 1024.0) == 0)
        snprintf(buf, size, "%.0fk", v / 1024.0);
    else
        snprintf(buf, size, "%g", v);
}

/* ------------------------------------------------------------ memory bar */

kvp_status kvp_svg_memory_bar(const kvp_memory_bar *bar, kvp_report_text *out, kvp_error *err) {
    if (!bar || !out) return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "no bar or no output");
    if (bar->segment_count > KVP_REPORT_MAX_SEGMENTS)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "segments",
                         "memory bar has %zu segments, at most %d are drawn", bar->segment_count,
                         KVP_REPORT_MAX_SEGMENTS);
    if (bar->segment_count && !bar->segments)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "segments", "segment list is NULL");
    uint64_t sum = 0;
    for (size_t i = 0; i < bar->segment_count; i++)
        if (!kvp__add_u64(sum, bar->segments[i].bytes, &sum))
            return kvp__fail(err, KVP_OVERFLOW, NULL, "segments",
                             "memory bar segments add up to more than 2^64 bytes");
    uint64_t total = bar->total_bytes ? bar->total_bytes : sum;
    if (total == 0)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "total_bytes",
                         "memory bar is empty: no total and no segment bytes");

    /* The segments, plus an implicit "free" remainder when they fall short. */
    kvp_memory_segment segs[KVP_REPORT_MAX_SEGMENTS + 1];
    size_t n = bar->segment_count;
    memcpy(segs, bar->segments, n * sizeof segs[0]);
    if (sum < total) {
        memset(&segs[n], 0, sizeof segs[n]);
        segs[n].part = KVP_MEM_PART_FREE;
        kvp__strlcpy(segs[n].label, "not assigned", sizeof segs[n].label);
        segs[n].bytes = total - sum;
        n++;
    }
    uint64_t span = sum > total ? sum : total;

    const double left = 20.0, right = 20.0, bar_y = 70.0, bar_h = 56.0;
    const double bar_w = SVG_WIDTH - left - right;
    const size_t legend_rows = (n + 1) / 2;
    const double legend_y = bar_y + bar_h + 48.0;
    const double height = legend_y + (double)legend_rows * 22.0 + 16.0;
    const char *title = bar->title ? bar->title : "GPU memory";

    svg_open(out, height, title);
    svg_text(out, left, 28.0, "start", 18, "#222", "bold", title);
    if (bar->subtitle) svg_text(out, left, 50.0, "start", 13, "#555", NULL, bar->subtitle);

    /* Segments, left to right. */
    double x = left;
    unsigned kv_shade = 0, local_shade = 0;
    bool dark[KVP_REPORT_MAX_SEGMENTS + 1];
    const char *fills[KVP_REPORT_MAX_SEGMENTS + 1];
    for (size_t i = 0; i < n; i++) {
        const kvp_memory_segment *s = &segs[i];
        unsigned shade = s->part == KVP_MEM_PART_KV ? kv_shade++
                         : s->part == KVP_MEM_PART_LOCAL ? local_shade++ : 0;
        fills[i] = part_color(s->part, shade, &dark[i]);
        double w = (double)s->bytes / (double)span * bar_w;
        const char *label = s->label[0] ? s->label : kvp_mem_part_name(s->part);
        kvp_report_appendf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                                "fill=\"%s\" stroke=\"#ffffff\" stroke-width=\"1\"><title>",
                           x, bar_y, w, bar_h, fills[i]);
        kvp_report_append_escaped(out, label);
        kvp_report_appendf(out, ": %.2f GiB</title></rect>\n", (double)s->bytes / GIB);
        char gib[32];
        snprintf(gib, sizeof gib, "%.1f GiB", (double)s->bytes / GIB);
        const char *ink = dark[i] ? "#222" : "#ffffff";
        if (w >= 120.0) {
            /* Name and size; the name is cut to what fits (about 7 px a glyph). */
            char cut[KVP_REPORT_LABEL_MAX];
            kvp__strlcpy(cut, label, sizeof cut);
            size_t fit = (size_t)((w - 10.0) / 7.0);
            if (fit < strlen(cut) && fit >= 4 && fit < sizeof cut) {
                cut[fit - 1] = '\0';
                cut[fit - 2] = '.';
                cut[fit - 3] = '.';
            }
            svg_text(out, x + w / 2.0, bar_y + 24.0, "middle", 12, ink, NULL, cut);
            svg_text(out, x + w / 2.0, bar_y + 42.0, "middle", 12, ink, "bold", gib);
        } else if (w >= 52.0) {
            svg_text(out, x + w / 2.0, bar_y + 33.0, "middle", 11, ink, "bold", gib);
        }
        x += w;
    }
    kvp_report_appendf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                            "fill=\"none\" stroke=\"#444\" stroke-width=\"1\"/>\n",
                       left, bar_y, bar_w, bar_h);

    /* GiB axis under the bar. */
    double span_gib = (double)span / GIB;
    double step = nice_step(span_gib, 8);
    double axis_y = bar_y + bar_h + 4.0;
    kvp_report_appendf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                            "stroke=\"#444\"/>\n",
                       left, axis_y, left + bar_w, axis_y);
    for (double v = 0; v <= span_gib + step * 1e-9; v += step) {
        double tx = left + v / span_gib * bar_w;
        char lab[32];
        fmt_tick(v, step, lab, sizeof lab);
        kvp_report_appendf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                                "stroke=\"#444\"/>\n",
                           tx, axis_y, tx, axis_y + 5.0);
        svg_text(out, tx, axis_y + 18.0, "middle", 11, "#444", NULL, lab);
    }
    svg_text(out, left + bar_w, axis_y + 34.0, "end", 11, "#444", NULL, "GiB");

    /* Device end marker when the plan asks for more than the GPU has. */
    if (sum > total) {
        double tx = left + (double)total / (double)span * bar_w;
        kvp_report_appendf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                                "stroke=\"#c62828\" stroke-width=\"2\" "
                                "stroke-dasharray=\"5,3\"/>\n",
                           tx, bar_y - 10.0, tx, bar_y + bar_h + 10.0);
        char lab[64];
        snprintf(lab, sizeof lab, "GPU total %.2f GiB", (double)total / GIB);
        svg_text(out, tx, bar_y - 13.0, "end", 11, "#c62828", "bold", lab);
    }

    /* Legend: every segment, two columns. */
    for (size_t i = 0; i < n; i++) {
        const kvp_memory_segment *s = &segs[i];
        double lx = left + (i < legend_rows ? 0.0 : bar_w / 2.0);
        double ly = legend_y + (double)(i < legend_rows ? i : i - legend_rows) * 22.0;
        kvp_report_appendf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"14\" "
                                "fill=\"%s\" stroke=\"#888\" stroke-width=\"0.5\"/>\n",
                           lx, ly - 11.0, fills[i]);
        char line[KVP_REPORT_LABEL_MAX + 64];
        snprintf(line, sizeof line, "%s  %.2f GiB (%.1f%%)",
                 s->label[0] ? s->label : kvp_mem_part_name(s->part), (double)s->bytes / GIB,
                 100.0 * (double)s->bytes / (double)total);
        svg_text(out, lx + 20.0, ly, "start", 12, "#222", NULL, line);
    }
    kvp_report_append(out, "</svg>\n");
    return kvp_report_text_check(out, err);
}

/* ------------------------------------------------------------ line chart */

static kvp_status check_chart(const kvp_line_chart *c, kvp_error *err) {
    if (!c) return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "no chart");
    if (c->series_count == 0 || c->series_count > KVP_REPORT_MAX_SERIES || !c->series)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "series",
                         "a line chart needs 1 to %d series, got %zu", KVP_REPORT_MAX_SERIES,
                         c->series_count);
    size_t points = 0;
    for (size_t s = 0; s < c->series_count; s++) {
        const kvp_chart_series *se = &c->series[s];
        if (se->count && (!se->x || !se->y))
            return kvp__fail(err, KVP_INVALID_ARG, NULL, "series",
                             "series %zu has %zu points but no data", s, se->count);
        for (size_t i = 0; i < se->count; i++) {
            if (!isfinite(se->x[i]) || isinf(se->y[i]))
                return kvp__fail(err, KVP_INVALID_ARG, NULL, "series",
                                 "series %zu point %zu is not a finite number", s, i);
            if (c->x_log2 && se->x[i] <= 0)
                return kvp__fail(err, KVP_INVALID_ARG, NULL, "x_log2",
                                 "series %zu point %zu: x = %g cannot go on a log2 axis", s, i,
                                 se->x[i]);
            if (!isnan(se->y[i])) points++;
        }
    }
    if (points == 0)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "series", "the chart has no points to draw");
    return KVP_OK;
}

/* Draw one chart into the box [0, SVG_WIDTH] x [top, top + height]. */
static void draw_chart(kvp_report_text *t, const kvp_line_chart *c, double top, double height) {
    const double pl = 86.0, pr = 190.0, pb = 58.0;
    const double pt = (c->title ? 44.0 : 18.0) + (c->subtitle ? 18.0 : 0.0);
    const double x0 = pl, x1 = SVG_WIDTH - pr, y0 = top + height - pb, y1 = top + pt;

    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
    for (size_t s = 0; s < c->series_count; s++)
        for (size_t i = 0; i < c->series[s].count; i++) {
            double xv = c->series[s].x[i], yv = c->series[s].y[i];
            if (isnan(yv)) continue;
            if (xv < xmin) xmin = xv;
            if (xv > xmax) xmax = xv;
            if (yv < ymin) ymin = yv;
            if (yv > ymax) ymax = yv;
        }
    if (c->y_from_zero && ymin > 0) ymin = 0;

    /* X scale. */
    double xlo, xhi, xstep = 1.0;
    if (c->x_log2) {
        xlo = floor(log2(xmin));
        xhi = ceil(log2(xmax));
        if (xhi <= xlo) xhi = xlo + 1;
        xstep = ceil((xhi - xlo) / 10.0);
    } else {
        xstep = nice_step(xmax - xmin, 6);
        xlo = floor(xmin / xstep) * xstep;
        xhi = ceil(xmax / xstep) * xstep;
        if (xhi <= xlo) {
            xlo -= xstep;
            xhi += xstep;
        }
    }
    double ystep = nice_step(ymax - ymin, 6);
    if (!(ymax > ymin)) ystep = nice_step(fabs(ymax) > 0 ? fabs(ymax) : 1.0, 4);
    double ylo = floor(ymin / ystep) * ystep, yhi = ceil(ymax / ystep) * ystep;
    if (yhi <= ylo) yhi = ylo + ystep;

#define PX(v) (x0 + ((c->x_log2 ? log2(v) : (v)) - xlo) / (xhi - xlo) * (x1 - x0))
#define PY(v) (y0 - ((v) - ylo) / (yhi - ylo) * (y0 - y1))

    if (c->title)
        svg_text(t, x0, top + 26.0, "start", strlen(c->title) > 64 ? 13 : 16, "#222", "bold",
                 c->title);
    if (c->subtitle)
        svg_text(t, x0, top + (c->title ? 46.0 : 20.0), "start", 12, "#555", NULL, c->subtitle);

    /* Grid and ticks. */
    kvp_report_append(t, "<g class=\"grid\" stroke=\"#e6e6e6\" stroke-width=\"1\">\n");
    for (double v = ylo; v <= yhi + ystep * 1e-9; v += ystep)
        kvp_report_appendf(t, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x0,
                           PY(v), x1, PY(v));
    kvp_report_append(t, "</g>\n");
    kvp_report_appendf(t, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                          "stroke=\"#333\"/>\n",
                       x0, y0, x1, y0);
    kvp_report_appendf(t, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                          "stroke=\"#333\"/>\n",
                       x0, y0, x0, y1);
    for (double v = ylo; v <= yhi + ystep * 1e-9; v += ystep) {
        char lab[40];
        fmt_tick(v, ystep, lab, sizeof lab);
        kvp_report_appendf(t, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                              "stroke=\"#333\"/>\n",
                           x0 - 5.0, PY(v), x0, PY(v));
        svg_text(t, x0 - 8.0, PY(v) + 4.0, "end", 11, "#333", NULL, lab);
    }
    for (double e = xlo; e <= xhi + 1e-9; e += xstep) {
        double v = c->x_log2 ? exp2(e) : e;
        char lab[40];
        if (c->x_log2)
            fmt_pow2(v, lab, sizeof lab);
        else
            fmt_tick(v, xstep, lab, sizeof lab);
        double px = PX(v);
        kvp_report_appendf(t, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                              "stroke=\"#333\"/>\n",
                           px, y0, px, y0 + 5.0);
        svg_text(t, px, y0 + 19.0, "middle", 11, "#333", NULL, lab);
    }
    if (c->x_label)
        svg_text(t, (x0 + x1) / 2.0, y0 + 42.0, "middle", 13, "#222", NULL, c->x_label);
    if (c->y_label) {
        double cy = (y0 + y1) / 2.0;
        kvp_report_appendf(t, "<text x=\"0\" y=\"0\" text-anchor=\"middle\" font-size=\"13\" "
                              "fill=\"#222\" transform=\"translate(%.1f,%.1f) rotate(-90)\">",
                           22.0, cy);
        kvp_report_append_escaped(t, c->y_label);
        kvp_report_append(t, "</text>\n");
    }

    /* Series: a polyline per run of points without gaps, markers, legend. */
    for (size_t s = 0; s < c->series_count; s++) {
        const kvp_chart_series *se = &c->series[s];
        const char *color = k_series_colors[s % SERIES_COLOR_COUNT];
        kvp_report_append(t, "<g class=\"series\">\n");
        size_t i = 0;
        while (i < se->count) {
            while (i < se->count && isnan(se->y[i])) i++;
            if (i >= se->count) break;
            kvp_report_appendf(t, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2.2\" "
                                  "points=\"",
                               color);
            for (; i < se->count && !isnan(se->y[i]); i++)
                kvp_report_appendf(t, "%.1f,%.1f ", PX(se->x[i]), PY(se->y[i]));
            kvp_report_append(t, "\"/>\n");
        }
        if (se->count <= 40)
            for (i = 0; i < se->count; i++) {
                if (isnan(se->y[i])) continue;
                kvp_report_appendf(t, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>",
                                   PX(se->x[i]), PY(se->y[i]), color);
                kvp_report_append_escaped(t, se->name ? se->name : "");
                kvp_report_appendf(t, ": x %g, y %g</title></circle>\n", se->x[i], se->y[i]);
            }
        kvp_report_append(t, "</g>\n");
        double ly = y1 + 8.0 + (double)s * 22.0;
        kvp_report_appendf(t, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                              "stroke=\"%s\" stroke-width=\"3\"/>\n",
                           x1 + 18.0, ly, x1 + 40.0, ly, color);
        svg_text(t, x1 + 46.0, ly + 4.0, "start", 12, "#222", NULL, se->name ? se->name : "");
    }
#undef PX
#undef PY
}

kvp_status kvp_svg_line_chart(const kvp_line_chart *chart, kvp_report_text *out, kvp_error *err) {
    if (!out) return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "no output buffer");
    kvp_status st = check_chart(chart, err);
    if (st != KVP_OK) return st;
    const double height = 440.0;
    svg_open(out, height, chart->title);
    draw_chart(out, chart, 0.0, height);
    kvp_report_append(out, "</svg>\n");
    return kvp_report_text_check(out, err);
}

kvp_status kvp_svg_line_panels(const char *title, const kvp_line_chart *charts,
                               size_t chart_count, kvp_report_text *out, kvp_error *err) {
    if (!out || !charts || chart_count == 0 || chart_count > 8)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "charts",
                         "a panel figure needs 1 to 8 charts, got %zu", chart_count);
    for (size_t i = 0; i < chart_count; i++) {
        kvp_status st = check_chart(&charts[i], err);
        if (st != KVP_OK) return st;
    }
    const double head = title ? 36.0 : 0.0, panel = 320.0;
    double height = head + panel * (double)chart_count;
    svg_open(out, height, title);
    if (title) svg_text(out, 20.0, 26.0, "start", 18, "#222", "bold", title);
    for (size_t i = 0; i < chart_count; i++) {
        kvp_report_appendf(out, "<g class=\"panel\" id=\"panel%zu\">\n", i);
        draw_chart(out, &charts[i], head + panel * (double)i, panel);
        kvp_report_append(out, "</g>\n");
    }
    kvp_report_append(out, "</svg>\n");
    return kvp_report_text_check(out, err);
}

kvp_status kvp_svg_sim_chart(const char *title, const double *step_numbers,
                             const double *block_utilization_pct, const double *running_requests,
                             size_t steps, kvp_report_text *out, kvp_error *err) {
    if (steps == 0 || !block_utilization_pct)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "steps", "the simulation has no steps to draw");
    double *xs = NULL;
    const double *x = step_numbers;
    if (!x) {
        size_t bytes;
        if (__builtin_mul_overflow(steps, sizeof(double), &bytes))
            return kvp__fail(err, KVP_OVERFLOW, NULL, "steps", "too many steps: %zu", steps);
        xs = kvp__malloc(out ? out->alc : NULL, bytes);
        if (!xs) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
        for (size_t i = 0; i < steps; i++) xs[i] = (double)i;
        x = xs;
    }
    kvp_chart_series util = {"block utilization", steps, x, block_utilization_pct};
    kvp_chart_series run = {"running requests", steps, x, running_requests};
    kvp_line_chart charts[2];
    memset(charts, 0, sizeof charts);
    charts[0].title = "KV block utilization";
    charts[0].x_label = "step";
    charts[0].y_label = "blocks in use (%)";
    charts[0].y_from_zero = true;
    charts[0].series_count = 1;
    charts[0].series = &util;
    charts[1].title = "Running requests";
    charts[1].x_label = "step";
    charts[1].y_label = "requests";
    charts[1].y_from_zero = true;
    charts[1].series_count = 1;
    charts[1].series = &run;
    kvp_status st = kvp_svg_line_panels(title ? title : "kvplan sim", charts,
                                        running_requests ? 2 : 1, out, err);
    kvp__free(out ? out->alc : NULL, xs);
    return st;
}
