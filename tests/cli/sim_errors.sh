#!/bin/bash
# sim_errors.sh KVPLAN SRCDIR — `kvplan sim` bad input: exit 2 with one
# "kvplan: ..." line on stderr that names the file, the line and the key;
# with --json an {"error": ...} object on stdout; warnings for unknown keys;
# a request that can never fit is counted, not looped on.
set -u
K=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_bad NAME PATTERN ARGS...: exit 2, exactly one stderr line, matching PATTERN.
expect_bad() {
    local name=$1 pat=$2
    shift 2
    "$K" "$@" >"$T/out" 2>"$T/err"
    local rc=$?
    [ $rc -eq 2 ] || fail "$name: exit $rc, expected 2 ($(cat "$T/err"))"
    [ "$(wc -l <"$T/err")" -eq 1 ] || fail "$name: stderr is not one line: $(cat "$T/err")"
    grep -q '^kvplan: ' "$T/err" || fail "$name: stderr lacks the 'kvplan: ' prefix"
    grep -q -- "$pat" "$T/err" || fail "$name: stderr does not match '$pat': $(cat "$T/err")"
}

M=llama-3.2-1b
ok='{"prompt_len": 10, "output_len": 2}'

printf '%s\n{"prompt_len": 10, "output_len": -1}\n' "$ok" >"$T/neg.jsonl"
expect_bad negative "neg.jsonl: /output_len: line 2: .*found -1" sim $M --blocks 100 --workload "$T/neg.jsonl"

printf '%s\n%s\n{"prompt_len": 10}\n' "$ok" "$ok" >"$T/missing.jsonl"
expect_bad missing "line 3: missing" sim $M --blocks 100 --workload "$T/missing.jsonl"

printf '{"prompt_len": 90, "output_len": 2, "prefix_id": "s", "prefix_len": 64}\n{"prompt_len": 90, "output_len": 2, "prefix_id": "s", "prefix_len": 32}\n' >"$T/prefix.jsonl"
expect_bad prefix_two_lengths "line 2: prefix_id s was given prefix_len 64 before, now 32" sim $M --blocks 100 --workload "$T/prefix.jsonl"

printf '%s\n{"prompt_len": 10,\n' "$ok" >"$T/syntax.jsonl"
expect_bad syntax "line 2: .*column" sim $M --blocks 100 --workload "$T/syntax.jsonl"

expect_bad no_file "nope.jsonl" sim $M --blocks 100 --workload "$T/nope.jsonl"
expect_bad bad_spec "prompt.*not a length distribution" sim $M --blocks 100 --synthetic "prompt=normal:5:1,output=fixed:1"
expect_bad no_workload "exactly one of --workload FILE and --synthetic SPEC" sim $M --blocks 100
expect_bad both_budgets "exactly one of --gpu NAME, --gpu-mem BYTES, --kv-budget BYTES and --blocks N" sim $M --blocks 100 --kv-budget 1GiB --synthetic prompt=fixed:5,output=fixed:1
"$K" sim $M --kv-budget 1000 --synthetic prompt=fixed:5,output=fixed:1 >"$T/out" 2>"$T/err"
# Exit 1: the deployment cannot start (not bad input).
[ $? -eq 1 ] || fail "tiny_budget: exit status, expected 1"
grep -q -- "one sequence does not fit" "$T/err" || fail "tiny_budget: $(cat "$T/err")"
expect_bad unknown_option "did you mean '--blocks'" sim $M --blocsk 100 --synthetic prompt=fixed:5,output=fixed:1
expect_bad bad_unit "expected steps or seconds" sim $M --blocks 100 --arrival-unit hours --synthetic prompt=fixed:5,output=fixed:1
expect_bad no_model "needs a MODEL" sim

# --json: the error object on stdout too, with the line.
"$K" sim $M --blocks 100 --workload "$T/neg.jsonl" --json >"$T/out" 2>"$T/err"
[ $? -eq 2 ] || fail "json: exit status"
grep -q '"error"' "$T/out" || fail "json: no error object on stdout: $(cat "$T/out")"
grep -q '"line": 2' "$T/out" || fail "json: error object lacks the line: $(cat "$T/out")"

# Unknown keys: warned once each on stderr, the run goes on.
printf '{"prompt_len": 10, "output_len": 2, "colour": 1}\n{"prompt_len": 10, "output_len": 2, "colour": 2}\n' >"$T/warn.jsonl"
"$K" sim $M --blocks 100 --workload "$T/warn.jsonl" --no-timing >"$T/out" 2>"$T/err" || fail "warn: exit status"
[ "$(grep -c 'unknown key "colour"' "$T/err")" -eq 1 ] || fail "warn: not warned exactly once: $(cat "$T/err")"

# A prompt that can never fit 4 blocks of 32: counted, and the run ends.
printf '{"prompt_len": 500, "output_len": 2}\n%s\n' "$ok" >"$T/huge.jsonl"
timeout 20 "$K" sim $M --blocks 4 --workload "$T/huge.jsonl" --json >"$T/out" 2>"$T/err" || fail "huge: exit status $?"
grep -q '"rejected_never_fit": 1' "$T/out" || fail "huge: not counted: $(cat "$T/out")"
grep -q '"finished": 1' "$T/out" || fail "huge: the small request did not finish"

# --help: usage on stdout, exit 0.
"$K" sim --help >"$T/out" 2>&1 || fail "help: exit status"
grep -q -- '--synthetic SPEC' "$T/out" || fail "help: no usage"

# A budget buys blocks: Llama-3.2-1B at 32 tokens/block is 1 MiB per block.
"$K" sim $M --kv-budget 100MiB --synthetic requests=10,prompt=fixed:100,output=fixed:10 --json >"$T/out" 2>"$T/err" || fail "budget: exit"
grep -q '"blocks": 100' "$T/out" || fail "budget: 100 MiB / 1 MiB per block should be 100 blocks: $(grep blocks "$T/out")"
exit 0
