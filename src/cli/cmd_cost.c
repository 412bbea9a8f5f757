/* cmd_cost.c — `kvplan cost MODEL`: the per-rank cost model, pool by pool. */
#include <jansson.h>
#include <string.h>

#include "cli.h"

static void usage(FILE *out) {
    fputs("usage: kvplan cost MODEL [options]\n"
          "  MODEL                 config.json, a folder holding one, or a catalogue name\n"
          "  --tp N                tensor parallel size (default 1)\n"
          "  --pp N                pipeline parallel size (default 1)\n"
          "  --pp-rank N           pipeline stage to cost (default: the busiest)\n"
          "  --kv-dtype T          auto|fp32|fp16|bf16|fp8|int8|nvfp4 (default auto)\n"
          "  --block-size N        tokens per block (default 32; alias --tokens-per-block)\n"
          "  --beam-width N        beams per sequence (default 1)\n"
          "  --layers              print the per-layer table\n"
          "  --json                machine-readable output\n",
          out);
}

static json_t *juint(uint64_t v) { return json_integer((json_int_t)v); }

static json_t *pool_json(const kvp_pool_cost *p) {
    json_t *o = json_object();
    json_object_set_new(o, "kind", json_string(kvp_cache_kind_name(p->kind)));
    json_object_set_new(o, "layers", juint(p->layers));
    json_object_set_new(o, "window_tokens", p->window_tokens ? juint(p->window_tokens) : json_null());
    json_object_set_new(o, "kv_heads_per_rank", juint(p->kv_heads_per_rank));
    json_object_set_new(o, "k_head_dim", juint(p->k_head_dim));
    json_object_set_new(o, "v_head_dim", juint(p->v_head_dim));
    json_object_set_new(o, "dtype", json_string(kvp_dtype_name(p->dtype)));
    json_object_set_new(o, "bytes_per_token_per_layer", juint(p->bytes_per_token_per_layer));
    json_object_set_new(o, "bytes_per_token", juint(p->bytes_per_token));
    json_object_set_new(o, "bytes_per_sequence", juint(p->bytes_per_sequence));
    json_object_set_new(o, "page_bytes", juint(p->page_bytes));
    json_object_set_new(o, "tokens_per_block", p->tokens_per_block ? juint(p->tokens_per_block)
                                                                   : json_null());
    if (p->kind == KVP_CACHE_RECURRENT) {
        json_object_set_new(o, "conv_bytes_per_sequence", juint(p->conv_bytes_per_sequence));
        json_object_set_new(o, "ssm_bytes_per_sequence", juint(p->ssm_bytes_per_sequence));
    }
    return o;
}

/* Notes a reader of the numbers should know. */
static size_t collect_warnings(const kvp_model *m, const kvp_cost *c, const char **w, size_t max) {
    const kvp_model_info *info = kvp_model_get_info(m);
    size_t n = 0;
    if (info->family_unverified && n < max)
        w[n++] = "unverified family: kvplan has no hand-checked config of this model_type; "
                 "its cache was read with the generic rules";
    if (!info->dtype_stated && n < max)
        w[n++] = "the config states no torch_dtype/dtype: bf16 assumed for the model";
    for (uint32_t k = 0; k < c->pool_count && n < max; k++) {
        const kvp_pool_cost *p = &c->pools[k];
        if (p->kind != KVP_CACHE_RECURRENT && p->kind != KVP_CACHE_MLA &&
            p->kind != KVP_CACHE_INDEXER && c->tp > 1 && p->kv_heads_per_rank == 1) {
            w[n++] = "fewer KV heads than TP ranks: each rank keeps one whole (replicated) head; "
                     "some engines' estimators round this down to a fraction";
            break;
        }
    }
    if (info->is_mla && c->tp > 1 && n < max)
        w[n++] = "the MLA latent is replicated on every TP rank: bytes per token do not shrink "
                 "with TP";
    return n;
}

int kvp_cmd_cost(int argc, char **argv) {
    kvp_cost_settings s = kvp_cost_settings_default();
    const char *model_name = NULL;
    bool json = false, layers = false, bad = false, seen_block = false;
    static const char *const known[] = {"--tp", "--pp", "--pp-rank", "--kv-dtype", "--block-size",
                                        "--tokens-per-block", "--beam-width", "--layers", "--json",
                                        "--help", NULL};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        uint32_t u;
        if (kvp_cli_flag(a, "--help") || kvp_cli_flag(a, "-h")) {
            usage(stdout);
            return KVP_EXIT_OK;
        } else if (kvp_cli_flag(a, "--json")) {
            json = true;
        } else if (kvp_cli_flag(a, "--layers")) {
            layers = true;
        } else if (kvp_cli_opt(argc, argv, &i, "--tp", &v, &bad)) {
            if (bad || !kvp_cli_u32("--tp", v, 1, 65536, &s.tp)) return KVP_EXIT_BAD_INPUT;
        } else if (kvp_cli_opt(argc, argv, &i, "--pp", &v, &bad)) {
            if (bad || !kvp_cli_u32("--pp", v, 1, 65536, &s.pp)) return KVP_EXIT_BAD_INPUT;
        } else if (kvp_cli_opt(argc, argv, &i, "--pp-rank", &v, &bad)) {
            if (bad || !kvp_cli_u32("--pp-rank", v, 0, 65535, &u)) return KVP_EXIT_BAD_INPUT;
            s.pp_rank = (int32_t)u;
        } else if (kvp_cli_opt(argc, argv, &i, "--kv-dtype", &v, &bad)) {
            if (bad || !kvp_cli_dtype("--kv-dtype", v, &s.kv_dtype)) return KVP_EXIT_BAD_INPUT;
        } else if (kvp_cli_opt(argc, argv, &i, "--block-size", &v, &bad) ||
                   kvp_cli_opt(argc, argv, &i, "--tokens-per-block", &v, &bad)) {
            if (seen_block)
                return kvp_cli_fail("--block-size and --tokens-per-block are one option; give it "
                                    "once");
            seen_block = true;
            if (bad || !kvp_cli_u32("--block-size", v, 1, 1u << 20, &s.tokens_per_block))
                return KVP_EXIT_BAD_INPUT;
        } else if (kvp_cli_opt(argc, argv, &i, "--beam-width", &v, &bad)) {
            if (bad || !kvp_cli_u32("--beam-width", v, 1, 1024, &s.beam_width))
                return KVP_EXIT_BAD_INPUT;
        } else if (a[0] == '-' && a[1] != '\0') {
            return kvp_cli_unknown_option(a, known);
        } else if (!model_name) {
            model_name = a;
        } else {
            return kvp_cli_fail("cost takes one MODEL, got a second: '%s'", a);
        }
    }
    if (!model_name) {
        usage(stderr);
        return kvp_cli_fail("cost needs a MODEL (a config.json, a folder, or a name from "
                            "'kvplan models')");
    }
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
    size_t nw = collect_warnings(m, &c, warnings, 8);

    if (json) {
        json_t *o = json_object();
        json_object_set_new(o, "model", json_string(kvp_model_name(m)));
        json_object_set_new(o, "model_type", json_string(info->model_type));
        if (info->family_unverified) json_object_set_new(o, "verified", json_false());
        json_object_set_new(o, "dtype", json_string(kvp_dtype_name(info->dtype)));
        json_object_set_new(o, "kv_dtype", json_string(kvp_dtype_name(c.kv_dtype)));
        json_object_set_new(o, "num_layers", juint(info->num_layers));
        json_object_set_new(o, "tp", juint(c.tp));
        json_object_set_new(o, "pp", juint(c.pp));
        json_object_set_new(o, "pp_rank", juint(c.pp_rank));
        json_object_set_new(o, "layer_begin", juint(c.layer_begin));
        json_object_set_new(o, "layer_end", juint(c.layer_end));
        json_object_set_new(o, "tokens_per_block", juint(c.tokens_per_block));
        json_object_set_new(o, "beam_width", juint(c.beam_width));
        json_t *pools = json_array();
        for (uint32_t k = 0; k < c.pool_count; k++) json_array_append_new(pools, pool_json(&c.pools[k]));
        json_object_set_new(o, "pools", pools);
        json_object_set_new(o, "bytes_per_token", juint(c.bytes_per_token));
        json_object_set_new(o, "bytes_per_sequence", juint(c.bytes_per_sequence));
        json_t *w = json_array();
        for (size_t k = 0; k < nw; k++) json_array_append_new(w, json_string(warnings[k]));
        json_object_set_new(o, "warnings", w);
        if (layers) {
            json_t *la = json_array();
            for (size_t k = 0; k < kvp_model_cache_count(m); k++) {
                kvp_layer_cost lc;
                if (kvp_cost_layer(m, &s, k, &lc, &err) != KVP_OK) break;
                json_t *e = json_object();
                json_object_set_new(e, "layer", juint(lc.layer));
                json_object_set_new(e, "kind", json_string(kvp_cache_kind_name(lc.kind)));
                json_object_set_new(e, "window_tokens",
                                    lc.window_tokens ? juint(lc.window_tokens) : json_null());
                json_object_set_new(e, "kv_heads_per_rank", juint(lc.kv_heads_per_rank));
                json_object_set_new(e, "k_head_dim", juint(lc.k_head_dim));
                json_object_set_new(e, "v_head_dim", juint(lc.v_head_dim));
                json_object_set_new(e, "dtype", json_string(kvp_dtype_name(lc.dtype)));
                json_object_set_new(e, "bytes_per_token", juint(lc.bytes_per_token));
                json_object_set_new(e, "bytes_per_sequence", juint(lc.bytes_per_sequence));
                json_object_set_new(e, "pp_stage", juint(lc.pp_stage));
                json_array_append_new(la, e);
            }
            json_object_set_new(o, "layers", la);
        }
        char *text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        if (text) {
            puts(text);
            free(text);
        }
        json_decref(o);
        kvp_model_free(m);
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
        if (p->window_tokens)
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
