/* fuzz_json_dump.c — libFuzzer harness for kvplan's JSON writer
 * (src/util/json_dump.c): whatever text jansson parses, kvp__json_dump writes
 * it exactly as jansson's own dumper does, under each flag set kvplan uses.
 * The first byte picks extra flags, so ASCII escaping and precisions vary. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json_error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1 || size > (1u << 16)) return 0;
    uint8_t pick = data[0];
    json_error_t jerr;
    json_t *doc = json_loadb((const char *)data + 1, size - 1, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
    if (!doc) return 0;
    size_t flags = JSON_INDENT(pick & 3) | JSON_ENCODE_ANY;
    if (pick & 4) flags |= JSON_COMPACT;
    if (pick & 8) flags |= JSON_ENSURE_ASCII;
    if (pick & 16) flags |= JSON_ESCAPE_SLASH;
    flags |= JSON_REAL_PRECISION((pick >> 5) * 4); /* 0 (= 17), 4, ... 28 */
    char *ours = kvp__json_dump(doc, flags, NULL);
    char *theirs = json_dumps(doc, flags);
    if (!ours != !theirs) abort();
    if (ours && strcmp(ours, theirs) != 0) abort();
    free(ours);
    free(theirs);
    json_decref(doc);
    return 0;
}
