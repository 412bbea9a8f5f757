#!/usr/bin/env python3
"""engine_test.py — kvplan's llama.cpp policy against the real llama.cpp.

For every arch of tests/engine/archs.json it writes the tiny GGUF (tiny_gguf.py),
has the probe (probe.c, linked against the pinned libllama) create contexts over
a grid of settings, and runs `kvplan plan FILE --policy llamacpp` with the same
settings. Every figure llama.cpp prints about its caches is compared:

  llama_context: n_seq_max, n_ctx, n_ctx_seq
  llama_kv_cache: size MiB, cells, layers, seqs/streams, K type, K MiB, V type, V MiB
                  (one record per cache, in order: main / non-SWA / SWA / indexer ...)
  llama_memory_recurrent: size MiB, cells, layers, seqs, R type, R MiB, S type, S MiB

A context llama.cpp refuses must be refused by kvplan, with llama.cpp's reason in
kvplan's message. An arch kvplan does not model must be refused by name.

    engine_test.py PROBE KVPLAN WORKDIR ENGINE_VERSION [ARCH...]
"""
import json
import os
import re
import subprocess
import sys
import time

import tiny_gguf

CTX = [256, 1000, 2048, 3000, 4096, 777]
TYPES = [("f16", "f16"), ("q8_0", "q8_0"), ("q4_0", "q4_0"), ("f16", "q8_0"),
         ("q8_0", "f16"), ("q4_0", "q8_0"), ("q8_0", "q4_0")]
FA = [-1, 0, 1]
UB = [64, 128, 512, 100]
PER_ARCH = 6


def grid(arch_index):
    """PER_ARCH settings for one arch: a deterministic walk (LCG) over the space,
    offset per arch so that the archs together cover every value of every axis."""
    out = []
    x = 12345 + 7919 * arch_index
    for i in range(PER_ARCH):
        x = (x * 1103515245 + 12345) % (1 << 31)
        k = x >> 8
        ctx = CTX[(k + i) % len(CTX)]
        nseq = 1 + (k // 7 + i) % 8
        unified = (k // 61 + i) % 2
        swa_full = (k // 127 + i // 2) % 2
        tk, tv = TYPES[(k // 251 + i) % len(TYPES)]
        fa = FA[(k // 503 + i) % len(FA)]
        ub = UB[(k // 1009 + i) % len(UB)]
        out.append((ctx, nseq, unified, swa_full, tk, tv, fa, ub))
    return out


RE_CTX = re.compile(r"llama_context: (n_seq_max|n_ctx|n_ctx_seq)\s+=\s+(\d+)$")
RE_CTX1 = re.compile(r"llama_context: n_seq_max = (\d+), n_ctx = (\d+), n_ctx_seq = (\d+)")
RE_KV = re.compile(
    r"llama_kv_cache: size = +([\d.]+) MiB \( *(\d+) cells, +(\d+) layers, +(\d+)/(\d+) seqs\), "
    r"K \((\w+)\): +([\d.]+) MiB, V \((\w+)\): +([\d.]+) MiB")
RE_RS = re.compile(
    r"llama_memory_recurrent: size = +([\d.]+) MiB \( *(\d+) cells, +(\d+) layers, +(\d+) seqs"
    r"(?: +\d+ rs_seq)?\), R \((\w+)\): +([\d.]+) MiB, S \((\w+)\): +([\d.]+) MiB")
RE_CREATE = re.compile(r"creating +(.*?) ?KV cache")
KV_FIELDS = ["size_mib", "cells", "layers", "seqs", "streams", "k_type", "k_mib", "v_type", "v_mib"]
RS_FIELDS = ["size_mib", "cells", "layers", "seqs", "r_type", "r_mib", "s_type", "s_mib"]


def parse(lines):
    """Figures of one context from llama.cpp's (or kvplan's) log lines."""
    ctx, caches, tag = {}, [], "main"
    for line in lines:
        m = RE_CTX.search(line)
        if m:
            ctx[m.group(1)] = int(m.group(2))
        m = RE_CTX1.search(line)
        if m:
            ctx.update(n_seq_max=int(m.group(1)), n_ctx=int(m.group(2)),
                       n_ctx_seq=int(m.group(3)))
        m = RE_CREATE.search(line)
        if m:
            tag = m.group(1).strip()
        m = RE_KV.search(line)
        if m:
            caches.append(("kv:" + tag, dict(zip(KV_FIELDS, m.groups()))))
        m = RE_RS.search(line)
        if m:
            caches.append(("recurrent", dict(zip(RS_FIELDS, m.groups()))))
    return ctx, caches


def reason(lines):
    """llama.cpp's reason for refusing a context: its last error-looking line."""
    for line in reversed(lines):
        m = re.match(r"llama_init_from_model: (?:failed to initialize the context: )?(.*)", line)
        if m and m.group(1):
            return m.group(1).strip()
    for line in reversed(lines):
        if "error" in line or "failed" in line:
            return line.split(": ", 1)[-1].strip()
    return "(no message)"


def run_probe(probe, path, settings):
    stdin = "".join("%d %d %d %d %d %s %s %d %d\n" % ((i,) + s) for i, s in enumerate(settings))
    p = subprocess.run([probe, "run", path], input=stdin, capture_output=True, text=True,
                       timeout=600)
    logs, ends, load_lines = {}, {}, []
    for line in p.stdout.splitlines():
        m = re.match(r"LOG (-?\d+) (.*)", line)
        if m:
            logs.setdefault(int(m.group(1)), []).append(m.group(2))
            continue
        m = re.match(r"END (-?\d+) (\w+)(.*)", line)
        if m:
            ends[int(m.group(1))] = (m.group(2), m.group(3).strip())
    loaded = "LOADED" in p.stdout
    return loaded, logs, ends, p.stdout + p.stderr


def kvplan_args(kvplan, path, version, s):
    ctx, nseq, unified, swa_full, tk, tv, fa, ub = s
    a = [kvplan, "plan", path, "--policy", "llamacpp", "--engine-version", version,
         "--ctx-size", str(ctx), "--parallel", str(nseq),
         "--kv-unified" if unified else "--no-kv-unified",
         "--cache-type-k", tk, "--cache-type-v", tv,
         "--flash-attn", {-1: "auto", 0: "off", 1: "on"}[fa], "--ubatch-size", str(ub),
         "--batch-size", "2048"]
    if swa_full:
        a.append("--swa-full")
    return a


def kvplan_archs():
    """The archs kvplan plans (k_checked of src/model/gguf_arch.c) and refuses."""
    src = open(os.path.join(os.path.dirname(tiny_gguf.HERE), "..", "src", "model",
                            "gguf_arch.c")).read()
    def names(array):
        body = src[src.index(array + "[] = {"):]
        return re.findall(r'"([^"]+)"', body[:body.index("};")])
    return names("k_checked"), names("k_no_cache") + names("k_unmodelled")


def main():
    probe, kvplan, work, version = sys.argv[1:5]
    only = sys.argv[5:]
    table = tiny_gguf.load_archs()
    archs = [a for a in sorted(table) if table[a].get("engine_test", True)]
    failures = []
    planned, refused = kvplan_archs()
    for a in planned:
        # Every arch kvplan plans must run here: one llama.cpp does not know, or
        # whose tiny GGUF it does not load, fails with llama.cpp's own message.
        if a not in table:
            failures.append("%s: kvplan plans this arch, which llama.cpp's table lacks" % a)
        elif a not in archs:
            failures.append("%s: kvplan plans this arch, but %s" % (a, table[a].get("excluded")))
        elif table[a].get("kvplan") == "refuse":
            failures.append("%s: archs.json expects a refusal kvplan does not make" % a)
    for a in archs:
        if (table[a].get("kvplan") == "refuse") != (a in refused):
            failures.append("%s: archs.json and kvplan disagree on refusing it" % a)
    if only:
        archs = [a for a in archs if a in only]
        failures = []
    os.makedirs(work, exist_ok=True)
    t0 = time.time()
    stats = {"archs": 0, "runs": 0, "refused_both": 0, "figures": 0, "equal": 0,
             "modelled": [], "refused_archs": []}
    for ai, arch in enumerate(archs):
        spec = table[arch]
        path = os.path.join(work, arch + ".gguf")
        tiny_gguf.write(path, tiny_gguf.arch_kvs(arch, table), tiny_gguf.arch_tensors(arch, table))
        settings = grid(ai)
        loaded, logs, ends, raw = run_probe(probe, path, settings)
        if not loaded:
            failures.append("%s: llama.cpp refused the tiny GGUF: %s" % (arch, reason(logs.get(0, raw.splitlines()))))
            continue
        stats["archs"] += 1
        modelled = spec.get("kvplan", "plan") == "plan"
        (stats["modelled"] if modelled else stats["refused_archs"]).append(arch)
        for i, s in enumerate(settings):
            stats["runs"] += 1
            end = ends.get(i, ("crash", "no END line"))
            lines = logs.get(i, [])
            kp = subprocess.run(kvplan_args(kvplan, path, version, s), capture_output=True,
                                text=True, timeout=60)
            label = "%s %s" % (arch, " ".join(str(x) for x in s))
            if not modelled:
                # kvplan must refuse the arch by name, whatever the settings.
                stats["figures"] += 1
                if kp.returncode != 0 and ("'%s'" % arch) in kp.stderr:
                    stats["equal"] += 1
                else:
                    failures.append("%s: kvplan should refuse the unmodelled arch by name, "
                                    "got rc %d: %s" % (label, kp.returncode, kp.stderr.strip()[:200]))
                continue
            ctx_, nseq_, uni_, swf_, tk_, tv_, fa_, ub_ = s
            if fa_ == -1 and tk_ != tv_ and tv_ != "f16":
                # kvplan's start-up rule L-DT-1 (src/engines/llamacpp/startup_llamacpp.c) is the
                # CUDA build's: no Flash Attention kernel for an asymmetric quantized
                # pair, so -fa auto turns it off and the quantized V is refused. This
                # CPU libllama has the kernel: such a setting is backend-dependent and
                # only kvplan's refusal is checked.
                stats["cuda_rule"] = stats.get("cuda_rule", 0) + 1
                stats["figures"] += 1
                if kp.returncode != 0 and "L-DT-1" in kp.stderr:
                    stats["equal"] += 1
                else:
                    failures.append("%s: expected kvplan's L-DT-1 refusal (CUDA rule): %s" % (
                        label, (kp.stderr or kp.stdout).strip()[:200]))
                continue
            if end[0] == "crash":
                # A tiny model may crash llama.cpp after its caches exist (graph
                # reservation over placeholder weights): the cache lines are data.
                if not parse(lines)[1]:
                    failures.append("%s: llama.cpp crashed before its caches (%s)" % (label, end[1]))
                    continue
                stats["crashed_after_caches"] = stats.get("crashed_after_caches", 0) + 1
            if end[0] == "fail":
                why = reason(lines)
                stats["figures"] += 1
                if kp.returncode != 0 and why in kp.stderr:
                    stats["equal"] += 1
                    stats["refused_both"] += 1
                else:
                    failures.append("%s: llama.cpp refuses (%s); kvplan rc %d: %s" % (
                        label, why, kp.returncode, (kp.stderr or kp.stdout).strip()[:300]))
                continue
            if kp.returncode != 0:
                failures.append("%s: llama.cpp accepts; kvplan refuses: %s" % (label, kp.stderr.strip()[:300]))
                continue
            lctx, lcaches = parse(lines)
            kctx, kcaches = parse(kp.stdout.splitlines())
            diffs = []
            for k in ("n_seq_max", "n_ctx", "n_ctx_seq"):
                stats["figures"] += 1
                if lctx.get(k) == kctx.get(k):
                    stats["equal"] += 1
                else:
                    diffs.append("%s llama.cpp %s kvplan %s" % (k, lctx.get(k), kctx.get(k)))
            for j in range(max(len(lcaches), len(kcaches))):
                lc = lcaches[j] if j < len(lcaches) else (None, {})
                kc = kcaches[j] if j < len(kcaches) else (None, {})
                name = lc[0] or kc[0]
                fields = RS_FIELDS if name == "recurrent" else KV_FIELDS
                for f in fields:
                    stats["figures"] += 1
                    lv, kv = lc[1].get(f), kc[1].get(f)
                    if lc[0] == kc[0] and lv == kv:
                        stats["equal"] += 1
                    else:
                        diffs.append("cache %d %s %s: llama.cpp %s kvplan %s" % (j, lc[0] or "-", f, lv, kv))
            if diffs:
                failures.append("%s: %s" % (label, "; ".join(diffs[:6])))
    secs = time.time() - t0
    stats["seconds"] = round(secs, 1)
    with open(os.path.join(work, "engine_summary.json"), "w") as f:
        json.dump(stats, f, indent=1)
    for msg in failures:
        print("MISMATCH", msg)
    print("engine: llama.cpp %s, %d archs (%d planned, %d refused by name), %d runs "
          "(%d refused by both), %d figures compared, %d equal, %.1f s" % (
              version, stats["archs"], len(stats["modelled"]), len(stats["refused_archs"]),
              stats["runs"], stats["refused_both"], stats["figures"], stats["equal"], secs))
    if stats["runs"] < 300 and not only:
        print("engine: FAIL fewer than 300 runs")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
