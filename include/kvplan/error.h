/*
 * kvplan/error.h — status codes and the caller-owned error record.
 *
 * Every fallible kvplan function returns a kvp_status and, when given a
 * non-NULL `kvp_error *err`, fills it with a message that names the file, the
 * key (a JSON pointer such as "/text_config/num_key_value_heads", or a GGUF
 * key) and what was expected versus found. Passing NULL is allowed: the
 * function then reports through its return value only.
 *
 * Codes come from one X-macro table so that their names and the default
 * messages never drift apart.
 */
#ifndef KVPLAN_ERROR_H
#define KVPLAN_ERROR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* KVP_API marks what libkvplan exports. The library is compiled with
 * -fvisibility=hidden, so a function without it (the kvp__ internals shared
 * between files) is not in the shared library's symbol table: what is not
 * marked here is not API, and cannot be linked against by accident. */
#ifndef KVP_API
#if defined(__GNUC__) || defined(__clang__)
#define KVP_API __attribute__((visibility("default")))
#else
#define KVP_API
#endif
#endif

#if defined(__GNUC__) || defined(__clang__)
#define KVP_NODISCARD __attribute__((warn_unused_result))
#else
#define KVP_NODISCARD
#endif

/* Room for growth (the ABI policy, docs/ARCHITECTURE.md): the large public
 * structs a caller declares itself (settings it fills, results the library
 * fills in the caller's memory) end with `uint64_t reserved_[KVP_RESERVED_WORDS]`.
 * A later release adds a field by taking words from it, so the size and every
 * offset stay and code built against this header keeps working. Start such a
 * struct from its kvp_*_default() or `= {0}` so the reserved words are zero;
 * never read or write them. */
#define KVP_RESERVED_WORDS 8

/* X(name, value, description) */
#define KVP_STATUS_MAP(X)                                                     \
    X(OK, 0, "success")                                                       \
    X(IO, 1, "file could not be read")                                        \
    X(SYNTAX, 2, "syntax error")                                              \
    X(CONFIG, 3, "invalid value in the configuration")                        \
    X(UNSUPPORTED, 4, "configuration uses something kvplan does not understand") \
    X(OVERFLOW, 5, "arithmetic overflow")                                     \
    X(NOMEM, 6, "out of memory")                                              \
    X(INVALID_ARG, 7, "invalid argument")                                     \
    X(INFEASIBLE, 8, "the request cannot be satisfied")                       \
    X(NOT_FOUND, 9, "not found")                                              \
    X(NO_DEVICE, 10, "no device")

typedef enum kvp_status {
#define KVP__STATUS_ENUM(name, value, desc) KVP_##name = value,
    KVP_STATUS_MAP(KVP__STATUS_ENUM)
#undef KVP__STATUS_ENUM
} kvp_status;

#define KVP_ERROR_MESSAGE_MAX 640
#define KVP_ERROR_FILE_MAX 512
#define KVP_ERROR_KEY_MAX 256

/* Caller-owned error record; no heap memory, safe to copy by value. */
typedef struct kvp_error {
    kvp_status code;
    char file[KVP_ERROR_FILE_MAX]; /* input file, "" when none */
    char key[KVP_ERROR_KEY_MAX];   /* JSON pointer / GGUF key / option name, "" when none */
    int line;                      /* 1-based line of a syntax error, 0 when unknown */
    int column;                    /* 1-based column, 0 when unknown */
    uint64_t offset;               /* byte offset for binary formats, 0 when unknown */
    char message[KVP_ERROR_MESSAGE_MAX]; /* full human-readable sentence */
} kvp_error;

/* Name of a status ("KVP_CONFIG"); never NULL. */
KVP_API const char *kvp_status_name(kvp_status status);
/* One-line description of a status; never NULL. */
KVP_API const char *kvp_status_describe(kvp_status status);
/* Reset an error record to KVP_OK with empty strings. NULL is a no-op. */
KVP_API void kvp_error_clear(kvp_error *err);

#ifdef __cplusplus
}
#endif
#endif
