/* model_arg.h — one MODEL argument opened as a model (kvp__ tier). */
#ifndef KVP_MODEL_ARG_H
#define KVP_MODEL_ARG_H

#include <stdbool.h>

#include "kvplan/model.h"

/* MODEL: a path (config.json, a folder, a .gguf, a geometry JSON), or a
 * catalogue name; `forced_geometry` (--geometry FILE): it must be a geometry
 * JSON. *out owned by the caller (kvp_model_free). */
kvp_status kvp__model_load_arg(const char *arg, bool forced_geometry, kvp_model **out,
                               kvp_error *err);

#endif
