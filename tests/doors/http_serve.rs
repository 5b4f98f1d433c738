//! `mapscope serve --http` end to end: the real binary on a free loopback port, a real HTTP
//! client (ureq), every route and its errors, concurrent requests while files change, a
//! non-loopback address refused, and Ctrl-C (SIGINT) ending the server cleanly.

use crate::common;

use std::io::{BufRead, BufReader};
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
    let mut child = Command::new(env!("CARGO_BIN_EXE_mapscope"))
        .env("MAPSCOPE_CACHE_DIR", common::test_cache_dir())
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
