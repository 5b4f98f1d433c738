//! The parts of an `Index` that its modules fill and read: each is built in one of them
//! (`build`, `derived`, `queries`) and held by the `Index` itself, so they sit below all of
//! them. Plain data, but for `SearchAhead`, which reads the search index on a thread of its
//! own.

use std::sync::atomic::AtomicBool;
use std::thread::JoinHandle;
use std::time::Instant;

use crate::engine::search::SearchIndex;
use crate::engine::store::blob::{self, InputKey};
use crate::engine::store::dir::DiskCache;

/// What identifies a doc's content for a refresh: size and mtime as the walk saw them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct DocStamp {
    pub(super) size: u64,
    pub(super) mtime_ns: i64,
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
