/*
 * json_error.h — one mapping from a jansson load failure to a kvp_error, for
 * every reader that parses JSON (kvp__ tier).
 *
 * jansson reports its own allocation failures through the same json_error_t
 * as a syntax error (line -1, column -1); kvplan must say KVP_NOMEM then, not
 * blame the file (issue 8: allocation-failure injection found this).
 */
#ifndef KVP_JSON_ERROR_H
#define KVP_JSON_ERROR_H

#include <jansson.h>

#include "util.h"

/* Fill `err` from a failed json_load*: KVP_NOMEM for jansson's out-of-memory,
 * else KVP_SYNTAX "FILE: line L, column C: text" with err->line/column set.
 * Returns the status. `file` may be NULL. */
kvp_status kvp__json_load_fail(kvp_error *err, const char *file, const json_error_t *jerr);

/* Python writes bare Infinity / NaN into some configs (Nemotron-H's
 * time_step_limit). Rewrite those tokens outside strings, in place and with
 * the same width so offsets in messages stay true: Infinity -> 1.0e+308, NaN ->
 * the string "N". The config parse (src/model/) is the only caller; a key that
 * kvplan reads and that holds one is then refused by name
 * (kvp__json_is_python_literal), while other keys may hold them. */
void kvp__json_python_literals(char *s, size_t len);
/* Is v what kvp__json_python_literals left for a NaN ("N") or an Infinity
 * (+-1.0e+308)? */
bool kvp__json_is_python_literal(const json_t *v);

/* json_dumps into memory of `alc` (NULL = libc) instead of jansson's global
 * allocator, which a host program may have pointed elsewhere
 * (json_set_alloc_funcs): a text kvplan hands out is freed by kvplan's own
 * kvp__free(alc, ...) (kvp_render_free, kvp_json_free). NULL when `doc` is NULL
 * or memory runs out. Owned by the caller. */
char *kvp__json_dump(const json_t *doc, size_t flags, const kvp_allocator *alc);
/* The same through jansson's json_dump_callback, whatever the flags: what
 * kvp__json_dump falls back to, and the reference its tests compare against.
 * Owned by the caller (kvp__free(alc, ...)). */
char *kvp__json_dump_jansson(const json_t *doc, size_t flags, const kvp_allocator *alc);

/* Short description of a JSON value's type for messages ("a string", "null"). */
const char *kvp__json_type_name(const json_t *v);

#endif
