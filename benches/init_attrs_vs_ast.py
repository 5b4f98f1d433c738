#!/usr/bin/env python3
"""Look-ups of the attributes a Python class's `__init__` sets on `self` (`self.pool = pool`),
with Python's own parser (`ast`) as the oracle: for each repository, up to N such attributes
whose name is set in one class only and names no function or class, in implementation files
(no tests or docs folders); each looked up bare with `mapscope search --json --top 3`. A
look-up scores when the top hit is in the oracle's file within 2 lines of the first
assignment (anywhere in `__init__`, a branch's too).

usage: init_attrs_vs_ast.py --mapscope BIN [--n 40] [--seed 1] [--misses] REPO...
"""
import argparse, ast, collections, os, random, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fields_vs_ctags import answers, look_up  # the same look-up and scoring

SKIP = {"tests", "test", "docs", "node_modules", "vendor"}


def init_attributes(repo):
    """(name, path, line) of each attribute first set on `self` in a class's `__init__`, and
    the names of every function and class."""
    found, defined = [], collections.Counter()
    for dirpath, dirnames, filenames in os.walk(repo):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in SKIP)
        for filename in sorted(filenames):
            if not filename.endswith(".py"):
                continue
            path = os.path.join(dirpath, filename)
            try:
                with open(path, encoding="utf-8") as f:
                    tree = ast.parse(f.read())
            except (SyntaxError, UnicodeDecodeError, ValueError):
                continue
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    defined[node.name] += 1
                if not isinstance(node, ast.ClassDef):
                    continue
                for method in node.body:
                    if not (isinstance(method, ast.FunctionDef) and method.name == "__init__"):
                        continue
                    seen = set()
                    for stmt in ast.walk(method):
                        targets = (stmt.targets if isinstance(stmt, ast.Assign)
                                   else [stmt.target] if isinstance(stmt, ast.AnnAssign) else [])
                        for t in targets:
                            if (isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                                    and t.value.id == "self" and t.attr not in seen):
                                seen.add(t.attr)
                                found.append((t.attr, os.path.relpath(path, repo), stmt.lineno))
    return found, defined


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mapscope", required=True)
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--misses", action="store_true", help="print each miss and the top hit")
    ap.add_argument("repos", nargs="+")
    a = ap.parse_args()
    for repo in a.repos:
        found, defined = init_attributes(repo)
        count = collections.Counter(name for name, _, _ in found)
        pool = [x for x in found if count[x[0]] == 1 and defined[x[0]] == 0 and len(x[0]) >= 5]
        random.Random(a.seed).shuffle(pool)
        pool = pool[:a.n]
        top1 = 0
        for name, path, line in pool:
            hits = look_up(a.mapscope, repo, name)
            top = hits[0] if hits else {}
            lines = top.get("line_range") or [0, 0]
            ok = answers(top, path, line)
            top1 += ok
            if a.misses and not ok:
                print(f"  miss {name} {path}:{line} | top {top.get('file_path')} {lines} {top.get('kind')}")
        print(f"{os.path.basename(repo.rstrip('/')):12} n={len(pool):3}  top1 {top1 / max(len(pool), 1):.3f}")


if __name__ == "__main__":
    sys.exit(main())
