/*
 * budget.c — the seed's arithmetic on bytes: the affine CacheCost, the
 * profiled peak and the budget formula (_cal_max_memory), the multimodal
 * encoder reserve, the allocator fraction (_adjust_torch_mem_fraction) and the
 * fp8 context-MLA workspace reserve with its admission cap.
 */
#include <stdio.h>
#include <string.h>

#include "plan_internal.h"
#include "plan_rules.h"

void kvp_notes_clear(kvp_notes *notes) {
    if (notes) memset(notes, 0, sizeof *notes);
}

void kvp__note(kvp_notes *notes, const char *fmt, ...) {
    if (!notes) return;
    if (notes->count >= KVP_NOTES_MAX) {
        notes->dropped++;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(notes->text[notes->count], KVP_NOTE_TEXT_MAX, fmt, ap);
    va_end(ap);
    /* The same decision can be reached twice (estimation and final build). */
    for (uint32_t i = 0; i < notes->count; i++)
        if (strcmp(notes->text[i], notes->text[notes->count]) == 0) return;
    notes->count++;
}

/* ------------------------------------------------------------ CacheCost */

uint64_t kvp_affine_tokens_for_budget(kvp_affine_cost cost, uint64_t budget_bytes) {
    if (cost.slope_bytes_per_token == 0) return 0;
    if (budget_bytes <= cost.intercept_bytes) return 0;
    return (budget_bytes - cost.intercept_bytes) / cost.slope_bytes_per_token;
}

kvp_status kvp_affine_bytes_for_tokens(kvp_affine_cost cost, uint64_t tokens, uint64_t *out_bytes,
                                       kvp_error *err) {
    uint64_t b;
    if (!kvp__mul_u64(cost.slope_bytes_per_token, tokens, &b) ||
        !kvp__add_u64(b, cost.intercept_bytes, &b))
        return kvp__fail(err, KVP_OVERFLOW, NULL, "max_tokens",
                         "%llu tokens at %llu bytes/token + %llu bytes overflow 64 bits",
                         (unsigned long long)tokens,
                         (unsigned long long)cost.slope_bytes_per_token,
                         (unsigned long long)cost.intercept_bytes);
    *out_bytes = b;
    return KVP_OK;
}

kvp_status kvp_affine_add(kvp_affine_cost a, kvp_affine_cost b, kvp_affine_cost *out,
                          kvp_error *err) {
    kvp_affine_cost r;
    if (!kvp__add_u64(a.slope_bytes_per_token, b.slope_bytes_per_token,
                      &r.slope_bytes_per_token) ||
        !kvp__add_u64(a.intercept_bytes, b.intercept_bytes, &r.intercept_bytes))
        return kvp__fail(err, KVP_OVERFLOW, NULL, NULL, "cache cost sum overflows 64 bits");
    *out = r;
    return KVP_OK;
}

/* ---------------------------------------------------------------- budget */

kvp_status kvp_profiled_peak_bytes(uint64_t allocator_peak_bytes, uint64_t total_used_bytes,
                                   uint64_t allocator_used_bytes, uint64_t *out_peak_bytes,
                                   uint64_t *out_extra_bytes, kvp_error *err) {
    /* extra_cost = max(total_used - torch_used, 0): memory outside the allocator. */
    uint64_t extra = total_used_bytes > allocator_used_bytes
                         ? total_used_bytes - allocator_used_bytes
                         : 0;
    uint64_t peak;
    if (!kvp__add_u64(allocator_peak_bytes, extra, &peak))
        return kvp__fail(err, KVP_OVERFLOW, NULL, "peak", "peak memory overflows 64 bits");
    if (out_extra_bytes) *out_extra_bytes = extra;
    *out_peak_bytes = peak;
    return KVP_OK;
}

static bool fraction_ok(double f) { return f > 0.0 && f <= 1.0; }

kvp_status kvp_budget_bytes(uint64_t total_bytes, uint64_t peak_bytes,
                            uint64_t allocated_during_estimation_bytes, double fraction,
                            uint64_t *out_bytes, kvp_error *err) {
    if (!fraction_ok(fraction))
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "free_gpu_memory_fraction",
                         "free_gpu_memory_fraction %g is outside (0, 1]", fraction);
    uint64_t avail;
    if (!kvp__add_u64(total_bytes, allocated_during_estimation_bytes, &avail))
        return kvp__fail(err, KVP_OVERFLOW, NULL, "total", "total memory overflows 64 bits");
    if (peak_bytes > avail)
        return kvp__fail(err, KVP_INFEASIBLE, NULL, "peak",
                         "peak memory %llu bytes exceeds the device's %llu bytes (plus %llu "
                         "bytes of temporary KV cache): nothing is left for the KV cache",
                         (unsigned long long)peak_bytes, (unsigned long long)total_bytes,
                         (unsigned long long)allocated_during_estimation_bytes);
    /* available_kv_mem = (total - peak + allocated) * fraction, a Python float, then int(). */
    double v = (double)(avail - peak_bytes) * fraction;
    *out_bytes = kvp__double_to_u64(v);
    return KVP_OK;
}

kvp_status kvp_mm_encoder_reserve_bytes(uint64_t output_budget_bytes,
                                        uint64_t profiled_output_bytes, bool encoder_cache_active,
                                        uint64_t encoder_cache_max_bytes, uint64_t *out_bytes,
                                        kvp_error *err) {
    uint64_t unprofiled =
        output_budget_bytes > profiled_output_bytes ? output_budget_bytes - profiled_output_bytes
                                                    : 0;
    uint64_t cache = encoder_cache_active ? encoder_cache_max_bytes : 0;
    if (!kvp__add_u64(unprofiled, cache, out_bytes))
        return kvp__fail(err, KVP_OVERFLOW, NULL, "encoder_cache_max_bytes",
                         "multimodal encoder reserve overflows 64 bits");
    return KVP_OK;
}

#define KVP_ALLOCATOR_SAFETY_MARGIN_BYTES ((uint64_t)32 * 1024 * 1024)

kvp_status kvp_allocator_fraction(uint64_t free_bytes, uint64_t reserved_bytes,
                                  uint64_t total_bytes, double *out_fraction, kvp_error *err) {
    uint64_t have;
    if (total_bytes == 0)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "total", "total memory is 0");
    if (!kvp__add_u64(free_bytes, reserved_bytes, &have))
        return kvp__fail(err, KVP_OVERFLOW, NULL, "free", "free + reserved overflows 64 bits");
    if (have < KVP_ALLOCATOR_SAFETY_MARGIN_BYTES)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "free",
                         "free + reserved memory %llu bytes is below the 32 MiB safety margin",
                         (unsigned long long)have);
    *out_fraction = (double)(have - KVP_ALLOCATOR_SAFETY_MARGIN_BYTES) / (double)total_bytes;
    return KVP_OK;
}

/* ------------------------------------------------ context-MLA workspace */

bool kvp_mla_workspace_kv_len_cap(const kvp_mla_workspace_policy *p, uint64_t *out_cap,
                                  kvp_status *status) {
    if (status) *status = KVP_OK;
    /* Reuse without chunking can attend past the fresh-prefill profile; with
     * chunking only an unbounded (or unprofiled, where required) chunk can. */
    bool can_exceed =
        (p->enable_block_reuse && !p->enable_chunked_prefill) ||
        (p->enable_chunked_prefill &&
         (!p->workspace_is_chunked_prefill_bounded ||
          (p->require_chunked_workspace_profile && !p->chunked_workspace_profiled)));
    if (!can_exceed) return false;
    uint64_t reqs = p->max_batch_size < p->max_num_tokens ? p->max_batch_size : p->max_num_tokens;
    uint64_t worst;
    if (!kvp__mul_u64(reqs, p->max_seq_len, &worst)) {
        if (status) *status = KVP_OVERFLOW;
        return false;
    }
    if (!p->has_kv_len_cap_override) {
        *out_cap = worst;
        return true;
    }
    uint64_t v = p->kv_len_cap_override > p->max_seq_len ? p->kv_len_cap_override : p->max_seq_len;
    *out_cap = v < worst ? v : worst;
    return true;
}

uint64_t kvp_mla_workspace_reserve(uint64_t budget_bytes, uint64_t k_bytes_per_token,
                                   uint64_t w_bytes_per_token, uint64_t kv_len_cap,
                                   uint64_t *out_cap_tokens, bool *out_has_cap) {
    *out_has_cap = false;
    *out_cap_tokens = 0;
    if (!(budget_bytes > 0 && k_bytes_per_token > 0 && w_bytes_per_token > 0 && kv_len_cap > 0))
        return 0;
    /* min(w * cap, budget * w / (k + w)) in Python floats; the first term is an int. */
    double full = (double)w_bytes_per_token * (double)kv_len_cap;
    double share = (double)budget_bytes * (double)w_bytes_per_token /
                   ((double)k_bytes_per_token + (double)w_bytes_per_token);
    double reserve = full < share ? full : share;
    *out_cap_tokens = (uint64_t)(reserve / (double)w_bytes_per_token);
    *out_has_cap = true;
    /* The caller subtracts: int(budget - reserve). Return the reserve rounded up so that
     * budget - returned == int(budget - reserve) for a fractional reserve. */
    uint64_t r = kvp__double_to_u64(reserve);
    if ((double)r < reserve) r++;
    return r;
}
