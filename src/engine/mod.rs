//! The engine: everything that reads a repository and computes maps and search results.
//! It never touches the terminal (no ratatui, no crossterm); the TUI and the CLI both drive it.
//!
//! Phases: `walk` (which files) → `tags` (tree-sitter definitions and references, parallel) →
//! `graph` (file graph, imports resolved by `resolve`) → `rank` (personalized PageRank) →
//! `repo_map` (fit ranked signatures to a token budget counted by `tokenizer`).
//! `index` runs the phases and owns the result. `text` and `json` own what output may
//! contain: every text output is sanitised by `text`, every JSON output written by `json`.

pub mod answer;
pub mod budget;
pub mod cache;
pub mod cache_blob;
pub mod error;
pub mod explain;
pub mod graph;
pub mod guarded;
pub mod heap;
pub mod history;
pub mod index;
pub mod json;
pub mod lang;
pub mod live;
pub mod model;
pub mod paths;
pub mod rank;
pub mod repo_map;
pub mod resolve;
pub mod scope;
pub mod search;
pub mod sources;
pub mod tags;
pub mod task;
pub mod text;
pub mod tokenizer;
pub mod walk;
pub mod watch;
pub mod words;

pub use error::EngineError;
pub use model::*;

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks `m`, ignoring poisoning. Only for data that a holder's panic leaves valid (its
/// callers change it by whole entries), where one panicking thread must not take the others
/// down with it.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
