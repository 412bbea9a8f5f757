/* json_error.c — jansson load failures as kvp_error, the Python-literal
 * rewrite the config parse runs first (see json_error.h); the dumps are
 * json_dump.c's. */
#include <math.h>
#include <string.h>

#include "json_error.h"

kvp_status kvp__json_load_fail(kvp_error *err, const char *file, const json_error_t *jerr) {
    /* json_loadb returns NULL with the error left as initialised (line -1, empty
     * text) when its lexer cannot allocate its first buffer: also out of memory. */
    if (json_error_code(jerr) == json_error_out_of_memory ||
        (jerr->line == -1 && jerr->text[0] == '\0'))
        return kvp__fail(err, KVP_NOMEM, file, NULL, "out of memory parsing JSON");
    kvp_status st = kvp__fail(err, KVP_SYNTAX, file, NULL, "line %d, column %d: %s", jerr->line,
                              jerr->column, jerr->text);
    if (err) {
        err->line = jerr->line;
        err->column = jerr->column;
        err->offset = jerr->position > 0 ? (uint64_t)jerr->position : 0;
    }
    return st;
}

void kvp__json_python_literals(char *s, size_t len) {
    bool in_str = false;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (in_str) {
            if (c == '\\' && i + 1 < len)
                i++;
            else if (c == '"')
                in_str = false;
            continue;
        }
        if (c == '"') {
            in_str = true;
        } else if (c == 'I' && len - i >= 8 && memcmp(s + i, "Infinity", 8) == 0) {
            memcpy(s + i, "1.0e+308", 8);
            i += 7;
        } else if (c == 'N' && len - i >= 3 && memcmp(s + i, "NaN", 3) == 0) {
            memcpy(s + i, "\"N\"", 3);
            i += 2;
        }
    }
}

bool kvp__json_is_python_literal(const json_t *v) {
    if (json_is_string(v)) return strcmp(json_string_value(v), "N") == 0;
    return json_is_real(v) && fabs(json_real_value(v)) >= 1.0e308;
}

const char *kvp__json_type_name(const json_t *v) {
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "a value";
}

