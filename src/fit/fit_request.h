/* fit_request.h — what a fit question leaves free, decided once for `kvplan
 * fit` (src/cli/cmd_fit.c) and kvp_json_call's "fit" (src/bind/deploy_call.c):
 * the --solve / "solve" words, the target chosen when none is named, and the
 * setting given that the target would have to vary. */
#ifndef KVP_FIT_REQUEST_H
#define KVP_FIT_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#include "kvplan/fit.h"

/* A solve word ("max-seq-len", "context", "concurrency", "batch", "tp",
 * "parallel", "kv-dtype", "dtype", ...) as its target; false for none. */
bool kvp__fit_solve_word(const char *word, kvp_fit_target *out);

/* What the question gave besides the deployment. */
typedef struct kvp__fit_given {
    bool solve;        /* a target was named (req->solve_for holds it) */
    bool concurrency;  /* a concurrency target */
    bool gpus;         /* the GPUs a tp search may use */
    bool max_seq_len;  /* the deployment's length */
} kvp__fit_given;

/* A setting given that the target would vary (kvp__fit_left_free). */
typedef enum kvp__fit_conflict {
    KVP__FIT_FREE = 0,         /* none */
    KVP__FIT_GIVES_LENGTH,     /* solve max-seq-len with a length given */
    KVP__FIT_GIVES_TP,         /* solve tp with tp given */
    KVP__FIT_GIVES_KV_DTYPE,   /* solve kv-dtype with a KV dtype given */
    KVP__FIT_GIVES_CONCURRENCY /* solve concurrency with a concurrency given */
} kvp__fit_conflict;

/* Without a named target: tp when GPUs are given, else the concurrency at a
 * given length, else the length. Then the setting given that the target would
 * vary, for the caller to refuse in its own words (a flag, a request key). */
kvp__fit_conflict kvp__fit_left_free(kvp_fit_request *req, const kvp__fit_given *g,
                                     const kvp_fit_point *base);

/* How the caller's user names the settings of a fit question. */
typedef struct kvp__fit_words {
    /* `flag` ("--max-seq-len", "--solve") in the caller's words, written into
     * buf when needed (kvp_json_call: its request key, "max_seq_len"); NULL:
     * the flags as they are (the CLI). */
    const char *(*name)(const char *flag, char *buf, size_t size);
    /* Where the bound of a length search is set, in words ("use
     * --max-seq-len-limit for the search bound"). */
    const char *length_bound;
} kvp__fit_words;

/* Refuse `conflict` (kvp__fit_left_free's, not KVP__FIT_FREE) in `words`:
 * KVP_INVALID_ARG keyed by the flag of the setting the target would vary
 * ("--tp"), the message naming what to drop. */
kvp_status kvp__fit_conflict_refuse(kvp__fit_conflict conflict, const kvp__fit_words *words,
                                    kvp_error *err);

#endif
