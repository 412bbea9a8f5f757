/* fuzz_log.c — libFuzzer harness for the log reader of `kvplan why`
 * (src/logs/log_reader.h, log_redact.h): any bytes, fed in chunks whose sizes
 * the input's first byte picks, are read without a crash, in the fixed
 * memory of one kvp_log: every kept string is NUL-terminated inside its
 * field, counts stay within their arrays, a figure's byte bracket is ordered,
 * and the redaction of any line fits its buffer. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "logs/log_reader.h"
#include "logs/log_redact.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void terminated(const char *s, size_t n) {
    if (!memchr(s, '\0', n)) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    kvp_log *log = malloc(sizeof *log);
    if (!log) abort();
    kvp__log_init(log);
    size_t chunk = size ? (size_t)data[0] % 97 + 1 : 1;
    for (size_t at = 0; at < size; at += chunk)
        kvp__log_feed(log, (const char *)data + at, size - at < chunk ? size - at : chunk);
    kvp__log_finish(log);
    if (log->figure_count > KVP_LOG_FIGURES_MAX || log->setting_count > KVP_LOG_SETTINGS_MAX) abort();
    if (log->cut_lines > log->lines || log->bytes != size) abort();
    if (log->engines >> KVP_LOG_ENGINES) abort();
    terminated(log->model, sizeof log->model);
    terminated(log->engine_version, sizeof log->engine_version);
    terminated(log->gpu, sizeof log->gpu);
    terminated(log->cmdline, sizeof log->cmdline);
    terminated(log->conflict, sizeof log->conflict);
    for (size_t i = 0; i < log->figure_count; i++) {
        const kvp_log_figure *f = &log->figures[i];
        terminated(f->name, sizeof f->name);
        terminated(f->line, sizeof f->line);
        terminated(f->printed, sizeof f->printed);
        uint64_t lo, hi;
        if (kvp__log_figure_bytes(f, &lo, &hi) && lo > hi) abort();
        if (kvp__log_figure(log, f->name, f->instance) == NULL) abort();
        char red[64];
        kvp__log_redact(f->line, red, sizeof red);
        terminated(red, sizeof red);
    }
    for (size_t i = 0; i < log->unread_count && i < KVP_LOG_UNREAD_MAX; i++)
        terminated(log->unread[i].line, sizeof log->unread[i].line);
    /* the redaction of the raw input, as a string */
    char *text = malloc(size + 1), *out = malloc(2 * size + 64);
    if (!text || !out) abort();
    memcpy(text, data, size);
    text[size] = '\0';
    kvp__log_redact(text, out, 2 * size + 64);
    terminated(out, 2 * size + 64);
    free(text);
    free(out);
    free(log);
    return 0;
}
