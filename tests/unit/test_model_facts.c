/* test_model_facts.c — the facts the model reads once with its config
 * (kvp_model_get_facts), the Python-literal rule, nested wrappers, facts of a
 * model without a config, sub-configs, and the one-parse-per-load counters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kvplan/kvplan.h"
#include "model/model_internal.h"
#include "util.h"
#include "plan_rules.h"

/* The embedded config `file` (data/models/) as a NUL-terminated copy; free(). */
static char *read_data(const char *file) {
    char path[512];
    snprintf(path, sizeof path, "%s/data/models/%s", KVP_SOURCE_DIR, file);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = calloc(KVP_MAX_CONFIG_BYTES + 1, 1);
    assert_non_null(buf);
    size_t n = fread(buf, 1, KVP_MAX_CONFIG_BYTES, f);
    fclose(f);
    assert_true(n > 0 && n < KVP_MAX_CONFIG_BYTES);
    return buf;
}

/* `text` with `extra` ("\"x\": NaN") added as the last member of the outer object. */
static char *with_member(const char *text, const char *extra) {
    const char *end = strrchr(text, '}');
    assert_non_null(end);
    size_t head = (size_t)(end - text);
    char *out = malloc(head + strlen(extra) + 8);
    assert_non_null(out);
    memcpy(out, text, head);
    sprintf(out + head, ", %s}\n", extra);
    return out;
}

static kvp_model *from_text(const char *text) {
    kvp_model *m = NULL;
    kvp_error err;
    kvp_status st = kvp_model_from_hf_json(text, strlen(text), "t.json", NULL, &m, &err);
    if (st) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(st, KVP_OK);
    return m;
}

/* Whisper large-v3: decoder_layers 32, encoder_attention_heads 20 (also the
 * KV heads: no encoder_num_kv_heads), d_model 1280, no head size key (the
 * creator then takes 1280 / 20 = 64), no encoder input limit key. */
static void assert_whisper_encoder(const kvp_model *m) {
    const kvp_encoder_facts *e = &kvp_model_get_facts(m)->encoder;
    assert_int_equal(e->decoder_layers.state, KVP_FACT_STATED);
    assert_int_equal(e->decoder_layers.value, 32);
    assert_int_equal(e->heads.value, 20);
    assert_int_equal(e->kv_heads.value, 20);
    assert_int_equal(e->hidden_size.value, 1280);
    assert_int_equal(e->head_dim.state, KVP_FACT_ABSENT);
    assert_int_equal(e->max_input_len.state, KVP_FACT_ABSENT);
    const kvp_weight_facts *w = &kvp_model_get_facts(m)->weights;
    assert_int_equal(w->num_mel_bins, 128);
    assert_int_equal(w->max_target_positions, 448);
    assert_int_equal(w->max_source_positions, 1500);
    assert_int_equal(w->encoder_ffn, 5120);
    assert_true(w->tied_embeddings);
    assert_false(w->gated_mlp); /* Whisper's MLP has no gate */
}

/* A NaN / Infinity in a key kvplan does not read changes nothing; the cross
 * geometry of the creator reads the same (issue 12: "x": NaN made plan fail). */
static void test_literals_in_unread_keys(void **state) {
    (void)state;
    char *text = read_data("openai__whisper-large-v3.json");
    kvp_model *plain = from_text(text);
    char *nan_text = with_member(text, "\"x\": NaN, \"y\": [Infinity, -Infinity]");
    kvp_model *nan = from_text(nan_text);
    assert_whisper_encoder(plain);
    assert_whisper_encoder(nan);
    kvp_cross_geometry a, b;
    assert_int_equal(kvp_cross_geometry_from_model(plain, 4096, 0, &a, NULL), KVP_OK);
    assert_int_equal(kvp_cross_geometry_from_model(nan, 4096, 0, &b, NULL), KVP_OK);
    assert_int_equal(a.num_layers, 32);
    assert_int_equal(a.head_dim, 64);
    assert_memory_equal(&a, &b, sizeof a);
    kvp_model_free(plain);
    kvp_model_free(nan);
    free(nan_text);
    free(text);
}

/* A key kvplan reads that holds a literal is refused at load, naming it. */
static void test_literals_in_read_keys(void **state) {
    (void)state;
    char *text = read_data("meta-llama__Llama-3.1-8B.json");
    static const struct {
        const char *from, *to, *key, *word;
    } k_cases[] = {
        /* the weights estimate's key: before, a NaN read as 0 there */
        {"\"intermediate_size\": 14336", "\"intermediate_size\": NaN", "/intermediate_size",
         "NaN"},
        /* a cache key */
        {"\"num_hidden_layers\": 32", "\"num_hidden_layers\": Infinity", "/num_hidden_layers",
         "Infinity"},
        /* a creator key (Gemma 4 per-layer heads, read for every model) */
        {"\"num_hidden_layers\": 32", "\"num_hidden_layers\": 32, \"attention_k_eq_v\": NaN",
         "/attention_k_eq_v", "NaN"},
    };
    for (size_t i = 0; i < sizeof k_cases / sizeof k_cases[0]; i++) {
        const char *at = strstr(text, k_cases[i].from);
        assert_non_null(at);
        size_t head = (size_t)(at - text), from_len = strlen(k_cases[i].from);
        char *bad = malloc(strlen(text) + strlen(k_cases[i].to) + 1);
        assert_non_null(bad);
        memcpy(bad, text, head);
        strcpy(bad + head, k_cases[i].to);
        strcat(bad, at + from_len);
        kvp_model *m = NULL;
        kvp_error err;
        memset(&err, 0x5A, sizeof err);
        assert_int_equal(kvp_model_from_hf_json(bad, strlen(bad), "t.json", NULL, &m, &err),
                         KVP_CONFIG);
        assert_null(m);
        assert_string_equal(err.key, k_cases[i].key);
        assert_non_null(strstr(err.message, k_cases[i].word));
        free(bad);
    }
    free(text);
}

/* The language model nested two wrappers deep reads as the plain one. */
static void test_nested_wrappers(void **state) {
    (void)state;
    char *text = read_data("meta-llama__Llama-3.1-8B.json");
    char *nested = malloc(strlen(text) + 200);
    assert_non_null(nested);
    sprintf(nested,
            "{\"architectures\": [\"Qwen2_5OmniModel\"], \"model_type\": \"qwen2_5_omni\","
            " \"thinker_config\": {\"text_config\": %s}}",
            text);
    kvp_model *plain = from_text(text), *wrapped = from_text(nested);
    const kvp_weight_facts *a = &kvp_model_get_facts(plain)->weights;
    const kvp_weight_facts *b = &kvp_model_get_facts(wrapped)->weights;
    /* Llama-3.1-8B: hidden 4096, vocab 128256, intermediate 14336 on every layer. */
    assert_int_equal(a->hidden_size, 4096);
    assert_int_equal(b->hidden_size, 4096);
    assert_int_equal(b->vocab_size, 128256);
    assert_int_equal(b->layer_count, 32);
    assert_int_equal(b->layers[31].kind, KVP_FFN_DENSE);
    assert_int_equal(b->layers[31].dense_inter, 14336);
    assert_int_equal(a->layers[31].dense_inter, 14336);
    assert_int_equal(kvp_model_get_facts(wrapped)->seed_num_experts, 1);
    /* both sub-configs of the wrapper are kept, the inner one by its pointer */
    const kvp_subconfig_facts *s = kvp_model_subconfig(wrapped, "/thinker_config/text_config");
    assert_non_null(s);
    assert_int_equal(s->num_key_value_heads.kind, KVP_CONFIG_VALUE_INTEGER);
    assert_int_equal(s->num_key_value_heads.integer, 8);
    assert_non_null(kvp_model_subconfig(wrapped, "/thinker_config"));
    assert_null(kvp_model_subconfig(wrapped, "/talker_config"));
    kvp_model_free(plain);
    kvp_model_free(wrapped);
    free(nested);
    free(text);
}

/* Mixtral 8x7B: 8 experts of 14336, top-2, every layer MoE; Qwen3-32B-FP8:
 * fp8 with one fp32 scale per 128x128 block = 65536 + 4 * 65536 / 16384 = 65552
 * (x 1/65536 B per weight); Qwen3.5: its own 64 layer_types (every 4th full). */
static void test_weights_and_schedules(void **state) {
    (void)state;
    kvp_model *m = NULL;
    assert_int_equal(kvp_model_from_catalog("mixtral-8x7b-v0.1", NULL, &m, NULL), KVP_OK);
    const kvp_weight_facts *w = &kvp_model_get_facts(m)->weights;
    assert_int_equal(w->num_experts, 8);
    assert_int_equal(w->experts_per_token, 2);
    assert_int_equal(w->expert_inter, 14336);
    assert_int_equal(w->layers[0].kind, KVP_FFN_MOE);
    assert_int_equal(w->layers[31].kind, KVP_FFN_MOE);
    assert_int_equal(w->quant.state, KVP_WEIGHT_QUANT_NONE);
    assert_int_equal(kvp_model_get_facts(m)->seed_num_experts, 8); /* num_local_experts */
    kvp_model_free(m);
    assert_int_equal(kvp_model_from_catalog("qwen3-32b-fp8", NULL, &m, NULL), KVP_OK);
    const kvp_weight_quant *q = &kvp_model_get_facts(m)->weights.quant;
    assert_int_equal(q->state, KVP_WEIGHT_QUANT_MODELLED);
    assert_string_equal(q->method, "fp8");
    assert_string_equal(q->label, "fp8 block-128x128");
    assert_int_equal(q->rate_x65536, 65552);
    kvp_model_free(m);
    assert_int_equal(kvp_model_from_catalog("qwen3.5-27b", NULL, &m, NULL), KVP_OK);
    const kvp_model_facts *f = kvp_model_get_facts(m);
    assert_false(f->layer_types_derived);
    assert_int_equal(f->layer_types_count, 64);
    assert_int_equal(f->layer_types[2], KVP_LAYER_TYPE_LINEAR);
    assert_int_equal(f->layer_types[3], KVP_LAYER_TYPE_FULL);
    assert_string_equal(f->mamba_ssm_dtype, "float32");
    assert_true(f->states_attention_layout);
    kvp_model_free(m);
}

/* A geometry model (GGUF rules) has no config: config-only facts are unknown,
 * never a 0 that would read as "stated 0". */
static void test_facts_without_config(void **state) {
    (void)state;
    const char *g = "{\"arch\": \"llama\", \"block_count\": 4, \"embedding_length\": 512,"
                    " \"head_count\": 8, \"head_count_kv\": 2, \"key_length\": 64,"
                    " \"value_length\": 64, \"context_length\": 2048}";
    kvp_model *m = NULL;
    assert_int_equal(kvp_model_from_geometry_json(g, strlen(g), "g.json", NULL, &m, NULL), KVP_OK);
    const kvp_model_facts *f = kvp_model_get_facts(m);
    assert_false(f->from_config);
    assert_int_equal(f->encoder.decoder_layers.state, KVP_FACT_UNKNOWN);
    assert_int_equal(f->block_configs.state, KVP_FACT_UNKNOWN);
    assert_int_equal(f->index_head_dim.state, KVP_FACT_UNKNOWN);
    assert_int_equal(f->head_dim.state, KVP_FACT_UNKNOWN);
    assert_int_equal(f->layer_types_count, 0);
    assert_int_equal(f->seed_num_experts, 1);
    assert_int_equal(f->weights.hidden_size, 512); /* embedding_length */
    assert_int_equal(f->weights.layer_count, 4);
    assert_null(kvp_model_subconfig(m, ""));
    kvp_model_free(m);
}

/* One config parse per model load, whatever the reader. */
static void test_one_parse_per_load(void **state) {
    (void)state;
    uint64_t p0 = kvp__model_config_parse_count(), l0 = kvp__model_load_count();
    kvp_model *m = NULL;
    assert_int_equal(kvp_model_from_catalog("llama-3.1-8b", NULL, &m, NULL), KVP_OK);
    assert_int_equal(kvp__model_config_parse_count() - p0, 1);
    assert_int_equal(kvp__model_load_count() - l0, 1);
    /* Reading every fact and planning reads no text again. */
    uint64_t bytes = 0;
    assert_int_equal(kvp_weights_estimate(m, KVP_DTYPE_AUTO, &bytes, NULL), KVP_OK);
    assert_int_equal(kvp__model_config_parse_count() - p0, 1);
    kvp_model_free(m);
    const char *g = "{\"arch\": \"llama\", \"block_count\": 2, \"head_count_kv\": 2,"
                    " \"key_length\": 64, \"value_length\": 64}";
    assert_int_equal(kvp_model_from_geometry_json(g, strlen(g), "g.json", NULL, &m, NULL), KVP_OK);
    assert_int_equal(kvp__model_config_parse_count() - p0, 2);
    assert_int_equal(kvp__model_load_count() - l0, 2);
    kvp_model_free(m);
    /* A text that does not parse: one parse, no load. */
    assert_int_equal(kvp_model_from_hf_json("{", 1, "bad.json", NULL, &m, NULL), KVP_SYNTAX);
    assert_int_equal(kvp__model_config_parse_count() - p0, 3);
    assert_int_equal(kvp__model_load_count() - l0, 2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_literals_in_unread_keys),
        cmocka_unit_test(test_literals_in_read_keys),
        cmocka_unit_test(test_nested_wrappers),
        cmocka_unit_test(test_weights_and_schedules),
        cmocka_unit_test(test_facts_without_config),
        cmocka_unit_test(test_one_parse_per_load),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
