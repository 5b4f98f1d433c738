//! Deep nesting costs linear memory: a generated file of thousands of nested functions
//! yields tags (and a tag cache) proportional to its size, like a flat file of as many
//! functions. Sizes and counts only, never times.

use crate::common;

use std::path::Path;
use std::process::Command;

use mapscope::engine::base::model::{FileTags, Lang};
use mapscope::engine::ingest::tags::{extract_tags, MAX_SCOPE_LINES};

const N: usize = 2000;

fn nested_js(n: usize) -> String {
    let mut s: String = (0..n).map(|i| format!("function f{i}(){{\n")).collect();
    s.push_str(&"}\n".repeat(n));
    s
}

fn flat_js(n: usize) -> String {
    (0..n).map(|i| format!("function f{i}(){{\n}}\n")).collect()
}

/// What the definitions hold beyond their fixed-size fields.
fn stored(tags: &FileTags) -> usize {
    tags.defs
        .iter()
        .map(|d| d.name.len() + d.parent.as_ref().map_or(0, String::len) + 4 * d.scope_lines.len())
        .sum()
}

#[test]
fn nested_definitions_keep_a_bounded_scope_chain() {
    let deep = extract_tags(Lang::JavaScript, &nested_js(N));
    let flat = extract_tags(Lang::JavaScript, &flat_js(N));
    assert_eq!(deep.defs.len(), N, "every nested function is found");
    assert_eq!(flat.defs.len(), N);
    assert!(deep
        .defs
        .iter()
        .all(|d| d.scope_lines.len() <= MAX_SCOPE_LINES));
    // The innermost scopes are the ones kept: f1999's are the lines of f1991 … f1998.
    let last = deep.defs.iter().find(|d| d.name == "f1999").expect("f1999");
    let want: Vec<u32> = (1992..=1999).collect();
    assert_eq!(last.scope_lines, want);
    assert_eq!(last.parent.as_deref(), Some("f1998"));
    // A whole chain per definition would be ~N²/2 = 2,000,000 scope lines.
    assert!(
        stored(&deep) <= 3 * stored(&flat) + 4 * MAX_SCOPE_LINES * N,
        "deep {} vs flat {}",
        stored(&deep),
        stored(&flat)
    );
}

fn cache_size(dir: &Path) -> u64 {
    let mut total = 0;
    for entry in std::fs::read_dir(dir).expect("cache dir").flatten() {
        let meta = entry.metadata().expect("metadata");
        total += if meta.is_dir() {
            cache_size(&entry.path())
        } else {
            meta.len()
        };
    }
    total
}

/// The tag cache `mapscope map` writes for a repository holding one file.
fn cached_bytes(file: &str, source: &str) -> u64 {
    let tmp = tempfile::tempdir().expect("tempdir");
    let repo = tmp.path().join("repo");
    let cache = tmp.path().join("cache");
    common::write_files(&repo, &[(file, source)]);
    let out = Command::new(env!("CARGO_BIN_EXE_mapscope"))
        .args(["map", "--tokens", "256"])
        .arg(&repo)
        .env("MAPSCOPE_CACHE_DIR", &cache)
        .output()
        .expect("run mapscope");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).starts_with(&format!("{file}:\n")));
    cache_size(&cache)
}

#[test]
fn a_deeply_nested_file_caches_about_what_a_flat_one_does() {
    let deep = cached_bytes("deep.js", &nested_js(N));
    let flat = cached_bytes("flat.js", &flat_js(N));
    // Before the cap: 2,000 nested functions cached ~8 MB (quadratic), 100× the flat file.
    assert!(deep <= 3 * flat, "deep {deep} bytes vs flat {flat} bytes");
}
