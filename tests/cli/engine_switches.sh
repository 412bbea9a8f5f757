#!/usr/bin/env bash
# engine_switches.sh KVPLAN SRCDIR — issue 27 item 1: the pipeline, fit and the
# reports (and the binding) reach an engine only through its record (src/engines/engine_ops.h,
# "neutral" members), never by naming one. Counts the uses of
# KVP_ENGINE_<NAME> (one engine of kvplan/engines.def) in src/pipeline,
# src/fit, src/report and src/bind, file by file, and fails when a file has more than
# the exceptions below allow, or fewer (a stale exception: tighten the list).
set -u
S="$2"
cd "$S" || { echo "FAIL: no source dir $S"; exit 1; }
bad=0
fail() { echo "FAIL: $*"; bad=1; }

# FILE COUNT — why the engine is named there (each is the default engine, not
# a rule of one engine).
declare -A allowed=(
    [src/pipeline/deploy.c]=1   # kvp_deployment_default: the default engine (deploy.h)
    [src/fit/sweep_grid.c]=1    # a policy axis value that did not parse: the default engine
    [src/bind/sim_call.c]=1     # sim's default engine (vLLM's scheduler: `kvplan sim --help`)
)

names=$(sed -n 's/^KVP_ENGINE_X(\([A-Z0-9_]*\),.*/\1/p' include/kvplan/engines.def | paste -sd'|')
[ -n "$names" ] || { echo "FAIL: no engine in include/kvplan/engines.def"; exit 1; }
declare -A seen=()
for f in src/pipeline/*.[ch] src/fit/*.[ch] src/report/*.[ch] src/bind/*.[ch]; do
    [ -e "$f" ] || continue
    n=$(grep -Ec "KVP_ENGINE_($names)\\b" "$f")
    [ "$n" -gt 0 ] || continue
    seen[$f]=$n
    want=${allowed[$f]:-0}
    if [ "$n" -gt "$want" ]; then
        fail "$f names an engine $n time(s) (allowed $want): read the engine's record instead (src/engines/engine_ops.h)"
        grep -En "KVP_ENGINE_($names)\\b" "$f" | sed 's/^/    /'
    fi
done
for f in "${!allowed[@]}"; do
    [ "${seen[$f]:-0}" -eq "${allowed[$f]}" ] ||
        fail "$f: the exception allows ${allowed[$f]} use(s), the file has ${seen[$f]:-0}: update engine_switches.sh"
done
[ "$bad" = 0 ] || exit 1
echo "engine_switches ok"
