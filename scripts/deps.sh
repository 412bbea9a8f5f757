#!/usr/bin/env bash
# Install the Debian 12 packages kvplan needs, only those missing (run as root).
# valgrind: memcheck over a sample of the hostile corpus (tests/cli/hostile_corpus.sh);
# binutils: readelf for the hardening check (tests/cli/hostile_hardening.sh);
# python3: the reference-case and CLI checks; python3-jsonschema: every --json document
# against docs/schema/ (tests/cli/json_schemas.py); chromium: the chart render test and
# the kvplan serve page test; curl: the README's kvplan serve example;
# git + npm: the llama.cpp engine test (tests/engine/engine_test.sh installs the pinned
# node-llama-cpp from the npm registry; npm only when no npm is on PATH already).
set -euo pipefail
# libmicrohttpd-dev: the HTTP server of `kvplan serve` (src/serve/).
# python3-venv python3-setuptools python3-wheel: `pip install .` in a fresh venv
# (tests/install/pip_venv.sh; setuptools' build backend needs wheel's
# bdist_wheel, which a venv sees through --system-site-packages); dpkg-dev:
# dpkg-shlibdeps and dpkg-architecture for `cpack -G DEB` (tests/install/deb.sh).
# Usage: deps.sh [build|test]  (build: what compiling kvplan needs; test, the default: all)
pkgs=(build-essential cmake pkg-config libjansson-dev libyaml-dev libcmocka-dev libmicrohttpd-dev)
if [ "${1:-test}" != build ]; then
  pkgs+=(clang libclang-rt-14-dev valgrind binutils python3 python3-jsonschema chromium git curl
         python3-venv python3-setuptools python3-wheel dpkg-dev)
  command -v npm >/dev/null 2>&1 || pkgs+=(npm)
fi
need=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if ((${#need[@]})); then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need[@]}" >/dev/null
fi
