/* fit_env.c — options shared by `kvplan fit`, `sweep` and `compare`
 * (fit_env.h), and the JSON of an evaluated point. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fit_env.h"
#include "util.h"

#define DEFAULT_CUDA_GRAPH_BS 128u /* as `kvplan plan` */

const char kvp_fit_cli_usage[] =
    "  MODEL                        config.json, a folder holding one, or a catalogue name\n"
    "memory of one GPU (rank):\n"
    "  --gpu NAME | --gpu-mem BYTES the device (catalogue name or size)\n"
    "  --kv-budget BYTES            plan from a KV budget instead of the device\n"
    "  --weights BYTES --peak BYTES --non-torch BYTES   measured terms (else estimated)\n"
    "engine and settings:\n"
    "  --policy trtllm|vllm|sglang|llamacpp   (default trtllm)   --engine-version V\n"
    "  --tp N --pp N --kv-dtype T --max-seq-len N (alias --max-model-len, --context-length)\n"
    "  trtllm: --max-batch-size N --max-num-tokens N --free-gpu-memory-fraction F\n"
    "          --tokens-per-block N --max-beam-width N --enable-block-reuse\n"
    "          --kv-manager auto|v1|v2 --cuda-graph-batch-size N (128)\n"
    "  vllm:   --gpu-memory-utilization F --block-size N --max-num-seqs N\n"
    "          --max-num-batched-tokens N\n"
    "  sglang: --mem-fraction-static F --page-size N\n"
    "  llamacpp: --parallel N (slots) --ctx-size N --cache-type-k T --cache-type-v T\n"
    "            --flash-attn X\n"
    "  --from \"ENGINE COMMAND\"       take the policy and options from a vllm serve,\n"
    "                               sglang.launch_server, llama-server or trtllm-serve line\n"
    "  --json                       machine-readable output\n";

const char *const kvp_fit_cli_known[] = {
    "--gpu", "--gpu-mem", "--kv-budget", "--weights", "--peak", "--non-torch", "--policy",
    "--engine-version", "--tp", "--pp", "--kv-dtype", "--max-seq-len", "--max-model-len",
    "--context-length", "--max-batch-size", "--max-num-tokens", "--free-gpu-memory-fraction",
    "--tokens-per-block", "--max-beam-width", "--enable-block-reuse", "--kv-manager",
    "--cuda-graph-batch-size", "--gpu-memory-utilization", "--block-size", "--max-num-seqs",
    "--max-num-batched-tokens", "--mem-fraction-static", "--page-size", "--parallel",
    "--ctx-size", "--cache-type-k", "--cache-type-v", "--ubatch-size", "--batch-size",
    "--kv-unified", "--no-kv-unified", "--swa-full", "--flash-attn", "--dp",
    "--enable-dp-attention", "--attention-dp", "--mamba-cache-mode", "--max-tokens",
    "--host-cache-size", "--from", "--json", "--help", NULL};

void fit_cli_init(fit_cli *c, int argc, char **argv) {
    memset(c, 0, sizeof *c);
    /* Known before parsing, so that the first error already comes as JSON. */
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--json")) c->json = true;
    c->env.policy = kvp_policy_settings_default();
    c->env.trtllm.max_cuda_graph_batch_size = DEFAULT_CUDA_GRAPH_BS;
    c->base.engine = KVP_ENGINE_TRTLLM;
}

int fit_cli_bad(const fit_cli *c, kvp_status code, const char *key, const char *fmt, ...) {
    kvp_error e;
    kvp_error_clear(&e);
    e.code = code;
    if (key) kvp__strlcpy(e.key, key, sizeof e.key);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e.message, sizeof e.message, fmt, ap);
    va_end(ap);
    return kvp_cli_report_error(&e, c->json);
}

int fit_cli_unknown_option(const fit_cli *c, const char *arg, const char *const *extra) {
    if (c->json) return fit_cli_bad(c, KVP_INVALID_ARG, arg, "unknown option '%s' (see --help)", arg);
    const char *known[80];
    size_t n = 0;
    for (size_t k = 0; kvp_fit_cli_known[k] && n < 70; k++) known[n++] = kvp_fit_cli_known[k];
    for (size_t k = 0; extra[k] && n < 79; k++) known[n++] = extra[k];
    known[n] = NULL;
    return kvp_cli_unknown_option(arg, known);
}

static bool p_count(const fit_cli *c, const char *opt, const char *v, uint64_t lo, uint64_t hi,
                    uint64_t *out) {
    kvp_error e;
    uint64_t x;
    if (kvp_parse_count(v, &x, &e) != KVP_OK) {
        fit_cli_bad(c, KVP_INVALID_ARG, opt, "%s: %s", opt, e.message);
        return false;
    }
    if (x < lo || x > hi) {
        fit_cli_bad(c, KVP_INVALID_ARG, opt, "%s: %s is out of range, expected %llu to %llu", opt,
                    v, (unsigned long long)lo, (unsigned long long)hi);
        return false;
    }
    *out = x;
    return true;
}

static bool p_u32(const fit_cli *c, const char *opt, const char *v, uint32_t lo, uint32_t hi,
                  uint32_t *out) {
    uint64_t x;
    if (!p_count(c, opt, v, lo, hi, &x)) return false;
    *out = (uint32_t)x;
    return true;
}

static bool p_bytes(const fit_cli *c, const char *opt, const char *v, uint64_t *out) {
    kvp_error e;
    if (kvp_parse_bytes(v, out, &e) != KVP_OK) {
        fit_cli_bad(c, KVP_INVALID_ARG, opt, "%s: %s", opt, e.message);
        return false;
    }
    return true;
}

static bool p_fraction(const fit_cli *c, const char *opt, const char *v, double *out) {
    kvp_error e;
    if (kvp_parse_fraction(v, out, &e) != KVP_OK) {
        fit_cli_bad(c, KVP_INVALID_ARG, opt, "%s: %s", opt, e.message);
        return false;
    }
    return true;
}

int fit_cli_option(fit_cli *c, int argc, char **argv, int *i, bool *handled) {
    const char *a = argv[*i], *v = NULL;
    bool bad = false;
    *handled = true;
    const int BAD = KVP_EXIT_BAD_INPUT;
    if (kvp_cli_flag(a, "--json")) {
        c->json = true;
    } else if (kvp_cli_flag(a, "--enable-block-reuse")) {
        c->env.kv.enable_block_reuse = true;
    } else if (kvp_cli_opt(argc, argv, i, "--gpu-memory-utilization", &v, &bad)) {
        if (bad || !p_fraction(c, "--gpu-memory-utilization", v,
                               &c->env.policy.gpu_memory_utilization))
            return BAD;
    } else if (kvp_cli_opt(argc, argv, i, "--gpu-mem", &v, &bad)) {
        if (bad || !p_bytes(c, "--gpu-mem", v, &c->gpu_mem)) return BAD;
        if (c->gpu_mem == 0) return fit_cli_bad(c, KVP_INVALID_ARG, "--gpu-mem", "--gpu-mem is 0");
        c->has_gpu_mem = true;
    } else if (kvp_cli_opt(argc, argv, i, "--gpu", &v, &bad)) {
        if (bad) return BAD;
        c->gpu = v;
    } else if (kvp_cli_opt(argc, argv, i, "--kv-budget", &v, &bad)) {
        if (bad || !p_bytes(c, "--kv-budget", v, &c->env.memory.kv_budget_bytes)) return BAD;
        if (!c->env.memory.kv_budget_bytes)
            return fit_cli_bad(c, KVP_INVALID_ARG, "--kv-budget", "--kv-budget is 0");
    } else if (kvp_cli_opt(argc, argv, i, "--weights", &v, &bad)) {
        if (bad || !p_bytes(c, "--weights", v, &c->env.memory.weights_bytes)) return BAD;
        c->env.memory.has_weights = true;
    } else if (kvp_cli_opt(argc, argv, i, "--peak", &v, &bad)) {
        if (bad || !p_bytes(c, "--peak", v, &c->env.memory.peak_bytes)) return BAD;
        c->env.memory.has_peak = true;
    } else if (kvp_cli_opt(argc, argv, i, "--non-torch", &v, &bad)) {
        if (bad || !p_bytes(c, "--non-torch", v, &c->env.memory.non_torch_bytes)) return BAD;
        c->env.memory.has_non_torch = true;
    } else if (kvp_cli_opt(argc, argv, i, "--policy", &v, &bad)) {
        if (bad) return BAD;
        if (kvp_engine_parse(v, &c->base.engine) != KVP_OK)
            return fit_cli_bad(c, KVP_INVALID_ARG, "--policy",
                               "--policy: unknown engine '%s' (expected trtllm, vllm, sglang, "
                               "llamacpp)",
                               v);
    } else if (kvp_cli_opt(argc, argv, i, "--engine-version", &v, &bad)) {
        if (bad) return BAD;
        kvp__strlcpy(c->env.policy.engine_version, v, sizeof c->env.policy.engine_version);
    } else if (kvp_cli_opt(argc, argv, i, "--tp", &v, &bad)) {
        if (bad || !p_u32(c, "--tp", v, 1, 65536, &c->base.tp)) return BAD;
    } else if (kvp_cli_opt(argc, argv, i, "--pp", &v, &bad)) {
        if (bad || !p_u32(c, "--pp", v, 1, 65536, &c->base.pp)) return BAD;
    } else if (kvp_cli_opt(argc, argv, i, "--kv-dtype", &v, &bad)) {
        if (bad) return BAD;
        if (strlen(v) >= sizeof c->base.kv_dtype)
            return fit_cli_bad(c, KVP_INVALID_ARG, "--kv-dtype", "--kv-dtype: '%s' is too long", v);
        kvp__strlcpy(c->base.kv_dtype, v, sizeof c->base.kv_dtype);
    } else if (kvp_cli_opt(argc, argv, i, "--max-seq-len", &v, &bad) ||
               kvp_cli_opt(argc, argv, i, "--max-model-len", &v, &bad) ||
               kvp_cli_opt(argc, argv, i, "--context-length", &v, &bad)) {
        if (bad || !p_count(c, "--max-seq-len", v, 1, 1ull << 32, &c->base.max_seq_len)) return BAD;
        c->has_max_seq_len = true;
    } else if (kvp_cli_opt(argc, argv, i, "--max-batch-size", &v, &bad)) {
        if (bad || !p_count(c, "--max-batch-size", v, 1, 1u << 24, &c->env.trtllm.max_batch_size))
            return BAD;
    } else if (kvp_cli_opt(argc, argv, i, "--max-num-tokens", &v, &bad)) {
        if (bad || !p_count(c, "--max-num-tokens", v, 1, 1ull << 32, &c->env.trtllm.max_num_tokens))
            return BAD;
    } else if (kvp_cli_opt(argc, argv, i, "--free-gpu-memory-fraction", &v, &bad)) {
        if (bad || !p_fraction(c, "--free-gpu-memory-fraction", v,
                               &c->env.kv.free_gpu_memory_fraction))
            return BAD;
    } else if (kvp_cli_opt(argc, argv, i, "--tokens-per-block", &v, &bad)) {
        if (bad || !p_u32(c, "--tokens-per-block", v, 1, 1u << 16, &c->env.kv.tokens_per_block))
            return BAD;
    } else if (kvp_cli_opt(argc, argv, i, "--max-beam-width", &v, &bad)) {
        if (bad || !p_u32(c, "--max-beam-width", v, 1, 1024, &c->env.trtllm.max_beam_width))
            return BAD;
    } else if (kvp_cli_opt(argc, argv, i, "--kv-manager", &v, &bad)) {
        if (bad) return BAD;
        if (!strcmp(v, "auto"))
            c->env.kv.use_v2 = 0;
        else if (!strcmp(v, "v1"))
            c->env.kv.use_v2 = -1;
        else if (!strcmp(v, "v2"))
            c->env.kv.use_v2 = 1;
        else
            return fit_cli_bad(c, KVP_INVALID_ARG, "--kv-manager",
                               "--kv-manager: '%s' is not auto, v1 or v2", v);
    } else if (kvp_cli_opt(argc, argv, i, "--cuda-graph-batch-size", &v, &bad)) {
        uint32_t bs;
        if (bad || !p_u32(c, "--cuda-graph-batch-size", v, 0, 1u << 20, &bs)) return BAD;
        c->env.trtllm.max_cuda_graph_batch_size = bs;
    } else if (kvp_cli_opt(argc, argv, i, "--block-size", &v, &bad) ||
               (kvp_cli_opt(argc, argv, i, "--page-size", &v, &bad) &&
                (kvp_cli_note_spelling("--block-size", "--page-size", 11), true))) {
        /* --page-size is SGLang's name for it: messages name both (cli_util.c). */
        if (bad || !p_u32(c, "--block-size", v, 1, 1u << 16, &c->env.policy.block_size))
            return BAD;
    } else if (kvp_cli_opt(argc, argv, i, "--max-num-seqs", &v, &bad)) {
        if (bad || !p_u32(c, "--max-num-seqs", v, 1, 1u << 24, &c->env.policy.max_num_seqs))
            return BAD;
    } else if (kvp_cli_opt(argc, argv, i, "--max-num-batched-tokens", &v, &bad)) {
        if (bad || !p_count(c, "--max-num-batched-tokens", v, 1, 1ull << 32,
                            &c->env.policy.max_num_batched_tokens))
            return BAD;
    } else if (kvp_cli_opt(argc, argv, i, "--mem-fraction-static", &v, &bad)) {
        if (bad || !p_fraction(c, "--mem-fraction-static", v, &c->env.policy.mem_fraction_static))
            return BAD;
    } else if (kvp_cli_opt(argc, argv, i, "--parallel", &v, &bad)) {
        if (bad || !p_u32(c, "--parallel", v, 1, 256, &c->base.sequences)) return BAD;
    } else if (kvp_cli_opt(argc, argv, i, "--ctx-size", &v, &bad)) {
        if (bad || !p_count(c, "--ctx-size", v, 1, 1ull << 32, &c->env.policy.n_ctx)) return BAD;
    } else if (kvp_cli_opt(argc, argv, i, "--cache-type-k", &v, &bad) ||
               kvp_cli_opt(argc, argv, i, "--cache-type-v", &v, &bad)) {
        if (bad) return BAD;
        bool k = strncmp(a, "--cache-type-k", 14) == 0;
        char *dst = k ? c->env.policy.type_k : c->env.policy.type_v;
        if (strlen(v) >= sizeof c->env.policy.type_k)
            return fit_cli_bad(c, KVP_INVALID_ARG, a, "%s: '%s' is too long", a, v);
        kvp__strlcpy(dst, v, sizeof c->env.policy.type_k);
    } else if (kvp_cli_opt(argc, argv, i, "--ubatch-size", &v, &bad)) {
        if (bad || !p_u32(c, "--ubatch-size", v, 1, 1u << 24, &c->env.policy.n_ubatch)) return BAD;
    } else if (kvp_cli_opt(argc, argv, i, "--batch-size", &v, &bad)) {
        if (bad || !p_u32(c, "--batch-size", v, 1, 1u << 24, &c->env.policy.n_batch)) return BAD;
    } else if (kvp_cli_flag(a, "--kv-unified") || kvp_cli_flag(a, "--no-kv-unified")) {
        c->env.policy.kv_unified = kvp_cli_flag(a, "--kv-unified") ? 1 : 0;
    } else if (kvp_cli_flag(a, "--swa-full")) {
        c->env.policy.swa_full = 1;
    } else if (kvp_cli_flag(a, "--flash-attn") || strncmp(a, "--flash-attn=", 13) == 0) {
        if (a[12] == '=') v = a + 13;
        /* "--flash-attn", "--flash-attn on|off|auto", "--flash-attn=on" */
        if (!v && *i + 1 < argc &&
            (!strcmp(argv[*i + 1], "on") || !strcmp(argv[*i + 1], "off") ||
             !strcmp(argv[*i + 1], "auto")))
            v = argv[++*i];
        c->env.policy.flash_attn = !v || !strcmp(v, "on") ? 1 : !strcmp(v, "off") ? 0 : -1;
    } else if (kvp_cli_opt(argc, argv, i, "--dp", &v, &bad)) {
        if (bad || !p_u32(c, "--dp", v, 1, 65536, &c->env.policy.dp)) return BAD;
    } else if (kvp_cli_flag(a, "--enable-dp-attention")) {
        c->env.policy.enable_dp_attention = true;
    } else if (kvp_cli_flag(a, "--attention-dp")) {
        c->env.trtllm.attention_dp = true;
    } else if (kvp_cli_opt(argc, argv, i, "--mamba-cache-mode", &v, &bad)) {
        if (bad) return BAD;
        if (strlen(v) >= sizeof c->env.policy.mamba_cache_mode)
            return fit_cli_bad(c, KVP_INVALID_ARG, "--mamba-cache-mode",
                               "--mamba-cache-mode: '%s' is not none, align or all", v);
        kvp__strlcpy(c->env.policy.mamba_cache_mode, v, sizeof c->env.policy.mamba_cache_mode);
    } else if (kvp_cli_opt(argc, argv, i, "--max-tokens", &v, &bad)) {
        if (bad || !p_count(c, "--max-tokens", v, 1, UINT64_MAX / 2, &c->env.kv.max_tokens))
            return BAD;
        c->env.kv.has_max_tokens = true;
    } else if (kvp_cli_opt(argc, argv, i, "--host-cache-size", &v, &bad)) {
        if (bad || !p_bytes(c, "--host-cache-size", v, &c->env.kv.host_cache_size)) return BAD;
    } else {
        *handled = false;
    }
    return -1;
}

int fit_cli_finish(fit_cli *c, const char *command) {
    if (!c->model_arg)
        return fit_cli_bad(c, KVP_INVALID_ARG, NULL,
                           "%s needs a MODEL (a config.json, a folder, or a name from 'kvplan "
                           "models')",
                           command);
    if (c->gpu && c->has_gpu_mem)
        return fit_cli_bad(c, KVP_INVALID_ARG, "--gpu", "give --gpu or --gpu-mem, not both");
    kvp_error err;
    kvp_error_clear(&err);
    if (c->gpu) {
        if (kvp_gpu_lookup_in(kvp_cli_gpu_catalog(), c->gpu, &c->gpu_info, &err) != KVP_OK)
            return kvp_cli_report_error(&err, c->json);
        c->has_gpu_info = true;
        c->env.memory.total_bytes = c->gpu_info.total_bytes;
    } else if (c->has_gpu_mem) {
        c->env.memory.total_bytes = c->gpu_mem;
    }
    if (c->env.memory.kv_budget_bytes && c->env.memory.total_bytes)
        return fit_cli_bad(c, KVP_INVALID_ARG, "--kv-budget",
                           "--kv-budget plans from a budget directly; drop --gpu / --gpu-mem");
    if (!c->env.memory.kv_budget_bytes && !c->env.memory.total_bytes)
        return fit_cli_bad(c, KVP_INVALID_ARG, "--gpu",
                           "no memory to plan from: give --gpu NAME, --gpu-mem BYTES or "
                           "--kv-budget BYTES");
    if (kvp_model_open(c->model_arg, NULL, &c->model, &err) != KVP_OK)
        return kvp_cli_report_error(&err, c->json);
    /* A checkpoint folder (or a config.json in one): exact weights from its
     * safetensors headers, as `kvplan plan` does. */
    c->env.memory.model_dir = kvp_cli_model_dir(c->model_arg, c->model_dir, sizeof c->model_dir);
    c->env.model = c->model;
    return -1;
}

void fit_cli_free(fit_cli *c) {
    kvp_model_free(c->model);
    c->model = NULL;
}

const char *fit_gib(uint64_t bytes, char *buf, size_t n) {
    snprintf(buf, n, "%.2f GiB", (double)bytes / 1073741824.0);
    return buf;
}
