/* fuzz_gpus.c — libFuzzer harness for a user's GPU catalogue file
 * (`kvplan --gpu-catalog FILE`): UTF-8 and JSON, the key-by-key checker, and
 * the merge with the embedded catalogue (kvp_gpu_catalog_check_json). */
#include <stddef.h>
#include <stdint.h>

#include "kvplan/gpu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    size_t n = 0;
    kvp_error err;
    kvp_status st = kvp_gpu_catalog_check_json((const char *)data, size, "fuzz", &n, &err);
    /* An accepted file holds at most the 1024 entries the checker allows. */
    if (st == KVP_OK && n > 1024) __builtin_trap();
    (void)st;
    return 0;
}
