/* yaml_options.h — an engine's options file (TensorRT-LLM's
 * `--extra_llm_api_options FILE`, LlmArgs as YAML) read with libyaml into
 * (dotted key, value) pairs: `kv_cache_config: {dtype: fp8}` is the pair
 * ("kv_cache_config.dtype", "fp8"). The file is opened by the project's one
 * reader (kvp__read_file: FIFOs, devices and directories refused). */
#ifndef KVP_OPTIONS_YAML_OPTIONS_H
#define KVP_OPTIONS_YAML_OPTIONS_H

#include <stddef.h>

#include "kvplan/error.h"

#define KVP_YAML_MAX_BYTES (1u << 20) /* an options file is a few hundred bytes */
#define KVP_YAML_MAX_DEPTH 8          /* LlmArgs nest two levels */

typedef enum kvp__yaml_kind {
    KVP_YAML_SCALAR = 0, /* value: the scalar's text */
    KVP_YAML_NULL,       /* null, ~, empty: value NULL */
    KVP_YAML_LIST,       /* a sequence of scalars: value "a,b,c" */
    KVP_YAML_MAPPING,    /* the key opens a mapping (its pairs follow): value NULL */
    KVP_YAML_OTHER,      /* a sequence holding mappings, an alias: value NULL */
} kvp__yaml_kind;

/* Called for each key in document order; a non-OK return stops the read and is
 * returned. `key` is the dotted path. */
typedef kvp_status (*kvp__yaml_visit)(void *ctx, const char *key, kvp__yaml_kind kind,
                                      const char *value, kvp_error *err);

/* Read `path` and visit its pairs. KVP_IO: unreadable, not a regular file, too
 * large; KVP_PARSE: not YAML text (binary bytes, a syntax error with its line
 * and column), the top level not a mapping, more than one document, nesting
 * deeper than KVP_YAML_MAX_DEPTH, a key that is not a scalar. err->file = path. */
kvp_status kvp__yaml_options_read(const char *path, kvp__yaml_visit visit, void *ctx,
                                  kvp_error *err);
/* The same for text in memory (`name` in messages). */
kvp_status kvp__yaml_options_parse(const char *text, size_t len, const char *name,
                                   kvp__yaml_visit visit, void *ctx, kvp_error *err);

#endif
