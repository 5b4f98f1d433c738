//! The headless command line: `map`, `stats`, `search`, `refs`, `eval`, `bench`, `cache`, `mcp`,
//! `serve` (and a bare `mapscope [PATH]`). This file holds the argument tree, the dispatch,
//! the error lines and what the commands share (building an index, saving its cache,
//! printing); each command is in the file named after it (`serve` launches MCP and HTTP).
//! Runs on the main thread; the engine parallelizes internally. Errors become one line on
//! stderr (`mapscope: CODE: message`) and exit code 2 — never a panic or a backtrace; a bad
//! command line is `INVALID_ARGUMENT`. Everything written to stdout and stderr goes through
//! `engine::base::text` (no escape sequence from a file name, symbol or argument reaches the
//! terminal) and every JSON document through `engine::base::json`.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::contract::MapOutput;
use crate::contract::{error_line, warn};
use crate::engine::base::text::sanitize_block;
use crate::engine::base::tokenizer::TokenizerKind;
use crate::engine::index::once::Answered;
use crate::engine::index::{Index, IndexOptions};
use crate::engine::ingest::history::HistorySource;
use crate::engine::rank::repo_map::MapFormat;
use crate::engine::EngineError;

mod bench;
mod cache;
mod docs;
mod eval;
mod map;
mod progress;
mod refs;
mod search;
mod serve;
mod stats;
mod warm;

use bench::*;
use cache::*;
use docs::*;
use eval::*;
use map::*;
use refs::*;
use search::*;
use serve::*;
use stats::*;
use warm::*;

#[derive(Parser, Debug)]
#[command(
    name = "mapscope",
    version,
    about = "Explore the token-budgeted repo map an LLM is fed",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Repository to open (default: the current directory).
    pub path: Option<PathBuf>,
    #[command(flatten)]
    pub start: StartArgs,
    #[command(flatten)]
    pub cache: CacheArgs,
}

/// What the explorer starts with (`mapscope . --tokens 2048 --query "…"`); in a pipe the
/// same flags shape the map printed instead. Every one can be changed in the TUI later.
#[derive(Args, Debug, Clone, Default)]
pub struct StartArgs {
    /// Token budget of the map, from 16 to 131072 (the TUI's `+`/`-` walk the same range).
    #[arg(long, allow_negative_numbers = true, value_parser = parse_start_budget)]
    pub tokens: Option<usize>,
    /// Start with this query typed: the hits, and the map steered by it.
    #[arg(long)]
    pub query: Option<String>,
    /// Start with this focus file (repeatable): left out of the map, its neighbours boosted.
    #[arg(long = "focus", value_name = "FILE")]
    pub focus: Vec<String>,
    /// Start with this identifier boosted in the map (repeatable).
    #[arg(long = "ident", value_name = "NAME")]
    pub ident: Vec<String>,
    /// Tokenizer that counts the budget: o200k or cl100k.
    #[arg(long, value_parser = parse_tokenizer)]
    pub tokenizer: Option<TokenizerKind>,
}

fn parse_start_budget(s: &str) -> Result<usize, String> {
    crate::contract::bounded(s, crate::contract::MAP_TOKENS)
}

/// Shared by every command that indexes a repository.
#[derive(Args, Debug, Clone, Copy, Default)]
pub struct CacheArgs {
    /// Neither read nor write the tag cache (in the user's cache dir, never in the repo).
    #[arg(long)]
    pub no_cache: bool,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Print the token-budgeted repo map.
    Map(MapArgs),
    /// Print index statistics: files, tags, graph, skipped files, time per phase.
    Stats(StatsArgs),
    /// Time each phase of a cold build and of re-fitting the map.
    Bench(BenchArgs),
    /// Ranked hits for a query: definitions, references, calls, imports, text.
    Search(SearchArgs),
    /// Who uses a definition and what it uses: each use site with the definition it is in
    /// and how it was bound (an import, the package, a guess by name).
    Refs(RefsArgs),
    /// Retrieval eval on a commit dataset (commit message → changed files).
    Eval(EvalArgs),
    /// Manage the tag cache (kept in the user's cache dir, never in the repository).
    #[command(subcommand)]
    Cache(CacheCommand),
    /// Serve the repo map and search to agents over MCP (JSON-RPC on stdin/stdout).
    Mcp(McpArgs),
    /// Serve search, answers, the map and stats over HTTP on a live index (loopback only
    /// unless --allow-remote).
    Serve(ServeArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    Completions(CompletionsArgs),
    /// Print the man page (roff), of mapscope or of one subcommand.
    Man(ManArgs),
}

fn parse_tokenizer(s: &str) -> Result<TokenizerKind, String> {
    TokenizerKind::parse(s).ok_or_else(|| format!("unknown tokenizer `{s}` (o200k or cl100k)"))
}

fn parse_format(s: &str) -> Result<MapOutput, String> {
    MapOutput::parse(s).ok_or_else(|| format!("unknown format `{s}` (text, markdown or json)"))
}

/// Entry point used by `main`: returns the process exit code.
pub fn main() -> i32 {
    // A panic must never print a backtrace at the user: report one line and exit 2.
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(std::string::ToString::to_string)
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        error_line("INTERNAL_ERROR", &format!("{msg}{at}"));
    }));
    progress::started();
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(line) = misspelt_subcommand(&argv) {
        error_line("INVALID_ARGUMENT", &line);
        return 2;
    }
    let cli = match Cli::try_parse_from(&argv) {
        Ok(cli) => cli,
        // `--help` and `--version` print as usual; a bad command line is one error line.
        Err(e) if !e.use_stderr() => {
            let _ = e.print();
            return 0;
        }
        Err(e) => {
            error_line("INVALID_ARGUMENT", &clap_error_line(&e));
            return 2;
        }
    };
    match std::panic::catch_unwind(|| run(cli)) {
        Ok(Ok(())) => 0,
        // A closed stdout (`mapscope map | head -1`) ends the output the reader wanted:
        // quietly, with status 0, as ripgrep does.
        Ok(Err(e)) if is_broken_pipe(&e) => 0,
        Ok(Err(e)) => {
            report_error(&e);
            2
        }
        Err(_) => 2,
    }
}

/// `mapscope serach x`: clap reads a word that is no subcommand as the repository path, so
/// it never suggests one. A first word that is not an option, not an existing path and not
/// written as a path, but close to a subcommand's name (clap's own measure, Jaro similarity
/// over 0.7), is an unknown subcommand with a suggestion, as clap gives for `cache cleer`.
fn misspelt_subcommand(argv: &[std::ffi::OsString]) -> Option<String> {
    use clap::CommandFactory;
    let word = argv.get(1)?.to_str()?;
    if word.starts_with('-') || word.contains('/') || word.starts_with('.') {
        return None;
    }
    let cmd = Cli::command();
    if cmd.find_subcommand(word).is_some() || std::path::Path::new(word).exists() {
        return None;
    }
    let (similarity, name) = cmd
        .get_subcommands()
        .map(|c| (strsim::jaro(word, c.get_name()), c.get_name().to_string()))
        .max_by(|a, b| a.0.total_cmp(&b.0))?;
    (similarity > 0.7).then(|| {
        format!(
            "unrecognized subcommand '{word}' (did you mean '{name}'?), and no repository \
             '{word}' either (usage: mapscope [OPTIONS] [PATH] or mapscope <COMMAND>; see \
             --help)"
        )
    })
}

/// A clap error as one line: its message (`unexpected argument '--bogus' found`) and the
/// usage it names, without the help text, tips and blank lines clap prints around them.
fn clap_error_line(e: &clap::Error) -> String {
    let rendered = e.render().to_string();
    let usage = rendered
        .lines()
        .find_map(|l| l.trim().strip_prefix("Usage: "))
        .map(str::trim);
    let message = if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        "a subcommand or argument is required".to_string()
    } else {
        // The first paragraph: `error: the following required arguments were not
        // provided:` goes on with the arguments on the lines below it.
        let first: Vec<&str> = rendered
            .lines()
            .map(str::trim)
            .skip_while(|l| l.is_empty())
            .take_while(|l| !l.is_empty())
            .collect();
        match first.join(" ") {
            m if m.is_empty() => e.kind().to_string(),
            m => m.strip_prefix("error: ").unwrap_or(&m).to_string(),
        }
    };
    // clap's suggestions ("tip: a similar argument exists: '--tokens'") stay on the line.
    let tips: Vec<&str> = rendered
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("tip: "))
        .collect();
    let message = if tips.is_empty() {
        message
    } else {
        format!("{message}; {}", tips.join("; "))
    };
    match usage {
        Some(usage) => format!("{message} (usage: {usage}; see --help)"),
        None => message,
    }
}

/// A failure already reported on stdout (the search JSON contract): exit 2, print nothing more.
#[derive(Debug, thiserror::Error)]
#[error("reported")]
struct Reported;

fn report_error(e: &anyhow::Error) {
    if e.downcast_ref::<Reported>().is_some() {
        return;
    }
    match e.downcast_ref::<EngineError>() {
        Some(engine) => error_line(engine.code(), &engine.to_string()),
        None => match (
            e.downcast_ref::<InvalidArgument>(),
            e.downcast_ref::<Coded>(),
        ) {
            (Some(bad), _) => error_line("INVALID_ARGUMENT", &bad.0),
            (None, Some(coded)) => error_line(coded.code, &coded.message),
            (None, None) => error_line("INTERNAL_ERROR", &format!("{e:#}")),
        },
    }
}

/// Whether `e` (or what caused it) is a write to a closed pipe.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// A user error in the arguments (a bad glob, an unknown language): `INVALID_ARGUMENT`, the
/// same code the JSON contract carries.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct InvalidArgument(String);

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Some(Command::Map(args)) => cmd_map(&args),
        Some(Command::Stats(args)) => cmd_stats(&args),
        Some(Command::Bench(args)) => cmd_bench(&args),
        Some(Command::Search(args)) => cmd_search(&args),
        Some(Command::Refs(args)) => cmd_refs(&args),
        Some(Command::Eval(args)) => cmd_eval(&args),
        Some(Command::Cache(cmd)) => cmd_cache(&cmd),
        Some(Command::Mcp(args)) => cmd_mcp(&args),
        Some(Command::Serve(args)) => cmd_serve(&args),
        Some(Command::Completions(args)) => cmd_completions(&args),
        Some(Command::Man(args)) => cmd_man(&args),
        None => {
            // A detached helper that keeps a copied text on the X11/Wayland clipboard after
            // the TUI exits (see app::clipboard).
            if std::env::var_os(crate::app::clipboard::SERVE_ENV).is_some() {
                return match crate::app::clipboard::serve_from_stdin() {
                    0 => Ok(()),
                    _ => Err(anyhow::anyhow!("clipboard server failed")),
                };
            }
            // On a terminal: the interactive explorer. In a pipe or a script: the map, as
            // before, so `mapscope . | head` keeps working.
            use std::io::IsTerminal;
            if std::io::stdout().is_terminal() && std::io::stdin().is_terminal() {
                let start = crate::app::run::Start {
                    budget: cli.start.tokens,
                    query: cli.start.query.clone(),
                    focus: cli.start.focus.clone(),
                    idents: cli.start.ident.clone(),
                    tokenizer: cli.start.tokenizer,
                };
                return crate::app::run::run(&repo_path(&cli.path), !cli.cache.no_cache, start)
                    .inspect_err(|e| {
                        // A bad config file is the user's to fix, not an internal error.
                        if let Some(c) = e.downcast_ref::<crate::app::config::ConfigError>() {
                            error_line("CONFIG_ERROR", &c.to_string());
                            std::process::exit(2);
                        }
                    });
            }
            // The start flags shape the map printed, as they would the explorer's.
            cmd_map(&MapArgs {
                path: cli.path,
                tokens: cli
                    .start
                    .tokens
                    .unwrap_or(crate::contract::MAP_DEFAULT_TOKENS),
                focus: cli.start.focus,
                ident: cli.start.ident,
                query: cli.start.query,
                no_history: false,
                include: Vec::new(),
                exclude: Vec::new(),
                lang: Vec::new(),
                explain: Vec::new(),
                tokenizer: cli.start.tokenizer.unwrap_or(TokenizerKind::O200k),
                format: MapOutput::Map(MapFormat::Text),
                max_file_size: 1024 * 1024,
                cache: cli.cache,
            })
        }
    }
}

fn repo_path(path: &Option<PathBuf>) -> PathBuf {
    path.clone().unwrap_or_else(|| PathBuf::from("."))
}

fn build_index(
    path: &Option<PathBuf>,
    max_file_size: Option<u64>,
    cache: CacheArgs,
) -> anyhow::Result<Index> {
    build_index_with(
        path,
        max_file_size,
        cache,
        Purpose::Other,
        HistorySource::Off,
    )
}

/// What a command builds its index for, which decides what the build keeps and reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Purpose {
    /// Only maps without a query: prose/config files stay unread, each file keeps only the
    /// lines a map renders, and the graph build frees the references as it binds them
    /// (`IndexOptions::skip_docs`, `map_lines_only`, `consume_refs`).
    Map,
    /// A search right after the build: its index is read beside the build
    /// (`IndexOptions::search_soon`).
    Search,
    /// Anything else (stats, refs, explain).
    Other,
}

/// Unchanged files are taken from the cache unread, their text read only where an answer
/// shows it (`IndexOptions::lazy_sources`): a one-shot command shows few of them.
fn build_index_with(
    path: &Option<PathBuf>,
    max_file_size: Option<u64>,
    cache: CacheArgs,
    purpose: Purpose,
    history: HistorySource,
) -> anyhow::Result<Index> {
    let map_only = purpose == Purpose::Map;
    let mut opts = IndexOptions {
        use_cache: !cache.no_cache,
        skip_docs: map_only,
        map_lines_only: map_only,
        consume_refs: map_only,
        lazy_sources: true,
        search_soon: purpose == Purpose::Search,
        lazy_links: purpose == Purpose::Search,
        history,
        ..IndexOptions::default()
    };
    if let Some(max) = max_file_size {
        opts.walk.max_file_size = max;
    }
    let root = repo_path(path);
    Ok(progress::with_progress(|p| {
        Index::build_with_progress(&root, &opts, &|step| p.build(step))
    })?)
}

/// Says on stderr what the index has to tell (`Index::warnings`), once a command has built
/// what it answers from.
fn report(index: &Index) {
    for warning in index.warnings() {
        warn(warning);
    }
}

/// A one-shot call's output, after saying why the cache could not be saved if it could not.
fn answered<T>(answered: Answered<T>) -> T {
    if let Some(why) = answered.save_error {
        warn(&why);
    }
    answered.output
}

/// Writes a command's output to stdout; whatever a name or a symbol in it holds, nothing a
/// terminal could act on gets through (`engine::base::text::sanitize_block`).
fn print(text: &str) -> anyhow::Result<()> {
    let text = sanitize_block(text);
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    if !text.ends_with('\n') {
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// Every argument of every command says what it is for in `--help`.
    #[test]
    fn every_argument_has_a_description() {
        fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for arg in cmd.get_arguments() {
                let id = arg.get_id().as_str();
                if id == "help" || id == "version" {
                    continue;
                }
                if arg.get_help().is_none() && arg.get_long_help().is_none() {
                    missing.push(format!("{path} {id}"));
                }
            }
            for sub in cmd.get_subcommands() {
                walk(sub, &format!("{path} {}", sub.get_name()), missing);
            }
        }
        let mut missing = Vec::new();
        walk(&Cli::command(), "mapscope", &mut missing);
        assert!(missing.is_empty(), "no --help text: {missing:?}");
    }

    #[test]
    fn search_words_are_joined() {
        let words = |v: &[&str]| {
            v.iter()
                .map(std::string::ToString::to_string)
                .collect::<Vec<_>>()
        };
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display().to_string();
        let (p, q) = split_search_args(&words(&[&d, "cors", "preflight"])).unwrap();
        assert_eq!((p, q.as_str()), (Some(PathBuf::from(&d)), "cors preflight"));
        let (p, q) = split_search_args(&words(&["no-such-dir-xyz", "cors", "preflight"])).unwrap();
        assert_eq!((p, q.as_str()), (None, "no-such-dir-xyz cors preflight"));
        let (p, q) = split_search_args(&words(&[&d, "cors"])).unwrap();
        assert_eq!((p, q.as_str()), (Some(PathBuf::from(&d)), "cors"));
        let (p, q) = split_search_args(&words(&["cors preflight"])).unwrap();
        assert_eq!((p, q.as_str()), (None, "cors preflight"));
        // Two words that are not a directory are both the query; a path-like first word is
        // the repository even when it is missing (REPO_NOT_FOUND later).
        let (p, q) = split_search_args(&words(&["route-xyz", "fallback"])).unwrap();
        assert_eq!((p, q.as_str()), (None, "route-xyz fallback"));
        let (p, q) = split_search_args(&words(&["./missing-xyz", "fallback"])).unwrap();
        assert_eq!(
            (p, q.as_str()),
            (Some(PathBuf::from("./missing-xyz")), "fallback")
        );
        assert!(
            split_search_args(&words(&[&d])).is_err(),
            "a directory alone"
        );
    }

    #[test]
    fn broken_pipes_are_recognised_through_context() {
        let e = anyhow::Error::from(std::io::Error::from(std::io::ErrorKind::BrokenPipe))
            .context("writing the map");
        assert!(is_broken_pipe(&e));
        assert!(!is_broken_pipe(&anyhow::anyhow!("other")));
    }
}
