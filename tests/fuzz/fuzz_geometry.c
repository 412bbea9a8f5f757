/* fuzz_geometry.c — libFuzzer harness for the geometry JSON (GGUF-style names,
 * `--geometry`): any bytes must give a model built by llama.cpp's rules or a clean
 * error. A model that builds is costed at tp 1 and 2 (a longer sequence never costs
 * less: the cost is monotone in the length) and planned under llama.cpp and vLLM. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kvplan/kvplan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void cost_monotone(const kvp_model *m, uint32_t tp) {
    kvp_cost_settings s = kvp_cost_settings_default();
    s.tp = tp;
    kvp_cost c;
    kvp_error err;
    if (kvp_cost_compute(m, &s, &c, &err) != KVP_OK) return;
    uint64_t a = 0, b = 0;
    if (kvp_cost_sequence_bytes(&c, 4096, &a, &err) == KVP_OK &&
        kvp_cost_sequence_bytes(&c, 65536, &b, &err) == KVP_OK && b < a)
        __builtin_trap(); /* 65536 tokens cost less than 4096 */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    kvp_model *m = NULL;
    kvp_error err;
    if (kvp_model_from_geometry_json((const char *)data, size, "fuzz-geometry.json", NULL, &m,
                                     &err) != KVP_OK) {
        if (m) __builtin_trap(); /* an error hands back no model */
        return 0;
    }
    cost_monotone(m, 1);
    cost_monotone(m, 2);
    static const kvp_engine engines[] = {KVP_ENGINE_LLAMACPP, KVP_ENGINE_VLLM};
    for (size_t i = 0; i < sizeof engines / sizeof engines[0]; i++) {
        kvp_policy_settings s = kvp_policy_settings_default();
        s.engine = engines[i];
        s.n_ctx = 4096;
        s.max_model_len = 4096;
        s.kv_budget_bytes = UINT64_C(8) << 30;
        kvp_policy_result r;
        (void)kvp_policy_plan(m, &s, &r, &err);
    }
    kvp_model_free(m);
    return 0;
}
