//! `mapscope serve [PATH] --http ADDR`: the live index over HTTP, for tools that speak HTTP
//! rather than MCP. The same live-index service as the MCP server (`engine::live`: built at
//! start, refreshed from the file watcher) and the same output contract (`contract`):
//!
//! - `GET /search?q=…` (`top`, `files`, `paths`, `lang`, `include`, `exclude`,
//!   `answer_style`, `sources`): the search JSON;
//! - `GET /answer?q=…` (`paths`, `languages`, `max_sources`, `answer_style`, `sources`): the
//!   `repo_symbol_answer` contract, written by the configured LLM when there is one
//!   (`engine::answer::llm`, called on the request's connection thread after its permit is
//!   given back, not on the engine thread);
//! - `GET /map` (`tokens`, `query`, `focus`, `ident`, `tokenizer`, `include`, `exclude`,
//!   `lang`): `map --format json`;
//! - `GET /refs?name=…` or `?at=FILE:LINE` (`direction`, `top`): who uses a definition and
//!   what it uses, `refs --json` (404 `NOT_FOUND` when nothing is defined by that name or at
//!   that line);
//! - `GET /stats`: `stats --json`;
//! - `POST /index`: read every file again, then the stats (the one route that changes
//!   anything: no GET does).
//!
//! Who is answered (`guard`): a `Host` that is the address reached (or loopback's names, or
//! an `--allow-host` name), else 421 `HOST_NOT_ALLOWED`; no `Origin` but the server's own or
//! an `--allow-origin` one, and no `Sec-Fetch-Site: cross-site`/`same-site` without such an
//! origin, else 403 `ORIGIN_NOT_ALLOWED`: a web page cannot make the browser read the
//! server, even with a rebound DNS name. `Access-Control-Allow-Origin` is sent to an
//! `--allow-origin` origin only (and its `OPTIONS` preflight answered).
//!
//! `sources` (repeatable; commas separate names) picks the extra sources searched: a NAME the
//! server was started with (`--source NAME=PATH`), or `NAME=PATH` for a folder at or under a
//! `--source-root` (none without one: 403 `SOURCE_NOT_ALLOWED`), checked like `--source`.
//! Every source is built by the live service's source pool, on its own thread, within the
//! limits given (`engine::live::source_pool::SourceLimits`): a request for one not built
//! yet waits at most `SOURCE_WAIT`, then is 503 `SOURCE_BUILDING` with `Retry-After` (one
//! over a limit: 422 with the engine's code, `TREE_TOO_LARGE` or `BUILD_TIMEOUT`), while
//! every other request goes on. An empty `sources=` searches the project only.
//!
//! Errors are `{success: false, error, code}` with an HTTP status per code: from the routes,
//! 400 `INVALID_ARGUMENT`, 404 `NOT_FOUND`, 405 `METHOD_NOT_ALLOWED`, 503 for a repository
//! with nothing to index, 500 otherwise; from the connection layer (`conn`, which also logs
//! each on stderr, as `handle` logs the guard's refusals), 400 `BAD_REQUEST` (a malformed
//! request line or header, an HTTP/1.1 request without `Host`), 408 `REQUEST_TIMEOUT` (a
//! head or body not received within 10 s each; a head within 1 s once 24 connections are
//! open), 411 `LENGTH_REQUIRED` (`Transfer-Encoding` bodies are not read), 413
//! `BODY_TOO_LARGE` (over 64 KiB), 429 `TOO_MANY_CONNECTIONS` (8 open from that address
//! already), 431 `HEADERS_TOO_LARGE` (a head over 16 KiB), 503 `SERVER_BUSY` (all 32
//! connections open), 505 `HTTP_VERSION_NOT_SUPPORTED`. One request per connection,
//! answered with `Content-Length` and `Connection: close`. Only loopback addresses are
//! served unless `--allow-remote` is given: the index holds the repository's code.
//!
//! The connection layer (`conn`) is our own, on `std::net` and `httparse`: tiny_http and
//! hyper answer a head they cannot parse themselves with a bare 400, and tiny_http hides its
//! sockets, so slow clients could not be cut portably.
//!
//! Threads: `conn`'s accept thread and connection threads, which run the routes (at most
//! `WORKERS` at once hold a permit to use the engine; a source wait and an `/answer`'s
//! model call hold none); the live-index service's engine thread, which answers their jobs
//! one at a time, and its source-build thread. `serve` runs on the caller's thread. SIGINT
//! and SIGTERM set a flag, which also cancels the builds under way (the project's and a
//! source's, `base::limits`): the requests in hand are answered (for up to
//! `conn::STOP_WAIT`), then the routes' state is dropped and the service saves its cache
//! (for up to `STOP_GRACE`) before the process exits: within 2 s of the signal whatever is
//! being built. A second signal ends the process at once.

mod conn;
mod guard;

use std::net::{SocketAddr, TcpListener, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};

use crate::contract::{ArgError, MapCall, RefsCall, SearchCall, SourcePolicy, SourceRoots};
use crate::engine::answer::llm::{LlmConfig, LlmSetting};
use crate::engine::base::error::EngineError;
use crate::engine::base::limits::BuildBudget;
use crate::engine::base::text::sanitize;
use crate::engine::index::{Index, IndexOptions};
use crate::engine::live::source_pool::{SourceLimits, SourcePool, Unready};
use crate::engine::live::{Freshness, JobService, LiveIndex, ServiceError, SourceIndex};
use crate::engine::search::sources::SourceSpec;

use conn::{Permits, Reply, Request};

/// How long a request waits for the sources it selects to be built before it is answered
/// 503 `SOURCE_BUILDING` (long enough for a small source named for the first time).
pub const SOURCE_WAIT: Duration = Duration::from_millis(500);
/// The `Retry-After` of a source still building, in seconds.
const SOURCE_RETRY_S: u64 = 2;
/// How long the live service may take to stop (its cache save) once the requests in hand
/// are done: with `conn::STOP_WAIT` and the stop flag's poll, under 2 s from a signal.
pub const STOP_GRACE: Duration = Duration::from_millis(600);

/// What `serve` needs besides the repository.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    pub addr: String,
    pub allow_remote: bool,
    /// `--allow-host`: other names a `Host` may give (`NAME` or `NAME:PORT`).
    pub allow_hosts: Vec<String>,
    /// `--allow-origin`: web origins allowed to call the server (with CORS).
    pub allow_origins: Vec<String>,
    /// `--source-root`: canonical folders under which a request may name a source.
    pub source_roots: Vec<PathBuf>,
    /// Watch the files and refresh the index as they change.
    pub watch: bool,
    /// Extra sources searched after the project (checked by `sources::check_sources`).
    pub sources: Vec<SourceSpec>,
    pub limits: SourceLimits,
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

/// Checks an `--allow-origin` value: `http://` or `https://`, a host, maybe a port, no path.
pub fn check_origin(origin: &str) -> Result<(), String> {
    let rest = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"));
    let valid = rest.is_some_and(|host| {
        !host.is_empty()
            && host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-._:[]".contains(c))
    });
    if valid {
        Ok(())
    } else {
        Err(format!(
            "--allow-origin `{}` is not an origin (scheme://host[:port], e.g. http://localhost:3000)",
            sanitize(origin)
        ))
    }
}

/// Checks an `--allow-host` value: a host name or address, maybe with a port.
pub fn check_host(host: &str) -> Result<(), String> {
    let valid = !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-._:[]".contains(c));
    if valid {
        Ok(())
    } else {
        Err(format!(
            "--allow-host `{}` is not a host name (NAME or NAME:PORT)",
            sanitize(host)
        ))
    }
}

/// Serves `root` on `opts.addr` until SIGINT or SIGTERM. `on_listening` gets the bound
/// address (a port of 0 picks a free one) once requests are accepted.
pub fn serve(
    root: PathBuf,
    mut index_opts: IndexOptions,
    opts: &HttpOptions,
    on_listening: impl FnOnce(SocketAddr),
) -> anyhow::Result<()> {
    let addr = listen_address(&opts.addr, opts.allow_remote)?;
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        // First, so that it sees the flag as the first signal left it: a second signal
        // while the server stops ends the process at once (status 1).
        signal_hook::flag::register_conditional_shutdown(signal, 1, Arc::clone(&stop))?;
        signal_hook::flag::register(signal, Arc::clone(&stop))?;
    }
    let listener = TcpListener::bind(addr).map_err(|e| ServeError::Listen {
        addr: addr.to_string(),
        why: e.to_string(),
    })?;
    let bound = listener.local_addr().unwrap_or(addr);
    // The project's builds end when the server stops, as the sources' do.
    index_opts.walk.budget = Some(Arc::new(BuildBudget::stop_only(Arc::clone(&stop))));
    let pool = SourcePool::start(
        opts.sources.clone(),
        index_opts.clone(),
        opts.limits,
        Arc::clone(&stop),
        Box::new(crate::contract::warn),
    );
    let live = LiveIndex::new(
        root.clone(),
        index_opts,
        opts.watch,
        Box::new(crate::contract::warn),
    );
    let mut service = JobService::start_with(live, pool);
    service.set_stop_grace(STOP_GRACE);
    let llm = LlmConfig::from_env();
    if let Some(Err(e)) = &llm {
        crate::contract::warn(&format!("answers stay extractive: {e}"));
    }
    let roots = if opts.source_roots.is_empty() {
        SourceRoots::Nothing
    } else {
        SourceRoots::Under(opts.source_roots.clone())
    };
    let shared = Shared {
        service,
        policy: SourcePolicy::new(&root, opts.sources.clone(), roots),
        guard: guard::Guard::new(&opts.allow_hosts, &opts.allow_origins),
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
        move |request: &Request, permits: &Permits| handle(request, permits, &shared),
    )?;
    Ok(())
}

/// What the routes use.
struct Shared {
    service: JobService,
    root: PathBuf,
    policy: SourcePolicy,
    guard: guard::Guard,
    llm: LlmSetting,
}

/// A request: the guard's check (logged when it refuses), then its route, with the CORS
/// header an allowed origin gets.
fn handle(request: &Request, permits: &Permits, shared: &Shared) -> Reply {
    let passed = match shared.guard.check(request) {
        Ok(passed) => passed,
        Err(refusal) => {
            let code = refusal.body["code"].as_str().unwrap_or("FORBIDDEN");
            let why = refusal.body["error"].as_str().unwrap_or_default();
            crate::contract::error_line(code, &format!("http {}: {why}", request.peer));
            return refusal;
        }
    };
    let reply = route(request, permits, shared, passed.cors.is_some());
    guard::cors_headers(reply, passed.cors.as_deref())
}

fn route(request: &Request, permits: &Permits, shared: &Shared, cors: bool) -> Reply {
    let (method, url) = (request.method.as_str(), request.target.as_str());
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let params = query_params(query);
    let known = matches!(
        path,
        "/search" | "/answer" | "/map" | "/refs" | "/stats" | "/index"
    );
    let result = match (method, path) {
        ("GET", "/search") => arguments(&params, SEARCH_ARGS)
            .and_then(|args| SearchCall::parse(&args).map_err(|e| named(e, SEARCH_ARGS)))
            .map(|call| search(shared, permits, call, false)),
        ("GET", "/answer") => arguments(&params, ANSWER_ARGS)
            .and_then(|args| SearchCall::parse_answer(&args).map_err(|e| named(e, ANSWER_ARGS)))
            .map(|call| search(shared, permits, call, true)),
        ("GET", "/map") => arguments(&params, MAP_ARGS)
            .and_then(|args| MapCall::parse(&args).map_err(|e| named(e, MAP_ARGS)))
            .map(|call| on_index(shared, permits, false, move |i, f| call.run(i, f).document)),
        ("GET", "/refs") => arguments(&params, REFS_ARGS)
            .and_then(|args| RefsCall::parse(&args).map_err(|e| named(e, REFS_ARGS)))
            .map(|call| references(shared, permits, call)),
        ("GET", "/stats") => arguments(&params, &[]).map(|_| match shared.service.building() {
            Some(p) => Reply::ok(crate::contract::building_stats(&p)),
            None => on_index(shared, permits, false, stats_document),
        }),
        ("POST", "/index") => {
            arguments(&params, &[]).map(|_| on_index(shared, permits, true, stats_document))
        }
        // A preflight from an allowed origin: what it may send.
        ("OPTIONS", _) if cors && known => {
            return Reply::ok(serde_json::json!({"success": true}))
                .with_header("Access-Control-Allow-Methods", "GET, POST".into())
                .with_header("Access-Control-Allow-Headers", "Content-Type".into())
                .with_header("Access-Control-Max-Age", "600".into())
        }
        (_, "/search" | "/answer" | "/map" | "/refs" | "/stats") => {
            return Reply::error(405, "METHOD_NOT_ALLOWED", &format!("{path} takes GET"))
        }
        (_, "/index") => return Reply::error(405, "METHOD_NOT_ALLOWED", "/index takes POST"),
        _ => {
            return Reply::error(
                404,
                "NOT_FOUND",
                &format!(
                    "no route {path} (GET /search, /answer, /map, /refs, /stats; POST /index)"
                ),
            )
        }
    };
    result.unwrap_or_else(|e| Reply::error(400, "INVALID_ARGUMENT", &e.0))
}

/// `/search` and `/answer`: the sources the request selects (waited for here, holding no
/// permit), the search on the engine thread under a permit; for `/answer`, the configured
/// model's answer after the permit is given back (a model that hangs holds no worker).
fn search(shared: &Shared, permits: &Permits, call: SearchCall, synthesized: bool) -> Reply {
    let selected = match call.selected_sources(&shared.policy) {
        Ok(selected) => selected,
        Err(refused) => {
            let status = if refused.code() == "SOURCE_NOT_ALLOWED" {
                403
            } else {
                400
            };
            return Reply::error(status, refused.code(), refused.message());
        }
    };
    let sources = match shared.service.sources(selected.as_deref(), SOURCE_WAIT) {
        Ok(sources) => sources,
        Err(why) => return unready(&why),
    };
    let style = call.style();
    let job = move |current: Result<(&Index, Freshness), EngineError>, sources: &[&SourceIndex]| {
        match current {
            Ok((index, freshness)) => Ok(call.run(index, &freshness, sources)),
            Err(e) => Err(engine_error(&e)),
        }
    };
    let answered = {
        let _permit = permits.take();
        shared.service.run_with_sources(sources, job)
    };
    match answered {
        Ok(Ok(mut document)) => {
            if synthesized {
                document.synthesize(style, &shared.llm);
            }
            Reply::ok(document.into_value())
        }
        Ok(Err(refused)) => refused.with_root(&shared.root),
        Err(e) => service_error(&e).with_root(&shared.root),
    }
}

/// `/refs`: the callers/callees document on the engine thread under a permit; a target
/// naming no definition is 404 `NOT_FOUND`.
fn references(shared: &Shared, permits: &Permits, call: RefsCall) -> Reply {
    let job = move |current: Result<(&Index, Freshness), EngineError>| match current {
        Ok((index, freshness)) => match call.run(index, &freshness) {
            Ok(document) => Reply::ok(document),
            Err(e) => {
                let status = if e.code() == "NOT_FOUND" { 404 } else { 400 };
                Reply::error(status, e.code(), &e.to_string())
            }
        },
        Err(e) => engine_error(&e),
    };
    let _permit = permits.take();
    shared
        .service
        .run(job)
        .unwrap_or_else(|e| service_error(&e))
        .with_root(&shared.root)
}

/// A selected source that is not ready: 503 with `Retry-After` while it builds (or waits,
/// or the queue is full), 422 with the engine's code when its build failed.
fn unready(why: &Unready) -> Reply {
    let (status, retry) = match why {
        Unready::Building { .. } | Unready::Busy { .. } => (503, Some(SOURCE_RETRY_S)),
        Unready::Stopped => (503, None),
        Unready::Failed { code, .. } => match *code {
            "BUILD_CANCELLED" => (503, None),
            "INTERNAL_ERROR" => (500, None),
            _ => (422, None),
        },
    };
    let mut reply = Reply::error(status, why.code(), &why.message());
    if let (
        Value::Object(fields),
        Unready::Building { name, .. } | Unready::Busy { name } | Unready::Failed { name, .. },
    ) = (&mut reply.body, why)
    {
        fields.insert("source".into(), name.clone().into());
        if let Some(s) = retry {
            fields.insert("retry_after_s".into(), s.into());
        }
    }
    match retry {
        Some(s) => reply.with_header("Retry-After", s.to_string()),
        None => reply,
    }
}

fn service_error(e: &ServiceError) -> Reply {
    match e {
        ServiceError::Source(why) => unready(why),
        ServiceError::ShuttingDown => Reply::error(503, "SHUTTING_DOWN", &e.to_string()),
        ServiceError::Stopped => Reply::error(500, "INTERNAL_ERROR", &e.to_string()),
    }
}

fn stats_document(index: &Index, freshness: &Freshness) -> Value {
    let mut stats = crate::contract::StatsDoc::value(&index.stats());
    crate::contract::mark(freshness, &mut stats);
    stats
}

/// Runs `job` on the live index under a permit (after a full re-read with `rebuilt`); an
/// index that cannot be built is a 503 that names the root and how to change it.
fn on_index(
    shared: &Shared,
    permits: &Permits,
    rebuilt: bool,
    job: impl FnOnce(&Index, &Freshness) -> Value + Send + 'static,
) -> Reply {
    let job = move |current: Result<(&Index, Freshness), EngineError>| match current {
        Ok((index, freshness)) => Reply::ok(job(index, &freshness)),
        Err(e) => engine_error(&e),
    };
    let _permit = permits.take();
    let answered = if rebuilt {
        shared.service.run_rebuilt(job)
    } else {
        shared.service.run(job)
    };
    answered
        .unwrap_or_else(|e| service_error(&e))
        .with_root(&shared.root)
}

impl Reply {
    /// An empty or missing repository's answer says which root is served and how to serve
    /// another.
    fn with_root(mut self, root: &Path) -> Reply {
        let empty = matches!(
            self.body["code"].as_str(),
            Some("REPO_EMPTY" | "REPO_NOT_FOUND" | "INVALID_REPO")
        );
        if empty {
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
        | EngineError::InvalidRepo(_)
        | EngineError::Stopped(_) => 503,
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

const REFS_ARGS: ArgSpec = &[
    ("name", "name", Kind::Text),
    ("at", "at", Kind::Text),
    ("direction", "direction", Kind::Text),
    ("top", "top", Kind::Int),
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
