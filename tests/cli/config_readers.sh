#!/usr/bin/env bash
# config_readers.sh KVPLAN SRCDIR — issue 12: src/model/ is the only reader of a
# model's text (config.json, GGUF metadata, geometry JSON). Outside it, jansson
# parses only the inputs that are not model text, each named here; a new parse
# call anywhere else, or the removed kvp_model_source_text, fails this test.
set -u
S="$2"
fail() { echo "FAIL: $*"; exit 1; }
cd "$S" || fail "no source dir $S"

# Files outside src/model/ that may parse JSON, and what they parse.
allowed="
src/probe/gpu_catalog.c   GPU catalogue (--gpu-catalog, data/gpus.json)
src/sim/workload.c        workload files of kvplan sim
src/local/decl_parse.c    model-local cache declarations
src/local/collect.c       model-local cache declarations (names and aliases)
src/bind/json_call.c      the request object of kvp_json_call (options, not a model)
src/engines/accuracy.c     the engines' records, data/accuracy.json (scripts/accuracy.py)
src/bind/why_call.c       kvplan why: the plan and fit documents its own calls answered
src/bind/why_record.c     kvplan why --record: the why document (kvplan's own)
src/report/text_why.c     kvplan why: the why document, rendered as a table
"
calls=$(grep -rnE 'json_load(s|b|f|fd|_file|_callback)?[[:space:]]*\(' src include | grep -v '^src/model/')
while IFS= read -r hit; do
    [ -z "$hit" ] && continue
    file=${hit%%:*}
    printf '%s\n' "$allowed" | grep -q "^$file " || fail "JSON parsed outside src/model/: $hit"
done <<<"$calls"

left=$(grep -rn 'kvp_model_source_text\|source_text' src include python 2>/dev/null)
[ -z "$left" ] || fail "the config text is handed out again: $left"

# Inside src/model/, a model's text is parsed by one function (config_text.c,
# kvp__config_parse); the other parses what is not a model's text: the
# safetensors header and weight index (safetensors.c). (The reference case's
# {"file": .., "location": ..} check of json_input.c is gone with the shape.)
extra=$(grep -rnE 'json_load(s|b|f|fd|_file|_callback)?[[:space:]]*\(' src/model |
    grep -v '^src/model/config_text.c:\|^src/model/safetensors.c:' || true)
[ -z "$extra" ] || fail "a second config parse in src/model/ (use kvp__config_parse): $extra"
echo "ok"
