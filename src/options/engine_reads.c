/* engine_reads.c — what every option of the table (options_table.c) means under
 * every engine: one table per engine, one row per option, either what the
 * engine reads it as or why it has no meaning there (kvp_option_meaning_for,
 * kvplan/options.h; docs/options.md "Per engine"). Given directly, an option
 * with no meaning under the chosen engine is refused naming both
 * (kvp_options_finish); inside a pasted engine command (--from) the flags are
 * that engine's own. Each table can move into its engine's folder as it is.
 * tests/unit/test_option_meanings.c walks every option under every engine: a
 * read option changes a figure of the plan, one with no meaning is exit 2.
 * The engine names come from the option table's spellings (ENGINES.md). */
#include <string.h>

#include "options_internal.h"

/* The settings of TensorRT-LLM's KV cache creator and the rules around it
 * (llm_args names in options_table.c, `plan` only): TensorRT-LLM's alone. */
#define CREATOR_ROWS(X) \
    X("--probe") \
    X("--device") \
    X("--max-gpu-total-bytes") \
    X("--max-attention-window") \
    X("--cross-kv-cache-fraction") \
    X("--draft") \
    X("--spec-mode") \
    X("--max-draft-len") \
    X("--separate-draft-kv") \
    X("--cp") \
    X("--helix") \
    X("--sparse-attention") \
    X("--disaggregated") \
    X("--transceiver-backend") \
    X("--transceiver-runtime") \
    X("--mamba-manager-preference") \
    X("--use-py-mamba") \
    X("--attn-backend") \
    X("--mla-workspace-rate") \
    X("--workspace-not-chunk-bounded") \
    X("--fp8-context-mla-kv-len-cap") \
    X("--sm-version") \
    X("--chunk-size") \
    X("--chunked-prefill-buffer-batch-size") \
    X("--disable-overlap-scheduler") \
    X("--kv-connector") \
    X("--max-input-len") \
    X("--skip-estimation") \
    X("--avg-seq-len") \
    X("--max-util-for-resume") \
    X("--kv-cache-compression") \
    X("--compression-quant") \
    X("--triattention-union-eviction") \
    X("--lora-rank") \
    X("--max-loras") \
    X("--max-cpu-loras") \
    X("--lora-target-modules") \
    X("--lora-shared-expert-size") \
    X("--mm-encoder-max-tokens") \
    X("--mm-encoder-batch-size") \
    X("--mm-tokens-per-item") \
    X("--mm-embedding-dim") \
    X("--mm-output-budget") \
    X("--mm-encoder-cache")
#define CREATOR_READS(name) {name, true, "the creator's setting of the same name (llm_args)"},
#define CREATOR_NONE(name, engine) \
    {name, false, "a setting of TensorRT-LLM's KV cache creator (llm_args); " engine " has none"},
#define CREATOR_NONE_VLLM(name) CREATOR_NONE(name, "vLLM")
#define CREATOR_NONE_SGLANG(name) CREATOR_NONE(name, "SGLang")
#define CREATOR_NONE_LLAMACPP(name) CREATOR_NONE(name, "llama.cpp")

/* ---- TensorRT-LLM */
static const kvp_option_meaning k_trtllm[] = {
    {"--gpu", true, "the device: its memory and compute capability (kvplan gpus)"},
    {"--gpu-mem", true, "the device memory the budget is taken from"},
    {"--free-mem", true, "free memory at start-up: free_gpu_memory_fraction is of it"},
    {"--kv-budget", true, "the KV cache size the creator found"},
    {"--weights", true, "measured weights on this rank"},
    {"--peak", true, "measured allocator peak, weights included"},
    {"--activation-peak", true, "measured activation peak"},
    {"--non-torch", true, "measured memory outside the allocator"},
    {"--cuda-graph", true, "measured CUDA-graph memory"},
    {"--estimation-kv", true, "the KV cache of the profiling pass (added back)"},
    {"--policy", true, "the engine planned"},
    {"--engine-version", true, "the release line whose rules apply (engines/versions.c)"},
    {"--tp", true, "tensor_parallel_size"},
    {"--pp", true, "pipeline_parallel_size"},
    {"--dp", false, "TensorRT-LLM has no data-parallel size here: its attention DP is --attention-dp"},
    {"--attention-dp", true, "enable_attention_dp"},
    {"--max-seq-len", true, "max_seq_len (the per-request context)"},
    {"--seq-len", true, "the length concurrency is counted at (kvplan's, default --max-seq-len)"},
    {"--kv-dtype", true, "kv_cache_config.dtype"},
    {"--block-size", true, "tokens_per_block"},
    {"--gpu-memory-utilization", false, "TensorRT-LLM's fraction is --free-gpu-memory-fraction, of free memory"},
    {"--mem-fraction-static", false, "TensorRT-LLM's fraction is --free-gpu-memory-fraction, of free memory"},
    {"--free-gpu-memory-fraction", true, "kv_cache_config.free_gpu_memory_fraction"},
    {"--max-num-seqs", false, "TensorRT-LLM's batch cap is --max-batch-size"},
    {"--max-num-batched-tokens", false, "TensorRT-LLM's token budget is --max-num-tokens"},
    {"--mamba-cache-mode", false, "TensorRT-LLM has no Mamba prefix-caching mode"},
    {"--mamba-cache-dtype", false, "TensorRT-LLM takes the state dtype from the config (--mamba-ssm-cache-dtype only)"},
    {"--mamba-ssm-cache-dtype", true, "kv_cache_config.mamba_ssm_cache_dtype"},
    {"--num-draft-layers", true, "the draft layers in the KV cache (num_extra_kv_tokens / EAGLE layers)"},
    {"--max-batch-size", true, "max_batch_size"},
    {"--max-num-tokens", true, "max_num_tokens"},
    {"--max-beam-width", true, "max_beam_width"},
    {"--max-tokens", true, "kv_cache_config.max_tokens"},
    {"--host-cache-size", true, "kv_cache_config.host_cache_size"},
    {"--enable-block-reuse", true, "kv_cache_config.enable_block_reuse"},
    {"--kv-manager", true, "use_kv_cache_manager_v2"},
    {"--cuda-graph-batch-size", true, "cuda_graph_config.max_batch_size"},
    {"--cuda-graph-max-bs", false, "TensorRT-LLM's is --cuda-graph-batch-size"},
    {"--cuda-graph-batch-sizes", true, "cuda_graph_config.batch_sizes"},
    {"--isl", true, "the prompt tokens of each request (admission)"},
    {"--osl", true, "the output tokens of each request (admission)"},
    {"--max-new-tokens", true, "each request's max_new_tokens (admission)"},
    {"--capacity-scheduler-policy", true, "scheduler_config.capacity_scheduler_policy"},
    {"--ctx-size", false, "llama.cpp's context of all slots; the per-request context under TensorRT-LLM is --max-seq-len"},
    {"--parallel", false, "llama.cpp's slots; TensorRT-LLM's batch cap has its own option"},
    {"--cache-type-k", false, "llama.cpp's K cache type; TensorRT-LLM's KV dtype is --kv-dtype"},
    {"--cache-type-v", false, "llama.cpp's V cache type; TensorRT-LLM's KV dtype is --kv-dtype"},
    {"--ubatch-size", false, "TensorRT-LLM has no llama.cpp micro-batch"},
    {"--batch-size", false, "TensorRT-LLM has no llama.cpp logical batch"},
    {"--kv-unified", false, "TensorRT-LLM has one KV pool for all sequences"},
    {"--swa-full", false, "TensorRT-LLM has no llama.cpp SWA cache switch"},
    {"--flash-attn", false, "TensorRT-LLM's attention backend is not this switch"},
    {"--dtype", false, "kvplan's TensorRT-LLM plan takes the weights and KV dtype from the checkpoint (llm_args dtype auto); another dtype is not planned"},
    {"--quantization", true, "the checkpoint's quant_config.quant_algo (weights bytes)"},
    {"--trust-remote-code", false, "kvplan's TensorRT-LLM rules check no custom code (T-MOD-1 needs the per-version registry)"},
    {"--enforce-eager", true, "no CUDA graphs (cuda_graph_config null)"},
    {"--enable-prefix-caching", false, "TensorRT-LLM's prefix reuse is --enable-block-reuse"},
    {"--enable-chunked-prefill", true, "enable_chunked_prefill"},
    {"--enable-expert-parallel", false, "TensorRT-LLM's expert parallelism (moe_expert_parallel_size) is not planned"},
    {"--max-running-requests", false, "TensorRT-LLM's batch cap is --max-batch-size"},
    {"--chunked-prefill-size", false, "TensorRT-LLM's chunk is --max-num-tokens (with --enable-chunked-prefill)"},
    {"--ep-size", true, "--ep_size (moe_expert_parallel_size): experts kept whole in the width rules"},
    {"--attention-backend", false, "TensorRT-LLM's backend is --attn-backend (the creator's setting)"},
    {"--runner", false, "a vLLM setting: TensorRT-LLM serves one generate model"},
    {"--language-model-only", false, "a vLLM setting: TensorRT-LLM loads the checkpoint it is given"},
    {"--skip-mm-profiling", false, "a vLLM setting: TensorRT-LLM's encoder budget is --mm-encoder-max-tokens"},
    {"--speculative-method", false, "TensorRT-LLM's speculative mode is --spec-mode"},
    {"--num-speculative-tokens", false, "TensorRT-LLM's draft length is --max-draft-len"},
    {"--speculative-config", false, "TensorRT-LLM takes no speculative JSON; give its own speculative options"},
    {"--gpus", true, "the GPUs visible to the engine (start-up rules)"},
    {"--env", false, "kvplan reads no TensorRT-LLM environment variable (its variables are options: --use-py-mamba, --mamba-manager-preference)"},
    {"--disable-rule", true, "a start-up rule switched off"},
    {"--blocks", true, "the blocks of every pool in the replay (sim)"},
    {"--recurrent-slots", true, "the state slots of every recurrent pool in the replay (sim)"},
    CREATOR_ROWS(CREATOR_READS)
};

/* ---- vLLM */
static const kvp_option_meaning k_vllm[] = {
    {"--gpu", true, "the device: its memory and compute capability (kvplan gpus)"},
    {"--gpu-mem", true, "the device memory the budget is taken from"},
    {"--free-mem", true, "free memory at start-up: V-MEM-1 needs the requested fraction free"},
    {"--kv-budget", true, "available KV cache memory"},
    {"--weights", true, "measured weights on this rank"},
    {"--peak", true, "measured allocator peak, weights included"},
    {"--activation-peak", true, "measured activation peak"},
    {"--non-torch", true, "measured memory outside the allocator"},
    {"--cuda-graph", true, "measured CUDA-graph memory"},
    {"--estimation-kv", false, "vLLM has no estimation pass that holds a KV cache"},
    {"--policy", true, "the engine planned"},
    {"--engine-version", true, "the release line whose rules apply (engines/versions.c)"},
    {"--tp", true, "--tensor-parallel-size"},
    {"--pp", true, "--pipeline-parallel-size"},
    {"--dp", true, "--data-parallel-size"},
    {"--attention-dp", false, "vLLM has no attention DP switch: its data parallelism is --dp"},
    {"--max-seq-len", true, "max_model_len (the per-request context)"},
    {"--seq-len", false, "vLLM counts concurrency at max_model_len itself (its log); --isl counts a workload"},
    {"--kv-dtype", true, "--kv-cache-dtype"},
    {"--block-size", true, "--block-size"},
    {"--gpu-memory-utilization", true, "--gpu-memory-utilization"},
    {"--mem-fraction-static", false, "vLLM's fraction is --gpu-memory-utilization"},
    {"--free-gpu-memory-fraction", false, "vLLM's fraction is --gpu-memory-utilization, of total memory"},
    {"--max-num-seqs", true, "--max-num-seqs"},
    {"--max-num-batched-tokens", true, "--max-num-batched-tokens"},
    {"--mamba-cache-mode", true, "--mamba-cache-mode"},
    {"--mamba-cache-dtype", true, "--mamba-cache-dtype"},
    {"--mamba-ssm-cache-dtype", true, "--mamba-ssm-cache-dtype"},
    {"--num-draft-layers", true, "the drafter's attention layers in the KV cache groups"},
    {"--max-batch-size", false, "vLLM's batch cap is --max-num-seqs"},
    {"--max-num-tokens", false, "vLLM's token budget is --max-num-batched-tokens"},
    {"--max-beam-width", false, "vLLM sizes its KV cache for no beam width"},
    {"--max-tokens", false, "vLLM has no cap on KV tokens besides its memory settings"},
    {"--host-cache-size", false, "vLLM's host offload is not planned by kvplan"},
    {"--enable-block-reuse", false, "vLLM's prefix reuse is --enable-prefix-caching (llama.cpp: none planned)"},
    {"--kv-manager", false, "vLLM has one KV cache manager"},
    {"--cuda-graph-batch-size", false, "vLLM's is --cuda-graph-max-bs (--cuda-graph-sizes)"},
    {"--cuda-graph-max-bs", true, "--cuda-graph-sizes N (up to N)"},
    {"--cuda-graph-batch-sizes", true, "--cuda-graph-sizes (the list)"},
    {"--isl", true, "the prompt tokens of each request (admission)"},
    {"--osl", true, "the output tokens of each request (admission)"},
    {"--max-new-tokens", true, "each request's max_new_tokens (admission)"},
    {"--capacity-scheduler-policy", false, "vLLM has no capacity scheduler policy"},
    {"--ctx-size", false, "llama.cpp's context of all slots; the per-request context under vLLM is --max-seq-len"},
    {"--parallel", false, "llama.cpp's slots; vLLM's batch cap has its own option"},
    {"--cache-type-k", false, "llama.cpp's K cache type; vLLM's KV dtype is --kv-dtype"},
    {"--cache-type-v", false, "llama.cpp's V cache type; vLLM's KV dtype is --kv-dtype"},
    {"--ubatch-size", false, "vLLM has no llama.cpp micro-batch"},
    {"--batch-size", false, "vLLM has no llama.cpp logical batch"},
    {"--kv-unified", false, "vLLM has one KV pool for all sequences"},
    {"--swa-full", false, "vLLM has no llama.cpp SWA cache switch"},
    {"--flash-attn", false, "vLLM's attention backend is not this switch"},
    {"--dtype", true, "--dtype"},
    {"--quantization", true, "--quantization"},
    {"--trust-remote-code", true, "--trust-remote-code"},
    {"--enforce-eager", true, "--enforce-eager"},
    {"--enable-prefix-caching", true, "--enable-prefix-caching"},
    {"--enable-chunked-prefill", true, "--enable-chunked-prefill"},
    {"--enable-expert-parallel", true, "--enable-expert-parallel"},
    {"--max-running-requests", false, "vLLM's batch cap is --max-num-seqs"},
    {"--chunked-prefill-size", false, "vLLM's chunk is --max-num-batched-tokens"},
    {"--ep-size", false, "vLLM's expert parallelism is --enable-expert-parallel (EP = TP x DP)"},
    {"--attention-backend", false, "vLLM picks its backend itself (V-DT-5); kvplan plans the same pages for each"},
    {"--runner", true, "--runner: generate is planned; pooling's profile runs the pooler, not the sampler; draft is warned"},
    {"--language-model-only", true, "--language-model-only: the vision tower is not loaded"},
    {"--skip-mm-profiling", true, "--skip-mm-profiling: the encoder's dummy items and their outputs leave the profile peak"},
    {"--speculative-method", true, "speculative_config.method"},
    {"--num-speculative-tokens", true, "speculative_config.num_speculative_tokens"},
    {"--speculative-config", true, "--speculative-config (its method)"},
    {"--gpus", true, "the visible devices TP x PP x DP must fit (V-PAR-8)"},
    {"--env", true, "the environment vLLM starts with (VLLM_ALLOW_LONG_MAX_MODEL_LEN, VLLM_USE_V1 ...)"},
    {"--disable-rule", true, "a start-up rule switched off"},
    {"--blocks", true, "the blocks of every pool in the replay (sim)"},
    {"--recurrent-slots", true, "the state slots of every recurrent pool in the replay (sim)"},
    CREATOR_ROWS(CREATOR_NONE_VLLM)
};

/* ---- SGLang */
static const kvp_option_meaning k_sglang[] = {
    {"--gpu", true, "the device: its memory and compute capability (kvplan gpus)"},
    {"--gpu-mem", true, "the device memory the budget is taken from"},
    {"--free-mem", false, "kvplan's SGLang plan takes its fraction of the total (--gpu, --gpu-mem); it reads no free-memory figure"},
    {"--kv-budget", true, "rest memory for the pools"},
    {"--weights", true, "measured weights on this rank"},
    {"--peak", true, "measured allocator peak, weights included"},
    {"--activation-peak", true, "measured activation peak"},
    {"--non-torch", true, "measured memory outside the allocator"},
    {"--cuda-graph", true, "measured CUDA-graph memory"},
    {"--estimation-kv", false, "SGLang has no estimation pass that holds a KV cache"},
    {"--policy", true, "the engine planned"},
    {"--engine-version", true, "the release line whose rules apply (engines/versions.c)"},
    {"--tp", true, "--tp-size"},
    {"--pp", true, "--pp-size"},
    {"--dp", true, "--dp-size (with --enable-dp-attention)"},
    {"--attention-dp", true, "--enable-dp-attention"},
    {"--max-seq-len", true, "context_length (the per-request context)"},
    {"--seq-len", false, "SGLang counts requests at the context length; --isl counts a workload"},
    {"--kv-dtype", true, "--kv-cache-dtype"},
    {"--block-size", true, "--page-size"},
    {"--gpu-memory-utilization", false, "SGLang's fraction is --mem-fraction-static"},
    {"--mem-fraction-static", true, "--mem-fraction-static"},
    {"--free-gpu-memory-fraction", false, "SGLang's fraction is --mem-fraction-static, of total memory"},
    {"--max-num-seqs", false, "SGLang's batch cap is --max-running-requests"},
    {"--max-num-batched-tokens", true, "--chunked-prefill-size: the tokens of the profiling forward"},
    {"--mamba-cache-mode", false, "SGLang has no Mamba prefix-caching mode"},
    {"--mamba-cache-dtype", false, "SGLang sets only the SSM state dtype (--mamba-ssm-cache-dtype)"},
    {"--mamba-ssm-cache-dtype", true, "--mamba-ssm-dtype"},
    {"--num-draft-layers", true, "the draft layers folded into cell_size (1 + draft / target layers)"},
    {"--max-batch-size", false, "SGLang's cap (--max-running-requests) is not planned; kvplan derives it from the pool"},
    {"--max-num-tokens", false, "SGLang's is --max-num-batched-tokens (chunked_prefill_size)"},
    {"--max-beam-width", false, "SGLang sizes its KV cache for no beam width"},
    {"--max-tokens", false, "SGLang has no cap on KV tokens besides its memory settings"},
    {"--host-cache-size", false, "SGLang's host offload is not planned by kvplan"},
    {"--enable-block-reuse", false, "SGLang's prefix reuse is --enable-prefix-caching (llama.cpp: none planned)"},
    {"--kv-manager", false, "SGLang has one KV cache manager"},
    {"--cuda-graph-batch-size", false, "SGLang's is --cuda-graph-max-bs"},
    {"--cuda-graph-max-bs", true, "--cuda-graph-max-bs"},
    {"--cuda-graph-batch-sizes", true, "--cuda-graph-bs"},
    {"--isl", true, "the prompt tokens of each request (admission)"},
    {"--osl", true, "the output tokens of each request (admission)"},
    {"--max-new-tokens", true, "each request's max_new_tokens (admission)"},
    {"--capacity-scheduler-policy", false, "SGLang has no capacity scheduler policy"},
    {"--ctx-size", false, "llama.cpp's context of all slots; the per-request context under SGLang is --max-seq-len"},
    {"--parallel", false, "llama.cpp's slots; SGLang's batch cap has its own option"},
    {"--cache-type-k", false, "llama.cpp's K cache type; SGLang's KV dtype is --kv-dtype"},
    {"--cache-type-v", false, "llama.cpp's V cache type; SGLang's KV dtype is --kv-dtype"},
    {"--ubatch-size", false, "SGLang has no llama.cpp micro-batch"},
    {"--batch-size", false, "SGLang has no llama.cpp logical batch"},
    {"--kv-unified", false, "SGLang has one KV pool for all sequences"},
    {"--swa-full", false, "SGLang has no llama.cpp SWA cache switch"},
    {"--flash-attn", false, "SGLang's attention backend is not this switch"},
    {"--dtype", true, "--dtype"},
    {"--quantization", true, "--quantization"},
    {"--trust-remote-code", true, "--trust-remote-code"},
    {"--enforce-eager", true, "--disable-cuda-graph"},
    {"--enable-prefix-caching", true, "the radix cache (--disable-radix-cache off)"},
    {"--enable-chunked-prefill", false, "kvplan's SGLang plan does not model prefill without chunking (--chunked-prefill-size -1); give --max-num-batched-tokens for the chunk"},
    {"--enable-expert-parallel", true, "--enable-ep-moe (ep_size = tp)"},
    {"--max-running-requests", true, "--max-running-requests: the request pool and the batch cap"},
    {"--chunked-prefill-size", true, "--chunked-prefill-size: the reserve of the default mem_fraction_static"},
    {"--ep-size", true, "--ep-size: moe_tp = tp / ep_size in the width rules"},
    {"--attention-backend", true, "--attention-backend: the MLA kernels with fixed pages set page_size"},
    {"--runner", false, "a vLLM setting"},
    {"--language-model-only", false, "a vLLM setting"},
    {"--skip-mm-profiling", false, "a vLLM setting"},
    {"--speculative-method", true, "--speculative-algorithm: the draft reserve of the automatic mem_fraction_static"},
    {"--num-speculative-tokens", true, "--speculative-num-draft-tokens"},
    {"--speculative-config", false, "SGLang takes no speculative JSON; give its own speculative options"},
    {"--gpus", false, "kvplan's SGLang rules read no visible-device count (SGLang checks balanced free memory, S-MEM-2)"},
    {"--env", true, "the environment SGLang starts with (SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN)"},
    {"--disable-rule", true, "a start-up rule switched off"},
    {"--blocks", true, "the tokens of every pool in the replay (sim)"},
    {"--recurrent-slots", true, "the state slots of every recurrent pool in the replay (sim)"},
    CREATOR_ROWS(CREATOR_NONE_SGLANG)
};

/* ---- llama.cpp */
static const kvp_option_meaning k_llamacpp[] = {
    {"--gpu", true, "the device: its memory and compute capability (kvplan gpus)"},
    {"--gpu-mem", true, "the device memory the budget is taken from"},
    {"--free-mem", false, "llama.cpp checks nothing against free memory at start-up: it allocates what it is asked (-fit is not planned)"},
    {"--kv-budget", true, "the memory the KV cache must fit (L-MEM-1)"},
    {"--weights", true, "measured weights on this rank"},
    {"--peak", true, "measured allocator peak, weights included"},
    {"--activation-peak", true, "measured activation peak"},
    {"--non-torch", true, "measured memory outside the allocator"},
    {"--cuda-graph", true, "measured CUDA-graph memory"},
    {"--estimation-kv", false, "llama.cpp has no estimation pass that holds a KV cache"},
    {"--policy", true, "the engine planned"},
    {"--engine-version", true, "the release line whose rules apply (engines/versions.c)"},
    {"--tp", false, "llama.cpp has no tensor parallelism: its split modes place whole layers and the cache size does not change"},
    {"--pp", false, "llama.cpp has no pipeline parallelism: its split modes place whole layers and the cache size does not change"},
    {"--dp", false, "llama.cpp has no data parallelism (kvplan plans one device)"},
    {"--attention-dp", false, "llama.cpp has no attention data parallelism"},
    {"--max-seq-len", true, "the slot context n_ctx_seq: n_ctx = length x --parallel (a unified cache: the length)"},
    {"--seq-len", false, "llama.cpp's slots are n_ctx / --parallel cells each; --isl counts a workload"},
    {"--kv-dtype", true, "both cache types, -ctk and -ctv"},
    {"--block-size", false, "llama.cpp caches cells of one token, not blocks"},
    {"--gpu-memory-utilization", false, "llama.cpp takes no memory fraction"},
    {"--mem-fraction-static", false, "llama.cpp takes no memory fraction"},
    {"--free-gpu-memory-fraction", false, "llama.cpp takes no memory fraction"},
    {"--max-num-seqs", false, "llama.cpp's batch cap is --parallel (its slots)"},
    {"--max-num-batched-tokens", false, "llama.cpp's batches are --batch-size and --ubatch-size"},
    {"--mamba-cache-mode", false, "llama.cpp has no Mamba prefix-caching mode"},
    {"--mamba-cache-dtype", false, "llama.cpp keeps recurrent states in f32 (no option)"},
    {"--mamba-ssm-cache-dtype", false, "llama.cpp keeps recurrent states in f32 (no option)"},
    {"--num-draft-layers", false, "llama.cpp's draft model (-md) has a context of its own, not layers in this cache"},
    {"--max-batch-size", false, "llama.cpp's batch cap is --parallel (its slots)"},
    {"--max-num-tokens", false, "llama.cpp's batches are --batch-size and --ubatch-size"},
    {"--max-beam-width", false, "llama.cpp sizes its KV cache for no beam width"},
    {"--max-tokens", false, "llama.cpp has no cap on KV tokens besides its memory settings"},
    {"--host-cache-size", false, "llama.cpp's host offload is not planned by kvplan"},
    {"--enable-block-reuse", false, "llama.cpp's prefix reuse is --enable-prefix-caching (llama.cpp: none planned)"},
    {"--kv-manager", false, "llama.cpp has one KV cache manager"},
    {"--cuda-graph-batch-size", false, "llama.cpp captures no CUDA graphs per batch size"},
    {"--cuda-graph-max-bs", false, "llama.cpp captures no CUDA graphs per batch size"},
    {"--cuda-graph-batch-sizes", false, "llama.cpp captures no CUDA graphs per batch size"},
    {"--isl", true, "the prompt tokens of each request (admission)"},
    {"--osl", true, "the output tokens of each request (admission)"},
    {"--max-new-tokens", true, "each request's max_new_tokens (admission)"},
    {"--capacity-scheduler-policy", false, "llama.cpp has no capacity scheduler policy"},
    {"--ctx-size", true, "-c: n_ctx, the context of all slots"},
    {"--parallel", true, "-np: the slots (n_seq_max)"},
    {"--cache-type-k", true, "-ctk"},
    {"--cache-type-v", true, "-ctv"},
    {"--ubatch-size", true, "-ub: the physical batch (compute buffers)"},
    {"--batch-size", true, "-b: the logical batch"},
    {"--kv-unified", true, "-kvu: one KV buffer for all slots"},
    {"--swa-full", true, "--swa-full: full-size sliding-window caches"},
    {"--flash-attn", true, "-fa: flash attention (cache padding, V cache types)"},
    {"--dtype", false, "a GGUF's tensors keep the file's types; --quantization names the file type"},
    {"--quantization", true, "the GGUF file type (llama-quantize Q4_K_M, Q8_0 ...)"},
    {"--trust-remote-code", false, "a GGUF carries no model code"},
    {"--enforce-eager", false, "llama.cpp has no eager switch (GGML_CUDA_DISABLE_GRAPHS), and its graphs are not planned"},
    {"--enable-prefix-caching", false, "llama.cpp's prompt cache is not planned"},
    {"--enable-chunked-prefill", false, "llama.cpp always splits a prompt into --batch-size chunks"},
    {"--enable-expert-parallel", false, "llama.cpp has no expert parallelism"},
    {"--max-running-requests", false, "llama.cpp's batch cap is --parallel (its slots)"},
    {"--chunked-prefill-size", false, "llama.cpp's batches are --batch-size and --ubatch-size"},
    {"--ep-size", false, "llama.cpp has no expert parallelism"},
    {"--attention-backend", false, "llama.cpp's attention choice is -fa (flash attention)"},
    {"--runner", false, "a vLLM setting"},
    {"--language-model-only", false, "a vLLM setting: a GGUF holds the language model alone (the projector is --mmproj)"},
    {"--skip-mm-profiling", false, "a vLLM setting: llama.cpp's projector (--mmproj) is not planned"},
    {"--speculative-method", false, "llama.cpp's draft model (-md) is not planned"},
    {"--num-speculative-tokens", false, "llama.cpp's draft model (-md) is not planned"},
    {"--speculative-config", false, "llama.cpp takes no speculative JSON; give its own speculative options"},
    {"--gpus", false, "llama.cpp plans one device: the visible GPUs change nothing kvplan plans"},
    {"--env", false, "kvplan reads no llama.cpp environment variable"},
    {"--disable-rule", true, "a start-up rule switched off"},
    {"--blocks", false, "sim replays no llama.cpp scheduler: its slots are fixed at start-up (--parallel)"},
    {"--recurrent-slots", false, "sim replays no llama.cpp scheduler: its slots are fixed at start-up (--parallel)"},
    CREATOR_ROWS(CREATOR_NONE_LLAMACPP)
};

static const struct {
    const kvp_option_meaning *rows;
    size_t count;
} k_tables[KVP_ENGINE_COUNT] = {
    [KVP_ENGINE_TRTLLM] = {k_trtllm, sizeof k_trtllm / sizeof k_trtllm[0]},
    [KVP_ENGINE_VLLM] = {k_vllm, sizeof k_vllm / sizeof k_vllm[0]},
    [KVP_ENGINE_SGLANG] = {k_sglang, sizeof k_sglang / sizeof k_sglang[0]},
    [KVP_ENGINE_LLAMACPP] = {k_llamacpp, sizeof k_llamacpp / sizeof k_llamacpp[0]},
};

const kvp_option_meaning *kvp_option_meaning_for(const kvp_option *row, kvp_engine engine) {
    if (!row || (unsigned)engine >= KVP_ENGINE_COUNT) return NULL;
    for (size_t i = 0; i < k_tables[engine].count; i++)
        if (!strcmp(k_tables[engine].rows[i].option, row->name)) return &k_tables[engine].rows[i];
    return NULL;
}
