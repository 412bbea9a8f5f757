#!/bin/bash
# plan --explain, --svg and --html under every policy (issue 12 item 5): each
# writes its file, the pictures are the library's (kvplan/render.h), and the
# explain lines carry numbers worked by hand.
set -u
K=$1
S=$2
cd "$S" || exit 1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
bad=0
fail() { echo "FAIL: $*"; bad=1; }

for p in trtllm vllm sglang llamacpp; do
    "$K" plan llama-3.1-8b --gpu h100 --policy $p --svg "$T/$p.svg" --html "$T/$p.html" >"$T/out" 2>"$T/err" ||
        fail "$p: --svg/--html exit $?: $(cat "$T/err")"
    head -c 4 "$T/$p.svg" | grep -q '<svg' || fail "$p: $T/$p.svg is not an SVG"
    grep -q 'GPU memory of one rank' "$T/$p.svg" || fail "$p: the SVG has no memory bar title"
    grep -q "KV pool" "$T/$p.svg" || grep -q "full" "$T/$p.svg" || fail "$p: the SVG shows no KV pool"
    head -1 "$T/$p.html" | grep -qi '<!DOCTYPE html>' || fail "$p: $T/$p.html is not a page"
    grep -q '<svg' "$T/$p.html" || fail "$p: the page has no inline memory bar"
    grep -q 'KV pools' "$T/$p.html" || fail "$p: the page has no pool table"
    grep -q '<script' "$T/$p.html" && fail "$p: the page has a script"
    "$K" plan llama-3.1-8b --gpu h100 --policy $p --explain >"$T/explain" 2>"$T/err" ||
        fail "$p: --explain exit $?: $(cat "$T/err")"
    # --explain adds lines to the plan, it does not replace it (trtllm interleaves its
    # "= formula" lines; the policies add an "explain" section after the plan).
    [ $p = trtllm ] && continue
    "$K" plan llama-3.1-8b --gpu h100 --policy $p >"$T/plain" 2>/dev/null
    head -n "$(wc -l <"$T/plain")" "$T/explain" | cmp -s - "$T/plain" || fail "$p: --explain changed the plan's own lines"
    [ "$(wc -l <"$T/explain")" -gt "$(wc -l <"$T/plain")" ] || fail "$p: --explain added nothing"
done

# vLLM, Llama-3.1-8B on an H100: 27881 blocks of 16 tokens = 446096 tokens (max_num_seqs
# 1024 on an 80 GB H100, so the dummy sampler holds 1024 rows); the page is one block of
# one layer: 16 tokens x 8 KV heads x 128 x 2 (K, V) x 2 bytes = 65536;
# 27881 x 65536 x 32 layers = 58470694912 bytes.
"$K" plan llama-3.1-8b --gpu h100 --policy vllm --explain >"$T/explain" 2>/dev/null
grep -qF "pool 'full' (full, 32 layers): 446096 tokens = 27881 blocks x 16 tokens; 27881 x 65536-byte page x 32 layers = 58470694912 bytes" "$T/explain" ||
    fail "vllm --explain pool line: $(grep "pool '" "$T/explain")"
grep -q '^  budget = ceil(total \* 0.9) - weights' "$T/explain" || fail "vllm --explain has no budget formula"
grep -q 'weights .* GiB  estimated from config' "$T/explain" || fail "vllm --explain does not mark estimated weights"
# A measured term is said to be given: --weights 15GiB = 16106127360 bytes = 15.00 GiB.
"$K" plan llama-3.1-8b --gpu h100 --policy vllm --weights 15GiB --explain >"$T/explain" 2>/dev/null
grep -q 'weights .* 15.00 GiB  measured' "$T/explain" || grep -q 'weights .* 15.00 GiB  as given' "$T/explain" ||
    fail "vllm --explain with --weights: $(grep weights "$T/explain")"

# llama.cpp allocates exactly: n_ctx 131072 x 32 layers x 8 x 128 x 2 bytes, K and V each
# 131072 * 32 * 1024 * 2 = 8589934592; the pool 17179869184.
"$K" plan llama-3.1-8b --gpu h100 --policy llamacpp --explain >"$T/explain" 2>/dev/null
grep -qF "pool 'main' (full, 32 layers): 131072 tokens = 17179869184 bytes (K 8589934592 + V 8589934592)" "$T/explain" ||
    fail "llamacpp --explain pool line: $(grep "pool '" "$T/explain")"

# A missing file name is bad input, and nothing is written over a device.
"$K" plan llama-3.1-8b --gpu h100 --policy vllm --svg >/dev/null 2>&1
[ $? = 2 ] || fail "--svg without FILE is not exit 2"

[ "$bad" = 0 ] && echo "plan pictures: --explain, --svg, --html under trtllm, vllm, sglang, llamacpp"
exit "$bad"
