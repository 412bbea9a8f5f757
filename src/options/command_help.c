/* command_help.c — the help of each command's own flags (`kvplan COMMAND
 * --help`, the man page): the words the command reads beside the option
 * table, whose rows kvp_option_at lists with their own help. One place for the
 * text, so the CLI only writes it (issue 27 item 6). */
#include <stdio.h>
#include <string.h>

#include "command_help.h"
#include "engine_ops.h"
#include "kvplan/options.h"
#include "util.h"
#include "text_buf.h"

/* fit, sweep and compare: MODEL and the settings they share, before the table's
 * rows (the end of their text), and the words after them (kvp__command_help_tail). */
#define FIT_SHARED_HEAD                                                                          \
    "  MODEL                        config.json, a folder holding one, or a catalogue name\n"    \
    "deployment settings (the option table, docs/options.md; terms not measured are\n"           \
    "estimated from the config):\n"
#define FIT_SHARED_TAIL                                                                          \
    "  --from \"ENGINE COMMAND\"       take the policy and options from a vllm serve,\n"          \
    "                               sglang.launch_server, llama-server or trtllm-serve line\n"   \
    "  --json                       machine-readable output\n"

static const struct {
    const char *command, *text;
} k_help[] = {
    {"check",
     "usage: kvplan check MODEL --gpu G [--gpus N] (--policy vllm|sglang|trtllm|llamacpp | --from \"CMD\")\n"
     "                    [engine flags] [--json]\n"
     "\n"
     "Evaluates the engine's start-up rules (docs/startup.md) before a GPU is booked.\n"
     "Each rule prints pass, refuse, adjust (the engine changes a setting and starts), warn or\n"
     "unknown (an input it needs is missing), the engine's message and the fix.\n"
     "\n"
     "  --from \"vllm serve M --tensor-parallel-size 2 ...\"   read the engine command itself\n"
     "  --rules                         list every engine's rules and exit\n"
     "exit status: 0 the engine starts, 1 it refuses, 2 bad input\n"
     "\n"
     "settings (the option table, docs/options.md; an engine's own flag names it):"},
    {"cost",
     "usage: kvplan cost MODEL [options]\n"
     "The per-rank cost model, pool by pool: bytes per token and per sequence.\n"
     "  MODEL                        config.json, a folder holding one, or a catalogue name\n"
     "this command:\n"
     "  --pp-rank N                  pipeline stage to cost (default: the busiest)\n"
     "  --beam-width N               beams per sequence (default 1)\n"
     "  --layers                     print the per-layer table\n"
     "  --json                       machine-readable output\n"
     "the settings a cost reads (the option table, docs/options.md; defaults: tp 1,\n"
     "pp 1, kv dtype auto, 32 tokens per block):\n"},
    {"models",
     "usage: kvplan models [FILTER] [--json]\n"
     "  lists the model configs compiled into kvplan, then the aliases (Instruct, chat,\n"
     "  base variants that share an entry's geometry); FILTER keeps the names and\n"
     "  Hugging Face ids that contain it (any case)\n"
     "  --json     machine-readable output\n"
     "exit status: 0 listed, 1 nothing matches FILTER, 2 bad usage\n"},
    {"serve",
     "usage: kvplan serve [--host ADDR] [--port N] [--threads N] [--max-connections N]\n"
     "                    [--timeout S] [--allow-host NAME[,NAME...]]\n"
     "  the kvplan page (GET /) and JSON API v1 (GET /api/v1/models[?q=], gpus, policies,\n"
     "  health; POST /api/v1/cost, plan, compare, fit, sweep) on this machine; prints the\n"
     "  URL on stdout and serves until SIGINT (Ctrl-C) or SIGTERM\n"
     "  --host ADDR        numeric address to listen on (default 127.0.0.1); an address\n"
     "                     other than loopback is served to the network: a warning says so\n"
     "  --port N           TCP port (default 8080; 0 picks a free port)\n"
     "  --threads N        fixed thread pool (default 4, 1..64)\n"
     "  --max-connections N  open connections at once (default 64, 1..4096)\n"
     "  --timeout S        close a connection idle S seconds (default 30, 1..3600)\n"
     "  --allow-host NAMES more names the Host header may carry (the listening address,\n"
     "                     and localhost on loopback, are always accepted)\n"
     "a request body over 1 MiB is refused (413); a model in a request is a catalogue name\n"
     "or a config.json object, never a path; docs/serve.md has the API\n"
     "exit status: 0 stopped by a signal, 2 bad usage or cannot listen"},
    {"why",
     "usage: kvplan why LOGFILE|- [--model MODEL] [--target-concurrency N]\n"
     "                  [--target-context L] [--record FILE] [--json] [OPTIONS]\n"
     "  reads an engine's start-up log (vLLM, SGLang, TensorRT-LLM, llama.cpp,\n"
     "  llama-server, llama-cpp-python, Ollama; '-' reads stdin), plans the same\n"
     "  deployment from the memory the log printed and from config + GPU + flags\n"
     "  alone, and sets every figure the log printed beside both\n"
     "  --model MODEL            the model's config when the log's model is not found\n"
     "                           (a config.json, a folder, a catalogue name)\n"
     "  --target-concurrency N   the longest context that runs N sequences\n"
     "  --target-context L       how many sequences of L tokens fit (else the KV dtype)\n"
     "  --record FILE            append the case in the reference-case format\n"
     "                           (tests/reference/README.md), paths, hosts and keys redacted\n"
     "  --json                   machine-readable output (docs/schema/why.schema.json)\n"
     "  OPTIONS                  any option of `kvplan plan` (--gpu, --tp, ...): wins\n"
     "                           over what the log says\n"
     "exit status: 0 every figure reproduced from the logged memory, 1 some differ or\n"
     "could not be reproduced (listed), 2 bad input (no engine, two engines\n"
     "interleaved, contradicting figures, model not found)\n"},
    {"local",
     "usage: kvplan local MODEL --max-num-seqs N [--async-chunk] [--streaming]\n"
     "                    [--enforce-eager] [--json] [--decl FILE]\n"
     "       kvplan local --list\n\n"
     "Model-local KV caches (kept in the model's own transformers cache objects, outside\n"
     "the engine's paged KV manager): bytes per row, rows with their driver and reason,\n"
     "totals at max_num_seqs, and what profiling already charged. Reported, never\n"
     "subtracted from the KV budget.\n\n"
     "  MODEL              qwen3-tts, mimo-audio, minicpm-o, ming-flash-omni (or an alias)\n"
     "  --max-num-seqs N   in-flight sequences (rows of MAX_NUM_SEQS caches)\n"
     "  --async-chunk      async-chunk decoding (Qwen3-TTS codec decoder holds KV)\n"
     "  --streaming        streaming sessions (MiniCPM-o's Whisper encoder cache)\n"
     "  --enforce-eager    no CUDA-graph capture where the model honours it\n"
     "  --decl FILE        read the declarations from FILE instead of the embedded ones\n"
     "  --list             list the models with embedded declarations\n"
     "  --json             machine-readable output\n"},
    {"gpus",
     "usage: kvplan gpus [--catalog] [--json]\n"
     "  lists the GPUs found on this machine with their total, free and used memory\n"
     "  (NVIDIA through NVML or the CUDA driver, AMD through sysfs)\n"
     "  --catalog  list the embedded catalogue instead (names usable with --gpu)\n"
     "  --json     machine-readable output\n"
     "exit status: 0 GPUs found, 1 none found (the notes say why), 2 bad usage"},
    {"sim",
     "usage: kvplan sim MODEL (--gpu NAME | --gpu-mem BYTES | --kv-budget BYTES |\n"
     "                         --blocks N) (--workload FILE | --synthetic SPEC) [options]\n"
     "Replays a workload through continuous batching over the pool `kvplan plan` sizes\n"
     "(TensorRT-LLM's creator; --blocks N bypasses the plan) under one engine's\n"
     "admission and preemption: --policy vllm (default; recompute the newest), sglang\n"
     "(decode reserve, retraction) or trtllm (reservation to completion; with\n"
     "--capacity-scheduler-policy MAX_UTILIZATION, pausing).\n"
     "  MODEL                  config.json, a folder holding one, or a catalogue name\n"
     "this command:\n"
     "  --workload FILE        JSON lines: {\"arrival\": 0, \"prompt_len\": 1000,\n"
     "                         \"output_len\": 200, \"prefix_id\": \"sys\", \"prefix_len\": 512}\n"
     "  --synthetic SPEC       requests=N,prompt=DIST,output=DIST[,shared_prefix=LEN:FRAC]\n"
     "                         [,prefixes=K][,rate=R][,seed=S]; DIST = fixed:N,\n"
     "                         uniform:A:B or lognormal:MEAN:SIGMA\n"
     "  --arrival-unit U       steps|seconds: unit of \"arrival\" (default steps)\n"
     "  --step-time S          seconds per step for --arrival-unit seconds (default 0.02)\n"
     "  --no-timing            leave out wall-clock figures (reproducible output)\n"
     "  --quiet                no progress line on stderr (shown on a terminal after 1 s)\n"
     "  --json                 machine-readable output\n"
     "  --svg FILE             chart of utilization and running requests per step\n"
     "                         (written to a temporary file, then renamed)\n"
     "the pool and the scheduler (the option table, docs/options.md; defaults: block 32,\n"
     "batch 256, 8192 tokens per step, max_model_len the model's, chunked prefill and\n"
     "prefix reuse on, max_new_tokens = max_model_len - prompt):\n"},
    {"sweep",
     "usage: kvplan sweep MODEL (--gpu NAME | --gpu-mem BYTES | --kv-budget BYTES) "
     "--over KEY=VALUES ...\n"
     "  --over KEY=VALUES            KEY: max-seq-len, kv-dtype, tp, pp, policy\n"
     "                               VALUES: a,b,c   4k..128k (doubling)   1k..8k+1k (step)\n"
     "  --max-plans N                refuse grids larger than N (default 10000)\n"
     "  --csv                        comma-separated output\n"
     "  --svg FILE                   max sequences vs max-seq-len, a line per combination\n"
     "  --html FILE                  one self-contained page: chart and table\n"
     "  --timing                     print plans per second on stderr\n"
     "  --quiet                      no progress line on stderr (shown on a terminal after 1 s)\n"
     FIT_SHARED_HEAD},
    {"fit",
     "usage: kvplan fit MODEL (--gpu NAME | --gpu-mem BYTES | --kv-budget BYTES) "
     "[constraints]\n"
     "Solves for what is left free; by default the longest --max-seq-len serving\n"
     "--concurrency sequences at once, or, with --max-seq-len, the most sequences.\n"
     "  --solve max-seq-len|concurrency|tp|kv-dtype   what to solve for\n"
     "  --concurrency N              sequences served at once (default 1)\n"
     "  --gpus N                     GPUs available for --solve tp (default 8)\n"
     "  --allow-pp                   --solve tp may also use pipeline parallelism\n"
     "  --max-seq-len-limit N        upper bound of the length search (default: the\n"
     "                               model's max_position_embeddings)\n"
     "  --svg FILE                   the GPU memory bar of the plan at the answer\n"
     FIT_SHARED_HEAD},
    {"compare",
     "usage: kvplan compare MODEL (--gpu NAME | --gpu-mem BYTES | --kv-budget BYTES) "
     "[options]\n"
     "  --policies LIST              engines to compare (default trtllm,vllm,sglang,llamacpp)\n"
     "  --html FILE                  one self-contained page: table and a memory bar each\n"
     FIT_SHARED_HEAD},
    {"plan",
     "usage: kvplan plan MODEL [options]\n"
     "Plans the KV cache of one GPU (rank) under an engine's rules, --policy\n"
     "vllm|sglang|trtllm|llamacpp (default trtllm, or the engine whose own flags are\n"
     "used): the figures its start-up log would show, and why (docs/policies.md).\n"
     "  MODEL                        a catalogue name, a config.json or a folder holding\n"
     "                               one, a .gguf file, or a geometry JSON ({\"arch\": ...})\n"
     "this command:\n"
     "  --from \"ENGINE COMMAND\"      take policy and options from a vllm serve / sglang /\n"
     "                               llama-server / trtllm-serve command line\n"
     "  --geometry FILE              build the model from a GGUF-style geometry JSON\n"
     "  --local NAME                 model-local KV caches to report (kvplan local --list);\n"
     "                               with --async-chunk, --streaming, --enforce-eager\n"
     "  --explain                    formula and inputs behind every number\n"
     "  --json                       machine-readable plan\n"
     "  --svg FILE, --html FILE      also write the memory bar (SVG) / a self-contained page\n"
     "deployment settings (the option table, docs/options.md; a start-up refusal exits 1\n"
     "with its rule; memory terms not measured are estimated from the config, and said):\n"},
};

const char *kvp__command_help(const char *command) {
    for (size_t i = 0; i < sizeof k_help / sizeof k_help[0]; i++)
        if (!strcmp(k_help[i].command, command)) return k_help[i].text;
    return "";
}

const char *kvp__command_help_tail(const char *command) {
    static const char *const shared[] = {"fit", "sweep", "compare"};
    for (size_t i = 0; i < sizeof shared / sizeof shared[0]; i++)
        if (!strcmp(shared[i], command)) return FIT_SHARED_TAIL;
    return "";
}

/* The text a builder holds, NULL when it failed. */
static char *finished(kvp__text_buf *b) {
    if (!b->failed) return b->data;
    kvp__free(NULL, b->data);
    return NULL;
}

char *kvp__option_rows_help(unsigned command, unsigned engines) {
    kvp__text_buf b = {0};
    for (size_t i = 0; i < kvp_option_count(); i++) {
        const kvp_option *r = kvp_option_at(i);
        if (!(r->commands & command) || !(r->engines & engines)) continue;
        char head[160];
        size_t h = (size_t)snprintf(head, sizeof head, "%s%s%s", r->name, r->value_name ? " " : "",
                                    r->value_name ? r->value_name : "");
        /* TensorRT-LLM's snake_case spellings are read as the dashed name; the
         * help lists dashed names only. */
        for (size_t k = 0; k < KVP_OPTION_SPELLINGS_MAX && r->spellings[k].name && h < sizeof head; k++)
            if (!strchr(r->spellings[k].name, '_')) h += (size_t)snprintf(head + h, sizeof head - h, ", %s", r->spellings[k].name);
        if (h <= 28) /* a space between the name and its help */
            kvp__text_printf(&b, "  %-29s%s\n", head, r->help);
        else
            kvp__text_printf(&b, "  %s\n  %-29s%s\n", head, "", r->help);
    }
    return finished(&b);
}

char *kvp__main_help(const char *version, const char *const *names, const char *const *helps,
                     size_t n) {
    kvp__text_buf b = {0};
    kvp__text_printf(&b, "kvplan %s — plan the KV-cache memory of LLM serving\n\n"
                         "usage: kvplan COMMAND [options]\n\ncommands:\n",
                     version);
    for (size_t i = 0; i < n; i++) kvp__text_printf(&b, "  %-10s %s\n", names[i], helps[i]);
    kvp__text_printf(&b, "\nglobal option:\n  --gpu-catalog FILE  GPU entries of your own, searched before the built-in\n"
                         "                      catalogue (also $KVPLAN_GPU_CATALOG); layout: docs/gpus.md\n");
    kvp__text_printf(&b, "\nRun 'kvplan help COMMAND' (or 'kvplan COMMAND --help') for the options of a "
                         "command,\n'kvplan --policy help' for the engine policies, 'kvplan -V' for the "
                         "version.\n");
    return finished(&b);
}

char *kvp__policy_help(void) {
    kvp__text_buf b = {0};
    kvp__text_printf(&b, "engine policies (--policy NAME; 'kvplan compare' plans under all of them):\n");
    for (int e = 0; e < KVP_ENGINE_COUNT; e++)
        kvp__text_printf(&b, "  %-9s %s\n", kvp_engine_name((kvp_engine)e),
                         kvp__engine_ops_of((kvp_engine)e)->help);
    kvp__text_printf(&b, "'kvplan plan --help' lists each engine's spellings of its options "
                         "(-tp, --max-model-len, -c, -np, ...);\ndocs/policies.md has the rules of each.\n");
    return finished(&b);
}
