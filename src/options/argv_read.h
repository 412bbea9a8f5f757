/* argv_read.h — one reader of a command's argv, driven by a small description
 * of the command (its own flags, its positional word) and, for the deployment
 * settings, the option table (kvplan/options.h). No printing: it stops at each
 * word it does not decide (a table row, an unknown option) and at the first
 * error, and src/cli/cli_options.c (kvp_cli_read_argv) says what it found. */
#ifndef KVP_OPTIONS_ARGV_READ_H
#define KVP_OPTIONS_ARGV_READ_H

#include <stdbool.h>
#include <stdint.h>

#include "kvplan/options.h"

/* What a command's own word does. */
typedef enum {
    KVP__OWN_HELP, /* --help (and -h): the reader stops with KVP__ARGV_HELP */
    KVP__OWN_FLAG, /* no value: *(bool *)out = true */
    KVP__OWN_TEXT, /* "--name V" or "--name=V": *(const char **)out = V */
    KVP__OWN_U32,  /* a whole number in [min, max]: *(uint32_t *)out */
    KVP__OWN_LAST, /* a flag that ends the reading: *(bool *)out = true (`check --rules`) */
    KVP__OWN_COUNT, /* a whole number: *(kvp__argv_count *)out */
    KVP__OWN_CALL, /* "--name V": call(out, V, err); its refusal stops the reading */
    KVP__OWN_NAME  /* never read here (a table word such as --from): "did you mean" only */
} kvp__own_kind;

/* KVP__OWN_COUNT's value, and whether it was given at all. */
typedef struct {
    uint64_t value;
    bool given;
} kvp__argv_count;

typedef struct {
    const char *name; /* "--layers"; NULL ends the list */
    kvp__own_kind kind;
    void *out;
    uint32_t min, max; /* KVP__OWN_U32's range */
    kvp_status (*call)(void *out, const char *text, kvp_error *err); /* KVP__OWN_CALL */
} kvp__argv_own;

typedef struct {
    const kvp__argv_own *own; /* in the order "did you mean" searches them */
    /* The one positional word (MODEL, FILTER); NULL: none, every word is an
     * option (a word that is no option is refused as unknown). */
    const char **positional;
    /* A second positional: "<second>'WORD'", " after 'FIRST'" with
     * second_after, then second_tail; error key second_key (NULL: none, a
     * plain line; "": an error naming no key). */
    const char *second, *second_tail;
    bool second_after;
    const char *second_key;
} kvp__argv_spec;

typedef enum {
    KVP__ARGV_DONE,   /* every word read */
    KVP__ARGV_HELP,   /* --help or -h */
    KVP__ARGV_OPTION, /* argv[*i] is an option not the command's own: a table row or unknown */
    KVP__ARGV_FAIL,   /* *err says why (a value missing or out of range), one line, or
                       * two for a count's missing value */
    KVP__ARGV_SECOND, /* a second positional: *err says so (keyed as second_key) */
    KVP__ARGV_REFUSED, /* a KVP__OWN_CALL refused its value: *err is the callee's */
    KVP__ARGV_LAST    /* (internal: a KVP__OWN_LAST word; the reader returns KVP__ARGV_DONE) */
} kvp__argv_stop;

/* Read argv from *i (1 at the start) up to the first word the description does
 * not decide; *i is left on that word. Own words are applied as they come, so
 * the first error on the line is the one reported. */
kvp__argv_stop kvp__argv_read(const kvp__argv_spec *s, int argc, char **argv, int *i,
                              kvp_error *err);

#endif
