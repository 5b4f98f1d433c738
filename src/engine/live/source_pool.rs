//! The extra sources a live-index service searches besides its project: the ones it was
//! started with (`--source`, kept for good) and the ones requests name by path (kept while
//! they fit the memory and disk bounds, the least recently used dropped first, its cache
//! folder removed if this server made it). Each is built on a thread of its own,
//! `mapscope-source-build`, one at a time, within `SourceLimits` (files, bytes and time per
//! source: `base::limits`) and cancelled when the service stops; never on the engine
//! thread, so the project's routes (stats, map, a search of the project only) keep
//! answering while a large source builds.
//!
//! A caller asks for the sources a request selects (`get`): it gets their indexes if each is
//! built, or at once (after at most the wait it gives) which one is not and why (`Unready`:
//! queued or building, failed, too many queued), so that a front door can say "retry later"
//! instead of holding its client. A source not known yet is queued by that call. A failed
//! build is remembered for `FAILURE_KEPT`, then tried again if named again.
//!
//! Threads: the builder thread; `get`, `forget` and `configured` from any caller thread (the
//! HTTP connection threads, the MCP main thread), under one mutex held only to look and
//! update, never during a build. Warnings go to the sink the front door gives, from the
//! builder thread.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use super::{SourceIndex, WarningSink};
use crate::engine::base::error::EngineError;
use crate::engine::base::heap::release_free_memory;
use crate::engine::base::limits::{BuildBudget, Overrun};
use crate::engine::base::text::display_path;
use crate::engine::index::{Index, IndexOptions};
use crate::engine::ingest::history::HistorySource;
use crate::engine::search::sources::SourceSpec;
use crate::engine::store::clear::owned_files;
use crate::engine::store::dir::DiskCache;

/// Roots named by requests that stay indexed at most, whatever their size.
pub const MAX_REQUEST_SOURCES: usize = 8;
/// How long a failed build is remembered: a request naming the source again within it gets
/// the failure at once; after it, the build is tried again (the tree may have changed).
pub const FAILURE_KEPT: Duration = Duration::from_mins(1);
/// Builds waiting at most; a request naming another new source past it is refused (busy).
pub const MAX_QUEUED: usize = 8;
/// Entries remembered at most (built, building, failed): past it the least recently used
/// that are neither built nor building are forgotten.
const MAX_ENTRIES: usize = 64;
/// How often a waiting caller looks whether it should stop waiting (its front door closing).
const WAIT_POLL: Duration = Duration::from_millis(50);

/// An index's heap is estimated as `HEAP_PER_SOURCE_BYTE` per byte of the files it read
/// (code and docs) plus `HEAP_PER_FILE` per file (its path, tags and graph rows, whatever its
/// size). Measured with glibc's `mallinfo2` (in-use bytes, all arenas and mmapped blocks,
/// before and after `Index::build` plus its search index, cache off; the ignored
/// `index_heap_per_source_byte` test below prints them), heap ÷ bytes read: jsoup (Java,
/// 202 files, 2.4 MB) 4.5, CPython's standard library (671 files, 11.3 MB) 3.7, syn 4.2,
/// regex-automata 2.8, /usr/include (C and C++, 7,435 files, 103.5 MB: 504 MB of heap)
/// 4.9, the cargo registry's sources (8,557 files, 103 MB) 4.1, a generated tree of 4,000
/// small Python files (1.1 MB: 18 MB of heap, ~4 KB a file). 5 a byte and 4 KiB a file is
/// above every one of them (by 3 to 30%), so the bound errs on the side of memory.
pub const HEAP_PER_SOURCE_BYTE: u64 = 5;
pub const HEAP_PER_FILE: u64 = 4096;

/// The bounds on the sources a service builds (`--source-max-*`, `--source-memory`,
/// `--source-disk`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceLimits {
    /// Per source: files the walk keeps (code and docs).
    pub max_files: usize,
    /// Per source: their bytes.
    pub max_bytes: u64,
    /// Per source: wall time of its build.
    pub time: Duration,
    /// All the request sources kept: their indexes' estimated memory (`estimated_memory`).
    pub memory: u64,
    /// All the request sources kept: the cache folders this server made for them.
    pub disk: u64,
}

impl Default for SourceLimits {
    /// Room for a large repository (CPython, rails, /usr/include's 104 MB; not the Linux
    /// kernel's 1 GB of code), and for a few kept: 128 MiB of files is at most ~700 MB of
    /// estimated index, under the 1 GiB all request sources may take. Measured, a build's
    /// own resident peak is about 10 bytes per byte of files (/usr/include: 1.1 GB), so
    /// the server stays under about 3 GB however many large folders are named.
    fn default() -> SourceLimits {
        SourceLimits {
            max_files: 100_000,
            max_bytes: 128 << 20,
            time: Duration::from_mins(2),
            memory: 1 << 30,
            disk: 1 << 30,
        }
    }
}

impl SourceLimits {
    /// The bytes one source's walk may keep: `max_bytes`, and for a request source no more
    /// than the memory bound's worth (`HEAP_PER_SOURCE_BYTE` each), so that one whose index
    /// could not be kept is refused during its walk, before it is built.
    fn bytes_for(&self, configured: bool) -> u64 {
        if configured {
            self.max_bytes
        } else {
            self.max_bytes.min(self.memory / HEAP_PER_SOURCE_BYTE)
        }
    }
}

/// Why `SourcePool::get` has no index for a source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unready {
    /// Waiting for its build (`position` builds before it, 0: next) or being built
    /// (`files` and `bytes` found so far).
    Building {
        name: String,
        position: Option<usize>,
        files: usize,
        bytes: u64,
    },
    /// Its build failed: the engine's code (`TREE_TOO_LARGE`, `BUILD_TIMEOUT`,
    /// `REPO_EMPTY`, …) and message.
    Failed {
        name: String,
        code: &'static str,
        message: String,
    },
    /// `MAX_QUEUED` builds wait already.
    Busy { name: String },
    /// The service is stopping.
    Stopped,
}

impl Unready {
    /// The stable code a front door answers with.
    pub fn code(&self) -> &'static str {
        match self {
            Unready::Building { .. } => "SOURCE_BUILDING",
            Unready::Failed { code, .. } => code,
            Unready::Busy { .. } => "SOURCE_QUEUE_FULL",
            Unready::Stopped => "SHUTTING_DOWN",
        }
    }

    /// One line saying what is going on.
    pub fn message(&self) -> String {
        match self {
            Unready::Building {
                name,
                position: Some(n),
                ..
            } => format!("source `{name}` is waiting to be indexed ({n} before it); retry later"),
            Unready::Building {
                name,
                position: None,
                files,
                bytes,
            } => format!(
                "source `{name}` is being indexed ({files} files, {} MB found so far); retry later",
                bytes >> 20
            ),
            Unready::Failed { name, message, .. } => {
                format!("source `{name}` could not be indexed: {message}")
            }
            Unready::Busy { name } => format!(
                "source `{name}`: {MAX_QUEUED} sources are waiting to be indexed already; retry later"
            ),
            Unready::Stopped => "the server is stopping".into(),
        }
    }
}

/// The sources of one service and the thread that builds them. Dropping it cancels the
/// build in progress and lets the thread end (it is not waited for: a build stops at its
/// next check, within milliseconds, but its graph or search index may take longer).
pub struct SourcePool {
    shared: Arc<Shared>,
}

struct Shared {
    state: Mutex<State>,
    /// Signalled when a build is queued (the builder looks) or ends (waiters look).
    changed: Condvar,
    /// Set when the service stops (or the pool is dropped): the build in progress ends.
    stop: Arc<AtomicBool>,
    limits: SourceLimits,
    /// The project's options; each source is built with them, without history and with a
    /// budget of its own.
    opts: IndexOptions,
    /// The sources given at start, in order.
    configured: Vec<SourceSpec>,
}

#[derive(Default)]
struct State {
    /// Least recently used first.
    entries: Vec<Entry>,
    queue: VecDeque<SourceSpec>,
    closed: bool,
}

struct Entry {
    spec: SourceSpec,
    /// Given at start: kept whatever the bounds, built again by `forget`, never retried on
    /// its own after a failure (it is left out of the default selection instead).
    configured: bool,
    /// The last complete build (served while a new one runs).
    ready: Option<Ready>,
    job: Job,
}

struct Ready {
    index: Arc<SourceIndex>,
    /// `estimated_memory` of its index.
    memory: u64,
    /// Bytes of the cache folder this server made for it (0 if the folder was there
    /// before: not ours to count or remove).
    disk: u64,
    made_cache: Option<DiskCache>,
}

enum Job {
    Idle,
    Queued,
    Building(Arc<BuildBudget>),
    Failed {
        code: &'static str,
        message: String,
        at: Instant,
    },
}

impl SourcePool {
    /// Starts the builder thread, with `configured` queued in order. `stop` ends the build
    /// in progress (and every later one) once set: give the server's stop flag.
    pub fn start(
        configured: Vec<SourceSpec>,
        opts: IndexOptions,
        limits: SourceLimits,
        stop: Arc<AtomicBool>,
        warn: WarningSink,
    ) -> SourcePool {
        let mut state = State::default();
        for spec in &configured {
            state.queue.push_back(spec.clone());
            state.entries.push(Entry {
                spec: spec.clone(),
                configured: true,
                ready: None,
                job: Job::Queued,
            });
        }
        let shared = Arc::new(Shared {
            state: Mutex::new(state),
            changed: Condvar::new(),
            stop,
            limits,
            opts,
            configured,
        });
        let builder = Arc::clone(&shared);
        let started = std::thread::Builder::new()
            .name("mapscope-source-build".into())
            .spawn(move || build_loop(&builder, &warn));
        if let Err(e) = started {
            // No thread: every source stays unready and says why.
            let mut state = shared.lock();
            state.closed = true;
            for entry in &mut state.entries {
                entry.job = failed("INTERNAL_ERROR", format!("no build thread: {e}"));
            }
        }
        SourcePool { shared }
    }

    /// The sources the service was started with, in order.
    pub fn configured(&self) -> &[SourceSpec] {
        &self.shared.configured
    }

    /// The indexes of the sources `selected` names (`None`: the configured ones, leaving
    /// out those whose build failed), in order, once each is built. Queues each source not
    /// known yet, and waits up to `wait` (while `give_up` says no) for builds under way;
    /// else says which is not ready, and why.
    pub fn get(
        &self,
        selected: Option<&[SourceSpec]>,
        wait: Duration,
        give_up: &dyn Fn() -> bool,
    ) -> Result<Vec<Arc<SourceIndex>>, Unready> {
        let deadline = Instant::now() + wait;
        let mut state = self.shared.lock();
        loop {
            let looked = match selected {
                Some(specs) => state.look_up(specs, &self.shared, false),
                None => state.look_up(&self.shared.configured, &self.shared, true),
            };
            let now = Instant::now();
            let building = matches!(looked, Err(Unready::Building { .. }));
            if !building || now >= deadline || give_up() {
                return looked;
            }
            let slice = (deadline - now).min(WAIT_POLL);
            state = self
                .shared
                .changed
                .wait_timeout(state, slice)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Everything is read again (`POST /index`): the configured sources are built again
    /// (their last build served meanwhile), the request sources dropped (their cache
    /// folders removed, as when they are evicted).
    pub fn forget(&self) {
        let dropped = {
            let mut state = self.shared.lock();
            let (kept, dropped): (Vec<Entry>, Vec<Entry>) = std::mem::take(&mut state.entries)
                .into_iter()
                .partition(|e| e.configured);
            state.entries = kept;
            state.queue.clear();
            let State { entries, queue, .. } = &mut *state;
            for entry in entries.iter_mut() {
                if !matches!(entry.job, Job::Building(_)) {
                    entry.job = Job::Queued;
                    queue.push_back(entry.spec.clone());
                }
            }
            self.shared.changed.notify_all();
            dropped
        };
        drop_entries(dropped);
    }

    /// The request sources kept: their estimated memory, their cache folders' bytes, and
    /// how many.
    pub fn usage(&self) -> (u64, u64, usize) {
        self.shared.lock().request_usage()
    }
}

impl Drop for SourcePool {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        self.shared.lock().closed = true;
        self.shared.changed.notify_all();
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn stopping(&self, state: &State) -> bool {
        state.closed || self.stop.load(Ordering::SeqCst)
    }
}

impl State {
    /// `get`'s look, under the lock: each spec's index, queueing those not known and
    /// marking each used; with `skip_failed`, a failed one is left out instead of refused.
    fn look_up(
        &mut self,
        specs: &[SourceSpec],
        shared: &Shared,
        skip_failed: bool,
    ) -> Result<Vec<Arc<SourceIndex>>, Unready> {
        let mut found = Vec::with_capacity(specs.len());
        let mut first_unready = None;
        for spec in specs {
            match self.look_up_one(spec, shared) {
                Ok(index) => found.push(index),
                Err(Unready::Failed { .. }) if skip_failed => {}
                // The others are still looked at: each new one is queued now.
                Err(why) => {
                    first_unready.get_or_insert(why);
                }
            }
        }
        match first_unready {
            None => Ok(found),
            Some(why) => Err(why),
        }
    }

    fn look_up_one(
        &mut self,
        spec: &SourceSpec,
        shared: &Shared,
    ) -> Result<Arc<SourceIndex>, Unready> {
        let name = spec.name.clone();
        let Some(i) = self.entries.iter().position(|e| &e.spec == spec) else {
            self.enqueue(spec, shared)?;
            self.entries.push(Entry {
                spec: spec.clone(),
                configured: false,
                ready: None,
                job: Job::Queued,
            });
            return Err(self.building(spec));
        };
        // Most recently used last.
        let entry = self.entries.remove(i);
        self.entries.push(entry);
        let last = self.entries.len() - 1;
        let entry = &self.entries[last];
        if let Some(ready) = &entry.ready {
            return Ok(Arc::clone(&ready.index));
        }
        match &entry.job {
            Job::Failed { code, message, at }
                if entry.configured || at.elapsed() < FAILURE_KEPT =>
            {
                Err(Unready::Failed {
                    name,
                    code,
                    message: message.clone(),
                })
            }
            Job::Queued | Job::Building(_) => Err(self.building(spec)),
            // Failed long enough ago (the tree may have changed), or never built.
            Job::Failed { .. } | Job::Idle => {
                self.enqueue(spec, shared)?;
                self.entries[last].job = Job::Queued;
                Err(self.building(spec))
            }
        }
    }

    /// Puts `spec` in the build queue, unless the service is stopping or the queue is full.
    fn enqueue(&mut self, spec: &SourceSpec, shared: &Shared) -> Result<(), Unready> {
        if shared.stopping(self) {
            return Err(Unready::Stopped);
        }
        if self.queue.len() >= MAX_QUEUED {
            return Err(Unready::Busy {
                name: spec.name.clone(),
            });
        }
        self.queue.push_back(spec.clone());
        shared.changed.notify_all();
        Ok(())
    }

    /// What a source queued or under way says about itself.
    fn building(&self, spec: &SourceSpec) -> Unready {
        let budget = self.entries.iter().find_map(|e| match &e.job {
            Job::Building(budget) if &e.spec == spec => Some(budget),
            _ => None,
        });
        let (files, bytes) = budget.map_or((0, 0), |b| b.counted());
        Unready::Building {
            name: spec.name.clone(),
            position: match budget {
                Some(_) => None,
                None => self.queue.iter().position(|q| q == spec),
            },
            files,
            bytes,
        }
    }

    fn request_usage(&self) -> (u64, u64, usize) {
        self.entries
            .iter()
            .filter(|e| !e.configured)
            .filter_map(|e| e.ready.as_ref())
            .fold((0, 0, 0), |(m, d, n), r| (m + r.memory, d + r.disk, n + 1))
    }

    /// Takes out the least recently used request sources until those kept fit `limits`
    /// (never `keep`, just built), and the entries past `MAX_ENTRIES` that hold nothing.
    fn evict(&mut self, limits: &SourceLimits, keep: &SourceSpec) -> Vec<Entry> {
        let mut out = Vec::new();
        loop {
            let (memory, disk, count) = self.request_usage();
            if memory <= limits.memory && disk <= limits.disk && count <= MAX_REQUEST_SOURCES {
                break;
            }
            let victim = self
                .entries
                .iter()
                .position(|e| !e.configured && e.ready.is_some() && &e.spec != keep);
            match victim {
                Some(i) => out.push(self.entries.remove(i)),
                None => break,
            }
        }
        while self.entries.len() > MAX_ENTRIES {
            let idle = self.entries.iter().position(|e| {
                !e.configured
                    && e.ready.is_none()
                    && matches!(e.job, Job::Failed { .. } | Job::Idle)
            });
            match idle {
                Some(i) => out.push(self.entries.remove(i)),
                None => break,
            }
        }
        out
    }
}

/// The builder thread: the next queued source, built outside the lock, then installed (and
/// what no longer fits dropped), until the pool is closed or the service stops.
fn build_loop(shared: &Shared, warn: &WarningSink) {
    while let Some((spec, configured, budget)) = next_build(shared) {
        let built = build_one(shared, &spec, configured, &budget, warn);
        if let Err((_, message)) = &built {
            let what = if configured {
                "left out"
            } else {
                "not indexed"
            };
            warn(&format!("source `{}` {what}: {message}", spec.name));
        }
        let dropped = {
            let mut state = shared.lock();
            let dropped = install(&mut state, shared, &spec, built);
            shared.changed.notify_all();
            dropped
        };
        drop_entries(dropped);
        // The build's parse trees and temporaries (or a refused index) are freed: handed
        // back, or the resident set keeps them (measured: 700 MB after a refused
        // /usr/include).
        release_free_memory();
    }
}

/// Waits for the next queued source; marks it building under a new budget.
fn next_build(shared: &Shared) -> Option<(SourceSpec, bool, Arc<BuildBudget>)> {
    let mut state = shared.lock();
    loop {
        if shared.stopping(&state) {
            return None;
        }
        if let Some(spec) = state.queue.pop_front() {
            // Gone meanwhile (`forget`): the next one.
            let Some(entry) = state.entries.iter_mut().find(|e| e.spec == spec) else {
                continue;
            };
            let budget = Arc::new(BuildBudget::new(
                Arc::clone(&shared.stop),
                shared.limits.max_files,
                shared.limits.bytes_for(entry.configured),
                Some(shared.limits.time),
            ));
            entry.job = Job::Building(Arc::clone(&budget));
            return Some((spec, entry.configured, budget));
        }
        state = shared
            .changed
            .wait(state)
            .unwrap_or_else(PoisonError::into_inner);
    }
}

/// One source's build, within `budget`, with its search index and its cache saved: on the
/// builder thread, no lock held. `Err` holds the code and message to answer with.
fn build_one(
    shared: &Shared,
    spec: &SourceSpec,
    configured: bool,
    budget: &Arc<BuildBudget>,
    warn: &WarningSink,
) -> Result<Ready, (&'static str, String)> {
    let limits = &shared.limits;
    let engine = |e: EngineError| match e {
        // The bound came from the memory all request sources may take, not `max_bytes`.
        EngineError::Stopped(Overrun::Bytes(n)) if n < limits.max_bytes => (
            e.code(),
            format!(
                "{e}: its index would take more than the {} MB all request sources may take",
                limits.memory >> 20
            ),
        ),
        e => (e.code(), e.to_string()),
    };
    // The folder was checked (canonical, under a permitted root) when it was named; one
    // moved or replaced by a link since would lead the build elsewhere.
    if spec.path.canonicalize().ok().as_deref() != Some(spec.path.as_path()) {
        return Err((
            "INVALID_ARGUMENT",
            format!(
                "{} changed (moved, or replaced by a link) since it was named",
                display_path(&spec.path)
            ),
        ));
    }
    let mut opts = IndexOptions {
        history: HistorySource::Off,
        ..shared.opts.clone()
    };
    opts.walk.budget = Some(Arc::clone(budget));
    let cache = opts
        .use_cache
        .then(|| DiskCache::for_repo(&spec.path).ok())
        .flatten();
    let cache_was_there = cache.as_ref().is_some_and(|c| c.dir().exists());
    let index = Index::build(&spec.path, &opts).map_err(engine)?;
    // Built here rather than by the first search, on the engine thread; and counted.
    let _ = index.search_index();
    // Cancelled, or out of time, while the graph or the search index was built.
    budget.check().map_err(|why| engine(why.into()))?;
    let memory = estimated_memory(&index);
    let limit = shared.limits.memory;
    if !configured && memory > limit {
        return Err((
            "TREE_TOO_LARGE",
            format!(
                "its index would take about {} MB, more than the {} MB all request sources \
                 may take",
                memory >> 20,
                limit >> 20
            ),
        ));
    }
    if let Err(e) = index.save_cache() {
        warn(&format!(
            "could not save the cache of source `{}`: {e}",
            spec.name
        ));
    }
    let mut made_cache = cache.filter(|_| !cache_was_there);
    let mut disk = made_cache.as_ref().map_or(0, |c| folder_bytes(c.dir()));
    if !configured && disk > shared.limits.disk {
        // Indexed, but its cache alone is over the bound: not kept on disk.
        if let Some(cache) = made_cache.take() {
            let _ = cache.clear();
        }
        disk = 0;
    }
    Ok(Ready {
        index: Arc::new(SourceIndex {
            name: spec.name.clone(),
            root: spec.path.clone(),
            index,
        }),
        memory,
        disk,
        made_cache,
    })
}

/// A finished build into its entry (under the lock); returns what must be dropped: the
/// entries evicted to make room, or the build itself if its entry was forgotten meanwhile.
fn install(
    state: &mut State,
    shared: &Shared,
    spec: &SourceSpec,
    built: Result<Ready, (&'static str, String)>,
) -> Vec<Entry> {
    let Some(entry) = state.entries.iter_mut().find(|e| &e.spec == spec) else {
        return vec![Entry {
            spec: spec.clone(),
            configured: false,
            ready: built.ok(),
            job: Job::Idle,
        }];
    };
    match built {
        Ok(ready) => {
            entry.job = Job::Idle;
            if let Some(mut previous) = entry.ready.replace(ready) {
                // A rebuild's: dropped outside the lock, its cache folder (the same one) kept.
                previous.made_cache = None;
                let mut dropped = state.evict(&shared.limits, spec);
                dropped.push(Entry {
                    spec: spec.clone(),
                    configured: true,
                    ready: Some(previous),
                    job: Job::Idle,
                });
                return dropped;
            }
        }
        // A rebuild that fails leaves the previous index served.
        Err((code, message)) => entry.job = failed(code, message),
    }
    state.evict(&shared.limits, spec)
}

fn failed(code: &'static str, message: String) -> Job {
    Job::Failed {
        code,
        message,
        at: Instant::now(),
    }
}

/// Drops what eviction or `forget` took out: each cache folder this server made is removed
/// (only mapscope's own files: `DiskCache::clear`), then the freed heap is handed back to
/// the system (an index is many small blocks, which glibc would otherwise keep).
fn drop_entries(entries: Vec<Entry>) {
    if entries.is_empty() {
        return;
    }
    for entry in entries {
        if let Some(cache) = entry.ready.and_then(|r| r.made_cache) {
            let _ = cache.clear();
        }
    }
    release_free_memory();
}

/// An index's heap, estimated from what it read (see `HEAP_PER_SOURCE_BYTE`).
pub fn estimated_memory(index: &Index) -> u64 {
    let code: u64 = index.files.iter().map(|f| f.size).sum();
    let docs: u64 = index.docs.iter().map(|d| d.text().len() as u64).sum();
    let files = (index.files.len() + index.docs.len()) as u64;
    (code + docs) * HEAP_PER_SOURCE_BYTE + files * HEAP_PER_FILE
}

/// The bytes of a cache folder's files (0 when it has none or is not one).
fn folder_bytes(dir: &Path) -> u64 {
    match owned_files(dir) {
        Ok(Some(files)) => files.iter().map(|(_, len)| len).sum(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A source of `files` Python files under `dir`, named `name`.
    fn source(dir: &Path, name: &str, files: usize) -> SourceSpec {
        let root = dir.join(name);
        std::fs::create_dir_all(&root).unwrap();
        for i in 0..files {
            let text = format!("def {name}_{i}():\n    return {i}\n");
            std::fs::write(root.join(format!("m{i}.py")), text).unwrap();
        }
        SourceSpec {
            name: name.into(),
            path: root.canonicalize().unwrap(),
        }
    }

    fn pool(configured: Vec<SourceSpec>, limits: SourceLimits) -> SourcePool {
        SourcePool::start(
            configured,
            IndexOptions::default(),
            limits,
            Arc::new(AtomicBool::new(false)),
            Box::new(|_| {}),
        )
    }

    fn names(got: &[Arc<SourceIndex>]) -> Vec<&str> {
        got.iter().map(|s| s.name.as_str()).collect()
    }

    const LONG: Duration = Duration::from_secs(20);

    /// Roots named by requests are built once (the first call may come back before the
    /// build is done), given in the order asked, kept up to `MAX_REQUEST_SOURCES` (least
    /// recently used dropped); configured sources are never dropped.
    #[test]
    fn request_sources_are_built_once_kept_bounded_and_given_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let specs: Vec<SourceSpec> = (0..=MAX_REQUEST_SOURCES + 1)
            .map(|i| source(dir.path(), &format!("s{i}"), 1))
            .collect();
        let pool = pool(vec![specs[0].clone()], SourceLimits::default());
        let never = || false;
        // Not waiting: a source just named is not built yet.
        match pool.get(Some(&specs[1..2]), Duration::ZERO, &never) {
            Err(Unready::Building { name, .. }) => assert_eq!(name, "s1"),
            other => panic!("{:?}", other.map(|v| names(&v).join(","))),
        }
        let got = pool.get(Some(&[specs[2].clone(), specs[0].clone()]), LONG, &never);
        assert_eq!(names(&got.unwrap()), ["s2", "s0"]);
        assert_eq!(names(&pool.get(None, LONG, &never).unwrap()), ["s0"]);
        for s in &specs[1..] {
            let got = pool
                .get(Some(std::slice::from_ref(s)), LONG, &never)
                .unwrap();
            assert_eq!(names(&got), [s.name.as_str()]);
        }
        // s1 was the least recently used (s2 was asked again after it): dropped.
        let (_, _, kept) = pool.usage();
        assert_eq!(kept, MAX_REQUEST_SOURCES);
        let again = pool.get(Some(&specs[1..2]), Duration::ZERO, &never);
        assert!(matches!(again, Err(Unready::Building { .. })), "s1 rebuilt");
        assert!(pool.get(Some(&specs[3..4]), Duration::ZERO, &never).is_ok());
        assert_eq!(
            names(&pool.get(None, Duration::ZERO, &never).unwrap()),
            ["s0"]
        );
        assert!(pool
            .get(Some(&[]), Duration::ZERO, &never)
            .unwrap()
            .is_empty());
    }

    /// A source over a limit fails with its code, and the failure is kept: asked again, it
    /// is answered at once. One whose index would not fit the memory bound fails too; those
    /// that fit push out the least recently used.
    #[test]
    fn sources_over_a_limit_fail_and_the_memory_bound_evicts() {
        let dir = tempfile::tempdir().unwrap();
        let many = source(dir.path(), "many", 30);
        let limits = SourceLimits {
            max_files: 20,
            ..SourceLimits::default()
        };
        let p = pool(Vec::new(), limits);
        let never = || false;
        let failed = |p: &SourcePool, spec: &SourceSpec| match p.get(
            Some(std::slice::from_ref(spec)),
            LONG,
            &never,
        ) {
            Err(Unready::Failed { code, message, .. }) => (code, message),
            other => panic!("{:?}", other.map(|v| names(&v).join(","))),
        };
        let (code, message) = failed(&p, &many);
        assert_eq!(code, "TREE_TOO_LARGE");
        assert!(message.contains("more than 20 files"), "{message}");
        let t = Instant::now();
        assert_eq!(failed(&p, &many).0, "TREE_TOO_LARGE");
        assert!(
            t.elapsed() < Duration::from_millis(100),
            "kept, not rebuilt"
        );

        let small: Vec<SourceSpec> = (0..3)
            .map(|i| source(dir.path(), &format!("small{i}"), 2))
            .collect();
        let one = {
            let p = pool(Vec::new(), SourceLimits::default());
            let got = p.get(Some(&small[..1]), LONG, &never).unwrap();
            estimated_memory(&got[0].index)
        };
        // Room for two of them.
        let limits = SourceLimits {
            memory: one * 2 + one / 2,
            ..SourceLimits::default()
        };
        let p = pool(Vec::new(), limits);
        for s in &small {
            assert!(p.get(Some(std::slice::from_ref(s)), LONG, &never).is_ok());
        }
        let (memory, _, kept) = p.usage();
        assert_eq!(kept, 2);
        assert!(memory <= limits.memory);
        // small0 went first.
        let again = p.get(Some(&small[..1]), Duration::ZERO, &never);
        assert!(matches!(again, Err(Unready::Building { .. })));
        // One that cannot fit at all.
        let p = pool(
            Vec::new(),
            SourceLimits {
                memory: one / 2,
                ..SourceLimits::default()
            },
        );
        let (code, message) = failed(&p, &small[0]);
        assert_eq!(code, "TREE_TOO_LARGE");
        assert!(
            message.contains("all request sources may take"),
            "{message}"
        );
    }

    /// Dropping the pool (or setting its stop flag) ends the build under way at its next
    /// check, and nothing more is built.
    #[test]
    fn a_stopped_pool_builds_nothing_more() {
        let dir = tempfile::tempdir().unwrap();
        let a = source(dir.path(), "a", 1);
        let stop = Arc::new(AtomicBool::new(false));
        let p = SourcePool::start(
            Vec::new(),
            IndexOptions::default(),
            SourceLimits::default(),
            Arc::clone(&stop),
            Box::new(|_| {}),
        );
        stop.store(true, Ordering::SeqCst);
        let got = p.get(Some(&[a]), Duration::from_millis(200), &|| false);
        assert!(matches!(got, Err(Unready::Stopped)), "{:?}", got.err());
    }

    /// The measurement behind `HEAP_PER_SOURCE_BYTE`: each tree of `MAPSCOPE_HEAP_TREES`
    /// (colon-separated) built as a source is (cache off, search index built), with glibc's
    /// in-use heap before and after. `MAPSCOPE_HEAP_TREES=/usr/include:… cargo test --lib
    /// index_heap_per_source_byte -- --ignored --nocapture`
    #[test]
    #[ignore = "a measurement, run by hand"]
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn index_heap_per_source_byte() {
        fn in_use() -> u64 {
            release_free_memory();
            // SAFETY: mallinfo2 only reads the allocator's counters (all arenas).
            let m = unsafe { libc::mallinfo2() };
            (m.uordblks + m.hblkhd) as u64
        }
        let trees = std::env::var("MAPSCOPE_HEAP_TREES").unwrap_or_default();
        for tree in trees.split(':').filter(|t| !t.is_empty()) {
            let before = in_use();
            let index = Index::build(Path::new(tree), &IndexOptions::default()).unwrap();
            let _ = index.search_index();
            let heap = in_use().saturating_sub(before);
            let code: u64 = index.files.iter().map(|f| f.size).sum();
            let docs: u64 = index.docs.iter().map(|d| d.text().len() as u64).sum();
            let n = index.files.len() + index.docs.len();
            println!(
                "{tree}: {n} files, {:.1} MB read, heap {:.1} MB: {:.2} per byte read, \
                 {:.0} per file beyond 2 per byte; estimate {:.1} MB",
                (code + docs) as f64 / 1e6,
                heap as f64 / 1e6,
                heap as f64 / (code + docs) as f64,
                (heap as f64 - 2.0 * (code + docs) as f64) / n as f64,
                estimated_memory(&index) as f64 / 1e6,
            );
        }
    }
}
