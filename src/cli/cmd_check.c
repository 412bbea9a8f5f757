/* cmd_check.c — `kvplan check MODEL --gpu G [--gpus N] (--policy P | --from CMD)`:
 * will the engine start? Every start-up rule of the engine (kvplan/startup.h)
 * with pass / refuse / adjust / warn / unknown, the engine's message and the fix.
 * Exit 0: the engine starts; 1: it refuses; 2: bad input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "command_help.h"
#include "cli_options.h"
#include "check_run.h"
#include "kvplan/deploy.h"
#include "from_cmd.h"
#include "startup_cli.h"
#include "text_internal.h"
#include "settle.h"
#include "util.h"

static int list_rules(void) {
    kvp_report_text t = {0};
    kvp__startup_rules_text(&t);
    int rc = kvp_cli_write_text(&t, stdout);
    kvp_report_text_free(&t);
    return rc >= 0 ? rc : KVP_EXIT_OK;
}

/* TensorRT-LLM settings --from emits that only the creator's memory plan reads
 * and no option-table row carries: accepted, not used here. */
static const char *const k_ignored_values[] = {"--max-gpu-total-bytes", "--max-attention-window",
                                               "--cross-kv-cache-fraction"};

static int check_main(int argc, char **argv);

/* --from "vllm serve ...": the engine's command fills the settings of the run. */
int kvp_cmd_check(int argc, char **argv) { return kvp_cli_from_run(argc, argv, check_main); }

static int check_main(int argc, char **argv) {
    kvp_cli_table_use(NULL); /* no spellings of an earlier command in this process */
    if (kvp_cli_reject_repeats(argc, argv)) return KVP_EXIT_BAD_INPUT;
    const char *model_arg = NULL;
    bool json = false;
    kvp_model *model = NULL;
    kvp_error err;
    kvp_error_clear(&err);
    /* The deployment settings come through the one option table (options.h); the
     * start-up settings and the rules' report are the options room's to fill. */
    kvp_startup_settings *ss = calloc(1, sizeof *ss);
    kvp_options *o = ss ? kvp_options_new(KVP_COMMAND_CHECK) : NULL;
    kvp_startup_report *rep = o ? calloc(1, sizeof *rep) : NULL;
    int rc = rep ? -1 : kvp_cli_fail("out of memory");
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--json")) json = true;
    if (rc < 0) rc = kvp_cli_from_apply(o, json); /* --from's settings first, argv on top */
    bool rules = false;
    const char *ignored = NULL;
    const kvp__argv_own own[] = {{"--json", KVP__OWN_FLAG, &json, 0, 0, NULL},
                                 {"--rules", KVP__OWN_LAST, &rules, 0, 0, NULL},
                                 {"--help", KVP__OWN_HELP, NULL, 0, 0, NULL},
                                 {"--from", KVP__OWN_NAME, NULL, 0, 0, NULL},
                                 {k_ignored_values[0], KVP__OWN_TEXT, &ignored, 0, 0, NULL},
                                 {k_ignored_values[1], KVP__OWN_TEXT, &ignored, 0, 0, NULL},
                                 {k_ignored_values[2], KVP__OWN_TEXT, &ignored, 0, 0, NULL},
                                 {NULL, 0, NULL, 0, 0, NULL}};
    const kvp_cli_argv c = {.argv = {.own = own, .positional = &model_arg,
                                     .second = "check: unexpected argument ",
                                     .second_tail = " (one MODEL only)"},
                            .help = "check", .help_puts = true, .help_rows = true, .json = &json};
    if (rc < 0) rc = kvp_cli_read_argv(&c, o, argc, argv);
    if (rc < 0 && rules) rc = list_rules();
    model_arg = kvp_cli_from_model(model_arg); /* the --from command's, unless given */
    if (rc < 0) rc = kvp_cli_table_finish(o, json);
    if (rc < 0 && !model_arg)
        rc = kvp_cli_needs_model("check", json);
    if (rc < 0 && !o->engine_given && !o->engine_implied)
        rc = kvp_cli_fail("check: name the engine: --policy vllm|sglang|trtllm|llamacpp, or "
                          "--from \"ENGINE COMMAND\"");
    /* The GPU looked up once (settle.h), the model, then the rules, the memory
     * rules on the one pipeline's plan (src/pipeline/check_run.c, kvp_json_call's
     * "check" too). */
    kvp__settled set;
    char model_dir[4096]; /* exact weights from a checkpoint folder's safetensors */
    if (rc < 0 && (kvp__options_settle(o, kvp_cli_gpu_catalog(), &set, &err) != KVP_OK ||
                   kvp_model_open(model_arg, NULL, &model, &err) != KVP_OK ||
                   kvp__options_check(o, &set, model,
                                      kvp_cli_model_dir(model_arg, model_dir, sizeof model_dir), ss,
                                      rep, &err) != KVP_OK))
        rc = kvp_cli_report_error(&err, json);
    if (rc < 0) {
        kvp_cli_startup_print(rep, ss, kvp_model_name(model), json);
        rc = rep->starts ? KVP_EXIT_OK : KVP_EXIT_NO;
    }
    free(rep);
    kvp_model_free(model);
    kvp_options_free(o);
    free(ss);
    return rc;
}
