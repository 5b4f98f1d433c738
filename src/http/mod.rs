//! `mapscope serve [PATH] --http ADDR`: the live index over HTTP, for tools that speak HTTP
//! rather than MCP. The same live-index service as the MCP server (`engine::live`: built at
//! start, refreshed from the file watcher) and the same output contract (`contract`):
//!
//! - `GET /search?q=…` (`top`, `files`, `paths`, `lang`, `include`, `exclude`,
//!   `answer_style`, `sources`): the search JSON;
//! - `GET /answer?q=…` (`paths`, `languages`, `max_sources`, `answer_style`, `sources`): the
//!   `repo_symbol_answer` contract, written by the configured LLM when there is one
//!   (`engine::answer::llm`, called on the request's connection thread, not the engine
//!   thread);
//! - `GET /map` (`tokens`, `query`, `focus`, `ident`, `tokenizer`, `include`, `exclude`,
//!   `lang`): `map --format json`;
//! - `GET /stats`: `stats --json`;
//! - `POST /index`: read every file again, then the stats.
//!
//! `sources` (repeatable; commas separate names) picks the extra sources searched: a NAME the
//! server was started with (`--source NAME=PATH`), or `NAME=PATH` for another read-only root,
//! checked like `--source` and kept indexed by the live service. A server started with
//! `--allow-remote` accepts names only: a remote client could otherwise make it read any
//! directory of the machine. An empty `sources=` searches the project only.
//!
//! Errors are `{success: false, error, code}` with an HTTP status per code: from the routes,
//! 400 `INVALID_ARGUMENT`, 404 `NOT_FOUND`, 405 `METHOD_NOT_ALLOWED`, 503 for a repository
//! with nothing to index, 500 otherwise; from the connection layer (`conn`, which also logs
//! each on stderr), 400 `BAD_REQUEST` (a malformed request line or header), 408
//! `REQUEST_TIMEOUT` (a head or body not received within 10 s each), 411 `LENGTH_REQUIRED`
//! (`Transfer-Encoding` bodies are not read), 413 `BODY_TOO_LARGE` (over 64 KiB), 431
//! `HEADERS_TOO_LARGE` (a head over 16 KiB), 503 `SERVER_BUSY` (all 32 connections open),
//! 505 `HTTP_VERSION_NOT_SUPPORTED`. One request per connection, answered with
//! `Content-Length` and `Connection: close`. Only loopback addresses are served unless
//! `--allow-remote` is given: the index holds the repository's code.
//!
//! The connection layer (`conn`) is our own, on `std::net` and `httparse`: tiny_http and
//! hyper answer a head they cannot parse themselves with a bare 400, and tiny_http hides its
//! sockets, so slow clients could not be cut portably.
//!
//! Threads: `conn`'s accept thread and connection threads, which run the routes (at most
//! `WORKERS` at once; an `/answer`'s model call runs there too); the live-index service's
//! engine thread, which answers their jobs one at a time. `serve` runs on the caller's
//! thread. SIGINT and SIGTERM set a flag: the requests in hand are answered, then the routes'
//! state is dropped and the service saves its cache before the process exits.

mod conn;

use std::net::{SocketAddr, TcpListener, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::contract::{ArgError, MapCall, SearchCall, SourcePolicy};
use crate::engine::answer::llm::{LlmConfig, LlmSetting};
use crate::engine::base::error::EngineError;
use crate::engine::base::text::sanitize;
use crate::engine::index::{Index, IndexOptions};
use crate::engine::live::{Freshness, LiveIndex, LiveService, SourceIndex};
use crate::engine::search::sources::SourceSpec;

use conn::{Reply, Request};

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
    let listener = TcpListener::bind(addr).map_err(|e| ServeError::Listen {
        addr: addr.to_string(),
        why: e.to_string(),
    })?;
    let bound = listener.local_addr().unwrap_or(addr);
    let live = LiveIndex::new(
        root.clone(),
        index_opts,
        opts.watch,
        Box::new(crate::contract::warn),
    )
    .with_sources(opts.sources.clone());
    let llm = LlmConfig::from_env();
    if let Some(Err(e)) = &llm {
        crate::contract::warn(&format!("answers stay extractive: {e}"));
    }
    let shared = Shared {
        service: LiveService::start_with(live),
        policy: SourcePolicy::new(&root, opts.sources.clone(), !opts.allow_remote),
        root,
        llm,
    };
    on_listening(bound);
    // `conn::serve` drops the routes' state (and with it the service, which saves the
    // cache) once the requests in hand are answered.
    conn::serve(
        listener,
        conn::Limits::from_env(),
        stop,
        move |request: &Request| route(&request.method, &request.target, &shared),
    )?;
    Ok(())
}

/// What the routes use.
struct Shared {
    service: LiveService,
    root: PathBuf,
    policy: SourcePolicy,
    llm: LlmSetting,
}

fn route(method: &str, url: &str, shared: &Shared) -> Reply {
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let params = query_params(query);
    let result = match (method, path) {
        ("GET", "/search") => arguments(&params, SEARCH_ARGS)
            .and_then(|args| SearchCall::parse(&args).map_err(|e| named(e, SEARCH_ARGS)))
            .and_then(|call| search(shared, call, false)),
        ("GET", "/answer") => arguments(&params, ANSWER_ARGS)
            .and_then(|args| SearchCall::parse_answer(&args).map_err(|e| named(e, ANSWER_ARGS)))
            .and_then(|call| search(shared, call, true)),
        ("GET", "/map") => arguments(&params, MAP_ARGS)
            .and_then(|args| MapCall::parse(&args).map_err(|e| named(e, MAP_ARGS)))
            .map(|call| on_index(shared, false, move |i, f, _| call.run(i, f).document)),
        ("GET", "/stats") => arguments(&params, &[]).map(|_| match shared.service.building() {
            Some(p) => Reply::ok(crate::contract::building_stats(&p)),
            None => on_index(shared, false, stats_document),
        }),
        ("POST", "/index") => {
            arguments(&params, &[]).map(|_| on_index(shared, true, stats_document))
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

/// `/search` and `/answer`: the search on the engine thread, over the sources the request
/// selects; for `/answer`, the configured model's answer here, on the worker.
fn search(shared: &Shared, call: SearchCall, synthesized: bool) -> Result<Reply, ArgError> {
    let selected = call.selected_sources(&shared.policy)?;
    let style = call.style();
    let job = move |current: Result<(&Index, Freshness), EngineError>, sources: &[&SourceIndex]| {
        match current {
            Ok((index, freshness)) => Reply::ok(call.run(index, &freshness, sources)),
            Err(e) => engine_error(&e),
        }
    };
    let mut reply = shared
        .service
        .run_selected(selected, job)
        .unwrap_or_else(|e| Reply::error(500, "INTERNAL_ERROR", &e.to_string()))
        .with_root(&shared.root);
    if synthesized && reply.status == 200 {
        crate::contract::synthesize(&mut reply.body, style, &shared.llm);
    }
    Ok(reply)
}

fn stats_document(index: &Index, freshness: &Freshness, _: &[SourceIndex]) -> Value {
    let mut stats = crate::contract::StatsDoc::value(&index.stats());
    crate::contract::mark(freshness, &mut stats);
    stats
}

/// Runs `job` on the live index (after a full re-read with `rebuilt`); an index that
/// cannot be built is a 503 that names the root and how to change it.
fn on_index(
    shared: &Shared,
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
        shared.service.run_rebuilt(job)
    } else {
        shared.service.run(job)
    };
    answered
        .unwrap_or_else(|e| Reply::error(500, "INTERNAL_ERROR", &e.to_string()))
        .with_root(&shared.root)
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
    /// Repeatable, each value one item whole (a path may hold a comma); an empty value
    /// adds none but still makes the list (empty: none of them).
    Each,
}

/// A contract refusal in the route's parameter names (`q`, not `query`).
fn named(e: ArgError, spec: ArgSpec) -> ArgError {
    e.in_terms_of(spec.iter().map(|&(param, arg, _)| (param, arg)))
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
    ("sources", "sources", Kind::Each),
];
const ANSWER_ARGS: ArgSpec = &[
    ("q", "question", Kind::Text),
    ("paths", "paths", Kind::List),
    ("languages", "languages", Kind::List),
    ("max_sources", "max_sources", Kind::Int),
    ("answer_style", "answer_style", Kind::Text),
    ("sources", "sources", Kind::Each),
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
            Kind::List | Kind::Each => {
                let items: Vec<&str> = match kind {
                    Kind::List => value.split(',').collect(),
                    _ => vec![value.as_str()],
                };
                let items = items
                    .into_iter()
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
    use serde_json::json;

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
