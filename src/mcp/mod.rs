//! `mapscope mcp [PATH]`: the engine served to coding agents over the Model Context Protocol
//! (MCP), on the stdio transport: JSON-RPC 2.0, one message per line on stdin, one answer
//! per line on stdout, nothing else on stdout (warnings go to stderr).
//!
//! Tools, each answering from the same index the CLI builds:
//! - `repo_map`: the token-budgeted repo map (what `mapscope map` prints), steered by focus
//!   files, identifiers and a query;
//! - `search`: ranked hits with their evidence (the `mapscope search --json` contract);
//! - `repo_symbol_answer`: the same search with its answer, written by the configured LLM
//!   when there is one (`engine::answer::llm`, called on the main thread after the search,
//!   not on the engine thread), else extractive;
//! - `repo_references`: who uses a definition and what it uses (`mapscope refs --json`);
//! - `repo_stats`: what was indexed and skipped (`mapscope stats --json`).
//!
//! `search` and `repo_symbol_answer` take `sources`: names of the sources the server was
//! started with, or `NAME=PATH` for another read-only root (checked like `--source`: the
//! client is the local agent that started the server, so any folder outside the project).
//! Sources are built by the live service's source pool, on its own thread, within the
//! same limits as the HTTP server's (files, bytes and time per source; memory and disk of
//! the request sources together): a call waits up to `SOURCE_WAIT` for the sources it
//! names, then is a tool error `SOURCE_BUILDING` (call again) rather than a call that
//! never ends.
//!
//! Threads: an input thread reads request lines; the main thread checks their arguments
//! and writes the answers, in order. The index lives in the live-index service
//! (`engine::live`: its own thread, built from startup so `initialize` answers at once,
//! refreshed from the file watcher, `changes_pending` when a call cannot wait out changes).
//! When input ends, the server finishes within `SHUTDOWN_GRACE` whatever the engine thread
//! is doing. A tool call that arrives while the first index builds waits for it on the main
//! thread, sending `notifications/progress` for the call's `_meta.progressToken` (or, without
//! one, an `info` log message, `notifications/message`, to a client that set a log level)
//! before its answer.
//!
//! Why not the `rmcp` crate: it is built on tokio and async handlers, while the engine is
//! synchronous threads; the part of the protocol a tools-only server needs is four methods
//! of line-delimited JSON-RPC, which `serde_json` covers in this file.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Map, Value};

use crate::contract::warn;
use crate::contract::{
    input_schema, mark, parse_args, ArgError, MapCall, RefsCall, RepoMapArgs, RepoReferencesArgs,
    RepoStatsArgs, SearchArgs, SearchCall, SourcePolicy, SourceRoots, SymbolAnswerArgs,
};
use crate::engine::answer::llm::{LlmConfig, LlmSetting};
use crate::engine::base::error::EngineError;
use crate::engine::base::text::sanitize;
use crate::engine::index::{Index, IndexOptions};
use crate::engine::live::source_pool::{SourceLimits, SourcePool, Unready};
use crate::engine::live::{Freshness, JobService, LiveIndex, ServiceError, SourceIndex};
use crate::engine::search::sources::SourceSpec;

mod tools;
use tools::*;

/// Protocol versions this server speaks, newest first. A client asking for another one is
/// answered with the newest, as the specification asks; it then decides whether to go on.
pub const PROTOCOL_VERSIONS: [&str; 3] = ["2025-06-18", "2025-03-26", "2024-11-05"];

/// How long a call waits for the sources it names to be built (a configured one still
/// building at start, a root named for the first time) before it answers `SOURCE_BUILDING`.
pub const SOURCE_WAIT: Duration = Duration::from_secs(10);

/// JSON-RPC error codes.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;

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
    server.closed = closed.clone();
    server.engine.shutdown_on(closed);
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
        // Notifications (the first build's progress) go out while the call waits, before
        // its answer; a failed write ends the session like a failed answer.
        let mut failed = None;
        let mut notify = |note: &Value| {
            if failed.is_none() {
                let line = json_line(note);
                failed = output
                    .write_all(line.as_bytes())
                    .and_then(|()| output.write_all(b"\n"))
                    .and_then(|()| output.flush())
                    .err();
            }
        };
        let answer = server.handle_line_with(text.trim_end_matches(['\n', '\r']), &mut notify);
        if let Some(e) = failed {
            return Err(e.into());
        }
        if let Some(answer) = answer {
            output.write_all(answer.as_bytes())?;
            output.write_all(b"\n")?;
            output.flush()?;
        }
    }
    Ok(())
}

/// The MCP server of one repository.
pub struct Server {
    engine: JobService,
    /// What a request's `sources` may name.
    policy: SourcePolicy,
    /// The LLM that writes `repo_symbol_answer`'s answer, if configured.
    llm: LlmSetting,
    /// Disconnected when the input ends (`serve` sets it): a call waiting out the first
    /// build stops waiting.
    closed: crossbeam_channel::Receiver<()>,
    /// The least severe log level the client asked for (`logging/setLevel`); none until it
    /// asks: a client that never did may take every line on stdout for an answer.
    log_level: Option<usize>,
}

impl Server {
    /// Starts building the index of `root` on the live-index service's thread. `live`:
    /// watch the files and refresh the index as they change (off in tests that want a fixed
    /// index).
    pub fn new(root: PathBuf, opts: IndexOptions, live: bool) -> Server {
        Server::with_sources(root, opts, live, Vec::new(), SourceLimits::default())
    }

    /// `new`, with extra sources searched after the project (checked by
    /// `sources::check_sources`), built within `limits`.
    pub fn with_sources(
        root: PathBuf,
        opts: IndexOptions,
        live: bool,
        sources: Vec<SourceSpec>,
        limits: SourceLimits,
    ) -> Server {
        let policy = SourcePolicy::new(&root, sources.clone(), SourceRoots::Any);
        // Its own stop flag: dropping the pool (input ended) sets it.
        let stop = Arc::new(AtomicBool::new(false));
        let pool = SourcePool::start(sources, opts.clone(), limits, stop, Box::new(warn));
        let live = LiveIndex::new(root, opts, live, Box::new(warn));
        Server::on(JobService::start_with(live, pool), policy)
    }

    fn on(engine: JobService, policy: SourcePolicy) -> Server {
        let llm = LlmConfig::from_env();
        if let Some(Err(e)) = &llm {
            warn(&format!("answers stay extractive: {e}"));
        }
        Server {
            engine,
            policy,
            llm,
            closed: crossbeam_channel::never(),
            log_level: None,
        }
    }

    /// Answers one line of input: `None` for notifications, responses and blank lines.
    pub fn handle_line(&mut self, line: &str) -> Option<String> {
        self.handle_line_with(line, &mut |_| {})
    }

    /// `handle_line`, sending the notifications a call makes while it waits (the first
    /// build's progress) to `notify`, before the answer.
    pub fn handle_line_with(
        &mut self,
        line: &str,
        notify: &mut dyn FnMut(&Value),
    ) -> Option<String> {
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
                    .filter_map(|m| self.handle_message(m, notify))
                    .collect();
                (!answers.is_empty()).then_some(Value::Array(answers))
            }
            Ok(message) => self.handle_message(&message, notify),
        };
        // JSON never holds a raw newline, so each answer stays one line; `engine::base::json`
        // escapes C1 and DEL too, so a name from the repository cannot reach a terminal
        // showing the stream.
        answer.map(|a| json_line(&a))
    }

    fn handle_message(&mut self, message: &Value, notify: &mut dyn FnMut(&Value)) -> Option<Value> {
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
            "tools/call" => {
                self.await_first_build(&params, notify);
                self.call_tool(&params)
            }
            "logging/setLevel" => self.set_log_level(&params),
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
}

/// The `initialize` result: the protocol version, what this server offers, and how to use it.
fn initialize(params: &Value) -> Value {
    let asked = params.get("protocolVersion").and_then(Value::as_str);
    let version = asked
        .filter(|v| PROTOCOL_VERSIONS.contains(v))
        .unwrap_or(PROTOCOL_VERSIONS[0]);
    json!({
        "protocolVersion": version,
        "capabilities": {"tools": {"listChanged": false}, "logging": {}},
        "serverInfo": {
            "name": "mapscope",
            "title": "mapscope repo map",
            "version": env!("CARGO_PKG_VERSION"),
        },
        "instructions": "mapscope indexes one repository (TypeScript/JavaScript, Python, Go, \
            Rust, Java, C, C++, C#, Ruby, PHP) and keeps the index fresh as files change. Call `repo_map` for an overview of the \
            codebase's most important definitions within a token budget (pass the files you \
            are working on as `focus_files`), and `search` to find where something is \
            defined, used or described. Paths are relative to the repository root.",
    })
}

/// MCP's log levels (RFC 5424's), least severe first.
const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// How often a call waiting out the first build looks at its progress, and how often it
/// tells a client that gave no progress token (a log message).
const PROGRESS_POLL: std::time::Duration = std::time::Duration::from_millis(100);
const LOG_EVERY: std::time::Duration = std::time::Duration::from_secs(2);

impl Server {
    /// A tool call that arrives while the first index builds waits for it here, on the main
    /// thread, telling the client what the build does (the engine thread is busy with it,
    /// so the call could not be answered sooner anyway). With a `_meta.progressToken`:
    /// `notifications/progress` (files parsed of the total, rising), as the specification
    /// asks; without one, to a client that set a log level of `info` or below
    /// (`logging/setLevel`): a `notifications/message` log line now and then.
    fn await_first_build(&mut self, params: &Value, notify: &mut dyn FnMut(&Value)) {
        let token = params
            .get("_meta")
            .and_then(|m| m.get("progressToken"))
            .filter(|t| t.is_string() || t.is_number())
            .cloned();
        let mut sent: Option<usize> = None;
        let mut parse_total = 0;
        let mut logged: Option<std::time::Instant> = None;
        while let Some(p) = self.engine.building() {
            if p.phase == crate::engine::index::BuildPhase::Parse {
                parse_total = p.total;
            }
            let line = crate::contract::build_progress_line(&p);
            if let Some(token) = &token {
                // Walking: 0; parsing: the files done; linking: all of them.
                let progress = match p.phase {
                    crate::engine::index::BuildPhase::Walk => 0,
                    crate::engine::index::BuildPhase::Parse => p.done,
                    crate::engine::index::BuildPhase::Graph => parse_total.max(p.total),
                };
                if sent.is_none_or(|s| progress > s) {
                    let mut params = json!({"progressToken": token, "progress": progress,
                        "message": format!("indexing the repository: {line}")});
                    if parse_total > 0 {
                        params["total"] = parse_total.into();
                    }
                    notify(
                        &json!({"jsonrpc": "2.0", "method": "notifications/progress",
                        "params": params}),
                    );
                    sent = Some(progress);
                }
            } else if self.log_level.is_some_and(|l| l <= 1)
                && logged.is_none_or(|t| t.elapsed() >= LOG_EVERY)
            {
                notify(&json!({"jsonrpc": "2.0", "method": "notifications/message",
                    "params": {"level": "info", "logger": "mapscope",
                        "data": format!("indexing the repository ({line}); the call is answered \
                            when the index is ready")}}));
                logged = Some(std::time::Instant::now());
            }
            match self.closed.recv_timeout(PROGRESS_POLL) {
                Err(crossbeam_channel::RecvTimeoutError::Timeout) => {}
                _ => return,
            }
        }
    }

    /// `logging/setLevel`: the least severe level the client wants to hear.
    fn set_log_level(&mut self, params: &Value) -> Result<Value, RpcError> {
        let level = params.get("level").and_then(Value::as_str).unwrap_or("");
        match LOG_LEVELS.iter().position(|l| *l == level) {
            Some(i) => {
                self.log_level = Some(i);
                Ok(json!({}))
            }
            None => Err(RpcError::invalid(format!(
                "`level` must be one of {}",
                LOG_LEVELS.join(", ")
            ))),
        }
    }
}

#[derive(Debug)]
struct RpcError {
    code: i64,
    message: String,
}

impl From<ArgError> for RpcError {
    fn from(e: ArgError) -> RpcError {
        RpcError::invalid(e.0)
    }
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
    crate::engine::base::json::to_string(value).unwrap_or_else(|_| String::from("null"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::index::MapRequest;
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
        assert_eq!(
            names,
            [
                "repo_map",
                "search",
                "repo_symbol_answer",
                "repo_references",
                "repo_stats"
            ]
        );
        for t in tools {
            assert_eq!(t["inputSchema"]["type"], "object", "{t}");
            assert!(t["description"].as_str().unwrap().len() > 40);
        }
        assert_eq!(tools[1]["inputSchema"]["required"], json!(["query"]));
    }

    #[test]
    fn each_tool_lists_exactly_its_arguments_and_refuses_others() {
        use crate::contract::field_names;
        let mut s = server(fixture("py-app"));
        let tools = tool_list();
        let accepted: [(&str, &[&str], Value); 5] = [
            ("repo_map", field_names::<RepoMapArgs>(), json!({})),
            ("search", field_names::<SearchArgs>(), json!({"query": "x"})),
            (
                "repo_symbol_answer",
                field_names::<SymbolAnswerArgs>(),
                json!({"question": "x"}),
            ),
            (
                "repo_references",
                field_names::<RepoReferencesArgs>(),
                json!({"name": "x"}),
            ),
            ("repo_stats", field_names::<RepoStatsArgs>(), json!({})),
        ];
        for (tool, fields, required) in accepted {
            let listed = tools
                .as_array()
                .unwrap()
                .iter()
                .find(|t| t["name"] == tool)
                .unwrap();
            let schema = &listed["inputSchema"];
            assert_eq!(schema["additionalProperties"], false, "{tool}");
            let mut names: Vec<&str> = schema["properties"]
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect();
            let mut fields = fields.to_vec();
            names.sort_unstable();
            fields.sort_unstable();
            assert_eq!(names, fields, "{tool}");
            let mut args = required;
            args["bogus"] = json!(1);
            let r = call(&mut s, tool, args);
            assert_eq!(r["error"]["code"], INVALID_PARAMS, "{tool}: {r}");
            let message = r["error"]["message"].as_str().unwrap();
            assert!(
                message.starts_with("unknown argument `bogus` (expected: "),
                "{tool}: {message}"
            );
        }
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
    fn repo_symbol_answer_follows_its_contract() {
        let mut s = server(fixture("search-app"));
        let r = call(
            &mut s,
            "repo_symbol_answer",
            json!({"question": "where is exportOrdersCsv defined", "max_sources": 2,
                   "answer_style": "concise", "languages": ["ts"]}),
        );
        let v = &r["result"]["structuredContent"];
        assert_eq!(v["success"], true, "{r}");
        assert_eq!(v["question"], "where is exportOrdersCsv defined");
        let answer = v["answer"].as_str().unwrap();
        assert!(
            answer.starts_with("`exportOrdersCsv` is defined in `src/orders/export.ts:4"),
            "{answer}"
        );
        assert!(answer.contains("used in"), "{answer}");
        let sources = v["sources"].as_array().unwrap();
        assert!(!sources.is_empty() && sources.len() <= 2, "{v}");
        for key in [
            "file_path",
            "line_range",
            "excerpt",
            "evidence_type",
            "score",
        ] {
            assert!(sources[0].get(key).is_some(), "{key} in {}", sources[0]);
        }
        assert_eq!(sources[0]["symbol"], "exportOrdersCsv");
        let d = &v["diagnostics"];
        assert_eq!(d["used_llm"], false);
        assert_eq!(d["used_reranker"], false);
        assert!(d["ast_parsed_files"].as_u64().unwrap() > 0, "{d}");
        for key in ["retrieval_counts", "low_score", "latency_ms"] {
            assert!(d.get(key).is_some(), "{key} in {d}");
        }
        assert!(v["confidence"].is_string());

        // The default is six sources at most.
        let r = call(&mut s, "repo_symbol_answer", json!({"question": "orders"}));
        let n = r["result"]["structuredContent"]["sources"]
            .as_array()
            .unwrap()
            .len();
        assert!(n <= 6, "{n}");
    }

    #[test]
    fn repo_symbol_answer_takes_the_seed_shape() {
        let root = fixture("search-app");
        let mut s = server(root.clone());
        let r = call(
            &mut s,
            "repo_symbol_answer",
            json!({"question": "where is exportOrdersCsv defined",
                   "repo_path": root.display().to_string(),
                   "options": {"paths": ["src/**"], "languages": ["ts"], "max_sources": 2,
                               "answer_style": "concise"}}),
        );
        let v = &r["result"]["structuredContent"];
        assert_eq!(v["success"], true, "{r}");
        let sources = v["sources"].as_array().unwrap();
        assert!(!sources.is_empty() && sources.len() <= 2, "{v}");
        assert_eq!(sources[0]["evidence_type"], "definition");
        assert_eq!(v["lookup"]["intent"], "definition", "{v}");
        assert!(v["answer"]
            .as_str()
            .unwrap()
            .starts_with("`exportOrdersCsv` is defined in `src/orders/export.ts:4"));
        // The seed's evidence values only, whatever matched; their counts under those names.
        let r = call(
            &mut s,
            "repo_symbol_answer",
            json!({"question": "export orders csv", "options": {"max_sources": 12}}),
        );
        let v = &r["result"]["structuredContent"];
        for source in v["sources"].as_array().unwrap() {
            let e = source["evidence_type"].as_str().unwrap();
            assert!(
                ["definition", "reference", "call", "grep"].contains(&e),
                "{e}"
            );
        }
        let counts = v["diagnostics"]["retrieval_counts"].as_object().unwrap();
        let mut names: Vec<&str> = counts.keys().map(String::as_str).collect();
        names.sort_unstable();
        assert_eq!(names, ["call", "definition", "grep", "reference"], "{v}");
    }

    #[test]
    fn repo_symbol_answer_checks_repo_path_in_the_seed_error_form() {
        let mut s = server(fixture("search-app"));
        let elsewhere = tempfile::tempdir().unwrap();
        let file = elsewhere.path().join("f.txt");
        std::fs::write(&file, "x").unwrap();
        for (repo_path, code) in [
            ("/no/such/folder/anywhere".to_string(), "REPO_NOT_FOUND"),
            (elsewhere.path().display().to_string(), "INVALID_REPO"),
            (file.display().to_string(), "INVALID_REPO"),
        ] {
            let r = call(
                &mut s,
                "repo_symbol_answer",
                json!({"question": "orders", "repo_path": repo_path}),
            );
            let v = &r["result"]["structuredContent"];
            assert_eq!(v["success"], false, "{r}");
            assert_eq!(v["code"], code, "{r}");
            assert!(v["error"].as_str().unwrap().contains("repo_path"), "{r}");
            assert_eq!(r["result"]["isError"], true);
        }
        // An option given twice, and one `options` does not have, are refused by name.
        for (args, says) in [
            (
                json!({"question": "x", "max_sources": 2, "options": {"max_sources": 3}}),
                "`max_sources` given twice",
            ),
            (json!({"question": "x", "options": {"top": 3}}), "top"),
            (
                json!({"question": "x", "options": {"max_sources": 99}}),
                "max_sources",
            ),
        ] {
            let r = call(&mut s, "repo_symbol_answer", args.clone());
            let message = r["error"]["message"].as_str().unwrap_or_default();
            assert!(message.contains(says), "{args}: {r}");
        }
    }

    #[test]
    fn repo_path_may_name_a_configured_source_which_is_then_answered_alone() {
        let source = fixture("go-app");
        let mut s = Server::with_sources(
            fixture("search-app"),
            IndexOptions::default(),
            false,
            vec![SourceSpec {
                name: "go".into(),
                path: source.clone(),
            }],
            SourceLimits::default(),
        );
        let r = call(
            &mut s,
            "repo_symbol_answer",
            json!({"question": "main", "repo_path": source.display().to_string()}),
        );
        let v = &r["result"]["structuredContent"];
        assert_eq!(v["success"], true, "{r}");
        let sources = v["sources"].as_array().unwrap();
        assert!(!sources.is_empty(), "{v}");
        assert!(
            sources
                .iter()
                .all(|x| x["file_path"].as_str().unwrap().ends_with(".go")),
            "{v}"
        );
    }

    #[test]
    fn repo_symbol_answer_refuses_bad_arguments() {
        let mut s = server(fixture("search-app"));
        for (args, says) in [
            (
                json!({"question": "x", "answer_style": "verbose"}),
                "answer_style",
            ),
            (json!({"question": "x", "max_sources": 13}), "max_sources"),
            (json!({"question": "x", "max_sources": 0}), "max_sources"),
            (json!({"question": "  "}), "question"),
            (
                json!({"question": "x", "query": "y"}),
                "unknown argument `query`",
            ),
        ] {
            let r = call(&mut s, "repo_symbol_answer", args.clone());
            let message = r["error"]["message"].as_str().unwrap_or_default();
            assert!(message.contains(says), "{args}: {r}");
        }
    }

    #[test]
    fn repo_references_answers_callers_and_callees_with_the_cli_document() {
        let root = fixture("py-app");
        let mut s = server(root.clone());
        let r = call(
            &mut s,
            "repo_references",
            json!({"name": "slugify", "direction": "callers"}),
        );
        let doc = &r["result"]["structuredContent"];
        assert_eq!(doc["success"], true, "{r}");
        assert_eq!(doc["changes_pending"], false);
        let group = &doc["definitions"][0];
        assert_eq!(group["definition"]["path"], "app/util.py");
        assert!(group.get("callees").is_none());
        let first = &group["callers"]["uses"][0];
        assert_eq!(first["path"], "app/services/users.py");
        assert_eq!(first["caller"]["name"], "register");
        assert_eq!(first["binding"], "import");
        // The text content is the same document, for clients that read only text.
        let text = r["result"]["content"][0]["text"].as_str().unwrap();
        let parsed: Value = serde_json::from_str(text).unwrap();
        assert_eq!(&parsed, doc);
        // The same document the CLI's contract gives for the same request.
        let index = Index::build(&root, &IndexOptions::default()).unwrap();
        let mut expected = crate::contract::RefsCall::parse(
            json!({"name": "slugify", "direction": "callers"})
                .as_object()
                .unwrap(),
        )
        .unwrap()
        .run(&index, &Freshness::default())
        .unwrap();
        mark(&Freshness::default(), &mut expected);
        assert_eq!(doc, &expected);
        // By place, callees only.
        let r = call(
            &mut s,
            "repo_references",
            json!({"at": "app/services/users.py:22", "direction": "callees", "top": 2}),
        );
        let group = &r["result"]["structuredContent"]["definitions"][0];
        assert_eq!(group["definition"]["name"], "register");
        assert_eq!(group["callees"]["uses"].as_array().unwrap().len(), 2);
        // No definition: a tool error with its code; a bad argument: invalid params.
        let r = call(&mut s, "repo_references", json!({"name": "nope"}));
        assert_eq!(r["result"]["isError"], true, "{r}");
        assert_eq!(r["result"]["structuredContent"]["code"], "NOT_FOUND");
        let r = call(&mut s, "repo_references", json!({"at": "app/util.py"}));
        assert_eq!(r["error"]["code"], INVALID_PARAMS, "{r}");
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
        let mut live = LiveIndex::new(
            dir.path().to_path_buf(),
            IndexOptions::default(),
            false,
            Box::new(warn),
        );
        live.rescan_each_call = true;
        let pool = SourcePool::start(
            Vec::new(),
            IndexOptions::default(),
            SourceLimits::default(),
            Arc::new(AtomicBool::new(false)),
            Box::new(warn),
        );
        let mut s = Server::on(
            JobService::start_with(live, pool),
            SourcePolicy::new(dir.path(), Vec::new(), SourceRoots::Any),
        );
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
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
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
