/* json_admission.c — a deployment's admission rule (deploy.h's kvp_admission) in
 * every plan document: "admitted" beside the plain fit count, and the rule, the
 * reservation assumed and what binds (docs/admission.md). */
#include "render_internal.h"

static json_t *count_or_null(uint64_t v) { return v == UINT64_MAX ? json_null() : kvp__json_u64(v); }

json_t *kvp__admitted_json(const kvp_admission *a) {
    return a->present ? count_or_null(a->admitted) : json_null();
}

json_t *kvp__admission_json(const kvp_admission *a) {
    json_t *o = json_object();
    bool trt = a->policy != KVP_CAPACITY_DEFAULT;
    /* Without a prompt length the default max_new_tokens is "max_seq_len - prompt". */
    bool unknown_n = a->max_new_tokens_default && !a->prompt_tokens;
    json_object_set_new(o, "rule", json_string(a->rule));
    json_object_set_new(o, "capacity_scheduler_policy",
                        trt ? json_string(kvp_capacity_policy_name(a->policy)) : json_null());
    json_object_set_new(o, "reserves", json_boolean(a->reserves));
    json_object_set_new(o, "reservation", json_string(a->reservation));
    json_object_set_new(o, "prompt_tokens", a->prompt_tokens ? kvp__json_u64(a->prompt_tokens) : json_null());
    json_object_set_new(o, "max_new_tokens", unknown_n ? json_null() : kvp__json_u64(a->max_new_tokens));
    json_object_set_new(o, "max_new_tokens_source",
                        json_string(a->max_new_tokens_default ? "max_seq_len - prompt" : "given"));
    json_object_set_new(o, "output_tokens",
                        a->prompt_tokens ? kvp__json_u64(a->output_tokens) : json_null());
    json_object_set_new(o, "reservation_tokens",
                        a->reserves ? kvp__json_u64(a->reservation_tokens) : json_null());
    json_object_set_new(o, "reservation_blocks",
                        a->reservation_blocks ? kvp__json_u64(a->reservation_blocks) : json_null());
    json_object_set_new(o, "kv_admitted", a->present ? count_or_null(a->kv_admitted) : json_null());
    json_object_set_new(o, "scheduler_capacity", count_or_null(a->scheduler_capacity));
    json_object_set_new(o, "seq_slots", a->seq_slots ? count_or_null(a->seq_slots) : json_null());
    json_object_set_new(o, "admitted", kvp__admitted_json(a));
    json_object_set_new(o, "cap_binds", json_boolean(a->cap_binds));
    json_object_set_new(o, "bound_by", json_string(a->binding));
    json_object_set_new(o, "steady_state",
                        a->has_steady_state ? count_or_null(a->steady_state) : json_null());
    json_object_set_new(o, "refused", a->refused[0] ? json_string(a->refused) : json_null());
    return o;
}
