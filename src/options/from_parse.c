/* from_parse.c — the engine command a user already runs, read as settings
 * (from_parse.h; `kvplan COMMAND --from "<engine command>"` and kvp_json_call's
 * "from_command"): split the pasted command with the one splitter
 * (shell_words.c), tell the engine from the program name, keep the options
 * kvplan models as settings under the engine's own spelling (a spelling of the
 * option table) and list every other one as ignored (unknown ones warned by
 * name). trtllm-serve's extra-options YAML is read with libyaml
 * (yaml_options.c), nested sections as dotted keys. Moved from src/cli so the
 * library's binding reads a command as the CLI does; behaviour unchanged. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "from_parse.h"
#include "kvplan/startup.h"
#include "shell_words.h"
#include "util.h"
#include "yaml_options.h"

#define KVP_FROM_BAD 2 /* bad input: the CLI's exit status 2 */


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

void kvp_from_ignore(kvp_from_cmd *c, const char *name, const char *value) {
    c->ignored_count++;
    size_t len = strlen(c->ignored);
    if (len + 8 >= sizeof c->ignored) return;
    snprintf(c->ignored + len, sizeof c->ignored - len, "%s%s%s%s", len ? ", " : "", name,
             value ? " " : "", value ? value : "");
}

/* An option the engine's table does not know: ignored as well, and warned
 * about by name (a typo must not pass silently). */
static void unknown(kvp_from_cmd *c, const char *name, const char *value) {
    kvp_from_ignore(c, name, value);
    c->unknown_count++;
    size_t len = strlen(c->unknown);
    if (len + 8 >= sizeof c->unknown) return;
    snprintf(c->unknown + len, sizeof c->unknown - len, "%s%s%s%s", len ? ", " : "", name,
             value ? " " : "", value ? value : "");
}

/* A file the command names that is not on this machine (from_parse.h). */
void kvp_from_note_missing(kvp_from_cmd *c, const char *path, const char *what) {
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
    {{"--skip-mm-profiling"}, NULL, MAP_BOOL},
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

bool kvp_from_is_false(const char *v) {
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
        kvp_from_ignore(c, what, NULL);
        return KVP_OK;
    }
    if (kind == KVP_YAML_NULL) return KVP_OK; /* not stated: the default applies */
    /* A quoted empty string is no value (issue 29): refused naming the file's key,
     * not passed on as the option kvplan maps it to. */
    if (value && !*value)
        return kvp__fail(err, KVP_CONFIG, NULL, key,
                         "an empty string, expected a value (or null for the default)");
    if (m->flag) {
        if (!kvp_from_is_false(value)) yaml_add(y, m->to, NULL);
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
        /* A key's error names the file too (the reader's own errors carry it). */
        if (err.file[0])
            snprintf(msg, msg_size, "--from: the extra options file: %s", err.message);
        else
            snprintf(msg, msg_size, "--from: the extra options file: %s: %s", path, err.message);
        return KVP_FROM_BAD;
    }
    if (y.full) {
        snprintf(msg, msg_size, "--from: the command has too many options");
        return KVP_FROM_BAD;
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

int kvp_from_parse(const char *cmdline, bool read_files, kvp_from_cmd *c, char *msg,
                   size_t msg_size) {
    memset(c, 0, offsetof(kvp_from_cmd, storage));
    if (!cmdline || strlen(cmdline) >= KVP_FROM_MAX_INPUT) {
        snprintf(msg, msg_size, "--from: the command is empty or longer than %d bytes",
                 KVP_FROM_MAX_INPUT);
        return KVP_FROM_BAD;
    }
    /* The one splitter (src/options/shell_words.c); the words are copied into
     * the command's storage. */
    kvp__shell_words *words = kvp__malloc(NULL, sizeof *words);
    if (!words) {
        snprintf(msg, msg_size, "--from: out of memory");
        return KVP_FROM_BAD;
    }
    kvp_error serr;
    if (kvp__shell_split(cmdline, words, &serr) != KVP_OK) {
        snprintf(msg, msg_size, "--from: %s", serr.message);
        kvp__free(NULL, words);
        return KVP_FROM_BAD;
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
        return KVP_FROM_BAD;
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
                    return KVP_FROM_BAD;
                }
                have_visible = true;
            } else if (env_count < KVP_STARTUP_MAX_ENV) {
                env_words[env_count++] = tok[i];
            } else {
                snprintf(msg, msg_size, "--from: more than %d environment assignments",
                         KVP_STARTUP_MAX_ENV);
                return KVP_FROM_BAD;
            }
        }
        i++;
    }
    if (i >= n) {
        snprintf(msg, msg_size, "--from: the command is empty");
        return KVP_FROM_BAD;
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
        return KVP_FROM_BAD;
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
                return KVP_FROM_BAD;
            }
            if (is_operator(a)) {
                for (int j = i + 1; j < n; j++) {
                    const char *next = engine_word(tok, n, j);
                    if (!next) continue;
                    snprintf(msg, msg_size,
                             "--from: two engines in one command: '%s' after '%s' (paste one "
                             "command)", next, a);
                    return KVP_FROM_BAD;
                }
                snprintf(msg, msg_size,
                         "--from: shell operator '%s' in the command: paste the engine command "
                         "alone", a);
                return KVP_FROM_BAD;
            }
            if (positional_model && !c->model)
                c->model = a;
            else
                kvp_from_ignore(c, a, NULL);
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
                    return KVP_FROM_BAD;
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
            if (!kvp_from_is_false(value) && !add(c, set_as, NULL)) goto too_many;
            break;
        case MAP_FA:
            /* -fa takes on|off|auto in current llama.cpp; older builds had a bare flag. */
            if (!value && i + 1 < n &&
                (!kvp__strcasecmp(tok[i + 1], "on") || !kvp__strcasecmp(tok[i + 1], "off") ||
                 !kvp__strcasecmp(tok[i + 1], "auto")))
                value = tok[++i];
            if (!add(c, set_as, value)) goto too_many;
            break;
        case MAP_IGNORE_FLAG: kvp_from_ignore(c, a, NULL); break;
        case MAP_IGNORE_VALUE: kvp_from_ignore(c, name, value); break;
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
            if (!value && i + 1 < n && (kvp_from_is_false(tok[i + 1]) || !kvp__strcasecmp(tok[i + 1], "true")))
                value = tok[++i];
            if (!add(c, set_as, value)) goto too_many;
            break;
        }
    }
    if (yaml_path && read_files) {
        /* A file of another machine (the command was pasted from there): warned by
         * name, the plan made from the rest of the command. A request (read_files
         * false) never probes the file system. */
        if (access(yaml_path, F_OK) != 0 && errno == ENOENT) {
            kvp_from_note_missing(c, yaml_path, "the options file");
            yaml_path = NULL;
        }
    }
    if (yaml_path) {
        kvp_from_setting yset[KVP_FROM_MAX_ARGS];
        int ycount = 0;
        if (!read_files) {
            snprintf(msg, msg_size, "--from: the extra options file '%.200s' is not read here "
                                    "(a request never makes kvplan open a file)", yaml_path);
            return KVP_FROM_BAD;
        }
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
                kvp_from_ignore(c, what, NULL);
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
        return KVP_FROM_BAD;
    }
    return 0;
too_many:
    snprintf(msg, msg_size, "--from: the command has too many options");
    return KVP_FROM_BAD;
}
