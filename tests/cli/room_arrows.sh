#!/usr/bin/env bash
# room_arrows.sh KVPLAN SRCDIR — issue 12 item 3: every #include of a room
# (src/<room>/) and of a public header (include/kvplan/) follows an arrow the
# room table in CMakeLists.txt declares (kvp_room(NAME USES ...)), the table
# has no cycle, and docs/ARCHITECTURE.md lists the same arrows. The compiler
# enforces the internal headers (each room gets only its own include path and
# those of the rooms it uses); this test also covers the public headers, which
# all live in one folder and so cannot be fenced by include paths.
set -u
S="$2"
fail() { echo "FAIL: $*"; bad=1; }
bad=0
cd "$S" || { echo "FAIL: no source dir $S"; exit 1; }

# The declared table: "room: used rooms" from kvp_room(...) lines.
declare -A uses
while read -r line; do
    body=${line#kvp_room(}
    body=${body%%)*}
    read -r -a w <<<"$body"
    room=${w[0]}
    rest=" "
    [ "${w[1]:-}" = USES ] && rest=" ${w[*]:2} "
    uses[$room]=$rest
done < <(grep -E '^[[:space:]]*kvp_room\(' CMakeLists.txt | sed 's/^[[:space:]]*//')
[ "${#uses[@]}" -ge 10 ] || { echo "FAIL: room table not found in CMakeLists.txt"; exit 1; }

# Which room each public header belongs to (the room that implements it).
declare -A owner=(
    [error.h]=util [types.h]=util [units.h]=util [version.h]=util [engines.def]=util
    [model.h]=model [safetensors.h]=model
    [cost.h]=cost
    [memory.h]=estimate [estimate.h]=estimate
    [plan.h]=plan [deploy.h]=pipeline
    [policy.h]=engines [startup.h]=engines
    [fit.h]=fit [sweep.h]=fit [options.h]=options [report.h]=report [render.h]=report
    [gpu.h]=probe [probe.h]=probe [local.h]=local [pool.h]=pool [sim.h]=sim
    [json.h]=bind [kvplan.h]=cli
)
for h in include/kvplan/*.h include/kvplan/*.h.in; do
    b=$(basename "$h" .in)
    [ -n "${owner[$b]:-}" ] || fail "$h has no room in room_arrows.sh's header table"
done

# A use is allowed when it is the room itself or declared.
allowed() { [ "$1" = "$2" ] || [[ "${uses[$1]:-}" == *" $2 "* ]]; }

check_file() { # FILE ROOM
    local f=$1 room=$2 inc target
    while read -r inc; do
        case $inc in
        kvplan/*) target=${owner[${inc#kvplan/}]:-} ;;
        */*) target=${inc%%/*} ;;
        *)
            if [ -e "$(dirname "$f")/$inc" ]; then continue; fi
            target=$(for d in src/*/ src/*/*/; do [ -e "$d$inc" ] && echo "${d#src/}"; done | head -1)
            target=${target%%/*}
            ;;
        esac
        [ -n "$target" ] || { fail "$f includes \"$inc\", which no room owns"; continue; }
        allowed "$room" "$target" || fail "$f (room $room) includes \"$inc\" of room $target: declare it or remove the arrow"
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
}

for d in src/*/; do
    room=$(basename "$d")
    [ -n "${uses[$room]+x}" ] || { fail "src/$room/ is not in the room table"; continue; }
    for f in "$d"*.c "$d"*.h "$d"*/*.c "$d"*/*.h; do [ -e "$f" ] && check_file "$f" "$room"; done
done
for h in include/kvplan/*.h; do check_file "$h" "${owner[$(basename "$h")]}"; done

# Public headers never expose jansson (a private dependency of the library).
if grep -lnE "#[[:space:]]*include[[:space:]]*[<\"]jansson" include/kvplan/*.h; then fail "a public header includes jansson"; fi

# No cycle: repeatedly remove rooms whose uses are all removed.
declare -A left
for r in "${!uses[@]}"; do left[$r]=1; done
progress=1
while [ "$progress" = 1 ]; do
    progress=0
    for r in "${!left[@]}"; do
        ok=1
        for u in ${uses[$r]}; do [ -n "${left[$u]:-}" ] && ok=0; done
        if [ "$ok" = 1 ]; then unset "left[$r]"; progress=1; fi
    done
done
[ "${#left[@]}" = 0 ] || fail "the room table has a cycle among: ${!left[*]}"

# docs/ARCHITECTURE.md states the same arrows: a list item "- `room` uses: a, b."
# (continuation lines indented), the arrows ending at the first full stop.
doc=docs/ARCHITECTURE.md
[ -f "$doc" ] || fail "no $doc"
items=$(awk '/^- `/{if (cur) print cur; cur=$0; next} /^  [^ ]/ && cur {sub(/^ +/, " "); cur=cur $0; next} {if (cur) print cur; cur=""} END{if (cur) print cur}' "$doc")
for r in "${!uses[@]}"; do
    want=$(echo ${uses[$r]} | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//')
    line=$(printf '%s\n' "$items" | grep -E "^- \`$r\` uses:" | head -1)
    [ -n "$line" ] || { fail "$doc has no line for room $r"; continue; }
    list=${line#*uses:}
    list=${list%%.*}
    got=$(echo "$list" | tr ',' ' ' | tr ' ' '\n' | grep -v '^$' | grep -v '^nothing$' | sort | tr '\n' ' ' | sed 's/ $//')
    [ "$want" = "$got" ] || fail "$doc says $r uses '$got', CMakeLists.txt says '$want'"
done

[ "$bad" = 0 ] && echo "room arrows: ${#uses[@]} rooms, every include follows a declared arrow"
exit "$bad"
