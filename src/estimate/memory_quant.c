/*
 * memory_quant.c — weight formats asked by option (`--quantization`): the
 * engines' quantization methods as byte rates, and llama.cpp's tensor types
 * and file types by name (docs/memory.md "Weights by format").
 */
#include <stdio.h>
#include <string.h>

#include "memory_internal.h"

/* ggml's tensor types (ggml/src/ggml.c type_traits: blck_size, type_size;
 * the block structs in ggml-common.h). */
const kvp__ggml_type kvp__ggml_types[KVP__GGML_COUNT] = {
    [KVP__GGML_F32] = {"F32", 1, 4},
    [KVP__GGML_F16] = {"F16", 1, 2},
    [KVP__GGML_BF16] = {"BF16", 1, 2},
    [KVP__GGML_Q8_0] = {"Q8_0", 32, 34},     /* fp16 d + 32 int8 */
    [KVP__GGML_Q4_0] = {"Q4_0", 32, 18},     /* fp16 d + 16 B of nibbles */
    [KVP__GGML_Q4_1] = {"Q4_1", 32, 20},     /* fp16 d, m + 16 B */
    [KVP__GGML_Q5_0] = {"Q5_0", 32, 22},     /* fp16 d + 4 B high bits + 16 B */
    [KVP__GGML_Q5_1] = {"Q5_1", 32, 24},     /* fp16 d, m + 4 B + 16 B */
    [KVP__GGML_Q2_K] = {"Q2_K", 256, 84},    /* 16 B scales + 64 B qs + fp16 d, dmin */
    [KVP__GGML_Q3_K] = {"Q3_K", 256, 110},   /* 32 B hmask + 64 B qs + 12 B scales + d */
    [KVP__GGML_Q4_K] = {"Q4_K", 256, 144},   /* d, dmin + 12 B scales + 128 B qs */
    [KVP__GGML_Q5_K] = {"Q5_K", 256, 176},   /* d, dmin + 12 B + 32 B qh + 128 B qs */
    [KVP__GGML_Q6_K] = {"Q6_K", 256, 210},   /* 128 B ql + 64 B qh + 16 B scales + d */
    [KVP__GGML_IQ4_NL] = {"IQ4_NL", 32, 18}, /* fp16 d + 16 B */
    [KVP__GGML_IQ4_XS] = {"IQ4_XS", 256, 136}, /* d + 2 B scales_h + 4 B scales_l + 128 B */
    [KVP__GGML_IQ3_S] = {"IQ3_S", 256, 110},
    [KVP__GGML_IQ3_XXS] = {"IQ3_XXS", 256, 98},
    [KVP__GGML_IQ2_XXS] = {"IQ2_XXS", 256, 66},
    [KVP__GGML_IQ2_XS] = {"IQ2_XS", 256, 74},
    [KVP__GGML_IQ2_S] = {"IQ2_S", 256, 82},
    [KVP__GGML_IQ1_S] = {"IQ1_S", 256, 50},
    [KVP__GGML_IQ1_M] = {"IQ1_M", 256, 56},
};

/* llama.cpp file types `llama-quantize` writes (llama_ftype) that the
 * estimate models: the default tensor type and which mix rules apply
 * (memory_gguf.c). Lower-bit mixes (Q2_K, Q3_K_*, IQ1-IQ3) have rules per
 * tensor this estimate does not carry: refused by name. */
const kvp__gguf_ftype kvp__gguf_ftypes[] = {
    {"F32", KVP__GGML_F32, KVP__MIX_PLAIN},     {"F16", KVP__GGML_F16, KVP__MIX_PLAIN},
    {"BF16", KVP__GGML_BF16, KVP__MIX_PLAIN},   {"Q8_0", KVP__GGML_Q8_0, KVP__MIX_QUANT},
    {"Q6_K", KVP__GGML_Q6_K, KVP__MIX_QUANT},   {"Q5_K_M", KVP__GGML_Q5_K, KVP__MIX_K_M},
    {"Q5_K_S", KVP__GGML_Q5_K, KVP__MIX_QUANT}, {"Q5_1", KVP__GGML_Q5_1, KVP__MIX_QUANT},
    {"Q5_0", KVP__GGML_Q5_0, KVP__MIX_QUANT},   {"Q4_K_M", KVP__GGML_Q4_K, KVP__MIX_K_M},
    {"Q4_K_S", KVP__GGML_Q4_K, KVP__MIX_Q4_K_S}, {"Q4_1", KVP__GGML_Q4_1, KVP__MIX_QUANT},
    {"Q4_0", KVP__GGML_Q4_0, KVP__MIX_QUANT},   {"IQ4_XS", KVP__GGML_IQ4_XS, KVP__MIX_IQ4},
    {"IQ4_NL", KVP__GGML_IQ4_NL, KVP__MIX_IQ4},
};
const size_t kvp__gguf_ftype_count = sizeof kvp__gguf_ftypes / sizeof kvp__gguf_ftypes[0];

#define ONE KVP__RATE_ONE

/* Rate of `bits`-bit values with one fp16 scale and a packed zero point of
 * `bits` per `group` weights (AWQ and GPTQ checkpoints store both). */
static uint64_t grouped(uint64_t bits, uint64_t group) {
    return bits * ONE / 8 + 2 * ONE / group + bits * ONE / 8 / group;
}

typedef struct method_row {
    const char *name;
    const char *label;
    uint64_t rate;
    bool experts_only;
    const char *ckpt_prefix; /* a checkpoint of the same family: its label or method starts so */
} method_row;

static const method_row k_methods[] = {
    {"fp8", "fp8 (--quantization)", ONE, false, "fp8"},
    {"awq", "int4 group-128 (--quantization awq)", 0, false, "awq"},
    {"gptq", "int4 group-128 (--quantization gptq)", 0, false, "gptq"},
    {"mxfp4", "mxfp4 experts (--quantization)", ONE / 2 + ONE / 32, true, "mxfp4"},
    {"nvfp4", "nvfp4 (--quantization)", ONE / 2 + ONE / 16, false, "nvfp4"},
    {"bnb-4bit", "bnb-4bit (--quantization)", ONE / 2 + 4 * ONE / 64, false, "bnb-4bit"},
};

static void upper_copy(char *dst, size_t n, const char *src) {
    size_t i = 0;
    for (; src[i] && i + 1 < n; i++)
        dst[i] = (char)(src[i] >= 'a' && src[i] <= 'z' ? src[i] - 32 : src[i]);
    dst[i] = '\0';
}

kvp_status kvp_weight_format_parse(const char *text, kvp_weight_format *out, kvp_error *err) {
    if (!text || !out)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "quantization", "a name is required");
    memset(out, 0, sizeof *out);
    const char *name = !kvp__strcasecmp(text, "bitsandbytes") ? "bnb-4bit" : text;
    for (size_t i = 0; i < sizeof k_methods / sizeof k_methods[0]; i++) {
        const method_row *r = &k_methods[i];
        if (kvp__strcasecmp(name, r->name)) continue;
        kvp__strlcpy(out->name, r->name, sizeof out->name);
        kvp_weight_quant *q = &out->quant;
        q->state = KVP_WEIGHT_QUANT_MODELLED;
        kvp__strlcpy(q->method, r->name, sizeof q->method);
        kvp__strlcpy(q->label, r->label, sizeof q->label);
        q->rate_x65536 = r->rate ? r->rate : grouped(4, 128);
        if (r->experts_only)
            for (size_t k = 0; k < KVP_QUANT_CAT_COUNT; k++)
                q->excluded[k] = k != KVP_QUANT_CAT_EXPERTS;
        return KVP_OK;
    }
    char up[32];
    upper_copy(up, sizeof up, text);
    for (size_t i = 0; i < kvp__gguf_ftype_count; i++)
        if (!strcmp(up, kvp__gguf_ftypes[i].name)) {
            kvp__strlcpy(out->name, kvp__gguf_ftypes[i].name, sizeof out->name);
            out->gguf = true;
            out->gguf_ftype = (uint32_t)i;
            return KVP_OK;
        }
    return kvp__fail(err, KVP_INVALID_ARG, NULL, "quantization",
                     "unknown quantization '%.40s' (expected fp8, awq, gptq, mxfp4, nvfp4, "
                     "bnb-4bit, or a llama.cpp type: F16, BF16, Q8_0, Q6_K, Q5_K_M, Q5_K_S, "
                     "Q5_1, Q5_0, Q4_K_M, Q4_K_S, Q4_1, Q4_0, IQ4_XS, IQ4_NL)",
                     text);
}

kvp_status kvp_weight_format_for_model(const kvp_model *model, const char *text,
                                       kvp_weight_format *out, kvp_error *err) {
    const char *method = model ? kvp_model_get_info(model)->quant_method : "";
    if (text && *method && !kvp__strcasecmp(text, method)) {
        memset(out, 0, sizeof *out);
        return KVP_OK;
    }
    return kvp_weight_format_parse(text, out, err);
}

bool kvp__weight_format_same_family(const kvp_weight_format *f, const kvp_weight_quant *ckpt) {
    if (f->gguf || ckpt->state != KVP_WEIGHT_QUANT_MODELLED) return false;
    for (size_t i = 0; i < sizeof k_methods / sizeof k_methods[0]; i++) {
        const char *p = k_methods[i].ckpt_prefix;
        if (strcmp(f->name, k_methods[i].name)) continue;
        return !strncmp(ckpt->label, p, strlen(p)) || !strncmp(ckpt->method, p, strlen(p));
    }
    return false;
}

kvp_status kvp_ggml_type_bits(const char *name, double *out_bits, kvp_error *err) {
    char up[32];
    upper_copy(up, sizeof up, name ? name : "");
    for (int t = 0; t < KVP__GGML_COUNT; t++)
        if (!strcmp(up, kvp__ggml_types[t].name)) {
            if (out_bits)
                *out_bits = (double)kvp__ggml_types[t].type_size * 8.0 /
                            (double)kvp__ggml_types[t].block;
            return KVP_OK;
        }
    return kvp__fail(err, KVP_INVALID_ARG, NULL, "quantization",
                     "'%.40s' is not a ggml tensor type", name ? name : "");
}
