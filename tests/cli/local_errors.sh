#!/bin/bash
# local_errors.sh KVPLAN SRCDIR — `kvplan local` bad input: exit 2, one
# "kvplan: ..." line on stderr naming the declaration and the field, and with
# --json an {"error": ...} object on stdout; a failing declarer is a warning.
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
    [ $rc -eq 2 ] || fail "$name: exit $rc, expected 2"
    [ "$(wc -l <"$T/err")" -eq 1 ] || fail "$name: stderr is not one line: $(cat "$T/err")"
    grep -q '^kvplan: ' "$T/err" || fail "$name: stderr lacks the 'kvplan: ' prefix"
    grep -q -- "$pat" "$T/err" || fail "$name: stderr does not match '$pat': $(cat "$T/err")"
}

decl() { # decl FILE ENTRY-FIELDS
    printf '{"model":"t","module_tree":{"declares":[{"name":"talker",%s}]}}\n' "$2" >"$1"
}
BASE='"kind":"static_cache","bound":{"mechanism":"constant","max_cache_len":2048},"geometry":{"layers":24,"kv_heads":2,"head_dim":64,"dtype":"bf16"},"scope":"invocation"'

decl "$T/no_reason.json" "$BASE,\"row_driver\":\"FIXED\",\"rows_fixed\":1"
expect_bad no_reason "declaration 'talker'.*rows_reason" local --decl "$T/no_reason.json" --max-num-seqs 8
grep -q '/module_tree/declares/0/rows_reason' "$T/err" || fail "no_reason: key not named"

decl "$T/driver.json" "$BASE,\"row_driver\":\"PER_CALL\""
expect_bad driver "declaration 'talker'.*unknown row_driver 'PER_CALL'" local --decl "$T/driver.json" --max-num-seqs 8

decl "$T/zero.json" '"kind":"static_cache","bound":{"mechanism":"constant","max_cache_len":0},"geometry":{"layers":24,"kv_heads":2,"head_dim":64,"dtype":"bf16"},"scope":"invocation","row_driver":"MAX_NUM_SEQS"'
expect_bad zero_bound "max_cache_len' must be at least 1" local --decl "$T/zero.json" --max-num-seqs 8

# --json: the error object on stdout too.
"$K" local --decl "$T/driver.json" --max-num-seqs 8 --json >"$T/out" 2>"$T/err"
[ $? -eq 2 ] || fail "json: exit status"
grep -q '^{"error": {"code": "KVP_CONFIG"' "$T/out" || fail "json: no error object: $(cat "$T/out")"
grep -q '"key": "/module_tree/declares/0/row_driver"' "$T/out" || fail "json: key missing"

expect_bad no_seqs "max-num-seqs" local qwen3-tts
"$K" local qwen3-tts --json >"$T/out" 2>/dev/null
grep -q '"key": "--max-num-seqs"' "$T/out" || fail "no_seqs --json: no error object: $(cat "$T/out")"
expect_bad zero_seqs "out of range" local qwen3-tts --max-num-seqs 0
expect_bad typo "did you mean '--max-num-seqs'" local qwen3-tts --max-num-seq 4
expect_bad unknown_model "declares no local KV caches" local not-a-model --max-num-seqs 4
expect_bad two_models "one MODEL expected" local qwen3-tts mimo-audio --max-num-seqs 4
expect_bad missing_file "cannot open\|No such file" local --decl "$T/absent.json" --max-num-seqs 4
printf '{"model": "t",\n "module_tree": ]\n' >"$T/syntax.json"
expect_bad syntax "line 2" local --decl "$T/syntax.json" --max-num-seqs 4

# A declarer that fails (geometry from a config lacking an attribute) is
# reported and skipped: exit 0, a warning naming the attribute.
printf '{"architectures":["Qwen2ForCausalLM"],"model_type":"qwen2","num_hidden_layers":2,"num_attention_heads":4,"hidden_size":256,"torch_dtype":"bfloat16"}\n' >"$T/config.json"
decl "$T/cfg.json" "\"kind\":\"static_cache\",\"bound\":{\"mechanism\":\"constant\",\"max_cache_len\":16},\"geometry\":{\"hf_config\":\"$T/config.json\"},\"scope\":\"invocation\",\"row_driver\":\"FIXED\",\"rows_fixed\":1,\"rows_reason\":\"one call\""
"$K" local --decl "$T/cfg.json" --max-num-seqs 4 --json >"$T/out" 2>"$T/err"
[ $? -eq 0 ] || fail "failing declarer: exit status $?"
grep -q 'warning: declarer' "$T/err" || fail "failing declarer: no warning"
grep -q 'num_key_value_heads' "$T/out" || fail "failing declarer: attribute not named in JSON"
grep -q '"local_caches": \[\]' "$T/out" || fail "failing declarer: entry not skipped"

# --help and --list succeed.
"$K" local --help >"$T/out" || fail "--help exit status"
grep -q 'usage: kvplan local MODEL' "$T/out" || fail "--help text"
[ "$("$K" local --list | wc -l)" -eq 4 ] || fail "--list does not name the four models"

# The seed's ~1.1 GiB: the request cache at 256 sequences is 1,191,182,336 B.
"$K" local qwen3-tts --max-num-seqs 256 --async-chunk --json >"$T/out" || fail "qwen3-tts json"
grep -q '"total_bytes": 1191182336' "$T/out" || fail "qwen3-tts: 1,191,182,336 B not reported"
echo ok
