/*
 * test_model_hf.c — every real config in data/models/ read and costed, checked
 * against bytes worked by hand from the config (the comment above each row),
 * at bf16 and fp8 and at TP 1, 2 and 8; plus the reader's error paths.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "kvplan/kvplan.h"

typedef struct expect {
    uint64_t bytes_per_token, bytes_per_sequence;
    int error; /* 1: this TP must be refused (heads do not divide) */
} expect;

typedef struct config_case {
    const char *file;
    expect e[6]; /* bf16 TP1, TP2, TP8, fp8 TP1, TP2, TP8 */
} config_case;

static const config_case k_cases[] = {
    /* 32 layers x 8 kv heads x 128 x 2 (K,V) x 2 B = 131072 */
    {"meta-llama__Llama-3.1-8B.json", {{131072, 0, 0}, {65536, 0, 0}, {16384, 0, 0}, {65536, 0, 0}, {32768, 0, 0}, {8192, 0, 0}}},
    /* 80 x 8 x 128 x 2 x 2 = 327680 */
    {"meta-llama__Llama-3.1-70B.json", {{327680, 0, 0}, {163840, 0, 0}, {40960, 0, 0}, {163840, 0, 0}, {81920, 0, 0}, {20480, 0, 0}}},
    /* 126 x 8 x 128 x 2 x 2 = 516096 */
    {"meta-llama__Llama-3.1-405B.json", {{516096, 0, 0}, {258048, 0, 0}, {64512, 0, 0}, {258048, 0, 0}, {129024, 0, 0}, {32256, 0, 0}}},
    /* 16 x 8 x 64 (explicit head_dim) x 2 x 2 = 32768 */
    {"meta-llama__Llama-3.2-1B.json", {{32768, 0, 0}, {16384, 0, 0}, {4096, 0, 0}, {16384, 0, 0}, {8192, 0, 0}, {2048, 0, 0}}},
    /* 16 x 8 x 64 x 2 x 2 = 32768 */
    {"meta-llama__Llama-3.2-1B-Instruct.json", {{32768, 0, 0}, {16384, 0, 0}, {4096, 0, 0}, {16384, 0, 0}, {8192, 0, 0}, {2048, 0, 0}}},
    /* 80 x 8 x 128 x 2 x 2 = 327680 */
    {"meta-llama__Llama-3.3-70B-Instruct.json", {{327680, 0, 0}, {163840, 0, 0}, {40960, 0, 0}, {163840, 0, 0}, {81920, 0, 0}, {20480, 0, 0}}},
    /* 24 x 2 x (896/14=64) x 2 x 2 = 12288; use_sliding_window=false so no SWA; TP8: 14 query heads do not divide */
    {"Qwen__Qwen2-0.5B.json", {{12288, 0, 0}, {6144, 0, 0}, {0, 0, 1}, {6144, 0, 0}, {3072, 0, 0}, {0, 0, 1}}},
    /* 28 x 4 x (3584/28=128) x 2 x 2 = 57344; TP8: 28 query heads do not divide (engines refuse) */
    {"Qwen__Qwen2.5-7B.json", {{57344, 0, 0}, {28672, 0, 0}, {0, 0, 1}, {28672, 0, 0}, {14336, 0, 0}, {0, 0, 1}}},
    /* 80 x 8 x 128 x 2 x 2 = 327680 */
    {"Qwen__Qwen2.5-72B.json", {{327680, 0, 0}, {163840, 0, 0}, {40960, 0, 0}, {163840, 0, 0}, {81920, 0, 0}, {20480, 0, 0}}},
    /* 28 x 8 x 128 (explicit) x 2 x 2 = 114688 */
    {"Qwen__Qwen3-0.6B.json", {{114688, 0, 0}, {57344, 0, 0}, {14336, 0, 0}, {57344, 0, 0}, {28672, 0, 0}, {7168, 0, 0}}},
    /* 28 x 8 x 128 x 2 x 2 = 114688 */
    {"Qwen__Qwen3-1.7B.json", {{114688, 0, 0}, {57344, 0, 0}, {14336, 0, 0}, {57344, 0, 0}, {28672, 0, 0}, {7168, 0, 0}}},
    /* 36 x 8 x 128 x 2 x 2 = 147456 */
    {"Qwen__Qwen3-8B.json", {{147456, 0, 0}, {73728, 0, 0}, {18432, 0, 0}, {73728, 0, 0}, {36864, 0, 0}, {9216, 0, 0}}},
    /* 64 x 8 x 128 (not 5120/64=80) x 2 x 2 = 262144 */
    {"Qwen__Qwen3-32B.json", {{262144, 0, 0}, {131072, 0, 0}, {32768, 0, 0}, {131072, 0, 0}, {65536, 0, 0}, {16384, 0, 0}}},
    /* fp8 weights, no KV scheme: 64 x 8 x 128 x 2 x 2 = 262144 */
    {"Qwen__Qwen3-32B-FP8.json", {{262144, 0, 0}, {131072, 0, 0}, {32768, 0, 0}, {131072, 0, 0}, {65536, 0, 0}, {16384, 0, 0}}},
    /* 48 x 4 x 128 x 2 x 2 = 98304; TP8: 1 head/rank = 24576 */
    {"Qwen__Qwen3-30B-A3B.json", {{98304, 0, 0}, {49152, 0, 0}, {24576, 0, 0}, {49152, 0, 0}, {24576, 0, 0}, {12288, 0, 0}}},
    /* 94 x 4 x 128 x 2 x 2 = 192512 */
    {"Qwen__Qwen3-235B-A22B.json", {{192512, 0, 0}, {96256, 0, 0}, {48128, 0, 0}, {96256, 0, 0}, {48128, 0, 0}, {24064, 0, 0}}},
    /* 62 x 8 x 128 x 2 x 2 = 253952 */
    {"Qwen__Qwen3-Coder-480B-A35B-Instruct.json", {{253952, 0, 0}, {126976, 0, 0}, {31744, 0, 0}, {126976, 0, 0}, {63488, 0, 0}, {15872, 0, 0}}},
    /* text_config: 36 x 8 x 128 x 2 x 2 = 147456 */
    {"Qwen__Qwen3-VL-8B-Instruct.json", {{147456, 0, 0}, {73728, 0, 0}, {18432, 0, 0}, {73728, 0, 0}, {36864, 0, 0}, {9216, 0, 0}}},
    /* text_config: 48 x 4 x 128 x 2 x 2 = 98304 */
    {"Qwen__Qwen3-VL-30B-A3B-Instruct.json", {{98304, 0, 0}, {49152, 0, 0}, {24576, 0, 0}, {49152, 0, 0}, {24576, 0, 0}, {12288, 0, 0}}},
    /* sliding 4096 on all 32 layers: 32 x 8 x 128 x 2 x 2 = 131072 */
    {"mistralai__Mistral-7B-v0.1.json", {{131072, 0, 0}, {65536, 0, 0}, {16384, 0, 0}, {65536, 0, 0}, {32768, 0, 0}, {8192, 0, 0}}},
    /* 32 x 8 x 128 x 2 x 2 = 131072 */
    {"mistralai__Mixtral-8x7B-v0.1.json", {{131072, 0, 0}, {65536, 0, 0}, {16384, 0, 0}, {65536, 0, 0}, {32768, 0, 0}, {8192, 0, 0}}},
    /* 56 x 8 x 128 x 2 x 2 = 229376 */
    {"mistralai__Mixtral-8x22B-v0.1.json", {{229376, 0, 0}, {114688, 0, 0}, {28672, 0, 0}, {114688, 0, 0}, {57344, 0, 0}, {14336, 0, 0}}},
    /* sliding 2047: 32 x 32 x 96 x 2 x 2 = 393216 */
    {"microsoft__Phi-3-mini-4k-instruct.json", {{393216, 0, 0}, {196608, 0, 0}, {49152, 0, 0}, {196608, 0, 0}, {98304, 0, 0}, {24576, 0, 0}}},
    /* 32 x 32 x 96 x 2 x 2 = 393216 */
    {"microsoft__Phi-3-mini-128k-instruct.json", {{393216, 0, 0}, {196608, 0, 0}, {49152, 0, 0}, {196608, 0, 0}, {98304, 0, 0}, {24576, 0, 0}}},
    /* 62 x 8 x 128 x 2 x 2 = 253952 */
    {"MiniMaxAI__MiniMax-M2.5.json", {{253952, 0, 0}, {126976, 0, 0}, {31744, 0, 0}, {126976, 0, 0}, {63488, 0, 0}, {15872, 0, 0}}},
    /* 42 x 8 x 256 x 2 x 2 = 344064 (21 sliding + 21 full) */
    {"google__gemma-2-9b.json", {{344064, 0, 0}, {172032, 0, 0}, {43008, 0, 0}, {172032, 0, 0}, {86016, 0, 0}, {21504, 0, 0}}},
    /* 26 x 1 x 256 x 2 x 2 = 26624 (22 sliding 512 + 4 full); 1 head kept on every rank; TP8: 4 query heads do not divide */
    {"google__gemma-3-1b-it.json", {{26624, 0, 0}, {26624, 0, 0}, {0, 0, 1}, {13312, 0, 0}, {13312, 0, 0}, {0, 0, 1}}},
    /* text_config: 62 x 16 x 128 x 2 x 2 = 507904 (pattern 6 default: 52 sliding + 10 full) */
    {"google__gemma-3-27b-it.json", {{507904, 0, 0}, {253952, 0, 0}, {63488, 0, 0}, {253952, 0, 0}, {126976, 0, 0}, {31744, 0, 0}}},
    /* 24 x 8 x 64 x 2 x 2 = 49152 (12 sliding 128 + 12 full) */
    {"openai__gpt-oss-20b.json", {{49152, 0, 0}, {24576, 0, 0}, {6144, 0, 0}, {24576, 0, 0}, {12288, 0, 0}, {3072, 0, 0}}},
    /* 36 x 8 x 64 x 2 x 2 = 73728 */
    {"openai__gpt-oss-120b.json", {{73728, 0, 0}, {36864, 0, 0}, {9216, 0, 0}, {36864, 0, 0}, {18432, 0, 0}, {4608, 0, 0}}},
    /* 45 x 8 x 128 x 2 x 2 = 184320 (33 sliding 512 + 12 full) */
    {"stepfun-ai__Step-3.7-Flash.json", {{184320, 0, 0}, {92160, 0, 0}, {23040, 0, 0}, {92160, 0, 0}, {46080, 0, 0}, {11520, 0, 0}}},
    /* 48 x 8 x 128 x 2 x 2 = 196608 (36 chunked 8192 + 12 NoPE full) */
    {"meta-llama__Llama-4-Scout-17B-16E.json", {{196608, 0, 0}, {98304, 0, 0}, {24576, 0, 0}, {98304, 0, 0}, {49152, 0, 0}, {12288, 0, 0}}},
    /* 48 x 8 x 128 x 2 x 2 = 196608 */
    {"meta-llama__Llama-4-Maverick-17B-128E-Instruct.json", {{196608, 0, 0}, {98304, 0, 0}, {24576, 0, 0}, {98304, 0, 0}, {49152, 0, 0}, {12288, 0, 0}}},
    /* 49 attention blocks (31 no_op) x (64/8=8) x 128 x 2 x 2 = 200704 */
    {"nvidia__Llama-3_3-Nemotron-Super-49B-v1.json", {{200704, 0, 0}, {100352, 0, 0}, {25088, 0, 0}, {100352, 0, 0}, {50176, 0, 0}, {12544, 0, 0}}},
    /* 25 sliding x 8 x 256 x 2 x 2 = 204800 + 5 full x 2 (k_eq_v global kv) x 512 x 2 x 2 = 20480 -> 225280; TP8: 25x1x256x4 + 5x1x512x4 = 35840 */
    {"google__gemma-4-26B-A4B.json", {{225280, 0, 0}, {112640, 0, 0}, {35840, 0, 0}, {112640, 0, 0}, {56320, 0, 0}, {17920, 0, 0}}},
    /* 39 swa x 8 x (192+128) x 2 = 199680 + 9 full x 4 x (192+128) x 2 = 23040 -> 222720 */
    {"XiaomiMiMo__MiMo-V2-Flash.json", {{222720, 0, 0}, {111360, 0, 0}, {30720, 0, 0}, {111360, 0, 0}, {55680, 0, 0}, {15360, 0, 0}}},
    /* MLA: 61 x (512 + 64) x 2 = 70272 at any TP */
    {"deepseek-ai__DeepSeek-V3.json", {{70272, 0, 0}, {70272, 0, 0}, {70272, 0, 0}, {35136, 0, 0}, {35136, 0, 0}, {35136, 0, 0}}},
    /* 61 x 576 x 2 = 70272 */
    {"deepseek-ai__DeepSeek-R1.json", {{70272, 0, 0}, {70272, 0, 0}, {70272, 0, 0}, {35136, 0, 0}, {35136, 0, 0}, {35136, 0, 0}}},
    /* 61 x 576 x 2 = 70272 + indexer 61 x (128 fp8 + 4 scale) = 8052 -> 78324 */
    {"deepseek-ai__DeepSeek-V3.2.json", {{78324, 0, 0}, {78324, 0, 0}, {78324, 0, 0}, {43188, 0, 0}, {43188, 0, 0}, {43188, 0, 0}}},
    /* 61 x 576 x 2 = 70272 */
    {"moonshotai__Kimi-K2-Instruct.json", {{70272, 0, 0}, {70272, 0, 0}, {70272, 0, 0}, {35136, 0, 0}, {35136, 0, 0}, {35136, 0, 0}}},
    /* text_config: 61 x 576 x 2 = 70272 */
    {"moonshotai__Kimi-K2.5.json", {{70272, 0, 0}, {70272, 0, 0}, {70272, 0, 0}, {35136, 0, 0}, {35136, 0, 0}, {35136, 0, 0}}},
    /* 78 x 576 x 2 = 89856 + indexer 78 x 132 = 10296 -> 100152 */
    {"zai-org__GLM-5.json", {{100152, 0, 0}, {100152, 0, 0}, {100152, 0, 0}, {55224, 0, 0}, {55224, 0, 0}, {55224, 0, 0}}},
    /* 12 full x 2 x 256 x 2 x 2 = 24576/token; 36 GDN x [conv 3 x (32x128 + 2x16x128) = 24576 + ssm 32x128x128 = 524288] x 2 B = 39518208/seq */
    {"Qwen__Qwen3-Next-80B-A3B-Thinking.json", {{24576, 39518208, 0}, {12288, 19759104, 0}, {12288, 4939776, 0}, {12288, 39518208, 0}, {6144, 19759104, 0}, {6144, 4939776, 0}}},
    /* 16 full x 4 x 256 x 2 x 2 = 65536; 48 GDN x [3 x (48x128 + 2x16x128) x 2 B = 61440 + 48x128x128 x 4 B (fp32) = 3145728] = 153944064 */
    {"Qwen__Qwen3.5-27B.json", {{65536, 153944064, 0}, {32768, 76972032, 0}, {16384, 19243008, 0}, {32768, 153944064, 0}, {16384, 76972032, 0}, {8192, 19243008, 0}}},
    /* 10 full x 2 x 256 x 2 x 2 = 20480; 30 GDN x [3 x 8192 x 2 = 49152 + 32x128x128 x 4 = 2097152] = 64389120 */
    {"Qwen__Qwen3.5-35B-A3B.json", {{20480, 64389120, 0}, {10240, 32194560, 0}, {10240, 8048640, 0}, {10240, 64389120, 0}, {5120, 32194560, 0}, {5120, 8048640, 0}}},
    /* 10 attn x 8 x 128 x 2 x 2 = 40960; 54 Mamba2 x [3 x (256x64 + 2x8x256) x 2 = 122880 + 256x64x256 x 2 = 8388608] = 459620352 */
    {"nvidia__Nemotron-H-56B-Base-8K.json", {{40960, 459620352, 0}, {20480, 229810176, 0}, {5120, 57452544, 0}, {20480, 459620352, 0}, {10240, 229810176, 0}, {2560, 57452544, 0}}},
    /* 6 attn x 2 x 128 x 2 x 2 = 6144; 23 Mamba2 x [3 x (64x64 + 2x8x128) x 2 = 36864 + 64x64x128 x 4 (fp32) = 2097152] = 49082368 */
    {"nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.json", {{6144, 49082368, 0}, {3072, 24541184, 0}, {3072, 6135296, 0}, {3072, 49082368, 0}, {1536, 24541184, 0}, {1536, 6135296, 0}}},
    /* Nemotron-3 Nano in the new schema (layers_block_type, no num_hidden_layers): the
     * same 52 layers as the pattern form above: 6 attn + 23 Mamba2, same figures. */
    {"nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B.json", {{6144, 49082368, 0}, {3072, 24541184, 0}, {3072, 6135296, 0}, {3072, 49082368, 0}, {1536, 24541184, 0}, {1536, 6135296, 0}}},
    /* Kimi-Linear: 7 MLA layers (full_attn_layers 4,8,...,27, 1-indexed) x (512 + 64) x 2 B =
     * 8064/token (fp8 4032), replicated. 20 KDA layers, 32 heads x 128, conv kernel 4:
     * conv 3 x (32x128 + 2x32x128) = 36864 x 2 B (bf16) = 73728, state 32x128x128 x 4 B
     * (fp32 forced) = 2097152 -> 2170880 x 20 = 43417600. TP2: 16 heads: conv 3 x 6144 x 2
     * = 36864 + 16x128x128x4 = 1048576 -> 1085440 x 20 = 21708800. TP8: 4 heads: conv
     * 3 x 1536 x 2 = 9216 + 262144 = 271360 x 20 = 5427200. The KV dtype leaves the state alone. */
    {"moonshotai__Kimi-Linear-48B-A3B-Instruct.json", {{8064, 43417600, 0}, {8064, 21708800, 0}, {8064, 5427200, 0}, {4032, 43417600, 0}, {4032, 21708800, 0}, {4032, 5427200, 0}}},
    /* MiniMax-Text-01: attn_type_list with every 8th layer softmax: 10 x 8 x 256 x 2 B =
     * 40960/token; 70 lightning layers x 64 heads x 128 x 128 x 2 B (model dtype) =
     * 2097152 each -> 146800640/seq. TP2: 4 KV heads (20480), 32 heads of state
     * (73400320). TP8: 1 KV head (5120), 8 heads (18350080). fp8 halves the KV only. */
    {"MiniMaxAI__MiniMax-Text-01.json", {{40960, 146800640, 0}, {20480, 73400320, 0}, {5120, 18350080, 0}, {20480, 146800640, 0}, {10240, 73400320, 0}, {2560, 18350080, 0}}},
    /* MiniMax-M3: 62 x 8 x 256 x 2 = 253952 + index keys on the 60 layers with
     * sparse_attention_freq != 0: 60 x 128 x 2 B (bf16 even under fp8, replicated) = 15360.
     * TP2: 126976 + 15360 = 142336; TP8: 31744 + 15360 = 47104; fp8: 126976 + 15360 =
     * 142336, 63488 + 15360 = 78848, 15872 + 15360 = 31232. */
    {"MiniMaxAI__MiniMax-M3.json", {{269312, 0, 0}, {142336, 0, 0}, {47104, 0, 0}, {142336, 0, 0}, {78848, 0, 0}, {31232, 0, 0}}},
    /* DeepSeek-V4 (reconstructed): every cache replicated over TP. Slope: 43 sliding
     * layers (window 128) x 512 x 2 B = 44032 (fp8: 22016). Per sequence: compressor
     * state in fp32, ratio-4 layers 2 x 2 x 512 x 8 + 2 x 2 x 128 x 8 = 20480 floats
     * = 81920 B x 21 = 1720320, ratio-128 layers 2 x 512 x 128 = 131072 floats =
     * 524288 B x 20 = 10485760 -> 12206080. The compressed pools (one entry per r
     * tokens) are not in the slope: test_families_current checks their exact bytes. */
    {"deepseek-ai__DeepSeek-V4-Flash.json", {{44032, 12206080, 0}, {44032, 12206080, 0}, {44032, 12206080, 0}, {22016, 12206080, 0}, {22016, 12206080, 0}, {22016, 12206080, 0}}},
    /* 64 Mamba2 (d_inner 5120, 80 heads x 64, d_state 128, 1 group) x [3 x (5120 + 256) x 2 = 32256 + 80x64x128 x 2 = 1310720] = 85950464; TP: heads sharded, the 1 group replicated */
    {"state-spaces__mamba2-2.7b.json", {{0, 85950464, 0}, {0, 43024384, 0}, {0, 10829824, 0}, {0, 85950464, 0}, {0, 43024384, 0}, {0, 10829824, 0}}},
    /* fp16: 32 self x 20 x 64 x 2 x 2 = 163840 + 32 cross (1500 frames) x 20 x 64 x 2 x 2 = 163840 -> 327680; 20 heads do not divide TP 8 */
    {"openai__whisper-large-v3.json", {{327680, 0, 0}, {163840, 0, 0}, {0, 0, 1}, {163840, 0, 0}, {81920, 0, 0}, {0, 0, 1}}},
    /* 12 self x 12 x 64 x 2 x 2 = 36864 + 12 cross = 36864 -> 73728; 12 heads do not divide TP 8 */
    {"google-t5__t5-base.json", {{73728, 0, 0}, {36864, 0, 0}, {0, 0, 1}, {36864, 0, 0}, {18432, 0, 0}, {0, 0, 1}}},
    /* 12 self x 16 x 64 x 2 x 2 = 49152 + 12 cross = 49152 -> 98304 */
    {"facebook__bart-large.json", {{98304, 0, 0}, {49152, 0, 0}, {12288, 0, 0}, {49152, 0, 0}, {24576, 0, 0}, {6144, 0, 0}}},
};

static kvp_model *load(const char *file) {
    char path[1024];
    snprintf(path, sizeof path, "%s/data/models/%s", KVP_SOURCE_DIR, file);
    kvp_model *m = NULL;
    kvp_error err;
    kvp_status s = kvp_model_from_hf_file(path, NULL, &m, &err);
    if (s != KVP_OK) fail_msg("%s: %s", file, err.message);
    return m;
}

static void test_every_config(void **state) {
    (void)state;
    static const uint32_t tps[3] = {1, 2, 8};
    static const kvp_dtype dts[2] = {KVP_DTYPE_BF16, KVP_DTYPE_FP8};
    for (size_t i = 0; i < sizeof k_cases / sizeof k_cases[0]; i++) {
        kvp_model *m = load(k_cases[i].file);
        for (int d = 0; d < 2; d++) {
            for (int t = 0; t < 3; t++) {
                const expect *e = &k_cases[i].e[d * 3 + t];
                kvp_cost_settings s = kvp_cost_settings_default();
                s.tp = tps[t];
                s.kv_dtype = dts[d];
                kvp_cost c;
                kvp_error err;
                kvp_status st = kvp_cost_compute(m, &s, &c, &err);
                if (e->error) {
                    if (st != KVP_CONFIG)
                        fail_msg("%s tp %u: expected a refusal, got %s", k_cases[i].file, tps[t],
                                 kvp_status_name(st));
                    continue;
                }
                if (st != KVP_OK) fail_msg("%s tp %u: %s", k_cases[i].file, tps[t], err.message);
                if (c.bytes_per_token != e->bytes_per_token ||
                    c.bytes_per_sequence != e->bytes_per_sequence)
                    fail_msg("%s %s tp %u: got %llu/%llu, expected %llu/%llu", k_cases[i].file,
                             kvp_dtype_name(dts[d]), tps[t], (unsigned long long)c.bytes_per_token,
                             (unsigned long long)c.bytes_per_sequence,
                             (unsigned long long)e->bytes_per_token,
                             (unsigned long long)e->bytes_per_sequence);
            }
        }
        kvp_model_free(m);
    }
}

static const kvp_pool_cost *find_pool(const kvp_cost *c, kvp_cache_kind kind) {
    for (uint32_t k = 0; k < c->pool_count; k++)
        if (c->pools[k].kind == kind) return &c->pools[k];
    return NULL;
}

static void cost_default(const char *file, kvp_cost *c) {
    kvp_model *m = load(file);
    kvp_error err;
    kvp_cost_settings s = kvp_cost_settings_default();
    assert_int_equal(kvp_cost_compute(m, &s, c, &err), KVP_OK);
    kvp_model_free(m);
}

static void test_schedules(void **state) {
    (void)state;
    kvp_cost c;
    /* gpt-oss-120b: layer_types alternate, 18 sliding (window 128) + 18 full. */
    cost_default("openai__gpt-oss-120b.json", &c);
    assert_int_equal(c.pool_count, 2);
    assert_int_equal(find_pool(&c, KVP_CACHE_SLIDING)->layers, 18);
    assert_int_equal(find_pool(&c, KVP_CACHE_SLIDING)->window_tokens, 128);
    assert_int_equal(find_pool(&c, KVP_CACHE_FULL)->layers, 18);
    /* Qwen2.5-7B sets sliding_window 131072 but use_sliding_window false: all full. */
    cost_default("Qwen__Qwen2.5-7B.json", &c);
    assert_int_equal(c.pool_count, 1);
    assert_int_equal(c.pools[0].kind, KVP_CACHE_FULL);
    /* Gemma 3 27B: text_config omits sliding_window_pattern, default 6: 62 layers ->
     * full at i = 5, 11, ..., 59 (10 layers), 52 sliding of 1024. */
    cost_default("google__gemma-3-27b-it.json", &c);
    assert_int_equal(find_pool(&c, KVP_CACHE_FULL)->layers, 10);
    assert_int_equal(find_pool(&c, KVP_CACHE_SLIDING)->layers, 52);
    assert_int_equal(find_pool(&c, KVP_CACHE_SLIDING)->window_tokens, 1024);
    /* Gemma 2: even layers slide (21 of 42). */
    cost_default("google__gemma-2-9b.json", &c);
    assert_int_equal(find_pool(&c, KVP_CACHE_SLIDING)->layers, 21);
    assert_int_equal(find_pool(&c, KVP_CACHE_SLIDING)->dtype, KVP_DTYPE_FP32);
    /* Llama 4 Scout: no_rope_layers empty -> every 4th layer NoPE/global: 12 full,
     * 36 chunked of 8192. */
    cost_default("meta-llama__Llama-4-Scout-17B-16E.json", &c);
    assert_int_equal(find_pool(&c, KVP_CACHE_FULL)->layers, 12);
    assert_int_equal(find_pool(&c, KVP_CACHE_CHUNKED)->layers, 36);
    assert_int_equal(find_pool(&c, KVP_CACHE_CHUNKED)->window_tokens, 8192);
    /* Whisper: cross cache over 1500 encoder frames, fp16 from "dtype". */
    cost_default("openai__whisper-large-v3.json", &c);
    assert_int_equal(find_pool(&c, KVP_CACHE_CROSS)->window_tokens, 1500);
    assert_int_equal(find_pool(&c, KVP_CACHE_CROSS)->dtype, KVP_DTYPE_FP16);
    /* Qwen3-Next: full_attention_interval 4 -> 12 full + 36 GDN. */
    cost_default("Qwen__Qwen3-Next-80B-A3B-Thinking.json", &c);
    assert_int_equal(find_pool(&c, KVP_CACHE_FULL)->layers, 12);
    assert_int_equal(find_pool(&c, KVP_CACHE_RECURRENT)->layers, 36);
    /* conv 36 x 3 x 8192 x 2 B = 1769472; ssm 36 x 1048576 = 37748736 */
    assert_int_equal(find_pool(&c, KVP_CACHE_RECURRENT)->conv_bytes_per_sequence, 1769472);
    assert_int_equal(find_pool(&c, KVP_CACHE_RECURRENT)->ssm_bytes_per_sequence, 37748736);
    /* Nemotron-H 56B: 10 '*' attention, 54 'M' Mamba2, 54 '-' MLP. */
    cost_default("nvidia__Nemotron-H-56B-Base-8K.json", &c);
    assert_int_equal(find_pool(&c, KVP_CACHE_FULL)->layers, 10);
    assert_int_equal(find_pool(&c, KVP_CACHE_RECURRENT)->layers, 54);
    /* Jamba: attention where i % 8 == 4 -> 4 layers; Mamba-1 on 28:
     * 28 x [3 x 8192 x 2 + 8192 x 16 x 2] = 28 x 311296 = 8716288. */
    cost_default("ai21labs__Jamba-v0.1.partial.json", &c);
    assert_int_equal(find_pool(&c, KVP_CACHE_FULL)->layers, 4);
    assert_int_equal(c.bytes_per_token, 4 * 8 * 128 * 2 * 2);
    assert_int_equal(c.bytes_per_sequence, 8716288);
    /* Falcon-H1 0.5B: attention and Mamba2 in all 36 layers:
     * 36 x 2 x 64 x 2 x 2 = 18432; 36 x [3 x (24x64 + 2x1x128) x 2 + 24x64x128 x 2]
     * = 36 x (10752 + 393216) = 14542848. */
    cost_default("tiiuae__Falcon-H1-0.5B.partial.json", &c);
    assert_int_equal(c.bytes_per_token, 18432);
    assert_int_equal(c.bytes_per_sequence, 14542848);
    /* DeepSeek-V2-Lite: MLA with q_lora_rank null: 27 x 576 x 2 = 31104. */
    cost_default("deepseek-ai__DeepSeek-V2-Lite-Chat.partial.json", &c);
    assert_int_equal(c.bytes_per_token, 31104);
    /* Nemotron-H 8B (partial): 4 attn x 8 x 128 x 4 = 16384; 24 x [3 x (8192 + 2048) x 2
     * + 128x64x128 x 2] = 24 x (61440 + 2097152) = 51806208. */
    cost_default("nvidia__Nemotron-H-8B-Base-8K.partial.json", &c);
    assert_int_equal(c.bytes_per_token, 16384);
    assert_int_equal(c.bytes_per_sequence, 51806208);
    /* phi-4 (partial): 40 x 10 x 128 x 2 x 2 = 204800. */
    cost_default("microsoft__phi-4.partial.json", &c);
    assert_int_equal(c.bytes_per_token, 204800);
    /* gemma-2-27b (partial): 46 x 16 x 128 x 2 x 4 B (float32) = 753664. */
    cost_default("google__gemma-2-27b.partial.json", &c);
    assert_int_equal(c.bytes_per_token, 753664);
}

static void test_dtype_and_pages(void **state) {
    (void)state;
    kvp_model *m = load("deepseek-ai__DeepSeek-V3.json");
    kvp_cost c;
    kvp_error err;
    kvp_cost_settings s = kvp_cost_settings_default();
    /* nvfp4: 576 values -> 288 bytes + 576/16 = 36 scale bytes = 324 per layer;
     * 61 x 324 = 19764. */
    s.kv_dtype = KVP_DTYPE_NVFP4;
    assert_int_equal(kvp_cost_compute(m, &s, &c, &err), KVP_OK);
    assert_int_equal(c.bytes_per_token, 19764);
    /* 64 tokens per block: page = 64 x 19764 = 1264896. */
    s.tokens_per_block = 64;
    assert_int_equal(kvp_cost_compute(m, &s, &c, &err), KVP_OK);
    assert_int_equal(c.pools[0].page_bytes, 1264896);
    /* One sequence of 100 tokens takes ceil(100/64) = 2 blocks = 2529792 bytes. */
    uint64_t b;
    assert_int_equal(kvp_cost_sequence_bytes(&c, 100, &b, &err), KVP_OK);
    assert_int_equal(b, 2529792);
    kvp_model_free(m);
    /* fp32 KV for Llama-3.1-8B: 32 x 8 x 128 x 2 x 4 = 262144. */
    m = load("meta-llama__Llama-3.1-8B.json");
    s = kvp_cost_settings_default();
    s.kv_dtype = KVP_DTYPE_FP32;
    assert_int_equal(kvp_cost_compute(m, &s, &c, &err), KVP_OK);
    assert_int_equal(c.bytes_per_token, 262144);
    /* Sliding window caps a sequence: gpt-oss style windows tested in sequence bytes. */
    kvp_model_free(m);
    m = load("openai__gpt-oss-20b.json");
    s = kvp_cost_settings_default();
    s.tokens_per_block = 32;
    assert_int_equal(kvp_cost_compute(m, &s, &c, &err), KVP_OK);
    /* 1000 tokens: full pool ceil(1000/32) = 32 blocks x 32 x 24576 = 25165824;
     * sliding pool min(1000,128) = 128 -> 4 blocks x 32 x 24576 = 3145728. */
    assert_int_equal(kvp_cost_sequence_bytes(&c, 1000, &b, &err), KVP_OK);
    assert_int_equal(b, 25165824ull + 3145728ull);
    kvp_model_free(m);
}

/* Qwen3.5-27B keeps its SSM state in float32 (mamba_ssm_dtype), which vLLM follows;
 * TensorRT-LLM reads only mamba_ssm_cache_dtype, so the state is bf16 there:
 * 48 GDN layers x [3 x (48x128 + 2x16x128) x 2 = 61440 + 48x128x128 x 2 = 1572864]
 * = 48 x 1634304 = 78446592 (fp32: 153944064). */
static void test_ssm_dtype_rules(void **state) {
    (void)state;
    kvp_model *m = load("Qwen__Qwen3.5-27B.json");
    kvp_cost c;
    kvp_error err;
    kvp_cost_settings s = kvp_cost_settings_default();
    assert_int_equal(kvp_cost_compute(m, &s, &c, &err), KVP_OK);
    assert_int_equal(c.bytes_per_sequence, 153944064);
    s.ssm_cache_dtype_only = true;
    assert_int_equal(kvp_cost_compute(m, &s, &c, &err), KVP_OK);
    assert_int_equal(c.bytes_per_sequence, 78446592);
    kvp_model_free(m);
    /* Nemotron-3 Nano states mamba_ssm_cache_dtype: float32 is kept under both rules:
     * 23 x (36864 + 2097152) = 49082368. */
    m = load("nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.json");
    assert_int_equal(kvp_cost_compute(m, &s, &c, &err), KVP_OK);
    assert_int_equal(c.bytes_per_sequence, 49082368);
    kvp_model_free(m);
}

static void test_pipeline_split(void **state) {
    (void)state;
    /* 61 layers over 4 stages: 16, 15, 15, 15 (the first 61 mod 4 = 1 stage gets one more). */
    uint32_t b, e;
    kvp_pp_stage_layers(61, 4, 0, &b, &e);
    assert_int_equal(b, 0);
    assert_int_equal(e, 16);
    kvp_pp_stage_layers(61, 4, 3, &b, &e);
    assert_int_equal(b, 46);
    assert_int_equal(e, 61);
    assert_int_equal(kvp_pp_stage_of_layer(61, 4, 16), 1);
    kvp_model *m = load("deepseek-ai__DeepSeek-V3.json");
    kvp_cost c;
    kvp_error err;
    kvp_cost_settings s = kvp_cost_settings_default();
    s.pp = 4;
    /* Busiest stage = stage 0 with 16 layers: 16 x 1152 = 18432. */
    assert_int_equal(kvp_cost_compute(m, &s, &c, &err), KVP_OK);
    assert_int_equal(c.pp_rank, 0);
    assert_int_equal(c.bytes_per_token, 18432);
    s.pp_rank = 2; /* 15 x 1152 = 17280 */
    assert_int_equal(kvp_cost_compute(m, &s, &c, &err), KVP_OK);
    assert_int_equal(c.bytes_per_token, 17280);
    s.pp_rank = 4;
    assert_int_equal(kvp_cost_compute(m, &s, &c, &err), KVP_INVALID_ARG);
    s.pp_rank = -1;
    s.pp = 62;
    assert_int_equal(kvp_cost_compute(m, &s, &c, &err), KVP_CONFIG);
    kvp_model_free(m);
    /* Nemotron-H 56B over 2 stages: layers 0-58 and 59-117 hold 5 '*' and 27 'M' each:
     * 5 x 8 x 128 x 2 x 2 = 20480 per token, 27 x 8511488 = 229810176 per sequence. */
    m = load("nvidia__Nemotron-H-56B-Base-8K.json");
    s = kvp_cost_settings_default();
    s.pp = 2;
    assert_int_equal(kvp_cost_compute(m, &s, &c, &err), KVP_OK);
    assert_int_equal(c.bytes_per_token, 20480);
    assert_int_equal(c.bytes_per_sequence, 229810176);
    kvp_model_free(m);
}

/* ---- error paths: each names the file and the key ---- */

static kvp_error expect_error(const char *json, kvp_status code) {
    kvp_model *m = NULL;
    kvp_error err;
    memset(&err, 0x5a, sizeof err); /* poisoned first: the reader must fill it */
    kvp_status s = kvp_model_from_hf_json(json, strlen(json), "t.json", NULL, &m, &err);
    if (s != code) fail_msg("expected %s, got %s: %s", kvp_status_name(code), kvp_status_name(s),
                            s == KVP_OK ? "" : err.message);
    assert_null(m);
    assert_int_equal(err.code, code);
    assert_string_equal(err.file, "t.json");
    return err;
}

static void test_errors(void **state) {
    (void)state;
    kvp_error e;
    e = expect_error("{\"num_attention_heads\": 32, \"hidden_size\": 4096}", KVP_CONFIG);
    assert_string_equal(e.key, "/num_hidden_layers");
    e = expect_error("{\"num_hidden_layers\": -3, \"num_attention_heads\": 32, \"hidden_size\": 4096}",
                     KVP_CONFIG);
    assert_string_equal(e.key, "/num_hidden_layers");
    assert_non_null(strstr(e.message, "-3"));
    e = expect_error("{\"num_hidden_layers\": 0, \"num_attention_heads\": 32, \"hidden_size\": 4096}",
                     KVP_CONFIG);
    e = expect_error("{\"num_hidden_layers\": \"32\", \"num_attention_heads\": 32, \"hidden_size\": 4096}",
                     KVP_CONFIG);
    assert_non_null(strstr(e.message, "a string"));
    e = expect_error("{\"num_hidden_layers\": 2.5, \"num_attention_heads\": 32, \"hidden_size\": 4096}",
                     KVP_CONFIG);
    e = expect_error("{\"text_config\": {\"num_hidden_layers\": 2, \"num_attention_heads\": 32, "
                     "\"num_key_value_heads\": 5, \"hidden_size\": 4096}}",
                     KVP_CONFIG);
    assert_string_equal(e.key, "/text_config/num_key_value_heads");
    e = expect_error("{\"num_hidden_layers\": 2, \"num_attention_heads\": 3, \"hidden_size\": 1000}",
                     KVP_CONFIG);
    assert_string_equal(e.key, "/hidden_size");
    e = expect_error("{\"num_hidden_layers\": 3, \"num_attention_heads\": 4, \"hidden_size\": 64, "
                     "\"sliding_window\": 8, \"layer_types\": [\"full_attention\", \"sliding_attention\"]}",
                     KVP_CONFIG);
    assert_string_equal(e.key, "/layer_types");
    e = expect_error("{\"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"hidden_size\": 64, "
                     "\"layer_types\": [\"full_attention\", \"hyper_attention\"]}",
                     KVP_UNSUPPORTED);
    assert_string_equal(e.key, "/layer_types/1");
    assert_non_null(strstr(e.message, "hyper_attention"));
    e = expect_error("{\"num_hidden_layers\": 4, \"num_attention_heads\": 4, \"hidden_size\": 64, "
                     "\"hybrid_override_pattern\": \"M*-\"}",
                     KVP_CONFIG);
    assert_string_equal(e.key, "/hybrid_override_pattern");
    e = expect_error("{\"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"hidden_size\": 64, "
                     "\"attention_chunk_size\": 8192, \"model_type\": \"mystery\"}",
                     KVP_UNSUPPORTED);
    assert_string_equal(e.key, "/attention_chunk_size");
    e = expect_error("{\"num_hidden_layers\": 2,\n \"num_attention_heads\": 4,,}", KVP_SYNTAX);
    assert_int_equal(e.line, 2);
    assert_true(e.column > 0);
    e = expect_error("{\"num_hidden_layers\": 2, \"num_hidden_layers\": 3}", KVP_SYNTAX);
    e = expect_error("{\"model_type\": \"ll\xc3\x28ma\"}", KVP_SYNTAX);
    assert_non_null(strstr(e.message, "UTF-8"));
    e = expect_error("[1, 2]", KVP_CONFIG);
    e = expect_error("{\"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"hidden_size\": 64, "
                     "\"torch_dtype\": \"float64\"}",
                     KVP_UNSUPPORTED);
    assert_string_equal(e.key, "/torch_dtype");
    e = expect_error("{\"num_hidden_layers\": 99999999999, \"num_attention_heads\": 4, \"hidden_size\": 64}",
                     KVP_CONFIG);
    kvp_model *m = NULL;
    kvp_error err;
    assert_int_equal(kvp_model_from_hf_json("", 0, "empty.json", NULL, &m, &err), KVP_IO);
}

static void test_overflow_is_an_error(void **state) {
    (void)state;
    /* 100000 layers x 65536 heads x (65536 + 65536) x 4 B = 3.4e15 per token fits; but a
     * sequence of 2^60 tokens does not. */
    const char *json = "{\"num_hidden_layers\": 100000, \"num_attention_heads\": 65536, "
                       "\"head_dim\": 65536, \"hidden_size\": 64, \"torch_dtype\": \"float32\"}";
    kvp_model *m = NULL;
    kvp_error err;
    assert_int_equal(kvp_model_from_hf_json(json, strlen(json), "big.json", NULL, &m, &err), KVP_OK);
    kvp_cost c;
    kvp_cost_settings s = kvp_cost_settings_default();
    assert_int_equal(kvp_cost_compute(m, &s, &c, &err), KVP_OK);
    /* 100000 x 65536 x 131072 x 4 = 3435973836800000 */
    assert_int_equal(c.bytes_per_token, 3435973836800000ull);
    uint64_t b;
    assert_int_equal(kvp_cost_sequence_bytes(&c, 1ull << 40, &b, &err), KVP_OVERFLOW);
    s.tokens_per_block = 1u << 20;
    s.beam_width = 1024;
    assert_int_equal(kvp_cost_compute(m, &s, &c, &err), KVP_OVERFLOW);
    kvp_model_free(m);
}

static void test_python_literals_and_quant(void **state) {
    (void)state;
    /* Bare Infinity / NaN as Python writes them are accepted. */
    const char *json = "{\"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"hidden_size\": 64,"
                       " \"time_step_limit\": [0.0, Infinity], \"x\": NaN, \"y\": -Infinity}";
    kvp_model *m = NULL;
    kvp_error err;
    assert_int_equal(kvp_model_from_hf_json(json, strlen(json), "py.json", NULL, &m, &err), KVP_OK);
    kvp_model_free(m);
    /* compressed-tensors kv_cache_scheme fp8: auto KV dtype -> 1 byte.
     * 2 x 4 x 16 x 2 x 1 = 256. */
    json = "{\"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"hidden_size\": 64,"
           " \"quantization_config\": {\"quant_method\": \"compressed-tensors\","
           " \"kv_cache_scheme\": {\"num_bits\": 8, \"type\": \"float\"}}}";
    assert_int_equal(kvp_model_from_hf_json(json, strlen(json), "q.json", NULL, &m, &err), KVP_OK);
    kvp_cost c;
    assert_int_equal(kvp_cost_compute(m, NULL, &c, &err), KVP_OK);
    assert_int_equal(c.kv_dtype, KVP_DTYPE_FP8);
    assert_int_equal(c.bytes_per_token, 256);
    kvp_model_free(m);
    /* modelopt kv_cache_quant_algo NVFP4: 2 x 4 x 32 values -> 16 + 2 bytes each = 36 x 4... */
    json = "{\"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"hidden_size\": 64,"
           " \"quantization_config\": {\"quant_algo\": \"NVFP4\", \"kv_cache_quant_algo\": \"NVFP4\"}}";
    assert_int_equal(kvp_model_from_hf_json(json, strlen(json), "q.json", NULL, &m, &err), KVP_OK);
    assert_int_equal(kvp_cost_compute(m, NULL, &c, &err), KVP_OK);
    /* per layer 4 heads x 32 (K+V of 16) = 128 values -> 64 + 8 = 72; x 2 layers = 144 */
    assert_int_equal(c.bytes_per_token, 144);
    assert_string_equal(kvp_model_get_info(m)->weight_quant, "nvfp4");
    kvp_model_free(m);
}

static void test_files_and_catalog(void **state) {
    (void)state;
    kvp_model *m = NULL;
    kvp_error err;
    /* A folder holding config.json. */
    char dir[] = "/tmp/kvp_test_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[512];
    assert_int_equal(kvp_model_from_hf_file(dir, NULL, &m, &err), KVP_IO);
    assert_non_null(strstr(err.message, "config.json"));
    snprintf(path, sizeof path, "%s/config.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"hidden_size\": 64}", f);
    fclose(f);
    assert_int_equal(kvp_model_from_hf_file(dir, NULL, &m, &err), KVP_OK);
    /* 2 x 4 x 16 x 2 x 2 = 512 */
    kvp_cost c;
    assert_int_equal(kvp_cost_compute(m, NULL, &c, &err), KVP_OK);
    assert_int_equal(c.bytes_per_token, 512);
    kvp_model_free(m);
    /* An empty file. */
    f = fopen(path, "w");
    fclose(f);
    assert_int_equal(kvp_model_from_hf_file(path, NULL, &m, &err), KVP_IO);
    assert_non_null(strstr(err.message, "empty"));
    unlink(path);
    rmdir(dir);
    /* Catalogue names and ids. */
    assert_int_equal(kvp_model_open("llama-3.1-8b", NULL, &m, &err), KVP_OK);
    kvp_model_free(m);
    assert_int_equal(kvp_model_open("meta-llama/Llama-3.1-8B", NULL, &m, &err), KVP_OK);
    kvp_model_free(m);
    assert_int_equal(kvp_model_open("Meta-Llama-3.1-8B", NULL, &m, &err), KVP_OK);
    kvp_model_free(m);
    assert_int_equal(kvp_model_open("lama-3.1-8b", NULL, &m, &err), KVP_NOT_FOUND);
    assert_non_null(strstr(err.message, "llama-3.1-8b"));
    assert_true(kvp_catalog_count() >= 50);
}

static kvp_cost cost_json(const char *json) {
    kvp_model *m = NULL;
    kvp_error err;
    kvp_cost c;
    memset(&c, 0, sizeof c);
    if (kvp_model_from_hf_json(json, strlen(json), "x.json", NULL, &m, &err) != KVP_OK)
        fail_msg("%s", err.message);
    if (kvp_cost_compute(m, NULL, &c, &err) != KVP_OK) fail_msg("%s", err.message);
    kvp_model_free(m);
    return c;
}

static void test_type_defaults_and_refusals(void **state) {
    (void)state;
    /* A Gemma 3 text_config that keeps only 3 keys: the other geometry comes from
     * Gemma3TextConfig defaults: 26 layers, 4 kv heads, head_dim 256, window 4096,
     * pattern 6 -> 4 full + 22 sliding; 26 x 4 x 256 x 2 x 2 = 106496. */
    kvp_cost c = cost_json("{\"model_type\": \"gemma3\", \"torch_dtype\": \"bfloat16\","
                           " \"text_config\": {\"model_type\": \"gemma3_text\", \"hidden_size\": 2304}}");
    assert_int_equal(c.bytes_per_token, 106496);
    assert_int_equal(find_pool(&c, KVP_CACHE_FULL)->layers, 4);
    assert_int_equal(find_pool(&c, KVP_CACHE_SLIDING)->window_tokens, 4096);
    /* transformers MambaConfig: 2 layers, intermediate 1536, state 16, conv 4, fp32:
     * 2 x [3 x 1536 x 4 + 1536 x 16 x 4] = 2 x (18432 + 98304) = 233472 per sequence. */
    c = cost_json("{\"model_type\": \"mamba\", \"num_hidden_layers\": 2, \"hidden_size\": 768,"
                  " \"intermediate_size\": 1536, \"state_size\": 16, \"conv_kernel\": 4,"
                  " \"torch_dtype\": \"float32\"}");
    assert_int_equal(c.bytes_per_token, 0);
    assert_int_equal(c.bytes_per_sequence, 233472);
    /* Mamba2Config: 1 layer, 8 heads x 64, state 128, 1 group, conv 4, bf16:
     * 3 x (512 + 256) x 2 = 4608 + 8 x 64 x 128 x 2 = 131072 -> 135680. */
    c = cost_json("{\"model_type\": \"mamba2\", \"num_hidden_layers\": 1, \"num_heads\": 8,"
                  " \"head_dim\": 64, \"state_size\": 128, \"n_groups\": 1, \"conv_kernel\": 4,"
                  " \"torch_dtype\": \"bfloat16\"}");
    assert_int_equal(c.bytes_per_sequence, 135680);
    kvp_error e = expect_error("{\"num_hidden_layers\": 2, \"num_attention_heads\": 4, "
                               "\"hidden_size\": 64, \"kv_lora_rank\": 512, \"qk_rope_head_dim\": 64,"
                               " \"linear_attn_config\": {\"kda_layers\": [1]}}",
                               KVP_UNSUPPORTED);
    assert_string_equal(e.key, "/linear_attn_config");
    e = expect_error("{\"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"hidden_size\": 64,"
                     " \"attn_type_list\": [0, 2]}",
                     KVP_UNSUPPORTED);
    /* 0 (lightning) and 1 (softmax) are read; 2 is no MiniMax attention type. */
    assert_string_equal(e.key, "/attn_type_list/1");
    e = expect_error("{\"text_config\": {\"num_hidden_layers\": 2, \"num_attention_heads\": 4,"
                     " \"hidden_size\": 64, \"cross_attention_layers\": [1]}}",
                     KVP_UNSUPPORTED);
    assert_string_equal(e.key, "/text_config/cross_attention_layers");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_config),     cmocka_unit_test(test_schedules),
        cmocka_unit_test(test_dtype_and_pages),  cmocka_unit_test(test_pipeline_split),
        cmocka_unit_test(test_errors),           cmocka_unit_test(test_overflow_is_an_error),
        cmocka_unit_test(test_python_literals_and_quant), cmocka_unit_test(test_files_and_catalog),
        cmocka_unit_test(test_type_defaults_and_refusals),
        cmocka_unit_test(test_ssm_dtype_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
