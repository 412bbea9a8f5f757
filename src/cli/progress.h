/* progress.h — one progress line on stderr for long commands (sim, sweep):
 * shown only when stderr is a terminal, the run has lasted a second
 * ($KVPLAN_PROGRESS_DELAY seconds, for tests), and --quiet was not given;
 * redrawn at most ten times a second and erased when the work is done, so
 * neither a pipe nor a terminal ever keeps it. */
#ifndef KVP_CLI_PROGRESS_H
#define KVP_CLI_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct kvp_cli_progress {
    bool on;            /* terminal and not --quiet */
    bool shown;         /* a line is on the screen */
    double start_s, last_s, delay_s;
    const char *what;   /* "sim", "sweep" */
    const char *unit;   /* "requests", "plans" */
} kvp_cli_progress;

void kvp_cli_progress_begin(kvp_cli_progress *p, const char *what, const char *unit, bool quiet);
void kvp_cli_progress_update(kvp_cli_progress *p, uint64_t done, uint64_t total);
/* Erase the line if one was drawn. */
void kvp_cli_progress_end(kvp_cli_progress *p);

#endif
