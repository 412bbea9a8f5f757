/* test_options.c — the one option table (kvplan/options.h): lookup by every
 * spelling, one message per error kind, the fields each row sets (tables of
 * cases), the engine a spelling chooses, contradictions named by both sides,
 * --engine-version, which commands take which rows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kvplan/options.h"
#include "options_struct.h" /* the fields the tests check (opaque to library users) */

static kvp_options *g_o;
static kvp_error g_err;

static int setup(void **state) {
    (void)state;
    g_o = kvp_options_new(KVP_COMMAND_PLAN);
    kvp_error_clear(&g_err);
    return g_o ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    kvp_options_free(g_o);
    return 0;
}

static kvp_status set(const char *name, const char *value) {
    kvp_error_clear(&g_err);
    return kvp_options_set(g_o, name, value, &g_err);
}

static void test_lookup_spellings(void **state) {
    (void)state;
    size_t sp = 99;
    const kvp_option *r = kvp_option_lookup("--max-seq-len", &sp);
    assert_non_null(r);
    assert_string_equal(r->field, "max_seq_len");
    assert_int_equal(sp, 0);
    /* Every engine's spelling and the JSON keys land on the same row. */
    const char *const same[] = {"--max-model-len", "--context-length", "--max_seq_len",
                                "max_seq_len", "max-seq-len", "MAX_SEQ_LEN", NULL};
    for (size_t i = 0; same[i]; i++) assert_ptr_equal(kvp_option_lookup(same[i], NULL), r);
    /* "--tp_size" (TRT-LLM) and "--tp-size" (SGLang) differ by '_' only: exact first. */
    const kvp_option *tp = kvp_option_lookup("--tp_size", &sp);
    assert_non_null(tp);
    assert_string_equal(tp->spellings[sp - 1].name, "--tp_size");
    assert_ptr_equal(kvp_option_lookup("--tp-size", &sp), tp);
    assert_string_equal(tp->spellings[sp - 1].name, "--tp-size");
    /* Short spellings match exactly only. */
    assert_non_null(kvp_option_lookup("-c", NULL));
    assert_null(kvp_option_lookup("c", NULL));
    assert_null(kvp_option_lookup("--no-such-option", NULL));
    assert_ptr_equal(kvp_option_for_field("max_seq_len"), r);
    assert_null(kvp_option_for_field("no_field"));
}

static void test_table_consistent(void **state) {
    (void)state;
    /* Row i has id i, a long name and a field; no spelling is two rows'. */
    assert_true(kvp_option_count() <= KVP_OPTIONS_MAX);
    for (size_t i = 0; i < kvp_option_count(); i++) {
        const kvp_option *r = kvp_option_at(i);
        assert_int_equal(r->id, (int)i);
        assert_true(!strncmp(r->name, "--", 2));
        assert_non_null(r->field);
        assert_non_null(r->help);
        assert_ptr_equal(kvp_option_lookup(r->name, NULL), r);
        for (size_t k = 0; k < KVP_OPTION_SPELLINGS_MAX && r->spellings[k].name; k++)
            assert_ptr_equal(kvp_option_lookup(r->spellings[k].name, NULL), r);
    }
    assert_null(kvp_option_at(kvp_option_count()));
}

/* ---------------------------------------------------------------- fields */

/* One (name, value) on fresh options and the settings field it must set, read
 * at its own width (bool, int32 / enum / uint32, uint64). */
typedef struct field_case {
    const char *name, *value;
    size_t offset, size; /* offsetof(kvp_options, field), sizeof field */
    int64_t want;
} field_case;

#define FIELD(member) offsetof(kvp_options, member), sizeof(((kvp_options *)0)->member)

static int64_t read_field(const kvp_options *o, size_t offset, size_t size) {
    const unsigned char *p = (const unsigned char *)o + offset;
    if (size == 1) return *(const bool *)(const void *)p;
    if (size == 4) {
        int32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    uint64_t v;
    memcpy(&v, p, 8);
    return (int64_t)v;
}

static const field_case k_fields[] = {
    {"--gpu-mem", "80GiB", FIELD(deployment.memory.total_bytes), 80ll << 30},     /* 80 x 2^30 */
    {"--activation-peak", "1.5GiB", FIELD(deployment.memory.activation_peak_bytes), 3ll << 29},
    {"--activation-peak", "1.5GiB", FIELD(deployment.memory.has_activation_peak), 1},
    {"--cuda-graph", "512MiB", FIELD(deployment.memory.cuda_graph_bytes), 512ll << 20},
    {"tp", "4", FIELD(deployment.point.tp), 4},          /* a JSON key: no dashes */
    {"tp", "4", FIELD(deployment.policy.tp), 4},
    {"--max-seq-len", "32k", FIELD(deployment.point.max_seq_len), 32768}, /* 32 x 1024 */
    {"--kv-manager", "v1", FIELD(deployment.kv.use_v2), -1},
    {"--no-enable-chunked-prefill", NULL, FIELD(startup.enable_chunked_prefill), 0},
    {"--trust-remote-code", "true", FIELD(startup.trust_remote_code), 1},
    {"--dtype", "bfloat16", FIELD(startup.dtype), KVP_RUN_DTYPE_BFLOAT16},
    {"--flash-attn", NULL, FIELD(deployment.policy.flash_attn), 1}, /* alone: on */
    /* The creator's rows (plan, policy trtllm). */
    {"--cp", "2", FIELD(deployment.trtllm.cp), 2},
    {"--helix", NULL, FIELD(deployment.trtllm.helix_cp), 1},
    {"--spec-mode", "mtp", FIELD(deployment.trtllm.spec_mode), KVP_SPEC_MTP},
    {"--max-draft-len", "4", FIELD(deployment.trtllm.max_draft_len), 4},
    {"--separate-draft-kv", NULL, FIELD(deployment.trtllm.separate_draft_kv_cache), 1},
    {"--separate-draft-kv", "false", FIELD(deployment.trtllm.separate_draft_kv_cache), -1},
    {"--sm-version", "100", FIELD(deployment.trtllm.sm_version), 100},
    {"--mla-workspace-rate", "1KiB", FIELD(deployment.trtllm.attention_workspace_bytes_per_token),
     1024},
    {"--max-gpu-total-bytes", "2GiB", FIELD(deployment.kv.max_gpu_total_bytes), 2ll << 30},
    {"--max-attention-window", "4096,8k", FIELD(deployment.kv.max_attention_window_count), 2},
    {"--max-attention-window", "4096,8k", FIELD(windows[1]), 8192},        /* 8 x 1024 */
    {"--enable-chunked-prefill", NULL, FIELD(deployment.trtllm.enable_chunked_prefill), 1},
    {"--mm-encoder-cache", "1MiB", FIELD(deployment.trtllm.mm_encoder_cache_active), 1},
    {"--mm-encoder-cache", "1MiB", FIELD(rules.has_mm), 1},
    {"--mm-tokens-per-item", "image=576,video=1024", FIELD(rules.mm_count), 2},
    {"--mm-tokens-per-item", "image=576,video=1024", FIELD(rules.mm[1].tokens_per_item), 1024},
    {"--lora-target-modules", "attn_q,attn_k,attn_v", FIELD(rules.lora.module_count), 3},
    {"--lora-rank", "0", FIELD(rules.has_lora), 1}, /* 0: the LoRA rule's own error, later */
    {"--kv-cache-compression", "triattention", FIELD(rules.compression.algorithm),
     KVP_COMPRESSION_TRIATTENTION},
    {"--kv-cache-compression", "triattention", FIELD(rules.compression.quant_nvfp4), 1},
    {"--device", "3", FIELD(device), 3},
    {"--device", "3", FIELD(probe), 1},             /* --device implies --probe */
    /* sim's spellings and rows. */
    {"--no-prefix-reuse", NULL, FIELD(deployment.kv.enable_block_reuse), 0},
    {"--no-chunked-prefill", NULL, FIELD(startup.enable_chunked_prefill), 0},
    {"--max-model-len", "4096", FIELD(deployment.point.max_seq_len), 4096},
    {"--blocks", "4294967294", FIELD(sim.blocks), 4294967294ll},         /* 2^32 - 2 */
    {"--recurrent-slots", "16", FIELD(sim.recurrent_slots), 16},
};

static void test_values_set_fields(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof k_fields / sizeof k_fields[0]; i++) {
        const field_case *c = &k_fields[i];
        kvp__options_init(g_o, KVP_COMMAND_PLAN);
        if (set(c->name, c->value) != KVP_OK) fail_msg("%s %s: %s", c->name, c->value, g_err.message);
        int64_t got = read_field(g_o, c->offset, c->size);
        if (got != c->want)
            fail_msg("%s %s: got %lld, expected %lld", c->name, c->value ? c->value : "",
                     (long long)got, (long long)c->want);
    }
    /* Fractions: [0, 1] for cross attention, (0, 1] elsewhere. */
    kvp__options_init(g_o, KVP_COMMAND_PLAN);
    assert_int_equal(set("--cross-kv-cache-fraction", "0"), KVP_OK);
    assert_true(g_o->deployment.kv.has_cross_kv_cache_fraction);
    assert_true(g_o->deployment.kv.cross_kv_cache_fraction == 0.0);
    assert_int_equal(set("--max-util-for-resume", "0.5"), KVP_OK);
    assert_true(g_o->deployment.trtllm.max_util_for_resume == 0.5);
    /* Names the creator's settings point at are borrowed from the value given. */
    const char *algo = "skip_softmax";
    assert_int_equal(set("--sparse-attention", algo), KVP_OK);
    assert_ptr_equal(g_o->deployment.trtllm.sparse_algorithm, algo);
    assert_int_equal(set("--draft", "eagle3-head"), KVP_OK);
    assert_string_equal(g_o->draft, "eagle3-head");
    /* --env repeats; others refuse a second value (test_twice_and_contradictions). */
    assert_int_equal(set("--env", "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1"), KVP_OK);
    assert_int_equal(set("--env", "A=2"), KVP_OK);
    assert_int_equal(g_o->startup.env_count, 2);
    assert_int_equal(set("tp", "4"), KVP_OK);
    assert_true(kvp_options_given(g_o, "--tp"));
    assert_false(kvp_options_given(g_o, "--pp"));
    assert_string_equal(kvp_options_typed(g_o, "--tp"), "tp");
}

/* ---------------------------------------------------------------- errors */

/* One message per kind, naming the option as spelled (err->key is it too). */
typedef struct error_case {
    const char *name, *value;
    kvp_status want;
    const char *message; /* NULL: the status only */
} error_case;

static const error_case k_errors[] = {
    {"--tp", NULL, KVP_INVALID_ARG, "--tp needs a value"},
    {"--tp", "0", KVP_INVALID_ARG, "--tp: 0 is out of range, expected 1 to 65536"},
    {"-tp", "x", KVP_INVALID_ARG, "-tp: count 'x' is not a number"},
    {"--gpu-mem", "0", KVP_INVALID_ARG, "--gpu-mem: 0 bytes; expected a positive size"},
    {"--weights", "-1GiB", KVP_INVALID_ARG, "--weights: byte size '-1GiB' is negative"},
    {"--gpu-memory-utilization", "1.5", KVP_INVALID_ARG,
     "--gpu-memory-utilization: 1.5 is not a fraction in (0, 1]"},
    {"--cross-kv-cache-fraction", "1.5", KVP_INVALID_ARG,
     "--cross-kv-cache-fraction: 1.5 is not a fraction in [0, 1]"},
    {"--kv-manager", "v3", KVP_INVALID_ARG, "--kv-manager: 'v3' is not one of auto, v1, v2"},
    {"--spec-mode", "medusa", KVP_INVALID_ARG,
     "--spec-mode: 'medusa' is not one of none, eagle3, mtp, two-model, draft-target, dflash, "
     "dspark"},
    {"--kv-cache-compression", "none", KVP_INVALID_ARG,
     "--kv-cache-compression: 'none' is not one of quantization_for_cold_page, triattention"},
    {"--enforce-eager", "maybe", KVP_INVALID_ARG, "--enforce-eager: 'maybe' is not true or false"},
    {"--kv-dtype", "fp8_e4m3_but_much_longer_than_23", KVP_INVALID_ARG,
     "--kv-dtype: 'fp8_e4m3_but_much_longer_than_23' is too long (at most 23 bytes)"},
    {"--sm-version", "60", KVP_INVALID_ARG, "--sm-version: 60 is out of range, expected 70 to 200"},
    {"--blocks", "0", KVP_INVALID_ARG, "--blocks: 0 is out of range, expected 1 to 4294967294"},
    {"--max-attention-window", "4096,,8", KVP_INVALID_ARG,
     "--max-attention-window: '4096,,8' is not a comma-separated list of up to 256 positive token "
     "counts"},
    {"--max-attention-window", "0", KVP_INVALID_ARG,
     "--max-attention-window: 0 is out of range, expected 1 to 4294967295"},
    {"--mm-tokens-per-item", "image", KVP_INVALID_ARG,
     "--mm-tokens-per-item: expected MODALITY=TOKENS[,MODALITY=TOKENS...] (at most 8), got 'image'"},
    {"--lora-target-modules", "attn_q,,attn_k", KVP_INVALID_ARG,
     "--lora-target-modules: expected 1 to 32 comma-separated names"},
    {"--dtype", "fp8", KVP_INVALID_ARG, NULL},
    {"--policy", "tgi", KVP_INVALID_ARG,
     "--policy: unknown engine 'tgi' (expected trtllm, vllm, sglang, llamacpp)"},
    {"--nope", "1", KVP_NOT_FOUND, "unknown option '--nope'"},
    /* 2^32 tokens is the bound; one above is refused. */
    {"--max-seq-len", "4294967297", KVP_INVALID_ARG, NULL},
    {"--max-seq-len", "4294967296", KVP_OK, NULL},
    /* Only vLLM's spelling takes -1 (the longest that fits). */
    {"--seq-len", "-1", KVP_INVALID_ARG, NULL},
    {"--max-model-len", "-1", KVP_OK, NULL},
};

static void test_error_kinds(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof k_errors / sizeof k_errors[0]; i++) {
        const error_case *c = &k_errors[i];
        kvp__options_init(g_o, KVP_COMMAND_PLAN);
        kvp_status st = set(c->name, c->value);
        if (st != c->want)
            fail_msg("%s %s: status %d, expected %d (%s)", c->name, c->value ? c->value : "",
                     (int)st, (int)c->want, g_err.message);
        if (c->message && strcmp(g_err.message, c->message))
            fail_msg("%s: '%s', expected '%s'", c->name, g_err.message, c->message);
        if (st != KVP_OK && strcmp(g_err.key, c->name))
            fail_msg("%s: key '%s'", c->name, g_err.key);
    }
}

static void test_twice_and_contradictions(void **state) {
    (void)state;
    assert_int_equal(set("--tp", "2"), KVP_OK);
    assert_int_equal(set("--tp", "4"), KVP_INVALID_ARG);
    assert_string_equal(g_err.message, "--tp given twice");
    assert_int_equal(set("-tp", "4"), KVP_INVALID_ARG);
    assert_string_equal(g_err.message, "-tp contradicts --tp: both set tp; give one");
    /* --gpu with --gpu-mem, --peak with --activation-peak: at finish, both named. */
    assert_int_equal(set("--gpu", "h100"), KVP_OK);
    assert_int_equal(set("--gpu-mem", "80GiB"), KVP_OK);
    assert_int_equal(kvp_options_finish(g_o, &g_err), KVP_INVALID_ARG);
    assert_string_equal(g_err.message,
                        "--gpu contradicts --gpu-mem: give --gpu or --gpu-mem, not both");
}

static void test_peak_pair(void **state) {
    (void)state;
    assert_int_equal(set("--peak", "20GiB"), KVP_OK);
    assert_int_equal(set("--activation-peak", "4GiB"), KVP_OK);
    assert_int_equal(kvp_options_finish(g_o, &g_err), KVP_INVALID_ARG);
    assert_string_equal(g_err.key, "--activation-peak");
}

static void test_engine_from_spelling(void **state) {
    (void)state;
    /* vLLM's --max-model-len without --policy: vLLM, said in the notes. */
    assert_int_equal(set("--max-model-len", "8192"), KVP_OK);
    assert_int_equal(set("--tp", "2"), KVP_OK); /* kvplan's name: no engine */
    assert_int_equal(kvp_options_finish(g_o, &g_err), KVP_OK);
    assert_int_equal(g_o->deployment.point.engine, KVP_ENGINE_VLLM);
    assert_int_equal(g_o->startup.policy.engine, KVP_ENGINE_VLLM);
    assert_int_equal(g_o->notes.count, 1);
    assert_non_null(strstr(g_o->notes.text[0], "--max-model-len is vLLM's flag"));
}

static void test_engine_spellings_conflict(void **state) {
    (void)state;
    assert_int_equal(set("--context-length", "8192"), KVP_OK); /* SGLang */
    assert_int_equal(set("-c", "8192"), KVP_OK);               /* llama.cpp */
    assert_int_equal(kvp_options_finish(g_o, &g_err), KVP_INVALID_ARG);
    assert_string_equal(g_err.message,
                        "--context-length is SGLang's flag and -c is llama.cpp's: give --policy to "
                        "say which engine");
}

static void test_policy_wins_and_ignored_warned(void **state) {
    (void)state;
    assert_int_equal(set("--policy", "trtllm"), KVP_OK);
    assert_int_equal(set("--max-model-len", "8192"), KVP_OK); /* read as max_seq_len */
    assert_int_equal(kvp_options_finish(g_o, &g_err), KVP_OK);
    assert_int_equal(g_o->deployment.point.engine, KVP_ENGINE_TRTLLM);
    assert_int_equal(g_o->deployment.point.max_seq_len, 8192);
    assert_int_equal(g_o->notes.count, 0);
    /* The vLLM fraction has no meaning under TRT-LLM: given directly, refused
     * naming both (issue 27), never a warning for something dropped. */
    assert_int_equal(set("--gpu-memory-utilization", "0.8"), KVP_OK);
    assert_int_equal(kvp_options_finish(g_o, &g_err), KVP_INVALID_ARG);
    assert_string_equal(g_err.key, "--gpu-memory-utilization");
    assert_string_equal(g_err.message,
                        "--gpu-memory-utilization has no meaning under TensorRT-LLM (policy "
                        "trtllm): TensorRT-LLM's fraction is --free-gpu-memory-fraction, of free "
                        "memory");
}

static void test_pasted_flag_warned(void **state) {
    (void)state;
    /* Inside a pasted engine command (--from) the flag is the engine's own: the
     * same setting is said, not refused. */
    assert_int_equal(set("--policy", "trtllm"), KVP_OK);
    assert_int_equal(set("--gpu-memory-utilization", "0.8"), KVP_OK);
    g_o->pasted[kvp_option_lookup("--gpu-memory-utilization", NULL)->id] = 1;
    assert_int_equal(kvp_options_finish(g_o, &g_err), KVP_OK);
    assert_int_equal(g_o->warnings.count, 1);
    assert_string_equal(g_o->warnings.text[0],
                        "--gpu-memory-utilization is not a TensorRT-LLM setting; policy trtllm "
                        "does not read it");
}

static void test_llamacpp_lengths(void **state) {
    (void)state;
    /* -c is llama.cpp's context of all slots, --max-seq-len one request's. */
    assert_int_equal(set("--policy", "llamacpp"), KVP_OK);
    assert_int_equal(set("-c", "8192"), KVP_OK);
    assert_int_equal(set("--max-seq-len", "4096"), KVP_OK);
    assert_int_equal(kvp_options_finish(g_o, &g_err), KVP_INVALID_ARG);
    assert_string_equal(g_err.message,
                        "--max-seq-len contradicts -c: both set the context (-c: all slots, "
                        "--max-seq-len: one request); give one");
}

static void test_release_lines(void **state) {
    (void)state;
    /* TensorRT-LLM releases: 0.x to 1.2.x are rule set 2025, 1.3.0rc0 on 2026
     * (STARTUP.md A.4); past 1.3.x the newest line, said. */
    static const struct {
        kvp_engine e;
        const char *v, *form, *line;
        uint32_t version;
        bool newer;
    } k[] = {
        {KVP_ENGINE_TRTLLM, "1.2.0rc4", "release", "2025", 10200, false},
        {KVP_ENGINE_TRTLLM, "0.20.0", "release", "2025", 2000, false},
        {KVP_ENGINE_TRTLLM, "1.1", "release", "2025", 10100, false},
        {KVP_ENGINE_TRTLLM, "1.2.0rc6.post3", "release", "2025", 10200, false},
        {KVP_ENGINE_TRTLLM, "1.3.0rc0", "release", "2026", 10300, false},
        {KVP_ENGINE_TRTLLM, "v1.3.0rc13", "release", "2026", 10300, false},
        {KVP_ENGINE_TRTLLM, "1.4.0", "release", "2026", 10400, true},
        {KVP_ENGINE_TRTLLM, "2025", "year", "2025", 0, false},
        {KVP_ENGINE_TRTLLM, "2026", "year", "2026", 0, false},
        {KVP_ENGINE_TRTLLM, "2027", "year", "2026", 0, true},
        {KVP_ENGINE_TRTLLM, "latest", "latest", "2026", 0, false},
        {KVP_ENGINE_VLLM, "0.12.0rc1.dev5+g1a2b3c4", "release", "v1-mid", 1200, false},
        {KVP_ENGINE_VLLM, "v0.11.0", "release", "v1-mid", 1100, false},
        {KVP_ENGINE_VLLM, "0.7.3", "release", "v0", 703, false},
        {KVP_ENGINE_VLLM, "0.24.0", "release", "v1-new", 2400, false},
        {KVP_ENGINE_VLLM, "0.30.1", "release", "v1-new", 3001, true},
        {KVP_ENGINE_VLLM, "2024", "year", "v0", 0, false},
        {KVP_ENGINE_VLLM, "v1-mid 0.9.1", "word", "v1-mid", 0, false},
        {KVP_ENGINE_SGLANG, "v0.4.9.post2", "release", "pre-11309", 409, false},
        {KVP_ENGINE_SGLANG, "0.5.4", "release", "post-11309", 504, false},
        {KVP_ENGINE_SGLANG, "2024", "year", "pre-11309", 0, false},
        {KVP_ENGINE_LLAMACPP, "b6000", "build", "pad-old", 0, false},
        {KVP_ENGINE_LLAMACPP, "version: 7445 (4b2a4778f)", "build", "pad256", 0, false},
        {KVP_ENGINE_LLAMACPP, "0.4.0", "release", "pad256", 400, false},
        {KVP_ENGINE_LLAMACPP, "2024", "year", "pad-old", 0, false},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        kvp_engine_release rel;
        kvp_error e;
        if (kvp_engine_release_resolve(k[i].e, k[i].v, &rel, &e) != KVP_OK)
            fail_msg("%s: %s", k[i].v, e.message);
        assert_string_equal(rel.form, k[i].form);
        assert_string_equal(rel.line, k[i].line);
        assert_int_equal(rel.version, k[i].version);
        assert_int_equal(rel.newer_than_known, k[i].newer);
    }
    /* No version at all: exit 2 listing the forms. */
    kvp_engine_release rel;
    kvp_error e;
    assert_int_equal(kvp_engine_release_resolve(KVP_ENGINE_TRTLLM, "banana", &rel, &e),
                     KVP_INVALID_ARG);
    assert_non_null(strstr(e.message, "a release (1.2.0rc4, 0.20.0, 1.1, v1.3.0)"));
    assert_int_equal(kvp_engine_release_resolve(KVP_ENGINE_VLLM, "foo1", &rel, &e), KVP_INVALID_ARG);
    assert_int_equal(kvp_engine_release_resolve(KVP_ENGINE_VLLM, "b6000", &rel, &e), KVP_INVALID_ARG);
    /* Through the options: the rule set the creator plans with, and the warning. */
    assert_int_equal(set("--engine-version", "1.2.0rc4"), KVP_OK);
    assert_int_equal(kvp_options_finish(g_o, &g_err), KVP_OK);
    assert_int_equal(g_o->deployment.trtllm.trtllm_rules, KVP_TRTLLM_RULES_2025);
    assert_int_equal(g_o->warnings.count, 0);
}

static void test_engine_version(void **state) {
    (void)state;
    kvp_error e;
    assert_int_equal(kvp_engine_version_check(KVP_ENGINE_VLLM, "0.9.1", &e), KVP_OK);
    assert_int_equal(kvp_engine_version_check(KVP_ENGINE_VLLM, "v1-mid", &e), KVP_OK);
    assert_int_equal(kvp_engine_version_check(KVP_ENGINE_LLAMACPP, "b7217 (77334097)", &e), KVP_OK);
    assert_int_equal(kvp_engine_version_check(KVP_ENGINE_SGLANG, "pre-11309", &e), KVP_OK);
    assert_int_equal(kvp_engine_version_check(KVP_ENGINE_TRTLLM, "2025", &e), KVP_OK);
    assert_int_equal(kvp_engine_version_check(KVP_ENGINE_TRTLLM, "1999", &e), KVP_INVALID_ARG);
    assert_int_equal(kvp_engine_version_check(KVP_ENGINE_VLLM, "banana", &e), KVP_INVALID_ARG);
    assert_string_equal(e.message,
                        "engine_version: 'banana' is not a vllm version kvplan knows; expected a "
                        "release (0.9.1, v0.11.0, 0.12.0rc1.dev5+g1a2b3c4), a year or date (2025, "
                        "2025-10-07), or v0, v1-jan25, v1-mid, v1-new, latest");
    /* Through the options: refused at finish, named by the option. */
    assert_int_equal(set("--policy", "vllm"), KVP_OK);
    assert_int_equal(set("--engine-version", "banana"), KVP_OK);
    assert_int_equal(kvp_options_finish(g_o, &g_err), KVP_INVALID_ARG);
    assert_string_equal(g_err.key, "--engine-version");
    assert_true(!strncmp(g_err.message, "--engine-version: 'banana' is not a vllm version", 48));
}

static void test_command_mask(void **state) {
    (void)state;
    /* Every row is some command's; the creator's rows are plan's only (fit,
     * sweep and compare search one pipeline without them), sim's pool rows are
     * sim's only, and sim takes only the rows its replay reads. */
    const kvp_option *cp = kvp_option_lookup("--cp", NULL);
    assert_int_equal(cp->commands, KVP_COMMAND_PLAN);
    assert_int_equal(kvp_option_lookup("--blocks", NULL)->commands, KVP_COMMAND_SIM);
    assert_true(kvp_option_lookup("--max-model-len", NULL)->commands & KVP_COMMAND_SIM);
    assert_false(kvp_option_lookup("--ctx-size", NULL)->commands & KVP_COMMAND_SIM);
    for (size_t i = 0; i < kvp_option_count(); i++) {
        const kvp_option *r = kvp_option_at(i);
        assert_true(r->commands != 0);
        /* A row fit reads is plan's too: plan answers every question fit asks. */
        if (r->commands & KVP_COMMAND_FIT) assert_true(r->commands & KVP_COMMAND_PLAN);
        if (!(r->commands & KVP_COMMAND_PLAN)) assert_int_equal(r->commands, KVP_COMMAND_SIM);
    }
}

static void test_trtllm_flags_say_nothing(void **state) {
    (void)state;
    /* TensorRT-LLM is the default: its own flags choose it without a note. */
    assert_int_equal(set("--max-batch-size", "64"), KVP_OK);
    assert_int_equal(set("--cp", "2"), KVP_OK);
    assert_int_equal(kvp_options_finish(g_o, &g_err), KVP_OK);
    assert_int_equal(g_o->deployment.point.engine, KVP_ENGINE_TRTLLM);
    assert_int_equal(g_o->notes.count, 0);
    assert_int_equal(g_o->warnings.count, 0);
}

/* The accessors of the opaque set (kvplan/options.h) return the set's own
 * fields: borrowed pointers into it, the --gpu / --draft values as given. */
static void test_accessors(void **state) {
    (void)state;
    assert_int_equal(kvp_options_command(g_o), KVP_COMMAND_PLAN);
    assert_null(kvp_options_gpu(g_o));
    assert_null(kvp_options_draft(g_o));
    assert_int_equal(kvp_options_gpus(g_o), 0);
    const char *gpu = "H100", *draft = "eagle-head";
    assert_int_equal(set("--gpu", gpu), KVP_OK);
    assert_int_equal(set("--draft", draft), KVP_OK);
    assert_int_equal(set("--gpus", "4"), KVP_OK);
    assert_int_equal(set("--policy", "trtllm"), KVP_OK); /* --draft is TensorRT-LLM's */
    assert_int_equal(set("--max-seq-len", "8192"), KVP_OK);
    assert_int_equal(kvp_options_finish(g_o, &g_err), KVP_OK);
    assert_ptr_equal(kvp_options_gpu(g_o), gpu);     /* borrowed, not copied */
    assert_ptr_equal(kvp_options_draft(g_o), draft);
    assert_int_equal(kvp_options_gpus(g_o), 4);
    assert_ptr_equal(kvp_options_deployment(g_o), &g_o->deployment);
    assert_ptr_equal(kvp_options_startup(g_o), &g_o->startup);
    assert_ptr_equal(kvp_options_notes(g_o), &g_o->notes);
    assert_ptr_equal(kvp_options_warnings(g_o), &g_o->warnings);
    /* --policy chose the engine: nothing to note, nothing to warn. */
    assert_int_equal(kvp_options_deployment(g_o)->point.engine, KVP_ENGINE_TRTLLM);
    assert_int_equal(kvp_options_deployment(g_o)->point.max_seq_len, 8192);
    assert_int_equal(kvp_options_startup(g_o)->policy.engine, KVP_ENGINE_TRTLLM);
    assert_int_equal(kvp_options_notes(g_o)->count, 0);
    assert_int_equal(kvp_options_warnings(g_o)->count, 0);
    /* --max-model-len alone is vLLM's flag: it chooses vLLM, said in one note
     * (examples/options.c shows the same). */
    kvp_options *o = kvp_options_new(KVP_COMMAND_PLAN);
    assert_non_null(o);
    assert_int_equal(kvp_options_set(o, "--max-model-len", "4096", &g_err), KVP_OK);
    assert_int_equal(kvp_options_finish(o, &g_err), KVP_OK);
    assert_int_equal(kvp_options_deployment(o)->point.engine, KVP_ENGINE_VLLM);
    assert_int_equal(kvp_options_notes(o)->count, 1);
    assert_non_null(strstr(kvp_options_notes(o)->text[0], "planning for vLLM"));
    kvp_options_free(o);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_lookup_spellings, setup, teardown),
        cmocka_unit_test_setup_teardown(test_table_consistent, setup, teardown),
        cmocka_unit_test_setup_teardown(test_values_set_fields, setup, teardown),
        cmocka_unit_test_setup_teardown(test_error_kinds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_twice_and_contradictions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_peak_pair, setup, teardown),
        cmocka_unit_test_setup_teardown(test_engine_from_spelling, setup, teardown),
        cmocka_unit_test_setup_teardown(test_engine_spellings_conflict, setup, teardown),
        cmocka_unit_test_setup_teardown(test_policy_wins_and_ignored_warned, setup, teardown),
        cmocka_unit_test_setup_teardown(test_engine_version, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pasted_flag_warned, setup, teardown),
        cmocka_unit_test_setup_teardown(test_llamacpp_lengths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_release_lines, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command_mask, setup, teardown),
        cmocka_unit_test_setup_teardown(test_trtllm_flags_say_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_accessors, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
