/* json_admission.c — a deployment's admission rule (deploy.h's kvp_admission) in
 * every plan document: "admitted" beside the plain fit count, and the rule, the
 * reservation assumed and what binds (docs/admission.md). */
#include "render_internal.h"

#define set kvp__jw_set
#define U kvp__jv_u64
#define STR kvp__jv_str
#define NUL kvp__jv_null()

static kvp__jv count_or_null(uint64_t v) { return v == UINT64_MAX ? NUL : U(v); }

kvp__jv kvp__admitted_jv(const kvp_admission *a) {
    return a->present ? count_or_null(a->admitted) : NUL;
}

json_t *kvp__admitted_json(const kvp_admission *a) { return kvp__jv_json(kvp__admitted_jv(a)); }

void kvp__admission_write(kvp__jw *w, const kvp_admission *a) {
    bool trt = a->policy != KVP_CAPACITY_DEFAULT;
    /* Without a prompt length the default max_new_tokens is "max_seq_len - prompt". */
    bool unknown_n = a->max_new_tokens_default && !a->prompt_tokens;
    set(w, "rule", STR(a->rule));
    set(w, "capacity_scheduler_policy", trt ? STR(kvp_capacity_policy_name(a->policy)) : NUL);
    set(w, "reserves", kvp__jv_bool(a->reserves));
    set(w, "reservation", STR(a->reservation));
    set(w, "prompt_tokens", a->prompt_tokens ? U(a->prompt_tokens) : NUL);
    set(w, "max_new_tokens", unknown_n ? NUL : U(a->max_new_tokens));
    set(w, "max_new_tokens_source", STR(a->max_new_tokens_default ? "max_seq_len - prompt" : "given"));
    set(w, "output_tokens", a->prompt_tokens ? U(a->output_tokens) : NUL);
    set(w, "reservation_tokens", a->reserves ? U(a->reservation_tokens) : NUL);
    set(w, "reservation_blocks", a->reservation_blocks ? U(a->reservation_blocks) : NUL);
    set(w, "kv_admitted", a->present ? count_or_null(a->kv_admitted) : NUL);
    set(w, "scheduler_capacity", count_or_null(a->scheduler_capacity));
    set(w, "seq_slots", a->seq_slots ? count_or_null(a->seq_slots) : NUL);
    set(w, "admitted", kvp__admitted_jv(a));
    set(w, "cap_binds", kvp__jv_bool(a->cap_binds));
    set(w, "bound_by", STR(a->binding));
    set(w, "steady_state", a->has_steady_state ? count_or_null(a->steady_state) : NUL);
    set(w, "refused", a->refused[0] ? STR(a->refused) : NUL);
}
