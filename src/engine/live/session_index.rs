//! `SessionIndex`: the engine behind an interactive session (the TUI). It drives the
//! [`LiveIndex`] (build with progress, refresh, watcher, cache saves) and answers the
//! session's requests — map (rank + fit, re-using the ranking when only the budget or
//! tokenizer changed), search, "why", callers and callees, and the markdown copy — as
//! engine snapshots. Runs on the session's engine thread (or inline in tests).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use crossbeam_channel::Receiver;

use super::session::source_key;
use super::session::{
    EngineEvent, EngineRequest, Generation, HitsSnapshot, IncomingEdge, IndexSnapshot, MapFile,
    MapParams, MapSnapshot, Published, RefsSnapshot, SessionEngine, WhyData, TOP_REFS,
};
use super::{LiveIndex, SourceIndex};
use crate::engine::answer::{extractive_answer, AnswerStyle};
use crate::engine::base::text::sanitize_line;
use crate::engine::base::tokenizer::TokenizerKind;
use crate::engine::index::explain::explain_file;
use crate::engine::index::refs::{Direction, RefTarget};
use crate::engine::index::{BuildProgress, Index, IndexOptions, MapRequest};
use crate::engine::ingest::history::HistorySource;
use crate::engine::live::watch::ChangeBatch;
use crate::engine::rank::pagerank::RankOutput;
use crate::engine::rank::repo_map::{render, MapFormat, RepoMap};
use crate::engine::search::sources::SourceSpec;
use crate::engine::search::SearchOptions;

/// Hits kept per query (the pane scrolls).
pub const TOP_HITS: usize = 50;
/// Definitions listed in the cut view.
pub const CUT_ROWS: usize = 200;

/// The part of a request that decides the ranking (budget and tokenizer only re-fit).
#[derive(Debug, Clone, PartialEq, Eq)]
struct RankKey {
    focus: Vec<String>,
    query: String,
    exclude_files: Vec<String>,
    exclude_symbols: Vec<String>,
    scope: crate::engine::base::scope::ScopeSpec,
}

impl RankKey {
    fn of(p: &MapParams) -> RankKey {
        RankKey {
            focus: p.focus.clone(),
            query: p.query.clone(),
            exclude_files: p.exclude_files.clone(),
            exclude_symbols: p.exclude_symbols.clone(),
            scope: p.scope.clone(),
        }
    }
}

pub struct SessionIndex {
    root: PathBuf,
    opts: IndexOptions,
    /// Watch the files (the TUI); off in tests, which say what changed themselves.
    watch: bool,
    /// Built by the first `Build` request, with the options set by then.
    live: Option<LiveIndex>,
    /// The live index's warnings, turned into notices after each request.
    warnings: Receiver<String>,
    warn_tx: crossbeam_channel::Sender<String>,
    /// The config's `[scope]`: what search ranks and shows, as for the map.
    scope: crate::engine::base::scope::ScopeSpec,
    /// Extra read-only roots searched after the project (`[sources]`, already checked).
    sources: Vec<SourceSpec>,
    last_rank: Option<(RankKey, Arc<RankOutput>)>,
    /// The index the last snapshot was published for.
    published_index: Option<Arc<Index>>,
}

impl SessionIndex {
    pub fn new(root: PathBuf) -> SessionIndex {
        let (warn_tx, warnings) = crossbeam_channel::unbounded();
        SessionIndex {
            root,
            opts: IndexOptions::default(),
            watch: false,
            live: None,
            warnings,
            warn_tx,
            scope: crate::engine::base::scope::ScopeSpec::default(),
            sources: Vec::new(),
            last_rank: None,
            published_index: None,
        }
    }

    /// Uses the persistent tag cache (the CLI's `--no-cache` turns it off).
    pub fn with_cache(mut self, use_cache: bool) -> SessionIndex {
        self.opts.use_cache = use_cache;
        self
    }

    /// Reads the repository's commit history for search's history signal (`git log`, on a
    /// thread beside the parse). Off by default so tests on fixtures inside this project's
    /// own repository do not depend on its commits.
    pub fn with_history(mut self, read: bool) -> SessionIndex {
        self.opts.history = if read {
            HistorySource::Repo
        } else {
            HistorySource::Off
        };
        self
    }

    /// Watches the files from the first build on and reports their changes
    /// (`EngineEvent::FilesChanged`) and how it watches (`Watching`, `NotWatching`).
    pub fn with_watch(mut self, watch: bool) -> SessionIndex {
        self.watch = watch;
        self
    }

    /// Narrows search to the config's `[scope]` (the map request carries it on its own).
    pub fn with_scope(mut self, scope: crate::engine::base::scope::ScopeSpec) -> SessionIndex {
        self.scope = scope;
        self
    }

    /// Also searches these read-only roots, after the project (checked by
    /// `sources::check_sources`); the map stays the project's own.
    pub fn with_sources(mut self, sources: Vec<SourceSpec>) -> SessionIndex {
        self.sources = sources;
        self
    }

    /// The index, once built (tests).
    pub fn index(&self) -> Option<&Arc<Index>> {
        self.live.as_ref().and_then(LiveIndex::last_index)
    }

    /// The live index, made (and its watcher started) on the first request.
    fn live_index(&mut self, emit: &mut dyn FnMut(EngineEvent)) -> &mut LiveIndex {
        let fresh = self.live.is_none();
        let (root, opts, watch, tx) = (&self.root, &self.opts, self.watch, &self.warn_tx);
        let sources = &self.sources;
        let live = self.live.get_or_insert_with(|| {
            let tx = tx.clone();
            LiveIndex::new(
                root.clone(),
                opts.clone(),
                watch,
                Box::new(move |w: &str| {
                    let _ = tx.send(sanitize_line(w));
                }),
            )
            .with_sources(sources.clone())
        });
        if fresh {
            live.start_watching();
            match &live.watcher {
                Some(w) => emit(EngineEvent::Watching(w.mode())),
                None if watch => emit(EngineEvent::NotWatching(
                    "live updates off, the watcher could not start".into(),
                )),
                None => {}
            }
        }
        live
    }

    /// Warnings the live index gave since the last request, as notices.
    fn forward_warnings(&self, emit: &mut dyn FnMut(EngineEvent)) {
        for w in self.warnings.try_iter() {
            emit(EngineEvent::Notice(w));
        }
    }

    /// A full build, or with `changed` (and an index to start from) an incremental refresh.
    fn build(
        &mut self,
        generation: Generation,
        changed: Option<ChangeBatch>,
        published: &Published,
        emit: &mut dyn FnMut(EngineEvent),
    ) {
        let t0 = Instant::now();
        assert!(!worker_panic_requested(), "test panic in the engine worker");
        let live = self.live_index(emit);
        let refreshing = changed.is_some() && live.last_index().is_some();
        match changed {
            Some(batch) => live.add_changes(batch),
            None => live.forget_index(),
        }
        // The build runs on a scoped thread and reports through a channel, so this thread
        // can forward progress (throttled) through `emit`, which is not `Send`.
        let (tx, rx) = crossbeam_channel::unbounded::<BuildProgress>();
        live.progress = Some(tx);
        let built = std::thread::scope(|scope| {
            let handle = scope.spawn(|| {
                let result = live
                    .current(super::BACKGROUND_WAIT)
                    .map(|(index, _)| Arc::clone(index));
                live.progress = None;
                result
            });
            let mut last_sent: Option<Instant> = None;
            for p in &rx {
                let due = last_sent.is_none_or(|t| t.elapsed().as_millis() >= 50);
                if due || p.done == p.total {
                    emit(EngineEvent::Progress {
                        phase: p.phase.name(),
                        done: p.done,
                        total: p.total,
                    });
                    last_sent = Some(Instant::now());
                }
            }
            handle.join()
        });
        let built = match built {
            Ok(result) => result,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        self.forward_warnings(emit);
        let index = match built {
            Ok(index) => index,
            Err(e) => {
                emit(EngineEvent::IndexFailed {
                    generation,
                    code: e.code(),
                    message: e.to_string(),
                });
                return;
            }
        };
        // The first build prepares search before saying "ready"; a refresh publishes the
        // new index at once and lets the next query build the search index.
        if !refreshing {
            emit(EngineEvent::Progress {
                phase: "search index",
                done: index.files.len(),
                total: index.files.len(),
            });
            let _ = index.search_index();
        }
        self.last_rank = None;
        let sources = match &mut self.live {
            // Built once, with the first index (not watched: reference code).
            Some(live) if !self.sources.is_empty() => {
                if !refreshing {
                    emit(EngineEvent::Progress {
                        phase: "sources",
                        done: 0,
                        total: self.sources.len(),
                    });
                }
                live.source_indexes()
            }
            _ => &[],
        };
        publish_index(&index, sources, generation, t0, published);
        self.forward_warnings(emit);
        self.published_index = Some(Arc::clone(&index));
        emit(EngineEvent::IndexReady { generation });
        // After the front door has what it needs.
        if let Some(live) = &mut self.live {
            live.save_cache();
        }
    }

    /// The current index, if one was built.
    fn current_index(&self) -> Option<Arc<Index>> {
        self.published_index.clone()
    }

    fn ranked(&mut self, index: &Index, params: &MapParams) -> Arc<RankOutput> {
        let key = RankKey::of(params);
        if let Some((k, r)) = &self.last_rank {
            if *k == key {
                return r.clone();
            }
        }
        let r = Arc::new(index.rank(&map_request(params)));
        self.last_rank = Some((key, r.clone()));
        r
    }

    fn map(
        &mut self,
        generation: Generation,
        params: MapParams,
        published: &Published,
        emit: &mut dyn FnMut(EngineEvent),
    ) {
        let Some(index) = self.current_index() else {
            return;
        };
        let t = Instant::now();
        let ranked = self.ranked(&index, &params);
        let map = index.fit(&ranked, &map_request(&params));
        let snapshot = map_snapshot(&index, &map, generation, params, t);
        if published.store_map(snapshot) {
            emit(EngineEvent::MapReady { generation });
        }
    }

    fn search(
        &mut self,
        generation: Generation,
        query: String,
        published: &Published,
        emit: &mut dyn FnMut(EngineEvent),
    ) {
        let Some(index) = self.current_index() else {
            return;
        };
        let t = Instant::now();
        let opts = SearchOptions {
            top: TOP_HITS,
            langs: self.scope.langs.clone(),
            include: self.scope.include.clone(),
            exclude: self.scope.exclude.clone(),
            ..SearchOptions::default()
        };
        let resp = index.search(&query, &opts);
        let source_hits = match &mut self.live {
            Some(live) => live
                .source_indexes()
                .iter()
                .map(|s| (s.name.clone(), s.index.search(&query, &opts).hits))
                .collect(),
            None => Vec::new(),
        };
        let answer = if resp.hits.is_empty() {
            String::new()
        } else {
            extractive_answer(&resp, &resp.hits, AnswerStyle::Concise, &index.links())
        };
        let texts = resp
            .hits
            .iter()
            .filter_map(|h| Some((h.file_path.clone(), index.generated_text(&h.file_path)?)))
            .collect();
        let snapshot = HitsSnapshot {
            generation,
            query,
            confidence: resp.confidence,
            low_score: resp.low_score,
            texts,
            hits: resp.hits,
            source_hits,
            answer,
            latency_ms: t.elapsed().as_secs_f64() * 1000.0,
        };
        if published.store_hits(snapshot) {
            emit(EngineEvent::HitsReady { generation });
        }
    }

    /// The markdown copy: the map fitted so that its markdown is within the budget.
    fn markdown(
        &mut self,
        generation: Generation,
        params: &MapParams,
        emit: &mut dyn FnMut(EngineEvent),
    ) {
        let Some(index) = self.current_index() else {
            return;
        };
        let ranked = self.ranked(&index, params);
        let req = map_request(params);
        let map = index.fit(&ranked, &req);
        let (text, tokens, _) = markdown_within_budget(&index, &ranked, &req, &map);
        emit(EngineEvent::MarkdownReady {
            generation,
            text,
            tokens,
        });
    }

    /// Callers and callees of what `targets` name (each section at most `TOP_REFS`).
    fn refs(
        &mut self,
        generation: Generation,
        targets: Vec<RefTarget>,
        published: &Published,
        emit: &mut dyn FnMut(EngineEvent),
    ) {
        let Some(index) = self.current_index() else {
            return;
        };
        let answer = index.references_among(&targets, Direction::Both, TOP_REFS);
        if published.store_refs(RefsSnapshot {
            generation,
            targets,
            answer,
        }) {
            emit(EngineEvent::RefsReady { generation });
        }
    }

    fn why(
        &mut self,
        generation: Generation,
        path: &str,
        params: &MapParams,
        emit: &mut dyn FnMut(EngineEvent),
    ) {
        let Some(index) = self.current_index() else {
            return;
        };
        let ranked = self.ranked(&index, params);
        let why = why_data(&index, &ranked, params, path);
        emit(EngineEvent::WhyReady {
            generation,
            why: Box::new(why),
        });
    }
}

impl SessionEngine for SessionIndex {
    fn handle(
        &mut self,
        req: EngineRequest,
        published: &Published,
        emit: &mut dyn FnMut(EngineEvent),
    ) {
        match req {
            EngineRequest::Build { generation } => self.build(generation, None, published, emit),
            EngineRequest::Refresh {
                generation,
                changed,
            } => {
                let batch = ChangeBatch {
                    paths: changed,
                    ..ChangeBatch::default()
                };
                self.build(generation, Some(batch), published, emit);
            }
            EngineRequest::Map { generation, params } => {
                self.map(generation, params, published, emit);
            }
            EngineRequest::Search { generation, query } => {
                self.search(generation, query, published, emit);
            }
            EngineRequest::Why {
                generation,
                path,
                params,
            } => self.why(generation, &path, &params, emit),
            EngineRequest::Markdown { generation, params } => {
                self.markdown(generation, &params, emit);
            }
            EngineRequest::Refs {
                generation,
                targets,
            } => self.refs(generation, targets, published, emit),
        }
    }

    fn changes(&self) -> Option<Receiver<ChangeBatch>> {
        self.live.as_ref().and_then(LiveIndex::watcher_changes)
    }

    /// Says what the watcher saw (the front door counts it as pending and asks for a
    /// refresh) and keeps it for the next refresh.
    fn on_changes(&mut self, batch: Option<ChangeBatch>, emit: &mut dyn FnMut(EngineEvent)) {
        let Some(live) = &mut self.live else {
            return;
        };
        let Some(mut batch) = batch else {
            // The watcher stopped: from now on each refresh re-examines the files.
            live.watcher = None;
            live.rescan_each_call = true;
            emit(EngineEvent::NotWatching("the file watcher stopped".into()));
            return;
        };
        if let Some(mode) = batch.mode.take() {
            emit(EngineEvent::Watching(mode));
        }
        for warning in std::mem::take(&mut batch.warnings) {
            emit(EngineEvent::Notice(sanitize_line(&warning)));
        }
        if let Some(why) = &batch.error {
            emit(EngineEvent::NotWatching(sanitize_line(why)));
        }
        if batch.has_no_changes() {
            return;
        }
        emit(EngineEvent::FilesChanged {
            paths: batch.paths.clone(),
            rescan: batch.rescan,
        });
        batch.error = None;
        live.add_changes(batch);
    }
}

/// Where the end-to-end tests make the engine thread panic on purpose
/// (`MAPSCOPE_TEST_PANIC=worker`), to check that the panic is contained. Only in a build
/// with debug assertions (the one `cargo test` runs): a release build never reads it.
fn worker_panic_requested() -> bool {
    cfg!(debug_assertions) && std::env::var("MAPSCOPE_TEST_PANIC").is_ok_and(|v| v == "worker")
}

/// Publishes what the front door knows about a built index (counts and texts for the
/// preview).
fn publish_index(
    index: &Index,
    sources: &[SourceIndex],
    generation: Generation,
    t0: Instant,
    published: &Published,
) {
    let mut texts = BTreeMap::new();
    let mut symbols = 0;
    for f in &index.files {
        if let Some(source) = f.source() {
            texts.insert(f.path.clone(), source.clone());
        }
        symbols += f.tags.defs.len();
    }
    for d in &index.docs {
        texts.insert(d.path.clone(), d.text().clone());
    }
    for s in sources {
        for f in &s.index.files {
            if let Some(source) = f.source() {
                texts.insert(source_key(&s.name, &f.path), source.clone());
            }
        }
    }
    published.store_index(IndexSnapshot {
        generation,
        root: index.root.display().to_string(),
        files: index.files.len(),
        docs: index.docs.len(),
        symbols,
        built_at: Instant::now(),
        build_ms: t0.elapsed().as_secs_f64() * 1000.0,
        texts,
        sources: sources
            .iter()
            .map(|s| (s.name.clone(), s.root.clone()))
            .collect(),
    });
}

/// The engine request for the app's parameters: the same fields `mapscope map` fills from
/// its flags (`--tokens`, `--tokenizer`, `--focus`, `--query`), so the two maps are equal.
pub fn map_request(p: &MapParams) -> MapRequest {
    MapRequest {
        budget: p.budget,
        tokenizer: TokenizerKind::parse(&p.tokenizer).unwrap_or(TokenizerKind::O200k),
        focus: p.focus.clone(),
        idents: p.idents.clone(),
        query: if p.query.trim().is_empty() {
            None
        } else {
            Some(p.query.clone())
        },
        exclude_files: p.exclude_files.clone(),
        exclude_symbols: p.exclude_symbols.clone(),
        scope: p.scope.clone(),
        ..MapRequest::default()
    }
}

/// The map as markdown whose own token count (path lines, fences and all) is within the
/// budget, with that count and the map it renders (`text_map`, or the smaller fit). The
/// fences cost tokens the text map does not have, so when the text map's markdown is over,
/// the map is fitted again to a budget smaller by the excess until its markdown fits (a fit
/// re-uses the ranking and cached line costs: cheap). Every door's markdown goes through
/// here (the TUI's copy, `map --format markdown`, MCP `repo_map`).
pub fn markdown_within_budget(
    index: &Index,
    ranked: &RankOutput,
    req: &MapRequest,
    text_map: &RepoMap,
) -> (String, usize, RepoMap) {
    let tok = crate::engine::base::tokenizer::tokenizer(req.tokenizer);
    let mut markdown = render(text_map, &index.files, MapFormat::Markdown);
    let mut tokens = tok.count(&markdown);
    let mut fitted = None;
    let mut budget = req.budget;
    while tokens > req.budget && budget > 0 {
        // At least an eighth less each round, so a stubborn excess still ends quickly.
        let excess = (tokens - req.budget).max(budget / 8).max(1);
        budget = budget.saturating_sub(excess);
        let smaller = MapRequest {
            budget,
            ..req.clone()
        };
        let map = index.fit(ranked, &smaller);
        markdown = render(&map, &index.files, MapFormat::Markdown);
        tokens = tok.count(&markdown);
        fitted = Some(map);
    }
    (markdown, tokens, fitted.unwrap_or_else(|| text_map.clone()))
}

fn map_snapshot(
    index: &Index,
    map: &RepoMap,
    generation: Generation,
    params: MapParams,
    t: Instant,
) -> MapSnapshot {
    let text = render(map, &index.files, MapFormat::Text);
    let files = header_lines(&text, map);
    MapSnapshot {
        generation,
        params,
        tokens: map.tokens,
        text,
        files,
        budget: map.budget,
        cut: map.cut.iter().take(CUT_ROWS).cloned().collect(),
        fit_ms: t.elapsed().as_secs_f64() * 1000.0,
    }
}

/// Where each file's header line is in the map text: the text is each file's path line,
/// its lines, then a blank separator.
fn header_lines(text: &str, map: &RepoMap) -> Vec<MapFile> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::with_capacity(map.files.len());
    let mut expected = 0usize;
    let mut cursor = 0usize;
    for f in &map.files {
        // Trust the layout, but re-synchronise on the path if the format ever changes.
        let is_header = |l: &str| l == f.path || l.strip_suffix(':') == Some(f.path.as_str());
        let line = if lines.get(expected).is_some_and(|l| is_header(l)) {
            expected
        } else {
            (cursor..lines.len())
                .find(|&i| is_header(lines[i]))
                .unwrap_or(expected.min(lines.len().saturating_sub(1)))
        };
        out.push(MapFile {
            path: f.path.clone(),
            rank: f.rank,
            tokens: f.tokens,
            header_line: line,
            def_lines: f.symbols.iter().map(|s| s.line_range.start).collect(),
            path_only: f.is_path_only(),
        });
        cursor = line + 1;
        expected = line + 1 + f.lines.len() + 1;
    }
    out
}

fn why_data(index: &Index, ranked: &RankOutput, params: &MapParams, path: &str) -> WhyData {
    let req = map_request(params);
    let map = index.fit(ranked, &req);
    let explained = explain_file(index, &req, ranked, &map, path);
    let Some(fi) = index.file_index(&explained.path) else {
        return WhyData {
            explained,
            incoming: Vec::new(),
        };
    };
    let mut incoming: Vec<IncomingEdge> = index
        .graph
        .incoming(fi)
        .into_iter()
        .map(|(src, e)| {
            let mut idents = index.graph.edge_idents(e);
            idents.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
            IncomingEdge {
                path: index.files[src].path.clone(),
                weight: e.weight,
                idents: idents
                    .into_iter()
                    .take(8)
                    .map(|(n, _)| n.to_string())
                    .collect(),
            }
        })
        .collect();
    incoming.sort_by(|a, b| b.weight.total_cmp(&a.weight).then(a.path.cmp(&b.path)));
    WhyData {
        explained,
        incoming,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::live::session::SessionHandle;
    use std::time::Duration;

    /// The session's engine thread owns the watcher: an edit arrives as `FilesChanged`
    /// without the front door watching anything, and a refresh publishes the new index.
    #[test]
    fn the_session_watches_the_files_and_refreshes_on_request() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.py"), "def a():\n    return 1\n").unwrap();
        let (tx, rx) = crossbeam_channel::unbounded();
        let service = SessionIndex::new(dir.path().to_path_buf()).with_watch(true);
        let mut handle = SessionHandle::spawn(Box::new(service), tx);
        handle.send(EngineRequest::Build { generation: 1 });
        let wait_for = |pred: &dyn Fn(&EngineEvent) -> bool| {
            let deadline = Instant::now() + Duration::from_secs(20);
            loop {
                let left = deadline.saturating_duration_since(Instant::now());
                match rx.recv_timeout(left) {
                    Ok(e) if pred(&e) => return e,
                    Ok(_) => {}
                    Err(e) => panic!("no such event: {e}"),
                }
            }
        };
        wait_for(&|e| matches!(e, EngineEvent::Watching(_)));
        wait_for(&|e| matches!(e, EngineEvent::IndexReady { generation: 1 }));
        assert_eq!(handle.published.index.load().as_ref().unwrap().files, 1);
        std::fs::write(dir.path().join("b.py"), "def b():\n    return a()\n").unwrap();
        let changed = wait_for(&|e| matches!(e, EngineEvent::FilesChanged { .. }));
        let EngineEvent::FilesChanged { paths, .. } = changed else {
            unreachable!()
        };
        assert!(paths.contains("b.py"), "{paths:?}");
        handle.send(EngineRequest::Refresh {
            generation: 2,
            changed: paths,
        });
        wait_for(&|e| matches!(e, EngineEvent::IndexReady { generation: 2 }));
        assert_eq!(handle.published.index.load().as_ref().unwrap().files, 2);
    }
}
