/*
 * probe.c — read live GPU memory through NVML, the CUDA driver or AMD sysfs,
 * all behind kvp_probe_seam (see include/kvplan/probe.h).
 *
 * NVML ABI used (nvml.h, stable since CUDA 5):
 *   nvmlReturn_t (int; 0 = success, 7 = insufficient size, 9 = driver not loaded)
 *   nvmlInit_v2(void), nvmlShutdown(void), nvmlErrorString(int) -> const char *
 *   nvmlSystemGetDriverVersion(char *, unsigned)
 *   nvmlDeviceGetCount_v2(unsigned *), nvmlDeviceGetHandleByIndex_v2(unsigned, void **)
 *   nvmlDeviceGetName(void *, char *, unsigned)
 *   nvmlDeviceGetMemoryInfo(void *, {u64 total, free, used})
 *   nvmlDeviceGetMemoryInfo_v2(void *, {u32 version, u64 total, reserved, free, used}),
 *     version = sizeof(struct) | 2 << 24
 *   nvmlDeviceGetCudaComputeCapability(void *, int *major, int *minor) (optional)
 *   nvmlDeviceGetComputeRunningProcesses_v3(void *, unsigned *, {u32 pid, u64 used,
 *     u32 gpu_instance, u32 compute_instance}[])
 * CUDA driver: cuInit, cuDeviceGetCount, cuDeviceGet, cuDeviceGetName,
 *   cuDeviceGetAttribute(int *, attr, dev) with attr 75/76 = capability major/minor (optional),
 *   cuDevicePrimaryCtxRetain, cuCtxSetCurrent, cuMemGetInfo_v2, cuDevicePrimaryCtxRelease_v2
 *   (CUresult int, 0 = success, 100 = no device).
 */
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvplan/probe.h"
#include "probe_internal.h"
#include "util.h"

#define NVML_LIB "libnvidia-ml.so.1"
#define CUDA_LIB "libcuda.so.1"

typedef struct nvml_memory_v1 {
    unsigned long long total, free, used;
} nvml_memory_v1;
typedef struct nvml_memory_v2 {
    unsigned int version;
    unsigned long long total, reserved, free, used;
} nvml_memory_v2;
typedef struct nvml_process_v3 {
    unsigned int pid;
    unsigned long long used;
    unsigned int gpu_instance, compute_instance;
} nvml_process_v3;

typedef int (*nvml_void_fn)(void);
typedef const char *(*nvml_errstr_fn)(int);
typedef int (*nvml_str_fn)(char *, unsigned);
typedef int (*nvml_count_fn)(unsigned *);
typedef int (*nvml_handle_fn)(unsigned, void **);
typedef int (*nvml_name_fn)(void *, char *, unsigned);
typedef int (*nvml_mem_fn)(void *, void *);
typedef int (*nvml_procs_fn)(void *, unsigned *, nvml_process_v3 *);
typedef int (*nvml_cc_fn)(void *, int *, int *);

typedef int (*cu_init_fn)(unsigned);
typedef int (*cu_count_fn)(int *);
typedef int (*cu_get_fn)(int *, int);
typedef int (*cu_name_fn)(char *, int, int);
typedef int (*cu_retain_fn)(void **, int);
typedef int (*cu_setcur_fn)(void *);
typedef int (*cu_meminfo_fn)(size_t *, size_t *);
typedef int (*cu_release_fn)(int);
typedef int (*cu_attr_fn)(int *, int, int);
#define CU_ATTR_CC_MAJOR 75 /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR */
#define CU_ATTR_CC_MINOR 76

/* The resolved seam: every pointer set. */
typedef struct seam {
    void *(*dlopen_fn)(const char *, int);
    void *(*dlsym_fn)(void *, const char *);
    int (*dlclose_fn)(void *);
    const char *sysfs_root;
    const kvp_allocator *alc; /* NULL = libc */
} seam;

static seam resolve_seam(const kvp_probe_seam *in) {
    seam s = {dlopen, dlsym, dlclose, "/sys", NULL};
    if (in) {
        if (in->dlopen_fn) s.dlopen_fn = in->dlopen_fn;
        if (in->dlsym_fn) s.dlsym_fn = in->dlsym_fn;
        if (in->dlclose_fn) s.dlclose_fn = in->dlclose_fn;
        if (in->sysfs_root) s.sysfs_root = in->sysfs_root;
        s.alc = in->alc;
    }
    return s;
}

/* ISO C has no conversion between object and function pointers; dlsym's
 * result is copied bytewise, as POSIX requires to work. */
#define LOAD(s, lib, name, var)                                                                \
    do {                                                                                       \
        void *sym_ = (s)->dlsym_fn((lib), (name));                                             \
        if (sym_) memcpy(&(var), &sym_, sizeof(var));                                          \
        else memset(&(var), 0, sizeof(var));                                                   \
    } while (0)

/* Fill bandwidth and source from the catalogue when the driver's name
 * matches an entry ("NVIDIA H100 80GB HBM3" -> "H100 SXM 80GB"). */
/* Capability read from the device (major, minor as the driver reports them). */
static void set_live_cc(kvp_probed_gpu *d, int major, int minor, const char *how) {
    if (major <= 0 || major > 99 || minor < 0 || minor > 9) return;
    d->info.compute_capability = (uint32_t)(major * 10 + minor);
    kvp__strlcpy(d->info.arch, kvp__gpu_arch_of_cc(d->info.compute_capability), sizeof d->info.arch);
    snprintf(d->info.arch_source, sizeof d->info.arch_source, "%s (live)", how);
}

static void match_catalog(kvp_probed_gpu *d) {
    kvp_gpu_info cat;
    if (kvp_gpu_lookup(d->info.name, &cat, NULL) != KVP_OK) return;
    kvp__strlcpy(d->catalog_name, cat.name, sizeof d->catalog_name);
    d->info.bandwidth_bytes_per_s = cat.bandwidth_bytes_per_s;
    /* A capability the driver did not give (AMD sysfs, old drivers) comes
     * from the catalogue entry, said so in arch_source. */
    if (!d->info.compute_capability && cat.compute_capability) {
        d->info.compute_capability = cat.compute_capability;
        kvp__strlcpy(d->info.gfx_target, cat.gfx_target, sizeof d->info.gfx_target);
        snprintf(d->info.arch_source, sizeof d->info.arch_source, "catalogue %s: %s", cat.name,
                 cat.arch_source);
    }
    if (!d->info.arch[0]) kvp__strlcpy(d->info.arch, cat.arch, sizeof d->info.arch);
    char backend[sizeof d->backend]; /* a copy: source and backend live in one object */
    kvp__strlcpy(backend, d->backend, sizeof backend);
    snprintf(d->info.source, sizeof d->info.source, "%s (live); bandwidth from catalogue %s",
             backend, cat.name);
}

static kvp_probed_gpu *next_device(kvp_probe_result *r) {
    if (r->device_count >= KVP_PROBE_MAX_DEVICES) return NULL;
    kvp_probed_gpu *d = &r->devices[r->device_count];
    memset(d, 0, sizeof *d);
    d->process_count = -1;
    return d;
}

static void finish_device(kvp_probe_result *r, kvp_probed_gpu *d, const char *backend) {
    kvp__strlcpy(d->backend, backend, sizeof d->backend);
    snprintf(d->info.source, sizeof d->info.source, "%s (live)", backend);
    match_catalog(d);
    r->device_count++;
}

/* ------------------------------------------------------------ NVML */

static bool probe_nvml(const seam *s, kvp_probe_result *r) {
    void *lib = s->dlopen_fn(NVML_LIB, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(r->nvidia_note, sizeof r->nvidia_note, "no NVIDIA driver: %s not found",
                 NVML_LIB);
        return false;
    }
    nvml_void_fn init, shutdown;
    nvml_errstr_fn errstr;
    nvml_str_fn drvver;
    nvml_count_fn count;
    nvml_handle_fn handle;
    nvml_name_fn name;
    nvml_mem_fn mem1, mem2;
    nvml_procs_fn procs;
    nvml_cc_fn ccfn;
    LOAD(s, lib, "nvmlInit_v2", init);
    LOAD(s, lib, "nvmlShutdown", shutdown);
    LOAD(s, lib, "nvmlErrorString", errstr);
    LOAD(s, lib, "nvmlSystemGetDriverVersion", drvver);
    LOAD(s, lib, "nvmlDeviceGetCount_v2", count);
    LOAD(s, lib, "nvmlDeviceGetHandleByIndex_v2", handle);
    LOAD(s, lib, "nvmlDeviceGetName", name);
    LOAD(s, lib, "nvmlDeviceGetMemoryInfo", mem1);
    LOAD(s, lib, "nvmlDeviceGetMemoryInfo_v2", mem2);
    LOAD(s, lib, "nvmlDeviceGetComputeRunningProcesses_v3", procs);
    LOAD(s, lib, "nvmlDeviceGetCudaComputeCapability", ccfn);
    if (!init || !count || !handle || !mem1) {
        snprintf(r->nvidia_note, sizeof r->nvidia_note,
                 "%s lacks nvmlInit_v2 / nvmlDeviceGetCount_v2 / "
                 "nvmlDeviceGetHandleByIndex_v2 / nvmlDeviceGetMemoryInfo",
                 NVML_LIB);
        s->dlclose_fn(lib);
        return false;
    }
    int rc = init();
    if (rc != 0) {
        const char *why = errstr ? errstr(rc) : NULL;
        snprintf(r->nvidia_note, sizeof r->nvidia_note, "NVML could not start: %s (code %d)",
                 why ? why : "unknown error", rc);
        s->dlclose_fn(lib);
        return false;
    }
    if (drvver && drvver(r->driver_version, sizeof r->driver_version) != 0)
        r->driver_version[0] = '\0';
    r->driver_version[sizeof r->driver_version - 1] = '\0';
    unsigned n = 0;
    rc = count(&n);
    bool found = false;
    if (rc != 0) {
        const char *why = errstr ? errstr(rc) : NULL;
        snprintf(r->nvidia_note, sizeof r->nvidia_note, "NVML device count failed: %s (code %d)",
                 why ? why : "unknown error", rc);
    } else if (n == 0) {
        snprintf(r->nvidia_note, sizeof r->nvidia_note, "NVIDIA driver present, no GPU visible");
    }
    for (unsigned i = 0; rc == 0 && i < n; i++) {
        void *h = NULL;
        if (handle(i, &h) != 0) {
            snprintf(r->nvidia_note, sizeof r->nvidia_note,
                     "NVML device %u: no handle (no permission or lost)", i);
            continue;
        }
        kvp_probed_gpu *d = next_device(r);
        if (!d) {
            snprintf(r->nvidia_note, sizeof r->nvidia_note, "more than %d GPUs: listed the first",
                     KVP_PROBE_MAX_DEVICES);
            break;
        }
        d->index = i;
        kvp__strlcpy(d->info.vendor, "nvidia", sizeof d->info.vendor);
        if (!name || name(h, d->info.name, sizeof d->info.name) != 0)
            snprintf(d->info.name, sizeof d->info.name, "NVIDIA GPU %u", i);
        d->info.name[sizeof d->info.name - 1] = '\0';
        nvml_memory_v2 m2;
        memset(&m2, 0, sizeof m2);
        m2.version = (unsigned)sizeof m2 | 2u << 24;
        nvml_memory_v1 m1;
        if (mem2 && mem2(h, &m2) == 0 && m2.total > 0) {
            /* CUDA sees total less what the driver reserves. */
            d->info.driver_total_bytes = m2.total;
            d->reserved_bytes = m2.reserved <= m2.total ? m2.reserved : 0;
            d->info.total_bytes = m2.total - d->reserved_bytes;
            d->info.free_bytes = m2.free;
            d->used_bytes = m2.used;
            kvp__strlcpy(d->info.total_basis, "nvml-v2", sizeof d->info.total_basis);
        } else if (mem1(h, &m1) == 0) {
            d->info.driver_total_bytes = m1.total;
            d->info.total_bytes = m1.total;
            d->info.free_bytes = m1.free;
            d->used_bytes = m1.used;
            kvp__strlcpy(d->info.total_basis, "nvml", sizeof d->info.total_basis);
        } else {
            snprintf(r->nvidia_note, sizeof r->nvidia_note, "NVML device %u: memory unreadable",
                     i);
            continue; /* not counted: finish_device is not called */
        }
        int ccmaj = 0, ccmin = 0;
        if (ccfn && ccfn(h, &ccmaj, &ccmin) == 0)
            set_live_cc(d, ccmaj, ccmin, "NVML nvmlDeviceGetCudaComputeCapability");
        if (procs) {
            nvml_process_v3 list[KVP_PROBE_MAX_PROCESSES];
            unsigned cnt = KVP_PROBE_MAX_PROCESSES;
            int prc = procs(h, &cnt, list);
            if (prc == 0 || prc == 7 /* insufficient size: cnt says how many */) {
                d->process_count = (int32_t)(cnt > 1000000 ? 1000000 : cnt);
                unsigned keep = cnt < KVP_PROBE_MAX_PROCESSES ? cnt : KVP_PROBE_MAX_PROCESSES;
                for (unsigned k = 0; prc == 0 && k < keep; k++) {
                    d->processes[k].pid = list[k].pid;
                    /* NVML_VALUE_NOT_AVAILABLE is ULLONG_MAX */
                    d->processes[k].used_bytes = list[k].used == ~0ull ? 0 : list[k].used;
                }
            }
        }
        finish_device(r, d, "nvml");
        found = true;
    }
    if (shutdown) shutdown();
    s->dlclose_fn(lib);
    return found;
}

/* ------------------------------------------------------------ CUDA driver */

static bool probe_cuda(const seam *s, kvp_probe_result *r) {
    void *lib = s->dlopen_fn(CUDA_LIB, RTLD_NOW | RTLD_LOCAL);
    if (!lib) return false;
    cu_init_fn init;
    cu_count_fn count;
    cu_get_fn get;
    cu_name_fn name;
    cu_retain_fn retain;
    cu_setcur_fn setcur;
    cu_meminfo_fn meminfo;
    cu_release_fn release;
    cu_attr_fn attr;
    LOAD(s, lib, "cuInit", init);
    LOAD(s, lib, "cuDeviceGetCount", count);
    LOAD(s, lib, "cuDeviceGet", get);
    LOAD(s, lib, "cuDeviceGetName", name);
    LOAD(s, lib, "cuDevicePrimaryCtxRetain", retain);
    LOAD(s, lib, "cuCtxSetCurrent", setcur);
    LOAD(s, lib, "cuMemGetInfo_v2", meminfo);
    LOAD(s, lib, "cuDevicePrimaryCtxRelease_v2", release);
    LOAD(s, lib, "cuDeviceGetAttribute", attr);
    size_t used_note = strlen(r->nvidia_note);
    char *note = r->nvidia_note + used_note;
    size_t note_size = sizeof r->nvidia_note - used_note;
    if (!init || !count || !get || !retain || !setcur || !meminfo) {
        snprintf(note, note_size, "%s%s lacks the driver API kvplan needs", used_note ? "; " : "",
                 CUDA_LIB);
        s->dlclose_fn(lib);
        return false;
    }
    int rc = init(0), n = 0;
    if (rc == 0) rc = count(&n);
    if (rc != 0 || n <= 0) {
        snprintf(note, note_size, "%s%s: %s (CUresult %d)", used_note ? "; " : "", CUDA_LIB,
                 rc == 100 ? "no CUDA device" : "cuInit failed", rc);
        s->dlclose_fn(lib);
        return false;
    }
    bool found = false;
    for (int i = 0; i < n; i++) {
        int dev = 0;
        void *ctx = NULL;
        if (get(&dev, i) != 0 || retain(&ctx, dev) != 0) continue;
        size_t free_b = 0, total_b = 0;
        int mrc = setcur(ctx);
        if (mrc == 0) mrc = meminfo(&free_b, &total_b);
        if (release) release(dev);
        if (mrc != 0 || total_b == 0) continue;
        kvp_probed_gpu *d = next_device(r);
        if (!d) break;
        d->index = (uint32_t)i;
        kvp__strlcpy(d->info.vendor, "nvidia", sizeof d->info.vendor);
        if (!name || name(d->info.name, (int)sizeof d->info.name, dev) != 0)
            snprintf(d->info.name, sizeof d->info.name, "NVIDIA GPU %d", i);
        d->info.name[sizeof d->info.name - 1] = '\0';
        d->info.total_bytes = total_b;
        d->info.free_bytes = free_b;
        d->used_bytes = total_b - free_b;
        kvp__strlcpy(d->info.total_basis, "cuda", sizeof d->info.total_basis);
        int ccmaj = 0, ccmin = 0;
        if (attr && attr(&ccmaj, CU_ATTR_CC_MAJOR, dev) == 0 &&
            attr(&ccmin, CU_ATTR_CC_MINOR, dev) == 0)
            set_live_cc(d, ccmaj, ccmin, "CUDA cuDeviceGetAttribute");
        finish_device(r, d, "cuda");
        found = true;
    }
    s->dlclose_fn(lib);
    return found;
}

/* ------------------------------------------------------------ AMD sysfs */

/* The first line of a small sysfs file (sysfs reports 4096 bytes for each). */
static bool read_line_file(const seam *s, const char *path, char *out, size_t size) {
    char *text = NULL;
    if (kvp__read_file(path, 4096, s->alc, &text, NULL, NULL) != KVP_OK) return false;
    kvp__strlcpy(out, text, size);
    kvp__free(s->alc, text);
    out[strcspn(out, "\n")] = '\0';
    return out[0] != '\0';
}

/* Read one unsigned decimal (or 0x hex) number from a sysfs file. */
static bool read_u64_file(const seam *s, const char *path, uint64_t *out) {
    char buf[64];
    if (!read_line_file(s, path, buf, sizeof buf)) return false;
    char *end = NULL;
    if (buf[0] < '0' || buf[0] > '9') return false;
    unsigned long long v = strtoull(buf, &end, 0);
    if (end == buf || (*end && *end != '\n' && *end != ' ')) return false;
    *out = v;
    return true;
}


static int card_number(const char *name) {
    if (strncmp(name, "card", 4) != 0 || !name[4]) return -1;
    int v = 0;
    for (const char *p = name + 4; *p; p++) {
        if (*p < '0' || *p > '9' || v > 100000) return -1; /* "card0-DP-1" is a connector */
        v = v * 10 + (*p - '0');
    }
    return v;
}

static bool probe_amd(const seam *s, kvp_probe_result *r) {
    char dir[512];
    snprintf(dir, sizeof dir, "%s/class/drm", s->sysfs_root);
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(r->amd_note, sizeof r->amd_note, "no AMD GPU: %s not present", dir);
        return false;
    }
    /* Cards in numeric order, independent of readdir order. */
    int cards[KVP_PROBE_MAX_DEVICES];
    size_t ncards = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int n = card_number(e->d_name);
        if (n < 0 || ncards >= KVP_PROBE_MAX_DEVICES) continue;
        size_t pos = ncards++;
        while (pos > 0 && cards[pos - 1] > n) {
            cards[pos] = cards[pos - 1];
            pos--;
        }
        cards[pos] = n;
    }
    closedir(d);
    bool found = false;
    for (size_t i = 0; i < ncards; i++) {
        char path[640];
        uint64_t total = 0, used = 0;
        snprintf(path, sizeof path, "%s/card%d/device/mem_info_vram_total", dir, cards[i]);
        if (!read_u64_file(s, path, &total) || total == 0) continue;
        snprintf(path, sizeof path, "%s/card%d/device/mem_info_vram_used", dir, cards[i]);
        bool have_used = read_u64_file(s, path, &used) && used <= total;
        kvp_probed_gpu *dev = next_device(r);
        if (!dev) break;
        dev->index = (uint32_t)cards[i];
        kvp__strlcpy(dev->info.vendor, "amd", sizeof dev->info.vendor);
        snprintf(path, sizeof path, "%s/card%d/device/product_name", dir, cards[i]);
        if (!read_line_file(s, path, dev->info.name, sizeof dev->info.name))
            snprintf(dev->info.name, sizeof dev->info.name, "AMD GPU (card%d)", cards[i]);
        dev->info.total_bytes = total;
        dev->info.driver_total_bytes = total;
        dev->used_bytes = have_used ? used : 0;
        dev->info.free_bytes = have_used ? total - used : 0;
        kvp__strlcpy(dev->info.total_basis, "sysfs", sizeof dev->info.total_basis);
        finish_device(r, dev, "sysfs");
        found = true;
    }
    if (!found) snprintf(r->amd_note, sizeof r->amd_note, "no AMD GPU with mem_info_vram_total");
    return found;
}

kvp_status kvp_probe_gpus(const kvp_probe_seam *in, kvp_probe_result *out, kvp_error *err) {
    if (!out) return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "NULL result");
    memset(out, 0, sizeof *out);
    seam s = resolve_seam(in);
    if (!probe_nvml(&s, out)) probe_cuda(&s, out);
    probe_amd(&s, out);
    if (out->device_count > 0) return KVP_OK;
    return kvp__fail(err, KVP_NO_DEVICE, NULL, NULL, "no GPU found (%s; %s)", out->nvidia_note,
                     out->amd_note);
}

kvp_status kvp_probe_device_seam(const kvp_probe_seam *seam_in, uint32_t index, kvp_gpu_info *out,
                                 kvp_error *err) {
    if (!out) return kvp__fail(err, KVP_INVALID_ARG, NULL, "device", "NULL output");
    const kvp_allocator *alc = seam_in ? seam_in->alc : NULL;
    kvp_probe_result *r = kvp__malloc(alc, sizeof *r);
    if (!r) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
    kvp_status st = kvp_probe_gpus(seam_in, r, err);
    if (st == KVP_OK && index >= r->device_count)
        st = kvp__fail(err, KVP_NOT_FOUND, NULL, "device",
                       "device %u not found: %u GPU%s found", index, r->device_count,
                       r->device_count == 1 ? "" : "s");
    if (st == KVP_OK) *out = r->devices[index].info;
    kvp__free(alc, r);
    return st;
}

kvp_status kvp_probe_device(uint32_t index, kvp_gpu_info *out, kvp_error *err) {
    return kvp_probe_device_seam(NULL, index, out, err);
}
