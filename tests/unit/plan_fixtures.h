/* plan_fixtures.h — model and settings helpers shared by the creator tests
 * (test_plan_creator.c, test_plan_seed.c). Include after <cmocka.h>. */
#ifndef KVP_TEST_PLAN_FIXTURES_H
#define KVP_TEST_PLAN_FIXTURES_H

#include <stdio.h>
#include <string.h>

#include "kvplan/plan.h"

#define GiB (1024ull * 1024 * 1024)
#define MiB (1024ull * 1024)

/* A catalogue model; the caller frees it. */
static inline kvp_model *catalog(const char *name) {
    kvp_model *m = NULL;
    assert_int_equal(kvp_model_from_catalog(name, NULL, &m, NULL), KVP_OK);
    return m;
}

/* A model from config.json text; the caller frees it. */
static inline kvp_model *load(const char *json) {
    kvp_model *m = NULL;
    kvp_error err;
    kvp_status st = kvp_model_from_hf_json(json, strlen(json), "test.json", NULL, &m, &err);
    if (st) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(st, KVP_OK);
    return m;
}

/* Deployment settings at TP tp and max_seq_len, busiest stage. */
static inline kvp_deploy_settings deploy(uint32_t tp, uint64_t max_seq_len) {
    kvp_deploy_settings d;
    memset(&d, 0, sizeof d);
    d.tp = tp;
    d.max_seq_len = max_seq_len;
    d.pp_rank = -1;
    return d;
}

/* A creator configured from a known budget and built: *cap and *p filled. The caller
 * frees the creator. */
static inline kvp_creator *plan_at_budget(const kvp_model *m, const kvp_model *draft,
                                          const kvp_deploy_settings *d, const kvp_kv_config *kv,
                                          uint64_t budget_bytes, kvp_capacity *cap, kvp_plan *p) {
    kvp_creator *c = NULL;
    assert_int_equal(kvp_creator_new(m, draft, d, kv, NULL, &c, NULL), KVP_OK);
    assert_int_equal(kvp_creator_configure_budget(c, budget_bytes, cap, NULL), KVP_OK);
    assert_int_equal(kvp_creator_build(c, false, p, NULL), KVP_OK);
    return c;
}

#endif
