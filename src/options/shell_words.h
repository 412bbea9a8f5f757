/* shell_words.h — the one splitter of pasted shell commands (`--from "vllm
 * serve ..."`): words as a POSIX shell reads them, without running anything.
 *
 *   '...'       literal, up to the next '
 *   "..."       literal but for \" \\ \$ \` and backslash-newline (removed)
 *   \x          x, outside quotes; backslash-newline joins lines (a `\`
 *               continuation, also with CR LF)
 *   $VAR ${VAR} kept as text (kvplan expands nothing); listed in `variables`
 *   # ...       a comment when it starts a word (to the end of the line)
 *
 * Refused (KVP_INVALID_ARG, the message says which): an unterminated quote, a
 * trailing lone backslash, more than KVP_SHELL_MAX_WORDS words, a command over
 * KVP_SHELL_MAX_BYTES bytes. */
#ifndef KVP_OPTIONS_SHELL_WORDS_H
#define KVP_OPTIONS_SHELL_WORDS_H

#include <stddef.h>

#include "kvplan/error.h"

#define KVP_SHELL_MAX_BYTES 16384
#define KVP_SHELL_MAX_WORDS 512

typedef struct kvp__shell_words {
    size_t count;
    char *word[KVP_SHELL_MAX_WORDS];  /* into storage, NUL-terminated */
    char variables[256];              /* "$HF_HOME, ${MODEL}": the variables left as text */
    char storage[KVP_SHELL_MAX_BYTES + KVP_SHELL_MAX_WORDS];
} kvp__shell_words;

/* Split `text` into out (fully overwritten). */
kvp_status kvp__shell_split(const char *text, kvp__shell_words *out, kvp_error *err);

#endif
