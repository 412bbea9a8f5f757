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
#include "cli_options.h"
#include "command_help.h"
#include "commands.h"
#include "util.h"
#include "local_internal.h"
#include "text_internal.h"

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
    const char *model = NULL, *decl_file = NULL, *seqs_text = NULL;
    bool json = false, list = false;
    kvp_local_deployment dep;
    memset(&dep, 0, sizeof dep);
    const kvp__argv_own own[] = {{"--max-num-seqs", KVP__OWN_TEXT, &seqs_text, 0, 0, NULL},
                                 {"--async-chunk", KVP__OWN_FLAG, &dep.async_chunk, 0, 0, NULL},
                                 {"--streaming", KVP__OWN_FLAG, &dep.streaming, 0, 0, NULL},
                                 {"--enforce-eager", KVP__OWN_FLAG, &dep.enforce_eager, 0, 0, NULL},
                                 {"--json", KVP__OWN_FLAG, &json, 0, 0, NULL},
                                 {"--decl", KVP__OWN_TEXT, &decl_file, 0, 0, NULL},
                                 {"--list", KVP__OWN_FLAG, &list, 0, 0, NULL},
                                 {"--help", KVP__OWN_HELP, NULL, 0, 0, NULL}, {NULL, 0, NULL, 0, 0, NULL}};
    const kvp_cli_argv c = {.argv = {.own = own, .positional = &model, .second_after = true,
                                     .second = "local: one MODEL expected, found ",
                                     .second_key = "MODEL"},
                            .help = "local", .json = &json};
    int rc = kvp_cli_read_argv(&c, NULL, argc, argv);
    if (rc >= 0) return rc;
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
