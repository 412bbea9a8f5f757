"""Every kvplan --json document against its JSON Schema (docs/schema/).

1. Each golden (tests/golden/*.args with --json) is validated: its command's
   schema, or error.schema.json when the golden exits non-zero.
2. Each command's --json is run live under every policy and validated.
3. The schemas are not vacuous: a plan document without its envelope, with a
   wrong schema_version, or without "deployment" must be rejected.

Uses python3-jsonschema (Debian 12, scripts/deps.sh); fails when it is missing.
"""
import copy
import json
import os
import subprocess
import sys

try:
    import jsonschema
except ImportError:
    sys.exit("json_schemas: python3-jsonschema is not installed (scripts/deps.sh installs it)")

KVPLAN, SRC = sys.argv[1], sys.argv[2]
SCHEMAS = {}
failures = []


def schema(name):
    if name not in SCHEMAS:
        with open(os.path.join(SRC, "docs", "schema", name + ".schema.json")) as f:
            s = json.load(f)
        jsonschema.Draft202012Validator.check_schema(s)
        SCHEMAS[name] = jsonschema.Draft202012Validator(s)
    return SCHEMAS[name]


def check(what, name, doc):
    errors = sorted(schema(name).iter_errors(doc), key=lambda e: list(e.path))
    if errors:
        e = errors[0]
        failures.append("%s: not a %s document: %s at /%s" %
                        (what, name, e.message[:200], "/".join(map(str, e.path))))


# 1. the goldens
golden = os.path.join(SRC, "tests", "golden")
seen = 0
for fn in sorted(os.listdir(golden)):
    if not fn.endswith(".args"):
        continue
    case = fn[:-5]
    with open(os.path.join(golden, fn)) as f:
        args = f.read().split("\n")
    if "--json" not in args:
        continue
    with open(os.path.join(golden, case + ".expected")) as f:
        out = f.read()
    status = 0
    if os.path.exists(os.path.join(golden, case + ".status")):
        with open(os.path.join(golden, case + ".status")) as f:
            status = int(f.read().strip())
    try:
        doc = json.loads(out)
    except ValueError as e:
        failures.append("golden %s: stdout is not one JSON document: %s" % (case, e))
        continue
    name = args[0]
    if "error" in doc and status != 0:
        name = "error"
    check("golden " + case, name, doc)
    seen += 1
if seen < 10:
    failures.append("only %d --json goldens found; expected at least 10" % seen)


# 2. live documents of every command, every policy
def run(*args, ok=(0,)):
    p = subprocess.run([KVPLAN] + list(args), cwd=SRC, capture_output=True, text=True)
    if p.returncode not in ok:
        failures.append("kvplan %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.strip()))
        return None
    return json.loads(p.stdout)


live = 0
for policy in ("trtllm", "vllm", "sglang", "llamacpp"):
    for model, gpu in (("llama-3.1-8b", "h100"), ("qwen3-8b", "a100-80gb")):
        doc = run("plan", model, "--gpu", gpu, "--policy", policy, "--json")
        if doc is not None:
            check("plan %s %s" % (model, policy), "plan", doc)
            live += 1
            if doc.get("deployment", {}).get("policy") != policy:
                failures.append("plan --policy %s: deployment.policy is %r" %
                                (policy, doc.get("deployment", {}).get("policy")))
    doc = run("fit", "llama-3.1-8b", "--gpu", "h100", "--policy", policy, "--concurrency", "4", "--json")
    if doc is not None:
        check("fit %s" % policy, "fit", doc)
        live += 1
    doc = run("sweep", "llama-3.1-8b", "--gpu", "h100", "--policy", policy, "--over", "tp=1,2", "--json")
    if doc is not None:
        check("sweep %s" % policy, "sweep", doc)
        live += 1
for args, name, ok in (
    (("compare", "llama-3.1-8b", "--gpu", "h100", "--json"), "compare", (0,)),
    (("cost", "llama-3.1-8b", "--json"), "cost", (0,)),
    (("cost", "deepseek-v3", "--tp", "8", "--kv-dtype", "fp8", "--json"), "cost", (0,)),
    (("models", "qwen", "--json"), "models", (0,)),
    (("gpus", "--catalog", "--json"), "gpus", (0,)),
    (("check", "llama-3.1-8b", "--policy", "vllm", "--gpu", "h100", "--json"), "check", (0, 1)),
    (("why", "examples/logs/vllm-17.log", "--model", "llama-3.1-8b", "--num-draft-layers", "1",
      "--json"), "why", (0,)),
    (("why", "examples/logs/vllm-33.log", "--model", "data/models/Qwen__Qwen3.5-35B-A3B.json",
      "--json"), "why", (0,)),
    (("why", "examples/logs/llamacpp-10.log", "--model", "data/models/openai__gpt-oss-20b.json",
      "--json"), "why", (0,)),
    (("why", "examples/logs/vllm-refusal.log", "--json"), "why", (0,)),
    (("why", "examples/logs/vllm-17.log", "--json"), "error", (2,)),
    (("plan", "llama-3.1-8b", "--gpu", "nosuchgpu", "--json"), "error", (2,)),
    (("plan", "llama-3.1-8b", "--gpu", "h100", "--tp", "0", "--json"), "error", (2,)),
):
    doc = run(*args, ok=ok)
    if doc is not None:
        check(" ".join(args), name, doc)
        live += 1

# 3. the schemas reject what they must
good = run("plan", "llama-3.1-8b", "--gpu", "h100", "--policy", "vllm", "--json")
if good is not None:
    for label, mutate in (
        ("no schema_version", lambda d: d.pop("schema_version")),
        ("schema_version 1", lambda d: d.__setitem__("schema_version", 1)),
        ("no kvplan_version", lambda d: d.pop("kvplan_version")),
        ("no deployment", lambda d: d.pop("deployment")),
        ("negative tokens", lambda d: d["capacity"].__setitem__("tokens", -1)),
        ("unknown estimated term", lambda d: d["memory"]["estimated"].append("kv")),
    ):
        bad = copy.deepcopy(good)
        mutate(bad)
        if schema("plan").is_valid(bad):
            failures.append("plan.schema.json accepts a document with %s" % label)

why = run("why", "examples/logs/llamacpp-10.log", "--model", "gpt-oss-20b", "--json")
if why is not None:
    for label, mutate in (
        ("a figure without its basis", lambda d: d["figures"][0].pop("basis")),
        ("a figure's role unknown", lambda d: d["figures"][0].__setitem__("role", "guess")),
        ("no unread_lines", lambda d: d.pop("unread_lines")),
        ("an unknown engine", lambda d: d.__setitem__("engine", "tgi")),
    ):
        bad = copy.deepcopy(why)
        mutate(bad)
        if schema("why").is_valid(bad):
            failures.append("why.schema.json accepts a document with %s" % label)

for f in failures:
    print("FAIL:", f)
print("json_schemas: %d goldens, %d live documents, %d failures" % (seen, live, len(failures)))
sys.exit(1 if failures else 0)
