/*
 * kvplan/units.h — quantities as people write them.
 */
#ifndef KVPLAN_UNITS_H
#define KVPLAN_UNITS_H

#include <stdint.h>
#include "kvplan/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parse a byte size: "80GiB", "80 GB" (GB = 10^9), "143771MiB", "1.5e9",
 * "4096", "512k" (k/K = KiB for bare suffixes). Fractions are allowed with a
 * unit ("1.5GiB") and rounded down to whole bytes. Errors: KVP_INVALID_ARG
 * for garbage ("80XB"), KVP_OVERFLOW past 2^64-1. */
KVP_API KVP_NODISCARD kvp_status kvp_parse_bytes(const char *text, uint64_t *out, kvp_error *err);

/* Parse a count: "131072", "128k" (= 131072), "4K", "1M" (= 2^20). No
 * negatives, no fractions. */
KVP_API KVP_NODISCARD kvp_status kvp_parse_count(const char *text, uint64_t *out, kvp_error *err);

/* Parse a fraction in (0, 1]. */
KVP_API KVP_NODISCARD kvp_status kvp_parse_fraction(const char *text, double *out, kvp_error *err);

#ifdef __cplusplus
}
#endif
#endif
