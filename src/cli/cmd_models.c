/* cmd_models.c — `kvplan models [FILTER]`: the embedded catalogue and its
 * aliases, filtered by a case-insensitive substring of the name or HF id. */
#include <stdlib.h>
#include <string.h>

#include "render_internal.h" /* the document, shared with kvp_json_call */
#include "cli.h"
#include "command_help.h"
#include "text_internal.h"

static void usage(FILE *out) {
    fputs(kvp__command_help("models"), out);
}

int kvp_cmd_models(int argc, char **argv) {
    bool json = false;
    const char *filter = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return KVP_EXIT_OK;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            static const char *const known[] = {"--json", "--help", NULL};
            return kvp_cli_unknown_option(argv[i], known);
        } else if (filter) {
            return kvp_cli_fail("models takes one FILTER, got a second: '%s'", argv[i]);
        } else {
            filter = argv[i];
        }
    }
    size_t matched = 0;
    if (json) {
        char *text = NULL;
        kvp_error err;
        if (kvp__models_json_text(filter, &text, &matched, &err) != KVP_OK)
            return kvp_cli_report_error(&err, true);
        puts(text);
        free(text);
    } else {
        kvp_report_text t = {0};
        matched = kvp__models_text(filter, &t);
        kvp_cli_write_text(&t, stdout);
        kvp_report_text_free(&t);
    }
    if (filter && matched == 0) {
        fprintf(stderr, "kvplan: no catalogue model matches '%s'; a model of your own: give the "
                        "folder holding its config.json\n", filter);
        return KVP_EXIT_NO;
    }
    return KVP_EXIT_OK;
}
