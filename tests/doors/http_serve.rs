//! `mapscope serve --http` end to end: the real binary on a free loopback port, a real HTTP
//! client (ureq), every route and its errors, concurrent requests while files change, a
//! non-loopback address refused, and Ctrl-C (SIGINT) ending the server cleanly.

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The server process, killed if a test fails before it stops it.
struct Server {
    child: Child,
    base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(root: &Path) -> Server {
    start_with(root, &[])
}

fn start_with(root: &Path, extra: &[&str]) -> Server {
    start_env(root, extra, &[])
}

fn start_env(root: &Path, extra: &[&str], env: &[(&str, std::ffi::OsString)]) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mapscope"))
        .env("MAPSCOPE_CACHE_DIR", common::test_cache_dir())
        .env_remove("MAPSCOPE_LLM_URL")
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
    let stderr = child.stderr.take().unwrap();
    let mut line = String::new();
    BufReader::new(stderr).read_line(&mut line).unwrap();
    let base = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    Server { child, base }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into()
}

fn get(base: &str, path: &str) -> (u16, Value) {
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

fn post(base: &str, path: &str, body: &[u8]) -> (u16, Value) {
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

fn shop() -> tempfile::TempDir {
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
    let (status, v) = get(&server.base, "/search?q=csv+rows&top=4");
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

/// `sources` per request: a configured name, another root by NAME=PATH, none; bad entries
/// are 400s; a server reachable from other machines takes names only.
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
    let server = start_with(dir.path(), &["--source", &spec]);
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
    let (_, v) = get(&server.base, q);
    assert!(names(&v).contains(&"examples".to_string()), "{v}");
    let (status, v) = get(&server.base, &format!("{q}&sources="));
    assert_eq!(status, 200, "{v}");
    assert!(
        !names(&v).contains(&"examples".to_string()),
        "project only: {v}"
    );
    let more = format!("more={}", other.path().display());
    let (status, v) = get(&server.base, &format!("{q}&sources={more}"));
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
    drop(server);

    // --allow-remote: configured names only (here still on loopback, for the test).
    let server = start_with(dir.path(), &["--source", &spec, "--allow-remote"]);
    let (status, v) = get(&server.base, &format!("{q}&sources={more}"));
    assert_eq!(
        (status, v["code"].as_str()),
        (400, Some("INVALID_ARGUMENT")),
        "{v}"
    );
    assert!(
        v["error"].as_str().unwrap().contains("--allow-remote"),
        "{v}"
    );
    let (status, _) = get(&server.base, &format!("{q}&sources=examples"));
    assert_eq!(status, 200);
}

/// Everything a raw connection gets until the server closes it or `wait` passes.
fn read_reply(stream: &mut std::net::TcpStream, wait: Duration) -> String {
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

/// Clients that send headers and then stop sending their body hold no worker: other
/// requests are answered at once, and each slow one gets 408 after the body deadline. A
/// malformed request line is a 400 and nothing else is affected.
#[test]
fn slow_bodies_time_out_without_holding_the_workers() {
    let dir = shop();
    let server = start(dir.path());
    let addr = server.base.trim_start_matches("http://").to_string();
    let started = Instant::now();
    // More slow clients than request workers (4).
    let mut slow: Vec<std::net::TcpStream> = (0..6)
        .map(|_| {
            let mut s = std::net::TcpStream::connect(&addr).unwrap();
            s.write_all(b"POST /index HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n")
                .unwrap();
            s.write_all(&[b'x'; 100]).unwrap();
            s
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    for path in ["/stats", "/search?q=export_orders"] {
        let t = Instant::now();
        let (status, v) = get(&server.base, path);
        assert_eq!(status, 200, "{v}");
        assert!(
            t.elapsed() < Duration::from_secs(3),
            "{path}: {:?}",
            t.elapsed()
        );
    }
    // A body that arrives in full goes the same way and is answered as usual.
    let (status, v) = post(&server.base, "/index", &[b'x'; 5000]);
    assert_eq!(status, 200, "{v}");
    // Three more slow bodies: 9 for 8 body readers, so one of them (whichever a worker
    // takes last) is refused at once with 503 and the rest get 408 at their deadline.
    for _ in 0..3 {
        let mut s = std::net::TcpStream::connect(&addr).unwrap();
        s.write_all(b"POST /index HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\nxx")
            .unwrap();
        slow.push(s);
        std::thread::sleep(Duration::from_millis(100));
    }
    let mut bad = std::net::TcpStream::connect(&addr).unwrap();
    bad.write_all(b"THIS IS NOT HTTP\r\n\r\n").unwrap();
    let reply = read_reply(&mut bad, Duration::from_secs(5));
    assert!(reply.starts_with("HTTP/1.1 400"), "{reply:?}");
    let (mut timed_out, mut busy) = (0, 0);
    for s in &mut slow {
        let reply = read_reply(s, Duration::from_secs(20));
        if reply.starts_with("HTTP/1.1 503") {
            assert!(reply.contains("\"code\":\"SERVER_BUSY\""), "{reply:?}");
            busy += 1;
        } else {
            assert!(reply.starts_with("HTTP/1.1 408"), "{reply:?}");
            assert!(reply.contains("\"code\":\"REQUEST_TIMEOUT\""), "{reply:?}");
            timed_out += 1;
        }
    }
    // One refused; (the full-body POST's reader may still have been counted for a moment
    // under load, refusing a second).
    assert!(
        busy >= 1 && timed_out >= 7,
        "{busy} refused, {timed_out} timed out"
    );
    let took = started.elapsed();
    assert!(
        took >= Duration::from_secs(9) && took < Duration::from_secs(20),
        "{took:?}"
    );
    let (status, _) = get(&server.base, "/stats");
    assert_eq!(status, 200);
}
