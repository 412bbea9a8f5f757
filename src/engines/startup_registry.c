/*
 * startup_registry.c — custom code (V-MOD-2, S-MOD-1): which model types each
 * engine registers itself, by release, so that a config's `auto_map` without
 * --trust-remote-code is refused only where neither the engine nor its
 * Transformers knows the type (STARTUP.md A.1).
 *
 * Configs go through Transformers' AutoConfig except the types the engine owns:
 *   vLLM   vllm/transformers_utils/config.py : _CONFIG_REGISTRY (get_config 2025,
 *          HFConfigParser.parse 2026), STARTUP.md V-MOD-3;
 *   SGLang hf_transformers_utils.py (srt/, srt/utils/ by Oct 2025): its config
 *          classes registered with AutoConfig at import, STARTUP.md S-MOD-2.
 * With the flag off Transformers uses its own class for a type it knows despite
 * `auto_map`, so only the types Transformers lacks (k_remote_only) can refuse.
 *
 * Each row is one type and the releases the engine's registry was read at:
 * `since` the first read release listing it, `absent` the last read release
 * before it not listing it (0: listed at the oldest read), `last` the last read
 * release listing it and `gone` the first read release after it no longer
 * listing it (both 0: still listed at the newest read). Registered in [since,
 * last], not in ..absent] and [gone..; below the oldest read and between two
 * reads nothing was read: the rule warns, never refuses.
 */
#include <string.h>

#include "startup_internal.h"

#define V(x, y, z) ((x) * 10000u + (y) * 100u + (z))
#define LATEST 0xffffffffu

typedef struct reg_row {
    const char *type;
    uint32_t absent, since, last, gone;
} reg_row;

/* vLLM's _CONFIG_REGISTRY read at ~0.7 (@e23031f, Q1 2025), ~0.11 (late 2025,
 * copy), 0.15.1 (copy) and >= 0.24 (@0036026, 2026): STARTUP.md V-MOD-3. Only the
 * types a Transformers of the time may lack matter here; the rest pass anyway. */
static const reg_row k_vllm[] = {
    {"chatglm", 0, V(0, 7, 0), 0, 0},
    {"internvl_chat", 0, V(0, 7, 0), V(0, 7, 0), V(0, 11, 0)},
    {"h2ovl_chat", 0, V(0, 7, 0), V(0, 7, 0), V(0, 11, 0)},
    {"NVLM_D", 0, V(0, 7, 0), V(0, 7, 0), V(0, 11, 0)},
    {"telechat", 0, V(0, 7, 0), V(0, 7, 0), V(0, 11, 0)},
    {"RefinedWeb", 0, V(0, 7, 0), 0, 0},
    {"RefinedWebModel", 0, V(0, 7, 0), 0, 0},
    {"jais", 0, V(0, 7, 0), V(0, 15, 1), V(0, 24, 0)},
    {"exaone", 0, V(0, 7, 0), V(0, 7, 0), V(0, 11, 0)},
    {"deepseek_vl_v2", 0, V(0, 7, 0), V(0, 15, 1), V(0, 24, 0)},
    {"deepseek_v32", V(0, 7, 0), V(0, 11, 0), 0, 0},
    {"kimi_linear", V(0, 7, 0), V(0, 11, 0), 0, 0},
    {"kimi_vl", V(0, 7, 0), V(0, 11, 0), V(0, 15, 1), V(0, 24, 0)},
    {"qwen3_next", V(0, 7, 0), V(0, 11, 0), 0, 0},
    {"lfm2_moe", V(0, 7, 0), V(0, 11, 0), 0, 0},
    {"step3_text", V(0, 7, 0), V(0, 11, 0), 0, 0},
    {"step3_vl", V(0, 7, 0), V(0, 11, 0), V(0, 15, 1), V(0, 24, 0)},
    {"ovis", V(0, 7, 0), V(0, 11, 0), V(0, 15, 1), V(0, 24, 0)},
    {"afmoe", V(0, 11, 0), V(0, 15, 1), 0, 0},
    {"hunyuan_vl", V(0, 11, 0), V(0, 15, 1), V(0, 15, 1), V(0, 24, 0)},
    {"kimi_k25", V(0, 11, 0), V(0, 15, 1), 0, 0},
    {"step3p5", V(0, 11, 0), V(0, 15, 1), 0, 0},
    {"kimi_k2", V(0, 15, 1), V(0, 24, 0), 0, 0},
    {"deepseek_v4", V(0, 15, 1), V(0, 24, 0), 0, 0},
    {"kimi_k3", V(0, 15, 1), V(0, 24, 0), 0, 0},
    {"hy_v3", V(0, 15, 1), V(0, 24, 0), 0, 0},
    {"minimax_m3_mtp", V(0, 15, 1), V(0, 24, 0), 0, 0},
    {"qwen3_5", V(0, 15, 1), V(0, 24, 0), 0, 0},
    {"qwen3_5_text", V(0, 15, 1), V(0, 24, 0), 0, 0},
    {"qwen3_5_moe", V(0, 15, 1), V(0, 24, 0), 0, 0},
    {"qwen3_5_moe_text", V(0, 15, 1), V(0, 24, 0), 0, 0},
};

/* SGLang's registered config classes read in 2024 (@80a9054), Oct 2025 (@2aa2e2d),
 * Nov-Dec 2025 and early 2026 (copies): STARTUP.md S-MOD-2. The dates are taken
 * as the releases of that time [inferred]: 2024 up to 0.4.0, Oct 2025 0.5.4,
 * Nov-Dec 2025 0.5.6, early 2026 0.5.8. */
static const reg_row k_sglang[] = {
    {"chatglm", 0, V(0, 4, 0), 0, 0},
    {"dbrx", 0, V(0, 4, 0), 0, 0},
    {"exaone", 0, V(0, 4, 0), 0, 0},
    {"qwen2_vl", 0, V(0, 4, 0), 0, 0},
    {"deepseek_vl_v2", V(0, 4, 0), V(0, 5, 4), 0, 0},
    {"multi_modality", V(0, 4, 0), V(0, 5, 4), 0, 0},
    {"kimi_vl", V(0, 4, 0), V(0, 5, 4), 0, 0},
    {"internvl_chat", V(0, 4, 0), V(0, 5, 4), 0, 0},
    {"step3_vl", V(0, 4, 0), V(0, 5, 4), 0, 0},
    {"longcat_flash", V(0, 4, 0), V(0, 5, 4), 0, 0},
    {"olmo3", V(0, 4, 0), V(0, 5, 4), 0, 0},
    {"qwen3_next", V(0, 4, 0), V(0, 5, 4), 0, 0},
    {"falcon_h1", V(0, 4, 0), V(0, 5, 4), 0, 0},
    {"dots_vlm", V(0, 4, 0), V(0, 5, 4), 0, 0},
    {"dots_ocr", V(0, 4, 0), V(0, 5, 4), 0, 0},
    {"nemotron_h", V(0, 4, 0), V(0, 5, 4), 0, 0},
    {"kimi_linear", V(0, 5, 4), V(0, 5, 6), 0, 0},
    {"jet_nemotron", V(0, 5, 4), V(0, 5, 6), 0, 0},
    {"jet_vlm", V(0, 5, 4), V(0, 5, 6), 0, 0},
    {"afmoe", V(0, 5, 6), V(0, 5, 8), 0, 0},
    {"bailing_hybrid", V(0, 5, 6), V(0, 5, 8), 0, 0},
    {"granitemoehybrid", V(0, 5, 6), V(0, 5, 8), 0, 0},
    {"qwen3_5", V(0, 5, 6), V(0, 5, 8), 0, 0},
    {"qwen3_5_moe", V(0, 5, 6), V(0, 5, 8), 0, 0},
    {"kimi_k25", V(0, 5, 6), V(0, 5, 8), 0, 0},
    {"step3p5", V(0, 5, 6), V(0, 5, 8), 0, 0},
};

/* Model types Transformers and the engines load only as custom code (threads:
 * ChatGLM, Qwen v1, InternVL2, Nemotron-H in 2026; Baichuan): with `auto_map`
 * and without --trust-remote-code they are refused unless the engine registers
 * them at that release. */
static bool remote_only(const char *mt) {
    static const char *const k[] = {"chatglm", "qwen", "internvl_chat", "nemotron_h", "baichuan"};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        if (strcmp(mt, k[i]) == 0) return true;
    return false;
}

typedef enum reg_state { REG_NO = 0, REG_YES, REG_UNREAD } reg_state;

/* Whether `engine` registers `mt` at `version` (0 = latest). */
static reg_state registered(kvp_engine engine, const char *mt, uint32_t version,
                            const char **what) {
    const reg_row *t = NULL;
    size_t n = 0;
    if (engine == KVP_ENGINE_VLLM) {
        t = k_vllm;
        n = sizeof k_vllm / sizeof k_vllm[0];
        *what = "vLLM's _CONFIG_REGISTRY (vllm/transformers_utils/config.py)";
    } else if (engine == KVP_ENGINE_SGLANG) {
        t = k_sglang;
        n = sizeof k_sglang / sizeof k_sglang[0];
        *what = "SGLang's registered configs (hf_transformers_utils.py)";
    }
    uint32_t v = version ? version : LATEST;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(t[i].type, mt) != 0) continue;
        const reg_row *x = &t[i];
        if (x->gone && v >= x->gone) return REG_NO;
        if (v >= x->since && (!x->last || v / 100 <= x->last / 100)) return REG_YES; /* last: its minor series */
        if (x->absent && v <= x->absent) return REG_NO;
        return REG_UNREAD; /* below the oldest read, or between two reads */
    }
    return REG_NO;
}

void kvp__startup_remote_code(kvp__startup_ctx *c, kvp_check_row *r, const char *engine_msg) {
    const char *mt = c->info->model_type;
    if (!c->facts->has_auto_map || c->s->trust_remote_code) {
        kvp__check_set(r, KVP_CHECK_PASS, "", "%s", c->facts->has_auto_map
                                                        ? "custom code trusted (--trust-remote-code)"
                                                        : "no custom code (no auto_map)");
        return;
    }
    const char *what = "";
    reg_state reg = registered(c->s->policy.engine, mt, c->version, &what);
    if (reg == REG_YES) {
        kvp__check_set(r, KVP_CHECK_PASS, "",
                       "the config names custom code (auto_map), but %s has model_type '%s' at "
                       "this release: loaded with the engine's own class, no custom code",
                       what, mt);
    } else if (remote_only(mt) && reg == REG_NO) {
        kvp__check_set(r, KVP_CHECK_REFUSE, "--trust-remote-code", "%s", engine_msg);
    } else if (remote_only(mt)) {
        kvp__check_set(r, KVP_CHECK_WARN, "--trust-remote-code",
                       "the config names custom code (auto_map) and Transformers lacks model_type "
                       "'%s'; whether %s has it at this release was not read: pass "
                       "--trust-remote-code if the engine asks for it",
                       mt, what);
    } else {
        kvp__check_set(r, KVP_CHECK_WARN, "--trust-remote-code",
                       "the config names custom code (auto_map); without --trust-remote-code it "
                       "loads only if this Transformers build knows model_type '%s'",
                       mt);
    }
}
