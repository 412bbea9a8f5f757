/* test_abi_sizes.c — issue 27 item 7, the ABI policy (docs/ARCHITECTURE.md):
 * the large public structs a caller declares itself end with
 * reserved_[KVP_RESERVED_WORDS], and their sizes are pinned, so a field added
 * or moved by accident (a size change that would break code built against the
 * 1.0 headers) fails here. A field added on purpose takes words from reserved_
 * (size unchanged, this test unchanged); anything else is an ABI break: bump the
 * major version and update these sizes with CHANGELOG.md.
 *
 * The sizes are the LP64 data model's (x86_64, aarch64 Linux: 8-byte pointers,
 * size_t and uint64_t); on another data model the test fails, asking for that
 * model's sizes, rather than skipping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kvplan/kvplan.h"

/* The structs with reserved room and their LP64 sizes in 1.0.0. kvp_deployment
 * holds a kvp_policy_settings and a kvp_startup_settings (itself holding a
 * kvp_policy_settings and a kvp_gpu_info): 7,112 B before the room, + its own
 * 64 + 4 x 64 nested = 7,432. */
#define ABI_STRUCTS(X)                                                                    \
    X(kvp_cost_settings, 104) X(kvp_cost, 3456) X(kvp_estimate_settings, 456)             \
    X(kvp_policy_settings, 536) X(kvp_policy_result, 4496) X(kvp_startup_settings, 5928)  \
    X(kvp_startup_report, 49800) X(kvp_deployment, 7432) X(kvp_memory_facts, 3776)       \
    X(kvp_fit_request, 192) X(kvp_fit_answer, 33408) X(kvp_sim_result, 1032)              \
    X(kvp_plan, 4288) X(kvp_probe_result, 16232) X(kvp_sim_config, 1504)                 \
    X(kvp_pool_config, 1392) X(kvp_gpu_info, 592)

_Static_assert(KVP_RESERVED_WORDS == 8, "the reserved room is 8 words (64 bytes)");
/* reserved_ is the last member: its end is the struct's end. */
#define RESERVED_LAST(T, size)                                                            \
    _Static_assert(offsetof(T, reserved_) + sizeof(((T *)0)->reserved_) == sizeof(T),    \
                   #T ": reserved_ is not the last member");
ABI_STRUCTS(RESERVED_LAST)

static void test_sizes_pinned(void **state) {
    (void)state;
#if defined(__LP64__) && __LP64__
#define ROW(T, size) {#T, sizeof(T), size},
    static const struct { const char *name; size_t size, pinned; } k_sizes[] = {ABI_STRUCTS(ROW)};
#undef ROW
    for (size_t i = 0; i < sizeof k_sizes / sizeof k_sizes[0]; i++)
        if (k_sizes[i].size != k_sizes[i].pinned)
            fail_msg("sizeof(%s) is %zu, pinned %zu: an ABI change", k_sizes[i].name,
                     k_sizes[i].size, k_sizes[i].pinned);
#else
    fail_msg("the pinned struct sizes are LP64's; add this data model's sizes");
#endif
}

/* A struct whose new fields took words from its room has fewer left: count
 * what is there. */
static int all_zero_n(const uint64_t *w, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (w[i]) return 0;
    return 1;
}
#define all_zero(room) all_zero_n((room), sizeof(room) / sizeof((room)[0]))

/* The defaults leave the reserved words zero, nested structs included, so a
 * field a later release puts there reads 0 ("not given") from code built now. */
static void test_defaults_zero_reserved(void **state) {
    (void)state;
    kvp_cost_settings c = kvp_cost_settings_default();
    assert_true(all_zero(c.reserved_));
    kvp_policy_settings p = kvp_policy_settings_default();
    assert_true(all_zero(p.reserved_));
    kvp_startup_settings s = kvp_startup_settings_default();
    assert_true(all_zero(s.reserved_));
    assert_true(all_zero(s.policy.reserved_));
    kvp_deployment d = kvp_deployment_default();
    assert_true(all_zero(d.reserved_));
    assert_true(all_zero(d.policy.reserved_));
    assert_true(all_zero(d.startup.reserved_));
    assert_true(all_zero(d.startup.policy.reserved_));
    assert_true(all_zero(d.startup.gpu.reserved_));
    /* A result the library fills: the catalogue's H100 comes back with zero room. */
    kvp_gpu_info g;
    memset(&g, 0xff, sizeof g);
    kvp_error err;
    assert_int_equal(kvp_gpu_lookup("H100", &g, &err), KVP_OK);
    assert_true(all_zero(g.reserved_));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes_pinned),
        cmocka_unit_test(test_defaults_zero_reserved),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
