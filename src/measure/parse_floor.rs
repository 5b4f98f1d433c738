//! `mapscope bench --parse-floor`: the time tree-sitter alone takes to parse a repository's
//! code files (no queries, no tags, no graph), and the time parsing plus tag extraction takes
//! (what no cold build can skip), on the same rayon pool and file list as an index build. They
//! are the floors a cold map's time is compared with ("cold within 1.2× of the parse floor",
//! the floor being parse + tags CPU / cores). Runs on the CLI's main thread, fanning out on
//! rayon.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use super::bench_stats::{median, process_cpu_ms};
use crate::engine::tags::{extract_tags, parse_only};
use crate::engine::walk::{load_source, walk, WalkOptions};

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
}

/// Walks `root` as an index build does, reads its code files, then parses all of them `runs`
/// times.
pub fn run(root: &Path, runs: usize) -> anyhow::Result<ParseFloor> {
    let walked = walk(root, &WalkOptions::default())?;
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
    let mut files_by_language = BTreeMap::new();
    for (lang, _) in &sources {
        *files_by_language.entry(lang.name()).or_insert(0) += 1;
    }
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
        let tags: usize = sources
            .par_iter()
            .map(|(lang, src)| extract_tags(*lang, src).defs.len())
            .sum();
        tag_times.push(t.elapsed().as_secs_f64() * 1000.0);
        if let (Some(a), Some(b)) = (cpu, process_cpu_ms()) {
            tag_cpu.push(b - a);
        }
        std::hint::black_box(tags);
    }
    let threads = rayon::current_num_threads().max(1);
    let tags_cpu_ms = (!tag_cpu.is_empty()).then(|| median(&tag_cpu));
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
    })
}
