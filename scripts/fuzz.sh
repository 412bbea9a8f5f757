#!/usr/bin/env bash
# Build the libFuzzer harnesses (clang, ASan + UBSan) and run each for SECONDS
# (default 20) on a corpus seeded from the real inputs (tests/fuzz/seeds/NAME/)
# and from the hostile corpus (tests/hostile/KIND/). Fails when a harness finds a
# crash, a leak, a timeout or an out-of-memory; the reproducer is kept under
# build-fuzz/artifacts/ (rerun: build-fuzz/tests/fuzz/fuzz_NAME FILE). Known
# reproducers that still fail are kept in tests/fuzz/repro/NAME/ (not run here).
#
# Usage: scripts/fuzz.sh [SECONDS] [HARNESS...]
#   scripts/fuzz.sh                  # CI: every harness, 20 s each
#   scripts/fuzz.sh 600 fuzz_config  # a long campaign of one harness
#   KVP_FUZZ_JOBS=8 scripts/fuzz.sh 3600   # long campaign, 8 parallel workers each
# KVP_FUZZ_SEED=N fixes libFuzzer's random seed (the CI run of scripts/test.sh
# does, so that CI replays the mutation sequence already run here instead of a
# new one each time; campaigns leave it unset for fresh sequences).
# Warnings are not errors here: clang rejects the GCC-only -Wno-format-truncation.
# The corpus grows in build-fuzz/corpus/NAME/ and is reused by later runs.
set -euo pipefail
shopt -s nullglob
cd "$(dirname "$0")/.."
secs=${1:-20}
shift || true
jobs=${KVP_FUZZ_JOBS:-1}
CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DKVP_FUZZ=ON -DKVP_TESTS=OFF -DKVP_WERROR=OFF \
  -DKVP_BENCH=OFF >/dev/null
cmake --build build-fuzz -j"$(nproc 2>/dev/null || echo 2)" >build-fuzz/build.log 2>&1 ||
  { tail -30 build-fuzz/build.log; exit 1; }

# Which hostile corpus seeds which harness.
# (fuzz_local reads two deployment bytes first: its seeds/local/ has the hostile files prefixed.)
declare -A hostile=([fuzz_config]=config [fuzz_gguf]=gguf
                    [fuzz_safetensors]=safetensors [fuzz_workload]=workload [fuzz_gpus]=gpus)
if (($#)); then harnesses=("$@"); else
  harnesses=()
  for h in build-fuzz/tests/fuzz/fuzz_*; do [ -x "$h" ] && harnesses+=("$(basename "$h")"); done
fi
mkdir -p build-fuzz/artifacts
par=()
((jobs > 1)) && par=(-jobs="$jobs" -workers="$jobs")
[ -n "${KVP_FUZZ_SEED:-}" ] && par+=(-seed="$KVP_FUZZ_SEED")
failed=()
printf '%-18s %12s %8s %8s %6s  %s\n' harness executions cov ft corpus result
for name in "${harnesses[@]}"; do
  h=build-fuzz/tests/fuzz/$name
  [ -x "$h" ] || { echo "no harness $name"; failed+=("$name"); continue; }
  corpus=build-fuzz/corpus/$name
  mkdir -p "$corpus"
  seeds=tests/fuzz/seeds/${name#fuzz_}
  [ -d "$seeds" ] && cp -n "$seeds"/* "$corpus"/ 2>/dev/null || true
  k=${hostile[$name]:-}
  [ -n "$k" ] && [ -d "tests/hostile/$k" ] && cp -n "tests/hostile/$k"/* "$corpus"/ 2>/dev/null || true
  log=build-fuzz/$name.log
  rc=0
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:abort_on_error=1 \
    "$h" -max_total_time="$secs" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 "${par[@]}" \
    -artifact_prefix=build-fuzz/artifacts/"$name"- "$corpus" >"$log" 2>&1 || rc=$?
  logs=("$log" fuzz-*.log)  # -jobs writes one fuzz-N.log per job
  execs=$(cat "${logs[@]}" | awk '/^stat::number_of_executed_units/ {s += $2} END {print s + 0}')
  last=$(cat "${logs[@]}" | grep -E '^#[0-9]+' | tail -1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  result=ok
  if [ "$rc" -ne 0 ]; then
    result="FOUND (exit $rc): $(cat "${logs[@]}" | grep -m1 -E '^==[0-9]+==ERROR|runtime error|ALARM|out-of-memory|deadly signal' || true)"
    failed+=("$name")
  fi
  printf '%-18s %12s %8s %8s %6s  %s\n' "$name" "$execs" "${cov:-?}" "${ft:-?}" \
    "$(find "$corpus" -type f | wc -l)" "$result"
  rm -f fuzz-*.log
done
if ((${#failed[@]})); then
  echo "fuzz: findings in ${failed[*]} (logs build-fuzz/NAME.log, reproducers build-fuzz/artifacts/)"
  exit 1
fi
