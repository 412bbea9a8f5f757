/* hf_layers.h — per-family layer schedules of a HF config (hf_layers.c). */
#ifndef KVP_HF_LAYERS_H
#define KVP_HF_LAYERS_H
#include "hf_json.h"

/* Fill the model's layer cache records and the cache-related info fields. */
kvp_status kvp__hf_layers(hf_reader *r, kvp_model *model);
#endif
