#!/usr/bin/env bash
# answers_render.sh KVPLAN SRCDIR — charts kvplan writes are well-formed SVG
# with the expected elements, and render in headless Chromium to a PNG that
# is not blank (the series colours are really drawn).
# Chromium: Debian's `chromium` package; installed here with apt-get when
# missing and running as root; when it cannot be had, the render part prints
# SKIP and the structural checks still run.
set -euo pipefail
KVPLAN=$1
SRC=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# 1. A sweep chart and a fit memory bar.
"$KVPLAN" sweep llama-3.1-8b --kv-budget 40GiB --over max-seq-len=4k..128k \
    --over kv-dtype=bf16,fp8 --svg "$tmp/sweep.svg" --html "$tmp/sweep.html" > /dev/null
"$KVPLAN" fit llama-3.1-8b --gpu h100 --concurrency 16 --svg "$tmp/bar.svg" > /dev/null
ls "$tmp" | grep -q tmp && fail "a temporary file was left behind: $(ls "$tmp")"

# 2. Structure (python3's XML parser is strict: any unbalanced tag or bare & fails).
python3 - "$tmp" <<'EOF' || fail "structural check"
import sys, xml.etree.ElementTree as ET
d = sys.argv[1]
NS = "{http://www.w3.org/2000/svg}"
def texts(root):
    return ["".join(t.itertext()) for t in root.iter(NS + "text")]
root = ET.parse(d + "/sweep.svg").getroot()
assert root.tag == NS + "svg", root.tag
assert len(list(root.iter(NS + "polyline"))) == 2, "one line per KV dtype"
t = texts(root)
for want in ["4k", "128k", "bf16", "fp8", "max_seq_len (tokens per sequence)",
             "max concurrent sequences (KV cache)"]:
    assert want in t, (want, t)
bar = ET.parse(d + "/bar.svg").getroot()
t = texts(bar)
assert any(x.startswith("weights ") and "GiB" in x for x in t), t
assert any(x.startswith("KV pool 'full'") and "GiB" in x for x in t), t
assert "GiB" in t, "axis unit"
html = open(d + "/sweep.html").read()
assert html.startswith("<!DOCTYPE html>")
assert "<svg" in html and "<table>" in html
assert "<script" not in html and "src=" not in html and "href=" not in html
print("structure ok")
EOF

# 3. Render in headless Chromium.
chromium_bin=""
for c in chromium chromium-browser; do
    if command -v "$c" > /dev/null 2>&1; then chromium_bin=$c; break; fi
done
if [ -z "$chromium_bin" ] && [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium > "$tmp/apt.log" 2>&1 || true
    command -v chromium > /dev/null 2>&1 && chromium_bin=chromium
fi
if [ -z "$chromium_bin" ]; then
    echo "SKIP: chromium is not installed and cannot be installed here (structure checked)"
    exit 0
fi
render() {
    timeout 120 "$chromium_bin" --headless --no-sandbox --disable-gpu --disable-quic \
        --no-first-run --disable-background-networking --disable-component-update \
        --disable-sync --user-data-dir="$(mktemp -d -p "$tmp")" --screenshot="$2" \
        --window-size=800,600 "file://$1" > "$tmp/chromium.log" 2>&1 || true
    [ -s "$2" ] || fail "chromium wrote no screenshot for $1: $(tail -3 "$tmp/chromium.log")"
}
render "$tmp/sweep.svg" "$tmp/sweep.png"
render "$tmp/bar.svg" "$tmp/bar.png"

# 4. Decode the PNGs (zlib + scanline filters, standard library only) and
#    check they are not blank and carry the charts' colours.
python3 - "$tmp/sweep.png" "$tmp/bar.png" <<'EOF' || fail "the rendered chart is blank"
import struct, sys, zlib
def decode(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and interlace == 0, (depth, ctype)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line); prev = line
    return [(r[i], r[i + 1], r[i + 2]) for r in rows for i in range(0, stride, bpp)]
def near(p, q, d=40): return sum(abs(x - y) for x, y in zip(p, q)) <= d
for path, colours in [(sys.argv[1], [(0x4e, 0x79, 0xa7), (0xe1, 0x57, 0x59)]),
                      (sys.argv[2], [(0x4e, 0x79, 0xa7), (0x2e, 0x7d, 0x32)])]:
    px = decode(path)
    ink = sum(1 for p in px if p != (255, 255, 255))
    share = ink / len(px)
    print(f"{path}: {len(px)} pixels, {share:.1%} not white")
    assert share > 0.01, "blank"
    for c in colours:
        hits = sum(1 for p in px if near(p, c))
        assert hits > 50, f"colour {c} drawn on only {hits} pixels"
print("render ok")
EOF
