//! `mapscope eval --symbols REPO…`: symbol look-ups scored against universal-ctags (the
//! eval is `measure::symbols`; this file gives it the search `mapscope search --json --top 5
//! --answer` runs and prints its report). Runs on the main thread.

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;

use crate::contract::{error_line, SearchDoc, SearchTimes};
use crate::engine::answer::AnswerStyle;
use crate::engine::base::json;
use crate::engine::base::text::sanitize;
use crate::engine::index::Index;
use crate::engine::search::SearchOptions;
use crate::measure::symbols::{run, table, SymbolEvalError, SymbolEvalOptions, SEARCH_TOP};

use super::super::{print, Reported};

#[derive(Args, Debug)]
pub struct SymbolArgs {
    /// Score symbol look-ups on these repositories against universal-ctags (`ctags`): names
    /// defined once, typed bare and as "where is X defined", and qualified `Scope.name` /
    /// `Scope::name` for names defined several times (the method of shared/eval/symbols.py).
    #[arg(long = "symbols", id = "symbols", value_name = "REPO", num_args = 1..,
          conflicts_with_all = ["dataset", "git_dir", "from_report", "map"])]
    pub repos: Vec<PathBuf>,
    /// With --symbols: names sampled per set and repository.
    #[arg(long, default_value_t = 60, requires = "symbols")]
    pub sample: usize,
    /// With --symbols: the seed of the sample (the same seed draws the same names as
    /// symbols.py --seed).
    #[arg(long, default_value_t = 1, requires = "symbols")]
    pub seed: u64,
    /// With --symbols: the universal-ctags executable.
    #[arg(
        long,
        value_name = "BIN",
        default_value = "ctags",
        requires = "symbols"
    )]
    pub ctags: PathBuf,
}

/// `eval --symbols`: the table, or the JSON report (every look-up with its top sources);
/// with `report`, the table and the JSON written to that file.
pub(in crate::cli) fn cmd_eval_symbols(
    args: &SymbolArgs,
    as_json: bool,
    report_to: Option<&Path>,
) -> anyhow::Result<()> {
    let opts = SymbolEvalOptions {
        repos: args.repos.clone(),
        sample: args.sample,
        seed: args.seed,
        ctags: args.ctags.clone(),
    };
    // What `mapscope search --json --top 5 --answer` prints without an LLM configured: the
    // same search, and the same document with its extractive answer.
    let search_opts = SearchOptions {
        top: SEARCH_TOP,
        ..SearchOptions::default()
    };
    let mut search = |index: &Index, query: &str| {
        let response = index.search(query, &search_opts);
        let times = SearchTimes::default();
        SearchDoc::of(index, query, &response, times, AnswerStyle::Default, &[]).into_value()
    };
    let mut progress = |repo: &str, done: usize, total: usize| {
        if !as_json {
            eprint!("\r{}: {done}/{total}", sanitize(repo));
            if done == total {
                eprintln!();
            }
        }
    };
    let report = match run(&opts, &mut search, &mut progress) {
        Ok(report) => report,
        Err(e) => {
            if let Some(missing) = e.downcast_ref::<SymbolEvalError>() {
                error_line(missing.code(), &missing.to_string());
                return Err(Reported.into());
            }
            return Err(e);
        }
    };
    if as_json || report_to.is_some() {
        let text = json::to_string_pretty(&report)?;
        if let Some(path) = report_to {
            std::fs::write(path, &text).with_context(|| format!("writing {}", path.display()))?;
        }
        if as_json {
            return print(&text);
        }
    }
    print(&table(&report))
}
