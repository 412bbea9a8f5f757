/* arith.c — checked products of several factors (mimalloc's count*size check, generalised). */
#include "util.h"

bool kvp__mul_many_u64(uint64_t *out, int n, ...) {
    va_list ap;
    va_start(ap, n);
    uint64_t acc = 1;
    bool ok = true;
    for (int i = 0; i < n; i++) {
        uint64_t f = va_arg(ap, uint64_t);
        if (ok && !kvp__mul_u64(acc, f, &acc)) ok = false;
    }
    va_end(ap);
    *out = ok ? acc : 0;
    return ok;
}
