/*
 * kvplan/safetensors.h — exact weight bytes from safetensors headers, without
 * reading any weights (issue 5 item 4).
 *
 * File layout (https://github.com/huggingface/safetensors):
 *   bytes 0..7      N, the header length, unsigned 64-bit little-endian
 *   bytes 8..8+N    JSON object: {"NAME": {"dtype": "BF16", "shape": [d0, d1, ...],
 *                   "data_offsets": [begin, end]}, ..., "__metadata__": {...}}
 *   bytes 8+N..     the tensor data; offsets are relative to this point
 * A sharded checkpoint has model.safetensors.index.json:
 *   {"metadata": {"total_size": BYTES}, "weight_map": {"NAME": "shard.safetensors"}}
 *
 * Every count is bounded before use: N against the file size and
 * KVP_SAFETENSORS_MAX_HEADER, each tensor's offsets against the data size, and
 * each tensor's byte size (product of its shape times the dtype size) must
 * equal end - begin.
 *
 * Thread safety: no shared state; any number of threads may call these.
 */
#ifndef KVPLAN_SAFETENSORS_H
#define KVPLAN_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

#include "kvplan/error.h"
#include "kvplan/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The safetensors reference implementation refuses headers above 100 MB. */
#define KVP_SAFETENSORS_MAX_HEADER (100ull * 1000 * 1000)

typedef struct kvp_safetensors_summary {
    uint64_t tensor_count;  /* tensors in the header (__metadata__ excluded) */
    uint64_t tensor_bytes;  /* sum over tensors of shape product x dtype size */
    uint64_t header_bytes;  /* N */
    uint64_t data_bytes;    /* file size - 8 - N (0 for an in-memory prefix) */
} kvp_safetensors_summary;

/* Parse the header of one safetensors file held in memory. `buf` holds at
 * least the first 8 + N bytes; `file_size` is the whole file's size (the
 * data offsets are checked against it); `name` is used in messages.
 * Errors: KVP_SYNTAX (truncated, not JSON, wrong types), KVP_CONFIG (offsets
 * out of range, byte size disagreeing with the shape), KVP_UNSUPPORTED
 * (unknown dtype), KVP_OVERFLOW. err->offset is the byte offset concerned. */
KVP_API KVP_NODISCARD kvp_status kvp_safetensors_parse(const uint8_t *buf, size_t len, uint64_t file_size,
                                               const char *name, kvp_safetensors_summary *out,
                                               kvp_error *err);

/* Read and parse the header of the file at `path` (reads 8 + N bytes only). */
KVP_API KVP_NODISCARD kvp_status kvp_safetensors_read(const char *path, kvp_safetensors_summary *out,
                                              kvp_error *err);

/* Exact weight bytes of the checkpoint in folder `dir` (or the folder of a
 * file path such as .../config.json):
 *   - model.safetensors.index.json: every shard it names must exist; its
 *     metadata.total_size when present, else the sum of the shards' headers;
 *   - else every *.safetensors file in the folder, headers summed.
 * `source` (may be NULL) receives a short description of which was used,
 * e.g. "safetensors index total_size" or "safetensors headers (4 files)".
 * KVP_NOT_FOUND when the folder has no safetensors at all (not an error for a
 * caller that then estimates); KVP_IO for a missing shard or unreadable file. */
KVP_API KVP_NODISCARD kvp_status kvp_safetensors_dir_bytes(const char *dir, uint64_t *out_bytes,
                                                   char *source, size_t source_size,
                                                   kvp_error *err);

#ifdef __cplusplus
}
#endif
#endif
