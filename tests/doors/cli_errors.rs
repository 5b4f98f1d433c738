//! Errors are one line on stderr, `mapscope: CODE: message`, with exit status 2 — clap's
//! included (`INVALID_ARGUMENT`) — and a search argument error has the same code in text
//! and JSON modes. `--help` and `--version` still print normally and exit 0.

use crate::common;

use std::process::{Command, Output};

fn mapscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mapscope"))
        .env("MAPSCOPE_CACHE_DIR", common::test_cache_dir())
        .args(args)
        .output()
        .expect("run mapscope")
}

/// The one stderr line of a failed run, after checking the status and that stdout is empty.
fn one_error_line(args: &[&str]) -> String {
    let out = mapscope(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    assert!(out.stdout.is_empty(), "{args:?}: stdout {:?}", out.stdout);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(err.ends_with('\n'));
    err.trim_end().to_string()
}

#[test]
fn command_line_errors_are_one_invalid_argument_line() {
    let root = common::fixture("py-app");
    let root = root.to_str().expect("utf-8 path");
    for (args, says) in [
        (vec!["map", "--bogus"], "unexpected argument '--bogus'"),
        (vec!["map", root, "--tokens", "abc"], "invalid value 'abc'"),
        (
            vec!["map", root, "--format", "yaml"],
            "unknown format `yaml`",
        ),
        (vec!["stats", "--json=3"], "--json"),
        (vec!["search"], "not provided: <[PATH] QUERY>"),
        (vec!["cache"], "required"),
        (vec!["frobnicate", "x", "y"], "cannot be used"),
    ] {
        let line = one_error_line(&args);
        assert!(
            line.starts_with("mapscope: INVALID_ARGUMENT: "),
            "{args:?}: {line}"
        );
        assert!(line.contains(says), "{args:?}: {line}");
    }
    // The usage clap would have printed is kept, on the same line.
    let line = one_error_line(&["map", "--bogus"]);
    assert!(line.contains("(usage: "), "{line}");
}

#[test]
fn help_and_version_print_as_usual() {
    for args in [
        &["--help"][..],
        &["map", "--help"],
        &["help", "search"],
        &["--version"],
    ] {
        let out = mapscope(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.lines().count() >= 1, "{args:?}");
        assert!(out.stderr.is_empty(), "{args:?}");
    }
    let help = String::from_utf8_lossy(&mapscope(&["map", "--help"]).stdout).into_owned();
    assert!(
        help.contains("Usage:") && help.contains("--tokens"),
        "{help}"
    );
}

#[test]
fn search_argument_errors_have_the_same_code_in_text_and_json() {
    let root = common::fixture("py-app");
    let root = root.to_str().expect("utf-8 path");
    for bad in [
        ["--paths", "["],
        ["--lang", "cobol"],
        ["--include", "src/["],
    ] {
        let mut args = vec!["search", root, "slugify", "--no-cache"];
        args.extend_from_slice(&bad);
        let line = one_error_line(&args);
        assert!(line.starts_with("mapscope: INVALID_ARGUMENT: "), "{line}");

        args.push("--json");
        let out = mapscope(&args);
        assert_eq!(out.status.code(), Some(2));
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON error");
        assert_eq!(doc["success"], false);
        assert_eq!(doc["code"], "INVALID_ARGUMENT", "{doc}");
    }
}

#[test]
fn a_missing_repository_is_one_line_with_its_code() {
    let line = one_error_line(&["map", "/no/such/mapscope/repo"]);
    assert_eq!(
        line,
        "mapscope: REPO_NOT_FOUND: repository not found: /no/such/mapscope/repo"
    );
}

/// A repository with only code mapscope has no grammar for is mapped by its paths (issue 41
/// item 3), not refused; one with no code at all is `REPO_EMPTY` and names the languages
/// mapscope reads.
#[test]
fn repo_empty_names_what_was_found_instead() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("main.dart"), "void main() {}\n").unwrap();
    std::fs::write(dir.path().join("app.zig"), "const x = 1;\n").unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_mapscope"))
        .args(["map", dir.path().to_str().unwrap(), "--no-cache"])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(out, "app.zig\n\nmain.dart\n");
    std::fs::remove_file(dir.path().join("main.dart")).unwrap();
    std::fs::remove_file(dir.path().join("app.zig")).unwrap();
    std::fs::write(dir.path().join("notes.txt"), "prose\n").unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_mapscope"))
        .args(["map", dir.path().to_str().unwrap(), "--no-cache"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("REPO_EMPTY"), "{err}");
    assert!(err.contains("languages read: typescript"), "{err}");
    assert!(err.contains("rust") && err.contains("php"), "{err}");
}

/// What a new user mistypes gets a line that says what to type instead: a misspelt
/// subcommand or option is named with clap's suggestion, a bound is stated rather than
/// clamped in silence, a negative budget is a number refused in words, a directory given
/// to `search` without words is not searched for its name, and a file named on the command
/// line that is not there is the user's error, not an internal one.
#[test]
fn first_mistakes_get_a_line_that_says_what_to_do() {
    let root = common::fixture("py-app");
    let root = root.to_str().expect("utf-8 path");
    for (args, says) in [
        (vec!["serach", "x"], "did you mean 'search'?"),
        (vec!["serach"], "did you mean 'search'?"),
        (vec!["stat", root], "did you mean 'stats'?"),
        (
            vec!["map", root, "--tokns", "5"],
            "a similar argument exists: '--tokens'",
        ),
        (
            vec!["map", root, "--tokens", "-5"],
            "must be a whole number of tokens",
        ),
        (vec!["search", root, "x", "--top", "0"], "from 1 to 50"),
        (vec!["search", root, "x", "--top", "100"], "from 1 to 50"),
        (vec![root, "--tokens", "8"], "from 16 to 131072"),
        (vec!["search", root], "no query"),
        (
            vec!["eval", "--dataset", "/no/such/set.jsonl", "--git-dir", root],
            "--dataset /no/such/set.jsonl: no such file",
        ),
        (vec!["man", "nope"], "no subcommand `nope`"),
    ] {
        let line = one_error_line(&args);
        assert!(
            line.starts_with("mapscope: INVALID_ARGUMENT: "),
            "{args:?}: {line}"
        );
        assert!(line.contains(says), "{args:?}: {line}");
    }
}

/// Inside a repository, words that are not directories are all the query: `search route
/// fallback` looks for "route fallback" (it used to take `route` for a repository), while a
/// first word written as a path is still the repository.
#[test]
fn search_words_inside_a_repository_are_the_query() {
    let root = common::fixture("py-app");
    let run_in = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_mapscope"))
            .env("MAPSCOPE_CACHE_DIR", common::test_cache_dir())
            .current_dir(&root)
            .args(args)
            .output()
            .expect("run mapscope")
    };
    let out = run_in(&["search", "slugify", "text", "--json", "--no-history"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["question"], "slugify text");
    let out = run_in(&["search", "./no-such-dir", "slugify"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("REPO_NOT_FOUND"));
}

/// `mapscope completions SHELL` and `mapscope man` print what clap generates.
#[test]
fn completions_and_man_page_print() {
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let out = mapscope(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}");
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("search"),
            "{shell}"
        );
    }
    let line = one_error_line(&["completions", "tcsh"]);
    assert!(line.contains("invalid value 'tcsh'"), "{line}");
    let out = mapscope(&["man"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains(".TH mapscope 1"));
}
