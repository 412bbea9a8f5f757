/* startup_cli.c — start-up flags and the start-up gate (startup_cli.h): the
 * only place the CLI turns kvplan/startup.h reports into lines and exit codes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_internal.h" /* kvp__check_json_text: the check document */
#include "cli.h"
#include "cli_options.h"
#include "engine_ops.h"
#include "kvplan/render.h"
#include "plan_policy.h"
#include "startup_cli.h"
#include "util.h"

/* ------------------------------------------------------------------ output */

static void summary_line(FILE *f, const kvp_startup_report *rep) {
    fprintf(f, "%s: %u pass, %u refuse, %u adjust, %u warn, %u unknown",
            rep->starts ? (rep->counts[KVP_CHECK_UNKNOWN] ? "starts (unless an unknown refuses)" : "starts")
                        : "refuses",
            rep->counts[KVP_CHECK_PASS], rep->counts[KVP_CHECK_REFUSE],
            rep->counts[KVP_CHECK_ADJUST], rep->counts[KVP_CHECK_WARN],
            rep->counts[KVP_CHECK_UNKNOWN]);
    if (rep->undecided_count) fprintf(f, "; %u not decidable offline", rep->undecided_count);
    if (rep->disabled_count) fprintf(f, "; %u switched off", rep->disabled_count);
    if (rep->first_refusal >= 0) fprintf(f, " (first refusal: %s)", rep->checks[rep->first_refusal].rule);
    fputc('\n', f);
}

void kvp_cli_startup_print(const kvp_startup_report *rep, const kvp_startup_settings *ss,
                           const char *model_name, bool json) {
    if (json) {
        /* The library's document (src/report/json_check.c), kvp_json_call's too;
         * the fixes name the flags as the user typed them. */
        char *s = NULL;
        kvp_error err;
        kvp_error_clear(&err);
        if (kvp__check_json_text(rep, ss, model_name, kvp_cli_flag_spelling, NULL, &s, &err) == KVP_OK)
            puts(s);
        else
            kvp_cli_report_error(&err, true);
        free(s);
        return;
    }
    char cc[16];
    kvp_gpu_cc_string(ss->gpu.compute_capability, cc, sizeof cc);
    printf("%s on %s%s%s", model_name ? model_name : "model", kvp__engine_title(rep->engine),
           rep->engine_version[0] ? " " : "", rep->engine_version);
    if (ss->gpu_known)
        printf(", %s (%s%s%s)", ss->gpu.name,
               ss->gpu.gfx_target[0] ? ss->gpu.gfx_target : cc[0] ? "cc " : "capability unknown",
               ss->gpu.gfx_target[0] ? "" : cc, "");
    else
        printf(", GPU not named (capability unknown)");
    uint32_t tp = ss->policy.tp ? ss->policy.tp : 1, pp = ss->policy.pp ? ss->policy.pp : 1;
    printf(", TP %u, PP %u", tp, pp);
    if (ss->gpu_count) printf(", %u GPU%s visible", ss->gpu_count, ss->gpu_count == 1 ? "" : "s");
    printf("\n\n");
    for (uint32_t i = 0; i < rep->count; i++) {
        const kvp_check_row *c = &rep->checks[i];
        printf("%-8s %-7s %s%s\n", c->rule, kvp_check_status_name(c->status), c->message,
               c->is_default ? " [default]" : "");
        char fix[sizeof c->fix];
        kvp_cli_user_flags(c->fix, fix, sizeof fix);
        if (fix[0] && c->status != KVP_CHECK_PASS) printf("%17sfix: %s\n", "", fix);
    }
    if (rep->undecided_count) {
        printf("\nnot decidable offline:\n");
        for (uint32_t i = 0; i < rep->undecided_count; i++)
            printf("%-8s %s\n", rep->undecided[i].rule, rep->undecided[i].reason);
    }
    /* A refused deployment does not run: no "runs with". */
    if (rep->starts)
        printf("\nruns with: dtype %s%s, max_model_len %llu%s\n", kvp_dtype_name(rep->run_dtype),
               rep->run_dtype_adjusted ? " (adjusted)" : "", (unsigned long long)rep->max_model_len,
               rep->max_model_len_adjusted ? " (adjusted)" : "");
    summary_line(stdout, rep);
}

/* ------------------------------------------------------------------- gates */

/* The refusals of a deployment's start-up summary on stderr, with their fixes. */
static void print_refusal(kvp_engine engine, const kvp_deploy_startup *st) {
    for (uint32_t i = 0; i < st->count; i++) {
        const kvp_check_row *c = &st->checks[i];
        if (c->status != KVP_CHECK_REFUSE) continue;
        fprintf(stderr, "kvplan: %s would not start: %s: %s\n", kvp__engine_title(engine), c->rule,
                c->message);
        char fix[sizeof c->fix];
        kvp_cli_user_flags(c->fix, fix, sizeof fix);
        if (fix[0]) fprintf(stderr, "kvplan:   fix: %s\n", fix);
    }
    fprintf(stderr, "kvplan: 'kvplan check' lists every start-up rule\n");
}

/* What the engine changes itself, and its warnings, said on stderr so the plan
 * on stdout stays the contract. */
static void print_adjustments(kvp_engine engine, const kvp_deploy_startup *st, bool skip_memory) {
    for (uint32_t i = 0; i < st->count; i++) {
        const kvp_check_row *c = &st->checks[i];
        if (skip_memory && strstr(c->rule, "-MEM-")) continue;
        if (c->status == KVP_CHECK_ADJUST)
            fprintf(stderr, "kvplan: %s adjusts at start-up: %s: %s (the plan uses the adjusted "
                            "value)\n", kvp__engine_title(engine), c->rule, c->message);
        else if (c->status == KVP_CHECK_WARN)
            fprintf(stderr, "kvplan: %s warns at start-up: %s: %s\n", kvp__engine_title(engine),
                    c->rule, c->message);
    }
}

/* deploy.c writes "RULE: message" into the result's message when the rule is
 * the verdict (it refused before the plan, or the plan itself succeeded). */
static bool rule_is_verdict(const kvp_deploy_result *res) {
    const kvp_deploy_startup *st = &res->startup;
    if (res->status == KVP_OK || st->first_refusal < 0) return false;
    const char *id = st->checks[st->first_refusal].rule;
    size_t n = strlen(id);
    return strncmp(res->message, id, n) == 0 && res->message[n] == ':';
}

/* With --json a refusal is the whole check report on stdout, as `kvplan check
 * --json` prints it, with the figures the engine computed before it refused
 * (report room, kvp__check_refusal_json_text). */
/* The check report of the plan already made (kvp_deploy_plan_report), with the
 * settings as the engine ran them. */
static int print_refusal_json(const kvp_deployment *dep, const kvp_deploy_result *res,
                              const kvp_startup_report *rep, const char *model_name) {
    kvp_startup_settings *ss = malloc(sizeof *ss);
    int rc = KVP_EXIT_NO;
    if (!ss) {
        rc = kvp_cli_fail("out of memory");
    } else {
        *ss = dep->startup;
        ss->policy = dep->policy;
        ss->policy.engine = res->point.engine;
        ss->policy.tp = res->point.tp;
        ss->policy.pp = res->point.pp;
        ss->policy.total_memory_bytes = res->total_bytes;
        kvp_render_input in = {dep->model, dep->startup.gpu_known ? dep->startup.gpu.name : NULL,
                               NULL, NULL, 0, NULL, NULL};
        char *text = NULL;
        kvp_error err;
        kvp_error_clear(&err);
        if (kvp__check_refusal_json_text(rep, ss, model_name, kvp_cli_flag_spelling, NULL, &in, res,
                                         &text, &err) == KVP_OK)
            puts(text);
        else
            rc = kvp_cli_report_error(&err, true);
        free(text);
    }
    free(ss);
    return rc;
}

int kvp_cli_startup_inputs(const kvp_model *model, const kvp_startup_settings *ss, bool json) {
    /* A format kvplan cannot cost is bad input, before the engine's own rule. */
    kvp_weight_format fmt;
    kvp_error err;
    kvp_error_clear(&err);
    if (ss->quantization[0] &&
        kvp_weight_format_for_model(model, ss->quantization, &fmt, &err) != KVP_OK)
        return kvp_cli_report_error(&err, json);
    return -1;
}

int kvp_cli_startup_result(const kvp_deployment *dep, const kvp_deploy_result *res,
                           const kvp_startup_report *report, const char *model_name, bool json,
                           unsigned flags) {
    const kvp_deploy_startup *st = &res->startup;
    if (!st->evaluated) return KVP_EXIT_OK; /* the settings were refused before the rules ran */
    if (!st->starts && (!(flags & KVP_CLI_STARTUP_VERDICT) || rule_is_verdict(res))) {
        if (json) return print_refusal_json(dep, res, report, model_name);
        print_refusal(res->point.engine, st);
        return KVP_EXIT_NO;
    }
    if (!st->starts) return KVP_EXIT_OK; /* the plan's own failure is the message */
    print_adjustments(res->point.engine, st, (flags & KVP_CLI_STARTUP_VERDICT) != 0);
    return KVP_EXIT_OK;
}
