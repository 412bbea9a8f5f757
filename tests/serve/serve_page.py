"""serve_page.py — the page of `kvplan serve` in headless Chromium (Debian `chromium`).

Usage: python3 serve_page.py KVPLAN SRCDIR [SCREENSHOT.png]

Loads the page with a query string for a known question, lets its script run
(--virtual-time-budget), and checks from the dumped DOM that the figures it shows
(each cell carries the figure in data-v beside its text) are those of
`kvplan cost/compare/plan ... --json` for the same question; with SCREENSHOT it also
writes a screenshot (docs/img/serve.png is made this way). Chromium missing is a
failure, not a skip."""
import html.parser
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_common import Server, cli_json  # noqa: E402

KVPLAN, SRC = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
SHOT = sys.argv[3] if len(sys.argv) > 3 else None
FAILED = []


def check(name, ok, detail=""):
    print("%s %s%s" % ("ok  " if ok else "FAIL", name, "" if ok else ": " + detail))
    if not ok:
        FAILED.append(name)


class Figures(html.parser.HTMLParser):
    """data-k -> (data-v, text) of every element that carries a figure."""

    def __init__(self):
        super().__init__()
        self.fig, self.stack, self.attrs = {}, [], {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.stack.append((tag, a.get("data-k"), a.get("data-v"), []))
        if tag == "body":
            self.attrs = a
        if tag in ("input", "circle", "rect", "br"):
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        while self.stack:
            t, k, v, text = self.stack.pop()
            if k:
                self.fig[k] = (v, "".join(text).strip())
            if self.stack:
                self.stack[-1][3].extend(text)
            if t == tag:
                break

    def handle_data(self, data):
        if self.stack:
            self.stack[-1][3].append(data)


chromium = shutil.which("chromium") or shutil.which("chromium-browser")
if not chromium:
    print("FAIL chromium is not installed (scripts/deps.sh installs Debian's chromium)")
    sys.exit(1)


def browse(url, *extra):
    with tempfile.TemporaryDirectory() as prof:
        p = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                            "--disable-background-networking", "--disable-component-update",
                            "--disable-sync", "--hide-scrollbars", "--user-data-dir=" + prof,
                            "--virtual-time-budget=30000", "--window-size=1100,1000"] + list(extra) +
                           [url], capture_output=True, text=True, timeout=180)
    return p


# The question: Llama-3.1-8B on an H100 SXM 80GB, 32k context, vLLM selected.
Q = {"model": "llama-3.1-8b", "gpu": "H100 SXM 80GB", "max_seq_len": 32768, "policy": "vllm"}
srv = Server(KVPLAN)
try:
    from urllib.parse import urlencode
    url = srv.url + "?" + urlencode(Q)
    p = browse(url, "--dump-dom")
    dom = Figures()
    dom.feed(p.stdout)
    check("chromium ran the page to the end (body data-done)", dom.attrs.get("data-done") == "1",
          "exit %d, %s" % (p.returncode, p.stderr[-400:]))
    commands = json.loads(srv.request("GET", "/api/v1/health")[2])["commands"].split()

    cost = json.loads(cli_json(KVPLAN, ["cost", "llama-3.1-8b", "--json"]))
    for i, pool in enumerate(cost["pools"]):
        for f in ("layers", "bytes_per_token", "bytes_per_sequence"):
            k = "cost.pools.%d.%s" % (i, f)
            v, text = dom.fig.get(k, (None, ""))
            check("page %s = CLI %s (shown '%s')" % (k, pool[f], text),
                  v == str(pool[f]) and text.replace(",", "") == str(pool[f]), "data-v %s" % v)
    # By hand: 32 layers x 8 KV heads x 128 dims x 2 (K and V) x 2 bytes (bf16) = 131072.
    check("the page shows 131072 bytes per token for llama-3.1-8b, bf16 KV, TP 1",
          dom.fig.get("cost.pools.0.bytes_per_token", (None,))[0] == "131072")

    check("this build answers compare, plan and sweep",
          all(c in commands for c in ("compare", "plan", "sweep")), " ".join(commands))
    if "compare" in commands:
        args = ["compare", "llama-3.1-8b", "--gpu", "H100 SXM 80GB", "--max-seq-len", "32768",
                "--json"]
        cmp = json.loads(cli_json(KVPLAN, args))
        for e in cmp["engines"]:
            for f in ("tokens", "max_sequences", "budget_bytes"):
                k = "compare.%s.%s" % (e["policy"], f)
                v, text = dom.fig.get(k, (None, ""))
                check("page %s = CLI %s" % (k, e[f]), v == str(e[f]), "data-v %s text %s" % (v, text))
        vllm = [e for e in cmp["engines"] if e["policy"] == "vllm"][0]
        check("the bar's KV = vLLM's kv_bytes", dom.fig.get("bar.KV cache", (None,))[0] == str(vllm["kv_bytes"]))
        check("the chart's 32k point = vLLM's max_sequences",
              dom.fig.get("chart.vllm.32768", (None,))[0] == str(vllm["max_sequences"]))
        sw = json.loads(cli_json(KVPLAN, ["sweep", "llama-3.1-8b", "--gpu", "H100 SXM 80GB",
                                          "--over", "max-seq-len=1024,2048,4096,8192,16384,32768",
                                          "--over", "policy=trtllm,vllm,sglang,llamacpp", "--json"]))
        for r in sw["rows"]:
            k = "chart.%s.%d" % (r["policy"], r["max_seq_len"])
            check("page %s = CLI sweep max_sequences %s" % (k, r.get("max_sequences")),
                  dom.fig.get(k, (None,))[0] == str(r.get("max_sequences")))
        plan = json.loads(cli_json(KVPLAN, ["plan", "llama-3.1-8b", "--gpu", "H100 SXM 80GB",
                                            "--max-seq-len", "32768", "--policy", "vllm", "--json"]))
        why = dom.fig.get("plan.bound_by", (None, ""))[1]
        check("the why line is the plan's bound_by", why == "bound by " + plan["capacity"]["bound_by"], why)
        with open(os.path.join(SRC, "data", "accuracy.json")) as f:
            line = json.load(f)["engines"]["vllm"]["line"]
        acc = dom.fig.get("accuracy.vllm", (None, ""))[1]
        check("the page states vLLM's record: %s" % line, acc == line, acc)
    # "Paste your log": the figures the page shows are `kvplan why --json`'s.
    with open(os.path.join(SRC, "examples", "logs", "llamacpp-10.log")) as f:
        log10 = f.read()
    p = browse(srv.url + "?" + urlencode({"log": log10, "logmodel": "gpt-oss-20b"}), "--dump-dom")
    wdom = Figures()
    wdom.feed(p.stdout)
    check("chromium ran the log box to the end", wdom.attrs.get("data-done") == "1", p.stderr[-300:])
    cli = json.loads(cli_json(KVPLAN, ["why", os.path.join(SRC, "examples", "logs", "llamacpp-10.log"),
                                       "--model", "gpt-oss-20b", "--json"]))
    for f in cli["figures"]:
        v, text = wdom.fig.get("why.%s.given" % f["name"], (None, ""))
        check("page why.%s = CLI %s" % (f["name"], f["given_memory"]),
              v is not None and json.loads(v) == f["given_memory"], "data-v %s" % v)
    check("the page shows 3072 MiB for llamacpp-10's main cache (12 x 131,072 x 1,024 B x 2)",
          json.loads(wdom.fig.get("why.kv_size_bytes.given", ("null",))[0] or "null") == 3072)
    if SHOT:
        s = browse(url, "--screenshot=" + os.path.abspath(SHOT))
        check("screenshot written to %s" % SHOT, os.path.getsize(SHOT) > 10000, s.stderr[-300:])
finally:
    code, err = srv.stop()
check("server stopped cleanly", code == 0, err)
print("%d failed" % len(FAILED))
sys.exit(1 if FAILED else 0)
