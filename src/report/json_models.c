/* json_models.c — the catalogue as JSON (`kvplan models [FILTER] --json`,
 * kvp_json_call("models")): [{"name", "hf_id"}, ...] then the aliases with
 * "alias_of". */
#include <jansson.h>
#include <string.h>

#include "render_internal.h"
#include "json_error.h"
#include "util.h"

/* Case-insensitive substring. */
static bool contains(const char *hay, const char *needle) {
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i]) {
            char a = hay[i], b = needle[i];
            if (a >= 'A' && a <= 'Z') a = (char)(a + 32);
            if (b >= 'A' && b <= 'Z') b = (char)(b + 32);
            if (a != b) break;
            i++;
        }
        if (i == n) return true;
    }
    return n == 0;
}

bool kvp__models_match(const char *filter, const char *name, const char *hf_id) {
    return !filter || !*filter || contains(name, filter) || contains(hf_id, filter);
}

static json_t *entry(const char *name, const char *hf_id, const char *alias_of) {
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(name));
    json_object_set_new(o, "hf_id", json_string(hf_id));
    if (alias_of) json_object_set_new(o, "alias_of", json_string(alias_of));
    return o;
}

kvp_status kvp__models_json_text(const char *filter, char **out, size_t *matched, kvp_error *err) {
    *out = NULL;
    *matched = 0;
    json_t *a = json_array();
    for (size_t i = 0; i < kvp_catalog_count(); i++) {
        if (!kvp__models_match(filter, kvp_catalog_name(i), kvp_catalog_hf_id(i))) continue;
        json_array_append_new(a, entry(kvp_catalog_name(i), kvp_catalog_hf_id(i), NULL));
        (*matched)++;
    }
    for (size_t i = 0; i < kvp_catalog_alias_count(); i++) {
        if (!kvp__models_match(filter, kvp_catalog_alias_name(i), kvp_catalog_alias_hf_id(i)))
            continue;
        json_array_append_new(a, entry(kvp_catalog_alias_name(i), kvp_catalog_alias_hf_id(i),
                                       kvp_catalog_alias_of(i)));
        (*matched)++;
    }
    *out = kvp__json_dump(a, KVP__JSON_FLAGS, NULL);
    json_decref(a);
    if (!*out) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory writing the catalogue");
    return KVP_OK;
}
