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
#include "startup_cli.h"
#include "text_internal.h"
#include "check_run.h"
#include "util.h"

/* ------------------------------------------------------------------ output */

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
    kvp_report_text t;
    kvp_report_text_init(&t, NULL);
    kvp__check_text(rep, ss, model_name, kvp_cli_flag_spelling, NULL, &t);
    kvp_cli_write_text(&t, stdout);
    kvp_report_text_free(&t);
}

/* ------------------------------------------------------------------- gates */

/* Start-up lines the library rendered (text_internal.h), said on stderr so the
 * plan on stdout stays the contract. */
static void say(kvp_report_text *t) {
    kvp_cli_write_text(t, stderr);
    kvp_report_text_free(t);
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
 * (the report room's, kvp__refusal_json_text). */
static int print_refusal_json(const kvp_deployment *dep, const kvp_deploy_result *res,
                              const kvp_startup_report *rep, const char *model_name) {
    char *text = NULL;
    kvp_error err;
    kvp_error_clear(&err);
    int rc = KVP_EXIT_NO;
    if (kvp__refusal_json_text(dep, res, rep, model_name, kvp_cli_flag_spelling, NULL, &text,
                               &err) == KVP_OK)
        puts(text);
    else
        rc = kvp_cli_report_error(&err, true);
    free(text);
    return rc;
}

int kvp_cli_startup_inputs(const kvp_model *model, const kvp_startup_settings *ss, bool json) {
    kvp_error err;
    kvp_error_clear(&err);
    return kvp__startup_inputs(model, ss, &err) == KVP_OK ? -1 : kvp_cli_report_error(&err, json);
}

int kvp_cli_startup_result(const kvp_deployment *dep, const kvp_deploy_result *res,
                           const kvp_startup_report *report, const char *model_name, bool json,
                           unsigned flags) {
    const kvp_deploy_startup *st = &res->startup;
    if (!st->evaluated) return KVP_EXIT_OK; /* the settings were refused before the rules ran */
    if (!st->starts && (!(flags & KVP_CLI_STARTUP_VERDICT) || rule_is_verdict(res))) {
        if (json) return print_refusal_json(dep, res, report, model_name);
        kvp_report_text t = {0};
        kvp__startup_refusal_text(res->point.engine, st, kvp_cli_flag_spelling, NULL, &t);
        say(&t);
        return KVP_EXIT_NO;
    }
    if (!st->starts) return KVP_EXIT_OK; /* the plan's own failure is the message */
    kvp_report_text t = {0};
    kvp__startup_adjust_text(res->point.engine, st, (flags & KVP_CLI_STARTUP_VERDICT) != 0, &t);
    say(&t);
    return KVP_EXIT_OK;
}
