/* sweep_grid.c — the grid of `kvplan sweep` (kvplan/sweep.h): axes parsed from
 * "KEY=VALUES" once, points enumerated by index (odometer order) so a caller
 * can stream them without holding the grid's plans. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvplan/sweep.h"
#include "kvplan/units.h"
#include "util.h"

typedef enum axis_kind { AX_POLICY = 0, AX_KV_DTYPE, AX_TP, AX_PP, AX_SEQ_LEN, AX_COUNT } axis_kind;

static const char *const k_axis_names[AX_COUNT] = {"policy", "kv-dtype", "tp", "pp", "max-seq-len"};

#define MAX_LIST 256   /* values of a text axis (policy, kv-dtype) */
#define TEXT_MAX 24    /* kvp_deploy_point.kv_dtype */

typedef struct axis {
    bool used;
    size_t n;
    char (*text)[TEXT_MAX]; /* n values (policy, dtype) */
    uint64_t *num;          /* n values (tp, pp, length) */
} axis;

struct kvp_sweep_grid {
    axis axes[AX_COUNT];
    kvp_allocator alc; /* copy of the caller's (borrowed context) */
    bool has_alc;
};

static const kvp_allocator *grid_alc(const kvp_sweep_grid *g) { return g->has_alc ? &g->alc : NULL; }

static kvp_status bad(kvp_error *err, const char *fmt, ...) KVP_PRINTF(2, 3);
static kvp_status bad(kvp_error *err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    kvp_status st = kvp__vfail(err, KVP_INVALID_ARG, NULL, NULL, fmt, ap);
    va_end(ap);
    if (err) kvp__strlcpy(err->key, "over", sizeof err->key); /* the message names it */
    return st;
}

kvp_sweep_grid *kvp_sweep_grid_new(void) { return kvp_sweep_grid_new_with(NULL); }

/* Owned by the caller: kvp_sweep_grid_free. */
kvp_sweep_grid *kvp_sweep_grid_new_with(const kvp_allocator *alc) {
    kvp_sweep_grid *g = kvp__calloc(alc, 1, sizeof *g);
    if (g && alc) {
        g->alc = *alc;
        g->has_alc = true;
    }
    return g;
}

void kvp_sweep_grid_free(kvp_sweep_grid *g) {
    if (!g) return;
    kvp_allocator copy = g->alc; /* the grid holding it is freed last */
    const kvp_allocator *alc = g->has_alc ? &copy : NULL;
    for (int k = 0; k < AX_COUNT; k++) {
        kvp__free(alc, g->axes[k].text);
        kvp__free(alc, g->axes[k].num);
    }
    kvp__free(alc, g);
}

static bool axis_key(const char *k, axis_kind *out) {
    if (!strcmp(k, "max-seq-len") || !strcmp(k, "seq-len") || !strcmp(k, "max-model-len") ||
        !strcmp(k, "context") || !strcmp(k, "context-length") || !strcmp(k, "max_seq_len"))
        *out = AX_SEQ_LEN;
    else if (!strcmp(k, "kv-dtype") || !strcmp(k, "dtype") || !strcmp(k, "kv_dtype"))
        *out = AX_KV_DTYPE;
    else if (!strcmp(k, "tp"))
        *out = AX_TP;
    else if (!strcmp(k, "pp"))
        *out = AX_PP;
    else if (!strcmp(k, "policy") || !strcmp(k, "engine"))
        *out = AX_POLICY;
    else
        return false;
    return true;
}

/* Values of one item "a", "a..b" (doubling) or "a..b+s" (step s). Counts
 * first (out NULL) so the grid is checked before anything is stored. */
static kvp_status numeric_item(const char *key, const char *item, uint64_t *out, size_t cap,
                               size_t *count, kvp_error *err) {
    char buf[96];
    kvp__strlcpy(buf, item, sizeof buf);
    char *dots = strstr(buf, "..");
    kvp_error e;
    uint64_t lo, hi, step = 0;
    if (!dots) {
        if (kvp_parse_count(buf, &lo, &e) != KVP_OK || lo == 0)
            return bad(err, "over %s: '%s' is not a positive count", key, item);
        if (out && *count < cap) out[*count] = lo;
        (*count)++;
        return KVP_OK;
    }
    *dots = '\0';
    char *rhs = dots + 2, *plus = strchr(rhs, '+');
    if (plus) {
        *plus = '\0';
        if (kvp_parse_count(plus + 1, &step, &e) != KVP_OK || step == 0)
            return bad(err, "over %s: bad step in '%s'", key, item);
    }
    if (kvp_parse_count(buf, &lo, &e) != KVP_OK || kvp_parse_count(rhs, &hi, &e) != KVP_OK || lo == 0 ||
        hi < lo)
        return bad(err, "over %s: '%s' is not a range LO..HI with 0 < LO <= HI", key, item);
    for (uint64_t v = lo; v <= hi;) {
        if (*count > KVP_SWEEP_MAX_PLANS)
            return bad(err, "over %s: '%s' has more than %u values", key, item, KVP_SWEEP_MAX_PLANS);
        if (out && *count < cap) out[*count] = v;
        (*count)++;
        uint64_t next;
        if (step ? !kvp__add_u64(v, step, &next) : !kvp__mul_u64(v, 2, &next)) break;
        v = next;
    }
    return KVP_OK;
}

/* Each comma-separated item of `list` counted (out NULL) or stored. */
static kvp_status numeric_list(const char *key, const char *list, uint64_t *out, size_t cap,
                               size_t *count, kvp_error *err) {
    char tmp[4096];
    kvp__strlcpy(tmp, list, sizeof tmp);
    char *save = NULL;
    for (char *it = strtok_r(tmp, ",", &save); it; it = strtok_r(NULL, ",", &save)) {
        kvp_status st = numeric_item(key, it, out, cap, count, err);
        if (st) return st;
    }
    return KVP_OK;
}

static kvp_status text_list(const char *key, axis_kind k, const char *list, axis *a,
                            const kvp_allocator *alc, kvp_error *err) {
    char tmp[4096];
    kvp__strlcpy(tmp, list, sizeof tmp);
    size_t count = 0;
    char *save = NULL;
    for (char *it = strtok_r(tmp, ",", &save); it; it = strtok_r(NULL, ",", &save)) count++;
    if (count == 0) return bad(err, "over %s has no values", key);
    if (count > MAX_LIST) return bad(err, "over %s: more than %d values", key, MAX_LIST);
    a->text = kvp__calloc(alc, count, sizeof *a->text);
    if (!a->text) return kvp__fail(err, KVP_NOMEM, NULL, "over", "out of memory");
    kvp__strlcpy(tmp, list, sizeof tmp);
    save = NULL;
    size_t i = 0;
    for (char *it = strtok_r(tmp, ",", &save); it && i < count; it = strtok_r(NULL, ",", &save), i++) {
        if (strlen(it) >= TEXT_MAX) return bad(err, "over %s: '%s' is too long", key, it);
        kvp_engine en;
        if (k == AX_POLICY && kvp_engine_parse(it, &en) != KVP_OK)
            return bad(err, "over policy: unknown engine '%s' (expected trtllm, vllm, sglang, llamacpp)", it);
        kvp__strlcpy(a->text[i], it, TEXT_MAX);
    }
    a->n = count;
    return KVP_OK;
}

static kvp_status parse_values(const char *key, axis_kind k, const char *vals, axis *a,
                               const kvp_allocator *alc, kvp_error *err) {
    if (strlen(vals) > 4000) return bad(err, "over %s: the list is too long", key);
    /* An empty item (",,", or a comma at either end) is no value: refused, not
     * skipped (issue 29: an empty list item accepted). Only commas: no values. */
    if (strspn(vals, ",") == strlen(vals)) return bad(err, "over %s has no values", key);
    size_t vn = strlen(vals);
    if (vals[0] == ',' || vals[vn - 1] == ',' || strstr(vals, ",,"))
        return bad(err, "over %s: '%s' holds an empty value (a comma with nothing on one side)",
                   key, vals);
    if (k == AX_POLICY || k == AX_KV_DTYPE) return text_list(key, k, vals, a, alc, err);
    size_t count = 0;
    kvp_status st = numeric_list(key, vals, NULL, 0, &count, err);
    if (st) return st;
    if (count == 0) return bad(err, "over %s has no values", key);
    if (count > KVP_SWEEP_MAX_PLANS) return bad(err, "over %s: more than %u values", key, KVP_SWEEP_MAX_PLANS);
    a->num = kvp__calloc(alc, count, sizeof *a->num);
    if (!a->num) return kvp__fail(err, KVP_NOMEM, NULL, "over", "out of memory");
    size_t got = 0;
    if ((st = numeric_list(key, vals, a->num, count, &got, err))) return st;
    a->n = count;
    uint64_t limit = k == AX_SEQ_LEN ? (1ull << 32) : 65536;
    for (size_t i = 0; i < count; i++)
        if (a->num[i] > limit)
            return bad(err, "over %s: %llu is above %s", key, (unsigned long long)a->num[i],
                       k == AX_SEQ_LEN ? "2^32 tokens" : "65536");
    return KVP_OK;
}

kvp_status kvp_sweep_grid_over(kvp_sweep_grid *g, const char *spec, kvp_error *err) {
    if (!g || !spec) return kvp__fail(err, KVP_INVALID_ARG, NULL, "over", "over: no grid or spec");
    char key[48];
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec || (size_t)(eq - spec) >= sizeof key || !eq[1])
        return bad(err, "over: '%s' is not KEY=VALUES (e.g. max-seq-len=4k..128k)", spec);
    memcpy(key, spec, (size_t)(eq - spec));
    key[eq - spec] = '\0';
    axis_kind k;
    if (!axis_key(key, &k))
        return bad(err, "over: unknown key '%s' (expected max-seq-len, kv-dtype, tp, pp, policy)", key);
    if (g->axes[k].used) return bad(err, "over %s given twice", key);
    /* Parsed aside: a spec that fails leaves the grid as it was. */
    axis a;
    memset(&a, 0, sizeof a);
    kvp_status st = parse_values(key, k, eq + 1, &a, grid_alc(g), err);
    if (st != KVP_OK) {
        kvp__free(grid_alc(g), a.text);
        kvp__free(grid_alc(g), a.num);
        return st;
    }
    a.used = true;
    g->axes[k] = a;
    return KVP_OK;
}

size_t kvp_sweep_grid_axes(const kvp_sweep_grid *g, const char **names, size_t cap) {
    size_t n = 0;
    for (int k = 0; g && k < AX_COUNT; k++)
        if (g->axes[k].used) {
            if (names && n < cap) names[n] = k_axis_names[k];
            n++;
        }
    return n;
}

unsigned kvp_sweep_grid_engines(const kvp_sweep_grid *grid) {
    unsigned bits = 0;
    const axis *a = &grid->axes[AX_POLICY];
    for (size_t i = 0; a->used && i < a->n; i++) {
        kvp_engine en;
        if (kvp_engine_parse(a->text[i], &en) == KVP_OK) bits |= 1u << (unsigned)en;
    }
    return bits;
}

size_t kvp_sweep_grid_axis_size(const kvp_sweep_grid *g, const char *name) {
    axis_kind k;
    if (!g || !name || !axis_key(name, &k)) return 0;
    return g->axes[k].used ? g->axes[k].n : 0;
}

kvp_status kvp_sweep_grid_count(const kvp_sweep_grid *g, uint64_t max_plans, uint64_t *count,
                                kvp_error *err) {
    *count = 0;
    if (!g || kvp_sweep_grid_axes(g, NULL, 0) == 0)
        return bad(err, "sweep needs at least one over KEY=VALUES (e.g. max-seq-len=4k..128k)");
    uint64_t n = 1;
    for (int k = 0; k < AX_COUNT; k++) {
        if (!g->axes[k].used) continue;
        if (!kvp__mul_u64(n, g->axes[k].n, &n) || n > KVP_SWEEP_MAX_PLANS) n = UINT64_MAX;
    }
    if (max_plans > KVP_SWEEP_MAX_PLANS) max_plans = KVP_SWEEP_MAX_PLANS;
    if (n > max_plans) {
        char num[32];
        if (n == UINT64_MAX)
            snprintf(num, sizeof num, "too many");
        else
            kvp__fmt_count(n, num, sizeof num);
        kvp__fail(err, KVP_INVALID_ARG, NULL, NULL,
                         "the grid has %s plans, more than max_plans %llu: narrow over or raise "
                         "max_plans (at most %u)",
                         num, (unsigned long long)max_plans, KVP_SWEEP_MAX_PLANS);
        if (err) kvp__strlcpy(err->key, "max_plans", sizeof err->key);
        return KVP_INVALID_ARG;
    }
    *count = n;
    return KVP_OK;
}

void kvp_sweep_grid_point(const kvp_sweep_grid *g, uint64_t index, const kvp_fit_point *base,
                          kvp_fit_point *out) {
    *out = *base;
    /* Odometer: the last axis (length) turns fastest. */
    size_t idx[AX_COUNT] = {0};
    for (int k = AX_COUNT - 1; k >= 0; k--) {
        const axis *a = &g->axes[k];
        if (!a->used || a->n == 0) continue;
        idx[k] = (size_t)(index % a->n);
        index /= a->n;
    }
    const axis *a = g->axes;
    if (a[AX_POLICY].used && kvp_engine_parse(a[AX_POLICY].text[idx[AX_POLICY]], &out->engine) != KVP_OK)
        out->engine = KVP_ENGINE_TRTLLM; /* checked when parsed */
    if (a[AX_KV_DTYPE].used) kvp__strlcpy(out->kv_dtype, a[AX_KV_DTYPE].text[idx[AX_KV_DTYPE]], sizeof out->kv_dtype);
    if (a[AX_TP].used) out->tp = (uint32_t)a[AX_TP].num[idx[AX_TP]];
    if (a[AX_PP].used) out->pp = (uint32_t)a[AX_PP].num[idx[AX_PP]];
    if (a[AX_SEQ_LEN].used) out->max_seq_len = a[AX_SEQ_LEN].num[idx[AX_SEQ_LEN]];
}
