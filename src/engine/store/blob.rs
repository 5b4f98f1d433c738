//! Derived-structure caches next to the tag cache: the linked file graph (`graph.bin`), the
//! search index (`search.bin`) and the history signal's postings (`history-index.bin`) of
//! the last build, so that a warm CLI call loads them
//! instead of rebuilding them (graph linking would be most of a warm `map`, the search
//! index build most of a warm `search`).
//!
//! Format of each file: magic (one per kind), the kind's format version, a fingerprint of
//! the code that builds it (see `code_fingerprint`), the key of its inputs (see `InputKey`),
//! the canonical root (postcard), the structure (postcard), and an xxh3 checksum of
//! everything before it. The fixed-size head is read first, so a cache of other inputs
//! (the tree changed since) costs a 32-byte read, not the whole file. Anything that does not
//! check out — short, garbage, another version, another repository, a bad checksum — is
//! never trusted: it is rebuilt, with one warning unless it merely describes other inputs.
//!
//! Writes go through `files::write_atomic` (a locked, uniquely named temporary file, synced,
//! renamed over the old one), as the tag cache's do: readers never see a partial file.
//!
//! Threads: whichever thread loads or saves the structure (the CLI's main thread or its
//! saving side thread; the engine worker in the TUI).

use std::path::Path;

use serde::de::DeserializeOwned;
use serde::Serialize;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

use crate::engine::base::error::EngineError;
use crate::engine::base::guarded::{self, Follow};
use crate::engine::base::model::{GoModule, ParsedFile, TsPaths};
use crate::engine::ingest::history::{MAX_COMMITS, MAX_FILES_PER_COMMIT};
use crate::engine::search::{SearchWeights, TextDoc};
use crate::engine::store::dir::{self, DiskCache};
use crate::engine::store::files::write_atomic;
use crate::engine::store::tags;

/// One kind of derived cache file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlobKind {
    pub file_name: &'static str,
    magic: &'static [u8; 8],
    /// Bumped when the stored layout changes in a way `code_fingerprint` cannot see.
    version: u32,
    /// What the structure is, for warnings.
    what: &'static str,
}

/// The linked file graph (`graph::FileGraph`'s tables).
pub const GRAPH: BlobKind = BlobKind {
    file_name: dir::GRAPH_FILE,
    magic: b"MSGRAPH\0",
    version: 1,
    what: "graph",
};

/// The search index (`search::SearchIndex`).
pub const SEARCH: BlobKind = BlobKind {
    file_name: dir::SEARCH_FILE,
    magic: b"MSSEARC\0",
    version: 2,
    what: "search index",
};

/// The history signal's postings (`search::HistoryIndex`): tokenising a few thousand
/// commit subjects is most of what is left of a warm `search` on a repository with history.
pub const HISTORY: BlobKind = BlobKind {
    file_name: dir::HISTORY_INDEX_FILE,
    magic: b"MSHISTI\0",
    version: 2,
    what: "history index",
};

/// What the docs held when last read (`index::parts::DocTable`): size, mtime and hash of
/// each, so a warm search need not read them.
pub const DOCS: BlobKind = BlobKind {
    file_name: dir::DOCS_FILE,
    magic: b"MSDOCST\0",
    version: 1,
    what: "doc table",
};

/// Every derived kind, for `cache clear` and the temporary-file rules.
pub const ALL: [BlobKind; 4] = [GRAPH, SEARCH, HISTORY, DOCS];

/// Head: magic (8), version (4), code fingerprint (8), input key (8).
const HEAD_LEN: usize = 28;

/// Files above this size are not read.
const MAX_BLOB_FILE: u64 = 4 << 30;

/// The engine sources whose code decides what a derived structure holds: any edit to them
/// (a merge, a fix that forgot to bump a version) invalidates every derived cache, because
/// a stale graph or index would silently change maps and hits. Embedded in the binary
/// (a few hundred KB) and hashed once per call: cheaper than trusting a version number.
const GRAPH_SOURCES: [&[u8]; 35] = [
    include_bytes!("../link/graph/mod.rs"),
    include_bytes!("../link/graph/binding.rs"),
    include_bytes!("../link/graph/build.rs"),
    include_bytes!("../link/graph/build/qualified.rs"),
    include_bytes!("../link/graph/build/reexports.rs"),
    include_bytes!("../link/graph/build/tables.rs"),
    include_bytes!("../link/graph/build/typed.rs"),
    include_bytes!("../link/graph/build/unqualified.rs"),
    include_bytes!("../link/graph/build/visible.rs"),
    include_bytes!("../link/builtins.rs"),
    include_bytes!("../../../assets/builtins/c.txt"),
    include_bytes!("../../../assets/builtins/csharp.txt"),
    include_bytes!("../../../assets/builtins/elixir.txt"),
    include_bytes!("../../../assets/builtins/go.txt"),
    include_bytes!("../../../assets/builtins/java.txt"),
    include_bytes!("../../../assets/builtins/js.txt"),
    include_bytes!("../../../assets/builtins/kotlin.txt"),
    include_bytes!("../../../assets/builtins/lua.txt"),
    include_bytes!("../../../assets/builtins/php.txt"),
    include_bytes!("../../../assets/builtins/python.txt"),
    include_bytes!("../../../assets/builtins/ruby.txt"),
    include_bytes!("../../../assets/builtins/rust.txt"),
    include_bytes!("../../../assets/builtins/scala.txt"),
    include_bytes!("../../../assets/builtins/shell.txt"),
    include_bytes!("../../../assets/builtins/swift.txt"),
    include_bytes!("../../../assets/builtins/terraform.txt"),
    include_bytes!("../link/graph/words.rs"),
    include_bytes!("../link/graph/relink.rs"),
    include_bytes!("../link/resolve.rs"),
    include_bytes!("../link/resolve/langs.rs"),
    include_bytes!("../base/model.rs"),
    include_bytes!("../ingest/lang.rs"),
    include_bytes!("../base/paths.rs"),
    include_bytes!("../base/words.rs"),
    include_bytes!("../link/graph/store.rs"),
];
const HISTORY_SOURCES: [&[u8]; 5] = [
    include_bytes!("../search/history.rs"),
    include_bytes!("../search/tokenize.rs"),
    include_bytes!("../base/words.rs"),
    include_bytes!("../search/build.rs"),
    include_bytes!("../ingest/history.rs"),
];
/// What decides a doc's text and whether it is kept, and the table's layout.
const DOCS_SOURCES: [&[u8]; 2] = [
    include_bytes!("../ingest/content.rs"),
    include_bytes!("../index/parts.rs"),
];
const SEARCH_SOURCES: [&[u8]; 11] = [
    include_bytes!("../search/build.rs"),
    include_bytes!("../search/mod.rs"),
    include_bytes!("../search/packed.rs"),
    include_bytes!("../search/tokenize.rs"),
    include_bytes!("../search/lex.rs"),
    include_bytes!("../base/paths.rs"),
    include_bytes!("../base/words.rs"),
    include_bytes!("../search/matcher.rs"),
    include_bytes!("../search/weights.rs"),
    include_bytes!("../base/model.rs"),
    include_bytes!("../base/source_text.rs"),
];

/// What identifies the code that built a structure of `kind`: the crate version, the tags
/// queries (through the tag cache's fingerprint) and the sources that build it.
fn code_fingerprint(kind: &BlobKind) -> u64 {
    let mut h = Xxh3::new();
    h.update(&tags::fingerprint().to_le_bytes());
    h.update(kind.file_name.as_bytes());
    let sources: &[&[u8]] = if *kind == GRAPH {
        &GRAPH_SOURCES
    } else if *kind == HISTORY {
        &HISTORY_SOURCES
    } else if *kind == DOCS {
        &DOCS_SOURCES
    } else {
        &SEARCH_SOURCES
    };
    for s in sources {
        h.update(s);
    }
    h.digest()
}

/// A digest of everything a derived structure is built from. Files are identified by path,
/// language and content hash (their tags follow from these and the code fingerprint).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InputKey(pub u64);

impl InputKey {
    /// The graph's inputs: the files (in index order), the Go modules and the TS/JS path
    /// aliases.
    pub fn graph(files: &[ParsedFile], go_modules: &[GoModule], ts_paths: &[TsPaths]) -> InputKey {
        let mut h = Xxh3::new();
        hash_files(&mut h, files);
        h.update(&(go_modules.len() as u64).to_le_bytes());
        for m in go_modules {
            hash_str(&mut h, &m.dir);
            hash_str(&mut h, &m.module);
        }
        // Hashed only when there are any, so a repository without aliases keeps the key
        // (and the cached graph) it had before they were read.
        if !ts_paths.is_empty() {
            h.update(&(ts_paths.len() as u64).to_le_bytes());
            for t in ts_paths {
                hash_str(&mut h, &t.dir);
                hash_str(&mut h, &t.base);
                h.update(&[u8::from(t.base_url)]);
                h.update(&(t.paths.len() as u64).to_le_bytes());
                for (pattern, targets) in &t.paths {
                    hash_str(&mut h, pattern);
                    h.update(&(targets.len() as u64).to_le_bytes());
                    for target in targets {
                        hash_str(&mut h, target);
                    }
                }
            }
        }
        InputKey(h.digest())
    }

    /// The search index's inputs: the files, the documents' paths and contents, the weights.
    pub fn search(files: &[ParsedFile], docs: &[TextDoc], weights: &SearchWeights) -> InputKey {
        let mut h = Xxh3::new();
        hash_files(&mut h, files);
        h.update(&(docs.len() as u64).to_le_bytes());
        for d in docs {
            hash_str(&mut h, &d.path);
            h.update(&d.hash.to_le_bytes());
        }
        // Weights are plain numbers; their JSON form is stable and covers every field.
        let weights = serde_json::to_vec(weights).unwrap_or_default();
        h.update(&weights);
        InputKey(h.digest())
    }
}

impl InputKey {
    /// The doc table's: the largest doc read (a larger one is kept out).
    pub fn doc_table(max_doc_size: u64) -> InputKey {
        InputKey(xxh3_64(&max_doc_size.to_le_bytes()))
    }

    /// The history index's inputs: the commit `HEAD` pointed at when the history was read
    /// (which, with the limits of the read, decides the history, as the history cache has
    /// it) and the files' paths (in index order).
    pub fn history(head: &str, files: &[ParsedFile]) -> InputKey {
        let mut h = Xxh3::new();
        h.update(&(files.len() as u64).to_le_bytes());
        for f in files {
            hash_str(&mut h, &f.path);
        }
        hash_str(&mut h, head);
        h.update(&(MAX_COMMITS as u64).to_le_bytes());
        h.update(&(MAX_FILES_PER_COMMIT as u64).to_le_bytes());
        InputKey(h.digest())
    }
}

fn hash_str(h: &mut Xxh3, s: &str) {
    h.update(&(s.len() as u64).to_le_bytes());
    h.update(s.as_bytes());
}

fn hash_files(h: &mut Xxh3, files: &[ParsedFile]) {
    h.update(&(files.len() as u64).to_le_bytes());
    for f in files {
        hash_str(h, &f.path);
        h.update(f.lang.name().as_bytes());
        h.update(&f.size.to_le_bytes());
        h.update(&f.hash.to_le_bytes());
        // Vendored by a folder's licence too, which no code file's bytes say.
        h.update(&[u8::from(f.vendored)]);
    }
}

/// What `load` found.
#[derive(Debug)]
pub enum BlobLoad<T> {
    /// A structure built from exactly these inputs by this code.
    Hit(T),
    /// None, or one of other inputs (the tree changed): nothing to say.
    Miss,
    /// A file that did not check out; one line for the user's log.
    Ignored(String),
}

/// Whether `head` (the first bytes of a file) proves it is a derived cache file of `kind`.
pub fn has_magic(kind: &BlobKind, head: &[u8]) -> bool {
    head == kind.magic
}

/// Loads the `kind` structure of `cache`'s repository if it was built from `key`.
pub fn load<T: DeserializeOwned>(cache: &DiskCache, kind: &BlobKind, key: InputKey) -> BlobLoad<T> {
    let path = cache.dir().join(kind.file_name);
    let ignored = |why: &str| {
        BlobLoad::Ignored(format!(
            "cached {} {} ignored: {why}; rebuilding",
            kind.what,
            path.display()
        ))
    };
    let head = match guarded::read_head(&path, HEAD_LEN, Follow::No) {
        Ok(head) => head,
        Err(e) if e.is_not_found() => return BlobLoad::Miss,
        Err(e) => return ignored(&format!("unreadable ({e})")),
    };
    if let Err(why) = check_head(kind, &head) {
        return ignored(&why);
    }
    if head[20..HEAD_LEN] != key.0.to_le_bytes() {
        return BlobLoad::Miss;
    }
    let bytes = match guarded::read(&path, MAX_BLOB_FILE, Follow::No) {
        Ok(b) => b,
        Err(e) if e.is_not_found() => return BlobLoad::Miss,
        Err(e) => return ignored(&format!("unreadable ({e})")),
    };
    match decode(kind, key, cache.root(), &bytes) {
        Ok(Some(value)) => BlobLoad::Hit(value),
        // Replaced by another process between the two reads.
        Ok(None) => BlobLoad::Miss,
        Err(why) => ignored(&why),
    }
}

/// Loads the `kind` structure of `cache`'s repository whatever inputs it was built from,
/// with their key: for a caller that reads it before it knows the key it wants (a search
/// loads its index beside the build that yields the key), and keeps it only if they match.
pub fn load_any<T: DeserializeOwned>(cache: &DiskCache, kind: &BlobKind) -> Option<(InputKey, T)> {
    let path = cache.dir().join(kind.file_name);
    let bytes = guarded::read(&path, MAX_BLOB_FILE, Follow::No).ok()?;
    let key = bytes
        .get(20..HEAD_LEN)?
        .try_into()
        .ok()
        .map(u64::from_le_bytes)?;
    let key = InputKey(key);
    decode(kind, key, cache.root(), &bytes)
        .ok()
        .flatten()
        .map(|value| (key, value))
}

/// Saves `value`, built from `key`, atomically.
pub fn save<T: Serialize>(
    cache: &DiskCache,
    kind: &BlobKind,
    key: InputKey,
    value: &T,
) -> Result<(), EngineError> {
    let payload = postcard::to_allocvec(value).map_err(|e| io_error(cache, kind, e))?;
    save_encoded(cache, kind, key, &payload)
}

/// `save` of a structure already encoded with postcard (e.g. on another thread, before the
/// structure was dropped).
pub fn save_encoded(
    cache: &DiskCache,
    kind: &BlobKind,
    key: InputKey,
    payload: &[u8],
) -> Result<(), EngineError> {
    let root = cache.root().to_string_lossy();
    let mut bytes =
        postcard::to_extend(&*root, head(kind, key)).map_err(|e| io_error(cache, kind, e))?;
    bytes.extend_from_slice(payload);
    let checksum = xxh3_64(&bytes);
    bytes.extend_from_slice(&checksum.to_le_bytes());
    write_atomic(cache.dir(), kind.file_name, &bytes).map_err(|source| EngineError::Io {
        path: cache.dir().join(kind.file_name),
        source,
    })
}

fn io_error(cache: &DiskCache, kind: &BlobKind, e: postcard::Error) -> EngineError {
    EngineError::Io {
        path: cache.dir().join(kind.file_name),
        source: std::io::Error::other(e),
    }
}

fn head(kind: &BlobKind, key: InputKey) -> Vec<u8> {
    let mut p = Vec::with_capacity(HEAD_LEN);
    p.extend_from_slice(kind.magic);
    p.extend_from_slice(&kind.version.to_le_bytes());
    p.extend_from_slice(&code_fingerprint(kind).to_le_bytes());
    p.extend_from_slice(&key.0.to_le_bytes());
    p
}

/// The head's verdict apart from the input key: ours, this version, this code.
fn check_head(kind: &BlobKind, head: &[u8]) -> Result<(), String> {
    if !head.starts_with(&kind.magic[..head.len().min(kind.magic.len())]) {
        return Err(format!("not a mapscope {} cache", kind.what));
    }
    if head.len() < HEAD_LEN {
        return Err("truncated".into());
    }
    let expected = self::head(kind, InputKey(0));
    if head[..20] != expected[..20] {
        return Err("written by another mapscope version".into());
    }
    Ok(())
}

/// `Ok(None)`: a valid file of other inputs.
fn decode<T: DeserializeOwned>(
    kind: &BlobKind,
    key: InputKey,
    root: &Path,
    bytes: &[u8],
) -> Result<Option<T>, String> {
    check_head(kind, &bytes[..bytes.len().min(HEAD_LEN)])?;
    if bytes.len() < HEAD_LEN + 8 {
        return Err("truncated".into());
    }
    let (body, tail) = bytes.split_at(bytes.len() - 8);
    let mut stored = [0u8; 8];
    stored.copy_from_slice(tail);
    if xxh3_64(body) != u64::from_le_bytes(stored) {
        return Err("checksum mismatch (truncated or corrupt)".into());
    }
    if body[20..HEAD_LEN] != key.0.to_le_bytes() {
        return Ok(None);
    }
    let undecodable = |e: postcard::Error| format!("undecodable ({e})");
    let (cached_root, rest): (String, &[u8]) =
        postcard::take_from_bytes(&body[HEAD_LEN..]).map_err(undecodable)?;
    if Path::new(&cached_root) != root {
        return Err(format!("belongs to another repository ({cached_root})"));
    }
    let (value, rest): (T, &[u8]) = postcard::take_from_bytes(rest).map_err(undecodable)?;
    if !rest.is_empty() {
        return Err("trailing bytes".into());
    }
    Ok(Some(value))
}

#[cfg(test)]
mod tests {

    /// Every source file of the graph's and the resolver's submodules, and every table of
    /// the languages' own names binding reads, is in the fingerprint list: one left out
    /// would let a graph cached by older code be trusted.
    #[test]
    fn the_fingerprint_lists_every_graph_and_resolver_source() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let this = std::fs::read_to_string(root.join("src/engine/store/blob.rs")).unwrap();
        for (dir, ext, prefix) in [
            ("src/engine/link/graph", ".rs", "../link/graph"),
            ("src/engine/link/graph/build", ".rs", "../link/graph/build"),
            ("src/engine/link/resolve", ".rs", "../link/resolve"),
            ("assets/builtins", ".txt", "../../../assets/builtins"),
        ] {
            for entry in std::fs::read_dir(root.join(dir)).unwrap() {
                let name = entry.unwrap().file_name().to_string_lossy().into_owned();
                if name.ends_with(ext) {
                    let listed = format!("include_bytes!(\"{prefix}/{name}\")");
                    assert!(
                        this.contains(&listed),
                        "{listed} missing from GRAPH_SOURCES"
                    );
                }
            }
        }
    }

    use super::*;
    use std::fs;

    fn cache_in(base: &Path) -> DiskCache {
        let repo = base.join("repo");
        fs::create_dir_all(&repo).unwrap();
        let root = repo.canonicalize().unwrap();
        DiskCache::under(&base.join("cache"), &root).unwrap()
    }

    fn value() -> Vec<(String, u32)> {
        (0..100).map(|i| (format!("name{i}"), i)).collect()
    }

    fn loaded(cache: &DiskCache, kind: &BlobKind, key: u64) -> BlobLoad<Vec<(String, u32)>> {
        load(cache, kind, InputKey(key))
    }

    #[test]
    fn round_trip_and_other_inputs_miss_silently() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = cache_in(tmp.path());
        for kind in ALL {
            assert!(matches!(loaded(&cache, &kind, 7), BlobLoad::Miss));
            save(&cache, &kind, InputKey(7), &value()).unwrap();
            match loaded(&cache, &kind, 7) {
                BlobLoad::Hit(v) => assert_eq!(v, value()),
                other => panic!("{other:?}"),
            }
            assert!(matches!(loaded(&cache, &kind, 8), BlobLoad::Miss));
        }
        // One file per kind, no temporary file left.
        let mut names: Vec<String> = fs::read_dir(cache.dir())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            ["docs.bin", "graph.bin", "history-index.bin", "search.bin"]
        );
        // Each kind proves the directory is a mapscope cache (`cache clear` may remove it).
        assert!(crate::engine::store::clear::owned_files(cache.dir())
            .unwrap()
            .is_some());
    }

    fn assert_ignored(cache: &DiskCache, kind: &BlobKind, needle: &str) {
        match loaded(cache, kind, 7) {
            BlobLoad::Ignored(why) => assert!(why.contains(needle), "{why}"),
            other => panic!("expected a warning with {needle}, got {other:?}"),
        }
    }

    #[test]
    fn truncated_corrupt_foreign_and_old_files_are_never_trusted() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = cache_in(tmp.path());
        for kind in ALL {
            save(&cache, &kind, InputKey(7), &value()).unwrap();
            let file = cache.dir().join(kind.file_name);
            let good = fs::read(&file).unwrap();
            for cut in [
                1,
                10,
                HEAD_LEN,
                HEAD_LEN + 3,
                good.len() / 2,
                good.len() - 1,
            ] {
                fs::write(&file, &good[..cut]).unwrap();
                assert!(
                    matches!(loaded(&cache, &kind, 7), BlobLoad::Ignored(_)),
                    "{} cut at {cut}",
                    kind.file_name
                );
            }
            fs::write(&file, b"garbage garbage garbage garbage garbage").unwrap();
            assert_ignored(&cache, &kind, "not a mapscope");
            let mut flipped = good.clone();
            let mid = HEAD_LEN + (flipped.len() - HEAD_LEN) / 2;
            flipped[mid] ^= 0xff;
            fs::write(&file, &flipped).unwrap();
            assert_ignored(&cache, &kind, "checksum");
            for at in [8, 12] {
                // The format version, then the code fingerprint.
                let mut other = good.clone();
                other[at] = other[at].wrapping_add(1);
                fs::write(&file, &other).unwrap();
                assert_ignored(&cache, &kind, "another mapscope version");
            }
            // The other kind's file under this name.
            let other_kind = ALL.iter().find(|k| **k != kind).unwrap();
            save(&cache, other_kind, InputKey(7), &value()).unwrap();
            fs::copy(cache.dir().join(other_kind.file_name), &file).unwrap();
            assert_ignored(&cache, &kind, "not a mapscope");
            // Another repository's file.
            let elsewhere = tmp.path().join("elsewhere");
            fs::create_dir_all(&elsewhere).unwrap();
            let impostor = DiskCache::under(&tmp.path().join("cache2"), &elsewhere).unwrap();
            save(&impostor, &kind, InputKey(7), &value()).unwrap();
            fs::copy(impostor.dir().join(kind.file_name), &file).unwrap();
            assert_ignored(&cache, &kind, "another repository");
            // Saved again, it is good again.
            save(&cache, &kind, InputKey(7), &value()).unwrap();
            assert!(matches!(loaded(&cache, &kind, 7), BlobLoad::Hit(_)));
        }
    }

    #[test]
    fn a_file_of_another_shape_is_undecodable_not_a_panic() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = cache_in(tmp.path());
        save(&cache, &GRAPH, InputKey(7), &vec![u64::MAX; 3]).unwrap();
        let got: BlobLoad<Vec<String>> = load(&cache, &GRAPH, InputKey(7));
        assert!(
            matches!(got, BlobLoad::Ignored(ref w) if w.contains("undecodable")),
            "{got:?}"
        );
    }
}
