#!/usr/bin/env python3
# error_keys_scan.py SRC — prints every library error key that is a flag (tests/cli/error_keys.sh).
import os, re, sys
src = sys.argv[1]
# (function, index of the key argument)
CALLS = {"kvp__fail": 3, "kvp__vfail": 3, "not_planned_fmt": 2, "refuse": 2}
def args_of(text, start):
    """Top-level arguments of the call whose '(' is at text[start]."""
    depth, cur, out, i, instr = 0, [], [], start, None
    while i < len(text):
        c = text[i]
        if instr:
            cur.append(c)
            if c == "\\":
                cur.append(text[i + 1]); i += 2; continue
            if c == instr: instr = None
        elif c in "\"'":
            instr = c; cur.append(c)
        elif c == "(":
            depth += 1
            if depth > 1: cur.append(c)
        elif c == ")":
            depth -= 1
            if depth == 0:
                out.append("".join(cur).strip()); return out
            cur.append(c)
        elif c == "," and depth == 1:
            out.append("".join(cur).strip()); cur = []
        else:
            cur.append(c)
        i += 1
    return out
found = []
for room in sorted(os.listdir(os.path.join(src, "src"))):
    if room in ("cli", "serve", "options"):
        continue
    d = os.path.join(src, "src", room)
    if not os.path.isdir(d):
        continue
    # The room's folder and its subfolders (src/engines/vllm/ ...).
    paths = sorted(os.path.join(dp, n) for dp, _, ns in os.walk(d) for n in ns)
    for path in paths:
        if not path.endswith(".c"):
            continue
        text = open(path, encoding="utf-8", errors="replace").read()
        for fn, k in CALLS.items():
            for m in re.finditer(r"\b%s\s*\(" % fn, text):
                a = args_of(text, m.end() - 1)
                if len(a) > k and re.search(r'"-', a[k]):
                    line = text.count("\n", 0, m.start()) + 1
                    found.append("%s:%d: %s key %s" % (os.path.relpath(path, src), line, fn, a[k]))
        # Key tables ({value, "--flag"}) handed to kvp__fail.
        for m in re.finditer(r'const char \*key;\s*\}\s*\w+\[\]\s*=\s*\{(.*?)\};', text, re.S):
            for lit in re.findall(r'"(-[^"]*)"', m.group(1)):
                line = text.count("\n", 0, m.start()) + 1
                found.append("%s:%d: key table entry \"%s\"" % (os.path.relpath(path, src), line, lit))
print("\n".join(found))
