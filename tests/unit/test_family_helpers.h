/* test_family_helpers.h — what the family tests (test_families_current.c,
 * test_family_matrix.c) share: a catalogue model and its cost at one TP size
 * and KV dtype, failing the test on any error. Include after <cmocka.h> and
 * "kvplan/kvplan.h". */
#ifndef KVP_TEST_FAMILY_HELPERS_H
#define KVP_TEST_FAMILY_HELPERS_H

/* The catalogue model `name`; the caller frees it (kvp_model_free). */
static inline kvp_model *family_catalog(const char *name) {
    kvp_model *m = NULL;
    kvp_error err;
    if (kvp_model_from_catalog(name, NULL, &m, &err) != KVP_OK) fail_msg("%s: %s", name, err.message);
    return m;
}

static inline kvp_cost family_cost(const kvp_model *m, uint32_t tp, kvp_dtype dt) {
    kvp_cost_settings s = kvp_cost_settings_default();
    s.tp = tp;
    s.kv_dtype = dt;
    kvp_cost c;
    kvp_error err;
    if (kvp_cost_compute(m, &s, &c, &err) != KVP_OK) fail_msg("cost: %s", err.message);
    return c;
}

#endif
