/* from_cmd.c — `kvplan plan --from "<engine command>"` (from_cmd.h): split the
 * pasted command with the one splitter (src/options/shell_words.c), tell the
 * engine from the program name, map the options kvplan models to `kvplan plan`
 * options and list every other one as ignored (unknown ones warned by name).
 * trtllm-serve's extra-options YAML is read with libyaml
 * (src/options/yaml_options.c), nested sections as dotted keys. A setting the
 * command gives and the user gives again is a contradiction (exit 2). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_options.h"
#include "from_cmd.h"
#include "kvplan/startup.h"
#include "shell_words.h"
#include "util.h"
#include "yaml_options.h"


/* ------------------------------------------------------------- storage */

static char *store(kvp_from_cmd *c, const char *s, size_t n) {
    if (c->used + n + 1 > sizeof c->storage) return NULL;
    char *d = c->storage + c->used;
    memcpy(d, s, n);
    d[n] = '\0';
    c->used += n + 1;
    return d;
}

static bool emit(kvp_from_cmd *c, const char *s) {
    if (c->argc >= KVP_FROM_MAX_ARGS) return false;
    char *d = store(c, s, strlen(s));
    if (!d) return false;
    c->argv[c->argc++] = d;
    return true;
}

static void ignore(kvp_from_cmd *c, const char *name, const char *value) {
    c->ignored_count++;
    size_t len = strlen(c->ignored);
    if (len + 8 >= sizeof c->ignored) return;
    snprintf(c->ignored + len, sizeof c->ignored - len, "%s%s%s%s", len ? ", " : "", name,
             value ? " " : "", value ? value : "");
}

/* An option the engine's table does not know: ignored as well, and warned
 * about by name (a typo must not pass silently). */
static void unknown(kvp_from_cmd *c, const char *name, const char *value) {
    ignore(c, name, value);
    c->unknown_count++;
    size_t len = strlen(c->unknown);
    if (len + 8 >= sizeof c->unknown) return;
    snprintf(c->unknown + len, sizeof c->unknown - len, "%s%s%s%s", len ? ", " : "", name,
             value ? " " : "", value ? value : "");
}

/* ------------------------------------------------------------ option tables */

typedef enum map_kind {
    MAP_VALUE = 0,   /* --opt V -> to V */
    MAP_FLAG,        /* --opt -> to (a false "=value" drops it) */
    MAP_MODEL,       /* --model M */
    MAP_YAML,        /* trtllm-serve --extra_llm_api_options FILE */
    MAP_FA,          /* llama.cpp -fa [on|off|auto] */
    MAP_IGNORE_FLAG, /* known flag without a value kvplan does not model */
    MAP_IGNORE_VALUE,/* known option with a value kvplan does not model */
    MAP_BOOL,        /* --flag or --flag=VALUE -> to[=VALUE] */
} map_kind;

typedef struct opt_map {
    const char *names[4];
    const char *to;
    map_kind kind;
} opt_map;

/* vLLM `vllm serve` (EngineArgs names). */
static const opt_map k_vllm[] = {
    {{"--model"}, NULL, MAP_MODEL},
    {{"--max-model-len"}, "--max-model-len", MAP_VALUE},
    {{"--tensor-parallel-size", "-tp"}, "--tp", MAP_VALUE},
    {{"--pipeline-parallel-size", "-pp"}, "--pp", MAP_VALUE},
    {{"--data-parallel-size", "-dp"}, "--dp", MAP_VALUE},
    {{"--kv-cache-dtype"}, "--kv-dtype", MAP_VALUE},
    {{"--gpu-memory-utilization"}, "--gpu-memory-utilization", MAP_VALUE},
    {{"--block-size"}, "--block-size", MAP_VALUE},
    {{"--max-num-batched-tokens"}, "--max-num-batched-tokens", MAP_VALUE},
    {{"--max-num-seqs"}, "--max-num-seqs", MAP_VALUE},
    {{"--mamba-cache-mode"}, "--mamba-cache-mode", MAP_VALUE},
    {{"--mamba-cache-dtype"}, "--mamba-cache-dtype", MAP_VALUE},
    {{"--mamba-ssm-cache-dtype"}, "--mamba-ssm-cache-dtype", MAP_VALUE},
    {{"--kv-cache-memory-bytes", "--kv-cache-memory"}, "--kv-budget", MAP_VALUE},
    {{"--dtype"}, "--dtype", MAP_VALUE},
    {{"--quantization", "-q"}, "--quantization", MAP_VALUE},
    {{"--trust-remote-code"}, "--trust-remote-code", MAP_BOOL},
    {{"--enforce-eager"}, "--enforce-eager", MAP_BOOL},
    {{"--enable-prefix-caching"}, "--enable-prefix-caching", MAP_BOOL},
    {{"--no-enable-prefix-caching"}, "--no-enable-prefix-caching", MAP_FLAG},
    {{"--enable-chunked-prefill"}, "--enable-chunked-prefill", MAP_BOOL},
    {{"--no-enable-chunked-prefill"}, "--no-enable-chunked-prefill", MAP_FLAG},
    {{"--enable-expert-parallel"}, "--enable-expert-parallel", MAP_BOOL},
    {{"--speculative-config", "--speculative_config"}, "--speculative-config", MAP_VALUE},
    {{"--num-speculative-tokens"}, "--num-speculative-tokens", MAP_VALUE},
    {{"--cuda-graph-sizes"}, "--cuda-graph-max-bs", MAP_VALUE},
    {{"--disable-log-requests", "--disable-log-stats", "--enable-auto-tool-choice",
      "--async-scheduling"}, NULL, MAP_IGNORE_FLAG},
    {{"--port", "--host", "--served-model-name", "--api-key"}, NULL, MAP_IGNORE_VALUE},
    {{"--tool-call-parser", "--chat-template", "--download-dir", "--seed"}, NULL, MAP_IGNORE_VALUE},
    {{"--tokenizer", "--revision", "--reasoning-parser", "--uvicorn-log-level"}, NULL,
     MAP_IGNORE_VALUE},
    {{"--max-log-len", "--load-format", "--distributed-executor-backend", "--config"}, NULL,
     MAP_IGNORE_VALUE},
    {{"--limit-mm-per-prompt", "--hf-overrides", "--compilation-config", "--override-generation-config"},
     NULL, MAP_IGNORE_VALUE},
    {{NULL}, NULL, MAP_VALUE},
};

/* SGLang `python -m sglang.launch_server` (ServerArgs names). */
static const opt_map k_sglang[] = {
    {{"--model-path", "--model"}, NULL, MAP_MODEL},
    {{"--tp", "--tp-size", "--tensor-parallel-size"}, "--tp", MAP_VALUE},
    {{"--pp", "--pp-size", "--pipeline-parallel-size"}, "--pp", MAP_VALUE},
    {{"--dp", "--dp-size", "--data-parallel-size"}, "--dp", MAP_VALUE},
    {{"--enable-dp-attention"}, "--enable-dp-attention", MAP_FLAG},
    {{"--mem-fraction-static"}, "--mem-fraction-static", MAP_VALUE},
    {{"--kv-cache-dtype"}, "--kv-dtype", MAP_VALUE},
    {{"--page-size"}, "--page-size", MAP_VALUE},
    {{"--mamba-ssm-dtype"}, "--mamba-ssm-dtype", MAP_VALUE},
    {{"--context-length"}, "--context-length", MAP_VALUE},
    {{"--dtype"}, "--dtype", MAP_VALUE},
    {{"--quantization"}, "--quantization", MAP_VALUE},
    {{"--trust-remote-code"}, "--trust-remote-code", MAP_BOOL},
    {{"--disable-radix-cache"}, "--disable-radix-cache", MAP_FLAG},
    {{"--speculative-algorithm", "--speculative-algo"}, "--speculative-algorithm", MAP_VALUE},
    {{"--speculative-num-draft-tokens"}, "--speculative-num-draft-tokens", MAP_VALUE},
    {{"--disable-cuda-graph"}, "--enforce-eager", MAP_FLAG},
    {{"--cuda-graph-max-bs"}, "--cuda-graph-max-bs", MAP_VALUE},
    {{"--cuda-graph-bs"}, "--cuda-graph-batch-sizes", MAP_VALUE},
    {{"--enable-ep-moe"}, "--enable-expert-parallel", MAP_FLAG},
    {{"--enable-torch-compile"}, NULL, MAP_IGNORE_FLAG},
    {{"--enable-metrics", "--enable-mixed-chunk", "--skip-server-warmup"}, NULL,
     MAP_IGNORE_FLAG},
    {{"--port", "--host", "--served-model-name", "--api-key"}, NULL, MAP_IGNORE_VALUE},
    {{"--tool-call-parser", "--chat-template", "--download-dir", "--random-seed"}, NULL,
     MAP_IGNORE_VALUE},
    {{"--tokenizer-path", "--revision", "--reasoning-parser", "--log-level"}, NULL,
     MAP_IGNORE_VALUE},
    {{"--chunked-prefill-size", "--max-running-requests", "--attention-backend"},
     NULL, MAP_IGNORE_VALUE},
    {{"--speculative-draft-model-path", "--speculative-num-steps", "--speculative-eagle-topk",
      "--max-total-tokens"}, NULL, MAP_IGNORE_VALUE},
    {{"--ep", "--ep-size", "--expert-parallel-size", "--nnodes"}, NULL, MAP_IGNORE_VALUE},
    {{"--node-rank", "--dist-init-addr"}, NULL, MAP_IGNORE_VALUE},
    {{NULL}, NULL, MAP_VALUE},
};

/* llama.cpp `llama-server` (common arg names). */
static const opt_map k_llamacpp[] = {
    {{"-m", "--model", "-hf", "--hf-repo"}, NULL, MAP_MODEL},
    {{"-c", "--ctx-size"}, "--ctx-size", MAP_VALUE},
    {{"-np", "--parallel"}, "--parallel", MAP_VALUE},
    {{"-ctk", "--cache-type-k"}, "--cache-type-k", MAP_VALUE},
    {{"-ctv", "--cache-type-v"}, "--cache-type-v", MAP_VALUE},
    {{"-kvu", "--kv-unified"}, "--kv-unified", MAP_FLAG},
    {{"-no-kvu", "--no-kv-unified"}, "--no-kv-unified", MAP_FLAG},
    {{"--swa-full"}, "--swa-full", MAP_FLAG},
    {{"-ub", "--ubatch-size"}, "--ubatch-size", MAP_VALUE},
    {{"-b", "--batch-size"}, "--batch-size", MAP_VALUE},
    {{"-fa", "--flash-attn"}, "--flash-attn", MAP_FA},
    {{"-cb", "--cont-batching", "--no-mmap", "--mlock"}, NULL, MAP_IGNORE_FLAG},
    {{"--jinja", "--metrics", "--no-webui", "--embedding"}, NULL, MAP_IGNORE_FLAG},
    {{"-v", "--verbose", "-nocb", "--no-cont-batching"}, NULL, MAP_IGNORE_FLAG},
    {{"--port", "--host", "-ngl", "--n-gpu-layers"}, NULL, MAP_IGNORE_VALUE},
    {{"-t", "--threads", "--alias", "-a"}, NULL, MAP_IGNORE_VALUE},
    {{"--api-key", "--chat-template", "--temp", "--seed"}, NULL, MAP_IGNORE_VALUE},
    {{"-hff", "--hf-file", "--mmproj", "-ot"}, NULL, MAP_IGNORE_VALUE},
    {{"--override-tensor", "-ts", "--tensor-split", "-sm"}, NULL, MAP_IGNORE_VALUE},
    {{"--split-mode", "-mg", "--main-gpu", "--rope-scaling"}, NULL, MAP_IGNORE_VALUE},
    {{NULL}, NULL, MAP_VALUE},
};

/* TensorRT-LLM `trtllm-serve` (click option names). */
static const opt_map k_trtllm[] = {
    {{"--model"}, NULL, MAP_MODEL},
    {{"--tp_size", "--tp-size"}, "--tp", MAP_VALUE},
    {{"--pp_size", "--pp-size"}, "--pp", MAP_VALUE},
    {{"--max_batch_size", "--max-batch-size"}, "--max-batch-size", MAP_VALUE},
    {{"--max_num_tokens", "--max-num-tokens"}, "--max-num-tokens", MAP_VALUE},
    {{"--max_seq_len", "--max-seq-len"}, "--max-seq-len", MAP_VALUE},
    {{"--max_beam_width", "--max-beam-width"}, "--max-beam-width", MAP_VALUE},
    {{"--kv_cache_free_gpu_memory_fraction", "--kv-cache-free-gpu-memory-fraction"},
     "--free-gpu-memory-fraction", MAP_VALUE},
    {{"--extra_llm_api_options", "--extra-llm-api-options", "--config"}, NULL, MAP_YAML},
    {{"--trust_remote_code", "--trust-remote-code"}, "--trust-remote-code", MAP_BOOL},
    {{"--host", "--port", "--backend", "--log_level"}, NULL, MAP_IGNORE_VALUE},
    {{"--log-level", "--tokenizer", "--ep_size", "--ep-size"}, NULL, MAP_IGNORE_VALUE},
    {{"--num_postprocess_workers", "--reasoning_parser", "--gpus_per_node"}, NULL,
     MAP_IGNORE_VALUE},
    {{NULL}, NULL, MAP_VALUE},
};

static const opt_map *find_opt(const opt_map *table, const char *name) {
    for (; table->names[0]; table++)
        for (int k = 0; k < 4 && table->names[k]; k++)
            if (strcmp(table->names[k], name) == 0) return table;
    return NULL;
}

static bool is_false(const char *v) {
    return v && (strcmp(v, "0") == 0 || kvp__strcasecmp(v, "false") == 0 ||
                 kvp__strcasecmp(v, "off") == 0 || kvp__strcasecmp(v, "no") == 0);
}

/* ----------------------------------------------------------------- YAML */

typedef struct yaml_map {
    const char *key;  /* dotted path */
    const char *to;
    bool flag;        /* true/false value: emit `to` on true */
} yaml_map;

/* The LlmArgs keys that change the KV plan. */
static const yaml_map k_yaml[] = {
    {"tensor_parallel_size", "--tp", false},
    {"pipeline_parallel_size", "--pp", false},
    {"max_batch_size", "--max-batch-size", false},
    {"max_num_tokens", "--max-num-tokens", false},
    {"max_seq_len", "--max-seq-len", false},
    {"max_beam_width", "--max-beam-width", false},
    {"enable_attention_dp", "--attention-dp", true},
    {"kv_cache_config.free_gpu_memory_fraction", "--free-gpu-memory-fraction", false},
    {"kv_cache_config.dtype", "--kv-dtype", false},
    {"kv_cache_config.max_tokens", "--max-tokens", false},
    {"kv_cache_config.enable_block_reuse", "--enable-block-reuse", true},
    {"kv_cache_config.tokens_per_block", "--tokens-per-block", false},
    {"kv_cache_config.host_cache_size", "--host-cache-size", false},
    {"kv_cache_config.max_gpu_total_bytes", "--max-gpu-total-bytes", false},
    {"kv_cache_config.max_attention_window", "--max-attention-window", false},
    {"kv_cache_config.cross_kv_cache_fraction", "--cross-kv-cache-fraction", false},
    {"kv_cache_config.mamba_ssm_cache_dtype", "--mamba-ssm-cache-dtype", false},
    {"cuda_graph_config.max_batch_size", "--cuda-graph-batch-size", false},
    {"speculative_config.decoding_type", "--speculative-method", false},
    {"speculative_config.max_draft_len", "--num-speculative-tokens", false},
    {"trust_remote_code", "--trust-remote-code", true},
    {"enable_chunked_prefill", "--enable-chunked-prefill", true},
    {NULL, NULL, false},
};

/* The pairs of the options file (yaml_options.h) as `kvplan plan` options. */
typedef struct yaml_ctx {
    kvp_from_cmd *c;
    const char **yargv;
    int *yargc;
    bool full;
} yaml_ctx;

static kvp_status yaml_pair(void *vctx, const char *key, kvp__yaml_kind kind, const char *value,
                            kvp_error *err) {
    yaml_ctx *y = vctx;
    kvp_from_cmd *c = y->c;
    /* Sections kvplan reads must be mappings (or null). */
    bool section = !strcmp(key, "kv_cache_config") || !strcmp(key, "cuda_graph_config") ||
                   !strcmp(key, "speculative_config");
    if (section && kind != KVP_YAML_MAPPING && kind != KVP_YAML_NULL)
        return kvp__fail(err, KVP_CONFIG, NULL, key, "%s must be a mapping, found '%.64s'", key,
                         value ? value : "a list");
    if (kind == KVP_YAML_MAPPING) return KVP_OK;
    if (*y->yargc + 2 > KVP_FROM_MAX_ARGS) {
        y->full = true;
        return KVP_OK;
    }
    /* cuda_graph_config: null disables CUDA graphs. */
    if (!strcmp(key, "cuda_graph_config") && kind == KVP_YAML_NULL) {
        y->yargv[(*y->yargc)++] = "--cuda-graph-batch-size";
        y->yargv[(*y->yargc)++] = "0";
        return KVP_OK;
    }
    const yaml_map *m = NULL;
    for (const yaml_map *t = k_yaml; t->key; t++)
        if (!strcmp(t->key, key)) m = t;
    bool list_ok = m && !strcmp(m->key, "kv_cache_config.max_attention_window");
    if (!m || kind == KVP_YAML_OTHER || (kind == KVP_YAML_LIST && !list_ok)) {
        char what[320];
        snprintf(what, sizeof what, "%s: %s", key,
                 kind == KVP_YAML_NULL ? "null" : value ? value : "(a structure)");
        ignore(c, what, NULL);
        return KVP_OK;
    }
    if (kind == KVP_YAML_NULL) return KVP_OK; /* not stated: the default applies */
    if (m->flag) {
        if (!is_false(value)) y->yargv[(*y->yargc)++] = m->to;
        return KVP_OK;
    }
    char *v = store(c, value, strlen(value));
    if (!v) return kvp__fail(err, KVP_CONFIG, NULL, key, "the options file is too large");
    y->yargv[(*y->yargc)++] = m->to;
    y->yargv[(*y->yargc)++] = v;
    return KVP_OK;
}

static int read_yaml(const char *path, kvp_from_cmd *c, const char **yargv, int *yargc,
                     char *msg, size_t msg_size) {
    yaml_ctx y = {.c = c, .yargv = yargv, .yargc = yargc};
    kvp_error err;
    kvp_error_clear(&err);
    if (kvp__yaml_options_read(path, yaml_pair, &y, &err) != KVP_OK) {
        snprintf(msg, msg_size, "--from: the extra options file: %s", err.message);
        return KVP_EXIT_BAD_INPUT;
    }
    if (y.full) {
        snprintf(msg, msg_size, "--from: the command has too many options");
        return KVP_EXIT_BAD_INPUT;
    }
    return 0;
}

/* ------------------------------------------------------------------ parse */

static const char *base_name(const char *path) {
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static bool env_assignment(const char *t) {
    if (!((t[0] >= 'A' && t[0] <= 'Z') || (t[0] >= 'a' && t[0] <= 'z') || t[0] == '_'))
        return false;
    for (const char *p = t; *p; p++) {
        if (*p == '=') return true;
        if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
              *p == '_'))
            return false;
    }
    return false;
}

/* CUDA_VISIBLE_DEVICES: "0,1,3" (indices) or GPU-/MIG- UUIDs, comma-separated;
 * an empty list, an empty item or anything else does not parse. */
static bool visible_count(const char *v, uint32_t *out) {
    uint32_t n = 0;
    const char *p = v;
    if (!*p) return false;
    for (;;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == 0 || len > 96) return false;
        bool digits = true;
        for (size_t k = 0; k < len; k++) digits = digits && p[k] >= '0' && p[k] <= '9';
        bool uuid = (len > 4 && (strncmp(p, "GPU-", 4) == 0 || strncmp(p, "MIG-", 4) == 0));
        if (!digits && !uuid) return false;
        if (digits && len > 4) return false;
        n++;
        if (!e) break;
        p = e + 1;
    }
    *out = n;
    return true;
}

/* A word that starts another engine's command ("... && python -m sglang.launch_server"). */
static const char *engine_word(char **tok, int n, int i) {
    const char *b = base_name(tok[i]);
    if (strcmp(b, "llama-server") == 0 || strcmp(b, "trtllm-serve") == 0) return tok[i];
    if ((strcmp(b, "vllm") == 0 || strcmp(b, "sglang") == 0) && i + 1 < n &&
        strcmp(tok[i + 1], "serve") == 0)
        return tok[i];
    if (strcmp(tok[i], "sglang.launch_server") == 0 ||
        strcmp(tok[i], "vllm.entrypoints.openai.api_server") == 0)
        return tok[i];
    return NULL;
}

static bool is_operator(const char *w) {
    static const char *const k[] = {"|", "||", "&&", ";", "&", ">", ">>", "<", "2>&1", "2>", NULL};
    for (int k2 = 0; k[k2]; k2++)
        if (strcmp(w, k[k2]) == 0) return true;
    return false;
}

int kvp_from_parse(const char *cmdline, kvp_from_cmd *c, char *msg, size_t msg_size) {
    memset(c, 0, offsetof(kvp_from_cmd, storage));
    if (!cmdline || strlen(cmdline) >= KVP_FROM_MAX_INPUT) {
        snprintf(msg, msg_size, "--from: the command is empty or longer than %d bytes",
                 KVP_FROM_MAX_INPUT);
        return KVP_EXIT_BAD_INPUT;
    }
    /* The one splitter (src/options/shell_words.c); the words are copied into
     * the command's storage. */
    kvp__shell_words *words = kvp__malloc(NULL, sizeof *words);
    if (!words) {
        snprintf(msg, msg_size, "--from: out of memory");
        return KVP_EXIT_BAD_INPUT;
    }
    kvp_error serr;
    if (kvp__shell_split(cmdline, words, &serr) != KVP_OK) {
        snprintf(msg, msg_size, "--from: %s", serr.message);
        kvp__free(NULL, words);
        return KVP_EXIT_BAD_INPUT;
    }
    char *tok[KVP_SHELL_MAX_WORDS];
    int n = 0;
    for (size_t k = 0; k < words->count; k++) {
        tok[n] = store(c, words->word[k], strlen(words->word[k]));
        if (!tok[n]) break;
        n++;
    }
    kvp__strlcpy(c->variables, words->variables, sizeof c->variables);
    bool stored = (size_t)n == words->count;
    kvp__free(NULL, words);
    if (!stored) {
        snprintf(msg, msg_size, "--from: the command is too long");
        return KVP_EXIT_BAD_INPUT;
    }
    int rc = 0;
    int i = 0;
    const char *env_words[KVP_STARTUP_MAX_ENV];
    int env_count = 0;
    uint32_t visible = 0;
    bool have_visible = false;
    while (i < n && (env_assignment(tok[i]) || strcmp(tok[i], "env") == 0 ||
                     strcmp(tok[i], "exec") == 0)) {
        if (env_assignment(tok[i])) {
            if (strncmp(tok[i], "CUDA_VISIBLE_DEVICES=", 21) == 0 ||
                strncmp(tok[i], "HIP_VISIBLE_DEVICES=", 20) == 0 ||
                strncmp(tok[i], "ROCR_VISIBLE_DEVICES=", 21) == 0) {
                if (!visible_count(strchr(tok[i], '=') + 1, &visible)) {
                    snprintf(msg, msg_size,
                             "--from: '%.120s': expected a comma-separated list of GPU indices "
                             "or GPU-/MIG- UUIDs", tok[i]);
                    return KVP_EXIT_BAD_INPUT;
                }
                have_visible = true;
            } else if (env_count < KVP_STARTUP_MAX_ENV) {
                env_words[env_count++] = tok[i];
            } else {
                snprintf(msg, msg_size, "--from: more than %d environment assignments",
                         KVP_STARTUP_MAX_ENV);
                return KVP_EXIT_BAD_INPUT;
            }
        }
        i++;
    }
    if (i >= n) {
        snprintf(msg, msg_size, "--from: the command is empty");
        return KVP_EXIT_BAD_INPUT;
    }
    /* Named in the message below, before i moves past the program words (a
     * `python -m UNKNOWN` at the end of the command once read past the words). */
    char prog_what[160];
    if (strncmp(base_name(tok[i]), "python", 6) == 0 && i + 2 < n && strcmp(tok[i + 1], "-m") == 0)
        snprintf(prog_what, sizeof prog_what, "%.60s -m %.60s", tok[i], tok[i + 2]);
    else
        snprintf(prog_what, sizeof prog_what, "%.120s", tok[i]);
    const char *prog = base_name(tok[i]);
    const opt_map *table = NULL;
    if (strcmp(prog, "vllm") == 0 && i + 1 < n && strcmp(tok[i + 1], "serve") == 0) {
        kvp__strlcpy(c->engine, "vllm", sizeof c->engine);
        table = k_vllm;
        i += 2;
    } else if (strncmp(prog, "python", 6) == 0 && i + 2 < n && strcmp(tok[i + 1], "-m") == 0) {
        const char *mod = tok[i + 2];
        if (strcmp(mod, "sglang.launch_server") == 0) {
            kvp__strlcpy(c->engine, "sglang", sizeof c->engine);
            table = k_sglang;
        } else if (strcmp(mod, "vllm.entrypoints.openai.api_server") == 0) {
            kvp__strlcpy(c->engine, "vllm", sizeof c->engine);
            table = k_vllm;
        }
        i += 3;
    } else if (strcmp(prog, "sglang") == 0 && i + 1 < n && strcmp(tok[i + 1], "serve") == 0) {
        kvp__strlcpy(c->engine, "sglang", sizeof c->engine);
        table = k_sglang;
        i += 2;
    } else if (strcmp(prog, "llama-server") == 0 || strcmp(prog, "llama-cli") == 0) {
        kvp__strlcpy(c->engine, "llamacpp", sizeof c->engine);
        table = k_llamacpp;
        i += 1;
    } else if (strcmp(prog, "trtllm-serve") == 0) {
        kvp__strlcpy(c->engine, "trtllm", sizeof c->engine);
        table = k_trtllm;
        i += 1;
        if (i < n && strcmp(tok[i], "serve") == 0) i++;
    }
    if (!table) {
        snprintf(msg, msg_size,
                 "--from: cannot tell the engine from '%s': expected 'vllm serve', 'python -m "
                 "vllm.entrypoints.openai.api_server', 'python -m sglang.launch_server', "
                 "'sglang serve', 'llama-server' or 'trtllm-serve'",
                 prog_what);
        return KVP_EXIT_BAD_INPUT;
    }
    bool positional_model = table == k_vllm || table == k_trtllm;
    const char *yaml_path = NULL;
    for (int k = 0; k < env_count; k++)
        if (!emit(c, "--env") || !emit(c, env_words[k])) goto too_many;
    if (have_visible) {
        char num[16];
        snprintf(num, sizeof num, "%u", visible);
        if (!emit(c, "--gpus") || !emit(c, num)) goto too_many;
    }
    for (; i < n; i++) {
        char *a = tok[i];
        if (a[0] != '-' || a[1] == '\0') {
            const char *other = engine_word(tok, n, i);
            if (other) {
                snprintf(msg, msg_size,
                         "--from: two engines in one command: '%s' after the %s command (paste "
                         "one command)", other, c->engine);
                return KVP_EXIT_BAD_INPUT;
            }
            if (is_operator(a)) {
                for (int j = i + 1; j < n; j++) {
                    const char *next = engine_word(tok, n, j);
                    if (!next) continue;
                    snprintf(msg, msg_size,
                             "--from: two engines in one command: '%s' after '%s' (paste one "
                             "command)", next, a);
                    return KVP_EXIT_BAD_INPUT;
                }
                snprintf(msg, msg_size,
                         "--from: shell operator '%s' in the command: paste the engine command "
                         "alone", a);
                return KVP_EXIT_BAD_INPUT;
            }
            if (positional_model && !c->model)
                c->model = a;
            else
                ignore(c, a, NULL);
            continue;
        }
        /* --name=value */
        char name[128];
        const char *inline_value = NULL;
        kvp__strlcpy(name, a, sizeof name);
        char *eq = strchr(name, '=');
        if (eq) {
            *eq = '\0';
            inline_value = a + (eq - name) + 1;
        }
        const opt_map *m = find_opt(table, name);
        bool next_is_value = i + 1 < n && (tok[i + 1][0] != '-' ||
                                           (tok[i + 1][1] >= '0' && tok[i + 1][1] <= '9'));
        if (!m) {
            if (inline_value)
                unknown(c, a, NULL);
            else if (next_is_value)
                unknown(c, name, tok[i + 1]), i++;
            else
                unknown(c, name, NULL);
            continue;
        }
        const char *value = inline_value;
        if (m->kind == MAP_VALUE || m->kind == MAP_MODEL || m->kind == MAP_YAML ||
            m->kind == MAP_IGNORE_VALUE) {
            if (!value) {
                if (i + 1 >= n) {
                    snprintf(msg, msg_size, "--from: %s needs a value", name);
                    return KVP_EXIT_BAD_INPUT;
                }
                value = tok[++i];
            }
        }
        switch (m->kind) {
        case MAP_MODEL: c->model = value; break;
        case MAP_YAML: yaml_path = value; break;
        case MAP_VALUE:
            if (!emit(c, m->to) || !emit(c, value)) goto too_many;
            break;
        case MAP_FLAG:
            if (!is_false(value) && !emit(c, m->to)) goto too_many;
            break;
        case MAP_FA:
            /* -fa takes on|off|auto in current llama.cpp; older builds had a bare flag. */
            if (!value && i + 1 < n &&
                (!kvp__strcasecmp(tok[i + 1], "on") || !kvp__strcasecmp(tok[i + 1], "off") ||
                 !kvp__strcasecmp(tok[i + 1], "auto")))
                value = tok[++i];
            if (!emit(c, value ? "--flash-attn" : m->to)) goto too_many;
            if (value && !emit(c, value)) goto too_many;
            break;
        case MAP_IGNORE_FLAG: ignore(c, a, NULL); break;
        case MAP_IGNORE_VALUE: ignore(c, name, value); break;
        case MAP_BOOL: {
            /* --flag, --flag=false, --flag true: kvplan's option takes the same forms. */
            if (!value && i + 1 < n && (is_false(tok[i + 1]) || !kvp__strcasecmp(tok[i + 1], "true")))
                value = tok[++i];
            char word[64];
            snprintf(word, sizeof word, "%s%s%s", m->to, value ? "=" : "", value ? value : "");
            if (!emit(c, word)) goto too_many;
            break;
        }
        }
    }
    if (yaml_path) {
        const char *yargv[KVP_FROM_MAX_ARGS];
        int yargc = 0;
        rc = read_yaml(yaml_path, c, yargv, &yargc, msg, msg_size);
        if (rc) return rc;
        /* LlmArgs from the YAML override the command-line flags: append them last. */
        for (int k = 0; k < yargc; k++)
            if (!emit(c, yargv[k])) goto too_many;
    }
    if (!c->model) {
        snprintf(msg, msg_size, "--from: the %s command names no model (expected %s)", c->engine,
                 table == k_sglang     ? "--model-path M"
                 : table == k_llamacpp ? "-m model.gguf"
                                       : "the model right after the program name");
        return KVP_EXIT_BAD_INPUT;
    }
    return 0;
too_many:
    snprintf(msg, msg_size, "--from: the command has too many options");
    return KVP_EXIT_BAD_INPUT;
}

/* ------------------------------------------------------------- rewrite */

static bool has_json(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--json") == 0) return true;
    return false;
}

static int from_fail(int argc, char **argv, const char *msg) {
    kvp_error e;
    kvp_error_clear(&e);
    e.code = KVP_INVALID_ARG;
    kvp__strlcpy(e.key, "--from", sizeof e.key);
    kvp__strlcpy(e.message, msg, sizeof e.message);
    return kvp_cli_report_error(&e, has_json(argc, argv));
}

/* Print one argument the way a shell would read it back. */
static void print_word(FILE *f, const char *w) {
    bool plain = *w != '\0';
    for (const char *p = w; *p; p++)
        if (!(strchr("-_./:=,+@%", *p) || (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
              (*p >= 'A' && *p <= 'Z')))
            plain = false;
    if (plain) {
        fputs(w, f);
        return;
    }
    fputc('\'', f);
    for (const char *p = w; *p; p++) {
        if (*p == '\'')
            fputs("'\\''", f);
        else
            fputc(*p, f);
    }
    fputc('\'', f);
}

/* "--tp=4" -> "--tp" into out; its length, 0 when `arg` is no option. */
static size_t option_name(const char *arg, char *out, size_t size) {
    if (arg[0] != '-' || arg[1] == '\0') return 0;
    size_t n = strcspn(arg, "=");
    if (n >= size) return 0;
    memcpy(out, arg, n);
    out[n] = '\0';
    return n;
}

int kvp_cli_from_rewrite(int argc, char **argv, kvp_from_argv *out) {
    memset(out, 0, sizeof *out);
    out->argc = argc;
    out->argv = argv;
    int at = -1;
    const char *cmdline = NULL;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        if (strcmp(argv[i], "--from") == 0) {
            if (i + 1 >= argc)
                return from_fail(argc, argv, "--from needs a value: the engine command, quoted");
            v = argv[i + 1];
        } else if (strncmp(argv[i], "--from=", 7) == 0) {
            v = argv[i] + 7;
        } else {
            continue;
        }
        if (at >= 0) return from_fail(argc, argv, "--from given twice");
        at = i;
        cmdline = v;
        if (strcmp(argv[i], "--from") == 0) i++;
    }
    if (at < 0) return 0;
    kvp_from_cmd *c = kvp__malloc(NULL, sizeof *c);
    if (!c) return from_fail(argc, argv, "out of memory");
    char msg[512];
    int rc = kvp_from_parse(cmdline, c, msg, sizeof msg);
    if (rc) {
        kvp__free(NULL, c);
        return from_fail(argc, argv, msg);
    }
    size_t cap = (size_t)argc + (size_t)c->argc + 8;
    char **nv = kvp__calloc(NULL, cap, sizeof *nv);
    if (!nv) {
        kvp__free(NULL, c);
        return from_fail(argc, argv, "out of memory");
    }
    /* Every string goes through the command's storage so argv is writable. */
    int k = 0;
    /* An explicit MODEL (the first argument, before any option) wins over the
     * model the --from command names: "plan MY-FOLDER --from 'vllm serve ID ...'"
     * plans MY-FOLDER with that command's settings (issue 16). */
    int explicit_at = argc > 1 && argv[1][0] != '-' && at != 1 ? 1 : -1;
    const char *model = explicit_at > 0 ? argv[1] : c->model;
    /* The command's settings and the user's own options must not disagree: a
     * setting given both ways is a contradiction naming both (exit 2), never one
     * side dropped. --policy naming the command's engine is the same statement. */
    bool user_policy = false;
    for (int j = 1; j < argc; j++) {
        if (j == at) {
            if (strcmp(argv[j], "--from") == 0) j++;
            continue;
        }
        const char *u = argv[j];
        char uname[64];
        size_t ul = option_name(u, uname, sizeof uname);
        if (!ul) continue;
        const kvp_option *ur = kvp_option_lookup(uname, NULL);
        if (ur && !strcmp(ur->name, "--policy")) {
            const char *pv = u[ul] == '=' ? u + ul + 1 : j + 1 < argc ? argv[j + 1] : "";
            kvp_engine pe, ce;
            if (kvp_engine_parse(pv, &pe) == KVP_OK && kvp_engine_parse(c->engine, &ce) == KVP_OK &&
                pe == ce) {
                user_policy = true;
                continue;
            }
            char why[160];
            snprintf(why, sizeof why, "the --from command is a %s command; give one", c->engine);
            kvp__free(NULL, nv);
            kvp__free(NULL, c);
            return kvp_cli_contradiction("--from", uname, why, has_json(argc, argv));
        }
        for (int k2 = 0; k2 < c->argc; k2++) {
            const char *f = c->argv[k2];
            char fname[64];
            size_t fl = option_name(f, fname, sizeof fname);
            if (!fl) continue;
            const kvp_option *fr = kvp_option_lookup(fname, NULL);
            bool same = ur ? fr == ur && !ur->repeats : !fr && !strcmp(fname, uname);
            if (!same) continue;
            const char *fv = f[fl] == '=' ? f + fl + 1
                             : k2 + 1 < c->argc && c->argv[k2 + 1][0] != '-' ? c->argv[k2 + 1]
                                                                               : "";
            char side[160], why[200];
            snprintf(side, sizeof side, "--from's %s%s%s", fname, *fv ? " " : "", fv);
            snprintf(why, sizeof why, "both set %s; give one", ur ? ur->field : fname);
            kvp__free(NULL, nv);
            kvp__free(NULL, c);
            return kvp_cli_contradiction(side, uname, why, has_json(argc, argv));
        }
    }
    const char *head[4] = {argv[0], model, "--policy", c->engine};
    for (int h = 0; h < 4; h++) {
        nv[k] = store(c, head[h], strlen(head[h]));
        if (!nv[k]) goto nomem;
        k++;
    }
    for (int j = 0; j < c->argc; j++) nv[k++] = (char *)c->argv[j];
    for (int j = 1; j < argc; j++) {
        if (j == explicit_at) continue;
        if (j == at) {
            if (strcmp(argv[j], "--from") == 0) j++;
            continue;
        }
        if (user_policy && !strncmp(argv[j], "--policy", 8)) { /* the same engine: said once */
            if (argv[j][8] == '\0') j++;
            continue;
        }
        nv[k++] = argv[j];
    }
    nv[k] = NULL;
    /* The notes are printed after the run (kvp_cli_from_finish), so a run
     * refused as bad input keeps its single error line. */
    char *note = NULL;
    size_t note_len = 0;
    FILE *f = open_memstream(&note, &note_len);
    if (f) {
        fputs("kvplan: --from: planning as: kvplan", f);
        for (int j = 0; j < k; j++) {
            fputc(' ', f);
            print_word(f, nv[j]);
        }
        fputc('\n', f);
        if (explicit_at > 0 && strcmp(model, c->model) != 0)
            fprintf(f, "kvplan: --from: MODEL '%s' given: it overrides the command's '%s'\n",
                    model, c->model);
        if (c->unknown_count)
            fprintf(f, "kvplan: --from: warning: %d option(s) the %s command table does not "
                       "know (a typo, or newer than kvplan): %s\n",
                    c->unknown_count, c->engine, c->unknown);
        if (c->ignored_count)
            fprintf(f, "kvplan: --from: ignored %d option(s) kvplan does not model: %s\n",
                    c->ignored_count, c->ignored);
        if (c->variables[0])
            fprintf(f, "kvplan: --from: %s left as text (kvplan does not expand shell "
                       "variables)\n", c->variables);
        fclose(f);
    }
    out->note = note;
    out->rewritten = true;
    out->argc = k;
    out->argv = nv;
    out->cmd = c;
    return 0;
nomem:
    kvp__free(NULL, nv);
    kvp__free(NULL, c);
    return from_fail(argc, argv, "the --from command is too long");
}

void kvp_cli_from_free(kvp_from_argv *fa) {
    if (!fa || !fa->rewritten) return;
    kvp__free(NULL, fa->argv);
    kvp__free(NULL, fa->cmd);
    free(fa->note); /* open_memstream: libc */
    memset(fa, 0, sizeof *fa);
}

bool kvp_cli_run_from(int argc, char **argv, int (*cmd)(int, char **), int *rc) {
    kvp_from_argv from;
    if (kvp_cli_from_rewrite(argc, argv, &from) != 0) {
        *rc = KVP_EXIT_BAD_INPUT;
        return true;
    }
    if (!from.rewritten) return false;
    *rc = cmd(from.argc, from.argv);
    kvp_cli_from_finish(&from, *rc);
    return true;
}

void kvp_cli_from_finish(kvp_from_argv *fa, int rc) {
    if (!fa || !fa->rewritten) return;
    if (rc != KVP_EXIT_BAD_INPUT && fa->note) fputs(fa->note, stderr);
    kvp_cli_from_free(fa);
}
