#!/usr/bin/env python3
"""`mapscope eval --symbols` checked against the reference method, `../shared/eval/symbols.py`,
on the same repositories and seed: the same sampled queries (set, query, oracle file and
line, in order), the same rank per query and the same "answer names the file", and both
summaries side by side.

    benches/symbols_vs_py.py --mapscope BIN [--n 60] [--seed 1] [--keep DIR] REPO...

symbols.py runs `BIN search REPO QUERY --json --top 5 --answer` once per query (a process
each, the tag cache warm after the first); the eval runs the same search in-process on one
index. Both read universal-ctags (`ctags`). Exit status 1 when any query, rank or answer
check differs. MAPSCOPE_CACHE_DIR is set to a temporary directory unless already set, so
the reference's cache does not touch the user's.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SYMBOLS_PY = os.path.join(HERE, "..", "..", "shared", "eval", "symbols.py")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mapscope", required=True)
    ap.add_argument("--symbols-py", default=os.environ.get("SYMBOLS_PY", SYMBOLS_PY))
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", help="keep both reports in this directory")
    ap.add_argument("repos", nargs="+")
    a = ap.parse_args()
    out = a.keep or tempfile.mkdtemp(prefix="symbols-vs-py-")
    os.makedirs(out, exist_ok=True)
    env = dict(os.environ)
    env.setdefault("MAPSCOPE_CACHE_DIR", os.path.join(out, "cache"))
    env.pop("MAPSCOPE_LLM_URL", None)
    t = time.perf_counter()
    rust = subprocess.run(
        [a.mapscope, "eval", "--json", "--sample", str(a.n), "--seed", str(a.seed), "--symbols"]
        + a.repos, capture_output=True, text=True, env=env, check=True).stdout
    rust_s = time.perf_counter() - t
    with open(os.path.join(out, "eval.json"), "w") as f:
        f.write(rust)
    rust = {r["repo"]: r for r in json.loads(rust)["repos"]}
    py_s = 0.0
    bad = 0
    for repo in a.repos:
        name = os.path.basename(os.path.abspath(repo))
        py_out = os.path.join(out, name + ".py.json")
        t = time.perf_counter()
        subprocess.run([sys.executable, a.symbols_py, "--repo", repo, "--mapscope", a.mapscope,
                        "--n", str(a.n), "--seed", str(a.seed), "--out", py_out],
                       capture_output=True, text=True, env=env, check=True)
        py_s += time.perf_counter() - t
        with open(py_out) as f:
            py = json.load(f)
        rs = rust[name]
        key = lambda r: (r["set"], r["query"], r["path"], r["line"])  # noqa: E731
        same_queries = [key(r) for r in py["rows"]] == [key(r) for r in rs["rows"]]
        ranks = sum(p["rank"] != r["rank"] for p, r in zip(py["rows"], rs["rows"]))
        files = sum("answer_names_file" in p and p["answer_names_file"] != r["answer_names_file"]
                    for p, r in zip(py["rows"], rs["rows"]))
        bad += (not same_queries) + ranks + files
        print(f"{name}: {len(py['rows'])} queries, same queries: {same_queries}, "
              f"rank differences: {ranks}, answer-names-file differences: {files}")
        for s in ("bare", "phrase", "qualified"):
            p, r = py["summary"].get(s), rs["summary"].get(s)
            if p or r:
                fig = lambda d, k: "-" if not d or k not in d else f"{d[k]:.3f}"  # noqa: E731
                print(f"  {s:<10} top1 {fig(p, 'top1')} / {fig(r, 'top1')}   "
                      f"top3 {fig(p, 'top3')} / {fig(r, 'top3')}   "
                      f"answer names file {fig(p, 'answer_names_file')} / "
                      f"{fig(r, 'answer_names_file')}   (symbols.py / eval)")
    print(f"wall: symbols.py {py_s:.1f} s, eval --symbols {rust_s:.1f} s; reports in {out}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
