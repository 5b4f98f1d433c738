//! The bottom layer: plain data every engine phase shares (`model`; a file's text,
//! `source_text`), the engine's errors,
//! what output may contain (`text`, `json`), identifier words, path classes, the exact token
//! counter, the one guarded way to open files, the heap policy, and a request's scope. It
//! imports no other layer. Pure functions and types; they run on whichever thread calls.

pub mod cpu_clock;
pub mod error;
pub mod guarded;
pub mod heap;
pub mod json;
pub mod languages;
pub mod limits;
pub mod model;
pub mod paths;
pub mod scope;
mod source_text;
pub mod stats;
pub mod stopwords;
pub mod text;
pub mod tokenizer;
pub mod words;

/// FxHash (`rustc-hash`, rustc's hasher): the graph build hashes a few million short keys
/// (identifiers, id pairs) and SipHash's DoS resistance buys nothing for a repository's own
/// names. Maps are only ever looked up, never iterated into results, so order does not leak.
pub(crate) type FastMap<K, V> = rustc_hash::FxHashMap<K, V>;
pub(crate) type FastSet<K> = rustc_hash::FxHashSet<K>;

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks `m`, ignoring poisoning. Only for data that a holder's panic leaves valid (its
/// callers change it by whole entries), where one panicking thread must not take the others
/// down with it.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
