//! The caches derived from an index, kept beside the tag cache (`store::blob`): the graph,
//! the search index and the history index, each loaded when the cache holds the one built
//! from the same inputs and saved once when it does not, and the tag cache's own save. Runs
//! on the thread that builds or saves (a save may run beside the output, `once`); the search
//! index of a build that will search at once is read on a thread of its own beside the
//! build (`parts::SearchAhead`).

use std::sync::atomic::Ordering;
use std::time::Instant;

use crate::engine::base::error::EngineError;
use crate::engine::base::lock;
use crate::engine::base::model::ParsedFile;
use crate::engine::index::parts::{ms_since, BuiltSearch, StoredHistory, StoredHistoryRef};
use crate::engine::index::Index;
use crate::engine::link::graph::FileGraph;
use crate::engine::search::{HistoryIndex, SearchIndex, SearchWeights};
use crate::engine::store::blob::{self, BlobLoad, InputKey};
use crate::engine::store::dir::DiskCache;
use crate::engine::store::tags::CacheWriter;

impl Index {
    /// Saves the tags to the persistent cache when this index has one and parsed anything
    /// the cache did not hold. Returns whether it wrote.
    pub fn save_cache(&self) -> Result<bool, EngineError> {
        let tags = if let Some(writer) = &self.cache_write {
            writer.finish().map(|()| true)?
        } else {
            match &self.cache {
                Some(cache) if self.cache_stale => {
                    cache.save(&self.files, self.read_since_ns).map(|()| true)?
                }
                _ => false,
            }
        };
        Ok(self.save_derived()? || tags)
    }

    /// The graph's part of `save_cache`, encoded now (for a caller about to drop the graph
    /// with `map_once`): a closure that writes it, or `None` when there is nothing to save.
    pub fn take_graph_save(
        &self,
    ) -> Option<impl FnOnce() -> Result<bool, EngineError> + Send + 'static> {
        let cache = self.cache.clone()?;
        let key = self.graph_unsaved?;
        if self.graph.n != self.files.len() || self.derived_saved.graph.swap(true, Ordering::AcqRel)
        {
            return None;
        }
        let payload = postcard::to_allocvec(&self.graph.stored()).ok()?;
        Some(move || blob::save_encoded(&cache, &blob::GRAPH, key, &payload).map(|()| true))
    }

    /// The search index, built (or loaded from the derived cache) on first use, and the
    /// milliseconds that took.
    pub fn search_index(&self) -> (&SearchIndex, f64) {
        let built = self.built_search();
        (&built.index, built.ms)
    }

    /// Why the cached search index was not used, once search has run (one of `warnings`).
    pub(super) fn search_cache_warning(&self) -> Option<&str> {
        self.search.get().and_then(|b| b.warning.as_deref())
    }

    pub(super) fn built_search(&self) -> &BuiltSearch {
        self.search.get_or_init(|| {
            let t = Instant::now();
            let key = self
                .cache
                .as_ref()
                .map(|_| InputKey::search(&self.files, &self.docs, &SearchWeights::default()));
            let mut warning = None;
            let ahead = lock(&self.search_ahead).take();
            let loaded = match (&self.cache, key) {
                (Some(cache), Some(key)) => {
                    let load = match ahead.and_then(|ahead| ahead.take(key)) {
                        Some(index) => BlobLoad::Hit(index),
                        None => blob::load::<SearchIndex>(cache, &blob::SEARCH, key),
                    };
                    match load {
                        BlobLoad::Hit(index) => match index.check_fits(&self.files, &self.docs) {
                            Ok(()) => Some(index),
                            Err(why) => {
                                warning = Some(format!(
                                    "cached search index of {} ignored: {why}; rebuilding",
                                    self.root.display()
                                ));
                                None
                            }
                        },
                        BlobLoad::Miss => None,
                        BlobLoad::Ignored(why) => {
                            warning = Some(why);
                            None
                        }
                    }
                }
                _ => None,
            };
            let cached = loaded.is_some();
            let index = loaded.unwrap_or_else(|| SearchIndex::build(&self.files, &self.docs));
            BuiltSearch {
                index,
                ms: ms_since(t),
                unsaved: key.filter(|_| !cached),
                warning,
            }
        })
    }

    /// Whether `save_cache` would write (the cache lacks something this index parsed, or
    /// the graph or search index it linked or built).
    pub fn cache_pending(&self) -> bool {
        self.cache_write.is_some()
            || (self.cache.is_some() && (self.cache_stale || self.derived_pending()))
    }

    /// Whether the graph or the search index is built and not yet in the derived cache.
    pub(super) fn derived_pending(&self) -> bool {
        let graph = self.graph_unsaved.is_some() && self.graph.n == self.files.len();
        let search = self.search.get().is_some_and(|b| b.unsaved.is_some());
        let history = self.history_unsaved.is_some()
            && self.history_head.is_some()
            && self.history_index.is_some();
        let docs = self.docs_unsaved.is_some();
        (docs && !self.derived_saved.docs.load(Ordering::Acquire))
            || (graph && !self.derived_saved.graph.load(Ordering::Acquire))
            || (search && !self.derived_saved.search.load(Ordering::Acquire))
            || (history && !self.derived_saved.history.load(Ordering::Acquire))
    }

    /// Stores the graph and the search index in the derived cache if this index linked or
    /// built them (each once). Called by `save_cache`; the graph is gone after `map_once`.
    pub(super) fn save_derived(&self) -> Result<bool, EngineError> {
        let Some(cache) = &self.cache else {
            return Ok(false);
        };
        let mut wrote = false;
        if let Some(key) = self.graph_unsaved {
            let whole = self.graph.n == self.files.len();
            if whole && !self.derived_saved.graph.swap(true, Ordering::AcqRel) {
                blob::save(cache, &blob::GRAPH, key, &self.graph.stored())?;
                wrote = true;
            }
        }
        if let (Some(key), Some(head), Some(index)) = (
            self.history_unsaved,
            &self.history_head,
            &self.history_index,
        ) {
            if !self.derived_saved.history.swap(true, Ordering::AcqRel) {
                let stored = StoredHistoryRef { head, index };
                blob::save(cache, &blob::HISTORY, key, &stored)?;
                wrote = true;
            }
        }
        if let Some((key, table)) = &self.docs_unsaved {
            if !self.derived_saved.docs.swap(true, Ordering::AcqRel) {
                blob::save(cache, &blob::DOCS, *key, table)?;
                wrote = true;
            }
        }
        if let Some(built) = self.search.get() {
            if let Some(key) = built.unsaved {
                if !self.derived_saved.search.swap(true, Ordering::AcqRel) {
                    blob::save(cache, &blob::SEARCH, key, &built.index)?;
                    wrote = true;
                }
            }
        }
        Ok(wrote)
    }

    /// Takes out the cache file a one-shot build wrote as it parsed, for the caller to
    /// `finish` (e.g. on a side thread while it maps with `map_once`). Afterwards only the
    /// derived graph cache may still be pending (see `take_graph_save`).
    pub fn take_cache_write(&mut self) -> Option<CacheWriter> {
        self.cache_write.take()
    }
}

/// The graph of `files` from the derived cache, if it holds the one linked from `key`; a
/// file that does not check out adds a warning.
pub(super) fn load_graph(
    cache: &DiskCache,
    key: InputKey,
    files: &[ParsedFile],
    warnings: &mut Vec<String>,
) -> Option<FileGraph> {
    load_checked(
        cache,
        &blob::GRAPH,
        key,
        "graph",
        "relinking",
        warnings,
        |stored| FileGraph::from_stored(stored, files),
    )
}

/// The history index from the derived cache, if it holds the one built from `key`.
pub(super) fn load_history(
    cache: &DiskCache,
    key: InputKey,
    n_files: usize,
    warnings: &mut Vec<String>,
) -> Option<HistoryIndex> {
    load_checked(
        cache,
        &blob::HISTORY,
        key,
        "history index",
        "rebuilding",
        warnings,
        |stored: StoredHistory| stored.index.check_fits(n_files).map(|()| stored.index),
    )
}

/// A derived structure from the cache, kept only if `check` accepts it; a damaged, foreign
/// or misfit one adds a warning ("cached graph of ROOT ignored: WHY; relinking").
pub(super) fn load_checked<S: serde::de::DeserializeOwned, T>(
    cache: &DiskCache,
    kind: &blob::BlobKind,
    key: InputKey,
    what: &str,
    instead: &str,
    warnings: &mut Vec<String>,
    check: impl FnOnce(S) -> Result<T, String>,
) -> Option<T> {
    match blob::load::<S>(cache, kind, key) {
        BlobLoad::Hit(stored) => match check(stored) {
            Ok(value) => Some(value),
            Err(why) => {
                warnings.push(format!(
                    "cached {what} of {} ignored: {why}; {instead}",
                    cache.root().display()
                ));
                None
            }
        },
        BlobLoad::Miss => None,
        BlobLoad::Ignored(why) => {
            warnings.push(why);
            None
        }
    }
}
