#!/usr/bin/env bash
# Install kvplan into a temporary prefix and use it as a user would:
#  1. the installed tree holds the libraries, headers (version.h included),
#     kvplan.pc, the CMake package, the CLI, man page and bash completion;
#  2. examples/ built with pkg-config (shared library), and with
#     find_package(kvplan) (shared, then static), each run and its output
#     compared (tests/install/run_examples.sh);
#  3. the Python package's unittest suite against the installed shared library.
# No consumer is run with LD_LIBRARY_PATH (it is unset for the whole script):
# kvplan.pc's Libs and the CMake package carry an RPATH to the installed
# libdir (issue 30), and the CMake examples are built with
# CMAKE_SKIP_BUILD_RPATH=ON so that only the package's RPATH can find it.
# $1 = build tree, $2 = source tree.
set -euo pipefail
build=$1 src=$2
unset LD_LIBRARY_PATH
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
fail=0
# (not the Python package's link to it)
libdir=$(dirname "$(find "$prefix" -name 'libkvplan.so.?' -not -path '*/python/*' | head -n1)")
for f in "$libdir/libkvplan.a" "$libdir/libkvplan.so" "$libdir/pkgconfig/kvplan.pc" \
         "$libdir/cmake/kvplan/kvplanConfig.cmake" "$libdir/cmake/kvplan/kvplanConfigVersion.cmake" \
         "$prefix/include/kvplan/kvplan.h" "$prefix/include/kvplan/version.h" "$prefix/bin/kvplan" \
         "$prefix/share/man/man1/kvplan.1" "$prefix/share/bash-completion/completions/kvplan" \
         "$prefix/share/kvplan/python/kvplan/__init__.py"; do
  [ -f "$f" ] || { echo "FAIL: not installed: ${f#$prefix/}"; fail=1; }
done
grep -qx "kvplan [0-9]*\.[0-9]*\.[0-9]*" <<<"$("$prefix/bin/kvplan" --version)" ||
  { echo "FAIL: installed kvplan --version"; fail=1; }

# pkg-config, from a prefix the build never knew (the .pc file is relocatable).
export PKG_CONFIG_PATH=$libdir/pkgconfig
[ "$(pkg-config --modversion kvplan)" = "$("$prefix/bin/kvplan" --version | cut -d' ' -f2)" ] ||
  { echo "FAIL: pkg-config --modversion"; fail=1; }
# The RPATH is the installed libdir (written from the .pc file's own folder).
pc_libs=$(pkg-config --libs kvplan) pc_libdir=$(pkg-config --variable=libdir kvplan)
[ "$(cd "$pc_libdir" && pwd -P)" = "$(cd "$libdir" && pwd -P)" ] && [[ " $pc_libs " == *" -Wl,-rpath,$pc_libdir "* ]] ||
  { echo "FAIL: pkg-config --libs kvplan has no RPATH to $libdir: $pc_libs"; fail=1; }
mkdir -p "$tmp/pc"
for e in cost plan compare options; do
  # shellcheck disable=SC2046
  cc -std=c11 -Wall -Wextra -Werror "$src/examples/$e.c" -o "$tmp/pc/$e" \
     $(pkg-config --cflags --libs kvplan) ||
    { echo "FAIL: $e does not build with pkg-config"; fail=1; }
done
bash "$src/tests/install/run_examples.sh" "$tmp/pc" "$src" || fail=1

# find_package(kvplan): the shared library, then the static one.
for kind in shared static; do
  static=OFF; [ $kind = static ] && static=ON
  if cmake -S "$src/examples" -B "$tmp/cm-$kind" -DCMAKE_PREFIX_PATH="$prefix" \
       -DCMAKE_SKIP_BUILD_RPATH=ON -DKVP_EXAMPLES_STATIC=$static >"$tmp/cm-$kind.log" 2>&1 &&
     cmake --build "$tmp/cm-$kind" >>"$tmp/cm-$kind.log" 2>&1; then
    bash "$src/tests/install/run_examples.sh" "$tmp/cm-$kind" "$src" || fail=1
  else
    echo "FAIL: examples do not build with find_package ($kind):"; tail -n 20 "$tmp/cm-$kind.log"; fail=1
  fi
done
# The shared examples find the library through the RPATH the CMake package
# gave them (CMake's own build RPATH is off), naming the installed libdir.
runpath=$(readelf -d "$tmp/cm-shared/cost" 2>/dev/null | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
[[ ":$runpath:" == *":$(cd "$libdir" && pwd -P):"* || ":$runpath:" == *":$libdir:"* ]] ||
  { echo "FAIL: find_package example's RUNPATH is '$runpath', not $libdir"; fail=1; }
if [ -f "$tmp/cm-static/cost" ] && grep -q 'NEEDED.*libkvplan' <<<"$(objdump -p "$tmp/cm-static/cost")"; then
  echo "FAIL: the static examples link libkvplan.so"; fail=1
fi

# Python, over the installed shared library (found next to the package).
if [ -d "$src/python/tests" ] && command -v python3 >/dev/null; then
  # No KVPLAN_LIBRARY: the package must find the library of its own prefix.
  PYTHONPATH=$prefix/share/kvplan/python KVPLAN_TEST_KVPLAN=$prefix/bin/kvplan \
    PYTHONDONTWRITEBYTECODE=1 python3 -c 'import kvplan, sys; p = kvplan.library_path()
sys.exit(0 if p.startswith(sys.argv[1]) else "loaded " + p)' "$prefix" || fail=1
  PYTHONPATH=$prefix/share/kvplan/python KVPLAN_TEST_KVPLAN=$prefix/bin/kvplan PYTHONDONTWRITEBYTECODE=1 \
    python3 -m unittest discover -s "$src/python/tests" -t "$src/python/tests" 2>"$tmp/py.log" ||
    { echo "FAIL: python tests:"; cat "$tmp/py.log"; fail=1; }
fi
[ $fail = 0 ] && echo "ok: installed, examples built with pkg-config and find_package, python tests pass"
exit $fail
