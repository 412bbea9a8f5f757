/* request_model.c — the model of a kvp_json_call request: "model" (a string:
 * what `kvplan COMMAND MODEL` takes) or "config" (a config.json object sent
 * inline). Under the server's rule (kvp__json_call_opts.catalog_only) the
 * string names a catalogue entry or alias only, so no request can make
 * kvplan open a path, look in the Hugging Face cache or run anything. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "bind_internal.h"
#include "json_error.h"
#include "model_internal.h"
#include "util.h"

/* The name an inline config carries in answers and error messages: what the
 * CLI prints for `kvplan COMMAND config.json` run in the config's folder. */
#define KVP__INLINE_CONFIG_NAME "config.json"

static kvp_status from_config(const json_t *config, kvp_model **out, kvp_error *err) {
    if (!json_is_object(config))
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "/config",
                         "expected a config.json object, found %s",
                         kvp__json_type_name(config));
    /* The object's text goes through the model's one reader, as a file's would. */
    char *text = kvp__json_dump(config, JSON_COMPACT, NULL);
    if (!text) return kvp__fail(err, KVP_NOMEM, NULL, "/config", "out of memory reading config");
    kvp_status st = kvp_model_from_hf_json(text, strlen(text), KVP__INLINE_CONFIG_NAME, NULL, out,
                                           err);
    kvp__free(NULL, text);
    return st;
}

/* A catalogue name or alias, nothing else. */
static kvp_status from_catalog(const char *name, kvp_model **out, kvp_error *err) {
    kvp_status st = kvp_model_from_catalog(name, NULL, out, err);
    if (st != KVP_NOT_FOUND || !err) return st;
    /* The catalogue's message offers files and the HF cache, which a request
     * cannot use: keep its closest names only. */
    char closest[400] = "";
    const char *c = strstr(err->message, "closest: ");
    if (c) {
        c += strlen("closest: ");
        size_t n = strcspn(c, ";)");
        if (n >= sizeof closest) n = sizeof closest - 1;
        memcpy(closest, c, n);
        closest[n] = '\0';
    }
    return kvp__fail(err, KVP_NOT_FOUND, NULL, "/model",
                     "'%.200s' is not a catalogue name or alias (closest: %s); "
                     "GET /api/v1/models?q= searches the catalogue; a model of your own: send its "
                     "config.json as \"config\"",
                     name, closest);
}

kvp_status kvp__request_model(const json_t *model, const json_t *config,
                              const kvp__json_call_opts *o, kvp_model **out, kvp_error *err) {
    *out = NULL;
    if (model && config)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "/config",
                         "give \"model\" or \"config\", not both");
    if (config) return from_config(config, out, err);
    if (!model)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "/model", "missing (%s; or \"config\": {...})",
                         o->catalog_only ? "a catalogue name or alias"
                                         : "a config.json, a folder, or a catalogue name");
    if (!json_is_string(model))
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "/model", "expected a string, found %s",
                         kvp__json_type_name(model));
    const char *name = json_string_value(model);
    if (!*name) return kvp__fail(err, KVP_INVALID_ARG, NULL, "/model", "empty name");
    if (o->catalog_only) return from_catalog(name, out, err);
    /* A .json file may hold a geometry instead of a config (as `kvplan plan
     * MODEL` reads it, docs/plan.md). */
    size_t n = strlen(name);
    if (n > 5 && !strcmp(name + n - 5, ".json") && kvp__is_regular_file(name)) {
        char *buf = NULL;
        size_t len = 0;
        bool handled = false;
        kvp_status st = kvp__read_file(name, KVP_MAX_CONFIG_BYTES, NULL, &buf, &len, err);
        if (st) return st;
        st = kvp__model_from_json_input(buf, len, name, false, out, &handled, err);
        kvp__free(NULL, buf);
        if (st || handled) return st;
    }
    return kvp_model_open(name, NULL, out, err);
}
