/* test_probe_fakes.c — the GPU probe's parsing and error paths through fakes
 * behind kvp_probe_seam: no library, NVML (v2 and v1 memory info, processes),
 * NVML failing with a CUDA-driver fallback, AMD sysfs trees. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "kvplan/kvplan.h"

#define MIB (1ull << 20)

/* ------------------------------------------------------------ fake libraries */

typedef struct fake_state {
    bool have_nvml, have_cuda;
    int nvml_init_rc;
    bool nvml_v2;
    unsigned nvml_count;
    bool cuda_no_device;
} fake_state;

/* The fakes are plain functions, so they need file-level state; each test
 * sets it first (tests in this file run one after another). */
static fake_state g_fake;
static char g_sysfs[256];

static void *fake_dlopen(const char *file, int flags) {
    (void)flags;
    if (!strcmp(file, "libnvidia-ml.so.1") && g_fake.have_nvml) return (void *)&g_fake.have_nvml;
    if (!strcmp(file, "libcuda.so.1") && g_fake.have_cuda) return (void *)&g_fake.have_cuda;
    return NULL;
}
static int fake_dlclose(void *h) {
    (void)h;
    return 0;
}

typedef struct mem_v1 {
    unsigned long long total, free, used;
} mem_v1;
typedef struct mem_v2 {
    unsigned int version;
    unsigned long long total, reserved, free, used;
} mem_v2;
typedef struct proc_v3 {
    unsigned int pid;
    unsigned long long used;
    unsigned int gi, ci;
} proc_v3;

static int nvml_init(void) { return g_fake.nvml_init_rc; }
static int nvml_shutdown(void) { return 0; }
static const char *nvml_errstr(int rc) { return rc == 9 ? "Driver Not Loaded" : "Unknown Error"; }
static int nvml_drv(char *buf, unsigned n) {
    snprintf(buf, n, "580.159.03");
    return 0;
}
static int nvml_count(unsigned *n) {
    *n = g_fake.nvml_count;
    return 0;
}
static int nvml_handle(unsigned i, void **h) {
    *h = (void *)(uintptr_t)(i + 1);
    return 0;
}
static int nvml_name(void *h, char *buf, unsigned n) {
    snprintf(buf, n, "%s", (uintptr_t)h == 1 ? "NVIDIA H100 80GB HBM3" : "NVIDIA H200");
    return 0;
}
/* H100: 81559 MiB total, 329 MiB reserved, 1000 MiB used.
 * H200: 143771 MiB total, 0 reserved reported, 0 used. */
static int nvml_mem1(void *h, void *out) {
    mem_v1 *m = out;
    m->total = (uintptr_t)h == 1 ? 81559 * MIB : 143771 * MIB;
    m->used = (uintptr_t)h == 1 ? 1329 * MIB : 0;
    m->free = m->total - m->used;
    return 0;
}
static int nvml_mem2(void *h, void *out) {
    mem_v2 *m = out;
    if (m->version != ((unsigned)sizeof(mem_v2) | 2u << 24)) return 3; /* wrong version */
    m->total = (uintptr_t)h == 1 ? 81559 * MIB : 143771 * MIB;
    m->reserved = (uintptr_t)h == 1 ? 329 * MIB : 0;
    m->used = (uintptr_t)h == 1 ? 1000 * MIB : 0;
    m->free = m->total - m->reserved - m->used;
    return 0;
}
static int nvml_procs(void *h, unsigned *count, proc_v3 *list) {
    if ((uintptr_t)h != 1) {
        *count = 0;
        return 0;
    }
    if (*count < 2) {
        *count = 2;
        return 7;
    }
    *count = 2;
    list[0] = (proc_v3){4242, 600 * MIB, 0, 0};
    list[1] = (proc_v3){4343, ~0ull, 0, 0}; /* not available */
    return 0;
}

static int cu_init(unsigned f) {
    (void)f;
    return g_fake.cuda_no_device ? 100 : 0;
}
static int cu_count(int *n) {
    *n = 1;
    return 0;
}
static int cu_get(int *d, int i) {
    *d = i;
    return 0;
}
static int cu_name(char *buf, int n, int d) {
    (void)d;
    snprintf(buf, (size_t)n, "NVIDIA H200");
    return 0;
}
static int cu_retain(void **ctx, int d) {
    (void)d;
    *ctx = (void *)&g_fake;
    return 0;
}
static int cu_setcur(void *ctx) {
    (void)ctx;
    return 0;
}
/* cuMemGetInfo: 140 GiB total, 139 GiB free */
static int cu_meminfo(size_t *free_b, size_t *total_b) {
    *total_b = (size_t)140 << 30;
    *free_b = (size_t)139 << 30;
    return 0;
}
static int cu_release(int d) {
    (void)d;
    return 0;
}

typedef struct sym {
    const char *name;
    void (*fn)(void);
} sym;

#define S(n, f) {n, (void (*)(void))(f)}
static const sym k_syms[] = {
    S("nvmlInit_v2", nvml_init),
    S("nvmlShutdown", nvml_shutdown),
    S("nvmlErrorString", nvml_errstr),
    S("nvmlSystemGetDriverVersion", nvml_drv),
    S("nvmlDeviceGetCount_v2", nvml_count),
    S("nvmlDeviceGetHandleByIndex_v2", nvml_handle),
    S("nvmlDeviceGetName", nvml_name),
    S("nvmlDeviceGetMemoryInfo", nvml_mem1),
    S("nvmlDeviceGetMemoryInfo_v2", nvml_mem2),
    S("nvmlDeviceGetComputeRunningProcesses_v3", nvml_procs),
    S("cuInit", cu_init),
    S("cuDeviceGetCount", cu_count),
    S("cuDeviceGet", cu_get),
    S("cuDeviceGetName", cu_name),
    S("cuDevicePrimaryCtxRetain", cu_retain),
    S("cuCtxSetCurrent", cu_setcur),
    S("cuMemGetInfo_v2", cu_meminfo),
    S("cuDevicePrimaryCtxRelease_v2", cu_release),
};

static void *fake_dlsym(void *lib, const char *name) {
    (void)lib;
    if (!g_fake.nvml_v2 && !strcmp(name, "nvmlDeviceGetMemoryInfo_v2")) return NULL;
    for (size_t i = 0; i < sizeof k_syms / sizeof k_syms[0]; i++) {
        if (strcmp(k_syms[i].name, name) != 0) continue;
        void *p;
        memcpy(&p, &k_syms[i].fn, sizeof p);
        return p;
    }
    return NULL;
}

static kvp_probe_seam fake_seam(void) {
    kvp_probe_seam s = {fake_dlopen, fake_dlsym, fake_dlclose, g_sysfs, NULL};
    return s;
}

/* ------------------------------------------------------------ sysfs tree */

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void mkdirs(const char *path) {
    char buf[512];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        mkdir(buf, 0700);
        *p = '/';
    }
    mkdir(buf, 0700);
}

static int setup(void **state) {
    (void)state;
    memset(&g_fake, 0, sizeof g_fake);
    snprintf(g_sysfs, sizeof g_sysfs, "%s/kvp_probe_XXXXXX", P_tmpdir);
    assert_non_null(mkdtemp(g_sysfs));
    return 0;
}

static int teardown(void **state) {
    (void)state;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_sysfs);
    assert_int_equal(system(cmd), 0);
    return 0;
}

/* ------------------------------------------------------------ tests */

static void test_no_driver_is_a_clear_outcome(void **state) {
    (void)state;
    kvp_probe_seam s = fake_seam();
    kvp_probe_result r;
    kvp_error err;
    memset(&err, 0x5A, sizeof err);
    assert_int_equal(kvp_probe_gpus(&s, &r, &err), KVP_NO_DEVICE);
    assert_int_equal(r.device_count, 0);
    assert_string_equal(r.nvidia_note, "no NVIDIA driver: libnvidia-ml.so.1 not found");
    assert_non_null(strstr(err.message, "no NVIDIA driver: libnvidia-ml.so.1 not found"));
    assert_non_null(strstr(r.amd_note, "class/drm not present"));
    kvp_gpu_info g;
    assert_int_equal(kvp_probe_device_seam(&s, 0, &g, &err), KVP_NO_DEVICE);
}

static void test_nvml_v2_two_devices(void **state) {
    (void)state;
    g_fake.have_nvml = true;
    g_fake.nvml_v2 = true;
    g_fake.nvml_count = 2;
    kvp_probe_seam s = fake_seam();
    kvp_probe_result r;
    kvp_error err;
    assert_int_equal(kvp_probe_gpus(&s, &r, &err), KVP_OK);
    assert_int_equal(r.device_count, 2);
    assert_string_equal(r.driver_version, "580.159.03");
    const kvp_probed_gpu *h100 = &r.devices[0];
    assert_string_equal(h100->backend, "nvml");
    assert_string_equal(h100->info.name, "NVIDIA H100 80GB HBM3");
    assert_string_equal(h100->catalog_name, "H100 SXM 80GB");
    /* total as CUDA sees it: 81559 - 329 = 81230 MiB */
    assert_int_equal(h100->info.total_bytes, 81230 * MIB);
    assert_int_equal(h100->info.driver_total_bytes, 81559 * MIB);
    assert_int_equal(h100->reserved_bytes, 329 * MIB);
    /* free = 81559 - 329 - 1000 = 80230 MiB */
    assert_int_equal(h100->info.free_bytes, 80230 * MIB);
    assert_int_equal(h100->info.bandwidth_bytes_per_s, 3350000000000ull);
    assert_string_equal(h100->info.total_basis, "nvml-v2");
    assert_int_equal(h100->process_count, 2);
    assert_int_equal(h100->processes[0].pid, 4242);
    assert_int_equal(h100->processes[0].used_bytes, 600 * MIB);
    assert_int_equal(h100->processes[1].used_bytes, 0); /* NVML: value not available */
    assert_string_equal(r.devices[1].catalog_name, "H200 141GB");
    assert_int_equal(r.devices[1].process_count, 0);

    kvp_gpu_info g;
    assert_int_equal(kvp_probe_device_seam(&s, 1, &g, &err), KVP_OK);
    assert_int_equal(g.total_bytes, 143771 * MIB);
    assert_int_equal(g.free_bytes, 143771 * MIB);
    memset(&err, 0x5A, sizeof err);
    assert_int_equal(kvp_probe_device_seam(&s, 2, &g, &err), KVP_NOT_FOUND);
    assert_string_equal(err.key, "device");
    assert_non_null(strstr(err.message, "device 2 not found: 2 GPUs found"));
}

static void test_nvml_v1_memory(void **state) {
    (void)state;
    g_fake.have_nvml = true;
    g_fake.nvml_v2 = false;
    g_fake.nvml_count = 1;
    kvp_probe_seam s = fake_seam();
    kvp_probe_result r;
    assert_int_equal(kvp_probe_gpus(&s, &r, NULL), KVP_OK);
    assert_int_equal(r.device_count, 1);
    /* v1: total is NVML's total; used includes what v2 calls reserved */
    assert_int_equal(r.devices[0].info.total_bytes, 81559 * MIB);
    assert_int_equal(r.devices[0].info.free_bytes, (81559 - 1329) * MIB);
    assert_string_equal(r.devices[0].info.total_basis, "nvml");
}

static void test_nvml_fails_cuda_fallback(void **state) {
    (void)state;
    g_fake.have_nvml = true;
    g_fake.nvml_init_rc = 9;
    g_fake.have_cuda = true;
    kvp_probe_seam s = fake_seam();
    kvp_probe_result r;
    assert_int_equal(kvp_probe_gpus(&s, &r, NULL), KVP_OK);
    assert_string_equal(r.nvidia_note, "NVML could not start: Driver Not Loaded (code 9)");
    assert_int_equal(r.device_count, 1);
    assert_string_equal(r.devices[0].backend, "cuda");
    assert_int_equal(r.devices[0].info.total_bytes, 140ull << 30);
    assert_int_equal(r.devices[0].info.free_bytes, 139ull << 30);
    assert_int_equal(r.devices[0].used_bytes, 1ull << 30);
    assert_int_equal(r.devices[0].process_count, -1);
}

static void test_cuda_without_device(void **state) {
    (void)state;
    g_fake.have_cuda = true;
    g_fake.cuda_no_device = true;
    kvp_probe_seam s = fake_seam();
    kvp_probe_result r;
    kvp_error err;
    assert_int_equal(kvp_probe_gpus(&s, &r, &err), KVP_NO_DEVICE);
    assert_non_null(strstr(r.nvidia_note, "libcuda.so.1: no CUDA device (CUresult 100)"));
}

static void test_amd_sysfs(void **state) {
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/class/drm/card1/device", g_sysfs);
    mkdirs(path);
    snprintf(path, sizeof path, "%s/class/drm/card1/device/mem_info_vram_total", g_sysfs);
    write_file(path, "206141652992\n"); /* 191.98 GiB */
    snprintf(path, sizeof path, "%s/class/drm/card1/device/mem_info_vram_used", g_sysfs);
    write_file(path, "1073741824\n");
    snprintf(path, sizeof path, "%s/class/drm/card1/device/product_name", g_sysfs);
    write_file(path, "AMD Instinct MI300X\n");
    /* card0: an integrated GPU without VRAM files; a connector entry; a bad value */
    snprintf(path, sizeof path, "%s/class/drm/card0/device", g_sysfs);
    mkdirs(path);
    snprintf(path, sizeof path, "%s/class/drm/card0-DP-1", g_sysfs);
    mkdirs(path);
    snprintf(path, sizeof path, "%s/class/drm/card2/device", g_sysfs);
    mkdirs(path);
    snprintf(path, sizeof path, "%s/class/drm/card2/device/mem_info_vram_total", g_sysfs);
    write_file(path, "lots\n");
    kvp_probe_seam s = fake_seam();
    kvp_probe_result r;
    assert_int_equal(kvp_probe_gpus(&s, &r, NULL), KVP_OK);
    assert_int_equal(r.device_count, 1);
    const kvp_probed_gpu *d = &r.devices[0];
    assert_int_equal(d->index, 1);
    assert_string_equal(d->backend, "sysfs");
    assert_string_equal(d->info.vendor, "amd");
    assert_string_equal(d->info.name, "AMD Instinct MI300X");
    assert_string_equal(d->catalog_name, "MI300X 192GB");
    assert_int_equal(d->info.total_bytes, 206141652992ull);
    assert_int_equal(d->info.free_bytes, 206141652992ull - 1073741824ull);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_no_driver_is_a_clear_outcome, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nvml_v2_two_devices, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nvml_v1_memory, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nvml_fails_cuda_fallback, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cuda_without_device, setup, teardown),
        cmocka_unit_test_setup_teardown(test_amd_sysfs, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
