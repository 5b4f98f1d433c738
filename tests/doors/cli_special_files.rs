//! Special files where mapscope reads ignore rules and git metadata, through the real
//! binary: a `.gitignore` linking to `/dev/zero` or `/etc/passwd`, FIFOs as
//! `.gitignore`, `.mapscopeignore`, `.git/info/exclude` and a subdirectory's `.gitignore`, a
//! `.git` file whose `gitdir`'s `commondir` is a FIFO or leads to `/dev/zero`, a `.git`
//! that is a FIFO. Each command finishes (under a timeout), maps the code, and warns once
//! per refused file.

#![cfg(unix)]

use crate::common;

use std::io::Write;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs the binary with stdin from `input`, killing it after `limit`: a hang fails the test
/// instead of stalling the suite.
fn run_bounded(args: &[&str], cache: &Path, input: &[u8], limit: Duration) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mapscope"))
        .args(args)
        .env("MAPSCOPE_CACHE_DIR", cache)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run mapscope");
    let mut stdin = child.stdin.take().expect("stdin");
    let _ = stdin.write_all(input);
    drop(stdin);
    let deadline = Instant::now() + limit;
    loop {
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let out = child.wait_with_output().expect("output");
            panic!(
                "mapscope {args:?} still running after {limit:?}; stderr: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

struct Fixture {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    cache: PathBuf,
    /// The refused files, as the warnings name them.
    refused: Vec<String>,
}

fn fifo(path: &Path) {
    assert!(common::make_fifo(path), "mkfifo {}", path.display());
}

/// The hostile tree, generated: code beside every kind of special rules file.
fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    let outside = tmp.path().join("outside");
    common::write_files(
        &root,
        &[
            ("app.py", "def main():\n    return helper()\n"),
            ("util.py", "def helper():\n    return 42\n"),
            ("sub/deep.py", "def deep_one():\n    pass\n"),
            ("passwd/visible.py", "def visible():\n    pass\n"),
            ("linked/kept.py", "def kept_anyway():\n    pass\n"),
            ("linked/rules.txt", "kept.py\n"),
            ("wt/work.py", "def in_worktree():\n    pass\n"),
            ("wt2/work2.py", "def in_worktree_two():\n    pass\n"),
        ],
    );
    // The root's own rules: a link to /dev/zero, FIFOs for the other two.
    symlink("/dev/zero", root.join(".gitignore")).unwrap();
    fifo(&root.join(".mapscopeignore"));
    std::fs::create_dir_all(root.join(".git/info")).unwrap();
    fifo(&root.join(".git/info/exclude"));
    // A subdirectory's `.gitignore` as a FIFO.
    fifo(&root.join("sub/.gitignore"));
    // A link out of the tree: never read as rules (it would not match anyway).
    symlink("/etc/passwd", root.join("passwd/.gitignore")).unwrap();
    // A link inside the tree to real rules: refused like git refuses it, so `kept.py` stays.
    symlink("rules.txt", root.join("linked/.gitignore")).unwrap();
    // Linked worktrees whose git dir's `commondir` is a FIFO, or a link to /dev/zero.
    let gd = outside.join("gitdir");
    std::fs::create_dir_all(&gd).unwrap();
    fifo(&gd.join("commondir"));
    common::write_files(
        &root,
        &[("wt/.git", &format!("gitdir: {}\n", gd.display()))],
    );
    let gd2 = outside.join("gitdir2");
    std::fs::create_dir_all(&gd2).unwrap();
    symlink("/dev/zero", gd2.join("commondir")).unwrap();
    common::write_files(
        &root,
        &[("wt2/.git", &format!("gitdir: {}\n", gd2.display()))],
    );
    let refused = vec![
        gd.join("commondir").display().to_string(),
        gd2.join("commondir").display().to_string(),
        ".git/info/exclude".into(),
        ".gitignore".into(),
        ".mapscopeignore".into(),
        "linked/.gitignore".into(),
        "passwd/.gitignore".into(),
        "sub/.gitignore".into(),
    ];
    Fixture {
        cache: tmp.path().join("cache"),
        _tmp: tmp,
        root,
        refused,
    }
}

fn assert_warned_once(stderr: &str, refused: &[String]) {
    for name in refused {
        let lines: Vec<&str> = stderr
            .lines()
            .filter(|l| l.starts_with(&format!("mapscope: warning: {name} not read: ")))
            .collect();
        assert_eq!(lines.len(), 1, "{name}:\n{stderr}");
    }
    let warnings = stderr.lines().filter(|l| l.contains(" not read: ")).count();
    assert_eq!(warnings, refused.len(), "{stderr}");
}

#[test]
fn map_stats_and_search_finish_and_warn_once_per_special_rules_file() {
    let f = fixture();
    let root = f.root.to_str().unwrap();
    let limit = Duration::from_secs(20);
    let map = run_bounded(&["map", root, "--tokens", "4096"], &f.cache, b"", limit);
    assert!(
        map.status.success(),
        "{}",
        String::from_utf8_lossy(&map.stderr)
    );
    let text = String::from_utf8_lossy(&map.stdout);
    for name in [
        "helper",
        "deep_one",
        "visible",
        "kept_anyway",
        "in_worktree",
        "in_worktree_two",
    ] {
        assert!(text.contains(name), "{name} missing from the map:\n{text}");
    }
    assert_warned_once(&String::from_utf8_lossy(&map.stderr), &f.refused);

    let stats = run_bounded(&["stats", root, "--json"], &f.cache, b"", limit);
    assert!(stats.status.success());
    let v: serde_json::Value = serde_json::from_slice(&stats.stdout).unwrap();
    assert_eq!(v["files"], 7, "{v}");
    assert_warned_once(&String::from_utf8_lossy(&stats.stderr), &f.refused);

    let search = run_bounded(&["search", root, "helper", "--json"], &f.cache, b"", limit);
    assert!(search.status.success());
    assert_warned_once(&String::from_utf8_lossy(&search.stderr), &f.refused);
}

#[test]
fn the_mcp_server_answers_and_warns_once() {
    let f = fixture();
    let input = [
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "t", "version": "1"}}}),
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "repo_stats", "arguments": {}}}),
        serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "search", "arguments": {"query": "helper"}}}),
    ]
    .map(|m| m.to_string())
    .join("\n");
    let out = run_bounded(
        &["mcp", f.root.to_str().unwrap()],
        &f.cache,
        format!("{input}\n").as_bytes(),
        Duration::from_secs(20),
    );
    assert!(out.status.success());
    let answers: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), 3);
    assert_eq!(answers[1]["result"]["structuredContent"]["files"], 7);
    assert_warned_once(&String::from_utf8_lossy(&out.stderr), &f.refused);
}

/// A `.git` that is a FIFO, and a source file that is a FIFO or links to `/dev/zero`:
/// neither `git` (history) nor the parse blocks.
#[test]
fn a_fifo_git_and_special_sources_do_not_block() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    common::write_files(&root, &[("ok.py", "def fine():\n    pass\n")]);
    fifo(&root.join(".git"));
    fifo(&root.join("pipe.py"));
    symlink("/dev/zero", root.join("zero.py")).unwrap();
    let out = run_bounded(
        &["search", root.to_str().unwrap(), "fine"],
        &tmp.path().join("cache"),
        b"",
        Duration::from_secs(20),
    );
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("ok.py"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_warned_once(&err, &[".git".to_string()]);
}

/// A real linked worktree whose `commondir` is a FIFO: `git` itself blocks on it, so the
/// history read is stopped (5 s) and search answers without history; the walk warns once.
#[test]
fn search_in_a_worktree_whose_commondir_is_a_fifo_finishes() {
    let tmp = tempfile::tempdir().unwrap();
    let main = tmp.path().join("main");
    common::write_files(&main, &[("a.py", "def alpha():\n    pass\n")]);
    let git = |dir: &Path, args: &[&str]| {
        Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .current_dir(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if !git(&main, &["init", "-q"]) {
        eprintln!("no git: skipped");
        return;
    }
    assert!(git(&main, &["add", "a.py"]));
    assert!(git(&main, &["commit", "-qm", "init"]));
    assert!(git(&main, &["worktree", "add", "-q", "../wt"]));
    let commondir = main.join(".git/worktrees/wt/commondir");
    std::fs::remove_file(&commondir).unwrap();
    fifo(&commondir);
    let wt = tmp.path().join("wt");
    let t = Instant::now();
    let out = run_bounded(
        &["search", wt.to_str().unwrap(), "alpha", "--json"],
        &tmp.path().join("cache"),
        b"",
        Duration::from_secs(20),
    );
    assert!(out.status.success());
    assert!(t.elapsed() < Duration::from_secs(15), "{:?}", t.elapsed());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["sources"][0]["symbol"], "alpha", "{v}");
    assert!(v["diagnostics"]["history"]["error"].is_string(), "{v}");
    let err = String::from_utf8_lossy(&out.stderr);
    let shown = commondir.canonicalize().unwrap_or(commondir);
    assert_warned_once(&err, &[shown.display().to_string()]);
}
