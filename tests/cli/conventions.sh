#!/usr/bin/env bash
# Finding models and command-line conventions (issue 16):
#  - `kvplan models FILTER` filters (any case), lists aliases with "alias of",
#    exits 1 when nothing matches; an alias is said in every output;
#  - the not-found error says how to use a folder or the Hugging Face cache;
#  - an explicit MODEL overrides the model inside --from (same plan as the
#    rewritten command with that MODEL), and the note says so;
#  - `kvplan help CMD` = `kvplan CMD --help`; -V = --version; --policy help
#    lists the engines; plan --help lists the engines' spellings.
set -euo pipefail
kvplan=$1
fail=0
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; fi; }

out=$("$kvplan" models LLAMA-3.1)
check "models filter keeps matches" 'grep -q "^llama-3.1-8b " <<<"$out"'
check "models filter drops others" '! grep -q "qwen" <<<"$out"'
check "models lists aliases" 'grep -q "meta-llama/Llama-3.1-8B-Instruct (alias of meta-llama/Llama-3.1-8B)" <<<"$out"'
rc=0; "$kvplan" models no-model-has-this >/dev/null 2>&1 || rc=$?
check "models without a match exits 1" '[ $rc = 1 ]'
out=$("$kvplan" cost meta-llama/Llama-3.1-8B-Instruct)
check "cost says the alias" 'grep -q "^model:    meta-llama/Llama-3.1-8B-Instruct (alias of meta-llama/Llama-3.1-8B)" <<<"$out"'
# 32 layers x 8 KV heads x 256 x 2 B = 131,072 B per token, as the base model.
check "alias costs the base" 'grep -q "per rank: 131,072 bytes per token" <<<"$out"'
rc=0; err=$(HF_HOME=/nonexistent "$kvplan" cost llama-3.1-8b-instrukt 2>&1) || rc=$?
check "not found exits 2" '[ $rc = 2 ]'
check "not found names the closest" 'grep -q "closest: llama-3.1-8b-instruct" <<<"$err"'
check "not found says how" 'grep -q "folder holding its config.json" <<<"$err" && grep -q "Hugging Face cache" <<<"$err"'

from="vllm serve meta-llama/Llama-3.1-8B --max-model-len 8192"
a=$("$kvplan" plan llama-3.1-70b --gpu h100 --tp 4 --from "$from" --json 2>"${TMPDIR:-/tmp}/kvp_from_note.$$")
b=$("$kvplan" plan llama-3.1-70b --policy vllm --max-model-len 8192 --gpu h100 --tp 4 --json)
check "MODEL overrides the --from model" '[ "$a" = "$b" ]'
check "the plan is of MODEL" 'grep -q "\"model\": \"meta-llama/Llama-3.1-70B\"" <<<"$a"'
check "the override is said" 'grep -q "MODEL .llama-3.1-70b. given: it overrides the command.s .meta-llama/Llama-3.1-8B." "${TMPDIR:-/tmp}/kvp_from_note.$$"'
rm -f "${TMPDIR:-/tmp}/kvp_from_note.$$"

for c in cost plan fit sim sweep models; do
  check "help $c = $c --help" '[ "$("$kvplan" help $c)" = "$("$kvplan" $c --help)" ]'
done
rc=0; "$kvplan" help no-such-command >/dev/null 2>&1 || rc=$?
check "help of an unknown command exits 2" '[ $rc = 2 ]'
check "-V is --version" '[ "$("$kvplan" -V)" = "$("$kvplan" --version)" ] && grep -qx "kvplan [0-9.]*" <<<"$("$kvplan" -V)"'
for cmd in "plan --policy help" "fit --policy=help" "compare --policies help" "--policy help"; do
  # shellcheck disable=SC2086
  out=$("$kvplan" $cmd)
  for e in trtllm vllm sglang llamacpp; do
    check "'$cmd' lists $e" 'grep -q "^  $e " <<<"$out"'
  done
done
out=$("$kvplan" plan --help)
for o in --max-model-len --gpu-memory-utilization --mem-fraction-static -tp -ctk -np -c --kv-cache-dtype; do
  check "plan --help lists $o" 'grep -qE -- "(^| )$o([ /,]|$)" <<<"$out"'
done
[ $fail = 0 ] && echo "ok: models, aliases, --from MODEL, help, -V, --policy help"
exit $fail
