//! The commit history a build reads for search, on a thread of its own while the files
//! parse (`git log` takes a while), or taken over from the previous index by a refresh. A
//! one-shot build reads, where it can, only the history index the derived cache holds for
//! the commit `HEAD` points at, not the history it was built from.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use crate::engine::index::parts::{ms_since, StoredHistory};
use crate::engine::index::{HistoryStatus, Reuse};
use crate::engine::ingest::history::{head_commit, CommitHistory, HistorySource};
use crate::engine::search::HistoryIndex;
use crate::engine::store::blob::{self, InputKey};
use crate::engine::store::dir::DiskCache;
use crate::engine::store::history::read_cached;

/// A history read in progress on its own thread, or one taken over from a previous index.
pub(super) enum HistoryJob {
    Ready(HistoryOutcome),
    Running(std::thread::JoinHandle<HistoryOutcome>),
}

/// What a history job found.
#[derive(Default)]
pub(super) struct HistoryOutcome {
    pub(super) history: Option<Arc<CommitHistory>>,
    pub(super) status: HistoryStatus,
    /// The commit `HEAD` pointed at when the history was read through the cache: what the
    /// history index's key names (`InputKey::history`).
    pub(super) head: Option<String>,
    /// The derived cache's history index of that same commit, with its key, taken instead
    /// of the history (`postings_only`): the build keeps it if the key is the one its files
    /// give, else it reads the history after all (`read_history`).
    pub(super) stored: Option<(InputKey, HistoryIndex)>,
}

impl HistoryJob {
    /// `use_cache`: keep the history in the repository's cache directory, keyed by `HEAD`.
    /// `postings_only`: a one-shot build, never refreshed, which needs only the history
    /// index: when the derived cache holds one of the commit `HEAD` points at, the history
    /// itself is not read.
    pub(super) fn start(
        root: &Path,
        source: &HistorySource,
        use_cache: bool,
        reuse: Reuse<'_>,
        postings_only: bool,
    ) -> HistoryJob {
        if let Reuse::Previous { index, .. } = reuse {
            return HistoryJob::Ready(HistoryOutcome {
                history: index.history.clone(),
                status: index.history_status.clone(),
                ..HistoryOutcome::default()
            });
        }
        if *source == HistorySource::Off {
            return HistoryJob::Ready(HistoryOutcome::default());
        }
        let (root, source) = (root.to_path_buf(), source.clone());
        let spawned = std::thread::Builder::new()
            .name("mapscope-history".into())
            .spawn(move || {
                let t = Instant::now();
                let cache = use_cache.then(|| DiskCache::for_repo(&root).ok()).flatten();
                if postings_only && source == HistorySource::Repo {
                    if let Some(outcome) = cache.as_ref().and_then(|c| stored_of_head(&root, c)) {
                        let mut outcome = outcome;
                        outcome.status.read_ms = ms_since(t);
                        return outcome;
                    }
                }
                let cache_dir = cache.map(|c| c.dir().to_path_buf());
                match read_cached(&root, &source, cache_dir.as_deref()) {
                    Ok(read) => HistoryOutcome {
                        history: read.history.map(Arc::new),
                        status: HistoryStatus {
                            read_ms: ms_since(t),
                            cached: read.cached,
                            ..HistoryStatus::default()
                        },
                        head: read.head,
                        stored: None,
                    },
                    Err(e) => HistoryOutcome {
                        status: HistoryStatus {
                            read_ms: ms_since(t),
                            error: Some(e.to_string()),
                            ..HistoryStatus::default()
                        },
                        ..HistoryOutcome::default()
                    },
                }
            });
        match spawned {
            Ok(handle) => HistoryJob::Running(handle),
            Err(e) => HistoryJob::Ready(HistoryOutcome {
                status: HistoryStatus {
                    error: Some(format!("could not start a thread: {e}")),
                    ..HistoryStatus::default()
                },
                ..HistoryOutcome::default()
            }),
        }
    }

    pub(super) fn finish(self) -> HistoryOutcome {
        match self {
            HistoryJob::Ready(outcome) => outcome,
            HistoryJob::Running(handle) => handle.join().unwrap_or_else(|_| HistoryOutcome {
                status: HistoryStatus {
                    error: Some("reading the history panicked".into()),
                    ..HistoryStatus::default()
                },
                ..HistoryOutcome::default()
            }),
        }
    }
}

/// The derived cache's history index, if it is of the commit `HEAD` points at now.
fn stored_of_head(root: &Path, cache: &DiskCache) -> Option<HistoryOutcome> {
    let head = head_commit(root).ok().flatten()?;
    let (key, stored) = blob::load_any::<StoredHistory>(cache, &blob::HISTORY)?;
    (stored.head == head).then(|| HistoryOutcome {
        history: None,
        status: HistoryStatus {
            cached: true,
            ..HistoryStatus::default()
        },
        head: Some(head),
        stored: Some((key, stored.index)),
    })
}
