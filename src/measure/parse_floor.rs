//! `mapscope bench --parse-floor`: the time tree-sitter alone takes to parse a repository's
//! code files (no queries, no tags, no graph), on the same rayon pool and file list as an
//! index build. It is the floor a cold map's time is compared with ("cold within 1.2× of the
//! parse floor"). Runs on the CLI's main thread, fanning out on rayon.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use crate::engine::tags::parse_only;
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
    times.sort_by(f64::total_cmp);
    Ok(ParseFloor {
        files: sources.len(),
        bytes: sources.iter().map(|(_, s)| s.len() as u64).sum(),
        files_by_language,
        read_ms,
        parse_median_ms: times[times.len() / 2],
        failed,
    })
}
