/* cmd_cost.c — `kvplan cost MODEL`: the per-rank cost model, pool by pool. */
#include <stdlib.h>
#include <string.h>

#include "render_internal.h" /* the document, shared with kvp_json_call */
#include "cli.h"
#include "command_help.h"
#include "text_internal.h"
#include "cli_options.h"
#include "kvplan/options.h"

static void usage(FILE *out) {
    fputs(kvp__command_help("cost"), out);
    kvp_cli_table_usage(out, KVP_COMMAND_COST, KVP_OPTION_ENGINES_ALL);
}

/* The table's settings as a cost reads them (kvp_cost_settings). */
static int from_table(const kvp_options *t, kvp_cost_settings *s) {
    const kvp_deployment *d = &t->deployment;
    if (d->point.tp) s->tp = d->point.tp;
    if (d->point.pp) s->pp = d->point.pp;
    if (d->kv.tokens_per_block) s->tokens_per_block = d->kv.tokens_per_block;
    if (d->point.kv_dtype[0] &&
        !kvp_cli_dtype(kvp_options_typed(t, "--kv-dtype"), d->point.kv_dtype, &s->kv_dtype))
        return KVP_EXIT_BAD_INPUT;
    return -1;
}

/* The command line: this command's flags, then the table's rows. -1 to go
 * on, else an exit status (0 after --help). */
static int parse(int argc, char **argv, kvp_options *t, kvp_cost_settings *s,
                 const char **model_name, bool *json, bool *layers) {
    uint32_t pp_rank = (uint32_t)s->pp_rank;
    const kvp__argv_own own[] = {{"--pp-rank", KVP__OWN_U32, &pp_rank, 0, 65535, NULL},
                                 {"--beam-width", KVP__OWN_U32, &s->beam_width, 1, 1024, NULL},
                                 {"--layers", KVP__OWN_FLAG, layers, 0, 0, NULL},
                                 {"--json", KVP__OWN_FLAG, json, 0, 0, NULL},
                                 {"--help", KVP__OWN_HELP, NULL, 0, 0, NULL}, {NULL, 0, NULL, 0, 0, NULL}};
    const kvp_cli_argv c = {.argv = {.own = own, .positional = model_name,
                                     .second = "cost takes one MODEL, got a second: "},
                            .help = "cost", .help_rows = true, .json = json};
    int rc = kvp_cli_read_argv(&c, t, argc, argv);
    if (rc >= 0) return rc;
    s->pp_rank = (int32_t)pp_rank;
    if (!*model_name) {
        if (!*json) usage(stderr);
        return kvp_cli_needs_model("cost", *json);
    }
    return from_table(t, s);
}

int kvp_cmd_cost(int argc, char **argv) {
    kvp_cli_table_use(NULL); /* no spellings of an earlier command in this process */
    kvp_cost_settings s = kvp_cost_settings_default();
    const char *model_name = NULL;
    bool json = false, layers = false;
    kvp_options *table = kvp_options_new(KVP_COMMAND_COST);
    if (!table) return kvp_cli_fail("out of memory");
    int rc = parse(argc, argv, table, &s, &model_name, &json, &layers);
    kvp_options_free(table); /* `s` holds copies; model_name is argv's */
    if (rc >= 0) return rc;
    kvp_error err;
    kvp_error_clear(&err);
    kvp_model *m = NULL;
    if (kvp_model_open(model_name, NULL, &m, &err) != KVP_OK)
        return kvp_cli_report_error(&err, json);
    kvp_cost c;
    if (kvp_cost_compute(m, &s, &c, &err) != KVP_OK) {
        kvp_model_free(m);
        return kvp_cli_report_error(&err, json);
    }
    const char *warnings[8];
    size_t nw = kvp__cost_warnings(m, &c, warnings, 8);

    if (json) {
        /* The document kvp_json_call("cost") returns: one builder for both. */
        char *text = NULL;
        kvp_status st = kvp__cost_json_text(m, &s, &c, layers, &text, &err);
        kvp_model_free(m);
        if (st != KVP_OK) return kvp_cli_report_error(&err, json);
        puts(text);
        free(text);
        return KVP_EXIT_OK;
    }

    kvp_report_text t = {0};
    kvp_status st = kvp__cost_text(m, &s, &c, layers, warnings, nw, &t, &err);
    kvp_model_free(m);
    rc = kvp_cli_write_text(&t, stdout); /* what was rendered before a failure too */
    kvp_report_text_free(&t);
    if (st != KVP_OK) return kvp_cli_report_error(&err, false);
    return rc >= 0 ? rc : KVP_EXIT_OK;
}
