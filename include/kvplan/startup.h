/*
 * kvplan/startup.h — will the engine start? Each engine's start-up refusals
 * (shared/reference/STARTUP.md, rule ids V-*, S-*, T-*, L-*) evaluated on a
 * deployment before a GPU is booked.
 *
 * The rules are data: one table per engine (src/engines/<engine>/startup_<engine>.c),
 * each row with its STARTUP.md id, the engine versions where it holds, how
 * sure the rule is (read in the source, seen in threads, knowledge), its
 * condition, the engine's message and the fix. Rules STARTUP.md marks as
 * knowledge or uncertain are defaults that a caller may switch off by id.
 * Rules that cannot be decided offline are listed with the reason.
 *
 * Use:
 *     kvp_startup_settings s = kvp_startup_settings_default();
 *     s.policy.engine = KVP_ENGINE_VLLM; s.policy.tp = 5;
 *     s.gpu = <kvp_gpu_lookup("h100")>; s.gpu_known = true;
 *     kvp_startup_report rep;
 *     kvp_startup_check(model, &s, NULL, &rep, &err);   // rep.starts == false, V-PAR-1
 * The memory rules (V-MEM-*, S-MEM-1, S-LEN-2, T-MEM-*, L-MEM-*) read the
 * engine policy's plan of the same deployment when the caller passes it
 * (kvp_startup_plan_input); without one they are `unknown`.
 *
 * Thread safety: pure functions of their inputs.
 */
#ifndef KVPLAN_STARTUP_H
#define KVPLAN_STARTUP_H

#include <stdbool.h>
#include <stdint.h>

#include "kvplan/error.h"
#include "kvplan/gpu.h"
#include "kvplan/model.h"
#include "kvplan/policy.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The model facts the start-up rules read (kvp_model_startup,
 * kvp_model_get_startup) are the model's: kvplan/model.h. */

/* ------------------------------------------------------------------ settings */

#define KVP_STARTUP_MAX_ENV 16
#define KVP_STARTUP_MAX_DISABLED 32

/* Weights and activations dtype (--dtype). */
typedef enum kvp_run_dtype {
    KVP_RUN_DTYPE_AUTO = 0,
    KVP_RUN_DTYPE_FLOAT16,
    KVP_RUN_DTYPE_BFLOAT16,
    KVP_RUN_DTYPE_FLOAT32,
} kvp_run_dtype;

/* "auto", "float16" ("half", "fp16"), "bfloat16" ("bf16"), "float32" ("float", "fp32").
 * KVP_INVALID_ARG when unknown. */
KVP_API KVP_NODISCARD kvp_status kvp_run_dtype_parse(const char *text, kvp_run_dtype *out);
KVP_API const char *kvp_run_dtype_name(kvp_run_dtype dtype);

/* A deployment as start-up sees it: the policy settings (engine, version,
 * parallelism, lengths, batch limits, KV dtype, llama.cpp context) plus the
 * flags only start-up reads. Start from kvp_startup_settings_default(). */
typedef struct kvp_startup_settings {
    kvp_policy_settings policy;
    kvp_gpu_info gpu;             /* name, total, compute capability (0 = unknown) */
    bool gpu_known;               /* false: no GPU named (--gpu-mem alone) */
    uint32_t gpu_count;           /* GPUs visible; 0 = not stated (then TP x PP x DP) */
    kvp_run_dtype dtype;          /* --dtype */
    char quantization[32];        /* --quantization, "" = from the checkpoint */
    bool trust_remote_code;
    bool enforce_eager;
    int enable_prefix_caching;    /* -1 = engine default, 0 off, 1 on */
    int enable_chunked_prefill;   /* -1 = engine default, 0 off, 1 on */
    bool enable_expert_parallel;
    uint32_t ep_size;             /* SGLang --ep-size: moe_tp_size = tp / ep_size; 0 = 1 */
    char runner[16];              /* vLLM --runner: "", auto, generate, pooling, draft */
    bool language_model_only;     /* vLLM --language-model-only: no multimodal encoder */
    char speculative_method[32];  /* "" = none; "eagle", "mtp", "ngram", "draft" ... */
    uint32_t num_speculative_tokens;
    uint32_t env_count;           /* environment the engine starts with */
    char env[KVP_STARTUP_MAX_ENV][2][128];
    uint32_t disabled_count;      /* rule ids switched off ("V-PAR-2"); "defaults" = every
                                     knowledge / uncertain default */
    char disabled[KVP_STARTUP_MAX_DISABLED][16];
    /* Added in 1.0 from the reserved room (one word: sizes and offsets kept). */
    bool skip_mm_profiling;       /* vLLM --skip-mm-profiling: the profile skips the encoder */
    uint64_t reserved_[KVP_RESERVED_WORDS - 1]; /* room for growth: zero, do not use (ABI) */
} kvp_startup_settings;

KVP_API kvp_startup_settings kvp_startup_settings_default(void);
/* Add K=V (KVP_INVALID_ARG: no '=', an empty or invalid name, too long or too
 * many); a later K replaces an earlier one. */
KVP_API KVP_NODISCARD kvp_status kvp_startup_set_env(kvp_startup_settings *s, const char *assignment,
                                             kvp_error *err);
/* Switch a rule off by id, or "defaults" for all knowledge / uncertain rules.
 * KVP_INVALID_ARG for an id no table has. */
KVP_API KVP_NODISCARD kvp_status kvp_startup_disable(kvp_startup_settings *s, const char *rule_id,
                                             kvp_error *err);

/* -------------------------------------------------------------------- report */

typedef enum kvp_check_status {
    KVP_CHECK_PASS = 0,
    KVP_CHECK_REFUSE,   /* the engine exits at start-up */
    KVP_CHECK_ADJUST,   /* the engine changes a setting itself and starts */
    KVP_CHECK_WARN,
    KVP_CHECK_UNKNOWN,  /* an input the rule needs is missing */
    KVP_CHECK_STATUS_COUNT
} kvp_check_status;

/* "pass", "refuse", "adjust", "warn", "unknown". */
KVP_API const char *kvp_check_status_name(kvp_check_status status);

typedef struct kvp_check_row {
    char rule[16];              /* STARTUP.md id, "V-PAR-1" */
    kvp_check_status status;
    char setting[40];           /* the settings field it is about ("tp", "max_model_len") */
    char message[480];          /* the engine's message in its words (pass: what was checked) */
    char fix[320];              /* what makes it start; "" when nothing to fix */
    char basis[32];             /* "read @0052a5b", "thread", "knowledge" */
    char versions[64];          /* engine versions where the rule holds */
    bool is_default;            /* a knowledge / uncertain default (can be switched off) */
} kvp_check_row;

/* A rule not decided offline, and why. */
typedef struct kvp_startup_undecided {
    char rule[16];
    char reason[200];
} kvp_startup_undecided;

#define KVP_STARTUP_MAX_CHECKS 48
#define KVP_STARTUP_MAX_UNDECIDED 16

typedef struct kvp_startup_report {
    kvp_engine engine;
    char engine_version[128];   /* as given, "" = latest rules */
    bool starts;                /* no rule refuses */
    uint32_t count;
    kvp_check_row checks[KVP_STARTUP_MAX_CHECKS]; /* in the order the engine checks */
    uint32_t counts[KVP_CHECK_STATUS_COUNT];
    int first_refusal;          /* index into checks of the first refusal the engine hits, -1 */
    uint32_t undecided_count;
    kvp_startup_undecided undecided[KVP_STARTUP_MAX_UNDECIDED];
    uint32_t disabled_count;    /* rules skipped because switched off */

    /* The settings as the engine runs them (the adjustments applied). */
    kvp_dtype run_dtype;        /* weights / activations dtype after --dtype auto and fallbacks */
    bool run_dtype_adjusted;    /* differs from what was asked (fp16 fallback, fp32 for Gemma-2) */
    uint64_t max_model_len;     /* context the engine runs with (derived default, clamps) */
    bool max_model_len_adjusted;
    uint64_t reserved_[KVP_RESERVED_WORDS]; /* room for growth: zero, do not use (ABI) */
} kvp_startup_report;

/* The engine policy's plan of the same deployment, for the memory rules. */
typedef struct kvp_startup_plan_input {
    kvp_status status;                /* kvp_policy_plan's status */
    const kvp_policy_result *result;  /* when status is KVP_OK */
    const char *message;              /* its error message otherwise */
    uint64_t weights_bytes;           /* per rank, as planned */
    bool weights_estimated;
    /* The terms allocated after the KV cache against what sizing leaves
     * (kvp_deploy_result's headroom figures; docs/memory.md "One headroom
     * verdict"). headroom_compared false: not compared (no terms, a KV budget). */
    bool headroom_compared;
    bool headroom_short;              /* need > headroom: a warning with the bound */
    bool headroom_refused;            /* sure > startup: out of memory at start-up */
    uint64_t headroom_bytes, headroom_need_bytes, headroom_sure_bytes, headroom_startup_bytes;
    const char *headroom_terms;       /* the terms' names; NULL = none */
} kvp_startup_plan_input;

/* Evaluate every rule of s->policy.engine's table on the deployment. `plan`
 * may be NULL (memory rules unknown). Errors: KVP_INVALID_ARG for NULL
 * arguments. A refusal is not an error: rep->starts is false. */
KVP_API KVP_NODISCARD kvp_status kvp_startup_check(const kvp_model *model, const kvp_startup_settings *s,
                                           const kvp_startup_plan_input *plan,
                                           kvp_startup_report *rep, kvp_error *err);

/* Apply what the report says the engine adjusts to the settings a plan is
 * computed with: max_model_len (the derived default when none was given, a
 * clamp, an auto-fit; llama.cpp n_ctx after --fit) and, when the KV dtype
 * follows the model, the dtype the engine runs in (fp16 fallback, fp32 for
 * models that exclude fp16). NULL arguments: no-op. */
KVP_API void kvp_startup_apply(const kvp_model *model, const kvp_startup_report *rep,
                       kvp_policy_settings *s);

/* The rule table of an engine, for docs and --list: `count` rows; row i's id,
 * versions, basis, condition and whether it is a default. Static strings. */
typedef struct kvp_startup_rule_info {
    const char *id;
    const char *versions;
    const char *basis;
    const char *condition;
    const char *fix;
    bool is_default;
    bool decidable;             /* false: listed as not decidable offline */
    const char *undecidable_reason;
} kvp_startup_rule_info;
KVP_API size_t kvp_startup_rule_count(kvp_engine engine);
KVP_API KVP_NODISCARD kvp_status kvp_startup_rule(kvp_engine engine, size_t index,
                                          kvp_startup_rule_info *out);

#ifdef __cplusplus
}
#endif
#endif
