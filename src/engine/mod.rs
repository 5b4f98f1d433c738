//! The engine: everything that reads a repository and computes maps and search results.
//! It never touches the terminal (no ratatui, no crossterm); the TUI and the CLI both drive it.
//!
//! It is a stack of layers, each a folder that imports only the layers below it
//! (`tests/engine/architecture.rs` checks it; ARCHITECTURE.md has the code map):
//!
//! - `base`: plain data every phase shares (`model`), errors, output safety (`text`,
//!   `json`), words, path classes, the token counter, guarded file reads, the heap policy;
//! - `ingest`: which files (`walk`), their languages (`lang`), tree-sitter tags (`tags`),
//!   the commit history (`history`);
//! - `link`: imports resolved (`resolve`) and the cross-file graph (`graph`);
//! - `search`: the search index and ranked hits, and the extra sources searched beside;
//! - `answer`: the extractive answer to a search, and the optional LLM's;
//! - `rank`: personalized PageRank (`pagerank`), the task behind a query (`task`), the map
//!   fitted to a budget (`repo_map`);
//! - `store`: the persistent caches (tags, derived blobs, history, clearing them);
//! - `index`: one full pass over a repository and the queries answered from it;
//! - `live`: the live-index service every front door uses, and the file watcher.

pub mod answer;
pub mod base;
pub mod index;
pub mod ingest;
pub mod link;
pub mod live;
pub mod rank;
pub mod search;
pub mod store;

pub use base::error::EngineError;
