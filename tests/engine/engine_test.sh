#!/usr/bin/env bash
# engine_test.sh KVPLAN SRC_DIR WORK_DIR — the `engine` test: kvplan's llama.cpp
# policy against the real llama.cpp of node-llama-cpp@3.21.1 (pinned exactly).
# Installs the package into a cache folder when missing (npm registry only),
# takes llama.h / ggml.h from the same release's source bundle, builds the probe
# against the prebuilt libllama and runs tests/engine/engine_test.py. Never
# skips: without the package the test fails and says why.
set -euo pipefail
kvplan=$1 src=$2 work=$3
pkg=node-llama-cpp@3.21.1
cache=${KVP_ENGINE_CACHE:-${HOME:-/tmp}/.cache/kvplan-engine}
lib=$cache/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64
bundle=$cache/node_modules/node-llama-cpp/llama/gitRelease.bundle
fail() { echo "engine test FAILED: $*" >&2; exit 1; }

[ "$(uname -m)" = x86_64 ] || fail "the prebuilt libllama of $pkg is for linux-x64; this is $(uname -m)"
have_version=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' \
  "$cache/node_modules/node-llama-cpp/package.json" 2>/dev/null || true)
if [ ! -f "$lib/libllama.v0.4.0.so" ] || [ "$have_version" != 3.21.1 ]; then
  command -v npm >/dev/null || fail "npm is not installed (scripts/deps.sh installs it); cannot install $pkg"
  mkdir -p "$cache"
  echo "engine: installing $pkg into $cache"
  (cd "$cache" && npm i -E --ignore-scripts --omit=optional --no-audit --no-fund \
     node-llama-cpp@3.21.1 @node-llama-cpp/linux-x64@3.21.1 >"$cache/npm.log" 2>&1) ||
    fail "npm could not install $pkg (see $cache/npm.log): $(tail -3 "$cache/npm.log" | tr '\n' ' ')"
  [ -f "$lib/libllama.v0.4.0.so" ] || fail "$pkg installed but $lib/libllama.v0.4.0.so is missing"
fi
if [ ! -f "$cache/llama-src/include/llama.h" ]; then
  rm -rf "$cache/llama-src"
  git clone -q "$bundle" "$cache/llama-src" 2>"$cache/git.log" ||
    fail "cannot unbundle $bundle: $(tail -2 "$cache/git.log")"
fi
mkdir -p "$work"
cc -std=c11 -O1 -Wall -Wextra -Werror -o "$work/probe" "$src/tests/engine/probe.c" \
  -I"$cache/llama-src/include" -I"$cache/llama-src/ggml/include" \
  "$lib/libllama.v0.4.0.so" "$lib/libggml.v0.4.0.so" "$lib/libggml-base.so" \
  -Wl,-rpath,"$lib" || fail "cannot build the probe against $lib"
export KVP_LLAMA_LIB_DIR=$lib
version=$("$work/probe" version | sed -n 's/^VERSION //p')
[ -n "$version" ] || fail "the probe cannot report the llama.cpp version"
echo "engine: llama.cpp $version ($pkg)"
exec python3 "$src/tests/engine/engine_test.py" "$work/probe" "$kvplan" "$work/models" "$version"
