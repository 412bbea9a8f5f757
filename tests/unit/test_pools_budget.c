/* test_pools_budget.c — the pools of a plan add up to no more than its budget,
 * under every engine, for every catalogue model (issue 27 item 5), and pools[]
 * fields mean the same under every engine (schema_version 2): a pool's bytes
 * are blocks x page_bytes, page_bytes being one block across the layers it
 * serves.
 *
 * vLLM's KV cache groups draw on one block pool (ENGINES.md 1.6): before
 * schema_version 2 each group was reported as if it owned that pool, so the
 * pools of gemma-3-27b-it at max_model_len 8192 on an H200 held 475.8 GB of a
 * 76.7 GB budget. Walks every model of the catalogue under the four engines
 * with a few settings through kvp_json_call (the document `kvplan plan
 * --json` prints), and checks the worked gemma case by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "kvplan/kvplan.h"
#include "kvplan/json.h"
#include "kvplan/render.h"

static uint64_t u(const json_t *o, const char *key) {
    const json_t *v = json_object_get(o, key);
    if (!json_is_integer(v)) fail_msg("%s is not an integer", key);
    return (uint64_t)json_integer_value(v);
}

static json_t *plan(const char *request, kvp_status *st) {
    char *out = NULL;
    kvp_error err;
    *st = kvp_json_call("plan", request, &out, &err);
    if (*st != KVP_OK) return NULL;
    json_t *j = json_loads(out, 0, NULL);
    kvp_json_free(out);
    assert_non_null(j);
    return j;
}

/* The sum of one plan's pools against its budget; the unit of each pool. */
static void check_plan(const json_t *d, const char *engine, const char *what) {
    const json_t *pools = json_object_get(d, "pools");
    assert_true(json_is_array(pools));
    uint64_t sum = 0, padding = 0;
    size_t i;
    const json_t *p;
    json_array_foreach(pools, i, p) {
        uint64_t bytes = u(p, "bytes"), blocks = u(p, "blocks"), page = u(p, "page_bytes");
        /* One meaning under every engine: bytes = blocks x page_bytes. */
        if (bytes != blocks * page)
            fail_msg("%s: pool %zu holds %llu B, not blocks %llu x page_bytes %llu", what, i,
                     (unsigned long long)bytes, (unsigned long long)blocks,
                     (unsigned long long)page);
        /* Every engine spells the page size tokens_per_block (null for a state pool). */
        assert_non_null(json_object_get(p, "tokens_per_block"));
        /* SGLang allocates max_total_num_tokens + page_size rows (ENGINES.md 2.5,
         * [verified] on MiMo-V2-Flash): one page beyond what its budget buys. */
        if (!strcmp(engine, "sglang") && json_is_integer(json_object_get(p, "tokens_per_block")))
            padding += page;
        sum += bytes;
    }
    uint64_t budget = !strcmp(engine, "llamacpp")
                          ? u(json_object_get(d, "capacity"), "budget_bytes")
                          : u(d, "budget_bytes");
    /* llama.cpp has no KV budget: with a device it is what weights, compute and
     * runtime leave (the plan is refused when the KV does not fit); with
     * --kv-budget alone there is nothing to hold it to. */
    if (!strcmp(engine, "llamacpp") &&
        (budget == 0 || !json_is_true(json_object_get(json_object_get(d, "capacity"), "ok"))))
        return; /* ... and a KV that does not fit is the deployment refused, "ok": false */
    if (sum - padding > budget)
        fail_msg("%s: pools hold %llu B (%llu B SGLang padding pages) of a %llu B budget", what,
                 (unsigned long long)sum, (unsigned long long)padding,
                 (unsigned long long)budget);
    if (!strcmp(engine, "vllm")) {
        /* The one block pool, reported once, holds the shares. */
        const json_t *bp = json_object_get(d, "block_pool");
        assert_true(json_is_object(bp));
        assert_true(u(bp, "bytes") == u(bp, "blocks") * u(bp, "block_bytes"));
        if (sum > u(bp, "bytes") || u(bp, "bytes") > budget)
            fail_msg("%s: shares %llu B, pool %llu B, budget %llu B", what,
                     (unsigned long long)sum, (unsigned long long)u(bp, "bytes"),
                     (unsigned long long)budget);
        assert_int_equal(u(bp, "blocks"), u(json_object_get(d, "engine_report"), "num_gpu_blocks"));
    }
}

static void test_every_model_every_engine(void **state) {
    (void)state;
    static const char *const engines[] = {"vllm", "sglang", "trtllm", "llamacpp"};
    static const char *const settings[] = {
        "\"gpu\": \"h200\"",
        "\"gpu\": \"h200\", \"max_seq_len\": 8192",
        "\"gpu\": \"h100\", \"tp\": 2, \"max_seq_len\": 32768",
        "\"kv_budget\": \"20GiB\", \"max_seq_len\": 4096",
    };
    size_t planned[4] = {0}, refused = 0;
    for (size_t m = 0; m < kvp_catalog_count(); m++)
        for (size_t e = 0; e < 4; e++)
            for (size_t s = 0; s < sizeof settings / sizeof *settings; s++) {
                char req[512], what[256];
                snprintf(req, sizeof req, "{\"model\": \"%s\", \"policy\": \"%s\", %s}",
                         kvp_catalog_name(m), engines[e], settings[s]);
                snprintf(what, sizeof what, "plan %s", req);
                kvp_status st;
                json_t *d = plan(req, &st);
                if (!d) {
                    refused++; /* a start-up refusal, a model that does not fit */
                    continue;
                }
                check_plan(d, engines[e], what);
                planned[e]++;
                json_decref(d);
            }
    /* Most of the walk plans: a walk that refused everything would prove nothing. */
    print_message("planned vllm %zu sglang %zu trtllm %zu llamacpp %zu, refused %zu\n",
                  planned[0], planned[1], planned[2], planned[3], refused);
    for (size_t e = 0; e < 4; e++) assert_true(planned[e] >= kvp_catalog_count());
}

/* gemma-3-27b-it under vLLM, max_model_len 8192, H200 (estimated memory terms):
 * 62 layers, 52 sliding (window 1024) and 10 full, 16 KV heads x 128 x 2 (K, V)
 * x 2 B = 8,192 B per token per layer, a 16-token page of one layer 131,072 B.
 * group_size = min(10, 52) = 10 (52 >= 1.5 x 10): 6 sliding groups + 1 full = 7;
 * one block id costs page x group_size = 1,310,720 B (ENGINES.md 1.6). The
 * budget, 76,655,409,255 B, carries vLLM's encoder profile: 8,192 // 256 = 32
 * dummy images whose outputs, 32 x 256 x 5,376 x 2 = 88,080,384 B, stay alive
 * over the sampler (MEMORY.md 7.4; 76,743,489,639 B without them). So
 * num_gpu_blocks = floor(76,655,409,255 / 1,310,720) = 58,483 and the pool holds
 * 58,483 x 1,310,720 = 76,654,837,760 B.
 * Blocks per request: sliding min(1024 - 1 + 8192, 8192) / 16 + 1 = 513 per
 * group x 6 = 3,078; full 8192 / 16 = 512; per_req 3,590. Shares:
 * floor(58,483 x 3,078 / 3,590) = 50,142 and floor(58,483 x 512 / 3,590) =
 * 8,340 block ids (58,482 <= 58,483); full tokens 8,340 x 16 = 133,440. */
static void test_gemma3_vllm_shares(void **state) {
    (void)state;
    kvp_status st;
    json_t *d = plan("{\"model\": \"gemma-3-27b-it\", \"policy\": \"vllm\", \"gpu\": \"h200\", "
                     "\"max_model_len\": 8192}",
                     &st);
    assert_non_null(d);
    assert_int_equal(u(d, "schema_version"), 2);
    assert_int_equal(u(d, "budget_bytes"), 76655409255ull);
    const json_t *bp = json_object_get(d, "block_pool");
    assert_int_equal(u(bp, "blocks"), 58483);
    assert_int_equal(u(bp, "block_bytes"), 1310720);
    assert_int_equal(u(bp, "bytes"), 76654837760ull);
    assert_int_equal(u(bp, "kv_cache_groups"), 7);
    const json_t *pools = json_object_get(d, "pools");
    assert_int_equal(json_array_size(pools), 2);
    const json_t *sl = json_array_get(pools, 0), *fu = json_array_get(pools, 1);
    assert_string_equal(json_string_value(json_object_get(sl, "name")), "sliding");
    assert_int_equal(u(sl, "kv_cache_groups"), 6);
    assert_int_equal(u(sl, "per_request_blocks"), 3078);
    assert_int_equal(u(sl, "blocks"), 50142);
    assert_int_equal(u(sl, "bytes"), 50142ull * 1310720ull);
    assert_int_equal(u(sl, "layer_page_bytes"), 131072); /* the old page_bytes */
    assert_int_equal(u(fu, "blocks"), 8340);
    assert_int_equal(u(fu, "tokens"), 133440);
    assert_int_equal(u(fu, "page_bytes"), 1310720);
    assert_int_equal(u(fu, "tokens_per_block"), 16);
    assert_int_equal(u(fu, "block_size_tokens"), 16); /* the old name, kept */
    /* compare's "KV GiB": the pool, once. */
    assert_int_equal(u(json_object_get(d, "capacity"), "kv_bytes"), 76654837760ull);
    json_decref(d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gemma3_vllm_shares),
        cmocka_unit_test(test_every_model_every_engine),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
