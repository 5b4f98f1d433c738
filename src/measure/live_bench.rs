//! `mapscope bench --live`: how long a one-file edit takes to reach a new index and map.
//!
//! mapscope never writes into the user's repository, so the benchmark copies what the walk
//! indexes (code, docs, `go.mod` files) into a scratch directory under the system temp dir,
//! builds the index there, starts the real watcher, and then appends a definition to one
//! file after another. For each edit it measures the watcher's delay (write → debounced
//! batch) and, separately, the time from the batch to a refreshed index with a fitted map —
//! the figure issue #5 bounds ("≤ 150 ms after the debounce").
//!
//! Runs on the calling thread (the CLI's main thread); the watcher runs its own threads.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;

use crate::engine::base::model::Lang;
use crate::engine::index::{Index, IndexOptions, MapRequest};
use crate::engine::ingest::walk::tsconfig::TS_CONFIGS;
use crate::engine::ingest::walk::{walk, WalkOptions};
use crate::engine::live::watch::{WatchOptions, Watcher};
use crate::measure::bench_stats::median;

/// Medians and maxima over the edits, in milliseconds.
#[derive(Debug, Clone, serde::Serialize)]
pub struct LiveReport {
    pub files: usize,
    pub edits: usize,
    pub debounce_ms: u64,
    /// Write → batch received (the debounce window plus notify's latency).
    pub watch_median_ms: f64,
    /// Batch → refreshed index (re-walk, re-read, re-parse, relink).
    pub refresh_median_ms: f64,
    /// Batch → refreshed index and a map fitted on it.
    pub to_map_median_ms: f64,
    pub to_map_max_ms: f64,
}

/// Copies `repo`'s indexed files to a scratch dir, then times `edits` one-file edits.
pub fn run(repo: &Path, edits: usize, budget: usize) -> anyhow::Result<LiveReport> {
    let scratch = Scratch::new()?;
    let walked = walk(repo, &WalkOptions::default())?;
    let mut code = Vec::new();
    for f in &walked.files {
        copy_into(&f.abs_path, &scratch.0.join(&f.rel_path))?;
        code.push((f.rel_path.clone(), f.lang));
    }
    for d in &walked.docs {
        copy_into(&d.abs_path, &scratch.0.join(&d.rel_path))?;
    }
    for m in &walked.go_modules {
        let rel = if m.dir.is_empty() {
            "go.mod".to_string()
        } else {
            format!("{}/go.mod", m.dir)
        };
        copy_into(&repo.join(&rel), &scratch.0.join(&rel))?;
    }
    // A config is a doc as well, copied above, unless too large to be one.
    for t in &walked.ts_paths {
        for name in TS_CONFIGS {
            let rel = if t.dir.is_empty() {
                name.to_string()
            } else {
                format!("{}/{name}", t.dir)
            };
            // Not through a link, as the walk reads it.
            if fs::symlink_metadata(repo.join(&rel)).is_ok_and(|m| m.is_file()) {
                copy_into(&repo.join(&rel), &scratch.0.join(&rel))?;
            }
        }
    }
    anyhow::ensure!(
        !code.is_empty(),
        "no code files to edit in {}",
        repo.display()
    );

    let opts = IndexOptions::default();
    let mut index = Index::build(&scratch.0, &opts)?;
    let req = MapRequest {
        budget,
        ..MapRequest::default()
    };
    let _ = index.map(&req); // tokenizer and line costs warm, as in a running TUI
    let watch_opts = WatchOptions::default();
    let debounce_ms = watch_opts.debounce.as_millis() as u64;
    let watcher = Watcher::start(&scratch.0, watch_opts)?;

    let (mut watch, mut refresh, mut to_map) = (Vec::new(), Vec::new(), Vec::new());
    let step = (code.len() / edits.max(1)).max(1);
    for i in 0..edits {
        let (rel, lang) = &code[(i * step) % code.len()];
        let path = scratch.0.join(rel);
        // A scratch copy of the indexed files: regular files only.
        let mut text = crate::engine::base::guarded::read(
            &path,
            64 << 20,
            crate::engine::base::guarded::Follow::No,
        )
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
        text.push_str(&appended_definition(*lang, i));
        let written = Instant::now();
        fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        let batch = wait_for(&watcher, rel)?;
        let got = Instant::now();
        index = index.refresh(&opts, &batch, &|_| {})?;
        let refreshed = Instant::now();
        let (map, _) = index.map(&req);
        std::hint::black_box(map);
        let done = Instant::now();
        watch.push(ms(got - written));
        refresh.push(ms(refreshed - got));
        to_map.push(ms(done - got));
    }
    Ok(LiveReport {
        files: index.files.len(),
        edits,
        debounce_ms,
        watch_median_ms: median(&watch),
        refresh_median_ms: median(&refresh),
        to_map_median_ms: median(&to_map),
        to_map_max_ms: to_map.iter().copied().fold(0.0, f64::max),
    })
}

/// Waits for the batch naming `rel` (earlier batches are folded in), at most 10 s.
fn wait_for(watcher: &Watcher, rel: &str) -> anyhow::Result<std::collections::BTreeSet<String>> {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut seen = std::collections::BTreeSet::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let batch = watcher
            .changes()
            .recv_timeout(left)
            .map_err(|_| anyhow::anyhow!("the watcher did not report {rel} within 10 s"))?;
        seen.extend(batch.paths);
        if seen.contains(rel) || batch.rescan {
            return Ok(seen);
        }
    }
}

/// A small definition in the file's language, unique per edit.
fn appended_definition(lang: Lang, i: usize) -> String {
    match lang {
        Lang::Python => format!("\n\ndef mapscope_bench_{i}():\n    return {i}\n"),
        Lang::Go => format!("\n\nfunc MapscopeBench{i}() int {{ return {i} }}\n"),
        Lang::TypeScript | Lang::Tsx => {
            format!("\n\nexport function mapscopeBench{i}(): number {{ return {i}; }}\n")
        }
        Lang::JavaScript => format!("\n\nexport function mapscopeBench{i}() {{ return {i}; }}\n"),
        Lang::Vue | Lang::Svelte => {
            format!(
                "\n\n<script>\nexport function mapscopeBench{i}() {{ return {i}; }}\n</script>\n"
            )
        }
        Lang::Rust => format!("\n\npub fn mapscope_bench_{i}() -> usize {{ {i} }}\n"),
        Lang::Java | Lang::CSharp => {
            format!("\n\nclass MapscopeBench{i} {{ int Value() {{ return {i}; }} }}\n")
        }
        Lang::C | Lang::Cpp => format!("\n\nint mapscope_bench_{i}(void) {{ return {i}; }}\n"),
        Lang::Ruby => format!("\n\ndef mapscope_bench_{i}\n  {i}\nend\n"),
        Lang::Php => format!("\n\nfunction mapscope_bench_{i}() {{ return {i}; }}\n"),
        Lang::Kotlin => format!("\n\nfun mapscopeBench{i}(): Int = {i}\n"),
        Lang::Swift => format!("\n\nfunc mapscopeBench{i}() -> Int {{ return {i} }}\n"),
        Lang::Bash => format!("\n\nmapscope_bench_{i}() {{\n  echo {i}\n}}\n"),
        Lang::Scala => format!("\n\ndef mapscopeBench{i}(): Int = {i}\n"),
        Lang::Lua => format!("\n\nfunction mapscope_bench_{i}()\n  return {i}\nend\n"),
        Lang::Elixir => format!("\n\ndefmodule MapscopeBench{i} do\n  def value, do: {i}\nend\n"),
        Lang::Hcl => format!("\n\nvariable \"mapscope_bench_{i}\" {{\n  default = {i}\n}}\n"),
    }
}

fn copy_into(from: &Path, to: &Path) -> anyhow::Result<()> {
    if let Some(parent) = to.parent() {
        fs::create_dir_all(parent)?;
    }
    fs::copy(from, to).with_context(|| format!("copying {}", from.display()))?;
    Ok(())
}

/// A scratch directory under the system temp dir, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> anyhow::Result<Scratch> {
        let dir = std::env::temp_dir().join(format!(
            "mapscope-live-bench-{}-{}",
            std::process::id(),
            Instant::now().elapsed().as_nanos()
        ));
        fs::create_dir_all(&dir)?;
        Ok(Scratch(dir.canonicalize()?))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
