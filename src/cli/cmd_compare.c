/* cmd_compare.c — `kvplan compare MODEL --gpu ...`: the same model, GPU and
 * memory terms under every engine policy side by side, with the terms that
 * make them differ: how each defines its budget, how it rounds to pages, and
 * what it leaves for activations and everything else. */
#include <stdlib.h>
#include <string.h>

#include "bind_internal.h" /* kvp__unread_notes, shared with kvp_json_call */
#include "argv_words.h"
#include "cli_options.h"
#include "fit_env.h"
#include "kvplan/render.h"
#include "from_cmd.h" /* kvp_cli_from_run, kvp_cli_from_model */
#include "text_internal.h"
#include "util.h"

/* The engines --policies names (the options room's list reader, kvp_json_call's too). */
typedef struct engine_list {
    kvp_engine engines[KVP_ENGINE_COUNT];
    size_t n;
} engine_list;

static kvp_status policies(void *out, const char *v, kvp_error *err) {
    engine_list *l = out;
    return kvp__engine_list(v, "--policies", "--policies", l->engines, &l->n, err);
}

static int compare_main(int argc, char **argv);

/* --from "vllm serve ...": the engine's command fills the settings of the run. */
int kvp_cmd_compare(int argc, char **argv) { return kvp_cli_from_run(argc, argv, compare_main); }

/* The engines compared: --policies, the one --policy names, or all four. -1
 * to go on, else the exit status after printing. */
static int choose_engines(fit_cli *c, engine_list *l) {
    /* --policy names the one engine `plan` plans; --policies the engines compared. */
    bool policies_given = l->n > 0, policy_given = kvp_options_given(c->opt, "--policy");
    if (policies_given && policy_given)
        return kvp_cli_contradiction("--policies", "--policy",
                                     "--policies lists the engines compared; give one of them",
                                     c->json);
    if (policy_given) l->engines[l->n++] = c->base.engine; /* one engine: the one named */
    if (l->n == 0)
        for (int k = 0; k < KVP_ENGINE_COUNT; k++) l->engines[l->n++] = (kvp_engine)k;
    c->opt->engines_vary = l->n > 1;
    for (size_t k = 0; k < l->n; k++) c->opt->engines_planned |= KVP_OPTION_ENGINE(l->engines[k]);
    if (policies_given && l->n == 1) {
        /* One engine compared: the settings are read as that engine reads them
         * (an option with no meaning there is refused, engine_reads.c). */
        c->opt->deployment.point.engine = c->opt->deployment.policy.engine = l->engines[0];
        c->opt->engine_given = true;
    }
    /* A dtype is spelled per engine: it can be given for one engine only. */
    if (c->base.kv_dtype[0] && l->n > 1)
        return fit_cli_bad(c, KVP_INVALID_ARG, "--kv-dtype",
                           "compare keeps each engine's own KV dtype spelling: drop --kv-dtype, "
                           "give one engine with --policies, or use 'kvplan sweep --over "
                           "policy=... --over kv-dtype=...'");
    return -1;
}

static int compare_main(int argc, char **argv) {
    fit_cli c;
    fit_cli_init(&c, argc, argv);
    engine_list l = {.n = 0};
    const char *html = NULL;
    const kvp__argv_own own[] = {{"--policies", KVP__OWN_CALL, &l, 0, 0, policies},
                                 {"--html", KVP__OWN_TEXT, &html, 0, 0, NULL},
                                 {NULL, 0, NULL, 0, 0, NULL}};
    int rc = fit_cli_from(&c); /* --from's settings first, argv on top */
    if (rc < 0) rc = fit_cli_read(&c, own, argc, argv);
    if (rc < 0) rc = choose_engines(&c, &l);
    c.model_arg = kvp_cli_from_model(c.model_arg); /* the --from command's, unless given */
    /* The page over the model or the GPU catalogue read (issue 29). */
    int orc = rc < 0 ? kvp_cli_output_over_inputs(c.json, "--html", html, c.model_arg) : 0;
    if (orc) rc = orc;
    if (rc < 0) rc = fit_cli_finish(&c, "compare");
    kvp_fit_eval *ev = rc < 0 ? calloc(l.n, sizeof *ev) : NULL;
    if (rc < 0 && !ev) rc = kvp_cli_fail("out of memory");
    kvp_error err;
    kvp_error_clear(&err);
    for (size_t k = 0; rc < 0 && k < l.n; k++) {
        kvp_fit_point p = c.base;
        p.engine = l.engines[k];
        if (kvp_fit_evaluate(&c.env, &p, &ev[k], &err) != KVP_OK) rc = kvp_cli_report_error(&err, c.json);
    }
    /* --json: each engine's notes say which options given it does not read (on
     * stderr as "kvplan: note:" in both forms, kvp_options_finish). */
    for (size_t k = 0; rc < 0 && c.json && c.opt->engines_vary && k < l.n; k++)
        kvp__unread_notes(c.opt, &ev[k]);
    const kvp_gpu_info *gpu = c.has_gpu_info ? &c.gpu_info : NULL;
    if (rc < 0 && c.json) {
        kvp_render_input in = {c.model, gpu ? gpu->name : NULL, NULL, NULL, 0, NULL, NULL};
        char *text = NULL;
        kvp_status rst = kvp_render_compare_json(&in, ev, l.n, &text, &err);
        int prc = kvp_cli_print_rendered(rst, text, &err, true);
        if (prc >= 0) rc = prc;
    } else if (rc < 0) {
        kvp_report_text t = {0};
        kvp__compare_text(c.model, gpu, ev, l.n, &t);
        kvp_cli_write_text(&t, stdout);
        kvp_report_text_free(&t);
    }
    if (rc < 0) {
        /* No engine would start the deployment (a start-up rule, or one request does
         * not fit): exit 1, as `plan` does. */
        bool any_starts = false, all_bad = l.n > 0;
        for (size_t k = 0; k < l.n; k++) {
            any_starts = any_starts || ev[k].starts;
            all_bad = all_bad && fit_eval_bad_input(&ev[k]);
        }
        rc = any_starts ? KVP_EXIT_OK : KVP_EXIT_NO;
        /* Every engine refused the input itself (measured memory facts that cannot be true
         * together): bad input, exit 2 with the refusal on stderr, as `plan` gives it. */
        if (all_bad) rc = fit_eval_report(&ev[0], false);
        if (html && kvp__compare_html(html, c.model, gpu, ev, l.n, &err) != KVP_OK)
            rc = kvp_cli_report_error(&err, c.json);
    }
    free(ev);
    fit_cli_free(&c);
    return rc;
}
