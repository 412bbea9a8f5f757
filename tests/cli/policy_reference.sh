#!/usr/bin/env bash
# policy_reference.sh — replays the engine reference cases (tests/reference/*.jsonl,
# copies of shared/reference) through `kvplan plan --policy X --json` and checks
# engine_report against each expect entry under its rule (exact, printed_round,
# budget_bracket run at lo and hi, budget_formula), as shared/reference/README.md
# defines them. Usage: bash policy_reference.sh KVPLAN SRCDIR [CASE_DIR]
# Prints one line per case and "N passed, M failed"; exits 1 on any failure.
set -u
KVPLAN=$1
SRC=$2
CASES=${3:-$SRC/tests/reference}
command -v python3 >/dev/null || { echo "python3 is required"; exit 1; }
exec python3 - "$KVPLAN" "$SRC" "$CASES" <<'PY'
import glob, json, os, subprocess, sys, tempfile

kvplan, src, case_dir = sys.argv[1:4]
UNIT = {"GiB": 2**30, "MiB": 2**20, "GB": 2**30}

def model_args(case, tmp):
    cfg = case.get("config")
    if cfg:
        path = os.path.join(src, "data", "models", cfg["file"])
        if not os.path.exists(path):
            path = os.path.join(src, "..", "shared", "models", cfg["file"])
        return [path]
    geo = case.get("geometry")
    if geo:
        p = os.path.join(tmp, case["id"] + "-geometry.json")
        with open(p, "w") as f:
            json.dump(geo, f)
        return [p]
    raise RuntimeError("case has neither config nor geometry")

def option_args(inp):
    a = ["--policy", inp["policy"]]
    def put(opt, key, conv=str):
        v = inp.get(key)
        if v is not None:
            a.extend([opt, conv(v)])
    def flag(opt, key):
        v = inp.get(key)
        if v is not None:
            a.append("%s=%s" % (opt, "true" if v else "false"))
    put("--engine-version", "engine_version")
    put("--tp", "tp"); put("--pp", "pp"); put("--dp", "dp")
    flag("--enable-dp-attention", "enable_dp_attention")
    put("--kv-dtype", "kv_dtype")
    put("--block-size", "block_size")
    put("--max-model-len", "max_model_len")
    put("--gpu-memory-utilization", "gpu_memory_utilization")
    put("--mem-fraction-static", "mem_fraction_static")
    put("--ctx-size", "n_ctx"); put("--parallel", "n_seq_max")
    flag("--kv-unified", "kv_unified")
    put("--cache-type-k", "type_k"); put("--cache-type-v", "type_v")
    flag("--swa-full", "swa_full")
    flag("--flash-attn", "flash_attn")
    put("--ubatch-size", "n_ubatch"); put("--batch-size", "n_batch")
    put("--num-draft-layers", "num_draft_kv_layers")
    put("--mamba-cache-mode", "mamba_cache_mode")
    put("--max-num-batched-tokens", "max_num_batched_tokens")
    put("--max-num-seqs", "max_num_seqs")
    if inp.get("indexer_counted") is False:
        i = a.index("--engine-version") if "--engine-version" in a else -1
        if i >= 0: a[i + 1] += " pre-11309"
        else: a.extend(["--engine-version", "pre-11309"])
    return a

def budget_args(case):
    bi = case.get("budget_inputs")
    if not bi:
        return []
    a = []
    for opt, key in (("--gpu-mem", "total_memory_bytes"), ("--free-mem", "free_memory_at_start_bytes"),
                     ("--weights", "weights_bytes"), ("--peak", "peak_activation_bytes"),
                     ("--non-torch", "non_torch_bytes"), ("--cuda-graph", "cudagraph_bytes")):
        if bi.get(key) is not None:
            a.extend([opt, str(bi[key])])
    if bi.get("gpu_memory_utilization") is not None and "--gpu-memory-utilization" not in a:
        a.extend(["--gpu-memory-utilization", str(bi["gpu_memory_utilization"])])
    return a

def run(args):
    p = subprocess.run([kvplan, "plan"] + args + ["--json"], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("exit %d: %s %s" % (p.returncode, p.stderr.strip(), p.stdout.strip()))
    return json.loads(p.stdout)["engine_report"]

def rounded(x, e):
    unit, dec = e.get("unit"), e.get("decimals")
    if unit in UNIT:
        return float("%.*f" % (dec if dec is not None else 2, x / UNIT[unit]))
    if dec is not None:
        return float("%.*f" % (dec, x))
    return x

def check(case, tmp):
    inp = case["inputs"]
    base = model_args(case, tmp) + option_args(inp)
    if "--gpu-memory-utilization" in base and case.get("budget_inputs"):
        base = base[:]
    lo, hi = inp.get("kv_budget_bytes_lo"), inp.get("kv_budget_bytes_hi")
    bud = budget_args(case)
    if bud:
        # budget_inputs carry their own utilisation; drop a duplicate from inputs.
        if "--gpu-memory-utilization" in bud and "--gpu-memory-utilization" in base:
            i = base.index("--gpu-memory-utilization"); del base[i:i + 2]
        runs = {"one": run(base + bud)}
    elif lo is not None:
        runs = {"lo": run(base + ["--kv-budget", str(lo)]), "hi": run(base + ["--kv-budget", str(hi)])}
    else:
        runs = {"one": run(base)}
    first = runs.get("one") or runs["lo"]
    bad = []
    for key, e in case["expect"].items():
        rule = e["rule"]
        if rule == "budget_bracket":
            a = rounded(runs.get("lo", first)[key], e)
            b = rounded(runs.get("hi", first)[key], e)
            ok = min(a, b) <= e["value"] <= max(a, b)
            got = [a, b]
        elif rule == "printed_round":
            got = "%.*f" % (e["decimals"], first[key] / UNIT[e["unit"]])
            ok = got == "%.*f" % (e["decimals"], e["value"])
        elif rule == "exact":
            got = first[key]
            ok = got == e["value"]
        elif rule == "budget_formula":
            got = first[key]
            ok = e["lo_bytes"] <= got <= e["hi_bytes"]
        else:
            got, ok = None, False
        if not ok:
            bad.append("%s (%s): got %s, expected %s" % (key, rule, got, e["value"]))
    return bad

passed = failed = 0
with tempfile.TemporaryDirectory() as tmp:
    for path in sorted(glob.glob(os.path.join(case_dir, "*.jsonl"))):
        for line in open(path):
            line = line.strip()
            if not line:
                continue
            case = json.loads(line)
            try:
                bad = check(case, tmp)
            except Exception as ex:  # a run that fails is a failed case
                bad = ["error: %s" % ex]
            if bad:
                failed += 1
                print("FAIL %s: %s" % (case["id"], "; ".join(bad)))
            else:
                passed += 1
                print("ok   %s" % case["id"])
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed or passed == 0 else 0)
PY
