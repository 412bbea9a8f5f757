/*
 * kvplan/deploy.h — one deployment, planned end to end by one call.
 *
 * A deployment is a model on one GPU (rank) under one engine: the memory facts
 * (measured or estimated), the parallelism, the KV dtype, the lengths, the
 * batch limits and the engine's own settings. kvp_deploy_plan runs the whole
 * pipeline once:
 *
 *   memory facts (measured terms as given, the rest estimated from the config)
 *     -> TensorRT-LLM: the creator (plan.h, the seed's logic: estimation pass,
 *        capacity, managers)   |   vLLM, SGLang, llama.cpp: the policy (policy.h)
 *     -> capacity: tokens, blocks, the concurrent sequences the cache holds,
 *        what binds them, the longest sequence, whether the engine starts
 *     -> one result value (budget terms, pools, capacity, engine report, warnings)
 *
 * Every command (`plan`, `fit`, `sweep`, `compare`, `sim`) builds a
 * kvp_deployment and calls kvp_deploy_plan, so the same settings give the
 * same numbers everywhere (tests/unit/test_deploy_property.c checks it).
 *
 *   kvp_deployment d = kvp_deployment_default();
 *   d.model = model;  d.engine = KVP_ENGINE_VLLM;  d.memory.total_bytes = 80ull << 30;
 *   kvp_deploy_result *r = kvp_deploy_result_new();
 *   if (kvp_deploy_plan(&d, r, &err) == KVP_OK && r->status == KVP_OK) ... r->max_sequences
 *   kvp_deploy_result_free(r);
 *
 * Thread safety: kvp_deploy_plan is a pure function of its inputs (it builds
 * and frees its own creator); no global state.
 */
#ifndef KVPLAN_DEPLOY_H
#define KVPLAN_DEPLOY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kvplan/error.h"
#include "kvplan/memory.h"
#include "kvplan/model.h"
#include "kvplan/plan.h"
#include "kvplan/policy.h"
#include "kvplan/startup.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KVP_DEPLOY_REASON_MAX 320

/* The settings every engine shares and a search varies (fit.h's kvp_fit_point).
 * Zero fields take the engine settings' own value (kvp_deployment.trtllm /
 * .policy), and then the engine's default. */
typedef struct kvp_deploy_point {
    kvp_engine engine;
    uint32_t tp, pp;                 /* 0 = settings (1) */
    char kv_dtype[24];               /* kvplan name for trtllm ("fp8"), engine spelling otherwise
                                        (llama.cpp: both cache types); "" = auto */
    uint64_t max_seq_len;            /* vLLM max_model_len, SGLang context_length, llama.cpp
                                        n_ctx_seq, TRT-LLM max_seq_len; 0 = the model's */
    uint32_t sequences;              /* llama.cpp: --parallel slots (n_ctx = max_seq_len * this) */
    uint64_t max_batch_size;         /* trtllm: 0 = settings (fit sizes it to the concurrency
                                        for models with recurrent state) */
    uint64_t seq_len;                /* length the concurrency is counted at; 0 = the max_seq_len
                                        the engine starts with. At most max_seq_len */
} kvp_deploy_point;

/* Memory facts of one rank. A term given (has_*) is used as given and never
 * also estimated; the terms not given are estimated from the config for this
 * tp / pp (docs/memory.md). */
typedef struct kvp_deploy_memory {
    uint64_t total_bytes;            /* device total (catalogue, --gpu-mem, probe) */
    uint64_t free_bytes;             /* free now (probe / --free-mem); 0 = unknown. TRT-LLM:
                                        memory already held counts as outside the allocator;
                                        vLLM: start-up check and suggestions */
    uint64_t kv_budget_bytes;        /* > 0: the engine's KV budget directly (vLLM available KV
                                        memory, SGLang rest, TRT-LLM after the fraction); the
                                        terms below are unused */
    bool has_weights, has_peak, has_activation_peak, has_non_torch, has_cuda_graph;
    uint64_t weights_bytes;          /* weights on this rank */
    uint64_t peak_bytes;             /* allocator peak of the profiling pass, weights included
                                        (the seed's torch peak; vLLM V0 peak_torch_memory) */
    uint64_t activation_peak_bytes;  /* the peak without the weights (vLLM V1 "peak
                                        activation"); give peak or this, not both */
    uint64_t non_torch_bytes;        /* outside the allocator. TRT-LLM: measured after the
                                        graphs are captured, so it includes them */
    uint64_t cuda_graph_bytes;       /* captured CUDA graphs (vLLM "CUDAGraph memory") */
    uint64_t estimation_kv_bytes;    /* TRT-LLM: KV the profiling pass held (added back) */
    uint64_t local_graph_bytes;      /* model-local graph-resident caches: charged to the CUDA
                                        graph term when the activation peak is estimated
                                        (model-local-kv-caches.md); 0 = none */
    const char *model_dir;           /* checkpoint folder: exact weights from safetensors
                                        headers; NULL = from the config. Borrowed */
    kvp_dtype weights_dtype;         /* estimated weights at this dtype; AUTO = the
                                        checkpoint's (quantization_config) */
    const char *quantization;        /* --quantization (kvp_weight_format_parse); NULL = the
                                        checkpoint's. Borrowed */
    uint32_t ep;                     /* TRT-LLM / SGLang expert-parallel size (--ep); 0 = 1 */
    bool enable_expert_parallel;     /* vLLM --enable-expert-parallel: EP = TP x DP */
    uint32_t cuda_graph_max_bs;      /* vLLM / SGLang largest captured batch (--cuda-graph-max-bs;
                                        vLLM --cuda-graph-sizes N); 0 = the engine's default */
    uint32_t cuda_graph_sizes[64];   /* --cuda-graph-batch-sizes: the capture list, ascending,
                                        every engine; replaces the engine's default list */
    uint32_t cuda_graph_size_count;  /* 0 = the engine's default list */
} kvp_deploy_memory;

/* Admission (docs/admission.md): how many requests the engine runs at once, by
 * its own rule, beside the plain fit count (max_sequences). TensorRT-LLM's
 * capacity_scheduler_policy spellings. */
typedef enum kvp_capacity_policy {
    KVP_CAPACITY_DEFAULT = 0,            /* the engine's default (TRT-LLM: GUARANTEED_NO_EVICT) */
    KVP_CAPACITY_GUARANTEED_NO_EVICT,    /* a request reserves every block it may need */
    KVP_CAPACITY_MAX_UTILIZATION,        /* only the next step must fit; newest paused */
} kvp_capacity_policy;

/* "GUARANTEED_NO_EVICT", "MAX_UTILIZATION" ("default" for KVP_CAPACITY_DEFAULT). */
KVP_API const char *kvp_capacity_policy_name(kvp_capacity_policy policy);
/* The TRT-LLM spelling, case-insensitive ("guaranteed_no_evict", "MAX_UTILIZATION").
 * KVP_INVALID_ARG naming capacity_scheduler_policy for anything else. */
KVP_API KVP_NODISCARD kvp_status kvp_capacity_policy_parse(const char *text,
                                                           kvp_capacity_policy *out,
                                                           kvp_error *err);

/* The requests the engine is asked to admit. Zero = not given. */
typedef struct kvp_admission_settings {
    uint64_t isl;                    /* prompt tokens of each request (--isl) */
    uint64_t osl;                    /* output tokens each request generates (--osl) */
    uint64_t max_new_tokens;         /* the request's max_new_tokens; 0 = what the engine's
                                        OpenAI server fills when the client sends none:
                                        max_seq_len - prompt (TRT-LLM _deduce_max_tokens,
                                        vLLM and SGLang the same) */
    kvp_capacity_policy policy;      /* TRT-LLM capacity_scheduler_policy */
} kvp_admission_settings;

/* One deployment. Start from kvp_deployment_default(). */
typedef struct kvp_deployment {
    const kvp_model *model;          /* borrowed; required */
    const kvp_model *draft;          /* borrowed; TRT-LLM draft model (EAGLE3 head, two-model);
                                        NULL = none */
    kvp_deploy_point point;
    kvp_deploy_memory memory;
    /* TensorRT-LLM's settings (point.tp, pp, kv_dtype, max_seq_len, max_batch_size
     * override these when non-zero). Pointers in them are borrowed. */
    kvp_deploy_settings trtllm;
    kvp_kv_config kv;
    /* vLLM, SGLang and llama.cpp settings (engine, tp, pp, dtype, length from point;
     * the memory figures from `memory`). */
    kvp_policy_settings policy;
    kvp_admission_settings admission; /* the requests admitted (all engines) */
    /* What only the engine's start-up checks read (startup.h): the GPU's identity
     * (compute capability; gpu_known false = not named, those rules `unknown`),
     * the visible GPU count, --dtype, --quantization, the feature flags, the
     * environment and the rules switched off. startup.policy is not read: the
     * pipeline fills it with the settings the point plans. */
    kvp_startup_settings startup;
    /* Every allocation of kvp_deploy_plan, the fit and the sweep on this
     * deployment goes through it (borrowed; NULL = the model's allocator,
     * kvp_model_allocator, libc when the model has none). Their scratch memory
     * is freed before they return. */
    const kvp_allocator *alc;
    uint64_t reserved_[KVP_RESERVED_WORDS]; /* room for growth: zero, do not use (ABI) */
} kvp_deployment;

/* Defaults: trtllm, CUDA graphs up to batch 128 (as `kvplan plan`), the
 * policies' defaults (kvp_policy_settings_default), the start-up defaults
 * (kvp_startup_settings_default: no GPU named). */
KVP_API kvp_deployment kvp_deployment_default(void);
/* The allocator planning `deployment` allocates through: deployment->alc, else
 * the model's (kvp_model_allocator); NULL = libc. */
KVP_API const kvp_allocator *kvp_deployment_allocator(const kvp_deployment *deployment);

/* The one step from a command's settings to the deployment it plans (every
 * command and binding takes it, so a start-up field added later reaches them
 * all): `startup` (the option table's start-up settings, every field) becomes
 * d->startup, and a GPU named from the catalogue (`gpu`, NULL = none) gives the
 * start-up rules its identity (compute capability) and the deployment its
 * memory: d->memory.total_bytes, unless the device memory was given on its own
 * (`total_given`, --gpu-mem). With `startup`, d->memory.quantization is cleared:
 * --quantization is one setting, which the pipeline reads from d->startup. */
KVP_API void kvp_deployment_settle(kvp_deployment *d, const kvp_startup_settings *startup,
                                   const kvp_gpu_info *gpu, bool total_given);

/* The engine's admission rule applied to the plan (docs/admission.md). */
typedef struct kvp_admission {
    bool present;                    /* computed (false: admitted unknown, `refused` says why) */
    kvp_status status;               /* KVP_OK, or the request refused: KVP_INVALID_ARG (a prompt
                                        or max_new_tokens past max_seq_len; `key` names the
                                        field), KVP_INFEASIBLE (a reservation no pool can ever
                                        hold; `refused` gives the largest length that fits) */
    char key[KVP_ERROR_KEY_MAX];     /* the settings field a refusal is about */
    kvp_capacity_policy policy;      /* TRT-LLM: the resolved policy; others: DEFAULT */
    bool reserves;                   /* a request reserves its blocks to completion at admission */
    char rule[KVP_DEPLOY_REASON_MAX];        /* the rule, with its source */
    char reservation[KVP_DEPLOY_REASON_MAX]; /* what one request was assumed to hold */
    char refused[KVP_ERROR_MESSAGE_MAX];     /* why admitted is unknown ("" when present) */
    uint64_t prompt_tokens;          /* P assumed (0 = not given and not needed) */
    uint64_t max_new_tokens;         /* N assumed */
    bool max_new_tokens_default;     /* N is the server's default, max_seq_len - P */
    uint64_t output_tokens;          /* tokens each request really generates (steady state) */
    uint64_t reservation_tokens;     /* tokens one request reserves (P + N, + speculative) */
    uint64_t reservation_blocks;     /* blocks it reserves in the binding pool (beams in) */
    uint64_t kv_admitted;            /* requests the KV cache admits under the rule;
                                        UINT64_MAX when no pool limits */
    uint64_t scheduler_capacity;     /* requests the scheduler holds (TRT-LLM max_batch_size x
                                        pp, V2: max_batch_size; vLLM max_num_seqs; SGLang
                                        max_running_requests; llama.cpp --parallel) */
    uint64_t seq_slots;              /* TRT-LLM compute_max_num_sequences (overlap headroom) */
    uint64_t admitted;               /* min(kv_admitted, scheduler_capacity): run at once */
    bool cap_binds;                  /* the scheduler cap, not the KV cache, limits admitted */
    bool has_steady_state;           /* steady_state computed (needs --isl) */
    uint64_t steady_state;           /* requests of isl + output tokens that run at once when
                                        nothing is reserved (staggered: mean blocks held over a
                                        request's life), before the scheduler cap */
    char binding[KVP_DEPLOY_REASON_MAX];     /* what bounds admitted */
} kvp_admission;

/* The start-up rules' verdict on a planned deployment (startup.h), kept small
 * (a sweep holds one per point): the counts per status, and the checks that
 * did not pass. kvp_deploy_startup_check gives every row, passes included. */
#define KVP_DEPLOY_MAX_CHECKS 8
typedef struct kvp_deploy_startup {
    bool evaluated;                  /* false: a setting was refused before the rules ran */
    bool starts;                     /* evaluated and no rule refuses */
    int first_refusal;               /* index into checks of the first refusal, -1 */
    uint32_t counts[KVP_CHECK_STATUS_COUNT]; /* every rule evaluated, by status */
    uint32_t undecided_count;        /* rules not decidable offline */
    uint32_t disabled_count;         /* rules switched off */
    uint32_t count;                  /* checks[]: the rules that did not pass, in the
                                        engine's order */
    uint32_t dropped;                /* more did not pass than checks[] holds: these are not
                                        listed (refusals are always kept) */
    kvp_check_row checks[KVP_DEPLOY_MAX_CHECKS];
    kvp_dtype run_dtype;             /* the weights / activations dtype the engine runs in */
    bool run_dtype_adjusted;         /* the fp16 fallback, float32 for the models fp16 breaks */
    uint64_t max_model_len;          /* the context the engine runs with */
    bool max_model_len_adjusted;
} kvp_deploy_startup;

/* The planned deployment: a plain value (no pointers), copy freely. */
typedef struct kvp_deploy_result {
    kvp_status status;               /* KVP_OK: planned; else why not (INFEASIBLE, CONFIG, ...) */
    char message[KVP_ERROR_MESSAGE_MAX];
    char key[KVP_ERROR_KEY_MAX];     /* the settings field the message is about, "" when none */
    kvp_deploy_point point;          /* as resolved (tp, pp, dtype, max_seq_len, seq_len filled) */

    /* Memory terms (one rank). */
    bool have_memory;                /* planned from memory facts (false: a KV budget, or
                                        llama.cpp without a device) */
    kvp_memory_facts memory;         /* as used: estimated terms marked in .estimated */
    uint64_t total_bytes;            /* GPU total (0 with a KV budget) */
    uint64_t weights_bytes, activation_bytes, runtime_bytes; /* runtime: non-torch + graphs */
    bool memory_estimated;           /* some term came from the config, not a measurement */
    uint64_t headroom_bytes;         /* what sizing leaves for the terms allocated after it:
                                        TRT-LLM (total - peak + temp KV) - KV budget; vLLM
                                        total - ceil(total x u); 0 = not computed */
    uint64_t headroom_need_bytes;    /* estimated terms that must fit there (memory.terms[]
                                        charged HEADROOM or UNCHARGED) */
    bool headroom_short;             /* need > headroom: the engine would fail after sizing
                                        (a warning says which terms) */
    uint64_t headroom_sure_bytes;    /* of the need: the exact and bounded terms allocated
                                        at start-up (not the estimated ones, not those only
                                        allocated under load) */
    uint64_t headroom_startup_bytes; /* what start-up has for them: the headroom plus the
                                        profile's activation peak, freed after profiling */
    bool headroom_refused;           /* sure > startup: an out-of-memory at start-up that
                                        follows from exact or bounded terms (a refusal:
                                        the memory rule V-MEM-6 / S-MEM-3 / T-MEM-4)
                                        */
    char headroom_terms[160];        /* the names of the terms allocated after sizing */

    /* Budget and capacity. */
    uint64_t reserve_bytes;          /* MLA workspace + multimodal reserve (trtllm) */
    uint64_t budget_bytes;           /* the engine's KV budget */
    char budget_formula[160];        /* how budget_bytes was obtained */
    uint64_t kv_bytes;               /* allocated for the KV cache */
    uint64_t tokens;                 /* KV tokens (engine's figure / largest full pool) */
    uint64_t blocks;                 /* blocks (all pools; vLLM num_gpu_blocks) */
    uint32_t block_tokens;           /* tokens per block / page */
    uint64_t max_sequences;          /* point.seq_len sequences the KV cache holds at once;
                                        UINT64_MAX when no pool limits them (batch_limit does) */
    uint64_t batch_limit;            /* scheduler cap (max_batch_size, max_num_seqs, ...); 0 none */
    uint64_t longest_tokens;         /* longest single sequence; UINT64_MAX = unbounded */
    uint64_t engine_max_seq_len;     /* the max_seq_len the engine starts with: TRT-LLM lowers
                                        one the pools cannot hold to what fits and adopts it
                                        (point.max_seq_len keeps the one asked); the
                                        concurrency is counted at it unless point.seq_len */
    char binding[KVP_DEPLOY_REASON_MAX]; /* what bounds max_sequences */

    /* Start-up: does the engine start and serve one point.max_seq_len request? */
    bool starts;
    char refusal[KVP_DEPLOY_REASON_MAX]; /* why not, naming the settings field; "" when it starts.
                                        A start-up rule's refusal reads "V-PAR-1: <the
                                        engine's message>" */
    uint64_t largest_max_seq_len;    /* when !starts for the length: the largest that fits */
    /* The engine's start-up rules (startup.h) on the deployment as planned, the
     * memory rules on this plan. A rule that refuses makes status KVP_INFEASIBLE
     * (message and refusal name the rule, key its setting) and starts false; what
     * the engine adjusts (the fp16 fallback, a clamped or derived length) is what
     * the plan above was computed with. */
    kvp_deploy_startup startup;

    /* The engine's plan. TensorRT-LLM: the creator's settings with defaults applied,
     * its estimation pass, capacity and managers; `report` max_tokens and
     * kv_cache_bytes. Other engines: `policy` (its report is policy.report). */
    kvp_deploy_settings trtllm;      /* pointers in it are cleared */
    kvp_estimation_plan estimation;
    kvp_capacity cap;
    kvp_plan plan;
    kvp_policy_result policy;
    kvp_engine_report report;        /* the engine's printed figures (a copy of
                                        policy.report for the policies) */

    kvp_admission admission;         /* the engine's admission rule (kvp_admission) */

    kvp_notes warnings;              /* the creator's / policy's notes, then the pipeline's */
} kvp_deploy_result;

/* A zeroed result on the heap (it is large: use one per worker and reuse it).
 * NULL when out of memory. Free with kvp_deploy_result_free. */
KVP_API kvp_deploy_result *kvp_deploy_result_new(void);
/* The same through `alc` (borrowed, copied into the result's block; NULL = libc);
 * kvp_deploy_result_free gives it back to the same allocator. */
KVP_API kvp_deploy_result *kvp_deploy_result_new_with(const kvp_allocator *alc);
/* NULL is a no-op. */
KVP_API void kvp_deploy_result_free(kvp_deploy_result *result);

/* Plan `deployment` into `out` (fully overwritten). Returns KVP_OK whenever the
 * deployment was evaluated, also when the planner found it infeasible or a
 * setting invalid for the engine (out->status, out->message and out->key say
 * so); returns an error only for a missing model or result (KVP_INVALID_ARG)
 * and KVP_NOMEM. out->starts is false when the engine would refuse to start
 * (out->refusal says why: a start-up rule of out->startup, or a length one
 * request cannot hold). */
KVP_API KVP_NODISCARD kvp_status kvp_deploy_plan(const kvp_deployment *deployment, kvp_deploy_result *out,
                                         kvp_error *err);

/* kvp_deploy_plan that also gives every start-up rule it evaluated, passes and
 * the rules not decidable offline included (the report `kvplan check` prints),
 * from the same plan. `report` is filled when out->startup.evaluated (false:
 * a setting was refused before the rules ran; out says which). Errors as
 * kvp_deploy_plan, and KVP_INVALID_ARG for a NULL report. */
KVP_API KVP_NODISCARD kvp_status kvp_deploy_plan_report(const kvp_deployment *deployment,
                                                kvp_deploy_result *out,
                                                kvp_startup_report *report, kvp_error *err);

/* Every start-up rule of the engine on `deployment` as kvp_deploy_plan
 * evaluates it (the memory rules on its plan), passes and the rules not
 * decidable offline included: the report `kvplan check` prints. Plans the
 * deployment (scratch result on the heap); kvp_deploy_plan_report gives the
 * report of a plan the caller keeps. Errors: KVP_INVALID_ARG for a
 * missing argument or a deployment whose settings were refused before the
 * rules ran (its message says which), KVP_NOMEM. */
KVP_API KVP_NODISCARD kvp_status kvp_deploy_startup_check(const kvp_deployment *deployment,
                                                  kvp_startup_report *out, kvp_error *err);

#ifdef __cplusplus
}
#endif
#endif
