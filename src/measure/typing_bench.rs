//! `mapscope bench --typing`: what one keystroke in the TUI's query box costs the map. For
//! each query, every prefix as it is typed (one character more each time) re-ranks and
//! re-fits the map with that text as the query (`Index::map`, the code path the TUI's map
//! pane and `mapscope map --query` share: search for the query, personalized PageRank, pins,
//! fit), timed on an index built once. Issue #14 bounds the p95: ≤ 16 ms on vite, ≤ 50 ms on
//! terraform.
//!
//! Runs on the calling thread (the CLI's main thread); the index build uses rayon.

use std::path::Path;
use std::time::Instant;

use super::bench_stats::thread_cpu_ms;
use crate::engine::index::{Index, IndexOptions, MapRequest};
use crate::engine::ingest::history::HistorySource;
use crate::measure::search_bench::{latency, read_queries, Latency};

/// Queries typed when no file is given: commit-message-like tasks in English and Chinese.
const DEFAULT_QUERIES: &[&str] = &[
    "handle error when the config file is missing",
    "css modules hashing",
    "parse command line arguments",
    "watch files and reload the server",
    "分页 查询",
];

/// At most this many queries are typed (each is many keystrokes).
const MAX_QUERIES: usize = 40;

#[derive(Debug, Clone, serde::Serialize)]
pub struct TypingBenchReport {
    pub files: usize,
    pub budget: usize,
    pub queries: usize,
    /// One sample per keystroke: rank + fit for the text typed so far.
    pub keystroke: Latency,
    /// The same for the whole query (the last keystroke of each).
    pub full_query: Latency,
    /// Of a keystroke, the part that finds the task (search for the text, pins).
    pub task_part: Latency,
    /// The keystroke's CPU time on the calling thread (all of its work runs there): what it
    /// costs on a quiet machine, whatever else shares the cores while the bench runs. Empty
    /// where the thread clock is not available.
    pub keystroke_cpu: Latency,
    /// Index build with the search index (not part of a keystroke), ms.
    pub index_ms: f64,
}

/// Builds the index once (history read, search index built, as the TUI does), then types
/// each query one character at a time.
pub fn run(
    repo: &Path,
    budget: usize,
    queries: Option<&Path>,
) -> anyhow::Result<TypingBenchReport> {
    let t = Instant::now();
    let index = Index::build(
        repo,
        &IndexOptions {
            history: HistorySource::Repo,
            ..IndexOptions::default()
        },
    )?;
    let _ = index.search_index();
    let _ = index.prior();
    let index_ms = t.elapsed().as_secs_f64() * 1000.0;
    let mut queries: Vec<String> = match queries {
        Some(p) => read_queries(p)?,
        None => DEFAULT_QUERIES.iter().map(|q| (*q).to_owned()).collect(),
    };
    queries.truncate(MAX_QUERIES);
    // Warm the line-cost cache the way a running TUI has it: the map without a query.
    let base = MapRequest {
        budget,
        ..MapRequest::default()
    };
    let _ = index.map(&base);
    let mut keystroke = Vec::new();
    let mut full_query = Vec::new();
    let mut task_part = Vec::new();
    let mut keystroke_cpu = Vec::new();
    for q in &queries {
        let chars: Vec<(usize, char)> = q.char_indices().collect();
        for (n, &(i, c)) in chars.iter().enumerate() {
            let typed = &q[..i + c.len_utf8()];
            let req = MapRequest {
                query: Some(typed.to_owned()),
                ..base.clone()
            };
            let cpu = thread_cpu_ms();
            let t = Instant::now();
            let (map, _) = index.map(&req);
            let ms = t.elapsed().as_secs_f64() * 1000.0;
            if let (Some(a), Some(b)) = (cpu, thread_cpu_ms()) {
                keystroke_cpu.push(b - a);
            }
            std::hint::black_box(map.tokens);
            keystroke.push(ms);
            if n + 1 == chars.len() {
                full_query.push(ms);
            }
            let t = Instant::now();
            std::hint::black_box(index.task(&req).pins.len());
            task_part.push(t.elapsed().as_secs_f64() * 1000.0);
        }
    }
    Ok(TypingBenchReport {
        files: index.files.len(),
        budget,
        queries: queries.len(),
        keystroke: latency(keystroke),
        full_query: latency(full_query),
        task_part: latency(task_part),
        keystroke_cpu: latency(keystroke_cpu),
        index_ms,
    })
}
