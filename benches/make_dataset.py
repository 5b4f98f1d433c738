#!/usr/bin/env python3
"""Build a commit->files retrieval dataset in the schema of the shared eval sets
(`../shared/eval/*.jsonl`, see its README) from a bare mirror of another repository, so that
search is checked on repositories it was not tuned on (BENCHMARKS, "Search retrieval quality
against BM25": gh cli, Polly, peewee, axum).

usage: make_dataset.py --git-dir MIRROR --repo OWNER/NAME --lang {core,all} [--n 40] --out D.jsonl
       (SHARED=DIR names the shared eval folder; default ../../shared/eval from this script)

Walks `git log --no-merges --first-parent HEAD` newest-first and keeps the newest N commits that
 * modify >= 1 code file that exists in the parent (gold_files non-empty; diff --no-renames,
   so a rename is a delete + an add, neither gold),
 * have at most MAX_GOLD (=10, the max len(gold_files) in every shared set) gold files and at most
   MAX_ALL (=28, the max n_files_changed_all over the shared sets) changed files in all,
 * have a query of >= 4 words and are not dependency bumps / typo / lint / revert / CI commits
   (the shared sets contain no query under 4 words and none of these; inferred from the data).
Code extensions: --lang core = TS/JS/Python/Go only (how the Go/Python/TS shared sets count),
--lang all = evalcommon.CODE_EXTS (how the Java/Ruby sets count; includes .cs and .rs).
"""
import argparse, json, os, re, subprocess, sys
sys.path.insert(0, os.environ.get("SHARED") or os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                          "..", "..", "shared", "eval"))
import evalcommon  # noqa: E402

CORE_EXTS = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".py", ".go")
MAX_GOLD = 10
MAX_ALL = 28
PREFIX = re.compile(r"^\s*(\[[^\]\n]+\]|[A-Za-z][\w./,-]*(?:\([^)\n]*\))?!?:)\s+")
PR = re.compile(r"\s*\(#(\d+)\)")
TRAILER = re.compile(r"^(Co-authored-by|Signed-off-by|Reviewed-by|Acked-by|Fixes|Closes|Resolves|Fix|Close|Resolve)"
                     r"(:| #| https?://)", re.I)
NOISE = re.compile(r"\b(typos?|bump(ed|s)?|lint(er|ing)?|revert(s|ed)?)\b|^(ci|build\(deps\)|chore\(deps\)|deps)", re.I)


def git(gd, *args):
    return subprocess.run(["git", "--git-dir", gd, *args], capture_output=True, text=True, check=True).stdout


def clean_subject(subject):
    prefixes = []
    s = subject.strip()
    for _ in range(2):
        m = PREFIX.match(s)
        if not m:
            break
        prefixes.append(m.group(1))
        s = s[m.end():]
    prs = PR.findall(s)
    s = PR.sub("", s).strip()
    return s, " ".join(prefixes), prs


def clean_body(body):
    lines = [l.rstrip() for l in body.replace("\r", "").split("\n")]
    lines = [l for l in lines if not TRAILER.match(l.strip())]
    text = "\n".join(lines).strip()
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--git-dir", required=True)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--lang", choices=["core", "all"], required=True)
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    exts = CORE_EXTS if a.lang == "core" else evalcommon.CODE_EXTS
    is_code = lambda p: p.lower().endswith(exts)  # noqa: E731
    gd = a.git_dir
    revs = git(gd, "log", "--no-merges", "--first-parent", "--format=%H %P", "HEAD").split("\n")
    rows, skipped = [], {}
    for line in revs:
        if len(rows) >= a.n:
            break
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) < 2:
            continue  # root commit
        commit, parent = parts[0], parts[1]
        msg = git(gd, "log", "-1", "--format=%B", commit).strip()
        subject, _, body = msg.partition("\n")
        query, prefix, prs = clean_subject(subject)
        st = [l.split("\t") for l in git(gd, "diff-tree", "-r", "--no-commit-id", "--name-status",
                                          "--no-renames", parent, commit).splitlines() if l]
        gold = sorted(p[1] for p in st if p[0] == "M" and is_code(p[1]))
        added = sorted(p[1] for p in st if p[0] == "A" and is_code(p[1]))
        deleted = sorted(p[1] for p in st if p[0] == "D" and is_code(p[1]))
        why = None
        if not gold:
            why = "no_gold"
        elif len(gold) > MAX_GOLD or len(st) > MAX_ALL:
            why = "too_many_files"
        elif len(query.split()) < 4:
            why = "short_query"
        elif NOISE.search(query) or NOISE.search(prefix or "-"):
            why = "noise"
        if why:
            skipped[why] = skipped.get(why, 0) + 1
            continue
        body_c = clean_body(body)
        qfull = (query + ("\n\n" + body_c if body_c else ""))[:500]
        rows.append({
            "repo": a.repo, "commit": commit, "parent": parent, "query": query,
            "query_full": qfull, "message_raw": msg, "subject_prefix": prefix, "pr_numbers": prs,
            "gold_files": gold, "gold_impl_files": [g for g in gold if evalcommon.is_impl(g)],
            "added_files": added, "deleted_files": deleted, "n_files_changed_all": len(st),
        })
    with open(a.out, "w") as fh:
        for r in rows:
            fh.write(json.dumps(r) + "\n")
    print(f"{a.repo}: {len(rows)} commits written to {a.out}; skipped {skipped}", file=sys.stderr)


if __name__ == "__main__":
    main()
