//! The file watcher behind the live index: it watches the directories of a repository that
//! the walk enters and turns the file-system events that matter to the walk into debounced
//! `ChangeBatch`es.
//!
//! Owns: the `notify` watcher and its set of watched directories, the filtering of events
//! through `walk::PathFilter` (so the watcher and the walk cannot disagree on which paths
//! count), and the debouncing.
//!
//! Why one non-recursive watch per walked directory rather than one recursive watch on the
//! root: inotify needs a watch per directory either way, and a recursive watch also covers
//! `node_modules/`, `target/`, `.git/` and every other ignored tree — often tens of thousands
//! of directories, enough to exhaust `fs.inotify.max_user_watches` and to take seconds to
//! set up. Here a new walked directory gets its watch when its creation is seen (its files
//! are listed right after, so none written before the watch is lost), and the set is
//! re-synced with the walk's rules whenever a batch says `rescan` (an ignore file changed).
//!
//! Threads: `notify` runs its own event thread (inotify on Linux) and only forwards raw
//! events into a channel. One thread of ours, `mapscope-watch`, filters them, coalesces them
//! and sends batches. The consumer (the engine worker thread) reads `Watcher::changes()`,
//! typically in a `select!` next to its other requests, and turns each batch into a refresh.
//! Dropping the `Watcher` stops both threads.
//!
//! Why our own debouncer rather than `notify-debouncer-full`/`-mini`: those debounce per
//! path, so a `git checkout` touching 1,000 files over half a second trickles out as dozens
//! of batches. Here one quiet window covers the whole batch: it is sent once no relevant
//! event has arrived for `debounce`, or `max_delay` after its first event if events never
//! stop. Irrelevant events (`target/`, `node_modules/`, file reads) neither start nor extend
//! a window, so a running build does not delay updates.
//!
//! Events are judged when the coalescing thread gets to them, not when they happened: an
//! editor that saves by writing a temporary file and renaming it over the original (vim's
//! `backupcopy`, JetBrains' "safe write") shows up as a rename whose target is the real
//! name, which is a relevant file by then; the temporary name is judged by its name and is
//! usually not a candidate (or is hidden). A path that vanished is judged by its name.
//!
//! Known gaps, all on the side of reporting too little: ignore files above the repository
//! root and the global git excludes file are not watched; `.git/info/exclude` of a linked
//! worktree lives outside the tree; a `.git/info/` directory created after the watcher
//! started is not watched until the next rescan.

use std::collections::{BTreeSet, HashSet};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{select, Receiver, Sender};
use notify::event::{AccessKind, AccessMode, CreateKind, ModifyKind, RemoveKind, RenameMode};
use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher as _};

use crate::engine::base::error::EngineError;
use crate::engine::ingest::walk::licences::is_licence_name;
use crate::engine::ingest::walk::tsconfig::is_ts_config_family;
use crate::engine::ingest::walk::{PathFilter, WalkClass, GO_MOD};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchOptions {
    /// A batch is sent once no relevant event has arrived for this long (100–250 ms keeps
    /// saves responsive while still coalescing a checkout).
    pub debounce: Duration,
    /// …or this long after its first event, when events never pause (a tool rewriting a
    /// file in a loop). Seconds rather than less: a long checkout is better as one batch
    /// than as several refreshes of half-written trees.
    pub max_delay: Duration,
    /// A batch with more paths than this becomes `rescan: true` with no paths: past a few
    /// thousand files, re-examining everything is as cheap as a list.
    pub max_paths: usize,
    /// How often the tree is re-examined when the watcher had to fall back to polling
    /// (`WatchMode::Polling`: the inotify watch limit is reached).
    pub poll_interval: Duration,
    /// Pretend the system allows only this many watches (tests: the fallback to polling
    /// without exhausting the real limit). `None`: the system's own limit.
    pub watch_limit: Option<usize>,
}

/// How the watcher learns about changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatchMode {
    /// One inotify watch per walked directory: changes arrive as events.
    Events,
    /// Out of inotify watches (`ENOSPC`/`EMFILE` from the watcher): every walked directory
    /// is listed and every file stat'ed every `poll_interval`, and the differences become
    /// batches. Slower to notice a change, costs a stat per file per interval, but sees
    /// everything the walk sees.
    Polling { interval: Duration },
}

impl WatchMode {
    /// A short label for a status bar: "live" or "live (polling 2s)".
    pub fn label(self) -> String {
        match self {
            WatchMode::Events => "live".to_string(),
            WatchMode::Polling { interval } => {
                format!("live (polling {}s)", interval.as_secs_f64())
            }
        }
    }
}

impl Default for WatchOptions {
    fn default() -> Self {
        WatchOptions {
            debounce: Duration::from_millis(150),
            max_delay: Duration::from_secs(5),
            max_paths: 5000,
            poll_interval: Duration::from_secs(2),
            watch_limit: None,
        }
    }
}

/// One debounced set of changes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChangeBatch {
    /// Repo-relative, `/`-separated paths that were created, modified, deleted or renamed
    /// (both names of a rename), as judged by the walk's rules. A path may also name a
    /// directory that vanished as a whole (renamed or moved away: inotify reports only the
    /// directory); treat it as a prefix of the indexed files it held. New directories are
    /// expanded into their files.
    pub paths: BTreeSet<String>,
    /// The paths are not enough: the rules changed (`.gitignore`, `.mapscopeignore`,
    /// `.git/info/exclude`, a `go.mod`, a `tsconfig*.json` or `jsconfig*.json`, a marker of
    /// the build-output rule), events were lost, or the batch overflowed `max_paths` (then
    /// `paths` is empty). Re-examine every file.
    pub rescan: bool,
    /// Why watching degraded (watch limit reached, root removed, …), for the status bar.
    pub error: Option<String>,
    /// Directories that could not be watched and are skipped (the rest stays live), one
    /// line each, each said once per watcher: raw repository text, sanitise before
    /// printing. The first batch carries those found at start, and the one line saying
    /// the watcher fell back to polling (said once).
    pub warnings: Vec<String>,
    /// Set when the watcher changed how it learns about changes (see `WatchMode`), for
    /// the status bar; `Watcher::mode` says the current one at any time.
    pub mode: Option<WatchMode>,
}

impl ChangeBatch {
    pub fn is_empty(&self) -> bool {
        self.has_no_changes() && self.warnings.is_empty() && self.mode.is_none()
    }

    /// Nothing to re-read and nothing degraded (there may be warnings).
    pub fn has_no_changes(&self) -> bool {
        self.paths.is_empty() && !self.rescan && self.error.is_none()
    }

    /// Folds a later batch into this one, for a consumer that drains several at once.
    pub fn merge(&mut self, later: ChangeBatch) {
        self.paths.extend(later.paths);
        self.rescan |= later.rescan;
        self.warnings.extend(later.warnings);
        if later.error.is_some() {
            self.error = later.error;
        }
        if later.mode.is_some() {
            self.mode = later.mode;
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    #[error(transparent)]
    Repo(#[from] EngineError),
    #[error("cannot watch {}: {}", path.display(), describe(source))]
    Notify {
        path: PathBuf,
        #[source]
        source: notify::Error,
    },
    #[error("cannot start the watch thread: {0}")]
    Thread(#[source] io::Error),
}

/// A running watch of one repository. Dropping it stops watching.
#[derive(Debug)]
pub struct Watcher {
    changes: Receiver<ChangeBatch>,
    root: PathBuf,
    /// How many directories are watched (kept by the watch thread), for diagnostics.
    watched_dirs: Arc<AtomicUsize>,
    /// Whether the watch thread polls (see `WatchMode`); written only by it.
    polling: Arc<std::sync::atomic::AtomicBool>,
    poll_interval: Duration,
    /// The events received and judged, the relevant changes seen and sent (see `settling`).
    progress: Arc<Progress>,
    // The notify watcher lives on the watch thread (it adds watches as directories appear);
    // dropping the stop signal ends that thread, which drops it.
    stop: Option<Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Watcher {
    /// Starts watching `root`: every directory the walk enters. Blocks while a watch is
    /// added per directory; fails when the root is not a directory or the watches cannot be
    /// set up (e.g. the inotify watch limit is reached). Start it before the first index
    /// build, so that changes made during the build are not lost.
    pub fn start(root: &Path, opts: WatchOptions) -> Result<Watcher, WatchError> {
        let mut filter = PathFilter::new(root)?;
        let root = filter.root().to_path_buf();
        let (raw_tx, raw_rx) = crossbeam_channel::unbounded();
        let progress = Arc::new(Progress::default());
        let queued = Arc::clone(&progress);
        // Following symlinks would watch (and report) trees the walk never enters.
        let config = notify::Config::default().with_follow_symlinks(false);
        let notify = RecommendedWatcher::new(
            move |event: notify::Result<Event>| {
                // Reads (ours included: listing a directory to watch it, parsing its files)
                // are dropped here, so that they never count as pending (`settling`).
                if changes_nothing(&event) {
                    return;
                }
                // Counted before it is queued, so it is pending from now until judged.
                queued.queued.fetch_add(1, Ordering::AcqRel);
                // The receiver is gone only while the watcher shuts down.
                let _ = raw_tx.send(event);
            },
            config,
        )
        .map_err(|source| WatchError::Notify {
            path: root.clone(),
            source,
        })?;
        let mut watches = DirWatches::new(notify, opts.watch_limit);
        let exhausted = match watches.sync(&mut filter) {
            Ok(()) => None,
            // Out of watches: poll instead (below), saying so once.
            Err((path, source)) if exhausted(&source) => Some((path, source)),
            Err((path, source)) => return Err(WatchError::Notify { path, source }),
        };
        let watched_dirs = Arc::clone(&watches.count);
        let (out_tx, out_rx) = crossbeam_channel::unbounded();
        let poll_interval = opts.poll_interval;
        let (stop_tx, stop_rx) = crossbeam_channel::bounded(0);
        let mut coalescer = Coalescer::new(filter, watches, opts, Arc::clone(&progress));
        let polling = Arc::clone(&coalescer.polling);
        let mut first = ChangeBatch {
            warnings: coalescer.watches.take_warnings(&root),
            ..ChangeBatch::default()
        };
        if let Some((dir, err)) = exhausted {
            // Started before the first index build: a change made during it shows up in the
            // first poll's differences, so nothing needs a rescan.
            first.warnings.push(coalescer.start_polling(&dir, &err));
            first.mode = Some(WatchMode::Polling {
                interval: poll_interval,
            });
        }
        if !first.is_empty() {
            let _ = out_tx.send(first);
        }
        let thread = std::thread::Builder::new()
            .name("mapscope-watch".to_string())
            .spawn(move || coalescer.run(&raw_rx, &stop_rx, &out_tx))
            .map_err(WatchError::Thread)?;
        Ok(Watcher {
            changes: out_rx,
            root,
            watched_dirs,
            polling,
            poll_interval,
            progress,
            stop: Some(stop_tx),
            thread: Some(thread),
        })
    }

    /// The batches, in order. Never closes while the `Watcher` lives.
    pub fn changes(&self) -> &Receiver<ChangeBatch> {
        &self.changes
    }

    /// The canonical root being watched.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// How many directories have a watch now (the walked ones, plus `.git/info`).
    pub fn watched_dirs(&self) -> usize {
        self.watched_dirs.load(Ordering::Relaxed)
    }

    /// How the watcher learns about changes now (it falls back to polling, for good, when
    /// the inotify watches run out).
    pub fn mode(&self) -> WatchMode {
        if self.polling.load(Ordering::Acquire) {
            WatchMode::Polling {
                interval: self.poll_interval,
            }
        } else {
            WatchMode::Events
        }
    }

    /// A count of the relevant changes seen so far. A consumer that reads the tree notes it
    /// before and compares after (once `settling` is false): unchanged, nothing the watcher
    /// saw changed the tree meanwhile, so what it read is one tree, not a mix.
    pub fn seen(&self) -> u64 {
        self.progress.seen.load(Ordering::Acquire)
    }

    /// The watcher holds changes it has not sent yet: events not yet judged, or a batch
    /// waiting out its debounce. Once false, every change seen so far is in `changes()`
    /// (a batch is sent before it stops counting as pending).
    pub fn settling(&self) -> bool {
        let p = &self.progress;
        // In this order: an event queued before the first load is either still unjudged or
        // judged, and then its change is counted in `seen` by the time `judged` is read.
        p.queued.load(Ordering::Acquire) != p.judged.load(Ordering::Acquire)
            || p.seen.load(Ordering::Acquire) != p.sent.load(Ordering::Acquire)
    }
}

/// What the watch thread has seen and sent, shared with the `Watcher`: only the watch thread
/// writes it.
#[derive(Debug, Default)]
struct Progress {
    /// Raw events queued by notify's thread, and judged by the watch thread.
    queued: AtomicU64,
    judged: AtomicU64,
    /// Relevant changes recorded (one per event that opened or extended a batch).
    seen: AtomicU64,
    /// `seen` as of the last batch sent (or found empty).
    sent: AtomicU64,
}

impl Drop for Watcher {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            // A panic there has already been reported by the runtime; nothing to add.
            let _ = thread.join();
        }
    }
}

/// The notify watcher and the directories it watches, each non-recursively.
struct DirWatches {
    notify: RecommendedWatcher,
    /// `WatchOptions::watch_limit`.
    limit: Option<usize>,
    watched: HashSet<PathBuf>,
    count: Arc<AtomicUsize>,
    /// Directories whose watch failed for a reason of their own (a path beyond
    /// `PATH_MAX`, no permission): skipped with the walked directories below them, until
    /// the next `sync` tries again.
    unwatchable: BTreeSet<PathBuf>,
    /// Every directory ever warned about, so each is named once.
    warned: HashSet<PathBuf>,
    /// Warnings not yet handed to a batch: (directory, why).
    new_warnings: Vec<(PathBuf, String)>,
}

/// A watch that could not be added, and where.
type WatchFailure = (PathBuf, notify::Error);

impl DirWatches {
    fn new(notify: RecommendedWatcher, limit: Option<usize>) -> DirWatches {
        DirWatches {
            notify,
            limit,
            watched: HashSet::new(),
            count: Arc::new(AtomicUsize::new(0)),
            unwatchable: BTreeSet::new(),
            warned: HashSet::new(),
            new_warnings: Vec::new(),
        }
    }

    /// Makes the watched set the directories the walk enters now (plus each one's
    /// `.git/info`, where `exclude` lives), after the rules may have changed. Each directory
    /// is watched before it is listed, as in `add_tree`: at start, a directory made while
    /// the tree was listed is then an event of its watched parent.
    fn sync(&mut self, filter: &mut PathFilter) -> Result<(), WatchFailure> {
        let root = filter.root().to_path_buf();
        // The rules or the tree changed: try the skipped directories again.
        self.unwatchable.clear();
        if !self.watched.is_empty() {
            self.unwatch_stale(filter, &root);
        }
        self.add_tree(filter, &root)
    }

    /// Drops the watches of directories the walk no longer enters, before any new one is
    /// taken: near the inotify limit, the new ones may need the watches these free. The tree
    /// is listed once for this, and once more by `add_tree`.
    fn unwatch_stale(&mut self, filter: &mut PathFilter, root: &Path) {
        let wanted = walked_dirs(filter, root);
        let stale: Vec<PathBuf> = self
            .watched
            .iter()
            .filter(|d| !wanted.contains(*d))
            .cloned()
            .collect();
        for dir in stale {
            self.watched.remove(&dir);
            // A directory that vanished or was renamed is left to inotify (it drops the
            // watch itself); unwatching it by its old name could remove the watch its
            // inode now has under a new name. Only a live directory that became ignored
            // is unwatched.
            if dir.is_dir() {
                let _ = self.notify.unwatch(&dir);
            }
        }
    }

    /// Watches `dir`, a directory the walk has just started to enter, and the walked
    /// directories below it. Each directory is watched before it is listed: a directory made
    /// in it after the listing is then an event of a watched parent. Listing the whole tree
    /// first lost one made between the listing and the parent's watch, as `mkdir -p a/b`
    /// does under load, and later writes in it went unseen.
    fn add_tree(&mut self, filter: &mut PathFilter, dir: &Path) -> Result<(), WatchFailure> {
        let result = visit_walked_dirs(filter, dir, |d| self.add(d));
        self.count.store(self.watched.len(), Ordering::Relaxed);
        result
    }

    /// Forgets `dir` and everything below it (it vanished: inotify already dropped them).
    fn forget_tree(&mut self, dir: &Path) {
        self.watched.retain(|d| !d.starts_with(dir));
        self.count.store(self.watched.len(), Ordering::Relaxed);
    }

    fn add(&mut self, dir: &Path) -> Result<(), WatchFailure> {
        if self.watched.contains(dir) {
            return Ok(());
        }
        // Below a directory that cannot be watched: skipped with it, named only once.
        if self.unwatchable.iter().any(|u| dir.starts_with(u)) {
            return Ok(());
        }
        let watched = if self.limit.is_some_and(|limit| self.watched.len() >= limit) {
            // What inotify_add_watch says when `max_user_watches` is reached.
            Err(notify::Error::io(io::Error::from_raw_os_error(
                libc_enospc(),
            )))
        } else {
            self.notify.watch(dir, RecursiveMode::NonRecursive)
        };
        match watched {
            Ok(()) => {
                self.watched.insert(dir.to_path_buf());
                Ok(())
            }
            // Gone again before its watch: its removal is an event of its parent.
            Err(err) if vanished(&err) => Ok(()),
            // Out of watches (or descriptors): every later directory would fail too.
            Err(err) if exhausted(&err) => Err((dir.to_path_buf(), err)),
            // This directory's own problem: skip it (and what is below it), keep the rest.
            Err(err) => {
                self.unwatchable.insert(dir.to_path_buf());
                if self.warned.insert(dir.to_path_buf()) {
                    self.new_warnings.push((dir.to_path_buf(), describe(&err)));
                }
                Ok(())
            }
        }
    }

    /// Removes every watch (polling replaces them), giving them back to the system.
    fn unwatch_all(&mut self) {
        for dir in self.watched.drain() {
            let _ = self.notify.unwatch(&dir);
        }
        self.count.store(0, Ordering::Relaxed);
    }

    /// The warnings since the last call, as lines naming each directory relative to `root`.
    fn take_warnings(&mut self, root: &Path) -> Vec<String> {
        std::mem::take(&mut self.new_warnings)
            .into_iter()
            .map(|(dir, why)| {
                let shown = dir
                    .strip_prefix(root)
                    .map_or_else(|_| dir.display().to_string(), |r| r.display().to_string());
                format!("not watching {shown}/ (live updates skip it): {why}")
            })
            .collect()
    }
}

/// True when a watch failed because the system is out of watches or descriptors, rather
/// than because of the directory: then live updates cannot be trusted anywhere.
fn exhausted(err: &notify::Error) -> bool {
    match &err.kind {
        notify::ErrorKind::MaxFilesWatch => true,
        notify::ErrorKind::Io(e) => matches!(
            e.raw_os_error(),
            Some(code) if code == libc_enospc() || code == libc_emfile()
        ),
        _ => false,
    }
}

#[cfg(unix)]
fn libc_enospc() -> i32 {
    libc::ENOSPC
}
#[cfg(unix)]
fn libc_emfile() -> i32 {
    libc::EMFILE
}
#[cfg(not(unix))]
fn libc_enospc() -> i32 {
    -1
}
#[cfg(not(unix))]
fn libc_emfile() -> i32 {
    -1
}

/// `dir` and the directories below it that the walk enters, plus any `.git/info` of
/// theirs; iteratively (no recursion depth to exhaust). Symlinks are never followed.
fn walked_dirs(filter: &mut PathFilter, dir: &Path) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    let visited: Result<(), std::convert::Infallible> = visit_walked_dirs(filter, dir, |d| {
        out.insert(d.to_path_buf());
        Ok(())
    });
    let Ok(()) = visited;
    out
}

/// Calls `visit` with `dir`, the directories below it that the walk enters and any
/// `.git/info` of theirs, each directory before it is listed (see `DirWatches::add_tree`
/// for why); stops at `visit`'s first error. Iterative (no recursion depth to exhaust);
/// symlinks are never followed.
fn visit_walked_dirs<E>(
    filter: &mut PathFilter,
    dir: &Path,
    mut visit: impl FnMut(&Path) -> Result<(), E>,
) -> Result<(), E> {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        visit(&dir)?;
        let git_info = dir.join(".git").join("info");
        if git_info.is_dir() {
            visit(&git_info)?;
        }
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            if is_dir && filter.classify(&entry.path(), Some(true)) == WalkClass::Dir {
                stack.push(entry.path());
            }
        }
    }
    Ok(())
}

/// True for an event that reports a read: opening, reading or closing without writing (a
/// close after writing is kept: it follows the write). Nothing changed, so the watcher does
/// not take it in at all. A queue overflow is never one of these.
fn changes_nothing(event: &notify::Result<Event>) -> bool {
    event.as_ref().is_ok_and(|e| {
        matches!(e.kind, EventKind::Access(kind) if kind != AccessKind::Close(AccessMode::Write))
            && !e.need_rescan()
    })
}

/// True when a watch failed because its directory no longer exists.
fn vanished(err: &notify::Error) -> bool {
    match &err.kind {
        notify::ErrorKind::PathNotFound => true,
        notify::ErrorKind::Io(e) => e.kind() == io::ErrorKind::NotFound,
        _ => false,
    }
}

/// The `mapscope-watch` thread's state: the batch being collected and its deadlines.
struct Coalescer {
    filter: PathFilter,
    watches: DirWatches,
    opts: WatchOptions,
    pending: ChangeBatch,
    /// Set once the pending batch passed `max_paths`: later paths are not collected.
    overflowed: bool,
    /// When the pending batch got its first and its latest relevant change.
    first: Option<Instant>,
    last: Instant,
    progress: Arc<Progress>,
    /// Set once the watcher polls (shared with `Watcher::mode`).
    polling: Arc<std::sync::atomic::AtomicBool>,
    /// The polling state, once the watches ran out.
    poll: Option<Poll>,
}

/// What polling compares against: every file and rules file the walk sees, with its size
/// and modification time as of the last poll.
struct Poll {
    next: Instant,
    seen: std::collections::HashMap<PathBuf, (u64, Option<std::time::SystemTime>, WalkClass)>,
}

impl Coalescer {
    fn new(
        filter: PathFilter,
        watches: DirWatches,
        opts: WatchOptions,
        progress: Arc<Progress>,
    ) -> Coalescer {
        Coalescer {
            filter,
            watches,
            opts,
            pending: ChangeBatch::default(),
            overflowed: false,
            first: None,
            last: Instant::now(),
            progress,
            polling: Arc::new(std::sync::atomic::AtomicBool::new(false)),
            poll: None,
        }
    }

    /// Switches to polling for good (the watches ran out at `dir`): drops every watch, takes
    /// the first snapshot, and returns the one line that says so.
    fn start_polling(&mut self, dir: &Path, err: &notify::Error) -> String {
        self.watches.unwatch_all();
        self.polling.store(true, Ordering::Release);
        let seen = self.snapshot();
        self.poll = Some(Poll {
            next: Instant::now() + self.opts.poll_interval,
            seen,
        });
        let shown = dir
            .strip_prefix(self.filter.root())
            .map_or_else(|_| dir.display().to_string(), |r| r.display().to_string());
        format!(
            "cannot watch {shown}/: {}; polling the tree every {}s instead",
            describe(err),
            self.opts.poll_interval.as_secs_f64()
        )
    }

    /// A watch could not be added while running: out of watches, polling takes over (with
    /// a rescan, as changes may have been missed since); any other failure is an error.
    fn watch_failed(&mut self, dir: &Path, err: &notify::Error) {
        if exhausted(err) {
            let line = self.start_polling(dir, err);
            self.pending.warnings.push(line);
            self.pending.mode = Some(WatchMode::Polling {
                interval: self.opts.poll_interval,
            });
            self.rescan();
        } else {
            self.error(format!("cannot watch {}: {}", dir.display(), describe(err)));
        }
    }

    /// Every file and rules file the walk sees now, with size and mtime (iteratively; no
    /// symlink is followed: `classify` calls them `Outside`).
    fn snapshot(
        &mut self,
    ) -> std::collections::HashMap<PathBuf, (u64, Option<std::time::SystemTime>, WalkClass)> {
        let mut out = std::collections::HashMap::new();
        let mut stack = vec![self.filter.root().to_path_buf()];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                let is_dir = entry.file_type().ok().map(|t| t.is_dir());
                match self.filter.classify(&path, is_dir) {
                    WalkClass::Dir => stack.push(path),
                    class @ (WalkClass::File | WalkClass::Rules) => {
                        let meta = entry.metadata().ok();
                        let size = meta.as_ref().map_or(0, fs::Metadata::len);
                        let mtime = meta.and_then(|m| m.modified().ok());
                        out.insert(path, (size, mtime, class));
                    }
                    WalkClass::Outside => {}
                }
            }
        }
        out
    }

    /// One poll: what differs from the last snapshot goes into the pending batch.
    fn poll_now(&mut self) {
        let after = self.snapshot();
        let Some(poll) = self.poll.as_mut() else {
            return;
        };
        poll.next = Instant::now() + self.opts.poll_interval;
        let before = std::mem::take(&mut poll.seen);
        let mut changed: Vec<(PathBuf, WalkClass)> = Vec::new();
        for (path, stamp) in &after {
            if before.get(path) != Some(stamp) {
                changed.push((path.clone(), stamp.2));
            }
        }
        for (path, stamp) in &before {
            if !after.contains_key(path) {
                changed.push((path.clone(), stamp.2));
            }
        }
        poll.seen = after;
        changed.sort_by(|a, b| a.0.cmp(&b.0));
        for (path, class) in changed {
            if class == WalkClass::Rules {
                self.filter.invalidate();
                self.rescan();
                continue;
            }
            if is_resolution_config(&path) {
                self.rescan();
            }
            if let Some(rel) = self.filter.rel_path(&path) {
                self.insert(rel);
            }
        }
    }

    fn run(
        mut self,
        raw: &Receiver<notify::Result<Event>>,
        stop: &Receiver<()>,
        out: &Sender<ChangeBatch>,
    ) {
        loop {
            if self.poll.as_ref().is_some_and(|p| p.next <= Instant::now()) {
                self.poll_now();
            }
            let deadline = self.deadline();
            // Checked before waiting, so that a flood of events cannot hold a batch back
            // past `max_delay`.
            if deadline.is_some_and(|d| d <= Instant::now()) {
                // Events queued while this thread was not scheduled (a loaded machine) may
                // have arrived well before the deadline: judge them before closing the
                // batch, or a busy checkout splits into many batches.
                if !self.past_max_delay() {
                    if let Ok(event) = raw.try_recv() {
                        self.judge(event);
                        continue;
                    }
                }
                if !self.flush(out) {
                    return;
                }
                continue;
            }
            // Polling wakes up for its next round too.
            let next_poll = self.poll.as_ref().map(|p| p.next);
            let wake = match (deadline, next_poll) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            let received = if let Some(wake) = wake {
                select! {
                    recv(raw) -> msg => msg.ok(),
                    recv(stop) -> _ => return,
                    default(wake.saturating_duration_since(Instant::now())) => continue,
                }
            } else {
                select! {
                    recv(raw) -> msg => msg.ok(),
                    recv(stop) -> _ => return,
                }
            };
            match received {
                Some(event) => self.judge(event),
                // The raw channel closed (cannot happen while `watches` holds the notify watcher):
                // send what we have and stop.
                None => {
                    self.flush(out);
                    return;
                }
            }
        }
    }

    /// Takes in one raw event and counts it judged (see `Watcher::settling`).
    fn judge(&mut self, event: notify::Result<Event>) {
        self.add(event);
        self.progress.judged.fetch_add(1, Ordering::AcqRel);
    }

    fn past_max_delay(&self) -> bool {
        self.first
            .is_some_and(|first| first + self.opts.max_delay <= Instant::now())
    }

    fn deadline(&self) -> Option<Instant> {
        let first = self.first?;
        Some((self.last + self.opts.debounce).min(first + self.opts.max_delay))
    }

    /// Sends the pending batch, if any; false when nobody listens any more.
    fn flush(&mut self, out: &Sender<ChangeBatch>) -> bool {
        if self.pending.rescan {
            // The rules may have changed which directories the walk enters.
            if self.poll.is_none() {
                if let Err((dir, err)) = self.watches.sync(&mut self.filter) {
                    if exhausted(&err) {
                        // Polling from now on; this batch already rescans.
                        let line = self.start_polling(&dir, &err);
                        self.pending.warnings.push(line);
                        self.pending.mode = Some(WatchMode::Polling {
                            interval: self.opts.poll_interval,
                        });
                    } else {
                        self.pending.error = Some(format!(
                            "cannot watch {}: {}",
                            dir.display(),
                            describe(&err)
                        ));
                    }
                }
            }
            let root = self.filter.root().to_path_buf();
            self.pending
                .warnings
                .extend(self.watches.take_warnings(&root));
        }
        let batch = std::mem::take(&mut self.pending);
        self.first = None;
        self.overflowed = false;
        let seen = self.progress.seen.load(Ordering::Relaxed);
        let sent = batch.is_empty() || out.send(batch).is_ok();
        // After the send: a consumer that sees nothing pending finds the batch queued.
        self.progress.sent.store(seen, Ordering::Release);
        sent
    }

    /// Records that the pending batch changed: opens or extends its window.
    fn touch(&mut self) {
        let now = Instant::now();
        self.first.get_or_insert(now);
        self.last = now;
        self.progress.seen.fetch_add(1, Ordering::AcqRel);
    }

    fn rescan(&mut self) {
        self.pending.rescan = true;
        self.touch();
    }

    fn error(&mut self, message: String) {
        self.pending.error = Some(message);
        self.rescan();
    }

    fn insert(&mut self, rel: String) {
        // Still a relevant change once overflowed: it keeps the window open, so that a huge
        // checkout becomes one rescan rather than one per `debounce`.
        self.touch();
        if self.overflowed {
            return;
        }
        self.pending.paths.insert(rel);
        if self.pending.paths.len() > self.opts.max_paths {
            self.pending.paths.clear();
            self.overflowed = true;
            self.pending.rescan = true;
        }
    }

    fn add(&mut self, event: notify::Result<Event>) {
        let event = match event {
            Ok(event) => event,
            // Typically the watch limit reached while adding a new directory: that directory
            // and later ones go unwatched, so the index can no longer trust events alone.
            Err(err) => return self.error(describe(&err)),
        };
        // The kernel queue overflowed: events were dropped.
        if event.need_rescan() {
            self.rescan();
        }
        let kind = event.kind;
        // notify's inotify backend, the only one that sends `Both`, sends `From` and `To`
        // for the same rename as well: judging it again would expand a renamed directory
        // twice.
        if kind == EventKind::Modify(ModifyKind::Name(RenameMode::Both)) {
            return;
        }
        let is_dir = match kind {
            // Reads are dropped before they are queued (`changes_nothing`); a close after
            // writing is kept: it follows the write, and costs nothing extra.
            EventKind::Access(AccessKind::Close(AccessMode::Write)) => None,
            EventKind::Access(_) => return,
            EventKind::Create(CreateKind::Folder) | EventKind::Remove(RemoveKind::Folder) => {
                Some(true)
            }
            EventKind::Create(CreateKind::File) | EventKind::Remove(RemoveKind::File) => {
                Some(false)
            }
            _ => None,
        };
        // Entries that appear, vanish or move; not content or metadata changes.
        let structural = matches!(
            kind,
            EventKind::Create(_) | EventKind::Remove(_) | EventKind::Modify(ModifyKind::Name(_))
        );
        for path in &event.paths {
            self.add_path(path, is_dir, structural, kind);
        }
    }

    fn add_path(&mut self, path: &Path, is_dir: Option<bool>, structural: bool, kind: EventKind) {
        if self.filter.root().starts_with(path) {
            // `DELETE_SELF`/`MOVE_SELF` of the root: nothing below it is watched any more.
            if structural {
                self.error(format!(
                    "{} was removed or moved; live updates stopped",
                    self.filter.root().display()
                ));
            }
            return;
        }
        let class = self.filter.classify(path, is_dir);
        if structural && class != WalkClass::Outside && self.filter.affects_build_output(path) {
            self.rescan();
        }
        match class {
            WalkClass::Outside => {}
            WalkClass::Rules => {
                self.filter.invalidate();
                self.rescan();
            }
            WalkClass::File => {
                if is_resolution_config(path) {
                    // Module paths decide how every Go import resolves, path aliases how
                    // every bare TS/JS one does: the walk must read them again.
                    self.rescan();
                }
                if let Some(rel) = self.filter.rel_path(path) {
                    self.insert(rel);
                }
            }
            WalkClass::Dir => {
                let appeared = matches!(
                    kind,
                    EventKind::Create(_) | EventKind::Modify(ModifyKind::Name(_))
                );
                match fs::symlink_metadata(path) {
                    // A new walked directory: watch it, then list its files, since those
                    // written before the watch produce no events of their own.
                    Ok(meta) if meta.is_dir() => {
                        if appeared && self.poll.is_none() {
                            if let Err((dir, err)) = self.watches.add_tree(&mut self.filter, path) {
                                self.watch_failed(&dir, &err);
                            }
                            let root = self.filter.root().to_path_buf();
                            let warnings = self.watches.take_warnings(&root);
                            if !warnings.is_empty() {
                                self.pending.warnings.extend(warnings);
                                self.touch();
                            }
                            self.expand(path);
                        }
                    }
                    Ok(_) => {}
                    Err(_) => {
                        self.watches.forget_tree(path);
                        if let Some(rel) = self.filter.rel_path(path) {
                            self.insert(rel);
                        }
                    }
                }
            }
        }
    }

    /// Adds the walked files under the walked directory `dir` (iteratively: no recursion
    /// depth to exhaust), stopping once the batch overflows.
    fn expand(&mut self, dir: &Path) {
        let mut stack = vec![dir.to_path_buf()];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                if self.overflowed {
                    return;
                }
                let path = entry.path();
                match self.filter.classify(&path, None) {
                    WalkClass::File => {
                        // A config in a new directory (a checkout, a moved-in package)
                        // changes resolution as an edited one does.
                        if is_resolution_config(&path) {
                            self.rescan();
                        }
                        if let Some(rel) = self.filter.rel_path(&path) {
                            self.insert(rel);
                        }
                    }
                    WalkClass::Dir => stack.push(path),
                    // A rules file in a new directory was not read before: the walk must
                    // take it into account, and so must later events.
                    WalkClass::Rules => {
                        self.filter.invalidate();
                        self.rescan();
                    }
                    WalkClass::Outside => {}
                }
            }
        }
    }
}

/// A notify error as one line for the status bar.
fn describe(err: &notify::Error) -> String {
    match err.kind {
        notify::ErrorKind::MaxFilesWatch => {
            "the inotify watch limit is reached (raise fs.inotify.max_user_watches); \
             some directories are not watched"
                .to_string()
        }
        _ => err.to_string(),
    }
}

/// Whether `path` names a file the walk reads to judge other files: to resolve imports
/// (`go.mod`, `tsconfig.json`, `jsconfig.json`, and the `tsconfig.base.json` they extend) or
/// to tell a vendored folder (a licence, `walk::licences`). A change to one changes how
/// other files resolve or rank, so only a rescan (a new walk) takes it in.
fn is_resolution_config(path: &Path) -> bool {
    path.file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| name == GO_MOD || is_ts_config_family(name) || is_licence_name(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bounds every wait: generous for a loaded CI machine, never reached when it works.
    const DEADLINE: Duration = Duration::from_secs(10);

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    /// A small repository and a watcher on it.
    fn watched(files: &[(&str, &str)]) -> (tempfile::TempDir, Watcher) {
        watched_with(files, WatchOptions::default())
    }

    fn watched_with(files: &[(&str, &str)], opts: WatchOptions) -> (tempfile::TempDir, Watcher) {
        let dir = tempfile::tempdir().unwrap();
        for (rel, text) in files {
            write(dir.path(), rel, text);
        }
        let watcher = Watcher::start(dir.path(), opts).unwrap();
        (dir, watcher)
    }

    /// Receives batches until `done` holds for all received so far, or the deadline passes.
    fn collect_until(w: &Watcher, done: impl Fn(&[ChangeBatch]) -> bool) -> Vec<ChangeBatch> {
        let end = Instant::now() + DEADLINE;
        let mut batches = Vec::new();
        while !done(&batches) {
            let left = end.saturating_duration_since(Instant::now());
            match w.changes().recv_timeout(left) {
                Ok(batch) => batches.push(batch),
                Err(_) => break,
            }
        }
        batches
    }

    fn union(batches: &[ChangeBatch]) -> BTreeSet<String> {
        batches
            .iter()
            .flat_map(|b| b.paths.iter().cloned())
            .collect()
    }

    fn has_all(batches: &[ChangeBatch], paths: &[&str]) -> bool {
        let seen = union(batches);
        paths.iter().all(|p| seen.contains(*p))
    }

    /// Waits until `paths` have all been reported; panics with what came instead.
    fn expect_paths(w: &Watcher, paths: &[&str]) -> Vec<ChangeBatch> {
        let batches = collect_until(w, |b| has_all(b, paths));
        assert!(
            has_all(&batches, paths),
            "wanted {paths:?}, got {batches:?}"
        );
        batches
    }

    const BASE: &[(&str, &str)] = &[
        ("a.ts", "export const a = 1;\n"),
        ("b.py", "b = 1\n"),
        ("c.go", "package c\n"),
        ("src/main.ts", "export {};\n"),
    ];

    /// A directory nested beyond `PATH_MAX` cannot be watched: it is skipped with one
    /// warning naming it, and the rest of the tree stays live.
    #[cfg(target_os = "linux")]
    #[test]
    fn an_unwatchable_directory_is_skipped_and_the_rest_stays_live() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "top.ts", "export const a = 1;\n");
        // 24 levels of 200-byte names, made relative to an open directory (the absolute
        // path is too long for any path-taking call).
        fs::create_dir(dir.path().join("deep")).unwrap();
        let name = std::ffi::CString::new("d".repeat(200)).unwrap();
        let mut parent = fs::File::open(dir.path().join("deep")).unwrap();
        for _ in 0..24 {
            use std::os::unix::io::{AsRawFd, FromRawFd};
            // SAFETY: a valid directory descriptor and NUL-terminated name; the new
            // descriptor is owned by the `File` made from it.
            unsafe {
                assert_eq!(libc::mkdirat(parent.as_raw_fd(), name.as_ptr(), 0o755), 0);
                let fd = libc::openat(
                    parent.as_raw_fd(),
                    name.as_ptr(),
                    libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
                );
                assert!(fd >= 0);
                parent = fs::File::from_raw_fd(fd);
            }
        }
        drop(parent);
        let w = Watcher::start(dir.path(), WatchOptions::default()).expect("live");
        let first = w.changes().recv_timeout(DEADLINE).expect("the warnings");
        assert!(first.has_no_changes(), "{first:?}");
        assert_eq!(first.warnings.len(), 1, "{first:?}");
        assert!(
            first.warnings[0].starts_with("not watching deep/ddd"),
            "{first:?}"
        );
        write(dir.path(), "top.ts", "export const b = 2;\n");
        write(dir.path(), "deep/new.ts", "export const c = 3;\n");
        let batches = expect_paths(&w, &["top.ts", "deep/new.ts"]);
        assert!(batches
            .iter()
            .all(|b| b.error.is_none() && b.warnings.is_empty()));
        // `remove_dir_all` (the tempdir's drop) works below PATH_MAX through descriptors.
    }

    /// Reading the tree (listing directories, opening and reading files, as the watcher's
    /// own listing and every index build do) is not taken in as an event, so it never makes
    /// the watcher settle: at start, the listing of each directory just watched used to
    /// count as pending until judged.
    #[test]
    fn reads_are_not_taken_in() {
        let (dir, w) = watched(BASE);
        let end = Instant::now() + DEADLINE;
        while w.settling() && Instant::now() < end {
            std::thread::sleep(Duration::from_millis(5));
        }
        let taken = w.progress.queued.load(Ordering::Acquire);
        for _ in 0..3 {
            for sub in ["", "src"] {
                for entry in fs::read_dir(dir.path().join(sub)).unwrap() {
                    let path = entry.unwrap().path();
                    if path.is_file() {
                        fs::read(&path).unwrap();
                    }
                }
            }
        }
        // Long enough for inotify to have delivered the opens and closes.
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(w.progress.queued.load(Ordering::Acquire), taken);
        assert!(!w.settling());
        assert!(w.changes().try_recv().is_err(), "a read is not a change");
    }

    /// Each directory is visited before it is listed: one made in it during its visit (after
    /// its watch is taken, before the listing) is visited too. Listing first lost it.
    #[test]
    fn a_directory_made_during_its_parents_visit_is_visited() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "a/x.ts", "x\n");
        let mut filter = PathFilter::new(dir.path()).unwrap();
        let root = filter.root().to_path_buf();
        let mut visited = Vec::new();
        let result: Result<(), std::convert::Infallible> =
            visit_walked_dirs(&mut filter, &root, |d| {
                if d.ends_with("a") {
                    fs::create_dir(d.join("made")).unwrap();
                }
                visited.push(d.strip_prefix(&root).unwrap().to_path_buf());
                Ok(())
            });
        let Ok(()) = result;
        assert!(visited.contains(&PathBuf::from("a/made")), "{visited:?}");
    }

    #[test]
    fn a_change_is_settling_until_its_batch_is_queued() {
        let (dir, w) = watched(&[("a.ts", "export const a = 1;\n")]);
        let end = Instant::now() + DEADLINE;
        assert!(!w.settling(), "nothing happened yet");
        let before = w.seen();
        write(dir.path(), "b.ts", "export const b = 1;\n");
        // Settling from the moment notify queues the event until the batch is sent.
        while !w.settling() && w.changes().is_empty() && Instant::now() < end {
            std::thread::sleep(Duration::from_millis(1));
        }
        while w.settling() && Instant::now() < end {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(!w.settling());
        assert!(w.seen() > before, "the write was counted");
        let batch = w
            .changes()
            .try_recv()
            .expect("the batch is queued once settled");
        assert!(batch.paths.contains("b.ts"), "{batch:?}");
    }

    #[test]
    fn create_modify_delete_rename_arrive_as_relative_paths() {
        let (dir, w) = watched(BASE);
        let root = dir.path();
        write(root, "src/new.ts", "export const n = 1;\n");
        expect_paths(&w, &["src/new.ts"]);
        write(root, "a.ts", "export const a = 2;\n");
        expect_paths(&w, &["a.ts"]);
        fs::remove_file(root.join("b.py")).unwrap();
        expect_paths(&w, &["b.py"]);
        fs::rename(root.join("c.go"), root.join("src/d.go")).unwrap();
        let batches = expect_paths(&w, &["c.go", "src/d.go"]);
        assert!(batches.iter().all(|b| !b.rescan && b.error.is_none()));
    }

    /// A source file without a grammar is in the map by its path (`rank::path_only`): its
    /// coming is a change, as a code file's is.
    #[test]
    fn a_source_file_without_a_grammar_is_a_change() {
        let (dir, w) = watched(&[("a.ts", "export const a = 1;\n")]);
        write(dir.path(), "schema.sql", "CREATE TABLE t (id int);\n");
        expect_paths(&w, &["schema.sql"]);
    }

    #[test]
    fn ignored_paths_and_reads_produce_nothing() {
        let (dir, w) = watched(&[
            ("a.ts", "export const a = 1;\n"),
            (".gitignore", "ignored.ts\n"),
            (".mapscopeignore", "secret/\n"),
            ("node_modules/p/index.js", "x\n"),
            (".git/objects/ab/cdef", "blob"),
            ("secret/s.ts", "x\n"),
        ]);
        let root = dir.path();
        write(root, "node_modules/x.ts", "x\n");
        write(root, "node_modules/p/index.js", "y\n");
        write(root, "ignored.ts", "x\n");
        write(root, "secret/t.ts", "x\n");
        write(root, ".git/objects/12/3456", "blob");
        write(root, ".git/HEAD", "ref: refs/heads/other\n");
        write(root, ".a.ts.swp", "swap");
        write(root, "build.log", "ok\n");
        fs::read(root.join("a.ts")).unwrap();
        // The positive control: inotify keeps one ordered queue, so once the control shows
        // up every earlier event has been judged.
        write(root, "control.ts", "x\n");
        let mut batches = expect_paths(&w, &["control.ts"]);
        // And a short bounded wait for anything late.
        batches.extend(w.changes().recv_timeout(Duration::from_millis(400)).ok());
        let want = BTreeSet::from(["control.ts".to_string()]);
        for batch in &batches {
            assert_eq!(batch.paths, want, "{batches:?}");
            assert!(!batch.rescan && batch.error.is_none(), "{batches:?}");
        }
    }

    #[test]
    fn rules_files_go_mod_and_tsconfig_force_a_rescan() {
        let (dir, w) = watched(&[
            ("a.ts", "x\n"),
            ("go.mod", "module example.com/m\n"),
            ("pkg/.mapscopeignore", "x.ts\n"),
            ("tsconfig.json", "{}\n"),
        ]);
        let root = dir.path();
        for (rel, text) in [
            (".gitignore", "a.ts\n"),
            ("pkg/.mapscopeignore", "y.ts\n"),
            ("go.mod", "module example.com/n\n"),
            ("tsconfig.json", r#"{"compilerOptions":{"baseUrl":"."}}"#),
            ("pkg/jsconfig.json", "{}\n"),
            // A base other configs extend changes their aliases too.
            ("tsconfig.base.json", r#"{"compilerOptions":{"paths":{}}}"#),
        ] {
            write(root, rel, text);
            let batches = collect_until(&w, |b| b.iter().any(|b| b.rescan));
            assert!(batches.iter().any(|b| b.rescan), "{rel}: {batches:?}");
            // Let the rest of this step's events settle into their batch before the next.
            while w.changes().recv_timeout(Duration::from_millis(300)).is_ok() {}
        }
        // The new `.gitignore` applies from now on.
        write(root, "a.ts", "y\n");
        write(root, "control.ts", "x\n");
        let batches = expect_paths(&w, &["control.ts"]);
        assert!(!union(&batches).contains("a.ts"), "{batches:?}");
    }

    #[test]
    fn a_storm_of_1000_writes_arrives_in_at_most_3_batches() {
        // Only the debounce window decides here (`max_delay` has its own test): on a loaded
        // 2-core machine writing 1,000 files takes seconds, although no gap between two
        // writes comes near the window.
        let opts = WatchOptions {
            max_delay: Duration::from_mins(1),
            ..WatchOptions::default()
        };
        let (dir, w) = watched_with(&[("storm/keep.ts", "x\n")], opts);
        let names: Vec<String> = (0..1000).map(|i| format!("storm/f{i:04}.ts")).collect();
        for name in &names {
            write(dir.path(), name, "export const x = 1;\n");
        }
        let want: Vec<&str> = names.iter().map(String::as_str).collect();
        let mut batches = expect_paths(&w, &want);
        // Stragglers would be extra batches: give them one more window to show up.
        batches.extend(w.changes().recv_timeout(Duration::from_millis(400)).ok());
        eprintln!(
            "STORM {:?}",
            batches.iter().map(|b| b.paths.len()).collect::<Vec<_>>()
        );
        assert!(batches.len() <= 3, "{} batches", batches.len());
        assert_eq!(union(&batches).len(), 1000);
        assert!(batches.iter().all(|b| !b.rescan));
    }

    #[test]
    fn a_stream_that_never_pauses_is_cut_at_max_delay() {
        // Writes every 20 ms for over a second never leave a 1 s quiet window, so only
        // `max_delay` can send a batch while they go on.
        let opts = WatchOptions {
            debounce: Duration::from_secs(1),
            max_delay: Duration::from_millis(300),
            ..WatchOptions::default()
        };
        let (dir, w) = watched_with(&[("a.ts", "x\n")], opts);
        let mut during = None;
        for i in 0..60 {
            write(dir.path(), "a.ts", &format!("export const a = {i};\n"));
            if let Ok(batch) = w.changes().recv_timeout(Duration::from_millis(20)) {
                during = Some(batch);
                break;
            }
        }
        let during = during.expect("no batch while the writes went on");
        assert!(during.paths.contains("a.ts"), "{during:?}");
    }

    #[test]
    fn an_oversized_batch_becomes_a_rescan() {
        let opts = WatchOptions {
            max_paths: 20,
            ..WatchOptions::default()
        };
        let (dir, w) = watched_with(&[("big/keep.ts", "x\n")], opts);
        for i in 0..100 {
            write(dir.path(), &format!("big/f{i}.ts"), "x\n");
        }
        let batches = collect_until(&w, |b| b.iter().any(|b| b.rescan));
        let rescan = batches.iter().find(|b| b.rescan);
        assert!(rescan.is_some_and(|b| b.paths.is_empty()), "{batches:?}");
        assert!(batches.iter().all(|b| b.paths.len() <= 20));
    }

    #[test]
    fn files_in_a_new_directory_are_reported_even_before_its_watch() {
        let (dir, w) = watched(BASE);
        // Written right after `mkdir`: inotify may not watch `newpkg/a/b` yet.
        write(dir.path(), "newpkg/a/b/x.ts", "x\n");
        write(dir.path(), "newpkg/y.py", "y = 1\n");
        write(dir.path(), "newpkg/node_modules/z.js", "z\n");
        let batches = expect_paths(&w, &["newpkg/a/b/x.ts", "newpkg/y.py"]);
        assert!(!union(&batches).contains("newpkg/node_modules/z.js"));
    }

    #[test]
    fn a_renamed_directory_reports_its_new_files_and_its_old_name() {
        let (dir, w) = watched(&[("sub/m.ts", "x\n"), ("sub/deep/n.py", "n = 1\n")]);
        fs::rename(dir.path().join("sub"), dir.path().join("moved")).unwrap();
        expect_paths(&w, &["sub", "moved/m.ts", "moved/deep/n.py"]);
    }

    #[test]
    fn only_walked_directories_get_a_watch() {
        let mut files: Vec<(String, &str)> = vec![
            ("src/a.ts".into(), "x\n"),
            ("src/lib/b.ts".into(), "x\n"),
            (".gitignore".into(), "gen/\n"),
            ("gen/g.ts".into(), "x\n"),
            (".cache/c.ts".into(), "x\n"),
        ];
        // A dependency tree as deep and wide as a small `node_modules`.
        for i in 0..30 {
            files.push((format!("node_modules/p{i}/lib/sub/index.js"), "x\n"));
        }
        let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (p.as_str(), *t)).collect();
        let (_dir, w) = watched(&files);
        // The root, src, src/lib: not gen (ignored), .cache (hidden), node_modules.
        assert_eq!(w.watched_dirs(), 3);
    }

    #[test]
    fn a_new_directory_is_watched_for_later_writes() {
        let (dir, w) = watched(BASE);
        write(dir.path(), "newpkg/sub/first.ts", "x\n");
        expect_paths(&w, &["newpkg/sub/first.ts"]);
        // `mkdir -p` makes `newpkg`, then `sub`: under load the batch listing the file
        // (found by listing `newpkg`) may go out before the event that adds `sub`'s watch.
        let t = Instant::now();
        while w.watched_dirs() < 4 && t.elapsed() < DEADLINE {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(w.watched_dirs(), 4);
        // Written after the batch: only a watch on `newpkg/sub` can report it.
        write(dir.path(), "newpkg/sub/later.ts", "x\n");
        expect_paths(&w, &["newpkg/sub/later.ts"]);
    }

    #[test]
    fn a_renamed_directory_reports_later_writes_under_its_new_name() {
        let (dir, w) = watched(&[("sub/m.ts", "x\n"), ("sub/deep/n.py", "n = 1\n")]);
        fs::rename(dir.path().join("sub"), dir.path().join("moved")).unwrap();
        expect_paths(&w, &["sub", "moved/m.ts"]);
        write(dir.path(), "moved/deep/later.py", "x = 1\n");
        let batches = expect_paths(&w, &["moved/deep/later.py"]);
        assert!(
            !union(&batches).contains("sub/deep/later.py"),
            "{batches:?}"
        );
    }

    #[test]
    fn a_directory_no_longer_ignored_gets_watched() {
        let (dir, w) = watched(&[
            ("a.ts", "x\n"),
            (".gitignore", "gen/\n"),
            ("gen/g.ts", "x\n"),
        ]);
        assert_eq!(w.watched_dirs(), 1);
        write(dir.path(), ".gitignore", "\n");
        let batches = collect_until(&w, |b| b.iter().any(|b| b.rescan));
        assert!(batches.iter().any(|b| b.rescan), "{batches:?}");
        assert_eq!(w.watched_dirs(), 2);
        write(dir.path(), "gen/later.ts", "x\n");
        expect_paths(&w, &["gen/later.ts"]);
    }

    #[test]
    fn removing_the_root_is_an_error_batch_not_a_panic() {
        let outer = tempfile::tempdir().unwrap();
        let root = outer.path().join("repo");
        write(&root, "a.ts", "x\n");
        let w = Watcher::start(&root, WatchOptions::default()).unwrap();
        fs::remove_dir_all(&root).unwrap();
        let batches = collect_until(&w, |b| b.iter().any(|b| b.error.is_some()));
        let err = batches.iter().find(|b| b.error.is_some());
        assert!(err.is_some_and(|b| b.rescan), "{batches:?}");
        drop(w);
    }

    #[test]
    fn start_fails_on_a_missing_root() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope");
        let err = Watcher::start(&missing, WatchOptions::default()).unwrap_err();
        assert!(matches!(
            err,
            WatchError::Repo(EngineError::RepoNotFound(_))
        ));
        assert!(err.to_string().contains("nope"), "{err}");
    }

    #[test]
    fn the_watcher_can_move_to_the_engine_worker_thread() {
        fn assert_send<T: Send>() {}
        assert_send::<Watcher>();
        assert_send::<ChangeBatch>();
    }

    #[test]
    fn merge_unions_paths_and_keeps_rescan_and_the_latest_error() {
        let mut a = ChangeBatch {
            paths: BTreeSet::from(["a.ts".to_string()]),
            rescan: false,
            error: Some("old".to_string()),
            warnings: vec!["w1".to_string()],
            mode: None,
        };
        assert!(!a.is_empty());
        a.merge(ChangeBatch {
            paths: BTreeSet::from(["b.ts".to_string()]),
            rescan: true,
            error: None,
            warnings: vec!["w2".to_string()],
            mode: Some(WatchMode::Events),
        });
        assert_eq!(a.paths.len(), 2);
        assert_eq!(a.warnings, ["w1", "w2"]);
        assert!(a.rescan);
        assert_eq!(a.error.as_deref(), Some("old"));
        assert_eq!(a.mode, Some(WatchMode::Events));
        a.merge(ChangeBatch {
            error: Some("new".to_string()),
            ..ChangeBatch::default()
        });
        assert_eq!(a.error.as_deref(), Some("new"));
        assert!(ChangeBatch::default().is_empty());
    }

    fn polling_opts(limit: usize) -> WatchOptions {
        WatchOptions {
            debounce: Duration::from_millis(50),
            poll_interval: Duration::from_millis(100),
            watch_limit: Some(limit),
            ..WatchOptions::default()
        }
    }

    /// Out of watches at start (simulated: the limit is one watch, the tree has three
    /// directories): the watcher starts anyway, says so once, polls, and reports creations,
    /// edits, deletions and rules changes as events would.
    #[test]
    fn out_of_watches_at_start_falls_back_to_polling() {
        let files = [BASE, &[("src/lib/deep.ts", "x\n")]].concat();
        let (dir, w) = watched_with(&files, polling_opts(1));
        assert_eq!(
            w.mode(),
            WatchMode::Polling {
                interval: Duration::from_millis(100)
            }
        );
        assert_eq!(w.watched_dirs(), 0, "the watches are given back");
        assert_eq!(w.mode().label(), "live (polling 0.1s)");
        let first = w.changes().recv_timeout(DEADLINE).unwrap();
        assert_eq!(first.warnings.len(), 1, "{first:?}");
        assert!(
            first.warnings[0].contains("watch limit") || first.warnings[0].contains("space"),
            "{first:?}"
        );
        assert!(
            first.warnings[0].contains("polling the tree every 0.1s"),
            "{first:?}"
        );
        assert_eq!(first.mode, Some(w.mode()));
        // News for the status bar, not a change to re-read.
        assert!(first.has_no_changes() && !first.is_empty());
        assert!(first.paths.is_empty() && !first.rescan);

        std::thread::sleep(Duration::from_millis(20));
        write(dir.path(), "src/lib/deep.ts", "changed\n");
        write(dir.path(), "newpkg/sub/new.py", "x = 1\n");
        fs::remove_file(dir.path().join("b.py")).unwrap();
        let batches = expect_paths(&w, &["src/lib/deep.ts", "newpkg/sub/new.py", "b.py"]);
        assert!(
            batches
                .iter()
                .all(|b| b.warnings.is_empty() && b.mode.is_none()),
            "said once"
        );
        // Ignored paths stay unreported; a rules file forces a rescan.
        write(dir.path(), "node_modules/x/index.ts", "x\n");
        write(dir.path(), ".gitignore", "gen/\n");
        let batches = collect_until(&w, |b| b.iter().any(|b| b.rescan));
        assert!(batches.iter().any(|b| b.rescan), "{batches:?}");
        assert!(
            batches
                .iter()
                .all(|b| !b.paths.iter().any(|p| p.starts_with("node_modules"))),
            "{batches:?}"
        );
    }

    /// Out of watches while running (a new directory needs one more than the limit): the
    /// watcher says so once, switches to polling with a rescan (events may have been lost),
    /// and later writes are still reported.
    #[test]
    fn out_of_watches_later_falls_back_to_polling_with_a_rescan() {
        // The root and src/: exactly the limit.
        let (dir, w) = watched_with(BASE, polling_opts(2));
        assert_eq!(w.mode(), WatchMode::Events);
        assert_eq!(w.watched_dirs(), 2);
        write(dir.path(), "newpkg/a.ts", "x\n");
        let batches = collect_until(&w, |b| b.iter().any(|b| b.mode.is_some()));
        let switched = batches
            .iter()
            .find(|b| b.mode.is_some())
            .expect("a mode change");
        assert!(switched.rescan, "{switched:?}");
        assert_eq!(switched.warnings.len(), 1, "{switched:?}");
        assert!(
            switched.error.is_none(),
            "polling is not an error: {switched:?}"
        );
        assert!(matches!(w.mode(), WatchMode::Polling { .. }));
        write(dir.path(), "newpkg/later.ts", "x\n");
        write(dir.path(), "a.ts", "export const a = 2;\n");
        let batches = expect_paths(&w, &["newpkg/later.ts", "a.ts"]);
        assert!(
            batches.iter().all(|b| b.warnings.is_empty()),
            "said once: {batches:?}"
        );
    }
}
