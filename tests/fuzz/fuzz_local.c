/* fuzz_local.c — libFuzzer harness for the model-local declaration reader
 * (src/local/decl_parse.c) and, for inputs that load, the collector.
 *
 * Byte 0 picks the deployment (bits: async_chunk, streaming, enforce_eager;
 * max_num_seqs = 1 + byte 1); the rest is the declaration file. Declarations
 * naming an hf_config are loaded but not collected: resolving them opens
 * paths from the input (a fuzzer must not read /dev/stdin or the disk). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kvplan/local.h"
#include "local/local_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    kvp_local_deployment dep;
    memset(&dep, 0, sizeof dep);
    dep.async_chunk = (data[0] & 1) != 0;
    dep.streaming = (data[0] & 2) != 0;
    dep.enforce_eager = (data[0] & 4) != 0;
    dep.max_num_seqs = 1u + data[1];
    kvp_local_decls *decls = NULL;
    kvp_error err;
    if (kvp_local_decls_from_json((const char *)data + 2, size - 2, "fuzz.json", NULL, &decls,
                                  &err) != KVP_OK)
        return 0;
    bool reads_files = false;
    for (size_t i = 0; i < decls->decl_count; i++)
        if (decls->decls[i].geometry.hf_config) reads_files = true;
    if (!reads_files) {
        kvp_local_report *r = NULL;
        if (kvp_local_collect(decls, &dep, NULL, &r, &err) == KVP_OK) {
            const kvp_local_totals *t = kvp_local_report_totals(r);
            uint64_t sum = 0;
            for (size_t i = 0; i < kvp_local_report_entry_count(r); i++)
                sum += kvp_local_report_entry(r, i)->total_bytes;
            /* Invariant: the total is the sum of the entries, split in two parts. */
            if (sum != t->total_bytes || t->charged_bytes + t->not_charged_bytes != t->total_bytes)
                __builtin_trap();
            kvp_local_report_free(r);
        }
    }
    kvp_local_decls_free(decls);
    return 0;
}
