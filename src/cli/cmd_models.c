/* cmd_models.c — `kvplan models [FILTER]`: the embedded catalogue and its
 * aliases, filtered by a case-insensitive substring of the name or HF id. */
#include <stdlib.h>
#include <string.h>

#include "render_internal.h" /* the document, shared with kvp_json_call */
#include "cli.h"
#include "cli_options.h"
#include "command_help.h"
#include "text_internal.h"

int kvp_cmd_models(int argc, char **argv) {
    bool json = false;
    const char *filter = NULL;
    const kvp__argv_own own[] = {{"--json", KVP__OWN_FLAG, &json, 0, 0, NULL},
                                 {"--help", KVP__OWN_HELP, NULL, 0, 0, NULL}, {NULL, 0, NULL, 0, 0, NULL}};
    const kvp_cli_argv c = {.argv = {.own = own, .positional = &filter,
                                     .second = "models takes one FILTER, got a second: "},
                            .help = "models"};
    int rc = kvp_cli_read_argv(&c, NULL, argc, argv);
    if (rc >= 0) return rc;
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
