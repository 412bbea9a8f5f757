/* fit_search.c — exact integer search over a monotone predicate
 * (include/kvplan/fit.h): the answer fits, one more does not. */
#include <string.h>

#include "kvplan/fit.h"
#include "util.h"

kvp_status kvp_fit_search_max(uint64_t lo, uint64_t hi, kvp_fit_fn fits, void *ctx,
                              kvp_fit_search *out, kvp_error *err) {
    if (!out || !fits)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "fit search needs a predicate and a result");
    memset(out, 0, sizeof *out);
    if (lo > hi)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL,
                         "fit search range is empty: %llu > %llu", (unsigned long long)lo,
                         (unsigned long long)hi);
    char why[KVP_FIT_REASON_MAX];
    bool ok = false;
    why[0] = '\0';
    out->evaluations++;
    kvp_status st = fits(lo, ctx, &ok, why, sizeof why, err);
    if (st != KVP_OK) return st;
    if (!ok) {
        kvp__strlcpy(out->limited_by, why, sizeof out->limited_by);
        return KVP_OK;
    }
    out->found = true;
    if (hi > lo) {
        why[0] = '\0';
        out->evaluations++;
        st = fits(hi, ctx, &ok, why, sizeof why, err);
        if (st != KVP_OK) return st;
    }
    if (ok || hi == lo) {
        out->value = hi;
        out->at_upper_bound = true;
        return KVP_OK;
    }
    /* Invariant: fits(good), !fits(bad); `bad_why` explains bad. */
    uint64_t good = lo, bad = hi;
    char bad_why[KVP_FIT_REASON_MAX];
    kvp__strlcpy(bad_why, why, sizeof bad_why);
    while (bad - good > 1) {
        uint64_t mid = good + (bad - good) / 2;
        why[0] = '\0';
        out->evaluations++;
        st = fits(mid, ctx, &ok, why, sizeof why, err);
        if (st != KVP_OK) return st;
        if (ok) {
            good = mid;
        } else {
            bad = mid;
            kvp__strlcpy(bad_why, why, sizeof bad_why);
        }
    }
    out->value = good;
    kvp__strlcpy(out->limited_by, bad_why, sizeof out->limited_by);
    return KVP_OK;
}
