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

/* How a start-up memory term is known (docs/memory.md; shared/reference/MEMORY.md markers). */
typedef enum kvp_mem_mark {
    KVP_MEM_MARK_EXACT = 0,  /* the engine's or library's own constant / formula, from the config */
    KVP_MEM_MARK_BOUNDED,    /* a documented bound: the source gives a range or a floor */
    KVP_MEM_MARK_ESTIMATED,  /* no source constant: a stated assumption (a CUDA context size) */
    KVP_MEM_MARK_GIVEN,      /* the user's figure (--weights, --peak, --non-torch, --cuda-graph) */
} kvp_mem_mark;

/* Where the engine charges a term. */
typedef enum kvp_mem_charge {
    KVP_MEM_CHARGE_PEAK = 0,   /* subtracted before the KV cache is sized (in the measured peak) */
    KVP_MEM_CHARGE_HEADROOM,   /* allocated after sizing: must fit in what the fraction leaves */
    KVP_MEM_CHARGE_UNCHARGED,  /* exists before the engine's snapshot (vLLM's context, NCCL
                                  init): never subtracted, it occupies the headroom */
    KVP_MEM_CHARGE_PHASE,      /* one phase of a peak term listed before it (vLLM's profile:
                                  the forward, the dummy sampler, ...): the peak is the
                                  largest phase, so a phase is shown, never summed */
} kvp_mem_charge;

#define KVP_MEM_TERMS_MAX 24
#define KVP_MEM_TERM_NAME_MAX 32
#define KVP_MEM_TERM_SOURCE_MAX 96

/* One start-up term of the estimate: a named figure, how it is known, where
 * it is charged, and which kvp_memory_facts field it adds to (`part`: one
 * KVP_MEM_EST_* bit, ACTIVATION / NON_TORCH / CUDA_GRAPH; 0 for headroom and
 * uncharged terms). */
typedef struct kvp_memory_term {
    char name[KVP_MEM_TERM_NAME_MAX];     /* "cuda_context", "cublas_workspace", ... */
    uint64_t bytes;
    uint32_t part;
    uint8_t mark;                         /* kvp_mem_mark */
    uint8_t charge;                       /* kvp_mem_charge */
    bool under_load;                      /* allocated only when requests run (decode-time
                                             sampling), not at start-up: a shortfall is a
                                             warning, never a refusal */
    char source[KVP_MEM_TERM_SOURCE_MAX]; /* where the formula comes from */
} kvp_memory_term;

typedef struct kvp_memory_facts {
    uint64_t total_bytes;      /* usable device memory as the driver reports it */
    uint64_t free_bytes;       /* free before the engine loads anything (0 = total) */
    uint64_t weights_bytes;    /* model weights on this rank */
    uint64_t activation_bytes; /* peak activation of the profiling forward pass */
    uint64_t non_torch_bytes;  /* memory outside the allocator: CUDA context, NCCL buffers */
    uint64_t cuda_graph_bytes; /* captured CUDA graphs */
    uint32_t estimated;        /* KVP_MEM_EST_* bits */
    char weights_source[96];   /* "measured", "safetensors headers", "estimated from config", ... */
    /* The estimate term by term (empty when everything was given). The terms
     * of a part the user gave are dropped and that part appears once, GIVEN. */
    uint32_t term_count;
    kvp_memory_term terms[KVP_MEM_TERMS_MAX];
    uint64_t headroom_need_bytes; /* sum of the HEADROOM terms: what must fit after sizing */
    char release_line[96];        /* the engine release line the terms follow ("vLLM >= 0.21
                                     (latest: no --engine-version)"); "" = one line only */
    uint64_t reserved_[KVP_RESERVED_WORDS]; /* room for growth: zero, do not use (ABI) */
} kvp_memory_facts;

#ifdef __cplusplus
}
#endif
#endif
