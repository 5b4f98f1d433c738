//! `mapscope serve [PATH] --http ADDR`: the live index over HTTP, for tools that speak HTTP
//! rather than MCP. The same live-index service as the MCP server (`engine::live`: built at
//! start, refreshed from the file watcher) and the same output contract (`contract`):
//!
//! - `GET /search?q=…` (`top`, `files`, `paths`, `lang`, `include`, `exclude`,
//!   `answer_style`, `sources`): the search JSON;
//! - `GET /answer?q=…` (`paths`, `languages`, `max_sources`, `answer_style`, `sources`): the
//!   `repo_symbol_answer` contract, written by the configured LLM when there is one
//!   (`engine::answer::llm`, called on the request's worker, not the engine thread);
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
//! Errors are `{success: false, error, code}` with an HTTP status per code (400
//! `INVALID_ARGUMENT`, 404 `NOT_FOUND`, 405 `METHOD_NOT_ALLOWED`, 408 `REQUEST_TIMEOUT`, 413
//! `BODY_TOO_LARGE`, 503 `SERVER_BUSY` or a repository with nothing to index, 500
//! otherwise). A request line or header tiny_http cannot parse gets its bare 400 and the
//! connection is closed before mapscope sees it. Only loopback addresses are served unless
//! `--allow-remote` is given: the index holds the repository's code.
//!
//! Threads: tiny_http's accept thread and its per-connection threads (which read request
//! lines, headers and bodies up to 1 KiB); `WORKERS` request threads, which bounds how many
//! requests are in flight (the rest wait in the accept queue); body readers (see
//! `BodyGuard`); the deadline thread; the live-index service's engine thread, which answers
//! the workers' jobs one at a time. SIGINT and SIGTERM set a flag the workers poll: they
//! finish the request in hand and stop, and the service saves its cache before the process
//! exits.

use std::net::{SocketAddr, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use std::sync::atomic::AtomicUsize;
use std::time::Instant;

use serde_json::{json, Map, Value};

use crate::contract::{ArgError, MapCall, SearchCall, SourcePolicy};
use crate::engine::answer::llm::{LlmConfig, LlmSetting};
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
/// How long a client has to send a request body, from when a worker takes the request.
/// Past it the read is cut (see `stop_reading`) and the client gets 408 `REQUEST_TIMEOUT`.
pub const BODY_DEADLINE: Duration = Duration::from_secs(10);
/// Body readers at once; a request with a body beyond them gets 503 `SERVER_BUSY`.
const MAX_BODY_READERS: usize = 8;
/// Bodies tiny_http reads itself, on its connection thread, before handing the request on.
const BUFFERED_BODY: usize = 1024;

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
        Box::new(crate::contract::warn),
    )
    .with_sources(opts.sources.clone());
    let llm = LlmConfig::from_env();
    if let Some(Err(e)) = &llm {
        crate::contract::warn(&format!("answers stay extractive: {e}"));
    }
    let shared = Arc::new(Shared {
        service: LiveService::start_with(live),
        policy: SourcePolicy::new(&root, opts.sources.clone(), !opts.allow_remote),
        root,
        llm,
        deadlines: deadline_thread()?,
        body_readers: AtomicUsize::new(0),
        port: bound.port(),
    });
    let server = Arc::new(server);
    on_listening(bound);
    let workers: Vec<_> = (0..WORKERS)
        .map(|i| {
            let (server, shared, stop) =
                (Arc::clone(&server), Arc::clone(&shared), Arc::clone(&stop));
            std::thread::Builder::new()
                .name(format!("mapscope-http-{i}"))
                .spawn(move || worker(&server, &shared, &stop))
        })
        .collect::<Result<_, _>>()?;
    for w in workers {
        let _ = w.join();
    }
    // The workers are done; dropping the last handle lets the engine thread save the cache
    // (a body reader still running holds one until its deadline; the process exit ends it).
    drop(shared);
    Ok(())
}

/// What every worker and body reader uses.
struct Shared {
    service: LiveService,
    root: PathBuf,
    policy: SourcePolicy,
    llm: LlmSetting,
    /// To the deadline thread: a body read to cut at a deadline unless done by then.
    deadlines: crossbeam_channel::Sender<Deadline>,
    body_readers: AtomicUsize,
    /// The port served: with the client's address, it names the connection's socket.
    port: u16,
}

fn worker(server: &tiny_http::Server, shared: &Arc<Shared>, stop: &AtomicBool) {
    while !stop.load(Ordering::Relaxed) {
        match server.recv_timeout(POLL) {
            Ok(Some(request)) => take(request, shared),
            Ok(None) => {}
            Err(_) => return,
        }
    }
}

/// A request whose body is in memory already (none, or up to `BUFFERED_BODY` bytes that
/// tiny_http read) is answered here. Any other body would make the worker wait on the client's
/// socket, which has no read timeout in tiny_http: a client that sends headers and then
/// trickles its body or stops would hold the worker forever, and dropping an unread request
/// blocks too (tiny_http drains the rest of the body). So such a request goes to a body
/// reader thread (at most `MAX_BODY_READERS`; beyond them 503), which reads the body and
/// answers, and the deadline thread cuts its read at `BODY_DEADLINE` by shutting down the
/// reading half of the connection's socket: the read returns, the reader answers 408 and
/// the drop finds nothing left to drain. The worker itself never waits on a client.
fn take(request: tiny_http::Request, shared: &Arc<Shared>) {
    let chunked = request
        .headers()
        .iter()
        .any(|h| h.field.equiv("Transfer-Encoding"));
    let buffered = !chunked && request.body_length().is_none_or(|n| n <= BUFFERED_BODY);
    if buffered {
        return answer(request, shared, None);
    }
    let peer = request.remote_addr().copied();
    let busy = shared.body_readers.fetch_add(1, Ordering::SeqCst) >= MAX_BODY_READERS;
    let guard = BodyGuard(Arc::clone(shared));
    if busy {
        drop(guard);
        return refuse_busy(request, shared, peer);
    }
    let done = Arc::new(AtomicBool::new(false));
    let at = Instant::now() + BODY_DEADLINE;
    if let Some(peer) = peer {
        let _ = shared.deadlines.send(Deadline {
            at,
            peer,
            port: shared.port,
            done: Arc::clone(&done),
        });
    }
    let spawned = std::thread::Builder::new()
        .name("mapscope-http-body".into())
        .spawn(move || {
            let shared = Arc::clone(&guard.0);
            answer(request, &shared, Some(at));
            done.store(true, Ordering::SeqCst);
            drop(guard);
        });
    // No thread: the request was moved into the closure and is dropped with it here, which
    // reads the rest of its body; the deadline registered above bounds that too.
    let _ = spawned;
}

/// Counts a body reader out when it ends.
struct BodyGuard(Arc<Shared>);

impl Drop for BodyGuard {
    fn drop(&mut self) {
        self.0.body_readers.fetch_sub(1, Ordering::SeqCst);
    }
}

/// 503 without reading the body; the socket's reading half is shut first so that dropping
/// the request (after the reply) does not wait for the body.
fn refuse_busy(request: tiny_http::Request, shared: &Shared, peer: Option<SocketAddr>) {
    if let Some(peer) = peer {
        stop_reading(peer, shared.port);
    }
    let reply = Reply::error(
        503,
        "SERVER_BUSY",
        &format!("{MAX_BODY_READERS} request bodies are being read already; retry later"),
    );
    respond(request, &reply);
}

/// A body read to cut at `at` unless `done` by then.
struct Deadline {
    at: Instant,
    peer: SocketAddr,
    port: u16,
    done: Arc<AtomicBool>,
}

/// The deadline thread: holds the body reads in progress and cuts those still running at
/// their deadline. Ends when the server's shared state is dropped.
fn deadline_thread() -> std::io::Result<crossbeam_channel::Sender<Deadline>> {
    let (tx, rx) = crossbeam_channel::unbounded::<Deadline>();
    std::thread::Builder::new()
        .name("mapscope-http-deadline".into())
        .spawn(move || {
            let mut pending: Vec<Deadline> = Vec::new();
            loop {
                pending.retain(|d| !d.done.load(Ordering::SeqCst));
                let now = Instant::now();
                let (due, later): (Vec<Deadline>, Vec<Deadline>) =
                    pending.drain(..).partition(|d| d.at <= now);
                pending = later;
                for d in due {
                    stop_reading(d.peer, d.port);
                }
                let wait = pending
                    .iter()
                    .map(|d| d.at.saturating_duration_since(now))
                    .min()
                    .unwrap_or(Duration::from_hours(1));
                match rx.recv_timeout(wait) {
                    Ok(d) => pending.push(d),
                    Err(crossbeam_channel::RecvTimeoutError::Timeout) => {}
                    Err(crossbeam_channel::RecvTimeoutError::Disconnected) => return,
                }
            }
        })?;
    Ok(tx)
}

/// Shuts down the reading half of this process's TCP socket connected to `peer` on local
/// `port`, so that a read blocked on it returns (end of file). tiny_http does not expose its
/// sockets, so the socket is found among the process's file descriptors by its two
/// addresses (a TCP connection is unique by them). Linux only (`/proc/self/fd`); elsewhere a
/// slow body holds its reader until the client goes, and `MAX_BODY_READERS` bounds them.
#[cfg(target_os = "linux")]
fn stop_reading(peer: SocketAddr, port: u16) {
    use std::os::fd::BorrowedFd;
    let Ok(fds) = std::fs::read_dir("/proc/self/fd") else {
        return;
    };
    for entry in fds.flatten() {
        let Some(raw) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        // SAFETY: the descriptor is only duplicated (`dup`), at once. If it was closed since
        // the listing, `dup` fails; if its number was reused, the duplicate is some other
        // file or socket, which the address check below leaves alone.
        let fd = unsafe { BorrowedFd::borrow_raw(raw) };
        let Ok(owned) = fd.try_clone_to_owned() else {
            continue;
        };
        let stream = std::net::TcpStream::from(owned);
        let ours = stream.peer_addr().is_ok_and(|a| a == peer)
            && stream.local_addr().is_ok_and(|a| a.port() == port);
        if ours {
            let _ = stream.shutdown(std::net::Shutdown::Read);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn stop_reading(_peer: SocketAddr, _port: u16) {}

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

/// Reads the body (cut at `deadline`, if any), routes the request and sends the reply.
fn answer(mut request: tiny_http::Request, shared: &Shared, deadline: Option<Instant>) {
    let reply = match read_body(&mut request, deadline) {
        Err(reply) => reply,
        Ok(()) => route(request.method(), request.url(), shared),
    };
    respond(request, &reply);
}

/// Sends `reply`. tiny_http then drops the request, which reads whatever is left of its
/// body first.
fn respond(request: tiny_http::Request, reply: &Reply) {
    let text = crate::engine::json::to_string(&reply.body).unwrap_or_else(|_| "null".into());
    let header = tiny_http::Header::from_bytes(&b"Content-Type"[..], &b"application/json"[..]);
    let mut response = tiny_http::Response::from_string(text).with_status_code(reply.status);
    if let Ok(header) = header {
        response = response.with_header(header);
    }
    // The client may be gone; nothing to do about it.
    let _ = request.respond(response);
}

fn timed_out() -> Reply {
    Reply::error(
        408,
        "REQUEST_TIMEOUT",
        &format!(
            "the request body did not arrive within {} s",
            BODY_DEADLINE.as_secs()
        ),
    )
}

/// Reads (and drops) the body, refusing one over `MAX_BODY`: no route takes a body, but a
/// client must not be able to make a worker hold an unbounded one. A body that ends before
/// its `Content-Length` after `BODY_DEADLINE` was cut by the deadline thread: 408.
fn read_body(request: &mut tiny_http::Request, deadline: Option<Instant>) -> Result<(), Reply> {
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
    let short = |n: usize| request.body_length().is_some_and(|len| n < len);
    let late = || deadline.is_some_and(|d| Instant::now() >= d);
    match read {
        Ok(n) if n > MAX_BODY => Err(too_large()),
        Ok(n) if short(n) && late() => Err(timed_out()),
        Ok(n) if short(n) => Err(Reply::error(
            400,
            "INVALID_ARGUMENT",
            "the body ended before its Content-Length",
        )),
        Ok(_) => Ok(()),
        Err(_) if late() => Err(timed_out()),
        Err(e) => Err(Reply::error(
            400,
            "INVALID_ARGUMENT",
            &format!("bad body: {e}"),
        )),
    }
}

fn route(method: &tiny_http::Method, url: &str, shared: &Shared) -> Reply {
    use tiny_http::Method::{Get, Post};
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let params = query_params(query);
    let result = match (method, path) {
        (Get, "/search") => arguments(&params, SEARCH_ARGS)
            .and_then(|args| SearchCall::parse(&args))
            .and_then(|call| search(shared, call, false)),
        (Get, "/answer") => arguments(&params, ANSWER_ARGS)
            .and_then(|args| SearchCall::parse_answer(&args))
            .and_then(|call| search(shared, call, true)),
        (Get, "/map") => arguments(&params, MAP_ARGS)
            .and_then(|args| MapCall::parse(&args))
            .map(|call| on_index(shared, false, move |i, f, _| call.run(i, f).document)),
        (Get, "/stats") => arguments(&params, &[]).map(|_| on_index(shared, false, stats_document)),
        (Post, "/index") => arguments(&params, &[]).map(|_| on_index(shared, true, stats_document)),
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
