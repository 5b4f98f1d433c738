//! Starting the servers: the one place that knows every front door. The CLI's `mcp` and
//! `serve` subcommands hand their checked setup here, so the front doors (`cli`, `mcp`,
//! `http`) never import each other. Runs on the main thread until the server stops.

use std::path::PathBuf;

use crate::engine::index::IndexOptions;
use crate::engine::live::source_pool::SourceLimits;
use crate::engine::search::sources::SourceSpec;

/// What both servers keep live besides the repository.
#[derive(Debug, Clone)]
pub struct LiveSetup {
    pub watch: bool,
    pub sources: Vec<SourceSpec>,
    pub limits: SourceLimits,
}

/// `mapscope mcp`: the MCP server on stdin/stdout until its input ends.
pub fn mcp(root: PathBuf, opts: IndexOptions, live: LiveSetup) -> anyhow::Result<()> {
    let mut server =
        crate::mcp::Server::with_sources(root, opts, live.watch, live.sources, live.limits);
    crate::mcp::serve(
        &mut server,
        std::io::BufReader::new(std::io::stdin()),
        std::io::stdout().lock(),
    )
}

/// What `mapscope serve` takes besides the repository and what it keeps live.
#[derive(Debug, Clone, Default)]
pub struct HttpSetup {
    pub addr: String,
    pub allow_remote: bool,
    pub allow_hosts: Vec<String>,
    pub allow_origins: Vec<String>,
    /// Canonical folders.
    pub source_roots: Vec<PathBuf>,
}

/// Checks `mapscope serve`'s own flags before any work: a non-loopback address needs
/// `allow_remote`; each allowed host and origin must be one.
pub fn check_http(setup: &HttpSetup) -> Result<(), String> {
    crate::http::listen_address(&setup.addr, setup.allow_remote).map_err(|e| e.to_string())?;
    for host in &setup.allow_hosts {
        crate::http::check_host(host)?;
    }
    for origin in &setup.allow_origins {
        crate::http::check_origin(origin)?;
    }
    Ok(())
}

/// `mapscope serve --http`: the HTTP server until Ctrl-C or SIGTERM.
pub fn http(
    root: PathBuf,
    index_opts: IndexOptions,
    setup: HttpSetup,
    live: LiveSetup,
) -> anyhow::Result<()> {
    let opts = crate::http::HttpOptions {
        addr: setup.addr,
        allow_remote: setup.allow_remote,
        allow_hosts: setup.allow_hosts,
        allow_origins: setup.allow_origins,
        source_roots: setup.source_roots,
        watch: live.watch,
        sources: live.sources,
        limits: live.limits,
    };
    crate::http::serve(root, index_opts, &opts, |addr| {
        crate::contract::stderr_line(&format!("mapscope: serving http://{addr} (Ctrl-C stops)"));
    })
}
