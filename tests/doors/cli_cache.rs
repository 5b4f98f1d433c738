//! The persistent cache through the real binary: where it lives, that it is used and
//! rebuilt when corrupt, `--no-cache`, `mapscope cache clear|path|warm`, the warm-up a map
//! leaves behind, concurrent runs, and that the repository itself is never written to.

use crate::common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the binary with no detached warm-up after a map (`cache warm`): these tests count
/// the files a command itself leaves in the cache. The warm-up has tests of its own.
fn run(cache_env: &[(&str, &Path)], args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mapscope"));
    cmd.args(args)
        .env_remove("MAPSCOPE_CACHE_DIR")
        .env("MAPSCOPE_NO_WARM", "1");
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

/// The names of the files in the cache (one repository's), sorted.
fn cache_names(cache: &Path) -> Vec<String> {
    let mut names: Vec<String> = cache_files(cache)
        .iter()
        .filter_map(|p| Some(p.file_name()?.to_string_lossy().into_owned()))
        .collect();
    names.sort();
    names
}

/// The cache's file called `name` (e.g. `tags.bin`).
fn cache_file(cache: &Path, name: &str) -> PathBuf {
    cache_files(cache)
        .into_iter()
        .find(|p| p.ends_with(name))
        .unwrap_or_else(|| panic!("no {name} in {:?}", cache_files(cache)))
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
    assert_eq!(cache_names(&cache), ["graph.bin", "tags.bin"]);
    let files = cache_files(&cache);
    let written: Vec<_> = files
        .iter()
        .map(|f| fs::metadata(f).unwrap().modified().unwrap())
        .collect();

    let warm = run(&env, &["map", repo_s]);
    assert_eq!(warm.stdout, cold.stdout);
    assert_eq!(stderr(&warm), "");
    // Nothing changed, so nothing was rewritten.
    for (f, t) in files.iter().zip(&written) {
        assert_eq!(&fs::metadata(f).unwrap().modified().unwrap(), t, "{f:?}");
    }

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
    assert_eq!(cache_names(&cache), ["graph.bin", "tags.bin"]);
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
    assert_eq!(files.len(), 2, "{files:?}");
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
    let file = cache_file(&cache, "tags.bin");
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

/// A cache file replaced by an empty directory (which `rename` cannot replace) is removed
/// and written again: one warning, then silent runs. One holding files is left alone.
#[test]
fn a_cache_file_replaced_by_a_directory_is_healed() {
    let (_tmp, repo, cache) = setup();
    let env = [("MAPSCOPE_CACHE_DIR", cache.as_path())];
    let repo_s = repo.to_str().unwrap();
    let good = run(&env, &["map", repo_s]);
    for name in ["tags.bin", "graph.bin"] {
        let file = cache_file(&cache, name);
        fs::remove_file(&file).unwrap();
        fs::create_dir(&file).unwrap();
        let o = run(&env, &["map", repo_s]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(o.stdout, good.stdout);
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{name}: {err}");
        assert!(err.contains("not a regular file"), "{name}: {err}");
        assert!(fs::metadata(&file).unwrap().is_file(), "{name} rewritten");
        let again = run(&env, &["map", repo_s]);
        assert_eq!(stderr(&again), "", "{name}: healed");
    }
    // A directory with something in it is not mapscope's to delete: still said, never lost.
    let file = cache_file(&cache, "tags.bin");
    fs::remove_file(&file).unwrap();
    fs::create_dir(&file).unwrap();
    fs::write(file.join("keep.txt"), "mine").unwrap();
    let o = run(&env, &["map", repo_s]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("a directory holding files"),
        "{}",
        stderr(&o)
    );
    assert_eq!(fs::read_to_string(file.join("keep.txt")).unwrap(), "mine");
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
    // Each repository's tags and graph.
    assert_eq!(cache_files(&cache).len(), 4);

    let o = run(&env, &["cache", "clear", repo.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("removed "));
    assert_eq!(cache_files(&cache).len(), 2);

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
                .env("MAPSCOPE_NO_WARM", "1")
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
    // One complete cache file of each kind, no temporary leftovers, and they load silently.
    assert_eq!(cache_names(&cache), ["docs.bin", "graph.bin", "tags.bin"]);
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

/// Everything under `root` (files, directories, symlinks) with its bytes or link target,
/// never following a link: what must survive `cache clear` byte-identical.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for ent in fs::read_dir(&dir).unwrap().flatten() {
            let path = ent.path();
            let meta = fs::symlink_metadata(&path).unwrap();
            let what = if meta.file_type().is_symlink() {
                format!("link -> {}", fs::read_link(&path).unwrap().display())
            } else if meta.is_dir() {
                stack.push(path.clone());
                "dir".to_string()
            } else {
                format!("file {:?}", fs::read(&path).unwrap())
            };
            out.insert(path, what);
        }
    }
    out
}

/// A cache root that also holds things that are not mapscope caches: `clear --all` removes
/// the two repository caches, reports them, and leaves every other entry byte-identical —
/// plain files and folders, a folder named like a cache without a valid cache file, a real
/// cache folder with a file mapscope did not write, and a link named like a cache.
#[test]
fn cache_clear_all_removes_only_mapscope_caches() {
    let (tmp, repo, cache) = setup();
    let other = tmp.path().join("other");
    common::write_files(&other, &[("x.go", "package x\n\nfunc X() {}\n")]);
    let env = [("MAPSCOPE_CACHE_DIR", cache.as_path())];
    for r in [&repo, &other] {
        let o = run(&env, &["search", r.to_str().unwrap(), "helper"]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let caches: Vec<PathBuf> = fs::read_dir(&cache)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(caches.len(), 2, "{caches:?}");
    let valid = fs::read(caches[0].join("tags.bin")).unwrap();

    // Unrelated entries.
    common::write_files(
        &cache,
        &[
            ("notes.txt", "keep me\n"),
            ("photos/cat.jpg", "meow"),
            ("photos/deep/er.txt", "x"),
            // Named like a cache, but its tags file is not one.
            ("fake-0123456789abcdef/tags.bin", "not a cache at all"),
            // Named like a cache, empty of proof: only a file mapscope never writes.
            ("fake2-0123456789abcdef/README", "mine"),
        ],
    );
    // A valid cache file beside a file mapscope did not write: kept whole.
    common::write_bytes(&cache, "mixed-0123456789abcdef/tags.bin", &valid);
    common::write_files(&cache, &[("mixed-0123456789abcdef/thesis.tex", "years")]);
    // A link named like a cache, to a folder holding a valid cache file.
    let outside = tmp.path().join("outside");
    common::write_bytes(&outside, "tags.bin", &valid);
    std::os::unix::fs::symlink(&outside, cache.join("link-0123456789abcdef")).unwrap();

    let mut expected = snapshot(&cache);
    let outside_before = snapshot(&outside);
    for c in &caches {
        expected.retain(|p, _| !p.starts_with(c));
    }
    let o = run(&env, &["cache", "clear", "--all"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(snapshot(&cache), expected, "only the two caches go");
    assert_eq!(snapshot(&outside), outside_before);
    let out = String::from_utf8_lossy(&o.stdout);
    let removed: Vec<&str> = out.lines().filter(|l| l.starts_with("removed ")).collect();
    assert_eq!(removed.len(), 2, "{out}");
    for c in &caches {
        assert!(out.contains(&c.display().to_string()), "{out}");
    }
    assert!(out.contains("left 3 other entries"), "{out}");
    // The folders named like caches that were kept are named in one warning each.
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 3, "{err}");
    for name in ["fake-", "fake2-", "mixed-"] {
        assert!(err.contains(name), "{err}");
    }
}

/// A cache root that is a repository, holds one, or looks like a source tree is refused
/// with one line and a stable code, and nothing in it changes.
#[test]
fn cache_clear_all_refuses_a_root_that_is_or_holds_a_repository() {
    let (tmp, repo, cache) = setup();
    let env = [("MAPSCOPE_CACHE_DIR", cache.as_path())];
    let o = run(&env, &["map", repo.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));

    // The repository itself as the cache root (it has a `.git`).
    fs::create_dir_all(repo.join(".git")).unwrap();
    // A cache root holding a repository beside a real cache.
    common::write_files(&cache, &[("project/.git/HEAD", "ref: refs/heads/main\n")]);
    common::write_files(&cache, &[("project/src/main.py", "print(1)\n")]);
    // A source tree without git.
    let tree_root = tmp.path().join("tree");
    common::write_files(&tree_root, &[("main.py", "print(1)\n"), ("lib/a.py", "")]);
    // A source tree by its manifest.
    let manifest_root = tmp.path().join("manifest");
    common::write_files(&manifest_root, &[("package.json", "{}\n")]);

    for (root, why) in [
        (&repo, "is a git repository"),
        (&cache, "holds a git repository"),
        (&tree_root, "looks like a source tree"),
        (&manifest_root, "looks like a source tree"),
    ] {
        let before = snapshot(root);
        let o = run(
            &[("MAPSCOPE_CACHE_DIR", root.as_path())],
            &["cache", "clear", "--all"],
        );
        assert_eq!(o.status.code(), Some(2), "{}", root.display());
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("mapscope: UNSAFE_CACHE_DIR: "), "{err}");
        assert!(err.contains(why), "{err}");
        assert!(o.stdout.is_empty());
        assert_eq!(snapshot(root), before, "{}", root.display());
    }
}

/// `cache clear PATH` removes that repository's cache only if the folder holds nothing but
/// mapscope's files; otherwise it is an error and the folder stays whole.
#[test]
fn cache_clear_of_one_repo_keeps_a_folder_holding_other_files() {
    let (_tmp, repo, cache) = setup();
    let env = [("MAPSCOPE_CACHE_DIR", cache.as_path())];
    let repo_s = repo.to_str().unwrap();
    run(&env, &["map", repo_s]);
    let dir = cache_files(&cache)[0].parent().unwrap().to_path_buf();
    common::write_files(&dir, &[("mine.txt", "do not delete\n")]);
    let before = snapshot(&cache);
    let o = run(&env, &["cache", "clear", repo_s]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.starts_with("mapscope: UNSAFE_CACHE_DIR: "), "{err}");
    assert!(err.contains("mine.txt"), "{err}");
    assert_eq!(snapshot(&cache), before);

    fs::remove_file(dir.join("mine.txt")).unwrap();
    let o = run(&env, &["cache", "clear", repo_s]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.starts_with(&format!("removed {} (2 files, ", dir.display())),
        "{out}"
    );
    assert!(!dir.exists());
}

/// A pid that was a process a moment ago and is not any more.
fn dead_pid() -> u32 {
    let mut child = Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

/// Temporary files left by killed writers (their pid is gone, their lock released) are
/// removed by the next run, however young; a live process's, and files of other names,
/// are not.
#[test]
fn temporary_files_of_killed_writers_are_removed_at_the_next_start() {
    let (_tmp, repo, cache) = setup();
    let env = [("MAPSCOPE_CACHE_DIR", cache.as_path())];
    let repo_s = repo.to_str().unwrap();
    run(&env, &["map", repo_s]);
    let dir = cache_files(&cache)[0].parent().unwrap().to_path_buf();
    let dead = dead_pid();
    let live = std::process::id();
    let orphans = [
        format!("tags.bin.{dead}.123.0.tmp"),
        format!("history.json.{dead}.5.1.tmp"),
        format!("history.json.tmp-{dead}"),
    ];
    let kept = [
        format!("tags.bin.{live}.123.0.tmp"),
        "notes.tmp".to_string(),
        format!("tags.bin.{dead}.x.tmp"),
    ];
    for name in orphans.iter().chain(&kept) {
        fs::write(dir.join(name), b"partial").unwrap();
    }
    // A read-only run (the cache is up to date, nothing is saved) cleans up too.
    let o = run(&env, &["map", repo_s]);
    assert!(o.status.success(), "{}", stderr(&o));
    for name in &orphans {
        assert!(!dir.join(name).exists(), "{name} should be gone");
    }
    for name in &kept {
        assert!(dir.join(name).exists(), "{name} should stay");
    }
}

/// Real writers killed with SIGKILL while they stream the cache (a first `map` writes each
/// file's tags as it parses): whatever temporary files they leave, the next run removes.
#[cfg(unix)]
#[test]
fn sigkilled_writers_leave_nothing_after_the_next_run() {
    let (_tmp, repo, cache) = setup();
    for i in 0..300 {
        common::write_files(
            &repo,
            &[(
                &format!("pkg/m{i}.py"),
                &format!("def f{i}(x):\n    return g{i}(x) + {i}\n\ndef g{i}(y):\n    return y\n"),
            )],
        );
    }
    let repo_s = repo.to_str().unwrap();
    let temps = |dir: &Path| -> usize {
        fs::read_dir(dir).map_or(0, |entries| {
            entries
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
                .count()
        })
    };
    let mut dir = None;
    for i in 0..12u64 {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mapscope"))
            .args(["map", repo_s])
            .env("MAPSCOPE_NO_WARM", "1")
            .env("MAPSCOPE_CACHE_DIR", &cache)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20 + 15 * i));
        let _ = child.kill();
        let _ = child.wait();
        dir = dir.or_else(|| {
            fs::read_dir(&cache)
                .ok()?
                .flatten()
                .next()
                .map(|e| e.path())
        });
    }
    let o = run(&[("MAPSCOPE_CACHE_DIR", cache.as_path())], &["map", repo_s]);
    assert!(o.status.success(), "{}", stderr(&o));
    let dir = dir.unwrap_or_else(|| cache_files(&cache)[0].parent().unwrap().to_path_buf());
    assert_eq!(temps(&dir), 0, "{:?}", cache_files(&cache));
    assert!(dir.join("tags.bin").exists());
}

/// `search --json` without its timings (every `*_ms` field).
fn search_json(env: &[(&str, &Path)], args: &[&str]) -> serde_json::Value {
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(map) => {
                map.retain(|k, _| !k.ends_with("_ms"));
                map.values_mut().for_each(strip);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let o = run(env, args);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    strip(&mut v);
    v
}

/// What a warm run answers from the derived caches (the graph, the search index) is what a
/// fresh build answers, before and after an edit (a cache of other inputs is not used), for
/// maps with and without a query and for search.
#[test]
fn answers_from_the_graph_and_search_caches_equal_a_fresh_build() {
    let (_tmp, repo, cache) = setup();
    let env = [("MAPSCOPE_CACHE_DIR", cache.as_path())];
    let repo_s = repo.to_str().unwrap();
    let maps: [&[&str]; 3] = [
        &["map", repo_s, "--tokens", "4096"],
        &["map", repo_s, "--format", "json"],
        &["map", repo_s, "--query", "the helper of main"],
    ];
    let searches: [&[&str]; 2] = [
        &["search", repo_s, "helper", "--json"],
        &["search", repo_s, "serve index", "--files", "--json"],
    ];
    for round in 0..2 {
        for pass in 0..2 {
            for args in maps {
                let cached = run(&env, args);
                assert!(cached.status.success(), "{}", stderr(&cached));
                assert_eq!(stderr(&cached), "", "{args:?}");
                let fresh = run(&env, &[args, &["--no-cache"]].concat());
                assert_eq!(
                    cached.stdout, fresh.stdout,
                    "{args:?} round {round} pass {pass}"
                );
            }
            for args in searches {
                let cached = search_json(&env, args);
                let fresh = search_json(&env, &[args, &["--no-cache"]].concat());
                assert_eq!(cached, fresh, "{args:?} round {round} pass {pass}");
            }
            assert_eq!(
                cache_names(&cache),
                ["docs.bin", "graph.bin", "search.bin", "tags.bin"]
            );
        }
        // An edit that changes the graph (a new caller) and the search hits.
        common::write_files(
            &repo,
            &[(
                "web/index.ts",
                "import { helperTwo } from './two'\nexport function serve(): void { helperTwo() }\n",
            ), ("web/two.ts", "export function helperTwo(): number { return 2 }\n")],
        );
    }
    let stats = stats_json(&env, &["stats", repo_s, "--json"]);
    let fresh = stats_json(&env, &["stats", repo_s, "--json", "--no-cache"]);
    assert_eq!(stats, fresh);
}

/// A graph or search cache that is truncated, garbage, of another version or another
/// repository is never trusted: the answer is a fresh build's, one line says it was
/// ignored, and the next run finds it rebuilt (and is silent).
#[test]
fn a_damaged_graph_or_search_cache_is_ignored_with_one_line_and_rebuilt() {
    let (tmp, repo, cache) = setup();
    let env = [("MAPSCOPE_CACHE_DIR", cache.as_path())];
    let repo_s = repo.to_str().unwrap();
    let search = ["search", repo_s, "helper", "--json"];
    let map = ["map", repo_s, "--tokens", "4096"];
    let good_map = run(&env, &map);
    let good_search = search_json(&env, &search);
    // Another repository's derived files, to be planted under this one's names.
    let other = tmp.path().join("other");
    common::write_files(&other, &[("x.py", "def helper():\n    return 1\n")]);
    let other_cache = tmp.path().join("other-cache");
    let other_env = [("MAPSCOPE_CACHE_DIR", other_cache.as_path())];
    run(
        &other_env,
        &["search", other.to_str().unwrap(), "helper", "--json"],
    );
    for name in ["graph.bin", "search.bin"] {
        let file = cache_file(&cache, name);
        let bytes = fs::read(&file).unwrap();
        let foreign = fs::read(cache_file(&other_cache, name)).unwrap();
        let damages: Vec<Vec<u8>> = vec![
            bytes[..bytes.len() / 2].to_vec(),
            bytes[..20].to_vec(),
            b"definitely not a cache".to_vec(),
            {
                let mut v = bytes.clone();
                v[8] ^= 0xff; // format version
                v
            },
            {
                let mut v = bytes.clone();
                let mid = v.len() / 2;
                v[mid] ^= 0x55;
                v
            },
            Vec::new(),
            // Last: another repository's file describes other inputs, so it is passed over
            // without a word (the unit tests cover one of the same inputs: refused).
            foreign,
        ];
        let last = damages.len() - 1;
        for (k, damaged) in damages.into_iter().enumerate() {
            fs::write(&file, &damaged).unwrap();
            let (o, answer_ok) = if name == "graph.bin" {
                let o = run(&env, &map);
                let same = o.stdout == good_map.stdout;
                (o, same)
            } else {
                let o = run(&env, &search);
                let mut v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
                // Compared without timings, as `search_json` does.
                let same = {
                    let again = search_json(&env, &search);
                    v.as_object_mut().unwrap().remove("diagnostics");
                    let mut good = good_search.clone();
                    good.as_object_mut().unwrap().remove("diagnostics");
                    let mut again = again;
                    again.as_object_mut().unwrap().remove("diagnostics");
                    v == good && again == good
                };
                (o, same)
            };
            assert!(o.status.success(), "{name} #{k}: {}", stderr(&o));
            assert!(
                answer_ok,
                "{name} damage #{k}: the answer does not depend on the cache"
            );
            let err = stderr(&o);
            if k == last {
                assert_eq!(err, "", "{name} #{k}");
            } else {
                assert_eq!(err.lines().count(), 1, "{name} #{k}: {err}");
                assert!(
                    err.contains("ignored") && err.contains("rebuilding"),
                    "{err}"
                );
            }
            assert_ne!(fs::read(&file).unwrap(), damaged, "{name} #{k} rebuilt");
            let again = if name == "graph.bin" {
                run(&env, &map)
            } else {
                run(&env, &search)
            };
            assert_eq!(stderr(&again), "", "{name} #{k}");
        }
    }
}

/// A warm map leaves the cached references undecoded unless the graph must be linked again:
/// then they are read, and the map is the one a cold run ranks (the hub first).
#[test]
fn a_warm_map_without_its_cached_graph_links_from_the_cached_references() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let user = |n: usize| {
        (
            format!("user{n}.py"),
            format!("from hub import shared_helper\n\ndef use{n}():\n    return shared_helper()\n"),
        )
    };
    let mut files: Vec<(String, String)> = (0..4).map(user).collect();
    files.push((
        "hub.py".into(),
        "def shared_helper():\n    return 42\n".into(),
    ));
    files.push((
        "aaa_lonely.py".into(),
        "def alone():\n    return 0\n\ndef also_alone():\n    return 1\n".into(),
    ));
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    common::write_files(&repo, &refs);
    // Modified well before the cache is written, so that warm runs take the entries unread
    // (a file modified within the racy window is read and looked up by content).
    let old = std::time::SystemTime::now() - std::time::Duration::from_hours(1);
    for (path, _) in &files {
        let f = fs::File::options()
            .write(true)
            .open(repo.join(path))
            .unwrap();
        f.set_modified(old).unwrap();
    }
    let cache = tmp.path().join("cache");
    let env = [("MAPSCOPE_CACHE_DIR", cache.as_path())];
    let map = [
        "map",
        repo.to_str().unwrap(),
        "--tokens",
        "20",
        "--format",
        "json",
    ];

    let cold = run(&env, &map);
    assert!(cold.status.success(), "{}", stderr(&cold));
    let shown: serde_json::Value = serde_json::from_slice(&cold.stdout).unwrap();
    // The references rank the hub above the even share of six files.
    assert_eq!(shown["files"][0]["path"], "hub.py", "{shown}");
    assert!(shown["files"][0]["rank"].as_f64().unwrap() > 0.2, "{shown}");
    fs::remove_file(cache_file(&cache, "graph.bin")).unwrap();
    let relinked = run(&env, &map);
    assert_eq!(stderr(&relinked), "");
    let relinked: serde_json::Value = serde_json::from_slice(&relinked.stdout).unwrap();
    assert_eq!(relinked, shown);
    assert!(
        cache_file(&cache, "graph.bin").exists(),
        "graph saved again"
    );
    let warm: serde_json::Value = serde_json::from_slice(&run(&env, &map).stdout).unwrap();
    assert_eq!(warm, shown);
}

/// A command's output with what may differ between runs left out: every `*_ms` timing, and
/// stats' `times`.
fn comparable(stdout: &[u8]) -> String {
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(map) => {
                map.retain(|k, _| !k.ends_with("_ms") && k != "times");
                map.values_mut().for_each(strip);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    match serde_json::from_slice::<serde_json::Value>(stdout) {
        Ok(mut v) => {
            strip(&mut v);
            v.to_string()
        }
        Err(_) => String::from_utf8_lossy(stdout).into_owned(),
    }
}

/// What a command answers does not depend on which commands filled the cache before it:
/// every order of the commands that write the cache differently (a one-shot map, a map with
/// a query, search, stats, explain) on a fresh cache answers each as its `--no-cache` twin
/// does. The fixture has a file of every language, Java, C# and PHP importing through their
/// package and namespace declarations (a one-shot map once bound those to nothing, and the
/// graph it saved served every later command).
#[test]
fn every_command_in_every_order_answers_as_its_no_cache_twin() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    common::write_files(
        &repo,
        &[
            ("src/main/java/org/demo/core/Engine.java", "package org.demo.core;\n\npublic class Engine {\n    public int run() { return 1; }\n}\n"),
            ("src/main/java/org/demo/core/Limits.java", "package org.demo.core;\n\npublic class Limits {\n    public int max() { return 2; }\n}\n"),
            ("src/main/java/org/demo/app/Main.java", "package org.demo.app;\n\nimport org.demo.core.Engine;\nimport org.demo.core.Limits;\n\npublic class Main {\n    public int go() { return new Engine().run() + new Limits().max(); }\n}\n"),
            ("src/main/java/org/demo/app/Cli.java", "package org.demo.app;\n\nimport org.demo.core.Engine;\n\npublic class Cli {\n    public int start() { return new Engine().run(); }\n}\n"),
            ("cs/Core/Store.cs", "namespace Demo.Core {\n    public class Store { public int Load() { return 1; } }\n}\n"),
            ("cs/App/Program.cs", "using Demo.Core;\nnamespace Demo.App {\n    public class Program { public int Main() { return new Store().Load(); } }\n}\n"),
            ("php/src/Core/Cache.php", "<?php\nnamespace Demo\\Core;\n\nclass Cache {\n    public function get() { return 1; }\n}\n"),
            ("php/src/App/Page.php", "<?php\nnamespace Demo\\App;\n\nuse Demo\\Core\\Cache;\n\nclass Page {\n    public function show() { return (new Cache())->get(); }\n}\n"),
            ("rs/src/lib.rs", "pub mod store;\npub fn top() -> u32 { store::load() }\n"),
            ("rs/src/store.rs", "pub fn load() -> u32 { 1 }\n"),
            ("rb/lib/store.rb", "module Demo\n  class Store\n    def load\n      1\n    end\n  end\nend\n"),
            ("rb/lib/app.rb", "require_relative 'store'\n\nclass App\n  def run\n    Demo::Store.new.load\n  end\nend\n"),
            ("py/app.py", "from util import helper\n\ndef main():\n    return helper()\n"),
            ("py/util.py", "def helper():\n    return 42\n"),
            ("web/index.ts", "export function serve(): void {}\n"),
            ("README.md", "# demo\n\nThe engine runs the store.\n"),
        ],
    );
    let repo_s = repo.to_str().unwrap();
    let commands: Vec<Vec<&str>> = vec![
        vec!["map", repo_s, "--tokens", "4096"],
        vec![
            "map",
            repo_s,
            "--format",
            "json",
            "--query",
            "engine run limits",
        ],
        vec!["search", repo_s, "Engine run", "--json"],
        vec!["stats", repo_s, "--json"],
        vec![
            "map",
            repo_s,
            "--explain",
            "src/main/java/org/demo/core/Engine.java",
        ],
    ];
    let answer = |env: &[(&str, &Path)], args: &[&str]| {
        let o = run(env, args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o), "", "{args:?}");
        comparable(&o.stdout)
    };
    let no_cache_env = [("MAPSCOPE_CACHE_DIR", tmp.path().join("unused"))];
    let no_cache_env: Vec<(&str, &Path)> = no_cache_env
        .iter()
        .map(|(k, v)| (*k, v.as_path()))
        .collect();
    let twins: Vec<String> = commands
        .iter()
        .map(|c| answer(&no_cache_env, &[&c[..], &["--no-cache"]].concat()))
        .collect();
    // Every permutation of the commands, each on a fresh cache of its own.
    fn permutations(items: &[usize]) -> Vec<Vec<usize>> {
        if items.len() <= 1 {
            return vec![items.to_vec()];
        }
        let mut out = Vec::new();
        for (i, &first) in items.iter().enumerate() {
            let mut rest = items.to_vec();
            rest.remove(i);
            for mut tail in permutations(&rest) {
                tail.insert(0, first);
                out.push(tail);
            }
        }
        out
    }
    let orders = permutations(&(0..commands.len()).collect::<Vec<_>>());
    assert_eq!(orders.len(), 120);
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(order) = orders.get(k) else { break };
                let cache = tmp.path().join(format!("cache-{k}"));
                let env = [("MAPSCOPE_CACHE_DIR", cache.as_path())];
                for &c in order {
                    assert_eq!(
                        answer(&env, &commands[c]),
                        twins[c],
                        "{:?} in the order {order:?}",
                        commands[c]
                    );
                }
                let _ = fs::remove_dir_all(&cache);
            });
        }
    });
}

/// The size and modification time of the cache's file `name`, or `None` while it is missing.
fn stamp(cache: &Path, name: &str) -> Option<(u64, std::time::SystemTime)> {
    let path = cache_files(cache).into_iter().find(|p| p.ends_with(name))?;
    let meta = fs::metadata(path).ok()?;
    Some((meta.len(), meta.modified().ok()?))
}

#[test]
fn cache_warm_builds_what_search_reads_and_search_then_rebuilds_nothing() {
    let (_tmp, repo, cache) = setup();
    common::git(&repo, &["init", "-q"]);
    common::git(&repo, &["add", "."]);
    common::git(&repo, &["commit", "-q", "-m", "Add the helper"]);
    let env = [("MAPSCOPE_CACHE_DIR", cache.as_path())];
    let repo_s = repo.to_str().unwrap();
    let before = tree(&repo);

    let warm = run(&env, &["cache", "warm", repo_s]);
    assert!(warm.status.success(), "{}", stderr(&warm));
    let line = String::from_utf8_lossy(&warm.stdout).into_owned();
    assert!(line.starts_with("warmed: "), "{line}");
    assert!(line.contains("history of 1 commit)"), "{line}");
    for name in [
        "tags.bin",
        "graph.bin",
        "search.bin",
        "history-index.bin",
        "docs.bin",
    ] {
        assert!(
            stamp(&cache, name).is_some(),
            "{name}: {:?}",
            cache_names(&cache)
        );
    }
    let stamps = |c: &Path| {
        [
            "search.bin",
            "history-index.bin",
            "graph.bin",
            "tags.bin",
            "docs.bin",
        ]
        .map(|n| stamp(c, n))
    };
    let warmed = stamps(&cache);

    // What a search reads is what the warm-up built: nothing is built or written again.
    let search = run(&env, &["search", repo_s, "helper", "--json"]);
    assert!(search.status.success(), "{}", stderr(&search));
    assert_eq!(stamps(&cache), warmed);
    let again = run(&env, &["cache", "warm", repo_s]);
    assert!(String::from_utf8_lossy(&again.stdout).starts_with("already warm: "));
    assert_eq!(stamps(&cache), warmed);
    assert_eq!(tree(&repo), before, "the repository was written to");
}

#[test]
fn a_cold_map_leaves_a_warm_up_behind_that_builds_the_search_index() {
    let (_tmp, repo, cache) = setup();
    let repo_s = repo.to_str().unwrap();
    // The warm-up is on by default: this run does not set MAPSCOPE_NO_WARM.
    let map = Command::new(env!("CARGO_BIN_EXE_mapscope"))
        .args(["map", repo_s])
        .env("MAPSCOPE_CACHE_DIR", &cache)
        .env_remove("MAPSCOPE_NO_WARM")
        .output()
        .unwrap();
    assert!(map.status.success(), "{}", stderr(&map));
    // The map's own output never waits for it, and it is not the map's to report.
    assert_eq!(stderr(&map), "");
    let deadline = std::time::Instant::now() + std::time::Duration::from_mins(1);
    while stamp(&cache, "search.bin").is_none() {
        assert!(
            std::time::Instant::now() < deadline,
            "no search index 60 s after a cold map: {:?}",
            cache_names(&cache)
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // Once it is done (its lock is free), a search finds the index it needs in the cache.
    let env = [("MAPSCOPE_CACHE_DIR", cache.as_path())];
    let done = run(&env, &["cache", "warm", repo_s]);
    assert!(String::from_utf8_lossy(&done.stdout).starts_with("already warm: "));
    let built = stamp(&cache, "search.bin");
    let search = run(&env, &["search", repo_s, "helper", "--json"]);
    assert!(search.status.success(), "{}", stderr(&search));
    assert_eq!(stamp(&cache, "search.bin"), built);
    // A warm map with the search index in the cache starts none: nothing is left to build.
    let warm_map = run(&env, &["map", repo_s]);
    assert_eq!(warm_map.stdout, map.stdout);
}
