/* cmd_fit.c — `kvplan fit MODEL --gpu ...`: solve for the setting left free
 * (the longest --max-seq-len serving --concurrency N, the most sequences at
 * a length, the smallest TP on --gpus N, the KV dtype needed), exactly, with
 * the binding constraint named. Exit 0 when the target is met, 1 when not
 * (the best that can be done is printed), 2 on bad input. */
#include <stdlib.h>
#include <string.h>

#include "fit_env.h"
#include "fit_request.h"
#include "kvplan/render.h"
#include "from_cmd.h" /* kvp_cli_from_run, kvp_cli_from_model */
#include "text_internal.h"
#include "util.h"

/* What the question gave besides the deployment: fit's own words. */
typedef struct fit_words {
    kvp_fit_request req;
    kvp__fit_given given;
} fit_words;

static kvp_status solve(void *out, const char *v, kvp_error *err) {
    fit_words *f = out;
    if (!kvp__fit_solve_word(v, &f->req.solve_for))
        return fit_cli_refuse(err, KVP_INVALID_ARG, "--solve",
                              "--solve: '%s' is not max-seq-len, concurrency, tp or kv-dtype", v);
    f->given.solve = true;
    return KVP_OK;
}

static kvp_status concurrency(void *out, const char *v, kvp_error *err) {
    fit_words *f = out;
    kvp_error e;
    if (kvp_parse_count(v, &f->req.concurrency, &e) != KVP_OK || f->req.concurrency == 0 ||
        f->req.concurrency > (1u << 24))
        return fit_cli_refuse(err, KVP_INVALID_ARG, "--concurrency",
                              "--concurrency: '%s', expected 1 to 16777216", v);
    f->given.concurrency = true;
    return KVP_OK;
}

static kvp_status seq_len_limit(void *out, const char *v, kvp_error *err) {
    uint64_t *hi = out;
    if (fit_cli_count("--max-seq-len-limit", v, hi, err) != KVP_OK) return err->code;
    if (*hi == 0)
        return fit_cli_refuse(err, KVP_INVALID_ARG, "--max-seq-len-limit", "--max-seq-len-limit is 0");
    return KVP_OK;
}

static int fit_main(int argc, char **argv);

/* --from "vllm serve ...": the engine's command fills the settings of the run. */
int kvp_cmd_fit(int argc, char **argv) { return kvp_cli_from_run(argc, argv, fit_main); }

static int fit_main(int argc, char **argv) {
    fit_cli c;
    fit_cli_init(&c, argc, argv);
    fit_words f;
    memset(&f, 0, sizeof f);
    kvp_fit_request *const req = &f.req;
    const char *svg = NULL;
    const kvp__argv_own own[] = {{"--solve", KVP__OWN_CALL, &f, 0, 0, solve},
                                 {"--concurrency", KVP__OWN_CALL, &f, 0, 0, concurrency},
                                 {"--allow-pp", KVP__OWN_FLAG, &f.req.allow_pp, 0, 0, NULL},
                                 {"--max-seq-len-limit", KVP__OWN_CALL, &f.req.seq_len_hi, 0, 0, seq_len_limit},
                                 {"--svg", KVP__OWN_TEXT, &svg, 0, 0, NULL},
                                 {NULL, 0, NULL, 0, 0, NULL}};
    int rc = fit_cli_from(&c); /* --from's settings first, argv on top */
    if (rc < 0) rc = fit_cli_read(&c, own, argc, argv);
    kvp_error err;
    if (rc < 0) {
        /* --gpus (the table's): the GPUs a --solve tp search may use. What is left
         * free is the fit room's rule (fit_request.c), kvp_json_call's too. */
        f.given.gpus = kvp_options_given(c.opt, "--gpus");
        if (f.given.gpus) req->gpus = c.opt->gpus;
        f.given.max_seq_len = c.has_max_seq_len;
        static const kvp__fit_words k_words = {NULL, "use --max-seq-len-limit for the search bound"};
        kvp__fit_conflict conflict = kvp__fit_left_free(req, &f.given, &c.base);
        if (conflict && kvp__fit_conflict_refuse(conflict, &k_words, &err))
            rc = kvp_cli_report_error(&err, c.json);
    }
    c.model_arg = kvp_cli_from_model(c.model_arg); /* the --from command's, unless given */
    /* The picture over the model or the GPU catalogue read (issue 29). */
    int orc = rc < 0 ? kvp_cli_output_over_inputs(c.json, "--svg", svg, c.model_arg) : 0;
    if (orc) rc = orc;
    if (rc < 0) rc = fit_cli_finish(&c, "fit");
    kvp_fit_answer *ans = rc < 0 ? calloc(1, sizeof *ans) : NULL;
    if (rc < 0 && !ans) rc = kvp_cli_fail("out of memory");
    kvp_error_clear(&err);
    req->base = c.base;
    if (rc < 0 && kvp_fit_solve(&c.env, req, ans, &err) != KVP_OK) rc = kvp_cli_report_error(&err, c.json);
    /* A deployment refused for its input (measured memory facts that cannot be true
     * together, a contradictory setting) is bad input, exit 2 as `plan` gives it: only
     * a target that cannot be met (KVP_INFEASIBLE) is the answer "none", exit 1
     * (issue 12 item 7, issue 17). */
    if (rc < 0 && !ans->found && fit_eval_bad_input(&ans->at)) rc = fit_eval_report(&ans->at, c.json);
    const kvp_gpu_info *gpu = c.has_gpu_info ? &c.gpu_info : NULL;
    if (rc < 0 && svg && ans->at.status == KVP_OK &&
        kvp__fit_svg(svg, c.model, gpu, req, ans, &err) != KVP_OK)
        rc = kvp_cli_report_error(&err, c.json);
    if (rc < 0 && c.json) {
        kvp_render_input in = {c.model, gpu ? gpu->name : NULL, NULL, NULL, 0, NULL, NULL};
        char *text = NULL;
        kvp_status rst = kvp_render_fit_json(&in, req, ans, &text, &err);
        int prc = kvp_cli_print_rendered(rst, text, &err, true);
        if (prc >= 0) rc = prc;
    } else if (rc < 0) {
        kvp_report_text t = {0};
        kvp__fit_text(c.model, gpu, req, ans, &t);
        kvp_cli_write_text(&t, stdout);
        kvp_report_text_free(&t);
    }
    if (rc < 0) rc = ans->found ? KVP_EXIT_OK : KVP_EXIT_NO;
    free(ans);
    fit_cli_free(&c);
    return rc;
}
