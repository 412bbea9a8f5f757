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

/* Internal since 1.0.0 (issue 27 item 7: nobody outside the library called them;
 * they left the public headers). */
/* Architecture name of an NVIDIA compute capability (70 "Volta", 75 "Turing",
 * 80/86/87 "Ampere", 89 "Ada Lovelace", 90 "Hopper", 100/101/103 "Blackwell" / "Blackwell
 * Ultra", 120/121 "Blackwell"); "" when unknown. Static string. */
const char *kvp__gpu_arch_of_cc(uint32_t compute_capability);

#endif
