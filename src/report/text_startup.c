/* text_startup.c — the text of an engine's start-up rules (kvplan/startup.h):
 * `kvplan check`'s report, and the lines every planning command says on stderr
 * when a rule refuses ("vLLM would not start: V-PAR-1: ...", with the fix) or
 * the engine adjusts or warns. The fixes name flags as the user typed them
 * (`spell`, respell.h). The CLI writes what these render. */
#include <stdio.h>
#include <string.h>

#include "engine_ops.h"
#include "text_internal.h"

static void summary_line(kvp_report_text *t, const kvp_startup_report *rep) {
    kvp_report_appendf(t, "%s: %u pass, %u refuse, %u adjust, %u warn, %u unknown",
                       rep->starts ? (rep->counts[KVP_CHECK_UNKNOWN]
                                          ? "starts (unless an unknown refuses)"
                                          : "starts")
                                   : "refuses",
                       rep->counts[KVP_CHECK_PASS], rep->counts[KVP_CHECK_REFUSE],
                       rep->counts[KVP_CHECK_ADJUST], rep->counts[KVP_CHECK_WARN],
                       rep->counts[KVP_CHECK_UNKNOWN]);
    if (rep->undecided_count)
        kvp_report_appendf(t, "; %u not decidable offline", rep->undecided_count);
    if (rep->disabled_count) kvp_report_appendf(t, "; %u switched off", rep->disabled_count);
    if (rep->first_refusal >= 0)
        kvp_report_appendf(t, " (first refusal: %s)", rep->checks[rep->first_refusal].rule);
    kvp_report_append(t, "\n");
}

void kvp__check_text(const kvp_startup_report *rep, const kvp_startup_settings *ss,
                     const char *model_name, kvp__flag_spelling spell, const void *spell_ctx,
                     kvp_report_text *t) {
    char cc[16];
    kvp_gpu_cc_string(ss->gpu.compute_capability, cc, sizeof cc);
    kvp_report_appendf(t, "%s on %s%s%s", model_name ? model_name : "model",
                       kvp__engine_title(rep->engine), rep->engine_version[0] ? " " : "",
                       rep->engine_version);
    if (ss->gpu_known)
        kvp_report_appendf(t, ", %s (%s%s%s)", ss->gpu.name,
                           ss->gpu.gfx_target[0] ? ss->gpu.gfx_target
                           : cc[0]               ? "cc "
                                                 : "capability unknown",
                           ss->gpu.gfx_target[0] ? "" : cc, "");
    else
        kvp_report_append(t, ", GPU not named (capability unknown)");
    uint32_t tp = ss->policy.tp ? ss->policy.tp : 1, pp = ss->policy.pp ? ss->policy.pp : 1;
    kvp_report_appendf(t, ", TP %u, PP %u", tp, pp);
    if (ss->gpu_count)
        kvp_report_appendf(t, ", %u GPU%s visible", ss->gpu_count, ss->gpu_count == 1 ? "" : "s");
    kvp_report_append(t, "\n\n");
    for (uint32_t i = 0; i < rep->count; i++) {
        const kvp_check_row *c = &rep->checks[i];
        kvp_report_appendf(t, "%-8s %-7s %s%s\n", c->rule, kvp_check_status_name(c->status),
                           c->message, c->is_default ? " [default]" : "");
        char fix[sizeof c->fix];
        kvp__respell_flags(c->fix, spell, spell_ctx, fix, sizeof fix);
        if (fix[0] && c->status != KVP_CHECK_PASS) kvp_report_appendf(t, "%17sfix: %s\n", "", fix);
    }
    if (rep->undecided_count) {
        kvp_report_append(t, "\nnot decidable offline:\n");
        for (uint32_t i = 0; i < rep->undecided_count; i++)
            kvp_report_appendf(t, "%-8s %s\n", rep->undecided[i].rule, rep->undecided[i].reason);
    }
    /* A refused deployment does not run: no "runs with". */
    if (rep->starts)
        kvp_report_appendf(t, "\nruns with: dtype %s%s, max_model_len %llu%s\n",
                           kvp_dtype_name(rep->run_dtype),
                           rep->run_dtype_adjusted ? " (adjusted)" : "",
                           (unsigned long long)rep->max_model_len,
                           rep->max_model_len_adjusted ? " (adjusted)" : "");
    summary_line(t, rep);
}

void kvp__startup_refusal_text(kvp_engine engine, const kvp_deploy_startup *st,
                               kvp__flag_spelling spell, const void *spell_ctx,
                               kvp_report_text *t) {
    for (uint32_t i = 0; i < st->count; i++) {
        const kvp_check_row *c = &st->checks[i];
        if (c->status != KVP_CHECK_REFUSE) continue;
        kvp_report_appendf(t, "kvplan: %s would not start: %s: %s\n", kvp__engine_title(engine),
                           c->rule, c->message);
        char fix[sizeof c->fix];
        kvp__respell_flags(c->fix, spell, spell_ctx, fix, sizeof fix);
        if (fix[0]) kvp_report_appendf(t, "kvplan:   fix: %s\n", fix);
    }
    kvp_report_append(t, "kvplan: 'kvplan check' lists every start-up rule\n");
}

void kvp__startup_adjust_text(kvp_engine engine, const kvp_deploy_startup *st, bool skip_memory,
                              kvp_report_text *t) {
    for (uint32_t i = 0; i < st->count; i++) {
        const kvp_check_row *c = &st->checks[i];
        if (skip_memory && strstr(c->rule, "-MEM-")) continue;
        if (c->status == KVP_CHECK_ADJUST)
            kvp_report_appendf(t,
                               "kvplan: %s adjusts at start-up: %s: %s (the plan uses the adjusted "
                               "value)\n",
                               kvp__engine_title(engine), c->rule, c->message);
        else if (c->status == KVP_CHECK_WARN)
            kvp_report_appendf(t, "kvplan: %s warns at start-up: %s: %s\n",
                               kvp__engine_title(engine), c->rule, c->message);
    }
}

void kvp__startup_rules_text(kvp_report_text *t) {
    for (int e = 0; e < KVP_ENGINE_COUNT; e++) {
        kvp_report_appendf(t, "%s:\n", kvp_engine_name((kvp_engine)e));
        for (size_t i = 0; i < kvp_startup_rule_count((kvp_engine)e); i++) {
            kvp_startup_rule_info ri;
            if (kvp_startup_rule((kvp_engine)e, i, &ri) != KVP_OK) continue;
            kvp_report_appendf(t, "  %-9s %-22s %s%s%s\n", ri.id, ri.basis, ri.condition,
                               ri.is_default ? " [default]" : "",
                               ri.decidable ? "" : " [not decidable offline]");
        }
    }
}
