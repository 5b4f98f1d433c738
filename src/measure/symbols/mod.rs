//! `mapscope eval --symbols`: symbol look-ups scored against universal-ctags, the method of
//! `../shared/eval/symbols.py` (its oracle filters, sampling, ±2 line rule, C/C++ header
//! rule, sets and figures) run in-process: each repository is indexed once and every query
//! is the search `mapscope search --json --top 5 --answer` runs, given by the caller as a
//! function from the index and the query to the search document. Several repositories in
//! one run, a per-language breakdown, and the answer's lead checked as well as its file.
//! Runs on the calling thread; spawns `ctags` once per repository.

pub mod oracle;
pub mod pyrandom;
pub mod sample;
pub mod score;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use serde::Serialize;
use serde_json::Value;

use crate::engine::base::error::EngineError;
use crate::engine::index::{Index, IndexOptions};
use crate::engine::ingest::history::HistorySource;

use oracle::{ctags_version, read_oracle};
use sample::{sample, QuerySet};
use score::{
    answer_names_definition, answer_names_file, hit_rank, named_rank, top_sources, Source,
};

/// The search every query runs (`mapscope search --json --top 5 --answer`): hits kept.
pub const SEARCH_TOP: usize = 5;

/// Issue 43's targets: the share of look-ups whose definition is the top hit, per set, and
/// of bare look-ups whose answer names the definition's file.
pub const TARGET_UNIQUE: f64 = 0.95;
pub const TARGET_QUALIFIED: f64 = 0.90;
pub const TARGET_ANSWER_FILE: f64 = 0.95;

/// Why the eval cannot run at all.
#[derive(Debug, thiserror::Error)]
pub enum SymbolEvalError {
    /// No universal-ctags to ask (not installed, not universal, no JSON output).
    #[error("{0}")]
    OracleMissing(String),
}

impl SymbolEvalError {
    /// The stable code of the error line.
    pub fn code(&self) -> &'static str {
        match self {
            SymbolEvalError::OracleMissing(_) => "ORACLE_MISSING",
        }
    }
}

#[derive(Debug, Clone)]
pub struct SymbolEvalOptions {
    pub repos: Vec<PathBuf>,
    /// Names per set (`symbols.py --n`).
    pub sample: usize,
    /// The shuffle's seed (`symbols.py --seed`).
    pub seed: u64,
    /// The universal-ctags executable.
    pub ctags: PathBuf,
}

/// A set's figures: shares of its look-ups, rounded to three places as `symbols.py` does.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SetScore {
    pub n: usize,
    pub top1: f64,
    pub top3: f64,
    /// The top hit is the definition with the oracle's name (`top1` also counts a
    /// container whose range holds the line, such as a method's class).
    pub top1_named: f64,
    /// The answer contains the definition's path (`symbols.py` reports it for bare names).
    pub answer_names_file: f64,
    /// The answer's lead names the definition: its name as a word and its place.
    pub answer_names_definition: f64,
}

/// One scored look-up.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub set: QuerySet,
    pub query: String,
    pub path: String,
    pub line: u64,
    pub kind: String,
    pub scope: Option<String>,
    pub language: &'static str,
    /// 1-based rank of the definition among the first three sources.
    pub rank: Option<usize>,
    /// The same, counting only a definition with the oracle's name.
    pub named_rank: Option<usize>,
    pub answer_names_file: bool,
    pub answer_names_definition: bool,
    pub top: Vec<Source>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RepoTiming {
    pub ctags_ms: f64,
    pub index_ms: f64,
    pub mean_query_ms: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct RepoReport {
    /// The directory's name (`symbols.py`'s `repo`).
    pub repo: String,
    pub path: String,
    /// Tags ctags printed, and the definitions kept after `symbols.py`'s filters.
    pub oracle_tags: usize,
    pub definitions: usize,
    /// Names defined once, and definitions eligible for a qualified look-up (before the
    /// sample is cut).
    pub unique_names: usize,
    pub qualified_definitions: usize,
    /// What a `.h` counts as in `languages`: `c++` when the implementation has more C++
    /// sources than C ones.
    pub header_language: &'static str,
    pub summary: BTreeMap<QuerySet, SetScore>,
    pub languages: BTreeMap<&'static str, BTreeMap<QuerySet, SetScore>>,
    /// The targets this repository misses (`bare`, `phrase`, `qualified`, `answer_file`).
    pub below_target: Vec<&'static str>,
    pub timing: RepoTiming,
    pub rows: Vec<Row>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SymbolReport {
    pub oracle: String,
    pub sample: usize,
    pub seed: u64,
    pub search: String,
    pub targets: BTreeMap<&'static str, f64>,
    pub repos: Vec<RepoReport>,
    /// Every repository's look-ups pooled by language.
    pub languages: BTreeMap<&'static str, BTreeMap<QuerySet, SetScore>>,
}

/// The language a definition's file is in, by extension (a header by `has_cpp`).
fn language_of(path: &str, has_cpp: bool) -> &'static str {
    let ext = path.rsplit_once('.').map(|(_, e)| e).unwrap_or_default();
    match ext.to_ascii_lowercase().as_str() {
        "ts" | "tsx" | "mts" | "cts" => "typescript",
        "js" | "jsx" | "mjs" | "cjs" => "javascript",
        "py" => "python",
        "go" => "go",
        "rs" => "rust",
        "java" => "java",
        "c" => "c",
        "h" if !has_cpp => "c",
        "h" | "cc" | "cpp" | "cxx" | "hpp" | "hh" | "hxx" => "c++",
        "cs" => "c#",
        "rb" => "ruby",
        "php" => "php",
        _ => "other",
    }
}

#[allow(clippy::cast_precision_loss)]
fn share(hits: usize, n: usize) -> f64 {
    if n == 0 {
        return f64::NAN;
    }
    (hits as f64 / n as f64 * 1000.0).round() / 1000.0
}

/// The figures of each set among `rows`.
fn scores<'a>(rows: impl Iterator<Item = &'a Row> + Clone) -> BTreeMap<QuerySet, SetScore> {
    let mut out = BTreeMap::new();
    for set in QuerySet::ALL {
        let of_set: Vec<&Row> = rows.clone().filter(|r| r.set == set).collect();
        let n = of_set.len();
        if n == 0 {
            continue;
        }
        let count = |f: &dyn Fn(&Row) -> bool| of_set.iter().filter(|r| f(r)).count();
        out.insert(
            set,
            SetScore {
                n,
                top1: share(count(&|r| r.rank == Some(1)), n),
                top3: share(count(&|r| r.rank.is_some()), n),
                top1_named: share(count(&|r| r.named_rank == Some(1)), n),
                answer_names_file: share(count(&|r| r.answer_names_file), n),
                answer_names_definition: share(count(&|r| r.answer_names_definition), n),
            },
        );
    }
    out
}

fn below_target(summary: &BTreeMap<QuerySet, SetScore>) -> Vec<&'static str> {
    let mut out = Vec::new();
    let get = |set| summary.get(&set);
    for (set, target) in [
        (QuerySet::Bare, TARGET_UNIQUE),
        (QuerySet::Phrase, TARGET_UNIQUE),
        (QuerySet::Qualified, TARGET_QUALIFIED),
    ] {
        if get(set).is_some_and(|s| s.top1 < target) {
            out.push(set.name());
        }
    }
    if get(QuerySet::Bare).is_some_and(|s| s.answer_names_file < TARGET_ANSWER_FILE) {
        out.push("answer_file");
    }
    out
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

/// Runs the eval on every repository in turn. `search(index, query)` returns the search
/// document; `progress(repo, done, total)` follows the look-ups.
pub fn run(
    opts: &SymbolEvalOptions,
    search: &mut dyn FnMut(&Index, &str) -> Value,
    progress: &mut dyn FnMut(&str, usize, usize),
) -> anyhow::Result<SymbolReport> {
    let version = ctags_version(&opts.ctags)?;
    // Every repository is there before the first is run: a typo fails in a moment.
    let roots = opts
        .repos
        .iter()
        .map(|repo| {
            let root = std::path::absolute(repo).unwrap_or_else(|_| repo.clone());
            if root.is_dir() {
                Ok(root)
            } else {
                Err(EngineError::RepoNotFound(repo.clone()))
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut repos = Vec::with_capacity(roots.len());
    for root in &roots {
        repos.push(run_repo(opts, root, search, progress)?);
    }
    let languages = by_language(repos.iter().flat_map(|r| r.rows.iter()));
    Ok(SymbolReport {
        oracle: version,
        sample: opts.sample,
        seed: opts.seed,
        search: format!("mapscope search --json --top {SEARCH_TOP} --answer (in-process)"),
        targets: BTreeMap::from([
            ("bare_top1", TARGET_UNIQUE),
            ("phrase_top1", TARGET_UNIQUE),
            ("qualified_top1", TARGET_QUALIFIED),
            ("bare_answer_names_file", TARGET_ANSWER_FILE),
        ]),
        repos,
        languages,
    })
}

/// The figures of each language among `rows`.
fn by_language<'a>(
    rows: impl Iterator<Item = &'a Row> + Clone,
) -> BTreeMap<&'static str, BTreeMap<QuerySet, SetScore>> {
    let mut langs: Vec<&'static str> = rows.clone().map(|r| r.language).collect();
    langs.sort_unstable();
    langs.dedup();
    langs
        .into_iter()
        .map(|lang| (lang, scores(rows.clone().filter(|r| r.language == lang))))
        .collect()
}

/// One repository (`root` is absolute).
fn run_repo(
    opts: &SymbolEvalOptions,
    root: &std::path::Path,
    search: &mut dyn FnMut(&Index, &str) -> Value,
    progress: &mut dyn FnMut(&str, usize, usize),
) -> anyhow::Result<RepoReport> {
    let name = root.file_name().map_or_else(
        || root.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let t = Instant::now();
    let oracle = read_oracle(&opts.ctags, root)?;
    let ctags_ms = ms(t);
    let drawn = sample(&oracle.tags, opts.sample, opts.seed);
    let t = Instant::now();
    let index = Index::build(
        root,
        &IndexOptions {
            history: HistorySource::Repo,
            ..IndexOptions::default()
        },
    )?;
    let index_ms = ms(t);
    let t = Instant::now();
    let total = drawn.queries.len();
    let mut rows = Vec::with_capacity(total);
    for (i, q) in drawn.queries.iter().enumerate() {
        let doc = search(&index, &q.text);
        let top = top_sources(&doc);
        rows.push(Row {
            set: q.set,
            query: q.text.clone(),
            path: q.tag.path.clone(),
            line: q.tag.line,
            kind: q.tag.kind.clone(),
            scope: q.tag.scope.clone(),
            language: language_of(&q.tag.path, oracle.has_cpp_sources),
            rank: hit_rank(&top, &q.tag),
            named_rank: named_rank(&top, &q.tag),
            answer_names_file: answer_names_file(&doc, &q.tag),
            answer_names_definition: answer_names_definition(&doc, &top, &q.tag),
            top,
        });
        progress(&name, i + 1, total);
    }
    #[allow(clippy::cast_precision_loss)]
    let mean_query_ms = if total == 0 {
        0.0
    } else {
        ms(t) / total as f64
    };
    let summary = scores(rows.iter());
    let languages = by_language(rows.iter());
    Ok(RepoReport {
        repo: name,
        path: root.display().to_string(),
        oracle_tags: oracle.raw_tags,
        definitions: oracle.tags.len(),
        unique_names: drawn.unique_names,
        qualified_definitions: drawn.qualified_definitions,
        header_language: if oracle.has_cpp_sources { "c++" } else { "c" },
        below_target: below_target(&summary),
        summary,
        languages,
        timing: RepoTiming {
            ctags_ms,
            index_ms,
            mean_query_ms,
        },
        rows,
    })
}

/// The report as a table: a line per repository, then one per language when it has several.
pub fn table(report: &SymbolReport) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "symbol look-ups against {} (up to {} names per set, seed {})",
        report.oracle, report.sample, report.seed
    );
    let _ = writeln!(
        s,
        "top-1 per set; ans-file: the bare answer names the file; then top-3 per set; \
         q@1-name: the qualified top hit is the named definition (not its container); q-ans: \
         the qualified answer's lead names the definition"
    );
    let _ = writeln!(
        s,
        "{:<13}{:<11}{:>4}{:>7}{:>7}{:>4}{:>7}{:>9}{:>8}{:>7}{:>7}{:>9}{:>7}  below target",
        "repo",
        "language",
        "n",
        "bare",
        "phrase",
        "nq",
        "qual",
        "ans-file",
        "bare@3",
        "phr@3",
        "qual@3",
        "q@1-name",
        "q-ans"
    );
    let line = |s: &mut String, repo: &str, lang: &str, sc: &BTreeMap<QuerySet, SetScore>| {
        let get = |set, f: fn(&SetScore) -> f64| {
            sc.get(&set)
                .map_or_else(|| "-".to_string(), |x| format!("{:.3}", f(x)))
        };
        let n = |set| sc.get(&set).map_or(0, |x: &SetScore| x.n);
        let _ = write!(
            s,
            "{:<13}{:<11}{:>4}{:>7}{:>7}{:>4}{:>7}{:>9}{:>8}{:>7}{:>7}{:>9}{:>7}",
            repo.chars().take(12).collect::<String>(),
            lang,
            n(QuerySet::Bare),
            get(QuerySet::Bare, |x| x.top1),
            get(QuerySet::Phrase, |x| x.top1),
            n(QuerySet::Qualified),
            get(QuerySet::Qualified, |x| x.top1),
            get(QuerySet::Bare, |x| x.answer_names_file),
            get(QuerySet::Bare, |x| x.top3),
            get(QuerySet::Phrase, |x| x.top3),
            get(QuerySet::Qualified, |x| x.top3),
            get(QuerySet::Qualified, |x| x.top1_named),
            get(QuerySet::Qualified, |x| x.answer_names_definition),
        );
    };
    for r in &report.repos {
        line(&mut s, &r.repo, "all", &r.summary);
        let below = match r.below_target.as_slice() {
            [] => "-".to_string(),
            sets => sets.join(", "),
        };
        let _ = writeln!(s, "  {below}");
        if r.languages.len() > 1 {
            for (lang, sc) in &r.languages {
                line(&mut s, "", lang, sc);
                s.push('\n');
            }
        }
    }
    if report.repos.len() > 1 {
        let _ = writeln!(s, "\nevery repository, by language");
        for (lang, sc) in &report.languages {
            line(&mut s, "(pooled)", lang, sc);
            s.push('\n');
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_by_extension_headers_by_the_repository() {
        assert_eq!(language_of("src/jv.h", false), "c");
        assert_eq!(language_of("include/fmt/core.h", true), "c++");
        assert_eq!(language_of("src/format.cc", true), "c++");
        assert_eq!(language_of("Src/Polly/Policy.cs", false), "c#");
        assert_eq!(language_of("packages/x/index.mjs", false), "javascript");
    }

    #[test]
    fn shares_round_like_symbols_py() {
        assert!((share(2, 3) - 0.667).abs() < 1e-12);
        assert!(share(0, 0).is_nan());
    }
}
