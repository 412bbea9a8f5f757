/* progress.c — the progress line of long commands (progress.h). */
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void kvp_cli_progress_begin(kvp_cli_progress *p, const char *what, const char *unit, bool quiet) {
    p->on = !quiet && isatty(STDERR_FILENO);
    p->shown = false;
    p->what = what;
    p->unit = unit;
    p->delay_s = 1.0;
    const char *env = getenv("KVPLAN_PROGRESS_DELAY");
    if (env && *env) {
        char *end;
        double d = strtod(env, &end);
        if (*end == '\0' && d >= 0 && d < 3600) p->delay_s = d;
    }
    p->start_s = p->last_s = now_s();
}

void kvp_cli_progress_update(kvp_cli_progress *p, uint64_t done, uint64_t total) {
    if (!p->on || total == 0) return;
    double t = now_s();
    if (t - p->start_s < p->delay_s || (p->shown && t - p->last_s < 0.1)) return;
    p->last_s = t;
    p->shown = true;
    fprintf(stderr, "\r\033[Kkvplan %s: %3d%% (%llu of %llu %s, %.0f s)", p->what,
            (int)(done * 100 / total), (unsigned long long)done, (unsigned long long)total,
            p->unit, t - p->start_s);
    fflush(stderr);
}

void kvp_cli_progress_end(kvp_cli_progress *p) {
    if (!p->shown) return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
    p->shown = false;
}
