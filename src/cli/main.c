/* main.c — kvplan's entry point: dispatch to a subcommand. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "argv_words.h"
#include "command_help.h"
#include "commands.h"
#include "model_internal.h"

typedef struct command {
    const char *name;
    const char *help;
    int (*run)(int argc, char **argv);
} command;

static const command k_commands[] = {
#define KVP__ENTRY(name, help) {#name, help, kvp_cmd_##name},
    KVP_COMMANDS(KVP__ENTRY)
#undef KVP__ENTRY
};

/* The help texts are the options room's (command_help.c). */
static void put_help(char *text, FILE *out) {
    if (text) fputs(text, out);
    free(text);
}

static void usage(FILE *out) {
    const char *names[sizeof k_commands / sizeof k_commands[0]], *helps[sizeof names / sizeof names[0]];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        names[i] = k_commands[i].name, helps[i] = k_commands[i].help;
    put_help(kvp__main_help(kvp_version(), names, helps, sizeof names / sizeof names[0]), out);
}

/* `--policy help` (any command): the engine policies, by the library's names. */
static void policy_help(void) { put_help(kvp__policy_help(), stdout); }

static bool asks_policy_help(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--")) break;
        if ((!strcmp(argv[i], "--policy") || !strcmp(argv[i], "--policies")) && i + 1 < argc &&
            !strcmp(argv[i + 1], "help"))
            return true;
        if (!strcmp(argv[i], "--policy=help") || !strcmp(argv[i], "--policies=help")) return true;
    }
    return false;
}

/* kvplan --help / -h / help / --version / -V, or a command's --help / -h. */
static bool asks_help_or_version(int argc, char **argv) {
    if (argc < 2) return false;
    static const char *const k_top[] = {"--help", "-h", "help", "--version", "-V"};
    for (size_t i = 0; i < sizeof k_top / sizeof k_top[0]; i++)
        if (!strcmp(argv[1], k_top[i])) return true;
    for (int i = 2; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return true;
    return false;
}

/* `--gpu-catalog FILE` is global: taken out of argv (so every command sees
 * its own options only) and checked once, before the command runs. */
static int take_gpu_catalog(int *argc, char **argv) {
    const char *path = NULL;
    kvp_error err;
    if (kvp__take_gpu_catalog(argc, argv, &path, &err) != KVP_OK) /* argv_words.c */
        return kvp_cli_report_error(&err, false);
    bool from_env = false;
    if (!path) {
        const char *env = getenv("KVPLAN_GPU_CATALOG");
        if (env && *env) path = env, from_env = true;
    }
    if (!path) return KVP_EXIT_OK;
    /* --help and --version answer whatever the environment holds. */
    if (from_env && asks_help_or_version(*argc, argv)) return KVP_EXIT_OK;
    size_t n;
    if (kvp_gpu_catalog_count_in(path, &n, &err) != KVP_OK) {
        if (from_env) { /* name where the file came from */
            char msg[KVP_ERROR_MESSAGE_MAX];
            snprintf(msg, sizeof msg, "KVPLAN_GPU_CATALOG: %s", err.message);
            kvp__strlcpy(err.message, msg, sizeof err.message);
        }
        return kvp_cli_report_error(&err, false);
    }
    kvp_cli_set_gpu_catalog(path);
    return KVP_EXIT_OK;
}

/* KVPLAN_DEBUG_COUNTS=1: on exit, how many models were built and how many
 * config texts parsed (tests/cli/config_parses.sh: one parse per load). */
static void print_counts(void) {
    fprintf(stderr, "kvplan-debug: model loads %llu, config parses %llu\n",
            (unsigned long long)kvp__model_load_count(),
            (unsigned long long)kvp__model_config_parse_count());
}

static int run(int argc, char **argv) {
    int rc = take_gpu_catalog(&argc, argv);
    if (rc != KVP_EXIT_OK) return rc;
    if (argc < 2) {
        usage(stderr);
        return KVP_EXIT_BAD_INPUT;
    }
    const char *name = argv[1];
    /* `kvplan help CMD` is `kvplan CMD --help`. */
    char help_opt[] = "--help";
    char *help_argv[4] = {argv[0], NULL, help_opt, NULL};
    if (strcmp(name, "help") == 0 && argc > 2) {
        if (argc > 3) return kvp_cli_fail("help takes one COMMAND, got a second: '%s'", argv[3]);
        help_argv[1] = argv[2];
        argc = 3;
        argv = help_argv;
        name = argv[1];
    } else if (asks_policy_help(argc, argv) && name[0] == '-') { /* kvplan --policy help */
        policy_help();
        return KVP_EXIT_OK;
    } else if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        usage(stdout);
        return KVP_EXIT_OK;
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
        printf("kvplan %s\n", kvp_version());
        return KVP_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof k_commands / sizeof k_commands[0]; i++) {
        if (strcmp(name, k_commands[i].name) != 0) continue;
        if (asks_policy_help(argc - 1, argv + 1)) {
            policy_help();
            return KVP_EXIT_OK;
        }
        if (kvp_cli_reject_repeats(argc - 1, argv + 1)) return KVP_EXIT_BAD_INPUT;
        return k_commands[i].run(argc - 1, argv + 1);
    }
    const char *names[sizeof k_commands / sizeof k_commands[0] + 1];
    for (size_t i = 0; i < sizeof k_commands / sizeof k_commands[0]; i++)
        names[i] = k_commands[i].name;
    names[sizeof k_commands / sizeof k_commands[0]] = NULL;
    return kvp_cli_unknown_option(name, names);
}

/* Output that could not be written is lost output: a full disk, a closed stdout or
 * /dev/full make the run fail (exit 2, one line on stderr), whatever it answered. */
int main(int argc, char **argv) {
    const char *counts = getenv("KVPLAN_DEBUG_COUNTS");
    if (counts && !strcmp(counts, "1")) atexit(print_counts);
    kvp_cli_escape_stdout();
    int rc = run(argc, argv);
    errno = 0;
    bool bad = fflush(stdout) != 0 || ferror(stdout);
    int e = errno;
    if (fclose(stdout) != 0 && !bad) {
        bad = true;
        e = errno;
    }
    if (bad) {
        kvp_cli_fail("cannot write the output to stdout: %s",
                     e ? strerror(e) : "write error");
        return KVP_EXIT_BAD_INPUT;
    }
    return rc;
}
