//! The live-index service: one repository's index, built in the background from the
//! moment the service starts and kept fresh from the file watcher, answering jobs from the
//! front doors that serve agents and tools (MCP on stdio, HTTP) one at a time, in order.
//!
//! Threads: one engine thread, `mapscope-live-index`, owns the index ([`LiveIndex`]). It
//! builds it at start (so a front door answers its handshake at once and the build overlaps
//! it), then waits for either a job from a caller ([`JobService::run`], from any thread) or
//! a batch of changed files from the watcher (`engine::live::watch`), and refreshes the index
//! incrementally as soon as a batch arrives. A caller that edits a file and asks a moment
//! later finds the index already refreshed; a job that arrives while the watcher holds
//! changes not yet applied (a batch waiting out its debounce, or one being applied) waits
//! for them, up to [`FRESH_WAIT`], and otherwise answers from the last complete index with
//! [`Freshness::changes_pending`]. An index is installed only if the watcher saw no change
//! while it was read, so no answer comes from a mix of two trees (a branch switch half
//! done), as far as the watcher can tell: a writer that pauses longer than the debounce
//! half-way looks finished, and a write is seen once notify's thread has read its event (a
//! job allows `DELIVERY_GRACE` for that). Without a watcher (inotify limit reached) every job
//! re-examines the files by size and modification time. One cache-save policy: the tag
//! cache is saved after each job or batch that built or refreshed the index.
//!
//! Warnings (unreadable ignore files, a degraded watcher, a cache that cannot be saved) go
//! to the sink the front door gives, never to a terminal directly.
//!
//! [`LiveIndex`] is the one home of build, refresh, watching and the cache-save policy.
//! Two loops drive it: [`JobService`] here (jobs answered one at a time, in order, for
//! callers that wait: MCP, HTTP) and [`session`] (latest-wins requests from an interactive
//! front door that must never wait: the TUI), each on its own engine thread.
//!
//! A [`JobService`]'s extra sources (those it was started with, and the roots requests
//! name) are built by its [`source_pool`], on a thread of their own, never on the engine
//! thread: a caller first gets the sources it selects (or why they are not ready, at once),
//! then runs its job on the engine thread with them.

pub mod session;
pub mod session_index;
pub mod source_pool;
pub mod watch;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{never, select, Receiver, Sender};

use crate::engine::base::error::EngineError;
use crate::engine::base::text::sanitize_line;
use crate::engine::index::{BuildProgress, Index, IndexOptions};
use crate::engine::ingest::history::HistorySource;
use crate::engine::live::watch::{ChangeBatch, WatchOptions, Watcher};
use crate::engine::search::sources::SourceSpec;

use source_pool::{SourcePool, Unready};

/// How long the service still works once its front door is shutting down (MCP's input
/// closed, HTTP's Ctrl-C): jobs sent before that are answered if the engine answers them
/// within this, and the engine thread gets this long to finish (its cache save). Then the
/// process exits, whatever the engine thread is doing (an index build stuck in a slow file
/// system, a `git` that does not answer).
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// How long a job waits for changes the watcher has seen (a batch waiting out its
/// debounce, a branch switch still being written) to be applied. Past it, the job answers
/// from the last complete index and says `changes_pending: true`.
pub const FRESH_WAIT: Duration = Duration::from_secs(2);

/// How long a refresh started by a watcher batch waits for the tree to settle; past it, the
/// changes stay pending for the next batch or call.
pub(crate) const BACKGROUND_WAIT: Duration = Duration::from_millis(250);

/// How often a waiting call looks whether the watcher has settled.
const SETTLE_POLL: Duration = Duration::from_millis(5);

/// The watcher sees an event once notify's thread has read it from the kernel, a scheduling
/// delay after the write that caused it: a call gives writes made just before it this long
/// to show up before it trusts a quiet watcher.
const DELIVERY_GRACE: Duration = Duration::from_millis(2);

/// Where the service's warnings go (the front door prints them on stderr, or logs them).
pub type WarningSink = Box<dyn Fn(&str) + Send>;

/// How the index a job answers from was brought up to date.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Freshness {
    /// Milliseconds spent bringing it up to date (waiting for the watcher included).
    pub index_ms: f64,
    /// The watcher had changes that could not be applied within `FRESH_WAIT`: the index is
    /// the last complete one, from before them.
    pub changes_pending: bool,
}

/// An extra source's index (`--source NAME=PATH`, or a root a request names): read-only
/// reference code searched after the project. A service's are built by its `source_pool`;
/// the TUI's on the first search after the session starts or re-indexes. Not watched.
pub struct SourceIndex {
    pub name: String,
    pub root: PathBuf,
    pub index: Index,
}

/// Why a job got no answer from the engine thread.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ServiceError {
    #[error("the engine thread stopped (see stderr)")]
    Stopped,
    #[error("shutting down and the index was not ready in time")]
    ShuttingDown,
    /// A source the job selects is not built (yet): the job was not run.
    #[error("{}", .0.message())]
    Source(Unready),
}

/// The first build's last progress report while it runs (`None` before and after): front
/// doors read it without waiting for the engine thread (MCP's progress notifications, HTTP
/// `/stats` saying the index is still building).
pub type BuildStatus = Arc<std::sync::Mutex<Option<BuildProgress>>>;

/// What the engine thread runs: a caller's job, given the live index.
type Job = Box<dyn FnOnce(&mut LiveIndex) + Send>;

/// The engine thread and the channel its jobs go through. `run` may be called from any
/// thread (the HTTP front door's workers share one service).
pub struct JobService {
    jobs: Option<Sender<Job>>,
    thread: Option<JoinHandle<()>>,
    /// Disconnected when the engine thread ends.
    done: Receiver<()>,
    /// Disconnected when the front door is shutting down (see `shutdown_on`); never, until
    /// then.
    shutdown: Receiver<()>,
    /// Shutting down and the engine did not answer within `SHUTDOWN_GRACE`: later jobs do
    /// not wait for it again.
    abandoned: AtomicBool,
    building: BuildStatus,
    /// The extra sources, built on their own thread.
    sources: SourcePool,
    /// How long the drop waits for the engine thread (`SHUTDOWN_GRACE` unless set).
    grace: Duration,
}

impl JobService {
    /// Starts the engine thread on the index of `root`: the first build at once, then jobs
    /// and watcher batches. `live`: watch the files and refresh the index as they change
    /// (off for a fixed index, as in tests). No extra sources but those requests name,
    /// within the default limits.
    pub fn start(root: PathBuf, opts: IndexOptions, live: bool, warn: WarningSink) -> JobService {
        let sources = SourcePool::start(
            Vec::new(),
            opts.clone(),
            source_pool::SourceLimits::default(),
            Arc::new(AtomicBool::new(false)),
            Box::new(|_| {}),
        );
        JobService::start_with(LiveIndex::new(root, opts, live, warn), sources)
    }

    /// Starts the engine thread on a prepared [`LiveIndex`] (tests set its watcher options),
    /// with the extra sources of `sources`.
    pub fn start_with(live: LiveIndex, sources: SourcePool) -> JobService {
        let building = Arc::clone(&live.building);
        if let Ok(mut b) = building.lock() {
            *b = Some(BuildProgress {
                phase: crate::engine::index::BuildPhase::Walk,
                done: 0,
                total: 0,
            });
        }
        let (jobs, inbox) = crossbeam_channel::unbounded();
        let (done_tx, done) = crossbeam_channel::bounded::<()>(0);
        let thread = std::thread::Builder::new()
            .name("mapscope-live-index".into())
            .spawn(move || {
                let _done = done_tx;
                engine_loop(live, inbox);
            })
            .ok();
        JobService {
            jobs: Some(jobs),
            thread,
            done,
            shutdown: never(),
            abandoned: AtomicBool::new(false),
            building,
            sources,
            grace: SHUTDOWN_GRACE,
        }
    }

    /// The first build's progress while it runs; `None` once it is done (or failed).
    pub fn building(&self) -> Option<BuildProgress> {
        self.building.lock().ok().and_then(|b| *b)
    }

    /// From when `signal` disconnects, jobs get `SHUTDOWN_GRACE` to be answered.
    pub fn shutdown_on(&mut self, signal: Receiver<()>) {
        self.shutdown = signal;
    }

    /// How long the drop waits for the engine thread to finish (its cache save) before it
    /// is left to the process exit: a front door that must stop within a bound sets less
    /// than `SHUTDOWN_GRACE`.
    pub fn set_stop_grace(&mut self, grace: Duration) {
        self.grace = grace;
    }

    /// Runs `job` on the engine thread, on the index of the files as they are now (or the
    /// error that keeps it from being built: a missing or empty repository, with its stable
    /// code), and returns its result.
    pub fn run<T: Send + 'static>(
        &self,
        job: impl FnOnce(Result<(&Index, Freshness), EngineError>) -> T + Send + 'static,
    ) -> Result<T, ServiceError> {
        self.run_on(move |live| live.answer(job))
    }

    /// Like `run`, after reading every file again from scratch (`POST /index`): the tag
    /// cache still spares the parse of files whose size and modification time are unchanged.
    /// The configured sources are built again too, and the request sources dropped.
    pub fn run_rebuilt<T: Send + 'static>(
        &self,
        job: impl FnOnce(Result<(&Index, Freshness), EngineError>) -> T + Send + 'static,
    ) -> Result<T, ServiceError> {
        self.sources.forget();
        self.run_on(move |live| {
            live.forget_index();
            live.answer(job)
        })
    }

    /// The indexes of the extra sources `selected` names (`None`: those the service was
    /// started with, less any that failed), waiting up to `wait` for builds under way (a
    /// source not known yet is queued now); else which one is not ready and why. Runs on
    /// the caller's thread, not the engine's.
    pub fn sources(
        &self,
        selected: Option<&[SourceSpec]>,
        wait: Duration,
    ) -> Result<Vec<Arc<SourceIndex>>, Unready> {
        let closing = || {
            matches!(
                self.shutdown.try_recv(),
                Err(crossbeam_channel::TryRecvError::Disconnected)
            )
        };
        self.sources.get(selected, wait, &closing)
    }

    /// Like `run`, with the extra sources `sources` (from `sources`), in that order.
    pub fn run_with_sources<T: Send + 'static>(
        &self,
        sources: Vec<Arc<SourceIndex>>,
        job: impl FnOnce(Result<(&Index, Freshness), EngineError>, &[&SourceIndex]) -> T
            + Send
            + 'static,
    ) -> Result<T, ServiceError> {
        self.run_on(move |live| {
            let chosen: Vec<&SourceIndex> = sources.iter().map(AsRef::as_ref).collect();
            live.answer(|current| job(current, &chosen))
        })
    }

    /// `sources` then `run_with_sources`: `ServiceError::Source` when a selected source is
    /// not ready within `wait`.
    pub fn run_selected<T: Send + 'static>(
        &self,
        selected: Option<Vec<SourceSpec>>,
        wait: Duration,
        job: impl FnOnce(Result<(&Index, Freshness), EngineError>, &[&SourceIndex]) -> T
            + Send
            + 'static,
    ) -> Result<T, ServiceError> {
        let sources = self
            .sources(selected.as_deref(), wait)
            .map_err(ServiceError::Source)?;
        self.run_with_sources(sources, job)
    }

    fn run_on<T: Send + 'static>(
        &self,
        job: impl FnOnce(&mut LiveIndex) -> T + Send + 'static,
    ) -> Result<T, ServiceError> {
        let (reply, answer) = crossbeam_channel::bounded(1);
        let wrapped: Job = Box::new(move |live| {
            let _ = reply.send(job(live));
        });
        let sent = self
            .jobs
            .as_ref()
            .is_some_and(|jobs| jobs.send(wrapped).is_ok());
        if !sent {
            return Err(ServiceError::Stopped);
        }
        if self.abandoned.load(Ordering::Relaxed) {
            return Err(ServiceError::ShuttingDown);
        }
        select! {
            recv(answer) -> a => a.map_err(|_| ServiceError::Stopped),
            recv(self.shutdown) -> _ => match answer.recv_timeout(SHUTDOWN_GRACE) {
                Ok(a) => Ok(a),
                Err(crossbeam_channel::RecvTimeoutError::Disconnected) => Err(ServiceError::Stopped),
                Err(crossbeam_channel::RecvTimeoutError::Timeout) => {
                    self.abandoned.store(true, Ordering::Relaxed);
                    Err(ServiceError::ShuttingDown)
                }
            },
        }
    }
}

impl Drop for JobService {
    /// The front door is done: the engine thread finishes its work (a cache save) and
    /// stops, or is left behind after `SHUTDOWN_GRACE` (the process exit ends it).
    fn drop(&mut self) {
        drop(self.jobs.take());
        let grace = if self.abandoned.load(Ordering::Relaxed) {
            Duration::ZERO
        } else {
            self.grace
        };
        if let Err(crossbeam_channel::RecvTimeoutError::Timeout) = self.done.recv_timeout(grace) {
            return;
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The engine thread: the first build, then jobs and watcher batches as they come.
fn engine_loop(mut live: LiveIndex, inbox: Receiver<Job>) {
    live.first_build();
    loop {
        let changes = live
            .watcher
            .as_ref()
            .map_or_else(never, |w| w.changes().clone());
        select! {
            recv(inbox) -> job => {
                let Ok(job) = job else { break };
                job(&mut live);
            }
            recv(changes) -> batch => match batch {
                Ok(batch) => {
                    live.pending.merge(batch);
                    // A failed refresh is reported by the next job, which retries. The
                    // search index is rebuilt now too, not by the next search.
                    if let Ok((index, _)) = live.current(BACKGROUND_WAIT) {
                        let _ = index.search_index();
                    }
                }
                // The watcher stopped: from now on each job re-examines the files.
                Err(_) => {
                    live.watcher = None;
                    live.rescan_each_call = true;
                }
            },
        }
        live.save_cache();
    }
}

/// The index of one repository, kept fresh from the watcher's reports. Lives on the
/// engine thread.
pub struct LiveIndex {
    root: PathBuf,
    opts: IndexOptions,
    live: bool,
    index: Option<Arc<Index>>,
    /// Changes reported by the watcher and not yet applied.
    pending: ChangeBatch,
    /// The index was built or refreshed since the tag cache was last saved.
    unsaved: bool,
    pub watcher: Option<Watcher>,
    /// Live updates were asked for but no watcher runs: re-examine every file per call.
    pub rescan_each_call: bool,
    /// The warnings already said (`Index::warnings`).
    warned: std::collections::HashSet<String>,
    /// The watcher's debounce (tests lengthen it).
    pub watch_opts: WatchOptions,
    warn: WarningSink,
    /// Extra sources searched after the project, and their indexes once built.
    sources: Vec<SourceSpec>,
    source_indexes: Option<Vec<SourceIndex>>,
    /// Where build and refresh progress goes (the TUI's gauge); none for the agents' doors.
    pub progress: Option<Sender<BuildProgress>>,
    /// The cache save in progress, on a thread of its own so that the next request (a
    /// query typed right after a refresh) does not wait for the write. At most one runs.
    saving: Option<JoinHandle<Result<bool, EngineError>>>,
    /// The first build's progress, shared with `JobService::building`.
    building: BuildStatus,
}

impl LiveIndex {
    pub fn new(root: PathBuf, opts: IndexOptions, live: bool, warn: WarningSink) -> LiveIndex {
        LiveIndex {
            root,
            opts,
            live,
            index: None,
            pending: ChangeBatch::default(),
            unsaved: false,
            watcher: None,
            rescan_each_call: false,
            warned: std::collections::HashSet::new(),
            watch_opts: WatchOptions::default(),
            warn,
            sources: Vec::new(),
            source_indexes: None,
            progress: None,
            saving: None,
            building: BuildStatus::default(),
        }
    }

    /// Also index these read-only roots (already checked by `sources::check_sources`), for
    /// the TUI's session (`source_indexes`); a service's are its `SourcePool`'s.
    pub fn with_sources(mut self, sources: Vec<SourceSpec>) -> LiveIndex {
        self.sources = sources;
        self
    }

    /// Runs a caller's job on the index of the files as they are now.
    fn answer<T>(&mut self, job: impl FnOnce(Result<(&Index, Freshness), EngineError>) -> T) -> T {
        let t = Instant::now();
        let index_ms = || t.elapsed().as_secs_f64() * 1000.0;
        let current = self.bring_up_to_date(t + FRESH_WAIT);
        match (current, self.index.as_ref()) {
            (Ok(changes_pending), Some(index)) => {
                let freshness = Freshness {
                    index_ms: index_ms(),
                    changes_pending,
                };
                job(Ok((index.as_ref(), freshness)))
            }
            (Ok(_), None) => job(Err(unreachable_index())),
            (Err(e), _) => job(Err(e)),
        }
    }

    /// The configured sources' indexes, built on the first call (and after `forget_index`).
    pub fn source_indexes(&mut self) -> &[SourceIndex] {
        if self.source_indexes.is_none() {
            self.source_indexes = Some(self.build_sources());
        }
        self.source_indexes.as_deref().unwrap_or(&[])
    }

    /// The extra sources' indexes, each with the project's options but no history; one that
    /// cannot be built is left out with a warning.
    fn build_sources(&self) -> Vec<SourceIndex> {
        let opts = IndexOptions {
            history: HistorySource::Off,
            ..self.opts.clone()
        };
        self.sources
            .iter()
            .filter_map(|spec| match Index::build(&spec.path, &opts) {
                Ok(index) => {
                    if let Err(e) = index.save_cache() {
                        (self.warn)(&format!(
                            "could not save the cache of source `{}`: {e}",
                            spec.name
                        ));
                    }
                    Some(SourceIndex {
                        name: spec.name.clone(),
                        root: spec.path.clone(),
                        index,
                    })
                }
                Err(e) => {
                    (self.warn)(&format!("source `{}` left out: {e}", spec.name));
                    None
                }
            })
            .collect()
    }

    /// Starts the watcher (first, so that nothing written during the build is lost), builds
    /// the index and its search index. A failure is kept for the first tool call to retry.
    pub fn first_build(&mut self) {
        self.start_watching();
        if let Ok(index) = self.build_index() {
            // Searched soon, most likely: the search index is built while the client is
            // still starting up rather than on the first query.
            let _ = index.search_index();
            self.install(index);
        }
        if let Ok(mut b) = self.building.lock() {
            *b = None;
        }
        self.save_cache();
    }

    /// Starts the watcher when live updates were asked for and none runs (first, before a
    /// build, so that nothing written during the build is lost). Said once on failure.
    pub fn start_watching(&mut self) {
        if self.live && self.watcher.is_none() && !self.rescan_each_call {
            match Watcher::start(&self.root, self.watch_opts.clone()) {
                Ok(w) => self.watcher = Some(w),
                Err(e) => {
                    if self.root.is_dir() {
                        (self.warn)(&format!(
                            "live updates off, files re-examined per call: {e}"
                        ));
                    }
                    self.rescan_each_call = true;
                }
            }
        }
    }

    /// Reads every file again at the next `current` (a user's rebuild, `POST /index`); the
    /// tag cache still spares the parse of files whose size and modification time are
    /// unchanged.
    pub fn forget_index(&mut self) {
        self.index = None;
        self.source_indexes = None;
    }

    /// Changes a front door learnt of itself (the TUI's own watcher forwarding, a refresh
    /// asked for by path): applied by the next `current`.
    pub fn add_changes(&mut self, batch: ChangeBatch) {
        self.pending.merge(batch);
    }

    /// The watcher's batches, for a loop that waits on them beside its requests.
    pub fn watcher_changes(&self) -> Option<Receiver<ChangeBatch>> {
        self.watcher.as_ref().map(|w| w.changes().clone())
    }

    /// The index last installed, if any, without bringing it up to date.
    pub fn last_index(&self) -> Option<&Arc<Index>> {
        self.index.as_ref()
    }

    /// A full build of the tree, reporting progress when a sink is set.
    fn build_index(&self) -> Result<Index, EngineError> {
        let (tx, building) = (&self.progress, &self.building);
        Index::build_with_progress(&self.root, &self.opts, &|p| {
            if let Some(tx) = tx {
                let _ = tx.send(p);
            }
            if let Ok(mut b) = building.lock() {
                if b.is_some() {
                    *b = Some(p);
                }
            }
        })
    }

    /// The index of the files as they are now, waiting up to `wait` for the changes the
    /// watcher holds; with `true` when some could not be applied in that time (the index is
    /// then the last complete one).
    pub fn current(&mut self, wait: Duration) -> Result<(&Arc<Index>, bool), EngineError> {
        let pending = self.bring_up_to_date(Instant::now() + wait)?;
        let index = self.index.as_ref().ok_or_else(unreachable_index)?;
        Ok((index, pending))
    }

    /// A new index replaces the old one; its tags are saved after the answer.
    fn install(&mut self, index: Index) {
        // Each refresh walks again and finds the same unreadable ignore files: each warning
        // is said once.
        for warning in index.warnings() {
            if self.warned.insert(warning.to_string()) {
                (self.warn)(&sanitize_line(warning));
            }
        }
        self.index = Some(Arc::new(index));
        self.unsaved = true;
    }

    /// Applies the changes the watcher reported, once it has settled (nothing seen and not
    /// yet sent), and installs the result only if the watcher saw nothing change while the
    /// tree was read: otherwise the result may mix two trees, so the last complete index
    /// stays and the changes are applied again with the later ones. Returns true when
    /// `deadline` came first and changes remain pending.
    fn bring_up_to_date(&mut self, deadline: Instant) -> Result<bool, EngineError> {
        if self.watcher.is_some() {
            std::thread::sleep(DELIVERY_GRACE);
        }
        loop {
            let mark = match &self.watcher {
                Some(w) if !wait_settled(w, deadline) => return Ok(true),
                Some(w) => Some(w.seen()),
                None => None,
            };
            let mut changes = std::mem::take(&mut self.pending);
            changes.merge(self.drain_changes());
            for warning in std::mem::take(&mut changes.warnings) {
                (self.warn)(&sanitize_line(&warning));
            }
            if let Some(why) = changes.error.take() {
                (self.warn)(&format!("watching degraded: {why}"));
            }
            let candidate = match &self.index {
                // No index yet (the last build failed: an empty repository that may have
                // got its first file since): build from scratch.
                None => self.build_index()?,
                Some(_) if changes.has_no_changes() && !self.rescan_each_call => return Ok(false),
                // `refresh` re-walks the tree and recognises unchanged files by size and
                // mtime, so a rescan needs no list of paths; the listed ones are re-read
                // whatever their mtime.
                Some(previous) => match previous.refresh(&self.opts, &changes.paths, &|p| {
                    if let Some(tx) = &self.progress {
                        let _ = tx.send(p);
                    }
                }) {
                    Ok(index) => index,
                    Err(e) => {
                        // The repository went away or lost its last file: report it, and
                        // build from scratch next time.
                        self.index = None;
                        return Err(e);
                    }
                },
            };
            let unchanged = match (&self.watcher, mark) {
                (Some(w), Some(mark)) => wait_settled(w, deadline) && w.seen() == mark,
                _ => true,
            };
            if unchanged {
                self.install(candidate);
                return Ok(false);
            }
            // The tree changed while it was read. With no index at all, this one is better
            // than none (and said to be pending).
            if self.index.is_none() {
                self.install(candidate);
            }
            self.pending.merge(changes);
            if Instant::now() >= deadline {
                return Ok(true);
            }
        }
    }

    fn drain_changes(&self) -> ChangeBatch {
        let mut batch = ChangeBatch::default();
        if let Some(watcher) = &self.watcher {
            for later in watcher.changes().try_iter() {
                batch.merge(later);
            }
        }
        batch
    }

    /// The one cache-save policy: after a build or refresh installed a new index, its tags
    /// are saved on a thread of their own, after the previous save has finished (two writers
    /// would race for the same cache file). A failed save only costs the next start its
    /// speed: it is said, and work goes on.
    pub fn save_cache(&mut self) {
        self.finish_save(false);
        if !std::mem::take(&mut self.unsaved) {
            return;
        }
        let Some(index) = self.index.clone() else {
            return;
        };
        self.finish_save(true);
        let saver = Arc::clone(&index);
        match std::thread::Builder::new()
            .name("mapscope-cache-save".into())
            .spawn(move || saver.save_cache())
        {
            Ok(handle) => self.saving = Some(handle),
            // No thread to be had: save here rather than not at all.
            Err(_) => self.report_save(Ok(index.save_cache())),
        }
    }

    /// Reports the background save's outcome once it is done; with `wait`, waits for it.
    fn finish_save(&mut self, wait: bool) {
        if self
            .saving
            .as_ref()
            .is_some_and(|h| wait || h.is_finished())
        {
            if let Some(handle) = self.saving.take() {
                self.report_save(handle.join());
            }
        }
    }

    fn report_save(&self, outcome: std::thread::Result<Result<bool, EngineError>>) {
        match outcome {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => (self.warn)(&format!("could not save the cache: {e}")),
            Err(_) => (self.warn)("could not save the cache: the save failed"),
        }
    }
}

impl Drop for LiveIndex {
    /// The front door is done: the cache still gets written.
    fn drop(&mut self) {
        self.finish_save(true);
    }
}

/// Waits until the watcher holds no change it has not sent; false if `deadline` comes first.
fn wait_settled(watcher: &Watcher, deadline: Instant) -> bool {
    loop {
        if !watcher.settling() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(SETTLE_POLL);
    }
}

fn unreachable_index() -> EngineError {
    EngineError::Internal("the index was just set".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Files keep changing (a checkout longer than the wait): a job answers from the
    /// last complete index and says so; once the tree is quiet, the answer is fresh.
    #[test]
    fn a_call_that_cannot_wait_out_the_changes_answers_from_the_last_complete_index() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.py"), "def a():\n    return 1\n").unwrap();
        let mut live = LiveIndex::new(
            dir.path().to_path_buf(),
            IndexOptions::default(),
            true,
            Box::new(|_| {}),
        );
        // A debounce longer than the call's wait: the writes below cannot be applied in it.
        live.watch_opts.debounce = Duration::from_secs(1);
        live.first_build();
        assert!(live.watcher.is_some());
        let (index, pending) = live.current(FRESH_WAIT).unwrap();
        assert_eq!((index.files.len(), pending), (1, false));
        for i in 0..50 {
            let text = format!("def f{i}():\n    return {i}\n");
            std::fs::write(dir.path().join(format!("f{i}.py")), text).unwrap();
        }
        // What this test is about starts once the watcher has seen them (notify reads the
        // kernel's events on a thread of its own, a moment later).
        let seen = Instant::now();
        let watcher = live.watcher.as_ref().unwrap();
        while !watcher.settling() && watcher.changes().is_empty() {
            assert!(
                seen.elapsed() < Duration::from_secs(10),
                "the writes are seen"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        let t = Instant::now();
        let (index, pending) = live.current(Duration::from_millis(200)).unwrap();
        assert!(
            t.elapsed() < Duration::from_millis(900),
            "bounded: {:?}",
            t.elapsed()
        );
        assert_eq!((index.files.len(), pending), (1, true));
        let (index, pending) = live.current(Duration::from_secs(20)).unwrap();
        assert_eq!((index.files.len(), pending), (51, false));
    }

    #[test]
    fn jobs_run_in_order_from_several_threads_and_see_one_index() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.py"), "def a():\n    return 1\n").unwrap();
        let service = std::sync::Arc::new(JobService::start(
            dir.path().to_path_buf(),
            IndexOptions::default(),
            false,
            Box::new(|_| {}),
        ));
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let service = std::sync::Arc::clone(&service);
                std::thread::spawn(move || {
                    service
                        .run(|current| current.map(|(index, _)| index.files.len()))
                        .unwrap()
                        .unwrap()
                })
            })
            .collect();
        for h in handles {
            assert_eq!(h.join().unwrap(), 1);
        }
        // A rebuild reads the files again, even without a watcher.
        std::fs::write(dir.path().join("b.py"), "def b():\n    return 2\n").unwrap();
        let n = service
            .run_rebuilt(|current| current.map(|(index, _)| index.files.len()))
            .unwrap()
            .unwrap();
        assert_eq!(n, 2);
    }

    #[test]
    fn an_empty_repository_is_the_job_error() {
        let dir = tempfile::tempdir().unwrap();
        let service = JobService::start(
            dir.path().to_path_buf(),
            IndexOptions::default(),
            false,
            Box::new(|_| {}),
        );
        let code = service
            .run(|current| current.err().map(|e| e.code()))
            .unwrap();
        assert_eq!(code, Some("REPO_EMPTY"));
    }
}
