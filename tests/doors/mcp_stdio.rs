//! `mapscope mcp` end to end: the binary speaks MCP over stdin/stdout, answers from the
//! index of a repository, and sees a file an agent writes after it started.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next_id: u64,
    /// The notifications the server sent (progress, log messages), in order.
    notes: Vec<Value>,
    /// The last answer as it was written, before parsing.
    last_line: String,
}

impl Client {
    fn start(args: &[&str]) -> Client {
        Client::start_with_env(args, &[])
    }

    fn start_with_env(args: &[&str], env: &[(&str, std::ffi::OsString)]) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mapscope"))
            .env("MAPSCOPE_CACHE_DIR", common::test_cache_dir())
            .env_remove("MAPSCOPE_LLM_URL")
            .envs(env.iter().map(|(k, v)| (k, v)))
            .arg("mcp")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run mapscope mcp");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        // A reader thread, so that a silent server fails the test instead of hanging it.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Client {
            child,
            stdin,
            lines,
            next_id: 0,
            notes: Vec::new(),
            last_line: String::new(),
        }
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{message}").expect("write a request");
        stdin.flush().expect("flush");
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let answer = self.next_answer();
        assert_eq!(answer["id"], id, "answers come in order: {answer}");
        answer
    }

    /// The next line that is not a notification (those are kept in `notes`).
    fn next_answer(&mut self) -> Value {
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_mins(1))
                .expect("an answer within 60 s");
            let message: Value = serde_json::from_str(&line).expect("each stdout line is JSON");
            if message.get("id").is_none() && message.get("method").is_some() {
                self.notes.push(message);
                continue;
            }
            self.last_line = line;
            return message;
        }
    }

    fn search(&mut self, query: &str) -> Value {
        let r = self.request(
            "tools/call",
            json!({"name": "search", "arguments": {"query": query, "top": 3}}),
        );
        r["result"]["structuredContent"].clone()
    }

    /// Closes stdin and waits for the process to end on its own.
    fn finish(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("mapscope mcp did not exit after its input ended");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn first_definition(search: &Value) -> Option<String> {
    let first = &search["sources"][0];
    if first["evidence_type"] != "definition" {
        return None;
    }
    first["symbol"].as_str().map(str::to_string)
}

#[test]
fn an_agent_session_sees_the_files_it_writes() {
    let dir = tempfile::tempdir().unwrap();
    common::write_files(
        dir.path(),
        &[
            ("app/util.py", "def slugify(text):\n    return text.lower()\n"),
            (
                "app/users.py",
                "from app.util import slugify\n\nclass UserService:\n    def handle(self, name):\n        return slugify(name)\n",
            ),
        ],
    );
    let root = dir.path().to_str().unwrap();
    let mut client = Client::start(&[root, "--no-history"]);
    let init = client.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "test", "version": "0"}}),
    );
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    let found = client.search("slugify");
    assert_eq!(
        first_definition(&found).as_deref(),
        Some("slugify"),
        "{found}"
    );
    let map = client.request(
        "tools/call",
        json!({"name": "repo_map", "arguments": {"tokens": 64}}),
    );
    let text = map["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("def slugify(text):"), "{text}");

    // The agent writes a new module: a later call finds it without a restart.
    common::write_files(
        dir.path(),
        &[(
            "app/fresh.py",
            "def freshly_written_helper():\n    return 2\n",
        )],
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut seen = None;
    while Instant::now() < deadline {
        seen = first_definition(&client.search("freshly_written_helper"));
        if seen.is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(seen.as_deref(), Some("freshly_written_helper"));

    // …and no longer finds it once it is deleted.
    std::fs::remove_file(dir.path().join("app/fresh.py")).unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline && seen.is_some() {
        std::thread::sleep(Duration::from_millis(100));
        seen = first_definition(&client.search("freshly_written_helper"));
    }
    assert_eq!(seen, None);

    assert!(client.finish().success());
}

/// `repo_stats`' file count and `changes_pending`.
fn stats(client: &mut Client) -> (u64, bool) {
    let r = client.request("tools/call", json!({"name": "repo_stats", "arguments": {}}));
    let v = &r["result"]["structuredContent"];
    let files = v["files"].as_u64().unwrap_or_else(|| panic!("{r}"));
    let pending = v["changes_pending"]
        .as_bool()
        .unwrap_or_else(|| panic!("changes_pending in every answer: {r}"));
    (files, pending)
}

/// Writes `n` Python modules under `dir`, each defining `{prefix}_{i}`, as fast as it can.
fn write_modules(dir: &std::path::Path, prefix: &str, n: usize) {
    std::fs::create_dir_all(dir).unwrap();
    for i in 0..n {
        std::fs::write(
            dir.join(format!("{prefix}_{i}.py")),
            format!("def {prefix}_{i}():\n    return {i}\n"),
        )
        .unwrap();
    }
}

/// A branch switch under a running server (hundreds of files written at once, then removed):
/// a call made right after it answers from the new tree, or from the old one saying
/// `changes_pending: true`, never from a tree in between.
#[test]
fn an_answer_right_after_a_branch_switch_is_fresh_or_says_changes_are_pending() {
    const BASE: u64 = 20;
    const SWITCHED: u64 = 400;
    let dir = tempfile::tempdir().unwrap();
    write_modules(dir.path(), "base", BASE as usize);
    let mut client = Client::start(&[dir.path().to_str().unwrap(), "--no-history"]);
    client.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "test", "version": "0"}}),
    );
    assert_eq!(stats(&mut client), (BASE, false));

    // Switch to a branch with 400 more files, and ask at once.
    write_modules(&dir.path().join("switched"), "switched", SWITCHED as usize);
    let (files, pending) = stats(&mut client);
    assert!(
        files == BASE + SWITCHED || (pending && files == BASE),
        "{files} files, changes_pending: {pending}"
    );
    let found = client.search("switched_7");
    if found["changes_pending"] != true {
        assert_eq!(
            first_definition(&found).as_deref(),
            Some("switched_7"),
            "{found}"
        );
    }

    // Switch back.
    std::fs::remove_dir_all(dir.path().join("switched")).unwrap();
    let (files, pending) = stats(&mut client);
    assert!(
        files == BASE || (pending && files == BASE + SWITCHED),
        "{files} files, changes_pending: {pending}"
    );

    // Once the tree is quiet, every answer is fresh.
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut last = stats(&mut client);
    while last != (BASE, false) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
        last = stats(&mut client);
    }
    assert_eq!(last, (BASE, false));
    assert!(client.finish().success());
}

#[test]
fn a_missing_repository_fails_at_startup_with_its_code() {
    let out = Command::new(env!("CARGO_BIN_EXE_mapscope"))
        .args(["mcp", "/definitely/not/here"])
        .stdin(Stdio::null())
        .output()
        .expect("run mapscope mcp");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        out.stdout.is_empty(),
        "nothing but protocol messages on stdout"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.starts_with("mapscope: REPO_NOT_FOUND"), "{stderr}");
}

/// The server exits soon after its input closes even while its engine thread is stuck: here
/// `git` (read for search's history during the first index build) never answers, so the
/// build takes 10 s (two `git` timeouts). A call waiting for it when the input closes is
/// answered with an error after `SHUTDOWN_GRACE` (2 s), and the process exits.
#[cfg(unix)]
#[test]
fn the_server_exits_when_its_input_closes_whatever_the_engine_is_doing() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    common::write_files(&repo, &[("a.py", "def a():\n    pass\n")]);
    // A repository, so that its (fake, slow) `git` is asked.
    std::fs::create_dir(repo.join(".git")).unwrap();
    let bin = tmp.path().join("bin");
    common::write_files(&bin, &[("git", "#!/bin/sh\nexec sleep 20\n")]);
    std::fs::set_permissions(bin.join("git"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut path = std::ffi::OsString::from(&bin);
    path.push(":");
    path.push(std::env::var_os("PATH").unwrap_or_default());
    let mut client = Client::start_with_env(&[repo.to_str().unwrap()], &[("PATH", path)]);
    let init = client.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "test", "version": "0"}}),
    );
    assert!(
        init["result"]["capabilities"]["tools"].is_object(),
        "{init}"
    );
    client.send(&json!({"jsonrpc": "2.0", "id": 99, "method": "tools/call",
                        "params": {"name": "repo_stats", "arguments": {}}}));
    std::thread::sleep(Duration::from_millis(300));
    let closed = Instant::now();
    drop(client.stdin.take());
    let answer = client.next_answer();
    assert_eq!(answer["id"], 99);
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    let status = client.finish();
    assert!(status.success());
    let took = closed.elapsed();
    assert!(
        took < Duration::from_secs(6),
        "exited {took:?} after its input closed"
    );
}

/// `repo_symbol_answer` with an LLM configured: the model's answer, `used_llm`; `sources`
/// per call (a configured name, another root, none) and its bad entries as INVALID_PARAMS.
#[test]
fn answers_use_the_configured_llm_and_calls_choose_their_sources() {
    let dir = tempfile::tempdir().unwrap();
    common::write_files(
        dir.path(),
        &[(
            "app/orders.py",
            "def export_orders(orders):\n    return ','.join(orders)\n",
        )],
    );
    let lib = tempfile::tempdir().unwrap();
    common::write_files(
        lib.path(),
        &[(
            "csv_writer.py",
            "def write_csv_rows(rows):\n    return rows\n",
        )],
    );
    let other = tempfile::tempdir().unwrap();
    common::write_files(
        other.path(),
        &[(
            "csv_reader.py",
            "def read_csv_rows(path):\n    return path\n",
        )],
    );
    let said = "`export_orders` joins orders (`app/orders.py:1-2`).";
    let llm = common::FakeLlm::start(common::LlmPlay::Says(said));
    let spec = format!("examples={}", lib.path().display());
    let root = dir.path().to_str().unwrap();
    let mut client =
        Client::start_with_env(&[root, "--no-history", "--source", &spec], &llm.env(5000));
    let tools = client.request("tools/list", json!({}));
    for t in tools["result"]["tools"].as_array().unwrap() {
        let wants = matches!(t["name"].as_str(), Some("search" | "repo_symbol_answer"));
        assert_eq!(
            t["inputSchema"]["properties"].get("sources").is_some(),
            wants,
            "{t}"
        );
    }
    let r = client.request(
        "tools/call",
        json!({"name": "repo_symbol_answer", "arguments": {"question": "export_orders"}}),
    );
    let v = &r["result"]["structuredContent"];
    assert_eq!(v["answer"], said, "{r}");
    assert_eq!(v["diagnostics"]["used_llm"], true, "{r}");

    let names = |client: &mut Client, sources: Value| -> Vec<String> {
        let r = client.request(
            "tools/call",
            json!({"name": "search", "arguments": {"query": "csv rows", "top": 4,
                   "sources": sources}}),
        );
        let mut n: Vec<String> = r["result"]["structuredContent"]["sources"]
            .as_array()
            .unwrap_or_else(|| panic!("{r}"))
            .iter()
            .map(|s| s["source"].as_str().unwrap().to_string())
            .collect();
        n.sort();
        n.dedup();
        n
    };
    let more = format!("more={}", other.path().display());
    assert!(names(&mut client, Value::Null).contains(&"examples".into()));
    assert!(!names(&mut client, json!([])).contains(&"examples".into()));
    let both = names(&mut client, json!(["examples", more]));
    assert!(
        both.contains(&"examples".into()) && both.contains(&"more".into()),
        "{both:?}"
    );
    let only_more = names(&mut client, json!([more]));
    assert!(!only_more.contains(&"examples".into()), "{only_more:?}");

    let gone = format!("gone={}", dir.path().join("gone").display());
    let inner = format!("inner={}", dir.path().join("app").display());
    for (bad, says) in [
        (json!(["nope"]), "unknown source `nope`"),
        (json!([gone]), "is not a directory"),
        (json!([inner]), "inside the project"),
        (json!([more, more]), "given twice"),
        (
            json!(["examples", format!("examples={}", other.path().display())]),
            "given twice",
        ),
        (json!([1]), "`sources` must be an array of strings"),
    ] {
        let r = client.request(
            "tools/call",
            json!({"name": "repo_symbol_answer",
                   "arguments": {"question": "csv", "sources": bad}}),
        );
        assert_eq!(r["error"]["code"], -32602, "{bad}: {r}");
        let message = r["error"]["message"].as_str().unwrap();
        assert!(message.contains(says), "{bad}: {message}");
    }
    assert!(client.finish().success());
}

/// `repo_map` within its budget in both formats, counted with tiktoken: the markdown counts
/// its own fences (it used to exceed), and the structured content reports the true count of
/// what was sent (it reported the text map's).
#[test]
fn repo_map_markdown_and_text_stay_within_the_budget_and_say_their_count() {
    let root = common::fixture("ts-app");
    let mut c = Client::start(&[root.to_str().unwrap(), "--no-watch", "--no-history"]);
    c.request("initialize", json!({"protocolVersion": "2025-06-18"}));
    for tokenizer in ["o200k", "cl100k"] {
        for budget in [40, 100, 300, 1000] {
            for format in ["markdown", "text"] {
                let r = c.request(
                    "tools/call",
                    json!({"name": "repo_map", "arguments": {"tokens": budget, "format": format,
                        "tokenizer": tokenizer}}),
                );
                let text = r["result"]["content"][0]["text"]
                    .as_str()
                    .unwrap()
                    .to_string();
                let doc = &r["result"]["structuredContent"];
                let n = common::tiktoken_count(tokenizer, &text);
                assert!(n <= budget, "{format} {tokenizer} {budget}: {n}\n{text}");
                assert_eq!(doc["tokens"], n, "{format} {tokenizer} {budget}: {doc}");
                assert_eq!(doc["text"], text.as_str());
                assert_eq!(doc["budget"], budget);
            }
        }
    }
    assert!(c.finish().success());
}

/// A fake `git` that takes `secs` to answer nothing, first on a PATH for the server: the
/// first index build waits for it (search's history), long enough to be seen building.
#[cfg(unix)]
fn slow_git(tmp: &std::path::Path, secs: u32) -> std::ffi::OsString {
    use std::os::unix::fs::PermissionsExt;
    let bin = tmp.join("bin");
    common::write_files(&bin, &[("git", &format!("#!/bin/sh\nexec sleep {secs}\n"))]);
    std::fs::set_permissions(bin.join("git"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut path = std::ffi::OsString::from(&bin);
    path.push(":");
    path.push(std::env::var_os("PATH").unwrap_or_default());
    path
}

/// A call made while the first index builds hears how it goes before its answer: with a
/// `progressToken`, `notifications/progress` for that token, rising; without one, an `info`
/// log message (`notifications/message`). Once the index is built, calls hear nothing.
#[cfg(unix)]
#[test]
fn a_call_during_the_first_build_gets_progress_notifications() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    common::write_files(&repo, &[("a.py", "def a():\n    pass\n")]);
    // A repository, so that its (fake, slow) `git` is asked.
    std::fs::create_dir(repo.join(".git")).unwrap();
    let path = slow_git(tmp.path(), 2);
    let mut c = Client::start_with_env(&[repo.to_str().unwrap()], &[("PATH", path.clone())]);
    let init = c.request("initialize", json!({"protocolVersion": "2025-06-18"}));
    assert!(
        init["result"]["capabilities"]["logging"].is_object(),
        "{init}"
    );
    let r = c.request(
        "tools/call",
        json!({"name": "repo_stats", "arguments": {}, "_meta": {"progressToken": "build-1"}}),
    );
    assert_eq!(r["result"]["isError"], Value::Null, "{r}");
    assert_eq!(r["result"]["structuredContent"]["files"], 1, "{r}");
    let progress: Vec<&Value> = c
        .notes
        .iter()
        .filter(|n| n["method"] == "notifications/progress")
        .collect();
    assert!(!progress.is_empty(), "no progress: {:?}", c.notes);
    let mut last = -1.0;
    for n in &progress {
        assert_eq!(n["params"]["progressToken"], "build-1", "{n}");
        let p = n["params"]["progress"].as_f64().unwrap();
        assert!(p > last, "progress must rise: {progress:?}");
        last = p;
        assert!(n["params"]["message"]
            .as_str()
            .unwrap()
            .contains("indexing"));
    }
    let before = c.notes.len();
    c.request(
        "tools/call",
        json!({"name": "repo_stats", "arguments": {},
        "_meta": {"progressToken": 2}}),
    );
    assert_eq!(c.notes.len(), before, "built: nothing to report");
    assert!(c.finish().success());

    // Without a token, to a client that set a log level: a log message while the build
    // runs (one that did not hears nothing it did not ask for).
    let mut c = Client::start_with_env(&[repo.to_str().unwrap(), "--no-cache"], &[("PATH", path)]);
    c.request("initialize", json!({"protocolVersion": "2025-06-18"}));
    let r = c.request("logging/setLevel", json!({"level": "info"}));
    assert_eq!(r["result"], json!({}), "{r}");
    c.request("tools/call", json!({"name": "repo_stats", "arguments": {}}));
    let logged = c
        .notes
        .iter()
        .find(|n| n["method"] == "notifications/message")
        .unwrap_or_else(|| panic!("no log message: {:?}", c.notes));
    assert_eq!(logged["params"]["level"], "info");
    assert!(
        logged["params"]["data"]
            .as_str()
            .unwrap()
            .contains("indexing"),
        "{logged}"
    );
    assert!(c.finish().success());
}

/// The MCP server takes folders by path (its client is the agent that started it) within
/// the same limits as the HTTP server: a root over `--source-max-files` is a tool error
/// `TREE_TOO_LARGE`, and the project's tools answer as usual.
#[test]
fn sources_named_by_calls_are_bounded_like_the_http_servers() {
    let dir = tempfile::tempdir().unwrap();
    common::write_files(
        dir.path(),
        &[("app/orders.py", "def export_orders(o):\n    return o\n")],
    );
    let many = tempfile::tempdir().unwrap();
    for i in 0..10 {
        common::write_files(
            many.path(),
            &[(&format!("m{i}.py"), "def f():\n    return 1\n")],
        );
    }
    let root = dir.path().to_str().unwrap();
    let mut client = Client::start(&[root, "--no-history", "--source-max-files", "5"]);
    let named = format!("many={}", many.path().display());
    let r = client.request(
        "tools/call",
        json!({"name": "search", "arguments": {"query": "f", "sources": [named]}}),
    );
    assert_eq!(r["result"]["isError"], true, "{r}");
    let v = &r["result"]["structuredContent"];
    assert_eq!(v["code"], "TREE_TOO_LARGE", "{r}");
    assert!(
        v["error"].as_str().unwrap().contains("more than 5 files"),
        "{r}"
    );
    assert_eq!(
        client.search("export_orders")["sources"][0]["symbol"],
        "export_orders"
    );
    assert!(client.finish().success());
}

/// A method `area` of two classes called on two receivers of unknown type, and a caller in
/// a file whose name holds control characters: `repo_references` over stdio answers each
/// `area` on its own, marks the guessed uses ambiguous, and writes no raw control byte.
#[test]
fn repo_references_marks_a_method_of_two_classes_ambiguous_over_stdio() {
    let dir = tempfile::tempdir().unwrap();
    common::write_files(
        dir.path(),
        &[
            (
                "shapes/circle.py",
                "class Circle:\n    def area(self):\n        return 3\n",
            ),
            (
                "shapes/square.py",
                "class Square:\n    def area(self):\n        return 4\n",
            ),
            (
                "report.py",
                "def total(c, s):\n    return c.area() + s.area()\n\n\nimport shapes.circle\nimport shapes.square\n",
            ),
            (
                "odd\x1b]0;x\x07\u{9b}.py",
                "from report import total\n\n\ndef use(c, s):\n    return total(c, s)\n",
            ),
        ],
    );
    let root = dir.path().to_str().unwrap();
    let mut client = Client::start(&[root, "--no-history"]);
    client.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "test", "version": "0"}}),
    );
    client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    let r = client.request(
        "tools/call",
        json!({"name": "repo_references", "arguments": {"name": "area", "direction": "callers"}}),
    );
    let doc = &r["result"]["structuredContent"];
    assert_eq!(doc["success"], true, "{r}");
    assert_eq!(doc["ambiguous_name"], true, "{doc}");
    assert_eq!(doc["definitions_total"], 2);
    let owners: Vec<&str> = doc["definitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["definition"]["path"].as_str().unwrap())
        .collect();
    assert_eq!(owners, ["shapes/circle.py", "shapes/square.py"]);
    let qualified: Vec<&str> = doc["definitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["definition"]["qualified_name"].as_str().unwrap())
        .collect();
    assert_eq!(qualified, ["Circle.area", "Square.area"]);
    for g in doc["definitions"].as_array().unwrap() {
        let uses = g["callers"]["uses"].as_array().unwrap();
        assert_eq!(uses.len(), 2, "{g}");
        for u in uses {
            assert_eq!(u["path"], "report.py");
            assert_eq!(u["caller"]["name"], "total");
            assert_eq!(
                (&u["binding"], &u["ambiguous"], &u["candidates"]),
                (&json!("method_guess"), &json!(true), &json!(2)),
                "{u}"
            );
        }
    }

    // `total`'s caller sits in the oddly named file: its name arrives escaped.
    let r = client.request(
        "tools/call",
        json!({"name": "repo_references", "arguments": {"name": "total"}}),
    );
    let line = client.last_line.clone();
    assert!(!line.chars().any(char::is_control), "{line:?}");
    let group = &r["result"]["structuredContent"]["definitions"][0];
    let callers: Vec<&str> = group["callers"]["uses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["path"].as_str().unwrap())
        .collect();
    assert!(callers.iter().any(|p| p.starts_with("odd")), "{group}");
    // What `total` calls: one use of `area` on each receiver, each shared by the two.
    let callees = group["callees"]["uses"].as_array().unwrap();
    assert_eq!(callees.len(), 2, "{group}");
    for u in callees {
        assert_eq!(u["name"], "area");
        assert_eq!(u["ambiguous"], true);
        assert_eq!(u["definitions"].as_array().unwrap().len(), 2, "{u}");
    }
    assert!(client.finish().success());
}

/// A repository of only source files without a grammar is mapped by their paths over MCP, as
/// on the command line (`cli_path_only`) and over HTTP: not refused as empty.
#[test]
fn repo_map_lists_a_repository_of_only_path_only_files() {
    let dir = tempfile::tempdir().unwrap();
    common::write_files(
        dir.path(),
        &[
            ("db/schema.sql", "CREATE TABLE users (id int);\n"),
            ("Makefile", "all:\n\techo hi\n"),
        ],
    );
    let mut c = Client::start(&[dir.path().to_str().unwrap(), "--no-watch", "--no-history"]);
    c.request("initialize", json!({"protocolVersion": "2025-06-18"}));
    let r = c.request(
        "tools/call",
        json!({"name": "repo_map", "arguments": {"tokens": 256}}),
    );
    let text = r["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert_eq!(text, "Makefile\n\ndb/schema.sql\n", "{r}");
}

/// A look-up answered by a generated file, over MCP: the same first source as `search
/// --json` gives (`cli_generated`), and `repo_symbol_answer` names the file.
#[test]
fn a_look_up_finds_a_definition_in_a_generated_file_over_stdio() {
    let dir = tempfile::tempdir().unwrap();
    common::write_files(
        dir.path(),
        &[
            (
                "src/main.c",
                "extern int yylex(void);\n\nint scan_all(void) {\n  return yylex();\n}\n",
            ),
            (
                "src/lexer.c",
                "/* A lexical scanner generated by flex */\n\nint yylex(void)\n{\n  return 0;\n}\n",
            ),
        ],
    );
    let mut c = Client::start(&[dir.path().to_str().unwrap(), "--no-watch", "--no-history"]);
    c.request("initialize", json!({"protocolVersion": "2025-06-18"}));
    let search = c.search("yylex");
    let first = &search["sources"][0];
    assert_eq!(
        (
            &first["file_path"],
            &first["evidence_type"],
            &first["line_range"][0]
        ),
        (&json!("src/lexer.c"), &json!("definition"), &json!(3)),
        "{search}"
    );
    let r = c.request(
        "tools/call",
        json!({"name": "repo_symbol_answer", "arguments": {"question": "where is yylex defined"}}),
    );
    let text = r["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("src/lexer.c"), "{r}");
}
