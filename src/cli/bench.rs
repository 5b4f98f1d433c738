//! `mapscope bench`: the benches of `measure/` behind one command. Runs on the main thread.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use clap::Args;

use crate::engine::base::json;
use crate::engine::base::tokenizer::{tokenizer, TokenizerKind};
use crate::engine::index::MapRequest;
use crate::measure::bench_stats::median;

use super::*;

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Repository root (default: the current directory).
    pub path: Option<PathBuf>,
    /// Cold builds to run (the median is reported).
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    /// Token budget of the maps fitted while timing.
    #[arg(long, default_value_t = 4096)]
    pub tokens: usize,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Time one-file edits to a refreshed index and map instead (on a scratch copy of the
    /// indexed files; the repository itself is never written).
    #[arg(long)]
    pub live: bool,
    /// Time tree-sitter alone parsing the repository's code files (no tags, no graph): the
    /// floor a cold map is compared with.
    #[arg(long, conflicts_with = "live")]
    pub parse_floor: bool,
    /// Edits to time with --live.
    #[arg(long, default_value_t = 15)]
    pub edits: usize,
    /// Time search instead: query latency (p50/p95/max) on a built index and the search
    /// index's build time as a share of the cold index build.
    #[arg(long, conflicts_with = "live")]
    pub search: bool,
    /// Queries for --search or --typing: one per line, or JSON lines with a `query` field
    /// (an eval dataset). Default: queries drawn from the repo's own definitions (--search),
    /// a few fixed tasks (--typing).
    #[arg(long)]
    pub queries: Option<PathBuf>,
    /// Time what each keystroke in the query box costs the map (rank + fit for the text
    /// typed so far), p50/p95/max.
    #[arg(long, conflicts_with_all = ["search", "live"])]
    pub typing: bool,
}

pub(super) fn cmd_bench(args: &BenchArgs) -> anyhow::Result<()> {
    if args.parse_floor {
        bench_parse_floor(args)
    } else if args.live {
        bench_live(args)
    } else if args.typing {
        bench_typing(args)
    } else if args.search {
        bench_search(args)
    } else {
        bench_phases(args)
    }
}

/// `--parse-floor`: tree-sitter alone on the code files, and the floor a cold map is
/// compared with.
fn bench_parse_floor(args: &BenchArgs) -> anyhow::Result<()> {
    let r = crate::measure::parse_floor::run(&repo_path(&args.path), args.runs)?;
    if args.json {
        return print(&json::to_string_pretty(&r)?);
    }
    let langs: Vec<String> = r
        .files_by_language
        .iter()
        .map(|(l, n)| format!("{l} {n}"))
        .collect();
    let cpu = match (r.tags_cpu_ms, r.tags_floor_ms) {
        (Some(cpu), Some(floor)) => {
            format!("; {cpu:.1} ms CPU / {} threads = {floor:.1} ms", r.threads)
        }
        _ => String::new(),
    };
    let floor = match (
        r.read_cpu_ms,
        r.query_compile_cpu_ms,
        r.floor_cpu_ms,
        r.floor_ms,
    ) {
        (Some(read), Some(compile), Some(cpu), Some(floor)) => format!(
            "\nfloor: read {read:.1} + query compile {compile:.1} + parse and tags \
             {:.1} = {cpu:.1} ms CPU / {} threads = {floor:.1} ms\n\
             with the process's first (cold) parse and tags pass, {:.1} ms CPU: {:.1} ms",
            r.tags_cpu_ms.unwrap_or_default(),
            r.threads,
            r.tags_first_pass_cpu_ms.unwrap_or_default(),
            r.first_pass_floor_ms.unwrap_or_default(),
        ),
        _ => String::new(),
    };
    print(&format!(
        "{} files ({}), {:.1} MB; read {:.0} ms\nparse only (tree-sitter, no tags): median \
         {:.1} ms over {} runs; {} files out of time\nparse + tags: median {:.1} \
         ms{cpu}{floor}",
        r.files,
        langs.join(", "),
        r.bytes as f64 / 1e6,
        r.read_ms,
        r.parse_median_ms,
        args.runs.max(1),
        r.failed,
        r.tags_median_ms,
    ))
}

/// `--live`: one-file edits to a refreshed index and map.
fn bench_live(args: &BenchArgs) -> anyhow::Result<()> {
    let report = crate::measure::live_bench::run(&repo_path(&args.path), args.edits, args.tokens)?;
    if args.json {
        return print(&json::to_string_pretty(&report)?);
    }
    print(&format!(
        "{} files, {} one-file edits (debounce {} ms)\n\
         write → batch: median {:.1} ms\n\
         batch → refreshed index: median {:.1} ms\n\
         batch → index + fitted map: median {:.1} ms, max {:.1} ms",
        report.files,
        report.edits,
        report.debounce_ms,
        report.watch_median_ms,
        report.refresh_median_ms,
        report.to_map_median_ms,
        report.to_map_max_ms,
    ))
}

/// `--typing`: what each keystroke in the query box costs the map.
fn bench_typing(args: &BenchArgs) -> anyhow::Result<()> {
    let r = crate::measure::typing_bench::run(
        &repo_path(&args.path),
        args.tokens,
        args.queries.as_deref(),
    )?;
    if args.json {
        return print(&json::to_string_pretty(&r)?);
    }
    print(&format!(
        "{} files, {} queries typed one character at a time, map of {} tokens\n\
         per keystroke (search + rank + fit): p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms \
         ({} keystrokes)\n\
         whole query: p50 {:.1} ms, p95 {:.1} ms\n\
         of a keystroke, search for the task: p50 {:.1} ms, p95 {:.1} ms\n\
         per keystroke, CPU time of the thread (load-independent): p50 {:.1} ms, p95 {:.1} ms\n\
         index with search, built once: {:.0} ms",
        r.files,
        r.queries,
        r.budget,
        r.keystroke.p50_ms,
        r.keystroke.p95_ms,
        r.keystroke.max_ms,
        r.keystroke.samples,
        r.full_query.p50_ms,
        r.full_query.p95_ms,
        r.task_part.p50_ms,
        r.task_part.p95_ms,
        r.keystroke_cpu.p50_ms,
        r.keystroke_cpu.p95_ms,
        r.index_ms,
    ))
}

/// `--search`: query latency and the search index's build.
fn bench_search(args: &BenchArgs) -> anyhow::Result<()> {
    let r = crate::measure::search_bench::run(
        &repo_path(&args.path),
        args.runs,
        args.queries.as_deref(),
    )?;
    if args.json {
        return print(&json::to_string_pretty(&r)?);
    }
    print(&format!(
        "{} files, {} docs, {} queries, {} cold builds\n\
         cold index: median {:.1} ms; search index build: median {:.1} ms ({:.1}% of it)\n\
         cold index with the commit history: median {:.1} ms (+{:.1}%; git log {:.1} ms, \
         {} commits)\n\
         query latency, hits:  p50 {:.2} ms  p95 {:.2} ms  max {:.2} ms ({} runs)\n\
         query latency, files: p50 {:.2} ms  p95 {:.2} ms  max {:.2} ms ({} runs)",
        r.files,
        r.docs,
        r.queries,
        r.runs,
        r.index_median_ms,
        r.search_build_median_ms,
        r.search_build_share * 100.0,
        r.history_index_median_ms,
        r.history_added_share * 100.0,
        r.history_read_median_ms,
        r.history_commits,
        r.hits.p50_ms,
        r.hits.p95_ms,
        r.hits.max_ms,
        r.hits.samples,
        r.files_mode.p50_ms,
        r.files_mode.p95_ms,
        r.files_mode.max_ms,
        r.files_mode.samples,
    ))
}

/// The default: each phase of a cold build, and re-ranking + re-fitting after a focus change.
fn bench_phases(args: &BenchArgs) -> anyhow::Result<()> {
    let runs = args.runs.max(1);
    let t = Instant::now();
    let _ = tokenizer(TokenizerKind::O200k).count("warm up");
    let tokenizer_ms = t.elapsed().as_secs_f64() * 1000.0;

    let (mut walk, mut parse, mut graph, mut rank, mut fit, mut total) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    let mut last = None;
    for _ in 0..runs {
        let t0 = Instant::now();
        let index = build_index(&args.path, None, CacheArgs { no_cache: true })?;
        let req = MapRequest {
            budget: args.tokens,
            ..MapRequest::default()
        };
        let t1 = Instant::now();
        let ranked = index.rank(&req);
        let t2 = Instant::now();
        let map = index.fit(&ranked, &req);
        let t3 = Instant::now();
        walk.push(index.times.walk_ms);
        parse.push(index.times.parse_ms);
        graph.push(index.times.graph_ms);
        rank.push((t2 - t1).as_secs_f64() * 1000.0);
        fit.push((t3 - t2).as_secs_f64() * 1000.0);
        total.push((t3 - t0).as_secs_f64() * 1000.0);
        last = Some((index, map.tokens));
    }
    let (index, tokens) = last.context("no bench run")?;

    // Re-fitting after a change of focus/identifiers: re-rank + re-fit on the warm index.
    let focus_candidates: Vec<String> = index
        .files
        .iter()
        .step_by((index.files.len() / 7).max(1))
        .map(|f| f.path.clone())
        .collect();
    let mut refit = Vec::new();
    for (i, focus) in focus_candidates.iter().enumerate() {
        let ident = index.files[i % index.files.len()]
            .tags
            .defs
            .first()
            .map(|d| d.name.clone());
        let req = MapRequest {
            budget: args.tokens,
            focus: vec![focus.clone()],
            idents: ident.into_iter().collect(),
            ..MapRequest::default()
        };
        let t = Instant::now();
        let (map, _) = index.map(&req);
        refit.push(t.elapsed().as_secs_f64() * 1000.0);
        std::hint::black_box(map);
    }
    let report = serde_json::json!({
        "repo": index.root.display().to_string(),
        "files": index.files.len(),
        "runs": runs,
        "tokens_budget": args.tokens,
        "tokens_given": tokens,
        "tokenizer_init_ms": tokenizer_ms,
        "median_ms": {
            "walk": median(&walk), "parse": median(&parse), "graph": median(&graph),
            "rank": median(&rank), "fit": median(&fit), "cold_total": median(&total),
            "refit_after_focus_change": median(&refit),
        },
        "refit_max_ms": refit.iter().copied().fold(0.0, f64::max),
    });
    if args.json {
        return print(&json::to_string_pretty(&report)?);
    }
    print(&format!(
        "repo {}\nfiles {}  runs {}  budget {} → {} tokens\ntokenizer init {:.1} ms\n\
         median ms: walk {:.1}  parse {:.1}  graph {:.1}  rank {:.1}  fit {:.1}  cold total {:.1}\n\
         refit after focus change: median {:.1} ms, max {:.1} ms over {} changes",
        report["repo"].as_str().unwrap_or(""),
        index.files.len(),
        runs,
        args.tokens,
        tokens,
        tokenizer_ms,
        report["median_ms"]["walk"].as_f64().unwrap_or(0.0),
        report["median_ms"]["parse"].as_f64().unwrap_or(0.0),
        report["median_ms"]["graph"].as_f64().unwrap_or(0.0),
        report["median_ms"]["rank"].as_f64().unwrap_or(0.0),
        report["median_ms"]["fit"].as_f64().unwrap_or(0.0),
        report["median_ms"]["cold_total"].as_f64().unwrap_or(0.0),
        report["median_ms"]["refit_after_focus_change"]
            .as_f64()
            .unwrap_or(0.0),
        report["refit_max_ms"].as_f64().unwrap_or(0.0),
        refit.len(),
    ))
}
