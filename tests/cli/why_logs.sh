#!/usr/bin/env bash
# why_logs.sh — `kvplan why LOG` (docs/why.md) on engines' start-up logs:
#   1. every reference case (tests/reference/*_cases.jsonl) as a log made of its
#      raw_lines (examples/logs/ID.log): every `expect` figure is read and
#      reproduced from the logged memory (exit 0), with hand-worked values;
#   2. complete logs of each format (tests/data/why/*.log, written from
#      shared/reference/LOGS.md's format strings): engine, release, model,
#      settings and figures read, each asserted;
#   3. vLLM's refusal: the largest --max-model-len kvplan suggests is the one
#      the engine's message names; --target-concurrency / --target-context;
#   4. hostile logs: binary garbage, a 1 MB line, a 1 GiB log through a pipe
#      (bounded RSS), two engines interleaved, contradicting figures, a model
#      nobody has: each a clear message and an exit status, never a crash;
#   5. --record: the case in the reference-case format, redacted, and
#      scripts/accuracy.py replays it within the log's rounding.
# Usage: bash why_logs.sh KVPLAN SRCDIR
set -u
KVPLAN=$1
SRC=$2
command -v python3 >/dev/null || { echo "FAIL: python3 is required"; exit 1; }
cd "$SRC" || exit 1
source tests/cli/lib/bounded.bash
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0

# 4c. A 1 GiB log through a pipe: one real vLLM case first, then 1 GiB of
# vLLM-prefixed lines; the reader keeps one line, so the peak RSS stays small.
if [ "$sanitized" = 1 ]; then big_as=0; else big_as=512; fi
read -r rc rss secs < <(bounded_run "$TMP/big.err" "$big_as" 300 -- bash -c \
    "{ cat examples/logs/vllm-17.log; yes 'INFO 06-23 14:21:49 [core.py:58] waiting for requests' | head -c 1073741824; } | '$KVPLAN' why - --model llama-3.1-8b --num-draft-layers 1 --json")
if [ "$rc" != 0 ]; then
    echo "FAIL: 1 GiB log: exit $rc: $(head -c 300 "$TMP/big.err")"; fail=1
elif [ "$sanitized" = 0 ] && [ "$rss" -gt 64 ]; then
    echo "FAIL: 1 GiB log: peak RSS $rss MiB (expected under 64 MiB: one line is kept)"; fail=1
else
    echo "ok   1 GiB log streamed: exit 0, peak RSS $rss MiB, $secs s"
fi

python3 - "$KVPLAN" "$SRC" "$TMP" <<'PY' || fail=1
import json, os, subprocess, sys
sys.path.insert(0, os.path.join(sys.argv[2], "tests", "cli", "lib"))
import case_args

kvplan, src, tmp = sys.argv[1:4]
bad = []
passed = 0


def why(*args, stdin=None, ok=None):
    p = subprocess.run([kvplan, "why"] + list(args), input=stdin, capture_output=True,
                       text=stdin is None or isinstance(stdin, str))
    return p.returncode, p.stdout, p.stderr


def doc_of(*args, expect_rc=0, **kw):
    rc, out, err = why(*args, "--json", **kw)
    if rc != expect_rc:
        raise AssertionError("kvplan why %s: exit %d (expected %d): %s %s" %
                             (" ".join(args), rc, expect_rc, err.strip()[:300], out[:300]))
    return json.loads(out)


def figure(doc, name, nth=0):
    got = [f for f in doc["figures"] if f["name"] == name]
    if len(got) <= nth:
        raise AssertionError("figure %s not read (read: %s)" % (name, [f["name"] for f in doc["figures"]]))
    return got[nth]


def check(label, fn):
    global passed
    try:
        fn()
        passed += 1
        print("ok   " + label)
    except Exception as e:  # a crash of one check is its failure, the others still run
        bad.append("%s: %s: %s" % (label, type(e).__name__, e))
        print("FAIL %s: %s: %s" % (label, type(e).__name__, e))


def eq(a, b, what):
    if a != b:
        raise AssertionError("%s: got %r, expected %r" % (what, a, b))


# ---------------------------------------------------------------- 1. reference cases
# The settings a log does not print (the case's assumptions) are given as the
# options a user would add: vllm-17's EAGLE draft layer (num_draft_kv_layers 1).
# sglang-01's fp8_e4m3 KV cache (inputs.kv_dtype) is not in its raw lines either.
EXTRA = {"vllm-17": ["--num-draft-layers", "1"], "sglang-01": ["--kv-dtype", "fp8_e4m3"]}
cases = []
for fn in sorted(os.listdir(os.path.join(src, "tests", "reference"))):
    if fn.endswith("_cases.jsonl"):
        for line in open(os.path.join(src, "tests", "reference", fn)):
            if line.strip():
                cases.append(json.loads(line))
if len(cases) < 10:
    bad.append("only %d reference cases" % len(cases))
for case in cases:
    def one(case=case):
        model = case_args.model_argv(case, src, tmp)[0]
        log = os.path.join("examples", "logs", case["id"] + ".log")
        with open(log) as f:
            eq(f.read(), "\n".join(case["raw_lines"]) + "\n", "examples/logs/%s.log is the case's raw_lines" % case["id"])
        d = doc_of(log, "--model", model, *EXTRA.get(case["id"], []))
        eq(d["engine"], case["inputs"]["policy"], "engine")
        for key in case["expect"]:
            f = figure(d, key)
            if key == "available_kv_cache_bytes" and case["id"] == "vllm-17":
                eq(f["role"], "input", key + " role (the budget given)")
                continue
            eq(f["reproduced"], True, "%s reproduced (logged %s, kvplan %s)" % (key, f["logged"], f["given_memory"]))
            eq(f["logged"], case["expect"][key]["value"], key + " logged")
        eq(d["unreproduced"], [], "unreproduced")
    check("reference case %s: every expect figure reproduced" % case["id"], one)


def vllm17():
    d = doc_of("examples/logs/vllm-17.log", "--model", "llama-3.1-8b", "--num-draft-layers", "1")
    # 33 layers x 8 KV heads x 128 x 2 (K, V) x 2 B = 135,168 B/token, x 16 = 2,162,688 B/block.
    # 51.63 GiB printed: [51.625, 51.635) GiB = [55,431,921,664, 55,442,659,082] B
    # -> blocks [25,631, 25,635] -> tokens [410,096, 410,160] (the case's "check").
    eq(d["given_memory"]["options"][0]["kv_budget"], "55431921664", "budget lo")
    eq(d["given_memory"]["options"][1]["kv_budget"], "55442659082", "budget hi")
    eq(figure(d, "gpu_kv_cache_tokens")["given_memory"], [410096, 410160], "tokens")
    # 25,631 / cdiv(131,072, 16) = 3.1288 -> 3.13; 25,635 / 8,192 = 3.1293 -> 3.13
    eq(figure(d, "max_concurrency")["given_memory"], 3.13, "concurrency")
    eq(d["engine_version"], "v1-mid", "era from 'Available KV cache memory' + token capacity")


check("vllm-17 by hand: budget bracket, tokens, concurrency", vllm17)


def vllm33():
    d = doc_of("examples/logs/vllm-33.log", "--model", "data/models/Qwen__Qwen3.5-35B-A3B.json")
    # ceil(79.33 GiB x 0.85) - 16.92 - 5.66 - 0.13 - 1.34 GiB = 43.38 GiB; each input printed
    # at 2 decimals: the ends (total low, terms high) and (total high, terms low) give
    # 43.36 and 43.4 (format_gib): 43.4 lies between.
    eq(figure(d, "available_kv_cache_bytes")["given_memory"], [43.36, 43.4], "available")
    eq(d["engine_version"], "v1-new", "era")
    eq(figure(d, "weights_bytes")["role"], "input", "weights role")
    eq(figure(d, "free_bytes")["rank"], "Worker_TP1", "rank tag")


check("vllm-33 by hand: the budget formula at the two ends of the inputs' rounding", vllm33)


def llama10():
    d = doc_of("examples/logs/llamacpp-10.log", "--model", "data/models/openai__gpt-oss-20b.json")
    # 12 full layers x 131,072 cells x 8 KV heads x 64 x 2 B = 1,536 MiB per K and V, 3,072 in all;
    # SWA: 2,304 cells (128 x 1 + 2,048 ubatch, padded to 256) x 12 layers x 1,024 B x 2 = 54 MiB.
    eq(figure(d, "kv_size_bytes")["given_memory"], 3072.0, "main size")
    eq(figure(d, "k_size_bytes")["given_memory"], 1536.0, "main K")
    eq(figure(d, "swa_kv_size_bytes")["given_memory"], 54.0, "SWA size")
    eq(figure(d, "swa_cells")["given_memory"], 2304, "SWA cells")
    eq(d["engine_version"], "b7217", "build line")
    settings = {s["name"]: s["value"] for s in d["settings"]}
    eq(settings.get("-ub"), "2048", "-ub from the command line")
    eq(d["model"]["logged"], "ggml-org/gpt-oss-20b-GGUF", "model from -hf")


check("llamacpp-10 by hand: main and SWA caches, build, command line", llama10)

# ---------------------------------------------------------------- 2. complete logs of each format
FORMATS = os.path.join(src, "tests", "data", "why")


def fmt_vllm_v1():
    d = doc_of(os.path.join(FORMATS, "vllm_v1.log"), "--gpu", "h100")
    eq(d["engine"], "vllm", "engine")
    eq(d["engine_version"], "0.10.1", "version from the API server line")
    eq(d["model"]["logged"], "meta-llama/Llama-3.1-8B-Instruct", "model")
    s = {x["name"]: x for x in d["settings"]}
    eq(s["--max-model-len"]["value"], "32768", "max_model_len from non-default args")
    eq(s["--gpu-memory-utilization"]["value"], "0.9", "gpu_memory_utilization")
    # 32 layers x 8 x 128 x 2 (K, V) x 2 B = 131,072 B/token; 2 MiB per 16-token block.
    # 60.56 GiB = [65,021,052,641, 65,031,790,059] B -> blocks [31,004, 31,009] -> tokens
    # [496,064, 496,144]; 496,096 printed (31,006 blocks) lies between.
    # Concurrency 31,004 / cdiv(32,768, 16) = 15.139 and 31,009 / 2,048 = 15.141 -> 15.14.
    eq(figure(d, "gpu_kv_cache_tokens")["given_memory"], [496064, 496144], "tokens")
    eq(figure(d, "max_concurrency")["given_memory"], 15.14, "concurrency")
    eq(figure(d, "weights_bytes")["role"], "input", "model loading line")
    eq(figure(d, "cuda_graph_capture_bytes")["role"], "info", "graph capture line")
    eq(d["from_config"]["planned"], True, "from config with --gpu h100")
    eq(isinstance(figure(d, "gpu_kv_cache_tokens")["from_config"], int), True, "a from-config figure")
    eq([u["line_number"] for u in d["unread_lines"]], [14], "the unknown figure-like line named")
    eq(d["unreproduced"], [], "all reproduced")


check("format: vLLM V1 (0.10, LOGS.md §1)", fmt_vllm_v1)


def fmt_vllm_v0():
    d = doc_of(os.path.join(FORMATS, "vllm_v0.log"))
    eq(d["engine_version"], "0.6.3.post1", "version")
    eq(d["variant"], "vLLM V0", "variant")
    eq(figure(d, "cpu_blocks")["role"], "info", "CPU blocks shown, not judged")
    eq(figure(d, "peak_bytes")["role"], "input", "peak_torch_memory (weights included) as --peak")
    # 79.14 x 0.90 - 16.06 - 0.58 = 54.586 GiB; each input +-0.005 -> [54.57, 54.60] at the ends.
    eq(figure(d, "available_kv_cache_bytes")["given_memory"], [54.57, 54.6], "kv_cache_size")
    # 54.59 GiB -> [54.585, 54.595) GiB / 2 MiB -> blocks [27,947, 27,952]; 27,948 printed
    eq(figure(d, "num_gpu_blocks")["given_memory"], [27947, 27952], "blocks")
    eq(d["unreproduced"], [], "all reproduced")


check("format: vLLM V0 profiling results (0.6.x)", fmt_vllm_v0)


def fmt_sglang():
    d = doc_of(os.path.join(FORMATS, "sglang.log"), "--model", "data/models/Qwen__Qwen3-8B.json", expect_rc=1)
    eq(d["engine"], "sglang", "engine")
    eq(d["engine_version"], "2025-06-12", "the log's date")
    eq(d["model"]["logged"], "Qwen/Qwen3-8B", "model from server_args")
    s = {x["name"]: x["value"] for x in d["settings"]}
    eq(s.get("--mem-fraction-static"), "0.85", "mem_fraction_static")
    eq(s.get("--context-length"), "40960", "context_len")
    # 36 layers x 8 x 128 x 2 B x 2 (K, V) = 147,456 B per token; K + V printed 61.07 GB
    # (GiB) each: [122.13, 122.15) GiB, widened by one page (1 row) each way: budget
    # [131,135,941,510, 131,157,711,256] B -> // 147,456 = N in [889,322, 889,470] (the pool
    # holds N + 1 rows): 889,402 lies between.
    eq(figure(d, "max_total_num_tokens")["given_memory"], [889322, 889470], "tokens")
    eq(figure(d, "k_size_bytes")["reproduced"], True, "K size reproduced")
    eq(figure(d, "weights_bytes")["logged"], 15.27, "weights (mem usage)")
    eq(figure(d, "max_total_num_tokens", 0)["rank"], "TP0", "rank tag")
    # max_running_requests: ENGINES.md §2's default min(max(889,402 / 40,960 x 512, 2048), 4096)
    # = 4,096 is what this log prints; kvplan's policy adds a padding slot (4,097), a rule
    # ENGINES.md marks [uncertain]: named, not hidden.
    eq(figure(d, "max_running_requests")["given_memory"], 4097, "kvplan's requests")
    eq(d["unreproduced"], ["max_running_requests"], "the one difference listed")


check("format: SGLang (2025, LOGS.md §2)", fmt_sglang)


def fmt_trtllm():
    d = doc_of(os.path.join(FORMATS, "trtllm_pytorch.log"), "--model", "llama-3.1-8b")
    eq(d["engine"], "trtllm", "engine")
    eq(d["engine_version"], "1.0.0rc4", "version")
    eq(d["engine_version_used"], True, "a TensorRT-LLM release maps to its rule set (1.0.0rc4: 2025)")
    eq(d["variant"], "PyTorch backend", "variant")
    eq(figure(d, "max_tokens")["logged"], 469408, "the last [MemUsageChange] line wins")
    # 131,072 B/token, 32-token blocks = 4 MiB; 57.30 GiB +- 0.005, widened by one block:
    # [57.2911, 57.3089] GiB -> blocks [14,666, 14,671] -> tokens [469,312, 469,472]
    eq(figure(d, "max_tokens")["given_memory"], [469312, 469472], "max_tokens")
    eq(figure(d, "kv_cache_bytes")["reproduced"], True, "pool size")
    eq(figure(d, "peak_bytes")["role"], "input", "peak")
    eq(d["from_config"]["planned"], True, "from config: the log's device total")
    eq(d["unread_lines"], [], "every figure line read")


check("format: TensorRT-LLM PyTorch backend (LOGS.md §3)", fmt_trtllm)


def fmt_llama_server():
    d = doc_of(os.path.join(FORMATS, "llama_server.log"), "--model", "data/models/Qwen__Qwen3-8B.json")
    eq(d["engine"], "llamacpp", "engine")
    eq(d["variant"], "llama-server", "variant")
    eq(d["engine_version"], "b6550", "build")
    eq(d["gpu"]["name"], "NVIDIA GeForce RTX 4090", "GPU name from ggml_cuda_init")
    eq(d["model"]["logged"], "/models/Qwen3-8B-Q4_K_M.gguf", "model path from llama_model_loader")
    s = {x["name"]: x["value"] for x in d["settings"]}
    eq(s.get("-np"), "4", "n_slots")
    eq(s.get("-c"), "16384", "n_ctx")
    # Qwen3-8B: 36 layers x 8 x 128 x 2 B = 2,048 B per cell and layer, per K and V;
    # 4 streams x 4,096 cells x 36 x 2,048 = 1,152 MiB each, 2,304 MiB in all.
    eq(figure(d, "kv_size_bytes")["given_memory"], 2304.0, "size")
    eq(figure(d, "k_size_bytes")["given_memory"], 1152.0, "K")
    eq(d["unreproduced"], [], "all reproduced")


check("format: llama-server (LOGS.md §4)", fmt_llama_server)


def fmt_ollama():
    d = doc_of(os.path.join(FORMATS, "ollama.log"), "--model", "data/models/mistralai__Mistral-7B-v0.1.json")
    eq(d["engine"], "llamacpp", "engine")
    eq(d["variant"], "Ollama", "variant")
    eq(d["engine_version"], "2025-10-15", "dated by the runner's 'llama_kv_cache:' lines")
    eq(d["gpu"]["name"], "NVIDIA GeForce RTX 3090", "GPU from the inference compute line")
    # 8,192 cells x 32 layers x 8 x 128 x 2 B = 512 MiB per K and V
    eq(figure(d, "kv_size_bytes")["given_memory"], 1024.0, "the runner's raw llama.cpp line")


check("format: Ollama around llama.cpp (LOGS.md §5)", fmt_ollama)


def fmt_cpp_python():
    d = doc_of(os.path.join(FORMATS, "llama_cpp_python.log"), "--model", "data/models/Qwen__Qwen3-8B.json")
    eq(d["variant"], "llama-cpp-python", "variant")
    eq(d["engine_version"], "2025-10-15", "dated by 'llama_kv_cache:' (364a7a6, Oct 2025)")
    # 512 cells x 36 layers x 2,048 B x 2 = 72 MiB
    eq(figure(d, "kv_size_bytes")["given_memory"], 72.0, "size")


check("format: llama-cpp-python (LOGS.md §4)", fmt_cpp_python)

# ---------------------------------------------------------------- 3. answers
def refusal():
    d = doc_of("examples/logs/vllm-refusal.log")
    # Llama-3.1-405B: 126 x 8 x 128 x 2 x 2 B = 516,096 B/token; block 32: 16,515,072 B.
    # 15.02 GiB = [16,122,932,593, 16,133,670,011] B -> 976 blocks at both ends
    # -> 976 x 32 = 31,232 tokens: the engine's own estimate.
    engine = figure(d, "estimated_max_model_len")["logged"]
    eq(engine, 31232, "the engine's number")
    eq(d["answer"]["changes"][0]["setting"], "--max-model-len", "setting")
    eq(d["answer"]["changes"][0]["value"], engine, "kvplan's largest --max-model-len")
    eq(figure(d, "estimated_max_model_len")["reproduced"], True, "reproduced")


check("vLLM refusal: the largest --max-model-len is the engine's estimate", refusal)


def targets():
    base = ["examples/logs/vllm-17.log", "--model", "llama-3.1-8b", "--num-draft-layers", "1"]
    d = doc_of(*base, "--target-concurrency", "8")
    # 8 sequences: 25,631 // 8 = 3,203 blocks x 16 = 51,248 (lo); 25,635 // 8 = 3,204 -> 51,264
    eq(d["answer"]["changes"][0]["value"], [51248, 51264], "max-model-len for 8 sequences")
    d = doc_of(*base, "--target-context", "32768")
    # 32,768 tokens = 2,048 blocks: 25,631 // 2,048 = 12 (and 25,635 // 2,048 = 12)
    eq(d["answer"]["changes"][0]["value"], 12, "sequences of 32k")
    d = doc_of(*base)
    eq(d["answer"]["changes"][1]["value"], 3, "sequences at the logged 131,072")


check("targets: --target-concurrency, --target-context", targets)


def stdin_dash():
    with open("examples/logs/llamacpp-03.log") as f:
        text = f.read()
    d = doc_of("-", "--model", "data/models/mistralai__Mistral-7B-v0.1.json", stdin=text)
    eq(figure(d, "kv_size_bytes")["given_memory"], 512.0, "size read from stdin")


check("'-' reads stdin", stdin_dash)

# ---------------------------------------------------------------- 4. hostile logs
def hostile(label, data, args, rc_want, words):
    def t():
        path = os.path.join(tmp, "hostile.log")
        with open(path, "wb") as f:
            f.write(data)
        p = subprocess.run([kvplan, "why", path] + args, capture_output=True)
        eq(p.returncode, rc_want, "exit status (stderr %r)" % p.stderr[:300])
        err = p.stderr.decode("utf-8", "replace")
        for w in words:
            if w not in err:
                raise AssertionError("stderr lacks %r: %r" % (w, err[:400]))
        if rc_want == 2 and len(err.strip().splitlines()) != 1:
            raise AssertionError("expected one line on stderr: %r" % err)
    check("hostile: " + label, t)


v17 = open("examples/logs/vllm-17.log", "rb").read()
l03 = open("examples/logs/llamacpp-03.log", "rb").read()
hostile("binary garbage", bytes((i * 7919 + 13) % 256 for i in range(200000)), [], 2,
        ["no engine start-up line", "control bytes"])
hostile("empty log", b"", [], 2, ["no engine start-up line found in 0 lines"])
inter = b"".join(a + b"\n" + b for a, b in zip(v17.split(b"\n"), l03.split(b"\n")))
hostile("two engines interleaved", inter, ["--model", "llama-3.1-8b"], 2,
        ["two engines' lines are interleaved: vLLM (first at line 1) and llama.cpp (first at line 2)"])
hostile("contradicting figures", v17 + b"INFO 06-23 14:22:10 [kv_cache_utils.py:716] GPU KV cache size: 400,000 tokens\n",
        ["--model", "llama-3.1-8b"], 2,
        ["contradicting figures: gpu_kv_cache_tokens is printed twice with two values: 410128 tokens (line 2) and 400000 tokens (line 4)"])
hostile("a model nobody has", b"INFO 06-23 14:21:41 [cli_args.py:309] non-default args: {'model': 'acme/no-such-model-7b'}\n" + v17,
        [], 2, ["the log's model 'acme/no-such-model-7b' (line 1)", "--model MODEL"])
hostile("no model at all", v17, [], 2, ["the log names no model", "--model MODEL"])


def not_utf8():
    path = os.path.join(tmp, "latin1.log")
    with open(path, "wb") as f:
        f.write(b"INFO 06-23 14:21:48 [gpu_worker.py:232] Available KV cache memory: 51.63 GiB \xff\xfe caf\xe9\n" +
                b"\n".join(v17.split(b"\n")[1:]))
    d = doc_of(path, "--model", "llama-3.1-8b", "--num-draft-layers", "1")
    eq(figure(d, "available_kv_cache_bytes")["line"], "Available KV cache memory: 51.63 GiB ?? caf?",
       "bytes that are not UTF-8 read as '?'")
    eq(d["unreproduced"], [], "the rest read")


check("hostile: a line that is not UTF-8", not_utf8)


def megaline():
    path = os.path.join(tmp, "mega.log")
    with open(path, "wb") as f:
        f.write(v17.split(b"\n")[0] + b"\n" + b"INFO 06-23 14:21:48 [x.py:1] " + b"9 GiB " * 180000 + b"\n" + b"\n".join(v17.split(b"\n")[1:]))
    d = doc_of(path, "--model", "llama-3.1-8b", "--num-draft-layers", "1")
    eq(d["read"]["cut_lines"], 1, "the 1 MB line cut and counted")
    eq(d["unread_lines"][0]["line_number"], 2, "named as unread")
    eq(len(d["unread_lines"][0]["line"]) <= 1024, True, "kept bounded")
    eq(d["unreproduced"], [], "the rest read")


check("hostile: a 1 MB line", megaline)

# ---------------------------------------------------------------- 5. --record, redaction
def record():
    secret_log = ("INFO 06-23 14:21:40 [api_server.py:1287] vLLM API server version 0.9.1\n"
                  "INFO 06-23 14:21:41 [cli_args.py:309] non-default args: {'model': "
                  "'/home/alice/private/models/meta-llama/Llama-3.1-8B', 'api_key': 'sk-abcdef0123456789', "
                  "'max_model_len': 131072, 'num_speculative_tokens': 3}\n"
                  "(RayWorkerWrapper pid=77, ip=10.1.2.3) INFO 06-23 14:21:48 [gpu_worker.py:232] "
                  "Available KV cache memory: 51.63 GiB\n"
                  "INFO 06-23 14:21:48 [kv_cache_utils.py:716] GPU KV cache size: 410,128 tokens\n"
                  "INFO 06-23 14:21:48 [kv_cache_utils.py:720] Maximum concurrency for 131,072 tokens per request: 3.13x\n"
                  "INFO 06-23 14:21:49 [launcher.py:29] Route: http://gpu-node7.cluster.local:8000/v1 "
                  "token=hf_AbCdEfGhIjKlMnOpQrSt Authorization: Bearer eyJhbGciOi.secret\n")
    path = os.path.join(tmp, "secret.log")
    with open(path, "w") as f:
        f.write(secret_log)
    rec = os.path.join(tmp, "rec", "tests", "reference", "vllm_cases.jsonl")
    os.makedirs(os.path.dirname(rec))
    rc, out, err = why(path, "--model", "llama-3.1-8b", "--num-draft-layers", "1", "--record", rec)
    eq(rc, 0, "exit (stderr %s)" % err.strip())
    text = open(rec).read()
    for leak in ("alice", "private", "sk-abcdef", "10.1.2.3", "gpu-node7", "AbCdEfGh", "eyJhbGci"):
        if leak in text:
            raise AssertionError("--record leaks %r: %s" % (leak, text[:600]))
    case = json.loads(text)
    eq(case["model"], "<path>/meta-llama/Llama-3.1-8B", "the path below the model's name redacted")
    eq(case["config"]["file"], "meta-llama__Llama-3.1-8B.json", "the catalogue's file")
    eq(case["inputs"]["kv_budget_bytes_lo"], 55431921664, "budget lo")
    eq(case["inputs"]["num_draft_kv_layers"], 1, "draft layers")
    eq(sorted(case["expect"]), ["gpu_kv_cache_tokens", "max_concurrency"], "expect")
    # scripts/accuracy.py replays the recorded case within the log's rounding
    root = os.path.join(tmp, "rec")
    os.makedirs(os.path.join(root, "docs"))
    os.makedirs(os.path.join(root, "data"))
    os.symlink(os.path.abspath(os.path.join(src, "data", "models")), os.path.join(root, "data", "models"))
    open(os.path.join(root, "docs", "accuracy.md"), "w").write("# accuracy\n")
    p = subprocess.run(["python3", os.path.join(src, "scripts", "accuracy.py"), kvplan, root],
                       capture_output=True, text=True)
    eq(p.returncode, 0, "accuracy.py exit (%s)" % p.stderr.strip()[-300:])
    acc = json.load(open(os.path.join(root, "data", "accuracy.json")))["engines"]["vllm"]
    eq((acc["figures"], acc["within_rounding"]), (2, 2), "accuracy.py: recorded figures within rounding")
    # the text itself, under the same redaction rules
    d = doc_of(path, "--model", "llama-3.1-8b", "--num-draft-layers", "1")
    eq(figure(d, "available_kv_cache_bytes")["rank"], "RayWorkerWrapper", "Ray's process tag")


check("--record: redacted, replayed by scripts/accuracy.py", record)


def sampler_line():
    # vLLM states which top-k/top-p path its sampler took (topk_topp_sampler.py);
    # the config run plans that path. The fixture is 0.10.1 on an H100: without
    # the line the PyTorch sort (no FlashInfer in a pip install before 0.10.2),
    # 1,024 x 128,256 x 38 B: 51.67 GiB available from config; "Using FlashInfer"
    # 14 B a logit: 54.6 GiB; the fallback line keeps the sort.
    lines = open(os.path.join(src, "tests", "data", "why", "vllm_v1.log")).read().splitlines(True)
    said = {
        "fi": "(EngineCore_0 pid=4200) INFO 08-20 10:11:15 [topk_topp_sampler.py:50] Using "
              "FlashInfer for top-p & top-k sampling.\n",
        "sort": "(EngineCore_0 pid=4200) WARNING 08-20 10:11:15 [topk_topp_sampler.py:71] "
                "FlashInfer is not available. Falling back to the PyTorch-native implementation "
                "of top-p & top-k sampling. For the best performance, please install FlashInfer.\n",
    }
    got = {}
    for k, line in [("none", None)] + list(said.items()):
        path = os.path.join(tmp, "sampler_%s.log" % k)
        open(path, "w").write("".join(lines[:8] + ([line] if line else []) + lines[8:]))
        d = doc_of(path, "--gpu", "h100")
        got[k] = figure(d, "available_kv_cache_bytes")["from_config"]
        env = [x for x in d["settings"] if x["name"] == "--env"]
        if line:
            want = "VLLM_USE_FLASHINFER_SAMPLER=%d" % (k == "fi")
            eq([(x["value"], x["from"], x["applied"]) for x in env],
               [(want, "log (the install)", True)], "the sampler line as a setting")
    eq((got["none"], got["fi"], got["sort"]), (51.67, 54.6, 51.67), "config runs by sampler path")


check("vLLM's sampler line picks the path the config run plans", sampler_line)

print("%d passed, %d failed" % (passed, len(bad)))
sys.exit(1 if bad else 0)
PY
exit $fail
