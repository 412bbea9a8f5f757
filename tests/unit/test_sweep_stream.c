/* test_sweep_stream.c — a sweep streams (issue 12 item 9): kvp_sweep_run plans
 * every point of the grid into one result and hands each row over as it is
 * planned, in odometer order, with the figures kvp_fit_evaluate gives for that
 * point (byte for byte, across engines, TPs and lengths: the memory estimate
 * the rows share is the one each point gets alone); the heap in use does not
 * grow with the rows; and the streamed JSON
 * (head, rows, tail) is byte for byte the document kvp_render_sweep_json
 * builds from every row at once. */
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kvplan/deploy.h"
#include "kvplan/fit.h"
#include "kvplan/model.h"
#include "kvplan/render.h"
#include "kvplan/sweep.h"
#include "util.h"

static kvp_model *g_model; /* llama-3.1-8b */

static int setup(void **state) {
    (void)state;
    kvp_error err;
    return kvp_model_open("llama-3.1-8b", NULL, &g_model, &err) == KVP_OK ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    kvp_model_free(g_model);
    return 0;
}

static kvp_sweep_grid *grid_of(const char *const *specs) {
    kvp_sweep_grid *g = kvp_sweep_grid_new();
    assert_non_null(g);
    kvp_error err;
    for (size_t i = 0; specs[i]; i++) assert_int_equal(kvp_sweep_grid_over(g, specs[i], &err), KVP_OK);
    return g;
}

/* 80 GiB of device memory, the rest estimated (as `--gpu-mem 80GiB`). */
static kvp_deployment deployment(void) {
    kvp_deployment d = kvp_deployment_default();
    d.model = g_model;
    d.memory.total_bytes = 80ull << 30;
    return d;
}

/* ------------------------------------------------ rows in order, one result */

typedef struct collect {
    const kvp_sweep_grid *grid;
    const kvp_deployment *d;
    const kvp_fit_eval *first;  /* the result the first row came in */
    uint64_t next;              /* the index expected */
    uint64_t stop_at;           /* return KVP_INFEASIBLE at this index (UINT64_MAX: never) */
    kvp_fit_eval *rows;         /* copies, when not NULL */
    kvp_fit_eval *direct;       /* scratch */
} collect;

static kvp_status on_row(uint64_t index, uint64_t count, const kvp_fit_eval *row, void *ctx,
                         kvp_error *err) {
    collect *c = ctx;
    assert_int_equal(index, c->next);
    assert_true(index < count);
    if (index == 0) c->first = row;
    /* Every row comes in the same result: nothing is held per row. */
    assert_ptr_equal(row, c->first);
    /* The figures of that point planned on its own. */
    kvp_fit_point p;
    kvp_sweep_grid_point(c->grid, index, &c->d->point, &p);
    kvp_error e;
    assert_int_equal(kvp_fit_evaluate(c->d, &p, c->direct, &e), KVP_OK);
    assert_int_equal(row->status, c->direct->status);
    assert_int_equal(row->point.max_seq_len, c->direct->point.max_seq_len);
    assert_int_equal(row->point.engine, c->direct->point.engine);
    assert_int_equal(row->tokens, c->direct->tokens);
    assert_int_equal(row->max_sequences, c->direct->max_sequences);
    if (c->rows) c->rows[index] = *row;
    c->next++;
    if (index == c->stop_at) return kvp__fail(err, KVP_INFEASIBLE, NULL, NULL, "stop");
    return KVP_OK;
}

/* 2 engines x 2 dtypes x 6 lengths = 24 rows, in odometer order (length
 * fastest); a callback's error stops the sweep at that row. */
static void test_rows_in_order(void **state) {
    (void)state;
    static const char *const specs[] = {"policy=vllm,trtllm", "kv-dtype=auto,fp8",
                                        "max-seq-len=4k..128k", NULL};
    kvp_sweep_grid *g = grid_of(specs);
    kvp_deployment d = deployment();
    collect c = {g, &d, NULL, 0, UINT64_MAX, NULL, kvp_deploy_result_new()};
    assert_non_null(c.direct);
    kvp_error err;
    assert_int_equal(kvp_sweep_run(g, &d, &d.point, 10000, on_row, &c, &err), KVP_OK);
    assert_int_equal(c.next, 2 * 2 * 6); /* 4k, 8k, 16k, 32k, 64k, 128k */
    c.next = 0;
    c.stop_at = 5;
    assert_int_equal(kvp_sweep_run(g, &d, &d.point, 10000, on_row, &c, &err), KVP_INFEASIBLE);
    assert_int_equal(c.next, 6); /* rows 0..5, then stopped */
    /* The bound is checked before anything is planned: 24 > 23. */
    c.next = 0;
    c.stop_at = UINT64_MAX;
    assert_int_equal(kvp_sweep_run(g, &d, &d.point, 23, on_row, &c, &err), KVP_INVALID_ARG);
    assert_string_equal(err.key, "max_plans");
    assert_int_equal(c.next, 0);
    kvp_deploy_result_free(c.direct);
    kvp_sweep_grid_free(g);
}

/* ------------------------------------------------ a row is its point alone */

typedef struct alone {
    const kvp_sweep_grid *grid;
    const kvp_deployment *d;
    kvp_fit_eval *direct;
    uint64_t rows, estimated; /* rows seen; of them, with estimated memory */
} alone;

static kvp_status same_as_alone(uint64_t index, uint64_t count, const kvp_fit_eval *row,
                                void *ctx, kvp_error *err) {
    (void)count;
    (void)err;
    alone *a = ctx;
    kvp_fit_point p;
    kvp_sweep_grid_point(a->grid, index, &a->d->point, &p);
    kvp_error e;
    assert_int_equal(kvp_fit_evaluate(a->d, &p, a->direct, &e), KVP_OK);
    /* Byte for byte: the figures, the memory terms and their sources, the
     * warnings, the start-up rows. The sweep keeps one memory estimate across
     * its rows (deploy.c kvp__deploy_run): a row must not tell. */
    assert_memory_equal(&row->memory, &a->direct->memory, sizeof row->memory);
    assert_memory_equal(row, a->direct, sizeof *row);
    a->rows++;
    if (row->memory_estimated) a->estimated++;
    return KVP_OK;
}

/* A hybrid (Mamba-2 + attention) over every engine, two TPs and the lengths
 * around TensorRT-LLM's dummy requests of min(8192, max_seq_len - 1) tokens
 * (8191 -> 8190, 8192 -> 8191, 8193 and above -> 8192, the same estimate):
 * 4 x 2 x 6 = 48 rows, each identical to its point planned alone. */
static void test_rows_equal_alone(void **state) {
    (void)state;
    kvp_model *m = NULL;
    kvp_error err;
    assert_int_equal(kvp_model_open("nemotron-h-8b-base-8k", NULL, &m, &err), KVP_OK);
    static const char *const specs[] = {"policy=trtllm,vllm,sglang,llamacpp", "tp=1,2",
                                        "max-seq-len=4096,8191,8192,8193,8194,65536", NULL};
    kvp_sweep_grid *g = grid_of(specs);
    kvp_deployment d = deployment();
    d.model = m;
    alone a = {g, &d, kvp_deploy_result_new(), 0, 0};
    assert_non_null(a.direct);
    assert_int_equal(kvp_sweep_run(g, &d, &d.point, 10000, same_as_alone, &a, &err), KVP_OK);
    assert_int_equal(a.rows, 48);
    assert_int_equal(a.estimated, 48); /* nothing measured: every row's memory is estimated */
    kvp_deploy_result_free(a.direct);
    kvp_sweep_grid_free(g);
    kvp_model_free(m);
}

/* The creator's pools are kept across rows (pools_memo.h, keyed on the cost
 * settings and the windows as kept): rows that change TP, pipeline stage, KV
 * dtype and max_seq_len across a sliding window (Gemma-3 with its 5:1 pattern
 * of 1024-token windows as max_attention_window: a window at or above
 * max_seq_len is kept as full context, so 512..1024 plan one full pool and
 * 1025 a window pool and a full one), a hybrid on the V2 manager (Qwen3.5), and MTP draft layers
 * (DeepSeek-V3, spec MTP: a folded draft on the last stage) must each equal
 * the point planned alone, with a fresh creator. 2 x 2 x 2 x 5 = 40 rows a
 * model. */
static void test_creator_rows_equal_alone(void **state) {
    (void)state;
    static const char *const models[] = {"gemma-3-27b-pt", "gemma-3-27b-pt", "qwen3.5-27b",
                                         "deepseek-v3-0324"};
    static const char *const specs[] = {"tp=1,2", "pp=1,2", "kv-dtype=auto,fp8",
                                        "max-seq-len=512,1023,1024,1025,32768", NULL};
    for (size_t k = 0; k < sizeof models / sizeof models[0]; k++) {
        kvp_model *m = NULL;
        kvp_error err;
        assert_int_equal(kvp_model_open(models[k], NULL, &m, &err), KVP_OK);
        kvp_sweep_grid *g = grid_of(specs);
        kvp_deployment d = deployment();
        d.model = m;
        d.memory.total_bytes = 141ull << 30;
        /* Gemma-3's 5:1 pattern as TensorRT-LLM's max_attention_window (the
         * creator normalises it against each row's max_seq_len). */
        static const uint64_t windows[] = {1024, 1024, 1024, 1024, 1024, 131072};
        if (k == 1) {
            d.kv.max_attention_window = windows;
            d.kv.max_attention_window_count = 6;
        }
        if (k == 3) d.trtllm.spec_mode = KVP_SPEC_MTP;
        alone a = {g, &d, kvp_deploy_result_new(), 0, 0};
        assert_non_null(a.direct);
        assert_int_equal(kvp_sweep_run(g, &d, &d.point, 10000, same_as_alone, &a, &err), KVP_OK);
        assert_int_equal(a.rows, 40);
        kvp_deploy_result_free(a.direct);
        kvp_sweep_grid_free(g);
        kvp_model_free(m);
    }
}

/* ------------------------------------------------ memory does not grow */

/* Heap in use: glibc's count, or ASan's when its allocator replaces glibc's
 * (mallinfo2 then reads 0). */
#if defined(__SANITIZE_ADDRESS__)
/* ASan's allocator interface (sanitizer/allocator_interface.h, not shipped with every gcc). */
size_t __sanitizer_get_current_allocated_bytes(void);
static size_t heap_in_use(void) { return __sanitizer_get_current_allocated_bytes(); }
#else
static size_t heap_in_use(void) { return mallinfo2().uordblks; }
#endif

typedef struct heap_probe {
    size_t at_100, at_2000;
} heap_probe;

static kvp_status probe_row(uint64_t index, uint64_t count, const kvp_fit_eval *row, void *ctx,
                            kvp_error *err) {
    (void)count;
    (void)row;
    (void)err;
    heap_probe *h = ctx;
    /* Rendered and dropped, as the CLI does. */
    char *text = NULL;
    kvp_error e;
    assert_int_equal(kvp_render_sweep_json_row(row, index, &text, &e), KVP_OK);
    kvp_render_free(text);
    if (index == 100) h->at_100 = heap_in_use();
    if (index == 2000) h->at_2000 = heap_in_use();
    return KVP_OK;
}

/* 2,400 lengths (1k..2400k step 1k): the heap in use at row 2,000 is what it
 * was at row 100, give or take allocator noise (64 KiB; one kvp_deploy_result
 * held per row would be 1,900 x sizeof(kvp_deploy_result) more, megabytes). */
static void test_heap_flat(void **state) {
    (void)state;
    static const char *const specs[] = {"max-seq-len=1k..2400k+1k", NULL};
    kvp_sweep_grid *g = grid_of(specs);
    kvp_deployment d = deployment();
    heap_probe h = {0, 0};
    kvp_error err;
    assert_int_equal(kvp_sweep_run(g, &d, &d.point, 10000, probe_row, &h, &err), KVP_OK);
    assert_true(h.at_100 > 0 && h.at_2000 > 0);
    size_t grew = h.at_2000 > h.at_100 ? h.at_2000 - h.at_100 : 0;
    /* The bound catches one result held per row: 1,900 of them are far above it. */
    assert_true(1900 * sizeof(kvp_deploy_result) > ((size_t)64 << 10));
    assert_true(grew < (size_t)64 << 10);
    kvp_sweep_grid_free(g);
}

/* ------------------------------------------------ streamed JSON == the tree */

static char *streamed(const kvp_render_input *in, const char *const *axes, size_t n_axes,
                      const kvp_fit_eval *rows, uint64_t count) {
    kvp_error err;
    char *head = NULL;
    assert_int_equal(kvp_render_sweep_json_head(in, axes, n_axes, count, &head, &err), KVP_OK);
    size_t cap = strlen(head) + 64, len = strlen(head);
    char *all = malloc(cap);
    assert_non_null(all);
    memcpy(all, head, len + 1);
    kvp_render_free(head);
    for (uint64_t i = 0; i <= count; i++) {
        char *piece = NULL;
        const char *add;
        if (i < count) {
            assert_int_equal(kvp_render_sweep_json_row(&rows[i], i, &piece, &err), KVP_OK);
            add = piece;
        } else {
            add = kvp_render_sweep_json_tail(count);
        }
        size_t k = strlen(add);
        if (len + k + 1 > cap) {
            cap = 2 * (len + k + 1);
            all = realloc(all, cap);
            assert_non_null(all);
        }
        memcpy(all + len, add, k + 1);
        len += k;
        kvp_render_free(piece);
    }
    return all;
}

static void assert_stream_is_tree(const char *const *specs, kvp_deployment d) {
    kvp_sweep_grid *g = grid_of(specs);
    uint64_t count;
    kvp_error err;
    assert_int_equal(kvp_sweep_grid_count(g, 10000, &count, &err), KVP_OK);
    kvp_fit_eval *rows = calloc(count, sizeof *rows);
    const kvp_fit_eval **ptrs = calloc(count, sizeof *ptrs);
    assert_non_null(rows);
    assert_non_null(ptrs);
    collect c = {g, &d, NULL, 0, UINT64_MAX, rows, kvp_deploy_result_new()};
    assert_int_equal(kvp_sweep_run(g, &d, &d.point, 10000, on_row, &c, &err), KVP_OK);
    for (uint64_t i = 0; i < count; i++) ptrs[i] = &rows[i];
    const char *axes[8];
    size_t n = kvp_sweep_grid_axes(g, axes, 8);
    kvp_render_input in = {g_model, "H100 SXM 80GB", NULL, NULL, 0, NULL, NULL};
    char *tree = NULL;
    assert_int_equal(kvp_render_sweep_json(&in, axes, n, ptrs, count, &tree, &err), KVP_OK);
    char *stream = streamed(&in, axes, n, rows, count);
    assert_string_equal(stream, tree);
    /* No rows: "rows": [] both ways. */
    char *tree0 = NULL;
    assert_int_equal(kvp_render_sweep_json(&in, axes, n, ptrs, 0, &tree0, &err), KVP_OK);
    char *stream0 = streamed(&in, axes, n, rows, 0);
    assert_string_equal(stream0, tree0);
    assert_non_null(strstr(tree0, "\"rows\": []"));
    kvp_render_free(tree);
    kvp_render_free(tree0);
    free(stream);
    free(stream0);
    kvp_deploy_result_free(c.direct);
    free(rows);
    free(ptrs);
    kvp_sweep_grid_free(g);
}

/* Rows that plan, rows a start-up rule refuses (tp 3: 32 heads, V-PAR-1 with its
 * nested "checks"), rows that do not fit (1M tokens at 80 GiB), every engine. */
static void test_stream_is_tree(void **state) {
    (void)state;
    static const char *const a[] = {"policy=trtllm,vllm,sglang,llamacpp", "tp=1,3",
                                    "max-seq-len=64k..1024k", NULL};
    assert_stream_is_tree(a, deployment());
    /* A KV budget too small for anything: every row an error row. */
    kvp_deployment d = deployment();
    d.memory.total_bytes = 0;
    d.memory.kv_budget_bytes = 1 << 20;
    static const char *const b[] = {"kv-dtype=auto,fp8", NULL};
    assert_stream_is_tree(b, d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_in_order),
        cmocka_unit_test(test_rows_equal_alone),
        cmocka_unit_test(test_creator_rows_equal_alone),
        cmocka_unit_test(test_heap_flat),
        cmocka_unit_test(test_stream_is_tree),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
