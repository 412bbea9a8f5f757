/* json_gpus.c — GPUs as JSON (`kvplan gpus [--catalog] --json`,
 * kvp_json_call("gpus")). Fields: docs/gpus.md. */
#include <jansson.h>
#include <stdlib.h>

#include "json_error.h"
#include "kvplan/probe.h"
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

kvp_status kvp__gpus_live_json_text(const kvp_probe_result *r, char **out, kvp_error *err) {
    json_t *root = kvp__json_document(), *arr = json_array();
    for (uint32_t i = 0; i < r->device_count; i++) {
        const kvp_probed_gpu *d = &r->devices[i];
        json_t *o = kvp__gpu_json(&d->info, true);
        json_object_set_new(o, "device", json_integer(i));
        json_object_set_new(o, "backend", json_string(d->backend));
        json_object_set_new(o, "backend_index", json_integer(d->index));
        json_object_set_new(o, "used_bytes", json_integer((json_int_t)d->used_bytes));
        json_object_set_new(o, "reserved_bytes", json_integer((json_int_t)d->reserved_bytes));
        json_object_set_new(o, "catalog_name", d->catalog_name[0]
                                                   ? json_string(d->catalog_name)
                                                   : json_null());
        if (d->process_count >= 0) {
            json_t *pa = json_array();
            int32_t keep = d->process_count < KVP_PROBE_MAX_PROCESSES
                               ? d->process_count
                               : KVP_PROBE_MAX_PROCESSES;
            for (int32_t k = 0; k < keep; k++) {
                json_t *p = json_object();
                json_object_set_new(p, "pid", json_integer(d->processes[k].pid));
                json_object_set_new(p, "used_bytes",
                                    json_integer((json_int_t)d->processes[k].used_bytes));
                json_array_append_new(pa, p);
            }
            json_object_set_new(o, "process_count", json_integer(d->process_count));
            json_object_set_new(o, "processes", pa);
        }
        json_array_append_new(arr, o);
    }
    json_object_set_new(root, "devices", arr);
    json_object_set_new(root, "driver_version", json_string(r->driver_version));
    json_t *notes = json_array();
    if (r->nvidia_note[0]) json_array_append_new(notes, json_string(r->nvidia_note));
    if (r->amd_note[0]) json_array_append_new(notes, json_string(r->amd_note));
    json_object_set_new(root, "notes", notes);
    /* As the CLI always wrote it (jansson's own dump, 2-space indent, keys in order). */
    *out = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(root);
    return *out ? KVP_OK : kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory writing the GPUs");
}
