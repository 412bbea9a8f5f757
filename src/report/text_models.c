/* text_models.c — `kvplan models [FILTER]`: the catalogue's entries, then its
 * aliases, whose name or Hugging Face id holds FILTER (kvp__models_match, the
 * JSON's rule). The CLI writes what this renders. */
#include "render_internal.h"
#include "text_internal.h"

size_t kvp__models_text(const char *filter, kvp_report_text *t) {
    size_t matched = 0;
    kvp_report_appendf(t, "%-40s %s\n", "name", "hugging face id");
    for (size_t i = 0; i < kvp_catalog_count(); i++) {
        if (!kvp__models_match(filter, kvp_catalog_name(i), kvp_catalog_hf_id(i))) continue;
        kvp_report_appendf(t, "%-40s %s\n", kvp_catalog_name(i), kvp_catalog_hf_id(i));
        matched++;
    }
    for (size_t i = 0; i < kvp_catalog_alias_count(); i++) {
        const char *name = kvp_catalog_alias_name(i), *id = kvp_catalog_alias_hf_id(i);
        if (!kvp__models_match(filter, name, id)) continue;
        kvp_report_appendf(t, "%-40s %s (alias of %s)\n", name, id, kvp_catalog_alias_of(i));
        matched++;
    }
    return matched;
}
