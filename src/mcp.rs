//! `mapscope mcp [PATH]`: the engine served to coding agents over the Model Context Protocol
//! (MCP), on the stdio transport: JSON-RPC 2.0, one message per line on stdin, one answer
//! per line on stdout, nothing else on stdout (warnings go to stderr).
//!
//! Tools, each answering from the same index the CLI builds:
//! - `repo_map`: the token-budgeted repo map (what `mapscope map` prints), steered by focus
//!   files, identifiers and a query;
//! - `search`: ranked hits with their evidence (the `mapscope search --json` contract);
//! - `repo_stats`: what was indexed and skipped (`mapscope stats --json`).
//!
//! Threads: an input thread reads request lines; the main thread checks their arguments
//! and writes the answers, in order. When input ends, the server finishes within
//! `SHUTDOWN_GRACE` whatever the engine thread is doing. One engine thread,
//! `mapscope-mcp-engine`, owns the index: it builds it from startup (so `initialize`
//! answers at once and the build overlaps the client's handshake), then waits for either a
//! tool job from the main thread or a batch of changed files from the file watcher
//! (`engine::watch`), and refreshes the index incrementally as soon as a batch arrives.
//! An agent that edits a file and calls a tool a moment later finds the
//! index already refreshed; a call that arrives while the watcher holds changes not yet
//! applied (a batch waiting out its debounce, or one being applied) waits for them, up to
//! `FRESH_WAIT`, and otherwise answers from the last complete index with
//! `changes_pending: true`. An index is installed only if the watcher saw no change while it
//! was read, so no answer comes from a mix of two trees (a branch switch half done), as far
//! as the watcher can tell: a writer that pauses longer than the debounce half-way looks
//! finished, and a write is seen once notify's thread has read its event (a call allows
//! `DELIVERY_GRACE` for that). Without a watcher (inotify limit reached) every tool call
//! re-examines the files by size and modification time.
//!
//! Why not the `rmcp` crate: it is built on tokio and async handlers, while the engine is
//! synchronous threads; the part of the protocol a tools-only server needs is four methods
//! of line-delimited JSON-RPC, which `serde_json` covers in this file.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{never, select, Receiver, Sender};
use serde_json::{json, Map, Value};

use crate::cli::warn;
use crate::engine::error::EngineError;
use crate::engine::index::{Index, IndexOptions, MapRequest};
use crate::engine::repo_map::{render, MapFormat};
use crate::engine::scope::{Scope, ScopeSpec};
use crate::engine::search::{SearchOptions, MAX_TOP};
use crate::engine::text::sanitize;
use crate::engine::tokenizer::TokenizerKind;
use crate::engine::watch::{ChangeBatch, WatchOptions, Watcher};

/// Protocol versions this server speaks, newest first. A client asking for another one is
/// answered with the newest, as the specification asks; it then decides whether to go on.
pub const PROTOCOL_VERSIONS: [&str; 3] = ["2025-06-18", "2025-03-26", "2024-11-05"];

/// The smallest and largest map budget a tool call may ask for.
pub const MIN_MAP_TOKENS: usize = 16;
pub const MAX_MAP_TOKENS: usize = 131_072;

/// JSON-RPC error codes.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;

/// How long the server still works once its input has closed: requests read before that
/// are answered if the engine answers them within this, and the engine thread gets this long
/// to finish (its cache save). Then the process exits, whatever the engine thread is doing
/// (an index build stuck in a slow file system, a `git` that does not answer): a client
/// closes stdin to stop the server, and MCP asks it to wait for the exit only briefly.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// How long a tool call waits for changes the watcher has seen (a batch waiting out its
/// debounce, a branch switch still being written) to be applied. Past it, the call answers
/// from the last complete index and says `changes_pending: true`.
pub const FRESH_WAIT: Duration = Duration::from_secs(2);

/// How long a refresh started by a watcher batch waits for the tree to settle; past it, the
/// changes stay pending for the next batch or call.
const BACKGROUND_WAIT: Duration = Duration::from_millis(250);

/// How often a waiting call looks whether the watcher has settled.
const SETTLE_POLL: Duration = Duration::from_millis(5);

/// The watcher sees an event once notify's thread has read it from the kernel, a scheduling
/// delay after the write that caused it: a call gives writes made just before it this long
/// to show up before it trusts a quiet watcher.
const DELIVERY_GRACE: Duration = Duration::from_millis(2);

/// Reads requests from `input` until it ends and writes the answers to `output`.
///
/// `input` is read on a thread of its own, so that its end is seen even while a request
/// waits for the engine (see `SHUTDOWN_GRACE`).
pub fn serve(
    server: &mut Server,
    mut input: impl BufRead + Send + 'static,
    mut output: impl Write,
) -> anyhow::Result<()> {
    let (lines_tx, lines) = crossbeam_channel::unbounded::<std::io::Result<Vec<u8>>>();
    let (closed_tx, closed) = crossbeam_channel::bounded::<()>(0);
    server.engine.input_closed = closed;
    // Detached: on an output error this function returns while the thread may still wait
    // for input; the process exit ends it.
    std::thread::Builder::new()
        .name("mapscope-mcp-input".into())
        .spawn(move || {
            // Dropped when input ends: the engine calls see the channel disconnect.
            let _closed_tx = closed_tx;
            loop {
                let mut line = Vec::new();
                match input.read_until(b'\n', &mut line) {
                    Ok(0) => return,
                    Ok(_) => {
                        if lines_tx.send(Ok(line)).is_err() {
                            return;
                        }
                    }
                    Err(e) => {
                        let _ = lines_tx.send(Err(e));
                        return;
                    }
                }
            }
        })?;
    for line in lines {
        let line = line?;
        // A line that is not UTF-8 is not JSON: it gets a parse error, like any other bad
        // line, instead of ending the session.
        let text = String::from_utf8_lossy(&line);
        if let Some(answer) = server.handle_line(text.trim_end_matches(['\n', '\r'])) {
            output.write_all(answer.as_bytes())?;
            output.write_all(b"\n")?;
            output.flush()?;
        }
    }
    Ok(())
}

/// The MCP server of one repository.
pub struct Server {
    engine: Engine,
}

impl Server {
    /// Starts building the index of `root` on the engine thread. `live`: watch the files
    /// and refresh the index as they change (off in tests that want a fixed index).
    pub fn new(root: PathBuf, opts: IndexOptions, live: bool) -> Server {
        Server {
            engine: Engine::start(LiveIndex::new(root, opts, live)),
        }
    }

    /// Answers one line of input: `None` for notifications, responses and blank lines.
    pub fn handle_line(&mut self, line: &str) -> Option<String> {
        if line.trim().is_empty() {
            return None;
        }
        let answer = match serde_json::from_str::<Value>(line) {
            Err(e) => Some(error_response(
                Value::Null,
                PARSE_ERROR,
                &format!("parse error: {e}"),
            )),
            // A batch (protocol 2025-03-26) is answered with an array of the answers.
            Ok(Value::Array(batch)) if !batch.is_empty() => {
                let answers: Vec<Value> = batch
                    .iter()
                    .filter_map(|m| self.handle_message(m))
                    .collect();
                (!answers.is_empty()).then_some(Value::Array(answers))
            }
            Ok(message) => self.handle_message(&message),
        };
        // JSON never holds a raw newline, so each answer stays one line; `engine::json`
        // escapes C1 and DEL too, so a name from the repository cannot reach a terminal
        // showing the stream.
        answer.map(|a| json_line(&a))
    }

    fn handle_message(&mut self, message: &Value) -> Option<Value> {
        let Some(object) = message.as_object() else {
            return Some(error_response(
                Value::Null,
                INVALID_REQUEST,
                "a message must be a JSON object",
            ));
        };
        let id = object.get("id").cloned();
        let Some(method) = object.get("method").and_then(Value::as_str) else {
            // A response to a request of ours (this server sends none): nothing to do.
            if object.contains_key("result") || object.contains_key("error") {
                return None;
            }
            return Some(error_response(
                id.unwrap_or(Value::Null),
                INVALID_REQUEST,
                "a request needs a method",
            ));
        };
        // A notification (no id) is never answered: `notifications/initialized`,
        // `notifications/cancelled` (requests are answered in order, so there is nothing
        // to cancel by the time it is read).
        let id = id?;
        if !(id.is_string() || id.is_number()) {
            return Some(error_response(
                Value::Null,
                INVALID_REQUEST,
                "the id must be a string or a number",
            ));
        }
        let params = object.get("params").cloned().unwrap_or(Value::Null);
        let result = match method {
            "initialize" => Ok(initialize(&params)),
            "ping" => Ok(json!({})),
            "tools/list" => Ok(json!({ "tools": tool_list() })),
            "tools/call" => self.call_tool(&params),
            _ => Err(RpcError::new(
                METHOD_NOT_FOUND,
                format!("method not found: {method}"),
            )),
        };
        Some(match result {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(e) => error_response(id, e.code, &e.message),
        })
    }

    fn call_tool(&mut self, params: &Value) -> Result<Value, RpcError> {
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| RpcError::invalid("tools/call needs a tool `name`"))?;
        let empty = Map::new();
        let args = match params.get("arguments") {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(args)) => args,
            Some(_) => return Err(RpcError::invalid("`arguments` must be an object")),
        };
        match name {
            "repo_map" => {
                let request = MapCall::parse(args)?;
                Ok(self.engine.run(move |index, call| request.run(index, call)))
            }
            "search" => {
                let request = SearchCall::parse(args)?;
                Ok(self.engine.run(move |index, call| request.run(index, call)))
            }
            "repo_stats" => {
                known_arguments(args, &[])?;
                Ok(self.engine.run(|index, call| {
                    let mut stats = serde_json::to_value(index.stats()).unwrap_or(Value::Null);
                    call.mark(&mut stats);
                    tool_json(stats)
                }))
            }
            _ => Err(RpcError::invalid(format!(
                "unknown tool `{name}` (repo_map, search, repo_stats)"
            ))),
        }
    }
}

/// A tool's work on the index: it gets the index and how it was brought up to date.
type Tool = Box<dyn FnOnce(&Index, &CallState) -> Value + Send>;

/// How the index a call answers from was brought up to date.
#[derive(Debug, Clone, Copy, Default)]
struct CallState {
    /// Milliseconds spent bringing it up to date (waiting for the watcher included).
    index_ms: f64,
    /// The watcher had changes that could not be applied within `FRESH_WAIT`: the index is
    /// the last complete one, from before them.
    changes_pending: bool,
}

impl CallState {
    /// Adds `changes_pending` to a tool's JSON document (an object).
    fn mark(&self, document: &mut Value) {
        if let Value::Object(fields) = document {
            fields.insert("changes_pending".into(), self.changes_pending.into());
        }
    }
}

/// The engine thread and the channel its jobs go through.
struct Engine {
    jobs: Option<Sender<(Tool, Sender<Value>)>>,
    thread: Option<JoinHandle<()>>,
    /// Disconnected when the engine thread ends.
    done: Receiver<()>,
    /// Disconnected when the server's input has ended (see `serve`); never, until then.
    input_closed: Receiver<()>,
    /// Input ended and the engine did not answer within `SHUTDOWN_GRACE`: later calls
    /// do not wait for it again.
    abandoned: std::sync::atomic::AtomicBool,
}

impl Engine {
    fn start(live: LiveIndex) -> Engine {
        let (jobs, inbox) = crossbeam_channel::unbounded();
        let (done_tx, done) = crossbeam_channel::bounded::<()>(0);
        let thread = std::thread::Builder::new()
            .name("mapscope-mcp-engine".into())
            .spawn(move || {
                let _done = done_tx;
                engine_loop(live, inbox);
            })
            .ok();
        Engine {
            jobs: Some(jobs),
            thread,
            done,
            input_closed: never(),
            abandoned: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Runs `tool` on the engine thread, on an up-to-date index, and returns its result; an
    /// index that cannot be built (a missing or empty repository) is the tool's error, with
    /// its stable code. Once input has ended, the engine has `SHUTDOWN_GRACE` to answer.
    fn run(&self, tool: impl FnOnce(&Index, &CallState) -> Value + Send + 'static) -> Value {
        use std::sync::atomic::Ordering;
        let (reply, answer) = crossbeam_channel::bounded(1);
        let sent = self
            .jobs
            .as_ref()
            .is_some_and(|jobs| jobs.send((Box::new(tool), reply)).is_ok());
        let lost = || {
            tool_error(&EngineError::Internal(
                "the engine thread stopped (see stderr)".into(),
            ))
        };
        let shutting_down = || {
            tool_error(&EngineError::Internal(
                "input closed and the index was not ready in time; shutting down".into(),
            ))
        };
        if !sent {
            return lost();
        }
        if self.abandoned.load(Ordering::Relaxed) {
            return shutting_down();
        }
        select! {
            recv(answer) -> a => a.unwrap_or_else(|_| lost()),
            recv(self.input_closed) -> _ => match answer.recv_timeout(SHUTDOWN_GRACE) {
                Ok(a) => a,
                Err(crossbeam_channel::RecvTimeoutError::Disconnected) => lost(),
                Err(crossbeam_channel::RecvTimeoutError::Timeout) => {
                    self.abandoned.store(true, Ordering::Relaxed);
                    shutting_down()
                }
            },
        }
    }
}

impl Drop for Engine {
    /// Input ended: the engine thread finishes its work (a cache save) and stops, or is
    /// left behind after `SHUTDOWN_GRACE` (the process exit ends it).
    fn drop(&mut self) {
        drop(self.jobs.take());
        let grace = if self.abandoned.load(std::sync::atomic::Ordering::Relaxed) {
            Duration::ZERO
        } else {
            SHUTDOWN_GRACE
        };
        if let Err(crossbeam_channel::RecvTimeoutError::Timeout) = self.done.recv_timeout(grace) {
            return;
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The engine thread: the first build, then jobs and watcher batches as they come.
fn engine_loop(mut live: LiveIndex, inbox: Receiver<(Tool, Sender<Value>)>) {
    live.first_build();
    loop {
        let changes = live
            .watcher
            .as_ref()
            .map_or_else(never, |w| w.changes().clone());
        select! {
            recv(inbox) -> job => {
                let Ok((tool, reply)) = job else { break };
                let t = Instant::now();
                let answer = match live.current(FRESH_WAIT) {
                    Ok((index, changes_pending)) => {
                        let call = CallState {
                            index_ms: t.elapsed().as_secs_f64() * 1000.0,
                            changes_pending,
                        };
                        tool(index, &call)
                    }
                    Err(e) => tool_error(&e),
                };
                let _ = reply.send(answer);
            }
            recv(changes) -> batch => match batch {
                Ok(batch) => {
                    live.pending.merge(batch);
                    // A failed refresh is reported by the next tool call, which retries. The
                    // search index is rebuilt now too, not by the next search.
                    if let Ok((index, _)) = live.current(BACKGROUND_WAIT) {
                        let _ = index.search_index();
                    }
                }
                // The watcher stopped: from now on each call re-examines the files.
                Err(_) => {
                    live.watcher = None;
                    live.rescan_each_call = true;
                }
            },
        }
        live.save_cache();
    }
}

/// A tool result saying why there is no index.
fn tool_error(e: &EngineError) -> Value {
    let error = json!({"success": false, "error": e.to_string(), "code": e.code()});
    json!({
        "content": [{"type": "text", "text": sanitize(&format!("{}: {e}", e.code()))}],
        "structuredContent": error,
        "isError": true,
    })
}

/// The index of one repository, kept fresh from the watcher's reports. Lives on the
/// engine thread.
struct LiveIndex {
    root: PathBuf,
    opts: IndexOptions,
    live: bool,
    index: Option<Index>,
    /// Changes reported by the watcher and not yet applied.
    pending: ChangeBatch,
    /// The index was built or refreshed since the tag cache was last saved.
    unsaved: bool,
    watcher: Option<Watcher>,
    /// Live updates were asked for but no watcher runs: re-examine every file per call.
    rescan_each_call: bool,
    /// The walk warnings already printed.
    warned: std::collections::HashSet<String>,
    /// The watcher's debounce (tests lengthen it).
    watch_opts: WatchOptions,
}

impl LiveIndex {
    fn new(root: PathBuf, opts: IndexOptions, live: bool) -> LiveIndex {
        LiveIndex {
            root,
            opts,
            live,
            index: None,
            pending: ChangeBatch::default(),
            unsaved: false,
            watcher: None,
            rescan_each_call: false,
            warned: std::collections::HashSet::new(),
            watch_opts: WatchOptions::default(),
        }
    }

    /// Starts the watcher (first, so that nothing written during the build is lost), builds
    /// the index and its search index. A failure is kept for the first tool call to retry.
    fn first_build(&mut self) {
        if self.live {
            match Watcher::start(&self.root, self.watch_opts.clone()) {
                Ok(w) => self.watcher = Some(w),
                Err(e) => {
                    if self.root.is_dir() {
                        warn(&format!(
                            "live updates off, files re-examined per call: {e}"
                        ));
                    }
                    self.rescan_each_call = true;
                }
            }
        }
        if let Ok(index) = Index::build(&self.root, &self.opts) {
            // Searched soon, most likely: the search index is built while the client is
            // still starting up rather than on the first query.
            let _ = index.search_index();
            self.install(index);
        }
        self.save_cache();
    }

    /// The index of the files as they are now, waiting up to `wait` for the changes the
    /// watcher holds; with `true` when some could not be applied in that time (the index is
    /// then the last complete one).
    fn current(&mut self, wait: Duration) -> Result<(&Index, bool), EngineError> {
        let pending = self.bring_up_to_date(Instant::now() + wait)?;
        let index = self.index.as_ref().ok_or_else(unreachable_index)?;
        Ok((index, pending))
    }

    /// A new index replaces the old one; its tags are saved after the answer.
    fn install(&mut self, index: Index) {
        if let Some(warning) = &index.cache_warning {
            warn(warning);
        }
        // Each refresh walks again and finds the same unreadable ignore files: said once.
        for warning in &index.walk_warnings {
            if self.warned.insert(warning.clone()) {
                eprintln!(
                    "mapscope: warning: {}",
                    crate::ui::text::sanitize_line(warning)
                );
            }
        }
        self.index = Some(index);
        self.unsaved = true;
    }

    /// Applies the changes the watcher reported, once it has settled (nothing seen and not
    /// yet sent), and installs the result only if the watcher saw nothing change while the
    /// tree was read: otherwise the result may mix two trees, so the last complete index
    /// stays and the changes are applied again with the later ones. Returns true when
    /// `deadline` came first and changes remain pending.
    fn bring_up_to_date(&mut self, deadline: Instant) -> Result<bool, EngineError> {
        if self.watcher.is_some() {
            std::thread::sleep(DELIVERY_GRACE);
        }
        loop {
            let mark = match &self.watcher {
                Some(w) if !wait_settled(w, deadline) => return Ok(true),
                Some(w) => Some(w.seen()),
                None => None,
            };
            let mut changes = std::mem::take(&mut self.pending);
            changes.merge(self.drain_changes());
            for warning in std::mem::take(&mut changes.warnings) {
                eprintln!(
                    "mapscope: warning: {}",
                    crate::ui::text::sanitize_line(&warning)
                );
            }
            if let Some(why) = changes.error.take() {
                warn(&format!("watching degraded: {why}"));
            }
            let candidate = match &self.index {
                // No index yet (the last build failed: an empty repository that may have
                // got its first file since): build from scratch.
                None => Index::build(&self.root, &self.opts)?,
                Some(_) if changes.has_no_changes() && !self.rescan_each_call => return Ok(false),
                // `refresh` re-walks the tree and recognises unchanged files by size and
                // mtime, so a rescan needs no list of paths; the listed ones are re-read
                // whatever their mtime.
                Some(previous) => match previous.refresh(&self.opts, &changes.paths, &|_| {}) {
                    Ok(index) => index,
                    Err(e) => {
                        // The repository went away or lost its last file: report it, and
                        // build from scratch next time.
                        self.index = None;
                        return Err(e);
                    }
                },
            };
            let unchanged = match (&self.watcher, mark) {
                (Some(w), Some(mark)) => wait_settled(w, deadline) && w.seen() == mark,
                _ => true,
            };
            if unchanged {
                self.install(candidate);
                return Ok(false);
            }
            // The tree changed while it was read. With no index at all, this one is better
            // than none (and said to be pending).
            if self.index.is_none() {
                self.install(candidate);
            }
            self.pending.merge(changes);
            if Instant::now() >= deadline {
                return Ok(true);
            }
        }
    }

    fn drain_changes(&self) -> ChangeBatch {
        let mut batch = ChangeBatch::default();
        if let Some(watcher) = &self.watcher {
            for later in watcher.changes().try_iter() {
                batch.merge(later);
            }
        }
        batch
    }

    fn save_cache(&mut self) {
        if !std::mem::take(&mut self.unsaved) {
            return;
        }
        if let Some(index) = &self.index {
            if let Err(e) = index.save_cache() {
                warn(&format!("could not save the cache: {e}"));
            }
        }
    }
}

/// Waits until the watcher holds no change it has not sent; false if `deadline` comes first.
fn wait_settled(watcher: &Watcher, deadline: Instant) -> bool {
    loop {
        if !watcher.settling() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(SETTLE_POLL);
    }
}

fn unreachable_index() -> EngineError {
    EngineError::Internal("the index was just set".into())
}

/// The `initialize` result: the protocol version, what this server offers, and how to use it.
fn initialize(params: &Value) -> Value {
    let asked = params.get("protocolVersion").and_then(Value::as_str);
    let version = asked
        .filter(|v| PROTOCOL_VERSIONS.contains(v))
        .unwrap_or(PROTOCOL_VERSIONS[0]);
    json!({
        "protocolVersion": version,
        "capabilities": {"tools": {"listChanged": false}},
        "serverInfo": {
            "name": "mapscope",
            "title": "mapscope repo map",
            "version": env!("CARGO_PKG_VERSION"),
        },
        "instructions": "mapscope indexes one repository (TypeScript/JavaScript, Python, Go) \
            and keeps the index fresh as files change. Call `repo_map` for an overview of the \
            codebase's most important definitions within a token budget (pass the files you \
            are working on as `focus_files`), and `search` to find where something is \
            defined, used or described. Paths are relative to the repository root.",
    })
}

/// The tools and their input schemas.
fn tool_list() -> Value {
    json!([
        {
            "name": "repo_map",
            "title": "Repo map",
            "description": "The token-budgeted repo map of the repository: the signatures of its \
                most referenced definitions (PageRank over the cross-file reference graph), each \
                under its file path with its enclosing class, fitted to an exact token budget. \
                Focus files are left out of the map and their neighbourhood is ranked up; \
                identifiers and a free-text query rank up the code that defines or uses them.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "tokens": {"type": "integer", "minimum": MIN_MAP_TOKENS,
                        "maximum": MAX_MAP_TOKENS, "default": 1024,
                        "description": "Token budget; the map never exceeds it."},
                    "focus_files": {"type": "array", "items": {"type": "string"},
                        "description": "Repo-relative paths of the files already in your \
                            context (like aider's chat files)."},
                    "identifiers": {"type": "array", "items": {"type": "string"},
                        "description": "Identifiers whose definitions go first (e.g. parseConfig)."},
                    "query": {"type": "string",
                        "description": "The task in free text: the files search finds for it \
                            come first in the map with their matching definitions."},
                    "tokenizer": {"type": "string", "enum": ["o200k", "cl100k"],
                        "default": "o200k", "description": "Tokenizer counting the budget."},
                    "format": {"type": "string", "enum": ["text", "markdown"],
                        "default": "text",
                        "description": "text: the map as an LLM is fed it; markdown: a fenced \
                            block per file."},
                    "include": {"type": "array", "items": {"type": "string"},
                        "description": "Only paths matching these patterns (gitignore syntax, \
                            relative to the root: `cmd/`, `*.go`)."},
                    "exclude": {"type": "array", "items": {"type": "string"},
                        "description": "Leave out paths matching these patterns (gitignore \
                            syntax, relative to the root: `web/ui/`, `*_test.go`)."},
                    "lang": {"type": "array",
                        "items": {"type": "string", "enum": ["ts", "js", "py", "go", "rs", "java", "c", "cs", "rb", "php"]},
                        "description": "Rank and show only these languages (the graph still \
                            learns from every file)."}
                },
                "additionalProperties": false
            },
            "annotations": {"readOnlyHint": true, "openWorldHint": false}
        },
        {
            "name": "search",
            "title": "Search the code",
            "description": "Ranked places in the repository for a query (identifiers, words, \
                a commit-message-like sentence; Chinese and mixed queries work): definitions, \
                references, calls, imports and text in comments, strings and docs. Each source \
                has its file, line range, excerpt, evidence type and score signals; `files` \
                ranks the files to read or edit. `confidence` is high when an identifier of \
                the query names a definition exactly, low when nothing clears the cutoff.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "What to look for."},
                    "top": {"type": "integer", "minimum": 1, "maximum": MAX_TOP, "default": 8,
                        "description": "Number of hits (or files with `files`)."},
                    "files": {"type": "boolean", "default": false,
                        "description": "Rank distinct files instead of hits."},
                    "paths": {"type": "array", "items": {"type": "string"},
                        "description": "Only paths matching these globs; `!GLOB` excludes."},
                    "include": {"type": "array", "items": {"type": "string"},
                        "description": "Only paths matching these patterns (gitignore syntax, \
                            relative to the root: `cmd/`, `*.go`)."},
                    "exclude": {"type": "array", "items": {"type": "string"},
                        "description": "Leave out paths matching these patterns (gitignore \
                            syntax, relative to the root: `web/ui/`, `*_test.go`)."},
                    "lang": {"type": "array",
                        "items": {"type": "string", "enum": ["ts", "js", "py", "go", "rs", "java", "c", "cs", "rb", "php"]},
                        "description": "Only these languages."}
                },
                "required": ["query"],
                "additionalProperties": false
            },
            "annotations": {"readOnlyHint": true, "openWorldHint": false}
        },
        {
            "name": "repo_stats",
            "title": "Index statistics",
            "description": "What the index holds: files per language, definitions and \
                references by kind, graph edges, files skipped and why (vendored, generated, \
                minified, binary, too big), parse errors, time per phase.",
            "inputSchema": {"type": "object", "properties": {}, "additionalProperties": false},
            "annotations": {"readOnlyHint": true, "openWorldHint": false}
        }
    ])
}

/// The note a map answered from the last complete index carries.
const PENDING_NOTE: &str = "note: changes_pending: files changed a moment ago are not in this \
    map yet (it is from the index before them); call again for the fresh one";

/// A `repo_map` call's arguments.
#[derive(Debug)]
struct MapCall {
    request: MapRequest,
    format: MapFormat,
}

impl MapCall {
    fn parse(args: &Map<String, Value>) -> Result<MapCall, RpcError> {
        known_arguments(
            args,
            &[
                "tokens",
                "focus_files",
                "identifiers",
                "query",
                "tokenizer",
                "format",
                "include",
                "exclude",
                "lang",
            ],
        )?;
        let scope = ScopeSpec {
            include: string_list(args, "include")?,
            exclude: string_list(args, "exclude")?,
            langs: string_list(args, "lang")?,
        };
        Scope::new(&scope).map_err(|e| RpcError::invalid(e.to_string()))?;
        let budget = optional_int(args, "tokens", 1024, MIN_MAP_TOKENS..=MAX_MAP_TOKENS)?;
        let tokenizer = match optional_str(args, "tokenizer")? {
            None => TokenizerKind::O200k,
            Some(s) => TokenizerKind::parse(s)
                .ok_or_else(|| RpcError::invalid("`tokenizer` must be o200k or cl100k"))?,
        };
        let format = match optional_str(args, "format")?.map(MapFormat::parse) {
            None => MapFormat::Text,
            Some(Some(f @ (MapFormat::Text | MapFormat::Markdown))) => f,
            Some(_) => return Err(RpcError::invalid("`format` must be text or markdown")),
        };
        Ok(MapCall {
            request: MapRequest {
                budget,
                tokenizer,
                focus: string_list(args, "focus_files")?,
                idents: string_list(args, "identifiers")?,
                query: optional_str(args, "query")?.map(str::to_string),
                scope,
                ..MapRequest::default()
            },
            format,
        })
    }

    /// The map as text (or markdown), and the JSON rendering (`mapscope map --format json`)
    /// as structured content; each part of the request that was ignored (a focus file the
    /// index does not hold, an undefined identifier, a query with nothing to search) is
    /// named in a note of its own, and so are changes not yet applied.
    fn run(&self, index: &Index, call: &CallState) -> Value {
        let (map, _) = index.map(&self.request);
        let text = render(&map, &index.files, self.format);
        let mut structured =
            serde_json::from_str::<Value>(&render(&map, &index.files, MapFormat::Json))
                .unwrap_or(Value::Null);
        call.mark(&mut structured);
        let mut content = vec![json!({"type": "text", "text": text})];
        if call.changes_pending {
            content.push(json!({"type": "text", "text": PENDING_NOTE}));
        }
        for note in &map.notes {
            content.push(json!({"type": "text", "text": sanitize(&format!("note: {note}"))}));
        }
        json!({"content": content, "structuredContent": structured})
    }
}

/// A `search` call's arguments.
#[derive(Debug)]
struct SearchCall {
    query: String,
    opts: SearchOptions,
}

impl SearchCall {
    fn parse(args: &Map<String, Value>) -> Result<SearchCall, RpcError> {
        known_arguments(
            args,
            &[
                "query", "top", "files", "paths", "lang", "include", "exclude",
            ],
        )?;
        let query = optional_str(args, "query")?
            .filter(|q| !q.trim().is_empty())
            .ok_or_else(|| RpcError::invalid("`query` must be a non-empty string"))?
            .to_string();
        let top = optional_int(args, "top", 8, 1..=MAX_TOP)?;
        let files_mode = match args.get("files") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => return Err(RpcError::invalid("`files` must be a boolean")),
        };
        let opts = SearchOptions {
            top,
            files_mode,
            path_globs: string_list(args, "paths")?,
            langs: string_list(args, "lang")?,
            include: string_list(args, "include")?,
            exclude: string_list(args, "exclude")?,
        };
        opts.validate()
            .map_err(|e| RpcError::invalid(e.to_string()))?;
        Ok(SearchCall { query, opts })
    }

    /// The search JSON contract, as text for the model and as structured content.
    fn run(&self, index: &Index, call: &CallState) -> Value {
        let (_, search_build_ms) = index.search_index();
        let response = index.search(&self.query, &self.opts);
        let mut contract = crate::cli::search_json(
            index,
            &self.query,
            &response,
            call.index_ms,
            search_build_ms,
        );
        call.mark(&mut contract);
        tool_json(contract)
    }
}

/// A tool result whose content is one JSON document, given both as text (what most clients
/// hand the model) and as structured content.
fn tool_json(value: Value) -> Value {
    // Compact: every byte of it is a token in the model's context.
    let text = json_line(&value);
    json!({"content": [{"type": "text", "text": text}], "structuredContent": value})
}

fn known_arguments(args: &Map<String, Value>, known: &[&str]) -> Result<(), RpcError> {
    match args.keys().find(|k| !known.contains(&k.as_str())) {
        Some(k) => Err(RpcError::invalid(format!(
            "unknown argument `{k}` (expected: {})",
            known.join(", ")
        ))),
        None => Ok(()),
    }
}

/// An integer argument within `range`, `default` when absent.
fn optional_int(
    args: &Map<String, Value>,
    key: &str,
    default: usize,
    range: std::ops::RangeInclusive<usize>,
) -> Result<usize, RpcError> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(v) => v
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .filter(|n| range.contains(n))
            .ok_or_else(|| {
                RpcError::invalid(format!(
                    "`{key}` must be an integer from {} to {}",
                    range.start(),
                    range.end()
                ))
            }),
    }
}

fn optional_str<'a>(args: &'a Map<String, Value>, key: &str) -> Result<Option<&'a str>, RpcError> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(RpcError::invalid(format!("`{key}` must be a string"))),
    }
}

/// An array of strings; a single string is taken as a list of one.
fn string_list(args: &Map<String, Value>, key: &str) -> Result<Vec<String>, RpcError> {
    let bad = || RpcError::invalid(format!("`{key}` must be an array of strings"));
    match args.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(s)) => Ok(vec![s.clone()]),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| v.as_str().map(str::to_string).ok_or_else(bad))
            .collect(),
        Some(_) => Err(bad()),
    }
}

#[derive(Debug)]
struct RpcError {
    code: i64,
    message: String,
}

impl RpcError {
    fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
        }
    }

    fn invalid(message: impl Into<String>) -> RpcError {
        RpcError::new(INVALID_PARAMS, message)
    }
}

/// Messages echo what the client sent (a method, an argument name): as data, sanitized.
fn error_response(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": sanitize(message)}})
}

/// One compact JSON line through the one JSON writer. A `Value` always serializes.
fn json_line(value: &Value) -> String {
    crate::engine::json::to_string(value).unwrap_or_else(|_| String::from("null"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/repos")
            .join(name)
    }

    /// A server on a fixed index (no watcher, no cache, no history).
    fn server(root: PathBuf) -> Server {
        Server::new(root, IndexOptions::default(), false)
    }

    fn ask(server: &mut Server, message: Value) -> Value {
        let line = server
            .handle_line(&message.to_string())
            .expect("a request is answered");
        assert!(!line.contains('\n'), "one answer per line");
        serde_json::from_str(&line).expect("the answer is JSON")
    }

    fn call(server: &mut Server, tool: &str, arguments: Value) -> Value {
        ask(
            server,
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                   "params": {"name": tool, "arguments": arguments}}),
        )
    }

    #[test]
    fn initialize_agrees_on_a_version_it_speaks() {
        let mut s = server(fixture("py-app"));
        for (asked, given) in [
            ("2025-03-26", "2025-03-26"),
            ("2024-11-05", "2024-11-05"),
            ("1999-01-01", PROTOCOL_VERSIONS[0]),
        ] {
            let r = ask(
                &mut s,
                json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                       "params": {"protocolVersion": asked, "capabilities": {},
                                  "clientInfo": {"name": "t", "version": "0"}}}),
            );
            assert_eq!(r["id"], 1);
            assert_eq!(r["result"]["protocolVersion"], given);
            assert_eq!(r["result"]["serverInfo"]["name"], "mapscope");
            assert!(r["result"]["capabilities"]["tools"].is_object());
        }
    }

    #[test]
    fn tools_are_listed_with_object_schemas() {
        let mut s = server(fixture("py-app"));
        let r = ask(
            &mut s,
            json!({"jsonrpc": "2.0", "id": "a", "method": "tools/list"}),
        );
        assert_eq!(r["id"], "a");
        let tools = r["result"]["tools"].as_array().unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["repo_map", "search", "repo_stats"]);
        for t in tools {
            assert_eq!(t["inputSchema"]["type"], "object", "{t}");
            assert!(t["description"].as_str().unwrap().len() > 40);
        }
        assert_eq!(tools[1]["inputSchema"]["required"], json!(["query"]));
    }

    #[test]
    fn repo_map_is_the_cli_map_within_its_budget() {
        let root = fixture("py-app");
        let mut s = server(root.clone());
        let r = call(
            &mut s,
            "repo_map",
            json!({"tokens": 120, "focus_files": ["app/models.py"], "identifiers": ["slugify"]}),
        );
        let result = &r["result"];
        assert_eq!(result.get("isError"), None, "{r}");
        let structured = &result["structuredContent"];
        assert_eq!(structured["budget"], 120);
        let tokens = structured["tokens"].as_u64().unwrap();
        assert!(tokens > 0 && tokens <= 120, "{tokens}");
        // The same request through the engine directly, as `mapscope map` makes it.
        let index = Index::build(&root, &IndexOptions::default()).unwrap();
        let (map, _) = index.map(&MapRequest {
            budget: 120,
            focus: vec!["app/models.py".into()],
            idents: vec!["slugify".into()],
            ..MapRequest::default()
        });
        assert_eq!(result["content"][0]["text"], map.text);
        assert!(
            !map.text.contains("app/models.py:"),
            "a focus file is left out"
        );
        assert_eq!(result["content"].as_array().unwrap().len(), 1, "no note");
    }

    #[test]
    fn repo_map_and_search_take_a_scope() {
        let mut s = server(fixture("go-app"));
        let r = call(
            &mut s,
            "repo_map",
            json!({"tokens": 2048, "exclude": ["cmd/", "*_test.go"], "lang": ["go"]}),
        );
        let files = r["result"]["structuredContent"]["files"]
            .as_array()
            .unwrap();
        assert!(!files.is_empty(), "{r}");
        for f in files {
            let p = f["path"].as_str().unwrap();
            assert!(!p.starts_with("cmd/") && !p.ends_with("_test.go"), "{p}");
        }
        // The JSON map carries the cut list.
        assert!(r["result"]["structuredContent"]["cut"].is_array(), "{r}");
        let r = call(
            &mut s,
            "repo_map",
            json!({"include": ["internal/handler/"]}),
        );
        let files = r["result"]["structuredContent"]["files"]
            .as_array()
            .unwrap();
        assert_eq!(files.len(), 1, "{r}");
        assert_eq!(files[0]["path"], "internal/handler/handler.go");
        let r = call(
            &mut s,
            "search",
            json!({"query": "store", "exclude": ["internal/store/"]}),
        );
        let sources = r["result"]["structuredContent"]["sources"]
            .as_array()
            .unwrap();
        assert!(!sources.is_empty(), "{r}");
        assert!(sources.iter().all(|h| !h["file_path"]
            .as_str()
            .unwrap()
            .starts_with("internal/store/")));
        // A bad pattern or language is the client's error.
        for (tool, args) in [
            ("repo_map", json!({"include": ["src/["]})),
            ("repo_map", json!({"lang": ["cobol"]})),
            ("search", json!({"query": "x", "exclude": ["a/**b{"]})),
        ] {
            let r = call(&mut s, tool, args);
            assert_eq!(r["error"]["code"], INVALID_PARAMS, "{r}");
        }
    }

    #[test]
    fn repo_map_names_focus_files_it_does_not_know_and_renders_markdown() {
        let mut s = server(fixture("py-app"));
        let r = call(
            &mut s,
            "repo_map",
            json!({"focus_files": "missing.py", "format": "markdown", "tokenizer": "cl100k"}),
        );
        let content = r["result"]["content"].as_array().unwrap();
        assert!(content[0]["text"].as_str().unwrap().contains("```python"));
        let note = content[1]["text"].as_str().unwrap();
        assert!(
            note.starts_with("note: focus file `missing.py` is not an indexed"),
            "{note}"
        );
        assert_eq!(r["result"]["structuredContent"]["tokenizer"], "cl100k_base");
    }

    #[test]
    fn search_follows_the_cli_contract() {
        let mut s = server(fixture("search-app"));
        let r = call(
            &mut s,
            "search",
            json!({"query": "exportOrdersCsv", "top": 3}),
        );
        let v = &r["result"]["structuredContent"];
        assert_eq!(v["success"], true);
        assert_eq!(v["confidence"], "high");
        assert_eq!(v["sources"][0]["file_path"], "src/orders/export.ts");
        assert_eq!(v["sources"][0]["evidence_type"], "definition");
        assert!(v["sources"].as_array().unwrap().len() <= 3);
        let text: Value =
            serde_json::from_str(r["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(&text, v, "the text is the same document");
        let files = call(
            &mut s,
            "search",
            json!({"query": "export orders csv", "files": true, "lang": ["ts"]}),
        );
        let files = files["result"]["structuredContent"]["files"]
            .as_array()
            .unwrap()
            .clone();
        assert!(!files.is_empty());
        assert!(files
            .iter()
            .all(|f| f["file_path"].as_str().unwrap().ends_with(".ts")));
    }

    #[test]
    fn repo_stats_counts_the_files() {
        let mut s = server(fixture("go-app"));
        let r = call(&mut s, "repo_stats", json!({}));
        let v = &r["result"]["structuredContent"];
        assert!(v["files"].as_u64().unwrap() > 0, "{v}");
        assert!(v["files_by_language"]["go"].as_u64().unwrap() > 0, "{v}");
    }

    #[test]
    fn protocol_errors_have_json_rpc_codes() {
        let mut s = server(fixture("py-app"));
        let code = |r: Value| r["error"]["code"].as_i64();
        let parse = s.handle_line("{not json").unwrap();
        let parse: Value = serde_json::from_str(&parse).unwrap();
        assert_eq!(parse["id"], Value::Null);
        assert_eq!(code(parse), Some(PARSE_ERROR));
        let r = ask(
            &mut s,
            json!({"jsonrpc": "2.0", "id": 2, "method": "resources/list"}),
        );
        assert_eq!(code(r), Some(METHOD_NOT_FOUND));
        assert_eq!(code(call(&mut s, "rm_rf", json!({}))), Some(INVALID_PARAMS));
        for bad in [
            json!({"tokens": 0}),
            json!({"tokens": "many"}),
            json!({"tokenizer": "gpt2"}),
            json!({"format": "json"}),
            json!({"budget": 100}),
            json!({"identifiers": [1, 2]}),
        ] {
            assert_eq!(
                code(call(&mut s, "repo_map", bad.clone())),
                Some(INVALID_PARAMS),
                "{bad}"
            );
        }
        for bad in [
            json!({}),
            json!({"query": "  "}),
            json!({"query": "x", "top": 51}),
            json!({"query": "x", "files": "yes"}),
            json!({"query": "x", "lang": ["cobol"]}),
        ] {
            assert_eq!(
                code(call(&mut s, "search", bad.clone())),
                Some(INVALID_PARAMS),
                "{bad}"
            );
        }
        let r = ask(
            &mut s,
            json!({"jsonrpc": "2.0", "id": [1], "method": "ping"}),
        );
        assert_eq!(code(r), Some(INVALID_REQUEST));
        let r = ask(&mut s, json!([1]));
        assert_eq!(code(r[0].clone()), Some(INVALID_REQUEST));
    }

    #[test]
    fn notifications_and_responses_get_no_answer_and_batches_get_an_array() {
        let mut s = server(fixture("py-app"));
        for quiet in [
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "repo_map"}}),
            json!({"jsonrpc": "2.0", "id": 9, "result": {}}),
        ] {
            assert_eq!(s.handle_line(&quiet.to_string()), None, "{quiet}");
        }
        assert_eq!(s.handle_line("   "), None);
        let r = ask(
            &mut s,
            json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"},
                   {"jsonrpc": "2.0", "method": "notifications/initialized"},
                   {"jsonrpc": "2.0", "id": 2, "method": "ping"}]),
        );
        assert_eq!(
            r,
            json!([{"jsonrpc": "2.0", "id": 1, "result": {}},
                             {"jsonrpc": "2.0", "id": 2, "result": {}}])
        );
    }

    #[test]
    fn an_empty_repository_is_a_tool_error_until_it_has_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = server(dir.path().to_path_buf());
        let r = call(&mut s, "search", json!({"query": "hello"}));
        assert_eq!(r["result"]["isError"], true);
        assert_eq!(r["result"]["structuredContent"]["code"], "REPO_EMPTY");
        assert_eq!(r["result"]["structuredContent"]["success"], false);
        std::fs::write(
            dir.path().join("hello.py"),
            "def hello_world():\n    return 1\n",
        )
        .unwrap();
        let r = call(&mut s, "search", json!({"query": "hello_world"}));
        assert_eq!(r["result"].get("isError"), None, "{r}");
        assert_eq!(
            r["result"]["structuredContent"]["sources"][0]["symbol"],
            "hello_world"
        );
    }

    #[test]
    fn without_a_watcher_each_call_re_examines_the_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.py"), "def first_one():\n    return 1\n").unwrap();
        let mut live = LiveIndex::new(dir.path().to_path_buf(), IndexOptions::default(), false);
        live.rescan_each_call = true;
        let mut s = Server {
            engine: Engine::start(live),
        };
        let r = call(&mut s, "search", json!({"query": "first_one"}));
        assert_eq!(
            r["result"]["structuredContent"]["sources"][0]["symbol"],
            "first_one"
        );
        std::fs::write(dir.path().join("b.py"), "def second_one():\n    return 2\n").unwrap();
        let r = call(&mut s, "search", json!({"query": "second_one"}));
        assert_eq!(
            r["result"]["structuredContent"]["sources"][0]["symbol"],
            "second_one"
        );
    }

    /// Files keep changing (a checkout longer than the wait): the call answers from the
    /// last complete index and says so; once the tree is quiet, the answer is fresh.
    #[test]
    fn a_call_that_cannot_wait_out_the_changes_answers_from_the_last_complete_index() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.py"), "def a():\n    return 1\n").unwrap();
        let mut live = LiveIndex::new(dir.path().to_path_buf(), IndexOptions::default(), true);
        // A debounce longer than the call's wait: the writes below cannot be applied in it.
        live.watch_opts.debounce = Duration::from_secs(1);
        live.first_build();
        assert!(live.watcher.is_some());
        let (index, pending) = live.current(FRESH_WAIT).unwrap();
        assert_eq!((index.files.len(), pending), (1, false));
        for i in 0..50 {
            let text = format!("def f{i}():\n    return {i}\n");
            std::fs::write(dir.path().join(format!("f{i}.py")), text).unwrap();
        }
        // What this test is about starts once the watcher has seen them (notify reads the
        // kernel's events on a thread of its own, a moment later).
        let seen = Instant::now();
        let watcher = live.watcher.as_ref().unwrap();
        while !watcher.settling() && watcher.changes().is_empty() {
            assert!(
                seen.elapsed() < Duration::from_secs(10),
                "the writes are seen"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        let t = Instant::now();
        let (index, pending) = live.current(Duration::from_millis(200)).unwrap();
        assert!(
            t.elapsed() < Duration::from_millis(900),
            "bounded: {:?}",
            t.elapsed()
        );
        assert_eq!((index.files.len(), pending), (1, true));
        let (index, pending) = live.current(Duration::from_secs(20)).unwrap();
        assert_eq!((index.files.len(), pending), (51, false));
    }

    #[test]
    fn serve_answers_line_by_line_until_input_ends() {
        let mut s = server(fixture("py-app"));
        let input = concat!(
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            "\n",
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            "\r\n\n",
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"repo_stats"}}"#,
            "\n"
        );
        let mut bytes = input.as_bytes().to_vec();
        bytes.extend_from_slice(b"{\"id\": \"\xff\"}\n");
        let mut out = Vec::new();
        serve(&mut s, std::io::Cursor::new(bytes), &mut out).unwrap();
        let lines: Vec<Value> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0]["id"], 1);
        assert_eq!(lines[1]["id"], 2);
        // Not UTF-8: answered (the lossy text still parses as an object without a method).
        assert_eq!(lines[2]["error"]["code"], INVALID_REQUEST);
        assert!(
            lines[1]["result"]["structuredContent"]["files"]
                .as_u64()
                .unwrap()
                > 0
        );
    }
}
