#!/usr/bin/env bash
# The progress line of sim and sweep: on a terminal (a pty made by script(1))
# once the run has lasted the delay (KVPLAN_PROGRESS_DELAY=0 here; 1 s by
# default), never with --quiet, never when stderr is not a terminal, and not
# for a run shorter than the default second. The line is erased at the end.
set -euo pipefail
kvplan=$1
command -v script >/dev/null || { echo "skip: no script(1)"; exit 0; }
fail=0
sim=(sim llama-3.1-8b --kv-budget 8GiB --synthetic requests=20000,prompt=fixed:1000,output=fixed:200 --no-timing)
sweep=(sweep llama-3.1-8b --kv-budget 40GiB --over max-seq-len=1k..64k --over kv-dtype=bf16,fp8)
pty() { KVPLAN_PROGRESS_DELAY=${DELAY-0} script -qec "$*" /dev/null; }
q() { printf '%q ' "$@"; }

out=$(pty "$(q "$kvplan" "${sim[@]}")")
grep -q 'kvplan sim: *[0-9]*% ([0-9]* of 20000 requests' <<<"$out" || { echo "FAIL: no sim progress on a terminal"; fail=1; }
# Erased: the last progress drawing is followed by the erase sequence before the report.
# Erased: an erase sequence not followed by a redraw.
grep -qP '\r\e\[K(?!kvplan)' <<<"$out" || { echo "FAIL: sim progress line not erased"; fail=1; }
out=$(pty "$(q "$kvplan" "${sim[@]}" --quiet)")
grep -q 'kvplan sim:' <<<"$out" && { echo "FAIL: sim progress with --quiet"; fail=1; }
err=$(KVPLAN_PROGRESS_DELAY=0 "$kvplan" "${sim[@]}" 2>&1 >/dev/null)
grep -q 'kvplan sim:' <<<"$err" && { echo "FAIL: sim progress when stderr is a pipe"; fail=1; }
# The same report with and without the line (it goes to stderr only).
[ "$("$kvplan" "${sim[@]}" 2>/dev/null)" = "$("$kvplan" "${sim[@]}" --quiet 2>/dev/null)" ] ||
  { echo "FAIL: --quiet changed sim's report"; fail=1; }

out=$(pty "$(q "$kvplan" "${sweep[@]}")")
grep -q 'kvplan sweep: *[0-9]*% ([0-9]* of 14 plans' <<<"$out" || { echo "FAIL: no sweep progress on a terminal"; fail=1; }
out=$(pty "$(q "$kvplan" "${sweep[@]}" --quiet)")
grep -q 'kvplan sweep:' <<<"$out" && { echo "FAIL: sweep progress with --quiet"; fail=1; }
# A run well under the default second shows nothing.
out=$(DELAY= pty "$(q "$kvplan" "${sweep[@]}")")
grep -q 'kvplan sweep:' <<<"$out" && { echo "FAIL: sweep progress before one second"; fail=1; }
[ $fail = 0 ] && echo "ok: progress lines"
exit $fail
