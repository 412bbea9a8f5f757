/* options_struct.h — the fields of kvp_options (kvplan/options.h keeps the type
 * opaque, issue 27 item 7): the library's rooms that build or read a set
 * (options, bind) and src/cli include this; a library user reads a finished set
 * through the kvp_options_* accessors of kvplan/options.h. Not installed. */
#ifndef KVP_OPTIONS_STRUCT_H
#define KVP_OPTIONS_STRUCT_H

#include "kvplan/options.h"
#include "kvplan/plan.h"

#define KVP_OPTION_MM_MAX 8       /* --mm-tokens-per-item modalities */
#define KVP_OPTION_WINDOWS_MAX 256/* --max-attention-window entries */

/* The rules TensorRT-LLM applies around the creator (plan.h): KV-cache
 * compression, the LoRA cache, the multimodal encoder's profiling batch. Names
 * point into the buffers here: use them while the kvp_options lives, unmoved. */
typedef struct kvp_option_rules {
    kvp_kv_compression compression;  /* --kv-cache-compression, --compression-quant, ... */
    bool has_lora;                   /* a --lora-* option was given */
    kvp_lora_settings lora;
    const char *lora_modules[KVP_LORA_MAX_MODULES];
    char lora_buf[512];
    bool has_mm;                     /* an --mm-* option that makes a profiling batch */
    uint64_t mm_max_tokens, mm_batch, mm_embedding_dim;
    kvp_mm_item mm[KVP_OPTION_MM_MAX];
    size_t mm_count;
    char mm_buf[512];
} kvp_option_rules;

/* What `kvplan sim` replays on top of the deployment (sim only). */
typedef struct kvp_option_sim {
    uint64_t blocks;             /* --blocks N: the same blocks in every pool; 0 = planned */
    uint64_t recurrent_slots;    /* --recurrent-slots N (with --blocks); 0 = not given */
} kvp_option_sim;

/* The settings being built from (name, value) pairs. */
struct kvp_options {
    unsigned command;            /* KVP_COMMAND_* it parses for */
    kvp_deployment deployment;   /* model and draft left NULL: the caller loads them */
    kvp_startup_settings startup;/* start-up flags; .policy copied from the deployment
                                    by kvp_options_finish */
    const char *gpu;             /* --gpu NAME (borrowed from the value given) */
    const char *draft;           /* --draft MODEL (borrowed) */
    uint32_t gpus;               /* --gpus N; 0 = not given */
    bool probe;                  /* --probe: the live memory of --device */
    uint32_t device;             /* --device N (implies --probe) */
    kvp_option_rules rules;      /* TensorRT-LLM rules around the creator */
    kvp_option_sim sim;          /* sim's pool overrides */
    uint64_t windows[KVP_OPTION_WINDOWS_MAX]; /* --max-attention-window (deployment.kv points here) */
    bool engine_given;           /* --policy was given */
    bool engine_implied;         /* an engine's spelling chose the engine */
    char implied_by[KVP_OPTIONS_TYPED_MAX]; /* the first spelling that chose it */
    /* For each row: 0 not given, else the spelling's index + 1 (as lookup). */
    unsigned char given[KVP_OPTIONS_MAX];
    char typed[KVP_OPTIONS_MAX][KVP_OPTIONS_TYPED_MAX]; /* the spelling as given */
    bool engines_vary;           /* the command plans several engines (compare, sweep
                                    --over policy): spellings choose none, none warned */
    unsigned engines_planned;    /* with engines_vary: the engines planned
                                    (KVP_OPTION_ENGINE bits; 0 = not said). An option
                                    given directly that none of them reads is refused;
                                    one some do not read is a note per engine */
    kvp_notes notes;             /* what kvp_options_finish decided (the engine chosen) */
    kvp_notes warnings;          /* what kvp_options_finish warns (a release newer than known) */
    unsigned char pasted[KVP_OPTIONS_MAX]; /* 1: set from a pasted engine command (--from):
                                    that engine's own flag, not refused under another */
};

/* Fill a caller-owned set with the engines' defaults (what kvp_options_new
 * does to the set it allocates). */
void kvp__options_init(kvp_options *options, unsigned command);

#endif
