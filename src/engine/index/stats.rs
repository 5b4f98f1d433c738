//! What an index counts (`mapscope stats`): files, definitions and references by kind,
//! what the walk skipped and why, parse errors. Read-only.

use crate::engine::base::model::Skipped;
use crate::engine::base::stats::{IndexStats, ParseErrorFile};
use crate::engine::index::Index;
use crate::engine::ingest::walk::UnsupportedFile;

impl Index {
    /// Counts for `mapscope stats`.
    pub fn stats(&self) -> IndexStats {
        let mut stats = IndexStats {
            root: self.root.display().to_string(),
            files: self.files.len(),
            docs: self.docs.len(),
            graph_edges: self.graph.edge_count(),
            times: self.times,
            ..IndexStats::default()
        };
        for f in &self.files {
            *stats.files_by_language.entry(f.lang.name()).or_default() += 1;
            for d in &f.tags.defs {
                *stats.definitions_by_kind.entry(d.kind.name()).or_default() += 1;
            }
            for r in f.refs() {
                *stats.references_by_kind.entry(r.kind.name()).or_default() += 1;
            }
            stats.definitions += f.tags.defs.len();
            stats.references += f.refs().len();
            stats.imports += f.imports().len();
            if f.tags.parse_errors > 0 {
                stats.files_with_parse_errors += 1;
                stats.parse_errors += f.tags.parse_errors as usize;
            }
        }
        stats.parse_error_files = self
            .files
            .iter()
            .filter(|f| f.tags.parse_errors > 0)
            .map(|f| ParseErrorFile {
                path: f.path.clone(),
                errors: f.tags.parse_errors,
            })
            .collect();
        stats.count_walk(&self.skipped, &self.unsupported);
        stats.vendored_files = self.files.iter().filter(|f| f.vendored).count();
        stats.vendored_by_licence.clone_from(&self.vendored_dirs);
        stats
    }
}

impl IndexStats {
    /// Adds what the walk and the loading left out: skipped files by reason, and code files
    /// in languages without a grammar by extension (`.kt`; a build script by name, `Makefile`) and by language (`kotlin`).
    pub(super) fn count_walk(&mut self, skipped: &[Skipped], unsupported: &[UnsupportedFile]) {
        for s in skipped {
            *self.skipped_by_reason.entry(s.reason.name()).or_default() += 1;
        }
        self.skipped_files = skipped.to_vec();
        self.unsupported_files = unsupported.len();
        for u in unsupported {
            let ext = crate::engine::ingest::lang::unsupported_group(&u.rel_path);
            *self.unsupported_by_extension.entry(ext).or_default() += 1;
            *self.unsupported_by_language.entry(u.language).or_default() += 1;
        }
    }
}
