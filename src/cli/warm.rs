//! `mapscope cache warm`: every cache a later command reads (tags, graph, search index,
//! commit history), built now. A `map` that had to parse or link starts one itself, detached
//! and at low priority once its output is written (as `git` runs `gc --auto` in the
//! background): a no-query map never reads prose files nor builds the search index, so
//! without it the first `search` after any number of warm maps pays for both. One warm-up
//! at a time per repository (the cache's `warm.lock`); `MAPSCOPE_NO_WARM=1` turns the
//! detached one off (benchmarks that time cold runs back to back, tests that count a cache's
//! files). Runs on the main thread; the detached one is a process of its own.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::engine::index::Index;
use crate::engine::ingest::history::HistorySource;
use crate::engine::store::dir::{DiskCache, SEARCH_FILE, WARM_LOCK_FILE};
use crate::engine::store::files::lock_file;

use super::*;

/// Set (to anything but empty or `0`) to start no detached warm-up after a map.
pub(super) const NO_WARM_ENV: &str = "MAPSCOPE_NO_WARM";

/// How much lower than the user's own commands a detached warm-up runs (`nice`).
#[cfg(unix)]
const BACKGROUND_NICENESS: libc::c_int = 10;

/// Whether a one-shot map on `index` should leave a warm-up behind: the index has a cache,
/// the map did not search (a query builds the search index itself, and saves it), and the
/// cache holds no search index or holds one of other inputs (this run parsed or linked
/// something the cache lacked, so whatever search index it holds is stale).
pub(super) fn wanted_after_map(index: &Index, searched: bool) -> bool {
    if searched || disabled_by_env() {
        return false;
    }
    let Some(cache) = &index.cache else {
        return false;
    };
    index.cache_pending() || !cache.dir().join(SEARCH_FILE).exists()
}

fn disabled_by_env() -> bool {
    std::env::var_os(NO_WARM_ENV).is_some_and(|v| !v.is_empty() && v != "0")
}

/// Starts `mapscope cache warm ROOT --background`, detached: no terminal, no pipe of ours
/// (a caller reading our output sees its end when we exit), its own process group (Ctrl-C
/// in the shell afterwards is not for it). A failure to start is not the map's: the next
/// search only builds what the warm-up would have.
pub(super) fn start_detached(root: &Path) {
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    let mut cmd = Command::new(exe);
    cmd.args(["cache", "warm", "--background"])
        .arg(root)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    // The child is not waited for: it outlives this process, and init reaps it.
    drop(cmd.spawn());
}

/// `mapscope cache warm [PATH]`. In the foreground it waits for a warm-up already running
/// and then finds everything built (and says so); `--background` (the detached one) lowers
/// its priority and leaves at once when another holds the lock.
pub(super) fn cmd_warm(path: &Option<PathBuf>, background: bool) -> anyhow::Result<()> {
    let root = repo_path(path);
    let canonical = root
        .canonicalize()
        .map_err(|_| EngineError::RepoNotFound(root.clone()))?;
    let cache = DiskCache::for_repo(&canonical).map_err(|why| anyhow::anyhow!(why))?;
    let Some(_lock) = lock_file(cache.dir(), WARM_LOCK_FILE, !background)? else {
        return Ok(());
    };
    if background {
        lower_priority();
    }
    let index = build_index_with(
        &Some(canonical),
        None,
        CacheArgs::default(),
        Purpose::Search,
        HistorySource::Repo,
    )?;
    if !background {
        report(&index);
    }
    let (_, search_ms) = index.search_index();
    let wrote = index.save_cache()?;
    if !background {
        let what = if wrote { "warmed" } else { "already warm" };
        print(&format!(
            "{what}: {} (search index ready in {search_ms:.0} ms; {})",
            shown(cache.dir()),
            history_line(&index)
        ))?;
    }
    Ok(())
}

/// The history part of `cache warm`'s line: how many commits the index learnt from, or
/// why none.
fn history_line(index: &Index) -> String {
    let status = &index.history_status;
    match &status.error {
        Some(why) => format!("no history: {why}"),
        None if status.commits == 1 => "history of 1 commit".to_string(),
        None => format!("history of {} commits", status.commits),
    }
}

#[cfg(unix)]
fn lower_priority() {
    // SAFETY: nice(2) changes only this process's scheduling priority; a failure (-1 with
    // errno) leaves it as it was, which is harmless.
    unsafe {
        libc::nice(BACKGROUND_NICENESS);
    }
}

#[cfg(not(unix))]
fn lower_priority() {}
