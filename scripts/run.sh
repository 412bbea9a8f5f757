#!/usr/bin/env bash
# Build kvplan if needed (installing missing Debian packages first), then run it.
# With no arguments it runs the main job on an embedded default.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh build
if [ ! -x build/kvplan ] || [ -n "$(find src include data CMakeLists.txt -newer build/kvplan -print -quit 2>/dev/null)" ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKVP_TESTS=OFF -DKVP_BENCH=OFF >/dev/null
  cmake --build build -j"$(nproc 2>/dev/null || echo 2)" --target kvplan_cli >/dev/null
fi
if [ $# -eq 0 ]; then
  set -- plan llama-3.1-70b --gpu h100 --gpus 2 --tp 2 --kv-dtype fp8 --max-seq-len 32768 \
    --max-batch-size 512
fi
exec ./build/kvplan "$@"
