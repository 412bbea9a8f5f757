/*
 * kvplan/gpu.h — GPU catalogue (embedded data/gpus/catalog.json) and live probe.
 * Contract shared by the planner (src/plan) and the probe room (src/probe).
 *
 * total_bytes is the memory an engine budgets from: the total that
 * cudaMemGetInfo / torch.cuda.mem_get_info reports when the catalogue knows it
 * (basis "cuda"; "hip" on AMD), else the NVML / nvidia-smi "Total" (basis "nvml", a few
 * hundred MiB above the CUDA figure because it includes driver-reserved
 * memory), else a figure derived from the marketing size (basis "derived").
 * `source` says where the figures come from.
 *
 * Thread safety: every function here reads immutable embedded data and may be
 * called from any number of threads at once.
 */
#ifndef KVPLAN_GPU_H
#define KVPLAN_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kvplan/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kvp_gpu_info {
    char name[96];                 /* canonical name, "H100 SXM 80GB" */
    char vendor[16];               /* "nvidia", "amd" */
    uint64_t total_bytes;          /* usable memory as the driver reports it (see above) */
    uint64_t free_bytes;           /* probe only: free now (0 from the catalogue) */
    uint64_t bandwidth_bytes_per_s;/* memory bandwidth, 0 if unknown */
    char source[160];              /* where the figures come from */
    /* Added by the probe room (issue 5); zero-initialised by older callers. */
    uint64_t driver_total_bytes;   /* NVML / nvidia-smi "Total" (incl. driver-reserved), 0 if unknown */
    char total_basis[16];          /* "cuda", "hip", "nvml", "derived" (catalogue); "nvml", "nvml-v2",
                                      "cuda", "sysfs" (probe) */
    /* Added for the start-up checks (issue 21); zero = unknown. */
    uint32_t compute_capability;   /* major * 10 + minor, as engines compare it (80 = 8.0,
                                      103 = 10.3, 120 = 12.0). AMD: the capability torch reports
                                      on ROCm (gfx942 -> 94), derived from gfx_target */
    char gfx_target[16];           /* AMD LLVM target ("gfx942"), "" on NVIDIA */
    char arch[24];                 /* architecture ("Ampere", "Hopper", "CDNA 3"), "" unknown */
    char arch_source[160];         /* where compute_capability / gfx_target and arch come from */
    uint64_t reserved_[KVP_RESERVED_WORDS]; /* room for growth: zero, do not use (ABI) */
} kvp_gpu_info;

/* "8.0" for 80, "10.3" for 103, "" for 0, into buf (at least 8 bytes); returns buf. */
KVP_API const char *kvp_gpu_cc_string(uint32_t compute_capability, char *buf, size_t size);
/* The capability torch reports on ROCm for an LLVM target: "gfx942" -> 94,
 * "gfx950" -> 95, "gfx90a" -> 90; 0 when `gfx` is not "gfx" + 3 or 4 hex digits. */
KVP_API uint32_t kvp_gpu_gfx_capability(const char *gfx);

/* Look a GPU up in the embedded catalogue, case-insensitively, with aliases
 * ("h100", "H100 80GB HBM3", "h100-80gb", "NVIDIA H100 80GB HBM3"). Spaces,
 * '-', '_' and a leading "NVIDIA" / "AMD" / "GeForce" / "Instinct" are
 * ignored. A bare family name means its most common part (h100 = H100 SXM
 * 80GB, a100 = A100 SXM 80GB). `out` is fully overwritten on success.
 * Errors: KVP_INVALID_ARG (NULL / empty name), KVP_NOT_FOUND (the message
 * names the three closest catalogue names; `err->key` is the name). */
KVP_API KVP_NODISCARD kvp_status kvp_gpu_lookup(const char *name, kvp_gpu_info *out, kvp_error *err);

/* Catalogue enumeration, in catalogue order. entry() fails with
 * KVP_INVALID_ARG when index >= count. */
KVP_API size_t kvp_gpu_catalog_count(void);
KVP_API KVP_NODISCARD kvp_status kvp_gpu_catalog_entry(size_t index, kvp_gpu_info *out);

/* A catalogue file of your own (`kvplan --gpu-catalog FILE`): the layout of
 * data/gpus/catalog.json ({"schema": 1, "gpus": [{"name", "vendor", "aliases",
 * "cuda_total" | "nvml_total_mib" | "derived_total", "bandwidth_gb_s", and the
 * *_source strings; optionally "compute_capability" ("8.9") or "gfx_target"
 * ("gfx942"), "arch" and "arch_source"}]}). Its entries are searched before the embedded ones, so
 * an entry named like an embedded one replaces it; the others add GPUs. The
 * file is read and checked whole on every call (no state is kept): unknown
 * keys, wrong types, sizes of 0 or above 1 PiB, a name given twice, bad UTF-8
 * are errors naming the file and the key (JSON pointer) or position.
 * catalog_path NULL = the embedded catalogue alone (as the calls above). */
KVP_API KVP_NODISCARD kvp_status kvp_gpu_lookup_in(const char *catalog_path, const char *name,
                                           kvp_gpu_info *out, kvp_error *err);
/* Entries of the merged catalogue (the file's first, then the embedded ones
 * it does not replace). */
KVP_API KVP_NODISCARD kvp_status kvp_gpu_catalog_count_in(const char *catalog_path, size_t *out_count,
                                                  kvp_error *err);
KVP_API KVP_NODISCARD kvp_status kvp_gpu_catalog_entry_in(const char *catalog_path, size_t index,
                                                  kvp_gpu_info *out, kvp_error *err);
/* Every entry of the merged catalogue in one read: up to `cap` into out[]
 * (NULL with cap 0 to count), *out_count the number there are. */
KVP_API KVP_NODISCARD kvp_status kvp_gpu_catalog_list_in(const char *catalog_path, kvp_gpu_info *out,
                                                 size_t cap, size_t *out_count, kvp_error *err);
/* Check catalogue text held in memory (`name` for messages); *out_count gets
 * its number of entries. */
KVP_API KVP_NODISCARD kvp_status kvp_gpu_catalog_check_json(const char *text, size_t len,
                                                    const char *name, size_t *out_count,
                                                    kvp_error *err);

#ifdef __cplusplus
}
#endif
#endif
