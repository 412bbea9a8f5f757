/* fit_request.c — what a fit question leaves free (fit_request.h). */
#include <string.h>

#include "fit_request.h"
#include "util.h"

bool kvp__fit_solve_word(const char *s, kvp_fit_target *out) {
    if (!strcmp(s, "max-seq-len") || !strcmp(s, "max_seq_len") || !strcmp(s, "context"))
        *out = KVP_FIT_MAX_SEQ_LEN;
    else if (!strcmp(s, "concurrency") || !strcmp(s, "batch"))
        *out = KVP_FIT_CONCURRENCY;
    else if (!strcmp(s, "tp") || !strcmp(s, "parallel"))
        *out = KVP_FIT_PARALLEL;
    else if (!strcmp(s, "kv-dtype") || !strcmp(s, "kv_dtype") || !strcmp(s, "dtype"))
        *out = KVP_FIT_KV_DTYPE;
    else
        return false;
    return true;
}

/* The refusal of a setting the target varies, worded for the caller. */
static kvp_status refuse(kvp_error *err, bool keys, const char *flag, const char *key,
                         const char *flag_msg, const char *key_msg) {
    char pointer[64];
    snprintf(pointer, sizeof pointer, "/%s", key);
    return kvp__refuse(err, keys ? pointer : flag, "%s", keys ? key_msg : flag_msg);
}

kvp_status kvp__fit_left_free(kvp_fit_request *req, const kvp__fit_given *g,
                              const kvp_fit_point *base, bool keys, kvp_error *err) {
    if (!g->solve)
        req->solve_for = g->gpus                            ? KVP_FIT_PARALLEL
                         : g->max_seq_len && !g->concurrency ? KVP_FIT_CONCURRENCY
                                                              : KVP_FIT_MAX_SEQ_LEN;
    if (req->solve_for == KVP_FIT_MAX_SEQ_LEN && g->max_seq_len && g->solve)
        return refuse(err, keys, "--max-seq-len", "max_seq_len",
                      "--solve max-seq-len leaves the length free: drop --max-seq-len (use "
                      "--max-seq-len-limit for the search bound)",
                      "solve max-seq-len leaves the length free: drop max_seq_len "
                      "(max_seq_len_limit bounds the search)");
    if (req->solve_for == KVP_FIT_PARALLEL && base->tp)
        return refuse(err, keys, "--tp", "tp", "--solve tp leaves --tp free: drop --tp",
                      "solve tp leaves tp free: drop tp");
    if (req->solve_for == KVP_FIT_KV_DTYPE && base->kv_dtype[0])
        return refuse(err, keys, "--kv-dtype", "kv_dtype",
                      "--solve kv-dtype leaves --kv-dtype free: drop --kv-dtype",
                      "solve kv-dtype leaves kv_dtype free: drop kv_dtype");
    if (req->solve_for == KVP_FIT_CONCURRENCY && g->concurrency)
        return refuse(err, keys, "--concurrency", "concurrency",
                      "--solve concurrency leaves --concurrency free: drop it",
                      "solve concurrency leaves concurrency free: drop it");
    return KVP_OK;
}
