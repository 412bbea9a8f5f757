/* test_safetensors_headers.c — safetensors headers written by the test:
 * dtype sizes, shapes, offsets, the index, and every bounds error; and the
 * estimate taking its weights from them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "kvplan/kvplan.h"

static char g_dir[256];

/* Write a safetensors file: 8-byte LE length, the header, `data_bytes` zeros.
 * `claimed_len` overrides the length field when nonzero. */
static void write_st(const char *name, const char *header, uint64_t data_bytes,
                     uint64_t claimed_len) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    uint64_t n = claimed_len ? claimed_len : strlen(header);
    unsigned char len[8];
    for (int i = 0; i < 8; i++) len[i] = (unsigned char)(n >> (8 * i));
    assert_int_equal(fwrite(len, 1, 8, f), 8);
    fputs(header, f);
    for (uint64_t i = 0; i < data_bytes; i++) fputc(0, f);
    fclose(f);
}

/* The same with `data_bytes` of holes (ftruncate): headers of a real model's
 * size without writing gigabytes. */
static void write_st_sparse(const char *name, const char *header, uint64_t data_bytes) {
    write_st(name, header, 0, 0);
    char path[512];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    assert_int_equal(truncate(path, (off_t)(8 + strlen(header) + data_bytes)), 0);
}

static kvp_status read_st(const char *name, kvp_safetensors_summary *s, kvp_error *err) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    return kvp_safetensors_read(path, s, err);
}

static int setup(void **state) {
    (void)state;
    snprintf(g_dir, sizeof g_dir, "%s/kvp_st_XXXXXX", P_tmpdir);
    assert_non_null(mkdtemp(g_dir));
    return 0;
}

static int teardown(void **state) {
    (void)state;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    assert_int_equal(system(cmd), 0);
    return 0;
}

/* BF16 [2,3] = 12 B at [0,12); F32 [4] = 16 B at [12,28); F8_E4M3 [5] = 5 B
 * at [28,33); F4 [3] = 12 bits -> 2 B at [33,35); I64 [2] = 16 B at [35,51);
 * a scalar F16 [] = 2 B at [51,53). Total 53 B in 6 tensors. */
static const char *k_good =
    "{\"__metadata__\": {\"format\": \"pt\"},"
    " \"a\": {\"dtype\": \"BF16\", \"shape\": [2, 3], \"data_offsets\": [0, 12]},"
    " \"b\": {\"dtype\": \"F32\", \"shape\": [4], \"data_offsets\": [12, 28]},"
    " \"c\": {\"dtype\": \"F8_E4M3\", \"shape\": [5], \"data_offsets\": [28, 33]},"
    " \"d\": {\"dtype\": \"F4\", \"shape\": [3], \"data_offsets\": [33, 35]},"
    " \"e\": {\"dtype\": \"I64\", \"shape\": [2], \"data_offsets\": [35, 51]},"
    " \"f\": {\"dtype\": \"F16\", \"shape\": [], \"data_offsets\": [51, 53]}}";

static void test_dtype_sizes_and_offsets(void **state) {
    (void)state;
    write_st("model.safetensors", k_good, 53, 0);
    kvp_safetensors_summary s;
    kvp_error err;
    assert_int_equal(read_st("model.safetensors", &s, &err), KVP_OK);
    assert_int_equal(s.tensor_count, 6);
    assert_int_equal(s.tensor_bytes, 53);
    assert_int_equal(s.header_bytes, strlen(k_good));
    assert_int_equal(s.data_bytes, 53);
}

static void test_truncated_header(void **state) {
    (void)state;
    /* only 4 bytes: no room for the length */
    char path[512];
    snprintf(path, sizeof path, "%s/short.safetensors", g_dir);
    FILE *f = fopen(path, "wb");
    fputs("abcd", f);
    fclose(f);
    kvp_safetensors_summary s;
    kvp_error err;
    memset(&err, 0x5A, sizeof err);
    assert_int_equal(read_st("short.safetensors", &s, &err), KVP_SYNTAX);
    assert_non_null(strstr(err.message, "truncated: 4 bytes, need 8"));
    assert_string_equal(err.key, "header length");
    assert_int_equal(err.offset, 0);
    /* the length fits the file, the buffer given to the parser does not */
    write_st("ok.safetensors", k_good, 53, 0);
    unsigned char buf[20];
    memcpy(buf, "\x10\x00\x00\x00\x00\x00\x00\x00{\"a\":", 13);
    assert_int_equal(kvp_safetensors_parse(buf, 13, 100, "mem", &s, &err), KVP_SYNTAX);
    assert_non_null(strstr(err.message, "truncated header: 5 of 16"));
}

static void test_length_larger_than_file(void **state) {
    (void)state;
    write_st("big.safetensors", "{}", 0, 1000);
    kvp_safetensors_summary s;
    kvp_error err;
    assert_int_equal(read_st("big.safetensors", &s, &err), KVP_SYNTAX);
    /* file = 8 + 2 bytes: 2 bytes after the length */
    assert_non_null(strstr(err.message, "header length 1000 (at offset 0) is larger than the 2 bytes after it"));
    /* an absurd length is refused before any allocation */
    write_st("huge.safetensors", "{}", 0, UINT64_MAX);
    assert_int_equal(read_st("huge.safetensors", &s, &err), KVP_SYNTAX);
}

static void test_bad_entries(void **state) {
    (void)state;
    kvp_safetensors_summary s;
    kvp_error err;
    write_st("x.safetensors",
             "{\"w\": {\"dtype\": \"BF16\", \"shape\": [4], \"data_offsets\": [0, 8]}}", 4, 0);
    assert_int_equal(read_st("x.safetensors", &s, &err), KVP_CONFIG);
    assert_non_null(strstr(err.message, "data_offsets [0, 8] outside the data section of 4"));
    assert_string_equal(err.key, "/w");
    write_st("y.safetensors",
             "{\"w\": {\"dtype\": \"BF16\", \"shape\": [3], \"data_offsets\": [0, 8]}}", 8, 0);
    assert_int_equal(read_st("y.safetensors", &s, &err), KVP_CONFIG);
    assert_non_null(strstr(err.message, "shape and dtype give 6 bytes, data_offsets span 8"));
    write_st("z.safetensors",
             "{\"w\": {\"dtype\": \"Q4_K\", \"shape\": [3], \"data_offsets\": [0, 8]}}", 8, 0);
    assert_int_equal(read_st("z.safetensors", &s, &err), KVP_UNSUPPORTED);
    assert_non_null(strstr(err.message, "dtype Q4_K"));
    write_st("j.safetensors", "{not json}", 0, 0);
    assert_int_equal(read_st("j.safetensors", &s, &err), KVP_SYNTAX);
    assert_non_null(strstr(err.message, "not JSON"));
    write_st("n.safetensors",
             "{\"w\": {\"dtype\": \"F32\", \"shape\": [-1], \"data_offsets\": [0, 4]}}", 4, 0);
    assert_int_equal(read_st("n.safetensors", &s, &err), KVP_SYNTAX);
    write_st("o.safetensors",
             "{\"w\": {\"dtype\": \"F32\", \"shape\": [4294967296, 4294967296, 4294967296],"
             " \"data_offsets\": [0, 4]}}",
             4, 0);
    assert_int_equal(read_st("o.safetensors", &s, &err), KVP_OVERFLOW);
    write_st("a.safetensors", "[1, 2]", 0, 0);
    assert_int_equal(read_st("a.safetensors", &s, &err), KVP_SYNTAX);
    assert_non_null(strstr(err.message, "must be a JSON object"));
    /* Two BF16 [4] tensors (8 B each) on the same bytes [0, 8) of an 8-byte
     * section: summed they would "hold" 16 B. The second in offset order is
     * refused (both span [0, 8), so either name may be the one reported). */
    write_st("ov.safetensors",
             "{\"x\": {\"dtype\": \"BF16\", \"shape\": [4], \"data_offsets\": [0, 8]},"
             " \"y\": {\"dtype\": \"BF16\", \"shape\": [4], \"data_offsets\": [0, 8]}}",
             8, 0);
    assert_int_equal(read_st("ov.safetensors", &s, &err), KVP_CONFIG);
    assert_non_null(strstr(err.message, "begin at 0, but the tensors before it end at 8 "
                                        "(overlapping bytes)"));
    assert_int_equal(s.tensor_bytes, 0);
    /* [0, 8) then [10, 18): a 2-byte gap at 8 */
    write_st("gap.safetensors",
             "{\"x\": {\"dtype\": \"BF16\", \"shape\": [4], \"data_offsets\": [0, 8]},"
             " \"y\": {\"dtype\": \"BF16\", \"shape\": [4], \"data_offsets\": [10, 18]}}",
             18, 0);
    assert_int_equal(read_st("gap.safetensors", &s, &err), KVP_CONFIG);
    assert_string_equal(err.key, "/y");
    assert_non_null(strstr(err.message, "begin at 10, but the tensors before it end at 8 (a gap)"));
    /* one tensor [0, 8) in a 12-byte section: 4 bytes belong to no tensor */
    write_st("tail.safetensors",
             "{\"x\": {\"dtype\": \"BF16\", \"shape\": [4], \"data_offsets\": [0, 8]}}", 12, 0);
    assert_int_equal(read_st("tail.safetensors", &s, &err), KVP_CONFIG);
    assert_non_null(strstr(err.message, "end at byte 8 of the 12-byte data section"));
}

static void write_index(const char *text) {
    char path[512];
    snprintf(path, sizeof path, "%s/model.safetensors.index.json", g_dir);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static void test_folder_and_index(void **state) {
    (void)state;
    uint64_t bytes = 0;
    char src[96];
    kvp_error err;
    /* empty folder: nothing to read */
    assert_int_equal(kvp_safetensors_dir_bytes(g_dir, &bytes, src, sizeof src, &err),
                     KVP_NOT_FOUND);
    /* two shards without an index: 53 + 12 */
    write_st("model-00001-of-00002.safetensors", k_good, 53, 0);
    write_st("model-00002-of-00002.safetensors",
             "{\"z\": {\"dtype\": \"BF16\", \"shape\": [6], \"data_offsets\": [0, 12]}}", 12, 0);
    assert_int_equal(kvp_safetensors_dir_bytes(g_dir, &bytes, src, sizeof src, &err), KVP_OK);
    assert_int_equal(bytes, 65);
    assert_string_equal(src, "safetensors headers (2 files)");
    /* an index without total_size: the shards' headers (a..f in shard 1, z in 2) */
#define MAP_1_2                                                                        \
    "\"weight_map\": {\"a\": \"model-00001-of-00002.safetensors\","                      \
    " \"b\": \"model-00001-of-00002.safetensors\", \"c\": \"model-00001-of-00002.safetensors\"," \
    " \"d\": \"model-00001-of-00002.safetensors\", \"e\": \"model-00001-of-00002.safetensors\"," \
    " \"f\": \"model-00001-of-00002.safetensors\", \"z\": \"model-00002-of-00002.safetensors\"}}"
    write_index("{\"metadata\": {}, " MAP_1_2);
    assert_int_equal(kvp_safetensors_dir_bytes(g_dir, &bytes, src, sizeof src, &err), KVP_OK);
    assert_int_equal(bytes, 65);
    assert_string_equal(src, "safetensors headers (2 shards of the index)");
    /* the index's total_size when stated: it must be what the headers hold */
    write_index("{\"metadata\": {\"total_size\": 65}, " MAP_1_2);
    assert_int_equal(kvp_safetensors_dir_bytes(g_dir, &bytes, src, sizeof src, &err), KVP_OK);
    assert_int_equal(bytes, 65);
    assert_string_equal(src, "safetensors index total_size");
    /* a total_size the shards contradict (16060522496 is Llama-3.1-8B's, the
     * shards hold 53 + 12 = 65 B): refused by name, never believed */
    write_index("{\"metadata\": {\"total_size\": 16060522496}, " MAP_1_2);
    assert_int_equal(kvp_safetensors_dir_bytes(g_dir, &bytes, src, sizeof src, &err), KVP_CONFIG);
    assert_string_equal(err.key, "/metadata/total_size");
    assert_non_null(strstr(err.message, "states 16060522496 bytes, but the headers of its 2 "
                                        "shards hold 65 bytes"));
    /* a weight map naming 2 tensors of the 7 the shards hold */
    write_index("{\"weight_map\": {\"a\": \"model-00001-of-00002.safetensors\","
                " \"z\": \"model-00002-of-00002.safetensors\"}}");
    assert_int_equal(kvp_safetensors_dir_bytes(g_dir, &bytes, src, sizeof src, &err), KVP_CONFIG);
    assert_string_equal(err.key, "/weight_map");
    assert_non_null(strstr(err.message, "names 2 tensors, but the headers of its 2 shards hold 7"));
    /* a tensor named twice in the map */
    write_index("{\"weight_map\": {\"a\": \"model-00001-of-00002.safetensors\","
                " \"a\": \"model-00002-of-00002.safetensors\"}}");
    assert_int_equal(kvp_safetensors_dir_bytes(g_dir, &bytes, src, sizeof src, &err), KVP_SYNTAX);
    assert_non_null(strstr(err.message, "duplicate"));
    /* a file path inside the folder works too */
    write_index("{\"metadata\": {}, " MAP_1_2);
    char cfg[512];
    snprintf(cfg, sizeof cfg, "%s/model-00001-of-00002.safetensors", g_dir);
    assert_int_equal(kvp_safetensors_dir_bytes(cfg, &bytes, NULL, 0, &err), KVP_OK);
    /* an index naming a missing shard */
    write_index("{\"metadata\": {\"total_size\": 100}, \"weight_map\":"
                " {\"a\": \"model-00001-of-00003.safetensors\"}}");
    memset(&err, 0x5A, sizeof err);
    assert_int_equal(kvp_safetensors_dir_bytes(g_dir, &bytes, src, sizeof src, &err), KVP_IO);
    assert_non_null(strstr(err.message, "model-00001-of-00003.safetensors"));
    assert_non_null(strstr(err.message, "missing"));
    assert_string_equal(err.key, "/weight_map");
    /* a shard name that escapes the folder */
    write_index("{\"weight_map\": {\"a\": \"../../etc/passwd\"}}");
    assert_int_equal(kvp_safetensors_dir_bytes(g_dir, &bytes, src, sizeof src, &err), KVP_CONFIG);
    write_index("{\"weight_map\": ");
    assert_int_equal(kvp_safetensors_dir_bytes(g_dir, &bytes, src, sizeof src, &err), KVP_SYNTAX);
}

/* The estimate takes the exact total from the index and splits it per rank
 * in the config's proportions, adding back the rotary cache no checkpoint
 * stores. Llama-3.1-8B's index states 16,060,522,496 B (its published
 * total_size); at TP 1 the rank holds all of it plus 131072 * 128 * 2 =
 * 33,554,432 B of rotary cache = 16,094,076,928 B (vLLM: 14.9888 GiB). */
static void test_estimate_uses_safetensors(void **state) {
    (void)state;
    /* Two shards whose headers hold 16,060,522,496 B in all (BF16 tensors of
     * 4,015,130,624 elements = 8,030,261,248 B each), data left sparse. */
    static const char *shard =
        "{\"w\": {\"dtype\": \"BF16\", \"shape\": [4015130624], \"data_offsets\": [0, 8030261248]}}";
    write_st_sparse("model-00001-of-00002.safetensors", shard, 8030261248ull);
    static const char *shard2 =
        "{\"v\": {\"dtype\": \"BF16\", \"shape\": [4015130624], \"data_offsets\": [0, 8030261248]}}";
    write_st_sparse("model-00002-of-00002.safetensors", shard2, 8030261248ull);
    write_index("{\"metadata\": {\"total_size\": 16060522496}, \"weight_map\":"
                " {\"w\": \"model-00001-of-00002.safetensors\","
                " \"v\": \"model-00002-of-00002.safetensors\"}}");
    kvp_model *m = NULL;
    kvp_error err;
    assert_int_equal(kvp_model_open("meta-llama/Llama-3.1-8B", NULL, &m, &err), KVP_OK);
    kvp_estimate_settings s;
    memset(&s, 0, sizeof s);
    s.total_bytes = 80ull << 30;
    s.model_dir = g_dir;
    kvp_memory_facts f;
    kvp_estimate_detail d;
    assert_int_equal(kvp_memory_estimate_detail(m, &s, &f, &d, &err), KVP_OK);
    assert_int_equal(d.weights_exact_total_bytes, 16060522496ull);
    assert_int_equal(f.weights_bytes, 16094076928ull);
    assert_string_equal(f.weights_source, "safetensors index total_size");
    assert_false(f.estimated & KVP_MEM_EST_WEIGHTS);
    /* a missing shard is an error of the estimate, not a silent fallback */
    write_index("{\"metadata\": {\"total_size\": 1}, \"weight_map\": {\"a\": \"gone.safetensors\"}}");
    assert_int_equal(kvp_memory_estimate(m, &s, &f, &err), KVP_IO);
    kvp_model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_dtype_sizes_and_offsets, setup, teardown),
        cmocka_unit_test_setup_teardown(test_truncated_header, setup, teardown),
        cmocka_unit_test_setup_teardown(test_length_larger_than_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_entries, setup, teardown),
        cmocka_unit_test_setup_teardown(test_folder_and_index, setup, teardown),
        cmocka_unit_test_setup_teardown(test_estimate_uses_safetensors, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
