#!/usr/bin/env bash
# hostile_sim_bounds.sh KVPLAN SRCDIR — sim's resource bounds (include/kvplan/sim.h,
# pool.h): what would allocate gigabytes (requests=1e8, --blocks 1e9, a million
# 16M-token shared prefixes, a sparse 2 GB workload read whole) is refused by name
# with exit 2, quickly and in little memory; the largest legal cases stay under
# 1 GiB and 10 s (release builds only: sanitizers inflate both). Peak memory is the
# child's maximum RSS (getrusage), time the wall clock.
set -u
KVPLAN=$1
. "$(dirname "$0")/lib/cases.bash"
. "$(dirname "$0")/lib/bounded.bash"

# bound LABEL WANT_RC FRAGMENT MAX_MIB MAX_S -- command
bound() {
    local label=$1 want=$2 frag=$3 mib=$4 secs=$5
    shift 6
    cases=$((cases + 1))
    local res
    res=$(bounded_run "$TMP/err" 0 120 -- "$@")
    read -r rc rss dt <<<"$res"
    [ "$rc" = timeout ] && rc=124
    [ "$rc" = "$want" ] || { fail "$label: exit $rc, expected $want: $(head -c 300 "$TMP/err")"; return; }
    if [ "$want" = 2 ]; then
        [ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "$label: stderr is not one line: $(head -c 300 "$TMP/err")"
        grep -qF -- "$frag" "$TMP/err" || fail "$label: error does not name '$frag': $(cat "$TMP/err")"
    fi
    if [ "$sanitized" = 0 ]; then
        [ "$rss" -le "$mib" ] || fail "$label: peak memory $rss MiB, bound $mib MiB"
        python3 -c "import sys; sys.exit(0 if $dt <= $secs else 1)" || fail "$label: took $dt s, bound $secs s"
    fi
    echo "ok: $label: exit $rc, $rss MiB, $dt s"
}
M=llama-3.1-8b
SYN=prompt=fixed:64,output=fixed:8

# Refused before allocating: past KVP_SYNTHETIC_MAX_REQUESTS (1e8, a bound on time:
# requests are drawn as the simulation reaches them, so memory does not grow with them).
bound "requests=100000001" 2 "expected 1 to 100000000 requests" 50 5 -- "$KVPLAN" sim $M --kv-budget 8GiB --no-timing --synthetic requests=100000001,$SYN
bound "requests=2^64" 2 "requests" 50 5 -- "$KVPLAN" sim $M --kv-budget 8GiB --no-timing --synthetic requests=18446744073709551616,$SYN
# Streaming: 2 million requests in the memory of ten (they took 40 bytes each held
# up front plus 12 of state: 104 MB here, 518 MB at 1e7).
bound "requests=2e6-streamed" 0 "" 50 10 -- "$KVPLAN" sim $M --kv-budget 8GiB --no-timing --synthetic requests=2000000,$SYN
# Block records are made as blocks are first taken: a pool of 10^9 blocks costs
# what 10 requests hold (7 GB up front before), with prefix reuse or without.
bound "blocks=1e9" 0 "" 50 5 -- "$KVPLAN" sim $M --blocks 1000000000 --no-timing --synthetic requests=10,$SYN
bound "blocks=1e9-no-reuse" 0 "" 50 5 -- "$KVPLAN" sim $M --blocks 1000000000 --no-prefix-reuse --no-timing --synthetic requests=10,$SYN
bound "blocks=2^32-2" 0 "" 50 5 -- "$KVPLAN" sim $M --blocks 4294967294 --no-timing --synthetic requests=10,$SYN
bound "blocks=2^32" 2 "blocks" 50 5 -- "$KVPLAN" sim $M --blocks 4294967296 --no-timing --synthetic requests=10,$SYN
bound "blocks=35M" 0 "" 50 5 -- "$KVPLAN" sim $M --blocks 35000000 --no-timing --synthetic requests=10,$SYN
bound "blocks=1e9-1k-requests" 0 "" 200 10 -- "$KVPLAN" sim $M --blocks 1000000000 --no-timing --synthetic requests=1000,prompt=uniform:100:2000,output=uniform:10:200,shared_prefix=512:0.5,prefixes=8
bound "kv-budget=1PiB" 2 "" 1024 10 -- "$KVPLAN" sim $M --kv-budget 1PiB --block-size 1 --no-timing --synthetic requests=10,$SYN
# Shared prefixes are ranges (index, length): 1000 prefixes of 16M tokens (64 GB of
# ids when materialised) cost the ids of one (64 MiB, made when a request needs
# them), a million prefixes of 1000 tokens cost nothing per prefix.
bound "prefixes-1000x16M" 0 "" 200 10 -- "$KVPLAN" sim $M --kv-budget 8GiB --no-timing --synthetic requests=10,prompt=fixed:64,output=fixed:8,shared_prefix=16000000:1,prefixes=1000
bound "prefixes-1e6x1k" 0 "" 50 10 -- "$KVPLAN" sim $M --kv-budget 8GiB --no-timing --synthetic requests=10,prompt=fixed:64,output=fixed:8,shared_prefix=1000:1,prefixes=1000000

# Workload files: sparse, past the limit, NUL after good lines, no final newline.
truncate -s 2000000000 "$TMP/sparse-2G.jsonl"
bound "sparse-2G-workload" 2 "NUL byte at byte offset 0" 50 5 -- "$KVPLAN" sim $M --kv-budget 8GiB --no-timing --workload "$TMP/sparse-2G.jsonl"
truncate -s 3G "$TMP/sparse-3G.jsonl"
bound "sparse-3G-workload" 2 "limit" 50 5 -- "$KVPLAN" sim $M --kv-budget 8GiB --no-timing --workload "$TMP/sparse-3G.jsonl"
{ printf '{"arrival": 0, "prompt_len": 100, "output_len": 10}\n{"arrival": 1, "prompt_len": 100, "output_len": 10}\n'; } >"$TMP/holes.jsonl"
truncate -s 1500000000 "$TMP/holes.jsonl"
bound "good-lines-then-holes" 2 "line 3: NUL byte at byte offset 104" 50 5 -- "$KVPLAN" sim $M --kv-budget 8GiB --no-timing --workload "$TMP/holes.jsonl"
rm -f "$TMP"/sparse-* "$TMP/holes.jsonl"
printf '{"arrival": 0, "prompt_len": 100, "output_len": 10}\r\n\r\n  \n{"arrival": 0, "prompt_len": 50, "output_len": 5}' >"$TMP/crlf.jsonl"
bound "crlf-blank-no-final-newline" 0 "" 50 5 -- "$KVPLAN" sim $M --kv-budget 8GiB --no-timing --workload "$TMP/crlf.jsonl"
printf '{"arrival": 0, "prompt_len": 100, "output_len": 10}\n\n{"arrival": 0, "prompt_len": 0, "output_len": 5}\n' >"$TMP/line3.jsonl"
bound "error-line-counts-blank-lines" 2 "line 3" 50 5 -- "$KVPLAN" sim $M --kv-budget 8GiB --no-timing --workload "$TMP/line3.jsonl"
# A line split across the reader's 64 KiB chunks: still one request.
python3 - "$TMP/long.jsonl" <<'EOF'
import sys
ids = ", ".join(["7"] * 40000)
open(sys.argv[1], "w").write('{"arrival": 0, "output_len": 2, "prompt_tokens": [%s]}\n' % ids
                             + '{"arrival": 0, "prompt_len": 10, "output_len": 2}\n')
EOF
bound "line-across-chunks" 0 "" 200 10 -- "$KVPLAN" sim $M --kv-budget 8GiB --no-timing --max-model-len 65536 --workload "$TMP/long.jsonl"

# The largest legal cases: under 1 GiB and 10 s.
if [ "$sanitized" = 0 ]; then
    bound "legal-30M-blocks" 0 "" 1024 10 -- "$KVPLAN" sim $M --blocks 30000000 --no-timing --synthetic requests=10,$SYN
    bound "legal-1M-requests" 0 "" 1024 10 -- "$KVPLAN" sim $M --kv-budget 8GiB --no-timing --synthetic requests=1000000,prompt=fixed:16,output=fixed:1
    python3 - "$TMP/big.jsonl" <<'EOF'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(300000):
        f.write('{"arrival": %d, "prompt_len": 100, "output_len": 4, "prefix_id": "p%d", "prefix_len": 32}\n' % (i // 100, i % 50))
EOF
    bound "legal-300k-line-file" 0 "" 1024 10 -- "$KVPLAN" sim $M --kv-budget 8GiB --no-timing --workload "$TMP/big.jsonl"
fi
echo "sim bounds: $cases cases, $fails failures"
[ "$fails" -eq 0 ]
