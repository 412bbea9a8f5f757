/* cmd_sim.c — `kvplan sim MODEL --workload FILE|--synthetic SPEC`: replay a
 * workload through continuous batching over the pool a KV budget buys, and
 * set the concurrency a plan promises beside what the mix achieves. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "render_internal.h" /* kvp__sim_limit_name */
#include "sim_call.h"
#include "cli_options.h"
#include "progress.h"
#include "startup_cli.h"
#include "kvplan/deploy.h"
#include "kvplan/report.h"
#include "kvplan/sim.h"
#include "util.h"

/* The command's own flags, then every row of the option table that `sim`
 * takes (kvp_cli_table_usage), so the help lists exactly what is read. */
static void usage(FILE *out) {
    fputs("usage: kvplan sim MODEL (--gpu NAME | --gpu-mem BYTES | --kv-budget BYTES |\n"
          "                         --blocks N) (--workload FILE | --synthetic SPEC) [options]\n"
          "Replays a workload through continuous batching over the pool `kvplan plan` sizes\n"
          "(TensorRT-LLM's creator; --blocks N bypasses the plan) under one engine's\n"
          "admission and preemption: --policy vllm (default; recompute the newest), sglang\n"
          "(decode reserve, retraction) or trtllm (reservation to completion; with\n"
          "--capacity-scheduler-policy MAX_UTILIZATION, pausing).\n"
          "  MODEL                  config.json, a folder holding one, or a catalogue name\n"
          "this command:\n"
          "  --workload FILE        JSON lines: {\"arrival\": 0, \"prompt_len\": 1000,\n"
          "                         \"output_len\": 200, \"prefix_id\": \"sys\", \"prefix_len\": 512}\n"
          "  --synthetic SPEC       requests=N,prompt=DIST,output=DIST[,shared_prefix=LEN:FRAC]\n"
          "                         [,prefixes=K][,rate=R][,seed=S]; DIST = fixed:N,\n"
          "                         uniform:A:B or lognormal:MEAN:SIGMA\n"
          "  --arrival-unit U       steps|seconds: unit of \"arrival\" (default steps)\n"
          "  --step-time S          seconds per step for --arrival-unit seconds (default 0.02)\n"
          "  --no-timing            leave out wall-clock figures (reproducible output)\n"
          "  --quiet                no progress line on stderr (shown on a terminal after 1 s)\n"
          "  --json                 machine-readable output\n"
          "  --svg FILE             chart of utilization and running requests per step\n"
          "                         (written to a temporary file, then renamed)\n"
          "the pool and the scheduler (the option table, docs/options.md; defaults: block 32,\n"
          "batch 256, 8192 tokens per step, max_model_len the model's, chunked prefill and\n"
          "prefix reuse on, max_new_tokens = max_model_len - prompt):\n",
          out);
    kvp_cli_table_usage(out, KVP_COMMAND_SIM, KVP_OPTION_ENGINES_ALL);
}

/* The progress line (progress.h): on a terminal, after a second, not with --quiet. */
static void on_progress(void *ctx, uint64_t done, uint64_t total) {
    kvp_cli_progress_update(ctx, done, total);
}

/* What only the command has: its own flags and where its output goes; the
 * replay's settings are the library's (src/bind/sim_call.c). */
typedef struct options {
    const char *model, *workload, *synthetic;
    const char *svg; /* --svg FILE: utilization and running requests over steps */
    bool json, quiet;
} options;

static int parse_args(int argc, char **argv, options *o, kvp__sim_job *job, kvp_options *t) {
    /* This command's own flags (what is replayed and how it is shown); the
     * deployment's come through the option table. */
    static const char *const own[] = {"--workload", "--synthetic", "--arrival-unit", "--step-time",
                                      "--no-timing", "--quiet", "--json", "--help", "--svg", NULL};
    bool bad = false;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--json")) o->json = true; /* the first error already as JSON */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (kvp_cli_flag(a, "--help") || kvp_cli_flag(a, "-h")) {
            usage(stdout);
            return -1;
        } else if (kvp_cli_flag(a, "--json")) {
            o->json = true;
        } else if (kvp_cli_opt(argc, argv, &i, "--svg", &v, &bad)) {
            if (bad) return KVP_EXIT_BAD_INPUT;
            o->svg = v;
        } else if (kvp_cli_flag(a, "--quiet")) {
            o->quiet = true;
        } else if (kvp_cli_flag(a, "--no-timing")) {
            job->no_timing = true;
        } else if (kvp_cli_opt(argc, argv, &i, "--workload", &v, &bad)) {
            if (bad) return KVP_EXIT_BAD_INPUT;
            o->workload = v;
        } else if (kvp_cli_opt(argc, argv, &i, "--synthetic", &v, &bad)) {
            if (bad) return KVP_EXIT_BAD_INPUT;
            o->synthetic = v;
        } else if (kvp_cli_opt(argc, argv, &i, "--arrival-unit", &v, &bad)) {
            if (bad) return KVP_EXIT_BAD_INPUT;
            if (strcmp(v, "steps") == 0) job->wl.arrival_unit = KVP_ARRIVAL_STEPS;
            else if (strcmp(v, "seconds") == 0) job->wl.arrival_unit = KVP_ARRIVAL_SECONDS;
            else return kvp_cli_fail("--arrival-unit: expected steps or seconds, found '%s'", v);
        } else if (kvp_cli_opt(argc, argv, &i, "--step-time", &v, &bad)) {
            if (bad) return KVP_EXIT_BAD_INPUT;
            char *end;
            double st = strtod(v, &end);
            if (*end || !(st > 0 && st < 3600))
                return kvp_cli_fail("--step-time: expected seconds in (0, 3600), found '%s'", v);
            job->wl.step_seconds = st;
        } else {
            int rc = kvp_cli_table_option(t, argc, argv, &i, o->json);
            if (rc > 0) return rc;
            if (rc < 0) continue;
            if (a[0] == '-' && a[1] != '\0') return kvp_cli_table_unknown(a, KVP_COMMAND_SIM, own, NULL);
            if (o->model) return kvp_cli_fail("sim takes one MODEL, got a second: '%s'", a);
            o->model = a;
        }
    }
    kvp_error err;
    kvp_error_clear(&err);
    if (kvp__sim_settings(t, job, &err) != KVP_OK) return kvp_cli_report_error(&err, o->json);
    if (!o->model)
        return kvp_cli_fail("sim needs a MODEL (a config.json, a folder, or a name from "
                            "'kvplan models'); see 'kvplan sim --help'");
    if (!o->workload == !o->synthetic)
        return kvp_cli_fail("sim needs exactly one of --workload FILE and --synthetic SPEC");
    job->workload_path = o->workload;
    job->synthetic = o->synthetic;
    /* The chart over a file sim reads (the workload, the MODEL, the GPU
     * catalogue) would destroy its input (issue 29: two files that are one). */
    int frc = kvp_cli_one_file_as(o->json, "--svg", o->svg, "the --workload file", o->workload);
    if (!frc) frc = kvp_cli_output_over_inputs(o->json, "--svg", o->svg, o->model);
    if (frc) return frc;
    if (kvp__sim_check(t, job, &err) != KVP_OK) return kvp_cli_report_error(&err, o->json);
    return 0;
}

static const char *policy_text(kvp_sim_policy p) {
    switch (p) {
    case KVP_SIM_TRTLLM:
        return "trtllm GUARANTEED_NO_EVICT: a request waits until prompt + max_new_tokens fit "
               "beside the running requests' reservations; first come, first served";
    case KVP_SIM_TRTLLM_MAX_UTILIZATION:
        return "trtllm MAX_UTILIZATION: no reservation, the newest request paused (recomputed) "
               "when a step does not fit";
    case KVP_SIM_SGLANG:
        return "sglang: admitted while free tokens cover prompt + max_new_tokens and the running "
               "requests' decode reserve (new_token_ratio); retraction when decoding runs out";
    default:
        return "vllm: no reservation, the newest running request preempted by recomputation";
    }
}

static double pct(uint64_t a, uint64_t b) { return b ? 100.0 * (double)a / (double)b : 0.0; }

static void print_text(const options *o, const kvp__sim_job *j, const kvp_model *m,
                       const kvp_pool_config *pc, const kvp_sim_result *r) {
    char b1[32], b2[32], b3[32], b4[32];
    printf("model              %s\n", kvp_model_name(m));
    printf("workload           %s %s\n", o->workload ? "file" : "synthetic",
           o->workload ? o->workload : o->synthetic);
    for (uint32_t k = 0; k < pc->pool_count; k++) {
        const kvp_pool_spec *p = &pc->pools[k];
        printf("pool %-14u%s", k, kvp_cache_kind_name(p->kind));
        if (p->window_tokens) printf(" (window %s)", kvp_cli_fmt_count(p->window_tokens, b1, sizeof b1));
        if (p->kind == KVP_CACHE_RECURRENT)
            printf(", %s state slots of %s\n", kvp_cli_fmt_count(p->blocks, b2, sizeof b2),
                   kvp_cli_fmt_bytes(p->page_bytes, b3, sizeof b3));
        else
            printf(", %s blocks x %u tokens, %s per block\n",
                   kvp_cli_fmt_count(p->blocks, b2, sizeof b2), p->tokens_per_block,
                   kvp_cli_fmt_bytes(p->page_bytes, b3, sizeof b3));
    }
    printf("scheduler          max batch %u, %s tokens/step, max_model_len %s, chunked prefill "
           "%s, prefix reuse %s\n",
           j->max_batch, kvp_cli_fmt_count(j->max_tokens, b1, sizeof b1),
           kvp_cli_fmt_count(j->max_model_len, b2, sizeof b2), j->no_chunked ? "off" : "on",
           j->no_reuse ? "off" : "on");
    printf("policy             %s\n", policy_text(j->policy));
    if (j->max_new_tokens)
        printf("max_new_tokens     %s per request\n", kvp_cli_fmt_count(j->max_new_tokens, b1, sizeof b1));
    else
        printf("max_new_tokens     max_model_len - prompt per request (the servers' default)\n");
    printf("\n");
    printf("requests           %s: %s finished, %s rejected as longer than max_model_len, %s "
           "that could never fit\n",
           kvp_cli_fmt_count(r->requests, b1, sizeof b1),
           kvp_cli_fmt_count(r->finished, b2, sizeof b2),
           kvp_cli_fmt_count(r->rejected_too_long, b3, sizeof b3),
           kvp_cli_fmt_count(r->rejected_never_fit, b4, sizeof b4));
    printf("steps              %s\n", kvp_cli_fmt_count(r->steps, b1, sizeof b1));
    printf("running            peak %u, mean %.2f\n", r->peak_running, r->mean_running);
    printf("max sequences      %s promised at max_model_len %s, %u reached by this mix\n",
           kvp_cli_fmt_count(r->promised_max_sequences, b1, sizeof b1),
           kvp_cli_fmt_count(j->max_model_len, b2, sizeof b2), r->peak_running);
    printf("preemptions        %s\n", kvp_cli_fmt_count(r->preemptions, b1, sizeof b1));
    if (r->waiting_steps)
        printf("limited by         %s: requests waited in %s steps, %s for the batch cap, %s for "
               "the token budget, %s for the KV cache\n",
               kvp__sim_limit_name(r), kvp_cli_fmt_count(r->waiting_steps, b1, sizeof b1),
               kvp_cli_fmt_count(r->cap_bound_steps, b2, sizeof b2),
               kvp_cli_fmt_count(r->budget_bound_steps, b3, sizeof b3),
               kvp_cli_fmt_count(r->kv_bound_steps, b4, sizeof b4));
    else
        printf("limited by         nothing: no request waited\n");
    printf("prefix hit rate    %.1f%% (%s of %s prompt tokens)\n", 100.0 * r->prefix_hit_rate,
           kvp_cli_fmt_count(r->prefix_hit_tokens, b1, sizeof b1),
           kvp_cli_fmt_count(r->prefix_query_tokens, b2, sizeof b2));
    printf("peak blocks used   %s of %s (%.1f%%)\n", kvp_cli_fmt_count(r->peak_blocks_used, b1, sizeof b1),
           kvp_cli_fmt_count(r->total_blocks, b2, sizeof b2), pct(r->peak_blocks_used, r->total_blocks));
    /* At most 16 samples, evenly picked, as whole percents. */
    printf("utilization        ");
    uint32_t shown = r->samples < 16 ? r->samples : 16;
    for (uint32_t i = 0; i < shown; i++) {
        uint32_t idx = shown < r->samples ? (uint32_t)((uint64_t)i * r->samples / shown) : i;
        printf("%s%.0f%%", i ? " " : "", 100.0 * r->utilization[idx]);
    }
    uint64_t every = r->sample_stride_steps;
    if (shown < r->samples) every = every * r->samples / shown;
    printf(" (every %s step%s)\n", kvp_cli_fmt_count(every, b1, sizeof b1), every == 1 ? "" : "s");
    if (!j->no_timing)
        printf("elapsed            %.2f s, %s steps/s\n", r->elapsed_seconds,
               kvp_cli_fmt_count((uint64_t)r->steps_per_second, b1, sizeof b1));
}

/* --svg: block utilization and running requests over steps, one chart. */
static int write_svg(const char *path, const kvp_sim_result *r) {
    static double x[KVP_SIM_MAX_SAMPLES], util[KVP_SIM_MAX_SAMPLES], run[KVP_SIM_MAX_SAMPLES];
    for (uint32_t i = 0; i < r->samples; i++) {
        x[i] = (double)i * (double)r->sample_stride_steps;
        util[i] = 100.0 * r->utilization[i];
        run[i] = (double)r->running[i];
    }
    kvp_report_text t;
    memset(&t, 0, sizeof t);
    kvp_error err;
    kvp_error_clear(&err);
    int rc = KVP_EXIT_OK;
    if (kvp_svg_sim_chart("kvplan sim", x, util, run, r->samples, &t, &err) != KVP_OK ||
        kvp_report_write_file(path, t.data, t.len, &err) != KVP_OK)
        rc = kvp_cli_report_error(&err, false);
    kvp_report_text_free(&t);
    return rc;
}

int kvp_cmd_sim(int argc, char **argv) {
    kvp_cli_table_use(NULL); /* no spellings of an earlier command in this process */
    options o;
    memset(&o, 0, sizeof o);
    kvp__sim_job job = kvp__sim_job_default();
    kvp_options *table = kvp_options_new(KVP_COMMAND_SIM);
    if (!table) return kvp_cli_fail("out of memory");
    int rc = parse_args(argc, argv, &o, &job, table);
    /* job.gpu points into the table: it lives until the replay is done. */
    if (rc == -1) rc = KVP_EXIT_OK;
    if (rc || !o.model) {
        kvp_options_free(table);
        return rc;
    }
    kvp_error err;
    kvp_error_clear(&err);
    kvp_model *m = NULL;
    kvp__sim_outcome res;
    memset(&res, 0, sizeof res);
    char dir[4096];
    job.gpu_catalog = kvp_cli_gpu_catalog();
    job.model_dir = kvp_cli_model_dir(o.model, dir, sizeof dir);
    int exit_code = KVP_EXIT_OK;
    if (kvp_model_open(o.model, NULL, &m, &err) != KVP_OK) {
        exit_code = kvp_cli_report_error(&err, o.json);
        goto out;
    }
    /* The pool as `kvplan plan` sizes it first: the pipeline's start-up rules
     * refuse a deployment the engine would not start (exit 1, the whole report). */
    kvp_status st = kvp__sim_pool(&job, m, &res, &err);
    if (res.plan && res.report &&
        (exit_code = kvp_cli_startup_result(&res.dep, res.plan, res.report, kvp_model_name(m),
                                            o.json, KVP_CLI_STARTUP_VERDICT)) != 0)
        goto out;
    kvp_cli_progress prog;
    if (st == KVP_OK) {
        kvp_cli_progress_begin(&prog, "sim", "requests", o.quiet);
        st = kvp__sim_replay(&job, m, &res, on_progress, &prog, &err);
        kvp_cli_progress_end(&prog);
    }
    if (st != KVP_OK) {
        exit_code = kvp_cli_report_error(&err, o.json);
        goto out;
    }
    for (size_t i = 0; i < kvp_workload_warning_count(res.workload); i++)
        kvp_cli_warn("%s", kvp_workload_warning(res.workload, i));
    if (o.json) {
        char *text = NULL;
        if (kvp__sim_json_document(&job, m, &res, &text, &err) != KVP_OK) {
            exit_code = kvp_cli_report_error(&err, true);
            goto out;
        }
        puts(text);
        free(text);
    } else {
        print_text(&o, &job, m, &res.pool, &res.result);
    }
    if (o.svg) exit_code = write_svg(o.svg, &res.result);
out:
    kvp__sim_outcome_free(&res);
    kvp_model_free(m);
    kvp_options_free(table);
    return exit_code;
}
