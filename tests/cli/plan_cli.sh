#!/usr/bin/env bash
# plan_cli.sh KVPLAN SRCDIR — `kvplan plan` behaviour that golden files cannot express:
# the --policy seam, --help, one-line errors with exit 2, JSON error objects.
set -u
K="$1"
fail() { echo "FAIL: $*"; exit 1; }
args=(plan llama-3.1-8b --kv-budget 40GiB --max-seq-len 8192)

"$K" plan --help >/dev/null || fail "--help should exit 0"
a=$("$K" "${args[@]}") || fail "plain plan failed"
b=$("$K" "${args[@]}" --policy trtllm) || fail "--policy trtllm failed"
[ "$a" = "$b" ] || fail "--policy trtllm should equal the default"
c=$("$K" "${args[@]}" --policy=trtllm) || fail "--policy=trtllm failed"
[ "$a" = "$c" ] || fail "--policy=trtllm should equal the default"

# Bad input: exit 2, exactly one line on stderr, nothing on stdout.
check_bad() {
    local out err rc
    out=$("$K" "$@" 2>/tmp/kvp_plan_err.$$); rc=$?
    err=$(cat /tmp/kvp_plan_err.$$); rm -f /tmp/kvp_plan_err.$$
    [ "$rc" = 2 ] || fail "expected exit 2 for: $* (got $rc)"
    [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || fail "expected one stderr line for: $*: $err"
    case "$err" in kvplan:*) ;; *) fail "stderr must start with 'kvplan:': $err" ;; esac
    [ -z "$out" ] || fail "stdout must be empty for: $*"
}
# The deployment cannot start (exit 1): one line on stderr saying why.
check_no() {
    local out err rc
    out=$("$K" "$@" 2>/tmp/kvp_plan_err.$$); rc=$?
    err=$(cat /tmp/kvp_plan_err.$$); rm -f /tmp/kvp_plan_err.$$
    [ "$rc" = 1 ] || fail "expected exit 1 for: $* (got $rc)"
    [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || fail "expected one stderr line for: $*: $err"
    case "$err" in kvplan:*) ;; *) fail "stderr must start with 'kvplan:': $err" ;; esac
}
check_bad plan llama-3.1-8b
check_bad plan llama-3.1-8b --kv-budget 0
check_bad plan llama-3.1-8b --kv-budget -5GiB
check_bad plan llama-3.1-8b --kv-budget 40GiB --free-gpu-memory-fraction 0
check_bad plan llama-3.1-8b --kv-budget 40GiB --max-tokens 0
# TP 3 with 32 heads: TensorRT-LLM refuses at start-up (T-PAR-1): exit 1, the rule named
# (issue 21; it was exit 2 as bad input before the start-up rules).
out=$("$K" plan llama-3.1-8b --kv-budget 40GiB --tp 3 2>&1); rc=$?
[ "$rc" = 1 ] || fail "TP 3 should exit 1 (engine refuses), got $rc"
case "$out" in *"T-PAR-1"*) ;; *) fail "TP 3 refusal does not name T-PAR-1: $out" ;; esac
check_no plan llama-3.1-8b --kv-budget 1MiB --max-seq-len 8192
check_bad plan llama-3.1-8b --kv-budget 40GiB --bogus-option
check_bad plan llama-3.1-8b --gpu-mem 80GiB --weights 70GiB --peak 60GiB --non-torch 1GiB
# A peak and non-torch memory that fill the device exactly: nothing is left (exit 1) ...
check_no plan llama-3.1-8b --gpu-mem 16GiB --weights 15GiB --peak 15.5GiB --non-torch 0.5GiB
# ... a peak the device cannot have held is a contradiction (exit 2, issue 17).
check_bad plan llama-3.1-8b --gpu-mem 16GiB --weights 15GiB --peak 17GiB --non-torch 1GiB
check_bad plan llama-3.1-8b --kv-budget 40GiB --spec-mode mtp
check_bad plan llama-3.1-8b --kv-budget 40GiB --kv-budget-typo 3
check_bad plan llama-3.1-8b --kv-budget 99999999999999999999999GiB
check_bad plan no-such-model --kv-budget 40GiB
# Seed rules around the creator: invalid combinations exit 2 with one line.
check_bad plan llama-3.1-8b --kv-budget 40GiB --kv-manager v2 --kv-cache-compression quantization_for_cold_page
check_bad plan llama-3.1-8b --kv-budget 40GiB --kv-manager v1 --sm-version 100 --kv-cache-compression quantization_for_cold_page
check_bad plan llama-3.1-8b --kv-budget 40GiB --sm-version 100 --kv-cache-compression triattention --enable-block-reuse
check_bad plan llama-3.1-8b --kv-budget 40GiB --lora-rank 0 --max-loras 2 --lora-target-modules attn_q
check_bad plan llama-3.1-8b --kv-budget 40GiB --lora-rank 8 --lora-target-modules attn_qq
check_bad plan qwen3-next-80b-a3b-thinking --tp 4 --kv-budget 40GiB --lora-rank 8 --lora-target-modules mlp_h_to_4h --lora-shared-expert-size 514
check_bad plan llama-3.1-8b --kv-budget 40GiB --mm-encoder-max-tokens 4096 --mm-tokens-per-item image=0
check_bad plan llama-3.1-8b --kv-budget 40GiB --engine-version 1999
check_bad plan qwen3-next-80b-a3b-thinking --tp 4 --kv-budget 40GiB --kv-manager v1 --max-beam-width 2
err=$("$K" plan llama-3.1-8b --kv-budget 40GiB --kv-manager v2 --sm-version 90 --kv-cache-compression quantization_for_cold_page 2>&1 >/dev/null)
case "$err" in *"NVFP4 cold-page quantization requires an SM100-family device (SM100, SM103 or SM107)"*) ;; *) fail "compression SM wording: $err" ;; esac
# Without --sm-version the creator reads the GPU's SM (TensorRT-LLM's
# get_sm_version): a B200 (cc 10.0) is SM100, so TriAttention plans there; an
# H100 (cc 9.0) is SM90 and is refused, naming SM90.
"$K" plan llama-3.1-8b --policy trtllm --gpu b200 --kv-cache-compression triattention >/dev/null 2>&1 \
    || fail "TriAttention on a B200 (SM100) should plan"
err=$("$K" plan llama-3.1-8b --policy trtllm --gpu h100 --kv-cache-compression triattention 2>&1 >/dev/null)
case "$err" in *"requires an SM100-family device"*"got SM90"*) ;; *) fail "TriAttention on an H100: $err" ;; esac
# Helix with only --max-tokens plans that quota (divergence 2).
out=$("$K" plan llama-3.1-8b --gpu-mem 80GiB --weights 16GiB --peak 18GiB --non-torch 1GiB --kv-manager v2 --cp 2 --helix --max-tokens 65536 2>/dev/null) || fail "helix max_tokens exited $?"
case "$out" in *"max tokens              65,536"*) ;; *) fail "helix max_tokens quota: $out" ;; esac

# A --max-seq-len the budget cannot hold: the engine starts with the reduced
# max_seq_len the manager adopts (divergence 7; kvplan used to exit 2 with "the
# largest --max-seq-len that fits is 8192").
out=$("$K" plan llama-3.1-8b --kv-budget 1GiB --max-seq-len 131072 2>/dev/null) || fail "adopted max_seq_len exited $?"
case "$out" in *"max_seq_len 131072 (engine starts with 8192)"*"so the engine starts with max_seq_len 8192"*) ;; *) fail "no adopted max_seq_len: $out" ;; esac

# --json errors are objects on stdout.
out=$("$K" plan llama-3.1-8b --kv-budget 40GiB --max-tokens 0 --json 2>/dev/null)
case "$out" in '{"error": {"code": '*) ;; *) fail "json error object: $out" ;; esac
# A start-up refusal under --json is the check report (starts false, the rule).
out=$("$K" plan llama-3.1-8b --kv-budget 40GiB --tp 3 --json 2>/dev/null)
case "$out" in *'"starts": false'*'"first_refusal": "T-PAR-1"'*) ;; *) fail "json refusal: $out" ;; esac
out=$("$K" plan llama-3.1-8b --kv-budget 40GiB --nope --json 2>/dev/null)
case "$out" in '{"error": {"code": "KVP_INVALID_ARG"'*) ;; *) fail "json unknown option: $out" ;; esac

# The JSON plan carries the documented fields.
# TensorRT-LLM's V2 manager holds window + one block of every sliding pool for each
# of max_batch_size sequences: Gemma-3-27B's 52 sliding layers x 16 heads x 128 x 2
# (K, V) x 2 B = 425,984 B/token x (1,024 + 32) x 2,048 = 921,270,484,992 B of fixed
# costs, above a 40 GiB budget: the message names them and the fix.
err=$("$K" plan gemma-3-27b-it --kv-budget 40GiB --max-seq-len 8192 --kv-manager v2 2>&1 >/dev/null)
[ "$err" = "kvplan: one sequence does not fit: the KV budget (42949672960 B) is below one block of each pool (2621440 B) plus the fixed costs (921270484992 B: sliding-window blocks for max_batch_size sequences; lower --max-batch-size)" ] ||
    fail "window fixed costs not named: $err"
# TensorRT-LLM keeps ceil(kv_heads / tp) KV heads per rank (its KV cache manager,
# ENGINES.md 0.3): Phi-4's 10 KV heads at TP 8 are 2 per rank, never refused:
# 40 layers x 2 heads x 128 x 2 (K, V) x 2 B = 40,960 B/token; 40 GiB / (32 x 40,960 B)
# = 32,768 blocks. vLLM refuses the same TP (V-PAR-2: 10 % 8), exit 1.
P4="$2/data/models/microsoft__phi-4.partial.json"
out=$("$K" plan "$P4" --policy trtllm --kv-budget 40GiB --tp 8 --max-seq-len 4096) ||
    fail "TensorRT-LLM should plan Phi-4 at TP 8 (ceil of the KV heads)"
case "$out" in *"target  full           40        -        40960      1310720      32768"*) ;;
    *) fail "Phi-4 TP 8 under TensorRT-LLM is not 2 KV heads per rank: $out" ;; esac
rc=0; "$K" plan "$P4" --policy vllm --kv-budget 40GiB --tp 8 --max-seq-len 4096 >/dev/null 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "vLLM should refuse Phi-4 at TP 8 (V-PAR-2), got exit $rc"
out=$("$K" "${args[@]}" --json) || fail "json plan failed"
for key in budget_bytes pools kind layers window_tokens bytes_per_token bytes_per_sequence \
    page_bytes tokens_per_block bytes blocks tokens max_tokens max_sequences seq_len count \
    reserves warnings memory total_bytes weights_bytes activation_bytes non_torch_bytes \
    cuda_graph_bytes estimated; do
    case "$out" in *"\"$key\""*) ;; *) fail "json lacks $key" ;; esac
done
echo ok

# One path for every engine (src/cli/cmd_plan.c): an output with no path, missing
# ("--svg") or empty ("--svg="), is refused by name before anything is planned,
# under every planner (before: the policies said "plan: --svg and --html need a
# FILE"; the creator printed the whole plan, then "no output path").
for e in trtllm vllm sglang llamacpp; do
    for a in --svg --svg= --html --html=; do
        check_bad plan llama-3.1-8b --gpu h100 --policy "$e" "$a"
        err=$("$K" plan llama-3.1-8b --gpu h100 --policy "$e" "$a" 2>&1 >/dev/null)
        [ "$err" = "kvplan: ${a%=} needs a value" ] || fail "--policy $e $a: $err"
    done
    # A flag given a value: the reader's one message under every planner.
    err=$("$K" plan llama-3.1-8b --gpu h100 --policy "$e" --explain=true 2>&1 >/dev/null)
    [ "$err" = "kvplan: --explain takes no value (found '--explain=true')" ] || fail "--policy $e --explain=true: $err"
    # No MODEL: the same words under every planner (the policies said "plan:
    # missing MODEL", their usage on stdout), the error object under --json.
    rc=0; out=$("$K" plan --gpu h100 --policy "$e" 2>/tmp/kvp_plan_err.$$) || rc=$?
    err=$(tail -n 1 /tmp/kvp_plan_err.$$); rm -f /tmp/kvp_plan_err.$$
    [ "$rc" = 2 ] && [ -z "$out" ] || fail "--policy $e, no MODEL: exit $rc, stdout '$out'"
    [ "$err" = "kvplan: plan needs a MODEL (a config.json, a folder, or a name from 'kvplan models')" ] ||
        fail "--policy $e, no MODEL: $err"
    out=$("$K" plan --gpu h100 --policy "$e" --json 2>/dev/null)
    case "$out" in '{"error": {"code": "KVP_INVALID_ARG", "message": "plan needs a MODEL'*) ;;
        *) fail "--policy $e --json, no MODEL: $out" ;; esac
done
for c in check cost; do
    err=$("$K" "$c" 2>&1 >/dev/null | tail -n 1)
    [ "$err" = "kvplan: $c needs a MODEL (a config.json, a folder, or a name from 'kvplan models')" ] ||
        fail "$c, no MODEL: $err"
done
