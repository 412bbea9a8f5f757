/* argv_words.h — the deciding part of reading a command line onto the option
 * table (kvplan/options.h): which row a word names and which words are its
 * value, the names "did you mean" searches, the engine a command line implies,
 * an option given twice, and the flag a settings field was typed as. No
 * printing: src/cli/cli_options.c and cli_util.c say what these decide. */
#ifndef KVP_OPTIONS_ARGV_WORDS_H
#define KVP_OPTIONS_ARGV_WORDS_H

#include <stdbool.h>
#include <stddef.h>

#include "kvplan/options.h"

/* argv[*i] as a row of the table for `command`: "--name V", "--name=V", a flag,
 * or a flag with "=true|false" (or a following "true"/"false"); `name` gets the
 * name as typed, *value the value (NULL for none; *i past a separate one).
 * NULL when argv[*i] is no row of `command` (nothing consumed). */
const kvp_option *kvp__argv_row(unsigned command, int argc, char **argv, int *i,
                                char name[KVP_OPTIONS_TYPED_MAX], const char **value);
/* The table's names for `command` (every spelling), NULL-terminated, in static
 * storage: for "did you mean". */
const char *const *kvp__option_names(unsigned command);
/* A word that names a row of the table only other commands take: `where` gets
 * those commands ("plan, fit") and `name` the name typed; false otherwise. */
bool kvp__option_elsewhere(const char *arg, unsigned command, char name[KVP_OPTIONS_TYPED_MAX],
                           char *where, size_t where_size);
/* Without --policy: the one engine whose own flags argv uses (*engine, -1 when
 * none; `by` gets the first such flag). Flags of two engines: KVP_INVALID_ARG
 * naming both ("B contradicts A: ...", keyed by the second). */
kvp_status kvp__argv_implied_engine(int argc, char **argv, unsigned command, int *engine, char *by,
                                    size_t by_size, kvp_error *err);
/* An option given twice ("--tp 2 --tp 4"): true with its name in `name`.
 * Options meant to repeat (--over, --decl, --engine-version) and the words of
 * a --from command are not counted. */
bool kvp__argv_repeated(int argc, char **argv, char *name, size_t name_size);
/* A refusal of two options that contradict: "B contradicts A: WHY", keyed by B. */
kvp_status kvp__contradiction(const char *a, const char *b, const char *why, kvp_error *err);

/* A list of engines ("vllm,sglang": --policies, kvp_json_call's "policies"):
 * each added once, in order, to engines[*n] (KVP_ENGINE_COUNT room). An empty
 * list or item, a list past 255 bytes or an unknown engine is refused, the
 * message starting with `what` ("--policies") and the error keyed by `key`. */
kvp_status kvp__engine_list(const char *text, const char *what, const char *key,
                            kvp_engine *engines, size_t *n, kvp_error *err);
/* One engine of such a list (an array's item). */
kvp_status kvp__engine_list_add(const char *name, const char *what, const char *key,
                                kvp_engine *engines, size_t *n, kvp_error *err);

/* The spelling `typed` (may be NULL) records for the row that sets `field`, the
 * table's name when not given, NULL when no row sets it. */
const char *kvp__typed_flag(const kvp_options *typed, const char *field);
/* The spelling `typed` records for the row `flag` names (any spelling), NULL
 * when that row was not given. */
const char *kvp__typed_spelling(const kvp_options *typed, const char *flag);
/* The flag that sets a settings field named by a library error ("max_seq_len"
 * -> "--max-seq-len", as `typed` spelled it); the field itself when none does. */
const char *kvp__field_flag(const kvp_options *typed, const char *field);

/* `kvplan plan`'s two planners: *creator true for TensorRT-LLM's creator (the
 * default, and every spelling of trtllm), false for the engine policies: the
 * engine of the --from command (`from_engine`, NULL without one), else
 * --policy, else an engine's own flags (kvp__argv_implied_engine, whose error
 * this returns). */
kvp_status kvp__plan_uses_creator(int argc, char **argv, const char *from_engine, bool *creator,
                                  kvp_error *err);

/* The global `--gpu-catalog FILE` (or --gpu-catalog=FILE) taken out of argv,
 * so every command sees its own options only (words after "--" are left
 * alone): *path the file, NULL when not given. A missing or empty value, or a
 * second one, is refused. */
kvp_status kvp__take_gpu_catalog(int *argc, char **argv, const char **path, kvp_error *err);

/* An error as the user typed it: a settings field the library names (the
 * error's key, "max_seq_len") read as the flag `typed` spelled it
 * (kvp__field_flag) at the start of the message, or after "FILE: " when the
 * user gave that option, and as the key. `out` may be `in`. */
void kvp__error_as_typed(const kvp_options *typed, const kvp_error *in, kvp_error *out);

#endif
