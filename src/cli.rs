//! The headless command line: `map`, `stats`, `search`, `eval`, `bench`, `cache`, `mcp` (and a
//! bare `mapscope [PATH]`).
//! Runs on the main thread; the engine parallelizes internally. Errors become one line on
//! stderr (`mapscope: CODE: message`) and exit code 2 — never a panic or a backtrace; a bad
//! command line is `INVALID_ARGUMENT`. Everything written to stdout and stderr goes through
//! `engine::text` (no escape sequence from a file name, symbol or argument reaches the
//! terminal) and every JSON document through `engine::json`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use clap::{Args, Parser, Subcommand};

use crate::bench_stats::median;
use crate::contract::{answer, no_words_note, search_json, SourceHits};
use crate::engine::answer::AnswerStyle;
use crate::engine::history::HistorySource;
use crate::engine::index::{Index, IndexOptions, MapRequest};
use crate::engine::json;
use crate::engine::repo_map::{render, MapFormat, RepoMap};
use crate::engine::scope::{Scope, ScopeSpec};
use crate::engine::search::{
    Evidence, SearchContext, SearchIndex, SearchOptions, SearchResponse, SearchWeights, MAX_TOP,
};
use crate::engine::sources::{check_sources, SourceSpec};
use crate::engine::text::{sanitize, sanitize_block};
use crate::engine::tokenizer::{tokenizer, TokenizerKind};
use crate::engine::EngineError;

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
    pub cache: CacheArgs,
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
}

#[derive(Args, Debug)]
pub struct McpArgs {
    #[command(flatten)]
    pub live: LiveArgs,
}

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on, host:port (a port of 0 picks a free one; the address is printed
    /// on stderr).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:7431")]
    pub http: String,
    /// Listen on a non-loopback address too: anyone who can reach it can read the code.
    #[arg(long)]
    pub allow_remote: bool,
    #[command(flatten)]
    pub live: LiveArgs,
}

/// What a server front door (`mcp`, `serve`) keeps live.
#[derive(Args, Debug)]
pub struct LiveArgs {
    /// Repository to serve (default: the current directory).
    pub path: Option<PathBuf>,
    /// Also search this read-only root after the project, as NAME=PATH; repeatable.
    #[arg(long = "source", value_name = "NAME=PATH")]
    pub sources: Vec<String>,
    /// Do not read the repository's commit history (`git log`) for search.
    #[arg(long)]
    pub no_history: bool,
    /// Index once at startup and do not watch the files for changes.
    #[arg(long)]
    pub no_watch: bool,
    #[command(flatten)]
    pub cache: CacheArgs,
}

/// A server's repository, index options and extra sources. A mistyped path is reported at
/// once (the client sees the server fail to start); an empty repository is served, and
/// reported by each request until it has files.
fn live_setup(args: &LiveArgs) -> anyhow::Result<(PathBuf, IndexOptions, Vec<SourceSpec>)> {
    let root = repo_path(&args.path);
    if !root.exists() {
        return Err(EngineError::RepoNotFound(root).into());
    }
    if !root.is_dir() {
        return Err(EngineError::InvalidRepo(root).into());
    }
    let opts = IndexOptions {
        use_cache: !args.cache.no_cache,
        history: if args.no_history {
            HistorySource::Off
        } else {
            HistorySource::Repo
        },
        ..IndexOptions::default()
    };
    let sources = checked_sources(&root, &args.sources)?;
    Ok((root, opts, sources))
}

#[derive(Subcommand, Debug)]
pub enum CacheCommand {
    /// Remove the cache of one repository (default: the current directory), or all caches.
    Clear {
        /// Repository whose cache to remove (default: the current directory).
        path: Option<PathBuf>,
        /// Remove every repository's cache.
        #[arg(long, conflicts_with = "path")]
        all: bool,
    },
    /// Print where the cache of a repository lives.
    Path {
        /// Repository whose cache to locate (default: the current directory).
        path: Option<PathBuf>,
    },
}

#[derive(Args, Debug)]
pub struct SearchArgs {
    /// `[PATH] QUERY…`: the repository (default `.`: the first word is taken as the path
    /// only when it names a directory and more words follow) and the query; several words
    /// are joined with spaces, so quotes are optional.
    #[arg(num_args = 1.., required = true, value_name = "[PATH] QUERY")]
    pub args: Vec<String>,
    /// Number of hits (or files with --files), at most 50.
    #[arg(long, default_value_t = 8)]
    pub top: usize,
    /// Rank distinct files instead of hits.
    #[arg(long)]
    pub files: bool,
    /// Only paths matching this glob (repeatable; `!GLOB` excludes).
    #[arg(long = "paths", value_name = "GLOB")]
    pub paths: Vec<String>,
    /// Only these languages: ts,js,py,go,rs,java,c,cs,rb,php.
    #[arg(long, value_delimiter = ',')]
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
    /// Print the extractive answer (built from the hits, no model) above the hits; the JSON
    /// always carries it as `answer`.
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

fn parse_answer_style(name: &str) -> Result<AnswerStyle, String> {
    AnswerStyle::parse(name).ok_or_else(|| format!("expected one of {}", AnswerStyle::NAMES))
}

#[derive(Args, Debug)]
pub struct EvalArgs {
    /// The dataset (JSON lines: commit, parent, query, gold_files, …). Repeat
    /// `--dataset D --git-dir G` to run several datasets in one pass (paired in order).
    #[arg(long, required_unless_present = "from_report")]
    pub dataset: Vec<PathBuf>,
    /// A bare git directory (or a repo's .git) holding the dataset's commits; one per
    /// `--dataset`.
    #[arg(long, required_unless_present = "from_report")]
    pub git_dir: Vec<PathBuf>,
    /// Leave one dataset out: for each dataset, the `--weights` variant chosen on the other
    /// datasets (lowest mean of ln(1 − hit@8) + ln(1 − recall@8)) and its figures on the
    /// held-out one, next to the in-sample table.
    #[arg(long)]
    pub leave_one_out: bool,
    /// With several datasets: also write the JSON report (every variant on every dataset)
    /// to this file while printing the tables.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Instead of running, read the datasets of earlier `--report` files (several runs in
    /// parallel make one table) and print their tables.
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with_all = ["dataset", "git_dir"])]
    pub from_report: Vec<PathBuf>,
    /// Keep only the variants whose names start with this (e.g. the ones that leave the
    /// history out); a leading `!` keeps the others.
    #[arg(long, value_name = "PREFIX")]
    pub variants_named: Option<String>,
    /// Only the first N commits.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Cut-offs, e.g. 4,8,16,32.
    #[arg(long = "k", value_delimiter = ',', default_value = "4,8,16,32")]
    pub ks: Vec<usize>,
    /// Query field: query or query_full.
    #[arg(long, default_value = "query")]
    pub field: String,
    /// Search weights for tuning: a JSON object with the weights to change (the rest keep
    /// their defaults), or `{"variants": {"name": {…}, …}}` to compare several in one pass
    /// (each tree is indexed once; a summary line per variant).
    #[arg(long, value_name = "FILE")]
    pub weights: Option<PathBuf>,
    /// Leave out the history signal (each parent's own `git log`).
    #[arg(long)]
    pub no_history: bool,
    /// Keep the parent trees' blobs in this directory between runs (materialising a tree
    /// is then a matter of hard links instead of `git archive`). Once for all datasets, or
    /// once per `--dataset`, in the same order.
    #[arg(long, value_name = "DIR")]
    pub blob_cache: Vec<PathBuf>,
    /// Score the map instead of search: for each commit, the map at the parent for the
    /// commit's message (`map --query`), and where the changed files appear in it.
    #[arg(long)]
    pub map: bool,
    /// The map's token budget with `--map`.
    #[arg(long, default_value_t = 4096)]
    pub tokens: usize,
    /// With `--map`: task options to compare (`{"variants": {"name": {"pin_files": 8, …}}}`).
    #[arg(long, value_name = "FILE", requires = "map")]
    pub map_variants: Option<PathBuf>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug, Clone)]
pub struct MapArgs {
    /// Repository root (default: the current directory).
    pub path: Option<PathBuf>,
    /// Token budget of the map.
    #[arg(long, default_value_t = 1024)]
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
    /// Rank and show only these languages: ts,js,py,go,rs,java,c,cs,rb,php.
    #[arg(long, value_delimiter = ',')]
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
    pub format: MapFormat,
    /// Largest file to index, in bytes.
    #[arg(long, default_value_t = 1024 * 1024)]
    pub max_file_size: u64,
    #[command(flatten)]
    pub cache: CacheArgs,
}

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

fn parse_tokenizer(s: &str) -> Result<TokenizerKind, String> {
    TokenizerKind::parse(s).ok_or_else(|| format!("unknown tokenizer `{s}` (o200k or cl100k)"))
}

fn parse_format(s: &str) -> Result<MapFormat, String> {
    MapFormat::parse(s).ok_or_else(|| format!("unknown format `{s}` (text, markdown or json)"))
}

/// Entry point used by `main`: returns the process exit code.
pub fn main() -> i32 {
    // A panic must never print a backtrace at the user: report one line and exit 2.
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        error_line("INTERNAL_ERROR", &format!("{msg}{at}"));
    }));
    let cli = match Cli::try_parse() {
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
        None => match e.downcast_ref::<InvalidArgument>() {
            Some(bad) => error_line("INVALID_ARGUMENT", &bad.0),
            None => error_line("INTERNAL_ERROR", &format!("{e:#}")),
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

/// `mapscope: CODE: message` on stderr, on one line whatever the message holds.
pub(crate) fn error_line(code: &str, message: &str) {
    eprintln!("mapscope: {code}: {}", sanitize(message));
}

/// `mapscope: warning: message` on stderr, on one line whatever the message holds (paths
/// and arguments are echoed as data, never as escape sequences).
pub(crate) fn warn(message: &str) {
    eprintln!("mapscope: warning: {}", sanitize(message));
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Some(Command::Map(args)) => cmd_map(&args),
        Some(Command::Stats(args)) => cmd_stats(&args),
        Some(Command::Bench(args)) => cmd_bench(&args),
        Some(Command::Search(args)) => cmd_search(&args),
        Some(Command::Eval(args)) => cmd_eval(&args),
        Some(Command::Cache(cmd)) => cmd_cache(&cmd),
        Some(Command::Mcp(args)) => cmd_mcp(&args),
        Some(Command::Serve(args)) => cmd_serve(&args),
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
                return crate::app::run::run(&repo_path(&cli.path), !cli.cache.no_cache)
                    .inspect_err(|e| {
                        // A bad config file is the user's to fix, not an internal error.
                        if let Some(c) = e.downcast_ref::<crate::app::config::ConfigError>() {
                            error_line("CONFIG_ERROR", &c.to_string());
                            std::process::exit(2);
                        }
                    });
            }
            cmd_map(&MapArgs {
                path: cli.path,
                tokens: 1024,
                focus: Vec::new(),
                ident: Vec::new(),
                query: None,
                no_history: false,
                include: Vec::new(),
                exclude: Vec::new(),
                lang: Vec::new(),
                explain: Vec::new(),
                tokenizer: TokenizerKind::O200k,
                format: MapFormat::Text,
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
    build_index_with(path, max_file_size, cache, false, HistorySource::Off)
}

/// `map_only`: the index only serves maps, so prose/config files stay unread and each file
/// keeps only the lines a map renders, and the graph build frees the references as it binds
/// them (`IndexOptions::skip_docs`, `map_lines_only`, `consume_refs`).
fn build_index_with(
    path: &Option<PathBuf>,
    max_file_size: Option<u64>,
    cache: CacheArgs,
    map_only: bool,
    history: HistorySource,
) -> anyhow::Result<Index> {
    let mut opts = IndexOptions {
        use_cache: !cache.no_cache,
        skip_docs: map_only,
        map_lines_only: map_only,
        consume_refs: map_only,
        history,
        ..IndexOptions::default()
    };
    if let Some(max) = max_file_size {
        opts.walk.max_file_size = max;
    }
    let index = Index::build(&repo_path(path), &opts)?;
    if let Some(warning) = &index.cache_warning {
        warn(warning);
    }
    for warning in &index.derived_warnings {
        warn(warning);
    }
    for warning in &index.walk_warnings {
        warn(warning);
    }
    Ok(index)
}

/// Runs `output` while the tag cache is saved (by `save`) on a side thread (the save of a
/// big repo's tags takes tens of ms; the user should not wait for it before seeing output).
/// A failed save is a warning: the output is still right.
fn with_cache_saved<T>(
    save: impl FnOnce() -> Result<bool, EngineError> + Send,
    output: impl FnOnce() -> T,
) -> T {
    std::thread::scope(|s| {
        let saver = s.spawn(save);
        let out = output();
        match saver.join() {
            Ok(Err(e)) => warn(&format!("could not save the cache: {e}")),
            Err(_) => warn("could not save the cache"),
            Ok(Ok(_)) => {}
        }
        out
    })
}

fn cmd_cache(cmd: &CacheCommand) -> anyhow::Result<()> {
    use crate::engine::cache::{clear_all, DiskCache};
    let repo_cache = |path: &Option<PathBuf>| -> anyhow::Result<DiskCache> {
        let root = repo_path(path);
        let canonical = root
            .canonicalize()
            .map_err(|_| EngineError::RepoNotFound(root.clone()))?;
        DiskCache::for_repo(&canonical).map_err(|why| anyhow::anyhow!(why))
    };
    match cmd {
        CacheCommand::Clear { all: true, .. } => print_cleared(&clear_all()?, None),
        CacheCommand::Clear { path, .. } => {
            let cache = repo_cache(path)?;
            print_cleared(&cache.clear()?, Some(cache.dir()))
        }
        CacheCommand::Path { path } => print(&shown(repo_cache(path)?.dir())),
    }
}

/// A path as a terminal line may show it: a cache directory is named after the repository,
/// whose name may hold escape sequences.
fn shown(path: &Path) -> String {
    crate::ui::text::sanitize_line(&path.display().to_string())
}

/// What `cache clear` removed, one line per directory (stdout); directories named like a
/// cache that were kept, one warning each (stderr).
fn print_cleared(c: &crate::engine::cache::Cleared, one: Option<&Path>) -> anyhow::Result<()> {
    let mut lines: Vec<String> = c
        .removed
        .iter()
        .map(|(dir, files, bytes)| {
            let s = if *files == 1 { "" } else { "s" };
            format!("removed {} ({files} file{s}, {bytes} bytes)", shown(dir))
        })
        .collect();
    for (dir, why) in &c.kept {
        warn(&format!("kept {}: {why}", dir.display()));
    }
    if lines.is_empty() {
        lines.push(match one {
            Some(dir) => format!("no cache at {}", shown(dir)),
            None => "no cache to remove".to_string(),
        });
    }
    if let (Some(root), true) = (&c.root, c.others > 0) {
        let y = if c.others == 1 { "y" } else { "ies" };
        lines.push(format!(
            "left {} other entr{y} in {} untouched (not mapscope caches)",
            c.others,
            shown(root)
        ));
    }
    print(&lines.join("\n"))
}

/// Writes a command's output to stdout; whatever a name or a symbol in it holds, nothing a
/// terminal could act on gets through (`engine::text::sanitize_block`).
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

fn map_request(args: &MapArgs) -> MapRequest {
    MapRequest {
        budget: args.tokens,
        tokenizer: args.tokenizer,
        focus: args.focus.clone(),
        idents: args.ident.clone(),
        query: args.query.clone(),
        // The JSON map and the text cut list say which budget would take the first cut.
        next_budget: args.format == MapFormat::Json || args.explain.iter().any(String::is_empty),
        scope: map_scope(args),
        ..MapRequest::default()
    }
}

fn map_scope(args: &MapArgs) -> ScopeSpec {
    ScopeSpec {
        include: args.include.clone(),
        exclude: args.exclude.clone(),
        langs: args.lang.clone(),
    }
}

fn cmd_map(args: &MapArgs) -> anyhow::Result<()> {
    // A bad pattern or language is the user's to fix, before any work.
    Scope::new(&map_scope(args)).map_err(|e| InvalidArgument(e.to_string()))?;
    // Building the tokenizer's tables takes a few hundred ms: do it while the repo is walked
    // and parsed (the OnceLock makes the fit wait for it if it is not ready yet).
    let kind = args.tokenizer;
    std::thread::spawn(move || tokenizer(kind).count(""));
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
    let mut index = build_index_with(
        &args.path,
        Some(args.max_file_size),
        args.cache,
        !has_query && !explaining,
        history,
    )?;
    if explaining {
        return with_cache_saved(|| index.save_cache(), || explain_map(&index, args));
    }

    if let Some(write) = index.take_cache_write() {
        // A first run wrote the cache while parsing: only its sync and rename are left, and
        // the index has no references to keep. The graph is encoded now, before `map_once`
        // drops it, and written beside.
        let graph_save = index.take_graph_save();
        return with_cache_saved(
            move || {
                write.finish()?;
                graph_save.map_or(Ok(true), |save| save())
            },
            || {
                let map = index.map_once(&map_request(args));
                print_map(&map, &index, args.format)
            },
        );
    }
    if index.cache_pending() {
        return with_cache_saved(
            || index.save_cache(),
            || {
                let (map, _) = index.map(&map_request(args));
                print_map(&map, &index, args.format)
            },
        );
    }
    // Nothing to save: the graph and the references can go before the fit (peak memory).
    let map = index.map_once(&map_request(args));
    let printed = print_map(&map, &index, args.format);
    // The process ends here: freeing every file's tags one by one is a tenth of a warm
    // map's CPU, and the OS takes the pages back at exit anyway.
    std::mem::forget(index);
    printed
}

/// `map --explain FILE…`: why each file is in the map or not. `--explain` without a file:
/// the cut list (the JSON map, which carries it, with `--format json`).
fn explain_map(index: &Index, args: &MapArgs) -> anyhow::Result<()> {
    use crate::engine::explain::{explain_file, render_cut_text, render_text};
    let req = map_request(args);
    let (map, ranked) = index.map(&req);
    let files: Vec<&String> = args.explain.iter().filter(|f| !f.is_empty()).collect();
    if files.is_empty() {
        if args.format == MapFormat::Text {
            print(&render_cut_text(&map))?;
        } else {
            print(&render(&map, &index.files, args.format))?;
        }
        for note in &map.notes {
            eprintln!("mapscope: note: {}", sanitize(note));
        }
        return Ok(());
    }
    let explained: Vec<_> = files
        .iter()
        .map(|f| explain_file(index, &req, &ranked, &map, f))
        .collect();
    if args.format == MapFormat::Json {
        return print(&json::to_string_pretty(&explained)?);
    }
    let text: Vec<String> = explained.iter().map(render_text).collect();
    print(&text.join("\n"))?;
    for note in &map.notes {
        eprintln!("mapscope: note: {}", sanitize(note));
    }
    Ok(())
}

/// Prints the map, then each note about the request on stderr (and in JSON's `notes`).
fn print_map(map: &RepoMap, index: &Index, format: MapFormat) -> anyhow::Result<()> {
    let with_note;
    let mut map = map;
    if let Some(note) = budget_note(map) {
        let mut noted = map.clone();
        noted.notes.push(note);
        with_note = noted;
        map = &with_note;
    }
    print(&render(map, &index.files, format))?;
    for note in &map.notes {
        eprintln!("mapscope: note: {}", sanitize(note));
    }
    Ok(())
}

/// When the budget fits no definition at all, says so and names the smallest budget that
/// fits the first one (the fit takes definitions in rank order and stops at the first that
/// does not fit, so that one's cost is exactly the budget that makes the map non-empty).
fn budget_note(map: &RepoMap) -> Option<String> {
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

fn cmd_stats(args: &StatsArgs) -> anyhow::Result<()> {
    let index = build_index(&args.path, None, args.cache)?;
    with_cache_saved(
        || index.save_cache(),
        || print_stats(&index, args.json, args.verbose),
    )
}

fn print_stats(index: &Index, json: bool, verbose: bool) -> anyhow::Result<()> {
    let stats = index.stats();
    if json {
        return print(&json::to_string_pretty(&stats)?);
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
            " (not in the map)"
        } else {
            ""
        }
    );
    for (ext, n) in &stats.unsupported_by_extension {
        let language = crate::engine::lang::unsupported_language(ext).unwrap_or("");
        let _ = writeln!(s, "  {ext:<12} {n:<6} {language}");
    }
    let t = stats.times;
    let _ = writeln!(
        s,
        "time: walk {:.1} ms, parse {:.1} ms, graph {:.1} ms",
        t.walk_ms, t.parse_ms, t.graph_ms
    );
    print(&s)
}

fn cmd_bench(args: &BenchArgs) -> anyhow::Result<()> {
    if args.parse_floor {
        let r = crate::parse_floor::run(&repo_path(&args.path), args.runs)?;
        if args.json {
            return print(&json::to_string_pretty(&r)?);
        }
        let langs: Vec<String> = r
            .files_by_language
            .iter()
            .map(|(l, n)| format!("{l} {n}"))
            .collect();
        return print(&format!(
            "{} files ({}), {:.1} MB; read {:.0} ms\nparse only (tree-sitter, no tags): median \
             {:.1} ms over {} runs; {} files out of time",
            r.files,
            langs.join(", "),
            r.bytes as f64 / 1e6,
            r.read_ms,
            r.parse_median_ms,
            args.runs.max(1),
            r.failed
        ));
    }
    if args.live {
        let report = crate::live_bench::run(&repo_path(&args.path), args.edits, args.tokens)?;
        if args.json {
            return print(&json::to_string_pretty(&report)?);
        }
        return print(&format!(
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
        ));
    }
    if args.typing {
        let r =
            crate::typing_bench::run(&repo_path(&args.path), args.tokens, args.queries.as_deref())?;
        if args.json {
            return print(&json::to_string_pretty(&r)?);
        }
        return print(&format!(
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
        ));
    }
    if args.search {
        let r =
            crate::search_bench::run(&repo_path(&args.path), args.runs, args.queries.as_deref())?;
        if args.json {
            return print(&json::to_string_pretty(&r)?);
        }
        return print(&format!(
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
        ));
    }
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

/// `[PATH] QUERY…` → (path, query). Two words keep their old meaning (path, then query);
/// with more, the first is the path only if it is a directory, and the rest is the query,
/// joined with spaces (`search . cors preflight`, `search cors preflight handler`).
fn split_search_args(args: &[String]) -> anyhow::Result<(Option<PathBuf>, String)> {
    match args {
        [] => Err(InvalidArgument("usage: mapscope search [PATH] QUERY".to_string()).into()),
        [query] => Ok((None, query.clone())),
        [path, query] => Ok((Some(PathBuf::from(path)), query.clone())),
        [first, rest @ ..] if Path::new(first).is_dir() => {
            Ok((Some(PathBuf::from(first)), rest.join(" ")))
        }
        words => Ok((None, words.join(" "))),
    }
}

fn cmd_search(args: &SearchArgs) -> anyhow::Result<()> {
    let (path, query) = split_search_args(&args.args)?;
    let opts = SearchOptions {
        top: args.top.clamp(1, MAX_TOP),
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
    let index = match build_index_with(&path, None, args.cache, false, history) {
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
    let (_, search_build_ms) = index.search_index();
    if let Some(warning) = index.search_cache_warning() {
        warn(warning);
    }
    let index_ms = t.elapsed().as_secs_f64() * 1000.0;
    let response = index.search(&query, &opts);
    let extra = search_sources(&specs, &query, &opts, args.cache)?;
    with_cache_saved(
        || index.save_cache(),
        || {
            if args.json {
                let json = search_json(
                    &index,
                    &query,
                    &response,
                    index_ms,
                    search_build_ms,
                    args.answer_style,
                    &extra,
                );
                return print(&json::to_string_pretty(&json)?);
            }
            let mut text = search_text(&query, &response, args.files, args.explain);
            if args.answer {
                text.insert_str(
                    0,
                    &format!("{}\n\n", answer(&index, &response, args.answer_style)),
                );
            }
            for x in &extra {
                text.push_str(&format!("\n[{}] {}\n", x.name, sanitize(&x.root)));
                text.push_str(&search_text(&query, &x.response, args.files, args.explain));
            }
            print(&text)
        },
    )
}

/// The `--source NAME=PATH` arguments, parsed and checked against the project at `root`.
fn checked_sources(root: &Path, given: &[String]) -> anyhow::Result<Vec<SourceSpec>> {
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
fn search_sources(
    specs: &[SourceSpec],
    query: &str,
    opts: &SearchOptions,
    cache: CacheArgs,
) -> anyhow::Result<Vec<SourceHits>> {
    specs
        .iter()
        .map(|spec| {
            let path = Some(spec.path.clone());
            let index = build_index_with(&path, None, cache, false, HistorySource::Off)
                .with_context(|| format!("source `{}`", spec.name))?;
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

fn cmd_mcp(args: &McpArgs) -> anyhow::Result<()> {
    let (root, opts, sources) = live_setup(&args.live)?;
    let mut server = crate::mcp::Server::with_sources(root, opts, !args.live.no_watch, sources);
    crate::mcp::serve(
        &mut server,
        std::io::BufReader::new(std::io::stdin()),
        std::io::stdout().lock(),
    )
}

fn cmd_serve(args: &ServeArgs) -> anyhow::Result<()> {
    crate::http::listen_address(&args.http, args.allow_remote)
        .map_err(|e| InvalidArgument(e.to_string()))?;
    let (root, index_opts, sources) = live_setup(&args.live)?;
    let opts = crate::http::HttpOptions {
        addr: args.http.clone(),
        allow_remote: args.allow_remote,
        watch: !args.live.no_watch,
        sources,
    };
    crate::http::serve(root, index_opts, &opts, |addr| {
        eprintln!("mapscope: serving http://{addr} (Ctrl-C stops)");
    })
}

fn print_search_error(error: &str, code: &str) -> anyhow::Result<()> {
    print(&json::to_string_pretty(&serde_json::json!({
        "success": false, "error": error, "code": code,
    }))?)
}

fn evidence_name(e: Evidence) -> &'static str {
    e.name()
}

/// One line per hit: `path:start-end  evidence  kind  symbol  score`; a text hit's matched
/// line follows it (`    > line`).
fn search_text(query: &str, r: &SearchResponse, files_mode: bool, explain: bool) -> String {
    use std::fmt::Write as _;
    if r.low_score || (r.hits.is_empty() && r.files.is_empty()) {
        return match no_words_note(r) {
            Some(note) => format!("no confident hits for {query:?}: {note}\n"),
            None => format!("no confident hits for {query:?}\n"),
        };
    }
    let mut s = String::new();
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

/// `eval --map`: the map's own figures on a dataset.
/// Each `--dataset` in turn: a table each, or a JSON array of their documents.
fn cmd_eval_map(args: &EvalArgs) -> anyhow::Result<()> {
    use crate::eval_map::{read_variants, run, table, MapEvalOptions};
    let variants = read_variants(args.map_variants.as_deref())?;
    let mut outs = Vec::with_capacity(args.dataset.len());
    for i in 0..args.dataset.len() {
        let opts = MapEvalOptions {
            eval: crate::eval::EvalOptions {
                dataset: args.dataset[i].clone(),
                git_dir: args.git_dir[i].clone(),
                limit: args.limit,
                ks: args.ks.clone(),
                field: args.field.clone(),
                blob_cache: args.blob_cache.get(i).or(args.blob_cache.first()).cloned(),
            },
            budget: args.tokens,
            tokenizer: TokenizerKind::O200k,
            history: !args.no_history,
            variants: variants.clone(),
        };
        let out = run(&opts, &mut |done, total| {
            if !args.json {
                eprint!("\r{done}/{total}");
            }
        })?;
        if !args.json {
            eprintln!();
            print(&table(&out))?;
        }
        outs.push(out);
    }
    if args.json {
        return match outs.as_slice() {
            [one] => print(&json::to_string_pretty(one)?),
            _ => print(&json::to_string_pretty(&outs)?),
        };
    }
    Ok(())
}

/// Named weight sets from `--weights` (one unnamed set when the flag is absent).
fn eval_variants(path: Option<&std::path::Path>) -> anyhow::Result<Vec<(String, SearchWeights)>> {
    let Some(path) = path else {
        return Ok(vec![("default".into(), SearchWeights::default())]);
    };
    crate::eval::read_variant_file(path, "weights", "weights", |name, v| {
        // Unknown keys are typos in a tuning file: refuse them rather than ignore them.
        let known = serde_json::to_value(SearchWeights::default())?;
        if let (Some(obj), Some(known)) = (v.as_object(), known.as_object()) {
            if let Some(k) = obj.keys().find(|k| !known.contains_key(k.as_str())) {
                anyhow::bail!("{}: variant {name:?}: unknown weight {k:?}", path.display());
            }
        }
        serde_json::from_value(v.clone())
            .with_context(|| format!("{}: variant {name:?}", path.display()))
    })
}

/// One dataset of `mapscope eval` (the `i`th `--dataset`): one report per weight variant,
/// each parent tree indexed once (and once more per distinct set of build-time weights).
fn eval_dataset(
    args: &EvalArgs,
    i: usize,
    variants: &[(String, SearchWeights)],
) -> anyhow::Result<Vec<crate::eval::EvalReport>> {
    let opts = crate::eval::EvalOptions {
        dataset: args.dataset[i].clone(),
        git_dir: args.git_dir[i].clone(),
        limit: args.limit,
        ks: args.ks.clone(),
        field: args.field.clone(),
        blob_cache: args.blob_cache.get(i).or(args.blob_cache.first()).cloned(),
    };
    let search_opts = SearchOptions {
        top: MAX_TOP,
        files_mode: true,
        ..SearchOptions::default()
    };
    let mut ranker =
        |tree: &crate::eval::EvalTree, query: &str| -> anyhow::Result<Vec<Vec<String>>> {
            // Only the parent's own history: `git log PARENT` reaches its ancestors, never the
            // commit whose files are the answer.
            let history = if args.no_history {
                HistorySource::Off
            } else {
                HistorySource::GitDir {
                    git_dir: opts.git_dir.clone(),
                    rev: tree.parent.to_string(),
                }
            };
            let opts = IndexOptions {
                history,
                ..IndexOptions::default()
            };
            let index = Index::build(tree.path, &opts)?;
            if let Some(error) = &index.history_status.error {
                warn(&format!("no history for {}: {error}", tree.parent));
            }
            let ctx = SearchContext {
                files: &index.files,
                docs: &index.docs,
                prior: index.prior(),
                neighbors: index.neighbors(),
                history: index.history_index(),
            };
            let mut out = Vec::with_capacity(variants.len());
            let mut built: Option<SearchIndex> = None;
            for (_, w) in variants {
                // Build-time weights shape the postings; query-time ones can reuse the index.
                match built.as_mut() {
                    Some(si) if si.weights().same_build(w) => si.set_query_weights(w.clone()),
                    _ => {
                        built = Some(SearchIndex::build_with(
                            &index.files,
                            &index.docs,
                            w.clone(),
                        ))
                    }
                }
                let Some(si) = built.as_ref() else { continue };
                let response = si.search(&ctx, query, &search_opts);
                out.push(response.files.into_iter().map(|(path, _)| path).collect());
            }
            Ok(out)
        };
    crate::eval::run_eval_variants(&opts, variants.len(), &mut ranker, &mut |done, total, _| {
        if !args.json {
            eprint!("\r{done}/{total}");
        }
    })
    .inspect(|_| {
        if !args.json {
            eprintln!();
        }
    })
}

/// Datasets from earlier `--report` files, in order: (variant names, reports per dataset
/// per variant). Every file must hold the same variants.
fn read_eval_reports(
    paths: &[PathBuf],
) -> anyhow::Result<(Vec<String>, Vec<Vec<crate::eval::EvalReport>>)> {
    let mut names: Option<Vec<String>> = None;
    let mut all = Vec::new();
    for path in paths {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let mut v: serde_json::Value = serde_json::from_str(&text)
            .with_context(|| format!("{}: invalid JSON", path.display()))?;
        let recorded: Option<Vec<String>> = v["variant_order"].as_array().map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect()
        });
        let datasets = v["datasets"]
            .as_array_mut()
            .with_context(|| format!("{}: no `datasets` (not an eval --report)", path.display()))?;
        for d in datasets {
            let Some(map) = d["variants"].as_object_mut() else {
                anyhow::bail!("{}: a dataset without `variants`", path.display());
            };
            // The run's order when recorded (ties go to the first), else by name.
            let order: Vec<String> = map.keys().cloned().collect();
            let order = names.clone().or_else(|| recorded.clone()).unwrap_or(order);
            let mut reports = Vec::with_capacity(order.len());
            for n in &order {
                let r = map
                    .remove(n)
                    .with_context(|| format!("{}: variant {n:?} missing", path.display()))?;
                reports.push(serde_json::from_value(r)?);
            }
            names.get_or_insert(order);
            all.push(reports);
        }
    }
    Ok((names.unwrap_or_default(), all))
}

/// `mapscope eval` over several datasets: a per-dataset table (the variant chosen on all of
/// them), and with `--leave-one-out` the held-out table beside it.
fn cmd_eval_datasets(args: &EvalArgs, variants: &[(String, SearchWeights)]) -> anyhow::Result<()> {
    use crate::eval::{dataset_table, leave_one_out, objective, EvalReport};
    use std::fmt::Write as _;
    let (mut names, mut all) = if args.from_report.is_empty() {
        let mut all: Vec<Vec<EvalReport>> = Vec::new();
        for i in 0..args.dataset.len() {
            if !args.json {
                eprintln!("{}", args.dataset[i].display());
            }
            all.push(eval_dataset(args, i, variants)?);
        }
        let names: Vec<String> = variants.iter().map(|(n, _)| n.clone()).collect();
        (names, all)
    } else {
        read_eval_reports(&args.from_report)?
    };
    if let Some(prefix) = &args.variants_named {
        let keep: Vec<bool> = names
            .iter()
            .map(|n| match prefix.strip_prefix('!') {
                Some(p) => !n.starts_with(p),
                None => n.starts_with(prefix.as_str()),
            })
            .collect();
        if !keep.contains(&true) {
            anyhow::bail!("no variant is named {prefix:?}");
        }
        let pick = |v: Vec<String>| v.into_iter().zip(&keep).filter(|x| *x.1).map(|x| x.0);
        names = pick(names).collect();
        for d in &mut all {
            *d = std::mem::take(d)
                .into_iter()
                .zip(&keep)
                .filter(|x| *x.1)
                .map(|x| x.0)
                .collect();
        }
    }
    let objectives: Vec<f64> = (0..names.len())
        .map(|v| objective(&all.iter().map(|d| &d[v]).collect::<Vec<_>>()))
        .collect();
    let chosen = (0..names.len())
        .min_by(|&a, &b| objectives[a].total_cmp(&objectives[b]).then(a.cmp(&b)))
        .unwrap_or(0);
    let held = args.leave_one_out.then(|| leave_one_out(&all, &names));
    if args.json || args.report.is_some() {
        let datasets: Vec<serde_json::Value> = all
            .iter()
            .map(|d| {
                let named: serde_json::Map<String, serde_json::Value> = names
                    .iter()
                    .zip(d)
                    .map(|(n, r)| Ok((n.clone(), serde_json::to_value(r)?)))
                    .collect::<anyhow::Result<_>>()?;
                Ok(serde_json::json!({
                    "repo": d.first().map(|r| r.repo.clone()),
                    "dataset": d.first().map(|r| r.dataset.clone()),
                    "variants": named,
                }))
            })
            .collect::<anyhow::Result<_>>()?;
        let json = json::to_string_pretty(&serde_json::json!({
            "objective": "mean over datasets of ln(1 - hit@8) + ln(1 - recall@8), lower is better",
            "variant_objectives": names.iter().zip(&objectives).map(|(n, o)| (n.clone(), *o))
                .collect::<std::collections::BTreeMap<String, f64>>(),
            "chosen_on_all": names.get(chosen),
            "variant_order": names,
            "datasets": datasets,
            "held_out": held,
        }))?;
        if let Some(path) = &args.report {
            std::fs::write(path, &json).with_context(|| format!("writing {}", path.display()))?;
        }
        if args.json {
            return print(&json);
        }
    }
    let mut s = String::new();
    if names.len() > 1 {
        let _ = writeln!(
            s,
            "hit@8/recall@8 per variant (objective: mean ln(1 - hit@8) + ln(1 - recall@8), \
             lower is better)"
        );
        let _ = write!(s, "{:<28}{:>9}", "variant", "objective");
        for d in &all {
            let repo = d.first().map_or("", |r| r.repo.as_str());
            let short = repo.rsplit('/').next().unwrap_or(repo);
            let _ = write!(s, "{:>12}", short.chars().take(10).collect::<String>());
        }
        s.push('\n');
        for (v, name) in names.iter().enumerate() {
            let _ = write!(s, "{name:<28}{:>9.3}", objectives[v]);
            for d in &all {
                let get = |k: &str| d[v].summary.get(k).copied().unwrap_or(f64::NAN);
                let _ = write!(s, " {:>5.3}/{:>5.3}", get("hit@8"), get("recall@8"));
            }
            s.push('\n');
        }
        s.push('\n');
    }
    let rows: Vec<(&str, &std::collections::BTreeMap<String, f64>, &str)> = all
        .iter()
        .map(|d| {
            (
                d[chosen].repo.as_str(),
                &d[chosen].summary,
                names[chosen].as_str(),
            )
        })
        .collect();
    s.push_str(&dataset_table(
        "in-sample: the variant chosen on all datasets",
        &rows,
    ));
    if let Some(held) = &held {
        s.push('\n');
        let rows: Vec<(&str, &std::collections::BTreeMap<String, f64>, &str)> = held
            .iter()
            .map(|h| (h.repo.as_str(), &h.summary, h.chosen_name.as_str()))
            .collect();
        s.push_str(&dataset_table(
            "held out: each dataset scored with the variant chosen on the others",
            &rows,
        ));
    }
    print(&s)
}

fn cmd_eval(args: &EvalArgs) -> anyhow::Result<()> {
    use std::fmt::Write as _;
    if args.dataset.len() != args.git_dir.len() {
        anyhow::bail!(
            "{} --dataset but {} --git-dir: give one git directory per dataset",
            args.dataset.len(),
            args.git_dir.len()
        );
    }
    if args.blob_cache.len() > 1 && args.blob_cache.len() != args.dataset.len() {
        anyhow::bail!("give one --blob-cache for all datasets or one per --dataset");
    }
    if !args.from_report.is_empty() {
        return cmd_eval_datasets(args, &[]);
    }
    if args.map {
        return cmd_eval_map(args);
    }
    let variants = eval_variants(args.weights.as_deref())?;
    if args.dataset.len() > 1 || args.leave_one_out {
        return cmd_eval_datasets(args, &variants);
    }
    let reports = eval_dataset(args, 0, &variants)?;
    if reports.len() == 1 {
        let report = &reports[0];
        if args.json {
            return print(&json::to_string_pretty(report)?);
        }
        return print(&report.table());
    }
    if args.json {
        let named: serde_json::Map<String, serde_json::Value> = variants
            .iter()
            .zip(&reports)
            .map(|((name, _), r)| Ok((name.clone(), serde_json::to_value(r)?)))
            .collect::<anyhow::Result<_>>()?;
        return print(&json::to_string_pretty(
            &serde_json::json!({ "variants": named }),
        )?);
    }
    let mut s = String::new();
    let get = |r: &crate::eval::EvalReport, k: &str| r.summary.get(k).copied().unwrap_or(f64::NAN);
    let _ = writeln!(
        s,
        "{:<28}{:>7}{:>7}{:>7}{:>7}{:>7}{:>9}{:>7}",
        "variant", "R@4", "R@8", "R@16", "R@32", "hit@8", "implF@8", "MRR"
    );
    for ((name, _), r) in variants.iter().zip(&reports) {
        let _ = writeln!(
            s,
            "{:<28}{:>7.3}{:>7.3}{:>7.3}{:>7.3}{:>7.3}{:>9.3}{:>7.3}",
            name,
            get(r, "recall@4"),
            get(r, "recall@8"),
            get(r, "recall@16"),
            get(r, "recall@32"),
            get(r, "hit@8"),
            get(r, "impl_recall_filt@8"),
            get(r, "mrr"),
        );
    }
    print(&s)
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
        let words = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
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
    }

    #[test]
    fn broken_pipes_are_recognised_through_context() {
        let e = anyhow::Error::from(std::io::Error::from(std::io::ErrorKind::BrokenPipe))
            .context("writing the map");
        assert!(is_broken_pipe(&e));
        assert!(!is_broken_pipe(&anyhow::anyhow!("other")));
    }
}
