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

#include "kvplan/deploy.h"
#include "kvplan/fit.h"
#include "kvplan/render.h"
#include "kvplan/report.h"
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

#endif
