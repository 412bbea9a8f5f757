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
#include "cli_options.h"
#include "kvplan/options.h"
#include "log_reader.h"
#include "util.h"

static void usage(FILE *out) {
    fputs("usage: kvplan why LOGFILE|- [--model MODEL] [--target-concurrency N]\n"
          "                  [--target-context L] [--record FILE] [--json] [OPTIONS]\n"
          "  reads an engine's start-up log (vLLM, SGLang, TensorRT-LLM, llama.cpp,\n"
          "  llama-server, llama-cpp-python, Ollama; '-' reads stdin), plans the same\n"
          "  deployment from the memory the log printed and from config + GPU + flags\n"
          "  alone, and sets every figure the log printed beside both\n"
          "  --model MODEL            the model's config when the log's model is not found\n"
          "                           (a config.json, a folder, a catalogue name)\n"
          "  --target-concurrency N   the longest context that runs N sequences\n"
          "  --target-context L       how many sequences of L tokens fit (else the KV dtype)\n"
          "  --record FILE            append the case in the reference-case format\n"
          "                           (tests/reference/README.md), paths, hosts and keys redacted\n"
          "  --json                   machine-readable output (docs/schema/why.schema.json)\n"
          "  OPTIONS                  any option of `kvplan plan` (--gpu, --tp, ...): wins\n"
          "                           over what the log says\n"
          "exit status: 0 every figure reproduced from the logged memory, 1 some differ or\n"
          "could not be reproduced (listed), 2 bad input (no engine, two engines\n"
          "interleaved, contradicting figures, model not found)\n",
          out);
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

static const char *num_text(const json_t *v, char *buf, size_t n) {
    if (json_is_integer(v)) return kvp_cli_fmt_count((uint64_t)json_integer_value(v), buf, n);
    if (json_is_real(v)) {
        snprintf(buf, n, "%g", json_real_value(v));
        return buf;
    }
    if (json_is_array(v) && json_array_size(v) == 2) {
        char a[32], b[32];
        snprintf(buf, n, "%s..%s", num_text(json_array_get(v, 0), a, sizeof a),
                 num_text(json_array_get(v, 1), b, sizeof b));
        return buf;
    }
    return "-";
}

static void print_table(const json_t *doc) {
    const char *ver = json_string_value(json_object_get(doc, "engine_version"));
    const json_t *model = json_object_get(doc, "model");
    printf("engine   %s", json_string_value(json_object_get(doc, "engine_name")));
    if (ver)
        printf(" %s (from the %s)", ver,
               json_string_value(json_object_get(doc, "engine_version_source")));
    printf("\n");
    const char *logged = json_string_value(json_object_get(model, "logged"));
    printf("model    %s -> %s (%s)\n", logged ? logged : "(not in the log)",
           json_string_value(json_object_get(model, "config")),
           json_string_value(json_object_get(model, "found_by")));
    const json_t *gm = json_object_get(doc, "given_memory");
    printf("given    %s\n", json_string_value(json_object_get(gm, "from")));
    const char *gerr = json_string_value(json_object_get(gm, "error"));
    if (gerr) printf("         not planned: %s\n", gerr);
    const char *cerr = json_string_value(json_object_get(json_object_get(doc, "from_config"), "error"));
    if (cerr) printf("config   not planned: %s\n", cerr);
    printf("\n%-26s %18s %20s %14s %11s  %s\n", "figure", "logged", "from logged memory",
           "from config", "config-log", "");
    size_t i;
    const json_t *f;
    json_array_foreach(json_object_get(doc, "figures"), i, f) {
        char a[48], b[64], c[48], d[32], logged_s[64], num[40];
        const char *role = json_string_value(json_object_get(f, "role"));
        const json_t *rep = json_object_get(f, "reproduced");
        const char *mark = !strcmp(role, "input")  ? "input (given)"
                           : !strcmp(role, "info") ? "printed only"
                           : json_is_true(rep)     ? "reproduced"
                           : json_is_null(json_object_get(f, "given_memory")) ? "NOT REPRODUCED"
                                                                              : "DIFFERS";
        const json_t *diff = json_object_get(f, "difference");
        if (json_is_number(diff)) snprintf(d, sizeof d, "%+.6g", json_number_value(diff));
        else snprintf(d, sizeof d, "-");
        const char *unit = json_string_value(json_object_get(f, "unit"));
        const json_t *lv = json_object_get(f, "logged");
        const char *printed = json_is_integer(lv) ? num_text(lv, num, sizeof num)
                                                  : json_string_value(json_object_get(f, "printed"));
        if (!strcmp(unit, "x")) snprintf(logged_s, sizeof logged_s, "%sx", printed);
        else if (!strcmp(unit, "fraction")) snprintf(logged_s, sizeof logged_s, "%s", printed);
        else snprintf(logged_s, sizeof logged_s, "%s %s", printed, unit);
        printf("%-26s %18s %20s %14s %11s  %s\n", json_string_value(json_object_get(f, "name")),
               logged_s, num_text(json_object_get(f, "given_memory"), b, sizeof b),
               num_text(json_object_get(f, "from_config"), c, sizeof c), d, mark);
        printf("    line %s: %.100s\n", num_text(json_object_get(f, "line_number"), a, sizeof a),
               json_string_value(json_object_get(f, "line")));
        printf("    rule: %s\n", json_string_value(json_object_get(f, "basis")));
    }
    const json_t *ans = json_object_get(doc, "answer");
    printf("\nanswer");
    const json_t *tc = json_object_get(ans, "target_concurrency"), *tx = json_object_get(ans, "target_context");
    if (tc) printf(" (target: %lld sequences)", (long long)json_integer_value(tc));
    if (tx) printf(" (target: %lld tokens of context)", (long long)json_integer_value(tx));
    printf(" from the logged memory:\n");
    json_array_foreach(json_object_get(ans, "changes"), i, f) {
        const char *set = json_string_value(json_object_get(f, "setting"));
        const char *lim = json_string_value(json_object_get(f, "limited_by"));
        if (!lim) lim = "-";
        const json_t *v = json_object_get(f, "value");
        char b[48];
        if (json_is_true(json_object_get(f, "found")))
            printf("  %s %s (limited by %.100s%s)\n", set,
                   json_is_string(v) ? json_string_value(v) : num_text(v, b, sizeof b), lim,
                   strlen(lim) > 100 ? "..." : "");
        else
            printf("  %s: no value reaches it (%.100s%s)\n", set, lim, strlen(lim) > 100 ? "..." : "");
    }
    const json_t *un = json_object_get(doc, "unread_lines");
    const json_t *read = json_object_get(doc, "read");
    if (json_array_size(un)) {
        printf("\nlines that look like figures but were not read (%lld):\n",
               (long long)json_integer_value(json_object_get(read, "unread_lines")));
        json_array_foreach(un, i, f)
            printf("  line %lld: %.120s\n", (long long)json_integer_value(json_object_get(f, "line_number")),
                   json_string_value(json_object_get(f, "line")));
    }
    long long cut = json_integer_value(json_object_get(read, "cut_lines"));
    if (cut) printf("\n%lld lines over %d bytes were cut\n", cut, KVP_LOG_LINE_MAX);
    const json_t *unrep = json_object_get(doc, "unreproduced");
    if (json_array_size(unrep)) {
        printf("\nnot reproduced from the logged memory:");
        json_array_foreach(unrep, i, f) printf(" %s", json_string_value(f));
        printf("\n");
    } else if (json_integer_value(json_object_get(doc, "outputs")) == 0) {
        printf("\nthe log prints no capacity figure to reproduce (tokens, blocks, pool sizes)\n");
    } else {
        printf("\nevery figure reproduced from the logged memory (%lld)\n",
               (long long)json_integer_value(json_object_get(doc, "reproduced")));
    }
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

int kvp_cmd_why(int argc, char **argv) {
    const char *path = NULL, *rec = NULL;
    bool json = false, tc_given = false, tx_given = false;
    kvp__why_request w;
    memset(&w, 0, sizeof w);
    json_t *opts = json_object();
    int rc = KVP_EXIT_BAD_INPUT;
    kvp_log *log = NULL;
    char *text = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        bool bad = false;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            rc = KVP_EXIT_OK;
            goto done;
        } else if (!strcmp(a, "--json")) {
            json = true;
        } else if (kvp_cli_opt(argc, argv, &i, "--model", &v, &bad)) {
            w.model = v;
        } else if (kvp_cli_opt(argc, argv, &i, "--record", &v, &bad)) {
            rec = v;
        } else if (kvp_cli_opt(argc, argv, &i, "--target-concurrency", &v, &bad)) {
            if (!kvp_cli_u64_count("--target-concurrency", v, &w.target_concurrency)) goto done;
            tc_given = true;
        } else if (kvp_cli_opt(argc, argv, &i, "--target-context", &v, &bad)) {
            if (!kvp_cli_u64_count("--target-context", v, &w.target_context)) goto done;
            tx_given = true;
        } else if (a[0] == '-' && a[1]) {
            char name[64];
            const char *eq = strchr(a, '=');
            size_t n = eq ? (size_t)(eq - a) : strlen(a);
            if (n >= sizeof name) n = sizeof name - 1;
            memcpy(name, a, n);
            name[n] = '\0';
            const kvp_option *row = kvp_option_lookup(name, NULL);
            if (!row || !(row->commands & KVP_COMMAND_PLAN)) {
                static const char *const known[] = {"--model", "--target-concurrency", "--target-context",
                                                    "--record", "--json", "--help", NULL};
                rc = kvp_cli_unknown_option(a, known);
                goto done;
            }
            const char *val = eq ? eq + 1 : NULL;
            if (!val && row->type != KVP_OPTION_FLAG) {
                if (i + 1 >= argc) {
                    kvp_cli_fail("%s needs a value", name);
                    goto done;
                }
                val = argv[++i];
            }
            char key[64];
            kvp__strlcpy(key, row->name + 2, sizeof key);
            for (char *p = key; *p; p++)
                if (*p == '-') *p = '_';
            json_object_set_new(opts, key, json_string(val ? val : "true"));
        } else if (path) {
            kvp_cli_fail("why takes one LOGFILE, got a second: '%s'", a);
            goto done;
        } else {
            path = a;
        }
        if (bad) goto done;
    }
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
        json_t *doc = json_loads(text, 0, NULL);
        if (doc) print_table(doc);
        json_decref(doc);
    }
    rc = verdict;
done:
    free(text);
    free(log);
    json_decref(opts);
    return rc;
}
