/* fuzz_weights.c — libFuzzer harness for the weights estimate: the first byte
 * chooses tp (1, 2, 4, 8), pp (1..4), CUDA graphs, the profile's tokens, and
 * vLLM's loader (mxfp4 padding, GPTQ-Marlin, deepstack buffers) on an A100 or a
 * B200 against TensorRT-LLM's; the rest is a config.json.
 * A config that reads is estimated term by term (kvp_memory_estimate_detail);
 * an estimate that succeeds must add up: a rank never holds more than the whole
 * model, the replicated part never more than the rank, and the parts' parameter
 * counts never more than the total. Overflows must be clean KVP_OVERFLOW errors
 * naming the file (issue 17), never a wrapped figure. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kvplan/kvplan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    uint8_t knobs = data[0];
    kvp_model *m = NULL;
    kvp_error err;
    if (kvp_model_from_hf_json((const char *)data + 1, size - 1, "fuzz-weights.json", NULL, &m,
                               &err) != KVP_OK)
        return 0;
    kvp_estimate_settings s;
    memset(&s, 0, sizeof s);
    s.tp = 1u << (knobs & 3);
    s.pp = 1u + ((knobs >> 2) & 3);
    s.cuda_graphs = (knobs >> 4) & 1;
    s.max_num_tokens = (knobs >> 5) & 1 ? 512 : 8192;
    s.total_bytes = UINT64_C(80) << 30;
    s.engine = (knobs >> 6) & 1 ? KVP_ESTIMATE_VLLM : KVP_ESTIMATE_TRTLLM;
    s.compute_capability = (knobs >> 7) & 1 ? 100 : 80;
    kvp_memory_facts f;
    kvp_estimate_detail d;
    memset(&d, 0, sizeof d);
    kvp_status st = kvp_memory_estimate_detail(m, &s, &f, &d, &err);
    if (st == KVP_OVERFLOW && strcmp(err.file, "fuzz-weights.json") != 0)
        __builtin_trap(); /* an overflow names no file */
    if (st == KVP_OK) {
        if (d.weights_rank_bytes > d.weights_total_bytes) __builtin_trap();
        if (d.weights_replicated_bytes > d.weights_rank_bytes) __builtin_trap();
        uint64_t parts[] = {d.params_embedding, d.params_lm_head, d.params_attention,
                            d.params_mlp,       d.params_experts, d.params_shared_experts,
                            d.params_router,    d.params_mixer,   d.params_norm,
                            d.params_vision,    d.params_encoder};
        uint64_t sum = 0;
        for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
            if (__builtin_add_overflow(sum, parts[i], &sum)) __builtin_trap();
        }
        if (sum > d.params_total) __builtin_trap();
    }
    kvp_model_free(m);
    return 0;
}
