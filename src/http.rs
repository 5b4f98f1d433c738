//! `mapscope serve [PATH] --http ADDR`: the live index over HTTP, for tools that speak HTTP
//! rather than MCP. The same live-index service as the MCP server (`engine::live`: built at
//! start, refreshed from the file watcher) and the same output contract (`contract`):
//!
//! - `GET /search?q=…` (`top`, `files`, `paths`, `lang`, `include`, `exclude`,
//!   `answer_style`): the search JSON;
//! - `GET /answer?q=…` (`paths`, `languages`, `max_sources`, `answer_style`): the
//!   `repo_symbol_answer` contract;
//! - `GET /map` (`tokens`, `query`, `focus`, `ident`, `tokenizer`, `include`, `exclude`,
//!   `lang`): `map --format json`;
//! - `GET /stats`: `stats --json`;
//! - `POST /index`: read every file again, then the stats.
//!
//! Errors are `{success: false, error, code}` with an HTTP status per code (400
//! `INVALID_ARGUMENT`, 404 `NOT_FOUND`, 405 `METHOD_NOT_ALLOWED`, 413 `BODY_TOO_LARGE`, 503
//! for a repository with nothing to index, 500 otherwise). Only loopback addresses are
//! served unless `--allow-remote` is given: the index holds the repository's code.
//!
//! Threads: tiny_http's accept thread; `WORKERS` request threads, which bounds how many
//! requests are in flight (the rest wait in the accept queue); the live-index service's
//! engine thread, which answers the workers' jobs one at a time. SIGINT and SIGTERM set a
//! flag the workers poll: they finish the request in hand and stop, and the service saves
//! its cache before the process exits.

use std::net::{SocketAddr, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Map, Value};

use crate::contract::{ArgError, MapCall, SearchCall};
use crate::engine::error::EngineError;
use crate::engine::index::{Index, IndexOptions};
use crate::engine::live::{Freshness, LiveIndex, LiveService, SourceIndex};
use crate::engine::sources::SourceSpec;
use crate::engine::text::sanitize;

/// Request threads: at most this many requests are answered at once.
const WORKERS: usize = 4;
/// The largest request body read (`POST /index` needs none); larger ones get 413.
pub const MAX_BODY: usize = 64 * 1024;
/// How often an idle worker looks at the shutdown flag.
const POLL: Duration = Duration::from_millis(100);

/// What `serve` needs besides the repository.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    pub addr: String,
    pub allow_remote: bool,
    /// Watch the files and refresh the index as they change.
    pub watch: bool,
    /// Extra sources searched after the project (checked by `sources::check_sources`).
    pub sources: Vec<SourceSpec>,
}

/// Why the server did not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("`{0}` is not a host:port address")]
    BadAddress(String),
    #[error(
        "`{0}` is not a loopback address: the server would expose the repository's code to \
         the network; pass --allow-remote to mean it"
    )]
    NotLoopback(String),
    #[error("cannot listen on {addr}: {why}")]
    Listen { addr: String, why: String },
}

/// The address to listen on: `addr` resolved, refused unless every address it names is a
/// loopback one (or `allow_remote`).
pub fn listen_address(addr: &str, allow_remote: bool) -> Result<SocketAddr, ServeError> {
    let resolved: Vec<SocketAddr> = addr
        .to_socket_addrs()
        .map_err(|_| ServeError::BadAddress(addr.to_string()))?
        .collect();
    let first = *resolved
        .first()
        .ok_or_else(|| ServeError::BadAddress(addr.to_string()))?;
    if !allow_remote && !resolved.iter().all(|a| a.ip().is_loopback()) {
        return Err(ServeError::NotLoopback(addr.to_string()));
    }
    Ok(first)
}

/// Serves `root` on `opts.addr` until SIGINT or SIGTERM. `on_listening` gets the bound
/// address (a port of 0 picks a free one) once requests are accepted.
pub fn serve(
    root: PathBuf,
    index_opts: IndexOptions,
    opts: &HttpOptions,
    on_listening: impl FnOnce(SocketAddr),
) -> anyhow::Result<()> {
    let addr = listen_address(&opts.addr, opts.allow_remote)?;
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, Arc::clone(&stop))?;
    }
    let server = tiny_http::Server::http(addr).map_err(|e| ServeError::Listen {
        addr: addr.to_string(),
        why: e.to_string(),
    })?;
    let bound = server.server_addr().to_ip().unwrap_or(addr);
    let live = LiveIndex::new(
        root.clone(),
        index_opts,
        opts.watch,
        Box::new(crate::cli::warn),
    )
    .with_sources(opts.sources.clone());
    let service = Arc::new(LiveService::start_with(live));
    let server = Arc::new(server);
    on_listening(bound);
    let workers: Vec<_> = (0..WORKERS)
        .map(|i| {
            let (server, service, stop, root) = (
                Arc::clone(&server),
                Arc::clone(&service),
                Arc::clone(&stop),
                root.clone(),
            );
            std::thread::Builder::new()
                .name(format!("mapscope-http-{i}"))
                .spawn(move || worker(&server, &service, &stop, &root))
        })
        .collect::<Result<_, _>>()?;
    for w in workers {
        let _ = w.join();
    }
    // The workers are done; dropping the last handle lets the engine thread save the cache.
    drop(service);
    Ok(())
}

fn worker(server: &tiny_http::Server, service: &LiveService, stop: &AtomicBool, root: &Path) {
    while !stop.load(Ordering::Relaxed) {
        match server.recv_timeout(POLL) {
            Ok(Some(request)) => answer(request, service, root),
            Ok(None) => {}
            Err(_) => return,
        }
    }
}

/// A response: status and JSON document.
struct Reply {
    status: u16,
    body: Value,
}

impl Reply {
    fn ok(body: Value) -> Reply {
        Reply { status: 200, body }
    }

    fn error(status: u16, code: &str, message: &str) -> Reply {
        Reply {
            status,
            body: json!({"success": false, "error": sanitize(message), "code": code}),
        }
    }
}

fn answer(mut request: tiny_http::Request, service: &LiveService, root: &Path) {
    let reply = match read_body(&mut request) {
        Err(reply) => reply,
        Ok(()) => route(request.method(), request.url(), service, root),
    };
    let text = crate::engine::json::to_string(&reply.body).unwrap_or_else(|_| "null".into());
    let header = tiny_http::Header::from_bytes(&b"Content-Type"[..], &b"application/json"[..]);
    let mut response = tiny_http::Response::from_string(text).with_status_code(reply.status);
    if let Ok(header) = header {
        response = response.with_header(header);
    }
    // The client may be gone; nothing to do about it.
    let _ = request.respond(response);
}

/// Reads (and drops) the body, refusing one over `MAX_BODY`: no route takes a body, but a
/// client must not be able to make a worker hold an unbounded one.
fn read_body(request: &mut tiny_http::Request) -> Result<(), Reply> {
    let too_large = || {
        Reply::error(
            413,
            "BODY_TOO_LARGE",
            &format!("request bodies are limited to {MAX_BODY} bytes"),
        )
    };
    if request.body_length().is_some_and(|n| n > MAX_BODY) {
        return Err(too_large());
    }
    let mut sink = Vec::new();
    let read = std::io::Read::read_to_end(
        &mut std::io::Read::take(request.as_reader(), MAX_BODY as u64 + 1),
        &mut sink,
    );
    match read {
        Ok(n) if n > MAX_BODY => Err(too_large()),
        Ok(_) => Ok(()),
        Err(e) => Err(Reply::error(
            400,
            "INVALID_ARGUMENT",
            &format!("bad body: {e}"),
        )),
    }
}

fn route(method: &tiny_http::Method, url: &str, service: &LiveService, root: &Path) -> Reply {
    use tiny_http::Method::{Get, Post};
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let params = query_params(query);
    let result = match (method, path) {
        (Get, "/search") => arguments(&params, SEARCH_ARGS)
            .and_then(|args| SearchCall::parse(&args))
            .map(|call| on_index(service, root, false, move |i, f, x| call.run(i, f, x))),
        (Get, "/answer") => arguments(&params, ANSWER_ARGS)
            .and_then(|args| SearchCall::parse_answer(&args))
            .map(|call| on_index(service, root, false, move |i, f, x| call.run(i, f, x))),
        (Get, "/map") => arguments(&params, MAP_ARGS)
            .and_then(|args| MapCall::parse(&args))
            .map(|call| on_index(service, root, false, move |i, f, _| call.run(i, f).document)),
        (Get, "/stats") => {
            arguments(&params, &[]).map(|_| on_index(service, root, false, stats_document))
        }
        (Post, "/index") => {
            arguments(&params, &[]).map(|_| on_index(service, root, true, stats_document))
        }
        (_, "/search" | "/answer" | "/map" | "/stats") => {
            return Reply::error(405, "METHOD_NOT_ALLOWED", &format!("{path} takes GET"))
        }
        (_, "/index") => return Reply::error(405, "METHOD_NOT_ALLOWED", "/index takes POST"),
        _ => {
            return Reply::error(
                404,
                "NOT_FOUND",
                &format!("no route {path} (GET /search, /answer, /map, /stats; POST /index)"),
            )
        }
    };
    result.unwrap_or_else(|e| Reply::error(400, "INVALID_ARGUMENT", &e.0))
}

fn stats_document(index: &Index, freshness: &Freshness, _: &[SourceIndex]) -> Value {
    let mut stats = serde_json::to_value(index.stats()).unwrap_or(Value::Null);
    crate::contract::mark(freshness, &mut stats);
    stats
}

/// Runs `job` on the live index (after a full re-read with `rebuilt`); an index that
/// cannot be built is a 503 that names the root and how to change it.
fn on_index(
    service: &LiveService,
    root: &Path,
    rebuilt: bool,
    job: impl FnOnce(&Index, &Freshness, &[SourceIndex]) -> Value + Send + 'static,
) -> Reply {
    let job = move |current: Result<(&Index, Freshness), EngineError>, sources: &[SourceIndex]| {
        match current {
            Ok((index, freshness)) => Reply::ok(job(index, &freshness, sources)),
            Err(e) => engine_error(&e),
        }
    };
    let answered = if rebuilt {
        service.run_rebuilt(job)
    } else {
        service.run(job)
    };
    answered
        .unwrap_or_else(|e| Reply::error(500, "INTERNAL_ERROR", &e.to_string()))
        .with_root(root)
}

impl Reply {
    /// An empty or missing repository's answer says which root is served and how to serve
    /// another.
    fn with_root(mut self, root: &Path) -> Reply {
        if self.status == 503 {
            if let Value::Object(fields) = &mut self.body {
                fields.insert(
                    "root".into(),
                    sanitize(&root.display().to_string()).into_owned().into(),
                );
                fields.insert(
                    "hint".into(),
                    "the index is empty: add code files in a supported language here, or \
                     restart with `mapscope serve PATH --http ADDR` on another repository"
                        .into(),
                );
            }
        }
        self
    }
}

fn engine_error(e: &EngineError) -> Reply {
    let status = match e {
        EngineError::RepoEmpty { .. }
        | EngineError::RepoNotFound(_)
        | EngineError::InvalidRepo(_) => 503,
        _ => 500,
    };
    Reply::error(status, e.code(), &e.to_string())
}

/// The query string's `key=value` pairs, percent- and `+`-decoded, in order.
fn query_params(query: &str) -> Vec<(String, String)> {
    let decode = |s: &str| {
        percent_encoding::percent_decode_str(&s.replace('+', " "))
            .decode_utf8_lossy()
            .into_owned()
    };
    query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (decode(k), decode(v))
        })
        .collect()
}

/// How a query parameter maps onto a contract argument.
#[derive(Clone, Copy)]
enum Kind {
    Text,
    Int,
    Bool,
    /// Repeatable, or comma-separated.
    List,
}

/// (query parameter, contract argument, kind) per route.
type ArgSpec = &'static [(&'static str, &'static str, Kind)];
const SEARCH_ARGS: ArgSpec = &[
    ("q", "query", Kind::Text),
    ("top", "top", Kind::Int),
    ("files", "files", Kind::Bool),
    ("paths", "paths", Kind::List),
    ("lang", "lang", Kind::List),
    ("include", "include", Kind::List),
    ("exclude", "exclude", Kind::List),
    ("answer_style", "answer_style", Kind::Text),
];
const ANSWER_ARGS: ArgSpec = &[
    ("q", "question", Kind::Text),
    ("paths", "paths", Kind::List),
    ("languages", "languages", Kind::List),
    ("max_sources", "max_sources", Kind::Int),
    ("answer_style", "answer_style", Kind::Text),
];
const MAP_ARGS: ArgSpec = &[
    ("tokens", "tokens", Kind::Int),
    ("query", "query", Kind::Text),
    ("focus", "focus_files", Kind::List),
    ("ident", "identifiers", Kind::List),
    ("tokenizer", "tokenizer", Kind::Text),
    ("include", "include", Kind::List),
    ("exclude", "exclude", Kind::List),
    ("lang", "lang", Kind::List),
];

/// The contract's arguments from query parameters: unknown parameters refused, numbers and
/// booleans typed (a value that is neither stays text, so the contract names the argument).
fn arguments(params: &[(String, String)], spec: ArgSpec) -> Result<Map<String, Value>, ArgError> {
    let mut args = Map::new();
    for (key, value) in params {
        let Some(&(_, name, kind)) = spec.iter().find(|s| s.0 == key) else {
            let known: Vec<&str> = spec.iter().map(|s| s.0).collect();
            return Err(ArgError::new(format!(
                "unknown parameter `{key}` (expected: {})",
                if known.is_empty() {
                    "none".into()
                } else {
                    known.join(", ")
                }
            )));
        };
        let typed = match kind {
            Kind::Text => Value::String(value.clone()),
            Kind::Int => value
                .parse::<u64>()
                .map_or_else(|_| Value::String(value.clone()), Value::from),
            Kind::Bool => match value.as_str() {
                "" | "1" | "true" => Value::Bool(true),
                "0" | "false" => Value::Bool(false),
                _ => Value::String(value.clone()),
            },
            Kind::List => {
                let items = value
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(|s| Value::String(s.into()));
                let mut list = match args.remove(name) {
                    Some(Value::Array(list)) => list,
                    _ => Vec::new(),
                };
                list.extend(items);
                Value::Array(list)
            }
        };
        args.insert(name.into(), typed);
    }
    Ok(args)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_addresses_unless_allowed() {
        assert!(listen_address("127.0.0.1:0", false).is_ok());
        assert!(listen_address("[::1]:0", false).is_ok());
        assert!(listen_address("localhost:0", false).is_ok());
        assert!(matches!(
            listen_address("0.0.0.0:0", false),
            Err(ServeError::NotLoopback(_))
        ));
        assert!(listen_address("0.0.0.0:0", true).is_ok());
        assert!(matches!(
            listen_address("no port here", false),
            Err(ServeError::BadAddress(_))
        ));
    }

    #[test]
    fn query_parameters_become_typed_contract_arguments() {
        let params = query_params("q=css+modules%20hashing&top=3&files&lang=ts,js&lang=py");
        let args = arguments(&params, SEARCH_ARGS).unwrap();
        assert_eq!(args["query"], "css modules hashing");
        assert_eq!(args["top"], 3);
        assert_eq!(args["files"], true);
        assert_eq!(args["lang"], json!(["ts", "js", "py"]));
        // A bad number stays text, and the contract names the argument.
        let args = arguments(&query_params("q=x&top=many"), SEARCH_ARGS).unwrap();
        let err = SearchCall::parse(&args).unwrap_err();
        assert!(err.0.contains("top"), "{err}");
        let err = arguments(&query_params("q=x&bogus=1"), SEARCH_ARGS).unwrap_err();
        assert!(err.0.contains("unknown parameter `bogus`"), "{err}");
    }
}
