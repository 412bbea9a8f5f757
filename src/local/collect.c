/*
 * collect.c — collect_model_local_kv_specs() over a module tree held as data,
 * and the report it produces (seed "Finding the declarers", "What is and is
 * not already accounted for").
 *
 * Walk order mirrors torch's named_modules(): a module, then (one explicit
 * hop) the owners it holds that are not submodules, then its children depth
 * first. The runner's model may be a CUDA-graph wrapper that forwards
 * attribute access to its runnable; entering through both would run a
 * root-level declarer twice, so the wrapper is unwrapped first.
 *
 * A declarer that raises is recorded and skipped with all of its entries (as
 * the seed's collector logs and moves on); the rest of the tree still counts.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "embedded.h"
#include "local_internal.h"

/* ------------------------------------------------------------ string arena */

/* The report owns copies of every string it hands out; one arena frees them
 * all and keeps pointers stable while the entry arrays grow. */
typedef struct arena_block {
    struct arena_block *next;
    size_t used, cap;
    char data[];
} arena_block;

struct kvp_local_report {
    kvp_allocator alc;
    bool has_alc;
    arena_block *arena;
    const char *model;
    kvp_local_deployment dep;
    kvp_local_totals totals;
    kvp_local_entry *entries;
    size_t entry_count, entry_cap;
    kvp_local_inert *inert;
    size_t inert_count, inert_cap;
    kvp_local_failure *failures;
    size_t failure_count, failure_cap;
};

static const kvp_allocator *ralc(const kvp_local_report *r) { return r->has_alc ? &r->alc : NULL; }

static const char *rstr(kvp_local_report *r, const char *s) {
    if (!s) s = "";
    size_t n = strlen(s) + 1;
    arena_block *b = r->arena;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > 4096 ? n : 4096;
        b = kvp__malloc(ralc(r), sizeof *b + cap);
        if (!b) return NULL;
        b->next = r->arena;
        b->used = 0;
        b->cap = cap;
        r->arena = b;
    }
    char *dst = b->data + b->used;
    memcpy(dst, s, n);
    b->used += n;
    return dst;
}

/* Grow an array of `elem` bytes to hold one more; false on NOMEM. */
static bool grow(kvp_local_report *r, void **arr, size_t *cap, size_t count, size_t elem) {
    if (count < *cap) return true;
    size_t ncap = *cap ? *cap * 2 : 8;
    void *n = kvp__realloc(ralc(r), *arr, ncap * elem);
    if (!n) return false;
    *arr = n;
    *cap = ncap;
    return true;
}

void kvp_local_report_free(kvp_local_report *r) {
    if (!r) return;
    kvp_allocator copy;
    const kvp_allocator *alc = NULL;
    if (r->has_alc) {
        copy = r->alc;
        alc = &copy;
    }
    for (arena_block *b = r->arena; b;) {
        arena_block *next = b->next;
        kvp__free(alc, b);
        b = next;
    }
    kvp__free(alc, r->entries);
    kvp__free(alc, r->inert);
    kvp__free(alc, r->failures);
    kvp__free(alc, r);
}

const char *kvp_local_report_model(const kvp_local_report *r) { return r->model; }
const kvp_local_deployment *kvp_local_report_deployment(const kvp_local_report *r) {
    return &r->dep;
}
const kvp_local_totals *kvp_local_report_totals(const kvp_local_report *r) { return &r->totals; }
size_t kvp_local_report_entry_count(const kvp_local_report *r) { return r->entry_count; }
const kvp_local_entry *kvp_local_report_entry(const kvp_local_report *r, size_t i) {
    return i < r->entry_count ? &r->entries[i] : NULL;
}
size_t kvp_local_report_inert_count(const kvp_local_report *r) { return r->inert_count; }
const kvp_local_inert *kvp_local_report_inert(const kvp_local_report *r, size_t i) {
    return i < r->inert_count ? &r->inert[i] : NULL;
}
size_t kvp_local_report_failure_count(const kvp_local_report *r) { return r->failure_count; }
const kvp_local_failure *kvp_local_report_failure(const kvp_local_report *r, size_t i) {
    return i < r->failure_count ? &r->failures[i] : NULL;
}

void kvp_local_budget_effect(const kvp_local_report *r, bool memory_measured,
                             uint64_t *out_add_to_predicted_peak_bytes,
                             uint64_t *out_risk_bytes) {
    uint64_t add = 0, risk = 0;
    if (r) {
        /* Measured: the graph-resident part is in the sampled peak already;
         * adding or subtracting it again would double-count. */
        add = memory_measured ? 0 : r->totals.charged_bytes;
        risk = r->totals.not_charged_bytes;
    }
    if (out_add_to_predicted_peak_bytes) *out_add_to_predicted_peak_bytes = add;
    if (out_risk_bytes) *out_risk_bytes = risk;
}

/* ------------------------------------------------------------ the walk */

typedef struct walker {
    const kvp_local_decls *ds;
    const kvp_local_deployment *dep;
    kvp_local_report *r;
    kvp_error *err;
    kvp__local_configs configs; /* the hf_configs opened, once each */
} walker;

static kvp_status nomem(walker *w) {
    return kvp__fail(w->err, KVP_NOMEM, w->ds->source, NULL, "out of memory");
}

/* Why a declaration is inert for this deployment, or NULL when it is live;
 * `met` gets the conditions it satisfied. */
static const char *inert_reason(const kvp__local_decl *d, const kvp_local_deployment *dep,
                                char *buf, size_t size, char *met, size_t met_size) {
    const int8_t want[] = {d->when.async_chunk, d->when.streaming, d->when.enforce_eager};
    const bool have[] = {dep->async_chunk, dep->streaming, dep->enforce_eager};
    static const char *const names[] = {"async_chunk", "streaming", "enforce_eager"};
    met[0] = '\0';
    for (size_t i = 0; i < 3; i++) {
        if (want[i] < 0) continue;
        if ((want[i] == 1) != have[i]) {
            snprintf(buf, size, "declared only with %s %s (this deployment has it %s)", names[i],
                     want[i] ? "on" : "off", have[i] ? "on" : "off");
            return buf;
        }
        size_t used = strlen(met);
        snprintf(met + used, met_size - used, "%s%s %s", used ? ", " : "", names[i],
                 want[i] ? "on" : "off");
    }
    return NULL;
}

static kvp_status add_failure(walker *w, const char *owner, const char *name, kvp_status code,
                              const char *message) {
    kvp_local_report *r = w->r;
    if (!grow(r, (void **)&r->failures, &r->failure_cap, r->failure_count, sizeof *r->failures))
        return nomem(w);
    kvp_local_failure *f = &r->failures[r->failure_count];
    f->owner = rstr(r, owner);
    f->name = rstr(r, name);
    f->message = rstr(r, message);
    f->code = code;
    if (!f->owner || !f->name || !f->message) return nomem(w);
    r->failure_count++;
    return KVP_OK;
}

/* Size one live declaration into *e (strings not yet copied). */
static kvp_status size_entry(walker *w, const kvp__local_decl *d, kvp_local_entry *e,
                             char *formula, size_t formula_size, kvp__local_geometry *g) {
    kvp_status st = kvp__local_positions(d, w->ds->source, &e->positions, formula, formula_size,
                                         w->err);
    if (st) return st;
    if ((st = kvp__local_resolve_geometry(w->ds, d, &w->configs, g, w->err))) return st;
    if ((st = kvp_local_bytes_per_row(g->layers, g->kv_heads, g->head_dim, e->positions,
                                      g->element_bytes, &e->bytes_per_row, w->err))) {
        /* Re-word with the declaration and the field it came from. */
        char msg[KVP_ERROR_MESSAGE_MAX];
        kvp__strlcpy(msg, w->err ? w->err->message : "overflow", sizeof msg);
        char kp[KVP_ERROR_KEY_MAX];
        snprintf(kp, sizeof kp, "%s/geometry", d->pointer);
        return kvp__fail(w->err, st, w->ds->source, kp, "declaration '%s': %s", d->name, msg);
    }
    return KVP_OK;
}

/* Run one module's declarer; `owner` is its path as the walk reached it. */
static kvp_status run_declarer(walker *w, const kvp__local_module *m, const char *owner) {
    kvp_local_report *r = w->r;
    if (!m->is_declarer) return KVP_OK;
    if (m->fails)
        return add_failure(w, owner, "", KVP_CONFIG, m->fails);
    size_t first_entry = r->entry_count, first_inert = r->inert_count;
    for (size_t k = 0; k < m->decl_count; k++) {
        const kvp__local_decl *d = &w->ds->decls[m->decl_first + k];
        char why[160], met[160];
        const char *reason = inert_reason(d, w->dep, why, sizeof why, met, sizeof met);
        if (reason) {
            /* Declaring nothing is valid: the path that would allocate is off. */
            if (!grow(r, (void **)&r->inert, &r->inert_cap, r->inert_count, sizeof *r->inert))
                return nomem(w);
            kvp_local_inert *in = &r->inert[r->inert_count];
            in->name = rstr(r, d->name);
            in->owner = rstr(r, owner);
            in->reason = rstr(r, reason);
            if (!in->name || !in->owner || !in->reason) return nomem(w);
            r->inert_count++;
            continue;
        }
        kvp_local_entry e;
        memset(&e, 0, sizeof e);
        char formula[160];
        kvp__local_geometry g;
        kvp_error local_err;
        kvp_error *saved = w->err;
        w->err = &local_err;
        kvp_status st = size_entry(w, d, &e, formula, sizeof formula, &g);
        w->err = saved;
        if (st == KVP_NOMEM) return kvp__fail(w->err, st, w->ds->source, NULL, "out of memory");
        /* A size past 64 bits is no declarer raising: the declaration is absurd, and
         * skipping it would report its cache as 0 B. */
        if (st == KVP_OVERFLOW) {
            if (w->err) *w->err = local_err;
            return st;
        }
        if (st) {
            /* The declarer raised: drop what it produced so far and move on. */
            r->entry_count = first_entry;
            r->inert_count = first_inert;
            return add_failure(w, owner, d->name, st, local_err.message);
        }
        e.rows = d->row_driver == KVP_LOCAL_ROWS_FIXED ? d->rows_fixed : w->dep->max_num_seqs;
        if (!kvp__mul_u64(e.bytes_per_row, e.rows, &e.total_bytes))
            return kvp__fail(w->err, KVP_OVERFLOW, w->ds->source,
                             d->row_driver == KVP_LOCAL_ROWS_FIXED ? d->pointer : "max_num_seqs",
                             "declaration '%s': %llu B per row * %llu rows (%s) does not fit in "
                             "64 bits",
                             d->name, (unsigned long long)e.bytes_per_row,
                             (unsigned long long)e.rows, kvp_local_row_driver_name(d->row_driver));
        e.via_hop = m->is_hop;
        e.kind = d->kind;
        e.bound = d->bound;
        e.layers = g.layers;
        e.kv_heads = g.kv_heads;
        e.head_dim = g.head_dim;
        e.element_bytes = g.element_bytes;
        e.dtype = g.dtype;
        e.row_driver = d->row_driver;
        e.scope = d->scope;
        /* Only what exists when the engine samples its peak is charged. */
        e.charged = d->scope == KVP_LOCAL_SCOPE_GRAPH_RESIDENT;
        e.name = rstr(r, d->name);
        e.owner = rstr(r, owner);
        e.bound_formula = rstr(r, formula);
        e.geometry_source = rstr(r, g.source);
        e.rows_reason = rstr(r, d->rows_reason);
        e.exclusive_group = rstr(r, d->exclusive_group);
        e.condition = rstr(r, met);
        e.allocation_note = rstr(r, d->allocation_note);
        e.capacity_source = rstr(r, d->capacity_source);
        if (!e.name || !e.owner || !e.bound_formula || !e.geometry_source || !e.rows_reason ||
            !e.exclusive_group || !e.condition || !e.allocation_note || !e.capacity_source)
            return nomem(w);
        if (!grow(r, (void **)&r->entries, &r->entry_cap, r->entry_count, sizeof *r->entries))
            return nomem(w);
        r->entries[r->entry_count++] = e;
    }
    return KVP_OK;
}

static kvp_status join_path(walker *w, const char *prefix, const char *path, char **out) {
    size_t n = strlen(prefix) + strlen(path) + 2;
    *out = kvp__malloc(ralc(w->r), n);
    if (!*out) return nomem(w);
    if (prefix[0] && path[0])
        snprintf(*out, n, "%s.%s", prefix, path);
    else
        snprintf(*out, n, "%s%s", prefix, path);
    return KVP_OK;
}

static kvp_status walk(walker *w, size_t index, const char *prefix) {
    const kvp__local_module *m = &w->ds->modules[index];
    char *owner;
    kvp_status st = join_path(w, prefix, m->path, &owner);
    if (st) return st;
    st = run_declarer(w, m, owner);
    kvp__free(ralc(w->r), owner);
    if (st) return st;
    /* One explicit hop: the held owner's declarer, nothing beyond it. */
    for (size_t i = 0; i < m->hold_count; i++) {
        const kvp__local_module *h = &w->ds->modules[m->holds[i]];
        if ((st = join_path(w, prefix, h->path, &owner))) return st;
        st = run_declarer(w, h, owner);
        kvp__free(ralc(w->r), owner);
        if (st) return st;
    }
    for (size_t i = 0; i < m->child_count; i++)
        if ((st = walk(w, m->children[i], prefix))) return st;
    return KVP_OK;
}

kvp_status kvp__local_collect_ex(const kvp_local_decls *ds, const kvp_local_deployment *dep,
                                 bool unwrap_wrapper, const kvp_allocator *alc,
                                 kvp_local_report **out, kvp_error *err) {
    if (out) *out = NULL;
    if (!ds || !dep || !out)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "NULL declarations, deployment or out");
    if (dep->max_num_seqs == 0)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "max_num_seqs",
                         "max_num_seqs must be at least 1, found 0");
    kvp_local_report *r = kvp__calloc(alc, 1, sizeof *r);
    if (!r) return kvp__fail(err, KVP_NOMEM, ds->source, NULL, "out of memory");
    if (alc) {
        r->alc = *alc;
        r->has_alc = true;
    }
    r->dep = *dep;
    walker w = {ds, dep, r, err, {kvp__local_decls_alc(ds), NULL, 0, 0}};
    kvp_status st = KVP_OK;
    r->model = rstr(r, ds->model);
    if (!r->model) st = nomem(&w);
    if (!st && ds->has_wrapper && !unwrap_wrapper) {
        /* What the seed warns about: the wrapper forwards attribute access,
         * so its "declarer" is the runnable's root declarer, and walking it
         * then enters the runnable again as a submodule. */
        st = run_declarer(&w, &ds->modules[ds->root], "");
        if (!st) st = walk(&w, ds->root, "runnable");
    } else if (!st) {
        st = walk(&w, ds->root, "");
    }
    kvp__local_configs_free(&w.configs);
    if (!st) {
        kvp_local_totals *t = &r->totals;
        t->max_num_seqs = dep->max_num_seqs;
        for (size_t i = 0; i < r->entry_count && !st; i++) {
            const kvp_local_entry *e = &r->entries[i];
            uint64_t *part = e->charged ? &t->charged_bytes : &t->not_charged_bytes;
            if (!kvp__add_u64(t->total_bytes, e->total_bytes, &t->total_bytes) ||
                !kvp__add_u64(*part, e->total_bytes, part))
                st = kvp__fail(err, KVP_OVERFLOW, ds->source, "max_num_seqs",
                               "the sum of model-local caches does not fit in 64 bits (at "
                               "declaration '%s')",
                               e->name);
            /* Count each exclusive group once, at its first member, if it has another. */
            if (!e->exclusive_group[0]) continue;
            bool first = true, other = false;
            for (size_t j = 0; j < r->entry_count; j++) {
                if (j == i || strcmp(r->entries[j].exclusive_group, e->exclusive_group) != 0)
                    continue;
                other = true;
                if (j < i) first = false;
            }
            if (first && other) t->exclusive_groups++;
        }
    }
    if (st) {
        kvp_local_report_free(r);
        return st;
    }
    *out = r;
    return KVP_OK;
}

kvp_status kvp_local_collect(const kvp_local_decls *decls, const kvp_local_deployment *dep,
                             const kvp_allocator *alc, kvp_local_report **out, kvp_error *err) {
    return kvp__local_collect_ex(decls, dep, true, alc, out, err);
}

/* ------------------------------------------------------------ embedded files */

#define LOCAL_PREFIX "local/"

static bool is_local_file(const kvp__embedded_file *f) {
    size_t n = strlen(f->path), pl = strlen(LOCAL_PREFIX);
    return strncmp(f->path, LOCAL_PREFIX, pl) == 0 && n > pl + 5 &&
           strcmp(f->path + n - 5, ".json") == 0;
}

size_t kvp_local_model_count(void) {
    size_t n = 0;
    for (size_t i = 0; i < kvp__embedded_count; i++)
        if (is_local_file(&kvp__embedded_files[i])) n++;
    return n;
}

static const kvp__embedded_file *local_file_at(size_t index) {
    for (size_t i = 0; i < kvp__embedded_count; i++) {
        if (!is_local_file(&kvp__embedded_files[i])) continue;
        if (index-- == 0) return &kvp__embedded_files[i];
    }
    return NULL;
}

const char *kvp_local_model_name(size_t index, char *buf, size_t size) {
    const kvp__embedded_file *f = local_file_at(index);
    if (!f || !buf) return NULL;
    const char *stem = f->path + strlen(LOCAL_PREFIX);
    size_t n = strlen(stem) - 5;
    if (n + 1 > size) return NULL;
    memcpy(buf, stem, n);
    buf[n] = '\0';
    return buf;
}

/* Does the file's "model" or one of its "aliases" equal `name`? A file that
 * does not parse never matches here; loading it by stem reports why. */
static bool file_names(const kvp__embedded_file *f, const char *name) {
    json_t *root = json_loadb(f->data, f->size, 0, NULL);
    if (!root) return false;
    bool hit = false;
    json_t *m = json_object_get(root, "model");
    if (json_is_string(m) && kvp__strcasecmp(json_string_value(m), name) == 0) hit = true;
    json_t *aliases = json_object_get(root, "aliases");
    for (size_t i = 0; !hit && i < json_array_size(aliases); i++) {
        json_t *a = json_array_get(aliases, i);
        if (json_is_string(a) && kvp__strcasecmp(json_string_value(a), name) == 0) hit = true;
    }
    json_decref(root);
    return hit;
}

kvp_status kvp_local_decls_load_named(const char *model_name, const kvp_allocator *alc,
                                      kvp_local_decls **out, kvp_error *err) {
    if (out) *out = NULL;
    if (!model_name || !*model_name || !out)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "MODEL", "empty model name");
    const kvp__embedded_file *hit = NULL;
    size_t n = kvp_local_model_count();
    char stem[160];
    for (size_t i = 0; i < n && !hit; i++)
        if (kvp_local_model_name(i, stem, sizeof stem) && kvp__strcasecmp(stem, model_name) == 0)
            hit = local_file_at(i);
    for (size_t i = 0; i < n && !hit; i++)
        if (file_names(local_file_at(i), model_name)) hit = local_file_at(i);
    if (!hit) {
        char list[512] = "";
        for (size_t i = 0; i < n; i++) {
            if (!kvp_local_model_name(i, stem, sizeof stem)) continue;
            size_t used = strlen(list);
            snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", stem);
        }
        return kvp__fail(err, KVP_NOT_FOUND, NULL, model_name,
                         "model declares no local KV caches (models with declarations: %s)", list);
    }
    return kvp_local_decls_from_json(hit->data, hit->size, hit->path, alc, out, err);
}

kvp_status kvp_local_report_for(const char *model_name, const kvp_local_deployment *dep,
                                const kvp_allocator *alc, kvp_local_report **out, kvp_error *err) {
    if (out) *out = NULL;
    kvp_local_decls *ds = NULL;
    kvp_status st = kvp_local_decls_load_named(model_name, alc, &ds, err);
    if (st) return st;
    st = kvp_local_collect(ds, dep, alc, out, err);
    kvp_local_decls_free(ds);
    return st;
}

kvp_status kvp__local_plan_effect(const char *name, const kvp_local_deployment *dep, bool estimated,
                                  bool measured, kvp_local_report **out, uint64_t *peak,
                                  uint64_t *risk, char warn[2][KVP__LOCAL_WARN_MAX], size_t *n_warn,
                                  kvp_error *err) {
    *n_warn = 0;
    kvp_status st = kvp_local_report_for(name, dep, NULL, out, err);
    if (st != KVP_OK) return st;
    kvp_local_budget_effect(*out, measured, peak, risk);
    if (estimated && *peak)
        snprintf(warn[(*n_warn)++], KVP__LOCAL_WARN_MAX,
                 "model-local graph-resident caches (%.2f MiB) are added to the predicted "
                 "CUDA-graph memory because memory was estimated",
                 (double)*peak / 1048576.0);
    if (*risk) {
        char rb[32];
        snprintf(warn[(*n_warn)++], KVP__LOCAL_WARN_MAX,
                 "model-local per-request caches are NOT charged by profiling: up to %s at "
                 "%llu sequences comes on top of this plan",
                 kvp__fmt_bytes(*risk, rb, sizeof rb), (unsigned long long)dep->max_num_seqs);
    }
    return KVP_OK;
}

kvp_status kvp__local_report_of(const char *model, const char *decl_file,
                                const kvp_local_deployment *dep, kvp_local_report **out,
                                kvp_error *err) {
    kvp_local_decls *decls = NULL;
    kvp_status st = decl_file ? kvp_local_decls_load_file(decl_file, NULL, &decls, err)
                              : kvp_local_decls_load_named(model, NULL, &decls, err);
    if (st) return st;
    const char *declared = kvp_local_decls_model(decls);
    if (decl_file && model && declared && kvp__strcasecmp(declared, model) != 0) {
        /* Keyed "decl" (the file given; the CLI names it --decl). */
        st = kvp__refuse(err, "decl", "local: %s declares model '%s', not '%s'", decl_file,
                         declared, model);
    }
    if (st == KVP_OK) st = kvp_local_collect(decls, dep, NULL, out, err);
    kvp_local_decls_free(decls);
    return st;
}
