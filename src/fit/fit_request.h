/* fit_request.h — what a fit question leaves free, decided once for `kvplan
 * fit` (src/cli/cmd_fit.c) and kvp_json_call's "fit" (src/bind/deploy_call.c):
 * the --solve / "solve" words, the target chosen when none is named, and the
 * setting given that the target would have to vary. */
#ifndef KVP_FIT_REQUEST_H
#define KVP_FIT_REQUEST_H

#include <stdbool.h>

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

/* Without a named target: tp when GPUs are given, else the concurrency at a
 * given length, else the length. Then a setting the target varies, given too,
 * is refused naming it as a flag (keys false: "--tp") or as a request key
 * (keys true: "tp", the error's key "/tp"). */
kvp_status kvp__fit_left_free(kvp_fit_request *req, const kvp__fit_given *g,
                              const kvp_fit_point *base, bool keys, kvp_error *err);

#endif
