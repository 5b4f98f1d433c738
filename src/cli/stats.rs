//! `mapscope stats`: what the index holds (files by language, skipped files, parse errors).
//! Runs on the main thread.

use std::path::PathBuf;

use clap::Args;

use crate::engine::base::json;
use crate::engine::base::stats::IndexStats;
use crate::engine::base::text::sanitize;
use crate::engine::EngineError;

use super::*;

#[derive(Args, Debug)]
pub struct StatsArgs {
    /// Repository root (default: the current directory).
    pub path: Option<PathBuf>,
    /// Print JSON instead of text (it always lists the skipped and parse-error files).
    #[arg(long)]
    pub json: bool,
    /// List each skipped file (with its reason) and each file with parse errors.
    #[arg(long, short)]
    pub verbose: bool,
    #[command(flatten)]
    pub cache: CacheArgs,
}

pub(super) fn cmd_stats(args: &StatsArgs) -> anyhow::Result<()> {
    let index = match build_index(&args.path, None, args.cache) {
        Ok(index) => index,
        // Nothing to index is still something to count: what the walk found (code in
        // languages without a grammar by extension, docs, skipped files).
        Err(e) => match e.downcast::<EngineError>() {
            Ok(EngineError::RepoEmpty { stats, .. }) => {
                return print_stats(&stats, args.json, args.verbose)
            }
            Ok(other) => return Err(other.into()),
            Err(e) => return Err(e),
        },
    };
    report(&index);
    answered(index.answer_saving(|index| print_stats(&index.stats(), args.json, args.verbose)))
}

pub(super) fn print_stats(stats: &IndexStats, json: bool, verbose: bool) -> anyhow::Result<()> {
    if json {
        return print(&json::to_string_pretty(&crate::contract::StatsDoc::of(
            stats,
        ))?);
    }
    let mut s = String::new();
    use std::fmt::Write as _;
    let _ = writeln!(s, "repo: {}", stats.root);
    let _ = writeln!(s, "files: {} code, {} docs", stats.files, stats.docs);
    for (lang, n) in &stats.files_by_language {
        let _ = writeln!(s, "  {lang:<12} {n}");
    }
    let _ = writeln!(s, "definitions: {}", stats.definitions);
    for (kind, n) in &stats.definitions_by_kind {
        let _ = writeln!(s, "  {kind:<12} {n}");
    }
    let _ = writeln!(s, "references: {}", stats.references);
    for (kind, n) in &stats.references_by_kind {
        let _ = writeln!(s, "  {kind:<12} {n}");
    }
    let _ = writeln!(s, "imports: {}", stats.imports);
    let _ = writeln!(s, "graph edges: {}", stats.graph_edges);
    let _ = writeln!(
        s,
        "parse errors: {} in {} files",
        stats.parse_errors, stats.files_with_parse_errors
    );
    if verbose {
        for f in &stats.parse_error_files {
            let _ = writeln!(s, "  {} ({} errors)", sanitize(&f.path), f.errors);
        }
    }
    let _ = writeln!(s, "skipped:");
    for (reason, n) in &stats.skipped_by_reason {
        let _ = writeln!(s, "  {reason:<12} {n}");
    }
    if verbose {
        for f in &stats.skipped_files {
            let _ = writeln!(s, "  {} ({})", sanitize(&f.path), f.reason.name());
        }
    }
    let _ = writeln!(
        s,
        "no grammar: {} files{}",
        stats.unsupported_files,
        if stats.unsupported_files > 0 {
            " (in the map by path)"
        } else {
            ""
        }
    );
    for (ext, n) in &stats.unsupported_by_extension {
        let language = crate::engine::ingest::lang::unsupported_language(ext).unwrap_or("");
        let _ = writeln!(s, "  {ext:<12} {n:<6} {language}");
    }
    if stats.vendored_files > 0 {
        let _ = writeln!(
            s,
            "vendored: {} files, ranked as tests are",
            stats.vendored_files
        );
        for dir in &stats.vendored_by_licence {
            let _ = writeln!(s, "  {}/ (its own licence and build file)", sanitize(dir));
        }
    }
    let t = stats.times;
    let _ = writeln!(
        s,
        "time: walk {:.1} ms, parse {:.1} ms, graph {:.1} ms",
        t.walk_ms, t.parse_ms, t.graph_ms
    );
    print(&s)
}
