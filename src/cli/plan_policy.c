/*
 * plan_policy.c — the command line of the engine policies: parses every option
 * of `kvplan plan --policy X` (kvplan names and the engines' own flag names),
 * loads the model (catalogue, config.json, .gguf, or a geometry JSON), runs
 * kvp_policy_plan and prints the figures the engine's start-up log would show,
 * or --json with `engine_report`.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "cli.h"
#include "engine_ops.h"
#include "render_internal.h" /* kvp__estimated_note */
#include "kvplan/render.h"
#include "kvplan/deploy.h"
#include "from_cmd.h"
#include "plan_policy.h"
#include "text_internal.h"
#include "startup_cli.h"
#include "cli_options.h"
#include "settle.h"
#include "util.h"
#include "model_arg.h"

/* An unknown option: "did you mean" over the table's names and this command's own. */
static int unknown_option(const char *arg) {
    static const char *const own[] = {"--geometry", "--json", "--help", "--from", NULL};
    return kvp_cli_table_unknown(arg, KVP_COMMAND_PLAN, own, NULL);
}

/* ---------------------------------------------------------------- model loading */

/* Notes the command line adds to the policy's own (a null input left at its
 * default, an informational option ignored, a model found by its file name). */
typedef struct cli_notes {
    unsigned count;
    char text[12][200];
} cli_notes;

static void cli_note(cli_notes *n, const char *fmt, ...) KVP_PRINTF(2, 3);
static void cli_note(cli_notes *n, const char *fmt, ...) {
    if (n->count >= sizeof n->text / sizeof n->text[0]) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(n->text[n->count], sizeof n->text[0], fmt, ap);
    va_end(ap);
    n->count++;
}

/* --explain, --svg FILE and --html FILE: what to show besides the plan, taken out
 * of argv before the engine options are read (they are not engine settings). */
static struct {
    bool explain;
    const char *svg, *html;
} g_show;

/* `plan --json`, rendered by the library (kvplan/render.h): the same document
 * kvp_json_call returns for the same question. */
static int print_json(const kvp_model *model, const char *gpu, const char *total_source,
                      const kvp_deploy_result *res, const cli_notes *cn) {
    const char *notes[sizeof cn->text / sizeof cn->text[0]];
    for (unsigned i = 0; i < cn->count; i++) notes[i] = cn->text[i];
    kvp_render_input in = {model, gpu, total_source, notes, cn->count, NULL, NULL};
    kvp_error err;
    kvp_error_clear(&err);
    char *text = NULL;
    kvp_status st = kvp_render_plan_json(&in, res, &text, &err);
    return kvp_cli_print_rendered(st, text, &err, true);
}

/* The admission refusal as the error to report. */
static kvp_status admission_error(const kvp_deploy_result *res, kvp_error *err) {
    err->code = res->admission.status;
    kvp__strlcpy(err->message, res->admission.refused, sizeof err->message);
    kvp__strlcpy(err->key, res->admission.key, sizeof err->key);
    return res->admission.status;
}

/* The settings are read from the settled option table in place (no copy);
 * --geometry FILE is this command's own. */
static int plan_policy_main(int argc, char **argv, cli_notes *notes) {
    const char *model_arg = NULL, *geometry = NULL;
    bool json = false, bad = false;
    kvp_options *o = kvp_options_new(KVP_COMMAND_PLAN);
    kvp_startup_settings *ss = calloc(1, sizeof *ss); /* the table's, with the GPU resolved */
    kvp_deploy_result *res = kvp_deploy_result_new();
    kvp_startup_report *rep = malloc(sizeof *rep); /* the start-up rules of this plan */
    kvp_model *model = NULL;
    kvp_error err;
    kvp_error_clear(&err);
    int rc = o && ss && res && rep ? -1 : kvp_cli_fail("plan: out of memory");
    for (int i = 1; i < argc; i++) /* known first: the first error already comes as JSON */
        if (!strcmp(argv[i], "--json")) json = true;
    if (rc < 0) rc = kvp_cli_from_apply(o, json); /* --from's settings first, argv on top */
    for (int i = 1; i < argc && !bad && rc < 0; i++) {
        const char *a = argv[i], *v = NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            kvp_cli_plan_usage(stdout);
            rc = KVP_EXIT_OK;
        } else if (!strcmp(a, "--json")) {
            json = true;
        } else if (kvp_cli_opt(argc, argv, &i, "--geometry", &v, &bad)) {
            geometry = v;
        } else if ((rc = kvp_cli_table_option(o, argc, argv, &i, json)) > 0) {
            break;
        } else if (rc < 0) {
            continue;
        } else if (a[0] == '-' && a[1] != '\0') {
            rc = unknown_option(a);
        } else if (model_arg) {
            rc = kvp_cli_fail("plan: unexpected argument '%s' (one MODEL only)", a);
        } else {
            model_arg = a;
            rc = -1;
        }
    }
    if (rc >= 0) goto out;
    model_arg = kvp_cli_from_model(model_arg); /* the --from command's, unless given */
    if ((rc = kvp_cli_one_file_as(json, "--svg", g_show.svg, "--html", g_show.html)) ||
        (rc = kvp_cli_output_over_inputs(json, "--svg", g_show.svg, model_arg)) ||
        (rc = kvp_cli_output_over_inputs(json, "--html", g_show.html, model_arg)))
        goto out;
    if ((rc = bad ? KVP_EXIT_BAD_INPUT : kvp_cli_table_finish(o, json)) >= 0) goto out;
    if (!model_arg && !geometry) {
        kvp_cli_plan_usage(stdout);
        rc = kvp_cli_fail("plan: missing MODEL");
        goto out;
    }
    const kvp_deployment *td = &o->deployment;
    *ss = o->startup;
    kvp__settled set; /* the GPU looked up once, the memory source (settle.h) */
    if (kvp__options_settle(o, kvp_cli_gpu_catalog(), &set, &err) != KVP_OK) {
        rc = kvp_cli_report_error(&err, json);
        goto out;
    }
    const char *total_source = set.total_source;
    if (set.gpu_known) {
        ss->gpu = set.gpu;
        ss->gpu_known = true;
    }
    if (kvp__model_load_arg(geometry ? geometry : model_arg, geometry != NULL, &model, &err) != KVP_OK) {
        rc = kvp_cli_report_error(&err, json);
        goto out;
    }
    if ((rc = kvp_cli_startup_inputs(model, ss, json)) >= 0) goto out;
    /* One deployment through the pipeline (deploy.h): memory terms not measured
     * are estimated from the config there, the same way for every command, and
     * the engine's start-up rules run on it (docs/startup.md). */
    kvp_deployment d;
    char model_dir[4096];
    kvp__policy_deployment(o, &set, ss, model,
                           geometry ? NULL : kvp_cli_model_dir(model_arg, model_dir, sizeof model_dir),
                           &d);
    kvp_status st = kvp_deploy_plan_report(&d, res, rep, &err);
    /* llama.cpp that does not fit the device: its figures are planned, the engine
     * would not start; print them and say why. */
    bool figures = st == KVP_OK && res->policy.pool_count > 0 &&
                   (res->status == KVP_OK || res->status == KVP_INFEASIBLE);
    if (st == KVP_OK && res->status != KVP_OK && !figures) {
        st = res->status;
        err.code = res->status;
        kvp__strlcpy(err.message, res->message, sizeof err.message);
        kvp__strlcpy(err.key, res->key, sizeof err.key);
    }
    /* A request the engine's server rejects (--isl, --max-new-tokens past the length)
     * is bad input, before the start-up rules; one never admitted is exit 1 below. */
    if (st == KVP_OK && res->status == KVP_OK && res->admission.status == KVP_INVALID_ARG) {
        admission_error(res, &err);
        rc = kvp_cli_report_error(&err, json);
        goto out;
    }
    /* A start-up rule that refuses is exit 1 with its rule; what the engine
     * adjusts (length, dtype) was planned with and is said on stderr. */
    if ((rc = kvp_cli_startup_result(&d, res, rep, kvp_model_name(model), json, 0)) != 0) goto out;
    if (st == KVP_OK && res->admission.status != KVP_OK) st = admission_error(res, &err);
    if (st) {
        rc = kvp_cli_report_error(&err, json);
        goto out;
    }
    /* The note on estimated terms: the JSON renderer adds it itself (the same for
     * kvp_json_call); the text report says it here. */
    char est_note[KVP_NOTE_TEXT_MAX];
    if (!json && kvp__estimated_note(res, est_note, sizeof est_note)) cli_note(notes, "%s", est_note);
    rc = -1;
    if (json) {
        rc = print_json(model, o->gpu ? ss->gpu.name : NULL, total_source, res, notes);
    } else {
        const char *nv[sizeof notes->text / sizeof notes->text[0]];
        for (unsigned i = 0; i < notes->count; i++) nv[i] = notes->text[i];
        kvp_report_text text;
        kvp_report_text_init(&text, NULL);
        kvp__policy_plan_text(model, res, nv, notes->count, &text);
        if (g_show.explain) kvp__policy_explain_text(res, total_source, &text);
        rc = kvp_cli_write_text(&text, stdout);
        kvp_report_text_free(&text);
    }
    if (rc < 0 && (g_show.svg || g_show.html) &&
        kvp__policy_pictures(model, res, total_source, g_show.svg, g_show.html, &err) != KVP_OK)
        rc = kvp_cli_report_error(&err, false);
    if (rc < 0)
        rc = res->starts ? KVP_EXIT_OK
                         : kvp_cli_refuse(kvp__engine_ops_of(td->policy.engine)->len_flag, res->refusal);
out:
    kvp_deploy_result_free(res);
    free(rep);
    kvp_model_free(model);
    free(ss);
    kvp_options_free(o);
    return rc;
}

/* Removes them from argv in place; returns the new argc, -1 on a missing value. */
static int take_show_options(int argc, char **argv) {
    memset(&g_show, 0, sizeof g_show);
    int n = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char **dst = !strcmp(a, "--svg") ? &g_show.svg : !strcmp(a, "--html") ? &g_show.html : NULL;
        if (i > 0 && !strcmp(a, "--explain")) {
            g_show.explain = true;
        } else if (i > 0 && dst) {
            if (i + 1 >= argc || argv[i + 1][0] == '\0') return -1;
            *dst = argv[++i];
        } else if (i > 0 && (!strncmp(a, "--svg=", 6) || !strncmp(a, "--html=", 7))) {
            const char *v = strchr(a, '=') + 1;
            if (!*v) return -1;
            if (a[2] == 's') g_show.svg = v;
            else g_show.html = v;
        } else {
            argv[n++] = argv[i];
        }
    }
    argv[n] = NULL;
    return n;
}

int kvp_cli_plan_policy(int argc, char **argv) {
    cli_notes notes;
    memset(&notes, 0, sizeof notes);
    char **args = malloc(((size_t)argc + 1) * sizeof *args);
    if (!args) return kvp_cli_fail("plan: out of memory");
    memcpy(args, argv, ((size_t)argc + 1) * sizeof *args);
    argc = take_show_options(argc, args);
    if (argc < 0) {
        free(args);
        return kvp_cli_fail("plan: --svg and --html need a FILE");
    }
    int rc = plan_policy_main(argc, args, &notes);
    free(args);
    return rc;
}
