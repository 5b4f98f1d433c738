//! `mapscope search`: ranked hits (text or the JSON contract), the extractive answer,
//! extra sources. Runs on the main thread.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use clap::Args;

use crate::contract::{answer, no_words_note, warn, SearchDoc, SearchTimes, SourceHits};
use crate::engine::answer::AnswerStyle;
use crate::engine::base::json;
use crate::engine::base::text::sanitize;
use crate::engine::ingest::history::HistorySource;
use crate::engine::search::sources::{check_sources, SourceSpec};
use crate::engine::search::{Evidence, SearchOptions, SearchResponse};
use crate::engine::EngineError;

use super::*;

#[derive(Args, Debug)]
pub struct SearchArgs {
    /// `[PATH] QUERY…`: the repository (default `.`: the first word is taken as the path
    /// only when it names a directory and more words follow) and the query; several words
    /// are joined with spaces, so quotes are optional.
    #[arg(num_args = 1.., required = true, value_name = "[PATH] QUERY")]
    pub args: Vec<String>,
    /// Number of hits (or files with --files), from 1 to 50.
    #[arg(long, default_value_t = crate::contract::SEARCH_DEFAULT_TOP, allow_negative_numbers = true,
          value_parser = parse_top)]
    pub top: usize,
    /// Rank distinct files instead of hits.
    #[arg(long)]
    pub files: bool,
    /// Only paths matching this glob (repeatable; `!GLOB` excludes).
    #[arg(long = "paths", value_name = "GLOB")]
    pub paths: Vec<String>,
    #[arg(
        long,
        value_delimiter = ',',
        help = crate::engine::base::scope::lang_help("Only these languages")
    )]
    pub lang: Vec<String>,
    /// Only paths matching this pattern (gitignore syntax, relative to the root; repeatable).
    #[arg(long, value_name = "GLOB")]
    pub include: Vec<String>,
    /// Leave out paths matching this pattern (gitignore syntax, relative to the root;
    /// repeatable).
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
    /// Print the JSON contract instead of text.
    #[arg(long)]
    pub json: bool,
    /// Show the signal breakdown of each hit (text output).
    #[arg(long)]
    pub explain: bool,
    /// Print the answer above the hits: written by the LLM named in MAPSCOPE_LLM_URL and
    /// MAPSCOPE_LLM_MODEL from the top hits, else (or on any failure) extractive, built from the
    /// hits without a model. The JSON always carries the extractive one as `answer`, the
    /// LLM's with --answer.
    #[arg(long)]
    pub answer: bool,
    /// Also search this read-only root after the project (a library of examples, a
    /// vendored dependency, a sibling repository), as NAME=PATH; repeatable. Its hits carry
    /// `source` NAME.
    #[arg(long = "source", value_name = "NAME=PATH")]
    pub sources: Vec<String>,
    /// How much the answer says: concise, default or detailed.
    #[arg(long, value_name = "STYLE", default_value = "default", value_parser = parse_answer_style)]
    pub answer_style: AnswerStyle,
    /// Do not read the repository's commit history (`git log`), one of the signals.
    #[arg(long)]
    pub no_history: bool,
    #[command(flatten)]
    pub cache: CacheArgs,
}

/// `--top`: the bound every door takes (`contract::SEARCH_TOP`), refused outside it rather
/// than clamped, so a script asking for 100 learns it gets 50.
fn parse_top(s: &str) -> Result<usize, String> {
    crate::contract::bounded(s, crate::contract::SEARCH_TOP)
}

pub(super) fn parse_answer_style(name: &str) -> Result<AnswerStyle, String> {
    AnswerStyle::parse(name).ok_or_else(|| format!("expected one of {}", AnswerStyle::NAMES))
}

/// `[PATH] QUERY…` → (path, query). The first word is the repository when it names a
/// directory, or looks like a path (`./x`, `../x`, `~/x`, `a/b`: a missing one is then
/// `REPO_NOT_FOUND`), and more words follow; otherwise every word is the query, joined with
/// spaces (`search route fallback` inside a repository searches for "route fallback").
/// A directory alone is a search without a query: refused, with the two ways to say it.
pub(super) fn split_search_args(args: &[String]) -> anyhow::Result<(Option<PathBuf>, String)> {
    match args {
        [] => Err(InvalidArgument("usage: mapscope search [PATH] QUERY".to_string()).into()),
        [only] if Path::new(only).is_dir() => Err(InvalidArgument(format!(
            "no query: `{only}` is a directory; give the words to search for \
             (`mapscope search {only} WORDS…`), or `mapscope search . {only}` to search for \
             the word itself"
        ))
        .into()),
        [query] => Ok((None, query.clone())),
        [first, rest @ ..] if Path::new(first).is_dir() || looks_like_path(first) => {
            Ok((Some(PathBuf::from(first)), rest.join(" ")))
        }
        words => Ok((None, words.join(" "))),
    }
}

/// A word written as a path rather than a query word: it has a separator or starts like a
/// relative or home path.
fn looks_like_path(word: &str) -> bool {
    word.contains('/')
        || word.contains(std::path::MAIN_SEPARATOR)
        || word.starts_with('.')
        || word.starts_with('~')
}

pub(super) fn cmd_search(args: &SearchArgs) -> anyhow::Result<()> {
    let (path, query) = split_search_args(&args.args)?;
    let opts = SearchOptions {
        top: args.top,
        files_mode: args.files,
        path_globs: args.paths.clone(),
        langs: args.lang.clone(),
        include: args.include.clone(),
        exclude: args.exclude.clone(),
    };
    if let Err(e) = opts.validate() {
        if args.json {
            print_search_error(&e.to_string(), "INVALID_ARGUMENT")?;
            return Err(Reported.into());
        }
        return Err(InvalidArgument(e.to_string()).into());
    }
    let specs = match checked_sources(&repo_path(&path), &args.sources) {
        Ok(specs) => specs,
        Err(e) if args.json => {
            print_search_error(&e.to_string(), "INVALID_ARGUMENT")?;
            return Err(Reported.into());
        }
        Err(e) => return Err(e),
    };
    let t = Instant::now();
    let history = if args.no_history {
        HistorySource::Off
    } else {
        HistorySource::Repo
    };
    let index = match build_index_with(&path, None, args.cache, Purpose::Search, history) {
        Ok(index) => index,
        Err(e) if args.json => {
            let code = e
                .downcast_ref::<EngineError>()
                .map_or("INTERNAL_ERROR", EngineError::code);
            print_search_error(&format!("{e:#}"), code)?;
            return Err(Reported.into());
        }
        Err(e) => return Err(e),
    };
    let (_, search_build_ms) = progress::with_progress(|p| {
        p.step("building the search index");
        index.search_index()
    });
    report(&index);
    let index_ms = t.elapsed().as_secs_f64() * 1000.0;
    let response = index.search(&query, &opts);
    let extra = search_sources(&specs, &query, &opts, args.cache)?;
    // `--answer` with an LLM configured: the model writes the answer from the hits (after
    // the search, before the output; the extractive answer on any failure).
    let llm = if args.answer {
        crate::engine::answer::llm::LlmConfig::from_env()
    } else {
        None
    };
    let shown = answered(index.answer_saving(|index| {
        let document = |synthesized: bool| {
            let times = SearchTimes {
                index_ms,
                search_index_ms: search_build_ms,
            };
            let mut document =
                SearchDoc::of(index, &query, &response, times, args.answer_style, &extra);
            if synthesized {
                document.synthesize(args.answer_style, &llm);
            }
            document
        };
        if args.json {
            return print(&json::to_string_pretty(
                &document(llm.is_some()).into_value(),
            )?);
        }
        let mut text = search_text(&query, &response, args.files, args.explain);
        if args.answer {
            let answer = if llm.is_none() {
                answer(index, &response, args.answer_style)
            } else {
                let document = document(true);
                if let Some((code, why)) = document.llm_error() {
                    warn(&format!("{code}: {why}; the answer is extractive"));
                }
                document.answer().to_string()
            };
            text.insert_str(0, &format!("{answer}\n\n"));
        }
        for x in &extra {
            text.push_str(&format!("\n[{}] {}\n", x.name, sanitize(&x.root)));
            text.push_str(&search_text(&query, &x.response, args.files, args.explain));
        }
        print(&text)
    }));
    // The process exits next: freeing every file's tags one by one would cost more than
    // the search (as `Index::map_once_saving` says of a map).
    std::mem::forget(index);
    shown
}

/// The `--source NAME=PATH` arguments, parsed and checked against the project at `root`.
pub(super) fn checked_sources(root: &Path, given: &[String]) -> anyhow::Result<Vec<SourceSpec>> {
    let specs = given
        .iter()
        .map(|s| SourceSpec::parse(s))
        .collect::<Result<Vec<_>, _>>()
        .and_then(|specs| check_sources(root, &specs));
    specs.map_err(|e| InvalidArgument(e.to_string()).into())
}

/// `--source NAME=PATH`: each source indexed like the project (its own cache, read-only,
/// without history: reference code's past commits say nothing about this task) and
/// searched with the same options.
pub(super) fn search_sources(
    specs: &[SourceSpec],
    query: &str,
    opts: &SearchOptions,
    cache: CacheArgs,
) -> anyhow::Result<Vec<SourceHits>> {
    specs
        .iter()
        .map(|spec| {
            let path = Some(spec.path.clone());
            let index = build_index_with(&path, None, cache, Purpose::Search, HistorySource::Off)
                .with_context(|| format!("source `{}`", spec.name))?;
            report(&index);
            if let Err(e) = index.save_cache() {
                warn(&format!(
                    "could not save the cache of source `{}`: {e}",
                    spec.name
                ));
            }
            Ok(SourceHits::search(
                &spec.name, &spec.path, &index, query, opts,
            ))
        })
        .collect()
}

pub(super) fn print_search_error(error: &str, code: &str) -> anyhow::Result<()> {
    print(&json::to_string_pretty(&serde_json::json!({
        "success": false, "error": error, "code": code,
    }))?)
}

pub(super) fn evidence_name(e: Evidence) -> &'static str {
    e.name()
}

/// One line per hit: `path:start-end  evidence  kind  symbol  score`; a text hit's matched
/// line follows it (`    > line`). A low-confidence result is headed by a line saying so.
pub(super) fn search_text(
    query: &str,
    r: &SearchResponse,
    files_mode: bool,
    explain: bool,
) -> String {
    use std::fmt::Write as _;
    if r.hits.is_empty() && r.files.is_empty() {
        return match no_words_note(r) {
            Some(note) => format!("no confident hits for {query:?}: {note}\n"),
            None => format!("no confident hits for {query:?}\n"),
        };
    }
    let mut s = String::new();
    if r.low_score {
        // No hit covers most of the query's words, but the nearest ones are often what a
        // partial query meant ("handle proxy authentication" → `class Proxy`); the TUI and
        // the JSON list them too, so the text says how sure they are rather than hiding them.
        let _ = writeln!(
            s,
            "no confident hits for {query:?}: no hit matches most of its words; the nearest:"
        );
    }
    if files_mode {
        for (path, score) in &r.files {
            let _ = writeln!(s, "{}  {score:.3}", sanitize(path));
        }
        return s;
    }
    for h in &r.hits {
        let _ = writeln!(
            s,
            "{}:{}-{}  {}  {}  {}  {:.3}",
            sanitize(&h.file_path),
            h.line_range.start,
            h.line_range.end,
            evidence_name(h.evidence),
            sanitize(h.kind.as_deref().unwrap_or("-")),
            sanitize(h.symbol.as_deref().unwrap_or("-")),
            h.score
        );
        if h.evidence == Evidence::Text && !h.excerpt.is_empty() {
            // What matched: the symbol column has the word, this the line it is on.
            let _ = writeln!(s, "    > {}", h.excerpt);
        }
        if explain {
            let g = &h.signals;
            let _ = writeln!(
                s,
                "    bm25 {:.3}  name {:.3}  path {:.3}  graph {:.3}  prior {:.3}  penalty {:.2}  \
                 history {:.3}",
                g.bm25, g.name, g.path, g.graph, g.prior, g.penalty, g.history
            );
        }
    }
    s
}
