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
        "src/engine/live/session_index.rs",
        "src/engine/live/source_pool.rs",
        // notify's watcher and the debounce/poll thread.
        "src/engine/live/watch.rs",
        // Scoped helpers and rayon: git log beside the parse, the walk and the parse, a
        // one-shot call's cache save beside its output, the tag cache's load decoding
        // references in parallel, parallel graph and search-index builds.
        "src/engine/index/",
        "src/engine/ingest/walk.rs",
        "src/engine/ingest/history.rs",
        "src/engine/store/tags.rs",
        "src/engine/link/graph/build.rs",
        "src/engine/link/graph/relink.rs",
        "src/engine/search/build.rs",
        // The TUI's input reader, highlighter and X11 clipboard hand-off.
        "src/app/input.rs",
        "src/app/highlight.rs",
        "src/app/clipboard.rs",
        // Front doors: MCP's stdin reader, HTTP's accept and connection threads (the
        // connection layer only: the routes start none), and the progress line the CLI
        // draws on a terminal during a long build.
        "src/mcp/mod.rs",
        "src/http/conn.rs",
        "src/cli/progress.rs",
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

/// The engine's layers, bottom first (ARCHITECTURE.md, "Code map"): each folder of
/// `src/engine` imports only those before it here.
const ENGINE_LAYERS: [&str; 9] = [
    "base", "ingest", "link", "search", "answer", "rank", "store", "index", "live",
];

/// A file's code before its unit tests, comments dropped (tests may use any layer's helpers).
fn code_of(file: &Path) -> String {
    let text = std::fs::read_to_string(file).expect("readable source");
    let mut out = String::new();
    for line in text.lines() {
        let code = line.trim_start();
        if code.starts_with("mod tests") || code.starts_with("pub(crate) mod tests") {
            break;
        }
        if !code.starts_with("//") {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The engine module a file is (`["link", "graph", "build"]`; a `mod.rs` is its folder).
fn engine_module(file: &Path) -> Vec<String> {
    let engine = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/engine");
    let rel = file.strip_prefix(&engine).expect("under src/engine");
    let mut parts: Vec<String> = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// Every module path a file names, resolved to engine-relative segments: `crate::engine::a::b`
/// as it stands, `super::…` against the file's own module. `use super::*` (a module's parts
/// taking their parent's names) is left out.
fn named_modules(file: &Path) -> Vec<Vec<String>> {
    let module = engine_module(file);
    let code = code_of(file);
    let mut out = Vec::new();
    let ident = |s: &str| -> Vec<String> {
        s.split("::")
            .take_while(|seg| {
                !seg.is_empty() && seg.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            })
            .map(str::to_string)
            .collect()
    };
    let mut rest = code.as_str();
    while let Some(i) = rest.find("crate::engine::") {
        let after = &rest[i + "crate::engine::".len()..];
        out.push(ident(after));
        rest = after;
    }
    for (i, _) in code.match_indices("super::") {
        // Only the start of a chain.
        if code[..i].ends_with("::") {
            continue;
        }
        let mut chain = &code[i..];
        let mut up = 0;
        while let Some(r) = chain.strip_prefix("super::") {
            up += 1;
            chain = r;
        }
        if chain.starts_with('*') {
            continue;
        }
        // A `mod.rs` is its folder's module: its `super` is the folder's parent.
        let base = module.len().saturating_sub(up);
        let mut path: Vec<String> = module[..base].to_vec();
        if up > module.len() {
            path = vec!["<above the engine>".into()];
        }
        path.extend(ident(chain));
        out.push(path);
    }
    out
}

#[test]
fn each_engine_layer_imports_only_the_layers_below_it() {
    let engine = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/engine");
    let mut bad = Vec::new();
    for file in rust_files(&engine) {
        let module = engine_module(&file);
        let Some(layer) = module.first() else {
            continue; // engine/mod.rs: the list of layers
        };
        let own = ENGINE_LAYERS
            .iter()
            .position(|l| l == layer)
            .unwrap_or_else(|| panic!("{}: a folder not in ENGINE_LAYERS", file.display()));
        for named in named_modules(&file) {
            let Some(first) = named.first() else { continue };
            match ENGINE_LAYERS.iter().position(|l| l == first) {
                Some(other) if other <= own => {}
                _ => bad.push(format!("{}: {}", file.display(), named.join("::"))),
            }
        }
    }
    assert!(bad.is_empty(), "imports up or out of the layers: {bad:#?}");
}

/// No two engine files import each other in a loop, however long: each file's named
/// modules are resolved to the file that defines them, and the graph must have no cycle.
#[test]
fn no_import_circle_in_the_engine() {
    let engine = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/engine");
    let files = rust_files(&engine);
    let modules: Vec<Vec<String>> = files.iter().map(|f| engine_module(f)).collect();
    // A named path is the longest module prefix of it that is a file.
    let file_of = |path: &[String]| -> Option<usize> {
        (1..=path.len())
            .rev()
            .find_map(|n| modules.iter().position(|m| m.as_slice() == &path[..n]))
    };
    let edges: Vec<Vec<usize>> = files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let mut to: Vec<usize> = named_modules(f)
                .iter()
                .filter_map(|p| file_of(p))
                .filter(|&j| j != i)
                .collect();
            to.sort_unstable();
            to.dedup();
            to
        })
        .collect();
    // Depth-first search with colours: reaching a file still on the stack is a circle.
    fn visit(
        n: usize,
        edges: &[Vec<usize>],
        state: &mut [u8],
        stack: &mut Vec<usize>,
    ) -> Option<Vec<usize>> {
        state[n] = 1;
        stack.push(n);
        for &m in &edges[n] {
            if state[m] == 1 {
                let at = stack.iter().position(|&s| s == m).unwrap_or(0);
                return Some(stack[at..].to_vec());
            }
            if state[m] == 0 {
                if let Some(c) = visit(m, edges, state, stack) {
                    return Some(c);
                }
            }
        }
        stack.pop();
        state[n] = 2;
        None
    }
    let mut state = vec![0u8; files.len()];
    for n in 0..files.len() {
        if state[n] == 0 {
            if let Some(circle) = visit(n, &edges, &mut state, &mut Vec::new()) {
                let names: Vec<String> = circle.iter().map(|&i| modules[i].join("::")).collect();
                panic!("an import circle: {}", names.join(" -> "));
            }
        }
    }
}
