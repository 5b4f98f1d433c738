#!/usr/bin/env python3
"""`mapscope serve` asked for large folders one after the other, as issue 39's hostile client
did: the server's resident memory, its cache folders, how long each source took, and how
long the project's own requests took meanwhile.

    benches/hostile_sources.py BIN PROJECT --root DIR... --source DIR... [-- SERVE_FLAGS...]

The server serves PROJECT with `--source-root` for each DIR, and a cache directory of its
own (removed first). Each `--source` folder is asked for in turn by `/search?sources=sN=DIR`;
while the answer is 503 `SOURCE_BUILDING`, `/stats`, `/map?tokens=64` and a project-only
`/search` are asked (each must be 200) and VmRSS is read from /proc/PID/status. At the end
the server gets SIGTERM and the time to its exit is printed. SERVE_FLAGS go to `serve`
(`--source-memory 512M`, say).
"""
import argparse
import json
import os
import shutil
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("project")
    ap.add_argument("--root", action="append", default=[])
    ap.add_argument("--source", action="append", default=[])
    ap.add_argument("--cache", default="/tmp/mapscope-hostile-cache")
    ap.add_argument("serve_flags", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    flags = [f for f in a.serve_flags if f != "--"]
    shutil.rmtree(a.cache, ignore_errors=True)
    args = [a.bin, "serve", a.project, "--http", "127.0.0.1:0", "--no-history"]
    for r in a.root:
        args += ["--source-root", r]
    server = subprocess.Popen(args + flags, stderr=subprocess.PIPE, text=True,
                              env=dict(os.environ, MAPSCOPE_CACHE_DIR=a.cache))
    first = server.stderr.readline()
    base = [w for w in first.split() if w.startswith("http://")][0]
    # Read on, so that the server never blocks on a full pipe.
    threading.Thread(target=lambda: [None for _ in server.stderr], daemon=True).start()

    def get(path):
        t = time.time()
        try:
            with urllib.request.urlopen(base + path, timeout=60) as r:
                body, status = r.read(), r.status
        except urllib.error.HTTPError as e:
            body, status = e.read(), e.code
        return status, json.loads(body), time.time() - t

    def rss_mb():
        with open(f"/proc/{server.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) // 1024
        return 0

    def cache_mb():
        total = 0
        for root, _, files in os.walk(a.cache):
            total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
        return total >> 20

    get("/stats")
    peak = rss_mb()
    print(f"start: VmRSS {peak} MB; serve flags {flags}")
    for i, folder in enumerate(a.source):
        q = "/search?q=parse+buffer&sources=" + urllib.parse.quote(f"s{i}={folder}")
        t0, other = time.time(), []
        while True:
            status, v, _ = get(q)
            if v.get("code") != "SOURCE_BUILDING":
                break
            for path in ["/stats", "/map?tokens=64", "/search?q=main&sources="]:
                s, _, took = get(path)
                assert s == 200, (path, s)
                other.append(took)
            peak = max(peak, rss_mb())
            time.sleep(0.2)
        rss = rss_mb()
        peak = max(peak, rss)
        slowest = max(other) * 1000 if other else 0
        said = f"; {v.get('error')}" if status != 200 else ""
        print(f"{folder}: {status} {v.get('code', 'ok')} after {time.time() - t0:.1f} s; "
              f"VmRSS {rss} MB (peak so far {peak}); cache {cache_mb()} MB; "
              f"{len(other)} other requests meanwhile, slowest {slowest:.0f} ms{said}")
    t = time.time()
    server.terminate()
    server.wait()
    print(f"peak VmRSS {peak} MB; SIGTERM: exit status {server.returncode} after "
          f"{time.time() - t:.2f} s")


if __name__ == "__main__":
    main()
