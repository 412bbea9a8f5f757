/* text_cost.c — the text of `kvplan cost`: the per-rank cost model pool by
 * pool (bytes per token, per sequence, per page), the exact bytes of pools
 * that are not affine in the length, the notes, and with --layers one line per
 * layer. The CLI writes what this renders. */
#include <stdio.h>

#include "text_internal.h"
#include "util.h"
#include "cost_internal.h"

kvp_status kvp__cost_text(const kvp_model *m, const kvp_cost_settings *s, const kvp_cost *c,
                          bool layers, const char *const *warnings, size_t nw,
                          kvp_report_text *t, kvp_error *err) {
    const kvp_model_info *info = kvp_model_get_info(m);
    char b1[32], b2[32], b3[32], b4[32];
    kvp_report_appendf(t, "model:    %s (%s%s, %s%s)\n", kvp_model_name(m), info->model_type,
           info->is_multimodal ? ", nested language model" : "", kvp_dtype_name(info->dtype),
           info->dtype_stated ? "" : " assumed");
    kvp_report_appendf(t, "settings: tp %u, pp %u (stage %u: layers %u-%u of %u), kv dtype %s, %u tokens/block",
           c->tp, c->pp, c->pp_rank, c->layer_begin, c->layer_end ? c->layer_end - 1 : 0,
           info->num_layers, kvp_dtype_name(c->kv_dtype), c->tokens_per_block);
    if (c->beam_width > 1) kvp_report_appendf(t, ", beam %u", c->beam_width);
    kvp_report_appendf(t, "\n\n%-10s %6s %9s %6s %9s %6s %14s %14s %14s\n", "pool", "layers", "window", "heads",
           "head dim", "dtype", "bytes/token", "bytes/seq", "page bytes");
    for (uint32_t k = 0; k < c->pool_count; k++) {
        const kvp_pool_cost *p = &c->pools[k];
        char win[24], dims[24];
        if (p->tokens_per_entry > 1)
            snprintf(win, sizeof win, "1/%u", p->tokens_per_entry); /* bytes are per entry */
        else if (p->window_tokens)
            kvp__fmt_count(p->window_tokens, win, sizeof win);
        else
            snprintf(win, sizeof win, "-");
        if (p->kind == KVP_CACHE_RECURRENT)
            snprintf(dims, sizeof dims, "state");
        else
            snprintf(dims, sizeof dims, "%u/%u", p->k_head_dim, p->v_head_dim);
        kvp_report_appendf(t, "%-10s %6u %9s %6u %9s %6s %14s %14s %14s\n", kvp_cache_kind_name(p->kind),
               p->layers, win, p->kv_heads_per_rank, dims, kvp_dtype_name(p->dtype),
               kvp__fmt_count(p->bytes_per_token, b1, sizeof b1),
               kvp__fmt_count(p->bytes_per_sequence, b2, sizeof b2),
               kvp__fmt_count(p->page_bytes, b3, sizeof b3));
    }
    kvp_report_appendf(t, "\nper rank: %s bytes per token (%s), %s bytes per sequence (%s)\n",
           kvp__fmt_count(c->bytes_per_token, b1, sizeof b1),
           kvp__fmt_bytes(c->bytes_per_token, b2, sizeof b2),
           kvp__fmt_count(c->bytes_per_sequence, b3, sizeof b3),
           kvp__fmt_bytes(c->bytes_per_sequence, b4, sizeof b4));
    if (c->non_affine) {
        /* Pools of one entry per r tokens: their bytes/token column is per entry and
         * they are not in the slope above; a sequence's bytes are the exact function. */
        static const uint64_t lens[] = {4096, 131072, 1048576};
        kvp_report_appendf(t, "plus pools of one entry per r tokens (window column 1/r, bytes per entry); "
               "exact bytes of one sequence:\n");
        for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
            uint64_t sb;
            kvp_status st = kvp_cost_sequence_bytes(c, lens[k], &sb, err);
            if (st != KVP_OK) return st;
            kvp_report_appendf(t, "  %9s tokens: %s bytes (%s)\n", kvp__fmt_count(lens[k], b1, sizeof b1),
                   kvp__fmt_count(sb, b2, sizeof b2), kvp__fmt_bytes(sb, b3, sizeof b3));
        }
    }
    for (size_t k = 0; k < nw; k++) kvp_report_appendf(t, "note: %s\n", warnings[k]);
    if (layers) {
        kvp_report_appendf(t, "\n%-6s %-10s %9s %6s %9s %6s %14s %14s %6s\n", "layer", "kind", "window", "heads",
               "head dim", "dtype", "bytes/token", "bytes/seq", "stage");
        for (size_t k = 0; k < kvp_model_cache_count(m); k++) {
            kvp_layer_cost lc;
            kvp_status st = kvp__cost_layer(m, s, k, &lc, err);
            if (st != KVP_OK) return st;
            char win[24], dims[24];
            if (lc.window_tokens)
                kvp__fmt_count(lc.window_tokens, win, sizeof win);
            else
                snprintf(win, sizeof win, "-");
            if (lc.kind == KVP_CACHE_RECURRENT)
                snprintf(dims, sizeof dims, "state");
            else
                snprintf(dims, sizeof dims, "%u/%u", lc.k_head_dim, lc.v_head_dim);
            kvp_report_appendf(t, "%-6u %-10s %9s %6u %9s %6s %14s %14s %6u\n", lc.layer,
                   kvp_cache_kind_name(lc.kind), win, lc.kv_heads_per_rank, dims,
                   kvp_dtype_name(lc.dtype), kvp__fmt_count(lc.bytes_per_token, b1, sizeof b1),
                   kvp__fmt_count(lc.bytes_per_sequence, b2, sizeof b2), lc.pp_stage);
        }
    }
    return KVP_OK;
}
