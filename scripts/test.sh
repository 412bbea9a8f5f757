#!/usr/bin/env bash
# Build kvplan and run every test: a release build with warnings as errors (its
# ctest includes the hardening check and valgrind memcheck over a sample of the
# hostile corpus), then the same suite under AddressSanitizer +
# UndefinedBehaviorSanitizer (the allocation-failure tests run there too), then
# the pool and sim tests with KVP_DEBUG=2 (full pool validation after every
# operation), the thread tests under ThreadSanitizer, then a bounded libFuzzer run of each
# harness. Installs missing Debian packages first. docs/hostile.md explains each
# stage. KVP_FUZZ_SECONDS sets the fuzzing time per harness (default 20),
# KVP_FUZZ_SEED its seed (default fixed; empty for a random one).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
t0=$SECONDS
stage() { echo "== $1 (at $((SECONDS - t0)) s)"; }

stage "release build (-Werror, hardened)"
cmake -S . -B build-ci -DCMAKE_BUILD_TYPE=Release -DKVP_WERROR=ON >/dev/null
cmake --build build-ci -j"$jobs"
ctest --test-dir build-ci --output-on-failure -j"$jobs"

stage "ASan + UBSan build"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DKVP_SANITIZE=ON -DKVP_BENCH=OFF >/dev/null
cmake --build build-asan -j"$jobs"
# The engine test (label engine, llama.cpp itself) ran in the release stage.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs" -LE engine

stage "KVP_DEBUG=2: pool and sim tests with the full pool validator after every operation"
# Debug build with kvp_pool_validate after each pool operation (docs/hostile.md).
cmake -S . -B build-debug2 -DCMAKE_BUILD_TYPE=Debug -DKVP_DEBUG_LEVEL=2 -DKVP_BENCH=OFF >/dev/null
pool_sim=()
for f in tests/unit/test_pool_*.c tests/unit/test_sim_*.c; do
  [ -e "$f" ] && pool_sim+=("$(basename "$f" .c)")
done
cmake --build build-debug2 -j"$jobs" --target "${pool_sim[@]}"
ctest --test-dir build-debug2 --output-on-failure -j"$jobs" -R '^test_(pool|sim)_'

stage "ThreadSanitizer: the thread tests"
# Only tests/unit/test_threads_*.c are built and run in this tree.
threads=()
for f in tests/unit/test_threads_*.c; do
  [ -e "$f" ] && threads+=("$(basename "$f" .c)")
done
if ((${#threads[@]})); then
  cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Debug -DKVP_TSAN=ON -DKVP_BENCH=OFF \
    -DKVP_WERROR=OFF >/dev/null
  cmake --build build-tsan -j"$jobs" --target "${threads[@]}"
  TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
    ctest --test-dir build-tsan --output-on-failure -j"$jobs" -R '^test_threads_'
fi

stage "fuzz (bounded)"
# A fixed seed: CI replays the sequence run before landing (KVP_FUZZ_SEED= for a fresh one).
KVP_FUZZ_SEED=${KVP_FUZZ_SEED-20261129} bash scripts/fuzz.sh "${KVP_FUZZ_SECONDS:-20}"
stage "done"
