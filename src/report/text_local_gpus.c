/* text_local_gpus.c — the text of `kvplan local` (each model-local cache: its
 * positions, per-row formula, rows, total and whether profiling charges it;
 * the totals and what they mean for measured and estimated memory) and of
 * `kvplan gpus` (the catalogue, the GPUs found on this machine). The CLI writes
 * what these render. */
#include <stdio.h>
#include <string.h>

#include "text_internal.h"
#include "util.h"

static double gib(uint64_t b) { return (double)b / (double)(1ull << 30); }

static const char *on_off(bool b) { return b ? "on" : "off"; }

static const char *fmt_b(uint64_t v, char *buf, size_t size) {
    char c[40], h[40];
    kvp__fmt_count(v, c, sizeof c);
    kvp__fmt_bytes(v, h, sizeof h);
    if (v < 1024)
        snprintf(buf, size, "%s B", c);
    else
        snprintf(buf, size, "%s B (%s)", c, h);
    return buf;
}

void kvp__local_text(const kvp_local_report *r, kvp_report_text *t) {
    const kvp_local_deployment *dep = kvp_local_report_deployment(r);
    const kvp_local_totals *tot = kvp_local_report_totals(r);
    char a[64], b[64], c[64];
    kvp_report_appendf(t, "model-local KV caches of %s (max_num_seqs %s; async_chunk %s, streaming %s, "
           "enforce_eager %s)\n\n",
           kvp_local_report_model(r), kvp__fmt_count(dep->max_num_seqs, a, sizeof a),
           on_off(dep->async_chunk), on_off(dep->streaming), on_off(dep->enforce_eager));
    size_t n = kvp_local_report_entry_count(r);
    if (n) {
        kvp_report_appendf(t, "%-30s %12s %8s  %-12s %12s  %s\n", "cache", "per row", "rows", "driver", "total",
               "profiling");
        for (size_t i = 0; i < n; i++) {
            const kvp_local_entry *e = kvp_local_report_entry(r, i);
            kvp_report_appendf(t, "%-30s %12s %8s  %-12s %12s  %s\n", e->name,
                   kvp__fmt_bytes(e->bytes_per_row, a, sizeof a),
                   kvp__fmt_count(e->rows, b, sizeof b), kvp_local_row_driver_name(e->row_driver),
                   kvp__fmt_bytes(e->total_bytes, c, sizeof c),
                   e->charged ? "already charged" : "not charged");
        }
    } else {
        kvp_report_appendf(t, "no model-local KV caches on this path\n");
    }
    for (size_t i = 0; i < n; i++) {
        const kvp_local_entry *e = kvp_local_report_entry(r, i);
        char big[96];
        kvp_report_appendf(t, "\n%s: %s, scope %s, owner %s%s\n", e->name, kvp_local_cache_kind_name(e->kind),
               kvp_local_scope_name(e->scope), e->owner[0] ? e->owner : "(root)",
               e->via_hop ? " (one explicit hop)" : "");
        if (e->condition[0]) kvp_report_appendf(t, "  when       %s\n", e->condition);
        kvp_report_appendf(t, "  positions  %llu: %s (%s)\n", (unsigned long long)e->positions, e->bound_formula,
               kvp_local_bound_name(e->bound));
        kvp_report_appendf(t, "  per row    %s = 2 x %llu layers x %llu kv_heads x %llu head_dim x %llu "
               "positions x %llu B\n",
               fmt_b(e->bytes_per_row, big, sizeof big), (unsigned long long)e->layers,
               (unsigned long long)e->kv_heads, (unsigned long long)e->head_dim,
               (unsigned long long)e->positions, (unsigned long long)e->element_bytes);
        kvp_report_appendf(t, "  geometry   %s\n", e->geometry_source);
        kvp_report_appendf(t, "  rows       %s (%s)%s%s\n", kvp__fmt_count(e->rows, a, sizeof a),
               kvp_local_row_driver_name(e->row_driver), e->rows_reason[0] ? ": " : "",
               e->rows_reason);
        kvp_report_appendf(t, "  total      %s, %s\n", fmt_b(e->total_bytes, big, sizeof big),
               e->charged ? "already charged: graph-resident, allocated before profiling"
                          : "not charged: allocated after profiling");
        if (e->exclusive_group[0]) kvp_report_appendf(t, "  exclusive  %s\n", e->exclusive_group);
        if (e->allocation_note[0]) kvp_report_appendf(t, "  layout     %s\n", e->allocation_note);
        if (e->capacity_source[0]) kvp_report_appendf(t, "  capacity   %s\n", e->capacity_source);
    }
    size_t ni = kvp_local_report_inert_count(r);
    if (ni) kvp_report_appendf(t, "\ninert on this path (declare nothing):\n");
    for (size_t i = 0; i < ni; i++) {
        const kvp_local_inert *in = kvp_local_report_inert(r, i);
        kvp_report_appendf(t, "  %s (%s): %s\n", in->name, in->owner[0] ? in->owner : "(root)", in->reason);
    }
    size_t nf = kvp_local_report_failure_count(r);
    if (nf) kvp_report_appendf(t, "\nfailed declarers (reported and skipped):\n");
    for (size_t i = 0; i < nf; i++) {
        const kvp_local_failure *f = kvp_local_report_failure(r, i);
        kvp_report_appendf(t, "  %s%s%s: %s\n", f->owner[0] ? f->owner : "(root)", f->name[0] ? " / " : "",
               f->name, f->message);
    }
    /* Mutually exclusive groups: name their members once. */
    for (size_t i = 0; i < n; i++) {
        const kvp_local_entry *e = kvp_local_report_entry(r, i);
        if (!e->exclusive_group[0]) continue;
        bool first = true, other = false;
        for (size_t j = 0; j < n; j++) {
            const kvp_local_entry *o = kvp_local_report_entry(r, j);
            if (j == i || strcmp(o->exclusive_group, e->exclusive_group) != 0) continue;
            other = true;
            if (j < i) first = false;
        }
        if (!first || !other) continue;
        kvp_report_appendf(t, "\nmutually exclusive per call (%s):", e->exclusive_group);
        for (size_t j = 0; j < n; j++) {
            const kvp_local_entry *o = kvp_local_report_entry(r, j);
            if (strcmp(o->exclusive_group, e->exclusive_group) == 0) kvp_report_appendf(t, " %s", o->name);
        }
        kvp_report_appendf(t, "\n  a call uses one of them: their sum is the process ceiling, not a per-request "
               "figure\n");
    }
    char big[96];
    uint64_t add_est, risk;
    kvp_local_budget_effect(r, false, &add_est, &risk);
    kvp_report_appendf(t, "\ntotals at max_num_seqs %s\n", kvp__fmt_count(tot->max_num_seqs, a, sizeof a));
    kvp_report_appendf(t, "  not charged (allocated after profiling)   %s\n",
           fmt_b(tot->not_charged_bytes, big, sizeof big));
    kvp_report_appendf(t, "  already charged (graph-resident)          %s\n",
           fmt_b(tot->charged_bytes, big, sizeof big));
    kvp_report_appendf(t, "  all model-local caches                    %s\n",
           fmt_b(tot->total_bytes, big, sizeof big));
    kvp_report_appendf(t, "measured memory: report only; nothing is subtracted from the KV budget (the "
           "graph-resident part is already in the measured peak)\n");
    kvp_report_appendf(t, "estimated memory: add %s (graph-resident) to the predicted peak; %s (not charged) is "
           "a risk no per-stage number predicts\n",
           kvp__fmt_bytes(add_est, a, sizeof a), kvp__fmt_bytes(risk, b, sizeof b));
}

void kvp__gpus_catalog_text(const kvp_gpu_info *list, size_t n, kvp_report_text *t) {
    kvp_report_appendf(t, "%-27s %-7s %12s %-8s %6s  %-7s %s\n", "name", "vendor", "total GiB", "basis", "GB/s",
           "cc", "arch");
    for (size_t i = 0; i < n; i++) {
        const kvp_gpu_info *g = &list[i];
        char cc[16];
        kvp_gpu_cc_string(g->compute_capability, cc, sizeof cc);
        kvp_report_appendf(t, "%-27s %-7s %12.2f %-8s %6.0f  %-7s %s\n", g->name, g->vendor, gib(g->total_bytes),
               g->total_basis, (double)g->bandwidth_bytes_per_s / 1e9,
               g->gfx_target[0] ? g->gfx_target : cc[0] ? cc : "-", g->arch[0] ? g->arch : "-");
    }
    kvp_report_append(t, "\ntotal: CUDA/HIP-visible bytes when the catalogue knows them (basis "
                         "cuda/hip), else the\n"
                         "nvidia-smi total (nvml) or a figure derived from the marketing size "
                         "(derived);\n"
                         "cc: compute capability (AMD: the LLVM gfx target);\n"
                         "'kvplan gpus --catalog --json' gives the source of every figure.\n");
}

void kvp__gpus_live_text(const kvp_probe_result *r, kvp_status st, kvp_report_text *t) {
    if (st == KVP_OK) {
        kvp_report_appendf(t, "%-3s %-28s %-6s %12s %12s %12s %-7s %s\n", "gpu", "name", "via", "total GiB",
               "free GiB", "used GiB", "cc", "catalogue");
        for (uint32_t i = 0; i < r->device_count; i++) {
            const kvp_probed_gpu *d = &r->devices[i];
            char cc[16];
            kvp_gpu_cc_string(d->info.compute_capability, cc, sizeof cc);
            kvp_report_appendf(t, "%-3u %-28s %-6s %12.2f %12.2f %12.2f %-7s %s\n", i, d->info.name, d->backend,
                   gib(d->info.total_bytes), gib(d->info.free_bytes), gib(d->used_bytes),
                   d->info.gfx_target[0] ? d->info.gfx_target : cc[0] ? cc : "-",
                   d->catalog_name[0] ? d->catalog_name : "-");
            if (d->info.arch_source[0])
                kvp_report_appendf(t, "    %s, from %s\n", d->info.arch[0] ? d->info.arch : "architecture unknown",
                       d->info.arch_source);
            if (d->reserved_bytes)
                kvp_report_appendf(t, "    driver total %.2f GiB, of which %.2f GiB reserved by the driver\n",
                       gib(d->info.driver_total_bytes), gib(d->reserved_bytes));
            int32_t keep = d->process_count < KVP_PROBE_MAX_PROCESSES ? d->process_count
                                                                      : KVP_PROBE_MAX_PROCESSES;
            for (int32_t k = 0; k < keep; k++)
                kvp_report_appendf(t, "    process %u holds %.2f GiB\n", d->processes[k].pid,
                       gib(d->processes[k].used_bytes));
        }
        if (r->driver_version[0]) kvp_report_appendf(t, "driver %s\n", r->driver_version);
        if (r->nvidia_note[0]) kvp_report_appendf(t, "note: %s\n", r->nvidia_note);
    } else {
        kvp_report_appendf(t, "no GPU found\n  %s\n  %s\n", r->nvidia_note, r->amd_note);
    }
}
