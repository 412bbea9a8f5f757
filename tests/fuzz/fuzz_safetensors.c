/* fuzz_safetensors.c — libFuzzer harness for the safetensors header parser.
 * The input is a whole file: its size is the file size the offsets are
 * checked against, so every length/offset bound is exercised. A second call
 * claims a larger file than the buffer holds (the truncated-read path). */
#include <stddef.h>
#include <stdint.h>

#include "kvplan/safetensors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    kvp_safetensors_summary s;
    kvp_error err;
    kvp_status st = kvp_safetensors_parse(data, size, size, "fuzz", &s, &err);
    /* A parsed header never claims a header longer than the input. */
    if (st == KVP_OK && s.header_bytes + 8 > size) __builtin_trap();
    st = kvp_safetensors_parse(data, size, (uint64_t)size + 4096, "fuzz", &s, &err);
    (void)st;
    return 0;
}
