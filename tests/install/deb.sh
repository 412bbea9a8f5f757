#!/usr/bin/env bash
# The Debian package (issue 30), as README.md's "Install the .deb" builds it:
#   cmake -S . -B TREE -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr
#   cmake --build TREE && (cd TREE && cpack -G DEB)
# then checks
#  1. the file is kvplan_VERSION_ARCH.deb and holds the library (shared and
#     static), the headers, kvplan.pc, the CMake package, the CLI, the man page,
#     the bash completion and the Python package (with its link to the library);
#  2. its Depends were computed by dpkg-shlibdeps (libc6, libjansson4,
#     libyaml-0-2 for the library, libmicrohttpd12 for the CLI's server), and
#     a shlibs file names libkvplan.so.1;
#  3. unpacked into a throw-away root with `dpkg -x` (nothing is installed on
#     this machine): the CLI runs; examples/ compiled against the root's
#     headers through the root's kvplan.pc and linked to its libkvplan.so run
#     and print the expected output, loading the root's library; and
#     `import kvplan` from the root's dist-packages loads the root's library
#     and plans.
# $1 = source tree, $2 = the tree to configure and build the package in
# (kept between runs: a rebuild is incremental), $3 = compiler launcher or "".
set -euo pipefail
src=$(cd "$1" && pwd) tree=$2 launcher=${3:-}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
unset LD_LIBRARY_PATH KVPLAN_LIBRARY PYTHONPATH
fail=0
cfg=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr -DKVP_TESTS=OFF -DKVP_BENCH=OFF
     -DKVP_EXAMPLES=OFF)
if [ -n "$launcher" ]; then
  cfg+=(-DCMAKE_C_COMPILER_LAUNCHER="$launcher")
  export CCACHE_BASEDIR=$src
fi
rm -f "$tree"/kvplan_*.deb
if ! { cmake -S "$src" -B "$tree" "${cfg[@]}" && cmake --build "$tree" -j"$(nproc)" &&
       (cd "$tree" && cpack -G DEB); } >"$tmp/build.log" 2>&1; then
  echo "FAIL: building the .deb:"; tail -n 30 "$tmp/build.log"; exit 1
fi

version=$(sed -n 's/^project(kvplan VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
arch=$(dpkg --print-architecture) multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
deb=$tree/kvplan_${version}_${arch}.deb
[ -f "$deb" ] || { echo "FAIL: no $(basename "$deb"): $(ls "$tree"/*.deb 2>&1)"; exit 1; }

# 1. Contents.
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|; s|/$||' >"$tmp/contents"
lib=/usr/lib/$multiarch
for f in "$lib/libkvplan.so.$version" "$lib/libkvplan.so.1" "$lib/libkvplan.so" "$lib/libkvplan.a" \
         /usr/include/kvplan/kvplan.h /usr/include/kvplan/json.h /usr/include/kvplan/version.h \
         "$lib/pkgconfig/kvplan.pc" "$lib/cmake/kvplan/kvplanConfig.cmake" \
         "$lib/cmake/kvplan/kvplanConfigVersion.cmake" "$lib/cmake/kvplan/kvplanTargets.cmake" \
         /usr/bin/kvplan /usr/share/man/man1/kvplan.1 /usr/share/bash-completion/completions/kvplan \
         /usr/lib/python3/dist-packages/kvplan/__init__.py \
         /usr/lib/python3/dist-packages/kvplan/libkvplan.so.1; do
  grep -qxF "$f" "$tmp/contents" || { echo "FAIL: the .deb lacks $f"; fail=1; }
done
grep -q '__pycache__\|/build' "$tmp/contents" && { echo "FAIL: the .deb holds build leftovers"; fail=1; }

# 2. Control fields: computed dependencies, the shlibs file.
[ "$(dpkg-deb -f "$deb" Package)" = kvplan ] && [ "$(dpkg-deb -f "$deb" Version)" = "$version" ] &&
  [ "$(dpkg-deb -f "$deb" Architecture)" = "$arch" ] ||
  { echo "FAIL: control: $(dpkg-deb -f "$deb" Package Version Architecture | tr '\n' ' ')"; fail=1; }
depends=$(dpkg-deb -f "$deb" Depends)
for d in libc6 libjansson4 libyaml-0-2 libmicrohttpd12; do
  [[ ", $depends," == *", $d "* || ", $depends," == *", $d,"* ]] ||
    { echo "FAIL: Depends lacks $d (computed by dpkg-shlibdeps): $depends"; fail=1; }
done
mkdir "$tmp/control"
dpkg-deb -e "$deb" "$tmp/control"
grep -qE "^libkvplan 1 kvplan( |$)" "$tmp/control/shlibs" 2>/dev/null ||
  { echo "FAIL: no shlibs line 'libkvplan 1 kvplan': $(cat "$tmp/control/shlibs" 2>&1)"; fail=1; }

# 3. A throw-away root.
root=$tmp/root
dpkg -x "$deb" "$root"
[ "$("$root/usr/bin/kvplan" --version)" = "kvplan $version" ] ||
  { echo "FAIL: the root's kvplan --version"; fail=1; }
mkdir "$tmp/ex"
export PKG_CONFIG_PATH=$root$lib/pkgconfig
[ "$(pkg-config --variable=includedir kvplan)" -ef "$root/usr/include" ] ||
  { echo "FAIL: the root's kvplan.pc does not point into the root"; fail=1; }
for e in cost plan compare options; do
  # shellcheck disable=SC2046
  cc -std=c11 -Wall -Wextra -Werror "$src/examples/$e.c" -o "$tmp/ex/$e" \
     $(pkg-config --cflags --libs kvplan) -Wl,-rpath,"$root$lib" ||
    { echo "FAIL: examples/$e.c does not build against the root"; fail=1; }
done
grep -q "libkvplan.so.1 => $root$lib/libkvplan.so.1" <<<"$(ldd "$tmp/ex/cost")" ||
  { echo "FAIL: the example does not load the root's library: $(ldd "$tmp/ex/cost" | grep kvplan)"; fail=1; }
bash "$src/tests/install/run_examples.sh" "$tmp/ex" "$src" || fail=1
# Llama-3.1-8B, fp8, TP 2: 32 layers x 4 KV heads x (128 + 128) x 1 B = 32,768 B per token.
if ! out=$(cd "$tmp" && PYTHONPATH=$root/usr/lib/python3/dist-packages PYTHONDONTWRITEBYTECODE=1 \
             python3 -c 'import os, sys, kvplan
p = os.path.realpath(kvplan.library_path())
assert p.startswith(sys.argv[1]), p
print(kvplan.cost("llama-3.1-8b", tp=2, kv_dtype="fp8")["bytes_per_token"])' "$root" 2>&1); then
  echo "FAIL: import kvplan from the root: $out"; fail=1
elif [ "$out" != 32768 ]; then
  echo "FAIL: kvplan.cost from the root printed '$out', expected 32768"; fail=1
fi
[ $fail = 0 ] && echo "ok: $(basename "$deb"): contents, Depends: $depends; dpkg -x root: C examples and import kvplan run"
exit $fail
