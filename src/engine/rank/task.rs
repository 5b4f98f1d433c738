//! The task behind a map request: the files and definitions a query or identifiers point at,
//! so that the map shows them first.
//!
//! One personalization for map and search: a query runs through search (files mode) on the
//! same index. Search's best code files personalize the PageRank (`Task::search_files` →
//! `rank::Personalization::task_files`), and its clear leaders are *pinned*: their matched
//! definitions come first in the ranking, so the fit (always a prefix of the ranking) shows
//! them before the graph's general context fills the rest of the budget. Identifiers
//! (`--ident`, and code-looking words of the query that the repository defines) pin their
//! definitions the same way. Pure functions of an index's files, graph and a search
//! response; they run on whichever thread ranks (the engine worker, the CLI's main thread).
//!
//! The pin rule (documented in the README): at most [`TaskOptions::pin_files`] (8) search
//! files, each scoring at least [`TaskOptions::pin_ratio`] (a fifth) of the best file's
//! score (at most [`TaskOptions::unsure_pin_files`] when search is unsure of the query: its
//! best file covers under half the query's words); per file, the definition search
//! matched (or the one enclosing the matched line) and the definitions whose names share a
//! word with the query, at most [`TaskOptions::defs_per_file`] (3).

use std::collections::HashSet;

use crate::engine::base::model::{look_up_only_kind, ParsedFile};
use crate::engine::base::words::split_words;
use crate::engine::link::graph::FileGraph;
use crate::engine::search::{Evidence, SearchResponse};

/// The knobs of the pin rule and of the search personalization.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TaskOptions {
    /// At most this many search files are pinned.
    pub pin_files: usize,
    /// A search file is pinned only when its score is at least this share of the best one's.
    pub pin_ratio: f64,
    /// When search itself is unsure (its best file covers under half the query's words:
    /// `SearchResponse::low_score`), at most this many files are pinned first, and the tail
    /// is pinned only when this is not 0.
    pub unsure_pin_files: usize,
    /// Definitions pinned per search file.
    pub defs_per_file: usize,
    /// Search files after the first `pin_files` that are pinned too, with one definition
    /// each, after all the others' pins (same score rule).
    pub tail_files: usize,
    /// The score rule for the tail: at least this share of the best file's score.
    pub tail_ratio: f64,
    /// Definitions pinned per identifier.
    pub defs_per_ident: usize,
    /// Search files (best first) that personalize the PageRank.
    pub personalize_files: usize,
    /// Share of the query's personalization mass kept by plain word matching on paths and
    /// definition names (the rest follows search's file scores).
    pub word_share: f64,
}

impl Default for TaskOptions {
    fn default() -> Self {
        TaskOptions {
            pin_files: 8,
            pin_ratio: 0.2,
            unsure_pin_files: 8,
            defs_per_file: 3,
            tail_files: 24,
            tail_ratio: 0.05,
            defs_per_ident: 4,
            personalize_files: 32,
            word_share: 0.25,
        }
    }
}

/// Why a definition is pinned at the front of the ranking.
#[derive(Debug, Clone, PartialEq)]
pub enum PinReason {
    /// The user named the identifier (`--ident`) or wrote it in the query.
    Identifier(String),
    /// Search ranks the file at this 1-based position for the query.
    Search(usize),
}

/// A definition (or, with `def: None`, the best-ranked definition of a file) that goes first.
#[derive(Debug, Clone, PartialEq)]
pub struct Pin {
    pub file: usize,
    pub def: Option<usize>,
    pub reason: PinReason,
}

/// A code file search ranked for the query.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskFile {
    pub file: usize,
    /// 1-based position among search's code files.
    pub rank: usize,
    pub score: f64,
    /// What search matched there: evidence, symbol and line of its best hit.
    pub evidence: Option<(Evidence, Option<String>, u32)>,
    /// Query words found in the file's path or pinned definition names.
    pub words: Vec<String>,
    pub pinned: bool,
}

/// What a request's query and identifiers point at.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Task {
    /// Search's best code files, best first (at most `personalize_files`).
    pub search_files: Vec<TaskFile>,
    /// Definitions to put first, in reading order.
    pub pins: Vec<Pin>,
    /// Something in the request was ignored or matched nothing: one line each, for the user.
    pub notes: Vec<String>,
}

/// Lowercase words of a query, for matching definition names and paths.
fn query_words(terms: &[String]) -> HashSet<String> {
    terms
        .iter()
        .flat_map(|t| split_words(t))
        .filter(|w| w.chars().count() >= 2)
        .collect()
}

/// The innermost definition of `file` a map shows whose lines hold `line` (a field's line is
/// its type's).
fn enclosing_def(file: &ParsedFile, line: u32) -> Option<usize> {
    file.tags
        .defs
        .iter()
        .enumerate()
        .filter(|(_, d)| !d.lookup_only && d.lines.start <= line && line <= d.lines.end)
        .min_by_key(|(i, d)| (d.lines.end - d.lines.start, *i))
        .map(|(i, _)| i)
}

impl Task {
    /// Adds search's answer for the query: personalization files and pins. `terms` are the
    /// query's words (`rank::query_terms`); `by_path` turns a path into a file index.
    pub fn add_search(
        &mut self,
        files: &[ParsedFile],
        response: &SearchResponse,
        terms: &[String],
        by_path: &dyn Fn(&str) -> Option<usize>,
        opts: &TaskOptions,
    ) {
        let words = query_words(terms);
        let code: Vec<(usize, f64, &str)> = response
            .files
            .iter()
            .filter_map(|(path, score)| by_path(path).map(|f| (f, *score, path.as_str())))
            .filter(|&(_, score, _)| score.is_finite() && score > 0.0)
            .take(opts.personalize_files)
            .collect();
        let best = code.first().map_or(0.0, |c| c.1);
        let head_files = if response.low_score {
            opts.unsure_pin_files.min(opts.pin_files)
        } else {
            opts.pin_files
        };
        let mut tail: Vec<Pin> = Vec::new();
        for (i, &(f, score, path)) in code.iter().enumerate() {
            let hit = response.hits.iter().find(|h| h.file_path == path);
            let head = i < head_files && score >= opts.pin_ratio * best;
            let in_tail = !head
                && head_files > 0
                && i < opts.pin_files + opts.tail_files
                && score >= opts.tail_ratio * best;
            let pinned = head || in_tail;
            let mut path_words: Vec<String> = split_words(path)
                .into_iter()
                .filter(|w| words.contains(w))
                .collect();
            path_words.dedup();
            let mut tf = TaskFile {
                file: f,
                rank: i + 1,
                score,
                evidence: hit.map(|h| (h.evidence, h.symbol.clone(), h.line_range.start)),
                words: path_words,
                pinned,
            };
            if pinned {
                let max_defs = if head { opts.defs_per_file } else { 1 };
                let defs = pick_defs(&files[f], hit, &words, max_defs);
                for &d in &defs {
                    for w in split_words(&files[f].tags.defs[d].name) {
                        if words.contains(&w) && !tf.words.contains(&w) {
                            tf.words.push(w);
                        }
                    }
                }
                let target = if head { &mut self.pins } else { &mut tail };
                if defs.is_empty() {
                    target.push(Pin {
                        file: f,
                        def: None,
                        reason: PinReason::Search(i + 1),
                    });
                }
                target.extend(defs.into_iter().map(|d| Pin {
                    file: f,
                    def: Some(d),
                    reason: PinReason::Search(i + 1),
                }));
            }
            self.search_files.push(tf);
        }
        self.pins.append(&mut tail);
    }

    /// Pins the definitions of each identifier (exact name; implementation before tests, then
    /// by path). `explicit`: the user named them, so one that is not defined gets a note.
    pub fn add_idents(
        &mut self,
        files: &[ParsedFile],
        graph: &FileGraph,
        idents: &[String],
        explicit: bool,
        opts: &TaskOptions,
    ) {
        for ident in idents {
            let definers: Vec<usize> = graph
                .ident_id(ident)
                .map(|id| {
                    graph
                        .ident_files
                        .row(id as usize)
                        .iter()
                        .map(|&f| f as usize)
                        .collect()
                })
                .unwrap_or_default();
            let mut found: Vec<(bool, u32, usize, usize)> = Vec::new();
            for f in definers {
                let Some(file) = files.get(f) else { continue };
                for (d, def) in file.tags.defs.iter().enumerate() {
                    if def.name == *ident && !def.lookup_only {
                        found.push((graph.is_supporting(f), graph.path_order[f], d, f));
                    }
                }
            }
            if found.is_empty() {
                if explicit {
                    // A field or a valueless macro is defined, but no use is bound to it
                    // (`Definition::lookup_only`): say so rather than "not defined".
                    let look_up_only = look_up_only_kind(
                        files
                            .iter()
                            .flat_map(|f| &f.tags.defs)
                            .filter(|d| d.name == *ident),
                    );
                    self.notes.push(if let Some(kind) = look_up_only {
                        format!(
                            "identifier `{ident}` is {}, which a map does not show; it only \
                             weighs the files that use it",
                            kind.noun()
                        )
                    } else {
                        format!(
                            "identifier `{ident}` is not defined in the indexed files; it only \
                             weighs the files that use it"
                        )
                    });
                }
                continue;
            }
            found.sort_unstable();
            for (_, _, d, f) in found.into_iter().take(opts.defs_per_ident) {
                self.pins.push(Pin {
                    file: f,
                    def: Some(d),
                    reason: PinReason::Identifier(ident.clone()),
                });
            }
        }
    }

    /// The search file entry for `file`, if search ranked it.
    pub fn search_file(&self, file: usize) -> Option<&TaskFile> {
        self.search_files.iter().find(|t| t.file == file)
    }
}

/// The definitions of a pinned search file a map shows (`Definition::lookup_only` ones are
/// not): the one search matched (or the innermost one around the matched line), then those
/// whose names share the most words with the query.
fn pick_defs(
    file: &ParsedFile,
    hit: Option<&crate::engine::search::SearchHit>,
    words: &HashSet<String>,
    max: usize,
) -> Vec<usize> {
    let defs = &file.tags.defs;
    let mut out: Vec<usize> = Vec::new();
    if let Some(h) = hit {
        let line = h.line_range.start;
        let exact = (h.evidence == Evidence::Definition)
            .then(|| {
                defs.iter().position(|d| {
                    !d.lookup_only
                        && d.lines.start == line
                        && h.symbol.as_deref().is_none_or(|s| s == d.name)
                })
            })
            .flatten();
        if let Some(d) = exact.or_else(|| enclosing_def(file, line)) {
            out.push(d);
        }
    }
    let mut named: Vec<(usize, u32, usize)> = defs
        .iter()
        .enumerate()
        .filter(|(_, d)| !d.lookup_only)
        .filter_map(|(i, d)| {
            let n = split_words(&d.name)
                .iter()
                .collect::<HashSet<_>>()
                .into_iter()
                .filter(|w| words.contains(*w))
                .count();
            (n > 0).then_some((n, d.lines.start, i))
        })
        .collect();
    named.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    for (_, _, i) in named {
        if out.len() >= max {
            break;
        }
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out.truncate(max);
    out
}
