/* test_gpu_catalog.c — the embedded GPU catalogue: lookups, aliases, family
 * defaults, the basis of each total, and the not-found message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kvplan/gpu.h"

#define MIB (1ull << 20)

static kvp_gpu_info lookup_ok(const char *name) {
    kvp_gpu_info g;
    kvp_error err;
    memset(&g, 0xA5, sizeof g); /* poisoned: every field must be written */
    assert_int_equal(kvp_gpu_lookup(name, &g, &err), KVP_OK);
    return g;
}

static void test_h100_aliases(void **state) {
    (void)state;
    const char *names[] = {"h100", "H100", "h100-80gb", "H100 80GB HBM3", "NVIDIA H100 80GB HBM3",
                           "h100_sxm", "H100 SXM 80GB"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        kvp_gpu_info g = lookup_ok(names[i]);
        assert_string_equal(g.name, "H100 SXM 80GB");
        assert_string_equal(g.vendor, "nvidia");
        /* cuda_total "79.33GiB" = floor(79.33 * 2^30) = 85,179,938,897.92 -> 85,179,938,897 */
        assert_int_equal(g.total_bytes, 85179938897ull);
        assert_string_equal(g.total_basis, "cuda");
        /* nvidia-smi Total 81559 MiB = 85,520,809,984 B */
        assert_int_equal(g.driver_total_bytes, 81559ull * MIB);
        assert_int_equal(g.free_bytes, 0);
        /* 3350 GB/s */
        assert_int_equal(g.bandwidth_bytes_per_s, 3350000000000ull);
        assert_non_null(strstr(g.source, "vllm-33"));
    }
}

static void test_family_defaults(void **state) {
    (void)state;
    assert_string_equal(lookup_ok("a100").name, "A100 SXM 80GB");
    assert_string_equal(lookup_ok("a100-40gb").name, "A100 SXM 40GB");
    assert_string_equal(lookup_ok("h100-pcie").name, "H100 PCIe 80GB");
    assert_string_equal(lookup_ok("H100 NVL").name, "H100 NVL 94GB");
    assert_string_equal(lookup_ok("gh200").name, "GH200 96GB");
    assert_string_equal(lookup_ok("NVIDIA GeForce RTX 4090").name, "RTX 4090 24GB");
    assert_string_equal(lookup_ok("AMD Instinct MI300X").name, "MI300X 192GB");
}

static void test_nvml_basis(void **state) {
    (void)state;
    kvp_gpu_info g = lookup_ok("h200");
    /* no CUDA figure in the catalogue: NVML total 143771 MiB = 150,755,213,312 B */
    assert_string_equal(g.total_basis, "nvml");
    assert_int_equal(g.total_bytes, 143771ull * MIB);
    assert_int_equal(g.total_bytes, g.driver_total_bytes);
    g = lookup_ok("rtx 3090");
    /* 23.58 GiB = floor(23.58 * 2^30) = 25,318,832,209 B */
    assert_string_equal(g.total_basis, "cuda");
    assert_true(g.total_bytes < g.driver_total_bytes); /* 23.58 GiB < 24576 MiB = 24 GiB */
    assert_int_equal(g.total_bytes / MIB, 24145); /* 23.58 * 1024 = 24145.92 MiB */
}

static void test_derived_basis(void **state) {
    (void)state;
    kvp_gpu_info g = lookup_ok("mi325x");
    assert_string_equal(g.total_basis, "derived");
    assert_int_equal(g.driver_total_bytes, 0);
    /* 255.98 GiB = 262,123.52 MiB */
    assert_int_equal(g.total_bytes / MIB, 262123);
}

static void test_required_parts_present(void **state) {
    (void)state;
    const char *parts[] = {"a100-40gb", "a100-80gb", "h100", "h100-pcie", "h100-nvl", "h200",
                           "h20",       "b200",      "b300", "gb200",     "gb300",    "gh200",
                           "l4",        "l40s",      "a10g", "rtx3090",   "rtx4090",  "rtx5090",
                           "rtx6000ada", "mi300x",   "mi325x", "mi355x"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        kvp_gpu_info g = lookup_ok(parts[i]);
        assert_true(g.total_bytes > 16ull * 1024 * MIB);
        assert_true(g.bandwidth_bytes_per_s >= 300000000000ull);
        assert_true(g.source[0] != '\0');
    }
}

static void test_enumeration(void **state) {
    (void)state;
    size_t n = kvp_gpu_catalog_count();
    assert_true(n >= 22);
    for (size_t i = 0; i < n; i++) {
        kvp_gpu_info g;
        assert_int_equal(kvp_gpu_catalog_entry(i, &g), KVP_OK);
        /* every canonical name finds itself */
        kvp_gpu_info h = lookup_ok(g.name);
        assert_string_equal(h.name, g.name);
        assert_int_equal(h.total_bytes, g.total_bytes);
    }
    kvp_gpu_info g;
    assert_int_equal(kvp_gpu_catalog_entry(n, &g), KVP_INVALID_ARG);
}

static void test_not_found(void **state) {
    (void)state;
    kvp_gpu_info g;
    kvp_error err;
    memset(&err, 0x5A, sizeof err);
    assert_int_equal(kvp_gpu_lookup("h1000", &g, &err), KVP_NOT_FOUND);
    assert_int_equal(err.code, KVP_NOT_FOUND);
    assert_string_equal(err.key, "h1000");
    assert_non_null(strstr(err.message, "unknown GPU 'h1000'"));
    /* "h1000" is one edit from "h100" (an alias of H100 SXM 80GB) */
    assert_non_null(strstr(err.message, "closest: H100 SXM 80GB"));
    assert_int_equal(kvp_gpu_lookup("", &g, &err), KVP_INVALID_ARG);
    assert_int_equal(kvp_gpu_lookup(NULL, &g, NULL), KVP_INVALID_ARG);
    assert_int_equal(kvp_gpu_lookup("tpu-v5", &g, NULL), KVP_NOT_FOUND);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_h100_aliases),   cmocka_unit_test(test_family_defaults),
        cmocka_unit_test(test_nvml_basis),     cmocka_unit_test(test_derived_basis),
        cmocka_unit_test(test_required_parts_present), cmocka_unit_test(test_enumeration),
        cmocka_unit_test(test_not_found),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
