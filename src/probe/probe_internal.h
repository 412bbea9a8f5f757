/* probe_internal.h — names shared between the files of src/probe/ (kvp__ tier). */
#ifndef KVP_PROBE_INTERNAL_H
#define KVP_PROBE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Catalogue key of a GPU name: lower-case alphanumerics, with a leading
 * "nvidia" / "amd" / "geforce" / "instinct" / "tesla" dropped. */
void kvp__gpu_normalize(const char *in, char *out, size_t out_size);

/* "8.9" -> 89, "10.3" -> 103; false unless "M.m" with M 1..99 and one digit m. */
bool kvp__gpu_parse_cc(const char *text, uint32_t *out);

#endif
