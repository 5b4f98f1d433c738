//! The parts of an `Index` that its modules fill and read: each is built in one of them
//! (`build`, `derived`, `queries`) and held by the `Index` itself, so they sit below all of
//! them. Plain data (the docs' table is stored in the derived cache), but for `SearchAhead`,
//! which reads the search index on a thread of its own.

use std::sync::atomic::AtomicBool;
use std::thread::JoinHandle;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::engine::search::{HistoryIndex, SearchIndex};
use crate::engine::store::blob::{self, InputKey};
use crate::engine::store::dir::DiskCache;
use crate::engine::store::tags::stamp_trusted;

/// What identifies a doc's content for a refresh: size and mtime as the walk saw them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct DocStamp {
    pub(super) size: u64,
    pub(super) mtime_ns: i64,
}

/// What the last build that read the docs found in each, kept in the derived cache
/// (`blob::DOCS`) so that a later one with lazy sources takes a doc unchanged by size and
/// mtime without reading it (the tag cache's racy-clean rule, against `read_since_ns`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct DocTable {
    /// When the writer's docs were read (wall clock, ns).
    pub(super) read_since_ns: i64,
    /// Sorted by path, as the walk lists the docs.
    pub(super) entries: Vec<DocEntry>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct DocEntry {
    pub(super) path: String,
    pub(super) size: u64,
    pub(super) mtime_ns: i64,
    /// The text's hash (`TextDoc::hash`); `None`: the content keeps it out of the index
    /// (binary, minified, generated, too large).
    pub(super) hash: Option<u64>,
}

impl DocTable {
    /// The entry of `path` if it stands for the file's content now: the same size and
    /// mtime, modified well before the table's docs were read.
    pub(super) fn unchanged(&self, path: &str, stamp: DocStamp) -> Option<&DocEntry> {
        let i = self
            .entries
            .binary_search_by(|e| e.path.as_str().cmp(path))
            .ok()?;
        let e = &self.entries[i];
        (e.size == stamp.size
            && e.mtime_ns == stamp.mtime_ns
            && stamp_trusted(stamp.mtime_ns, self.read_since_ns))
        .then_some(e)
    }
}

/// The history index as the derived cache stores it (`blob::HISTORY`), with the commit
/// `HEAD` pointed at when its history was read: a build can tell it is current before its
/// files are known (the key adds their paths) and then need not read the history.
#[derive(Deserialize)]
pub(super) struct StoredHistory {
    pub(super) head: String,
    pub(super) index: HistoryIndex,
}

/// `StoredHistory`, borrowed, to save.
#[derive(Serialize)]
pub(super) struct StoredHistoryRef<'a> {
    pub(super) head: &'a str,
    pub(super) index: &'a HistoryIndex,
}

/// The search index of an index, and how it was obtained.
pub(super) struct BuiltSearch {
    pub(super) index: SearchIndex,
    pub(super) ms: f64,
    /// The key to store it under when the derived cache lacks it.
    pub(super) unsaved: Option<InputKey>,
    pub(super) warning: Option<String>,
}

/// Set once `save_cache` stored each derived structure (the save may run on a side thread
/// while the output is written, and a structure is stored at most once per index).
#[derive(Debug, Default)]
pub(super) struct DerivedSaved {
    pub(super) graph: AtomicBool,
    pub(super) search: AtomicBool,
    pub(super) history: AtomicBool,
    pub(super) docs: AtomicBool,
}

/// What search takes from the file graph.
pub(super) struct GraphSignals {
    pub(super) prior: Vec<f64>,
    pub(super) neighbors: Vec<Vec<(usize, f64)>>,
}

/// Milliseconds since `t`.
pub(super) fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

/// The search index in the derived cache, read on a thread of its own while the build that
/// yields its key runs (`IndexOptions::search_soon`): decoding it is a good part of a warm
/// search, and the build leaves a core idle for much of its time. Kept only if it was
/// built from the inputs the build yields; anything else is read again the usual way
/// (`blob::load`), which says what, if anything, was wrong with it.
pub(super) struct SearchAhead(JoinHandle<Option<(InputKey, SearchIndex)>>);

impl SearchAhead {
    pub(super) fn start(cache: &DiskCache) -> Option<SearchAhead> {
        let cache = cache.clone();
        std::thread::Builder::new()
            .name("mapscope-search-load".into())
            .spawn(move || blob::load_any::<SearchIndex>(&cache, &blob::SEARCH))
            .ok()
            .map(SearchAhead)
    }

    pub(super) fn take(self, key: InputKey) -> Option<SearchIndex> {
        let (read, index) = self.0.join().ok().flatten()?;
        (read == key).then_some(index)
    }
}
