/* shell_words.c — POSIX-shell word splitting without expansion (shell_words.h).
 * The rules are the shell's (POSIX.1-2017 XCU 2.2 Quoting, 2.3 Token
 * Recognition): nothing is expanded, so a pasted command reads the same on
 * every machine; variables are kept as text and named. */
#include <stdbool.h>
#include <string.h>

#include "shell_words.h"
#include "util.h"

static bool is_blank(char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r'; }

/* Backslash-newline (or backslash CR LF) at p: its length, else 0. */
static size_t continuation(const char *p) {
    if (p[0] != '\\') return 0;
    if (p[1] == '\n') return 2;
    if (p[1] == '\r' && p[2] == '\n') return 3;
    return 0;
}

static bool name_char(char ch, bool first) {
    return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || ch == '_' ||
           (!first && ch >= '0' && ch <= '9');
}

/* $NAME / ${NAME} in a finished word: listed once each, the word unchanged. */
static void note_variables(kvp__shell_words *w, const char *word) {
    for (const char *p = strchr(word, '$'); p; p = strchr(p + 1, '$')) {
        const char *q = p + 1;
        bool brace = *q == '{';
        if (brace) q++;
        size_t n = 0;
        while (name_char(q[n], n == 0)) n++;
        if (!n) continue;
        char one[80];
        snprintf(one, sizeof one, "$%s%.*s%s", brace ? "{" : "", (int)(n < 64 ? n : 64), q,
                 brace ? "}" : "");
        size_t len = strlen(w->variables), ol = strlen(one);
        bool seen = false;
        for (const char *s = strstr(w->variables, one); s && !seen; s = strstr(s + 1, one))
            seen = (s == w->variables || s[-1] == ' ') && (s[ol] == ',' || s[ol] == '\0');
        if (seen || len + ol + 3 >= sizeof w->variables) continue;
        snprintf(w->variables + len, sizeof w->variables - len, "%s%s", len ? ", " : "", one);
    }
}

kvp_status kvp__shell_split(const char *text, kvp__shell_words *w, kvp_error *err) {
    w->count = 0;
    w->variables[0] = '\0';
    if (!text) return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "the command is empty");
    size_t tl = strlen(text);
    if (tl > KVP_SHELL_MAX_BYTES)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL,
                         "the command is %zu bytes, more than %d", tl, KVP_SHELL_MAX_BYTES);
    /* Each word is at most as long as its text, plus one NUL: storage suffices. */
    char *out = w->storage;
    const char *p = text;
    for (;;) {
        size_t c;
        while (is_blank(*p) || (c = continuation(p)) != 0) p += is_blank(*p) ? 1 : c;
        if (!*p) break;
        if (*p == '#') { /* a comment: to the end of the line */
            while (*p && *p != '\n') p++;
            continue;
        }
        if (w->count == KVP_SHELL_MAX_WORDS)
            return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "the command has more than %d words",
                             KVP_SHELL_MAX_WORDS);
        char *start = out;
        while (*p && !is_blank(*p)) {
            if ((c = continuation(p)) != 0) {
                p += c;
            } else if (*p == '\'') {
                const char *q = strchr(p + 1, '\'');
                if (!q)
                    return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL,
                                     "unterminated single quote (the ' at byte %zu)",
                                     (size_t)(p - text));
                memcpy(out, p + 1, (size_t)(q - p - 1));
                out += q - p - 1;
                p = q + 1;
            } else if (*p == '"') {
                const char *open = p++;
                while (*p && *p != '"') {
                    if ((c = continuation(p)) != 0) {
                        p += c;
                    } else if (*p == '\\' && p[1] && strchr("\"\\$`", p[1])) {
                        *out++ = p[1];
                        p += 2;
                    } else {
                        *out++ = *p++;
                    }
                }
                if (*p != '"')
                    return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL,
                                     "unterminated double quote (the \" at byte %zu)",
                                     (size_t)(open - text));
                p++;
            } else if (*p == '\\') {
                if (!p[1])
                    return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL,
                                     "the command ends with a backslash (a continuation with "
                                     "nothing after it)");
                *out++ = p[1];
                p += 2;
            } else {
                *out++ = *p++;
            }
        }
        *out++ = '\0';
        w->word[w->count++] = start;
        note_variables(w, start);
    }
    return KVP_OK;
}
