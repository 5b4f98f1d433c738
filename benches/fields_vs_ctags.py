#!/usr/bin/env python3
"""Field look-ups against universal-ctags: for each repository, up to N data members ctags
records (struct and class fields of Go, Rust, TypeScript, Java, C#, C and C++: kinds
member, field, property; JavaScript class fields: kind field; Python and PHP class variables: kind variable in a class; Ruby's
attribute accessors: kind accessor, the reader's name) whose name is defined once among implementation files, looked up
bare with `mapscope search --json --top 3`; a look-up scores when the top hit is in the
oracle's file with the oracle's line +-2. The method of ../shared/eval/symbols.py (its
filters and seed), on the kinds that script leaves out.

usage: fields_vs_ctags.py --mapscope BIN [--n 60] [--seed 1] [--misses] REPO...
"""
import argparse, collections, json, os, random, subprocess, sys

KINDS = {"member", "field", "property", "accessor"}
LANGS = {".go", ".rs", ".ts", ".tsx", ".java", ".cs", ".c", ".h", ".cc", ".cpp", ".hpp",
         ".py", ".rb", ".php", ".js", ".jsx", ".mjs", ".cjs"}
JS = {".js", ".jsx", ".mjs", ".cjs"}


def is_field(t):
    """A data member by ctags' kinds. Python's and PHP's `member`/`function` kinds are
    methods, and their class-level variables are `variable` tags scoped to a class."""
    ext = os.path.splitext(t["path"])[1]
    if ext in (".py", ".php"):
        return t.get("kind") == "variable" and t.get("scopeKind") == "class"
    if ext in JS:
        # Class fields; ctags' JavaScript `field` is also an object literal's shorthand key
        # (`module.exports = { f }`) and its `property` a `this.x = …` assignment, which
        # declare nothing.
        return t.get("kind") == "field" and t.get("scopeKind") == "class"
    if ext == ".rb":
        return t.get("kind") == "accessor" and not t["name"].endswith("=")
    return t.get("kind") in KINDS


def ctags(repo):
    out = subprocess.run(["ctags", "-R", "--output-format=json", "--fields=+nKSzZ", "--extras=-F",
                          "--exclude=node_modules", "--exclude=vendor", "--exclude=.git",
                          "--exclude=dist", "--exclude=build", "--exclude=target", "-f", "-", "."],
                         cwd=repo, capture_output=True, text=True, check=False).stdout
    tags = []
    for line in out.splitlines():
        try:
            t = json.loads(line)
        except ValueError:
            continue
        if t.get("_type") != "tag":
            continue
        t["path"] = t["path"][2:] if t["path"].startswith("./") else t["path"]
        tags.append(t)
    return tags


def impl(path):
    p = "/" + path.lower()
    return not any(s in p for s in ("/test", "_test.", ".test.", ".spec.", "/example", "/bench",
                                    "/fixture", "/playground", "/docs/", ".d.ts"))


def look_up(mapscope, repo, name):
    """The sources of `mapscope search REPO NAME --json --top 3` (none when it fails)."""
    r = subprocess.run([mapscope, "search", repo, name, "--json", "--top", "3"],
                       capture_output=True, text=True, check=False)
    try:
        return json.loads(r.stdout).get("sources", [])
    except ValueError:
        return []


def answers(hit, path, line):
    """Whether a hit is in the oracle's file with the oracle's line within +-2 of its lines."""
    lines = hit.get("line_range") or [0, 0]
    return hit.get("file_path") == path and lines[0] - 2 <= line <= lines[1] + 2


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mapscope", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--misses", action="store_true", help="print each look-up whose top hit is not the oracle's")
    ap.add_argument("repos", nargs="+")
    a = ap.parse_args()
    for repo in a.repos:
        tags = [t for t in ctags(repo) if os.path.splitext(t["path"])[1] in LANGS and impl(t["path"])]
        # A Ruby accessor's writer (`name=`) is the same attribute as its reader.
        count = collections.Counter(t["name"] for t in tags if not t["name"].endswith("="))
        pool = [t for t in tags if is_field(t) and count[t["name"]] == 1
                and len(t["name"]) >= 5 and t["name"].isidentifier()]
        pool.sort(key=lambda t: (t["path"], t["line"]))
        random.Random(a.seed).shuffle(pool)
        pool = pool[:a.n]
        top1 = top3 = 0
        for t in pool:
            hits = look_up(a.mapscope, repo, t["name"])
            ranks = [i for i, h in enumerate(hits[:3]) if answers(h, t["path"], t["line"])]
            top1 += bool(ranks and ranks[0] == 0)
            if a.misses and not (ranks and ranks[0] == 0):
                first = hits[0] if hits else {}
                print(f"  miss {t['name']} {t['path']}:{t['line']} -> {first.get('file_path')}:"
                      f"{(first.get('line_range') or ['-'])[0]} {first.get('kind')}")
            top3 += bool(ranks)
        n = max(len(pool), 1)
        print(f"{os.path.basename(repo.rstrip('/')):12} n={len(pool):3}  top1 {top1 / n:.3f}  top3 {top3 / n:.3f}")


if __name__ == "__main__":
    sys.exit(main())
