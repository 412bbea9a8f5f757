#!/usr/bin/env bash
# probe_gpus.sh KVPLAN SRCDIR — `kvplan gpus` on whatever machine runs the
# tests: with a GPU it lists it (exit 0), without one it says why (exit 1);
# never a crash. `--json` always parses; `--catalog --json` has every part
# issue 5 names.
set -u
KVPLAN=$1
fail() { echo "FAIL: $*" >&2; exit 1; }

out=$("$KVPLAN" gpus); rc=$?
case $rc in
  0) grep -q '^gpu ' <<<"$out" || fail "exit 0 without a device table: $out" ;;
  1) grep -q '^no GPU found' <<<"$out" || fail "exit 1 without 'no GPU found': $out"
     grep -q 'NVIDIA' <<<"$out" || fail "no word about the NVIDIA driver: $out" ;;
  *) fail "kvplan gpus exited $rc" ;;
esac

json=$("$KVPLAN" gpus --json); rc=$?
[ $rc -le 1 ] || fail "kvplan gpus --json exited $rc"
python3 - "$json" <<'PY' || fail "gpus --json: bad document"
import json, sys
d = json.loads(sys.argv[1])
assert isinstance(d["devices"], list) and isinstance(d["notes"], list)
for g in d["devices"]:
    assert g["total_bytes"] > 0 and g["free_bytes"] <= g["total_bytes"]
if not d["devices"]:
    assert d["notes"], "no device and no note"
PY

cat_json=$("$KVPLAN" gpus --catalog --json) || fail "gpus --catalog --json failed"
python3 - "$cat_json" <<'PY' || fail "gpus --catalog --json: a part is missing"
import json, sys
d = json.loads(sys.argv[1])
names = " ".join(g["name"] for g in d["gpus"])
for part in ["A100 SXM 40GB", "A100 SXM 80GB", "H100 SXM", "H100 PCIe", "H100 NVL", "H200",
             "H20 ", "B200", "B300", "GB200", "GB300", "GH200", "L4 ", "L40S", "A10G",
             "RTX 3090", "RTX 4090", "RTX 5090", "RTX 6000 Ada", "MI300X", "MI325X", "MI355X"]:
    assert part in names + " ", part
for g in d["gpus"]:
    assert g["total_basis"] in ("cuda", "hip", "nvml", "derived"), g
    assert g["source"].startswith("total: "), g
PY

"$KVPLAN" gpus --help | grep -q -- '--catalog' || fail "--help does not mention --catalog"
"$KVPLAN" gpus --bogus >/dev/null 2>&1; [ $? -eq 2 ] || fail "unknown option did not exit 2"
echo ok
