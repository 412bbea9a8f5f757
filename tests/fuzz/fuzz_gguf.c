/* fuzz_gguf.c — libFuzzer harness for the GGUF reader: any bytes must give a
 * model or a clean error, never a crash, leak or out-of-bounds read. A model
 * that reads is also planned under the llama.cpp policy. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kvplan/model.h"
#include "kvplan/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    kvp_model *m = NULL;
    kvp_error err;
    if (kvp_model_from_gguf_memory(data, size, "fuzz.gguf", NULL, &m, &err) == KVP_OK) {
        kvp_policy_settings s = kvp_policy_settings_default();
        s.engine = KVP_ENGINE_LLAMACPP;
        s.n_ctx = 4096;
        kvp_policy_result r;
        (void)kvp_policy_plan(m, &s, &r, &err);
        kvp_model_free(m);
    }
    return 0;
}
