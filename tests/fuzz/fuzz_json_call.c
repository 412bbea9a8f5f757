/* fuzz_json_call.c — libFuzzer harness for the request reader of
 * kvp_json_call (kvplan/json.h): any bytes as the request of "cost",
 * "models", "plan", "compare" and "check" (option table keys, a "config"
 * object, a "from_command") are
 * either answered with JSON or refused with a message, never a crash or a
 * leak (fit and sweep run many plans an input: the same reader, not fuzzed). A request whose model names a path is not run: the model
 * readers have their own harnesses, and a path could name a device that
 * blocks (/dev/stdin). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kvplan/kvplan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void call(const char *command, const char *text) {
    char *out = NULL;
    kvp_error err;
    if (kvp_json_call(command, text, &out, &err) == KVP_OK) {
        if (!out || out[0] != (strcmp(command, "models") ? '{' : '[')) abort();
    } else if (out || err.message[0] == '\0') {
        abort();
    }
    kvp_json_free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 8192) return 0;
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    call("models", text);
    if (!strchr(text, '/') && !strchr(text, '\\')) {
        call("cost", text);
        call("plan", text);
        call("compare", text);
        call("check", text); /* and from_command: the engine command reader */
    }
    free(text);
    return 0;
}
