//! `mapscope map`: the repo map for a budget (text, markdown or JSON), `--explain`, the
//! cut list. Runs on the main thread.

use std::path::PathBuf;

use clap::Args;

use crate::contract::MapOutput;
use crate::engine::base::json;
use crate::engine::base::scope::{Scope, ScopeSpec};
use crate::engine::base::tokenizer::TokenizerKind;
use crate::engine::index::{Index, MapRequest};
use crate::engine::ingest::history::HistorySource;
use crate::engine::rank::repo_map::{MapFormat, RepoMap};

use super::*;

#[derive(Args, Debug, Clone)]
pub struct MapArgs {
    /// Repository root (default: the current directory).
    pub path: Option<PathBuf>,
    /// Token budget of the map (any whole number: a budget too small for anything gives an
    /// empty map and a note naming the smallest useful one).
    #[arg(long, default_value_t = crate::contract::MAP_DEFAULT_TOKENS, allow_negative_numbers = true,
          value_parser = parse_budget)]
    pub tokens: usize,
    /// A focus file (like aider's chat files): left out of the map, its neighbours boosted.
    #[arg(long = "focus", value_name = "FILE")]
    pub focus: Vec<String>,
    /// An identifier to boost.
    #[arg(long = "ident", value_name = "NAME")]
    pub ident: Vec<String>,
    /// The task in free text (a question, a commit message): the files search finds for it
    /// come first in the map with their matching definitions, and personalize the ranking.
    #[arg(long)]
    pub query: Option<String>,
    /// Leave the commit history out of the search behind `--query`.
    #[arg(long)]
    pub no_history: bool,
    /// Rank and show only paths matching this pattern (gitignore syntax, relative to the
    /// root; repeatable). The graph still learns from every file.
    #[arg(long, value_name = "GLOB")]
    pub include: Vec<String>,
    /// Rank and show no path matching this pattern (gitignore syntax, relative to the root;
    /// repeatable). The graph still learns from every file.
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
    #[arg(
        long,
        value_delimiter = ',',
        help = crate::engine::base::scope::lang_help("Rank and show only these languages")
    )]
    pub lang: Vec<String>,
    /// Instead of the map, say why FILE is in it (which signals) or why not (its rank, the
    /// cut-off, its cheapest definition's cost, and the budget or steering that would bring
    /// it in). Repeatable; `--format json` gives JSON. Without FILE: the cut list, the
    /// best-ranked definitions that did not fit with their cost and the budget that would
    /// take the first (`--format json` always carries it).
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "")]
    pub explain: Vec<String>,
    /// Tokenizer used to count the budget: o200k (o200k_base) or cl100k (cl100k_base).
    #[arg(long, default_value = "o200k", value_parser = parse_tokenizer)]
    pub tokenizer: TokenizerKind,
    /// Output format: text (what the LLM sees), markdown, json.
    #[arg(long, default_value = "text", value_parser = parse_format)]
    pub format: MapOutput,
    /// Largest file to index, in bytes.
    #[arg(long, default_value_t = 1024 * 1024)]
    pub max_file_size: u64,
    #[command(flatten)]
    pub cache: CacheArgs,
}

/// `map --tokens`: a count of tokens, so `-5` or `2k` is refused in words (clap alone took
/// `-5` for an unknown option).
pub(super) fn parse_budget(s: &str) -> Result<usize, String> {
    s.trim()
        .parse::<usize>()
        .map_err(|_| "must be a whole number of tokens, 0 or more".to_string())
}

pub(super) fn map_request(args: &MapArgs) -> MapRequest {
    MapRequest {
        budget: args.tokens,
        tokenizer: args.tokenizer,
        focus: args.focus.clone(),
        idents: args.ident.clone(),
        query: args.query.clone(),
        // The JSON map and the text cut list say which budget would take the first cut.
        next_budget: args.format == MapOutput::Json || args.explain.iter().any(String::is_empty),
        scope: map_scope(args),
        ..MapRequest::default()
    }
}

pub(super) fn map_scope(args: &MapArgs) -> ScopeSpec {
    ScopeSpec {
        include: args.include.clone(),
        exclude: args.exclude.clone(),
        langs: args.lang.clone(),
    }
}

pub(super) fn cmd_map(args: &MapArgs) -> anyhow::Result<()> {
    // A bad pattern or language is the user's to fix, before any work.
    Scope::new(&map_scope(args)).map_err(|e| InvalidArgument(e.to_string()))?;
    // Without a query the map never shows prose or config files, nor most lines of code
    // files: don't keep them. A query is searched first, which reads them all (and the
    // history, as `mapscope search` does).
    let has_query = args.query.as_deref().is_some_and(|q| !q.trim().is_empty());
    let history = if has_query && !args.no_history {
        HistorySource::Repo
    } else {
        HistorySource::Off
    };
    let explaining = !args.explain.is_empty();
    let index = build_index_with(
        &args.path,
        Some(args.max_file_size),
        args.cache,
        if has_query {
            Purpose::Search
        } else if explaining {
            Purpose::Other
        } else {
            Purpose::Map
        },
        history,
    )?;
    report(&index);
    // Decided before the map consumes the index; started once the output is written.
    let warm = wanted_after_map(&index, has_query).then(|| index.root.clone());
    let shown = if explaining {
        answered(index.answer_saving(|index| explain_map(index, args)))
    } else if args.format == MapOutput::Map(MapFormat::Markdown) {
        // Markdown is fitted again when its fences take it over the budget, which needs the
        // ranking (`map_once` drops the graph behind it).
        answered(index.answer_saving(|index| print_markdown(index, args)))
    } else {
        answered(index.map_once_saving(&map_request(args), |map, index| {
            print_map(map, index, args.format)
        }))
    };
    if let (Ok(()), Some(root)) = (&shown, warm) {
        start_detached(&root);
    }
    shown
}

/// `map --explain FILE…`: why each file is in the map or not. `--explain` without a file:
/// the cut list (the JSON map, which carries it, with `--format json`).
pub(super) fn explain_map(index: &Index, args: &MapArgs) -> anyhow::Result<()> {
    use crate::engine::index::explain::{explain_file, render_cut_text, render_text};
    let req = map_request(args);
    let (map, ranked) = index.map(&req);
    let files: Vec<&String> = args.explain.iter().filter(|f| !f.is_empty()).collect();
    if files.is_empty() {
        if args.format == MapOutput::Map(MapFormat::Text) {
            print(&render_cut_text(&map))?;
        } else {
            print(&args.format.render(&map, index))?;
        }
        for note in &map.notes {
            crate::contract::note(note);
        }
        return Ok(());
    }
    let explained: Vec<_> = files
        .iter()
        .map(|f| explain_file(index, &req, &ranked, &map, f))
        .collect();
    if args.format == MapOutput::Json {
        let docs: Vec<_> = explained
            .iter()
            .map(crate::contract::ExplainDoc::of)
            .collect();
        return print(&json::to_string_pretty(&docs)?);
    }
    let text: Vec<String> = explained.iter().map(render_text).collect();
    print(&text.join("\n"))?;
    for note in &map.notes {
        crate::contract::note(note);
    }
    Ok(())
}

/// `map --format markdown`: the markdown within the budget, counted as markdown (its path
/// lines and fences cost tokens the text map does not have), then the notes.
fn print_markdown(index: &Index, args: &MapArgs) -> anyhow::Result<()> {
    let req = map_request(args);
    let (map, ranked) = index.map(&req);
    let markdown = crate::contract::markdown_map(index, &ranked, &req, &map);
    print_map(&markdown, index, MapOutput::Map(MapFormat::Text))
}

/// Prints the map, then each note about the request on stderr (and in JSON's `notes`).
pub(super) fn print_map(map: &RepoMap, index: &Index, format: MapOutput) -> anyhow::Result<()> {
    let with_note;
    let mut map = map;
    if let Some(note) = budget_note(map) {
        let mut noted = map.clone();
        noted.notes.push(note);
        with_note = noted;
        map = &with_note;
    }
    print(&format.render(map, index))?;
    for note in &map.notes {
        crate::contract::note(note);
    }
    Ok(())
}

/// When the budget fits no definition at all, says so and names the smallest budget that
/// fits the first one (the fit takes definitions in rank order and stops at the first that
/// does not fit, so that one's cost is exactly the budget that makes the map non-empty).
pub(super) fn budget_note(map: &RepoMap) -> Option<String> {
    if !map.files.is_empty() {
        return None;
    }
    let first = map.cut.first()?;
    Some(format!(
        "a budget of {} tokens fits no definition: the best-ranked one (`{}` in {}) needs {}; \
         the smallest useful budget is --tokens {}",
        map.budget, first.name, first.path, first.tokens, first.tokens
    ))
}
