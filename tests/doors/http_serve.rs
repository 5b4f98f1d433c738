//! `mapscope serve --http` end to end: the real binary on a free loopback port, a real HTTP
//! client (ureq) and raw sockets, every route and its errors, concurrent requests while files
//! change, malformed requests, slow clients and a connection flood answered with JSON errors
//! while other requests go on, a non-loopback address refused, and Ctrl-C (SIGINT) ending the
//! server cleanly. Hostile clients (`http_hostile`): foreign hosts and origins, folders named
//! by requests, sources over their limits, large sources building while others are answered,
//! a stop during a build, slow clients from one address, memory across many sources.

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

/// `src/http/conn.rs`: connections open at once, per client address, and the largest
/// request head.
pub(crate) const SLOTS: usize = 32;
pub(crate) const PER_ADDRESS: usize = 8;
const MAX_HEAD: usize = 16 * 1024;

/// The server process, killed if a test fails before it stops it.
pub(crate) struct Server {
    pub(crate) child: Child,
    pub(crate) base: String,
    /// The lines it wrote on stderr after the address (read on as they come, so that the
    /// server never writes to a closed pipe).
    pub(crate) log: Arc<Mutex<Vec<String>>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    pub(crate) fn addr(&self) -> &str {
        self.base.trim_start_matches("http://")
    }

    /// Waits (a little) for a stderr line containing all of `words`.
    pub(crate) fn logged(&self, words: &[&str]) -> bool {
        let deadline = Instant::now() + Duration::from_secs(3);
        loop {
            let found = self
                .log
                .lock()
                .unwrap()
                .iter()
                .any(|l| words.iter().all(|w| l.contains(w)));
            if found || Instant::now() > deadline {
                return found;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

pub(crate) fn start(root: &Path) -> Server {
    start_with(root, &[])
}

pub(crate) fn start_with(root: &Path, extra: &[&str]) -> Server {
    start_env(root, extra, &[])
}

/// `spawn_env`, once the first index build is done (`/stats` no longer says `building`),
/// so that a test's first `/stats` is the stats.
pub(crate) fn start_env(root: &Path, extra: &[&str], env: &[(&str, std::ffi::OsString)]) -> Server {
    let server = spawn_env(root, extra, env);
    let deadline = Instant::now() + Duration::from_mins(1);
    while get(&server.base, "/stats").1["building"] == true {
        assert!(Instant::now() < deadline, "the first build never ended");
        std::thread::sleep(Duration::from_millis(20));
    }
    server
}

/// The server on `root`, answering (its first build may still run).
fn spawn_env(root: &Path, extra: &[&str], env: &[(&str, std::ffi::OsString)]) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mapscope"))
        .env("MAPSCOPE_CACHE_DIR", common::test_cache_dir())
        .env_remove("MAPSCOPE_LLM_URL")
        .env_remove("MAPSCOPE_HTTP_DEADLINE_MS")
        .envs(env.iter().map(|(k, v)| (k, v)))
        .args([
            "serve",
            root.to_str().unwrap(),
            "--http",
            "127.0.0.1:0",
            "--no-history",
        ])
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run mapscope serve");
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let base = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    let log = Arc::new(Mutex::new(Vec::new()));
    let lines = Arc::clone(&log);
    std::thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            lines.lock().unwrap().push(line);
        }
    });
    Server { child, base, log }
}

/// A server whose read deadlines (head and body) are `ms` milliseconds.
pub(crate) fn start_deadline(root: &Path, ms: u64) -> Server {
    start_env(
        root,
        &[],
        &[("MAPSCOPE_HTTP_DEADLINE_MS", ms.to_string().into())],
    )
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into()
}

pub(crate) fn get(base: &str, path: &str) -> (u16, Value) {
    let mut r = agent()
        .get(format!("{base}{path}"))
        .call()
        .expect("GET answered");
    let status = r.status().as_u16();
    let body = r.body_mut().read_to_string().unwrap();
    (
        status,
        serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}")),
    )
}

pub(crate) fn post(base: &str, path: &str, body: &[u8]) -> (u16, Value) {
    let mut r = agent()
        .post(format!("{base}{path}"))
        .send(body)
        .expect("POST answered");
    let status = r.status().as_u16();
    let body = r.body_mut().read_to_string().unwrap();
    (
        status,
        serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}")),
    )
}

pub(crate) fn shop() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    common::write_files(
        dir.path(),
        &[
            (
                "src/orders.py",
                "def export_orders(orders):\n    \"\"\"CSV export of orders.\"\"\"\n    return ','.join(orders)\n",
            ),
            (
                "src/main.py",
                "from orders import export_orders\n\ndef main():\n    return export_orders([])\n",
            ),
        ],
    );
    dir
}

#[test]
fn every_route_answers_with_the_shared_contract_and_errors_have_codes() {
    let dir = shop();
    let server = start(dir.path());
    let base = &server.base;

    let (status, v) = get(base, "/search?q=export_orders&top=3");
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["success"], true);
    assert_eq!(v["sources"][0]["file_path"], "src/orders.py");
    assert_eq!(v["changes_pending"], false);
    assert!(v["answer"]
        .as_str()
        .unwrap()
        .starts_with("`export_orders` is defined in"));

    let (status, v) = get(base, "/answer?q=where+is+export_orders&max_sources=2");
    assert_eq!(status, 200, "{v}");
    assert!(v["sources"].as_array().unwrap().len() <= 2);
    assert_eq!(v["diagnostics"]["used_llm"], false);

    let (status, v) = get(base, "/map?tokens=64&query=csv%20export");
    assert_eq!(status, 200, "{v}");
    assert!(v["tokens"].as_u64().unwrap() <= 64);
    assert_eq!(v["files"][0]["path"], "src/orders.py");

    let (status, v) = get(base, "/stats");
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["files"], 2);

    for (path, code, status_wanted) in [
        ("/search?q=x&top=99", "INVALID_ARGUMENT", 400),
        ("/search?q=x&bogus=1", "INVALID_ARGUMENT", 400),
        ("/search", "INVALID_ARGUMENT", 400),
        ("/answer?q=x&answer_style=verbose", "INVALID_ARGUMENT", 400),
        ("/map?tokens=1", "INVALID_ARGUMENT", 400),
        ("/nowhere", "NOT_FOUND", 404),
        ("/index", "METHOD_NOT_ALLOWED", 405),
    ] {
        let (status, v) = get(base, path);
        assert_eq!(
            (status, v["code"].as_str()),
            (status_wanted, Some(code)),
            "{path}: {v}"
        );
        assert_eq!(v["success"], false);
    }
    // A refusal names the parameter as the request wrote it.
    for (path, says) in [
        ("/search", "`q` must be a non-empty string"),
        ("/search?q=+", "`q` must be a non-empty string"),
        ("/answer?q=", "`q` must be a non-empty string"),
        ("/map?focus=a.py&tokens=many", "`tokens` must be an integer"),
    ] {
        let (_, v) = get(base, path);
        assert!(
            v["error"].as_str().unwrap().starts_with(says),
            "{path}: {v}"
        );
    }
    let (status, v) = post(base, "/search?q=x", b"");
    assert_eq!(
        (status, v["code"].as_str()),
        (405, Some("METHOD_NOT_ALLOWED"))
    );
    let big = vec![b'x'; 10 * 1024 * 1024];
    let (status, v) = post(base, "/index", &big);
    assert_eq!((status, v["code"].as_str()), (413, Some("BODY_TOO_LARGE")));

    // POST /index reads the files again (here: one more).
    std::fs::write(
        dir.path().join("src/refund.py"),
        "def refund(order):\n    return order\n",
    )
    .unwrap();
    let (status, v) = post(base, "/index", b"");
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["files"], 3);
}

#[test]
fn refs_answers_callers_and_callees_by_name_or_place() {
    let dir = tempfile::tempdir().unwrap();
    common::write_files(
        dir.path(),
        &[
            ("shop/orders.py", "def export_orders(orders):\n    return orders\n"),
            (
                "shop/main.py",
                "from shop.orders import export_orders\n\n\ndef main():\n    return export_orders([])\n",
            ),
        ],
    );
    let server = start(dir.path());
    let base = &server.base;
    let (status, v) = get(base, "/refs?name=export_orders&direction=callers&top=1");
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["success"], true);
    assert_eq!(v["changes_pending"], false);
    assert_eq!(v["direction"], "callers");
    let group = &v["definitions"][0];
    assert_eq!(group["definition"]["path"], "shop/orders.py");
    assert_eq!(group["callers"]["total"], 2, "{v}");
    let first = &group["callers"]["uses"][0];
    assert_eq!(
        (&first["path"], &first["line"], &first["binding"]),
        (
            &Value::from("shop/main.py"),
            &Value::from(5),
            &Value::from("import")
        )
    );
    assert_eq!(first["caller"]["name"], "main");
    assert!(group.get("callees").is_none());
    let (status, v) = get(base, "/refs?at=shop%2Fmain.py%3A5&direction=callees");
    assert_eq!(status, 200, "{v}");
    let callee = &v["definitions"][0]["callees"]["uses"][0];
    assert_eq!(callee["name"], "export_orders");
    assert_eq!(callee["definitions"][0]["path"], "shop/orders.py");
    for (path, status_wanted, code) in [
        ("/refs?name=nope", 404, "NOT_FOUND"),
        ("/refs?at=shop/main.py:3", 404, "NOT_FOUND"),
        ("/refs", 400, "INVALID_ARGUMENT"),
        ("/refs?at=main", 400, "INVALID_ARGUMENT"),
        ("/refs?name=x&direction=up", 400, "INVALID_ARGUMENT"),
        ("/refs?name=x&top=201", 400, "INVALID_ARGUMENT"),
        ("/refs?name=x&q=1", 400, "INVALID_ARGUMENT"),
    ] {
        let (status, v) = get(base, path);
        assert_eq!(
            (status, v["code"].as_str()),
            (status_wanted, Some(code)),
            "{path}: {v}"
        );
    }
    let (status, v) = post(base, "/refs?name=x", b"");
    assert_eq!(
        (status, v["code"].as_str()),
        (405, Some("METHOD_NOT_ALLOWED"))
    );
}

/// A method of two classes called on two receivers: `/refs` answers each definition and
/// says the uses are guesses shared by both (`ambiguous`, `candidates`).
#[test]
fn refs_marks_a_method_called_on_two_receiver_types_ambiguous() {
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
        ],
    );
    let server = start(dir.path());
    let (status, v) = get(&server.base, "/refs?name=area&direction=callers");
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["ambiguous_name"], true, "{v}");
    let groups = v["definitions"].as_array().unwrap();
    assert_eq!(groups.len(), 2, "{v}");
    for g in groups {
        assert_eq!(g["callers"]["total"], 2, "{g}");
        for u in g["callers"]["uses"].as_array().unwrap() {
            assert_eq!(
                (&u["path"], &u["ambiguous"], &u["candidates"]),
                (
                    &Value::from("report.py"),
                    &Value::from(true),
                    &Value::from(2)
                ),
                "{u}"
            );
        }
    }
    // The qualified form picks one class's method.
    let (status, v) = get(&server.base, "/refs?name=Square.area&direction=callers");
    assert_eq!(status, 200, "{v}");
    let groups = v["definitions"].as_array().unwrap();
    assert_eq!(groups.len(), 1, "{v}");
    assert_eq!(groups[0]["definition"]["path"], "shapes/square.py");
}

#[test]
fn concurrent_requests_while_files_change_all_get_whole_answers() {
    let dir = shop();
    let server = start(dir.path());
    let base = server.base.clone();
    let writer = {
        let root = dir.path().to_path_buf();
        std::thread::spawn(move || {
            for i in 0..20 {
                let text = format!("def handler_{i}(request):\n    return request\n");
                std::fs::write(root.join(format!("src/h{i}.py")), text).unwrap();
                std::thread::sleep(Duration::from_millis(20));
            }
        })
    };
    let clients: Vec<_> = (0..6)
        .map(|c| {
            let base = base.clone();
            std::thread::spawn(move || {
                for _ in 0..8 {
                    let path = if c % 2 == 0 {
                        "/search?q=export+orders"
                    } else {
                        "/map?tokens=200"
                    };
                    let (status, v) = get(&base, path);
                    assert_eq!(status, 200, "{path}: {v}");
                    assert!(v.is_object());
                }
            })
        })
        .collect();
    writer.join().unwrap();
    for c in clients {
        c.join().unwrap();
    }
    // Once the writes are over, the watcher brings the last file in.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (_, v) = get(&base, "/search?q=handler_19");
        if v["sources"][0]["symbol"] == "handler_19" {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the last file never showed up: {v}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn an_empty_repository_is_a_503_naming_the_root() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path());
    let (status, v) = get(&server.base, "/search?q=anything");
    assert_eq!(status, 503, "{v}");
    assert_eq!(v["code"], "REPO_EMPTY");
    assert!(v["root"].as_str().is_some(), "{v}");
    assert!(
        v["hint"].as_str().unwrap().contains("mapscope serve PATH"),
        "{v}"
    );
}

#[test]
fn a_remote_address_is_refused_and_ctrl_c_stops_the_server() {
    let dir = shop();
    let o = Command::new(env!("CARGO_BIN_EXE_mapscope"))
        .env("MAPSCOPE_CACHE_DIR", common::test_cache_dir())
        .args(["serve", dir.path().to_str().unwrap(), "--http", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("INVALID_ARGUMENT") && err.contains("--allow-remote"),
        "{err}"
    );

    let mut server = start(dir.path());
    let (status, _) = get(&server.base, "/stats");
    assert_eq!(status, 200);
    // A client still sending its head does not hold the stop up (no request in hand).
    let mut idle = TcpStream::connect(server.addr()).unwrap();
    idle.write_all(b"GET /stats HTTP/1.1\r\n").unwrap();
    std::thread::sleep(Duration::from_millis(100));
    let pid = server.child.id().to_string();
    assert!(Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .unwrap()
        .success());
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            assert!(status.success(), "{status:?}");
            break;
        }
        assert!(Instant::now() < deadline, "still running after SIGINT");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn extra_sources_answer_after_the_project() {
    let dir = shop();
    let lib = tempfile::tempdir().unwrap();
    common::write_files(
        lib.path(),
        &[(
            "csv_writer.py",
            "def write_csv_rows(rows):\n    return rows\n",
        )],
    );
    let spec = format!("examples={}", lib.path().display());
    let server = start_with(dir.path(), &["--source", &spec]);
    let (status, v) = get_built(&server.base, "/search?q=csv+rows&top=4");
    assert_eq!(status, 200, "{v}");
    let sources = v["sources"].as_array().unwrap();
    let hit = sources
        .iter()
        .find(|s| s["source"] == "examples")
        .unwrap_or_else(|| panic!("no hit from the source: {v}"));
    assert_eq!(hit["file_path"], "csv_writer.py");
    assert!(hit["relevance"].as_u64().unwrap() <= 100);
}

/// `/answer` with an LLM configured (a local fake endpoint): the model's answer citing the
/// sources; any failure keeps the extractive answer and says why; `/search` never asks.
#[test]
fn answers_come_from_the_configured_llm_and_fall_back_on_any_error() {
    let dir = shop();
    let said = "`export_orders` joins the orders with commas (`src/orders.py:1-3`).";
    let llm = common::FakeLlm::start(common::LlmPlay::Says(said));
    let server = start_env(dir.path(), &[], &llm.env(5000));
    let (status, v) = get(
        &server.base,
        "/answer?q=where+is+export_orders&answer_style=concise",
    );
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["answer"], said, "{v}");
    assert_eq!(v["diagnostics"]["used_llm"], true);
    assert_eq!(v["diagnostics"]["llm_model"], "fake-llm");
    let asked = llm.bodies.lock().unwrap()[0].clone();
    assert!(asked.contains("`src/orders.py:1"), "{asked}");
    assert!(asked.contains("one or two sentences"), "the style: {asked}");
    let (_, v) = get(&server.base, "/search?q=export_orders");
    assert_eq!(v["diagnostics"]["used_llm"], false);
    assert!(v["diagnostics"].get("llm_error").is_none(), "{v}");
    assert_eq!(
        llm.bodies.lock().unwrap().len(),
        1,
        "search does not ask the model"
    );
    drop(server);

    for (play, code) in [
        (common::LlmPlay::Status(500, "boom"), "LLM_HTTP_STATUS"),
        (common::LlmPlay::Status(200, "not json"), "LLM_BAD_RESPONSE"),
        (common::LlmPlay::Silent, "LLM_TIMEOUT"),
    ] {
        let llm = common::FakeLlm::start(play);
        let server = start_env(dir.path(), &[], &llm.env(500));
        let t = Instant::now();
        let (status, v) = get(&server.base, "/answer?q=export_orders");
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "{code}: {:?}",
            t.elapsed()
        );
        assert_eq!(status, 200, "{v}");
        assert_eq!(v["diagnostics"]["used_llm"], false, "{v}");
        assert_eq!(v["diagnostics"]["llm_error"], code, "{v}");
        assert!(
            v["diagnostics"]["llm_error_message"].as_str().is_some(),
            "{v}"
        );
        assert!(
            v["answer"]
                .as_str()
                .unwrap()
                .starts_with("`export_orders` is defined in"),
            "{v}"
        );
    }
}

/// `sources` per request: a configured name, another root by NAME=PATH (under a
/// `--source-root`), none; bad entries are 400s.
#[test]
fn requests_choose_their_sources() {
    let dir = shop();
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
    let spec = format!("examples={}", lib.path().display());
    let root = other.path().to_str().unwrap();
    let server = start_with(dir.path(), &["--source", &spec, "--source-root", root]);
    let names = |v: &Value| -> Vec<String> {
        let mut n: Vec<String> = v["sources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["source"].as_str().unwrap().to_string())
            .collect();
        n.sort();
        n.dedup();
        n
    };
    let q = "/search?q=csv+rows&top=4";
    let (_, v) = get_built(&server.base, q);
    assert!(names(&v).contains(&"examples".to_string()), "{v}");
    let (status, v) = get(&server.base, &format!("{q}&sources="));
    assert_eq!(status, 200, "{v}");
    assert!(
        !names(&v).contains(&"examples".to_string()),
        "project only: {v}"
    );
    let more = format!("more={}", other.path().display());
    let (status, v) = get_built(&server.base, &format!("{q}&sources={more}"));
    assert_eq!(status, 200, "{v}");
    assert!(names(&v).contains(&"more".to_string()), "{v}");
    assert!(!names(&v).contains(&"examples".to_string()), "{v}");
    let (status, v) = get(
        &server.base,
        &format!("/answer?q=csv+rows&sources=examples&sources={more}"),
    );
    assert_eq!(status, 200, "{v}");
    let n = names(&v);
    assert!(
        n.contains(&"examples".to_string()) && n.contains(&"more".to_string()),
        "{v}"
    );
    let gone = dir.path().join("gone");
    let inside = dir.path().join("src");
    for bad in [
        "sources=nope".to_string(),
        format!("sources=gone={}", gone.display()),
        format!("sources=inner={}", inside.display()),
        format!("sources=examples={}", other.path().display()),
        format!("sources={more}&sources={more}"),
        "sources=bad%20name=/tmp".to_string(),
    ] {
        let (status, v) = get(&server.base, &format!("{q}&{bad}"));
        assert_eq!(
            (status, v["code"].as_str()),
            (400, Some("INVALID_ARGUMENT")),
            "{bad}: {v}"
        );
    }
}

/// `path` until it is not a 503 `SOURCE_BUILDING` (a source still being indexed), for up to
/// 30 s.
pub(crate) fn get_built(base: &str, path: &str) -> (u16, Value) {
    // A bound on waiting, not a timing check: a loaded 2-core machine took over 30 s to
    // build the hostile tests' 1,500-file source.
    let deadline = Instant::now() + Duration::from_mins(2);
    loop {
        let (status, v) = get(base, path);
        if v["code"] != "SOURCE_BUILDING" || Instant::now() > deadline {
            return (status, v);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A TCP connection to `to` (127.0.0.1:port) from the loopback address `from`: Linux routes
/// all of 127/8 to the loopback device, so one test can be several client addresses.
pub(crate) fn connect_from(from: [u8; 4], to: &str) -> TcpStream {
    use std::os::fd::FromRawFd;
    let to: std::net::SocketAddrV4 = to.parse().unwrap();
    let address = |ip: [u8; 4], port: u16| libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: port.to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from_ne_bytes(ip),
        },
        sin_zero: [0; 8],
    };
    let len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
    let (local, remote) = (address(from, 0), address(to.ip().octets(), to.port()));
    // SAFETY: a fresh socket, bound and connected with addresses that live through the
    // calls, then owned by the TcpStream (closed on its drop).
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
        assert!(fd >= 0, "socket");
        let stream = TcpStream::from_raw_fd(fd);
        let bound = libc::bind(fd, (&raw const local).cast(), len);
        assert_eq!(
            bound,
            0,
            "bind {from:?}: {}",
            std::io::Error::last_os_error()
        );
        let connected = libc::connect(fd, (&raw const remote).cast(), len);
        assert_eq!(connected, 0, "connect: {}", std::io::Error::last_os_error());
        stream
    }
}

/// A GET of `path` from the loopback address `from`, with the `Host` the server is reached
/// by: its status and body.
pub(crate) fn get_from(from: [u8; 4], server: &Server, path: &str) -> (u16, Value) {
    let mut s = connect_from(from, server.addr());
    let head = format!("GET {path} HTTP/1.1\r\nHost: {}\r\n\r\n", server.addr());
    s.write_all(head.as_bytes()).unwrap();
    parsed(&read_reply(&mut s, Duration::from_secs(10)))
}

/// Everything a raw connection gets until the server closes it or `wait` passes.
pub(crate) fn read_reply(stream: &mut TcpStream, wait: Duration) -> String {
    stream.set_read_timeout(Some(wait)).unwrap();
    let mut reply = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => reply.extend_from_slice(&buf[..n]),
        }
    }
    String::from_utf8_lossy(&reply).into_owned()
}

/// Whether the server has answered on `stream` or closed it, without waiting: a reply, the
/// end or a reset is there to read.
fn answered(stream: &TcpStream) -> bool {
    stream.set_nonblocking(true).unwrap();
    let got = stream.peek(&mut [0u8; 1]);
    stream.set_nonblocking(false).unwrap();
    !matches!(got, Err(e) if e.kind() == std::io::ErrorKind::WouldBlock)
}

/// `bytes` sent on a fresh connection, and the reply.
pub(crate) fn raw(server: &Server, bytes: &[u8]) -> String {
    let mut s = TcpStream::connect(server.addr()).unwrap();
    s.write_all(bytes).unwrap();
    read_reply(&mut s, Duration::from_secs(10))
}

/// A raw reply's status and JSON body, checking the header fields every reply carries.
pub(crate) fn parsed(reply: &str) -> (u16, Value) {
    let (head, body) = reply
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("no head in {reply:?}"));
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.strip_prefix("HTTP/1.1 "))
        .and_then(|l| l.get(..3))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {reply:?}"));
    let fields: Vec<String> = lines.map(str::to_ascii_lowercase).collect();
    for want in [
        "content-type: application/json".to_string(),
        format!("content-length: {}", body.len()),
        "connection: close".to_string(),
    ] {
        assert!(fields.contains(&want), "no `{want}` in {reply:?}");
    }
    let v: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {reply:?}"));
    (status, v)
}

/// An error reply with this status and code, in the contract's shape.
pub(crate) fn assert_error(reply: &str, status: u16, code: &str) {
    let (got, v) = parsed(reply);
    assert_eq!((got, v["code"].as_str()), (status, Some(code)), "{reply:?}");
    assert_eq!(v["success"], false, "{reply:?}");
    assert!(v["error"].as_str().is_some_and(|e| !e.is_empty()), "{v}");
}

/// What tiny_http answered with a bare 400 (or not at all) is a JSON error with a stable
/// code, logged on stderr, and the next request is answered as usual.
#[test]
fn malformed_requests_get_json_errors_and_the_server_goes_on() {
    let dir = shop();
    let server = start(dir.path());
    let mut big_head = b"GET /stats HTTP/1.1\r\nX-Big: ".to_vec();
    big_head.resize(MAX_HEAD + 4096, b'a');
    big_head.extend_from_slice(b"\r\n\r\n");
    let cases: [(&[u8], u16, &str); 8] = [
        (b"THIS IS NOT HTTP\r\n\r\n", 400, "BAD_REQUEST"),
        // Garbage without a line end (a TLS hello, say): refused without waiting for one.
        (
            b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",
            400,
            "BAD_REQUEST",
        ),
        (b"GET /stats HTTP/1.1\r\nHost x\r\n\r\n", 400, "BAD_REQUEST"),
        (b"GET /stats\r\n\r\n", 400, "BAD_REQUEST"),
        (
            b"GET /stats HTTP/2.0\r\n\r\n",
            505,
            "HTTP_VERSION_NOT_SUPPORTED",
        ),
        (&big_head, 431, "HEADERS_TOO_LARGE"),
        (
            b"POST /index HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
            411,
            "LENGTH_REQUIRED",
        ),
        (
            b"POST /index HTTP/1.1\r\nContent-Length: five\r\n\r\n",
            400,
            "BAD_REQUEST",
        ),
    ];
    for (bytes, status, code) in cases {
        let t = Instant::now();
        let reply = raw(&server, bytes);
        assert_error(&reply, status, code);
        assert!(
            t.elapsed() < Duration::from_secs(3),
            "{code}: {:?}",
            t.elapsed()
        );
        let (status, v) = get(&server.base, "/stats");
        assert_eq!(status, 200, "after {code}: {v}");
    }
    // A 10 MB body is refused from its Content-Length, before any of it is sent.
    let t = Instant::now();
    let reply = raw(
        &server,
        b"POST /index HTTP/1.1\r\nHost: x\r\nContent-Length: 10485760\r\n\r\n",
    );
    assert_error(&reply, 413, "BODY_TOO_LARGE");
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    // HTTP/1.0 is served.
    let (status, v) = parsed(&raw(&server, b"GET /stats HTTP/1.0\r\n\r\n"));
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["files"], 2);
    for code in ["BAD_REQUEST", "HEADERS_TOO_LARGE", "BODY_TOO_LARGE"] {
        assert!(
            server.logged(&[&format!("mapscope: {code}: http 127.0.0.1:")]),
            "{code} not logged: {:#?}",
            server.log.lock().unwrap()
        );
    }
}

/// Clients that send half a head, or a head and then not all of their body, hold no worker:
/// other requests are answered at once, and each slow one gets 408 at its deadline (here
/// 2 s instead of 10, through the variable the tests use).
#[test]
fn slow_clients_are_cut_at_their_deadline_without_holding_workers() {
    let dir = shop();
    let server = start_deadline(dir.path(), 2000);
    let started = Instant::now();
    // Each from an address of its own (one address holds at most `PER_ADDRESS`).
    let connect = |n: u8, bytes: &[u8]| {
        let mut s = connect_from([127, 0, 1, n], server.addr());
        s.write_all(bytes).unwrap();
        s
    };
    // Twice as many slow clients of each kind as request workers (4).
    let mut slow: Vec<TcpStream> = (0..8)
        .map(|n| connect(n, b"GET /stats HTTP/1.1\r\nHo"))
        .chain((0..8).map(|n| {
            connect(
                10 + n,
                b"POST /index HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\nxxxxxxxxxx",
            )
        }))
        .collect();
    let mut silent = connect_from([127, 0, 1, 99], server.addr());
    std::thread::sleep(Duration::from_millis(200));
    for path in ["/stats", "/search?q=export_orders"] {
        let t = Instant::now();
        let (status, v) = get(&server.base, path);
        assert_eq!(status, 200, "{v}");
        assert!(
            t.elapsed() < Duration::from_millis(1500),
            "{path}: {:?}",
            t.elapsed()
        );
    }
    // A body that arrives in full is read and the request answered as usual.
    let (status, v) = post(&server.base, "/index", &[b'x'; 5000]);
    assert_eq!(status, 200, "{v}");
    for (i, s) in slow.iter_mut().enumerate() {
        let reply = read_reply(s, Duration::from_secs(10));
        assert_error(&reply, 408, "REQUEST_TIMEOUT");
        let part = if i < 8 { "head" } else { "body" };
        assert!(
            reply.contains(&format!("the request {part} did not arrive")),
            "{reply}"
        );
    }
    // A client that never sent anything is closed at the head deadline too.
    let reply = read_reply(&mut silent, Duration::from_secs(10));
    assert!(
        reply.is_empty() || reply.starts_with("HTTP/1.1 408"),
        "{reply}"
    );
    let took = started.elapsed();
    assert!(
        took >= Duration::from_secs(2) && took < Duration::from_secs(8),
        "{took:?}"
    );
    let (status, _) = get(&server.base, "/stats");
    assert_eq!(status, 200);
    assert!(server.logged(&["mapscope: REQUEST_TIMEOUT: http 127.0.1.", "head"]));
    assert!(server.logged(&["mapscope: REQUEST_TIMEOUT: http 127.0.1.", "body"]));
}

/// More connections than the server keeps open (from as many addresses as it takes): the
/// extra ones get 503 at once, and as soon as some of the held ones go, requests are
/// answered again; the rest are cut at the head deadline.
#[test]
fn a_connection_flood_gets_503_and_requests_go_on() {
    let dir = shop();
    // The flood's unfinished heads time out after 6 s; everything up to `truncate` below has
    // to happen before that, on a loaded machine too.
    let server = start_deadline(dir.path(), 6000);
    let flood_from = |i: usize| [127, 0, 2, (i / PER_ADDRESS) as u8];
    let open_flood = |i: usize| {
        let mut s = connect_from(flood_from(i), server.addr());
        s.write_all(b"GET /stats HTTP/1.1\r\n").unwrap();
        s
    };
    let mut flood: Vec<TcpStream> = (0..SLOTS).map(open_flood).collect();
    // Until the server has taken in the whole flood, a request still finds a free slot:
    // wait for the first refusal rather than for a fixed time. A connection of an earlier
    // request (`start`'s readiness probe, whose client does not wait for the close) may still
    // hold its slot when the flood arrives: a flood connection is then refused, and the slot
    // comes free later. So a flood connection that was answered is opened again, and the
    // server is full once a probe is refused while no flood connection was: the flood holds
    // every slot, and none is left to come free.
    let full_by = Instant::now() + Duration::from_secs(3);
    let mut seen: Vec<(u16, String)> = Vec::new();
    loop {
        let (status, v) = get(&server.base, "/stats");
        let mut reopened = 0;
        for (i, s) in flood.iter_mut().enumerate() {
            if answered(s) {
                *s = open_flood(i);
                reopened += 1;
            }
        }
        if status == 503 && reopened == 0 {
            break;
        }
        seen.push((status, v["code"].as_str().unwrap_or("").to_string()));
        assert!(
            Instant::now() < full_by,
            "the flood never filled the server: probes got {seen:?}; server log {:?}",
            server.log.lock().unwrap()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    for _ in 0..3 {
        let t = Instant::now();
        let mut extra = TcpStream::connect(server.addr()).unwrap();
        let reply = read_reply(&mut extra, Duration::from_secs(5));
        assert_error(&reply, 503, "SERVER_BUSY");
        assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
    }
    let (status, v) = get(&server.base, "/stats");
    assert_eq!(
        (status, v["code"].as_str()),
        (503, Some("SERVER_BUSY")),
        "{v}"
    );
    assert!(server.logged(&["mapscope: SERVER_BUSY: http 127.0.0.1:"]));
    // Half the flood goes away: its slots are free again at once.
    flood.truncate(SLOTS / 2);
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let (status, v) = get(&server.base, "/stats");
        if status == 200 {
            break;
        }
        assert!(Instant::now() < deadline, "{status}: {v}");
        std::thread::sleep(Duration::from_millis(50));
    }
    let (status, v) = get(&server.base, "/search?q=export_orders");
    assert_eq!(status, 200, "{v}");
    for s in &mut flood {
        assert_error(
            &read_reply(s, Duration::from_secs(10)),
            408,
            "REQUEST_TIMEOUT",
        );
    }
}

/// The connection layer's stderr lines never end the server, even when nothing reads its
/// stderr any more (`eprintln!` would panic on the closed pipe).
#[test]
fn a_closed_stderr_does_not_end_the_server() {
    let dir = shop();
    let mut child = Command::new(env!("CARGO_BIN_EXE_mapscope"))
        .env("MAPSCOPE_CACHE_DIR", common::test_cache_dir())
        .env_remove("MAPSCOPE_LLM_URL")
        .args([
            "serve",
            dir.path().to_str().unwrap(),
            "--http",
            "127.0.0.1:0",
        ])
        .args(["--no-history"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let base = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap()
        .to_string();
    let server = Server {
        child,
        base,
        log: Arc::default(),
    };
    for _ in 0..2 {
        assert_error(&raw(&server, b"NOT HTTP\r\n\r\n"), 400, "BAD_REQUEST");
    }
    let (status, v) = get(&server.base, "/stats");
    assert_eq!(status, 200, "{v}");
}

/// SIGTERM while a request is in hand (here: waiting on a model that does not answer, for
/// less than the server's stop wait): the request is answered first, then the server exits
/// with status 0.
#[test]
fn a_stop_answers_the_request_in_hand_first() {
    let dir = shop();
    let llm = common::FakeLlm::start(common::LlmPlay::Silent);
    let mut server = start_env(dir.path(), &[], &llm.env(1000));
    let base = server.base.clone();
    // Answered once: the index is built before the model is waited for.
    assert_eq!(get(&base, "/stats").0, 200);
    let asking = std::thread::spawn(move || get(&base, "/answer?q=export_orders"));
    std::thread::sleep(Duration::from_millis(300));
    let pid = server.child.id().to_string();
    assert!(Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap()
        .success());
    let (status, v) = asking.join().unwrap();
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["diagnostics"]["llm_error"], "LLM_TIMEOUT", "{v}");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            assert!(status.success(), "{status:?}");
            break;
        }
        assert!(Instant::now() < deadline, "still running after SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `/map`'s document is within its budget whatever the budget and tokenizer: `tokens` is
/// the exact count of its `text`, counted with tiktoken.
#[test]
fn the_map_route_stays_within_the_budget() {
    let server = start(&common::fixture("ts-app"));
    for tokenizer in ["o200k", "cl100k"] {
        for budget in [16, 40, 100, 300, 1000] {
            let (status, v) = get(
                &server.base,
                &format!("/map?tokens={budget}&tokenizer={tokenizer}"),
            );
            assert_eq!(status, 200, "{v}");
            let n = common::tiktoken_count(tokenizer, v["text"].as_str().unwrap());
            assert_eq!(v["tokens"], n, "{tokenizer} {budget}");
            assert!(n <= budget, "{tokenizer} {budget}: {n}");
        }
    }
}

/// `/stats` answers at once while the first index builds, saying so (`building: true`, the
/// phase), then the stats once it is built. The build is held by a `git` that takes 3 s.
#[cfg(unix)]
#[test]
fn stats_say_the_index_is_still_building() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    common::write_files(&repo, &[("a.py", "def a():\n    pass\n")]);
    // A repository, so that its (fake, slow) `git` is asked.
    std::fs::create_dir(repo.join(".git")).unwrap();
    let bin = tmp.path().join("bin");
    common::write_files(&bin, &[("git", "#!/bin/sh\nexec sleep 3\n")]);
    std::fs::set_permissions(bin.join("git"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut path = std::ffi::OsString::from(&bin);
    path.push(":");
    path.push(std::env::var_os("PATH").unwrap_or_default());
    let server = spawn_env(&repo, &[], &[("PATH", path)]);
    let t = Instant::now();
    let (status, v) = get(&server.base, "/stats");
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["building"], true, "{v}");
    assert!(
        v["message"].as_str().unwrap().contains("still building"),
        "{v}"
    );
    assert!(t.elapsed() < Duration::from_secs(2), "answered at once");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (status, v) = get(&server.base, "/stats");
        assert_eq!(status, 200, "{v}");
        if v["building"].is_null() {
            assert_eq!(v["files"], 1, "{v}");
            break;
        }
        assert!(Instant::now() < deadline, "still building: {v}");
        std::thread::sleep(Duration::from_millis(200));
    }
}
