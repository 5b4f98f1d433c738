#!/usr/bin/env python3
"""An agent's session with `mapscope mcp`, timed from the client's side (stdlib only).

    python3 benches/mcp_session.py REPO [--runs N] [--mapscope BIN] [--edit FILE]

The files git tracks in REPO are copied to a scratch directory (REPO itself is never
written). Each run starts `mapscope mcp SCRATCH --no-cache --no-history` and times:
initialize; the first repo_map (4096 tokens), which waits for the startup build; repo_map
again with a query; three searches; then one edit: a new function is appended to FILE
(default: the largest tracked .ts/.py/.go file), and `search` is called every 50 ms until
the function is its first hit ("edit visible", from the write; the watcher debounces 150 ms;
the slowest of those calls is the one that waited for the refresh). A second edit is
followed by 1 s of idling, as an agent does other work, before one search for it. Prints
the median of each figure.
"""
import argparse, json, os, shutil, statistics, subprocess, sys, tempfile, time

ap = argparse.ArgumentParser()
ap.add_argument("repo")
ap.add_argument("--runs", type=int, default=5)
ap.add_argument("--mapscope", default="target/release/mapscope")
ap.add_argument("--edit")
args = ap.parse_args()

files = subprocess.run(["git", "-C", args.repo, "ls-files", "-z"], capture_output=True, check=True).stdout
files = [f for f in files.decode().split("\0") if f]
scratch = tempfile.mkdtemp(prefix="mcp-session-")
for f in files:
    src = os.path.join(args.repo, f)
    if os.path.isfile(src) and not os.path.islink(src):
        dst = os.path.join(scratch, f)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copyfile(src, dst)
edit = args.edit or max((f for f in files if f.endswith((".ts", ".py", ".go")) and os.path.isfile(os.path.join(scratch, f))),
                        key=lambda f: os.path.getsize(os.path.join(scratch, f)))
ext = os.path.splitext(edit)[1]
NEW = {".ts": "\nexport function mcpSessionFreshHelper(): number { return 42 }\n",
       ".py": "\n\ndef mcpSessionFreshHelper():\n    return 42\n",
       ".go": "\n\nfunc mcpSessionFreshHelper() int { return 42 }\n"}[ext]
original = open(os.path.join(scratch, edit), "rb").read()

figures = {}
def note(name, ms):
    figures.setdefault(name, []).append(ms)

for run in range(args.runs):
    open(os.path.join(scratch, edit), "wb").write(original)
    t0 = time.perf_counter()
    p = subprocess.Popen([args.mapscope, "mcp", scratch, "--no-cache", "--no-history"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    ids = iter(range(1, 10**9))
    def call(method, params):
        t = time.perf_counter()
        p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": next(ids), "method": method, "params": params}) + "\n")
        p.stdin.flush()
        answer = json.loads(p.stdout.readline())
        if "error" in answer:
            sys.exit(f"error: {answer['error']}")
        return answer["result"], (time.perf_counter() - t) * 1000
    _, ms = call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}})
    note("initialize", ms)
    r, ms = call("tools/call", {"name": "repo_map", "arguments": {"tokens": 4096}})
    note("first repo_map (start -> answer)", (time.perf_counter() - t0) * 1000)
    r, ms = call("tools/call", {"name": "repo_map", "arguments": {"tokens": 4096, "query": "parse config"}})
    note("repo_map with a query", ms)
    for q in ["parse config", "error handling when the file is missing", "createServer"]:
        _, ms = call("tools/call", {"name": "search", "arguments": {"query": q}})
        note("search", ms)
    with open(os.path.join(scratch, edit), "a") as f:
        f.write(NEW)
    t = time.perf_counter()
    slowest = 0.0
    while True:
        r, ms = call("tools/call", {"name": "search", "arguments": {"query": "mcpSessionFreshHelper", "top": 1}})
        slowest = max(slowest, ms)
        s = r["structuredContent"]["sources"]
        if s and s[0].get("symbol") == "mcpSessionFreshHelper":
            break
        if time.perf_counter() - t > 30:
            sys.exit("the edit never became visible")
        time.sleep(0.05)
    note("edit visible (write -> hit)", (time.perf_counter() - t) * 1000)
    note("slowest search call while polling", slowest)
    # An agent usually does something else between an edit and its next question.
    with open(os.path.join(scratch, edit), "a") as f:
        f.write(NEW.replace("mcpSessionFreshHelper", "mcpSessionSecondHelper"))
    time.sleep(1.0)
    r, ms = call("tools/call", {"name": "search", "arguments": {"query": "mcpSessionSecondHelper", "top": 1}})
    s = r["structuredContent"]["sources"]
    if not (s and s[0].get("symbol") == "mcpSessionSecondHelper"):
        sys.exit("the second edit was not seen 1 s later")
    note("search 1 s after an edit", ms)
    p.stdin.close()
    p.wait()

open(os.path.join(scratch, edit), "wb").write(original)
shutil.rmtree(scratch, ignore_errors=True)
print(f"repo {args.repo} ({len(files)} tracked files), edited {edit}, {args.runs} runs, medians:")
for name, values in figures.items():
    print(f"  {name:34} {statistics.median(values):8.1f} ms   (min {min(values):.1f}, max {max(values):.1f})")
