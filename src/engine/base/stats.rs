//! What an index counts (`mapscope stats`): plain data. It lives in `base` because the error
//! an empty repository gives (`EngineError::RepoEmpty`) carries what its walk found; the
//! index fills it (`index::stats`).

use std::collections::BTreeMap;

use crate::engine::base::model::Skipped;

/// Wall time of each build phase, in milliseconds.
#[derive(Debug, Clone, Copy, Default)]
pub struct PhaseTimes {
    pub walk_ms: f64,
    pub parse_ms: f64,
    pub graph_ms: f64,
    /// The graph was loaded from the derived cache (`store::blob`), not linked.
    pub graph_cached: bool,
}

/// A file tree-sitter reported syntax errors in (its tags are still extracted), or that could
/// not be parsed within its time budget (one error, no tags).
#[derive(Debug, Clone)]
pub struct ParseErrorFile {
    pub path: String,
    pub errors: u32,
}

/// Summary counts of an index (`mapscope stats`).
#[derive(Debug, Clone, Default)]
pub struct IndexStats {
    pub root: String,
    pub files: usize,
    pub docs: usize,
    pub files_by_language: BTreeMap<&'static str, usize>,
    pub definitions: usize,
    pub definitions_by_kind: BTreeMap<&'static str, usize>,
    pub references: usize,
    pub references_by_kind: BTreeMap<&'static str, usize>,
    pub imports: usize,
    pub graph_edges: usize,
    pub skipped_by_reason: BTreeMap<&'static str, usize>,
    pub files_with_parse_errors: usize,
    pub parse_errors: usize,
    pub times: PhaseTimes,
    /// Each skipped file or directory with its reason, by path.
    pub skipped_files: Vec<Skipped>,
    /// Each file with parse errors, by path.
    pub parse_error_files: Vec<ParseErrorFile>,
    /// Code files in languages without a grammar: how many, by extension (`.kt`) and by
    /// language (`kotlin`).
    pub unsupported_files: usize,
    pub unsupported_by_extension: BTreeMap<String, usize>,
    pub unsupported_by_language: BTreeMap<&'static str, usize>,
    /// Code files indexed as another project's copy (`ParsedFile::vendored`), and the folders
    /// found so by their own licence and build file (`walk::licences`).
    pub vendored_files: usize,
    pub vendored_by_licence: Vec<String>,
}
