/* from_cmd.c — `kvplan plan --from "<engine command>"` (from_cmd.h): split the
 * pasted command with the one splitter (src/options/shell_words.c), tell the
 * engine from the program name, keep the options kvplan models as settings
 * under the engine's own spelling (a spelling of the option table) and list
 * every other one as ignored (unknown ones warned by name). trtllm-serve's
 * extra-options YAML is read with libyaml (src/options/yaml_options.c), nested
 * sections as dotted keys. The settings fill the command's kvp_options before
 * its own argv is read; a setting the command gives and the user gives again
 * is a contradiction (exit 2). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_options.h"
#include "from_cmd.h"
#include "kvplan/startup.h"
#include "kvplan/units.h"
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

/* One setting; `name` and `value` already live in the storage (or are literals). */
static bool add(kvp_from_cmd *c, const char *name, const char *value) {
    if (c->count >= KVP_FROM_MAX_ARGS) return false;
    c->set[c->count].name = name;
    c->set[c->count].value = value;
    c->count++;
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

/* A file the command names that is not on this machine. */
static void note_missing(kvp_from_cmd *c, const char *path, const char *what) {
    size_t len = strlen(c->missing);
    if (len + 8 >= sizeof c->missing) return;
    snprintf(c->missing + len, sizeof c->missing - len, "%s%s '%.200s'", len ? "; " : "", what,
             path);
}

/* ------------------------------------------------------------ option tables */

typedef enum map_kind {
    MAP_VALUE = 0,   /* --opt V */
    MAP_FLAG,        /* --opt (a false "=value" drops it) */
    MAP_MODEL,       /* --model M */
    MAP_YAML,        /* trtllm-serve --extra_llm_api_options FILE */
    MAP_FA,          /* llama.cpp -fa [on|off|auto] */
    MAP_IGNORE_FLAG, /* known flag without a value kvplan does not model */
    MAP_IGNORE_VALUE,/* known option with a value kvplan does not model */
    MAP_BOOL,        /* --flag or --flag=VALUE */
    MAP_LIST,        /* --opt N [N ...] (argparse nargs='+'): the CUDA graph capture sizes */
} map_kind;

/* Which options of an engine's command kvplan models, ignores or reads as the
 * model. A modelled option is set under its own name, a spelling of the option
 * table (options_table.c lists the engines' spellings); `to` names the table
 * spelling only for the few engine aliases the table does not carry. */
typedef struct opt_map {
    const char *names[4];
    const char *to;
    map_kind kind;
} opt_map;

/* vLLM `vllm serve` (EngineArgs names). */
static const opt_map k_vllm[] = {
    {{"--model"}, NULL, MAP_MODEL},
    {{"--max-model-len"}, NULL, MAP_VALUE},
    {{"--tensor-parallel-size", "-tp"}, NULL, MAP_VALUE},
    {{"--pipeline-parallel-size", "-pp"}, NULL, MAP_VALUE},
    {{"--data-parallel-size", "-dp"}, NULL, MAP_VALUE},
    {{"--kv-cache-dtype"}, NULL, MAP_VALUE},
    {{"--gpu-memory-utilization"}, NULL, MAP_VALUE},
    {{"--block-size"}, NULL, MAP_VALUE},
    {{"--max-num-batched-tokens"}, NULL, MAP_VALUE},
    {{"--max-num-seqs"}, NULL, MAP_VALUE},
    {{"--mamba-cache-mode"}, NULL, MAP_VALUE},
    {{"--mamba-cache-dtype"}, NULL, MAP_VALUE},
    {{"--mamba-ssm-cache-dtype"}, NULL, MAP_VALUE},
    /* vLLM's kv_cache_memory_bytes is the KV budget itself. */
    {{"--kv-cache-memory-bytes", "--kv-cache-memory"}, "--kv-budget", MAP_VALUE},
    {{"--dtype"}, NULL, MAP_VALUE},
    {{"--quantization", "-q"}, NULL, MAP_VALUE},
    {{"--trust-remote-code"}, NULL, MAP_BOOL},
    {{"--enforce-eager"}, NULL, MAP_BOOL},
    {{"--enable-prefix-caching"}, NULL, MAP_BOOL},
    {{"--no-enable-prefix-caching"}, NULL, MAP_FLAG},
    {{"--enable-chunked-prefill"}, NULL, MAP_BOOL},
    {{"--no-enable-chunked-prefill"}, NULL, MAP_FLAG},
    {{"--enable-expert-parallel"}, NULL, MAP_BOOL},
    {{"--speculative-config", "--speculative_config"}, NULL, MAP_VALUE},
    {{"--num-speculative-tokens"}, NULL, MAP_VALUE},
    {{"--cuda-graph-sizes"}, NULL, MAP_LIST},
    {{"--runner"}, NULL, MAP_VALUE},
    {{"--language-model-only"}, NULL, MAP_BOOL},
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
    {{"--tp", "--tp-size", "--tensor-parallel-size"}, NULL, MAP_VALUE},
    {{"--pp", "--pp-size", "--pipeline-parallel-size"}, NULL, MAP_VALUE},
    {{"--dp", "--dp-size", "--data-parallel-size"}, NULL, MAP_VALUE},
    {{"--enable-dp-attention"}, NULL, MAP_FLAG},
    {{"--mem-fraction-static"}, NULL, MAP_VALUE},
    {{"--kv-cache-dtype"}, NULL, MAP_VALUE},
    {{"--page-size"}, NULL, MAP_VALUE},
    {{"--mamba-ssm-dtype"}, NULL, MAP_VALUE},
    {{"--context-length"}, NULL, MAP_VALUE},
    {{"--dtype"}, NULL, MAP_VALUE},
    {{"--quantization"}, NULL, MAP_VALUE},
    {{"--trust-remote-code"}, NULL, MAP_BOOL},
    {{"--disable-radix-cache"}, NULL, MAP_FLAG},
    {{"--speculative-algorithm"}, NULL, MAP_VALUE},
    {{"--speculative-algo"}, "--speculative-algorithm", MAP_VALUE}, /* SGLang's alias */
    {{"--speculative-num-draft-tokens"}, NULL, MAP_VALUE},
    {{"--disable-cuda-graph"}, NULL, MAP_FLAG},
    {{"--cuda-graph-max-bs"}, NULL, MAP_VALUE},
    {{"--cuda-graph-bs"}, NULL, MAP_LIST},
    {{"--enable-ep-moe"}, NULL, MAP_FLAG},
    {{"--enable-torch-compile"}, NULL, MAP_IGNORE_FLAG},
    {{"--enable-metrics", "--enable-mixed-chunk", "--skip-server-warmup"}, NULL,
     MAP_IGNORE_FLAG},
    {{"--port", "--host", "--served-model-name", "--api-key"}, NULL, MAP_IGNORE_VALUE},
    {{"--tool-call-parser", "--chat-template", "--download-dir", "--random-seed"}, NULL,
     MAP_IGNORE_VALUE},
    {{"--tokenizer-path", "--revision", "--reasoning-parser", "--log-level"}, NULL,
     MAP_IGNORE_VALUE},
    {{"--chunked-prefill-size", "--max-running-requests", "--attention-backend"},
     NULL, MAP_VALUE},
    {{"--speculative-draft-model-path", "--speculative-num-steps", "--speculative-eagle-topk",
      "--max-total-tokens"}, NULL, MAP_IGNORE_VALUE},
    {{"--ep", "--ep-size", "--expert-parallel-size"}, NULL, MAP_VALUE},
    {{"--nnodes", "--node-rank", "--dist-init-addr"}, NULL, MAP_IGNORE_VALUE},
    {{NULL}, NULL, MAP_VALUE},
};

/* llama.cpp `llama-server` (common arg names). */
static const opt_map k_llamacpp[] = {
    {{"-m", "--model", "-hf", "--hf-repo"}, NULL, MAP_MODEL},
    {{"-c", "--ctx-size"}, NULL, MAP_VALUE},
    {{"-np", "--parallel"}, NULL, MAP_VALUE},
    {{"-ctk", "--cache-type-k"}, NULL, MAP_VALUE},
    {{"-ctv", "--cache-type-v"}, NULL, MAP_VALUE},
    {{"-kvu", "--kv-unified"}, NULL, MAP_FLAG},
    {{"--no-kv-unified"}, NULL, MAP_FLAG},
    {{"-no-kvu"}, "--no-kv-unified", MAP_FLAG}, /* llama.cpp's short form */
    {{"--swa-full"}, NULL, MAP_FLAG},
    {{"-ub", "--ubatch-size"}, NULL, MAP_VALUE},
    {{"-b", "--batch-size"}, NULL, MAP_VALUE},
    {{"-fa", "--flash-attn"}, NULL, MAP_FA},
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
    {{"--tp_size", "--tp-size"}, NULL, MAP_VALUE},
    {{"--pp_size", "--pp-size"}, NULL, MAP_VALUE},
    {{"--max_batch_size", "--max-batch-size"}, NULL, MAP_VALUE},
    {{"--max_num_tokens", "--max-num-tokens"}, NULL, MAP_VALUE},
    {{"--max_seq_len", "--max-seq-len"}, NULL, MAP_VALUE},
    {{"--max_beam_width", "--max-beam-width"}, NULL, MAP_VALUE},
    {{"--kv_cache_free_gpu_memory_fraction", "--kv-cache-free-gpu-memory-fraction"},
     NULL, MAP_VALUE},
    {{"--extra_llm_api_options", "--extra-llm-api-options", "--config"}, NULL, MAP_YAML},
    {{"--trust_remote_code", "--trust-remote-code"}, NULL, MAP_BOOL},
    {{"--host", "--port", "--backend", "--log_level"}, NULL, MAP_IGNORE_VALUE},
    {{"--ep_size", "--ep-size"}, NULL, MAP_VALUE},
    {{"--log-level", "--tokenizer"}, NULL, MAP_IGNORE_VALUE},
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

/* The LlmArgs keys that change the KV plan, and the table row (its kvplan
 * name) each sets: YAML keys are no command-line spellings. */
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
    {"cuda_graph_config.batch_sizes", "--cuda-graph-batch-sizes", false},
    {"speculative_config.decoding_type", "--speculative-method", false},
    {"speculative_config.max_draft_len", "--num-speculative-tokens", false},
    {"trust_remote_code", "--trust-remote-code", true},
    {"enable_chunked_prefill", "--enable-chunked-prefill", true},
    {NULL, NULL, false},
};

/* The pairs of the options file (yaml_options.h) as settings (table names). */
typedef struct yaml_ctx {
    kvp_from_cmd *c;
    kvp_from_setting *set;
    int *count;
    bool full;
} yaml_ctx;

static void yaml_add(yaml_ctx *y, const char *name, const char *value) {
    y->set[*y->count].name = name;
    y->set[*y->count].value = value;
    (*y->count)++;
}

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
    if (*y->count + 1 > KVP_FROM_MAX_ARGS) {
        y->full = true;
        return KVP_OK;
    }
    /* cuda_graph_config: null disables CUDA graphs. */
    if (!strcmp(key, "cuda_graph_config") && kind == KVP_YAML_NULL) {
        yaml_add(y, "--cuda-graph-batch-size", "0");
        return KVP_OK;
    }
    const yaml_map *m = NULL;
    for (const yaml_map *t = k_yaml; t->key; t++)
        if (!strcmp(t->key, key)) m = t;
    bool list_ok = m && (!strcmp(m->key, "kv_cache_config.max_attention_window") ||
                         !strcmp(m->key, "cuda_graph_config.batch_sizes"));
    if (!m || kind == KVP_YAML_OTHER || (kind == KVP_YAML_LIST && !list_ok)) {
        char what[320];
        snprintf(what, sizeof what, "%s: %s", key,
                 kind == KVP_YAML_NULL ? "null" : value ? value : "(a structure)");
        ignore(c, what, NULL);
        return KVP_OK;
    }
    if (kind == KVP_YAML_NULL) return KVP_OK; /* not stated: the default applies */
    if (m->flag) {
        if (!is_false(value)) yaml_add(y, m->to, NULL);
        return KVP_OK;
    }
    char *v = store(c, value, strlen(value));
    if (!v) return kvp__fail(err, KVP_CONFIG, NULL, key, "the options file is too large");
    yaml_add(y, m->to, v);
    return KVP_OK;
}

static int read_yaml(const char *path, kvp_from_cmd *c, kvp_from_setting *set, int *count,
                     char *msg, size_t msg_size) {
    yaml_ctx y = {.c = c, .set = set, .count = count};
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
        if (!add(c, "--env", env_words[k])) goto too_many;
    if (have_visible) {
        char num[16];
        snprintf(num, sizeof num, "%u", visible);
        const char *v = store(c, num, strlen(num));
        if (!v || !add(c, "--gpus", v)) goto too_many;
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
            m->kind == MAP_IGNORE_VALUE || m->kind == MAP_LIST) {
            if (!value) {
                if (i + 1 >= n) {
                    snprintf(msg, msg_size, "--from: %s needs a value", name);
                    return KVP_EXIT_BAD_INPUT;
                }
                value = tok[++i];
            }
        }
        /* The table's spelling: the engine's own name (the stored word unless it
         * held "=value"), or the alias's row. */
        const char *set_as = m->to ? m->to : !eq ? a : NULL;
        if (!set_as && (m->kind == MAP_VALUE || m->kind == MAP_FLAG || m->kind == MAP_FA ||
                        m->kind == MAP_BOOL || m->kind == MAP_LIST) &&
            !(set_as = store(c, name, strlen(name))))
            goto too_many;
        switch (m->kind) {
        case MAP_MODEL: c->model = value; break;
        case MAP_YAML: yaml_path = value; break;
        case MAP_VALUE:
            if (!add(c, set_as, value)) goto too_many;
            break;
        case MAP_FLAG:
            if (!is_false(value) && !add(c, set_as, NULL)) goto too_many;
            break;
        case MAP_FA:
            /* -fa takes on|off|auto in current llama.cpp; older builds had a bare flag. */
            if (!value && i + 1 < n &&
                (!kvp__strcasecmp(tok[i + 1], "on") || !kvp__strcasecmp(tok[i + 1], "off") ||
                 !kvp__strcasecmp(tok[i + 1], "auto")))
                value = tok[++i];
            if (!add(c, set_as, value)) goto too_many;
            break;
        case MAP_IGNORE_FLAG: ignore(c, a, NULL); break;
        case MAP_IGNORE_VALUE: ignore(c, name, value); break;
        case MAP_LIST: {
            /* `--cuda-graph-sizes 1 2 4 8` is a capture list (nargs='+'): the
             * nwords after it up to the next option, joined as the table's
             * N,N,... list. vLLM's single value N means "up to N" (its own
             * spelling of --cuda-graph-max-bs); SGLang's is a list of one. */
            size_t nwords = 1;
            while (!inline_value && i + (int)nwords < n && tok[i + (int)nwords][0] >= '0' &&
                   tok[i + (int)nwords][0] <= '9')
                nwords++;
            if (nwords > 1) {
                char list[KVP_FROM_MAX_INPUT];
                size_t len = 0;
                for (size_t w = 0; w < nwords && len < sizeof list; w++)
                    len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", w ? "," : "",
                                            w ? tok[i + (int)w] : value);
                if (len >= sizeof list || !(value = store(c, list, len))) goto too_many;
                i += (int)nwords - 1;
                if (!strcmp(name, "--cuda-graph-sizes")) set_as = "--cuda-graph-batch-sizes";
            }
            if (!add(c, set_as, value)) goto too_many;
            break;
        }
        case MAP_BOOL:
            /* --flag, --flag=false, --flag true: the table's flags take the same forms. */
            if (!value && i + 1 < n && (is_false(tok[i + 1]) || !kvp__strcasecmp(tok[i + 1], "true")))
                value = tok[++i];
            if (!add(c, set_as, value)) goto too_many;
            break;
        }
    }
    if (yaml_path) {
        /* A file of another machine (the command was pasted from there): warned by
         * name, the plan made from the rest of the command. */
        if (access(yaml_path, F_OK) != 0 && errno == ENOENT) {
            note_missing(c, yaml_path, "the options file");
            yaml_path = NULL;
        }
    }
    if (yaml_path) {
        kvp_from_setting yset[KVP_FROM_MAX_ARGS];
        int ycount = 0;
        rc = read_yaml(yaml_path, c, yset, &ycount, msg, msg_size);
        if (rc) return rc;
        /* LlmArgs from the YAML override the command-line flags (trtllm-serve
         * updates its llm_args with the file's): a flag of the same row gives way,
         * listed as ignored, and the file's setting comes last. */
        for (int k = 0; k < ycount; k++) {
            const kvp_option *yr = kvp_option_lookup(yset[k].name, NULL);
            for (int j = 0; yr && !yr->repeats && j < c->count; j++) {
                if (kvp_option_lookup(c->set[j].name, NULL) != yr) continue;
                char what[200];
                snprintf(what, sizeof what, "%s%s%.120s (the options file overrides it)",
                         c->set[j].name, c->set[j].value ? " " : "",
                         c->set[j].value ? c->set[j].value : "");
                ignore(c, what, NULL);
                memmove(&c->set[j], &c->set[j + 1], (size_t)(c->count - j - 1) * sizeof c->set[0]);
                c->count--;
                j--;
            }
            if (!add(c, yset[k].name, yset[k].value)) goto too_many;
        }
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

/* ------------------------------------------------------------ settings */

/* The running command's --from (from_cmd.h: one command runs at a time). */
#define ROW_POLICY 255 /* row[] mark of --policy: no setting index (KVP_FROM_MAX_ARGS < 255) */
typedef struct from_run {
    bool active;
    int argc;
    char **argv;                    /* the command's own argv (borrowed) */
    int at;                         /* argv index of --from */
    const char *word;               /* argv[at]: a body may read a copy of argv */
    kvp_from_cmd *cmd;              /* owned while the body runs */
    const kvp_options *options;     /* the settings it filled */
    unsigned char row[KVP_OPTIONS_MAX]; /* 1 + the index of the setting that filled a row */
    bool applied[KVP_FROM_MAX_ARGS];/* set into the options (not ignored) */
    const char *user_model;         /* the user's MODEL word, when one was given */
    const char *same_policy;        /* the user's --policy word naming the same engine */
    const char *same[2 * KVP_FROM_MAX_ARGS]; /* the user's words (option, value) that said
                                                what the command said: one statement */
    int same_count;
    bool model_elsewhere;           /* user_model is the catalogue's name of a missing folder */
} from_run;
static from_run g_run;

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

/* One applied setting under kvplan's own name (the row's), as `kvplan` reads it
 * back: a flag as "--name" or "--name=false" (a negated spelling included). */
static void print_setting(FILE *f, const kvp_from_setting *s) {
    size_t sp = 0;
    const kvp_option *r = kvp_option_lookup(s->name, &sp);
    if (!r) return;
    fputc(' ', f);
    fputs(r->name, f);
    if (r->type == KVP_OPTION_FLAG) {
        bool on = !s->value || !is_false(s->value);
        if (sp && r->spellings[sp - 1].negate) on = !on;
        if (!on) fputs("=false", f);
        return;
    }
    if (s->value) {
        fputc(' ', f);
        print_word(f, s->value);
    }
}

/* How the command was read, on stderr: the equivalent kvplan command line (the
 * command's settings, then the user's own arguments), the MODEL the user gave
 * instead, and the options ignored, unknown or left as text. */
static void print_note(FILE *f) {
    const kvp_from_cmd *c = g_run.cmd;
    const char *model = g_run.user_model ? g_run.user_model : c->model;
    fputs("kvplan: --from: planning as: kvplan ", f);
    print_word(f, g_run.argv[0]);
    fputc(' ', f);
    print_word(f, model);
    fprintf(f, " --policy %s", c->engine);
    for (int k = 0; k < c->count; k++)
        if (g_run.applied[k]) print_setting(f, &c->set[k]);
    for (int j = 1; j < g_run.argc; j++) {
        const char *a = g_run.argv[j];
        if (j == g_run.at || a == g_run.same_policy) {
            if (!strcmp(a, "--from") || !strcmp(a, "--policy")) j++; /* and its value */
            continue;
        }
        if (a == g_run.user_model) continue; /* said first */
        bool said = false;
        for (int k = 0; k < g_run.same_count && !said; k++) said = a == g_run.same[k];
        if (said) continue; /* the same statement as the command's: printed once */
        fputc(' ', f);
        print_word(f, a);
    }
    fputc('\n', f);
    if (g_run.user_model && strcmp(g_run.user_model, c->model) != 0 && !g_run.model_elsewhere)
        fprintf(f, "kvplan: --from: MODEL '%s' given: it overrides the command's '%s'\n",
                g_run.user_model, c->model);
    if (c->missing[0])
        fprintf(f, "kvplan: --from: warning: not on this machine: %s; planned from the rest of "
                   "the command%s%s%s\n",
                c->missing, g_run.model_elsewhere ? " (the model as the catalogue's '" : "",
                g_run.model_elsewhere ? g_run.user_model : "", g_run.model_elsewhere ? "')" : "");
    if (c->unknown_count)
        fprintf(f, "kvplan: --from: warning: %d option(s) the %s command table does not "
                   "know (a typo, or newer than kvplan): %s\n",
                c->unknown_count, c->engine, c->unknown);
    if (c->ignored_count)
        fprintf(f, "kvplan: --from: note: %d option(s) accepted that change neither memory, "
                   "admission nor the KV cache as kvplan plans them: %s\n",
                c->ignored_count, c->ignored);
    if (c->variables[0])
        fprintf(f, "kvplan: --from: %s left as text (kvplan does not expand shell "
                   "variables)\n", c->variables);
}

int kvp_cli_from_run(int argc, char **argv, int (*body)(int, char **)) {
    if (g_run.active) return body(argc, argv); /* a body that runs another command */
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
    if (at < 0) return body(argc, argv);
    kvp_from_cmd *c = kvp__malloc(NULL, sizeof *c);
    if (!c) return from_fail(argc, argv, "out of memory");
    char msg[512];
    int rc = kvp_from_parse(cmdline, c, msg, sizeof msg);
    if (rc) {
        kvp__free(NULL, c);
        return from_fail(argc, argv, msg);
    }
    g_run = (from_run){.active = true, .argc = argc, .argv = argv, .at = at, .word = argv[at],
                       .cmd = c};
    rc = body(argc, argv);
    /* After the run, so a run refused as bad input keeps its single error line. */
    if (rc != KVP_EXIT_BAD_INPUT) print_note(stderr);
    kvp__free(NULL, c);
    memset(&g_run, 0, sizeof g_run);
    return rc;
}

const char *kvp_cli_from_engine(void) { return g_run.active ? g_run.cmd->engine : NULL; }

/* A setting kvp_options_set refused: its message after "--from: ", so the user
 * knows the value came from the pasted command. */
static int apply_fail(const kvp_error *e, bool json) {
    kvp_error err = *e;
    snprintf(err.message, sizeof err.message, "--from: %s", e->message);
    return kvp_cli_report_error(&err, json);
}

int kvp_cli_from_apply(kvp_options *o, bool json) {
    if (!g_run.active) return -1;
    kvp_from_cmd *c = g_run.cmd;
    g_run.options = o;
    memset(g_run.row, 0, sizeof g_run.row);
    memset(g_run.applied, 0, sizeof g_run.applied);
    kvp_error err;
    kvp_error_clear(&err);
    const kvp_option *policy = kvp_option_lookup("--policy", NULL);
    if (kvp_options_set(o, policy->name, c->engine, &err) != KVP_OK) return apply_fail(&err, json);
    g_run.row[policy->id] = ROW_POLICY;
    for (int k = 0; k < c->count; k++) {
        const kvp_from_setting *s = &c->set[k];
        const kvp_option *r = kvp_option_lookup(s->name, NULL);
        if (!r || !(r->commands & o->command)) {
            /* A setting of the creator (plan) that this command does not take. */
            char what[200];
            snprintf(what, sizeof what, "%s%s%.120s (%s does not read it)", s->name,
                     s->value ? " " : "", s->value ? s->value : "", g_run.argv[0]);
            ignore(c, what, NULL);
            continue;
        }
        kvp_error_clear(&err);
        if (kvp_options_set(o, s->name, s->value, &err) != KVP_OK) return apply_fail(&err, json);
        g_run.applied[k] = true;
        /* No kvp_cli_note_spelling here: "--tp (read as ...)" rewrites the start of
         * a message for the spelling the user typed on kvplan's own command line,
         * and a --tp given there must not read as the command's -tp. */
        if (!g_run.row[r->id]) g_run.row[r->id] = (unsigned char)(k + 1);
    }
    kvp_cli_table_use(o);
    return -1;
}

/* A model path of another machine ("/models/meta-llama/Llama-3.1-8B"): the
 * catalogue entry its last one or two parts name, warned; NULL when none does. */
static const char *model_elsewhere(const char *path) {
    static char name[256];
    if (!(path[0] == '/' || path[0] == '~' || !strncmp(path, "./", 2) || !strncmp(path, "../", 3)))
        return NULL;
    if (access(path, F_OK) == 0 || errno != ENOENT) return NULL;
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') n--;
    size_t last = n;
    while (last > 0 && path[last - 1] != '/') last--;
    size_t org = last > 1 ? last - 1 : 0;
    while (org > 0 && path[org - 1] != '/') org--;
    const char *cand[2] = {path + org, path + last};
    size_t len[2] = {n - org, n - last};
    for (int k = 0; k < 2; k++) {
        if (!len[k] || len[k] >= sizeof name) continue;
        memcpy(name, cand[k], len[k]);
        name[len[k]] = '\0';
        for (size_t i = 0; i < kvp_catalog_count(); i++)
            if (!kvp__strcasecmp(name, kvp_catalog_name(i)) ||
                !kvp__strcasecmp(name, kvp_catalog_hf_id(i)))
                return kvp_catalog_name(i);
    }
    return NULL;
}

const char *kvp_cli_from_model(const char *given) {
    if (!g_run.active) return given;
    if (given) g_run.user_model = given;
    if (given) return given;
    const char *m = g_run.cmd->model, *cat = model_elsewhere(m);
    if (cat) {
        note_missing(g_run.cmd, m, "the model folder");
        g_run.user_model = cat; /* planned as if given: said in the note */
        g_run.model_elsewhere = true;
        return cat;
    }
    return m;
}

bool kvp_cli_from_word(const kvp_options *o, int argc, char **argv, int *i) {
    if (!g_run.active || o != g_run.options || argv[*i] != g_run.word) return false;
    if (strcmp(argv[*i], "--from") == 0 && *i + 1 < argc) ++*i;
    return true;
}

/* A flag's truth as written: no value or a true word is on; a negating
 * spelling (--no-enable-prefix-caching) turns it round. -1: not a bool word. */
static int flag_truth(const kvp_option *r, const char *name, const char *value) {
    int b = 1;
    if (value) {
        if (!kvp__strcasecmp(value, "true") || !strcmp(value, "1") || !kvp__strcasecmp(value, "on") ||
            !kvp__strcasecmp(value, "yes"))
            b = 1;
        else if (is_false(value))
            b = 0;
        else
            return -1;
    }
    size_t sp = 0;
    if (kvp_option_lookup(name, &sp) == r && sp && r->spellings[sp - 1].negate) b = !b;
    return b;
}

/* Whether two statements of row r say the same: flags of one truth; values
 * equal as text (case aside, for choices and names) or as numbers (2 and 2.0,
 * 0.9 and 0.90). A byte size written two ways ("80GiB", "85899345920") is
 * compared by its bytes. */
static bool same_statement(const kvp_option *r, const char *name_a, const char *a,
                           const char *name_b, const char *b) {
    if (r->type == KVP_OPTION_FLAG) {
        int x = flag_truth(r, name_a, a), y = flag_truth(r, name_b, b);
        return x >= 0 && x == y;
    }
    if (!a || !b) return false;
    if (!kvp__strcasecmp(a, b)) return true;
    if (r->type == KVP_OPTION_BYTES) {
        uint64_t x, y;
        kvp_error e;
        return kvp_parse_bytes(a, &x, &e) == KVP_OK && kvp_parse_bytes(b, &y, &e) == KVP_OK &&
               x == y;
    }
    char *ea = NULL, *eb = NULL;
    double x = strtod(a, &ea), y = strtod(b, &eb);
    return ea != a && eb != b && !*ea && !*eb && x == y;
}

int kvp_cli_from_given(const kvp_options *o, const kvp_option *r, const char *typed,
                       const char *value, const char *word, bool json) {
    if (!g_run.active || o != g_run.options || !g_run.row[r->id] || r->repeats) return 0;
    const kvp_from_cmd *c = g_run.cmd;
    if (g_run.row[r->id] == ROW_POLICY) {
        /* --policy naming the command's engine is the same statement: said once. */
        kvp_engine pe, ce;
        if (value && kvp_engine_parse(value, &pe) == KVP_OK &&
            kvp_engine_parse(c->engine, &ce) == KVP_OK && pe == ce) {
            g_run.same_policy = word;
            return -1;
        }
        char why[160];
        snprintf(why, sizeof why, "the --from command is a %s command; give one", c->engine);
        return kvp_cli_contradiction("--from", typed, why, json);
    }
    /* The command's side as it was pasted ("--from's -tp 2"). */
    const kvp_from_setting *s = &c->set[g_run.row[r->id] - 1];
    /* The same value said twice (the flag and the pasted command, or its
     * environment: CUDA_VISIBLE_DEVICES=0,1 and --gpus 2) is one statement. */
    if (same_statement(r, s->name, s->value, typed, value)) {
        if (g_run.same_count + 2 <= (int)(sizeof g_run.same / sizeof g_run.same[0])) {
            g_run.same[g_run.same_count++] = word;
            g_run.same[g_run.same_count++] = value;
        }
        return -1;
    }
    char side[160], why[200];
    snprintf(side, sizeof side, "--from's %s%s%s", s->name, s->value ? " " : "",
             s->value ? s->value : "");
    snprintf(why, sizeof why, "both set %s; give one", r->field);
    return kvp_cli_contradiction(side, typed, why, json);
}
