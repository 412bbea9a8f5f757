/*
 * kvplan/options.h — the one option table: every setting a command, a JSON
 * request (kvp_json_call, the Python package) or `kvplan serve` can give, under
 * kvplan's name and each engine's own spellings, with its value type, unit,
 * the settings field it sets (kvp_deployment, deploy.h; the start-up flags of
 * kvp_startup_settings, startup.h), the commands that take it and its help line.
 *
 * One parser reads every value, with one message per error kind naming the
 * option as the caller spelled it:
 *
 *   missing value   "--tp needs a value"
 *   not a number    "--tp: 'x' is not a whole number"    (kvp_parse_count's words)
 *   out of range    "--tp: 0 is out of range, expected 1 to 65536"
 *   not a size      "--gpu-mem: ..."                      (kvp_parse_bytes's words)
 *   zero size       "--gpu-mem: 0 bytes; expected a positive size"
 *   not a fraction  "--gpu-memory-utilization: 1.5 is not a fraction in (0, 1]"
 *   not a choice    "--kv-manager: 'v3' is not one of auto, v1, v2"
 *   too long        "--kv-dtype: 'xxxx...' is too long (at most 23 bytes)"
 *   not a boolean   "--enable-prefix-caching: 'maybe' is not true or false"
 *
 * Names. A name is looked up with or without its leading dashes, '_' read as
 * '-' for long names ("max_seq_len", "--max-seq-len" and TensorRT-LLM's
 * "--max_seq_len" are one row); short spellings ("-c", "-tp", "-np") match
 * exactly. JSON requests use the long names without dashes (docs/options.md).
 *
 *   kvp_options *o = kvp_options_new(KVP_COMMAND_PLAN);
 *   kvp_options_set(o, "--max-model-len", "8192", &err);   // vLLM's spelling
 *   kvp_options_set(o, "gpu-mem", "80GiB", &err);
 *   kvp_options_finish(o, &err);     // chooses vLLM, said in the notes
 *   const kvp_deployment *d = kvp_options_deployment(o);   // borrowed
 *   const kvp_notes *n = kvp_options_notes(o);  // "planning for vLLM (policy vllm): ..."
 *   ... d->policy, kvp_options_startup(o) ...
 *   kvp_options_free(o);                                  // d, n dangle now
 *
 * (examples/options.c runs this example; the tests build and run it.)
 *
 * Engines. An engine's own spelling ("--max-model-len", "--context-length",
 * "--tp_size", "-c") without --policy selects that engine when it belongs to
 * one engine only; spellings of two engines are a contradiction. With
 * --policy, another engine's spelling sets the same field (the reference
 * cases give vLLM names to every engine). A setting the chosen engine does not
 * read is a warning naming it (kvp_options_notes), never dropped silently.
 *
 * Thread safety: the table is constant; a kvp_options is one caller's.
 */
#ifndef KVPLAN_OPTIONS_H
#define KVPLAN_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kvplan/deploy.h"
#include "kvplan/error.h"
#include "kvplan/startup.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The commands (bits of kvp_option.commands). */
enum {
    KVP_COMMAND_PLAN = 1u << 0,
    KVP_COMMAND_FIT = 1u << 1,
    KVP_COMMAND_SWEEP = 1u << 2,
    KVP_COMMAND_COMPARE = 1u << 3,
    KVP_COMMAND_SIM = 1u << 4,
    KVP_COMMAND_CHECK = 1u << 5,
    KVP_COMMAND_COST = 1u << 6, /* the rows a cost reads: --tp, --pp, --kv-dtype, --block-size */
};
/* Engine bits (1u << kvp_engine). */
#define KVP_OPTION_ENGINE(e) (1u << (unsigned)(e))
#define KVP_OPTION_ENGINES_ALL 0xFu

typedef enum kvp_option_type {
    KVP_OPTION_FLAG = 0,   /* no value, or true/false/1/0/on/off after '=' */
    KVP_OPTION_COUNT,      /* whole number in [min, max] (k/M suffixes, kvp_parse_count) */
    KVP_OPTION_BYTES,      /* size, "80GiB" (kvp_parse_bytes); min 1 = positive */
    KVP_OPTION_FRACTION,   /* (0, 1] */
    KVP_OPTION_TEXT,       /* a string of at most max bytes */
    KVP_OPTION_CHOICE,     /* one of `choices` ("auto|v1|v2") */
} kvp_option_type;

#define KVP_OPTION_SPELLINGS_MAX 6

typedef struct kvp_option_spelling {
    const char *name;      /* "--max-model-len", "-c" */
    unsigned engines;      /* whose flag it is (KVP_OPTION_ENGINE bits); 0 = kvplan's */
    bool negate;           /* a FLAG's opposite ("--no-enable-chunked-prefill") */
} kvp_option_spelling;

typedef struct kvp_option {
    int id;                /* kvp_option_id (options_table.c); index in the table */
    const char *name;      /* kvplan's name: "--max-seq-len" */
    const char *field;     /* the settings field: "max_seq_len" (errors name it, item 8) */
    kvp_option_type type;
    const char *value_name;/* "N", "BYTES", "F", "T", NULL for flags (help) */
    const char *unit;      /* "tokens", "bytes", "GPUs", ... ; NULL none */
    uint64_t min, max;     /* COUNT range; BYTES: min 1 = positive; TEXT: max length */
    const char *choices;   /* CHOICE words, '|'-separated */
    unsigned commands;     /* KVP_COMMAND_* bits taking it */
    unsigned engines;      /* the engines whose flag the name is (one engine: the name
                              chooses it); what each engine reads is kvp_option_meaning_for */
    bool value_optional;   /* CHOICE: may stand alone ("--flash-attn" = on) */
    bool zero_ok;          /* FRACTION: 0 is allowed too, [0, 1] */
    bool repeats;          /* may be given more than once (--env K=V) */
    const char *help;      /* one line */
    kvp_option_spelling spellings[KVP_OPTION_SPELLINGS_MAX]; /* other names; name NULL ends */
} kvp_option;

/* The table (constant, static storage). */
KVP_API size_t kvp_option_count(void);
KVP_API const kvp_option *kvp_option_at(size_t index);
/* The row a name spells (see "Names" above), NULL when none. *spelling gets the
 * spelling's index + 1 (0 = kvplan's own name); may be NULL. */
KVP_API const kvp_option *kvp_option_lookup(const char *name, size_t *spelling);
/* The option that sets a settings field ("max_seq_len" -> "--max-seq-len"), NULL
 * when no row does. */
KVP_API const kvp_option *kvp_option_for_field(const char *field);

/* What one option means under one engine (engine_reads.c: one table per
 * engine, a row for every option): the engine reads it as `text`, or it has no
 * meaning there and `text` says why. The rows' `engines` bits are exactly the
 * engines that read them (tests/unit/test_option_meanings.c). */
typedef struct kvp_option_meaning {
    const char *option; /* the row's kvplan name */
    bool reads;         /* the engine's plan reads it */
    const char *text;   /* reads: what it maps to; else why it has no meaning there */
} kvp_option_meaning;
/* NULL for an engine out of range or a row no table classifies. */
KVP_API const kvp_option_meaning *kvp_option_meaning_for(const kvp_option *row, kvp_engine engine);

#define KVP_OPTIONS_MAX 128      /* rows the table may hold */
#define KVP_OPTIONS_TYPED_MAX 40 /* bytes of a spelling kept for messages */

/* The settings being built from (name, value) pairs: opaque (its fields are
 * internal, src/options/options_struct.h, and may grow without an ABI break);
 * read a finished set through the accessors below. */
typedef struct kvp_options kvp_options;

/* A new set with the engines' defaults (kvp_deployment_default,
 * kvp_startup_settings_default); NULL when out of memory. Free with
 * kvp_options_free (NULL is a no-op). */
KVP_API kvp_options *kvp_options_new(unsigned command);
KVP_API void kvp_options_free(kvp_options *options);

/* Reading a set (after kvp_options_finish; before it, what was set so far).
 * Pointers are borrowed: valid while the options live, unchanged until the
 * next kvp_options_set or kvp_options_finish; never free them. */
/* The KVP_COMMAND_* bit the set was created for. */
KVP_API unsigned kvp_options_command(const kvp_options *options);
/* The settled deployment: model and draft NULL (the caller loads them; copy
 * the struct and set them). Its kv windows point into the options. */
KVP_API const kvp_deployment *kvp_options_deployment(const kvp_options *options);
/* The start-up flags (.policy copied from the deployment by kvp_options_finish). */
KVP_API const kvp_startup_settings *kvp_options_startup(const kvp_options *options);
/* What kvp_options_finish decided (the engine chosen and why; settings the
 * engine does not read) and what it warns (a release newer than known). */
KVP_API const kvp_notes *kvp_options_notes(const kvp_options *options);
KVP_API const kvp_notes *kvp_options_warnings(const kvp_options *options);
/* --gpu NAME and --draft MODEL as given (the caller's value, borrowed by
 * kvp_options_set); NULL when not given. */
KVP_API const char *kvp_options_gpu(const kvp_options *options);
KVP_API const char *kvp_options_draft(const kvp_options *options);
/* --gpus N; 0 when not given. */
KVP_API uint32_t kvp_options_gpus(const kvp_options *options);

/* Apply one (name, value): the value is checked and written into the settings
 * field of the row `name` spells. `value` NULL for a flag; a flag also takes
 * "true"/"false" (JSON booleans as text). KVP_INVALID_ARG with the message of
 * its kind (above) and err->key = name as given; KVP_NOT_FOUND when no row has
 * the name (err->key = name); an option given twice is KVP_INVALID_ARG. Text
 * values are borrowed for --gpu and --draft (kept in `options`) and for the
 * creator's names (--sparse-attention, --attn-backend, --transceiver-*,
 * --compression-quant: kvp_deploy_settings holds pointers), copied otherwise;
 * a value must outlive the options (argv does). */
KVP_API KVP_NODISCARD kvp_status kvp_options_set(kvp_options *options, const char *name,
                                                 const char *value, kvp_error *err);
/* Was the row with kvplan name `name` given? */
KVP_API bool kvp_options_given(const kvp_options *options, const char *name);
/* The spelling the caller used for row `name` (kvplan name), `name` itself when not given. */
KVP_API const char *kvp_options_typed(const kvp_options *options, const char *name);

/* After the last set: choose the engine (--policy, else the one engine whose
 * spellings were used, noted), refuse contradictions naming both sides (two
 * engines' spellings; --gpu with --gpu-mem; --kv-budget with device memory;
 * --peak with --activation-peak), refuse an --engine-version the chosen engine
 * does not know (listing the forms it knows), warn about settings the engine
 * does not read, and copy the shared settings into the start-up settings.
 * KVP_INVALID_ARG on a contradiction. */
KVP_API KVP_NODISCARD kvp_status kvp_options_finish(kvp_options *options, kvp_error *err);

/* Is `version` an --engine-version kvplan's rules for `engine` understand
 * (a release number "0.9.1", a build "b7217", a date "2025-10-07", or an era
 * word of that engine)? KVP_INVALID_ARG naming the forms it knows otherwise. */
KVP_API KVP_NODISCARD kvp_status kvp_engine_version_check(kvp_engine engine, const char *version,
                                                          kvp_error *err);

#ifdef __cplusplus
}
#endif
#endif
