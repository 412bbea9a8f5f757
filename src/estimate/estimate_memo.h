/*
 * estimate_memo.h — the last static memory estimate kept for the next call
 * with the same inputs (kvp__ tier: the plan room's pipeline holds one per
 * run of many points, src/pipeline/deploy.c).
 *
 * A sweep over max_seq_len, or a fit's bisection, plans thousands of points
 * whose weights, activation peak and runtime terms are the same: the estimate
 * reads the model, the settings and max_seq_len only through the TensorRT-LLM
 * dummy request length (kvp__dummy_request_tokens). Keyed on all of them, so
 * a hit returns exactly what kvp_memory_estimate would (issue 12 item 9).
 */
#ifndef KVP_ESTIMATE_MEMO_H
#define KVP_ESTIMATE_MEMO_H

#include <stdbool.h>

#include "kvplan/estimate.h"

#define KVP__MEMO_TEXT_MAX 4096 /* model_dir / quantization kept by value; longer: no memo */

typedef struct kvp__estimate_memo {
    bool valid;
    const kvp_model *model;
    kvp_estimate_settings key; /* the settings, string pointers cleared, max_seq_len as read */
    char model_dir[KVP__MEMO_TEXT_MAX];
    char quantization[KVP__MEMO_TEXT_MAX];
    kvp_memory_facts facts; /* what the estimate returned for the key */
} kvp__estimate_memo;

/* An empty memo (nothing kept). */
void kvp__estimate_memo_clear(kvp__estimate_memo *memo);

/* kvp_memory_estimate(model, s, out, err), or the kept facts when model and
 * settings read the same as the last successful call. `memo` NULL: always
 * estimated. Errors are never kept (the next call estimates again). */
kvp_status kvp__memory_estimate_memo(kvp__estimate_memo *memo, const kvp_model *model,
                                     const kvp_estimate_settings *s, kvp_memory_facts *out,
                                     kvp_error *err);

#endif
