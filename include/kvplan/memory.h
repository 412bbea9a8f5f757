/*
 * kvplan/memory.h — memory facts of one GPU (rank) that a plan's budget is
 * computed from: measured by an engine, probed, or estimated from the config.
 */
#ifndef KVPLAN_MEMORY_H
#define KVPLAN_MEMORY_H

#include <stdbool.h>
#include <stdint.h>

#include "kvplan/error.h"
#include "kvplan/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bits of kvp_memory_facts.estimated: which terms were estimated, not measured. */
enum {
    KVP_MEM_EST_TOTAL = 1u << 0,
    KVP_MEM_EST_FREE = 1u << 1,
    KVP_MEM_EST_WEIGHTS = 1u << 2,
    KVP_MEM_EST_ACTIVATION = 1u << 3,
    KVP_MEM_EST_NON_TORCH = 1u << 4,
    KVP_MEM_EST_CUDA_GRAPH = 1u << 5,
};

typedef struct kvp_memory_facts {
    uint64_t total_bytes;      /* usable device memory as the driver reports it */
    uint64_t free_bytes;       /* free before the engine loads anything (0 = total) */
    uint64_t weights_bytes;    /* model weights on this rank */
    uint64_t activation_bytes; /* peak activation of the profiling forward pass */
    uint64_t non_torch_bytes;  /* memory outside the allocator: CUDA context, NCCL buffers */
    uint64_t cuda_graph_bytes; /* captured CUDA graphs */
    uint32_t estimated;        /* KVP_MEM_EST_* bits */
    char weights_source[96];   /* "measured", "safetensors headers", "estimated from config", ... */
} kvp_memory_facts;

#ifdef __cplusplus
}
#endif
#endif
