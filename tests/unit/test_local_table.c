/* test_local_table.c — the seed's table of model-local caches, figure by
 * figure, from the embedded declarations (seed model-local-kv-caches.md,
 * "What the four models declare"), and the ~1.1 GiB at max_num_seqs=256. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "kvplan/local.h"

#define KIB 1024ull
#define MIB (1024ull * 1024ull)
#define GIB (1024ull * MIB)

static kvp_local_report *report(const char *model, uint64_t seqs, bool async_chunk, bool streaming,
                                bool enforce_eager) {
    kvp_local_deployment dep = {seqs, async_chunk, streaming, enforce_eager};
    kvp_local_report *r = NULL;
    kvp_error err;
    memset(&err, 0x5A, sizeof err); /* poisoned */
    kvp_status st = kvp_local_report_for(model, &dep, NULL, &r, &err);
    if (st != KVP_OK) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(st, KVP_OK);
    assert_non_null(r);
    return r;
}

static const kvp_local_entry *find(const kvp_local_report *r, const char *name) {
    for (size_t i = 0; i < kvp_local_report_entry_count(r); i++)
        if (strcmp(kvp_local_report_entry(r, i)->name, name) == 0)
            return kvp_local_report_entry(r, i);
    return NULL;
}

/* "%.2f" of bytes / 2^unit, as the seed prints it. */
static void assert_pretty(uint64_t bytes, uint64_t unit, const char *want) {
    char buf[32];
    snprintf(buf, sizeof buf, "%.2f", (double)bytes / (double)unit);
    assert_string_equal(buf, want);
}

static void test_formula(void **state) {
    (void)state;
    uint64_t b = 0;
    kvp_error err;
    /* 2 * 8 * 16 * 64 * 71 * 4 = 16 * 16 = 256; * 64 = 16,384; * 71 = 1,163,264; * 4 = 4,653,056 */
    assert_int_equal(kvp_local_bytes_per_row(8, 16, 64, 71, 4, &b, &err), KVP_OK);
    assert_int_equal(b, 4653056ull);
    /* Zero factor: an error naming it, not a zero row. */
    assert_int_equal(kvp_local_bytes_per_row(8, 0, 64, 71, 4, &b, &err), KVP_INVALID_ARG);
    assert_string_equal(err.key, "kv_heads");
    /* 2 * 2^16 * 2^16 * 2^16 * 2^16 * 8 = 2^68: past 64 bits. */
    assert_int_equal(kvp_local_bytes_per_row(65536, 65536, 65536, 65536, 8, &b, &err),
                     KVP_OVERFLOW);
    assert_string_equal(err.key, "bytes_per_row");
}

static void test_qwen3_tts(void **state) {
    (void)state;
    kvp_local_report *r = report("qwen3-tts", 256, true, false, false);
    const kvp_local_entry *e = find(r, "codec_decoder");
    assert_non_null(e);
    /* sliding_window - 1 = 72 - 1 = 71 positions */
    assert_int_equal(e->positions, 71);
    assert_int_equal(e->bound, KVP_LOCAL_BOUND_SLIDING_WINDOW_MINUS_ONE);
    assert_int_equal(e->kind, KVP_LOCAL_KIND_SLIDING_DYNAMIC_CACHE);
    /* 2 * 8 layers * 16 kv heads * 64 head_dim * 71 * 4 B (fp32) = 4,653,056 B */
    assert_int_equal(e->bytes_per_row, 4653056ull);
    /* 4,653,056 / 2^20 = 4.4375 -> "4.44" MiB */
    assert_pretty(e->bytes_per_row, MIB, "4.44");
    assert_int_equal(e->row_driver, KVP_LOCAL_ROWS_MAX_NUM_SEQS);
    assert_int_equal(e->rows, 256);
    /* The seed's "roughly 1.1 GiB at max_num_seqs=256": 256 * 4,653,056 = 1,191,182,336 B
     * = 1.109 GiB -> "1.11" (the request cache alone). */
    assert_int_equal(e->total_bytes, 1191182336ull);
    assert_pretty(e->total_bytes, GIB, "1.11");
    assert_false(e->charged);
    assert_int_equal(e->scope, KVP_LOCAL_SCOPE_REQUEST);

    /* x2 for the working copy: a second MAX_NUM_SEQS entry of the same row. */
    const kvp_local_entry *w = find(r, "codec_decoder_working_copy");
    assert_non_null(w);
    assert_int_equal(w->bytes_per_row, 4653056ull);
    assert_int_equal(w->row_driver, KVP_LOCAL_ROWS_MAX_NUM_SEQS);
    assert_int_equal(w->rows, 256);
    assert_false(w->charged);

    /* Graph pool: FIXED, same bound and row, graph-resident (already charged), reached by hop. */
    const kvp_local_entry *g = find(r, "codec_decoder_graph_pool");
    assert_non_null(g);
    assert_int_equal(g->bytes_per_row, 4653056ull);
    assert_int_equal(g->row_driver, KVP_LOCAL_ROWS_FIXED);
    assert_true(g->rows_reason[0] != '\0');
    assert_non_null(strstr(g->rows_reason, "floor"));
    assert_true(g->charged);
    assert_true(g->via_hop);
    assert_string_equal(g->owner, "code2wav._cudagraph_wrapper");

    const kvp_local_totals *t = kvp_local_report_totals(r);
    /* not charged: 2 * 1,191,182,336 = 2,382,364,672; charged: 1 row = 4,653,056 */
    assert_int_equal(t->not_charged_bytes, 2382364672ull);
    assert_int_equal(t->charged_bytes, g->rows * 4653056ull);
    assert_int_equal(t->total_bytes, t->not_charged_bytes + t->charged_bytes);
    kvp_local_report_free(r);
}

static void test_mimo_audio(void **state) {
    (void)state;
    kvp_local_report *r = report("mimo-audio", 256, false, false, false);
    const kvp_local_entry *e = find(r, "local_transformer");
    assert_non_null(e);
    /* group_size + max(delay_pattern) = 4 + 7 = 11 positions */
    assert_int_equal(e->positions, 11);
    /* 2 * 16 * 64 * 16 * 11 * 2 B = 32 * 64 = 2,048; * 16 = 32,768; * 11 = 360,448; * 2 = 720,896 */
    assert_int_equal(e->bytes_per_row, 720896ull);
    /* 720,896 / 1024 = 704 KiB exactly */
    assert_int_equal(e->bytes_per_row, 704 * KIB);
    assert_int_equal(e->row_driver, KVP_LOCAL_ROWS_MAX_NUM_SEQS);
    assert_int_equal(e->rows, 256);
    assert_false(e->charged);

    const kvp_local_entry *g = find(r, "local_transformer_graph_pool");
    assert_non_null(g);
    assert_int_equal(g->bytes_per_row, 720896ull);
    assert_int_equal(g->row_driver, KVP_LOCAL_ROWS_FIXED);
    /* bucket sum 1+2+4+6+8+16+32+64+128 = 261 */
    assert_int_equal(g->rows, 1 + 2 + 4 + 6 + 8 + 16 + 32 + 64 + 128);
    assert_int_equal(g->rows, 261);
    /* 261 * 720,896 = 188,153,856 B = 179.4375 MiB -> "179.44" */
    assert_int_equal(g->total_bytes, 188153856ull);
    assert_pretty(g->total_bytes, MIB, "179.44");
    assert_true(g->charged);
    /* A root-level declarer: owner "" */
    assert_string_equal(g->owner, "");
    /* Mutually exclusive per call with the eager cache. */
    assert_string_equal(g->exclusive_group, e->exclusive_group);
    assert_true(g->exclusive_group[0] != '\0');
    assert_int_equal(kvp_local_report_totals(r)->exclusive_groups, 1);
    kvp_local_report_free(r);
}

static void test_minicpm_o(void **state) {
    (void)state;
    kvp_local_report *r = report("minicpm-o", 256, false, true, false);
    const kvp_local_entry *e = find(r, "whisper_encoder");
    assert_non_null(e);
    assert_int_equal(e->kind, KVP_LOCAL_KIND_ENCODER_DECODER_CACHE);
    assert_int_equal(e->positions, 1500);
    /* 2 * 24 * 16 * 64 * 1500 * 2 B = 48 * 16 = 768; * 64 = 49,152; * 1500 = 73,728,000;
     * * 2 = 147,456,000 B = 140.625 MiB -> "140.62" (exact tie, rounds to even) */
    assert_int_equal(e->bytes_per_row, 147456000ull);
    assert_pretty(e->bytes_per_row, MIB, "140.62");
    /* FIXED 1 per session: max_num_seqs is the wrong number for it. */
    assert_int_equal(e->row_driver, KVP_LOCAL_ROWS_FIXED);
    assert_int_equal(e->rows, 1);
    assert_int_equal(e->total_bytes, 147456000ull);
    assert_int_equal(e->scope, KVP_LOCAL_SCOPE_SESSION);
    assert_false(e->charged);
    kvp_local_report_free(r);
}

static void test_ming_flash_omni(void **state) {
    (void)state;
    kvp_local_report *r = report("ming-flash-omni", 256, false, false, false);
    const kvp_local_entry *e = find(r, "talker_static_cache");
    assert_non_null(e);
    /* Geometry read from the catalogued Qwen2-0.5B config: 24 layers, 2 kv heads,
     * head_dim = hidden_size / num_attention_heads = 896 / 14 = 64, bf16. */
    assert_int_equal(e->layers, 24);
    assert_int_equal(e->kv_heads, 2);
    assert_int_equal(e->head_dim, 64);
    assert_int_equal(e->element_bytes, 2);
    assert_non_null(strstr(e->geometry_source, "896 / 14"));
    assert_int_equal(e->positions, 2048);
    /* 2 * 24 * 2 * 64 * 2048 * 2 B = 96 * 64 = 6,144; * 2048 = 12,582,912; * 2 = 25,165,824 B
     * = 24.00 MiB exactly */
    assert_int_equal(e->bytes_per_row, 25165824ull);
    assert_int_equal(e->bytes_per_row, 24 * MIB);
    /* FIXED 1: the call runs the whole loop for one request; not x max_num_seqs. */
    assert_int_equal(e->row_driver, KVP_LOCAL_ROWS_FIXED);
    assert_int_equal(e->rows, 1);
    assert_int_equal(e->total_bytes, 24 * MIB);
    assert_true(e->via_hop); /* MingAudioGenerator is not a submodule */
    kvp_local_report_free(r);
}

static void test_aliases_and_list(void **state) {
    (void)state;
    kvp_local_report *r = report("MiMo-Audio", 1, false, false, false);
    assert_string_equal(kvp_local_report_model(r), "mimo-audio");
    kvp_local_report_free(r);
    assert_int_equal(kvp_local_model_count(), 4);
    char buf[64];
    bool seen[4] = {false, false, false, false};
    const char *want[] = {"qwen3-tts", "mimo-audio", "minicpm-o", "ming-flash-omni"};
    for (size_t i = 0; i < kvp_local_model_count(); i++) {
        assert_non_null(kvp_local_model_name(i, buf, sizeof buf));
        for (size_t k = 0; k < 4; k++)
            if (strcmp(buf, want[k]) == 0) seen[k] = true;
    }
    for (size_t k = 0; k < 4; k++) assert_true(seen[k]);
    assert_null(kvp_local_model_name(99, buf, sizeof buf));
}

static void test_not_found(void **state) {
    (void)state;
    kvp_local_deployment dep = {256, false, false, false};
    kvp_local_report *r = (kvp_local_report *)&dep; /* poisoned: must be set to NULL */
    kvp_error err;
    assert_int_equal(kvp_local_report_for("llama-3.1-8b", &dep, NULL, &r, &err), KVP_NOT_FOUND);
    assert_null(r);
    assert_string_equal(err.key, "llama-3.1-8b");
    assert_non_null(strstr(err.message, "qwen3-tts"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_formula),        cmocka_unit_test(test_qwen3_tts),
        cmocka_unit_test(test_mimo_audio),     cmocka_unit_test(test_minicpm_o),
        cmocka_unit_test(test_ming_flash_omni), cmocka_unit_test(test_aliases_and_list),
        cmocka_unit_test(test_not_found),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
