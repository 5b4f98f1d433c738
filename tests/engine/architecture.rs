//! ARCHITECTURE.md's import rules, checked on the source text: the engine imports nothing
//! above it, the drawing layer imports no threads, channels or I/O, and the front doors do
//! not reach into each other.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("source dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Lines of the files under `dir` that contain one of `forbidden` (comments and the unit
/// tests at the end of a file, from `mod tests`, skipped: tests may print and use anything).
fn offending(dir: &str, forbidden: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut bad = Vec::new();
    for file in rust_files(&root) {
        let text = std::fs::read_to_string(&file).expect("readable source");
        for (n, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("mod tests") {
                break;
            }
            if code.starts_with("//") {
                continue;
            }
            if let Some(f) = forbidden.iter().find(|f| code.contains(*f)) {
                bad.push(format!("{}:{}: `{f}`", file.display(), n + 1));
            }
        }
    }
    bad
}

#[test]
fn the_engine_imports_nothing_above_it() {
    let bad = offending(
        "src/engine",
        &[
            "crate::ui",
            "crate::app",
            "crate::cli",
            "crate::mcp",
            "crate::http",
            "crate::contract",
            "ratatui",
            "crossterm",
            "println!",
            "eprintln!",
        ],
    );
    assert!(bad.is_empty(), "{bad:#?}");
}

#[test]
fn the_drawing_layer_has_no_threads_channels_or_io() {
    let bad = offending(
        "src/ui",
        &[
            "std::thread",
            "crossbeam",
            "std::fs",
            "std::io",
            "std::time::Instant",
            "crate::app",
            "crate::cli",
            "crate::mcp",
            "crate::http",
        ],
    );
    assert!(bad.is_empty(), "{bad:#?}");
}

#[test]
fn front_doors_share_the_contract_not_each_other() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for (file, forbidden) in [
        (
            "mcp/mod.rs",
            &["crate::http", "crate::cli", "crate::app"][..],
        ),
        (
            "mcp/tools.rs",
            &["crate::http", "crate::cli", "crate::app"][..],
        ),
        (
            "http/mod.rs",
            &["crate::mcp", "crate::cli", "crate::app"][..],
        ),
        (
            "http/conn.rs",
            &["crate::mcp", "crate::cli", "crate::app"][..],
        ),
        ("cli/mod.rs", &["crate::mcp", "crate::http"][..]),
        ("cli/serve.rs", &["crate::mcp", "crate::http"][..]),
        (
            "contract.rs",
            &["crate::mcp", "crate::http", "crate::cli", "crate::app"][..],
        ),
    ] {
        let text = std::fs::read_to_string(root.join(file)).expect("readable source");
        for f in forbidden {
            assert!(!text.contains(f), "{file} uses `{f}`");
        }
    }
}

/// ARCHITECTURE.md's "Threads" list: only these modules start threads (or rayon work). A
/// new one is a decision: say why in ARCHITECTURE.md and add it here.
#[test]
fn only_the_named_modules_start_threads() {
    const ALLOWED: &[&str] = &[
        // The live index: its engine threads, the background cache save and the sources'
        // build thread.
        "src/engine/live/mod.rs",
        "src/engine/live/session.rs",
        "src/engine/live/index_service.rs",
        "src/engine/live/source_pool.rs",
        // notify's watcher and the debounce/poll thread.
        "src/engine/watch.rs",
        // Scoped helpers and rayon: git log beside the parse, the walk and the parse, the cache
        // save beside the output, parallel graph and search-index builds.
        "src/engine/index.rs",
        "src/engine/walk.rs",
        "src/engine/history.rs",
        "src/engine/cache.rs",
        "src/engine/graph/build.rs",
        "src/engine/graph/relink.rs",
        "src/engine/search/build.rs",
        // The TUI's input reader, highlighter and X11 clipboard hand-off.
        "src/app/input.rs",
        "src/app/highlight.rs",
        "src/app/clipboard.rs",
        // Front doors: MCP's stdin reader, HTTP's accept and connection threads (the
        // connection layer only: the routes start none), the CLI's cache save.
        "src/mcp/mod.rs",
        "src/http/conn.rs",
        "src/cli/mod.rs",
        "src/cli/map.rs",
        // Measurement: per-dataset work and the parse-floor probe.
        "src/measure/eval.rs",
        "src/measure/parse_floor.rs",
    ];
    let starts = [
        "thread::spawn",
        "thread::Builder",
        "thread::scope",
        "rayon::",
        "par_iter",
    ];
    let bad: Vec<String> = offending("src", &starts)
        .into_iter()
        .filter(|line| {
            let root = Path::new(env!("CARGO_MANIFEST_DIR"));
            !ALLOWED
                .iter()
                .any(|a| line.starts_with(&root.join(a).display().to_string()))
        })
        .collect();
    assert!(
        bad.is_empty(),
        "threads started outside the named modules: {bad:#?}"
    );
}

/// ARCHITECTURE.md, "Network I/O": the LLM client is the one place that opens connections
/// (the HTTP server only accepts them), so the engine thread never waits on a network.
#[test]
fn only_the_llm_client_opens_connections() {
    let mut bad = offending("src", &["ureq::", "TcpStream::connect", "UdpSocket"]);
    bad.retain(|line| !line.contains("src/engine/answer/llm.rs"));
    assert!(bad.is_empty(), "{bad:#?}");
}

/// ARCHITECTURE.md, "Network I/O": the HTTP front door is the one place that listens, and
/// only its connection layer reads or writes the sockets it accepts.
#[test]
fn only_the_http_front_door_listens() {
    let mut bad = offending("src", &["TcpListener", "httparse", "tiny_http", "hyper::"]);
    bad.retain(|line| !line.contains("src/http/"));
    assert!(bad.is_empty(), "{bad:#?}");
    let mut bad = offending("src/http", &["TcpStream", "httparse", ".accept("]);
    bad.retain(|line| !line.contains("src/http/conn.rs"));
    assert!(bad.is_empty(), "{bad:#?}");
}
