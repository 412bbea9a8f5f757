/* cmd_sweep.c — `kvplan sweep MODEL --gpu ... --over KEY=VALUES ...`: plan
 * every point of a grid (policy x kv dtype x tp x pp x max_seq_len) and print
 * tokens, blocks and max sequences as a table, CSV or JSON; --svg draws max
 * sequences against context length, a line per remaining combination. A grid
 * larger than --max-plans is refused before anything is planned. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli_options.h"
#include "fit_env.h"
#include "kvplan/render.h"
#include "from_cmd.h"
#include "progress.h"
#include "util.h"

#define DEFAULT_MAX_PLANS 10000u
#define MAX_PLANS_CAP 1000000u
#define MAX_LIST 256

typedef enum axis_kind { AX_POLICY = 0, AX_KV_DTYPE, AX_TP, AX_PP, AX_SEQ_LEN, AX_COUNT } axis_kind;

static const char *const k_axis_names[AX_COUNT] = {"policy", "kv-dtype", "tp", "pp",
                                                   "max-seq-len"};

typedef struct axis {
    bool used;
    size_t n;
    char (*text)[24];   /* n values as text (policy, dtype) */
    uint64_t *num;      /* n values (tp, pp, length) */
} axis;

typedef struct row {
    kvp_fit_eval *e;
} row;

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

static bool axis_key(const char *k, axis_kind *out) {
    if (!strcmp(k, "max-seq-len") || !strcmp(k, "seq-len") || !strcmp(k, "max-model-len") ||
        !strcmp(k, "context") || !strcmp(k, "context-length") || !strcmp(k, "max_seq_len"))
        *out = AX_SEQ_LEN;
    else if (!strcmp(k, "kv-dtype") || !strcmp(k, "dtype") || !strcmp(k, "kv_dtype"))
        *out = AX_KV_DTYPE;
    else if (!strcmp(k, "tp"))
        *out = AX_TP;
    else if (!strcmp(k, "pp"))
        *out = AX_PP;
    else if (!strcmp(k, "policy") || !strcmp(k, "engine"))
        *out = AX_POLICY;
    else
        return false;
    return true;
}

/* Values of one item "a", "a..b" (doubling) or "a..b+s" (step s). Counts
 * first (out NULL) so the grid can be checked before anything is stored. */
static int numeric_item(const fit_cli *c, const char *key, const char *item, uint64_t *out,
                        size_t cap, size_t *count) {
    char buf[96];
    kvp__strlcpy(buf, item, sizeof buf);
    char *dots = strstr(buf, "..");
    kvp_error e;
    uint64_t lo, hi, step = 0;
    if (!dots) {
        if (kvp_parse_count(buf, &lo, &e) != KVP_OK || lo == 0)
            return fit_cli_bad(c, KVP_INVALID_ARG, "--over", "--over %s: '%s' is not a positive count",
                               key, item);
        if (out && *count < cap) out[*count] = lo;
        (*count)++;
        return -1;
    }
    *dots = '\0';
    char *rhs = dots + 2, *plus = strchr(rhs, '+');
    if (plus) {
        *plus = '\0';
        if (kvp_parse_count(plus + 1, &step, &e) != KVP_OK || step == 0)
            return fit_cli_bad(c, KVP_INVALID_ARG, "--over", "--over %s: bad step in '%s'", key,
                               item);
    }
    if (kvp_parse_count(buf, &lo, &e) != KVP_OK || kvp_parse_count(rhs, &hi, &e) != KVP_OK ||
        lo == 0 || hi < lo)
        return fit_cli_bad(c, KVP_INVALID_ARG, "--over",
                           "--over %s: '%s' is not a range LO..HI with 0 < LO <= HI", key, item);
    for (uint64_t v = lo; v <= hi;) {
        if (*count > MAX_PLANS_CAP)
            return fit_cli_bad(c, KVP_INVALID_ARG, "--over",
                               "--over %s: '%s' has more than %u values", key, item, MAX_PLANS_CAP);
        if (out && *count < cap) out[*count] = v;
        (*count)++;
        uint64_t next;
        if (step ? !kvp__add_u64(v, step, &next) : !kvp__mul_u64(v, 2, &next)) break;
        v = next;
    }
    return -1;
}

static int parse_over(const fit_cli *c, const char *spec, axis *axes) {
    char key[48];
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec || (size_t)(eq - spec) >= sizeof key || !eq[1])
        return fit_cli_bad(c, KVP_INVALID_ARG, "--over",
                           "--over: '%s' is not KEY=VALUES (e.g. max-seq-len=4k..128k)", spec);
    memcpy(key, spec, (size_t)(eq - spec));
    key[eq - spec] = '\0';
    axis_kind k;
    if (!axis_key(key, &k))
        return fit_cli_bad(c, KVP_INVALID_ARG, "--over",
                           "--over: unknown key '%s' (expected max-seq-len, kv-dtype, tp, pp, "
                           "policy)",
                           key);
    axis *a = &axes[k];
    if (a->used)
        return fit_cli_bad(c, KVP_INVALID_ARG, "--over", "--over %s given twice", key);
    a->used = true;
    const char *vals = eq + 1;
    if (strlen(vals) > 4000)
        return fit_cli_bad(c, KVP_INVALID_ARG, "--over", "--over %s: the list is too long", key);
    char list[4096];
    kvp__strlcpy(list, vals, sizeof list);
    bool numeric = k == AX_TP || k == AX_PP || k == AX_SEQ_LEN;
    /* Pass 1: count. */
    size_t count = 0;
    char tmp[4096];
    kvp__strlcpy(tmp, list, sizeof tmp);
    char *save = NULL;
    for (char *it = strtok_r(tmp, ",", &save); it; it = strtok_r(NULL, ",", &save)) {
        if (numeric) {
            int rc = numeric_item(c, key, it, NULL, 0, &count);
            if (rc >= 0) return rc;
        } else {
            count++;
        }
    }
    if (count == 0)
        return fit_cli_bad(c, KVP_INVALID_ARG, "--over", "--over %s has no values", key);
    if (!numeric && count > MAX_LIST)
        return fit_cli_bad(c, KVP_INVALID_ARG, "--over", "--over %s: more than %d values", key,
                           MAX_LIST);
    if (count > MAX_PLANS_CAP)
        return fit_cli_bad(c, KVP_INVALID_ARG, "--over", "--over %s: more than %u values", key,
                           MAX_PLANS_CAP);
    a->n = count;
    if (numeric) {
        a->num = calloc(count, sizeof *a->num);
        if (!a->num) return kvp_cli_fail("out of memory");
        size_t got = 0;
        save = NULL;
        for (char *it = strtok_r(list, ",", &save); it; it = strtok_r(NULL, ",", &save)) {
            int rc = numeric_item(c, key, it, a->num, count, &got);
            if (rc >= 0) return rc;
        }
        if ((k == AX_TP || k == AX_PP))
            for (size_t i = 0; i < count; i++)
                if (a->num[i] > 65536)
                    return fit_cli_bad(c, KVP_INVALID_ARG, "--over", "--over %s: %llu is above 65536",
                                       key, (unsigned long long)a->num[i]);
        if (k == AX_SEQ_LEN)
            for (size_t i = 0; i < count; i++)
                if (a->num[i] > (1ull << 32))
                    return fit_cli_bad(c, KVP_INVALID_ARG, "--over",
                                       "--over %s: %llu is above 2^32 tokens", key,
                                       (unsigned long long)a->num[i]);
    } else {
        a->text = calloc(count, sizeof *a->text);
        if (!a->text) return kvp_cli_fail("out of memory");
        size_t i = 0;
        save = NULL;
        for (char *it = strtok_r(list, ",", &save); it && i < count;
             it = strtok_r(NULL, ",", &save), i++) {
            if (strlen(it) >= sizeof a->text[0])
                return fit_cli_bad(c, KVP_INVALID_ARG, "--over", "--over %s: '%s' is too long",
                                   key, it);
            if (k == AX_POLICY) {
                kvp_engine en;
                if (kvp_engine_parse(it, &en) != KVP_OK)
                    return fit_cli_bad(c, KVP_INVALID_ARG, "--over",
                                       "--over policy: unknown engine '%s' (expected trtllm, "
                                       "vllm, sglang, llamacpp)",
                                       it);
            }
            kvp__strlcpy(a->text[i], it, sizeof a->text[0]);
        }
    }
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
static void series_name(const axis *axes, const kvp_fit_eval *e, char *buf, size_t n) {
    buf[0] = '\0';
    char part[48];
    for (int k = 0; k < AX_SEQ_LEN; k++) {
        if (!axes[k].used || axes[k].n < 2) continue;
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

static kvp_status build_chart(const fit_cli *c, const axis *axes, kvp_fit_eval **evals,
                              size_t count, kvp_report_text *svg, kvp_error *err) {
    size_t per = axes[AX_SEQ_LEN].n, nseries = count / per;
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
        const kvp_fit_eval *e = evals[i];
        uint64_t L = axes[AX_SEQ_LEN].num[i % per];
        xs[i] = (double)L;
        ys[i] = e->status == KVP_OK ? (double)e->max_sequences : NAN;
        if (L < lo) lo = L;
        if (L > hi) hi = L;
    }
    for (size_t s = 0; s < nseries; s++) {
        series_name(axes, evals[s * per], names[s], sizeof names[s]);
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

static int write_outputs(const fit_cli *c, const axis *axes, kvp_fit_eval **evals, size_t count,
                         const char *svg_path, const char *html_path) {
    kvp_error err;
    kvp_error_clear(&err);
    kvp_report_text svg;
    kvp_report_text_init(&svg, NULL);
    kvp_status st = build_chart(c, axes, evals, count, &svg, &err);
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
            const kvp_fit_eval *e = evals[i];
            const char **r = &cells[i * COLS];
            r[0] = kvp_engine_name(e->point.engine);
            snprintf(text[i][0], 64, "%u", e->point.tp);
            snprintf(text[i][1], 64, "%u", e->point.pp);
            r[1] = text[i][0];
            r[2] = text[i][1];
            r[3] = e->point.kv_dtype;
            kvp_cli_fmt_count(e->point.max_seq_len, text[i][2], 64);
            r[4] = text[i][2];
            if (e->status == KVP_OK) {
                snprintf(text[i][3], 64, "%.2f", (double)e->budget_bytes / 1073741824.0);
                kvp_cli_fmt_count(e->tokens, text[i][4], 64);
                kvp_cli_fmt_count(e->blocks, text[i][5], 64);
                kvp_cli_fmt_count(e->max_sequences, text[i][6], 64);
                r[9] = e->binding;
            } else {
                snprintf(text[i][3], 64, "-");
                snprintf(text[i][4], 64, "-");
                snprintf(text[i][5], 64, "-");
                snprintf(text[i][6], 64, "-");
                r[9] = e->message;
            }
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

int kvp_cmd_sweep(int argc, char **argv) {
    int frc;
    if (kvp_cli_run_from(argc, argv, kvp_cmd_sweep, &frc)) return frc;
    fit_cli c;
    fit_cli_init(&c, argc, argv);
    axis axes[AX_COUNT];
    memset(axes, 0, sizeof axes);
    uint64_t max_plans = DEFAULT_MAX_PLANS;
    bool csv = false, timing = false, quiet = false;
    const char *svg = NULL, *html = NULL;
    int rc = -1;
    kvp_fit_eval **evals = NULL;
    size_t count = 1, done = 0;
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
            rc = bad ? KVP_EXIT_BAD_INPUT : parse_over(&c, v, axes);
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
        if (axes[k].used && kvp_options_given(c.opt, k_axis_option[k])) {
            char over[48];
            snprintf(over, sizeof over, "--over %s", k_axis_names[k]);
            rc = kvp_cli_contradiction(over, kvp_options_typed(c.opt, k_axis_option[k]),
                                       "the axis varies what the option fixes; give one", c.json);
        }
    if (rc < 0 && csv && c.json)
        rc = kvp_cli_contradiction("--csv", "--json", "give one output format", c.json);
    if (rc >= 0) goto out;
    /* Several engines planned: no spelling chooses one. */
    if (axes[AX_POLICY].used) c.opt->engines_vary = true;
    bool any = false;
    for (int k = 0; k < AX_COUNT; k++) any = any || axes[k].used;
    if (!any) {
        rc = fit_cli_bad(&c, KVP_INVALID_ARG, "--over",
                         "sweep needs at least one --over KEY=VALUES (e.g. "
                         "--over max-seq-len=4k..128k)");
        goto out;
    }
    if ((svg || html) && (!axes[AX_SEQ_LEN].used || axes[AX_SEQ_LEN].n < 2)) {
        rc = fit_cli_bad(&c, KVP_INVALID_ARG, svg ? "--svg" : "--html",
                         "the chart draws max sequences against max-seq-len: sweep it with "
                         "--over max-seq-len=LO..HI");
        goto out;
    }
    for (int k = 0; k < AX_COUNT; k++) {
        if (!axes[k].used) continue;
        if (!kvp__mul_u64(count, axes[k].n, &count) || count > MAX_PLANS_CAP) count = UINT64_MAX;
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
    rc = fit_cli_finish(&c, "sweep");
    if (rc >= 0) goto out;

    evals = calloc(count, sizeof *evals);
    if (!evals) {
        rc = kvp_cli_fail("out of memory");
        goto out;
    }
    double t0 = now_s();
    kvp_cli_progress prog;
    kvp_cli_progress_begin(&prog, "sweep", "plans", quiet);
    /* Odometer: policy outermost, length innermost (a chart line is contiguous). */
    size_t idx[AX_COUNT] = {0};
    for (done = 0; done < count; done++) {
        kvp_cli_progress_update(&prog, done, count);
        kvp_fit_point p = c.base;
        if (axes[AX_POLICY].used &&
            kvp_engine_parse(axes[AX_POLICY].text[idx[AX_POLICY]], &p.engine) != KVP_OK)
            p.engine = KVP_ENGINE_TRTLLM; /* checked when parsed */
        if (axes[AX_KV_DTYPE].used)
            kvp__strlcpy(p.kv_dtype, axes[AX_KV_DTYPE].text[idx[AX_KV_DTYPE]], sizeof p.kv_dtype);
        if (axes[AX_TP].used) p.tp = (uint32_t)axes[AX_TP].num[idx[AX_TP]];
        if (axes[AX_PP].used) p.pp = (uint32_t)axes[AX_PP].num[idx[AX_PP]];
        if (axes[AX_SEQ_LEN].used) p.max_seq_len = axes[AX_SEQ_LEN].num[idx[AX_SEQ_LEN]];
        evals[done] = malloc(sizeof *evals[done]);
        kvp_error err;
        kvp_error_clear(&err);
        if (!evals[done]) {
            kvp_cli_progress_end(&prog);
            rc = kvp_cli_fail("out of memory");
            goto out;
        }
        if (kvp_fit_evaluate(&c.env, &p, evals[done], &err) != KVP_OK) {
            done++;
            kvp_cli_progress_end(&prog);
            rc = kvp_cli_report_error(&err, c.json);
            goto out;
        }
        for (int k = AX_COUNT - 1; k >= 0; k--) {
            if (!axes[k].used) continue;
            if (++idx[k] < axes[k].n) break;
            idx[k] = 0;
        }
    }
    kvp_cli_progress_end(&prog);
    double dt = now_s() - t0;
    if (timing)
        fprintf(stderr, "kvplan: %zu plans in %.1f ms (%.0f plans/s)\n", count, dt * 1e3,
                dt > 0 ? (double)count / dt : 0.0);

    if (c.json) {
        kvp_render_input in = {c.model, c.has_gpu_info ? c.gpu_info.name : NULL, NULL, NULL, 0, NULL, NULL};
        const char *names[AX_COUNT];
        size_t n_names = 0;
        for (int k = 0; k < AX_COUNT; k++)
            if (axes[k].used) names[n_names++] = k_axis_names[k];
        char *text = NULL;
        kvp_error jerr;
        kvp_error_clear(&jerr);
        kvp_status rst = kvp_render_sweep_json(&in, names, n_names,
                                               (const kvp_fit_eval *const *)evals, count, &text, &jerr);
        int prc = kvp_cli_print_rendered(rst, text, &jerr, true);
        if (prc >= 0) rc = prc;
    } else if (csv) {
        puts("policy,tp,pp,kv_dtype,max_seq_len,ok,budget_bytes,kv_bytes,tokens,blocks,"
             "max_sequences,longest_sequence_tokens,bound_by");
        for (size_t i = 0; i < count; i++) {
            const kvp_fit_eval *e = evals[i];
            printf("%s,%u,%u,", kvp_engine_name(e->point.engine), e->point.tp, e->point.pp);
            csv_field(e->point.kv_dtype);
            printf(",%llu,%s,", (unsigned long long)e->point.max_seq_len,
                   e->status == KVP_OK ? "true" : "false");
            if (e->status == KVP_OK) {
                printf("%llu,%llu,%llu,%llu,%llu,", (unsigned long long)e->budget_bytes,
                       (unsigned long long)e->kv_bytes, (unsigned long long)e->tokens,
                       (unsigned long long)e->blocks, (unsigned long long)e->max_sequences);
                if (e->longest_tokens != UINT64_MAX)
                    printf("%llu", (unsigned long long)e->longest_tokens);
                fputc(',', stdout);
                csv_field(e->binding);
            } else {
                fputs(",,,,,,", stdout);
                csv_field(e->message);
            }
            fputc('\n', stdout);
        }
    } else {
        printf("model: %s", kvp_model_name(c.model));
        if (c.has_gpu_info) printf("   gpu: %s", c.gpu_info.name);
        printf("   plans: %zu\n\n", count);
        printf("%-8s %4s %3s %-9s %11s %10s %12s %9s %9s  %s\n", "policy", "tp", "pp", "kv dtype",
               "max_seq_len", "budget GiB", "KV tokens", "blocks", "max seqs", "limited by");
        for (size_t i = 0; i < count; i++) {
            const kvp_fit_eval *e = evals[i];
            char n1[32], n2[32], n3[32], n4[32], why[96];
            printf("%-8s %4u %3u %-9s %11s ", kvp_engine_name(e->point.engine), e->point.tp,
                   e->point.pp, e->point.kv_dtype,
                   kvp_cli_fmt_count(e->point.max_seq_len, n1, sizeof n1));
            if (e->status == KVP_OK) {
                short_reason(e->binding, why, sizeof why);
                printf("%10.2f %12s %9s %9s  %s\n", (double)e->budget_bytes / 1073741824.0,
                       kvp_cli_fmt_count(e->tokens, n2, sizeof n2),
                       kvp_cli_fmt_count(e->blocks, n3, sizeof n3),
                       kvp_cli_fmt_count(e->max_sequences, n4, sizeof n4), why);
            } else {
                short_reason(e->message, why, sizeof why);
                printf("%10s %12s %9s %9s  %s\n", "-", "-", "-", "-", why);
            }
        }
    }
    rc = -1;
    if (svg || html) rc = write_outputs(&c, axes, evals, count, svg, html);
    if (rc < 0) rc = KVP_EXIT_OK;
out:
    for (size_t i = 0; evals && i < done; i++) free(evals[i]);
    free(evals);
    for (int k = 0; k < AX_COUNT; k++) {
        free(axes[k].num);
        free(axes[k].text);
    }
    fit_cli_free(&c);
    return rc;
}
