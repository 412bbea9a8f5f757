/* cli.h — helpers shared by the subcommands: the only code that talks to the terminal. */
#ifndef KVP_CLI_H
#define KVP_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "kvplan/kvplan.h"
#include "kvplan/units.h"
#include "commands.h"

#define KVP_EXIT_OK 0
#define KVP_EXIT_NO 1
#define KVP_EXIT_BAD_INPUT 2

/* Print "kvplan: warning: <message>" as one line on stderr, control characters escaped. */
void kvp_cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Make stdout escape terminal control characters from inputs (model, GPU and key
 * names) in every printer, keeping the layout's newlines and tabs (out_escape.c).
 * Called once by main() before any output. */
void kvp_cli_escape_stdout(void);
/* Print "kvplan: <message>" as one line on stderr, control characters escaped;
 * returns KVP_EXIT_BAD_INPUT. */
int kvp_cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Two files the command names that are one file (the same path however spelt,
 * or one inode): an output written over another output or over an input. Returns
 * the exit status of the one-line refusal naming both (2; with json the error
 * object on stdout too), or 0 when they differ or either is NULL. `b_what` says
 * what b is ("--html", "the MODEL file"). */
int kvp_cli_one_file_as(bool json, const char *a_opt, const char *a, const char *b_what,
                        const char *b);
/* An output file (OPT PATH) that is one of the files the command reads: the MODEL
 * argument or the GPU catalogue (--gpu-catalog / $KVPLAN_GPU_CATALOG). 0 when none. */
int kvp_cli_output_over_inputs(bool json, const char *opt, const char *path, const char *model);
/* The user typed TYPED (TYPED_LEN bytes, dashes included) for CANON: errors about
 * CANON name both. */
void kvp_cli_note_spelling(const char *canon, const char *typed, size_t typed_len);

/* The user's GPU catalogue file (global `--gpu-catalog FILE`, else
 * $KVPLAN_GPU_CATALOG), NULL when none: every --gpu lookup searches it first. */
const char *kvp_cli_gpu_catalog(void);
void kvp_cli_set_gpu_catalog(const char *path);
/* Print an error record as one line (or as a JSON object on stdout when json).
 * Returns kvp_cli_exit_for(err->code). */
int kvp_cli_report_error(const kvp_error *err, bool json);
/* "COMMAND needs a MODEL (a config.json, a folder, or a name from 'kvplan
 * models')", the same words for every command: exit 2, the error object on
 * stdout under --json. */
int kvp_cli_needs_model(const char *command, bool json);
/* Print a document a kvp_render_* call returned (kvplan/render.h) with a final
 * newline and free it; its error (one line, JSON with --json) when it failed.
 * Returns -1 when printed, else the exit status of the error. */
int kvp_cli_print_rendered(kvp_status st, char *text, const kvp_error *err, bool json);
/* Write text the library rendered (a kvp_report_text, kvplan/report.h) to `f`.
 * Returns -1 when written, else the exit status of its failure (printed). The
 * caller still frees `t`. */
struct kvp_report_text;
int kvp_cli_write_text(const struct kvp_report_text *t, FILE *f);
/* Exit status of a status: 0 planned, 1 the deployment cannot start or cannot meet
 * the target (KVP_INFEASIBLE), 2 bad input or usage (every other error). */
int kvp_cli_exit_for(kvp_status code);
/* The plan was printed but the engine would refuse it: one line on stderr with the
 * pipeline's reason, "max_seq_len" read as `engine_flag` (NULL: as is). Returns 1. */
int kvp_cli_refuse(const char *engine_flag, const char *refusal);

/* An option value parser: prints one line and returns false on bad input. */
bool kvp_cli_dtype(const char *opt, const char *text, kvp_dtype *out);

/* An option given twice ("--tp 2 --tp 4") is ambiguous: print one line naming it and
 * return true. Options meant to repeat (sweep's --over) are allowed. */
bool kvp_cli_reject_repeats(int argc, char **argv);
/* Unknown option: print a "did you mean" from the NULL-terminated list; returns 2. */
int kvp_cli_unknown_option(const char *arg, const char *const *known);

/* The checkpoint folder of MODEL for exact weights from safetensors headers:
 * MODEL itself when it is a folder, the folder of a config.json path, NULL when
 * MODEL is not a path (a catalogue name). `buf` holds the result. */
const char *kvp_cli_model_dir(const char *model, char *buf, size_t size);


/* Human byte formatting: "1.50 GiB" into buf. */
const char *kvp_cli_fmt_bytes(uint64_t bytes, char *buf, size_t size);
/* Thousands separators: "131,072". */
const char *kvp_cli_fmt_count(uint64_t n, char *buf, size_t size);

#endif
