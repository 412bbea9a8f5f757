/*
 * plan_policy.c — the command line of the engine policies: parses every option
 * of `kvplan plan --policy X` (kvplan names and the engines' own flag names),
 * loads the model (catalogue, config.json, .gguf, or a geometry JSON), runs
 * kvp_policy_plan and prints the figures the engine's start-up log would show,
 * or --json with `engine_report`.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "accuracy.h"
#include "cli.h"
#include "render_internal.h" /* kvp__estimated_note */
#include "kvplan/render.h"
#include "kvplan/deploy.h"
#include "kvplan/gpu.h"
#include "kvplan/policy.h"
#include "plan_policy.h"
#include "admission_out.h"
#include "startup_cli.h"
#include "cli_options.h"
#include "kvplan/estimate.h"
#include "fit_env.h"
#include "util.h"
#include "embedded.h"
#include "model_internal.h"

/* An unknown option: "did you mean" over the table's names and this command's own. */
static int unknown_option(const char *arg) {
    static const char *known[KVP_OPTIONS_MAX * (KVP_OPTION_SPELLINGS_MAX + 1) + 8];
    size_t n = 0;
    const char *const *table = kvp_cli_table_names(KVP_COMMAND_PLAN);
    for (size_t k = 0; table[k] && n + 6 < sizeof known / sizeof known[0]; k++) known[n++] = table[k];
    static const char *const own[] = {"--geometry", "--era", "--indexer-counted", "--json", "--help"};
    for (size_t k = 0; k < sizeof own / sizeof own[0]; k++) known[n++] = own[k];
    known[n] = NULL;
    return kvp_cli_unknown_option(arg, known);
}

void kvp_cli_plan_policy_usage(FILE *out) {
    fputs("usage: kvplan plan MODEL --policy vllm|sglang|llamacpp|trtllm [options] [--json]\n"
         "\n"
         "Predicts the KV-cache figures the engine prints at start-up (docs/policies.md).\n"
         "MODEL: catalogue name, config.json, a .gguf file, or a geometry JSON ({\"arch\": ...}).\n"
         "\n"
         "  --engine-version V          vLLM 0.9.1 / v0 / v1-mid / v1-new; llama.cpp b7217 / 0.4.0; SGLang pre-11309\n"
         "  --kv-budget BYTES           the engine's available KV memory (\"43.4GiB\")\n"
         "  --tp/-tp/--tensor-parallel-size N, --pp N, --dp/--data-parallel-size N, --enable-dp-attention\n"
         "  --kv-dtype/--kv-cache-dtype T, --block-size N, --max-model-len N\n"
         "  --gpu-memory-utilization F, --mem-fraction-static F\n"
         "  --max-num-batched-tokens N, --max-num-seqs N, --mamba-cache-mode none|align|all,\n"
         "  --num-draft-layers N\n"
         "  --isl N, --osl N, --max-new-tokens N: the requests admitted (docs/admission.md)\n"
         "  llama.cpp: --ctx-size/-c N, --parallel/-np N, --kv-unified, --cache-type-k/-ctk T,\n"
         "             --cache-type-v/-ctv T, --swa-full, --ubatch-size/-ub N, --batch-size/-b N,\n"
         "             --flash-attn/-fa on|off|auto\n"
         "  memory facts (instead of --kv-budget): --gpu NAME | --gpu-mem BYTES, --free-mem BYTES,\n"
         "             --weights BYTES, --peak BYTES (allocator peak, weights included; vLLM V0\n"
         "             peak_torch_memory), --activation-peak BYTES (vLLM V1 \"peak activation\"),\n"
         "             --non-torch BYTES, --cuda-graph BYTES (terms not given are estimated)\n"
         "  start-up rules (docs/startup.md; a refusal exits 1 with its rule):\n"
         "             --dtype auto|float16|bfloat16|float32, --quantization M, --trust-remote-code,\n"
         "             --enforce-eager, --enable-prefix-caching, --no-enable-prefix-caching,\n"
         "             --enable-chunked-prefill, --no-enable-chunked-prefill, --enable-expert-parallel,\n"
         "             --speculative-method M, --num-speculative-tokens N, --speculative-config JSON,\n"
         "             --gpus N, --env K=V,\n"
         "             --disable-rule ID|defaults\n"
         "  --geometry FILE             build the model from a GGUF-style geometry JSON\n"
         "  --json                      machine-readable output with engine_report\n"
         "  --explain                   the memory terms, the budget formula, each pool's arithmetic\n"
         "  --svg FILE, --html FILE     also write the memory bar (SVG) / a self-contained page\n",
          out);
}

static int bool_word(const char *v) {
    if (!strcmp(v, "1") || !kvp__strcasecmp(v, "true") || !kvp__strcasecmp(v, "on") ||
        !kvp__strcasecmp(v, "yes") || !kvp__strcasecmp(v, "enabled"))
        return 1;
    if (!strcmp(v, "0") || !kvp__strcasecmp(v, "false") || !kvp__strcasecmp(v, "off") ||
        !kvp__strcasecmp(v, "no") || !kvp__strcasecmp(v, "disabled"))
        return 0;
    return -1;
}

/* Boolean flag with an optional value: --swa-full, --swa-full=false, --swa-full true. */
bool kvp_cli_bool_flag(int argc, char **argv, int *i, const char *name, int *out, bool *bad) {
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

/* ---------------------------------------------------------------- model loading */

/* Notes the command line adds to the policy's own (a null input left at its
 * default, an informational option ignored, a model found by its file name). */
typedef struct cli_notes {
    unsigned count;
    char text[12][200];
} cli_notes;

static void cli_note(cli_notes *n, const char *fmt, ...) KVP_PRINTF(2, 3);
static void cli_note(cli_notes *n, const char *fmt, ...) {
    if (n->count >= sizeof n->text / sizeof n->text[0]) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(n->text[n->count], sizeof n->text[0], fmt, ap);
    va_end(ap);
    n->count++;
}

static bool ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && kvp__strcasecmp(s + n - m, suffix) == 0;
}

/* MODEL as the reference cases name it: a path, a catalogue name, an inline
 * JSON object, a geometry file, or a shared/models file name ("meta-llama__
 * Llama-3.1-8B.json") found among the embedded configs when no such file exists. */
static kvp_status load_model(const char *arg, bool forced_geometry, kvp_model **out,
                             cli_notes *notes, kvp_error *err) {
    bool handled = false;
    kvp_status st;
    if (arg[0] == '{') {
        /* A case's "config" object ({"file": ..., "location": "shared/models"}): its file. */
        char name[320];
        if (kvp__model_json_file_reference(arg, true, name, sizeof name))
            return load_model(name, false, out, notes, err);
        st = kvp__model_from_json_input(arg, strlen(arg), "geometry", true, out, &handled, err);
        if (st || handled) return st;
        return kvp__fail(err, KVP_CONFIG, "geometry", NULL,
                         "an inline model must be a JSON object");
    }
    /* Anything at that path is read through the file reader, which refuses a FIFO
     * or a device by name (an fopen here would block on a FIFO nobody writes). */
    struct stat arg_sb;
    if (ends_with(arg, ".json") && stat(arg, &arg_sb) == 0) {
        char *buf = NULL;
        size_t len = 0;
        st = kvp__read_file(arg, KVP_MAX_CONFIG_BYTES, NULL, &buf, &len, err);
        if (st) return st;
        st = kvp__model_from_json_input(buf, len, arg, forced_geometry, out, &handled, err);
        kvp__free(NULL, buf);
        if (st || handled) return st;
        return kvp_model_open(arg, NULL, out, err);
    }
    if (forced_geometry)
        return kvp__fail(err, KVP_IO, arg, "--geometry", "cannot open the geometry file");
    st = kvp_model_open(arg, NULL, out, err);
    if (st == KVP_OK || !ends_with(arg, ".json")) return st;
    const char *base = strrchr(arg, '/');
    base = base ? base + 1 : arg;
    char path[320];
    snprintf(path, sizeof path, "models/%s", base);
    const kvp__embedded_file *e = kvp__embedded_find(path);
    if (!e) return st;
    kvp_error_clear(err);
    cli_note(notes, "%s: no such file; using the embedded catalogue config %s", arg, base);
    return kvp_model_from_hf_json(e->data, e->size, base, NULL, out, err);
}

/* ---------------------------------------------------------------- argument normalisation */

/* How a long option is read before the main parser sees it. */
typedef enum akind {
    A_VALUE,   /* takes a value */
    A_INT,     /* takes an integer value; "4096.0" is read as 4096 */
    A_BOOL,    /* optional true/false value */
    A_FLAG,    /* no value */
    A_INFO,    /* informational input of a reference case: read and ignored */
    A_MODEL,   /* --model / --config PATH: the positional MODEL */
    A_VERSION, /* --engine-version: repeated values are joined ("v1-mid 0.9.1") */
    A_RESOLVED /* --kv-dtype-resolved: the dtype "auto" stands for */
} akind;

typedef struct alias_t {
    const char *name;  /* without dashes, '_' read as '-' */
    const char *canon; /* the option the main parser knows */
    akind kind;
} alias_t;

/* Every `inputs` key of shared/reference/README.md under its own name and the
 * option the README maps it to, plus the engines' spellings. */
static const alias_t k_alias[] = {
    {"policy", "--policy", A_VALUE},
    {"engine-version", "--engine-version", A_VERSION},
    {"vllm-version", "--engine-version", A_VERSION},
    {"era", "--era", A_VALUE},
    {"kv-budget", "--kv-budget", A_VALUE},
    {"kv-budget-bytes", "--kv-budget", A_VALUE},
    {"kv-budget-bytes-lo", "--kv-budget", A_VALUE},
    {"kv-budget-bytes-hi", "--kv-budget", A_VALUE},
    {"kv-cache-memory", "--kv-budget", A_VALUE},
    {"kv-cache-memory-bytes", "--kv-budget", A_VALUE},
    {"tp", "--tp", A_INT},
    {"tensor-parallel-size", "--tp", A_INT},
    {"pp", "--pp", A_INT},
    {"pipeline-parallel-size", "--pp", A_INT},
    {"dp", "--dp", A_INT},
    {"data-parallel-size", "--dp", A_INT},
    {"enable-dp-attention", "--enable-dp-attention", A_BOOL},
    {"kv-dtype", "--kv-dtype", A_VALUE},
    {"kv-cache-dtype", "--kv-dtype", A_VALUE},
    {"kv-dtype-resolved", "--kv-dtype", A_RESOLVED},
    {"block-size", "--block-size", A_INT},
    {"page-size", "--block-size", A_INT},
    {"tokens-per-block", "--block-size", A_INT},
    {"max-model-len", "--max-model-len", A_INT},
    {"context-length", "--max-model-len", A_INT},
    {"context-len", "--max-model-len", A_INT},
    {"max-seq-len", "--max-model-len", A_INT},
    {"gpu-memory-utilization", "--gpu-memory-utilization", A_VALUE},
    {"mem-fraction-static", "--mem-fraction-static", A_VALUE},
    {"free-gpu-memory-fraction", "--free-gpu-memory-fraction", A_INFO},
    {"ctx-size", "--ctx-size", A_INT},
    {"n-ctx", "--ctx-size", A_INT},
    {"parallel", "--parallel", A_INT},
    {"n-seq-max", "--parallel", A_INT},
    {"n-parallel", "--parallel", A_INT},
    {"kv-unified", "--kv-unified", A_BOOL},
    {"no-kv-unified", "--no-kv-unified", A_FLAG},
    {"cache-type-k", "--cache-type-k", A_VALUE},
    {"type-k", "--cache-type-k", A_VALUE},
    {"cache-type-v", "--cache-type-v", A_VALUE},
    {"type-v", "--cache-type-v", A_VALUE},
    {"swa-full", "--swa-full", A_BOOL},
    {"flash-attn", "--flash-attn", A_BOOL},
    {"ubatch-size", "--ubatch-size", A_INT},
    {"n-ubatch", "--ubatch-size", A_INT},
    {"batch-size", "--batch-size", A_INT},
    {"n-batch", "--batch-size", A_INT},
    {"max-num-batched-tokens", "--max-num-batched-tokens", A_INT},
    {"max-num-seqs", "--max-num-seqs", A_INT},
    {"mamba-cache-mode", "--mamba-cache-mode", A_VALUE},
    {"num-draft-layers", "--num-draft-layers", A_INT},
    {"num-draft-kv-layers", "--num-draft-layers", A_INT},
    {"draft-layers", "--num-draft-layers", A_INT},
    {"indexer-counted", "--indexer-counted", A_BOOL},
    {"gpu", "--gpu", A_VALUE},
    {"gpu-mem", "--gpu-mem", A_VALUE},
    {"total-memory", "--gpu-mem", A_VALUE},
    {"total-memory-bytes", "--gpu-mem", A_VALUE},
    {"free-mem", "--free-mem", A_VALUE},
    {"free-memory-at-start-bytes", "--free-mem", A_VALUE},
    {"free-memory-bytes", "--free-mem", A_VALUE},
    {"weights", "--weights", A_VALUE},
    {"weights-bytes", "--weights", A_VALUE},
    {"peak", "--peak", A_VALUE},
    {"activation-peak", "--activation-peak", A_VALUE},
    {"peak-activation", "--activation-peak", A_VALUE},
    {"peak-activation-bytes", "--activation-peak", A_VALUE},
    {"peak-torch-memory", "--peak", A_VALUE},
    {"peak-torch-memory-bytes", "--peak", A_VALUE},
    {"non-torch", "--non-torch", A_VALUE},
    {"non-torch-bytes", "--non-torch", A_VALUE},
    {"cuda-graph", "--cuda-graph", A_VALUE},
    {"cuda-graph-bytes", "--cuda-graph", A_VALUE},
    {"cudagraph", "--cuda-graph", A_VALUE},
    {"cudagraph-bytes", "--cuda-graph", A_VALUE},
    {"geometry", "--geometry", A_VALUE},
    {"model", NULL, A_MODEL},
    {"config", NULL, A_MODEL},
    {"budget-source", "--budget-source", A_INFO},
    {"tp-note", "--tp-note", A_INFO},
    {"draft-kv-layer-geometry", "--draft-kv-layer-geometry", A_INFO},
    {"formula", "--formula", A_INFO}, /* budget_inputs.formula: the era decides it */
    {"note", "--note", A_INFO},
    {"notes", "--notes", A_INFO},
    {"requested-memory-bytes", "--requested-memory-bytes", A_INFO},
    {"json", "--json", A_FLAG},
    {"help", "--help", A_FLAG},
};

/* Python's None / JSON null written as a value: the input was not stated. An empty
 * value stays an error ("--tp=" is a typo, not an unstated input). */
static bool nullish(const char *v, bool none_is_value) {
    return !strcmp(v, "null") || !strcmp(v, "None") || !strcmp(v, "NULL") ||
           !strcmp(v, "nil") || (!none_is_value && !strcmp(v, "none"));
}

static bool boolish(const char *v) {
    static const char *const k_words[] = {"1", "0", "true", "false", "on", "off", "yes", "no",
                                          "auto", "enabled", "disabled", NULL};
    for (const char *const *w = k_words; *w; w++)
        if (!kvp__strcasecmp(v, *w)) return true;
    return false;
}

/* The rewritten command line; strings live in `arena` or in the caller's argv. */
typedef struct norm_args {
    int argc;
    char **argv;
    char *arena;
    size_t used, cap;
    char *resolved_dtype; /* --kv-dtype-resolved */
} norm_args;

static char *arena_put(norm_args *n, const char *a, const char *sep, const char *b) {
    size_t la = strlen(a), ls = sep ? strlen(sep) : 0, lb = b ? strlen(b) : 0;
    if (n->used + la + ls + lb + 1 > n->cap) return NULL;
    char *p = n->arena + n->used;
    memcpy(p, a, la);
    if (sep) memcpy(p + la, sep, ls);
    if (b) memcpy(p + la + ls, b, lb);
    p[la + ls + lb] = '\0';
    n->used += la + ls + lb + 1;
    return p;
}

static void norm_free(norm_args *n) {
    free(n->argv);
    free(n->arena);
}

/* Rewrites argv: long option names are matched case-insensitively with '_' read
 * as '-', input-key spellings become the option the README maps them to, a null
 * value drops the option (the engine default applies), whole-number floats are
 * read as integers, and informational inputs are dropped. Each drop is noted. */
static bool normalize_args(int argc, char **argv, bool trt, norm_args *n, cli_notes *notes) {
    memset(n, 0, sizeof *n);
    size_t total = 64;
    for (int i = 0; i < argc; i++) total += 2 * strlen(argv[i]) + 48;
    n->argv = calloc((size_t)argc * 2 + 2, sizeof *n->argv);
    n->arena = malloc(total);
    n->cap = total;
    if (!n->argv || !n->arena) return false;
    int version_at = -1;
    n->argv[n->argc++] = argv[0];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] != '-' || a[2] == '\0') {
            n->argv[n->argc++] = argv[i]; /* positional, short option or "--" */
            continue;
        }
        char name[64];
        size_t k = 0;
        const char *p = a + 2;
        while (*p && *p != '=' && k + 1 < sizeof name) {
            char c = (char)tolower((unsigned char)*p++);
            name[k++] = c == '_' ? '-' : c;
        }
        name[k] = '\0';
        const char *inline_v = strchr(a, '=') ? strchr(a, '=') + 1 : NULL;
        const alias_t *al = NULL;
        for (size_t j = 0; j < sizeof k_alias / sizeof k_alias[0]; j++)
            if (!strcmp(name, k_alias[j].name)) al = &k_alias[j];
        if (!al) {
            n->argv[n->argc++] = argv[i]; /* the main parser says it is unknown */
            continue;
        }
        kvp_cli_note_spelling(al->canon, a, inline_v ? (size_t)(inline_v - 1 - a) : strlen(a));
        /* The seed's plan takes TensorRT-LLM's fraction (used when no --kv-budget). */
        static const alias_t k_fraction = {"free-gpu-memory-fraction", "--free-gpu-memory-fraction",
                                           A_VALUE};
        if (trt && al->kind == A_INFO && !strcmp(al->name, "free-gpu-memory-fraction")) al = &k_fraction;
        const char *v = inline_v;
        if (al->kind == A_FLAG) {
            n->argv[n->argc++] = (char *)al->canon;
            continue;
        }
        if (al->kind == A_BOOL) {
            if (!v && i + 1 < argc && (boolish(argv[i + 1]) || nullish(argv[i + 1], false)))
                v = argv[++i];
            if (v && nullish(v, false)) {
                cli_note(notes, "%s: not stated; the engine default applies", al->canon);
                continue;
            }
            n->argv[n->argc++] = v ? arena_put(n, al->canon, "=", v) : (char *)al->canon;
            continue;
        }
        if (!v) {
            if (i + 1 >= argc) {
                n->argv[n->argc++] = al->canon ? (char *)al->canon : argv[i];
                continue; /* "needs a value" from the main parser */
            }
            v = argv[++i];
        }
        bool none_ok = al->canon && !strcmp(al->canon, "--mamba-cache-mode");
        if (nullish(v, none_ok)) {
            if (al->kind != A_INFO)
                cli_note(notes, "--%s: not stated; the engine default applies", name);
            continue;
        }
        switch (al->kind) {
        case A_INFO:
            cli_note(notes, "--%s: informational input, not used", name);
            continue;
        case A_MODEL:
            n->argv[n->argc++] = (char *)v;
            continue;
        case A_RESOLVED:
            n->resolved_dtype = (char *)v;
            continue;
        case A_VERSION:
            if (version_at >= 0) {
                char *joined = arena_put(n, n->argv[version_at], " ", v);
                if (joined) n->argv[version_at] = joined;
                continue;
            }
            n->argv[n->argc++] = (char *)al->canon;
            version_at = n->argc;
            n->argv[n->argc++] = (char *)v;
            continue;
        case A_INT: {
            /* "4096.0" (a float written by a JSON tool) is the integer 4096. */
            const char *dot = strchr(v, '.');
            if (dot && dot > v) {
                const char *q = dot + 1;
                while (*q == '0') q++;
                bool digits = true;
                for (const char *r = v; r < dot; r++)
                    if (!isdigit((unsigned char)*r) && !(r == v && *r == '-')) digits = false;
                if (*q == '\0' && digits) {
                    char tmp[64];
                    size_t m = (size_t)(dot - v) < sizeof tmp - 1 ? (size_t)(dot - v) : sizeof tmp - 1;
                    memcpy(tmp, v, m);
                    tmp[m] = '\0';
                    v = arena_put(n, tmp, NULL, NULL);
                    if (!v) return false;
                }
            }
            break;
        }
        default:
            break;
        }
        n->argv[n->argc++] = (char *)al->canon;
        n->argv[n->argc++] = (char *)v;
    }
    n->argv[n->argc] = NULL;
    for (int i = 0; i < n->argc; i++)
        if (!n->argv[i]) return false;
    return true;
}

static double mib(uint64_t b) { return (double)b / 1048576.0; }
static double gib(uint64_t b) { return (double)b / 1073741824.0; }

static void print_text(const kvp_model *model, const kvp_policy_result *r, const kvp_admission *adm,
                       const cli_notes *cn) {
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
        if (r->group_size)
            printf("(num_gpu_blocks %llu, block size %u, %u group(s) of %u layers, page %llu B, "
                   "%llu blocks per request)\n",
                   (unsigned long long)e->num_gpu_blocks, r->block_size, r->num_groups,
                   r->group_size, (unsigned long long)r->page_bytes,
                   (unsigned long long)r->per_request_blocks);
        else /* DeepSeek-V4: groups of different sizes, one packed stride per block */
            printf("(num_gpu_blocks %llu, block size %u, %u packed group(s), stride %llu B, "
                   "%llu blocks per request)\n",
                   (unsigned long long)e->num_gpu_blocks, r->block_size, r->num_groups,
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
                printf("llama_kv_cache_dsa: creating indexer KV cache, size = %llu cells\n",
                       (unsigned long long)p->tokens);
            else if (!strcmp(p->name, "main") && r->indexer_layers)
                printf("llama_kv_cache_dsa: creating main KV cache, size = %llu cells\n",
                       (unsigned long long)p->tokens);
            /* The indexer cache is a llama_kv_cache of the -ctk / -ctv types too. */
            const char *tv = r->type_v_name;
            const char *tk = r->kv_dtype_name;
            printf("llama_kv_cache: size = %7.2f MiB (%6llu cells, %3u layers, %2u/%u seqs), "
                   "K (%s): %7.2f MiB, V (%s): %7.2f MiB\n",
                   mib(p->bytes), (unsigned long long)p->tokens, p->layers, r->n_seq_max,
                   r->n_stream, tk, mib(p->k_bytes), tv, mib(p->v_bytes));
        }
        break;
    default:
        break;
    }
    kvp_cli_admission_text(stdout, adm, "");
    for (unsigned i = 0; i < cn->count; i++) printf("note: %s\n", cn->text[i]);
    for (uint32_t i = 0; i < r->note_count; i++) printf("note: %s\n", r->notes[i]);
    printf("accuracy: %s (docs/accuracy.md)\n", kvp__engine_accuracy_line(r->engine));
}

/* --explain, --svg FILE and --html FILE: what to show besides the plan, taken out
 * of argv before the engine options are read (they are not engine settings). */
static struct {
    bool explain;
    const char *svg, *html;
} g_show;

/* `plan --json`, rendered by the library (kvplan/render.h): the same document
 * kvp_json_call returns for the same question. */
static int print_json(const kvp_model *model, const char *gpu, const char *total_source,
                      const kvp_deploy_result *res, const cli_notes *cn) {
    const char *notes[sizeof cn->text / sizeof cn->text[0]];
    for (unsigned i = 0; i < cn->count; i++) notes[i] = cn->text[i];
    kvp_render_input in = {model, gpu, total_source, notes, cn->count, NULL, NULL};
    kvp_error err;
    kvp_error_clear(&err);
    char *text = NULL;
    kvp_status st = kvp_render_plan_json(&in, res, &text, &err);
    return kvp_cli_print_rendered(st, text, &err, true);
}

/* The admission refusal as the error to report. */
static kvp_status admission_error(const kvp_deploy_result *res, kvp_error *err) {
    err->code = res->admission.status;
    kvp__strlcpy(err->message, res->admission.refused, sizeof err->message);
    kvp__strlcpy(err->key, res->admission.key, sizeof err->key);
    return res->admission.status;
}

static int plan_policy_main(int argc, char **argv, const char *resolved_dtype, cli_notes *notes) {
    kvp_policy_settings s = kvp_policy_settings_default();
    kvp_startup_settings *ss = calloc(1, sizeof *ss); /* start-up flags (issue 21) */
    if (!ss) return kvp_cli_fail("out of memory");
    *ss = kvp_startup_settings_default();
    const char *model_arg = NULL, *geometry = NULL, *gpu = NULL;
    bool json = false, bad = false, policy_set = false;
    (void)policy_set;
    int flag = 0, indexer_counted = -1;
    const char *era = NULL;
    uint64_t gpu_mem = 0;
    kvp_deploy_memory mem;
    memset(&mem, 0, sizeof mem);
    /* The deployment settings come through the one option table (options.h);
     * the reference-case inputs (--geometry, --era, --indexer-counted) are this
     * command's own. */
    kvp_options *o = kvp_options_new(KVP_COMMAND_PLAN);
    if (!o) {
        free(ss);
        return kvp_cli_fail("out of memory");
    }
    for (int i = 1; i < argc; i++) /* known first: the first error already comes as JSON */
        if (!strcmp(argv[i], "--json")) json = true;
    for (int i = 1; i < argc && !bad; i++) {
        const char *a = argv[i], *v = NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            kvp_cli_plan_policy_usage(stdout);
            kvp_options_free(o);
            free(ss);
            return KVP_EXIT_OK;
        } else if (!strcmp(a, "--json")) {
            json = true;
        } else if (kvp_cli_bool_flag(argc, argv, &i, "--indexer-counted", &flag, &bad)) {
            indexer_counted = flag;
        } else if (kvp_cli_opt(argc, argv, &i, "--era", &v, &bad)) {
            era = v;
        } else if (kvp_cli_opt(argc, argv, &i, "--geometry", &v, &bad)) {
            geometry = v;
        } else {
            int rc = kvp_cli_table_option(o, argc, argv, &i, json);
            if (rc > 0) {
                kvp_options_free(o);
                free(ss);
                return rc;
            }
            if (rc < 0) continue;
            if (a[0] == '-' && a[1] != '\0') {
                kvp_options_free(o);
                free(ss);
                return unknown_option(a);
            }
            if (model_arg) {
                kvp_options_free(o);
                free(ss);
                return kvp_cli_fail("plan: unexpected argument '%s' (one MODEL only)", a);
            }
            model_arg = a;
        }
    }
    int trc = bad ? KVP_EXIT_BAD_INPUT : kvp_cli_table_finish(o, json);
    if (trc >= 0) {
        kvp_options_free(o);
        free(ss);
        return trc;
    }
    /* The table's settings as this path reads them. */
    s = o->deployment.policy;
    mem = o->deployment.memory;
    kvp_admission_settings adm = o->deployment.admission; /* --isl, --osl, --max-new-tokens */
    gpu = o->gpu;
    gpu_mem = o->given[kvp_option_lookup("--gpu-mem", NULL)->id] ? mem.total_bytes : 0;
    *ss = o->startup;
    kvp_options_free(o);
    policy_set = true;
    /* --era (a vLLM era tag) and --indexer-counted=false (SGLang before PR #11309)
     * refine the version string the policies read. */
    if (era || indexer_counted >= 0) {
        char v[sizeof s.engine_version];
        snprintf(v, sizeof v, "%s%s%s%s", era ? era : "", era ? " " : "", s.engine_version,
                 indexer_counted == 0 ? " pre-11309" : indexer_counted == 1 ? " post-11309" : "");
        kvp__strlcpy(s.engine_version, v, sizeof s.engine_version);
    }
    /* --kv-dtype-resolved names what "auto" stands for; an explicit dtype wins. */
    if (resolved_dtype && (!s.kv_dtype[0] || !kvp__strcasecmp(s.kv_dtype, "auto")) &&
        s.engine != KVP_ENGINE_LLAMACPP)
        kvp__strlcpy(s.kv_dtype, resolved_dtype, sizeof s.kv_dtype);
    /* torch spellings ("torch.bfloat16", "float8_e4m3fn") name the same dtypes. */
    if (!strncmp(s.kv_dtype, "torch.", 6)) memmove(s.kv_dtype, s.kv_dtype + 6, strlen(s.kv_dtype + 6) + 1);
    if (!model_arg && !geometry) {
        kvp_cli_plan_policy_usage(stdout);
        return kvp_cli_fail("plan: missing MODEL");
    }
    kvp_error err;
    kvp_error_clear(&err);
    kvp_deployment d = kvp_deployment_default();
    char gpu_name[sizeof ss->gpu.name] = "";
    const char *total_source = gpu_mem ? "--gpu-mem" : gpu ? "catalogue" : NULL;
    if (gpu) {
        kvp_gpu_info info;
        if (kvp_gpu_lookup_in(kvp_cli_gpu_catalog(), gpu, &info, &err) != KVP_OK) {
            free(ss);
            return kvp_cli_report_error(&err, json);
        }
        if (!gpu_mem) gpu_mem = info.total_bytes;
        ss->gpu = info;
        ss->gpu_known = true;
        kvp__strlcpy(gpu_name, info.name, sizeof gpu_name);
    }

    kvp_model *model = NULL;
    kvp_status st;
    st = load_model(geometry ? geometry : model_arg, geometry != NULL, &model, notes, &err);
    if (st) {
        free(ss);
        return kvp_cli_report_error(&err, json);
    }
    int bad_rc = kvp_cli_startup_inputs(model, ss, json);
    if (bad_rc >= 0) {
        kvp_model_free(model);
        free(ss);
        return bad_rc;
    }
    /* One deployment through the pipeline (deploy.h): memory terms not measured
     * are estimated from the config there, the same way for every command, and
     * the engine's start-up rules run on it (docs/startup.md). */
    d.model = model;
    d.startup = *ss;
    d.point.engine = s.engine;
    d.policy = s;
    d.memory = mem;
    d.memory.total_bytes = gpu_mem;
    d.memory.kv_budget_bytes = s.kv_budget_bytes;
    d.memory.free_bytes = s.free_memory_bytes;
    d.memory.quantization = ss->quantization;
    d.memory.enable_expert_parallel = ss->enable_expert_parallel;
    d.admission = adm;
    kvp_deploy_result *res = kvp_deploy_result_new();
    if (!res) {
        kvp_model_free(model);
        free(ss);
        return kvp_cli_fail("plan: out of memory");
    }
    st = kvp_deploy_plan(&d, res, &err);
    /* llama.cpp that does not fit the device: its figures are planned, the engine
     * would not start; print them and say why. */
    bool figures = st == KVP_OK && res->policy.pool_count > 0 &&
                   (res->status == KVP_OK || res->status == KVP_INFEASIBLE);
    if (st == KVP_OK && res->status != KVP_OK && !figures) {
        st = res->status;
        err.code = res->status;
        kvp__strlcpy(err.message, res->message, sizeof err.message);
        kvp__strlcpy(err.key, res->key, sizeof err.key);
    }
    /* A request the engine's server rejects (--isl, --max-new-tokens past the length)
     * is bad input, before the start-up rules; one never admitted is exit 1 below. */
    if (st == KVP_OK && res->status == KVP_OK && res->admission.status == KVP_INVALID_ARG) {
        st = admission_error(res, &err);
        free(ss);
        kvp_deploy_result_free(res);
        kvp_model_free(model);
        return kvp_cli_report_error(&err, json);
    }
    /* A start-up rule that refuses is exit 1 with its rule; what the engine
     * adjusts (length, dtype) was planned with and is said on stderr. */
    int gate = kvp_cli_startup_result(&d, res, kvp_model_name(model), json, 0);
    free(ss);
    if (gate) {
        kvp_deploy_result_free(res);
        kvp_model_free(model);
        return gate;
    }
    if (st == KVP_OK && res->admission.status != KVP_OK) st = admission_error(res, &err);
    if (st) {
        kvp_deploy_result_free(res);
        kvp_model_free(model);
        return kvp_cli_report_error(&err, json);
    }
    /* The note on estimated terms: the JSON renderer adds it itself (the same for
     * kvp_json_call); the text report says it here. */
    char est_note[KVP_NOTE_TEXT_MAX];
    if (!json && kvp__estimated_note(res, est_note, sizeof est_note)) cli_note(notes, "%s", est_note);
    int prc = -1;
    if (json)
        prc = print_json(model, gpu ? gpu_name : NULL, total_source, res, notes);
    else
        print_text(model, &res->policy, &res->admission, notes);
    if (g_show.explain && !json) kvp_cli_policy_explain(res, total_source, stdout);
    if (prc < 0 && (g_show.svg || g_show.html))
        prc = kvp_cli_policy_pictures(model, res, total_source, g_show.svg, g_show.html);
    /* The engine's own name for the length the refusal is about. */
    static const char *const k_len_flag[KVP_ENGINE_COUNT] = {
        [KVP_ENGINE_TRTLLM] = "--max-seq-len", [KVP_ENGINE_VLLM] = "--max-model-len",
        [KVP_ENGINE_SGLANG] = "--context-length", [KVP_ENGINE_LLAMACPP] = "--ctx-size"};
    int rc = prc >= 0      ? prc
             : res->starts ? KVP_EXIT_OK
                           : kvp_cli_refuse(k_len_flag[s.engine], res->refusal);
    kvp_deploy_result_free(res);
    kvp_model_free(model);
    return rc;
}

/* "dir/org__name[.partial].json" naming an embedded shared/models config that is not a
 * file here: the catalogue id "org/name". */
static bool catalogue_id_of(const char *arg, char *id, size_t size) {
    if (!ends_with(arg, ".json")) return false;
    struct stat sb;
    if (stat(arg, &sb) == 0) return false; /* a file here (an fopen would block on a FIFO) */
    const char *base = strrchr(arg, '/');
    base = base ? base + 1 : arg;
    char path[320];
    snprintf(path, sizeof path, "models/%s", base);
    const char *sep = strstr(base, "__");
    if (!kvp__embedded_find(path) || !sep || strlen(base) + 1 > size) return false;
    size_t org = (size_t)(sep - base);
    snprintf(id, size, "%.*s/%s", (int)org, base, sep + 2);
    char *dot = strstr(id, ".partial.json");
    if (!dot) dot = strstr(id, ".json");
    if (dot) *dot = '\0';
    return true;
}

char **kvp_cli_trtllm_args(int argc, char **argv, int *out_argc) {
    /* Options of the policy command line that the seed's `kvplan plan` does not take:
     * other engines' settings and informational inputs (the engine version does not
     * change the seed's rules). */
    static const char *const k_drop_value[] = {
        "--engine-version", "--era", "--gpu-memory-utilization", "--mem-fraction-static",
        "--ctx-size", "--parallel", "--cache-type-k", "--cache-type-v", "--ubatch-size",
        "--batch-size", "--max-num-batched-tokens", "--max-num-seqs", "--mamba-cache-mode",
        "--dp", "-c", "-np", "-ctk", "-ctv", "-ub", "-b", NULL};
    static const char *const k_drop_flag[] = {"--enable-dp-attention", "--kv-unified",
                                              "--no-kv-unified", "--swa-full", "--flash-attn",
                                              "--indexer-counted", "-fa", NULL};
    cli_notes notes;
    memset(&notes, 0, sizeof notes);
    norm_args na;
    if (!normalize_args(argc, argv, true, &na, &notes)) {
        norm_free(&na);
        return NULL;
    }
    size_t bytes = ((size_t)na.argc + 2) * sizeof(char *);
    for (int i = 0; i < na.argc; i++) bytes += strlen(na.argv[i]) + 16;
    char **out = malloc(bytes);
    if (!out) {
        norm_free(&na);
        return NULL;
    }
    char *pool = (char *)(out + na.argc + 2);
    int n = 0;
    for (int i = 0; i < na.argc; i++) {
        const char *a = na.argv[i];
        char name[64];
        size_t k = strcspn(a, "=");
        snprintf(name, sizeof name, "%.*s", (int)(k < 63 ? k : 63), a);
        bool inline_v = a[k] == '=';
        bool drop = false;
        for (const char *const *d = k_drop_value; *d && i > 0; d++)
            if (!strcmp(name, *d)) {
                drop = true;
                if (!inline_v && i + 1 < na.argc) i++;
            }
        for (const char *const *d = k_drop_flag; *d && i > 0 && !drop; d++)
            if (!strcmp(name, *d)) {
                drop = true;
                if (!inline_v && i + 1 < na.argc &&
                    (bool_word(na.argv[i + 1]) >= 0 || !kvp__strcasecmp(na.argv[i + 1], "auto")))
                    i++;
            }
        if (drop) continue;
        if (!strcmp(name, "--num-draft-layers") && !inline_v && i + 1 < na.argc &&
            !strcmp(na.argv[i + 1], "0")) {
            i++;
            continue;
        }
        const char *w = !strcmp(name, "--max-model-len") && !inline_v ? "--max-seq-len" : a;
        if (i > 0 && !strncmp(w, "torch.", 6)) w += 6;
        /* A shared/models file name with no such file: its catalogue id ("org__name.json"
         * -> "org/name"), which the seed's model loader resolves. */
        char id[256], file[256];
        if (i > 0 && a[0] == '{') { /* a case's "config" object: its file */
            if (kvp__model_json_file_reference(a, false, file, sizeof file)) w = file;
        }
        if (i > 0 && w[0] != '-' && catalogue_id_of(w, id, sizeof id)) w = id;
        size_t len = strlen(w);
        memcpy(pool, w, len + 1);
        out[n++] = pool;
        pool += len + 1;
    }
    out[n] = NULL;
    *out_argc = n;
    norm_free(&na);
    return out;
}

/* Removes them from argv in place; returns the new argc, -1 on a missing value. */
static int take_show_options(int argc, char **argv) {
    memset(&g_show, 0, sizeof g_show);
    int n = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char **dst = !strcmp(a, "--svg") ? &g_show.svg : !strcmp(a, "--html") ? &g_show.html : NULL;
        if (i > 0 && !strcmp(a, "--explain")) {
            g_show.explain = true;
        } else if (i > 0 && dst) {
            if (i + 1 >= argc || argv[i + 1][0] == '\0') return -1;
            *dst = argv[++i];
        } else if (i > 0 && (!strncmp(a, "--svg=", 6) || !strncmp(a, "--html=", 7))) {
            const char *v = strchr(a, '=') + 1;
            if (!*v) return -1;
            if (a[2] == 's') g_show.svg = v;
            else g_show.html = v;
        } else {
            argv[n++] = argv[i];
        }
    }
    argv[n] = NULL;
    return n;
}

int kvp_cli_plan_policy(int argc, char **argv) {
    cli_notes notes;
    memset(&notes, 0, sizeof notes);
    char **args = malloc(((size_t)argc + 1) * sizeof *args);
    if (!args) return kvp_cli_fail("plan: out of memory");
    memcpy(args, argv, ((size_t)argc + 1) * sizeof *args);
    argc = take_show_options(argc, args);
    if (argc < 0) {
        free(args);
        return kvp_cli_fail("plan: --svg and --html need a FILE");
    }
    argv = args;
    norm_args na;
    if (!normalize_args(argc, argv, false, &na, &notes)) {
        norm_free(&na);
        free(args);
        return kvp_cli_fail("plan: out of memory");
    }
    int rc = plan_policy_main(na.argc, na.argv, na.resolved_dtype, &notes);
    norm_free(&na);
    free(args);
    return rc;
}
