/* test_report_svg.c — the report room: SVG memory bar and line charts are
 * well formed (tag balance, entities) and carry the expected labels; HTML
 * pages are self-contained; files are written atomically; allocation
 * failure is reported, not crashed on. */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "kvplan/report.h"
#include "test_report_xml.h"

#define GIB (1ull << 30)

static kvp_memory_segment seg(kvp_mem_part part, const char *label, uint64_t bytes) {
    kvp_memory_segment s;
    memset(&s, 0, sizeof s);
    s.part = part;
    snprintf(s.label, sizeof s.label, "%s", label);
    s.bytes = bytes;
    return s;
}

static void assert_well_formed(const char *text) {
    const char *bad = xml_check(text);
    if (bad) fprintf(stderr, "not well formed: %s\n", bad);
    assert_null(bad);
}

/* The checker itself must reject broken documents (else it proves nothing). */
static void test_checker_rejects(void **state) {
    (void)state;
    assert_null(xml_check("<svg a=\"1\"><g><rect/></g><text>a &amp; b</text></svg>"));
    assert_non_null(xml_check("<svg><g></svg>"));         /* unbalanced */
    assert_non_null(xml_check("<svg><g></g>"));           /* unclosed root */
    assert_non_null(xml_check("<svg>a < b</svg>"));       /* raw < */
    assert_non_null(xml_check("<svg>a & b</svg>"));       /* bare & */
    assert_non_null(xml_check("<svg a=1></svg>"));        /* unquoted attribute */
    assert_non_null(xml_check("<svg></svg><svg></svg>")); /* two roots */
}

static void test_memory_bar(void **state) {
    (void)state;
    kvp_memory_segment s[4] = {
        seg(KVP_MEM_PART_WEIGHTS, "weights", 16 * GIB),
        seg(KVP_MEM_PART_ACTIVATION, "activation peak", 4 * GIB),
        seg(KVP_MEM_PART_KV, "KV pool 'full'", 48 * GIB),
        seg(KVP_MEM_PART_FREE, "free margin", 8 * GIB),
    };
    kvp_memory_bar bar = {"GPU memory", "H100 <test> & co", 80 * GIB, 4, s};
    kvp_report_text t;
    kvp_report_text_init(&t, NULL);
    kvp_error err;
    assert_int_equal(kvp_svg_memory_bar(&bar, &t, &err), KVP_OK);
    assert_non_null(t.data);
    assert_well_formed(t.data);
    assert_int_equal(strncmp(t.data, "<svg xmlns=\"http://www.w3.org/2000/svg\"", 39), 0);
    /* Legend: 16/80 = 20.0 %, 4/80 = 5.0 %, 48/80 = 60.0 %, 8/80 = 10.0 %, and the
     * implicit remainder 80 - 76 = 4 GiB = 5.0 %. */
    assert_non_null(strstr(t.data, ">weights  16.00 GiB (20.0%)</text>"));
    assert_non_null(strstr(t.data, ">activation peak  4.00 GiB (5.0%)</text>"));
    assert_non_null(strstr(t.data, ">KV pool &#39;full&#39;  48.00 GiB (60.0%)</text>"));
    assert_non_null(strstr(t.data, ">free margin  8.00 GiB (10.0%)</text>"));
    assert_non_null(strstr(t.data, ">not assigned  4.00 GiB (5.0%)</text>"));
    /* The KV pool is 48/80 * 760 = 456 px wide: name and size inside the bar. */
    assert_non_null(strstr(t.data, ">48.0 GiB</text>"));
    /* Subtitle escaped. */
    assert_non_null(strstr(t.data, "H100 &lt;test&gt; &amp; co"));
    /* Axis: nice step of 80 GiB / 8 = 10 GiB: ticks 0, 10, ..., 80. */
    assert_non_null(strstr(t.data, ">80</text>"));
    assert_non_null(strstr(t.data, ">GiB</text>"));
    assert_null(strstr(t.data, "GPU total")); /* fits: no overcommit marker */
    /* 5 segment rects + outline + background + 5 legend swatches = 12. */
    assert_int_equal(xml_count(t.data, "<rect "), 12);
    kvp_report_text_free(&t);
}

static void test_memory_bar_overcommit(void **state) {
    (void)state;
    kvp_memory_segment s[2] = {seg(KVP_MEM_PART_WEIGHTS, "weights", 70 * GIB),
                               seg(KVP_MEM_PART_KV, "KV", 20 * GIB)};
    kvp_memory_bar bar = {NULL, NULL, 80 * GIB, 2, s};
    kvp_report_text t;
    kvp_report_text_init(&t, NULL);
    assert_int_equal(kvp_svg_memory_bar(&bar, &t, NULL), KVP_OK);
    assert_well_formed(t.data);
    /* 90 GiB asked of an 80 GiB device: the marker says where it ends; the
     * legend's shares are of the device (70/80 = 87.5 %). */
    assert_non_null(strstr(t.data, ">GPU total 80.00 GiB</text>"));
    assert_non_null(strstr(t.data, "(87.5%)"));
    assert_null(strstr(t.data, "not assigned"));
    kvp_report_text_free(&t);
}

static void test_memory_bar_errors(void **state) {
    (void)state;
    kvp_report_text t;
    kvp_report_text_init(&t, NULL);
    kvp_error err;
    kvp_memory_bar empty = {NULL, NULL, 0, 0, NULL};
    assert_int_equal(kvp_svg_memory_bar(&empty, &t, &err), KVP_INVALID_ARG);
    kvp_memory_segment s[2] = {seg(KVP_MEM_PART_KV, "a", UINT64_MAX), seg(KVP_MEM_PART_KV, "b", 1)};
    kvp_memory_bar over = {NULL, NULL, 0, 2, s};
    assert_int_equal(kvp_svg_memory_bar(&over, &t, &err), KVP_OVERFLOW);
    kvp_memory_bar many = {NULL, NULL, 1, KVP_REPORT_MAX_SEGMENTS + 1, s};
    assert_int_equal(kvp_svg_memory_bar(&many, &t, &err), KVP_INVALID_ARG);
    assert_null(t.data); /* nothing written on failure */
    kvp_report_text_free(&t);
}

static void test_line_chart(void **state) {
    (void)state;
    /* Max sequences against context length, one line per KV dtype; a NaN is a
     * length where nothing fits (a gap). */
    double x[6] = {4096, 8192, 16384, 32768, 65536, 131072};
    double bf16[6] = {120, 60, 30, 15, 7, NAN};
    double fp8[6] = {240, 120, 60, 30, 15, 7};
    kvp_chart_series series[2] = {{"bf16", 6, x, bf16}, {"fp8 <e4m3>", 6, x, fp8}};
    kvp_line_chart c = {"Max sequences", "context length (tokens)", "max concurrent sequences",
                        true, true, 2, series, "llama & co"};
    kvp_report_text t;
    kvp_report_text_init(&t, NULL);
    kvp_error err;
    assert_int_equal(kvp_svg_line_chart(&c, &t, &err), KVP_OK);
    assert_well_formed(t.data);
    /* log2 ticks from 2^12 to 2^17, labelled as tokens. */
    assert_non_null(strstr(t.data, ">4k</text>"));
    assert_non_null(strstr(t.data, ">128k</text>"));
    assert_non_null(strstr(t.data, ">context length (tokens)</text>"));
    assert_non_null(strstr(t.data, ">max concurrent sequences</text>"));
    assert_non_null(strstr(t.data, ">fp8 &lt;e4m3&gt;</text>")); /* legend, escaped */
    assert_non_null(strstr(t.data, ">llama &amp; co</text>"));   /* subtitle, escaped */
    /* y from 0 to 240 in nice steps of 50: 0, 50, ..., 250. */
    assert_non_null(strstr(t.data, ">250</text>"));
    assert_non_null(strstr(t.data, ">0</text>"));
    /* One polyline per series (the trailing NaN only ends bf16 early). */
    assert_int_equal(xml_count(t.data, "<polyline"), 2);
    /* 5 + 6 point markers. */
    assert_int_equal(xml_count(t.data, "<circle"), 11);
    kvp_report_text_free(&t);

    /* A gap in the middle splits a line in two. */
    double mid[6] = {1, 2, NAN, 4, 5, 6};
    kvp_chart_series one = {"gappy", 6, x, mid};
    kvp_line_chart c2 = {NULL, "x", "y", true, false, 1, &one, NULL};
    kvp_report_text_init(&t, NULL);
    assert_int_equal(kvp_svg_line_chart(&c2, &t, &err), KVP_OK);
    assert_well_formed(t.data);
    assert_int_equal(xml_count(t.data, "<polyline"), 2);
    kvp_report_text_free(&t);
}

static void test_line_chart_errors(void **state) {
    (void)state;
    kvp_report_text t;
    kvp_report_text_init(&t, NULL);
    kvp_error err;
    double x[2] = {0, 1}, y[2] = {1, INFINITY}, nan2[2] = {NAN, NAN}, ok[2] = {1, 2};
    kvp_chart_series inf = {"s", 2, x, y};
    kvp_line_chart c = {NULL, NULL, NULL, false, false, 1, &inf, NULL};
    assert_int_equal(kvp_svg_line_chart(&c, &t, &err), KVP_INVALID_ARG);
    kvp_chart_series log0 = {"s", 2, x, ok};
    c.series = &log0;
    c.x_log2 = true; /* x = 0 has no log */
    assert_int_equal(kvp_svg_line_chart(&c, &t, &err), KVP_INVALID_ARG);
    kvp_chart_series empty = {"s", 2, x, nan2};
    c.series = &empty;
    c.x_log2 = false;
    assert_int_equal(kvp_svg_line_chart(&c, &t, &err), KVP_INVALID_ARG);
    c.series_count = 0;
    assert_int_equal(kvp_svg_line_chart(&c, &t, &err), KVP_INVALID_ARG);
    assert_null(t.data);
    kvp_report_text_free(&t);
}

static void test_sim_chart(void **state) {
    (void)state;
    double util[5] = {0, 25, 50, 100, 75}, run[5] = {0, 2, 4, 8, 6};
    kvp_report_text t;
    kvp_report_text_init(&t, NULL);
    kvp_error err;
    assert_int_equal(kvp_svg_sim_chart("sim", NULL, util, run, 5, &t, &err), KVP_OK);
    assert_well_formed(t.data);
    assert_int_equal(xml_count(t.data, "<g class=\"panel\""), 2);
    assert_non_null(strstr(t.data, ">blocks in use (%)</text>"));
    assert_non_null(strstr(t.data, ">running requests</text>"));
    assert_non_null(strstr(t.data, ">step</text>"));
    /* Utilization 0..100 in steps of 20: the top tick is 100. */
    assert_non_null(strstr(t.data, ">100</text>"));
    kvp_report_text_free(&t);
}

static void test_html_page(void **state) {
    (void)state;
    kvp_report_text svg, page;
    kvp_report_text_init(&svg, NULL);
    kvp_report_text_init(&page, NULL);
    kvp_memory_segment s[1] = {seg(KVP_MEM_PART_KV, "kv", GIB)};
    kvp_memory_bar bar = {NULL, NULL, 2 * GIB, 1, s};
    assert_int_equal(kvp_svg_memory_bar(&bar, &svg, NULL), KVP_OK);
    kvp_html_begin(&page, "plan <llama>");
    kvp_html_heading(&page, 2, "Pools & budget");
    const char *header[2] = {"pool", "tokens"};
    const char *cells[4] = {"full", "131,072", "<sliding>", NULL};
    kvp_html_table(&page, "pools", 2, header, 2, cells);
    kvp_html_svg(&page, &svg);
    kvp_html_pre(&page, "a < b");
    kvp_error err;
    assert_int_equal(kvp_html_end(&page, &err), KVP_OK);
    assert_int_equal(strncmp(page.data, "<!DOCTYPE html>", 15), 0);
    assert_well_formed(page.data);
    assert_non_null(strstr(page.data, "<title>plan &lt;llama&gt;</title>"));
    assert_non_null(strstr(page.data, "<h2>Pools &amp; budget</h2>"));
    assert_non_null(strstr(page.data, "<td class=\"n\">131,072</td>")); /* numbers right-aligned */
    assert_non_null(strstr(page.data, "<td>&lt;sliding&gt;</td>"));
    assert_non_null(strstr(page.data, "<svg xmlns="));
    /* Self-contained: no scripts, nothing loaded from elsewhere. */
    assert_null(strstr(page.data, "<script"));
    assert_null(strstr(page.data, "src="));
    assert_null(strstr(page.data, "href="));
    assert_null(strstr(page.data, "@import"));
    kvp_report_text_free(&svg);
    kvp_report_text_free(&page);
}

static void test_write_file_atomic(void **state) {
    (void)state;
    char dir[] = "/tmp/kvp_report_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/chart.svg", dir);
    kvp_error err;
    assert_int_equal(kvp_report_write_file(path, "old", 3, &err), KVP_OK);
    assert_int_equal(kvp_report_write_file(path, "<svg/>\n", 7, &err), KVP_OK);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char buf[16] = {0};
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    assert_int_equal(n, 7);
    assert_string_equal(buf, "<svg/>\n");
    /* No temporary left behind: the folder holds only chart.svg. */
    DIR *d = opendir(dir);
    assert_non_null(d);
    int entries = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.') entries++;
    closedir(d);
    assert_int_equal(entries, 1);
    unlink(path);
    rmdir(dir);
    /* A folder that does not exist: KVP_IO naming the path. */
    assert_int_equal(kvp_report_write_file("/nonexistent-kvp/x.svg", "a", 1, &err), KVP_IO);
    assert_non_null(strstr(err.message, "/nonexistent-kvp/x.svg"));
    assert_string_equal(err.file, "/nonexistent-kvp/x.svg");
}

/* Fail every allocation after the first `budget`. */
typedef struct fail_alc {
    int budget;
} fail_alc;
static void *fa_malloc(void *ctx, size_t n) {
    fail_alc *f = ctx;
    return f->budget-- > 0 ? malloc(n) : NULL;
}
static void *fa_realloc(void *ctx, void *p, size_t n) {
    fail_alc *f = ctx;
    return f->budget-- > 0 ? realloc(p, n) : NULL;
}
static void fa_free(void *ctx, void *p) {
    (void)ctx;
    free(p);
}

static void test_alloc_failure(void **state) {
    (void)state;
    double x[3] = {1, 2, 3}, y[3] = {1, 4, 9};
    kvp_chart_series s = {"s", 3, x, y};
    kvp_line_chart c = {"t", "x", "y", false, true, 1, &s, NULL};
    /* Fail the Nth allocation until the chart succeeds: each failure is
     * KVP_NOMEM and leaks nothing (ASan checks the leak part). */
    for (int budget = 0; budget < 64; budget++) {
        fail_alc f = {budget};
        kvp_allocator alc = {fa_malloc, fa_realloc, fa_free, &f};
        kvp_report_text t;
        kvp_report_text_init(&t, &alc);
        kvp_error err;
        kvp_status st = kvp_svg_line_chart(&c, &t, &err);
        kvp_report_text_free(&t);
        if (st == KVP_OK) return;
        assert_int_equal(st, KVP_NOMEM);
        assert_int_equal(err.code, KVP_NOMEM);
    }
    fail(); /* never succeeded */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_checker_rejects),   cmocka_unit_test(test_memory_bar),
        cmocka_unit_test(test_memory_bar_overcommit), cmocka_unit_test(test_memory_bar_errors),
        cmocka_unit_test(test_line_chart),        cmocka_unit_test(test_line_chart_errors),
        cmocka_unit_test(test_sim_chart),         cmocka_unit_test(test_html_page),
        cmocka_unit_test(test_write_file_atomic), cmocka_unit_test(test_alloc_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
