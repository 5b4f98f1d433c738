//! The index: one full pass over a repository (walk → load and parse in parallel → graph),
//! and the queries answered from it (ranked, budget-fitted maps; stats).
//!
//! `Index::build` runs on the caller's thread (the CLI's main thread, or the engine worker
//! in the TUI); the parse phase fans out over rayon's pool, one tree-sitter parser per thread.
//! An `Index` is immutable once built and is shared read-only (`Send + Sync`).

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use super::cache::{
    content_hash, now_ns, read_links, CacheWriter, Decode, DiskCache, Loaded as CacheLoaded,
    TagStore,
};
use super::cache_blob::{self, BlobLoad, InputKey};
use super::error::EngineError;
use super::graph::{
    build_graph, build_graph_consuming, build_graph_relinking, FileGraph, TakenUses, UseCounts,
};
use super::heap::{release_free_memory, take_arena};
use super::history::{self, CommitHistory, HistorySource};
use super::lang::{
    claim_tags_query_prefetch, compiled_tags_query, tags_query_compiling, tags_query_prefetched,
};
use super::lock;
use super::model::{Definition, FileTags, GoModule, ParsedFile, RefList, SkipReason, Skipped};
use super::rank::{
    pagerank, query_identifiers, query_terms, rank, PageRankOptions, Personalization, RankOutput,
};
use super::repo_map::{build_map, LineCostCache, MapOptions, RepoMap};
use super::scope::{Scope, ScopeSpec};
use super::search::{
    HistoryIndex, SearchContext, SearchIndex, SearchOptions, SearchResponse, SearchWeights,
    TextDoc, MAX_TOP,
};
use super::tags::{extract_tags_or_parse, finish_tags, unparsed, ParsedAhead, Tagging};
use super::task::{Task, TaskOptions};
use super::tokenizer::TokenizerKind;
use super::walk::{load_source, walk_observed, DocFile, UnsupportedFile, WalkOptions, WalkedFile};

/// A one-shot build gives freed memory back to the system every this many parsed files:
/// each parse tree is freed once its tags are extracted, and without a trim the pages it
/// leaves in the allocator's arenas count in the resident set until the end of the phase
/// (mypy: ~8 MB). A trim takes well under a millisecond.
const TRIM_EVERY: usize = 16;

/// Past this many parsed files, a one-shot build trims every `TRIM_EVERY_LATER` files
/// instead. Each trim hands back pages the next parses fault in again, and a large tree's
/// peak is its tags and graph, not the trees freed between two trims: measured, cold maps
/// of rails, Newtonsoft.Json, vite and moby 1.2–2% faster, redis the same, none with a
/// higher peak (BENCHMARKS.md). The first files keep the short interval: on a small tree
/// the trims are what hold the peak (javapoet +2.4 MB without them).
const TRIM_EVERY_AFTER: usize = 256;
const TRIM_EVERY_LATER: usize = 64;

/// Whether a one-shot build trims the heap before parsing its `n`-th file (from 1).
fn trims_before_file(n: usize) -> bool {
    let every = if n > TRIM_EVERY_AFTER {
        TRIM_EVERY_LATER
    } else {
        TRIM_EVERY
    };
    n.is_multiple_of(every)
}

/// After the parse, a one-shot build gives freed memory back to the system (around binding
/// and before the fit) only when its code files total at least this many bytes. On a small
/// tree those trims hold the peak down by a few hundred KB at most, and each is serial time
/// at the end of the run: javapoet (0.4 MB of code) measured up to 4% less wall without
/// them, at +0.4 MB of peak (BENCHMARKS.md, "Small trees: the fit's piece memo").
/// The trims during the parse (`trims_before_file`) stay at every size: they are what hold
/// a small tree's peak (2.3 MB on javapoet).
const TRIM_AFTER_PARSE_MIN_BYTES: u64 = 2 << 20;

/// Whether a one-shot build of `code_bytes` of code trims the heap after its parse.
fn trims_heap_after_parse(code_bytes: u64) -> bool {
    code_bytes >= TRIM_AFTER_PARSE_MIN_BYTES
}

/// How to build an index.
#[derive(Debug, Clone, Default)]
pub struct IndexOptions {
    pub walk: WalkOptions,
    /// Use the persistent tag cache in the user's cache dir (see `cache`). Off by default so
    /// tests and the eval (which indexes hundreds of throwaway trees) leave no trace; the
    /// CLI and the TUI turn it on unless `--no-cache` is given.
    pub use_cache: bool,
    /// Leave prose/config files unread. They only feed search's text evidence, so a
    /// map-only run (`mapscope map`) skips them to save time and memory.
    pub skip_docs: bool,
    /// Keep of each file only the lines a map renders (signatures, scope headers) and which
    /// lines are blank, instead of the whole source (see `ParsedFile::for_map`). For a
    /// map-only run (`mapscope map`): search, previews and anything else that reads source
    /// text need it off.
    pub map_lines_only: bool,
    /// For a one-shot map (`mapscope map`, ranked once): hand each file's references and
    /// imports to the graph build, which frees them as soon as they are used (see
    /// `build_graph_consuming`), trim the heap between phases, and keep of each definition
    /// only what a map reads. The index then has no references, imports or definition
    /// parents (stats, search, the TUI and a refresh need this off). With `use_cache` it applies when the cache holds nothing (a first run):
    /// each file's full tags are then written to a new cache file as soon as the file is
    /// parsed (`Index::take_cache_write`). A cache with entries is read as usual, and this
    /// is ignored: its tags are shared with the index and are saved again if stale.
    pub consume_refs: bool,
    /// Where to read the commit history search uses (`history`); off by default. It is read
    /// by `git` on a thread of its own while the files parse. A refresh keeps the history
    /// its previous index read.
    pub history: HistorySource,
}

/// What became of the commit history an index asked for.
#[derive(Debug, Clone, Default)]
pub struct HistoryStatus {
    /// Commits whose subjects are indexed, and the code files they touched.
    pub commits: usize,
    pub files: usize,
    /// Wall time of `git log` (it runs beside the parse), or of the cache read.
    pub read_ms: f64,
    /// Taken from the history cache (`HEAD` had not moved since it was written).
    pub cached: bool,
    /// Why there is none, when it was asked for.
    pub error: Option<String>,
}

/// Where a build may take already extracted tags from instead of parsing.
#[derive(Clone, Copy)]
pub enum Reuse<'a> {
    Nothing,
    /// Tags from the persistent cache, matched by path, language, size and content hash.
    Store(&'a TagStore),
    /// A previous index of the same root. A file that is not in `changed` and whose size and
    /// mtime are what the previous index saw is taken over without being read; any other
    /// file is read and its tags reused only if its content hash is unchanged.
    Previous {
        index: &'a Index,
        changed: &'a BTreeSet<String>,
    },
}

/// How the files of a build were obtained.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ReuseCounts {
    /// Read and parsed.
    pub parsed: usize,
    /// Read, and tags reused because the content hash matched.
    pub hash_hits: usize,
    /// Taken over from the previous index without reading (unchanged size and mtime).
    pub unchanged: usize,
}

/// Wall time of each build phase, in milliseconds.
#[derive(Debug, Clone, Copy, Default)]
pub struct PhaseTimes {
    pub walk_ms: f64,
    pub parse_ms: f64,
    pub graph_ms: f64,
    /// The graph was loaded from the derived cache (`cache_blob`), not linked.
    pub graph_cached: bool,
}

/// What a map is asked for: the budget and everything that steers the ranking.
#[derive(Debug, Clone)]
pub struct MapRequest {
    pub budget: usize,
    pub tokenizer: TokenizerKind,
    /// Repo-relative paths of focus files (aider's "chat files").
    pub focus: Vec<String>,
    pub idents: Vec<String>,
    pub query: Option<String>,
    pub exclude_files: Vec<String>,
    pub exclude_symbols: Vec<String>,
    /// How the query and identifiers steer the map (`task`).
    pub task: TaskOptions,
    /// Also find the smallest budget that would include the first definition that did not
    /// fit (`RepoMap::next_budget`): a binary search over a dozen or so extra fits.
    pub next_budget: bool,
    /// Which files the map may rank and show (`--include`, `--exclude`, `--lang`); the graph
    /// still holds every file. Checked by the front doors (`Scope::new`); a bad one that gets
    /// here is ignored with a note.
    pub scope: ScopeSpec,
}

/// A query longer than this is cut before it is searched: a pasted log or diff says where
/// to look in its first lines, and search's cost grows with the number of terms.
pub const MAX_QUERY_CHARS: usize = 2000;

impl Default for MapRequest {
    fn default() -> Self {
        MapRequest {
            budget: 1024,
            tokenizer: TokenizerKind::O200k,
            focus: Vec::new(),
            idents: Vec::new(),
            query: None,
            exclude_files: Vec::new(),
            exclude_symbols: Vec::new(),
            task: TaskOptions::default(),
            next_budget: false,
            scope: ScopeSpec::default(),
        }
    }
}

/// A fully built index of one repository.
pub struct Index {
    /// Canonical repository root.
    pub root: PathBuf,
    /// Parsed code files, sorted by path.
    pub files: Vec<ParsedFile>,
    /// Prose/config files for text search, sorted by path.
    pub docs: Vec<TextDoc>,
    /// Each doc's size and mtime when read (same order as `docs`), for a refresh.
    doc_stamps: Vec<DocStamp>,
    pub skipped: Vec<Skipped>,
    /// Code files in languages without a grammar (`WalkOutput::unsupported`), sorted by path.
    pub unsupported: Vec<UnsupportedFile>,
    pub go_modules: Vec<GoModule>,
    pub graph: FileGraph,
    pub times: PhaseTimes,
    pub reuse: ReuseCounts,
    /// The persistent cache this index was loaded from and saves to (`use_cache`).
    pub cache: Option<DiskCache>,
    /// Why the cache was not used or was ignored, for the user's log or status bar.
    pub cache_warning: Option<String>,
    /// For a refresh: how many files were bound again (`graph::build_graph_relinking`); the
    /// others' bindings were taken from the previous graph.
    pub relinked: Option<usize>,
    /// A derived cache (graph, search index) that did not check out and was rebuilt: one
    /// line each, for the user's log. The search index's is added when search first runs
    /// (`search_cache_warning`).
    pub derived_warnings: Vec<String>,
    /// Ignore files and git metadata the walk did not read (`WalkOutput::warnings`): one line
    /// each, raw repository text (sanitise before printing). Every build repeats them; a
    /// front end that rebuilds shows each once.
    pub walk_warnings: Vec<String>,
    /// Search's graph signals (see `graph_signals`), computed on first use: a map never
    /// needs them, and their transient edge lists would raise a map-only run's peak memory.
    signals: OnceLock<GraphSignals>,
    by_path: BTreeMap<String, usize>,
    /// Whether the persistent cache lacks something this index parsed.
    cache_stale: bool,
    /// A one-shot build's new cache file, holding every file's tags, to be finished (see
    /// `IndexOptions::consume_refs`).
    cache_write: Option<CacheWriter>,
    /// When the earliest of the files' contents was read (wall clock, ns): what the tag
    /// cache records to know which entries it may trust by size and mtime (`cache`).
    read_since_ns: i64,
    /// `map_once` gives the graph's memory back to the system before the fit: false only for
    /// a small one-shot build (`trims_heap_after_parse`).
    trim_heap: bool,
    line_costs: LineCostCache,
    /// The key of the graph's inputs when the derived cache lacks this graph (it was
    /// linked, not loaded): `save_cache` stores it, once (`derived_saved`).
    graph_unsaved: Option<InputKey>,
    /// The same for the history index.
    history_unsaved: Option<InputKey>,
    /// Built (or loaded from the derived cache) on first use: `map` never pays for it.
    search: OnceLock<BuiltSearch>,
    /// Set once `save_cache` stored the graph, the search index, the history index.
    derived_saved: [std::sync::atomic::AtomicBool; 3],
    /// The commit history read for search (see `IndexOptions::history`), and its postings.
    history: Option<Arc<CommitHistory>>,
    history_index: Option<HistoryIndex>,
    pub history_status: HistoryStatus,
}

/// The search index of an index, and how it was obtained.
struct BuiltSearch {
    index: SearchIndex,
    ms: f64,
    /// The key to store it under when the derived cache lacks it.
    unsaved: Option<InputKey>,
    warning: Option<String>,
}

/// A history read in progress on its own thread, or one taken over from a previous index.
enum HistoryJob {
    Ready(Option<Arc<CommitHistory>>, HistoryStatus),
    Running(std::thread::JoinHandle<HistoryRead>),
}

type HistoryRead = (
    Result<(Option<CommitHistory>, bool), history::HistoryError>,
    f64,
);

impl HistoryJob {
    /// `use_cache`: keep the history in the repository's cache directory, keyed by `HEAD`.
    fn start(root: &Path, source: &HistorySource, use_cache: bool, reuse: Reuse<'_>) -> HistoryJob {
        if let Reuse::Previous { index, .. } = reuse {
            return HistoryJob::Ready(index.history.clone(), index.history_status.clone());
        }
        if *source == HistorySource::Off {
            return HistoryJob::Ready(None, HistoryStatus::default());
        }
        let (root, source) = (root.to_path_buf(), source.clone());
        let spawned = std::thread::Builder::new()
            .name("mapscope-history".into())
            .spawn(move || {
                let t = Instant::now();
                let cache_dir = use_cache
                    .then(|| DiskCache::for_repo(&root).ok())
                    .flatten()
                    .map(|c| c.dir().to_path_buf());
                let read = history::read_cached(&root, &source, cache_dir.as_deref());
                (read, ms_since(t))
            });
        match spawned {
            Ok(handle) => HistoryJob::Running(handle),
            Err(e) => HistoryJob::Ready(
                None,
                HistoryStatus {
                    error: Some(format!("could not start a thread: {e}")),
                    ..HistoryStatus::default()
                },
            ),
        }
    }

    fn finish(self) -> (Option<Arc<CommitHistory>>, HistoryStatus) {
        match self {
            HistoryJob::Ready(h, status) => (h, status),
            HistoryJob::Running(handle) => match handle.join() {
                Ok((Ok((h, cached)), read_ms)) => (
                    h.map(Arc::new),
                    HistoryStatus {
                        read_ms,
                        cached,
                        ..HistoryStatus::default()
                    },
                ),
                Ok((Err(e), read_ms)) => (
                    None,
                    HistoryStatus {
                        read_ms,
                        error: Some(e.to_string()),
                        ..HistoryStatus::default()
                    },
                ),
                Err(_) => (
                    None,
                    HistoryStatus {
                        error: Some("reading the history panicked".into()),
                        ..HistoryStatus::default()
                    },
                ),
            },
        }
    }
}

/// Which phase a build is in, for progress reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BuildPhase {
    Walk,
    Parse,
    Graph,
}

impl BuildPhase {
    pub fn name(self) -> &'static str {
        match self {
            BuildPhase::Walk => "walking",
            BuildPhase::Parse => "parsing",
            BuildPhase::Graph => "linking",
        }
    }
}

/// A progress report from `Index::build_with_progress`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuildProgress {
    pub phase: BuildPhase,
    pub done: usize,
    pub total: usize,
}

/// A job's outcome in `run_with_waiting`: its result, or what waits for something another
/// thread is making (a file's tree, for its language's tags query).
enum Step<T, W> {
    Done(T),
    Waiting(W),
}

/// A file parsed while its language's query compiled (`tags::extract_tags_or_parse`).
struct ParsedAheadFile {
    text: String,
    hash: u64,
    parsed: ParsedAhead,
}

/// At most this much source waits, parsed, for its query at a time. The wait is the compile
/// (tens of milliseconds) and one core parses meanwhile, so this is rarely reached; it bounds
/// the trees held (roughly ten times their source) if a compile is slow to start.
const MAX_PARSED_AHEAD_BYTES: usize = 4 << 20;

/// Outcome of loading one walked file.
enum Loaded {
    /// A one-shot build's file also has its references counted (then taken out of it).
    File(ParsedFile, Origin, Option<UseCounts>),
    Skip(Skipped),
}

#[derive(Clone, Copy)]
enum Origin {
    Parsed,
    HashHit,
    Unchanged,
}

impl Index {
    /// Walks, parses and links `root`. Fails with `RepoNotFound`, `InvalidRepo`, or
    /// `RepoEmpty` (with a summary of what was skipped and why) when nothing is indexable.
    pub fn build(root: &Path, opts: &IndexOptions) -> Result<Index, EngineError> {
        Self::build_with_progress(root, opts, &|_| {})
    }

    /// `build`, reporting progress. `progress` is called from rayon worker threads, at most
    /// about a hundred times per phase, so it must be cheap (e.g. a channel send).
    ///
    /// With `opts.use_cache`, tags come from the persistent cache where the content is
    /// unchanged; call `save_cache` afterwards to store what was parsed.
    pub fn build_with_progress(
        root: &Path,
        opts: &IndexOptions,
        progress: &(dyn Fn(BuildProgress) + Sync),
    ) -> Result<Index, EngineError> {
        if !opts.use_cache {
            return Self::build_reusing(root, opts, Reuse::Nothing, progress);
        }
        // A root that cannot be resolved gets its proper error (not found, not a directory)
        // from the walk.
        let Ok(canonical) = root.canonicalize() else {
            return Self::build_reusing(root, opts, Reuse::Nothing, progress);
        };
        Self::build_with_cache(root, opts, DiskCache::for_repo(&canonical), progress)
    }

    /// `build_with_progress` with the persistent cache `cache` (or the reason there is none,
    /// reported as `cache_warning`), whatever `opts.use_cache` says.
    pub fn build_with_cache(
        root: &Path,
        opts: &IndexOptions,
        cache: Result<DiskCache, String>,
        progress: &(dyn Fn(BuildProgress) + Sync),
    ) -> Result<Index, EngineError> {
        // A build that saves its tags must not drop them unless it writes them as it parses.
        let opts = &IndexOptions {
            use_cache: true,
            ..opts.clone()
        };
        let (cache, loaded) = match cache {
            Ok(cache) => {
                // A map-only build reads references only if the graph must be linked again.
                let decode = if opts.map_lines_only {
                    Decode::MapOnly
                } else {
                    Decode::Full
                };
                let loaded = cache.load_for(decode);
                (Some(cache), loaded)
            }
            Err(why) => (
                None,
                CacheLoaded {
                    store: TagStore::default(),
                    warning: Some(why),
                },
            ),
        };
        // A one-shot build over an empty cache writes the new one as it parses, so that it can
        // drop each file's references right away. If no file can be made, it builds as usual
        // and `save_cache` meets (and reports) the same failure.
        let writer = match &cache {
            Some(cache) if opts.consume_refs && loaded.store.is_empty() => {
                cache.writer(now_ns()).ok()
            }
            _ => None,
        };
        let reuse = Reuse::Store(&loaded.store);
        let derived = cache.as_ref();
        let mut index = Self::build_inner(root, opts, reuse, writer.as_ref(), derived, progress)?;
        index.cache = cache;
        index.cache_warning = loaded.warning;
        if writer.is_some() {
            index.cache_write = writer;
        } else {
            // A store that held other files (deleted or renamed since) must be rewritten too.
            index.cache_stale = index.reuse.parsed > 0 || loaded.store.len() != index.files.len();
        }
        Ok(index)
    }

    /// Rebuilds after the files in `changed` (repo-relative) were created, modified, deleted
    /// or renamed: re-walks, takes over what did not change, re-parses the rest and relinks.
    /// The result equals a full build of the current tree. An empty `changed` set with a
    /// full rescan in mind is fine: unchanged files are still recognised by size and mtime.
    pub fn refresh(
        &self,
        opts: &IndexOptions,
        changed: &BTreeSet<String>,
        progress: &(dyn Fn(BuildProgress) + Sync),
    ) -> Result<Index, EngineError> {
        let reuse = Reuse::Previous {
            index: self,
            changed,
        };
        let mut index = Self::build_reusing(&self.root, opts, reuse, progress)?;
        index.cache_stale = index.reuse.parsed > 0 || index.files.len() != self.files.len();
        index.cache = self.cache.clone();
        Ok(index)
    }

    /// Saves the tags to the persistent cache when this index has one and parsed anything
    /// the cache did not hold. Returns whether it wrote.
    pub fn save_cache(&self) -> Result<bool, EngineError> {
        let tags = if let Some(writer) = &self.cache_write {
            writer.finish().map(|()| true)?
        } else {
            match &self.cache {
                Some(cache) if self.cache_stale => {
                    cache.save(&self.files, self.read_since_ns).map(|()| true)?
                }
                _ => false,
            }
        };
        Ok(self.save_derived()? || tags)
    }

    /// The graph's part of `save_cache`, encoded now (for a caller about to drop the graph
    /// with `map_once`): a closure that writes it, or `None` when there is nothing to save.
    pub fn take_graph_save(
        &self,
    ) -> Option<impl FnOnce() -> Result<bool, EngineError> + Send + 'static> {
        let cache = self.cache.clone()?;
        let key = self.graph_unsaved?;
        if self.graph.n != self.files.len() || self.derived_saved[0].swap(true, Ordering::AcqRel) {
            return None;
        }
        let payload = postcard::to_allocvec(&self.graph.stored()).ok()?;
        Some(move || {
            cache_blob::save_encoded(&cache, &cache_blob::GRAPH, key, &payload).map(|()| true)
        })
    }

    /// The full build, taking tags from `reuse` where it can.
    pub fn build_reusing(
        root: &Path,
        opts: &IndexOptions,
        reuse: Reuse<'_>,
        progress: &(dyn Fn(BuildProgress) + Sync),
    ) -> Result<Index, EngineError> {
        Self::build_inner(root, opts, reuse, None, None, progress)
    }

    /// `build_reusing`, handing every loaded file's tags to `cache_write` as it goes (which
    /// makes a `consume_refs` build one-shot even with `use_cache`), and taking the graph
    /// from the derived cache of `derived` when it was linked from the same inputs.
    fn build_inner(
        root: &Path,
        opts: &IndexOptions,
        reuse: Reuse<'_>,
        cache_write: Option<&CacheWriter>,
        derived: Option<&DiskCache>,
        progress: &(dyn Fn(BuildProgress) + Sync),
    ) -> Result<Index, EngineError> {
        let t0 = Instant::now();
        // Files a refresh takes over unread were read by an earlier build (see
        // `read_since_ns`). Cache entries a map-only build takes unread need no such care:
        // each was taken because it was modified well before its own read.
        let read_since_ns = match reuse {
            Reuse::Previous { index, .. } => index.read_since_ns.min(now_ns()),
            Reuse::Store(_) | Reuse::Nothing => now_ns(),
        };
        progress(BuildProgress {
            phase: BuildPhase::Walk,
            done: 0,
            total: 0,
        });
        // Before the walk, which runs on the pool while this thread lists the root (see
        // `attach_pool_arenas`).
        attach_pool_arenas();
        // The tags queries of the languages this build will parse compile during the walk.
        let prefetch = QueryPrefetch::new();
        let walked = walk_observed(root, &opts.walk, &|f| {
            if !tags_query_prefetched(f.lang) && likely_parsed(reuse, f) {
                prefetch.during_walk(f.lang);
            }
        });
        prefetch.walk_done();
        let walked = walked?;
        let root = canonical_root(root)?;
        let walk_ms = ms_since(t0);
        let history_job = HistoryJob::start(&root, &opts.history, opts.use_cache, reuse);

        let t1 = Instant::now();
        let max_size = opts.walk.max_file_size;
        let total = walked.files.len();
        let step = (total / 100).max(1);
        let done = AtomicUsize::new(0);
        progress(BuildProgress {
            phase: BuildPhase::Parse,
            done: 0,
            total,
        });
        // A refresh also reuses the previous index's tags by content hash (a file touched
        // or rewritten with the same content is not re-parsed).
        let previous_store;
        let store = match reuse {
            Reuse::Nothing => None,
            Reuse::Store(store) => Some(store),
            Reuse::Previous { index, .. } => {
                previous_store = TagStore::from_files(&index.files);
                Some(&previous_store)
            }
        };
        let one_shot = opts.consume_refs && (!opts.use_cache || cache_write.is_some());
        // Only a small one-shot build skips the trims after its parse.
        let trim_heap =
            !one_shot || trims_heap_after_parse(walked.files.iter().map(|f| f.size).sum());
        // What a file becomes once it has its tags.
        let with_tags = |f: &WalkedFile, text: String, hash, tags: Arc<FileTags>, origin| {
            let mut counted = None;
            let file = if opts.map_lines_only {
                // The full text is dropped here, while other files still parse.
                let mut file = ParsedFile::for_map(f.rel_path.clone(), f.lang, f.size, &text, tags)
                    .with_stamp(f.mtime_ns, hash);
                drop(text);
                if let Some(w) = cache_write {
                    // Before a one-shot build drops the references, below.
                    w.add_file(&file);
                }
                if one_shot {
                    if let Some(tags) = Arc::get_mut(&mut file.tags) {
                        let fresh = std::mem::take(tags);
                        counted = Some(UseCounts::from_refs(&fresh.refs));
                        *tags = rehomed(fresh);
                    }
                }
                file
            } else {
                let file =
                    ParsedFile::new(f.rel_path.clone(), f.lang, f.size, Arc::from(text), tags)
                        .with_stamp(f.mtime_ns, hash);
                if let Some(w) = cache_write {
                    w.add_file(&file);
                }
                file
            };
            Loaded::File(file, origin, counted)
        };
        // Source bytes of the files parsed ahead of their query and not tagged yet: past
        // `MAX_PARSED_AHEAD_BYTES` a parse waits for its query instead (the trees are kept).
        let ahead_bytes = AtomicUsize::new(0);
        let load_one = |f: &WalkedFile| -> Step<Loaded, ParsedAheadFile> {
            if let Some(same) = unchanged_file(reuse, f, opts.map_lines_only) {
                if let Some(w) = cache_write {
                    w.add_file(&same);
                }
                return Step::Done(Loaded::File(same, Origin::Unchanged, None));
            }
            match load_source(&f.abs_path, &f.rel_path, max_size) {
                Err(reason) => Step::Done(Loaded::Skip(Skipped {
                    path: f.rel_path.clone(),
                    reason,
                })),
                Ok(text) => {
                    let hash = content_hash(&text);
                    if let Some(tags) =
                        store.and_then(|s| s.lookup(&f.rel_path, f.lang, f.size, hash))
                    {
                        return Step::Done(with_tags(f, text, hash, tags, Origin::HashHit));
                    }
                    let may_defer = ahead_bytes.load(Ordering::Relaxed) < MAX_PARSED_AHEAD_BYTES;
                    match parse_guarded(f.lang, &text, may_defer) {
                        Tagging::Done(tags) => {
                            Step::Done(with_tags(f, text, hash, Arc::new(tags), Origin::Parsed))
                        }
                        Tagging::QueryCompiling(parsed) => {
                            ahead_bytes.fetch_add(text.len(), Ordering::Relaxed);
                            Step::Waiting(ParsedAheadFile { text, hash, parsed })
                        }
                    }
                }
            }
        };
        // Tags a file parsed ahead of its query (waiting for the query if need be).
        let finish_ahead = |f: &WalkedFile, ahead: ParsedAheadFile| -> Loaded {
            ahead_bytes.fetch_sub(ahead.text.len(), Ordering::Relaxed);
            let tags = finish_guarded(ahead.parsed, &ahead.text);
            with_tags(f, ahead.text, ahead.hash, Arc::new(tags), Origin::Parsed)
        };
        // Largest files first, so that the parse ends on small ones: in walk order, one big
        // file parsed last kept a core busy while the other waited (vite: ~50 ms). The
        // results are put back in walk order below.
        let mut by_size: Vec<usize> = (0..walked.files.len()).collect();
        by_size.sort_by_key(|&i| std::cmp::Reverse(walked.files[i].size));
        let budget = opts.walk.budget.as_deref();
        let mut loaded = run_with_waiting(
            by_size,
            |i| {
                if budget.is_some_and(|b| !b.go_on()) {
                    // The build fails below: what is left is not read.
                    let (path, reason) = (walked.files[i].rel_path.clone(), SkipReason::TooLarge);
                    return Step::Done(Loaded::Skip(Skipped { path, reason }));
                }
                let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                if one_shot && trims_before_file(n) {
                    release_free_memory();
                }
                if n.is_multiple_of(step) || n == total {
                    progress(BuildProgress {
                        phase: BuildPhase::Parse,
                        done: n,
                        total,
                    });
                }
                load_one(&walked.files[i])
            },
            |ahead: &ParsedAheadFile| !tags_query_compiling(ahead.parsed.lang()),
            |i, ahead| finish_ahead(&walked.files[i], ahead),
        );
        if let Some(budget) = budget {
            budget.check()?;
        }
        loaded.sort_unstable_by_key(|&(i, _)| i);
        let (docs, doc_stamps) = if opts.skip_docs {
            (Vec::new(), Vec::new())
        } else {
            load_docs(&walked.docs, opts.walk.max_doc_size, reuse)
        };
        let mut files = Vec::with_capacity(loaded.len());
        let mut counted = Vec::with_capacity(loaded.len());
        let mut skipped = walked.skipped;
        let mut counts = ReuseCounts::default();
        for (_, item) in loaded {
            match item {
                Loaded::File(f, origin, uses) => {
                    match origin {
                        Origin::Parsed => counts.parsed += 1,
                        Origin::HashHit => counts.hash_hits += 1,
                        Origin::Unchanged => counts.unchanged += 1,
                    }
                    files.push(f);
                    counted.push(uses);
                }
                Loaded::Skip(s) => skipped.push(s),
            }
        }
        skipped.sort_by(|a, b| a.path.cmp(&b.path));
        let parse_ms = ms_since(t1);

        if files.is_empty() {
            let mut stats = IndexStats {
                root: root.display().to_string(),
                docs: docs.len(),
                times: PhaseTimes {
                    walk_ms,
                    parse_ms,
                    ..PhaseTimes::default()
                },
                ..IndexStats::default()
            };
            stats.count_walk(&skipped, &walked.unsupported);
            return Err(EngineError::RepoEmpty {
                path: root,
                summary: skip_summary(&skipped, &walked.unsupported),
                stats: Box::new(stats),
            });
        }

        let t2 = Instant::now();
        progress(BuildProgress {
            phase: BuildPhase::Graph,
            done: files.len(),
            total: files.len(),
        });
        let mut derived_warnings = Vec::new();
        let graph_key = derived.map(|_| InputKey::graph(&files, &walked.go_modules));
        let cached_graph = match (derived, graph_key) {
            (Some(cache), Some(key)) => load_graph(cache, key, &files, &mut derived_warnings),
            _ => None,
        };
        let graph_cached = cached_graph.is_some();
        if !graph_cached {
            for f in &mut files {
                if let Err(why) = read_links(f) {
                    derived_warnings.push(why);
                }
            }
        }
        let mut relinked = None;
        let graph = if let Some(graph) = cached_graph {
            graph
        } else if one_shot {
            // The parse trees are gone: give their pages back before the graph is built.
            if trim_heap {
                release_free_memory();
            }
            // A map with no query ranks by no query words; without a cache, no later run
            // reads this graph either.
            let query_words = !opts.map_lines_only || derived.is_some();
            let uses = take_uses(&mut files, counted, trim_heap, query_words);
            let graph = build_graph_consuming(&files, &walked.go_modules, uses);
            // The binding's and the build's temporaries, before ranking allocates.
            if trim_heap {
                release_free_memory();
            }
            graph
        } else if let Reuse::Previous {
            index: previous, ..
        } = reuse
        {
            // A refresh binds again only the files the edit can have changed.
            let (graph, bound) = build_graph_relinking(
                &files,
                &walked.go_modules,
                &previous.files,
                &previous.go_modules,
                &previous.graph,
            );
            relinked = Some(bound);
            graph
        } else {
            build_graph(&files, &walked.go_modules)
        };
        let graph_ms = ms_since(t2);
        let (history, mut history_status) = history_job.finish();
        let history_key = derived
            .zip(history.as_deref())
            .map(|(_, h)| InputKey::history(h, &files));
        let cached_history = derived
            .zip(history_key)
            .and_then(|(cache, key)| load_history(cache, key, files.len(), &mut derived_warnings));
        let history_cached = cached_history.is_some();
        let history_index =
            cached_history.or_else(|| history.as_deref().map(|h| HistoryIndex::build(h, &files)));
        if let Some(h) = &history_index {
            history_status.commits = h.commits;
            history_status.files = h.files;
        }

        let by_path = files
            .iter()
            .enumerate()
            .map(|(i, f)| (f.path.clone(), i))
            .collect();
        Ok(Index {
            root,
            files,
            docs,
            doc_stamps,
            skipped,
            unsupported: walked.unsupported,
            go_modules: walked.go_modules,
            graph,
            times: PhaseTimes {
                walk_ms,
                parse_ms,
                graph_ms,
                graph_cached,
            },
            reuse: counts,
            cache: None,
            cache_warning: None,
            derived_warnings,
            graph_unsaved: graph_key.filter(|_| !graph_cached),
            relinked,
            history_unsaved: history_key.filter(|_| !history_cached),
            derived_saved: Default::default(),
            walk_warnings: walked.warnings,
            cache_stale: false,
            cache_write: None,
            read_since_ns,
            trim_heap,
            signals: OnceLock::new(),
            by_path,
            line_costs: LineCostCache::default(),
            search: OnceLock::new(),
            history,
            history_index,
            history_status,
        })
    }

    /// The search index, built (or loaded from the derived cache) on first use, and the
    /// milliseconds that took.
    pub fn search_index(&self) -> (&SearchIndex, f64) {
        let built = self.built_search();
        (&built.index, built.ms)
    }

    /// Why the cached search index was not used, once search has run (see
    /// `derived_warnings`).
    pub fn search_cache_warning(&self) -> Option<&str> {
        self.search.get().and_then(|b| b.warning.as_deref())
    }

    fn built_search(&self) -> &BuiltSearch {
        self.search.get_or_init(|| {
            let t = Instant::now();
            let key = self
                .cache
                .as_ref()
                .map(|_| InputKey::search(&self.files, &self.docs, &SearchWeights::default()));
            let mut warning = None;
            let loaded = match (&self.cache, key) {
                (Some(cache), Some(key)) => {
                    match cache_blob::load::<SearchIndex>(cache, &cache_blob::SEARCH, key) {
                        BlobLoad::Hit(index) => match index.check_fits(&self.files, &self.docs) {
                            Ok(()) => Some(index),
                            Err(why) => {
                                warning = Some(format!(
                                    "cached search index of {} ignored: {why}; rebuilding",
                                    self.root.display()
                                ));
                                None
                            }
                        },
                        BlobLoad::Miss => None,
                        BlobLoad::Ignored(why) => {
                            warning = Some(why);
                            None
                        }
                    }
                }
                _ => None,
            };
            let cached = loaded.is_some();
            let index = loaded.unwrap_or_else(|| SearchIndex::build(&self.files, &self.docs));
            BuiltSearch {
                index,
                ms: ms_since(t),
                unsaved: key.filter(|_| !cached),
                warning,
            }
        })
    }

    /// Runs a search query against this index.
    pub fn search(&self, query: &str, opts: &SearchOptions) -> SearchResponse {
        let (search, _) = self.search_index();
        let ctx = SearchContext {
            files: &self.files,
            docs: &self.docs,
            prior: self.prior(),
            neighbors: self.neighbors(),
            history: self.history_index(),
        };
        search.search(&ctx, query, opts)
    }

    /// Search's history postings, when the commit history was read and touches indexed files.
    pub fn history_index(&self) -> Option<&HistoryIndex> {
        self.history_index.as_ref().filter(|h| !h.is_empty())
    }

    /// Unpersonalized PageRank per file: the search prior.
    pub fn prior(&self) -> &[f64] {
        &self.signals().prior
    }

    /// Undirected, weighted adjacency over files, for search's graph diffusion.
    pub fn neighbors(&self) -> &[Vec<(usize, f64)>] {
        &self.signals().neighbors
    }

    fn signals(&self) -> &GraphSignals {
        self.signals
            .get_or_init(|| graph_signals(&self.graph, self.files.len()))
    }

    /// The files that use identifier `name` defined in `def_path`: the sources of the file
    /// graph's edges into it that this identifier produced; code before tests and other
    /// supporting files, then strongest edge first, then by path. Empty when the file is not
    /// indexed or nothing links to it by that name.
    pub fn symbol_users(&self, def_path: &str, name: &str) -> Vec<String> {
        let Some(target) = self.file_index(def_path) else {
            return Vec::new();
        };
        let mut users: Vec<(bool, f64, &str)> = self
            .graph
            .incoming(target)
            .into_iter()
            .filter(|(src, _)| *src != target)
            .filter_map(|(src, edge)| {
                let w = self
                    .graph
                    .edge_idents(edge)
                    .into_iter()
                    .find(|(ident, _)| *ident == name)?
                    .1;
                let path = self.files.get(src)?.path.as_str();
                Some((self.graph.is_supporting(src), w, path))
            })
            .collect();
        users.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)).then(a.2.cmp(b.2)));
        users.into_iter().map(|(_, _, p)| p.to_string()).collect()
    }

    /// The index of a repo-relative path, if it is an indexed code file.
    pub fn file_index(&self, rel_path: &str) -> Option<usize> {
        self.by_path.get(rel_path).copied()
    }

    /// Turns a user-given path (absolute, relative to the current directory, or relative to
    /// the repo root) into an indexed file's position.
    pub fn resolve_user_path(&self, given: &str) -> Option<usize> {
        let normalized = given.trim_start_matches("./").replace('\\', "/");
        if let Some(i) = self.file_index(&normalized) {
            return Some(i);
        }
        let canonical = Path::new(given).canonicalize().ok()?;
        let rel = canonical.strip_prefix(&self.root).ok()?;
        self.file_index(&rel.to_string_lossy().replace('\\', "/"))
    }

    /// Ranks definitions for `req` (personalized PageRank over the file graph), with the
    /// files search finds for its query and the definitions of its identifiers first (see
    /// `task`).
    pub fn rank(&self, req: &MapRequest) -> RankOutput {
        let resolve_all = |paths: &[String]| -> Vec<usize> {
            paths
                .iter()
                .filter_map(|p| self.resolve_user_path(p))
                .collect()
        };
        let mut task = self.task(req);
        let mut exclude_files = resolve_all(&req.exclude_files);
        // Out of scope: no definitions listed and no personalization, edges kept.
        match Scope::new(&req.scope) {
            Ok(scope) if !scope.is_empty() => {
                exclude_files.extend(
                    self.files
                        .iter()
                        .enumerate()
                        .filter(|(_, f)| !scope.allows(&f.path, Some(f.lang)))
                        .map(|(i, _)| i),
                );
                if exclude_files.len() >= self.files.len() {
                    task.notes
                        .push("the scope leaves out every indexed code file".to_string());
                }
            }
            Ok(_) => {}
            Err(e) => task.notes.push(format!("scope ignored: {e}")),
        }
        let personalization = Personalization {
            focus_files: resolve_all(&req.focus),
            idents: req.idents.clone(),
            query: req.query.clone(),
            exclude_files,
            exclude_symbols: req.exclude_symbols.clone(),
            task_files: task
                .search_files
                .iter()
                .map(|t| (t.file, t.score))
                .collect(),
            word_share: req.task.word_share,
            pins: task.pins.clone(),
        };
        let mut out = rank(&self.files, &self.graph, &personalization);
        out.task = task;
        out
    }

    /// What the request's query and identifiers point at: search's files for the query and
    /// the definitions to pin, with a note for each part that was ignored.
    pub fn task(&self, req: &MapRequest) -> Task {
        let mut task = Task::default();
        for f in &req.focus {
            if self.resolve_user_path(f).is_none() {
                task.notes.push(format!(
                    "focus file `{f}` is not an indexed code file of the repository; ignored"
                ));
            }
        }
        task.add_idents(&self.files, &self.graph, &req.idents, true, &req.task);
        let Some(query) = req.query.as_deref().filter(|q| !q.trim().is_empty()) else {
            return task;
        };
        let query = match query.char_indices().nth(MAX_QUERY_CHARS) {
            Some((cut, _)) => {
                task.notes.push(format!(
                    "the query was cut to its first {MAX_QUERY_CHARS} characters"
                ));
                &query[..cut]
            }
            None => query,
        };
        let terms = query_terms(query);
        if terms.is_empty() {
            task.notes.push(
                "the query has no words to look for (only common words or punctuation); the \
                 map is the map without it"
                    .into(),
            );
            return task;
        }
        if self.graph.n == self.files.len() && !self.files.is_empty() {
            let opts = SearchOptions {
                top: MAX_TOP,
                files_mode: true,
                // The query's files come from the scope too (a bad scope is noted by `rank`).
                include: req.scope.include.clone(),
                exclude: req.scope.exclude.clone(),
                langs: req.scope.langs.clone(),
                ..SearchOptions::default()
            };
            let response = self.search(query, &opts);
            let by_path = |p: &str| self.file_index(p);
            task.add_search(&self.files, &response, &terms, &by_path, &req.task);
            if task.search_files.is_empty() {
                task.notes.push(
                    "search found no code file for the query; the map follows its words alone"
                        .into(),
                );
            }
        }
        let idents: Vec<String> = query_identifiers(query)
            .into_iter()
            .filter(|i| !req.idents.contains(i))
            .collect();
        task.add_idents(&self.files, &self.graph, &idents, false, &req.task);
        task
    }

    /// Ranks and fits a map to the request's budget.
    pub fn map(&self, req: &MapRequest) -> (RepoMap, RankOutput) {
        let ranked = self.rank(req);
        let mut map = self.fit(&ranked, req);
        self.find_next_budget(req, &ranked, &mut map);
        (map, ranked)
    }

    /// Sets `map.next_budget` when the request asks for it.
    fn find_next_budget(&self, req: &MapRequest, ranked: &RankOutput, map: &mut RepoMap) {
        if req.next_budget {
            map.next_budget = super::explain::budget_for_next_cut(self, req, ranked, map);
        }
    }

    /// `map` for an index that ranks only once (`mapscope map`): after ranking, frees what
    /// only the ranking needed (the graph; references and imports) and, unless the build was
    /// a small one-shot one, gives it back to the system, so the fit's peak memory (tokenizer
    /// tables, line costs) does not stack on it.
    /// The index can still render the map it returns, but further ranks see an empty graph.
    pub fn map_once(&mut self, req: &MapRequest) -> RepoMap {
        let ranked = self.rank(req);
        self.graph = FileGraph::default();
        self.signals = OnceLock::new();
        for f in &mut self.files {
            if let Some(tags) = Arc::get_mut(&mut f.tags) {
                tags.refs = RefList::new();
                tags.imports = Vec::new();
            }
        }
        if self.trim_heap {
            release_free_memory();
        }
        let mut map = self.fit(&ranked, req);
        self.find_next_budget(req, &ranked, &mut map);
        map
    }

    /// Whether `save_cache` would write (the cache lacks something this index parsed, or
    /// the graph or search index it linked or built).
    pub fn cache_pending(&self) -> bool {
        self.cache_write.is_some()
            || (self.cache.is_some() && (self.cache_stale || self.derived_pending()))
    }

    /// Whether the graph or the search index is built and not yet in the derived cache.
    fn derived_pending(&self) -> bool {
        let graph = self.graph_unsaved.is_some() && self.graph.n == self.files.len();
        let search = self.search.get().is_some_and(|b| b.unsaved.is_some());
        let history = self.history_unsaved.is_some() && self.history_index.is_some();
        (graph && !self.derived_saved[0].load(Ordering::Acquire))
            || (search && !self.derived_saved[1].load(Ordering::Acquire))
            || (history && !self.derived_saved[2].load(Ordering::Acquire))
    }

    /// Stores the graph and the search index in the derived cache if this index linked or
    /// built them (each once). Called by `save_cache`; the graph is gone after `map_once`.
    fn save_derived(&self) -> Result<bool, EngineError> {
        let Some(cache) = &self.cache else {
            return Ok(false);
        };
        let mut wrote = false;
        if let Some(key) = self.graph_unsaved {
            let whole = self.graph.n == self.files.len();
            if whole && !self.derived_saved[0].swap(true, Ordering::AcqRel) {
                cache_blob::save(cache, &cache_blob::GRAPH, key, &self.graph.stored())?;
                wrote = true;
            }
        }
        if let (Some(key), Some(history)) = (self.history_unsaved, &self.history_index) {
            if !self.derived_saved[2].swap(true, Ordering::AcqRel) {
                cache_blob::save(cache, &cache_blob::HISTORY, key, history)?;
                wrote = true;
            }
        }
        if let Some(built) = self.search.get() {
            if let Some(key) = built.unsaved {
                if !self.derived_saved[1].swap(true, Ordering::AcqRel) {
                    cache_blob::save(cache, &cache_blob::SEARCH, key, &built.index)?;
                    wrote = true;
                }
            }
        }
        Ok(wrote)
    }

    /// Takes out the cache file a one-shot build wrote as it parsed, for the caller to
    /// `finish` (e.g. on a side thread while it maps with `map_once`). Afterwards only the
    /// derived graph cache may still be pending (see `take_graph_save`).
    pub fn take_cache_write(&mut self) -> Option<CacheWriter> {
        self.cache_write.take()
    }

    /// Fits an already ranked list to the request's budget (cheap: per-line token counts are
    /// cached across calls).
    pub fn fit(&self, ranked: &RankOutput, req: &MapRequest) -> RepoMap {
        let opts = MapOptions {
            budget: req.budget,
            tokenizer: req.tokenizer,
            ..MapOptions::default()
        };
        let mut map = build_map(
            &self.files,
            &ranked.defs,
            &ranked.file_rank,
            &opts,
            &self.line_costs,
        );
        map.notes.clone_from(&ranked.task.notes);
        map.notes.extend(self.unsupported_note());
        map
    }

    /// One line naming the languages the map could not show, when their files are at least
    /// `UNSUPPORTED_NOTE_SHARE` of the code (and `UNSUPPORTED_NOTE_MIN_FILES` files).
    pub fn unsupported_note(&self) -> Option<String> {
        let unsupported = self.unsupported.len();
        let code = unsupported + self.files.len();
        if unsupported < UNSUPPORTED_NOTE_MIN_FILES
            || (unsupported as f64) < UNSUPPORTED_NOTE_SHARE * code as f64
        {
            return None;
        }
        let mut by_language: BTreeMap<&str, usize> = BTreeMap::new();
        for u in &self.unsupported {
            *by_language.entry(u.language).or_default() += 1;
        }
        let mut counts: Vec<(&str, usize)> = by_language.into_iter().collect();
        counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let skipped: Vec<String> = counts.iter().map(|(l, n)| format!("{l} {n}")).collect();
        Some(format!(
            "{unsupported} of {code} code files are in languages without a grammar and are not \
             in the map ({}); supported: {}",
            skipped.join(", "),
            super::lang::supported_language_names().join(", ")
        ))
    }

    /// Counts for `mapscope stats`.
    pub fn stats(&self) -> IndexStats {
        let mut stats = IndexStats {
            root: self.root.display().to_string(),
            files: self.files.len(),
            docs: self.docs.len(),
            graph_edges: self.graph.edge_count(),
            times: self.times,
            ..IndexStats::default()
        };
        for f in &self.files {
            *stats.files_by_language.entry(f.lang.name()).or_default() += 1;
            for d in &f.tags.defs {
                *stats.definitions_by_kind.entry(d.kind.name()).or_default() += 1;
            }
            for r in &f.tags.refs {
                *stats.references_by_kind.entry(r.kind.name()).or_default() += 1;
            }
            stats.definitions += f.tags.defs.len();
            stats.references += f.tags.refs.len();
            stats.imports += f.tags.imports.len();
            if f.tags.parse_errors > 0 {
                stats.files_with_parse_errors += 1;
                stats.parse_errors += f.tags.parse_errors as usize;
            }
        }
        stats.parse_error_files = self
            .files
            .iter()
            .filter(|f| f.tags.parse_errors > 0)
            .map(|f| ParseErrorFile {
                path: f.path.clone(),
                errors: f.tags.parse_errors,
            })
            .collect();
        stats.count_walk(&self.skipped, &self.unsupported);
        stats
    }
}

/// The map notes the languages without a grammar when their files are at least this share of
/// the repository's code files…
const UNSUPPORTED_NOTE_SHARE: f64 = 0.1;
/// …and at least this many files.
const UNSUPPORTED_NOTE_MIN_FILES: usize = 5;

/// A file tree-sitter reported syntax errors in (its tags are still extracted), or that could
/// not be parsed within its time budget (one error, no tags).
#[derive(Debug, Clone)]
pub struct ParseErrorFile {
    pub path: String,
    pub errors: u32,
}

/// Summary counts of an index (`mapscope stats`).
#[derive(Debug, Clone, Default)]
pub struct IndexStats {
    pub root: String,
    pub files: usize,
    pub docs: usize,
    pub files_by_language: BTreeMap<&'static str, usize>,
    pub definitions: usize,
    pub definitions_by_kind: BTreeMap<&'static str, usize>,
    pub references: usize,
    pub references_by_kind: BTreeMap<&'static str, usize>,
    pub imports: usize,
    pub graph_edges: usize,
    pub skipped_by_reason: BTreeMap<&'static str, usize>,
    pub files_with_parse_errors: usize,
    pub parse_errors: usize,
    pub times: PhaseTimes,
    /// Each skipped file or directory with its reason, by path.
    pub skipped_files: Vec<Skipped>,
    /// Each file with parse errors, by path.
    pub parse_error_files: Vec<ParseErrorFile>,
    /// Code files in languages without a grammar: how many, by extension (`.kt`) and by
    /// language (`kotlin`).
    pub unsupported_files: usize,
    pub unsupported_by_extension: BTreeMap<String, usize>,
    pub unsupported_by_language: BTreeMap<&'static str, usize>,
}

impl IndexStats {
    /// Adds what the walk and the loading left out: skipped files by reason, and code files
    /// in languages without a grammar by extension (`.kt`) and by language (`kotlin`).
    fn count_walk(&mut self, skipped: &[Skipped], unsupported: &[UnsupportedFile]) {
        for s in skipped {
            *self.skipped_by_reason.entry(s.reason.name()).or_default() += 1;
        }
        self.skipped_files = skipped.to_vec();
        self.unsupported_files = unsupported.len();
        for u in unsupported {
            let ext = u
                .rel_path
                .rsplit('/')
                .next()
                .and_then(|name| name.rsplit_once('.'))
                .map_or(String::new(), |(_, e)| {
                    format!(".{}", e.to_ascii_lowercase())
                });
            *self.unsupported_by_extension.entry(ext).or_default() += 1;
            *self.unsupported_by_language.entry(u.language).or_default() += 1;
        }
    }
}

/// Has each thread of rayon's pool allocate once, now, and waits for all of them. Call it
/// before a build starts its walk.
///
/// Why: glibc ties a thread to a malloc arena at its first allocation, for good: a new
/// arena while fewer than `M_ARENA_MAX` exist (one per pool thread, see `main.rs`), else
/// the first arena it finds unlocked at that moment. The pool's threads used to allocate
/// first during the walk, while other threads allocated too (the walker's own, then; the
/// calling thread, which lists the root, now), and two of them could land in the same
/// arena; the whole parse then took turns on that arena's lock (in 2 of 10 cold javapoet
/// maps, ~200 waits each). In the CLI, where the only other thread waits here, this gives
/// each pool thread but one a new arena and that one the main thread's (idle while the pool
/// parses); elsewhere (the TUI) the arenas exist already and the pool's threads take them
/// in turn. Measured against the build before it, 20 interleaved pairs
/// of cold `map`s: wall −4% on javapoet and `tr1`, −2 to −3% on guzzle and ripgrep
/// (BENCHMARKS.md, "Each parse thread in its own malloc arena"). Later calls cost one
/// wake-up of the pool; its threads keep their arenas.
pub fn attach_pool_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    rayon::broadcast(|_| take_arena());
}

/// Compiling the tags queries of the languages a build's walk finds, ahead of their first
/// parse: compiling takes tens of milliseconds per language (TS, TSX and JS together ~0.19 s
/// on vite), and the first parse of a language would otherwise compile it while the other
/// parse threads wait on the same query.
///
/// The walk runs on rayon's pool too, so while it runs one compile job at a time takes the
/// languages in the order found and the other threads walk on; a compile job spawned per
/// language would take every pool thread while the walk's directories waited behind them
/// (guzzle's walk, which finds PHP, Python and JavaScript: 6.6 → 51 ms). Languages still
/// waiting when the walk ends get a job each (`walk_done`), in parallel with the parse.
/// `compiled_tags_query` waits for a compile under way or finds it done.
struct QueryPrefetch {
    state: Arc<PrefetchQueue>,
}

#[derive(Default)]
struct PrefetchQueue {
    /// Claimed languages not compiling yet, in the order the walk found them.
    waiting: Mutex<VecDeque<super::model::Lang>>,
    /// Whether the walk's one compile job is running (it takes from `waiting` until empty).
    compiling: AtomicBool,
}

impl QueryPrefetch {
    fn new() -> QueryPrefetch {
        QueryPrefetch {
            state: Arc::default(),
        }
    }

    /// A file of `lang` found by the walk (on a pool thread): queues its query, unless this
    /// process claimed it before, and starts the compile job if none runs.
    fn during_walk(&self, lang: super::model::Lang) {
        if !claim_tags_query_prefetch(lang) {
            return;
        }
        self.state.waiting().push_back(lang);
        if !self.state.compiling.swap(true, Ordering::AcqRel) {
            let queue = Arc::clone(&self.state);
            rayon::spawn(move || queue.compile_all());
        }
    }

    /// The walk is over: each language still waiting gets a compile job of its own.
    fn walk_done(&self) {
        for lang in std::mem::take(&mut *self.state.waiting()) {
            rayon::spawn(move || compile_ahead(lang));
        }
    }
}

/// Compiles `lang`'s tags query ahead of its first parse. A query that fails to compile
/// fails each file's tags, as without the compile ahead.
fn compile_ahead(lang: super::model::Lang) {
    let _ = compiled_tags_query(lang);
}

impl PrefetchQueue {
    fn waiting(&self) -> std::sync::MutexGuard<'_, VecDeque<super::model::Lang>> {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The walk's compile job: compiles what waits until nothing does.
    fn compile_all(&self) {
        loop {
            let next = self.waiting().pop_front();
            match next {
                Some(lang) => compile_ahead(lang),
                None => {
                    self.compiling.store(false, Ordering::Release);
                    // A language queued between the empty pop and the store above would
                    // have seen the job running and not started one: take it now.
                    if self.waiting().is_empty() || self.compiling.swap(true, Ordering::AcqRel) {
                        return;
                    }
                }
            }
        }
    }
}

/// Whether a build will probably parse `f`: no cached or previous tags for it by size and
/// mtime (the test `unchanged_file` makes first). Only then is its language's query worth
/// compiling during the walk; a warm start compiles none.
fn likely_parsed(reuse: Reuse<'_>, f: &WalkedFile) -> bool {
    match reuse {
        Reuse::Nothing => true,
        Reuse::Store(store) => store
            .unchanged_for_map(&f.rel_path, f.lang, f.size, f.mtime_ns)
            .is_none(),
        Reuse::Previous { index, changed } => previous_unchanged(index, changed, f).is_none(),
    }
}

/// The previous index's file for `f` when a refresh can take it over unread: not among the
/// changed paths, and the same language, size and mtime (a missing mtime never matches).
fn previous_unchanged<'i>(
    index: &'i Index,
    changed: &BTreeSet<String>,
    f: &WalkedFile,
) -> Option<&'i ParsedFile> {
    if changed.contains(&f.rel_path) || f.mtime_ns == 0 {
        return None;
    }
    let old = &index.files[index.file_index(&f.rel_path)?];
    (old.lang == f.lang && old.size == f.size && old.mtime_ns == f.mtime_ns).then_some(old)
}

fn unchanged_file(reuse: Reuse<'_>, f: &WalkedFile, map_only: bool) -> Option<ParsedFile> {
    let (index, changed) = match reuse {
        Reuse::Previous { index, changed } => (index, changed),
        // A map-only build takes a cache entry unread when the file is unchanged by size
        // and mtime: the entry holds all a map needs of it (`MapLines`).
        Reuse::Store(store) if map_only => {
            let hit = store.unchanged_for_map(&f.rel_path, f.lang, f.size, f.mtime_ns)?;
            let lines = hit.lines.clone()?;
            let mut file = ParsedFile::from_map_lines(
                f.rel_path.clone(),
                f.lang,
                f.size,
                lines,
                hit.tags.clone(),
            );
            file.unread_links.clone_from(&hit.unread_links);
            return Some(file.with_stamp(f.mtime_ns, hit.hash));
        }
        Reuse::Store(_) | Reuse::Nothing => return None,
    };
    previous_unchanged(index, changed, f).cloned()
}

/// A one-shot map's copy of a file's fresh tags, in new allocations, without what only
/// search reads (`Definition::parent`) and without the references (counted for binding by
/// then, see `UseCounts`).
///
/// Why: the tags were allocated while the file's parse tree was alive, so their many small
/// blocks (names, scope lists, import names) sit scattered between the tree's nodes; once
/// the tree is freed, every page holding one of them stays resident. Copied now, they fill
/// the freed space contiguously and the originals' pages can be trimmed (mypy: ~2 MB).
fn rehomed(tags: FileTags) -> FileTags {
    FileTags {
        defs: tags
            .defs
            .iter()
            .map(|d| Definition {
                name: d.name.clone(),
                kind: d.kind,
                lines: d.lines,
                signature: d.signature,
                parent: None,
                scope_lines: d.scope_lines.clone(),
            })
            .collect(),
        refs: RefList::new(),
        imports: tags.imports.clone(),
        parse_errors: tags.parse_errors,
        module_scoped: tags.module_scoped,
    }
}

/// Moves the files' imports out of them, and their references counted (`counted[i]` when
/// already done at parse time), leaving copies where their tags are shared (e.g. with a
/// previous index).
fn take_uses(
    files: &mut [ParsedFile],
    counted: Vec<Option<UseCounts>>,
    trim_heap: bool,
    query_words: bool,
) -> TakenUses {
    let mut uses = TakenUses {
        refs: Vec::with_capacity(files.len()),
        imports: Vec::with_capacity(files.len()),
        trim_heap,
        query_words,
    };
    let mut counted = counted.into_iter();
    for f in files {
        let done = counted.next().flatten();
        let refs = done.unwrap_or_else(|| UseCounts::from_refs(&f.tags.refs));
        let imports = match Arc::get_mut(&mut f.tags) {
            Some(tags) => {
                tags.refs = RefList::new();
                std::mem::take(&mut tags.imports)
            }
            None => f.tags.imports.clone(),
        };
        uses.refs.push(refs);
        uses.imports.push(imports);
    }
    uses
}

fn canonical_root(root: &Path) -> Result<PathBuf, EngineError> {
    root.canonicalize().map_err(|source| EngineError::Io {
        path: root.to_path_buf(),
        source,
    })
}

/// Extracts tags, turning a panic inside the parser (which must not happen, but one bad file
/// must never take the whole index down) into an empty, error-flagged result.
/// With `may_defer`, a file whose query is still compiling comes back parsed
/// (`tags::extract_tags_or_parse`).
fn parse_guarded(lang: super::model::Lang, text: &str, may_defer: bool) -> Tagging {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        extract_tags_or_parse(lang, text, may_defer)
    }))
    .unwrap_or_else(|_| Tagging::Done(unparsed()))
}

/// Runs `run` on each item of `order` on the rayon pool, each pool thread taking the next
/// item in `order`'s sequence, and returns every item's result with its index (in no
/// particular order). An item that comes back waiting is finished (`finish`) after a later
/// item's run once `ready` holds for it, one after each run, so that the threads spread its
/// work; those still waiting after the last run are finished in parallel at the end.
fn run_with_waiting<T: Send, W: Send>(
    order: Vec<usize>,
    run: impl Fn(usize) -> Step<T, W> + Sync,
    ready: impl Fn(&W) -> bool + Sync,
    finish: impl Fn(usize, W) -> T + Sync,
) -> Vec<(usize, T)> {
    let waiting: Mutex<Vec<(usize, W)>> = Mutex::default();
    // Each thread takes the next item of `order` from one shared counter, so items start in
    // `order`'s sequence (largest files first) and every thread ends on the smallest files.
    // A split parallel iterator hands threads contiguous ranges instead: the stealing thread
    // starts on the small half while the other works down from the largest. Measured, the
    // counter took javapoet's parse from 0.974 to 0.988 parallel efficiency and vite's cold
    // map from 0.92 s to 0.83 s.
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, T)>> = Mutex::new(Vec::with_capacity(order.len()));
    let work = || {
        let mut mine = Vec::new();
        while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
            match run(i) {
                Step::Done(result) => mine.push((i, result)),
                Step::Waiting(w) => lock(&waiting).push((i, w)),
            }
            // Items are pushed and taken whole: a panic elsewhere leaves the list valid.
            let ready_one = {
                let mut waiting = lock(&waiting);
                let at = waiting.iter().position(|(_, w)| ready(w));
                at.map(|at| waiting.swap_remove(at))
            };
            if let Some((j, w)) = ready_one {
                mine.push((j, finish(j, w)));
            }
        }
        lock(&results).append(&mut mine);
    };
    rayon::scope(|s| {
        for _ in 1..rayon::current_num_threads() {
            s.spawn(|_| work());
        }
        work();
    });
    let mut results = results
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let left = std::mem::take(&mut *lock(&waiting));
    results.par_extend(
        left.into_par_iter()
            .with_max_len(1)
            .map(|(j, w)| (j, finish(j, w))),
    );
    results
}

/// `finish_tags` with the same guard as `parse_guarded`.
fn finish_guarded(parsed: ParsedAhead, text: &str) -> FileTags {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| finish_tags(parsed, text)))
        .unwrap_or_else(|_| unparsed())
}

/// The graph of `files` from the derived cache, if it holds the one linked from `key`; a
/// file that does not check out adds a warning.
fn load_graph(
    cache: &DiskCache,
    key: InputKey,
    files: &[ParsedFile],
    warnings: &mut Vec<String>,
) -> Option<FileGraph> {
    load_checked(
        cache,
        &cache_blob::GRAPH,
        key,
        "graph",
        "relinking",
        warnings,
        |stored| FileGraph::from_stored(stored, files),
    )
}

/// The history index from the derived cache, if it holds the one built from `key`.
fn load_history(
    cache: &DiskCache,
    key: InputKey,
    n_files: usize,
    warnings: &mut Vec<String>,
) -> Option<HistoryIndex> {
    load_checked(
        cache,
        &cache_blob::HISTORY,
        key,
        "history index",
        "rebuilding",
        warnings,
        |index: HistoryIndex| index.check_fits(n_files).map(|()| index),
    )
}

/// A derived structure from the cache, kept only if `check` accepts it; a damaged, foreign
/// or misfit one adds a warning ("cached graph of ROOT ignored: WHY; relinking").
fn load_checked<S: serde::de::DeserializeOwned, T>(
    cache: &DiskCache,
    kind: &cache_blob::BlobKind,
    key: InputKey,
    what: &str,
    instead: &str,
    warnings: &mut Vec<String>,
    check: impl FnOnce(S) -> Result<T, String>,
) -> Option<T> {
    match cache_blob::load::<S>(cache, kind, key) {
        BlobLoad::Hit(stored) => match check(stored) {
            Ok(value) => Some(value),
            Err(why) => {
                warnings.push(format!(
                    "cached {what} of {} ignored: {why}; {instead}",
                    cache.root().display()
                ));
                None
            }
        },
        BlobLoad::Miss => None,
        BlobLoad::Ignored(why) => {
            warnings.push(why);
            None
        }
    }
}

/// What search takes from the file graph.
struct GraphSignals {
    prior: Vec<f64>,
    neighbors: Vec<Vec<(usize, f64)>>,
}

/// The unpersonalized PageRank (search prior) and an undirected adjacency list with the
/// weights of both directions summed (search diffusion runs both ways).
fn graph_signals(graph: &FileGraph, n: usize) -> GraphSignals {
    let mut edges = Vec::with_capacity(graph.edge_count());
    let mut undirected: BTreeMap<(usize, usize), f64> = BTreeMap::new();
    for (a, b, e) in graph.all_edges() {
        let w = e.weight;
        edges.push((a, b, w));
        if a != b {
            *undirected.entry((a.min(b), a.max(b))).or_default() += w;
        }
    }
    let prior = pagerank(n, &edges, None, &PageRankOptions::default());
    let mut neighbors = vec![Vec::new(); n];
    for ((a, b), w) in undirected {
        neighbors[a].push((b, w));
        neighbors[b].push((a, w));
    }
    GraphSignals { prior, neighbors }
}

/// Reads the prose and config files search's text evidence needs, with their stamps. A
/// refresh takes over the text of a doc the edit did not touch (not among the changed paths,
/// same size and mtime), as it does for code files (`unchanged_file`): rereading every doc
/// was a fifth of a one-file refresh on terraform.
fn load_docs(docs: &[DocFile], max_size: u64, reuse: Reuse<'_>) -> (Vec<TextDoc>, Vec<DocStamp>) {
    let previous = match reuse {
        Reuse::Previous { index, changed } => Some((index, changed)),
        Reuse::Store(_) | Reuse::Nothing => None,
    };
    docs.par_iter()
        .filter_map(|d| {
            let stamp = DocStamp {
                size: d.size,
                mtime_ns: d.mtime_ns,
            };
            let kept = previous.and_then(|(index, changed)| {
                if d.mtime_ns == 0 || changed.contains(&d.rel_path) {
                    return None;
                }
                // The previous docs are sorted by path, as the walk lists them.
                let i = index
                    .docs
                    .binary_search_by(|p| p.path.as_str().cmp(&d.rel_path))
                    .ok()?;
                (index.doc_stamps.get(i) == Some(&stamp)).then(|| index.docs[i].clone())
            });
            if let Some(doc) = kept {
                return Some((doc, stamp));
            }
            let text = load_source(&d.abs_path, &d.rel_path, max_size).ok()?;
            let doc = TextDoc {
                path: d.rel_path.clone(),
                text: Arc::from(text),
            };
            Some((doc, stamp))
        })
        .unzip()
}

/// What identifies a doc's content for a refresh: size and mtime as the walk saw them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct DocStamp {
    size: u64,
    mtime_ns: i64,
}

/// What was found instead of code to index, for the `REPO_EMPTY` message: the languages
/// without a grammar ("3 kotlin, 1 swift"), what was skipped and why ("3 binary,
/// 1 node_modules"), or that no file has a supported extension.
pub fn skip_summary(skipped: &[Skipped], unsupported: &[UnsupportedFile]) -> String {
    let mut parts: Vec<String> = Vec::new();
    if !unsupported.is_empty() {
        let mut langs: BTreeMap<&str, usize> = BTreeMap::new();
        for u in unsupported {
            *langs.entry(u.language).or_default() += 1;
        }
        let found: Vec<String> = langs.iter().map(|(l, n)| format!("{n} {l}")).collect();
        parts.push(format!(
            "only code in languages without a grammar here: {}",
            found.join(", ")
        ));
    }
    if !skipped.is_empty() {
        let mut counts: BTreeMap<SkipReason, usize> = BTreeMap::new();
        for s in skipped {
            *counts.entry(s.reason).or_default() += 1;
        }
        let reasons: Vec<String> = counts
            .iter()
            .map(|(reason, n)| format!("{n} {}", reason.name()))
            .collect();
        parts.push(format!("skipped: {}", reasons.join(", ")));
    }
    if parts.is_empty() {
        let langs: Vec<&str> = super::model::Lang::ALL.iter().map(|l| l.name()).collect();
        return format!(
            "no files with a supported extension (languages read: {})",
            langs.join(", ")
        );
    }
    parts.join("; ")
}

fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The walk's compile job takes the languages in the order found and leaves nothing
    /// queued and no job marked running; once the walk ends, what still waits gets a job
    /// each and leaves the queue. (Only the queue is driven here: the process-wide claims
    /// in `lang` belong to the builds other tests run at the same time.)
    #[test]
    fn the_walks_compile_job_drains_its_queue_and_the_walks_end_takes_the_rest() {
        use super::super::model::Lang;
        let queue = PrefetchQueue::default();
        queue.waiting().extend([Lang::Python, Lang::Go]);
        queue.compiling.store(true, Ordering::Release);
        queue.compile_all();
        assert!(queue.waiting().is_empty());
        assert!(!queue.compiling.load(Ordering::Acquire));
        assert!(compiled_tags_query(Lang::Python).is_ok() && compiled_tags_query(Lang::Go).is_ok());

        let prefetch = QueryPrefetch::new();
        prefetch.state.waiting().extend([Lang::Java, Lang::Ruby]);
        prefetch.walk_done();
        assert!(prefetch.state.waiting().is_empty());
        // The jobs `walk_done` started finish on the pool.
        assert!(compiled_tags_query(Lang::Java).is_ok() && compiled_tags_query(Lang::Ruby).is_ok());
    }

    /// The parse trims every 16 files up to the 256th, every 64 after it.
    #[test]
    fn the_parse_trims_less_often_past_its_first_files() {
        let trims: Vec<usize> = (1..=400).filter(|&n| trims_before_file(n)).collect();
        let mut want: Vec<usize> = (1..=16).map(|k| k * TRIM_EVERY).collect();
        want.extend([320, 384]);
        assert_eq!(trims, want);
    }

    /// Only a one-shot build of a small tree skips the heap trims after its parse; a build
    /// that keeps its index (the TUI, the servers) trims as before.
    #[test]
    fn only_a_small_one_shot_build_skips_the_trims_after_its_parse() {
        assert!(!trims_heap_after_parse(0));
        assert!(!trims_heap_after_parse(TRIM_AFTER_PARSE_MIN_BYTES - 1));
        assert!(trims_heap_after_parse(TRIM_AFTER_PARSE_MIN_BYTES));
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("a.py"), "def alpha():\n    return beta()\n").unwrap();
        std::fs::write(tmp.path().join("b.py"), "def beta():\n    return 1\n").unwrap();
        let one_shot = IndexOptions {
            use_cache: false,
            consume_refs: true,
            map_lines_only: true,
            ..IndexOptions::default()
        };
        let mut index = Index::build(tmp.path(), &one_shot).unwrap();
        assert!(!index.trim_heap);
        // The map is the same either way.
        let kept = Index::build(
            tmp.path(),
            &IndexOptions {
                use_cache: false,
                ..IndexOptions::default()
            },
        )
        .unwrap();
        assert!(kept.trim_heap);
        let req = MapRequest::default();
        assert_eq!(index.map_once(&req).text, kept.map(&req).0.text);
    }

    /// Items start in `order`'s sequence (the parse's largest-first order): one thread takes
    /// them exactly in order, and two threads claim them in turn from one counter, so an item
    /// starts near its place in `order`. Each item takes 0.2 ms, so that only a preemption of
    /// over a millisecond between a claim and its record could move one by `SLACK`; a split
    /// parallel iterator starts the second half's first item ~60 places early.
    #[test]
    fn items_start_in_the_given_order() {
        let order: Vec<usize> = (0..120).map(|k| (k * 37) % 120).collect();
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let started = Mutex::new(Vec::new());
            let results = pool.install(|| {
                run_with_waiting(
                    order.clone(),
                    |i| {
                        lock(&started).push(i);
                        std::thread::sleep(std::time::Duration::from_micros(200));
                        Step::<usize, usize>::Done(i)
                    },
                    |_| true,
                    |i, _| i,
                )
            });
            assert_eq!(results.len(), order.len());
            let started = started.into_inner().unwrap();
            const SLACK: usize = 8;
            for (at, item) in started.iter().enumerate() {
                let place = order.iter().position(|o| o == item).unwrap();
                let allowed = if threads == 1 { 0 } else { SLACK };
                assert!(
                    place.abs_diff(at) <= allowed,
                    "{threads} threads: item {item} started {at}th, {place}th in order"
                );
            }
        }
    }

    /// Every item comes back once with its own result: done at once, finished by a later
    /// job once ready, or finished at the end when it never became ready during the run.
    #[test]
    fn every_item_comes_back_once_whether_it_waited_or_not() {
        const ITEMS: usize = 200;
        for ready_after in [0, 50, ITEMS + 1] {
            let ran = AtomicUsize::new(0);
            let finished_during_run = AtomicUsize::new(0);
            let results = run_with_waiting(
                (0..ITEMS).rev().collect(),
                |i| {
                    ran.fetch_add(1, Ordering::SeqCst);
                    if i % 3 == 0 {
                        Step::Waiting(i)
                    } else {
                        Step::Done(i * 10)
                    }
                },
                |_| ran.load(Ordering::SeqCst) > ready_after,
                |i, waited| {
                    assert_eq!(i, waited, "finished with its own item");
                    if ran.load(Ordering::SeqCst) < ITEMS {
                        finished_during_run.fetch_add(1, Ordering::SeqCst);
                    }
                    i * 10 + 1
                },
            );
            let mut results = results;
            results.sort_unstable();
            let expected: Vec<(usize, usize)> = (0..ITEMS)
                .map(|i| (i, if i % 3 == 0 { i * 10 + 1 } else { i * 10 }))
                .collect();
            assert_eq!(results, expected, "ready after {ready_after} jobs");
            let early = finished_during_run.load(Ordering::SeqCst);
            if ready_after > ITEMS {
                assert_eq!(
                    early, 0,
                    "never ready during the run: all finished at the end"
                );
            } else {
                assert!(early > 0, "ready during the run: jobs finish waiting items");
            }
        }
    }
}
