/* fit_env.c — options shared by `kvplan fit`, `sweep` and `compare`
 * (fit_env.h), and the JSON of an evaluated point. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli_options.h"
#include "fit_env.h"
#include "from_cmd.h"
#include "startup_cli.h"
#include "argv_words.h"
#include "settle.h"
#include "util.h"


void fit_cli_init(fit_cli *c, int argc, char **argv) {
    memset(c, 0, sizeof *c);
    /* Known before parsing, so that the first error already comes as JSON. */
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--json")) c->json = true;
    unsigned command = !strcmp(argv[0], "sweep")     ? KVP_COMMAND_SWEEP
                       : !strcmp(argv[0], "compare") ? KVP_COMMAND_COMPARE
                                                     : KVP_COMMAND_FIT;
    c->opt = &c->opt_store;
    kvp__options_init(c->opt, command);
    kvp_cli_table_use(NULL); /* no spellings of an earlier command in this process */
    c->env = kvp_deployment_default();
    c->base = c->env.point;
}

static kvp_status vrefuse(kvp_error *err, kvp_status code, const char *key, const char *fmt,
                          va_list ap) {
    kvp_error_clear(err);
    err->code = code;
    if (key) kvp__strlcpy(err->key, key, sizeof err->key);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    return code;
}

kvp_status fit_cli_refuse(kvp_error *err, kvp_status code, const char *key, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vrefuse(err, code, key, fmt, ap);
    va_end(ap);
    return code;
}

int fit_cli_bad(const fit_cli *c, kvp_status code, const char *key, const char *fmt, ...) {
    kvp_error e;
    va_list ap;
    va_start(ap, fmt);
    vrefuse(&e, code, key, fmt, ap);
    va_end(ap);
    return kvp_cli_report_error(&e, c->json);
}

kvp_status fit_cli_count(const char *flag, const char *text, uint64_t *out, kvp_error *err) {
    kvp_error pe;
    if (kvp_parse_count(text, out, &pe) == KVP_OK) return KVP_OK;
    return fit_cli_refuse(err, KVP_INVALID_ARG, NULL, "%s: %s", flag, pe.message);
}

/* An unknown option: under --json an error object naming it, else one line
 * with "did you mean" over the names (never where the option belongs). */
static int unknown_option(const char *arg, const char *const *known, bool json) {
    if (!json) return kvp_cli_unknown_option(arg, known);
    kvp_error e;
    fit_cli_refuse(&e, KVP_INVALID_ARG, arg, "unknown option '%s' (see --help)", arg);
    return kvp_cli_report_error(&e, true);
}

/* The table's settings into the command's view of them (c->env, c->base), by
 * the step every command takes (kvp_deployment_settle; the GPU in
 * fit_cli_finish). The model the command loaded stays. */
static void sync(fit_cli *c) {
    const kvp_model *model = c->env.model;
    const char *dir = c->env.memory.model_dir;
    c->env = c->opt->deployment;
    c->env.model = model;
    c->env.memory.model_dir = dir;
    kvp_deployment_settle(&c->env, &c->opt->startup, NULL, false);
    c->base = c->opt->deployment.point;
    c->has_max_seq_len = kvp_options_given(c->opt, "--max-seq-len");
}

int fit_cli_read(fit_cli *c, const kvp__argv_own *own, int argc, char **argv) {
    kvp__argv_own words[24] = {{"--from", KVP__OWN_NAME, NULL, 0, 0, NULL},
                               {"--json", KVP__OWN_FLAG, &c->json, 0, 0, NULL},
                               {"--help", KVP__OWN_HELP, NULL, 0, 0, NULL}};
    size_t n = 3;
    for (size_t k = 0; own[k].name && n + 1 < sizeof words / sizeof words[0]; k++)
        words[n++] = own[k];
    char second[64];
    snprintf(second, sizeof second, "%s takes one MODEL, got a second: ", argv[0]);
    const kvp_cli_argv a = {.argv = {.own = words, .positional = &c->model_arg, .second = second,
                                     .second_key = ""},
                            .help = argv[0], .help_rows = true, .json = &c->json,
                            .unknown = unknown_option, .refusals_json = true};
    int rc = kvp_cli_read_argv(&a, c->opt, argc, argv);
    if (rc < 0) sync(c);
    return rc;
}

int fit_cli_from(fit_cli *c) {
    int rc = kvp_cli_from_apply(c->opt, c->json);
    if (rc < 0) sync(c);
    return rc;
}

int fit_cli_finish(fit_cli *c, const char *command) {
    if (!c->model_arg)
        return fit_cli_bad(c, KVP_INVALID_ARG, NULL,
                           "%s needs a MODEL (a config.json, a folder, or a name from 'kvplan "
                           "models')",
                           command);
    int trc = kvp_cli_table_finish(c->opt, c->json);
    if (trc >= 0) return trc;
    sync(c);
    kvp_error err;
    kvp_error_clear(&err);
    /* The GPU, looked up once, and the memory source (the options room's, settle.h);
     * its compute capability for the start-up rules (V-DT-1, S-DT-1, ...). */
    kvp__settled set;
    if (kvp__options_settle(c->opt, kvp_cli_gpu_catalog(), &set, &err) != KVP_OK)
        return kvp_cli_report_error(&err, c->json);
    c->gpu_info = set.gpu;
    c->has_gpu_info = set.gpu_known;
    kvp_deployment_settle(&c->env, NULL, set.gpu_known ? &set.gpu : NULL, false);
    if (!set.gpu_known && set.gpu_mem) c->env.memory.total_bytes = set.total_bytes;
    if (kvp__settle_memory_source(&c->env.memory, true, KVP__NAME_FLAGS, &err) != KVP_OK)
        return kvp_cli_report_error(&err, c->json);
    if (kvp_model_open(c->model_arg, NULL, &c->model, &err) != KVP_OK)
        return kvp_cli_report_error(&err, c->json);
    /* A checkpoint folder (or a config.json in one): exact weights from its
     * safetensors headers, as `kvplan plan` does. */
    c->env.memory.model_dir = kvp_cli_model_dir(c->model_arg, c->model_dir, sizeof c->model_dir);
    c->env.model = c->model;
    return kvp_cli_startup_inputs(c->model, &c->env.startup, c->json);
}

void fit_cli_free(fit_cli *c) {
    kvp_model_free(c->model);
    c->model = NULL;
    kvp_cli_table_use(NULL);
}

bool fit_eval_bad_input(const kvp_fit_eval *e) {
    return e->status != KVP_OK && e->status != KVP_INFEASIBLE && e->startup.first_refusal < 0;
}

int fit_eval_report(const kvp_fit_eval *e, bool json) {
    kvp_error err;
    kvp_error_clear(&err);
    err.code = e->status;
    kvp__strlcpy(err.key, e->key, sizeof err.key);
    kvp__strlcpy(err.message, e->message, sizeof err.message);
    return kvp_cli_report_error(&err, json);
}
