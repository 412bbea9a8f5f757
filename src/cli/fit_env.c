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


void fit_cli_usage(FILE *out, unsigned command) {
    fputs("  MODEL                        config.json, a folder holding one, or a catalogue name\n"
          "deployment settings (the option table, docs/options.md; terms not measured are\n"
          "estimated from the config):\n",
          out);
    kvp_cli_table_usage(out, command, KVP_OPTION_ENGINES_ALL);
    fputs("  --from \"ENGINE COMMAND\"       take the policy and options from a vllm serve,\n"
          "                               sglang.launch_server, llama-server or trtllm-serve line\n"
          "  --json                       machine-readable output\n",
          out);
}

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

int fit_cli_bad(const fit_cli *c, kvp_status code, const char *key, const char *fmt, ...) {
    kvp_error e;
    kvp_error_clear(&e);
    e.code = code;
    if (key) kvp__strlcpy(e.key, key, sizeof e.key);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e.message, sizeof e.message, fmt, ap);
    va_end(ap);
    return kvp_cli_report_error(&e, c->json);
}

int fit_cli_unknown_option(const fit_cli *c, const char *arg, const char *const *extra) {
    if (c->json) return fit_cli_bad(c, KVP_INVALID_ARG, arg, "unknown option '%s' (see --help)", arg);
    const char *known[KVP_OPTIONS_MAX * (KVP_OPTION_SPELLINGS_MAX + 1) + 24];
    size_t n = 0;
    const size_t cap = sizeof known / sizeof known[0] - 1;
    const char *const *table = kvp__option_names(c->opt ? c->opt->command : KVP_COMMAND_FIT);
    for (size_t k = 0; table[k] && n < cap; k++) known[n++] = table[k];
    static const char *const shared[] = {"--from", "--json", "--help", NULL};
    for (size_t k = 0; shared[k] && n < cap; k++) known[n++] = shared[k];
    for (size_t k = 0; extra[k] && n < cap; k++) known[n++] = extra[k];
    known[n] = NULL;
    return kvp_cli_unknown_option(arg, known);
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

int fit_cli_option(fit_cli *c, int argc, char **argv, int *i, bool *handled) {
    *handled = true;
    if (kvp_cli_flag(argv[*i], "--json")) {
        c->json = true;
        return -1;
    }
    int rc = kvp_cli_table_option(c->opt, argc, argv, i, c->json);
    if (rc > 0) return rc;
    if (rc < 0) {
        sync(c);
        return -1;
    }
    *handled = false;
    return -1;
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
