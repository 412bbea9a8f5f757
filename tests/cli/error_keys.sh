#!/usr/bin/env bash
# error_keys.sh — library errors name settings fields, never flags (issue 12 item 8).
#  1. Static: in every library room (src/ except src/cli and src/serve), the key of an
#     error (kvp__fail / kvp__vfail's 4th argument, deploy.c's not_planned_fmt and
#     admission.c's refuse 3rd argument, a key table entry `"--...", ` feeding them)
#     is never a string literal starting with '-'. The option room is the one exception:
#     its errors are about the option as the caller spelled it (options.h).
#  2. At run time: the CLI maps the field back to the flag the user typed, in the
#     message and in the JSON error's key (kvp_cli_field_flag).
set -uo pipefail
kvplan=$1
src=$2
fail=0
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; fi; }

bad=$(python3 "$src/tests/cli/lib/error_keys_scan.py" "$src")
check "no library error key is a flag${bad:+: $bad}" '[ -z "$bad" ]'

# The scanner itself finds a flag key (a test that cannot fail is a defect).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src/engines/vllm"
printf 'int f(void) {\n    return kvp__fail(err, KVP_INVALID_ARG, kvp_model_name(m),\n                     "--tp", "tp %%u", 3);\n}\n' \
  >"$tmp/src/engines/vllm/x.c"
seeded=$(python3 "$src/tests/cli/lib/error_keys_scan.py" "$tmp")
check "the scan finds a flag key" 'grep -q "src/engines/vllm/x.c:2: kvp__fail key \"--tp\"" <<<"$seeded"'

# Run time: the policy refuses kv_dtype, named as the user typed it.
rc=0
out=$("$kvplan" plan llama-3.1-8b --policy vllm --kv-budget 20GiB --kv-cache-dtype fp9 --json 2>"$tmp/err") || rc=$?
check "bad KV dtype exits 2" '[ $rc = 2 ]'
check "JSON key is the flag typed" 'grep -q "\"key\": \"--kv-cache-dtype\"" <<<"$out"'
check "stderr names the flag and value" 'grep -q "^kvplan: --kv-cache-dtype: vLLM has no KV cache dtype .fp9." "$tmp/err"'
rc=0
out=$("$kvplan" plan llama-3.1-8b --policy vllm --kv-budget 20GiB --kv-dtype fp9 --json 2>/dev/null) || rc=$?
check "kvplan's name when typed so" 'grep -q "\"key\": \"--kv-dtype\"" <<<"$out"'
# llama.cpp refuses type_k; the user typed -ctk.
rc=0
out=$("$kvplan" plan llama-3.1-8b --policy llamacpp -c 8192 -ctk q9_0 --json 2>"$tmp/err") || rc=$?
check "-ctk q9_0 exits 2" '[ $rc = 2 ]'
check "-ctk as typed" 'grep -q "\"key\": \"-ctk\"" <<<"$out"'
check "-ctk message" 'grep -q "llama.cpp has no cache type .q9_0." "$tmp/err"'

# The creator path (plan without --policy): the pipeline's max_new_tokens refusal,
# named as typed (TensorRT-LLM's snake_case spelling of --max-new-tokens).
rc=0
out=$("$kvplan" plan llama-3.1-8b --kv-budget 1GiB --max_seq_len 4096 --isl 100 --max_new_tokens 5000 --json 2>"$tmp/err") || rc=$?
check "creator: max_new_tokens past the length exits 2" '[ $rc = 2 ]'
check "creator: JSON key is the spelling typed" 'grep -q "\"key\": \"--max_new_tokens\"" <<<"$out"'
check "creator: stderr names it as typed" 'grep -q "^kvplan: --max_new_tokens: 5000 is above max_seq_len 4096$" "$tmp/err"'
# A start-up rule's fix names the engine's flag (--tp_size, --tensor-parallel-size);
# the user reads the one they typed: sim (--tp), check (-tp).
rc=0
"$kvplan" sim qwen3-32b --gpu h100 --tp 5 --synthetic prompt=fixed:5,output=fixed:1 >/dev/null 2>"$tmp/err" || rc=$?
check "sim: TP 5 of 64 heads exits 1" '[ $rc = 1 ]'
check "sim: the fix says --tp" 'grep -q "^kvplan:   fix: --tp one of 1, 2, 4, 8, 16, 32, 64" "$tmp/err"'
rc=0
out=$("$kvplan" check qwen3-32b --policy vllm -tp 5 --gpu h100 --json 2>/dev/null) || rc=$?
check "check: TP 5 refused" '[ $rc = 1 ]'
check "check: the JSON fix says -tp" 'grep -q "\"fix\": \"-tp one of 1, 2, 4" <<<"$out"'
# sim's own bound, in the table's words, named as typed.
rc=0
"$kvplan" sim llama-3.1-8b --gpu h100 --context-length 99999999 --synthetic prompt=fixed:5,output=fixed:1 2>"$tmp/err" >/dev/null || rc=$?
check "sim: a length past 2^25 exits 2" '[ $rc = 2 ]'
check "sim: named as typed" 'grep -q "^kvplan: --context-length: 99999999 is out of range, expected 1 to 33554432$" "$tmp/err"'

[ $fail = 0 ] && echo "error keys: ok"
exit $fail
