/* log_reader.c — engines' start-up logs read line by line (log_reader.h).
 * Every pattern is a line format of shared/reference/LOGS.md, cited by
 * section; the engine's source is cited there (file, function, release). */
#include "log_reader.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void kvp__log_init(kvp_log *log) {
    memset(log, 0, sizeof *log);
    log->engine = KVP_LOG_VLLM;
}

uint64_t kvp__log_unit_bytes(const char *unit) {
    if (!strcmp(unit, "GiB")) return 1ull << 30;
    if (!strcmp(unit, "MiB")) return 1ull << 20;
    if (!strcmp(unit, "KiB")) return 1ull << 10;
    return 0;
}

/* [v - h, v + h) x unit with h half the last printed digit (ENGINES.md §0.4);
 * vLLM's format_gib drops trailing zeros but rounds to 2 places (LOGS.md §0). */
bool kvp__log_figure_bytes(const kvp_log_figure *f, uint64_t *lo, uint64_t *hi) {
    uint64_t u = kvp__log_unit_bytes(f->unit);
    int d = f->trimmed ? 2 : f->decimals < 0 ? 0 : f->decimals;
    if (!u || f->printed[0] == '-' || d > 4) return false;
    /* the printed decimal m / 10^d exactly, from its digits */
    uint64_t m = 0;
    int seen = -1;
    for (const char *p = f->printed; *p; p++) {
        if (*p == '.') {
            seen = 0;
            continue;
        }
        if (m > (1ull << 32)) return false;
        m = m * 10 + (uint64_t)(*p - '0');
        if (seen >= 0) seen++;
    }
    for (int frac = seen < 0 ? 0 : seen; frac < d; frac++) m *= 10; /* "43.4" read at 2 places */
    /* [m - 1/2, m + 1/2) / 10^d x u = (2m -/+ 1) x u / (2 x 2^d x 5^d): u is a
     * power of two of at least 2^10, so (2m -/+ 1) x u / 2^(d+1) is exact. */
    unsigned shift = 0;
    while ((1ull << shift) < u) shift++;
    uint64_t den = 1;
    for (int i = 0; i < d; i++) den *= 5;
    uint64_t a = (2 * m - (m ? 1 : 0)) << (shift - (unsigned)d - 1);
    uint64_t b = (2 * m + 1) << (shift - (unsigned)d - 1);
    *lo = kvp__ceil_div_u64(a, den);
    *hi = kvp__ceil_div_u64(b, den) - 1;
    return *hi >= *lo;
}

/* ------------------------------------------------------------ lookups */

const kvp_log_figure *kvp__log_figure(const kvp_log *log, const char *name, uint32_t instance) {
    for (size_t i = 0; i < log->figure_count; i++)
        if (!strcmp(log->figures[i].name, name) && log->figures[i].instance == instance)
            return &log->figures[i];
    return NULL;
}

const char *kvp__log_setting(const kvp_log *log, const char *name) {
    const char *v = NULL;
    for (size_t i = 0; i < log->setting_count; i++)
        if (!strcmp(log->settings[i].name, name)) v = log->settings[i].value;
    return v;
}

/* ------------------------------------------------------------ recording */

typedef struct line_ctx {
    kvp_log *log;
    const char *msg;     /* the message, prefix stripped */
    char rank[24];
} line_ctx;

static void set_engine(kvp_log *log, kvp_log_engine e) {
    unsigned bit = 1u << (unsigned)e;
    if (!(log->engines & bit)) {
        if (!log->engines) log->engine = e;
        log->engines |= bit;
        log->engine_line[e] = log->lines;
    }
}

static void set_variant(kvp_log *log, const char *v) {
    if (!log->variant[0]) kvp__strlcpy(log->variant, v, sizeof log->variant);
}

static void set_version(kvp_log *log, const char *v, size_t n, const char *source, bool strong) {
    if (log->engine_version[0] && !strong) return;
    if (n >= sizeof log->engine_version) n = sizeof log->engine_version - 1;
    memcpy(log->engine_version, v, n);
    log->engine_version[n] = '\0';
    kvp__strlcpy(log->version_source, source, sizeof log->version_source);
}

/* Settings read while log->reading_args is false were printed at run time.
 * Returns the entry set, NULL when none was (an empty value, no room). */
static kvp_log_setting *setting(kvp_log *log, const char *name, const char *v, size_t n) {
    while (n && (v[0] == ' ' || v[0] == '\'' || v[0] == '"')) v++, n--;
    while (n && (v[n - 1] == ' ' || v[n - 1] == '\'' || v[n - 1] == '"' || v[n - 1] == ','))
        n--;
    if (!n) return NULL;
    kvp_log_setting *s = NULL;
    /* one entry per name for flags given, one for what was printed at run time */
    for (size_t i = 0; i < log->setting_count && !s; i++)
        if (!strcmp(log->settings[i].name, name) && log->settings[i].printed == !log->reading_args)
            s = &log->settings[i];
    if (!s) {
        if (log->setting_count >= KVP_LOG_SETTINGS_MAX) return NULL;
        s = &log->settings[log->setting_count++];
    }
    kvp__strlcpy(s->name, name, sizeof s->name);
    if (n >= sizeof s->value) n = sizeof s->value - 1;
    memcpy(s->value, v, n);
    s->value[n] = '\0';
    s->line_no = log->lines;
    s->printed = !log->reading_args;
    return s;
}

static void setting_str(kvp_log *log, const char *name, const char *v) {
    setting(log, name, v, strlen(v));
}

/* A fact of the install as an option (printed at run time, read by every run). */
static void install_setting(kvp_log *log, const char *name, const char *v) {
    kvp_log_setting *s = setting(log, name, v, strlen(v));
    if (s) s->install = true;
}

static void set_model(kvp_log *log, const char *v, size_t n) {
    while (n && (*v == ' ' || *v == '\'' || *v == '"')) v++, n--;
    while (n && (v[n - 1] == ' ' || v[n - 1] == '\'' || v[n - 1] == '"' || v[n - 1] == ','))
        n--;
    if (!n || log->model[0]) return;
    if (n >= sizeof log->model) n = sizeof log->model - 1;
    memcpy(log->model, v, n);
    log->model[n] = '\0';
    log->model_line = log->lines;
}

/* The number at p: digits with ',' separators, an optional fraction. Returns its
 * length (0: none); the digits without separators into out. */
static size_t number_at(const char *p, char *out, size_t out_size, int *decimals) {
    size_t i = 0, o = 0;
    *decimals = -1;
    if (p[i] == '-') {
        if (o + 1 < out_size) out[o++] = '-';
        i++;
    }
    if (!isdigit((unsigned char)p[i])) return 0;
    for (; isdigit((unsigned char)p[i]) || (p[i] == ',' && isdigit((unsigned char)p[i + 1]) &&
                                             isdigit((unsigned char)p[i + 2]) &&
                                             isdigit((unsigned char)p[i + 3]));
         i++)
        if (p[i] != ',' && o + 1 < out_size) out[o++] = p[i];
    if (p[i] == '.' && isdigit((unsigned char)p[i + 1])) {
        if (o + 1 < out_size) out[o++] = '.';
        i++;
        *decimals = 0;
        for (; isdigit((unsigned char)p[i]); i++) {
            if (o + 1 < out_size) out[o++] = p[i];
            (*decimals)++;
        }
    }
    if (o >= out_size) o = out_size - 1;
    out[o] = '\0';
    return i;
}

static const char *skip_sp(const char *p) {
    while (*p == ' ' || *p == '\t') p++;
    return p;
}

/* The text after `needle` in s, NULL when absent. */
static const char *after(const char *s, const char *needle) {
    const char *p = strstr(s, needle);
    return p ? p + strlen(needle) : NULL;
}

static void fill(line_ctx *c, kvp_log_figure *f, const char *name, kvp_log_role role,
                 const char *unit, const char *digits, double v, int dec, bool trimmed) {
    memset(f, 0, sizeof *f);
    kvp__strlcpy(f->name, name, sizeof f->name);
    f->role = role;
    f->line_no = c->log->lines;
    kvp__strlcpy(f->line, c->msg, sizeof f->line);
    kvp__strlcpy(f->printed, digits, sizeof f->printed);
    f->value = v;
    kvp__strlcpy(f->unit, unit, sizeof f->unit);
    f->decimals = dec;
    f->trimmed = trimmed;
    f->instance = c->log->instance;
    kvp__strlcpy(f->rank, c->rank, sizeof f->rank);
}

/* Record figure `name` from the number at `p`. `last_wins`: a later print
 * replaces an earlier one (TRT-LLM prints the pool of the profiling pass,
 * then the real one, LOGS.md §3 [inferred]). Returns the bytes consumed (0 none). */
static size_t figure_ex(line_ctx *c, const char *name, kvp_log_role role, const char *unit,
                        const char *p, bool trimmed, bool last_wins) {
    kvp_log *log = c->log;
    if (!p) return 0;
    p = skip_sp(p);
    char digits[32];
    int dec;
    size_t n = number_at(p, digits, sizeof digits, &dec);
    if (!n) return 0;
    double v = strtod(digits, NULL);
    for (size_t i = 0; i < log->figure_count; i++) {
        kvp_log_figure *f = &log->figures[i];
        if (strcmp(f->name, name) || f->instance != log->instance || strcmp(f->rank, c->rank))
            continue;
        if (last_wins) {
            fill(c, f, name, role, unit, digits, v, dec, trimmed);
            return n;
        }
        if (!strcmp(f->printed, digits)) return n; /* printed again, the same */
        if (role != KVP_LOG_INFO && !log->conflict[0])
            snprintf(log->conflict, sizeof log->conflict,
                     "%s is printed twice with two values: %s %s (line %llu) and %s %s (line "
                     "%llu); one engine instance prints it once: is this two runs in one file?",
                     name, f->printed, f->unit, (unsigned long long)f->line_no, digits, unit,
                     (unsigned long long)log->lines);
        return n;
    }
    if (log->figure_count >= KVP_LOG_FIGURES_MAX) {
        log->figures_dropped++;
        return n;
    }
    fill(c, &log->figures[log->figure_count++], name, role, unit, digits, v, dec, trimmed);
    return n;
}

static size_t figure(line_ctx *c, const char *name, kvp_log_role role, const char *unit,
                     const char *p) {
    return figure_ex(c, name, role, unit, p, false, false);
}

/* A number at p as a setting (the digits as printed, separators dropped). */
static bool number_setting(kvp_log *log, const char *name, const char *p) {
    if (!p) return false;
    char digits[32];
    int dec;
    if (!number_at(skip_sp(p), digits, sizeof digits, &dec)) return false;
    setting_str(log, name, digits);
    return true;
}

/* A word at p (up to a separator) as a setting. */
static void word_setting(kvp_log *log, const char *name, const char *p, const char *stop) {
    if (!p) return;
    p = skip_sp(p);
    size_t n = strcspn(p, stop);
    setting(log, name, p, n);
}

/* ------------------------------------------------------------ key=value lists */

/* vLLM's non-default args / Namespace / engine config, SGLang's ServerArgs:
 * engine keys (the engines' own argument names) to option spellings. */
typedef struct arg_map {
    const char *key;
    const char *option;
} arg_map;

static const arg_map k_vllm_args[] = {
    {"max_model_len", "--max-model-len"}, {"max_seq_len", "--max-model-len"},
    {"tensor_parallel_size", "--tensor-parallel-size"},
    {"pipeline_parallel_size", "--pipeline-parallel-size"},
    {"data_parallel_size", "--data-parallel-size"},
    {"gpu_memory_utilization", "--gpu-memory-utilization"},
    {"kv_cache_dtype", "--kv-cache-dtype"}, {"block_size", "--block-size"},
    {"max_num_seqs", "--max-num-seqs"}, {"max_num_batched_tokens", "--max-num-batched-tokens"},
    {"quantization", "--quantization"}, {"dtype", "--dtype"},
    {"kv_cache_memory_bytes", "--kv-cache-memory"},
    {NULL, NULL}};

static const arg_map k_sglang_args[] = {
    {"tp_size", "--tp-size"}, {"pp_size", "--pp-size"}, {"dp_size", "--dp-size"},
    {"mem_fraction_static", "--mem-fraction-static"}, {"context_length", "--context-length"},
    {"kv_cache_dtype", "--kv-cache-dtype"}, {"page_size", "--page-size"},
    {"max_running_requests", "--max-running-requests"},
    {"enable_dp_attention", "--enable-dp-attention"}, {"chunked_prefill_size", "--chunked-prefill-size"},
    {"quantization", "--quantization"}, {"dtype", "--dtype"},
    {NULL, NULL}};

/* Read "key=value, key=value" or "'key': value, ..." from s; map keys through m. */
static void read_args(kvp_log *log, const char *s, const arg_map *m, const char *model_key) {
    const char *p = s;
    log->reading_args = true;
    while (*p) {
        /* a key: [A-Za-z_]+ possibly quoted, then '=' or ':' */
        while (*p && !(isalpha((unsigned char)*p) || *p == '_')) p++;
        const char *k = p;
        while (isalnum((unsigned char)*p) || *p == '_') p++;
        size_t kn = (size_t)(p - k);
        if (!kn) break;
        const char *q = p;
        if (*q == '\'' || *q == '"') q++;
        q = skip_sp(q);
        if (*q != '=' && *q != ':') continue;
        q = skip_sp(q + 1);
        /* the value: quoted, or up to ',' ')' '}' */
        const char *v = q;
        size_t vn;
        if (*q == '\'' || *q == '"') {
            char quote = *q;
            v = q + 1;
            const char *e = strchr(v, quote);
            vn = e ? (size_t)(e - v) : strlen(v);
            p = e ? e + 1 : v + vn;
        } else if (*q == '{' || *q == '[' || *q == '(') {
            /* nested: skip it */
            int depth = 0;
            const char *e = q;
            for (; *e; e++) {
                if (*e == '{' || *e == '[' || *e == '(') depth++;
                if ((*e == '}' || *e == ']' || *e == ')') && --depth == 0) break;
            }
            p = *e ? e + 1 : e;
            continue;
        } else {
            vn = strcspn(q, ",)}");
            p = q + vn;
        }
        char key[48];
        if (kn >= sizeof key) continue;
        memcpy(key, k, kn);
        key[kn] = '\0';
        if (model_key && (!strcmp(key, model_key) || !strcmp(key, "model"))) {
            set_model(log, v, vn);
            continue;
        }
        if (vn == 4 && !strncmp(v, "None", 4)) continue;
        for (size_t i = 0; m[i].key; i++)
            if (!strcmp(m[i].key, key)) setting(log, m[i].option, v, vn);
    }
    log->reading_args = false;
}

/* ------------------------------------------------------------ vLLM (LOGS.md §1) */

static bool vllm_line(line_ctx *c) {
    kvp_log *log = c->log;
    const char *m = c->msg, *p;
    if ((p = after(m, "vLLM API server version "))) {
        set_version(log, p, strcspn(p, " \t"), "vLLM API server version", true);
        return true;
    }
    if ((p = after(m, "LLM engine (v"))) {
        set_version(log, p, strcspn(p, ")"), "LLM engine (vX) line", true);
        set_variant(log, strstr(m, "V1 LLM engine") ? "vLLM V1" : "vLLM V0");
        const char *cfg = after(m, "with config: ");
        if (cfg) read_args(log, cfg, k_vllm_args, "model");
        return true;
    }
    /* Which top-k/top-p path the sampler took (topk_topp_sampler.py): FlashInfer
     * when it imports and is on, else the PyTorch sort. What the profile's dummy
     * sampler ran, stated by the install itself (docs/memory.md 7.1). */
    if (strstr(m, "top-p & top-k sampling") || strstr(m, "default sampling implementation")) {
        bool fi = strstr(m, "Using FlashInfer for top-p & top-k sampling") != NULL;
        bool native = strstr(m, "Falling back to the PyTorch-native implementation") ||
                      strstr(m, "Falling back to default sampling implementation");
        if (fi || native)
            install_setting(log, "--env", fi ? "VLLM_USE_FLASHINFER_SAMPLER=1"
                                             : "VLLM_USE_FLASHINFER_SAMPLER=0");
        return fi || native;
    }
    if ((p = after(m, "non-default args: ")) || (p = after(m, "args: Namespace("))) {
        read_args(log, p, k_vllm_args, "model");
        return true;
    }
    if ((p = after(m, "Starting to load model "))) {
        size_t n = strcspn(p, " ");
        if (n && p[n - 1] == '.') n--;
        while (n >= 3 && !strncmp(p + n - 3, "...", 3)) n -= 3;
        set_model(log, p, n);
        return true;
    }
    /* Model loading: 2024 "Loading model weights took %.4f GB", then "Model loading
     * took %.4f GB|GiB and ...", 2026 "%s GiB memory" (bytes/2^30 throughout). */
    if ((p = after(m, "Loading model weights took ")) || (p = after(m, "Model loading took "))) {
        figure(c, "weights_bytes", KVP_LOG_INPUT, "GiB", p);
        return true;
    }
    if ((p = after(m, "Memory profiling results: "))) { /* V0 <= 0.6.3 */
        figure(c, "total_bytes", KVP_LOG_INPUT, "GiB", after(p, "total_gpu_memory="));
        /* peak_torch_memory holds the weights too (max_memory_allocated) */
        figure(c, "peak_bytes", KVP_LOG_INPUT, "GiB", after(p, "peak_torch_memory="));
        figure(c, "non_torch_bytes", KVP_LOG_INPUT, "GiB", after(p, "non_torch_memory="));
        figure(c, "available_kv_cache_bytes", KVP_LOG_OUTPUT, "GiB", after(p, "kv_cache_size="));
        figure(c, "gpu_memory_utilization", KVP_LOG_INPUT, "fraction",
               after(p, "gpu_memory_utilization="));
        if (!log->engine_version[0]) set_version(log, "v0", 2, "V0 profiling text", false);
        return true;
    }
    if ((p = after(m, "the current vLLM instance can use total_gpu_memory ("))) {
        figure(c, "total_bytes", KVP_LOG_INPUT, "GiB", p);
        figure(c, "gpu_memory_utilization", KVP_LOG_INPUT, "fraction",
               after(p, "gpu_memory_utilization ("));
        return true;
    }
    if ((p = after(m, "model weights take "))) {
        figure(c, "weights_bytes", KVP_LOG_INPUT, "GiB", p);
        figure(c, "non_torch_bytes", KVP_LOG_INPUT, "GiB", after(p, "non_torch_memory takes "));
        figure(c, "activation_bytes", KVP_LOG_INPUT, "GiB",
               after(p, "PyTorch activation peak memory takes "));
        figure(c, "available_kv_cache_bytes", KVP_LOG_OUTPUT, "GiB",
               after(p, "reserved for KV Cache is "));
        return true;
    }
    if ((p = after(m, "blocks: ")) && (strstr(m, "# GPU blocks") || strstr(m, "# cuda blocks") ||
                                       strstr(m, "# CUDA blocks"))) {
        figure(c, "num_gpu_blocks", KVP_LOG_OUTPUT, "blocks", p);
        const char *cpu = after(m, "# CPU blocks: ");
        if (cpu) figure(c, "cpu_blocks", KVP_LOG_INFO, "blocks", cpu);
        if (cpu && !log->engine_version[0]) set_version(log, "v0", 2, "'# CPU blocks' (V0)", false);
        return true;
    }
    bool any = false;
    if ((p = after(m, "GPU KV cache size: "))) {
        figure(c, "gpu_kv_cache_tokens", KVP_LOG_OUTPUT, "tokens", p);
        any = true;
    }
    if ((p = after(m, "Maximum concurrency for "))) {
        number_setting(log, "--max-model-len", p);
        const char *x = after(p, "tokens per request: ");
        figure(c, "max_concurrency", KVP_LOG_OUTPUT, "x", x);
        any = true;
    }
    if (any) return true;
    if ((p = after(m, "Available KV cache memory: "))) {
        /* %.2f (0.9-0.20) and format_gib (0.21+) print the same digits but for
         * trailing zeros: read as round(x, 2) (LOGS.md §0, §1). */
        figure_ex(c, "available_kv_cache_bytes", KVP_LOG_OUTPUT, "GiB", p, true, false);
        if (!log->engine_version[0]) set_version(log, "v1-mid", 6, "'Available KV cache memory' line", false);
        return true;
    }
    if ((p = after(m, "Free memory on device ("))) {
        /* compute_or_warm_up_model's accounting line (LOGS.md §1): format_gib. */
        figure_ex(c, "free_bytes", KVP_LOG_INPUT, "GiB", p, true, false);
        const char *t = strchr(p, '/');
        if (t) figure_ex(c, "total_bytes", KVP_LOG_INPUT, "GiB", t + 1, true, false);
        const char *u = after(m, "Desired GPU memory utilization is (");
        if (u) {
            figure(c, "gpu_memory_utilization", KVP_LOG_INPUT, "fraction", u);
            const char *r = strchr(u, ',');
            if (r) figure_ex(c, "requested_memory_bytes", KVP_LOG_INFO, "GiB", r + 1, true, false);
        }
        figure_ex(c, "weights_bytes", KVP_LOG_INPUT, "GiB", after(m, "Actual usage is "), true, false);
        figure_ex(c, "activation_bytes", KVP_LOG_INPUT, "GiB", after(m, "for weight, "), true, false);
        figure_ex(c, "non_torch_bytes", KVP_LOG_INPUT, "GiB", after(m, "for peak activation, "),
                  true, false);
        figure_ex(c, "cuda_graph_bytes", KVP_LOG_INPUT, "GiB", after(m, "for non-torch memory, and "),
                  true, false);
        figure_ex(c, "available_kv_cache_bytes", KVP_LOG_OUTPUT, "GiB",
                  after(m, "Current kv cache memory in use is "), true, false);
        set_version(log, "v1-new", 6, "'Free memory on device' accounting line", true);
        return true;
    }
    if ((p = after(m, "Estimated CUDA graph memory: "))) {
        figure(c, "cuda_graph_estimate_bytes", KVP_LOG_INFO, "GiB", p);
        if (!log->engine_version[0]) set_version(log, "v1-new", 6, "CUDA graph estimate (0.21+)", false);
        return true;
    }
    if ((p = after(m, "CUDA graph pool memory: "))) {
        figure(c, "cuda_graph_bytes", KVP_LOG_INFO, "GiB", p);
        return true;
    }
    if ((p = after(m, "Graph capturing finished in "))) {
        figure(c, "cuda_graph_capture_bytes", KVP_LOG_INFO, "GiB", after(p, "took "));
        return true;
    }
    if (strstr(m, "default since v0.21.0")) {
        set_version(log, "v1-new", 6, "'default since v0.21.0'", false);
        return true;
    }
    if ((p = after(m, "the estimated maximum model length is "))) {
        /* The refusal (STARTUP.md: vLLM's "To serve at least one request ...") */
        figure(c, "estimated_max_model_len", KVP_LOG_OUTPUT, "tokens", p);
        const char *l = after(m, "max seq len (");
        if (l) number_setting(log, "--max-model-len", l);
        const char *a = after(m, "available KV cache memory (");
        if (a && !kvp__log_figure(log, "available_kv_cache_bytes", 0))
            figure(c, "available_kv_cache_bytes", KVP_LOG_OUTPUT, "GiB", a);
        return true;
    }
    return false;
}

/* ------------------------------------------------------------ SGLang (§2) */

static bool sglang_line(line_ctx *c) {
    kvp_log *log = c->log;
    const char *m = c->msg, *p;
    if ((p = after(m, "server_args=ServerArgs("))) {
        read_args(log, p, k_sglang_args, "model_path");
        return true;
    }
    if ((p = after(m, "Load weight end."))) {
        figure(c, "weights_bytes", KVP_LOG_INPUT, "GiB", after(p, "mem usage="));
        figure(c, "avail_after_weights_bytes", KVP_LOG_INFO, "GiB", after(p, "avail mem="));
        return true;
    }
    if ((p = after(m, "KV Cache is allocated."))) {
        figure(c, "max_total_num_tokens", KVP_LOG_OUTPUT, "tokens", after(p, "#tokens: "));
        const char *k = after(p, "K size: "), *kv = after(p, "KV size: ");
        if (k) {
            figure(c, "k_size_bytes", KVP_LOG_OUTPUT, "GiB", k);
            figure(c, "v_size_bytes", KVP_LOG_OUTPUT, "GiB", after(p, "V size: "));
        } else if (kv) { /* MLA: one latent row, reported as K (README "expect") */
            figure(c, "k_size_bytes", KVP_LOG_OUTPUT, "GiB", kv);
        }
        return true;
    }
    if ((p = after(m, "Mamba Cache is allocated."))) {
        figure(c, "mamba_cache_slots", KVP_LOG_INFO, "slots", after(p, "max_mamba_cache_size: "));
        return true;
    }
    if ((p = after(m, "Capture cuda graph begin."))) {
        figure(c, "avail_before_graphs_bytes", KVP_LOG_INFO, "GiB", after(p, "avail mem="));
        return true;
    }
    if ((p = after(m, "Memory pool end. avail mem="))) {
        figure(c, "avail_after_pool_bytes", KVP_LOG_INFO, "GiB", p);
        return true;
    }
    if ((p = after(m, "Capture cuda graph end."))) {
        figure(c, "cuda_graph_bytes", KVP_LOG_INFO, "GiB", after(p, "mem usage="));
        return true;
    }
    if ((p = after(m, "max_total_num_tokens="))) {
        figure(c, "max_total_num_tokens", KVP_LOG_OUTPUT, "tokens", p);
        figure(c, "max_running_requests", KVP_LOG_OUTPUT, "requests", after(m, "max_running_requests="));
        number_setting(log, "--context-length", after(m, "context_len="));
        figure(c, "available_gpu_mem_bytes", KVP_LOG_INFO, "GiB", after(m, "available_gpu_mem="));
        return true;
    }
    if (strstr(m, "Init torch distributed ends.") || strstr(m, "Load weight begin.")) return true;
    return false;
}

/* ------------------------------------------------------------ TensorRT-LLM (§3) */

static bool trtllm_line(line_ctx *c) {
    kvp_log *log = c->log;
    const char *m = c->msg, *p;
    if ((p = after(m, "TensorRT-LLM version: "))) {
        set_version(log, p, strcspn(p, " \t"), "TensorRT-LLM version line", true);
        return true;
    }
    if ((p = after(m, "Use ")) && strstr(m, "for model weights")) {
        figure(c, "weights_bytes", KVP_LOG_INPUT, "GiB", p);
        set_variant(log, "PyTorch backend");
        return true;
    }
    static const struct {
        const char *text, *name;
    } k_profiling[] = {
        {"Memory used after loading model weights (inside torch) in memory usage profiling: ", "weights_inside_torch_bytes"},
        {"Memory used after loading model weights (outside torch) in memory usage profiling: ", "weights_outside_torch_bytes"},
        {"Memory dynamically allocated during inference (inside torch) in memory usage profiling: ", "activation_inside_torch_bytes"},
        {"Memory used outside torch (e.g., NCCL and CUDA graphs) in memory usage profiling: ", "non_torch_bytes"}};
    for (size_t i = 0; i < sizeof k_profiling / sizeof k_profiling[0]; i++) {
        if (!(p = after(m, k_profiling[i].text))) continue;
        figure(c, k_profiling[i].name, KVP_LOG_INFO, "GiB", p);
        set_variant(log, "PyTorch backend");
        return true;
    }
    if ((p = after(m, "Peak memory during memory usage profiling (torch + non-torch): "))) {
        figure(c, "peak_bytes", KVP_LOG_INPUT, "GiB", p);
        figure(c, "available_kv_cache_bytes", KVP_LOG_INFO, "GiB",
               after(m, "available KV cache memory when calculating max tokens: "));
        const char *f = after(m, "fraction is set ");
        if (f) figure(c, "free_gpu_memory_fraction", KVP_LOG_INPUT, "fraction", f);
        figure(c, "total_bytes", KVP_LOG_INPUT, "GiB", after(m, "device total memory "));
        set_variant(log, "PyTorch backend");
        return true;
    }
    if ((p = after(m, "Estimated max memory in KV cache : "))) {
        figure(c, "estimated_kv_cache_bytes", KVP_LOG_INFO, "GiB", p);
        return true;
    }
    if ((p = after(m, "Allocated ")) && strstr(m, "for max tokens in paged KV cache")) {
        figure_ex(c, "kv_cache_bytes", KVP_LOG_OUTPUT, "GiB", p, false, true);
        const char *t = after(m, "paged KV cache (");
        figure_ex(c, "max_tokens", KVP_LOG_OUTPUT, "tokens", t, false, true);
        return true;
    }
    if ((p = after(m, "Memory usage when calculating max tokens in paged kv cache: total: "))) {
        figure(c, "total_bytes", KVP_LOG_INPUT, "GiB", p);
        figure(c, "available_kv_cache_bytes", KVP_LOG_INFO, "GiB", after(p, "available: "));
        set_variant(log, "C++ runtime");
        return true;
    }
    if ((p = after(m, "Number of tokens per block: "))) {
        number_setting(log, "--tokens-per-block", p);
        return true;
    }
    if ((p = after(m, "Number of blocks in KV cache primary pool: "))) {
        figure(c, "num_primary_blocks", KVP_LOG_INFO, "blocks", p);
        return true;
    }
    if ((p = after(m, "Using ")) && strstr(m, "tokens in paged KV cache")) {
        figure(c, "max_tokens", KVP_LOG_OUTPUT, "tokens", p);
        return true;
    }
    if ((p = after(m, "max_seq_len="))) {
        number_setting(log, "--max_seq_len", p);
        number_setting(log, "--max_batch_size", after(m, "max_batch_size="));
        number_setting(log, "--max_num_tokens", after(m, "max_num_tokens="));
        return true;
    }
    if ((p = after(m, "TRTGptModel maxNumSequences: "))) {
        number_setting(log, "--max_batch_size", p);
        set_variant(log, "C++ runtime");
        return true;
    }
    if ((p = after(m, "TRTGptModel maxSequenceLen: "))) {
        number_setting(log, "--max_seq_len", p);
        set_variant(log, "C++ runtime");
        return true;
    }
    if (strstr(m, "TRTGptModel")) {
        set_variant(log, "C++ runtime");
        return true;
    }
    return false;
}

/* ------------------------------------------------------------ llama.cpp (§4, §5) */

/* "llama_context", "llama_kv_cache_unified", ...: the §4 library functions. */
static bool llama_fn(const char *m, size_t n) {
    static const char *const fns[] = {
        "llama_model_loader", "llama_context", "llama_kv_cache", "llama_new_context_with_model",
        "llama_init_from_model", "llm_load_print_meta", "llm_load_tensors", "load_tensors",
        "print_info", "llama_memory", "llama_model_load", "sched_reserve", "ggml_cuda_init",
        "common_init_from_params", "llama_model_load_from_file_impl", "main", "srv", "slot",
        "load_model", "init", NULL};
    for (size_t i = 0; fns[i]; i++) {
        size_t k = strlen(fns[i]);
        if (n >= k && !strncmp(m, fns[i], k)) return true;
    }
    return false;
}

/* The llama.cpp release by the names its lines carry (LOGS.md §4.1, the
 * upstream commit dates): a date the policy reads. A `build:` line wins. */
static void llama_date(kvp_log *log, const char *fn) {
    const char *d = NULL, *why = NULL;
    if (!strncmp(fn, "llama_kv_cache:", 15) || !strncmp(fn, "llama_kv_cache_iswa:", 20))
        d = "2025-10-15", why = "'llama_kv_cache:' (364a7a6, Oct 2025)";
    else if (!strncmp(fn, "llama_kv_cache_unified", 22))
        d = "2025-05-15", why = "'llama_kv_cache_unified:' (de4c07f, May 2025)";
    else if (!strncmp(fn, "llama_init_from_model:", 22))
        d = "2025-02-15", why = "'llama_init_from_model:' (d7cfe1f, Feb 2025)";
    else if (!strncmp(fn, "llama_new_context_with_model:", 29))
        d = "2024-10-15", why = "'llama_new_context_with_model:' (Oct 2024)";
    if (!d || !strncmp(log->version_source, "build", 5)) return;
    /* the newest name seen dates the log (a wrapper's own version, Ollama's, is not
     * llama.cpp's: the names win over it) */
    if (log->version_source[0] == '\'' && strcmp(log->engine_version, d) >= 0) return;
    set_version(log, d, strlen(d), why, true);
}

static bool llamacpp_line(line_ctx *c) {
    kvp_log *log = c->log;
    const char *m = c->msg, *p;
    if ((p = after(m, "build: ")) && m == p - 7 && isdigit((unsigned char)*p)) {
        char v[40];
        snprintf(v, sizeof v, "b%.*s", (int)strspn(p, "0123456789"), p);
        set_version(log, v, strlen(v), "build line", true);
        set_engine(log, KVP_LOG_LLAMACPP);
        return true;
    }
    if (!strncmp(m, "Model metadata: {", 17)) {
        set_variant(log, "llama-cpp-python");
        set_engine(log, KVP_LOG_LLAMACPP);
        return true;
    }
    if ((p = after(m, "Device 0: ")) && strstr(m, "compute capability")) {
        if (!log->gpu[0]) {
            size_t n = strcspn(p, ",");
            if (n >= sizeof log->gpu) n = sizeof log->gpu - 1;
            memcpy(log->gpu, p, n);
            log->gpu[n] = '\0';
        }
        return true;
    }
    size_t fn = strcspn(m, ":");
    if (!m[fn] || !llama_fn(m, fn)) return false;
    set_engine(log, KVP_LOG_LLAMACPP);
    if (!strncmp(m, "srv", 3) || !strncmp(m, "slot", 4)) set_variant(log, "llama-server");
    llama_date(log, m);
    if ((p = after(m, "|   - ")) && strstr(m, "memory_breakdown")) {
        /* llama_memory_breakdown_print (>= Oct 2025, LOGS.md §4): "|   - CUDA0 (RTX 4090)
         * | T = F + (S = M + C + K) + U |", MiB truncated; the Host row has no name. */
        const char *open = strchr(p, '('), *bar = strchr(p, '|');
        if (open && bar && open < bar) {
            const char *close = strchr(open, ')');
            if (close && close < bar && !log->gpu[0]) {
                size_t n = (size_t)(close - open - 1);
                if (n >= sizeof log->gpu) n = sizeof log->gpu - 1;
                memcpy(log->gpu, open + 1, n);
                log->gpu[n] = '\0';
            }
            figure(c, "device_total_mib", KVP_LOG_INFO, "MiB", bar + 1);
        }
        return true;
    }
    if ((p = after(m, "loaded meta data with ")) && (p = after(p, " from "))) {
        const char *e = strstr(p, " (version");
        set_model(log, p, e ? (size_t)(e - p) : strlen(p));
        return true;
    }
    if (strstr(m, "- kv ")) {
        if ((p = after(m, "general.name ")) && (p = after(p, "= "))) {
            /* the path is the model when printed; the name otherwise */
            if (!log->model[0]) set_model(log, p, strlen(p));
        }
        return true;
    }
    if (strstr(m, "- type ")) return true;
    if ((p = after(m, "n_ctx ")) && (p = after(p, "= "))) return number_setting(log, "-c", p);
    if ((p = after(m, "n_seq_max ")) && (p = after(p, "= "))) return number_setting(log, "-np", p);
    if ((p = after(m, "n_ubatch ")) && (p = after(p, "= "))) return number_setting(log, "-ub", p);
    if ((p = after(m, "n_batch ")) && (p = after(p, "= "))) return number_setting(log, "-b", p);
    if ((p = after(m, "kv_unified ")) && (p = after(p, "= "))) {
        word_setting(log, "--kv-unified", p, " ,");
        return true;
    }
    if ((p = after(m, "flash_attn ")) && (p = after(p, "= "))) {
        p = skip_sp(p);
        const char *v = *p == '1' || !strncmp(p, "enabled", 7) || !strncmp(p, "true", 4) ? "on"
                        : *p == '0' || !strncmp(p, "disabled", 8) || !strncmp(p, "false", 5) ? "off"
                                                                                             : "auto";
        setting_str(log, "-fa", v);
        return true;
    }
    if ((p = after(m, "using n_parallel = "))) {
        number_setting(log, "-np", p);
        if (strstr(m, "kv_unified = true")) setting_str(log, "--kv-unified", "true");
        return true;
    }
    if ((p = after(m, "n_slots = "))) return number_setting(log, "-np", p);
    if (strstr(m, "using full-size SWA cache")) {
        setting_str(log, "--swa-full", "true");
        return true;
    }
    if ((p = after(m, "creating non-SWA KV cache, size = "))) {
        log->instance = 0;
        return true;
    }
    if ((p = after(m, "SWA KV cache, size = "))) {
        log->instance = 1;
        figure(c, "swa_cells", KVP_LOG_OUTPUT, "cells", p);
        return true;
    }
    if ((p = after(m, "type_k = '"))) { /* llama_kv_cache_init (Jan 2025) */
        word_setting(log, "-ctk", p, "'");
        word_setting(log, "-ctv", after(m, "type_v = '"), "'");
        return true;
    }
    bool recurrent = strstr(m, "R (") != NULL;
    if (((p = after(m, ": size = ")) || (p = after(m, "KV self size = ")) ||
         (p = after(m, "KV self size  = "))) &&
        strstr(m, "MiB")) {
        bool swa = log->instance == 1;
        if (recurrent) {
            figure(c, "recurrent_size_bytes", KVP_LOG_OUTPUT, "MiB", p);
            return true;
        }
        figure(c, swa ? "swa_kv_size_bytes" : "kv_size_bytes", KVP_LOG_OUTPUT, "MiB", p);
        const char *cells = strchr(p, '(');
        if (cells && strstr(m, " cells")) {
            figure(c, swa ? "swa_cells" : "cells", KVP_LOG_OUTPUT, "cells", cells + 1);
            /* No n_ctx line printed (an excerpt): one sequence's main cache holds
             * n_ctx cells (llama_kv_cache; ENGINES.md §3), so they say the context. */
            const char *seqs = after(cells, "layers, ");
            if (!swa && !kvp__log_setting(log, "-c") && seqs && skip_sp(seqs)[0] == '1' &&
                !isdigit((unsigned char)skip_sp(seqs)[1]))
                number_setting(log, "-c", cells + 1);
            const char *lay = after(cells, "cells, ");
            figure(c, swa ? "swa_kv_layers" : "kv_layers", KVP_LOG_OUTPUT, "layers", lay);
        }
        const char *k = after(m, "K (");
        if (k) {
            size_t tn = strcspn(k, ")");
            if (!swa) setting(log, "-ctk", k, tn);
            figure(c, swa ? "swa_k_size_bytes" : "k_size_bytes", KVP_LOG_OUTPUT, "MiB",
                   after(k, "): "));
        }
        const char *v = after(m, "V (");
        if (v) {
            size_t tn = strcspn(v, ")");
            if (!swa) setting(log, "-ctv", v, tn);
            figure(c, swa ? "swa_v_size_bytes" : "v_size_bytes", KVP_LOG_OUTPUT, "MiB",
                   after(v, "): "));
        }
        return true;
    }
    if ((p = after(m, "KV buffer size = "))) {
        figure(c, "kv_buffer_bytes", KVP_LOG_INFO, "MiB", p);
        return true;
    }
    if ((p = after(m, "model buffer size = "))) {
        figure(c, "model_buffer_bytes", KVP_LOG_INFO, "MiB", p);
        return true;
    }
    if ((p = after(m, "compute buffer size = "))) {
        figure(c, "compute_buffer_bytes", KVP_LOG_INFO, "MiB", p);
        return true;
    }
    if ((p = after(m, "output buffer size = "))) {
        figure(c, "output_buffer_bytes", KVP_LOG_INFO, "MiB", p);
        return true;
    }
    if ((p = after(m, "file size   = ")) || (p = after(m, "file size = ")) ||
        (p = after(m, "model size = "))) {
        const char *u = skip_sp(p);
        u += strspn(u, "0123456789.");
        figure(c, "model_file_bytes", KVP_LOG_INFO, !strncmp(skip_sp(u), "MiB", 3) ? "MiB" : "GiB", p);
        return true;
    }
    if ((p = after(m, "new slot n_ctx_slot = ")) || (p = after(m, "new slot, n_ctx = "))) {
        figure(c, "n_ctx_slot", KVP_LOG_INFO, "tokens", p);
        return true;
    }
    return true; /* a library line without a figure */
}

/* Ollama (LOGS.md §5): `time=... level=... source=... msg=...`. */
static bool ollama_line(line_ctx *c, const char *line) {
    kvp_log *log = c->log;
    if (strncmp(line, "time=", 5) || !strstr(line, " level=") || !strstr(line, " msg=")) return false;
    set_engine(log, KVP_LOG_LLAMACPP);
    set_variant(log, "Ollama");
    const char *p;
    if ((p = after(line, "(version ")) && strstr(line, "Listening on")) {
        char v[64];
        snprintf(v, sizeof v, "ollama %.*s", (int)strcspn(p, ")"), p);
        if (!log->engine_version[0]) set_version(log, v, strlen(v), "Ollama version line", false);
    }
    if (((p = after(line, " description=\"")) ||
         (strstr(line, "inference compute") && (p = after(line, " name=\"")))) &&
        !log->gpu[0]) {
        size_t n = strcspn(p, "\"");
        if (n >= sizeof log->gpu) n = sizeof log->gpu - 1;
        memcpy(log->gpu, p, n);
        log->gpu[n] = '\0';
    }
    return true;
}

/* ------------------------------------------------------------ prefixes */

static bool is_level(const char *p, size_t *n) {
    static const char *const lv[] = {"INFO", "WARNING", "ERROR", "DEBUG", "CRITICAL", "WARN", NULL};
    for (size_t i = 0; lv[i]; i++) {
        size_t k = strlen(lv[i]);
        if (!strncmp(p, lv[i], k) && p[k] == ' ') {
            *n = k + 1;
            return true;
        }
    }
    return false;
}

static bool digits(const char *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)p[i])) return false;
    return true;
}

/* vLLM: `(NAME pid=P) ` then `LEVEL MM-DD hh:mm:ss [file.py:N] ` (LOGS.md §1). */
static const char *vllm_prefix(line_ctx *c, const char *s) {
    const char *p = s;
    if (*p == '(') {
        const char *e = strchr(p, ')');
        const char *pid = strstr(p, " pid=");
        if (e && pid && pid < e) {
            size_t n = (size_t)(pid - p - 1);
            if (n >= sizeof c->rank) n = sizeof c->rank - 1;
            memcpy(c->rank, p + 1, n);
            c->rank[n] = '\0';
            p = skip_sp(e + 1);
        }
    }
    if (*p == '[') { /* VLLM_LOGGING_PREFIX */
        const char *e = strchr(p, ']');
        if (e && e - p < 40 && e[1] == ' ') {
            size_t lvn;
            if (is_level(e + 2, &lvn)) p = e + 2;
        }
    }
    size_t lvn;
    if (!is_level(p, &lvn)) return NULL;
    p += lvn;
    if (!(digits(p, 2) && p[2] == '-' && digits(p + 3, 2) && p[5] == ' ' && digits(p + 6, 2) &&
          p[8] == ':'))
        return NULL;
    p += 14;
    p = skip_sp(p);
    const char *e = strchr(p, ']');
    const char *py = strstr(p, ".py:");
    if (!e || !py || py > e) return NULL;
    return skip_sp(e + 1);
}

/* SGLang: `[YYYY-MM-DD hh:mm:ss( TAGS)] ` (LOGS.md §2). */
static const char *sglang_prefix(line_ctx *c, const char *s) {
    if (s[0] != '[' || !digits(s + 1, 4) || s[5] != '-' || !digits(s + 6, 2) || s[8] != '-' ||
        !digits(s + 9, 2) || s[11] != ' ')
        return NULL;
    const char *e = strchr(s, ']');
    if (!e) return NULL;
    const char *tags = s + 20;
    if (tags < e) {
        size_t n = (size_t)(e - tags);
        while (n && *tags == ' ') tags++, n--;
        if (n >= sizeof c->rank) n = sizeof c->rank - 1;
        memcpy(c->rank, tags, n);
        c->rank[n] = '\0';
    }
    if (!c->log->sglang_date[0]) {
        memcpy(c->log->sglang_date, s + 1, 10);
        c->log->sglang_date[10] = '\0';
    }
    return skip_sp(e + 1);
}

/* TensorRT-LLM: `[TensorRT-LLM]`, `[TRT-LLM] [RANK n] [I] `, `[TensorRT-LLM][INFO] ` (§3). */
static const char *trtllm_prefix(line_ctx *c, const char *s) {
    const char *t = strstr(s, "[TRT-LLM]");
    if (!t) t = strstr(s, "[TensorRT-LLM]");
    if (!t || t - s > 64) return NULL;
    const char *p = strchr(t, ']') + 1;
    for (;;) {
        p = skip_sp(p);
        if (*p != '[') break;
        const char *e = strchr(p, ']');
        if (!e || e - p > 24) break;
        if (!strncmp(p, "[RANK ", 6) || !strncmp(p, "[MPI_Rank ", 10)) {
            size_t n = (size_t)(e - p - 1);
            if (n >= sizeof c->rank) n = sizeof c->rank - 1;
            memcpy(c->rank, p + 1, n);
            c->rank[n] = '\0';
        }
        p = e + 1;
    }
    return p;
}

/* A command line that starts an engine (echoed in a log or pasted with it). */
static bool command_line(kvp_log *log, const char *s) {
    const char *p = skip_sp(s);
    if (*p == '$' || *p == '>') p = skip_sp(p + 1);
    static const struct {
        const char *word;
        kvp_log_engine engine;
    } starts[] = {{"vllm serve", KVP_LOG_VLLM},
                  {"python -m vllm.entrypoints", KVP_LOG_VLLM},
                  {"python3 -m vllm.entrypoints", KVP_LOG_VLLM},
                  {"python -m sglang.launch_server", KVP_LOG_SGLANG},
                  {"python3 -m sglang.launch_server", KVP_LOG_SGLANG},
                  {"trtllm-serve", KVP_LOG_TRTLLM},
                  {"llama-server", KVP_LOG_LLAMACPP},
                  {"llama-cli", KVP_LOG_LLAMACPP}};
    for (size_t i = 0; i < sizeof starts / sizeof starts[0]; i++) {
        const char *w = strstr(p, starts[i].word);
        if (!w) continue;
        /* at the start, or after a path ("./build/bin/llama-cli") */
        if (w != p) {
            bool path = true;
            for (const char *q = p; q < w; q++)
                if (*q == ' ' || *q == '\t') path = false;
            if (!path || w[-1] != '/') continue;
        }
        if (!log->cmdline[0]) {
            kvp__strlcpy(log->cmdline, p, sizeof log->cmdline);
            log->cmdline_line = log->lines;
        }
        /* the model: `vllm serve MODEL`, --model / --model-path / -m / -hf */
        static const char *const model_flags[] = {"vllm serve ", " --model-path ", " --model ",
                                                  " --model=", " -m ", " -hf ", " --hf-repo ", NULL};
        for (size_t k = 0; model_flags[k]; k++) {
            const char *v = after(p, model_flags[k]);
            if (!v) continue;
            v = skip_sp(v);
            if (*v == '-') continue;
            set_model(log, v, strcspn(v, " \t"));
            break;
        }
        set_engine(log, starts[i].engine);
        return true;
    }
    return false;
}

/* Does an unread message look like a figure (a number with a unit or a
 * capacity word)? Then it is named in unread_lines, never dropped. */
static bool looks_like_figure(const char *m) {
    static const char *const words[] = {"GiB", "MiB", "GB", " MB", "tokens", "blocks", "cells",
                                        NULL};
    bool digit = false;
    for (const char *p = m; *p && !digit; p++) digit = isdigit((unsigned char)*p) != 0;
    if (!digit) return false;
    for (size_t i = 0; words[i]; i++)
        if (strstr(m, words[i])) return true;
    return false;
}

/* ANSI escapes and \r out, control bytes to '?' (a binary line reads as text). */
static size_t clean(const char *in, size_t n, char *out, bool *binary) {
    size_t o = 0, ctl = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)in[i];
        if (ch == 0x1b) {
            if (i + 1 < n && in[i + 1] == '[') {
                i += 2;
                while (i < n && ((in[i] >= '0' && in[i] <= '9') || in[i] == ';' || in[i] == '?'))
                    i++;
                continue; /* the final byte is skipped by the loop */
            }
            i++;
            continue;
        }
        if (ch == '\r') continue;
        if (ch < 0x20 && ch != '\t') {
            out[o++] = '?';
            ctl++;
            continue;
        }
        out[o++] = (char)ch;
    }
    out[o] = '\0';
    *binary = ctl > 0;
    return o;
}

void kvp__log_line(kvp_log *log, const char *raw, size_t n) {
    log->lines++;
    char text[KVP_LOG_LINE_MAX + 1];
    if (n > KVP_LOG_LINE_MAX) n = KVP_LOG_LINE_MAX;
    bool binary;
    clean(raw, n, text, &binary);
    if (binary) log->binary_lines++;
    line_ctx c = {log, text, ""};
    const char *s = skip_sp(text);
    if (!*s) return;
    const char *msg;
    bool read = false;
    if (ollama_line(&c, s)) {
        /* Ollama's own lines; the runner's llama.cpp lines pass through raw. */
        return;
    }
    if ((msg = vllm_prefix(&c, s))) {
        set_engine(log, KVP_LOG_VLLM);
        c.msg = msg;
        read = vllm_line(&c);
    } else if ((msg = trtllm_prefix(&c, s))) {
        set_engine(log, KVP_LOG_TRTLLM);
        c.msg = msg;
        read = trtllm_line(&c);
    } else if ((msg = sglang_prefix(&c, s))) {
        c.msg = msg;
        if ((read = sglang_line(&c))) {
            set_engine(log, KVP_LOG_SGLANG);
            if (!log->engine_version[0] || strcmp(log->version_source, "log date") == 0)
                set_version(log, log->sglang_date, strlen(log->sglang_date), "log date", false);
        }
    } else {
        /* "I " / "W " level letters and timestamps of common/log.cpp (§4) */
        const char *p = s;
        if (p[0] && strchr("IWED", p[0]) && p[1] == ' ') p += 2;
        if (isdigit((unsigned char)p[0])) {
            const char *q = p + strspn(p, "0123456789.");
            if (*q == ' ' && q - p > 6) p = q + 1;
        }
        c.msg = p;
        if (command_line(log, s)) return;
        read = llamacpp_line(&c);
        if (!read) {
            /* un-prefixed lines of the Python engines (a pasted excerpt) */
            read = vllm_line(&c);
            if (read) set_engine(log, KVP_LOG_VLLM);
        }
        if (!read && (read = sglang_line(&c))) set_engine(log, KVP_LOG_SGLANG);
    }
    if (read || !looks_like_figure(c.msg)) return;
    if (log->unread_count < KVP_LOG_UNREAD_MAX) {
        kvp_log_unread *u = &log->unread[log->unread_count];
        u->line_no = log->lines;
        kvp__strlcpy(u->line, s, sizeof u->line);
    }
    log->unread_count++;
}

void kvp__log_feed(kvp_log *log, const char *data, size_t n) {
    log->bytes += n;
    while (n) {
        const char *nl = memchr(data, '\n', n);
        size_t take = nl ? (size_t)(nl - data) : n;
        if (!log->cutting) {
            size_t room = KVP_LOG_LINE_MAX - log->len;
            size_t k = take < room ? take : room;
            memcpy(log->buf + log->len, data, k);
            log->len += k;
            if (k < take) {
                log->cutting = true;
                log->cut_lines++;
            }
        }
        if (!nl) return;
        kvp__log_line(log, log->buf, log->len);
        log->len = 0;
        log->cutting = false;
        data = nl + 1;
        n -= take + 1;
    }
}

void kvp__log_finish(kvp_log *log) {
    if (log->len || log->cutting) kvp__log_line(log, log->buf, log->len);
    log->len = 0;
    log->cutting = false;
}
