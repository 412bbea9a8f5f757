/*
 * startup_internal.h — the start-up rule tables (kvplan/startup.h) and the
 * helpers their rows share (kvp__ tier, src/engines/ only).
 *
 * A table row is data: id, versions, basis, setting, condition, fix, whether
 * it is a switchable default, and an evaluator that reads the context and
 * fills the check's status, message (the engine's words) and fix. A row with
 * no evaluator is listed as not decidable offline, with its reason.
 */
#ifndef KVP_STARTUP_INTERNAL_H
#define KVP_STARTUP_INTERNAL_H

#include "kvplan/cost.h"
#include "kvplan/startup.h"
#include "policy_internal.h"

typedef struct kvp__startup_ctx {
    const kvp_model *model;
    const kvp_model_info *info;
    const kvp_model_startup *facts;
    const kvp_startup_settings *s;
    const kvp_startup_plan_input *plan; /* NULL: memory rules unknown */
    kvp_startup_report *rep;
    uint32_t tp, pp, dp;
    uint32_t gpus;            /* visible GPUs (stated, else tp*pp*dp) */
    bool gpus_stated;
    uint32_t version;         /* X*10000 + Y*100 + Z; 0 = latest */
    uint32_t build;           /* llama.cpp build number, 0 = latest */
    uint32_t cc;              /* compute capability, 0 = unknown */
    bool amd;
    kvp_dtype ckpt_dtype;     /* the checkpoint's dtype */
    char quant[32];           /* effective quantization method (lower case), "" none */
    bool block_fp8;           /* block-scaled FP8 weights */
    uint64_t user_len;        /* max_model_len / context the user gave, 0 = none */
    uint32_t heads, kv_heads;
} kvp__startup_ctx;

typedef void (*kvp__startup_eval)(kvp__startup_ctx *c, kvp_check_row *row);

typedef struct kvp__startup_rule {
    const char *id;
    const char *versions;
    const char *basis;
    const char *setting;
    const char *condition;
    const char *fix;
    bool is_default;           /* knowledge / uncertain: switchable */
    kvp__startup_eval eval;    /* NULL: not decidable offline */
    const char *undecidable;   /* why, when eval is NULL */
} kvp__startup_rule;

extern const kvp__startup_rule kvp__startup_vllm[];
extern const size_t kvp__startup_vllm_count;
extern const kvp__startup_rule kvp__startup_sglang[];
extern const size_t kvp__startup_sglang_count;
extern const kvp__startup_rule kvp__startup_trtllm[];
extern const size_t kvp__startup_trtllm_count;
extern const kvp__startup_rule kvp__startup_llamacpp[];
extern const size_t kvp__startup_llamacpp_count;

/* Set status, fix ("" none) and the message (printf). */
void kvp__check_set(kvp_check_row *row, kvp_check_status status, const char *fix,
                    const char *fmt, ...) KVP_PRINTF(4, 5);
/* The row of a capability rule on a GPU whose compute capability is not known
 * (no --gpu, or an entry without one), shared by every engine's rules: unknown,
 * `fix`, and "<what needs what>: the GPU's capability is not known". */
void kvp__startup_cc_unknown(kvp_check_row *row, const char *fix, const char *needs, ...)
    KVP_PRINTF(3, 4);
/* Environment variable set to a true value ("1", "true", "yes", "on")? */
bool kvp__startup_env_true(const kvp__startup_ctx *c, const char *name);
/* Environment variable present (any value), NULL when not. */
const char *kvp__startup_env(const kvp__startup_ctx *c, const char *name);
/* The same lookup on the settings alone (the memory profile has no context). */
const char *kvp__startup_settings_env(const kvp_startup_settings *s, const char *name);
/* "1, 2, 4, 5, 8" — the TP sizes from 1 to limit for which every value in
 * dims[] is divisible (and, with `block`, every dims[i] / tp divisible by block). */
void kvp__startup_tp_list(const uint64_t *dims, size_t n, uint64_t block, uint32_t limit,
                          char *buf, size_t size);
/* GiB with two decimals, as the engines print them. */
double kvp__startup_gib(uint64_t bytes);
/* The full width of each split linear of the model and how many ranks split
 * it (splits[]: TP, or the MoE TP for routed experts, 1 under expert
 * parallelism): name, value, split into the arrays (up to cap); returns how many. */
size_t kvp__startup_split_widths(const kvp__startup_ctx *c, const char **names, uint64_t *values,
                                 uint32_t *splits, size_t cap);
/* V-MOD-2 / S-MOD-1: auto_map without --trust-remote-code, refused (with the
 * engine's message) only for a type Transformers lacks and the engine does not
 * register at this release (startup_registry.c). */
void kvp__startup_remote_code(kvp__startup_ctx *c, kvp_check_row *r, const char *engine_msg);
/* The memory rules share how the plan went: true when a plan is there (then
 * *r is set), false after marking the row unknown. */
bool kvp__startup_need_plan(kvp__startup_ctx *c, kvp_check_row *row, const kvp_policy_result **r);
/* The memory rule every engine has for the terms allocated after the KV cache
 * (V-MEM-6, S-MEM-3, T-MEM-4): refuse when exact or bounded start-up terms do
 * not fit what start-up has, warn with the bound otherwise (startup.c). */
void kvp__startup_headroom(kvp__startup_ctx *c, kvp_check_row *row);
/* Record the dtype the engine runs the weights in. */
void kvp__startup_set_run_dtype(kvp__startup_ctx *c, kvp_dtype d);
/* Capability as "8.0" for messages. */
const char *kvp__startup_cc(const kvp__startup_ctx *c, char *buf, size_t size);

/* Internal since 1.0.0 (issue 27 item 7: nobody outside the library called them;
 * they left the public headers). */
/* The length the engine derives when the user gives none (vLLM
 * _get_and_verify_max_len, SGLang get_context_length, TRT-LLM's inference,
 * llama.cpp n_ctx_train). 0 for NULL arguments. */
uint64_t kvp__startup_default_len(const kvp_model *model, const kvp_startup_settings *s);

#endif
