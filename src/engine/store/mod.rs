//! The persistent caches, in the user's cache directory: each file's tags (`cache`), the
//! derived structures kept beside them (`blob`: the graph, the search index, the history
//! index). Imports every layer below it, never `index` or `live`.

pub mod blob;
pub mod cache;
