//! Starting the servers: the one place that knows every front door. The CLI's `mcp` and
//! `serve` subcommands hand their checked setup here, so the front doors (`cli`, `mcp`,
//! `http`) never import each other. Runs on the main thread until the server stops.

use std::path::PathBuf;

use crate::engine::index::IndexOptions;
use crate::engine::search::sources::SourceSpec;

/// `mapscope mcp`: the MCP server on stdin/stdout until its input ends.
pub fn mcp(
    root: PathBuf,
    opts: IndexOptions,
    watch: bool,
    sources: Vec<SourceSpec>,
) -> anyhow::Result<()> {
    let mut server = crate::mcp::Server::with_sources(root, opts, watch, sources);
    crate::mcp::serve(
        &mut server,
        std::io::BufReader::new(std::io::stdin()),
        std::io::stdout().lock(),
    )
}

/// Checks `mapscope serve --http ADDR` before any work: a non-loopback address needs
/// `allow_remote`.
pub fn check_http_address(addr: &str, allow_remote: bool) -> Result<(), String> {
    crate::http::listen_address(addr, allow_remote)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// `mapscope serve --http`: the HTTP server until Ctrl-C or SIGTERM.
pub fn http(
    root: PathBuf,
    index_opts: IndexOptions,
    addr: &str,
    allow_remote: bool,
    watch: bool,
    sources: Vec<SourceSpec>,
) -> anyhow::Result<()> {
    let opts = crate::http::HttpOptions {
        addr: addr.to_string(),
        allow_remote,
        watch,
        sources,
    };
    crate::http::serve(root, index_opts, &opts, |addr| {
        crate::contract::stderr_line(&format!("mapscope: serving http://{addr} (Ctrl-C stops)"));
    })
}
