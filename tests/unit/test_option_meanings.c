/* test_option_meanings.c — issue 27 item 3: a setting means one thing under
 * every engine. Every option of the table (options_table.c) under every engine
 * (vllm, sglang, trtllm, llamacpp) has a row in the engine's table
 * (engine_reads.c, kvp_option_meaning_for), and the row is what the CLI does:
 *  - an option the engine reads changes a figure of the plan (bytes, tokens,
 *    blocks, admitted count, a start-up verdict: the exit status and the
 *    "would not start / adjusts / warns" lines; echoing the setting in
 *    `deployment` does not count) between two values for a test model, or this
 *    test's table says why it cannot for any test model;
 *  - an option with no meaning there, given directly, is exit 2 naming the
 *    option and the engine.
 * A new option fails here until both tables classify it. The kvplan binary
 * runs as a child process (stdout and stderr kept apart). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <fcntl.h>
#include <jansson.h>

#include "kvplan/options.h"

static const char *const k_engines[] = {"trtllm", "vllm", "sglang", "llamacpp"};
static const char *const k_titles[] = {"TensorRT-LLM", "vLLM", "SGLang", "llama.cpp"};
#define ANY (-1)
#define T 0
#define V 1
#define S 2
#define L 3

/* How a read option is shown to change a figure: `cmd model --policy E base
 * OPTION a` against the same with `OPTION b` (b NULL: the option absent; ""
 * for a flag given bare), or why no test model can show it (a still names a
 * value the option accepts, for the exit-2 check under the other engines). */
typedef struct probe {
    const char *option;
    int engine; /* ANY: every engine that reads it, unless a row names the engine */
    const char *cmd, *model, *base; /* NULL: plan, qwen3-32b, "--gpu h100 --max-seq-len 8192" */
    const char *a, *b;
    const char *why;
} probe;

#define GPU "--gpu h100 --max-seq-len 8192"
#define NEXT "qwen3-next-80b-a3b-thinking"
#define SIMW "--max-seq-len 8192 --synthetic prompt=fixed:4000,output=fixed:200,requests=64 --no-timing"
static const probe k_probes[] = {
    {"--gpu", ANY, NULL, NULL, "--max-seq-len 8192", "h200", "h100", NULL},
    {"--gpu-mem", ANY, NULL, NULL, "--max-seq-len 8192", "40GiB", "80GiB", NULL},
    {"--free-mem", ANY, NULL, NULL, GPU, "20GiB", NULL, NULL},
    {"--free-mem", S, NULL, NULL, GPU " --tp 2", "30GiB", NULL, NULL},
    {"--kv-budget", ANY, NULL, NULL, GPU, "20GiB", NULL, NULL},
    {"--kv-budget", T, NULL, NULL, "--max-seq-len 8192", "20GiB", "10GiB", NULL},
    {"--weights", ANY, NULL, NULL, GPU, "30GiB", NULL, NULL},
    {"--peak", ANY, NULL, NULL, GPU, "70GiB", NULL, NULL},
    {"--activation-peak", ANY, NULL, NULL, GPU, "8GiB", NULL, NULL},
    {"--non-torch", ANY, NULL, NULL, GPU, "6GiB", NULL, NULL},
    {"--cuda-graph", ANY, NULL, NULL, GPU, "4GiB", NULL, NULL},
    {"--estimation-kv", ANY, NULL, NULL, GPU, "10GiB", NULL, NULL},
    {"--policy", ANY, NULL, NULL, GPU, "vllm", NULL,
     "it chooses the engine itself: the test names the engine with it"},
    {"--engine-version", ANY, NULL, NULL, GPU, "2025", NULL, NULL},
    {"--engine-version", T, NULL, "gemma-3-1b-it", "--gpu h100 --max-seq-len 8192 --kv-manager v2", "2025", "2026", NULL},
    {"--engine-version", S, NULL, "deepseek-v3.2", "--gpu h200 --tp 8 --max-seq-len 8192", "0.5.3", NULL, NULL},
    {"--engine-version", L, NULL, NULL, "--gpu h100 --max-seq-len 1100 --flash-attn off", "b5000", NULL, NULL},
    {"--tp", ANY, NULL, NULL, GPU, "2", NULL, NULL},
    {"--pp", ANY, NULL, NULL, GPU, "2", NULL, NULL},
    {"--dp", ANY, NULL, NULL, GPU " --gpus 1", "2", NULL, NULL},
    {"--dp", S, NULL, NULL, GPU " --tp 2 --attention-dp", "2", NULL, NULL},
    {"--attention-dp", ANY, NULL, NULL, GPU " --tp 2 --dp 2", "", NULL, NULL},
    {"--attention-dp", T, NULL, NULL, GPU " --tp 2", "", NULL, NULL},
    {"--max-seq-len", ANY, NULL, NULL, "--gpu h100", "4096", "8192", NULL},
    {"--seq-len", ANY, NULL, NULL, GPU, "1000", NULL, NULL},
    {"--kv-dtype", ANY, NULL, NULL, GPU, "fp8", NULL, NULL},
    {"--kv-dtype", L, NULL, NULL, GPU, "q8_0", NULL, NULL},
    {"--block-size", ANY, NULL, NULL, GPU, "64", NULL, NULL},
    {"--gpu-memory-utilization", ANY, NULL, NULL, GPU, "0.7", NULL, NULL},
    {"--mem-fraction-static", ANY, NULL, NULL, GPU, "0.6", NULL, NULL},
    {"--free-gpu-memory-fraction", ANY, NULL, NULL, GPU, "0.5", NULL, NULL},
    {"--max-num-seqs", ANY, NULL, NULL, GPU, "2", NULL, NULL},
    {"--max-num-batched-tokens", ANY, NULL, NULL, GPU, "1024", NULL, NULL},
    {"--mamba-cache-mode", ANY, NULL, NEXT, "--gpu h200 --tp 2 --max-seq-len 8192", "all", "none", NULL},
    {"--mamba-cache-dtype", ANY, NULL, NEXT, "--gpu h200 --tp 2 --max-seq-len 8192", "float32", NULL, NULL},
    {"--mamba-ssm-cache-dtype", ANY, NULL, NEXT, "--gpu h200 --tp 2 --max-seq-len 8192", "float16", "float32", NULL},
    {"--num-draft-layers", ANY, NULL, NULL, GPU, "1", NULL, NULL},
    {"--num-draft-layers", T, NULL, NULL, GPU " --spec-mode eagle3 --max-draft-len 3", "2", "1", NULL},
    {"--max-batch-size", ANY, NULL, NULL, GPU, "2", NULL, NULL},
    {"--max-num-tokens", ANY, NULL, NULL, GPU, "1024", NULL, NULL},
    {"--max-beam-width", ANY, NULL, NULL, GPU, "4", NULL, NULL},
    {"--max-tokens", ANY, NULL, NULL, GPU, "10000", NULL, NULL},
    {"--host-cache-size", ANY, NULL, NULL, GPU, "10GiB", NULL,
     "sizes the host (offload) pool; the device plan kvplan prints does not change with it"},
    {"--enable-block-reuse", ANY, NULL, NULL, GPU, "", NULL,
     "decides which blocks are reused while serving (sim replays it), not the sizes planned; it picks a manager only for hybrid disaggregated serving, where the catalogue's hybrid models get the unified manager either way"},
    {"--kv-manager", ANY, NULL, NULL, GPU, "v2", NULL, NULL},
    {"--cuda-graph-batch-size", ANY, NULL, NULL, GPU, "0", NULL, NULL},
    {"--cuda-graph-max-bs", ANY, NULL, NULL, GPU, "8", NULL, NULL},
    {"--cuda-graph-batch-sizes", ANY, NULL, NULL, GPU, "1,2,4,1024", NULL, NULL},
    {"--isl", ANY, NULL, NULL, GPU, "1000", NULL, NULL},
    {"--osl", ANY, NULL, NULL, GPU " --isl 1000", "100", NULL, NULL},
    {"--max-new-tokens", ANY, NULL, NULL, GPU, "100", NULL, NULL},
    {"--max-new-tokens", T, NULL, NULL, GPU " --isl 1000", "100", NULL, NULL},
    {"--capacity-scheduler-policy", ANY, NULL, NULL, GPU, "MAX_UTILIZATION", NULL, NULL},
    {"--ctx-size", ANY, NULL, NULL, "--gpu h100", "8192", NULL, NULL},
    {"--parallel", ANY, NULL, NULL, GPU, "4", NULL, NULL},
    {"--cache-type-k", ANY, NULL, NULL, GPU, "q8_0", NULL, NULL},
    {"--cache-type-v", ANY, NULL, NULL, GPU, "q8_0", NULL, NULL},
    {"--ubatch-size", ANY, NULL, NULL, GPU, "2048", NULL, NULL},
    {"--batch-size", ANY, NULL, "gemma-3-27b-it", GPU, "128", NULL, NULL},
    {"--kv-unified", ANY, NULL, NULL, GPU " --parallel 4", "", NULL, NULL},
    {"--swa-full", ANY, NULL, "gemma-3-27b-it", GPU, "", NULL, NULL},
    {"--flash-attn", ANY, NULL, NULL, GPU " --cache-type-v q8_0", "off", "on", NULL},
    {"--dtype", ANY, NULL, NULL, GPU, "float32", NULL, NULL},
    {"--quantization", ANY, NULL, NULL, GPU, "fp8", NULL, NULL},
    {"--quantization", L, NULL, NULL, GPU, "Q4_K_M", NULL, NULL},
    {"--trust-remote-code", ANY, NULL, "nvidia-nemotron-3-nano-30b-a3b-bf16", GPU, "", NULL, NULL},
    /* SGLang registers nemotron_h itself from 0.5.4 (startup_registry.c): before it,
     * the custom code needs the flag. */
    {"--trust-remote-code", S, NULL, "nvidia-nemotron-3-nano-30b-a3b-bf16", GPU " --engine-version 0.5.3", "", NULL, NULL},
    {"--max-running-requests", ANY, NULL, NULL, GPU, "1", NULL, NULL},
    {"--chunked-prefill-size", ANY, NULL, NULL, GPU, "16384", NULL, NULL},
    {"--ep-size", ANY, NULL, "qwen3-30b-a3b", "--gpu h100 --tp 8 --max-seq-len 8192", "8", NULL,
     "decides the width rules only (experts over tp / ep), whose verdict changes for block-FP8 expert widths that do not divide; tests/cli/from_statements.sh shows it on MiniMax-M2.5"},
    {"--attention-backend", ANY, NULL, "deepseek-v3", "--gpu h200 --tp 8 --max-seq-len 8192", "flashmla", NULL, NULL},
    {"--runner", ANY, NULL, NULL, GPU, "pooling", "generate",
     "generate is the runner kvplan plans; pooling and draft are warned, not sized (a warning, not a figure)"},
    {"--language-model-only", ANY, NULL, "qwen3-vl-8b-instruct", GPU, "", NULL, NULL},
    {"--skip-mm-profiling", ANY, NULL, "gemma-3-27b-it", GPU, "", NULL, NULL},
    {"--enforce-eager", ANY, NULL, NULL, GPU, "", NULL, NULL},
    {"--enable-prefix-caching", ANY, NULL, NEXT, "--gpu h200 --tp 2 --max-seq-len 8192", "", NULL,
     "decides which blocks are reused while serving (sim replays it), not the sizes planned"},
    {"--enable-chunked-prefill", ANY, NULL, NULL, GPU " --max-num-batched-tokens 4096", "false", NULL, NULL},
    {"--enable-chunked-prefill", T, NULL, NULL, GPU, "false", NULL,
     "changes TensorRT-LLM's plan only through the chunked MLA profile (SM >= 100) and the MLA "
     "workspace, which no test model reaches at a size that fits"},
    {"--enable-expert-parallel", ANY, NULL, "minimax-m2.5", "--gpu h200 --tp 8 --max-seq-len 8192", "", NULL,
     "moves the expert split the start-up rules check (V-PAR-3/4, S-PAR-1/2); no catalogue model is refused by TP and started by EP on a test GPU (MiniMax-M2.5 at TP 8 fails its dense block-FP8 split either way)"},
    /* SGLang's automatic mem_fraction_static reserves for the draft by algorithm. */
    {"--speculative-method", S, NULL, NULL, GPU, "STANDALONE", NULL, NULL},
    {"--speculative-method", ANY, NULL, NEXT, "--gpu h200 --tp 2 --max-seq-len 8192 --num-speculative-tokens 3", "mtp", NULL,
     "names the method the start-up rules check; it sizes nothing by itself: the draft's KV follows --num-draft-layers and its states --num-speculative-tokens"},
    {"--num-speculative-tokens", S, NULL, NEXT, "--gpu h200 --tp 2 --max-seq-len 8192 --speculative-method mtp", "3", NULL,
     "SGLang's draft KV is folded into cell_size by the draft layers (--num-draft-layers, ENGINES.md §2.4); kvplan's SGLang plan sizes nothing per draft token"},
    {"--num-speculative-tokens", ANY, NULL, NEXT, "--gpu h200 --tp 2 --max-seq-len 8192 --speculative-method mtp", "3", NULL, NULL},
    {"--speculative-config", ANY, NULL, NEXT, "--gpu h200 --tp 2 --max-seq-len 8192", "{\"method\":\"mtp\",\"num_speculative_tokens\":3}", NULL,
     "names the method the start-up rules check; it sizes nothing by itself: the draft's KV follows --num-draft-layers and its states --num-speculative-tokens"},
    {"--gpus", ANY, NULL, NULL, GPU " --tp 2", "1", NULL, NULL},
    {"--gpus", T, NULL, NULL, GPU " --tp 2", "4", "1", NULL},
    {"--env", ANY, NULL, NULL, "--gpu h200 --max-seq-len 100000", "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1", NULL, NULL},
    {"--env", S, NULL, NULL, "--gpu h200 --max-seq-len 100000", "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1", NULL, NULL},
    {"--disable-rule", ANY, NULL, NULL, "--gpu h100 --max-seq-len 100000", "defaults", NULL, NULL},
    {"--disable-rule", T, NULL, "qwen3-32b-fp8", "--gpu l40s --max-seq-len 4096", "T-DT-1", NULL, NULL},
    {"--disable-rule", L, "check", NULL, "--gpu h200 --max-seq-len 50000", "L-LEN-1", NULL, NULL},
    /* the creator's (TensorRT-LLM, plan only) */
    {"--probe", ANY, NULL, NULL, GPU, "", NULL, "reads a live GPU through NVML; the test machine may have none"},
    {"--device", ANY, NULL, NULL, GPU, "0", NULL, "implies --probe: a live GPU through NVML"},
    {"--max-gpu-total-bytes", ANY, NULL, NULL, GPU, "4GiB", NULL, NULL},
    {"--max-attention-window", ANY, NULL, NULL, GPU, "1024", NULL, NULL},
    {"--cross-kv-cache-fraction", ANY, NULL, "t5-base", GPU, "0.3", "0.5", NULL},
    {"--draft", ANY, NULL, NULL, GPU " --spec-mode two-model", "qwen3-0.6b", NULL, NULL},
    {"--spec-mode", ANY, NULL, NULL, GPU " --max-draft-len 3 --num-draft-layers 1", "eagle3", NULL, NULL},
    {"--max-draft-len", ANY, NULL, NULL, GPU " --spec-mode eagle3 --num-draft-layers 1", "8", NULL, NULL},
    {"--separate-draft-kv", ANY, NULL, NULL, GPU " --spec-mode eagle3 --num-draft-layers 1", "", NULL, NULL},
    {"--cp", ANY, NULL, NULL, GPU " --helix --kv-manager v2", "4", "2",
     "with --helix each rank holds its share of every sequence: the per-rank pool kvplan prints is the same at any CP size (checked, not sized)"},
    {"--helix", ANY, NULL, NULL, GPU " --cp 2 --kv-manager v2", "", NULL,
     "--cp > 1 plans only with --helix (no sizing path for other context parallelism): "
     "the plan without it is refused, not planned"},
    {"--sparse-attention", ANY, NULL, "deepseek-v3", "--gpu b200 --tp 8 --max-seq-len 8192 --enable-chunked-prefill --sm-version 100", "dsa", NULL,
     "changes the plan only on Blackwell MLA chunked profiles (SM >= 100 with a dense TRTLLM backend) and DeepSeek-V4 with PP; the catalogue's MLA models plan the same full-gather profile on every GPU kvplan can name"},
    {"--disaggregated", ANY, NULL, NEXT, "--gpu h200 --tp 2 --max-seq-len 8192 --kv-manager v1 --transceiver-runtime PYTHON --transceiver-backend NIXL", "", NULL, NULL},
    {"--transceiver-backend", ANY, NULL, NEXT, "--gpu h200 --tp 2 --max-seq-len 8192 --kv-manager v1 --disaggregated --transceiver-runtime PYTHON", "NIXL", "UCX", NULL},
    {"--transceiver-runtime", ANY, NULL, NEXT, "--gpu h200 --tp 2 --max-seq-len 8192 --kv-manager v1 --disaggregated --transceiver-backend NIXL", "PYTHON", "CPP", NULL},
    {"--mamba-manager-preference", ANY, NULL, NEXT, "--gpu h200 --tp 2 --max-seq-len 8192 --kv-manager v1", "MIXED", "CPP", NULL},
    {"--use-py-mamba", ANY, NULL, NEXT, "--gpu h200 --tp 2 --max-seq-len 8192 --kv-manager v1", "", NULL, NULL},
    {"--attn-backend", ANY, NULL, "deepseek-v3", "--gpu b200 --tp 8 --max-seq-len 8192 --enable-chunked-prefill --sm-version 100", "FLASHINFER", NULL,
     "changes the plan only through the chunked MLA profile (kvp_mla_chunked_profile_length) and VANILLA's dense masks, neither reached by a catalogue model at a length that fits"},
    {"--mla-workspace-rate", ANY, NULL, "deepseek-v3", "--gpu b200 --tp 8 --max-seq-len 8192 --enable-chunked-prefill --sm-version 100 --skip-estimation", "1MiB", NULL, NULL},
    {"--workspace-not-chunk-bounded", ANY, NULL, "deepseek-v3", "--gpu b200 --tp 8 --max-seq-len 8192 --enable-chunked-prefill --sm-version 100 --skip-estimation --mla-workspace-rate 1MiB", "", NULL,
     "bounds the fp8 context-MLA workspace only when it is charged (an fp8 MLA KV cache under chunked prefill), which no test GPU plans within its memory"},
    {"--fp8-context-mla-kv-len-cap", ANY, NULL, "deepseek-v3", "--gpu b200 --tp 8 --max-seq-len 8192 --enable-chunked-prefill --sm-version 100 --skip-estimation --mla-workspace-rate 1MiB", "1024", NULL, NULL},
    {"--sm-version", ANY, NULL, NULL, GPU " --kv-manager v2 --kv-cache-compression triattention", "100", "90", NULL},
    {"--chunk-size", ANY, NULL, "deepseek-v3", "--gpu b200 --tp 8 --max-seq-len 8192 --enable-chunked-prefill --sm-version 100", "8192", "4096",
     "sizes the chunked MLA profile on SM >= 100 only (estimation.c), not reached at a length that fits a test GPU"},
    {"--chunked-prefill-buffer-batch-size", ANY, NULL, "deepseek-v3", "--gpu b200 --tp 8 --max-seq-len 8192 --enable-chunked-prefill --sm-version 100 --chunk-size 4096", "4", "1",
     "sizes the chunked MLA profile on SM >= 100 only (estimation.c), not reached at a length that fits a test GPU"},
    {"--disable-overlap-scheduler", ANY, NULL, NULL, GPU " --max-batch-size 4", "", NULL,
     "adds the overlap scheduler's sequence slots only with a speculative draft (estimation.c) or PP; the test's plans bind on the KV cache first"},
    {"--kv-connector", ANY, NULL, NULL, GPU, "", NULL,
     "sizes nothing: TensorRT-LLM only refuses a connector with a hybrid manager or a two-model "
     "draft (kvp_manager_check_connector), an exit 2, not a figure"},
    {"--max-input-len", ANY, NULL, "t5-base", GPU " --cross-kv-cache-fraction 0.5", "64", NULL, NULL},
    {"--skip-estimation", ANY, NULL, NULL, GPU, "", NULL, NULL},
    {"--avg-seq-len", ANY, NULL, NULL, GPU " --kv-manager v2 --host-cache-size 10GiB", "1000", NULL,
     "sets the host cache's workload length, which no KV figure of the device plan reads"},
    {"--max-util-for-resume", ANY, NULL, NULL, GPU " --kv-manager v2 --spec-mode dflash --draft qwen3-0.6b", "0.5", NULL, NULL},
    {"--kv-cache-compression", ANY, NULL, NULL, GPU " --kv-manager v2 --sm-version 100", "quantization_for_cold_page", NULL,
     "compresses blocks that go cold while serving: the pools planned keep their sizes (the option's own checks refuse what TensorRT-LLM refuses)"},
    {"--compression-quant", ANY, NULL, NULL, GPU " --kv-manager v2 --kv-cache-compression quantization_for_cold_page", "nvfp4", NULL,
     "nvfp4 is the one cold-page format TensorRT-LLM takes and the default: any other is refused"},
    {"--triattention-union-eviction", ANY, NULL, NULL, GPU " --kv-manager v2 --kv-cache-compression triattention --sm-version 100", "", NULL,
     "selects TriAttention's eviction mode, which changes which tokens are kept, not the sizes planned"},
    {"--lora-rank", ANY, NULL, NULL, GPU " --lora-target-modules attn_qkv", "64", "8",
     "sizes the LoRA cache (PeftCacheConfig); kvplan reports the rule's module counts, and the KV plan does not change with the rank"},
    {"--max-loras", ANY, NULL, NULL, GPU " --lora-rank 64 --lora-target-modules attn_qkv", "8", "1",
     "sizes the LoRA device cache (PeftCacheConfig), which the KV plan does not include"},
    {"--max-cpu-loras", ANY, NULL, NULL, GPU " --lora-rank 64 --lora-target-modules attn_qkv", "8", "1",
     "sizes the LoRA host cache (PeftCacheConfig), which the KV plan does not include"},
    {"--lora-target-modules", ANY, NULL, NULL, GPU " --lora-rank 64", "attn_qkv", "attn_qkv,attn_dense,mlp_h_to_4h", NULL},
    {"--lora-shared-expert-size", ANY, NULL, "qwen3-30b-a3b", GPU " --lora-rank 64 --lora-target-modules attn_qkv,moe_h_to_4h", "4096", NULL,
     "sizes the shared-expert LoRA rows of the LoRA cache, which the KV plan does not include"},
    {"--mm-encoder-max-tokens", ANY, NULL, "qwen3-vl-8b-instruct", GPU " --mm-tokens-per-item image=576 --mm-encoder-batch-size 64", "16384", "2048", NULL},
    {"--mm-encoder-batch-size", ANY, NULL, "qwen3-vl-8b-instruct", GPU " --mm-tokens-per-item image=576 --mm-encoder-max-tokens 100000", "64", "8", NULL},
    {"--mm-tokens-per-item", ANY, NULL, "qwen3-vl-8b-instruct", GPU " --mm-encoder-max-tokens 16384", "image=576", "image=1024", NULL},
    {"--mm-embedding-dim", ANY, NULL, "qwen3-vl-8b-instruct", GPU " --mm-tokens-per-item image=576", "8192", "4096",
     "sizes the encoder output the profile holds only when it is measured (--mm-output-budget); the estimate uses the config's hidden size"},
    {"--mm-output-budget", ANY, NULL, "qwen3-vl-8b-instruct", GPU, "4GiB", NULL, NULL},
    {"--mm-encoder-cache", ANY, NULL, "qwen3-vl-8b-instruct", GPU, "4GiB", NULL, NULL},
    /* sim's pool */
    {"--blocks", ANY, "sim", NULL, SIMW, "100", "1000", NULL},
    {"--recurrent-slots", ANY, "sim", NEXT, SIMW " --blocks 1000", "2", "64", NULL},
};

static const probe *probe_for(const char *option, int engine) {
    const probe *any = NULL;
    for (size_t i = 0; i < sizeof k_probes / sizeof k_probes[0]; i++) {
        if (strcmp(k_probes[i].option, option)) continue;
        if (k_probes[i].engine == engine) return &k_probes[i];
        if (k_probes[i].engine == ANY && !any) any = &k_probes[i];
    }
    return any;
}

/* ------------------------------------------------------ running the binary */

typedef struct result {
    int rc;
    char *out, *err;
} result;

static char *slurp(FILE *f) {
    long n = ftell(f);
    assert_true(n >= 0);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    rewind(f);
    size_t got = fread(buf, 1, (size_t)n, f);
    buf[got] = '\0';
    fclose(f);
    return buf;
}

/* Split `line` on spaces into argv words (none of the probes quote). */
static int words(char *line, char **argv, int at, int cap) {
    for (char *p = strtok(line, " "); p && at < cap - 1; p = strtok(NULL, " ")) argv[at++] = p;
    argv[at] = NULL;
    return at;
}

static result run_kvplan(const probe *p, int engine, const char *value, bool with) {
    static char base[512];
    char *argv[64];
    int n = 0;
    argv[n++] = KVP_BINARY_DIR "/kvplan";
    argv[n++] = (char *)(p->cmd ? p->cmd : "plan");
    argv[n++] = (char *)(p->model ? p->model : "qwen3-32b");
    argv[n++] = "--policy";
    argv[n++] = (char *)k_engines[engine];
    snprintf(base, sizeof base, "%s", p->base ? p->base : GPU);
    n = words(base, argv, n, 60);
    if (with) {
        argv[n++] = (char *)p->option;
        if (value && *value) argv[n++] = (char *)value;
    }
    argv[n++] = "--json";
    argv[n] = NULL;
    FILE *out = tmpfile(), *err = tmpfile();
    assert_true(out && err);
    fflush(stdout);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fileno(out), 1);
        dup2(fileno(err), 2);
        execv(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    result r = {WIFEXITED(status) ? WEXITSTATUS(status) : 128, NULL, NULL};
    fseek(out, 0, SEEK_END);
    fseek(err, 0, SEEK_END);
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
}

static void result_free(result *r) {
    free(r->out);
    free(r->err);
}

/* The figures of a plan: numbers under keys naming bytes, tokens, blocks,
 * cells, counts, sequences, concurrency, limits and LoRA modules, the manager
 * kinds (the pool layout TensorRT-LLM picks) and every status, outside
 * the echo of the settings (deployment) and the notes; then the start-up lines
 * of stderr and the exit status. */
static bool figure_key(const char *k) {
    static const char *const skip[] = {"deployment", "notes", "warnings", "engine_version",
                                       "kvplan_version", "schema_version", "batch_limit",
                                       "host_cache_size", "seq_len", "max_seq_len", NULL};
    for (size_t i = 0; skip[i]; i++)
        if (!strcmp(k, skip[i])) return false;
    return true;
}
static bool figure_name(const char *k) {
    static const char *const part[] = {"bytes", "tokens", "blocks", "cells", "count", "admitted",
                                       "sequences", "concurrency", "n_ctx", "limit", "slots",
                                       "status", "starts", "ok", "manager", "kind", "modules",
                                       NULL};
    for (size_t i = 0; part[i]; i++)
        if (strstr(k, part[i])) return true;
    return false;
}

static void add_text(char **acc, size_t *len, const char *s) {
    size_t n = strlen(s);
    *acc = realloc(*acc, *len + n + 2);
    assert_non_null(*acc);
    memcpy(*acc + *len, s, n);
    (*acc)[*len + n] = '\n';
    *len += n + 1;
    (*acc)[*len] = '\0';
}

static void walk(json_t *j, const char *key, bool counted, char **acc, size_t *len) {
    char buf[96];
    if (json_is_object(j)) {
        const char *k;
        json_t *v;
        json_object_foreach(j, k, v) {
            if (figure_key(k)) walk(v, k, figure_name(k), acc, len);
        }
    } else if (json_is_array(j)) {
        size_t i;
        json_t *v;
        json_array_foreach(j, i, v) walk(v, key, counted, acc, len);
    } else if (counted && json_is_number(j)) {
        snprintf(buf, sizeof buf, "%s=%.17g", key, json_number_value(j));
        add_text(acc, len, buf);
    } else if (counted && (json_is_boolean(j) || json_is_string(j))) {
        snprintf(buf, sizeof buf, "%s=%.60s", key,
                 json_is_string(j) ? json_string_value(j) : json_is_true(j) ? "true" : "false");
        add_text(acc, len, buf);
    }
}

static char *figures(const result *r) {
    char *acc = NULL;
    size_t len = 0;
    char buf[32];
    snprintf(buf, sizeof buf, "exit=%d", r->rc);
    add_text(&acc, &len, buf);
    json_error_t je;
    json_t *j = json_loads(r->out, 0, &je);
    if (j) {
        walk(j, "", false, &acc, &len);
        json_decref(j);
    }
    /* The start-up verdict lines (startup_cli.c). */
    char *copy = strdup(r->err);
    for (char *line = strtok(copy, "\n"); line; line = strtok(NULL, "\n"))
        if (strstr(line, "would not start") || strstr(line, "adjusts at start-up") ||
            strstr(line, "warns at start-up"))
            add_text(&acc, &len, line);
    free(copy);
    return acc;
}

/* ------------------------------------------------------------------ tests */

static void test_every_option_classified(void **state) {
    (void)state;
    for (size_t i = 0; i < kvp_option_count(); i++) {
        const kvp_option *r = kvp_option_at(i);
        bool someone = false;
        for (int e = 0; e < 4; e++) {
            const kvp_option_meaning *m = kvp_option_meaning_for(r, (kvp_engine)e);
            if (!m) fail_msg("%s under %s: no row in engine_reads.c", r->name, k_engines[e]);
            assert_true(m->text && *m->text);
            someone = someone || m->reads;
            /* A name of one engine chooses it: that engine reads it. */
            if (r->engines == KVP_OPTION_ENGINE(e) && !m->reads)
                fail_msg("%s is %s's flag but %s does not read it", r->name, k_titles[e],
                         k_titles[e]);
        }
        if (!someone) fail_msg("%s: no engine reads it", r->name);
        if (!probe_for(r->name, ANY) && !probe_for(r->name, 0))
            fail_msg("%s: no probe in test_option_meanings.c's table", r->name);
    }
}

static void test_no_meaning_is_exit_2(void **state) {
    (void)state;
    int failures = 0;
    for (size_t i = 0; i < kvp_option_count(); i++) {
        const kvp_option *r = kvp_option_at(i);
        for (int e = 0; e < 4; e++) {
            const kvp_option_meaning *m = kvp_option_meaning_for(r, (kvp_engine)e);
            if (m->reads) continue;
            const probe *p = probe_for(r->name, e);
            probe q = *p;
            q.base = GPU; /* the option alone on a plan that starts */
            q.model = NULL;
            char want[160];
            snprintf(want, sizeof want, "%s has no meaning under %s (policy %s)", r->name,
                     k_titles[e], k_engines[e]);
            if (p->cmd && !strcmp(p->cmd, "sim")) {
                /* sim's own options: sim refuses an engine it cannot replay itself. */
                q.base = p->base;
                q.model = p->model;
                snprintf(want, sizeof want, "'%s' has no continuous-batching scheduler", k_engines[e]);
            } else {
                q.cmd = NULL;
            }
            result res = run_kvplan(&q, e, p->a, true);
            if (res.rc != 2 || !strstr(res.err, want)) {
                printf("FAIL %s under %s: exit %d, want 2 and '%s'; stderr: %.300s\n", r->name,
                       k_engines[e], res.rc, want, res.err);
                failures++;
            }
            result_free(&res);
        }
    }
    assert_int_equal(failures, 0);
}

static void test_read_changes_a_figure(void **state) {
    (void)state;
    int failures = 0, shown = 0, reasons = 0;
    for (size_t i = 0; i < kvp_option_count(); i++) {
        const kvp_option *r = kvp_option_at(i);
        for (int e = 0; e < 4; e++) {
            const kvp_option_meaning *m = kvp_option_meaning_for(r, (kvp_engine)e);
            if (!m->reads) continue;
            const probe *p = probe_for(r->name, e);
            if (p->why) {
                reasons++;
                continue;
            }
            result ra = run_kvplan(p, e, p->a, true);
            result rb = run_kvplan(p, e, p->b, p->b != NULL);
            char *fa = figures(&ra), *fb = figures(&rb);
            if (ra.rc == 2 || !strcmp(fa, fb)) {
                printf("FAIL %s under %s: %s %s and %s give the same figures (exit %d/%d)%s%.300s\n",
                       r->name, k_engines[e], r->name, p->a, p->b ? p->b : "(absent)", ra.rc,
                       rb.rc, ra.rc == 2 ? ": " : "", ra.rc == 2 ? ra.err : "");
                failures++;
            } else {
                shown++;
            }
            free(fa);
            free(fb);
            result_free(&ra);
            result_free(&rb);
        }
    }
    printf("read options: %d shown to change a figure, %d with a reason\n", shown, reasons);
    assert_int_equal(failures, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_option_classified),
        cmocka_unit_test(test_no_meaning_is_exit_2),
        cmocka_unit_test(test_read_changes_a_figure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
