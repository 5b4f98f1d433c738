//! Source files without a grammar in the map by their path alone (issue 41, item 3): a file
//! the code names (`open("db/schema.sql")`) is ranked up, one the query names too, one
//! nobody names comes after every definition; each is one path line counted in the budget,
//! and the budget holds at every size.

use crate::common;

use mapscope::engine::base::tokenizer::{tokenizer, TokenizerKind};
use mapscope::engine::index::{Index, IndexOptions, MapRequest};
use mapscope::engine::rank::repo_map::{render, MapFormat, RepoMap};
use std::collections::BTreeSet;

fn shop() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    common::write_files(
        dir.path(),
        &[
            (
                "app/db.py",
                "from app.util import quote\n\nSCHEMA = \"db/schema.sql\"\n\n\ndef load_schema(conn):\n    with open(SCHEMA) as f:\n        conn.executescript(quote(f.read()))\n\n\ndef connect(url):\n    return url\n",
            ),
            (
                "app/util.py",
                "def quote(s):\n    return s\n\n\ndef slugify(s):\n    return s.lower()\n",
            ),
            (
                "app/main.py",
                "from app.db import load_schema, connect\nfrom app.util import slugify\n\n\ndef main():\n    load_schema(connect('x'))\n    slugify('a')\n",
            ),
            ("db/schema.sql", "CREATE TABLE users (id INTEGER PRIMARY KEY);\n"),
            ("db/unused.sql", "SELECT 1;\n"),
            (
                "proto/billing.proto",
                "syntax = \"proto3\";\nmessage Invoice { string id = 1; }\n",
            ),
            ("logo.png", "not really a picture"),
        ],
    );
    dir
}

fn index(dir: &tempfile::TempDir) -> Index {
    Index::build(dir.path(), &IndexOptions::default()).expect("fixture builds")
}

fn request(budget: usize, query: Option<&str>) -> MapRequest {
    MapRequest {
        budget,
        query: query.map(str::to_string),
        ..MapRequest::default()
    }
}

fn paths(map: &RepoMap) -> Vec<&str> {
    map.files.iter().map(|f| f.path.as_str()).collect()
}

fn position(map: &RepoMap, path: &str) -> Option<usize> {
    map.files.iter().position(|f| f.path == path)
}

#[test]
fn a_named_file_ranks_above_one_nobody_names_which_comes_after_the_code() {
    let dir = shop();
    let index = index(&dir);
    let unsupported: Vec<&str> = index
        .unsupported
        .iter()
        .map(|u| u.rel_path.as_str())
        .collect();
    // Source files, not pictures.
    assert_eq!(
        unsupported,
        ["db/schema.sql", "db/unused.sql", "proto/billing.proto"]
    );
    let (map, _) = index.map(&request(4096, None));
    let schema = position(&map, "db/schema.sql").expect("named file in the map");
    let unused = position(&map, "db/unused.sql").expect("every file fits 4096 tokens");
    assert!(schema < unused, "{:?}", paths(&map));
    // Nobody names `unused.sql` or the proto and no query does: after every file with code.
    let last_code = map.files.iter().rposition(|f| !f.is_path_only()).unwrap();
    assert!(unused > last_code, "{:?}", paths(&map));
    assert!(position(&map, "proto/billing.proto").unwrap() > last_code);
    // One path line each, no `:`, no lines, no symbols.
    for f in map.files.iter().filter(|f| f.is_path_only()) {
        assert!(f.symbols.is_empty() && f.lines.is_empty(), "{f:?}");
        assert!(map.text.lines().any(|l| l == f.path), "{}", map.text);
        assert!(!map.text.contains(&format!("{}:", f.path)));
    }
    assert!(map.text.contains("app/db.py:\n"), "{}", map.text);
    // Markdown: the path on its line, no fenced block for it.
    let md = render(&map, &index.files, MapFormat::Markdown);
    assert!(md.contains("\ndb/schema.sql\n"), "{md}");
    assert!(!md.contains("db/schema.sql\n```"), "{md}");
}

#[test]
fn the_query_brings_a_path_in_at_a_budget_it_was_left_out_of() {
    let dir = shop();
    let index = index(&dir);
    let (full, _) = index.map(&request(4096, None));
    let at = |budget: usize, query: Option<&str>| {
        let (map, _) = index.map(&request(budget, query));
        position(&map, "proto/billing.proto").is_some()
    };
    // The smallest budget at which the proto shows without a query: below it, a query that
    // names it brings it in.
    let without = (1..=full.tokens).find(|&b| at(b, None)).unwrap();
    assert!(without > 20, "{without}");
    let budget = without - 1;
    assert!(!at(budget, None));
    assert!(at(budget, Some("billing invoices")), "budget {budget}");
}

#[test]
fn the_budget_holds_and_a_larger_one_keeps_every_line() {
    let dir = shop();
    let index = index(&dir);
    let tok = tokenizer(TokenizerKind::O200k);
    let mut before: BTreeSet<String> = BTreeSet::new();
    for budget in [0, 1, 5, 8, 12, 16, 20, 30, 40, 60, 80, 120, 200, 400] {
        for query in [None, Some("schema"), Some("billing")] {
            let (map, _) = index.map(&request(budget, query));
            assert!(map.tokens <= budget, "{} > {budget}", map.tokens);
            assert_eq!(map.tokens, tok.count(&map.text));
            if query.is_none() {
                let shown: BTreeSet<String> = map.text.lines().map(str::to_string).collect();
                assert!(before.is_subset(&shown), "{budget}: {before:?} ⊄ {shown:?}");
                before = shown;
            }
        }
    }
}

#[test]
fn scope_and_exclusions_apply_to_paths() {
    let dir = shop();
    let index = index(&dir);
    let mut req = request(4096, None);
    req.exclude_files = vec!["db/schema.sql".into()];
    let (map, _) = index.map(&req);
    assert_eq!(position(&map, "db/schema.sql"), None);
    assert!(position(&map, "db/unused.sql").is_some());
    let mut req = request(4096, None);
    req.scope.langs = vec!["python".into()];
    let (map, _) = index.map(&req);
    assert!(
        map.files.iter().all(|f| !f.is_path_only()),
        "{:?}",
        paths(&map)
    );
}

#[test]
fn a_map_without_such_files_is_the_same() {
    let dir = shop();
    let (with, _) = index(&dir).map(&request(4096, None));
    for p in ["db/schema.sql", "db/unused.sql", "proto/billing.proto"] {
        std::fs::remove_file(dir.path().join(p)).unwrap();
    }
    let (without, _) = index(&dir).map(&request(4096, None));
    // The code's blocks are the same, in the same order: only the path lines went.
    let code = |m: &RepoMap| -> Vec<(String, Vec<String>)> {
        m.files
            .iter()
            .filter(|f| !f.is_path_only())
            .map(|f| (f.path.clone(), f.lines.clone()))
            .collect()
    };
    assert_eq!(code(&with), code(&without));
    assert!(without.files.iter().all(|f| !f.is_path_only()));
}
