#!/usr/bin/env bash
# abuse_cli.sh KVPLAN SRCDIR — command-line abuse: every numeric option of every
# subcommand that exists (found in its --help) with negative, non-numeric,
# overflowing and unit-garbage values; 0 where 0 is meaningless; missing values;
# unknown options with a "did you mean"; extra arguments. Each must exit 2 with one
# "kvplan: ..." line on stderr that names the option. Repeated options are checked
# against the issue's rule (exit 2) as known failures until the CLI refuses them.
set -u
KVPLAN=$1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
checked=0
known=0


fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

# refused NAME_IN_MESSAGE -- args... : exit 2, one stderr line "kvplan: ..." naming it.
refused() {
    local name=$1
    shift 2
    timeout 30 "$KVPLAN" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
    local rc=$? lines
    lines=$(wc -l <"$TMP/err")
    checked=$((checked + 1))
    if [ "$rc" -ne 2 ]; then
        fail "kvplan $*: exit $rc, expected 2: $(head -c 300 "$TMP/err")"
    elif [ "$lines" -ne 1 ]; then
        fail "kvplan $*: $lines stderr lines, expected 1: $(head -c 600 "$TMP/err")"
    elif ! grep -q '^kvplan: ' "$TMP/err"; then
        fail "kvplan $*: line does not start with 'kvplan: ': $(cat "$TMP/err")"
    elif [ -n "$name" ] && ! grep -qF -- "$name" "$TMP/err"; then
        # An alias (--page-size for --block-size) must be named as typed too.
        fail "kvplan $*: message does not name '$name': $(cat "$TMP/err")"
    elif grep -qE "Sanitizer|runtime error" "$TMP/err"; then
        fail "kvplan $*: sanitizer report"
    fi
}

# known_refused: the issue asks for exit 2; reported, not failed, while the CLI
# still accepts it (flip to `refused` once it does).
known_refused() {
    shift 2
    timeout 30 "$KVPLAN" "$@" >/dev/null 2>&1 </dev/null
    if [ $? -eq 2 ]; then
        echo "note: now refused (make it a hard check): kvplan $*"
    else
        echo "KNOWN: accepted, should exit 2: kvplan $*"
        known=$((known + 1))
    fi
}

# Base invocations that succeed; a subcommand without one (or absent) is skipped.
declare -A base
base[cost]="cost llama-3.1-8b"
base[plan]="plan llama-3.1-8b --gpu-mem 80GiB"
base[local]="local qwen3-tts --max-num-seqs 4"
base[fit]="fit llama-3.1-8b --gpu-mem 80GiB"
base[sim]="sim llama-3.1-8b --kv-budget 8GiB --synthetic requests=4,prompt=fixed:100,output=fixed:10 --no-timing"
base[compare]="compare llama-3.1-8b --gpu-mem 80GiB"
base[sweep]="sweep llama-3.1-8b --gpu-mem 80GiB --over tp=1,2"

long_name=$(head -c 5000 /dev/zero | tr '\0' 'H')
PER=6
if grep -qa "__asan_init" "$KVPLAN"; then PER=2; fi
# Values no numeric option takes.
BAD=(-1 abc "" 1e99 18446744073709551616 99999999999999999999999 80XB 1.2.3 nan inf "1 2" "--" 5%)

for sub in cost plan local fit sim compare sweep; do
    # shellcheck disable=SC2086
    if ! timeout 30 "$KVPLAN" ${base[$sub]} >/dev/null 2>&1 </dev/null; then
        echo "note: 'kvplan ${base[$sub]}' does not run: $sub not checked"
        continue
    fi
    read -r -a b <<<"${base[$sub]}"
    "$KVPLAN" "$sub" --help >"$TMP/help" 2>&1 </dev/null
    # plan --help ends with the options of --policy vllm|sglang|llamacpp (each
    # engine's spellings): those need --policy, so they are not abused here.
    sed -i '/^usage: kvplan plan MODEL --policy/,$d' "$TMP/help"
    # "  --opt PLACEHOLDER  text": options with a numeric or byte value.
    # "--opt PLACEHOLDER" anywhere on a line (several options may share one).
    mapfile -t nums < <(grep -oE -- '--[a-z0-9-]+[ =](N|BYTES|SIZE|FRAC|F|W|S|TOKENS|LEN|COUNT|SECONDS|RATE|BLOCKS|SEQS)\b' "$TMP/help" |
        awk '{print $1}' | sed 's/=.*//' | sort -u)
    # Options in the option column (first on a line), for the near-miss checks.
    mapfile -t all < <( (grep -oE -- '^ +--[a-z0-9-]+' "$TMP/help"; printf '%s\n' "${nums[@]}") |
        awk 'NF {print $1}' | sort -u)
    [ "${#nums[@]}" -gt 0 ] || fail "$sub --help lists no numeric option"
    # Each option gets PER of the bad values, rotating, so that every value meets
    # many options while the run stays short (fewer under a sanitizer, where each
    # run costs ten times more).
    k=0
    for o in "${nums[@]}"; do
        for ((j = 0; j < PER; j++)); do
            v=${BAD[$(((k + j) % ${#BAD[@]}))]}
            # SGLang's own -1: no chunked prefill (a value, not abuse).
            [ "$o" = --chunked-prefill-size ] && [ "$v" = -1 ] && v=0
            refused "$o" -- "${b[@]}" "$o" "$v"
        done
        k=$((k + PER))
        refused "$o" -- "${b[@]}" "$o=80XB"
        refused "$o" -- "${b[@]}" "$o="
        # A value that is missing: the option is last.
        refused "$o" -- "${b[@]}" "$o"
    done
    # Unknown options: a near miss is answered with the closest option.
    for o in "${all[@]}"; do
        [ "${#o}" -ge 5 ] || continue
        refused "did you mean" -- "${b[@]}" "${o}x"
    done
    refused "did you mean" -- "${b[@]}" --jsno
    refused "" -- "${b[@]}" --definitely-not-an-option-of-kvplan
    # --json with bad input: the error object on stdout, still one line on stderr.
    refused "" -- "${b[@]}" --json "${nums[0]}" -1
done

# ---- kvplan cost: values in range for the parser but meaningless or conflicting.
for o in --tp --pp --block-size --tokens-per-block --beam-width; do
    refused "" -- cost llama-3.1-8b "$o" 0
done
refused "--tp" -- cost llama-3.1-8b --tp 65537
refused "--tp" -- cost llama-3.1-8b --tp 1e99
refused "--tp" -- cost llama-3.1-8b --tp 4294967297
refused "--tp" -- cost llama-3.1-8b --tp 0x10
refused "--block-size" -- cost llama-3.1-8b --block-size 0x10
refused "--beam-width" -- cost llama-3.1-8b --beam-width 1025
refused "--block-size" -- cost llama-3.1-8b --block-size 2G
refused "--kv-dtype" -- cost llama-3.1-8b --kv-dtype fp9
refused "--kv-dtype" -- cost llama-3.1-8b --kv-dtype ""
refused "--pp-rank" -- cost llama-3.1-8b --pp-rank -1
refused "pp_rank" -- cost llama-3.1-8b --pp 2 --pp-rank 2
refused "pp" -- cost llama-3.1-8b --pp 33
refused "tensor parallelism 3" -- cost llama-3.1-8b --tp 3
refused "second" -- cost llama-3.1-8b llama-3.1-70b
refused "did you mean '--tp'" -- cost llama-3.1-8b --tpp 2
refused "did you mean '--json'" -- cost llama-3.1-8b --jsn
refused "" -- cost llama-3.1-8b -x
refused "" -- cost ""
refused "closest" -- cost llama-3.1-8c
timeout 30 "$KVPLAN" cost no-such-model-anywhere --json >"$TMP/out" 2>"$TMP/err"
rc=$?
checked=$((checked + 1))
[ "$rc" -eq 2 ] || fail "cost --json on a bad model: exit $rc"
grep -q '^{"error": {"code": "KVP_NOT_FOUND"' "$TMP/out" || fail "cost --json: no error object on stdout: $(cat "$TMP/out")"
[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "cost --json: stderr is not one line"
# Flags take no value.
for f in --json --layers; do
    refused "$f" -- cost llama-3.1-8b "$f=yes"
    if grep -q "did you mean '$f'" "$TMP/err"; then
        echo "KNOWN: '$f=yes' answers \"did you mean '$f'\" instead of \"takes no value\""
        known=$((known + 1))
    fi
done
# Repeated and conflicting options (issue 8: a clear message and exit 2).
refused "--tp" -- cost llama-3.1-8b --tp 2 --tp 4
refused "--kv-dtype" -- cost llama-3.1-8b --kv-dtype fp8 --kv-dtype bf16
refused "--tokens-per-block" -- cost llama-3.1-8b --block-size 16 --tokens-per-block 64

# ---- kvplan plan: named values, lists and conflicts.
P=(plan llama-3.1-8b --gpu-mem 80GiB)
if timeout 30 "$KVPLAN" "${P[@]}" >/dev/null 2>&1 </dev/null; then
    refused "" -- plan llama-3.1-8b --gpu ""
    refused "closest" -- plan llama-3.1-8b --gpu H100XYZ
    refused "" -- plan llama-3.1-8b --gpu "$long_name"
    refused "" -- plan llama-3.1-8b --gpu H100 --gpu-mem 80GiB
    refused "--policy" -- "${P[@]}" --policy nope
    refused "--spec-mode" -- "${P[@]}" --spec-mode nope
    refused "no-such-draft" -- "${P[@]}" --draft no-such-draft
    refused "--max-attention-window" -- "${P[@]}" --max-attention-window 1,,2
    refused "--max-attention-window" -- "${P[@]}" --max-attention-window 1,-2
    refused "--max-attention-window" -- "${P[@]}" --max-attention-window ""
    refused "--max-attention-window" -- "${P[@]}" --max-attention-window "$(printf '1,%.0s' $(seq 1 300))1"
    refused "--kv-manager" -- "${P[@]}" --kv-manager v3
    refused "--kv-dtype" -- "${P[@]}" --kv-dtype nvfp5
    refused "--seq-len" -- "${P[@]}" --seq-len 0
    refused "cross_kv_cache_fraction" -- "${P[@]}" --cross-kv-cache-fraction 0.5
    refused "" -- "${P[@]}" --free-gpu-memory-fraction 0
    refused "" -- "${P[@]}" --free-gpu-memory-fraction 1.0001
    refused "--pp" -- "${P[@]}" --pp 2 --pp 4
fi

# ---- issue 29: hostile classes found on main (each exit 0 there).
# An empty list item: --policies read "" or "," as the default four engines and
# "vllm," as vllm; --over skipped the empty value of "1,,2".
refused "--policies" -- compare llama-3.1-8b --gpu-mem 80GiB --policies ""
refused "--policies: ',' holds an empty item" -- compare llama-3.1-8b --gpu-mem 80GiB --policies ,
refused "--policies: 'vllm,' holds an empty item" -- compare llama-3.1-8b --gpu-mem 80GiB --policies vllm,
refused "--policies" -- compare llama-3.1-8b --gpu-mem 80GiB --policies vllm,,sglang --json
refused "--over tp: '1,,2' holds an empty value" -- sweep llama-3.1-8b --gpu-mem 80GiB --over tp=1,,2
refused "--over tp: ',1'" -- sweep llama-3.1-8b --gpu-mem 80GiB --over tp=,1
refused "--over policy: 'vllm,'" -- sweep llama-3.1-8b --gpu-mem 80GiB --over policy=vllm,
refused "--over max-seq-len" -- sweep llama-3.1-8b --gpu-mem 80GiB --over max-seq-len=4k..8k,
# A setting no planned engine reads (compare, sweep over policies): exit 2 as under
# one engine; the engine_reads.c texts are quoted.
refused "--capacity-scheduler-policy has no meaning under any engine planned (vLLM: vLLM has no capacity scheduler policy; SGLang: SGLang has no capacity scheduler policy)" -- \
    compare llama-3.1-8b --gpu-mem 80GiB --policies vllm,sglang --capacity-scheduler-policy GUARANTEED_NO_EVICT
refused "--mem-fraction-static has no meaning under any engine planned" -- \
    compare llama-3.1-8b --gpu-mem 80GiB --policies vllm,llamacpp --mem-fraction-static 0.8 --json
refused "--capacity-scheduler-policy has no meaning under any engine planned" -- \
    sweep llama-3.1-8b --gpu-mem 80GiB --over policy=vllm,sglang --capacity-scheduler-policy GUARANTEED_NO_EVICT
# Expert parallelism that the engine cannot lay out: TensorRT-LLM's Mapping needs
# moe_tp x moe_ep = tp (tensorrt_llm/mapping.py), SGLang's moe_tp_size = tp // ep is 0
# when ep > tp (STARTUP.md S-PAR-3). Both planned Mixtral at full width before.
refused "--ep-size: EP 2 does not divide TP 1" -- plan mixtral-8x7b-v0.1 --gpu-mem 80GiB --ep-size 2
refused "--ep_size: EP 4 does not divide TP 2" -- plan mixtral-8x7b-v0.1 --gpu-mem 80GiB --tp 2 --ep_size 4
refused "--ep-size: EP 3 does not divide TP 4" -- plan mixtral-8x7b-v0.1 --gpu-mem 80GiB --tp 4 --ep-size 3 --policy trtllm
refused "--ep-size: EP 4 does not divide the 2 GPUs" -- plan mixtral-8x7b-v0.1 --gpu-mem 80GiB --tp 2 --ep-size 4 --policy sglang
refused "--ep-size" -- fit mixtral-8x7b-v0.1 --gpu-mem 80GiB --tp 2 --ep-size 4 --policy sglang --json
# An option that needs another: TensorRT-LLM keeps draft layers only with a
# speculative method.
refused "--num-draft-layers needs a speculative method" -- plan llama-3.1-8b --gpu-mem 80GiB --num-draft-layers 2
refused "--max-draft-len needs a speculative method" -- plan llama-3.1-8b --gpu-mem 80GiB --max-draft-len 4
refused "--separate-draft-kv needs a speculative method" -- plan llama-3.1-8b --gpu-mem 80GiB --separate-draft-kv --json
refused "--compression-quant needs --kv-cache-compression" -- plan llama-3.1-8b --gpu-mem 80GiB --compression-quant fp8
refused "--triattention-union-eviction needs --kv-cache-compression triattention" -- plan llama-3.1-8b --gpu-mem 80GiB --triattention-union-eviction
# why: a target of 0, and two targets (only the first was answered).
WHYLOG=$(dirname "$0")/../data/why/vllm_v1.log
refused "--target-concurrency: 0 is no target" -- why "$WHYLOG" --target-concurrency 0
refused "--target-context: 0 is no target" -- why "$WHYLOG" --target-context 0 --json
refused "--target-context contradicts --target-concurrency" -- why "$WHYLOG" --target-concurrency 4 --target-context 1000
# Settings that still plan: TensorRT-LLM with EP dividing TP; a dense model's EP under
# TensorRT-LLM (its Mapping is valid; no MoE layer to split); a draft layer count with
# a method; and one setting some engines read (a note per engine that does not).
for args in "plan mixtral-8x7b-v0.1 --gpu-mem 80GiB --tp 4 --ep-size 2" \
            "plan llama-3.1-8b --gpu-mem 80GiB --tp 2 --ep-size 2" \
            "plan llama-3.1-8b --gpu-mem 80GiB --num-draft-layers 2 --spec-mode eagle3" \
            "plan llama-3.1-8b --gpu-mem 80GiB --max-draft-len 4 --separate-draft-kv --spec-mode eagle3"; do
    read -r -a a <<<"$args"
    timeout 30 "$KVPLAN" "${a[@]}" >/dev/null 2>"$TMP/err" </dev/null
    rc=$?
    checked=$((checked + 1))
    [ "$rc" -eq 0 ] || fail "kvplan $args: exit $rc, expected 0: $(head -c 300 "$TMP/err")"
done
timeout 30 "$KVPLAN" compare llama-3.1-8b --gpu-mem 80GiB --policies vllm,sglang --mem-fraction-static 0.8 --json \
    >"$TMP/out" 2>"$TMP/err" </dev/null
rc=$?
checked=$((checked + 1))
[ "$rc" -eq 0 ] || fail "compare --mem-fraction-static under vllm,sglang: exit $rc"
grep -qxF "kvplan: note: --mem-fraction-static is not read under vLLM (policy vllm): vLLM's fraction is --gpu-memory-utilization" "$TMP/err" ||
    fail "compare --mem-fraction-static: no per-engine note on stderr: $(cat "$TMP/err")"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
notes = {e["policy"]: e["notes"] for e in d["engines"]}
want = "--mem-fraction-static is not read under policy vllm: vLLM'"'"'s fraction is --gpu-memory-utilization"
assert want in notes["vllm"], notes
assert not any("mem-fraction-static" in n for n in notes["sglang"]), notes
' "$TMP/out" || fail "compare --json: the vllm engine's notes do not say --mem-fraction-static is not read"

# ---- the command itself.
timeout 30 "$KVPLAN" >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] || fail "kvplan without a command must exit 2"
refused "did you mean 'cost'" -- cots llama-3.1-8b
refused "" -- --no-such-flag
long=$(head -c 100000 /dev/zero | tr '\0' 'a')
refused "" -- cost "$long"
refused "" -- "$long"
refused "--tp" -- cost llama-3.1-8b --tp "$long"

echo "abuse: $checked refusals checked, $fails failures, $known known (accepted today)"
[ "$fails" -eq 0 ]
