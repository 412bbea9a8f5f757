/*
 * util.h — internal helpers shared by every room of the library (kvp__ tier):
 * error filling, checked arithmetic, owned allocation, bounded file reads.
 */
#ifndef KVP_UTIL_H
#define KVP_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kvplan/error.h"
#include "kvplan/types.h"

/* Largest config file kvplan reads: real configs are < 64 KiB; 16 MiB bounds a hostile one. */
#define KVP_MAX_CONFIG_BYTES ((size_t)16 * 1024 * 1024)
/* Keys under which multimodal configs nest their language model, tried in this
 * order at each level (the config reader and the weights estimate agree). */
#define KVP__LM_WRAPPER_KEYS "thinker_config", "text_config", "llm_config", "language_config"

#if defined(__GNUC__) || defined(__clang__)
#define KVP_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define KVP_PRINTF(a, b)
#endif

/* Fill `err` (may be NULL) and return `code`. `file` and `key` may be NULL. */
kvp_status kvp__fail(kvp_error *err, kvp_status code, const char *file, const char *key,
                     const char *fmt, ...) KVP_PRINTF(5, 6);
kvp_status kvp__vfail(kvp_error *err, kvp_status code, const char *file, const char *key,
                      const char *fmt, va_list ap) KVP_PRINTF(5, 0);
/* KVP_INVALID_ARG with the message as written (no "KEY: " before it) and
 * `key` (may be NULL) as the error's key: a refusal whose message names the
 * setting itself, in the caller's wording ("--kv-budget ...", "kv_budget ..."). */
kvp_status kvp__refuse(kvp_error *err, const char *key, const char *fmt, ...) KVP_PRINTF(3, 4);

/* Checked arithmetic: return false on overflow (result unspecified then). */
static inline bool kvp__mul_u64(uint64_t a, uint64_t b, uint64_t *out) {
    return !__builtin_mul_overflow(a, b, out);
}
static inline bool kvp__add_u64(uint64_t a, uint64_t b, uint64_t *out) {
    return !__builtin_add_overflow(a, b, out);
}
/* A double to uint64_t the way int() would floor it, but defined for every input:
 * NaN and negatives give 0, values at or past 2^64 give UINT64_MAX (a cast of those
 * is undefined behaviour in C). */
static inline uint64_t kvp__double_to_u64(double v) {
    if (!(v > 0.0)) return 0;
    if (v >= 18446744073709551616.0) return UINT64_MAX;
    return (uint64_t)v;
}
/* a*b*c... with overflow detection; n factors. A macro over an array literal,
 * not a variadic function: the literal converts each factor to uint64_t, where
 * va_arg(ap, uint64_t) of a plain int argument is undefined and read garbage
 * upper bits (fuzz_weights found it). n must equal the number of factors: a
 * mismatch is a compile error (a negative array size). */
bool kvp__mul_array_u64(uint64_t *out, const uint64_t *factors, size_t n);
#define KVP__FACTOR_COUNT(...) (sizeof((const uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t))
#define KVP__CHECK_FACTOR_COUNT(n, ...) \
    ((void)sizeof(char[(n) == KVP__FACTOR_COUNT(__VA_ARGS__) ? 1 : -1]))
#define kvp__mul_many_u64(out, n, ...)                                                      \
    (KVP__CHECK_FACTOR_COUNT(n, __VA_ARGS__),                                               \
     kvp__mul_array_u64((out), (const uint64_t[]){__VA_ARGS__}, KVP__FACTOR_COUNT(__VA_ARGS__)))
/* a*b*c, inline: the per-layer loops of a plan call it thousands of times and
 * the variadic form above cost a fifth of a plan (bench/bench_plan.c). */
static inline bool kvp__mul3_u64(uint64_t a, uint64_t b, uint64_t c, uint64_t *out) {
    return kvp__mul_u64(a, b, out) && kvp__mul_u64(*out, c, out);
}
static inline uint64_t kvp__ceil_div_u64(uint64_t a, uint64_t b) {
    return b == 0 ? 0 : a / b + (a % b != 0);
}

/* Allocation through an optional kvp_allocator (NULL = libc). */
void *kvp__malloc(const kvp_allocator *alc, size_t size);
void *kvp__calloc(const kvp_allocator *alc, size_t count, size_t size);
void *kvp__realloc(const kvp_allocator *alc, void *ptr, size_t size);
void kvp__free(const kvp_allocator *alc, void *ptr);
char *kvp__strdup(const kvp_allocator *alc, const char *s);

/* A growing text: appends double the room as needed and keep it NUL-terminated;
 * after a failure (out of memory, a length past SIZE_MAX / 2) appends are
 * no-ops and `failed` stays set, so a writer checks once at the end. `data`
 * (NULL before the first append) belongs to the writer: kvp__free(alc, data).
 * The one growing text of kvplan's writers (json_dump.c; text_buf.h names it for the text ones). */
typedef struct kvp__strbuf {
    char *data;
    size_t len, cap;
    const kvp_allocator *alc; /* borrowed; NULL = libc */
    bool failed;
} kvp__strbuf;
void kvp__strbuf_grow_put(kvp__strbuf *b, const char *s, size_t n);
/* Inline while the text fits: the writers append a few bytes at a time. */
static inline void kvp__strbuf_put(kvp__strbuf *b, const char *s, size_t n) {
    if (!b->failed && n < b->cap && b->len + n + 1 <= b->cap) {
        memcpy(b->data + b->len, s, n);
        b->len += n;
        b->data[b->len] = '\0';
        return;
    }
    kvp__strbuf_grow_put(b, s, n);
}
static inline void kvp__strbuf_putc(kvp__strbuf *b, char c) {
    if (!b->failed && b->len + 2 <= b->cap) {
        b->data[b->len++] = c;
        b->data[b->len] = '\0';
        return;
    }
    kvp__strbuf_grow_put(b, &c, 1);
}

/* The one way an input file is opened (every reader goes through it). Opens PATH
 * without blocking, refuses anything but a regular file (FIFO, device, socket,
 * directory: KVP_IO naming what it is) and a file larger than `max_bytes`
 * (UINT64_MAX: no bound, the caller bounds what it reads), then returns it in
 * blocking mode: *out is the caller's to fclose; *out_size (may be NULL) is its size. */
kvp_status kvp__open_regular(const char *path, uint64_t max_bytes, FILE **out,
                             uint64_t *out_size, kvp_error *err);
/* Why a file of this st_mode is not read as a file ("is a FIFO (named pipe), expected
 * a regular file"), NULL for a regular file: the one wording for every reader. */
const char *kvp__not_regular_reason(unsigned int st_mode);
/* True when PATH names (through links) a regular file; opens nothing. */
bool kvp__is_regular_file(const char *path);

/* Read a whole file of at most `max_bytes` bytes. On success *out_buf is a
 * NUL-terminated buffer the caller frees with kvp__free(alc, ...). Errors:
 * KVP_IO (missing, unreadable, not a regular file, empty, larger than max_bytes). */
kvp_status kvp__read_file(const char *path, size_t max_bytes, const kvp_allocator *alc,
                          char **out_buf, size_t *out_len, kvp_error *err);

/* Terminal control characters (C0 but for what flags keep, DEL, C1 as UTF-8, bytes
 * that are not UTF-8) written as visible escapes: "\n", "\x1b", "\u007f", "\u009b". Copies
 * IN_LEN bytes of IN into OUT (always NUL-terminated when out_size > 0; never cuts an
 * escape, stops when OUT is full) and returns the bytes written; *consumed (may be
 * NULL) gets the input bytes taken. Idempotent: the output has nothing to escape. */
#define KVP__ESC_KEEP_NEWLINES 1u /* "\n" and "\t" copied (text output, not one-line errors) */
#define KVP__ESC_PARTIAL 2u       /* stop before a UTF-8 sequence cut by the end (streams) */
size_t kvp__escape_controls(const char *in, size_t in_len, char *out, size_t out_size,
                            unsigned flags, size_t *consumed);
/* kvp__escape_controls of a whole string into OUT; returns OUT (a NULL s is ""). */
const char *kvp__escape_str(const char *s, char *out, size_t out_size);

/* True when the buffer is valid UTF-8; *bad_offset gets the first bad byte. */
bool kvp__utf8_valid(const char *s, size_t len, size_t *bad_offset);

/* Bounded string copy that always terminates (dst_size > 0). */
void kvp__strlcpy(char *dst, const char *src, size_t dst_size);
/* Case-insensitive edit distance of two short names (SIZE_MAX/2 past 127 chars). */
size_t kvp__edit_distance(const char *a, const char *b);
/* The closest few candidates to an unknown name, for "did you mean" messages. */
#define KVP_NEAREST_MAX 3
typedef struct kvp__nearest {
    size_t index[KVP_NEAREST_MAX];    /* SIZE_MAX when unused */
    size_t distance[KVP_NEAREST_MAX];
} kvp__nearest;
void kvp__nearest_init(kvp__nearest *n);
void kvp__nearest_offer(kvp__nearest *n, size_t index, size_t distance);

/* Case-insensitive ASCII comparison. */
int kvp__strcasecmp(const char *a, const char *b);

/* The checkpoint folder of MODEL when it is a path (a folder, or a file in one:
 * its folder) into buf; NULL when MODEL names no file (a catalogue name). The
 * safetensors headers there give exact weights. */
const char *kvp__model_dir(const char *model, char *buf, size_t size);

/* n with thousands separators ("100,000") into buf; returns buf. */
const char *kvp__fmt_count(uint64_t n, char *buf, size_t size);
/* bytes in binary units with two decimals ("1.50 GiB"; "512 B" below 1 KiB)
 * into buf; returns buf. */
const char *kvp__fmt_bytes(uint64_t bytes, char *buf, size_t size);

#endif
