/*
 * plan_policy.c — the command line of the engine policies: parses every option
 * of `kvplan plan --policy X` (kvplan names and the engines' own flag names),
 * loads the model (catalogue, config.json, .gguf, or a geometry JSON), runs
 * kvp_policy_plan and prints the figures the engine's start-up log would show,
 * or --json with `engine_report`.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "kvplan/gpu.h"
#include "kvplan/policy.h"
#include "plan_policy.h"
#include "util.h"

static const char *const k_known[] = {
    "--policy", "--engine-version", "--kv-budget", "--tp", "--tensor-parallel-size", "-tp",
    "--pp", "--pipeline-parallel-size", "--dp", "--data-parallel-size", "--enable-dp-attention",
    "--kv-dtype", "--kv-cache-dtype", "--block-size", "--page-size", "--max-model-len",
    "--context-length", "--gpu-memory-utilization", "--mem-fraction-static", "--ctx-size", "-c",
    "--parallel", "-np", "--kv-unified", "--no-kv-unified", "--cache-type-k", "-ctk",
    "--cache-type-v", "-ctv", "--swa-full", "--ubatch-size", "-ub", "--batch-size", "-b",
    "--flash-attn", "-fa", "--max-num-batched-tokens", "--max-num-seqs", "--mamba-cache-mode",
    "--num-draft-layers", "--gpu", "--gpu-mem", "--free-mem", "--weights", "--peak",
    "--non-torch", "--cuda-graph", "--geometry", "--era", "--indexer-counted", "--json", "--help",
    NULL};

static void usage(void) {
    puts("usage: kvplan plan MODEL --policy vllm|sglang|llamacpp|trtllm [options] [--json]\n"
         "\n"
         "Predicts the KV-cache figures the engine prints at start-up (ENGINES.md rules).\n"
         "MODEL: catalogue name, config.json, a .gguf file, or a geometry JSON ({\"arch\": ...}).\n"
         "\n"
         "  --engine-version V          vLLM 0.9.1 / v0 / v1-mid / v1-new; llama.cpp b7217; SGLang pre-11309\n"
         "  --kv-budget BYTES           the engine's available KV memory (\"43.4GiB\")\n"
         "  --tp/-tp/--tensor-parallel-size N, --pp N, --dp/--data-parallel-size N, --enable-dp-attention\n"
         "  --kv-dtype/--kv-cache-dtype T, --block-size N, --max-model-len N\n"
         "  --gpu-memory-utilization F, --mem-fraction-static F\n"
         "  --max-num-batched-tokens N, --max-num-seqs N, --mamba-cache-mode none|align|all,\n"
         "  --num-draft-layers N\n"
         "  llama.cpp: --ctx-size/-c N, --parallel/-np N, --kv-unified, --cache-type-k/-ctk T,\n"
         "             --cache-type-v/-ctv T, --swa-full, --ubatch-size/-ub N, --batch-size/-b N,\n"
         "             --flash-attn/-fa on|off|auto\n"
         "  memory facts (instead of --kv-budget): --gpu NAME | --gpu-mem BYTES, --free-mem BYTES,\n"
         "             --weights BYTES, --peak BYTES, --non-torch BYTES, --cuda-graph BYTES\n"
         "  --geometry FILE             build the model from a GGUF-style geometry JSON\n"
         "  --json                      machine-readable output with engine_report");
}

static int bool_word(const char *v) {
    if (!strcmp(v, "1") || !kvp__strcasecmp(v, "true") || !kvp__strcasecmp(v, "on") ||
        !kvp__strcasecmp(v, "yes"))
        return 1;
    if (!strcmp(v, "0") || !kvp__strcasecmp(v, "false") || !kvp__strcasecmp(v, "off") ||
        !kvp__strcasecmp(v, "no"))
        return 0;
    return -1;
}

/* Boolean flag with an optional value: --swa-full, --swa-full=false, --swa-full true. */
static bool bool_flag(int argc, char **argv, int *i, const char *name, int *out, bool *bad) {
    const char *arg = argv[*i];
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0) return false;
    if (arg[n] == '\0') {
        *out = 1;
        if (*i + 1 < argc && bool_word(argv[*i + 1]) >= 0) *out = bool_word(argv[++*i]);
        return true;
    }
    if (arg[n] != '=') return false;
    const char *v = arg + n + 1;
    if (bool_word(v) < 0) {
        kvp_cli_fail("%s: '%s', expected true or false", name, v);
        *bad = true;
        return true;
    }
    *out = bool_word(v);
    return true;
}

/* "-fa", "-fa on", "--flash-attn=off", "-fa auto". */
static bool fa_opt(int argc, char **argv, int *i, int *out, bool *bad) {
    const char *arg = argv[*i];
    const char *v = NULL;
    if (!strcmp(arg, "-fa") || !strcmp(arg, "--flash-attn")) {
        if (*i + 1 < argc && argv[*i + 1][0] != '-') v = argv[++*i];
        else {
            *out = 1;
            return true;
        }
    } else if (!strncmp(arg, "--flash-attn=", 13)) {
        v = arg + 13;
    } else if (!strncmp(arg, "-fa=", 4)) {
        v = arg + 4;
    } else {
        return false;
    }
    if (!strcmp(v, "1") || !kvp__strcasecmp(v, "on") || !kvp__strcasecmp(v, "true"))
        *out = 1;
    else if (!strcmp(v, "0") || !kvp__strcasecmp(v, "off") || !kvp__strcasecmp(v, "false"))
        *out = 0;
    else if (!kvp__strcasecmp(v, "auto"))
        *out = -1;
    else {
        kvp_cli_fail("--flash-attn: '%s', expected on, off or auto", v);
        *bad = true;
    }
    return true;
}

static bool opt_any(int argc, char **argv, int *i, const char *const *names, const char **value,
                    bool *bad) {
    for (; *names; names++)
        if (kvp_cli_opt(argc, argv, i, *names, value, bad)) return true;
    return false;
}

static bool str_opt(const char *opt, const char *v, char *dst, size_t size) {
    if (strlen(v) >= size) {
        kvp_cli_fail("%s: '%s' is too long", opt, v);
        return false;
    }
    kvp__strlcpy(dst, v, size);
    return true;
}

static bool double_opt(const char *opt, const char *v, double lo, double hi, double *out) {
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (errno || end == v || *end || !(d > lo) || d > hi) {
        kvp_cli_fail("%s: '%s', expected a number in (%g, %g]", opt, v, lo, hi);
        return false;
    }
    *out = d;
    return true;
}

/* A geometry JSON: an object with "arch" (or a reference case's "geometry"). */
static bool looks_like_geometry(const char *path) {
    size_t n = strlen(path);
    if (n < 5 || kvp__strcasecmp(path + n - 5, ".json") != 0) return false;
    json_t *root = json_load_file(path, 0, NULL);
    if (!root) return false;
    json_t *g = json_object_get(root, "geometry");
    bool yes = json_is_string(json_object_get(root, "arch")) ||
               (json_is_object(g) && json_is_string(json_object_get(g, "arch")));
    json_decref(root);
    return yes;
}

static kvp_status load_geometry(const char *path, kvp_model **out, kvp_error *err) {
    char *buf = NULL;
    size_t len = 0;
    kvp_status st = kvp__read_file(path, KVP_MAX_CONFIG_BYTES, NULL, &buf, &len, err);
    if (st) return st;
    st = kvp_model_from_geometry_json(buf, len, path, NULL, out, err);
    kvp__free(NULL, buf);
    return st;
}

static double mib(uint64_t b) { return (double)b / 1048576.0; }
static double gib(uint64_t b) { return (double)b / 1073741824.0; }

static void print_text(const kvp_model *model, const kvp_policy_result *r) {
    const kvp_engine_report *e = &r->report;
    char buf[64];
    printf("model: %s\npolicy: %s (%s%s%s)\n", kvp_model_name(model), kvp_engine_name(r->engine),
           r->era, r->engine_version[0] ? ", " : "", r->engine_version);
    switch (r->engine) {
    case KVP_ENGINE_VLLM:
        printf("Available KV cache memory: %.2f GiB\n", gib(e->available_kv_cache_bytes));
        if (!strcmp(r->era, "v0") || !strcmp(r->era, "v1-jan25"))
            printf("# GPU blocks: %llu\n", (unsigned long long)e->num_gpu_blocks);
        else
            printf("GPU KV cache size: %s tokens\n",
                   kvp_cli_fmt_count(e->gpu_kv_cache_tokens, buf, sizeof buf));
        printf("Maximum concurrency for %s tokens per request: %.2fx\n",
               kvp_cli_fmt_count(r->max_model_len, buf, sizeof buf), e->max_concurrency);
        printf("(num_gpu_blocks %llu, block size %u, %u group(s) of %u layers, page %llu B, "
               "%llu blocks per request)\n",
               (unsigned long long)e->num_gpu_blocks, r->block_size, r->num_groups, r->group_size,
               (unsigned long long)r->page_bytes, (unsigned long long)r->per_request_blocks);
        break;
    case KVP_ENGINE_SGLANG:
        if (e->v_size_bytes == 0 && r->pools[0].kind == KVP_CACHE_MLA)
            printf("KV Cache is allocated. #tokens: %llu, KV size: %.2f GB\n",
                   (unsigned long long)e->max_total_num_tokens, gib(e->k_size_bytes));
        else
            printf("KV Cache is allocated. #tokens: %llu, K size: %.2f GB, V size: %.2f GB\n",
                   (unsigned long long)e->max_total_num_tokens, gib(e->k_size_bytes),
                   gib(e->v_size_bytes));
        printf("max_total_num_tokens=%llu, max_running_requests=%llu, context_len=%llu\n",
               (unsigned long long)e->max_total_num_tokens,
               (unsigned long long)e->max_running_requests, (unsigned long long)r->max_model_len);
        printf("(cell_size %llu B, page_size %u, rest memory %.2f GiB)\n",
               (unsigned long long)r->cell_bytes, r->block_size, gib(r->budget_bytes));
        break;
    case KVP_ENGINE_LLAMACPP:
        printf("llama_context: n_seq_max = %u, n_ctx = %llu, n_ctx_seq = %llu\n", r->n_seq_max,
               (unsigned long long)r->n_ctx, (unsigned long long)r->n_ctx_seq);
        for (uint32_t i = 0; i < r->pool_count; i++) {
            const kvp_policy_pool *p = &r->pools[i];
            if (p->kind == KVP_CACHE_RECURRENT) {
                printf("llama_memory_recurrent: size = %7.2f MiB (%6llu cells, %3u layers, %2u "
                       "seqs), R (f32): %7.2f MiB, S (f32): %7.2f MiB\n",
                       mib(p->bytes), (unsigned long long)r->recurrent_cells, r->total_layers,
                       r->n_seq_max, mib(p->k_bytes), mib(p->v_bytes));
                continue;
            }
            if (!strcmp(p->name, "non-swa"))
                printf("llama_kv_cache_iswa: creating non-SWA KV cache, size = %llu cells\n",
                       (unsigned long long)p->tokens);
            else if (!strcmp(p->name, "swa"))
                printf("llama_kv_cache_iswa: creating     SWA KV cache, size = %llu cells\n",
                       (unsigned long long)p->tokens);
            else if (!strcmp(p->name, "indexer"))
                printf("creating indexer KV cache\n");
            const char *tv = p->kind == KVP_CACHE_INDEXER ? "f16" : r->type_v_name;
            const char *tk = p->kind == KVP_CACHE_INDEXER ? "f16" : r->kv_dtype_name;
            printf("llama_kv_cache: size = %7.2f MiB (%6llu cells, %3u layers, %2u/%u seqs), "
                   "K (%s): %7.2f MiB, V (%s): %7.2f MiB\n",
                   mib(p->bytes), (unsigned long long)p->tokens, p->layers, r->n_seq_max,
                   r->n_stream, tk, mib(p->k_bytes), tv, mib(p->v_bytes));
        }
        break;
    case KVP_ENGINE_TRTLLM:
        printf("[MemUsageChange] Allocated %0.2f GiB for max tokens in paged KV cache (%llu).\n",
               gib(e->kv_cache_bytes), (unsigned long long)e->max_tokens);
        break;
    default:
        break;
    }
    for (uint32_t i = 0; i < r->note_count; i++) printf("note: %s\n", r->notes[i]);
}

static json_t *u64j(uint64_t v) { return json_integer((json_int_t)(v > INT64_MAX ? INT64_MAX : v)); }

static void print_json(const kvp_model *model, const kvp_policy_result *r) {
    const kvp_engine_report *e = &r->report;
    json_t *root = json_object();
    json_object_set_new(root, "model", json_string(kvp_model_name(model)));
    json_object_set_new(root, "policy", json_string(kvp_engine_name(r->engine)));
    json_object_set_new(root, "engine_version", json_string(r->engine_version));
    json_object_set_new(root, "era", json_string(r->era));
    json_object_set_new(root, "kv_dtype", json_string(r->kv_dtype_name));
    json_object_set_new(root, "budget_bytes", u64j(r->budget_bytes));
    if (r->budget_formula[0])
        json_object_set_new(root, "budget_formula", json_string(r->budget_formula));
    json_t *pools = json_array();
    for (uint32_t i = 0; i < r->pool_count; i++) {
        const kvp_policy_pool *p = &r->pools[i];
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(p->name));
        json_object_set_new(o, "kind", json_string(kvp_cache_kind_name(p->kind)));
        json_object_set_new(o, "layers", u64j(p->layers));
        json_object_set_new(o, "block_size_tokens", u64j(p->block_size_tokens));
        json_object_set_new(o, "page_bytes", u64j(p->page_bytes));
        json_object_set_new(o, "tokens", u64j(p->tokens));
        json_object_set_new(o, "k_bytes", u64j(p->k_bytes));
        json_object_set_new(o, "v_bytes", u64j(p->v_bytes));
        json_object_set_new(o, "bytes", u64j(p->bytes));
        if (r->engine == KVP_ENGINE_VLLM)
            json_object_set_new(o, "per_request_blocks", u64j(p->per_request_blocks));
        json_array_append_new(pools, o);
    }
    json_object_set_new(root, "pools", pools);
    json_t *rep = json_object();
#define F(bit, name, val)                                                                      \
    if (e->present & (bit)) json_object_set_new(rep, name, val)
    F(KVP_REPORT_NUM_GPU_BLOCKS, "num_gpu_blocks", u64j(e->num_gpu_blocks));
    F(KVP_REPORT_GPU_KV_CACHE_TOKENS, "gpu_kv_cache_tokens", u64j(e->gpu_kv_cache_tokens));
    F(KVP_REPORT_MAX_CONCURRENCY, "max_concurrency", json_real(e->max_concurrency));
    F(KVP_REPORT_AVAILABLE_KV_CACHE_BYTES, "available_kv_cache_bytes",
      u64j(e->available_kv_cache_bytes));
    F(KVP_REPORT_MAX_TOTAL_NUM_TOKENS, "max_total_num_tokens", u64j(e->max_total_num_tokens));
    F(KVP_REPORT_KV_SIZE_BYTES, "kv_size_bytes", u64j(e->kv_size_bytes));
    F(KVP_REPORT_K_SIZE_BYTES, "k_size_bytes", u64j(e->k_size_bytes));
    F(KVP_REPORT_V_SIZE_BYTES, "v_size_bytes", u64j(e->v_size_bytes));
    F(KVP_REPORT_MAX_RUNNING_REQUESTS, "max_running_requests", u64j(e->max_running_requests));
    F(KVP_REPORT_CELLS, "cells", u64j(e->cells));
    F(KVP_REPORT_SWA_KV_SIZE_BYTES, "swa_kv_size_bytes", u64j(e->swa_kv_size_bytes));
    F(KVP_REPORT_RECURRENT_SIZE_BYTES, "recurrent_size_bytes", u64j(e->recurrent_size_bytes));
    F(KVP_REPORT_MAX_TOKENS, "max_tokens", u64j(e->max_tokens));
    F(KVP_REPORT_KV_CACHE_BYTES, "kv_cache_bytes", u64j(e->kv_cache_bytes));
#undef F
    json_object_set_new(root, "engine_report", rep);
    json_t *d = json_object();
    switch (r->engine) {
    case KVP_ENGINE_VLLM:
        json_object_set_new(d, "block_size", u64j(r->block_size));
        json_object_set_new(d, "num_groups", u64j(r->num_groups));
        json_object_set_new(d, "group_size", u64j(r->group_size));
        json_object_set_new(d, "page_bytes", u64j(r->page_bytes));
        json_object_set_new(d, "per_request_blocks", u64j(r->per_request_blocks));
        json_object_set_new(d, "max_model_len", u64j(r->max_model_len));
        json_object_set_new(d, "needed_bytes", u64j(r->needed_bytes));
        if (r->estimated_max_model_len)
            json_object_set_new(d, "estimated_max_model_len", u64j(r->estimated_max_model_len));
        break;
    case KVP_ENGINE_SGLANG:
        json_object_set_new(d, "cell_size", u64j(r->cell_bytes));
        json_object_set_new(d, "page_size", u64j(r->block_size));
        json_object_set_new(d, "context_len", u64j(r->max_model_len));
        if (r->swa_tokens) json_object_set_new(d, "swa_max_total_num_tokens", u64j(r->swa_tokens));
        if (r->mamba_cache_size)
            json_object_set_new(d, "max_mamba_cache_size", u64j(r->mamba_cache_size));
        break;
    case KVP_ENGINE_LLAMACPP:
        json_object_set_new(d, "n_ctx", u64j(r->n_ctx));
        json_object_set_new(d, "n_ctx_seq", u64j(r->n_ctx_seq));
        json_object_set_new(d, "n_seq_max", u64j(r->n_seq_max));
        json_object_set_new(d, "n_stream", u64j(r->n_stream));
        json_object_set_new(d, "type_k", json_string(r->kv_dtype_name));
        json_object_set_new(d, "type_v", json_string(r->type_v_name));
        json_object_set_new(d, "kv_layers", u64j(r->main_layers));
        if (r->swa_layers) {
            json_object_set_new(d, "swa_cells", u64j(r->swa_tokens));
            json_object_set_new(d, "swa_layers", u64j(r->swa_layers));
            json_object_set_new(d, "swa_k_size_bytes", u64j(r->swa_k_bytes));
            json_object_set_new(d, "swa_v_size_bytes", u64j(r->swa_v_bytes));
        }
        if (r->recurrent_layers) {
            json_object_set_new(d, "recurrent_cells", u64j(r->recurrent_cells));
            json_object_set_new(d, "recurrent_r_size_bytes", u64j(r->recurrent_r_bytes));
            json_object_set_new(d, "recurrent_s_size_bytes", u64j(r->recurrent_s_bytes));
        }
        if (r->indexer_layers) {
            json_object_set_new(d, "indexer_kv_size_bytes", u64j(r->indexer_bytes));
            json_object_set_new(d, "indexer_layers", u64j(r->indexer_layers));
        }
        break;
    case KVP_ENGINE_TRTLLM:
        json_object_set_new(d, "tokens_per_block", u64j(r->block_size));
        json_object_set_new(d, "estimator_bytes_per_token", u64j(r->trt_estimator_bytes_per_token));
        json_object_set_new(d, "manager_bytes_per_token", u64j(r->trt_manager_bytes_per_token));
        break;
    default:
        break;
    }
    json_object_set_new(root, "engine_details", d);
    json_t *notes = json_array();
    for (uint32_t i = 0; i < r->note_count; i++) json_array_append_new(notes, json_string(r->notes[i]));
    json_object_set_new(root, "notes", notes);
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    if (text) {
        puts(text);
        free(text);
    }
    json_decref(root);
}

int kvp_cli_plan_policy(int argc, char **argv) {
    kvp_policy_settings s = kvp_policy_settings_default();
    const char *model_arg = NULL, *geometry = NULL, *gpu = NULL;
    bool json = false, bad = false, policy_set = false;
    int flag = 0, indexer_counted = -1;
    const char *era = NULL;
    uint64_t gpu_mem = 0;
    static const char *const o_tp[] = {"--tp", "--tensor-parallel-size", "-tp", NULL};
    static const char *const o_pp[] = {"--pp", "--pipeline-parallel-size", NULL};
    static const char *const o_dp[] = {"--dp", "--data-parallel-size", NULL};
    static const char *const o_dt[] = {"--kv-dtype", "--kv-cache-dtype", NULL};
    static const char *const o_bs[] = {"--block-size", "--page-size", NULL};
    static const char *const o_len[] = {"--max-model-len", "--context-length", NULL};
    static const char *const o_ctx[] = {"--ctx-size", "-c", NULL};
    static const char *const o_np[] = {"--parallel", "-np", NULL};
    static const char *const o_ctk[] = {"--cache-type-k", "-ctk", NULL};
    static const char *const o_ctv[] = {"--cache-type-v", "-ctv", NULL};
    static const char *const o_ub[] = {"--ubatch-size", "-ub", NULL};
    static const char *const o_b[] = {"--batch-size", "-b", NULL};
    for (int i = 1; i < argc && !bad; i++) {
        const char *a = argv[i], *v = NULL;
        uint64_t u64;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage();
            return KVP_EXIT_OK;
        } else if (!strcmp(a, "--json")) {
            json = true;
        } else if (kvp_cli_opt(argc, argv, &i, "--policy", &v, &bad)) {
            if (bad) break;
            if (kvp_engine_parse(v, &s.engine) != KVP_OK) {
                kvp_cli_fail("--policy: unknown engine '%s' (expected trtllm, vllm, sglang, "
                             "llamacpp)", v);
                bad = true;
            }
            policy_set = true;
        } else if (kvp_cli_opt(argc, argv, &i, "--engine-version", &v, &bad)) {
            if (!bad) bad = !str_opt("--engine-version", v, s.engine_version, sizeof s.engine_version);
        } else if (kvp_cli_opt(argc, argv, &i, "--kv-budget", &v, &bad)) {
            if (!bad) bad = !kvp_cli_bytes("--kv-budget", v, &s.kv_budget_bytes);
            if (!bad && s.kv_budget_bytes == 0) {
                kvp_cli_fail("--kv-budget: must be positive");
                bad = true;
            }
        } else if (opt_any(argc, argv, &i, o_tp, &v, &bad)) {
            if (!bad) bad = !kvp_cli_u32("--tp", v, 1, 65536, &s.tp);
        } else if (opt_any(argc, argv, &i, o_pp, &v, &bad)) {
            if (!bad) bad = !kvp_cli_u32("--pp", v, 1, 65536, &s.pp);
        } else if (opt_any(argc, argv, &i, o_dp, &v, &bad)) {
            if (!bad) bad = !kvp_cli_u32("--dp", v, 1, 65536, &s.dp);
        } else if (bool_flag(argc, argv, &i, "--enable-dp-attention", &flag, &bad)) {
            s.enable_dp_attention = flag == 1;
        } else if (bool_flag(argc, argv, &i, "--indexer-counted", &flag, &bad)) {
            indexer_counted = flag;
        } else if (kvp_cli_opt(argc, argv, &i, "--era", &v, &bad)) {
            era = v;
        } else if (opt_any(argc, argv, &i, o_dt, &v, &bad)) {
            if (!bad) bad = !str_opt("--kv-dtype", v, s.kv_dtype, sizeof s.kv_dtype);
        } else if (opt_any(argc, argv, &i, o_bs, &v, &bad)) {
            if (!bad) bad = !kvp_cli_u32("--block-size", v, 1, 1u << 20, &s.block_size);
        } else if (opt_any(argc, argv, &i, o_len, &v, &bad)) {
            if (!bad && strcmp(v, "-1") == 0) {
                s.auto_fit_max_model_len = true;
                continue;
            }
            if (!bad) bad = !kvp_cli_u64_count("--max-model-len", v, &s.max_model_len);
            if (!bad && (s.max_model_len == 0 || s.max_model_len > (1ull << 40))) {
                kvp_cli_fail("--max-model-len: %s is out of range", v);
                bad = true;
            }
        } else if (kvp_cli_opt(argc, argv, &i, "--gpu-memory-utilization", &v, &bad)) {
            if (!bad) bad = !double_opt("--gpu-memory-utilization", v, 0, 1, &s.gpu_memory_utilization);
        } else if (kvp_cli_opt(argc, argv, &i, "--mem-fraction-static", &v, &bad)) {
            if (!bad) bad = !double_opt("--mem-fraction-static", v, 0, 1, &s.mem_fraction_static);
        } else if (opt_any(argc, argv, &i, o_ctx, &v, &bad)) {
            if (!bad) bad = !kvp_cli_u64_count("--ctx-size", v, &s.n_ctx);
            if (!bad && s.n_ctx > (1ull << 32)) {
                kvp_cli_fail("--ctx-size: %s is out of range", v);
                bad = true;
            }
        } else if (opt_any(argc, argv, &i, o_np, &v, &bad)) {
            if (!bad) bad = !kvp_cli_u32("--parallel", v, 0, 1u << 20, &s.n_seq_max);
        } else if (!strcmp(a, "--no-kv-unified")) {
            s.kv_unified = 0;
        } else if (bool_flag(argc, argv, &i, "--kv-unified", &s.kv_unified, &bad)) {
        } else if (bool_flag(argc, argv, &i, "--swa-full", &s.swa_full, &bad)) {
        } else if (opt_any(argc, argv, &i, o_ctk, &v, &bad)) {
            if (!bad) bad = !str_opt("--cache-type-k", v, s.type_k, sizeof s.type_k);
        } else if (opt_any(argc, argv, &i, o_ctv, &v, &bad)) {
            if (!bad) bad = !str_opt("--cache-type-v", v, s.type_v, sizeof s.type_v);
        } else if (opt_any(argc, argv, &i, o_ub, &v, &bad)) {
            if (!bad) bad = !kvp_cli_u32("--ubatch-size", v, 1, 1u << 24, &s.n_ubatch);
        } else if (opt_any(argc, argv, &i, o_b, &v, &bad)) {
            if (!bad) bad = !kvp_cli_u32("--batch-size", v, 1, 1u << 24, &s.n_batch);
        } else if (fa_opt(argc, argv, &i, &s.flash_attn, &bad)) {
        } else if (kvp_cli_opt(argc, argv, &i, "--max-num-batched-tokens", &v, &bad)) {
            if (!bad) bad = !kvp_cli_u64_count("--max-num-batched-tokens", v, &s.max_num_batched_tokens);
        } else if (kvp_cli_opt(argc, argv, &i, "--max-num-seqs", &v, &bad)) {
            if (!bad) bad = !kvp_cli_u32("--max-num-seqs", v, 1, 1u << 24, &s.max_num_seqs);
        } else if (kvp_cli_opt(argc, argv, &i, "--mamba-cache-mode", &v, &bad)) {
            if (!bad) bad = !str_opt("--mamba-cache-mode", v, s.mamba_cache_mode, sizeof s.mamba_cache_mode);
        } else if (kvp_cli_opt(argc, argv, &i, "--num-draft-layers", &v, &bad)) {
            if (!bad) bad = !kvp_cli_u32("--num-draft-layers", v, 0, 1024, &s.num_draft_layers);
        } else if (kvp_cli_opt(argc, argv, &i, "--gpu-mem", &v, &bad)) {
            if (!bad) bad = !kvp_cli_bytes("--gpu-mem", v, &gpu_mem);
        } else if (kvp_cli_opt(argc, argv, &i, "--gpu", &v, &bad)) {
            gpu = v;
        } else if (kvp_cli_opt(argc, argv, &i, "--free-mem", &v, &bad)) {
            if (!bad) bad = !kvp_cli_bytes("--free-mem", v, &s.free_memory_bytes);
        } else if (kvp_cli_opt(argc, argv, &i, "--weights", &v, &bad)) {
            if (!bad) bad = !kvp_cli_bytes("--weights", v, &s.weights_bytes);
        } else if (kvp_cli_opt(argc, argv, &i, "--peak", &v, &bad)) {
            if (!bad) bad = !kvp_cli_bytes("--peak", v, &s.peak_activation_bytes);
        } else if (kvp_cli_opt(argc, argv, &i, "--non-torch", &v, &bad)) {
            if (!bad) bad = !kvp_cli_bytes("--non-torch", v, &s.non_torch_bytes);
        } else if (kvp_cli_opt(argc, argv, &i, "--cuda-graph", &v, &bad)) {
            if (!bad) bad = !kvp_cli_bytes("--cuda-graph", v, &s.cudagraph_bytes);
        } else if (kvp_cli_opt(argc, argv, &i, "--geometry", &v, &bad)) {
            geometry = v;
        } else if (a[0] == '-' && a[1] != '\0') {
            return kvp_cli_unknown_option(a, k_known);
        } else if (!model_arg) {
            model_arg = a;
        } else {
            return kvp_cli_fail("plan: unexpected argument '%s' (one MODEL only)", a);
        }
        (void)u64;
    }
    if (bad) return KVP_EXIT_BAD_INPUT;
    (void)policy_set;
    /* --era (a vLLM era tag) and --indexer-counted=false (SGLang before PR #11309)
     * refine the version string the policies read. */
    if (era || indexer_counted == 0) {
        char v[sizeof s.engine_version];
        snprintf(v, sizeof v, "%s%s%s%s", era ? era : "", era ? " " : "", s.engine_version,
                 indexer_counted == 0 ? " pre-11309" : "");
        kvp__strlcpy(s.engine_version, v, sizeof s.engine_version);
    }
    if (!model_arg && !geometry) {
        usage();
        return kvp_cli_fail("plan: missing MODEL");
    }
    kvp_error err;
    kvp_error_clear(&err);
    if (gpu) {
        kvp_gpu_info info;
        if (kvp_gpu_lookup(gpu, &info, &err) != KVP_OK) return kvp_cli_report_error(&err, json);
        if (!gpu_mem) gpu_mem = info.total_bytes;
    }
    s.total_memory_bytes = gpu_mem;

    kvp_model *model = NULL;
    kvp_status st;
    if (geometry)
        st = load_geometry(geometry, &model, &err);
    else if (looks_like_geometry(model_arg))
        st = load_geometry(model_arg, &model, &err);
    else
        st = kvp_model_open(model_arg, NULL, &model, &err);
    if (st) return kvp_cli_report_error(&err, json);

    kvp_policy_result r;
    st = kvp_policy_plan(model, &s, &r, &err);
    if (st) {
        kvp_model_free(model);
        return kvp_cli_report_error(&err, json);
    }
    if (json)
        print_json(model, &r);
    else
        print_text(model, &r);
    kvp_model_free(model);
    return KVP_EXIT_OK;
}
