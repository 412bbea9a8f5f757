/* json_gpus.c — GPUs as JSON (`kvplan gpus [--catalog] --json`,
 * kvp_json_call("gpus")). Fields: docs/gpus.md. */
#include <jansson.h>
#include <stdlib.h>

#include "json_error.h"
#include "render_internal.h"
#include "util.h"

json_t *kvp__gpu_json(const kvp_gpu_info *g, bool live) {
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(g->name));
    json_object_set_new(o, "vendor", json_string(g->vendor));
    json_object_set_new(o, "total_bytes", json_integer((json_int_t)g->total_bytes));
    if (live) json_object_set_new(o, "free_bytes", json_integer((json_int_t)g->free_bytes));
    json_object_set_new(o, "driver_total_bytes", json_integer((json_int_t)g->driver_total_bytes));
    json_object_set_new(o, "total_basis", json_string(g->total_basis));
    json_object_set_new(o, "bandwidth_bytes_per_s",
                        json_integer((json_int_t)g->bandwidth_bytes_per_s));
    json_object_set_new(o, "source", json_string(g->source));
    char cc[16];
    kvp_gpu_cc_string(g->compute_capability, cc, sizeof cc);
    json_object_set_new(o, "compute_capability", cc[0] ? json_string(cc) : json_null());
    json_object_set_new(o, "gfx_target", g->gfx_target[0] ? json_string(g->gfx_target) : json_null());
    json_object_set_new(o, "arch", g->arch[0] ? json_string(g->arch) : json_null());
    json_object_set_new(o, "arch_source", json_string(g->arch_source));
    return o;
}

/* A user file's 1024 entries + the embedded ones (gpu_catalog.c's bounds). */
#define KVP__GPU_LIST_MAX (1024 + 64)

kvp_status kvp__gpus_catalog_json_text(const char *catalog_path, char **out, kvp_error *err) {
    *out = NULL;
    /* kvp_json_call takes no allocator: libc, through the one allocation path. */
    kvp_gpu_info *list = kvp__calloc(NULL, KVP__GPU_LIST_MAX, sizeof *list);
    if (!list) return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory listing the GPUs");
    size_t n = 0;
    kvp_status st = kvp_gpu_catalog_list_in(catalog_path, list, KVP__GPU_LIST_MAX, &n, err);
    if (st == KVP_OK) {
        if (n > KVP__GPU_LIST_MAX) n = KVP__GPU_LIST_MAX;
        json_t *root = kvp__json_document(), *arr = json_array();
        for (size_t i = 0; i < n; i++) json_array_append_new(arr, kvp__gpu_json(&list[i], false));
        json_object_set_new(root, "gpus", arr);
        *out = kvp__json_dump(root, KVP__JSON_FLAGS, NULL);
        json_decref(root);
        if (!*out) st = kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory writing the GPUs");
    }
    kvp__free(NULL, list);
    return st;
}
