/*
 * startup.c — the start-up check runner (kvplan/startup.h): builds the
 * context once (capability, versions, the checkpoint's dtype and
 * quantization, the lengths), then walks the engine's table in the order the
 * engine checks, skipping rules switched off, and sums the statuses.
 */
#include <ctype.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "engine_ops.h"
#include "startup_internal.h"
#include "startup_resume.h"

const char *kvp_check_status_name(kvp_check_status st) {
    switch (st) {
    case KVP_CHECK_PASS: return "pass";
    case KVP_CHECK_REFUSE: return "refuse";
    case KVP_CHECK_ADJUST: return "adjust";
    case KVP_CHECK_WARN: return "warn";
    case KVP_CHECK_UNKNOWN: return "unknown";
    default: return "?";
    }
}

kvp_status kvp_run_dtype_parse(const char *t, kvp_run_dtype *out) {
    if (!t || !out) return KVP_INVALID_ARG;
    static const struct {
        const char *name;
        kvp_run_dtype d;
    } k[] = {{"auto", KVP_RUN_DTYPE_AUTO},         {"float16", KVP_RUN_DTYPE_FLOAT16},
             {"half", KVP_RUN_DTYPE_FLOAT16},      {"fp16", KVP_RUN_DTYPE_FLOAT16},
             {"bfloat16", KVP_RUN_DTYPE_BFLOAT16}, {"bf16", KVP_RUN_DTYPE_BFLOAT16},
             {"float32", KVP_RUN_DTYPE_FLOAT32},   {"float", KVP_RUN_DTYPE_FLOAT32},
             {"fp32", KVP_RUN_DTYPE_FLOAT32}};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        if (kvp__strcasecmp(t, k[i].name) == 0) {
            *out = k[i].d;
            return KVP_OK;
        }
    return KVP_INVALID_ARG;
}

const char *kvp_run_dtype_name(kvp_run_dtype d) {
    switch (d) {
    case KVP_RUN_DTYPE_FLOAT16: return "float16";
    case KVP_RUN_DTYPE_BFLOAT16: return "bfloat16";
    case KVP_RUN_DTYPE_FLOAT32: return "float32";
    default: return "auto";
    }
}

kvp_startup_settings kvp_startup_settings_default(void) {
    kvp_startup_settings s;
    memset(&s, 0, sizeof s);
    s.policy = kvp_policy_settings_default();
    s.enable_prefix_caching = -1;
    s.enable_chunked_prefill = -1;
    return s;
}

kvp_status kvp_startup_set_env(kvp_startup_settings *s, const char *a, kvp_error *err) {
    if (!s || !a) return kvp__fail(err, KVP_INVALID_ARG, NULL, "env", "NULL argument");
    const char *eq = strchr(a, '=');
    size_t n = eq ? (size_t)(eq - a) : 0;
    bool ok = eq && n > 0 && n < 128 && strlen(eq + 1) < 128 &&
              (isalpha((unsigned char)a[0]) || a[0] == '_');
    for (size_t i = 0; ok && i < n; i++) ok = isalnum((unsigned char)a[i]) || a[i] == '_';
    if (!ok)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "env",
                         "'%.80s': expected NAME=VALUE (a name of letters, digits and _; "
                         "name and value under 128 bytes)", a);
    uint32_t k = 0;
    while (k < s->env_count && (strlen(s->env[k][0]) != n || strncmp(s->env[k][0], a, n) != 0)) k++;
    if (k == s->env_count) {
        if (s->env_count >= KVP_STARTUP_MAX_ENV)
            return kvp__fail(err, KVP_INVALID_ARG, NULL, "env", "more than %d variables",
                             KVP_STARTUP_MAX_ENV);
        s->env_count++;
    }
    memcpy(s->env[k][0], a, n);
    s->env[k][0][n] = '\0';
    kvp__strlcpy(s->env[k][1], eq + 1, sizeof s->env[k][1]);
    return KVP_OK;
}

static const kvp__startup_rule *table_of(kvp_engine e, size_t *n) {
    const kvp__engine_ops *ops = kvp__engine_ops_of(e);
    *n = ops ? *ops->startup_rule_count : 0;
    return ops ? ops->startup_rules : NULL;
}

kvp_status kvp_startup_disable(kvp_startup_settings *s, const char *id, kvp_error *err) {
    if (!s || !id) return kvp__fail(err, KVP_INVALID_ARG, NULL, "disabled_rules", "NULL argument");
    bool known = strcmp(id, "defaults") == 0;
    for (int e = 0; e < KVP_ENGINE_COUNT && !known; e++) {
        size_t n;
        const kvp__startup_rule *t = table_of((kvp_engine)e, &n);
        for (size_t i = 0; i < n && !known; i++) known = kvp__strcasecmp(t[i].id, id) == 0;
    }
    if (!known)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "disabled_rules",
                         "unknown rule '%.40s' (ids such as V-PAR-2; 'defaults' = every "
                         "knowledge default; 'kvplan check --rules' lists them)", id);
    if (s->disabled_count >= KVP_STARTUP_MAX_DISABLED)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "disabled_rules", "more than %d rules",
                         KVP_STARTUP_MAX_DISABLED);
    kvp__strlcpy(s->disabled[s->disabled_count++], id, sizeof s->disabled[0]);
    return KVP_OK;
}

size_t kvp_startup_rule_count(kvp_engine e) {
    size_t n;
    (void)table_of(e, &n);
    return n;
}

kvp_status kvp_startup_rule(kvp_engine e, size_t i, kvp_startup_rule_info *out) {
    size_t n;
    const kvp__startup_rule *t = table_of(e, &n);
    if (!out || i >= n) return KVP_INVALID_ARG;
    out->id = t[i].id;
    out->versions = t[i].versions;
    out->basis = t[i].basis;
    out->condition = t[i].condition;
    out->fix = t[i].fix;
    out->is_default = t[i].is_default;
    out->decidable = t[i].eval != NULL;
    out->undecidable_reason = t[i].undecidable ? t[i].undecidable : "";
    return KVP_OK;
}

/* ---------------------------------------------------------------- helpers */

void kvp__check_set(kvp_check_row *row, kvp_check_status st, const char *fix, const char *fmt,
                    ...) {
    row->status = st;
    kvp__strlcpy(row->fix, fix ? fix : "", sizeof row->fix);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(row->message, sizeof row->message, fmt, ap);
    va_end(ap);
}

void kvp__startup_cc_unknown(kvp_check_row *row, const char *fix, const char *needs, ...) {
    char what[sizeof row->message];
    va_list ap;
    va_start(ap, needs);
    vsnprintf(what, sizeof what, needs, ap);
    va_end(ap);
    kvp__check_set(row, KVP_CHECK_UNKNOWN, fix, "%s: the GPU's capability is not known", what);
}

const char *kvp__startup_settings_env(const kvp_startup_settings *s, const char *name) {
    for (uint32_t i = 0; i < s->env_count; i++)
        if (strcmp(s->env[i][0], name) == 0) return s->env[i][1];
    return NULL;
}

const char *kvp__startup_env(const kvp__startup_ctx *c, const char *name) {
    return kvp__startup_settings_env(c->s, name);
}

bool kvp__startup_env_true(const kvp__startup_ctx *c, const char *name) {
    const char *v = kvp__startup_env(c, name);
    return v && (strcmp(v, "1") == 0 || kvp__strcasecmp(v, "true") == 0 ||
                 kvp__strcasecmp(v, "yes") == 0 || kvp__strcasecmp(v, "on") == 0);
}

void kvp__startup_tp_list(const uint64_t *dims, size_t n, uint64_t block, uint32_t limit,
                          char *buf, size_t size) {
    size_t len = 0;
    buf[0] = '\0';
    for (uint32_t tp = 1; tp <= limit; tp++) {
        bool ok = true;
        for (size_t i = 0; i < n && ok; i++) {
            if (!dims[i]) continue;
            ok = dims[i] % tp == 0 && (!block || (dims[i] / tp) % block == 0);
        }
        if (!ok) continue;
        int w = snprintf(buf + len, size - len, "%s%u", len ? ", " : "", tp);
        if (w < 0 || (size_t)w >= size - len) break;
        len += (size_t)w;
    }
    if (!len) kvp__strlcpy(buf, "none", size);
}

double kvp__startup_gib(uint64_t b) { return (double)b / 1073741824.0; }

/* The routed experts' TP split: 1 (whole experts per rank) under vLLM's
 * --enable-expert-parallel (FusedMoEParallelConfig.make: MoE TP = 1), SGLang's
 * moe_tp_size = tp_size // ep_size (parallel_state.py; STARTUP.md A.2). */
static uint32_t expert_split(const kvp__startup_ctx *c) {
    if (c->s->enable_expert_parallel) return 1;
    uint32_t ep = c->s->ep_size;
    if (ep > 1 && c->tp % ep == 0) return c->tp / ep;
    return c->tp;
}

size_t kvp__startup_split_widths(const kvp__startup_ctx *c, const char **names, uint64_t *values,
                                 uint32_t *splits, size_t cap) {
    size_t n = 0;
    const kvp_model_info *i = c->info;
    /* With experts and no moe_intermediate_size, intermediate_size is the routed
     * experts' width (MiniMax-M2: vLLM MiniMaxM2MoE, SGLang FusedMoE read it as
     * such, STARTUP.md V-PAR-9 / S-PAR-3): split like the experts, not by TP. */
    bool expert_width = i->num_experts && !i->moe_intermediate_size;
    if (i->intermediate_size && n < cap &&
        (expert_width || i->num_experts == 0 || i->first_k_dense_replace > 0 ||
         c->facts->shared_expert_intermediate_size == 0)) {
        names[n] = "intermediate_size";
        splits[n] = expert_width ? expert_split(c) : c->tp;
        values[n++] = i->intermediate_size;
    }
    /* Routed experts are split by the MoE TP (whole under expert parallelism). */
    if (i->num_experts && i->moe_intermediate_size && n < cap) {
        names[n] = "moe_intermediate_size";
        splits[n] = expert_split(c);
        values[n++] = i->moe_intermediate_size;
    }
    /* Shared experts are TP-split even with EP (Qwen3-Next-80B-A3B-FP8 at TP 8). */
    if (c->facts->shared_expert_intermediate_size && n < cap) {
        names[n] = "shared_expert_intermediate_size";
        splits[n] = c->tp;
        values[n++] = c->facts->shared_expert_intermediate_size;
    }
    return n;
}

bool kvp__startup_need_plan(kvp__startup_ctx *c, kvp_check_row *row, const kvp_policy_result **r) {
    if (!c->plan) {
        kvp__check_set(row, KVP_CHECK_UNKNOWN, "name the GPU (--gpu) or give its memory (--gpu-mem)",
                       "no memory plan: the GPU memory is not known");
        return false;
    }
    if (c->plan->status == KVP_OK && c->plan->result) {
        *r = c->plan->result;
        return true;
    }
    return false;
}

void kvp__startup_headroom(kvp__startup_ctx *c, kvp_check_row *row) {
    const kvp_policy_result *r;
    if (!kvp__startup_need_plan(c, row, &r)) {
        if (c->plan) kvp__check_set(row, KVP_CHECK_UNKNOWN, "", "no memory plan (see the KV budget rule)");
        return;
    }
    const kvp_startup_plan_input *p = c->plan;
    const char *terms = p->headroom_terms && *p->headroom_terms ? p->headroom_terms : "none";
    if (!p->headroom_compared) {
        kvp__check_set(row, KVP_CHECK_PASS, "", "nothing modelled is allocated after the KV cache");
    } else if (p->headroom_refused) {
        kvp__check_set(row, KVP_CHECK_REFUSE, "lower the memory fraction or the batch (graph sizes)",
                       "CUDA out of memory after the KV cache is allocated: %.2f GiB of exact or "
                       "bounded start-up terms (%s) > %.2f GiB left (%.2f GiB after sizing + the "
                       "freed profile activations)",
                       kvp__startup_gib(p->headroom_sure_bytes), terms,
                       kvp__startup_gib(p->headroom_startup_bytes),
                       kvp__startup_gib(p->headroom_bytes));
    } else if (p->headroom_short) {
        kvp__check_set(row, KVP_CHECK_WARN, "lower the memory fraction or the batch",
                       "%.2f GiB allocated after the KV cache (%s) > %.2f GiB left: estimated "
                       "terms or load-time allocations; bound: %.2f GiB exact or bounded at "
                       "start-up of %.2f GiB there",
                       kvp__startup_gib(p->headroom_need_bytes), terms,
                       kvp__startup_gib(p->headroom_bytes), kvp__startup_gib(p->headroom_sure_bytes),
                       kvp__startup_gib(p->headroom_startup_bytes));
    } else {
        kvp__check_set(row, KVP_CHECK_PASS, "", "%.2f GiB allocated after the KV cache fit %.2f GiB left",
                       kvp__startup_gib(p->headroom_need_bytes), kvp__startup_gib(p->headroom_bytes));
    }
}

void kvp__startup_set_run_dtype(kvp__startup_ctx *c, kvp_dtype d) {
    if (c->rep->run_dtype != d) c->rep->run_dtype_adjusted = true;
    c->rep->run_dtype = d;
}

const char *kvp__startup_cc(const kvp__startup_ctx *c, char *buf, size_t size) {
    if (c->amd && c->s->gpu.gfx_target[0]) {
        snprintf(buf, size, "%u.%u (%s)", c->cc / 10, c->cc % 10, c->s->gpu.gfx_target);
        return buf;
    }
    return kvp_gpu_cc_string(c->cc, buf, size);
}

/* ------------------------------------------------------------------ runner */

static bool disabled(const kvp_startup_settings *s, const kvp__startup_rule *r) {
    for (uint32_t i = 0; i < s->disabled_count; i++) {
        if (kvp__strcasecmp(s->disabled[i], r->id) == 0) return true;
        if (r->is_default && strcmp(s->disabled[i], "defaults") == 0) return true;
    }
    return false;
}

static void lower_copy(char *dst, const char *src, size_t size) {
    size_t i = 0;
    for (; src[i] && i + 1 < size; i++) dst[i] = (char)tolower((unsigned char)src[i]);
    dst[i] = '\0';
}

uint64_t kvp__startup_default_len(const kvp_model *model, const kvp_startup_settings *s) {
    if (!model || !s) return 0;
    const kvp_model_startup *f = kvp_model_get_startup(model);
    const kvp_model_info *info = kvp_model_get_info(model);
    /* GGUF n_ctx_train, geometry JSON: the stated length, 0 (unknown) when none. */
    uint64_t fallback = info->max_position_embeddings;
    if (!f->from_config) return fallback;
    switch (s->policy.engine) {
    case KVP_ENGINE_VLLM: return f->vllm_max_len;
    case KVP_ENGINE_SGLANG: return f->sglang_context_len;
    case KVP_ENGINE_TRTLLM: return f->trtllm_max_seq_len;
    default: return fallback;
    }
}

/* The rules that read the memory plan (kvp_startup_plan_input) or the device
 * memory the pipeline fills in after it (policy.total_memory_bytes,
 * free_memory_bytes): every memory rule, and the two length rules that read
 * the pool (V-LEN-5 auto-fit, S-LEN-2). Naming a rule here that does not read
 * them only costs its second evaluation; leaving one out would copy a stale
 * row (test_startup_once.c would see it). */
static bool reads_plan(const char *id) {
    return (id[0] && strncmp(id + 1, "-MEM-", 5) == 0) || strcmp(id, "V-LEN-5") == 0 ||
           strcmp(id, "S-LEN-2") == 0;
}

static kvp__startup_state state_of(const kvp_startup_report *rep) {
    kvp__startup_state st = {rep->max_model_len, rep->run_dtype, rep->max_model_len_adjusted,
                             rep->run_dtype_adjusted};
    return st;
}

static bool same_state(const kvp__startup_state *a, const kvp__startup_state *b) {
    return a->max_model_len == b->max_model_len && a->run_dtype == b->run_dtype &&
           a->max_model_len_adjusted == b->max_model_len_adjusted &&
           a->run_dtype_adjusted == b->run_dtype_adjusted;
}

/* The runner: `pre` / `prior` (both or neither) give rows to copy; `trace`
 * (may be NULL) records this pass. */
static kvp_status run(const kvp_model *model, const kvp_startup_settings *s,
                      const kvp_startup_plan_input *plan, kvp_startup_report *rep,
                      const kvp_startup_report *pre, const kvp__startup_trace *prior,
                      kvp__startup_trace *trace, kvp_error *err) {
    if (!model || !s || !rep)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "NULL model, settings or report");
    /* Everything but the rows, which are cleared as they are filled: the pipeline
     * runs this twice per planned point (deploy_startup.c). */
    memset(rep, 0, offsetof(kvp_startup_report, checks));
    memset(rep->counts, 0, sizeof *rep - offsetof(kvp_startup_report, counts));
    rep->engine = s->policy.engine;
    kvp__strlcpy(rep->engine_version, s->policy.engine_version, sizeof rep->engine_version);
    rep->first_refusal = -1;
    size_t n;
    const kvp__startup_rule *t = table_of(s->policy.engine, &n);
    if (!t) return kvp__fail(err, KVP_INVALID_ARG, NULL, "engine", "no start-up rules for this engine");
    if (trace) {
        trace->valid = n <= KVP__STARTUP_TRACE_MAX;
        for (size_t i = 0; i < n && i < KVP__STARTUP_TRACE_MAX; i++) trace->at[i].row = -1;
    }
    if (prior && !prior->valid) prior = NULL;

    kvp__startup_ctx c;
    memset(&c, 0, sizeof c);
    c.model = model;
    c.info = kvp_model_get_info(model);
    c.facts = kvp_model_get_startup(model);
    c.s = s;
    c.plan = plan;
    c.rep = rep;
    c.tp = s->policy.tp ? s->policy.tp : 1;
    c.pp = s->policy.pp ? s->policy.pp : 1;
    c.dp = s->policy.dp ? s->policy.dp : 1;
    c.gpus_stated = s->gpu_count > 0;
    c.gpus = s->gpu_count ? s->gpu_count : c.tp * c.pp * c.dp;
    if (!kvp__policy_version(s->policy.engine_version, &c.version)) c.version = 0;
    c.build = kvp__policy_build_number(s->policy.engine_version);
    c.amd = strcmp(s->gpu.vendor, "amd") == 0;
    c.cc = s->gpu.compute_capability;
    c.ckpt_dtype = c.info->dtype == KVP_DTYPE_AUTO ? KVP_DTYPE_BF16 : c.info->dtype;
    lower_copy(c.quant, s->quantization[0] ? s->quantization : c.info->quant_method, sizeof c.quant);
    c.block_fp8 = c.facts->weight_block_n > 0 &&
                  (strcmp(c.quant, "fp8") == 0 || strstr(c.info->weight_quant, "fp8") != NULL ||
                   strcmp(c.info->quant_method, "fp8") == 0);
    c.heads = c.info->num_attention_heads;
    c.kv_heads = c.info->is_mla ? 1 : c.info->num_kv_heads;
    c.user_len = s->policy.engine == KVP_ENGINE_LLAMACPP ? s->policy.n_ctx : s->policy.max_model_len;

    /* What the engine runs with before any rule adjusts it. */
    switch (s->dtype) {
    case KVP_RUN_DTYPE_FLOAT16: rep->run_dtype = KVP_DTYPE_FP16; break;
    case KVP_RUN_DTYPE_BFLOAT16: rep->run_dtype = KVP_DTYPE_BF16; break;
    case KVP_RUN_DTYPE_FLOAT32: rep->run_dtype = KVP_DTYPE_FP32; break;
    default: rep->run_dtype = kvp__policy_runtime_dtype(model); break;
    }
    rep->max_model_len = c.user_len ? c.user_len : kvp__startup_default_len(model, s);

    for (size_t i = 0; i < n; i++) {
        const kvp__startup_rule *r = &t[i];
        if (disabled(s, r)) {
            rep->disabled_count++;
            continue;
        }
        if (!r->eval) {
            if (rep->undecided_count < KVP_STARTUP_MAX_UNDECIDED) {
                kvp_startup_undecided *u = &rep->undecided[rep->undecided_count++];
                kvp__strlcpy(u->rule, r->id, sizeof u->rule);
                kvp__strlcpy(u->reason, r->undecidable ? r->undecidable : "", sizeof u->reason);
            }
            continue;
        }
        if (rep->count >= KVP_STARTUP_MAX_CHECKS) break;
        kvp_check_row *row = &rep->checks[rep->count];
        kvp__startup_state before = state_of(rep);
        if (prior && prior->at[i].row >= 0 && !reads_plan(r->id) &&
            same_state(&before, &prior->at[i].before)) {
            /* Same inputs as in the first pass: its row and its adjustments. */
            *row = pre->checks[prior->at[i].row];
            rep->max_model_len = prior->at[i].after.max_model_len;
            rep->run_dtype = prior->at[i].after.run_dtype;
            rep->max_model_len_adjusted = prior->at[i].after.max_model_len_adjusted;
            rep->run_dtype_adjusted = prior->at[i].after.run_dtype_adjusted;
        } else {
            memset(row, 0, sizeof *row);
            kvp__strlcpy(row->rule, r->id, sizeof row->rule);
            kvp__strlcpy(row->setting, r->setting, sizeof row->setting);
            kvp__strlcpy(row->basis, r->basis, sizeof row->basis);
            kvp__strlcpy(row->versions, r->versions, sizeof row->versions);
            row->is_default = r->is_default;
            r->eval(&c, row);
        }
        if (trace && i < KVP__STARTUP_TRACE_MAX) {
            trace->at[i].row = (int)rep->count;
            trace->at[i].before = before;
            trace->at[i].after = state_of(rep);
        }
        rep->counts[row->status]++;
        if (row->status == KVP_CHECK_REFUSE && rep->first_refusal < 0)
            rep->first_refusal = (int)rep->count;
        rep->count++;
    }
    rep->starts = rep->counts[KVP_CHECK_REFUSE] == 0;
    return KVP_OK;
}

kvp_status kvp_startup_check(const kvp_model *model, const kvp_startup_settings *s,
                             const kvp_startup_plan_input *plan, kvp_startup_report *rep,
                             kvp_error *err) {
    return run(model, s, plan, rep, NULL, NULL, NULL, err);
}

kvp_status kvp__startup_check_traced(const kvp_model *model, const kvp_startup_settings *s,
                                     const kvp_startup_plan_input *plan, kvp_startup_report *rep,
                                     kvp__startup_trace *trace, kvp_error *err) {
    return run(model, s, plan, rep, NULL, NULL, trace, err);
}

kvp_status kvp__startup_check_resumed(const kvp_model *model, const kvp_startup_settings *s,
                                      const kvp_startup_plan_input *plan,
                                      const kvp_startup_report *pre,
                                      const kvp__startup_trace *trace, kvp_startup_report *rep,
                                      kvp_error *err) {
    if (!pre || !trace || pre == rep || pre->engine != s->policy.engine)
        return run(model, s, plan, rep, NULL, NULL, NULL, err);
    return run(model, s, plan, rep, pre, trace, NULL, err);
}

void kvp_startup_apply(const kvp_model *model, const kvp_startup_report *rep,
                       kvp_policy_settings *s) {
    if (!model || !rep || !s) return;
    const kvp_model_info *info = kvp_model_get_info(model);
    if (s->engine == KVP_ENGINE_LLAMACPP) {
        if (rep->max_model_len_adjusted) s->n_ctx = rep->max_model_len;
        return;
    }
    if (rep->max_model_len_adjusted ||
        (!s->max_model_len && !s->auto_fit_max_model_len && rep->max_model_len &&
         rep->max_model_len != info->max_position_embeddings))
        s->max_model_len = rep->max_model_len;
    if (rep->run_dtype_adjusted && (!s->kv_dtype[0] || kvp__strcasecmp(s->kv_dtype, "auto") == 0) &&
        info->kv_dtype_declared == KVP_DTYPE_AUTO)
        kvp__strlcpy(s->kv_dtype, rep->run_dtype == KVP_DTYPE_FP32   ? "float32"
                                  : rep->run_dtype == KVP_DTYPE_FP16 ? "float16"
                                                                     : "bfloat16",
                     sizeof s->kv_dtype);
}
