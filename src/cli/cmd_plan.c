/* cmd_plan.c — `kvplan plan MODEL`: the KV cache plan of one GPU (rank) under
 * any engine. One path for every engine: argv through the one reader
 * (kvp_cli_read_argv), the sequence after the settings the library's
 * (src/options/plan_run.h, the one kvp_json_call's "plan" runs), and the
 * report printed here: TensorRT-LLM's creator's budget term by term, each
 * pool's bytes, blocks and tokens, reserves, the concurrent sequences it holds
 * and warnings; under vLLM, SGLang and llama.cpp the figures the engine's
 * start-up log would show. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "argv_words.h"
#include "cli.h"
#include "cli_options.h"
#include "command_help.h"
#include "engine_ops.h"
#include "from_cmd.h"
#include "kvplan/deploy.h"
#include "kvplan/local.h"
#include "kvplan/render.h"
#include "local_internal.h"
#include "plan_run.h"
#include "startup_cli.h"
#include "text_internal.h"
#include "util.h"

/* The command's own flags, then every row of the option table that `plan`
 * takes (kvp_cli_table_usage): the help cannot miss an option the table has,
 * nor list one it lacks (test_options_help; the man page prints this). */
static void usage(FILE *out) {
    fputs(kvp__command_help("plan"), out);
    kvp_cli_table_usage(out, KVP_COMMAND_PLAN, KVP_OPTION_ENGINES_ALL);
}

/* This command's own options; every deployment setting is read from the
 * settled option table in place, never copied (issue 27 item 2). */
typedef struct opts {
    const char *model, *geometry; /* MODEL; --geometry FILE (the engine policies) */
    const char *local;            /* --local NAME: model-local cache declarations (the creator) */
    const char *svg, *html;       /* --svg FILE, --html FILE */
    bool explain;
    bool json;     /* --json read as a word of the command: the plan as JSON */
    bool json_any; /* "--json" anywhere (a value's too): errors as JSON */
    kvp_local_deployment local_dep; /* --async-chunk, --streaming */
} opts;

/* An unknown option under TensorRT-LLM's creator: a JSON error keyed by its
 * name under --json, else the table's "did you mean". */
static int creator_unknown(const char *arg, const char *const *known, bool json) {
    return json ? kvp_cli_unknown_json(arg) : kvp_cli_table_unknown_in(arg, KVP_COMMAND_PLAN, known);
}

/* The own words of each planner, in the order "did you mean" searches them:
 * TensorRT-LLM's creator reports model-local caches (--local); the engine
 * policies read a geometry JSON (--geometry). */
static int read_argv(opts *o, kvp_options *t, bool creator, int argc, char **argv) {
    const kvp__argv_own creator_own[] = {
        {"--explain", KVP__OWN_FLAG, &o->explain, 0, 0, NULL},
        {"--json", KVP__OWN_FLAG, &o->json, 0, 0, NULL},
        {"--help", KVP__OWN_HELP, NULL, 0, 0, NULL},
        {"--svg", KVP__OWN_TEXT, &o->svg, 0, 0, NULL},
        {"--html", KVP__OWN_TEXT, &o->html, 0, 0, NULL},
        {"--local", KVP__OWN_TEXT, &o->local, 0, 0, NULL},
        {"--async-chunk", KVP__OWN_FLAG, &o->local_dep.async_chunk, 0, 0, NULL},
        {"--streaming", KVP__OWN_FLAG, &o->local_dep.streaming, 0, 0, NULL},
        {"--from", KVP__OWN_NAME, NULL, 0, 0, NULL},
        {"--geometry", KVP__OWN_NAME, NULL, 0, 0, NULL},
        {NULL, 0, NULL, 0, 0, NULL}};
    const kvp__argv_own policy_own[] = {
        {"--geometry", KVP__OWN_TEXT, &o->geometry, 0, 0, NULL},
        {"--json", KVP__OWN_FLAG, &o->json, 0, 0, NULL},
        {"--help", KVP__OWN_HELP, NULL, 0, 0, NULL},
        {"--from", KVP__OWN_NAME, NULL, 0, 0, NULL},
        {"--explain", KVP__OWN_FLAG, &o->explain, 0, 0, NULL},
        {"--svg", KVP__OWN_TEXT, &o->svg, 0, 0, NULL},
        {"--html", KVP__OWN_TEXT, &o->html, 0, 0, NULL},
        {NULL, 0, NULL, 0, 0, NULL}};
    kvp_cli_argv c = {
        .argv = {.own = creator ? creator_own : policy_own,
                 .positional = &o->model,
                 .second = creator ? "plan takes one MODEL, got a second: " : "plan: unexpected argument ",
                 .second_tail = creator ? NULL : " (one MODEL only)",
                 .second_key = creator ? "" : NULL},
        .help = "plan",
        .help_rows = true,
        .json = &o->json_any,
        .unknown = creator ? creator_unknown : NULL};
    int rc = kvp_cli_read_argv(&c, t, argc, argv);
    /* An output with no path ("--svg="): refused before anything is planned,
     * as a missing one is. */
    if (rc < 0 && ((o->svg && !*o->svg) || (o->html && !*o->html)))
        rc = kvp_cli_fail("%s needs a value", o->svg && !*o->svg ? "--svg" : "--html");
    return rc;
}

/* ------------------------------------------------------------------ the run */

/* Model-local caches (--local): reported, never subtracted when memory was
 * measured; with estimated memory the graph-resident part joins the predicted
 * peak (model-local-kv-caches.md, "What is and is not already accounted for"). */
typedef struct local_effect {
    kvp_local_report *report;
    uint64_t peak, risk;
    char warn[2][KVP__LOCAL_WARN_MAX];
    size_t n_warn;
} local_effect;

static kvp_status local_caches(opts *o, kvp__plan_job *j, local_effect *le, kvp_error *err) {
    o->local_dep.enforce_eager = j->t->startup.enforce_eager;
    o->local_dep.max_num_seqs = j->d.max_batch_size ? j->d.max_batch_size : 2048;
    const kvp_deploy_memory *tm = &j->t->deployment.memory;
    bool have_mem = j->dep.memory.kv_budget_bytes == 0;
    bool measured = have_mem && (tm->has_peak || tm->has_activation_peak);
    kvp_status st = kvp__local_plan_effect(o->local, &o->local_dep, have_mem, measured, &le->report,
                                           &le->peak, &le->risk, le->warn, &le->n_warn, err);
    if (st == KVP_OK && have_mem) j->dep.memory.local_graph_bytes = le->peak;
    return st;
}

static int run(opts *o, kvp__plan_job *j, local_effect *le) {
    kvp_error err;
    kvp_error_clear(&err);
    char model_dir[4096];
    const char *arg = o->geometry ? o->geometry : o->model;
    if (kvp__plan_job_open(j, arg, o->geometry != NULL, kvp_cli_gpu_catalog(),
                           o->geometry ? NULL : kvp_cli_model_dir(o->model, model_dir, sizeof model_dir),
                           &err) != KVP_OK ||
        (o->local && local_caches(o, j, le, &err) != KVP_OK))
        return kvp_cli_report_error(&err, o->json);
    kvp_status st = kvp__plan_job_run(j, true, &err);
    if (st != KVP_OK && (j->early || !j->rep)) return kvp_cli_report_error(&err, o->json);
    /* A start-up rule that refuses is exit 1 with its rule; what the engine
     * adjusts (length, dtype) was planned with and is said on stderr. */
    int rc = kvp_cli_startup_result(&j->dep, j->r, j->rep, kvp_model_name(j->model), o->json,
                                    j->creator ? KVP_CLI_STARTUP_VERDICT : 0);
    if (rc != 0) return rc;
    if (st != KVP_OK) return kvp_cli_report_error(&err, o->json);
    const char *warnings[2];
    for (size_t k = 0; k < le->n_warn; k++) warnings[k] = le->warn[k];
    kvp_render_rules rules;
    const kvp__seed_rules *x = &j->seed;
    const kvp_option_rules *xr = x->rules;
    rules = (kvp_render_rules){x->engine_version, &xr->compression, &x->compression_effect,
                               xr->has_lora ? &xr->lora : NULL, xr->has_lora ? &x->lora_cache : NULL,
                               xr->has_mm ? &x->mm_profile : NULL, &x->notes};
    kvp_render_input in = {j->model, j->startup.gpu_known ? j->startup.gpu.name : NULL,
                           j->set.total_source, warnings, le->n_warn, le->report,
                           j->creator ? &rules : NULL};
    const kvp_deployment *td = &j->t->deployment;
    kvp__plan_text_opts to = {o->explain, td->kv.tokens_per_block, td->memory.estimation_kv_bytes,
                              td->kv.free_gpu_memory_fraction, td->memory.has_non_torch,
                              td->memory.has_cuda_graph};
    kvp_report_text text;
    kvp__plan_text(&in, j->r, &to, &text);
    if (o->json) {
        char *doc = NULL;
        st = kvp_render_plan_json(&in, j->r, &doc, &err);
        rc = kvp_cli_print_rendered(st, doc, &err, true);
    } else {
        rc = kvp_cli_write_text(&text, stdout);
    }
    if (rc < 0 && kvp__plan_pictures(&in, j->r, text.data, le->peak + le->risk, o->svg, o->html,
                                     &err) != KVP_OK)
        rc = kvp_cli_report_error(&err, false);
    kvp_report_text_free(&text);
    if (rc >= 0) return rc;
    /* A stated length the cache cannot hold: the engine would not serve it. */
    const char *len_flag = kvp__engine_ops_of(j->dep.point.engine)->len_flag;
    return j->r->starts ? KVP_EXIT_OK : kvp_cli_refuse(len_flag, j->r->refusal);
}

static int plan_main(int argc, char **argv) {
    kvp_cli_table_use(NULL); /* no spellings of an earlier command in this process */
    opts o;
    memset(&o, 0, sizeof o);
    for (int i = 1; i < argc; i++) o.json_any = o.json_any || !strcmp(argv[i], "--json");
    /* The --from command's engine, --policy or an engine's own flags choose the
     * planner (argv_words.c): its own words are read. */
    bool creator = true;
    kvp_error err;
    if (kvp__plan_uses_creator(argc, argv, kvp_cli_from_engine(), &creator, &err) != KVP_OK)
        return kvp_cli_report_error(&err, o.json_any);
    /* The settings come through the one option table; `t` outlives the run (the
     * rules' names point into it). --from's settings first, argv on top. */
    kvp_options *t = kvp_options_new(KVP_COMMAND_PLAN);
    if (!t) return kvp_cli_fail("plan: out of memory");
    kvp__plan_job j;
    memset(&j, 0, sizeof j);
    local_effect le;
    memset(&le, 0, sizeof le);
    int rc = kvp_cli_from_apply(t, o.json_any);
    if (rc < 0) rc = read_argv(&o, t, creator, argc, argv);
    if (rc < 0) {
        o.model = kvp_cli_from_model(o.model); /* the --from command's, unless given */
        /* Two outputs into one file, or an output over the model read. */
        rc = kvp_cli_one_file_as(o.json_any, "--svg", o.svg, "--html", o.html);
        /* ... or over another file the plan reads: the geometry JSON, the draft. */
        const char *outs[2][2] = {{"--svg", o.svg}, {"--html", o.html}};
        for (size_t k = 0; k < 2 && !rc; k++) {
            rc = kvp_cli_output_over_inputs(o.json_any, outs[k][0], outs[k][1], o.model);
            if (!rc) rc = kvp_cli_one_file_as(o.json_any, outs[k][0], outs[k][1], "the --geometry file", o.geometry);
            if (!rc) rc = kvp_cli_one_file_as(o.json_any, outs[k][0], outs[k][1], "the --draft model", t->draft);
        }
        if (!rc) rc = kvp_cli_table_finish(t, o.json_any);
    }
    if (rc < 0 && kvp__plan_job_begin(&j, t, &err) != KVP_OK) rc = kvp_cli_report_error(&err, o.json_any);
    if (rc < 0 && !o.model && !o.geometry) {
        if (!o.json_any) usage(stderr);
        rc = kvp_cli_needs_model("plan", o.json_any);
    }
    if (rc < 0) rc = run(&o, &j, &le);
    kvp__plan_job_free(&j);
    kvp_local_report_free(le.report);
    kvp_options_free(t);
    return rc;
}

/* --from "vllm serve ...": the engine's command fills the settings of the run. */
int kvp_cmd_plan(int argc, char **argv) { return kvp_cli_from_run(argc, argv, plan_main); }
