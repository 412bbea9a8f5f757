/* cli_util.c — option parsing and one-line errors shared by the subcommands. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_options.h"
#include "kvplan/render.h"
#include "kvplan/report.h"
#include "argv_words.h"
#include "same_file.h"
#include "text_internal.h"
#include "util.h"

/* Spellings the argument normaliser replaced (--page-size read as --block-size):
 * a message about the canonical option names the one the user typed too. */
typedef struct spelling {
    const char *canon;
    char typed[64];
} spelling;
static spelling g_spelled[32];
static size_t g_spelled_count;

void kvp_cli_note_spelling(const char *canon, const char *typed, size_t typed_len) {
    if (!canon || g_spelled_count == sizeof g_spelled / sizeof g_spelled[0]) return;
    if (typed_len >= sizeof g_spelled[0].typed) typed_len = sizeof g_spelled[0].typed - 1;
    if (strlen(canon) == typed_len && !memcmp(canon, typed, typed_len)) return;
    spelling *sp = &g_spelled[g_spelled_count++];
    sp->canon = canon;
    memcpy(sp->typed, typed, typed_len);
    sp->typed[typed_len] = '\0';
}

/* "kvplan: MSG", with "--canon:" at the start of MSG shown as "--typed (read as --canon):".
 * MSG may quote arguments or file bytes: it is printed as one line with every terminal
 * control character escaped (kvp__escape_str, the library's own escaping). */
static void print_line(const char *raw) {
    char msg[4 * 2048];
    kvp__escape_str(raw, msg, sizeof msg);
    for (size_t i = g_spelled_count; i-- > 0;) {
        size_t n = strlen(g_spelled[i].canon);
        if (!strncmp(msg, g_spelled[i].canon, n) && (msg[n] == ':' || msg[n] == ' ')) {
            fprintf(stderr, "kvplan: %s (read as %s)%s\n", g_spelled[i].typed, g_spelled[i].canon,
                    msg + n);
            return;
        }
    }
    fprintf(stderr, "kvplan: %s\n", msg);
}

static const char *g_gpu_catalog;
const char *kvp_cli_gpu_catalog(void) { return g_gpu_catalog; }
void kvp_cli_set_gpu_catalog(const char *path) { g_gpu_catalog = path; }

int kvp_cli_fail(const char *fmt, ...) {
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    print_line(msg);
    return KVP_EXIT_BAD_INPUT;
}

void kvp_cli_warn(const char *fmt, ...) {
    char msg[2048], line[4 * 2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "kvplan: warning: %s\n", kvp__escape_str(msg, line, sizeof line));
}

int kvp_cli_print_rendered(kvp_status st, char *text, const kvp_error *err, bool json) {
    if (st != KVP_OK) return kvp_cli_report_error(err, json);
    fputs(text, stdout);
    fputc('\n', stdout);
    kvp_render_free(text);
    return -1;
}

int kvp_cli_report_error(const kvp_error *in, bool json) {
    /* Library errors name the settings field ("max_seq_len: ..."); the user typed a
     * flag: name that instead (the options room's reading, argv_words.c). */
    kvp_error mapped;
    kvp__error_as_typed(kvp_cli_table_active(), in, &mapped);
    const kvp_error *err = &mapped;
    /* Messages may carry bytes from hostile files (a record filled by hand, not by
     * kvp__fail): one line, control characters escaped. */
    char msg[4 * KVP_ERROR_MESSAGE_MAX];
    kvp__escape_str(err->message, msg, sizeof msg);
    if (json) {
        kvp_report_text t = {0};
        kvp__error_json_line(err, msg, &t);
        kvp_cli_write_text(&t, stdout);
        kvp_report_text_free(&t);
    }
    print_line(msg[0] ? msg : kvp_status_describe(err->code));
    return kvp_cli_exit_for(err->code);
}

int kvp_cli_needs_model(const char *command, bool json) {
    kvp_error err;
    kvp_error_clear(&err);
    err.code = KVP_INVALID_ARG;
    snprintf(err.message, sizeof err.message,
             "%s needs a MODEL (a config.json, a folder, or a name from 'kvplan models')",
             command);
    return kvp_cli_report_error(&err, json);
}

int kvp_cli_exit_for(kvp_status code) {
    /* 1: the deployment cannot start or meet the target; 2: bad input or usage. */
    if (code == KVP_OK) return KVP_EXIT_OK;
    return code == KVP_INFEASIBLE ? KVP_EXIT_NO : KVP_EXIT_BAD_INPUT;
}

int kvp_cli_refuse(const char *engine_flag, const char *refusal) {
    /* The pipeline names the settings field; say the flag of the engine instead. */
    char msg[KVP_ERROR_MESSAGE_MAX + 64];
    size_t n = 0;
    const char *field = "max_seq_len";
    size_t fl = strlen(field);
    for (const char *p = refusal; *p && n + 64 < sizeof msg;) {
        if (engine_flag && !strncmp(p, field, fl)) {
            n += (size_t)snprintf(msg + n, sizeof msg - n, "%s", engine_flag);
            p += fl;
        } else {
            msg[n++] = *p++;
        }
    }
    msg[n] = '\0';
    char line[4 * sizeof msg];
    fprintf(stderr, "kvplan: the engine would not start: %s\n",
            kvp__escape_str(msg, line, sizeof line));
    return KVP_EXIT_NO;
}

bool kvp_cli_dtype(const char *opt, const char *text, kvp_dtype *out) {
    if (kvp_dtype_parse(text, out) != KVP_OK) {
        kvp_cli_fail("%s: unknown dtype '%s' (expected auto, fp32, fp16, bf16, fp8, int8, nvfp4)",
                     opt, text);
        return false;
    }
    return true;
}

bool kvp_cli_reject_repeats(int argc, char **argv) {
    char name[128];
    if (!kvp__argv_repeated(argc, argv, name, sizeof name)) return false;
    kvp_cli_fail("%s is given twice; give it once", name);
    return true;
}

int kvp_cli_unknown_option(const char *arg, const char *const *known) {
    const char *best = NULL;
    size_t best_d = 99;
    char bare[128];
    kvp__strlcpy(bare, arg, sizeof bare);
    char *eq = strchr(bare, '=');
    if (eq) *eq = '\0';
    for (size_t i = 0; eq && known && known[i]; i++)
        if (strcmp(bare, known[i]) == 0)
            return kvp_cli_fail("%s takes no value (found '%s')", bare, arg);
    for (size_t i = 0; known && known[i]; i++) {
        size_t d = kvp__edit_distance(bare, known[i]);
        if (d < best_d) {
            best_d = d;
            best = known[i];
        }
    }
    if (best && best_d <= 3)
        return kvp_cli_fail("unknown option or command '%s' (did you mean '%s'?)", bare, best);
    return kvp_cli_fail("unknown option or command '%s' (see --help)", bare);
}

const char *kvp_cli_model_dir(const char *model, char *buf, size_t size) {
    return kvp__model_dir(model, buf, size);
}

int kvp_cli_write_text(const kvp_report_text *t, FILE *f) {
    kvp_error err;
    if (kvp_report_text_check(t, &err) != KVP_OK) return kvp_cli_report_error(&err, false);
    if (t->data) fputs(t->data, f);
    return -1;
}

const char *kvp_cli_fmt_bytes(uint64_t bytes, char *buf, size_t size) {
    return kvp__fmt_bytes(bytes, buf, size);
}

const char *kvp_cli_fmt_count(uint64_t n, char *buf, size_t size) {
    return kvp__fmt_count(n, buf, size);
}

int kvp_cli_one_file_as(bool json, const char *a_opt, const char *a, const char *b_what,
                        const char *b) {
    if (!a || !b || !*a || !*b) return 0;
    if (!kvp__same_file(a, b)) return 0;
    kvp_error err;
    kvp_error_clear(&err);
    err.code = KVP_INVALID_ARG;
    kvp__strlcpy(err.file, a, sizeof err.file);
    kvp__strlcpy(err.key, a_opt, sizeof err.key);
    snprintf(err.message, sizeof err.message,
             "%s %s is %s (%s): one file cannot hold both; give another path", a_opt, a, b_what, b);
    return kvp_cli_report_error(&err, json);
}

int kvp_cli_output_over_inputs(bool json, const char *opt, const char *path, const char *model) {
    int rc = kvp_cli_one_file_as(json, opt, path, "the MODEL file", model);
    if (!rc) rc = kvp_cli_one_file_as(json, opt, path, "the --gpu-catalog file", g_gpu_catalog);
    return rc;
}
