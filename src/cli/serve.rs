//! `mapscope mcp` and `mapscope serve --http`: the servers' arguments and setup (root,
//! options, sources), shared by both; `launch` starts them.

use std::path::PathBuf;

use clap::Args;

use crate::engine::index::IndexOptions;
use crate::engine::ingest::history::HistorySource;
use crate::engine::search::sources::SourceSpec;
use crate::engine::EngineError;

use super::*;

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
pub(super) fn live_setup(
    args: &LiveArgs,
) -> anyhow::Result<(PathBuf, IndexOptions, Vec<SourceSpec>)> {
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

pub(super) fn cmd_mcp(args: &McpArgs) -> anyhow::Result<()> {
    let (root, opts, sources) = live_setup(&args.live)?;
    crate::launch::mcp(root, opts, !args.live.no_watch, sources)
}

pub(super) fn cmd_serve(args: &ServeArgs) -> anyhow::Result<()> {
    crate::launch::check_http_address(&args.http, args.allow_remote).map_err(InvalidArgument)?;
    let (root, index_opts, sources) = live_setup(&args.live)?;
    crate::launch::http(
        root,
        index_opts,
        &args.http,
        args.allow_remote,
        !args.live.no_watch,
        sources,
    )
}
