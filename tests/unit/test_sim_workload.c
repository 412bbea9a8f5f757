/* test_sim_workload.c — the JSON-lines reader (errors with their line, key
 * and what was expected), the --synthetic spec parser, the generator's
 * determinism and distributions, and the golden workload file worked by
 * hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "kvplan/sim.h"

static kvp_status parse(const char *text, kvp_workload **w, kvp_error *err) {
    memset(err, 0x5a, sizeof *err); /* poisoned: every field must be written */
    *w = NULL;
    return kvp_workload_parse(text, strlen(text), "w.jsonl", NULL, NULL, w, err);
}

/* Each bad line: the status, the line number, the key and a phrase. */
static void expect_error(const char *text, kvp_status code, int line, const char *key,
                         const char *phrase) {
    kvp_workload *w;
    kvp_error err;
    assert_int_equal(parse(text, &w, &err), code);
    assert_null(w);
    assert_int_equal(err.code, code);
    assert_int_equal(err.line, line);
    assert_string_equal(err.key, key);
    assert_string_equal(err.file, "w.jsonl");
    if (!strstr(err.message, phrase)) fail_msg("'%s' lacks '%s'", err.message, phrase);
    char want[32];
    snprintf(want, sizeof want, "line %d", line);
    assert_non_null(strstr(err.message, want));
}

static void test_reader_errors(void **state) {
    (void)state;
    const char *ok = "{\"prompt_len\": 10, \"output_len\": 2}\n";
    char buf[512];
    /* Negative and missing lengths, on line 2 after a good line 1. */
    snprintf(buf, sizeof buf, "%s{\"prompt_len\": 10, \"output_len\": -3}\n", ok);
    expect_error(buf, KVP_CONFIG, 2, "/output_len", "found -3");
    snprintf(buf, sizeof buf, "%s{\"prompt_len\": 10}\n", ok);
    expect_error(buf, KVP_CONFIG, 2, "/output_len", "missing");
    expect_error("{\"output_len\": 4}", KVP_CONFIG, 1, "/prompt_len", "missing");
    expect_error("{\"prompt_len\": \"ten\", \"output_len\": 4}", KVP_CONFIG, 1, "/prompt_len",
                 "found a string");
    expect_error("{\"prompt_len\": 0, \"output_len\": 4}", KVP_CONFIG, 1, "/prompt_len",
                 "found 0");
    expect_error("{\"prompt_len\": 99999999999, \"output_len\": 4}", KVP_CONFIG, 1, "/prompt_len",
                 "16777216");
    /* A blank line still counts: the bad object is on line 3. */
    snprintf(buf, sizeof buf, "%s\n{\"prompt_len\": 10, \"output_len\": 2\n", ok);
    expect_error(buf, KVP_SYNTAX, 3, "", "column");
    expect_error("[1, 2]", KVP_CONFIG, 1, "", "expected a JSON object");
    /* One prefix id with two lengths. */
    snprintf(buf, sizeof buf,
             "{\"prompt_len\": 100, \"output_len\": 2, \"prefix_id\": \"a\", \"prefix_len\": 64}\n"
             "{\"prompt_len\": 100, \"output_len\": 2, \"prefix_id\": \"b\", \"prefix_len\": 32}\n"
             "{\"prompt_len\": 100, \"output_len\": 2, \"prefix_id\": \"a\", \"prefix_len\": 50}\n");
    expect_error(buf, KVP_CONFIG, 3, "/prefix_len", "given prefix_len 64 before, now 50");
    expect_error("{\"prompt_len\": 10, \"output_len\": 2, \"prefix_id\": 7, \"prefix_len\": 11}",
                 KVP_CONFIG, 1, "/prefix_len", "longer than the prompt");
    expect_error("{\"prompt_len\": 10, \"output_len\": 2, \"prefix_id\": 7}", KVP_CONFIG, 1,
                 "/prefix_len", "first time");
    expect_error("{\"prompt_len\": 10, \"output_len\": 2, \"prefix_len\": 4}", KVP_CONFIG, 1,
                 "/prefix_len", "without a prefix_id");
    expect_error("{\"prompt_len\": 10, \"output_len\": 2, \"prefix_id\": [1]}", KVP_CONFIG, 1,
                 "/prefix_id", "string or an integer");
    expect_error("{\"prompt_tokens\": [1, -2], \"output_len\": 2}", KVP_CONFIG, 1,
                 "/prompt_tokens", "element 1");
    expect_error("{\"prompt_len\": 3, \"prompt_tokens\": [1, 2], \"output_len\": 2}", KVP_CONFIG, 1,
                 "/prompt_len", "disagrees");
    expect_error("{\"arrival\": -1, \"prompt_len\": 3, \"output_len\": 2}", KVP_CONFIG, 1,
                 "/arrival", "from 0");
    expect_error("{\"arrival\": 1.5, \"prompt_len\": 3, \"output_len\": 2}", KVP_CONFIG, 1,
                 "/arrival", "whole number");
    /* An empty workload is an error, not an empty simulation. */
    kvp_workload *w;
    kvp_error err;
    assert_int_equal(parse("\n\n", &w, &err), KVP_CONFIG);
    assert_non_null(strstr(err.message, "no requests"));
    /* A file that does not exist. */
    assert_int_equal(kvp_workload_read("/nonexistent/w.jsonl", NULL, NULL, &w, &err), KVP_IO);
}

static void test_reader_values(void **state) {
    (void)state;
    const char *text =
        "{\"arrival\": 7, \"prompt_len\": 100, \"output_len\": 5, \"prefix_id\": 1, "
        "\"prefix_len\": 40, \"x\": 1}\r\n"
        "{\"arrival\": 3, \"prompt_tokens\": [5, 6, 7], \"output_len\": 2, \"x\": 2, \"y\": 3}\n"
        "{\"arrival\": 7, \"prompt_len\": 50, \"output_len\": 1, \"prefix_id\": 1}\n";
    kvp_workload *w;
    kvp_error err;
    assert_int_equal(parse(text, &w, &err), KVP_OK);
    assert_int_equal(kvp_workload_count(w), 3);
    /* Sorted by arrival, file order among equals: lines 2, 1, 3. */
    kvp_request ra, rb, rc;
    assert_true(kvp_workload_get(w, 0, &ra));
    assert_true(kvp_workload_get(w, 1, &rb));
    assert_true(kvp_workload_get(w, 2, &rc));
    assert_false(kvp_workload_get(w, 3, &rc));
    const kvp_request *a = &ra, *b = &rb, *c = &rc;
    assert_int_equal(a->line, 2);
    assert_int_equal(a->arrival_step, 3);
    assert_int_equal(a->prompt_tokens, 3);
    assert_int_equal(a->explicit_tokens, 3);
    assert_int_equal(kvp_workload_token(w, a, 2), 7);
    assert_int_equal(kvp_workload_token(w, a, 3), 0); /* past the explicit ids */
    assert_int_equal(b->line, 1);
    assert_int_equal(b->prefix_index, 1);
    assert_int_equal(b->explicit_tokens, 40);
    assert_int_equal(c->line, 3);
    assert_int_equal(c->prefix_index, 1); /* same prefix, its length remembered */
    assert_int_equal(c->explicit_tokens, 40);
    /* One prefix, one range of ids: the same at every position, stored nowhere. */
    for (uint32_t i = 0; i < 40; i++)
        assert_int_equal(kvp_workload_token(w, b, i), kvp_workload_token(w, c, i));
    assert_int_not_equal(kvp_workload_token(w, b, 0), kvp_workload_token(w, b, 1));
    /* Unknown keys: "x" once (lines 1 and 2), "y" once. */
    assert_int_equal(kvp_workload_warning_count(w), 2);
    assert_non_null(strstr(kvp_workload_warning(w, 0), "line 1: unknown key \"x\""));
    assert_non_null(strstr(kvp_workload_warning(w, 1), "\"y\""));
    kvp_workload_free(w);
    /* Seconds: 0.5 s at 0.02 s per step = step 25. */
    kvp_workload_options opt = {KVP_ARRIVAL_SECONDS, 0.02};
    const char *t2 = "{\"arrival\": 0.5, \"prompt_len\": 3, \"output_len\": 2}";
    assert_int_equal(kvp_workload_parse(t2, strlen(t2), "s", &opt, NULL, &w, NULL), KVP_OK);
    assert_true(kvp_workload_get(w, 0, &ra));
    assert_int_equal(ra.arrival_step, 25);
    kvp_workload_free(w);
    kvp_workload_free(NULL);
}

static void test_synthetic_spec(void **state) {
    (void)state;
    kvp_synthetic_spec s;
    kvp_error err;
    assert_int_equal(kvp_synthetic_parse("requests=100000,prompt=lognormal:1000:0.8,output="
                                         "lognormal:200:0.5,shared_prefix=512:0.3,seed=7",
                                         &s, &err),
                     KVP_OK);
    assert_int_equal(s.requests, 100000);
    assert_int_equal(s.prompt.kind, KVP_DIST_LOGNORMAL);
    assert_true(s.prompt.a == 1000 && s.prompt.b == 0.8);
    assert_int_equal(s.output.kind, KVP_DIST_LOGNORMAL);
    assert_int_equal(s.shared_prefix_tokens, 512);
    assert_true(s.shared_fraction == 0.3);
    assert_int_equal(s.seed, 7);
    assert_int_equal(s.prefixes, 1);
    assert_int_equal(kvp_synthetic_parse("prompt=fixed:5,output=uniform:1:9,rate=0.5,prefixes=3",
                                         &s, &err),
                     KVP_OK);
    assert_int_equal(s.requests, 1000); /* default */
    assert_int_equal(s.output.kind, KVP_DIST_UNIFORM);
    assert_int_equal(s.prefixes, 3);
    struct {
        const char *spec, *key, *phrase;
    } bad[] = {
        {"prompt=fixed:5", "output", "missing"},
        {"output=fixed:5", "prompt", "missing"},
        {"prompt=gauss:5:1,output=fixed:1", "prompt", "not a length distribution"},
        {"prompt=uniform:9:3,output=fixed:1", "prompt", "A <= B"},
        {"prompt=fixed:5,output=lognormal:100", "output", "lognormal:MEAN:SIGMA"},
        {"prompt=fixed:5,output=fixed:1,requests=0", "requests", "1 to"},
        {"prompt=fixed:5,output=fixed:1,shared_prefix=512", "shared_prefix", "LEN:FRACTION"},
        {"prompt=fixed:5,output=fixed:1,shared_prefix=512:1.5", "shared_prefix", "[0, 1]"},
        {"prompt=fixed:5,output=fixed:1,colour=blue", "colour", "unknown key"},
        {"prompt=fixed:5,output=fixed:1,seed", "synthetic", "key=value"},
        {"prompt=fixed:5,output=fixed:1,rate=-1", "rate", ">= 0"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(&err, 0x5a, sizeof err);
        assert_int_equal(kvp_synthetic_parse(bad[i].spec, &s, &err), KVP_INVALID_ARG);
        assert_string_equal(err.key, bad[i].key);
        if (!strstr(err.message, bad[i].phrase))
            fail_msg("%s: '%s' lacks '%s'", bad[i].spec, err.message, bad[i].phrase);
    }
}

static void test_synthetic_distributions(void **state) {
    (void)state;
    kvp_synthetic_spec s;
    assert_int_equal(kvp_synthetic_parse("requests=200000,prompt=lognormal:1000:0.8,output="
                                         "uniform:10:20,shared_prefix=512:0.3,seed=7,prefixes=4",
                                         &s, NULL),
                     KVP_OK);
    kvp_workload *w, *w2;
    assert_int_equal(kvp_workload_synthetic(&s, NULL, &w, NULL), KVP_OK);
    assert_int_equal(kvp_workload_synthetic(&s, NULL, &w2, NULL), KVP_OK);
    double prompt_sum = 0;
    uint64_t shared = 0, out_min = 99, out_max = 0, per_prefix[5] = {0};
    /* Drawn as read: two cursors over two workloads of one spec read the same. */
    kvp_workload_cursor cur, cur2;
    kvp_workload_cursor_init(&cur, w);
    kvp_workload_cursor_init(&cur2, w2);
    kvp_request rq, rq2;
    for (size_t i = 0; i < kvp_workload_count(w); i++) {
        assert_true(kvp_workload_next(&cur, &rq));
        assert_true(kvp_workload_next(&cur2, &rq2));
        const kvp_request *r = &rq, *r2 = &rq2;
        /* Same seed, same workload. */
        assert_memory_equal(r, r2, sizeof *r);
        prompt_sum += r->prompt_tokens;
        if (r->output_tokens < out_min) out_min = r->output_tokens;
        if (r->output_tokens > out_max) out_max = r->output_tokens;
        if (r->prefix_index) {
            shared++;
            per_prefix[r->prefix_index]++;
            assert_true(r->prompt_tokens > 512);
            assert_int_equal(r->explicit_tokens, 512);
        }
        assert_int_equal(r->arrival_step, 0);
    }
    /* Lognormal mean 1000, plus what raising sharing prompts to 513 adds:
     * ln 513 is 0.43 sigma below mu = ln 1000 - 0.32, so a third of draws
     * fall below 513 (mean of those about 370): 0.3 x 0.33 x 143 = +14. */
    double mean = prompt_sum / (double)kvp_workload_count(w);
    assert_true(mean > 1000 && mean < 1030);
    /* 30% share, round robin over 4 prefixes: 60000 +- 4 sigma (205). */
    assert_true(shared > 59100 && shared < 60900);
    assert_true(per_prefix[1] - per_prefix[4] <= 1);
    /* Uniform 10..20 inclusive reaches both ends in 200000 draws. */
    assert_int_equal(out_min, 10);
    assert_int_equal(out_max, 20);
    assert_false(kvp_workload_next(&cur, &rq)); /* 200000 and no more */
    /* kvp_workload_get draws up to i: request 1234 as the cursor read it. */
    kvp_workload_cursor_init(&cur, w);
    for (int i = 0; i <= 1234; i++) assert_true(kvp_workload_next(&cur, &rq));
    assert_true(kvp_workload_get(w, 1234, &rq2));
    assert_memory_equal(&rq, &rq2, sizeof rq);
    kvp_workload_free(w);
    kvp_workload_free(w2);
    /* A different seed gives a different workload. */
    s.seed = 8;
    assert_int_equal(kvp_workload_synthetic(&s, NULL, &w, NULL), KVP_OK);
    assert_true(kvp_workload_get(w, 0, &rq));
    assert_true(kvp_workload_get(w, 1, &rq2));
    assert_int_not_equal(rq.prompt_tokens * 100000u + rq2.prompt_tokens, 0);
    kvp_workload_free(w);
    /* Poisson arrivals at 0.5 per step: 1000 requests over about 2000 steps. */
    assert_int_equal(kvp_synthetic_parse("requests=1000,prompt=fixed:5,output=fixed:1,rate=0.5",
                                         &s, NULL),
                     KVP_OK);
    assert_int_equal(kvp_workload_synthetic(&s, NULL, &w, NULL), KVP_OK);
    assert_true(kvp_workload_get(w, 999, &rq));
    uint64_t last = rq.arrival_step;
    assert_true(last > 1800 && last < 2200);
    kvp_workload_free(w);
}

/* tests/golden/sim_workload_file, by hand: 16 blocks of 16 tokens, batch 8,
 * 256 tokens per step, max_model_len 256.
 *   line 2 (300 > 256 tokens) is rejected on arrival.
 *   step 0: line 1 computes 40 tokens (3 blocks; blocks 0, 1 = prefix "sys"
 *     are named), samples token 1; steps 1, 2 bring it to 3: done. Its two
 *     named blocks stay cached, the partial third goes free.
 *   steps 3, 4 are idle and skipped; step 5: line 3 (33 tokens, prefix
 *     "sys") looks up 32/16 = 2 blocks: both hit; computes 1 token (a new
 *     block). Line 5 (20 tokens) misses and takes 2 blocks: 5 used.
 *   step 6: both sample their 2nd token and finish. Steps 0, 1, 2, 5, 6 = 5;
 *   running 1, 1, 1, 2, 2: mean 1.4; hits 32 of 40 + 33 + 20 = 93. */
static void test_golden_workload_by_hand(void **state) {
    (void)state;
    kvp_workload *w;
    kvp_error err;
    assert_int_equal(kvp_workload_read(KVP_SOURCE_DIR "/tests/golden/sim_workload_file.jsonl", NULL,
                                       NULL, &w, &err),
                     KVP_OK);
    kvp_sim_config c;
    memset(&c, 0, sizeof c);
    c.pool.pool_count = 1;
    c.pool.pools[0] = (kvp_pool_spec){.kind = KVP_CACHE_FULL, .tokens_per_block = 16,
                                      .page_bytes = 1, .blocks = 16};
    c.pool.prefix_reuse = true;
    c.max_batch_size = 8;
    c.max_num_tokens = 256;
    c.max_model_len = 256;
    kvp_sim_result r;
    assert_int_equal(kvp_sim_run(&c, w, NULL, &r, &err), KVP_OK);
    assert_int_equal(r.requests, 4);
    assert_int_equal(r.finished, 3);
    assert_int_equal(r.rejected_too_long, 1);
    assert_int_equal(r.steps, 5);
    assert_int_equal(r.peak_running, 2);
    assert_true(r.mean_running > 1.4 - 1e-12 && r.mean_running < 1.4 + 1e-12);
    assert_int_equal(r.prefix_hit_tokens, 32);
    assert_int_equal(r.prefix_query_tokens, 93);
    assert_int_equal(r.peak_blocks_used, 5);
    assert_int_equal(r.promised_max_sequences, 1); /* 16 blocks / (256 / 16) */
    kvp_workload_free(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reader_errors),
        cmocka_unit_test(test_reader_values),
        cmocka_unit_test(test_synthetic_spec),
        cmocka_unit_test(test_synthetic_distributions),
        cmocka_unit_test(test_golden_workload_by_hand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
