#!/usr/bin/env bash
# `pip install .` from a clean copy of the repository, offline, exactly as the
# README's Python section says (issue 30):
#   python3 -m venv .venv && .venv/bin/pip install --no-build-isolation .
# then, from another folder, with no KVPLAN_LIBRARY, PYTHONPATH or
# LD_LIBRARY_PATH: `import kvplan` loads the libkvplan.so.1 that the build put
# inside the installed package, and a cost and a plan give the hand-worked
# values. PIP_NO_INDEX=1 makes any attempt to reach a package index fail.
#
# The venv is a plain one: Debian 12's gets pip 23.0.1 and setuptools 66.1.1
# but not `wheel`, which setuptools < 70.1 needs to build a wheel; the build
# backend (python/backend/kvplan_build_backend.py) finds Debian's
# python3-wheel then. A second install into a --system-site-packages venv
# (where `wheel` is importable, and the shim does nothing) checks the other
# road.
# The Python is Debian's /usr/bin/python3 when there is one (the README's
# `python3` on Debian 12), else python3 on PATH.
# $1 = source tree, $2 = the compiler launcher of the calling build (ccache or
# empty: it is passed on to CMake through $CMAKE_C_COMPILER_LAUNCHER).
set -euo pipefail
src=$(cd "$1" && pwd) launcher=${2:-}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
py=python3; [ -x /usr/bin/python3 ] && py=/usr/bin/python3
fail=0

# A clean copy: the tracked files and the new ones git does not ignore (no
# build trees, no caches).
mkdir "$tmp/repo"
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  (cd "$src" && git ls-files -z --cached --others --exclude-standard |
     while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
     tar --null -T - -cf -) | tar -xf - -C "$tmp/repo"
else
  (cd "$src" && tar --exclude='./build*' --exclude=__pycache__ -cf - .) | tar -xf - -C "$tmp/repo"
fi
[ -f "$tmp/repo/pyproject.toml" ] && [ ! -e "$tmp/repo/build" ] ||
  { echo "FAIL: the copy of the repository lacks pyproject.toml or has a build/"; exit 1; }

export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1
unset KVPLAN_LIBRARY PYTHONPATH LD_LIBRARY_PATH PIP_INDEX_URL PIP_EXTRA_INDEX_URL
if [ -n "$launcher" ]; then
  # ccache hits from the calling build: paths under the copy are hashed relative.
  export CMAKE_C_COMPILER_LAUNCHER=$launcher CCACHE_BASEDIR=$tmp/repo
fi
if ! (cd "$tmp/repo" && "$py" -m venv .venv && .venv/bin/pip install --no-build-isolation .) \
     >"$tmp/pip.log" 2>&1; then
  echo "FAIL: pip install --no-build-isolation . in a fresh venv:"; tail -n 30 "$tmp/pip.log"; exit 1
fi
# The venv really lacks `wheel` (else the line above proved nothing about the shim).
if "$tmp/repo/.venv/bin/python" -c 'import wheel' 2>/dev/null; then
  echo "FAIL: the fresh venv imports wheel: the shim's road is not tested"; fail=1
fi

# From elsewhere: the installed package, not python/ of the copy.
mkdir "$tmp/elsewhere"
# Llama-3.1-8B: 32 layers x (8 KV heads / TP 2 = 4) x (128 K + 128 V) x 1 B (fp8)
# = 32,768 B per token per rank. A 40 GiB budget / 131,072 B per token (bf16,
# TP 1) = 327,680 tokens = 40 sequences of 8,192.
if ! out=$(cd "$tmp/elsewhere" && "$tmp/repo/.venv/bin/python" -c '
import importlib.metadata, os, sys, kvplan
site = sys.argv[1]
lib = kvplan.library_path()
assert lib == os.path.join(os.path.dirname(kvplan.__file__), "libkvplan.so.1"), lib
assert kvplan.__file__.startswith(site), kvplan.__file__
assert importlib.metadata.version("kvplan") == kvplan.version(), importlib.metadata.version("kvplan")
c = kvplan.cost("llama-3.1-8b", tp=2, kv_dtype="fp8")
p = kvplan.plan("llama-3.1-8b", kv_budget="40GiB", max_seq_len=8192)
print(c["bytes_per_token"], p["max_tokens"], p["max_sequences"]["count"])
' "$tmp/repo/.venv" 2>&1); then
  echo "FAIL: import kvplan from the venv: $out"; fail=1
elif [ "$out" != "32768 327680 40" ]; then
  echo "FAIL: kvplan from the venv printed '$out', expected '32768 327680 40'"; fail=1
fi
# The library is inside the installed package, a plain file (not a link out).
so=$(find "$tmp/repo/.venv" -path '*/site-packages/kvplan/libkvplan.so.1')
[ -n "$so" ] && [ -f "$so" ] && [ ! -L "$so" ] ||
  { echo "FAIL: no libkvplan.so.1 file inside the installed package"; fail=1; }
# The other road: a venv that sees Debian's wheel itself (the shim does nothing);
# the library is built already (build-python/ in the copy), so this is quick.
if ! (cd "$tmp/repo" && "$py" -m venv --system-site-packages .venv2 &&
      .venv2/bin/pip install --no-build-isolation .) >"$tmp/pip2.log" 2>&1; then
  echo "FAIL: pip install in a --system-site-packages venv:"; tail -n 30 "$tmp/pip2.log"; fail=1
elif ! out2=$(cd "$tmp/elsewhere" && "$tmp/repo/.venv2/bin/python" -c '
import kvplan; print(kvplan.cost("llama-3.1-8b", tp=2, kv_dtype="fp8")["bytes_per_token"])' 2>&1) ||
     [ "$out2" != 32768 ]; then
  echo "FAIL: kvplan from the --system-site-packages venv printed '$out2', expected 32768"; fail=1
fi
[ $fail = 0 ] && echo "ok: pip install --no-build-isolation . in a fresh venv, offline; import kvplan: $out"
exit $fail
