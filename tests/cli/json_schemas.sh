#!/bin/bash
# Every --json document (goldens and live runs of each command under every
# policy) validates against docs/schema/ (tests/cli/json_schemas.py).
# python3-jsonschema (scripts/deps.sh) belongs to Debian's /usr/bin/python3; a
# python3 earlier on PATH (pyenv, a venv) may lack it, so take the first one
# that has it. None having it is a failure, never a skip (json_schemas.py).
set -euo pipefail
py=python3
for cand in python3 /usr/bin/python3; do
  if command -v "$cand" >/dev/null 2>&1 && "$cand" -c 'import jsonschema' 2>/dev/null; then
    py=$cand
    break
  fi
done
exec "$py" "$2/tests/cli/json_schemas.py" "$1" "$2"
