/* json_call_opts.h — kvp_json_call under a caller's rules, for callers in
 * other rooms (serve) that need no JSON internals: only kvplan/json.h's
 * types. */
#ifndef KVP_BIND_JSON_CALL_OPTS_H
#define KVP_BIND_JSON_CALL_OPTS_H

#include <stdbool.h>

#include "kvplan/json.h"

/* How kvp__json_call_with answers. kvp_json_call: everything false / 0. */
typedef struct kvp__json_call_opts {
    /* A string "model" names a catalogue entry or alias only: never a path,
     * a folder or the Hugging Face cache (`kvplan serve`: a request never
     * makes kvplan open a file). */
    bool catalog_only;
} kvp__json_call_opts;

/* kvp_json_call under `o` (kvplan/json.h has the contract). */
kvp_status kvp__json_call_with(const char *command, const char *request_json,
                               const kvp__json_call_opts *o, char **out_json, kvp_error *err);

#endif
