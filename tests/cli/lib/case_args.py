#!/usr/bin/env python3
"""case_args.py — a reference case (tests/reference/*.jsonl, shared/reference/README.md)
as the command line of `kvplan plan`. The shapes of the harness stay here, in the tests
(issue 12 item 4): the shipped CLI takes options, not case inputs.

  - an input that is None (not stated) is left out: the engine default applies;
  - a whole float ("4096.0", 4096.0) is the integer it writes;
  - `era`, `engine_version` and `indexer_counted` are one --engine-version text, the
    words the policies read ("v1-mid 0.9.1", "... post-11309");
  - `kv_dtype_resolved` names what `kv_dtype: auto` stood for (an explicit dtype wins);
  - informational inputs (budget_source, tp_note, ...) are not options;
  - `config: {"file": F}` is the file under data/models (or shared/models); `geometry`
    is written to a file named as MODEL.

Two spellings: "kvplan" (kvplan's option names) and "engine" (each engine's own
flags: --tensor-parallel-size, --context-length, -c, -np, -ctk ...), so the
reference cases check both halves of the option table.
"""
import json
import os

# input key -> (kvplan's option, {engine: its own spelling}); booleans are flags.
OPTIONS = [
    ("tp", "--tp", {"vllm": "--tensor-parallel-size", "sglang": "--tp-size"}),
    ("pp", "--pp", {"vllm": "--pipeline-parallel-size", "sglang": "--pp-size"}),
    ("dp", "--dp", {"vllm": "--data-parallel-size", "sglang": "--dp-size"}),
    ("enable_dp_attention", "--attention-dp", {"sglang": "--enable-dp-attention"}),
    ("kv_dtype", "--kv-dtype", {"vllm": "--kv-cache-dtype", "sglang": "--kv-cache-dtype"}),
    ("block_size", "--block-size", {"sglang": "--page-size"}),
    ("max_model_len", "--max-seq-len", {"vllm": "--max-model-len", "sglang": "--context-length"}),
    ("gpu_memory_utilization", "--gpu-memory-utilization", {}),
    ("mem_fraction_static", "--mem-fraction-static", {}),
    ("n_ctx", "--ctx-size", {"llamacpp": "-c"}),
    ("n_seq_max", "--parallel", {"llamacpp": "-np"}),
    ("kv_unified", "--kv-unified", {"llamacpp": "-kvu"}),
    ("type_k", "--cache-type-k", {"llamacpp": "-ctk"}),
    ("type_v", "--cache-type-v", {"llamacpp": "-ctv"}),
    ("swa_full", "--swa-full", {}),
    ("flash_attn", "--flash-attn", {"llamacpp": "-fa"}),
    ("n_ubatch", "--ubatch-size", {"llamacpp": "-ub"}),
    ("n_batch", "--batch-size", {"llamacpp": "-b"}),
    ("num_draft_kv_layers", "--num-draft-layers", {}),
    ("mamba_cache_mode", "--mamba-cache-mode", {}),
    ("max_num_batched_tokens", "--max-num-batched-tokens", {}),
    ("max_num_seqs", "--max-num-seqs", {}),
]
# budget_inputs (bytes in the engine's log) -> the measured-memory options.
MEASURED = [("total_memory_bytes", "--gpu-mem"), ("free_memory_at_start_bytes", "--free-mem"),
            ("weights_bytes", "--weights"), ("peak_activation_bytes", "--activation-peak"),
            ("non_torch_bytes", "--non-torch"), ("cudagraph_bytes", "--cuda-graph"),
            ("gpu_memory_utilization", "--gpu-memory-utilization")]


def value(v):
    """A case value as option text: whole floats as integers, booleans as true/false."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    if isinstance(v, str):
        head, dot, tail = v.partition(".")
        if dot and head.lstrip("-").isdigit() and tail.strip("0") == "":
            return head
    return str(v)


def engine_version(inp):
    """era + engine_version + indexer_counted: the one version text the policies read."""
    words = [inp[k] for k in ("era", "engine_version") if inp.get(k) is not None]
    ic = inp.get("indexer_counted")
    if ic is not None:
        words.append("post-11309" if ic else "pre-11309")
    return " ".join(str(w) for w in words) or None


def model_argv(case, src, tmp):
    cfg = case.get("config")
    if cfg:
        path = os.path.join(src, "data", "models", cfg["file"])
        if not os.path.exists(path):
            path = os.path.join(src, "..", "shared", "models", cfg["file"])
        return [path]
    geo = case.get("geometry")
    if geo is None:
        raise RuntimeError("case %s has neither config nor geometry" % case.get("id"))
    path = os.path.join(tmp, "%s-geometry.json" % case.get("id", "case"))
    with open(path, "w") as f:
        json.dump(geo, f)
    return [path]


def option_argv(inp, spelling="kvplan", skip=()):
    """The inputs as options (no MODEL, no budget)."""
    engine = inp["policy"]
    a = ["--policy", engine]
    ver = engine_version(inp)
    if ver is not None:
        a += ["--engine-version", ver]
    resolved = inp.get("kv_dtype_resolved")
    for key, opt, own in OPTIONS:
        v = inp.get(key)
        if key == "kv_dtype" and resolved and engine != "llamacpp" and v in (None, "auto"):
            v = resolved
        if v is None or key in skip:
            continue
        name = own.get(engine, opt) if spelling == "engine" else opt
        if isinstance(v, bool):
            # -kvu / -fa have no "=false" form in llama.cpp; kvplan's flags take it.
            if name == "-kvu":
                name = "--kv-unified" if v else "--no-kv-unified"
                a.append(name)
            elif name == "-fa":
                a += ["-fa", "on" if v else "off"]
            else:
                a.append("%s=%s" % (name, value(v)))
        else:
            a += [name, value(v)]
    return a


def budget_runs(case):
    """The budget options of each run: {"one": [...]} or {"lo": [...], "hi": [...]}."""
    inp, bi = case["inputs"], case.get("budget_inputs") or {}
    if bi:
        a = []
        for key, opt in MEASURED:
            if bi.get(key) is not None:
                a += [opt, value(bi[key])]
        return {"one": a}
    lo, hi = inp.get("kv_budget_bytes_lo"), inp.get("kv_budget_bytes_hi")
    if lo is not None:
        return {"lo": ["--kv-budget", value(lo)], "hi": ["--kv-budget", value(hi)]}
    return {"one": []}


def case_runs(case, src, tmp, spelling="kvplan"):
    """Every run of a case as argv after `kvplan plan`: {"one"|"lo"|"hi": argv}."""
    inp = case["inputs"]
    runs = budget_runs(case)
    # budget_inputs carry their own utilisation.
    skip = ("gpu_memory_utilization",) if case.get("budget_inputs") else ()
    base = model_argv(case, src, tmp) + option_argv(inp, spelling, skip)
    return {k: base + v for k, v in runs.items()}
