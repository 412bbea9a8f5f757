#!/usr/bin/env bash
# config_keys_walk.sh KVPLAN SRCDIR — issue 29, the rule for config keys
# (docs/families.md "The rule for config keys"): a key is refused only when it
# can change what a layer caches or how many layers cache.
#  1. Every config of data/models/ (the mirror of shared/models/) and tests/data/
#     is loaded (`kvplan cost FILE --json`). Only the files listed below are
#     refused, each with the key listed, and that key is named in the "Refused by
#     name" table of docs/families.md: no config is refused unless the docs say why.
#  2. Every key of every config is walked: each per-layer list of strings (one
#     entry per layer) is of a class the docs' "Per-layer lists" table names, and
#     a config that carries an ignored one (MLP / expert / norm kinds) is read.
set -uo pipefail
K=$1
S=$2
exec python3 - "$K" "$S" <<'EOF'
import glob, json, os, re, subprocess, sys

K, S = sys.argv[1:3]
fail = []

# The configs kvplan refuses, with the key of the error: each a family or a
# mechanism docs/families.md's "Refused by name" table gives (bad_kv_heads.json
# is hostile input: 5 KV heads cannot group 32 query heads).
REFUSED = {
    "tests/data/bad_kv_heads.json": "/text_config/num_key_value_heads",
    "tests/data/families/bert.json": "/model_type",
    "tests/data/families/xlmr.json": "/model_type",
    "tests/data/families/rwkv.json": "/model_type",
    "tests/data/families/openelm.json": "/model_type",
    "tests/data/families/zamba2.json": "/model_type",
    "tests/data/families/hunyuan.json": "/use_cla",
    "tests/data/families/lfm2.json": "/layer_types/0",
    "tests/data/families/decilm.json": "/num_key_value_heads_per_layer",
    "tests/data/families/plamo2.json": "/mamba_d_state",
    "tests/data/families/hymba.json": "/kv_reuse_group",
}

doc = open(os.path.join(S, "docs/families.md")).read()
refused_table = doc[doc.index("## Refused by name"):]
refused_table = refused_table[:refused_table.index("\nBad input")]
lists_table = doc[doc.index("### Per-layer lists"):]
lists_table = lists_table[:lists_table.index("### Dims of an unused")]

files = sorted(glob.glob(os.path.join(S, "data/models/*.json")) +
               glob.glob(os.path.join(S, "tests/data/**/*.json"), recursive=True))
if len(files) < 90:
    fail.append("only %d configs found under data/models and tests/data" % len(files))

def layer_lists(obj, path, out):
    """Every per-layer list of strings, by JSON pointer."""
    if isinstance(obj, dict):
        n = obj.get("num_hidden_layers") or obj.get("num_layers") or obj.get("n_layer")
        for k, v in obj.items():
            if (isinstance(v, list) and isinstance(n, int) and len(v) == n and n > 0 and
                    all(isinstance(x, str) for x in v)):
                out.append((path + "/" + k, k))
            layer_lists(v, path + "/" + k, out)

CACHE_WORDS = ["attn", "attention", "cache", "kv", "window", "mixer", "block_type", "sliding",
               "rope"]
IGNORED_WORDS = ["mlp", "ffn", "feed_forward", "moe", "expert", "router", "norm"]
READ = ["layer_types", "layers_block_type", "attn_type_list", "hybrid_layer_pattern",
        "indexer_types", "index_topk_pattern", "no_rope_layers", "block_configs"]
walked = 0
for f in files:
    rel = os.path.relpath(f, S)
    cfg = json.load(open(f))
    walked += 1
    p = subprocess.run([K, "cost", f, "--json"], capture_output=True, text=True)
    key = None
    if p.returncode != 0:
        try:
            key = json.loads(p.stdout)["error"]["key"]
        except Exception:
            key = "(no JSON error: %s)" % p.stderr.strip()[:160]
    want = REFUSED.get(rel)
    if want is None and key is not None:
        fail.append("%s: refused at %s, which docs/families.md does not list for it: %s" %
                    (rel, key, p.stderr.strip()[:200]))
    elif want is not None and key != want:
        fail.append("%s: expected a refusal at %s, got %s" % (rel, want, key))
    if key is not None and want == key and rel != "tests/data/bad_kv_heads.json":
        leaf = "/" + re.sub(r"/\d+$", "", key).split("/")[-1]
        if leaf not in refused_table and leaf[1:] not in refused_table:
            fail.append("%s: the refusing key %s is not in docs/families.md's refused table" %
                        (rel, leaf))
    found = []
    layer_lists(cfg, "", found)
    for ptr, name in found:
        read = name in READ
        cache = any(w in name for w in CACHE_WORDS)
        ignored = not cache and any(w in name for w in IGNORED_WORDS)
        if read:
            if "`%s`" % name not in lists_table:
                fail.append("%s%s: a read list the docs' table does not name" % (rel, ptr))
        elif ignored:
            if key is not None:
                fail.append("%s%s: an ignored (MLP/expert/norm) list, yet the config is refused "
                            "at %s" % (rel, ptr, key))
        elif key is None:
            fail.append("%s%s: a per-layer list of no class, yet the config is read" % (rel, ptr))

# The two issue-29 configs are among those walked (a walk that misses them proves nothing).
for must in ("tests/data/families/mlp_kinds.json", "tests/data/families/no_mla.json"):
    if not os.path.exists(os.path.join(S, must)):
        fail.append("%s is missing" % must)
for f in fail:
    print("FAIL:", f)
if fail:
    sys.exit(1)
print("ok: %d configs walked" % walked)
EOF
