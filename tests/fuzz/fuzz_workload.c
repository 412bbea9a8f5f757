/* fuzz_workload.c — libFuzzer harness for the JSON-lines workload reader
 * (and, for small workloads that parse, one short simulation over a tiny
 * pool with prefix reuse and the validator-backed pool code paths).
 * Anything but KVP_OK must come with a message; nothing may crash or leak. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kvplan/sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    kvp_workload *w = NULL;
    kvp_error err;
    kvp_workload_options opt = {size && (data[0] & 1) ? KVP_ARRIVAL_SECONDS : KVP_ARRIVAL_STEPS,
                                0.02};
    kvp_status st = kvp_workload_parse((const char *)data, size, "fuzz", &opt, NULL, &w, &err);
    if (st != KVP_OK) {
        if (w != NULL || err.message[0] == '\0') abort();
        return 0;
    }
    size_t n = kvp_workload_count(w);
    kvp_workload_cursor cur;
    kvp_workload_cursor_init(&cur, w);
    kvp_request q;
    for (size_t i = 0; i < n; i++) {
        if (!kvp_workload_next(&cur, &q)) abort();
        const kvp_request *r = &q;
        if (r->prompt_tokens == 0 || r->output_tokens == 0 || r->explicit_tokens > r->prompt_tokens)
            abort();
    }
    if (kvp_workload_next(&cur, &q)) abort();
    if (n <= 16) {
        kvp_sim_config c;
        memset(&c, 0, sizeof c);
        c.pool.pool_count = 2;
        c.pool.pools[0] = (kvp_pool_spec){.kind = KVP_CACHE_FULL, .tokens_per_block = 16,
                                          .page_bytes = 1, .blocks = 64};
        c.pool.pools[1] = (kvp_pool_spec){.kind = KVP_CACHE_SLIDING, .window_tokens = 40,
                                          .tokens_per_block = 16, .page_bytes = 1, .blocks = 32};
        c.pool.prefix_reuse = true;
        c.max_batch_size = 4;
        c.max_num_tokens = 64;
        c.max_model_len = 512;
        kvp_sim_result res;
        if (kvp_sim_run(&c, w, NULL, &res, &err) != KVP_OK) abort();
        if (res.finished + res.rejected_too_long + res.rejected_never_fit != n) abort();
    }
    kvp_workload_free(w);
    return 0;
}
