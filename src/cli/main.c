/* main.c — kvplan's entry point: dispatch to a subcommand. */
#include <stdio.h>
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
            KVPLAN_VERSION_STRING);
    for (size_t i = 0; i < sizeof k_commands / sizeof k_commands[0]; i++)
        fprintf(out, "  %-10s %s\n", k_commands[i].name, k_commands[i].help);
    fprintf(out, "\nRun 'kvplan COMMAND --help' for the options of a command.\n");
}

int main(int argc, char **argv) {
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
        printf("kvplan %s\n", KVPLAN_VERSION_STRING);
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
