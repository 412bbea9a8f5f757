/* options_table.c — the rows of the one option table (kvplan/options.h). Each
 * row: kvplan's name, the settings field, the value type and range, the
 * commands and the engines whose plans read the field, the help line, and the
 * engines' own spellings. The engines' spellings are theirs:
 *   vLLM   vllm/engine/arg_utils.py (EngineArgs.add_cli_args)
 *   SGLang python/sglang/srt/server_args.py (ServerArgs.add_cli_args)
 *   TRT-LLM tensorrt_llm/commands/serve.py (trtllm-serve options)
 *   llama.cpp common/arg.cpp (common_params_parser_init)
 * (../shared/reference/ENGINES.md lists them per engine.) Ranges are the
 * engines' own limits where one exists (llama.cpp LLAMA_MAX_SEQ 256 slots),
 * else a bound past any real deployment that keeps byte arithmetic in 64 bits. */
#include "options_internal.h"

#define T KVP_OPTION_ENGINE(KVP_ENGINE_TRTLLM)
#define V KVP_OPTION_ENGINE(KVP_ENGINE_VLLM)
#define S KVP_OPTION_ENGINE(KVP_ENGINE_SGLANG)
#define L KVP_OPTION_ENGINE(KVP_ENGINE_LLAMACPP)
#define ALL KVP_OPTION_ENGINES_ALL
/* The commands that plan a deployment; `check` evaluates start-up on the same settings. */
#define DEP (KVP_COMMAND_PLAN | KVP_COMMAND_FIT | KVP_COMMAND_SWEEP | KVP_COMMAND_COMPARE | \
             KVP_COMMAND_CHECK)
/* The request shape: every command that plans, not `check` (start-up only). */
#define REQ (KVP_COMMAND_PLAN | KVP_COMMAND_FIT | KVP_COMMAND_SWEEP | KVP_COMMAND_COMPARE)
/* `sim` takes only the rows its replay reads (cmd_sim.c). */
#define SIM KVP_COMMAND_SIM
#define COST KVP_COMMAND_COST
/* The creator's own settings and the rules around it: `plan` (policy trtllm) only. */
#define CRE KVP_COMMAND_PLAN
#define U32 4294967295ull
#define TOKENS (1ull << 32) /* 4G tokens: longer than any context window */
#define STATE_DTYPES "auto|float32|bfloat16|float16"

#define BYTES_CMD(ID, NAME, FIELD, MIN, CMD, ENG, HELP)                                       \
    [ID] = {.id = ID, .name = NAME, .field = FIELD, .type = KVP_OPTION_BYTES,                 \
            .value_name = "BYTES", .unit = "bytes", .min = MIN, .max = UINT64_MAX,             \
            .commands = CMD, .engines = ENG, .help = HELP}
#define BYTES_ROW(ID, NAME, FIELD, MIN, ENG, HELP) BYTES_CMD(ID, NAME, FIELD, MIN, DEP, ENG, HELP)
/* The creator's rows: one engine (TensorRT-LLM), `plan` only. */
#define CRE_COUNT(ID, NAME, FIELD, MIN, MAX, UNIT, HELP)                                       \
    [ID] = {.id = ID, .name = NAME, .field = FIELD, .type = KVP_OPTION_COUNT, .value_name = "N", \
            .unit = UNIT, .min = MIN, .max = MAX, .commands = CRE, .engines = T, .help = HELP}
#define CRE_FLAG(ID, NAME, FIELD, HELP)                                                        \
    [ID] = {.id = ID, .name = NAME, .field = FIELD, .type = KVP_OPTION_FLAG, .commands = CRE,  \
            .engines = T, .help = HELP}
#define CRE_TEXT(ID, NAME, FIELD, VALUE, MAX, HELP)                                            \
    [ID] = {.id = ID, .name = NAME, .field = FIELD, .type = KVP_OPTION_TEXT, .value_name = VALUE, \
            .max = MAX, .commands = CRE, .engines = T, .help = HELP}

const kvp_option kvp__options[O_COUNT] = {
    /* ---- memory of one GPU (rank) */
    [O_GPU] = {.id = O_GPU, .name = "--gpu", .field = "gpu", .type = KVP_OPTION_TEXT,
               .value_name = "NAME", .max = 127, .commands = DEP | SIM, .engines = ALL,
               .help = "a GPU from the catalogue (kvplan gpus): its memory and compute capability"},
    BYTES_CMD(O_GPU_MEM, "--gpu-mem", "total_bytes", 1, DEP | SIM, ALL, "device memory, e.g. 80GiB"),
    BYTES_ROW(O_FREE_MEM, "--free-mem", "free_bytes", 0, ALL,
              "free device memory now (what is held counts as non-torch)"),
    BYTES_CMD(O_KV_BUDGET, "--kv-budget", "kv_budget_bytes", 1, DEP | SIM, ALL,
              "plan from the engine's KV budget directly (no device memory terms)"),
    BYTES_ROW(O_WEIGHTS, "--weights", "weights_bytes", 0, ALL, "measured weights on this rank"),
    BYTES_ROW(O_PEAK, "--peak", "peak_bytes", 0, ALL,
              "measured allocator peak of the profiling pass, weights included (torch peak; "
              "vLLM V0 peak_torch_memory)"),
    BYTES_ROW(O_ACTIVATION_PEAK, "--activation-peak", "activation_peak_bytes", 0, ALL,
              "the same peak without the weights (vLLM V1 \"peak activation\"); instead of --peak"),
    BYTES_ROW(O_NON_TORCH, "--non-torch", "non_torch_bytes", 0, ALL,
              "measured memory outside the allocator (NCCL, context; TRT-LLM: graphs too)"),
    BYTES_ROW(O_CUDA_GRAPH, "--cuda-graph", "cuda_graph_bytes", 0, ALL,
              "measured CUDA-graph memory (vLLM \"CUDAGraph memory\")"),
    BYTES_ROW(O_ESTIMATION_KV, "--estimation-kv", "estimation_kv_bytes", 0, T,
              "TRT-LLM: KV cache the profiling pass held (added back)"),

    /* ---- engine */
    [O_POLICY] = {.id = O_POLICY, .name = "--policy", .field = "engine", .type = KVP_OPTION_CHOICE,
                  .value_name = "ENGINE", .choices = "trtllm|vllm|sglang|llamacpp",
                  .commands = DEP | SIM, .engines = ALL,
                  .help = "the engine planned (default trtllm, or the engine whose flags are used)"},
    [O_ENGINE_VERSION] = {.id = O_ENGINE_VERSION, .name = "--engine-version",
                          .field = "engine_version", .type = KVP_OPTION_TEXT, .value_name = "V",
                          .max = 127, .commands = DEP, .engines = ALL,
                          .help = "the engine release whose rules apply (0.9.1, b7217, 2026 ...)"},

    /* ---- parallelism */
    [O_TP] = {.id = O_TP, .name = "--tp", .field = "tp", .type = KVP_OPTION_COUNT,
              .value_name = "N", .unit = "GPUs", .min = 1, .max = 65536, .commands = DEP | SIM | COST,
              .engines = ALL, .help = "tensor-parallel size",
              .spellings = {{"--tensor-parallel-size", V | S, false}, {"-tp", V, false},
                            {"--tp-size", S, false}, {"--tp_size", T, false}}},
    [O_PP] = {.id = O_PP, .name = "--pp", .field = "pp", .type = KVP_OPTION_COUNT,
              .value_name = "N", .unit = "GPUs", .min = 1, .max = 65536, .commands = DEP | SIM | COST,
              .engines = ALL, .help = "pipeline-parallel size",
              .spellings = {{"--pipeline-parallel-size", V | S, false}, {"-pp", V, false},
                            {"--pp-size", S, false}, {"--pp_size", T, false}}},
    [O_DP] = {.id = O_DP, .name = "--dp", .field = "dp", .type = KVP_OPTION_COUNT,
              .value_name = "N", .unit = "GPUs", .min = 1, .max = 65536, .commands = DEP,
              .engines = V | S, .help = "data-parallel size (SGLang: with --enable-dp-attention)",
              .spellings = {{"--data-parallel-size", V, false}, {"-dp", V, false},
                            {"--dp-size", S, false}}},
    [O_ATTENTION_DP] = {.id = O_ATTENTION_DP, .name = "--attention-dp", .field = "attention_dp",
                        .type = KVP_OPTION_FLAG, .commands = DEP, .engines = T | S,
                        .help = "attention data parallelism (attention TP = tp / dp)",
                        .spellings = {{"--enable-dp-attention", S, false},
                                      {"--enable_attention_dp", T, false}}},

    /* ---- lengths and the KV cache */
    [O_MAX_SEQ_LEN] = {.id = O_MAX_SEQ_LEN, .name = "--max-seq-len", .field = "max_seq_len",
                       .type = KVP_OPTION_COUNT, .value_name = "N", .unit = "tokens", .min = 1,
                       .max = TOKENS, .commands = DEP | SIM, .engines = ALL,
                       .help = "longest sequence the engine serves (default: the model's); "
                               "vLLM -1 = the longest that fits",
                       .spellings = {{"--max-model-len", V, false},
                                     {"--context-length", S, false},
                                     {"--max_seq_len", T, false}}},
    [O_SEQ_LEN] = {.id = O_SEQ_LEN, .name = "--seq-len", .field = "seq_len",
                   .type = KVP_OPTION_COUNT, .value_name = "N", .unit = "tokens", .min = 1,
                   .max = TOKENS, .commands = DEP, .engines = ALL,
                   .help = "length the concurrency is counted at (default --max-seq-len)"},
    [O_KV_DTYPE] = {.id = O_KV_DTYPE, .name = "--kv-dtype", .field = "kv_dtype",
                    .type = KVP_OPTION_TEXT, .value_name = "T", .max = 23, .commands = DEP | SIM | COST,
                    .engines = T | V | S,
                    .help = "KV cache dtype: auto, fp16, bf16, fp8 (engine spellings: fp8_e4m3 ...)",
                    .spellings = {{"--kv-cache-dtype", V | S, false}}},
    [O_BLOCK_SIZE] = {.id = O_BLOCK_SIZE, .name = "--block-size", .field = "block_size",
                      .type = KVP_OPTION_COUNT, .value_name = "N", .unit = "tokens", .min = 1,
                      .max = 1u << 16, .commands = DEP | SIM | COST, .engines = T | V | S,
                      .help = "tokens per KV block (vLLM block, SGLang page, TRT-LLM "
                              "tokens_per_block)",
                      .spellings = {{"--tokens-per-block", T, false}, {"--page-size", S, false},
                                    {"--tokens_per_block", T, false}}},
    [O_GPU_MEMORY_UTILIZATION] = {.id = O_GPU_MEMORY_UTILIZATION,
                                  .name = "--gpu-memory-utilization",
                                  .field = "gpu_memory_utilization", .type = KVP_OPTION_FRACTION,
                                  .value_name = "F", .commands = DEP, .engines = V,
                                  .help = "vLLM: fraction of the device it may use (0.9)"},
    [O_MEM_FRACTION_STATIC] = {.id = O_MEM_FRACTION_STATIC, .name = "--mem-fraction-static",
                               .field = "mem_fraction_static", .type = KVP_OPTION_FRACTION,
                               .value_name = "F", .commands = DEP, .engines = S,
                               .help = "SGLang: static fraction (weights + KV pool)"},
    [O_FREE_GPU_MEMORY_FRACTION] = {.id = O_FREE_GPU_MEMORY_FRACTION,
                                    .name = "--free-gpu-memory-fraction",
                                    .field = "free_gpu_memory_fraction",
                                    .type = KVP_OPTION_FRACTION, .value_name = "F",
                                    .commands = DEP | SIM, .engines = T,
                                    .help = "TRT-LLM: fraction of free memory for the KV cache (0.9)",
                                    .spellings = {{"--kv_cache_free_gpu_memory_fraction", T,
                                                   false}}},

    /* ---- scheduler limits */
    [O_MAX_NUM_SEQS] = {.id = O_MAX_NUM_SEQS, .name = "--max-num-seqs", .field = "max_num_seqs",
                        .type = KVP_OPTION_COUNT, .value_name = "N", .unit = "sequences",
                        .min = 1, .max = 1u << 24, .commands = DEP, .engines = V,
                        .help = "vLLM: most sequences scheduled at once (256)"},
    [O_MAX_NUM_BATCHED_TOKENS] = {.id = O_MAX_NUM_BATCHED_TOKENS,
                                  .name = "--max-num-batched-tokens",
                                  .field = "max_num_batched_tokens", .type = KVP_OPTION_COUNT,
                                  .value_name = "N", .unit = "tokens", .min = 1, .max = TOKENS,
                                  .commands = DEP, .engines = V,
                                  .help = "vLLM: tokens per scheduler step (8192)"},
    [O_MAMBA_CACHE_MODE] = {.id = O_MAMBA_CACHE_MODE, .name = "--mamba-cache-mode",
                            .field = "mamba_cache_mode", .type = KVP_OPTION_CHOICE,
                            .value_name = "MODE", .choices = "none|align|all", .commands = DEP,
                            .engines = V, .help = "vLLM: Mamba state caching for prefix reuse"},
    /* Recurrent-state dtypes (ENGINES.md 1.3 "Dtypes", 2.6, 4.4): the values vLLM's
     * MambaDType, SGLang's --mamba-ssm-dtype choices and TRT-LLM's KvCacheConfig take;
     * "auto" is the engine's own rule. llama.cpp keeps its states in f32 (no option). */
    [O_MAMBA_CACHE_DTYPE] = {.id = O_MAMBA_CACHE_DTYPE, .name = "--mamba-cache-dtype",
                             .field = "mamba_cache_dtype", .type = KVP_OPTION_CHOICE,
                             .value_name = "T", .choices = STATE_DTYPES, .commands = DEP,
                             .engines = V,
                             .help = "vLLM: conv (and lightning) state dtype; auto = the model "
                                     "dtype"},
    [O_MAMBA_SSM_CACHE_DTYPE] = {.id = O_MAMBA_SSM_CACHE_DTYPE, .name = "--mamba-ssm-cache-dtype",
                                 .field = "mamba_ssm_cache_dtype", .type = KVP_OPTION_CHOICE,
                                 .value_name = "T", .choices = STATE_DTYPES, .commands = DEP,
                                 .engines = T | V | S,
                                 .help = "SSM state dtype; auto = vLLM the config's "
                                         "mamba_ssm_dtype, else --mamba-cache-dtype; SGLang "
                                         "float32; TRT-LLM the config's mamba_ssm_cache_dtype",
                                 .spellings = {{"--mamba-ssm-dtype", S, false}}},
    [O_NUM_DRAFT_LAYERS] = {.id = O_NUM_DRAFT_LAYERS, .name = "--num-draft-layers",
                            .field = "num_draft_layers", .type = KVP_OPTION_COUNT,
                            .value_name = "N", .unit = "layers", .min = 0, .max = 1024,
                            .commands = DEP, .engines = T | V,
                            .help = "draft (EAGLE / MTP) attention layers in the KV cache"},
    [O_MAX_BATCH_SIZE] = {.id = O_MAX_BATCH_SIZE, .name = "--max-batch-size",
                          .field = "max_batch_size", .type = KVP_OPTION_COUNT, .value_name = "N",
                          .unit = "sequences", .min = 1, .max = 1u << 24, .commands = DEP | SIM,
                          .engines = T, .help = "TRT-LLM: most sequences in a batch (2048)",
                          .spellings = {{"--max_batch_size", T, false}}},
    [O_MAX_NUM_TOKENS] = {.id = O_MAX_NUM_TOKENS, .name = "--max-num-tokens",
                          .field = "max_num_tokens", .type = KVP_OPTION_COUNT, .value_name = "N",
                          .unit = "tokens", .min = 1, .max = TOKENS, .commands = DEP | SIM,
                          .engines = T, .help = "TRT-LLM: tokens per batch (8192)",
                          .spellings = {{"--max_num_tokens", T, false}}},
    [O_MAX_BEAM_WIDTH] = {.id = O_MAX_BEAM_WIDTH, .name = "--max-beam-width",
                          .field = "max_beam_width", .type = KVP_OPTION_COUNT, .value_name = "N",
                          .min = 1, .max = 1024, .commands = DEP, .engines = T,
                          .help = "TRT-LLM: beam width (1)",
                          .spellings = {{"--max_beam_width", T, false}}},
    [O_MAX_TOKENS] = {.id = O_MAX_TOKENS, .name = "--max-tokens", .field = "max_tokens",
                      .type = KVP_OPTION_COUNT, .value_name = "N", .unit = "tokens", .min = 1,
                      .max = UINT64_MAX / 2, .commands = DEP, .engines = T,
                      .help = "TRT-LLM kv_cache_config.max_tokens: cap on KV tokens"},
    BYTES_ROW(O_HOST_CACHE_SIZE, "--host-cache-size", "host_cache_size", 0, T,
              "TRT-LLM kv_cache_config.host_cache_size (offload)"),
    [O_ENABLE_BLOCK_REUSE] = {.id = O_ENABLE_BLOCK_REUSE, .name = "--enable-block-reuse",
                              .field = "enable_block_reuse", .type = KVP_OPTION_FLAG,
                              .commands = DEP | SIM, .engines = T,
                              .help = "TRT-LLM kv_cache_config.enable_block_reuse (sim: "
                                      "--no-prefix-reuse turns the replay's reuse off)",
                              .spellings = {{"--no-prefix-reuse", 0, true}}},
    [O_KV_MANAGER] = {.id = O_KV_MANAGER, .name = "--kv-manager", .field = "use_kv_cache_manager_v2",
                      .type = KVP_OPTION_CHOICE, .value_name = "M", .choices = "auto|v1|v2",
                      .commands = DEP, .engines = T,
                      .help = "TRT-LLM KV cache manager (auto: v2 for hybrid models)"},
    [O_CUDA_GRAPH_BATCH_SIZE] = {.id = O_CUDA_GRAPH_BATCH_SIZE, .name = "--cuda-graph-batch-size",
                                 .field = "max_cuda_graph_batch_size", .type = KVP_OPTION_COUNT,
                                 .value_name = "N", .unit = "sequences", .min = 0,
                                 .max = 1u << 20, .commands = DEP, .engines = T,
                                 .help = "TRT-LLM: largest CUDA graph batch (128; 0 = none)"},
    /* The capture sizes of the start-up memory model (docs/memory.md). vLLM's
     * --cuda-graph-sizes with one value N captures up to N (SchedulerConfig). */
    [O_CUDA_GRAPH_MAX_BS] = {.id = O_CUDA_GRAPH_MAX_BS, .name = "--cuda-graph-max-bs",
                             .field = "cuda_graph_max_bs", .type = KVP_OPTION_COUNT,
                             .value_name = "N", .unit = "sequences", .min = 1, .max = 1u << 20,
                             .commands = DEP, .engines = V | S,
                             .help = "largest CUDA graph batch (vLLM min(2 x max_num_seqs, "
                                     "512); SGLang by GPU memory)",
                             .spellings = {{"--cuda-graph-sizes", V, false}}},
    [O_CUDA_GRAPH_BATCH_SIZES] = {.id = O_CUDA_GRAPH_BATCH_SIZES,
                                  .name = "--cuda-graph-batch-sizes",
                                  .field = "cuda_graph_batch_sizes", .type = KVP_OPTION_TEXT,
                                  .value_name = "N,N,...", .max = 511, .commands = DEP,
                                  .engines = T | V | S,
                                  .help = "the CUDA graph capture list (TRT-LLM "
                                          "cuda_graph_config.batch_sizes), up to 64 sizes",
                                  .spellings = {{"--cuda-graph-bs", S, false}}},

    /* ---- the requests admitted (docs/admission.md) */
    [O_ISL] = {.id = O_ISL, .name = "--isl", .field = "isl", .type = KVP_OPTION_COUNT,
               .value_name = "N", .unit = "tokens", .min = 1, .max = TOKENS, .commands = REQ,
               .engines = ALL, .help = "prompt tokens of each request (admission, steady state)"},
    [O_OSL] = {.id = O_OSL, .name = "--osl", .field = "osl", .type = KVP_OPTION_COUNT,
               .value_name = "N", .unit = "tokens", .min = 1, .max = TOKENS, .commands = REQ,
               .engines = ALL,
               .help = "output tokens each request generates (default --max-new-tokens)"},
    [O_MAX_NEW_TOKENS] = {.id = O_MAX_NEW_TOKENS, .name = "--max-new-tokens",
                          .field = "max_new_tokens", .type = KVP_OPTION_COUNT, .value_name = "N",
                          .unit = "tokens", .min = 1, .max = TOKENS, .commands = REQ | SIM,
                          .engines = ALL,
                          .help = "each request's max_new_tokens (default: max_seq_len - prompt, "
                                  "the OpenAI servers' default)"},
    [O_CAPACITY_SCHEDULER_POLICY] = {.id = O_CAPACITY_SCHEDULER_POLICY,
                                     .name = "--capacity-scheduler-policy",
                                     .field = "capacity_scheduler_policy",
                                     .type = KVP_OPTION_CHOICE, .value_name = "P",
                                     .choices = "GUARANTEED_NO_EVICT|MAX_UTILIZATION",
                                     .commands = REQ | SIM, .engines = T,
                                     .help = "TRT-LLM scheduler_config.capacity_scheduler_policy "
                                             "(GUARANTEED_NO_EVICT)",
                                     .spellings = {{"--capacity_scheduler_policy", T, false}}},

    /* ---- llama.cpp context */
    [O_CTX_SIZE] = {.id = O_CTX_SIZE, .name = "--ctx-size", .field = "n_ctx",
                    .type = KVP_OPTION_COUNT, .value_name = "N", .unit = "tokens", .min = 0,
                    .max = TOKENS, .commands = DEP, .engines = L,
                    .help = "llama.cpp: context of all slots (n_ctx; 0 = the train length)",
                    .spellings = {{"-c", L, false}}},
    [O_PARALLEL] = {.id = O_PARALLEL, .name = "--parallel", .field = "sequences",
                    .type = KVP_OPTION_COUNT, .value_name = "N", .unit = "slots", .min = 1,
                    .max = 256, .commands = DEP, .engines = L,
                    .help = "llama.cpp: slots (n_seq_max, at most LLAMA_MAX_SEQ 256)",
                    .spellings = {{"-np", L, false}}},
    [O_CACHE_TYPE_K] = {.id = O_CACHE_TYPE_K, .name = "--cache-type-k", .field = "type_k",
                        .type = KVP_OPTION_TEXT, .value_name = "T", .max = 15, .commands = DEP,
                        .engines = L, .help = "llama.cpp: K cache type (f16)",
                        .spellings = {{"-ctk", L, false}}},
    [O_CACHE_TYPE_V] = {.id = O_CACHE_TYPE_V, .name = "--cache-type-v", .field = "type_v",
                        .type = KVP_OPTION_TEXT, .value_name = "T", .max = 15, .commands = DEP,
                        .engines = L, .help = "llama.cpp: V cache type (f16)",
                        .spellings = {{"-ctv", L, false}}},
    [O_UBATCH_SIZE] = {.id = O_UBATCH_SIZE, .name = "--ubatch-size", .field = "n_ubatch",
                       .type = KVP_OPTION_COUNT, .value_name = "N", .unit = "tokens", .min = 1,
                       .max = 1u << 24, .commands = DEP, .engines = L,
                       .help = "llama.cpp: physical batch (512)", .spellings = {{"-ub", L, false}}},
    [O_BATCH_SIZE] = {.id = O_BATCH_SIZE, .name = "--batch-size", .field = "n_batch",
                      .type = KVP_OPTION_COUNT, .value_name = "N", .unit = "tokens", .min = 1,
                      .max = 1u << 24, .commands = DEP, .engines = L,
                      .help = "llama.cpp: logical batch (2048)", .spellings = {{"-b", L, false}}},
    [O_KV_UNIFIED] = {.id = O_KV_UNIFIED, .name = "--kv-unified", .field = "kv_unified",
                      .type = KVP_OPTION_FLAG, .commands = DEP, .engines = L,
                      .help = "llama.cpp: one KV buffer for all slots",
                      .spellings = {{"-kvu", L, false}, {"--no-kv-unified", L, true}}},
    [O_SWA_FULL] = {.id = O_SWA_FULL, .name = "--swa-full", .field = "swa_full",
                    .type = KVP_OPTION_FLAG, .commands = DEP, .engines = L,
                    .help = "llama.cpp: full-size cache for sliding-window layers"},
    [O_FLASH_ATTN] = {.id = O_FLASH_ATTN, .name = "--flash-attn", .field = "flash_attn",
                      .type = KVP_OPTION_CHOICE, .value_name = "X", .choices = "on|off|auto",
                      .value_optional = true, .commands = DEP, .engines = L,
                      .help = "llama.cpp: flash attention (alone: on)",
                      .spellings = {{"-fa", L, false}}},

    /* ---- start-up flags (issue 21, docs/startup.md) */
    [O_DTYPE] = {.id = O_DTYPE, .name = "--dtype", .field = "dtype", .type = KVP_OPTION_CHOICE,
                 .value_name = "T", .choices = "auto|float16|bfloat16|float32", .commands = DEP,
                 .engines = T | V | S, .help = "weights and activations dtype (auto: the config's)"},
    [O_QUANTIZATION] = {.id = O_QUANTIZATION, .name = "--quantization", .field = "quantization",
                        .type = KVP_OPTION_TEXT, .value_name = "METHOD", .max = 31,
                        .commands = DEP, .engines = V | S,
                        .help = "weights quantization method (fp8, awq, gptq ...)",
                        .spellings = {{"-q", V, false}}},
    [O_TRUST_REMOTE_CODE] = {.id = O_TRUST_REMOTE_CODE, .name = "--trust-remote-code",
                             .field = "trust_remote_code", .type = KVP_OPTION_FLAG,
                             .commands = DEP, .engines = ALL,
                             .help = "the model's own code may run (configs that need it)"},
    [O_ENFORCE_EAGER] = {.id = O_ENFORCE_EAGER, .name = "--enforce-eager",
                         .field = "enforce_eager", .type = KVP_OPTION_FLAG, .commands = DEP,
                         .engines = ALL, .help = "no CUDA graphs",
                         .spellings = {{"--disable-cuda-graph", S, false}}},
    [O_ENABLE_PREFIX_CACHING] = {.id = O_ENABLE_PREFIX_CACHING, .name = "--enable-prefix-caching",
                                 .field = "enable_prefix_caching", .type = KVP_OPTION_FLAG,
                                 .commands = DEP, .engines = V | S,
                                 .help = "prefix caching (vLLM); SGLang: radix cache",
                                 .spellings = {{"--no-enable-prefix-caching", V, true},
                                               {"--disable-radix-cache", S, true}}},
    [O_ENABLE_CHUNKED_PREFILL] = {.id = O_ENABLE_CHUNKED_PREFILL,
                                  .name = "--enable-chunked-prefill",
                                  .field = "enable_chunked_prefill", .type = KVP_OPTION_FLAG,
                                  .commands = DEP | SIM, .engines = ALL,
                                  .help = "chunked prefill (--no-enable-chunked-prefill: off)",
                                  .spellings = {{"--no-enable-chunked-prefill", V, true},
                                                {"--no-chunked-prefill", 0, true}}},
    [O_ENABLE_EXPERT_PARALLEL] = {.id = O_ENABLE_EXPERT_PARALLEL,
                                  .name = "--enable-expert-parallel",
                                  .field = "enable_expert_parallel", .type = KVP_OPTION_FLAG,
                                  .commands = DEP, .engines = V | S,
                                  .help = "experts split across the ranks (vLLM TP x DP; "
                                          "SGLang ep_size = tp)",
                                  .spellings = {{"--enable-ep-moe", S, false}}},
    [O_SPECULATIVE_METHOD] = {.id = O_SPECULATIVE_METHOD, .name = "--speculative-method",
                              .field = "speculative_method", .type = KVP_OPTION_TEXT,
                              .value_name = "M", .max = 31, .commands = DEP, .engines = V | S,
                              .help = "speculative decoding method (eagle, mtp, ngram, draft)",
                              .spellings = {{"--speculative-algorithm", S, false}}},
    [O_NUM_SPECULATIVE_TOKENS] = {.id = O_NUM_SPECULATIVE_TOKENS,
                                  .name = "--num-speculative-tokens",
                                  .field = "num_speculative_tokens", .type = KVP_OPTION_COUNT,
                                  .value_name = "N", .unit = "tokens", .min = 0, .max = 1024,
                                  .commands = DEP, .engines = V | S,
                                  .help = "draft tokens per step",
                                  .spellings = {{"--speculative-num-draft-tokens", S, false}}},
    [O_SPECULATIVE_CONFIG] = {.id = O_SPECULATIVE_CONFIG, .name = "--speculative-config",
                              .field = "speculative_method", .type = KVP_OPTION_TEXT,
                              .value_name = "JSON", .max = 4096, .commands = DEP, .engines = V,
                              .help = "vLLM: speculative settings as JSON (method read as 'config')"},
    [O_GPUS] = {.id = O_GPUS, .name = "--gpus", .field = "gpu_count", .type = KVP_OPTION_COUNT,
                .value_name = "N", .unit = "GPUs", .min = 1, .max = 65536, .commands = DEP,
                .engines = ALL, .help = "GPUs visible to the engine (TP x PP x DP must fit)"},
    [O_ENV] = {.id = O_ENV, .name = "--env", .field = "env", .type = KVP_OPTION_TEXT,
               .value_name = "K=V", .max = 255, .repeats = true, .commands = DEP, .engines = ALL,
               .help = "environment the engine starts with (VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 ...)"},
    [O_DISABLE_RULE] = {.id = O_DISABLE_RULE, .name = "--disable-rule", .field = "disabled",
                        .type = KVP_OPTION_TEXT, .value_name = "ID", .max = 15, .repeats = true,
                        .commands = DEP, .engines = ALL,
                        .help = "switch a start-up rule off (V-PAR-2, or 'defaults')"},

    /* ---- the creator (TensorRT-LLM, `plan`): its settings and the rules around it
     * (tensorrt_llm/llmapi/llm_args.py names; docs/policies.md) */
    [O_PROBE] = {.id = O_PROBE, .name = "--probe", .field = "probe", .type = KVP_OPTION_FLAG,
                 .commands = CRE, .engines = T,
                 .help = "plan against the live memory of GPU --device (default 0)"},
    CRE_COUNT(O_DEVICE, "--device", "device", 0, 1023, NULL, "the GPU --probe reads (implies --probe)"),
    BYTES_CMD(O_MAX_GPU_TOTAL_BYTES, "--max-gpu-total-bytes", "max_gpu_total_bytes", 1, CRE, T,
              "kv_cache_config.max_gpu_total_bytes: cap on the KV cache bytes"),
    CRE_TEXT(O_MAX_ATTENTION_WINDOW, "--max-attention-window", "max_attention_window", "W[,W...]",
             4095, "kv_cache_config.max_attention_window: per-layer window pattern"),
    [O_CROSS_KV_CACHE_FRACTION] = {.id = O_CROSS_KV_CACHE_FRACTION,
                                   .name = "--cross-kv-cache-fraction",
                                   .field = "cross_kv_cache_fraction", .type = KVP_OPTION_FRACTION,
                                   .zero_ok = true, .value_name = "F", .commands = CRE | SIM,
                                   .engines = T,
                                   .help = "encoder-decoder models: share of the KV cache for "
                                           "cross attention (required there)"},
    CRE_TEXT(O_DRAFT, "--draft", "draft", "MODEL", 4095,
             "the draft model (EAGLE3 head or a second model)"),
    [O_SPEC_MODE] = {.id = O_SPEC_MODE, .name = "--spec-mode", .field = "spec_mode",
                     .type = KVP_OPTION_CHOICE, .value_name = "MODE",
                     .choices = "none|eagle3|mtp|two-model|draft-target|dflash|dspark",
                     .commands = CRE, .engines = T, .help = "speculative decoding mode"},
    CRE_COUNT(O_MAX_DRAFT_LEN, "--max-draft-len", "max_draft_len", 1, 1024, "tokens",
              "draft tokens per step (3)"),
    CRE_FLAG(O_SEPARATE_DRAFT_KV, "--separate-draft-kv", "separate_draft_kv_cache",
             "the draft's KV cache in its own manager"),
    CRE_COUNT(O_CP, "--cp", "cp", 1, 65536, "GPUs", "context-parallel size"),
    CRE_FLAG(O_HELIX, "--helix", "helix_cp", "cp_type HELIX (needs --cp > 1)"),
    CRE_TEXT(O_SPARSE_ATTENTION, "--sparse-attention", "sparse_algorithm", "ALGO", 63,
             "sparse attention algorithm (qsa, skip_softmax, dsa, ...)"),
    CRE_FLAG(O_DISAGGREGATED, "--disaggregated", "is_disagg", "a disaggregated (context / generation) route"),
    CRE_TEXT(O_TRANSCEIVER_BACKEND, "--transceiver-backend", "transceiver_backend", "NAME", 63,
             "cache transceiver backend (NIXL, UCX, ...)"),
    CRE_TEXT(O_TRANSCEIVER_RUNTIME, "--transceiver-runtime", "transceiver_runtime", "NAME", 63,
             "cache transceiver runtime (PYTHON, CPP, auto)"),
    CRE_TEXT(O_MAMBA_MANAGER_PREFERENCE, "--mamba-manager-preference", "mamba_preference", "P", 63,
             "TLLM_MAMBA_MANAGER_PREFERENCE: CPP or MIXED (others warn, default kept)"),
    CRE_FLAG(O_USE_PY_MAMBA, "--use-py-mamba", "force_mixed_hybrid",
             "force the mixed hybrid manager (TRTLLM_USE_PY_MAMBA=1)"),
    CRE_TEXT(O_ATTN_BACKEND, "--attn-backend", "attn_backend", "NAME", 63,
             "attention backend: TRTLLM (default), FLASHINFER, VANILLA, ..."),
    BYTES_CMD(O_MLA_WORKSPACE_RATE, "--mla-workspace-rate", "attention_workspace_bytes_per_token", 0,
              CRE, T, "attention workspace bytes per token (fp8 context MLA)"),
    CRE_FLAG(O_WORKSPACE_NOT_CHUNK_BOUNDED, "--workspace-not-chunk-bounded",
             "workspace_not_chunked_prefill_bounded", "the workspace is not bounded by the chunk"),
    CRE_COUNT(O_FP8_CONTEXT_MLA_KV_LEN_CAP, "--fp8-context-mla-kv-len-cap",
              "fp8_context_mla_kv_len_cap", 0, UINT64_MAX, "tokens", "fp8 context MLA KV length cap"),
    CRE_COUNT(O_SM_VERSION, "--sm-version", "sm_version", 70, 200, NULL, "the GPU's SM version (default: the GPU's, else 90)"),
    CRE_COUNT(O_CHUNK_SIZE, "--chunk-size", "chunk_size", 0, UINT64_MAX, "tokens", "chunked prefill chunk"),
    CRE_COUNT(O_CHUNKED_PREFILL_BUFFER_BATCH_SIZE, "--chunked-prefill-buffer-batch-size",
              "chunked_prefill_buffer_batch_size", 0, UINT64_MAX, "sequences",
              "chunked prefill buffer batch"),
    CRE_FLAG(O_DISABLE_OVERLAP_SCHEDULER, "--disable-overlap-scheduler", "disable_overlap_scheduler",
             "no overlap scheduler (no extra sequence slots)"),
    CRE_FLAG(O_KV_CONNECTOR, "--kv-connector", "has_kv_connector", "a KV connector is configured"),
    CRE_COUNT(O_MAX_INPUT_LEN, "--max-input-len", "max_input_len", 0, UINT64_MAX, "tokens",
              "longest prompt"),
    CRE_FLAG(O_SKIP_ESTIMATION, "--skip-estimation", "skip_estimation", "no profiling pass"),
    CRE_COUNT(O_AVG_SEQ_LEN, "--avg-seq-len", "avg_seq_len", 0, UINT64_MAX, "tokens",
              "average sequence length (host cache sizing)"),
    [O_MAX_UTIL_FOR_RESUME] = {.id = O_MAX_UTIL_FOR_RESUME, .name = "--max-util-for-resume",
                               .field = "max_util_for_resume", .type = KVP_OPTION_FRACTION,
                               .value_name = "F", .commands = CRE, .engines = T,
                               .help = "V2 resume threshold (1.0)"},
    [O_KV_CACHE_COMPRESSION] = {.id = O_KV_CACHE_COMPRESSION, .name = "--kv-cache-compression",
                                .field = "kv_cache_compression", .type = KVP_OPTION_CHOICE,
                                .value_name = "ALGO",
                                .choices = "quantization_for_cold_page|triattention",
                                .commands = CRE, .engines = T,
                                .help = "KV-cache compression algorithm"},
    CRE_TEXT(O_COMPRESSION_QUANT, "--compression-quant", "compression_quant", "FORMAT", 31,
             "cold-page format (nvfp4)"),
    CRE_FLAG(O_TRIATTENTION_UNION_EVICTION, "--triattention-union-eviction",
             "triattention_union_eviction", "TriAttention eviction_mode union"),
    CRE_COUNT(O_LORA_RANK, "--lora-rank", "max_lora_rank", 0, 1u << 16, NULL, "LoRA max rank"),
    CRE_COUNT(O_MAX_LORAS, "--max-loras", "max_loras", 1, 1u << 16, "adapters",
              "LoRA adapters on the device"),
    CRE_COUNT(O_MAX_CPU_LORAS, "--max-cpu-loras", "max_cpu_loras", 1, 1u << 16, "adapters",
              "LoRA adapters on the host"),
    CRE_TEXT(O_LORA_TARGET_MODULES, "--lora-target-modules", "lora_target_modules", "M[,M...]", 511,
             "LoRA target modules (TensorRT-LLM names)"),
    CRE_COUNT(O_LORA_SHARED_EXPERT_SIZE, "--lora-shared-expert-size", "shared_expert_global_size", 0,
              UINT64_MAX, NULL, "shared-expert size the adapter states (global)"),
    CRE_COUNT(O_MM_ENCODER_MAX_TOKENS, "--mm-encoder-max-tokens", "encoder_max_num_tokens", 0,
              UINT64_MAX, "tokens", "multimodal encoder token budget"),
    CRE_COUNT(O_MM_ENCODER_BATCH_SIZE, "--mm-encoder-batch-size", "encoder_batch_size", 0,
              UINT64_MAX, "items", "multimodal encoder batch"),
    CRE_TEXT(O_MM_TOKENS_PER_ITEM, "--mm-tokens-per-item", "mm_tokens_per_item", "MOD=N[,MOD=N...]",
             511, "tokens per item of each modality"),
    CRE_COUNT(O_MM_EMBEDDING_DIM, "--mm-embedding-dim", "mm_embedding_dim", 0, UINT64_MAX, NULL,
              "encoder output width (hidden_size)"),
    BYTES_CMD(O_MM_OUTPUT_BUDGET, "--mm-output-budget", "mm_output_budget_bytes", 0, CRE, T,
              "multimodal output budget"),
    BYTES_CMD(O_MM_ENCODER_CACHE, "--mm-encoder-cache", "mm_encoder_cache_max_bytes", 0, CRE, T,
              "multimodal encoder cache"),

    /* ---- sim's pool (instead of a planned one) */
    [O_BLOCKS] = {.id = O_BLOCKS, .name = "--blocks", .field = "blocks", .type = KVP_OPTION_COUNT,
                  .value_name = "N", .unit = "blocks", .min = 1, .max = U32 - 1,
                  .commands = SIM, .engines = ALL,
                  .help = "the same block count in every block pool (instead of a plan)"},
    [O_RECURRENT_SLOTS] = {.id = O_RECURRENT_SLOTS, .name = "--recurrent-slots",
                           .field = "recurrent_slots", .type = KVP_OPTION_COUNT,
                           .value_name = "N", .unit = "slots", .min = 1, .max = U32 - 1,
                           .commands = SIM, .engines = ALL,
                           .help = "state slots in every recurrent pool (with --blocks)"},

    /* ---- the engines' flags that change memory, admission or the cache (issue 29),
     * each read as its engine reads it */
    /* SGLang server_args.py: the request pool's size and the running-batch cap
     * (tp_worker.py max_running_requests); decides admission. */
    [O_MAX_RUNNING_REQUESTS] = {.id = O_MAX_RUNNING_REQUESTS, .name = "--max-running-requests",
                                .field = "max_running_requests", .type = KVP_OPTION_COUNT,
                                .value_name = "N", .unit = "requests", .min = 1,
                                .max = 1u << 24, .commands = DEP, .engines = S,
                                .help = "SGLang: most requests running at once (the request pool "
                                        "and the batch cap; default from the token pool)"},
    /* SGLang: tokens of one prefill chunk (-1: no chunking); the reserve of the default
     * mem_fraction_static and the profiled forward pass. */
    [O_CHUNKED_PREFILL_SIZE] = {.id = O_CHUNKED_PREFILL_SIZE, .name = "--chunked-prefill-size",
                                .field = "chunked_prefill_size", .type = KVP_OPTION_TEXT,
                                .value_name = "N|-1", .max = 31, .commands = DEP, .engines = S,
                                .help = "SGLang: tokens per prefill chunk, -1 = no chunking "
                                        "(default by GPU size)"},
    /* SGLang moe_tp_size = tp / ep_size; trtllm-serve --ep_size (moe_expert_parallel_size). */
    [O_EP_SIZE] = {.id = O_EP_SIZE, .name = "--ep-size", .field = "ep_size",
                   .type = KVP_OPTION_COUNT, .value_name = "N", .min = 1, .max = 1024,
                   .commands = DEP, .engines = S | T,
                   .help = "expert-parallel size: the routed experts split over ep ranks, each "
                           "expert over tp / ep (SGLang; TensorRT-LLM --ep_size)",
                   .spellings = {{"--ep_size", T, false}, {"--expert-parallel-size", S, false},
                                 {"--ep", S, false}}},
    /* SGLang: the MLA kernels with fixed pages set page_size (sglang.c). */
    [O_ATTENTION_BACKEND] = {.id = O_ATTENTION_BACKEND, .name = "--attention-backend",
                             .field = "attention_backend", .type = KVP_OPTION_TEXT,
                             .value_name = "NAME", .max = 31, .commands = DEP, .engines = S,
                             .help = "SGLang: attention kernels (flashmla, cutlass_mla, trtllm_mla "
                                     "and trtllm_mha set the page size)"},
    /* vLLM 0.10.2+ --runner (vllm/config/model.py RunnerOption). */
    [O_RUNNER] = {.id = O_RUNNER, .name = "--runner", .field = "runner",
                  .type = KVP_OPTION_CHOICE, .value_name = "R",
                  .choices = "auto|generate|pooling|draft", .commands = DEP, .engines = V,
                  .help = "vLLM: the model runner (kvplan plans generate; pooling and draft "
                          "are warned)"},
    /* vLLM --language-model-only: the multimodal encoder is not built. */
    [O_LANGUAGE_MODEL_ONLY] = {.id = O_LANGUAGE_MODEL_ONLY, .name = "--language-model-only",
                               .field = "language_model_only", .type = KVP_OPTION_FLAG,
                               .commands = DEP, .engines = V,
                               .help = "vLLM: load the language model alone (no vision / audio "
                                       "tower weights)"},
    /* vLLM 0.10.2+ --skip-mm-profiling (MultiModalConfig.skip_mm_profiling): the
     * profile does not run the encoder (MEMORY.md 7.4). */
    [O_SKIP_MM_PROFILING] = {.id = O_SKIP_MM_PROFILING, .name = "--skip-mm-profiling",
                             .field = "skip_mm_profiling", .type = KVP_OPTION_FLAG,
                             .commands = DEP, .engines = V,
                             .help = "vLLM: the start-up profile does not run the multimodal "
                                     "encoder"},
};
