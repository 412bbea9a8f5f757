/* hf_layers.h — per-family layer schedules of a HF config (hf_layers.c). */
#ifndef KVP_HF_LAYERS_H
#define KVP_HF_LAYERS_H
#include "hf_json.h"

/* Fill the model's layer cache records and the cache-related info fields. */
kvp_status kvp__hf_layers(hf_reader *r, kvp_model *model);
/* hf_watch.c: refuse by name a watched key (compression ratios, sparse / index
 * configs, linear-attention configs, cross-layer KV sharing) that the model's
 * family does not read; then, once the layer count is known, a per-layer list
 * of strings that no reader reads. */
kvp_status kvp__hf_watch_keys(hf_reader *r, const hf_obj *lm, const kvp_model_info *info);
kvp_status kvp__hf_watch_lists(hf_reader *r, const hf_obj *lm, uint32_t layers);
/* Has this model type a hand-checked config (else it is read as unverified)? */
bool kvp__hf_family_verified(const char *model_type);
#endif
