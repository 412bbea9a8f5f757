/* text_plan_any.c — `kvplan plan`'s text and pictures under any engine: the
 * creator's (text_plan.c) for the engine whose record says creator_plans
 * (engine_ops.h), the engine policies' (text_plan_policy.c) otherwise. */
#include "kvplan/report.h"
#include "render_internal.h"
#include "text_internal.h"

void kvp__plan_text(const kvp_render_input *in, const kvp_deploy_result *r,
                    const kvp__plan_text_opts *o, kvp_report_text *t) {
    kvp_report_text_init(t, NULL);
    if (kvp__report_creator_plans(r->point.engine)) {
        kvp__trtllm_plan_text(in, r, o, t);
        return;
    }
    /* The note on estimated terms: the JSON renderer adds it itself (the same
     * for kvp_json_call); the text says it here. */
    char note[KVP_NOTE_TEXT_MAX];
    const char *notes[] = {note};
    kvp__policy_plan_text(in->model, r, notes, kvp__estimated_note(r, note, sizeof note) ? 1 : 0, t);
    if (o->explain) kvp__policy_explain_text(r, in->total_source, t);
}

kvp_status kvp__plan_pictures(const kvp_render_input *in, const kvp_deploy_result *r,
                              const char *text, uint64_t local_bytes, const char *svg,
                              const char *html, kvp_error *err) {
    if (!kvp__report_creator_plans(r->point.engine))
        return svg || html ? kvp__policy_pictures(in->model, r, in->total_source, svg, html, err)
                           : KVP_OK;
    const char *name = kvp_model_name(in->model);
    const kvp_memory_facts *mf = r->have_memory ? &r->memory : NULL;
    kvp_status st = KVP_OK;
    if (svg) st = kvp_report_write_plan_svg(svg, name, mf, &r->cap, &r->plan, local_bytes, err);
    if (st == KVP_OK && html)
        st = kvp_report_write_plan_html(html, name, text, mf, &r->cap, &r->plan, local_bytes, err);
    return st;
}
