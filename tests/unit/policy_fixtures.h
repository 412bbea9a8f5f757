/* policy_fixtures.h — models built by hand and vLLM settings for the policy tests
 * (test_policy_engines.c, test_vllm_2026_rules.c). Include after cmocka.h. */
#ifndef KVP_TEST_POLICY_FIXTURES_H
#define KVP_TEST_POLICY_FIXTURES_H

#include <string.h>

#include "kvplan/model.h"
#include "kvplan/policy.h"
#include "model/model_internal.h"

/* One layer's cache record; `window` tokens for a sliding layer (0: none). */
static inline void add_window(kvp_model *m, uint32_t layer, kvp_cache_kind kind, uint32_t heads,
                              uint32_t k, uint32_t v, uint64_t window) {
    kvp_layer_cache c;
    memset(&c, 0, sizeof c);
    c.layer = layer;
    c.kind = kind;
    c.kv_heads = heads;
    c.k_head_dim = k;
    c.v_head_dim = v;
    c.window_tokens = window;
    c.replicated = kind == KVP_CACHE_MLA;
    assert_int_equal(kvp__model_add_cache(m, &c, NULL), KVP_OK);
}

static inline void add(kvp_model *m, uint32_t layer, kvp_cache_kind kind, uint32_t heads,
                       uint32_t k, uint32_t v) {
    add_window(m, layer, kind, heads, k, v, 0);
}

/* Llama-3.1-8B geometry: 32 layers of 8 KV heads x 128, bf16, 131072 context. */
static inline kvp_model *llama8b(void) {
    kvp_model *m = kvp__model_new(NULL, "llama8b");
    kvp_model_info *i = kvp__model_info(m);
    i->num_layers = 32;
    i->max_position_embeddings = 131072;
    i->head_dim = 128;
    i->dtype = KVP_DTYPE_BF16;
    strcpy(i->model_type, "llama");
    for (uint32_t l = 0; l < 32; l++) add(m, l, KVP_CACHE_FULL, 8, 128, 128);
    return m;
}

static inline kvp_policy_settings vllm(const char *version, uint64_t budget) {
    kvp_policy_settings s = kvp_policy_settings_default();
    s.engine = KVP_ENGINE_VLLM;
    strcpy(s.engine_version, version);
    s.kv_budget_bytes = budget;
    return s;
}

#endif
