/* why_call.c — `kvplan why LOG` and kvp_json_call's "why" (docs/why.md): an
 * engine's start-up log read by the log reader (src/logs/), then the same
 * deployment planned through the one pipeline by the same "plan" and "fit"
 * calls every request takes (deploy_call.c):
 *   given memory  the memory the log printed: vLLM's available KV memory as a
 *                 --kv-budget bracket, or its measured terms (--gpu-mem,
 *                 --weights, --activation-peak, --non-torch, --cuda-graph) at
 *                 the two ends of their printed rounding; SGLang's and
 *                 TensorRT-LLM's pool size as a budget bracket; llama.cpp's
 *                 printed context settings (it has no budget);
 *   from config   the config, the GPU and the flags alone (command line and
 *                 the engine's argument dump), as `kvplan plan` would.
 * Each logged figure is set beside both, in its unit and precision; a figure
 * is reproduced when the log's number lies between the figures of the two
 * ends (tests/reference/README.md, budget_bracket). The answer to "what
 * next" comes from the fit solver (src/fit), never an inverse formula. */
#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind_internal.h"
#include "engine_ops.h"
#include "json_error.h"
#include "kvplan/gpu.h"
#include "kvplan/options.h"
#include "log_reader.h"
#include "log_redact.h"
#include "shell_words.h"
#include "util.h"

/* The engine's title from the one list (kvplan/engines.def): the log room's
 * engines are kvp_engine's, by value (log_reader.h). */
static const char *engine_title(int e) { return kvp__engine_title((kvp_engine)e); }

/* The rule or term behind each figure (ENGINES.md sections; docs/why.md). */
static const struct {
    const char *name;
    const char *basis;
} k_basis[] = {
    {"gpu_kv_cache_tokens", "num_gpu_blocks x block_size (vLLM kv_cache_utils.get_kv_cache_config; ENGINES.md §1)"},
    {"max_concurrency", "num_gpu_blocks / blocks per request of max_model_len (kv_cache_utils; ENGINES.md §1)"},
    {"num_gpu_blocks", "available KV memory // (block_size x bytes per token of every layer) (ENGINES.md §1)"},
    {"available_kv_cache_bytes", "total x gpu_memory_utilization - weights - peak activation - non-torch - CUDA graphs (gpu_worker; ENGINES.md §1, budget formula)"},
    {"estimated_max_model_len", "the longest max_model_len whose blocks fit the available KV memory (vLLM estimate_max_model_len; fit solver)"},
    {"max_total_num_tokens", "rest memory // cell size, to a page multiple (SGLang model_runner.profile_max_num_token; ENGINES.md §2)"},
    {"k_size_bytes", "pool rows x K bytes per row and layer (ENGINES.md §2/§3)"},
    {"v_size_bytes", "pool rows x V bytes per row and layer (ENGINES.md §2/§3)"},
    {"max_running_requests", "SGLang's admission from max_total_num_tokens and context_len (ENGINES.md §2)"},
    {"kv_size_bytes", "cells x layers x (K + V row bytes) (llama.cpp llama_kv_cache; ENGINES.md §3)"},
    {"cells", "n_ctx padded (unified) or n_ctx per sequence (llama.cpp; ENGINES.md §3)"},
    {"kv_layers", "layers holding the main cache (llama.cpp; ENGINES.md §3)"},
    {"swa_kv_size_bytes", "SWA cells x SWA layers x row bytes (llama_kv_cache_iswa; ENGINES.md §3)"},
    {"swa_cells", "min(n_ctx, n_swa x n_seq + n_ubatch) padded (llama_kv_cache_iswa; ENGINES.md §3)"},
    {"swa_k_size_bytes", "SWA cells x SWA layers x K row bytes (ENGINES.md §3)"},
    {"swa_v_size_bytes", "SWA cells x SWA layers x V row bytes (ENGINES.md §3)"},
    {"swa_kv_layers", "layers holding the SWA cache (ENGINES.md §3)"},
    {"recurrent_size_bytes", "recurrent state rows x (R + S) bytes (llama_memory_recurrent; ENGINES.md §3)"},
    {"max_tokens", "primary blocks x tokens_per_block (TensorRT-LLM KVCacheManager; ENGINES.md §4)"},
    {"kv_cache_bytes", "primary pools' bytes (TensorRT-LLM allocatePools; ENGINES.md §4)"},
    {"weights_bytes", "input: the weights the engine measured (kvplan's estimate from the config beside it)"},
    {"activation_bytes", "input: the profiled activation peak"},
    {"non_torch_bytes", "input: non-torch memory (CUDA context, NCCL)"},
    {"cuda_graph_bytes", "input: CUDA-graph memory"},
    {"total_bytes", "input: the device's total memory"},
    {"free_bytes", "input: free memory at start-up"},
    {"gpu_memory_utilization", "input: --gpu-memory-utilization"},
    {"free_gpu_memory_fraction", "input: free_gpu_memory_fraction"},
    {"peak_bytes", "input: TensorRT-LLM's profiled peak"},
};

static const char *basis_of(const char *name, kvp_log_role role) {
    for (size_t i = 0; i < sizeof k_basis / sizeof k_basis[0]; i++)
        if (!strcmp(k_basis[i].name, name)) return k_basis[i].basis;
    return role == KVP_LOG_INFO ? "printed only: no kvplan figure stands for it (shown, not judged)"
                                : "no kvplan rule for this figure yet";
}

/* A string from the log as JSON: bytes that are not UTF-8 (a log may hold
 * any) read as '?', so every text field is there (jansson takes UTF-8 only). */
static json_t *jstr(const char *s) {
    json_t *j = json_string(s);
    if (j || !s) return j ? j : json_null();
    size_t n = strlen(s);
    char *t = kvp__malloc(NULL, n + 1);
    if (!t) return json_null();
    for (size_t i = 0; i <= n; i++) t[i] = (unsigned char)s[i] >= 0x80 ? '?' : s[i];
    j = json_string(t);
    kvp__free(NULL, t);
    return j ? j : json_null();
}

/* ------------------------------------------------------------ requests */

/* The request key of option row `row` ("--max-seq-len" -> "max_seq_len"). */
static void row_key(const kvp_option *row, char *key, size_t n) {
    kvp__strlcpy(key, row->name + strspn(row->name, "-"), n);
    for (char *p = key; *p; p++)
        if (*p == '-') *p = '_';
}

/* A value as a request value: booleans of Python ("True") as true/false. */
static json_t *value_json(const kvp_option *row, const char *v) {
    if (row->type == KVP_OPTION_FLAG) {
        bool t = !kvp__strcasecmp(v, "true") || !strcmp(v, "1") || !kvp__strcasecmp(v, "on") ||
                 !kvp__strcasecmp(v, "yes");
        return json_string(t ? "true" : "false");
    }
    return jstr(v);
}

/* Set the option spelled `name` to `v` in req, unless the caller gave that
 * row (caller_rows). Returns whether it was applied. */
static bool apply_setting(json_t *req, const char *name, const char *v, const json_t *caller) {
    size_t sp;
    const kvp_option *row = kvp_option_lookup(name, &sp);
    if (!row || !(row->commands & KVP_COMMAND_PLAN)) return false;
    char key[64];
    row_key(row, key, sizeof key);
    if (caller && json_object_get(caller, key)) return false;
    /* --kv-budget and device memory are the runs' own */
    if (!strcmp(key, "kv_budget") || !strcmp(key, "gpu_mem") || !strcmp(key, "gpu")) return false;
    /* vLLM prints its dtype as torch's ("torch.bfloat16") */
    if (!strncmp(v, "torch.", 6)) v += 6;
    json_t *j = value_json(row, v);
    /* a value the option table refuses is shown, not applied (the run would fail) */
    kvp_options *probe = kvp_options_new(KVP_COMMAND_PLAN);
    kvp_error e;
    bool ok = probe && kvp_options_set(probe, row->name, json_string_value(j), &e) == KVP_OK;
    kvp_options_free(probe);
    if (!ok) {
        json_decref(j);
        return false;
    }
    /* A repeating option (--env K=V) adds to what is there, once. */
    json_t *had = json_object_get(req, key);
    if (row->repeats && had) {
        json_t *list = json_is_array(had) ? json_incref(had) : json_pack("[O]", had);
        size_t i;
        json_t *x;
        bool seen = false;
        json_array_foreach(list, i, x) seen = seen || json_equal(x, j);
        if (!seen) json_array_append(list, j);
        json_decref(j);
        json_object_set_new(req, key, list);
        return true;
    }
    json_object_set_new(req, key, j);
    return true;
}

typedef struct why_ctx {
    const kvp__why_request *w;
    const kvp__json_call_opts *o;
    const kvp_log *log;
    json_t *base;        /* policy, version, flags, caller's keys */
    json_t *printed;     /* + the settings the log printed at run time */
    json_t *settings;    /* the document's settings[] */
    char model[512];     /* the model as the plan call takes it */
    uint64_t ctx_lo, ctx_hi; /* the largest context at the two ends (answer) */
    const char *model_source;
} why_ctx;

/* The command line's flags (shell words) as settings; the positional model. */
static void apply_cmdline(why_ctx *c, json_t *req) {
    const kvp_log *log = c->log;
    if (!log->cmdline[0]) return;
    kvp__shell_words *sw = kvp__malloc(NULL, sizeof *sw);
    if (!sw) return;
    kvp_error e;
    if (kvp__shell_split(log->cmdline, sw, &e) == KVP_OK) {
        for (size_t i = 0; i < sw->count; i++) {
            const char *a = sw->word[i];
            if (a[0] != '-') continue;
            const char *eq = strchr(a, '=');
            char name[64];
            size_t n = eq ? (size_t)(eq - a) : strlen(a);
            if (n >= sizeof name) continue;
            memcpy(name, a, n);
            name[n] = '\0';
            const kvp_option *row = kvp_option_lookup(name, NULL);
            const char *v = eq ? eq + 1 : NULL;
            if (!row) continue;
            if (row->type == KVP_OPTION_FLAG) {
                if (!v) v = "true";
            } else if (!v && i + 1 < sw->count) {
                v = sw->word[++i];
            }
            if (!v) continue;
            bool ok = apply_setting(req, name, v, c->w->options);
            json_t *s = json_object();
            json_object_set_new(s, "name", jstr(name));
            json_object_set_new(s, "value", jstr(v));
            json_object_set_new(s, "line", kvp__json_u64(log->cmdline_line));
            json_object_set_new(s, "from", json_string("command line"));
            json_object_set_new(s, "applied", json_boolean(ok));
            json_array_append_new(c->settings, s);
        }
    }
    kvp__free(NULL, sw);
}

/* ------------------------------------------------------------ the model */

static bool model_opens(why_ctx *c, const char *name) {
    kvp_model *m = NULL;
    kvp_error e;
    json_t *s = jstr(name);
    kvp_status st = kvp__request_model(s, NULL, c->o, &m, &e);
    json_decref(s);
    kvp__request_model_release(m); /* the request cache may hold it */
    return st == KVP_OK;
}

/* The config: --model, else the log's model as printed (a path that exists, an
 * id in the Hugging Face cache or the catalogue), else its last two and last
 * path parts ("/data/models/meta-llama/Llama-3.1-8B" -> "meta-llama/Llama-3.1-8B"). */
static kvp_status find_model(why_ctx *c, kvp_error *err) {
    const kvp_log *log = c->log;
    if (c->w->model) {
        kvp__strlcpy(c->model, c->w->model, sizeof c->model);
        c->model_source = "--model";
        return KVP_OK;
    }
    if (!log->model[0])
        return kvp__fail(err, KVP_INVALID_ARG, NULL, c->w->from_paste ? "/model" : "model",
                         "the log names no model (kvplan looks in the engine's argument dump, "
                         "'Starting to load model', server_args, llama_model_loader and the "
                         "command line); give it: --model MODEL (a config.json, a folder, a "
                         "catalogue name: kvplan models)");
    const char *cands[3] = {log->model, NULL, NULL};
    const char *slash = strrchr(log->model, '/');
    if (slash && slash[1]) {
        cands[2] = slash + 1;
        const char *q = slash;
        while (q > log->model && q[-1] != '/') q--;
        if (q > log->model) cands[1] = q; /* org/name */
    }
    /* A pasted log (serve) never makes kvplan open a path it names. */
    for (size_t i = 0; i < 3; i++) {
        if (!cands[i] || !*cands[i]) continue;
        if (c->w->from_paste && i == 0 && strchr(cands[i], '/') == cands[i]) continue;
        if (model_opens(c, cands[i])) {
            kvp__strlcpy(c->model, cands[i], sizeof c->model);
            c->model_source = i == 0 ? (c->o->catalog_only ? "catalogue" : "the log's model")
                                     : "the catalogue, by the log's model name";
            return KVP_OK;
        }
    }
    char red[300];
    kvp__log_redact(log->model, red, sizeof red);
    return kvp__fail(err, KVP_NOT_FOUND, NULL, c->w->from_paste ? "/model" : "model",
                     "the log's model '%s' (line %llu) is %s; give it: %s", red,
                     (unsigned long long)log->model_line,
                     c->o->catalog_only ? "not a catalogue name or alias"
                                        : "not a file here, not in the Hugging Face cache and not "
                                          "in the catalogue (kvplan models)",
                     c->o->catalog_only ? "\"model\": a catalogue name, or \"config\": {config.json}"
                                        : "--model MODEL (a config.json, a folder, a catalogue name)");
}

/* ------------------------------------------------------------ runs */

typedef struct run {
    json_t *doc;   /* the plan document, NULL when not planned */
    json_t *req;   /* the request it was planned from (no model) */
    char error[KVP_ERROR_MESSAGE_MAX];
} run;

static void plan_run(why_ctx *c, json_t *req, run *r) {
    memset(r, 0, sizeof *r);
    r->req = json_deep_copy(req);
    json_object_set_new(req, "model", json_string(c->model));
    char *text = NULL;
    kvp_error e;
    kvp_error_clear(&e);
    kvp_status st = kvp__deploy_call("plan", req, c->o, &text, &e);
    if (st == KVP_OK) {
        r->doc = json_loads(text, 0, NULL);
    } else {
        kvp__strlcpy(r->error, e.message, sizeof r->error);
    }
    kvp__free(NULL, text);
}

/* The number of a plan document behind figure `name` (instance 0 main, 1 SWA). */
static bool plan_value(const json_t *doc, const char *name, double *out) {
    if (!doc) return false;
    const json_t *rep = json_object_get(doc, "engine_report");
    const json_t *v = json_object_get(rep, name);
    if (json_is_number(v)) {
        *out = json_number_value(v);
        return true;
    }
    /* llama.cpp: the main and the SWA pool's own figures (pools[]) */
    const json_t *pools = json_object_get(doc, "pools");
    bool swa = !strncmp(name, "swa_", 4);
    const char *field = NULL;
    const char *base = swa ? name + 4 : name;
    if (!strcmp(base, "cells")) field = "tokens";
    else if (!strcmp(base, "kv_layers")) field = "layers";
    else if (!strcmp(base, "k_size_bytes")) field = "k_bytes";
    else if (!strcmp(base, "v_size_bytes")) field = "v_bytes";
    if (!field || !json_is_array(pools)) {
        /* measured terms: deployment.memory */
        const json_t *mem = json_object_get(doc, "memory");
        v = json_object_get(mem, name);
        if (json_is_number(v)) {
            *out = json_number_value(v);
            return true;
        }
        return false;
    }
    size_t i;
    const json_t *p;
    json_array_foreach(pools, i, p) {
        const char *kind = json_string_value(json_object_get(p, "kind"));
        bool is_swa = kind && (strstr(kind, "sliding") || strstr(kind, "swa"));
        if (is_swa != swa) continue;
        v = json_object_get(p, field);
        if (json_is_number(v)) {
            *out = json_number_value(v);
            return true;
        }
    }
    return false;
}

/* kvplan's number in the figure's unit and precision, as text and as a number. */
static double shown(const kvp_log_figure *f, double x, char *buf, size_t n) {
    uint64_t u = kvp__log_unit_bytes(f->unit);
    if (u) x /= (double)u;
    int d = f->trimmed ? 2 : f->decimals < 0 ? 0 : f->decimals;
    snprintf(buf, n, "%.*f", d, x);
    if (f->trimmed && strchr(buf, '.')) {
        char *e = buf + strlen(buf) - 1;
        while (*e == '0') *e-- = '\0';
        if (*e == '.') *e = '\0';
    }
    return strtod(buf, NULL);
}

static json_t *number_json(double v, const kvp_log_figure *f) {
    if (f->decimals < 0 && !f->trimmed && fabs(v) < 9e15) return json_integer((json_int_t)llround(v));
    return json_real(v);
}

/* ------------------------------------------------------------ the document */

typedef struct judged {
    size_t outputs, reproduced;
    json_t *unreproduced;
} judged;

static json_t *figure_json(const why_ctx *c, const kvp_log_figure *f, run *given, size_t ngiven,
                           run *config, judged *j) {
    json_t *o = json_object();
    char red[KVP_LOG_KEEP + 64];
    kvp__log_redact(f->line, red, sizeof red);
    json_object_set_new(o, "name", json_string(f->name));
    json_object_set_new(o, "line", jstr(c->w->redact ? red : f->line));
    json_object_set_new(o, "line_number", kvp__json_u64(f->line_no));
    json_object_set_new(o, "logged", number_json(f->value, f));
    json_object_set_new(o, "printed", json_string(f->printed));
    json_object_set_new(o, "unit", json_string(f->unit));
    static const char *const roles[] = {"output", "input", "info"};
    json_object_set_new(o, "role", json_string(roles[f->role]));
    if (f->rank[0]) json_object_set_new(o, "rank", json_string(f->rank));
    json_t *gm = json_null(), *range = json_null(), *fc = json_null();
    bool ok = false;
    char text[64];
    if (f->role == KVP_LOG_INPUT) {
        gm = number_json(f->value, f); /* given: the figure is what the plan was given */
    } else if (f->role == KVP_LOG_OUTPUT) {
        double lo = 0, hi = 0, x;
        size_t got = 0;
        bool solved = !strcmp(f->name, "estimated_max_model_len");
        if (solved && c->ctx_lo) {
            /* the fit solver's longest length at each end (the answer) */
            lo = (double)c->ctx_lo;
            hi = (double)c->ctx_hi;
            got = 1;
        }
        for (size_t i = 0; i < ngiven && !solved; i++) {
            if (!plan_value(given[i].doc, f->name, &x)) continue;
            double s = shown(f, x, text, sizeof text);
            if (!got || s < lo) lo = s;
            if (!got || s > hi) hi = s;
            got++;
        }
        if (got) {
            gm = lo == hi ? number_json(lo, f) : json_null();
            if (lo != hi) {
                range = json_array();
                json_array_append_new(range, number_json(lo, f));
                json_array_append_new(range, number_json(hi, f));
                gm = json_incref(range);
            }
            ok = lo <= f->value && f->value <= hi;
        }
        j->outputs++;
        if (ok) j->reproduced++;
        else json_array_append_new(j->unreproduced, json_string(f->name));
    }
    double x;
    if (f->role != KVP_LOG_INFO && plan_value(config->doc, f->name, &x))
        fc = number_json(shown(f, x, text, sizeof text), f);
    json_object_set_new(o, "given_memory", gm);
    if (json_is_array(range)) json_object_set_new(o, "given_memory_range", range);
    else json_decref(range);
    json_object_set_new(o, "from_config", fc);
    if (json_is_number(fc))
        json_object_set_new(o, "difference", json_real(json_number_value(fc) - f->value));
    else
        json_object_set_new(o, "difference", json_null());
    json_object_set_new(o, "reproduced", f->role == KVP_LOG_OUTPUT ? json_boolean(ok) : json_null());
    json_object_set_new(o, "basis", json_string(basis_of(f->name, f->role)));
    return o;
}

/* ------------------------------------------------------------ the answer */

static json_t *fit_call(why_ctx *c, const json_t *given, const char *solve, uint64_t conc,
                        uint64_t len, char *msg, size_t msg_n) {
    json_t *req = json_deep_copy(given);
    json_object_del(req, "max_model_len");
    json_object_del(req, "max_seq_len");
    json_object_set_new(req, "model", json_string(c->model));
    json_object_set_new(req, "solve", json_string(solve));
    if (conc) json_object_set_new(req, "concurrency", json_integer((json_int_t)conc));
    if (len) json_object_set_new(req, "max_seq_len", json_integer((json_int_t)len));
    char *text = NULL;
    kvp_error e;
    kvp_error_clear(&e);
    kvp_status st = kvp__deploy_call("fit", req, c->o, &text, &e);
    json_decref(req);
    json_t *doc = NULL;
    if (st == KVP_OK) doc = json_loads(text, 0, NULL);
    else kvp__strlcpy(msg, e.message, msg_n);
    kvp__free(NULL, text);
    return doc;
}

/* One change solved by the fit solver at each end of the logged memory:
 * {"setting", "found", "value" (a number, or [lo, hi] when the ends differ),
 * "limited_by"}. lo_out, hi_out: the values (0 when not found). */
static json_t *answer_item(why_ctx *c, const char *setting, json_t *const *reqs, size_t n,
                           const char *solve, uint64_t conc, uint64_t len, uint64_t *lo_out,
                           uint64_t *hi_out) {
    json_t *o = json_object();
    char msg[KVP_ERROR_MESSAGE_MAX] = "";
    json_t *vals[2] = {NULL, NULL}, *limited = NULL;
    bool found = n > 0;
    uint64_t lo = 0, hi = 0;
    for (size_t i = 0; i < n && i < 2; i++) {
        json_t *f = fit_call(c, reqs[i], solve, conc, len, msg, sizeof msg);
        bool ok = f && json_is_true(json_object_get(f, "found"));
        found = found && ok;
        if (ok) vals[i] = json_incref(json_object_get(f, "value"));
        json_t *lim = f ? json_incref(json_object_get(f, "limited_by")) : json_string(msg);
        if (!limited || !ok) {
            json_decref(limited);
            limited = lim;
        } else {
            json_decref(lim);
        }
        json_decref(f);
    }
    json_object_set_new(o, "setting", json_string(setting));
    json_object_set_new(o, "found", json_boolean(found));
    if (found && n == 2 && json_is_integer(vals[0]) && json_is_integer(vals[1]) &&
        !json_equal(vals[0], vals[1])) {
        json_t *r = json_array();
        json_array_append(r, vals[0]);
        json_array_append(r, vals[1]);
        json_object_set_new(o, "value", r);
    } else {
        json_object_set(o, "value", found ? vals[0] : json_null());
    }
    if (found && json_is_integer(vals[0])) {
        lo = (uint64_t)json_integer_value(vals[0]);
        hi = n == 2 && json_is_integer(vals[1]) ? (uint64_t)json_integer_value(vals[1]) : lo;
        if (hi < lo) {
            uint64_t t = lo;
            lo = hi;
            hi = t;
        }
    }
    json_object_set_new(o, "limited_by", limited ? limited : json_null());
    json_decref(vals[0]);
    json_decref(vals[1]);
    if (lo_out) *lo_out = lo;
    if (hi_out) *hi_out = hi;
    return o;
}

/* The answer: the change that reaches the target, or the largest context and
 * concurrency the logged memory allows. c->ctx_lo/hi: the largest context. */
static json_t *answer(why_ctx *c, json_t *const *reqs, size_t n) {
    json_t *a = json_object();
    const kvp__why_request *w = c->w;
    kvp_log_engine e = c->log->engine;
    const char *len_flag = e == KVP_LOG_LLAMACPP  ? "--ctx-size"
                           : e == KVP_LOG_SGLANG  ? "--context-length"
                           : e == KVP_LOG_TRTLLM  ? "--max_seq_len"
                                                  : "--max-model-len";
    json_t *items = json_array();
    if (!n) {
        json_object_set_new(a, "note", json_string("no logged memory to answer from"));
    } else if (w->target_concurrency) {
        json_array_append_new(items, answer_item(c, len_flag, reqs, n, "max-seq-len",
                                                 w->target_concurrency, 0, NULL, NULL));
        json_object_set_new(a, "target_concurrency", json_integer((json_int_t)w->target_concurrency));
    } else if (w->target_context) {
        uint64_t lo = 0;
        json_array_append_new(items, answer_item(c, "sequences", reqs, n, "concurrency", 0,
                                                 w->target_context, &lo, NULL));
        if (!lo) /* one other change: the KV dtype (the fit solver's) */
            json_array_append_new(items, answer_item(c, "--kv-dtype", reqs, n, "kv-dtype", 1,
                                                     w->target_context, NULL, NULL));
        json_object_set_new(a, "target_context", json_integer((json_int_t)w->target_context));
    } else {
        json_array_append_new(items, answer_item(c, len_flag, reqs, n, "max-seq-len", 1, 0,
                                                 &c->ctx_lo, &c->ctx_hi));
        const json_t *len = json_object_get(reqs[0], "max_seq_len");
        const char *t = json_string_value(len);
        uint64_t L = t ? strtoull(t, NULL, 10) : 0;
        if (L)
            json_array_append_new(items, answer_item(c, "sequences", reqs, n, "concurrency", 0, L,
                                                     NULL, NULL));
    }
    json_object_set_new(a, "changes", items);
    return a;
}

/* ------------------------------------------------------------ given memory */

static void set_bytes(json_t *req, const char *key, uint64_t v) {
    char t[32];
    snprintf(t, sizeof t, "%llu", (unsigned long long)v);
    json_object_set_new(req, key, json_string(t));
}

/* The measured terms at one end: total and free at lo and the terms at hi
 * (the least KV memory), or the other way round. */
static json_t *terms_run(why_ctx *c, bool low_end) {
    static const struct {
        const char *fig, *key;
        bool grows; /* more of it, more KV memory */
    } k_terms[] = {{"total_bytes", "gpu_mem", true},
                   {"free_bytes", "free_mem", true},
                   {"weights_bytes", "weights", false},
                   {"activation_bytes", "activation_peak", false},
                   {"non_torch_bytes", "non_torch", false},
                   {"cuda_graph_bytes", "cuda_graph", false},
                   {"peak_bytes", "peak", false}};
    const kvp_log_figure *tot = kvp__log_figure(c->log, "total_bytes", 0);
    const kvp_log_figure *wt = kvp__log_figure(c->log, "weights_bytes", 0);
    if (!tot || !wt) return NULL;
    json_t *req = json_deep_copy(c->printed);
    for (size_t i = 0; i < sizeof k_terms / sizeof k_terms[0]; i++) {
        const kvp_log_figure *f = kvp__log_figure(c->log, k_terms[i].fig, 0);
        uint64_t lo, hi;
        if (!f || !kvp__log_figure_bytes(f, &lo, &hi)) continue;
        set_bytes(req, k_terms[i].key, low_end == k_terms[i].grows ? lo : hi);
    }
    const kvp_log_figure *u = kvp__log_figure(c->log, "gpu_memory_utilization", 0);
    if (u && !json_object_get(c->w->options, "gpu_memory_utilization"))
        json_object_set_new(req, "gpu_memory_utilization", json_string(u->printed));
    return req;
}

/* A pool or budget figure as a --kv-budget bracket; `pad` widens it (bytes). */
static json_t *budget_run(why_ctx *c, uint64_t lo, uint64_t hi, bool low_end) {
    json_t *req = json_deep_copy(c->printed);
    set_bytes(req, "kv_budget", low_end ? lo : hi);
    return req;
}

/* The page of every pool of a plan: what a pool size bracket is widened by. */
static uint64_t page_bytes(const json_t *doc) {
    uint64_t s = 0;
    size_t i;
    const json_t *p;
    json_array_foreach(json_object_get(doc, "pools"), i, p) {
        const json_t *b = json_object_get(p, "page_bytes");
        if (json_is_integer(b)) s += (uint64_t)json_integer_value(b);
    }
    return s;
}

/* ------------------------------------------------------------ entry */

static json_t *unread_json(const why_ctx *c) {
    json_t *a = json_array();
    for (size_t i = 0; i < c->log->unread_count && i < KVP_LOG_UNREAD_MAX; i++) {
        char red[KVP_LOG_KEEP + 64];
        const kvp_log_unread *u = &c->log->unread[i];
        kvp__log_redact(u->line, red, sizeof red);
        json_t *o = json_object();
        json_object_set_new(o, "line_number", kvp__json_u64(u->line_no));
        json_object_set_new(o, "line", jstr(c->w->redact ? red : u->line));
        json_array_append_new(a, o);
    }
    return a;
}

static kvp_status check_log(const kvp_log *log, const char *key, kvp_error *err) {
    if (!log->engines)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, key,
                         "no engine start-up line found in %llu lines (kvplan reads vLLM, SGLang, "
                         "TensorRT-LLM, llama.cpp and Ollama logs: docs/why.md)%s",
                         (unsigned long long)log->lines,
                         log->binary_lines ? "; the input holds control bytes: is it a text log?" : "");
    unsigned e = log->engines;
    if (e & (e - 1)) {
        int a = -1, b = -1;
        for (int k = 0; k < KVP_ENGINE_COUNT; k++)
            if (e & (1u << k)) {
                if (a < 0) a = k;
                else if (b < 0) b = k;
            }
        return kvp__fail(err, KVP_INVALID_ARG, NULL, key,
                         "two engines' lines are interleaved: %s (first at line %llu) and %s "
                         "(first at line %llu); give the log of one engine",
                         engine_title(a), (unsigned long long)log->engine_line[a],
                         engine_title(b), (unsigned long long)log->engine_line[b]);
    }
    if (log->conflict[0])
        return kvp__fail(err, KVP_INVALID_ARG, NULL, key, "contradicting figures: %s",
                         log->conflict);
    return KVP_OK;
}

kvp_status kvp__why_json_text(const kvp__why_request *w, const kvp__json_call_opts *o, char **out,
                              int *verdict, kvp_error *err) {
    *out = NULL;
    *verdict = 2;
    const kvp_log *log = w->log;
    kvp_status st = check_log(log, w->from_paste ? "/log" : "log", err);
    if (st) return st;
    why_ctx c = {w, o, log, json_object(), NULL, json_array(), "", 0, 0, NULL};
    st = find_model(&c, err);
    if (st) {
        json_decref(c.base);
        json_decref(c.settings);
        return st;
    }
    /* The flags: the engine, its release, the command line and argument dump. */
    json_object_set_new(c.base, "policy", json_string(kvp_engine_name((kvp_engine)log->engine)));
    /* The release, where kvplan's rules for the engine read it (a TensorRT-LLM
     * release number is no rule set: its default applies, said in the document). */
    kvp_error ve;
    bool version_used = log->engine_version[0] && !json_object_get(w->options, "engine_version") &&
                        kvp_engine_version_check((kvp_engine)log->engine, log->engine_version, &ve) == KVP_OK;
    if (version_used)
        json_object_set_new(c.base, "engine_version", jstr(log->engine_version));
    apply_cmdline(&c, c.base);
    /* The argument dumps are flags too; what the engine printed at run time
     * (n_ctx = 4096, "Maximum concurrency for 131,072 tokens") only the given
     * memory's runs take. */
    for (size_t i = 0; i < log->setting_count; i++)
        if (!log->settings[i].printed || log->settings[i].install)
            apply_setting(c.base, log->settings[i].name, log->settings[i].value, w->options);
    c.printed = json_deep_copy(c.base);
    for (size_t i = 0; i < log->setting_count; i++) {
        const kvp_log_setting *s = &log->settings[i];
        bool ok = apply_setting(c.printed, s->name, s->value, w->options);
        json_t *j = json_object();
        json_object_set_new(j, "name", jstr(s->name));
        json_object_set_new(j, "value", jstr(s->value));
        json_object_set_new(j, "line", kvp__json_u64(s->line_no));
        json_object_set_new(j, "from", json_string(s->install   ? "log (the install)"
                                                   : s->printed ? "log"
                                                                : "argument dump"));
        json_object_set_new(j, "applied", json_boolean(ok));
        json_array_append_new(c.settings, j);
    }
    /* The caller's options win; the device (gpu, gpu_mem) is the config run's,
     * a kv_budget replaces the logged memory. */
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)w->options, key, v) {
        if (!strcmp(key, "gpu") || !strcmp(key, "gpu_mem") || !strcmp(key, "kv_budget")) continue;
        json_object_set(c.base, key, v);
        json_object_set(c.printed, key, v);
    }

    /* Given memory: the runs at the two ends of the printed rounding. */
    run given[2];
    size_t ngiven = 0;
    memset(given, 0, sizeof given);
    json_t *given_req = NULL;
    const char *kind = "none";
    const kvp_log_figure *avail = kvp__log_figure(log, "available_kv_cache_bytes", 0);
    const kvp_log_figure *pool_k = kvp__log_figure(log, "k_size_bytes", 0);
    const kvp_log_figure *pool_v = kvp__log_figure(log, "v_size_bytes", 0);
    const kvp_log_figure *pool_t = kvp__log_figure(log, "kv_cache_bytes", 0);
    uint64_t lo, hi;
    const json_t *user_budget = json_object_get(w->options, "kv_budget");
    bool budget_given = user_budget != NULL;
    run terms[2];
    size_t nterms = 0;
    memset(terms, 0, sizeof terms);
    if (log->engine == KVP_LOG_LLAMACPP || budget_given) {
        kind = budget_given ? "the caller's --kv-budget" : "the log's printed context settings";
        given_req = json_deep_copy(c.printed);
        if (user_budget) json_object_set(given_req, "kv_budget", (json_t *)user_budget);
        json_t *r = json_deep_copy(given_req);
        plan_run(&c, r, &given[ngiven++]);
        json_decref(r);
    } else {
        if (log->engine == KVP_LOG_VLLM) {
            for (int end = 0; end < 2; end++) {
                json_t *r = terms_run(&c, end == 0);
                if (!r) break;
                if (end == 0) given_req = json_deep_copy(r);
                plan_run(&c, r, &terms[nterms++]);
                json_decref(r);
            }
            if (nterms) kind = "the measured terms";
        }
        if (log->engine == KVP_LOG_VLLM && avail && kvp__log_figure_bytes(avail, &lo, &hi)) {
            kind = nterms ? "the measured terms and the available KV memory" : "the available KV memory";
            json_decref(given_req);
            given_req = budget_run(&c, lo, hi, true);
            for (int end = 0; end < 2; end++) {
                json_t *r = budget_run(&c, lo, hi, end == 0);
                plan_run(&c, r, &given[ngiven++]);
                json_decref(r);
            }
        } else if ((pool_k || pool_t) && log->engine != KVP_LOG_VLLM) {
            /* The pool's size: SGLang pads a page of rows over its budget, TensorRT-LLM
             * rounds its budget down to whole blocks (ENGINES.md §2, §4): the bracket is
             * the printed size widened by one page of every pool each way. */
            uint64_t a, b, a2 = 0, b2 = 0;
            const kvp_log_figure *f = pool_t ? pool_t : pool_k;
            if (kvp__log_figure_bytes(f, &a, &b)) {
                if (!pool_t && pool_v && kvp__log_figure_bytes(pool_v, &a2, &b2)) a += a2, b += b2;
                json_t *r = budget_run(&c, a, b, true);
                run probe;
                plan_run(&c, r, &probe);
                json_decref(r);
                uint64_t pad = probe.doc ? page_bytes(probe.doc) : 0;
                json_decref(probe.doc);
                json_decref(probe.req);
                lo = a > pad ? a - pad : 1;
                hi = b + pad;
                kind = "the pool size the log printed";
                given_req = budget_run(&c, lo, hi, true);
                for (int end = 0; end < 2; end++) {
                    r = budget_run(&c, lo, hi, end == 0);
                    plan_run(&c, r, &given[ngiven++]);
                    json_decref(r);
                }
            }
        }
        if (!ngiven && nterms) {
            given[0] = terms[0];
            given[1] = terms[1];
            ngiven = nterms;
            nterms = 0;
        }
    }
    /* From config + GPU + flags alone. */
    run config;
    json_t *creq = json_deep_copy(c.base);
    if (json_object_get(w->options, "gpu")) json_object_set(creq, "gpu", json_object_get(w->options, "gpu"));
    if (json_object_get(w->options, "gpu_mem"))
        json_object_set(creq, "gpu_mem", json_object_get(w->options, "gpu_mem"));
    const char *config_note = NULL;
    if (log->engine != KVP_LOG_LLAMACPP && !json_object_get(creq, "gpu") &&
        !json_object_get(creq, "gpu_mem") && !json_object_get(creq, "kv_budget")) {
        kvp_gpu_info gi;
        kvp_error ge;
        const kvp_log_figure *tot = kvp__log_figure(log, "total_bytes", 0);
        if (log->gpu[0] && kvp_gpu_lookup_in(NULL, log->gpu, &gi, &ge) == KVP_OK) {
            json_object_set_new(creq, "gpu", jstr(log->gpu));
        } else if (tot && kvp__log_figure_bytes(tot, &lo, &hi)) {
            set_bytes(creq, "gpu_mem", lo + (hi - lo) / 2);
        } else {
            config_note = "no GPU in the log: give --gpu NAME (or --gpu-mem) for the plan from config";
        }
    }
    memset(&config, 0, sizeof config);
    if (!config_note) plan_run(&c, creq, &config);
    else kvp__strlcpy(config.error, config_note, sizeof config.error);
    json_decref(creq);

    /* The document. */
    json_t *doc = kvp__json_document();
    json_object_set_new(doc, "engine", json_string(kvp_engine_name((kvp_engine)log->engine)));
    json_object_set_new(doc, "engine_name", json_string(engine_title((int)log->engine)));
    json_object_set_new(doc, "variant", log->variant[0] ? json_string(log->variant) : json_null());
    json_object_set_new(doc, "engine_version",
                        log->engine_version[0] ? jstr(log->engine_version) : json_null());
    json_object_set_new(doc, "engine_version_source",
                        log->version_source[0] ? json_string(log->version_source) : json_null());
    json_object_set_new(doc, "engine_version_used", json_boolean(version_used));
    json_t *model = json_object();
    char red[300];
    kvp__log_redact(log->model, red, sizeof red);
    json_object_set_new(model, "logged", log->model[0] ? jstr(w->redact ? red : log->model)
                                                       : json_null());
    kvp__log_redact(c.model, red, sizeof red);
    json_object_set_new(model, "config", jstr(w->redact ? red : c.model));
    json_object_set_new(model, "found_by", json_string(c.model_source));
    json_object_set_new(doc, "model", model);
    json_t *gpu = json_object();
    json_object_set_new(gpu, "name", log->gpu[0] ? jstr(log->gpu) : json_null());
    const kvp_log_figure *tot = kvp__log_figure(log, "total_bytes", 0);
    json_object_set_new(gpu, "total_bytes",
                        tot && kvp__log_figure_bytes(tot, &lo, &hi) ? kvp__json_u64(lo + (hi - lo) / 2)
                                                                    : json_null());
    json_object_set_new(doc, "gpu", gpu);
    json_object_set_new(doc, "settings", c.settings);
    json_t *gm = json_object();
    json_object_set_new(gm, "from", json_string(kind));
    json_object_set_new(gm, "runs", json_integer((json_int_t)ngiven));
    if (ngiven && !given[0].doc) json_object_set_new(gm, "error", json_string(given[0].error));
    json_t *reqs = json_array();
    for (size_t i = 0; i < ngiven; i++)
        if (given[i].req) json_array_append(reqs, given[i].req);
    json_object_set_new(gm, "options", reqs);
    if (nterms) {
        json_t *treqs = json_array();
        for (size_t i = 0; i < nterms; i++)
            if (terms[i].req) json_array_append(treqs, terms[i].req);
        json_object_set_new(gm, "terms_options", treqs);
    }
    json_object_set_new(doc, "given_memory", gm);
    json_t *cm = json_object();
    json_object_set_new(cm, "planned", json_boolean(config.doc != NULL));
    if (!config.doc) json_object_set_new(cm, "error", json_string(config.error));
    json_object_set_new(doc, "from_config", cm);
    json_t *ends[2] = {NULL, NULL};
    size_t nends = 0;
    for (size_t i = 0; i < ngiven && i < 2; i++)
        if (given[i].req) ends[nends++] = given[i].req;
    json_object_set_new(doc, "answer", answer(&c, ends, nends));
    judged j = {0, 0, json_array()};
    json_t *figs = json_array();
    for (size_t i = 0; i < log->figure_count; i++) {
        const kvp_log_figure *f = &log->figures[i];
        bool avail_fig = !strcmp(f->name, "available_kv_cache_bytes");
        bool from_terms = nterms && avail_fig;
        kvp_log_figure as_input;
        if (avail_fig && !nterms && log->engine == KVP_LOG_VLLM && ngiven) {
            as_input = *f; /* the budget the runs were given: an input, not a result */
            as_input.role = KVP_LOG_INPUT;
            f = &as_input;
        }
        json_array_append_new(figs, figure_json(&c, f, from_terms ? terms : given,
                                                from_terms ? nterms : ngiven, &config, &j));
    }
    json_object_set_new(doc, "figures", figs);

    json_object_set_new(doc, "unread_lines", unread_json(&c));
    json_t *stats = json_object();
    json_object_set_new(stats, "lines", kvp__json_u64(log->lines));
    json_object_set_new(stats, "bytes", kvp__json_u64(log->bytes));
    json_object_set_new(stats, "cut_lines", kvp__json_u64(log->cut_lines));
    json_object_set_new(stats, "unread_lines", kvp__json_u64(log->unread_count));
    json_object_set_new(stats, "figures_not_kept", kvp__json_u64(log->figures_dropped));
    json_object_set_new(doc, "read", stats);
    json_object_set_new(doc, "outputs", json_integer((json_int_t)j.outputs));
    json_object_set_new(doc, "reproduced", json_integer((json_int_t)j.reproduced));
    json_object_set_new(doc, "unreproduced", j.unreproduced);
    /* nothing to reproduce (memory lines only) is not a difference: 0, said in the text */
    *verdict = j.reproduced == j.outputs ? 0 : 1;
    for (size_t i = 0; i < 2; i++) {
        json_decref(given[i].doc);
        json_decref(given[i].req);
        json_decref(terms[i].doc);
        json_decref(terms[i].req);
    }
    json_decref(config.doc);
    json_decref(config.req);
    json_decref(given_req);
    json_decref(c.base);
    json_decref(c.printed);
    *out = kvp__json_dump(doc, KVP__JSON_FLAGS, NULL);
    json_decref(doc);
    if (!*out) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
    return KVP_OK;
}

/* kvp_json_call "why": {"log": TEXT, "model", "target_concurrency",
 * "target_context", option keys}. A pasted log: no path it names is opened. */
kvp_status kvp__why_call(const json_t *req, const kvp__json_call_opts *o, char **out, kvp_error *err) {
    const json_t *text = json_object_get(req, "log");
    if (!json_is_string(text))
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "/log", "expected the log's text as a string");
    kvp__why_request w;
    memset(&w, 0, sizeof w);
    w.from_paste = true;
    w.redact = o->catalog_only;
    json_t *opts = json_object();
    const char *key;
    json_t *v;
    kvp_status st = KVP_OK;
    json_object_foreach((json_t *)req, key, v) {
        if (!strcmp(key, "log")) continue;
        if (!strcmp(key, "model")) {
            if (!json_is_string(v)) {
                st = kvp__fail(err, KVP_INVALID_ARG, NULL, "/model", "expected a string");
                break;
            }
            w.model = json_string_value(v);
        } else if (!strcmp(key, "target_concurrency") || !strcmp(key, "target_context")) {
            if (!json_is_integer(v) || json_integer_value(v) < 1) {
                char ptr[40];
                snprintf(ptr, sizeof ptr, "/%s", key);
                st = kvp__fail(err, KVP_INVALID_ARG, NULL, ptr, "%s: expected a positive integer",
                               key);
                break;
            }
            *(!strcmp(key, "target_context") ? &w.target_context : &w.target_concurrency) =
                (uint64_t)json_integer_value(v);
        } else {
            const kvp_option *row = kvp_option_lookup(key, NULL);
            if (!row || !(row->commands & KVP_COMMAND_PLAN)) {
                char ptr[80];
                snprintf(ptr, sizeof ptr, "/%.60s", key);
                st = kvp__fail(err, KVP_INVALID_ARG, NULL, ptr,
                               "unknown request key '%.60s' (why takes log, model, "
                               "target_concurrency, target_context and the option table's names: "
                               "docs/options.md)",
                               key);
                break;
            }
            char canon[64]; /* one key per row: the log's settings give way to it */
            row_key(row, canon, sizeof canon);
            json_object_set(opts, canon, v);
        }
    }
    /* Two targets are two questions, and only one would be answered (as
     * `kvplan why`, issue 29). */
    if (st == KVP_OK && w.target_concurrency && w.target_context)
        st = kvp__fail(err, KVP_INVALID_ARG, NULL, "/target_context",
                       "target_context contradicts target_concurrency: why answers one target: "
                       "the length at a concurrency, or the concurrency at a length; give one");
    kvp_log *log = st == KVP_OK ? kvp__malloc(NULL, sizeof *log) : NULL;
    if (st == KVP_OK && !log) st = kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
    if (st == KVP_OK) {
        kvp__log_init(log);
        kvp__log_feed(log, json_string_value(text), json_string_length(text));
        kvp__log_finish(log);
        w.log = log;
        w.options = opts;
        int verdict;
        st = kvp__why_json_text(&w, o, out, &verdict, err);
    }
    kvp__free(NULL, log);
    json_decref(opts);
    return st;
}

const kvp_option *kvp__why_option(json_t *opts, int argc, char **argv, int *i, char name[64],
                                  bool *missing) {
    const char *a = argv[*i], *eq = strchr(a, '=');
    size_t n = eq ? (size_t)(eq - a) : strlen(a);
    if (n >= 64) n = 63;
    memcpy(name, a, n);
    name[n] = '\0';
    *missing = false;
    const kvp_option *row = kvp_option_lookup(name, NULL);
    if (!row || !(row->commands & KVP_COMMAND_PLAN)) return NULL;
    const char *val = eq ? eq + 1 : NULL;
    if (!val && row->type != KVP_OPTION_FLAG) {
        if (*i + 1 >= argc) {
            *missing = true;
            return row;
        }
        val = argv[++*i];
    }
    char key[64];
    kvp__strlcpy(key, row->name + 2, sizeof key);
    for (char *p = key; *p; p++)
        if (*p == '-') *p = '_';
    json_object_set_new(opts, key, json_string(val ? val : "true"));
    return row;
}
