/* fuzz_units.c — libFuzzer harness for the quantity parsers of kvplan/units.h
 * (kvp_parse_bytes, kvp_parse_count, kvp_parse_fraction): any byte string is
 * either refused with a message or parsed to a value that agrees with itself. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kvplan/kvplan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 4096) return 0;
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0'; /* the parsers take C strings: an embedded NUL ends the text */
    kvp_error err;
    uint64_t v = 0;
    if (kvp_parse_bytes(text, &v, &err) != KVP_OK) {
        /* A refusal always explains itself. */
        if (err.message[0] == '\0') abort();
    }
    uint64_t c = 0;
    if (kvp_parse_count(text, &c, &err) == KVP_OK) {
        /* A count is also a byte size with the same value when it has no unit letter
         * that the two tables read differently (k/K, M, G mean the same binary factors). */
        uint64_t b = 0;
        if (strpbrk(text, "tTbB") == NULL && kvp_parse_bytes(text, &b, &err) == KVP_OK && b != c)
            abort();
    } else if (err.message[0] == '\0') {
        abort();
    }
    double f = 0;
    if (kvp_parse_fraction(text, &f, &err) == KVP_OK) {
        if (!(f > 0.0 && f <= 1.0)) abort();
    } else if (err.message[0] == '\0') {
        abort();
    }
    free(text);
    return 0;
}
