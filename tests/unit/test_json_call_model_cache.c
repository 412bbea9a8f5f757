/* test_json_call_model_cache.c — a repeated kvp_json_call request reuses the
 * model it parsed (issue 27 item 8; src/bind/request_model.c), and never a
 * stale one: a catalogue name is parsed once, an inline config once per text,
 * and a config file again when it changes (mtime, size). The answers stay
 * byte for byte those of a fresh parse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "kvplan/kvplan.h"
#include "kvplan/json.h"
#include "model/model_internal.h"

static char *call(const char *command, const char *request) {
    char *out = NULL;
    kvp_error err;
    if (kvp_json_call(command, request, &out, &err) != KVP_OK)
        fail_msg("%s %s: %s", command, request, err.message);
    return out;
}

static uint64_t tokens_of(const char *doc) {
    json_t *j = json_loads(doc, 0, NULL);
    assert_non_null(j);
    uint64_t t = (uint64_t)json_integer_value(json_object_get(json_object_get(j, "capacity"), "tokens"));
    json_decref(j);
    return t;
}

static void test_catalogue_name_parsed_once(void **state) {
    (void)state;
    const char *req = "{\"model\": \"qwen3-32b\", \"kv_budget\": \"20GiB\", \"policy\": \"vllm\", "
                      "\"max_model_len\": 4096}";
    char *first = call("plan", req);
    uint64_t p0 = kvp__model_config_parse_count();
    char *again = call("plan", req);
    assert_int_equal(kvp__model_config_parse_count() - p0, 0); /* the parsed model reused */
    assert_string_equal(first, again);
    /* The same model under another command and settings: still no parse. */
    kvp_json_free(call("plan", "{\"model\": \"qwen3-32b\", \"kv_budget\": \"20GiB\", \"policy\": \"sglang\"}"));
    assert_int_equal(kvp__model_config_parse_count() - p0, 0);
    kvp_json_free(first);
    kvp_json_free(again);
}

static void test_inline_config_by_text(void **state) {
    (void)state;
    /* A tiny dense model: 2 layers x 2 KV heads x (64 + 64) x 2 B = 1,024 B a token;
     * a 16-token block = 16 KiB; 1 GiB = 65,536 blocks = 1,048,576 tokens. */
    const char *cfg = "{\"architectures\": [\"LlamaForCausalLM\"], \"model_type\": \"llama\", "
                      "\"hidden_size\": 256, \"intermediate_size\": 512, \"num_hidden_layers\": 2, "
                      "\"num_attention_heads\": 4, \"num_key_value_heads\": 2, \"vocab_size\": 1000, "
                      "\"max_position_embeddings\": 4096, \"torch_dtype\": \"bfloat16\"}";
    char req[1024];
    snprintf(req, sizeof req, "{\"config\": %s, \"kv_budget\": \"1GiB\", \"policy\": \"vllm\"}", cfg);
    char *a = call("plan", req);
    uint64_t p0 = kvp__model_config_parse_count();
    char *b = call("plan", req);
    assert_int_equal(kvp__model_config_parse_count() - p0, 0);
    assert_string_equal(a, b);
    assert_int_equal(tokens_of(a), 1048576);
    /* Another text (4 KV heads: 2,048 B a token, half the tokens) is another model. */
    char cfg4[1024], req4[1200];
    snprintf(cfg4, sizeof cfg4, "%s", cfg);
    char *kv = strstr(cfg4, "\"num_key_value_heads\": 2");
    assert_non_null(kv);
    kv[strlen("\"num_key_value_heads\": ")] = '4';
    snprintf(req4, sizeof req4, "{\"config\": %s, \"kv_budget\": \"1GiB\", \"policy\": \"vllm\"}", cfg4);
    char *c = call("plan", req4);
    assert_int_equal(kvp__model_config_parse_count() - p0, 1);
    assert_int_equal(tokens_of(c), 524288);
    kvp_json_free(a);
    kvp_json_free(b);
    kvp_json_free(c);
}

static void write_config(const char *path, unsigned kv_heads) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f,
            "{\"architectures\": [\"LlamaForCausalLM\"], \"model_type\": \"llama\", "
            "\"hidden_size\": 256, \"intermediate_size\": 512, \"num_hidden_layers\": 2, "
            "\"num_attention_heads\": 4, \"num_key_value_heads\": %u, \"vocab_size\": 1000, "
            "\"max_position_embeddings\": 4096, \"torch_dtype\": \"bfloat16\"%s}\n",
            kv_heads, kv_heads == 1 ? ", \"rope_theta\": 10000.0" : "");
    fclose(f);
}

static void test_file_read_again_when_changed(void **state) {
    (void)state;
    char dir[] = "/tmp/kvp_model_cache_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256], req[512];
    snprintf(path, sizeof path, "%s/config.json", dir);
    write_config(path, 2);
    snprintf(req, sizeof req, "{\"model\": \"%s\", \"kv_budget\": \"1GiB\", \"policy\": \"vllm\"}", path);
    char *a = call("plan", req);
    uint64_t p0 = kvp__model_config_parse_count();
    char *b = call("plan", req);
    assert_int_equal(kvp__model_config_parse_count() - p0, 0); /* unchanged: reused */
    assert_string_equal(a, b);
    assert_int_equal(tokens_of(a), 1048576);
    /* Rewritten with 1 KV head (512 B a token: twice the tokens) and another size:
     * read again, whatever the clock's resolution. */
    write_config(path, 1);
    char *c = call("plan", req);
    assert_int_equal(kvp__model_config_parse_count() - p0, 1);
    assert_int_equal(tokens_of(c), 2097152);
    /* The folder: its config.json, keyed by both stamps. */
    snprintf(req, sizeof req, "{\"model\": \"%s\", \"kv_budget\": \"1GiB\", \"policy\": \"vllm\"}", dir);
    char *d = call("plan", req);
    assert_int_equal(tokens_of(d), 2097152);
    write_config(path, 2);
    char *e = call("plan", req);
    assert_int_equal(tokens_of(e), 1048576);
    unlink(path);
    rmdir(dir);
    kvp_json_free(a);
    kvp_json_free(b);
    kvp_json_free(c);
    kvp_json_free(d);
    kvp_json_free(e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_catalogue_name_parsed_once),
        cmocka_unit_test(test_inline_config_by_text),
        cmocka_unit_test(test_file_read_again_when_changed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
