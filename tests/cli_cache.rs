//! The persistent cache through the real binary: where it lives, that it is used and
//! rebuilt when corrupt, `--no-cache`, `mapscope cache clear|path`, concurrent runs, and
//! that the repository itself is never written to.

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run(cache_env: &[(&str, &Path)], args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mapscope"));
    cmd.args(args).env_remove("MAPSCOPE_CACHE_DIR");
    for (k, v) in cache_env {
        cmd.env(k, v);
    }
    cmd.output().expect("run mapscope")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A small repo (copied fixture) and a separate cache dir, both in one tempdir.
fn setup() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    common::write_files(
        &repo,
        &[
            (
                "app.py",
                "from util import helper\n\ndef main():\n    return helper()\n",
            ),
            ("util.py", "def helper():\n    return 42\n"),
            ("web/index.ts", "export function serve(): void {}\n"),
            ("README.md", "# demo\n"),
        ],
    );
    let cache = tmp.path().join("cache");
    (tmp, repo, cache)
}

/// Every file under `root` with its bytes and modification time.
fn tree(root: &Path) -> BTreeMap<PathBuf, (Vec<u8>, std::time::SystemTime)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for ent in fs::read_dir(&dir).unwrap().flatten() {
            let path = ent.path();
            let meta = fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                stack.push(path);
            } else {
                out.insert(
                    path.clone(),
                    (fs::read(&path).unwrap(), meta.modified().unwrap()),
                );
            }
        }
    }
    out
}

fn cache_files(cache: &Path) -> Vec<PathBuf> {
    if !cache.exists() {
        return vec![];
    }
    tree(cache).into_keys().collect()
}

#[test]
fn map_writes_the_cache_outside_the_repo_and_reads_it_back() {
    let (_tmp, repo, cache) = setup();
    let env = [("MAPSCOPE_CACHE_DIR", cache.as_path())];
    let repo_s = repo.to_str().unwrap();
    let before = tree(&repo);

    let cold = run(&env, &["map", repo_s]);
    assert!(cold.status.success(), "{}", stderr(&cold));
    assert_eq!(stderr(&cold), "");
    let files = cache_files(&cache);
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(files[0].ends_with("tags.bin"));
    let written = fs::metadata(&files[0]).unwrap().modified().unwrap();

    let warm = run(&env, &["map", repo_s]);
    assert_eq!(warm.stdout, cold.stdout);
    assert_eq!(stderr(&warm), "");
    // Nothing changed, so nothing was rewritten.
    assert_eq!(
        fs::metadata(&files[0]).unwrap().modified().unwrap(),
        written
    );

    for args in [
        vec!["stats", repo_s],
        vec!["search", repo_s, "helper", "--json"],
        vec!["cache", "path", repo_s],
    ] {
        let o = run(&env, &args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    }
    assert_eq!(tree(&repo), before, "the repository must be byte-identical");
}

/// `stats --json` without its timings.
fn stats_json(env: &[(&str, &Path)], args: &[&str]) -> serde_json::Value {
    let o = run(env, args);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v.as_object_mut().unwrap().remove("times");
    v
}

/// A first `map` with the cache on drops each file's references as soon as it is parsed
/// (after writing them to the cache): every format maps as without the cache, and the cache
/// it leaves serves `stats` (references, imports, graph edges) as a full build would.
#[test]
fn a_first_map_writes_a_complete_cache_while_it_parses() {
    let (_tmp, repo, cache) = setup();
    let env = [("MAPSCOPE_CACHE_DIR", cache.as_path())];
    let repo_s = repo.to_str().unwrap();
    for format in ["text", "json"] {
        let _ = fs::remove_dir_all(&cache);
        let args = ["map", repo_s, "--format", format];
        let cold = run(&env, &args);
        assert!(cold.status.success(), "{}", stderr(&cold));
        assert_eq!(stderr(&cold), "");
        let uncached = run(&env, &[&args[..], &["--no-cache"]].concat());
        assert_eq!(cold.stdout, uncached.stdout, "{format}");
        let warm = run(&env, &args);
        assert_eq!(warm.stdout, cold.stdout, "{format}");
        assert_eq!(stderr(&warm), "");
    }
    assert_eq!(cache_files(&cache).len(), 1);
    let cached = stats_json(&env, &["stats", repo_s, "--json"]);
    let fresh = stats_json(&env, &["stats", repo_s, "--json", "--no-cache"]);
    assert_eq!(cached, fresh);
    assert!(cached["references"].as_u64().unwrap() > 0, "{cached}");
}

#[test]
fn xdg_cache_home_is_the_default_location() {
    let (tmp, repo, _) = setup();
    let xdg = tmp.path().join("xdg");
    let home = tmp.path().join("home");
    let o = run(
        &[("XDG_CACHE_HOME", xdg.as_path()), ("HOME", home.as_path())],
        &["map", repo.to_str().unwrap()],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let files = cache_files(&xdg.join("mapscope"));
    assert_eq!(files.len(), 1, "{files:?}");
    let path = run(
        &[("XDG_CACHE_HOME", xdg.as_path()), ("HOME", home.as_path())],
        &["cache", "path", repo.to_str().unwrap()],
    );
    let printed = String::from_utf8_lossy(&path.stdout).trim().to_string();
    assert!(files[0].starts_with(&printed), "{printed} vs {files:?}");
}

#[test]
fn no_cache_reads_and_writes_nothing() {
    let (_tmp, repo, cache) = setup();
    let env = [("MAPSCOPE_CACHE_DIR", cache.as_path())];
    let o = run(&env, &["map", repo.to_str().unwrap(), "--no-cache"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&env, &["stats", repo.to_str().unwrap(), "--no-cache"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(cache_files(&cache).is_empty());
}

#[test]
fn a_corrupt_cache_is_ignored_with_one_line_and_rebuilt() {
    let (_tmp, repo, cache) = setup();
    let env = [("MAPSCOPE_CACHE_DIR", cache.as_path())];
    let repo_s = repo.to_str().unwrap();
    let good = run(&env, &["map", repo_s]);
    let file = cache_files(&cache).remove(0);
    let bytes = fs::read(&file).unwrap();

    let damages: Vec<Vec<u8>> = vec![
        bytes[..bytes.len() / 2].to_vec(),
        b"definitely not a cache".to_vec(),
        {
            let mut v = bytes.clone();
            v[8] ^= 0xff; // format version
            v
        },
        Vec::new(),
    ];
    for damaged in damages {
        fs::write(&file, &damaged).unwrap();
        let o = run(&env, &["map", repo_s]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(
            o.stdout, good.stdout,
            "the output does not depend on the cache"
        );
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains("ignored") && err.contains("rebuilding"),
            "{err}"
        );
        // Rebuilt: the next run is silent.
        let again = run(&env, &["map", repo_s]);
        assert_eq!(stderr(&again), "");
        assert_eq!(again.stdout, good.stdout);
    }
}

#[test]
fn an_edited_file_is_reparsed_on_the_next_run() {
    let (_tmp, repo, cache) = setup();
    let env = [("MAPSCOPE_CACHE_DIR", cache.as_path())];
    let repo_s = repo.to_str().unwrap();
    run(&env, &["map", repo_s]);
    common::write_files(
        &repo,
        &[(
            "util.py",
            "def helper():\n    return 42\n\ndef renamed_thing():\n    pass\n",
        )],
    );
    let warm = run(&env, &["map", repo_s, "--tokens", "4096"]);
    let fresh = run(&env, &["map", repo_s, "--tokens", "4096", "--no-cache"]);
    let text = String::from_utf8_lossy(&warm.stdout);
    assert!(text.contains("renamed_thing"), "{text}");
    assert_eq!(warm.stdout, fresh.stdout);
}

#[test]
fn cache_clear_removes_one_repo_or_all() {
    let (tmp, repo, cache) = setup();
    let other = tmp.path().join("other");
    common::write_files(&other, &[("x.go", "package x\n\nfunc X() {}\n")]);
    let env = [("MAPSCOPE_CACHE_DIR", cache.as_path())];
    run(&env, &["map", repo.to_str().unwrap()]);
    run(&env, &["map", other.to_str().unwrap()]);
    assert_eq!(cache_files(&cache).len(), 2);

    let o = run(&env, &["cache", "clear", repo.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("removed "));
    assert_eq!(cache_files(&cache).len(), 1);

    let o = run(&env, &["cache", "clear", "--all"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(cache_files(&cache).is_empty());
    let o = run(&env, &["cache", "clear", "--all"]);
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).trim(),
        "no cache to remove"
    );

    let missing = run(&env, &["cache", "clear", "/definitely/not/here"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        stderr(&missing).contains("REPO_NOT_FOUND"),
        "{}",
        stderr(&missing)
    );
}

#[test]
fn a_cache_dir_inside_the_repo_is_refused() {
    let (_tmp, repo, _) = setup();
    let inside = repo.join(".cache");
    let before = tree(&repo);
    let o = run(
        &[("MAPSCOPE_CACHE_DIR", inside.as_path())],
        &["map", repo.to_str().unwrap()],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("inside the repository"),
        "{}",
        stderr(&o)
    );
    assert!(!inside.exists());
    assert_eq!(tree(&repo), before);
}

#[test]
fn concurrent_runs_leave_a_valid_cache() {
    let (_tmp, repo, cache) = setup();
    for i in 0..40 {
        common::write_files(
            &repo,
            &[(&format!("m{i}.py"), &format!("def f{i}():\n    pass\n"))],
        );
    }
    let repo_s = repo.to_str().unwrap().to_string();
    let children: Vec<_> = (0..4)
        .map(|_| {
            Command::new(env!("CARGO_BIN_EXE_mapscope"))
                .args(["stats", &repo_s])
                .env("MAPSCOPE_CACHE_DIR", &cache)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let o = child.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(stderr(&o), "");
    }
    // One complete cache file, no temporary leftovers, and it loads silently.
    let files = cache_files(&cache);
    assert_eq!(files.len(), 1, "{files:?}");
    let o = run(
        &[("MAPSCOPE_CACHE_DIR", cache.as_path())],
        &["stats", &repo_s],
    );
    assert_eq!(stderr(&o), "");
}

#[test]
fn bench_live_times_edits_on_a_scratch_copy_and_leaves_the_repo_untouched() {
    let (_tmp, repo, cache) = setup();
    let before = tree(&repo);
    let o = run(
        &[("MAPSCOPE_CACHE_DIR", cache.as_path())],
        &[
            "bench",
            repo.to_str().unwrap(),
            "--live",
            "--edits",
            "3",
            "--json",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["edits"], 3);
    assert_eq!(report["files"], 3);
    assert!(report["to_map_median_ms"].as_f64().unwrap() > 0.0);
    assert_eq!(tree(&repo), before);
}
