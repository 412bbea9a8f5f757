#!/usr/bin/env bash
# Build kvplan if needed (installing missing Debian packages first), then run it.
# With no arguments it runs the main job on an embedded default. The build is the
# CLI and the shared library (build/libkvplan.so.1), which the README's Python
# and C examples use: python/kvplan finds it in build/ with no variable set.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh build
stale() { [ ! -e "$1" ] || [ -n "$(find -H src include data CMakeLists.txt -newer "$1" -print -quit 2>/dev/null)" ]; }
if stale build/kvplan || stale build/libkvplan.so.1; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKVP_TESTS=OFF -DKVP_BENCH=OFF >/dev/null
  cmake --build build -j"$(nproc 2>/dev/null || echo 2)" --target kvplan_cli kvplan_shared >/dev/null
fi
if [ $# -eq 0 ]; then
  set -- plan llama-3.1-70b --gpu h100 --gpus 2 --tp 2 --kv-dtype fp8 --max-seq-len 32768 \
    --max-batch-size 512
fi
exec ./build/kvplan "$@"
