"""serve_common.py — start `kvplan serve --port 0` and talk to it (stdlib only).

Used by serve_api.py, serve_page.py and bench/bench_serve.py."""
import http.client
import json
import os
import subprocess
import time


class Server:
    def __init__(self, kvplan, *args, cwd=None):
        env = dict(os.environ)
        env.pop("KVPLAN_GPU_CATALOG", None)
        self.proc = subprocess.Popen([kvplan, "serve", "--port", "0"] + list(args), cwd=cwd,
                                     env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        line = self.proc.stdout.readline().strip()
        if not line.startswith("http://"):
            err = self.proc.stderr.read() if self.proc.poll() is not None else ""
            raise RuntimeError("kvplan serve printed %r, not a URL (%s)" % (line, err.strip()))
        self.url = line
        hostport = line[len("http://"):].rstrip("/")
        self.host, _, port = hostport.rpartition(":")
        self.port = int(port)
        self.hostport = hostport

    def conn(self, timeout=30):
        return http.client.HTTPConnection(self.host.strip("[]"), self.port, timeout=timeout)

    def request(self, method, path, body=None, headers=None, conn=None):
        """(status, headers dict lower-cased, body text)."""
        own = conn is None
        c = conn or self.conn()
        h = {"Host": self.hostport}
        if body is not None:
            h["Content-Type"] = "application/json"
        h.update(headers or {})
        if isinstance(body, (dict, list)):
            body = json.dumps(body)
        c.request(method, path, body=body, headers=h)
        r = c.getresponse()
        text = r.read().decode("utf-8")
        hdrs = {k.lower(): v for k, v in r.getheaders()}
        if own:
            c.close()
        return r.status, hdrs, text

    def rss_kib(self):
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        raise RuntimeError("no VmRSS for the server")

    def stop(self):
        """SIGTERM; returns (exit status, stderr)."""
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            _, err = self.proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, err = self.proc.communicate()
            raise RuntimeError("kvplan serve did not stop within 20 s of SIGTERM")
        return self.proc.returncode, err


def cli_json(kvplan, args, cwd=None):
    """The CLI's --json stdout without its final newline, as the API answers it."""
    env = dict(os.environ)
    env.pop("KVPLAN_GPU_CATALOG", None)
    p = subprocess.run([kvplan] + args, capture_output=True, text=True, cwd=cwd, env=env)
    out = p.stdout
    if not out.endswith("\n"):
        raise RuntimeError("%s: no JSON on stdout (exit %d): %s" % (args, p.returncode, p.stderr))
    return out[:-1]


def wait_until(pred, timeout):
    end = time.time() + timeout
    while time.time() < end:
        if pred():
            return True
        time.sleep(0.05)
    return pred()
