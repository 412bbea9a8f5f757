# cases.bash — sourced by the tests/cli scripts that count cases and failures
# (not a test itself: tests/CMakeLists.txt runs tests/cli/*.sh only).
# Gives $TMP (removed on exit), $fails, $cases and fail MESSAGE.
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
cases=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
