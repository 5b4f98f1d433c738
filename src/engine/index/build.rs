//! The build pipeline: walk → load and parse in parallel → graph → history, and the
//! refresh that takes over what did not change. Runs on the caller's thread; the walk and the
//! parse fan out over rayon's pool, one tree-sitter parser per thread, and the history is
//! read on a thread of its own (`history_job`) from the start of the walk.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use rayon::prelude::*;

use crate::engine::base::error::EngineError;
use crate::engine::base::heap::release_free_memory;
use crate::engine::base::lock;
use crate::engine::base::model::{Definition, FileTags, ParsedFile, RefList, SkipReason, Skipped};
use crate::engine::base::model::{GoModule, TsPaths};
use crate::engine::base::stats::{IndexStats, PhaseTimes};
use crate::engine::index::derived::{load_checked, load_graph, load_history};
use crate::engine::index::generated::GeneratedFiles;
use crate::engine::index::history_job::{HistoryJob, HistoryOutcome};
use crate::engine::index::memory::{attach_pool_arenas, trims_before_file, trims_heap_after_parse};
use crate::engine::index::parts::{ms_since, DocEntry, DocStamp, DocTable, SearchAhead};
use crate::engine::index::prefetch::QueryPrefetch;
use crate::engine::index::{
    BuildPhase, BuildProgress, HistoryStatus, Index, IndexOptions, Reuse, ReuseCounts,
};
use crate::engine::ingest::content::load_source;
use crate::engine::ingest::file_tags::{finish_guarded, parse_guarded};
use crate::engine::ingest::history::CommitHistory;
use crate::engine::ingest::lang::{tags_query_compiling, tags_query_prefetched};
use crate::engine::ingest::tags::{ParsedAhead, Tagging};
use crate::engine::ingest::walk::WalkOutput;
use crate::engine::ingest::walk::{licences, walk_observed, DocFile, UnsupportedFile, WalkedFile};
use crate::engine::link::graph::FileGraph;
use crate::engine::link::graph::{
    build_graph, build_graph_consuming, build_graph_relinking, TakenUses, UseCounts,
};
use crate::engine::rank::repo_map::LineCostCache;
use crate::engine::search::{HistoryIndex, TextDoc};
use crate::engine::store::blob::{self, InputKey};
use crate::engine::store::dir::DiskCache;
use crate::engine::store::tags::{
    content_hash, now_ns, read_links, CacheWriter, Decode, Loaded as CacheLoaded, TagStore,
};

/// A job's outcome in `run_with_waiting`: its result, or what waits for something another
/// thread is making (a file's tree, for its language's tags query).
pub(super) enum Step<T, W> {
    Done(T),
    Waiting(W),
}

/// A file parsed while its language's query compiled (`tags::extract_tags_or_parse`).
pub(super) struct ParsedAheadFile {
    text: String,
    hash: u64,
    parsed: ParsedAhead,
}

/// At most this much source waits, parsed, for its query at a time. The wait is the compile
/// (tens of milliseconds) and one core parses meanwhile, so this is rarely reached; it bounds
/// the trees held (roughly ten times their source) if a compile is slow to start.
pub(super) const MAX_PARSED_AHEAD_BYTES: usize = 4 << 20;

/// Outcome of loading one walked file.
pub(super) enum Loaded {
    /// A one-shot build's file also has its references counted (then taken out of it).
    File(ParsedFile, Origin, Option<UseCounts>),
    Skip(Skipped),
}

#[derive(Clone, Copy)]
pub(super) enum Origin {
    Parsed,
    HashHit,
    Unchanged,
}

impl Index {
    /// Walks, parses and links `root`. Fails with `RepoNotFound`, `InvalidRepo`, or
    /// `RepoEmpty` (with a summary of what was skipped and why) when nothing is indexable:
    /// no code file, and no source file without a grammar to map by its path.
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
        let mut search_ahead = None;
        let (cache, loaded) = match cache {
            Ok(cache) => {
                search_ahead = opts
                    .search_soon
                    .then(|| SearchAhead::start(&cache))
                    .flatten();
                // A map-only build reads references only if the graph must be linked again,
                // a search's as it needs them.
                let decode = if opts.map_lines_only || (opts.lazy_links && opts.lazy_sources) {
                    Decode::LinksUnread
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
        index.search_ahead = Mutex::new(search_ahead);
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
    pub(super) fn build_inner(
        root: &Path,
        opts: &IndexOptions,
        reuse: Reuse<'_>,
        cache_write: Option<&CacheWriter>,
        derived: Option<&DiskCache>,
        progress: &(dyn Fn(BuildProgress) + Sync),
    ) -> Result<Index, EngineError> {
        // Files a refresh takes over unread were read by an earlier build (see
        // `read_since_ns`). Cache entries a map-only build takes unread need no such care:
        // each was taken because it was modified well before its own read.
        let read_since_ns = match reuse {
            Reuse::Previous { index, .. } => index.read_since_ns.min(now_ns()),
            Reuse::Store(_) | Reuse::Nothing => now_ns(),
        };
        let build = Build {
            opts,
            reuse,
            cache_write,
            derived,
            progress,
            one_shot: opts.consume_refs && (!opts.use_cache || cache_write.is_some()),
        };
        // The history is read beside the walk and the parse (a root that does not resolve
        // fails the walk, below).
        let start_history = |root: &Path| {
            HistoryJob::start(
                root,
                &opts.history,
                opts.use_cache,
                reuse,
                opts.lazy_sources,
            )
        };
        let history_job = root.canonicalize().map(|root| start_history(&root));
        let (walked, root, walk_ms) = build.walk(root)?;
        let history_job = history_job.unwrap_or_else(|_| start_history(&root));
        // Only a small one-shot build skips the trims after its parse.
        let trim_heap =
            !build.one_shot || trims_heap_after_parse(walked.files.iter().map(|f| f.size).sum());
        let parsed = build.parse(&walked)?;
        let mut derived_warnings = Vec::new();
        let loaded_docs = if opts.skip_docs {
            LoadedDocs::default()
        } else {
            build.load_docs(&walked.docs, read_since_ns, &mut derived_warnings)
        };
        let (docs, doc_stamps) = (loaded_docs.docs, loaded_docs.stamps);
        let mut skipped = walked.skipped;
        skipped.extend(parsed.skipped);
        skipped.sort_by(|a, b| a.path.cmp(&b.path));
        let mut files = parsed.files;
        mark_vendored_by_licence(&mut files, &walked.vendored_dirs);
        // Source files without a grammar are still mapped by their paths: a repository of
        // only those is not empty.
        if files.is_empty() && walked.unsupported.is_empty() {
            let mut stats = IndexStats {
                root: root.display().to_string(),
                docs: docs.len(),
                times: PhaseTimes {
                    walk_ms,
                    parse_ms: parsed.ms,
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
        let linked = build.link(
            &mut files,
            parsed.counted,
            &walked.go_modules,
            &walked.ts_paths,
            trim_heap,
            &mut derived_warnings,
        );
        let history = build.read_history(history_job, &root, &files, &mut derived_warnings);
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
            ts_paths: walked.ts_paths,
            vendored_dirs: walked.vendored_dirs,
            graph: linked.graph,
            times: PhaseTimes {
                walk_ms,
                parse_ms: parsed.ms,
                graph_ms: linked.ms,
                graph_cached: linked.cached,
            },
            reuse: parsed.counts,
            cache: None,
            cache_warning: None,
            derived_warnings,
            graph_unsaved: linked.key.filter(|_| !linked.cached),
            relinked: linked.relinked,
            history_unsaved: history.key.filter(|_| !history.cached),
            history_head: history.head,
            docs_unsaved: loaded_docs.unsaved,
            derived_saved: Default::default(),
            generated: GeneratedFiles::new(opts.walk.max_file_size),
            walk_warnings: walked.warnings,
            cache_stale: false,
            cache_write: None,
            read_since_ns,
            trim_heap,
            signals: OnceLock::new(),
            linked: OnceLock::new(),
            by_path,
            line_costs: LineCostCache::default(),
            search: OnceLock::new(),
            search_ahead: Mutex::default(),
            history: history.history,
            history_index: history.index,
            history_status: history.status,
        })
    }
}

/// One build's settings, for its stages: the walk, the parse, the link, the history.
struct Build<'a> {
    opts: &'a IndexOptions,
    reuse: Reuse<'a>,
    /// A one-shot build's new tag cache, filled as files load.
    cache_write: Option<&'a CacheWriter>,
    /// The cache the derived structures are loaded from (and keyed for).
    derived: Option<&'a DiskCache>,
    progress: &'a (dyn Fn(BuildProgress) + Sync),
    /// Ranked once (`IndexOptions::consume_refs`) and writing its cache as it parses, or
    /// keeping none: references are handed to the graph build and freed as it binds.
    one_shot: bool,
}

/// What the parse stage loaded: the files in walk order (with their references counted
/// already, for a one-shot build), those it skipped, how each was obtained.
struct Parsed {
    files: Vec<ParsedFile>,
    counted: Vec<Option<UseCounts>>,
    skipped: Vec<Skipped>,
    counts: ReuseCounts,
    ms: f64,
}

/// The linked graph, and how it was obtained.
struct Linked {
    graph: FileGraph,
    ms: f64,
    /// Loaded from the derived cache.
    cached: bool,
    /// The key of its inputs, when there is a derived cache.
    key: Option<InputKey>,
    /// For a refresh: how many files were bound again.
    relinked: Option<usize>,
}

/// The commit history read for search and its postings.
struct History {
    history: Option<Arc<CommitHistory>>,
    index: Option<HistoryIndex>,
    status: HistoryStatus,
    key: Option<InputKey>,
    /// The commit the history is of (`HistoryOutcome::head`).
    head: Option<String>,
    /// The postings came from the derived cache.
    cached: bool,
}

impl Build<'_> {
    /// The walk, while the tags queries of the languages it finds compile; the canonical
    /// root and the walk's milliseconds.
    fn walk(&self, root: &Path) -> Result<(WalkOutput, PathBuf, f64), EngineError> {
        let t0 = Instant::now();
        (self.progress)(BuildProgress {
            phase: BuildPhase::Walk,
            done: 0,
            total: 0,
        });
        // Before the walk, which runs on the pool while this thread lists the root (see
        // `attach_pool_arenas`).
        attach_pool_arenas();
        let prefetch = QueryPrefetch::new();
        let walked = walk_observed(root, &self.opts.walk, &|f| {
            if !tags_query_prefetched(f.lang) && likely_parsed(self.reuse, f) {
                prefetch.during_walk(f.lang);
            }
        });
        prefetch.walk_done();
        let walked = walked?;
        let root = canonical_root(root)?;
        Ok((walked, root, ms_since(t0)))
    }

    /// Loads and parses every walked code file on the pool, largest first, taking tags
    /// from the cache or the previous index where the content is unchanged; stops early
    /// (`EngineError::Stopped`) when the build's budget runs out (`base::limits`).
    fn parse(&self, walked: &WalkOutput) -> Result<Parsed, EngineError> {
        let t1 = Instant::now();
        let (opts, reuse, cache_write, one_shot) =
            (self.opts, self.reuse, self.cache_write, self.one_shot);
        let max_size = opts.walk.max_file_size;
        let total = walked.files.len();
        let step = (total / 100).max(1);
        let done = AtomicUsize::new(0);
        (self.progress)(BuildProgress {
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
            if let Some(same) = unchanged_file(reuse, f, opts) {
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
                    match parse_guarded(f.lang, &f.rel_path, &text, may_defer) {
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
                    (self.progress)(BuildProgress {
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
        let mut files = Vec::with_capacity(loaded.len());
        let mut counted = Vec::with_capacity(loaded.len());
        let mut skipped = Vec::new();
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
        Ok(Parsed {
            files,
            counted,
            skipped,
            counts,
            ms: ms_since(t1),
        })
    }

    /// The graph: from the derived cache when it holds the one of these inputs, else
    /// linked (a one-shot build consuming the references, a refresh rebinding only what
    /// the edit can have changed).
    fn link(
        &self,
        files: &mut [ParsedFile],
        counted: Vec<Option<UseCounts>>,
        go_modules: &[GoModule],
        ts_paths: &[TsPaths],
        trim_heap: bool,
        derived_warnings: &mut Vec<String>,
    ) -> Linked {
        let t2 = Instant::now();
        (self.progress)(BuildProgress {
            phase: BuildPhase::Graph,
            done: files.len(),
            total: files.len(),
        });
        let derived = self.derived;
        let key = derived.map(|_| InputKey::graph(files, go_modules, ts_paths));
        let cached_graph = match (derived, key) {
            (Some(cache), Some(key)) => load_graph(cache, key, files, derived_warnings),
            _ => None,
        };
        let cached = cached_graph.is_some();
        if !cached {
            for f in files.iter_mut() {
                if let Err(why) = read_links(f) {
                    derived_warnings.push(why);
                }
            }
        }
        let mut relinked = None;
        let graph = if let Some(graph) = cached_graph {
            graph
        } else if self.one_shot {
            // The parse trees are gone: give their pages back before the graph is built.
            if trim_heap {
                release_free_memory();
            }
            // A map with no query ranks by no query words; without a cache, no later run
            // reads this graph either.
            let query_words = !self.opts.map_lines_only || derived.is_some();
            let uses = take_uses(files, counted, trim_heap, query_words);
            let graph = build_graph_consuming(files, go_modules, ts_paths, uses);
            // The binding's and the build's temporaries, before ranking allocates.
            if trim_heap {
                release_free_memory();
            }
            graph
        } else if let Reuse::Previous {
            index: previous, ..
        } = self.reuse
        {
            // A refresh binds again only the files the edit can have changed.
            let (graph, bound) = build_graph_relinking(
                files,
                go_modules,
                ts_paths,
                &previous.files,
                &previous.go_modules,
                &previous.ts_paths,
                &previous.graph,
            );
            relinked = Some(bound);
            graph
        } else {
            build_graph(files, go_modules, ts_paths)
        };
        Linked {
            graph,
            ms: ms_since(t2),
            cached,
            key,
            relinked,
        }
    }

    /// The history `job` read beside the parse, and its postings (from the derived cache
    /// when it holds the ones of this history and these files).
    fn read_history(
        &self,
        job: HistoryJob,
        root: &Path,
        files: &[ParsedFile],
        derived_warnings: &mut Vec<String>,
    ) -> History {
        let derived = self.derived;
        let mut outcome = job.finish();
        let key_of = |outcome: &HistoryOutcome| {
            derived
                .zip(outcome.head.as_deref())
                .map(|(_, head)| InputKey::history(head, files))
        };
        let mut key = key_of(&outcome);
        let mut cached_index = None;
        if let Some((stored_key, stored)) = outcome.stored.take() {
            if key == Some(stored_key) && stored.check_fits(files.len()).is_ok() {
                cached_index = Some(stored);
            } else {
                // The cached postings of this `HEAD` are of other files: the history is read
                // now after all.
                let (opts, reuse) = (self.opts, Reuse::Nothing);
                outcome =
                    HistoryJob::start(root, &opts.history, opts.use_cache, reuse, false).finish();
                key = key_of(&outcome);
            }
        }
        let HistoryOutcome {
            history,
            mut status,
            head,
            ..
        } = outcome;
        let cached_index = cached_index.or_else(|| {
            derived
                .zip(key)
                .filter(|_| history.is_some())
                .and_then(|(cache, key)| load_history(cache, key, files.len(), derived_warnings))
        });
        let cached = cached_index.is_some();
        let index =
            cached_index.or_else(|| history.as_deref().map(|h| HistoryIndex::build(h, files)));
        if let Some(h) = &index {
            status.commits = h.commits;
            status.files = h.files;
        }
        History {
            history,
            index,
            status,
            key,
            head,
            cached,
        }
    }
}

/// Marks the files in a folder the walk found vendored by its licence (`walk::licences`);
/// the name and size rule was applied when each file was made.
fn mark_vendored_by_licence(files: &mut [ParsedFile], vendored_dirs: &[String]) {
    if vendored_dirs.is_empty() {
        return;
    }
    for f in files.iter_mut() {
        if licences::in_any(&f.path, vendored_dirs) {
            f.vendored = true;
        }
    }
}

/// Whether a build will probably parse `f`: no cached or previous tags for it by size and
/// mtime (the test `unchanged_file` makes first). Only then is its language's query worth
/// compiling during the walk; a warm start compiles none.
pub(super) fn likely_parsed(reuse: Reuse<'_>, f: &WalkedFile) -> bool {
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
pub(super) fn previous_unchanged<'i>(
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

pub(super) fn unchanged_file(
    reuse: Reuse<'_>,
    f: &WalkedFile,
    opts: &IndexOptions,
) -> Option<ParsedFile> {
    let (index, changed) = match reuse {
        Reuse::Previous { index, changed } => (index, changed),
        // A map-only build takes a cache entry unread when the file is unchanged by size
        // and mtime: the entry holds all a map needs of it (`MapLines`). So does a build
        // with lazy sources, which reads the text only if asked for more.
        Reuse::Store(store) if opts.map_lines_only || opts.lazy_sources => {
            let hit = store.unchanged_for_map(&f.rel_path, f.lang, f.size, f.mtime_ns)?;
            let lines = hit.lines.clone()?;
            let (path, tags) = (f.rel_path.clone(), hit.tags.clone());
            let mut file = if opts.map_lines_only {
                ParsedFile::from_map_lines(path, f.lang, f.size, lines, tags)
            } else {
                let read = lazy_read(f, opts.walk.max_file_size, hit.hash);
                ParsedFile::lazy(path, f.lang, f.size, lines, tags, read)
            };
            file.unread_links.clone_from(&hit.unread_links);
            return Some(file.with_stamp(f.mtime_ns, hit.hash));
        }
        Reuse::Store(_) | Reuse::Nothing => return None,
    };
    previous_unchanged(index, changed, f).cloned()
}

/// How a file taken unread is read when its text is first needed: as the parse reads it,
/// and only if it still holds the content its tags came from (`hash`).
fn lazy_read(f: &WalkedFile, max_size: u64, hash: u64) -> impl Fn() -> Option<String> {
    let (abs_path, rel_path) = (f.abs_path.clone(), f.rel_path.clone());
    move || {
        load_source(&abs_path, &rel_path, max_size)
            .ok()
            .filter(|text| content_hash(text) == hash)
    }
}

/// A one-shot map's copy of a file's fresh tags, in new allocations, without what only
/// search reads (`Definition::parent`) and without the references (counted for binding by
/// then, see `UseCounts`).
///
/// Why: the tags were allocated while the file's parse tree was alive, so their many small
/// blocks (names, scope lists, import names) sit scattered between the tree's nodes; once
/// the tree is freed, every page holding one of them stays resident. Copied now, they fill
/// the freed space contiguously and the originals' pages can be trimmed (mypy: ~2 MB).
pub(super) fn rehomed(tags: FileTags) -> FileTags {
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
                container: d.container,
                declaration: d.declaration,
                lookup_only: d.lookup_only,
            })
            .collect(),
        refs: RefList::new(),
        imports: tags.imports.clone(),
        parse_errors: tags.parse_errors,
        module_scoped: tags.module_scoped,
        containers: tags.containers.clone(),
        mentions: tags.mentions.clone(),
    }
}

/// Moves the files' imports out of them, and their references counted (`counted[i]` when
/// already done at parse time), leaving copies where their tags are shared (e.g. with a
/// previous index).
pub(super) fn take_uses(
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

pub(super) fn canonical_root(root: &Path) -> Result<PathBuf, EngineError> {
    root.canonicalize().map_err(|source| EngineError::Io {
        path: root.to_path_buf(),
        source,
    })
}

/// Runs `run` on each item of `order` on the rayon pool, each pool thread taking the next
/// item in `order`'s sequence, and returns every item's result with its index (in no
/// particular order). An item that comes back waiting is finished (`finish`) after a later
/// item's run once `ready` holds for it, one after each run, so that the threads spread its
/// work; those still waiting after the last run are finished in parallel at the end.
pub(super) fn run_with_waiting<T: Send, W: Send>(
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

/// Reads the prose and config files search's text evidence needs, with their stamps. A
/// refresh takes over the text of a doc the edit did not touch (not among the changed paths,
/// same size and mtime), as it does for code files (`unchanged_file`): rereading every doc
/// was a fifth of a one-file refresh on terraform.
/// The docs of a build, and the doc table to store when the derived cache's differs.
#[derive(Default)]
pub(super) struct LoadedDocs {
    pub(super) docs: Vec<TextDoc>,
    pub(super) stamps: Vec<DocStamp>,
    pub(super) unsaved: Option<(InputKey, DocTable)>,
}

impl Build<'_> {
    /// The docs `walked` lists: a refresh keeps those unchanged since the previous index; a
    /// build with lazy sources takes those unchanged since the derived cache's doc table was
    /// written (by size and mtime, the racy-clean rule) unread, and keeps the table of what
    /// it found, to store if it changed; the rest are read.
    fn load_docs(
        &self,
        walked: &[DocFile],
        read_since_ns: i64,
        warnings: &mut Vec<String>,
    ) -> LoadedDocs {
        let max_size = self.opts.walk.max_doc_size;
        let previous = match self.reuse {
            Reuse::Previous { index, changed } => Some((index, changed)),
            Reuse::Store(_) | Reuse::Nothing => None,
        };
        // Only a build from the persistent cache with lazy sources (a one-shot command's)
        // takes docs unread from the table, and keeps it: the TUI and the servers read every
        // doc, and a refresh has its previous index's.
        let cache = self
            .derived
            .filter(|_| matches!(self.reuse, Reuse::Store(_)) && self.opts.lazy_sources);
        let key = InputKey::doc_table(max_size);
        let table: Option<DocTable> = cache.and_then(|cache| {
            load_checked(
                cache,
                &blob::DOCS,
                key,
                "doc table",
                "reading the docs",
                warnings,
                Ok,
            )
        });
        let table = table.as_ref();
        let found: Vec<FoundDoc> = walked
            .par_iter()
            .map(|d| {
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
                    return (Some((doc, stamp)), None);
                }
                if let Some(entry) = table.and_then(|t| t.unchanged(&d.rel_path, stamp)) {
                    let doc = entry.hash.map(|hash| {
                        let doc =
                            TextDoc::lazy(d.rel_path.clone(), hash, lazy_doc(d, max_size, hash));
                        (doc, stamp)
                    });
                    return (doc, Some(entry.clone()));
                }
                let entry = |hash| DocEntry {
                    path: d.rel_path.clone(),
                    size: d.size,
                    mtime_ns: d.mtime_ns,
                    hash,
                };
                match load_source(&d.abs_path, &d.rel_path, max_size) {
                    Ok(text) => {
                        let doc = TextDoc::new(d.rel_path.clone(), Arc::from(text));
                        let hash = doc.hash;
                        (Some((doc, stamp)), Some(entry(Some(hash))))
                    }
                    // An unreadable file may be readable next time: no entry.
                    Err(SkipReason::Unreadable) => (None, None),
                    Err(_) => (None, Some(entry(None))),
                }
            })
            .collect();
        let mut out = LoadedDocs::default();
        let mut entries = Vec::new();
        for (doc, entry) in found {
            if let Some((doc, stamp)) = doc {
                out.docs.push(doc);
                out.stamps.push(stamp);
            }
            entries.extend(entry);
        }
        if cache.is_some() && table.is_none_or(|t| t.entries != entries) {
            let table = DocTable {
                read_since_ns,
                entries,
            };
            out.unsaved = Some((key, table));
        }
        out
    }
}

/// One walked doc: the doc kept (none: its content keeps it out, or it could not be read)
/// and its doc table entry (none: unreadable, so read again next time).
type FoundDoc = (Option<(TextDoc, DocStamp)>, Option<DocEntry>);

/// How a doc taken unread is read when its text is first needed: as a build reads it, and
/// only if it still holds the text `hash` names.
fn lazy_doc(d: &DocFile, max_size: u64, hash: u64) -> impl Fn() -> Option<String> {
    let (abs_path, rel_path) = (d.abs_path.clone(), d.rel_path.clone());
    move || {
        load_source(&abs_path, &rel_path, max_size)
            .ok()
            .filter(|text| content_hash(text) == hash)
    }
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
        let langs: Vec<&str> = crate::engine::base::model::Lang::ALL
            .iter()
            .map(|l| l.name())
            .collect();
        return format!(
            "no files with a supported extension (languages read: {})",
            langs.join(", ")
        );
    }
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

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
