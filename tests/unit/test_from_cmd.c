/* test_from_cmd.c — `kvplan plan --from "<engine command>"`: shell-like
 * splitting, engine detection, option translation per engine (vLLM, SGLang,
 * llama.cpp, trtllm-serve with an extra-options YAML), ignored options and
 * the argv rewrite. The parser is CLI code, so it is compiled in here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/cli_util.c"
#include "cli/cli_options.c"
#include "cli/from_cmd.c"

static kvp_from_cmd g_cmd;
static char g_msg[512];

/* Parse and join the translated options with single spaces. */
static const char *parse_ok(const char *line) {
    static char joined[2048];
    memset(g_msg, 0, sizeof g_msg);
    int rc = kvp_from_parse(line, &g_cmd, g_msg, sizeof g_msg);
    if (rc) fprintf(stderr, "parse failed: %s\n", g_msg);
    assert_int_equal(rc, 0);
    joined[0] = '\0';
    for (int i = 0; i < g_cmd.argc; i++) {
        if (i) strcat(joined, " ");
        strcat(joined, g_cmd.argv[i]);
    }
    return joined;
}

static void test_vllm(void **state) {
    (void)state;
    const char *a = parse_ok("vllm serve meta-llama/Llama-3.1-8B --max-model-len 32768 -tp 2 "
                             "--kv-cache-dtype fp8 --gpu-memory-utilization 0.85");
    assert_string_equal(g_cmd.engine, "vllm");
    assert_string_equal(g_cmd.model, "meta-llama/Llama-3.1-8B");
    assert_string_equal(a, "--max-model-len 32768 --tp 2 --kv-dtype fp8 "
                           "--gpu-memory-utilization 0.85");
    assert_int_equal(g_cmd.ignored_count, 0);
}

static void test_vllm_shell_words(void **state) {
    (void)state;
    /* Environment assignments, quotes, a backslash-newline continuation,
     * --name=value, flags without values and unknown options with values. */
    const char *a = parse_ok("CUDA_VISIBLE_DEVICES=0,1 vllm serve \"my model\" \\\n"
                             "  --port 8000 --host=0.0.0.0 --enforce-eager "
                             "--tensor-parallel-size=4 --served-model-name 'a b' "
                             "--kv-cache-memory-bytes 40GiB");
    assert_string_equal(g_cmd.model, "my model");
    /* CUDA_VISIBLE_DEVICES=0,1 gives the GPU count; --enforce-eager is a start-up
     * flag (issue 21), passed on. */
    assert_string_equal(a, "--gpus 2 --enforce-eager --tp 4 --kv-budget 40GiB");
    assert_int_equal(g_cmd.ignored_count, 3);
    assert_string_equal(g_cmd.ignored, "--port 8000, --host 0.0.0.0, --served-model-name a b");
    assert_int_equal(g_cmd.unknown_count, 0);
    /* The OpenAI server module spelling, model from --model. */
    a = parse_ok("python3 -m vllm.entrypoints.openai.api_server --model m --block-size 32");
    assert_string_equal(g_cmd.engine, "vllm");
    assert_string_equal(g_cmd.model, "m");
    assert_string_equal(a, "--block-size 32");
}

static void test_sglang(void **state) {
    (void)state;
    const char *a = parse_ok("python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2 "
                             "--mem-fraction-static 0.85 --context-length 32768 "
                             "--enable-dp-attention --dp 2 --port 30000 --trust-remote-code");
    assert_string_equal(g_cmd.engine, "sglang");
    assert_string_equal(g_cmd.model, "Qwen/Qwen3-8B");
    assert_string_equal(a, "--tp 2 --mem-fraction-static 0.85 --context-length 32768 "
                           "--enable-dp-attention --dp 2 --trust-remote-code");
    assert_int_equal(g_cmd.ignored_count, 1);
    assert_string_equal(g_cmd.ignored, "--port 30000");
}

static void test_llamacpp(void **state) {
    (void)state;
    const char *a = parse_ok("./build/bin/llama-server -m model.gguf -c 8192 -np 4 -ctk q8_0 "
                             "-ctv q8_0 -fa on -ngl 99 --kv-unified");
    assert_string_equal(g_cmd.engine, "llamacpp");
    assert_string_equal(g_cmd.model, "model.gguf");
    assert_string_equal(a, "--ctx-size 8192 --parallel 4 --cache-type-k q8_0 --cache-type-v q8_0 "
                           "--flash-attn on --kv-unified");
    assert_int_equal(g_cmd.ignored_count, 1);
    assert_string_equal(g_cmd.ignored, "-ngl 99");
    /* An old-style bare -fa followed by another option. */
    a = parse_ok("llama-server -fa -m x.gguf");
    assert_string_equal(a, "--flash-attn");
    assert_string_equal(g_cmd.model, "x.gguf");
}

static void test_trtllm_yaml(void **state) {
    (void)state;
    char path[] = "/tmp/kvp_from_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *yaml = "# extra options\n"
                       "kv_cache_config:\n"
                       "  free_gpu_memory_fraction: 0.8   # leave room\n"
                       "  dtype: \"fp8\"\n"
                       "  max_tokens: 65536\n"
                       "  enable_block_reuse: false\n"
                       "  max_attention_window: [4096, 32768]\n"
                       "max_batch_size: 64\n"
                       "speculative_config:\n"
                       "  decoding_type: MTP\n"
                       "cuda_graph_config:\n"
                       "  max_batch_size: 32\n"
                       "enable_attention_dp: true\n";
    assert_int_equal(write(fd, yaml, strlen(yaml)), (ssize_t)strlen(yaml));
    close(fd);
    char line[256];
    snprintf(line, sizeof line,
             "trtllm-serve meta-llama/Llama-3.1-8B --tp_size 2 --max_seq_len 16384 "
             "--extra_llm_api_options %s --port 8000",
             path);
    const char *a = parse_ok(line);
    unlink(path);
    assert_string_equal(g_cmd.engine, "trtllm");
    assert_string_equal(g_cmd.model, "meta-llama/Llama-3.1-8B");
    /* Command-line flags first, then the YAML (it overrides them); the false
     * enable_block_reuse emits nothing. */
    assert_string_equal(a, "--tp 2 --max-seq-len 16384 --free-gpu-memory-fraction 0.8 "
                           "--kv-dtype fp8 --max-tokens 65536 --max-attention-window 4096,32768 "
                           "--max-batch-size 64 --speculative-method MTP "
                           "--cuda-graph-batch-size 32 --attention-dp");
    assert_int_equal(g_cmd.ignored_count, 1);
    assert_string_equal(g_cmd.ignored, "--port 8000");
}

/* The recurrent-state dtype options map to the table's names, not "ignored": vLLM's two
 * flags, SGLang's --mamba-ssm-dtype and TensorRT-LLM's kv_cache_config key. */
static void test_state_dtypes(void **state) {
    (void)state;
    const char *a = parse_ok("vllm serve Qwen/Qwen3-Next-80B-A3B-Thinking "
                             "--mamba-cache-dtype float32 --mamba-ssm-cache-dtype float32");
    assert_string_equal(a, "--mamba-cache-dtype float32 --mamba-ssm-cache-dtype float32");
    assert_int_equal(g_cmd.ignored_count, 0);
    a = parse_ok("python -m sglang.launch_server --model-path nvidia/Nemotron-H-56B-Base-8K "
                 "--mamba-ssm-dtype bfloat16");
    assert_string_equal(a, "--mamba-ssm-dtype bfloat16");
    assert_int_equal(g_cmd.ignored_count, 0);
    char path[] = "/tmp/kvp_from_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *yaml = "kv_cache_config:\n  mamba_ssm_cache_dtype: float32\n";
    assert_int_equal(write(fd, yaml, strlen(yaml)), (ssize_t)strlen(yaml));
    close(fd);
    char line[256];
    snprintf(line, sizeof line, "trtllm-serve nvidia/Nemotron-H-56B-Base-8K --config %s", path);
    a = parse_ok(line);
    unlink(path);
    assert_string_equal(a, "--mamba-ssm-cache-dtype float32");
    assert_int_equal(g_cmd.ignored_count, 0);
}

static void expect_error(const char *line, const char *fragment) {
    int rc = kvp_from_parse(line, &g_cmd, g_msg, sizeof g_msg);
    assert_int_equal(rc, KVP_EXIT_BAD_INPUT);
    if (!strstr(g_msg, fragment)) fprintf(stderr, "message: %s\n", g_msg);
    assert_non_null(strstr(g_msg, fragment));
}

static void test_errors(void **state) {
    (void)state;
    expect_error("docker run vllm/vllm-openai", "cannot tell the engine from 'docker'");
    expect_error("vllm serve 'unterminated", "unterminated single quote");
    expect_error("vllm serve m -tp", "-tp needs a value");
    expect_error("python -m sglang.launch_server --tp 2", "names no model");
    expect_error("   ", "empty");
    expect_error("trtllm-serve m --extra_llm_api_options /nonexistent/x.yaml",
                 "/nonexistent/x.yaml");
    expect_error("vllm serve m \\", "ends with a backslash");
    /* Option files that are not LlmArgs. */
    static const struct {
        const char *text;
        const char *fragment;
    } files[] = {
        {"kv_cache_config: 5\n", "kv_cache_config must be a mapping"},
        /* libyaml's own words for an unclosed flow sequence, with its place. */
        {"kv_cache_config:\n  free_gpu_memory_fraction: [0.5\n",
         "not YAML: did not find expected ',' or ']' while parsing a flow sequence (line 3"},
        {"a: 1\n---\nb: 2\n", "more than one YAML document"},
        {"- a\n- b\n", "the top level is not a mapping"},
        {"cuda_graph_config: [1, 2]\n", "cuda_graph_config must be a mapping"},
        {"kv_cache_config:\n  dtype: fp8\x01\n", "not a YAML text file"},
        {"a:\n b:\n  c:\n   d:\n    e:\n     f:\n      g:\n       h:\n        i:\n",
         "deeper than 8 levels"},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[] = "/tmp/kvp_from_XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, files[i].text, strlen(files[i].text)),
                         (ssize_t)strlen(files[i].text));
        close(fd);
        char line[128];
        snprintf(line, sizeof line, "trtllm-serve m --config %s", path);
        expect_error(line, files[i].fragment);
        unlink(path);
    }
}

static void test_rewrite(void **state) {
    (void)state;
    char *argv[] = {"plan", "--gpu", "h100", "--from", "vllm serve llama-3.1-8b -tp 2", "--json",
                    NULL};
    kvp_from_argv fa;
    assert_int_equal(kvp_cli_from_rewrite(6, argv, &fa), 0);
    assert_true(fa.rewritten);
    const char *want[] = {"plan", "llama-3.1-8b", "--policy", "vllm", "--tp", "2",
                          "--gpu", "h100", "--json"};
    assert_int_equal(fa.argc, 9);
    for (int i = 0; i < 9; i++) assert_string_equal(fa.argv[i], want[i]);
    assert_null(fa.argv[9]);
    /* The notes wait for the run: printed by _finish unless it was bad input. */
    assert_non_null(fa.note);
    assert_non_null(strstr(fa.note, "planning as: kvplan plan llama-3.1-8b --policy vllm --tp 2"));
    kvp_cli_from_free(&fa);

    /* No --from: argv untouched. */
    char *plain[] = {"plan", "m", NULL};
    assert_int_equal(kvp_cli_from_rewrite(2, plain, &fa), 0);
    assert_false(fa.rewritten);
    assert_ptr_equal(fa.argv, plain);
    kvp_cli_from_free(&fa);

    /* --from=... form; a missing value is bad input. */
    char *eq[] = {"plan", "--from=llama-server -m a.gguf -c 4096", NULL};
    assert_int_equal(kvp_cli_from_rewrite(2, eq, &fa), 0);
    assert_int_equal(fa.argc, 6);
    assert_string_equal(fa.argv[3], "llamacpp");
    assert_string_equal(fa.argv[4], "--ctx-size");
    kvp_cli_from_free(&fa);
    char *missing[] = {"plan", "--from", NULL};
    assert_int_equal(kvp_cli_from_rewrite(2, missing, &fa), KVP_EXIT_BAD_INPUT);
}

/* Seeded random commands built from the characters the parser cares about:
 * every one is parsed or refused with a message, never crashes (ASan/UBSan
 * builds check the memory side). */
static void test_random_commands(void **state) {
    (void)state;
    static const char alphabet[] = "ab- -\"'\\\n=.,/:tpvllmserve";
    static const char *const heads[] = {"vllm serve ", "python -m sglang.launch_server ",
                                        "llama-server ", "trtllm-serve ", ""};
    uint64_t seed = 42;
    char line[600];
    for (int iter = 0; iter < 3000; iter++) {
        size_t o = (size_t)snprintf(line, sizeof line, "%s", heads[iter % 5]);
        size_t len = (size_t)(iter % 500);
        for (size_t i = 0; i < len && o + 1 < sizeof line; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            line[o++] = alphabet[(seed >> 33) % (sizeof alphabet - 1)];
        }
        line[o] = '\0';
        g_msg[0] = '\0';
        int rc = kvp_from_parse(line, &g_cmd, g_msg, sizeof g_msg);
        assert_true(rc == 0 || rc == KVP_EXIT_BAD_INPUT);
        if (rc) assert_true(g_msg[0] != '\0');
        else assert_non_null(g_cmd.model);
    }
    /* Longer than the limit: refused. */
    char *huge = malloc(KVP_FROM_MAX_INPUT + 16);
    assert_non_null(huge);
    memset(huge, 'a', KVP_FROM_MAX_INPUT + 15);
    memcpy(huge, "vllm serve ", 11);
    huge[KVP_FROM_MAX_INPUT + 15] = '\0';
    assert_int_equal(kvp_from_parse(huge, &g_cmd, g_msg, sizeof g_msg), KVP_EXIT_BAD_INPUT);
    free(huge);
}

/* Windows line ends and nested comments in the YAML. */
static void test_yaml_crlf(void **state) {
    (void)state;
    char path[] = "/tmp/kvp_from_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *yaml = "kv_cache_config:\r\n"
                       "    # comment line\r\n"
                       "    dtype: 'fp8' # fp8 cache\r\n"
                       "backend: pytorch\r\n"
                       "cuda_graph_config: null\r\n";
    assert_int_equal(write(fd, yaml, strlen(yaml)), (ssize_t)strlen(yaml));
    close(fd);
    char line[256];
    snprintf(line, sizeof line, "trtllm-serve serve m --config %s", path);
    const char *a = parse_ok(line);
    unlink(path);
    assert_string_equal(a, "--kv-dtype fp8 --cuda-graph-batch-size 0");
    assert_string_equal(g_cmd.ignored, "backend: pytorch");
}


/* Issue 12 item 4 / issue 17: the engine the command names, the words it is
 * split into, and its settings against the user's own options. */
static void test_from_bad_input_named(void **state) {
    (void)state;
    /* `python -m` with an unknown module as the last words: once read past the
     * words (out of bounds); now refused naming the module. */
    expect_error("python -m UNKNOWN", "cannot tell the engine from 'python -m UNKNOWN'");
    expect_error("python3 -m foo.bar --tp 2", "cannot tell the engine from 'python3 -m foo.bar'");
    expect_error("python -m", "cannot tell the engine from 'python'");
    /* CUDA_VISIBLE_DEVICES gives the GPU count; a malformed one names the word. */
    const char *a = parse_ok("CUDA_VISIBLE_DEVICES=0,1,3 vllm serve m");
    assert_string_equal(a, "--gpus 3");
    expect_error("CUDA_VISIBLE_DEVICES=0,,1 vllm serve m", "'CUDA_VISIBLE_DEVICES=0,,1'");
    expect_error("CUDA_VISIBLE_DEVICES=x vllm serve m", "'CUDA_VISIBLE_DEVICES=x'");
    /* Other K=V words are the engine's environment. */
    a = parse_ok("VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 vllm serve m --max-model-len 9000");
    assert_string_equal(a, "--env VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 --max-model-len 9000");
    /* Unknown flags are listed by name, never dropped silently. */
    parse_ok("vllm serve m --no-such-flag 3 --tp-typo");
    assert_int_equal(g_cmd.unknown_count, 2);
    assert_string_equal(g_cmd.unknown, "--no-such-flag 3, --tp-typo");
    /* $VAR is left as text and said so. */
    parse_ok("vllm serve $MODEL --download-dir ${HF_HOME}");
    assert_string_equal(g_cmd.model, "$MODEL");
    assert_string_equal(g_cmd.variables, "$MODEL, ${HF_HOME}");
    /* Two engines in one command. */
    expect_error("vllm serve m && python -m sglang.launch_server --model-path m",
                 "two engines in one command");
}

static void test_from_contradicts_user(void **state) {
    (void)state;
    kvp_from_argv fa;
    /* The command's -tp 2 and the user's --tp 4: exit 2 naming both. */
    char *tp[] = {"plan", "--from", "vllm serve m -tp 2", "--tp", "4", NULL};
    assert_int_equal(kvp_cli_from_rewrite(5, tp, &fa), KVP_EXIT_BAD_INPUT);
    assert_false(fa.rewritten);
    /* The same setting under another spelling is the same setting. */
    char *len[] = {"plan", "--from", "vllm serve m --max-model-len 8192", "--max-seq-len=4096", NULL};
    assert_int_equal(kvp_cli_from_rewrite(4, len, &fa), KVP_EXIT_BAD_INPUT);
    /* --policy naming the command's engine is said once; another engine contradicts. */
    char *same[] = {"plan", "--from", "vllm serve m", "--policy", "vllm", NULL};
    assert_int_equal(kvp_cli_from_rewrite(5, same, &fa), 0);
    assert_int_equal(fa.argc, 4);
    assert_string_equal(fa.argv[3], "vllm");
    kvp_cli_from_free(&fa);
    char *other[] = {"plan", "--from", "vllm serve m", "--policy=sglang", NULL};
    assert_int_equal(kvp_cli_from_rewrite(4, other, &fa), KVP_EXIT_BAD_INPUT);
    /* Settings the command does not give combine with it. */
    char *more[] = {"plan", "--from", "vllm serve m -tp 2", "--gpu", "h100", NULL};
    assert_int_equal(kvp_cli_from_rewrite(5, more, &fa), 0);
    assert_int_equal(fa.argc, 8);
    kvp_cli_from_free(&fa);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vllm),        cmocka_unit_test(test_vllm_shell_words),
        cmocka_unit_test(test_sglang),      cmocka_unit_test(test_llamacpp),
        cmocka_unit_test(test_trtllm_yaml),
        cmocka_unit_test(test_state_dtypes), cmocka_unit_test(test_errors),
        cmocka_unit_test(test_rewrite),     cmocka_unit_test(test_random_commands),
        cmocka_unit_test(test_yaml_crlf),   cmocka_unit_test(test_from_bad_input_named),
        cmocka_unit_test(test_from_contradicts_user),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
