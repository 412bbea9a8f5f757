/*
 * engine_ops.h — one record per engine (issue 27 item 1, kvp__ tier): what the
 * rooms used to find in parallel arrays and `switch (engine)` dispatches.
 * Each engine defines its record, kvp__engine_<name>, beside its rules; the
 * table kvp__engine_ops_of() reads is generated from kvplan/engines.def
 * (engines.c), so a new engine is its folder and one row of that list.
 */
#ifndef KVP_ENGINE_OPS_H
#define KVP_ENGINE_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "kvplan/policy.h"

struct kvp__startup_rule;
struct kvp__line_sink;

/* A release as the records and versions.c encode it: MAJOR*10000 + MINOR*100 + PATCH. */
#define KVP__REL(x, y, z) ((x) * 10000u + (y) * 100u + (z))

typedef kvp_status (*kvp__engine_plan_fn)(const kvp_model *model, const kvp_policy_settings *s,
                                          kvp_policy_result *out, kvp_error *err);

typedef struct kvp__engine_ops {
    const char *const *aliases;       /* other spellings kvp_engine_parse accepts; NULL-ended */
    const char *len_flag;             /* the engine's own flag for the context length */
    const char *help;                 /* `kvplan --policy help`: what the engine plans */
    /* Versions (versions.c): the forms --engine-version accepts, in words, and the
     * newest release (MAJOR*10000 + MINOR*100) whose code kvplan read. */
    const char *version_forms;
    uint32_t newest_release;
    /* The engine's policy (kvp_policy_run); TensorRT-LLM's refuses: the creator
     * plans it (kvp_deploy_plan). */
    kvp__engine_plan_fn plan;
    /* The start-up rules (startup_<name>.c). */
    const struct kvp__startup_rule *startup_rules;
    const size_t *startup_rule_count;
    /* kvp_policy_engine_report fields the engine prints (null when absent). */
    uint32_t report_fields;
    /* The KV dtypes `fit --solve dtype` tries by default, in the engine's
     * spellings; NULL-ended. */
    const char *const *fit_kv_dtypes;
    /* The sim scheduler replaying the engine (kvp_sim_policy_parse name); NULL when
     * kvplan replays none (llama.cpp's slots are fixed at start-up). */
    const char *sim_policy;
    /* clitext: the lines the engine itself prints at start-up for plan `r` (its
     * "Available KV cache memory: ...", "KV Cache is allocated. #tokens: ...",
     * llama_kv_cache: ...), one call of `out` per line, the figures of
     * r->report and r->pools; NULL when the engine's plan has none to print
     * (TensorRT-LLM: the creator's report, src/report/text_plan.c). The
     * text of `kvplan plan` (src/report/text_plan_policy.c) writes them. */
    void (*startup_lines)(const kvp_policy_result *r, const struct kvp__line_sink *out);
} kvp__engine_ops;

/* The record of `engine`; NULL for a value outside the list. The engine's name
 * is kvp_engine_name's, its title kvp__engine_title's: both from the list. */
const kvp__engine_ops *kvp__engine_ops_of(kvp_engine engine);
/* "TensorRT-LLM", "vLLM", "SGLang", "llama.cpp" (engines.def); "?" outside the list. */
const char *kvp__engine_title(kvp_engine engine);

/* Every engine's record, declared from the list. */
#define KVP_ENGINE_X(id, name, title) extern const kvp__engine_ops kvp__engine_##name;
#include "kvplan/engines.def"

#endif
