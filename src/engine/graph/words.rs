//! The graph's word tables, which `rank` reads to personalize a map for a query's words:
//! each file's normalized stem (`src/file_graph.rs` → `filegraph`), the words of its path
//! and the words of its definitions' names. Built once with the graph, in file order.

use std::collections::BTreeMap;

use super::FastMap;
use crate::engine::model::ParsedFile;
use crate::engine::resolve::split_dir;
use crate::engine::words::{normalize_name, split_words};

pub(super) struct WordTables {
    /// Normalized file stem → files.
    pub(super) stem_files: FastMap<String, Vec<u32>>,
    /// Lowercase word of a path component → files.
    pub(super) path_words: FastMap<String, Vec<u32>>,
    /// Lowercase word of a definition name → (file, number of its definitions with it).
    pub(super) def_words: FastMap<String, Vec<(u32, u32)>>,
}

impl WordTables {
    pub(super) fn of(files: &[ParsedFile]) -> WordTables {
        let mut stem_files: FastMap<String, Vec<u32>> = FastMap::default();
        let mut path_words: FastMap<String, Vec<u32>> = FastMap::default();
        let mut def_words: FastMap<String, Vec<(u32, u32)>> = FastMap::default();
        for (fi, f) in files.iter().enumerate() {
            let fi32 = fi as u32;
            if let Some(stem) = file_stem_key(&f.path) {
                stem_files.entry(stem).or_default().push(fi32);
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
            let mut counts: BTreeMap<String, u32> = BTreeMap::new();
            for d in &f.tags.defs {
                for w in split_words(&d.name) {
                    *counts.entry(w).or_insert(0) += 1;
                }
            }
            for (w, c) in counts {
                def_words.entry(w).or_default().push((fi32, c));
            }
        }
        WordTables {
            stem_files,
            path_words,
            def_words,
        }
    }
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
