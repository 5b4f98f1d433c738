//! The graph's word tables, which `rank` reads to personalize a map for a query's words:
//! each file's normalized stem (`src/file_graph.rs` → `filegraph`), the words of its path
//! (with the path order: the path tables, which a relink keeps) and the words of its
//! definitions' names (which a relink redoes for the edited files only).

use std::collections::BTreeMap;

use super::FastMap;
use crate::engine::base::model::ParsedFile;
use crate::engine::base::words::{normalize_name, split_words};
use crate::engine::link::resolve::split_dir;

/// The graph's tables that depend only on the files' paths (a relink keeps them).
pub(crate) struct PathTables {
    /// Normalized file stem → files.
    pub(super) stem_files: FastMap<String, Vec<u32>>,
    /// Lowercase word of a path component → files.
    pub(super) path_words: FastMap<String, Vec<u32>>,
    /// Position of each file in path order, for tie-breaks.
    pub(super) path_order: Vec<u32>,
}

/// `with_words`: also `path_words` (left empty otherwise; `TakenUses::query_words`).
pub(super) fn path_tables(files: &[ParsedFile], with_words: bool) -> PathTables {
    let mut stem_files: FastMap<String, Vec<u32>> = FastMap::default();
    let mut path_words: FastMap<String, Vec<u32>> = FastMap::default();
    for (fi, f) in files.iter().enumerate() {
        let fi32 = fi as u32;
        if let Some(stem) = file_stem_key(&f.path) {
            stem_files.entry(stem).or_default().push(fi32);
        }
        if !with_words {
            continue;
        }
        let mut words: Vec<String> = Vec::new();
        for comp in f.path.split('/') {
            words.extend(split_words(comp));
        }
        words.sort_unstable();
        words.dedup();
        for w in words {
            path_words.entry(w).or_default().push(fi32);
        }
    }
    let n = files.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| files[a].path.cmp(&files[b].path).then(a.cmp(&b)));
    let mut path_order = vec![0u32; n];
    for (pos, &f) in order.iter().enumerate() {
        path_order[f] = pos as u32;
    }
    PathTables {
        stem_files,
        path_words,
        path_order,
    }
}

/// Lowercase word of a definition name → (file, number of its definitions with it), for
/// every file.
pub(super) fn def_words(files: &[ParsedFile]) -> FastMap<String, Vec<(u32, u32)>> {
    let mut def_words: FastMap<String, Vec<(u32, u32)>> = FastMap::default();
    for (fi, f) in files.iter().enumerate() {
        for (w, c) in def_word_counts(f) {
            def_words.entry(w).or_default().push((fi as u32, c));
        }
    }
    def_words
}

/// How often each word of `f`'s definition names occurs (`FileGraph::def_words`).
pub(super) fn def_word_counts(f: &ParsedFile) -> BTreeMap<String, u32> {
    let mut counts: BTreeMap<String, u32> = BTreeMap::new();
    for d in f.tags.defs.iter().filter(|d| !d.lookup_only) {
        for w in split_words(&d.name) {
            *counts.entry(w).or_insert(0) += 1;
        }
    }
    counts
}

/// The normalized stem a file is known by: `src/file_graph.rs` → `filegraph`; an `index.*`,
/// `__init__.py`, `mod.*` or `main.*` file is known by its directory's name.
pub(super) fn file_stem_key(path: &str) -> Option<String> {
    let (dir, name) = split_dir(path);
    let stem = name.split('.').next().unwrap_or(name);
    let stem = if matches!(stem, "index" | "__init__" | "mod" | "main") && !dir.is_empty() {
        split_dir(dir).1
    } else {
        stem
    };
    let key = normalize_name(stem);
    (!key.is_empty()).then_some(key)
}
