/* out_escape.c — stdout through the one control-character escaping (kvp__escape_controls).
 * Model names, GPU names, keys and values from user files reach every text printer of
 * every command; rather than trusting each printf, stdout itself is a stream that
 * escapes what a terminal would act on (newlines and tabs of the layout are kept,
 * util/escape_stream.c) and writes to fd 1 with write(2), so a write error (a full
 * disk, a closed stdout) sets the stream's error flag for main()'s check. JSON output
 * is unchanged by it: JSON writers escape C0 themselves, and DEL/C1 become \u escapes
 * that JSON reads. */
#define _GNU_SOURCE /* fopencookie */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "escape_stream.h"

static int write_all(void *ctx, const char *p, size_t n) {
    (void)ctx;
    while (n) {
        ssize_t w = write(STDOUT_FILENO, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static kvp__escape_stream g_out = {write_all, NULL, {0}, 0};

static ssize_t out_write(void *cookie, const char *buf, size_t size) {
    /* 0: the stream's error flag is set */
    return kvp__escape_stream_write(cookie, buf, size) != 0 ? 0 : (ssize_t)size;
}

static int out_close(void *cookie) { return kvp__escape_stream_close(cookie); }

void kvp_cli_escape_stdout(void) {
    cookie_io_functions_t io = {NULL, out_write, NULL, out_close};
    FILE *f = fopencookie(&g_out, "w", io);
    if (!f) return; /* keep the plain stdout: output still correct, just unescaped */
    /* Not a terminal: 64 KiB writes (a 10,000-row sweep is megabytes). */
    bool tty = isatty(STDOUT_FILENO);
    (void)setvbuf(f, NULL, tty ? _IOLBF : _IOFBF, tty ? BUFSIZ : 65536);
    stdout = f;
}
