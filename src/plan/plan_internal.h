/*
 * plan_internal.h — helpers shared by the files of src/plan/ (kvp__ tier):
 * notes, reading config attributes the cost model does not keep (the seed's
 * getattr fallbacks), and model traits.
 */
#ifndef KVP_PLAN_INTERNAL_H
#define KVP_PLAN_INTERNAL_H

#include <jansson.h>

#include "kvplan/plan.h"
#include "util.h"

/* Append a note (printf-style); NULL notes is a no-op. */
void kvp__note(kvp_notes *notes, const char *fmt, ...) KVP_PRINTF(2, 3);

/* A model's config JSON, opened for attribute look-ups. `lm` is the language
 * model's object (text_config when nested), `root` the outer one; both NULL
 * when the model has no config text. */
typedef struct kvp__cfg {
    json_t *doc;
    json_t *root;
    json_t *lm;
} kvp__cfg;

void kvp__cfg_open(const kvp_model *model, kvp__cfg *cfg);
void kvp__cfg_close(kvp__cfg *cfg);
/* getattr(config, name, None) is not None, on lm then root. */
json_t *kvp__cfg_get(const kvp__cfg *cfg, const char *name);
/* Seed _get_config_int_attr: the first name whose value is a JSON integer
 * >= 0. Returns false when none; *which gets the name found (may be NULL). */
bool kvp__cfg_int(const kvp__cfg *cfg, const char *const *names, size_t n, uint64_t *out,
                  const char **which);

/* Model traits the seed tests with is_* helpers. */
bool kvp__is_kimi_linear(const kvp_model *model);
bool kvp__is_gemma4_hybrid(const kvp_model *model);
bool kvp__has_layer_types(const kvp_model *model);
uint32_t kvp__count_kind(const kvp_model *model, kvp_cache_kind kind);
/* Distinct decoder layers that keep an attention cache (not recurrent, not cross, not indexer). */
uint32_t kvp__attention_layers(const kvp_model *model);

#endif
