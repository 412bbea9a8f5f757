#!/usr/bin/env bash
# fit_argv.sh — `fit`, `compare` and `sweep` read argv through the one reader
# (kvp_cli_read_argv, fit_cli_read in src/cli/fit_env.c; issue 27 item 6) and
# keep what they printed when each walked argv itself: stdout, stderr and exit
# status of the errors the reader's description decides (docs/options.md "How a
# command line is read"):
#  - under --json an unknown option, a second MODEL and a refused value of the
#    command's own are a JSON error on stdout and one line on stderr;
#  - a missing value and a count that does not parse are one line, even under --json;
#  - an unknown option gets "did you mean" only, never where it belongs
#    (`check` says "only plan take it" for --lora-rank);
#  - --help: the command's text, the table's rows, then --from and --json;
#  - an axis beside the option it varies, and a fit target beside the setting
#    it would vary, are refused naming both.
set -uo pipefail
kvplan=$1
. "$(dirname "$0")/lib/cases.bash"
M=llama-3.1-8b

# expect NAME RC STDOUT STDERR -- ARGS...: all three compared whole.
expect() {
    local name=$1 want_rc=$2 want_out=$3 want_err=$4
    shift 5
    cases=$((cases + 1))
    local rc=0 out
    out=$("$kvplan" "$@" 2>"$TMP/err") || rc=$?
    local err
    err=$(cat "$TMP/err")
    [ "$rc" = "$want_rc" ] || fail "$name: exit $rc, want $want_rc"
    [ "$out" = "$want_out" ] || fail "$name: stdout [$out], want [$want_out]"
    [ "$err" = "$want_err" ] || fail "$name: stderr [$err], want [$want_err]"
}
json_err() { # CODE MESSAGE KEY: the error object kvp_cli_report_error writes
    printf '{"error": {"code": "%s", "message": "%s", "file": "", "key": "%s", "line": 0, "column": 0}}' "$1" "$2" "$3"
}

expect "fit unknown option, --json" 2 "$(json_err KVP_INVALID_ARG "unknown option '--bogus' (see --help)" --bogus)" \
    "kvplan: unknown option '--bogus' (see --help)" -- fit $M --gpu h100 --bogus --json
expect "compare unknown option: did you mean" 2 "" \
    "kvplan: unknown option or command '--polices' (did you mean '--policies'?)" -- compare $M --gpu h100 --polices vllm
expect "fit: a row of plan only is unknown here" 2 "" \
    "kvplan: unknown option or command '--lora-rank' (see --help)" -- fit $M --gpu h100 --lora-rank 8
expect "check says where it belongs (the reader's default)" 2 "" \
    "kvplan: --lora-rank is not an option of this command (only plan take it)" -- check $M --gpu h100 --policy vllm --lora-rank 8
expect "sweep second MODEL, --json" 2 "$(json_err KVP_INVALID_ARG "sweep takes one MODEL, got a second: 'other'" "")" \
    "kvplan: sweep takes one MODEL, got a second: 'other'" -- sweep $M other --json --over tp=1
expect "fit second MODEL" 2 "" "kvplan: fit takes one MODEL, got a second: 'other'" -- fit $M other --gpu h100
expect "missing value stays one line" 2 "" "kvplan: --svg needs a value" -- fit $M --gpu h100 --json --svg
expect "--max-plans 0, --json" 2 "$(json_err KVP_INVALID_ARG "--max-plans: expected 1 to 1000000" --max-plans)" \
    "kvplan: --max-plans: expected 1 to 1000000" -- sweep $M --gpu h100 --over tp=1 --max-plans 0 --json
expect "--max-plans x stays one line" 2 "" "kvplan: --max-plans: count 'x' is not a number" \
    -- sweep $M --gpu h100 --over tp=1 --max-plans x --json
expect "--max-seq-len-limit 0, --json" 2 \
    "$(json_err KVP_INVALID_ARG "--max-seq-len-limit is 0" --max-seq-len-limit)" \
    "kvplan: --max-seq-len-limit is 0" -- fit $M --gpu h100 --max-seq-len-limit 0 --json
expect "--policies x, --json" 2 \
    "$(json_err KVP_INVALID_ARG "--policies: unknown engine 'x' (expected trtllm, vllm, sglang, llamacpp)" --policies)" \
    "kvplan: --policies: unknown engine 'x' (expected trtllm, vllm, sglang, llamacpp)" \
    -- compare $M --gpu h100 --policies vllm,x --json
expect "--solve foo, --json" 2 \
    "$(json_err KVP_INVALID_ARG "--solve: 'foo' is not max-seq-len, concurrency, tp or kv-dtype" --solve)" \
    "kvplan: --solve: 'foo' is not max-seq-len, concurrency, tp or kv-dtype" -- fit $M --gpu h100 --solve foo --json
expect "the first error on the line wins" 2 "" "kvplan: --concurrency: '0', expected 1 to 16777216" \
    -- fit $M --gpu h100 --concurrency 0 --bogus
expect "an axis beside the option it varies" 2 "" \
    "kvplan: --tensor-parallel-size contradicts --over tp: the axis varies what the option fixes; give one" \
    -- sweep $M --gpu h100 --over tp=1,2 --tensor-parallel-size 2 --policy vllm
expect "a fit target beside the setting it varies" 2 "" "kvplan: --solve tp leaves --tp free: drop --tp" \
    -- fit $M --gpu h100 --solve tp --tp 2

# --help and -h: the command's own text, the table's rows, then --from and --json.
for c in fit compare sweep; do
    cases=$((cases + 1))
    rc=0
    "$kvplan" $c $M --gpu h100 --help >"$TMP/help" 2>"$TMP/err" || rc=$?
    [ $rc = 0 ] && [ ! -s "$TMP/err" ] || fail "$c --help: exit $rc or stderr"
    head -1 "$TMP/help" | grep -q "^usage: kvplan $c MODEL" || fail "$c --help: no usage line first"
    grep -q "^  --tp N" "$TMP/help" || fail "$c --help: no table row --tp"
    [ "$(tail -1 "$TMP/help")" = "  --json                       machine-readable output" ] || fail "$c --help: --json not last"
    "$kvplan" $c -h >"$TMP/h" 2>&1
    cmp -s "$TMP/help" "$TMP/h" || fail "$c -h differs from --help"
done

echo "fit_argv: $cases cases, $fails failed"
[ "$fails" = 0 ]
