//! No escape sequence from a repository or an argument reaches a terminal: file names,
//! directory names, symbols, comments, queries and focus arguments holding ESC, BEL, CSI,
//! OSC 52 and C1 go through every output — map (text, markdown, JSON), search (text,
//! `--files`, `--explain`, `--json`), stats (text, JSON), errors and warnings on stderr, and
//! the MCP tools — and no raw control byte comes out (C0 but newline and tab, DEL, C1).
//! JSON keeps the data: it escapes (`\u001b`, `\u009b`) rather than replaces.

use crate::common;

use std::ffi::OsStr;
use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};

/// An OSC 52 clipboard write, as a terminal would run it.
const OSC52: &str = "\x1b]52;c;SGk=\x07";
/// Clear the screen (CSI), and its one-byte C1 form.
const CSI: &str = "\x1b[2J";
const C1_CSI: &str = "\u{9b}31m";

fn hostile_repo() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tempdir");
    let odd = format!("odd{OSC52}Name.ts");
    let dir = format!("dir{CSI}{C1_CSI}x");
    common::write_files(
        tmp.path(),
        &[
            (
                odd.as_str(),
                &format!(
                    "// oddName says {CSI}\x07 {C1_CSI} \x7f\n\
                     export function oddName(a: string) {{ return a; }}\n\
                     export const s = \"oddName {OSC52}\";\n"
                ),
            ),
            (
                &format!("{dir}/user.ts"),
                &format!(
                    "import {{ oddName }} from \"../odd{OSC52}Name\";\n\
                     export function user{C1_CSI}x() {{ return oddName(\"x\"); }}\n"
                ),
            ),
            (
                "k\u{85}.py",
                "def odd_py():\n    \"\"\"oddName doc \x1b]0;title\x07 \u{9d}\"\"\"\n    return 1\n\n\
                 class K\x7f:\n    pass\n",
            ),
        ],
    );
    tmp
}

/// The first raw control character in `bytes` (read as UTF-8, as a terminal would), with
/// some context.
fn first_control(bytes: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(bytes);
    text.char_indices()
        .find(|&(_, c)| {
            (c < ' ' && c != '\n' && c != '\t') || c == '\x7f' || ('\u{80}'..='\u{9f}').contains(&c)
        })
        .map(|(i, c)| {
            let from = text.floor_char_boundary(i.saturating_sub(40));
            format!("{c:?} in {:?}", &text[from..i])
        })
}

fn assert_clean(what: &str, out: &Output) {
    for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        if let Some(found) = first_control(bytes) {
            panic!("{what}: raw control character on {stream}: {found}");
        }
    }
}

fn mapscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mapscope"))
        .env("MAPSCOPE_CACHE_DIR", common::test_cache_dir())
        .args(args)
        .output()
        .expect("run mapscope")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn no_control_character_reaches_the_terminal_from_any_command() {
    let repo = hostile_repo();
    let root = repo.path().to_str().expect("utf-8 temp path");
    let query = format!("oddName {OSC52} {C1_CSI}");
    let focus = format!("nope{CSI}{OSC52}");
    let ident = format!("user{C1_CSI}x");
    let mut checked = 0;
    let mut run = |args: &[&str]| -> Output {
        let out = mapscope(args);
        assert_clean(&args.join(" "), &out);
        checked += 1;
        out
    };

    // The map in each format, steered by hostile arguments (the focus is a warning).
    for format in ["text", "markdown", "json"] {
        let out = run(&[
            "map",
            root,
            "--no-cache",
            "--format",
            format,
            "--query",
            &query,
            "--focus",
            &focus,
            "--ident",
            &ident,
        ]);
        assert!(out.status.success(), "map {format}: {}", text(&out.stderr));
        assert!(text(&out.stdout).contains("oddName"), "map {format}");
        assert!(text(&out.stderr).contains("is not an indexed code file"));
    }
    // JSON keeps the names as they are: escaped, not replaced.
    let out = run(&["map", root, "--no-cache", "--format", "json"]);
    let doc: Value = serde_json::from_slice(&out.stdout).expect("map JSON");
    let paths: Vec<&str> = doc["files"]
        .as_array()
        .expect("files")
        .iter()
        .filter_map(|f| f["path"].as_str())
        .collect();
    assert!(
        paths.contains(&format!("odd{OSC52}Name.ts").as_str()),
        "{paths:?}"
    );
    assert!(
        text(&out.stdout).contains("\\u009b"),
        "C1 is escaped in JSON"
    );

    for mode in [&[][..], &["--files"], &["--explain"], &["--json"]] {
        let mut args = vec!["search", root, &query, "--no-cache", "--no-history"];
        args.extend_from_slice(mode);
        let out = run(&args);
        assert!(
            out.status.success(),
            "search {mode:?}: {}",
            text(&out.stderr)
        );
        assert!(text(&out.stdout).contains("Name.ts"), "search {mode:?}");
    }
    let out = run(&[
        "search",
        root,
        "zzqxw\x1b\x07\u{9b}",
        "--no-cache",
        "--no-history",
    ]);
    assert!(text(&out.stdout).contains("no confident hits"));
    for json in [&[][..], &["--json"]] {
        let mut args = vec!["stats", root, "--no-cache"];
        args.extend_from_slice(json);
        assert!(run(&args).status.success());
    }

    // Errors and their echoes of paths and arguments: one line each, on stderr.
    let missing = format!("{root}/missing{OSC52}");
    let bogus = format!("--bogus{CSI}");
    let glob = format!("[{CSI}");
    let lang = format!("r{OSC52}ust");
    for args in [
        vec!["map", missing.as_str()],
        vec!["search", missing.as_str(), "x", "--json"],
        vec!["map", root, bogus.as_str()],
        vec!["search", root, "x", "--paths", glob.as_str()],
        vec!["search", root, "x", "--lang", lang.as_str()],
        vec!["search", root, "x", "--lang", lang.as_str(), "--json"],
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = text(&out.stderr);
        assert!(err.lines().count() <= 1, "{args:?}: {err}");
    }
    assert_eq!(checked, 17);
}

#[test]
fn no_control_character_reaches_an_mcp_client() {
    let repo = hostile_repo();
    let root = repo.path().to_str().expect("utf-8 temp path");
    let query = format!("oddName {OSC52} {C1_CSI}");
    let focus = format!("nope{CSI}{OSC52}");
    let calls = [
        json!({"name": "repo_map", "arguments": {"query": query, "focus_files": [focus]}}),
        json!({"name": "repo_map", "arguments": {"format": "markdown"}}),
        json!({"name": "search", "arguments": {"query": query}}),
        json!({"name": "search", "arguments": {"query": query, "files": true}}),
        json!({"name": "repo_stats", "arguments": {}}),
        json!({"name": "search", "arguments": {"query": "x", "lang": [format!("r{OSC52}")]}}),
        json!({"name": format!("tool{CSI}")}),
    ];
    let mut input = String::new();
    let mut request = |id: usize, method: &str, params: Value| {
        let m = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        input.push_str(&m.to_string());
        input.push('\n');
    };
    request(0, "initialize", json!({"protocolVersion": "2025-06-18"}));
    for (i, call) in calls.iter().enumerate() {
        request(i + 1, "tools/call", call.clone());
    }
    request(99, &format!("no/such{OSC52}"), json!({}));

    let mut child = Command::new(env!("CARGO_BIN_EXE_mapscope"))
        .env("MAPSCOPE_CACHE_DIR", common::test_cache_dir())
        .args(["mcp", root, "--no-watch", "--no-history", "--no-cache"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run mapscope mcp");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write the requests");
    let out = child
        .wait_with_output()
        .expect("mcp ends when stdin closes");
    assert_clean("mcp", &out);

    let answers: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    assert_eq!(answers.len(), calls.len() + 2, "{}", text(&out.stdout));
    let mut texts = 0;
    for a in &answers {
        // What a client shows: the text content and error messages, decoded from JSON.
        let mut shown: Vec<&str> = Vec::new();
        if let Some(content) = a["result"]["content"].as_array() {
            shown.extend(content.iter().filter_map(|c| c["text"].as_str()));
        }
        shown.extend(a["error"]["message"].as_str());
        for s in shown {
            texts += 1;
            if let Some(found) = first_control(s.as_bytes()) {
                panic!("mcp text content: {found}\n{a}");
            }
        }
    }
    assert!(texts >= calls.len(), "{texts} texts checked");
    let map = answers[1]["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or("");
    assert!(map.contains("oddName"), "{map}");
}

#[test]
fn a_repository_path_with_escapes_is_echoed_safely() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let repo = tmp.path().join(format!("repo{OSC52}"));
    common::write_files(&repo, &[("a.ts", "export function a() {}\n")]);
    let empty = tmp.path().join(format!("empty{CSI}"));
    std::fs::create_dir_all(&empty).expect("mkdir");
    for args in [
        vec![OsStr::new("stats"), repo.as_os_str()],
        vec![OsStr::new("stats"), repo.as_os_str(), OsStr::new("--json")],
        vec![OsStr::new("map"), empty.as_os_str()],
        vec![OsStr::new("cache"), OsStr::new("path"), repo.as_os_str()],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_mapscope"))
            .env("MAPSCOPE_CACHE_DIR", common::test_cache_dir())
            .args(&args)
            .output()
            .expect("run mapscope");
        assert_clean(&format!("{args:?}"), &out);
        assert!(!out.stdout.is_empty() || !out.stderr.is_empty());
    }
}
