//! The JSON map's contract for a file shown by its path alone (a source file without a
//! grammar): `path_only: true` and no symbols on that file, the field absent on every other
//! one (so a consumer of a map without such files sees the document it always did); the text
//! and markdown formats carry the path line; `stats` counts the file.

use crate::common;

use std::process::{Command, Output};

fn mapscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mapscope"))
        .env("MAPSCOPE_CACHE_DIR", common::test_cache_dir())
        .args(args)
        .output()
        .expect("run mapscope")
}

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    common::write_files(
        dir.path(),
        &[
            (
                "src/queries.ts",
                "const USERS = await load('sql/users.sql');\n\nexport function listUsers(db: Db) {\n  return db.run(USERS);\n}\n",
            ),
            (
                "src/main.ts",
                "import { listUsers } from './queries';\n\nexport function main() {\n  return listUsers(db);\n}\n",
            ),
            ("sql/users.sql", "SELECT * FROM users;\n"),
            ("Makefile", "all:\n\tnpm run build\n"),
        ],
    );
    dir
}

#[test]
fn json_marks_path_only_files_and_only_them() {
    let dir = repo();
    let root = dir.path().to_str().unwrap();
    let o = mapscope(&["map", root, "--format", "json", "--tokens", "2048"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let files = v["files"].as_array().unwrap();
    let sql = files
        .iter()
        .find(|f| f["path"] == "sql/users.sql")
        .expect("in the map");
    assert_eq!(sql["path_only"], true, "{sql}");
    assert_eq!(sql["symbols"].as_array().unwrap().len(), 0);
    assert!(sql["tokens"].as_u64().unwrap() > 0);
    assert!(files
        .iter()
        .any(|f| f["path"] == "Makefile" && f["path_only"] == true));
    for f in files
        .iter()
        .filter(|f| f["path"].as_str().unwrap().ends_with(".ts"))
    {
        assert!(f.get("path_only").is_none(), "{f}");
        assert!(!f["symbols"].as_array().unwrap().is_empty(), "{f}");
    }
    // The named file ranks above the one nobody names.
    let at = |p: &str| files.iter().position(|f| f["path"] == p).unwrap();
    assert!(at("sql/users.sql") < at("Makefile"), "{files:?}");
    let text = v["text"].as_str().unwrap();
    assert!(text.lines().any(|l| l == "sql/users.sql"), "{text}");
    assert!(v["tokens"].as_u64().unwrap() <= 2048);

    let o = mapscope(&["map", root, "--tokens", "2048"]);
    assert_eq!(String::from_utf8_lossy(&o.stdout), text);
    let o = mapscope(&["map", root, "--tokens", "2048", "--format", "markdown"]);
    let md = String::from_utf8_lossy(&o.stdout);
    assert!(md.lines().any(|l| l == "sql/users.sql"), "{md}");

    let o = mapscope(&["stats", root, "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["unsupported_files"], 2);
    assert_eq!(v["unsupported_by_extension"][".sql"], 1);
    assert_eq!(v["unsupported_by_extension"]["Makefile"], 1);
    assert_eq!(v["unsupported_by_language"]["make"], 1);
    let o = mapscope(&["stats", root]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("no grammar: 2 files (in the map by path)"),
        "{text}"
    );
}

/// A repository of only source files without a grammar is mapped by their paths, the same
/// text on the command line and over HTTP; a repository with nothing at all stays empty.
#[test]
fn a_repository_of_only_path_only_files_is_mapped_by_its_paths() {
    let dir = tempfile::tempdir().unwrap();
    common::write_files(
        dir.path(),
        &[
            ("db/schema.sql", "CREATE TABLE users (id int);\n"),
            ("Makefile", "all:\n\techo hi\n"),
        ],
    );
    let root = dir.path().to_str().unwrap();
    let o = mapscope(&["map", root, "--no-cache"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(text, "Makefile\n\ndb/schema.sql\n");
    let o = mapscope(&["map", root, "--format", "json", "--no-cache"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["files"][1]["path"], "db/schema.sql", "{v}");
    assert_eq!(v["files"][1]["path_only"], true, "{v}");

    let server = crate::http_serve::start(dir.path());
    let (status, v) = crate::http_serve::get(&server.base, "/map?tokens=1024");
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["text"].as_str(), Some(text.as_str()), "{v}");
}
