/* arith.c — checked products of several factors (mimalloc's count*size check, generalised). */
#include "util.h"

bool kvp__mul_array_u64(uint64_t *out, const uint64_t *factors, size_t n) {
    uint64_t acc = 1;
    for (size_t i = 0; i < n; i++) {
        if (!kvp__mul_u64(acc, factors[i], &acc)) {
            *out = 0;
            return false;
        }
    }
    *out = acc;
    return true;
}
