//! `IndexOptions::map_lines_only` (what `mapscope map` uses) keeps of each file only the lines
//! a map renders: the maps must come out byte for byte as from an index with full sources,
//! in every format, over budgets small and large, with and without focus files and
//! mentioned identifiers. So must a one-shot index (`consume_refs`, `Index::map_once`), which
//! frees references, imports and the graph as soon as they are used.

use std::path::{Path, PathBuf};

use mapscope::engine::index::{Index, IndexOptions, MapRequest};
use mapscope::engine::repo_map::{render, MapFormat};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/repos")
        .join(name)
}

fn build(root: &Path, map_lines_only: bool) -> Index {
    let opts = IndexOptions {
        skip_docs: true,
        map_lines_only,
        ..IndexOptions::default()
    };
    Index::build(root, &opts).expect("fixture builds")
}

/// Every map of `root` for a spread of requests, rendered in all formats, from a full and a
/// map-only index.
fn assert_same_maps(root: &Path) {
    let full = build(root, false);
    let lean = build(root, true);
    assert_eq!(full.files.len(), lean.files.len());
    for (a, b) in full.files.iter().zip(&lean.files) {
        assert_eq!(a.path, b.path);
        assert!(a.source().is_some() && b.source().is_none());
        assert_eq!(a.line_count(), b.line_count(), "{}", a.path);
        for n in 0..=a.line_count() + 1 {
            assert_eq!(a.is_nonblank(n), b.is_nonblank(n), "{}:{n}", a.path);
        }
    }

    let paths: Vec<String> = full.files.iter().map(|f| f.path.clone()).collect();
    let names: Vec<String> = full
        .files
        .iter()
        .flat_map(|f| f.tags.defs.iter().map(|d| d.name.clone()))
        .take(3)
        .collect();
    let focus_sets: Vec<Vec<String>> = vec![
        Vec::new(),
        paths.iter().take(1).cloned().collect(),
        paths.iter().rev().take(2).cloned().collect(),
    ];
    for budget in [16, 128, 512, 2048, 65_536] {
        for focus in &focus_sets {
            for idents in [Vec::new(), names.clone()] {
                let req = MapRequest {
                    budget,
                    focus: focus.clone(),
                    idents,
                    ..MapRequest::default()
                };
                let (a, _) = full.map(&req);
                let (b, _) = lean.map(&req);
                for format in MapFormat::ALL {
                    assert_eq!(
                        render(&a, &full.files, format),
                        render(&b, &lean.files, format),
                        "{} budget {budget} focus {focus:?} {}",
                        root.display(),
                        format.name()
                    );
                }
            }
        }
    }
}

#[test]
fn fixture_maps_are_identical_with_map_lines_only() {
    for repo in ["ts-app", "js-app", "py-app", "go-app", "search-app"] {
        assert_same_maps(&fixture(repo));
    }
}

/// A one-shot index (what `mapscope map` builds) maps like a full one.
fn assert_same_one_shot_maps(root: &Path) {
    let full = build(root, false);
    let one_shot_opts = IndexOptions {
        skip_docs: true,
        map_lines_only: true,
        consume_refs: true,
        ..IndexOptions::default()
    };
    let paths: Vec<String> = full.files.iter().map(|f| f.path.clone()).collect();
    let names: Vec<String> = full
        .files
        .iter()
        .flat_map(|f| f.tags.defs.iter().map(|d| d.name.clone()))
        .take(3)
        .collect();
    for budget in [128, 4096] {
        for focus in [Vec::new(), paths.iter().take(1).cloned().collect()] {
            for idents in [Vec::new(), names.clone()] {
                let req = MapRequest {
                    budget,
                    focus: focus.clone(),
                    idents,
                    ..MapRequest::default()
                };
                let (a, _) = full.map(&req);
                let mut once = Index::build(root, &one_shot_opts).expect("fixture builds");
                assert_eq!(once.graph.edge_count(), full.graph.edge_count());
                let b = once.map_once(&req);
                assert!(once.files.iter().all(|f| f.tags.refs.is_empty()));
                for format in MapFormat::ALL {
                    assert_eq!(
                        render(&a, &full.files, format),
                        render(&b, &once.files, format),
                        "{} budget {budget} focus {focus:?} {}",
                        root.display(),
                        format.name()
                    );
                }
            }
        }
    }
}

#[test]
fn fixture_maps_are_identical_from_a_one_shot_index() {
    for repo in ["ts-app", "js-app", "py-app", "go-app", "search-app"] {
        assert_same_one_shot_maps(&fixture(repo));
    }
}

#[test]
fn crlf_blank_and_whitespace_lines_render_the_same() {
    let dir = tempfile::tempdir().expect("temp dir");
    let ts = "export class A {\r\n\r\n  \t\r\n  method(x: number,\r\n    y: string): void {\r\n  }\r\n}\r\n\r\nexport function f(): A { return new A(); }";
    let py = "class B:\n    \n\n    def g(self,\n          a,\n          b):\n        pass\n\n\ndef h():\n    return B()\n";
    std::fs::write(dir.path().join("a.ts"), ts).expect("write");
    std::fs::write(dir.path().join("b.py"), py).expect("write");
    assert_same_maps(dir.path());
}
