//! `mapscope cache`: where the caches are, clearing them (only mapscope's own files), and
//! building them ahead (`warm`, in its own file).
//! Runs on the main thread.

use std::path::{Path, PathBuf};

use clap::Subcommand;

use crate::contract::warn;
use crate::engine::EngineError;

use super::*;

#[derive(Subcommand, Debug)]
pub enum CacheCommand {
    /// Remove the cache of one repository (default: the current directory), or all caches.
    Clear {
        /// Repository whose cache to remove (default: the current directory).
        path: Option<PathBuf>,
        /// Remove every repository's cache.
        #[arg(long, conflicts_with = "path")]
        all: bool,
    },
    /// Print where the cache of a repository lives.
    Path {
        /// Repository whose cache to locate (default: the current directory).
        path: Option<PathBuf>,
    },
    /// Build every cache a later command reads (tags, graph, search index, history), so the
    /// first `search` is as fast as the next. A `map` that had to parse starts one in the
    /// background by itself (`MAPSCOPE_NO_WARM=1` turns that off).
    Warm {
        /// Repository whose caches to build (default: the current directory).
        path: Option<PathBuf>,
        /// Run as the detached warm-up a map starts: at low priority, silent, and not at all
        /// while another warm-up of the repository runs.
        #[arg(long, hide = true)]
        background: bool,
    },
}

pub(super) fn cmd_cache(cmd: &CacheCommand) -> anyhow::Result<()> {
    use crate::engine::store::clear::clear_all;
    use crate::engine::store::dir::DiskCache;
    let repo_cache = |path: &Option<PathBuf>| -> anyhow::Result<DiskCache> {
        let root = repo_path(path);
        let canonical = root
            .canonicalize()
            .map_err(|_| EngineError::RepoNotFound(root.clone()))?;
        DiskCache::for_repo(&canonical).map_err(|why| anyhow::anyhow!(why))
    };
    match cmd {
        CacheCommand::Clear { all: true, .. } => print_cleared(&clear_all()?, None),
        CacheCommand::Clear { path, .. } => {
            let cache = repo_cache(path)?;
            print_cleared(&cache.clear()?, Some(cache.dir()))
        }
        CacheCommand::Path { path } => print(&shown(repo_cache(path)?.dir())),
        CacheCommand::Warm { path, background } => cmd_warm(path, *background),
    }
}

/// A path as a terminal line may show it: a cache directory is named after the repository,
/// whose name may hold escape sequences.
pub(super) fn shown(path: &Path) -> String {
    crate::ui::text::sanitize_line(&path.display().to_string())
}

/// What `cache clear` removed, one line per directory (stdout); directories named like a
/// cache that were kept, one warning each (stderr).
pub(super) fn print_cleared(
    c: &crate::engine::store::clear::Cleared,
    one: Option<&Path>,
) -> anyhow::Result<()> {
    let mut lines: Vec<String> = c
        .removed
        .iter()
        .map(|(dir, files, bytes)| {
            let s = if *files == 1 { "" } else { "s" };
            format!("removed {} ({files} file{s}, {bytes} bytes)", shown(dir))
        })
        .collect();
    for (dir, why) in &c.kept {
        warn(&format!("kept {}: {why}", dir.display()));
    }
    if lines.is_empty() {
        lines.push(match one {
            Some(dir) => format!("no cache at {}", shown(dir)),
            None => "no cache to remove".to_string(),
        });
    }
    if let (Some(root), true) = (&c.root, c.others > 0) {
        let y = if c.others == 1 { "y" } else { "ies" };
        lines.push(format!(
            "left {} other entr{y} in {} untouched (not mapscope caches)",
            c.others,
            shown(root)
        ));
    }
    print(&lines.join("\n"))
}
