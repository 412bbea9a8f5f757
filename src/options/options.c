/* options.c — the one option parser (kvplan/options.h): name lookup, value
 * checks with one message per error kind, the setter writing each row's
 * settings field, and the finishing step (engine choice, contradictions,
 * settings the engine does not read). */
#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "kvplan/units.h"
#include "engine_ops.h"
#include "options_internal.h"
#include "plan_internal.h" /* kvp__note */
#include "util.h"

size_t kvp_option_count(void) { return O_COUNT; }

const kvp_option *kvp_option_at(size_t index) {
    return index < O_COUNT ? &kvp__options[index] : NULL;
}

/* "--Max_Seq_Len" and "max-seq-len" -> "max-seq-len"; short spellings
 * ("-c", "-tp") are not normalised (NULL: compare exactly). */
static bool long_key(const char *name, char *out, size_t size) {
    const char *p = name;
    if (p[0] == '-' && p[1] != '-') return false; /* a short spelling */
    while (*p == '-') p++;
    size_t n = 0;
    for (; *p && n + 1 < size; p++) {
        char c = (char)tolower((unsigned char)*p);
        out[n++] = c == '_' ? '-' : c;
    }
    if (*p) return false;
    out[n] = '\0';
    return n > 0;
}

/* Every row's names, sorted, computed once: exactly as spelled, and in long_key
 * form (a request's keys, "max_seq_len", are found by that form). A scan of
 * the whole table for each key was a tenth of a plan through kvp_json_call
 * (issue 27 item 8; callgrind), and every flag of the CLI is looked up too. */
typedef struct {
    const char *key;
    uint16_t row;     /* index into kvp__options */
    uint8_t spelling; /* 0: the row's name, else spellings[spelling - 1] */
} name_entry;

#define NAMES_MAX (O_COUNT * (1 + KVP_OPTION_SPELLINGS_MAX))
static char g_long_keys[O_COUNT][1 + KVP_OPTION_SPELLINGS_MAX][64]; /* the keys of g_long */
static name_entry g_exact[NAMES_MAX], g_long[NAMES_MAX];
static size_t g_exact_n, g_long_n;
static pthread_once_t g_names_once = PTHREAD_ONCE_INIT;

_Static_assert(O_COUNT <= UINT16_MAX && KVP_OPTION_SPELLINGS_MAX < UINT8_MAX,
               "a name_entry holds any row and spelling");

/* By key, then in table order: of two rows with one name the first wins, as a
 * scan of the table in order would find it. */
static int entry_order(const void *a, const void *b) {
    const name_entry *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    if (c) return c;
    if (x->row != y->row) return x->row < y->row ? -1 : 1;
    return (x->spelling > y->spelling) - (x->spelling < y->spelling);
}

static void names_build(void) {
    for (size_t i = 0; i < O_COUNT; i++) {
        const kvp_option *o = &kvp__options[i];
        for (size_t k = 0; k <= KVP_OPTION_SPELLINGS_MAX; k++) {
            const char *name = k ? o->spellings[k - 1].name : o->name;
            if (!name) break;
            g_exact[g_exact_n++] = (name_entry){name, (uint16_t)i, (uint8_t)k};
            if (long_key(name, g_long_keys[i][k], sizeof g_long_keys[i][k]))
                g_long[g_long_n++] = (name_entry){g_long_keys[i][k], (uint16_t)i, (uint8_t)k};
        }
    }
    qsort(g_exact, g_exact_n, sizeof *g_exact, entry_order);
    qsort(g_long, g_long_n, sizeof *g_long, entry_order);
}

/* The first entry whose key is `key` (the lowest in table order), NULL when none. */
static const name_entry *names_find(const name_entry *v, size_t n, const char *key) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(v[mid].key, key) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && !strcmp(v[lo].key, key) ? &v[lo] : NULL;
}

const kvp_option *kvp_option_lookup(const char *name, size_t *spelling) {
    if (spelling) *spelling = 0;
    if (!name || !*name) return NULL;
    pthread_once(&g_names_once, names_build);
    /* Exact spellings first: TensorRT-LLM's "--tp_size" and SGLang's "--tp-size"
     * differ only by '_'. */
    const name_entry *e = names_find(g_exact, g_exact_n, name);
    char key[64];
    if (!e && long_key(name, key, sizeof key)) e = names_find(g_long, g_long_n, key);
    if (!e) return NULL;
    if (spelling) *spelling = e->spelling;
    return &kvp__options[e->row];
}

const kvp_option *kvp_option_for_field(const char *field) {
    if (!field) return NULL;
    for (size_t i = 0; i < O_COUNT; i++)
        if (!strcmp(field, kvp__options[i].field)) return &kvp__options[i];
    return NULL;
}

/* The notes' text is read only below their count (kvp_notes), so it is left as
 * it is: zeroing those 15 KiB on every kvp_json_call was a tenth of a plan's
 * JSON call (bench/bench_json_call.c, callgrind). Everything else starts zero. */
_Static_assert(offsetof(kvp_options, warnings) == offsetof(kvp_options, notes) + sizeof(kvp_notes) &&
                   offsetof(kvp_options, pasted) == offsetof(kvp_options, warnings) + sizeof(kvp_notes) &&
                   sizeof(kvp_options) - offsetof(kvp_options, pasted) < sizeof(((kvp_options *)0)->pasted) + 16,
               "the notes and the spellings pasted are the last members of kvp_options");

void kvp__options_init(kvp_options *o, unsigned command) {
    memset(o, 0, offsetof(kvp_options, notes));
    o->notes.count = o->notes.dropped = 0;
    o->warnings.count = o->warnings.dropped = 0;
    memset(o->pasted, 0, sizeof o->pasted);
    o->command = command;
    o->deployment = kvp_deployment_default();
    o->startup = kvp_startup_settings_default();
}

kvp_options *kvp_options_new(unsigned command) {
    kvp_options *o = malloc(sizeof *o);
    if (o) kvp__options_init(o, command);
    return o;
}

void kvp_options_free(kvp_options *o) { free(o); }

/* The accessors of the opaque set (kvplan/options.h): borrowed pointers into it. */
unsigned kvp_options_command(const kvp_options *o) { return o->command; }
const kvp_deployment *kvp_options_deployment(const kvp_options *o) { return &o->deployment; }
const kvp_startup_settings *kvp_options_startup(const kvp_options *o) { return &o->startup; }
const kvp_notes *kvp_options_notes(const kvp_options *o) { return &o->notes; }
const kvp_notes *kvp_options_warnings(const kvp_options *o) { return &o->warnings; }
const char *kvp_options_gpu(const kvp_options *o) { return o->gpu; }
const char *kvp_options_draft(const kvp_options *o) { return o->draft; }
uint32_t kvp_options_gpus(const kvp_options *o) { return o->gpus; }

bool kvp_options_given(const kvp_options *o, const char *name) {
    const kvp_option *r = kvp_option_lookup(name, NULL);
    return r && o->given[r->id];
}

const char *kvp_options_typed(const kvp_options *o, const char *name) {
    const kvp_option *r = kvp_option_lookup(name, NULL);
    if (!r) return name;
    return o->given[r->id] ? o->typed[r->id] : r->name;
}

/* ------------------------------------------------------------------ values */

static kvp_status bad(kvp_error *err, const char *typed, const char *fmt, ...) KVP_PRINTF(3, 4);
static kvp_status bad(kvp_error *err, const char *typed, const char *fmt, ...) {
    /* The message names the option itself ("--tp needs a value"); the key is it. */
    va_list ap;
    va_start(ap, fmt);
    kvp_status st = kvp__vfail(err, KVP_INVALID_ARG, NULL, NULL, fmt, ap);
    va_end(ap);
    if (err) kvp__strlcpy(err->key, typed, sizeof err->key);
    return st;
}

static kvp_status get_count(const kvp_option *r, const char *typed, const char *v, uint64_t *out,
                            kvp_error *err) {
    kvp_error e;
    if (kvp_parse_count(v, out, &e) != KVP_OK) return bad(err, typed, "%s: %s", typed, e.message);
    if (*out < r->min || *out > r->max)
        return bad(err, typed, "%s: %s is out of range, expected %llu to %llu", typed, *v ? v : "''",
                   (unsigned long long)r->min, (unsigned long long)r->max);
    return KVP_OK;
}

/* A COUNT row whose field is 32-bit (its max keeps it in range). */
static kvp_status get_u32(const kvp_option *r, const char *typed, const char *v, uint32_t *out,
                          kvp_error *err) {
    uint64_t n = 0;
    kvp_status st = get_count(r, typed, v, &n, err);
    *out = (uint32_t)n;
    return st;
}

static kvp_status get_bytes(const kvp_option *r, const char *typed, const char *v, uint64_t *out,
                            kvp_error *err) {
    kvp_error e;
    if (kvp_parse_bytes(v, out, &e) != KVP_OK) return bad(err, typed, "%s: %s", typed, e.message);
    if (r->min && *out == 0) return bad(err, typed, "%s: 0 bytes; expected a positive size", typed);
    return KVP_OK;
}

/* "1,2,4,8": the capture list, each size 1 to 2^20, at most 64; kept sorted
 * and without repeats (the engines capture each size once, largest first). */
static kvp_status graph_sizes(const char *typed, const char *v, kvp_deploy_memory *m,
                              kvp_error *err) {
    uint32_t n = 0;
    const char *p = v;
    while (*p) {
        char word[24];
        size_t k = 0;
        while (*p && *p != ',' && k + 1 < sizeof word) word[k++] = *p++;
        word[k] = '\0';
        if (*p && *p != ',')
            return bad(err, typed, "%s: '%s' has a size that is too long", typed, v);
        if (*p == ',') p++;
        uint64_t b;
        kvp_error e;
        if (kvp_parse_count(word, &b, &e) != KVP_OK || b < 1 || b > (1u << 20))
            return bad(err, typed, "%s: '%s' is not a batch size from 1 to 1048576", typed, word);
        bool seen = false;
        for (uint32_t j = 0; j < n; j++) seen = seen || m->cuda_graph_sizes[j] == b;
        if (seen) continue;
        if (n == 64) return bad(err, typed, "%s: more than 64 sizes", typed);
        uint32_t i = n++;
        while (i > 0 && m->cuda_graph_sizes[i - 1] > b) {
            m->cuda_graph_sizes[i] = m->cuda_graph_sizes[i - 1];
            i--;
        }
        m->cuda_graph_sizes[i] = (uint32_t)b;
    }
    if (!n) return bad(err, typed, "%s: no sizes given (e.g. 1,2,4,8)", typed);
    m->cuda_graph_size_count = n;
    return KVP_OK;
}

static kvp_status get_fraction(const kvp_option *r, const char *typed, const char *v, double *out,
                               kvp_error *err) {
    kvp_error e;
    /* [0, 1] where the row allows 0 (TensorRT-LLM's cross_kv_cache_fraction). */
    if (r->zero_ok) {
        char *end = NULL;
        double f = strtod(v, &end);
        if (end == v || *end || !(f >= 0.0 && f <= 1.0))
            return bad(err, typed, "%s: %s is not a fraction in [0, 1]", typed, *v ? v : "''");
        *out = f;
        return KVP_OK;
    }
    if (kvp_parse_fraction(v, out, &e) != KVP_OK)
        return bad(err, typed, "%s: %s is not a fraction in (0, 1]", typed, *v ? v : "''");
    return KVP_OK;
}

/* "W,W,...": up to `cap` positive counts (--max-attention-window). */
static kvp_status count_list(const char *typed, const char *v, uint64_t *out, size_t cap,
                             size_t *n, kvp_error *err) {
    *n = 0;
    for (const char *p = v; *p;) {
        char word[32];
        size_t k = strcspn(p, ",");
        uint64_t x;
        kvp_error e;
        if (k == 0 || k >= sizeof word || *n == cap)
            return bad(err, typed, "%s: '%.40s' is not a comma-separated list of up to %zu "
                       "positive token counts", typed, v, cap);
        memcpy(word, p, k);
        word[k] = '\0';
        if (kvp_parse_count(word, &x, &e) != KVP_OK) return bad(err, typed, "%s: %s", typed, e.message);
        if (x < 1 || x > UINT32_MAX)
            return bad(err, typed, "%s: %s is out of range, expected 1 to %u", typed, word, UINT32_MAX);
        out[(*n)++] = x;
        p += k;
        if (*p == ',') p++;
    }
    if (!*n) return bad(err, typed, "%s: the value is empty", typed);
    return KVP_OK;
}

/* "q_proj,v_proj": the LoRA target modules, copied into the rules' buffer. */
static kvp_status name_list(const char *typed, const char *v, kvp_option_rules *x,
                            kvp_error *err) {
    kvp__strlcpy(x->lora_buf, v, sizeof x->lora_buf);
    size_t n = 0;
    for (char *p = x->lora_buf; p && *p;) {
        char *comma = strchr(p, ',');
        if (comma) *comma = '\0';
        if (!*p || n == KVP_LORA_MAX_MODULES)
            return bad(err, typed, "%s: expected 1 to %d comma-separated names", typed,
                       KVP_LORA_MAX_MODULES);
        x->lora_modules[n++] = p;
        p = comma ? comma + 1 : NULL;
    }
    if (!n) return bad(err, typed, "%s: expected at least one name", typed);
    x->lora.target_modules = x->lora_modules;
    x->lora.module_count = n;
    return KVP_OK;
}

/* "image=576,video=1024": tokens per item of each modality. A count of 0 is the
 * encoder rule's own error (kvp_mm_encoder_profile_batch), not refused here. */
static kvp_status mm_items(const char *typed, const char *v, kvp_option_rules *x, kvp_error *err) {
    kvp__strlcpy(x->mm_buf, v, sizeof x->mm_buf);
    x->mm_count = 0;
    for (char *p = x->mm_buf; p && *p;) {
        char *comma = strchr(p, ',');
        if (comma) *comma = '\0';
        char *eq = strchr(p, '=');
        if (!eq || x->mm_count == KVP_OPTION_MM_MAX)
            return bad(err, typed, "%s: expected MODALITY=TOKENS[,MODALITY=TOKENS...] (at most %d), "
                       "got '%s'", typed, KVP_OPTION_MM_MAX, p);
        *eq = '\0';
        uint64_t n;
        kvp_error e;
        if (kvp_parse_count(eq + 1, &n, &e) != KVP_OK) return bad(err, typed, "%s: %s", typed, e.message);
        x->mm[x->mm_count].modality = p;
        x->mm[x->mm_count].tokens_per_item = n;
        x->mm_count++;
        p = comma ? comma + 1 : NULL;
    }
    return KVP_OK;
}

/* The index of `v` among the row's '|'-separated choices, -1 when none. */
static int choice_index(const kvp_option *r, const char *v) {
    int idx = 0;
    size_t vl = strlen(v);
    for (const char *p = r->choices; p && *p; idx++) {
        size_t n = strcspn(p, "|");
        if (n == vl && !strncmp(p, v, n)) return idx;
        p += n;
        if (*p == '|') p++;
    }
    return -1;
}

static kvp_status bad_choice(const kvp_option *r, const char *typed, const char *v,
                             kvp_error *err) {
    char list[160];
    size_t n = 0;
    for (const char *p = r->choices; *p && n + 3 < sizeof list; p++)
        if (*p == '|') {
            list[n++] = ',';
            list[n++] = ' ';
        } else {
            list[n++] = *p;
        }
    list[n] = '\0';
    return bad(err, typed, "%s: '%s' is not one of %s", typed, v, list);
}

/* A flag's optional value: true/false/1/0/on/off/yes/no. -1 when none of them. */
static int bool_word(const char *v) {
    static const char *const yes[] = {"true", "1", "on", "yes"}, *const no[] = {"false", "0", "off", "no"};
    for (size_t i = 0; i < 4; i++) {
        if (!kvp__strcasecmp(v, yes[i])) return 1;
        if (!kvp__strcasecmp(v, no[i])) return 0;
    }
    return -1;
}

static kvp_status get_text(const kvp_option *r, const char *typed, const char *v, char *dst,
                           size_t size, kvp_error *err) {
    size_t cap = size - 1 < r->max ? size - 1 : (size_t)r->max;
    if (strlen(v) > cap)
        return bad(err, typed, "%s: '%.40s' is too long (at most %zu bytes)", typed, v, cap);
    if (!*v) return bad(err, typed, "%s: the value is empty", typed);
    kvp__strlcpy(dst, v, size);
    return KVP_OK;
}

#define TEXT(dst) get_text(r, typed, v, dst, sizeof dst, err)

/* A name the creator's settings point at (kvp_deploy_settings): borrowed from the
 * value given, checked as TEXT. */
static kvp_status borrow(const kvp_option *r, const char *typed, const char *v, const char **dst,
                         kvp_error *err) {
    if (strlen(v) > r->max)
        return bad(err, typed, "%s: '%.40s' is too long (at most %zu bytes)", typed, v, (size_t)r->max);
    if (!*v) return bad(err, typed, "%s: the value is empty", typed);
    *dst = v;
    return KVP_OK;
}

/* The creator's on/off settings, by row. */
static bool *creator_switch(kvp_deploy_settings *t, int id) {
    switch (id) {
    case O_HELIX: return &t->helix_cp;
    case O_DISAGGREGATED: return &t->is_disagg;
    case O_USE_PY_MAMBA: return &t->force_mixed_hybrid;
    case O_WORKSPACE_NOT_CHUNK_BOUNDED: return &t->workspace_not_chunked_prefill_bounded;
    case O_DISABLE_OVERLAP_SCHEDULER: return &t->disable_overlap_scheduler;
    case O_KV_CONNECTOR: return &t->has_kv_connector;
    default: return &t->skip_estimation; /* O_SKIP_ESTIMATION */
    }
}

/* Write one checked value into the row's settings field. */
static kvp_status apply(kvp_options *o, const kvp_option *r, const char *typed, const char *v,
                        int flag, kvp_error *err) {
    kvp_deployment *d = &o->deployment;
    kvp_deploy_memory *m = &d->memory;
    kvp_policy_settings *p = &d->policy;
    kvp_startup_settings *ss = &o->startup;
    kvp_option_rules *x = &o->rules;
    uint64_t n = 0;
    kvp_status st = KVP_OK;
    switch ((kvp__opt_id)r->id) {
    case O_GPU:
        if (strlen(v) > r->max || !*v)
            return bad(err, typed, "%s: '%.40s' is not a GPU name", typed, v);
        o->gpu = v;
        return KVP_OK;
    case O_GPU_MEM: return get_bytes(r, typed, v, &m->total_bytes, err);
    case O_FREE_MEM:
        st = get_bytes(r, typed, v, &m->free_bytes, err);
        p->free_memory_bytes = m->free_bytes;
        return st;
    case O_KV_BUDGET:
        st = get_bytes(r, typed, v, &m->kv_budget_bytes, err);
        p->kv_budget_bytes = m->kv_budget_bytes;
        return st;
    case O_WEIGHTS: m->has_weights = true; return get_bytes(r, typed, v, &m->weights_bytes, err);
    case O_PEAK: m->has_peak = true; return get_bytes(r, typed, v, &m->peak_bytes, err);
    case O_ACTIVATION_PEAK:
        m->has_activation_peak = true;
        return get_bytes(r, typed, v, &m->activation_peak_bytes, err);
    case O_NON_TORCH:
        m->has_non_torch = true;
        return get_bytes(r, typed, v, &m->non_torch_bytes, err);
    case O_CUDA_GRAPH:
        m->has_cuda_graph = true;
        return get_bytes(r, typed, v, &m->cuda_graph_bytes, err);
    case O_ESTIMATION_KV: return get_bytes(r, typed, v, &m->estimation_kv_bytes, err);
    case O_POLICY: {
        kvp_engine e;
        if (kvp_engine_parse(v, &e) != KVP_OK)
            return bad(err, typed, "%s: unknown engine '%s' (expected trtllm, vllm, sglang, llamacpp)",
                       typed, v);
        d->point.engine = p->engine = e;
        o->engine_given = true;
        return KVP_OK;
    }
    case O_ENGINE_VERSION: return TEXT(p->engine_version);
    case O_TP:
        st = get_count(r, typed, v, &n, err);
        d->point.tp = p->tp = (uint32_t)n;
        return st;
    case O_PP:
        st = get_count(r, typed, v, &n, err);
        d->point.pp = p->pp = (uint32_t)n;
        return st;
    case O_DP:
        return get_u32(r, typed, v, &p->dp, err);
    case O_ATTENTION_DP: p->enable_dp_attention = d->trtllm.attention_dp = flag == 1; return KVP_OK;
    case O_MAX_SEQ_LEN:
        /* vLLM --max-model-len -1: the longest length that fits (vLLM's spelling only). */
        if (!strcmp(v, "-1") && !strcmp(typed + strspn(typed, "-"), "max-model-len")) {
            p->auto_fit_max_model_len = true;
            return KVP_OK;
        }
        st = get_count(r, typed, v, &d->point.max_seq_len, err);
        p->max_model_len = d->point.max_seq_len;
        return st;
    case O_SEQ_LEN: return get_count(r, typed, v, &d->point.seq_len, err);
    case O_KV_DTYPE:
        st = TEXT(d->point.kv_dtype);
        if (!st) kvp__strlcpy(p->kv_dtype, d->point.kv_dtype, sizeof p->kv_dtype);
        return st;
    case O_BLOCK_SIZE:
        st = get_count(r, typed, v, &n, err);
        p->block_size = d->kv.tokens_per_block = (uint32_t)n;
        return st;
    case O_GPU_MEMORY_UTILIZATION: return get_fraction(r, typed, v, &p->gpu_memory_utilization, err);
    case O_MEM_FRACTION_STATIC: return get_fraction(r, typed, v, &p->mem_fraction_static, err);
    case O_FREE_GPU_MEMORY_FRACTION: return get_fraction(r, typed, v, &d->kv.free_gpu_memory_fraction, err);
    case O_MAX_NUM_SEQS:
        return get_u32(r, typed, v, &p->max_num_seqs, err);
    case O_MAX_NUM_BATCHED_TOKENS: return get_count(r, typed, v, &p->max_num_batched_tokens, err);
    case O_MAMBA_CACHE_MODE:
        if (choice_index(r, v) < 0) return bad_choice(r, typed, v, err);
        kvp__strlcpy(p->mamba_cache_mode, v, sizeof p->mamba_cache_mode);
        return KVP_OK;
    case O_MAMBA_CACHE_DTYPE:
    case O_MAMBA_SSM_CACHE_DTYPE: {
        kvp_dtype t = KVP_DTYPE_AUTO;
        if (choice_index(r, v) < 0 || kvp_dtype_parse(v, &t) != KVP_OK)
            return bad_choice(r, typed, v, err);
        if (r->id == O_MAMBA_CACHE_DTYPE)
            p->mamba_cache_dtype = t;
        else
            p->mamba_ssm_cache_dtype = d->kv.mamba_ssm_cache_dtype = t;
        return KVP_OK;
    }
    case O_NUM_DRAFT_LAYERS:
        st = get_count(r, typed, v, &n, err);
        p->num_draft_layers = d->trtllm.num_draft_layers = (uint32_t)n;
        return st;
    case O_MAX_BATCH_SIZE:
        st = get_count(r, typed, v, &d->trtllm.max_batch_size, err);
        d->point.max_batch_size = d->trtllm.max_batch_size;
        return st;
    case O_MAX_NUM_TOKENS: return get_count(r, typed, v, &d->trtllm.max_num_tokens, err);
    case O_MAX_BEAM_WIDTH:
        return get_u32(r, typed, v, &d->trtllm.max_beam_width, err);
    case O_MAX_TOKENS:
        d->kv.has_max_tokens = true;
        return get_count(r, typed, v, &d->kv.max_tokens, err);
    case O_HOST_CACHE_SIZE: return get_bytes(r, typed, v, &d->kv.host_cache_size, err);
    case O_ENABLE_BLOCK_REUSE: d->kv.enable_block_reuse = flag == 1; return KVP_OK;
    case O_KV_MANAGER: {
        int k = choice_index(r, v);
        if (k < 0) return bad_choice(r, typed, v, err);
        d->kv.use_v2 = k == 0 ? 0 : k == 1 ? -1 : 1;
        return KVP_OK;
    }
    case O_CUDA_GRAPH_BATCH_SIZE: return get_count(r, typed, v, &d->trtllm.max_cuda_graph_batch_size, err);
    case O_CUDA_GRAPH_MAX_BS:
        return get_u32(r, typed, v, &m->cuda_graph_max_bs, err);
    case O_CUDA_GRAPH_BATCH_SIZES: return graph_sizes(typed, v, m, err);
    case O_ISL: return get_count(r, typed, v, &d->admission.isl, err);
    case O_OSL: return get_count(r, typed, v, &d->admission.osl, err);
    case O_MAX_NEW_TOKENS: return get_count(r, typed, v, &d->admission.max_new_tokens, err);
    case O_CAPACITY_SCHEDULER_POLICY: {
        /* TRT-LLM's enum names, as its YAML and LLM API spell them (case-insensitive). */
        if (kvp_capacity_policy_parse(v, &d->admission.policy, err) != KVP_OK)
            return bad_choice(r, typed, v, err);
        return KVP_OK;
    }
    case O_CTX_SIZE: return get_count(r, typed, v, &p->n_ctx, err);
    case O_PARALLEL:
        st = get_count(r, typed, v, &n, err);
        d->point.sequences = p->n_seq_max = (uint32_t)n;
        return st;
    case O_CACHE_TYPE_K: return TEXT(p->type_k);
    case O_CACHE_TYPE_V: return TEXT(p->type_v);
    case O_UBATCH_SIZE:
        return get_u32(r, typed, v, &p->n_ubatch, err);
    case O_BATCH_SIZE:
        return get_u32(r, typed, v, &p->n_batch, err);
    case O_KV_UNIFIED: p->kv_unified = flag; return KVP_OK;
    case O_SWA_FULL: p->swa_full = flag; return KVP_OK;
    case O_FLASH_ATTN: {
        /* llama.cpp's on|off|auto; older builds' bare flag and boolean words too. */
        int k = v ? choice_index(r, v) : 0;
        if (k < 0 && v) {
            int b = bool_word(v);
            if (b < 0 && !kvp__strcasecmp(v, "enabled")) b = 1;
            if (b < 0 && !kvp__strcasecmp(v, "disabled")) b = 0;
            k = b == 1 ? 0 : b == 0 ? 1 : -1;
        }
        if (k < 0) return bad_choice(r, typed, v, err);
        p->flash_attn = k == 0 ? 1 : k == 1 ? 0 : -1;
        return KVP_OK;
    }
    case O_DTYPE:
        if (kvp_run_dtype_parse(v, &ss->dtype) != KVP_OK)
            return bad(err, typed, "%s: '%s' is not one of auto, float16 (half), bfloat16, float32",
                       typed, v);
        return KVP_OK;
    case O_QUANTIZATION: return TEXT(ss->quantization);
    case O_TRUST_REMOTE_CODE: ss->trust_remote_code = flag == 1; return KVP_OK;
    case O_ENFORCE_EAGER: ss->enforce_eager = flag == 1; return KVP_OK;
    case O_ENABLE_PREFIX_CACHING: ss->enable_prefix_caching = flag; return KVP_OK;
    case O_ENABLE_CHUNKED_PREFILL:
        ss->enable_chunked_prefill = flag;
        d->trtllm.enable_chunked_prefill = flag == 1; /* the creator reads it too */
        return KVP_OK;
    case O_ENABLE_EXPERT_PARALLEL: ss->enable_expert_parallel = flag == 1; return KVP_OK;
    case O_SPECULATIVE_METHOD:
        st = TEXT(ss->speculative_method);
        /* SGLang's automatic memory fraction reserves for the draft by algorithm. */
        if (st == KVP_OK) kvp__strlcpy(p->speculative_algorithm, v, sizeof p->speculative_algorithm);
        return st;
    case O_NUM_SPECULATIVE_TOKENS:
        return get_u32(r, typed, v, &ss->num_speculative_tokens, err);
    case O_SPECULATIVE_CONFIG:
        if (!*v) return bad(err, typed, "%s: the value is empty", typed);
        kvp__strlcpy(ss->speculative_method, "config", sizeof ss->speculative_method);
        return KVP_OK;
    case O_GPUS:
        st = get_count(r, typed, v, &n, err);
        o->gpus = ss->gpu_count = (uint32_t)n;
        return st;
    case O_ENV: {
        kvp_error e;
        if (kvp_startup_set_env(ss, v, &e) != KVP_OK) return bad(err, typed, "%s: %s", typed, e.message);
        return KVP_OK;
    }
    case O_DISABLE_RULE: {
        kvp_error e;
        if (kvp_startup_disable(ss, v, &e) != KVP_OK) return bad(err, typed, "%s: %s", typed, e.message);
        return KVP_OK;
    }
    /* ---- the creator's settings (kvp_deploy_settings, kvp_kv_config) */
    case O_PROBE: o->probe = flag == 1; return KVP_OK;
    case O_DEVICE:
        st = get_count(r, typed, v, &n, err);
        o->device = (uint32_t)n;
        o->probe = true;
        return st;
    case O_MAX_GPU_TOTAL_BYTES: return get_bytes(r, typed, v, &d->kv.max_gpu_total_bytes, err);
    case O_MAX_ATTENTION_WINDOW: {
        size_t count = 0;
        st = count_list(typed, v, o->windows, KVP_OPTION_WINDOWS_MAX, &count, err);
        d->kv.max_attention_window = o->windows;
        d->kv.max_attention_window_count = count;
        return st;
    }
    case O_CROSS_KV_CACHE_FRACTION:
        d->kv.has_cross_kv_cache_fraction = true;
        return get_fraction(r, typed, v, &d->kv.cross_kv_cache_fraction, err);
    case O_DRAFT:
        if (!*v) return bad(err, typed, "%s: the value is empty", typed);
        o->draft = v;
        return KVP_OK;
    case O_SPEC_MODE:
        if (kvp_spec_mode_parse(v, &d->trtllm.spec_mode) != KVP_OK) return bad_choice(r, typed, v, err);
        return KVP_OK;
    case O_MAX_DRAFT_LEN:
        return get_u32(r, typed, v, &d->trtllm.max_draft_len, err);
    case O_SEPARATE_DRAFT_KV: d->trtllm.separate_draft_kv_cache = flag == 1 ? 1 : -1; return KVP_OK;
    case O_CP:
        return get_u32(r, typed, v, &d->trtllm.cp, err);
    case O_HELIX:
    case O_DISAGGREGATED:
    case O_USE_PY_MAMBA:
    case O_WORKSPACE_NOT_CHUNK_BOUNDED:
    case O_DISABLE_OVERLAP_SCHEDULER:
    case O_KV_CONNECTOR:
    case O_SKIP_ESTIMATION: *creator_switch(&d->trtllm, r->id) = flag == 1; return KVP_OK;
    case O_SPARSE_ATTENTION: return borrow(r, typed, v, &d->trtllm.sparse_algorithm, err);
    case O_TRANSCEIVER_BACKEND: return borrow(r, typed, v, &d->trtllm.transceiver_backend, err);
    case O_TRANSCEIVER_RUNTIME: return borrow(r, typed, v, &d->trtllm.transceiver_runtime, err);
    case O_MAMBA_MANAGER_PREFERENCE:
        /* The seed upper-cases the value; anything else warns and keeps the default. */
        d->trtllm.mamba_preference = !kvp__strcasecmp(v, "cpp")     ? KVP_MAMBA_PREF_CPP
                                     : !kvp__strcasecmp(v, "mixed") ? KVP_MAMBA_PREF_MIXED
                                                                    : KVP_MAMBA_PREF_OTHER;
        return KVP_OK;
    case O_ATTN_BACKEND: return borrow(r, typed, v, &d->trtllm.attn_backend, err);
    case O_MLA_WORKSPACE_RATE:
        return get_bytes(r, typed, v, &d->trtllm.attention_workspace_bytes_per_token, err);
    case O_FP8_CONTEXT_MLA_KV_LEN_CAP:
        d->kv.has_fp8_context_mla_kv_len_cap = true;
        return get_count(r, typed, v, &d->kv.fp8_context_mla_kv_len_cap, err);
    case O_SM_VERSION:
        return get_u32(r, typed, v, &d->trtllm.sm_version, err);
    case O_CHUNK_SIZE: return get_count(r, typed, v, &d->trtllm.chunk_size, err);
    case O_CHUNKED_PREFILL_BUFFER_BATCH_SIZE:
        return get_count(r, typed, v, &d->trtllm.chunked_prefill_buffer_batch_size, err);
    case O_MAX_INPUT_LEN: return get_count(r, typed, v, &d->trtllm.max_input_len, err);
    case O_AVG_SEQ_LEN: return get_count(r, typed, v, &d->kv.avg_seq_len, err);
    case O_MAX_UTIL_FOR_RESUME: return get_fraction(r, typed, v, &d->trtllm.max_util_for_resume, err);
    /* ---- the rules around the creator (kvp_option_rules) */
    case O_KV_CACHE_COMPRESSION:
        if (kvp__compression_parse(v, &x->compression.algorithm) != KVP_OK ||
            x->compression.algorithm == KVP_COMPRESSION_NONE)
            return bad_choice(r, typed, v, err);
        if (!x->compression.quant) x->compression.quant_nvfp4 = true; /* the seed's default */
        return KVP_OK;
    case O_COMPRESSION_QUANT:
        st = borrow(r, typed, v, &x->compression.quant, err);
        x->compression.quant_nvfp4 = !strcmp(v, "nvfp4");
        return st;
    case O_TRIATTENTION_UNION_EVICTION:
        x->compression.triattention_union_eviction = flag == 1;
        return KVP_OK;
    case O_LORA_RANK:
        /* 0 is refused by the LoRA rule, in the rule's words. */
        x->has_lora = true;
        return get_u32(r, typed, v, &x->lora.max_lora_rank, err);
    case O_MAX_LORAS:
        x->has_lora = x->lora.has_max_loras = true;
        return get_u32(r, typed, v, &x->lora.max_loras, err);
    case O_MAX_CPU_LORAS:
        x->has_lora = x->lora.has_max_cpu_loras = true;
        return get_u32(r, typed, v, &x->lora.max_cpu_loras, err);
    case O_LORA_TARGET_MODULES: x->has_lora = true; return name_list(typed, v, x, err);
    case O_LORA_SHARED_EXPERT_SIZE:
        x->has_lora = true;
        return get_count(r, typed, v, &x->lora.shared_expert_global_size, err);
    case O_MM_ENCODER_MAX_TOKENS: x->has_mm = true; return get_count(r, typed, v, &x->mm_max_tokens, err);
    case O_MM_ENCODER_BATCH_SIZE: x->has_mm = true; return get_count(r, typed, v, &x->mm_batch, err);
    case O_MM_TOKENS_PER_ITEM: x->has_mm = true; return mm_items(typed, v, x, err);
    case O_MM_EMBEDDING_DIM: return get_count(r, typed, v, &x->mm_embedding_dim, err);
    case O_MM_OUTPUT_BUDGET:
        x->has_mm = true;
        return get_bytes(r, typed, v, &d->trtllm.mm_output_budget_bytes, err);
    case O_MM_ENCODER_CACHE:
        x->has_mm = true;
        st = get_bytes(r, typed, v, &d->trtllm.mm_encoder_cache_max_bytes, err);
        d->trtllm.mm_encoder_cache_active = d->trtllm.mm_encoder_cache_max_bytes > 0;
        return st;
    /* ---- sim's pool */
    case O_BLOCKS: return get_count(r, typed, v, &o->sim.blocks, err);
    case O_RECURRENT_SLOTS: return get_count(r, typed, v, &o->sim.recurrent_slots, err);
    /* ---- the engines' flags that change memory, admission or the cache */
    case O_MAX_RUNNING_REQUESTS: return get_u32(r, typed, v, &p->max_running_requests, err);
    case O_CHUNKED_PREFILL_SIZE: {
        kvp_error ee;
        if (!strcmp(v, "-1")) {
            p->chunked_prefill_size = -1;
            return KVP_OK;
        }
        if (kvp_parse_count(v, &n, &ee) != KVP_OK)
            return bad(err, typed, "%s: %s", typed, ee.message);
        if (n == 0 || n > (1ull << 32))
            return bad(err, typed, "%s: %s is not a chunk of 1 to 4294967296 tokens, or -1", typed,
                       v);
        p->chunked_prefill_size = (int64_t)n;
        return KVP_OK;
    }
    case O_EP_SIZE:
        st = get_u32(r, typed, v, &ss->ep_size, err);
        m->ep = ss->ep_size;
        return st;
    case O_ATTENTION_BACKEND:
        if (!*v) return bad(err, typed, "%s: an empty backend name", typed);
        return TEXT(p->attention_backend);
    case O_RUNNER:
        if (choice_index(r, v) < 0) return bad_choice(r, typed, v, err);
        kvp__strlcpy(ss->runner, v, sizeof ss->runner);
        if (!strcmp(v, "pooling"))
            kvp__note(&o->warnings,
                      "%s %s: the profile runs the pooler instead of the sampler (planned); "
                      "admission is still counted as for generation (prompt + max_new_tokens)",
                      typed, v);
        else if (!strcmp(v, "draft"))
            kvp__note(&o->warnings,
                      "%s %s: kvplan plans the generate runner (its sampler warm-up and decode "
                      "admission); the %s runner's memory is not modelled",
                      typed, v, v);
        return KVP_OK;
    case O_LANGUAGE_MODEL_ONLY: ss->language_model_only = flag == 1; return KVP_OK;
    case O_SKIP_MM_PROFILING: ss->skip_mm_profiling = flag == 1; return KVP_OK;
    case O_COUNT: break;
    }
    return bad(err, typed, "%s: no setter", typed);
}

kvp_status kvp_options_set(kvp_options *o, const char *name, const char *value, kvp_error *err) {
    if (!o || !name) return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "kvp_options_set: no options or name");
    size_t sp = 0;
    const kvp_option *r = kvp_option_lookup(name, &sp);
    if (!r) {
        kvp__fail(err, KVP_NOT_FOUND, NULL, NULL, "unknown option '%s'", name);
        if (err) kvp__strlcpy(err->key, name, sizeof err->key);
        return KVP_NOT_FOUND;
    }
    const char *typed = name;
    if (o->given[r->id] && !r->repeats) {
        if (!strcmp(o->typed[r->id], name))
            return bad(err, typed, "%s given twice", typed);
        return bad(err, typed, "%s contradicts %s: both set %s; give one", typed, o->typed[r->id],
                   r->field);
    }
    int flag = 1;
    if (r->type == KVP_OPTION_FLAG) {
        bool negate = sp && r->spellings[sp - 1].negate;
        if (value) {
            int b = bool_word(value);
            if (b < 0) return bad(err, typed, "%s: '%s' is not true or false", typed, value);
            flag = b;
        }
        if (negate) flag = !flag;
    } else if (!value && !r->value_optional) {
        return bad(err, typed, "%s needs a value", typed);
    }
    kvp_status st = apply(o, r, typed, value, flag, err);
    if (st) return st;
    o->given[r->id] = (unsigned char)(sp + 1);
    kvp__strlcpy(o->typed[r->id], name, sizeof o->typed[r->id]);
    /* An engine's own spelling chooses that engine (kvp_options_finish). */
    unsigned eng = sp ? r->spellings[sp - 1].engines : 0;
    if (!eng && r->engines != KVP_OPTION_ENGINES_ALL && (r->engines & (r->engines - 1)) == 0)
        eng = r->engines; /* a row of one engine (--ctx-size, --max-batch-size) */
    if (eng && (eng & (eng - 1)) == 0 && !o->engine_implied) {
        o->engine_implied = true;
        kvp__strlcpy(o->implied_by, name, sizeof o->implied_by);
    }
    return KVP_OK;
}

/* ------------------------------------------------------------------ finish */

/* The one engine a given spelling belongs to, -1 when it is kvplan's or several engines'. */
static int spelling_engine(const kvp_options *o, size_t id) {
    const kvp_option *r = &kvp__options[id];
    size_t sp = o->given[id] ? o->given[id] - 1u : 0;
    unsigned eng = sp ? r->spellings[sp - 1].engines : 0;
    if (!eng && r->engines != KVP_OPTION_ENGINES_ALL) eng = r->engines;
    if (!eng || (eng & (eng - 1)) != 0) return -1;
    for (int e = 0; e < KVP_ENGINE_COUNT; e++)
        if (eng == KVP_OPTION_ENGINE(e)) return e;
    return -1;
}

kvp_status kvp_engine_version_check(kvp_engine engine, const char *v, kvp_error *err) {
    kvp_engine_release rel;
    return kvp_engine_release_resolve(engine, v, &rel, err);
}

/* The engine's title from the one list (kvplan/engines.def). */
static const char *engine_title(int e) { return kvp__engine_title((kvp_engine)e); }

kvp_status kvp_options_finish(kvp_options *o, kvp_error *err) {
    kvp_deployment *d = &o->deployment;
    /* The engine: --policy, else the one engine whose own spellings were used. */
    int chosen = -1;
    size_t chosen_by = 0;
    for (size_t id = 0; id < O_COUNT; id++) {
        if (!o->given[id]) continue;
        int e = spelling_engine(o, id);
        if (e < 0) continue;
        if (chosen < 0) {
            chosen = e;
            chosen_by = id;
        } else if (e != chosen && !o->engine_given && !o->engines_vary) {
            return bad(err, o->typed[id],
                       "%s is %s's flag and %s is %s's: give --policy to say which engine",
                       o->typed[chosen_by], engine_title(chosen), o->typed[id], engine_title(e));
        }
    }
    if (o->engines_vary) chosen = -1;
    /* TensorRT-LLM is the default: its own flags choose nothing new, so nothing to say. */
    if (!o->engine_given && chosen >= 0 && chosen != (int)KVP_ENGINE_TRTLLM) {
        d->point.engine = d->policy.engine = (kvp_engine)chosen;
        kvp__note(&o->notes, "planning for %s (policy %s): %s is %s's flag; give --policy to choose another",
             engine_title(chosen), kvp_engine_name((kvp_engine)chosen), o->typed[chosen_by],
             engine_title(chosen));
    }
    d->policy.engine = d->point.engine;
    kvp_engine eng = d->point.engine;

    /* Contradictions name both sides. */
    if (o->gpu && o->given[O_GPU_MEM])
        return bad(err, o->typed[O_GPU_MEM], "%s contradicts %s: give --gpu or --gpu-mem, not both",
                   o->typed[O_GPU], o->typed[O_GPU_MEM]);
    if (o->given[O_PEAK] && o->given[O_ACTIVATION_PEAK])
        return bad(err, o->typed[O_ACTIVATION_PEAK],
                   "%s contradicts %s: the peak with weights or without them, not both",
                   o->typed[O_PEAK], o->typed[O_ACTIVATION_PEAK]);
    /* The planned length inside the context it plans: both given, named as typed
     * (the pipeline's check names fields, for a length that came from the model). */
    if (o->given[O_SEQ_LEN] && o->given[O_MAX_SEQ_LEN] && d->point.max_seq_len &&
        d->point.seq_len > d->point.max_seq_len)
        return bad(err, o->typed[O_SEQ_LEN], "%s %llu is longer than %s %llu", o->typed[O_SEQ_LEN],
                   (unsigned long long)d->point.seq_len, o->typed[O_MAX_SEQ_LEN],
                   (unsigned long long)d->point.max_seq_len);
    if (o->given[O_ENGINE_VERSION]) {
        /* The release line that governs the release (engines/versions.c); one past
         * the newest kvplan read is planned with the newest line, and said. */
        kvp_error e;
        kvp_engine_release rel;
        if (kvp_engine_release_resolve(eng, d->policy.engine_version, &rel, &e) != KVP_OK)
            return bad(err, o->typed[O_ENGINE_VERSION], "%s%s", o->typed[O_ENGINE_VERSION],
                       e.message + strlen("engine_version"));
        if (eng == KVP_ENGINE_TRTLLM)
            d->trtllm.trtllm_rules =
                strcmp(rel.line, "2025") == 0 ? KVP_TRTLLM_RULES_2025 : KVP_TRTLLM_RULES_2026;
        if (rel.newer_than_known && !o->engines_vary)
            kvp__note(&o->warnings,
                      "%s %s is newer than the newest %s release kvplan knows; planned with the "
                      "rules of its newest line (%s)",
                      o->typed[O_ENGINE_VERSION], d->policy.engine_version, engine_title((int)eng),
                      rel.line);
    }

    /* A setting means one thing under every engine (engine_reads.c): given
     * directly, one with no meaning under the chosen engine is refused naming
     * both, never dropped silently. A pasted engine command's flags are that
     * engine's own: one its engine does not read is said, as before. */
    for (size_t id = 0; id < O_COUNT; id++) {
        const kvp_option *r = &kvp__options[id];
        if (!o->given[id]) continue;
        if (o->engines_vary) {
            /* Several engines planned (compare, sweep --over policy): an option
             * none of them reads is the same exit 2 as under one engine; one
             * that some do not read is said for each of those (issue 29). */
            if (o->pasted[id] || !o->engines_planned) continue;
            char why[KVP_ERROR_MESSAGE_MAX / 2];
            size_t wl = 0;
            bool read = false;
            why[0] = '\0';
            for (int e = 0; e < KVP_ENGINE_COUNT; e++) {
                if (!(o->engines_planned & KVP_OPTION_ENGINE(e))) continue;
                const kvp_option_meaning *m = kvp_option_meaning_for(r, (kvp_engine)e);
                if (!m || m->reads) {
                    read = true;
                    continue;
                }
                int w = snprintf(why + wl, sizeof why - wl, "%s%s: %s", wl ? "; " : "",
                                 engine_title(e), m->text);
                if (w > 0) wl = (size_t)w < sizeof why - wl ? wl + (size_t)w : sizeof why - 1;
            }
            if (!read)
                return bad(err, o->typed[id], "%s has no meaning under any engine planned (%s)",
                           o->typed[id], why);
            for (int e = 0; e < KVP_ENGINE_COUNT; e++) {
                if (!(o->engines_planned & KVP_OPTION_ENGINE(e))) continue;
                const kvp_option_meaning *m = kvp_option_meaning_for(r, (kvp_engine)e);
                if (m && !m->reads)
                    kvp__note(&o->notes, "%s is not read under %s (policy %s): %s", o->typed[id],
                              engine_title(e), kvp_engine_name((kvp_engine)e), m->text);
            }
            continue;
        }
        if (o->pasted[id]) {
            if (!(r->engines & KVP_OPTION_ENGINE(eng)))
                kvp__note(&o->warnings, "%s is not a %s setting; policy %s does not read it",
                          o->typed[id], engine_title((int)eng), kvp_engine_name(eng));
            continue;
        }
        const kvp_option_meaning *m = kvp_option_meaning_for(r, eng);
        if (m && !m->reads)
            return bad(err, o->typed[id], "%s has no meaning under %s (policy %s): %s",
                       o->typed[id], engine_title((int)eng), kvp_engine_name(eng), m->text);
    }
    /* TensorRT-LLM settings that live inside a section another option opens: alone
     * they change nothing (issue 29: an option that needs another). Draft layers
     * and the draft length are speculative_config's (the creator's
     * num_extra_kv_tokens, EAGLE layers, a draft model's own cache); the
     * compression quant and TriAttention's union eviction belong to the KV-cache
     * compression algorithm. */
    static const struct {
        int id, need1, need2;
        const char *what;
    } k_needs[] = {
        {O_NUM_DRAFT_LAYERS, O_SPEC_MODE, O_DRAFT,
         "a speculative method (--spec-mode, or --draft MODEL): without one no draft layer is "
         "in the cache"},
        {O_MAX_DRAFT_LEN, O_SPEC_MODE, O_DRAFT,
         "a speculative method (--spec-mode, or --draft MODEL): without one no draft token is "
         "reserved"},
        {O_SEPARATE_DRAFT_KV, O_SPEC_MODE, O_DRAFT,
         "a speculative method (--spec-mode, or --draft MODEL): without one there is no draft "
         "KV cache to separate"},
        {O_COMPRESSION_QUANT, O_KV_CACHE_COMPRESSION, O_KV_CACHE_COMPRESSION,
         "--kv-cache-compression: the quant is its algorithm's setting"},
        {O_TRIATTENTION_UNION_EVICTION, O_KV_CACHE_COMPRESSION, O_KV_CACHE_COMPRESSION,
         "--kv-cache-compression triattention: union eviction is its setting"},
    };
    for (size_t k = 0; eng == KVP_ENGINE_TRTLLM && !o->engines_vary &&
                       k < sizeof k_needs / sizeof k_needs[0];
         k++) {
        int id = k_needs[k].id;
        if (o->given[id] && !o->pasted[id] && !o->given[k_needs[k].need1] &&
            !o->given[k_needs[k].need2])
            return bad(err, o->typed[id], "%s needs %s under TensorRT-LLM", o->typed[id],
                       k_needs[k].what);
    }
    /* llama.cpp: -c is the context of all slots, --max-seq-len one request's. */
    if (eng == KVP_ENGINE_LLAMACPP && o->given[O_CTX_SIZE] && o->given[O_MAX_SEQ_LEN])
        return bad(err, o->typed[O_MAX_SEQ_LEN],
                   "%s contradicts %s: both set the context (%s: all slots, %s: one request); "
                   "give one", o->typed[O_MAX_SEQ_LEN], o->typed[O_CTX_SIZE], o->typed[O_CTX_SIZE],
                   o->typed[O_MAX_SEQ_LEN]);

    /* SGLang: --max-num-batched-tokens is its chunked_prefill_size (the chunk of
     * one prefill forward, ServerArgs): the two flags are one setting, so two
     * different values contradict each other (the same value twice is one
     * statement). */
    if (eng == KVP_ENGINE_SGLANG && o->given[O_CHUNKED_PREFILL_SIZE] &&
        o->given[O_MAX_NUM_BATCHED_TOKENS] &&
        (d->policy.chunked_prefill_size < 0 ||
         (uint64_t)d->policy.chunked_prefill_size != d->policy.max_num_batched_tokens))
        return bad(err, o->typed[O_MAX_NUM_BATCHED_TOKENS],
                   "%s contradicts %s: under SGLang both are chunked_prefill_size (%lld and "
                   "%llu); give one", o->typed[O_MAX_NUM_BATCHED_TOKENS],
                   o->typed[O_CHUNKED_PREFILL_SIZE], (long long)d->policy.chunked_prefill_size,
                   (unsigned long long)d->policy.max_num_batched_tokens);

    /* The weights format (--quantization) the memory estimate reads. */
    d->memory.quantization = o->startup.quantization[0] ? o->startup.quantization : NULL;
    /* The start-up settings see the same deployment. */
    o->startup.policy = d->policy;
    o->startup.policy.total_memory_bytes = d->memory.total_bytes;
    return KVP_OK;
}
