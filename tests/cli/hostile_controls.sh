#!/usr/bin/env bash
# hostile_controls.sh KVPLAN SRCDIR — terminal control characters from inputs (GPU
# names, model names and types, keys, file names, option names, --from commands,
# workload ids) never reach the terminal raw: on stdout and stderr, C0 controls other
# than the layout's newline and tab, DEL and C1 controls (UTF-8 C2 80..9F, lone
# 0x80..0x9F bytes) are printed as visible escapes (\x1b, \u009b), errors stay one
# line, --json output stays valid JSON, and UTF-8 text (also when stdout's buffer cuts
# a character in two) is printed unchanged.
set -u
KVPLAN=$1
. "$(dirname "$0")/lib/cases.bash"
ESC=$'\033'
BEL=$'\007'
# Every run's stdout and stderr are kept and checked at the end by one python run:
# a byte that is not UTF-8, a C0 control other than newline and tab, DEL or a C1
# control is something a terminal would act on.
mkdir -p "$TMP/runs"
# run LABEL WANT_RC WANT_ESCAPED -- command: WANT_ESCAPED must appear in stdout+stderr.
run() {
    local label=$1 want_rc=$2 want=$3 rc
    shift 4
    timeout 30 "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
    rc=$?
    cases=$((cases + 1))
    [ "$want_rc" = any ] || [ "$rc" -eq "$want_rc" ] || fail "$label: exit $rc, expected $want_rc: $(head -c 300 "$TMP/err")"
    cp "$TMP/out" "$TMP/runs/$cases.stdout.$label"
    cp "$TMP/err" "$TMP/runs/$cases.stderr.$label"
    [ "$(wc -l <"$TMP/err")" -le 1 ] || fail "$label: stderr is not one line: $(cat -A "$TMP/err" | head -3)"
    if [ -n "$want" ] && ! cat "$TMP/out" "$TMP/err" | grep -qF -- "$want"; then
        fail "$label: '$want' not in the output: $(cat "$TMP/out" "$TMP/err" | head -c 400)"
    fi
    case " $* " in
    *" --json "*) [ "$rc" -ne 0 ] || cp "$TMP/out" "$TMP/runs/$cases.json.$label" ;;
    esac
}

# GPU names with an OSC title sequence, a CSI colour, C1 CSI, DEL and a lone 0x9b.
i=0
for name in "Evil\\u001b]0;pwned\\u0007GPU" "Red\\u001b[31mGPU" "C1\\u009b2JGPU" "Del\\u007fGPU" "Nel\\u0085GPU" "Bs\\b\\b\\bGPU" "Cr\\rGPU"; do
    i=$((i + 1))
    f=$TMP/gpus$i.json
    printf '{"schema": 1, "gpus": [{"name": "%s", "vendor": "nvidia", "aliases": ["evil%d"], "derived_total": "80GB"}]}' "$name" "$i" >"$f"
    run "gpu-name-$i-gpus" 0 "GPU" -- "$KVPLAN" --gpu-catalog "$f" gpus --catalog
    run "gpu-name-$i-gpus-json" 0 "" -- "$KVPLAN" --gpu-catalog "$f" gpus --catalog --json
    run "gpu-name-$i-fit" 0 "GPU" -- "$KVPLAN" --gpu-catalog "$f" fit llama-3.1-8b --gpu "evil$i"
    run "gpu-name-$i-plan" 0 "" -- "$KVPLAN" --gpu-catalog "$f" plan llama-3.1-8b --gpu "evil$i"
    run "gpu-name-$i-plan-json" 0 "" -- "$KVPLAN" --gpu-catalog "$f" plan llama-3.1-8b --gpu "evil$i" --json
    run "gpu-name-$i-env" 0 "GPU" -- env KVPLAN_GPU_CATALOG="$f" "$KVPLAN" gpus --catalog
done
run "gpu-name-escaped-form" 0 'Evil\x1b]0;pwned\x07GPU' -- "$KVPLAN" --gpu-catalog "$TMP/gpus1.json" gpus --catalog
run "gpu-name-c1-form" 0 'C1\u009b2JGPU' -- "$KVPLAN" --gpu-catalog "$TMP/gpus3.json" gpus --catalog

# Arguments quoted back in errors: a model name, an option, a GPU, a --from command.
run "model-arg" 2 'bad\x1b[31mname' -- "$KVPLAN" cost "bad${ESC}[31mname"
run "model-arg-json" 2 "" -- "$KVPLAN" cost "bad${ESC}[31mname" --json
run "model-arg-plan" 2 'x\x1b]0;t\x07' -- "$KVPLAN" plan "x${ESC}]0;t${BEL}" --gpu-mem 80GiB
run "model-arg-newline" 2 'a\nb' -- "$KVPLAN" cost $'a\nb'
run "option-name" 2 '--t\x1bp' -- "$KVPLAN" cost llama-3.1-8b "--t${ESC}p"
run "option-c1" 2 '\u009b' -- "$KVPLAN" cost llama-3.1-8b $'--\xc2\x9bx'
run "option-lone-byte" 2 '\x9b' -- "$KVPLAN" cost llama-3.1-8b $'--\x9bx'
run "command-name" 2 'co\x1bst' -- "$KVPLAN" "co${ESC}st"
run "gpu-arg" 2 'h1\x1b[0m' -- "$KVPLAN" plan llama-3.1-8b --gpu "h1${ESC}[0m"
run "count-value" 2 '\x1b' -- "$KVPLAN" cost llama-3.1-8b --tp "2${ESC}"
run "bytes-value" 2 '\x1b' -- "$KVPLAN" plan llama-3.1-8b --gpu-mem "80${ESC}GiB"
run "from-engine" 2 '\x1b' -- "$KVPLAN" plan --gpu-mem 80GiB --from "vl${ESC}lm serve llama-3.1-8b"
run "from-option" 2 "" -- "$KVPLAN" plan --gpu-mem 80GiB --from "vllm serve llama-3.1-8b --max-model-len 4${ESC}k"
run "synthetic-spec" 2 '\x1b' -- "$KVPLAN" sim llama-3.1-8b --kv-budget 8GiB --synthetic "requests=2${ESC}"

# File names and contents.
evil="$TMP/evil${ESC}]0;title${BEL}.json"
printf '{"num_hidden_layers": -1}' >"$evil"
run "file-name" 2 'evil\x1b]0;title\x07.json' -- "$KVPLAN" cost "$evil"
run "file-name-json" 2 "" -- "$KVPLAN" cost "$evil" --json
run "file-name-missing" 2 '\x1b' -- "$KVPLAN" cost "$TMP/no${ESC}[2Jpe.json"
python3 - "$TMP" <<'EOF'
import json, sys
d = sys.argv[1]
base = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 256,
        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
        "intermediate_size": 512, "vocab_size": 1000, "max_position_embeddings": 2048,
        "torch_dtype": "bfloat16"}
def w(name, obj):
    with open(f"{d}/{name}", "w") as f:
        json.dump(obj, f)
w("type.json", dict(base, model_type="ll\x1b]0;x\x07ama"))
w("arch.json", dict(base, architectures=["Evil\x1b[31mForCausalLM"]))
w("dtype.json", dict(base, torch_dtype="bf\x9b16"))
w("key.json", dict(base, **{"num_\x1b[2Jlayers": 3, "num_hidden_layers": "x"}))
w("name.json", dict(base, _name_or_path="org/\x1b]0;pwn\x07model"))
EOF
run "config-model-type" any "" -- "$KVPLAN" cost "$TMP/type.json"
run "config-architecture" any "" -- "$KVPLAN" cost "$TMP/arch.json"
run "config-dtype" any "" -- "$KVPLAN" cost "$TMP/dtype.json"
run "config-key" 2 "" -- "$KVPLAN" cost "$TMP/key.json"
run "config-name-cost" any "" -- "$KVPLAN" cost "$TMP/name.json"
run "config-name-plan" any "" -- "$KVPLAN" plan "$TMP/name.json" --gpu-mem 80GiB
run "config-name-fit" any "" -- "$KVPLAN" fit "$TMP/name.json" --gpu-mem 80GiB
run "config-name-sweep" any "" -- "$KVPLAN" sweep "$TMP/name.json" --gpu-mem 80GiB --over tp=1,2
run "config-name-sweep-csv" any "" -- "$KVPLAN" sweep "$TMP/name.json" --gpu-mem 80GiB --over tp=1,2 --csv
run "config-name-compare" any "" -- "$KVPLAN" compare "$TMP/name.json" --gpu-mem 80GiB
run "config-name-vllm" any "" -- "$KVPLAN" plan --policy vllm "$TMP/name.json" --gpu-mem 80GiB
run "config-name-json" any "" -- "$KVPLAN" plan "$TMP/name.json" --gpu-mem 80GiB --json
printf '{"arrival": 0, "prompt_len": 100, "output_len": 10, "prefix_id": "s\\u001b[31m", "prefix_len": 200}\n' >"$TMP/w.jsonl"
run "workload-prefix-id" 2 "" -- "$KVPLAN" sim llama-3.1-8b --kv-budget 8GiB --no-timing --workload "$TMP/w.jsonl"
printf '{"arrival": 0, "prompt_len": 100, "output_len": 10, "k\\u001b]0;x\\u0007": 1}\n' >"$TMP/w2.jsonl"
run "workload-key" any 'k\x1b]0;x\x07' -- "$KVPLAN" sim llama-3.1-8b --kv-budget 8GiB --no-timing --workload "$TMP/w2.jsonl"
printf '{"schema": 1, "gpus": [{"name": "A", "vendor": "nvidia", "aliases": ["a"], "derived_total": "80GB", "k\\u001b[2J": 1}]}' >"$TMP/gk.json"
run "gpu-catalog-key" 2 "" -- "$KVPLAN" --gpu-catalog "$TMP/gk.json" gpus
printf '{"schema": 1, "gpus": [{"name": "A", "vendor": "nv\\u001b[5midia", "aliases": ["a"], "derived_total": "80GB"}]}' >"$TMP/gv.json"
run "gpu-catalog-vendor" any "" -- "$KVPLAN" --gpu-catalog "$TMP/gv.json" gpus --catalog

# UTF-8 names survive the escaping stdout, also where its buffer cuts a character:
# 300 entries of names with 2-, 3- and 4-byte characters, printed in full.
python3 - "$TMP/utf8.json" <<'EOF'
import json, sys
gpus = [{"name": "Caf\u00e9 \u20ac\U0001F600 %03d" % i, "vendor": "nvidia",
         "aliases": ["u%d" % i], "derived_total": "80GB"} for i in range(300)]
json.dump({"schema": 1, "gpus": gpus}, open(sys.argv[1], "w"))
EOF
run "utf8-names" 0 "" -- "$KVPLAN" --gpu-catalog "$TMP/utf8.json" gpus --catalog
n=$(grep -c $'Caf\xc3\xa9 \xe2\x82\xac\xf0\x9f\x98\x80 [0-9][0-9][0-9]' "$TMP/out")
[ "$n" -eq 300 ] || fail "utf8-names: $n of 300 names printed intact"
grep -qF '\x' "$TMP/out" && fail "utf8-names: valid UTF-8 was escaped"

bad=$(python3 - "$TMP/runs" <<'EOF'
import json, os, re, sys
d = sys.argv[1]
for name in sorted(os.listdir(d)):
    data = open(os.path.join(d, name), "rb").read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        print(f"{name}: a byte that is not UTF-8 at {e.start}: {data[:200]!r}")
        continue
    m = re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", text)
    if m:
        print(f"{name}: raw control {m.group()!r} at {m.start()}: {text[:200]!r}")
    if ".json." in name:
        try:
            json.loads(text)
        except ValueError as e:
            print(f"{name}: --json output is not JSON: {e}")
EOF
)
[ -z "$bad" ] || fail "$bad"

echo "control characters: $cases runs, $fails failures"
[ "$fails" -eq 0 ]
