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

kvp__fit_conflict kvp__fit_left_free(kvp_fit_request *req, const kvp__fit_given *g,
                                     const kvp_fit_point *base) {
    if (!g->solve)
        req->solve_for = g->gpus                            ? KVP_FIT_PARALLEL
                         : g->max_seq_len && !g->concurrency ? KVP_FIT_CONCURRENCY
                                                              : KVP_FIT_MAX_SEQ_LEN;
    if (req->solve_for == KVP_FIT_MAX_SEQ_LEN && g->max_seq_len && g->solve)
        return KVP__FIT_GIVES_LENGTH;
    if (req->solve_for == KVP_FIT_PARALLEL && base->tp) return KVP__FIT_GIVES_TP;
    if (req->solve_for == KVP_FIT_KV_DTYPE && base->kv_dtype[0]) return KVP__FIT_GIVES_KV_DTYPE;
    if (req->solve_for == KVP_FIT_CONCURRENCY && g->concurrency) return KVP__FIT_GIVES_CONCURRENCY;
    return KVP__FIT_FREE;
}

/* `flag` in the caller's words. */
static const char *named(const kvp__fit_words *w, const char *flag, char *buf, size_t size) {
    const char *s = w->name ? w->name(flag, buf, size) : NULL;
    return s ? s : flag;
}

kvp_status kvp__fit_conflict_refuse(kvp__fit_conflict conflict, const kvp__fit_words *words,
                                    kvp_error *err) {
    /* The setting each target varies, by its flag. */
    static const char *const k_given[] = {
        [KVP__FIT_GIVES_LENGTH] = "--max-seq-len", [KVP__FIT_GIVES_TP] = "--tp",
        [KVP__FIT_GIVES_KV_DTYPE] = "--kv-dtype", [KVP__FIT_GIVES_CONCURRENCY] = "--concurrency"};
    const char *flag = k_given[conflict == KVP__FIT_FREE ? KVP__FIT_GIVES_LENGTH : conflict];
    char sb[64], gb[64];
    const char *solve = named(words, "--solve", sb, sizeof sb), *given = named(words, flag, gb, sizeof gb);
    switch (conflict) {
    case KVP__FIT_GIVES_TP:
        return kvp__refuse(err, flag, "%s tp leaves %s free: drop %s", solve, given, given);
    case KVP__FIT_GIVES_KV_DTYPE:
        return kvp__refuse(err, flag, "%s kv-dtype leaves %s free: drop %s", solve, given, given);
    case KVP__FIT_GIVES_CONCURRENCY:
        return kvp__refuse(err, flag, "%s concurrency leaves %s free: drop it", solve, given);
    case KVP__FIT_FREE:
    case KVP__FIT_GIVES_LENGTH:
    default:
        return kvp__refuse(err, flag, "%s max-seq-len leaves the length free: drop %s (%s)", solve,
                           given, words->length_bound);
    }
}
