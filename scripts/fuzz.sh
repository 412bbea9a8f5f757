#!/usr/bin/env bash
# Build the libFuzzer harnesses (clang) and run each for N seconds (default 20)
# on a corpus seeded from the real inputs. Usage: scripts/fuzz.sh [SECONDS]
# A long campaign: scripts/fuzz.sh 600
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-20}
CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DKVP_FUZZ=ON -DKVP_TESTS=OFF \
  -DKVP_BENCH=OFF >/dev/null
cmake --build build-fuzz -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
for h in build-fuzz/tests/fuzz/fuzz_*; do
  [ -x "$h" ] || continue
  name=$(basename "$h")
  corpus=build-fuzz/corpus/$name
  mkdir -p "$corpus"
  seeds=tests/fuzz/seeds/${name#fuzz_}
  [ -d "$seeds" ] && cp -n "$seeds"/* "$corpus"/ 2>/dev/null || true
  echo "-- $name for ${secs}s"
  "$h" -max_total_time="$secs" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
       -print_final_stats=1 "$corpus" 2>&1 | grep -E "^(stat::number_of_executed_units|stat::new_units_added|#[0-9]+ *DONE|==[0-9]+==ERROR)" || true
done
