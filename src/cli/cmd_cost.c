/* cmd_cost.c — `kvplan cost MODEL`: the per-rank cost model, pool by pool. */
#include <stdlib.h>
#include <string.h>

#include "render_internal.h" /* the document, shared with kvp_json_call */
#include "cli.h"
#include "command_help.h"
#include "cli_options.h"
#include "kvplan/options.h"

static void usage(FILE *out) {
    fputs(kvp__command_help("cost"), out);
    kvp_cli_table_usage(out, KVP_COMMAND_COST, KVP_OPTION_ENGINES_ALL);
}

/* The table's settings as a cost reads them (kvp_cost_settings). */
static int from_table(const kvp_options *t, kvp_cost_settings *s) {
    const kvp_deployment *d = &t->deployment;
    if (d->point.tp) s->tp = d->point.tp;
    if (d->point.pp) s->pp = d->point.pp;
    if (d->kv.tokens_per_block) s->tokens_per_block = d->kv.tokens_per_block;
    if (d->point.kv_dtype[0] &&
        !kvp_cli_dtype(kvp_options_typed(t, "--kv-dtype"), d->point.kv_dtype, &s->kv_dtype))
        return KVP_EXIT_BAD_INPUT;
    return -1;
}

/* The command line: this command's flags, then the table's rows. -1 to go
 * on, else an exit status (0 after --help). */
static int parse(int argc, char **argv, kvp_options *t, kvp_cost_settings *s,
                 const char **model_name, bool *json, bool *layers) {
    static const char *const own[] = {"--pp-rank", "--beam-width", "--layers", "--json", "--help",
                                      NULL};
    bool bad = false;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--json")) *json = true; /* the first error already as JSON */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        uint32_t u;
        if (kvp_cli_flag(a, "--help") || kvp_cli_flag(a, "-h")) {
            usage(stdout);
            return KVP_EXIT_OK;
        } else if (kvp_cli_flag(a, "--json")) {
            *json = true;
        } else if (kvp_cli_flag(a, "--layers")) {
            *layers = true;
        } else if (kvp_cli_opt(argc, argv, &i, "--pp-rank", &v, &bad)) {
            if (bad || !kvp_cli_u32("--pp-rank", v, 0, 65535, &u)) return KVP_EXIT_BAD_INPUT;
            s->pp_rank = (int32_t)u;
        } else if (kvp_cli_opt(argc, argv, &i, "--beam-width", &v, &bad)) {
            if (bad || !kvp_cli_u32("--beam-width", v, 1, 1024, &s->beam_width))
                return KVP_EXIT_BAD_INPUT;
        } else {
            int rc = kvp_cli_table_option(t, argc, argv, &i, *json);
            if (rc > 0) return rc;
            if (rc < 0) continue;
            if (a[0] == '-' && a[1] != '\0') return kvp_cli_table_unknown(a, KVP_COMMAND_COST, own, NULL);
            if (*model_name) return kvp_cli_fail("cost takes one MODEL, got a second: '%s'", a);
            *model_name = a;
        }
    }
    if (!*model_name) {
        usage(stderr);
        return kvp_cli_fail("cost needs a MODEL (a config.json, a folder, or a name from "
                            "'kvplan models')");
    }
    return from_table(t, s);
}

int kvp_cmd_cost(int argc, char **argv) {
    kvp_cli_table_use(NULL); /* no spellings of an earlier command in this process */
    kvp_cost_settings s = kvp_cost_settings_default();
    const char *model_name = NULL;
    bool json = false, layers = false;
    kvp_options *table = kvp_options_new(KVP_COMMAND_COST);
    if (!table) return kvp_cli_fail("out of memory");
    int rc = parse(argc, argv, table, &s, &model_name, &json, &layers);
    kvp_options_free(table); /* `s` holds copies; model_name is argv's */
    if (rc >= 0) return rc;
    kvp_error err;
    kvp_error_clear(&err);
    kvp_model *m = NULL;
    if (kvp_model_open(model_name, NULL, &m, &err) != KVP_OK)
        return kvp_cli_report_error(&err, json);
    kvp_cost c;
    if (kvp_cost_compute(m, &s, &c, &err) != KVP_OK) {
        kvp_model_free(m);
        return kvp_cli_report_error(&err, json);
    }
    const kvp_model_info *info = kvp_model_get_info(m);
    const char *warnings[8];
    size_t nw = kvp__cost_warnings(m, &c, warnings, 8);

    if (json) {
        /* The document kvp_json_call("cost") returns: one builder for both. */
        char *text = NULL;
        kvp_status st = kvp__cost_json_text(m, &s, &c, layers, &text, &err);
        kvp_model_free(m);
        if (st != KVP_OK) return kvp_cli_report_error(&err, json);
        puts(text);
        free(text);
        return KVP_EXIT_OK;
    }

    char b1[32], b2[32], b3[32], b4[32];
    printf("model:    %s (%s%s, %s%s)\n", kvp_model_name(m), info->model_type,
           info->is_multimodal ? ", nested language model" : "", kvp_dtype_name(info->dtype),
           info->dtype_stated ? "" : " assumed");
    printf("settings: tp %u, pp %u (stage %u: layers %u-%u of %u), kv dtype %s, %u tokens/block",
           c.tp, c.pp, c.pp_rank, c.layer_begin, c.layer_end ? c.layer_end - 1 : 0,
           info->num_layers, kvp_dtype_name(c.kv_dtype), c.tokens_per_block);
    if (c.beam_width > 1) printf(", beam %u", c.beam_width);
    printf("\n\n%-10s %6s %9s %6s %9s %6s %14s %14s %14s\n", "pool", "layers", "window", "heads",
           "head dim", "dtype", "bytes/token", "bytes/seq", "page bytes");
    for (uint32_t k = 0; k < c.pool_count; k++) {
        const kvp_pool_cost *p = &c.pools[k];
        char win[24], dims[24];
        if (p->tokens_per_entry > 1)
            snprintf(win, sizeof win, "1/%u", p->tokens_per_entry); /* bytes are per entry */
        else if (p->window_tokens)
            kvp_cli_fmt_count(p->window_tokens, win, sizeof win);
        else
            snprintf(win, sizeof win, "-");
        if (p->kind == KVP_CACHE_RECURRENT)
            snprintf(dims, sizeof dims, "state");
        else
            snprintf(dims, sizeof dims, "%u/%u", p->k_head_dim, p->v_head_dim);
        printf("%-10s %6u %9s %6u %9s %6s %14s %14s %14s\n", kvp_cache_kind_name(p->kind),
               p->layers, win, p->kv_heads_per_rank, dims, kvp_dtype_name(p->dtype),
               kvp_cli_fmt_count(p->bytes_per_token, b1, sizeof b1),
               kvp_cli_fmt_count(p->bytes_per_sequence, b2, sizeof b2),
               kvp_cli_fmt_count(p->page_bytes, b3, sizeof b3));
    }
    printf("\nper rank: %s bytes per token (%s), %s bytes per sequence (%s)\n",
           kvp_cli_fmt_count(c.bytes_per_token, b1, sizeof b1),
           kvp_cli_fmt_bytes(c.bytes_per_token, b2, sizeof b2),
           kvp_cli_fmt_count(c.bytes_per_sequence, b3, sizeof b3),
           kvp_cli_fmt_bytes(c.bytes_per_sequence, b4, sizeof b4));
    if (c.non_affine) {
        /* Pools of one entry per r tokens: their bytes/token column is per entry and
         * they are not in the slope above; a sequence's bytes are the exact function. */
        static const uint64_t lens[] = {4096, 131072, 1048576};
        printf("plus pools of one entry per r tokens (window column 1/r, bytes per entry); "
               "exact bytes of one sequence:\n");
        for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
            uint64_t sb;
            if (kvp_cost_sequence_bytes(&c, lens[k], &sb, &err) != KVP_OK) {
                kvp_model_free(m);
                return kvp_cli_report_error(&err, false);
            }
            printf("  %9s tokens: %s bytes (%s)\n", kvp_cli_fmt_count(lens[k], b1, sizeof b1),
                   kvp_cli_fmt_count(sb, b2, sizeof b2), kvp_cli_fmt_bytes(sb, b3, sizeof b3));
        }
    }
    for (size_t k = 0; k < nw; k++) printf("note: %s\n", warnings[k]);
    if (layers) {
        printf("\n%-6s %-10s %9s %6s %9s %6s %14s %14s %6s\n", "layer", "kind", "window", "heads",
               "head dim", "dtype", "bytes/token", "bytes/seq", "stage");
        for (size_t k = 0; k < kvp_model_cache_count(m); k++) {
            kvp_layer_cost lc;
            if (kvp_cost_layer(m, &s, k, &lc, &err) != KVP_OK) {
                kvp_model_free(m);
                return kvp_cli_report_error(&err, false);
            }
            char win[24], dims[24];
            if (lc.window_tokens)
                kvp_cli_fmt_count(lc.window_tokens, win, sizeof win);
            else
                snprintf(win, sizeof win, "-");
            if (lc.kind == KVP_CACHE_RECURRENT)
                snprintf(dims, sizeof dims, "state");
            else
                snprintf(dims, sizeof dims, "%u/%u", lc.k_head_dim, lc.v_head_dim);
            printf("%-6u %-10s %9s %6u %9s %6s %14s %14s %6u\n", lc.layer,
                   kvp_cache_kind_name(lc.kind), win, lc.kv_heads_per_rank, dims,
                   kvp_dtype_name(lc.dtype), kvp_cli_fmt_count(lc.bytes_per_token, b1, sizeof b1),
                   kvp_cli_fmt_count(lc.bytes_per_sequence, b2, sizeof b2), lc.pp_stage);
        }
    }
    kvp_model_free(m);
    return KVP_EXIT_OK;
}
