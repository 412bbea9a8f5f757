/* cmd_why.c — `kvplan why LOGFILE|-` (docs/why.md): the log streamed through
 * the log reader (src/logs/), the reproduction and its document from the
 * library (bind: kvp__why_json_text), printed here as a table or as JSON;
 * --record appends the case in the reference-case format, redacted. */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "bind_internal.h"
#include "cli.h"
#include "command_help.h"
#include "cli_options.h"
#include "kvplan/options.h"
#include "log_reader.h"
#include "text_internal.h"
#include "util.h"

static void usage(FILE *out) {
    fputs(kvp__command_help("why"), out);
}

/* The log, streamed in 64 KiB reads: the reader keeps one line at most. */
static int read_log(const char *path, kvp_log *log) {
    FILE *f = stdin;
    if (strcmp(path, "-") != 0) {
        kvp_error err;
        uint64_t size;
        if (kvp__open_regular(path, UINT64_MAX, &f, &size, &err) != KVP_OK)
            return kvp_cli_report_error(&err, false);
    }
    static char chunk[1 << 16];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) kvp__log_feed(log, chunk, n);
    bool bad = ferror(f) != 0;
    int e = errno;
    if (f != stdin) fclose(f);
    if (bad) return kvp_cli_fail("%s: read error: %s", path, strerror(e));
    kvp__log_finish(log);
    return -1;
}

/* --record: one reference case appended (bind: kvp__why_record_text). */
static int record(const char *path, const kvp__why_request *w, const char *doc_text) {
    char *line = NULL;
    kvp_error err;
    if (kvp__why_record_text(w, doc_text, &line, &err) != KVP_OK) return kvp_cli_report_error(&err, false);
    FILE *f = fopen(path, "a");
    if (!f) {
        free(line);
        return kvp_cli_fail("--record %s: %s", path, strerror(errno));
    }
    bool ok = fputs(line, f) >= 0 && fputc('\n', f) != EOF;
    ok = fclose(f) == 0 && ok;
    free(line);
    if (!ok) return kvp_cli_fail("--record %s: write error", path);
    return -1;
}

/* A deployment flag, as the request's key (bind: kvp__why_option). */
static int why_option(void *opts, int argc, char **argv, int *i) {
    char name[64];
    bool missing = false;
    if (!kvp__why_option(opts, argc, argv, i, name, &missing)) return 0;
    return missing ? kvp_cli_fail("%s needs a value", name) : -1;
}

int kvp_cmd_why(int argc, char **argv) {
    const char *path = NULL, *rec = NULL;
    bool json = false;
    kvp__why_request w;
    memset(&w, 0, sizeof w);
    json_t *opts = json_object();
    kvp_log *log = NULL;
    char *text = NULL;
    kvp__argv_count tc = {0, false}, tx = {0, false};
    const kvp__argv_own own[] = {{"--model", KVP__OWN_TEXT, &w.model, 0, 0, NULL},
                                 {"--target-concurrency", KVP__OWN_COUNT, &tc, 0, 0, NULL},
                                 {"--target-context", KVP__OWN_COUNT, &tx, 0, 0, NULL},
                                 {"--record", KVP__OWN_TEXT, &rec, 0, 0, NULL},
                                 {"--json", KVP__OWN_FLAG, &json, 0, 0, NULL},
                                 {"--help", KVP__OWN_HELP, NULL, 0, 0, NULL},
                                 {NULL, 0, NULL, 0, 0, NULL}};
    const kvp_cli_argv c = {.argv = {.own = own, .positional = &path,
                                     .second = "why takes one LOGFILE, got a second: "},
                            .help = "why", .row = why_option, .row_ctx = opts};
    int rc = kvp_cli_read_argv(&c, NULL, argc, argv);
    if (rc >= 0) goto done;
    rc = KVP_EXIT_BAD_INPUT;
    bool tc_given = tc.given, tx_given = tx.given;
    w.target_concurrency = tc.value;
    w.target_context = tx.value;
    if (!path) {
        usage(stderr);
        goto done;
    }
    /* A target of 0 asks nothing (a request's is at least 1, why_call.c); the two
     * targets are two questions and only the first would be answered (issue 29). */
    if ((tc_given && w.target_concurrency == 0) || (tx_given && w.target_context == 0)) {
        const char *o = tc_given && w.target_concurrency == 0 ? "--target-concurrency"
                                                              : "--target-context";
        kvp_error e;
        kvp_error_clear(&e);
        e.code = KVP_INVALID_ARG;
        kvp__strlcpy(e.key, o, sizeof e.key);
        snprintf(e.message, sizeof e.message, "%s: 0 is no target (expected 1 or more %s)", o,
                 strcmp(o, "--target-context") ? "concurrent sequences" : "tokens");
        rc = kvp_cli_report_error(&e, json);
        goto done;
    }
    if (w.target_concurrency && w.target_context) {
        rc = kvp_cli_contradiction("--target-concurrency", "--target-context",
                                   "why answers one target: the length at a concurrency, or the "
                                   "concurrency at a length; give one",
                                   json);
        goto done;
    }
    /* --record appends: over the log read (or the --model file) it would write
     * into its own input (issue 29: two files that are one). */
    if (rec && ((rc = kvp_cli_one_file_as(json, "--record", rec, "the LOGFILE", path)) ||
                (rc = kvp_cli_output_over_inputs(json, "--record", rec, w.model)))) {
        rc = KVP_EXIT_BAD_INPUT;
        goto done;
    }
    rc = KVP_EXIT_BAD_INPUT;
    log = malloc(sizeof *log);
    if (!log) {
        kvp_cli_fail("out of memory");
        goto done;
    }
    kvp__log_init(log);
    if ((rc = read_log(path, log)) != -1) goto done;
    w.log = log;
    w.options = opts;
    kvp__json_call_opts o = {false};
    kvp_error err;
    int verdict = 2;
    if (kvp__why_json_text(&w, &o, &text, &verdict, &err) != KVP_OK) {
        rc = kvp_cli_report_error(&err, json);
        if (rc == KVP_EXIT_NO) rc = KVP_EXIT_BAD_INPUT; /* a log that cannot be read is bad input */
        goto done;
    }
    if (rec && (rc = record(rec, &w, text)) != -1) goto done;
    if (json) {
        puts(text);
    } else {
        kvp_report_text t = {0};
        kvp__why_text(text, KVP_LOG_LINE_MAX, &t);
        kvp_cli_write_text(&t, stdout);
        kvp_report_text_free(&t);
    }
    rc = verdict;
done:
    free(text);
    free(log);
    json_decref(opts);
    return rc;
}
