/* cmd_gpus.c — `kvplan gpus`: the GPUs on this machine (NVML / CUDA driver /
 * AMD sysfs), or with --catalog the embedded catalogue of common GPUs. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_options.h"
#include "command_help.h"
#include "render_internal.h" /* the GPU JSON (shared with kvp_json_call) */
#include "text_internal.h"

static int list_catalog(bool json) {
    kvp_error err;
    if (json) {
        char *text = NULL;
        if (kvp__gpus_catalog_json_text(kvp_cli_gpu_catalog(), &text, &err) != KVP_OK)
            return kvp_cli_report_error(&err, true);
        puts(text);
        free(text);
        return KVP_EXIT_OK;
    }
    /* One read of the catalogue (and of the user's file) for the whole list. */
    size_t n = 0;
    static kvp_gpu_info list[1024 + 64]; /* a user file's 1024 entries + the embedded ones */
    if (kvp_gpu_catalog_list_in(kvp_cli_gpu_catalog(), list, sizeof list / sizeof list[0], &n,
                                &err) != KVP_OK)
        return kvp_cli_report_error(&err, false);
    if (n > sizeof list / sizeof list[0]) n = sizeof list / sizeof list[0];
    kvp_report_text t = {0};
    kvp__gpus_catalog_text(list, n, &t);
    int rc = kvp_cli_write_text(&t, stdout);
    kvp_report_text_free(&t);
    if (rc >= 0) return rc;
    return KVP_EXIT_OK;
}

static int list_live(bool json) {
    kvp_probe_result *r = malloc(sizeof *r);
    if (!r) return kvp_cli_fail("out of memory");
    kvp_error err;
    kvp_status st = kvp_probe_gpus(NULL, r, &err);
    if (json) {
        char *text = NULL;
        kvp_error jerr;
        if (kvp__gpus_live_json_text(r, &text, &jerr) == KVP_OK) puts(text);
        free(text);
    } else {
        kvp_report_text t = {0};
        kvp__gpus_live_text(r, st, &t);
        kvp_cli_write_text(&t, stdout);
        kvp_report_text_free(&t);
    }
    free(r);
    if (st == KVP_OK) return KVP_EXIT_OK;
    return st == KVP_NO_DEVICE ? KVP_EXIT_NO : kvp_cli_report_error(&err, false);
}

int kvp_cmd_gpus(int argc, char **argv) {
    bool json = false, catalog = false;
    const kvp__argv_own own[] = {{"--json", KVP__OWN_FLAG, &json, 0, 0, NULL},
                                 {"--catalog", KVP__OWN_FLAG, &catalog, 0, 0, NULL},
                                 {"--help", KVP__OWN_HELP, NULL, 0, 0, NULL}, {NULL, 0, NULL, 0, 0, NULL}};
    const kvp_cli_argv c = {.argv = {.own = own}, .help = "gpus", .help_puts = true};
    int rc = kvp_cli_read_argv(&c, NULL, argc, argv);
    if (rc >= 0) return rc;
    return catalog ? list_catalog(json) : list_live(json);
}
