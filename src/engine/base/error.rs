//! Engine errors. Each user-facing failure has a stable code that the CLI prints and the JSON
//! contract carries (`REPO_NOT_FOUND`, `INVALID_REPO`, `REPO_EMPTY`, `UNSAFE_CACHE_DIR`,
//! `INTERNAL_ERROR`, and a build's overrun: `BUILD_CANCELLED`, `TREE_TOO_LARGE`,
//! `BUILD_TIMEOUT`).

use std::path::PathBuf;

use crate::engine::base::stats::IndexStats;

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("repository not found: {0}")]
    RepoNotFound(PathBuf),
    #[error("not a directory: {0}")]
    InvalidRepo(PathBuf),
    /// `stats` carries what the walk found (docs, skipped files, code in languages without a
    /// grammar by extension), so `mapscope stats` can still print the counts.
    #[error("no supported source files in {path} ({summary})")]
    RepoEmpty {
        path: PathBuf,
        summary: String,
        stats: Box<IndexStats>,
    },
    #[error("bad tags query for {lang}: {message}")]
    Query { lang: &'static str, message: String },
    #[error("I/O error on {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("internal error: {0}")]
    Internal(String),
    /// `cache clear` will not delete in or from this directory.
    #[error("refusing to clear {path}: {why}")]
    UnsafeCacheDir { path: PathBuf, why: String },
    /// The build ran out of its budget (`base::limits`): stopped, too large, too slow.
    #[error("{0}")]
    Stopped(super::limits::Overrun),
}

impl EngineError {
    /// The stable code for scripts and the JSON contract.
    pub fn code(&self) -> &'static str {
        match self {
            EngineError::RepoNotFound(_) => "REPO_NOT_FOUND",
            EngineError::InvalidRepo(_) => "INVALID_REPO",
            EngineError::RepoEmpty { .. } => "REPO_EMPTY",
            EngineError::UnsafeCacheDir { .. } => "UNSAFE_CACHE_DIR",
            EngineError::Stopped(why) => why.code(),
            EngineError::Query { .. } | EngineError::Io { .. } | EngineError::Internal(_) => {
                "INTERNAL_ERROR"
            }
        }
    }
}

impl From<super::limits::Overrun> for EngineError {
    fn from(why: super::limits::Overrun) -> Self {
        EngineError::Stopped(why)
    }
}
