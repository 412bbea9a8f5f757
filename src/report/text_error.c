/* text_error.c — an error as the one-line JSON object every command prints
 * on stdout with --json ({"error": {"code", "message", "file", "key", "line",
 * "column"}}). The CLI writes it. */
#include <stdio.h>

#include "text_internal.h"

static void json_string(kvp_report_text *t, const char *s) {
    kvp_report_append(t, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            kvp_report_appendf(t, "\\%c", c);
        else if (c < 0x20)
            kvp_report_appendf(t, "\\u%04x", c);
        else
            kvp_report_appendf(t, "%c", c);
    }
    kvp_report_append(t, "\"");
}

void kvp__error_json_line(const kvp_error *err, const char *message, kvp_report_text *t) {
    kvp_report_append(t, "{\"error\": {\"code\": ");
    json_string(t, kvp_status_name(err->code));
    kvp_report_append(t, ", \"message\": ");
    json_string(t, message);
    kvp_report_append(t, ", \"file\": ");
    json_string(t, err->file);
    kvp_report_append(t, ", \"key\": ");
    json_string(t, err->key);
    kvp_report_appendf(t, ", \"line\": %d, \"column\": %d}}\n", err->line, err->column);
}
