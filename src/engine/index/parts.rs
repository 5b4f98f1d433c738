//! The parts of an `Index` that its modules fill and read: each is built in one of them
//! (`build`, `derived`, `queries`) and held by the `Index` itself, so they sit below all of
//! them. Plain data.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use crate::engine::search::SearchIndex;
use crate::engine::store::blob::InputKey;

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
