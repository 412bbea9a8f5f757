/* bind_internal.h — JSON documents shared by the CLI (`--json`) and
 * kvp_json_call (kvplan/json.h), so that both print the same bytes: the CLI
 * prints what these return, plus a newline. */
#ifndef KVP_BIND_INTERNAL_H
#define KVP_BIND_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "kvplan/cost.h"
#include "kvplan/fit.h"
#include "options_struct.h" /* kvp_options' fields (opaque to library users) */
#include "kvplan/gpu.h"
#include "kvplan/model.h"

#include "json_call_opts.h"
#include "render_internal.h" /* KVP__JSON_FLAGS, the envelope */

/* kvp_json_call's commands over a deployment ("plan", "fit", "compare";
 * deploy_call.c): is `command` one, and answer `req` (an object). *out:
 * malloc'd text, freed with free(). */
bool kvp__deploy_command(const char *command);
kvp_status kvp__deploy_call(const char *command, const json_t *req, const kvp__json_call_opts *o,
                            char **out, kvp_error *err);

/* A deployment the pipeline did not plan (r->status != KVP_OK) as an error:
 * its message, and for a start-up rule's refusal the engine, the rule and
 * its fix (deploy_call.c). Returns r->status. */
struct kvp_deploy_result;
kvp_status kvp__not_planned(const struct kvp_deploy_result *r, kvp_error *err);

/* With several engines planned (compare, a sweep's policy axis): the options
 * given directly that e's engine does not read, appended to e's notes
 * ("X is not read under policy P: why", engine_reads.c), as `compare --json`
 * and kvp_json_call("compare") both show them. */
void kvp__unread_notes(const kvp_options *o, kvp_fit_eval *e);

/* The request's model: "model" (a string, see catalog_only) or "config" (a
 * config.json object read by the model's reader under the name
 * "config.json"); each NULL when missing. *out: a model the caller only reads
 * and gives back with kvp__request_model_release; a repeated request gets the
 * model parsed before (request_model.c: a small cache keyed by the catalogue
 * name, the path with its mtime and size, or the inline config's text). */
kvp_status kvp__request_model(const json_t *model, const json_t *config,
                              const kvp__json_call_opts *o, kvp_model **out, kvp_error *err);
/* Give back a model of kvp__request_model (NULL: nothing). */
void kvp__request_model_release(kvp_model *m);

/* `kvplan why` (why_call.c): a log read by src/logs/ set beside the plans of
 * its deployment. */
struct kvp_log;
typedef struct kvp__why_request {
    const struct kvp_log *log;
    const char *model;            /* --model / "model"; NULL: the log's */
    uint64_t target_concurrency;  /* 0: none */
    uint64_t target_context;      /* 0: none */
    const json_t *options;        /* option-table keys (an object), may be NULL */
    bool from_paste;              /* a pasted log: no path it names is opened */
    bool redact;                  /* lines, paths, hosts and keys redacted (serve, --record) */
} kvp__why_request;

/* The `kvplan why --json` document. *verdict: 0 every output figure
 * reproduced from the logged memory, 1 some not (listed in "unreproduced"). */
kvp_status kvp__why_json_text(const kvp__why_request *w, const kvp__json_call_opts *o, char **out,
                              int *verdict, kvp_error *err);
/* `kvplan why`'s deployment flags (the rows `plan` takes) into the request's
 * options object `opts` (why_call.c reads it as a request's keys): argv[*i]
 * ("--name V", "--name=V", a bare flag: "true") set under the row's name, '-'
 * read as '_', *i past a separate value. `name` gets the name typed. The row,
 * or NULL when argv[*i] is no row of plan (nothing consumed); *missing when its
 * value is missing (nothing set). */
const kvp_option *kvp__why_option(json_t *opts, int argc, char **argv, int *i, char name[64],
                                  bool *missing);
/* `kvplan why --record`: the case of document `doc` (kvp__why_json_text's
 * text) in the reference-case format (tests/reference/README.md), one line,
 * redacted (log_redact.h). *out: malloc'd, freed with free(). */
kvp_status kvp__why_record_text(const kvp__why_request *w, const char *doc, char **out,
                                kvp_error *err);
/* kvp_json_call "why". */
kvp_status kvp__why_call(const json_t *req, const kvp__json_call_opts *o, char **out, kvp_error *err);

#endif
