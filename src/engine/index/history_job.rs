//! The commit history a build reads for search, on a thread of its own while the files
//! parse (`git log` takes a while), or taken over from the previous index by a refresh.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use crate::engine::index::parts::ms_since;
use crate::engine::index::{HistoryStatus, Reuse};
use crate::engine::ingest::history::{self, CommitHistory, HistorySource};
use crate::engine::store::dir::DiskCache;

/// A history read in progress on its own thread, or one taken over from a previous index.
pub(super) enum HistoryJob {
    Ready(Option<Arc<CommitHistory>>, HistoryStatus),
    Running(std::thread::JoinHandle<HistoryRead>),
}

pub(super) type HistoryRead = (
    Result<(Option<CommitHistory>, bool), history::HistoryError>,
    f64,
);

impl HistoryJob {
    /// `use_cache`: keep the history in the repository's cache directory, keyed by `HEAD`.
    pub(super) fn start(
        root: &Path,
        source: &HistorySource,
        use_cache: bool,
        reuse: Reuse<'_>,
    ) -> HistoryJob {
        if let Reuse::Previous { index, .. } = reuse {
            return HistoryJob::Ready(index.history.clone(), index.history_status.clone());
        }
        if *source == HistorySource::Off {
            return HistoryJob::Ready(None, HistoryStatus::default());
        }
        let (root, source) = (root.to_path_buf(), source.clone());
        let spawned = std::thread::Builder::new()
            .name("mapscope-history".into())
            .spawn(move || {
                let t = Instant::now();
                let cache_dir = use_cache
                    .then(|| DiskCache::for_repo(&root).ok())
                    .flatten()
                    .map(|c| c.dir().to_path_buf());
                let read = crate::engine::store::history::read_cached(
                    &root,
                    &source,
                    cache_dir.as_deref(),
                );
                (read, ms_since(t))
            });
        match spawned {
            Ok(handle) => HistoryJob::Running(handle),
            Err(e) => HistoryJob::Ready(
                None,
                HistoryStatus {
                    error: Some(format!("could not start a thread: {e}")),
                    ..HistoryStatus::default()
                },
            ),
        }
    }

    pub(super) fn finish(self) -> (Option<Arc<CommitHistory>>, HistoryStatus) {
        match self {
            HistoryJob::Ready(h, status) => (h, status),
            HistoryJob::Running(handle) => match handle.join() {
                Ok((Ok((h, cached)), read_ms)) => (
                    h.map(Arc::new),
                    HistoryStatus {
                        read_ms,
                        cached,
                        ..HistoryStatus::default()
                    },
                ),
                Ok((Err(e), read_ms)) => (
                    None,
                    HistoryStatus {
                        read_ms,
                        error: Some(e.to_string()),
                        ..HistoryStatus::default()
                    },
                ),
                Err(_) => (
                    None,
                    HistoryStatus {
                        error: Some("reading the history panicked".into()),
                        ..HistoryStatus::default()
                    },
                ),
            },
        }
    }
}
