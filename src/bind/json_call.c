/* json_call.c — kvp_json_call (kvplan/json.h): a request object in, the
 * document `kvplan COMMAND --json` prints out, through the same builders
 * (bind_internal.h). Request keys are the CLI's option names with
 * underscores; each is checked for type and the CLI's range, and a wrong one
 * is named by its JSON pointer ("/tp"). */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind_internal.h"
#include "local_internal.h"
#include "json_error.h"
#include "kvplan/json.h"
#include "kvplan/local.h"
#include "util.h"

const char *kvp_json_commands(void) { return "cost models gpus plan fit compare sweep check local why sim"; }

void kvp_json_free(char *json) { kvp__free(NULL, json); }

/* Fail naming request key KEY as a JSON pointer; the message starts with fmt. */
static kvp_status bad_key(kvp_error *err, kvp_status code, const char *key, const char *fmt, ...)
    KVP_PRINTF(4, 5);
static kvp_status bad_key(kvp_error *err, kvp_status code, const char *key, const char *fmt, ...) {
    char ptr[80];
    snprintf(ptr, sizeof ptr, "/%s", key);
    va_list ap;
    va_start(ap, fmt);
    kvp_status st = kvp__vfail(err, code, NULL, ptr, fmt, ap);
    va_end(ap);
    return st;
}

/* An unsigned integer request value in [min, max]. */
static kvp_status req_u32(const json_t *v, const char *key, uint32_t min, uint32_t max,
                          uint32_t *out, kvp_error *err) {
    if (!json_is_integer(v))
        return bad_key(err, KVP_INVALID_ARG, key, "%s: expected an integer, found %s", key,
                       kvp__json_type_name(v));
    json_int_t i = json_integer_value(v);
    if (i < (json_int_t)min || i > (json_int_t)max) {
        char range[64];
        snprintf(range, sizeof range, "[%u, %u], found %lld", min, max, (long long)i);
        return bad_key(err, KVP_INVALID_ARG, key, "%s: expected an integer in %s", key, range);
    }
    *out = (uint32_t)i;
    return KVP_OK;
}

static kvp_status req_string(const json_t *v, const char *key, const char **out, kvp_error *err) {
    if (!json_is_string(v))
        return bad_key(err, KVP_INVALID_ARG, key, "%s: expected a string, found %s", key,
                       kvp__json_type_name(v));
    *out = json_string_value(v);
    return KVP_OK;
}

static kvp_status unknown_key(const char *key, const char *known, kvp_error *err) {
    return bad_key(err, KVP_INVALID_ARG, key, "unknown request key '%s' (known: %s)", key, known);
}

/* "cost": the ranges are those of `kvplan cost` (src/cli/cmd_cost.c). */
static kvp_status call_cost(const json_t *req, const kvp__json_call_opts *o, char **out,
                            kvp_error *err) {
    static const char known[] =
        "model, config, tp, pp, pp_rank, kv_dtype, tokens_per_block, block_size, beam_width, "
        "layers";
    kvp_cost_settings s = kvp_cost_settings_default();
    const json_t *model = NULL, *config = NULL;
    bool layers = false, seen_block = false;
    const char *key;
    json_t *v;
    kvp_status st = KVP_OK;
    json_object_foreach((json_t *)req, key, v) {
        uint32_t u;
        if (!strcmp(key, "model")) {
            model = v;
        } else if (!strcmp(key, "config")) {
            config = v;
        } else if (!strcmp(key, "tp")) {
            st = req_u32(v, key, 1, 65536, &s.tp, err);
        } else if (!strcmp(key, "pp")) {
            st = req_u32(v, key, 1, 65536, &s.pp, err);
        } else if (!strcmp(key, "pp_rank")) {
            st = req_u32(v, key, 0, 65535, &u, err);
            s.pp_rank = (int32_t)u;
        } else if (!strcmp(key, "tokens_per_block") || !strcmp(key, "block_size")) {
            if (seen_block)
                return bad_key(err, KVP_INVALID_ARG, key,
                               "%s: block_size and tokens_per_block are one setting", key);
            seen_block = true;
            st = req_u32(v, key, 1, 1u << 20, &s.tokens_per_block, err);
        } else if (!strcmp(key, "beam_width")) {
            st = req_u32(v, key, 1, 1024, &s.beam_width, err);
        } else if (!strcmp(key, "kv_dtype")) {
            const char *t = NULL;
            st = req_string(v, key, &t, err);
            if (st == KVP_OK && kvp_dtype_parse(t, &s.kv_dtype) != KVP_OK)
                return bad_key(err, KVP_INVALID_ARG, key,
                               "%s: unknown dtype '%s' (expected auto, fp32, fp16, bf16, fp8, "
                               "int8, nvfp4)",
                               key, t);
        } else if (!strcmp(key, "layers")) {
            if (!json_is_boolean(v))
                return bad_key(err, KVP_INVALID_ARG, key, "%s: expected true or false, found %s",
                               key, kvp__json_type_name(v));
            layers = json_is_true(v);
        } else {
            return unknown_key(key, known, err);
        }
        if (st) return st;
    }
    kvp_model *m = NULL;
    st = kvp__request_model(model, config, o, &m, err);
    if (st) return st;
    kvp_cost c;
    st = kvp_cost_compute(m, &s, &c, err);
    if (st == KVP_OK) st = kvp__cost_json_text(m, &s, &c, layers, out, err);
    kvp__request_model_release(m);
    return st;
}

static kvp_status call_models(const json_t *req, char **out, kvp_error *err) {
    const char *filter = NULL, *key;
    json_t *v;
    json_object_foreach((json_t *)req, key, v) {
        if (strcmp(key, "filter") != 0) return unknown_key(key, "filter", err);
        kvp_status st = req_string(v, key, &filter, err);
        if (st) return st;
    }
    size_t matched;
    return kvp__models_json_text(filter, out, &matched, err);
}

/* "gpus": the catalogue (`kvplan gpus --catalog --json`); the embedded one
 * only, a request names no file. */
static kvp_status call_gpus(const json_t *req, char **out, kvp_error *err) {
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)req, key, v) {
        (void)v;
        return unknown_key(key, "none", err);
    }
    return kvp__gpus_catalog_json_text(NULL, out, err);
}

/* "local": the model-local KV caches (`kvplan local MODEL --max-num-seqs N
 * --json`), the CLI's ranges (src/cli/cmd_local.c). "decl" names a
 * declarations file, which catalog_only (kvplan serve) refuses. */
static kvp_status call_local(const json_t *req, const kvp__json_call_opts *o, char **out,
                             kvp_error *err) {
    static const char known[] = "model, max_num_seqs, async_chunk, streaming, enforce_eager, decl";
    const char *model = NULL, *decl = NULL, *key;
    kvp_local_deployment dep;
    memset(&dep, 0, sizeof dep);
    bool has_seqs = false;
    json_t *v;
    kvp_status st = KVP_OK;
    json_object_foreach((json_t *)req, key, v) {
        if (!strcmp(key, "model")) {
            st = req_string(v, key, &model, err);
        } else if (!strcmp(key, "decl")) {
            st = req_string(v, key, &decl, err);
            if (st == KVP_OK && o->catalog_only)
                return bad_key(err, KVP_INVALID_ARG, key,
                               "decl: a request never makes kvplan open a file here");
        } else if (!strcmp(key, "max_num_seqs")) {
            uint32_t n = 0;
            st = req_u32(v, key, 1, UINT32_MAX, &n, err);
            dep.max_num_seqs = n;
            has_seqs = true;
        } else if (!strcmp(key, "async_chunk") || !strcmp(key, "streaming") ||
                   !strcmp(key, "enforce_eager")) {
            if (!json_is_boolean(v))
                return bad_key(err, KVP_INVALID_ARG, key, "%s: expected true or false, found %s",
                               key, kvp__json_type_name(v));
            bool *flag = !strcmp(key, "async_chunk") ? &dep.async_chunk
                         : !strcmp(key, "streaming") ? &dep.streaming
                                                     : &dep.enforce_eager;
            *flag = json_is_true(v);
        } else {
            return unknown_key(key, known, err);
        }
        if (st) return st;
    }
    if (!model && !decl)
        return bad_key(err, KVP_INVALID_ARG, "model", "local: model (or decl) is required");
    if (!has_seqs)
        return bad_key(err, KVP_INVALID_ARG, "max_num_seqs",
                       "local: max_num_seqs is required (rows of MAX_NUM_SEQS caches)");
    /* The local room's reading, `kvplan local`'s too; a file declaring another
     * model is named by the request's pointer. */
    kvp_local_report *report = NULL;
    st = kvp__local_report_of(model, decl, &dep, &report, err);
    if (st && err && !strcmp(err->key, "decl")) {
        char msg[KVP_ERROR_MESSAGE_MAX];
        kvp__strlcpy(msg, err->message, sizeof msg);
        bad_key(err, st, "decl", "%s", msg);
    }
    if (st == KVP_OK) st = kvp__local_json_text(report, out, err);
    kvp_local_report_free(report);
    return st;
}

kvp_status kvp_json_call(const char *command, const char *request_json, char **out_json,
                         kvp_error *err) {
    static const kvp__json_call_opts defaults = {false};
    return kvp__json_call_with(command, request_json, &defaults, out_json, err);
}

kvp_status kvp__json_call_with(const char *command, const char *request_json,
                               const kvp__json_call_opts *o, char **out_json, kvp_error *err) {
    if (!out_json) return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "out_json is NULL");
    *out_json = NULL;
    if (!command) return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "command is NULL");
    json_t *req;
    if (!request_json || !*request_json) {
        req = json_object();
    } else {
        json_error_t jerr;
        req = json_loads(request_json, JSON_REJECT_DUPLICATES, &jerr);
        if (!req) return kvp__json_load_fail(err, "request", &jerr);
    }
    if (!req) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory reading the request");
    kvp_status st;
    if (!json_is_object(req))
        st = kvp__fail(err, KVP_INVALID_ARG, "request", "", "expected a JSON object, found %s",
                       kvp__json_type_name(req));
    else if (!strcmp(command, "cost"))
        st = call_cost(req, o, out_json, err);
    else if (!strcmp(command, "models"))
        st = call_models(req, out_json, err);
    else if (!strcmp(command, "gpus"))
        st = call_gpus(req, out_json, err);
    else if (!strcmp(command, "local"))
        st = call_local(req, o, out_json, err);
    else if (!strcmp(command, "why"))
        st = kvp__why_call(req, o, out_json, err);
    else if (kvp__deploy_command(command))
        st = kvp__deploy_call(command, req, o, out_json, err);
    else
        st = kvp__fail(err, KVP_UNSUPPORTED, NULL, NULL,
                       "command '%s' is not answered by kvp_json_call (it answers: %s); "
                       "`kvplan %s --json` prints its document",
                       command, kvp_json_commands(), command);
    json_decref(req);
    if (st != KVP_OK && *out_json) {
        kvp_json_free(*out_json);
        *out_json = NULL;
    }
    return st;
}
