/* respell.h — flags in a message as the caller's user spelled them (no
 * jansson: the CLI's text code includes it). */
#ifndef KVP_REPORT_RESPELL_H
#define KVP_REPORT_RESPELL_H

#include <stddef.h>

/* The longest flag rewritten, its NUL included: KVP_OPTIONS_TYPED_MAX of
 * kvplan/options.h (a room the report does not use; src/cli/cli_options.c
 * checks the two agree). */
#define KVP__FLAG_TEXT_MAX 40

/* How the caller's user spelled option `flag` (a row's name or one of its
 * spellings: the CLI's typed flag, a request's key as a flag), written into buf
 * if needed; NULL to keep `flag` as it is. */
typedef const char *(*kvp__flag_spelling)(const void *ctx, const char *flag, char *buf,
                                          size_t size);

/* `text` into `out` with each flag in it ('-' at the start or after ' ' or '(',
 * then name characters) as `spell` says (NULL: copied). json_check.c. */
void kvp__respell_flags(const char *text, kvp__flag_spelling spell, const void *ctx, char *out,
                        size_t size);

#endif
