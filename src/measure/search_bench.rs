//! `mapscope bench --search`: query latency on an already-built index, and what building the
//! search index adds to a cold index build (issue #3 bounds both: p95 ≤ 16 ms on vite, build
//! ≤ 20% of the cold index time).
//!
//! Queries come from a file (plain lines, or JSON lines with a `query` field such as the
//! eval datasets) or, by default, are drawn from the index itself: every n-th definition's
//! name as typed, its name split into words as a phrase, and a few fixed English, Chinese
//! and mixed queries. Each query is run once to warm up, then timed `passes` times in both
//! result modes (hits, as the TUI shows them, and `--files`).
//!
//! Runs on the calling thread (the CLI's main thread); index builds use rayon.

use std::path::Path;
use std::time::Instant;

use anyhow::Context;

use crate::engine::base::words::split_words;
use crate::engine::index::{Index, IndexOptions};
use crate::engine::ingest::history::HistorySource;
use crate::engine::search::SearchOptions;
use crate::measure::bench_stats::median;

/// Fixed queries that exercise the glossary, CJK bigrams and plain-word paths.
const FIXED_QUERIES: &[&str] = &[
    "handle error when the config file is missing",
    "notify session 过滤",
    "导出订单 CSV",
    "分页 查询",
    "parse command line arguments",
    "watch files and reload",
];

/// At most this many queries drawn from the index.
const MAX_DRAWN_QUERIES: usize = 200;

/// Timed runs of every query in each mode (after one warm-up run).
const PASSES: usize = 3;

/// Percentiles in milliseconds over every timed query run of one mode.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Latency {
    pub samples: usize,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub max_ms: f64,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct SearchBenchReport {
    pub files: usize,
    pub docs: usize,
    pub runs: usize,
    pub queries: usize,
    /// Median cold index build (walk, read, parse, graph, rank; no cache), without search.
    pub index_median_ms: f64,
    /// Median time to build what only search needs on top of it (its index, graph signals).
    pub search_build_median_ms: f64,
    /// `search_build_median_ms / index_median_ms`.
    pub search_build_share: f64,
    /// Median cold index build that also reads the commit history (`git log` beside the
    /// parse, then its postings), and what it adds to `index_median_ms` as a share.
    pub history_index_median_ms: f64,
    pub history_added_share: f64,
    /// Median wall time of `git log` alone, and the commits indexed (0 outside a repository).
    pub history_read_median_ms: f64,
    pub history_commits: usize,
    pub hits: Latency,
    pub files_mode: Latency,
}

/// Builds the index `runs` times cold (median), then times the queries on the last build.
pub fn run(repo: &Path, runs: usize, queries: Option<&Path>) -> anyhow::Result<SearchBenchReport> {
    let opts = IndexOptions {
        use_cache: false,
        ..IndexOptions::default()
    };
    let with_history = IndexOptions {
        history: HistorySource::Repo,
        ..opts.clone()
    };
    let mut index_ms = Vec::new();
    let mut search_ms = Vec::new();
    let mut history_ms = Vec::new();
    let mut read_ms = Vec::new();
    let mut last = None;
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        let index = Index::build(repo, &opts)?;
        index_ms.push(t.elapsed().as_secs_f64() * 1000.0);
        drop(index);
        // Interleaved with the plain builds, so that load drifts hit both alike. The index
        // searched below is this one, history included.
        let t = Instant::now();
        let index = Index::build(repo, &with_history)?;
        history_ms.push(t.elapsed().as_secs_f64() * 1000.0);
        read_ms.push(index.history_status.read_ms);
        // Everything only search needs: its index and the graph signals (PageRank prior,
        // neighbours), which the index computes on first use.
        let t = Instant::now();
        index.search_index();
        std::hint::black_box(index.prior());
        search_ms.push(t.elapsed().as_secs_f64() * 1000.0);
        last = Some(index);
    }
    let index = last.context("no index built")?;
    let queries = match queries {
        Some(path) => read_queries(path)?,
        None => drawn_queries(&index),
    };
    anyhow::ensure!(!queries.is_empty(), "no queries to time");

    let hits = SearchOptions::default();
    let files = SearchOptions {
        files_mode: true,
        ..SearchOptions::default()
    };
    for q in &queries {
        std::hint::black_box(index.search(q, &hits));
        std::hint::black_box(index.search(q, &files));
    }
    let time_mode = |opts: &SearchOptions| {
        let mut samples = Vec::with_capacity(queries.len() * PASSES);
        for _ in 0..PASSES {
            for q in &queries {
                let t = Instant::now();
                std::hint::black_box(index.search(q, opts));
                samples.push(t.elapsed().as_secs_f64() * 1000.0);
            }
        }
        latency(samples)
    };
    let hits = time_mode(&hits);
    let files_mode = time_mode(&files);
    let index_median_ms = median(&index_ms);
    let search_build_median_ms = median(&search_ms);
    let history_index_median_ms = median(&history_ms);
    Ok(SearchBenchReport {
        files: index.files.len(),
        docs: index.docs.len(),
        runs: runs.max(1),
        queries: queries.len(),
        index_median_ms,
        search_build_median_ms,
        search_build_share: search_build_median_ms / index_median_ms.max(f64::EPSILON),
        history_index_median_ms,
        history_added_share: (history_index_median_ms - index_median_ms)
            / index_median_ms.max(f64::EPSILON),
        history_read_median_ms: median(&read_ms),
        history_commits: index.history_status.commits,
        hits,
        files_mode,
    })
}

/// One query per non-empty line; a line that is a JSON object contributes its `query` field
/// (so an eval dataset can be passed as is).
pub(crate) fn read_queries(path: &Path) -> anyhow::Result<Vec<String>> {
    let text = crate::engine::base::guarded::read_user_text(path, 1 << 30)
        .with_context(|| format!("cannot read queries from {}", path.display()))?;
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .filter_map(|line| {
            if line.starts_with('{') {
                let value: serde_json::Value = serde_json::from_str(line).ok()?;
                value.get("query")?.as_str().map(str::to_owned)
            } else {
                Some(line.to_owned())
            }
        })
        .collect())
}

/// Queries drawn from the index, spread evenly over its definitions: the name as typed and
/// the name as words (`createServer` → `create server`), plus the fixed queries.
fn drawn_queries(index: &Index) -> Vec<String> {
    let names: Vec<&str> = index
        .files
        .iter()
        .flat_map(|f| f.tags.defs.iter().map(|d| d.name.as_str()))
        .filter(|n| n.len() >= 3)
        .collect();
    let step = (names.len() * 2 / MAX_DRAWN_QUERIES).max(1);
    let mut out: Vec<String> = FIXED_QUERIES.iter().map(|q| (*q).to_owned()).collect();
    for name in names.iter().step_by(step).take(MAX_DRAWN_QUERIES / 2) {
        out.push((*name).to_owned());
        out.push(words(name));
    }
    out
}

/// `createServerConfig`, `create_server_config` → `create server config`: the engine's own
/// identifier words (`base::words`), so a drawn query splits a name as search does.
fn words(name: &str) -> String {
    split_words(name).join(" ")
}

pub(crate) fn latency(mut samples: Vec<f64>) -> Latency {
    samples.sort_by(f64::total_cmp);
    let at = |q: f64| {
        let i = ((samples.len() as f64 - 1.0) * q).round() as usize;
        samples.get(i).copied().unwrap_or(0.0)
    };
    Latency {
        samples: samples.len(),
        p50_ms: at(0.5),
        p95_ms: at(0.95),
        max_ms: samples.last().copied().unwrap_or(0.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_words() {
        assert_eq!(words("createServerConfig"), "create server config");
        assert_eq!(words("create_server_config"), "create server config");
        assert_eq!(words("HTTPServer"), "http server");
        assert_eq!(words("_private"), "private");
    }

    #[test]
    fn percentiles_pick_from_the_sorted_sample() {
        let l = latency((1..=100).map(f64::from).collect());
        assert_eq!(l.samples, 100);
        assert_eq!(l.p50_ms, 51.0);
        assert_eq!(l.p95_ms, 95.0);
        assert_eq!(l.max_ms, 100.0);
        assert_eq!(latency(Vec::new()).p95_ms, 0.0);
    }

    #[test]
    fn query_files_take_lines_or_the_query_field() {
        let dir = std::env::temp_dir().join(format!("mapscope-qfile-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("q.jsonl");
        std::fs::write(
            &path,
            "{\"query\": \"fix the thing\", \"commit\": \"abc\"}\n\nplain line\n{\"other\": 1}\n",
        )
        .unwrap();
        assert_eq!(
            read_queries(&path).unwrap(),
            ["fix the thing", "plain line"]
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}
