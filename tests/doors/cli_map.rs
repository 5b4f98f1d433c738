//! The real binary on fixture repos: the `map` and `stats` commands, error codes, determinism,
//! and hostile input. Each error is one line on stderr with a stable code and exit code 2.

use crate::common;

use std::process::{Command, Output};

use common::fixture;

fn mapscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mapscope"))
        .env("MAPSCOPE_CACHE_DIR", common::test_cache_dir())
        .args(args)
        .env("RUST_BACKTRACE", "1")
        .output()
        .expect("run mapscope")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Asserts a clean failure: exit code 2, one line naming `code`, no panic, no backtrace.
fn assert_error(o: &Output, code: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "stderr: {err}");
    assert!(err.contains(code), "expected {code} in: {err}");
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "one line expected: {err}"
    );
    assert!(
        !err.contains("panicked") && !err.contains("backtrace"),
        "{err}"
    );
}

#[test]
fn missing_path_is_repo_not_found() {
    let o = mapscope(&["map", "/definitely/not/here"]);
    assert_error(&o, "REPO_NOT_FOUND");
    let o = mapscope(&["stats", "/definitely/not/here"]);
    assert_error(&o, "REPO_NOT_FOUND");
}

#[test]
fn file_path_is_invalid_repo() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a.ts");
    std::fs::write(&file, "export const a = 1;\n").unwrap();
    let o = mapscope(&["map", file.to_str().unwrap()]);
    assert_error(&o, "INVALID_REPO");
}

#[test]
fn nothing_supported_is_repo_empty_with_reasons() {
    let dir = tempfile::tempdir().unwrap();
    common::write_files(
        dir.path(),
        &[
            ("README.md", "# hello\n"),
            ("node_modules/x/index.js", "export function x() {}\n"),
        ],
    );
    std::fs::write(dir.path().join("blob.ts"), b"\0\0\0binary").unwrap();
    let o = mapscope(&["map", dir.path().to_str().unwrap()]);
    assert_error(&o, "REPO_EMPTY");
    let err = stderr(&o);
    assert!(err.contains("binary"), "{err}");
    assert!(err.contains("node_modules"), "{err}");

    // `stats` counts what is there instead (issue 21): nothing at all is zero of everything.
    let empty = tempfile::tempdir().unwrap();
    let o = mapscope(&["stats", empty.path().to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("files: 0 code, 0 docs"),
        "{}",
        stdout(&o)
    );
    assert!(stdout(&o).contains("no grammar: 0 files"), "{}", stdout(&o));
}

/// A repository with no file in a supported language: `stats` prints the counts by extension
/// `stats` says which code is vendored and which folders were found so by their licence,
/// in text and JSON, and how it shows in `map --explain`.
#[test]
fn stats_and_explain_name_a_folder_vendored_by_its_licence() {
    let dir = tempfile::tempdir().unwrap();
    common::write_files(
        dir.path(),
        &[
            ("LICENSE", "Copyright (c) 2024 Acme Widgets\n"),
            (
                "src/main.c",
                "#include \"zip/zip.h\"\nint main(void) { return zip_open(); }\n",
            ),
            ("src/zip/LICENSE", "Copyright (c) 2013 Jane Doe\n"),
            ("src/zip/CMakeLists.txt", "add_library(zip zip.c)\n"),
            ("src/zip/zip.h", "int zip_open(void);\n"),
            ("src/zip/zip.c", "int zip_open(void) { return 0; }\n"),
        ],
    );
    let root = dir.path().to_str().unwrap();
    let o = mapscope(&["stats", root, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["vendored_files"], 2, "{v}");
    assert_eq!(v["vendored_by_licence"], serde_json::json!(["src/zip"]));
    let text = stdout(&mapscope(&["stats", root]));
    assert!(text.contains("vendored: 2 files"), "{text}");
    assert!(
        text.contains("src/zip/ (its own licence and build file)"),
        "{text}"
    );
    let why = stdout(&mapscope(&["map", root, "--explain", "src/zip/zip.c"]));
    assert!(
        why.contains("vendored, another project's copy: `src/zip` has"),
        "{why}"
    );
}

/// (text and JSON) and succeeds; the map lists those files by their paths.
#[test]
fn stats_counts_a_repository_without_supported_code() {
    let dir = tempfile::tempdir().unwrap();
    common::write_files(
        dir.path(),
        &[
            ("app/lib/main.dart", "void main() {}\n"),
            ("app/lib/screen.dart", "void screen() {}\n"),
            ("src/view.zig", "const View = struct {};\n"),
            ("scripts/build.zsh", "echo hi\n"),
            ("README.md", "# app\n"),
        ],
    );
    std::fs::write(dir.path().join("blob.ts"), b"\0\0\0binary").unwrap();
    let root = dir.path().to_str().unwrap();

    let o = mapscope(&["stats", root, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["files"], 0);
    assert_eq!(v["docs"], 1);
    assert_eq!(v["unsupported_files"], 4);
    assert_eq!(v["unsupported_by_extension"][".dart"], 2);
    assert_eq!(v["unsupported_by_extension"][".zig"], 1);
    assert_eq!(v["unsupported_by_extension"][".zsh"], 1);
    assert_eq!(v["unsupported_by_language"]["dart"], 2);
    assert_eq!(v["unsupported_by_language"]["zig"], 1);
    assert_eq!(v["skipped_by_reason"]["binary"], 1);
    let skipped = v["skipped_files"].as_array().unwrap();
    assert!(
        skipped
            .iter()
            .any(|s| s["path"] == "blob.ts" && s["reason"] == "binary"),
        "{skipped:?}"
    );

    let o = mapscope(&["stats", root]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("files: 0 code, 1 docs"), "{text}");
    assert!(text.contains("no grammar: 4 files"), "{text}");
    for (ext, n, lang) in [(".dart", 2, "dart"), (".zig", 1, "zig")] {
        assert!(
            text.lines().any(|l| {
                let words: Vec<&str> = l.split_whitespace().collect();
                words == [ext, &n.to_string(), lang]
            }),
            "{ext}: {text}"
        );
    }
    assert!(text.contains("binary"), "{text}");

    // The map lists those files by their paths (issue 41 item 3): not empty.
    let o = mapscope(&["map", root]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    for path in [
        "app/lib/main.dart",
        "app/lib/screen.dart",
        "scripts/build.zsh",
        "src/view.zig",
    ] {
        assert!(text.lines().any(|l| l == path), "{path}: {text}");
    }
}

#[test]
fn map_text_lists_fixture_files_within_budget() {
    for repo in ["ts-app", "js-app", "py-app", "go-app"] {
        let path = fixture(repo);
        let o = mapscope(&["map", path.to_str().unwrap(), "--tokens", "2048"]);
        assert!(o.status.success(), "{repo}: {}", stderr(&o));
        let text = stdout(&o);
        assert!(text.lines().any(|l| l.ends_with(':')), "{repo}: {text}");

        let o = mapscope(&[
            "map",
            path.to_str().unwrap(),
            "--tokens",
            "2048",
            "--format",
            "json",
        ]);
        assert!(o.status.success(), "{repo}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let tokens = v["tokens"].as_u64().unwrap();
        assert!(tokens > 0 && tokens <= 2048, "{repo}: {tokens}");
        assert_eq!(v["budget"], 2048);
        assert_eq!(v["tokenizer"], "o200k_base");
        let files = v["files"].as_array().unwrap();
        assert!(!files.is_empty());
        for f in files {
            assert!(f["path"].is_string() && f["rank"].is_number() && f["tokens"].is_number());
            for s in f["symbols"].as_array().unwrap() {
                assert!(s["name"].is_string() && s["kind"].is_string());
                assert_eq!(s["line_range"].as_array().unwrap().len(), 2);
            }
        }
        // The JSON's text is exactly what the text format prints.
        assert_eq!(v["text"].as_str().unwrap().trim_end(), text.trim_end());
    }
}

/// Each language's fixture: its hub file (the one the others import), a definition in it, and
/// a query whose best hit is that definition.
const LANGUAGE_FIXTURES: [(&str, &str, &str, &str); 7] = [
    ("rust-app", "src/store.rs", "Store", "store put"),
    (
        "java-app",
        "src/main/java/com/acme/store/Store.java",
        "Store",
        "store put",
    ),
    ("c-app", "src/store.h", "store_put", "store put"),
    ("cpp-app", "include/acme/store.hpp", "Store", "store put"),
    ("cs-app", "src/Acme.Store/Store.cs", "Store", "store put"),
    ("rb-app", "lib/acme/store.rb", "Store", "store put"),
    ("php-app", "src/Store/Store.php", "Store", "store put"),
];

#[test]
fn every_language_maps_its_hub_and_searches_its_definitions() {
    for (repo, hub, symbol, query) in LANGUAGE_FIXTURES {
        let path = fixture(repo);
        let o = mapscope(&[
            "map",
            path.to_str().unwrap(),
            "--tokens",
            "400",
            "--format",
            "json",
        ]);
        assert!(o.status.success(), "{repo}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let files = v["files"].as_array().unwrap();
        let paths: Vec<&str> = files.iter().map(|f| f["path"].as_str().unwrap()).collect();
        // The hub is among the three best-ranked files, with its main definition.
        let mut by_rank: Vec<(&str, f64)> = files
            .iter()
            .map(|f| (f["path"].as_str().unwrap(), f["rank"].as_f64().unwrap()))
            .collect();
        by_rank.sort_by(|a, b| b.1.total_cmp(&a.1));
        assert!(
            by_rank.iter().take(3).any(|(p, _)| *p == hub),
            "{repo}: {hub} not in the top 3 of {by_rank:?}"
        );
        let hub_entry = files.iter().find(|f| f["path"] == hub).unwrap();
        assert!(
            hub_entry["symbols"]
                .as_array()
                .unwrap()
                .iter()
                .any(|s| s["name"] == symbol),
            "{repo}: {symbol} missing from {hub_entry}"
        );
        // Test files rank below the code they test.
        let hub_rank = by_rank.iter().position(|(p, _)| *p == hub).unwrap();
        for (i, (p, _)) in by_rank.iter().enumerate() {
            if p.contains("test") || p.contains("spec") || p.contains("Test") {
                assert!(i > hub_rank, "{repo}: test {p} above the hub in {paths:?}");
            }
        }

        let o = mapscope(&[
            "search",
            path.to_str().unwrap(),
            query,
            "--json",
            "--no-history",
        ]);
        assert!(o.status.success(), "{repo}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let top = &v["sources"][0];
        assert_eq!(top["file_path"], hub, "{repo}: {top}");
        assert_eq!(top["evidence_type"], "definition", "{repo}: {top}");
    }
}

/// Whether the JSON map `v` shows `symbol` of `path` at `line`.
fn shows(v: &serde_json::Value, path: &str, symbol: &str, line: u64) -> bool {
    v["files"].as_array().unwrap().iter().any(|f| {
        f["path"] == path
            && f["symbols"]
                .as_array()
                .unwrap()
                .iter()
                .any(|s| s["name"] == symbol && s["line_range"][0] == line)
    })
}

#[test]
fn json_map_lists_what_was_cut_and_the_budget_that_takes_the_next() {
    let path = fixture("ts-app");
    let root = path.to_str().unwrap();
    let json_map = |tokens: &str| -> serde_json::Value {
        let o = mapscope(&["map", root, "--tokens", tokens, "--format", "json"]);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let v = json_map("120");
    let cut = v["cut"].as_array().unwrap();
    assert!(!cut.is_empty() && cut.len() <= 20, "{cut:?}");
    for c in cut {
        assert!(c["path"].is_string() && c["symbol"].is_string() && c["kind"].is_string());
        assert!(c["tokens"].as_u64().unwrap() > 0, "{c}");
        // Nothing cut is in the map.
        let (p, s, l) = (
            c["path"].as_str().unwrap(),
            c["symbol"].as_str().unwrap(),
            c["line"].as_u64().unwrap(),
        );
        assert!(!shows(&v, p, s, l), "{c} is in the map");
    }
    let first = &cut[0];
    let (p, s, l) = (
        first["path"].as_str().unwrap(),
        first["symbol"].as_str().unwrap(),
        first["line"].as_u64().unwrap(),
    );
    // The next budget is exact: it shows the first cut definition, one token less does not.
    let next = v["next_budget"].as_u64().unwrap();
    assert!(next > 120, "{next}");
    assert!(shows(&json_map(&next.to_string()), p, s, l));
    assert!(!shows(&json_map(&(next - 1).to_string()), p, s, l));

    // A budget that holds everything cuts nothing.
    let v = json_map("100000");
    assert!(v["cut"].as_array().unwrap().is_empty());
    assert!(v["next_budget"].is_null());

    // The text form: `--explain` without a file prints the cut list instead of the map.
    let o = mapscope(&["map", root, "--tokens", "120", "--explain"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.starts_with("map: "), "{text}");
    assert!(text.contains(&format!("{p}:{l}")), "{text}");
    assert!(
        text.contains(&format!("use --tokens {next}+ to include `{s}`")),
        "{text}"
    );
    // `--explain FILE` still explains the file.
    let o = mapscope(&["map", root, "--tokens", "120", "--explain", p]);
    assert!(stdout(&o).starts_with(p), "{}", stdout(&o));
}

/// The map's files (JSON) with their ranks.
fn map_files(args: &[&str]) -> Vec<(String, f64)> {
    let mut all = vec!["map", "--format", "json", "--tokens", "4096"];
    all.extend_from_slice(args);
    let o = mapscope(&all);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["rank"].as_f64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn scope_flags_narrow_what_is_ranked_and_shown() {
    let root = fixture("go-app");
    let root = root.to_str().unwrap();
    let all = map_files(&[root]);
    assert!(all.iter().any(|(p, _)| p == "cmd/server/main.go"));

    // --exclude: gitignore syntax, repeatable.
    let files = map_files(&[root, "--exclude", "cmd/", "--exclude", "*_test.go"]);
    assert!(!files.is_empty());
    assert!(
        files
            .iter()
            .all(|(p, _)| !p.starts_with("cmd/") && !p.ends_with("_test.go")),
        "{files:?}"
    );
    // The graph still learns from the excluded files: the store they use stays the hub.
    assert_eq!(files[0].0, "internal/store/store.go", "{files:?}");

    // --include: only what matches.
    let files = map_files(&[root, "--include", "internal/handler"]);
    let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(paths, ["internal/handler/handler.go"]);

    // --lang: by family; a language the repository lacks leaves nothing, with a note.
    let files = map_files(&[root, "--lang", "go"]);
    assert_eq!(files.len(), all.len());
    let o = mapscope(&["map", root, "--lang", "rust"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).trim().is_empty(), "{}", stdout(&o));
    assert!(stderr(&o).contains("the scope leaves out every indexed code file"));

    // Bad patterns and languages: one line, INVALID_ARGUMENT, for map and search.
    let o = mapscope(&["map", root, "--include", "src/["]);
    assert_error(&o, "INVALID_ARGUMENT");
    assert!(stderr(&o).contains("src/["), "{}", stderr(&o));
    let o = mapscope(&["map", root, "--lang", "cobol"]);
    assert_error(&o, "INVALID_ARGUMENT");
    let o = mapscope(&["search", root, "store", "--exclude", "a/**b{"]);
    assert_error(&o, "INVALID_ARGUMENT");

    // Search takes the same flags.
    let o = mapscope(&[
        "search",
        root,
        "store",
        "--json",
        "--exclude",
        "internal/store/",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let sources = v["sources"].as_array().unwrap();
    assert!(!sources.is_empty());
    for s in sources {
        let p = s["file_path"].as_str().unwrap();
        assert!(!p.starts_with("internal/store/"), "{p}");
    }
}

#[test]
fn small_budget_is_respected_for_both_tokenizers() {
    let path = fixture("ts-app");
    for tok in ["o200k", "cl100k"] {
        for budget in ["64", "200"] {
            let o = mapscope(&[
                "map",
                path.to_str().unwrap(),
                "--tokens",
                budget,
                "--tokenizer",
                tok,
                "--format",
                "json",
            ]);
            assert!(o.status.success(), "{}", stderr(&o));
            let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
            assert!(v["tokens"].as_u64().unwrap() <= budget.parse::<u64>().unwrap());
        }
    }
}

#[test]
fn bare_invocation_prints_the_map() {
    let path = fixture("py-app");
    let bare = mapscope(&[path.to_str().unwrap()]);
    let map = mapscope(&["map", path.to_str().unwrap()]);
    assert!(bare.status.success(), "{}", stderr(&bare));
    assert_eq!(bare.stdout, map.stdout);
}

#[test]
fn output_is_byte_identical_across_runs_and_thread_counts() {
    for repo in ["ts-app", "go-app", "py-app"] {
        let path = fixture(repo);
        let run = |threads: &str| {
            Command::new(env!("CARGO_BIN_EXE_mapscope"))
                .env("MAPSCOPE_CACHE_DIR", common::test_cache_dir())
                .args(["map", path.to_str().unwrap(), "--format", "json"])
                .env("RAYON_NUM_THREADS", threads)
                .output()
                .unwrap()
                .stdout
        };
        let a = run("1");
        assert_eq!(a, run("2"), "{repo}");
        assert_eq!(a, run("2"), "{repo}");
    }
}

#[test]
fn focus_and_ident_change_the_ranking() {
    let path = fixture("ts-app");
    let base = mapscope(&["map", path.to_str().unwrap(), "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&base.stdout).unwrap();
    let first = v["files"][0]["path"].as_str().unwrap().to_string();
    // A focus file is left out of the map.
    let o = mapscope(&[
        "map",
        path.to_str().unwrap(),
        "--format",
        "json",
        "--focus",
        &first,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["files"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| f["path"] != first.as_str()));
}

#[test]
fn stats_reports_languages_kinds_and_phases() {
    let path = fixture("go-app");
    let o = mapscope(&["stats", path.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["files_by_language"]["go"].as_u64().unwrap() > 0);
    assert!(v["definitions"].as_u64().unwrap() > 0);
    assert!(v["references_by_kind"]["call"].as_u64().unwrap() > 0);
    assert!(v["graph_edges"].as_u64().unwrap() > 0);
    assert!(v["times"]["parse_ms"].is_number());
    let o = mapscope(&["stats", path.to_str().unwrap()]);
    assert!(stdout(&o).contains("graph edges"));
}

#[test]
fn files_without_a_grammar_are_counted_and_noted() {
    let dir = tempfile::tempdir().unwrap();
    let mut files: Vec<(String, String)> = vec![
        (
            "src/main.rs".into(),
            "mod a;\nfn main() { a::run(); }\n".into(),
        ),
        ("src/a.rs".into(), "pub fn run() {}\n".into()),
        // Syntax errors: indexed, and listed as a parse-error file.
        ("src/broken.rs".into(), "fn broken( {\n".into()),
        ("scripts/build.zsh".into(), "echo hi\n".into()),
        ("README.md".into(), "# app\n".into()),
        (".hidden/x.dart".into(), "void hidden() {}\n".into()),
    ];
    for i in 0..6 {
        files.push((
            format!("app/lib/screen{i}.dart"),
            "void screen() {}\n".into(),
        ));
    }
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    common::write_files(dir.path(), &refs);
    std::fs::write(dir.path().join("src/blob.rs"), b"\0\0\0binary").unwrap();
    let root = dir.path().to_str().unwrap();

    let o = mapscope(&["stats", root, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // The hidden folder is not walked; the zsh script and the Dart files are counted.
    assert_eq!(v["unsupported_files"], 7);
    assert_eq!(v["unsupported_by_extension"][".dart"], 6);
    assert_eq!(v["unsupported_by_extension"][".zsh"], 1);
    assert_eq!(v["unsupported_by_language"]["dart"], 6);
    let parse_errors = v["parse_error_files"].as_array().unwrap();
    assert_eq!(parse_errors.len(), 1, "{parse_errors:?}");
    assert_eq!(parse_errors[0]["path"], "src/broken.rs");
    assert!(parse_errors[0]["errors"].as_u64().unwrap() > 0);
    let skipped = v["skipped_files"].as_array().unwrap();
    assert!(
        skipped
            .iter()
            .any(|s| s["path"] == "src/blob.rs" && s["reason"] == "binary"),
        "{skipped:?}"
    );

    let o = mapscope(&["stats", root]);
    let text = stdout(&o);
    assert!(text.contains("no grammar: 7 files"), "{text}");
    assert!(text.contains(".dart") && text.contains("dart"), "{text}");
    assert!(
        !text.contains("src/broken.rs"),
        "listed only with --verbose: {text}"
    );
    let o = mapscope(&["stats", root, "--verbose"]);
    let text = stdout(&o);
    assert!(text.contains("src/broken.rs ("), "{text}");
    assert!(text.contains("src/blob.rs (binary)"), "{text}");

    // 7 of 10 code files have no grammar: the map says so in one note, text and JSON.
    let o = mapscope(&["map", root]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("src/a.rs"), "{}", stdout(&o));
    let err = stderr(&o);
    let notes: Vec<&str> = err.lines().filter(|l| l.contains("no")).collect();
    assert_eq!(notes.len(), 1, "{err}");
    assert!(
        notes[0]
            .starts_with("mapscope: note: 7 of 10 code files are in languages without a grammar")
            && notes[0].contains("dart 6, shell 1")
            && notes[0].contains("supported: typescript, javascript, python, go, rust"),
        "{err}"
    );
    let o = mapscope(&["map", root, "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let notes = v["notes"].as_array().unwrap();
    assert!(notes[0].as_str().unwrap().contains("dart 6"), "{notes:?}");

    // A repository that is mostly supported code gets no note.
    let o = mapscope(&["map", fixture("go-app").to_str().unwrap()]);
    assert!(!stderr(&o).contains("grammar"), "{}", stderr(&o));
}

#[test]
fn hostile_repo_indexes_without_panic() {
    let dir = common::hostile_repo();
    let o = mapscope(&["stats", dir.path().to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let skipped = &v["skipped_by_reason"];
    assert!(skipped["binary"].as_u64().unwrap_or(0) >= 1, "{v}");
    assert!(skipped["too_large"].as_u64().unwrap_or(0) >= 1, "{v}");
    assert!(v["files_with_parse_errors"].as_u64().unwrap() >= 1, "{v}");
    let o = mapscope(&["map", dir.path().to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("panicked"));
}

#[test]
fn bad_arguments_are_usage_errors() {
    let o = mapscope(&["map", "--tokenizer", "gpt2"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("tokenizer"));
}

/// A budget too small for any definition: an empty map (exit 0) and a note naming the
/// smallest useful budget, which does give a map.
#[test]
fn a_budget_too_small_names_the_smallest_useful_one() {
    let repo = fixture("ts-app");
    let repo = repo.to_str().unwrap();
    for tokens in ["0", "10"] {
        let o = mapscope(&["map", repo, "--tokens", tokens]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert_eq!(stdout(&o).trim(), "");
        let err = stderr(&o);
        let note = err
            .lines()
            .find(|l| l.starts_with("mapscope: note: a budget of"))
            .unwrap_or_else(|| panic!("no note: {err}"));
        assert!(note.contains("fits no definition"), "{note}");
        let smallest = note
            .rsplit("--tokens ")
            .next()
            .and_then(|n| n.trim().parse::<usize>().ok())
            .unwrap_or_else(|| panic!("no budget in: {note}"));
        // The named budget is exactly the first that gives a map.
        let o = mapscope(&["map", repo, "--tokens", &smallest.to_string()]);
        assert!(!stdout(&o).trim().is_empty(), "{note}");
        assert!(!stderr(&o).contains("fits no definition"));
        let o = mapscope(&["map", repo, "--tokens", &(smallest - 1).to_string()]);
        assert_eq!(stdout(&o).trim(), "", "{note}");
    }
    let o = mapscope(&["map", repo, "--tokens", "10", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let notes = v["notes"].as_array().unwrap();
    assert!(notes
        .iter()
        .any(|n| n.as_str().unwrap().contains("smallest useful budget")));
}

/// A reader that closes the pipe early ends mapscope quietly with status 0 (as ripgrep).
#[cfg(unix)]
#[test]
fn a_closed_pipe_ends_quietly_with_status_0() {
    use std::process::Stdio;
    // A map far bigger than a pipe's buffer, into a pipe whose reader is already gone.
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<(String, String)> = (0..200)
        .map(|i| {
            let body: String = (0..20)
                .map(|j| format!("export function f{i}_{j}(a: number): number {{ return a; }}\n"))
                .collect();
            (format!("src/m{i}.ts"), body)
        })
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_str()))
        .collect();
    common::write_files(dir.path(), &refs);
    let mut child = Command::new(env!("CARGO_BIN_EXE_mapscope"))
        .env("MAPSCOPE_CACHE_DIR", common::test_cache_dir())
        .args(["map", dir.path().to_str().unwrap(), "--tokens", "60000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
}

/// `bench --parse-floor --json`: the parse-only floor and the parse + tags floor (CPU / cores)
/// that a cold map is compared with, on a fixture.
#[test]
fn parse_floor_reports_parse_and_tags_floors() {
    let path = fixture("java-app");
    let o = mapscope(&[
        "bench",
        path.to_str().unwrap(),
        "--parse-floor",
        "--runs",
        "1",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["files"].as_u64().unwrap() > 0, "{v}");
    assert_eq!(v["failed"], 0);
    assert!(v["parse_median_ms"].as_f64().unwrap() > 0.0, "{v}");
    assert!(v["tags_median_ms"].as_f64().unwrap() > 0.0, "{v}");
    let threads = v["threads"].as_f64().unwrap();
    assert!(threads >= 1.0, "{v}");
    if let Some(cpu) = v["tags_cpu_ms"].as_f64() {
        let floor = v["tags_floor_ms"].as_f64().unwrap();
        assert!((floor * threads - cpu).abs() < 1e-6, "{v}");
        // The floor a cold map is held to: reads, query compiles, parse and tags.
        let read = v["read_cpu_ms"].as_f64().unwrap();
        let compile = v["query_compile_cpu_ms"].as_f64().unwrap();
        let total = v["floor_cpu_ms"].as_f64().unwrap();
        assert!(read >= 0.0 && compile >= 0.0, "{v}");
        assert!((total - (read + compile + cpu)).abs() < 1e-6, "{v}");
        assert!(
            (v["floor_ms"].as_f64().unwrap() * threads - total).abs() < 1e-6,
            "{v}"
        );
        // The same floor with the process's first (cold) tags pass in it.
        let first = v["tags_first_pass_cpu_ms"].as_f64().unwrap();
        assert!(first > 0.0, "{v}");
        assert!(
            (v["first_pass_floor_ms"].as_f64().unwrap() * threads - (read + compile + first)).abs()
                < 1e-6,
            "{v}"
        );
    }
}

/// The budget is hard in every format: `map --format markdown` counts its own path lines
/// and fences (it used to print the text map's fit in fences, over the budget every time),
/// and `--format json`'s `tokens` is the exact count of its `text`. Counted with tiktoken.
#[test]
fn markdown_and_json_maps_stay_within_the_budget() {
    for repo in ["ts-app", "py-app", "go-app", "rust-app"] {
        let root = common::fixture(repo);
        let root = root.to_str().unwrap();
        for tokenizer in ["o200k", "cl100k"] {
            for budget in [40, 100, 200, 400, 1000] {
                let b = budget.to_string();
                let args = ["map", root, "--tokens", &b, "--tokenizer", tokenizer];
                let o = mapscope(&[&args[..], &["--format", "markdown"]].concat());
                assert!(o.status.success(), "{}", stderr(&o));
                let md = stdout(&o);
                let n = common::tiktoken_count(tokenizer, &md);
                assert!(
                    n <= budget,
                    "{repo} {tokenizer} {budget}: markdown is {n}\n{md}"
                );
                if budget >= 400 {
                    assert!(md.contains("```"), "{repo} {budget}: no fenced block\n{md}");
                }
                let o = mapscope(&[&args[..], &["--format", "json"]].concat());
                let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
                let text = v["text"].as_str().unwrap();
                let n = common::tiktoken_count(tokenizer, text);
                assert_eq!(v["tokens"], n, "{repo} {tokenizer} {budget}");
                assert!(n <= budget, "{repo} {tokenizer} {budget}: json text is {n}");
            }
        }
    }
}
