//! `IndexOptions::lazy_sources` (what the CLI's one-shot commands use): a warm build takes
//! files unchanged since the tag cache was written without reading them, and reads a file's
//! text only when something asks for a line the cache did not keep; with `lazy_links` (the
//! CLI's search), their references and imports stay undecoded until asked for; docs
//! unchanged since the doc table was written are taken unread too. Searches and reference
//! answers are those of a build that read everything, the search index read beside the
//! build (`search_soon`) is the one a fresh build makes, and a doc changed in any way the
//! racy-clean rule can see is read again.

use std::path::Path;
use std::time::{Duration, SystemTime};

use mapscope::engine::index::refs::{Direction, RefTarget, RefsRequest};
use mapscope::engine::index::{Index, IndexOptions};
use mapscope::engine::search::SearchOptions;
use mapscope::engine::store::dir::DiskCache;

use crate::common;

/// A copy of a fixture whose files were all last modified an hour ago (so that the tag cache
/// may trust them by size and mtime), with its canonical root.
fn aged_copy(name: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("repo");
    let mut stack = vec![common::fixture(name)];
    let from = stack[0].clone();
    let old = SystemTime::now() - Duration::from_hours(1);
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("read fixture") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let to = root.join(path.strip_prefix(&from).expect("under fixture"));
            std::fs::create_dir_all(to.parent().expect("parent")).expect("mkdir");
            std::fs::copy(&path, &to).expect("copy");
            let f = std::fs::File::options()
                .write(true)
                .open(&to)
                .expect("open");
            f.set_modified(old).expect("set mtime");
        }
    }
    let canonical = root.canonicalize().expect("canonical");
    (dir, canonical)
}

fn lazy_opts() -> IndexOptions {
    IndexOptions {
        use_cache: true,
        lazy_sources: true,
        search_soon: true,
        lazy_links: true,
        ..IndexOptions::default()
    }
}

const QUERIES: [&str; 4] = [
    "parse config",
    "retry the request",
    "where are orders exported",
    "load settings from file",
];

fn hits(index: &Index, query: &str) -> Vec<(String, u32, u32, String, String)> {
    index
        .search(query, &SearchOptions::default())
        .hits
        .iter()
        .map(|h| {
            (
                h.file_path.clone(),
                h.line_range.start,
                h.line_range.end,
                h.excerpt.clone(),
                format!("{:?} {:?} {:.6}", h.evidence, h.symbol, h.score),
            )
        })
        .collect()
}

#[test]
fn a_warm_lazy_build_reads_no_file_and_searches_as_a_full_one() {
    let (_dir, root) = aged_copy("search-app");
    let full = Index::build(&root, &IndexOptions::default()).expect("builds");
    let cache_base = tempfile::tempdir().expect("temp dir");
    let cache = || DiskCache::under(cache_base.path(), &root);

    // Cold: everything is read and parsed, and the caches are written.
    let cold = Index::build_with_cache(&root, &lazy_opts(), cache(), &|_| {}).expect("builds");
    assert_eq!(cold.reuse.parsed, full.files.len(), "{:?}", cold.reuse);
    for q in QUERIES {
        assert_eq!(hits(&cold, q), hits(&full, q), "{q}");
    }
    assert!(cold.save_cache().expect("saved"));

    // Warm: every file is taken unread, its references undecoded, every doc unread; the
    // search index comes from the derived cache.
    let warm = Index::build_with_cache(&root, &lazy_opts(), cache(), &|_| {}).expect("builds");
    assert!(warm.warnings().is_empty(), "{:?}", warm.warnings());
    assert_eq!(warm.reuse.unchanged, full.files.len(), "{:?}", warm.reuse);
    assert!(warm.files.iter().all(|f| f.unread_links.is_some()));
    assert!(!warm.docs.is_empty() && warm.docs.iter().all(|d| !d.is_read()));
    assert_eq!(
        warm.docs
            .iter()
            .map(|d| (&d.path, d.hash))
            .collect::<Vec<_>>(),
        full.docs
            .iter()
            .map(|d| (&d.path, d.hash))
            .collect::<Vec<_>>()
    );
    assert!(!warm.cache_pending());
    // A file no search shows, rewritten now that the build is done: had the build read it,
    // it would still give its old text; it gives none, since its content is no longer the
    // one its tags came from. The lines a map renders it still has, from the cache.
    let shown: Vec<String> = QUERIES
        .iter()
        .flat_map(|q| hits(&full, q).into_iter().map(|h| h.0))
        .collect();
    let unshown = warm
        .files
        .iter()
        .find(|f| !shown.contains(&f.path) && !f.tags.defs.is_empty())
        .expect("a file no hit is in");
    let whole = &full.files[full.file_index(&unshown.path).expect("indexed")];
    std::fs::write(root.join(&unshown.path), "rewritten\n").expect("write");
    for q in QUERIES {
        assert_eq!(hits(&warm, q), hits(&full, q), "{q}");
    }
    assert!(!warm.cache_pending(), "the search index was not rebuilt");
    // Each file's references and imports, decoded as asked for, are a full build's; so is
    // every answer of the refs engine, which binds over all of them.
    for (w, f) in warm.files.iter().zip(&full.files) {
        assert_eq!(w.refs(), f.refs(), "{}", w.path);
        assert_eq!(w.imports(), f.imports(), "{}", w.path);
    }
    let (ws, fs) = (warm.stats(), full.stats());
    assert_eq!((ws.references, ws.imports), (fs.references, fs.imports));
    for f in &full.files {
        for d in &f.tags.defs {
            let req = RefsRequest {
                target: RefTarget::At {
                    path: f.path.clone(),
                    line: d.lines.start,
                },
                direction: Direction::Both,
                top: 50,
            };
            assert_eq!(warm.references(&req), full.references(&req), "{req:?}");
        }
    }
    assert_eq!(unshown.source(), None, "{} was read", unshown.path);
    assert_eq!(unshown.line_count(), whole.line_count());
    // Every line a map shows (a field, `lookup_only`, is not shown: its struct is).
    for d in unshown.tags.defs.iter().filter(|d| !d.lookup_only) {
        let n = d.signature.start;
        assert_eq!(unshown.line(n), whole.line(n), "{}:{n}", unshown.path);
    }
}

/// A search index read beside the build is used only if it was built from the inputs the
/// build yields: after an edit it is not, and the search answers as a fresh build.
#[test]
fn a_search_index_read_ahead_of_other_inputs_is_not_used() {
    let (_dir, root) = aged_copy("search-app");
    let cache_base = tempfile::tempdir().expect("temp dir");
    let cache = || DiskCache::under(cache_base.path(), &root);
    let first = Index::build_with_cache(&root, &lazy_opts(), cache(), &|_| {}).expect("builds");
    let _ = first.search_index();
    assert!(first.save_cache().expect("saved"));

    let edited = first.files[0].path.clone();
    let path = root.join(&edited);
    let mut text = std::fs::read_to_string(&path).expect("read");
    text.push_str("\n// parse config retry settings loader\n");
    std::fs::write(&path, text).expect("write");

    let warm = Index::build_with_cache(&root, &lazy_opts(), cache(), &|_| {}).expect("builds");
    assert_eq!(warm.reuse.parsed, 1, "{:?}", warm.reuse);
    let full = Index::build(Path::new(&root), &IndexOptions::default()).expect("builds");
    for q in QUERIES {
        assert_eq!(hits(&warm, q), hits(&full, q), "{q}");
    }
    assert!(
        warm.cache_pending(),
        "the search index was rebuilt for the edit"
    );
}

/// Whether a search for `word` finds README.md.
fn readme_found(index: &Index, word: &str) -> bool {
    index
        .search(word, &SearchOptions::default())
        .hits
        .iter()
        .any(|h| h.file_path == "README.md")
}

/// Sets `path`'s mtime.
fn set_mtime(path: &Path, at: SystemTime) {
    let f = std::fs::File::options()
        .write(true)
        .open(path)
        .expect("open");
    f.set_modified(at).expect("set mtime");
}

/// A warm build with lazy sources, saved, and whether its README was taken unread.
fn warm_build(root: &Path, cache_base: &Path) -> (Index, bool) {
    let cache = DiskCache::under(cache_base, root);
    let index = Index::build_with_cache(root, &lazy_opts(), cache, &|_| {}).expect("builds");
    let readme = index
        .docs
        .iter()
        .find(|d| d.path == "README.md")
        .expect("README.md is a doc");
    let unread = !readme.is_read();
    let _ = index.search_index();
    index.save_cache().expect("saved");
    (index, unread)
}

/// A doc is taken unread only while its size and mtime are those the doc table holds and it
/// was modified well before the table's docs were read: the same size with a new mtime, the
/// same mtime with a new size, and the same size and mtime within the racy window of the
/// table's read are each read again, and searched as they are now.
#[test]
fn a_doc_changed_since_the_doc_table_is_read_again() {
    let (_dir, root) = aged_copy("search-app");
    let cache_base = tempfile::tempdir().expect("temp dir");
    let readme = root.join("README.md");
    let original = std::fs::read_to_string(&readme).expect("read");
    // The same length as `original`, ending in `word`.
    let same_size =
        |word: &str| format!("{}{word}\n", &original[..original.len() - word.len() - 1]);

    let (_, unread) = warm_build(&root, cache_base.path());
    assert!(!unread, "a cold build reads its docs");
    let (warm, unread) = warm_build(&root, cache_base.path());
    assert!(unread, "an unchanged doc is taken unread");
    assert!(readme_found(&warm, "tiny shop backend"));

    // The same size, a new mtime (still long ago).
    let old = SystemTime::now() - Duration::from_mins(30);
    std::fs::write(&readme, same_size(" zebracorn")).expect("write");
    set_mtime(&readme, old);
    let (index, unread) = warm_build(&root, cache_base.path());
    assert!(!unread);
    assert!(readme_found(&index, "zebracorn"));
    let (index, unread) = warm_build(&root, cache_base.path());
    assert!(unread);
    assert!(readme_found(&index, "zebracorn"));

    // The same mtime, a new size.
    std::fs::write(&readme, format!("{original}unicornfish\n")).expect("write");
    set_mtime(&readme, old);
    let (index, unread) = warm_build(&root, cache_base.path());
    assert!(!unread);
    assert!(readme_found(&index, "unicornfish"));
    assert!(!readme_found(&index, "zebracorn"));

    // Modified just now and read: the table cannot vouch for it, so a rewrite of the same
    // size within the same mtime is still seen.
    let recent = SystemTime::now();
    std::fs::write(&readme, same_size(" quokkacab")).expect("write");
    set_mtime(&readme, recent);
    let (index, unread) = warm_build(&root, cache_base.path());
    assert!(!unread);
    assert!(readme_found(&index, "quokkacab"));
    std::fs::write(&readme, same_size(" narwhalia")).expect("write");
    set_mtime(&readme, recent);
    let (index, unread) = warm_build(&root, cache_base.path());
    assert!(
        !unread,
        "a doc modified within the racy window is read again"
    );
    assert!(readme_found(&index, "narwhalia"));
    assert!(!readme_found(&index, "quokkacab"));
}
