/* error.c — the kvp_error record and the status table. */
#include <stdio.h>
#include <string.h>

#include "util.h"

const char *kvp_status_name(kvp_status status) {
    switch (status) {
#define KVP__NAME(name, value, desc) \
    case KVP_##name:                 \
        return "KVP_" #name;
        KVP_STATUS_MAP(KVP__NAME)
#undef KVP__NAME
    }
    return "KVP_UNKNOWN";
}

const char *kvp_status_describe(kvp_status status) {
    switch (status) {
#define KVP__DESC(name, value, desc) \
    case KVP_##name:                 \
        return desc;
        KVP_STATUS_MAP(KVP__DESC)
#undef KVP__DESC
    }
    return "unknown status";
}

void kvp_error_clear(kvp_error *err) {
    if (!err) return;
    memset(err, 0, sizeof *err);
    err->code = KVP_OK;
}

kvp_status kvp__vfail(kvp_error *err, kvp_status code, const char *file, const char *key,
                      const char *fmt, va_list ap) {
    if (!err) return code;
    kvp_error_clear(err);
    err->code = code;
    if (file) kvp__strlcpy(err->file, file, sizeof err->file);
    if (key) kvp__strlcpy(err->key, key, sizeof err->key);
    char body[KVP_ERROR_MESSAGE_MAX], line[KVP_ERROR_MESSAGE_MAX];
    vsnprintf(body, sizeof body, fmt, ap);
    /* The message is self-contained: "FILE: KEY: what was expected". */
    if (file && *file && key && *key)
        snprintf(line, sizeof line, "%s: %s: %s", file, key, body);
    else if (file && *file)
        snprintf(line, sizeof line, "%s: %s", file, body);
    else if (key && *key)
        snprintf(line, sizeof line, "%s: %s", key, body);
    else
        snprintf(line, sizeof line, "%s", body);
    /* File names, keys and quoted values come from hostile inputs: the message is one
     * line with no terminal control character (err->file and err->key stay raw). */
    kvp__escape_str(line, err->message, sizeof err->message);
    return code;
}

kvp_status kvp__fail(kvp_error *err, kvp_status code, const char *file, const char *key,
                     const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    kvp_status s = kvp__vfail(err, code, file, key, fmt, ap);
    va_end(ap);
    return s;
}

kvp_status kvp__refuse(kvp_error *err, const char *key, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    kvp__vfail(err, KVP_INVALID_ARG, NULL, NULL, fmt, ap);
    va_end(ap);
    if (err && key) kvp__strlcpy(err->key, key, sizeof err->key);
    return KVP_INVALID_ARG;
}

void kvp__strlcpy(char *dst, const char *src, size_t dst_size) {
    if (dst_size == 0) return;
    size_t n = src ? strlen(src) : 0;
    if (n >= dst_size) n = dst_size - 1;
    if (n) memcpy(dst, src, n);
    dst[n] = '\0';
}

int kvp__strcasecmp(const char *a, const char *b) {
    for (;; a++, b++) {
        int ca = (unsigned char)*a, cb = (unsigned char)*b;
        if (ca >= 'A' && ca <= 'Z') ca += 32;
        if (cb >= 'A' && cb <= 'Z') cb += 32;
        if (ca != cb || ca == 0) return ca - cb;
    }
}
