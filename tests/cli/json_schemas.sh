#!/bin/bash
# Every --json document (goldens and live runs of each command under every
# policy) validates against docs/schema/ (tests/cli/json_schemas.py).
set -euo pipefail
exec python3 "$2/tests/cli/json_schemas.py" "$1" "$2"
