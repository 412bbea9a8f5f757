/* test_rng.h — xorshift64* for the randomised tests: each test keeps its own
 * fixed seed, so a failure replays. */
#ifndef KVP_TEST_RNG_H
#define KVP_TEST_RNG_H

#include <stdint.h>

static inline uint64_t test_rng_next(uint64_t *state) {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 0x2545f4914f6cdd1dull;
}

#endif
