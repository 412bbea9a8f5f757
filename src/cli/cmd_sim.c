/* cmd_sim.c — `kvplan sim MODEL --workload FILE|--synthetic SPEC`: replay a
 * workload through continuous batching over the pool a KV budget buys, and
 * set the concurrency a plan promises beside what the mix achieves. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "command_help.h"
#include "render_internal.h" /* kvp__sim_limit_name */
#include "sim_call.h"
#include "cli_options.h"
#include "progress.h"
#include "startup_cli.h"
#include "kvplan/deploy.h"
#include "kvplan/report.h"
#include "kvplan/sim.h"
#include "text_internal.h"
#include "util.h"

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

/* The simulator's own flags are read in bind (sim_call.c). */
static kvp_status arrival_unit(void *job, const char *text, kvp_error *err) {
    return kvp__sim_arrival_unit(job, text, err);
}
static kvp_status step_time(void *job, const char *text, kvp_error *err) {
    return kvp__sim_step_time(job, text, err);
}

static int parse_args(int argc, char **argv, options *o, kvp__sim_job *job, kvp_options *t) {
    /* This command's own flags (what is replayed and how it is shown); the
     * deployment's come through the option table. */
    const kvp__argv_own own[] = {{"--workload", KVP__OWN_TEXT, &o->workload, 0, 0, NULL},
                                 {"--synthetic", KVP__OWN_TEXT, &o->synthetic, 0, 0, NULL},
                                 {"--arrival-unit", KVP__OWN_CALL, job, 0, 0, arrival_unit},
                                 {"--step-time", KVP__OWN_CALL, job, 0, 0, step_time},
                                 {"--no-timing", KVP__OWN_FLAG, &job->no_timing, 0, 0, NULL},
                                 {"--quiet", KVP__OWN_FLAG, &o->quiet, 0, 0, NULL},
                                 {"--json", KVP__OWN_FLAG, &o->json, 0, 0, NULL},
                                 {"--help", KVP__OWN_HELP, NULL, 0, 0, NULL},
                                 {"--svg", KVP__OWN_TEXT, &o->svg, 0, 0, NULL},
                                 {NULL, 0, NULL, 0, 0, NULL}};
    const kvp_cli_argv c = {.argv = {.own = own, .positional = &o->model,
                                     .second = "sim takes one MODEL, got a second: "},
                            .help = "sim", .help_rows = true, .json = &o->json};
    int rc = kvp_cli_read_argv(&c, t, argc, argv);
    if (rc >= 0) return rc ? rc : -1; /* -1: the help was printed */
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
        kvp__sim_text_in in = {o.workload, o.synthetic, job.max_batch, job.max_tokens,
                               job.max_model_len, job.max_new_tokens, job.no_chunked,
                               job.no_reuse, job.no_timing, job.policy};
        kvp_report_text t = {0};
        kvp__sim_text(&in, m, &res.pool, &res.result, &t);
        kvp_cli_write_text(&t, stdout);
        kvp_report_text_free(&t);
    }
    if (o.svg && kvp__sim_svg(o.svg, &res.result, &err) != KVP_OK)
        exit_code = kvp_cli_report_error(&err, false);
out:
    kvp__sim_outcome_free(&res);
    kvp_model_free(m);
    kvp_options_free(table);
    return exit_code;
}
