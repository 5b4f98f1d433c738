//! The history signal's postings: each code file as one BM25 document made of the subjects
//! of the commits that touched it (`engine::ingest::history`). A query phrased like a commit
//! message ("show teardown phase for xfail reports") matches the files whose past changes
//! were described in the same words, including tests and callers whose own text does not
//! mention them.
//!
//! Built once per index snapshot on the thread that builds the index, from history read in
//! parallel with the parse; immutable afterwards (`Send + Sync`).

use std::collections::HashMap;

use super::build::unit_postings;
use super::tokenize::{term_hash, Tokenizer};
use super::{PathPosting, TermEntry};
use crate::engine::base::model::ParsedFile;
use crate::engine::ingest::history::CommitHistory;

/// BM25 term-frequency saturation and length normalisation of the history documents.
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// One file's history document: term counts over its commits' subjects, and their total.
struct Doc {
    unit: u32,
    tf: Vec<(u64, f64)>,
    len: f64,
}

/// File-level postings over past commit subjects. Units are code-file indices.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct HistoryIndex {
    pub(super) terms: Vec<TermEntry>,
    pub(super) postings: Vec<PathPosting>,
    /// Commits whose subjects are indexed.
    pub commits: usize,
    /// Indexed code files with at least one commit.
    pub files: usize,
}

impl HistoryIndex {
    /// Postings for `files` (sorted by path, as an index holds them); history of paths that
    /// are not indexed code files (docs, deleted files) is ignored.
    pub fn build(history: &CommitHistory, files: &[ParsedFile]) -> HistoryIndex {
        let mut tok = Tokenizer::default();
        // Each subject's terms once: (hash, count).
        let subject_terms: Vec<Vec<(u64, u32)>> = history
            .subjects
            .iter()
            .map(|s| {
                let mut counts: HashMap<u64, u32> = HashMap::new();
                tok.terms(s, |t, _| *counts.entry(term_hash(t)).or_insert(0) += 1);
                let mut v: Vec<(u64, u32)> = counts.into_iter().collect();
                v.sort_unstable();
                v
            })
            .collect();
        let mut docs: Vec<Doc> = Vec::new();
        let mut used = vec![false; history.subjects.len()];
        for (path, ids) in &history.touched {
            let Ok(unit) = files.binary_search_by(|f| f.path.as_str().cmp(path)) else {
                continue;
            };
            let mut tf: HashMap<u64, f64> = HashMap::new();
            let mut len = 0.0;
            for &id in ids {
                let Some(terms) = subject_terms.get(id as usize) else {
                    continue;
                };
                used[id as usize] = true;
                for &(h, n) in terms {
                    *tf.entry(h).or_insert(0.0) += f64::from(n);
                    len += f64::from(n);
                }
            }
            if len > 0.0 {
                docs.push(Doc {
                    unit: unit as u32,
                    tf: tf.into_iter().collect(),
                    len,
                });
            }
        }
        if docs.is_empty() {
            return HistoryIndex::default();
        }
        let avg = docs.iter().map(|d| d.len).sum::<f64>() / docs.len() as f64;
        let mut recs: Vec<(u64, u32, f32)> = Vec::new();
        for doc in &docs {
            let norm = K1 * (1.0 - B + B * doc.len / avg);
            recs.extend(
                doc.tf
                    .iter()
                    .map(|&(h, n)| (h, doc.unit, (n * (K1 + 1.0) / (n + norm)) as f32)),
            );
        }
        recs.sort_unstable_by_key(|r| (r.0, r.1));
        let (terms, postings) = unit_postings(&recs, docs.len() as f64);
        HistoryIndex {
            terms,
            postings,
            commits: used.iter().filter(|&&u| u).count(),
            files: docs.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.postings.is_empty()
    }

    /// Whether this index (loaded from the derived cache) points only inside itself and at
    /// `n_files` files, so a search over it cannot index out of bounds.
    pub fn check_fits(&self, n_files: usize) -> Result<(), String> {
        let entries_ok = self
            .terms
            .iter()
            .all(|t| t.start as usize + t.len as usize <= self.postings.len());
        let units_ok = self.postings.iter().all(|p| (p.unit as usize) < n_files);
        if entries_ok && units_ok && self.files <= n_files {
            Ok(())
        } else {
            Err("its postings do not fit the files".into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::base::model::{FileTags, Lang};
    use crate::engine::ingest::history::parse_log;
    use std::sync::Arc;

    fn file(path: &str) -> ParsedFile {
        ParsedFile::new(
            path.into(),
            Lang::Python,
            1,
            Arc::from(""),
            Arc::new(FileTags::default()),
        )
    }

    #[test]
    fn a_file_is_found_by_the_words_of_its_commits() {
        let log = "\u{1e}Validate marker names\u{1f}\n\nsrc/mark.py\ndocs/mark.md\n\
                   \u{1e}Speed up collection\u{1f}\n\nsrc/main.py\n\
                   \u{1e}Collect markers lazily\u{1f}\n\nsrc/mark.py\ngone.py\n";
        let history = parse_log(log, true);
        let files = vec![file("src/main.py"), file("src/mark.py")];
        let h = HistoryIndex::build(&history, &files);
        assert_eq!(h.files, 2);
        assert_eq!(h.commits, 3);
        let units = |word: &str| -> Vec<u32> {
            let hash = term_hash(word);
            h.terms
                .iter()
                .find(|t| t.hash == hash)
                .map(|t| {
                    h.postings[t.start as usize..(t.start + t.len) as usize]
                        .iter()
                        .map(|p| p.unit)
                        .collect()
                })
                .unwrap_or_default()
        };
        let mut tok = Tokenizer::default();
        let stem = |w: &str, tok: &mut Tokenizer| tok.collect(w)[0].0.clone();
        assert_eq!(units(&stem("validate", &mut tok)), [1]);
        assert_eq!(units(&stem("markers", &mut tok)), [1]);
        assert_eq!(units(&stem("speed", &mut tok)), [0]);
    }

    #[test]
    fn no_history_gives_an_empty_index() {
        let h = HistoryIndex::build(&CommitHistory::default(), &[file("a.py")]);
        assert!(h.is_empty());
        assert_eq!(h.commits, 0);
    }
}
