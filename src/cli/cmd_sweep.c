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
#include "settle.h" /* kvp__options_axis_fixed */
#include "fit_env.h"
#include "kvplan/render.h"
#include "kvplan/sweep.h"
#include "from_cmd.h" /* kvp_cli_from_run, kvp_cli_from_model */
#include "progress.h"
#include "text_internal.h"
#include "util.h"

#define DEFAULT_MAX_PLANS KVP_SWEEP_DEFAULT_MAX_PLANS
#define MAX_PLANS_CAP KVP_SWEEP_MAX_PLANS

/* The grid is the library's (kvplan/sweep.h): one --over parser for the CLI,
 * kvp_json_call and kvplan serve; its axes are named as the option table's
 * rows they vary (kvp__options_axis_fixed). */
#define AXES_MAX 8

/* One --over KEY=VALUES into the grid; the library names the setting "over",
 * the user typed --over. */
static kvp_status over(void *grid, const char *spec, kvp_error *err) {
    kvp_error e;
    kvp_error_clear(&e);
    if (kvp_sweep_grid_over(grid, spec, &e) != KVP_OK)
        return fit_cli_refuse(err, e.code, "--over", "--%s", e.message);
    return KVP_OK;
}

/* --max-plans N: the bound on the grid. */
static kvp_status max_plans_word(void *out, const char *v, kvp_error *err) {
    uint64_t *max_plans = out;
    if (fit_cli_count("--max-plans", v, max_plans, err) != KVP_OK) return err->code;
    if (*max_plans == 0 || *max_plans > MAX_PLANS_CAP)
        return fit_cli_refuse(err, KVP_INVALID_ARG, "--max-plans", "--max-plans: expected 1 to %u",
                              MAX_PLANS_CAP);
    return KVP_OK;
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
    kvp__sweep_keep *keep;             /* --svg / --html: every row's figures; NULL otherwise */
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
        fputs(KVP__SWEEP_CSV_HEAD, stdout);
    } else {
        kvp_report_text t = {0};
        kvp__sweep_text_head(kvp_model_name(c->model), c->has_gpu_info ? c->gpu_info.name : NULL,
                             so->count, &t);
        kvp_cli_write_text(&t, stdout);
        kvp_report_text_free(&t);
    }
    return KVP_OK;
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
    } else {
        kvp_report_text t = {0};
        (so->format == FORMAT_CSV ? kvp__sweep_csv_row : kvp__sweep_text_row)(e, &t);
        kvp_cli_write_text(&t, stdout);
        kvp_report_text_free(&t);
    }
    so->any_starts = so->any_starts || e->starts;
    if (!fit_eval_bad_input(e)) {
        so->all_bad_input = false;
    } else if (!so->first_bad && (so->first_bad = malloc(sizeof *so->first_bad)) != NULL) {
        *so->first_bad = *e;
    }
    if (so->keep) { /* what the chart needs (the report room's, text_sweep.c) */
        if ((st = kvp__sweep_keep_row(e, &so->keep[so->kept], err)) != KVP_OK) return st;
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
    const kvp__argv_own own[] = {{"--over", KVP__OWN_CALL, grid, 0, 0, over},
                                 {"--max-plans", KVP__OWN_CALL, &max_plans, 0, 0, max_plans_word},
                                 {"--csv", KVP__OWN_FLAG, &csv, 0, 0, NULL},
                                 {"--svg", KVP__OWN_TEXT, &svg, 0, 0, NULL},
                                 {"--html", KVP__OWN_TEXT, &html, 0, 0, NULL},
                                 {"--timing", KVP__OWN_FLAG, &timing, 0, 0, NULL},
                                 {"--quiet", KVP__OWN_FLAG, &quiet, 0, 0, NULL},
                                 {NULL, 0, NULL, 0, 0, NULL}};
    if (rc < 0) rc = fit_cli_read(&c, own, argc, argv);
    if (rc >= 0) goto out;
    /* Contradictions name both sides: an axis and the fixed option it varies
     * (the options room's reading, kvp_json_call's too), and two output formats. */
    const char *names[AXES_MAX];
    size_t n_axes = kvp_sweep_grid_axes(grid, names, AXES_MAX);
    const kvp_option *fixed = kvp__options_axis_fixed(c.opt, names, n_axes);
    if (fixed) {
        char over_axis[48];
        snprintf(over_axis, sizeof over_axis, "--over %s", fixed->name + 2);
        rc = kvp_cli_contradiction(over_axis, kvp_options_typed(c.opt, fixed->name),
                                   "the axis varies what the option fixes; give one", c.json);
    }
    if (rc < 0 && csv && c.json)
        rc = kvp_cli_contradiction("--csv", "--json", "give one output format", c.json);
    if (rc >= 0) goto out;
    /* Several engines planned: no spelling chooses one. */
    /* A policy axis plans several engines: the options given are checked
     * against each of them (kvp_options_finish). */
    if (kvp_sweep_grid_axis_size(grid, "policy")) c.opt->engines_vary = true;
    c.opt->engines_planned |= kvp_sweep_grid_engines(grid);
    if (n_axes == 0) {
        rc = fit_cli_bad(&c, KVP_INVALID_ARG, "--over",
                         "sweep needs at least one --over KEY=VALUES (e.g. "
                         "--over max-seq-len=4k..128k)");
        goto out;
    }
    if ((rc = kvp_cli_one_file_as(c.json, "--svg", svg, "--html", html)) ||
        (rc = kvp_cli_output_over_inputs(c.json, "--svg", svg, c.model_arg)) ||
        (rc = kvp_cli_output_over_inputs(c.json, "--html", html, c.model_arg)))
        goto out;
    if ((svg || html) && kvp_sweep_grid_axis_size(grid, "max-seq-len") < 2) {
        rc = fit_cli_bad(&c, KVP_INVALID_ARG, svg ? "--svg" : "--html",
                         "the chart draws max sequences against max-seq-len: sweep it with "
                         "--over max-seq-len=LO..HI");
        goto out;
    }
    /* The grid's size, the library's count (past the cap: "too many"). */
    kvp_error cerr;
    uint64_t n_plans = 0;
    count = kvp_sweep_grid_count(grid, MAX_PLANS_CAP, &n_plans, &cerr) == KVP_OK ? n_plans : UINT64_MAX;
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
    so.axes = names;
    so.n_axes = n_axes;
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
    if ((svg || html) &&
        kvp__sweep_pictures(kvp_model_name(c.model), c.has_gpu_info ? c.gpu_info.name : NULL, grid,
                            so.keep, count, svg, html, &err) != KVP_OK)
        rc = kvp_cli_report_error(&err, c.json);
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
