/* log_reader.h — the reader of engines' start-up logs (`kvplan why LOG`,
 * docs/why.md): text in, line by line, streaming, in bounded memory; out the
 * engine and its release, the model, the settings the log states (command line,
 * non-default args, printed context settings), the GPU, and every figure it
 * printed (memory terms and capacity), each with its line, the number as
 * printed, the unit and the precision. The formats are those of
 * shared/reference/LOGS.md §1-§5 (vLLM V0/V1, SGLang, TensorRT-LLM PyTorch and
 * C++ runtime, llama.cpp, llama-server, llama-cpp-python, Ollama); engine and
 * release are told apart by §6.
 *
 * Memory. A line is kept up to KVP_LOG_LINE_MAX bytes; the rest of a longer
 * line is dropped and counted (cut_lines). Figures, settings and unread lines
 * are fixed arrays (the first ones kept, the rest counted), so a log of any
 * length reads in the memory of one kvp__log.
 *
 * Contradictions. Two engines' lines in one log (kvp__log.engines has two bits)
 * and one figure printed twice with two values by the same process (same
 * rank tag, same cache instance) are named in `conflict` (the first one); the
 * caller decides (kvplan why: exit 2 for two engines). */
#ifndef KVP_LOGS_LOG_READER_H
#define KVP_LOGS_LOG_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kvplan/error.h"
#include "kvplan/types.h"

#define KVP_LOG_LINE_MAX 8192     /* bytes of one line kept; longer lines are cut */
#define KVP_LOG_KEEP 768          /* bytes of a line kept with a figure or unread line */
#define KVP_LOG_FIGURES_MAX 96
#define KVP_LOG_SETTINGS_MAX 64
#define KVP_LOG_UNREAD_MAX 32
#define KVP_LOG_CMDLINE_MAX 4096

/* The engines, in kvp_engine's order (kvplan/policy.h; this room reads no
 * policy): bind maps one to the other by value. */
typedef enum kvp_log_engine {
    KVP_LOG_TRTLLM = 0,
    KVP_LOG_VLLM,
    KVP_LOG_SGLANG,
    KVP_LOG_LLAMACPP,
    KVP_LOG_ENGINES
} kvp_log_engine;

/* What a figure is to the reproduction. */
typedef enum kvp_log_role {
    KVP_LOG_OUTPUT = 0, /* a capacity figure the plan computes (tokens, blocks, sizes) */
    KVP_LOG_INPUT,      /* a measured memory term the plan is given (weights, peak, ...) */
    KVP_LOG_INFO,       /* printed, kept and shown; no plan figure stands for it */
} kvp_log_role;

typedef struct kvp_log_figure {
    char name[40];          /* contract name: "gpu_kv_cache_tokens", "weights_bytes" */
    kvp_log_role role;
    uint64_t line_no;       /* 1-based */
    char line[KVP_LOG_KEEP];/* the log line (ANSI and prefix kept out), cut */
    char printed[32];       /* the number as printed, separators dropped: "410128", "51.63" */
    double value;
    char unit[8];           /* "tokens" "blocks" "cells" "x" "GiB" "MiB" "fraction" "layers" */
    int decimals;           /* digits printed after the point; -1 for an integer */
    bool trimmed;           /* vLLM format_gib: round(x, 2) with trailing zeros dropped */
    uint32_t instance;      /* llama.cpp: 0 the main cache, 1 the SWA cache */
    char rank[24];          /* process tag ("Worker_TP1", "TP0"), "" none */
} kvp_log_figure;

typedef struct kvp_log_setting {
    char name[40];          /* an option-table spelling: "--max-model-len", "-c", "--tp" */
    char value[96];
    uint64_t line_no;
    bool printed;           /* printed at run time (n_ctx = 4096), not a flag given */
    bool install;           /* a fact of the install the log states (vLLM's sampler path):
                               every run reads it, the config's too */
} kvp_log_setting;

typedef struct kvp_log_unread {
    uint64_t line_no;
    char line[KVP_LOG_KEEP];
} kvp_log_unread;

typedef struct kvp_log {
    /* The engine: `engines` has bit (1 << kvp_log_engine) for each engine whose lines
     * were seen; `engine` is the first one's. */
    unsigned engines;
    kvp_log_engine engine;
    uint64_t engine_line[KVP_LOG_ENGINES]; /* first line of each */
    char variant[32];          /* "vLLM V1", "llama-server", "Ollama", "PyTorch backend" */
    char engine_version[64];   /* as the policies read it: "0.9.1", "b7445", "v1-mid", "2025-10-07" */
    char version_source[64];   /* what it was read from */
    char model[256];           /* id or path as printed */
    uint64_t model_line;
    char gpu[96];              /* GPU name where printed */
    char cmdline[KVP_LOG_CMDLINE_MAX]; /* the engine's command line, when printed */
    uint64_t cmdline_line;
    kvp_log_figure figures[KVP_LOG_FIGURES_MAX];
    size_t figure_count, figures_dropped;
    kvp_log_setting settings[KVP_LOG_SETTINGS_MAX];
    size_t setting_count;
    kvp_log_unread unread[KVP_LOG_UNREAD_MAX];
    size_t unread_count;       /* all of them (the first KVP_LOG_UNREAD_MAX kept) */
    char conflict[400];        /* the first contradiction, "" none */
    uint64_t lines, bytes, cut_lines, binary_lines;
    /* line assembly (streaming) */
    char buf[KVP_LOG_LINE_MAX + 1];
    size_t len;
    bool cutting;
    uint32_t instance;         /* llama.cpp: the cache being created */
    char sglang_date[16];
    bool reading_args;         /* an argument dump (flags given), not run-time prints */
} kvp_log;

/* Start reading (the whole struct is reset). */
void kvp__log_init(kvp_log *log);
/* Feed the next n bytes of the log (any split). */
void kvp__log_feed(kvp_log *log, const char *data, size_t n);
/* The end of the log: the last line without a newline is read. */
void kvp__log_finish(kvp_log *log);
/* One line (no newline), as kvp__log_feed gives it; exposed for tests. */
void kvp__log_line(kvp_log *log, const char *line, size_t n);

/* The figure named `name` (instance `instance`), the first printed; NULL none. */
const kvp_log_figure *kvp__log_figure(const kvp_log *log, const char *name, uint32_t instance);
/* The setting named `name` (last one wins), NULL none. */
const char *kvp__log_setting(const kvp_log *log, const char *name);

/* The bytes the printed figure stands for: [lo, hi] (the %.Nf interval of
 * ENGINES.md §0.4 times the unit). false for a figure that is not bytes. */
bool kvp__log_figure_bytes(const kvp_log_figure *f, uint64_t *lo, uint64_t *hi);
/* Unit bytes of "GiB"/"MiB"/"KiB"; 0 for others. */
uint64_t kvp__log_unit_bytes(const char *unit);

#endif
