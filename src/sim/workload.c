/* workload.c — the JSON-lines workload reader.
 *
 * Format: one JSON object per line ('\n' or "\r\n"), blank lines skipped.
 *   arrival        number >= 0    steps, or seconds (options)   default 0
 *   prompt_len     integer >= 1   prompt tokens                 or:
 *   prompt_tokens  [integer ids]  the prompt itself (0 .. 2^32-1)
 *   output_len     integer >= 1   tokens to generate            required
 *   prefix_id      string|integer names a shared prompt head    optional
 *   prefix_len     integer >= 1   its tokens (<= the prompt); required the
 *                                 first time a prefix_id appears, equal after
 * Each line is parsed on its own with jansson, so an error names its line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "sim_internal.h"
#include "json_error.h"

/* ------------------------------------------------------------------ store */
kvp_workload *kvp__workload_new(const kvp_allocator *alc) {
    kvp_workload *w = kvp__calloc(alc, 1, sizeof *w);
    if (!w) return NULL;
    if (alc) {
        w->alc = *alc;
        w->has_alc = true;
    }
    return w;
}

void kvp_workload_free(kvp_workload *w) {
    if (!w) return;
    const kvp_allocator *alc = kvp__workload_alc(w);
    for (uint32_t i = 0; i < w->prefix_count; i++) kvp__free(alc, w->prefixes[i].name);
    for (size_t i = 0; i < w->warning_count; i++) kvp__free(alc, w->warnings[i]);
    kvp__free(alc, w->prefixes);
    kvp__free(alc, w->prefix_map);
    kvp__free(alc, w->requests);
    kvp__free(alc, w->tokens);
    kvp__free(alc, w);
}

kvp_status kvp__workload_push(kvp_workload *w, const kvp_request *r, kvp_error *err) {
    if (w->count >= KVP_WORKLOAD_MAX_REQUESTS)
        return kvp__fail(err, KVP_CONFIG, NULL, "requests", "more than %u requests",
                         KVP_WORKLOAD_MAX_REQUESTS);
    if (w->count == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 1024;
        kvp_request *n = kvp__realloc(kvp__workload_alc(w), w->requests, cap * sizeof *n);
        if (!n) return kvp__fail(err, KVP_NOMEM, NULL, "requests", "out of memory");
        w->requests = n;
        w->cap = cap;
    }
    w->requests[w->count++] = *r;
    return KVP_OK;
}

kvp_status kvp__workload_tokens(kvp_workload *w, uint64_t n, uint64_t *out_offset,
                                kvp_error *err) {
    uint64_t need;
    if (!kvp__add_u64(w->token_count, n, &need) || need > KVP_WORKLOAD_MAX_TOKEN_IDS)
        return kvp__fail(err, KVP_CONFIG, NULL, "prompt_tokens",
                         "the workload names more than %llu token ids (shared prefixes and "
                         "prompt_tokens together: %llu MiB)",
                         (unsigned long long)KVP_WORKLOAD_MAX_TOKEN_IDS,
                         (unsigned long long)(KVP_WORKLOAD_MAX_TOKEN_IDS * 4 >> 20));
    if (need > w->token_cap) {
        uint64_t cap = w->token_cap ? w->token_cap : 4096;
        while (cap < need) cap *= 2;
        uint32_t *t = kvp__realloc(kvp__workload_alc(w), w->tokens, (size_t)cap * sizeof *t);
        if (!t) return kvp__fail(err, KVP_NOMEM, NULL, "prompt_tokens", "out of memory");
        w->tokens = t;
        w->token_cap = cap;
    }
    *out_offset = w->token_count;
    w->token_count = need;
    return KVP_OK;
}

uint32_t kvp__prefix_token(uint32_t prefix_index, uint32_t position) {
    /* splitmix64 finaliser of (index, position): distinct prefixes differ
     * from their first token. */
    uint64_t z = ((uint64_t)prefix_index << 32 | position) + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return (uint32_t)(z ^ (z >> 31));
}

static uint64_t name_hash(const char *s) { /* FNV-1a */
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return h;
}

static kvp_status map_grow(kvp_workload *w, kvp_error *err) {
    uint32_t cap = w->prefix_map ? (w->prefix_map_mask + 1) * 2 : 64;
    uint32_t *m = kvp__malloc(kvp__workload_alc(w), (size_t)cap * sizeof *m);
    if (!m) return kvp__fail(err, KVP_NOMEM, NULL, "prefix_id", "out of memory");
    memset(m, 0xff, (size_t)cap * sizeof *m);
    for (uint32_t i = 0; i < w->prefix_count; i++) {
        if (!w->prefixes[i].name) continue;
        uint32_t s = (uint32_t)name_hash(w->prefixes[i].name) & (cap - 1);
        while (m[s] != UINT32_MAX) s = (s + 1) & (cap - 1);
        m[s] = i;
    }
    kvp__free(kvp__workload_alc(w), w->prefix_map);
    w->prefix_map = m;
    w->prefix_map_mask = cap - 1;
    return KVP_OK;
}

/* Index (0-based) of a named prefix, or UINT32_MAX. */
static uint32_t prefix_find(const kvp_workload *w, const char *name) {
    if (!w->prefix_map) return UINT32_MAX;
    uint32_t s = (uint32_t)name_hash(name) & w->prefix_map_mask;
    for (;;) {
        uint32_t i = w->prefix_map[s];
        if (i == UINT32_MAX || strcmp(w->prefixes[i].name, name) == 0) return i;
        s = (s + 1) & w->prefix_map_mask;
    }
}

kvp_status kvp__workload_add_prefix(kvp_workload *w, char *name, uint32_t tokens,
                                    uint32_t *out_index, kvp_error *err) {
    const kvp_allocator *alc = kvp__workload_alc(w);
    if (w->prefix_count == w->prefix_cap) {
        uint32_t cap = w->prefix_cap ? w->prefix_cap * 2 : 16;
        kvp__prefix *n = kvp__realloc(alc, w->prefixes, (size_t)cap * sizeof *n);
        if (!n) return kvp__fail(err, KVP_NOMEM, NULL, "prefix_id", "out of memory");
        w->prefixes = n;
        w->prefix_cap = cap;
    }
    uint32_t index = w->prefix_count + 1;
    w->prefixes[w->prefix_count] = (kvp__prefix){.name = name, .tokens = tokens};
    w->prefix_count++;
    if (tokens > w->max_prefix_tokens) w->max_prefix_tokens = tokens;
    if (name) {
        if (!w->prefix_map || (uint64_t)w->prefix_count * 2 > (uint64_t)w->prefix_map_mask + 1) {
            kvp_status st = map_grow(w, err);
            if (st) return st;
        } else {
            uint32_t s = (uint32_t)name_hash(name) & w->prefix_map_mask;
            while (w->prefix_map[s] != UINT32_MAX) s = (s + 1) & w->prefix_map_mask;
            w->prefix_map[s] = index - 1;
        }
    }
    *out_index = index;
    return KVP_OK;
}

static int cmp_request(const void *a, const void *b) {
    const kvp_request *x = a, *y = b;
    if (x->arrival_step != y->arrival_step) return x->arrival_step < y->arrival_step ? -1 : 1;
    return (x->line > y->line) - (x->line < y->line);
}

void kvp__workload_sort(kvp_workload *w) {
    for (size_t i = 1; i < w->count; i++)
        if (cmp_request(&w->requests[i - 1], &w->requests[i]) > 0) {
            qsort(w->requests, w->count, sizeof *w->requests, cmp_request);
            return;
        }
}

size_t kvp_workload_count(const kvp_workload *w) {
    return !w ? 0 : w->synthetic ? (size_t)w->spec.requests : w->count;
}

void kvp__cursor_init(kvp__cursor *c, const kvp_workload *w) {
    memset(c, 0, sizeof *c);
    c->w = w;
    if (w && w->synthetic) kvp__synthetic_start(c);
}

bool kvp__cursor_next(kvp__cursor *c, kvp_request *out) {
    const kvp_workload *w = c->w;
    if (!w || c->next >= kvp_workload_count(w)) return false;
    if (w->synthetic) kvp__synthetic_draw(c, out);
    else *out = w->requests[c->next];
    c->next++;
    return true;
}

bool kvp_workload_get(const kvp_workload *w, size_t i, kvp_request *out) {
    if (!w || !out || i >= kvp_workload_count(w)) return false;
    if (!w->synthetic) {
        *out = w->requests[i];
        return true;
    }
    /* Drawn in order: request i is the generator's i-th draw (O(i), for inspection;
     * a simulation reads through a cursor). */
    kvp__cursor c;
    kvp__cursor_init(&c, w);
    while (kvp__cursor_next(&c, out) && c.next <= i) {
    }
    return true;
}

uint32_t kvp_workload_token(const kvp_workload *w, const kvp_request *r, uint32_t position) {
    if (!w || !r || position >= r->explicit_tokens) return 0;
    if (r->prefix_index) return kvp__prefix_token(r->prefix_index, position);
    return w->tokens ? w->tokens[r->token_offset + position] : 0;
}

uint32_t kvp__workload_max_prefix(const kvp_workload *w) {
    if (w->synthetic)
        return w->spec.shared_prefix_tokens > 0 && w->spec.shared_fraction > 0
                   ? w->spec.shared_prefix_tokens
                   : 0;
    return w->max_prefix_tokens;
}

size_t kvp_workload_warning_count(const kvp_workload *w) { return w ? w->warning_count : 0; }

const char *kvp_workload_warning(const kvp_workload *w, size_t i) {
    return w && i < w->warning_count ? w->warnings[i] : NULL;
}

/* ------------------------------------------------------------------ reader */
typedef struct line_ctx {
    kvp_workload *w;
    const char *name;
    uint32_t line;
    kvp_error *err;
    const kvp_workload_options *opt;
} line_ctx;

static kvp_status line_fail(const line_ctx *c, kvp_status code, const char *key, const char *fmt,
                            ...) KVP_PRINTF(4, 5);
static kvp_status line_fail(const line_ctx *c, kvp_status code, const char *key, const char *fmt,
                            ...) {
    char body[KVP_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    kvp__fail(c->err, code, c->name, key, "line %u: %s", c->line, body);
    if (c->err) c->err->line = (int)c->line;
    return code;
}


/* A length: integer in [min, KVP_WORKLOAD_MAX_TOKENS]. */
static kvp_status get_len(const line_ctx *c, const json_t *v, const char *key, uint32_t min,
                          uint32_t *out) {
    if (!json_is_integer(v))
        return line_fail(c, KVP_CONFIG, key, "expected an integer of at least %u, found %s", min,
                         kvp__json_type_name(v));
    json_int_t x = json_integer_value(v);
    if (x < (json_int_t)min || x > (json_int_t)KVP_WORKLOAD_MAX_TOKENS)
        return line_fail(c, KVP_CONFIG, key, "expected an integer from %u to %u, found %lld", min,
                         KVP_WORKLOAD_MAX_TOKENS, (long long)x);
    *out = (uint32_t)x;
    return KVP_OK;
}

static const char *const k_known_keys[] = {"arrival", "prompt_len", "prompt_tokens", "output_len",
                                           "prefix_id", "prefix_len", NULL};

static void warn_unknown(const line_ctx *c, const char *key) {
    kvp_workload *w = c->w;
    for (size_t i = 0; i < w->warning_count; i++) {
        const char *q = strchr(w->warnings[i], '"');
        size_t n = strlen(key);
        if (q && strncmp(q + 1, key, n) == 0 && q[n + 1] == '"') return; /* once per key */
    }
    if (w->warning_count >= KVP__WORKLOAD_MAX_WARNINGS) return;
    char buf[512];
    snprintf(buf, sizeof buf, "%s: line %u: unknown key \"%.200s\" ignored", c->name, c->line, key);
    char *s = kvp__strdup(kvp__workload_alc(w), buf);
    if (s) w->warnings[w->warning_count++] = s;
}

/* The shared prefix `name` ("s:ID" or "i:N") of a request: the first line that
 * names it states its prefix_len, later ones may repeat it. */
static kvp_status prefix_line(const line_ctx *c, kvp_request *r, const char *name, json_t *pl) {
    kvp_status st = KVP_OK;
    uint32_t plen_tokens = 0;
    if (pl && (st = get_len(c, pl, "/prefix_len", 1, &plen_tokens))) return st;
    uint32_t idx = prefix_find(c->w, name);
    if (idx == UINT32_MAX) {
        if (!pl) {
            st = line_fail(c, KVP_CONFIG, "/prefix_len",
                           "missing: prefix_id %s appears for the first time", name + 2);
            return st;
        }
        char *copy = kvp__strdup(kvp__workload_alc(c->w), name);
        if (!copy) {
            st = kvp__fail(c->err, KVP_NOMEM, c->name, "prefix_id", "out of memory");
            return st;
        }
        uint32_t index;
        if ((st = kvp__workload_add_prefix(c->w, copy, plen_tokens, &index, c->err))) {
            if (c->w->prefix_count == 0 || c->w->prefixes[c->w->prefix_count - 1].name != copy)
                kvp__free(kvp__workload_alc(c->w), copy);
            return st;
        }
        idx = index - 1;
    } else if (pl && plen_tokens != c->w->prefixes[idx].tokens) {
        st = line_fail(c, KVP_CONFIG, "/prefix_len",
                       "prefix_id %s was given prefix_len %u before, now %u", name + 2,
                       c->w->prefixes[idx].tokens, plen_tokens);
        return st;
    }
    const kvp__prefix *p = &c->w->prefixes[idx];
    if (p->tokens > r->prompt_tokens) {
        st = line_fail(c, KVP_CONFIG, "/prefix_len",
                       "prefix of %u tokens is longer than the prompt of %u", p->tokens,
                       r->prompt_tokens);
        return st;
    }
    r->prefix_index = idx + 1;
    r->explicit_tokens = p->tokens;
    r->token_offset = 0; /* a prefix's ids are made from its index */
    return KVP_OK;
}

static kvp_status parse_line(const line_ctx *c, const char *text, size_t len) {
    json_error_t jerr;
    json_t *root = json_loadb(text, len, 0, &jerr);
    if (!root) {
        kvp_status st = line_fail(c, KVP_SYNTAX, "", "%s (column %d)", jerr.text, jerr.column);
        if (c->err) c->err->column = jerr.column;
        return st;
    }
    kvp_status st = KVP_OK;
    kvp_request r;
    memset(&r, 0, sizeof r);
    r.line = c->line;
    const char *key;
    json_t *v;
    if (!json_is_object(root)) {
        st = line_fail(c, KVP_CONFIG, "", "expected a JSON object, found %s", kvp__json_type_name(root));
        goto done;
    }
    json_object_foreach(root, key, v) {
        bool known = false;
        for (size_t i = 0; k_known_keys[i]; i++) known = known || strcmp(key, k_known_keys[i]) == 0;
        if (!known) warn_unknown(c, key);
    }
    /* arrival */
    v = json_object_get(root, "arrival");
    if (v) {
        if (!json_is_number(v)) {
            st = line_fail(c, KVP_CONFIG, "/arrival", "expected a number >= 0, found %s",
                           kvp__json_type_name(v));
            goto done;
        }
        double a = json_number_value(v);
        double steps = c->opt->arrival_unit == KVP_ARRIVAL_SECONDS
                           ? a / (c->opt->step_seconds > 0 ? c->opt->step_seconds : 0.02)
                           : a;
        if (!(a >= 0) || !(steps < 1e15)) {
            st = line_fail(c, KVP_CONFIG, "/arrival", "expected a number from 0 to 1e15 steps, found %g",
                           a);
            goto done;
        }
        if (c->opt->arrival_unit == KVP_ARRIVAL_STEPS && json_is_real(v) && floor(a) != a) {
            st = line_fail(c, KVP_CONFIG, "/arrival",
                           "expected a whole number of steps, found %g (use seconds as the "
                           "arrival unit for fractions)",
                           a);
            goto done;
        }
        r.arrival_step = (uint64_t)floor(steps);
    }
    /* prompt */
    json_t *plen = json_object_get(root, "prompt_len"), *ptok = json_object_get(root, "prompt_tokens");
    if (!plen && !ptok) {
        st = line_fail(c, KVP_CONFIG, "/prompt_len", "missing: give prompt_len or prompt_tokens");
        goto done;
    }
    if (plen && (st = get_len(c, plen, "/prompt_len", 1, &r.prompt_tokens))) goto done;
    if (ptok) {
        if (!json_is_array(ptok) || json_array_size(ptok) == 0 ||
            json_array_size(ptok) > KVP_WORKLOAD_MAX_TOKENS) {
            st = line_fail(c, KVP_CONFIG, "/prompt_tokens",
                           "expected an array of 1 to %u token ids, found %s",
                           KVP_WORKLOAD_MAX_TOKENS, kvp__json_type_name(ptok));
            goto done;
        }
        uint32_t n = (uint32_t)json_array_size(ptok);
        if (plen && n != r.prompt_tokens) {
            st = line_fail(c, KVP_CONFIG, "/prompt_len",
                           "prompt_len %u disagrees with the %u ids of prompt_tokens",
                           r.prompt_tokens, n);
            goto done;
        }
        uint64_t off;
        if ((st = kvp__workload_tokens(c->w, n, &off, c->err))) goto done;
        for (uint32_t i = 0; i < n; i++) {
            json_t *t = json_array_get(ptok, i);
            json_int_t id = json_is_integer(t) ? json_integer_value(t) : -1;
            if (id < 0 || id > (json_int_t)UINT32_MAX) {
                c->w->token_count = off; /* give the ids back */
                st = line_fail(c, KVP_CONFIG, "/prompt_tokens",
                               "element %u: expected a token id from 0 to %u", i, UINT32_MAX);
                goto done;
            }
            c->w->tokens[off + i] = (uint32_t)id;
        }
        r.prompt_tokens = n;
        r.explicit_tokens = n;
        r.token_offset = off;
    }
    /* output */
    v = json_object_get(root, "output_len");
    if (!v) {
        st = line_fail(c, KVP_CONFIG, "/output_len", "missing: expected an integer of at least 1");
        goto done;
    }
    if ((st = get_len(c, v, "/output_len", 1, &r.output_tokens))) goto done;
    /* shared prefix */
    json_t *pid = json_object_get(root, "prefix_id"), *pl = json_object_get(root, "prefix_len");
    if (pl && !pid) {
        st = line_fail(c, KVP_CONFIG, "/prefix_len", "prefix_len without a prefix_id");
        goto done;
    }
    if (pid) {
        if (ptok) {
            st = line_fail(c, KVP_CONFIG, "/prefix_id",
                           "prefix_id goes with prompt_len; with prompt_tokens the ids already "
                           "say what is shared");
            goto done;
        }
        /* The whole id names the prefix (two ids sharing their first 280
         * bytes are two prefixes); a line is at most
         * KVP_WORKLOAD_MAX_LINE_BYTES, so is the id. */
        char small[48];
        char *name = small;
        if (json_is_string(pid)) {
            size_t idlen = strlen(json_string_value(pid)); /* jansson refuses \u0000 */
            if (idlen + 3 > sizeof small) {
                name = kvp__malloc(kvp__workload_alc(c->w), idlen + 3);
                if (!name) {
                    st = kvp__fail(c->err, KVP_NOMEM, c->name, "prefix_id", "out of memory");
                    goto done;
                }
            }
            memcpy(name, "s:", 2);
            memcpy(name + 2, json_string_value(pid), idlen + 1);
        } else if (json_is_integer(pid)) {
            snprintf(name, sizeof small, "i:%lld", (long long)json_integer_value(pid));
        } else {
            st = line_fail(c, KVP_CONFIG, "/prefix_id", "expected a string or an integer, found %s",
                           kvp__json_type_name(pid));
            goto done;
        }
        st = prefix_line(c, &r, name, pl);
        if (name != small) kvp__free(kvp__workload_alc(c->w), name);
        if (st) goto done;
    }
    st = kvp__workload_push(c->w, &r, c->err);
done:
    json_decref(root);
    return st;
}

/* One line of the file (without its '\n'): a trailing '\r' and leading blanks are
 * dropped, blank lines skipped; the line counter counts every line. */
static kvp_status feed_line(line_ctx *c, const char *text, size_t len) {
    size_t e = len;
    if (e > 0 && text[e - 1] == '\r') e--;
    c->line++;
    size_t b = 0;
    while (b < e && (text[b] == ' ' || text[b] == '\t')) b++;
    return b < e ? parse_line(c, text + b, e - b) : KVP_OK;
}

/* The end of a read: a workload with requests, sorted, handed out; else freed. */
static kvp_status finish(kvp_workload *w, const line_ctx *c, kvp_status st, kvp_workload **out,
                         kvp_error *err) {
    if (st == KVP_OK && w->count == 0)
        st = kvp__fail(err, KVP_CONFIG, c->name, NULL, "the workload has no requests");
    if (st != KVP_OK) {
        kvp_workload_free(w);
        return st;
    }
    kvp__workload_sort(w);
    *out = w;
    return KVP_OK;
}

kvp_status kvp_workload_parse(const char *text, size_t len, const char *name,
                              const kvp_workload_options *options, const kvp_allocator *alc,
                              kvp_workload **out, kvp_error *err) {
    if (!out) return kvp__fail(err, KVP_INVALID_ARG, name, NULL, "NULL argument");
    *out = NULL;
    if (!text && len) return kvp__fail(err, KVP_INVALID_ARG, name, NULL, "NULL text");
    kvp_workload_options defaults = {KVP_ARRIVAL_STEPS, 0.02};
    if (!options) options = &defaults;
    kvp_workload *w = kvp__workload_new(alc);
    if (!w) return kvp__fail(err, KVP_NOMEM, name, NULL, "out of memory");
    line_ctx c = {w, name ? name : "workload", 0, err, options};
    size_t pos = 0;
    kvp_status st = KVP_OK;
    while (pos < len && st == KVP_OK) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        st = feed_line(&c, text + pos, end - pos);
        pos = end + 1;
    }
    return finish(w, &c, st, out, err);
}

/* Streamed: the file is read in chunks and parsed line by line, so memory follows
 * the longest line and the requests, not the file size, and a bad first line of a
 * 2 GiB file (a sparse one: NUL bytes) is refused after reading one chunk. */
#define WORKLOAD_CHUNK_BYTES ((size_t)64 * 1024)

kvp_status kvp_workload_read(const char *path, const kvp_workload_options *options,
                             const kvp_allocator *alc, kvp_workload **out, kvp_error *err) {
    if (!out || !path) return kvp__fail(err, KVP_INVALID_ARG, path, NULL, "NULL argument");
    *out = NULL;
    kvp_workload_options defaults = {KVP_ARRIVAL_STEPS, 0.02};
    if (!options) options = &defaults;
    FILE *f = NULL;
    kvp_status st = kvp__open_regular(path, KVP_WORKLOAD_MAX_FILE_BYTES, &f, NULL, err);
    if (st) return st;
    kvp_workload *w = kvp__workload_new(alc);
    size_t cap = WORKLOAD_CHUNK_BYTES, len = 0; /* buf[0, len): the unparsed rest */
    char *buf = w ? kvp__malloc(alc, cap) : NULL;
    if (!buf) {
        fclose(f);
        kvp_workload_free(w);
        return kvp__fail(err, KVP_NOMEM, path, NULL, "out of memory");
    }
    line_ctx c = {w, path, 0, err, options};
    uint64_t total = 0;
    for (;;) {
        if (len == cap) {
            /* One line longer than the buffer: grow it, up to the longest line. */
            if (cap >= KVP_WORKLOAD_MAX_LINE_BYTES) {
                st = kvp__fail(err, KVP_CONFIG, path, NULL,
                               "line %u: longer than the %zu-byte limit of a workload line",
                               c.line + 1, KVP_WORKLOAD_MAX_LINE_BYTES);
                break;
            }
            size_t ncap = cap * 2 > KVP_WORKLOAD_MAX_LINE_BYTES ? KVP_WORKLOAD_MAX_LINE_BYTES
                                                                 : cap * 2;
            char *nb = kvp__realloc(alc, buf, ncap);
            if (!nb) {
                st = kvp__fail(err, KVP_NOMEM, path, NULL, "out of memory for a line");
                break;
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        if (got == 0) {
            if (ferror(f)) st = kvp__fail(err, KVP_IO, path, NULL, "read error");
            else if (total == 0) st = kvp__fail(err, KVP_IO, path, NULL, "file is empty");
            else if (len > 0) st = feed_line(&c, buf, len); /* last line without '\n' */
            break;
        }
        total += got;
        if (total > KVP_WORKLOAD_MAX_FILE_BYTES) {
            st = kvp__fail(err, KVP_IO, path, NULL,
                           "file is larger than the %zu-byte limit for this kind of input",
                           KVP_WORKLOAD_MAX_FILE_BYTES);
            break;
        }
        size_t start = 0, scan = len;
        len += got;
        for (;;) {
            const char *nl = memchr(buf + scan, '\n', len - scan);
            if (!nl) break;
            size_t end = (size_t)(nl - buf);
            st = feed_line(&c, buf + start, end - start);
            if (st != KVP_OK) break;
            start = scan = end + 1;
        }
        if (st != KVP_OK) break;
        memmove(buf, buf + start, len - start);
        len -= start;
        /* No JSON text holds a NUL byte: a line still open that has one (a sparse or
         * binary file) is refused now, not after buffering up to the line limit. */
        const char *nul = memchr(buf, '\0', len);
        if (nul) {
            uint64_t at = total - len + (uint64_t)(nul - buf);
            st = kvp__fail(err, KVP_SYNTAX, path, NULL,
                           "line %u: NUL byte at byte offset %llu (not a JSON-lines text file)",
                           c.line + 1, (unsigned long long)at);
            break;
        }
    }
    fclose(f);
    kvp__free(alc, buf);
    return finish(w, &c, st, out, err);
}
