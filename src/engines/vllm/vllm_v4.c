/*
 * vllm_v4.c — DeepSeek-V4 under vLLM (../shared/reference/FAMILIES.md
 * "DeepSeek-V4", vLLM FlashMLA path). The rules, each from that section:
 *
 *   - the KV dtype is forced to the packed fp8 layout: 584 B per entry
 *     (v4_layout.c), whatever --kv-cache-dtype says;
 *   - every layer keeps a sliding window; ratio r > 1 layers one entry per r
 *     tokens; ratio-4 layers 132-byte indexer keys per compressed entry;
 *   - pages of the 584-byte layout are rounded up to a multiple of 576 B;
 *   - the caches are grouped by kind and ratio, and every block is charged the
 *     widest group's page sum (a packed stride): num_blocks = available / stride;
 *   - the fp32 compressor state is per sequence.
 *
 * A block holds `block_size` entries of its group (block_size tokens of the
 * window, block_size x r tokens of a ratio-r cache) [uncertain: the reference
 * does not say how a block maps to compressed entries; this is the reading in
 * which every group's page has the same entry count]. One request of L tokens
 * takes, per group, the blocks vLLM's max_memory_usage_bytes gives (the
 * window: cdiv(min(W - 1 + max_num_batched_tokens, L), bs) + 1, as
 * SlidingWindowSpec; a ratio-r cache: cdiv(cdiv(L, r), bs)), each charged the
 * stride, plus its compressor state. That sum is not slope x L + intercept, so
 * concurrency is available / bytes(L) and the longest request is found by
 * bisection on bytes(L), never by a rounded slope.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "policy_internal.h"

#define PAGE_ALIGN_BYTES 576u /* FAMILIES.md: 584-byte pages rounded up to 576 B multiples */

typedef struct v4_plan {
    kvp__v4_layout lay;
    uint32_t bs;
    uint64_t mnbt;
    uint64_t page[KVP__V4_MAX_GROUPS]; /* one block of one layer */
    uint64_t stride;                   /* the widest group's page sum */
} v4_plan;

static uint64_t group_blocks(const v4_plan *p, const kvp__v4_group *g, uint64_t len) {
    if (g->kind == KVP_CACHE_SLIDING && g->ratio == 1) {
        uint64_t n = g->window ? g->window - 1 + p->mnbt : len;
        if (n > len) n = len;
        return kvp__ceil_div_u64(n, p->bs) + 1;
    }
    return kvp__ceil_div_u64(kvp__v4_entries(g, len), p->bs);
}

static uint64_t request_blocks(const v4_plan *p, uint64_t len) {
    uint64_t r = 0;
    for (uint32_t k = 0; k < p->lay.count; k++) r += group_blocks(p, &p->lay.groups[k], len);
    return r;
}

/* Bytes one request of `len` tokens takes; false on overflow. */
static bool request_bytes(const v4_plan *p, uint64_t len, uint64_t *out) {
    uint64_t b;
    return kvp__mul_u64(request_blocks(p, len), p->stride, &b) &&
           kvp__add_u64(b, p->lay.state_bytes, out);
}

/* The longest request whose bytes fit `budget` (0: none); bytes(L) is non-decreasing. */
static uint64_t longest_fitting(const v4_plan *p, uint64_t len, uint64_t budget) {
    uint64_t lo = 0, hi = len, b;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2;
        if (request_bytes(p, mid, &b) && b <= budget)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

static kvp_status build(const kvp_model *model, const kvp_policy_settings *s, uint64_t mnbt,
                        v4_plan *p, kvp_error *err) {
    memset(p, 0, sizeof *p);
    kvp_status st = kvp__v4_layout_read(model, &p->lay, err);
    if (st) return st;
    /* FlashMLA's 64-token blocks, as for the other MLA models (vllm.c). */
    p->bs = s->block_size ? s->block_size : 64;
    p->mnbt = mnbt;
    for (uint32_t k = 0; k < p->lay.count; k++) {
        const kvp__v4_group *g = &p->lay.groups[k];
        uint64_t page, sum;
        if (!kvp__mul_u64(g->entry_bytes, p->bs, &page))
            return kvp__fail(err, KVP_OVERFLOW, NULL, "block_size", "page bytes overflow");
        if (g->kind != KVP_CACHE_INDEXER)
            page = kvp__ceil_div_u64(page, PAGE_ALIGN_BYTES) * PAGE_ALIGN_BYTES;
        if (!kvp__mul_u64(page, g->layers, &sum))
            return kvp__fail(err, KVP_OVERFLOW, NULL, "block_size", "page bytes overflow");
        p->page[k] = page;
        if (sum > p->stride) p->stride = sum;
    }
    if (p->stride == 0)
        return kvp__fail(err, KVP_CONFIG, kvp_model_name(model), "compress_ratios",
                         "no token cache read: nothing for vLLM to allocate");
    return KVP_OK;
}

kvp_status kvp__policy_vllm_v4(const kvp_model *model, const kvp_policy_settings *s,
                               uint64_t avail, uint64_t len, uint64_t mnbt,
                               kvp_policy_result *out, kvp_error *err) {
    if (s->pp > 1)
        return kvp__fail(err, KVP_UNSUPPORTED, kvp_model_name(model), "pp",
                         "DeepSeek-V4 under vLLM is planned at pipeline parallelism 1 only "
                         "(the per-stage packed stride is not modelled)");
    if (s->num_draft_layers)
        return kvp__fail(err, KVP_UNSUPPORTED, kvp_model_name(model), "num_draft_layers",
                         "DeepSeek-V4's MTP layer cache is not modelled under vLLM");
    v4_plan p;
    kvp_status st = build(model, s, mnbt, &p, err);
    if (st) return st;
    out->kv_dtype = KVP_DTYPE_FP8;
    kvp__strlcpy(out->kv_dtype_name, "fp8_ds_mla", sizeof out->kv_dtype_name);
    if (s->kv_dtype[0] && kvp__strcasecmp(s->kv_dtype, "auto") &&
        kvp__strcasecmp(s->kv_dtype, "fp8_ds_mla"))
        kvp__policy_note(out, "DeepSeek-V4: vLLM forces the fp8_ds_mla layout (584 B per "
                              "entry); --kv-cache-dtype %s is not used",
                         s->kv_dtype);
    out->block_size = p.bs;
    out->num_groups = p.lay.count;
    out->page_bytes = p.stride;
    out->max_model_len = len;

    uint64_t blocks = avail / p.stride;
    uint64_t need = 0;
    if (!request_bytes(&p, len, &need))
        return kvp__fail(err, KVP_OVERFLOW, kvp_model_name(model), "max_model_len",
                         "%llu tokens per request overflow 64-bit bytes", (unsigned long long)len);
    out->needed_bytes = need;
    if (need > avail) {
        uint64_t fit = kvp__policy_vllm_too_long(s, len, need, avail,
                                                 longest_fitting(&p, len, avail), out);
        if (fit < len && !request_bytes(&p, fit, &need)) need = UINT64_MAX;
        len = fit;
    }
    uint64_t per_req = request_blocks(&p, len);
    out->per_request_blocks = per_req;
    /* Concurrency from the exact bytes of one request (blocks x stride + state). */
    uint64_t whole = need ? avail / need : 0;
    double conc = need ? (double)avail / (double)need : 0;
    out->report.num_gpu_blocks = blocks;
    out->report.max_concurrency = conc;
    out->report.gpu_kv_cache_tokens = kvp__double_to_u64(floor(conc * (double)len));
    out->report.available_kv_cache_bytes = avail;
    out->report.present = KVP_REPORT_NUM_GPU_BLOCKS | KVP_REPORT_GPU_KV_CACHE_TOKENS |
                          KVP_REPORT_MAX_CONCURRENCY | KVP_REPORT_AVAILABLE_KV_CACHE_BYTES;

    for (uint32_t k = 0; k < p.lay.count && out->pool_count < KVP_POLICY_MAX_POOLS; k++) {
        const kvp__v4_group *g = &p.lay.groups[k];
        kvp_policy_pool *pl = &out->pools[out->pool_count++];
        kvp__strlcpy(pl->name, kvp__v4_group_name(g), sizeof pl->name);
        pl->kind = g->kind;
        pl->layers = g->layers;
        pl->block_size_tokens = p.bs * g->ratio;
        pl->page_bytes = p.page[k];
        pl->per_request_blocks = group_blocks(&p, g, len);
        /* What the admitted requests hold in this group: their blocks at the stride. */
        uint64_t held = 0, b = 0;
        pl->kv_cache_groups = 1;
        pl->block_bytes = p.stride;
        if (kvp__mul_u64(whole, pl->per_request_blocks, &held)) {
            pl->blocks = held;
            pl->tokens = kvp__mul_u64(held, pl->block_size_tokens, &b) ? b : UINT64_MAX;
            pl->bytes = kvp__mul_u64(held, p.stride, &b) ? b : UINT64_MAX;
        }
    }
    if (p.lay.state_layers && out->pool_count < KVP_POLICY_MAX_POOLS) {
        kvp_policy_pool *pl = &out->pools[out->pool_count++];
        kvp__strlcpy(pl->name, "compressor", sizeof pl->name);
        pl->kind = KVP_CACHE_RECURRENT;
        pl->layers = p.lay.state_layers;
        pl->page_bytes = p.lay.state_bytes;
        pl->per_request_blocks = 1;
        pl->blocks = whole;
        pl->block_bytes = p.lay.state_bytes;
        uint64_t b;
        pl->bytes = kvp__mul_u64(whole, p.lay.state_bytes, &b) ? b : UINT64_MAX;
    }
    /* One packed pool every group draws on (pools[] hold the shares the
     * admitted requests take, blocks at the stride plus their state). */
    out->pool_blocks = blocks;
    out->pool_block_bytes = p.stride;
    out->pool_bytes = blocks * p.stride; /* <= avail: blocks = avail / stride */
    kvp__policy_note(out, "DeepSeek-V4: %u cache groups in one packed pool, every block charged "
                          "the widest group's page sum (%llu B); one request of %llu tokens "
                          "takes %llu blocks + %llu B of fp32 compressor state = %llu B",
                     p.lay.count, (unsigned long long)p.stride, (unsigned long long)len,
                     (unsigned long long)per_req, (unsigned long long)p.lay.state_bytes,
                     (unsigned long long)need);
    return KVP_OK;
}
