//! `IndexOptions::map_lines_only` (what `mapscope map` uses) keeps of each file only the lines
//! a map renders: the maps must come out byte for byte as from an index with full sources,
//! in every format, over budgets small and large, with and without focus files and
//! mentioned identifiers. So must a one-shot index (`consume_refs`, `Index::map_once`), which
//! frees references, imports and the graph as soon as they are used, also when it writes the
//! persistent cache as it parses (a first cache-on run), and when it is served from that cache.

use crate::common;

use std::path::Path;

use common::fixture;

use mapscope::engine::index::{Index, IndexOptions, MapRequest};
use mapscope::engine::rank::repo_map::{render, MapFormat, RepoMap};
use mapscope::engine::store::dir::DiskCache;

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

    for req in requests(&full, &[16, 128, 512, 2048, 65_536], 2) {
        let (a, _) = full.map(&req);
        let (b, _) = lean.map(&req);
        assert_same_render(root, &req, (&a, &full), (&b, &lean));
    }
}

/// Map requests over `budgets` × focus sets (none, the first file, and with `focus_sets` 2
/// the last two files too) × identifiers (none, three definition names).
fn requests(index: &Index, budgets: &[usize], focus_sets: usize) -> Vec<MapRequest> {
    let paths: Vec<String> = index.files.iter().map(|f| f.path.clone()).collect();
    let names: Vec<String> = index
        .files
        .iter()
        .flat_map(|f| f.tags.defs.iter().map(|d| d.name.clone()))
        .take(3)
        .collect();
    let mut focus: Vec<Vec<String>> = vec![Vec::new(), paths.iter().take(1).cloned().collect()];
    if focus_sets > 1 {
        focus.push(paths.iter().rev().take(2).cloned().collect());
    }
    let mut out = Vec::new();
    for &budget in budgets {
        for f in &focus {
            for idents in [Vec::new(), names.clone()] {
                out.push(MapRequest {
                    budget,
                    focus: f.clone(),
                    idents,
                    ..MapRequest::default()
                });
            }
        }
    }
    out
}

/// Both maps render the same in every format.
fn assert_same_render(root: &Path, req: &MapRequest, a: (&RepoMap, &Index), b: (&RepoMap, &Index)) {
    for format in MapFormat::ALL {
        assert_eq!(
            render(a.0, &a.1.files, format),
            render(b.0, &b.1.files, format),
            "{} budget {} focus {:?} {}",
            root.display(),
            req.budget,
            req.focus,
            format.name()
        );
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
    for req in requests(&full, &[128, 4096], 1) {
        let (a, _) = full.map(&req);
        let mut once = Index::build(root, &one_shot_opts).expect("fixture builds");
        assert_eq!(once.graph.edge_count(), full.graph.edge_count());
        let b = once.map_once(&req);
        assert!(once.files.iter().all(|f| f.tags.refs.is_empty()));
        assert_same_render(root, &req, (&a, &full), (&b, &once));
    }
}

#[test]
fn fixture_maps_are_identical_from_a_one_shot_index() {
    for repo in ["ts-app", "js-app", "py-app", "go-app", "search-app"] {
        assert_same_one_shot_maps(&fixture(repo));
    }
}

/// What `mapscope map` builds with the cache on.
fn cached_one_shot_opts() -> IndexOptions {
    IndexOptions {
        use_cache: true,
        skip_docs: true,
        map_lines_only: true,
        consume_refs: true,
        ..IndexOptions::default()
    }
}

/// A first cache-on one-shot run maps like a full index and writes a cache holding every
/// file's full tags (references included, though the index dropped its own); a second run
/// parses nothing, writes nothing and maps the same.
fn assert_cached_one_shot_maps(root: &Path) {
    let full = build(root, false);
    let cache_base = tempfile::tempdir().expect("temp dir");
    let cache = || DiskCache::under(cache_base.path(), &full.root);
    for req in requests(&full, &[128, 4096], 1) {
        let _ = cache().expect("cache dir").clear();
        let mut first = Index::build_with_cache(root, &cached_one_shot_opts(), cache(), &|_| {})
            .expect("fixture builds");
        assert_eq!(first.reuse.parsed, full.files.len(), "{:?}", first.reuse);
        assert!(first.cache_pending());
        assert!(first.files.iter().all(|f| f.tags.refs.is_empty()));
        let write = first
            .take_cache_write()
            .expect("a first run writes as it parses");
        // The linked graph is saved too (the derived cache), encoded before `map_once`
        // drops it.
        let graph_save = first.take_graph_save().expect("the graph is saved once");
        assert!(!first.cache_pending());
        assert!(first.take_graph_save().is_none());
        assert_eq!(first.graph.edge_count(), full.graph.edge_count());
        let a = first.map_once(&req);
        write.finish().expect("cache saved");
        assert!(graph_save().expect("graph saved"));
        let (b, _) = full.map(&req);
        assert_same_render(root, &req, (&a, &first), (&b, &full));

        let mut second = Index::build_with_cache(root, &cached_one_shot_opts(), cache(), &|_| {})
            .expect("fixture builds");
        assert!(second.warnings().is_empty(), "{:?}", second.warnings());
        assert_eq!(second.reuse.parsed, 0, "{:?}", second.reuse);
        // Files modified well before the first run are taken unread (`unchanged`), others
        // are read and found by content (`hash_hits`).
        assert_eq!(
            second.reuse.hash_hits + second.reuse.unchanged,
            full.files.len()
        );
        assert!(
            second.times.graph_cached,
            "the graph comes from the derived cache"
        );
        assert!(!second.cache_pending());
        assert!(second.take_cache_write().is_none());
        let c = second.map_once(&req);
        assert_same_render(root, &req, (&c, &second), (&b, &full));
    }

    // The cache holds what a full index has, so a long-lived index (the TUI's, which keeps
    // references for search) built from it equals one built from scratch.
    let loaded = cache().expect("cache dir").load();
    assert!(loaded.warning.is_none(), "{:?}", loaded.warning);
    assert_eq!(loaded.store.len(), full.files.len());
    for f in &full.files {
        let hit = loaded.store.lookup(&f.path, f.lang, f.size, f.hash);
        assert_eq!(hit.as_deref(), Some(&*f.tags), "{}", f.path);
    }
    let tui_opts = IndexOptions {
        use_cache: true,
        ..IndexOptions::default()
    };
    let tui = Index::build_with_cache(root, &tui_opts, cache(), &|_| {}).expect("builds");
    assert_eq!(tui.reuse.parsed, 0, "{:?}", tui.reuse);
    assert!(!tui.cache_pending());
    assert_eq!(tui.graph.edge_count(), full.graph.edge_count());
    for (a, b) in tui.files.iter().zip(&full.files) {
        assert_eq!((&a.path, &a.tags), (&b.path, &b.tags));
    }
}

#[test]
fn fixture_maps_are_identical_from_a_cached_one_shot_index_first_and_second_run() {
    for repo in ["ts-app", "js-app", "py-app", "go-app", "search-app"] {
        assert_cached_one_shot_maps(&fixture(repo));
    }
}

/// A first run that finds nothing to index leaves no cache file, temporary file or
/// directory behind.
#[test]
fn an_abandoned_first_write_leaves_nothing() {
    let repo = tempfile::tempdir().expect("temp dir");
    common::write_files(repo.path(), &[("README.md", "# nothing to index\n")]);
    let cache_base = tempfile::tempdir().expect("temp dir");
    let root = repo.path().canonicalize().expect("canonical");
    let cache = DiskCache::under(cache_base.path(), &root);
    let built = Index::build_with_cache(repo.path(), &cached_one_shot_opts(), cache, &|_| {});
    assert!(built.is_err());
    let left: Vec<_> = std::fs::read_dir(cache_base.path())
        .expect("cache base")
        .collect();
    assert!(left.is_empty(), "{left:?}");
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

/// A warm map-only run takes a file modified well before the cache was written without
/// reading it (its map lines come from the cache) and maps the same; a file rewritten since,
/// even to the same size, is read again and its new lines are mapped.
#[test]
fn a_warm_map_reads_only_files_changed_since_the_cache() {
    use std::time::{Duration, SystemTime};
    let repo = tempfile::tempdir().expect("temp dir");
    let root = repo.path();
    let old = SystemTime::now() - Duration::from_hours(1);
    for (name, text) in [
        ("a.py", "def alpha():\n    return 1\n"),
        (
            "b.py",
            "from a import alpha\n\ndef beta():\n    return alpha()\n",
        ),
    ] {
        let path = root.join(name);
        std::fs::write(&path, text).expect("write");
        let f = std::fs::File::options()
            .write(true)
            .open(&path)
            .expect("open");
        f.set_modified(old).expect("set mtime");
    }
    let cache_base = tempfile::tempdir().expect("temp dir");
    let canonical = root.canonicalize().expect("canonical");
    let cache = || DiskCache::under(cache_base.path(), &canonical);
    let req = MapRequest {
        budget: 4096,
        ..MapRequest::default()
    };
    let map_of = |index: &mut Index| render(&index.map_once(&req), &index.files, MapFormat::Text);

    let mut first =
        Index::build_with_cache(root, &cached_one_shot_opts(), cache(), &|_| {}).expect("builds");
    let write = first
        .take_cache_write()
        .expect("a first run writes as it parses");
    let cold = map_of(&mut first);
    write.finish().expect("cache saved");

    let mut second =
        Index::build_with_cache(root, &cached_one_shot_opts(), cache(), &|_| {}).expect("builds");
    assert_eq!(second.reuse.unchanged, 2, "{:?}", second.reuse);
    assert_eq!(map_of(&mut second), cold);

    // Same size, new name, fresh mtime: read again, not trusted by size.
    std::fs::write(root.join("a.py"), "def gamma():\n    return 1\n").expect("write");
    let mut third =
        Index::build_with_cache(root, &cached_one_shot_opts(), cache(), &|_| {}).expect("builds");
    assert_eq!(third.reuse.unchanged, 1, "{:?}", third.reuse);
    assert_eq!(third.reuse.parsed, 1, "{:?}", third.reuse);
    assert!(third.save_cache().expect("cache saved"));
    let map = map_of(&mut third);
    assert!(map.contains("def gamma"), "{map}");
    assert!(!map.contains("alpha():"), "{map}");

    // The rewrite is younger than that save's read: still read (found by content). b.py,
    // carried over unread by the third run, is still trusted under the newer save.
    let mut fourth =
        Index::build_with_cache(root, &cached_one_shot_opts(), cache(), &|_| {}).expect("builds");
    assert_eq!(
        (
            fourth.reuse.unchanged,
            fourth.reuse.hash_hits,
            fourth.reuse.parsed
        ),
        (1, 1, 0),
        "{:?}",
        fourth.reuse
    );
    assert_eq!(map_of(&mut fourth), map);
}
