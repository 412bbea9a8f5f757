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
#include "commands.h"
#include "util.h"

static void usage(FILE *out) {
    fputs("usage: kvplan local MODEL --max-num-seqs N [--async-chunk] [--streaming]\n"
          "                    [--enforce-eager] [--json] [--decl FILE]\n"
          "       kvplan local --list\n\n"
          "Model-local KV caches (kept in the model's own transformers cache objects, outside\n"
          "the engine's paged KV manager): bytes per row, rows with their driver and reason,\n"
          "totals at max_num_seqs, and what profiling already charged. Reported, never\n"
          "subtracted from the KV budget.\n\n"
          "  MODEL              qwen3-tts, mimo-audio, minicpm-o, ming-flash-omni (or an alias)\n"
          "  --max-num-seqs N   in-flight sequences (rows of MAX_NUM_SEQS caches)\n"
          "  --async-chunk      async-chunk decoding (Qwen3-TTS codec decoder holds KV)\n"
          "  --streaming        streaming sessions (MiniCPM-o's Whisper encoder cache)\n"
          "  --enforce-eager    no CUDA-graph capture where the model honours it\n"
          "  --decl FILE        read the declarations from FILE instead of the embedded ones\n"
          "  --list             list the models with embedded declarations\n"
          "  --json             machine-readable output\n",
          out);
}

static const char *on_off(bool b) { return b ? "on" : "off"; }

static const char *fmt_b(uint64_t v, char *buf, size_t size) {
    char c[40], h[40];
    kvp_cli_fmt_count(v, c, sizeof c);
    kvp_cli_fmt_bytes(v, h, sizeof h);
    if (v < 1024)
        snprintf(buf, size, "%s B", c);
    else
        snprintf(buf, size, "%s B (%s)", c, h);
    return buf;
}

static void print_text(const kvp_local_report *r) {
    const kvp_local_deployment *dep = kvp_local_report_deployment(r);
    const kvp_local_totals *t = kvp_local_report_totals(r);
    char a[64], b[64], c[64];
    printf("model-local KV caches of %s (max_num_seqs %s; async_chunk %s, streaming %s, "
           "enforce_eager %s)\n\n",
           kvp_local_report_model(r), kvp_cli_fmt_count(dep->max_num_seqs, a, sizeof a),
           on_off(dep->async_chunk), on_off(dep->streaming), on_off(dep->enforce_eager));
    size_t n = kvp_local_report_entry_count(r);
    if (n) {
        printf("%-30s %12s %8s  %-12s %12s  %s\n", "cache", "per row", "rows", "driver", "total",
               "profiling");
        for (size_t i = 0; i < n; i++) {
            const kvp_local_entry *e = kvp_local_report_entry(r, i);
            printf("%-30s %12s %8s  %-12s %12s  %s\n", e->name,
                   kvp_cli_fmt_bytes(e->bytes_per_row, a, sizeof a),
                   kvp_cli_fmt_count(e->rows, b, sizeof b), kvp_local_row_driver_name(e->row_driver),
                   kvp_cli_fmt_bytes(e->total_bytes, c, sizeof c),
                   e->charged ? "already charged" : "not charged");
        }
    } else {
        printf("no model-local KV caches on this path\n");
    }
    for (size_t i = 0; i < n; i++) {
        const kvp_local_entry *e = kvp_local_report_entry(r, i);
        char big[96];
        printf("\n%s: %s, scope %s, owner %s%s\n", e->name, kvp_local_cache_kind_name(e->kind),
               kvp_local_scope_name(e->scope), e->owner[0] ? e->owner : "(root)",
               e->via_hop ? " (one explicit hop)" : "");
        if (e->condition[0]) printf("  when       %s\n", e->condition);
        printf("  positions  %llu: %s (%s)\n", (unsigned long long)e->positions, e->bound_formula,
               kvp_local_bound_name(e->bound));
        printf("  per row    %s = 2 x %llu layers x %llu kv_heads x %llu head_dim x %llu "
               "positions x %llu B\n",
               fmt_b(e->bytes_per_row, big, sizeof big), (unsigned long long)e->layers,
               (unsigned long long)e->kv_heads, (unsigned long long)e->head_dim,
               (unsigned long long)e->positions, (unsigned long long)e->element_bytes);
        printf("  geometry   %s\n", e->geometry_source);
        printf("  rows       %s (%s)%s%s\n", kvp_cli_fmt_count(e->rows, a, sizeof a),
               kvp_local_row_driver_name(e->row_driver), e->rows_reason[0] ? ": " : "",
               e->rows_reason);
        printf("  total      %s, %s\n", fmt_b(e->total_bytes, big, sizeof big),
               e->charged ? "already charged: graph-resident, allocated before profiling"
                          : "not charged: allocated after profiling");
        if (e->exclusive_group[0]) printf("  exclusive  %s\n", e->exclusive_group);
        if (e->allocation_note[0]) printf("  layout     %s\n", e->allocation_note);
        if (e->capacity_source[0]) printf("  capacity   %s\n", e->capacity_source);
    }
    size_t ni = kvp_local_report_inert_count(r);
    if (ni) printf("\ninert on this path (declare nothing):\n");
    for (size_t i = 0; i < ni; i++) {
        const kvp_local_inert *in = kvp_local_report_inert(r, i);
        printf("  %s (%s): %s\n", in->name, in->owner[0] ? in->owner : "(root)", in->reason);
    }
    size_t nf = kvp_local_report_failure_count(r);
    if (nf) printf("\nfailed declarers (reported and skipped):\n");
    for (size_t i = 0; i < nf; i++) {
        const kvp_local_failure *f = kvp_local_report_failure(r, i);
        printf("  %s%s%s: %s\n", f->owner[0] ? f->owner : "(root)", f->name[0] ? " / " : "",
               f->name, f->message);
    }
    /* Mutually exclusive groups: name their members once. */
    for (size_t i = 0; i < n; i++) {
        const kvp_local_entry *e = kvp_local_report_entry(r, i);
        if (!e->exclusive_group[0]) continue;
        bool first = true, other = false;
        for (size_t j = 0; j < n; j++) {
            const kvp_local_entry *o = kvp_local_report_entry(r, j);
            if (j == i || strcmp(o->exclusive_group, e->exclusive_group) != 0) continue;
            other = true;
            if (j < i) first = false;
        }
        if (!first || !other) continue;
        printf("\nmutually exclusive per call (%s):", e->exclusive_group);
        for (size_t j = 0; j < n; j++) {
            const kvp_local_entry *o = kvp_local_report_entry(r, j);
            if (strcmp(o->exclusive_group, e->exclusive_group) == 0) printf(" %s", o->name);
        }
        printf("\n  a call uses one of them: their sum is the process ceiling, not a per-request "
               "figure\n");
    }
    char big[96];
    uint64_t add_est, risk;
    kvp_local_budget_effect(r, false, &add_est, &risk);
    printf("\ntotals at max_num_seqs %s\n", kvp_cli_fmt_count(t->max_num_seqs, a, sizeof a));
    printf("  not charged (allocated after profiling)   %s\n",
           fmt_b(t->not_charged_bytes, big, sizeof big));
    printf("  already charged (graph-resident)          %s\n",
           fmt_b(t->charged_bytes, big, sizeof big));
    printf("  all model-local caches                    %s\n",
           fmt_b(t->total_bytes, big, sizeof big));
    printf("measured memory: report only; nothing is subtracted from the KV budget (the "
           "graph-resident part is already in the measured peak)\n");
    printf("estimated memory: add %s (graph-resident) to the predicted peak; %s (not charged) is "
           "a risk no per-stage number predicts\n",
           kvp_cli_fmt_bytes(add_est, a, sizeof a), kvp_cli_fmt_bytes(risk, b, sizeof b));
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
    kvp_local_decls *decls = NULL;
    kvp_status st = decl_file ? kvp_local_decls_load_file(decl_file, NULL, &decls, &err)
                              : kvp_local_decls_load_named(model, NULL, &decls, &err);
    if (st) return kvp_cli_report_error(&err, json);
    if (decl_file && model && kvp_local_decls_model(decls) &&
        strcasecmp(kvp_local_decls_model(decls), model) != 0) {
        int rc = bad_input(json, "--decl", "local: %s declares model '%s', not '%s'", decl_file,
                              kvp_local_decls_model(decls), model);
        kvp_local_decls_free(decls);
        return rc;
    }
    kvp_local_report *report = NULL;
    st = kvp_local_collect(decls, &dep, NULL, &report, &err);
    kvp_local_decls_free(decls);
    if (st) return kvp_cli_report_error(&err, json);
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
        print_text(report);
    }
    kvp_local_report_free(report);
    return KVP_EXIT_OK;
}
