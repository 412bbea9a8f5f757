/* test_units_version.c — the byte units README "Units" and kvplan(1)
 * document (80G, 80GB, 80GiB, 80Gi), counts, and the version the loaded
 * library reports against the generated header. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "kvplan/kvplan.h"

static uint64_t bytes_of(const char *text) {
    uint64_t v = 12345;
    kvp_error err;
    memset(&err, 0x5a, sizeof err);
    assert_int_equal(kvp_parse_bytes(text, &v, &err), KVP_OK);
    return v;
}

static void test_documented_byte_units(void **state) {
    (void)state;
    /* Binary: 80 * 2^30 = 80 * 1,073,741,824 = 85,899,345,920. */
    assert_int_equal(bytes_of("80GiB"), 85899345920ull);
    assert_int_equal(bytes_of("80Gi"), 85899345920ull);
    assert_int_equal(bytes_of("80G"), 85899345920ull);
    assert_int_equal(bytes_of("80 gib"), 85899345920ull);
    /* Decimal only for SI names: 80 * 10^9. */
    assert_int_equal(bytes_of("80GB"), 80000000000ull);
    /* 143,771 MiB (nvidia-smi's H100 total) = 143,771 * 1,048,576 = 150,754,820,096. */
    assert_int_equal(bytes_of("143771Mi"), 150754820096ull);
    assert_int_equal(bytes_of("143771MiB"), 150754820096ull);
    /* 1.5 * 2^30 = 1,610,612,736; 2 TiB = 2 * 2^40 = 2,199,023,255,552; 512 Ki = 524,288. */
    assert_int_equal(bytes_of("1.5GiB"), 1610612736ull);
    assert_int_equal(bytes_of("2Ti"), 2199023255552ull);
    assert_int_equal(bytes_of("512Ki"), 524288ull);
    assert_int_equal(bytes_of("4096"), 4096ull);
}

static void test_bad_units(void **state) {
    (void)state;
    uint64_t v = 7;
    kvp_error err;
    memset(&err, 0x5a, sizeof err);
    assert_int_equal(kvp_parse_bytes("80XB", &v, &err), KVP_INVALID_ARG);
    assert_non_null(strstr(err.message, "unknown unit 'xb'"));
    assert_non_null(strstr(err.message, "Gi"));
    assert_int_equal(v, 7);
    /* 2^64 bytes = 16 EiB = 16,777,216 TiB: one past the largest. */
    assert_int_equal(kvp_parse_bytes("16777216TiB", &v, &err), KVP_OVERFLOW);
}

static void test_counts(void **state) {
    (void)state;
    uint64_t v = 0;
    /* k is 1024 for counts: 32 * 1024 = 32,768; 1M = 2^20 = 1,048,576. */
    assert_int_equal(kvp_parse_count("32k", &v, NULL), KVP_OK);
    assert_int_equal(v, 32768);
    assert_int_equal(kvp_parse_count("1M", &v, NULL), KVP_OK);
    assert_int_equal(v, 1048576);
    assert_int_equal(kvp_parse_count("1.5k", &v, NULL), KVP_INVALID_ARG);
}

static void test_version(void **state) {
    (void)state;
    assert_string_equal(kvp_version(), KVP_VERSION_STRING);
    assert_int_equal(kvp_version_number(),
                     KVP_VERSION_MAJOR * 10000 + KVP_VERSION_MINOR * 100 + KVP_VERSION_PATCH);
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", KVP_VERSION_MAJOR, KVP_VERSION_MINOR, KVP_VERSION_PATCH);
    assert_string_equal(kvp_version(), want);
    assert_string_equal(KVPLAN_VERSION_STRING, KVP_VERSION_STRING);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_documented_byte_units),
        cmocka_unit_test(test_bad_units),
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_version),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
