/* cmd_plan.c — `kvplan plan MODEL`: the KV cache plan of one GPU (rank), from
 * the creator in src/plan: budget term by term, each pool's bytes, blocks and
 * tokens, reserves, the concurrent sequences it holds, and warnings. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "argv_words.h"
#include "cli.h"
#include "command_help.h"
#include "cli_options.h"
#include "startup_cli.h"
#include "kvplan/plan.h"
#include "kvplan/probe.h"
#include "kvplan/local.h"
#include "local_internal.h"
#include "kvplan/deploy.h"
#include "kvplan/render.h"
#include "from_cmd.h"
#include "text_internal.h"
#include "settle.h"
#include "util.h"

#include "plan_policy.h"
#include "seed_rules.h"


/* The command's own flags, then every row of the option table that `plan`
 * takes (kvp_cli_table_usage): the help cannot miss an option the table has,
 * nor list one it lacks (test_options_help; the man page prints this). */
void kvp_cli_plan_usage(FILE *out) {
    fputs(kvp__command_help("plan"), out);
    kvp_cli_table_usage(out, KVP_COMMAND_PLAN, KVP_OPTION_ENGINES_ALL);
}

static void usage(FILE *out) { kvp_cli_plan_usage(out); }

/* ----------------------------------------------------------------- options */

/* This command's own options; every deployment setting is read from the
 * settled option table (`t`, options.h), never copied (issue 27 item 2). */
typedef struct opts {
    const char *model;
    const char *local;   /* --local NAME: model-local cache declarations */
    const char *svg, *html; /* --svg FILE, --html FILE */
    kvp_local_deployment local_dep;
    bool explain, json;
    const kvp_options *t; /* the settings, as the table settled them */
    kvp_deploy_settings d; /* the creator's: the table's, with the point's tp, pp, length
                              and KV dtype, and the multimodal output the rules retain */
    kvp_startup_settings startup; /* the table's, with the GPU named resolved */
    kvp__seed_rules seed; /* the results of the rules around the creator */
} opts;

static bool g_json;

static int bad_input(kvp_status code, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int bad_input(kvp_status code, const char *key, const char *fmt, ...) {
    kvp_error err;
    kvp_error_clear(&err);
    err.code = code;
    if (key) snprintf(err.key, sizeof err.key, "%s", key);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err.message, sizeof err.message, fmt, ap);
    va_end(ap);
    return kvp_cli_report_error(&err, g_json);
}

/* The creator's settings (seed_rules.h) and what the command keeps of the
 * table's. Returns -1 to continue, else an exit status. */
static int creator_settings(opts *o, const kvp_options *t) {
    o->t = t;
    kvp_error err;
    kvp_error_clear(&err);
    if (kvp__seed_settings(t, &o->d, &err) != KVP_OK) return kvp_cli_report_error(&err, g_json);
    o->startup = t->startup;
    o->local_dep.enforce_eager = t->startup.enforce_eager;
    o->seed.rules = &t->rules;
    o->seed.engine_version =
        kvp_options_given(t, "--engine-version") ? t->deployment.policy.engine_version : NULL;
    return -1;
}

/* This command's own options (output and model-local reports); everything else
 * is a row of the option table. For "did you mean". */
static const char *const k_own[] = {"--explain", "--json", "--help", "--svg", "--html",
                                    "--local", "--async-chunk", "--streaming", "--from",
                                    "--geometry", NULL};

static int unknown_option(const char *a) {
    if (g_json) {
        char bare[128];
        snprintf(bare, sizeof bare, "%s", a);
        char *eq = strchr(bare, '=');
        if (eq) *eq = '\0';
        return bad_input(KVP_INVALID_ARG, bare, "unknown option '%s' (see --help)", bare);
    }
    return kvp_cli_table_unknown(a, KVP_COMMAND_PLAN, k_own, NULL);
}

/* Returns -1 to continue, else an exit status. */
static int parse(int argc, char **argv, opts *o, kvp_options *t) {
    bool bad = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (kvp_cli_flag(a, "--help") || kvp_cli_flag(a, "-h")) {
            usage(stdout);
            return KVP_EXIT_OK;
        } else if (kvp_cli_flag(a, "--json")) {
            o->json = true;
        } else if (kvp_cli_flag(a, "--explain")) {
            o->explain = true;
        } else if (kvp_cli_opt(argc, argv, &i, "--svg", &v, &bad)) {
            if (bad) return KVP_EXIT_BAD_INPUT;
            o->svg = v;
        } else if (kvp_cli_opt(argc, argv, &i, "--html", &v, &bad)) {
            if (bad) return KVP_EXIT_BAD_INPUT;
            o->html = v;
        } else if (kvp_cli_opt(argc, argv, &i, "--local", &v, &bad)) {
            if (bad) return KVP_EXIT_BAD_INPUT;
            o->local = v;
        } else if (kvp_cli_flag(a, "--async-chunk")) {
            o->local_dep.async_chunk = true;
        } else if (kvp_cli_flag(a, "--streaming")) {
            o->local_dep.streaming = true;
        } else {
            int rc = kvp_cli_table_option(t, argc, argv, &i, g_json);
            if (rc > 0) return rc;
            if (rc < 0) continue;
            if (a[0] == '-' && a[1] != '\0') return unknown_option(a);
            if (o->model)
                return bad_input(KVP_INVALID_ARG, NULL, "plan takes one MODEL, got a second: '%s'", a);
            o->model = a;
        }
    }
    o->model = kvp_cli_from_model(o->model); /* the --from command's, unless given */
    /* Two outputs into one file, or an output over the model read. */
    int frc = kvp_cli_one_file_as(g_json, "--svg", o->svg, "--html", o->html);
    if (!frc) frc = kvp_cli_output_over_inputs(g_json, "--svg", o->svg, o->model);
    if (!frc) frc = kvp_cli_output_over_inputs(g_json, "--html", o->html, o->model);
    if (frc) return frc;
    int rc = kvp_cli_table_finish(t, g_json);
    if (rc >= 0) return rc;
    return creator_settings(o, t);
}
/* ------------------------------------------------------------------ output */

typedef struct plan_ctx {
    opts *o;
    kvp_model *model, *draft;
    const char *total_source;
    kvp__settled set;        /* the GPU and the memory source (settle.h) */
    kvp_deploy_result *r;    /* the pipeline's result (deploy.h) */
    kvp_startup_report *rep; /* the start-up rules of that plan */
    char model_dir[4096];
    const char *warnings[64];
    char warn_buf[8][320];
    kvp_local_report *local; /* model-local caches (--local), NULL when none */
    uint64_t local_peak_bytes, local_risk_bytes;
    size_t warn_count, warn_buf_used;
    size_t cli_warn_count;   /* warnings[0..cli_warn_count): the CLI's own */
} plan_ctx;

static void warn(plan_ctx *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(plan_ctx *p, const char *fmt, ...) {
    if (p->warn_buf_used == 8 || p->warn_count == 64) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->warn_buf[p->warn_buf_used], sizeof p->warn_buf[0], fmt, ap);
    va_end(ap);
    p->warnings[p->warn_count++] = p->warn_buf[p->warn_buf_used++];
}

/* `plan --json`, rendered by the library (kvplan/render.h): the same document
 * kvp_json_call returns for the same question. */
/* What the plan's renderers take beyond the result (kvplan/render.h). */
static kvp_render_input render_input(plan_ctx *p, kvp_render_rules *rules) {
    const kvp__seed_rules *x = &p->o->seed;
    const kvp_option_rules *xr = x->rules;
    *rules = (kvp_render_rules){x->engine_version, &xr->compression, &x->compression_effect,
                                xr->has_lora ? &xr->lora : NULL, xr->has_lora ? &x->lora_cache : NULL,
                                xr->has_mm ? &x->mm_profile : NULL, &x->notes};
    return (kvp_render_input){p->model, p->o->startup.gpu_known ? p->o->startup.gpu.name : NULL,
                              p->total_source, p->warnings, p->cli_warn_count, p->local, rules};
}

/* `plan --json`, rendered by the library (kvplan/render.h): the same document
 * kvp_json_call returns for the same question. */
static int print_json(plan_ctx *p) {
    kvp_render_rules rules;
    kvp_render_input in = render_input(p, &rules);
    kvp_error err;
    kvp_error_clear(&err);
    char *text = NULL;
    kvp_status st = kvp_render_plan_json(&in, p->r, &text, &err);
    return kvp_cli_print_rendered(st, text, &err, true);
}

/* The text report (the library's, text_internal.h) into `t`. */
static void render_text(plan_ctx *p, kvp_report_text *t) {
    kvp_render_rules rules;
    kvp_render_input in = render_input(p, &rules);
    const opts *o = p->o;
    const kvp_deployment *td = &o->t->deployment;
    kvp__plan_text_opts to = {o->explain, td->kv.tokens_per_block, td->memory.estimation_kv_bytes,
                              td->kv.free_gpu_memory_fraction, td->memory.has_non_torch,
                              td->memory.has_cuda_graph};
    kvp_report_text_init(t, NULL);
    kvp__trtllm_plan_text(&in, p->r, &to, t);
}

/* ------------------------------------------------------------------ the run */

static int fail_err(plan_ctx *p, const kvp_error *err) { return kvp_cli_report_error(err, p->o->json); }

static int run(plan_ctx *p) {
    opts *o = p->o;
    kvp_error err;
    kvp_error_clear(&err);
    if (kvp_model_open(o->model, NULL, &p->model, &err) != KVP_OK) return fail_err(p, &err);
    if (o->t->draft && kvp_model_open(o->t->draft, NULL, &p->draft, &err) != KVP_OK)
        return fail_err(p, &err);
    /* The multimodal profiling batch (fills o->d before the deployment copies it). */
    if (kvp__seed_rules_prepare(p->model, &o->d, &o->seed, &err) != KVP_OK) return fail_err(p, &err);
    /* The creator's deployment and its memory source (the options room's, seed_rules.h). */
    kvp_deployment dep;
    if (kvp__seed_deployment(o->t, &o->d, kvp_cli_gpu_catalog(),
                             kvp_cli_model_dir(o->model, p->model_dir, sizeof p->model_dir), &p->set,
                             &dep, &err) != KVP_OK)
        return fail_err(p, &err);
    dep.model = p->model;
    dep.draft = p->draft;
    p->total_source = p->set.total_source;
    int rc;
    bool have_mem = dep.memory.kv_budget_bytes == 0;
    /* TensorRT-LLM's start-up rules run in the pipeline (docs/startup.md): a
     * refusal is exit 1 with its rule; a max_seq_len above the model's is clamped
     * as trtllm-serve does, and planned with. */
    o->startup.gpu_known = p->set.gpu_known; /* looked up once, by the memory source */
    if (p->set.gpu_known) o->startup.gpu = p->set.gpu;
    /* The one step every command takes (deploy.h): the start-up settings and the
     * GPU's identity; the memory was decided above (--gpu, --gpu-mem, --probe). */
    kvp_deployment_settle(&dep, &o->startup, o->startup.gpu_known ? &o->startup.gpu : NULL, true);
    dep.startup.enforce_eager = o->startup.enforce_eager || o->local_dep.enforce_eager;
    if ((rc = kvp_cli_startup_inputs(p->model, &o->startup, o->json)) >= 0) return rc;
    if (o->local) {
        /* Model-local caches: reported, never subtracted when memory was measured; with
         * estimated memory the graph-resident part joins the predicted peak
         * (model-local-kv-caches.md, "What is and is not already accounted for"). */
        o->local_dep.max_num_seqs = o->d.max_batch_size ? o->d.max_batch_size : 2048;
        bool measured = have_mem && (o->t->deployment.memory.has_peak ||
                                     o->t->deployment.memory.has_activation_peak);
        char lw[2][KVP__LOCAL_WARN_MAX];
        size_t n_lw = 0;
        if (kvp__local_plan_effect(o->local, &o->local_dep, have_mem, measured, &p->local,
                                   &p->local_peak_bytes, &p->local_risk_bytes, lw, &n_lw,
                                   &err) != KVP_OK)
            return fail_err(p, &err);
        if (have_mem) dep.memory.local_graph_bytes = p->local_peak_bytes;
        for (size_t i = 0; i < n_lw; i++) warn(p, "%s", lw[i]);
    }

    p->r = kvp_deploy_result_new();
    p->rep = malloc(sizeof *p->rep);
    if (!p->r || !p->rep) return bad_input(KVP_NOMEM, NULL, "plan: out of memory");
    if (kvp_deploy_plan_report(&dep, p->r, p->rep, &err) != KVP_OK) return fail_err(p, &err);
    const kvp_deploy_result *r = p->r;
    if ((rc = kvp_cli_startup_result(&dep, r, p->rep, kvp_model_name(p->model), o->json,
                                     KVP_CLI_STARTUP_VERDICT)) != 0)
        return rc;
    if (r->status != KVP_OK) return bad_input(r->status, r->key, "%s", r->message);
    /* The requests asked for (--isl, --max-new-tokens): refused by name (2), or never
     * admitted (1, with the largest length that fits). */
    if (r->admission.status != KVP_OK)
        return bad_input(r->admission.status, r->admission.key, "%s", r->admission.refused);
    o->seed.enable_block_reuse = o->t->deployment.kv.enable_block_reuse;
    if (kvp__seed_rules_after_build(p->model, &r->trtllm, &r->plan, &o->seed, &err) != KVP_OK)
        return fail_err(p, &err);
    p->cli_warn_count = p->warn_count; /* the CLI's own; the renderers add the pipeline's */
    kvp_report_text text;
    render_text(p, &text);
    rc = o->json ? print_json(p) : kvp_cli_write_text(&text, stdout);
    /* Pictures of the same plan, written atomically (temporary name, then rename). */
    uint64_t local_bytes = p->local_peak_bytes + p->local_risk_bytes;
    const kvp_memory_facts *mf = r->have_memory ? &r->memory : NULL;
    if (rc < 0 && o->svg &&
        kvp_report_write_plan_svg(o->svg, kvp_model_name(p->model), mf, &r->cap, &r->plan,
                                  local_bytes, &err) != KVP_OK)
        rc = kvp_cli_report_error(&err, false);
    if (rc < 0 && o->html &&
        kvp_report_write_plan_html(o->html, kvp_model_name(p->model), text.data, mf, &r->cap,
                                   &r->plan, local_bytes, &err) != KVP_OK)
        rc = kvp_cli_report_error(&err, false);
    kvp_report_text_free(&text);
    if (rc >= 0) return rc;
    /* A stated max_seq_len the cache cannot hold: TensorRT-LLM would not serve it. */
    if (!r->starts) return kvp_cli_refuse("--max-seq-len", r->refusal);
    return KVP_EXIT_OK;
}

static int plan_seed(int argc, char **argv);

static int plan_main(int argc, char **argv);

/* --from "vllm serve ...": the engine's command fills the settings of the run. */
int kvp_cmd_plan(int argc, char **argv) { return kvp_cli_from_run(argc, argv, plan_main); }

static int plan_main(int argc, char **argv) {
    kvp_cli_table_use(NULL); /* no spellings of an earlier command in this process */
    /* The --from command's engine, --policy or an engine's own flags choose the
     * planner (argv_words.c); the policies' command line says which engine the
     * flags chose (the note fit and sweep print too). */
    bool creator = true, json = false;
    kvp_error err;
    if (kvp__plan_uses_creator(argc, argv, kvp_cli_from_engine(), &creator, &err) != KVP_OK) {
        for (int i = 1; i < argc; i++) json = json || !strcmp(argv[i], "--json");
        return kvp_cli_report_error(&err, json);
    }
    return creator ? plan_seed(argc, argv) : kvp_cli_plan_policy(argc, argv);
}

/* The seed's planner (policy trtllm). */
static int plan_seed(int argc, char **argv) {
    opts o;
    memset(&o, 0, sizeof o);
    g_json = false;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--json") == 0) g_json = true;
    /* The settings come through the one option table; `t` outlives the run (the
     * rules' names point into it). */
    kvp_options *t = kvp_options_new(KVP_COMMAND_PLAN);
    if (!t) return kvp_cli_fail("out of memory");
    int rc = kvp_cli_from_apply(t, g_json); /* --from's settings first, argv on top */
    if (rc < 0) rc = parse(argc, argv, &o, t);
    if (rc >= 0) {
        kvp_options_free(t);
        return rc;
    }
    if (!o.model) {
        kvp_options_free(t);
        if (!g_json) usage(stderr);
        return bad_input(KVP_INVALID_ARG, NULL,
                         "plan needs a MODEL (a config.json, a folder, or a name from 'kvplan "
                         "models')");
    }
    plan_ctx p;
    memset(&p, 0, sizeof p);
    p.o = &o;
    rc = run(&p);
    kvp_deploy_result_free(p.r);
    free(p.rep);
    kvp_local_report_free(p.local);
    kvp_model_free(p.draft);
    kvp_model_free(p.model);
    kvp_options_free(t);
    return rc;
}
