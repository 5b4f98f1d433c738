//! The commit history cache (`history.json` in a repository's cache directory), keyed by the
//! commit `HEAD` points at: a repository whose `HEAD` has not moved since the last run costs
//! one `git rev-parse` instead of a `git log`. Runs on the thread that reads the history
//! (`index`'s history job).

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::engine::base::guarded::{self, Follow};
use crate::engine::ingest::history::{
    head_commit, read, CommitHistory, HistoryError, HistorySource, MAX_COMMITS,
    MAX_FILES_PER_COMMIT,
};
use crate::engine::store::dir::HISTORY_FILE;
use crate::engine::store::files::write_atomic;

/// A history cache above this size is not read (5000 subjects and their paths are ~1 MB).
const MAX_CACHE_FILE: u64 = 64 << 20;

/// What the history cache holds: the history read at `head` with these limits.
#[derive(Serialize, Deserialize)]
struct Cached {
    head: String,
    max_commits: usize,
    max_files_per_commit: usize,
    history: CommitHistory,
}

/// A history read through the cache.
#[derive(Debug)]
pub struct HistoryRead {
    pub history: Option<CommitHistory>,
    /// Taken from the cache.
    pub cached: bool,
    /// The commit `HEAD` pointed at (for `Repo` with a cache), which the history is of.
    pub head: Option<String>,
}

/// `read` for `Repo`, through a cache in `cache_dir` keyed by the commit `HEAD` points at: a
/// repository whose `HEAD` has not moved since the last run costs reading `HEAD` (git's
/// files, else `git rev-parse`) instead of a `git log` (~0.3–0.6 s on a 10 k-commit
/// repository). A cache that cannot be read or written is ignored.
pub fn read_cached(
    root: &Path,
    source: &HistorySource,
    cache_dir: Option<&Path>,
) -> Result<HistoryRead, HistoryError> {
    let uncached = |history| HistoryRead {
        history,
        cached: false,
        head: None,
    };
    let (HistorySource::Repo, Some(dir)) = (source, cache_dir) else {
        return read(root, source).map(uncached);
    };
    let Some(head) = head_commit(root)? else {
        return read(root, source).map(uncached);
    };
    let file = dir.join(HISTORY_FILE);
    if let Some(cached) = guarded::read(&file, MAX_CACHE_FILE, Follow::No)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Cached>(&bytes).ok())
    {
        if cached.head == head
            && cached.max_commits == MAX_COMMITS
            && cached.max_files_per_commit == MAX_FILES_PER_COMMIT
        {
            return Ok(HistoryRead {
                history: Some(cached.history),
                cached: true,
                head: Some(head),
            });
        }
    }
    let history = read(root, source)?;
    if let Some(history) = &history {
        let cached = Cached {
            head: head.clone(),
            max_commits: MAX_COMMITS,
            max_files_per_commit: MAX_FILES_PER_COMMIT,
            history: history.clone(),
        };
        // Temporary file + rename: a concurrent reader sees the old file or the new one.
        if let Ok(bytes) = serde_json::to_vec(&cached) {
            let _ = write_atomic(dir, HISTORY_FILE, &bytes);
        }
    }
    Ok(HistoryRead {
        history,
        cached: false,
        head: Some(head),
    })
}

/// True when `bytes` are a history cache file (for `cache clear`, which removes only files
/// it can tell are mapscope's).
pub(crate) fn is_cache_file(bytes: &[u8]) -> bool {
    serde_json::from_slice::<Cached>(bytes).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::ingest::history::tests::two_commits;
    use crate::test_support::git;

    #[test]
    fn the_cache_serves_an_unmoved_head_and_rereads_a_new_one() {
        let (dir, _) = two_commits();
        let cache = tempfile::tempdir().expect("tempdir");
        let repo = dir.path();
        let HistoryRead {
            history: h, cached, ..
        } = read_cached(repo, &HistorySource::Repo, Some(cache.path())).expect("reads");
        assert!(!cached);
        assert_eq!(h.as_ref().map(|h| h.subjects.len()), Some(2));
        let HistoryRead {
            history: again,
            cached,
            ..
        } = read_cached(repo, &HistorySource::Repo, Some(cache.path())).expect("reads");
        assert!(cached);
        assert_eq!(again, h);
        std::fs::write(repo.join("top.py"), "X = 2\n").expect("write");
        git(repo, &["commit", "-qam", "Bump X"]);
        let HistoryRead {
            history: moved,
            cached,
            ..
        } = read_cached(repo, &HistorySource::Repo, Some(cache.path())).expect("reads");
        assert!(!cached);
        assert_eq!(
            moved.map(|h| h.subjects[0].clone()).as_deref(),
            Some("Bump X")
        );
        // A damaged cache file is read around.
        std::fs::write(cache.path().join(HISTORY_FILE), "{").expect("write");
        let HistoryRead {
            history: h, cached, ..
        } = read_cached(repo, &HistorySource::Repo, Some(cache.path())).expect("reads");
        assert!(!cached);
        assert_eq!(h.map(|h| h.subjects.len()), Some(3));
    }
}
