/* probe_internal.h — names shared between the files of src/probe/ (kvp__ tier). */
#ifndef KVP_PROBE_INTERNAL_H
#define KVP_PROBE_INTERNAL_H

#include <stddef.h>

/* Catalogue key of a GPU name: lower-case alphanumerics, with a leading
 * "nvidia" / "amd" / "geforce" / "instinct" / "tesla" dropped. */
void kvp__gpu_normalize(const char *in, char *out, size_t out_size);

#endif
