#!/usr/bin/env bash
# Build kvplan and run every test: a release build with warnings as errors, then
# the same suite under AddressSanitizer + UndefinedBehaviorSanitizer, then a
# bounded libFuzzer run of each harness. Installs missing Debian packages first.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
jobs=$(nproc 2>/dev/null || echo 2)

echo "== release build (-Werror)"
cmake -S . -B build-ci -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKVP_WERROR=ON >/dev/null
cmake --build build-ci -j"$jobs"
ctest --test-dir build-ci --output-on-failure -j"$jobs"

echo "== ASan + UBSan build"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DKVP_SANITIZE=ON -DKVP_BENCH=OFF >/dev/null
cmake --build build-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs"

echo "== fuzz (bounded)"
bash scripts/fuzz.sh "${KVP_FUZZ_SECONDS:-20}"
