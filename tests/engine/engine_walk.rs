//! The file walk and source loading, against fixture trees built in temp dirs.

use crate::common;

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::{hostile_repo, write_bytes, write_files, HOSTILE_WALKED};
use mapscope::engine::base::model::{GoModule, SkipReason, Skipped};
use mapscope::engine::ingest::content::load_source;
use mapscope::engine::ingest::walk::{walk, PathFilter, WalkClass, WalkOptions, WalkOutput};
use mapscope::engine::EngineError;

fn walk_default(root: &Path) -> WalkOutput {
    walk(root, &WalkOptions::default()).expect("walk")
}

fn file_paths(out: &WalkOutput) -> Vec<&str> {
    out.files.iter().map(|f| f.rel_path.as_str()).collect()
}

fn doc_paths(out: &WalkOutput) -> Vec<&str> {
    out.docs.iter().map(|f| f.rel_path.as_str()).collect()
}

fn skip_reason(out: &WalkOutput, path: &str) -> Option<SkipReason> {
    out.skipped
        .iter()
        .find(|s| s.path == path)
        .map(|s| s.reason)
}

fn skipped(path: &str, reason: SkipReason) -> Skipped {
    Skipped {
        path: path.to_string(),
        reason,
    }
}

fn load(out: &WalkOutput, rel: &str) -> Result<String, SkipReason> {
    let f = out
        .files
        .iter()
        .find(|f| f.rel_path == rel)
        .unwrap_or_else(|| panic!("{rel} not walked"));
    load_source(
        &f.abs_path,
        &f.rel_path,
        WalkOptions::default().max_file_size,
    )
}

#[test]
fn hostile_repo_walk_lists_exactly_the_expected_files_and_skips() {
    let repo = hostile_repo();
    let started = Instant::now();
    let out = walk_default(repo.path());
    // The symlink loops must neither hang nor error out the walk.
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(file_paths(&out), HOSTILE_WALKED);
    let mut expected = vec![
        skipped(".hidden", SkipReason::Hidden),
        skipped("dist", SkipReason::BuildOutput),
        skipped("huge_line.js", SkipReason::TooLarge),
        skipped("node_modules", SkipReason::NodeModules),
        skipped("vendor", SkipReason::Vendor),
    ];
    if repo.path().join("pipe.ts").exists() {
        expected.push(skipped("pipe.ts", SkipReason::Unreadable));
        expected.sort_by(|a, b| a.path.cmp(&b.path));
    }
    assert_eq!(out.skipped, expected);
    assert!(out.docs.is_empty());
    assert!(out.go_modules.is_empty());
    for f in &out.files {
        assert!(f.abs_path.is_absolute(), "{}", f.abs_path.display());
        assert_eq!(f.size, fs::symlink_metadata(&f.abs_path).unwrap().len());
    }
}

#[test]
fn hostile_repo_load_source_reasons() {
    let repo = hostile_repo();
    let out = walk_default(repo.path());
    let ok = load(&out, "ok.ts").expect("ok.ts loads");
    assert!(ok.contains("export function greet"));
    assert!(load(&out, "ok.py").unwrap().contains("def add"));
    // Syntax errors are the parser's business, not a skip reason.
    for broken in ["broken.ts", "broken.py", "broken.go"] {
        assert!(load(&out, broken).is_ok(), "{broken}");
    }
    assert_eq!(load(&out, "bin.ts"), Err(SkipReason::Binary));
    assert_eq!(load(&out, "long.js"), Err(SkipReason::Minified));
    assert_eq!(load(&out, "gen.go"), Err(SkipReason::Generated));
    let latin = load(&out, "latin1.py").expect("invalid UTF-8 is replaced, not skipped");
    assert!(latin.contains("def latin():"));
    assert!(latin.contains("caf\u{FFFD} cr\u{FFFD}me"));

    let huge = repo.path().join("huge_line.js");
    assert_eq!(
        load_source(&huge, "huge_line.js", 1024 * 1024),
        Err(SkipReason::TooLarge)
    );
    let secret = repo.path().join("secret.py");
    if !common::can_read_mode_000(&secret) {
        assert_eq!(load(&out, "secret.py"), Err(SkipReason::Unreadable));
    }
}

#[test]
fn vanished_file_is_unreadable() {
    let repo = hostile_repo();
    let out = walk_default(repo.path());
    let ok = out.files.iter().find(|f| f.rel_path == "ok.ts").unwrap();
    fs::remove_file(&ok.abs_path).unwrap();
    assert_eq!(
        load_source(&ok.abs_path, &ok.rel_path, 1 << 20),
        Err(SkipReason::Unreadable)
    );
}

#[test]
fn directory_and_symlink_are_unreadable_for_load_source() {
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path(), &[("d/x.ts", "x\n")]);
    assert_eq!(
        load_source(&dir.path().join("d"), "d", 1 << 20),
        Err(SkipReason::Unreadable)
    );
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("d/x.ts", dir.path().join("link.ts")).unwrap();
        assert_eq!(
            load_source(&dir.path().join("link.ts"), "link.ts", 1 << 20),
            Err(SkipReason::Unreadable)
        );
    }
}

#[cfg(unix)]
#[test]
fn fifo_is_skipped_and_never_opened() {
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path(), &[("a.ts", "export const a = 1;\n")]);
    let pipe = dir.path().join("pipe.ts");
    if !common::make_fifo(&pipe) {
        eprintln!("mkfifo unavailable: skipping");
        return;
    }
    // Run on a thread so that a regression (opening the FIFO) fails instead of hanging.
    let root = dir.path().to_path_buf();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let out = walk(&root, &WalkOptions::default()).unwrap();
        let loaded = load_source(&root.join("pipe.ts"), "pipe.ts", 1 << 20);
        let _ = tx.send((out, loaded));
    });
    let (out, loaded) = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("walk or load_source blocked on a FIFO");
    assert_eq!(file_paths(&out), ["a.ts"]);
    assert_eq!(skip_reason(&out, "pipe.ts"), Some(SkipReason::Unreadable));
    assert_eq!(loaded, Err(SkipReason::Unreadable));
}

#[cfg(unix)]
#[test]
fn symlinks_are_never_followed() {
    use std::os::unix::fs::symlink;
    let outside = tempfile::tempdir().unwrap();
    write_files(outside.path(), &[("secret.ts", "export const s = 1;\n")]);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_files(root, &[("real/a.ts", "export const a = 1;\n")]);
    symlink(".", root.join("loop")).unwrap();
    symlink("../real", root.join("real/again")).unwrap();
    symlink(outside.path(), root.join("ext")).unwrap();
    symlink("real/a.ts", root.join("alias.ts")).unwrap();
    symlink("missing.ts", root.join("dangling.ts")).unwrap();
    let out = walk_default(root);
    assert_eq!(file_paths(&out), ["real/a.ts"]);
    // Symlinks are neither indexed nor reported.
    assert!(out.skipped.is_empty(), "{:?}", out.skipped);
}

#[cfg(unix)]
#[test]
fn root_given_as_a_symlink_is_walked() {
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path(), &[("repo/a.ts", "x\n")]);
    std::os::unix::fs::symlink(dir.path().join("repo"), dir.path().join("link")).unwrap();
    let out = walk_default(&dir.path().join("link"));
    assert_eq!(file_paths(&out), ["a.ts"]);
}

#[test]
fn missing_root_is_repo_not_found() {
    let dir = tempfile::tempdir().unwrap();
    let err = walk(&dir.path().join("nope"), &WalkOptions::default()).unwrap_err();
    assert!(matches!(err, EngineError::RepoNotFound(_)), "{err:?}");
    assert_eq!(err.code(), "REPO_NOT_FOUND");
    write_files(dir.path(), &[("a.ts", "x\n")]);
    let under_file = walk(&dir.path().join("a.ts/sub"), &WalkOptions::default()).unwrap_err();
    assert!(
        matches!(under_file, EngineError::RepoNotFound(_)),
        "{under_file:?}"
    );
}

#[test]
fn file_root_is_invalid_repo() {
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path(), &[("a.ts", "x\n")]);
    let err = walk(&dir.path().join("a.ts"), &WalkOptions::default()).unwrap_err();
    assert!(matches!(err, EngineError::InvalidRepo(_)), "{err:?}");
    assert_eq!(err.code(), "INVALID_REPO");
}

#[test]
fn gitignore_is_honoured_without_a_git_dir() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (".gitignore", "ignored.ts\ncache/\n*.gen.ts\n!keep.gen.ts\n"),
            ("ignored.ts", "x\n"),
            ("cache/c.ts", "x\n"),
            ("a.gen.ts", "x\n"),
            ("keep.gen.ts", "x\n"),
            ("sub/.gitignore", "local.py\n"),
            ("sub/local.py", "x\n"),
            ("sub/kept.py", "x\n"),
            ("main.ts", "x\n"),
        ],
    );
    let out = walk_default(dir.path());
    assert_eq!(file_paths(&out), ["keep.gen.ts", "main.ts", "sub/kept.py"]);
    // Ignored entries are dropped silently; only the hidden ignore files are listed.
    assert_eq!(
        out.skipped,
        [
            skipped(".gitignore", SkipReason::Hidden),
            skipped("sub/.gitignore", SkipReason::Hidden)
        ]
    );
}

#[test]
fn mapscopeignore_is_honoured() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (".mapscopeignore", "fixtures/\n*.snap.ts\n"),
            ("fixtures/f.ts", "x\n"),
            ("a.snap.ts", "x\n"),
            ("pkg/.mapscopeignore", "old.go\n"),
            ("pkg/old.go", "package pkg\n"),
            ("pkg/new.go", "package pkg\n"),
            ("a.ts", "x\n"),
        ],
    );
    let out = walk_default(dir.path());
    assert_eq!(file_paths(&out), ["a.ts", "pkg/new.go"]);
}

#[test]
fn git_info_exclude_is_honoured_in_a_git_repo() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let initialised = Command::new("git")
        .args(["init", "-q"])
        .current_dir(root)
        .status()
        .is_ok_and(|s| s.success());
    if !initialised {
        // Without git, lay out the minimum the ignore crate looks for.
        write_files(root, &[(".git/HEAD", "ref: refs/heads/main\n")]);
    }
    write_files(
        root,
        &[
            (".git/info/exclude", "excluded.ts\nscratch/\n"),
            ("excluded.ts", "x\n"),
            ("scratch/s.py", "x\n"),
            ("kept.ts", "x\n"),
        ],
    );
    let out = walk_default(root);
    assert_eq!(file_paths(&out), ["kept.ts"]);
    assert_eq!(out.skipped, [skipped(".git", SkipReason::Hidden)]);
}

#[test]
fn max_sizes_are_configurable_and_come_from_metadata() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            ("at.ts", "0123456789"),
            ("over.ts", "0123456789A"),
            ("at.md", "01234"),
            ("over.md", "012345"),
        ],
    );
    let opts = WalkOptions {
        max_file_size: 10,
        max_doc_size: 5,
        ..WalkOptions::default()
    };
    let out = walk(dir.path(), &opts).unwrap();
    assert_eq!(file_paths(&out), ["at.ts"]);
    assert_eq!(out.files[0].size, 10);
    assert_eq!(doc_paths(&out), ["at.md"]);
    assert_eq!(
        out.skipped,
        [
            skipped("over.md", SkipReason::TooLarge),
            skipped("over.ts", SkipReason::TooLarge)
        ]
    );
    let at = dir.path().join("at.ts");
    assert!(load_source(&at, "at.ts", 10).is_ok());
    assert_eq!(load_source(&at, "at.ts", 9), Err(SkipReason::TooLarge));
}

#[test]
fn defaults_are_one_mib_and_256_kib() {
    let opts = WalkOptions::default();
    assert_eq!(opts.max_file_size, 1024 * 1024);
    assert_eq!(opts.max_doc_size, 256 * 1024);
}

#[test]
fn skipped_directories_are_recorded_once_with_their_path() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            ("node_modules/a/index.js", "x\n"),
            ("node_modules/a/b.js", "x\n"),
            ("packages/ui/node_modules/react/index.js", "x\n"),
            ("packages/ui/index.ts", "x\n"),
            ("vendor/golang.org/x/y.go", "package y\n"),
            ("cmd/vendor/z.go", "package z\n"),
            (".github/workflows/ci.yml", "on: push\n"),
            (".vscode/settings.json", "{}\n"),
            (".env", "A=1\n"),
            ("pkg/.hidden.ts", "x\n"),
            ("main.go", "package main\n"),
        ],
    );
    let out = walk_default(dir.path());
    assert_eq!(file_paths(&out), ["main.go", "packages/ui/index.ts"]);
    assert_eq!(
        out.skipped,
        [
            skipped(".env", SkipReason::Hidden),
            skipped(".github", SkipReason::Hidden),
            skipped(".vscode", SkipReason::Hidden),
            skipped("cmd/vendor", SkipReason::Vendor),
            skipped("node_modules", SkipReason::NodeModules),
            skipped("packages/ui/node_modules", SkipReason::NodeModules),
            skipped("pkg/.hidden.ts", SkipReason::Hidden),
            skipped("vendor", SkipReason::Vendor),
        ]
    );
}

#[test]
fn build_output_needs_sources_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            // A JS project compiling src/ → dist/ and lib/.
            ("web/package.json", "{}\n"),
            ("web/src/a.ts", "x\n"),
            ("web/dist/a.js", "x\n"),
            ("web/lib/a.js", "x\n"),
            // A JS project whose hand-written sources live in lib/: kept.
            ("jslib/package.json", "{}\n"),
            ("jslib/lib/index.js", "x\n"),
            ("jslib/out/index.js", "x\n"),
            // A Python project: lib/ kept, build/ beside pyproject.toml is output.
            ("py/pyproject.toml", "[project]\n"),
            ("py/lib/mod.py", "x\n"),
            ("py/build/lib/mod.py", "x\n"),
            // No sources, no manifest beside: a Go package called build is kept.
            ("go/build/build.go", "package build\n"),
            ("go/dist/dist.go", "package dist\n"),
            // SvelteKit-style src/lib is sources.
            ("kit/src/lib/util.ts", "x\n"),
        ],
    );
    let out = walk_default(dir.path());
    assert_eq!(
        file_paths(&out),
        [
            "go/build/build.go",
            "go/dist/dist.go",
            "jslib/lib/index.js",
            "kit/src/lib/util.ts",
            "py/lib/mod.py",
            "web/src/a.ts",
        ]
    );
    assert_eq!(skip_reason(&out, "web/dist"), Some(SkipReason::BuildOutput));
    assert_eq!(skip_reason(&out, "web/lib"), Some(SkipReason::BuildOutput));
    assert_eq!(
        skip_reason(&out, "jslib/out"),
        Some(SkipReason::BuildOutput)
    );
    assert_eq!(skip_reason(&out, "py/build"), Some(SkipReason::BuildOutput));
    assert_eq!(out.skipped.len(), 4, "{:?}", out.skipped);
}

#[test]
fn minified_names_are_skipped_by_the_walk() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            ("a.min.js", "x\n"),
            ("b.min.mjs", "x\n"),
            ("c-min.js", "x\n"),
            ("d.bundle.js", "x\n"),
            ("admin.js", "x\n"),
        ],
    );
    let out = walk_default(dir.path());
    assert_eq!(file_paths(&out), ["admin.js"]);
    for p in ["a.min.js", "b.min.mjs", "c-min.js", "d.bundle.js"] {
        assert_eq!(skip_reason(&out, p), Some(SkipReason::Minified), "{p}");
    }
}

#[test]
fn docs_are_prose_and_config_but_not_lockfiles() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            ("README", "hi\n"),
            ("docs/guide.md", "# Guide\n"),
            ("docs/page.mdx", "x\n"),
            ("docs/api.rst", "x\n"),
            ("notes.txt", "x\n"),
            ("package.json", "{}\n"),
            ("tsconfig.json", "{}\n"),
            ("config.yaml", "a: 1\n"),
            ("ci.yml", "a: 1\n"),
            ("pyproject.toml", "[project]\n"),
            ("package-lock.json", "{}\n"),
            ("pnpm-lock.yaml", "x\n"),
            ("yarn.lock", "x\n"),
            ("logo.png", "x\n"),
            ("Makefile", "x\n"),
            ("index.ts", "x\n"),
        ],
    );
    let out = walk_default(dir.path());
    assert_eq!(file_paths(&out), ["index.ts"]);
    assert_eq!(
        doc_paths(&out),
        [
            "README",
            "ci.yml",
            "config.yaml",
            "docs/api.rst",
            "docs/guide.md",
            "docs/page.mdx",
            "notes.txt",
            "package.json",
            "pyproject.toml",
            "tsconfig.json",
        ]
    );
    assert!(out.skipped.is_empty(), "{:?}", out.skipped);
}

#[test]
fn output_is_sorted_by_path_with_slash_separators_and_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            ("a.ts", "x\n"),
            ("a/b.ts", "x\n"),
            ("a-b.ts", "x\n"),
            ("a/b/c/d.py", "x\n"),
            ("B.go", "package b\n"),
            ("z/README.md", "x\n"),
            ("README.md", "x\n"),
        ],
    );
    let first = walk_default(dir.path());
    let second = walk_default(dir.path());
    assert_eq!(first, second);
    let paths = file_paths(&first);
    let mut sorted = paths.clone();
    sorted.sort_unstable();
    assert_eq!(paths, sorted);
    assert!(paths.contains(&"a/b/c/d.py"));
    assert_eq!(doc_paths(&first), ["README.md", "z/README.md"]);
}

#[test]
fn hostile_walk_is_deterministic() {
    let repo = hostile_repo();
    assert_eq!(walk_default(repo.path()), walk_default(repo.path()));
}

#[test]
fn bom_is_stripped_and_invalid_utf8_replaced() {
    let dir = tempfile::tempdir().unwrap();
    write_bytes(dir.path(), "bom.ts", b"\xEF\xBB\xBFexport const a = 1;\n");
    write_bytes(dir.path(), "bad.py", b"x = '\xff\xfe'\n\xEF\xBB\xBF\n");
    let bom = load_source(&dir.path().join("bom.ts"), "bom.ts", 1 << 20).unwrap();
    assert_eq!(bom, "export const a = 1;\n");
    let bad = load_source(&dir.path().join("bad.py"), "bad.py", 1 << 20).unwrap();
    // Only a leading BOM is stripped.
    assert_eq!(bad, "x = '\u{FFFD}\u{FFFD}'\n\u{FEFF}\n");
}

#[test]
fn go_modules_are_found_and_parsed() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            ("go.mod", "module example.com/root\n\ngo 1.22\n"),
            (
                "tools/go.mod",
                "// tools are a separate module\nmodule \"example.com/root/tools\" // quoted\n",
            ),
            ("svc/api/go.mod", "module (\n\texample.com/api\n)\n"),
            ("broken/go.mod", "go 1.22\n"),
            ("vendor/x/go.mod", "module example.com/vendored\n"),
            ("node_modules/y/go.mod", "module example.com/nm\n"),
            (".hidden/go.mod", "module example.com/hidden\n"),
            ("main.go", "package main\n"),
        ],
    );
    let out = walk_default(dir.path());
    let gm = |dir: &str, module: &str| GoModule {
        dir: dir.to_string(),
        module: module.to_string(),
    };
    assert_eq!(
        out.go_modules,
        [
            gm("", "example.com/root"),
            gm("svc/api", "example.com/api"),
            gm("tools", "example.com/root/tools"),
        ]
    );
    assert_eq!(file_paths(&out), ["main.go"]);
}

#[test]
fn tsconfig_paths_are_found_and_the_configs_stay_docs() {
    let dir = tempfile::tempdir().unwrap();
    let paths = r#"{"compilerOptions": {"paths": {"@a/*": ["src/a/*"]}}}"#;
    write_files(
        dir.path(),
        &[
            // JSONC: a comment and a trailing comma.
            (
                "tsconfig.json",
                "{ // root\n \"compilerOptions\": {\"baseUrl\": \"src\",},}",
            ),
            // A folder's `jsconfig.json` counts only without a `tsconfig.json` beside it.
            ("web/tsconfig.json", paths),
            (
                "web/jsconfig.json",
                r#"{"compilerOptions": {"baseUrl": "."}}"#,
            ),
            ("js/jsconfig.json", paths),
            // Nor beside a `tsconfig.json` that sets no aliases: tsc reads only the latter.
            (
                "both/tsconfig.json",
                r#"{"compilerOptions": {"strict": true}}"#,
            ),
            ("both/jsconfig.json", paths),
            // No paths nor baseUrl, a broken file, pruned folders: nothing.
            (
                "plain/tsconfig.json",
                r#"{"compilerOptions": {"strict": true}}"#,
            ),
            ("broken/tsconfig.json", "{"),
            ("node_modules/x/tsconfig.json", paths),
            (".hidden/tsconfig.json", paths),
            ("web/src/a/b.ts", "export const b = 1;\n"),
        ],
    );
    let out = walk_default(dir.path());
    let found: Vec<(&str, &str, bool, usize)> = out
        .ts_paths
        .iter()
        .map(|t| (t.dir.as_str(), t.base.as_str(), t.base_url, t.paths.len()))
        .collect();
    assert_eq!(
        found,
        [
            ("", "src", true, 0),
            ("js", "js", false, 1),
            ("web", "web", false, 1)
        ]
    );
    assert!(doc_paths(&out).contains(&"web/tsconfig.json"));
}

#[cfg(unix)]
#[test]
fn unlistable_directory_is_recorded_unreadable() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path(), &[("locked/a.ts", "x\n"), ("b.ts", "x\n")]);
    let locked = dir.path().join("locked");
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    let listable = fs::read_dir(&locked).is_ok();
    let out = walk_default(dir.path());
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
    if listable {
        eprintln!("running as root: mode 000 does not stop listing");
        return;
    }
    assert_eq!(file_paths(&out), ["b.ts"]);
    assert_eq!(skip_reason(&out, "locked"), Some(SkipReason::Unreadable));
}

#[test]
fn walking_five_thousand_files_is_fast() {
    let dir = tempfile::tempdir().unwrap();
    for d in 0..50 {
        for f in 0..100 {
            let ext = ["ts", "py", "go", "js", "md"][f % 5];
            write_bytes(dir.path(), &format!("pkg{d}/sub/file{f}.{ext}"), b"x\n");
        }
    }
    write_files(dir.path(), &[(".gitignore", "*.log\n")]);
    let _warm = walk_default(dir.path());
    // The best of a few runs: the machine is shared, and we measure the walk, not the noise.
    let mut elapsed = Duration::MAX;
    let mut out = WalkOutput::default();
    for _ in 0..5 {
        let started = Instant::now();
        out = walk_default(dir.path());
        elapsed = elapsed.min(started.elapsed());
    }
    eprintln!("walk of 5,000 files: {elapsed:?}");
    assert_eq!(out.files.len() + out.docs.len(), 5000);
    // Loose bound: the CI machine is shared; a regression that reads files would blow it.
    assert!(elapsed < Duration::from_secs(2), "{elapsed:?}");
}

#[cfg(target_os = "linux")]
#[test]
fn non_utf8_file_name_gets_a_lossy_rel_path_and_still_loads() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.py");
    fs::write(dir.path().join(name), "def cafe():\n    pass\n").unwrap();
    let out = walk_default(dir.path());
    assert_eq!(file_paths(&out), ["caf\u{FFFD}.py"]);
    let f = &out.files[0];
    assert!(load_source(&f.abs_path, &f.rel_path, 1 << 20)
        .unwrap()
        .contains("def cafe"));
}

/// Every file the walk reports (indexed, doc, skipped after a look, `go.mod`) must be exactly
/// what `PathFilter` classifies as `File`, over every entry of the tree (symlinks not
/// followed); the entries it calls `Rules` are ignore files.
fn assert_filter_agrees_with_walk(root: &Path) {
    let out = walk_default(root);
    let pruned = [
        SkipReason::Hidden,
        SkipReason::NodeModules,
        SkipReason::Vendor,
        SkipReason::BuildOutput,
    ];
    let mut walked: BTreeSet<String> = file_paths(&out)
        .into_iter()
        .chain(doc_paths(&out))
        .map(str::to_string)
        .chain(out.go_modules.iter().map(|m| match m.dir.as_str() {
            "" => "go.mod".to_string(),
            dir => format!("{dir}/go.mod"),
        }))
        .collect();
    walked.extend(
        out.skipped
            .iter()
            .filter(|s| !pruned.contains(&s.reason))
            .map(|s| s.path.clone()),
    );
    let mut filter = PathFilter::new(root).expect("filter");
    let mut stack = vec![filter.root().to_path_buf()];
    let mut classified_files = BTreeSet::new();
    while let Some(dir) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.expect("entry").path();
            if fs::symlink_metadata(&path).unwrap().is_dir() {
                stack.push(path.clone());
                continue;
            }
            let rel = filter.rel_path(&path).unwrap();
            match filter.classify(&path, None) {
                WalkClass::File => {
                    classified_files.insert(rel);
                }
                WalkClass::Rules => assert!(
                    rel.ends_with(".gitignore")
                        || rel.ends_with(".mapscopeignore")
                        || rel.ends_with(".git/info/exclude"),
                    "{rel}"
                ),
                WalkClass::Outside | WalkClass::Dir => {}
            }
        }
    }
    assert_eq!(classified_files, walked);
}

#[test]
fn path_filter_agrees_with_walk_on_the_hostile_repo() {
    let repo = hostile_repo();
    assert_filter_agrees_with_walk(repo.path());
}

#[test]
fn path_filter_agrees_with_walk_in_a_linked_worktree() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("main");
    fs::create_dir_all(&main).unwrap();
    let git = |args: &[&str], cwd: &Path| {
        Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .current_dir(cwd)
            .stdin(std::process::Stdio::null())
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let made = git(&["init", "-q"], &main)
        && git(&["commit", "-q", "--allow-empty", "-m", "init"], &main)
        && git(&["worktree", "add", "-q", "../wt"], &main);
    if !made {
        eprintln!("git unavailable: skipping the linked-worktree case");
        return;
    }
    let wt = dir.path().join("wt");
    // The worktree's `.git` is a file; its exclude rules live in the main repository.
    write_files(&main, &[(".git/info/exclude", "excluded.ts\n")]);
    write_files(
        &wt,
        &[
            ("excluded.ts", "x\n"),
            ("kept.ts", "x\n"),
            (".gitignore", "gi.py\n"),
            ("gi.py", "x\n"),
        ],
    );
    assert_eq!(file_paths(&walk_default(&wt)), ["kept.ts"]);
    assert_filter_agrees_with_walk(&wt);
}

/// The parse runs largest file first (so that the last files parsed are small ones); the
/// index still lists every file in walk order, each with its own tags, in every build kind.
#[test]
fn an_index_keeps_walk_order_whatever_the_file_sizes() {
    use mapscope::engine::index::{Index, IndexOptions};
    let dir = tempfile::tempdir().unwrap();
    // Sizes grow against path order: z.py is the largest, a.py the smallest.
    let names: Vec<String> = ('a'..='z').map(|c| format!("{c}.py")).collect();
    for (i, name) in names.iter().enumerate() {
        let stem = name.trim_end_matches(".py");
        let mut src = format!("def fn_{stem}():\n    return 1\n");
        for k in 0..i * 20 {
            src.push_str(&format!(
                "\ndef helper_{stem}_{k}():\n    return fn_{stem}()\n"
            ));
        }
        fs::write(dir.path().join(name), src).unwrap();
    }
    for map_lines_only in [false, true] {
        let opts = IndexOptions {
            map_lines_only,
            ..IndexOptions::default()
        };
        let index = Index::build(dir.path(), &opts).expect("builds");
        let paths: Vec<&str> = index.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, names.iter().map(String::as_str).collect::<Vec<_>>());
        for f in &index.files {
            let stem = f.path.trim_end_matches(".py");
            assert_eq!(f.tags.defs[0].name, format!("fn_{stem}"), "{}", f.path);
        }
    }
}

/// A `.h` header takes the language of the sources around it: C beside `.c` files, C++
/// beside `.cc` files or wherever its own text uses a C++-only form.
#[test]
fn a_header_is_read_in_the_language_of_the_sources_around_it() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (
                "clib/list.c",
                "#include \"list.h\"\nint list_len(struct list *l) { return 0; }\n",
            ),
            ("clib/main.c", "int main(void) { return 0; }\n"),
            (
                "clib/list.h",
                "struct list { int new; int class; };\nint list_len(struct list *l);\n",
            ),
            ("clib/shim.h", "namespace shim {\nint f();\n}\n"),
            (
                "cpplib/vec.cc",
                "#include \"vec.h\"\nint vec_len() { return 0; }\n",
            ),
            ("cpplib/vec.h", "int vec_len();\n"),
        ],
    );
    let out = walk_default(dir.path());
    let lang_of = |p: &str| {
        out.files
            .iter()
            .find(|f| f.rel_path == p)
            .map_or_else(|| panic!("{p} not walked"), |f| f.lang)
    };
    use mapscope::engine::base::model::Lang;
    assert_eq!(lang_of("clib/list.h"), Lang::C);
    assert_eq!(
        lang_of("clib/shim.h"),
        Lang::Cpp,
        "a C++-only form keeps C++"
    );
    assert_eq!(lang_of("cpplib/vec.h"), Lang::Cpp);
}
