/* cmd_models.c — `kvplan models`: the embedded catalogue. */
#include <string.h>

#include "cli.h"

int kvp_cmd_models(int argc, char **argv) {
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            puts("usage: kvplan models [--json]\n  lists the model configs compiled into kvplan");
            return KVP_EXIT_OK;
        } else {
            static const char *const known[] = {"--json", "--help", NULL};
            return kvp_cli_unknown_option(argv[i], known);
        }
    }
    size_t n = kvp_catalog_count();
    if (json) {
        fputs("[", stdout);
        for (size_t i = 0; i < n; i++)
            printf("%s\n  {\"name\": \"%s\", \"hf_id\": \"%s\"}", i ? "," : "", kvp_catalog_name(i),
                   kvp_catalog_hf_id(i));
        puts("\n]");
        return KVP_EXIT_OK;
    }
    printf("%-40s %s\n", "name", "hugging face id");
    for (size_t i = 0; i < n; i++) printf("%-40s %s\n", kvp_catalog_name(i), kvp_catalog_hf_id(i));
    return KVP_EXIT_OK;
}
