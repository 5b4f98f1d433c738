//! An interactive session with the live index (the TUI's): requests, events, published
//! snapshots and the handle that runs an `SessionEngine` either on an engine thread or
//! inline (tests, where every request is answered before `send` returns — no sleeps, no
//! timing). The snapshots carry engine data; the front door turns them into view models.
//!
//! Threading: the engine thread `mapscope-engine` owns the service (and through it the
//! [`LiveIndex`](super::LiveIndex)). It merges queued requests (newest of each kind wins),
//! forwards the watcher's batches, runs each request under `catch_unwind` (a panic becomes
//! `EngineEvent::Failed`), publishes results as immutable, generation-tagged `Arc`
//! snapshots through `arc-swap`, and sends only small events. The caller never blocks on
//! it: it loads the latest snapshot lock-free when an event says one is ready.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use arc_swap::ArcSwapOption;
use crossbeam_channel::{never, select, Receiver, Sender};

use crate::engine::index::explain::FileExplanation;
use crate::engine::index::refs::{RefTarget, RefsAnswer, RefsError};
use crate::engine::live::watch::{ChangeBatch, WatchMode};
use crate::engine::rank::repo_map::CutDef;
use crate::engine::search::{Confidence, SearchHit};

/// Requests and results are numbered; a result tagged with an older number than the newest
/// request of its kind is stale.
pub type Generation = u64;

/// What shapes the map: the parts of a `MapRequest` an interactive session changes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MapParams {
    pub budget: usize,
    /// "o200k" or "cl100k".
    pub tokenizer: String,
    pub focus: Vec<String>,
    /// Identifiers whose definitions go first (`mapscope . --ident NAME`).
    pub idents: Vec<String>,
    /// The query box's text (its identifiers and words personalize the ranking).
    pub query: String,
    pub exclude_files: Vec<String>,
    pub exclude_symbols: Vec<String>,
    /// Which files the map ranks and shows (the config's `[scope]`).
    pub scope: crate::engine::base::scope::ScopeSpec,
}

#[derive(Debug, Clone, PartialEq)]
pub enum EngineRequest {
    /// (Re)build the index.
    Build { generation: Generation },
    /// Files changed on disk (repo-relative paths, from the watcher): re-parse those, take
    /// over the rest, relink. Queued refreshes merge (their paths are united).
    Refresh {
        generation: Generation,
        changed: BTreeSet<String>,
    },
    Map {
        generation: Generation,
        params: MapParams,
    },
    Search {
        generation: Generation,
        query: String,
    },
    Why {
        generation: Generation,
        path: String,
        params: MapParams,
    },
    /// The map as markdown fitted to the budget as markdown (for a copy): asked for only
    /// when the user copies it, so typing never pays for the extra fits.
    Markdown {
        generation: Generation,
        params: MapParams,
    },
    /// Who uses the definitions the targets name, and what they use (`index::refs`): the
    /// selected hit's definition, or the map file's definitions shown in the map. Answered
    /// as a `RefsSnapshot`.
    Refs {
        generation: Generation,
        targets: Vec<RefTarget>,
    },
}

/// Kinds of request, each with one pending slot.
const SLOTS: usize = 6;

impl EngineRequest {
    fn slot(&self) -> usize {
        match self {
            EngineRequest::Build { .. } | EngineRequest::Refresh { .. } => 0,
            EngineRequest::Search { .. } => 1,
            EngineRequest::Map { .. } => 2,
            EngineRequest::Why { .. } => 3,
            EngineRequest::Markdown { .. } => 4,
            EngineRequest::Refs { .. } => 5,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum EngineEvent {
    /// Indexing progress (sent at most every ~50 ms by a real service).
    Progress {
        phase: &'static str,
        done: usize,
        total: usize,
    },
    /// A new `IndexSnapshot` is published.
    IndexReady {
        generation: Generation,
    },
    /// The build failed (bad path, empty repo): shown in the UI.
    IndexFailed {
        generation: Generation,
        code: &'static str,
        message: String,
    },
    MapReady {
        generation: Generation,
    },
    HitsReady {
        generation: Generation,
    },
    /// A `RefsSnapshot` is published.
    RefsReady {
        generation: Generation,
    },
    WhyReady {
        generation: Generation,
        why: Box<WhyData>,
    },
    /// The answer to `EngineRequest::Markdown`: the markdown and its exact token count.
    MarkdownReady {
        generation: Generation,
        text: String,
        tokens: usize,
    },
    /// Something the user should know that is not a failure of their request (e.g. the
    /// tag cache was corrupt and got rebuilt). Already sanitised.
    Notice(String),
    /// The watcher runs, learning of changes this way (events, or polling when out of
    /// inotify watches).
    Watching(WatchMode),
    /// Live updates are off or degraded, and why (already sanitised).
    NotWatching(String),
    /// The watcher saw these files change (repo-relative; `rescan`: every file may have).
    /// The front door counts them as pending and asks for a `Refresh`.
    FilesChanged {
        paths: BTreeSet<String>,
        rescan: bool,
    },
    /// A request failed or the worker panicked while answering it; the UI keeps running.
    Failed {
        what: &'static str,
        message: String,
    },
}

/// What the UI knows about a built index.
#[derive(Debug, Clone)]
pub struct IndexSnapshot {
    pub generation: Generation,
    pub root: String,
    pub files: usize,
    pub docs: usize,
    pub symbols: usize,
    pub built_at: Instant,
    pub build_ms: f64,
    /// Text of every indexed file (code and docs), by repo-relative path, for the preview;
    /// an extra source's files under `NAME:path` (see `source_key`).
    pub texts: BTreeMap<String, Arc<str>>,
    /// The extra sources (`[sources]` in the config): name and root.
    pub sources: Vec<(String, std::path::PathBuf)>,
}

/// One file of the map.
#[derive(Debug, Clone, PartialEq)]
pub struct MapFile {
    pub path: String,
    pub rank: f64,
    pub tokens: usize,
    /// Line of the map text where the file's header is.
    pub header_line: usize,
    /// The first line of each definition of the file the map shows, in source order (what
    /// the file's callers and callees are asked for).
    pub def_lines: Vec<u32>,
    /// A source file without a grammar, shown by its path alone (`repo_map::MapFile::lang`).
    pub path_only: bool,
}

/// A fitted map.
#[derive(Debug, Clone)]
pub struct MapSnapshot {
    pub generation: Generation,
    pub params: MapParams,
    /// Exactly what `mapscope map` prints (the text format).
    pub text: String,
    pub tokens: usize,
    pub files: Vec<MapFile>,
    /// The budget the map was fitted to.
    pub budget: usize,
    /// The best-ranked definitions that did not fit (at most `CUT_ROWS`).
    pub cut: Vec<CutDef>,
    pub fit_ms: f64,
}

#[derive(Debug, Clone)]
pub struct HitsSnapshot {
    pub generation: Generation,
    pub query: String,
    pub hits: Vec<SearchHit>,
    /// Each extra source's hits, after the project's, in the sources' order.
    pub source_hits: Vec<(String, Vec<SearchHit>)>,
    pub confidence: Confidence,
    pub low_score: bool,
    /// One-sentence extractive answer (`engine::answer`, concise), shown above the hits.
    pub answer: String,
    pub latency_ms: f64,
    /// The text of each hit's file that the index does not hold (a generated file a
    /// look-up read: `Index::generated_text`), for the preview.
    pub texts: BTreeMap<String, Arc<str>>,
}

/// The answer to `EngineRequest::Refs`: callers and callees, or why there are none
/// (`NOT_FOUND`: no definition there).
#[derive(Debug, Clone)]
pub struct RefsSnapshot {
    pub generation: Generation,
    pub targets: Vec<RefTarget>,
    pub answer: Result<RefsAnswer, RefsError>,
}

/// Use sites the TUI asks for per section and definition (the pane scrolls).
pub const TOP_REFS: usize = 100;

/// How an extra source's file is named beside the project's: `NAME:path` (a source name is
/// letters, digits, `-` and `_`), in the preview's texts and in the hits a front door shows.
pub fn source_key(source: &str, path: &str) -> String {
    format!("{source}:{path}")
}

/// Why one file ranks where it does (the `w` overlay): the map's explanation and the files
/// that point at it.
#[derive(Debug, Clone, PartialEq)]
pub struct WhyData {
    pub explained: FileExplanation,
    /// Files that use this one, heaviest edge first.
    pub incoming: Vec<IncomingEdge>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct IncomingEdge {
    pub path: String,
    pub weight: f64,
    /// Identifiers through which `path` uses the file, heaviest first (at most 8).
    pub idents: Vec<String>,
}

/// The latest results, loaded lock-free by the caller.
#[derive(Default)]
pub struct Published {
    pub index: ArcSwapOption<IndexSnapshot>,
    pub map: ArcSwapOption<MapSnapshot>,
    pub hits: ArcSwapOption<HitsSnapshot>,
    pub refs: ArcSwapOption<RefsSnapshot>,
}

impl Published {
    /// Stores `new` unless what is there is newer (a late answer to an old request).
    pub fn store_map(&self, new: MapSnapshot) -> bool {
        store_if_newer(&self.map, new, |m| m.generation)
    }
    pub fn store_hits(&self, new: HitsSnapshot) -> bool {
        store_if_newer(&self.hits, new, |h| h.generation)
    }
    pub fn store_index(&self, new: IndexSnapshot) -> bool {
        store_if_newer(&self.index, new, |i| i.generation)
    }
    pub fn store_refs(&self, new: RefsSnapshot) -> bool {
        store_if_newer(&self.refs, new, |r| r.generation)
    }
}

fn store_if_newer<T>(
    slot: &ArcSwapOption<T>,
    new: T,
    generation: impl Fn(&T) -> Generation,
) -> bool {
    let g = generation(&new);
    if slot.load().as_ref().is_some_and(|old| generation(old) > g) {
        return false;
    }
    slot.store(Some(Arc::new(new)));
    true
}

/// The engine as the app sees it. Implementations answer one request at a time, publishing
/// results in `published` and reporting through `emit`.
pub trait SessionEngine: Send {
    fn handle(
        &mut self,
        req: EngineRequest,
        published: &Published,
        emit: &mut dyn FnMut(EngineEvent),
    );

    /// The watcher's batches, once a watcher runs: the engine thread waits on them beside
    /// the requests and hands each to `on_changes`.
    fn changes(&self) -> Option<Receiver<ChangeBatch>> {
        None
    }

    /// A batch from the watcher (`None`: the watcher stopped).
    fn on_changes(&mut self, _batch: Option<ChangeBatch>, _emit: &mut dyn FnMut(EngineEvent)) {}
}

enum Mode {
    Threaded {
        tx: Option<Sender<EngineRequest>>,
        join: Option<JoinHandle<()>>,
    },
    Inline {
        service: Box<dyn SessionEngine>,
        queue: VecDeque<EngineEvent>,
    },
}

/// The app's handle on the engine.
pub struct SessionHandle {
    pub published: Arc<Published>,
    mode: Mode,
}

impl SessionHandle {
    /// Runs `service` on a worker thread; events go to `events`.
    pub fn spawn(service: Box<dyn SessionEngine>, events: Sender<EngineEvent>) -> SessionHandle {
        let published = Arc::new(Published::default());
        let (tx, rx) = crossbeam_channel::unbounded();
        let p = published.clone();
        let join = std::thread::Builder::new()
            .name("mapscope-engine".into())
            .spawn(move || worker_loop(service, rx, &p, &events))
            .ok();
        SessionHandle {
            published,
            mode: Mode::Threaded { tx: Some(tx), join },
        }
    }

    /// Answers every request synchronously inside `send`; events wait in `take_events`.
    pub fn inline(service: Box<dyn SessionEngine>) -> SessionHandle {
        SessionHandle {
            published: Arc::new(Published::default()),
            mode: Mode::Inline {
                service,
                queue: VecDeque::new(),
            },
        }
    }

    pub fn send(&mut self, req: EngineRequest) {
        match &mut self.mode {
            Mode::Threaded { tx, .. } => {
                if let Some(tx) = tx {
                    let _ = tx.send(req);
                }
            }
            Mode::Inline { service, queue } => {
                let published = &self.published;
                run_guarded(service.as_mut(), req, published, &mut |e| {
                    queue.push_back(e);
                });
            }
        }
    }

    /// Events produced by inline requests (always empty when threaded).
    pub fn take_events(&mut self) -> Vec<EngineEvent> {
        match &mut self.mode {
            Mode::Inline { queue, .. } => queue.drain(..).collect(),
            Mode::Threaded { .. } => Vec::new(),
        }
    }
}

impl Drop for SessionHandle {
    fn drop(&mut self) {
        if let Mode::Threaded { tx, join } = &mut self.mode {
            *tx = None;
            // A build in progress can take a while: don't wait for it at quit; the thread
            // ends with the process.
            if let Some(j) = join.take() {
                if j.is_finished() {
                    let _ = j.join();
                }
            }
        }
    }
}

/// Handles one request, turning a panic into a `Failed` event.
fn run_guarded(
    service: &mut dyn SessionEngine,
    req: EngineRequest,
    published: &Published,
    emit: &mut dyn FnMut(EngineEvent),
) {
    let what = match req {
        EngineRequest::Build { .. } | EngineRequest::Refresh { .. } => "index",
        EngineRequest::Map { .. } => "map",
        EngineRequest::Search { .. } => "search",
        EngineRequest::Why { .. } => "why",
        EngineRequest::Markdown { .. } => "markdown",
        EngineRequest::Refs { .. } => "refs",
    };
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        service.handle(req, published, emit);
    }));
    if let Err(payload) = result {
        emit(EngineEvent::Failed {
            what,
            message: panic_message(payload.as_ref()),
        });
    }
}

pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(std::string::ToString::to_string)
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".to_string())
}

fn worker_loop(
    mut service: Box<dyn SessionEngine>,
    rx: Receiver<EngineRequest>,
    published: &Published,
    events: &Sender<EngineEvent>,
) {
    // One pending request per kind: a newer one replaces an older one (latest wins).
    let mut pending: [Option<EngineRequest>; SLOTS] = Default::default();
    loop {
        let mut emit = |e: EngineEvent| {
            let _ = events.send(e);
        };
        if pending.iter().all(Option::is_none) {
            let changes = service.changes().unwrap_or_else(never);
            select! {
                recv(rx) -> req => match req {
                    Ok(req) => queue_request(&mut pending, req),
                    Err(_) => return,
                },
                recv(changes) -> batch => {
                    let guarded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        service.on_changes(batch.ok(), &mut emit);
                    }));
                    if let Err(payload) = guarded {
                        emit(EngineEvent::Failed {
                            what: "watch",
                            message: panic_message(payload.as_ref()),
                        });
                    }
                    continue;
                }
            }
        }
        while let Ok(req) = rx.try_recv() {
            queue_request(&mut pending, req);
        }
        // Builds first (everything else needs the index), then what the user is typing.
        let Some(req) = pending.iter_mut().find_map(Option::take) else {
            continue;
        };
        run_guarded(service.as_mut(), req, published, &mut emit);
    }
}

/// Puts `req` in its slot. A newer request replaces an older one of its kind, except that
/// refreshes merge (both sets of changed files must be re-read) and a pending full build
/// absorbs a refresh (it re-reads everything anyway).
fn queue_request(pending: &mut [Option<EngineRequest>; SLOTS], req: EngineRequest) {
    let slot = req.slot();
    let merged = match (pending[slot].take(), req) {
        (
            Some(EngineRequest::Refresh {
                changed: mut old, ..
            }),
            EngineRequest::Refresh {
                generation,
                changed,
            },
        ) => {
            old.extend(changed);
            EngineRequest::Refresh {
                generation,
                changed: old,
            }
        }
        (Some(EngineRequest::Build { .. }), EngineRequest::Refresh { generation, .. }) => {
            EngineRequest::Build { generation }
        }
        (_, req) => req,
    };
    pending[slot] = Some(merged);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queued_refreshes_merge_and_a_build_absorbs_them() {
        let refresh = |g, paths: &[&str]| EngineRequest::Refresh {
            generation: g,
            changed: paths.iter().map(std::string::ToString::to_string).collect(),
        };
        let mut pending: [Option<EngineRequest>; SLOTS] = Default::default();
        queue_request(&mut pending, refresh(1, &["a.ts"]));
        queue_request(&mut pending, refresh(2, &["b.ts", "a.ts"]));
        assert_eq!(pending[0], Some(refresh(2, &["a.ts", "b.ts"])));
        queue_request(&mut pending, EngineRequest::Build { generation: 3 });
        queue_request(&mut pending, refresh(4, &["c.ts"]));
        assert_eq!(pending[0], Some(EngineRequest::Build { generation: 4 }));
        queue_request(
            &mut pending,
            EngineRequest::Search {
                generation: 5,
                query: "q".into(),
            },
        );
        assert_eq!(pending[0], Some(EngineRequest::Build { generation: 4 }));
    }

    struct Echo;
    impl SessionEngine for Echo {
        fn handle(
            &mut self,
            req: EngineRequest,
            published: &Published,
            emit: &mut dyn FnMut(EngineEvent),
        ) {
            match req {
                EngineRequest::Search { generation, query } => {
                    assert!(query != "boom", "search exploded");
                    published.store_hits(HitsSnapshot {
                        generation,
                        query,
                        hits: vec![],
                        source_hits: vec![],
                        confidence: Confidence::Low,
                        low_score: true,
                        answer: String::new(),
                        latency_ms: 0.0,
                        texts: Default::default(),
                    });
                    emit(EngineEvent::HitsReady { generation });
                }
                _ => emit(EngineEvent::Failed {
                    what: "test",
                    message: "unsupported".into(),
                }),
            }
        }
    }

    #[test]
    fn inline_answers_before_send_returns() {
        let mut h = SessionHandle::inline(Box::new(Echo));
        h.send(EngineRequest::Search {
            generation: 3,
            query: "a".into(),
        });
        assert_eq!(
            h.take_events(),
            vec![EngineEvent::HitsReady { generation: 3 }]
        );
        assert_eq!(h.published.hits.load().as_ref().unwrap().query, "a");
    }

    #[test]
    fn a_panic_becomes_an_event() {
        let mut h = SessionHandle::inline(Box::new(Echo));
        h.send(EngineRequest::Search {
            generation: 1,
            query: "boom".into(),
        });
        let ev = h.take_events();
        assert_eq!(
            ev,
            vec![EngineEvent::Failed {
                what: "search",
                message: "search exploded".into()
            }]
        );
    }

    #[test]
    fn older_results_do_not_replace_newer_ones() {
        let p = Published::default();
        let snap = |g: u64| HitsSnapshot {
            generation: g,
            query: g.to_string(),
            hits: vec![],
            source_hits: vec![],
            confidence: Confidence::Low,
            low_score: false,
            answer: String::new(),
            latency_ms: 0.0,
            texts: Default::default(),
        };
        assert!(p.store_hits(snap(5)));
        assert!(!p.store_hits(snap(4)));
        assert_eq!(p.hits.load().as_ref().unwrap().generation, 5);
    }

    #[test]
    fn threaded_worker_survives_a_panic() {
        let (tx, rx) = crossbeam_channel::unbounded();
        let mut h = SessionHandle::spawn(Box::new(Echo), tx);
        h.send(EngineRequest::Search {
            generation: 1,
            query: "boom".into(),
        });
        let first = rx.recv_timeout(std::time::Duration::from_secs(10)).unwrap();
        assert!(matches!(first, EngineEvent::Failed { .. }));
        h.send(EngineRequest::Search {
            generation: 2,
            query: "ok".into(),
        });
        let second = rx.recv_timeout(std::time::Duration::from_secs(10)).unwrap();
        assert_eq!(second, EngineEvent::HitsReady { generation: 2 });
    }
}
