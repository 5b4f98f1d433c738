//! Ranking and fitting: personalized PageRank over the file graph and the ranking of
//! definitions (`pagerank`), the rank of files shown by path alone (`path_only`), the task a query or identifiers point at (`task`), and the map
//! fitted to an exact token budget (`repo_map`), and the smallest budget that would show
//! more (`budget`). Imports `base`, `ingest`, `link` and
//! `search`.

pub mod budget;
pub mod pagerank;
pub mod path_only;
pub mod repo_map;
pub mod task;
