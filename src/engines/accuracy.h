/* accuracy.h — an engine's record against real start-up logs (accuracy.c). */
#ifndef KVP_POLICY_ACCURACY_H
#define KVP_POLICY_ACCURACY_H

#include "kvplan/policy.h"

/* "vLLM: N of M real start-up figures within the log's rounding" for
 * `engine`, from data/accuracy.json (scripts/accuracy.py); "" when the
 * build has no record. Static; thread-safe. */
const char *kvp__engine_accuracy_line(kvp_engine engine);

#endif
