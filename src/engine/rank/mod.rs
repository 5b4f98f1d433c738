//! Ranking and fitting: personalized PageRank over the file graph and the ranking of
//! definitions (`pagerank`), the task a query or identifiers point at (`task`), and the map
//! fitted to an exact token budget (`repo_map`), and the smallest budget that would show
//! more (`budget`). Imports `base`, `ingest`, `link` and
//! `search`.

pub mod budget;
pub mod pagerank;
pub mod repo_map;
pub mod task;
