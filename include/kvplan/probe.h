/*
 * kvplan/probe.h — live GPU memory facts, read at run time through the
 * vendor libraries loaded with dlopen (nothing is linked), behind a seam of
 * function pointers so tests run the parsing and error paths with fakes.
 *
 * Sources, in order:
 *   NVIDIA  NVML (libnvidia-ml.so.1): count, name, total / reserved / free /
 *           used, and the processes holding memory;
 *           else the CUDA driver (libcuda.so.1): cuMemGetInfo in a context
 *           kvplan creates (that context itself takes a few hundred MiB, as
 *           an engine's own context would).
 *   AMD     sysfs: <root>/class/drm/cardN/device/mem_info_vram_{total,used}.
 * Finding no library or no device is a normal outcome: KVP_NO_DEVICE with a
 * message such as "no NVIDIA driver: libnvidia-ml.so.1 not found".
 *
 * Thread safety: no shared state in kvplan; the vendor libraries are
 * thread-safe for these calls.
 */
#ifndef KVPLAN_PROBE_H
#define KVPLAN_PROBE_H

#include <stdbool.h>
#include <stdint.h>

#include "kvplan/error.h"
#include "kvplan/gpu.h"
#include "kvplan/types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KVP_PROBE_MAX_DEVICES 16
#define KVP_PROBE_MAX_PROCESSES 16

/* The platform seam. Zero-initialised fields take the real value (dlopen,
 * dlsym, dlclose, "/sys", libc). */
typedef struct kvp_probe_seam {
    void *(*dlopen_fn)(const char *file, int flags);
    void *(*dlsym_fn)(void *handle, const char *symbol);
    int (*dlclose_fn)(void *handle);
    const char *sysfs_root;
    const kvp_allocator *alc; /* the probe's scratch memory (sysfs reads, the device
                                 list of kvp_probe_device_seam); borrowed; NULL = libc */
} kvp_probe_seam;

typedef struct kvp_probe_process {
    uint32_t pid;
    uint64_t used_bytes;
} kvp_probe_process;

typedef struct kvp_probed_gpu {
    uint32_t index;            /* index within its backend (NVML / CUDA ordinal, drm card N) */
    char backend[8];           /* "nvml", "cuda", "sysfs" */
    /* name, vendor, total_bytes (CUDA-visible: NVML total less reserved when
     * NVML reports it), free_bytes, driver_total_bytes, total_basis; the
     * bandwidth and source come from the matching catalogue entry */
    kvp_gpu_info info;
    uint64_t used_bytes;       /* as the driver reports it */
    uint64_t reserved_bytes;   /* NVML v2 "reserved" (driver/firmware), 0 when unknown */
    char catalog_name[96];     /* matching catalogue entry, "" when none */
    int32_t process_count;     /* processes holding memory; -1 when unknown */
    kvp_probe_process processes[KVP_PROBE_MAX_PROCESSES];
} kvp_probed_gpu;

typedef struct kvp_probe_result {
    uint32_t device_count;
    kvp_probed_gpu devices[KVP_PROBE_MAX_DEVICES]; /* NVIDIA first, then AMD */
    char nvidia_note[192];     /* why NVIDIA devices are missing or partial, "" when none */
    char amd_note[192];
    char driver_version[32];   /* NVML system driver version, "" when unknown */
    uint64_t reserved_[KVP_RESERVED_WORDS]; /* room for growth: zero, do not use (ABI) */
} kvp_probe_result;

/* Probe every GPU. `seam` may be NULL (the real platform). On KVP_OK at
 * least one device was found. KVP_NO_DEVICE: none; err says why for each
 * vendor. *out is filled in either case (notes included). */
KVP_API KVP_NODISCARD kvp_status kvp_probe_gpus(const kvp_probe_seam *seam, kvp_probe_result *out,
                                        kvp_error *err);

/* Device `index` (0-based over kvp_probe_gpus' list) as memory facts for a
 * plan: total and free bytes now. KVP_NO_DEVICE when none is found,
 * KVP_NOT_FOUND when index is out of range. */
KVP_API KVP_NODISCARD kvp_status kvp_probe_device(uint32_t index, kvp_gpu_info *out, kvp_error *err);
KVP_API KVP_NODISCARD kvp_status kvp_probe_device_seam(const kvp_probe_seam *seam, uint32_t index,
                                               kvp_gpu_info *out, kvp_error *err);

#ifdef __cplusplus
}
#endif
#endif
