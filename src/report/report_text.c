/* report_text.c — the report room's text buffer, escaping, atomic file
 * writes and the self-contained HTML page (include/kvplan/report.h). */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kvplan/report.h"
#include "util.h"

/* Largest report kvplan builds in memory: a sweep chart of thousands of
 * points is a few hundred KiB; 256 MiB bounds a runaway caller. */
#define REPORT_TEXT_MAX ((size_t)256 * 1024 * 1024)

void kvp_report_text_init(kvp_report_text *t, const kvp_allocator *alc) {
    if (!t) return;
    memset(t, 0, sizeof *t);
    t->alc = alc;
    t->status = KVP_OK;
}

void kvp_report_text_free(kvp_report_text *t) {
    if (!t) return;
    const kvp_allocator *alc = t->alc;
    kvp__free(alc, t->data);
    kvp_report_text_init(t, alc);
}

static bool reserve(kvp_report_text *t, size_t extra) {
    if (t->status != KVP_OK) return false;
    size_t need;
    if (__builtin_add_overflow(t->len, extra, &need) || need >= REPORT_TEXT_MAX) {
        t->status = KVP_OVERFLOW;
        return false;
    }
    need += 1; /* the NUL */
    if (need <= t->cap) return true;
    size_t cap = t->cap ? t->cap : 1024;
    while (cap < need) cap *= 2;
    char *p = kvp__realloc(t->alc, t->data, cap);
    if (!p) {
        t->status = KVP_NOMEM;
        return false;
    }
    t->data = p;
    t->cap = cap;
    return true;
}

static void append_n(kvp_report_text *t, const char *s, size_t n) {
    if (!reserve(t, n)) return;
    memcpy(t->data + t->len, s, n);
    t->len += n;
    t->data[t->len] = '\0';
}

void kvp_report_append(kvp_report_text *t, const char *s) {
    if (t && s) append_n(t, s, strlen(s));
}

void kvp_report_appendf(kvp_report_text *t, const char *fmt, ...) {
    if (!t || t->status != KVP_OK) return;
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        t->status = KVP_INVALID_ARG;
        return;
    }
    if ((size_t)n < sizeof small) {
        append_n(t, small, (size_t)n);
        return;
    }
    if (!reserve(t, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(t->data + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

void kvp_report_append_escaped(kvp_report_text *t, const char *s) {
    if (!t || !s) return;
    const char *run = s;
    for (const char *p = s; *p; p++) {
        const char *rep = NULL;
        unsigned char c = (unsigned char)*p;
        switch (c) {
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '"': rep = "&quot;"; break;
        case '\'': rep = "&#39;"; break;
        default:
            /* XML 1.0 forbids most control characters even as references:
             * a label from a hostile file must not make the SVG invalid. */
            if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') rep = "?";
            break;
        }
        if (rep) {
            append_n(t, run, (size_t)(p - run));
            kvp_report_append(t, rep);
            run = p + 1;
        }
    }
    kvp_report_append(t, run);
}

kvp_status kvp_report_text_check(const kvp_report_text *t, kvp_error *err) {
    if (!t) return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "no report buffer");
    switch (t->status) {
    case KVP_OK: return KVP_OK;
    case KVP_NOMEM: return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory building a report");
    case KVP_OVERFLOW:
        return kvp__fail(err, KVP_OVERFLOW, NULL, NULL,
                         "report larger than %zu MiB", REPORT_TEXT_MAX >> 20);
    default:
        return kvp__fail(err, t->status, NULL, NULL, "report could not be formatted");
    }
}

/* Where the bytes for PATH go: PATH itself, or the regular file a symbolic link
 * names (the link is kept). Anything else already there (a FIFO, a device such as
 * /dev/null, a socket, a directory, a dangling link) is refused: rename(2) would
 * replace it with a regular file, and as root that replaces /dev/null. */
static kvp_status output_target(const char *path, char *out, size_t size, kvp_error *err) {
    struct stat lsb, sb;
    if (lstat(path, &lsb) != 0) {
        if (errno != ENOENT)
            return kvp__fail(err, KVP_IO, path, NULL, "cannot write: %s", strerror(errno));
        kvp__strlcpy(out, path, size); /* a new file */
        return KVP_OK;
    }
    if (S_ISREG(lsb.st_mode)) {
        kvp__strlcpy(out, path, size);
        return KVP_OK;
    }
    if (S_ISLNK(lsb.st_mode)) {
        if (stat(path, &sb) != 0)
            return kvp__fail(err, KVP_IO, path, NULL,
                             "is a symbolic link to nothing (%s), expected a regular file, "
                             "and will not be replaced",
                             strerror(errno));
        if (S_ISREG(sb.st_mode)) {
            /* Into a buffer of ours: realpath(path, NULL) would allocate through libc. */
            char real[PATH_MAX];
            if (!realpath(path, real) || strlen(real) >= size)
                return kvp__fail(err, KVP_IO, path, NULL, "cannot resolve the link %s", path);
            kvp__strlcpy(out, real, size);
            return KVP_OK;
        }
        lsb = sb;
    }
    const char *what = kvp__not_regular_reason(lsb.st_mode);
    return kvp__fail(err, KVP_IO, path, NULL,
                     "%s, and will not be replaced (kvplan writes only regular files)",
                     what ? what : "is not a regular file");
}

kvp_status kvp_report_write_file(const char *path_in, const char *data, size_t len,
                                 kvp_error *err) {
    if (!path_in || !*path_in) return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "no output path");
    if (!data && len) return kvp__fail(err, KVP_INVALID_ARG, path_in, NULL, "no data to write");
    if (strlen(path_in) > 4000)
        return kvp__fail(err, KVP_INVALID_ARG, path_in, NULL, "output path too long");
    char target[4096];
    kvp_status ts = output_target(path_in, target, sizeof target, err);
    if (ts != KVP_OK) return ts;
    const char *path = target;
    /* The temporary sits in the target's folder so rename(2) stays on one
     * file system and replaces the target in one step. */
    size_t plen = strlen(path);
    const char *suffix = ".tmp.XXXXXX";
    if (plen > 4000) return kvp__fail(err, KVP_INVALID_ARG, path, NULL, "output path too long");
    char tmp[4096 + 16];
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, suffix, strlen(suffix) + 1);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return kvp__fail(err, KVP_IO, path, NULL, "cannot create a file next to %s: %s", path,
                         strerror(errno));
    (void)fchmod(fd, 0644);
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(fd, data + done, len - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            close(fd);
            unlink(tmp);
            return kvp__fail(err, KVP_IO, path, NULL, "cannot write %s: %s", path, strerror(e));
        }
        done += (size_t)n;
    }
    if (close(fd) != 0) {
        int e = errno;
        unlink(tmp);
        return kvp__fail(err, KVP_IO, path, NULL, "cannot write %s: %s", path, strerror(e));
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return kvp__fail(err, KVP_IO, path, NULL, "cannot rename the output to %s: %s", path,
                         strerror(e));
    }
    return KVP_OK;
}

/* ------------------------------------------------------------------ HTML */

void kvp_html_begin(kvp_report_text *t, const char *title) {
    kvp_report_append(t, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
                         "<title>");
    kvp_report_append_escaped(t, title ? title : "kvplan report");
    /* Inline style only: the page must render from a single file, offline. */
    kvp_report_append(
        t, "</title>\n<style>\n"
           "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;"
           "max-width:960px;color:#222;padding:0 1em}\n"
           "h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em}h3{font-size:1.05em}\n"
           "table{border-collapse:collapse;margin:0.6em 0;font-size:0.92em}\n"
           "caption{text-align:left;font-weight:600;padding:0.3em 0}\n"
           "th,td{border:1px solid #ccc;padding:0.25em 0.6em;text-align:left}\n"
           "th{background:#f2f2f2}td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
           "pre{background:#f7f7f7;padding:0.8em;overflow-x:auto;font-size:0.85em}\n"
           "figure{margin:1em 0}svg{max-width:100%;height:auto}\n"
           "</style>\n</head>\n<body>\n<h1>");
    kvp_report_append_escaped(t, title ? title : "kvplan report");
    kvp_report_append(t, "</h1>\n");
}

void kvp_html_heading(kvp_report_text *t, int level, const char *text) {
    int l = level == 3 ? 3 : 2;
    kvp_report_appendf(t, "<h%d>", l);
    kvp_report_append_escaped(t, text ? text : "");
    kvp_report_appendf(t, "</h%d>\n", l);
}

void kvp_html_paragraph(kvp_report_text *t, const char *text) {
    kvp_report_append(t, "<p>");
    kvp_report_append_escaped(t, text ? text : "");
    kvp_report_append(t, "</p>\n");
}

void kvp_html_pre(kvp_report_text *t, const char *text) {
    kvp_report_append(t, "<pre>");
    kvp_report_append_escaped(t, text ? text : "");
    kvp_report_append(t, "</pre>\n");
}

/* "131,072", "1.25 GiB", "-", "42%": numbers read better right-aligned. */
static bool looks_numeric(const char *s) {
    if (!s || !*s) return false;
    if (!(s[0] >= '0' && s[0] <= '9') && !(s[0] == '-' && s[1] >= '0' && s[1] <= '9'))
        return false;
    size_t digits = 0;
    for (const char *p = s; *p; p++)
        if (*p >= '0' && *p <= '9') digits++;
    return digits * 2 >= strlen(s) || strstr(s, "iB") != NULL;
}

void kvp_html_table(kvp_report_text *t, const char *caption, size_t cols,
                    const char *const *header, size_t rows, const char *const *cells) {
    kvp_report_append(t, "<table>\n");
    if (caption) {
        kvp_report_append(t, "<caption>");
        kvp_report_append_escaped(t, caption);
        kvp_report_append(t, "</caption>\n");
    }
    if (header) {
        kvp_report_append(t, "<thead><tr>");
        for (size_t c = 0; c < cols; c++) {
            kvp_report_append(t, "<th>");
            kvp_report_append_escaped(t, header[c] ? header[c] : "");
            kvp_report_append(t, "</th>");
        }
        kvp_report_append(t, "</tr></thead>\n");
    }
    kvp_report_append(t, "<tbody>\n");
    for (size_t r = 0; cells && r < rows; r++) {
        kvp_report_append(t, "<tr>");
        for (size_t c = 0; c < cols; c++) {
            const char *cell = cells[r * cols + c];
            kvp_report_append(t, looks_numeric(cell) ? "<td class=\"n\">" : "<td>");
            kvp_report_append_escaped(t, cell ? cell : "");
            kvp_report_append(t, "</td>");
        }
        kvp_report_append(t, "</tr>\n");
    }
    kvp_report_append(t, "</tbody>\n</table>\n");
}

void kvp_html_svg(kvp_report_text *t, const kvp_report_text *svg) {
    if (!svg || !svg->data) return;
    kvp_report_append(t, "<figure>\n");
    kvp_report_append(t, svg->data);
    kvp_report_append(t, "</figure>\n");
}

kvp_status kvp_html_end(kvp_report_text *t, kvp_error *err) {
    kvp_report_append(t, "<p style=\"color:#888;font-size:0.8em\">written by kvplan</p>\n"
                         "</body>\n</html>\n");
    return kvp_report_text_check(t, err);
}
