/* text_internal.h — the text of kvplan's commands (kvp__ tier), rendered by the
 * report room so the CLI only writes what it gets (issue 27 item 6: the CLI
 * presents, the library decides). Every function appends to a kvp_report_text
 * (kvplan/report.h): the caller owns it, checks it once at the end
 * (kvp_report_text_check) and frees it. Nothing here prints. */
#ifndef KVP_TEXT_INTERNAL_H
#define KVP_TEXT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kvplan/cost.h"
#include "kvplan/deploy.h"
#include "kvplan/fit.h"
#include "kvplan/local.h"
#include "kvplan/probe.h"
#include "kvplan/render.h"
#include "kvplan/report.h"
#include "kvplan/sim.h"
#include "kvplan/startup.h"
#include "respell.h"

/* ------------------------------------------------------------------ plan */

/* What `plan` under TensorRT-LLM shows beyond the result: the settings as
 * given (the text says "as given" / "measured" from them). */
typedef struct kvp__plan_text_opts {
    bool explain;                /* --explain: the formula behind every number */
    uint32_t tokens_per_block;   /* as given; 0 = TensorRT-LLM's 32 */
    uint64_t estimation_kv;      /* the temporary KV of the profiling pass, added back */
    double free_fraction;        /* free_gpu_memory_fraction as given; <= 0 = 0.9 */
    bool has_non_torch, has_cuda_graph; /* measured terms given */
} kvp__plan_text_opts;

/* `kvplan plan` under TensorRT-LLM (text_plan.c): `in` as kvp_render_plan_json
 * takes it (its notes are the caller's warnings, said before r->warnings; its
 * rules the engine rules around the creator). */
void kvp__trtllm_plan_text(const kvp_render_input *in, const kvp_deploy_result *r,
                           const kvp__plan_text_opts *o, kvp_report_text *t);

/* `kvplan plan` under vLLM, SGLang, llama.cpp (text_plan_policy.c): the
 * engine's own start-up lines, the admission rule, `notes` then the policy's. */
void kvp__policy_plan_text(const kvp_model *model, const kvp_deploy_result *res,
                           const char *const *notes, size_t note_count, kvp_report_text *t);
/* --explain under the policies: the memory terms with where each came from, the
 * budget's formula and each pool's arithmetic. */
void kvp__policy_explain_text(const kvp_deploy_result *res, const char *total_source,
                              kvp_report_text *t);
/* The start-up memory terms of `res`, one line each (docs/memory.md). */
void kvp__memory_terms_text(const kvp_deploy_result *res, kvp_report_text *t);
/* Lines "admitted at once ...", "admission rule ...", "reservation ...",
 * "steady state ..." indented by `indent`. */
void kvp__admission_text(kvp_report_text *t, const kvp_admission *a, const char *indent);
/* --svg FILE / --html FILE under the policies (either may be NULL): the memory
 * bar, and a page with the --explain text. */
kvp_status kvp__policy_pictures(const kvp_model *model, const kvp_deploy_result *res,
                                const char *total_source, const char *svg, const char *html,
                                kvp_error *err);

/* `kvplan plan` under any engine (text_plan_any.c): the creator's text for the
 * engine whose record says creator_plans, else the policy's (with the note on
 * estimated terms, and --explain's lines) into `t` (initialised here). */
void kvp__plan_text(const kvp_render_input *in, const kvp_deploy_result *r,
                    const kvp__plan_text_opts *o, kvp_report_text *t);
/* --svg FILE / --html FILE of that plan (either may be NULL), written
 * atomically; `text` the plan's text (the creator's page shows it),
 * `local_bytes` the model-local caches (--local) the creator's bar shows. */
kvp_status kvp__plan_pictures(const kvp_render_input *in, const kvp_deploy_result *r,
                              const char *text, uint64_t local_bytes, const char *svg,
                              const char *html, kvp_error *err);

/* --------------------------------------------------------------- start-up */

/* `kvplan check`'s text of report `rep` for settings `ss` (text_startup.c): the
 * rules one a line with their fixes (flags as `spell` says), what is not
 * decidable offline, "runs with" (only when it starts) and the summary. */
void kvp__check_text(const kvp_startup_report *rep, const kvp_startup_settings *ss,
                     const char *model_name, kvp__flag_spelling spell, const void *spell_ctx,
                     kvp_report_text *t);
/* The refusals of a deployment's start-up verdict, "kvplan: ENGINE would not
 * start: RULE: ..." with their fixes, then where to read every rule. */
void kvp__startup_refusal_text(kvp_engine engine, const kvp_deploy_startup *st,
                               kvp__flag_spelling spell, const void *spell_ctx,
                               kvp_report_text *t);
/* What the engine adjusts or warns about at start-up, one "kvplan: ..." line
 * each; `skip_memory` leaves out the memory rules (-MEM-). */
void kvp__startup_adjust_text(kvp_engine engine, const kvp_deploy_startup *st, bool skip_memory,
                              kvp_report_text *t);

/* ------------------------------------------------------ fit, compare, sweep */

/* What a row shows as its limit: the binding when planned, else the message,
 * "refused at start-up: V-PAR-1: ..." when a start-up rule refused (buf). */
const char *kvp__fit_eval_reason(const kvp_fit_eval *e, char *buf, size_t n);
/* The sequences of max_seq_len the engine runs at once, as `plan` prints them
 * ("admitted at once"): the KV cache's count capped by the scheduler's
 * (vLLM max_num_seqs, SGLang max_running_requests, TensorRT-LLM
 * max_batch_size); *why names what binds. `compare` and `sweep` print this,
 * never the KV count alone under a cap that binds. */
uint64_t kvp__fit_eval_admitted(const kvp_fit_eval *e, const char **why);

/* `kvplan compare`'s table of `n` evaluated engines (text_fit.c); `gpu` NULL
 * when none was named. */
void kvp__compare_text(const kvp_model *model, const kvp_gpu_info *gpu, const kvp_fit_eval *ev,
                       size_t n, kvp_report_text *t);
/* `compare --html FILE`: the table and a memory bar per engine planned. */
kvp_status kvp__compare_html(const char *path, const kvp_model *model, const kvp_gpu_info *gpu,
                             const kvp_fit_eval *ev, size_t n, kvp_error *err);
/* `kvplan fit`'s answer to `req` as text, and `fit --svg FILE`: the memory bar
 * of the plan at the answer. */
void kvp__fit_text(const kvp_model *model, const kvp_gpu_info *gpu, const kvp_fit_request *req,
                   const kvp_fit_answer *ans, kvp_report_text *t);
kvp_status kvp__fit_svg(const char *path, const kvp_model *model, const kvp_gpu_info *gpu,
                        const kvp_fit_request *req, const kvp_fit_answer *ans, kvp_error *err);

/* `kvplan sweep` (text_sweep.c): the table's head, and one row as a table line
 * or a CSV record (the CSV head is KVP__SWEEP_CSV_HEAD). */
#define KVP__SWEEP_CSV_HEAD                                                                   \
    "policy,tp,pp,kv_dtype,max_seq_len,ok,budget_bytes,kv_bytes,tokens,blocks,"             \
    "max_sequences,longest_sequence_tokens,bound_by\n"
void kvp__sweep_text_head(const char *model_name, const char *gpu_name, uint64_t count,
                          kvp_report_text *t);
void kvp__sweep_text_row(const kvp_fit_eval *e, kvp_report_text *t);
void kvp__sweep_csv_row(const kvp_fit_eval *e, kvp_report_text *t);
/* What `sweep --svg / --html` keeps of a row (the rest is written and dropped
 * as the grid is planned): the point, its figures and the reason shown. */
typedef struct kvp__sweep_keep {
    kvp_fit_point point;
    bool ok;
    uint64_t budget_bytes, tokens, blocks, max_sequences; /* max_sequences: as admitted */
    char *why;                   /* binding, or the error (the caller's, malloc'd) */
} kvp__sweep_keep;
/* What the chart keeps of row `e` into *k: its figures, the sequences as the
 * table prints them and the reason (strdup'd into k->why). */
kvp_status kvp__sweep_keep_row(const kvp_fit_eval *e, kvp__sweep_keep *k, kvp_error *err);
/* The chart (max sequences against max_seq_len, a line per combination of the
 * other axes of `grid`) to `svg_path`, and a page with it and every row to
 * `html_path` (either may be NULL). `gpu_name` NULL when none. */
struct kvp_sweep_grid;
kvp_status kvp__sweep_pictures(const char *model_name, const char *gpu_name,
                               const struct kvp_sweep_grid *grid, const kvp__sweep_keep *rows,
                               size_t count, const char *svg_path, const char *html_path,
                               kvp_error *err);

/* -------------------------------------------------------------------- sim */

/* What `kvplan sim`'s text says of the replay's settings. */
typedef struct kvp__sim_text_in {
    const char *workload, *synthetic;  /* --workload FILE, else --synthetic SPEC */
    uint32_t max_batch, max_tokens;
    uint64_t max_model_len, max_new_tokens; /* max_new_tokens 0: max_model_len - prompt */
    bool no_chunked, no_reuse, no_timing;
    kvp_sim_policy policy;
} kvp__sim_text_in;
/* `kvplan sim`'s report of replay `r` over pools `pc` (text_sim.c). */
void kvp__sim_text(const kvp__sim_text_in *j, const kvp_model *m, const kvp_pool_config *pc,
                   const kvp_sim_result *r, kvp_report_text *t);
/* `sim --svg FILE`: block utilization and running requests over steps. */
kvp_status kvp__sim_svg(const char *path, const kvp_sim_result *r, kvp_error *err);

/* ------------------------------------------------------------ local, gpus */

/* `kvplan local`'s report of the model-local caches `r` (text_local_gpus.c). */
void kvp__local_text(const kvp_local_report *r, kvp_report_text *t);
/* `kvplan gpus --catalog`: the `n` GPUs of `list`, then what the columns mean. */
void kvp__gpus_catalog_text(const kvp_gpu_info *list, size_t n, kvp_report_text *t);
/* `kvplan gpus`: what the probe found (`st` its status: "no GPU found" and
 * the notes when not KVP_OK). */
void kvp__gpus_live_text(const kvp_probe_result *r, kvp_status st, kvp_report_text *t);

/* -------------------------------------------------------------------- why */

/* `kvplan why`'s table of the document `doc_text` (kvp__why_json_text, JSON
 * text); `cut_line_bytes` the log reader's line limit, said when lines were
 * cut (text_why.c). Nothing when the text is no JSON. */
void kvp__why_text(const char *doc_text, unsigned cut_line_bytes, kvp_report_text *t);

/* ------------------------------------------------------------------- cost */

/* `kvplan cost`'s report of cost `c` of model `m` under settings `s`, the
 * `nw` notes, and with `layers` the per-layer table (text_cost.c). A failure of
 * an exact per-sequence or per-layer figure stops the text there and is
 * returned. */
kvp_status kvp__cost_text(const kvp_model *m, const kvp_cost_settings *s, const kvp_cost *c,
                          bool layers, const char *const *warnings, size_t nw,
                          kvp_report_text *t, kvp_error *err);

/* `kvplan check --rules`: every engine's start-up rules, one a line. */
void kvp__startup_rules_text(kvp_report_text *t);
/* `kvplan models [FILTER]`: the entries and aliases FILTER matches (NULL: all);
 * returns how many (text_models.c). */
size_t kvp__models_text(const char *filter, kvp_report_text *t);

/* An error as `--json` prints it: one line {"error": {"code", "message" (as
 * given, already escaped for a terminal), "file", "key", "line", "column"}}. */
void kvp__error_json_line(const kvp_error *err, const char *message, kvp_report_text *t);

#endif
