/* main.c — kvplan's entry point: dispatch to a subcommand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

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

static void usage(FILE *out) {
    fprintf(out, "kvplan %s — plan the KV-cache memory of LLM serving\n\n"
                 "usage: kvplan COMMAND [options]\n\ncommands:\n",
            kvp_version());
    for (size_t i = 0; i < sizeof k_commands / sizeof k_commands[0]; i++)
        fprintf(out, "  %-10s %s\n", k_commands[i].name, k_commands[i].help);
    fprintf(out, "\nglobal option:\n  --gpu-catalog FILE  GPU entries of your own, searched before the built-in\n"
                 "                      catalogue (also $KVPLAN_GPU_CATALOG); layout: docs/gpus.md\n");
    fprintf(out, "\nRun 'kvplan COMMAND --help' for the options of a command.\n");
}

/* `--gpu-catalog FILE` is global: taken out of argv (so every command sees
 * its own options only) and checked once, before the command runs. */
static int take_gpu_catalog(int *argc, char **argv) {
    const char *path = NULL;
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (!strcmp(a, "--")) {
            while (i < *argc) argv[out++] = argv[i++];
            break;
        }
        if (!strcmp(a, "--gpu-catalog")) {
            if (i + 1 >= *argc) return kvp_cli_fail("--gpu-catalog needs a value");
            v = argv[++i];
        } else if (!strncmp(a, "--gpu-catalog=", 14)) {
            v = a + 14;
        } else {
            argv[out++] = argv[i];
            continue;
        }
        if (path) return kvp_cli_fail("--gpu-catalog is given twice");
        if (!*v) return kvp_cli_fail("--gpu-catalog: expected a file name");
        path = v;
    }
    *argc = out;
    argv[out] = NULL;
    if (!path) {
        const char *env = getenv("KVPLAN_GPU_CATALOG");
        if (env && *env) path = env;
    }
    if (!path) return KVP_EXIT_OK;
    size_t n;
    kvp_error err;
    if (kvp_gpu_catalog_count_in(path, &n, &err) != KVP_OK) return kvp_cli_report_error(&err, false);
    kvp_cli_set_gpu_catalog(path);
    return KVP_EXIT_OK;
}

int main(int argc, char **argv) {
    int rc = take_gpu_catalog(&argc, argv);
    if (rc != KVP_EXIT_OK) return rc;
    if (argc < 2) {
        usage(stderr);
        return KVP_EXIT_BAD_INPUT;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        usage(stdout);
        return KVP_EXIT_OK;
    }
    if (strcmp(name, "--version") == 0) {
        printf("kvplan %s\n", kvp_version());
        return KVP_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof k_commands / sizeof k_commands[0]; i++) {
        if (strcmp(name, k_commands[i].name) != 0) continue;
        if (kvp_cli_reject_repeats(argc - 1, argv + 1)) return KVP_EXIT_BAD_INPUT;
        return k_commands[i].run(argc - 1, argv + 1);
    }
    const char *names[sizeof k_commands / sizeof k_commands[0] + 1];
    for (size_t i = 0; i < sizeof k_commands / sizeof k_commands[0]; i++)
        names[i] = k_commands[i].name;
    names[sizeof k_commands / sizeof k_commands[0]] = NULL;
    return kvp_cli_unknown_option(name, names);
}
