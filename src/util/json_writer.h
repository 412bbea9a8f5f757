/*
 * json_writer.h — one way to write a kvplan JSON document, two ends: straight
 * into text, or into a jansson tree (kvp__ tier).
 *
 * Why: the plan document is rendered on every kvp_json_call (Python,
 * `serve`). Built as a jansson tree and dumped, it cost half the call in
 * malloc, hashing and freeing (issue 27 item 8). Written as text it costs a
 * copy. But `check` embeds the plan document in its own, and `fit` and the
 * sweep embed its sections, as trees. So each section is written once,
 * against this writer, and the caller picks the end:
 *
 *   kvp__jw w;
 *   kvp__jw_text(&w, KVP__JSON_FLAGS);         (or kvp__jw_tree(&w))
 *   kvp__jw_set(&w, "tokens", kvp__jv_u64(n));
 *   kvp__jw_object(&w, "budget"); ... kvp__jw_end(&w);
 *   char *text = kvp__jw_take_text(&w, &failed);   (or kvp__jw_take_tree)
 *
 * The text is byte for byte what kvp__json_dump writes for the tree the same
 * calls build (jansson's layout, json_dump.c), including what jansson
 * refuses: a string that is NULL or not UTF-8, or a real that is not finite,
 * makes no value, so the member is left out, as json_object_set_new(o, k,
 * NULL) leaves it out. tests/unit/test_json_writer.c holds the two ends to
 * the same bytes.
 */
#ifndef KVP_JSON_WRITER_H
#define KVP_JSON_WRITER_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "util.h"

/* Deep enough for every kvplan document (the plan nests 4 levels). */
#define KVP__JW_DEPTH 16

/* One scalar value, held by value (no allocation). Text is borrowed. */
typedef enum { KVP__JV_NULL, KVP__JV_BOOL, KVP__JV_U64, KVP__JV_REAL, KVP__JV_STR } kvp__jv_type;
typedef struct kvp__jv {
    kvp__jv_type type;
    bool b;
    uint64_t u;
    double d;
    const char *s;
} kvp__jv;

static inline kvp__jv kvp__jv_null(void) { return (kvp__jv){.type = KVP__JV_NULL}; }
static inline kvp__jv kvp__jv_bool(bool b) { return (kvp__jv){.type = KVP__JV_BOOL, .b = b}; }
/* A count or byte figure; null above INT64_MAX (kvp__json_u64's rule). */
static inline kvp__jv kvp__jv_u64(uint64_t u) { return (kvp__jv){.type = KVP__JV_U64, .u = u}; }
static inline kvp__jv kvp__jv_real(double d) { return (kvp__jv){.type = KVP__JV_REAL, .d = d}; }
/* NULL or text that is not UTF-8: no value (the member is left out). */
static inline kvp__jv kvp__jv_str(const char *s) { return (kvp__jv){.type = KVP__JV_STR, .s = s}; }

/* The value as a new jansson reference; NULL where jansson makes none. */
json_t *kvp__jv_json(kvp__jv v);

typedef struct kvp__jw {
    bool text;                       /* true: into `out`; false: a tree */
    size_t flags;                    /* text: the dump flags (indent, real precision) */
    kvp__strbuf out;                 /* text */
    int depth;                       /* open containers, the root is 1 */
    uint32_t count[KVP__JW_DEPTH];   /* text: values written in each open container */
    bool is_array[KVP__JW_DEPTH];
    json_t *stack[KVP__JW_DEPTH];    /* tree: the open containers */
    bool owns_root;                  /* tree: kvp__jw_take_tree hands the root over */
    int base;                        /* text: the dump depth of the root */
    bool failed;                     /* out of memory, or calls out of order */
} kvp__jw;

/* Start a document whose root is an object: as text dumped with `flags`
 * (JSON_INDENT(n), JSON_COMPACT, JSON_REAL_PRECISION(p): json_dump.c's), or
 * as a new tree. */
void kvp__jw_text(kvp__jw *w, size_t flags);
/* The same for an object that sits at dump depth `depth` of a larger
 * document (a streamed sweep row at depth 2): its lines indented for there,
 * after the text `lead` (its separator and indent in that document). */
void kvp__jw_text_at(kvp__jw *w, size_t flags, int depth, const char *lead);
void kvp__jw_tree(kvp__jw *w);
/* Write into an existing object `o` (borrowed, not taken). */
void kvp__jw_tree_on(kvp__jw *w, json_t *o);

/* A member `key` of the open object, or (key NULL) an element of the open array. */
void kvp__jw_set(kvp__jw *w, const char *key, kvp__jv v);
void kvp__jw_object(kvp__jw *w, const char *key);
void kvp__jw_array(kvp__jw *w, const char *key);
/* Close the container opened last. */
void kvp__jw_end(kvp__jw *w);

/* The document's text, owned by the caller (free()), after the root is
 * closed; NULL when anything failed (then nothing is owned). */
char *kvp__jw_take_text(kvp__jw *w);
/* The tree's root (a new reference; NULL when anything failed). */
json_t *kvp__jw_take_tree(kvp__jw *w);

/* json_dump.c's pieces of jansson's text, shared with the writer. */
void kvp__json_put_string(kvp__strbuf *o, const char *str, size_t len, size_t flags);
void kvp__json_put_integer(kvp__strbuf *o, json_int_t v);
void kvp__json_put_real(kvp__strbuf *o, double v, size_t flags);
void kvp__json_put_indent(kvp__strbuf *o, size_t flags, int depth, bool space);

#endif
