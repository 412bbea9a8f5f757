/* cmd_gpus.c — `kvplan gpus`: the GPUs on this machine (NVML / CUDA driver /
 * AMD sysfs), or with --catalog the embedded catalogue of common GPUs. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "render_internal.h" /* the GPU JSON (shared with kvp_json_call), the envelope */

static const char *const k_usage =
    "usage: kvplan gpus [--catalog] [--json]\n"
    "  lists the GPUs found on this machine with their total, free and used memory\n"
    "  (NVIDIA through NVML or the CUDA driver, AMD through sysfs)\n"
    "  --catalog  list the embedded catalogue instead (names usable with --gpu)\n"
    "  --json     machine-readable output\n"
    "exit status: 0 GPUs found, 1 none found (the notes say why), 2 bad usage";

static double gib(uint64_t b) { return (double)b / (double)(1ull << 30); }

static void print_json(json_t *v) {
    char *s = json_dumps(v, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (s) {
        puts(s);
        free(s);
    }
    json_decref(v);
}

static int list_catalog(bool json) {
    kvp_error err;
    if (json) {
        char *text = NULL;
        if (kvp__gpus_catalog_json_text(kvp_cli_gpu_catalog(), &text, &err) != KVP_OK)
            return kvp_cli_report_error(&err, true);
        puts(text);
        free(text);
        return KVP_EXIT_OK;
    }
    /* One read of the catalogue (and of the user's file) for the whole list. */
    size_t n = 0;
    static kvp_gpu_info list[1024 + 64]; /* a user file's 1024 entries + the embedded ones */
    if (kvp_gpu_catalog_list_in(kvp_cli_gpu_catalog(), list, sizeof list / sizeof list[0], &n,
                                &err) != KVP_OK)
        return kvp_cli_report_error(&err, false);
    if (n > sizeof list / sizeof list[0]) n = sizeof list / sizeof list[0];
    printf("%-27s %-7s %12s %-8s %6s  %-7s %s\n", "name", "vendor", "total GiB", "basis", "GB/s",
           "cc", "arch");
    for (size_t i = 0; i < n; i++) {
        const kvp_gpu_info *g = &list[i];
        char cc[16];
        kvp_gpu_cc_string(g->compute_capability, cc, sizeof cc);
        printf("%-27s %-7s %12.2f %-8s %6.0f  %-7s %s\n", g->name, g->vendor, gib(g->total_bytes),
               g->total_basis, (double)g->bandwidth_bytes_per_s / 1e9,
               g->gfx_target[0] ? g->gfx_target : cc[0] ? cc : "-", g->arch[0] ? g->arch : "-");
    }
    puts("\ntotal: CUDA/HIP-visible bytes when the catalogue knows them (basis cuda/hip), else the\n"
         "nvidia-smi total (nvml) or a figure derived from the marketing size (derived);\n"
         "cc: compute capability (AMD: the LLVM gfx target);\n"
         "'kvplan gpus --catalog --json' gives the source of every figure.");
    return KVP_EXIT_OK;
}

static int list_live(bool json) {
    kvp_probe_result *r = malloc(sizeof *r);
    if (!r) return kvp_cli_fail("out of memory");
    kvp_error err;
    kvp_status st = kvp_probe_gpus(NULL, r, &err);
    if (json) {
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
        print_json(root);
    } else if (st == KVP_OK) {
        printf("%-3s %-28s %-6s %12s %12s %12s %-7s %s\n", "gpu", "name", "via", "total GiB",
               "free GiB", "used GiB", "cc", "catalogue");
        for (uint32_t i = 0; i < r->device_count; i++) {
            const kvp_probed_gpu *d = &r->devices[i];
            char cc[16];
            kvp_gpu_cc_string(d->info.compute_capability, cc, sizeof cc);
            printf("%-3u %-28s %-6s %12.2f %12.2f %12.2f %-7s %s\n", i, d->info.name, d->backend,
                   gib(d->info.total_bytes), gib(d->info.free_bytes), gib(d->used_bytes),
                   d->info.gfx_target[0] ? d->info.gfx_target : cc[0] ? cc : "-",
                   d->catalog_name[0] ? d->catalog_name : "-");
            if (d->info.arch_source[0])
                printf("    %s, from %s\n", d->info.arch[0] ? d->info.arch : "architecture unknown",
                       d->info.arch_source);
            if (d->reserved_bytes)
                printf("    driver total %.2f GiB, of which %.2f GiB reserved by the driver\n",
                       gib(d->info.driver_total_bytes), gib(d->reserved_bytes));
            int32_t keep = d->process_count < KVP_PROBE_MAX_PROCESSES ? d->process_count
                                                                      : KVP_PROBE_MAX_PROCESSES;
            for (int32_t k = 0; k < keep; k++)
                printf("    process %u holds %.2f GiB\n", d->processes[k].pid,
                       gib(d->processes[k].used_bytes));
        }
        if (r->driver_version[0]) printf("driver %s\n", r->driver_version);
        if (r->nvidia_note[0]) printf("note: %s\n", r->nvidia_note);
    } else {
        printf("no GPU found\n  %s\n  %s\n", r->nvidia_note, r->amd_note);
    }
    free(r);
    if (st == KVP_OK) return KVP_EXIT_OK;
    return st == KVP_NO_DEVICE ? KVP_EXIT_NO : kvp_cli_report_error(&err, false);
}

int kvp_cmd_gpus(int argc, char **argv) {
    bool json = false, catalog = false;
    for (int i = 1; i < argc; i++) {
        if (kvp_cli_flag(argv[i], "--json")) {
            json = true;
        } else if (kvp_cli_flag(argv[i], "--catalog")) {
            catalog = true;
        } else if (kvp_cli_flag(argv[i], "--help") || strcmp(argv[i], "-h") == 0) {
            puts(k_usage);
            return KVP_EXIT_OK;
        } else {
            static const char *const known[] = {"--json", "--catalog", "--help", NULL};
            return kvp_cli_unknown_option(argv[i], known);
        }
    }
    return catalog ? list_catalog(json) : list_live(json);
}
