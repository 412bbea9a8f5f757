/* cmd_local.c — `kvplan local`: the model-local KV caches a model declares,
 * summed at a max_num_seqs and split by what profiling already charged. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "render_internal.h" /* kvp__local_json_text: the local document */
#include "cli.h"
#include "command_help.h"
#include "commands.h"
#include "util.h"
#include "local_internal.h"
#include "text_internal.h"

static void usage(FILE *out) {
    fputs(kvp__command_help("local"), out);
}

/* Bad input as one stderr line, and with --json an error object on stdout. */
static int bad_input(bool json, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int bad_input(bool json, const char *key, const char *fmt, ...) {
    kvp_error err;
    kvp_error_clear(&err);
    err.code = KVP_INVALID_ARG;
    kvp__strlcpy(err.key, key, sizeof err.key);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err.message, sizeof err.message, fmt, ap);
    va_end(ap);
    return kvp_cli_report_error(&err, json);
}

static int list_models(void) {
    size_t n = kvp_local_model_count();
    for (size_t i = 0; i < n; i++) {
        char name[160];
        if (kvp_local_model_name(i, name, sizeof name)) printf("%s\n", name);
    }
    return KVP_EXIT_OK;
}

int kvp_cmd_local(int argc, char **argv) {
    static const char *const known[] = {"--max-num-seqs", "--async-chunk", "--streaming",
                                        "--enforce-eager", "--json", "--decl", "--list", "--help",
                                        NULL};
    const char *model = NULL, *decl_file = NULL, *seqs_text = NULL;
    bool json = false, list = false, bad = false;
    kvp_local_deployment dep;
    memset(&dep, 0, sizeof dep);
    /* Known before any error, so every error honours it. */
    for (int i = 1; i < argc; i++)
        if (kvp_cli_flag(argv[i], "--json")) json = true;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        const char *arg = argv[i];
        if (kvp_cli_flag(arg, "--help") || kvp_cli_flag(arg, "-h")) {
            usage(stdout);
            return KVP_EXIT_OK;
        } else if (kvp_cli_flag(arg, "--json")) {
            json = true;
        } else if (kvp_cli_flag(arg, "--list")) {
            list = true;
        } else if (kvp_cli_flag(arg, "--async-chunk")) {
            dep.async_chunk = true;
        } else if (kvp_cli_flag(arg, "--streaming")) {
            dep.streaming = true;
        } else if (kvp_cli_flag(arg, "--enforce-eager")) {
            dep.enforce_eager = true;
        } else if (kvp_cli_opt(argc, argv, &i, "--max-num-seqs", &v, &bad)) {
            if (bad) return KVP_EXIT_BAD_INPUT;
            seqs_text = v;
        } else if (kvp_cli_opt(argc, argv, &i, "--decl", &v, &bad)) {
            if (bad) return KVP_EXIT_BAD_INPUT;
            decl_file = v;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return kvp_cli_unknown_option(arg, known);
        } else if (!model) {
            model = arg;
        } else {
            return bad_input(json, "MODEL", "local: one MODEL expected, found '%s' after '%s'",
                             arg, model);
        }
    }
    if (list) return list_models();
    if (!model && !decl_file) {
        return bad_input(json, "MODEL",
                         "local: MODEL (or --decl FILE) is required; see 'kvplan local --help'");
    }
    if (!seqs_text)
        return bad_input(json, "--max-num-seqs",
                         "local: --max-num-seqs N is required (rows of MAX_NUM_SEQS caches)");
    uint64_t seqs = 0;
    kvp_error perr;
    if (kvp_parse_count(seqs_text, &seqs, &perr) != KVP_OK)
        return bad_input(json, "--max-num-seqs", "--max-num-seqs: %s", perr.message);
    if (seqs < 1 || seqs > UINT32_MAX)
        return bad_input(json, "--max-num-seqs",
                         "--max-num-seqs: %s is out of range, expected 1 to %u", seqs_text,
                         UINT32_MAX);
    dep.max_num_seqs = seqs;

    kvp_error err;
    kvp_error_clear(&err);
    kvp_local_report *report = NULL; /* the local room's (collect.c) */
    if (kvp__local_report_of(model, decl_file, &dep, &report, &err) != KVP_OK)
        return kvp_cli_report_error(&err, json);
    for (size_t i = 0; i < kvp_local_report_failure_count(report); i++) {
        const kvp_local_failure *f = kvp_local_report_failure(report, i);
        kvp_cli_warn("declarer %s failed and was skipped: %s", f->owner[0] ? f->owner : "(root)",
                     f->message);
    }
    if (json) {
        /* The library's document (src/report/json_local.c), kvp_json_call's too. */
        char *text = NULL;
        if (kvp__local_json_text(report, &text, &err) != KVP_OK) {
            kvp_local_report_free(report);
            return kvp_cli_report_error(&err, json);
        }
        puts(text);
        free(text);
    } else {
        kvp_report_text t = {0};
        kvp__local_text(report, &t);
        kvp_cli_write_text(&t, stdout);
        kvp_report_text_free(&t);
    }
    kvp_local_report_free(report);
    return KVP_EXIT_OK;
}
