/* types.c — the names of kvplan/types.h: dtypes (element sizes, including
 * nvfp4's half byte plus block scales) and cache kinds. In util so the model
 * and the cost model both use them without using each other. */
#include <string.h>

#include "kvplan/types.h"
#include "util.h"

static const char *const k_dtype_names[KVP_DTYPE_COUNT] = {
    [KVP_DTYPE_AUTO] = "auto", [KVP_DTYPE_FP32] = "fp32", [KVP_DTYPE_FP16] = "fp16",
    [KVP_DTYPE_BF16] = "bf16", [KVP_DTYPE_FP8] = "fp8",   [KVP_DTYPE_INT8] = "int8",
    [KVP_DTYPE_NVFP4] = "nvfp4",
};

const char *kvp_dtype_name(kvp_dtype dtype) {
    return (unsigned)dtype < KVP_DTYPE_COUNT ? k_dtype_names[dtype] : "unknown";
}

typedef struct dtype_alias {
    const char *name;
    kvp_dtype dtype;
} dtype_alias;

/* kvplan names plus the spellings found in HF configs, torch and engine flags. */
static const dtype_alias k_aliases[] = {
    {"auto", KVP_DTYPE_AUTO},       {"fp32", KVP_DTYPE_FP32},
    {"float32", KVP_DTYPE_FP32},    {"float", KVP_DTYPE_FP32},
    {"f32", KVP_DTYPE_FP32},        {"torch.float32", KVP_DTYPE_FP32},
    {"fp16", KVP_DTYPE_FP16},       {"float16", KVP_DTYPE_FP16},
    {"half", KVP_DTYPE_FP16},       {"f16", KVP_DTYPE_FP16},
    {"torch.float16", KVP_DTYPE_FP16}, {"bf16", KVP_DTYPE_BF16},
    {"bfloat16", KVP_DTYPE_BF16},   {"torch.bfloat16", KVP_DTYPE_BF16},
    {"fp8", KVP_DTYPE_FP8},         {"fp8_e4m3", KVP_DTYPE_FP8},
    {"fp8_e5m2", KVP_DTYPE_FP8},    {"e4m3", KVP_DTYPE_FP8},
    {"e5m2", KVP_DTYPE_FP8},        {"float8_e4m3fn", KVP_DTYPE_FP8},
    {"float8", KVP_DTYPE_FP8},      {"fp8_ds_mla", KVP_DTYPE_FP8},
    {"int8", KVP_DTYPE_INT8},       {"nvfp4", KVP_DTYPE_NVFP4},
    {"fp4", KVP_DTYPE_NVFP4},       {"fp4_e2m1", KVP_DTYPE_NVFP4},
};

kvp_status kvp_dtype_parse(const char *name, kvp_dtype *out) {
    if (!name) return KVP_INVALID_ARG;
    for (size_t i = 0; i < sizeof k_aliases / sizeof k_aliases[0]; i++) {
        if (kvp__strcasecmp(name, k_aliases[i].name) == 0) {
            *out = k_aliases[i].dtype;
            return KVP_OK;
        }
    }
    return KVP_INVALID_ARG;
}

kvp_status kvp_dtype_bytes(kvp_dtype dtype, uint64_t elements, uint64_t *out_bytes) {
    uint64_t size;
    switch (dtype) {
    case KVP_DTYPE_FP32:
        size = 4;
        break;
    case KVP_DTYPE_FP16:
    case KVP_DTYPE_BF16:
        size = 2;
        break;
    case KVP_DTYPE_FP8:
    case KVP_DTYPE_INT8:
        size = 1;
        break;
    case KVP_DTYPE_NVFP4:
        /* Two values per byte, plus one fp8 scale per block of 16 values. */
        *out_bytes = kvp__ceil_div_u64(elements, 2) + kvp__ceil_div_u64(elements, 16);
        return KVP_OK;
    default:
        return KVP_INVALID_ARG;
    }
    if (!kvp__mul_u64(elements, size, out_bytes)) return KVP_OVERFLOW;
    return KVP_OK;
}

static const char *const k_kind_names[KVP_CACHE_KIND_COUNT] = {
    [KVP_CACHE_FULL] = "full",           [KVP_CACHE_SLIDING] = "sliding",
    [KVP_CACHE_CHUNKED] = "chunked",     [KVP_CACHE_MLA] = "mla",
    [KVP_CACHE_RECURRENT] = "recurrent", [KVP_CACHE_CROSS] = "cross",
    [KVP_CACHE_INDEXER] = "indexer",     [KVP_CACHE_COMPRESSED] = "compressed",
};

const char *kvp_cache_kind_name(kvp_cache_kind kind) {
    return (unsigned)kind < KVP_CACHE_KIND_COUNT ? k_kind_names[kind] : "unknown";
}
