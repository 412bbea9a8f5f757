/* fuzz_shell_words.c — libFuzzer harness for the one splitter of pasted
 * commands (src/options/shell_words.h): any byte string is split or refused
 * with a message; the words fit the storage and are NUL-terminated inside it,
 * and splitting the words joined back with quotes gives the same words. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "options/shell_words.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > KVP_SHELL_MAX_BYTES + 16) return 0;
    char *text = malloc(size + 1);
    kvp__shell_words *w = malloc(sizeof *w), *again = malloc(sizeof *again);
    char *joined = malloc(4 * (size + 1) + 2 * KVP_SHELL_MAX_WORDS + 1);
    if (!text || !w || !again || !joined) abort();
    memcpy(text, data, size);
    text[size] = '\0';
    kvp_error err;
    if (kvp__shell_split(text, w, &err) != KVP_OK) {
        if (!err.message[0]) abort(); /* a refusal explains itself */
        goto done;
    }
    if (w->count > KVP_SHELL_MAX_WORDS) abort();
    size_t n = 0;
    for (size_t i = 0; i < w->count; i++) {
        const char *s = w->word[i];
        if (s < w->storage || s >= w->storage + sizeof w->storage) abort();
        if (!memchr(s, '\0', (size_t)(w->storage + sizeof w->storage - s))) abort();
        /* Re-quote: '...' with ' written as '\'' . */
        joined[n++] = '\'';
        for (; *s; s++) {
            if (*s == '\'') {
                memcpy(joined + n, "'\\''", 4);
                n += 4;
            } else {
                joined[n++] = *s;
            }
        }
        joined[n++] = '\'';
        joined[n++] = ' ';
    }
    joined[n] = '\0';
    if (n <= KVP_SHELL_MAX_BYTES) {
        if (kvp__shell_split(joined, again, &err) != KVP_OK) abort();
        if (again->count != w->count) abort();
        for (size_t i = 0; i < w->count; i++)
            if (strcmp(again->word[i], w->word[i]) != 0) abort();
    }
done:
    free(text);
    free(w);
    free(again);
    free(joined);
    return 0;
}
