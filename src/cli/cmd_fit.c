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
#include "command_help.h"
#include "util.h"

static void usage(FILE *out) {
    fputs(kvp__command_help("fit"), out);
    fit_cli_usage(out, KVP_COMMAND_FIT);
}

static int fit_main(int argc, char **argv);

/* --from "vllm serve ...": the engine's command fills the settings of the run. */
int kvp_cmd_fit(int argc, char **argv) { return kvp_cli_from_run(argc, argv, fit_main); }

static int fit_main(int argc, char **argv) {
    fit_cli c;
    fit_cli_init(&c, argc, argv);
    int frc = fit_cli_from(&c); /* --from's settings first, argv on top */
    if (frc >= 0) return frc;
    kvp_fit_request req;
    memset(&req, 0, sizeof req);
    kvp__fit_given given = {false, false, false, false};
    const char *svg = NULL;
    static const char *const extra[] = {"--solve", "--concurrency", "--allow-pp",
                                        "--max-seq-len-limit", "--svg", NULL};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        bool handled = false, bad = false;
        if (kvp_cli_flag(a, "--help") || kvp_cli_flag(a, "-h")) {
            usage(stdout);
            return KVP_EXIT_OK;
        }
        int rc = fit_cli_option(&c, argc, argv, &i, &handled);
        if (rc >= 0) return rc;
        if (handled) continue;
        if (kvp_cli_opt(argc, argv, &i, "--solve", &v, &bad)) {
            if (bad) return KVP_EXIT_BAD_INPUT;
            if (!kvp__fit_solve_word(v, &req.solve_for))
                return fit_cli_bad(&c, KVP_INVALID_ARG, "--solve",
                                   "--solve: '%s' is not max-seq-len, concurrency, tp or kv-dtype", v);
            given.solve = true;
        } else if (kvp_cli_opt(argc, argv, &i, "--concurrency", &v, &bad)) {
            kvp_error e;
            if (bad) return KVP_EXIT_BAD_INPUT;
            if (kvp_parse_count(v, &req.concurrency, &e) != KVP_OK || req.concurrency == 0 ||
                req.concurrency > (1u << 24))
                return fit_cli_bad(&c, KVP_INVALID_ARG, "--concurrency",
                                   "--concurrency: '%s', expected 1 to 16777216", v);
            given.concurrency = true;
        } else if (kvp_cli_flag(a, "--allow-pp")) {
            req.allow_pp = true;
        } else if (kvp_cli_opt(argc, argv, &i, "--max-seq-len-limit", &v, &bad)) {
            if (bad || !kvp_cli_u64_count("--max-seq-len-limit", v, &req.seq_len_hi))
                return KVP_EXIT_BAD_INPUT;
            if (req.seq_len_hi == 0)
                return fit_cli_bad(&c, KVP_INVALID_ARG, "--max-seq-len-limit",
                                   "--max-seq-len-limit is 0");
        } else if (kvp_cli_opt(argc, argv, &i, "--svg", &v, &bad)) {
            if (bad) return KVP_EXIT_BAD_INPUT;
            svg = v;
        } else if (a[0] == '-' && a[1] != '\0') {
            return fit_cli_unknown_option(&c, a, extra);
        } else if (!c.model_arg) {
            c.model_arg = a;
        } else {
            return fit_cli_bad(&c, KVP_INVALID_ARG, NULL, "fit takes one MODEL, got a second: '%s'",
                               a);
        }
    }
    /* --gpus (the table's): the GPUs a --solve tp search may use. What is left
     * free is the fit room's rule (fit_request.c), kvp_json_call's too. */
    given.gpus = kvp_options_given(c.opt, "--gpus");
    if (given.gpus) req.gpus = c.opt->gpus;
    given.max_seq_len = c.has_max_seq_len;
    static const char *const k_conflict[][2] = {
        [KVP__FIT_GIVES_LENGTH] = {"--max-seq-len", "--solve max-seq-len leaves the length free: drop "
                                                    "--max-seq-len (use --max-seq-len-limit for the search bound)"},
        [KVP__FIT_GIVES_TP] = {"--tp", "--solve tp leaves --tp free: drop --tp"},
        [KVP__FIT_GIVES_KV_DTYPE] = {"--kv-dtype", "--solve kv-dtype leaves --kv-dtype free: drop --kv-dtype"},
        [KVP__FIT_GIVES_CONCURRENCY] = {"--concurrency", "--solve concurrency leaves --concurrency free: drop it"},
    };
    kvp__fit_conflict conflict = kvp__fit_left_free(&req, &given, &c.base);
    if (conflict)
        return fit_cli_bad(&c, KVP_INVALID_ARG, k_conflict[conflict][0], "%s", k_conflict[conflict][1]);
    kvp_error err;
    c.model_arg = kvp_cli_from_model(c.model_arg); /* the --from command's, unless given */
    /* The picture over the model or the GPU catalogue read (issue 29). */
    int orc = kvp_cli_output_over_inputs(c.json, "--svg", svg, c.model_arg);
    if (orc) {
        fit_cli_free(&c);
        return orc;
    }
    int rc = fit_cli_finish(&c, "fit");
    if (rc >= 0) {
        fit_cli_free(&c);
        return rc;
    }
    req.base = c.base;
    kvp_fit_answer *ans = calloc(1, sizeof *ans);
    if (!ans) {
        fit_cli_free(&c);
        return kvp_cli_fail("out of memory");
    }
    kvp_error_clear(&err);
    kvp_status st = kvp_fit_solve(&c.env, &req, ans, &err);
    if (st != KVP_OK) {
        free(ans);
        fit_cli_free(&c);
        return kvp_cli_report_error(&err, c.json);
    }
    /* A deployment refused for its input (measured memory facts that cannot be true
     * together, a contradictory setting) is bad input, exit 2 as `plan` gives it: only
     * a target that cannot be met (KVP_INFEASIBLE) is the answer "none", exit 1
     * (issue 12 item 7, issue 17). */
    if (!ans->found && fit_eval_bad_input(&ans->at)) {
        bool json = c.json;
        int brc = fit_eval_report(&ans->at, json);
        free(ans);
        fit_cli_free(&c);
        return brc;
    }
    const kvp_gpu_info *gpu = c.has_gpu_info ? &c.gpu_info : NULL;
    if (svg && ans->at.status == KVP_OK &&
        kvp__fit_svg(svg, c.model, gpu, &req, ans, &err) != KVP_OK) {
        free(ans);
        fit_cli_free(&c);
        return kvp_cli_report_error(&err, c.json);
    }

    if (c.json) {
        kvp_render_input in = {c.model, c.has_gpu_info ? c.gpu_info.name : NULL, NULL, NULL, 0, NULL, NULL};
        char *text = NULL;
        kvp_status rst = kvp_render_fit_json(&in, &req, ans, &text, &err);
        int prc = kvp_cli_print_rendered(rst, text, &err, true);
        if (prc >= 0) {
            free(ans);
            fit_cli_free(&c);
            return prc;
        }
    } else {
        kvp_report_text t = {0};
        kvp__fit_text(c.model, gpu, &req, ans, &t);
        kvp_cli_write_text(&t, stdout);
        kvp_report_text_free(&t);
    }
    int code = ans->found ? KVP_EXIT_OK : KVP_EXIT_NO;
    free(ans);
    fit_cli_free(&c);
    return code;
}
