/* fuzz_config.c — libFuzzer harness for the HF config reader and the cost model over what it reads. */
#include <stddef.h>
#include <stdint.h>

#include "kvplan/kvplan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    kvp_model *m = NULL;
    kvp_error err;
    if (kvp_model_from_hf_json((const char *)data, size, "fuzz.json", NULL, &m, &err) != KVP_OK)
        return 0;
    static const uint32_t tps[] = {1, 2, 8};
    for (size_t i = 0; i < 3; i++) {
        kvp_cost_settings s = kvp_cost_settings_default();
        s.tp = tps[i];
        s.pp = (uint32_t)(i + 1);
        s.kv_dtype = (kvp_dtype)(i + 1);
        kvp_cost c;
        if (kvp_cost_compute(m, &s, &c, &err) == KVP_OK) {
            uint64_t bytes;
            (void)kvp_cost_sequence_bytes(&c, 131072, &bytes, &err);
        }
    }
    kvp_model_free(m);
    return 0;
}
