/*
 * probe.c — a small program linked against the prebuilt libllama of the
 * pinned release (node-llama-cpp, see tests/engine/engine_test.sh). It is the
 * reference the engine test compares kvplan with:
 *
 *   probe version
 *       prints llama_version() ("VERSION 0.4.0-dev") and the CPU features.
 *   probe run MODEL.gguf < SETTINGS
 *       loads MODEL.gguf the way llama-server does, then for each settings line
 *       "ID N_CTX N_SEQ UNIFIED SWA_FULL TYPE_K TYPE_V FA UBATCH" creates one
 *       context in a child process (a crash is data, never the suite's crash),
 *       and prints llama.cpp's log lines about its KV cache and recurrent
 *       state, then "END ID ok" or "END ID fail".
 *
 * Output lines: "LOG ID <llama.cpp log line>", "END ID ok|fail|crash N".
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ggml-backend.h"
#include "ggml.h"
#include "llama.h"

static int g_run_id = -1;
static char g_line[8192];
static size_t g_line_len;

/* Which llama.cpp log lines carry cache figures or a refusal: the test compares
 * these; everything else (graph reservation, backend noise) is dropped. */
static int wanted(const char *s) {
    static const char *const k_prefix[] = {
        "llama_kv_cache", "llama_memory_recurrent", "llama_memory_hybrid", "llama_context: n_ctx",
        "llama_context: n_seq_max", "llama_context: n_ctx_seq", "llama_context: n_batch",
        "llama_context: n_ubatch", "llama_context: flash_attn", "llama_context: kv_unified",
        "llama_init_from_model", "llama_model_load", "llama_model_init", "llama_context: ",
        "llama_kv_cells", "llama_model_loader: error",
    };
    for (size_t i = 0; i < sizeof k_prefix / sizeof k_prefix[0]; i++)
        if (strncmp(s, k_prefix[i], strlen(k_prefix[i])) == 0) return 1;
    return strstr(s, "error") != NULL || strstr(s, "failed") != NULL ||
           strstr(s, "requires") != NULL;
}

static void flush_line(void) {
    g_line[g_line_len] = 0;
    if (g_line_len && wanted(g_line)) printf("LOG %d %s\n", g_run_id, g_line);
    g_line_len = 0;
}

/* llama_log_set callback: llama.cpp may deliver one line in several pieces. */
static void on_log(enum ggml_log_level level, const char *text, void *ud) {
    (void)level;
    (void)ud;
    for (const char *p = text; *p; p++) {
        if (*p == '\n') {
            flush_line();
        } else if (g_line_len + 1 < sizeof g_line) {
            g_line[g_line_len++] = *p;
        }
    }
    fflush(stdout);
}

static enum ggml_type parse_type(const char *s, int *ok) {
    static const struct {
        const char *name;
        enum ggml_type t;
    } k[] = {{"f32", GGML_TYPE_F32},   {"f16", GGML_TYPE_F16},   {"bf16", GGML_TYPE_BF16},
             {"q8_0", GGML_TYPE_Q8_0}, {"q4_0", GGML_TYPE_Q4_0}, {"q4_1", GGML_TYPE_Q4_1},
             {"q5_0", GGML_TYPE_Q5_0}, {"q5_1", GGML_TYPE_Q5_1}, {"iq4_nl", GGML_TYPE_IQ4_NL}};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        if (strcmp(s, k[i].name) == 0) {
            *ok = 1;
            return k[i].t;
        }
    *ok = 0;
    return GGML_TYPE_F16;
}

/* The prebuilt package ships its CPU backends as loadable modules. */
static void load_backends(void) {
    const char *dir = getenv("KVP_LLAMA_LIB_DIR");
    if (dir && *dir)
        ggml_backend_load_all_from_path(dir);
    else
        ggml_backend_load_all();
}

static void one_context(struct llama_model *model, int id, unsigned n_ctx, unsigned n_seq,
                        int unified, int swa_full, enum ggml_type tk, enum ggml_type tv, int fa,
                        unsigned ubatch) {
    struct llama_context_params cp = llama_context_default_params();
    cp.n_ctx = n_ctx;
    cp.n_batch = 2048; /* llama-server's -b default; kvplan's too */
    cp.n_ubatch = ubatch;
    cp.n_seq_max = n_seq;
    cp.kv_unified = unified != 0;
    cp.swa_full = swa_full != 0;
    cp.type_k = tk;
    cp.type_v = tv;
    cp.flash_attn_type = fa < 0 ? LLAMA_FLASH_ATTN_TYPE_AUTO
                                : fa ? LLAMA_FLASH_ATTN_TYPE_ENABLED
                                     : LLAMA_FLASH_ATTN_TYPE_DISABLED;
    cp.n_threads = 1;
    cp.n_threads_batch = 1;
    cp.no_perf = true;
    struct llama_context *ctx = llama_init_from_model(model, cp);
    flush_line();
    if (!ctx) {
        printf("END %d fail\n", id);
        return;
    }
    llama_free(ctx);
    flush_line();
    printf("END %d ok\n", id);
}

static int cmd_run(const char *path) {
    g_run_id = 0;
    struct llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers = 0;
    struct llama_model *model = llama_model_load_from_file(path, mp);
    flush_line();
    if (!model) {
        printf("END 0 fail load\n");
        return 0; /* a refused file is data for the test, not a probe failure */
    }
    printf("LOADED %s\n", path);
    char line[512];
    while (fgets(line, sizeof line, stdin)) {
        int id, unified, swa_full, fa;
        unsigned n_ctx, n_seq, ubatch;
        char sk[16], sv[16];
        if (sscanf(line, "%d %u %u %d %d %15s %15s %d %u", &id, &n_ctx, &n_seq, &unified,
                   &swa_full, sk, sv, &fa, &ubatch) != 9) {
            printf("END -1 fail bad settings line\n");
            continue;
        }
        int okk, okv;
        enum ggml_type tk = parse_type(sk, &okk), tv = parse_type(sv, &okv);
        if (!okk || !okv) {
            printf("END %d fail unknown cache type\n", id);
            continue;
        }
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            g_run_id = id;
            one_context(model, id, n_ctx, n_seq, unified, swa_full, tk, tv, fa, ubatch);
            fflush(stdout);
            _exit(0);
        }
        int status = 0;
        if (pid < 0 || waitpid(pid, &status, 0) < 0) {
            printf("END %d crash fork\n", id);
        } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            printf("END %d crash %d\n", id,
                   WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
        }
        fflush(stdout);
    }
    llama_model_free(model);
    return 0;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    llama_log_set(on_log, NULL);
    load_backends();
    if (argc == 2 && strcmp(argv[1], "version") == 0) {
        printf("VERSION %s\n", llama_version());
        printf("SYSTEM %s\n", llama_print_system_info());
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "run") == 0) return cmd_run(argv[2]);
    fprintf(stderr, "usage: probe version | run MODEL < SETTINGS\n");
    return 2;
}
