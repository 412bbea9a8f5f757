/* test_report_plan.c — a plan as a picture: the memory bar's segments from
 * memory facts, capacity and the creator's plan (a plain value built here by
 * hand), and the SVG / HTML files `kvplan plan --svg/--html` write. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "kvplan/fit.h"
#include "kvplan/report.h"
#include "test_report_xml.h"

#define GIB (1ull << 30)
#define MIB (1ull << 20)

/* An 80 GiB GPU: 16 GiB weights, 2 GiB activation, 1 GiB + 0.5 GiB runtime,
 * a 1 GiB MLA workspace, and a target manager with a full pool (40 GiB) and
 * a sliding pool (8 GiB, window 4096) plus a 2 GiB draft pool. */
static void fixture(kvp_memory_facts *m, kvp_capacity *cap, kvp_plan *plan) {
    memset(m, 0, sizeof *m);
    memset(cap, 0, sizeof *cap);
    memset(plan, 0, sizeof *plan);
    m->total_bytes = 80 * GIB;
    m->weights_bytes = 16 * GIB;
    m->activation_bytes = 2 * GIB;
    m->non_torch_bytes = GIB;
    m->cuda_graph_bytes = 512 * MIB;
    cap->mla_workspace_reserve_bytes = GIB;
    kvp_manager_plan *t = &plan->managers[KVP_ROLE_TARGET];
    t->present = true;
    t->role = KVP_ROLE_TARGET;
    t->pool_count = 2;
    t->pools[0].kind = KVP_CACHE_FULL;
    t->pools[0].layers = 24;
    t->pools[0].bytes = 40 * GIB;
    t->pools[0].blocks = 10240;
    t->pools[0].tokens = 327680;
    t->pools[0].tokens_per_block = 32;
    t->pools[1].kind = KVP_CACHE_SLIDING;
    t->pools[1].layers = 8;
    t->pools[1].window_tokens = 4096;
    t->pools[1].bytes = 8 * GIB;
    kvp_manager_plan *d = &plan->managers[KVP_ROLE_DRAFT];
    d->present = true;
    d->role = KVP_ROLE_DRAFT;
    d->pool_count = 1;
    d->pools[0].kind = KVP_CACHE_FULL;
    d->pools[0].layers = 1;
    d->pools[0].bytes = 2 * GIB;
    plan->budget_bytes = 50 * GIB;
}

static void test_segments(void **state) {
    (void)state;
    kvp_memory_facts m;
    kvp_capacity cap;
    kvp_plan plan;
    fixture(&m, &cap, &plan);
    kvp_memory_segment s[KVP_REPORT_MAX_SEGMENTS];
    size_t n = kvp_report_plan_segments(&m, &cap, &plan, 256 * MIB, s, KVP_REPORT_MAX_SEGMENTS);
    /* weights, activation, runtime, MLA workspace, 3 KV pools, local, free = 9. */
    assert_int_equal(n, 9);
    assert_int_equal(s[0].part, KVP_MEM_PART_WEIGHTS);
    assert_int_equal(s[2].part, KVP_MEM_PART_RUNTIME);
    assert_int_equal(s[2].bytes, GIB + 512 * MIB); /* non-torch + CUDA graphs */
    assert_int_equal(s[3].part, KVP_MEM_PART_RESERVE);
    assert_string_equal(s[4].label, "KV pool 'full' (24 layers)");
    assert_string_equal(s[5].label, "KV pool 'sliding' w4096 (8 layers)");
    assert_string_equal(s[6].label, "KV draft pool 'full' (1 layers)");
    assert_int_equal(s[7].part, KVP_MEM_PART_LOCAL);
    /* Free margin: 80 - (16 + 2 + 1.5 + 1 + 40 + 8 + 2 + 0.25) = 9.25 GiB. */
    assert_int_equal(s[8].part, KVP_MEM_PART_FREE);
    assert_int_equal(s[8].bytes, 9 * GIB + 256 * MIB);
    /* A short output array is filled, never overrun. */
    assert_int_equal(kvp_report_plan_segments(&m, &cap, &plan, 0, s, 3), 3);
    /* No memory facts (a --kv-budget plan): only the pools. */
    assert_int_equal(kvp_report_plan_segments(NULL, NULL, &plan, 0, s, KVP_REPORT_MAX_SEGMENTS), 3);
}

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = calloc(1, (size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    return buf;
}

static void test_write_svg_and_html(void **state) {
    (void)state;
    kvp_memory_facts m;
    kvp_capacity cap;
    kvp_plan plan;
    fixture(&m, &cap, &plan);
    char dir[] = "/tmp/kvp_rplan_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char svg[128], html[128];
    snprintf(svg, sizeof svg, "%s/plan.svg", dir);
    snprintf(html, sizeof html, "%s/plan.html", dir);
    kvp_error err;
    assert_int_equal(kvp_report_write_plan_svg(svg, "H100, llama", &m, &cap, &plan, 0, &err),
                     KVP_OK);
    char *text = slurp(svg);
    assert_null(xml_check(text));
    /* 40/80 of the device: 50.0 %. */
    assert_non_null(strstr(text, ">KV pool &#39;full&#39; (24 layers)  40.00 GiB (50.0%)</text>"));
    assert_non_null(strstr(text, ">MLA context workspace  1.00 GiB (1.2%)</text>"));
    free(text);
    assert_int_equal(kvp_report_write_plan_html(html, "plan <x>", "budget 50 GiB\n", &m, &cap,
                                                &plan, 0, &err),
                     KVP_OK);
    text = slurp(html);
    assert_null(xml_check(text));
    assert_non_null(strstr(text, "<title>plan &lt;x&gt;</title>"));
    assert_non_null(strstr(text, "<td class=\"n\">327680</td>"));   /* pool tokens */
    assert_non_null(strstr(text, "<td>draft</td>"));
    assert_non_null(strstr(text, "<pre>budget 50 GiB\n</pre>"));
    assert_null(strstr(text, "<script"));
    free(text);
    unlink(svg);
    unlink(html);
    rmdir(dir);
    /* No plan, or an unwritable path: errors, not crashes. */
    assert_int_equal(kvp_report_write_plan_svg(svg, NULL, &m, &cap, NULL, 0, &err),
                     KVP_INVALID_ARG);
    assert_int_equal(kvp_report_write_plan_svg("/nonexistent-kvp/p.svg", NULL, &m, &cap, &plan, 0,
                                               &err),
                     KVP_IO);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_segments),
        cmocka_unit_test(test_write_svg_and_html),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
