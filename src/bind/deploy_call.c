/* deploy_call.c — kvp_json_call's "plan", "fit", "compare", "sweep" and
 * "check" (kvplan/json.h):
 * the request's keys are the option table's names (kvplan/options.h), each set
 * through kvp_options_set as the CLI sets a flag, so a request and a command
 * line are read by one parser with one message per error; then the same steps
 * as the command (the GPU, the model, the start-up rules, the one pipeline) and
 * the library's renderer (kvplan/render.h), which `kvplan COMMAND --json`
 * prints too. A key neither the table nor the command knows is refused by
 * name: never ignored. */
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argv_words.h"
#include "bind_internal.h"
#include "check_run.h"
#include "engine_ops.h"
#include "fit_request.h"
#include "from_parse.h"
#include "json_error.h"
#include "kvplan/deploy.h"
#include "kvplan/fit.h"
#include "kvplan/gpu.h"
#include "kvplan/options.h"
#include "kvplan/render.h"
#include "kvplan/startup.h"
#include "kvplan/sweep.h"
#include "render_internal.h"
#include "plan_run.h"
#include "seed_rules.h"
#include "settle.h"
#include "sim_call.h"
#include "util.h"

/* Row name `name` ("--gpu-mem") as a request key's JSON pointer ("/gpu_mem"). */
static const char *request_key(const char *name, char *buf, size_t n) {
    snprintf(buf, n, "/%s", name + strspn(name, "-"));
    for (char *p = buf; *p; p++)
        if (*p == '-') *p = '_';
    return buf;
}

/* Row name `name` as the request's key itself ("gpu_mem"): how the fit room
 * names a setting to a request (fit_request.h kvp__fit_words). */
static const char *key_word(const char *name, char *buf, size_t n) {
    return request_key(name, buf, n) + 1;
}

/* `st`, with err's key (a row's name) read as a request key's JSON pointer. */
static kvp_status keyed_as_request(kvp_status st, kvp_error *err) {
    char name[KVP_ERROR_KEY_MAX];
    if (err && err->key[0]) {
        kvp__strlcpy(name, err->key, sizeof name);
        request_key(name, err->key, sizeof err->key);
    }
    return st;
}

/* Fail naming request key `key` as a JSON pointer ("/gpu_mem": the table's
 * '-' read as the request's '_'); the message names it already. */
static kvp_status bad(kvp_error *err, kvp_status code, const char *key, const char *fmt, ...)
    KVP_PRINTF(4, 5);
static kvp_status bad(kvp_error *err, kvp_status code, const char *key, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    kvp_status st = kvp__vfail(err, code, NULL, NULL, fmt, ap);
    va_end(ap);
    if (err && key) request_key(key, err->key, sizeof err->key);
    return st;
}

/* A request value as the text a command line would carry: strings as they
 * are, numbers in decimal, booleans "true"/"false" (a flag takes them). */
static kvp_status value_text(const char *key, const json_t *v, char *buf, size_t n, const char **out,
                             kvp_error *err) {
    if (json_is_string(v)) {
        *out = json_string_value(v);
    } else if (json_is_integer(v)) {
        snprintf(buf, n, "%lld", (long long)json_integer_value(v));
        *out = buf;
    } else if (json_is_real(v)) {
        snprintf(buf, n, "%.17g", json_real_value(v));
        *out = buf;
    } else if (json_is_boolean(v)) {
        *out = json_is_true(v) ? "true" : "false";
    } else {
        return bad(err, KVP_INVALID_ARG, key, "%s: expected a string, a number or a boolean, found %s",
                   key, kvp__json_type_name(v));
    }
    return KVP_OK;
}

/* Set request key `key` = `v` in the option table's settings; an array sets a
 * repeatable option once per element (env, disable_rule). */
static kvp_status set_option(kvp_options *o, const char *key, const json_t *v, kvp_error *err) {
    char buf[64];
    const char *text = NULL;
    /* A row of other commands (plan's --lora-rank in a fit request): said where
     * it belongs, as `kvplan COMMAND` refuses it (kvp__option_elsewhere), never
     * set and ignored. */
    char name[KVP_OPTIONS_TYPED_MAX], where[96];
    const kvp_option *row = kvp_option_lookup(key, NULL);
    if (row && kvp__option_elsewhere(row->name, o->command, name, where, sizeof where))
        return bad(err, KVP_INVALID_ARG, key, "%s is not a key of this command (only %s take it)",
                   key, where);
    kvp_error e;
    kvp_error_clear(&e);
    kvp_status st = KVP_OK;
    if (json_is_array(v)) {
        size_t i;
        const json_t *item;
        json_array_foreach(v, i, item) {
            if ((st = value_text(key, item, buf, sizeof buf, &text, err)) != KVP_OK) return st;
            if ((st = kvp_options_set(o, key, text, &e)) != KVP_OK) break;
        }
    } else {
        if ((st = value_text(key, v, buf, sizeof buf, &text, err)) != KVP_OK) return st;
        st = kvp_options_set(o, key, text, &e);
    }
    if (st == KVP_NOT_FOUND)
        return bad(err, KVP_INVALID_ARG, key, "unknown request key '%s' (the option table's names: "
                                              "docs/options.md)", key);
    if (st != KVP_OK) return bad(err, st, key, "%s", e.message);
    return KVP_OK;
}

/* The model (request_model.c), and for a folder the exact weights from its
 * safetensors headers, as the CLI. */
static kvp_status request_model(const json_t *model, const json_t *config,
                                const kvp__json_call_opts *o, kvp_model **out, char *dir,
                                size_t dir_size, const char **model_dir, kvp_error *err) {
    *model_dir = NULL;
    kvp_status st = kvp__request_model(model, config, o, out, err);
    if (st == KVP_OK && model && !o->catalog_only)
        *model_dir = kvp__model_dir(json_string_value(model), dir, dir_size);
    return st;
}

/* What every command shares: the settings, the model, the GPU. */
typedef struct call {
    kvp_options *opt;
    kvp_model *model;
    kvp__settled set;   /* the GPU looked up once, the memory source (settle.h) */
    kvp_from_cmd *from; /* from_command, read (NULL without one) */
    char dir[4096];
} call;

static void call_free(call *c) {
    kvp_options_free(c->opt);
    kvp__request_model_release(c->model);
    free(c->from);
}

/* Apply every key but the command's own (`own`, NULL-terminated, handled by
 * `take`), finish the settings, load the model and look up the GPU. */
typedef kvp_status (*take_fn)(void *ctx, const char *key, const json_t *v, kvp_error *err);

/* A command's own keys: their names (NULL-terminated), `take` for each, and
 * `prepare` (may be NULL), run on the option table after every key and before
 * it is finished: what the command's keys tell the table (the engines compare
 * or a sweep's policy axis plans). */
typedef struct own_keys {
    const char *const *names;
    take_fn take;
    kvp_status (*prepare)(void *ctx, kvp_options *opt, kvp_error *err);
    void *ctx;
} own_keys;

/* "from_command": the engine command a user runs ("vllm serve M
 * --tensor-parallel-size 2 ..."), read by the options room as `--from` reads it
 * (src/options/from_parse.c): its engine is the policy, the settings this
 * command takes are set under the engine's spellings (the others are ignored,
 * as the CLI lists them), and `filled` records which setting filled each row
 * (kvp__from_apply, the one --from uses) so a request key giving the same row
 * again is refused by name. Under catalog_only (kvplan serve) an options file it names is not read. */
static kvp_status apply_from(call *c, const json_t *v, const kvp__json_call_opts *o,
                             kvp__from_applied *filled, kvp_error *err) {
    if (!json_is_string(v))
        return bad(err, KVP_INVALID_ARG, "from_command",
                   "from_command: expected the engine command as a string, found %s",
                   kvp__json_type_name(v));
    char msg[512];
    if (kvp_from_parse(json_string_value(v), !o->catalog_only, c->from, msg, sizeof msg) != 0)
        return bad(err, KVP_INVALID_ARG, "from_command", "from_command: %s",
                   strncmp(msg, "--from: ", 8) ? msg : msg + 8);
    kvp_error e;
    kvp_error_clear(&e);
    if (kvp__from_apply(c->from, c->opt, NULL, KVP__FROM_MARK_PASTED, filled, &e) != KVP_OK)
        return bad(err, KVP_INVALID_ARG, "from_command", "from_command: %s", e.message);
    return KVP_OK;
}

/* A request key giving a row from_command filled (`filled` of apply_from),
 * compared as the CLI compares a flag with --from's (kvp__from_given, the one
 * rule): the command's engine as policy, or the same value said twice, is one
 * statement (*same: nothing to set); anything else names both. */
static kvp_status from_given(const call *c, const kvp__from_applied *filled, const char *key,
                             const json_t *v, bool *same, kvp_error *err) {
    const kvp_option *r = kvp_option_lookup(key, NULL);
    *same = false;
    if (!r) return KVP_OK;
    char buf[64], side[160], why[200];
    const char *text = NULL;
    /* An array (a repeatable option) or an object: the row's own rule says. */
    kvp_error scratch; /* a value no flag carries: set_option names it */
    if (json_is_array(v) || json_is_object(v) ||
        value_text(key, v, buf, sizeof buf, &text, &scratch) != KVP_OK)
        text = NULL;
    kvp__from_again again =
        kvp__from_given(c->from, filled, r, key, text, side, sizeof side, why, sizeof why);
    if (again == KVP__FROM_NOT_FILLED) return KVP_OK;
    if (again != KVP__FROM_CONTRADICTS) {
        *same = true;
        return KVP_OK;
    }
    if (filled->row[r->id] == KVP__FROM_ROW_POLICY)
        return bad(err, KVP_INVALID_ARG, key,
                   "from_command and %s contradict: the from_command command is a %s command; "
                   "give one", key, c->from->engine);
    /* side is "--from's -tp 2": the request's name for the command. */
    return bad(err, KVP_INVALID_ARG, key, "from_command%.150s and %s contradict: %s",
               side + strlen("--from"), key, why);
}

static kvp_status call_settings(call *c, unsigned command, const json_t *req,
                                const kvp__json_call_opts *o, const own_keys *ok, kvp_error *err) {
    const char *const *own = ok ? ok->names : NULL;
    memset(c, 0, sizeof *c);
    c->opt = kvp_options_new(command);
    if (!c->opt) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
    const json_t *model = NULL, *config = NULL, *v;
    const char *key;
    kvp_status st;
    /* from_command first, the request's keys on top (as --from and argv). */
    kvp__from_applied filled;
    memset(&filled, 0, sizeof filled);
    const json_t *from = json_object_get(req, "from_command");
    if (from) {
        if (!(c->from = malloc(sizeof *c->from)))
            return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
        if ((st = apply_from(c, from, o, &filled, err)) != KVP_OK) return st;
    }
    json_object_foreach((json_t *)req, key, v) {
        if (!strcmp(key, "model")) {
            model = v;
            continue;
        }
        if (!strcmp(key, "config")) {
            config = v;
            continue;
        }
        if (!strcmp(key, "from_command")) continue;
        bool mine = false;
        for (size_t k = 0; own && own[k]; k++) mine = mine || !strcmp(own[k], key);
        bool same = false;
        if (!mine && c->from && (st = from_given(c, &filled, key, v, &same, err)) != KVP_OK)
            return st;
        if (same) continue;
        st = mine ? ok->take(ok->ctx, key, v, err) : set_option(c->opt, key, v, err);
        if (st) return st;
    }
    if (ok && ok->prepare && (st = ok->prepare(ok->ctx, c->opt, err)) != KVP_OK) return st;
    kvp_error e;
    kvp_error_clear(&e);
    /* sim's flags are the simulator's own, whichever engine spells them
     * (--max-model-len beside --max-batch-size), and --policy picks the
     * scheduler replayed: `kvplan sim` reads the table unfinished, and so
     * does this. */
    if (command != KVP_COMMAND_SIM && (st = kvp_options_finish(c->opt, &e)) != KVP_OK) {
        const kvp_option *row = e.key[0] ? kvp_option_lookup(e.key, NULL) : NULL;
        return bad(err, st, row ? row->name : e.key[0] ? e.key : NULL, "%s", e.message);
    }
    kvp_deployment *d = &c->opt->deployment;
    const char *mdir = NULL;
    /* The request's model, else the one the engine command names. */
    json_t *from_model = !model && !config && c->from && c->from->model
                             ? json_string(c->from->model) : NULL;
    st = request_model(from_model ? from_model : model, config, o, &c->model, c->dir,
                       sizeof c->dir, &mdir, err);
    json_decref(from_model);
    if (st != KVP_OK) return st;
    d->model = c->model;
    d->memory.model_dir = mdir;
    return kvp__options_settle(c->opt, NULL, &c->set, err);
}

/* call_settings, then the deployment settled: memory to plan from. */
static kvp_status call_begin(call *c, unsigned command, const json_t *req,
                             const kvp__json_call_opts *o, const own_keys *ok, kvp_error *err) {
    kvp_status st = call_settings(c, command, req, o, ok, err);
    if (st != KVP_OK) return st;
    kvp_deployment *d = &c->opt->deployment;
    /* The start-up flags and the GPU's identity and memory: the pipeline's rules
     * read them (the step every command takes). An engine that allocates what it
     * is asked for plans without a device. */
    kvp_deployment_settle(d, &c->opt->startup, c->set.gpu_known ? &c->set.gpu : NULL, c->set.gpu_mem);
    /* fit, compare and sweep search what fits a memory: they need one under
     * every engine, as `kvplan fit|compare|sweep` refuse up front (fit_env.c);
     * a plan of an engine that allocates what it is asked for does not. */
    bool need = command != KVP_COMMAND_PLAN || !kvp__report_allocates_as_asked(d->point.engine);
    return kvp__settle_memory_source(&d->memory, need, KVP__NAME_KEYS, err);
}

/* A deployment the pipeline did not plan: its message, and for a start-up
 * rule's refusal (docs/startup.md; the pipeline runs the rules) the engine and
 * the rule's fix. */
kvp_status kvp__not_planned(const kvp_deploy_result *r, kvp_error *err) {
    const kvp_deploy_startup *su = &r->startup;
    const kvp_check_row *row = su->first_refusal >= 0 ? &su->checks[su->first_refusal] : NULL;
    size_t n = row ? strlen(row->rule) : 0;
    if (row && !strncmp(r->message, row->rule, n) && r->message[n] == ':')
        return bad(err, r->status, row->setting, "%s would not start: %s%s%s",
                   kvp_engine_name(r->point.engine), r->message, row->fix[0] ? "; fix: " : "",
                   row->fix);
    /* A message that names its setting already ("key: ...") is not prefixed twice. */
    size_t k = strlen(r->key);
    bool named = k && !strncmp(r->message, r->key, k) && r->message[k] == ':';
    kvp__fail(err, r->status, NULL, r->key[0] && !named ? r->key : NULL, "%s", r->message);
    if (err) kvp__strlcpy(err->key, r->key, sizeof err->key);
    return r->status;
}

/* ------------------------------------------------------------------ plan */

/* The one plan sequence (plan_run.h, the one `kvplan plan` runs) on the
 * deployment the request settled: TensorRT-LLM's seed rules around its
 * creator, the figures of an engine that allocates what it is asked for but
 * would not start, the refusals said with the request's names. */
static kvp_status call_plan(const json_t *req, const kvp__json_call_opts *o, char **out,
                            kvp_error *err) {
    call c;
    kvp_status st = call_begin(&c, KVP_COMMAND_PLAN, req, o, NULL, err);
    kvp__plan_job *j = st == KVP_OK ? malloc(sizeof *j) : NULL; /* the job clears itself */
    if (st == KVP_OK && !j) st = kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
    if (st == KVP_OK) st = kvp__plan_job_given(j, c.opt, &c.opt->deployment, err);
    if (st == KVP_OK) st = kvp__plan_job_run(j, false, err);
    const kvp_deploy_result *r = j ? j->r : NULL;
    if (st != KVP_OK && j && j->not_planned) st = kvp__not_planned(r, err);
    /* The requests asked for (isl, max_new_tokens) refused, as `kvplan plan` does. */
    else if (st != KVP_OK && r && r->status == KVP_OK && r->admission.status != KVP_OK)
        st = kvp__fail(err, r->admission.status, NULL, r->admission.key, "%s",
                       r->admission.refused);
    if (st == KVP_OK) {
        const char *notes[KVP_NOTES_MAX];
        size_t n = 0;
        for (uint32_t i = 0; i < c.opt->notes.count && n < KVP_NOTES_MAX; i++)
            notes[n++] = c.opt->notes.text[i];
        for (uint32_t i = 0; i < c.opt->warnings.count && n < KVP_NOTES_MAX; i++)
            notes[n++] = c.opt->warnings.text[i];
        const kvp__seed_rules *x = &j->seed;
        const kvp_option_rules *xr = x->rules;
        kvp_render_rules shown = {x->engine_version, &xr->compression, &x->compression_effect,
                                  xr->has_lora ? &xr->lora : NULL, xr->has_lora ? &x->lora_cache : NULL,
                                  xr->has_mm ? &x->mm_profile : NULL, &x->notes};
        kvp_render_input in = {c.model, c.set.gpu_known ? c.set.gpu.name : NULL, c.set.total_source, notes, n, NULL,
                               j->creator && r->status == KVP_OK ? &shown : NULL};
        st = kvp_render_plan_json(&in, r, out, err);
    }
    if (j) kvp__plan_job_free(j);
    free(j);
    call_free(&c);
    return st;
}

/* ------------------------------------------------------------------- fit */

typedef struct fit_own {
    kvp_fit_request req;
    kvp__fit_given given; /* what the request named (fit_request.h) */
} fit_own;

static kvp_status req_count(const char *key, const json_t *v, uint64_t lo, uint64_t hi, uint64_t *out,
                            kvp_error *err) {
    if (!json_is_integer(v) || json_integer_value(v) < 0 || (uint64_t)json_integer_value(v) < lo ||
        (uint64_t)json_integer_value(v) > hi)
        return bad(err, KVP_INVALID_ARG, key, "%s: expected an integer in [%llu, %llu]", key,
                   (unsigned long long)lo, (unsigned long long)hi);
    *out = (uint64_t)json_integer_value(v);
    return KVP_OK;
}

static kvp_status fit_take(void *ctx, const char *key, const json_t *v, kvp_error *err) {
    fit_own *f = ctx;
    kvp_status st;
    if (!strcmp(key, "solve")) {
        const char *s = json_string_value(v);
        if (!s) return bad(err, KVP_INVALID_ARG, key, "solve: expected a string");
        if (!kvp__fit_solve_word(s, &f->req.solve_for))
            return bad(err, KVP_INVALID_ARG, key, "solve: '%s' is not max-seq-len, concurrency, tp or kv-dtype", s);
        f->given.solve = true;
    } else if (!strcmp(key, "concurrency")) {
        if ((st = req_count(key, v, 1, 1u << 24, &f->req.concurrency, err))) return st;
        f->given.concurrency = true;
    } else if (!strcmp(key, "allow_pp")) {
        if (!json_is_boolean(v)) return bad(err, KVP_INVALID_ARG, key, "allow_pp: expected true or false");
        f->req.allow_pp = json_is_true(v);
    } else { /* max_seq_len_limit */
        if ((st = req_count(key, v, 1, UINT64_MAX >> 1, &f->req.seq_len_hi, err))) return st;
    }
    return KVP_OK;
}

static kvp_status call_fit(const json_t *req, const kvp__json_call_opts *o, char **out,
                           kvp_error *err) {
    /* gpus is the table's (--gpus), as `kvplan fit` reads it: its range, and
     * refused by name under an engine that has no meaning for it. */
    static const char *const own[] = {"solve", "concurrency", "allow_pp", "max_seq_len_limit", NULL};
    fit_own f;
    memset(&f, 0, sizeof f);
    call c;
    kvp_status st = call_begin(&c, KVP_COMMAND_FIT, req, o, &(own_keys){own, fit_take, NULL, &f}, err);
    const kvp_deployment *d = &c.opt->deployment;
    /* What is left free: the fit room's rule, `kvplan fit`'s too. */
    f.given.max_seq_len = st == KVP_OK && kvp_options_given(c.opt, "--max-seq-len");
    f.given.gpus = st == KVP_OK && kvp_options_given(c.opt, "--gpus");
    if (f.given.gpus) f.req.gpus = c.opt->gpus;
    static const kvp__fit_words k_words = {key_word, "max_seq_len_limit bounds the search"};
    kvp__fit_conflict conflict = st == KVP_OK ? kvp__fit_left_free(&f.req, &f.given, &d->point) : 0;
    if (conflict) st = keyed_as_request(kvp__fit_conflict_refuse(conflict, &k_words, err), err);
    kvp_fit_answer *ans = NULL;
    /* kvp_json_call takes no allocator: the deployment's (its model's, libc). */
    const kvp_allocator *alc = st == KVP_OK ? kvp_deployment_allocator(d) : NULL;
    if (st == KVP_OK && !(ans = kvp__calloc(alc, 1, sizeof *ans)))
        st = kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
    if (st == KVP_OK) {
        f.req.base = d->point;
        st = kvp_fit_solve(d, &f.req, ans, err);
    }
    if (st == KVP_OK) {
        kvp_render_input in = {c.model, c.set.gpu_known ? c.set.gpu.name : NULL, NULL, NULL, 0, NULL, NULL};
        st = kvp_render_fit_json(&in, &f.req, ans, out, err);
    }
    kvp__free(alc, ans);
    call_free(&c);
    return st;
}

/* --------------------------------------------------------------- compare */

typedef struct compare_own {
    kvp_engine engines[KVP_ENGINE_COUNT];
    size_t n;
} compare_own;

/* The engines compared, before the table is finished (as `kvplan compare`):
 * policies, else the one --policy names, else all four. Several engines: an
 * option is checked against every engine planned (engines_planned); one
 * engine named by policies: the settings are read as it reads them. */
static kvp_status compare_prepare(void *ctx, kvp_options *opt, kvp_error *err) {
    (void)err;
    compare_own *co = ctx;
    kvp_engine all[KVP_ENGINE_COUNT];
    size_t n = co->n;
    memcpy(all, co->engines, sizeof all);
    if (n == 0 && kvp_options_given(opt, "--policy")) all[n++] = opt->deployment.point.engine;
    if (n == 0)
        for (int k = 0; k < KVP_ENGINE_COUNT; k++) all[n++] = (kvp_engine)k;
    opt->engines_vary = n > 1;
    for (size_t k = 0; k < n; k++) opt->engines_planned |= KVP_OPTION_ENGINE(all[k]);
    if (co->n == 1 && !kvp_options_given(opt, "--policy")) {
        opt->deployment.point.engine = opt->deployment.policy.engine = co->engines[0];
        opt->engine_given = true;
    }
    return KVP_OK;
}

/* "policies": "vllm,sglang" (as --policies) or ["vllm", "sglang"]. */
static kvp_status compare_take(void *ctx, const char *key, const json_t *v, kvp_error *err) {
    compare_own *co = ctx;
    co->n = 0;
    kvp_status st = KVP_OK;
    if (json_is_array(v)) {
        size_t i;
        const json_t *item;
        json_array_foreach(v, i, item) {
            if (!json_is_string(item))
                return bad(err, KVP_INVALID_ARG, key, "policies: expected engine names, found %s",
                           kvp__json_type_name(item));
            if ((st = kvp__engine_list_add(json_string_value(item), "policies", "/policies",
                                           co->engines, &co->n, err)))
                return st;
        }
        if (co->n == 0) /* names no engine: refused, not read as the default four */
            return bad(err, KVP_INVALID_ARG, key,
                       "policies: an empty list names no engine (expected a list such as "
                       "[\"vllm\", \"sglang\"])");
        return KVP_OK;
    }
    if (!json_is_string(v))
        return bad(err, KVP_INVALID_ARG, key, "policies: expected a string or an array of strings");
    /* The options room's list reader, --policies' too. */
    return kvp__engine_list(json_string_value(v), "policies", "/policies", co->engines, &co->n, err);
}

/* A flag of a fix as the request spelled its row: the key as a flag ("tp" ->
 * "--tp", "max_model_len" -> "--max-model-len"), an engine command's spelling as
 * it is; NULL (kept) for a row the request did not give. The CLI writes what
 * its user typed, so equivalent requests and command lines print the same. */
static const char *request_flag(const void *ctx, const char *flag, char *buf, size_t size) {
    const kvp_options *opt = ctx;
    const kvp_option *r = kvp_option_lookup(flag, NULL);
    if (!r || !opt->given[r->id]) return NULL;
    const char *typed = opt->typed[r->id];
    if (typed[0] == '-') return typed;
    snprintf(buf, size, "--%s", typed);
    for (char *p = buf + 2; *p; p++)
        if (*p == '_') *p = '-';
    return buf;
}

void kvp__unread_notes(const kvp_options *o, kvp_fit_eval *e) {
    for (size_t i = 0; i < kvp_option_count(); i++) {
        const kvp_option *r = kvp_option_at(i);
        if (!o->given[r->id] || o->pasted[r->id]) continue;
        const kvp_option_meaning *m = kvp_option_meaning_for(r, e->point.engine);
        if (!m || m->reads || e->policy.note_count >= KVP_POLICY_MAX_NOTES) continue;
        /* A request's key as the flag it is ("capacity_scheduler_policy" ->
         * "--capacity-scheduler-policy"), so a request and a command line that
         * say the same print the same. */
        char flag[KVP_OPTIONS_TYPED_MAX + 2];
        const char *typed = request_flag(o, r->name, flag, sizeof flag);
        snprintf(e->policy.notes[e->policy.note_count++], KVP_POLICY_NOTE_MAX,
                 "%s is not read under policy %s: %s", typed, kvp_engine_name(e->point.engine),
                 m->text);
    }
}

static kvp_status call_compare(const json_t *req, const kvp__json_call_opts *o, char **out,
                               kvp_error *err) {
    static const char *const own[] = {"policies", NULL};
    compare_own co;
    memset(&co, 0, sizeof co);
    call c;
    kvp_status st = call_begin(&c, KVP_COMMAND_COMPARE, req, o,
                                &(own_keys){own, compare_take, compare_prepare, &co}, err);
    const kvp_deployment *d = &c.opt->deployment;
    /* policy (or from_command's engine) names the one engine compared, as
     * `kvplan compare --policy P` (src/cli/cmd_compare.c); policies the engines. */
    bool policy_given = st == KVP_OK && kvp_options_given(c.opt, "--policy");
    if (policy_given && co.n)
        st = bad(err, KVP_INVALID_ARG, "policies",
                 "policies and policy contradict: policies lists the engines compared; give "
                 "one of them");
    else if (policy_given)
        co.engines[co.n++] = d->point.engine;
    if (co.n == 0)
        for (int k = 0; k < KVP_ENGINE_COUNT; k++) co.engines[co.n++] = (kvp_engine)k;
    if (st == KVP_OK && d->point.kv_dtype[0] && co.n > 1)
        st = bad(err, KVP_INVALID_ARG, "kv_dtype",
                 "compare keeps each engine's own KV dtype spelling: drop kv_dtype or give one "
                 "engine in policies");
    kvp_fit_eval *ev = NULL;
    const kvp_allocator *alc = st == KVP_OK ? kvp_deployment_allocator(d) : NULL;
    if (st == KVP_OK && !(ev = kvp__calloc(alc, co.n, sizeof *ev)))
        st = kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
    for (size_t k = 0; st == KVP_OK && k < co.n; k++) {
        kvp_fit_point p = d->point;
        p.engine = co.engines[k];
        st = kvp_fit_evaluate(d, &p, &ev[k], err);
        if (st == KVP_OK && c.opt->engines_vary) kvp__unread_notes(c.opt, &ev[k]);
    }
    if (st == KVP_OK) {
        kvp_render_input in = {c.model, c.set.gpu_known ? c.set.gpu.name : NULL, NULL, NULL, 0, NULL, NULL};
        st = kvp_render_compare_json(&in, ev, co.n, out, err);
    }
    kvp__free(alc, ev);
    call_free(&c);
    return st;
}

/* ----------------------------------------------------------------- check */


/* `kvplan check --json`: the settings as the command reads them (the option
 * table's start-up settings, the GPU, --gpu-mem), kvp__check_run, and the
 * same renderer. A refusal is the document ("starts": false), not an error. */
static kvp_status call_check(const json_t *req, const kvp__json_call_opts *o, char **out,
                             kvp_error *err) {
    call c;
    kvp_status st = call_settings(&c, KVP_COMMAND_CHECK, req, o, NULL, err);
    if (st == KVP_OK && !c.opt->engine_given && !c.opt->engine_implied)
        st = bad(err, KVP_INVALID_ARG, "policy",
                 "check: name the engine: policy (vllm, sglang, trtllm, llamacpp), an engine's "
                 "own option, or from_command");
    kvp_startup_settings *ss = NULL;
    kvp_startup_report *rep = NULL;
    if (st == KVP_OK && (!(ss = malloc(sizeof *ss)) || !(rep = calloc(1, sizeof *rep))))
        st = kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
    /* The table's settings, the GPU and memory settled once (settle.h), as `kvplan check`. */
    if (st == KVP_OK) st = kvp__options_check(c.opt, &c.set, c.model, NULL, ss, rep, err);
    if (st == KVP_OK) st = kvp__check_json_text(rep, ss, kvp_model_name(c.model), request_flag, c.opt, out,
                                  err);
    free(rep);
    free(ss);
    call_free(&c);
    return st;
}

/* ----------------------------------------------------------------- sweep */

typedef struct sweep_own {
    kvp_sweep_grid *grid;
    uint64_t max_plans;
    const json_t *req; /* the request: which settings its keys gave */
} sweep_own;

/* A policy axis plans several engines: each option is checked against every
 * engine planned, as `kvplan sweep --over policy=...` (cmd_sweep.c). */
static kvp_status sweep_prepare(void *ctx, kvp_options *opt, kvp_error *err) {
    const sweep_own *so = ctx;
    /* An axis varies what a setting fixes (a key, or from_command's flag):
     * both named, as `kvplan sweep` refuses --over tp beside --tp. */
    const char *axes[8];
    size_t n = kvp_sweep_grid_axes(so->grid, axes, 8);
    const kvp_option *fixed = kvp__options_axis_fixed(opt, axes, n);
    if (fixed) {
        char key[64], said[96];
        request_key(fixed->name, key, sizeof key);
        /* Said by a key, or by from_command: its flag, or its engine (policy). */
        if (json_object_get(so->req, key + 1))
            snprintf(said, sizeof said, "%s", key + 1);
        else if (opt->pasted[fixed->id])
            snprintf(said, sizeof said, "from_command's %s", kvp_options_typed(opt, fixed->name));
        else
            snprintf(said, sizeof said, "from_command's engine");
        return bad(err, KVP_INVALID_ARG, fixed->name,
                   "%s contradicts over %s: the axis varies what the option fixes; give one", said,
                   fixed->name + 2);
    }
    unsigned engines = kvp_sweep_grid_engines(so->grid);
    if (!engines) return KVP_OK;
    opt->engines_vary = true;
    opt->engines_planned |= engines;
    return KVP_OK;
}

static kvp_status over_spec(sweep_own *so, const json_t *v, kvp_error *err) {
    if (!json_is_string(v))
        return bad(err, KVP_INVALID_ARG, "over", "over: expected \"KEY=VALUES\" strings, found %s",
                   kvp__json_type_name(v));
    kvp_status st = kvp_sweep_grid_over(so->grid, json_string_value(v), err);
    if (st && err) kvp__strlcpy(err->key, "/over", sizeof err->key);
    return st;
}

/* "over": "tp=1,2" or ["tp=1,2", "max-seq-len=4k..32k"] (as --over, repeated);
 * "max_plans": the bound on the grid (as --max-plans). */
static kvp_status sweep_take(void *ctx, const char *key, const json_t *v, kvp_error *err) {
    sweep_own *so = ctx;
    if (!strcmp(key, "max_plans")) return req_count(key, v, 1, KVP_SWEEP_MAX_PLANS, &so->max_plans, err);
    if (!json_is_array(v)) return over_spec(so, v, err);
    size_t i;
    const json_t *item;
    json_array_foreach(v, i, item) {
        kvp_status st = over_spec(so, item, err);
        if (st) return st;
    }
    return KVP_OK;
}

/* One row of the document, appended as it is planned (kvp_sweep_run). */
static kvp_status sweep_row(uint64_t index, uint64_t count, const kvp_fit_eval *e, void *ctx,
                            kvp_error *err) {
    (void)count;
    char *text = NULL;
    kvp_status st = kvp_render_sweep_json_row(e, index, &text, err);
    if (st == KVP_OK) kvp_report_append(ctx, text);
    kvp_render_free(text);
    return st == KVP_OK ? kvp_report_text_check(ctx, err) : st;
}

static kvp_status call_sweep(const json_t *req, const kvp__json_call_opts *o, char **out,
                             kvp_error *err) {
    static const char *const own[] = {"over", "max_plans", NULL};
    sweep_own so = {kvp_sweep_grid_new(), KVP_SWEEP_DEFAULT_MAX_PLANS, req};
    if (!so.grid) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
    call c;
    kvp_status st = call_begin(&c, KVP_COMMAND_SWEEP, req, o,
                                &(own_keys){own, sweep_take, sweep_prepare, &so}, err);
    uint64_t count = 0;
    if (st == KVP_OK) {
        st = kvp_sweep_grid_count(so.grid, so.max_plans, &count, err);
        if (st && err) /* "over" or "max_plans" */
            kvp__strlcpy(err->key, strcmp(err->key, "over") ? "/max_plans" : "/over", sizeof err->key);
    }
    /* Rows are planned into one result and rendered one at a time into the
     * document's text: no tree of every row (the text is what is returned). */
    kvp_report_text doc;
    kvp_report_text_init(&doc, NULL);
    if (st == KVP_OK) {
        const char *axes[8];
        size_t n = kvp_sweep_grid_axes(so.grid, axes, 8);
        kvp_render_input in = {c.model, c.set.gpu_known ? c.set.gpu.name : NULL, NULL, NULL, 0, NULL, NULL};
        char *head = NULL;
        st = kvp_render_sweep_json_head(&in, axes, n, count, &head, err);
        if (st == KVP_OK) kvp_report_append(&doc, head);
        kvp_render_free(head);
    }
    if (st == KVP_OK) {
        const kvp_deployment *d = &c.opt->deployment;
        st = kvp_sweep_run(so.grid, d, &d->point, so.max_plans, sweep_row, &doc, err);
    }
    if (st == KVP_OK) {
        kvp_report_append(&doc, kvp_render_sweep_json_tail(count));
        st = kvp_report_text_check(&doc, err);
    }
    if (st == KVP_OK) {
        *out = doc.data; /* malloc'd (no allocator given): freed with kvp_json_free */
        doc.data = NULL;
    }
    kvp_report_text_free(&doc);
    kvp_sweep_grid_free(so.grid);
    call_free(&c);
    return st;
}

/* ------------------------------------------------------------------- sim */

/* sim's own keys: the workload and how its arrivals are read. */
static kvp_status sim_take(void *ctx, const char *key, const json_t *v, kvp_error *err) {
    kvp__sim_job *job = ctx;
    if (!strcmp(key, "no_timing")) {
        if (!json_is_boolean(v)) return bad(err, KVP_INVALID_ARG, key, "no_timing: expected true or false");
        job->no_timing = json_is_true(v);
        return KVP_OK;
    }
    if (!strcmp(key, "step_time")) {
        double st = json_is_number(v) ? json_number_value(v) : 0.0;
        if (!(st > 0 && st < 3600))
            return bad(err, KVP_INVALID_ARG, key, "step_time: expected seconds in (0, 3600)");
        job->wl.step_seconds = st;
        return KVP_OK;
    }
    const char *s = json_string_value(v);
    if (!s || !*s) return bad(err, KVP_INVALID_ARG, key, "%s: expected a non-empty string", key);
    if (!strcmp(key, "arrival_unit")) {
        if (!strcmp(s, "steps")) job->wl.arrival_unit = KVP_ARRIVAL_STEPS;
        else if (!strcmp(s, "seconds")) job->wl.arrival_unit = KVP_ARRIVAL_SECONDS;
        else return bad(err, KVP_INVALID_ARG, key, "arrival_unit: expected steps or seconds, found '%s'", s);
    } else if (!strcmp(key, "workload")) {
        job->workload_path = s;
    } else if (!strcmp(key, "workload_text")) {
        job->workload_text = s;
        job->workload_len = json_string_length(v);
    } else {
        job->synthetic = s;
    }
    return KVP_OK;
}

/* `kvplan sim --json`: the option table's settings, the pool a plan gives (or
 * --blocks), the replay and the document, by the steps the command runs
 * (sim_call.c). A deployment the engine would not start is KVP_INFEASIBLE
 * naming the rule, as "plan". */
static kvp_status call_sim(const json_t *req, const kvp__json_call_opts *o, char **out,
                           kvp_error *err) {
    static const char *const own[] = {"workload", "workload_text", "synthetic", "arrival_unit",
                                      "step_time", "no_timing", NULL};
    kvp__sim_job job = kvp__sim_job_default();
    kvp__sim_outcome res;
    memset(&res, 0, sizeof res);
    call c;
    kvp_status st = call_settings(&c, KVP_COMMAND_SIM, req, o, &(own_keys){own, sim_take, NULL, &job}, err);
    int sources = !!job.workload_path + !!job.workload_text + !!job.synthetic;
    if (st == KVP_OK && sources != 1)
        st = bad(err, KVP_INVALID_ARG, "workload",
                 "sim needs exactly one of workload (a file), workload_text (JSON lines) and "
                 "synthetic (a spec)");
    /* kvplan serve: a request never makes kvplan open a file. */
    if (st == KVP_OK && o->catalog_only && job.workload_path)
        st = bad(err, KVP_INVALID_ARG, "workload",
                 "workload: this server opens no file a request names; give workload_text");
    if (st == KVP_OK) {
        st = kvp__sim_settings(c.opt, &job, err);
        if (st == KVP_OK) st = kvp__sim_check(c.opt, &job, err);
        if (st != KVP_OK && err && err->key[0] == '-') {
            kvp_error named = *err; /* the option as the request's key: "--blocks" as "/blocks" */
            (void)bad(err, st, named.key, "%s", named.message);
        }
    }
    if (st == KVP_OK) {
        job.model_dir = c.opt->deployment.memory.model_dir;
        st = kvp__sim_pool(&job, c.model, &res, err);
    }
    if (st == KVP_OK) st = kvp__sim_replay(&job, c.model, &res, NULL, NULL, err);
    if (st == KVP_OK) st = kvp__sim_json_document(&job, c.model, &res, out, err);
    kvp__sim_outcome_free(&res);
    call_free(&c);
    return st;
}

bool kvp__deploy_command(const char *command) {
    return !strcmp(command, "plan") || !strcmp(command, "fit") || !strcmp(command, "compare") ||
           !strcmp(command, "sweep") || !strcmp(command, "check") || !strcmp(command, "sim");
}

kvp_status kvp__deploy_call(const char *command, const json_t *req, const kvp__json_call_opts *o,
                            char **out, kvp_error *err) {
    if (!strcmp(command, "plan")) return call_plan(req, o, out, err);
    if (!strcmp(command, "fit")) return call_fit(req, o, out, err);
    if (!strcmp(command, "sweep")) return call_sweep(req, o, out, err);
    if (!strcmp(command, "check")) return call_check(req, o, out, err);
    if (!strcmp(command, "sim")) return call_sim(req, o, out, err);
    return call_compare(req, o, out, err);
}
