/* fuzz_from_parse.c — libFuzzer harness for the reader of pasted engine
 * commands (src/options/from_parse.h: `--from` and kvp_json_call's
 * "from_command"): any byte string is read or refused with a one-line reason;
 * every setting it keeps is a spelling of the option table, and its strings
 * lie inside the command's own storage. Files are never opened (read_files
 * false: an options file named by the command is refused). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "options/from_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void inside(const kvp_from_cmd *c, const char *s) {
    if (!s) return;
    if (s < c->storage || s >= c->storage + sizeof c->storage) {
        (void)strlen(s); /* a literal the reader sets itself: NUL-terminated */
        return;
    }
    if (!memchr(s, '\0', (size_t)(c->storage + sizeof c->storage - s))) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > KVP_FROM_MAX_INPUT + 16) return 0;
    char *text = malloc(size + 1);
    kvp_from_cmd *c = malloc(sizeof *c);
    if (!text || !c) abort();
    memcpy(text, data, size);
    text[size] = '\0';
    char msg[512] = "";
    if (kvp_from_parse(text, false, c, msg, sizeof msg) != 0) {
        if (!msg[0]) abort(); /* a refusal explains itself */
    } else {
        if (c->count < 0 || c->count > KVP_FROM_MAX_ARGS) abort();
        if (!c->engine[0]) abort();
        inside(c, c->model);
        for (int k = 0; k < c->count; k++) {
            if (!kvp_option_lookup(c->set[k].name, NULL)) abort();
            inside(c, c->set[k].value);
        }
    }
    free(c);
    free(text);
    return 0;
}
