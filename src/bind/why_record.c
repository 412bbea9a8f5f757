/* why_record.c — `kvplan why --record FILE`: the case a log makes, in the
 * reference-case format of tests/reference/README.md (inputs, budget_inputs,
 * expect with each figure's rule), so scripts/accuracy.py can replay it.
 * Every text taken from the log is redacted (log_redact.h). */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bind_internal.h"
#include "json_error.h"
#include "log_reader.h"
#include "log_redact.h"
#include "util.h"

/* request key -> case input key (README.md's mapping, read backwards) */
static const char *const k_inputs[][2] = {
    {"policy", "policy"}, {"engine_version", "engine_version"}, {"tp", "tp"}, {"pp", "pp"},
    {"dp", "dp"}, {"kv_dtype", "kv_dtype"}, {"block_size", "block_size"},
    {"max_seq_len", "max_model_len"}, {"gpu_memory_utilization", "gpu_memory_utilization"},
    {"mem_fraction_static", "mem_fraction_static"}, {"ctx_size", "n_ctx"}, {"parallel", "n_seq_max"},
    {"kv_unified", "kv_unified"}, {"cache_type_k", "type_k"}, {"cache_type_v", "type_v"},
    {"swa_full", "swa_full"}, {"flash_attn", "flash_attn"}, {"ubatch_size", "n_ubatch"},
    {"batch_size", "n_batch"}, {"num_draft_layers", "num_draft_kv_layers"},
    {"max_num_seqs", "max_num_seqs"}, {"max_num_batched_tokens", "max_num_batched_tokens"},
    {NULL, NULL}};
static const char *const k_measured[][2] = {
    {"gpu_mem", "total_memory_bytes"}, {"free_mem", "free_memory_at_start_bytes"},
    {"weights", "weights_bytes"}, {"activation_peak", "peak_activation_bytes"},
    {"non_torch", "non_torch_bytes"}, {"cuda_graph", "cudagraph_bytes"}, {NULL, NULL}};

/* "8192" -> 8192, "0.9" -> 0.9, "true" -> true; other text as it is. */
static json_t *typed(const json_t *v) {
    const char *s = json_string_value(v);
    if (!s) return json_incref((json_t *)v);
    if (!strcmp(s, "true")) return json_true();
    if (!strcmp(s, "false")) return json_false();
    char *e;
    long long i = strtoll(s, &e, 10);
    if (*s && !*e) return json_integer(i);
    double d = strtod(s, &e);
    if (*s && !*e) return json_real(d);
    return json_string(s);
}

/* A redacted log text as JSON: bytes that are not UTF-8 as '?'. */
static json_t *jtext(const char *s) {
    json_t *j = json_string(s);
    if (j) return j;
    char t[KVP_LOG_KEEP + 64];
    kvp__strlcpy(t, s, sizeof t);
    for (char *p = t; *p; p++)
        if ((unsigned char)*p >= 0x80) *p = '?';
    j = json_string(t);
    return j ? j : json_null();
}

static const char *lookup(const char *const map[][2], const char *key) {
    for (size_t i = 0; map[i][0]; i++)
        if (!strcmp(map[i][0], key)) return map[i][1];
    return NULL;
}

kvp_status kvp__why_record_text(const kvp__why_request *w, const char *doc_text, char **out,
                                kvp_error *err) {
    *out = NULL;
    json_t *doc = json_loads(doc_text, 0, NULL);
    if (!doc) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
    const kvp_log *log = w->log;
    json_t *c = json_object();
    char red[KVP_LOG_KEEP + 64];
    const char *engine = json_string_value(json_object_get(doc, "engine"));
    json_object_set_new(c, "id", json_sprintf("why-%s", engine));
    json_object_set_new(c, "set", json_string("local"));
    json_object_set_new(c, "source", json_string("kvplan why --record (redacted)"));
    kvp__log_redact(log->model, red, sizeof red);
    json_object_set_new(c, "model", log->model[0] ? jtext(red) : json_null());
    /* the config: a catalogue file by its name under data/models, else the redacted path */
    const json_t *model = json_object_get(doc, "model");
    const char *cfg = json_string_value(json_object_get(model, "config"));
    kvp_model *m = NULL;
    kvp_error e;
    json_t *config = json_object();
    char file[300] = "";
    if (cfg && kvp_model_from_catalog(cfg, NULL, &m, &e) == KVP_OK) {
        snprintf(file, sizeof file, "%s.json", kvp_model_name(m));
        for (char *p = file; *p; p++)
            if (*p == '/') *p = '_', memmove(p + 1, p, strlen(p) + 1), p++;
    } else if (cfg && strrchr(cfg, '/') && strstr(cfg, "__")) {
        /* a file named as the catalogue's (data/models/ORG__NAME.json) */
        const char *base = strrchr(cfg, '/') + 1;
        char id[300];
        kvp__strlcpy(id, base, sizeof id);
        char *us = strstr(id, "__"), *dot = strstr(id, ".json");
        if (us && dot) {
            *dot = '\0';
            memmove(us + 1, us + 2, strlen(us + 2) + 1);
            *us = '/';
            kvp_model *cm = NULL;
            if (kvp_model_from_catalog(id, NULL, &cm, &e) == KVP_OK) kvp__strlcpy(file, base, sizeof file);
            kvp_model_free(cm);
        }
    }
    if (file[0]) {
        json_object_set_new(config, "file", json_string(file));
        json_object_set_new(config, "location", json_string("data/models"));
    } else {
        kvp__log_redact(cfg, red, sizeof red);
        json_object_set_new(config, "file", jtext(red));
        json_object_set_new(config, "location", json_string("local: copy it to data/models"));
    }
    kvp_model_free(m);
    json_object_set_new(config, "match", json_string("as given to kvplan why"));
    json_object_set_new(c, "config", config);
    json_object_set_new(c, "geometry", json_null());
    /* inputs from the given-memory runs' options */
    json_t *inputs = json_object(), *budget = json_object();
    const json_t *gmem = json_object_get(doc, "given_memory");
    const json_t *reqs = json_object_get(gmem, "options");
    /* measured terms (budget_inputs): the printed figures x their unit, as the
     * reference cases write them (README.md: bytes = printed GiB x 2^30) */
    static const char *const k_terms[][2] = {
        {"total_bytes", "total_memory_bytes"}, {"free_bytes", "free_memory_at_start_bytes"},
        {"weights_bytes", "weights_bytes"}, {"activation_bytes", "peak_activation_bytes"},
        {"non_torch_bytes", "non_torch_bytes"}, {"cuda_graph_bytes", "cudagraph_bytes"}, {NULL, NULL}};
    bool terms = json_object_get(gmem, "terms_options") ||
                 (json_array_size(reqs) && !json_object_get(json_array_get(reqs, 0), "kv_budget"));
    for (size_t k = 0; terms && k_terms[k][0]; k++) {
        const kvp_log_figure *lf = kvp__log_figure(log, k_terms[k][0], 0);
        uint64_t u = lf ? kvp__log_unit_bytes(lf->unit) : 0;
        if (u) json_object_set_new(budget, k_terms[k][1], kvp__json_u64((uint64_t)llround(lf->value * (double)u)));
    }
    const kvp_log_figure *uf = terms ? kvp__log_figure(log, "gpu_memory_utilization", 0) : NULL;
    if (uf) json_object_set_new(budget, "gpu_memory_utilization", json_real(uf->value));
    size_t i;
    const json_t *r;
    json_array_foreach(reqs, i, r) {
        const char *key;
        const json_t *v;
        json_object_foreach((json_t *)r, key, v) {
            const char *in = lookup(k_inputs, key), *me = lookup(k_measured, key);
            if (!strcmp(key, "kv_budget")) {
                json_object_set_new(inputs, i ? "kv_budget_bytes_hi" : "kv_budget_bytes_lo", typed(v));
            } else if (me) {
                continue;
            } else if (in && !i) {
                json_object_set_new(inputs, in, typed(v));
            }
        }
    }
    if (json_object_size(budget)) {
        json_object_set_new(budget, "formula", json_string("(c): ceil(total*u) - weights - peak_activation - non_torch - cudagraph"));
        json_object_set_new(c, "budget_inputs", budget);
    } else {
        json_decref(budget);
    }
    if (json_object_get(inputs, "kv_budget_bytes_lo"))
        json_object_set_new(inputs, "budget_source", json_string("kvplan why: the printed figure's rounding"));
    json_object_set_new(c, "inputs", inputs);
    /* expect: each output figure the plan has a field for */
    json_t *expect = json_object(), *raw = json_array();
    const json_t *f;
    json_array_foreach(json_object_get(doc, "figures"), i, f) {
        if (strcmp(json_string_value(json_object_get(f, "role")), "output")) continue;
        const char *name = json_string_value(json_object_get(f, "name"));
        const kvp_log_figure *lf = kvp__log_figure(log, name, 0);
        if (!lf || json_object_get(expect, name)) continue;
        kvp__log_redact(lf->line, red, sizeof red);
        json_t *x = json_object();
        json_object_set_new(x, "printed", jtext(red));
        json_object_set(x, "value", json_object_get(f, "logged"));
        json_object_set_new(x, "unit", json_string(lf->unit));
        if (lf->decimals >= 0 || lf->trimmed)
            json_object_set_new(x, "decimals", json_integer(lf->trimmed ? 2 : lf->decimals));
        bool measured = json_object_get(c, "budget_inputs") && !strcmp(name, "available_kv_cache_bytes");
        uint64_t lo, hi;
        if (measured && kvp__log_figure_bytes(lf, &lo, &hi)) {
            /* the printed interval widened by the inputs' rounding: half the spread
             * of kvplan's figure between the two ends of the terms (README.md) */
            const json_t *range = json_object_get(f, "given_memory_range");
            uint64_t u = kvp__log_unit_bytes(lf->unit);
            double spread = json_array_size(range) == 2
                                ? (json_number_value(json_array_get(range, 1)) -
                                   json_number_value(json_array_get(range, 0))) * (double)u
                                : 0.0;
            uint64_t widen = (uint64_t)(spread / 2 + 0.5);
            json_object_set_new(x, "rule", json_string("budget_formula"));
            json_object_set_new(x, "lo_bytes", kvp__json_u64(lo > widen ? lo - widen : 0));
            json_object_set_new(x, "hi_bytes", kvp__json_u64(hi + widen));
        } else {
            json_object_set_new(x, "rule", json_string(json_object_get(inputs, "kv_budget_bytes_lo")
                                                           ? "budget_bracket"
                                                       : lf->decimals >= 0 ? "printed_round"
                                                                           : "exact"));
        }
        json_object_set_new(expect, name, x);
        bool seen = false;
        size_t k;
        const json_t *l;
        json_array_foreach(raw, k, l) seen = seen || !strcmp(json_string_value(l), red);
        if (!seen) json_array_append_new(raw, jtext(red));
    }
    json_object_set_new(c, "raw_lines", raw);
    json_object_set_new(c, "expect", expect);
    json_object_set_new(c, "reproduced", json_boolean(json_array_size(json_object_get(doc, "unreproduced")) == 0));
    json_object_set_new(c, "assumptions", json_array());
    *out = kvp__json_dump(c, JSON_COMPACT | JSON_ENSURE_ASCII, NULL);
    json_decref(c);
    json_decref(doc);
    if (!*out) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
    return KVP_OK;
}
