/*
 * kvplan/report.h — pictures and pages of a plan, written by kvplan itself:
 * SVG charts (a stacked bar of one GPU's memory, line charts for sweeps and
 * simulations) and one self-contained HTML page (tables + inline SVG, no
 * scripts, no external resources). DESIGN.md "report" room.
 *
 * Why SVG text and not a plotting library: the charts must come out of a
 * static C binary that links nothing but jansson; SVG is plain text a browser,
 * an editor or a README renders, and a test can check it structurally.
 *
 * Text accumulates in a kvp_report_text, a growable NUL-terminated buffer.
 * Appends after the first failure are no-ops and the failure is kept in
 * `status`, so a writer can emit many pieces and check once at the end.
 * Every string taken from the caller (titles, labels, series names, table
 * cells) is escaped (& < > " ') before it reaches the output.
 *
 * Files are written to a temporary name in the target folder and renamed
 * over the target, so an interrupted run never leaves half a chart.
 *
 * Thread safety: pure functions of their inputs; a kvp_report_text must not
 * be used from two threads at once. No global state.
 */
#ifndef KVPLAN_REPORT_H
#define KVPLAN_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kvplan/error.h"
#include "kvplan/fit.h"
#include "kvplan/memory.h"
#include "kvplan/model.h"
#include "kvplan/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ text buffer */

/* A growable text buffer. Owns `data` (NUL-terminated once anything was
 * appended; NULL before). Zero-initialising is the same as _init(t, NULL). */
typedef struct kvp_report_text {
    char *data;
    size_t len, cap;
    const kvp_allocator *alc;  /* borrowed; NULL = libc */
    kvp_status status;         /* KVP_OK, or the first failure (KVP_NOMEM, KVP_OVERFLOW) */
} kvp_report_text;

KVP_API void kvp_report_text_init(kvp_report_text *t, const kvp_allocator *alc);
/* Release the buffer; the struct is left empty and reusable. NULL is a no-op. */
KVP_API void kvp_report_text_free(kvp_report_text *t);
/* Append raw text (not escaped) / printf-formatted raw text. */
KVP_API void kvp_report_append(kvp_report_text *t, const char *s);
KVP_API void kvp_report_appendf(kvp_report_text *t, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Append `s` escaped for XML/HTML text and attribute values. */
KVP_API void kvp_report_append_escaped(kvp_report_text *t, const char *s);
/* The buffer's failure as an error (KVP_OK when none). */
KVP_API KVP_NODISCARD kvp_status kvp_report_text_check(const kvp_report_text *t, kvp_error *err);

/* Write `len` bytes to `path` atomically: a temporary file next to it, then
 * rename(2). Only a regular file is written or replaced (through a symbolic link,
 * the file it names): a FIFO, a device (/dev/null), a socket, a directory or a
 * dangling link already at `path` is refused and left alone. KVP_IO names the
 * path and the system error (a full disk, a write past RLIMIT_FSIZE). */
KVP_API KVP_NODISCARD kvp_status kvp_report_write_file(const char *path, const char *data, size_t len,
                                               kvp_error *err);

/* ---------------------------------------------------- memory stacked bar */

/* What a segment of the memory bar is: sets its colour and its place in the
 * legend. KV pools and local caches take successive shades of their hue. */
typedef enum kvp_mem_part {
    KVP_MEM_PART_WEIGHTS = 0,
    KVP_MEM_PART_ACTIVATION,   /* peak activation of the profiling pass */
    KVP_MEM_PART_RUNTIME,      /* outside the allocator: CUDA context, NCCL, CUDA graphs */
    KVP_MEM_PART_RESERVE,      /* MLA workspace, multimodal encoder, user reserves */
    KVP_MEM_PART_KV,           /* one KV pool */
    KVP_MEM_PART_LOCAL,        /* model-local caches */
    KVP_MEM_PART_FREE,         /* margin left unused (1 - fraction, rounding) */
    KVP_MEM_PART_COUNT
} kvp_mem_part;

/* "weights", "activation", "runtime", "reserve", "kv", "local", "free". */
KVP_API const char *kvp_mem_part_name(kvp_mem_part part);

#define KVP_REPORT_LABEL_MAX 96

typedef struct kvp_memory_segment {
    kvp_mem_part part;
    char label[KVP_REPORT_LABEL_MAX];  /* "KV pool 'full' (32 layers)"; "" = part name */
    uint64_t bytes;
} kvp_memory_segment;

#define KVP_REPORT_MAX_SEGMENTS 32

typedef struct kvp_memory_bar {
    const char *title;                 /* NULL = "GPU memory" */
    const char *subtitle;              /* NULL = none ("H100 SXM 80GB, llama-3.1-8b, tp 1") */
    uint64_t total_bytes;              /* the GPU total the bar spans; 0 = sum of segments */
    size_t segment_count;              /* at most KVP_REPORT_MAX_SEGMENTS */
    const kvp_memory_segment *segments;/* left to right */
} kvp_memory_bar;

/* One horizontal stacked bar of a GPU's memory, segments in proportion,
 * each labelled in GiB inside the bar when wide enough and always in the
 * legend below ("weights 14.96 GiB (18.9%)"), with a GiB axis under the bar.
 * When the segments add up to more than total_bytes the bar spans the sum and
 * a dashed marker labelled "GPU total" shows where the device ends.
 * Appends to `out`. KVP_INVALID_ARG for too many segments or an empty bar;
 * KVP_OVERFLOW when the bytes do not add up in 64 bits. */
KVP_API KVP_NODISCARD kvp_status kvp_svg_memory_bar(const kvp_memory_bar *bar, kvp_report_text *out,
                                            kvp_error *err);

/* -------------------------------------------------------------- line chart */

/* One line: `count` points (x[i], y[i]). A NaN y is a gap (no value: the
 * plan was infeasible there); other non-finite values are rejected. */
typedef struct kvp_chart_series {
    const char *name;          /* legend text */
    size_t count;
    const double *x;
    const double *y;
} kvp_chart_series;

#define KVP_REPORT_MAX_SERIES 16

typedef struct kvp_line_chart {
    const char *title;         /* NULL = none */
    const char *x_label;       /* with the unit: "context length (tokens)" */
    const char *y_label;       /* with the unit: "max concurrent sequences" */
    bool x_log2;               /* x on a log2 scale, ticks at powers of two (x > 0) */
    bool y_from_zero;          /* y axis starts at 0 (else at the data minimum) */
    size_t series_count;       /* 1 .. KVP_REPORT_MAX_SERIES */
    const kvp_chart_series *series;
    const char *subtitle;      /* NULL = none; a line under the title (model, GPU) */
} kvp_line_chart;

/* A line chart: axes with ticks and tick labels, axis titles, grid, a
 * polyline with point markers per series and a legend. Appends one <svg>
 * element to `out`. KVP_INVALID_ARG for no series, no points at all, a
 * non-finite x, an infinite y, or x <= 0 on a log2 axis. */
KVP_API KVP_NODISCARD kvp_status kvp_svg_line_chart(const kvp_line_chart *chart, kvp_report_text *out,
                                            kvp_error *err);

/* Several line charts stacked vertically in one <svg>, sharing nothing but
 * the width (the simulation's block utilization above running requests).
 * `title` (may be NULL) heads the whole figure. 1 .. 8 panels. */
KVP_API KVP_NODISCARD kvp_status kvp_svg_line_panels(const char *title, const kvp_line_chart *charts,
                                             size_t chart_count, kvp_report_text *out,
                                             kvp_error *err);

/* The simulation figure: block utilization (percent, 0-100) and running
 * requests against the step number, two panels. `steps` entries each;
 * `step_numbers` may be NULL (0, 1, 2, ...); `running_requests` may be NULL
 * (one panel: utilization only). */
KVP_API KVP_NODISCARD kvp_status kvp_svg_sim_chart(const char *title, const double *step_numbers,
                                           const double *block_utilization_pct,
                                           const double *running_requests, size_t steps,
                                           kvp_report_text *out, kvp_error *err);

/* ---------------------------------------------------------------- HTML page */

/* A self-contained page: <!DOCTYPE html>, inline CSS, no scripts, no links
 * to anything outside the file. Call _begin, then any of the pieces, then
 * _end; check `t->status` (or the return of _end). */
KVP_API void kvp_html_begin(kvp_report_text *t, const char *title);
/* <h2>/<h3> heading (level 2 or 3), escaped. */
KVP_API void kvp_html_heading(kvp_report_text *t, int level, const char *text);
/* A paragraph of escaped text. */
KVP_API void kvp_html_paragraph(kvp_report_text *t, const char *text);
/* A preformatted block of escaped text (a plan's text report). */
KVP_API void kvp_html_pre(kvp_report_text *t, const char *text);
/* A table: `header` has `cols` cells (may be NULL: no header row), `cells`
 * rows * cols cells in row order (NULL cell = empty). Cells that look like
 * numbers are right-aligned. */
KVP_API void kvp_html_table(kvp_report_text *t, const char *caption, size_t cols,
                    const char *const *header, size_t rows, const char *const *cells);
/* Inline an SVG produced by the functions above (raw, not escaped). */
KVP_API void kvp_html_svg(kvp_report_text *t, const kvp_report_text *svg);
/* Close the page; returns the buffer's status as an error. */
KVP_API KVP_NODISCARD kvp_status kvp_html_end(kvp_report_text *t, kvp_error *err);

/* ------------------------------------------------------- memory picture */

/* The segments of the stacked memory bar (weights, activation peak, runtime,
 * reserves, each KV pool, model-local caches `local_bytes`, the free margin)
 * from the pieces `kvplan plan` holds (any may be NULL except plan): memory
 * facts, capacity (reserves), the creator's plan. */
KVP_API size_t kvp_report_plan_segments(const kvp_memory_facts *mem, const kvp_capacity *cap,
                                const kvp_plan *plan, uint64_t local_bytes,
                                kvp_memory_segment *out, size_t out_cap);

/* Write the memory bar of a plan as an SVG file (atomically). `subtitle`
 * may be NULL. */
KVP_API KVP_NODISCARD kvp_status kvp_report_write_plan_svg(const char *path, const char *subtitle,
                                                   const kvp_memory_facts *mem,
                                                   const kvp_capacity *cap, const kvp_plan *plan,
                                                   uint64_t local_bytes, kvp_error *err);

/* Write one self-contained HTML page: `text_report` (the plan as printed,
 * may be NULL) in a <pre>, a pool table and the memory bar. */
KVP_API KVP_NODISCARD kvp_status kvp_report_write_plan_html(const char *path, const char *title,
                                                    const char *text_report,
                                                    const kvp_memory_facts *mem,
                                                    const kvp_capacity *cap, const kvp_plan *plan,
                                                    uint64_t local_bytes, kvp_error *err);

#ifdef __cplusplus
}
#endif
#endif
