/* cmd_sweep.c — `kvplan sweep MODEL --gpu ... --over KEY=VALUES ...`: plan
 * every point of a grid (policy x kv dtype x tp x pp x max_seq_len) and print
 * tokens, blocks and max sequences as a table, CSV or JSON; --svg draws max
 * sequences against context length, a line per remaining combination. A grid
 * larger than --max-plans is refused before anything is planned. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli_options.h"
#include "fit_env.h"
#include "kvplan/render.h"
#include "kvplan/sweep.h"
#include "from_cmd.h" /* kvp_cli_from_run, kvp_cli_from_model */
#include "progress.h"
#include "util.h"

#define DEFAULT_MAX_PLANS KVP_SWEEP_DEFAULT_MAX_PLANS
#define MAX_PLANS_CAP KVP_SWEEP_MAX_PLANS

typedef enum axis_kind { AX_POLICY = 0, AX_KV_DTYPE, AX_TP, AX_PP, AX_SEQ_LEN, AX_COUNT } axis_kind;

static const char *const k_axis_names[AX_COUNT] = {"policy", "kv-dtype", "tp", "pp",
                                                   "max-seq-len"};

/* The grid is the library's (kvplan/sweep.h): one --over parser for the CLI,
 * kvp_json_call and kvplan serve. Values of axis k (0 when not swept). */
static size_t axis_n(const kvp_sweep_grid *g, int k) { return kvp_sweep_grid_axis_size(g, k_axis_names[k]); }

/* What --svg and --html keep of a row (the rest is written and dropped as the
 * grid is planned): the point, its figures and the reason shown. */
typedef struct chart_row {
    kvp_fit_point point;
    bool ok;
    uint64_t budget_bytes, tokens, blocks, max_sequences;
    char *why;                   /* binding, or the error (owned) */
} chart_row;

static void usage(FILE *out) {
    fputs("usage: kvplan sweep MODEL (--gpu NAME | --gpu-mem BYTES | --kv-budget BYTES) "
          "--over KEY=VALUES ...\n"
          "  --over KEY=VALUES            KEY: max-seq-len, kv-dtype, tp, pp, policy\n"
          "                               VALUES: a,b,c   4k..128k (doubling)   1k..8k+1k (step)\n"
          "  --max-plans N                refuse grids larger than N (default 10000)\n"
          "  --csv                        comma-separated output\n"
          "  --svg FILE                   max sequences vs max-seq-len, a line per combination\n"
          "  --html FILE                  one self-contained page: chart and table\n"
          "  --timing                     print plans per second on stderr\n"
          "  --quiet                      no progress line on stderr (shown on a terminal after 1 s)\n",
          out);
    fit_cli_usage(out, KVP_COMMAND_SWEEP);
}

/* One --over KEY=VALUES into the grid; the library names the setting "over",
 * the user typed --over. */
static int parse_over(const fit_cli *c, const char *spec, kvp_sweep_grid *grid) {
    kvp_error e;
    kvp_error_clear(&e);
    if (kvp_sweep_grid_over(grid, spec, &e) != KVP_OK)
        return fit_cli_bad(c, e.code, "--over", "--%s", e.message);
    return -1;
}

static void csv_field(const char *s) {
    if (!strpbrk(s, ",\"\n")) {
        fputs(s, stdout);
        return;
    }
    fputc('"', stdout);
    for (; *s; s++) {
        if (*s == '"') fputc('"', stdout);
        fputc(*s, stdout);
    }
    fputc('"', stdout);
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
static void series_name(const kvp_sweep_grid *grid, const chart_row *e, char *buf, size_t n) {
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

static kvp_status build_chart(const fit_cli *c, const kvp_sweep_grid *grid, const chart_row *evals,
                              size_t count, kvp_report_text *svg, kvp_error *err) {
    size_t per = axis_n(grid, AX_SEQ_LEN), nseries = count / per;
    if (nseries > KVP_REPORT_MAX_SERIES)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "--svg",
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
        const chart_row *e = &evals[i];
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
    char sub[256];
    snprintf(sub, sizeof sub, "%s%s%s", kvp_model_name(c->model), c->has_gpu_info ? " on " : "",
             c->has_gpu_info ? c->gpu_info.name : "");
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

static int write_outputs(const fit_cli *c, const kvp_sweep_grid *grid, const chart_row *evals, size_t count,
                         const char *svg_path, const char *html_path) {
    kvp_error err;
    kvp_error_clear(&err);
    kvp_report_text svg;
    kvp_report_text_init(&svg, NULL);
    kvp_status st = build_chart(c, grid, evals, count, &svg, &err);
    if (st != KVP_OK) {
        kvp_report_text_free(&svg);
        return kvp_cli_report_error(&err, c->json);
    }
    if (svg_path) st = kvp_report_write_file(svg_path, svg.data, svg.len, &err);
    if (st == KVP_OK && html_path) {
        kvp_report_text page;
        kvp_report_text_init(&page, NULL);
        char title[256];
        snprintf(title, sizeof title, "kvplan sweep: %s%s%s", kvp_model_name(c->model),
                 c->has_gpu_info ? " on " : "", c->has_gpu_info ? c->gpu_info.name : "");
        kvp_html_begin(&page, title);
        kvp_html_svg(&page, &svg);
        enum { COLS = 10 };
        static const char *const header[COLS] = {"policy", "tp", "pp", "kv dtype", "max_seq_len",
                                                 "budget GiB", "tokens", "blocks", "max seqs",
                                                 "limited by"};
        const char **cells = calloc(count * COLS, sizeof *cells);
        char (*text)[8][64] = calloc(count, sizeof *text);
        if (!cells || !text) {
            free(cells);
            free(text);
            kvp_report_text_free(&page);
            kvp_report_text_free(&svg);
            return kvp_cli_fail("out of memory");
        }
        for (size_t i = 0; i < count; i++) {
            const chart_row *e = &evals[i];
            const char **r = &cells[i * COLS];
            r[0] = kvp_engine_name(e->point.engine);
            snprintf(text[i][0], 64, "%u", e->point.tp);
            snprintf(text[i][1], 64, "%u", e->point.pp);
            r[1] = text[i][0];
            r[2] = text[i][1];
            r[3] = e->point.kv_dtype;
            kvp_cli_fmt_count(e->point.max_seq_len, text[i][2], 64);
            r[4] = text[i][2];
            if (e->ok) {
                snprintf(text[i][3], 64, "%.2f", (double)e->budget_bytes / 1073741824.0);
                kvp_cli_fmt_count(e->tokens, text[i][4], 64);
                kvp_cli_fmt_count(e->blocks, text[i][5], 64);
                kvp_cli_fmt_count(e->max_sequences, text[i][6], 64);
            } else {
                snprintf(text[i][3], 64, "-");
                snprintf(text[i][4], 64, "-");
                snprintf(text[i][5], 64, "-");
                snprintf(text[i][6], 64, "-");
            }
            r[9] = e->why;
            for (int k = 0; k < 4; k++) r[5 + k] = text[i][3 + k];
        }
        kvp_html_table(&page, "every plan of the grid", COLS, header, count, cells);
        st = kvp_html_end(&page, &err);
        if (st == KVP_OK) st = kvp_report_write_file(html_path, page.data, page.len, &err);
        free(cells);
        free(text);
        kvp_report_text_free(&page);
    }
    kvp_report_text_free(&svg);
    if (st != KVP_OK) return kvp_cli_report_error(&err, c->json);
    return -1;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------ the rows */

typedef enum sweep_format { FORMAT_TEXT = 0, FORMAT_CSV, FORMAT_JSON } sweep_format;

/* What the row callback writes with, and what it keeps. */
typedef struct sweep_out {
    const fit_cli *c;
    uint64_t count;
    sweep_format format;
    const char *const *axes;     /* the JSON head's "axes" */
    size_t n_axes;
    kvp_cli_progress prog;
    bool stdout_tty;             /* rows and the progress line share the terminal */
    bool any_starts;
    bool all_bad_input;          /* every row so far refused for its input */
    kvp_fit_eval *first_bad;     /* the first such row (owned), for the error line */
    chart_row *keep;             /* --svg / --html: every row's figures; NULL otherwise */
    size_t kept;
    int rc;                      /* an exit status the callback already reported, -1 */
} sweep_out;

/* The lines before the first row. */
static kvp_status write_head(sweep_out *so, kvp_error *err) {
    const fit_cli *c = so->c;
    if (so->format == FORMAT_JSON) {
        kvp_render_input in = {c->model, c->has_gpu_info ? c->gpu_info.name : NULL, NULL, NULL, 0, NULL, NULL};
        char *text = NULL;
        kvp_status st = kvp_render_sweep_json_head(&in, so->axes, so->n_axes, so->count, &text, err);
        if (st != KVP_OK) return st;
        fputs(text, stdout);
        kvp_render_free(text);
    } else if (so->format == FORMAT_CSV) {
        puts("policy,tp,pp,kv_dtype,max_seq_len,ok,budget_bytes,kv_bytes,tokens,blocks,"
             "max_sequences,longest_sequence_tokens,bound_by");
    } else {
        printf("model: %s", kvp_model_name(c->model));
        if (c->has_gpu_info) printf("   gpu: %s", c->gpu_info.name);
        printf("   plans: %llu\n\n", (unsigned long long)so->count);
        printf("%-8s %4s %3s %-9s %11s %10s %12s %9s %9s  %s\n", "policy", "tp", "pp", "kv dtype",
               "max_seq_len", "budget GiB", "KV tokens", "blocks", "max seqs", "limited by");
    }
    return KVP_OK;
}

static void write_csv_row(const kvp_fit_eval *e) {
    printf("%s,%u,%u,", kvp_engine_name(e->point.engine), e->point.tp, e->point.pp);
    csv_field(e->point.kv_dtype);
    printf(",%llu,%s,", (unsigned long long)e->point.max_seq_len,
           e->status == KVP_OK ? "true" : "false");
    if (e->status == KVP_OK) {
        printf("%llu,%llu,%llu,%llu,%llu,", (unsigned long long)e->budget_bytes,
               (unsigned long long)e->kv_bytes, (unsigned long long)e->tokens,
               (unsigned long long)e->blocks, (unsigned long long)e->max_sequences);
        if (e->longest_tokens != UINT64_MAX) printf("%llu", (unsigned long long)e->longest_tokens);
        fputc(',', stdout);
        csv_field(e->binding);
    } else {
        fputs(",,,,,,", stdout);
        csv_field(e->message);
    }
    fputc('\n', stdout);
}

static void write_text_row(const kvp_fit_eval *e) {
    char n1[32], n2[32], n3[32], n4[32], why[96];
    printf("%-8s %4u %3u %-9s %11s ", kvp_engine_name(e->point.engine), e->point.tp, e->point.pp,
           e->point.kv_dtype, kvp_cli_fmt_count(e->point.max_seq_len, n1, sizeof n1));
    if (e->status == KVP_OK) {
        const char *bound = NULL;
        uint64_t admitted = fit_eval_admitted(e, &bound);
        short_reason(bound, why, sizeof why);
        printf("%10.2f %12s %9s %9s  %s\n", (double)e->budget_bytes / 1073741824.0,
               kvp_cli_fmt_count(e->tokens, n2, sizeof n2), kvp_cli_fmt_count(e->blocks, n3, sizeof n3),
               kvp_cli_fmt_count(admitted, n4, sizeof n4), why);
    } else {
        char buf[KVP_ERROR_MESSAGE_MAX + 32];
        short_reason(fit_eval_reason(e, buf, sizeof buf), why, sizeof why);
        printf("%10s %12s %9s %9s  %s\n", "-", "-", "-", "-", why);
    }
}

/* kvp_sweep_run's row callback: write the row as it is planned; keep what the
 * chart needs. */
static kvp_status sweep_row(uint64_t index, uint64_t count, const kvp_fit_eval *e, void *ctx,
                            kvp_error *err) {
    sweep_out *so = ctx;
    /* On a terminal the progress line is erased before a row is written under it. */
    if (so->stdout_tty) kvp_cli_progress_end(&so->prog);
    kvp_status st = index == 0 ? write_head(so, err) : KVP_OK;
    if (st != KVP_OK) return st;
    if (so->format == FORMAT_JSON) {
        char *text = NULL;
        if ((st = kvp_render_sweep_json_row(e, index, &text, err)) != KVP_OK) return st;
        fputs(text, stdout);
        kvp_render_free(text);
    } else if (so->format == FORMAT_CSV) {
        write_csv_row(e);
    } else {
        write_text_row(e);
    }
    so->any_starts = so->any_starts || e->starts;
    if (!fit_eval_bad_input(e)) {
        so->all_bad_input = false;
    } else if (!so->first_bad && (so->first_bad = malloc(sizeof *so->first_bad)) != NULL) {
        *so->first_bad = *e;
    }
    if (so->keep) {
        chart_row *k = &so->keep[so->kept];
        const char *bound = NULL;
        uint64_t admitted = fit_eval_admitted(e, &bound);
        const char *why = e->status == KVP_OK ? bound : e->message;
        k->point = e->point;
        k->ok = e->status == KVP_OK;
        k->budget_bytes = e->budget_bytes;
        k->tokens = e->tokens;
        k->blocks = e->blocks;
        k->max_sequences = admitted; /* as the table prints it */
        k->why = strdup(why);
        if (!k->why) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
        so->kept++;
    }
    kvp_cli_progress_update(&so->prog, index + 1, count);
    return KVP_OK;
}

static int sweep_main(int argc, char **argv);

/* --from "vllm serve ...": the engine's command fills the settings of the run. */
int kvp_cmd_sweep(int argc, char **argv) { return kvp_cli_from_run(argc, argv, sweep_main); }

static int sweep_main(int argc, char **argv) {
    fit_cli c;
    fit_cli_init(&c, argc, argv);
    kvp_sweep_grid *grid = kvp_sweep_grid_new();
    uint64_t max_plans = DEFAULT_MAX_PLANS;
    bool csv = false, timing = false, quiet = false;
    const char *svg = NULL, *html = NULL;
    int rc = grid ? -1 : kvp_cli_fail("out of memory");
    if (rc < 0) rc = fit_cli_from(&c); /* --from's settings first, argv on top */
    size_t count = 1;
    sweep_out so;
    memset(&so, 0, sizeof so);
    so.all_bad_input = true;
    static const char *const extra[] = {"--over", "--max-plans", "--csv", "--svg", "--html",
                                        "--timing", "--quiet", NULL};
    for (int i = 1; i < argc && rc < 0; i++) {
        const char *a = argv[i], *v = NULL;
        bool handled = false, bad = false;
        if (kvp_cli_flag(a, "--help") || kvp_cli_flag(a, "-h")) {
            usage(stdout);
            rc = KVP_EXIT_OK;
            break;
        }
        rc = fit_cli_option(&c, argc, argv, &i, &handled);
        if (rc >= 0 || handled) continue;
        if (kvp_cli_opt(argc, argv, &i, "--over", &v, &bad)) {
            rc = bad ? KVP_EXIT_BAD_INPUT : parse_over(&c, v, grid);
        } else if (kvp_cli_opt(argc, argv, &i, "--max-plans", &v, &bad)) {
            if (bad || !kvp_cli_u64_count("--max-plans", v, &max_plans))
                rc = KVP_EXIT_BAD_INPUT;
            else if (max_plans == 0 || max_plans > MAX_PLANS_CAP)
                rc = fit_cli_bad(&c, KVP_INVALID_ARG, "--max-plans",
                                 "--max-plans: expected 1 to %u", MAX_PLANS_CAP);
        } else if (kvp_cli_flag(a, "--csv")) {
            csv = true;
        } else if (kvp_cli_flag(a, "--timing")) {
            timing = true;
        } else if (kvp_cli_flag(a, "--quiet")) {
            quiet = true;
        } else if (kvp_cli_opt(argc, argv, &i, "--svg", &v, &bad)) {
            if (bad) rc = KVP_EXIT_BAD_INPUT;
            svg = v;
        } else if (kvp_cli_opt(argc, argv, &i, "--html", &v, &bad)) {
            if (bad) rc = KVP_EXIT_BAD_INPUT;
            html = v;
        } else if (a[0] == '-' && a[1] != '\0') {
            rc = fit_cli_unknown_option(&c, a, extra);
        } else if (!c.model_arg) {
            c.model_arg = a;
        } else {
            rc = fit_cli_bad(&c, KVP_INVALID_ARG, NULL, "sweep takes one MODEL, got a second: '%s'",
                             a);
        }
    }
    if (rc >= 0) goto out;
    /* Contradictions name both sides: an axis and the fixed option it varies,
     * and two output formats. */
    static const char *const k_axis_option[AX_COUNT] = {"--policy", "--kv-dtype", "--tp", "--pp",
                                                        "--max-seq-len"};
    for (int k = 0; k < AX_COUNT && rc < 0; k++)
        if (axis_n(grid, k) && kvp_options_given(c.opt, k_axis_option[k])) {
            char over[48];
            snprintf(over, sizeof over, "--over %s", k_axis_names[k]);
            rc = kvp_cli_contradiction(over, kvp_options_typed(c.opt, k_axis_option[k]),
                                       "the axis varies what the option fixes; give one", c.json);
        }
    if (rc < 0 && csv && c.json)
        rc = kvp_cli_contradiction("--csv", "--json", "give one output format", c.json);
    if (rc >= 0) goto out;
    /* Several engines planned: no spelling chooses one. */
    /* A policy axis plans several engines: the options given are checked
     * against each of them (kvp_options_finish). */
    if (axis_n(grid, AX_POLICY)) c.opt->engines_vary = true;
    c.opt->engines_planned |= kvp_sweep_grid_engines(grid);
    if (kvp_sweep_grid_axes(grid, NULL, 0) == 0) {
        rc = fit_cli_bad(&c, KVP_INVALID_ARG, "--over",
                         "sweep needs at least one --over KEY=VALUES (e.g. "
                         "--over max-seq-len=4k..128k)");
        goto out;
    }
    if ((rc = kvp_cli_one_file_as(c.json, "--svg", svg, "--html", html)) ||
        (rc = kvp_cli_output_over_inputs(c.json, "--svg", svg, c.model_arg)) ||
        (rc = kvp_cli_output_over_inputs(c.json, "--html", html, c.model_arg)))
        goto out;
    if ((svg || html) && axis_n(grid, AX_SEQ_LEN) < 2) {
        rc = fit_cli_bad(&c, KVP_INVALID_ARG, svg ? "--svg" : "--html",
                         "the chart draws max sequences against max-seq-len: sweep it with "
                         "--over max-seq-len=LO..HI");
        goto out;
    }
    for (int k = 0; k < AX_COUNT; k++) {
        if (!axis_n(grid, k)) continue;
        if (!kvp__mul_u64(count, axis_n(grid, k), &count) || count > MAX_PLANS_CAP) count = UINT64_MAX;
    }
    if (count > max_plans) {
        char n1[32];
        rc = fit_cli_bad(&c, KVP_INVALID_ARG, "--max-plans",
                         "the grid has %s plans, more than --max-plans %llu: narrow --over or "
                         "raise --max-plans (at most %u)",
                         count == UINT64_MAX ? "too many" : kvp_cli_fmt_count(count, n1, sizeof n1),
                         (unsigned long long)max_plans, MAX_PLANS_CAP);
        goto out;
    }
    c.model_arg = kvp_cli_from_model(c.model_arg); /* the --from command's, unless given */
    rc = fit_cli_finish(&c, "sweep");
    if (rc >= 0) goto out;

    so.c = &c;
    so.rc = -1;
    so.count = count;
    so.format = c.json ? FORMAT_JSON : csv ? FORMAT_CSV : FORMAT_TEXT;
    so.stdout_tty = isatty(STDOUT_FILENO);
    const char *names[AX_COUNT];
    so.axes = names;
    so.n_axes = kvp_sweep_grid_axes(grid, names, AX_COUNT);
    if (svg || html) {
        so.keep = calloc(count, sizeof *so.keep);
        if (!so.keep) {
            rc = kvp_cli_fail("out of memory");
            goto out;
        }
    }
    double t0 = now_s();
    kvp_cli_progress_begin(&so.prog, "sweep", "plans", quiet);
    /* Rows are planned and written one at a time (kvp_sweep_run): memory does not
     * grow with the grid. The grid's odometer order: policy outermost, length
     * innermost (a chart line is contiguous). */
    kvp_error err;
    kvp_error_clear(&err);
    kvp_status st = kvp_sweep_run(grid, &c.env, &c.base, count, sweep_row, &so, &err);
    kvp_cli_progress_end(&so.prog);
    if (st != KVP_OK) {
        rc = so.rc >= 0 ? so.rc : kvp_cli_report_error(&err, c.json);
        goto out;
    }
    if (so.format == FORMAT_JSON) {
        fputs(kvp_render_sweep_json_tail(count), stdout);
        fputc('\n', stdout);
    }
    double dt = now_s() - t0;
    if (timing)
        fprintf(stderr, "kvplan: %zu plans in %.1f ms (%.0f plans/s)\n", count, dt * 1e3,
                dt > 0 ? (double)count / dt : 0.0);
    rc = -1;
    if (svg || html) rc = write_outputs(&c, grid, so.keep, count, svg, html);
    /* No point of the grid would start (a start-up rule, or one request does not
     * fit): exit 1, as `plan` does. */
    /* Every point refused for its input (measured memory facts that cannot be true
     * together): bad input, exit 2 with the first refusal on stderr, as `plan` gives it
     * (the rows are written already, so --json's document stays whole). */
    if (rc < 0 && !so.any_starts && so.all_bad_input && so.first_bad)
        rc = fit_eval_report(so.first_bad, false);
    if (rc < 0) rc = so.any_starts ? KVP_EXIT_OK : KVP_EXIT_NO;
out:
    free(so.first_bad);
    for (size_t i = 0; so.keep && i < so.kept; i++) free(so.keep[i].why);
    free(so.keep);
    kvp_sweep_grid_free(grid);
    fit_cli_free(&c);
    return rc;
}
