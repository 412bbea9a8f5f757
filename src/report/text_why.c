/* text_why.c — the table of `kvplan why` (docs/why.md): each figure the log
 * printed beside what kvplan reproduces from the logged memory and from the
 * config, the answer to the target, the lines not read, from the document the
 * library wrote (kvp__why_json_text). The CLI writes what this renders. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "text_internal.h"
#include "util.h"

static const char *num_text(const json_t *v, char *buf, size_t n) {
    if (json_is_integer(v)) return kvp__fmt_count((uint64_t)json_integer_value(v), buf, n);
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

void kvp__why_text(const char *doc_text, unsigned cut_line_bytes, kvp_report_text *t) {
    json_t *parsed = json_loads(doc_text, 0, NULL);
    if (!parsed) return;
    const json_t *doc = parsed;
    const char *ver = json_string_value(json_object_get(doc, "engine_version"));
    const json_t *model = json_object_get(doc, "model");
    kvp_report_appendf(t, "engine   %s", json_string_value(json_object_get(doc, "engine_name")));
    if (ver)
        kvp_report_appendf(t, " %s (from the %s)", ver,
               json_string_value(json_object_get(doc, "engine_version_source")));
    kvp_report_appendf(t, "\n");
    const char *logged = json_string_value(json_object_get(model, "logged"));
    kvp_report_appendf(t, "model    %s -> %s (%s)\n", logged ? logged : "(not in the log)",
           json_string_value(json_object_get(model, "config")),
           json_string_value(json_object_get(model, "found_by")));
    const json_t *gm = json_object_get(doc, "given_memory");
    kvp_report_appendf(t, "given    %s\n", json_string_value(json_object_get(gm, "from")));
    const char *gerr = json_string_value(json_object_get(gm, "error"));
    if (gerr) kvp_report_appendf(t, "         not planned: %s\n", gerr);
    const char *cerr = json_string_value(json_object_get(json_object_get(doc, "from_config"), "error"));
    if (cerr) kvp_report_appendf(t, "config   not planned: %s\n", cerr);
    kvp_report_appendf(t, "\n%-26s %18s %20s %14s %11s  %s\n", "figure", "logged", "from logged memory",
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
        kvp_report_appendf(t, "%-26s %18s %20s %14s %11s  %s\n", json_string_value(json_object_get(f, "name")),
               logged_s, num_text(json_object_get(f, "given_memory"), b, sizeof b),
               num_text(json_object_get(f, "from_config"), c, sizeof c), d, mark);
        kvp_report_appendf(t, "    line %s: %.100s\n", num_text(json_object_get(f, "line_number"), a, sizeof a),
               json_string_value(json_object_get(f, "line")));
        kvp_report_appendf(t, "    rule: %s\n", json_string_value(json_object_get(f, "basis")));
    }
    const json_t *ans = json_object_get(doc, "answer");
    kvp_report_appendf(t, "\nanswer");
    const json_t *tc = json_object_get(ans, "target_concurrency"), *tx = json_object_get(ans, "target_context");
    if (tc) kvp_report_appendf(t, " (target: %lld sequences)", (long long)json_integer_value(tc));
    if (tx) kvp_report_appendf(t, " (target: %lld tokens of context)", (long long)json_integer_value(tx));
    kvp_report_appendf(t, " from the logged memory:\n");
    json_array_foreach(json_object_get(ans, "changes"), i, f) {
        const char *set = json_string_value(json_object_get(f, "setting"));
        const char *lim = json_string_value(json_object_get(f, "limited_by"));
        if (!lim) lim = "-";
        const json_t *v = json_object_get(f, "value");
        char b[48];
        if (json_is_true(json_object_get(f, "found")))
            kvp_report_appendf(t, "  %s %s (limited by %.100s%s)\n", set,
                   json_is_string(v) ? json_string_value(v) : num_text(v, b, sizeof b), lim,
                   strlen(lim) > 100 ? "..." : "");
        else
            kvp_report_appendf(t, "  %s: no value reaches it (%.100s%s)\n", set, lim, strlen(lim) > 100 ? "..." : "");
    }
    const json_t *un = json_object_get(doc, "unread_lines");
    const json_t *read = json_object_get(doc, "read");
    if (json_array_size(un)) {
        kvp_report_appendf(t, "\nlines that look like figures but were not read (%lld):\n",
               (long long)json_integer_value(json_object_get(read, "unread_lines")));
        json_array_foreach(un, i, f)
            kvp_report_appendf(t, "  line %lld: %.120s\n", (long long)json_integer_value(json_object_get(f, "line_number")),
                   json_string_value(json_object_get(f, "line")));
    }
    long long cut = json_integer_value(json_object_get(read, "cut_lines"));
    if (cut) kvp_report_appendf(t, "\n%lld lines over %u bytes were cut\n", cut, cut_line_bytes);
    const json_t *unrep = json_object_get(doc, "unreproduced");
    if (json_array_size(unrep)) {
        kvp_report_appendf(t, "\nnot reproduced from the logged memory:");
        json_array_foreach(unrep, i, f) kvp_report_appendf(t, " %s", json_string_value(f));
        kvp_report_appendf(t, "\n");
    } else if (json_integer_value(json_object_get(doc, "outputs")) == 0) {
        kvp_report_appendf(t, "\nthe log prints no capacity figure to reproduce (tokens, blocks, pool sizes)\n");
    } else {
        kvp_report_appendf(t, "\nevery figure reproduced from the logged memory (%lld)\n",
               (long long)json_integer_value(json_object_get(doc, "reproduced")));
    }
    json_decref(parsed);
}
