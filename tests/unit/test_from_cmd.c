/* test_from_cmd.c — `kvplan plan --from "<engine command>"`: shell-like
 * splitting, engine detection, the settings per engine (vLLM, SGLang,
 * llama.cpp, trtllm-serve with an extra-options YAML) under table spellings,
 * ignored options, and the settings filled before the command's own argv.
 * The parser is the options room's (src/options/from_parse.c, in the library);
 * the CLI glue that fills the settings is compiled in here. */
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
static char g_rows[2048]; /* the table rows the settings name (kvplan names), joined */

/* Parse and join the settings ("NAME VALUE", the name as the command spelled
 * it) with single spaces; g_rows gets the rows those spellings set. */
static const char *parse_ok(const char *line) {
    static char joined[2048];
    memset(g_msg, 0, sizeof g_msg);
    int rc = kvp_from_parse(line, true, &g_cmd, g_msg, sizeof g_msg);
    if (rc) fprintf(stderr, "parse failed: %s\n", g_msg);
    assert_int_equal(rc, 0);
    joined[0] = '\0';
    g_rows[0] = '\0';
    for (int i = 0; i < g_cmd.count; i++) {
        const kvp_from_setting *s = &g_cmd.set[i];
        if (i) strcat(joined, " "), strcat(g_rows, " ");
        strcat(joined, s->name);
        if (s->value) strcat(joined, " "), strcat(joined, s->value);
        /* Every setting is a spelling of the one option table. */
        const kvp_option *r = kvp_option_lookup(s->name, NULL);
        if (!r) fprintf(stderr, "no table row spells %s\n", s->name);
        assert_non_null(r);
        strcat(g_rows, r->name);
    }
    return joined;
}

static void test_vllm(void **state) {
    (void)state;
    const char *a = parse_ok("vllm serve meta-llama/Llama-3.1-8B --max-model-len 32768 -tp 2 "
                             "--kv-cache-dtype fp8 --gpu-memory-utilization 0.85");
    assert_string_equal(g_cmd.engine, "vllm");
    assert_string_equal(g_cmd.model, "meta-llama/Llama-3.1-8B");
    /* The engine's own spellings, set through the table's rows. */
    assert_string_equal(a, "--max-model-len 32768 -tp 2 --kv-cache-dtype fp8 "
                           "--gpu-memory-utilization 0.85");
    assert_string_equal(g_rows, "--max-seq-len --tp --kv-dtype --gpu-memory-utilization");
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
    /* --kv-cache-memory-bytes is vLLM's KV budget: an alias the table does not spell. */
    assert_string_equal(a, "--gpus 2 --enforce-eager --tensor-parallel-size 4 --kv-budget 40GiB");
    assert_string_equal(g_rows, "--gpus --enforce-eager --tp --kv-budget");
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
    assert_string_equal(a, "-c 8192 -np 4 -ctk q8_0 -ctv q8_0 -fa on --kv-unified");
    assert_string_equal(g_rows, "--ctx-size --parallel --cache-type-k --cache-type-v --flash-attn "
                                "--kv-unified");
    assert_int_equal(g_cmd.ignored_count, 1);
    assert_string_equal(g_cmd.ignored, "-ngl 99");
    /* An old-style bare -fa followed by another option. */
    a = parse_ok("llama-server -fa -m x.gguf");
    assert_string_equal(a, "-fa");
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
    assert_string_equal(a, "--tp_size 2 --max_seq_len 16384 --free-gpu-memory-fraction 0.8 "
                           "--kv-dtype fp8 --max-tokens 65536 --max-attention-window 4096,32768 "
                           "--max-batch-size 64 --speculative-method MTP "
                           "--cuda-graph-batch-size 32 --attention-dp");
    assert_string_equal(g_rows, "--tp --max-seq-len --free-gpu-memory-fraction --kv-dtype "
                                "--max-tokens --max-attention-window --max-batch-size "
                                "--speculative-method --cuda-graph-batch-size --attention-dp");
    assert_int_equal(g_cmd.ignored_count, 1);
    assert_string_equal(g_cmd.ignored, "--port 8000");

    /* A flag and a file key of the same row: the file's wins, the flag is listed. */
    strcpy(path, "/tmp/kvp_from_XXXXXX");
    fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *tp = "tensor_parallel_size: 4\n";
    assert_int_equal(write(fd, tp, strlen(tp)), (ssize_t)strlen(tp));
    close(fd);
    snprintf(line, sizeof line, "trtllm-serve m --tp_size 2 --max_seq_len 4096 --config %s", path);
    a = parse_ok(line);
    unlink(path);
    assert_string_equal(a, "--max_seq_len 4096 --tp 4");
    assert_string_equal(g_cmd.ignored, "--tp_size 2 (the options file overrides it)");
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
    int rc = kvp_from_parse(line, true, &g_cmd, g_msg, sizeof g_msg);
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
    /* An options file of another machine is no error (issue 29): named, and the
     * command read without it. */
    assert_int_equal(kvp_from_parse("trtllm-serve m --extra_llm_api_options /nonexistent/x.yaml",
                                    true, &g_cmd, g_msg, sizeof g_msg),
                     0);
    assert_string_equal(g_cmd.missing, "the options file '/nonexistent/x.yaml'");
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

/* What a command body saw: its settings after its own argv went on top. */
static struct {
    int calls;
    int rc;
    uint32_t tp;
    uint64_t max_seq_len;
    kvp_engine engine;
    char model[64];
    char tp_typed[KVP_OPTIONS_TYPED_MAX];
    bool engine_during; /* kvp_cli_from_engine() answered inside the body */
} g_seen;

/* A command body as cmd_plan.c's: options, --from's settings, argv on top. */
static int fake_body(int argc, char **argv) {
    g_seen.calls++;
    g_seen.engine_during = kvp_cli_from_engine() != NULL;
    kvp_options *o = kvp_options_new(KVP_COMMAND_PLAN);
    assert_non_null(o);
    int rc = kvp_cli_from_apply(o, false);
    const char *model = NULL;
    for (int i = 1; i < argc && rc < 0; i++) {
        int t = kvp_cli_table_option(o, argc, argv, &i, false);
        if (t > 0) rc = t;
        else if (t == 0 && argv[i][0] == '-') rc = KVP_EXIT_BAD_INPUT; /* not a row */
        else if (t == 0) model = argv[i];
    }
    model = kvp_cli_from_model(model);
    if (rc < 0) rc = kvp_cli_table_finish(o, false);
    if (rc < 0) {
        rc = 0;
        g_seen.tp = o->deployment.point.tp;
        g_seen.max_seq_len = o->deployment.point.max_seq_len;
        g_seen.engine = o->deployment.point.engine;
        snprintf(g_seen.model, sizeof g_seen.model, "%s", model ? model : "");
        snprintf(g_seen.tp_typed, sizeof g_seen.tp_typed, "%s", kvp_options_typed(o, "--tp"));
    }
    kvp_options_free(o);
    g_seen.rc = rc;
    return rc;
}

/* kvp_cli_from_run with stderr caught in `err` (what the user reads). */
static int run_from(int argc, char **argv, char *err, size_t size) {
    memset(&g_seen, 0, sizeof g_seen);
    char path[] = "/tmp/kvp_from_err_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    int rc = kvp_cli_from_run(argc, argv, fake_body);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    ssize_t n = pread(fd, err, size - 1, 0);
    err[n > 0 ? n : 0] = '\0';
    close(fd);
    unlink(path);
    return rc;
}

static void test_from_run(void **state) {
    (void)state;
    char err[4096];
    /* The command fills the settings, the user's --gpu goes on top; the body
     * reads the same argv (no rebuilt one). tp 2 and 8192 come from the command. */
    char *argv[] = {"plan", "--gpu", "h100", "--from",
                    "vllm serve llama-3.1-8b -tp 2 --max-model-len 8192", NULL};
    assert_int_equal(run_from(5, argv, err, sizeof err), 0);
    assert_int_equal(g_seen.calls, 1);
    assert_true(g_seen.engine_during);
    assert_int_equal(g_seen.tp, 2);
    assert_int_equal(g_seen.max_seq_len, 8192);
    assert_int_equal(g_seen.engine, KVP_ENGINE_VLLM);
    assert_string_equal(g_seen.model, "llama-3.1-8b");
    assert_string_equal(g_seen.tp_typed, "-tp"); /* the command's spelling */
    assert_non_null(strstr(err, "kvplan: --from: planning as: kvplan plan llama-3.1-8b --policy "
                                "vllm --tp 2 --max-seq-len 8192 --gpu h100\n"));
    assert_null(kvp_cli_from_engine()); /* cleared after the run */

    /* No --from: the body runs on its argv, trtllm the default. */
    char *plain[] = {"plan", "m", "--tp", "4", NULL};
    assert_int_equal(run_from(4, plain, err, sizeof err), 0);
    assert_false(g_seen.engine_during);
    assert_int_equal(g_seen.tp, 4);
    assert_int_equal(g_seen.engine, KVP_ENGINE_TRTLLM);
    assert_string_equal(g_seen.model, "m");
    assert_string_equal(err, "");

    /* --from=... form. */
    char *eq[] = {"plan", "--from=llama-server -m a.gguf -c 4096", NULL};
    assert_int_equal(run_from(2, eq, err, sizeof err), 0);
    assert_int_equal(g_seen.engine, KVP_ENGINE_LLAMACPP);
    assert_string_equal(g_seen.model, "a.gguf");
    assert_non_null(strstr(err, "planning as: kvplan plan a.gguf --policy llamacpp --ctx-size 4096\n"));

    /* A missing value, --from twice: bad input before the body runs. */
    char *missing[] = {"plan", "--from", NULL};
    assert_int_equal(run_from(2, missing, err, sizeof err), KVP_EXIT_BAD_INPUT);
    assert_int_equal(g_seen.calls, 0);
    char *twice[] = {"plan", "--from", "vllm serve m", "--from=vllm serve n", NULL};
    assert_int_equal(run_from(4, twice, err, sizeof err), KVP_EXIT_BAD_INPUT);
    assert_int_equal(g_seen.calls, 0);
    assert_non_null(strstr(err, "--from given twice"));

    /* A value the table refuses, from the command: one line saying so, no notes. */
    char *bad[] = {"plan", "--from", "vllm serve m -tp 0", NULL};
    assert_int_equal(run_from(3, bad, err, sizeof err), KVP_EXIT_BAD_INPUT);
    assert_string_equal(err, "kvplan: --from: -tp: 0 is out of range, expected 1 to 65536\n");
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
        int rc = kvp_from_parse(line, true, &g_cmd, g_msg, sizeof g_msg);
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
    assert_int_equal(kvp_from_parse(huge, true, &g_cmd, g_msg, sizeof g_msg), KVP_EXIT_BAD_INPUT);
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
    char err[4096];
    /* The command's -tp 2 and the user's --tp 4: exit 2 naming both, the
     * command's side as pasted. */
    char *tp[] = {"plan", "--from", "vllm serve m -tp 2", "--tp", "4", NULL};
    assert_int_equal(run_from(5, tp, err, sizeof err), KVP_EXIT_BAD_INPUT);
    assert_string_equal(err, "kvplan: --tp contradicts --from's -tp 2: both set tp; give one\n");
    /* The same setting under another spelling is the same setting. */
    char *len[] = {"plan", "--from", "vllm serve m --max-model-len 8192", "--max-seq-len=4096", NULL};
    assert_int_equal(run_from(4, len, err, sizeof err), KVP_EXIT_BAD_INPUT);
    assert_non_null(strstr(err, "--max-seq-len contradicts --from's --max-model-len 8192: both set "
                                "max_seq_len; give one"));
    /* --policy naming the command's engine is said once; another engine contradicts. */
    char *same[] = {"plan", "--from", "vllm serve m", "--policy", "vllm", NULL};
    assert_int_equal(run_from(5, same, err, sizeof err), 0);
    assert_int_equal(g_seen.engine, KVP_ENGINE_VLLM);
    assert_non_null(strstr(err, "planning as: kvplan plan m --policy vllm\n"));
    char *other[] = {"plan", "--from", "vllm serve m", "--policy=sglang", NULL};
    assert_int_equal(run_from(4, other, err, sizeof err), KVP_EXIT_BAD_INPUT);
    assert_string_equal(err, "kvplan: --policy contradicts --from: the --from command is a vllm "
                             "command; give one\n");
    /* Settings the command does not give combine with it; the user's MODEL wins. */
    char *more[] = {"plan", "other", "--from", "vllm serve m -tp 2", "--max-seq-len", "4096", NULL};
    assert_int_equal(run_from(6, more, err, sizeof err), 0);
    assert_int_equal(g_seen.tp, 2);
    assert_int_equal(g_seen.max_seq_len, 4096);
    assert_string_equal(g_seen.model, "other");
    assert_non_null(strstr(err, "planning as: kvplan plan other --policy vllm --tp 2 --max-seq-len 4096\n"
                                "kvplan: --from: MODEL 'other' given: it overrides the command's 'm'\n"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vllm),        cmocka_unit_test(test_vllm_shell_words),
        cmocka_unit_test(test_sglang),      cmocka_unit_test(test_llamacpp),
        cmocka_unit_test(test_trtllm_yaml),
        cmocka_unit_test(test_state_dtypes), cmocka_unit_test(test_errors),
        cmocka_unit_test(test_from_run),     cmocka_unit_test(test_random_commands),
        cmocka_unit_test(test_yaml_crlf),   cmocka_unit_test(test_from_bad_input_named),
        cmocka_unit_test(test_from_contradicts_user),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
