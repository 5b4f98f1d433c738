//! `mapscope bench --parse-floor`: the time tree-sitter alone takes to parse a repository's
//! code files (no queries, no tags, no graph), and the time parsing plus tag extraction takes,
//! on the same rayon pool and file list as an index build. They are the floors a cold map's
//! time is compared with ("cold within 1.2× of the parse floor").
//!
//! The floor is the CPU of the work no cold map can skip, divided by the cores: reading the
//! code files, compiling the tags query of each language present (once per process; a
//! compiled tree-sitter query cannot be stored), and parsing every file and extracting its
//! tags (median over the runs, queries compiled). Issues 19 and 21 had measured it two ways
//! (a share of a single-threaded `stats` run, which counted reads and query compiles; and
//! the median parse + tags CPU here, which counted neither); this is the one definition both
//! use now (`benches/warm_floor.sh`, `benches/languages.sh`).
//!
//! The process's first parse-and-tags pass is also timed on its own
//! (`tags_first_pass_cpu_ms`, before the parse-only runs): it grows the heaps and runs the
//! parser's code for the first time, as a cold map does, and costs 2-4% more CPU than the
//! later passes (javapoet, `tr1`, guzzle; BENCHMARKS.md). `first_pass_floor_ms` is the floor
//! with it, reported beside `floor_ms`. Runs on the CLI's main thread,
//! fanning out on rayon.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use super::bench_stats::{median, process_cpu_ms};
use crate::engine::base::model::Lang;
use crate::engine::index::memory::attach_pool_arenas;
use crate::engine::ingest::content::load_source;
use crate::engine::ingest::lang::compiled_tags_query;
use crate::engine::ingest::tags::{extract_tags, parse_only};
use crate::engine::ingest::walk::{walk, WalkOptions};

/// The floor's figures.
#[derive(Debug, Clone, Serialize)]
pub struct ParseFloor {
    pub files: usize,
    pub bytes: u64,
    /// Files per language.
    pub files_by_language: BTreeMap<&'static str, usize>,
    /// Reading the files (once, untimed in the parse runs).
    pub read_ms: f64,
    /// Median over the runs of parsing every file.
    pub parse_median_ms: f64,
    /// Files tree-sitter could not parse within their time budget.
    pub failed: usize,
    /// Median over the runs of parsing every file and extracting its tags (wall).
    pub tags_median_ms: f64,
    /// CPU time (all threads) of that run, median over the runs; `None` where the platform
    /// has no process CPU clock.
    pub tags_cpu_ms: Option<f64>,
    /// Threads of the rayon pool (the cores the floor is divided by).
    pub threads: usize,
    /// `tags_cpu_ms / threads`: the floor a perfectly parallel cold build would reach.
    pub tags_floor_ms: Option<f64>,
    /// CPU time of reading the code files.
    pub read_cpu_ms: Option<f64>,
    /// CPU time of compiling the tags queries of the languages present.
    pub query_compile_cpu_ms: Option<f64>,
    /// CPU time of the process's first tags pass (the one before the parse-only runs), on
    /// heaps not grown yet and parser code not run yet, as in a cold map.
    pub tags_first_pass_cpu_ms: Option<f64>,
    /// The floor's CPU: `read_cpu_ms + query_compile_cpu_ms + tags_cpu_ms`.
    pub floor_cpu_ms: Option<f64>,
    /// `floor_cpu_ms / threads`: what a cold map's wall time is compared with.
    pub floor_ms: Option<f64>,
    /// The floor with the first tags pass for the median one:
    /// `(read_cpu_ms + query_compile_cpu_ms + tags_first_pass_cpu_ms) / threads`. A cold map
    /// parses on fresh heaps as that pass does; shown beside `floor_ms`, not instead of it.
    pub first_pass_floor_ms: Option<f64>,
}

/// Walks `root` as an index build does, reads its code files, then parses all of them `runs`
/// times.
pub fn run(root: &Path, runs: usize) -> anyhow::Result<ParseFloor> {
    // The pool's threads in their own arenas, as in an index build.
    attach_pool_arenas();
    let walked = walk(root, &WalkOptions::default())?;
    let read_cpu = process_cpu_ms();
    let t = Instant::now();
    let max = WalkOptions::default().max_file_size;
    let sources: Vec<_> = walked
        .files
        .par_iter()
        .filter_map(|f| {
            load_source(&f.abs_path, &f.rel_path, max)
                .ok()
                .map(|s| (f.lang, s))
        })
        .collect();
    let read_ms = t.elapsed().as_secs_f64() * 1000.0;
    let read_cpu_ms = cpu_since(read_cpu);
    let mut files_by_language = BTreeMap::new();
    let mut langs = Vec::new();
    for (lang, _) in &sources {
        *files_by_language.entry(lang.name()).or_insert(0) += 1;
        if !langs.contains(lang) {
            langs.push(*lang);
        }
    }
    // One at a time, as the parse would (each on the first file of its language).
    let compile_cpu = process_cpu_ms();
    for lang in langs {
        // A query that does not compile fails every file's tags below as in a build.
        let _ = compiled_tags_query(lang);
    }
    let query_compile_cpu_ms = cpu_since(compile_cpu);
    // The first tags pass of this process, before any other parse: its trees grow the pool
    // threads' heaps page by page and run the parser's code for the first time, as a cold
    // map's parse does. The passes after it (below) find both in place.
    let cold_cpu = process_cpu_ms();
    let cold_tags = tag_all(&sources);
    let tags_first_pass_cpu_ms = cpu_since(cold_cpu);
    std::hint::black_box(cold_tags);
    let mut times = Vec::new();
    let mut failed = 0;
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        failed = sources
            .par_iter()
            .filter(|(lang, src)| !parse_only(*lang, src))
            .count();
        times.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    let mut tag_times = Vec::new();
    let mut tag_cpu = Vec::new();
    for _ in 0..runs.max(1) {
        let cpu = process_cpu_ms();
        let t = Instant::now();
        let tags = tag_all(&sources);
        tag_times.push(t.elapsed().as_secs_f64() * 1000.0);
        if let (Some(a), Some(b)) = (cpu, process_cpu_ms()) {
            tag_cpu.push(b - a);
        }
        std::hint::black_box(tags);
    }
    let threads = rayon::current_num_threads().max(1);
    let tags_cpu_ms = (!tag_cpu.is_empty()).then(|| median(&tag_cpu));
    // Reads and query compiles plus a parse-and-tags pass: the floor's CPU.
    let floor_cpu_with =
        |tags: Option<f64>| -> Option<f64> { Some(read_cpu_ms? + query_compile_cpu_ms? + tags?) };
    let floor_cpu_ms = floor_cpu_with(tags_cpu_ms);
    Ok(ParseFloor {
        files: sources.len(),
        bytes: sources.iter().map(|(_, s)| s.len() as u64).sum(),
        files_by_language,
        read_ms,
        parse_median_ms: median(&times),
        failed,
        tags_median_ms: median(&tag_times),
        tags_cpu_ms,
        threads,
        tags_floor_ms: tags_cpu_ms.map(|cpu| cpu / threads as f64),
        tags_first_pass_cpu_ms,
        read_cpu_ms,
        query_compile_cpu_ms,
        floor_cpu_ms,
        floor_ms: floor_cpu_ms.map(|cpu| cpu / threads as f64),
        first_pass_floor_ms: floor_cpu_with(tags_first_pass_cpu_ms).map(|cpu| cpu / threads as f64),
    })
}

/// Parses and tags every source on the pool; the definitions found (kept from being
/// optimised away).
fn tag_all(sources: &[(Lang, String)]) -> usize {
    sources
        .par_iter()
        .map(|(lang, src)| extract_tags(*lang, src).defs.len())
        .sum()
}

/// Process CPU ms since `start` (a `process_cpu_ms` reading).
fn cpu_since(start: Option<f64>) -> Option<f64> {
    Some(process_cpu_ms()? - start?)
}
