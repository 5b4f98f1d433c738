//! `mapscope refs`: callers and callees as text lines and as the JSON document, and its
//! one-line errors with their codes.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

/// A Python tree: `helper` called from two implementation files and a test, a method
/// `area` of two classes called on two receivers, and a local call.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    common::write_files(
        dir.path(),
        &[
            ("pkg/util.py", "def helper(x):\n    return x\n"),
            (
                "pkg/app.py",
                "from pkg.util import helper\n\n\ndef local():\n    return 1\n\n\ndef run():\n    return helper(local())\n",
            ),
            (
                "pkg/cli.py",
                "from pkg.util import helper\n\n\ndef main():\n    helper(2)\n",
            ),
            (
                "tests/test_util.py",
                "from pkg.util import helper\n\n\ndef test_helper():\n    assert helper(1) == 1\n",
            ),
            (
                "shapes/circle.py",
                "class Circle:\n    def area(self):\n        return 3\n",
            ),
            (
                "shapes/square.py",
                "class Square:\n    def area(self):\n        return 4\n",
            ),
            ("report.py", "def total(c, s):\n    return c.area() + s.area()\n\n\nimport shapes.circle\nimport shapes.square\n"),
        ],
    );
    dir
}

fn refs(root: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mapscope"))
        .env("MAPSCOPE_CACHE_DIR", common::test_cache_dir())
        .arg("refs")
        .arg(root)
        .args(args)
        .output()
        .expect("run mapscope refs")
}

fn stdout(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone()).unwrap()
}

#[test]
fn text_lists_callers_implementation_first_then_callees() {
    let dir = repo();
    let out = stdout(&refs(dir.path(), &["helper"]));
    assert_eq!(
        out,
        "helper  function  pkg/util.py:1-2\n\
         \x20 callers (6):\n\
         \x20   pkg/app.py:9  call  run  (import)\n\
         \x20   pkg/cli.py:5  call  main  (import)\n\
         \x20   pkg/app.py:1  import  (top level)  (import)\n\
         \x20   pkg/cli.py:1  import  (top level)  (import)\n\
         \x20   tests/test_util.py:5  call  test_helper  (import)\n\
         \x20   tests/test_util.py:1  import  (top level)  (import)\n\
         \x20 callees: none (1 use bound to nothing in the repository)\n"
    );
    let out = stdout(&refs(dir.path(), &["pkg/app.py:9", "--callees"]));
    assert_eq!(
        out,
        "run  function  pkg/app.py:8-9\n\
         \x20 callees (2):\n\
         \x20   pkg/app.py:9  call  helper → pkg/util.py:1 helper  (import)\n\
         \x20   pkg/app.py:9  call  local → pkg/app.py:4 local  (same file)\n"
    );
}

#[test]
fn a_name_with_two_definitions_answers_for_each_and_marks_the_guesses() {
    let dir = repo();
    let o = refs(dir.path(), &["area", "--callers"]);
    let out = stdout(&o);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("note: `area` names 2 definitions"),
        "{stderr}"
    );
    assert_eq!(
        out,
        "Circle.area  method  shapes/circle.py:2-3\n\
         \x20 callers (2):\n\
         \x20   report.py:2  call  total  (method guess, ambiguous: 2 definitions)\n\
         \x20   report.py:2  call  total  (method guess, ambiguous: 2 definitions)\n\
         \n\
         Square.area  method  shapes/square.py:2-3\n\
         \x20 callers (2):\n\
         \x20   report.py:2  call  total  (method guess, ambiguous: 2 definitions)\n\
         \x20   report.py:2  call  total  (method guess, ambiguous: 2 definitions)\n"
    );
}

#[test]
fn json_is_the_contract_document() {
    let dir = repo();
    let out = stdout(&refs(dir.path(), &["helper", "--json", "--top", "2"]));
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["success"], true);
    assert_eq!(v["target"], "helper");
    assert_eq!(v["direction"], "both");
    assert_eq!(v["top"], 2);
    assert_eq!(v["ambiguous_name"], false);
    let g = &v["definitions"][0];
    assert_eq!(g["definition"]["path"], "pkg/util.py");
    assert_eq!(g["callers"]["total"], 6);
    let uses = g["callers"]["uses"].as_array().unwrap();
    assert_eq!(uses.len(), 2);
    assert_eq!(uses[0]["path"], "pkg/app.py");
    assert_eq!(uses[0]["caller"]["name"], "run");
    assert_eq!(uses[0]["binding"], "import");
    assert_eq!(uses[0]["ambiguous"], false);
    assert_eq!(g["callees"]["total"], 0);
    let v: Value =
        serde_json::from_str(&stdout(&refs(dir.path(), &["area", "--json", "--callers"]))).unwrap();
    assert_eq!(v["ambiguous_name"], true);
    assert_eq!(v["definitions_total"], 2);
    assert!(v["definitions"][0].get("callees").is_none());
    // Each definition with its container and qualified name; a top-level one without.
    let d = &v["definitions"][1]["definition"];
    assert_eq!(
        (&d["container"], &d["qualified_name"]),
        (&Value::from("Square"), &Value::from("Square.area"))
    );
    let caller = &v["definitions"][0]["callers"]["uses"][0]["caller"];
    assert_eq!(caller["name"], "total");
    assert!(caller.get("qualified_name").is_none(), "{caller}");
    let u = &v["definitions"][0]["callers"]["uses"][0];
    assert_eq!(
        (&u["binding"], &u["ambiguous"], &u["candidates"]),
        (
            &Value::from("method_guess"),
            &Value::from(true),
            &Value::from(2)
        )
    );
}

#[test]
fn errors_are_one_line_with_a_stable_code() {
    let dir = repo();
    for (args, code) in [
        (&["nope"][..], "NOT_FOUND"),
        (&["pkg/app.py:3"][..], "NOT_FOUND"),
        (&["missing.py:1"][..], "NOT_FOUND"),
        (&["pkg/app.py:0"][..], "INVALID_ARGUMENT"),
        (&["helper", "--top", "0"][..], "INVALID_ARGUMENT"),
        (
            &["helper", "--callers", "--callees"][..],
            "INVALID_ARGUMENT",
        ),
    ] {
        let o = refs(dir.path(), args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(
            stderr.starts_with(&format!("mapscope: {code}: ")),
            "{args:?}: {stderr}"
        );
    }
    let o = refs(dir.path(), &["nope", "--json"]);
    assert_eq!(o.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["code"], "NOT_FOUND");
    assert_eq!(v["success"], false);
}

#[test]
fn names_from_the_repository_reach_the_terminal_sanitized() {
    let dir = tempfile::tempdir().unwrap();
    common::write_files(
        dir.path(),
        &[
            ("a\x1b[31m.py", "def helper():\n    return 1\n"),
            ("b.py", "def run():\n    return helper()\n"),
        ],
    );
    let o = refs(dir.path(), &["helper"]);
    let out = stdout(&o);
    assert!(!out.contains('\x1b'), "{out:?}");
    assert!(out.contains("b.py:2  call  run"), "{out:?}");
    // The JSON escapes them (C1 and DEL too): no raw control character on any line.
    let out = stdout(&refs(dir.path(), &["run", "--json", "--callees"]));
    assert!(
        out.lines().all(|l| !l.chars().any(char::is_control)),
        "{out:?}"
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    let callee = &v["definitions"][0]["callees"]["uses"][0];
    assert_eq!(callee["definitions"][0]["path"], "a\x1b[31m.py", "{v}");
}
