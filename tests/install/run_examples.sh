#!/usr/bin/env bash
# Run the four examples/ programs found in folder $1 and compare their stdout
# with tests/install/example_NAME.expected (source tree $2). The figures are the
# hand-checked ones of the CLI goldens: Llama-3.1-8B costs 32 layers x 8 KV
# heads x (128 + 128) x 2 B = 131,072 B per token; a 40 GiB budget holds
# 42,949,672,960 / 131,072 = 327,680 tokens = 10 sequences of 32,768
# (tests/golden/compare_llama8b_budget.expected). options.c reads settings
# through the opaque kvp_options: --gpu-mem 80GiB = 80 x 1,073,741,824 =
# 85,899,345,920 bytes; --max-model-len (vLLM's spelling only) chooses vLLM,
# said in the one note; --gpu with --gpu-mem is refused naming both.
set -euo pipefail
bin=$1 src=$2
fail=0
for e in cost plan compare options; do
  if ! out=$("$bin/$e" 2>&1); then
    echo "FAIL: $bin/$e exited non-zero: $out"; fail=1; continue
  fi
  if ! diff -u "$src/tests/install/example_$e.expected" <(printf '%s\n' "$out"); then
    echo "FAIL: $bin/$e output differs"; fail=1
  fi
done
exit $fail
